// SPDX-License-Identifier: MIT
// The interior point method (Kleinert, Simeon and Obermayr; ../shared/papers/ipm.md, section 5)
// against projected Gauss-Jacobi on one time step of piles of non-rotating spheres, like the
// paper's two test problems: the ipm_pile_* scenes of assets/scenes (tests/bench/make_piles.py). For
// each scene the world takes one step with the ipm solver; the problem callback
// (cnWorld_SetProblemFcn) hands over the contact problem that step solved (exact cones, mu 0.4,
// dt 0.01 s), and the benchmark solves it again from zero with
//
//   ipm, linear_solver direct (factor.h: CHOLMOD with AMD), up to --direct-max-contacts,
//   ipm, linear_solver bicgstab with IC(0) (the paper's inexact method, cautious centring),
//   pgj with the cone (relaxation 0.3),
//
// in two comparisons, all in one run:
// - the paper's: the relaxed cone problem (no De Saxce shift) and its error max(cost, feas) (its
//   5.2; absolute, the paper's units). Budgets double from 1, each a solve from zero; the CPU time
//   and iterations at 1e-3 and 1e-6 are interpolated log-linearly between the bracketing budgets.
//   The curves are the plots PLOTS/<scene>.svg;
// - Cairn's: the exact Coulomb law graded by the layer's cone merit, one solve each to 1e-3.
// Output: OUT/ipm.md (and stdout).
//
// cairn_bench_ipm [--scenes a,b] [--out DIR] [--plots DIR] [--pgj-sweeps N] [--direct-max-contacts N]
//                 [--quick]
//
// Times are process CPU time (CLOCK_PROCESS_CPUTIME_ID) around cnRunSolver. Exit status 1 when a
// scene cannot be loaded, takes no contacts, or a merit is not finite.
#define _POSIX_C_SOURCE 200809L

#include "bench_common.h"
#include "bench_plot.h"

#include "cairn/cairn.h"
#include "cairn/lcp_io.h"
#include "cairn/solver.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef CN_ASSETS_DIR
#    define CN_ASSETS_DIR "assets"
#endif
#ifndef CN_SOURCE_DIR
#    define CN_SOURCE_DIR "."
#endif
#ifndef CN_BUILD_TYPE
#    define CN_BUILD_TYPE "unknown"
#endif

// the grading merit of the exact-law comparison, and the paper's error targets (absolute, its units)
#define HEADLINE_MERIT 1.0e-3
#define PAPER_TARGET   1.0e-3
#define DEEP_ERROR     1.0e-6
#define MAX_SCENES     8
#define MAX_POINTS     40

enum
{
    RUN_DIRECT = 0,
    RUN_INEXACT = 1,
    RUN_PGJ = 2,
    RUN_COUNT,
};
static const char* const s_runNames[RUN_COUNT] = { "ipm direct", "ipm bicgstab+ic0", "pgj" };

typedef struct Options
{
    const char* scenes[MAX_SCENES];
    int sceneCount;
    const char* out;
    const char* plots;
    int pgjSweeps;         // PGJ's sweep budget
    int ipmSteps;          // the IPM's Newton step budget
    int directMaxContacts; // the direct IPM runs on problems up to this many contacts
    bool quick;
} Options;

// one solve: its statistics, CPU time and the paper's error of its answer
typedef struct Solve
{
    cnSolverStats stats;
    double cpuMs;
    double paperError;
    bool ran;
} Solve;

typedef struct Curve
{
    double ms[MAX_POINTS];
    double iterations[MAX_POINTS];
    double krylov[MAX_POINTS];
    double error[MAX_POINTS];
    int count;
} Curve;

typedef struct SceneResult
{
    char name[64];
    bool captured;
    int bodies;
    int contacts;
    int rows;
    Curve paper[RUN_COUNT]; // the relaxed problem, the paper's error, budgets doubling
    Solve exact[RUN_COUNT]; // the exact Coulomb law to the cone merit HEADLINE_MERIT
} SceneResult;

typedef struct Capture
{
    const Options* options;
    SceneResult* result;
} Capture;

static void SetParam( const cnSolverVTable* solver, double* params, const char* name, double value )
{
    int index = cnFindSolverParam( solver, name );
    if ( index < 0 )
    {
        Fail( "%s has no parameter %s", solver->name, name );
        return;
    }
    params[index] = value;
}

