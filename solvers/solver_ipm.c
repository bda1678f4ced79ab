// SPDX-License-Identifier: MIT
// The interior point method on exact Coulomb cones ("ipm"): the infeasible primal-dual method of
// Kleinert, Simeon and Obermayr with Nesterov-Todd scaling in Jordan-algebra form (the digest
// ../shared/papers/ipm.md; docs/ipm.md). Every other solver in Cairn projects onto cones or boxes
// one contact at a time; this one follows the central path of the whole problem, with one symmetric
// positive definite linear system per Newton step.
//
// The problem. Rows are w = (A + S) lambda + b. Each contact group with the cone model and
// mu >= mu_min is a cone block: lambda in K_mu = {|lambda_t| <= mu lambda_n}, u = w + sigma e_n in
// the dual cone K*_mu = {u_n >= mu |u_t|}, lambda^T u = 0 (the relaxed cone complementarity problem
// of Anitescu, convex: a quadratic programme over second-order cones). The softness S (the world's
// compliance) is part of the model, not of the Newton matrix alone (digest 3.2: R only in the Newton
// matrix stalls at 3e-6). sigma is De Saxce's shift of the normal velocity: 0 on the first pass;
// with de_saxce_passes > 0 the solve is repeated with sigma = mu |w_t| of the previous pass, whose
// fixed point is the exact Coulomb law that merits.cone grades (the paper drops the shift; the
// digest's 8.3). Frictionless normals (cn_groupNormal, and contacts with mu < mu_min, whose tangent
// impulses stay 0: a tiny mu makes the cone transform nearly singular, digest 7.4.3) are R+ blocks;
// free joint rows (bounds -inf, inf) are equations w = 0. Limited joint rows and bounded rows are not
// taken (cn_solveUnsupported).
//
// The method (the digest's Algorithm 1 with its fixes). The cones are mapped onto the self-dual
// Lorentz cone, x = diag(mu, 1, 1) lambda, y = diag(1, mu, mu) u, and the start is made central for
// the problem augmented by an infeasibility s and a direction d (y = F(x) + s d). Each step:
//
//     w_i   = the NT point of (x_i, ybar_i);   P(w_i) = w w^T - det(w) J         (per cone)
//     Ds    = 2 alpha - s   (0 once feasible)
//     (A + S + blockdiag(Tx P(w) Tx / mu)) dlambda = Ty^-1 (alpha x^-1 - ybar - Ds d)   (lambda space:
//                                                        symmetric for any mix of mu, digest 2.5)
//     theta = min(1, tau theta_max) over every block of x, ybar   (Lemma 2; tau = 0.95, ours)
//     x += theta dx;  ybar += theta (Ty (A + S) dlambda + Ds d);  s += theta Ds
//     ybar - s d inside every cone: ybar -= s d, s = 0, feasible from here (the switch)
//     alpha = beta(f_cen) x^T ybar / (2 blocks)      (three levels of beta: cautious or aggressive)
//
// With no cone (R+ blocks and free rows only) Mehrotra's predictor-corrector replaces these steps
// (predictor_corrector, on by default; cnIpmPredictorCorrectorStep): about a third of the Newton steps
// on a colony's problems.
//
// The linear system is solved directly (factor.h: dense LDL^T or CHOLMOD) or inexactly by BiCGstab
// or CG with an IC(0), Jacobi or no preconditioner, to a relative residual min(0.01, forcing x the
// current merit) within krylov_iterations (the paper: 500).
//
// The start: the same normal impulse on every contact (the paper's uniform start), at the larger of
// the mean |b| / A_nn and the load's scale (a few CG steps on the unconstrained system).
//
// Stopping: the grading merit (merits.cone) at or below the tolerance; a pass ends when its own
// merit (the cone natural map with the shift sigma) is a tenth of the grading one and another pass
// follows, or meets the tolerance when none does; the Newton budget (iterations, over all passes);
// the deadline; theta below theta_min or 8 steps without progress in the merit or the gap (stalled,
// or infeasible when the infeasibility s has not gone to 0 and the merit is large, digest 2.4 and
// 7.4.1); impulses growing without bound while s stays (infeasible). An unconverged answer worse
// than the impulses given is replaced by them. stats: iterations (Newton steps), krylovIterations,
// factorizations, fallbacks (IC(0) shifts, regularised factorisations, contacts solved
// frictionless), freeRows (the Newton system's rows), ownMeasure the paper's error max(cost, feas)
// of the last pass (5.2: |lambda^T u| / n and the worst cone violation).

#include "factor.h"
#include "ic0.h"
#include "jordan.h"
#include "krylov.h"
#include "solver_kit.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum
{
    cn_ipmIterations = 0,
    cn_ipmTolerance,
    cn_ipmDeadline,
    cn_ipmWarmStart,
    cn_ipmLinearSolver,
    cn_ipmPreconditioner,
    cn_ipmKrylovIterations,
    cn_ipmForcing,
    cn_ipmStrategy,
    cn_ipmBoundaryFraction,
    cn_ipmThetaMin,
    cn_ipmMuMin,
    cn_ipmDeSaxcePasses,
    cn_ipmFactorization,
    cn_ipmStartImpulse,
    cn_ipmPredictorCorrector,
    cn_ipmParamCount,
};

enum
{
    cn_ipmDirect = 0,
    cn_ipmBicgstab = 1,
    cn_ipmCg = 2,
};
static const char* const cn_ipmLinearChoices[] = { "direct", "bicgstab", "cg" };

enum
{
    cn_ipmPreconditionIc0 = 0,
    cn_ipmPreconditionJacobi = 1,
    cn_ipmPreconditionNone = 2,
};
static const char* const cn_ipmPreconditionChoices[] = { "ic0", "jacobi", "none" };

enum
{
    cn_ipmCautious = 0,
    cn_ipmAggressive = 1,
};
static const char* const cn_ipmStrategyChoices[] = { "cautious", "aggressive" };

static const cnSolverParam cn_ipmParams[cn_ipmParamCount] = {
    { "iterations", "Newton step budget per solve, over all De Saxce passes (the paper: 100)", 100.0, 1.0,
      100000.0, cn_paramInteger, NULL, 0 },
    { "tolerance", "stop when the grading merit (cone natural map, unit-free) is at most this", 1e-6, 0.0,
      1.0, cn_paramNumber, NULL, 0 },
    { "deadline_ms", "stop after this many milliseconds of a solve (0: no deadline)", 0.0, 0.0, 1e6,
      cn_paramNumber, NULL, 0 },
    { "warm_start",
      "1: the world passes the contact cache's impulses, which the IPM starts from pushed into the "
      "cones' interior (the digest: saves at most a fifth); 0: its own central start",
      0.0, 0.0, 1.0, cn_paramToggle, NULL, 0 },
    { "linear_solver",
      "the Newton system: direct (factor.h), or inexact bicgstab (the paper's) or cg, preconditioned", 0.0,
      0.0, 2.0, cn_paramChoice, cn_ipmLinearChoices, 3 },
    { "preconditioner", "of the Krylov solvers: ic0 (the paper's), jacobi or none (never ILU: indefinite)",
      0.0, 0.0, 2.0, cn_paramChoice, cn_ipmPreconditionChoices, 3 },
    { "krylov_iterations", "most Krylov iterations per Newton system (the paper: 500)", 500.0, 1.0, 1000000.0,
      cn_paramInteger, NULL, 0 },
    { "forcing",
      "the Krylov relative tolerance is min(0.01, forcing x the current merit): a linear residual some "
      "orders below the error",
      1e-2, 1e-12, 1.0, cn_paramNumber, NULL, 0 },
    { "strategy",
      "centring levels (beta_cen, beta_1, beta_bd): cautious (0.1, 0.5, 1), the path-following one "
      "for inexact solves; aggressive (0.01, 0.1, 0.5), potential reduction",
      0.0, 0.0, 1.0, cn_paramChoice, cn_ipmStrategyChoices, 2 },
    { "boundary_fraction", "a step goes this fraction of the way to the cones' boundary at most", 0.95, 0.5,
      0.9999, cn_paramNumber, NULL, 0 },
    { "theta_min", "a step length below this ends the solve (stalled, or infeasible)", 1e-8, 0.0, 1.0,
      cn_paramNumber, NULL, 0 },
    { "mu_min", "contacts with a smaller mu are solved frictionless (their tangent impulses 0)", 1e-2, 0.0,
      1.0, cn_paramNumber, NULL, 0 },
    { "de_saxce_passes",
      "solves after the first with the normal velocity shifted by mu |w_t| of the last (the exact "
      "Coulomb law); 0: the relaxed cone problem only, as the paper",
      10.0, 0.0, 1000.0, cn_paramInteger, NULL, 0 },
    { "factorization", "the direct solve's backend: auto (dense LDL^T small, CHOLMOD large), dense, cholmod",
      0.0, 0.0, 2.0, cn_paramChoice, cn_factorChoices, 3 },
    { "start_impulse",
      "the cold start's normal impulse (N s): 0 scales it from each contact's |b| / A_nn; the paper "
      "starts every x at (0.1, 0, 0)",
      0.0, 0.0, 1e12, cn_paramNumber, NULL, 0 },
    { "predictor_corrector",
      "1: a problem with no cone (frictionless contacts and free joint rows only) is solved by "
      "Mehrotra's predictor-corrector (two solves per factorisation, no strategy); 0: by the paper's "
      "path following, as a cone problem",
      1.0, 0.0, 1.0, cn_paramToggle, NULL, 0 },
};

