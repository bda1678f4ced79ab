// SPDX-License-Identifier: MIT
// PGS with subspace minimisation (Morales, Nocedal and Smelyanskiy; ../shared/papers/pgs-sm.md,
// sections 4 and 6) against PGS, the Newton methods and Lemke on contact problems like the paper's
// Open Dynamics Engine "destruction" LCPs: the ode_* scenes of assets/scenes (make_scenes.py), and
// two ill-conditioned problems of Cairn's own stacking scenes (mass_ratio and pyramid20, step 60). For
// each scene the `cairn` tool dumps the problem of one step (`cairn run SCENE --steps K
// --dump-problem K FILE`, into a scratch directory), the benchmark reads it back with
// cnReadProblemFile and solves it from zero with every solver to the grading merit 1e-8 (the natural
// map, cnSolverStats.residual), within a deadline. Output: the paper's Tables 1 to 4 in markdown
// (OUT/pgs_sm.md, and stdout) and a work-precision plot per problem (PLOTS/pgs_sm_<scene>.svg).
//
// cairn_bench_pgs_sm [--scenes a,b,c] [--deadline-s S] [--out DIR] [--plots DIR] [--scratch DIR]
//                    [--cairn PATH] [--quick]
//
// Times are process CPU time (CLOCK_PROCESS_CPUTIME_ID) around cnRunSolver. See tests/bench/README.md,
// "bench_pgs_sm". Exit status 1 when a problem cannot be dumped or read, or a merit is not finite.
#define _POSIX_C_SOURCE 200809L

#include "bench_common.h"
#include "bench_plot.h"

#include "cairn/cairn.h"
#include "cairn/lcp_io.h"
#include "cairn/solver.h"

#include <fcntl.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef CN_ASSETS_DIR
#    define CN_ASSETS_DIR "assets"
#endif
#ifndef CN_SOURCE_DIR
#    define CN_SOURCE_DIR "."
#endif
#ifndef CN_BINARY_DIR
#    define CN_BINARY_DIR "."
#endif
#ifndef CN_CAIRN_PATH
#    define CN_CAIRN_PATH ""
#endif
#ifndef CN_BUILD_TYPE
#    define CN_BUILD_TYPE "unknown"
#endif

// the grading merit every solve aims at (the paper's tol)
#define TARGET_MERIT 1.0e-8
// PGS's sweep budget, and the most iterations any other solver gets
#define PGS_MAX_SWEEPS 1000000
#define MAX_ITERATIONS 1000000
// Lemke's dense limit (its description: "up to 4096 rows")
#define LEMKE_MAX_ROWS 4096
// the sweep counts of Table 2
#define ACTIVE_CHECKS 5
static const int s_activeSweeps[ACTIVE_CHECKS] = { 2, 20, 100, 1000, 10000 };
// the merits of Table 1 (and the last one, the target)
#define MERIT_MARKS 3
static const double s_meritMarks[MERIT_MARKS] = { 1.0e-1, 1.0e-2, TARGET_MERIT };
// points of a work-precision line at most (doubling budgets: 2^20 > PGS_MAX_SWEEPS)
#define MAX_POINTS 48
#define MAX_SCENES 16
#define MAX_PATH   1024

// ---------------------------------------------------------------------------------------------
// the scenes and the solvers

typedef struct SceneSpec
{
    const char* name;
    int step; // the step whose problem is dumped (make_scenes.py, ODE_STEPS)
} SceneSpec;

// smallest first; the same steps as make_scenes.py's ODE_STEPS and the scenes' descriptions
static const SceneSpec s_scenes[] = {
    { "ode_stack_ratio100", 16 }, { "ode_tower_projectile", 15 },    { "ode_wall_projectile", 12 },
    { "ode_pile", 40 },           { "ode_big_wall_projectile", 12 }, { "mass_ratio", 60 },
    { "pyramid20", 60 },
};
#define SCENE_COUNT ( (int)( sizeof( s_scenes ) / sizeof( s_scenes[0] ) ) )

typedef struct SolverSpec
{
    const char* label; // in the tables and the legend
    const char* name;  // registered name
    int kgs, ksm;      // pgs_sm's k_gs and k_sm (0: not set)
    bool continuous;   // stateless sweeps: measured as one run in pieces (PGS)
} SolverSpec;

enum
{
    SOLVER_SM53 = 0,
    SOLVER_SM23,
    SOLVER_SM52,
    SOLVER_SM51,
    SOLVER_PGS,
    SOLVER_MINMAP,
    SOLVER_FB,
    SOLVER_LEMKE,
    SOLVER_COUNT
};

static const SolverSpec s_solvers[SOLVER_COUNT] = {
    { "PGS-SM(5,3)", "pgs_sm", 5, 3, false },
    { "PGS-SM(2,3)", "pgs_sm", 2, 3, false },
    { "PGS-SM(5,2)", "pgs_sm", 5, 2, false },
    { "PGS-SM(5,1)", "pgs_sm", 5, 1, false },
    { "PGS", "pgs", 0, 0, true },
    { "Newton min-map", "newton_minmap", 0, 0, false },
    { "Newton FB", "newton_fb", 0, 0, false },
    { "Lemke", "lemke", 0, 0, false },
};

// what one solver did on one problem
typedef struct Outcome
{
    bool registered;
    bool ran;         // false: skipped or not registered (note says why)
    const char* note; // static text
    cnSolveStatus status;
    const char* reason; // the solver's reason, static
    bool reached;       // merit <= TARGET_MERIT
    int iterations;     // of the last run (PGS: sweeps in all)
    double cpuMs;       // of the last run (PGS: all pieces)
    double merit;
    int factorizations;
    int fallbacks;
    int freeRows;
    double totalCpuMs; // everything this solver spent on the problem, the plot's runs included
    int points;
    double pointMs[MAX_POINTS];
    double pointMerit[MAX_POINTS];
} Outcome;

