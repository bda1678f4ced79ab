// SPDX-License-Identifier: MIT
// AMGS (the accelerated modulus-based Gauss-Seidel method of Miyamoto and Yamashita;
// ../shared/papers/amgs.md, sections 5 and 6) against PGS and PSOR on the paper's 2-D disc scenes
// (assets/scenes/amgs_*.json, tests/bench/make_amgs_scenes.py) and on two of Cairn's box scenes:
//
//  (a) the paper's Table 1: the frictionless contact LCP of step 100 of Pool 1, Pool 2 and a
//      150-disc stack (the normal rows of the world's final, hard pass, captured through the
//      problem callback, matrix-free as the world has it), solved from zero and from the impulses
//      the pass started from, to RES = ||min(lambda, A lambda + q)||_2 < 1e-4 (the paper's eq. 32);
//  (b) the paper's Table 2 and Figs 6 to 8: whole runs of Pool 1, Pool 2 and Stacking with 10
//      warm-started sweeps per solve, the world's grading merit of every step (cnStepReport.
//      solverResidual) averaged over the steps t >= 60 and t >= 300, and the total time;
//  (c) a work-precision plot (the grading merit against CPU time from zero, doubling sweep budgets)
//      on the problem of one step of pyramid20 and pile1000.
//
// cairn_bench_amgs [--out DIR] [--plots DIR] [--quick]
//
// Output: the markdown report on stdout and in OUT/amgs.md; SVG plots PLOTS/amgs_pyramid20.svg,
// PLOTS/amgs_pile1000.svg and PLOTS/amgs_whole_runs.svg. Times are process CPU time. See
// tests/bench/README.md, "bench_amgs". Exit status 1 when a scene does not load or step, a problem
// is not captured, or a residual is not finite.
#define _POSIX_C_SOURCE 200809L

#include "bench_common.h"
#include "bench_plot.h"

#include "cairn/cairn.h"
#include "cairn/lcp_io.h"
#include "cairn/solver.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef CN_ASSETS_DIR
#    define CN_ASSETS_DIR "assets"
#endif
#ifndef CN_SOURCE_DIR
#    define CN_SOURCE_DIR "."
#endif
#ifndef CN_BUILD_TYPE
#    define CN_BUILD_TYPE "unknown"
#endif

// the paper's stopping level for Table 1 (RES, eq. 32)
#define RES_TARGET 1.0e-4
#define MAX_PATH   1024
// the most points of a work-precision line (doubling budgets)
#define MAX_POINTS 24

// ---------------------------------------------------------------------------------------------
// the solver variants

typedef struct Variant
{
    const char* label;
    const char* solver; // registered name
    double alpha;       // amgs: alpha (0: default)
    int omega;          // amgs: 0 alpha_d, 1 mean_e
    double relaxation;  // psor: relaxation (0: default)
} Variant;

// amgs alpha 0.2 relaxes by 2 / (1 + 0.4) = 1.4286, alpha 0.1 by 2 / 1.2 = 1.6667
#define PSOR_MATCH_02 ( 2.0 / 1.4 )
#define PSOR_MATCH_01 ( 2.0 / 1.2 )

static const Variant s_table1[] = {
    { "PGS", "pgs", 0.0, 0, 0.0 },
    { "AMGS alpha_d 0.5 (D/gamma)", "amgs", 0.5, 0, 0.0 },
    { "AMGS mean_e", "amgs", 0.0, 1, 0.0 },
    { "AMGS alpha_d 0.2", "amgs", 0.2, 0, 0.0 },
    { "PSOR 1.4286", "psor", 0.0, 0, PSOR_MATCH_02 },
    { "AMGS alpha_d 0.1", "amgs", 0.1, 0, 0.0 },
    { "PSOR 1.6667", "psor", 0.0, 0, PSOR_MATCH_01 },
};
#define TABLE1_COUNT ( (int)( sizeof( s_table1 ) / sizeof( s_table1[0] ) ) )

static const Variant s_table2[] = {
    { "PGS", "pgs", 0.0, 0, 0.0 },
    { "AMGS 0.1", "amgs", 0.1, 0, 0.0 },
    { "AMGS 0.2", "amgs", 0.2, 0, 0.0 },
    { "AMGS 0.3", "amgs", 0.3, 0, 0.0 },
    { "AMGS 0.5", "amgs", 0.5, 0, 0.0 },
    { "AMGS 0.6", "amgs", 0.6, 0, 0.0 },
    { "PSOR 1.4286", "psor", 0.0, 0, PSOR_MATCH_02 },
};
#define TABLE2_COUNT ( (int)( sizeof( s_table2 ) / sizeof( s_table2[0] ) ) )

static const Variant s_plotted[] = {
    { "PGS", "pgs", 0.0, 0, 0.0 },
    { "AMGS 0.2", "amgs", 0.2, 0, 0.0 },
    { "AMGS 0.1", "amgs", 0.1, 0, 0.0 },
    { "PSOR 1.4286", "psor", 0.0, 0, PSOR_MATCH_02 },
    { "PSOR 1.6667", "psor", 0.0, 0, PSOR_MATCH_01 },
};
#define PLOTTED_COUNT ( (int)( sizeof( s_plotted ) / sizeof( s_plotted[0] ) ) )

// the paper's Table 1 (iterations, seconds) for PGS, 3.1[D/gamma] and 3.1[mean_e], per scene
typedef struct PaperRow
{
    int pgs, dg, me;
    double pgsS, dgS, meS;
} PaperRow;

typedef struct Table1Scene
{
    const char* label;
    const char* scene; // assets/scenes/NAME.json
    PaperRow paper;
} Table1Scene;

static const Table1Scene s_table1Scenes[] = {
    { "Pool 1", "amgs_pool1_mu0", { 1452, 766, 1522, 0.042, 0.023, 0.055 } },
    { "Pool 2", "amgs_pool2_mu0", { 1359, 744, 1393, 0.042, 0.028, 0.048 } },
    { "Stacking (150)", "amgs_stacking150_mu0", { 16186, 7754, 16431, 0.162, 0.066, 0.183 } },
};
#define TABLE1_SCENES 3

static const char* const s_runScenes[] = { "amgs_pool1", "amgs_pool2", "amgs_stacking" };
static const char* const s_runLabels[] = { "Pool 1", "Pool 2", "Stacking" };
#define RUN_SCENES 3

typedef struct PlotScene
{
    const char* scene;
    int step;
} PlotScene;

static const PlotScene s_plotScenes[] = { { "pyramid20", 60 }, { "pile1000", 240 } };
#define PLOT_SCENES 2

