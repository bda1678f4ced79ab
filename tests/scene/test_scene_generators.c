// SPDX-License-Identifier: MIT
// Scene generators ("generators": pyramid, grid, random pile, ring lattice, colony seed), the
// world keys added with them (substeps, contact_hertz, contact_margin), and application systems
// ("systems" with handlers from cnSceneOptions). Expected poses are computed here from the
// documented rules, not taken from the loader.

#include "scene_suites.h"
#include "test_support.h"

#include "cairn/cairn.h"
#include "cairn/scene.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct cntGenLoad
{
    cnSceneOptions options;
    cnScene scene;
    cnSceneError error;
    int warningCount;
    char warning[CN_SCENE_TEXT_CAPACITY];
} cntGenLoad;

static void cntGenWarning( const char* text, void* context )
{
    cntGenLoad* load = context;
    if ( load->warningCount == 0 )
    {
        snprintf( load->warning, sizeof( load->warning ), "%s", text );
    }
    load->warningCount += 1;
}

static cnStatus cntGenLoadText( cntGenLoad* load, const char* json, const cnSceneSystem* systems,
                                int systemCount )
{
    memset( load, 0, sizeof( *load ) );
    load->options = cnDefaultSceneOptions();
    load->options.warningFcn = cntGenWarning;
    load->options.warningContext = load;
    load->options.systems = systems;
    load->options.systemCount = systemCount;
    return cnLoadSceneString( json, strlen( json ), "gen.json", &load->options, &load->scene, &load->error );
}

#define CNT_BOX_TEMPLATE "\"body\": {\"shapes\": [{\"type\": \"box\", \"half_extents\": [0.5, 0.5, 0.5]}]}"

START_TEST( pyramid_rows_are_centred_on_the_row_below )
{
    const char* json =
        "{\"bodies\": [], \"generators\": [{\"type\": \"pyramid\", \"name\": \"b\", \"rows\": 4, "
        "\"spacing\": [1.1, 1.0], \"origin\": [2, 3, 0.5], " CNT_BOX_TEMPLATE "}]}";
    cntGenLoad load;
    ck_assert_msg( cntGenLoadText( &load, json, NULL, 0 ) == cn_statusOk, "%s", load.error.text );
    ck_assert_int_eq( load.scene.bodyCount, 10 );
    ck_assert_int_eq( cnWorld_GetBodyCount( load.scene.worldId ), 10 );
    int k = 0;
    int wrong = 0;
    for ( int row = 0; row < 4; ++row )
    {
        for ( int i = 0; i < 4 - row; ++i, ++k )
        {
            char name[32];
            snprintf( name, sizeof( name ), "b_%d", k );
            cnVec3 p = cnBody_GetPosition( cnWorld_FindBody( load.scene.worldId, name ) );
            double x = 2.0 + 1.1 * ( i - 0.5 * ( 3 - row ) );
            wrong += fabs( p.x - x ) > 1e-12 || p.y != 3.0 || fabs( p.z - ( 0.5 + row ) ) > 1e-12;
        }
    }
    ck_assert_msg( wrong == 0, "%d pyramid bodies misplaced", wrong );
    cnDestroyWorld( load.scene.worldId );
}
END_TEST

// grid positions, and jitter: bounded, repeatable for a seed, different for another
static void cntGridPositions( const char* extra, cnVec3* out, int* count )
{
    char json[1024];
    snprintf( json, sizeof( json ),
              "{\"bodies\": [], \"generators\": [{\"type\": \"grid\", \"name\": \"g\", \"count\": [2, 3, 4], "
              "\"spacing\": [1.5, 2, 1], \"origin\": [-1, 0, 0.5]%s, " CNT_BOX_TEMPLATE "}]}",
              extra );
    cntGenLoad load;
    ck_assert_msg( cntGenLoadText( &load, json, NULL, 0 ) == cn_statusOk, "%s", load.error.text );
    *count = load.scene.bodyCount;
    for ( int k = 0; k < *count && k < 24; ++k )
    {
        char name[32];
        snprintf( name, sizeof( name ), "g_%d", k );
        out[k] = cnBody_GetPosition( cnWorld_FindBody( load.scene.worldId, name ) );
    }
    cnDestroyWorld( load.scene.worldId );
}