// what PGS's continuous run recorded for Tables 1 and 2
typedef struct PgsTrace
{
    int sweepsTo[MERIT_MARKS]; // 0: not reached
    double msTo[MERIT_MARKS];
    int sweepsDone;
    double* iterate[ACTIVE_CHECKS]; // lambda after s_activeSweeps[i] sweeps (NULL: not reached)
} PgsTrace;

typedef struct Options
{
    const char* scenes[MAX_SCENES];
    int sceneCount;
    double deadlineS;
    const char* out;
    const char* plots;
    const char* scratch;
    const char* cairn;
    bool quick;
    int maxBudget; // the largest budget of the doubling runs (and PGS's sweeps)
} Options;

// ---------------------------------------------------------------------------------------------
// running `cairn run ... --dump-problem`

static bool IsExecutable( const char* path )
{
    return path != NULL && path[0] != '\0' && access( path, X_OK ) == 0;
}

// The cairn tool: --cairn, else the build's (CN_CAIRN_PATH), else `cairn` next to this program or in
// the build tree's demos/ directory.
static bool FindCairn( const char* given, char* path, size_t size )
{
    if ( given != NULL )
    {
        snprintf( path, size, "%s", given );
        return IsExecutable( path );
    }
    if ( IsExecutable( CN_CAIRN_PATH ) )
    {
        snprintf( path, size, "%s", CN_CAIRN_PATH );
        return true;
    }
    char self[MAX_PATH];
    ssize_t length = readlink( "/proc/self/exe", self, sizeof( self ) - 1 );
    if ( length <= 0 )
    {
        return false;
    }
    self[length] = '\0';
    char* slash = strrchr( self, '/' );
    if ( slash == NULL )
    {
        return false;
    }
    *slash = '\0';
    const char* candidates[] = { "", "/../../demos" };
    for ( int i = 0; i < 2; ++i )
    {
        int written = snprintf( path, size, "%s%s/cairn", self, candidates[i] );
        if ( written > 0 && (size_t)written < size && IsExecutable( path ) )
        {
            return true;
        }
    }
    return false;
}

// Runs argv[0] with its output (stdout and stderr) into `logPath`; true when it exits with 0.
static bool RunProgram( char* const* argv, const char* logPath )
{
    fflush( stdout );
    fflush( stderr );
    pid_t pid = fork();
    if ( pid < 0 )
    {
        Fail( "cannot fork to run %s", argv[0] );
        return false;
    }
    if ( pid == 0 )
    {
        int fd = open( logPath, O_WRONLY | O_CREAT | O_TRUNC, 0666 );
        if ( fd >= 0 )
        {
            dup2( fd, STDOUT_FILENO );
            dup2( fd, STDERR_FILENO );
            close( fd );
        }
        execv( argv[0], argv );
        _exit( 127 );
    }
    int status = 0;
    if ( waitpid( pid, &status, 0 ) != pid )
    {
        Fail( "waitpid failed for %s", argv[0] );
        return false;
    }
    return WIFEXITED( status ) && WEXITSTATUS( status ) == 0;
}

// Dumps the problem of scene `spec` into `file` (the scratch directory); true on success (said).
static bool DumpProblem( const char* cairn, const SceneSpec* spec, const char* scratch, char* file,
                         size_t size )
{
    char scene[MAX_PATH], steps[32], logPath[MAX_PATH];
    snprintf( scene, sizeof( scene ), "%s/scenes/%s.json", CN_ASSETS_DIR, spec->name );
    snprintf( steps, sizeof( steps ), "%d", spec->step );
    snprintf( file, size, "%s/%s.step%d.dat", scratch, spec->name, spec->step );
    snprintf( logPath, sizeof( logPath ), "%s/%s.log", scratch, spec->name );
    char* argv[] = { (char*)cairn,     "run", scene, "--steps", steps,
                     "--dump-problem", steps, file,  "--quiet", NULL };
    if ( RunProgram( argv, logPath ) == false )
    {
        Fail( "%s run %s --steps %s --dump-problem %s %s failed (its output: %s)", cairn, scene, steps, steps,
              file, logPath );
        return false;
    }
    return true;
}

// ---------------------------------------------------------------------------------------------
// running a solver

typedef struct RunResult
{
    cnSolverStats stats;
    double cpuMs;
    bool ok; // cnRunSolver ran it
} RunResult;

static void SetParam( const cnSolverVTable* solver, double* params, const char* name, double value )
{
    int index = cnFindSolverParam( solver, name );
    if ( index < 0 )
    {
        return;
    }
    const cnSolverParam* param = solver->params + index;
    value = fmax( param->minValue, fmin( param->maxValue, value ) );
    if ( cnCheckSolverParam( param, value, NULL, 0 ) == cn_statusOk )
    {
        params[index] = value;
    }
}

static int ParamMax( const cnSolverVTable* solver, const char* name, int fallback )
{
    int index = cnFindSolverParam( solver, name );
    if ( index < 0 )
    {
        return fallback;
    }
    double max = solver->params[index].maxValue;
    return max < (double)fallback ? (int)max : fallback;
}

// One solve of `problem` from `lambda` (in: start, out: result) with the budget and a deadline (s).
static RunResult Solve( const cnSolverVTable* solver, const SolverSpec* spec, cnSolverProblem* problem,
                        double* lambda, int iterations, double tolerance, double deadlineS )
{
    double params[CN_MAX_SOLVER_PARAMS];
    for ( int i = 0; i < solver->paramCount && i < CN_MAX_SOLVER_PARAMS; ++i )
    {
        params[i] = solver->params[i].defaultValue;
    }
    SetParam( solver, params, "iterations", (double)iterations );
    SetParam( solver, params, "tolerance", tolerance );
    SetParam( solver, params, "deadline_ms", fmax( 1.0, 1000.0 * deadlineS ) );
    SetParam( solver, params, "warm_start", 0.0 );
    // the paper's PGS runs its sweeps: no stop for a merit that grows on the way
    SetParam( solver, params, "divergence_factor", 0.0 );
    if ( spec->kgs > 0 )
    {
        SetParam( solver, params, "k_gs", (double)spec->kgs );
        SetParam( solver, params, "k_sm", (double)spec->ksm );
    }
    cnSolverSolution solution = { 0 };
    solution.lambda = lambda;
    RunResult result = { 0 };
    double start = CpuSeconds();
    cnStatus status = cnRunSolver( solver, params, problem, &solution, NULL, &result.stats );
    result.cpuMs = 1000.0 * ( CpuSeconds() - start );
    result.ok = status == cn_statusOk;
    return result;
}