// the paper's thresholds of the centrality measure between the three levels of beta
#define CN_IPM_ALPHA_CEN 0.1
#define CN_IPM_ALPHA_ONE 1.0
// the infeasibility s has gone to 0 when it is this far below its start (else a stall is infeasible)
#define CN_IPM_INFEASIBLE_S 1e-6
// impulses this many times the free velocity's scale (in the energy norm) with s away from 0: no
// solution
#define CN_IPM_UNBOUNDED 1e8
// ... and the merit is still above this (a stall near the answer is round-off, not infeasibility)
#define CN_IPM_INFEASIBLE_MERIT 1e-3
// a pass ends stalled after this many steps without the merit falling by this fraction
#define CN_IPM_FLAT_STEPS 8
#define CN_IPM_PROGRESS   1e-3
// ... nor the complementarity gap fall below this share of its smallest
#define CN_IPM_GAP_PROGRESS 0.9
// a pass that another follows stops once its own merit is this share of the grading merit
#define CN_IPM_PASS_SHARE 0.1
// the CG steps and relative residual of the load's scale (cnIpmLoadScale)
#define CN_IPM_LOAD_STEPS     20
#define CN_IPM_LOAD_TOLERANCE 1e-2
// ... and the relative residual they must at least reach for their scale to be taken
#define CN_IPM_LOAD_RESIDUAL 0.5
// ... and the most it may exceed the mean |b| / A_nn by (the 1000:1 columns: 1e4 to 3e4)
#define CN_IPM_LOAD_RATIO 1e6
// the pushed start: the warm impulses plus this share of the cold start
#define CN_IPM_WARM_PUSH 0.1
// the Krylov relative tolerance is at most this
#define CN_IPM_FORCING_MAX 1e-2

typedef enum cnIpmBlockKind
{
    cn_ipmBlockCone = 0,     // 3 rows: normal and tangents, lambda in K_mu
    cn_ipmBlockPositive = 1, // 1 row: lambda >= 0 complementary to w >= 0
    cn_ipmBlockFree = 2,     // 1 row: w = 0
} cnIpmBlockKind;

typedef struct cnIpmBlock
{
    int local;    // first unknown of the block in the Newton system
    int group;    // its group in the problem
    uint8_t kind; // cnIpmBlockKind
    double mu;    // cones: the friction coefficient
} cnIpmBlock;

typedef struct cnIpm
{
    const cnSolverProblem* problem;
    const cnPrepared* prepared;
    int n; // the problem's rows
    int m; // unknowns of the Newton system
    int blockCount;
    int complementarity; // blocks that are cones or R+ (the central path's count)
    cnIpmBlock* blocks;
    int* rows; // (m) the problem row of each unknown, increasing

    // the Newton system's pattern: (A + S) restricted to the unknowns, plus every cone's 3 x 3
    // diagonal block and every diagonal (explicit problems may leave structural zeros out)
    cnSparseMatrix system;
    int* rowStart;
    int* column;
    double* value;
    double* baseValue; // (A + S) on that pattern
    int* blockAt;      // (3 m) cones: the entries of a row's three block columns; others: the diagonal

    // iterates (local, m): x-space x, y-space ybar, d; shift per unknown (normal rows of cones)
    double* x;
    double* ybar;
    double* d;
    double* sigma;
    double s;
    double s0;
    double loadScale; // cnIpmLoadScale
    bool feasible;
    double alpha;

    // scratch (local, m)
    double* u; // (A + S) lambda + b + sigma, the velocities of the problem solved
    double* rhs;
    double* step; // dlambda
    double* dx;
    double* dy;
    double* product;
    double* jacobi;
    // the predictor-corrector's (local, m): F(x) - ybar (F on free rows); the predictor's steps
    double* residual;
    double* dxAffine;
    double* dyAffine;
    double residualStart; // |residual| at the start (infinity norm)
    double* krylovWork;
    // scratch (problem rows, bodies)
    double* lambdaFull;
    double* wFull;
    double* wShifted;
    double* velocity;

    cnFactor* factor;
    cnFactorStats factorStats;
    cnIc0 ic0;
    bool ic0Held;
    int krylovIterations;
    int ic0Shifts;
    int linear;
    int precondition;
    int krylovCap;
    double forcing;
    cnFactorBackend backend;
} cnIpm;

// ---- the problem's pieces ----------------------------------------------------------------------

// out = K in, K the Newton system's pattern with `values` (the assembled or the base ones)
static void cnIpmMultiply( const cnIpm* ipm, const double* values, const double* in, double* out )
{
    cnSparseMatrix k = ipm->system;
    k.value = values;
    cnSparseMultiply( &k, in, out );
}

// jacobi = 1 / the diagonal of `values` on the Newton system's pattern (1 where not positive)
static void cnIpmSetJacobi( cnIpm* ipm, const double* values )
{
    for ( int r = 0; r < ipm->m; ++r )
    {
        double diagonal = 0.0;
        for ( int e = ipm->rowStart[r]; e < ipm->rowStart[r + 1]; ++e )
        {
            diagonal = ipm->column[e] == r ? values[e] : diagonal;
        }
        ipm->jacobi[r] = diagonal > 0.0 && isfinite( diagonal ) ? 1.0 / diagonal : 1.0;
    }
}

// lambda of the unknowns from x (lambda_n = x_n / mu on cones)
static void cnIpmLambda( const cnIpm* ipm, const double* x, double* lambdaFull )
{
    for ( int b = 0; b < ipm->blockCount; ++b )
    {
        const cnIpmBlock* block = ipm->blocks + b;
        int k = block->local;
        if ( block->kind == cn_ipmBlockCone )
        {
            lambdaFull[ipm->rows[k]] = x[k] / block->mu;
            lambdaFull[ipm->rows[k + 1]] = x[k + 1];
            lambdaFull[ipm->rows[k + 2]] = x[k + 2];
        }
        else
        {
            lambdaFull[ipm->rows[k]] = x[k];
        }
    }
}

// u = (A + S) lambda + b + sigma for the unknowns (and wFull for every row) at x
static void cnIpmVelocities( cnIpm* ipm, const double* x )
{
    cnIpmLambda( ipm, x, ipm->lambdaFull );
    cnComputeVelocity( ipm->problem, ipm->prepared, ipm->lambdaFull, ipm->velocity );
    cnComputeW( ipm->problem, ipm->prepared, ipm->lambdaFull, ipm->velocity, ipm->wFull );
    for ( int k = 0; k < ipm->m; ++k )
    {
        ipm->u[k] = ipm->wFull[ipm->rows[k]] + ipm->sigma[k];
    }
}

// y-space of a block's velocities: y = diag(1, mu, mu) u
static void cnIpmToY( const cnIpmBlock* block, const double* u, double* y )
{
    if ( block->kind == cn_ipmBlockCone )
    {
        y[0] = u[0];
        y[1] = block->mu * u[1];
        y[2] = block->mu * u[2];
    }
    else
    {
        y[0] = u[0];
    }
}

// The merit of the problem being solved: the cone natural map with the shift sigma in place of De
// Saxce's mu |w_t| (cnModelMeritFromW adds mu |w_t| to the normal velocity it is given, so it is given
// w_n + sigma - mu |w_t|). With sigma = mu |w_t| this is merits.cone itself.
static double cnIpmShiftedMerit( cnIpm* ipm )
{
    const cnSolverProblem* problem = ipm->problem;
    memcpy( ipm->wShifted, ipm->wFull, (size_t)ipm->n * sizeof( double ) );
    for ( int b = 0; b < ipm->blockCount; ++b )
    {
        const cnIpmBlock* block = ipm->blocks + b;
        int i = ipm->rows[block->local];
        if ( block->kind == cn_ipmBlockCone )
        {
            double tangent = hypot( ipm->wFull[i + 1], ipm->wFull[i + 2] );
            ipm->wShifted[i] += ipm->sigma[block->local] - block->mu * tangent;
        }
        else if ( block->kind == cn_ipmBlockPositive &&
                  problem->groups[block->group].kind == cn_groupContact )
        {
            // a contact solved frictionless: graded as one (no tangent velocity, so no friction owed)
            ipm->wShifted[i + 1] = 0.0;
            ipm->wShifted[i + 2] = 0.0;
        }
    }
    return cnModelMeritFromW( problem, ipm->prepared, cn_modelCone, ipm->lambdaFull, ipm->wShifted );
}

