// SPDX-License-Identifier: MIT
// Erleben's two Newton methods for the pyramid (box) model: min-map Newton ("newton_minmap") and
// Fischer-Burmeister Newton ("newton_fb") (Erleben 2013, sections 5.4-5.6; the digest
// shared/papers/erleben-lcp.md, 3.6-3.8 and 4). Both find a root of a nonsmooth function H(lambda)
// that is zero exactly at the solutions, by generalised Newton steps J dx = -H globalised with a
// projected Armijo line search on theta = 1/2 |H|^2.
//
// Rows. Every row i has bounds [l_i, u_i] (cnRowBounds: normals [0, inf), tangents +-mu lambda_n of
// their normal row, bounded and bilateral rows their own, possibly infinite) and the velocity
// w = (A + S) lambda + b (cnComputeW). Both methods read the row-scaled velocity y_i = w_i / s_i,
// s_i = A_ii + softness_i when that is positive and finite, 1 otherwise (explicit LCPs such as
// Erleben's contact matrices have rows with a zero diagonal: they are taken, not refused).
// diagonal_scaling = 0 sets every s_i = 1, Erleben's unscaled functions.
//
// - min-map: H_i = lambda_i - clamp(lambda_i - y_i, l_i, u_i), the natural map (min(lambda, y) for
//   an LCP row). Its generalised Jacobian row is A_i / s_i where the clamp is inactive, and
//   e_i - d(bound)/d(lambda_n) e_n where it sits at a bound (a tie counts as the bound).
// - Fischer-Burmeister with phi(a, b) = a + b - sqrt(a^2 + b^2) (Erleben's notes use minus this;
//   the roots are the same): -y_i on a free row, phi(lambda_i - l_i, y_i) with a lower bound only,
//   phi(u_i - lambda_i, -y_i) with an upper bound only, and Billups' composite
//   phi(lambda_i - l_i, -phi(u_i - lambda_i, -y_i)) with both. Its rows are
//   a_i e_i + c_i A_i / s_i + g_i e_n, with a_i / c_i >= 0; at the kink of phi (both arguments
//   zero) the partial derivatives come from the `strategy`: perturbation (the first argument
//   nudged off zero: the row of A), random (a point of the unit disc, seeded per solve, so that a
//   solve is repeatable), zero (the disc's centre), approximation (finite-difference products J v
//   inside GMRES; the frozen systems use the perturbation rows).
//
// Each Newton step:
// 1. the Jacobian's coefficients (a, c, g) at lambda, the gradient J^T H of theta; a gradient at
//    most CN_NT_STATIONARY |H| while the merit is not met: a local minimum (cn_solveLocalMinimum);
// 2. the direction, by `inner`:
//    - gmres: the exact generalised Jacobian (friction bounds moving with lambda_n included),
//      matrix-free, stopped at |J dx + H| <= gamma |H|, the inexact-Newton condition;
//    - direct / pcg: the friction bounds frozen for the step (g dropped), which makes the system
//      symmetric: rows with c_i ~ 0 (at a bound) are explicit, dx_i = -H_i / a_i; the others solve
//      (A_SS + diag(s a / c)) dx_S = -(s / c) H_S - A_SR dx_R, by the factorisation of factor.h or
//      by Jacobi-preconditioned CG, matrix-free. An explicit matrix that is not symmetric takes
//      gmres instead (the frozen system would not be symmetric);
// 3. the true directional derivative H^T (J dx) with the exact J: a direction that fails
//    grad.dx <= -eps |dx|^2 is replaced by the gradient direction -J^T H (gradient_fallback, counted
//    in stats->fallbacks) or ends the solve (cn_solveNonDescent). A reduced system the factorisation
//    cannot take, even regularised, also falls back to the gradient (always);
// 4. the projected Armijo search: tau = 1, beta, beta^2, ... until
//    theta(P(lambda + tau dx)) <= theta + alpha tau grad.dx, P the projection onto the bounds
//    (tangents onto the bounds of the projected normal); below tau = 1e-12 the trial is taken if it
//    lowers theta at all, else the solve stalls (cn_solveStalled). A step that moves no entry by
//    more than 4 eps of |lambda|_inf stalls too.
//
// Stopping: the grading merit of the pyramid model (cnModelMeritFromW) at or below the tolerance
// (checked at the start and after every step), the step budget, the deadline. Optional: pgs_sweeps
// Gauss-Seidel sweeps before the first step when every diagonal is positive. NaN or infinity in the
// data or an iterate: cn_solveNonFinite with lambda put back to the guess. stats: iterations
// (Newton steps), krylovIterations (summed), factorizations (factor.h's count, retries included: a
// reduced system that needed regularisation shows as more factorisations than steps), fallbacks
// (gradient steps), freeRows (the size of the last reduced or Krylov system), ownMeasure
// |H| = sqrt(2 theta) at the end.

#include "factor.h"
#include "krylov.h"
#include "solver_kit.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

enum
{
    cn_newtonParamIterations = 0,
    cn_newtonParamTolerance,
    cn_newtonParamDeadline,
    cn_newtonParamWarmStart,
    cn_newtonParamInner,
    cn_newtonParamFactorization,
    cn_newtonParamGamma,
    cn_newtonParamStrategy,
    cn_newtonParamPgsSweeps,
    cn_newtonParamGradientFallback,
    cn_newtonParamDiagonalScaling,
    cn_newtonParamAlpha,
    cn_newtonParamBeta,
    cn_newtonParamCount,
};

// inner solvers
enum
{
    cn_innerDirect = 0,
    cn_innerPcg = 1,
    cn_innerGmres = 2,
    cn_innerCount,
};
static const char* const cn_innerChoices[cn_innerCount] = { "direct", "pcg", "gmres" };