static void AddPoint( Outcome* outcome, double ms, double merit )
{
    if ( outcome->points < MAX_POINTS )
    {
        outcome->pointMs[outcome->points] = ms;
        outcome->pointMerit[outcome->points] = merit;
        outcome->points += 1;
    }
}

static void TakeStats( Outcome* outcome, const RunResult* run )
{
    outcome->ran = true;
    outcome->status = run->stats.status;
    outcome->reason = run->stats.reason;
    outcome->merit = run->stats.residual;
    outcome->reached = run->stats.residual <= TARGET_MERIT;
    outcome->factorizations = run->stats.factorizations;
    outcome->fallbacks = run->stats.fallbacks;
    outcome->freeRows = run->stats.freeRows;
}

static void KeepBest( const double* lambda, double merit, int rows, double* best, double* bestMerit )
{
    if ( isfinite( merit ) && merit < *bestMerit )
    {
        *bestMerit = merit;
        memcpy( best, lambda, (size_t)rows * sizeof( double ) );
    }
}

// PGS, stateless from one sweep to the next, is run once from zero in pieces that end at the
// checkpoints (the plot's doubling sweep counts, Table 2's counts) or where the merit crosses the
// next mark of Table 1; every piece continues from the lambda the last one returned.
static void RunPgs( const cnSolverVTable* solver, const SolverSpec* spec, cnSolverProblem* problem,
                    const Options* options, Outcome* outcome, PgsTrace* trace, double* best,
                    double* bestMerit )
{
    int rows = problem->rowCount;
    double* lambda = Calloc( (size_t)problem->rowCapacity, sizeof( double ) );
    int maxSweeps = options->maxBudget < PGS_MAX_SWEEPS ? options->maxBudget : PGS_MAX_SWEEPS;
    maxSweeps = ParamMax( solver, "iterations", maxSweeps );
    int done = 0, mark = 0, nextDouble = 1;
    double cpuMs = 0.0;
    RunResult run = { 0 };
    while ( done < maxSweeps && mark < MERIT_MARKS )
    {
        int next = nextDouble < maxSweeps ? nextDouble : maxSweeps;
        for ( int i = 0; i < ACTIVE_CHECKS; ++i )
        {
            if ( s_activeSweeps[i] > done && s_activeSweeps[i] < next )
            {
                next = s_activeSweeps[i];
            }
        }
        double left = options->deadlineS - 1.0e-3 * cpuMs;
        run = Solve( solver, spec, problem, lambda, next - done, s_meritMarks[mark], left );
        if ( run.ok == false )
        {
            outcome->note = "cnRunSolver refused it";
            break;
        }
        cpuMs += run.cpuMs;
        done += run.stats.iterations;
        double merit = run.stats.residual;
        if ( isfinite( merit ) == false )
        {
            Fail( "PGS: the merit is not finite after %d sweeps", done );
            break;
        }
        while ( mark < MERIT_MARKS && merit <= s_meritMarks[mark] )
        {
            trace->sweepsTo[mark] = done;
            trace->msTo[mark] = cpuMs;
            mark += 1;
        }
        if ( done == nextDouble || mark == MERIT_MARKS )
        {
            AddPoint( outcome, cpuMs, merit );
        }
        if ( done == nextDouble )
        {
            nextDouble *= 2;
        }
        for ( int i = 0; i < ACTIVE_CHECKS; ++i )
        {
            if ( s_activeSweeps[i] == done && trace->iterate[i] == NULL )
            {
                trace->iterate[i] = Calloc( (size_t)rows, sizeof( double ) );
                memcpy( trace->iterate[i], lambda, (size_t)rows * sizeof( double ) );
            }
        }
        if ( cnSolveStatusIsUsable( run.stats.status, solver->caps ) == false ||
             run.stats.status == cn_solveDeadline || 1.0e-3 * cpuMs >= options->deadlineS ||
             ( run.stats.iterations <= 0 && run.stats.status != cn_solveConverged ) )
        {
            break;
        }
    }
    if ( outcome->note == NULL )
    {
        TakeStats( outcome, &run );
        if ( mark < MERIT_MARKS && 1.0e-3 * cpuMs >= options->deadlineS )
        {
            outcome->status = cn_solveDeadline;
        }
        else if ( mark < MERIT_MARKS && run.stats.status == cn_solveConverged )
        {
            outcome->status = cn_solveMaxIterations; // a piece converged to its mark, the budget ran out
        }
        outcome->iterations = done;
        outcome->cpuMs = cpuMs;
        outcome->totalCpuMs = cpuMs;
        if ( outcome->points == 0 || outcome->pointMs[outcome->points - 1] != cpuMs )
        {
            AddPoint( outcome, cpuMs, run.stats.residual );
        }
        KeepBest( lambda, run.stats.residual, rows, best, bestMerit );
    }
    trace->sweepsDone = done;
    free( lambda );
}

