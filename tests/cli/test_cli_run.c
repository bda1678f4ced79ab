// SPDX-License-Identifier: MIT
// cairn run: the summary line, the report, the trace and the final state against an in-process
// run and against the closed form of semi-implicit Euler free fall.
#include "cli_suites.h"
#include "cli_support.h"
#include "test_support.h"

#include "cairn/cairn.h"
#include "cairn/scene.h"

#include <check.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// tests/cli/data/free_fall.json
#define FREE_FALL_DT      0.01
#define FREE_FALL_GRAVITY ( -9.81 )
#define CNT_PI            3.14159265358979323846

static double cntNumber( const cJSON* object, const char* key )
{
    const cJSON* item = cJSON_GetObjectItemCaseSensitive( object, key );
    ck_assert_msg( cJSON_IsNumber( item ), "report field '%s' is missing or not a number", key );
    return item->valuedouble;
}

static const cJSON* cntBody( const cJSON* report, int index )
{
    const cJSON* state = cJSON_GetObjectItemCaseSensitive( report, "final_state" );
    ck_assert_msg( cJSON_IsArray( state ), "final_state is missing" );
    const cJSON* body = cJSON_GetArrayItem( state, index );
    ck_assert_msg( cJSON_IsObject( body ), "final_state[%d] is missing", index );
    return body;
}

// Component `index` of a numeric array field of a body.
static double cntComponent( const cJSON* body, const char* key, int index )
{
    const cJSON* array = cJSON_GetObjectItemCaseSensitive( body, key );
    ck_assert_msg( cJSON_IsArray( array ), "'%s' is missing", key );
    const cJSON* item = cJSON_GetArrayItem( array, index );
    ck_assert_msg( cJSON_IsNumber( item ), "%s[%d] is not a number", key, index );
    return item->valuedouble;
}

// Run free_fall.json with `extra` options and return its parsed report (exit code 0, quiet stderr).
static cJSON* cntRunFreeFall( const char* extra )
{
    const char* report = cntWorkPath( 0, "free_fall_report.json" );
    remove( report );
    cntCliRun run =
        cntRunCli( "run \"%s\" --report \"%s\" %s", cntDataPath( 0, "free_fall.json" ), report, extra );
    ck_assert_msg( run.exitCode == 0, "exit code %d, stderr: %s", run.exitCode, run.err );
    ck_assert_msg( run.err[0] == '\0', "stderr is not empty: %s", run.err );
    cntFreeCliRun( &run );

    cJSON* json = cntReadJson( report );
    ck_assert_msg( json != NULL, "the report %s is missing or not JSON", report );
    return json;
}

// Semi-implicit Euler from rest state (z0, v0) under constant g: v_n = v0 + n g dt,
// z_n = z0 + n dt v0 + g dt^2 n (n + 1) / 2.
static double cntEulerPosition( double z0, double v0, double g, double dt, int n )
{
    return z0 + n * dt * v0 + g * dt * dt * n * ( n + 1.0 ) / 2.0;
}

