// SPDX-License-Identifier: MIT
// lcp_common: row products, bounds, the merit functions, the stopping rules, the matrix builders.
#include "arena.h"
#include "lcp_common.h"
#include "solvers_suites.h"
#include "test_support.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static cnArena s_arena;

static void setup( void )
{
    cnCreateArena( &s_arena, NULL, 4096 );
}

static void teardown( void )
{
    cnDestroyArena( &s_arena );
}

static unsigned s_seed = 12345u;

static double cntSignedRandom( void )
{
    s_seed = s_seed * 1664525u + 1013904223u;
    return (double)( s_seed >> 8 ) / (double)( 1u << 24 ) * 2.0 - 1.0;
}

// 4 bodies with full symmetric positive definite W blocks (B B^T + I/2), 14 rows between random
// pairs (static ground included, one row acting twice on the same body), random Jacobians, b.
static cntLcp* cntCreateRandomProblem( void )
{
    cntLcp* lcp = cntCreateLcp( 16, 4 );
    for ( int body = 0; body < 4; ++body )
    {
        cntAddBody( lcp, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0 );
        double blocks[2][9];
        for ( int s = 0; s < 2; ++s )
        {
            double m[9];
            for ( int k = 0; k < 9; ++k )
            {
                m[k] = cntSignedRandom();
            }
            for ( int r = 0; r < 3; ++r )
            {
                for ( int c = 0; c < 3; ++c )
                {
                    blocks[s][3 * r + c] = m[3 * r] * m[3 * c] + m[3 * r + 1] * m[3 * c + 1] +
                                           m[3 * r + 2] * m[3 * c + 2] + ( r == c ? 0.5 : 0.0 );
                }
            }
        }
        cntSetBodyW( lcp, body, blocks[0], blocks[1] );
    }
    static const int pairs[14][2] = { { -1, 0 }, { 0, 1 }, { 1, 2 },  { -1, 2 }, { 2, 3 },
                                      { 3, -1 }, { 0, 1 }, { 1, 1 },  { -1, 3 }, { 0, 2 },
                                      { -1, 1 }, { 3, 0 }, { 2, -1 }, { 1, 3 } };
    for ( int i = 0; i < 14; ++i )
    {
        double ja[6];
        double jb[6];
        for ( int k = 0; k < 6; ++k )
        {
            ja[k] = cntSignedRandom();
            jb[k] = cntSignedRandom();
        }
        int row = cntAddRow( lcp, cn_rowNormal, pairs[i][0], pairs[i][1], ja, jb );
        lcp->b[row] = cntSignedRandom();
    }
    return lcp;
}

// A e_j through the velocity, column by column, into `out` (row major)
static void cntMatrixByProducts( const cnSolverProblem* problem, double* out )
{
    int n = problem->rowCount;
    double* lambda = calloc( (size_t)n, sizeof( double ) );
    double* velocity = calloc( 6 * (size_t)problem->bodyCount + 1, sizeof( double ) );
    for ( int j = 0; j < n; ++j )
    {
        memset( lambda, 0, (size_t)n * sizeof( double ) );
        lambda[j] = 1.0;
        cnComputeVelocity( problem, lambda, velocity );
        for ( int i = 0; i < n; ++i )
        {
            out[i * n + j] = cnRowValue( problem, velocity, lambda, i ) - problem->b[i];
        }
    }
    free( lambda );
    free( velocity );
}

START_TEST( dense_builder_matches_products_through_j_and_w )
{
    cntLcp* lcp = cntCreateRandomProblem();
    const cnSolverProblem* p = &lcp->problem;
    int n = p->rowCount;
    double* dense = cnBuildDenseMatrix( p, &s_arena );
    ck_assert_ptr_nonnull( dense );
    double byProducts[16 * 16];
    cntMatrixByProducts( p, byProducts );
    double diagonal[16];
    cnComputeDiagonal( p, diagonal );

    int failures = 0;
    double worst = 0.0;
    for ( int i = 0; i < n; ++i )
    {
        for ( int j = 0; j < n; ++j )
        {
            double scale = fmax( 1.0, fabs( byProducts[i * n + j] ) );
            double error = fabs( dense[i * n + j] - byProducts[i * n + j] ) / scale;
            worst = fmax( worst, error );
            failures += error > 1e-12;
            // symmetric (W blocks are)
            failures += fabs( dense[i * n + j] - dense[j * n + i] ) > 1e-12 * scale;
        }
        failures += fabs( diagonal[i] - dense[i * n + i] ) > 1e-12 * fmax( 1.0, fabs( diagonal[i] ) );
        failures += !( diagonal[i] > 0.0 );
    }
    // rows 2 (bodies 1, 2) and 5 (3, ground) share no body: the entry is exactly zero
    failures += dense[2 * n + 5] != 0.0;
    ck_assert_msg( failures == 0, "%d mismatches, worst relative error %g", failures, worst );
    cntDestroyLcp( lcp );
}
END_TEST