// the parameters of run `which` with `budget` iterations and `tolerance` on the grading merit;
// relaxed: the paper's problem (no De Saxce shift), else the exact Coulomb law
static const cnSolverVTable* Configure( int which, double* params, int budget, double tolerance,
                                        bool relaxed )
{
    const cnSolverVTable* solver = cnFindSolver( which == RUN_PGJ ? "pgj" : "ipm" );
    if ( solver == NULL )
    {
        return NULL;
    }
    for ( int k = 0; k < solver->paramCount; ++k )
    {
        params[k] = solver->params[k].defaultValue;
    }
    SetParam( solver, params, "iterations", budget );
    SetParam( solver, params, "tolerance", tolerance );
    if ( which == RUN_PGJ )
    {
        SetParam( solver, params, "de_saxce", relaxed ? 0.0 : 1.0 );
        SetParam( solver, params, "divergence_factor", 0.0 );
    }
    else
    {
        SetParam( solver, params, "de_saxce_passes", relaxed ? 0.0 : 10.0 );
        SetParam( solver, params, "linear_solver", which == RUN_INEXACT ? 1.0 : 0.0 ); // ic0 by default
    }
    return solver;
}

// The paper's error (its 5.2) of lambda on the relaxed problem: max(|lambda . w| / contacts, the
// worst violation of the friction cone by lambda or of its dual by w), w = (A + S) lambda + b from
// the velocity change (matrix-free problems). It has units (the paper's thresholds are absolute).
static double PaperError( const cnSolverProblem* problem, const double* lambda, const double* velocity )
{
    double cost = 0.0, feas = 0.0;
    int contacts = 0;
    for ( int g = 0; g < problem->groupCount; ++g )
    {
        const cnRowGroup* group = problem->groups + g;
        if ( group->kind != cn_groupContact )
        {
            continue;
        }
        double w[3];
        for ( int r = 0; r < 3; ++r )
        {
            int i = group->firstRow + r;
            double sum =
                problem->b[i] + ( problem->softness != NULL ? problem->softness[i] * lambda[i] : 0.0 );
            for ( int side = 0; side < 2; ++side )
            {
                int body = side == 0 ? problem->bodyA[i] : problem->bodyB[i];
                const double* j = ( side == 0 ? problem->jacobianA : problem->jacobianB ) + 6 * i;
                for ( int k = 0; body >= 0 && k < 6; ++k )
                {
                    sum += j[k] * velocity[6 * body + k];
                }
            }
            w[r] = sum;
        }
        const double* l = lambda + group->firstRow;
        cost += l[0] * w[0] + l[1] * w[1] + l[2] * w[2];
        feas = fmax( feas, -fmin( 0.0, w[0] - group->mu * hypot( w[1], w[2] ) ) );
        feas = fmax( feas, -fmin( 0.0, group->mu * l[0] - hypot( l[1], l[2] ) ) );
        contacts += 1;
    }
    return fmax( contacts > 0 ? fabs( cost ) / contacts : 0.0, feas );
}

// a solve from zero of a copy of the problem (the callback's is read-only)
static Solve Run( int which, const cnSolverProblem* problem, int budget, double tolerance, bool relaxed )
{
    Solve solve = { 0 };
    double params[CN_MAX_SOLVER_PARAMS];
    const cnSolverVTable* solver = Configure( which, params, budget, tolerance, relaxed );
    if ( solver == NULL )
    {
        Fail( "no solver for %s", s_runNames[which] );
        return solve;
    }
    cnSolverProblem copy = *problem;
    copy.oracle.fcn = NULL;
    double* lambda = Calloc( (size_t)problem->rowCapacity, sizeof( double ) );
    double* velocity =
        Calloc( (size_t)( problem->bodyCount > 0 ? 6 * problem->bodyCount : 1 ), sizeof( double ) );
    cnSolverSolution solution = { .lambda = lambda, .deltaVelocity = velocity };
    double start = CpuSeconds();
    cnStatus status = cnRunSolver( solver, params, &copy, &solution, NULL, &solve.stats );
    solve.cpuMs = 1e3 * ( CpuSeconds() - start );
    solve.ran = status == cn_statusOk;
    if ( !solve.ran )
    {
        Fail( "%s: cnRunSolver refused the problem (%s)", s_runNames[which], cnStatusName( status ) );
    }
    else if ( !isfinite( solve.stats.residual ) )
    {
        Fail( "%s: the merit is not finite after %d iterations", s_runNames[which], solve.stats.iterations );
    }
    solve.paperError = PaperError( problem, lambda, velocity );
    free( lambda );
    free( velocity );
    return solve;
}