START_TEST( grid_places_x_fastest_and_jitters_by_seed )
{
    cnVec3 exact[24], a[24], b[24], c[24];
    int count = 0;
    cntGridPositions( "", exact, &count );
    ck_assert_int_eq( count, 24 );
    int wrong = 0;
    for ( int k = 0; k < 24; ++k )
    {
        int x = k % 2, y = ( k / 2 ) % 3, z = k / 6;
        wrong += fabs( exact[k].x - ( -1.0 + 1.5 * x ) ) > 1e-12 || fabs( exact[k].y - 2.0 * y ) > 1e-12 ||
                 fabs( exact[k].z - ( 0.5 + z ) ) > 1e-12;
    }
    ck_assert_msg( wrong == 0, "%d grid bodies misplaced", wrong );

    cntGridPositions( ", \"jitter\": 0.1, \"seed\": 5", a, &count );
    cntGridPositions( ", \"jitter\": 0.1, \"seed\": 5", b, &count );
    cntGridPositions( ", \"jitter\": 0.1, \"seed\": 6", c, &count );
    int outside = 0, differentForSameSeed = 0, sameForOtherSeed = 0;
    double largest = 0.0;
    for ( int k = 0; k < 24; ++k )
    {
        cnVec3 d = cnSub( a[k], exact[k] );
        double m = fmax( fabs( d.x ), fmax( fabs( d.y ), fabs( d.z ) ) );
        largest = fmax( largest, m );
        outside += m > 0.1;
        differentForSameSeed += cnLength( cnSub( a[k], b[k] ) ) != 0.0;
        sameForOtherSeed += cnLength( cnSub( a[k], c[k] ) ) == 0.0;
    }
    ck_assert_msg( outside == 0, "%d bodies jittered by more than 0.1", outside );
    // 72 uniform draws in [-0.1, 0.1]: the largest is above 0.05 unless the jitter is broken
    ck_assert_msg( largest > 0.05, "largest offset %g", largest );
    ck_assert_int_eq( differentForSameSeed, 0 );
    ck_assert_int_eq( sameForOtherSeed, 0 );
}
END_TEST

START_TEST( random_pile_fills_distinct_cells_inside_its_region )
{
    const char* json =
        "{\"bodies\": [], \"generators\": [{\"type\": \"random_pile\", \"name\": \"p\", \"count\": 60, "
        "\"region\": {\"min\": [-2, -2, 1], \"max\": [2, 2, 10]}, \"spacing\": 1.0, \"jitter\": 0.05, "
        "\"seed\": 3, "
        "\"bodies\": [{\"shapes\": [{\"type\": \"sphere\", \"radius\": 0.3}]}, "
        "{\"shapes\": [{\"type\": \"capsule\", \"radius\": 0.2, \"half_length\": 0.2}]}, "
        "{\"shapes\": [{\"type\": \"ellipsoid\", \"radii\": [0.4, 0.3, 0.2]}]}]}]}";
    cntGenLoad load;
    ck_assert_msg( cntGenLoadText( &load, json, NULL, 0 ) == cn_statusOk, "%s", load.error.text );
    ck_assert_int_eq( load.scene.bodyCount, 60 );
    cnBodyArrays arrays = cnWorld_GetBodyArrays( load.scene.worldId );
    int outside = 0, close = 0, wrongType = 0, turned = 0;
    for ( int i = 0; i < arrays.count; ++i )
    {
        cnVec3 p = arrays.transforms[i].p;
        outside += p.x < -2.05 || p.x > 2.05 || p.y < -2.05 || p.y > 2.05 || p.z < 0.95 || p.z > 10.05;
        for ( int j = 0; j < i; ++j )
        {
            close += cnLength( cnSub( p, arrays.transforms[j].p ) ) < 1.0 - 2.0 * 0.05 * sqrt( 3.0 );
        }
        char name[32];
        snprintf( name, sizeof( name ), "p_%d", i );
        cnShapeId shape;
        cnBody_GetShapes( cnWorld_FindBody( load.scene.worldId, name ), &shape, 1 );
        static const cnShapeType types[3] = { cn_sphereShape, cn_capsuleShape, cn_ellipsoidShape };
        wrongType += cnShape_GetType( shape ) != types[i % 3];
        turned += fabs( arrays.transforms[i].q.w ) < 0.999;
    }
    ck_assert_msg( outside == 0, "%d bodies outside the region", outside );
    ck_assert_msg( close == 0, "%d pairs share a lattice cell", close );
    ck_assert_msg( wrongType == 0, "%d bodies not from their template in turn", wrongType );
    ck_assert_msg( turned > 50, "only %d of 60 bodies have a random orientation", turned );
    cnDestroyWorld( load.scene.worldId );
}
END_TEST