// Any other solver: cold runs at budgets 1, 2, 4, ... of its own iterations until one reaches the
// target merit, ends on the deadline or fails; the last run is the one the tables report.
static void RunDoubling( const cnSolverVTable* solver, const SolverSpec* spec, cnSolverProblem* problem,
                         const Options* options, Outcome* outcome, double* best, double* bestMerit )
{
    int rows = problem->rowCount;
    double* lambda = Calloc( (size_t)problem->rowCapacity, sizeof( double ) );
    int maxBudget = ParamMax( solver, "iterations",
                              options->maxBudget < MAX_ITERATIONS ? options->maxBudget : MAX_ITERATIONS );
    bool direct = ( solver->caps & cn_solverDirect ) != 0;
    if ( direct )
    {
        // a pivoting method has no useful intermediate iterate: one run with room for every pivot
        int pivots = 20 * rows > 1000 ? 20 * rows : 1000;
        maxBudget = ParamMax( solver, "iterations", pivots );
    }
    int budget = direct ? maxBudget : 1;
    RunResult run = { 0 };
    for ( ;; )
    {
        memset( lambda, 0, (size_t)problem->rowCapacity * sizeof( double ) );
        run = Solve( solver, spec, problem, lambda, budget, TARGET_MERIT, options->deadlineS );
        if ( run.ok == false )
        {
            outcome->note = "cnRunSolver refused it";
            break;
        }
        outcome->totalCpuMs += run.cpuMs;
        TakeStats( outcome, &run );
        outcome->iterations = run.stats.iterations;
        outcome->cpuMs = run.cpuMs;
        if ( cnSolveStatusIsUsable( run.stats.status, solver->caps ) == false )
        {
            break; // unsupported, failed: nothing to plot
        }
        if ( isfinite( run.stats.residual ) == false )
        {
            Fail( "%s: the merit is not finite after %d iterations", spec->label, run.stats.iterations );
            break;
        }
        AddPoint( outcome, run.cpuMs, run.stats.residual );
        KeepBest( lambda, run.stats.residual, rows, best, bestMerit );
        if ( outcome->reached || run.stats.status == cn_solveDeadline ||
             1.0e-3 * run.cpuMs >= options->deadlineS || budget >= maxBudget ||
             run.stats.iterations < budget )
        {
            break; // there (or stopped short of its budget: a larger one would do no more)
        }
        budget = budget > maxBudget / 2 ? maxBudget : 2 * budget;
    }
    free( lambda );
}

// ---------------------------------------------------------------------------------------------
// the active set

// Which bound row i of `lambda` is at: 0 none, -1 the lower, +1 the upper, 2 both (a friction row
// of a contact without normal impulse). `tau` is the distance that counts as "at".
static int BoundSide( const cnSolverProblem* problem, const cnRowGroup* group, int row, const double* lambda,
                      double tau )
{
    double x = lambda[row];
    double lower = -INFINITY, upper = INFINITY;
    switch ( (cnGroupKind)group->kind )
    {
        case cn_groupContact:
            if ( row == group->firstRow )
            {
                lower = 0.0;
            }
            else
            {
                double limit = group->mu * fmax( 0.0, lambda[group->firstRow] );
                if ( limit <= tau )
                {
                    return 2;
                }
                lower = -limit;
                upper = limit;
            }
            break;
        case cn_groupNormal:
            lower = 0.0;
            break;
        case cn_groupBounded:
        case cn_groupBilateral:
            lower = problem->lower[row];
            upper = problem->upper[row];
            break;
        default:
            break;
    }
    if ( x <= lower + tau )
    {
        return -1;
    }
    if ( x >= upper - tau )
    {
        return 1;
    }
    return 0;
}

static double ActiveTau( const double* reference, int rows )
{
    double scale = 0.0;
    for ( int i = 0; i < rows; ++i )
    {
        scale = fmax( scale, fabs( reference[i] ) );
    }
    return scale > 0.0 ? 1.0e-8 * scale : 1.0e-12;
}

// rows at a bound in `reference`; with `iterate`, the fraction of those at the same bound there
static int ActiveRows( const cnSolverProblem* problem, const double* reference, const double* iterate,
                       double* fraction )
{
    double tau = ActiveTau( reference, problem->rowCount );
    int active = 0, same = 0;
    for ( int g = 0; g < problem->groupCount; ++g )
    {
        const cnRowGroup* group = problem->groups + g;
        for ( int r = group->firstRow; r < group->firstRow + group->rowCount; ++r )
        {
            int side = BoundSide( problem, group, r, reference, tau );
            if ( side == 0 )
            {
                continue;
            }
            active += 1;
            if ( iterate != NULL )
            {
                int other = BoundSide( problem, group, r, iterate, tau );
                same += other == side || ( side == 2 && other != 0 ) || ( other == 2 && side != 0 ) ? 1 : 0;
            }
        }
    }
    if ( fraction != NULL )
    {
        *fraction = active > 0 ? (double)same / (double)active : 1.0;
    }
    return active;
}

// ---------------------------------------------------------------------------------------------
// one problem

typedef struct ProblemResult
{
    const char* scene;
    int step;
    bool loaded;
    int rows;
    int contacts;
    long long nonzeros;
    double readMs;
    Outcome outcomes[SOLVER_COUNT];
    PgsTrace pgs;
    double bestMerit;
    const char* bestSolver;
    int activeRows;
    double identified[ACTIVE_CHECKS]; // NaN: PGS did not get that far
} ProblemResult;

static void WriteWorkPrecision( const ProblemResult* result, const Options* options )
{
    char title[256], path[MAX_PATH];
    snprintf( title, sizeof( title ), "%s (step %d, %d rows): natural-map merit against CPU time",
              result->scene, result->step, result->rows );
    cnPlot* plot = cnPlot_Create( title, "log10 CPU time (ms)", "merit", true );
    int series = 0;
    for ( int s = 0; s < SOLVER_COUNT; ++s )
    {
        const Outcome* outcome = result->outcomes + s;
        if ( outcome->points == 0 )
        {
            continue;
        }
        double x[MAX_POINTS], y[MAX_POINTS];
        for ( int i = 0; i < outcome->points; ++i )
        {
            x[i] = log10( fmax( outcome->pointMs[i], 1.0e-3 ) );
            y[i] = outcome->pointMerit[i];
        }
        if ( outcome->points == 1 )
        {
            cnPlot_AddMarkers( plot, s_solvers[s].label, x, y, 1 );
        }
        else
        {
            cnPlot_AddSeries( plot, s_solvers[s].label, x, y, outcome->points );
        }
        series += 1;
    }
    cnPlot_AddHLine( plot, TARGET_MERIT, "1e-8" );
    if ( series > 0 )
    {
        MakeDir( options->plots );
        snprintf( path, sizeof( path ), "%s/pgs_sm_%s.svg", options->plots, result->scene );
        const cnPlot* panels[1] = { plot };
        if ( cnPlot_WriteSvgPanels( panels, 1, path ) == false )
        {
            Fail( "cannot write %s", path );
        }
        else
        {
            fprintf( stderr, "writing %s\n", path );
        }
    }
    cnPlot_Destroy( plot );
}