// The paper's error max(cost, feas) (its 5.2) of the problem being solved, from u and lambda.
static double cnIpmPaperError( const cnIpm* ipm )
{
    double cost = 0.0;
    double feas = 0.0;
    int contacts = 0;
    for ( int b = 0; b < ipm->blockCount; ++b )
    {
        const cnIpmBlock* block = ipm->blocks + b;
        int k = block->local;
        const double* lambda = ipm->lambdaFull;
        if ( block->kind == cn_ipmBlockCone )
        {
            int i = ipm->rows[k];
            cost += lambda[i] * ipm->u[k] + lambda[i + 1] * ipm->u[k + 1] + lambda[i + 2] * ipm->u[k + 2];
            double fu = -fmin( 0.0, ipm->u[k] - block->mu * hypot( ipm->u[k + 1], ipm->u[k + 2] ) );
            double fl = -fmin( 0.0, block->mu * lambda[i] - hypot( lambda[i + 1], lambda[i + 2] ) );
            feas = fmax( feas, fmax( fu, fl ) );
            contacts += 1;
        }
        else if ( block->kind == cn_ipmBlockPositive )
        {
            int i = ipm->rows[k];
            cost += lambda[i] * ipm->u[k];
            feas = fmax( feas, fmax( -fmin( 0.0, ipm->u[k] ), -fmin( 0.0, lambda[i] ) ) );
            contacts += 1;
        }
        else
        {
            feas = fmax( feas, fabs( ipm->u[k] ) );
        }
    }
    return fmax( contacts > 0 ? fabs( cost ) / contacts : 0.0, feas );
}

// ---- the Newton system ----------------------------------------------------------------------------

static int cnIpmCompareInts( const void* a, const void* b )
{
    int x = *(const int*)a;
    int y = *(const int*)b;
    return ( x > y ) - ( x < y );
}

// The pattern of (A + S) on the unknowns merged with the cone blocks and diagonals; false when out
// of memory or the problem's matrix could not be built.
static bool cnIpmBuildPattern( cnIpm* ipm, cnScratch* scratch )
{
    cnScratch baseScratch = { .arena = NULL };
    cnSparseMatrix base;
    if ( !cnBuildSparseMatrixIn( ipm->problem, ipm->rows, ipm->m, &baseScratch, &base ) )
    {
        cnScratchRelease( &baseScratch );
        return false;
    }
    int m = ipm->m;
    // the block columns each unknown's row must hold (3 for a cone row, its own index otherwise)
    int* extraStart = malloc( (size_t)( m + 1 ) * sizeof( int ) );
    int* extra = malloc( (size_t)( 3 * m + 1 ) * sizeof( int ) );
    bool ok = extraStart != NULL && extra != NULL;
    if ( ok )
    {
        extraStart[0] = 0;
        for ( int b = 0; b < ipm->blockCount; ++b )
        {
            const cnIpmBlock* block = ipm->blocks + b;
            int size = block->kind == cn_ipmBlockCone ? 3 : 1;
            for ( int r = 0; r < size; ++r )
            {
                int row = block->local + r;
                for ( int c = 0; c < size; ++c )
                {
                    extra[extraStart[row] + c] = block->local + c;
                }
                extraStart[row + 1] = extraStart[row] + size;
            }
        }
        int bound = base.rowStart[m] + extraStart[m];
        ipm->rowStart = cnScratchBytes( scratch, (size_t)( m + 1 ) * sizeof( int ) );
        ipm->column = cnScratchBytes( scratch, (size_t)( bound > 0 ? bound : 1 ) * sizeof( int ) );
        ipm->value = cnScratchDoubles( scratch, bound );
        ipm->baseValue = cnScratchDoubles( scratch, bound );
        ipm->blockAt = cnScratchBytes( scratch, (size_t)( 3 * m + 1 ) * sizeof( int ) );
        ok = ipm->rowStart != NULL && ipm->column != NULL && ipm->value != NULL && ipm->baseValue != NULL &&
             ipm->blockAt != NULL;
    }
    if ( ok )
    {
        // merge each row's sorted base columns with its sorted block columns
        int at = 0;
        ipm->rowStart[0] = 0;
        for ( int r = 0; r < m; ++r )
        {
            int e = base.rowStart[r];
            int end = base.rowStart[r + 1];
            int f = extraStart[r];
            int fend = extraStart[r + 1];
            qsort( extra + f, (size_t)( fend - f ), sizeof( int ), cnIpmCompareInts );
            int found = 0;
            while ( e < end || f < fend )
            {
                int c;
                double v = 0.0;
                bool fromExtra = false;
                if ( f < fend && ( e >= end || extra[f] <= base.column[e] ) )
                {
                    c = extra[f];
                    fromExtra = true;
                    if ( e < end && base.column[e] == c )
                    {
                        v = base.value[e];
                        e += 1;
                    }
                    f += 1;
                }
                else
                {
                    c = base.column[e];
                    v = base.value[e];
                    e += 1;
                }
                if ( fromExtra )
                {
                    ipm->blockAt[3 * r + found] = at;
                    found += 1;
                }
                ipm->column[at] = c;
                ipm->baseValue[at] = v;
                at += 1;
            }
            ipm->rowStart[r + 1] = at;
        }
        ipm->system = ( cnSparseMatrix ){ m, m, ipm->rowStart, ipm->column, ipm->value };
    }
    free( extraStart );
    free( extra );
    cnScratchRelease( &baseScratch );
    return ok;
}

// The Newton matrix: (A + S) plus Tx P(w) Tx / mu on every cone and ybar / x on every R+ block.
static void cnIpmAssemble( cnIpm* ipm )
{
    memcpy( ipm->value, ipm->baseValue, (size_t)ipm->rowStart[ipm->m] * sizeof( double ) );
    for ( int b = 0; b < ipm->blockCount; ++b )
    {
        const cnIpmBlock* block = ipm->blocks + b;
        int k = block->local;
        if ( block->kind == cn_ipmBlockCone )
        {
            double w[3];
            double p[9];
            cnJordanScaling( ipm->x + k, ipm->ybar + k, w );
            cnJordanQuadratic( w, p );
            // Tx = diag(mu, 1, 1): entry (r, c) scaled by t_r t_c / mu
            double t[3] = { block->mu, 1.0, 1.0 };
            for ( int r = 0; r < 3; ++r )
            {
                for ( int c = 0; c < 3; ++c )
                {
                    ipm->value[ipm->blockAt[3 * ( k + r ) + c]] += t[r] * p[3 * r + c] * t[c] / block->mu;
                }
            }
        }
        else if ( block->kind == cn_ipmBlockPositive )
        {
            ipm->value[ipm->blockAt[3 * k]] += ipm->ybar[k] / ipm->x[k];
        }
    }
}

static void cnIpmApply( void* context, const double* in, double* out )
{
    const cnIpm* ipm = context;
    cnIpmMultiply( ipm, ipm->value, in, out );
}

static void cnIpmApplyJacobi( void* context, const double* r, double* z )
{
    const cnIpm* ipm = context;
    for ( int k = 0; k < ipm->m; ++k )
    {
        z[k] = r[k] * ipm->jacobi[k];
    }
}

static void cnIpmApplyNone( void* context, const double* r, double* z )
{
    const cnIpm* ipm = context;
    memcpy( z, r, (size_t)ipm->m * sizeof( double ) );
}

// Solve the assembled system for ipm->step from ipm->rhs; false (with a reason) when it cannot.
// `again`: the matrix is the one of the last call (the predictor-corrector's second solve), whose
// factor or preconditioner is reused.
static bool cnIpmSolveSystem( cnIpm* ipm, double merit, bool again, const char** reason )
{
    int m = ipm->m;
    if ( ipm->linear == cn_ipmDirect )
    {
        if ( !again )
        {
            cnFactorResult result =
                cnFactorize( ipm->factor, &ipm->system, 0.0, ipm->backend, &ipm->factorStats );
            if ( result != cn_factorOk && result != cn_factorRegularized )
            {
                *reason = cnFactorReason( ipm->factor );
                return false;
            }
        }
        return cnFactorSolve( ipm->factor, ipm->rhs, ipm->step );
    }

    cnKrylovPrecondition* precondition = cnIpmApplyNone;
    void* preconditionContext = ipm;
    if ( ipm->precondition == cn_ipmPreconditionIc0 )
    {
        const char* why = NULL;
        // the factor's arrays are reused from one Newton step to the next
        ipm->ic0Held = true;
        if ( !again && !cnIc0Factor( &ipm->ic0, &ipm->system, &why ) )
        {
            *reason = why != NULL ? why : "ipm: the IC(0) preconditioner failed";
            return false;
        }
        ipm->ic0Shifts += !again && ipm->ic0.shift > 0.0 ? 1 : 0;
        precondition = cnIc0Apply;
        preconditionContext = &ipm->ic0;
    }
    else if ( ipm->precondition == cn_ipmPreconditionJacobi )
    {
        if ( !again )
        {
            cnIpmSetJacobi( ipm, ipm->value );
        }
        precondition = cnIpmApplyJacobi;
    }
    double tolerance = fmin( CN_IPM_FORCING_MAX, ipm->forcing * merit );
    memset( ipm->step, 0, (size_t)m * sizeof( double ) );
    cnKrylovResult result;
    if ( ipm->linear == cn_ipmBicgstab )
    {
        result = cnBicgstab( cnIpmApply, ipm, precondition, preconditionContext, ipm->rhs, ipm->step, m,
                             tolerance, ipm->krylovCap, ipm->krylovWork );
    }
    else
    {
        result = cnPcgPre( cnIpmApply, ipm, precondition, preconditionContext, ipm->rhs, ipm->step, m,
                           tolerance, ipm->krylovCap, ipm->krylovWork );
    }
    ipm->krylovIterations += result.iterations;
    if ( !result.finite )
    {
        *reason = "ipm: the Krylov solve of a Newton system produced NaN or infinity";
        return false;
    }
    // an unconverged inexact solve is still a direction (the paper caps at 500 and goes on)
    return true;
}