static int cntCheckSubmatrix( const cnSparseMatrix* sparse, const double* dense, int n, const int* rows,
                              int count )
{
    int failures = 0;
    failures += sparse->rows != count || sparse->columns != count;
    for ( int a = 0; a < count; ++a )
    {
        double expanded[16] = { 0 };
        for ( int k = sparse->rowStart[a]; k < sparse->rowStart[a + 1]; ++k )
        {
            failures += k > sparse->rowStart[a] && sparse->column[k] <= sparse->column[k - 1];
            failures += sparse->column[k] < 0 || sparse->column[k] >= count;
            expanded[sparse->column[k]] = sparse->value[k];
        }
        for ( int c = 0; c < count; ++c )
        {
            double expected = dense[rows[a] * n + rows[c]];
            failures += fabs( expanded[c] - expected ) > 1e-12 * fmax( 1.0, fabs( expected ) );
        }
    }
    return failures;
}

START_TEST( sparse_builder_on_subset_equals_dense_submatrix )
{
    cntLcp* lcp = cntCreateRandomProblem();
    const cnSolverProblem* p = &lcp->problem;
    int n = p->rowCount;
    double* dense = cnBuildDenseMatrix( p, &s_arena );
    ck_assert_ptr_nonnull( dense );

    int failures = 0;
    static const int subset[6] = { 1, 2, 5, 7, 9, 13 };
    cnSparseMatrix sparse;
    ck_assert( cnBuildSparseMatrix( p, subset, 6, &s_arena, &sparse ) );
    failures += cntCheckSubmatrix( &sparse, dense, n, subset, 6 );
    // only pairs sharing a body are stored: rows 2 (1,2) and 5 (3,-) do not
    int nonzeros = sparse.rowStart[6];

    int all[16];
    for ( int k = 0; k < n; ++k )
    {
        all[k] = k;
    }
    cnSparseMatrix full;
    ck_assert( cnBuildSparseMatrix( p, NULL, 0, &s_arena, &full ) );
    failures += cntCheckSubmatrix( &full, dense, n, all, n );

    // the explicit path: the dense A as an explicit problem, then the same subset
    cntLcp* explicitLcp = cntCreateLcp( 16, 0 );
    cntSetDense( explicitLcp, n, dense, p->b );
    cnSparseMatrix fromExplicit;
    ck_assert( cnBuildSparseMatrix( &explicitLcp->problem, subset, 6, &s_arena, &fromExplicit ) );
    failures += cntCheckSubmatrix( &fromExplicit, dense, n, subset, 6 );
    double* denseAgain = cnBuildDenseMatrix( &explicitLcp->problem, &s_arena );
    ck_assert_ptr_nonnull( denseAgain );
    for ( int k = 0; k < n * n; ++k )
    {
        failures += denseAgain[k] != dense[k];
    }

    // not increasing, out of range: refused
    static const int unordered[2] = { 3, 1 };
    static const int outside[2] = { 1, 14 };
    failures += cnBuildSparseMatrix( p, unordered, 2, &s_arena, &sparse );
    failures += cnBuildSparseMatrix( p, outside, 2, &s_arena, &sparse );

    ck_assert_msg( failures == 0, "%d mismatches", failures );
    ck_assert_int_lt( nonzeros, 36 );
    cntDestroyLcp( explicitLcp );
    cntDestroyLcp( lcp );
}
END_TEST

START_TEST( row_bounds_follow_the_current_normal_impulse )
{
    cntLcp* lcp = cntCreateLcp( 4, 1 );
    int body = cntAddBody( lcp, 1.0, 1.0, 1.0, 1.0, 0, 0, 0 );
    static const double r[3] = { 0, 0, 0 };
    static const double n[3] = { 0, 0, 1 };
    static const double t1[3] = { 1, 0, 0 };
    static const double t2[3] = { 0, 1, 0 };
    cntAddContact( lcp, -1, body, r, r, n, t1, t2, 0.5, true );
    static const double jacobian[6] = { 1, 0, 0, 0, 0, 0 };
    int bounded = cntAddRow( lcp, cn_rowBounded, -1, body, NULL, jacobian );
    lcp->lower[bounded] = -2.0;
    lcp->upper[bounded] = 3.0;
    const cnSolverProblem* p = &lcp->problem;

    double lambda[4] = { 4.0, 0.0, 0.0, 0.0 };
    double low, high;
    cnRowBounds( p, lambda, 0, &low, &high );
    ck_assert( low == 0.0 && isinf( high ) && high > 0.0 );
    cnRowBounds( p, lambda, 1, &low, &high );
    ck_assert( low == -2.0 && high == 2.0 );
    lambda[0] = -1.0; // a bad guess allows no friction
    cnRowBounds( p, lambda, 2, &low, &high );
    ck_assert( low == 0.0 && high == 0.0 );
    cnRowBounds( p, lambda, 3, &low, &high );
    ck_assert( low == -2.0 && high == 3.0 );
    cntDestroyLcp( lcp );
}
END_TEST

