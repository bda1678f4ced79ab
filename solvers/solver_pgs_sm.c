// SPDX-License-Identifier: MIT
// PGS-SM: projected Gauss-Seidel with recursive subspace minimisation (Morales, Nocedal and
// Smelyanskiy; docs/pgs-sm.md, the digest ../shared/papers/pgs-sm.md). One cycle is
//
//     k_gs sweeps of the shared Gauss-Seidel kernel (the PGS phase)          -> z0
//     up to k_sm subspace solves: F = the rows strictly inside their bounds (by more than
//     epsilon) and every free bilateral row; the others held at the bound they sit at;
//         (A + S)_FF d = -w_F,  z_F += d   (the paper's reduced system (3.3) as a step;
//                                           factor.h: dense LDL^T or CHOLMOD with AMD)
//         the first solve also gives the safeguard z^b = z0 + alpha (z1 - z0), alpha the largest
//         step in [0, 1] within the bounds
//         z^s = z1 clamped into the bounds; stop when no row of F left its bounds, else again
//         on the smaller F (so F only shrinks within a cycle)
//     keep z^s unless z^b has a lower phi (the paper's test; "accept" = merit: the grading merit,
//     and never worse than z0)
//
// until the grading merit (the natural map, as for every solver) meets the tolerance. The paper's
// problems have rows >= 0 and free rows only; Cairn's own extension (the digest's 2.6) takes boxed
// rows, and friction rows whose bounds +-mu lambda_n are frozen at the cycle's z0 during the
// subspace phase and re-evaluated by the sweeps. With friction the problem is not a quadratic
// programme and phi proves nothing; phi with the frozen bounds is still the default test, because
// it converges where the merit test rejects nearly every step (docs/pgs-sm.md).
//
// Engine problems are often positive semi-definite only (four points per box face), and the biases
// in b make such a free set's equalities inconsistent, so that its exact solve is unbounded. A free
// set that is positive definite is solved exactly. Once one was not (factor.h regularises it), the
// solve takes proximal steps (A_FF + c I) d = -w_F refined against A_FF, with c from 1e-8 of the
// mean diagonal, growing 100-fold after every rejected step up to the cfm parameter. A system that
// cannot be factorised at all ends the subspace phase: the cycle keeps its PGS iterate; one the build
// cannot factorise (no CHOLMOD, too large for the dense LDL^T) ends the solve unsupported, with
// lambda untouched. stats->fallbacks counts rejected subspace steps, failed factorisations and
// factorisations that needed regularisation; stats->factorizations every factorisation (retries
// included); stats->freeRows the size of the last free set. Iterations are cycles. ownMeasure is the
// paper's r1 (its 2.7, read as in the digest's 2.2).

#include "factor.h"
#include "solver_kit.h"

#include <float.h>
#include <math.h>
#include <string.h>

enum
{
    cn_pgsSmIterations = 0,
    cn_pgsSmTolerance,
    cn_pgsSmDeadline,
    cn_pgsSmWarmStart,
    cn_pgsSmSweeps,
    cn_pgsSmSubspace,
    cn_pgsSmEpsilon,
    cn_pgsSmCfm,
    cn_pgsSmFactorization,
    cn_pgsSmAccept,
    cn_pgsSmSimd,
    cn_pgsSmParamCount,
};

enum
{
    cn_acceptPhi = 0,
    cn_acceptMerit = 1,
};
static const char* const cn_acceptChoices[] = { "phi", "merit" };

