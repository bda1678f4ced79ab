// SPDX-License-Identifier: MIT
// Barzilai-Borwein projected gradient descent (BBPGD) for the box-constrained quadratic
//     minimise  f(lambda) = 1/2 lambda^T (A + S) lambda + b^T lambda   over  lower <= lambda <= upper,
// whose minimisers are the solutions of the LCP (normal rows: lambda >= 0) and of its bounded and
// bilateral rows, when A + S (S = diag(softness)) is symmetric positive semi-definite, as every
// engine problem is. The gradient g = (A + S) lambda + b is w itself, one product through J and W
// (cnComputeVelocity, cnComputeW) per iteration. The method is the one SimToolbox runs for ReLCP
// (Barzilai and Borwein 1988; the projected form and the first step of Dai and Fletcher 2005; the
// ReLCP digest, 5.2):
//
//     lambda_0 = the guess clamped into the bounds,  g_0 = w(lambda_0),  alpha_0 = 1 / |q_0|_inf
//     lambda_k = clamp(lambda_{k-1} - alpha_{k-1} g_{k-1}),  g_k = w(lambda_k)
//     s = lambda_k - lambda_{k-1},  y = g_k - g_{k-1}
//     alpha_k = s.s / s.y (BB1) when k is even,  s.y / y.y (BB2) when k is odd
//
// where q, the projected gradient (g_i, but only its part pointing out of a bound the row sits
// at), is the solver's own measure: |q|_inf in the units of w. There is no line search: the
// iteration is non-monotone and costs one product per iteration.
//
// What this file adds to the digest, unit-free where the digest's constants are not:
// - Stopping: the grading merit (natural map of the pyramid model, cnModelMeritFromW) at most the
//   tolerance (converged; see "accepted" below), the budget (max_iterations), the deadline
//   (deadline); optionally SimToolbox's own rule, |q|_inf at most gradient_tolerance (converged,
//   unconfirmed by the merit).
// - Stagnation: the digest stops when alpha < 10 eps; here alpha times the largest A_ii is compared
//   (alpha has the units of 1 / A), and a step that leaves lambda unchanged stalls too:
//   cn_solveStalled, usable.
// - Guarded denominators: s.y is the curvature of f along the step. A step whose curvature is at
//   most CN_BB_FLAT times its diagonal part s.D s is flat (s lies in a null direction of A), and
//   there BB1 would be a leap of 1 / (rounding): the next step keeps the last alpha instead.
// - No solution. On a semi-definite A, f can fall without end along a ray: a direction the bounds
//   never stop (lambda_i only growing on rows without an upper bound, only falling on rows without
//   a lower one) in the null space of A, along which b pushes (a body squeezed between two
//   penetrating static contacts). The LCP then has no solution, and BB runs lambda off to
//   infinity, quickly or slowly (steps of the size the rest of the problem asks for). Since the
//   merit is relative to |lambda| it falls along the way: left alone, BB would report "converged"
//   at a point far along the ray (seen: tolerance 1e-3 met after lambda grew 300-fold). Guards:
//   * a ray test (one extra product): restricted to the directions the bounds allow, does f still
//     fall along d, and how far is its minimum? Applied to every flat step and, once lambda grew
//     past CN_BB_CHECK times the start's size, to the drift since the iterate at k/4 .. k/2 at
//     every power of two k; a ray when the minimum lies beyond CN_BB_RAY_STEP times the problem's
//     size (|D^1/2 lambda| + |D^-1/2 b|, the merit's scale): cn_solveNoSolution with a reason;
//   * the accepted merit: once lambda grew past CN_BB_CHECK times the start's size, the merit is
//     measured on that size (merit times the growth over CN_BB_CHECK): along a ray the residual
//     itself does not fall, so this does not either, while a real solution far from the start
//     meets it a few iterations later;
//   * a solve that ends (budget, deadline, stall) with an answer the merit alone would accept,
//     grown past CN_BB_CHECK times the start, has its recent drift tested as a ray against the
//     answer's own size (CN_BB_RAY_ANSWER).
//   On 400 random semi-definite problems (tests/solvers/test_bbpgd.c) the 96 without a solution
//   all end no_solution (after 514 iterations on average), at tolerances 1e-3, 1e-6 and 1e-10.
// - Divergence: an iterate past CN_BB_GROWTH times the start's size (a non-symmetric explicit A
//   that the ray test cannot judge) ends with cn_solveDiverged.
// - A non-monotone method's last iterate need not be its best: a solve that ends on its budget,
//   its deadline or a stall returns the best iterate it met (by the accepted merit).
// - cn_solveNonFinite for NaN or infinity in the data (before anything is touched) or an iterate.
//   no_solution, diverged and an iterate's NaN put lambda back to the guess the solve started
//   from. A zero, negative or non-finite diagonal entry gives cn_solveUnsupported with lambda
//   untouched, as for the sweep solvers (an explicit A with A_ii <= 0 is not semi-definite unless
//   its row is empty), and so do contact groups (the layer refuses them from the capabilities).
// What it does not fix: without a line search, projected BB can go round a cycle on a degenerate
// problem (2 of the 304 solvable ones above, rank-1 3 x 3 matrices: an 8-step cycle of BB steps,
// max_iterations). The residual history holds the merit of the start and of every iteration.