typedef struct Options
{
    const char* out;
    const char* plots;
    bool quick;
    int table1Step;   // the step of the Table 1 problems
    int maxSweeps;    // Table 1's sweep limit
    double minTimeS;  // Table 1: repeat a timed run until this much CPU time has passed
    int runSteps;     // (b): steps of each whole run
    int runScenes;    // (b): how many of s_runScenes
    int plotScenes;   // (c): how many of s_plotScenes
    int plotStep;     // (c): the step (0: the scene's own)
    int plotMaxSweep; // (c): the largest budget
    double plotDeadlineS;
} Options;

// ---------------------------------------------------------------------------------------------
// a captured problem (owned copies of a matrix-free cnSolverProblem)

typedef struct Captured
{
    bool taken;
    int contacts; // contact and normal groups
    cnSolverProblem problem;
    double* start;     // the impulses the pass started from
    double* reference; // what the world's solver returned
} Captured;

static void FreeCaptured( Captured* c )
{
    cnSolverProblem* p = &c->problem;
    free( p->groups );
    free( p->lower );
    free( p->upper );
    free( p->b );
    free( p->softness );
    free( p->bodyA );
    free( p->bodyB );
    free( p->jacobianA );
    free( p->jacobianB );
    free( (void*)p->wLinear );
    free( (void*)p->wAngular );
    free( c->start );
    free( c->reference );
    memset( c, 0, sizeof( *c ) );
}

static bool IsLoadRow( const cnRowGroup* g )
{
    return g->kind == cn_groupContact || g->kind == cn_groupNormal;
}

// Copies `src`: every row, or (normalOnly) the normal row of each contact and normal group as a
// frictionless normal group (the paper's LCP; exact when the contacts have mu = 0, whose tangent
// rows are held at 0).
static bool Capture( const cnSolverProblem* src, const double* start, const double* lambda, bool normalOnly,
                     Captured* c )
{
    FreeCaptured( c );
    if ( src->matrix != NULL )
    {
        Fail( "the world's problem is explicit; expected matrix-free" );
        return false;
    }
    int rows = 0, groups = 0;
    for ( int g = 0; g < src->groupCount; ++g )
    {
        const cnRowGroup* group = src->groups + g;
        c->contacts += IsLoadRow( group ) ? 1 : 0;
        if ( normalOnly )
        {
            if ( IsLoadRow( group ) == false )
            {
                Fail( "a group of kind %d in a frictionless problem", (int)group->kind );
                return false;
            }
            rows += 1;
            groups += 1;
        }
    }
    if ( normalOnly == false )
    {
        rows = src->rowCount;
        groups = src->groupCount;
    }
    int bodies = src->bodyCount;
    cnSolverProblem* p = &c->problem;
    p->rowCount = rows;
    p->rowCapacity = rows;
    p->groupCount = groups;
    p->groupCapacity = groups;
    p->bodyCount = bodies;
    p->timeStep = src->timeStep;
    p->dynamics = src->dynamics;
    p->groups = Calloc( (size_t)groups, sizeof( cnRowGroup ) );
    p->lower = Calloc( (size_t)rows, sizeof( double ) );
    p->upper = Calloc( (size_t)rows, sizeof( double ) );
    p->b = Calloc( (size_t)rows, sizeof( double ) );
    p->softness = src->softness != NULL ? Calloc( (size_t)rows, sizeof( double ) ) : NULL;
    p->bodyA = Calloc( (size_t)rows, sizeof( int32_t ) );
    p->bodyB = Calloc( (size_t)rows, sizeof( int32_t ) );
    p->jacobianA = Calloc( 6 * (size_t)rows, sizeof( double ) );
    p->jacobianB = Calloc( 6 * (size_t)rows, sizeof( double ) );
    double* wl = Calloc( 9 * (size_t)bodies, sizeof( double ) );
    double* wa = Calloc( 9 * (size_t)bodies, sizeof( double ) );
    memcpy( wl, src->wLinear, 9 * (size_t)bodies * sizeof( double ) );
    memcpy( wa, src->wAngular, 9 * (size_t)bodies * sizeof( double ) );
    p->wLinear = wl;
    p->wAngular = wa;
    c->start = Calloc( (size_t)rows, sizeof( double ) );
    c->reference = Calloc( (size_t)rows, sizeof( double ) );
    int k = 0;
    for ( int g = 0; g < src->groupCount; ++g )
    {
        const cnRowGroup* group = src->groups + g;
        int first = normalOnly ? group->firstRow : 0;
        int count = normalOnly ? 1 : 0;
        if ( normalOnly == false )
        {
            continue;
        }
        for ( int r = 0; r < count; ++r )
        {
            int from = first + r;
            p->lower[k] = src->lower[from];
            p->upper[k] = src->upper[from];
            p->b[k] = src->b[from];
            if ( p->softness != NULL )
            {
                p->softness[k] = src->softness[from];
            }
            p->bodyA[k] = src->bodyA[from];
            p->bodyB[k] = src->bodyB[from];
            memcpy( p->jacobianA + 6 * k, src->jacobianA + 6 * from, 6 * sizeof( double ) );
            memcpy( p->jacobianB + 6 * k, src->jacobianB + 6 * from, 6 * sizeof( double ) );
            c->start[k] = start != NULL ? start[from] : 0.0;
            c->reference[k] = lambda[from];
            p->groups[k] = ( cnRowGroup ){ .firstRow = k, .rowCount = 1, .kind = cn_groupNormal };
            k += 1;
        }
    }
    if ( normalOnly == false )
    {
        size_t n = (size_t)rows;
        memcpy( p->groups, src->groups, (size_t)groups * sizeof( cnRowGroup ) );
        memcpy( p->lower, src->lower, n * sizeof( double ) );
        memcpy( p->upper, src->upper, n * sizeof( double ) );
        memcpy( p->b, src->b, n * sizeof( double ) );
        if ( p->softness != NULL )
        {
            memcpy( p->softness, src->softness, n * sizeof( double ) );
        }
        memcpy( p->bodyA, src->bodyA, n * sizeof( int32_t ) );
        memcpy( p->bodyB, src->bodyB, n * sizeof( int32_t ) );
        memcpy( p->jacobianA, src->jacobianA, 6 * n * sizeof( double ) );
        memcpy( p->jacobianB, src->jacobianB, 6 * n * sizeof( double ) );
        if ( start != NULL )
        {
            memcpy( c->start, start, n * sizeof( double ) );
        }
        memcpy( c->reference, lambda, n * sizeof( double ) );
    }
    c->taken = true;
    return true;
}