// the Fischer-Burmeister strategies at the kink of phi
enum
{
    cn_strategyPerturbation = 0,
    cn_strategyRandom = 1,
    cn_strategyZero = 2,
    cn_strategyApproximation = 3,
    cn_strategyCount,
};
static const char* const cn_strategyChoices[cn_strategyCount] = { "perturbation", "random", "zero",
                                                                  "approximation" };

static const cnSolverParam cn_newtonParams[cn_newtonParamCount] = {
    { "iterations", "Newton step budget per solve", 30.0, 1.0, 100000.0, cn_paramInteger, NULL, 0 },
    { "tolerance", "stop when the grading merit (natural map, unit-free) is at most this (0: run the budget)",
      1e-6, 0.0, 1.0, cn_paramNumber, NULL, 0 },
    { "deadline_ms", "stop after this many milliseconds of a solve (0: no deadline)", 0.0, 0.0, 1e6,
      cn_paramNumber, NULL, 0 },
    { "warm_start",
      "1: the world starts from the contact cache's impulses (the solver starts from the lambda it is "
      "given, projected onto the bounds, either way)",
      1.0, 0.0, 1.0, cn_paramToggle, NULL, 0 },
    { "inner",
      "the Newton system: direct (frozen friction bounds, factorised), pcg (frozen bounds, Jacobi CG), "
      "gmres (the exact Jacobian, matrix-free); a non-symmetric explicit matrix always takes gmres",
      (double)cn_innerDirect, 0.0, (double)( cn_innerCount - 1 ), cn_paramChoice, cn_innerChoices,
      cn_innerCount },
    { "factorization", "backend of the direct inner solve (auto: dense LDL^T when small, CHOLMOD above)",
      (double)cn_factorAuto, 0.0, (double)( cn_factorBackendCount - 1 ), cn_paramChoice, cn_factorChoices,
      cn_factorBackendCount },
    { "gamma", "Krylov inner solves stop at a residual of gamma times the right-hand side (< 1: descent)",
      0.1, 1e-12, 0.999, cn_paramNumber, NULL, 0 },
    { "strategy",
      "newton_fb: the Jacobian at the kink of phi (perturbation, random, zero, approximation: "
      "finite differences in gmres); newton_minmap ignores it",
      (double)cn_strategyPerturbation, 0.0, (double)( cn_strategyCount - 1 ), cn_paramChoice,
      cn_strategyChoices, cn_strategyCount },
    { "pgs_sweeps",
      "Gauss-Seidel sweeps before the first Newton step (skipped when a diagonal is not positive)", 0.0, 0.0,
      1000.0, cn_paramInteger, NULL, 0 },
    { "gradient_fallback",
      "1: a Newton direction that does not descend is replaced by the gradient direction; 0: the solve "
      "ends non_descent",
      1.0, 0.0, 1.0, cn_paramToggle, NULL, 0 },
    { "diagonal_scaling",
      "1: each row's velocity divided by its diagonal A_ii; 0: Erleben's unscaled functions", 1.0, 0.0, 1.0,
      cn_paramToggle, NULL, 0 },
    { "line_search_alpha", "sufficient decrease of the Armijo line search", 1e-4, 1e-12, 0.5, cn_paramNumber,
      NULL, 0 },
    { "line_search_beta", "step reduction factor of the line search", 0.5, 0.01, 0.99, cn_paramNumber, NULL,
      0 },
};

// the smallest step of the line search
#define CN_NT_TAU_MIN 1e-12
// phi's arguments within this of (0, 0) are its kink (the digest's 1e-28)
#define CN_NT_KINK 1e-28
// the perturbation strategy's nudge of the first argument, relative to nothing (a pure direction)
#define CN_NT_PERTURB 1e-10
// a row whose c_i is at most this times a_i is explicit in the frozen systems
#define CN_NT_EXPLICIT 1e-12
// a gradient at most this times |H| is stationary: a local minimum of theta
#define CN_NT_STATIONARY 1e-10
// a step moving no entry by more than this times |lambda|_inf stalls
#define CN_NT_STAGNATION ( 4.0 * DBL_EPSILON )
// the restart length of GMRES and the Krylov budget per Newton step (at least 100, 2 n, at most this)
#define CN_NT_RESTART    30
#define CN_NT_KRYLOV_MAX 2000
// an explicit matrix whose entries differ from their transposes by more than this is not symmetric
#define CN_NT_SYMMETRY 1e-12

// A hook the white-box tests define before including this file: called with the step count and
// theta at the start and after every accepted step. Nothing in the library build.
#ifndef CN_NT_TRACE
#    define CN_NT_TRACE( iteration, theta ) ( (void)0 )
#endif

// ---- the row functions --------------------------------------------------------------------------------

static inline double cnNtClamp( double x, double low, double high )
{
    x = x < low ? low : x;
    return x > high ? high : x;
}

// phi(a, b) = a + b - sqrt(a^2 + b^2), without cancellation when a + b > 0 (there it equals
// 2 a b / (a + b + r))
static double cnNtPhi( double a, double b )
{
    double r = hypot( a, b );
    double sum = a + b;
    return sum > 0.0 ? 2.0 * a * b / ( sum + r ) : sum - r;
}

// splitmix64 for the random strategy
static double cnNtRandom( uint64_t* state )
{
    uint64_t z = ( *state += 0x9E3779B97F4A7C15ull );
    z = ( z ^ ( z >> 30 ) ) * 0xBF58476D1CE4E5B9ull;
    z = ( z ^ ( z >> 27 ) ) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (double)( z >> 11 ) * ( 1.0 / 9007199254740992.0 );
}