// 0 <= z _|_ M z + q >= 0 with M = [2 1; 1 2], q = [-1, 1]: z = (1/2, 0), w = (0, 3/2)
START_TEST( residual_is_zero_at_an_exact_solution_and_positive_elsewhere )
{
    cntLcp* lcp = cntCreateLcp( 2, 0 );
    static const double m[4] = { 2, 1, 1, 2 };
    static const double q[2] = { -1, 1 };
    cntSetDense( lcp, 2, m, q );
    const cnSolverProblem* p = &lcp->problem;

    double exact[2] = { 0.5, 0.0 };
    ck_assert( cnSolverResidual( p, exact, NULL ) == 0.0 );
    ck_assert( cnSolverResidual( p, exact, &s_arena ) == 0.0 );
    double zero[2] = { 0.0, 0.0 };
    // w = q: row 0 gives 0 - max(0, 1) = -1, row 1 gives 0
    CNT_ASSERT_REL( cnSolverResidual( p, zero, NULL ), 1.0, 1e-15 );
    double off[2] = { 0.5, 0.25 };
    ck_assert( cnSolverResidual( p, off, &s_arena ) > 0.0 );

    double bad[2] = { (double)NAN, 0.0 };
    ck_assert( isnan( cnSolverResidual( p, bad, NULL ) ) );
    lcp->b[1] = (double)NAN;
    ck_assert( isnan( cnSolverResidual( p, exact, &s_arena ) ) );
    lcp->b[1] = 1.0;
    lcp->value[0] = (double)NAN;
    ck_assert( isnan( cnSolverResidual( p, exact, NULL ) ) );
    lcp->value[0] = 2.0;

    // no rows: zero, whatever lambda is
    cnSolverProblem empty = { 0 };
    ck_assert( cnSolverResidual( &empty, NULL, NULL ) == 0.0 );
    // broken problems: NaN, never a crash
    ck_assert( isnan( cnSolverResidual( NULL, exact, NULL ) ) );
    cnSolverProblem broken = *p;
    broken.b = NULL;
    ck_assert( isnan( cnSolverResidual( &broken, exact, NULL ) ) );
    cnSparseMatrix wrongSize = lcp->matrix;
    wrongSize.rows = 3;
    broken = *p;
    broken.matrix = &wrongSize;
    ck_assert( isnan( cnSolverResidual( &broken, exact, &s_arena ) ) );
    cntDestroyLcp( lcp );
}
END_TEST

// A sliding body (infinite inertia, mass 1) on static ground, falling at 1, sliding at 3 along x,
// mu 0.5: lambda = (1, -0.5, 0) solves both the pyramid and the cone problem; a NaN mu, lambda or
// friction row is reported as NaN
START_TEST( friction_residuals_at_the_sliding_solution )
{
    cntLcp* lcp = cntCreateLcp( 3, 1 );
    int body = cntAddBody( lcp, 1.0, 0.0, 0.0, 0.0, 3.0, 0.0, -1.0 );
    static const double r[3] = { 0, 0, 0 };
    static const double n[3] = { 0, 0, 1 };
    static const double t1[3] = { 1, 0, 0 };
    static const double t2[3] = { 0, 1, 0 };
    cntAddContact( lcp, -1, body, r, r, n, t1, t2, 0.5, true );
    cntFinishB( lcp );
    const cnSolverProblem* p = &lcp->problem;
    double velocity[6];
    double w[3];

    double solution[3] = { 1.0, -0.5, 0.0 };
    ck_assert( cnNaturalResidual( p, solution, velocity, w ) == 0.0 );
    ck_assert( cnConeResidual( p, solution, velocity, w ) == 0.0 );
    double sticking[3] = { 1.0, -3.0, 0.0 };
    ck_assert( cnNaturalResidual( p, sticking, velocity, w ) > 0.1 );
    ck_assert( cnConeResidual( p, sticking, velocity, w ) > 0.1 );
    double zero[3] = { 0.0, 0.0, 0.0 };
    ck_assert( cnConeResidual( p, zero, velocity, w ) > 0.5 );
    // the pyramid and the cone differ off the axes: sliding along (1, 1) at the pyramid's corner
    lcp->freeVelocity[1] = 3.0;
    cntFinishB( lcp );
    double corner[3] = { 1.0, -0.5, -0.5 };
    ck_assert( cnNaturalResidual( p, corner, velocity, w ) == 0.0 );
    ck_assert( cnConeResidual( p, corner, velocity, w ) > 0.1 );
    double onCone[3] = { 1.0, -0.5 / sqrt( 2.0 ), -0.5 / sqrt( 2.0 ) };
    ck_assert( cnConeResidual( p, onCone, velocity, w ) < 1e-14 );

    solution[0] = (double)NAN;
    ck_assert( isnan( cnConeResidual( p, solution, velocity, w ) ) );
    ck_assert( isnan( cnNaturalResidual( p, solution, velocity, w ) ) );
    solution[0] = 1.0;
    lcp->mu[1] = (double)NAN;
    ck_assert( isnan( cnSolverResidual( p, solution, NULL ) ) );
    cntDestroyLcp( lcp );
}
END_TEST

