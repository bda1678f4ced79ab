// SPDX-License-Identifier: MIT
// Solver benchmark on the engine's own contact problems, through the public API only. For each
// scene and each registered solver that takes matrix-free problems: load the scene, step it with
// the scene's solver (pgs) for a settling time, swap to the solver under test, cold start it
// (warm_start 0, tolerance 0, so the residual curve is its own) and solve ONE step with an
// iteration limit k, reading the step report. Every (solver, k) pair gets a fresh load and settle,
// so all of them solve the same problem. A direct solver (lemke) runs once. A third table shows
// what warm starting buys at 10 iterations over a few steps, a fourth what one sweep costs per row
// (the slope of the solve time between two budgets), a fifth the same for pgs and psor in colour
// order (world.coloring) with the scalar kernel and with AVX2 (simd off and auto). See
// tests/bench/README.md.
//
// cairn_bench_solvers                                  pyramid20 and pile1000, every solver
// cairn_bench_solvers --scene FILE [--scene FILE ...] [--solver NAME ...] [--iterations 1,2,5]
//                     [--settle SECONDS] [--warm-steps N] [--lemke-max-rows N] [--cost-repeats N]
#define _POSIX_C_SOURCE 200809L

#include "cairn/cairn.h"
#include "cairn/scene.h"
#include "cairn/solver.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef CN_ASSETS_DIR
#    define CN_ASSETS_DIR "assets"
#endif

#define BENCH_MAX_SCENES     8
#define BENCH_MAX_SOLVERS    16
#define BENCH_MAX_ITERATIONS 32
// iteration limit of the warm-start table (the engine's default)
#define BENCH_WARM_ITERATIONS 10
// the two budgets of the sweep-cost table, and its most repeats
#define BENCH_COST_LOW     10
#define BENCH_COST_HIGH    110
#define BENCH_COST_REPEATS 64

typedef struct BenchConfig
{
    const char* scenes[BENCH_MAX_SCENES];
    int sceneCount;
    const char* solvers[BENCH_MAX_SOLVERS];
    int solverCount; // 0: every matrix-free solver
    int iterations[BENCH_MAX_ITERATIONS];
    int iterationCount;
    double settleSeconds;
    int warmSteps;
    // lemke is skipped (status "skipped") above this many rows in the settled problem, counted as
    // the pgs rows / 3 (lemke gets normal rows only); 0: never skipped (lemke itself reports
    // "unsupported" above its dense limit)
    int lemkeMaxRows;
    // pairs of steps of the sweep-cost table (0: no table)
    int costRepeats;
} BenchConfig;

// one row of the sweep table
typedef struct SolveRow
{
    cnStepReport report;
    double stepCpuMs;
} SolveRow;

static int s_failures;

static double CpuSeconds( void )
{
    struct timespec ts;
    clock_gettime( CLOCK_PROCESS_CPUTIME_ID, &ts );
    return (double)ts.tv_sec + 1.0e-9 * (double)ts.tv_nsec;
}

// the file name without its folder and ".json", for the CSV
static void SceneLabel( const char* path, char* label, size_t size )
{
    const char* slash = strrchr( path, '/' );
    const char* base = slash != NULL ? slash + 1 : path;
    snprintf( label, size, "%s", base );
    size_t n = strlen( label );
    if ( n > 5 && strcmp( label + n - 5, ".json" ) == 0 )
    {
        label[n - 5] = '\0';
    }
}

static bool HasParam( const cnSolverVTable* solver, const char* name )
{
    for ( int i = 0; i < solver->paramCount; ++i )
    {
        if ( strcmp( solver->params[i].name, name ) == 0 )
        {
            return true;
        }
    }
    return false;
}

// Set a parameter when the current solver has it; false only when it has it and refuses the value.
static bool SetParamIfAny( cnWorldId world, const char* name, double value )
{
    const cnSolverVTable* solver = cnWorld_GetSolver( world );
    if ( solver == NULL || HasParam( solver, name ) == false )
    {
        return true;
    }
    return cnWorld_SetSolverParam( world, name, value ) == cn_statusOk;
}

