// SPDX-License-Identifier: MIT
// tao: the bound-constrained quadratic program of a problem without friction, solved by PETSc's
// TAO on a PETSc matrix, serially or across MPI ranks (docs/solvers.md, "tao"; docs/scale-out.md).
//
//     minimise 1/2 x^T (A + S) x + b^T x   subject to   lower <= x <= upper,
//
// where a normal row has [0, inf), a bounded or bilateral row its own bounds. Its first-order
// conditions are the problem's complementarity conditions, so the layer's natural-map merit is
// zero exactly at TAO's minimiser. Contact groups with friction are refused (their bounds move
// with the normal impulse: not a box).
//
// Many ranks: every rank runs the same world and calls this solve with the same problem (the
// engine's steps give the same bits on every rank). The matrix is a PETSc MPIAIJ matrix whose rows
// are split in contiguous blocks across PETSC_COMM_WORLD; each rank assembles its own block from
// the problem, TAO runs on all of them, and the answer is gathered back to every rank, so that
// each keeps stepping the same world. Every decision that ends the solve (the merit, the budget,
// the deadline) is taken from reduced values, the same on every rank, so the ranks never part.
//
// PETSc is initialised on the first solve (MPI with it, when the process has not) and finalised
// at exit. PETSc is not thread-safe: solves are serialised by a mutex. Errors inside PETSc become a
// status and a reason, never an abort.

#include "arena.h"
#include "core.h"
#include "solver_kit.h"

#include <math.h>
#include <petsctao.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

// PETSc 3.18 returns plain zero for success (PETSC_SUCCESS came in 3.19)
#ifndef PETSC_SUCCESS
#    define PETSC_SUCCESS 0
#endif

enum
{
    cn_taoIterations = 0,
    cn_taoTolerance,
    cn_taoDeadline,
    cn_taoWarmStart,
    cn_taoMethod,
    cn_taoPreconditioner,
    cn_taoParamCount,
};

// TAO's bound-constrained methods, by the names TAO gives them
// (bqpip first, the default: on the colony's problems it is the one that converges in tens of iterations)
static const char* const cn_taoMethodChoices[] = { "bqpip", "bnls", "bntr", "gpcg", "blmvm", "bncg" };
#define CN_TAO_METHOD_COUNT 6
// the preconditioner of the Newton-type methods' inner Krylov solves
static const char* const cn_taoPcChoices[] = { "jacobi", "none", "bjacobi", "gamg", "hypre" };
#define CN_TAO_PC_COUNT 5

static const cnSolverParam cn_taoParams[cn_taoParamCount] = {
    { "iterations", "TAO iteration budget per solve", 1000.0, 1.0, 1000000.0, cn_paramInteger, NULL, 0 },
    { "tolerance", "stop when the grading merit (natural map, unit-free) is at most this (0: run the budget)",
      1e-6, 0.0, 1.0, cn_paramNumber, NULL, 0 },
    { "deadline_ms", "stop after this many milliseconds of a solve (0: no deadline)", 0.0, 0.0, 1e6,
      cn_paramNumber, NULL, 0 },
    { "warm_start", "1: the world starts from the contact cache's impulses", 1.0, 0.0, 1.0, cn_paramToggle,
      NULL, 0 },
    { "method",
      "TAO's method: bqpip (interior point), bnls (bounded Newton, line search), bntr (trust region), gpcg "
      "(gradient projection and CG), blmvm (limited-memory quasi-Newton), bncg (nonlinear CG)",
      0.0, 0.0, CN_TAO_METHOD_COUNT - 1, cn_paramChoice, cn_taoMethodChoices, CN_TAO_METHOD_COUNT },
    { "pc",
      "preconditioner of the Newton methods' Krylov solves: jacobi, none, bjacobi (incomplete Cholesky per "
      "rank), gamg (PETSc's algebraic multigrid), hypre (BoomerAMG)",
      0.0, 0.0, CN_TAO_PC_COUNT - 1, cn_paramChoice, cn_taoPcChoices, CN_TAO_PC_COUNT },
};

