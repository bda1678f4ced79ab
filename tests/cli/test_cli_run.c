// SPDX-License-Identifier: MIT
// cairn run: the summary line, the report, the trace and the final state against an in-process
// run and against the closed form of semi-implicit Euler free fall; --param and
// world.solver.params; the rate limit on the world's log; --dump-problem, read back by cairn lcp.
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
// semi-implicit Euler over n steps of `substeps` substeps each (the report's "substeps": 2 for an
// inertial world by default): N = n substeps steps of h = dt / substeps
static double cntEulerPosition( double z0, double v0, double g, double dt, int n, int substeps )
{
    double h = dt / substeps;
    double count = (double)n * substeps;
    return z0 + count * h * v0 + g * h * h * count * ( count + 1.0 ) / 2.0;
}

// tests/../assets/scenes/NAME, in a static buffer
static const char* cntScenePath( const char* name )
{
    static char path[1024];
    snprintf( path, sizeof( path ), "%s/scenes/%s", CN_ASSETS_DIR, name );
    return path;
}

// Run `cairn run SCENE --report R EXTRA`; exit code 0 asserted; the report parsed. *run (nullable)
// keeps the run's output for the caller to free.
static cJSON* cntRunWithReport( const char* scene, const char* extra, cntCliRun* keep )
{
    const char* report = cntWorkPath( 5, "run_report.json" );
    remove( report );
    cntCliRun run = cntRunCli( "run \"%s\" --report \"%s\" %s", scene, report, extra );
    ck_assert_msg( run.exitCode == 0, "run %s %s: exit code %d, stderr: %s", scene, extra, run.exitCode,
                   run.err );
    cJSON* json = cntReadJson( report );
    ck_assert_msg( json != NULL, "the report %s is missing or not JSON", report );
    if ( keep != NULL )
    {
        *keep = run;
    }
    else
    {
        cntFreeCliRun( &run );
    }
    return json;
}

// A number, or NaN for null (the report's NaN).
static double cntNumberOrNaN( const cJSON* object, const char* key )
{
    const cJSON* item = cJSON_GetObjectItemCaseSensitive( object, key );
    ck_assert_msg( cJSON_IsNumber( item ) || cJSON_IsNull( item ), "report field '%s' is missing", key );
    return cJSON_IsNumber( item ) ? item->valuedouble : NAN;
}

static const cJSON* cntObject( const cJSON* object, const char* key )
{
    const cJSON* item = cJSON_GetObjectItemCaseSensitive( object, key );
    ck_assert_msg( cJSON_IsObject( item ), "'%s' is missing or not an object", key );
    return item;
}

static bool cntSame( double a, double b )
{
    return ( isnan( a ) && isnan( b ) ) || a == b;
}

// The end of a summary line: "N step(s) with warnings (name count, ...)" for the nonzero entries of
// the report's warning_counts (in its order, the warning bits' order), then the load warnings.
static void cntExpectedWarningSummary( const cJSON* report, char* buffer, size_t size )
{
    long long steps = (long long)cntNumber( report, "warning_count" );
    size_t used = (size_t)snprintf( buffer, size, "%lld step%s with warnings", steps, steps == 1 ? "" : "s" );
    const char* separator = " (";
    const cJSON* count = NULL;
    cJSON_ArrayForEach( count, cntObject( report, "warning_counts" ) )
    {
        if ( count->valuedouble > 0.0 )
        {
            used += (size_t)snprintf( buffer + used, size - used, "%s%s %lld", separator, count->string,
                                      (long long)count->valuedouble );
            separator = ", ";
        }
    }
    if ( separator[0] == ',' )
    {
        used += (size_t)snprintf( buffer + used, size - used, ")" );
    }
    long long load = (long long)cntNumber( report, "load_warning_count" );
    if ( load > 0 )
    {
        snprintf( buffer + used, size - used, ", %lld load warning%s", load, load == 1 ? "" : "s" );
    }
}

// The summary line ends with the warnings the report counts.
static void cntAssertSummaryWarnings( const char* out, const cJSON* report )
{
    char expected[512];
    cntExpectedWarningSummary( report, expected, sizeof( expected ) );
    char tail[600];
    snprintf( tail, sizeof( tail ), " J, %s\n", expected );
    size_t a = strlen( out );
    size_t b = strlen( tail );
    ck_assert_msg( a >= b && strcmp( out + a - b, tail ) == 0, "summary '%s' does not end with '%s'", out,
                   tail );
}

#define CNT_TRACE_HEADER                                                                                     \
    "step,time,contacts,iterations,residual,kinetic_energy,max_penetration,systems_ms,predict_ms,collide_"   \
    "ms,"                                                                                                    \
    "integrate_ms,step_ms,relax_iterations,merit_natural_map,merit_cone,violation_signorini,violation_"      \
    "coulomb,"                                                                                               \
    "violation_dissipation,solve_ms,solve_status,recursion_levels,recursion_rows,recursion_overlap,"         \
    "awake_bodies,sleeping_bodies,islands,island_ms,cpu_ms,energy_added,approach_energy,closing,approach,"   \
    "solve_outcome"
#define CNT_TRACE_FIELDS 33
// what a scene with a colony adds
#define CNT_TRACE_COLONY ",cells,generations,colony_radius,volume_fraction"

typedef struct cntTraceRow
{
    long long step;
    double time;
    int contacts;
    int iterations;
    double residual;
    double kineticEnergy;
    double maxPenetration;
    double ms[5]; // systems, predict, collide, integrate, step
    int relaxIterations;
    double merits[5]; // natural map, cone, Signorini, Coulomb, dissipation
    double solveMs;
    char status[32];
    int recursionLevels;
    int recursionRows;
    double recursionOverlap;
    int awakeBodies;
    int sleepingBodies;
    int islands;
    double islandMs;
    double cpuMs;
    double energyAdded;
    double approachEnergy;
    double closing;
    double approach;
    char outcome[16];
    // a colony's (cntReadTrace with colony true)
    int cells;
    int generations;
    double colonyRadius;
    double volumeFraction;
} cntTraceRow;

