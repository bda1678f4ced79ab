// SPDX-License-Identifier: MIT
// BBPGD (Barzilai-Borwein projected gradient descent) against Lemke and brute-force active-set
// enumeration on random positive definite and semi-definite problems (the ReLCP digest's acceptance
// test 3), bounded rows, softness, warm starts, and the statuses it promises: NaN, a zero
// diagonal, friction refused, and problems without a solution ending as such rather than with a
// silent "converged".
#include "arena.h"
#include "solver_layer.h"
#include "solvers_suites.h"
#include "test_support.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CNT_BB_MAX 12

static const double s_zero3[3] = { 0, 0, 0 };
static const double s_up[3] = { 0, 0, 1 };
static const double s_down[3] = { 0, 0, -1 };

static const cnSolverVTable* cntBbpgd( void )
{
    const cnSolverVTable* solver = cnFindSolver( "bbpgd" );
    ck_assert_ptr_nonnull( solver );
    return solver;
}

// bbpgd's defaults with `iterations` and `tolerance`, and gradient_tolerance when >= 0
static cnSolverStats cntBbSolve( cnSolverProblem* problem, double* lambda, double* dv, int iterations,
                                 double tolerance, double gradientTolerance )
{
    const cnSolverVTable* solver = cntBbpgd();
    double params[CN_MAX_SOLVER_PARAMS];
    for ( int k = 0; k < solver->paramCount; ++k )
    {
        params[k] = solver->params[k].defaultValue;
    }
    params[cntParamIndex( solver, "iterations" )] = iterations;
    params[cntParamIndex( solver, "tolerance" )] = tolerance;
    if ( gradientTolerance >= 0.0 )
    {
        params[cntParamIndex( solver, "gradient_tolerance" )] = gradientTolerance;
    }
    return cntSolveWithParams( solver, problem, lambda, dv, params, NULL, 0 );
}

// w = (A + diag(softness)) lambda + b through the kit's products
static void cntBbW( const cnSolverProblem* problem, const double* lambda, double* w )
{
    cnArena arena;
    cnCreateArena( &arena, NULL, 1024 );
    const char* why = NULL;
    cnPrepared* prepared = cnLayerPrepare( problem, &arena, &why );
    ck_assert_msg( prepared != NULL, "%s", why != NULL ? why : "" );
    double velocity[6 * 8];
    ck_assert_int_le( problem->bodyCount, 8 );
    cnComputeVelocity( problem, prepared, lambda, velocity );
    cnComputeW( problem, prepared, lambda, velocity, w );
    cnDestroyArena( &arena );
}

static double cntBbMaxAbs( const double* v, int n )
{
    double m = 0.0;
    for ( int i = 0; i < n; ++i )
    {
        m = fmax( m, fabs( v[i] ) );
    }
    return m;
}

// Solve the k x k system m x = r in place (Gaussian elimination, partial pivoting); false when a
// pivot is below `tiny`
static bool cntBbSolveSmall( double* m, double* r, int k, double tiny )
{
    for ( int col = 0; col < k; ++col )
    {
        int pivot = col;
        for ( int i = col + 1; i < k; ++i )
        {
            pivot = fabs( m[i * k + col] ) > fabs( m[pivot * k + col] ) ? i : pivot;
        }
        if ( !( fabs( m[pivot * k + col] ) > tiny ) )
        {
            return false;
        }
        for ( int j = 0; j < k; ++j )
        {
            double t = m[col * k + j];
            m[col * k + j] = m[pivot * k + j];
            m[pivot * k + j] = t;
        }
        double t = r[col];
        r[col] = r[pivot];
        r[pivot] = t;
        for ( int i = col + 1; i < k; ++i )
        {
            double f = m[i * k + col] / m[col * k + col];
            for ( int j = col; j < k; ++j )
            {
                m[i * k + j] -= f * m[col * k + j];
            }
            r[i] -= f * r[col];
        }
    }
    for ( int col = k - 1; col >= 0; --col )
    {
        double sum = r[col];
        for ( int j = col + 1; j < k; ++j )
        {
            sum -= m[col * k + j] * r[j];
        }
        r[col] = sum / m[col * k + col];
    }
    return true;
}