START_TEST( ring_lattice_pins_the_named_rings )
{
    const char* json =
        "{\"bodies\": [], \"generators\": [{\"type\": \"ring_lattice\", \"name\": \"ring\", \"rows\": 3, "
        "\"columns\": 4, \"origin\": [0, 0, 5], \"pinned\": [[0, 0], [0, 3]], "
        "\"body\": {\"shapes\": [{\"type\": \"torus\", \"major_radius\": 1, \"minor_radius\": 0.1}]}}]}";
    cntGenLoad load;
    ck_assert_msg( cntGenLoadText( &load, json, NULL, 0 ) == cn_statusOk, "%s", load.error.text );
    ck_assert_int_eq( load.scene.bodyCount, 12 );
    int wrong = 0;
    cnVec3 sum = cn_vec3Zero;
    for ( int k = 0; k < 12; ++k )
    {
        char name[32];
        snprintf( name, sizeof( name ), "ring_%d", k );
        cnBodyId body = cnWorld_FindBody( load.scene.worldId, name );
        bool pinned = k == 0 || k == 3;
        wrong += cnBody_GetType( body ) != ( pinned ? cn_staticBody : cn_dynamicBody );
        sum = cnAdd( sum, cnBody_GetPosition( body ) );
    }
    ck_assert_msg( wrong == 0, "%d rings of the wrong type", wrong );
    // the sheet is centred on its origin
    cnVec3 centre = cnScale( 1.0 / 12.0, sum );
    ck_assert_msg( fabs( centre.x ) < 1e-9 && fabs( centre.y ) < 1e-9 && fabs( centre.z - 5.0 ) < 1e-9,
                   "sheet centred at (%g, %g, %g)", centre.x, centre.y, centre.z );
    cnDestroyWorld( load.scene.worldId );
}
END_TEST

START_TEST( colony_seed_lays_cells_flat )
{
    const char* json =
        "{\"bodies\": [], \"generators\": [{\"type\": \"colony_seed\", \"name\": \"cell\", \"count\": 5, "
        "\"origin\": [1, 2, 0.25], \"seed\": 9, \"body\": {\"shapes\": [{\"type\": \"capsule\", "
        "\"radius\": 0.25, \"half_length\": 0.75}]}}]}";
    cntGenLoad load;
    ck_assert_msg( cntGenLoadText( &load, json, NULL, 0 ) == cn_statusOk, "%s", load.error.text );
    ck_assert_int_eq( load.scene.bodyCount, 5 );
    cnBodyArrays arrays = cnWorld_GetBodyArrays( load.scene.worldId );
    int wrong = 0;
    for ( int i = 0; i < arrays.count; ++i )
    {
        cnVec3 axis = cnRotate( arrays.transforms[i].q, cnMakeVec3( 0.0, 0.0, 1.0 ) );
        wrong += fabs( axis.z ) > 1e-12 || arrays.transforms[i].p.z != 0.25;
        // lattice pitch: a cell's tip-to-tip length (2) and a diameter (0.5) of gap
        for ( int j = 0; j < i; ++j )
        {
            wrong += cnLength( cnSub( arrays.transforms[i].p, arrays.transforms[j].p ) ) < 2.5 - 1e-9;
        }
    }
    ck_assert_msg( wrong == 0, "%d cells not flat in the plane z = 0.25 or too close", wrong );
    cnDestroyWorld( load.scene.worldId );
}
END_TEST