#include "solver_kit.h"

#include <float.h>
#include <math.h>
#include <string.h>

enum
{
    cn_bbpgdParamIterations = 0,
    cn_bbpgdParamTolerance,
    cn_bbpgdParamDeadline,
    cn_bbpgdParamWarmStart,
    cn_bbpgdParamGradientTolerance,
    cn_bbpgdParamCount,
};

static const cnSolverParam cn_bbpgdParams[cn_bbpgdParamCount] = {
    { "iterations", "iteration budget per solve (one product A lambda + b each)", 10000.0, 1.0, 10000000.0,
      cn_paramInteger, NULL, 0 },
    { "tolerance", "stop when the grading merit (natural map, unit-free) is at most this (0: run the budget)",
      1e-6, 0.0, 1.0, cn_paramNumber, NULL, 0 },
    { "deadline_ms", "stop after this many milliseconds of a solve (0: no deadline)", 0.0, 0.0, 1e6,
      cn_paramNumber, NULL, 0 },
    { "warm_start",
      "1: the world starts from the contact cache's impulses (the solver starts from the lambda it is "
      "given, clamped into the bounds, either way)",
      1.0, 0.0, 1.0, cn_paramToggle, NULL, 0 },
    { "gradient_tolerance",
      "also stop when the projected gradient's largest entry (in the units of w) is at most this: "
      "SimToolbox's rule, not confirmed by the merit (0: off)",
      0.0, 0.0, 1e300, cn_paramNumber, NULL, 0 },
};

// the digest's stagnation test alpha < 10 eps, on alpha times the largest diagonal entry
#define CN_BB_STALL ( 10.0 * DBL_EPSILON )
// a row sits at a bound when it is within 100 eps (the digest's) of it, relative to the largest
// |lambda|
#define CN_BB_AT_BOUND ( 100.0 * DBL_EPSILON )
// a step is flat when s.(A + S)s is at most this times s.D s (D the diagonal of A + S)
#define CN_BB_FLAT 1e-10
// a flat step that moved lambda by less than this times the problem's size is rounding
#define CN_BB_NEGLIGIBLE 1e-13
// a direction tested during the solve (a flat step, the drift since the anchor) is a ray when f
// falls along it (restricted to the directions the bounds allow) for more than this times the
// problem's size (|D^1/2 lambda| + |D^-1/2 b|, the merit's scale)
#define CN_BB_RAY_STEP 1e3
// lambda grown past this times the start's size: the drift is tested, the merit accepted is
// measured on this size
#define CN_BB_CHECK 10.0
// an answer that ends a solve is a ray when f falls along its recent drift for more than its own
// size (an approximate solution has its minimum along any direction much closer than that)
#define CN_BB_RAY_ANSWER 1.0
// iterates grown past this times the start's size diverged
#define CN_BB_GROWTH 1e12