static void RunProblem( const SceneSpec* spec, const char* cairn, const Options* options,
                        ProblemResult* result )
{
    result->scene = spec->name;
    result->step = spec->step;
    result->bestMerit = INFINITY;
    for ( int i = 0; i < ACTIVE_CHECKS; ++i )
    {
        result->identified[i] = NAN;
    }
    char file[MAX_PATH];
    fprintf( stderr, "%s: dumping step %d\n", spec->name, spec->step );
    if ( DumpProblem( cairn, spec, options->scratch, file, sizeof( file ) ) == false )
    {
        return;
    }
    cnFileProblem fileProblem = { 0 };
    char message[CN_PROBLEM_MESSAGE_CAPACITY];
    double start = CpuSeconds();
    cnStatus status =
        cnReadProblemFile( file, cn_problemAuto, NULL, &fileProblem, message, (int)sizeof( message ) );
    result->readMs = 1000.0 * ( CpuSeconds() - start );
    if ( status != cn_statusOk )
    {
        Fail( "cannot read %s: %s", file, message );
        cnDestroyFileProblem( &fileProblem );
        return;
    }
    result->loaded = true;
    cnSolverProblem* problem = &fileProblem.problem;
    int rows = problem->rowCount;
    result->rows = rows;
    result->contacts = fileProblem.contactCount;
    result->nonzeros =
        fileProblem.matrix.rowStart != NULL ? fileProblem.matrix.rowStart[fileProblem.matrix.rows] : 0;
    fprintf( stderr, "%s: %d rows, %lld nonzeros (read in %.0f ms)\n", spec->name, rows, result->nonzeros,
             result->readMs );
    double* best = Calloc( (size_t)rows, sizeof( double ) );

    for ( int s = 0; s < SOLVER_COUNT; ++s )
    {
        const SolverSpec* solverSpec = s_solvers + s;
        Outcome* outcome = result->outcomes + s;
        const cnSolverVTable* solver = cnFindSolver( solverSpec->name );
        if ( solver == NULL )
        {
            outcome->note = "not registered";
            continue;
        }
        outcome->registered = true;
        if ( ( solver->caps & cn_solverDirect ) != 0 && rows > LEMKE_MAX_ROWS )
        {
            outcome->note = "skipped: more rows than its dense limit";
            continue;
        }
        fprintf( stderr, "%s: %s ...\n", spec->name, solverSpec->label );
        if ( solverSpec->continuous )
        {
            RunPgs( solver, solverSpec, problem, options, outcome, &result->pgs, best, &result->bestMerit );
        }
        else
        {
            RunDoubling( solver, solverSpec, problem, options, outcome, best, &result->bestMerit );
        }
        if ( outcome->ran && isfinite( outcome->merit ) && outcome->merit <= result->bestMerit )
        {
            result->bestSolver = solverSpec->label;
        }
        fprintf( stderr, "%s: %s: %s, %d iterations, merit %.3g, %.1f ms (%.1f ms in all)\n", spec->name,
                 solverSpec->label, outcome->ran ? cnSolveStatusName( outcome->status ) : outcome->note,
                 outcome->iterations, outcome->merit, outcome->cpuMs, outcome->totalCpuMs );
    }

    if ( isfinite( result->bestMerit ) )
    {
        result->activeRows = ActiveRows( problem, best, NULL, NULL );
        for ( int i = 0; i < ACTIVE_CHECKS; ++i )
        {
            if ( result->pgs.iterate[i] != NULL )
            {
                ActiveRows( problem, best, result->pgs.iterate[i], result->identified + i );
            }
        }
    }
    WriteWorkPrecision( result, options );
    for ( int i = 0; i < ACTIVE_CHECKS; ++i )
    {
        free( result->pgs.iterate[i] );
        result->pgs.iterate[i] = NULL;
    }
    free( best );
    cnDestroyFileProblem( &fileProblem );
}

// ---------------------------------------------------------------------------------------------
// the report

static void CpuModel( char* text, size_t size )
{
    snprintf( text, size, "unknown CPU" );
    FILE* file = fopen( "/proc/cpuinfo", "r" );
    if ( file == NULL )
    {
        return;
    }
    char line[512];
    while ( fgets( line, sizeof( line ), file ) != NULL )
    {
        if ( strncmp( line, "model name", 10 ) == 0 )
        {
            const char* colon = strchr( line, ':' );
            if ( colon != NULL )
            {
                snprintf( text, size, "%s", colon + 2 );
                text[strcspn( text, "\n" )] = '\0';
            }
            break;
        }
    }
    fclose( file );
}

static const char* StatusText( const Outcome* outcome )
{
    return outcome->ran ? cnSolveStatusName( outcome->status ) : outcome->note;
}