static const cnSolverParam cn_pgsSmParams[cn_pgsSmParamCount] = {
    { "iterations", "cycle budget per solve (k_gs sweeps and up to k_sm subspace solves each)", 5.0, 1.0,
      100000.0, cn_paramInteger, NULL, 0 },
    { "tolerance", "stop when the grading merit (natural map, unit-free) is at most this (0: run the budget)",
      1e-6, 0.0, 1.0, cn_paramNumber, NULL, 0 },
    { "deadline_ms", "stop after this many milliseconds of a solve (0: no deadline)", 0.0, 0.0, 1e6,
      cn_paramNumber, NULL, 0 },
    { "warm_start", "1: the world starts from the contact cache's impulses (the paper starts from 0)", 1.0,
      0.0, 1.0, cn_paramToggle, NULL, 0 },
    { "k_gs",
      "PGS sweeps before each subspace phase (the paper: 5 on cold problems; 20 holds warm-started "
      "stacks in a world better and cheaper)",
      20.0, 1.0, 1000.0, cn_paramInteger, NULL, 0 },
    { "k_sm", "most subspace solves per cycle (the paper: 3; 1 is Kocvara and Zowe's method)", 3.0, 1.0,
      100.0, cn_paramInteger, NULL, 0 },
    { "epsilon", "a row is in the free set when it is more than this inside its bounds (impulse units)",
      1.4901161193847656e-08, 0.0, 1.0, cn_paramNumber, NULL, 0 },
    { "cfm",
      "regularisation of the subspace solves, times the free set's mean diagonal (a proximal step; "
      "0: only when the system is not positive definite)",
      1e-4, 0.0, 1.0, cn_paramNumber, NULL, 0 },
    { "factorization", "auto: dense LDL^T for small free sets, CHOLMOD (AMD ordering) for large ones", 0.0,
      0.0, 2.0, cn_paramChoice, cn_factorChoices, 3 },
    { "accept",
      "what chooses between the subspace point and the safeguard: phi (the paper's quadratic, with "
      "the friction bounds frozen), merit (the natural map; never worse than the sweeps' point)",
      0.0, 0.0, 1.0, cn_paramChoice, cn_acceptChoices, 2 },
    { "simd",
      "auto: the PGS phase's coloured sweep (world.coloring) in AVX2 where the CPU has it; off: the scalar "
      "kernel (the same bits)",
      0.0, 0.0, 1.0, cn_paramChoice, cn_simdChoices, 2 },
};

// the proximal regularisation of a semi-definite free set starts at this (times its mean diagonal)
// and grows by CN_SM_PROXIMAL_GROWTH after every rejected subspace step, up to the cfm parameter
#define CN_SM_PROXIMAL_START  1e-8
#define CN_SM_PROXIMAL_GROWTH 100.0
// refinement steps of a regularised subspace solve, and the relative residual that ends them
#define CN_SM_REFINEMENTS 30
#define CN_SM_REFINED     1e-14

typedef struct cnSm
{
    const cnSolverProblem* problem;
    const cnPrepared* prepared;
    int n;
    double* velocity; // (bodyCount x 6) scratch for products
    double* w;        // (n) scratch
    double* low;      // (n) the bounds frozen at z0
    double* high;     // (n)
    int* free;        // (n) the free set, increasing
    int* lastFree;    // (n) the free set of the factorisation held
    int lastFreeCount;
    double* rhs;      // (n) the reduced system's right-hand side (first |F| entries)
    double* solution; // (n)
    double* residual; // (n)
    cnFactor* factor;
    cnFactorStats factorStats;
    cnFactorBackend backend;
    double cfm;
    double lastRegularization; // the regularisation the last factorisation needed (0: none)
    bool unavailable;          // the backend cannot take the system (a build without CHOLMOD)
    bool semiDefinite;         // a free set of this solve was not positive definite
    double proximal;           // the regularisation of such free sets now, times their mean diagonal
    double epsilon;
} cnSm;

// w = (A + S) z + b into sm->w
static void cnSmW( cnSm* sm, const double* z )
{
    cnComputeVelocity( sm->problem, sm->prepared, z, sm->velocity );
    cnComputeW( sm->problem, sm->prepared, z, sm->velocity, sm->w );
}

// phi(z) = 1/2 z^T (A + S) z + b^T z = 1/2 z^T (w + b)
static double cnSmPhi( cnSm* sm, const double* z )
{
    cnSmW( sm, z );
    double phi = 0.0;
    for ( int i = 0; i < sm->n; ++i )
    {
        phi += 0.5 * z[i] * ( sm->w[i] + sm->problem->b[i] );
    }
    return phi;
}

static double cnSmMerit( cnSm* sm, const double* z )
{
    cnSmW( sm, z );
    return cnModelMeritFromW( sm->problem, sm->prepared, cn_modelPyramid, z, sm->w );
}