// The paper's error against budget on the relaxed problem: budgets 1, 2, 4, ... (each a solve from
// zero) until the error meets `floor`, the solver stops short of its budget, or the budget passes
// `most`.
static void RunCurve( int which, const cnSolverProblem* problem, int most, double floor, Curve* curve )
{
    curve->count = 0;
    for ( int budget = 1; budget <= most && curve->count < MAX_POINTS; budget *= 2 )
    {
        Solve solve = Run( which, problem, budget, 0.0, true );
        if ( !solve.ran || !isfinite( solve.paperError ) )
        {
            break;
        }
        curve->ms[curve->count] = solve.cpuMs;
        curve->iterations[curve->count] = solve.stats.iterations;
        curve->krylov[curve->count] = solve.stats.krylovIterations;
        curve->error[curve->count] = solve.paperError;
        curve->count += 1;
        fprintf( stderr, "    %-18s budget %6d: error %.3e, %.1f ms\n", s_runNames[which], budget,
                 solve.paperError, solve.cpuMs );
        if ( solve.paperError <= floor || solve.stats.iterations < budget ||
             !cnSolveStatusIsUsable( solve.stats.status, 0 ) )
        {
            break;
        }
        if ( budget > most / 2 && budget < most )
        {
            budget = most / 2;
        }
    }
}

// Where a curve first meets `target`, interpolated log-linearly in the error between the two
// budgets that bracket it: *ms, *iterations and *krylov there. False when it never does.
static bool Crossing( const Curve* curve, double target, double* ms, double* iterations, double* krylov )
{
    for ( int k = 0; k < curve->count; ++k )
    {
        if ( curve->error[k] <= target )
        {
            if ( k == 0 || !( curve->error[k - 1] > 0.0 ) || !( curve->error[k] > 0.0 ) )
            {
                *ms = curve->ms[k];
                *iterations = curve->iterations[k];
                *krylov = curve->krylov[k];
                return true;
            }
            double a = log( curve->error[k - 1] ), b = log( curve->error[k] ), t = log( target );
            double f = a > b ? ( a - t ) / ( a - b ) : 1.0;
            *ms = curve->ms[k - 1] + f * ( curve->ms[k] - curve->ms[k - 1] );
            *iterations = curve->iterations[k - 1] + f * ( curve->iterations[k] - curve->iterations[k - 1] );
            *krylov = curve->krylov[k - 1] + f * ( curve->krylov[k] - curve->krylov[k - 1] );
            return true;
        }
    }
    return false;
}

static void OnProblem( const cnSolverProblem* problem, const double* start, const double* lambda,
                       const cnSolverStats* stats, void* context )
{
    (void)start;
    (void)lambda;
    (void)stats;
    Capture* capture = context;
    SceneResult* result = capture->result;
    const Options* options = capture->options;
    if ( result->captured )
    {
        return;
    }
    result->captured = true;
    result->rows = problem->rowCount;
    for ( int g = 0; g < problem->groupCount; ++g )
    {
        result->contacts += problem->groups[g].kind == cn_groupContact ? 1 : 0;
    }
    fprintf( stderr, "%s: %d contacts, %d rows\n", result->name, result->contacts, result->rows );
    for ( int which = 0; which < RUN_COUNT; ++which )
    {
        if ( which == RUN_DIRECT && result->contacts > options->directMaxContacts )
        {
            continue;
        }
        int budget = which == RUN_PGJ ? options->pgjSweeps : options->ipmSteps;
        RunCurve( which, problem, budget, which == RUN_PGJ ? PAPER_TARGET : DEEP_ERROR,
                  &result->paper[which] );
        result->exact[which] = Run( which, problem, budget, HEADLINE_MERIT, false );
        fprintf( stderr, "  %-18s exact law to the cone merit %.0e: %s, %d iterations, %d Krylov, %.1f ms\n",
                 s_runNames[which], HEADLINE_MERIT, cnSolveStatusName( result->exact[which].stats.status ),
                 result->exact[which].stats.iterations, result->exact[which].stats.krylovIterations,
                 result->exact[which].cpuMs );
    }
}