// ---- one pass: the interior point iteration on the problem with the shift sigma ---------------------

typedef struct cnIpmRun
{
    const cnSolverBudget* budget;
    const cnSolverSolution* solution;
    cnSolverStats* stats;
    uint64_t start;
    int* steps; // Newton steps spent in this solve
    double betaCen, betaOne, betaBoundary;
    double fraction;
    double thetaMin;
    double tolerance; // on the shifted merit
    bool passesLeft;  // a De Saxce pass follows: stop once the shift's error dominates
    bool history;
    bool predictorCorrector; // no cones: Mehrotra's steps (cnIpmPredictorCorrectorStep)
} cnIpmRun;

// the centrality measure f_cen of the (augmented, while infeasible) problem: 0 on the central path
static double cnIpmCentrality( const cnIpm* ipm, double* gap )
{
    double sum = 0.0;
    double logs = 0.0;
    int count = 0;
    for ( int b = 0; b < ipm->blockCount; ++b )
    {
        const cnIpmBlock* block = ipm->blocks + b;
        int k = block->local;
        if ( block->kind == cn_ipmBlockCone )
        {
            sum += ipm->x[k] * ipm->ybar[k] + ipm->x[k + 1] * ipm->ybar[k + 1] +
                   ipm->x[k + 2] * ipm->ybar[k + 2];
            logs += cnJordanPairLog( ipm->x + k, ipm->ybar + k );
            count += 1;
        }
        else if ( block->kind == cn_ipmBlockPositive )
        {
            sum += ipm->x[k] * ipm->ybar[k];
            logs += log( ipm->x[k] * ipm->ybar[k] );
            count += 1;
        }
    }
    if ( !ipm->feasible )
    {
        sum += ipm->s;
        logs += log( ipm->s );
        count += 1;
    }
    *gap = sum;
    if ( count == 0 || sum <= 0.0 )
    {
        return 0.0;
    }
    return 2.0 * count * ( log( sum / count ) - logs / count );
}

static void cnIpmUpdateAlpha( cnIpm* ipm, const cnIpmRun* run )
{
    double gap;
    double centrality = cnIpmCentrality( ipm, &gap );
    double beta = centrality <= CN_IPM_ALPHA_CEN   ? run->betaCen
                  : centrality <= CN_IPM_ALPHA_ONE ? run->betaOne
                                                   : run->betaBoundary;
    int count = ipm->complementarity + ( ipm->feasible ? 0 : 1 );
    ipm->alpha = count > 0 ? beta * gap / ( 2.0 * count ) : 0.0;
}

// The start: x inside every cone (cold: the scaled or given impulse on the normal; warm: the given
// impulses projected into the cone plus a share of the cold start), ybar on the central path, s and d.
static void cnIpmApplyBase( void* context, const double* in, double* out )
{
    const cnIpm* ipm = context;
    cnIpmMultiply( ipm, ipm->baseValue, in, out );
}

// The size of the impulses the load asks for: the root mean square of the normal impulses after a
// few Jacobi-preconditioned CG steps on the unconstrained system (A + S) z = -b. A column of heavy
// bodies passes their weight down through contacts whose own b is 0, which |b| / A_nn does not see;
// a start below that scale took 3 times the Newton steps on a 1000:1 column (and above it the
// same as at it). 0 when the steps fail or do not halve the residual. `work`: cnPcgPreWorkSize(m) doubles.
static double cnIpmLoadScale( cnIpm* ipm, double* work )
{
    int m = ipm->m;
    cnIpmSetJacobi( ipm, ipm->baseValue );
    for ( int k = 0; k < m; ++k )
    {
        ipm->rhs[k] = -ipm->problem->b[ipm->rows[k]];
        ipm->step[k] = 0.0;
    }
    cnKrylovResult result = cnPcgPre( cnIpmApplyBase, ipm, cnIpmApplyJacobi, ipm, ipm->rhs, ipm->step, m,
                                      CN_IPM_LOAD_TOLERANCE, CN_IPM_LOAD_STEPS, work );
    if ( !( result.residual <= CN_IPM_LOAD_RESIDUAL ) )
    {
        // the unconstrained system has no solution to speak of (a joint limit's lower and upper rows
        // ask opposite things of one degree of freedom): its iterates only grow, and a start at their
        // scale (1.9e25 N s on the ragdoll) is no start
        return 0.0;
    }
    double sum = 0.0;
    int count = 0;
    for ( int b = 0; b < ipm->blockCount; ++b )
    {
        const cnIpmBlock* block = ipm->blocks + b;
        if ( block->kind != cn_ipmBlockFree )
        {
            double z = ipm->step[block->local];
            sum += z * z;
            count += 1;
        }
    }
    double scale = count > 0 ? sqrt( sum / count ) : 0.0;
    return isfinite( scale ) ? scale : 0.0;
}

static void cnIpmStart( cnIpm* ipm, const double* guess, bool warm, double startImpulse )
{
    const cnSolverProblem* problem = ipm->problem;
    const cnPrepared* prepared = ipm->prepared;
    // the cold start's normal impulse, the same for every contact: the mean |b| / A_nn, or the load's
    // scale when that is larger
    double typical = 0.0;
    int normals = 0;
    for ( int b = 0; b < ipm->blockCount; ++b )
    {
        const cnIpmBlock* block = ipm->blocks + b;
        if ( block->kind == cn_ipmBlockFree )
        {
            continue;
        }
        int i = ipm->rows[block->local];
        double size = block->kind == cn_ipmBlockCone
                          ? sqrt( problem->b[i] * problem->b[i] + problem->b[i + 1] * problem->b[i + 1] +
                                  problem->b[i + 2] * problem->b[i + 2] )
                          : fabs( problem->b[i] );
        typical += size / prepared->diagonal[i];
        normals += 1;
    }
    typical = normals > 0 ? typical / normals : 0.0;
    // the load's scale where it is one: a nearly singular system (a joint limit's two rows, not
    // quite opposite in round-off) has CG iterates many orders past any impulse the load needs
    if ( !( typical > 0.0 ) || ipm->loadScale <= CN_IPM_LOAD_RATIO * typical )
    {
        typical = fmax( typical, ipm->loadScale );
    }
    if ( !( typical > 0.0 ) || !isfinite( typical ) )
    {
        typical = 1.0;
    }

    for ( int b = 0; b < ipm->blockCount; ++b )
    {
        const cnIpmBlock* block = ipm->blocks + b;
        int k = block->local;
        int i = ipm->rows[k];
        if ( block->kind == cn_ipmBlockFree )
        {
            ipm->x[k] = warm ? guess[i] : 0.0;
            continue;
        }
        // the same normal impulse for every contact, as the paper's start: a start scaled contact
        // by contact (|b_i| / A_nn) leaves the resting contacts (b = 0) far from the central path
        // and took three times the Newton steps on the sphere piles
        double cold = startImpulse > 0.0 ? startImpulse : typical;
        if ( block->kind == cn_ipmBlockCone )
        {
            double mu = block->mu;
            double xn = 0.0, x1 = 0.0, x2 = 0.0;
            if ( warm )
            {
                // the given impulses in x-space, projected onto the self-dual cone
                xn = mu * guess[i];
                x1 = guess[i + 1];
                x2 = guess[i + 2];
                double t = hypot( x1, x2 );
                if ( t > xn )
                {
                    if ( t <= -xn )
                    {
                        xn = x1 = x2 = 0.0;
                    }
                    else
                    {
                        double scale = 0.5 * ( xn + t );
                        x1 *= scale / t;
                        x2 *= scale / t;
                        xn = scale;
                    }
                }
                cold *= CN_IPM_WARM_PUSH;
            }
            ipm->x[k] = xn + mu * cold;
            ipm->x[k + 1] = x1;
            ipm->x[k + 2] = x2;
        }
        else
        {
            ipm->x[k] = ( warm ? fmax( guess[i], 0.0 ) : 0.0 ) + ( warm ? CN_IPM_WARM_PUSH : 1.0 ) * cold;
        }
    }

    // alpha from |x_i^T y_i| at F(x) (floored: F(x) = 0 gives no scale)
    cnIpmVelocities( ipm, ipm->x );
    double sum = 0.0;
    for ( int b = 0; b < ipm->blockCount; ++b )
    {
        const cnIpmBlock* block = ipm->blocks + b;
        int k = block->local;
        double y[3];
        cnIpmToY( block, ipm->u + k, y );
        if ( block->kind == cn_ipmBlockCone )
        {
            sum += fabs( ipm->x[k] * y[0] + ipm->x[k + 1] * y[1] + ipm->x[k + 2] * y[2] );
        }
        else if ( block->kind == cn_ipmBlockPositive )
        {
            sum += fabs( ipm->x[k] * y[0] );
        }
    }
    double alpha = ipm->complementarity > 0 ? sum / ( 2.0 * ipm->complementarity ) : 0.0;
    if ( !( alpha > 0.0 ) )
    {
        // no velocity at the start: the scale of x itself, a velocity of 1 per unit of A_nn x
        alpha = 0.0;
        for ( int b = 0; b < ipm->blockCount; ++b )
        {
            const cnIpmBlock* block = ipm->blocks + b;
            if ( block->kind != cn_ipmBlockFree )
            {
                int k = block->local;
                alpha += ipm->x[k] * ipm->x[k] * ipm->prepared->diagonal[ipm->rows[k]];
            }
        }
        alpha = ipm->complementarity > 0 ? fmax( alpha / ( 2.0 * ipm->complementarity ), DBL_MIN ) : 0.0;
    }
    ipm->alpha = alpha;
    ipm->s = 2.0 * alpha;
    ipm->s0 = ipm->s;
    ipm->feasible = false;
    for ( int b = 0; b < ipm->blockCount; ++b )
    {
        const cnIpmBlock* block = ipm->blocks + b;
        int k = block->local;
        double y[3];
        cnIpmToY( block, ipm->u + k, y );
        if ( block->kind == cn_ipmBlockCone )
        {
            // the central point x o ybar = alpha e
            double xn = ipm->x[k];
            double t2 = ipm->x[k + 1] * ipm->x[k + 1] + ipm->x[k + 2] * ipm->x[k + 2];
            double yn = 2.0 * alpha / ( xn - t2 / xn );
            ipm->ybar[k] = yn;
            ipm->ybar[k + 1] = -( yn / xn ) * ipm->x[k + 1];
            ipm->ybar[k + 2] = -( yn / xn ) * ipm->x[k + 2];
            for ( int r = 0; r < 3; ++r )
            {
                ipm->d[k + r] = ( ipm->ybar[k + r] - y[r] ) / ipm->s;
            }
        }
        else if ( block->kind == cn_ipmBlockPositive )
        {
            ipm->ybar[k] = 2.0 * alpha / ipm->x[k];
            ipm->d[k] = ( ipm->ybar[k] - y[0] ) / ipm->s;
        }
        else
        {
            // F_f + s d_f = 0 at the start, kept by every step
            ipm->ybar[k] = 0.0;
            ipm->d[k] = ipm->s > 0.0 ? -y[0] / ipm->s : 0.0;
        }
    }
    if ( ipm->complementarity == 0 )
    {
        // free rows only: one Newton step solves them; nothing is infeasible
        ipm->s = 0.0;
        ipm->s0 = 0.0;
        ipm->feasible = true;
        memset( ipm->d, 0, (size_t)ipm->m * sizeof( double ) );
    }
}

