// SPDX-License-Identifier: MIT
// The JSON scene loader (engine/src/scene_json.c): every malformed file in tests/scene/data/bad_*.json
// with its exact error, the shipped scenes in assets/scenes, warnings, overrides, allocation
// failures, and a 50 MB file generated at run time. Every load runs with a counting allocator,
// and every failed load must leave no world and no live byte behind.

// opendir, mkdtemp, unlink, rmdir
#define _POSIX_C_SOURCE 200809L

#include "scene_suites.h"
#include "test_support.h"

#include "cairn/scene.h"

#include <cjson/cJSON.h>

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CNT_MAX_WARNINGS 16

// ---------------------------------------------------------------------------------------------
// helpers

// One load, with the counting allocator and the warnings it produced.
typedef struct cntLoad
{
    cntCountingAllocator counter;
    cnAllocator counting;
    cnSceneOptions options;
    cnScene scene;
    cnSceneError error;
    int warningCount;
    char warnings[CNT_MAX_WARNINGS][CN_SCENE_TEXT_CAPACITY];
} cntLoad;

static void cntCollectWarning( const char* text, void* context )
{
    cntLoad* load = context;
    if ( load->warningCount < CNT_MAX_WARNINGS )
    {
        snprintf( load->warnings[load->warningCount], CN_SCENE_TEXT_CAPACITY, "%s", text );
    }
    load->warningCount += 1;
}

// The shared counting allocator rounds a size up to the requested alignment but allocates with at
// least pointer alignment, and aligned_alloc refuses a size of 9 at alignment 8 (the engine copies
// body names with alignment 1). Ask it for pointer alignment at least.
static void* cntAlignedAlloc( size_t size, size_t alignment, void* context )
{
    const cnAllocator* counting = context;
    return counting->allocFcn( size, alignment < sizeof( void* ) ? sizeof( void* ) : alignment,
                               counting->context );
}

static void cntAlignedFree( void* memory, size_t size, void* context )
{
    const cnAllocator* counting = context;
    counting->freeFcn( memory, size, counting->context );
}

static cnAllocator cntMakeAllocator( cntCountingAllocator* counter, cnAllocator* counting )
{
    *counting = cntMakeCountingAllocator( counter );
    cnAllocator allocator = { cntAlignedAlloc, cntAlignedFree, counting };
    return allocator;
}

// `load` must stay where it is: the allocator points at its counter.
static void cntInitLoad( cntLoad* load )
{
    memset( load, 0, sizeof( *load ) );
    load->options = cnDefaultSceneOptions();
    load->options.worldDef.allocator = cntMakeAllocator( &load->counter, &load->counting );
    load->options.warningFcn = cntCollectWarning;
    load->options.warningContext = load;
    // garbage, so that the test sees the loader write every field
    memset( &load->scene, 0xA5, sizeof( load->scene ) );
    memset( &load->error, 0xA5, sizeof( load->error ) );
}

static cnStatus cntLoadFile( cntLoad* load, const char* path )
{
    return cnLoadSceneFile( path, &load->options, &load->scene, &load->error );
}

// Destroy the loaded world and check that the allocator got every byte back.
static void cntFinishLoad( cntLoad* load )
{
    if ( cnWorld_IsValid( load->scene.worldId ) )
    {
        ck_assert_int_eq( cnDestroyWorld( load->scene.worldId ), cn_statusOk );
    }
    ck_assert_msg( load->counter.liveBytes == 0, "%zu bytes still allocated", load->counter.liveBytes );
    ck_assert_int_eq( load->counter.liveBlocks, 0 );
}

// After a failed load: no world, no bytes.
static void cntAssertNothingLeft( cntLoad* load )
{
    ck_assert_msg( CN_IS_NULL( load->scene.worldId ), "a failed load returned a world id" );
    ck_assert( cnWorld_IsValid( load->scene.worldId ) == false );
    ck_assert_int_eq( load->scene.bodyCount, 0 );
    ck_assert_msg( load->counter.liveBytes == 0, "%zu bytes left behind", load->counter.liveBytes );
    ck_assert_int_eq( load->counter.liveBlocks, 0 );
}

static void cntPath( char* buffer, size_t size, const char* directory, const char* name )
{
    snprintf( buffer, size, "%s/%s", directory, name );
}

static cJSON* cntParseFile( const char* path )
{
    size_t length = 0;
    char* text = cntReadText( path, &length );
    ck_assert_msg( text != NULL, "cannot read %s", path );
    cJSON* root = cJSON_ParseWithLength( text, length );
    free( text );
    ck_assert_msg( root != NULL, "%s is not JSON", path );
    return root;
}

static bool cntEndsWith( const char* text, const char* suffix )
{
    size_t a = strlen( text );
    size_t b = strlen( suffix );
    return a >= b && strcmp( text + a - b, suffix ) == 0;
}

static cnBodyId cntFindBody( const cntLoad* load, const char* name )
{
    cnBodyId body = cnWorld_FindBody( load->scene.worldId, name );
    ck_assert_msg( cnBody_IsValid( body ), "no body named %s", name );
    return body;
}

static cnShapeId cntShape( cnBodyId body, int index )
{
    cnShapeId shapes[8];
    int count = cnBody_GetShapes( body, shapes, 8 );
    ck_assert_int_gt( count, index );
    return shapes[index];
}

#define CNT_ASSERT_VEC3( vector, ex, ey, ez, tol )                                                           \
    do                                                                                                       \
    {                                                                                                        \
        cnVec3 v_ = ( vector );                                                                              \
        CNT_ASSERT_ABS( v_.x, ( ex ), ( tol ) );                                                             \
        CNT_ASSERT_ABS( v_.y, ( ey ), ( tol ) );                                                             \
        CNT_ASSERT_ABS( v_.z, ( ez ), ( tol ) );                                                             \
    } while ( 0 )

static double cntSphereVolume( double r )
{
    return 4.0 / 3.0 * M_PI * r * r * r;
}

static double cntCapsuleVolume( double r, double halfLength )
{
    return M_PI * r * r * 2.0 * halfLength + cntSphereVolume( r );
}

// ---------------------------------------------------------------------------------------------
// malformed files: each with its exact error

typedef struct cntBadScene
{
    const char* file;
    cnStatus status;
    int line;
    int column;
    const char* path;
    const char* message;
    // cnSceneError.text after the file name
    const char* text;
} cntBadScene;