static void RunScene( const char* scene, const Options* options, SceneResult* result )
{
    snprintf( result->name, sizeof( result->name ), "%s", scene );
    char path[1024];
    snprintf( path, sizeof( path ), "%s/scenes/%s.json", CN_ASSETS_DIR, scene );
    // the world takes its step with the ipm (hard contact: the velocities solved without the soft
    // push-out), whose problem is the one handed over; one inexact Newton step is enough for that
    // (the problem does not depend on the solver's parameters, and a direct solve of the largest
    // pile costs seconds a step)
    const char* overrides[4] = { "world.solver.name=\"ipm\"", "world.friction_model=\"cone\"",
                                 "world.solver.params.iterations=1",
                                 "world.solver.params.linear_solver=\"bicgstab\"" };
    LogCounter log = { 0 };
    cnWorldId world = LoadScene( path, NULL, 0, overrides, 4, &log, NULL );
    if ( cnWorld_IsValid( world ) == false )
    {
        Fail( "%s: the scene did not load", scene );
        return;
    }
    result->bodies = cnWorld_GetBodyCount( world );
    Capture capture = { options, result };
    cnWorld_SetProblemFcn( world, OnProblem, &capture );
    cnWorld_Step( world, cnWorld_GetDef( world ).timeStep );
    cnDestroyWorld( world );
    if ( !result->captured )
    {
        Fail( "%s: the step solved no contact problem", scene );
    }
}

static void WritePlots( const SceneResult* result, const Options* options )
{
    if ( options->plots == NULL )
    {
        return;
    }
    char title[160];
    snprintf( title, sizeof( title ), "%s: %d contacts, the paper's error against CPU time", result->name,
              result->contacts );
    cnPlot* time = cnPlot_Create( title, "CPU time (ms)", "max(cost, feas)", true );
    snprintf( title, sizeof( title ), "%s: the paper's error against iterations (Newton steps; PGJ sweeps)",
              result->name );
    cnPlot* steps = cnPlot_Create( title, "iterations", "max(cost, feas)", true );
    for ( int which = 0; which < RUN_COUNT; ++which )
    {
        const Curve* curve = result->paper + which;
        if ( curve->count > 0 )
        {
            cnPlot_AddSeries( time, s_runNames[which], curve->ms, curve->error, curve->count );
            cnPlot_AddSeries( steps, s_runNames[which], curve->iterations, curve->error, curve->count );
        }
    }
    cnPlot_AddHLine( time, PAPER_TARGET, "1e-3" );
    cnPlot_AddHLine( steps, PAPER_TARGET, "1e-3" );
    const cnPlot* panels[2] = { time, steps };
    char path[1024];
    snprintf( path, sizeof( path ), "%s/%s.svg", options->plots, result->name );
    if ( !cnPlot_WriteSvgPanels( panels, 2, path ) )
    {
        Fail( "cannot write %s", path );
    }
    cnPlot_Destroy( time );
    cnPlot_Destroy( steps );
}

static void Line( FILE* file, const char* format, ... )
{
    va_list args;
    va_start( args, format );
    char text[2048];
    vsnprintf( text, sizeof( text ), format, args );
    va_end( args );
    fputs( text, stdout );
    if ( file != NULL )
    {
        fputs( text, file );
    }
}

// "12.3 ms, 45 it (678 Krylov)" at the crossing of `target`, or "not reached (best 1.2e-2)"
static void CrossingText( const Curve* curve, double target, char* text, size_t size, double* ms )
{
    double iterations = 0.0, krylov = 0.0;
    *ms = NAN;
    if ( curve->count == 0 )
    {
        snprintf( text, size, "not run" );
        return;
    }
    if ( !Crossing( curve, target, ms, &iterations, &krylov ) )
    {
        double best = INFINITY;
        for ( int k = 0; k < curve->count; ++k )
        {
            best = fmin( best, curve->error[k] );
        }
        snprintf( text, size, "not reached in %.0f it (best %.1e, %.0f ms)",
                  curve->iterations[curve->count - 1], best, curve->ms[curve->count - 1] );
        *ms = NAN;
        return;
    }
    if ( krylov > 0.0 )
    {
        snprintf( text, size, "%.0f ms, %.0f it (%.0f Krylov)", *ms, iterations, krylov );
    }
    else
    {
        snprintf( text, size, "%.0f ms, %.0f it", *ms, iterations );
    }
}