// the largest step in [0, 1] along (dx, dy) by the fraction-to-boundary rule over every block of x
// and ybar
static double cnIpmStepLength( const cnIpm* ipm, const double* dx, const double* dy, double fraction )
{
    double most = INFINITY;
    for ( int b = 0; b < ipm->blockCount; ++b )
    {
        const cnIpmBlock* block = ipm->blocks + b;
        int k = block->local;
        if ( block->kind == cn_ipmBlockCone )
        {
            most = fmin( most, cnJordanStepMax( ipm->x + k, dx + k ) );
            most = fmin( most, cnJordanStepMax( ipm->ybar + k, dy + k ) );
        }
        else if ( block->kind == cn_ipmBlockPositive )
        {
            most = dx[k] < 0.0 ? fmin( most, -ipm->x[k] / dx[k] ) : most;
            most = dy[k] < 0.0 ? fmin( most, -ipm->ybar[k] / dy[k] ) : most;
        }
    }
    return fmin( 1.0, fraction * most );
}

// ybar - s d inside every cone and R+ block
static bool cnIpmCanSwitch( const cnIpm* ipm )
{
    for ( int b = 0; b < ipm->blockCount; ++b )
    {
        const cnIpmBlock* block = ipm->blocks + b;
        int k = block->local;
        if ( block->kind == cn_ipmBlockCone )
        {
            double y[3];
            for ( int r = 0; r < 3; ++r )
            {
                y[r] = ipm->ybar[k + r] - ipm->s * ipm->d[k + r];
            }
            if ( !cnJordanInterior( y ) )
            {
                return false;
            }
        }
        else if ( block->kind == cn_ipmBlockPositive && !( ipm->ybar[k] - ipm->s * ipm->d[k] > 0.0 ) )
        {
            return false;
        }
    }
    return true;
}

// ---- Mehrotra's predictor-corrector (problems with no cone) ---------------------------------------
//
// With R+ blocks and free rows only, the problem is the monotone LCP y = F(x) = (A + S) x + b, x >= 0,
// y >= 0, x y = 0 (with F = 0 on free rows), and the classic infeasible predictor-corrector applies:
// with r = F(x) - y (F on free rows), D = y / x and gap mu = x^T y / p over the p blocks,
//
//     (A + S + D) dx = -r - y + (sigma mu - dx_a dy_a) / x      (R+ rows; -r on free rows)
//     dy = (A + S) dx + r
//
// first with sigma = 0 and no product term (the predictor, dx_a and dy_a), then with
// sigma = (mu_a / mu)^3 from the gap mu_a the predictor would reach and its product (the corrector),
// both on one factorisation. One step length for x and y (y is tied to x through A), so r falls by
// (1 - theta) each step. The paper's path following needs about 50 steps on a colony's problem,
// centring by a fixed share each step; this adapts the centring to the progress of the predictor.

// r = F(x) - ybar on R+ blocks and F(x) on free rows, from u; returns its largest magnitude
static double cnIpmResidual( cnIpm* ipm )
{
    double largest = 0.0;
    for ( int b = 0; b < ipm->blockCount; ++b )
    {
        const cnIpmBlock* block = ipm->blocks + b;
        int k = block->local;
        ipm->residual[k] = ipm->u[k] - ( block->kind == cn_ipmBlockPositive ? ipm->ybar[k] : 0.0 );
        largest = fmax( largest, fabs( ipm->residual[k] ) );
    }
    return largest;
}

// dy = (A + S) dx + r on R+ rows (0 on free rows)
static void cnIpmDualStep( cnIpm* ipm, const double* dx, double* dy )
{
    cnIpmMultiply( ipm, ipm->baseValue, dx, ipm->product );
    for ( int b = 0; b < ipm->blockCount; ++b )
    {
        const cnIpmBlock* block = ipm->blocks + b;
        int k = block->local;
        dy[k] = block->kind == cn_ipmBlockPositive ? ipm->product[k] + ipm->residual[k] : 0.0;
    }
}

// One predictor-corrector step from x, ybar with the residual computed; false when the pass ends
// (*status, *reason). `infeasible`: the residual has not yet fallen far (a stall is then infeasibility).
static bool cnIpmPredictorCorrectorStep( cnIpm* ipm, cnIpmRun* run, double merit, bool infeasible,
                                         cnSolveStatus* status, const char** reason )
{
    int m = ipm->m;
    double gap = 0.0;
    for ( int b = 0; b < ipm->blockCount; ++b )
    {
        const cnIpmBlock* block = ipm->blocks + b;
        int k = block->local;
        gap += block->kind == cn_ipmBlockPositive ? ipm->x[k] * ipm->ybar[k] : 0.0;
    }
    int count = ipm->complementarity;
    double mu = count > 0 ? gap / count : 0.0;

    // the predictor: the Newton step to the complementarity x y = 0
    for ( int b = 0; b < ipm->blockCount; ++b )
    {
        const cnIpmBlock* block = ipm->blocks + b;
        int k = block->local;
        ipm->rhs[k] = -ipm->residual[k] - ( block->kind == cn_ipmBlockPositive ? ipm->ybar[k] : 0.0 );
    }
    cnIpmAssemble( ipm );
    if ( !cnIpmSolveSystem( ipm, merit, false, reason ) )
    {
        *status = cn_solveStalled;
        return false;
    }
    cnCopyDoubles( ipm->dxAffine, ipm->step, m );
    cnIpmDualStep( ipm, ipm->dxAffine, ipm->dyAffine );
    double thetaAffine = cnIpmStepLength( ipm, ipm->dxAffine, ipm->dyAffine, 1.0 );
    double gapAffine = 0.0;
    for ( int b = 0; b < ipm->blockCount; ++b )
    {
        const cnIpmBlock* block = ipm->blocks + b;
        int k = block->local;
        if ( block->kind == cn_ipmBlockPositive )
        {
            gapAffine += ( ipm->x[k] + thetaAffine * ipm->dxAffine[k] ) *
                         ( ipm->ybar[k] + thetaAffine * ipm->dyAffine[k] );
        }
    }
    double ratio = gap > 0.0 ? fmin( fmax( gapAffine / gap, 0.0 ), 1.0 ) : 0.0;
    double sigma = ratio * ratio * ratio;

    // the corrector: centred by sigma, with the predictor's second-order term
    for ( int b = 0; b < ipm->blockCount; ++b )
    {
        const cnIpmBlock* block = ipm->blocks + b;
        int k = block->local;
        if ( block->kind == cn_ipmBlockPositive )
        {
            ipm->rhs[k] = -ipm->residual[k] - ipm->ybar[k] +
                          ( sigma * mu - ipm->dxAffine[k] * ipm->dyAffine[k] ) / ipm->x[k];
        }
        else
        {
            ipm->rhs[k] = -ipm->residual[k];
        }
    }
    if ( !cnIpmSolveSystem( ipm, merit, true, reason ) )
    {
        *status = cn_solveStalled;
        return false;
    }
    *run->steps += 1;
    cnCopyDoubles( ipm->dx, ipm->step, m );
    cnIpmDualStep( ipm, ipm->dx, ipm->dy );
    for ( int k = 0; k < m; ++k )
    {
        if ( !isfinite( ipm->dx[k] ) || !isfinite( ipm->dy[k] ) )
        {
            *status = cn_solveNonFinite;
            return false;
        }
    }
    double theta = cnIpmStepLength( ipm, ipm->dx, ipm->dy, run->fraction );
    if ( theta < run->thetaMin )
    {
        infeasible = infeasible && merit > CN_IPM_INFEASIBLE_MERIT;
        *reason = infeasible ? "ipm: the steps stalled with the residual F(x) - y away from 0: the contact "
                               "problem has no solution (add compliance, or lower the stabilisation)"
                             : "ipm: the step length fell below theta_min";
        *status = infeasible ? cn_solveInfeasible : cn_solveStalled;
        return false;
    }
    for ( int k = 0; k < m; ++k )
    {
        ipm->x[k] += theta * ipm->dx[k];
        ipm->ybar[k] += theta * ipm->dy[k];
    }
    return true;
}