// clang-format off
static const cntBadScene cnt_badScenes[] = {
    { "bad_trailing_comma.json", cn_statusParseError, 5, 54, "bodies[0].shapes",
      "trailing comma before ']'",
      ":5:54: bodies[0].shapes: trailing comma before ']'" },
    { "bad_missing_brace.json", cn_statusParseError, 7, 1, "",
      "unexpected end of file: the object opened at 1:1 is not closed",
      ":7:1: unexpected end of file: the object opened at 1:1 is not closed" },
    { "bad_missing_comma.json", cn_statusParseError, 3, 3, "",
      "expected ',' or '}' after a member, got \"bodies\"",
      ":3:3: expected ',' or '}' after a member, got \"bodies\"" },
    { "bad_unterminated_string.json", cn_statusParseError, 3, 15, "bodies[0].name",
      "unterminated string: a line break before the closing quote",
      ":3:15: bodies[0].name: unterminated string: a line break before the closing quote" },
    { "bad_comment.json", cn_statusParseError, 2, 3, "",
      "comments are not allowed in JSON",
      ":2:3: comments are not allowed in JSON" },
    { "bad_trailing_content.json", cn_statusParseError, 1, 18, "",
      "unexpected '{' after the end of the JSON value",
      ":1:18: unexpected '{' after the end of the JSON value" },
    { "bad_nan_literal.json", cn_statusParseError, 2, 32, "world.gravity[2]",
      "NaN is not a JSON value (JSON has no NaN or infinity)",
      ":2:32: world.gravity[2]: NaN is not a JSON value (JSON has no NaN or infinity)" },
    { "bad_empty.json", cn_statusParseError, 1, 1, "",
      "the file is empty, expected a JSON object",
      ":1:1: the file is empty, expected a JSON object" },
    { "bad_deep_nesting.json", cn_statusParseError, 3, 1011,
      // 999 times "[0]" in all, cut at a step to fit cnSceneError.path (and shorter in the text)
      "extra[0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0]["
      "0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0]["
      "0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0]...",
      "nesting deeper than 1000 levels",
      ":3:1011: extra[0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0]["
      "0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0]...: nesting deeper than 100"
      "0 levels" },
    { "bad_array.json", cn_statusSchemaError, 1, 1, "",
      "expected a JSON object holding the scene, got an empty array",
      ":1:1: expected a JSON object holding the scene, got an empty array" },
    { "bad_missing_bodies.json", cn_statusSchemaError, 1, 1, "",
      "missing \"bodies\"",
      ":1:1: missing \"bodies\"" },
    { "bad_bodies_object.json", cn_statusSchemaError, 2, 13, "bodies",
      "expected an array of bodies, got an object",
      ":2:13: bodies: expected an array of bodies, got an object" },
    { "bad_string_number.json", cn_statusSchemaError, 4, 49, "bodies[0].shapes[0].radius",
      "expected a positive number, got string \"0.5\"",
      ":4:49: bodies[0].shapes[0].radius: expected a positive number, got string \"0.5\"" },
    { "bad_negative_radius.json", cn_statusSchemaError, 6, 49, "bodies[1].shapes[0].radius",
      "expected a positive number, got -1",
      ":6:49: bodies[1].shapes[0].radius: expected a positive number, got -1" },
    { "bad_half_extents.json", cn_statusSchemaError, 4, 52, "bodies[0].shapes[0].half_extents",
      "expected an array of 3 positive numbers, got an array of 2",
      ":4:52: bodies[0].shapes[0].half_extents: expected an array of 3 positive numbers, got an array of 2" },
    { "bad_shape_type.json", cn_statusSchemaError, 3, 45, "bodies[0].shapes[0].type",
      "unknown shape type \"cone\" (expected sphere, box, capsule, cylinder, ellipsoid, torus, convex or plane)",
      ":3:45: bodies[0].shapes[0].type: unknown shape type \"cone\" (expected sphere, box, capsule, cylinder, "
      "ellipsoid, torus, convex or plane)" },
    { "bad_missing_field.json", cn_statusSchemaError, 7, 9, "bodies[2].shapes[0]",
      "missing \"radius\"",
      ":7:9: bodies[2].shapes[0]: missing \"radius\"" },
    { "bad_duplicate_names.json", cn_statusSchemaError, 5, 15, "bodies[2].name",
      "duplicate body name \"crate\" (also bodies[0].name, at 3:15)",
      ":5:15: bodies[2].name: duplicate body name \"crate\" (also bodies[0].name, at 3:15)" },
    { "bad_duplicate_key.json", cn_statusSchemaError, 5, 19, "bodies[0].position",
      "duplicate key \"position\" (first at 3:35)",
      ":5:19: bodies[0].position: duplicate key \"position\" (first at 3:35)" },
    { "bad_nan_string.json", cn_statusSchemaError, 3, 42, "bodies[0].position[2]",
      "expected a number, got string \"NaN\"",
      ":3:42: bodies[0].position[2]: expected a number, got string \"NaN\"" },
    { "bad_huge_number.json", cn_statusSchemaError, 2, 20, "world.dt",
      "expected a finite number, got 1e999 (too large for a double)",
      ":2:20: world.dt: expected a finite number, got 1e999 (too large for a double)" },
    { "bad_plane_dynamic.json", cn_statusSchemaError, 4, 29, "bodies[0].shapes[0].type",
      "a plane must be on a static body, and this body is dynamic",
      ":4:29: bodies[0].shapes[0].type: a plane must be on a static body, and this body is dynamic" },
    { "bad_zero_quaternion.json", cn_statusSchemaError, 3, 62, "bodies[0].orientation",
      "expected a non-zero quaternion [w, x, y, z], got [0, 0, 0, 0]",
      ":3:62: bodies[0].orientation: expected a non-zero quaternion [w, x, y, z], got [0, 0, 0, 0]" },
    { "bad_body_type.json", cn_statusSchemaError, 3, 32, "bodies[0].type",
      "unknown body type \"rigid\" (expected static, kinematic or dynamic)",
      ":3:32: bodies[0].type: unknown body type \"rigid\" (expected static, kinematic or dynamic)" },
    { "bad_dynamics.json", cn_statusSchemaError, 2, 26, "world.dynamics",
      "unknown dynamics mode \"viscous\" (expected inertial or overdamped)",
      ":2:26: world.dynamics: unknown dynamics mode \"viscous\" (expected inertial or overdamped)" },
    { "bad_unknown_material.json", cn_statusSchemaError, 8, 66, "bodies[0].shapes[0].material",
      "unknown material \"steel\" (defined: \"default\", \"rubber\")",
      ":8:66: bodies[0].shapes[0].material: unknown material \"steel\" (defined: \"default\", \"rubber\")" },
    { "bad_restitution.json", cn_statusSchemaError, 3, 49, "materials.bouncy.restitution",
      "expected a number in [0, 1], got 1.5",
      ":3:49: materials.bouncy.restitution: expected a number in [0, 1], got 1.5" },
    { "bad_coplanar_hull.json", cn_statusSchemaError, 5, 31, "bodies[0].shapes[0].points",
      "all points lie in one plane (zero volume)",
      ":5:31: bodies[0].shapes[0].points: all points lie in one plane (zero volume)" },
    { "bad_torus.json", cn_statusSchemaError, 4, 75, "bodies[0].shapes[0].minor_radius",
      "expected less than major_radius (0.5), got 0.75",
      ":4:75: bodies[0].shapes[0].minor_radius: expected less than major_radius (0.5), got 0.75" },
    { "bad_mobility.json", cn_statusSchemaError, 5, 31, "bodies[0].mobility.linear",
      "expected a symmetric positive-definite matrix",
      ":5:31: bodies[0].mobility.linear: expected a symmetric positive-definite matrix" },
    { "bad_solver.json", cn_statusSchemaError, 3, 25, "world.solver.name",
      "expected a solver name: a lower-case letter, then lower-case letters, digits or '_', at most 31 in all, "
      "got string \"PGS\"",
      ":3:25: world.solver.name: expected a solver name: a lower-case letter, then lower-case letters, digits or "
      "'_', at most 31 in all, got string \"PGS\"" },
    { "bad_unknown_solver.json", cn_statusSchemaError, 3, 25, "world.solver.name",
      "unknown solver \"nncg\" (registered: pgs, psor, pgj, lemke, bbpgd, relcp, pgs_sm, newton_minmap, newton_fb, ipm, amgs)",
      ":3:25: world.solver.name: unknown solver \"nncg\" (registered: pgs, psor, pgj, lemke, bbpgd, relcp, pgs_sm, newton_minmap, newton_fb, ipm, amgs)" },
    { "bad_iterations.json", cn_statusSchemaError, 3, 46, "world.solver.iterations",
      "expected a positive integer, got 2.5",
      ":3:46: world.solver.iterations: expected a positive integer, got 2.5" },
    { "bad_param_unknown.json", cn_statusSchemaError, 2, 81, "world.solver.params.omega",
      "solver \"pgs\" has no parameter \"omega\" (its parameters: iterations, tolerance, deadline_ms, warm_start, "
      "relaxation, kernel, relative_tolerance, stagnation_tolerance, divergence_factor, de_saxce, joints, simd)",
      ":2:81: world.solver.params.omega: solver \"pgs\" has no parameter \"omega\" (its parameters: iterations, "
      "tolerance, deadline_ms, warm_start, relaxation, kernel, relative_tolerance, stagnation_tolerance, "
      "divergence_factor, de_saxce, joints, simd)" },
    { "bad_param_range.json", cn_statusSchemaError, 2, 68, "world.solver.params.relaxation",
      "2.5 is outside [0, 2] (a parameter of solver \"psor\")",
      ":2:68: world.solver.params.relaxation: 2.5 is outside [0, 2] (a parameter of solver \"psor\")" },
    { "bad_param_choice.json", cn_statusSchemaError, 2, 48, "world.solver.params.kernel",
      "unknown choice \"fastest\" for \"kernel\" of solver \"pgs\" (expected fast or reference)",
      ":2:48: world.solver.params.kernel: unknown choice \"fastest\" for \"kernel\" of solver \"pgs\" (expected "
      "fast or reference)" },
    { "bad_param_type.json", cn_statusSchemaError, 2, 52, "world.solver.params.iterations",
      "expected an integer in [1, 1e+06], got string \"20\"",
      ":2:52: world.solver.params.iterations: expected an integer in [1, 1e+06], got string \"20\"" },
    { "bad_param_integer.json", cn_statusSchemaError, 2, 52, "world.solver.params.iterations",
      "2.5 is not a whole number (a parameter of solver \"pgs\")",
      ":2:52: world.solver.params.iterations: 2.5 is not a whole number (a parameter of solver \"pgs\")" },
    // checked against the solver the scene names, not the default one
    { "bad_param_other_solver.json", cn_statusSchemaError, 2, 65, "world.solver.params.kernel",
      "solver \"lemke\" has no parameter \"kernel\" (its parameters: iterations, pivot_tolerance, warm_start, regularization)",
      ":2:65: world.solver.params.kernel: solver \"lemke\" has no parameter \"kernel\" (its parameters: iterations, "
      "pivot_tolerance, warm_start, regularization)" },
    { "bad_params_not_object.json", cn_statusSchemaError, 2, 36, "world.solver.params",
      "expected an object from parameter names to values, got an array of 2",
      ":2:36: world.solver.params: expected an object from parameter names to values, got an array of 2" },
    { "bad_version.json", cn_statusSchemaError, 2, 14, "version",
      "unsupported version 2 (this loader reads version 1)",
      ":2:14: version: unsupported version 2 (this loader reads version 1)" },
    { "bad_long_name.json", cn_statusSchemaError, 3, 15, "bodies[0].name",
      "expected a name of 1 to 63 bytes, got string \"a_body_name_that_is_far_too_long_to_fit_...\"",
      ":3:15: bodies[0].name: expected a name of 1 to 63 bytes, got string "
      "\"a_body_name_that_is_far_too_long_to_fit_...\"" },
    { "bad_force.json", cn_statusSchemaError, 5, 37, "bodies[1].force[1]",
      "expected a finite number, got 1e999 (too large for a double)",
      ":5:37: bodies[1].force[1]: expected a finite number, got 1e999 (too large for a double)" },
    { "bad_friction_model.json", cn_statusSchemaError, 2, 56, "world.friction_model",
      "unknown friction model \"box\" (expected pyramid or cone)",
      ":2:56: world.friction_model: unknown friction model \"box\" (expected pyramid or cone)" },
    { "bad_fixed_rotation.json", cn_statusSchemaError, 3, 41, "bodies[0].fixed_rotation",
      "expected true or false, got string \"yes\"",
      ":3:41: bodies[0].fixed_rotation: expected true or false, got string \"yes\"" },
    { "bad_fixed_rotation_spin.json", cn_statusSchemaError, 3, 67, "bodies[0].angular_velocity",
      "a body with fixed_rotation cannot spin: expected [0, 0, 0], got [0, 0, 1]",
      ":3:67: bodies[0].angular_velocity: a body with fixed_rotation cannot spin: expected [0, 0, 0], got [0, 0, 1]" },
    { "bad_torque.json", cn_statusSchemaError, 3, 36, "bodies[0].torque",
      "expected an array of 3 numbers, got an array of 2",
      ":3:36: bodies[0].torque: expected an array of 3 numbers, got an array of 2" },
};
// clang-format on

#define CNT_BAD_COUNT ( (int)( sizeof( cnt_badScenes ) / sizeof( cnt_badScenes[0] ) ) )

static void cntAssertError( const cntLoad* load, const cntBadScene* bad, const char* name )
{
    const cnSceneError* e = &load->error;
    ck_assert_msg( e->status == bad->status, "%s: %s, expected %s (%s)", bad->file, cnStatusName( e->status ),
                   cnStatusName( bad->status ), e->text );
    ck_assert_msg( e->line == bad->line && e->column == bad->column, "%s: at %d:%d, expected %d:%d (%s)",
                   bad->file, e->line, e->column, bad->line, bad->column, e->text );
    ck_assert_str_eq( e->path, bad->path );
    ck_assert_str_eq( e->message, bad->message );
    char text[2 * CN_SCENE_TEXT_CAPACITY];
    snprintf( text, sizeof( text ), "%s%s", name, bad->text );
    ck_assert_str_eq( e->text, text );
}

START_TEST( bad_file_gives_exact_error )
{
    const cntBadScene* bad = cnt_badScenes + _i;
    char path[512];
    cntPath( path, sizeof( path ), CN_TEST_DATA_DIR, bad->file );

    cntLoad load;
    cntInitLoad( &load );
    cnStatus status = cntLoadFile( &load, path );
    ck_assert_int_eq( status, bad->status );
    cntAssertError( &load, bad, path );
    cntAssertNothingLeft( &load );
    // the loader's own memory went through the world def's allocator too
    ck_assert_int_gt( load.counter.totalAllocations, 0 );

    // the same text from memory gives the same error
    size_t length = 0;
    char* text = cntReadText( path, &length );
    ck_assert_ptr_nonnull( text );
    cntLoad fromString;
    cntInitLoad( &fromString );
    status = cnLoadSceneString( text, length, bad->file, &fromString.options, &fromString.scene,
                                &fromString.error );
    free( text );
    ck_assert_int_eq( status, bad->status );
    cntAssertError( &fromString, bad, bad->file );
    cntAssertNothingLeft( &fromString );
}
END_TEST

// every bad_*.json in tests/scene/data has its row in the table, and the table has at least 15
START_TEST( every_bad_file_is_tested )
{
    ck_assert_int_ge( CNT_BAD_COUNT, 15 );
    DIR* directory = opendir( CN_TEST_DATA_DIR );
    ck_assert_ptr_nonnull( directory );
    int found = 0;
    for ( struct dirent* entry = readdir( directory ); entry != NULL; entry = readdir( directory ) )
    {
        if ( strncmp( entry->d_name, "bad_", 4 ) != 0 || cntEndsWith( entry->d_name, ".json" ) == false )
        {
            continue;
        }
        bool listed = false;
        for ( int i = 0; i < CNT_BAD_COUNT && listed == false; ++i )
        {
            listed = strcmp( cnt_badScenes[i].file, entry->d_name ) == 0;
        }
        ck_assert_msg( listed, "%s has no expected error in cnt_badScenes", entry->d_name );
        found += 1;
    }
    closedir( directory );
    ck_assert_int_eq( found, CNT_BAD_COUNT );
}
END_TEST

START_TEST( missing_file_is_an_io_error )
{
    char path[512];
    cntPath( path, sizeof( path ), CN_TEST_DATA_DIR, "no_such_scene.json" );
    cntLoad load;
    cntInitLoad( &load );
    ck_assert_int_eq( cntLoadFile( &load, path ), cn_statusIoError );
    ck_assert_int_eq( load.error.status, cn_statusIoError );
    ck_assert_int_eq( load.error.line, 0 );
    ck_assert_int_eq( load.error.column, 0 );
    ck_assert_str_eq( load.error.path, "" );
    ck_assert_str_eq( load.error.message, "cannot open the file: No such file or directory" );
    char text[1024];
    snprintf( text, sizeof( text ), "%s: cannot open the file: No such file or directory", path );
    ck_assert_str_eq( load.error.text, text );
    cntAssertNothingLeft( &load );
}
END_TEST

START_TEST( directory_is_an_io_error )
{
    cntLoad load;
    cntInitLoad( &load );
    ck_assert_int_eq( cntLoadFile( &load, CN_TEST_DATA_DIR ), cn_statusIoError );
    ck_assert_str_eq( load.error.message, "cannot read the file: it is a directory" );
    cntAssertNothingLeft( &load );
}
END_TEST