// ---------------------------------------------------------------------------------------------
// RES = ||min(lambda, A lambda + q)||_2 over the normal rows (the paper's eq. 32), matrix-free:
// the velocity change W J^T lambda, then w = J dv + softness lambda + b

static double NormalRes( const cnSolverProblem* p, const double* lambda, double* dv )
{
    int bodies = p->bodyCount;
    double* impulse = Calloc( 6 * (size_t)( bodies > 0 ? bodies : 1 ), sizeof( double ) );
    for ( int i = 0; i < p->rowCount; ++i )
    {
        const int32_t body[2] = { p->bodyA[i], p->bodyB[i] };
        const double* jac[2] = { p->jacobianA + 6 * i, p->jacobianB + 6 * i };
        for ( int s = 0; s < 2; ++s )
        {
            if ( body[s] >= 0 )
            {
                for ( int d = 0; d < 6; ++d )
                {
                    impulse[6 * body[s] + d] += jac[s][d] * lambda[i];
                }
            }
        }
    }
    for ( int a = 0; a < bodies; ++a )
    {
        const double* wl = p->wLinear + 9 * a;
        const double* wa = p->wAngular + 9 * a;
        for ( int r = 0; r < 3; ++r )
        {
            dv[6 * a + r] = wl[3 * r] * impulse[6 * a] + wl[3 * r + 1] * impulse[6 * a + 1] +
                            wl[3 * r + 2] * impulse[6 * a + 2];
            dv[6 * a + 3 + r] = wa[3 * r] * impulse[6 * a + 3] + wa[3 * r + 1] * impulse[6 * a + 4] +
                                wa[3 * r + 2] * impulse[6 * a + 5];
        }
    }
    free( impulse );
    double sum = 0.0;
    for ( int g = 0; g < p->groupCount; ++g )
    {
        const cnRowGroup* group = p->groups + g;
        if ( IsLoadRow( group ) == false )
        {
            continue;
        }
        int i = group->firstRow;
        double w = p->b[i] + ( p->softness != NULL ? p->softness[i] * lambda[i] : 0.0 );
        const int32_t body[2] = { p->bodyA[i], p->bodyB[i] };
        const double* jac[2] = { p->jacobianA + 6 * i, p->jacobianB + 6 * i };
        for ( int s = 0; s < 2; ++s )
        {
            if ( body[s] >= 0 )
            {
                for ( int d = 0; d < 6; ++d )
                {
                    w += jac[s][d] * dv[6 * body[s] + d];
                }
            }
        }
        double m = fmin( lambda[i], w );
        sum += m * m;
    }
    return sqrt( sum );
}

// ---------------------------------------------------------------------------------------------
// running a variant on a captured problem

static void SetParam( const cnSolverVTable* solver, double* params, const char* name, double value )
{
    int index = cnFindSolverParam( solver, name );
    if ( index >= 0 && cnCheckSolverParam( solver->params + index, value, NULL, 0 ) == cn_statusOk )
    {
        params[index] = value;
    }
    else
    {
        Fail( "solver %s: cannot set %s = %g", solver->name, name, value );
    }
}

static const cnSolverVTable* VariantParams( const Variant* v, double* params )
{
    const cnSolverVTable* solver = cnFindSolver( v->solver );
    if ( solver == NULL )
    {
        Fail( "no solver named %s", v->solver );
        return NULL;
    }
    for ( int i = 0; i < solver->paramCount && i < CN_MAX_SOLVER_PARAMS; ++i )
    {
        params[i] = solver->params[i].defaultValue;
    }
    if ( v->alpha > 0.0 )
    {
        SetParam( solver, params, "alpha", v->alpha );
    }
    if ( strcmp( v->solver, "amgs" ) == 0 )
    {
        SetParam( solver, params, "omega", (double)v->omega );
    }
    if ( v->relaxation > 0.0 )
    {
        SetParam( solver, params, "relaxation", v->relaxation );
    }
    return solver;
}

typedef struct Run
{
    cnSolverStats stats;
    double ms;
} Run;

// `sweeps` sweeps from `start` (NULL: zero) with no stopping rule but the budget; lambda out.
static Run Solve( const Variant* v, cnSolverProblem* p, const double* start, int sweeps, double* lambda,
                  double* dv )
{
    Run run = { 0 };
    double params[CN_MAX_SOLVER_PARAMS];
    const cnSolverVTable* solver = VariantParams( v, params );
    if ( solver == NULL )
    {
        run.stats.status = cn_solveUnsupported;
        return run;
    }
    SetParam( solver, params, "iterations", (double)sweeps );
    SetParam( solver, params, "tolerance", 0.0 );
    SetParam( solver, params, "divergence_factor", 0.0 );
    for ( int i = 0; i < p->rowCount; ++i )
    {
        lambda[i] = start != NULL ? start[i] : 0.0;
    }
    cnSolverSolution solution = { .lambda = lambda, .deltaVelocity = dv };
    double t0 = CpuSeconds();
    cnStatus status = cnRunSolver( solver, params, p, &solution, NULL, &run.stats );
    run.ms = 1.0e3 * ( CpuSeconds() - t0 );
    if ( status != cn_statusOk )
    {
        Fail( "cnRunSolver refused %s", v->label );
        run.stats.status = cn_solveUnsupported;
    }
    return run;
}

// ---------------------------------------------------------------------------------------------
// (a) the paper's Table 1

typedef struct ToTarget
{
    int sweeps; // 0: not within the limit
    double res; // at `sweeps` (or at the limit)
    double ms;  // CPU time of a run of `sweeps` sweeps (mean over repeats)
    double usPerSweep;
    int runs; // runs the search took
} ToTarget;

static double ResAfter( const Variant* v, cnSolverProblem* p, const double* start, int sweeps, double* lambda,
                        double* dv )
{
    Run run = Solve( v, p, start, sweeps, lambda, dv );
    if ( run.stats.status == cn_solveUnsupported || run.stats.status == cn_solveNonFinite )
    {
        return (double)NAN;
    }
    return NormalRes( p, lambda, dv );
}