START_TEST( summary_line_and_report_fields )
{
    const char* report = cntWorkPath( 0, "summary_report.json" );
    cntCliRun run =
        cntRunCli( "run \"%s\" --steps 100 --report \"%s\"", cntDataPath( 0, "free_fall.json" ), report );
    ck_assert_msg( run.exitCode == 0, "exit code %d, stderr: %s", run.exitCode, run.err );
    ck_assert_msg( run.err[0] == '\0', "stderr is not empty: %s", run.err );
    ck_assert_int_eq( cntCountLines( run.out ), 1 );
    ck_assert_msg( strncmp( run.out, "free_fall.json: 100 steps x 0.01 s, 3 bodies, solver ", 53 ) == 0,
                   "summary: %s", run.out );
    ck_assert_msg( cntContains( run.out, " ms/step (cpu " ) && cntContains( run.out, " warnings\n" ),
                   "summary: %s", run.out );
    long long summaryWarnings = -1;
    const char* energy = strstr( run.out, " J, " );
    ck_assert_msg( energy != NULL && sscanf( energy, " J, %lld warnings", &summaryWarnings ) == 1,
                   "summary: %s", run.out );
    cntFreeCliRun( &run );

    cJSON* json = cntReadJson( report );
    ck_assert_ptr_nonnull( json );
    ck_assert_double_eq( cntNumber( json, "steps" ), 100.0 );
    ck_assert_double_eq( cntNumber( json, "bodies" ), 3.0 );
    ck_assert_double_eq( cntNumber( json, "dt" ), FREE_FALL_DT );
    CNT_ASSERT_REL( cntNumber( json, "simulated_time" ), 1.0, 1e-12 );
    ck_assert( cntNumber( json, "wall_ms_per_step" ) >= 0.0 );
    ck_assert( cntNumber( json, "cpu_ms_per_step" ) >= 0.0 );
    ck_assert( cntNumber( json, "contacts_max" ) >= 0.0 );
    ck_assert( cntNumber( json, "max_penetration" ) >= 0.0 );
    ck_assert( cntNumber( json, "iterations_mean" ) >= 0.0 );
    ck_assert( cJSON_IsNumber( cJSON_GetObjectItemCaseSensitive( json, "residual_final" ) ) ||
               cJSON_IsNull( cJSON_GetObjectItemCaseSensitive( json, "residual_final" ) ) );
    // warnings: the summary counts steps that warned plus load warnings; each entry names its flags
    double warningCount = cntNumber( json, "warning_count" );
    ck_assert_double_eq( (double)summaryWarnings, warningCount + cntNumber( json, "load_warning_count" ) );
    ck_assert_double_eq( cntNumber( json, "load_warning_count" ), 0.0 );
    const cJSON* warnings = cJSON_GetObjectItemCaseSensitive( json, "warnings" );
    ck_assert_int_eq( cJSON_GetArraySize( warnings ), (int)warningCount );
    const cJSON* warning = NULL;
    cJSON_ArrayForEach( warning, warnings )
    {
        double step = cntNumber( warning, "step" );
        ck_assert( step >= 1.0 && step <= 100.0 );
        const cJSON* flags = cJSON_GetObjectItemCaseSensitive( warning, "flags" );
        ck_assert( cJSON_IsArray( flags ) && cJSON_GetArraySize( flags ) > 0 );
        ck_assert( cJSON_IsString( cJSON_GetArrayItem( flags, 0 ) ) );
    }
    ck_assert( cJSON_IsFalse( cJSON_GetObjectItemCaseSensitive( json, "warnings_truncated" ) ) );

    const cJSON* solver = cJSON_GetObjectItemCaseSensitive( json, "solver" );
    ck_assert( cJSON_IsString( solver ) && solver->valuestring[0] != '\0' );

    // initial kinetic energy: the ball (1.5, 0, 2) m/s and the box spinning at 1 rad/s about z
    double ballMass = 1000.0 * 4.0 / 3.0 * CNT_PI * 0.125;
    double boxMass = 1000.0;
    double boxInertia = boxMass * ( 1.0 + 1.0 ) / 12.0;
    double expected = 0.5 * ballMass * ( 1.5 * 1.5 + 2.0 * 2.0 ) + 0.5 * boxInertia;
    CNT_ASSERT_REL( cntNumber( json, "kinetic_energy_initial" ), expected, 1e-12 );
    ck_assert( cntNumber( json, "kinetic_energy_final" ) > 0.0 );

    const cJSON* state = cJSON_GetObjectItemCaseSensitive( json, "final_state" );
    ck_assert_int_eq( cJSON_GetArraySize( state ), 3 );
    const cJSON* ground = cJSON_GetObjectItemCaseSensitive( cntBody( json, 0 ), "name" );
    const cJSON* ball = cJSON_GetObjectItemCaseSensitive( cntBody( json, 1 ), "name" );
    ck_assert( cJSON_IsString( ground ) && strcmp( ground->valuestring, "ground" ) == 0 );
    ck_assert( cJSON_IsString( ball ) && strcmp( ball->valuestring, "ball" ) == 0 );
    ck_assert_ptr_null( cJSON_GetObjectItemCaseSensitive( cntBody( json, 2 ), "name" ) );
    for ( int i = 0; i < 3; ++i )
    {
        const cJSON* body = cntBody( json, i );
        ck_assert_int_eq( cJSON_GetArraySize( cJSON_GetObjectItemCaseSensitive( body, "position" ) ), 3 );
        ck_assert_int_eq( cJSON_GetArraySize( cJSON_GetObjectItemCaseSensitive( body, "orientation" ) ), 4 );
        ck_assert_int_eq( cJSON_GetArraySize( cJSON_GetObjectItemCaseSensitive( body, "linear_velocity" ) ),
                          3 );
        ck_assert_int_eq( cJSON_GetArraySize( cJSON_GetObjectItemCaseSensitive( body, "angular_velocity" ) ),
                          3 );
    }

    // the static ground has not moved: identity orientation, written [w, x, y, z]
    ck_assert_double_eq( cntComponent( cntBody( json, 0 ), "orientation", 0 ), 1.0 );
    ck_assert_double_eq( cntComponent( cntBody( json, 0 ), "position", 2 ), 0.0 );
    cJSON_Delete( json );
}
END_TEST