// ---- PETSc's life in the process ------------------------------------------------------------------

static pthread_mutex_t cn_taoMutex = PTHREAD_MUTEX_INITIALIZER;
static bool cn_taoStarted = false;
static bool cn_taoFailed = false;

static void cnTaoFinalize( void )
{
    PetscBool finalized = PETSC_TRUE;
    if ( PetscFinalized( &finalized ) == PETSC_SUCCESS && finalized == PETSC_FALSE )
    {
        (void)PetscFinalize();
    }
}

// PETSc (and MPI) started once per process; false when it cannot be
static bool cnTaoStart( void )
{
    if ( cn_taoStarted || cn_taoFailed )
    {
        return cn_taoStarted;
    }
    PetscBool initialized = PETSC_FALSE;
    if ( PetscInitialized( &initialized ) != PETSC_SUCCESS )
    {
        cn_taoFailed = true;
        return false;
    }
    if ( initialized == PETSC_FALSE )
    {
        // the engine's own signals and errors: PETSc neither traps the one nor prints the other
        (void)PetscOptionsSetValue( NULL, "-no_signal_handler", NULL );
        if ( PetscInitializeNoArguments() != PETSC_SUCCESS )
        {
            cn_taoFailed = true;
            return false;
        }
        atexit( cnTaoFinalize );
    }
    (void)PetscPushErrorHandler( PetscReturnErrorHandler, NULL );
    cn_taoStarted = true;
    return true;
}

// ---- one solve -----------------------------------------------------------------------------------------

typedef struct cnTaoRun
{
    const cnSolverProblem* problem;
    const cnPrepared* prepared;
    const cnSolverSolution* solution;
    cnSolverStats* stats;
    Mat matrix;
    Vec b;
    Vec w;        // (A + S) x + b at the iterate the test looks at
    PetscInt low; // this rank's rows [low, high)
    PetscInt high;
    double tolerance;  // of the grading merit
    int maxIterations; // TAO iterations in all
    double deadlineMs; // 0: none
    uint64_t start;
    bool history;
    double merit;  // the merit at the last test
    bool deadline; // the test stopped on the deadline
} cnTaoRun;

// f = 1/2 x^T (A + S) x + b^T x and its gradient (A + S) x + b
static PetscErrorCode cnTaoObjective( Tao tao, Vec x, PetscReal* f, Vec g, void* context )
{
    (void)tao;
    cnTaoRun* run = context;
    PetscScalar xg = 0.0, xb = 0.0;
    PetscCall( MatMult( run->matrix, x, g ) );
    PetscCall( VecDot( x, g, &xg ) );
    PetscCall( VecDot( x, run->b, &xb ) );
    PetscCall( VecAXPY( g, 1.0, run->b ) );
    *f = 0.5 * xg + xb;
    return PETSC_SUCCESS;
}

// the Hessian is the matrix itself, the same at every x
static PetscErrorCode cnTaoHessian( Tao tao, Vec x, Mat h, Mat p, void* context )
{
    (void)tao;
    (void)x;
    (void)h;
    (void)p;
    (void)context;
    return PETSC_SUCCESS;
}