START_TEST( world_substeps_and_contact_keys_are_read )
{
    const char* json = "{\"world\": {\"substeps\": 4, \"contact_hertz\": 120, \"contact_margin\": 0.01, "
                       "\"contact_recursions\": 3}, \"bodies\": []}";
    cntGenLoad load;
    ck_assert_msg( cntGenLoadText( &load, json, NULL, 0 ) == cn_statusOk, "%s", load.error.text );
    cnWorldDef def = cnWorld_GetDef( load.scene.worldId );
    ck_assert_int_eq( def.substeps, 4 );
    ck_assert( def.contactHertz == 120.0 && def.contactMargin == 0.01 );
    ck_assert_int_eq( def.contactRecursions, 3 );
    cnDestroyWorld( load.scene.worldId );
}
END_TEST

typedef struct cntGenError
{
    const char* json;
    const char* path;
    const char* message; // a part of the message
} cntGenError;

// clang-format off
static const cntGenError cnt_genErrors[] = {
    { "{\"bodies\": [], \"generators\": [{\"type\": \"spiral\", " CNT_BOX_TEMPLATE "}]}",
      "generators[0].type", "unknown generator \"spiral\" (expected pyramid, grid, random_pile, ring_lattice or colony_seed)" },
    { "{\"bodies\": [], \"generators\": [{\"type\": \"pyramid\", \"rows\": 3, \"spacing\": [1, 1]}]}",
      "generators[0]", "missing \"body\"" },
    { "{\"bodies\": [], \"generators\": [{\"type\": \"pyramid\", \"rows\": 0, \"spacing\": [1, 1], " CNT_BOX_TEMPLATE "}]}",
      "generators[0].rows", "expected a positive integer, got 0" },
    { "{\"bodies\": [], \"generators\": [{\"type\": \"grid\", \"count\": [1, 1, 2], \"spacing\": [1, 1, 1], "
      "\"body\": {\"position\": [0, 0, 1], \"shapes\": [{\"type\": \"sphere\", \"radius\": 1}]}}]}",
      "generators[0].body.position", "a template body has no position" },
    { "{\"bodies\": [], \"generators\": [{\"type\": \"grid\", \"count\": [1, 1, 2], \"spacing\": [1, 1, 1], "
      "\"body\": {\"shapes\": [{\"type\": \"sphere\", \"radius\": -1}]}}]}",
      "generators[0].body.shapes[0].radius", "expected a positive number, got -1" },
    { "{\"bodies\": [], \"generators\": [{\"type\": \"ring_lattice\", \"rows\": 2, \"columns\": 2, " CNT_BOX_TEMPLATE "}]}",
      "generators[0].body.shapes[0]", "must have a torus as its first shape, not a box" },
    { "{\"bodies\": [], \"generators\": [{\"type\": \"ring_lattice\", \"rows\": 2, \"columns\": 2, \"pinned\": [[2, 0]], "
      "\"body\": {\"shapes\": [{\"type\": \"torus\", \"major_radius\": 1, \"minor_radius\": 0.1}]}}]}",
      "generators[0].pinned[0]", "expected a [row, column] pair in [0, 2) x [0, 2), got an array of 2" },
    { "{\"bodies\": [], \"generators\": [{\"type\": \"ring_lattice\", \"rows\": 2, \"columns\": 2, "
      "\"body\": {\"shapes\": [{\"type\": \"torus\", \"major_radius\": 1, \"minor_radius\": 0.9}]}}]}",
      "generators[0]", "weave: minor / major radius 0.9 is above 0.22" },
    { "{\"bodies\": [], \"generators\": [{\"type\": \"random_pile\", \"count\": 100, \"spacing\": 1, "
      "\"region\": {\"min\": [0, 0, 0], \"max\": [1, 1, 1]}, " CNT_BOX_TEMPLATE "}]}",
      "generators[0]", "count: the region holds 8 cells of 1 m, fewer than the 100 bodies asked for" },
    { "{\"bodies\": [{\"name\": \"box_1\"}], \"generators\": [{\"type\": \"grid\", \"name\": \"box\", \"count\": [3, 1, 1], "
      "\"spacing\": [1, 1, 1], " CNT_BOX_TEMPLATE "}]}",
      "generators[0].name", "generated name \"box_1\" is also bodies[0].name" },
    { "{\"bodies\": [], \"generators\": [{\"type\": \"grid\", \"name\": \"a\", \"count\": [1, 1, 1], \"spacing\": [1, 1, 1], "
      CNT_BOX_TEMPLATE "}, {\"type\": \"grid\", \"name\": \"a\", \"count\": [1, 1, 1], \"spacing\": [1, 1, 1], "
      CNT_BOX_TEMPLATE "}]}",
      "generators[1].name", "generators[0] has the same name prefix" },
    { "{\"bodies\": [], \"generators\": [{\"type\": \"colony_seed\", " CNT_BOX_TEMPLATE "}]}",
      "generators[0].body.shapes[0]", "must have a capsule as its first shape" },
    { "{\"world\": {\"substeps\": 65}, \"bodies\": []}",
      "world.substeps", "expected an integer from 1 to 64, got 65" },
    { "{\"world\": {\"contact_recursions\": 65}, \"bodies\": []}",
      "world.contact_recursions", "expected an integer from 0 to 64, got 65" },
    { "{\"world\": {\"multisphere\": 1}, \"bodies\": []}",
      "world.multisphere", "expected 0 (off) or an integer from 2 to 256, got 1" },
    { "{\"world\": {\"multisphere\": 257}, \"bodies\": []}",
      "world.multisphere", "expected 0 (off) or an integer from 2 to 256, got 257" },
    { "{\"bodies\": [], \"systems\": []}",
      "systems", "expected an object from system names to their settings" },
};
// clang-format on