// Load the scene in this process with the same overrides, step it `steps` times with the scene's
// time step and compare every number of the report's final state bit for bit.
static void cntCompareWithInProcess( const char* scenePath, const cJSON* json, const char* const* overrides,
                                     int overrideCount, int steps )
{
    cnSceneOptions options = cnDefaultSceneOptions();
    options.overrides = overrides;
    options.overrideCount = overrideCount;
    cnScene scene = { 0 };
    cnSceneError error = { 0 };
    cnStatus status = cnLoadSceneFile( scenePath, &options, &scene, &error );
    ck_assert_msg( status == cn_statusOk, "%s", error.text );

    double dt = cnWorld_GetDef( scene.worldId ).timeStep;
    ck_assert_double_eq( cntNumber( json, "dt" ), dt );
    for ( int i = 0; i < steps; ++i )
    {
        ck_assert_int_eq( cnWorld_Step( scene.worldId, dt ), cn_statusOk );
    }

    cnBodyArrays bodies = cnWorld_GetBodyArrays( scene.worldId );
    ck_assert_int_eq( bodies.count,
                      cJSON_GetArraySize( cJSON_GetObjectItemCaseSensitive( json, "final_state" ) ) );
    for ( int row = 0; row < bodies.count; ++row )
    {
        cnBodyState s = { 0 };
        ck_assert_int_eq( cnBody_GetState( bodies.ids[row], &s ), cn_statusOk );
        const cJSON* body = cntBody( json, row );
        double expected[13] = { s.transform.p.x,    s.transform.p.y,     s.transform.p.z,
                                s.transform.q.w,    s.transform.q.x,     s.transform.q.y,
                                s.transform.q.z,    s.linearVelocity.x,  s.linearVelocity.y,
                                s.linearVelocity.z, s.angularVelocity.x, s.angularVelocity.y,
                                s.angularVelocity.z };
        const char* keys[13] = { "position",        "position",        "position",         "orientation",
                                 "orientation",     "orientation",     "orientation",      "linear_velocity",
                                 "linear_velocity", "linear_velocity", "angular_velocity", "angular_velocity",
                                 "angular_velocity" };
        const int components[13] = { 0, 1, 2, 0, 1, 2, 3, 0, 1, 2, 0, 1, 2 };
        for ( int k = 0; k < 13; ++k )
        {
            double got = cntComponent( body, keys[k], components[k] );
            ck_assert_msg( got == expected[k], "body %d %s[%d]: report %.17g, in-process %.17g", row, keys[k],
                           components[k], got, expected[k] );
        }
    }
    cnDestroyWorld( scene.worldId );
}

START_TEST( final_state_is_bit_identical_to_in_process_run )
{
    cJSON* json = cntRunFreeFall( "--steps 137" );
    cntCompareWithInProcess( cntDataPath( 0, "free_fall.json" ), json, NULL, 0, 137 );
    cJSON_Delete( json );
}
END_TEST

START_TEST( overrides_are_bit_identical_to_in_process_run )
{
    cJSON* json = cntRunFreeFall( "--steps 50 --set \"world.gravity=[0.5,0,-3]\" --dt 0.004" );
    const char* overrides[2] = { "world.gravity=[0.5,0,-3]", "world.dt=0.004" };
    cntCompareWithInProcess( cntDataPath( 0, "free_fall.json" ), json, overrides, 2, 50 );
    cJSON_Delete( json );
}
END_TEST

// The scenes other parts of the project ship: they run cleanly and the report is the in-process
// state too. A scene that is not there (yet) is skipped.
static const char* const cnt_shippedScenes[] = { "scenes/free_fall.json", "scenes/tennis_racket.json" };