// The paper's r1 (its 2.7): free rows' |w|, the other rows' |lambda - proj(lambda - w)| and the
// normal rows' negative w, each relative to 1 + |b|_inf over its rows.
static double cnSmPaperResidual( cnSm* sm, const double* z )
{
    cnSmW( sm, z );
    double freeW = 0.0, freeB = 0.0, complementarity = 0.0, feasibility = 0.0, boundB = 0.0;
    for ( int i = 0; i < sm->n; ++i )
    {
        double low, high;
        cnRowBounds( sm->problem, sm->prepared, z, i, &low, &high );
        double b = fabs( sm->problem->b[i] );
        if ( isinf( low ) && isinf( high ) )
        {
            freeW = fmax( freeW, fabs( sm->w[i] ) );
            freeB = fmax( freeB, b );
            continue;
        }
        double projected = fmin( fmax( z[i] - sm->w[i], low ), high );
        complementarity = fmax( complementarity, fabs( z[i] - projected ) );
        if ( sm->prepared->rowKind[i] == cn_rowNormal )
        {
            feasibility = fmax( feasibility, -sm->w[i] );
        }
        boundB = fmax( boundB, b );
    }
    return fmax( freeW / ( 1.0 + freeB ), fmax( complementarity, feasibility ) / ( 1.0 + boundB ) );
}

// F: free bilateral rows, and rows more than epsilon inside their frozen bounds; the others are
// put on the bound they are nearest
static int cnSmFreeSet( cnSm* sm, double* z )
{
    int count = 0;
    for ( int i = 0; i < sm->n; ++i )
    {
        double low = sm->low[i];
        double high = sm->high[i];
        if ( ( isinf( low ) || z[i] > low + sm->epsilon ) && ( isinf( high ) || z[i] < high - sm->epsilon ) )
        {
            sm->free[count++] = i;
        }
        else
        {
            z[i] = fabs( z[i] - low ) <= fabs( z[i] - high ) ? low : high;
        }
    }
    return count;
}

// y = K x for the CSR matrix K
static bool cnSmSameFreeSet( const cnSm* sm, int count )
{
    return count == sm->lastFreeCount && memcmp( sm->free, sm->lastFree, (size_t)count * sizeof( int ) ) == 0;
}

// One subspace solve, as a correction of the current point: with r = -(w(z))_F,
//     (A + S)_FF d = r,   z_F <- z_F + d,
// which is the paper's reduced system (z_B held) written for the step. On a semi-definite A_FF
// (redundant contacts) the regularised factorisation gives the step of least size in the null
// directions, so the point stays near z instead of wandering along them; refinement against the
// unregularised matrix then removes the regularisation's bias in the other directions. False (z
// untouched) when the system cannot be factorised or solved; *reason then says why.
static bool cnSmSubspaceSolve( cnSm* sm, double* z, int count, const char** reason )
{
    cnSmW( sm, z );
    for ( int k = 0; k < count; ++k )
    {
        sm->rhs[k] = -sm->w[sm->free[k]];
    }

    cnScratch matrixScratch = { .arena = NULL };
    cnSparseMatrix k;
    if ( cnBuildSparseMatrixIn( sm->problem, sm->free, count, &matrixScratch, &k ) == false )
    {
        cnScratchRelease( &matrixScratch );
        *reason = "pgs_sm: out of memory building the free set's matrix";
        return false;
    }
    if ( cnSmSameFreeSet( sm, count ) == false )
    {
        double mean = 0.0;
        for ( int r = 0; r < count; ++r )
        {
            mean += sm->prepared->diagonal[sm->free[r]];
        }
        mean = count > 0 ? mean / count : 0.0;
        // a positive definite free set is factorised as it is (the paper's exact solve); one that
        // is not (redundant contacts) takes the proximal regularisation cfm x its mean diagonal,
        // and so does every later free set of this solve, which are alike
        double cfm = sm->semiDefinite ? fmax( sm->proximal * mean, sm->lastRegularization ) : 0.0;
        cnFactorResult result = cnFactorize( sm->factor, &k, cfm, sm->backend, &sm->factorStats );
        if ( result == cn_factorRegularized && sm->semiDefinite == false && sm->proximal * mean > cfm )
        {
            sm->semiDefinite = true;
            cfm = fmax( sm->proximal * mean, sm->factorStats.regularization );
            result = cnFactorize( sm->factor, &k, cfm, sm->backend, &sm->factorStats );
        }
        if ( result != cn_factorOk && result != cn_factorRegularized )
        {
            sm->unavailable = result == cn_factorUnavailable;
            sm->lastFreeCount = -1;
            cnScratchRelease( &matrixScratch );
            *reason = cnFactorReason( sm->factor );
            return false;
        }
        sm->semiDefinite = sm->semiDefinite || result == cn_factorRegularized;
        sm->lastRegularization = sm->factorStats.regularization;
        memcpy( sm->lastFree, sm->free, (size_t)count * sizeof( int ) );
        sm->lastFreeCount = count;
    }

    // d = K_reg^-1 r, then d += K_reg^-1 (r - K d) while regularised: towards the answer of K
    double* d = sm->solution;
    bool solved = cnFactorSolve( sm->factor, sm->rhs, d );
    double regularization = sm->factorStats.regularization;
    double* correction = sm->residual;
    double rhsNorm = 0.0;
    for ( int r = 0; r < count; ++r )
    {
        rhsNorm = fmax( rhsNorm, fabs( sm->rhs[r] ) );
    }
    // refinement stops as soon as a step does not halve the residual: along null directions of a
    // semi-definite A_FF it would only pile up rounding divided by the regularisation
    double previous = (double)INFINITY;
    for ( int step = 0; solved && regularization > 0.0 && step < CN_SM_REFINEMENTS; ++step )
    {
        cnSparseMultiply( &k, d, correction );
        double largest = 0.0;
        for ( int r = 0; r < count; ++r )
        {
            correction[r] = sm->rhs[r] - correction[r];
            largest = fmax( largest, fabs( correction[r] ) );
        }
        if ( largest <= CN_SM_REFINED * rhsNorm || largest > 0.5 * previous )
        {
            break;
        }
        previous = largest;
        solved = cnFactorSolve( sm->factor, correction, correction );
        for ( int r = 0; solved && r < count; ++r )
        {
            d[r] += correction[r];
        }
    }
    cnScratchRelease( &matrixScratch );
    if ( solved == false )
    {
        *reason = "pgs_sm: the subspace solve gave a non-finite answer";
        return false;
    }
    for ( int r = 0; r < count; ++r )
    {
        z[sm->free[r]] += d[r];
    }
    return true;
}