START_TEST( bad_generator_names_its_place )
{
    const cntGenError* bad = cnt_genErrors + _i;
    cntGenLoad load;
    cnStatus status = cntGenLoadText( &load, bad->json, NULL, 0 );
    ck_assert_msg( status == cn_statusSchemaError, "case %d: %s (%s)", _i, cnStatusName( status ),
                   load.error.text );
    ck_assert_msg( strcmp( load.error.path, bad->path ) == 0, "case %d: path %s, expected %s (%s)", _i,
                   load.error.path, bad->path, load.error.text );
    ck_assert_msg( strstr( load.error.message, bad->message ) != NULL, "case %d: message '%s' lacks '%s'", _i,
                   load.error.message, bad->message );
    ck_assert_msg( load.error.line == 1 && load.error.column > 1, "case %d: at %d:%d", _i, load.error.line,
                   load.error.column );
    ck_assert( CN_IS_NULL( load.scene.worldId ) );
}
END_TEST

// A handler that records what it saw, registers a system with a finish call, and refuses
// "refuse": true.
typedef struct cntHandlerLog
{
    int calls;
    int bodiesSeen;
    int finished;
    char config[256];
} cntHandlerLog;

static void cntNothing( cnWorldId worldId, cnBodyArrays* bodies, double timeStep, void* context )
{
    (void)worldId;
    (void)bodies;
    (void)timeStep;
    (void)context;
}

static void cntFinished( cnWorldId worldId, void* context )
{
    (void)worldId;
    cntHandlerLog* log = context;
    log->finished += 1;
}