static void SolveText( const Solve* solve, char* text, size_t size )
{
    if ( !solve->ran )
    {
        snprintf( text, size, "not run" );
        return;
    }
    bool met = solve->stats.status == cn_solveConverged;
    snprintf( text, size, "%s%.0f ms, %d it", met ? "" : "not reached: ", solve->cpuMs,
              solve->stats.iterations );
    size_t used = strlen( text );
    if ( solve->stats.krylovIterations > 0 )
    {
        snprintf( text + used, size - used, " (%d Krylov)", solve->stats.krylovIterations );
        used = strlen( text );
    }
    if ( !met )
    {
        snprintf( text + used, size - used, ", merit %.1e (%s)", solve->stats.residual,
                  cnSolveStatusName( solve->stats.status ) );
    }
}

static void WriteReport( const SceneResult* results, int count, const Options* options, int argc,
                         char** argv )
{
    FILE* file = NULL;
    if ( options->out != NULL )
    {
        MakeDir( options->out );
        char path[1024];
        snprintf( path, sizeof( path ), "%s/ipm.md", options->out );
        file = fopen( path, "w" );
        if ( file == NULL )
        {
            Fail( "cannot write %s", path );
        }
    }
    Line( file, "# ipm against pgj on one step of sphere piles\n\n" );
    Line( file,
          "Written by `cairn_bench_ipm` (tests/bench/bench_ipm.c), build type %s. Command:", CN_BUILD_TYPE );
    for ( int k = 0; k < argc; ++k )
    {
        Line( file, " %s", k == 0 ? BaseName( argv[k] ) : argv[k] );
    }
    Line( file,
          "\n\nEach scene is one step of a settled pile of non-rotating spheres (radii 8-16 mm, 2600 kg/m^3, "
          "mu 0.4, dt 0.01 s, exact cones, side walls removed), the problem the world solves with ipm (hard "
          "contact), solved again from zero. Process CPU time, all in this one run.\n\n" );
    Line( file, "## The paper's problem and error\n\n" );
    Line( file,
          "The relaxed cone problem (ipm `de_saxce_passes` 0, pgj `de_saxce` 0) and the paper's error "
          "max(|lambda . w| / contacts, the worst cone violation) in SI units, as its section 5.2 (absolute: "
          "the same spheres and step as the paper's, so its thresholds carry over). Budgets double from 1, "
          "each a solve from zero; the time and iterations at a threshold are interpolated log-linearly "
          "between the two budgets that bracket it.\n\n" );
    Line( file,
          "| scene | contacts | ipm direct to 1e-3 | ipm bicgstab+IC(0) to 1e-3 | pgj to 1e-3 | pgj / ipm "
          "bicgstab (time) | ipm direct to 1e-6 | ipm bicgstab to 1e-6 |\n" );
    Line( file, "| --- | ---: | --- | --- | --- | ---: | --- | --- |\n" );
    for ( int s = 0; s < count; ++s )
    {
        const SceneResult* r = results + s;
        char text[5][160];
        double ms[5];
        CrossingText( &r->paper[RUN_DIRECT], PAPER_TARGET, text[0], sizeof( text[0] ), &ms[0] );
        CrossingText( &r->paper[RUN_INEXACT], PAPER_TARGET, text[1], sizeof( text[1] ), &ms[1] );
        CrossingText( &r->paper[RUN_PGJ], PAPER_TARGET, text[2], sizeof( text[2] ), &ms[2] );
        CrossingText( &r->paper[RUN_DIRECT], DEEP_ERROR, text[3], sizeof( text[3] ), &ms[3] );
        CrossingText( &r->paper[RUN_INEXACT], DEEP_ERROR, text[4], sizeof( text[4] ), &ms[4] );
        char ratio[64] = "-";
        if ( isfinite( ms[1] ) && isfinite( ms[2] ) )
        {
            snprintf( ratio, sizeof( ratio ), "%.2f", ms[2] / ms[1] );
        }
        else if ( isfinite( ms[1] ) && r->paper[RUN_PGJ].count > 0 )
        {
            snprintf( ratio, sizeof( ratio ), "> %.2f",
                      r->paper[RUN_PGJ].ms[r->paper[RUN_PGJ].count - 1] / ms[1] );
        }
        Line( file, "| %s | %d | %s | %s | %s | %s | %s | %s |\n", r->name, r->contacts, text[0], text[1],
              text[2], ratio, text[3], text[4] );
    }
    Line( file, "\n## Cairn's problem: the exact Coulomb law, the cone merit %.0e\n\n", HEADLINE_MERIT );
    Line( file,
          "The grading merit of every cone solver (the layer's unit-free cone natural map, De Saxce's shift "
          "included): ipm with its De Saxce passes (10), pgj with `de_saxce` 1, each one solve with the "
          "tolerance %.0e.\n\n",
          HEADLINE_MERIT );
    Line( file,
          "| scene | contacts | ipm direct | ipm bicgstab+IC(0) | pgj | pgj / ipm bicgstab (time) |\n" );
    Line( file, "| --- | ---: | --- | --- | --- | ---: |\n" );
    for ( int s = 0; s < count; ++s )
    {
        const SceneResult* r = results + s;
        char text[RUN_COUNT][160];
        for ( int which = 0; which < RUN_COUNT; ++which )
        {
            SolveText( &r->exact[which], text[which], sizeof( text[which] ) );
        }
        Line( file, "| %s | %d | %s | %s | %s | %.2f |\n", r->name, r->contacts, text[0], text[1], text[2],
              r->exact[RUN_PGJ].cpuMs / fmax( r->exact[RUN_INEXACT].cpuMs, 1e-9 ) );
    }
    Line( file, "\nPlots: docs/images/<scene>.svg (the paper's error against CPU time and against "
                "iterations).\n" );
    if ( file != NULL )
    {
        fclose( file );
    }
}