// One pass from the start already made. Returns the status of the pass; *merit the shifted merit
// of the last iterate (lambdaFull and u hold it).
static cnSolveStatus cnIpmPass( cnIpm* ipm, cnIpmRun* run, double* merit, const char** reason )
{
    const cnSolverBudget* budget = run->budget;
    cnSolverStats* stats = run->stats;
    int m = ipm->m;
    // the start is central: the first step would be 0, so alpha moves first (the digest's fix)
    cnIpmUpdateAlpha( ipm, run );
    if ( run->predictorCorrector )
    {
        // its own infeasibility is the residual r, not the homotopy's s and d
        ipm->feasible = true;
        ipm->s = 0.0;
        ipm->s0 = 0.0;
        ipm->residualStart = -1.0;
    }
    double best = (double)INFINITY;
    double bestGap = (double)INFINITY;
    int flat = 0; // steps since the merit last improved by CN_IPM_PROGRESS, or the gap by a tenth
    for ( ;; )
    {
        cnIpmVelocities( ipm, ipm->x );
        *merit = cnIpmShiftedMerit( ipm );
        if ( !isfinite( *merit ) )
        {
            return cn_solveNonFinite;
        }
        bool infeasible = !ipm->feasible && ipm->s > CN_IPM_INFEASIBLE_S * ipm->s0;
        if ( run->predictorCorrector )
        {
            double residual = cnIpmResidual( ipm );
            ipm->residualStart = ipm->residualStart < 0.0 ? residual : ipm->residualStart;
            infeasible = residual > 0.0 && residual > CN_IPM_INFEASIBLE_S * ipm->residualStart;
        }
        double grading =
            cnModelMeritFromW( ipm->problem, ipm->prepared, cn_modelCone, ipm->lambdaFull, ipm->wFull );
        if ( run->history && *run->steps > 0 )
        {
            cnRecordHistory( run->solution, stats, grading );
        }
        // impulses growing without bound while the infeasibility s stays: no solution (the
        // relative merit would call them converged: their scale grows faster than their residual)
        // (the predictor-corrector's residual falls by 1 - theta a step even on a problem with no
        // solution, whose iterates grow instead: there the growth alone says so)
        if ( ( infeasible || run->predictorCorrector ) && ipm->prepared->freeEnergy > 0.0 )
        {
            double scale = cnMeritScale( ipm->problem, ipm->prepared, ipm->lambdaFull );
            double free = sqrt( ipm->prepared->freeEnergy );
            if ( scale - free > CN_IPM_UNBOUNDED * free )
            {
                *reason =
                    run->predictorCorrector
                        ? "ipm: the impulses grew past 1e8 times the free velocity's scale: the problem "
                          "has no solution, or redundant rows leave them undetermined (add compliance, "
                          "or lower the stabilisation)"
                        : "ipm: the impulses grow without bound with the infeasibility s away from 0: "
                          "the contact problem has no solution (add compliance, or lower the "
                          "stabilisation)";
                return cn_solveInfeasible;
            }
        }
        // done: the grading merit is met; or this pass is: another follows and the shift's error
        // dominates (its own merit a tenth of the grading one), or it is the last and its own
        // problem is solved
        if ( grading <= run->tolerance || ( run->passesLeft && *merit <= CN_IPM_PASS_SHARE * grading ) ||
             ( !run->passesLeft && *merit <= run->tolerance ) )
        {
            return cn_solveConverged;
        }
        // progress: the merit falls, or the complementarity gap does (early on the merit may wait
        // while the iterates centre and the infeasibility falls)
        double gap;
        cnIpmCentrality( ipm, &gap );
        if ( *merit < ( 1.0 - CN_IPM_PROGRESS ) * best || gap < CN_IPM_GAP_PROGRESS * bestGap )
        {
            best = fmin( best, *merit );
            bestGap = fmin( bestGap, gap );
            flat = 0;
        }
        else if ( ++flat >= CN_IPM_FLAT_STEPS )
        {
            // the Newton systems have run into round-off (their condition grows like 1 / alpha^2
            // without compliance): the directions no longer improve anything
            *reason = "ipm: the merit stopped improving (round-off in the Newton systems; compliance "
                      "in the model helps)";
            return cn_solveStalled;
        }
        if ( *run->steps >= budget->maxIterations )
        {
            return cn_solveMaxIterations;
        }
        if ( budget->deadlineMs > 0.0 && cnGetMilliseconds( run->start ) >= budget->deadlineMs )
        {
            return cn_solveDeadline;
        }
        if ( run->predictorCorrector )
        {
            cnSolveStatus ended = cn_solveStalled;
            if ( !cnIpmPredictorCorrectorStep( ipm, run, *merit, infeasible, &ended, reason ) )
            {
                return ended;
            }
            continue;
        }

        // the right-hand side in y-space, then to lambda space (Ty^-1)
        double ds = ipm->feasible ? 0.0 : 2.0 * ipm->alpha - ipm->s;
        for ( int b = 0; b < ipm->blockCount; ++b )
        {
            const cnIpmBlock* block = ipm->blocks + b;
            int k = block->local;
            if ( block->kind == cn_ipmBlockCone )
            {
                double inverse[3];
                cnJordanInverse( ipm->x + k, inverse );
                for ( int r = 0; r < 3; ++r )
                {
                    ipm->rhs[k + r] = ipm->alpha * inverse[r] - ipm->ybar[k + r] - ds * ipm->d[k + r];
                }
                ipm->rhs[k + 1] /= block->mu;
                ipm->rhs[k + 2] /= block->mu;
            }
            else if ( block->kind == cn_ipmBlockPositive )
            {
                ipm->rhs[k] = 2.0 * ipm->alpha / ipm->x[k] - ipm->ybar[k] - ds * ipm->d[k];
            }
            else
            {
                ipm->rhs[k] = -ipm->u[k] - ( ipm->s + ds ) * ipm->d[k];
            }
        }
        cnIpmAssemble( ipm );
        if ( !cnIpmSolveSystem( ipm, *merit, false, reason ) )
        {
            return cn_solveStalled;
        }
        *run->steps += 1;

        // dx = Tx dlambda; dy = Ty (A + S) dlambda + ds d
        cnIpmMultiply( ipm, ipm->baseValue, ipm->step, ipm->product );
        for ( int b = 0; b < ipm->blockCount; ++b )
        {
            const cnIpmBlock* block = ipm->blocks + b;
            int k = block->local;
            int size = block->kind == cn_ipmBlockCone ? 3 : 1;
            for ( int r = 0; r < size; ++r )
            {
                double t = block->kind == cn_ipmBlockCone && r == 0 ? block->mu : 1.0;
                double ty = block->kind == cn_ipmBlockCone && r > 0 ? block->mu : 1.0;
                ipm->dx[k + r] = t * ipm->step[k + r];
                ipm->dy[k + r] = ty * ipm->product[k + r] + ds * ipm->d[k + r];
            }
        }
        for ( int k = 0; k < m; ++k )
        {
            if ( !isfinite( ipm->dx[k] ) || !isfinite( ipm->dy[k] ) )
            {
                return cn_solveNonFinite;
            }
        }
        double theta = cnIpmStepLength( ipm, ipm->dx, ipm->dy, run->fraction );
        if ( theta < run->thetaMin )
        {
            infeasible = infeasible && *merit > CN_IPM_INFEASIBLE_MERIT;
            *reason = infeasible ? "ipm: the steps stalled with the infeasibility s away from 0: the contact "
                                   "problem has no solution (add compliance, or lower the stabilisation)"
                                 : "ipm: the step length fell below theta_min";
            return infeasible ? cn_solveInfeasible : cn_solveStalled;
        }
        for ( int k = 0; k < m; ++k )
        {
            ipm->x[k] += theta * ipm->dx[k];
            ipm->ybar[k] += theta * ipm->dy[k];
        }
        ipm->s += theta * ds;
        if ( !ipm->feasible && cnIpmCanSwitch( ipm ) )
        {
            for ( int b = 0; b < ipm->blockCount; ++b )
            {
                const cnIpmBlock* block = ipm->blocks + b;
                if ( block->kind == cn_ipmBlockFree )
                {
                    continue;
                }
                int size = block->kind == cn_ipmBlockCone ? 3 : 1;
                for ( int r = 0; r < size; ++r )
                {
                    ipm->ybar[block->local + r] -= ipm->s * ipm->d[block->local + r];
                }
            }
            // free rows keep their residual F_f + s d_f in the right-hand side from here
            for ( int b = 0; b < ipm->blockCount; ++b )
            {
                const cnIpmBlock* block = ipm->blocks + b;
                if ( block->kind == cn_ipmBlockFree )
                {
                    ipm->d[block->local] = 0.0;
                }
            }
            ipm->s = 0.0;
            ipm->feasible = true;
        }
        cnIpmUpdateAlpha( ipm, run );
    }
}