// The partial derivatives of phi at (a, b): (1 - a / r, 1 - b / r), both in [0, 2 - ...], and at
// the kink the strategy's choice 1 - (p, q) with (p, q) in the unit disc.
static void cnNtPhiPartials( double a, double b, int strategy, uint64_t* random, double* da, double* db )
{
    double r = hypot( a, b );
    if ( r > CN_NT_KINK )
    {
        *da = 1.0 - a / r;
        *db = 1.0 - b / r;
        return;
    }
    switch ( strategy )
    {
        case cn_strategyRandom:
        {
            // a uniform point of the unit disc by rejection
            double p = 0.0, q = 0.0;
            for ( int k = 0; k < 64; ++k )
            {
                p = 2.0 * cnNtRandom( random ) - 1.0;
                q = 2.0 * cnNtRandom( random ) - 1.0;
                if ( p * p + q * q <= 1.0 )
                {
                    break;
                }
                p = q = 0.0;
            }
            *da = 1.0 - p;
            *db = 1.0 - q;
            return;
        }
        case cn_strategyZero:
            *da = 1.0;
            *db = 1.0;
            return;
        default:
        {
            // perturbation: a replaced by a small positive number: (1 - e / hypot(e, b), ...)
            double e = CN_NT_PERTURB;
            double re = hypot( e, b );
            *da = 1.0 - e / re;
            *db = 1.0 - b / re;
            return;
        }
    }
}

// One row's value and its partial derivatives with respect to lambda_i, y_i, l_i, u_i.
typedef struct cnNtRow
{
    double value;
    double dx, dy, dl, du;
} cnNtRow;

// min-map: lambda - clamp(lambda - y, l, u); a tie with a bound counts as the bound
static cnNtRow cnNtMinMapRow( double x, double y, double low, double high )
{
    // lambda - y <= l written as lambda - l <= y: exact where lambda is near its bound
    if ( x - low <= y )
    {
        return ( cnNtRow ){ .value = x - low, .dx = 1.0, .dl = -1.0 };
    }
    if ( x - high >= y )
    {
        return ( cnNtRow ){ .value = x - high, .dx = 1.0, .du = -1.0 };
    }
    return ( cnNtRow ){ .value = y, .dy = 1.0 };
}

// Fischer-Burmeister in the box form (the file's comment)
static cnNtRow cnNtFbRow( double x, double y, double low, double high, int strategy, uint64_t* random )
{
    bool hasLow = low > -(double)INFINITY;
    bool hasHigh = high < (double)INFINITY;
    cnNtRow row = { 0 };
    if ( !hasLow && !hasHigh )
    {
        row.value = -y;
        row.dy = -1.0;
        return row;
    }
    if ( hasLow && !hasHigh )
    {
        double pa, pb;
        cnNtPhiPartials( x - low, y, strategy, random, &pa, &pb );
        row.value = cnNtPhi( x - low, y );
        row.dx = pa;
        row.dy = pb;
        row.dl = -pa;
        return row;
    }
    if ( !hasLow && hasHigh )
    {
        double pa, pb;
        cnNtPhiPartials( high - x, -y, strategy, random, &pa, &pb );
        row.value = cnNtPhi( high - x, -y );
        row.dx = -pa;
        row.dy = -pb;
        row.du = pa;
        return row;
    }
    // Billups: phi(x - l, -phi(u - x, -y))
    double pa, pb, qa, qb;
    double inner = cnNtPhi( high - x, -y );
    cnNtPhiPartials( high - x, -y, strategy, random, &pa, &pb );
    cnNtPhiPartials( x - low, -inner, strategy, random, &qa, &qb );
    row.value = cnNtPhi( x - low, -inner );
    row.dx = qa + qb * pa;
    row.dy = qb * pb;
    row.dl = -qa;
    row.du = -qb * pa;
    return row;
}

// ---- the solver's data ----------------------------------------------------------------------------------

// One iterate: lambda, its w, bounds and H.
typedef struct cnNtPoint
{
    double* x;
    double* w;
    double* low;
    double* high;
    double* h;
    double theta;
} cnNtPoint;

typedef struct cnNewton
{
    const cnSolverProblem* problem;
    const cnPrepared* prepared;
    int n;
    bool fb;
    int strategy;
    uint64_t random;
    double* scale;    // (n) s_i
    double* velocity; // (bodyCount x 6) scratch of the products
    cnNtPoint point;  // the iterate
    cnNtPoint trial;  // the line search's (and the finite differences') point
    // the Jacobian at the iterate: row i = a_i e_i + c_i A_i / s_i + g_i e_normal(i)
    double* ja;
    double* jc;
    double* jg;
    double* product; // (n) scratch
    double* padded;  // (n) scratch of the subset products
    double* padOut;  // (n)
    // the reduced system's rows (frozen systems) and its extra diagonal
    int* subset;
    int subsetCount;
    double* subsetDiagonal; // (n) s a / c on the subset
    bool finiteDifference;  // the Krylov operator: finite differences (approximation strategy)
} cnNewton;

static double cnNtDot( const double* a, const double* b, int n )
{
    double sum = 0.0;
    for ( int i = 0; i < n; ++i )
    {
        sum += a[i] * b[i];
    }
    return sum;
}