START_TEST( file_over_max_bytes_is_refused )
{
    char path[512];
    cntPath( path, sizeof( path ), CN_ASSETS_DIR "/scenes", "free_fall.json" );
    struct stat info;
    ck_assert_int_eq( stat( path, &info ), 0 );

    cntLoad load;
    cntInitLoad( &load );
    load.options.maxBytes = 100;
    ck_assert_int_eq( cntLoadFile( &load, path ), cn_statusIoError );
    char message[256];
    snprintf( message, sizeof( message ),
              "the file is too large: %lld bytes, the limit is 100 (cnSceneOptions.maxBytes)",
              (long long)info.st_size );
    ck_assert_str_eq( load.error.message, message );
    ck_assert_int_eq( load.error.line, 0 );
    cntAssertNothingLeft( &load );

    // exactly at the limit it loads
    cntInitLoad( &load );
    load.options.maxBytes = (size_t)info.st_size;
    ck_assert_int_eq( cntLoadFile( &load, path ), cn_statusOk );
    cntFinishLoad( &load );

    // the same limit holds for text in memory
    cntInitLoad( &load );
    load.options.maxBytes = 10;
    const char* json = "{ \"bodies\": [] }";
    ck_assert_int_eq(
        cnLoadSceneString( json, strlen( json ), "small.json", &load.options, &load.scene, &load.error ),
        cn_statusIoError );
    ck_assert_str_eq(
        load.error.text,
        "small.json: the text is too large: 16 bytes, the limit is 10 (cnSceneOptions.maxBytes)" );
    cntAssertNothingLeft( &load );
}
END_TEST

START_TEST( whitespace_only_and_bom )
{
    cntLoad load;
    cntInitLoad( &load );
    const char* blank = "  \n\t\n";
    ck_assert_int_eq(
        cnLoadSceneString( blank, strlen( blank ), "blank.json", &load.options, &load.scene, &load.error ),
        cn_statusParseError );
    ck_assert_str_eq( load.error.text,
                      "blank.json:1:1: the file holds only white space, expected a JSON object" );
    cntAssertNothingLeft( &load );

    // a byte order mark is skipped and not counted; CRLF line ends count as one line end
    const char* bom =
        "\xEF\xBB\xBF{\r\n  \"bodies\": [ { \"shapes\": [ { \"type\": \"sphere\", \"radius\": 0 } ] } ]\r\n}";
    cntInitLoad( &load );
    ck_assert_int_eq(
        cnLoadSceneString( bom, strlen( bom ), "bom.json", &load.options, &load.scene, &load.error ),
        cn_statusSchemaError );
    ck_assert_str_eq( load.error.text,
                      "bom.json:2:59: bodies[0].shapes[0].radius: expected a positive number, got 0" );
    cntAssertNothingLeft( &load );
}
END_TEST

START_TEST( without_error_struct_the_error_is_logged )
{
    char path[512];
    cntPath( path, sizeof( path ), CN_TEST_DATA_DIR, "bad_negative_radius.json" );
    cntCountingAllocator counter;
    cnAllocator counting;
    cnAllocator allocator = cntMakeAllocator( &counter, &counting );
    cntLogCapture capture;
    cnSceneOptions options = cnDefaultSceneOptions();
    options.worldDef = cntWorldDef( &capture, &allocator );
    cnScene scene;
    ck_assert_int_eq( cnLoadSceneFile( path, &options, &scene, NULL ), cn_statusSchemaError );
    ck_assert( CN_IS_NULL( scene.worldId ) );
    ck_assert_int_eq( capture.errorCount, 1 );
    ck_assert_int_eq( capture.lastStatus, cn_statusSchemaError );
    char text[1024];
    snprintf( text, sizeof( text ), "%s:6:49: bodies[1].shapes[0].radius: expected a positive number, got -1",
              path );
    ck_assert_str_eq( capture.lastMessage, text );
    ck_assert_uint_eq( counter.liveBytes, 0 );
}
END_TEST

START_TEST( bad_arguments )
{
    cnSceneOptions options = cnDefaultSceneOptions();
    cnScene scene;
    cnSceneError error;
    char path[512];
    cntPath( path, sizeof( path ), CN_ASSETS_DIR "/scenes", "free_fall.json" );

    ck_assert_int_eq( cnLoadSceneFile( path, &options, NULL, &error ), cn_statusInvalidArgument );
    ck_assert_str_eq( error.message, "outScene is NULL" );
    ck_assert_int_eq( cnLoadSceneFile( NULL, &options, &scene, &error ), cn_statusInvalidArgument );
    ck_assert( CN_IS_NULL( scene.worldId ) );
    ck_assert_int_eq( cnLoadSceneString( NULL, 5, "x.json", &options, &scene, &error ),
                      cn_statusInvalidArgument );

    cnSceneOptions zero;
    memset( &zero, 0, sizeof( zero ) );
    ck_assert_int_eq( cnLoadSceneFile( path, &zero, &scene, &error ), cn_statusInvalidArgument );
    ck_assert_str_eq( error.message, "the options were not initialized with cnDefaultSceneOptions()" );

    options.overrideCount = 2;
    ck_assert_int_eq( cnLoadSceneFile( path, &options, &scene, &error ), cn_statusInvalidArgument );

    // NULL options mean the defaults
    ck_assert_int_eq( cnLoadSceneFile( path, NULL, &scene, &error ), cn_statusOk );
    ck_assert( cnWorld_IsValid( scene.worldId ) );
    cnDestroyWorld( scene.worldId );
}
END_TEST

START_TEST( no_free_world_slot )
{
    cnWorldDef def = cnDefaultWorldDef();
    cnWorldId worlds[CN_MAX_WORLDS];
    int created = 0;
    while ( created < CN_MAX_WORLDS )
    {
        worlds[created] = cnCreateWorld( &def );
        ck_assert( CN_IS_NON_NULL( worlds[created] ) );
        created += 1;
    }
    cntLoad load;
    cntInitLoad( &load );
    cntLogCapture capture;
    memset( &capture, 0, sizeof( capture ) );
    load.options.worldDef.logFcn = cntCaptureLog;
    load.options.worldDef.logContext = &capture;
    ck_assert_int_eq( cntLoadFile( &load, CN_ASSETS_DIR "/scenes/free_fall.json" ),
                      cn_statusCapacityExceeded );
    ck_assert_int_eq( load.error.status, cn_statusCapacityExceeded );
    ck_assert_int_eq( load.error.line, 0 );
    ck_assert_str_eq( load.error.path, "" );
    // the engine's own words
    ck_assert_str_eq( load.error.message, capture.lastMessage );
    cntAssertNothingLeft( &load );
    for ( int i = 0; i < created; ++i )
    {
        cnDestroyWorld( worlds[i] );
    }
}
END_TEST

Suite* cntSceneErrorSuite( void )
{
    Suite* suite = suite_create( "scene_errors" );
    TCase* tc = tcase_create( "bad_files" );
    tcase_add_loop_test( tc, bad_file_gives_exact_error, 0, CNT_BAD_COUNT );
    tcase_add_test( tc, every_bad_file_is_tested );
    tcase_add_test( tc, missing_file_is_an_io_error );
    tcase_add_test( tc, directory_is_an_io_error );
    tcase_add_test( tc, file_over_max_bytes_is_refused );
    tcase_add_test( tc, whitespace_only_and_bom );
    tcase_add_test( tc, without_error_struct_the_error_is_logged );
    tcase_add_test( tc, bad_arguments );
    tcase_add_test( tc, no_free_world_slot );
    suite_add_tcase( suite, tc );
    return suite;
}

// ---------------------------------------------------------------------------------------------
// good files

static const char* cntJsonString( const cJSON* object, const char* key, const char* fallback )
{
    const cJSON* item = cJSON_GetObjectItemCaseSensitive( object, key );
    return cJSON_IsString( item ) ? item->valuestring : fallback;
}

static cnVec3 cntJsonVec3( const cJSON* object, const char* key, cnVec3 fallback )
{
    const cJSON* item = cJSON_GetObjectItemCaseSensitive( object, key );
    if ( item == NULL )
    {
        return fallback;
    }
    return cnMakeVec3( cJSON_GetArrayItem( item, 0 )->valuedouble, cJSON_GetArrayItem( item, 1 )->valuedouble,
                       cJSON_GetArrayItem( item, 2 )->valuedouble );
}

static cnStatus cntAcceptSystem( cnWorldId worldId, const char* config, void* context, char* message,
                                 int size )
{
    (void)worldId;
    (void)context;
    (void)message;
    (void)size;
    return config[0] == '{' ? cn_statusOk : cn_statusInvalidArgument;
}

// Bodies the scene's generators stand for, counted from docs/scene-format.md's rules.
static int cntGeneratedCount( const cJSON* root )
{
    int total = 0;
    const cJSON* g = NULL;
    cJSON_ArrayForEach( g, cJSON_GetObjectItemCaseSensitive( root, "generators" ) )
    {
        const char* type = cJSON_GetObjectItemCaseSensitive( g, "type" )->valuestring;
        const cJSON* count = cJSON_GetObjectItemCaseSensitive( g, "count" );
        int rows = cJSON_GetObjectItemCaseSensitive( g, "rows" ) != NULL
                       ? cJSON_GetObjectItemCaseSensitive( g, "rows" )->valueint
                       : 0;
        if ( strcmp( type, "pyramid" ) == 0 )
        {
            total += rows * ( rows + 1 ) / 2;
        }
        else if ( strcmp( type, "grid" ) == 0 )
        {
            total += cJSON_GetArrayItem( count, 0 )->valueint * cJSON_GetArrayItem( count, 1 )->valueint *
                     cJSON_GetArrayItem( count, 2 )->valueint;
        }
        else if ( strcmp( type, "ring_lattice" ) == 0 )
        {
            total += rows * cJSON_GetObjectItemCaseSensitive( g, "columns" )->valueint;
        }
        else
        {
            total += count != NULL ? count->valueint : 1;
        }
    }
    return total;
}

// Load one shipped scene and compare it, body by body, with the file read independently.
static void cntCheckShippedScene( const char* path )
{
    cntLoad load;
    cntInitLoad( &load );
    cJSON* root = cntParseFile( path );
    // the application systems a scene names get a handler that accepts any settings (their
    // own tests, in tests/systems, load the scenes with the real ones)
    cnSceneSystem handlers[8];
    int handlerCount = 0;
    const cJSON* system = NULL;
    cJSON_ArrayForEach( system, cJSON_GetObjectItemCaseSensitive( root, "systems" ) )
    {
        ck_assert_int_lt( handlerCount, 8 );
        handlers[handlerCount++] = ( cnSceneSystem ){ system->string, cntAcceptSystem, NULL };
    }
    load.options.systems = handlers;
    load.options.systemCount = handlerCount;
    cnStatus status = cntLoadFile( &load, path );
    ck_assert_msg( status == cn_statusOk, "%s", load.error.text );
    ck_assert_msg( load.warningCount == 0, "%s: %s", path, load.warnings[0] );
    ck_assert_int_eq( load.scene.warningCount, 0 );

    ck_assert_msg( cJSON_IsString( cJSON_GetObjectItemCaseSensitive( root, "description" ) ),
                   "%s: a shipped scene says what it shows", path );
    const cJSON* bodies = cJSON_GetObjectItemCaseSensitive( root, "bodies" );
    int bodyCount = cJSON_GetArraySize( bodies ) + cntGeneratedCount( root );
    ck_assert_int_eq( load.scene.bodyCount, bodyCount );
    ck_assert_int_eq( cnWorld_GetBodyCount( load.scene.worldId ), bodyCount );

    const cJSON* body = NULL;
    cJSON_ArrayForEach( body, bodies )
    {
        const char* name = cntJsonString( body, "name", NULL );
        ck_assert_msg( name != NULL, "%s: every shipped body has a name", path );
        cnBodyId id = cntFindBody( &load, name );
        cnVec3 position = cntJsonVec3( body, "position", cn_vec3Zero );
        CNT_ASSERT_VEC3( cnBody_GetPosition( id ), position.x, position.y, position.z, 0.0 );
        cnVec3 omega = cntJsonVec3( body, "angular_velocity", cn_vec3Zero );
        CNT_ASSERT_VEC3( cnBody_GetAngularVelocity( id ), omega.x, omega.y, omega.z, 0.0 );
        // of the centre of mass or of the origin: the same when the body does not turn
        cnVec3 velocity = cntJsonVec3( body, "linear_velocity", cn_vec3Zero );
        if ( cnLengthSquared( omega ) == 0.0 )
        {
            CNT_ASSERT_VEC3( cnBody_GetLinearVelocity( id ), velocity.x, velocity.y, velocity.z, 0.0 );
        }
        const char* type = cntJsonString( body, "type", "dynamic" );
        cnBodyType expected = strcmp( type, "static" ) == 0      ? cn_staticBody
                              : strcmp( type, "kinematic" ) == 0 ? cn_kinematicBody
                                                                 : cn_dynamicBody;
        ck_assert_int_eq( cnBody_GetType( id ), expected );
        ck_assert_int_eq( cnBody_GetShapes( id, NULL, 0 ),
                          cJSON_GetArraySize( cJSON_GetObjectItemCaseSensitive( body, "shapes" ) ) );
    }
    cJSON_Delete( root );
    cntFinishLoad( &load );
}