static bool LoadWith( const char* path, const char* const* overrides, int overrideCount, cnScene* scene )
{
    cnSceneOptions options = cnDefaultSceneOptions();
    options.overrides = overrides;
    options.overrideCount = overrideCount;
    cnSceneError error;
    if ( cnLoadSceneFile( path, &options, scene, &error ) != cn_statusOk )
    {
        fprintf( stderr, "bench_solvers: %s\n", error.text );
        return false;
    }
    return true;
}

static bool Load( const char* path, cnScene* scene )
{
    return LoadWith( path, NULL, 0, scene );
}

// Step with the scene's own solver for `seconds`. False when a step fails.
static bool Settle( cnWorldId world, double seconds )
{
    double dt = cnWorld_GetDef( world ).timeStep;
    int steps = (int)floor( seconds / dt + 0.5 );
    for ( int i = 0; i < steps; ++i )
    {
        if ( cnWorld_Step( world, dt ) != cn_statusOk )
        {
            fprintf( stderr, "bench_solvers: settle step %d failed\n", i );
            return false;
        }
    }
    return true;
}

// Swap to `solver`, cold start it and set its limit (k <= 0 leaves the limit alone).
static bool Configure( cnWorldId world, const cnSolverVTable* solver, int warmStart, int k )
{
    if ( cnWorld_SetSolver( world, solver->name ) != cn_statusOk )
    {
        return false;
    }
    bool ok = SetParamIfAny( world, "warm_start", (double)warmStart );
    if ( ( solver->caps & cn_solverDirect ) == 0 )
    {
        // for the iterative solvers "tolerance" is on the merit: 0 runs every iteration
        ok = ok && SetParamIfAny( world, "tolerance", 0.0 );
    }
    if ( k > 0 )
    {
        ok = ok && SetParamIfAny( world, "iterations", (double)k );
    }
    if ( ok == false )
    {
        fprintf( stderr, "bench_solvers: %s refused a parameter\n", solver->name );
    }
    return ok;
}

// Load, settle, swap to `solver` with limit k and solve one step.
static bool SolveOnce( const BenchConfig* config, const char* path, const cnSolverVTable* solver, int k,
                       SolveRow* row )
{
    cnScene scene;
    if ( Load( path, &scene ) == false )
    {
        return false;
    }
    cnWorldId world = scene.worldId;
    bool ok = Settle( world, config->settleSeconds ) && Configure( world, solver, 0, k );
    if ( ok )
    {
        double start = CpuSeconds();
        ok = cnWorld_Step( world, cnWorld_GetDef( world ).timeStep ) == cn_statusOk;
        row->stepCpuMs = 1.0e3 * ( CpuSeconds() - start );
        row->report = cnWorld_GetStepReport( world );
    }
    cnDestroyWorld( world );
    return ok;
}

static void PrintSolveRow( const char* label, const cnSolverVTable* solver, double limit,
                           const SolveRow* row )
{
    const cnStepReport* r = &row->report;
    double work = (double)r->solverRows * (double)( r->solverIterations + r->relaxIterations );
    double nsPerRowIteration = work > 0.0 ? r->solveMs * 1.0e6 / work : 0.0;
    printf( "%s,%s,%d,%.6e,%.4f,%d,%.2f,%s,%.0f,%.4f,%d,%d,%.6e,%.6e\n", label, solver->name,
            r->solverIterations, r->solverResidual, r->solveMs, r->solverRows, nsPerRowIteration,
            cnSolveStatusName( (cnSolveStatus)r->solverStatus ), limit, row->stepCpuMs, r->relaxIterations,
            r->substeps, r->meritNaturalMap, r->violationSignorini );
    fflush( stdout );
}