START_TEST( shipped_scenes_match_in_process_run )
{
    char scene[1024];
    snprintf( scene, sizeof( scene ), "%s/%s", CN_ASSETS_DIR, cnt_shippedScenes[_i] );
    FILE* file = fopen( scene, "r" );
    if ( file == NULL )
    {
        fprintf( stderr, "note: %s is not there, skipped\n", scene );
        return;
    }
    fclose( file );

    const char* report = cntWorkPath( 0, "shipped_report.json" );
    remove( report );
    cntCliRun run = cntRunCli( "run \"%s\" --steps 240 --report \"%s\"", scene, report );
    ck_assert_msg( run.exitCode == 0, "%s: exit code %d, stderr: %s", scene, run.exitCode, run.err );
    ck_assert_msg( run.err[0] == '\0', "%s: stderr is not empty: %s", scene, run.err );
    cntFreeCliRun( &run );

    cJSON* json = cntReadJson( report );
    ck_assert_ptr_nonnull( json );
    ck_assert_double_eq( cntNumber( json, "steps" ), 240.0 );
    ck_assert_double_eq( cntNumber( json, "bodies" ),
                         cJSON_GetArraySize( cJSON_GetObjectItemCaseSensitive( json, "final_state" ) ) );
    cntCompareWithInProcess( scene, json, NULL, 0, 240 );
    cJSON_Delete( json );
}
END_TEST

START_TEST( free_fall_matches_semi_implicit_euler )
{
    int n = 300;
    cJSON* json = cntRunFreeFall( "--steps 300" );
    double dt = FREE_FALL_DT;
    double g = FREE_FALL_GRAVITY;

    const cJSON* ball = cntBody( json, 1 );
    CNT_ASSERT_REL( cntComponent( ball, "position", 2 ), cntEulerPosition( 100.0, 2.0, g, dt, n ), 1e-12 );
    CNT_ASSERT_REL( cntComponent( ball, "linear_velocity", 2 ), 2.0 + n * g * dt, 1e-12 );
    CNT_ASSERT_REL( cntComponent( ball, "position", 0 ), n * dt * 1.5, 1e-12 );
    CNT_ASSERT_ABS( cntComponent( ball, "position", 1 ), 0.0, 0.0 );

    const cJSON* box = cntBody( json, 2 );
    CNT_ASSERT_REL( cntComponent( box, "position", 2 ), cntEulerPosition( 100.0, 0.0, g, dt, n ), 1e-12 );
    CNT_ASSERT_REL( cntComponent( box, "position", 0 ), 20.0, 1e-12 );
    CNT_ASSERT_REL( cntComponent( box, "angular_velocity", 2 ), 1.0, 1e-12 );
    cJSON_Delete( json );
}
END_TEST

START_TEST( set_gravity_changes_the_result )
{
    int n = 200;
    cJSON* json = cntRunFreeFall( "--steps 200 --set \"world.gravity=[0,0,-1]\"" );
    const cJSON* ball = cntBody( json, 1 );
    double z = cntComponent( ball, "position", 2 );
    CNT_ASSERT_REL( z, cntEulerPosition( 100.0, 2.0, -1.0, FREE_FALL_DT, n ), 1e-12 );
    CNT_ASSERT_ABS( cntComponent( ball, "linear_velocity", 2 ), 2.0 - n * FREE_FALL_DT, 1e-12 );
    // and it is not the default gravity's answer
    ck_assert( fabs( z - cntEulerPosition( 100.0, 2.0, FREE_FALL_GRAVITY, FREE_FALL_DT, n ) ) > 1.0 );
    cJSON_Delete( json );
}
END_TEST

START_TEST( dt_option_sets_the_time_step )
{
    int n = 250;
    double dt = 0.004;
    cJSON* json = cntRunFreeFall( "--steps 250 --dt 0.004" );
    ck_assert_double_eq( cntNumber( json, "dt" ), dt );
    CNT_ASSERT_REL( cntNumber( json, "simulated_time" ), n * dt, 1e-12 );
    CNT_ASSERT_REL( cntComponent( cntBody( json, 1 ), "position", 2 ),
                    cntEulerPosition( 100.0, 2.0, FREE_FALL_GRAVITY, dt, n ), 1e-12 );
    cJSON_Delete( json );
}
END_TEST