// out = (A + S) v, without b
static void cnNtProduct( cnNewton* nt, const double* v, double* out )
{
    const cnSolverProblem* problem = nt->problem;
    const cnPrepared* prepared = nt->prepared;
    int n = nt->n;
    if ( problem->matrix != NULL )
    {
        const cnSparseMatrix* matrix = problem->matrix;
        for ( int i = 0; i < n; ++i )
        {
            double sum = 0.0;
            for ( int k = matrix->rowStart[i]; k < matrix->rowStart[i + 1]; ++k )
            {
                sum += matrix->value[k] * v[matrix->column[k]];
            }
            out[i] = sum;
        }
    }
    else
    {
        cnComputeVelocity( problem, prepared, v, nt->velocity );
        for ( int i = 0; i < n; ++i )
        {
            const cnSweepRow* row = prepared->sweepRows + i;
            double sum = 0.0;
            int a = problem->bodyA[i];
            int b = problem->bodyB[i];
            if ( a >= 0 )
            {
                const double* u = nt->velocity + 6 * a;
                for ( int k = 0; k < 6; ++k )
                {
                    sum += row->jA[k] * u[k];
                }
            }
            if ( b >= 0 )
            {
                const double* u = nt->velocity + 6 * b;
                for ( int k = 0; k < 6; ++k )
                {
                    sum += row->jB[k] * u[k];
                }
            }
            out[i] = sum;
        }
    }
    if ( problem->softness != NULL )
    {
        for ( int i = 0; i < n; ++i )
        {
            out[i] += problem->softness[i] * v[i];
        }
    }
}

// out = (A + S)^T v: the product itself for matrix-free problems (J W J^T is symmetric)
static void cnNtTransposeProduct( cnNewton* nt, const double* v, double* out )
{
    const cnSolverProblem* problem = nt->problem;
    if ( problem->matrix == NULL )
    {
        cnNtProduct( nt, v, out );
        return;
    }
    int n = nt->n;
    const cnSparseMatrix* matrix = problem->matrix;
    memset( out, 0, (size_t)n * sizeof( double ) );
    for ( int i = 0; i < n; ++i )
    {
        for ( int k = matrix->rowStart[i]; k < matrix->rowStart[i + 1]; ++k )
        {
            out[matrix->column[k]] += matrix->value[k] * v[i];
        }
    }
    if ( problem->softness != NULL )
    {
        for ( int i = 0; i < n; ++i )
        {
            out[i] += problem->softness[i] * v[i];
        }
    }
}

// H at p->x from p->w: bounds, row values; returns theta (NaN stays NaN)
static double cnNtResidual( cnNewton* nt, cnNtPoint* p )
{
    double sum = 0.0;
    for ( int i = 0; i < nt->n; ++i )
    {
        cnRowBounds( nt->problem, nt->prepared, p->x, i, p->low + i, p->high + i );
        double y = p->w[i] / nt->scale[i];
        cnNtRow row = nt->fb ? cnNtFbRow( p->x[i], y, p->low[i], p->high[i], cn_strategyZero, NULL )
                             : cnNtMinMapRow( p->x[i], y, p->low[i], p->high[i] );
        p->h[i] = row.value;
        sum += row.value * row.value;
    }
    p->theta = 0.5 * sum;
    return p->theta;
}

// w, bounds and H at p->x
static double cnNtEvaluate( cnNewton* nt, cnNtPoint* p )
{
    cnComputeVelocity( nt->problem, nt->prepared, p->x, nt->velocity );
    cnComputeW( nt->problem, nt->prepared, p->x, nt->velocity, p->w );
    return cnNtResidual( nt, p );
}

// The Jacobian's coefficients at the iterate
static void cnNtJacobian( cnNewton* nt )
{
    const cnNtPoint* p = &nt->point;
    for ( int i = 0; i < nt->n; ++i )
    {
        double y = p->w[i] / nt->scale[i];
        cnNtRow row = nt->fb ? cnNtFbRow( p->x[i], y, p->low[i], p->high[i], nt->strategy, &nt->random )
                             : cnNtMinMapRow( p->x[i], y, p->low[i], p->high[i] );
        nt->ja[i] = row.dx;
        nt->jc[i] = row.dy;
        nt->jg[i] = 0.0;
        int normal = nt->prepared->normalRow[i];
        if ( nt->prepared->rowKind[i] == cn_rowTangent && normal >= 0 )
        {
            // bounds -mu lambda_n and mu lambda_n (lambda_n >= 0 at a projected iterate)
            double mu = nt->problem->groups[nt->prepared->rowGroup[i]].mu;
            nt->jg[i] = -mu * row.dl + mu * row.du;
        }
    }
}

// out = J v with the exact coefficients
static void cnNtJv( cnNewton* nt, const double* v, double* out )
{
    cnNtProduct( nt, v, out );
    for ( int i = 0; i < nt->n; ++i )
    {
        double value = nt->ja[i] * v[i] + nt->jc[i] * out[i] / nt->scale[i];
        int normal = nt->prepared->normalRow[i];
        if ( nt->jg[i] != 0.0 && normal >= 0 )
        {
            value += nt->jg[i] * v[normal];
        }
        out[i] = value;
    }
}

// out = J^T u
static void cnNtJtv( cnNewton* nt, const double* u, double* out )
{
    double* t = nt->padded;
    for ( int i = 0; i < nt->n; ++i )
    {
        t[i] = nt->jc[i] * u[i] / nt->scale[i];
    }
    cnNtTransposeProduct( nt, t, out );
    for ( int i = 0; i < nt->n; ++i )
    {
        out[i] += nt->ja[i] * u[i];
        int normal = nt->prepared->normalRow[i];
        if ( nt->jg[i] != 0.0 && normal >= 0 )
        {
            out[normal] += nt->jg[i] * u[i];
        }
    }
}