// Random problems of n <= 10 normal rows, A = B^T D B:
// - explicit (even seeds): B is m x n with random entries in [-1, 1] and D = diag in [0.2, 5], m = n + 2
//   (definite) or m = n / 2 (semi-definite, rank m);
// - matrix-free (odd seeds): rows J between random bodies (or static ground) with W blocks
//   diag in [0.2, 5]: A = J W J^T, definite with 2 bodies (12 degrees of freedom) and up to 10 rows,
//   semi-definite with 1 body and more than 6 rows.
// Definite problems get a random b; semi-definite ones a b = w* - A lambda* with a planted
// complementary pair (lambda*, w*) >= 0, so that a solution exists (for a random b a semi-definite
// LCP usually has none). `soft` adds a random softness to the matrix-free rows.
static cntLcp* cntBbRandomProblem( cntRandom* random, int seed, bool definite, bool soft, double* softness,
                                   double* factor, int* factorRows )
{
    double localFactor[12 * CNT_BB_MAX];
    int localRows = 0;
    factor = factor != NULL ? factor : localFactor;
    factorRows = factorRows != NULL ? factorRows : &localRows;
    int n = 2 + (int)( cntUniform( random ) * 9.0 ); // 2 .. 10
    cntLcp* lcp = cntCreateLcp( CNT_BB_MAX, 2 );
    if ( seed % 2 == 0 )
    {
        int m = definite ? n + 2 : ( n / 2 > 1 ? n / 2 : 1 );
        double bm[( CNT_BB_MAX + 2 ) * CNT_BB_MAX];
        double d[CNT_BB_MAX + 2];
        for ( int r = 0; r < m; ++r )
        {
            d[r] = cntRange( random, 0.2, 5.0 );
            for ( int c = 0; c < n; ++c )
            {
                bm[r * n + c] = cntRange( random, -1.0, 1.0 );
            }
        }
        double a[CNT_BB_MAX * CNT_BB_MAX];
        for ( int i = 0; i < n; ++i )
        {
            for ( int j = 0; j < n; ++j )
            {
                double sum = 0.0;
                for ( int r = 0; r < m; ++r )
                {
                    sum += bm[r * n + i] * d[r] * bm[r * n + j];
                }
                a[i * n + j] = sum;
            }
        }
        *factorRows = m;
        for ( int r = 0; r < m; ++r )
        {
            for ( int c = 0; c < n; ++c )
            {
                factor[r * n + c] = sqrt( d[r] ) * bm[r * n + c];
            }
        }
        // symmetric to the last bit
        for ( int i = 0; i < n; ++i )
        {
            for ( int j = 0; j < i; ++j )
            {
                a[i * n + j] = a[j * n + i];
            }
        }
        double q[CNT_BB_MAX] = { 0 };
        cntSetDense( lcp, n, a, q );
    }
    else
    {
        if ( definite == false && n < 7 )
        {
            n = 7 + (int)( cntUniform( random ) * 4.0 ); // 7 .. 10 rows on one body
        }
        int bodies = definite ? 2 : 1;
        for ( int k = 0; k < bodies; ++k )
        {
            cntAddBody( lcp, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0 );
            double wl[9] = { 0 };
            double wa[9] = { 0 };
            for ( int c = 0; c < 3; ++c )
            {
                wl[4 * c] = cntRange( random, 0.2, 5.0 );
                wa[4 * c] = cntRange( random, 0.2, 5.0 );
            }
            cntSetBodyW( lcp, k, wl, wa );
        }
        for ( int i = 0; i < n; ++i )
        {
            double ja[6];
            double jb[6];
            for ( int k = 0; k < 6; ++k )
            {
                ja[k] = cntRange( random, -1.0, 1.0 );
                jb[k] = cntRange( random, -1.0, 1.0 );
            }
            int a = -1;
            int b = 0;
            if ( definite )
            {
                int pick = (int)( cntUniform( random ) * 3.0 ); // ground-0, ground-1, 0-1
                a = pick == 2 ? 0 : -1;
                b = pick == 0 ? 0 : 1;
            }
            cntAddRow( lcp, cn_rowNormal, a, b, a >= 0 ? ja : NULL, jb );
        }
        // A = J W J^T = F^T F with F = (J W^1/2)^T, 6 rows per body
        *factorRows = 6 * bodies;
        for ( int k = 0; k < 6 * bodies * n; ++k )
        {
            factor[k] = 0.0;
        }
        for ( int i = 0; i < n; ++i )
        {
            for ( int side = 0; side < 2; ++side )
            {
                int body = side == 0 ? lcp->bodyA[i] : lcp->bodyB[i];
                const double* j = ( side == 0 ? lcp->jacobianA : lcp->jacobianB ) + 6 * i;
                for ( int dof = 0; dof < 6 && body >= 0; ++dof )
                {
                    const double* w = dof < 3 ? lcp->wLinear + 9 * body : lcp->wAngular + 9 * body;
                    factor[( 6 * body + dof ) * n + i] += j[dof] * sqrt( w[4 * ( dof % 3 )] );
                }
            }
        }
        if ( soft )
        {
            for ( int i = 0; i < n; ++i )
            {
                softness[i] = cntRange( random, 0.0, 0.5 );
            }
            lcp->problem.softness = softness;
        }
    }

    if ( definite )
    {
        for ( int i = 0; i < n; ++i )
        {
            lcp->b[i] = cntRange( random, -1.0, 1.0 );
        }
        return lcp;
    }
    // a planted complementary pair: b = w* - A lambda*
    double planted[CNT_BB_MAX];
    double slack[CNT_BB_MAX];
    for ( int i = 0; i < n; ++i )
    {
        bool active = cntUniform( random ) < 0.6;
        planted[i] = active ? cntRange( random, 0.1, 2.0 ) : 0.0;
        slack[i] = active ? 0.0 : cntRange( random, 0.1, 2.0 );
        lcp->b[i] = 0.0;
    }
    double product[CNT_BB_MAX];
    cntBbW( &lcp->problem, planted, product );
    for ( int i = 0; i < n; ++i )
    {
        lcp->b[i] = slack[i] - product[i];
    }
    return lcp;
}

// What the random-problem test measured.
typedef struct cntBbTally
{
    int problems;
    int failures;
    long bbIterations;
    int bbMost;
    long lemkePivots;
    int lemkeMost;
    double worstLambda;          // |lambda - lambda_lemke|_inf / max(1, |lambda_lemke|_inf), definite
    double worstW;               // |w - w_lemke|_inf / max(1, |b|_inf), semi-definite
    double worstComplementarity; // |min(lambda, w)|_inf / max(1, |b|_inf)
    double worstGradient;        // bbpgd's own measure at the end
} cntBbTally;

static void cntBbCompare( cntLcp* lcp, bool definite, cntBbTally* tally )
{
    cnSolverProblem* problem = &lcp->problem;
    int n = problem->rowCount;
    double bb[CNT_BB_MAX] = { 0 };
    double lemke[CNT_BB_MAX] = { 0 };
    cnSolverStats bs = cntBbSolve( problem, bb, NULL, 100000, 1e-12, -1.0 );
    cnSolverStats ls = cntSolve( cnFindSolver( "lemke" ), problem, lemke, NULL, 1000, -1.0, -1.0 );
    tally->problems += 1;
    tally->failures += bs.status != cn_solveConverged || ls.status != cn_solveConverged;
    tally->failures += !( bs.ownMeasure < 1e-8 );
    tally->bbIterations += bs.iterations;
    tally->bbMost = bs.iterations > tally->bbMost ? bs.iterations : tally->bbMost;
    tally->lemkePivots += ls.iterations;
    tally->lemkeMost = ls.iterations > tally->lemkeMost ? ls.iterations : tally->lemkeMost;
    tally->worstGradient = fmax( tally->worstGradient, bs.ownMeasure );

    double wb[CNT_BB_MAX];
    double wl[CNT_BB_MAX];
    cntBbW( problem, bb, wb );
    cntBbW( problem, lemke, wl );
    double size = fmax( 1.0, cntBbMaxAbs( problem->b, n ) );
    double lambdaSize = fmax( 1.0, cntBbMaxAbs( lemke, n ) );
    for ( int i = 0; i < n; ++i )
    {
        tally->failures += bb[i] < 0.0;
        double c = fabs( fmin( bb[i], wb[i] ) ) / size;
        tally->worstComplementarity = fmax( tally->worstComplementarity, c );
        tally->failures += c > 1e-8;
        if ( definite )
        {
            double d = fabs( bb[i] - lemke[i] ) / lambdaSize;
            tally->worstLambda = fmax( tally->worstLambda, d );
            tally->failures += d > 1e-6;
        }
        double dw = fabs( wb[i] - wl[i] ) / size;
        tally->worstW = fmax( tally->worstW, dw );
        tally->failures += dw > 1e-6;
    }
}