START_TEST( overrides_apply_in_command_line_order )
{
    // the later one wins
    cJSON* json = cntRunFreeFall( "--steps 10 --dt 0.02 --set world.dt=0.005" );
    ck_assert_double_eq( cntNumber( json, "dt" ), 0.005 );
    cJSON_Delete( json );
    json = cntRunFreeFall( "--steps 10 --set world.dt=0.005 --dt=0.02" );
    ck_assert_double_eq( cntNumber( json, "dt" ), 0.02 );
    cJSON_Delete( json );
}
END_TEST

START_TEST( solver_option_is_recorded )
{
    const char* report = cntWorkPath( 0, "solver_report.json" );
    cntCliRun run = cntRunCli( "run \"%s\" --steps 3 --solver psor --report \"%s\"",
                               cntDataPath( 0, "free_fall.json" ), report );
    ck_assert_msg( run.exitCode == 0, "exit code %d, stderr: %s", run.exitCode, run.err );
    ck_assert_msg( cntContains( run.out, ", solver psor: " ), "summary: %s", run.out );
    cntFreeCliRun( &run );

    cJSON* json = cntReadJson( report );
    ck_assert_ptr_nonnull( json );
    ck_assert_str_eq( cJSON_GetObjectItemCaseSensitive( json, "solver" )->valuestring, "psor" );
    cJSON_Delete( json );
}
END_TEST

START_TEST( zero_steps_report_the_loaded_state )
{
    cJSON* json = cntRunFreeFall( "--steps 0" );
    ck_assert_double_eq( cntNumber( json, "steps" ), 0.0 );
    ck_assert_double_eq( cntNumber( json, "simulated_time" ), 0.0 );
    ck_assert_double_eq( cntNumber( json, "wall_ms_per_step" ), 0.0 );
    // no step, no residual: null, never a bare NaN
    ck_assert( cJSON_IsNull( cJSON_GetObjectItemCaseSensitive( json, "residual_final" ) ) );
    ck_assert_double_eq( cntComponent( cntBody( json, 1 ), "position", 2 ), 100.0 );
    ck_assert_double_eq( cntComponent( cntBody( json, 1 ), "linear_velocity", 0 ), 1.5 );
    ck_assert_double_eq( cntNumber( json, "kinetic_energy_initial" ),
                         cntNumber( json, "kinetic_energy_final" ) );
    cJSON_Delete( json );
}
END_TEST

START_TEST( trace_has_one_row_per_step )
{
    const char* trace = cntWorkPath( 1, "trace.csv" );
    remove( trace );
    cntCliRun run =
        cntRunCli( "run \"%s\" --steps 57 --trace \"%s\"", cntDataPath( 0, "free_fall.json" ), trace );
    ck_assert_msg( run.exitCode == 0, "exit code %d, stderr: %s", run.exitCode, run.err );
    ck_assert_msg( run.err[0] == '\0', "stderr is not empty: %s", run.err );
    cntFreeCliRun( &run );

    char* text = cntReadFile( trace );
    ck_assert_ptr_nonnull( text );
    ck_assert_int_eq( cntCountLines( text ), 1 + 57 );

    const char* header = "step,time,contacts,iterations,residual,kinetic_energy,max_penetration,systems_ms,"
                         "predict_ms,collide_ms,integrate_ms,step_ms\n";
    ck_assert_msg( strncmp( text, header, strlen( header ) ) == 0, "header: %.200s", text );

    const char* line = text + strlen( header );
    double previousTime = 0.0;
    for ( int row = 1; row <= 57; ++row )
    {
        long long step = 0;
        double time = 0.0;
        int contacts = 0;
        int iterations = 0;
        double rest[8] = { 0 };
        int fields = sscanf( line, "%lld,%lf,%d,%d,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf", &step, &time, &contacts,
                             &iterations, rest + 0, rest + 1, rest + 2, rest + 3, rest + 4, rest + 5,
                             rest + 6, rest + 7 );
        ck_assert_msg( fields == 12, "row %d has %d fields: %.200s", row, fields, line );
        ck_assert_int_eq( step, row );
        ck_assert_msg( time > previousTime, "row %d: time %.17g after %.17g", row, time, previousTime );
        CNT_ASSERT_REL( time, row * FREE_FALL_DT, 1e-12 );
        ck_assert( rest[1] > 0.0 ); // kinetic energy of the falling bodies
        previousTime = time;
        line = strchr( line, '\n' ) + 1;
    }
    ck_assert_int_eq( *line, '\0' );
    free( text );
}
END_TEST