// sigma = mu |w_t| of every cone from w (a problem-sized array); returns the largest change
static double cnIpmShiftFromW( cnIpm* ipm, const double* w )
{
    double change = 0.0;
    for ( int b = 0; b < ipm->blockCount; ++b )
    {
        const cnIpmBlock* block = ipm->blocks + b;
        if ( block->kind == cn_ipmBlockCone )
        {
            int i = ipm->rows[block->local];
            double next = block->mu * hypot( w[i + 1], w[i + 2] );
            change = fmax( change, fabs( next - ipm->sigma[block->local] ) );
            ipm->sigma[block->local] = next;
        }
    }
    return change;
}

// ---- the solve ------------------------------------------------------------------------------------

// The blocks and unknowns of the problem; NULL when it takes them all, else why not.
static const char* cnIpmLayout( cnIpm* ipm, double muMin, int* frictionless )
{
    const cnSolverProblem* problem = ipm->problem;
    int m = 0;
    int count = 0;
    ipm->complementarity = 0;
    *frictionless = 0;
    for ( int g = 0; g < problem->groupCount; ++g )
    {
        const cnRowGroup* group = problem->groups + g;
        int first = group->firstRow;
        if ( group->kind == cn_groupContact && group->mu >= muMin && group->mu > 0.0 )
        {
            ipm->blocks[count++] = ( cnIpmBlock ){ m, g, cn_ipmBlockCone, group->mu };
            for ( int r = 0; r < 3; ++r )
            {
                ipm->rows[m++] = first + r;
            }
            ipm->complementarity += 1;
        }
        else if ( group->kind == cn_groupContact || group->kind == cn_groupNormal )
        {
            *frictionless += group->kind == cn_groupContact ? 1 : 0;
            ipm->blocks[count++] = ( cnIpmBlock ){ m, g, cn_ipmBlockPositive, 0.0 };
            ipm->rows[m++] = first;
            ipm->complementarity += 1;
        }
        else if ( group->kind == cn_groupBilateral )
        {
            for ( int r = first; r < first + group->rowCount; ++r )
            {
                if ( !( isinf( problem->lower[r] ) && problem->lower[r] < 0.0 && isinf( problem->upper[r] ) &&
                        problem->upper[r] > 0.0 ) )
                {
                    return "ipm: a joint row with finite limits (the IPM takes free joint rows only)";
                }
                ipm->blocks[count++] = ( cnIpmBlock ){ m, g, cn_ipmBlockFree, 0.0 };
                ipm->rows[m++] = r;
            }
        }
        else
        {
            return "ipm: bounded rows (the IPM takes cone and frictionless contacts and free joint rows)";
        }
    }
    ipm->m = m;
    ipm->blockCount = count;
    return NULL;
}