// Check every .json scene in `folder`; how many there were, and how many of `required` among them.
static int cntCheckSceneFolder( const char* folder, const char* const* required, int requiredCount,
                                int* requiredFound )
{
    DIR* directory = opendir( folder );
    ck_assert_msg( directory != NULL, "cannot open %s", folder );
    int count = 0;
    for ( struct dirent* entry = readdir( directory ); entry != NULL; entry = readdir( directory ) )
    {
        if ( cntEndsWith( entry->d_name, ".json" ) == false )
        {
            continue;
        }
        for ( int i = 0; i < requiredCount; ++i )
        {
            *requiredFound += strcmp( entry->d_name, required[i] ) == 0;
        }
        char path[512];
        cntPath( path, sizeof( path ), folder, entry->d_name );
        cntCheckShippedScene( path );
        count += 1;
    }
    closedir( directory );
    return count;
}

START_TEST( every_shipped_scene_loads )
{
    const char* const required[] = { "tennis_racket.json", "shapes.json", "sedimenting_rods.json",
                                     "free_fall.json" };
    int requiredFound = 0;
    int count = cntCheckSceneFolder( CN_ASSETS_DIR "/scenes", required, 4, &requiredFound );
    ck_assert_int_ge( count, 4 );
    ck_assert_int_eq( requiredFound, 4 );
    // the tutorials' scenes (docs/tutorials) are shipped scenes too
    int none = 0;
    ck_assert_int_ge( cntCheckSceneFolder( CN_ASSETS_DIR "/../docs/tutorials", NULL, 0, &none ), 1 );
}
END_TEST

START_TEST( tennis_racket_spins_about_its_intermediate_axis )
{
    cntLoad load;
    cntInitLoad( &load );
    ck_assert_int_eq( cntLoadFile( &load, CN_ASSETS_DIR "/scenes/tennis_racket.json" ), cn_statusOk );
    cnWorldDef def = cnWorld_GetDef( load.scene.worldId );
    CNT_ASSERT_VEC3( def.gravity, 0.0, 0.0, 0.0, 0.0 );
    ck_assert_int_eq( def.dynamics, cn_dynamicsInertial );

    cnBodyId block = cntFindBody( &load, "block" );
    CNT_ASSERT_VEC3( cnBody_GetAngularVelocity( block ), 1e-3, 2.0, 1e-3, 1e-15 );
    // 1 x 2 x 3 m of density 1000
    cnMassData mass = cnBody_GetMassData( block );
    CNT_ASSERT_REL( mass.mass, 6000.0, 1e-12 );
    // I = m (b^2 + c^2) / 12 with the full side lengths: y is the intermediate axis
    CNT_ASSERT_REL( mass.inertia.cx.x, 6000.0 * ( 4.0 + 9.0 ) / 12.0, 1e-12 );
    CNT_ASSERT_REL( mass.inertia.cy.y, 6000.0 * ( 1.0 + 9.0 ) / 12.0, 1e-12 );
    CNT_ASSERT_REL( mass.inertia.cz.z, 6000.0 * ( 1.0 + 4.0 ) / 12.0, 1e-12 );
    ck_assert( mass.inertia.cx.x > mass.inertia.cy.y && mass.inertia.cy.y > mass.inertia.cz.z );
    cntFinishLoad( &load );
}
END_TEST

START_TEST( free_fall_matches_the_closed_form )
{
    cntLoad load;
    cntInitLoad( &load );
    ck_assert_int_eq( cntLoadFile( &load, CN_ASSETS_DIR "/scenes/free_fall.json" ), cn_statusOk );
    cnWorldDef def = cnWorld_GetDef( load.scene.worldId );
    CNT_ASSERT_REL( def.timeStep, 1.0 / 60.0, 1e-15 );
    CNT_ASSERT_VEC3( def.gravity, 0.0, 0.0, -9.81, 0.0 );

    cnBodyId ball = cntFindBody( &load, "ball" );
    CNT_ASSERT_VEC3( cnBody_GetPosition( ball ), 0.0, 0.0, 10.0, 0.0 );
    CNT_ASSERT_REL( cnBody_GetMassData( ball ).mass, 7850.0 * cntSphereVolume( 0.1 ), 1e-12 );
    CNT_ASSERT_REL( cnShape_GetMaterial( cntShape( ball, 0 ) ).restitution, 0.5, 0.0 );

    // one second: z = 10 - g t^2 / 2, within one step's worth of Euler error (g dt t)
    for ( int i = 0; i < 60; ++i )
    {
        ck_assert_int_eq( cnWorld_Step( load.scene.worldId, def.timeStep ), cn_statusOk );
    }
    CNT_ASSERT_ABS( cnBody_GetPosition( ball ).z, 10.0 - 0.5 * 9.81, 9.81 * def.timeStep );
    CNT_ASSERT_ABS( cnBody_GetLinearVelocity( ball ).z, -9.81, 1e-9 );
    cntFinishLoad( &load );
}
END_TEST

START_TEST( shapes_scene_has_every_shape_type )
{
    cntLoad load;
    cntInitLoad( &load );
    ck_assert_int_eq( cntLoadFile( &load, CN_ASSETS_DIR "/scenes/shapes.json" ), cn_statusOk );

    bool seen[cn_shapeTypeCount] = { false };
    cnBodyArrays bodies = cnWorld_GetBodyArrays( load.scene.worldId );
    for ( int i = 0; i < bodies.count; ++i )
    {
        cnShapeId shapes[8];
        int count = cnBody_GetShapes( bodies.ids[i], shapes, 8 );
        for ( int k = 0; k < count; ++k )
        {
            seen[cnShape_GetType( shapes[k] )] = true;
        }
    }
    for ( int type = 0; type < cn_shapeTypeCount; ++type )
    {
        ck_assert_msg( seen[type], "no shape of type %d", type );
    }

    // mass = density x volume, with the density of the named material
    CNT_ASSERT_REL( cnBody_GetMassData( cntFindBody( &load, "box" ) ).mass, 700.0 * 8.0 * 0.5 * 0.3 * 0.2,
                    1e-12 );
    CNT_ASSERT_REL( cnBody_GetMassData( cntFindBody( &load, "sphere" ) ).mass,
                    1100.0 * cntSphereVolume( 0.5 ), 1e-12 );
    // no material: the file's "default"
    cnBodyId capsule = cntFindBody( &load, "capsule" );
    CNT_ASSERT_REL( cnBody_GetMassData( capsule ).mass, 1000.0 * cntCapsuleVolume( 0.25, 0.5 ), 1e-12 );
    CNT_ASSERT_REL( cnShape_GetMaterial( cntShape( capsule, 0 ) ).restitution, 0.1, 0.0 );
    CNT_ASSERT_REL( cnBody_GetMassData( cntFindBody( &load, "cylinder" ) ).mass, 7850.0 * M_PI * 0.16 * 0.6,
                    1e-12 );
    CNT_ASSERT_REL( cnBody_GetMassData( cntFindBody( &load, "ellipsoid" ) ).mass,
                    1000.0 * 4.0 / 3.0 * M_PI * 0.6 * 0.4 * 0.25, 1e-12 );
    CNT_ASSERT_REL( cnBody_GetMassData( cntFindBody( &load, "torus" ) ).mass,
                    1100.0 * 2.0 * M_PI * M_PI * 0.5 * 0.15 * 0.15, 1e-12 );
    cnShapeId hull = cntShape( cntFindBody( &load, "convex" ), 0 );
    cnGeometry geometry;
    ck_assert_int_eq( cnShape_GetGeometry( hull, &geometry ), cn_statusOk );
    CNT_ASSERT_REL( cnBody_GetMassData( cntFindBody( &load, "convex" ) ).mass,
                    700.0 * cnComputeVolume( &geometry ), 1e-12 );

    // the dumbbell: a rod along x (a capsule turned from z) between two balls
    cnBodyId dumbbell = cntFindBody( &load, "dumbbell" );
    ck_assert_int_eq( cnBody_GetShapes( dumbbell, NULL, 0 ), 3 );
    double volume = cntCapsuleVolume( 0.05, 0.5 ) + 2.0 * cntSphereVolume( 0.2 );
    cnMassData mass = cnBody_GetMassData( dumbbell );
    CNT_ASSERT_REL( mass.mass, 7850.0 * volume, 1e-12 );
    CNT_ASSERT_VEC3( mass.center, 0.0, 0.0, 0.0, 1e-12 );
    cnTransform rod = cnShape_GetLocalPose( cntShape( dumbbell, 0 ) );
    CNT_ASSERT_VEC3( cnRotate( rod.q, cnMakeVec3( 0.0, 0.0, 1.0 ) ), 1.0, 0.0, 0.0, 1e-12 );
    CNT_ASSERT_VEC3( cnShape_GetLocalPose( cntShape( dumbbell, 2 ) ).p, 0.6, 0.0, 0.0, 0.0 );
    // the axis of the rod has the least inertia
    ck_assert( mass.inertia.cx.x < mass.inertia.cy.y && mass.inertia.cx.x < mass.inertia.cz.z );

    // an inline material: missing fields take cnDefaultMaterial()
    cnMaterial ground = cnShape_GetMaterial( cntShape( cntFindBody( &load, "ground" ), 0 ) );
    CNT_ASSERT_REL( ground.friction, 0.8, 0.0 );
    CNT_ASSERT_REL( ground.restitution, cnDefaultMaterial().restitution, 0.0 );
    cntFinishLoad( &load );
}
END_TEST

START_TEST( sedimenting_rods_is_overdamped )
{
    cntLoad load;
    cntInitLoad( &load );
    ck_assert_int_eq( cntLoadFile( &load, CN_ASSETS_DIR "/scenes/sedimenting_rods.json" ), cn_statusOk );
    cnWorldDef def = cnWorld_GetDef( load.scene.worldId );
    ck_assert_int_eq( def.dynamics, cn_dynamicsOverdamped );
    CNT_ASSERT_REL( def.viscosity, 10.0, 0.0 );

    cnMat3 linear;
    cnMat3 angular;
    ck_assert_int_eq( cnBody_GetMobility( cntFindBody( &load, "rod_slender_body_45" ), &linear, &angular ),
                      cn_statusOk );
    CNT_ASSERT_VEC3( linear.cx, 0.26855, 0.0, 0.0, 0.0 );
    CNT_ASSERT_VEC3( linear.cz, 0.0, 0.0, 0.35319, 0.0 );
    CNT_ASSERT_VEC3( angular.cz, 0.0, 0.0, 3536.8, 0.0 );

    // one step: the default-mobility rods sink straight down at one speed; the slender-body rod
    // drifts towards -x
    ck_assert_int_eq( cnWorld_Step( load.scene.worldId, def.timeStep ), cn_statusOk );
    cnVec3 vertical = cnBody_GetLinearVelocity( cntFindBody( &load, "rod_vertical" ) );
    cnVec3 horizontal = cnBody_GetLinearVelocity( cntFindBody( &load, "rod_horizontal" ) );
    cnVec3 slender = cnBody_GetLinearVelocity( cntFindBody( &load, "rod_slender_body_45" ) );
    ck_assert( vertical.z < 0.0 );
    CNT_ASSERT_REL( horizontal.z, vertical.z, 1e-12 );
    CNT_ASSERT_ABS( vertical.x, 0.0, 1e-15 );
    ck_assert( slender.z < 0.0 && slender.x < 0.0 );
    // about 8 degrees from the vertical
    CNT_ASSERT_ABS( atan2( -slender.x, -slender.z ) * 180.0 / M_PI, 7.75, 0.1 );
    cntFinishLoad( &load );
}
END_TEST