// Table 1: the settle itself (what pgs did to the scene), one row per scene.
static bool RunSettle( const BenchConfig* config, const char* path, const char* label, int* settledRows )
{
    cnScene scene;
    if ( Load( path, &scene ) == false )
    {
        return false;
    }
    cnWorldId world = scene.worldId;
    cnBodyArrays arrays = cnWorld_GetBodyArrays( world );
    int n = arrays.count;
    cnVec3* start = malloc( sizeof( cnVec3 ) * (size_t)( n > 0 ? n : 1 ) );
    bool ok = start != NULL;
    int top = -1;
    for ( int i = 0; ok && i < n; ++i )
    {
        start[i] = arrays.transforms[i].p;
        if ( arrays.types[i] == cn_dynamicBody && ( top < 0 || start[i].z > start[top].z ) )
        {
            top = i;
        }
    }
    double cpu = CpuSeconds();
    ok = ok && Settle( world, config->settleSeconds );
    cpu = CpuSeconds() - cpu;
    if ( ok )
    {
        // rows stay in place: nothing was created or destroyed
        arrays = cnWorld_GetBodyArrays( world );
        double maxDisplacement = 0.0;
        int worst = -1;
        for ( int i = 0; i < arrays.count && i < n; ++i )
        {
            double d = cnLength( cnSub( arrays.transforms[i].p, start[i] ) );
            if ( arrays.types[i] == cn_dynamicBody && ( worst < 0 || d > maxDisplacement ) )
            {
                maxDisplacement = d;
                worst = i;
            }
        }
        // lowest centre (below 0.5: sinking into the ground) and the farthest from the z axis
        double minZ = INFINITY;
        double maxHorizontal = 0.0;
        for ( int i = 0; i < arrays.count; ++i )
        {
            if ( arrays.types[i] == cn_dynamicBody )
            {
                cnVec3 p = arrays.transforms[i].p;
                minZ = fmin( minZ, p.z );
                maxHorizontal = fmax( maxHorizontal, fmax( fabs( p.x ), fabs( p.y ) ) );
            }
        }
        double topDrift = top >= 0 ? cnLength( cnSub( arrays.transforms[top].p, start[top] ) ) : 0.0;
        cnStepReport r = cnWorld_GetStepReport( world );
        double dt = cnWorld_GetDef( world ).timeStep;
        double steps = floor( config->settleSeconds / dt + 0.5 );
        printf( "%s,%s,%.3f,%d,%d,%s,%.6f,%s,%.6f,%.6e,%d,%d,%.6e,%s,%.4f,%.6f,%.6f\n", label, r.solverName,
                config->settleSeconds, r.dynamicCount, r.contactCount,
                worst >= 0 ? cnBody_GetName( arrays.ids[worst] ) : "", maxDisplacement,
                top >= 0 ? cnBody_GetName( arrays.ids[top] ) : "", topDrift, r.kineticEnergy, r.solverRows,
                r.solverIterations, r.solverResidual, cnSolveStatusName( (cnSolveStatus)r.solverStatus ),
                steps > 0.0 ? 1.0e3 * cpu / steps : 0.0, minZ, maxHorizontal );
        fflush( stdout );
        *settledRows = r.solverRows;
    }
    free( start );
    cnDestroyWorld( world );
    return ok;
}

// Table 2: residual against the iteration limit, per solver.
static bool RunSweep( const BenchConfig* config, const char* path, const char* label,
                      const cnSolverVTable* solver, int settledRows )
{
    if ( solver->caps & cn_solverDirect )
    {
        // lemke: one solve, its pivots as "iterations"; the pivot limit well above the rows
        int normalRows = ( solver->caps & cn_solverFriction ) ? settledRows : settledRows / 3;
        int limit = 20 * normalRows + 1000;
        if ( config->lemkeMaxRows > 0 && normalRows > config->lemkeMaxRows )
        {
            printf( "%s,%s,0,nan,0,%d,0,skipped,%d,0\n", label, solver->name, normalRows, limit );
            fflush( stdout );
            return true;
        }
        SolveRow row;
        if ( SolveOnce( config, path, solver, limit, &row ) == false )
        {
            return false;
        }
        PrintSolveRow( label, solver, (double)limit, &row );
        return true;
    }
    for ( int i = 0; i < config->iterationCount; ++i )
    {
        SolveRow row;
        int k = config->iterations[i];
        if ( SolveOnce( config, path, solver, k, &row ) == false )
        {
            return false;
        }
        PrintSolveRow( label, solver, (double)k, &row );
        if ( row.report.solverRows <= 0 || isfinite( row.report.solverResidual ) == false )
        {
            fprintf( stderr, "bench_solvers: %s %s k=%d: no rows or a non-finite residual\n", label,
                     solver->name, k );
            s_failures += 1;
        }
    }
    return true;
}