// The fewest sweeps from `start` to RES < RES_TARGET: doubling budgets until one gets there, then a
// bisection between the last two (each run from the start: AMGS's memory is not kept between calls).
static ToTarget SweepsToTarget( const Variant* v, cnSolverProblem* p, const double* start,
                                const Options* options )
{
    ToTarget t = { 0 };
    double* lambda = Calloc( (size_t)p->rowCount, sizeof( double ) );
    double* dv = Calloc( 6 * (size_t)( p->bodyCount > 0 ? p->bodyCount : 1 ), sizeof( double ) );
    int lo = 0, hi = 0;
    for ( int k = 1;; k *= 2 )
    {
        int budget = k < options->maxSweeps ? k : options->maxSweeps;
        double res = ResAfter( v, p, start, budget, lambda, dv );
        t.runs += 1;
        t.res = res;
        if ( isfinite( res ) == false )
        {
            Fail( "%s: RES not finite after %d sweeps", v->label, budget );
            break;
        }
        if ( res < RES_TARGET )
        {
            hi = budget;
            break;
        }
        lo = budget;
        if ( budget >= options->maxSweeps )
        {
            break;
        }
    }
    if ( hi > 0 )
    {
        while ( hi - lo > 1 )
        {
            int mid = lo + ( hi - lo ) / 2;
            double res = ResAfter( v, p, start, mid, lambda, dv );
            t.runs += 1;
            if ( res < RES_TARGET )
            {
                hi = mid;
            }
            else
            {
                lo = mid;
            }
        }
        t.sweeps = hi;
        // time the run that gets there, repeated for a measurable total
        double total = 0.0;
        int repeats = 0;
        do
        {
            Run run = Solve( v, p, start, hi, lambda, dv );
            total += run.ms;
            repeats += 1;
        } while ( 1.0e-3 * total < options->minTimeS && repeats < 1000 );
        t.res = NormalRes( p, lambda, dv );
        t.ms = total / repeats;
        t.usPerSweep = 1.0e3 * t.ms / hi;
    }
    free( lambda );
    free( dv );
    return t;
}

// the problem callback: captures the final pass of step `target`
typedef struct CaptureContext
{
    int step; // the step being taken
    int target;
    bool normalOnly;
    Captured* captured;
    // (b): RES of every step's final pass (normal rows)
    double* resPerStep;
    double* dv;
    int dvCapacity;
} CaptureContext;

static void OnProblem( const cnSolverProblem* problem, const double* start, const double* lambda,
                       const cnSolverStats* stats, void* context )
{
    (void)stats;
    CaptureContext* ctx = context;
    if ( ctx->captured != NULL && ctx->step == ctx->target )
    {
        Capture( problem, start, lambda, ctx->normalOnly, ctx->captured );
    }
    if ( ctx->resPerStep != NULL )
    {
        if ( problem->bodyCount > ctx->dvCapacity )
        {
            ctx->dvCapacity = 2 * problem->bodyCount;
            ctx->dv = Realloc( ctx->dv, 6 * (size_t)ctx->dvCapacity * sizeof( double ) );
        }
        ctx->resPerStep[ctx->step] = NormalRes( problem, lambda, ctx->dv );
    }
}

static cnWorldId Load( const char* scene, LogCounter* log )
{
    char path[MAX_PATH];
    snprintf( path, sizeof( path ), "%s/scenes/%s.json", CN_ASSETS_DIR, scene );
    return LoadScene( path, NULL, 0, NULL, 0, log, NULL );
}

// Steps `scene` with its own solver up to `step` and captures that step's final pass.
static bool CaptureStep( const char* scene, int step, bool normalOnly, Captured* captured,
                         cnStepReport* report )
{
    LogCounter log = { 0 };
    cnWorldId world = Load( scene, &log );
    if ( CN_IS_NULL( world ) )
    {
        return false;
    }
    CaptureContext ctx = { .target = step, .normalOnly = normalOnly, .captured = captured };
    cnWorld_SetProblemFcn( world, OnProblem, &ctx );
    double dt = cnWorld_GetDef( world ).timeStep;
    bool ok = true;
    for ( int k = 1; k <= step && ok; ++k )
    {
        ctx.step = k;
        ok = cnWorld_Step( world, dt ) == cn_statusOk;
    }
    *report = cnWorld_GetStepReport( world );
    cnDestroyWorld( world );
    if ( ok == false || captured->taken == false )
    {
        Fail( "%s: no problem captured at step %d", scene, step );
        return false;
    }
    return true;
}

typedef struct Table1Result
{
    bool loaded;
    int rows;
    int bodies;
    double maxDiff; // max |lambda_amgs(0.5) - lambda_pgs| after 200 sweeps from zero
    ToTarget cold[TABLE1_COUNT];
    ToTarget warm[TABLE1_COUNT];
    double startRes;
} Table1Result;

static void RunTable1( const Table1Scene* spec, const Options* options, Table1Result* r )
{
    Captured c = { 0 };
    cnStepReport report;
    fprintf( stderr, "(a) %s: capturing step %d\n", spec->scene, options->table1Step );
    if ( CaptureStep( spec->scene, options->table1Step, true, &c, &report ) == false )
    {
        FreeCaptured( &c );
        return;
    }
    r->loaded = true;
    r->rows = c.problem.rowCount;
    r->bodies = c.problem.bodyCount;
    double* dv = Calloc( 6 * (size_t)( r->bodies > 0 ? r->bodies : 1 ), sizeof( double ) );
    r->startRes = NormalRes( &c.problem, c.start, dv );
    // AMGS with Omega = D / gamma is PGS: the two iterates after 200 sweeps
    double* a = Calloc( (size_t)r->rows, sizeof( double ) );
    double* b = Calloc( (size_t)r->rows, sizeof( double ) );
    Solve( s_table1 + 0, &c.problem, NULL, 200, a, dv );
    Solve( s_table1 + 1, &c.problem, NULL, 200, b, dv );
    for ( int i = 0; i < r->rows; ++i )
    {
        r->maxDiff = fmax( r->maxDiff, fabs( a[i] - b[i] ) );
    }
    free( a );
    free( b );
    free( dv );
    for ( int s = 0; s < TABLE1_COUNT; ++s )
    {
        fprintf( stderr, "    %s\n", s_table1[s].label );
        r->cold[s] = SweepsToTarget( s_table1 + s, &c.problem, NULL, options );
        r->warm[s] = SweepsToTarget( s_table1 + s, &c.problem, c.start, options );
    }
    FreeCaptured( &c );
}

// ---------------------------------------------------------------------------------------------
// (b) whole runs

typedef struct WholeRun
{
    bool ok;
    int steps;
    double* merit; // (steps + 1) per step, index = step
    double* res;   // (steps + 1)
    double cpuS;   // the steps
    double solveMs;
    int badSteps; // status other than max_iterations or converged
    double maxPenetration;
    double finalEnergy;
    int meanRows;
} WholeRun;