// out = (H(x + h v) - H(x)) / h: the approximation strategy's product (uses the trial point)
static void cnNtJvFiniteDifference( cnNewton* nt, const double* v, double* out )
{
    int n = nt->n;
    double largest = 0.0, size = 0.0;
    for ( int i = 0; i < n; ++i )
    {
        largest = fmax( largest, fabs( v[i] ) );
        size = fmax( size, fabs( nt->point.x[i] ) );
    }
    if ( !( largest > 0.0 ) )
    {
        memset( out, 0, (size_t)n * sizeof( double ) );
        return;
    }
    double h = sqrt( DBL_EPSILON ) * ( 1.0 + size ) / largest;
    for ( int i = 0; i < n; ++i )
    {
        nt->trial.x[i] = nt->point.x[i] + h * v[i];
    }
    cnNtEvaluate( nt, &nt->trial );
    for ( int i = 0; i < n; ++i )
    {
        out[i] = ( nt->trial.h[i] - nt->point.h[i] ) / h;
    }
}

// the Krylov operator of the exact system
static void cnNtApplyJacobian( void* context, const double* x, double* y )
{
    cnNewton* nt = context;
    if ( nt->finiteDifference )
    {
        cnNtJvFiniteDifference( nt, x, y );
    }
    else
    {
        cnNtJv( nt, x, y );
    }
}

// the Krylov operator of the frozen system on the subset: (A_SS + diag(s a / c)) v
static void cnNtApplyReduced( void* context, const double* x, double* y )
{
    cnNewton* nt = context;
    memset( nt->padded, 0, (size_t)nt->n * sizeof( double ) );
    for ( int k = 0; k < nt->subsetCount; ++k )
    {
        nt->padded[nt->subset[k]] = x[k];
    }
    cnNtProduct( nt, nt->padded, nt->padOut );
    for ( int k = 0; k < nt->subsetCount; ++k )
    {
        y[k] = nt->padOut[nt->subset[k]] + nt->subsetDiagonal[k] * x[k];
    }
}

// Project p->x onto the bounds: the non-tangent rows, then the tangents on their projected normals.
static void cnNtProject( cnNewton* nt, double* x )
{
    for ( int pass = 0; pass < 2; ++pass )
    {
        for ( int i = 0; i < nt->n; ++i )
        {
            bool tangent = nt->prepared->rowKind[i] == cn_rowTangent;
            if ( tangent == ( pass == 1 ) )
            {
                double low, high;
                cnRowBounds( nt->problem, nt->prepared, x, i, &low, &high );
                x[i] = cnNtClamp( x[i], low, high );
            }
        }
    }
}

// Whether an explicit matrix equals its transpose (to CN_NT_SYMMETRY relative)
static bool cnNtSymmetric( const cnSparseMatrix* matrix )
{
    for ( int i = 0; i < matrix->rows; ++i )
    {
        for ( int k = matrix->rowStart[i]; k < matrix->rowStart[i + 1]; ++k )
        {
            int j = matrix->column[k];
            double v = matrix->value[k];
            double mirror = 0.0;
            int lo = matrix->rowStart[j], hi = matrix->rowStart[j + 1] - 1;
            while ( lo <= hi )
            {
                int mid = lo + ( hi - lo ) / 2;
                if ( matrix->column[mid] == i )
                {
                    mirror = matrix->value[mid];
                    break;
                }
                if ( matrix->column[mid] < i )
                {
                    lo = mid + 1;
                }
                else
                {
                    hi = mid - 1;
                }
            }
            if ( fabs( v - mirror ) > CN_NT_SYMMETRY * fmax( fabs( v ), fabs( mirror ) ) )
            {
                return false;
            }
        }
    }
    return true;
}

// What one direction cost and how it ended.
typedef struct cnNtDirection
{
    bool ok;          // dx holds a direction
    int krylov;       // Krylov steps
    int rows;         // the system's size
    bool regularized; // the factorisation needed more cfm
} cnNtDirection;