// What the iteration works with.
typedef struct cnBb
{
    const cnSolverProblem* problem;
    const cnPrepared* prepared;
    int n;
    const double* low;  // (n) the bounds of each row
    const double* high; // (n)
    double* velocity;   // (bodyCount x 6) W J^T of the vector last multiplied
    double* product;    // (n) scratch of the ray test
    double freeScale;   // |D^-1/2 b|
} cnBb;

static inline double cnBbClamp( double x, double low, double high )
{
    x = x < low ? low : x;
    return x > high ? high : x;
}

// g = (A + S) x + b
static void cnBbGradient( cnBb* bb, const double* x, double* g )
{
    cnComputeVelocity( bb->problem, bb->prepared, x, bb->velocity );
    cnComputeW( bb->problem, bb->prepared, x, bb->velocity, g );
}

// |D^1/2 x| + |D^-1/2 b|: the merit's scale, the size of the problem at x
static double cnBbScale( const cnBb* bb, const double* x )
{
    double sum = 0.0;
    for ( int i = 0; i < bb->n; ++i )
    {
        sum += bb->prepared->diagonal[i] * x[i] * x[i];
    }
    return sqrt( sum ) + bb->freeScale;
}

// The own measure: |q|_inf, q_i = g_i except at a bound, where only the part of g_i pointing out of
// the box counts (min(g_i, 0) at the lower bound, max(g_i, 0) at the upper). NaN stays NaN.
static double cnBbProjectedGradient( const cnBb* bb, const double* x, const double* g )
{
    double largest = 0.0;
    for ( int i = 0; i < bb->n; ++i )
    {
        largest = fmax( largest, fabs( x[i] ) );
    }
    double margin = CN_BB_AT_BOUND * largest;
    double worst = 0.0;
    for ( int i = 0; i < bb->n; ++i )
    {
        double q = g[i];
        if ( x[i] <= bb->low[i] + margin )
        {
            q = fmin( q, 0.0 );
        }
        else if ( x[i] >= bb->high[i] - margin )
        {
            q = fmax( q, 0.0 );
        }
        worst = isnan( q ) || isnan( worst ) ? (double)NAN : fmax( worst, fabs( q ) );
    }
    return worst;
}

// Whether f falls without end from x (gradient g there) along d. d is first restricted to the
// directions the bounds allow for every step length (d_i > 0 only without an upper bound, d_i < 0
// only without a lower one; overwritten). Along x + t d, f falls at the rate -g.d and its
// curvature is d.(A + S)d (one product); a ray when the curvature is not positive, or when the
// minimum along d lies further than `factor` times `scale` (in the energy norm).
static bool cnBbRay( cnBb* bb, const double* g, double* d, double scale, double factor )
{
    double kept = 0.0;
    double slope = 0.0;
    for ( int i = 0; i < bb->n; ++i )
    {
        if ( ( d[i] > 0.0 && isfinite( bb->high[i] ) ) || ( d[i] < 0.0 && isfinite( bb->low[i] ) ) )
        {
            d[i] = 0.0;
        }
        kept += bb->prepared->diagonal[i] * d[i] * d[i];
        slope += g[i] * d[i];
    }
    if ( !( kept > 0.0 ) || !( slope < 0.0 ) )
    {
        return false;
    }
    // the product gives (A + S) d + b
    cnBbGradient( bb, d, bb->product );
    double curvature = 0.0;
    for ( int i = 0; i < bb->n; ++i )
    {
        curvature += d[i] * ( bb->product[i] - bb->problem->b[i] );
    }
    if ( isnan( curvature ) )
    {
        return false;
    }
    if ( curvature <= 0.0 )
    {
        return true;
    }
    double reach = -slope / curvature * sqrt( kept );
    return reach > factor * scale;
}