START_TEST( every_key_reaches_its_field )
{
    cntLoad load;
    cntInitLoad( &load );
    ck_assert_int_eq( cntLoadFile( &load, CN_TEST_DATA_DIR "/good_features.json" ), cn_statusOk );
    // "sleeping": true is read, with no warning
    ck_assert_int_eq( load.warningCount, 0 );
    ck_assert_int_eq( load.scene.warningCount, 0 );
    ck_assert_int_eq( load.scene.bodyCount, 5 );

    cnWorldDef def = cnWorld_GetDef( load.scene.worldId );
    CNT_ASSERT_VEC3( def.gravity, 0.0, 0.0, -1.62, 0.0 );
    CNT_ASSERT_REL( def.timeStep, 0.002, 0.0 );
    CNT_ASSERT_REL( def.aabbMargin, 0.05, 0.0 );
    CNT_ASSERT_REL( def.contactMargin, 0.03, 0.0 );
    ck_assert_int_eq( def.dynamics, cn_dynamicsOverdamped );
    ck_assert( def.enableSleep );
    CNT_ASSERT_REL( def.viscosity, 0.001, 0.0 );
    ck_assert_str_eq( def.solver.name, "psor" );
    ck_assert_int_eq( def.solver.iterations, 25 );
    CNT_ASSERT_REL( def.solver.tolerance, 1e-8, 0.0 );
    // world.solver.params, each in the form of its type, set on the world's solver; the rest keep
    // their values
    const cnSolverVTable* solver = cnWorld_GetSolver( load.scene.worldId );
    ck_assert_str_eq( solver->name, "psor" );
    const char* const names[6] = { "relaxation",        "kernel",     "warm_start",
                                   "divergence_factor", "iterations", "tolerance" };
    const double values[6] = { 1.25, 1.0, 0.0, 1e6, 25.0, 1e-8 };
    for ( int i = 0; i < 6; ++i )
    {
        double value = -1.0;
        ck_assert_int_eq( cnWorld_GetSolverParam( load.scene.worldId, names[i], &value ), cn_statusOk );
        ck_assert_msg( value == values[i], "%s: %.17g, expected %.17g", names[i], value, values[i] );
    }
    // the allocator of options.worldDef
    ck_assert_ptr_eq( def.allocator.context, &load.counting );

    cnBodyId ground = cntFindBody( &load, "ground" );
    ck_assert_int_eq( cnBody_GetType( ground ), cn_staticBody );
    cnGeometry plane;
    ck_assert_int_eq( cnShape_GetGeometry( cntShape( ground, 0 ), &plane ), cn_statusOk );
    ck_assert_int_eq( plane.type, cn_planeShape );
    // normal [0, 0, 2] and offset -1: the plane z = -0.5, stored with a unit normal
    CNT_ASSERT_VEC3( plane.plane.normal, 0.0, 0.0, 1.0, 1e-15 );
    CNT_ASSERT_REL( plane.plane.offset, -0.5, 1e-15 );

    cnBodyId platform = cntFindBody( &load, "platform" );
    ck_assert_int_eq( cnBody_GetType( platform ), cn_kinematicBody );
    CNT_ASSERT_VEC3( cnBody_GetPosition( platform ), 1.0, 2.0, 3.0, 0.0 );
    CNT_ASSERT_VEC3( cnBody_GetLinearVelocity( platform ), 0.5, 0.0, 0.0, 0.0 );
    // no material: the file's "default"
    cnMaterial material = cnShape_GetMaterial( cntShape( platform, 0 ) );
    CNT_ASSERT_REL( material.friction, 0.3, 0.0 );
    CNT_ASSERT_REL( material.restitution, 0.2, 0.0 );
    CNT_ASSERT_REL( material.density, 500.0, 0.0 );

    cnBodyId rod = cntFindBody( &load, "rod" );
    cnQuat q = cnBody_GetOrientation( rod );
    CNT_ASSERT_REL( q.w, 1.0, 1e-15 );
    CNT_ASSERT_VEC3( cnBody_GetAngularVelocity( rod ), 0.1, 0.2, 0.3, 0.0 );
    CNT_ASSERT_VEC3( cnBody_GetLinearVelocity( rod ), 1.0, 2.0, 3.0, 0.0 );
    cnMat3 linear;
    cnMat3 angular;
    ck_assert_int_eq( cnBody_GetMobility( rod, &linear, &angular ), cn_statusOk );
    CNT_ASSERT_VEC3( linear.cx, 2.0, 1.0, 0.0, 0.0 );
    CNT_ASSERT_VEC3( linear.cy, 1.0, 2.0, 0.0, 0.0 );
    CNT_ASSERT_VEC3( linear.cz, 0.0, 0.0, 3.0, 0.0 );
    CNT_ASSERT_VEC3( angular.cy, 0.0, 4.0, 0.0, 0.0 );
    // a named material's missing fields take cnDefaultMaterial(), not the file's "default"
    cnShapeId rodShape = cntShape( rod, 0 );
    material = cnShape_GetMaterial( rodShape );
    CNT_ASSERT_REL( material.density, 7850.0, 0.0 );
    CNT_ASSERT_REL( material.friction, cnDefaultMaterial().friction, 0.0 );
    // [0, 0, 0, 3] normalized: half a turn about z
    CNT_ASSERT_REL( cnShape_GetLocalPose( rodShape ).q.z, 1.0, 1e-15 );
    CNT_ASSERT_REL( cnBody_GetMassData( rod ).mass, 7850.0 * cntCapsuleVolume( 0.1, 1.0 ), 1e-12 );

    cnBodyId bead = cntFindBody( &load, "bead" );
    ck_assert_int_eq( cnBody_GetMobility( bead, &linear, &angular ), cn_statusOk );
    CNT_ASSERT_VEC3( linear.cy, 0.0, 0.5, 0.0, 0.0 );
    CNT_ASSERT_VEC3( angular.cz, 0.0, 0.0, 3.0, 0.0 );
    CNT_ASSERT_VEC3( cnShape_GetLocalPose( cntShape( bead, 0 ) ).p, 0.0, 0.0, 0.5, 0.0 );
    CNT_ASSERT_VEC3( cnBody_GetWorldCenter( bead ), 0.0, 1.0, 5.5, 1e-15 );
    material = cnShape_GetMaterial( cntShape( bead, 0 ) );
    CNT_ASSERT_REL( material.density, 2000.0, 0.0 );
    CNT_ASSERT_REL( material.friction, 0.1, 0.0 );
    CNT_ASSERT_REL( material.restitution, cnDefaultMaterial().restitution, 0.0 );

    // the nameless body, with four shapes in file order
    cnBodyArrays bodies = cnWorld_GetBodyArrays( load.scene.worldId );
    int nameless = -1;
    for ( int i = 0; i < bodies.count; ++i )
    {
        if ( cnBody_GetName( bodies.ids[i] )[0] == 0 )
        {
            ck_assert_int_eq( nameless, -1 );
            nameless = i;
        }
    }
    ck_assert_int_ge( nameless, 0 );
    cnBodyId compound = bodies.ids[nameless];
    CNT_ASSERT_VEC3( cnBody_GetPosition( compound ), 9.0, 9.0, 9.0, 0.0 );
    const cnShapeType types[4] = { cn_cylinderShape, cn_ellipsoidShape, cn_torusShape, cn_hullShape };
    for ( int k = 0; k < 4; ++k )
    {
        ck_assert_int_eq( cnShape_GetType( cntShape( compound, k ) ), types[k] );
    }
    CNT_ASSERT_VEC3( cnShape_GetLocalPose( cntShape( compound, 2 ) ).p, 0.0, 0.0, -1.0, 0.0 );
    cntFinishLoad( &load );
}
END_TEST

START_TEST( unknown_keys_warn_with_their_place )
{
    cntLoad load;
    cntInitLoad( &load );
    ck_assert_int_eq( cntLoadFile( &load, CN_TEST_DATA_DIR "/good_unknown_keys.json" ), cn_statusOk );
    const char* const expected[] = {
        ":3:20: colour_scheme: unknown key (ignored)",
        ":4:52: world.friction: unknown key (ignored)",
        ":5:58: materials.steel.hardness: unknown key (ignored)",
        ":7:33: bodies[0].colour: unknown key (ignored)",
        ":8:70: bodies[0].shapes[0].half_extents: unknown key for a sphere shape (ignored)",
    };
    ck_assert_int_eq( load.warningCount, 5 );
    ck_assert_int_eq( load.scene.warningCount, 5 );
    for ( int i = 0; i < 5; ++i )
    {
        char text[1024];
        snprintf( text, sizeof( text ), "%s%s", CN_TEST_DATA_DIR "/good_unknown_keys.json", expected[i] );
        ck_assert_str_eq( load.warnings[i], text );
    }
    // the scene is still all there
    cnBodyId ball = cntFindBody( &load, "ball" );
    CNT_ASSERT_REL( cnBody_GetMassData( ball ).mass, 7850.0 * cntSphereVolume( 0.5 ), 1e-12 );
    cntFinishLoad( &load );

    // without a warning hook, warnings go to the world def's log
    cntCountingAllocator counter;
    cnAllocator counting;
    cnAllocator allocator = cntMakeAllocator( &counter, &counting );
    cntLogCapture capture;
    cnSceneOptions options = cnDefaultSceneOptions();
    options.worldDef = cntWorldDef( &capture, &allocator );
    cnScene scene;
    cnSceneError error;
    ck_assert_int_eq( cnLoadSceneFile( CN_TEST_DATA_DIR "/good_unknown_keys.json", &options, &scene, &error ),
                      cn_statusOk );
    ck_assert_int_eq( capture.warningCount, 5 );
    ck_assert_int_eq( capture.errorCount, 0 );
    ck_assert_int_eq( capture.lastStatus, cn_statusSchemaError );
    ck_assert_str_eq( capture.lastMessage, load.warnings[4] );
    ck_assert_int_eq( scene.warningCount, 5 );
    cnDestroyWorld( scene.worldId );
    ck_assert_uint_eq( counter.liveBytes, 0 );
}
END_TEST

// The first JSON example of docs/scene-format.md loads as the text says.
START_TEST( format_doc_example_loads )
{
    size_t length = 0;
    char* doc = cntReadText( CN_ASSETS_DIR "/../docs/scene-format.md", &length );
    ck_assert_ptr_nonnull( doc );
    const char* start = strstr( doc, "```json\n" );
    ck_assert_ptr_nonnull( start );
    start += strlen( "```json\n" );
    const char* end = strstr( start, "```" );
    ck_assert_ptr_nonnull( end );

    cntLoad load;
    cntInitLoad( &load );
    cnStatus status = cnLoadSceneString( start, (size_t)( end - start ), "scene-format.md", &load.options,
                                         &load.scene, &load.error );
    free( doc );
    ck_assert_msg( status == cn_statusOk, "%s", load.error.text );
    ck_assert_int_eq( load.warningCount, 0 );
    cnBodyId crate = cntFindBody( &load, "crate" );
    CNT_ASSERT_REL( cnBody_GetMassData( crate ).mass, 700.0, 1e-12 );
    cntFinishLoad( &load );
}
END_TEST