// the largest alpha in [0, 1] that keeps z0 + alpha (z1 - z0) within the bounds
static double cnSmBacktrack( const cnSm* sm, const double* z0, const double* z1 )
{
    double alpha = 1.0;
    for ( int i = 0; i < sm->n; ++i )
    {
        double step = z1[i] - z0[i];
        if ( z1[i] < sm->low[i] && step < 0.0 )
        {
            alpha = fmin( alpha, fmax( 0.0, ( sm->low[i] - z0[i] ) / step ) );
        }
        else if ( z1[i] > sm->high[i] && step > 0.0 )
        {
            alpha = fmin( alpha, fmax( 0.0, ( sm->high[i] - z0[i] ) / step ) );
        }
    }
    return alpha;
}

static void cnPgsSmSolve( void* state, const double* params, const cnSolverBudget* budget,
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
        stats->reason = "pgs_sm: a row's diagonal A_ii is zero, negative or not finite (the sweeps need it)";
        return;
    }
    if ( prepared->nonFiniteRows > 0 )
    {
        stats->status = cn_solveNonFinite;
        return;
    }

#define CN_SM_PARAM( index ) cnSolverParamValue( cn_pgsSmParams, cn_pgsSmParamCount, params, index )
    int sweeps = (int)CN_SM_PARAM( cn_pgsSmSweeps );
    int subspace = (int)CN_SM_PARAM( cn_pgsSmSubspace );
    int accept = (int)CN_SM_PARAM( cn_pgsSmAccept );
    bool scalar = (int)CN_SM_PARAM( cn_pgsSmSimd ) == cn_simdOff;
    bool usePhi = accept == cn_acceptPhi;
    bool history = solution->residualHistory != NULL && solution->residualHistoryCapacity > 0;

    cnScratch scratch = { .arena = arena };
    cnSm sm = {
        .problem = problem,
        .prepared = prepared,
        .n = n,
        .velocity = cnScratchDoubles( &scratch, 6 * problem->bodyCount ),
        .w = cnScratchDoubles( &scratch, n ),
        .low = cnScratchDoubles( &scratch, n ),
        .high = cnScratchDoubles( &scratch, n ),
        .free = cnScratchBytes( &scratch, (size_t)( n > 0 ? n : 1 ) * 2 * sizeof( int ) ),
        .rhs = cnScratchDoubles( &scratch, n ),
        .solution = cnScratchDoubles( &scratch, n ),
        .residual = cnScratchDoubles( &scratch, n ),
        .lastFreeCount = -1,
        .factor = cnFactorCreate(),
        .backend = (cnFactorBackend)CN_SM_PARAM( cn_pgsSmFactorization ),
        .cfm = CN_SM_PARAM( cn_pgsSmCfm ),
        .epsilon = CN_SM_PARAM( cn_pgsSmEpsilon ),
    };
    sm.proximal = fmin( CN_SM_PROXIMAL_START, sm.cfm );