// The digest's acceptance test 3: on random definite and semi-definite problems of n <= 10 rows,
// explicit and matrix-free, bbpgd converges, reaches a projected gradient below 1e-8, agrees with
// Lemke (lambda to 1e-6 on definite problems, where it is unique; w on semi-definite ones, where
// only w is) and ends complementary (min(lambda, w) = 0 to 1e-8)
START_TEST( random_problems_agree_with_lemke )
{
    cntRandom random = { 20260311u };
    cntBbTally definite = { 0 };
    cntBbTally semidefinite = { 0 };
    double softness[CNT_BB_MAX];
    for ( int seed = 0; seed < 200; ++seed )
    {
        bool isDefinite = seed % 4 < 2;
        cntLcp* lcp = cntBbRandomProblem( &random, seed, isDefinite, false, softness, NULL, NULL );
        cntBbCompare( lcp, isDefinite, isDefinite ? &definite : &semidefinite );
        cntDestroyLcp( lcp );
    }
    printf( "bbpgd vs lemke, %d definite problems (n <= 10): iterations mean %.1f max %d, lemke pivots mean "
            "%.1f max %d; worst |dlambda| %.2g, |dw| %.2g, |min(lambda, w)| %.2g, projected gradient %.2g\n",
            definite.problems, (double)definite.bbIterations / definite.problems, definite.bbMost,
            (double)definite.lemkePivots / definite.problems, definite.lemkeMost, definite.worstLambda,
            definite.worstW, definite.worstComplementarity, definite.worstGradient );
    printf( "bbpgd vs lemke, %d semi-definite problems: iterations mean %.1f max %d, lemke pivots mean %.1f "
            "max %d; worst |dw| %.2g, |min(lambda, w)| %.2g, projected gradient %.2g\n",
            semidefinite.problems, (double)semidefinite.bbIterations / semidefinite.problems,
            semidefinite.bbMost, (double)semidefinite.lemkePivots / semidefinite.problems,
            semidefinite.lemkeMost, semidefinite.worstW, semidefinite.worstComplementarity,
            semidefinite.worstGradient );
    ck_assert_int_eq( definite.failures, 0 );
    ck_assert_int_eq( semidefinite.failures, 0 );
}
END_TEST

// The ground truth for a semi-definite LCP with A = F^T F (F: rows x n): it has no solution
// exactly when some d >= 0 has F d = 0 and b.d < 0 (f falls without end along d). The least b.d
// over {d >= 0, F d = 0, sum d = 1} is at a vertex: a support S whose columns of [F; 1] are
// independent, d_S from the normal equations. Returns that least b.d (+inf when the set is empty).
static double cntBbLeastRaySlope( int n, const double* factor, int rows, const double* b )
{
    double least = (double)INFINITY;
    for ( unsigned mask = 1; mask < ( 1u << n ); ++mask )
    {
        int support[CNT_BB_MAX];
        int k = 0;
        for ( int i = 0; i < n; ++i )
        {
            if ( mask & ( 1u << i ) )
            {
                support[k++] = i;
            }
        }
        if ( k > rows + 1 )
        {
            continue;
        }
        // normal equations of [F_S; 1] d_S = [0; 1]
        double g[CNT_BB_MAX * CNT_BB_MAX];
        double r[CNT_BB_MAX];
        for ( int p = 0; p < k; ++p )
        {
            r[p] = 1.0;
            for ( int q = 0; q < k; ++q )
            {
                double sum = 1.0;
                for ( int row = 0; row < rows; ++row )
                {
                    sum += factor[row * n + support[p]] * factor[row * n + support[q]];
                }
                g[p * k + q] = sum;
            }
        }
        if ( !cntBbSolveSmall( g, r, k, 1e-9 ) )
        {
            continue;
        }
        bool vertex = true;
        double slope = 0.0;
        for ( int p = 0; p < k && vertex; ++p )
        {
            vertex = r[p] >= -1e-12;
            slope += b[support[p]] * r[p];
        }
        for ( int row = 0; row < rows && vertex; ++row )
        {
            double sum = 0.0;
            for ( int p = 0; p < k; ++p )
            {
                sum += factor[row * n + support[p]] * r[p];
            }
            vertex = fabs( sum ) <= 1e-9;
        }
        least = vertex ? fmin( least, slope ) : least;
    }
    return least;
}