// "force" and "torque" of a body, and of a generator's template (copied unchanged to every
// generated body), reach cnBodyDef.constantForce / constantTorque; a static body ignores them;
// an overdamped sphere then moves at M F = F / (6 pi eta r) and spins at M tau = tau / (8 pi eta r^3).
START_TEST( force_and_torque_keys_reach_the_body )
{
    static const char json[] =
        "{ \"world\": { \"dynamics\": \"overdamped\", \"gravity\": [0, 0, 0], \"viscosity\": 2 },\n"
        "  \"bodies\": [\n"
        "    { \"name\": \"upper\", \"position\": [0, 10, 0],\n"
        "      \"force\": [0, -1, 0.5], \"torque\": [0, 0, 0.25],\n"
        "      \"shapes\": [ { \"type\": \"sphere\", \"radius\": 0.5 } ] },\n"
        "    { \"name\": \"wall\", \"type\": \"static\", \"force\": [1, 2, 3], \"torque\": [4, 5, 6] } ],\n"
        "  \"generators\": [ { \"type\": \"grid\", \"name\": \"g\", \"count\": [2, 1, 1],\n"
        "      \"spacing\": [3, 1, 1], \"origin\": [0, -10, 0],\n"
        "      \"body\": { \"orientation\": [0, 0, 0, 1], \"force\": [0, 1, 0], \"torque\": [-1, 0, 0],\n"
        "                \"shapes\": [ { \"type\": \"sphere\", \"radius\": 0.5 } ] } } ] }\n";
    cntLoad load;
    cntInitLoad( &load );
    cnStatus status =
        cnLoadSceneString( json, strlen( json ), "forces.json", &load.options, &load.scene, &load.error );
    ck_assert_msg( status == cn_statusOk, "%s", load.error.text );
    ck_assert_int_eq( load.warningCount, 0 );

    cnBodyId upper = cntFindBody( &load, "upper" );
    CNT_ASSERT_VEC3( cnBody_GetConstantForce( upper ), 0.0, -1.0, 0.5, 0.0 );
    CNT_ASSERT_VEC3( cnBody_GetConstantTorque( upper ), 0.0, 0.0, 0.25, 0.0 );
    cnBodyId wall = cntFindBody( &load, "wall" );
    CNT_ASSERT_VEC3( cnBody_GetConstantForce( wall ), 0.0, 0.0, 0.0, 0.0 );
    CNT_ASSERT_VEC3( cnBody_GetConstantTorque( wall ), 0.0, 0.0, 0.0, 0.0 );
    for ( int k = 0; k < 2; ++k )
    {
        char name[8];
        snprintf( name, sizeof( name ), "g_%d", k );
        cnBodyId generated = cntFindBody( &load, name );
        // world frame: not turned with the template's half turn about z
        CNT_ASSERT_VEC3( cnBody_GetConstantForce( generated ), 0.0, 1.0, 0.0, 0.0 );
        CNT_ASSERT_VEC3( cnBody_GetConstantTorque( generated ), -1.0, 0.0, 0.0, 0.0 );
    }

    ck_assert_int_eq( cnWorld_Step( load.scene.worldId, 0.01 ), cn_statusOk );
    double mLin = 1.0 / ( 6.0 * M_PI * 2.0 * 0.5 );
    double mAng = 1.0 / ( 8.0 * M_PI * 2.0 * 0.125 );
    cnVec3 v = cnBody_GetLinearVelocity( upper );
    CNT_ASSERT_REL( v.y, -mLin, 1e-14 );
    CNT_ASSERT_REL( v.z, 0.5 * mLin, 1e-14 );
    ck_assert( v.x == 0.0 );
    CNT_ASSERT_REL( cnBody_GetAngularVelocity( upper ).z, 0.25 * mAng, 1e-14 );
    CNT_ASSERT_REL( cnBody_GetLinearVelocity( cntFindBody( &load, "g_1" ) ).y, mLin, 1e-14 );
    cntFinishLoad( &load );

    // a generator's template is checked at its own place
    static const char bad[] =
        "{ \"bodies\": [],\n"
        "  \"generators\": [ { \"type\": \"grid\", \"count\": [1, 1, 2], \"spacing\": [1, 1, 1],\n"
        "      \"body\": { \"force\": [0, 0, \"up\"],\n"
        "                \"shapes\": [ { \"type\": \"sphere\", \"radius\": 1 } ] } } ] }";
    cntInitLoad( &load );
    status =
        cnLoadSceneString( bad, strlen( bad ), "template.json", &load.options, &load.scene, &load.error );
    ck_assert_int_eq( status, cn_statusSchemaError );
    ck_assert_str_eq( load.error.path, "generators[0].body.force[2]" );
    ck_assert_str_eq( load.error.message, "expected a number, got string \"up\"" );
    cntAssertNothingLeft( &load );
}
END_TEST

// Every allocation that can fail, fails once: the load reports it and leaves nothing behind.
START_TEST( allocation_failures_leave_nothing )
{
    const char* path = CN_ASSETS_DIR "/scenes/shapes.json";
    int failures = 0;
    for ( long failAfter = 0;; ++failAfter )
    {
        cntLoad load;
        cntInitLoad( &load );
        load.counter.failAfter = failAfter;
        cntLogCapture capture;
        memset( &capture, 0, sizeof( capture ) );
        load.options.worldDef.logFcn = cntCaptureLog;
        load.options.worldDef.logContext = &capture;
        cnStatus status = cntLoadFile( &load, path );
        if ( status == cn_statusOk )
        {
            cntFinishLoad( &load );
            break;
        }
        ck_assert_msg( status == cn_statusOutOfMemory, "failAfter %ld: %s (%s)", failAfter,
                       cnStatusName( status ), load.error.text );
        cntAssertNothingLeft( &load );
        failures += 1;
        ck_assert_int_lt( failAfter, 100000 );
    }
    // the world, the bodies and the loader all allocate
    ck_assert_int_gt( failures, 3 );
}
END_TEST

// ---------------------------------------------------------------------------------------------
// world.friction_model and a body's fixed_rotation

// "pgs, psor, pgj": the registered solvers with the exact cone, as the loader lists them
static void cntConeSolvers( char* buffer, size_t size )
{
    buffer[0] = 0;
    for ( int i = 0; i < cnGetSolverCount(); ++i )
    {
        const cnSolverVTable* solver = cnGetSolverAt( i );
        if ( ( solver->caps & cn_solverCone ) != 0 && ( solver->caps & cn_solverMatrixFree ) != 0 )
        {
            size_t used = strlen( buffer );
            snprintf( buffer + used, size - used, "%s%s", used > 0 ? ", " : "", solver->name );
        }
    }
}

static cnStatus cntLoadString( cntLoad* load, const char* json )
{
    return cnLoadSceneString( json, strlen( json ), "friction.json", &load->options, &load->scene,
                              &load->error );
}

// "pyramid" and "cone" reach cnWorldDef.frictionModel (absent: the pyramid), the cone with each
// registered solver that has it; a step of a ball on the ground then solves without a warning
START_TEST( friction_model_reaches_the_world )
{
    static const char* const models[] = { NULL, "pyramid", "cone" };
    static const cnFrictionModel expected[] = { cn_frictionPyramid, cn_frictionPyramid, cn_frictionCone };
    int coneSolvers = 0;
    for ( int i = 0; i < cnGetSolverCount(); ++i )
    {
        const cnSolverVTable* solver = cnGetSolverAt( i );
        if ( ( solver->caps & cn_solverMatrixFree ) == 0 || ( solver->caps & cn_solverFriction ) == 0 )
        {
            continue;
        }
        bool cone = ( solver->caps & cn_solverCone ) != 0;
        coneSolvers += cone ? 1 : 0;
        for ( int m = 0; m < 3; ++m )
        {
            if ( expected[m] == cn_frictionCone && cone == false )
            {
                continue;
            }
            char json[512];
            char key[64] = "";
            if ( models[m] != NULL )
            {
                snprintf( key, sizeof( key ), ", \"friction_model\": \"%s\"", models[m] );
            }
            snprintf(
                json, sizeof( json ),
                "{ \"world\": { \"solver\": { \"name\": \"%s\" }%s },\n"
                "  \"bodies\": [ { \"type\": \"static\", \"shapes\": [ { \"type\": \"plane\", \"normal\": "
                "[0, 0, 1] } ] },\n"
                "              { \"position\": [0, 0, 0.49], \"shapes\": [ { \"type\": \"sphere\", "
                "\"radius\": 0.5 } ] } ] }",
                solver->name, key );
            cntLoad load;
            cntInitLoad( &load );
            ck_assert_msg( cntLoadString( &load, json ) == cn_statusOk, "%s: %s", solver->name,
                           load.error.text );
            ck_assert_int_eq( load.warningCount, 0 );
            ck_assert_int_eq( cnWorld_GetFrictionModel( load.scene.worldId ), expected[m] );
            ck_assert_int_eq( cnWorld_GetDef( load.scene.worldId ).frictionModel, expected[m] );
            ck_assert_int_eq( cnWorld_Step( load.scene.worldId, 1.0 / 60.0 ), cn_statusOk );
            cnStepReport report = cnWorld_GetStepReport( load.scene.worldId );
            ck_assert_int_gt( report.contactCount, 0 );
            ck_assert_msg( ( report.warnings & ( cn_warnSolverFailed | cn_warnFrictionDropped ) ) == 0,
                           "%s %s: warnings %#x", solver->name, models[m] != NULL ? models[m] : "(default)",
                           report.warnings );
            cntFinishLoad( &load );
        }
    }
    char names[256];
    cntConeSolvers( names, sizeof( names ) );
    ck_assert_int_eq( coneSolvers > 0, names[0] != 0 );
}
END_TEST

// The cone with a solver that lacks it fails the load at world.friction_model (or, when the cone
// is the caller's default, at world.solver.name), naming the solver and the solvers with the cone;
// an override is located at the override.
START_TEST( friction_model_cone_needs_a_solver_with_the_cone )
{
    char names[256];
    cntConeSolvers( names, sizeof( names ) );
    char list[300];
    if ( names[0] != 0 )
    {
        snprintf( list, sizeof( list ), "solvers with it: %s", names );
    }
    else
    {
        snprintf( list, sizeof( list ), "no registered solver has it" );
    }
    int refused = 0;
    for ( int i = 0; i < cnGetSolverCount(); ++i )
    {
        const cnSolverVTable* solver = cnGetSolverAt( i );
        if ( ( solver->caps & cn_solverCone ) != 0 )
        {
            continue;
        }
        refused += 1;
        char json[256];
        snprintf( json, sizeof( json ),
                  "{\n  \"world\": { \"solver\": { \"name\": \"%s\" }, \"friction_model\": \"cone\" },\n"
                  "  \"bodies\": []\n}\n",
                  solver->name );
        cntLoad load;
        cntInitLoad( &load );
        ck_assert_int_eq( cntLoadString( &load, json ), cn_statusSchemaError );
        char message[512];
        snprintf(
            message, sizeof( message ),
            "friction_model \"cone\" needs a solver with the exact friction cone, and solver \"%s\" has none "
            "(%s)",
            solver->name, list );
        ck_assert_str_eq( load.error.path, "world.friction_model" );
        ck_assert_str_eq( load.error.message, message );
        ck_assert_int_eq( load.error.line, 2 );
        ck_assert_int_eq( load.error.column, 58 + (int)strlen( solver->name ) );
        cntAssertNothingLeft( &load );
    }
    // lemke, bbpgd, relcp, pgs_sm, newton_minmap and newton_fb have no cone
    ck_assert_int_ge( refused, 6 );

    // through overrides: the scene's solver swapped for one without the cone
    const char* const overrides[] = { "world.friction_model=cone", "world.solver.name=lemke" };
    cntLoad load;
    cntInitLoad( &load );
    load.options.overrides = overrides;
    load.options.overrideCount = 2;
    ck_assert_int_eq( cntLoadFile( &load, CN_ASSETS_DIR "/scenes/free_fall.json" ), cn_statusSchemaError );
    ck_assert_str_eq( load.error.path, "world.friction_model" );
    ck_assert_msg( strstr( load.error.text,
                           "free_fall.json:<--set world.friction_model=cone>: "
                           "world.friction_model: friction_model \"cone\" needs a solver "
                           "with the exact friction cone, and solver \"lemke\" has none" ) != NULL,
                   "%s", load.error.text );
    cntAssertNothingLeft( &load );

    // the cone from the caller's def, and a file that names a solver without it
    cntInitLoad( &load );
    load.options.worldDef.frictionModel = cn_frictionCone;
    ck_assert_int_eq(
        cntLoadString( &load, "{ \"world\": { \"solver\": { \"name\": \"lemke\" } }, \"bodies\": [] }" ),
        cn_statusSchemaError );
    ck_assert_str_eq( load.error.path, "world.solver.name" );
    ck_assert_int_eq( load.error.column, 34 );
    cntAssertNothingLeft( &load );
}
END_TEST