#undef CN_SM_PARAM
    double* z0 = cnScratchDoubles( &scratch, n );
    double* zb = cnScratchDoubles( &scratch, n );
    double* zs = cnScratchDoubles( &scratch, n );
    double* guess = cnScratchDoubles( &scratch, n ); // lambda as given: put back when the solve fails
    if ( guess == NULL || sm.velocity == NULL || sm.w == NULL || sm.low == NULL || sm.high == NULL ||
         sm.free == NULL || sm.rhs == NULL || sm.solution == NULL || sm.residual == NULL ||
         sm.factor == NULL || z0 == NULL || zb == NULL || zs == NULL )
    {
        cnFactorDestroy( sm.factor );
        cnScratchRelease( &scratch );
        stats->reason = "pgs_sm: out of memory";
        return;
    }
    sm.lastFree = sm.free + ( n > 0 ? n : 1 );

    double* lambda = solution->lambda;
    double* velocity = cnScratchDoubles( &scratch, 6 * problem->bodyCount );
    if ( velocity == NULL )
    {
        cnFactorDestroy( sm.factor );
        cnScratchRelease( &scratch );
        stats->reason = "pgs_sm: out of memory";
        return;
    }
    cnSweepHooks hooks = { .relaxation = 1.0, .scalar = scalar };
    cnCopyDoubles( guess, lambda, n );
    cnComputeVelocity( problem, prepared, lambda, velocity );
    double merit = cnSmMerit( &sm, lambda );
    if ( history )
    {
        cnRecordHistory( solution, stats, merit );
    }

    cnSolveStatus status = cn_solveMaxIterations;
    const char* reason = NULL;
    int cycle = 0;
    int fallbacks = 0;
    if ( budget->tolerance > 0.0 && merit <= budget->tolerance )
    {
        status = cn_solveConverged;
    }
    while ( status == cn_solveMaxIterations && cycle < budget->maxIterations )
    {
        // the PGS phase
        bool finite = true;
        for ( int s = 0; s < sweeps && finite; ++s )
        {
            finite = cnSweep( problem, prepared, cn_sweepGaussSeidel, &hooks, lambda, velocity, NULL ).finite;
        }
        cycle += 1;
        if ( finite == false )
        {
            status = cn_solveNonFinite;
            break;
        }
        merit = cnSmMerit( &sm, lambda );
        if ( budget->tolerance > 0.0 && merit <= budget->tolerance )
        {
            status = cn_solveConverged;
            if ( history )
            {
                cnRecordHistory( solution, stats, merit );
            }
            break;
        }

        // the subspace phase from z0, the bounds frozen there
        cnCopyDoubles( z0, lambda, n );
        for ( int i = 0; i < n; ++i )
        {
            cnRowBounds( problem, prepared, z0, i, sm.low + i, sm.high + i );
        }
        cnCopyDoubles( zs, z0, n );
        cnCopyDoubles( zb, z0, n );
        bool solvedOnce = false;
        for ( int level = 0; level < subspace; ++level )
        {
            int count = cnSmFreeSet( &sm, zs );
            stats->freeRows = count;
            if ( count == 0 )
            {
                break; // every row at a bound: z^s is the point itself, nothing to factorise
            }
            if ( cnSmSubspaceSolve( &sm, zs, count, &reason ) == false )
            {
                break;
            }

            if ( level == 0 )
            {
                // the safeguard: back from z1 to the bounds along the step from z0
                double alpha = cnSmBacktrack( &sm, z0, zs );
                for ( int i = 0; i < n; ++i )
                {
                    zb[i] = fmin( fmax( z0[i] + alpha * ( zs[i] - z0[i] ), sm.low[i] ), sm.high[i] );
                }
                solvedOnce = true;
            }
            // project; done when no free row had to be
            bool inside = true;
            for ( int k = 0; k < count; ++k )
            {
                int i = sm.free[k];
                double clamped = fmin( fmax( zs[i], sm.low[i] ), sm.high[i] );
                inside = inside && clamped == zs[i] &&
                         ( isinf( sm.low[i] ) || zs[i] > sm.low[i] + sm.epsilon ) &&
                         ( isinf( sm.high[i] ) || zs[i] < sm.high[i] - sm.epsilon );
                zs[i] = clamped;
            }
            if ( inside )
            {
                break;
            }
        }

        if ( sm.unavailable )
        {
            // no factorisation for this free set in this build: say so rather than run PGS alone
            status = cn_solveUnsupported;
            break;
        }

        // keep z^s unless the safeguard (or, on the merit, z0 itself) is better
        const double* chosen = z0;
        if ( solvedOnce )
        {
            if ( usePhi )
            {
                chosen = cnSmPhi( &sm, zs ) <= cnSmPhi( &sm, zb ) ? zs : zb;
            }
            else
            {
                double meritS = cnSmMerit( &sm, zs );
                double meritB = cnSmMerit( &sm, zb );
                chosen = meritS <= meritB ? zs : zb;
                chosen = fmin( meritS, meritB ) <= merit ? chosen : z0;
            }
        }
        fallbacks += solvedOnce && chosen != zs ? 1 : 0;
        if ( solvedOnce && chosen != zs && sm.semiDefinite && sm.proximal < sm.cfm )
        {
            // a semi-definite free set whose step was rejected: regularise more (a shorter step)
            sm.proximal = fmin( CN_SM_PROXIMAL_GROWTH * sm.proximal, sm.cfm );
            sm.lastFreeCount = -1;
        }
        cnCopyDoubles( lambda, chosen, n );
        cnComputeVelocity( problem, prepared, lambda, velocity );
        merit = cnSmMerit( &sm, lambda );
        if ( history )
        {
            cnRecordHistory( solution, stats, merit );
        }
        if ( isfinite( merit ) == false )
        {
            status = cn_solveNonFinite;
            break;
        }
        if ( budget->tolerance > 0.0 && merit <= budget->tolerance )
        {
            status = cn_solveConverged;
            break;
        }
        if ( budget->deadlineMs > 0.0 && cnGetMilliseconds( start ) >= budget->deadlineMs )
        {
            status = cycle < budget->maxIterations ? cn_solveDeadline : cn_solveMaxIterations;
            break;
        }
    }

    if ( status == cn_solveUnsupported || status == cn_solveNonFinite )
    {
        cnCopyDoubles( lambda, guess, n );
    }
    if ( solution->deltaVelocity != NULL && problem->matrix == NULL )
    {
        cnComputeVelocity( problem, prepared, lambda, solution->deltaVelocity );
    }
    stats->status = status;
    // a factorisation that failed is worth saying even when the sweeps went on to converge
    stats->reason = status == cn_solveConverged && reason == NULL ? NULL : reason;
    stats->iterations = cycle;
    stats->fallbacks = fallbacks + sm.factorStats.failures + sm.factorStats.regularized;
    stats->factorizations = sm.factorStats.factorizations;
    stats->ownMeasure = cnSmPaperResidual( &sm, lambda );
    cnFactorDestroy( sm.factor );
    cnScratchRelease( &scratch );
}

const cnSolverVTable cn_pgsSmSolver = {
    .name = "pgs_sm",
    .description = "PGS with recursive subspace minimisation (Morales, Nocedal, Smelyanskiy)",
    .apiVersion = CN_SOLVER_API_VERSION,
    .caps = cn_solverFriction | cn_solverBounded | cn_solverBilateral | cn_solverExplicit |
            cn_solverMatrixFree | cn_solverSinglePass | cn_solverHardContact,
    .model = cn_modelPyramid,
    .iterationUnit = "cycle",
    .params = cn_pgsSmParams,
    .paramCount = cn_pgsSmParamCount,
    .solve = cnPgsSmSolve,
};