// Random semi-definite problems with a random b, many without a solution (a ray, decided by
// cntBbLeastRaySlope): bbpgd solves those that have one (converged, w >= 0 and complementary to
// 1e-6 in absolute terms) and never returns a usable answer for those that have none, at loose and
// tight tolerances. (Lemke's check is relative to |A| |lambda|: on these it reports "converged" at
// lambda ~ 1e8 with w = -0.5.)
START_TEST( random_semidefinite_problems_with_and_without_a_solution )
{
    cntRandom random = { 31337u };
    double softness[CNT_BB_MAX];
    double factor[12 * CNT_BB_MAX];
    int solvable = 0;
    int unsolvable = 0;
    int failures = 0;
    int statuses[cn_solveStatusCount] = { 0 };
    long iterations = 0;
    int most = 0;
    long rayIterations = 0;
    int rayMost = 0;
    int unconverged = 0;
    double worstRatio = 0.0;
    int lemkeConverged = 0;
    double lemkeLargest = 0.0;
    double lemkeLowestW = 0.0;
    for ( int seed = 0; seed < 400; ++seed )
    {
        int rows = 0;
        cntLcp* lcp = cntBbRandomProblem( &random, seed, false, false, softness, factor, &rows );
        int n = lcp->problem.rowCount;
        for ( int i = 0; i < n; ++i )
        {
            lcp->b[i] = cntRange( &random, -1.0, 1.0 );
        }
        bool ray = cntBbLeastRaySlope( n, factor, rows, lcp->b ) < -1e-9;
        double bb[CNT_BB_MAX] = { 0 };
        double tolerance = seed % 3 == 0 ? 1e-3 : ( seed % 3 == 1 ? 1e-6 : 1e-10 );
        cnSolverStats bs = cntBbSolve( &lcp->problem, bb, NULL, 100000, tolerance, -1.0 );
        statuses[bs.status] += 1;
        bool usable = cnSolveStatusIsUsable( bs.status, cntBbpgd()->caps );
        if ( ray )
        {
            unsolvable += 1;
            rayIterations += bs.iterations;
            // what Lemke says about it (its check is relative to |A| |lambda|)
            double lemke[CNT_BB_MAX] = { 0 };
            cnSolverStats ls =
                cntSolve( cnFindSolver( "lemke" ), &lcp->problem, lemke, NULL, 1000, -1.0, -1.0 );
            if ( ls.status == cn_solveConverged )
            {
                double w[CNT_BB_MAX];
                cntBbW( &lcp->problem, lemke, w );
                lemkeConverged += 1;
                lemkeLargest = fmax( lemkeLargest, cntBbMaxAbs( lemke, n ) );
                for ( int i = 0; i < n; ++i )
                {
                    lemkeLowestW = fmin( lemkeLowestW, w[i] );
                }
            }
            rayMost = bs.iterations > rayMost ? bs.iterations : rayMost;
            failures += usable;
            for ( int i = 0; i < n; ++i )
            {
                failures += bb[i] != 0.0; // the start put back
            }
            if ( usable )
            {
                printf( "  seed %d n %d: no solution, bbpgd %s after %d (tolerance %g, merit %.3g)\n", seed,
                        n, cnSolveStatusName( bs.status ), bs.iterations, tolerance, bs.residual );
            }
            cntDestroyLcp( lcp );
            continue;
        }
        solvable += 1;
        iterations += bs.iterations;
        most = bs.iterations > most ? bs.iterations : most;
        // never called unsolvable; when converged, w >= 0 and min(lambda, w) = 0 to the tolerance
        // times the size of the terms of w (|b_i| + sum_j |A_ij lambda_j|, Lemke's check)
        failures += !usable;
        unconverged += bs.status != cn_solveConverged;
        if ( bs.status == cn_solveConverged )
        {
            double w[CNT_BB_MAX];
            double size[CNT_BB_MAX];
            cntBbW( &lcp->problem, bb, w );
            for ( int i = 0; i < n; ++i )
            {
                size[i] = fabs( lcp->b[i] );
            }
            double zero[CNT_BB_MAX] = { 0 };
            for ( int j = 0; j < n; ++j )
            {
                double unit[CNT_BB_MAX] = { 0 };
                double column[CNT_BB_MAX];
                double base[CNT_BB_MAX];
                unit[j] = 1.0;
                cntBbW( &lcp->problem, unit, column );
                cntBbW( &lcp->problem, zero, base );
                for ( int i = 0; i < n; ++i )
                {
                    size[i] += fabs( ( column[i] - base[i] ) * bb[j] );
                }
            }
            double scale = 0.0;
            double violation = 0.0;
            for ( int i = 0; i < n; ++i )
            {
                scale = fmax( scale, size[i] );
                violation = fmax( violation, fmax( -w[i], fabs( fmin( bb[i], w[i] ) ) ) );
            }
            double ratio = violation / ( tolerance * scale );
            worstRatio = fmax( worstRatio, ratio );
            failures += !( ratio <= 10.0 );
        }
        else
        {
            printf( "  seed %d (n %d): a solution, bbpgd %s after %d iterations (tolerance %g, merit %.3g)\n",
                    seed, n, cnSolveStatusName( bs.status ), bs.iterations, tolerance, bs.residual );
        }
        cntDestroyLcp( lcp );
    }
    printf(
        "bbpgd on %d random semi-definite problems: %d with a solution (iterations mean %.1f, max %d), %d "
        "without (iterations mean %.1f, max %d); statuses: converged %d, no_solution %d, diverged %d, "
        "nonfinite %d, max_iterations %d, stalled %d\n",
        solvable + unsolvable, solvable, (double)iterations / fmax( 1, solvable ), most, unsolvable,
        (double)rayIterations / fmax( 1, unsolvable ), rayMost, statuses[cn_solveConverged],
        statuses[cn_solveNoSolution], statuses[cn_solveDiverged], statuses[cn_solveNonFinite],
        statuses[cn_solveMaxIterations], statuses[cn_solveStalled] );
    printf( "  converged answers: worst violation / (tolerance x size of w's terms) = %.3g\n", worstRatio );
    printf( "  lemke on the %d without a solution: %d \"converged\" (largest lambda %.3g, lowest w %.3g)\n",
            unsolvable, lemkeConverged, lemkeLargest, lemkeLowestW );
    ck_assert_int_eq( failures, 0 );
    // projected BB without a line search can cycle on a degenerate problem (2 of these 304 go round an
    // 8-step cycle of BB steps and end max_iterations): at most 1 %
    ck_assert_int_le( unconverged, solvable / 100 );
}
END_TEST

// Softness is part of the problem: A + diag(softness) on matrix-free rows, against Lemke (which
// solves the dense A + diag(softness))
START_TEST( softness_is_honoured )
{
    cntRandom random = { 77u };
    cntBbTally tally = { 0 };
    double softness[CNT_BB_MAX];
    for ( int seed = 1; seed < 80; seed += 2 )
    {
        bool isDefinite = seed % 4 == 1;
        cntLcp* lcp = cntBbRandomProblem( &random, seed, isDefinite, true, softness, NULL, NULL );
        cntBbCompare( lcp, isDefinite, &tally );
        cntDestroyLcp( lcp );
    }
    printf( "bbpgd vs lemke with softness, %d problems: iterations mean %.1f, worst |dlambda| %.2g, |dw| "
            "%.2g\n",
            tally.problems, (double)tally.bbIterations / tally.problems, tally.worstLambda, tally.worstW );
    ck_assert_int_eq( tally.failures, 0 );

    // and it changes the answer: one row, A = 1, softness 1, b = -1: lambda = 1/2, not 1
    cntLcp* lcp = cntCreateLcp( 1, 0 );
    static const double one[1] = { 1.0 };
    static const double q[1] = { -1.0 };
    cntSetDense( lcp, 1, one, q );
    double s[1] = { 1.0 };
    lcp->problem.softness = s;
    double lambda[1] = { 0.0 };
    cnSolverStats stats = cntBbSolve( &lcp->problem, lambda, NULL, 100, 1e-12, -1.0 );
    ck_assert_int_eq( stats.status, cn_solveConverged );
    CNT_ASSERT_ABS( lambda[0], 0.5, 1e-12 );
    cntDestroyLcp( lcp );
}
END_TEST

// the box problem by brute force: every row at its lower bound (w >= 0), its upper bound (w <= 0)
// or free (w = 0, inside), 3^n cases; the definite problem has exactly one answer
static bool cntBbEnumerateBox( int n, const double* a, const double* b, const double* low, const double* high,
                               double* out )
{
    int cases = 1;
    for ( int i = 0; i < n; ++i )
    {
        cases *= 3;
    }
    for ( int code = 0; code < cases; ++code )
    {
        int state[CNT_BB_MAX];
        int c = code;
        bool possible = true;
        for ( int i = 0; i < n; ++i )
        {
            state[i] = c % 3; // 0 lower, 1 upper, 2 free
            c /= 3;
            possible = possible && !( state[i] == 0 && !isfinite( low[i] ) ) &&
                       !( state[i] == 1 && !isfinite( high[i] ) );
        }
        if ( !possible )
        {
            continue;
        }
        // fixed rows at their bound, free rows from A_FF x_F = -(b_F + A_FB x_B)
        double x[CNT_BB_MAX];
        int free[CNT_BB_MAX];
        int k = 0;
        for ( int i = 0; i < n; ++i )
        {
            x[i] = state[i] == 0 ? low[i] : ( state[i] == 1 ? high[i] : 0.0 );
            if ( state[i] == 2 )
            {
                free[k++] = i;
            }
        }
        double m[CNT_BB_MAX * CNT_BB_MAX];
        double r[CNT_BB_MAX];
        for ( int p = 0; p < k; ++p )
        {
            r[p] = -b[free[p]];
            for ( int j = 0; j < n; ++j )
            {
                r[p] -= state[j] != 2 ? a[free[p] * n + j] * x[j] : 0.0;
            }
            for ( int q = 0; q < k; ++q )
            {
                m[p * k + q] = a[free[p] * n + free[q]];
            }
        }
        if ( k > 0 && !cntBbSolveSmall( m, r, k, 1e-300 ) )
        {
            continue;
        }
        for ( int p = 0; p < k; ++p )
        {
            x[free[p]] = r[p];
        }
        bool ok = true;
        for ( int i = 0; i < n && ok; ++i )
        {
            double w = b[i];
            for ( int j = 0; j < n; ++j )
            {
                w += a[i * n + j] * x[j];
            }
            double slack = 1e-10;
            ok = state[i] == 0   ? w >= -slack
                 : state[i] == 1 ? w <= slack
                                 : x[i] >= low[i] - slack && x[i] <= high[i] + slack;
        }
        if ( ok )
        {
            memcpy( out, x, (size_t)n * sizeof( double ) );
            return true;
        }
    }
    return false;
}