// fixed_rotation reaches the body (default false), in bodies and in a generator's template; a
// fixed-rotation ball dropped off-centre onto another keeps omega = 0 while a free one spins
START_TEST( fixed_rotation_reaches_the_body )
{
    static const char json[] =
        "{ \"world\": { \"gravity\": [0, 0, -9.81] },\n"
        "  \"bodies\": [ { \"name\": \"ground\", \"type\": \"static\",\n"
        "                \"shapes\": [ { \"type\": \"plane\", \"normal\": [0, 0, 1] } ] },\n"
        "              { \"name\": \"base\", \"position\": [0, 0, 0.5], \"fixed_rotation\": false,\n"
        "                \"shapes\": [ { \"type\": \"sphere\", \"radius\": 0.5 } ] },\n"
        "              { \"name\": \"fixed\", \"position\": [0.3, 0, 1.6], \"fixed_rotation\": true,\n"
        "                \"shapes\": [ { \"type\": \"sphere\", \"radius\": 0.5 } ] },\n"
        "              { \"name\": \"base2\", \"position\": [5, 0, 0.5],\n"
        "                \"shapes\": [ { \"type\": \"sphere\", \"radius\": 0.5 } ] },\n"
        "              { \"name\": \"free\", \"position\": [5.3, 0, 1.6],\n"
        "                \"shapes\": [ { \"type\": \"sphere\", \"radius\": 0.5 } ] } ],\n"
        "  \"generators\": [ { \"type\": \"grid\", \"name\": \"g\", \"count\": [2, 1, 1], \"spacing\": [2, "
        "2, 2],\n"
        "                    \"origin\": [10, 0, 3],\n"
        "                    \"body\": { \"fixed_rotation\": true, \"angular_velocity\": [0, 0, 0],\n"
        "                              \"shapes\": [ { \"type\": \"sphere\", \"radius\": 0.5 } ] } } ] }";
    cntLoad load;
    cntInitLoad( &load );
    ck_assert_msg( cntLoadString( &load, json ) == cn_statusOk, "%s", load.error.text );
    ck_assert_int_eq( load.warningCount, 0 );
    cnBodyId fixed = cntFindBody( &load, "fixed" );
    cnBodyId free = cntFindBody( &load, "free" );
    ck_assert( cnBody_IsFixedRotation( fixed ) );
    ck_assert( cnBody_IsFixedRotation( free ) == false );
    ck_assert( cnBody_IsFixedRotation( cntFindBody( &load, "base" ) ) == false );
    ck_assert( cnBody_IsFixedRotation( cntFindBody( &load, "g_0" ) ) );
    ck_assert( cnBody_IsFixedRotation( cntFindBody( &load, "g_1" ) ) );
    bool spun = false;
    for ( int i = 0; i < 60; ++i )
    {
        ck_assert_int_eq( cnWorld_Step( load.scene.worldId, 1.0 / 60.0 ), cn_statusOk );
        cnVec3 w = cnBody_GetAngularVelocity( fixed );
        ck_assert_msg( w.x == 0.0 && w.y == 0.0 && w.z == 0.0, "step %d: (%g, %g, %g)", i + 1, w.x, w.y,
                       w.z );
        spun = spun || fabs( cnBody_GetAngularVelocity( free ).y ) > 0.1;
    }
    // the off-centre landing turned the free ball and pushed both sideways; the fixed one never turned
    ck_assert( spun );
    ck_assert( cnBody_GetPosition( fixed ).x > 0.3 );
    ck_assert( cnBody_GetPosition( free ).x > 5.3 );
    CNT_ASSERT_REL( cnBody_GetOrientation( fixed ).w, 1.0, 0.0 );
    cntFinishLoad( &load );
}
END_TEST

Suite* cntSceneGoodSuite( void )
{
    Suite* suite = suite_create( "scene_good" );
    TCase* tc = tcase_create( "files" );
    tcase_add_test( tc, every_shipped_scene_loads );
    tcase_add_test( tc, tennis_racket_spins_about_its_intermediate_axis );
    tcase_add_test( tc, free_fall_matches_the_closed_form );
    tcase_add_test( tc, shapes_scene_has_every_shape_type );
    tcase_add_test( tc, sedimenting_rods_is_overdamped );
    tcase_add_test( tc, every_key_reaches_its_field );
    tcase_add_test( tc, unknown_keys_warn_with_their_place );
    tcase_add_test( tc, format_doc_example_loads );
    tcase_add_test( tc, force_and_torque_keys_reach_the_body );
    tcase_add_test( tc, allocation_failures_leave_nothing );
    tcase_add_test( tc, friction_model_reaches_the_world );
    tcase_add_test( tc, friction_model_cone_needs_a_solver_with_the_cone );
    tcase_add_test( tc, fixed_rotation_reaches_the_body );
    suite_add_tcase( suite, tc );
    return suite;
}

// ---------------------------------------------------------------------------------------------
// overrides

START_TEST( overrides_change_values )
{
    const char* const overrides[] = {
        "world.dt=0.001",
        "world.gravity=[0, 0, -1.62]",
        "bodies[0].position=[1,2,3]",
        // the file has no world.solver: it is created
        "world.solver.iterations=25",
        // not JSON: taken as a string
        "world.solver.name=psor",
        "world.dynamics=overdamped",
        "materials.steel.density=1000",
        "bodies[0].shapes[0].radius=0.2",
        // the later override wins
        "world.dt=0.002",
        // solver parameters: objects on the way are created; a choice by name (not JSON: a string)
        "world.solver.params.kernel=reference",
        "world.solver.params.relaxation=1.1",
        "world.solver.params.warm_start=false",
    };
    cntLoad load;
    cntInitLoad( &load );
    load.options.overrides = overrides;
    load.options.overrideCount = (int)( sizeof( overrides ) / sizeof( overrides[0] ) );
    ck_assert_int_eq( cntLoadFile( &load, CN_ASSETS_DIR "/scenes/free_fall.json" ), cn_statusOk );
    ck_assert_int_eq( load.warningCount, 0 );

    cnWorldDef def = cnWorld_GetDef( load.scene.worldId );
    CNT_ASSERT_REL( def.timeStep, 0.002, 0.0 );
    CNT_ASSERT_VEC3( def.gravity, 0.0, 0.0, -1.62, 0.0 );
    ck_assert_int_eq( def.solver.iterations, 25 );
    ck_assert_str_eq( def.solver.name, "psor" );
    ck_assert_int_eq( def.dynamics, cn_dynamicsOverdamped );
    double value = -1.0;
    ck_assert_int_eq( cnWorld_GetSolverParam( load.scene.worldId, "kernel", &value ), cn_statusOk );
    ck_assert_double_eq( value, 1.0 );
    ck_assert_int_eq( cnWorld_GetSolverParam( load.scene.worldId, "relaxation", &value ), cn_statusOk );
    ck_assert_double_eq( value, 1.1 );
    ck_assert_int_eq( cnWorld_GetSolverParam( load.scene.worldId, "warm_start", &value ), cn_statusOk );
    ck_assert_double_eq( value, 0.0 );
    ck_assert_int_eq( cnWorld_GetSolverParam( load.scene.worldId, "iterations", &value ), cn_statusOk );
    ck_assert_double_eq( value, 25.0 );
    cnBodyId ball = cntFindBody( &load, "ball" );
    CNT_ASSERT_VEC3( cnBody_GetPosition( ball ), 1.0, 2.0, 3.0, 0.0 );
    CNT_ASSERT_REL( cnBody_GetMassData( ball ).mass, 1000.0 * cntSphereVolume( 0.2 ), 1e-12 );
    cntFinishLoad( &load );
}
END_TEST

START_TEST( override_unknown_key_warns_at_the_override )
{
    const char* const overrides[] = { "bodies[0].colour=red" };
    cntLoad load;
    cntInitLoad( &load );
    load.options.overrides = overrides;
    load.options.overrideCount = 1;
    ck_assert_int_eq( cntLoadFile( &load, CN_ASSETS_DIR "/scenes/free_fall.json" ), cn_statusOk );
    ck_assert_int_eq( load.warningCount, 1 );
    ck_assert_str_eq(
        load.warnings[0], CN_ASSETS_DIR
        "/scenes/free_fall.json:<--set bodies[0].colour=red>: bodies[0].colour: unknown key (ignored)" );
    cntFinishLoad( &load );
}
END_TEST

// world.solver.params are set after the world is created, so they win over world.solver's
// "iterations" and "tolerance", whatever the order of the keys or overrides
START_TEST( solver_params_win_over_the_solver_settings )
{
    const char* const overrides[] = {
        "world.solver.params.iterations=30",
        "world.solver.iterations=25",
        "world.solver.params.tolerance=0",
    };
    cntLoad load;
    cntInitLoad( &load );
    load.options.overrides = overrides;
    load.options.overrideCount = 3;
    ck_assert_int_eq( cntLoadFile( &load, CN_ASSETS_DIR "/scenes/free_fall.json" ), cn_statusOk );
    ck_assert_int_eq( load.warningCount, 0 );
    double value = -1.0;
    ck_assert_int_eq( cnWorld_GetSolverParam( load.scene.worldId, "iterations", &value ), cn_statusOk );
    ck_assert_double_eq( value, 30.0 );
    ck_assert_int_eq( cnWorld_GetSolverParam( load.scene.worldId, "tolerance", &value ), cn_statusOk );
    ck_assert_double_eq( value, 0.0 );
    cnWorldDef def = cnWorld_GetDef( load.scene.worldId );
    ck_assert_int_eq( def.solver.iterations, 30 );
    ck_assert_double_eq( def.solver.tolerance, 0.0 );
    cntFinishLoad( &load );
}
END_TEST

// sleeping is implemented: "sleeping": true reaches the world def with no warning, at load or in
// the world's log
START_TEST( sleeping_loads_without_a_warning )
{
    const char* const overrides[] = { "world.sleeping=true" };
    cntCountingAllocator counter;
    cnAllocator counting;
    cnAllocator allocator = cntMakeAllocator( &counter, &counting );
    cntLogCapture capture;
    cnSceneOptions options = cnDefaultSceneOptions();
    options.worldDef = cntWorldDef( &capture, &allocator );
    options.overrides = overrides;
    options.overrideCount = 1;
    cnScene scene;
    cnSceneError error;
    ck_assert_int_eq( cnLoadSceneFile( CN_ASSETS_DIR "/scenes/free_fall.json", &options, &scene, &error ),
                      cn_statusOk );
    ck_assert_int_eq( scene.warningCount, 0 );
    ck_assert_int_eq( capture.warningCount, 0 );
    ck_assert_int_eq( capture.errorCount, 0 );
    ck_assert( cnWorld_GetDef( scene.worldId ).enableSleep );
    cnDestroyWorld( scene.worldId );
    ck_assert_uint_eq( counter.liveBytes, 0 );

    // "sleeping": false says nothing either
    cntLoad load;
    cntInitLoad( &load );
    const char* const off[] = { "world.sleeping=false" };
    load.options.overrides = off;
    load.options.overrideCount = 1;
    ck_assert_int_eq( cntLoadFile( &load, CN_ASSETS_DIR "/scenes/free_fall.json" ), cn_statusOk );
    ck_assert_int_eq( load.warningCount, 0 );
    cntFinishLoad( &load );
}
END_TEST

typedef struct cntBadOverride
{
    const char* file;
    const char* overrides[2];
    int line;
    int column;
    const char* path;
    const char* message;
    // cnSceneError.text after the file name
    const char* text;
} cntBadOverride;