// The layer's grading merit (natural map, merit.c) of this rank's rows summed over the ranks: the
// same number on every rank, to round-off in the order of the sums. merits[0] the natural map's
// squared norm, [1] |D^1/2 x|^2; the free scale is the prepared one.
static PetscErrorCode cnTaoMerit( cnTaoRun* run, Vec x, double* merit )
{
    PetscCall( MatMult( run->matrix, x, run->w ) );
    PetscCall( VecAXPY( run->w, 1.0, run->b ) );
    const PetscScalar* xs = NULL;
    const PetscScalar* ws = NULL;
    PetscCall( VecGetArrayRead( x, &xs ) );
    PetscCall( VecGetArrayRead( run->w, &ws ) );
    const cnSolverProblem* problem = run->problem;
    const cnPrepared* prepared = run->prepared;
    double local[2] = { 0.0, 0.0 };
    for ( PetscInt i = run->low; i < run->high; ++i )
    {
        double lambda = xs[i - run->low];
        bool positive = prepared->invDiagonal[i] > 0.0;
        double weight = positive ? prepared->diagonal[i] : 1.0;
        double step = positive ? prepared->invDiagonal[i] : 1.0;
        double lower = 0.0, upper = INFINITY;
        if ( prepared->rowKind[i] == cn_rowBounded )
        {
            lower = problem->lower[i];
            upper = problem->upper[i];
        }
        double y = lambda - step * ws[i - run->low];
        double projected = y < lower ? lower : ( y > upper ? upper : y );
        double r = lambda - projected;
        local[0] += weight * r * r;
        local[1] += weight * lambda * lambda;
    }
    PetscCall( VecRestoreArrayRead( run->w, &ws ) );
    PetscCall( VecRestoreArrayRead( x, &xs ) );
    double global[2] = { 0.0, 0.0 };
    PetscCallMPI( MPI_Allreduce( local, global, 2, MPI_DOUBLE, MPI_SUM, PETSC_COMM_WORLD ) );
    double scale = sqrt( global[1] ) + sqrt( prepared->freeEnergy );
    double residual = sqrt( global[0] );
    *merit = scale > 0.0 ? residual / scale : residual;
    return PETSC_SUCCESS;
}

// TAO's convergence test replaced by the layer's: the merit against the tolerance, the budget, the
// deadline (rank 0's clock, shared). TAO's own failures (a line search that cannot move) still end
// the solve: their reason is already set when this runs.
static PetscErrorCode cnTaoConverged( Tao tao, void* context )
{
    cnTaoRun* run = context;
    TaoConvergedReason reason = TAO_CONTINUE_ITERATING;
    PetscCall( TaoGetConvergedReason( tao, &reason ) );
    PetscInt iterations = 0;
    PetscCall( TaoGetIterationNumber( tao, &iterations ) );
    Vec x = NULL;
    PetscCall( TaoGetSolution( tao, &x ) );
    double merit = (double)NAN;
    PetscCall( cnTaoMerit( run, x, &merit ) );
    run->merit = merit;
    if ( run->history )
    {
        cnRecordHistory( run->solution, run->stats, merit );
    }
    int late = 0;
    if ( run->deadlineMs > 0.0 )
    {
        late = cnGetMilliseconds( run->start ) >= run->deadlineMs ? 1 : 0;
        PetscCallMPI( MPI_Bcast( &late, 1, MPI_INT, 0, PETSC_COMM_WORLD ) );
    }
    if ( reason != TAO_CONTINUE_ITERATING )
    {
        return PETSC_SUCCESS;
    }
    if ( isfinite( merit ) == false )
    {
        reason = TAO_DIVERGED_NAN;
    }
    else if ( merit <= run->tolerance )
    {
        reason = TAO_CONVERGED_USER;
    }
    else if ( iterations >= run->maxIterations )
    {
        reason = TAO_DIVERGED_MAXITS;
    }
    else if ( late != 0 )
    {
        run->deadline = true;
        reason = TAO_DIVERGED_USER;
    }
    PetscCall( TaoSetConvergedReason( tao, reason ) );
    return PETSC_SUCCESS;
}