// The rows of a trace file (header checked: with the colony's columns when `colony`); returns how
// many, at most `capacity`.
static int cntReadTraceOf( const char* path, cntTraceRow* rows, int capacity, bool colony )
{
    char* text = cntReadFile( path );
    ck_assert_msg( text != NULL, "no trace %s", path );
    char header[1024];
    snprintf( header, sizeof( header ), "%s%s\n", CNT_TRACE_HEADER, colony ? CNT_TRACE_COLONY : "" );
    ck_assert_msg( strncmp( text, header, strlen( header ) ) == 0, "header: %.500s", text );
    const char* line = text + strlen( header );
    int count = 0;
    while ( *line != '\0' )
    {
        ck_assert_int_lt( count, capacity );
        cntTraceRow* r = rows + count;
        int used = 0;
        int fields = sscanf(
            line,
            "%lld,%lf,%d,%d,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%d,%lf,%lf,%lf,%lf,%lf,%lf,%31[^,\n],%d,%d,%lf,"
            "%d,%d,%d,%lf,%lf,%lf,%lf,%lf,%lf,%15[^,\n]%n",
            &r->step, &r->time, &r->contacts, &r->iterations, &r->residual, &r->kineticEnergy,
            &r->maxPenetration, r->ms + 0, r->ms + 1, r->ms + 2, r->ms + 3, r->ms + 4, &r->relaxIterations,
            r->merits + 0, r->merits + 1, r->merits + 2, r->merits + 3, r->merits + 4, &r->solveMs, r->status,
            &r->recursionLevels, &r->recursionRows, &r->recursionOverlap, &r->awakeBodies, &r->sleepingBodies,
            &r->islands, &r->islandMs, &r->cpuMs, &r->energyAdded, &r->approachEnergy, &r->closing,
            &r->approach, r->outcome, &used );
        ck_assert_msg( fields == CNT_TRACE_FIELDS, "row %d has %d fields: %.300s", count + 1, fields, line );
        if ( colony )
        {
            int more = sscanf( line + used, ",%d,%d,%lf,%lf", &r->cells, &r->generations, &r->colonyRadius,
                               &r->volumeFraction );
            ck_assert_msg( more == 4, "row %d has %d colony fields: %.300s", count + 1, more, line );
        }
        const char* end = strchr( line, '\n' );
        ck_assert_msg( end != NULL, "row %d is not ended", count + 1 );
        line = end + 1;
        count += 1;
    }
    free( text );
    return count;
}

static int cntReadTrace( const char* path, cntTraceRow* rows, int capacity )
{
    return cntReadTraceOf( path, rows, capacity, false );
}

static bool cntIsSolveStatusName( const char* name )
{
    for ( int i = 0; i < cn_solveStatusCount; ++i )
    {
        if ( strcmp( name, cnSolveStatusName( (cnSolveStatus)i ) ) == 0 )
        {
            return true;
        }
    }
    return false;
}