// The frozen-bounds direction (direct or pcg) into dx.
static cnNtDirection cnNtFrozenDirection( cnNewton* nt, int inner, cnFactorBackend backend, double gamma,
                                          cnFactor* factor, cnFactorStats* factorStats, double* dx,
                                          double* rhs, double* solution, double* work )
{
    cnNtDirection result = { 0 };
    int n = nt->n;
    const double* h = nt->point.h;
    nt->subsetCount = 0;
    memset( nt->padded, 0, (size_t)n * sizeof( double ) );
    for ( int i = 0; i < n; ++i )
    {
        double a = nt->ja[i], c = nt->jc[i];
        if ( a != 0.0 && fabs( c ) <= CN_NT_EXPLICIT * fabs( a ) )
        {
            dx[i] = -h[i] / a;
            nt->padded[i] = dx[i];
        }
        else if ( c == 0.0 )
        {
            dx[i] = 0.0; // an empty row (not met by either function): no equation to solve
        }
        else
        {
            dx[i] = 0.0;
            nt->subset[nt->subsetCount++] = i;
        }
    }
    int count = nt->subsetCount;
    result.rows = count;
    if ( count == 0 )
    {
        result.ok = true;
        return result;
    }
    // rhs_S = -(s / c) H_S - A_SR dx_R
    cnNtProduct( nt, nt->padded, nt->padOut );
    for ( int k = 0; k < count; ++k )
    {
        int i = nt->subset[k];
        double ratio = nt->ja[i] / nt->jc[i];
        nt->subsetDiagonal[k] = ratio > 0.0 ? nt->scale[i] * ratio : 0.0;
        rhs[k] = -nt->scale[i] / nt->jc[i] * h[i] - nt->padOut[i];
        solution[k] = 0.0;
    }

    if ( inner == cn_innerPcg )
    {
        double* diagonal = work;
        for ( int k = 0; k < count; ++k )
        {
            diagonal[k] = nt->prepared->diagonal[nt->subset[k]] + nt->subsetDiagonal[k];
        }
        int budget = 2 * count > 100 ? 2 * count : 100;
        budget = budget < CN_NT_KRYLOV_MAX ? budget : CN_NT_KRYLOV_MAX;
        cnKrylovResult kr =
            cnPcg( cnNtApplyReduced, nt, diagonal, rhs, solution, count, gamma, budget, work + count );
        result.krylov = kr.iterations;
        result.ok = kr.finite;
    }
    else
    {
        // A_SS with the extra diagonal inserted, in the C library's memory released after the
        // factorisation (which copies or consumes it)
        cnScratch local = { .arena = NULL };
        cnSparseMatrix reduced;
        result.ok = false;
        if ( cnBuildSparseMatrixIn( nt->problem, nt->subset, count, &local, &reduced ) )
        {
            int entries = reduced.rowStart[count] + count;
            int* rowStart = cnScratchBytes( &local, (size_t)( count + 1 + entries ) * sizeof( int ) );
            double* value = cnScratchDoubles( &local, entries );
            if ( rowStart != NULL && value != NULL )
            {
                int* column = rowStart + count + 1;
                int at = 0;
                for ( int r = 0; r < count; ++r )
                {
                    rowStart[r] = at;
                    bool placed = false;
                    for ( int k = reduced.rowStart[r]; k < reduced.rowStart[r + 1]; ++k )
                    {
                        int c = reduced.column[k];
                        if ( !placed && c >= r )
                        {
                            if ( c > r )
                            {
                                column[at] = r;
                                value[at++] = nt->subsetDiagonal[r];
                            }
                            placed = true;
                        }
                        column[at] = c;
                        value[at++] = reduced.value[k] + ( c == r ? nt->subsetDiagonal[r] : 0.0 );
                    }
                    if ( !placed )
                    {
                        column[at] = r;
                        value[at++] = nt->subsetDiagonal[r];
                    }
                }
                rowStart[count] = at;
                cnSparseMatrix system = { count, count, rowStart, column, value };
                int before = factorStats->regularized;
                cnFactorResult fr = cnFactorize( factor, &system, 0.0, backend, factorStats );
                result.regularized = factorStats->regularized > before;
                if ( fr == cn_factorOk || fr == cn_factorRegularized )
                {
                    result.ok = cnFactorSolve( factor, rhs, solution );
                }
            }
        }
        cnScratchRelease( &local );
    }
    if ( result.ok )
    {
        for ( int k = 0; k < count; ++k )
        {
            dx[nt->subset[k]] = solution[k];
        }
    }
    return result;
}

// The projected Armijo search from the iterate along dx (slope: theta's directional derivative
// there, < 0): tau = 1, beta, beta^2, ... until theta(P(x + tau dx)) <= theta + alpha tau slope,
// the trial point then holding P(x + tau dx). Below CN_NT_TAU_MIN the last trial is taken when it
// lowers theta at all. False when nothing was accepted; the tau tried last in *tauOut (nullable).
static bool cnNtLineSearch( cnNewton* nt, const double* dx, double slope, double alpha, double beta,
                            double* tauOut )
{
    const double* x = nt->point.x;
    double theta = nt->point.theta;
    double tau = 1.0;
    bool accepted = false;
    while ( true )
    {
        for ( int i = 0; i < nt->n; ++i )
        {
            nt->trial.x[i] = x[i] + tau * dx[i];
        }
        cnNtProject( nt, nt->trial.x );
        double trialTheta = cnNtEvaluate( nt, &nt->trial );
        if ( trialTheta <= theta + alpha * tau * slope )
        {
            accepted = true;
            break;
        }
        if ( tau < CN_NT_TAU_MIN )
        {
            accepted = trialTheta < theta;
            break;
        }
        tau *= beta;
    }
    if ( tauOut != NULL )
    {
        *tauOut = tau;
    }
    return accepted;
}