// clang-format off
static const cntBadOverride cnt_badOverrides[] = {
    { "free_fall.json", { "world.dt=abc" }, 0, 0, "world.dt",
      "expected a positive number, got string \"abc\"",
      ":<--set world.dt=abc>: world.dt: expected a positive number, got string \"abc\"" },
    { "free_fall.json", { "world.dt=-1" }, 0, 0, "world.dt",
      "expected a positive number, got -1",
      ":<--set world.dt=-1>: world.dt: expected a positive number, got -1" },
    { "free_fall.json", { "world.dt=1e999" }, 0, 0, "world.dt",
      "expected a finite number, got Infinity (too large for a double)",
      ":<--set world.dt=1e999>: world.dt: expected a finite number, got Infinity (too large for a double)" },
    { "free_fall.json", { "world.gravity=[0, 0, NaN]" }, 0, 0, "world.gravity",
      "expected an array of 3 numbers, got string \"[0, 0, NaN]\"",
      ":<--set world.gravity=[0, 0, NaN]>: world.gravity: expected an array of 3 numbers, got string "
      "\"[0, 0, NaN]\"" },
    { "free_fall.json", { "world.dt=0.01", "bodies[99].position=[0,0,1]" }, 0, 0, "bodies[99]",
      "index out of range: the array has 1 element",
      ":<--set bodies[99].position=[0,0,1]>: bodies[99]: index out of range: the array has 1 element" },
    { "free_fall.json", { "world..dt=1" }, 0, 0, "",
      "malformed key \"world..dt\": expected names (letters, digits, '_', '-') joined by '.', each with "
      "optional [index], e.g. bodies[2].position",
      ":<--set world..dt=1>: malformed key \"world..dt\": expected names (letters, digits, '_', '-') joined by "
      "'.', each with optional [index], e.g. bodies[2].position" },
    { "free_fall.json", { "world.dt" }, 0, 0, "",
      "expected KEY=VALUE, e.g. world.dt=0.001",
      ":<--set world.dt>: expected KEY=VALUE, e.g. world.dt=0.001" },
    { "free_fall.json", { "world.gravity.z=1" }, 0, 0, "world.gravity",
      "expected an object (to hold \"z\"), got an array of 3",
      ":<--set world.gravity.z=1>: world.gravity: expected an object (to hold \"z\"), got an array of 3" },
    { "free_fall.json", { "world[0]=1" }, 0, 0, "world",
      "expected an array (to take [0]), got an object",
      ":<--set world[0]=1>: world: expected an array (to take [0]), got an object" },
    { "free_fall.json", { "bodies[0]={\"shapes\": [{\"type\": \"sphere\", \"radius\": -2}]}" }, 0, 0,
      "bodies[0].shapes[0].radius",
      "expected a positive number, got -2",
      ":<--set bodies[0]={\"shapes\": [{\"type\": \"sphere\", \"radius\": -2}]}>: bodies[0].shapes[0].radius: "
      "expected a positive number, got -2" },
    { "free_fall.json", { "world={\"dt\": 1, \"dt\": 2}" }, 0, 0, "world.dt",
      "duplicate key \"dt\" (first at <--set world={\"dt\": 1, \"dt\": 2}>)",
      ":<--set world={\"dt\": 1, \"dt\": 2}>: world.dt: duplicate key \"dt\" (first at <--set world={\"dt\": 1, "
      "\"dt\": 2}>)" },
    { "free_fall.json", { "world.solver.params.omega=1.5" }, 0, 0, "world.solver.params.omega",
      "solver \"pgs\" has no parameter \"omega\" (its parameters: iterations, tolerance, deadline_ms, warm_start, "
      "relaxation, kernel, relative_tolerance, stagnation_tolerance, divergence_factor, de_saxce, joints, simd)",
      ":<--set world.solver.params.omega=1.5>: world.solver.params.omega: solver \"pgs\" has no parameter "
      "\"omega\" (its parameters: iterations, tolerance, deadline_ms, warm_start, relaxation, kernel, "
      "relative_tolerance, stagnation_tolerance, divergence_factor, de_saxce, joints, simd)" },
    // the solver the overrides name, in their order
    { "free_fall.json", { "world.solver.params.relaxation=1.5", "world.solver.name=lemke" }, 0, 0,
      "world.solver.params.relaxation",
      "solver \"lemke\" has no parameter \"relaxation\" (its parameters: iterations, pivot_tolerance, warm_start, regularization)",
      ":<--set world.solver.params.relaxation=1.5>: world.solver.params.relaxation: solver \"lemke\" has no "
      "parameter \"relaxation\" (its parameters: iterations, pivot_tolerance, warm_start, regularization)" },
    { "free_fall.json", { "world.solver.params.warm_start=maybe" }, 0, 0, "world.solver.params.warm_start",
      "expected true or false (a toggle), got string \"maybe\"",
      ":<--set world.solver.params.warm_start=maybe>: world.solver.params.warm_start: expected true or false (a "
      "toggle), got string \"maybe\"" },
    { "free_fall.json", { "world.solver.params.tolerance=1e999" }, 0, 0, "world.solver.params.tolerance",
      "expected a finite number, got Infinity (too large for a double)",
      ":<--set world.solver.params.tolerance=1e999>: world.solver.params.tolerance: expected a finite number, got "
      "Infinity (too large for a double)" },
    // an error outside what the overrides touched keeps its line and column
    { "bad_negative_radius.json", { "world.dt=0.5", "bodies[0].position=[1, 1, 1]" }, 6, 49,
      "bodies[1].shapes[0].radius",
      "expected a positive number, got -1",
      ":6:49: bodies[1].shapes[0].radius: expected a positive number, got -1" },
};
// clang-format on

#define CNT_BAD_OVERRIDE_COUNT ( (int)( sizeof( cnt_badOverrides ) / sizeof( cnt_badOverrides[0] ) ) )

START_TEST( bad_override_gives_exact_error )
{
    const cntBadOverride* bad = cnt_badOverrides + _i;
    char path[512];
    cntPath( path, sizeof( path ),
             strncmp( bad->file, "bad_", 4 ) == 0 ? CN_TEST_DATA_DIR : CN_ASSETS_DIR "/scenes", bad->file );
    cntLoad load;
    cntInitLoad( &load );
    load.options.overrides = bad->overrides;
    load.options.overrideCount = bad->overrides[1] != NULL ? 2 : 1;
    ck_assert_int_eq( cntLoadFile( &load, path ), cn_statusSchemaError );
    ck_assert_int_eq( load.error.status, cn_statusSchemaError );
    ck_assert_int_eq( load.error.line, bad->line );
    ck_assert_int_eq( load.error.column, bad->column );
    ck_assert_str_eq( load.error.path, bad->path );
    ck_assert_str_eq( load.error.message, bad->message );
    char text[2 * CN_SCENE_TEXT_CAPACITY];
    snprintf( text, sizeof( text ), "%s%s", path, bad->text );
    ck_assert_str_eq( load.error.text, text );
    cntAssertNothingLeft( &load );
}
END_TEST

Suite* cntSceneOverrideSuite( void )
{
    Suite* suite = suite_create( "scene_overrides" );
    TCase* tc = tcase_create( "overrides" );
    tcase_add_test( tc, overrides_change_values );
    tcase_add_test( tc, override_unknown_key_warns_at_the_override );
    tcase_add_test( tc, solver_params_win_over_the_solver_settings );
    tcase_add_test( tc, sleeping_loads_without_a_warning );
    tcase_add_loop_test( tc, bad_override_gives_exact_error, 0, CNT_BAD_OVERRIDE_COUNT );
    suite_add_tcase( suite, tc );
    return suite;
}

// ---------------------------------------------------------------------------------------------
// a 50 MB file, written at run time

typedef struct cntLargeScene
{
    char directory[512];
    char path[600];
    long long bytes;
    int bodyCount;
    int badBody;
    int badLine;
    int badColumn;
} cntLargeScene;

static cntLargeScene s_large;

// Bodies as a person would write them, one member per line, until the file passes 50 MB (about
// 2.5 million JSON values); one radius near the end is negative.
static void cntWriteLargeScene( void )
{
    const char* tmp = getenv( "TMPDIR" );
    snprintf( s_large.directory, sizeof( s_large.directory ), "%s/cairn_scene_XXXXXX",
              tmp != NULL && tmp[0] != 0 ? tmp : "/tmp" );
    ck_assert_ptr_nonnull( mkdtemp( s_large.directory ) );
    snprintf( s_large.path, sizeof( s_large.path ), "%s/large.json", s_large.directory );

    FILE* file = fopen( s_large.path, "w" );
    ck_assert_ptr_nonnull( file );
    const long long target = 50ll * 1000 * 1000;
    const int bodyCount = (int)( target / 190 );
    s_large.bodyCount = bodyCount;
    s_large.badBody = bodyCount - 7;

    long long bytes = 0;
    int line = 1;
    bytes += fprintf( file, "{\n" );
    line += 1;
    bytes += fprintf( file, "  \"version\": 1,\n"
                            "  \"description\": \"written by test_scene_json.c\",\n"
                            "  \"world\": { \"gravity\": [0, 0, -9.81], \"dt\": 0.01 },\n"
                            "  \"bodies\": [\n" );
    line += 4;
    for ( int i = 0; i < bodyCount; ++i )
    {
        bool bad = i == s_large.badBody;
        char shapes[160];
        snprintf( shapes, sizeof( shapes ),
                  "      \"shapes\": [ { \"type\": \"sphere\", \"radius\": %s } ]\n",
                  bad ? "-0.25" : "0.25" );
        bytes += fprintf( file,
                          "    {\n"
                          "      \"name\": \"body_%07d_of_a_scene_of_fifty_megabytes\",\n"
                          "      \"type\": \"dynamic\",\n"
                          "      \"position\": [%d.5, %d.25, 100.125],\n",
                          i, i % 1000, i / 1000 );
        line += 4;
        if ( bad )
        {
            s_large.badLine = line;
            s_large.badColumn = (int)( strstr( shapes, "-0.25" ) - shapes ) + 1;
        }
        bytes += fprintf( file, "%s    }%s\n", shapes, i + 1 < bodyCount ? "," : "" );
        line += 2;
    }
    bytes += fprintf( file, "  ]\n}\n" );
    ck_assert_int_eq( fclose( file ), 0 );
    s_large.bytes = bytes;
}

static void cntLargeSetup( void )
{
    cntWriteLargeScene();
}

static void cntLargeTeardown( void )
{
    unlink( s_large.path );
    rmdir( s_large.directory );
}

START_TEST( large_file_error_names_a_line_far_down )
{
    ck_assert_int_gt( s_large.bytes, 50ll * 1000 * 1000 );
    cntLoad load;
    cntInitLoad( &load );
    ck_assert_int_eq( cntLoadFile( &load, s_large.path ), cn_statusSchemaError );
    ck_assert_int_gt( s_large.badLine, 1000000 );
    ck_assert_int_eq( load.error.line, s_large.badLine );
    ck_assert_int_eq( load.error.column, s_large.badColumn );
    char path[64];
    snprintf( path, sizeof( path ), "bodies[%d].shapes[0].radius", s_large.badBody );
    ck_assert_str_eq( load.error.path, path );
    ck_assert_str_eq( load.error.message, "expected a positive number, got -0.25" );
    char text[1024];
    snprintf( text, sizeof( text ), "%s:%d:%d: %s: expected a positive number, got -0.25", s_large.path,
              s_large.badLine, s_large.badColumn, path );
    ck_assert_str_eq( load.error.text, text );
    cntAssertNothingLeft( &load );

    // too large for a small limit: refused before it is read
    cntInitLoad( &load );
    load.options.maxBytes = 1 << 20;
    ck_assert_int_eq( cntLoadFile( &load, s_large.path ), cn_statusIoError );
    char message[256];
    snprintf( message, sizeof( message ),
              "the file is too large: %lld bytes, the limit is 1048576 (cnSceneOptions.maxBytes)",
              s_large.bytes );
    ck_assert_str_eq( load.error.message, message );
    cntAssertNothingLeft( &load );
}
END_TEST

Suite* cntSceneLargeSuite( void )
{
    Suite* suite = suite_create( "scene_large" );
    TCase* tc = tcase_create( "large" );
    tcase_add_checked_fixture( tc, cntLargeSetup, cntLargeTeardown );
    tcase_set_timeout( tc, 240 );
    tcase_add_test( tc, large_file_error_names_a_line_far_down );
    suite_add_tcase( suite, tc );
    return suite;
}