// The matrix A + S as a PETSc matrix, this rank's rows [low, high) from the problem's CSR
static PetscErrorCode cnTaoAssemble( const cnSparseMatrix* csr, PetscInt low, PetscInt high, Mat* matrix )
{
    PetscInt count = high - low;
    PetscInt* starts = NULL;
    PetscInt* columns = NULL;
    PetscScalar* values = NULL;
    int first = csr->rowStart[low];
    int entries = csr->rowStart[high] - first;
    PetscCall( PetscMalloc3( count + 1, &starts, entries > 0 ? entries : 1, &columns,
                             entries > 0 ? entries : 1, &values ) );
    for ( PetscInt i = 0; i <= count; ++i )
    {
        starts[i] = csr->rowStart[low + i] - first;
    }
    for ( int k = 0; k < entries; ++k )
    {
        columns[k] = csr->column[first + k];
        values[k] = csr->value[first + k];
    }
    PetscCall( MatCreateMPIAIJWithArrays( PETSC_COMM_WORLD, count, count, csr->rows, csr->columns, starts,
                                          columns, values, matrix ) );
    PetscCall( PetscFree3( starts, columns, values ) );
    PetscCall( MatSetOption( *matrix, MAT_SYMMETRIC, PETSC_TRUE ) );
    PetscCall( MatSetOption( *matrix, MAT_SPD, PETSC_FALSE ) );
    return PETSC_SUCCESS;
}

// The largest asymmetry |a_ij - a_ji| of a CSR matrix against its largest entry (0 when symmetric)
static double cnTaoAsymmetry( const cnSparseMatrix* csr )
{
    double largest = 0.0;
    double worst = 0.0;
    for ( int i = 0; i < csr->rows; ++i )
    {
        for ( int k = csr->rowStart[i]; k < csr->rowStart[i + 1]; ++k )
        {
            int j = csr->column[k];
            largest = fmax( largest, fabs( csr->value[k] ) );
            // a_ji by a binary search of row j's increasing columns
            int lo = csr->rowStart[j], hi = csr->rowStart[j + 1];
            double transposed = 0.0;
            while ( lo < hi )
            {
                int mid = ( lo + hi ) / 2;
                if ( csr->column[mid] < i )
                {
                    lo = mid + 1;
                }
                else
                {
                    hi = mid;
                }
            }
            if ( lo < csr->rowStart[j + 1] && csr->column[lo] == i )
            {
                transposed = csr->value[lo];
            }
            worst = fmax( worst, fabs( csr->value[k] - transposed ) );
        }
    }
    return largest > 0.0 ? worst / largest : 0.0;
}

// What a TAO ending means to the layer
static cnSolveStatus cnTaoStatus( TaoConvergedReason reason, const cnTaoRun* run, const char** why )
{
    if ( reason == TAO_CONVERGED_USER )
    {
        return cn_solveConverged;
    }
    if ( reason == TAO_DIVERGED_MAXITS )
    {
        return cn_solveMaxIterations;
    }
    if ( reason == TAO_DIVERGED_USER && run->deadline )
    {
        return cn_solveDeadline;
    }
    if ( reason == TAO_DIVERGED_NAN )
    {
        return cn_solveNonFinite;
    }
    if ( reason > 0 )
    {
        // TAO's own tests (gradient or step below its tolerances) before the merit's
        *why = "tao: TAO stopped on its own test before the merit met the tolerance";
        return cn_solveStalled;
    }
    *why = "tao: TAO's method failed (line search or trust region could not move)";
    return cn_solveStalled;
}

// The PETSc objects of one solve: made by cnTaoRunSolve, destroyed by cnTaoDestroy whether or not
// the solve got through (PETSc's destroy functions take NULL)
typedef struct cnTaoObjects
{
    Mat matrix;
    Vec x, b, w, lower, upper, all;
    VecScatter gather;
    Tao tao;
} cnTaoObjects;

static void cnTaoDestroy( cnTaoObjects* o )
{
    (void)VecScatterDestroy( &o->gather );
    (void)VecDestroy( &o->all );
    (void)TaoDestroy( &o->tao );
    (void)VecDestroy( &o->upper );
    (void)VecDestroy( &o->lower );
    (void)VecDestroy( &o->w );
    (void)VecDestroy( &o->b );
    (void)VecDestroy( &o->x );
    (void)MatDestroy( &o->matrix );
}