// How many lines of `text` contain `part`.
static int cntCountLinesWith( const char* text, const char* part )
{
    int count = 0;
    const char* line = text;
    while ( line != NULL && *line != '\0' )
    {
        const char* end = strchr( line, '\n' );
        size_t length = end != NULL ? (size_t)( end - line ) : strlen( line );
        const char* found = strstr( line, part );
        count += found != NULL && (size_t)( found - line ) < length ? 1 : 0;
        line = end != NULL ? end + 1 : NULL;
    }
    return count;
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
    ck_assert_msg( cntContains( run.out, " ms/step (cpu " ) && cntContains( run.out, " with warnings" ),
                   "summary: %s", run.out );
    long long summaryWarnings = -1;
    const char* energy = strstr( run.out, " J, " );
    ck_assert_msg( energy != NULL && sscanf( energy, " J, %lld step", &summaryWarnings ) == 1, "summary: %s",
                   run.out );

    cJSON* json = cntReadJson( report );
    ck_assert_ptr_nonnull( json );
    cntAssertSummaryWarnings( run.out, json );
    cntFreeCliRun( &run );
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
    // warnings: the summary counts steps that warned (and names their warnings); each entry names
    // its flags
    double warningCount = cntNumber( json, "warning_count" );
    ck_assert_double_eq( (double)summaryWarnings, warningCount );
    ck_assert_double_eq( cntNumber( json, "load_warning_count" ), 0.0 );
    // every warning the library names has a count, in bit order
    const cJSON* counts = cntObject( json, "warning_counts" );
    const cJSON* count = counts->child;
    for ( uint32_t bit = 0; bit < 32; ++bit )
    {
        const char* name = cnStepWarningName( 1u << bit );
        if ( name != NULL )
        {
            ck_assert_msg( count != NULL && strcmp( count->string, name ) == 0,
                           "warning_counts lacks %s in place", name );
            ck_assert( cJSON_IsNumber( count ) && count->valuedouble >= 0.0 &&
                       count->valuedouble <= warningCount );
            count = count->next;
        }
    }
    ck_assert_ptr_null( count );
    // no contacts in free fall: merits 0, no relax pass; and the world logged nothing
    ck_assert_double_eq( cntNumber( json, "relax_iterations_mean" ), 0.0 );
    const char* const merits[5] = { "merit_natural_map", "merit_cone", "violation_signorini",
                                    "violation_coulomb", "violation_dissipation" };
    for ( int k = 0; k < 5; ++k )
    {
        char key[64];
        snprintf( key, sizeof( key ), "%s_max", merits[k] );
        ck_assert_double_eq( cntNumber( json, merits[k] ), 0.0 );
        ck_assert_double_eq( cntNumber( json, key ), 0.0 );
    }
    ck_assert_double_eq( cntNumber( json, "log_line_count" ), 0.0 );
    ck_assert_double_eq( cntNumber( json, "log_lines_suppressed" ), 0.0 );
    // the solver's parameters as it ran: the scene's iteration count, the defaults of the rest
    const cJSON* params = cntObject( json, "solver_params" );
    ck_assert_double_eq( cntNumber( params, "iterations" ), 10.0 );
    ck_assert( cJSON_IsString( cJSON_GetObjectItemCaseSensitive( params, "kernel" ) ) );
    ck_assert( cJSON_IsBool( cJSON_GetObjectItemCaseSensitive( params, "warm_start" ) ) );
    ck_assert_ptr_null( cJSON_GetObjectItemCaseSensitive( json, "dump_problem" ) );
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

    int substeps = (int)cntNumber( json, "substeps" );
    ck_assert_int_eq( substeps, 2 );
    const cJSON* ball = cntBody( json, 1 );
    CNT_ASSERT_REL( cntComponent( ball, "position", 2 ), cntEulerPosition( 100.0, 2.0, g, dt, n, substeps ),
                    1e-12 );
    CNT_ASSERT_REL( cntComponent( ball, "linear_velocity", 2 ), 2.0 + n * g * dt, 1e-12 );
    CNT_ASSERT_REL( cntComponent( ball, "position", 0 ), n * dt * 1.5, 1e-12 );
    CNT_ASSERT_ABS( cntComponent( ball, "position", 1 ), 0.0, 0.0 );

    const cJSON* box = cntBody( json, 2 );
    CNT_ASSERT_REL( cntComponent( box, "position", 2 ), cntEulerPosition( 100.0, 0.0, g, dt, n, substeps ),
                    1e-12 );
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
    int substeps = (int)cntNumber( json, "substeps" );
    CNT_ASSERT_REL( z, cntEulerPosition( 100.0, 2.0, -1.0, FREE_FALL_DT, n, substeps ), 1e-12 );
    CNT_ASSERT_ABS( cntComponent( ball, "linear_velocity", 2 ), 2.0 - n * FREE_FALL_DT, 1e-12 );
    // and it is not the default gravity's answer
    ck_assert( fabs( z - cntEulerPosition( 100.0, 2.0, FREE_FALL_GRAVITY, FREE_FALL_DT, n, substeps ) ) >
               1.0 );
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
    CNT_ASSERT_REL(
        cntComponent( cntBody( json, 1 ), "position", 2 ),
        cntEulerPosition( 100.0, 2.0, FREE_FALL_GRAVITY, dt, n, (int)cntNumber( json, "substeps" ) ), 1e-12 );
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

// --threads: the report says how many workers ran and gives the same state hash for 1 and 2 (16 hex
// digits), a different one when the scene changes; bad counts are usage errors
START_TEST( threads_keep_the_state_hash )
{
    const char* scene = cntScenePath( "pyramid15_small.json" );
    cJSON* one = cntRunWithReport( scene, "--steps 30 --threads 1", NULL );
    cJSON* two = cntRunWithReport( scene, "--steps 30 --threads 2", NULL );
    cJSON* moved = cntRunWithReport( scene, "--steps 30 --threads 2 --set world.gravity=[0,0,-9.8]", NULL );
    ck_assert_double_eq( cntNumber( one, "threads" ), 1.0 );
    ck_assert_double_eq( cntNumber( two, "threads" ), 2.0 );
    const cJSON* hashOne = cJSON_GetObjectItemCaseSensitive( one, "state_hash" );
    const cJSON* hashTwo = cJSON_GetObjectItemCaseSensitive( two, "state_hash" );
    const cJSON* hashMoved = cJSON_GetObjectItemCaseSensitive( moved, "state_hash" );
    ck_assert( cJSON_IsString( hashOne ) && cJSON_IsString( hashTwo ) && cJSON_IsString( hashMoved ) );
    ck_assert_uint_eq( strlen( hashOne->valuestring ), 16 );
    ck_assert_uint_eq( strspn( hashOne->valuestring, "0123456789abcdef" ), 16 );
    ck_assert_str_eq( hashOne->valuestring, hashTwo->valuestring );
    ck_assert_str_ne( hashOne->valuestring, hashMoved->valuestring );
    cJSON_Delete( one );
    cJSON_Delete( two );
    cJSON_Delete( moved );

    const char* const bad[] = { "--threads 0", "--threads 65", "--threads two", "--threads 1.5" };
    for ( int i = 0; i < 4; ++i )
    {
        cntCliRun run = cntRunCli( "run \"%s\" --steps 1 %s", scene, bad[i] );
        ck_assert_msg( run.exitCode == 2, "'%s': exit code %d", bad[i], run.exitCode );
        ck_assert_msg( cntContains( run.err, "--threads" ), "'%s': stderr: %s", bad[i], run.err );
        cntFreeCliRun( &run );
    }
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
    // no step, no residual and no merits: null, never a bare NaN
    ck_assert( cJSON_IsNull( cJSON_GetObjectItemCaseSensitive( json, "residual_final" ) ) );
    ck_assert( cJSON_IsNull( cJSON_GetObjectItemCaseSensitive( json, "merit_natural_map" ) ) );
    ck_assert( cJSON_IsNull( cJSON_GetObjectItemCaseSensitive( json, "violation_dissipation_max" ) ) );
    ck_assert_double_eq( cntNumber( json, "relax_iterations_mean" ), 0.0 );
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
    free( text );

    cntTraceRow rows[57];
    ck_assert_int_eq( cntReadTrace( trace, rows, 57 ), 57 );
    double previousTime = 0.0;
    for ( int row = 1; row <= 57; ++row )
    {
        const cntTraceRow* r = rows + row - 1;
        ck_assert_int_eq( r->step, row );
        ck_assert_msg( r->time > previousTime, "row %d: time %.17g after %.17g", row, r->time, previousTime );
        CNT_ASSERT_REL( r->time, row * FREE_FALL_DT, 1e-12 );
        ck_assert( r->kineticEnergy > 0.0 ); // of the falling bodies
        // nothing touches: nothing solved
        ck_assert_int_eq( r->contacts, 0 );
        ck_assert_int_eq( r->relaxIterations, 0 );
        ck_assert_str_eq( r->status, "none" );
        ck_assert( r->solveMs >= 0.0 );
        ck_assert( r->cpuMs >= 0.0 );
        previousTime = r->time;
    }
}
END_TEST

// A scene with a colony: the trace's colony columns, and the report's "colony". One cell after one
// step has the closed forms of a single capsule of length l and radius r (the scene's seed grown):
// radius l / 2 about its own centre, volume fraction (2 r (l - 2 r) + pi r^2) / (pi l^2 / 4). Grown
// from one cell with synchronised divisions, the colony has 2^generations cells.
START_TEST( trace_and_report_have_the_colony )
{
    const char* trace = cntWorkPath( 1, "colony_trace.csv" );
    remove( trace );
    char extra[1200];
    snprintf( extra, sizeof( extra ), "--steps 1 --trace \"%s\"", trace );
    cJSON* json = cntRunWithReport( cntScenePath( "relcp_colony.json" ), extra, NULL );
    cntTraceRow rows[300];
    ck_assert_int_eq( cntReadTraceOf( trace, rows, 1, true ), 1 );
    // the scene's seed cell: radius 0.25, tip to tip 2, grown by exp(rate dt) = exp(0.01) in the step
    double r = 0.25;
    double l = 2.0 * exp( 0.01 );
    double fraction = ( 2.0 * r * ( l - 2.0 * r ) + CNT_PI * r * r ) / ( CNT_PI * l * l / 4.0 );
    ck_assert_int_eq( rows[0].cells, 1 );
    ck_assert_int_eq( rows[0].generations, 0 );
    CNT_ASSERT_REL( rows[0].colonyRadius, l / 2.0, 1e-14 );
    CNT_ASSERT_REL( rows[0].volumeFraction, fraction, 1e-14 );
    const cJSON* colony = cntObject( json, "colony" );
    ck_assert_double_eq( cntNumber( colony, "cells" ), 1.0 );
    CNT_ASSERT_REL( cntNumber( colony, "volume_fraction" ), fraction, 1e-14 );
    cJSON_Delete( json );

    // to 16 cells: every row 2^generations cells, all awake, the fraction in (0, 1), and the
    // report's colony the last row's
    snprintf( extra, sizeof( extra ), "--steps 300 --trace \"%s\"", trace );
    json = cntRunWithReport( cntScenePath( "relcp_colony.json" ), extra, NULL );
    ck_assert_int_eq( cntReadTraceOf( trace, rows, 300, true ), 300 );
    double cpu = 0.0;
    for ( int i = 0; i < 300; ++i )
    {
        const cntTraceRow* row = rows + i;
        ck_assert_msg( row->cells == 1 << row->generations, "step %d: %d cells in %d generations", i + 1,
                       row->cells, row->generations );
        ck_assert_int_eq( row->cells, row->awakeBodies );
        ck_assert_msg( row->volumeFraction > 0.0 && row->volumeFraction < 1.0, "step %d: fraction %g", i + 1,
                       row->volumeFraction );
        ck_assert( row->cpuMs >= 0.0 );
        cpu += row->cpuMs;
    }
    ck_assert_int_ge( rows[299].cells, 16 );
    colony = cntObject( json, "colony" );
    ck_assert_double_eq( cntNumber( colony, "cells" ), (double)rows[299].cells );
    ck_assert_double_eq( cntNumber( colony, "generations" ), (double)rows[299].generations );
    ck_assert_double_eq( cntNumber( colony, "radius" ), rows[299].colonyRadius );
    ck_assert_double_eq( cntNumber( colony, "volume_fraction" ), rows[299].volumeFraction );
    // the report's CPU per step is the trace's steps' (printed to 6 digits)
    CNT_ASSERT_REL( cntNumber( json, "cpu_ms_per_step" ), cpu / 300.0, 1e-4 );
    cJSON_Delete( json );
}
END_TEST

// A resting tower: the report's merits are the trace's last row, its maxima the trace's maxima,
// its means the trace's means.
START_TEST( report_merits_match_the_trace )
{
    const char* trace = cntWorkPath( 1, "tower_trace.csv" );
    remove( trace );
    char extra[1200];
    snprintf( extra, sizeof( extra ), "--steps 40 --trace \"%s\"", trace );
    cntCliRun run;
    cJSON* json = cntRunWithReport( cntScenePath( "tower10.json" ), extra, &run );
    ck_assert_msg( run.err[0] == '\0', "stderr: %s", run.err );
    cntAssertSummaryWarnings( run.out, json );
    cntFreeCliRun( &run );

    cntTraceRow rows[40];
    ck_assert_int_eq( cntReadTrace( trace, rows, 40 ), 40 );
    const char* const merits[5] = { "merit_natural_map", "merit_cone", "violation_signorini",
                                    "violation_coulomb", "violation_dissipation" };
    double maxima[5] = { NAN, NAN, NAN, NAN, NAN };
    double iterations = 0.0;
    double relax = 0.0;
    // tower10.json sets none: the default budget in each of the default 2 substeps
    int relaxBudget = cnDefaultWorldDef().relaxIterations * (int)cntNumber( json, "substeps" );
    for ( int i = 0; i < 40; ++i )
    {
        const cntTraceRow* r = rows + i;
        ck_assert_msg( r->contacts > 0, "step %d: the tower stands on the ground", i + 1 );
        ck_assert_msg( cntIsSolveStatusName( r->status ), "step %d: solve status '%s'", i + 1, r->status );
        ck_assert( r->relaxIterations >= 0 && r->relaxIterations <= relaxBudget );
        for ( int k = 0; k < 5; ++k )
        {
            ck_assert_msg( r->merits[k] >= 0.0 && isfinite( r->merits[k] ), "step %d %s: %g", i + 1,
                           merits[k], r->merits[k] );
            maxima[k] = fmax( maxima[k], r->merits[k] );
        }
        iterations += r->iterations;
        relax += r->relaxIterations;
        // the layer's physics test: a resting tower's contacts take the step's gravity out (energy
        // added below zero; the bottom box's approach has energy), close no contact faster than it
        // approached, and the solve is applied as it is
        ck_assert_msg( r->energyAdded < 0.0 && r->approachEnergy > 0.0, "step %d: %g J added, approach %g J",
                       i + 1, r->energyAdded, r->approachEnergy );
        ck_assert_msg( r->approach > 0.0 && r->closing >= 0.0 && r->closing <= 1e-3 + 0.25 * r->approach,
                       "step %d: closing %g m/s at approach %g m/s", i + 1, r->closing, r->approach );
        ck_assert_str_eq( r->outcome, "applied" );
    }
    for ( int k = 0; k < 5; ++k )
    {
        char key[64];
        snprintf( key, sizeof( key ), "%s_max", merits[k] );
        double last = cntNumberOrNaN( json, merits[k] );
        double max = cntNumberOrNaN( json, key );
        ck_assert_msg( cntSame( last, rows[39].merits[k] ), "%s: report %.17g, trace %.17g", merits[k], last,
                       rows[39].merits[k] );
        ck_assert_msg( cntSame( max, maxima[k] ), "%s: report %.17g, trace %.17g", key, max, maxima[k] );
    }
    // the merits mean something: a standing tower's are not all zero over 40 steps
    ck_assert( maxima[0] > 0.0 );
    ck_assert_double_eq( cntNumber( json, "iterations_mean" ), iterations / 40.0 );
    ck_assert_double_eq( cntNumber( json, "relax_iterations_mean" ), relax / 40.0 );
    ck_assert( relax > 0.0 ); // the boxes sink into their soft contacts: relax passes ran
    cJSON_Delete( json );
}
END_TEST

// ---------------------------------------------------------------------------------------------
// --param and world.solver.params

START_TEST( param_reaches_the_solver )
{
    // tolerance 0 runs the whole budget: 3 sweeps in every main pass, of each substep
    cJSON* json =
        cntRunWithReport( cntScenePath( "tower10.json" ),
                          "--steps 10 --param iterations=3 --param tolerance=0 --param kernel=reference "
                          "--param warm_start=false",
                          NULL );
    const cJSON* params = cntObject( json, "solver_params" );
    ck_assert_double_eq( cntNumber( params, "iterations" ), 3.0 );
    ck_assert_double_eq( cntNumber( params, "tolerance" ), 0.0 );
    ck_assert_str_eq( cJSON_GetObjectItemCaseSensitive( params, "kernel" )->valuestring, "reference" );
    ck_assert( cJSON_IsFalse( cJSON_GetObjectItemCaseSensitive( params, "warm_start" ) ) );
    ck_assert_double_eq( cntNumber( json, "iterations_mean" ), 3.0 * cntNumber( json, "substeps" ) );
    cJSON_Delete( json );

    // a later --param of the same name wins
    json = cntRunWithReport( cntScenePath( "tower10.json" ),
                             "--steps 2 --param iterations=3 --param iterations=4", NULL );
    ck_assert_double_eq( cntNumber( cntObject( json, "solver_params" ), "iterations" ), 4.0 );
    cJSON_Delete( json );
}
END_TEST

START_TEST( param_applies_to_the_solver_after_solver_option )
{
    // wherever --param stands, it applies to the solver --solver chose (psor's relaxation is 1.4)
    const char* const orders[2] = { "--steps 2 --solver psor --param relaxation=1.1",
                                    "--steps 2 --param relaxation=1.1 --solver psor" };
    for ( int i = 0; i < 2; ++i )
    {
        cJSON* json = cntRunWithReport( cntDataPath( 0, "box_on_ground.json" ), orders[i], NULL );
        ck_assert_str_eq( cJSON_GetObjectItemCaseSensitive( json, "solver" )->valuestring, "psor" );
        ck_assert_double_eq( cntNumber( cntObject( json, "solver_params" ), "relaxation" ), 1.1 );
        cJSON_Delete( json );
    }
}
END_TEST

typedef struct cntBadParam
{
    const char* options;
    // each must be in stderr
    const char* says[4];
} cntBadParam;

static const cntBadParam cnt_badParams[] = {
    { "--param omega=1.5",
      { "--param omega=1.5", "solver 'pgs' has no parameter 'omega'", "iterations, tolerance,",
        "divergence_factor" } },
    { "--param kernel=slow",
      { "--param kernel=slow", "fast, reference", "solver 'pgs'", "relaxation, kernel" } },
    { "--param iterations=0", { "iterations", "outside", "solver 'pgs'", "warm_start" } },
    { "--param iterations=2.5", { "iterations", "whole", "solver 'pgs'", "warm_start" } },
    { "--param warm_start=maybe", { "warm_start", "maybe", "solver 'pgs'", "kernel" } },
    { "--param tolerance=", { "tolerance", "expected a number", "solver 'pgs'", "kernel" } },
    { "--solver lemke --param kernel=fast",
      { "solver 'lemke' has no parameter 'kernel'", "iterations, pivot_tolerance, warm_start", NULL, NULL } },
    // not NAME=VALUE: refused before the scene is read
    { "--param iterations", { "--param expects NAME=VALUE", NULL, NULL, NULL } },
    { "--param =3", { "--param expects NAME=VALUE", NULL, NULL, NULL } },
    { "--param", { "needs a value", NULL, NULL, NULL } },
};

START_TEST( bad_param_is_a_usage_error )
{
    const cntBadParam* bad = cnt_badParams + _i;
    cntCliRun run =
        cntRunCli( "run \"%s\" --steps 3 %s", cntDataPath( 0, "box_on_ground.json" ), bad->options );
    ck_assert_msg( run.exitCode == 2, "'%s': exit code %d, stderr: %s", bad->options, run.exitCode, run.err );
    ck_assert_msg( run.out[0] == '\0', "'%s': stdout: %s", bad->options, run.out );
    for ( int i = 0; i < 4 && bad->says[i] != NULL; ++i )
    {
        ck_assert_msg( cntContains( run.err, bad->says[i] ), "'%s': stderr does not say '%s': %s",
                       bad->options, bad->says[i], run.err );
    }
    cntFreeCliRun( &run );
}
END_TEST

START_TEST( scene_params_through_set )
{
    cJSON* json = cntRunWithReport(
        cntDataPath( 0, "box_on_ground.json" ),
        "--steps 2 --set world.solver.params.kernel=reference --set world.solver.params.iterations=7", NULL );
    const cJSON* params = cntObject( json, "solver_params" );
    ck_assert_str_eq( cJSON_GetObjectItemCaseSensitive( params, "kernel" )->valuestring, "reference" );
    ck_assert_double_eq( cntNumber( params, "iterations" ), 7.0 );
    cJSON_Delete( json );

    // an unknown parameter is a load error (exit 1) at the override, not a warning
    cntCliRun run = cntRunCli( "run \"%s\" --steps 2 --set world.solver.params.omega=1",
                               cntDataPath( 0, "box_on_ground.json" ) );
    ck_assert_int_eq( run.exitCode, 1 );
    ck_assert_msg( cntContains( run.err,
                                "<--set world.solver.params.omega=1>: world.solver.params.omega: solver "
                                "\"pgs\" has no parameter \"omega\"" ),
                   "stderr: %s", run.err );
    cntFreeCliRun( &run );
}
END_TEST

// sleeping is implemented: no warning, and the report counts the sleeping bodies and the islands
START_TEST( sleeping_scene_runs_quietly )
{
    cntCliRun run;
    cJSON* json =
        cntRunWithReport( cntDataPath( 0, "free_fall.json" ), "--steps 2 --set world.sleeping=true", &run );
    ck_assert_msg( cntContains( run.err, "sleeping" ) == false, "stderr: %s", run.err );
    ck_assert_double_eq( cntNumber( json, "load_warning_count" ), 0.0 );
    ck_assert_double_eq( cntNumber( json, "log_line_count" ), 0.0 );
    // two falling bodies, far apart: awake, an island each
    ck_assert_double_eq( cntNumber( json, "awake_bodies" ), 2.0 );
    ck_assert_double_eq( cntNumber( json, "sleeping_bodies" ), 0.0 );
    ck_assert_double_eq( cntNumber( json, "islands" ), 2.0 );
    ck_assert_double_eq( cntNumber( json, "sleeping_islands" ), 0.0 );
    ck_assert( cntNumber( json, "island_ms_mean" ) >= 0.0 );
    cntAssertSummaryWarnings( run.out, json );
    cntFreeCliRun( &run );
    cJSON_Delete( json );
}
END_TEST

// ---------------------------------------------------------------------------------------------
// warnings on the summary line, and the world's log rate-limited

START_TEST( summary_names_warnings_with_counts )
{
    // pgj over-relaxed twice over: every step diverges (and keeps its velocities); on one, a pass
    // it did finish failed the physics test and the fallback sweeps' answer was applied
    cntCliRun run;
    cJSON* json = cntRunWithReport( cntScenePath( "tower10.json" ),
                                    "--steps 12 --solver pgj --param relaxation=2", &run );
    ck_assert_msg(
        cntContains( run.out, " J, 12 steps with warnings (solver_diverged 12, solver_replaced 1)\n" ),
        "summary: %s", run.out );
    ck_assert_double_eq( cntNumber( cntObject( json, "warning_counts" ), "solver_diverged" ), 12.0 );
    ck_assert_double_eq( cntNumber( json, "warning_count" ), 12.0 );
    cntAssertSummaryWarnings( run.out, json );
    cntFreeCliRun( &run );
    cJSON_Delete( json );

    // a solver without friction rows on a scene with friction: said on the one line
    json = cntRunWithReport( cntScenePath( "tower10.json" ), "--steps 6 --solver lemke", &run );
    ck_assert_msg( cntContains( run.out, "friction_dropped 6" ), "summary: %s", run.out );
    ck_assert_double_eq( cntNumber( cntObject( json, "warning_counts" ), "friction_dropped" ), 6.0 );
    cntAssertSummaryWarnings( run.out, json );
    cntFreeCliRun( &run );
    cJSON_Delete( json );
}
END_TEST

START_TEST( repeated_log_lines_are_rate_limited )
{
    cntCliRun run;
    // one substep a step, so that each step whose solve diverges logs one line of that kind; which
    // steps do is read from the trace (the first, from lambda = 0, returns its settled iterate)
    const char* trace = cntWorkPath( 1, "rate_trace.csv" );
    remove( trace );
    char extra[512];
    snprintf( extra, sizeof( extra ),
              "--steps 40 --set world.substeps=1 --solver pgj --param relaxation=2 --trace \"%s\"", trace );
    cJSON* json = cntRunWithReport( cntScenePath( "tower10.json" ), extra, &run );
    static cntTraceRow rows[40];
    ck_assert_int_eq( cntReadTrace( trace, rows, 40 ), 40 );
    int diverged[40];
    int divergedCount = 0;
    for ( int i = 0; i < 40; ++i )
    {
        if ( strcmp( rows[i].status, "diverged" ) == 0 )
        {
            diverged[divergedCount++] = (int)rows[i].step;
        }
    }
    ck_assert_msg( divergedCount > 10, "only %d steps diverged", divergedCount );
    ck_assert_double_eq( cntNumber( cntObject( json, "warning_counts" ), "solver_diverged" ), divergedCount );
    // the first five of the kind, one line saying that more are counted, nothing after the fifth
    // (the line that says more are counted names the kind with "#" for the numbers)
    int printed = cntCountLinesWith( run.err, "ended 'diverged'; its 10 bodies" );
    ck_assert_msg( printed == 5, "%d printed: stderr: %s", printed, run.err );
    for ( int k = 0; k < 6; ++k )
    {
        char line[128];
        snprintf( line, sizeof( line ), "cairn: warning: step %d: solver 'pgj' ended 'diverged'; its",
                  diverged[k] );
        ck_assert_msg( cntContains( run.err, line ) == ( k < 5 ), "step %d: stderr: %s", diverged[k],
                       run.err );
    }
    // (the soft passes that diverge, after steps the physics test replaced, are a kind of their own)
    ck_assert_msg( cntCountLinesWith( run.err,
                                      "ended 'diverged'; its # bodies kept their velocities this step\" "
                                      "are counted, not printed" ) == 1,
                   "stderr: %s", run.err );
    // every line is still counted: those printed plus those held back
    int logged = (int)cntNumber( json, "log_line_count" );
    int suppressed = (int)cntNumber( json, "log_lines_suppressed" );
    ck_assert_int_ge( logged, divergedCount );
    ck_assert_int_eq( suppressed, logged - cntCountLinesWith( run.err, "cairn: warning: step " ) );
    ck_assert_int_ge( suppressed, divergedCount - 5 );
    char tail[128];
    snprintf( tail, sizeof( tail ), "cairn run: %d repeated log lines not printed", suppressed );
    ck_assert_msg( cntContains( run.err, tail ), "stderr: %s", run.err );
    cntFreeCliRun( &run );
    cJSON_Delete( json );

    // at the limit nothing is held back, and nothing says so: the same run up to its fifth diverged step
    snprintf( extra, sizeof( extra ), "--steps %d --set world.substeps=1 --solver pgj --param relaxation=2",
              diverged[4] );
    json = cntRunWithReport( cntScenePath( "tower10.json" ), extra, &run );
    ck_assert_int_eq( cntCountLinesWith( run.err, "ended 'diverged'; its 10 bodies" ), 5 );
    ck_assert_int_eq( cntCountLinesWith( run.err, "are counted, not printed" ), 0 );
    ck_assert_int_eq( cntCountLines( run.err ), cntCountLinesWith( run.err, "cairn: warning: step " ) );
    ck_assert_double_eq( cntNumber( json, "log_lines_suppressed" ), 0.0 );
    cntFreeCliRun( &run );
    cJSON_Delete( json );

    // one kind whatever the numbers look like ("0", "0.0257", "2.22e-05", "-224"): pgj at 5 sweeps on
    // the tall tower says solver_inaccurate with energies and speeds of every form, in two kinds (the
    // answers it kept, and those the fallback sweeps replaced and that still fail)
    json = cntRunWithReport( cntScenePath( "tall_tower.json" ),
                             "--steps 600 --solver pgj --param iterations=5", &run );
    ck_assert_int_gt( (int)cntNumber( cntObject( json, "warning_counts" ), "solver_inaccurate" ), 10 );
    ck_assert_msg( cntCountLinesWith( run.err, "cairn: warning: step " ) == 10, "stderr: %s", run.err );
    ck_assert_msg( cntCountLinesWith( run.err, "like \"step #: after solver 'pgj' (max_iterations) the" ) ==
                       1,
                   "stderr: %s", run.err );
    ck_assert_int_eq( cntCountLinesWith( run.err, "are counted, not printed" ), 2 );
    cntFreeCliRun( &run );
    cJSON_Delete( json );
}
END_TEST

// ---------------------------------------------------------------------------------------------
// --dump-problem

// The problem of step 30 of a resting tower, dumped, then read back by `cairn lcp`: the same solver
// with the same iteration count from the file's start impulses gives the world's impulses, and
// every registered solver runs on it. Needs cnWriteProblemFile (solvers/lcp_io.c) and cairn lcp's
// start and reference blocks; it fails, with their message, until both exist.
START_TEST( dumped_problem_resolves_to_the_world_impulses )
{
    const char* problem = cntWorkPath( 1, "tower10_step30.dat" );
    const char* trace = cntWorkPath( 2, "tower10_dump_trace.csv" );
    remove( problem );
    char extra[1200];
    snprintf( extra, sizeof( extra ), "--steps 30 --dump-problem 30 \"%s\" --trace \"%s\"", problem, trace );
    const char* report = cntWorkPath( 5, "run_report.json" );
    remove( report );
    cntCliRun run =
        cntRunCli( "run \"%s\" --report \"%s\" %s", cntScenePath( "tower10.json" ), report, extra );
    ck_assert_msg( run.exitCode == 0,
                   "cairn run --dump-problem 30 FILE: exit code %d (expected 0), stderr: %s", run.exitCode,
                   run.err );
    cntFreeCliRun( &run );
    cJSON* json = cntReadJson( report );
    ck_assert_ptr_nonnull( json );

    const cJSON* dump = cntObject( json, "dump_problem" );
    ck_assert_double_eq( cntNumber( dump, "step" ), 30.0 );
    ck_assert_str_eq( cJSON_GetObjectItemCaseSensitive( dump, "file" )->valuestring, problem );
    // one final pass per substep; the file holds the last substep's
    int substeps = (int)cntNumber( json, "substeps" );
    ck_assert_double_eq( cntNumber( dump, "solves" ), (double)substeps );
    int rows = (int)cntNumber( dump, "rows" );
    ck_assert_int_gt( rows, 0 );
    ck_assert_int_eq( rows, 3 * (int)cntNumber( dump, "groups" ) ); // contacts with friction: FC3D
    int iterations = (int)cntNumber( dump, "final_pass_iterations" );
    int stepIterations = (int)cntNumber( dump, "step_iterations" );
    int stepRelax = (int)cntNumber( dump, "step_relax_iterations" );
    double tolerance = cntNumber( cntObject( json, "solver_params" ), "tolerance" );

    // which pass was the final one: the step report says (the trace's row 30 is that step's report)
    cntTraceRow traceRows[30];
    ck_assert_int_eq( cntReadTrace( trace, traceRows, 30 ), 30 );
    ck_assert_int_eq( traceRows[29].iterations, stepIterations );
    ck_assert_int_eq( traceRows[29].relaxIterations, stepRelax );
    cnSceneOptions options = cnDefaultSceneOptions();
    cnScene scene = { 0 };
    cnSceneError error = { 0 };
    ck_assert_msg( cnLoadSceneFile( cntScenePath( "tower10.json" ), &options, &scene, &error ) == cn_statusOk,
                   "%s", error.text );
    cnWorldDef def = cnWorld_GetDef( scene.worldId );
    cnDestroyWorld( scene.worldId );
    // the step's counts add up the substeps
    if ( stepRelax > 0 )
    {
        // a soft pass, then the relax pass from its impulses with the world's relax budget
        ck_assert_int_le( iterations, stepRelax );
        ck_assert_int_le( iterations, def.relaxIterations );
    }
    else
    {
        // one pass with the full budget
        ck_assert_int_le( iterations, stepIterations );
        ck_assert_int_le( iterations, def.solver.iterations );
    }
    ck_assert_int_ge( iterations, 1 );

    // the same solver with the same budget, from the file's start block
    const char* out = cntWorkPath( 3, "tower10_step30_pgs.json" );
    remove( out );
    run = cntRunCli( "lcp \"%s\" --solver pgs --max-iter %d --tol %.17g --out \"%s\"", problem, iterations,
                     tolerance, out );
    ck_assert_msg( run.exitCode == 0, "cairn lcp on the dumped problem: exit code %d, stderr: %s",
                   run.exitCode, run.err );
    cntFreeCliRun( &run );
    cJSON* solved = cntReadJson( out );
    ck_assert_ptr_nonnull( solved );
    ck_assert_double_eq( cntNumber( solved, "rows" ), (double)rows );
    const cJSON* difference = cJSON_GetObjectItemCaseSensitive( solved, "reference_max_difference" );
    ck_assert_msg(
        cJSON_IsNumber( difference ),
        "cairn lcp reports no reference_max_difference for a file with start and reference blocks" );
    ck_assert_msg( difference->valuedouble <= 1e-10,
                   "pgs with %d iterations from the start: %.3g from the world's impulses", iterations,
                   difference->valuedouble );
    cJSON_Delete( solved );

    // every registered solver runs on it, whatever its status
    run = cntRunCli( "solvers --json" );
    ck_assert_int_eq( run.exitCode, 0 );
    cJSON* list = cJSON_Parse( run.out );
    cntFreeCliRun( &run );
    const cJSON* solvers = cJSON_GetObjectItemCaseSensitive( list, "solvers" );
    ck_assert( cJSON_IsArray( solvers ) && cJSON_GetArraySize( solvers ) > 0 );
    int ran = 0;
    const cJSON* solver = NULL;
    cJSON_ArrayForEach( solver, solvers )
    {
        const char* name = cJSON_GetObjectItemCaseSensitive( solver, "name" )->valuestring;
        if ( cJSON_IsFalse( cJSON_GetObjectItemCaseSensitive( solver, "available" ) ) )
        {
            continue; // no solve function in this build: cairn lcp refuses it (exit 1)
        }
        remove( out );
        run = cntRunCli( "lcp \"%s\" --solver %s --out \"%s\"", problem, name, out );
        ck_assert_msg( run.exitCode == 0,
                       "cairn lcp --solver %s on the dumped problem: exit code %d, stderr: %s", name,
                       run.exitCode, run.err );
        cntFreeCliRun( &run );
        cJSON* result = cntReadJson( out );
        ck_assert_msg( result != NULL, "%s: no output", name );
        ck_assert_msg( cJSON_IsString( cJSON_GetObjectItemCaseSensitive( result, "status" ) ),
                       "%s: no status", name );
        cJSON_Delete( result );
        ran += 1;
    }
    ck_assert_int_gt( ran, 0 );
    cJSON_Delete( list );
    cJSON_Delete( json );
}
END_TEST

// A frictionless problem from an ellipsoid pile (bbpgd takes no friction rows: the world feeds it
// normals only), dumped at step 60 and solved from the file by relcp (no oracle in a file: one
// solve of its inner solver, bbpgd) and by bbpgd itself, to the tolerance asked.
START_TEST( relcp_and_bbpgd_solve_a_dumped_ellipsoid_pile )
{
    const char* problem = cntWorkPath( 1, "ellipsoid_pile_step60.dat" );
    remove( problem );
    cntCliRun run = cntRunCli( "run \"%s\" --steps 60 --solver bbpgd --dump-problem 60 \"%s\"",
                               cntScenePath( "ellipsoid_pile500.json" ), problem );
    ck_assert_msg( run.exitCode == 0, "cairn run: exit code %d, stderr: %s", run.exitCode, run.err );
    cntFreeCliRun( &run );
    const char* solvers[2] = { "relcp", "bbpgd" };
    for ( int k = 0; k < 2; ++k )
    {
        const char* out = cntWorkPath( 3, "ellipsoid_pile_step60_solved.json" );
        remove( out );
        run = cntRunCli( "lcp \"%s\" --solver %s --tol 1e-6 --out \"%s\"", problem, solvers[k], out );
        ck_assert_msg( run.exitCode == 0, "cairn lcp --solver %s: exit code %d, stderr: %s", solvers[k],
                       run.exitCode, run.err );
        cntFreeCliRun( &run );
        cJSON* solved = cntReadJson( out );
        ck_assert_ptr_nonnull( solved );
        const cJSON* status = cJSON_GetObjectItemCaseSensitive( solved, "status" );
        ck_assert( cJSON_IsString( status ) );
        ck_assert_msg( strcmp( status->valuestring, "converged" ) == 0, "%s: %s", solvers[k],
                       status->valuestring );
        ck_assert_int_gt( (int)cntNumber( solved, "rows" ), 500 );
        ck_assert_msg( cntNumber( solved, "residual" ) <= 1e-6, "%s: residual %.3g", solvers[k],
                       cntNumber( solved, "residual" ) );
        cJSON_Delete( solved );
    }
}
END_TEST

START_TEST( dump_problem_without_contacts_exits_1 )
{
    // free fall from 100 m: nothing touches at step 2
    const char* problem = cntWorkPath( 1, "free_fall_step2.dat" );
    const char* report = cntWorkPath( 2, "free_fall_dump_report.json" );
    remove( problem );
    remove( report );
    cntCliRun run = cntRunCli( "run \"%s\" --steps 3 --dump-problem 2 \"%s\" --report \"%s\"",
                               cntDataPath( 0, "free_fall.json" ), problem, report );
    ck_assert_int_eq( run.exitCode, 1 );
    ck_assert_msg( cntContains( run.err, "--dump-problem: step 2 solved no contact problem" ), "stderr: %s",
                   run.err );
    ck_assert_ptr_null( cntReadFile( problem ) );
    ck_assert_ptr_null( cntReadFile( report ) ); // the run stopped there
    cntFreeCliRun( &run );
}
END_TEST

START_TEST( dump_problem_to_unwritable_path_exits_1 )
{
    const char* problem = cntWorkPath( 1, "no_such_dir/tower.dat" );
    cntCliRun run =
        cntRunCli( "run \"%s\" --steps 3 --dump-problem 3 \"%s\"", cntScenePath( "tower10.json" ), problem );
    ck_assert_int_eq( run.exitCode, 1 );
    ck_assert_msg( cntContains( run.err, "--dump-problem: cannot write the problem of step 3 to " ) &&
                       cntContains( run.err, "no_such_dir/tower.dat" ),
                   "stderr: %s", run.err );
    ck_assert_msg( run.out[0] == '\0', "stdout: %s", run.out );
    cntFreeCliRun( &run );
}
END_TEST

typedef struct cntBadDump
{
    const char* options;
    const char* says;
} cntBadDump;

static const cntBadDump cnt_badDumps[] = {
    { "--steps 5 --dump-problem 6 x.dat", "--dump-problem step 6 is beyond the run's 5 steps" },
    // the default run is 600 steps
    { "--dump-problem 601 x.dat", "--dump-problem step 601 is beyond the run's 600 steps" },
    { "--dump-problem 0 x.dat", "STEP an integer >= 1" },
    { "--dump-problem -1 x.dat", "STEP an integer >= 1" },
    { "--dump-problem ten x.dat", "STEP an integer >= 1" },
    { "--dump-problem 3", "no FILE after 3" },
    { "--dump-problem 3 --steps 5", "'--steps' after 3 looks like an option" },
    { "--dump-problem", "needs a value" },
};

START_TEST( bad_dump_problem_is_a_usage_error )
{
    const cntBadDump* bad = cnt_badDumps + _i;
    cntCliRun run = cntRunCli( "run \"%s\" %s", cntDataPath( 0, "box_on_ground.json" ), bad->options );
    ck_assert_msg( run.exitCode == 2, "'%s': exit code %d, stderr: %s", bad->options, run.exitCode, run.err );
    ck_assert_msg( cntContains( run.err, bad->says ), "'%s': stderr does not say '%s': %s", bad->options,
                   bad->says, run.err );
    ck_assert_msg( run.out[0] == '\0', "'%s': stdout: %s", bad->options, run.out );
    cntFreeCliRun( &run );
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
    tcase_add_test( report, threads_keep_the_state_hash );
    tcase_add_test( report, zero_steps_report_the_loaded_state );
    tcase_add_test( report, trace_has_one_row_per_step );
    tcase_add_test( report, trace_and_report_have_the_colony );
    tcase_add_test( report, report_merits_match_the_trace );
    suite_add_tcase( suite, report );

    TCase* params = tcase_create( "params" );
    tcase_add_test( params, param_reaches_the_solver );
    tcase_add_test( params, param_applies_to_the_solver_after_solver_option );
    tcase_add_loop_test( params, bad_param_is_a_usage_error, 0,
                         (int)( sizeof( cnt_badParams ) / sizeof( cnt_badParams[0] ) ) );
    tcase_add_test( params, scene_params_through_set );
    tcase_add_test( params, sleeping_scene_runs_quietly );
    suite_add_tcase( suite, params );

    TCase* warnings = tcase_create( "warnings" );
    tcase_add_test( warnings, summary_names_warnings_with_counts );
    tcase_add_test( warnings, repeated_log_lines_are_rate_limited );
    suite_add_tcase( suite, warnings );

    TCase* dump = tcase_create( "dump_problem" );
    tcase_set_timeout( dump, 60 );
    tcase_add_test( dump, dumped_problem_resolves_to_the_world_impulses );
    tcase_add_test( dump, relcp_and_bbpgd_solve_a_dumped_ellipsoid_pile );
    tcase_add_test( dump, dump_problem_without_contacts_exits_1 );
    tcase_add_test( dump, dump_problem_to_unwritable_path_exits_1 );
    tcase_add_loop_test( dump, bad_dump_problem_is_a_usage_error, 0,
                         (int)( sizeof( cnt_badDumps ) / sizeof( cnt_badDumps[0] ) ) );
    suite_add_tcase( suite, dump );

    TCase* failures = tcase_create( "failures" );
    tcase_add_test( failures, malformed_scene_exits_1_with_file_line_column );
    tcase_add_test( failures, invalid_scene_names_the_value );
    tcase_add_test( failures, missing_scene_file_exits_1 );
    tcase_add_test( failures, bad_override_exits_1 );
    tcase_add_test( failures, report_to_unwritable_path_exits_1 );
    suite_add_tcase( suite, failures );
    return suite;
}