// Table 3: warm start off and on at 10 iterations, `warmSteps` steps after the swap.
static bool RunWarm( const BenchConfig* config, const char* path, const char* label,
                     const cnSolverVTable* solver )
{
    for ( int warm = 0; warm <= 1; ++warm )
    {
        cnScene scene;
        if ( Load( path, &scene ) == false )
        {
            return false;
        }
        cnWorldId world = scene.worldId;
        bool ok =
            Settle( world, config->settleSeconds ) && Configure( world, solver, warm, BENCH_WARM_ITERATIONS );
        double dt = cnWorld_GetDef( world ).timeStep;
        for ( int step = 1; ok && step <= config->warmSteps; ++step )
        {
            ok = cnWorld_Step( world, dt ) == cn_statusOk;
            cnStepReport r = cnWorld_GetStepReport( world );
            printf( "%s,%s,%d,%d,%.6e,%.6e,%d,%s\n", label, solver->name, warm, step, r.solverResidual,
                    r.kineticEnergy, r.solverIterations, cnSolveStatusName( (cnSolveStatus)r.solverStatus ) );
            if ( isfinite( r.solverResidual ) == false || isfinite( r.kineticEnergy ) == false )
            {
                s_failures += 1;
            }
        }
        fflush( stdout );
        cnDestroyWorld( world );
        if ( ok == false )
        {
            return false;
        }
    }
    return true;
}

// Table 4: what one sweep costs per row. After the settle, warm-started, tolerance 0: steps with
// BENCH_COST_LOW and BENCH_COST_HIGH sweeps in turn. Each step's sweeps are its main and relax
// sweeps over its substeps; the assembly, preparation and grading cost the same at both budgets,
// so the slope (solve ms difference over the sweep difference times the rows) is the sweep alone.
static int CompareDoubles( const void* a, const void* b )
{
    double x = *(const double*)a;
    double y = *(const double*)b;
    return ( x > y ) - ( x < y );
}

// simd NULL: the scene as it is (table 4); "auto" or "off": loaded with world.coloring and the
// solver's simd parameter set so (table 5, the coloured sweep with and without AVX2).
static bool RunCost( const BenchConfig* config, const char* path, const char* label,
                     const cnSolverVTable* solver, const char* simd )
{
    cnScene scene;
    const char* const colored[1] = { "world.coloring=true" };
    if ( LoadWith( path, colored, simd != NULL ? 1 : 0, &scene ) == false )
    {
        return false;
    }
    cnWorldId world = scene.worldId;
    bool ok = Settle( world, config->settleSeconds ) && Configure( world, solver, 1, BENCH_COST_LOW );
    if ( ok && simd != NULL )
    {
        // the choices: 0 auto, 1 off
        ok = cnWorld_SetSolverParam( world, "simd", strcmp( simd, "off" ) == 0 ? 1.0 : 0.0 ) == cn_statusOk;
    }
    double dt = cnWorld_GetDef( world ).timeStep;
    double slopes[BENCH_COST_REPEATS];
    int count = 0;
    double rows = 0.0;
    for ( int r = 0; ok && r < config->costRepeats; ++r )
    {
        cnStepReport low;
        cnStepReport high;
        ok = SetParamIfAny( world, "iterations", BENCH_COST_LOW ) && cnWorld_Step( world, dt ) == cn_statusOk;
        low = cnWorld_GetStepReport( world );
        ok = ok && SetParamIfAny( world, "iterations", BENCH_COST_HIGH ) &&
             cnWorld_Step( world, dt ) == cn_statusOk;
        high = cnWorld_GetStepReport( world );
        double sweeps = (double)( high.solverIterations + high.relaxIterations - low.solverIterations -
                                  low.relaxIterations );
        double pairRows = 0.5 * (double)( low.solverRows + high.solverRows );
        if ( ok && sweeps > 0.0 && pairRows > 0.0 )
        {
            slopes[count++] = ( high.solveMs - low.solveMs ) * 1.0e6 / ( sweeps * pairRows );
            rows += pairRows;
        }
    }
    if ( ok && count > 0 )
    {
        qsort( slopes, (size_t)count, sizeof( double ), CompareDoubles );
        printf( "%s,%s,%s%s%d,%d,%.0f,%d,%.2f,%.2f,%.2f\n", label, solver->name, simd != NULL ? simd : "",
                simd != NULL ? "," : "", BENCH_COST_LOW, BENCH_COST_HIGH, rows / count, count, slopes[0],
                slopes[count / 2], slopes[count - 1] );
        fflush( stdout );
        if ( isfinite( slopes[count / 2] ) == false )
        {
            s_failures += 1;
        }
    }
    cnDestroyWorld( world );
    return ok;
}