// The solve with PETSc started; PETSc's errors come back as its error codes
static PetscErrorCode cnTaoRunSolve( cnTaoRun* run, cnTaoObjects* o, const cnSparseMatrix* csr,
                                     const double* params, double* lambda, TaoConvergedReason* reason,
                                     PetscInt* iterations )
{
    const cnSolverProblem* problem = run->problem;
    PetscInt n = problem->rowCount;
    PetscMPIInt size = 1, rank = 0;
    PetscCallMPI( MPI_Comm_size( PETSC_COMM_WORLD, &size ) );
    PetscCallMPI( MPI_Comm_rank( PETSC_COMM_WORLD, &rank ) );
    // contiguous blocks of rows, the first n % size ranks one row longer
    PetscInt share = n / size, extra = n % size;
    run->low = rank * share + ( rank < extra ? rank : extra );
    run->high = run->low + share + ( rank < extra ? 1 : 0 );

    PetscCall( cnTaoAssemble( csr, run->low, run->high, &o->matrix ) );
    run->matrix = o->matrix;
    PetscCall( MatCreateVecs( o->matrix, &o->x, &o->b ) );
    PetscCall( VecDuplicate( o->x, &o->w ) );
    PetscCall( VecDuplicate( o->x, &o->lower ) );
    PetscCall( VecDuplicate( o->x, &o->upper ) );
    run->b = o->b;
    run->w = o->w;
    {
        PetscScalar *xs, *bs, *ls, *us;
        PetscCall( VecGetArray( o->x, &xs ) );
        PetscCall( VecGetArray( o->b, &bs ) );
        PetscCall( VecGetArray( o->lower, &ls ) );
        PetscCall( VecGetArray( o->upper, &us ) );
        for ( PetscInt i = run->low; i < run->high; ++i )
        {
            double lo = 0.0, hi = PETSC_INFINITY;
            if ( run->prepared->rowKind[i] == cn_rowBounded )
            {
                lo = isfinite( problem->lower[i] ) ? problem->lower[i] : PETSC_NINFINITY;
                hi = isfinite( problem->upper[i] ) ? problem->upper[i] : PETSC_INFINITY;
            }
            PetscInt k = i - run->low;
            ls[k] = lo;
            us[k] = hi;
            bs[k] = problem->b[i];
            // the start: the guess inside the bounds
            xs[k] = lambda[i] < lo ? lo : ( lambda[i] > hi ? hi : lambda[i] );
        }
        PetscCall( VecRestoreArray( o->upper, &us ) );
        PetscCall( VecRestoreArray( o->lower, &ls ) );
        PetscCall( VecRestoreArray( o->b, &bs ) );
        PetscCall( VecRestoreArray( o->x, &xs ) );
    }

    int method = (int)cnSolverParamValue( cn_taoParams, cn_taoParamCount, params, cn_taoMethod );
    int pcChoice = (int)cnSolverParamValue( cn_taoParams, cn_taoParamCount, params, cn_taoPreconditioner );
    PetscCall( TaoCreate( PETSC_COMM_WORLD, &o->tao ) );
    PetscCall( TaoSetType( o->tao, cn_taoMethodChoices[method] ) );
    PetscCall( TaoSetSolution( o->tao, o->x ) );
    PetscCall( TaoSetVariableBounds( o->tao, o->lower, o->upper ) );
    PetscCall( TaoSetObjectiveAndGradient( o->tao, NULL, cnTaoObjective, run ) );
    PetscCall( TaoSetHessian( o->tao, o->matrix, o->matrix, cnTaoHessian, run ) );
    PetscCall( TaoSetMaximumIterations( o->tao, run->maxIterations ) );
    PetscCall( TaoSetMaximumFunctionEvaluations( o->tao, PETSC_MAX_INT ) );
    // TAO's own tests off (the merit decides): only its failures end the solve early
    PetscCall( TaoSetTolerances( o->tao, 0.0, 0.0, 0.0 ) );
    PetscCall( TaoSetConvergenceTest( o->tao, cnTaoConverged, run ) );
    KSP ksp = NULL;
    PetscCall( TaoGetKSP( o->tao, &ksp ) );
    if ( ksp != NULL )
    {
        PC pc = NULL;
        PetscCall( KSPGetPC( ksp, &pc ) );
        const char* pcType = PCJACOBI;
        switch ( pcChoice )
        {
            case 1:
                pcType = PCNONE;
                break;
            case 2:
                pcType = PCBJACOBI;
                break;
            case 3:
                pcType = PCGAMG;
                break;
            case 4:
                pcType = PCHYPRE;
                break;
            default:
                break;
        }
        PetscCall( PCSetType( pc, pcType ) );
    }
    // PETSC_OPTIONS and the options database may still change any of it (-tao_type, -tao_bnk_pc_type, ...)
    PetscCall( TaoSetFromOptions( o->tao ) );
    PetscCall( TaoSolve( o->tao ) );
    PetscCall( TaoGetConvergedReason( o->tao, reason ) );
    PetscCall( TaoGetIterationNumber( o->tao, iterations ) );

    // the answer on every rank
    Vec solved = NULL;
    PetscCall( TaoGetSolution( o->tao, &solved ) );
    PetscCall( VecScatterCreateToAll( solved, &o->gather, &o->all ) );
    PetscCall( VecScatterBegin( o->gather, solved, o->all, INSERT_VALUES, SCATTER_FORWARD ) );
    PetscCall( VecScatterEnd( o->gather, solved, o->all, INSERT_VALUES, SCATTER_FORWARD ) );
    const PetscScalar* as = NULL;
    PetscCall( VecGetArrayRead( o->all, &as ) );
    for ( PetscInt i = 0; i < n; ++i )
    {
        lambda[i] = as[i];
    }
    PetscCall( VecRestoreArrayRead( o->all, &as ) );

    return PETSC_SUCCESS;
}