START_TEST( stop_rules )
{
    cnStopRules rules = { 1e-6, 0.0, 0.0, 1e6 };
    int failures = 0;
    failures += cnCheckStop( &rules, 1e-7, 1.0, 1.0, 1.0 ) != cn_stopConverged;
    failures += cnCheckStop( &rules, 1e-3, 1e-3, 1.0, 0.0 ) != cn_continue;
    failures += cnCheckStop( &rules, 2e6, 1.0, 1.0, 1.0 ) != cn_stopDiverged;
    failures += cnCheckStop( &rules, (double)NAN, 1.0, 1.0, 1.0 ) != cn_stopNonFinite;
    failures += cnCheckStop( &rules, (double)INFINITY, 1.0, 1.0, 1.0 ) != cn_stopNonFinite;
    rules.relativeTolerance = 1e-3;
    failures += cnCheckStop( &rules, 0.9999, 1.0, 1.0, 1.0 ) != cn_stopConverged;
    failures += cnCheckStop( &rules, 0.9, 1.0, 1.0, 1.0 ) != cn_continue;
    // no previous residual yet
    failures += cnCheckStop( &rules, 0.9, (double)INFINITY, 1.0, 1.0 ) != cn_continue;
    rules.stagnationTolerance = 1e-10;
    failures += cnCheckStop( &rules, 0.5, 1.0, 1.0, 1e-11 ) != cn_stopConverged;
    failures += cnCheckStop( &rules, 0.5, 1.0, 1.0, 1e-9 ) != cn_continue;
    rules.divergenceFactor = 0.0; // off
    failures += cnCheckStop( &rules, 1e300, 1.0, 1.0, 1.0 ) != cn_continue;
    ck_assert_int_eq( failures, 0 );
}
END_TEST

START_TEST( parameter_values_are_clamped_with_defaults_for_nan )
{
    static const cnSolverParam table[] = CN_SWEEP_PARAM_TABLE( 1.4 );
    double params[cn_sweepParamCount] = { 1e9, -1.0, 1.0, (double)NAN, 0.0, 0.0, 1e6 };
    ck_assert( cnSolverParamValue( table, cn_sweepParamCount, params, cn_sweepParamIterations ) == 100000.0 );
    ck_assert( cnSolverParamValue( table, cn_sweepParamCount, params, cn_sweepParamTolerance ) == 0.0 );
    ck_assert( cnSolverParamValue( table, cn_sweepParamCount, params, cn_sweepParamRelaxation ) == 1.4 );
    ck_assert( cnSolverParamValue( table, cn_sweepParamCount, NULL, cn_sweepParamIterations ) == 10.0 );
    ck_assert( cnSolverParamValue( table, cn_sweepParamCount, NULL, cn_sweepParamDivergenceFactor ) == 1e6 );
}
END_TEST

Suite* cntLcpCommonSuite( void )
{
    Suite* suite = suite_create( "lcp_common" );
    TCase* tc = tcase_create( "helpers" );
    tcase_add_checked_fixture( tc, setup, teardown );
    tcase_add_test( tc, dense_builder_matches_products_through_j_and_w );
    tcase_add_test( tc, sparse_builder_on_subset_equals_dense_submatrix );
    tcase_add_test( tc, row_bounds_follow_the_current_normal_impulse );
    tcase_add_test( tc, residual_is_zero_at_an_exact_solution_and_positive_elsewhere );
    tcase_add_test( tc, friction_residuals_at_the_sliding_solution );
    tcase_add_test( tc, stop_rules );
    tcase_add_test( tc, parameter_values_are_clamped_with_defaults_for_nan );
    suite_add_tcase( suite, tc );
    return suite;
}