// The merit a solve accepts: the grading merit, or once lambda has grown past CN_BB_CHECK times
// the start's size, the same residual measured on that larger start size. Along a ray the merit
// (relative to |lambda|) falls as lambda grows while the residual itself stays; this one does not.
static double cnBbAccepted( double merit, double scale, double startScale )
{
    double growth = scale / ( CN_BB_CHECK * startScale );
    return growth > 1.0 ? merit * growth : merit;
}

static const char* const cn_bbRayReason =
    "1/2 l.A l + b.l falls without end along a direction the bounds allow (b pushes along a null "
    "direction of A): no solution";
static const char* const cn_bbGrowthReason = "the iterate grew past 1e12 times the size of the start";

static void cnBbpgdSolve( void* state, const double* params, const cnSolverBudget* budget,
                          cnSolverProblem* problem, const cnPrepared* prepared, cnSolverSolution* solution,
                          cnArena* arena, cnSolverStats* stats )
{
    (void)state;
    uint64_t start = cnGetTicks();
    int n = problem->rowCount;
    stats->status = cn_solveUnsupported;
    stats->ownMeasure = (double)NAN;
    for ( int g = 0; g < problem->groupCount; ++g )
    {
        if ( problem->groups[g].kind == cn_groupContact )
        {
            return; // the layer refuses these from the caps; a guard all the same
        }
    }
    if ( prepared->singularRows > 0 )
    {
        return; // as the sweeps: lambda untouched, the layer gives the reason
    }
    if ( prepared->nonFiniteRows > 0 )
    {
        stats->status = cn_solveNonFinite;
        return;
    }

    double tolerance = budget->tolerance;
    double gradientTolerance =
        cnSolverParamValue( cn_bbpgdParams, cn_bbpgdParamCount, params, cn_bbpgdParamGradientTolerance );
    bool history = solution->residualHistory != NULL && solution->residualHistoryCapacity > 0;

    cnScratch scratch = { .arena = arena };
    double* x = solution->lambda;
    double* velocity = cnScratchDoubles( &scratch, 6 * problem->bodyCount );
    double* guess = cnScratchDoubles( &scratch, n );    // lambda as given: put back on a failure
    double* previous = cnScratchDoubles( &scratch, n ); // lambda_{k-1}
    double* g = cnScratchDoubles( &scratch, n );
    double* previousG = cnScratchDoubles( &scratch, n );
    double* best = cnScratchDoubles( &scratch, n );
    // iterates at the powers of two: the anchor (at k/4 .. k/2) and the newest
    double* anchor = cnScratchDoubles( &scratch, n );
    double* checkpoint = cnScratchDoubles( &scratch, n );
    double* direction = cnScratchDoubles( &scratch, n );
    double* product = cnScratchDoubles( &scratch, n );
    double* bounds = cnScratchDoubles( &scratch, 2 * n );
    if ( velocity == NULL || guess == NULL || previous == NULL || g == NULL || previousG == NULL ||
         best == NULL || anchor == NULL || checkpoint == NULL || direction == NULL || product == NULL ||
         bounds == NULL )
    {
        cnScratchRelease( &scratch );
        return; // out of memory: unsupported, lambda untouched
    }

    cnBb bb = {
        .problem = problem,
        .prepared = prepared,
        .n = n,
        .low = bounds,
        .high = bounds + n,
        .velocity = velocity,
        .product = product,
        .freeScale = sqrt( prepared->freeEnergy ),
    };
    double largestDiagonal = 0.0;
    for ( int i = 0; i < n; ++i )
    {
        // normal and bounded rows only: no tangent bound depends on lambda
        cnRowBounds( problem, prepared, x, i, bounds + i, bounds + n + i );
        largestDiagonal = fmax( largestDiagonal, prepared->diagonal[i] );
    }

    // the start: the guess clamped into the bounds
    cnCopyDoubles( guess, x, n );
    for ( int i = 0; i < n; ++i )
    {
        x[i] = cnBbClamp( x[i], bb.low[i], bb.high[i] );
    }
    cnCopyDoubles( anchor, x, n );
    cnCopyDoubles( checkpoint, x, n );
    cnBbGradient( &bb, x, g );
    double merit = cnModelMeritFromW( problem, prepared, cn_modelPyramid, x, g );
    double own = cnBbProjectedGradient( &bb, x, g );
    if ( history )
    {
        cnRecordHistory( solution, stats, merit );
    }
    double startMerit = merit;
    double startOwn = own;
    double startScale = cnBbScale( &bb, x );
    double bestAccepted = merit;
    double bestMerit = merit;
    double bestOwn = own;
    int bestIteration = 0;
    cnCopyDoubles( best, x, n );

    cnSolveStatus status = cn_solveMaxIterations;
    const char* reason = NULL;
    bool decided = false;
    int iteration = 0;
    double alpha = 0.0;
    if ( !isfinite( merit ) || !isfinite( own ) )
    {
        status = cn_solveNonFinite; // a finite problem whose start overflows
        decided = true;
    }
    else if ( merit <= tolerance || ( gradientTolerance > 0.0 && own <= gradientTolerance ) )
    {
        status = cn_solveConverged;
        decided = true;
    }
    else if ( own == 0.0 )
    {
        status = cn_solveStalled; // no gradient to follow, yet not a solution the merit accepts
        decided = true;
    }
    else
    {
        alpha = 1.0 / own; // Dai and Fletcher's first step
    }

    while ( decided == false && iteration < budget->maxIterations )
    {
        cnCopyDoubles( previous, x, n );
        cnCopyDoubles( previousG, g, n );
        bool moved = false;
        for ( int i = 0; i < n; ++i )
        {
            x[i] = cnBbClamp( previous[i] - alpha * previousG[i], bb.low[i], bb.high[i] );
            moved = moved || x[i] != previous[i];
        }
        iteration += 1;
        if ( ( iteration & ( iteration - 1 ) ) == 0 )
        {
            double* older = anchor;
            anchor = checkpoint;
            checkpoint = older;
            cnCopyDoubles( checkpoint, x, n );
        }
        cnBbGradient( &bb, x, g );
        merit = cnModelMeritFromW( problem, prepared, cn_modelPyramid, x, g );
        own = cnBbProjectedGradient( &bb, x, g );
        if ( history )
        {
            cnRecordHistory( solution, stats, merit );
        }
        if ( !isfinite( merit ) || !isfinite( own ) )
        {
            status = cn_solveNonFinite;
            break;
        }

        // the step and what it met: s.s, s.D s, s.y, y.y, and the size at lambda_k
        double ss = 0.0, sds = 0.0, sy = 0.0, yy = 0.0, size = 0.0;
        for ( int i = 0; i < n; ++i )
        {
            double s = x[i] - previous[i];
            double y = g[i] - previousG[i];
            double d = prepared->diagonal[i];
            ss += s * s;
            sds += d * s * s;
            sy += s * y;
            yy += y * y;
            size += d * x[i] * x[i];
        }
        double scale = sqrt( size ) + bb.freeScale;
        double accepted = cnBbAccepted( merit, scale, startScale );
        if ( accepted < bestAccepted )
        {
            bestAccepted = accepted;
            bestMerit = merit;
            bestOwn = own;
            bestIteration = iteration;
            cnCopyDoubles( best, x, n );
        }
        bool flat = !( sy > CN_BB_FLAT * sds );
        if ( flat && moved )
        {
            for ( int i = 0; i < n; ++i )
            {
                direction[i] = x[i] - previous[i];
            }
            if ( cnBbRay( &bb, g, direction, scale, CN_BB_RAY_STEP ) )
            {
                status = cn_solveNoSolution;
                reason = cn_bbRayReason;
                break;
            }
        }
        // at every power of two, once lambda grew past CN_BB_CHECK times the start's size: the drift
        // since the anchor, tested as a ray
        if ( ( iteration & ( iteration - 1 ) ) == 0 && scale > CN_BB_CHECK * startScale )
        {
            for ( int i = 0; i < n; ++i )
            {
                direction[i] = x[i] - anchor[i];
            }
            if ( cnBbRay( &bb, g, direction, scale, CN_BB_RAY_STEP ) )
            {
                status = cn_solveNoSolution;
                reason = cn_bbRayReason;
                break;
            }
        }
        if ( scale > CN_BB_GROWTH * startScale )
        {
            status = cn_solveDiverged;
            reason = cn_bbGrowthReason;
            break;
        }
        if ( accepted <= tolerance || ( gradientTolerance > 0.0 && own <= gradientTolerance ) )
        {
            status = cn_solveConverged;
            break;
        }
        if ( budget->deadlineMs > 0.0 && cnGetMilliseconds( start ) >= budget->deadlineMs )
        {
            status = iteration < budget->maxIterations ? cn_solveDeadline : cn_solveMaxIterations;
            break;
        }

        // the next step: BB1 on even iterations, BB2 on odd ones; a flat step keeps the last one
        if ( moved == false || ( flat && sqrt( sds ) <= CN_BB_NEGLIGIBLE * scale ) )
        {
            status = cn_solveStalled; // the step no longer changes lambda beyond rounding
            break;
        }
        if ( flat == false )
        {
            alpha = iteration % 2 == 0 ? ss / sy : sy / yy;
        }
        if ( !( alpha * largestDiagonal >= CN_BB_STALL ) || !isfinite( alpha ) )
        {
            status = cn_solveStalled;
            break;
        }
    }

    // A solve that ran out of budget or time, or stalled, returns the best iterate it met (by the
    // merit it accepts). When that one meets the tolerance on the grading merit alone (the layer
    // would call it converged) but lambda grew far beyond its start, the solve may have been
    // drifting along a ray all along, slowly (BB keeps taking steps of the size the rest of the
    // problem asks for); by now the rest has settled, and the drift since the iterate at k/4 .. k/2
    // is along the ray itself: tested as one, against the answer's own size.
    bool usable = status == cn_solveConverged || status == cn_solveMaxIterations ||
                  status == cn_solveDeadline || status == cn_solveStalled;
    if ( usable && status != cn_solveConverged && bestMerit <= tolerance &&
         cnBbScale( &bb, x ) > CN_BB_CHECK * startScale )
    {
        for ( int i = 0; i < n; ++i )
        {
            direction[i] = x[i] - anchor[i];
        }
        if ( cnBbRay( &bb, g, direction, cnBbScale( &bb, x ), CN_BB_RAY_ANSWER ) )
        {
            status = cn_solveNoSolution;
            reason = cn_bbRayReason;
            usable = false;
        }
    }
    if ( usable && status != cn_solveConverged && bestIteration != iteration )
    {
        cnCopyDoubles( x, best, n );
        own = bestOwn;
    }
    if ( status == cn_solveNonFinite || status == cn_solveNoSolution || status == cn_solveDiverged )
    {
        // back to where the solve started
        cnCopyDoubles( x, guess, n );
        own = startOwn;
        if ( history && iteration > 0 )
        {
            cnRecordHistory( solution, stats, startMerit ); // the layer writes the exact value
        }
    }

    if ( solution->deltaVelocity != NULL && problem->matrix == NULL )
    {
        cnComputeVelocity( problem, prepared, x, solution->deltaVelocity );
    }
    stats->status = status;
    stats->reason = reason;
    stats->iterations = iteration;
    stats->ownMeasure = own;
    cnScratchRelease( &scratch );
}

const cnSolverVTable cn_bbpgdSolver = {
    .name = "bbpgd",
    .description =
        "Barzilai-Borwein projected gradient descent (no friction rows; SimToolbox's ReLCP solver)",
    .apiVersion = CN_SOLVER_API_VERSION,
    .caps = cn_solverBounded | cn_solverBilateral | cn_solverExplicit | cn_solverMatrixFree,
    .model = cn_modelPyramid,
    .iterationUnit = "iteration",
    .params = cn_bbpgdParams,
    .paramCount = cn_bbpgdParamCount,
    .solve = cnBbpgdSolve,
};