static void cnTaoSolve( void* state, const double* params, const cnSolverBudget* budget,
                        cnSolverProblem* problem, const cnPrepared* prepared, cnSolverSolution* solution,
                        cnArena* arena, cnSolverStats* stats )
{
    (void)state;
    uint64_t start = cnGetTicks();
    int n = problem->rowCount;
    stats->status = cn_solveUnsupported;
    stats->ownMeasure = (double)NAN;
    if ( prepared->singularRows > 0 )
    {
        return; // lambda untouched, the layer gives the reason
    }
    if ( prepared->nonFiniteRows > 0 )
    {
        stats->status = cn_solveNonFinite;
        return;
    }
    if ( n == 0 )
    {
        stats->status = cn_solveConverged;
        return;
    }

    cnScratch scratch = { .arena = arena };
    cnSparseMatrix csr = { 0 };
    double* guess = cnScratchDoubles( &scratch, n );
    double* w = cnScratchDoubles( &scratch, n );
    double* velocity = cnScratchDoubles( &scratch, problem->bodyCount > 0 ? 6 * problem->bodyCount : 1 );
    if ( guess == NULL || w == NULL || velocity == NULL ||
         cnBuildSparseMatrix( problem, NULL, n, arena, &csr ) == false )
    {
        stats->reason = "tao: out of memory for the matrix";
        cnScratchRelease( &scratch );
        return;
    }
    // TAO minimises a quadratic: a non-symmetric explicit matrix is not one
    if ( problem->matrix != NULL && cnTaoAsymmetry( &csr ) > 1e-12 )
    {
        stats->reason = "tao: the matrix is not symmetric (a quadratic program needs A = A^T)";
        cnScratchRelease( &scratch );
        return;
    }

    // the start and its merit, kept to return when TAO ends worse
    cnCopyDoubles( guess, solution->lambda, n );
    for ( int i = 0; i < n; ++i )
    {
        double lo = 0.0, hi = INFINITY;
        cnRowBounds( problem, prepared, solution->lambda, i, &lo, &hi );
        solution->lambda[i] = fmin( fmax( solution->lambda[i], lo ), hi );
    }
    cnComputeVelocity( problem, prepared, solution->lambda, velocity );
    cnComputeW( problem, prepared, solution->lambda, velocity, w );
    double startMerit = cnModelMeritFromW( problem, prepared, cn_modelPyramid, solution->lambda, w );
    cnCopyDoubles( guess, solution->lambda, n );
    bool history = solution->residualHistory != NULL && solution->residualHistoryCapacity > 0;

    pthread_mutex_lock( &cn_taoMutex );
    if ( cnTaoStart() == false )
    {
        pthread_mutex_unlock( &cn_taoMutex );
        stats->reason = "tao: PETSc could not be initialised (MPI_Init failed?)";
        cnScratchRelease( &scratch );
        return;
    }
    cnTaoRun run = {
        .problem = problem,
        .prepared = prepared,
        .solution = solution,
        .stats = stats,
        .tolerance = budget->tolerance,
        .maxIterations = budget->maxIterations,
        .deadlineMs = budget->deadlineMs,
        .start = start,
        .history = history,
        .merit = (double)NAN,
    };
    TaoConvergedReason reason = TAO_CONTINUE_ITERATING;
    PetscInt iterations = 0;
    cnTaoObjects objects = { 0 };
    PetscErrorCode error =
        cnTaoRunSolve( &run, &objects, &csr, params, solution->lambda, &reason, &iterations );
    cnTaoDestroy( &objects );
    pthread_mutex_unlock( &cn_taoMutex );

    if ( error != PETSC_SUCCESS )
    {
        cnCopyDoubles( solution->lambda, guess, n );
        stats->status = cn_solveNoSolution;
        stats->reason = "tao: PETSc returned an error during the solve (the start is kept)";
        cnScratchRelease( &scratch );
        return;
    }
    stats->iterations = (int)iterations;
    const char* why = NULL;
    stats->status = cnTaoStatus( reason, &run, &why );
    stats->reason = why;

    // never worse than the start, by the layer's merit (the same on every rank)
    cnComputeVelocity( problem, prepared, solution->lambda, velocity );
    cnComputeW( problem, prepared, solution->lambda, velocity, w );
    double merit = cnModelMeritFromW( problem, prepared, cn_modelPyramid, solution->lambda, w );
    if ( !( merit <= startMerit ) && isfinite( startMerit ) )
    {
        cnCopyDoubles( solution->lambda, guess, n );
        stats->fallbacks += 1;
        stats->reason = "tao: TAO ended worse than its start; the start is returned";
        merit = startMerit;
        if ( startMerit <= budget->tolerance )
        {
            stats->status = cn_solveConverged; // the start itself meets the tolerance
        }
        else if ( stats->status == cn_solveConverged )
        {
            stats->status = cn_solveStalled;
        }
    }
    stats->ownMeasure = run.merit;
    if ( stats->status == cn_solveConverged && !( merit <= budget->tolerance * 10.0 ) )
    {
        // the distributed merit met the tolerance, the serial one is far from it: say so
        stats->status = cn_solveStalled;
        stats->reason = "tao: the merit on the gathered answer is above the tolerance";
    }
    if ( solution->deltaVelocity != NULL && problem->matrix == NULL )
    {
        cnComputeVelocity( problem, prepared, solution->lambda, solution->deltaVelocity );
    }
    cnScratchRelease( &scratch );
}

const cnSolverVTable cn_taoSolver = {
    .name = "tao",
    .description = "PETSc/TAO on the bound-constrained QP (frictionless; serial or across MPI ranks)",
    .apiVersion = CN_SOLVER_API_VERSION,
    .caps =
        cn_solverBounded | cn_solverBilateral | cn_solverExplicit | cn_solverMatrixFree | cn_solverSinglePass,
    .model = cn_modelPyramid,
    .iterationUnit = "TAO iteration",
    .params = cn_taoParams,
    .paramCount = cn_taoParamCount,
    .solve = cnTaoSolve,
};