static cnStatus cntHandler( cnWorldId worldId, const char* config, void* context, char* message, int size )
{
    cntHandlerLog* log = context;
    log->calls += 1;
    log->bodiesSeen = cnWorld_GetBodyCount( worldId );
    snprintf( log->config, sizeof( log->config ), "%s", config );
    cnSystemDef def = cnDefaultSystemDef();
    def.name = "recorder";
    def.fcn = cntNothing;
    def.finishFcn = cntFinished;
    def.context = log;
    cnWorld_AddSystem( worldId, &def );
    if ( strstr( config, "\"refuse\":true" ) != NULL )
    {
        snprintf( message, (size_t)size, "refuse: told to" );
        return cn_statusInvalidArgument;
    }
    return cn_statusOk;
}

START_TEST( systems_get_their_settings_after_the_bodies )
{
    cntHandlerLog log;
    memset( &log, 0, sizeof( log ) );
    cnSceneSystem handlers[1] = { { "recorder", cntHandler, &log } };
    const char* json =
        "{\"bodies\": [{\"name\": \"a\"}],\n \"generators\": [{\"type\": \"grid\", \"count\": [2, 1, 1], "
        "\"spacing\": [1, 1, 1], " CNT_BOX_TEMPLATE "}],\n"
        " \"systems\": {\"recorder\": {\"rate\": 2}, \"elsewhere\": {}}}";
    cntGenLoad load;
    ck_assert_msg( cntGenLoadText( &load, json, handlers, 1 ) == cn_statusOk, "%s", load.error.text );
    ck_assert_int_eq( log.calls, 1 );
    ck_assert_int_eq( log.bodiesSeen, 3 );
    ck_assert_str_eq( log.config, "{\"rate\":2}" );
    // no handler for "elsewhere": a warning that names it
    ck_assert_int_eq( load.warningCount, 1 );
    ck_assert_msg( strstr( load.warning, "systems.elsewhere" ) != NULL &&
                       strstr( load.warning, ":3:" ) != NULL,
                   "%s", load.warning );
    ck_assert_int_eq( log.finished, 0 );
    cnDestroyWorld( load.scene.worldId );
    ck_assert_int_eq( log.finished, 1 );

    // a refusal fails the load at the entry, and the world (with the system) is gone
    memset( &log, 0, sizeof( log ) );
    const char* refused = "{\"bodies\": [],\n \"systems\": {\"recorder\": {\"refuse\": true}}}";
    ck_assert_int_eq( cntGenLoadText( &load, refused, handlers, 1 ), cn_statusSchemaError );
    ck_assert_str_eq( load.error.path, "systems.recorder" );
    ck_assert_str_eq( load.error.message, "refuse: told to" );
    ck_assert_int_eq( load.error.line, 2 );
    ck_assert_int_eq( log.finished, 1 );
    ck_assert( CN_IS_NULL( load.scene.worldId ) );
}
END_TEST

Suite* cntSceneGeneratorSuite( void )
{
    Suite* suite = suite_create( "scene_generators" );
    TCase* good = tcase_create( "generate" );
    tcase_add_test( good, pyramid_rows_are_centred_on_the_row_below );
    tcase_add_test( good, grid_places_x_fastest_and_jitters_by_seed );
    tcase_add_test( good, random_pile_fills_distinct_cells_inside_its_region );
    tcase_add_test( good, ring_lattice_pins_the_named_rings );
    tcase_add_test( good, colony_seed_lays_cells_flat );
    tcase_add_test( good, world_substeps_and_contact_keys_are_read );
    tcase_add_test( good, systems_get_their_settings_after_the_bodies );
    suite_add_tcase( suite, good );
    TCase* bad = tcase_create( "errors" );
    tcase_add_loop_test( bad, bad_generator_names_its_place, 0,
                         (int)( sizeof( cnt_genErrors ) / sizeof( cnt_genErrors[0] ) ) );
    suite_add_tcase( suite, bad );
    return suite;
}