// Bounded and bilateral rows (lower <= lambda <= upper, some bounds infinite, some rows normal)
// on random definite explicit problems of n <= 6, against the enumerated answer
START_TEST( bounded_rows_match_brute_force_enumeration )
{
    cntRandom random = { 4242u };
    int failures = 0;
    int problems = 0;
    long iterations = 0;
    double worst = 0.0;
    for ( int trial = 0; trial < 60; ++trial )
    {
        int n = 1 + (int)( cntUniform( &random ) * 6.0 );
        int m = n + 1;
        double bm[( CNT_BB_MAX + 1 ) * CNT_BB_MAX];
        for ( int k = 0; k < m * n; ++k )
        {
            bm[k] = cntRange( &random, -1.0, 1.0 );
        }
        double a[CNT_BB_MAX * CNT_BB_MAX];
        for ( int i = 0; i < n; ++i )
        {
            for ( int j = 0; j <= i; ++j )
            {
                double sum = 0.0;
                for ( int r = 0; r < m; ++r )
                {
                    sum += bm[r * n + i] * bm[r * n + j];
                }
                a[i * n + j] = a[j * n + i] = sum;
            }
        }
        double q[CNT_BB_MAX];
        for ( int i = 0; i < n; ++i )
        {
            q[i] = cntRange( &random, -2.0, 2.0 );
        }
        cntLcp* lcp = cntCreateLcp( CNT_BB_MAX, 0 );
        cntSetDense( lcp, n, a, q );
        double low[CNT_BB_MAX];
        double high[CNT_BB_MAX];
        for ( int i = 0; i < n; ++i )
        {
            int kind = (int)( cntUniform( &random ) * 4.0 );
            cnRowGroup* group = lcp->groups + i;
            if ( kind == 0 )
            {
                low[i] = 0.0; // a normal row
                high[i] = (double)INFINITY;
                continue;
            }
            group->kind = kind == 3 ? cn_groupBilateral : cn_groupBounded;
            low[i] = cntRange( &random, -1.0, 0.0 );
            high[i] = cntRange( &random, 0.0, 1.0 );
            if ( kind == 2 )
            {
                high[i] = (double)INFINITY;
            }
            if ( kind == 3 && cntUniform( &random ) < 0.5 )
            {
                low[i] = -(double)INFINITY; // a free joint row
                high[i] = (double)INFINITY;
            }
            lcp->lower[i] = low[i];
            lcp->upper[i] = high[i];
        }
        double expected[CNT_BB_MAX];
        ck_assert( cntBbEnumerateBox( n, a, q, low, high, expected ) );
        double lambda[CNT_BB_MAX];
        for ( int i = 0; i < n; ++i )
        {
            lambda[i] = cntRange( &random, -3.0, 3.0 ); // a guess outside the bounds is clamped
        }
        cnSolverStats stats = cntBbSolve( &lcp->problem, lambda, NULL, 100000, 1e-13, -1.0 );
        failures += stats.status != cn_solveConverged;
        iterations += stats.iterations;
        problems += 1;
        double size = fmax( 1.0, cntBbMaxAbs( expected, n ) );
        for ( int i = 0; i < n; ++i )
        {
            failures += lambda[i] < low[i] || lambda[i] > high[i];
            double d = fabs( lambda[i] - expected[i] ) / size;
            worst = fmax( worst, d );
            failures += d > 1e-6;
        }
        cntDestroyLcp( lcp );
    }
    printf( "bbpgd on %d box problems (n <= 6) vs enumeration: iterations mean %.1f, worst |dlambda| %.2g\n",
            problems, (double)iterations / problems, worst );
    ck_assert_int_eq( failures, 0 );
}
END_TEST

// Started from its own answer, or from Lemke's, bbpgd stops at once (0 or 1 iterations) and keeps it
START_TEST( warm_start_from_the_answer_converges_at_once )
{
    cntRandom random = { 99u };
    double softness[CNT_BB_MAX];
    int failures = 0;
    int most = 0;
    for ( int seed = 0; seed < 40; ++seed )
    {
        cntLcp* lcp = cntBbRandomProblem( &random, seed, seed % 3 != 0, false, softness, NULL, NULL );
        int n = lcp->problem.rowCount;
        double lambda[CNT_BB_MAX] = { 0 };
        cnSolverStats stats = cntBbSolve( &lcp->problem, lambda, NULL, 100000, 1e-10, -1.0 );
        failures += stats.status != cn_solveConverged;
        double answer[CNT_BB_MAX];
        memcpy( answer, lambda, sizeof( answer ) );
        stats = cntBbSolve( &lcp->problem, lambda, NULL, 100000, 1e-8, -1.0 );
        failures += stats.status != cn_solveConverged || stats.iterations > 1;
        most = stats.iterations > most ? stats.iterations : most;
        for ( int i = 0; i < n; ++i )
        {
            failures += fabs( lambda[i] - answer[i] ) > 1e-12 * fmax( 1.0, fabs( answer[i] ) );
        }

        double lemke[CNT_BB_MAX] = { 0 };
        cntSolve( cnFindSolver( "lemke" ), &lcp->problem, lemke, NULL, 1000, -1.0, -1.0 );
        stats = cntBbSolve( &lcp->problem, lemke, NULL, 100000, 1e-8, -1.0 );
        failures += stats.status != cn_solveConverged || stats.iterations > 1;
        most = stats.iterations > most ? stats.iterations : most;
        cntDestroyLcp( lcp );
    }
    printf( "bbpgd warm started from an answer: at most %d iterations\n", most );
    ck_assert_int_eq( failures, 0 );
}
END_TEST