static void Usage( FILE* out )
{
    fprintf( out, "usage: cairn_bench_ipm [--scenes a,b] [--out DIR] [--plots DIR] [--pgj-sweeps N]\n"
                  "                       [--direct-max-contacts N] [--quick]\n" );
}

int main( int argc, char** argv )
{
    BenchSetup( "cairn_bench_ipm", 5, NULL );
    Options options = {
        .out = NULL,
        .plots = NULL,
        .pgjSweeps = 20000,
        .ipmSteps = 100,
        .directMaxContacts = 5000,
    };
    static char sceneList[1024] = "ipm_pile_288,ipm_pile_1000,ipm_pile_2048,ipm_pile_5040";
    for ( int i = 1; i < argc; ++i )
    {
        if ( strcmp( argv[i], "--scenes" ) == 0 && i + 1 < argc )
        {
            snprintf( sceneList, sizeof( sceneList ), "%s", argv[++i] );
        }
        else if ( strcmp( argv[i], "--out" ) == 0 && i + 1 < argc )
        {
            options.out = argv[++i];
        }
        else if ( strcmp( argv[i], "--plots" ) == 0 && i + 1 < argc )
        {
            options.plots = argv[++i];
        }
        else if ( strcmp( argv[i], "--pgj-sweeps" ) == 0 && i + 1 < argc )
        {
            options.pgjSweeps = atoi( argv[++i] );
        }
        else if ( strcmp( argv[i], "--direct-max-contacts" ) == 0 && i + 1 < argc )
        {
            options.directMaxContacts = atoi( argv[++i] );
        }
        else if ( strcmp( argv[i], "--quick" ) == 0 )
        {
            options.quick = true;
        }
        else
        {
            Usage( stderr );
            return 2;
        }
    }
    if ( options.quick )
    {
        snprintf( sceneList, sizeof( sceneList ), "ipm_pile_288" );
        options.pgjSweeps = options.pgjSweeps < 2000 ? options.pgjSweeps : 2000;
        options.ipmSteps = 40;
    }
    if ( options.pgjSweeps < 1 )
    {
        Usage( stderr );
        return 2;
    }
    for ( char* name = strtok( sceneList, "," ); name != NULL && options.sceneCount < MAX_SCENES;
          name = strtok( NULL, "," ) )
    {
        options.scenes[options.sceneCount++] = name;
    }
    if ( options.plots != NULL )
    {
        MakeDir( options.plots );
    }
    SceneResult* results = Calloc( (size_t)options.sceneCount, sizeof( SceneResult ) );
    for ( int s = 0; s < options.sceneCount; ++s )
    {
        RunScene( options.scenes[s], &options, results + s );
        WritePlots( results + s, &options );
    }
    WriteReport( results, options.sceneCount, &options, argc, argv );
    free( results );
    return BenchFailures() > 0 ? 1 : 0;
}