static void RunWhole( const char* scene, const Variant* v, const Options* options, WholeRun* w )
{
    LogCounter log = { 0 };
    cnWorldId world = Load( scene, &log );
    if ( CN_IS_NULL( world ) )
    {
        return;
    }
    bool ok = cnWorld_SetSolver( world, v->solver ) == cn_statusOk;
    ok = ok && cnWorld_SetSolverParam( world, "iterations", 10.0 ) == cn_statusOk;
    ok = ok && cnWorld_SetSolverParam( world, "tolerance", 0.0 ) == cn_statusOk;
    ok = ok && cnWorld_SetSolverParam( world, "warm_start", 1.0 ) == cn_statusOk;
    ok = ok && cnWorld_SetSolverParam( world, "divergence_factor", 0.0 ) == cn_statusOk;
    if ( v->alpha > 0.0 )
    {
        ok = ok && cnWorld_SetSolverParam( world, "alpha", v->alpha ) == cn_statusOk;
    }
    if ( v->relaxation > 0.0 )
    {
        ok = ok && cnWorld_SetSolverParam( world, "relaxation", v->relaxation ) == cn_statusOk;
    }
    if ( ok == false )
    {
        Fail( "%s: cannot set up %s", scene, v->label );
        cnDestroyWorld( world );
        return;
    }
    int steps = options->runSteps;
    w->steps = steps;
    w->merit = Calloc( (size_t)steps + 1, sizeof( double ) );
    w->res = Calloc( (size_t)steps + 1, sizeof( double ) );
    for ( int k = 0; k <= steps; ++k )
    {
        w->merit[k] = (double)NAN;
        w->res[k] = (double)NAN;
    }
    CaptureContext ctx = { .target = -1, .resPerStep = w->res };
    cnWorld_SetProblemFcn( world, OnProblem, &ctx );
    double dt = cnWorld_GetDef( world ).timeStep;
    double rows = 0.0;
    double t0 = CpuSeconds();
    for ( int k = 1; k <= steps && ok; ++k )
    {
        ctx.step = k;
        ok = cnWorld_Step( world, dt ) == cn_statusOk;
        cnStepReport report = cnWorld_GetStepReport( world );
        w->merit[k] = report.solverResidual;
        w->solveMs += report.solveMs;
        w->maxPenetration = fmax( w->maxPenetration, report.maxPenetration );
        w->finalEnergy = report.kineticEnergy;
        rows += report.solverRows;
        if ( report.solverRows > 0 && report.solverStatus != cn_solveMaxIterations &&
             report.solverStatus != cn_solveConverged )
        {
            w->badSteps += 1;
        }
    }
    w->cpuS = CpuSeconds() - t0;
    w->meanRows = (int)( rows / ( steps > 0 ? steps : 1 ) + 0.5 );
    free( ctx.dv );
    cnDestroyWorld( world );
    if ( ok == false )
    {
        Fail( "%s with %s: a step failed", scene, v->label );
        return;
    }
    w->ok = true;
}

// mean and geometric mean of values[from..to] that are finite (NAN when none)
static void Means( const double* values, int from, int to, double* mean, double* geo )
{
    double sum = 0.0, logSum = 0.0;
    int n = 0, nLog = 0;
    for ( int k = from; k <= to; ++k )
    {
        if ( isfinite( values[k] ) )
        {
            sum += values[k];
            n += 1;
            if ( values[k] > 0.0 )
            {
                logSum += log( values[k] );
                nLog += 1;
            }
        }
    }
    *mean = n > 0 ? sum / n : (double)NAN;
    *geo = nLog > 0 ? exp( logSum / nLog ) : (double)NAN;
}

static double MaxOf( const double* values, int from, int to )
{
    double m = (double)NAN;
    for ( int k = from; k <= to; ++k )
    {
        if ( isfinite( values[k] ) && !( values[k] <= m ) )
        {
            m = values[k];
        }
    }
    return m;
}

// ---------------------------------------------------------------------------------------------
// (c) work-precision

typedef struct Curve
{
    int points;
    int sweeps[MAX_POINTS];
    double ms[MAX_POINTS];
    double merit[MAX_POINTS];
} Curve;

typedef struct PlotResult
{
    bool loaded;
    int rows;
    int contacts;
    int step;
    Curve curves[PLOTTED_COUNT];
} PlotResult;

static void RunPlotScene( const PlotScene* spec, const Options* options, PlotResult* r )
{
    Captured c = { 0 };
    cnStepReport report;
    r->step = options->plotStep > 0 ? options->plotStep : spec->step;
    fprintf( stderr, "(c) %s: capturing step %d\n", spec->scene, r->step );
    if ( CaptureStep( spec->scene, r->step, false, &c, &report ) == false )
    {
        FreeCaptured( &c );
        return;
    }
    r->loaded = true;
    r->rows = c.problem.rowCount;
    r->contacts = c.contacts;
    double* lambda = Calloc( (size_t)r->rows, sizeof( double ) );
    double* dv =
        Calloc( 6 * (size_t)( c.problem.bodyCount > 0 ? c.problem.bodyCount : 1 ), sizeof( double ) );
    for ( int s = 0; s < PLOTTED_COUNT; ++s )
    {
        fprintf( stderr, "    %s\n", s_plotted[s].label );
        Curve* curve = r->curves + s;
        double spent = 0.0;
        Solve( s_plotted + s, &c.problem, NULL, 1, lambda, dv ); // warm-up, not counted
        for ( int k = 1; k <= options->plotMaxSweep && curve->points < MAX_POINTS; k *= 2 )
        {
            // short solves are repeated until minTimeS has passed (the mean is kept)
            Run run = { 0 };
            double total = 0.0;
            int repeats = 0;
            do
            {
                run = Solve( s_plotted + s, &c.problem, NULL, k, lambda, dv );
                total += run.ms;
                repeats += 1;
            } while ( 1.0e-3 * total < options->minTimeS && repeats < 100 );
            if ( isfinite( run.stats.residual ) == false )
            {
                Fail( "%s on %s: merit not finite after %d sweeps", s_plotted[s].label, spec->scene, k );
                break;
            }
            curve->sweeps[curve->points] = k;
            curve->ms[curve->points] = total / repeats;
            curve->merit[curve->points] = run.stats.residual;
            curve->points += 1;
            spent += 1.0e-3 * total;
            if ( spent > options->plotDeadlineS )
            {
                break;
            }
        }
    }
    free( lambda );
    free( dv );
    FreeCaptured( &c );
}