// NaN in b: nonfinite with a reason and lambda untouched; NaN in W: nonfinite or unsupported; a
// NaN guess starts from 0; a zero diagonal: unsupported, lambda untouched, a reason
START_TEST( nan_and_zero_diagonal_are_reported )
{
    cntLcp* lcp = cntCreateLcp( 4, 1 );
    int body = cntAddBody( lcp, 2.0, 1.0, 1.0, 1.0, 0.0, 0.0, -1.0 );
    double r1[3] = { 0.5, 0.0, -0.5 };
    double r2[3] = { -0.5, 0.0, -0.5 };
    cntAddContact( lcp, -1, body, s_zero3, r1, s_up, NULL, NULL, 0.0, false );
    cntAddContact( lcp, -1, body, s_zero3, r2, s_up, NULL, NULL, 0.0, false );
    cntFinishB( lcp );
    double lambda[2] = { 0.25, 0.5 };
    lcp->b[1] = (double)NAN;
    cnSolverStats stats = cntBbSolve( &lcp->problem, lambda, NULL, 100, 1e-8, -1.0 );
    ck_assert_int_eq( stats.status, cn_solveNonFinite );
    ck_assert_ptr_nonnull( stats.reason );
    ck_assert( lambda[0] == 0.25 && lambda[1] == 0.5 );
    ck_assert( cnSolveStatusIsUsable( stats.status, cntBbpgd()->caps ) == false );
    cntFinishB( lcp );

    lcp->wLinear[4] = (double)NAN;
    stats = cntBbSolve( &lcp->problem, lambda, NULL, 100, 1e-8, -1.0 );
    ck_assert( stats.status == cn_solveNonFinite || stats.status == cn_solveUnsupported );
    ck_assert_ptr_nonnull( stats.reason );
    ck_assert( lambda[0] == 0.25 && lambda[1] == 0.5 );
    lcp->wLinear[4] = 0.5;

    lambda[0] = (double)NAN;
    lambda[1] = (double)INFINITY;
    double dv[6] = { 0 };
    stats = cntBbSolve( &lcp->problem, lambda, dv, 1000, 1e-10, -1.0 );
    ck_assert_int_eq( stats.status, cn_solveConverged );
    CNT_ASSERT_ABS( dv[2], 1.0, 1e-9 ); // the body stops
    cntDestroyLcp( lcp );

    lcp = cntCreateLcp( 2, 0 );
    static const double m[4] = { 0, 1, 1, 1 };
    static const double q[2] = { -1, -1 };
    cntSetDense( lcp, 2, m, q );
    double guess[2] = { 7, 8 };
    stats = cntBbSolve( &lcp->problem, guess, NULL, 100, 1e-8, -1.0 );
    ck_assert_int_eq( stats.status, cn_solveUnsupported );
    ck_assert_ptr_nonnull( stats.reason );
    ck_assert_int_eq( stats.iterations, 0 );
    ck_assert( guess[0] == 7 && guess[1] == 8 );
    cntDestroyLcp( lcp );
}
END_TEST

// Friction rows are refused by the layer (unsupported, lambda untouched); in a world the contacts
// are solved frictionless and every step says friction_dropped
START_TEST( friction_is_refused_and_dropped_in_a_world )
{
    const cnSolverVTable* solver = cntBbpgd();
    ck_assert( ( solver->caps & cn_solverFriction ) == 0 );
    ck_assert( ( solver->caps & cn_solverCone ) == 0 );
    cntLcp* lcp = cntCreateStack( 2, 0.1, 0.5 );
    double lambda[24];
    for ( int i = 0; i < 24; ++i )
    {
        lambda[i] = 0.125;
    }
    double dv[12];
    cnSolverStats stats = cntSolve( solver, &lcp->problem, lambda, dv, 100, 1e-8, -1.0 );
    ck_assert_int_eq( stats.status, cn_solveUnsupported );
    ck_assert_ptr_nonnull( stats.reason );
    ck_assert_ptr_nonnull( strstr( stats.reason, "friction" ) );
    for ( int i = 0; i < 24; ++i )
    {
        ck_assert( lambda[i] == 0.125 );
    }
    cntDestroyLcp( lcp );

    // a box resting on the ground with friction 0.6, stepped with bbpgd
    cntLogCapture capture = { 0 };
    cnWorldDef def = cntWorldDef( &capture, NULL );
    cnWorldId world = cnCreateWorld( &def );
    ck_assert_int_eq( cnWorld_SetSolver( world, "bbpgd" ), cn_statusOk );
    ck_assert_int_ge( capture.warningCount, 1 );
    ck_assert_ptr_nonnull( strstr( capture.lastMessage, "friction" ) );
    ck_assert_int_eq( cnWorld_SetSolverParam( world, "iterations", 200 ), cn_statusOk );
    cnBodyDef groundDef = cnDefaultBodyDef();
    groundDef.type = cn_staticBody;
    cnBodyId ground = cnCreateBody( world, &groundDef );
    cnShapeDef shapeDef = cnDefaultShapeDef();
    cnPlane plane = { { 0.0, 0.0, 1.0 }, 0.0 };
    cnCreatePlaneShape( ground, &shapeDef, &plane );
    cnBodyDef boxDef = cnDefaultBodyDef();
    boxDef.position = cnMakeVec3( 0.0, 0.0, 0.5 );
    cnBodyId box = cnCreateBody( world, &boxDef );
    cnBox geometry = { { 0.5, 0.5, 0.5 } };
    cnCreateBoxShape( box, &shapeDef, &geometry );
    int failures = 0;
    for ( int step = 0; step < 60; ++step )
    {
        ck_assert_int_eq( cnWorld_Step( world, 1.0 / 60.0 ), cn_statusOk );
        cnStepReport report = cnWorld_GetStepReport( world );
        failures += ( report.warnings & cn_warnFrictionDropped ) == 0;
        failures += report.solverFrictionless == false;
        failures += !cnSolveStatusIsUsable( (cnSolveStatus)report.solverStatus, solver->caps );
    }
    ck_assert_int_eq( failures, 0 );
    ck_assert( fabs( cnBody_GetPosition( box ).z - 0.5 ) < 0.01 );
    cnDestroyWorld( world );
}
END_TEST