static void cnIpmSolve( void* state, const double* params, const cnSolverBudget* budget,
                        cnSolverProblem* problem, const cnPrepared* prepared, cnSolverSolution* solution,
                        cnArena* arena, cnSolverStats* stats )
{
    (void)state;
    uint64_t start = cnGetTicks();
    int n = problem->rowCount;
    stats->status = cn_solveUnsupported;
    stats->ownMeasure = (double)NAN;
    if ( prepared->nonFiniteRows > 0 )
    {
        stats->status = cn_solveNonFinite;
        return;
    }
    if ( prepared->singularRows > 0 )
    {
        stats->reason = "ipm: a row's diagonal A_ii is zero, negative or not finite";
        return;
    }

#define CN_IPM_PARAM( index ) cnSolverParamValue( cn_ipmParams, cn_ipmParamCount, params, index )
    bool aggressive = (int)CN_IPM_PARAM( cn_ipmStrategy ) == cn_ipmAggressive;
    bool predictorCorrector = CN_IPM_PARAM( cn_ipmPredictorCorrector ) > 0.5;
    int passes = (int)CN_IPM_PARAM( cn_ipmDeSaxcePasses );
    bool warm = CN_IPM_PARAM( cn_ipmWarmStart ) > 0.5;
    double startImpulse = CN_IPM_PARAM( cn_ipmStartImpulse );
    double muMin = CN_IPM_PARAM( cn_ipmMuMin );
    cnScratch scratch = { .arena = arena };
    cnIpm ipm = {
        .problem = problem,
        .prepared = prepared,
        .n = n,
        .blocks = cnScratchBytes( &scratch, (size_t)( n > 0 ? n : 1 ) * sizeof( cnIpmBlock ) ),
        .rows = cnScratchBytes( &scratch, (size_t)( n > 0 ? n : 1 ) * sizeof( int ) ),
        .linear = (int)CN_IPM_PARAM( cn_ipmLinearSolver ),
        .precondition = (int)CN_IPM_PARAM( cn_ipmPreconditioner ),
        .krylovCap = (int)CN_IPM_PARAM( cn_ipmKrylovIterations ),
        .forcing = CN_IPM_PARAM( cn_ipmForcing ),
        .backend = (cnFactorBackend)CN_IPM_PARAM( cn_ipmFactorization ),
    };
    cnIpmRun run = {
        .budget = budget,
        .solution = solution,
        .stats = stats,
        .start = start,
        .betaCen = aggressive ? 0.01 : 0.1,
        .betaOne = aggressive ? 0.1 : 0.5,
        .betaBoundary = aggressive ? 0.5 : 1.0,
        .fraction = CN_IPM_PARAM( cn_ipmBoundaryFraction ),
        .thetaMin = CN_IPM_PARAM( cn_ipmThetaMin ),
        .history = solution->residualHistory != NULL && solution->residualHistoryCapacity > 0,
    };
#undef CN_IPM_PARAM
    if ( ipm.blocks == NULL || ipm.rows == NULL )
    {
        cnScratchRelease( &scratch );
        stats->reason = "ipm: out of memory";
        return;
    }
    int frictionless = 0;
    const char* refusal = cnIpmLayout( &ipm, muMin, &frictionless );
    if ( refusal != NULL )
    {
        cnScratchRelease( &scratch );
        stats->reason = refusal;
        return;
    }
    int m = ipm.m;
    bool cones = false;
    for ( int b = 0; b < ipm.blockCount; ++b )
    {
        cones = cones || ipm.blocks[b].kind == cn_ipmBlockCone;
    }
    run.predictorCorrector = predictorCorrector && !cones;
    double* lambda = solution->lambda;
    double* guess = cnScratchDoubles( &scratch, n );
    double* previous = cnScratchDoubles( &scratch, n ); // the impulses a De Saxce pass starts from
    ipm.x = cnScratchDoubles( &scratch, m );
    ipm.ybar = cnScratchDoubles( &scratch, m );
    ipm.d = cnScratchDoubles( &scratch, m );
    ipm.sigma = cnScratchDoubles( &scratch, m );
    ipm.u = cnScratchDoubles( &scratch, m );
    ipm.rhs = cnScratchDoubles( &scratch, m );
    ipm.step = cnScratchDoubles( &scratch, m );
    ipm.dx = cnScratchDoubles( &scratch, m );
    ipm.dy = cnScratchDoubles( &scratch, m );
    ipm.product = cnScratchDoubles( &scratch, m );
    ipm.jacobi = cnScratchDoubles( &scratch, m );
    ipm.residual = cnScratchDoubles( &scratch, m );
    ipm.dxAffine = cnScratchDoubles( &scratch, m );
    ipm.dyAffine = cnScratchDoubles( &scratch, m );
    ipm.lambdaFull = cnScratchDoubles( &scratch, n );
    ipm.wFull = cnScratchDoubles( &scratch, n );
    ipm.wShifted = cnScratchDoubles( &scratch, n );
    ipm.velocity = cnScratchDoubles( &scratch, 6 * problem->bodyCount );
    int workSize = ipm.linear == cn_ipmBicgstab ? cnBicgstabWorkSize( m ) : cnPcgPreWorkSize( m );
    ipm.krylovWork = ipm.linear == cn_ipmDirect ? NULL : cnScratchDoubles( &scratch, workSize );
    ipm.factor = ipm.linear == cn_ipmDirect ? cnFactorCreate() : NULL;
    bool memory = guess != NULL && previous != NULL && ipm.x != NULL && ipm.ybar != NULL && ipm.d != NULL &&
                  ipm.sigma != NULL && ipm.u != NULL && ipm.rhs != NULL && ipm.step != NULL &&
                  ipm.dx != NULL && ipm.dy != NULL && ipm.product != NULL && ipm.jacobi != NULL &&
                  ipm.residual != NULL && ipm.dxAffine != NULL && ipm.dyAffine != NULL &&
                  ipm.lambdaFull != NULL && ipm.wFull != NULL && ipm.wShifted != NULL &&
                  ipm.velocity != NULL &&
                  ( ipm.linear == cn_ipmDirect ? ipm.factor != NULL : ipm.krylovWork != NULL );
    if ( ipm.factor != NULL )
    {
        cnFactorSetPivotRatio( ipm.factor, 0.0 );
    }
    if ( !memory || !cnIpmBuildPattern( &ipm, &scratch ) )
    {
        cnFactorDestroy( ipm.factor );
        cnScratchRelease( &scratch );
        stats->reason = "ipm: out of memory";
        return;
    }
    if ( ipm.linear == cn_ipmDirect && m > CN_FACTOR_DENSE_MAX && !cnFactorHasCholmod() )
    {
        cnFactorDestroy( ipm.factor );
        cnScratchRelease( &scratch );
        stats->reason =
            "ipm: linear_solver direct: the system is too large for the dense LDL^T and this build "
            "has no CHOLMOD (CN_WITH_CHOLMOD=OFF); use linear_solver bicgstab";
        return;
    }

    if ( startImpulse <= 0.0 )
    {
        double* loadWork = cnScratchDoubles( &scratch, cnPcgPreWorkSize( m ) );
        ipm.loadScale = loadWork != NULL ? cnIpmLoadScale( &ipm, loadWork ) : 0.0;
    }
    cnCopyDoubles( guess, lambda, n );
    bool given = false;
    for ( int k = 0; k < m; ++k )
    {
        given = given || guess[ipm.rows[k]] != 0.0;
    }
    memset( ipm.lambdaFull, 0, (size_t)n * sizeof( double ) );
    memset( ipm.sigma, 0, (size_t)m * sizeof( double ) );

    // the start's merit (of the impulses given) opens the history
    cnComputeVelocity( problem, prepared, lambda, ipm.velocity );
    cnComputeW( problem, prepared, lambda, ipm.velocity, ipm.wFull );
    double merit = cnModelMeritFromW( problem, prepared, cn_modelCone, lambda, ipm.wFull );
    double startMerit = merit;
    if ( run.history )
    {
        cnRecordHistory( solution, stats, merit );
    }

    // b = 0 on every unknown: lambda = 0 solves it (A is positive semi-definite), and the interior
    // iterates would only approach it, never meeting a merit relative to a scale that vanishes
    bool still = true;
    for ( int k = 0; k < m && still; ++k )
    {
        still = problem->b[ipm.rows[k]] == 0.0;
    }

    int steps = 0;
    run.steps = &steps;
    cnSolveStatus status = cn_solveMaxIterations;
    const char* reason = NULL;
    double paperError = (double)NAN;
    int pass = 0;
    bool startFromGuess = warm && given;
    // the first pass starts from the impulses given, each later one from the pass before
    cnCopyDoubles( previous, guess, n );
    for ( ; still; )
    {
        for ( int k = 0; k < m; ++k )
        {
            lambda[ipm.rows[k]] = 0.0;
        }
        status = cn_solveConverged;
        break;
    }
    // the first pass solves the relaxed problem (sigma = 0, the paper's); a pass that finds it
    // infeasible or stalls hands its velocities' shift to the next
    for ( ; !still; )
    {
        // a pass solves to the tolerance on its own merit, or, while passes remain, until its merit is
        // a tenth of the grading merit (then the shift's error dominates: the next pass moves it)
        run.tolerance = budget->tolerance;
        run.passesLeft = pass < passes;
        cnIpmStart( &ipm, startFromGuess ? previous : NULL, startFromGuess, startImpulse );
        double shifted = (double)NAN;
        const char* passReason = NULL;
        cnSolveStatus passStatus = cnIpmPass( &ipm, &run, &shifted, &passReason );
        if ( passStatus == cn_solveNonFinite )
        {
            status = passStatus;
            reason = passReason;
            break;
        }
        // the grading merit of this pass's impulses (De Saxce's shift with their own w_t)
        double passMerit = cnModelMeritFromW( problem, prepared, cn_modelCone, ipm.lambdaFull, ipm.wFull );
        if ( pass > 0 && !( passMerit < merit ) && passStatus != cn_solveConverged )
        {
            // a pass that ended early and did no better: the pass before stays the answer
            status = passStatus;
            reason = passReason;
            break;
        }
        merit = passMerit;
        paperError = cnIpmPaperError( &ipm );
        status = passStatus;
        reason = passReason;
        cnCopyDoubles( lambda, ipm.lambdaFull, n );
        // (impulses grown without bound meet any merit relative to their own scale: still infeasible)
        if ( passStatus != cn_solveInfeasible && budget->tolerance > 0.0 && merit <= budget->tolerance )
        {
            status = cn_solveConverged;
            reason = NULL;
            break;
        }
        bool ended = passStatus == cn_solveMaxIterations || passStatus == cn_solveDeadline;
        if ( ended || pass >= passes || steps >= budget->maxIterations )
        {
            if ( passStatus == cn_solveConverged )
            {
                status = cn_solveMaxIterations;
                reason = passes == 0
                             ? "ipm: de_saxce_passes 0 solves the relaxed cone problem, whose sliding "
                               "contacts separate by mu |w_t|: the exact cone's merit is above the "
                               "tolerance"
                             : "ipm: De Saxce's fixed point did not meet the tolerance within "
                               "de_saxce_passes";
            }
            break;
        }
        // the next pass: the normal velocity shifted by mu |w_t| of this one, started from its answer
        double change = cnIpmShiftFromW( &ipm, ipm.wFull );
        cnCopyDoubles( previous, lambda, n );
        startFromGuess = true;
        pass += 1;
        if ( change == 0.0 && passStatus == cn_solveInfeasible )
        {
            break; // no shift to move: the problem itself has no solution
        }
        if ( change == 0.0 )
        {
            // nothing left to shift: what the merit still sees is friction dropped below mu_min, or
            // a fixed point that is not a solution
            status = frictionless > 0 ? cn_solveMaxIterations : cn_solveStalled;
            reason = frictionless > 0
                         ? "ipm: contacts with mu below mu_min were solved frictionless; the cone merit "
                           "grades their friction"
                         : "ipm: De Saxce's shift no longer changes but the merit is above the tolerance";
            break;
        }
    }

    if ( status == cn_solveNonFinite || status == cn_solveUnsupported || status == cn_solveInfeasible ||
         ( status == cn_solveStalled && steps == 0 ) )
    {
        cnCopyDoubles( lambda, guess, n );
    }
    else if ( status != cn_solveConverged && !( merit < startMerit ) )
    {
        // an interior iterate stopped early can be far worse than the impulses given (the start
        // carries the load's scale on every contact): never return one
        cnCopyDoubles( lambda, guess, n );
        reason = "ipm: stopped before its iterate beat the impulses it started from, which are returned";
    }
    if ( solution->deltaVelocity != NULL && problem->matrix == NULL )
    {
        cnComputeVelocity( problem, prepared, lambda, solution->deltaVelocity );
    }
    if ( frictionless > 0 && reason == NULL )
    {
        // said, not silent: their friction is dropped (mu_min)
        reason = "ipm: contacts with mu below mu_min were solved frictionless";
    }
    stats->status = status;
    stats->reason = reason;
    stats->iterations = steps;
    stats->krylovIterations = ipm.krylovIterations;
    stats->factorizations = ipm.factorStats.factorizations;
    stats->fallbacks = ipm.factorStats.regularized + ipm.ic0Shifts + frictionless;
    stats->freeRows = m;
    stats->ownMeasure = paperError;
    if ( ipm.ic0Held )
    {
        cnIc0Release( &ipm.ic0 );
    }
    cnFactorDestroy( ipm.factor );
    cnScratchRelease( &scratch );
}

const cnSolverVTable cn_ipmSolver = {
    .name = "ipm",
    .description = "interior point method on exact Coulomb cones (Kleinert, Simeon, Obermayr)",
    .apiVersion = CN_SOLVER_API_VERSION,
    .caps = cn_solverCone | cn_solverBilateral | cn_solverExplicit | cn_solverMatrixFree |
            cn_solverSinglePass | cn_solverHardContact,
    .model = cn_modelCone,
    .iterationUnit = "newton step",
    .params = cn_ipmParams,
    .paramCount = cn_ipmParamCount,
    .solve = cnIpmSolve,
};