START_TEST( malformed_scene_exits_1_with_file_line_column )
{
    cntCliRun run = cntRunCli( "run \"%s\" --steps 10", cntDataPath( 0, "malformed.json" ) );
    ck_assert_int_eq( run.exitCode, 1 );
    ck_assert_msg( run.out[0] == '\0', "stdout: %s", run.out );
    // the missing comma: the parser stops at the next key, line 3
    ck_assert_msg( cntContains( run.err, "malformed.json:3:" ), "stderr: %s", run.err );
    cntFreeCliRun( &run );
}
END_TEST

START_TEST( invalid_scene_names_the_value )
{
    cntCliRun run = cntRunCli( "run \"%s\"", cntDataPath( 0, "bad_radius.json" ) );
    ck_assert_int_eq( run.exitCode, 1 );
    ck_assert_msg( cntContains( run.err, "bad_radius.json:5:" ), "stderr: %s", run.err );
    ck_assert_msg( cntContains( run.err, "bodies[0].shapes[0].radius" ), "stderr: %s", run.err );
    cntFreeCliRun( &run );
}
END_TEST

START_TEST( missing_scene_file_exits_1 )
{
    cntCliRun run = cntRunCli( "run \"%s\"", cntDataPath( 0, "no_such_scene.json" ) );
    ck_assert_int_eq( run.exitCode, 1 );
    ck_assert_msg( cntContains( run.err, "no_such_scene.json" ), "stderr: %s", run.err );
    cntFreeCliRun( &run );
}
END_TEST

START_TEST( bad_override_exits_1 )
{
    // well-formed on the command line, refused by the loader
    cntCliRun run = cntRunCli( "run \"%s\" --set world.dt=-1", cntDataPath( 0, "free_fall.json" ) );
    ck_assert_int_eq( run.exitCode, 1 );
    ck_assert_msg( cntContains( run.err, "world.dt" ), "stderr: %s", run.err );
    cntFreeCliRun( &run );
}
END_TEST

START_TEST( report_to_unwritable_path_exits_1 )
{
    cntCliRun run = cntRunCli( "run \"%s\" --steps 1 --report \"%s\"", cntDataPath( 0, "free_fall.json" ),
                               cntWorkPath( 0, "no_such_dir/report.json" ) );
    ck_assert_int_eq( run.exitCode, 1 );
    ck_assert_msg( cntContains( run.err, "no_such_dir/report.json" ), "stderr: %s", run.err );
    cntFreeCliRun( &run );
}
END_TEST

Suite* cntCliRunSuite( void )
{
    Suite* suite = suite_create( "cli_run" );

    TCase* report = tcase_create( "report" );
    tcase_add_test( report, summary_line_and_report_fields );
    tcase_add_test( report, final_state_is_bit_identical_to_in_process_run );
    tcase_add_test( report, overrides_are_bit_identical_to_in_process_run );
    tcase_add_loop_test( report, shipped_scenes_match_in_process_run, 0,
                         (int)( sizeof( cnt_shippedScenes ) / sizeof( cnt_shippedScenes[0] ) ) );
    tcase_add_test( report, free_fall_matches_semi_implicit_euler );
    tcase_add_test( report, set_gravity_changes_the_result );
    tcase_add_test( report, dt_option_sets_the_time_step );
    tcase_add_test( report, overrides_apply_in_command_line_order );
    tcase_add_test( report, solver_option_is_recorded );
    tcase_add_test( report, zero_steps_report_the_loaded_state );
    tcase_add_test( report, trace_has_one_row_per_step );
    suite_add_tcase( suite, report );

    TCase* failures = tcase_create( "failures" );
    tcase_add_test( failures, malformed_scene_exits_1_with_file_line_column );
    tcase_add_test( failures, invalid_scene_names_the_value );
    tcase_add_test( failures, missing_scene_file_exits_1 );
    tcase_add_test( failures, bad_override_exits_1 );
    tcase_add_test( failures, report_to_unwritable_path_exits_1 );
    suite_add_tcase( suite, failures );
    return suite;
}