// A semi-definite problem whose b pushes along a null direction of A that the bounds never stop
// has no solution: f = 1/2 l^T A l + b^T l falls without end. Two rows, A = [1 -1; -1 1],
// b = (-1, -1) (the direction (1, 1)); and a body squeezed between the ground and a static
// ceiling, both contacts penetrating (b < 0 on both). bbpgd must not call the far end of the ray
// converged (its merit, relative to |lambda|, falls along it): no_solution with a reason and the
// start put back, at any tolerance. With softness the problem is definite and converges.
START_TEST( unbounded_problems_end_without_a_solution )
{
    const cnSolverVTable* solver = cntBbpgd();
    static const double tolerances[4] = { 1e-6, 1e-2, 1e-12, 0.0 };
    int failures = 0;
    for ( int t = 0; t < 4; ++t )
    {
        cntLcp* lcp = cntCreateLcp( 2, 1 );
        static const double m[4] = { 1, -1, -1, 1 };
        static const double q[2] = { -1, -1 };
        cntSetDense( lcp, 2, m, q );
        double lambda[2] = { 0.5, 0.0 };
        cnSolverStats stats = cntBbSolve( &lcp->problem, lambda, NULL, 10000, tolerances[t], -1.0 );
        bool ok = ( stats.status == cn_solveNoSolution || stats.status == cn_solveDiverged ) &&
                  stats.reason != NULL && lambda[0] == 0.5 && lambda[1] == 0.0 &&
                  !cnSolveStatusIsUsable( stats.status, solver->caps );
        printf( "bbpgd on the explicit ray, tolerance %g: %s after %d iterations\n", tolerances[t],
                cnSolveStatusName( stats.status ), stats.iterations );
        failures += !ok;
        cntDestroyLcp( lcp );

        // the squeezed body: rows +z from the ground below and -z from a ceiling above, each
        // asking for 0.1 m/s of push-out
        lcp = cntCreateLcp( 2, 1 );
        int body = cntAddBody( lcp, 3.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0 );
        double below[3] = { 0, 0, -0.5 };
        double above[3] = { 0, 0, 0.5 };
        cntAddContact( lcp, -1, body, s_zero3, below, s_up, NULL, NULL, 0.0, false );
        cntAddContact( lcp, -1, body, s_zero3, above, s_down, NULL, NULL, 0.0, false );
        lcp->b[0] = -0.1;
        lcp->b[1] = -0.1;
        double pair[2] = { 0.0, 0.0 };
        double dv[6] = { 0 };
        stats = cntBbSolve( &lcp->problem, pair, dv, 10000, tolerances[t], -1.0 );
        ok = ( stats.status == cn_solveNoSolution || stats.status == cn_solveDiverged ) &&
             stats.reason != NULL && pair[0] == 0.0 && pair[1] == 0.0;
        printf( "bbpgd on the squeezed body, tolerance %g: %s after %d iterations\n", tolerances[t],
                cnSolveStatusName( stats.status ), stats.iterations );
        failures += !ok;

        // soft contacts make it definite: lambda = 0.1 / softness each
        double softness[2] = { 0.5, 0.5 };
        lcp->problem.softness = softness;
        stats =
            cntBbSolve( &lcp->problem, pair, dv, 10000, tolerances[t] > 0.0 ? tolerances[t] : 1e-12, -1.0 );
        failures += !cnSolveStatusIsUsable( stats.status, solver->caps );
        failures += fabs( pair[0] - 0.2 ) > 0.2 * fmax( tolerances[t], 1e-9 ) * 10.0;
        cntDestroyLcp( lcp );
    }
    ck_assert_int_eq( failures, 0 );

    // a non-symmetric matrix whose LCP has no solution (M = [1 -2; -3 1], q = (-1, -1)): not usable
    cntLcp* lcp = cntCreateLcp( 2, 0 );
    static const double m[4] = { 1, -2, -3, 1 };
    static const double q[2] = { -1, -1 };
    cntSetDense( lcp, 2, m, q );
    double lambda[2] = { 0, 0 };
    cnSolverStats stats = cntBbSolve( &lcp->problem, lambda, NULL, 10000, 1e-6, -1.0 );
    printf( "bbpgd on a non-symmetric problem without a solution: %s after %d iterations\n",
            cnSolveStatusName( stats.status ), stats.iterations );
    ck_assert( !cnSolveStatusIsUsable( stats.status, solver->caps ) );
    ck_assert( lambda[0] == 0.0 && lambda[1] == 0.0 );
    cntDestroyLcp( lcp );
}
END_TEST

// A heavy box (1e6 kg) on a light one (1 kg) on the ground, frictionless: a legitimate problem
// whose answer is a million times the free impulses along a nearly null direction of A; the ray
// test must not mistake it for one
START_TEST( a_large_mass_ratio_is_not_a_ray )
{
    cntLcp* lcp = cntCreateLcp( 2, 2 );
    int light = cntAddBody( lcp, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, -0.1635 );
    int heavy = cntAddBody( lcp, 1e6, 0.0, 0.0, 0.0, 0.0, 0.0, -0.1635 );
    double down[3] = { 0, 0, -0.5 };
    double up[3] = { 0, 0, 0.5 };
    cntAddContact( lcp, -1, light, s_zero3, down, s_up, NULL, NULL, 0.0, false );
    cntAddContact( lcp, light, heavy, up, down, s_up, NULL, NULL, 0.0, false );
    cntFinishB( lcp );
    double lambda[2] = { 0, 0 };
    double dv[12] = { 0 };
    cnSolverStats stats = cntBbSolve( &lcp->problem, lambda, dv, 10000, 1e-10, -1.0 );
    ck_assert_msg( stats.status == cn_solveConverged, "%s", cnSolveStatusName( stats.status ) );
    CNT_ASSERT_REL( lambda[1], 1e6 * 0.1635, 1e-8 );
    CNT_ASSERT_REL( lambda[0], ( 1e6 + 1.0 ) * 0.1635, 1e-8 );
    cntDestroyLcp( lcp );
}
END_TEST