static void WritePlotScene( const PlotScene* spec, const PlotResult* r, const Options* options )
{
    char title[256], path[MAX_PATH];
    snprintf( title, sizeof( title ), "%s, step %d (%d rows): grading merit from zero", spec->scene, r->step,
              r->rows );
    cnPlot* plot = cnPlot_Create( title, "log10 CPU time (ms)", "merit (natural map)", true );
    for ( int s = 0; s < PLOTTED_COUNT; ++s )
    {
        const Curve* curve = r->curves + s;
        double x[MAX_POINTS], y[MAX_POINTS];
        for ( int i = 0; i < curve->points; ++i )
        {
            x[i] = log10( fmax( curve->ms[i], 1.0e-3 ) );
            y[i] = curve->merit[i];
        }
        cnPlot_AddSeries( plot, s_plotted[s].label, x, y, curve->points );
    }
    MakeDir( options->plots );
    snprintf( path, sizeof( path ), "%s/amgs_%s.svg", options->plots, spec->scene );
    if ( cnPlot_WriteSvg( plot, path ) == false )
    {
        Fail( "cannot write %s", path );
    }
    else
    {
        fprintf( stderr, "writing %s\n", path );
    }
    cnPlot_Destroy( plot );
}

// ---------------------------------------------------------------------------------------------
// the report

static void CpuName( char* cpu, size_t size )
{
    snprintf( cpu, size, "unknown CPU" );
    FILE* f = fopen( "/proc/cpuinfo", "r" );
    if ( f == NULL )
    {
        return;
    }
    char line[512];
    while ( fgets( line, sizeof( line ), f ) != NULL )
    {
        if ( strncmp( line, "model name", 10 ) == 0 )
        {
            const char* colon = strchr( line, ':' );
            if ( colon != NULL )
            {
                snprintf( cpu, size, "%s", colon + 2 );
                cpu[strcspn( cpu, "\n" )] = '\0';
            }
            break;
        }
    }
    fclose( f );
}

static void SweepCell( const ToTarget* t, const Options* options, char* text, size_t size )
{
    if ( t->sweeps > 0 )
    {
        snprintf( text, size, "%d | %.3g | %.3g", t->sweeps, t->ms, t->usPerSweep );
    }
    else
    {
        snprintf( text, size, "> %d (RES %.1e) | - | -", options->maxSweeps, t->res );
    }
}

static void ReportTable1( Report* rep, const Table1Result* results, const Options* options )
{
    Say( rep, "## (a) Table 1: sweeps and time to RES < 1e-4 on one step's LCP\n\n" );
    Say( rep,
         "The paper's Table 1 in Cairn: each scene (friction 0, as the paper's Table 1) is run with pgs "
         "(10 sweeps, warm-started) to step %d; the world's final pass of that step (the hard problem, "
         "after the soft pass: docs/solvers.md) is captured through the problem callback "
         "(cnWorld_SetProblemFcn), matrix-free as the world solves it, and its normal rows are kept "
         "(the tangent rows of a frictionless contact are held at 0, so this is the same LCP). Each "
         "variant then solves it with cnRunSolver, with no stopping rule but the sweep budget "
         "(tolerance 0, divergence_factor 0), and RES = ||min(lambda, A lambda + q)||_2 (eq. 32, over "
         "the normal rows, lambda in N s, A lambda + q in m/s as the paper's) is computed afterwards. "
         "Sweeps: the fewest sweeps that end with RES < 1e-4 (budgets 1, 2, 4, ... from the same start, "
         "then a bisection between the last two: every run starts afresh, since AMGS's memory is not "
         "kept from one solve to the next). Time: CPU ms of one solve of that many sweeps through "
         "cnRunSolver (its preparation and the final grading included; repeated until %.2f s had "
         "passed, the mean); us/sweep: that time over the sweeps. Cold: from lambda = 0, as the paper. "
         "Warm: from the impulses the final pass started from (the soft pass's answer, itself "
         "warm-started from the step before). At most %d sweeps.\n\n",
         options->table1Step, options->minTimeS, options->maxSweeps );
    for ( int p = 0; p < TABLE1_SCENES; ++p )
    {
        const Table1Result* r = results + p;
        const Table1Scene* spec = s_table1Scenes + p;
        if ( r->loaded == false )
        {
            Say( rep, "### %s (`%s`): not captured\n\n", spec->label, spec->scene );
            continue;
        }
        Say( rep, "### %s (`%s.json`, step %d): %d normal rows, %d bodies; RES of the warm start %.2e\n\n",
             spec->label, spec->scene, options->table1Step, r->rows, r->bodies, r->startRes );
        Say( rep, "| method | cold: sweeps | ms | us/sweep | warm: sweeps | ms | us/sweep | paper: "
                  "iterations | paper: s |\n" );
        Say( rep, "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n" );
        for ( int s = 0; s < TABLE1_COUNT; ++s )
        {
            char cold[96], warm[96], paper[64];
            SweepCell( r->cold + s, options, cold, sizeof( cold ) );
            SweepCell( r->warm + s, options, warm, sizeof( warm ) );
            if ( s == 0 )
            {
                snprintf( paper, sizeof( paper ), "%d | %.3f", spec->paper.pgs, spec->paper.pgsS );
            }
            else if ( s == 1 )
            {
                snprintf( paper, sizeof( paper ), "%d | %.3f", spec->paper.dg, spec->paper.dgS );
            }
            else if ( s == 2 )
            {
                snprintf( paper, sizeof( paper ), "%d | %.3f", spec->paper.me, spec->paper.meS );
            }
            else
            {
                snprintf( paper, sizeof( paper ), "- | -" );
            }
            Say( rep, "| %s | %s | %s | %s |\n", s_table1[s].label, cold, warm, paper );
        }
        Say( rep,
             "\nAMGS alpha_d 0.5 against PGS, 200 sweeps from zero: max |lambda_amgs - lambda_pgs| = "
             "%.2e N s.\n\n",
             r->maxDiff );
    }
}