// "12.3" for a solver that reached the target, "> deadline" / its status otherwise
static void TimeText( const Outcome* outcome, const Options* options, char* text, size_t size )
{
    if ( outcome->ran == false )
    {
        snprintf( text, size, "%s", outcome->note != NULL ? outcome->note : "-" );
    }
    else if ( outcome->reached )
    {
        snprintf( text, size, "%.3g", outcome->cpuMs );
    }
    else if ( outcome->status == cn_solveDeadline || 1.0e-3 * outcome->cpuMs >= options->deadlineS )
    {
        snprintf( text, size, "> %g s (%.1e)", options->deadlineS, outcome->merit );
    }
    else if ( isfinite( outcome->merit ) && outcome->status != cn_solveUnsupported )
    {
        snprintf( text, size, "%s (%.1e)", cnSolveStatusName( outcome->status ), outcome->merit );
    }
    else
    {
        snprintf( text, size, "%s", cnSolveStatusName( outcome->status ) );
    }
}

static void SweepText( int sweeps, const PgsTrace* trace, char* text, size_t size )
{
    if ( sweeps > 0 )
    {
        snprintf( text, size, "%d", sweeps );
    }
    else
    {
        snprintf( text, size, "> %d", trace->sweepsDone );
    }
}

static void WriteReport( const ProblemResult* results, int count, const Options* options, int argc,
                         char** argv )
{
    char path[MAX_PATH];
    MakeDir( options->out );
    snprintf( path, sizeof( path ), "%s/pgs_sm.md", options->out );
    Report report = { fopen( path, "w" ) };
    if ( report.file == NULL )
    {
        Fail( "cannot write %s", path );
    }
    else
    {
        fprintf( stderr, "writing %s\n", path );
    }
    char cpu[256], date[64];
    CpuModel( cpu, sizeof( cpu ) );
    time_t now = time( NULL );
    struct tm tm;
    gmtime_r( &now, &tm );
    strftime( date, sizeof( date ), "%Y-%m-%d %H:%M UTC", &tm );
    long cores = sysconf( _SC_NPROCESSORS_ONLN );

    Say( &report, "# PGS-SM on ODE-like destruction problems (the paper's Tables 1 to 4)\n\n" );
    Say( &report,
         "Morales, Nocedal and Smelyanskiy's PGS with subspace minimisation (../shared/papers/pgs-sm.md) "
         "against PGS, the Newton methods and Lemke, on the contact problem of one step of each ode_ "
         "scene (assets/scenes, tests/bench/make_scenes.py), dumped with `cairn run SCENE --steps K "
         "--dump-problem K FILE` and read back with cnReadProblemFile: the pyramid-friction LCP "
         "(3 rows per contact point: a normal and two friction rows bounded by mu times the normal "
         "impulse), A + diag(softness) explicit. Every solver starts from lambda = 0 (as in the paper) "
         "and stops at the grading merit %.0e (the natural map, cnSolverStats.residual), at its "
         "iteration budget or at the deadline of %g s. Times are process CPU time around cnRunSolver "
         "(the layer's grading included).\n\n",
         TARGET_MERIT, options->deadlineS );
    Say( &report, "Machine: %s, %ld CPUs online; build %s; %s.%s\n\n", cpu, cores, CN_BUILD_TYPE, date,
         options->quick ? " **Quick run (smoke test): few budgets, not for comparison.**" : "" );
    Say( &report, "Command:" );
    for ( int i = 0; i < argc; ++i )
    {
        Say( &report, " %s", i == 0 ? BaseName( argv[0] ) : argv[i] );
    }
    Say( &report, "\n\n" );

    // Table 1
    Say( &report, "## Table 1: the problems, and PGS from zero\n\n" );
    Say( &report, "Sweeps of PGS (Gauss-Seidel over the rows in order, each clamped to its bounds) to the "
                  "natural-map merit 1e-1 and 1e-2, as in the paper's Table 1 (which gives n and the "
                  "condition number instead of the nonzeros). Active rows: rows at a bound in the most "
                  "accurate solution any solver found (its merit and solver in the last columns).\n\n" );
    Say( &report,
         "| problem | step | rows | contacts | nonzeros of A | PGS sweeps to 1e-1 | to 1e-2 | to 1e-8 | "
         "active rows | best merit | by |\n" );
    Say( &report, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n" );
    for ( int p = 0; p < count; ++p )
    {
        const ProblemResult* r = results + p;
        if ( r->loaded == false )
        {
            Say( &report, "| %s | %d | not dumped or not read | | | | | | | | |\n", r->scene, r->step );
            continue;
        }
        char s1[32], s2[32], s8[32];
        SweepText( r->pgs.sweepsTo[0], &r->pgs, s1, sizeof( s1 ) );
        SweepText( r->pgs.sweepsTo[1], &r->pgs, s2, sizeof( s2 ) );
        SweepText( r->pgs.sweepsTo[2], &r->pgs, s8, sizeof( s8 ) );
        Say( &report, "| %s | %d | %d | %d | %lld | %s | %s | %s | %d (%.0f %%) | %.1e | %s |\n", r->scene,
             r->step, r->rows, r->contacts, r->nonzeros, s1, s2, s8, r->activeRows,
             r->rows > 0 ? 100.0 * r->activeRows / r->rows : 0.0, r->bestMerit,
             r->bestSolver ? r->bestSolver : "-" );
    }

    // Table 2
    Say( &report, "\n## Table 2: the active set PGS identifies\n\n" );
    Say( &report,
         "Of the rows at a bound in the most accurate solution found (a normal impulse at 0, a "
         "friction impulse at +-mu times its normal impulse; within 1e-8 of the largest impulse), "
         "the percentage at the same bound in PGS's iterate after k sweeps from zero (\"-\": PGS "
         "stopped before, at the target or the deadline). The 4 points of a face contact make A "
         "singular up to the contacts' softness, so the normal impulses, and with them the active "
         "set, need not be unique: PGS spreads a load over all 4 points where the most accurate "
         "solution may leave one at 0, which is then active there but never identified by PGS.\n\n" );
    Say( &report, "| problem | active rows |" );
    for ( int i = 0; i < ACTIVE_CHECKS; ++i )
    {
        Say( &report, " k = %d |", s_activeSweeps[i] );
    }
    Say( &report, "\n|---|---:|" );
    for ( int i = 0; i < ACTIVE_CHECKS; ++i )
    {
        Say( &report, "---:|" );
    }
    Say( &report, "\n" );
    for ( int p = 0; p < count; ++p )
    {
        const ProblemResult* r = results + p;
        if ( r->loaded == false )
        {
            continue;
        }
        Say( &report, "| %s | %d |", r->scene, r->activeRows );
        for ( int i = 0; i < ACTIVE_CHECKS; ++i )
        {
            if ( isfinite( r->identified[i] ) )
            {
                Say( &report, " %.1f |", 100.0 * r->identified[i] );
            }
            else
            {
                Say( &report, " - |" );
            }
        }
        Say( &report, "\n" );
    }

    // Table 3
    Say( &report, "\n## Table 3: PGS(5)-SM(3) against PGS and the other solvers, to the merit 1e-8\n\n" );
    Say( &report,
         "CPU ms to the merit 1e-8 from zero (\"> deadline (merit)\": not there within the deadline, "
         "with the merit reached; otherwise the status and the merit). Speed-up: PGS's time over "
         "PGS-SM(5,3)'s (a lower bound, \">\", when PGS did not get there).\n\n" );
    Say( &report,
         "| problem | rows | PGS | PGS-SM(5,3) | factorizations | fallbacks | speed-up | Newton min-map | "
         "Newton FB | Lemke |\n" );
    Say( &report, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n" );
    for ( int p = 0; p < count; ++p )
    {
        const ProblemResult* r = results + p;
        if ( r->loaded == false )
        {
            continue;
        }
        const Outcome* pgs = r->outcomes + SOLVER_PGS;
        const Outcome* sm = r->outcomes + SOLVER_SM53;
        char tp[64], ts[64], tn[64], tf[64], tl[64], speed[64], fact[32], fall[32];
        TimeText( pgs, options, tp, sizeof( tp ) );
        TimeText( sm, options, ts, sizeof( ts ) );
        TimeText( r->outcomes + SOLVER_MINMAP, options, tn, sizeof( tn ) );
        TimeText( r->outcomes + SOLVER_FB, options, tf, sizeof( tf ) );
        TimeText( r->outcomes + SOLVER_LEMKE, options, tl, sizeof( tl ) );
        snprintf( speed, sizeof( speed ), "-" );
        if ( sm->ran && sm->reached && pgs->ran && sm->cpuMs > 0.0 )
        {
            snprintf( speed, sizeof( speed ), "%s%.3g", pgs->reached ? "" : "> ", pgs->cpuMs / sm->cpuMs );
        }
        snprintf( fact, sizeof( fact ), sm->ran ? "%d" : "-", sm->factorizations );
        snprintf( fall, sizeof( fall ), sm->ran ? "%d" : "-", sm->fallbacks );
        Say( &report, "| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s |\n", r->scene, r->rows, tp, ts,
             fact, fall, speed, tn, tf, tl );
    }

    // Table 4
    Say( &report, "\n## Table 4: PGS-SM's parameters (k_gs, k_sm)\n\n" );
    Say( &report, "Per variant: CPU ms to 1e-8 / factorizations / cycles (PGS-SM's iterations). k_sm = 1 is "
                  "close to Kocvara and Zowe's method.\n\n" );
    Say( &report, "| problem |" );
    for ( int s = SOLVER_SM53; s <= SOLVER_SM51; ++s )
    {
        Say( &report, " %s |", s_solvers[s].label );
    }
    Say( &report, "\n|---|" );
    for ( int s = SOLVER_SM53; s <= SOLVER_SM51; ++s )
    {
        Say( &report, "---:|" );
    }
    Say( &report, "\n" );
    for ( int p = 0; p < count; ++p )
    {
        const ProblemResult* r = results + p;
        if ( r->loaded == false )
        {
            continue;
        }
        Say( &report, "| %s |", r->scene );
        for ( int s = SOLVER_SM53; s <= SOLVER_SM51; ++s )
        {
            const Outcome* o = r->outcomes + s;
            char t[64];
            TimeText( o, options, t, sizeof( t ) );
            if ( o->ran )
            {
                Say( &report, " %s / %d / %d |", t, o->factorizations, o->iterations );
            }
            else
            {
                Say( &report, " %s |", t );
            }
        }
        Say( &report, "\n" );
    }

    // every run
    Say( &report, "\n## Every run\n\n" );
    Say( &report,
         "The run the tables report: for PGS the one run from zero (in pieces, see README), for the "
         "others the first of the doubling runs (budgets 1, 2, 4, ... of the solver's own iterations, "
         "each from zero) that reached 1e-8, or the last one. CPU ms in all: every run of that solver "
         "on the problem, the plot's included. Free rows: the last linear system's size (solvers "
         "that have one).\n\n" );
    Say( &report,
         "| problem | solver | status | iterations | CPU ms | factorizations | fallbacks | free rows | "
         "merit | CPU ms in all |\n" );
    Say( &report, "|---|---|---|---:|---:|---:|---:|---:|---:|---:|\n" );
    for ( int p = 0; p < count; ++p )
    {
        const ProblemResult* r = results + p;
        if ( r->loaded == false )
        {
            continue;
        }
        for ( int s = 0; s < SOLVER_COUNT; ++s )
        {
            const Outcome* o = r->outcomes + s;
            if ( o->ran == false )
            {
                Say( &report, "| %s | %s | %s | | | | | | | |\n", r->scene, s_solvers[s].label,
                     StatusText( o ) );
                continue;
            }
            Say( &report, "| %s | %s | %s%s%s%s | %d | %.3g | %d | %d | %d | %.2e | %.3g |\n", r->scene,
                 s_solvers[s].label, StatusText( o ), o->reason ? " (" : "", o->reason ? o->reason : "",
                 o->reason ? ")" : "", o->iterations, o->cpuMs, o->factorizations, o->fallbacks, o->freeRows,
                 o->merit, o->totalCpuMs );
        }
    }
    Say( &report,
         "\nPlots: `docs/images/pgs_sm_<scene>.svg` (merit against log10 CPU ms, one line per solver: "
         "PGS's merit after 1, 2, 4, ... sweeps of its one run; the others' doubling runs).\n" );
    CloseReport( &report );
}

// ---------------------------------------------------------------------------------------------
// main

static void Usage( FILE* out )
{
    fprintf( out, "usage: cairn_bench_pgs_sm [--scenes a,b,c] [--deadline-s S] [--out DIR] [--plots DIR]\n"
                  "                          [--scratch DIR] [--cairn PATH] [--quick]\n"
                  "scenes:" );
    for ( int i = 0; i < SCENE_COUNT; ++i )
    {
        fprintf( out, " %s", s_scenes[i].name );
    }
    fprintf( out, "\n" );
}

static const char* Value( int argc, char** argv, int* i )
{
    const char* arg = argv[*i];
    const char* eq = strchr( arg, '=' );
    if ( eq != NULL )
    {
        return eq + 1;
    }
    if ( *i + 1 >= argc )
    {
        fprintf( stderr, "cairn_bench_pgs_sm: %s needs a value\n", arg );
        exit( 2 );
    }
    *i += 1;
    return argv[*i];
}

static bool IsOption( const char* arg, const char* name )
{
    size_t n = strlen( name );
    return strncmp( arg, name, n ) == 0 && ( arg[n] == '\0' || arg[n] == '=' );
}

int main( int argc, char** argv )
{
    BenchSetup( "cairn_bench_pgs_sm", 3, NULL );
    Options options = { 0 };
    options.deadlineS = 60.0;
    options.out = CN_SOURCE_DIR "/tests/bench/results/amd_epyc_2vcpu";
    options.plots = CN_SOURCE_DIR "/docs/images";
    options.scratch = CN_BINARY_DIR "/pgs_sm_scratch";
    options.maxBudget = MAX_ITERATIONS;
    bool deadlineGiven = false;
    static char sceneList[1024];
    const char* scenesArg = NULL;
    for ( int i = 1; i < argc; ++i )
    {
        const char* arg = argv[i];
        if ( IsOption( arg, "--scenes" ) )
        {
            scenesArg = Value( argc, argv, &i );
        }
        else if ( IsOption( arg, "--deadline-s" ) )
        {
            char* end = NULL;
            const char* text = Value( argc, argv, &i );
            options.deadlineS = strtod( text, &end );
            if ( end == text || *end != '\0' || !( options.deadlineS > 0.0 ) || options.deadlineS > 1000.0 )
            {
                fprintf( stderr, "cairn_bench_pgs_sm: --deadline-s wants a number in (0, 1000], got '%s'\n",
                         text );
                return 2;
            }
            deadlineGiven = true;
        }
        else if ( IsOption( arg, "--out" ) )
        {
            options.out = Value( argc, argv, &i );
        }
        else if ( IsOption( arg, "--plots" ) )
        {
            options.plots = Value( argc, argv, &i );
        }
        else if ( IsOption( arg, "--scratch" ) )
        {
            options.scratch = Value( argc, argv, &i );
        }
        else if ( IsOption( arg, "--cairn" ) )
        {
            options.cairn = Value( argc, argv, &i );
        }
        else if ( strcmp( arg, "--quick" ) == 0 )
        {
            options.quick = true;
        }
        else if ( strcmp( arg, "--help" ) == 0 || strcmp( arg, "-h" ) == 0 )
        {
            Usage( stdout );
            return 0;
        }
        else
        {
            fprintf( stderr, "cairn_bench_pgs_sm: unknown option '%s'\n", arg );
            Usage( stderr );
            return 2;
        }
    }
    if ( options.quick )
    {
        // the smoke run: the smallest problem, budgets up to 64 iterations (PGS: 64 sweeps)
        options.maxBudget = 64;
        if ( deadlineGiven == false )
        {
            options.deadlineS = 5.0;
        }
        if ( scenesArg == NULL )
        {
            scenesArg = s_scenes[0].name;
        }
    }
    if ( scenesArg != NULL )
    {
        snprintf( sceneList, sizeof( sceneList ), "%s", scenesArg );
        for ( char* token = strtok( sceneList, "," ); token != NULL; token = strtok( NULL, "," ) )
        {
            if ( options.sceneCount < MAX_SCENES )
            {
                options.scenes[options.sceneCount++] = token;
            }
        }
    }
    else
    {
        for ( int i = 0; i < SCENE_COUNT; ++i )
        {
            options.scenes[options.sceneCount++] = s_scenes[i].name;
        }
    }
    const SceneSpec* chosen[MAX_SCENES];
    for ( int i = 0; i < options.sceneCount; ++i )
    {
        chosen[i] = NULL;
        for ( int k = 0; k < SCENE_COUNT; ++k )
        {
            if ( strcmp( options.scenes[i], s_scenes[k].name ) == 0 )
            {
                chosen[i] = s_scenes + k;
            }
        }
        if ( chosen[i] == NULL )
        {
            fprintf( stderr, "cairn_bench_pgs_sm: unknown scene '%s'\n", options.scenes[i] );
            Usage( stderr );
            return 2;
        }
    }
    char cairn[MAX_PATH];
    if ( FindCairn( options.cairn, cairn, sizeof( cairn ) ) == false )
    {
        fprintf( stderr, "cairn_bench_pgs_sm: no cairn tool found (pass --cairn PATH)\n" );
        return 1;
    }
    MakeDir( options.scratch );

    ProblemResult* results = Calloc( (size_t)options.sceneCount, sizeof( ProblemResult ) );
    for ( int i = 0; i < options.sceneCount; ++i )
    {
        RunProblem( chosen[i], cairn, &options, results + i );
    }
    WriteReport( results, options.sceneCount, &options, argc, argv );
    free( results );
    return BenchFailures() > 0 ? 1 : 0;
}