static bool Selected( const BenchConfig* config, const cnSolverVTable* solver )
{
    if ( ( solver->caps & cn_solverMatrixFree ) == 0 )
    {
        return false;
    }
    if ( config->solverCount == 0 )
    {
        return true;
    }
    for ( int i = 0; i < config->solverCount; ++i )
    {
        if ( strcmp( config->solvers[i], solver->name ) == 0 )
        {
            return true;
        }
    }
    return false;
}

static void Usage( const char* program )
{
    fprintf( stderr,
             "usage: %s [--scene FILE ...] [--solver NAME ...] [--iterations K,K,...] [--settle SECONDS]\n"
             "       [--warm-steps N] [--lemke-max-rows N] [--cost-repeats N]\n",
             program );
    exit( 2 );
}

static int ParseInt( const char* text, const char* name, int lo, int hi )
{
    char* end = NULL;
    long value = strtol( text, &end, 10 );
    if ( end == text || ( *end != '\0' && *end != ',' ) || value < lo || value > hi )
    {
        fprintf( stderr, "bench_solvers: bad value for %s: %s\n", name, text );
        exit( 2 );
    }
    return (int)value;
}

int main( int argc, char** argv )
{
    static const int defaultIterations[] = { 1, 2, 5, 10, 20, 50, 100, 200 };
    BenchConfig config = { .settleSeconds = 2.0, .warmSteps = 5, .lemkeMaxRows = 0, .costRepeats = 7 };
    for ( int i = 1; i < argc; ++i )
    {
        const char* arg = argv[i];
        const char* value = i + 1 < argc ? argv[i + 1] : NULL;
        if ( value == NULL )
        {
            Usage( argv[0] );
        }
        if ( strcmp( arg, "--scene" ) == 0 && config.sceneCount < BENCH_MAX_SCENES )
        {
            config.scenes[config.sceneCount++] = value;
        }
        else if ( strcmp( arg, "--solver" ) == 0 && config.solverCount < BENCH_MAX_SOLVERS )
        {
            if ( cnFindSolver( value ) == NULL )
            {
                fprintf( stderr, "bench_solvers: unknown solver '%s'\n", value );
                return 2;
            }
            config.solvers[config.solverCount++] = value;
        }
        else if ( strcmp( arg, "--iterations" ) == 0 )
        {
            config.iterationCount = 0;
            for ( const char* p = value; p != NULL && config.iterationCount < BENCH_MAX_ITERATIONS; )
            {
                config.iterations[config.iterationCount++] = ParseInt( p, arg, 1, 100000 );
                p = strchr( p, ',' );
                p = p != NULL ? p + 1 : NULL;
            }
        }
        else if ( strcmp( arg, "--settle" ) == 0 )
        {
            char* end = NULL;
            config.settleSeconds = strtod( value, &end );
            if ( end == value || *end != '\0' ||
                 !( config.settleSeconds >= 0.0 && config.settleSeconds < 1e4 ) )
            {
                fprintf( stderr, "bench_solvers: bad value for --settle: %s\n", value );
                return 2;
            }
        }
        else if ( strcmp( arg, "--warm-steps" ) == 0 )
        {
            config.warmSteps = ParseInt( value, arg, 0, 100000 );
        }
        else if ( strcmp( arg, "--cost-repeats" ) == 0 )
        {
            config.costRepeats = ParseInt( value, arg, 0, BENCH_COST_REPEATS );
        }
        else if ( strcmp( arg, "--lemke-max-rows" ) == 0 )
        {
            config.lemkeMaxRows = ParseInt( value, arg, 0, 100000000 );
        }
        else
        {
            Usage( argv[0] );
        }
        i += 1;
    }
    if ( config.sceneCount == 0 )
    {
        config.scenes[config.sceneCount++] = CN_ASSETS_DIR "/scenes/pyramid20.json";
        config.scenes[config.sceneCount++] = CN_ASSETS_DIR "/scenes/pile1000.json";
    }
    if ( config.iterationCount == 0 )
    {
        config.iterationCount = (int)( sizeof( defaultIterations ) / sizeof( defaultIterations[0] ) );
        memcpy( config.iterations, defaultIterations, sizeof( defaultIterations ) );
    }

    const cnSolverVTable* solvers[BENCH_MAX_SOLVERS];
    int solverCount = 0;
    for ( int i = 0; i < cnGetSolverCount() && solverCount < BENCH_MAX_SOLVERS; ++i )
    {
        const cnSolverVTable* solver = cnGetSolverAt( i );
        if ( Selected( &config, solver ) )
        {
            solvers[solverCount++] = solver;
        }
    }

    char labels[BENCH_MAX_SCENES][64];
    int settledRows[BENCH_MAX_SCENES];
    printf(
        "scene,settle_solver,settle_s,dynamic,contacts,max_displacement_body,max_displacement,top_body,"
        "top_drift,kinetic_energy,rows,iterations,residual,status,settle_cpu_ms_per_step,min_z,max_xy\n" );
    for ( int s = 0; s < config.sceneCount; ++s )
    {
        SceneLabel( config.scenes[s], labels[s], sizeof( labels[s] ) );
        if ( RunSettle( &config, config.scenes[s], labels[s], &settledRows[s] ) == false )
        {
            return 1;
        }
    }

    printf( "\nscene,solver,iterations,residual,solve_ms,rows,ns_per_row_iteration,status,limit,step_cpu_ms,"
            "relax_iterations,substeps,merit_natural_map,violation_signorini\n" );
    for ( int s = 0; s < config.sceneCount; ++s )
    {
        for ( int v = 0; v < solverCount; ++v )
        {
            if ( RunSweep( &config, config.scenes[s], labels[s], solvers[v], settledRows[s] ) == false )
            {
                return 1;
            }
        }
    }

    if ( config.warmSteps > 0 )
    {
        printf( "\nscene,solver,warm_start,step,residual_after_step,kinetic_energy,iterations,status\n" );
        for ( int s = 0; s < config.sceneCount; ++s )
        {
            for ( int v = 0; v < solverCount; ++v )
            {
                if ( ( solvers[v]->caps & cn_solverDirect ) == 0 &&
                     RunWarm( &config, config.scenes[s], labels[s], solvers[v] ) == false )
                {
                    return 1;
                }
            }
        }
    }
    if ( config.costRepeats > 0 )
    {
        printf(
            "\nscene,solver,low_sweeps,high_sweeps,rows,pairs,ns_per_row_sweep_min,ns_per_row_sweep_median,"
            "ns_per_row_sweep_max\n" );
        for ( int s = 0; s < config.sceneCount; ++s )
        {
            for ( int v = 0; v < solverCount; ++v )
            {
                if ( ( solvers[v]->caps & cn_solverDirect ) == 0 &&
                     RunCost( &config, config.scenes[s], labels[s], solvers[v], NULL ) == false )
                {
                    return 1;
                }
            }
        }
        // the coloured sweep of pgs and psor with and without AVX2 (same bits, other speed)
        printf( "\nscene,solver,simd,low_sweeps,high_sweeps,rows,pairs,ns_per_row_sweep_min,"
                "ns_per_row_sweep_median,ns_per_row_sweep_max\n" );
        for ( int s = 0; s < config.sceneCount; ++s )
        {
            for ( int v = 0; v < solverCount; ++v )
            {
                if ( strcmp( solvers[v]->name, "pgs" ) != 0 && strcmp( solvers[v]->name, "psor" ) != 0 )
                {
                    continue;
                }
                for ( int m = 0; m < 2; ++m )
                {
                    if ( RunCost( &config, config.scenes[s], labels[s], solvers[v],
                                  m == 0 ? "off" : "auto" ) == false )
                    {
                        return 1;
                    }
                }
            }
        }
    }
    if ( s_failures > 0 )
    {
        fprintf( stderr, "bench_solvers: %d rows with no rows or non-finite values\n", s_failures );
        return 1;
    }
    return 0;
}