static void ReportWhole( Report* rep, WholeRun ( *runs )[TABLE2_COUNT], const Options* options )
{
    int steps = options->runSteps;
    Say( rep, "## (b) Table 2 and Figs 6 to 8: whole runs with 10 sweeps per solve\n\n" );
    Say( rep,
         "Each scene run for %d steps of 1/60 s (one substep) with 10 warm-started sweeps per solve "
         "(iterations 10, tolerance 0, warm_start 1, divergence_factor 0: no safeguard, as the paper's "
         "method), every variant from the same start. Each step of a Cairn inertial world solves the "
         "soft problem (10 sweeps) and then the hard one from its answer (relax_iterations, 3 sweeps; "
         "docs/solvers.md), so a step costs 13 sweeps where the paper's costs 10. Merit: the grading "
         "merit of the step's last solve from the step report (cnStepReport.solverResidual: the "
         "natural map of the box-friction LCP, unit-free, the same for every solver), averaged "
         "(arithmetic and geometric mean) over the steps t >= 60 and t >= 300. RES: the paper's eq. 32 "
         "over the normal rows of that last solve (computed in the problem callback, N s and m/s). "
         "Early max: the largest merit over the steps 1 to 100 (the paper's \"alpha 0.1 unstable for "
         "about the first 100 steps\" of Pool 2). Below 1e-12 from step: the first step from which the "
         "merit stays below 1e-12 (NaN merits, steps without contacts, count as below). Bad steps: "
         "solves that ended other than converged or max_iterations. CPU s: process CPU time of all "
         "the steps (every step, not only the solves). The variants' trajectories part early (a "
         "settling pile is chaotic), so from the first collisions on each solver solves its own "
         "problems: compare the settled regime and the rates, not single steps. PGS's line in the "
         "plot lies under AMGS 0.5's (the same iterates).\n\n",
         steps );
    for ( int p = 0; p < options->runScenes; ++p )
    {
        Say( rep, "### %s (`%s.json`)\n\n", s_runLabels[p], s_runScenes[p] );
        Say( rep, "| method | rows (mean) | merit 60-299: geo mean | t>=60: mean | geo mean | t>=300: mean | "
                  "geo mean | RES t>=60: mean | t>=300: mean | early max merit | below 1e-12 from step | bad "
                  "steps | max penetration (m) | CPU s |\n" );
        Say( rep, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n" );
        for ( int s = 0; s < TABLE2_COUNT; ++s )
        {
            const WholeRun* w = &runs[p][s];
            if ( w->ok == false )
            {
                Say( rep, "| %s | failed | | | | | | | | | | | | |\n", s_table2[s].label );
                continue;
            }
            double m60, g60, m300, g300, r60, r300, mMid, gMid, dummy;
            Means( w->merit, 60, steps < 299 ? steps : 299, &mMid, &gMid );
            Means( w->merit, 60, steps, &m60, &g60 );
            Means( w->merit, 300, steps, &m300, &g300 );
            Means( w->res, 60, steps, &r60, &dummy );
            Means( w->res, 300, steps, &r300, &dummy );
            double early = MaxOf( w->merit, 1, steps < 100 ? steps : 100 );
            // the first step from which every merit is below 1e-12
            int below = steps + 1;
            while ( below > 1 && !( w->merit[below - 1] >= 1.0e-12 ) )
            {
                below -= 1;
            }
            char belowText[32];
            snprintf( belowText, sizeof( belowText ), below <= steps ? "%d" : "-", below );
            Say( rep,
                 "| %s | %d | %.2e | %.2e | %.2e | %.2e | %.2e | %.2e | %.2e | %.2e | %s | %d | %.4f | %.3f "
                 "|\n",
                 s_table2[s].label, w->meanRows, gMid, m60, g60, m300, g300, r60, r300, early, belowText,
                 w->badSteps, w->maxPenetration, w->cpuS );
        }
        Say( rep, "\n" );
    }
    Say( rep, "Plot: `docs/images/amgs_whole_runs.svg` (the merit of every step t >= 60, one panel per "
              "scene).\n\n" );
}

static void WriteWholePlot( WholeRun ( *runs )[TABLE2_COUNT], const Options* options )
{
    cnPlot* panels[RUN_SCENES];
    int count = 0;
    int steps = options->runSteps;
    double* x = Calloc( (size_t)steps + 1, sizeof( double ) );
    for ( int p = 0; p < options->runScenes; ++p )
    {
        char title[128];
        snprintf( title, sizeof( title ), "%s: merit after each step (10 sweeps per solve, warm-started)",
                  s_runLabels[p] );
        cnPlot* plot = cnPlot_Create( title, "step", "merit (natural map)", true );
        int first = steps > 60 ? 60 : 1;
        for ( int k = first; k <= steps; ++k )
        {
            x[k - first] = (double)k;
        }
        for ( int s = 0; s < TABLE2_COUNT; ++s )
        {
            const WholeRun* w = &runs[p][s];
            if ( w->ok )
            {
                cnPlot_AddSeries( plot, s_table2[s].label, x, w->merit + first, steps - first + 1 );
            }
        }
        panels[count++] = plot;
    }
    char path[MAX_PATH];
    MakeDir( options->plots );
    snprintf( path, sizeof( path ), "%s/amgs_whole_runs.svg", options->plots );
    if ( cnPlot_WriteSvgPanels( (const cnPlot* const*)panels, count, path ) == false )
    {
        Fail( "cannot write %s", path );
    }
    else
    {
        fprintf( stderr, "writing %s\n", path );
    }
    for ( int i = 0; i < count; ++i )
    {
        cnPlot_Destroy( panels[i] );
    }
    free( x );
}

// sweeps and ms of the first budget whose merit is at or below `level` ("-" when none)
static void FirstBelow( const Curve* c, double level, char* text, size_t size )
{
    for ( int i = 0; i < c->points; ++i )
    {
        if ( c->merit[i] <= level )
        {
            snprintf( text, size, "%d / %.3g", c->sweeps[i], c->ms[i] );
            return;
        }
    }
    snprintf( text, size, "-" );
}

static void ReportPlots( Report* rep, const PlotResult* results, const Options* options )
{
    Say( rep, "## (c) Work-precision on Cairn's box scenes\n\n" );
    Say( rep,
         "The problem of one step of each scene (the world's final pass, with friction: pyramid "
         "model, 3 rows per contact point; captured after stepping the scene with its own solver), "
         "solved from zero with budgets of 1, 2, 4, ... sweeps up to %d (each budget a fresh solve, "
         "tolerance 0, divergence_factor 0); the grading merit (cnSolverStats.residual) against the "
         "solve's CPU time. AMGS uses its default box handling (`symmetric`). Table: sweeps / CPU ms of "
         "the first budget at or below each merit (a doubling grid, so within a factor 2).\n\n",
         options->plotMaxSweep );
    for ( int p = 0; p < options->plotScenes; ++p )
    {
        const PlotResult* r = results + p;
        if ( r->loaded == false )
        {
            Say( rep, "### %s: not captured\n\n", s_plotScenes[p].scene );
            continue;
        }
        Say( rep, "### `%s.json`, step %d: %d rows, %d contact points\n\n", s_plotScenes[p].scene, r->step,
             r->rows, r->contacts );
        Say( rep, "| method | merit <= 1e-2 | <= 1e-3 | <= 1e-4 | <= 1e-6 | last budget | its merit |\n" );
        Say( rep, "|---|---:|---:|---:|---:|---:|---:|\n" );
        for ( int s = 0; s < PLOTTED_COUNT; ++s )
        {
            const Curve* c = r->curves + s;
            char a[64], b[64], d[64], e[64];
            FirstBelow( c, 1e-2, a, sizeof( a ) );
            FirstBelow( c, 1e-3, b, sizeof( b ) );
            FirstBelow( c, 1e-4, d, sizeof( d ) );
            FirstBelow( c, 1e-6, e, sizeof( e ) );
            int last = c->points - 1;
            Say( rep, "| %s | %s | %s | %s | %s | %d | %.2e |\n", s_plotted[s].label, a, b, d, e,
                 last >= 0 ? c->sweeps[last] : 0, last >= 0 ? c->merit[last] : (double)NAN );
        }
        Say( rep, "\nPlot: `docs/images/amgs_%s.svg`.\n\n", s_plotScenes[p].scene );
    }
}

// ---------------------------------------------------------------------------------------------
// main

static void Usage( FILE* out )
{
    fprintf( out, "usage: cairn_bench_amgs [--out DIR] [--plots DIR] [--quick]\n" );
}

int main( int argc, char** argv )
{
    BenchSetup( "cairn_bench_amgs", 3, NULL );
    Options options = {
        .out = CN_SOURCE_DIR "/tests/bench/results/amd_epyc_2vcpu",
        .plots = CN_SOURCE_DIR "/docs/images",
        .table1Step = 100,
        .maxSweeps = 200000,
        .minTimeS = 0.05,
        .runSteps = 1000,
        .runScenes = RUN_SCENES,
        .plotScenes = PLOT_SCENES,
        .plotMaxSweep = 8192,
        .plotDeadlineS = 20.0,
    };
    for ( int i = 1; i < argc; ++i )
    {
        if ( strcmp( argv[i], "--out" ) == 0 && i + 1 < argc )
        {
            options.out = argv[++i];
        }
        else if ( strcmp( argv[i], "--plots" ) == 0 && i + 1 < argc )
        {
            options.plots = argv[++i];
        }
        else if ( strcmp( argv[i], "--quick" ) == 0 )
        {
            options.quick = true;
        }
        else if ( strcmp( argv[i], "--help" ) == 0 || strcmp( argv[i], "-h" ) == 0 )
        {
            Usage( stdout );
            return 0;
        }
        else
        {
            fprintf( stderr, "cairn_bench_amgs: unknown option '%s'\n", argv[i] );
            Usage( stderr );
            return 2;
        }
    }
    if ( options.quick )
    {
        // the smoke run: small steps and budgets, one scene of (b) and (c)
        options.table1Step = 20;
        options.maxSweeps = 512;
        options.minTimeS = 0.0;
        options.runSteps = 80;
        options.runScenes = 1;
        options.plotScenes = 1;
        options.plotStep = 5;
        options.plotMaxSweep = 16;
        options.plotDeadlineS = 2.0;
    }

    MakeDir( options.out );
    char path[MAX_PATH];
    snprintf( path, sizeof( path ), "%s/amgs.md", options.out );
    Report rep = { 0 };
    rep.file = fopen( path, "w" );
    if ( rep.file == NULL )
    {
        Fail( "cannot write %s", path );
    }
    else
    {
        fprintf( stderr, "writing %s\n", path );
    }

    Table1Result* t1 = Calloc( TABLE1_SCENES, sizeof( Table1Result ) );
    for ( int p = 0; p < TABLE1_SCENES; ++p )
    {
        RunTable1( s_table1Scenes + p, &options, t1 + p );
    }
    WholeRun( *runs )[TABLE2_COUNT] = Calloc( RUN_SCENES, sizeof( *runs ) );
    for ( int p = 0; p < options.runScenes; ++p )
    {
        for ( int s = 0; s < TABLE2_COUNT; ++s )
        {
            fprintf( stderr, "(b) %s: %s\n", s_runScenes[p], s_table2[s].label );
            RunWhole( s_runScenes[p], s_table2 + s, &options, &runs[p][s] );
        }
    }
    PlotResult* plots = Calloc( PLOT_SCENES, sizeof( PlotResult ) );
    for ( int p = 0; p < options.plotScenes; ++p )
    {
        RunPlotScene( s_plotScenes + p, &options, plots + p );
        if ( plots[p].loaded )
        {
            WritePlotScene( s_plotScenes + p, plots + p, &options );
        }
    }
    WriteWholePlot( runs, &options );

    char cpu[256], date[64];
    CpuName( cpu, sizeof( cpu ) );
    time_t now = time( NULL );
    struct tm tm;
    gmtime_r( &now, &tm );
    strftime( date, sizeof( date ), "%Y-%m-%d", &tm );
    Say( &rep, "# AMGS against PGS and PSOR on the paper's disc scenes\n\n" );
    Say( &rep,
         "Miyamoto and Yamashita's accelerated modulus-based Gauss-Seidel method (solver `amgs`, "
         "solvers/solver_amgs.c; the digest ../shared/papers/amgs.md) on Cairn versions of the paper's "
         "2-D disc scenes (`assets/scenes/amgs_*.json`, made by tests/bench/make_amgs_scenes.py: "
         "spheres held in the x-z plane, one substep of 1/60 s) and on two of Cairn's box scenes. "
         "AMGS with Omega = alpha D relaxes every row by 2 / (1 + 2 alpha) (gamma 2) and keeps an "
         "overshoot memory; alpha 0.5 is PGS exactly; PSOR at the same relaxation is the method without "
         "the memory.\n\n" );
    Say( &rep, "Machine: %s, %ld CPUs online; build %s; %s.%s\n\n", cpu, sysconf( _SC_NPROCESSORS_ONLN ),
         CN_BUILD_TYPE, date,
         options.quick ? " **Quick run (smoke test): small budgets, not for comparison.**" : "" );
    Say( &rep, "Command:" );
    for ( int i = 0; i < argc; ++i )
    {
        Say( &rep, " %s", i == 0 ? BaseName( argv[0] ) : argv[i] );
    }
    Say( &rep, "\n\n" );
    ReportTable1( &rep, t1, &options );
    ReportWhole( &rep, runs, &options );
    ReportPlots( &rep, plots, &options );
    CloseReport( &rep );

    for ( int p = 0; p < RUN_SCENES; ++p )
    {
        for ( int s = 0; s < TABLE2_COUNT; ++s )
        {
            free( runs[p][s].merit );
            free( runs[p][s].res );
        }
    }
    free( runs );
    free( t1 );
    free( plots );
    return BenchFailures() > 0 ? 1 : 0;
}