static void cnNewtonSolve( bool fb, const double* params, const cnSolverBudget* budget,
                           cnSolverProblem* problem, const cnPrepared* prepared, cnSolverSolution* solution,
                           cnArena* arena, cnSolverStats* stats )
{
    uint64_t start = cnGetTicks();
    int n = problem->rowCount;
    stats->status = cn_solveUnsupported;
    stats->ownMeasure = (double)NAN;
    if ( prepared->nonFiniteRows > 0 )
    {
        stats->status = cn_solveNonFinite;
        return;
    }
    const cnSolverParam* table = cn_newtonParams;
    int count = cn_newtonParamCount;
    int inner = (int)cnSolverParamValue( table, count, params, cn_newtonParamInner );
    cnFactorBackend backend =
        (cnFactorBackend)(int)cnSolverParamValue( table, count, params, cn_newtonParamFactorization );
    double gamma = cnSolverParamValue( table, count, params, cn_newtonParamGamma );
    int strategy = (int)cnSolverParamValue( table, count, params, cn_newtonParamStrategy );
    int sweeps = (int)cnSolverParamValue( table, count, params, cn_newtonParamPgsSweeps );
    bool fallback = cnSolverParamValue( table, count, params, cn_newtonParamGradientFallback ) != 0.0;
    bool scaling = cnSolverParamValue( table, count, params, cn_newtonParamDiagonalScaling ) != 0.0;
    double alpha = cnSolverParamValue( table, count, params, cn_newtonParamAlpha );
    double beta = cnSolverParamValue( table, count, params, cn_newtonParamBeta );
    bool history = solution->residualHistory != NULL && solution->residualHistoryCapacity > 0;
    if ( inner != cn_innerGmres && problem->matrix != NULL && !cnNtSymmetric( problem->matrix ) )
    {
        inner = cn_innerGmres; // the frozen system would not be symmetric
    }
    int restart = n < CN_NT_RESTART ? ( n > 0 ? n : 1 ) : CN_NT_RESTART;
    int krylovBudget = 2 * n > 100 ? 2 * n : 100;
    krylovBudget = krylovBudget < CN_NT_KRYLOV_MAX ? krylovBudget : CN_NT_KRYLOV_MAX;

    // one block of doubles, carved
    int rows = n > 0 ? n : 1;
    int gmresWork = cnGmresWorkSize( rows, restart );
    int pcgWork = rows + cnPcgWorkSize( rows );
    int work = gmresWork > pcgWork ? gmresWork : pcgWork;
    int blocks = 21 * rows + 6 * problem->bodyCount + work;
    cnScratch scratch = { .arena = arena };
    double* memory = cnScratchDoubles( &scratch, blocks );
    int* subset = cnScratchBytes( &scratch, (size_t)rows * sizeof( int ) );
    cnFactor* factor = inner == cn_innerDirect ? cnFactorCreate() : NULL;
    if ( memory == NULL || subset == NULL || ( inner == cn_innerDirect && factor == NULL ) )
    {
        cnFactorDestroy( factor );
        cnScratchRelease( &scratch );
        return; // out of memory: unsupported, lambda untouched
    }
    double* at = memory;
#define CN_NT_TAKE( size ) ( at += ( size ), at - ( size ) )
    cnNewton nt = {
        .problem = problem,
        .prepared = prepared,
        .n = n,
        .fb = fb,
        .strategy = strategy,
        .random = 0x5EED5EEDull,
        .subset = subset,
    };
    nt.scale = CN_NT_TAKE( rows );
    nt.point.x = solution->lambda;
    nt.point.w = CN_NT_TAKE( rows );
    nt.point.low = CN_NT_TAKE( rows );
    nt.point.high = CN_NT_TAKE( rows );
    nt.point.h = CN_NT_TAKE( rows );
    nt.trial.x = CN_NT_TAKE( rows );
    nt.trial.w = CN_NT_TAKE( rows );
    nt.trial.low = CN_NT_TAKE( rows );
    nt.trial.high = CN_NT_TAKE( rows );
    nt.trial.h = CN_NT_TAKE( rows );
    nt.ja = CN_NT_TAKE( rows );
    nt.jc = CN_NT_TAKE( rows );
    nt.jg = CN_NT_TAKE( rows );
    nt.product = CN_NT_TAKE( rows );
    nt.padded = CN_NT_TAKE( rows );
    nt.padOut = CN_NT_TAKE( rows );
    nt.subsetDiagonal = CN_NT_TAKE( rows );
    double* guess = CN_NT_TAKE( rows );
    double* dx = CN_NT_TAKE( rows );
    double* gradient = CN_NT_TAKE( rows );
    double* rhs = CN_NT_TAKE( rows );
    nt.velocity = CN_NT_TAKE( 6 * problem->bodyCount );
    double* krylovWork = CN_NT_TAKE( work );
#undef CN_NT_TAKE
    (void)at;

    for ( int i = 0; i < n; ++i )
    {
        double d = prepared->diagonal[i];
        nt.scale[i] = scaling && d > 0.0 && isfinite( d ) ? d : 1.0;
    }
    double* x = nt.point.x;
    cnCopyDoubles( guess, x, n );

    cnSolveStatus status = cn_solveMaxIterations;
    int iteration = 0;
    cnFactorStats factorStats = { 0 };
    double tolerance = budget->tolerance;

    // the optional Gauss-Seidel start, where every diagonal is positive
    bool finite = true;
    cnNtProject( &nt, x );
    if ( sweeps > 0 && prepared->singularRows == 0 )
    {
        cnComputeVelocity( problem, prepared, x, nt.velocity );
        cnSweepHooks hooks = { .relaxation = 1.0 };
        for ( int k = 0; k < sweeps && finite; ++k )
        {
            cnSweepResult sweep =
                cnSweep( problem, prepared, cn_sweepGaussSeidel, &hooks, x, nt.velocity, NULL );
            finite = sweep.finite;
        }
        cnNtProject( &nt, x );
    }
    double theta = finite ? cnNtEvaluate( &nt, &nt.point ) : (double)NAN;
    double merit =
        finite ? cnModelMeritFromW( problem, prepared, cn_modelPyramid, x, nt.point.w ) : (double)NAN;
    if ( history )
    {
        cnRecordHistory( solution, stats, merit );
    }
    CN_NT_TRACE( iteration, theta );

    while ( true )
    {
        if ( !isfinite( theta ) || !isfinite( merit ) )
        {
            status = cn_solveNonFinite;
            break;
        }
        if ( merit <= tolerance || theta == 0.0 )
        {
            status = cn_solveConverged;
            break;
        }
        if ( iteration >= budget->maxIterations )
        {
            status = cn_solveMaxIterations;
            break;
        }
        if ( budget->deadlineMs > 0.0 && iteration > 0 && cnGetMilliseconds( start ) >= budget->deadlineMs )
        {
            status = cn_solveDeadline;
            break;
        }

        // 1. the Jacobian and the gradient of theta
        cnNtJacobian( &nt );
        cnNtJtv( &nt, nt.point.h, gradient );
        double gradientNorm = sqrt( cnNtDot( gradient, gradient, n ) );
        if ( !isfinite( gradientNorm ) )
        {
            status = cn_solveNonFinite;
            break;
        }
        if ( gradientNorm <= CN_NT_STATIONARY * sqrt( 2.0 * theta ) )
        {
            status = cn_solveLocalMinimum;
            break;
        }

        // 2. the direction
        cnNtDirection direction = { 0 };
        if ( inner == cn_innerGmres )
        {
            for ( int i = 0; i < n; ++i )
            {
                rhs[i] = -nt.point.h[i];
                dx[i] = 0.0;
            }
            nt.finiteDifference = fb && strategy == cn_strategyApproximation;
            cnKrylovResult kr =
                cnGmres( cnNtApplyJacobian, &nt, rhs, dx, n, restart, gamma, krylovBudget, krylovWork );
            nt.finiteDifference = false;
            direction.ok = kr.finite;
            direction.krylov = kr.iterations;
            direction.rows = n;
        }
        else
        {
            direction = cnNtFrozenDirection( &nt, inner, backend, gamma, factor, &factorStats, dx, rhs,
                                             nt.product, krylovWork );
        }
        stats->krylovIterations += direction.krylov;
        stats->freeRows = direction.rows;

        // 3. descent, measured with the exact Jacobian
        double slope = (double)NAN;
        double stepSquared = cnNtDot( dx, dx, n );
        if ( direction.ok && isfinite( stepSquared ) )
        {
            cnNtJv( &nt, dx, nt.product );
            slope = cnNtDot( nt.point.h, nt.product, n );
        }
        bool descent = direction.ok && stepSquared > 0.0 && slope <= -DBL_EPSILON * stepSquared;
        if ( !descent )
        {
            // a failed factorisation always falls back; a direction that does not descend when asked
            if ( direction.ok && !fallback )
            {
                status = cn_solveNonDescent;
                break;
            }
            for ( int i = 0; i < n; ++i )
            {
                dx[i] = -gradient[i];
            }
            slope = -gradientNorm * gradientNorm;
            stats->fallbacks += 1;
        }

        // 4. the projected Armijo search
        bool accepted = cnNtLineSearch( &nt, dx, slope, alpha, beta, NULL );
        iteration += 1;
        if ( !accepted )
        {
            status = cn_solveStalled;
            if ( history )
            {
                cnRecordHistory( solution, stats, merit );
            }
            break;
        }
        double moved = 0.0, size = 0.0;
        for ( int i = 0; i < n; ++i )
        {
            moved = fmax( moved, fabs( nt.trial.x[i] - x[i] ) );
            size = fmax( size, fabs( x[i] ) );
        }
        // the trial becomes the iterate (lambda stays in the solution's array)
        cnCopyDoubles( x, nt.trial.x, n );
        double* swap;
        swap = nt.point.w, nt.point.w = nt.trial.w, nt.trial.w = swap;
        swap = nt.point.low, nt.point.low = nt.trial.low, nt.trial.low = swap;
        swap = nt.point.high, nt.point.high = nt.trial.high, nt.trial.high = swap;
        swap = nt.point.h, nt.point.h = nt.trial.h, nt.trial.h = swap;
        theta = nt.trial.theta;
        nt.point.theta = theta;
        merit = cnModelMeritFromW( problem, prepared, cn_modelPyramid, x, nt.point.w );
        if ( history )
        {
            cnRecordHistory( solution, stats, merit );
        }
        CN_NT_TRACE( iteration, theta );
        if ( isfinite( merit ) && merit > tolerance && theta > 0.0 && moved <= CN_NT_STAGNATION * size )
        {
            status = cn_solveStalled;
            break;
        }
    }

    if ( status == cn_solveNonFinite )
    {
        cnCopyDoubles( x, guess, n );
    }
    if ( solution->deltaVelocity != NULL && problem->matrix == NULL )
    {
        cnComputeVelocity( problem, prepared, x, solution->deltaVelocity );
    }
    stats->status = status;
    stats->reason = status == cn_solveNonDescent
                        ? "the Newton direction does not descend on theta (gradient_fallback off)"
                        : NULL;
    stats->iterations = iteration;
    stats->factorizations = factorStats.factorizations;
    stats->ownMeasure = status == cn_solveNonFinite ? (double)NAN : sqrt( 2.0 * theta );
    cnFactorDestroy( factor );
    cnScratchRelease( &scratch );
}