// The residual history: the start and one merit per iteration, the last the graded one; the own
// measure is the projected gradient in the problem's units (scaling b scales it); a one-iteration
// budget ends max_iterations; a tolerance of 0 runs to a stall or the budget, usable
START_TEST( history_budget_and_own_measure )
{
    cntLcp* lcp = cntCreateLcp( 3, 0 );
    static const double m[9] = { 4, 1, 0, 1, 3, 1, 0, 1, 2 };
    static const double q[3] = { -1, -2, -1 };
    cntSetDense( lcp, 3, m, q );
    double lambda[3] = { 0, 0, 0 };
    cnSolverMerits merits;
    ck_assert( cnComputeSolverMerits( &lcp->problem, lambda, NULL, &merits ) );
    double history[256];
    cnSolverStats stats =
        cntSolveWithHistory( cntBbpgd(), &lcp->problem, lambda, NULL, 200, 1e-12, -1.0, history, 256 );
    ck_assert_int_eq( stats.status, cn_solveConverged );
    ck_assert_int_gt( stats.iterations, 2 );
    ck_assert_int_eq( stats.historyCount, stats.iterations + 1 );
    ck_assert( history[0] == merits.naturalMap );
    ck_assert( history[stats.historyCount - 1] == stats.residual );
    ck_assert( stats.ownMeasure >= 0.0 && stats.ownMeasure < 1e-9 );

    double first[3] = { 0, 0, 0 };
    stats = cntBbSolve( &lcp->problem, first, NULL, 1, 1e-12, -1.0 );
    ck_assert_int_eq( stats.status, cn_solveMaxIterations );
    ck_assert_int_eq( stats.iterations, 1 );
    // the first step is 1 / |g|_inf = 1/2 along -g = (1, 2, 1)
    CNT_ASSERT_ABS( first[0], 0.5, 1e-15 );
    CNT_ASSERT_ABS( first[1], 1.0, 1e-15 );
    CNT_ASSERT_ABS( first[2], 0.5, 1e-15 );
    // own measure at (0.5, 1, 0.5), every row off its bound: |w|_inf = |(2, 2, 1)|_inf = 2
    CNT_ASSERT_ABS( stats.ownMeasure, 2.0, 1e-15 );
    // in the units of w: A and b a thousand times larger give the same first step and 2000
    for ( int k = 0; k < lcp->rowStart[3]; ++k )
    {
        lcp->value[k] *= 1000.0;
    }
    for ( int i = 0; i < 3; ++i )
    {
        lcp->b[i] *= 1000.0;
    }
    double again[3] = { 0, 0, 0 };
    stats = cntBbSolve( &lcp->problem, again, NULL, 1, 1e-12, -1.0 );
    CNT_ASSERT_REL( stats.ownMeasure, 2000.0, 1e-12 );
    CNT_ASSERT_ABS( again[1], 1.0, 1e-15 );
    cntSetDense( lcp, 3, m, q );

    double exact[3] = { 0, 0, 0 };
    stats = cntBbSolve( &lcp->problem, exact, NULL, 10000, 0.0, -1.0 );
    ck_assert( cnSolveStatusIsUsable( stats.status, cntBbpgd()->caps ) );
    ck_assert_int_lt( stats.iterations, 10000 );
    ck_assert( stats.residual < 1e-14 );

    // gradient_tolerance: SimToolbox's rule stops earlier than a tight merit tolerance
    double loose[3] = { 0, 0, 0 };
    cnSolverStats byGradient = cntBbSolve( &lcp->problem, loose, NULL, 10000, 1e-15, 1e-3 );
    ck_assert_int_eq( byGradient.status, cn_solveConverged );
    ck_assert( byGradient.ownMeasure <= 1e-3 );
    ck_assert_int_lt( byGradient.iterations, stats.iterations );
    cntDestroyLcp( lcp );
}
END_TEST

// The table: its own parameters, the world's names, the caps of a frictionless LCP and box solver
START_TEST( vtable_describes_itself )
{
    const cnSolverVTable* solver = cntBbpgd();
    ck_assert_uint_eq( solver->caps,
                       cn_solverBounded | cn_solverBilateral | cn_solverExplicit | cn_solverMatrixFree );
    ck_assert_int_eq( solver->model, cn_modelPyramid );
    ck_assert_str_eq( solver->iterationUnit, "iteration" );
    ck_assert_int_eq( solver->apiVersion, CN_SOLVER_API_VERSION );
    static const char* const names[] = { "iterations", "tolerance", "deadline_ms", "warm_start",
                                         "gradient_tolerance" };
    for ( int k = 0; k < 5; ++k )
    {
        int index = cnFindSolverParam( solver, names[k] );
        ck_assert_int_ge( index, 0 );
        const cnSolverParam* param = solver->params + index;
        ck_assert( cnCheckSolverParam( param, param->defaultValue, NULL, 0 ) == cn_statusOk );
    }
    ck_assert( solver->params[cnFindSolverParam( solver, "iterations" )].defaultValue == 10000.0 );
    ck_assert( solver->params[cnFindSolverParam( solver, "tolerance" )].defaultValue == 1e-6 );
    ck_assert( solver->params[cnFindSolverParam( solver, "warm_start" )].defaultValue == 1.0 );
    ck_assert_int_eq( solver->params[cnFindSolverParam( solver, "warm_start" )].type, cn_paramToggle );
}
END_TEST

// A deadline of a microsecond stops a long solve early (a chain of 200 rows, tridiagonal A with
// condition number about 1e4, tolerance 0), usable
START_TEST( a_deadline_stops_the_solve )
{
    enum
    {
        count = 200
    };
    cntLcp* lcp = cntCreateLcp( count, 0 );
    double* a = calloc( (size_t)count * count, sizeof( double ) );
    double q[count];
    cntRandom random = { 5u };
    for ( int i = 0; i < count; ++i )
    {
        a[i * count + i] = 2.0005;
        if ( i + 1 < count )
        {
            a[i * count + i + 1] = a[( i + 1 ) * count + i] = -1.0;
        }
        q[i] = cntRange( &random, -1.0, 1.0 );
    }
    cntSetDense( lcp, count, a, q );
    free( a );
    const cnSolverVTable* solver = cntBbpgd();
    double params[CN_MAX_SOLVER_PARAMS];
    for ( int k = 0; k < solver->paramCount; ++k )
    {
        params[k] = solver->params[k].defaultValue;
    }
    params[cntParamIndex( solver, "iterations" )] = 10000000;
    params[cntParamIndex( solver, "tolerance" )] = 0.0;
    params[cntParamIndex( solver, "deadline_ms" )] = 0.001;
    double lambda[count];
    memset( lambda, 0, sizeof( lambda ) );
    cnSolverStats stats = cntSolveWithParams( solver, &lcp->problem, lambda, NULL, params, NULL, 0 );
    ck_assert_msg( stats.status == cn_solveDeadline, "%s", cnSolveStatusName( stats.status ) );
    ck_assert_int_ge( stats.iterations, 1 );
    ck_assert_int_lt( stats.iterations, 10000000 );
    ck_assert( cnSolveStatusIsUsable( stats.status, solver->caps ) );
    cntDestroyLcp( lcp );
}
END_TEST

Suite* cntBbpgdSuite( void )
{
    Suite* suite = suite_create( "bbpgd" );
    TCase* tc = tcase_create( "solver" );
    tcase_set_timeout( tc, 60 );
    tcase_add_test( tc, vtable_describes_itself );
    tcase_add_test( tc, random_problems_agree_with_lemke );
    tcase_add_test( tc, random_semidefinite_problems_with_and_without_a_solution );
    tcase_add_test( tc, softness_is_honoured );
    tcase_add_test( tc, bounded_rows_match_brute_force_enumeration );
    tcase_add_test( tc, warm_start_from_the_answer_converges_at_once );
    tcase_add_test( tc, nan_and_zero_diagonal_are_reported );
    tcase_add_test( tc, friction_is_refused_and_dropped_in_a_world );
    tcase_add_test( tc, unbounded_problems_end_without_a_solution );
    tcase_add_test( tc, a_large_mass_ratio_is_not_a_ray );
    tcase_add_test( tc, history_budget_and_own_measure );
    tcase_add_test( tc, a_deadline_stops_the_solve );
    suite_add_tcase( suite, tc );
    return suite;
}