static void cnNewtonMinmapSolve( void* state, const double* params, const cnSolverBudget* budget,
                                 cnSolverProblem* problem, const cnPrepared* prepared,
                                 cnSolverSolution* solution, cnArena* arena, cnSolverStats* stats )
{
    (void)state;
    cnNewtonSolve( false, params, budget, problem, prepared, solution, arena, stats );
}

static void cnNewtonFbSolve( void* state, const double* params, const cnSolverBudget* budget,
                             cnSolverProblem* problem, const cnPrepared* prepared, cnSolverSolution* solution,
                             cnArena* arena, cnSolverStats* stats )
{
    (void)state;
    cnNewtonSolve( true, params, budget, problem, prepared, solution, arena, stats );
}

const cnSolverVTable cn_newtonMinmapSolver = {
    .name = "newton_minmap",
    .description = "Erleben's min-map Newton on the natural map, box friction, projected Armijo search",
    .apiVersion = CN_SOLVER_API_VERSION,
    .caps = cn_solverFriction | cn_solverBounded | cn_solverBilateral | cn_solverExplicit |
            cn_solverMatrixFree | cn_solverSinglePass,
    .model = cn_modelPyramid,
    .iterationUnit = "newton step",
    .params = cn_newtonParams,
    .paramCount = cn_newtonParamCount,
    .solve = cnNewtonMinmapSolve,
};

const cnSolverVTable cn_newtonFbSolver = {
    .name = "newton_fb",
    .description = "Erleben's Fischer-Burmeister Newton, box friction (Billups), projected Armijo search",
    .apiVersion = CN_SOLVER_API_VERSION,
    .caps = cn_solverFriction | cn_solverBounded | cn_solverBilateral | cn_solverExplicit |
            cn_solverMatrixFree | cn_solverSinglePass,
    .model = cn_modelPyramid,
    .iterationUnit = "newton step",
    .params = cn_newtonParams,
    .paramCount = cn_newtonParamCount,
    .solve = cnNewtonFbSolve,
};
