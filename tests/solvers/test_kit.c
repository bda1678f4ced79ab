// SPDX-License-Identifier: MIT
// The solver kit: validation, the prepared data, row products, bounds, the grading merits and the
// matrix builders.
#include "arena.h"
#include "solver_layer.h"
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

// 4 bodies with full symmetric positive definite W blocks (B B^T + I/2), or, with `general`, blocks
// that are not symmetric (B + 2 I), 14 rows between random pairs (static ground included, one row
// acting twice on the same body), random Jacobians, b.
static cntLcp* cntCreateRandomProblemOf( bool general )
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
                    blocks[s][3 * r + c] = general ? m[3 * r + c] + ( r == c ? 2.0 : 0.0 )
                                                   : m[3 * r] * m[3 * c] + m[3 * r + 1] * m[3 * c + 1] +
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

// the layer's prepared data for a problem, from the test's arena
static cnPrepared cntPrepare( const cnSolverProblem* problem )
{
    const char* why = NULL;
    ck_assert_msg( cnValidateProblem( problem, &why ), "%s", why != NULL ? why : "" );
    cnScratch scratch = { .arena = &s_arena };
    cnPrepared prepared;
    ck_assert( cnPrepareProblem( problem, &scratch, &prepared ) );
    return prepared;
}

static cntLcp* cntCreateRandomProblem( void )
{
    return cntCreateRandomProblemOf( false );
}

// A e_j through the velocity, column by column, into `out` (row major)
static void cntMatrixByProducts( const cnSolverProblem* problem, double* out )
{
    int n = problem->rowCount;
    cnPrepared prepared = cntPrepare( problem );
    double* lambda = calloc( (size_t)n, sizeof( double ) );
    double* velocity = calloc( 6 * (size_t)problem->bodyCount + 1, sizeof( double ) );
    double* w = calloc( (size_t)n, sizeof( double ) );
    for ( int j = 0; j < n; ++j )
    {
        memset( lambda, 0, (size_t)n * sizeof( double ) );
        lambda[j] = 1.0;
        cnComputeVelocity( problem, &prepared, lambda, velocity );
        cnComputeW( problem, &prepared, lambda, velocity, w );
        for ( int i = 0; i < n; ++i )
        {
            out[i * n + j] = w[i] - problem->b[i];
        }
    }
    free( lambda );
    free( velocity );
    free( w );
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
    cnPrepared prepared = cntPrepare( p );

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
        double diagonal = prepared.diagonal[i];
        failures += fabs( diagonal - dense[i * n + i] ) > 1e-12 * fmax( 1.0, fabs( diagonal ) );
        failures += !( diagonal > 0.0 );
        failures += fabs( prepared.invDiagonal[i] * diagonal - 1.0 ) > 1e-15;
    }
    // rows 2 (bodies 1, 2) and 5 (3, ground) share no body: the entry is exactly zero
    failures += dense[2 * n + 5] != 0.0;
    failures += prepared.singularRows != 0 || prepared.nonFiniteRows != 0;
    ck_assert_msg( failures == 0, "%d mismatches, worst relative error %g", failures, worst );
    cntDestroyLcp( lcp );
}
END_TEST

// With W blocks that are not symmetric (no physical W is, but the builders must not assume it) the
// builders still give A = J W J^T, not its transpose, and the softness lands on the diagonal of
// every row, one whose A has no stored diagonal included
START_TEST( builders_give_a_not_its_transpose )
{
    cntLcp* lcp = cntCreateRandomProblemOf( true );
    cnSolverProblem* p = &lcp->problem;
    int n = p->rowCount;
    double byProducts[16 * 16];
    cntMatrixByProducts( p, byProducts );
    double* dense = cnBuildDenseMatrix( p, &s_arena );
    cnSparseMatrix sparse;
    ck_assert( cnBuildSparseMatrix( p, NULL, 0, &s_arena, &sparse ) );
    int failures = 0;
    double asymmetry = 0.0;
    for ( int i = 0; i < n; ++i )
    {
        for ( int j = 0; j < n; ++j )
        {
            double scale = fmax( 1.0, fabs( byProducts[i * n + j] ) );
            failures += fabs( dense[i * n + j] - byProducts[i * n + j] ) > 1e-12 * scale;
            asymmetry = fmax( asymmetry, fabs( byProducts[i * n + j] - byProducts[j * n + i] ) );
        }
        for ( int k = sparse.rowStart[i]; k < sparse.rowStart[i + 1]; ++k )
        {
            int j = sparse.column[k];
            failures += fabs( sparse.value[k] - byProducts[i * n + j] ) >
                        1e-12 * fmax( 1.0, fabs( byProducts[i * n + j] ) );
        }
    }
    ck_assert_msg( asymmetry > 0.1, "the test's A should not be symmetric (%g)", asymmetry );

    // softness on an explicit row with no diagonal entry, and on one with it
    cntLcp* explicitLcp = cntCreateLcp( 3, 0 );
    static const double m[9] = { 0, 1, 0, 1, 2, 0, 0, 0, 1 };
    static const double q[3] = { -1, -1, -1 };
    cntSetDense( explicitLcp, 3, m, q );
    double softness[3] = { 0.25, 0.5, 0.0 };
    explicitLcp->problem.softness = softness;
    cnSparseMatrix soft;
    ck_assert( cnBuildSparseMatrix( &explicitLcp->problem, NULL, 0, &s_arena, &soft ) );
    double expanded[9] = { 0 };
    for ( int i = 0; i < 3; ++i )
    {
        for ( int k = soft.rowStart[i]; k < soft.rowStart[i + 1]; ++k )
        {
            failures += k > soft.rowStart[i] && soft.column[k] <= soft.column[k - 1];
            expanded[3 * i + soft.column[k]] += soft.value[k];
        }
    }
    static const double expected[9] = { 0.25, 1, 0, 1, 2.5, 0, 0, 0, 1 };
    for ( int k = 0; k < 9; ++k )
    {
        failures += expanded[k] != expected[k];
    }
    explicitLcp->problem.softness = NULL;
    cntDestroyLcp( explicitLcp );
    ck_assert_int_eq( failures, 0 );
    cntDestroyLcp( lcp );
}
END_TEST

// The prepared W J^T of every row is the velocity change of a unit impulse on it, applied by the
// W blocks themselves (the reference kernel's way)
START_TEST( prepared_rows_are_the_velocity_change_of_a_unit_impulse )
{
    cntLcp* lcp = cntCreateRandomProblem();
    const cnSolverProblem* p = &lcp->problem;
    cnPrepared prepared = cntPrepare( p );
    int failures = 0;
    for ( int i = 0; i < p->rowCount; ++i )
    {
        double byBlocks[24] = { 0 };
        cnApplyRowImpulse( p, i, 1.0, byBlocks );
        double byRecord[24] = { 0 };
        const cnSweepRow* row = prepared.sweepRows + i;
        for ( int k = 0; k < 6; ++k )
        {
            if ( p->bodyA[i] >= 0 )
            {
                byRecord[6 * p->bodyA[i] + k] += row->wjA[k];
            }
            if ( p->bodyB[i] >= 0 )
            {
                byRecord[6 * p->bodyB[i] + k] += row->wjB[k];
            }
        }
        for ( int k = 0; k < 24; ++k )
        {
            failures += fabs( byBlocks[k] - byRecord[k] ) > 1e-14 * fmax( 1.0, fabs( byBlocks[k] ) );
        }
    }
    ck_assert_int_eq( failures, 0 );
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
    cnPrepared prepared = cntPrepare( p );
    ck_assert_int_eq( prepared.rowKind[0], cn_rowNormal );
    ck_assert_int_eq( prepared.rowKind[1], cn_rowTangent );
    ck_assert_int_eq( prepared.normalRow[2], 0 );
    ck_assert_int_eq( prepared.rowKind[3], cn_rowBounded );
    ck_assert_int_eq( prepared.rowGroup[3], 1 );

    double lambda[4] = { 4.0, 0.0, 0.0, 0.0 };
    double low, high;
    cnRowBounds( p, &prepared, lambda, 0, &low, &high );
    ck_assert( low == 0.0 && isinf( high ) && high > 0.0 );
    cnRowBounds( p, &prepared, lambda, 1, &low, &high );
    ck_assert( low == -2.0 && high == 2.0 );
    lambda[0] = -1.0; // a bad guess allows no friction
    cnRowBounds( p, &prepared, lambda, 2, &low, &high );
    ck_assert( low == 0.0 && high == 0.0 );
    cnRowBounds( p, &prepared, lambda, 3, &low, &high );
    ck_assert( low == -2.0 && high == 3.0 );
    cntDestroyLcp( lcp );
}
END_TEST

// What the validator refuses, each with its reason, never a crash.
START_TEST( validation_names_what_is_wrong )
{
    cntLcp* lcp = cntCreateLcp( 8, 2 );
    int a = cntAddBody( lcp, 1.0, 1.0, 1.0, 1.0, 0, 0, 0 );
    int b = cntAddBody( lcp, 2.0, 1.0, 1.0, 1.0, 0, 0, 0 );
    static const double r[3] = { 0, 0, 0 };
    static const double n[3] = { 0, 0, 1 };
    static const double t1[3] = { 1, 0, 0 };
    static const double t2[3] = { 0, 1, 0 };
    cntAddContact( lcp, a, b, r, r, n, t1, t2, 0.5, true );
    static const double jacobian[6] = { 1, 0, 0, 0, 0, 0 };
    int bounded = cntAddRow( lcp, cn_rowBounded, -1, b, NULL, jacobian );
    lcp->upper[bounded] = 1.0;
    cnSolverProblem* p = &lcp->problem;
    const char* why = NULL;
    ck_assert( cnValidateProblem( p, &why ) );

    int failures = 0;
    lcp->groups[0].rowCount = 2; // a contact has three rows
    failures += cnValidateProblem( p, &why ) || why == NULL || strstr( why, "tile" ) == NULL;
    lcp->groups[0].rowCount = 3;
    lcp->groups[0].mu = -0.1;
    failures += cnValidateProblem( p, &why ) || strstr( why, "friction" ) == NULL;
    lcp->groups[0].mu = (double)NAN;
    failures += cnValidateProblem( p, &why );
    lcp->groups[0].mu = 0.5;
    lcp->bodyB[2] = -1; // one row of the contact on other bodies
    failures += cnValidateProblem( p, &why ) || strstr( why, "different bodies" ) == NULL;
    lcp->bodyB[2] = b;
    lcp->lower[bounded] = 2.0; // lower > upper
    failures += cnValidateProblem( p, &why ) || strstr( why, "lower > upper" ) == NULL;
    lcp->lower[bounded] = 0.0;
    lcp->bodyA[0] = 7; // no such body
    failures += cnValidateProblem( p, &why ) || strstr( why, "body" ) == NULL;
    lcp->bodyA[0] = a;
    p->groupCount = 1; // a row no group covers
    failures += cnValidateProblem( p, &why ) || strstr( why, "cover" ) == NULL;
    p->groupCount = 2;
    lcp->groups[1].kind = 9;
    failures += cnValidateProblem( p, &why ) || strstr( why, "unknown kind" ) == NULL;
    lcp->groups[1].kind = cn_groupBounded;
    p->rowCount = p->rowCapacity + 1;
    failures += cnValidateProblem( p, &why ) || strstr( why, "capacities" ) == NULL;
    p->rowCount = 4;
    failures += cnValidateProblem( NULL, &why ) == true;
    ck_assert( cnValidateProblem( p, NULL ) );
    ck_assert_int_eq( failures, 0 );
    cntDestroyLcp( lcp );
}
END_TEST

// 0 <= z _|_ M z + q >= 0 with M = [2 1; 1 2], q = [-1, 1]: z = (1/2, 0), w = (0, 3/2). At z = 0
// the natural map is (-1/2, 0) in impulse units (w_0 / A_00 = -1/2); its energy norm is
// sqrt(2 / 4) and the problem's scale |D^-1/2 q| = sqrt(1/2 + 1/2) = 1.
START_TEST( merits_are_zero_at_an_exact_solution_and_known_elsewhere )
{
    cntLcp* lcp = cntCreateLcp( 2, 0 );
    static const double m[4] = { 2, 1, 1, 2 };
    static const double q[2] = { -1, 1 };
    cntSetDense( lcp, 2, m, q );
    const cnSolverProblem* p = &lcp->problem;
    cnSolverMerits merits;

    double exact[2] = { 0.5, 0.0 };
    ck_assert( cnComputeSolverMerits( p, exact, NULL, &merits ) );
    ck_assert( merits.naturalMap == 0.0 && merits.cone == 0.0 && merits.signorini == 0.0 );
    ck_assert( cnComputeSolverMerits( p, exact, &s_arena, &merits ) && merits.naturalMap == 0.0 );
    double zero[2] = { 0.0, 0.0 };
    ck_assert( cnComputeSolverMerits( p, zero, NULL, &merits ) );
    CNT_ASSERT_REL( merits.naturalMap, sqrt( 0.5 ), 1e-15 );
    // Signorini at z = 0: row 0 approaches at w = -1
    CNT_ASSERT_REL( merits.signorini, 1.0, 1e-15 );
    double off[2] = { 0.5, 0.25 };
    ck_assert( cnComputeSolverMerits( p, off, &s_arena, &merits ) && merits.naturalMap > 0.0 );
    // separating with an impulse: w_1 = 0.5 + 0.5 + 1 = 2 > 0 while z_1 = 0.25 pushes: the
    // violation is min(A_11 z_1, w_1) = 0.5
    CNT_ASSERT_REL( merits.signorini, 0.5, 1e-15 );

    double bad[2] = { (double)NAN, 0.0 };
    ck_assert( cnComputeSolverMerits( p, bad, NULL, &merits ) && isnan( merits.naturalMap ) );
    lcp->b[1] = (double)NAN;
    ck_assert( cnComputeSolverMerits( p, exact, &s_arena, &merits ) && isnan( merits.naturalMap ) );
    lcp->b[1] = 1.0;

    // no rows: zero, whatever lambda is
    cnSolverProblem empty = { 0 };
    ck_assert( cnComputeSolverMerits( &empty, NULL, NULL, &merits ) && merits.naturalMap == 0.0 );
    // broken problems: false and NaN, never a crash
    ck_assert( cnComputeSolverMerits( NULL, exact, NULL, &merits ) == false && isnan( merits.naturalMap ) );
    cnSolverProblem broken = *p;
    broken.b = NULL;
    ck_assert( cnComputeSolverMerits( &broken, exact, NULL, &merits ) == false );
    cnSparseMatrix wrongSize = lcp->matrix;
    wrongSize.rows = 3;
    broken = *p;
    broken.matrix = &wrongSize;
    ck_assert( cnComputeSolverMerits( &broken, exact, &s_arena, &merits ) == false );
    cntDestroyLcp( lcp );
}
END_TEST

// A sliding body (infinite inertia, mass 1) on static ground, falling at 1, sliding at 3 along x,
// mu 0.5: lambda = (1, -0.5, 0) solves both the pyramid and the cone problem with every physical
// violation zero. Off it, each violation measures what it names, in m/s.
START_TEST( friction_merits_at_and_around_the_sliding_solution )
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
    cnSolverMerits m;

    double solution[3] = { 1.0, -0.5, 0.0 };
    ck_assert( cnComputeSolverMerits( p, solution, &s_arena, &m ) );
    ck_assert( m.naturalMap == 0.0 && m.cone == 0.0 && m.signorini == 0.0 && m.coulomb == 0.0 &&
               m.dissipation == 0.0 );
    // friction too weak: the point slides at 2.75 and friction opposes it with half of mu lambda_n,
    // so 2.75 - 0.6875 / 0.5 = 1.375 m/s of the slide is not opposed
    double weak[3] = { 1.0, -0.25, 0.0 };
    ck_assert( cnComputeSolverMerits( p, weak, &s_arena, &m ) );
    CNT_ASSERT_REL( m.dissipation, 1.375, 1e-14 );
    ck_assert( m.coulomb == 0.0 && m.signorini == 0.0 && m.naturalMap > 0.01 );
    // outside the cone: |lambda_t| = 3 against mu lambda_n = 0.5; A_tt = 1
    double sticking[3] = { 1.0, -3.0, 0.0 };
    ck_assert( cnComputeSolverMerits( p, sticking, &s_arena, &m ) );
    CNT_ASSERT_REL( m.coulomb, 2.5, 1e-15 );
    ck_assert( m.naturalMap > 0.1 && m.cone > 0.1 );
    // half the normal impulse: the point still approaches at 0.5 m/s
    double shallow[3] = { 0.5, -0.25, 0.0 };
    ck_assert( cnComputeSolverMerits( p, shallow, &s_arena, &m ) );
    CNT_ASSERT_REL( m.signorini, 0.5, 1e-15 );
    // at zero: the De Saxce velocity (-1 + 0.5 * 3, 3, 0) projected on the cone leaves (-0.8, 0.4, 0),
    // and the problem's scale is |b| = sqrt(10)
    double zero[3] = { 0.0, 0.0, 0.0 };
    ck_assert( cnComputeSolverMerits( p, zero, &s_arena, &m ) );
    CNT_ASSERT_REL( m.cone, sqrt( 0.8 / 10.0 ), 1e-14 );
    // the pyramid and the cone differ off the axes: sliding along (1, 1) at the pyramid's corner
    lcp->freeVelocity[1] = 3.0;
    cntFinishB( lcp );
    double corner[3] = { 1.0, -0.5, -0.5 };
    ck_assert( cnComputeSolverMerits( p, corner, &s_arena, &m ) );
    ck_assert( m.naturalMap == 0.0 && m.cone > 0.01 );
    CNT_ASSERT_REL( m.coulomb, 0.5 * sqrt( 2.0 ) - 0.5, 1e-14 );
    double onCone[3] = { 1.0, -0.5 / sqrt( 2.0 ), -0.5 / sqrt( 2.0 ) };
    ck_assert( cnComputeSolverMerits( p, onCone, &s_arena, &m ) );
    ck_assert( m.cone < 1e-15 && m.coulomb < 1e-15 && m.dissipation < 1e-15 );

    solution[0] = (double)NAN;
    ck_assert( cnComputeSolverMerits( p, solution, &s_arena, &m ) );
    ck_assert( isnan( m.cone ) && isnan( m.naturalMap ) && isnan( m.signorini ) );
    cntDestroyLcp( lcp );

    // mu = 0, separating, no impulse: a solution of both models (the cone's projection once kept
    // the point (x_n < 0, 0, 0) and graded it 1/3, seen on a colony step)
    lcp = cntCreateLcp( 3, 1 );
    body = cntAddBody( lcp, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.5 );
    cntAddContact( lcp, -1, body, r, r, n, t1, t2, 0.0, true );
    cntFinishB( lcp );
    double none[3] = { 0.0, 0.0, 0.0 };
    ck_assert( cnComputeSolverMerits( &lcp->problem, none, &s_arena, &m ) );
    ck_assert_msg( m.naturalMap == 0.0 && m.cone == 0.0, "natural map %g, cone %g", m.naturalMap, m.cone );
    cntDestroyLcp( lcp );
}
END_TEST

// A unit box (1000 kg) sliding down a 20-degree incline at 1 m/s, friction 0.2, one step of 1/60 s,
// in the incline's frame (x downhill, z the normal): four corner contacts on static ground. The
// closed form: all four points keep sliding, the box does not turn, it gains h g (sin - mu cos);
// the normal impulse N = m g cos h splits N (1 + mu) / 2 on the front pair and N (1 - mu) / 2 on
// the back pair (friction's moment about the centre), and each point's friction is -mu lambda_n
// along x. At that solution every merit vanishes. PGS from zero, truncated at k sweeps, leaves
// violations that fall with k (the table of docs/solvers.md, "A worked example"); converged, it
// meets the pyramid natural map and the closed-form velocity.
START_TEST( sliding_block_on_an_incline_merits )
{
    const double mass = 1000.0;
    const double h = 1.0 / 60.0;
    const double g = 9.81;
    const double mu = 0.2;
    const double angle = 20.0 * CN_PI / 180.0;
    cntLcp* lcp = cntCreateLcp( 12, 1 );
    // a unit cube: inverse inertia 6 / m about each axis
    int box = cntAddBody( lcp, mass, 6.0 / mass, 6.0 / mass, 6.0 / mass, 1.0 + g * sin( angle ) * h, 0.0,
                          -g * cos( angle ) * h );
    static const double n[3] = { 0, 0, 1 };
    static const double t1[3] = { 1, 0, 0 };
    static const double t2[3] = { 0, 1, 0 };
    static const double origin[3] = { 0, 0, 0 };
    for ( int c = 0; c < 4; ++c )
    {
        double rB[3] = { ( c & 1 ) ? 0.5 : -0.5, ( c & 2 ) ? 0.5 : -0.5, -0.5 };
        cntAddContact( lcp, -1, box, origin, rB, n, t1, t2, mu, true );
    }
    cntFinishB( lcp );
    cnSolverProblem* p = &lcp->problem;

    double normal = mass * g * cos( angle ) * h;
    double exact[12];
    for ( int c = 0; c < 4; ++c )
    {
        bool front = ( c & 1 ) != 0;
        exact[3 * c] = 0.25 * normal * ( front ? 1.0 + mu : 1.0 - mu );
        exact[3 * c + 1] = -mu * exact[3 * c];
        exact[3 * c + 2] = 0.0;
    }
    cnSolverMerits m;
    ck_assert( cnComputeSolverMerits( p, exact, &s_arena, &m ) );
    printf( "sliding block, exact solution: natural map %.1e, cone %.1e, Signorini %.1e, Coulomb %.1e, "
            "dissipation %.1e\n",
            m.naturalMap, m.cone, m.signorini, m.coulomb, m.dissipation );
    ck_assert_msg( m.naturalMap < 1e-14 && m.cone < 1e-14, "%g %g", m.naturalMap, m.cone );
    ck_assert_msg( m.signorini < 1e-14 && m.coulomb < 1e-14 && m.dissipation < 1e-14, "%g %g %g", m.signorini,
                   m.coulomb, m.dissipation );

    const cnSolverVTable* pgs = cnFindSolver( "pgs" );
    ck_assert_ptr_nonnull( pgs );
    static const int sweeps[] = { 1, 2, 5, 10, 100, 1000 };
    enum
    {
        runs = (int)( sizeof( sweeps ) / sizeof( sweeps[0] ) )
    };
    cnSolverMerits truncated[runs];
    double speedError[runs];
    double expected = 1.0 + h * g * ( sin( angle ) - mu * cos( angle ) );
    printf(
        "| PGS sweeps | downhill speed error (m/s) | natural map | cone | Signorini (m/s) | Coulomb (m/s) "
        "| dissipation (m/s) |\n" );
    for ( int k = 0; k < runs; ++k )
    {
        double lambda[12] = { 0 };
        double dv[6];
        cnSolverStats stats = cntSolve( pgs, p, lambda, dv, sweeps[k], 0.0, -1.0 );
        ck_assert( cnSolveStatusIsUsable( (cnSolveStatus)stats.status, pgs->caps ) );
        ck_assert( cnComputeSolverMerits( p, lambda, &s_arena, truncated + k ) );
        speedError[k] = fabs( lcp->freeVelocity[0] + dv[0] - expected );
        const cnSolverMerits* t = truncated + k;
        printf( "| %d | %.1e | %.1e | %.1e | %.1e | %.1e | %.1e |\n", sweeps[k], speedError[k], t->naturalMap,
                t->cone, t->signorini, t->coulomb, t->dissipation );
        // the layer graded the same impulses the same way
        ck_assert( stats.merits.naturalMap == t->naturalMap && stats.merits.coulomb == t->coulomb );
    }
    // truncated: friction off the cone's edge or turned from the slide, and Signorini unmet
    ck_assert( truncated[0].coulomb + truncated[0].dissipation > 1e-3 );
    ck_assert( truncated[0].signorini > 1e-3 && truncated[0].naturalMap > 1e-2 );
    ck_assert( truncated[1].naturalMap < truncated[0].naturalMap );
    // converged: the pyramid's complementarity and the closed-form velocity
    ck_assert_msg( truncated[runs - 1].naturalMap < 1e-12, "%g", truncated[runs - 1].naturalMap );
    ck_assert_msg( speedError[runs - 1] < 1e-12, "%g m/s", speedError[runs - 1] );
    cntDestroyLcp( lcp );
}
END_TEST

// Unit-free: the same contacts with every mass times 1000 (the impulses with them), every velocity
// times 7, or the whole problem repeated twice, give the same merits; the violations, velocities,
// scale with the velocities.
START_TEST( merits_do_not_depend_on_units_or_size )
{
    cnSolverMerits base;
    cnSolverMerits scaled;
    cnSolverMerits faster;
    double lambda[24];
    for ( int variant = 0; variant < 3; ++variant )
    {
        double mass = variant == 1 ? 1000.0 : 1.0;
        double speed = variant == 2 ? 7.0 : 1.0;
        cntLcp* lcp = cntCreateStack( 2, 0.1 * speed, 0.4 );
        for ( int body = 0; body < 2; ++body )
        {
            double wl[9] = { 1.0 / mass, 0, 0, 0, 1.0 / mass, 0, 0, 0, 1.0 / mass };
            double wa[9] = { 6.0 / mass, 0, 0, 0, 6.0 / mass, 0, 0, 0, 6.0 / mass };
            cntSetBodyW( lcp, body, wl, wa );
        }
        for ( int i = 0; i < lcp->problem.rowCount; ++i )
        {
            // an arbitrary, not converged iterate, scaled like impulses are
            lambda[i] = mass * speed * ( 0.01 * (double)( ( i * 7 ) % 5 ) - ( i % 3 == 2 ? 0.004 : 0.0 ) );
        }
        cnSolverMerits* out = variant == 0 ? &base : variant == 1 ? &scaled : &faster;
        ck_assert( cnComputeSolverMerits( &lcp->problem, lambda, &s_arena, out ) );
        cntDestroyLcp( lcp );
    }
    ck_assert( base.naturalMap > 1e-3 && base.cone > 1e-3 );
    CNT_ASSERT_REL( scaled.naturalMap, base.naturalMap, 1e-13 );
    CNT_ASSERT_REL( scaled.cone, base.cone, 1e-13 );
    CNT_ASSERT_REL( scaled.signorini, base.signorini, 1e-13 );
    CNT_ASSERT_REL( faster.naturalMap, base.naturalMap, 1e-13 );
    CNT_ASSERT_REL( faster.signorini, 7.0 * base.signorini, 1e-13 );

    // twice the problem side by side: the same merit
    cntLcp* one = cntCreateStack( 2, 0.1, 0.4 );
    cntLcp* two = cntCreateLcp( 48, 4 );
    for ( int copy = 0; copy < 2; ++copy )
    {
        for ( int body = 0; body < 2; ++body )
        {
            cntAddBody( two, 1.0, 6.0, 6.0, 6.0, 0.0, 0.0, -0.1 );
        }
        static const double n[3] = { 0, 0, 1 };
        static const double t1[3] = { 1, 0, 0 };
        static const double t2[3] = { 0, 1, 0 };
        for ( int k = 0; k < 2; ++k )
        {
            for ( int c = 0; c < 4; ++c )
            {
                double x = ( c & 1 ) ? 0.5 : -0.5;
                double y = ( c & 2 ) ? 0.5 : -0.5;
                double rB[3] = { x, y, -0.5 };
                double rA[3] = { x, y, 0.5 };
                cntAddContact( two, k == 0 ? -1 : 2 * copy + k - 1, 2 * copy + k, rA, rB, n, t1, t2, 0.4,
                               true );
            }
        }
    }
    cntFinishB( two );
    double doubled[48];
    for ( int i = 0; i < 48; ++i )
    {
        doubled[i] = lambda[i % 24] / 7.0;
    }
    cnSolverMerits single;
    cnSolverMerits both;
    ck_assert( cnComputeSolverMerits( &one->problem, doubled, &s_arena, &single ) );
    ck_assert( cnComputeSolverMerits( &two->problem, doubled, &s_arena, &both ) );
    CNT_ASSERT_REL( both.naturalMap, single.naturalMap, 1e-13 );
    CNT_ASSERT_REL( both.signorini, single.signorini, 1e-13 );
    cntDestroyLcp( one );
    cntDestroyLcp( two );
}
END_TEST

START_TEST( parameter_values_are_clamped_with_defaults_for_nan )
{
    static const cnSolverParam table[] = { CN_SWEEP_PARAM_TABLE( 1.4 ) };
    double params[cn_sweepParamCount] = { 1e9, -1.0, 0.0, 1.0, (double)NAN, 0.0, 0.0, 0.0, 1e6 };
    ck_assert( cnSolverParamValue( table, cn_sweepParamCount, params, cn_sweepParamIterations ) ==
               1000000.0 );
    ck_assert( cnSolverParamValue( table, cn_sweepParamCount, params, cn_sweepParamTolerance ) == 0.0 );
    ck_assert( cnSolverParamValue( table, cn_sweepParamCount, params, cn_sweepParamRelaxation ) == 1.4 );
    ck_assert( cnSolverParamValue( table, cn_sweepParamCount, NULL, cn_sweepParamIterations ) == 10.0 );
    ck_assert( cnSolverParamValue( table, cn_sweepParamCount, NULL, cn_sweepParamDivergenceFactor ) == 2.0 );
}
END_TEST

// Parameters by text: numbers, whole numbers, toggles and choices by name, each refused with a
// message that says why.
START_TEST( parameters_are_read_and_checked_by_type )
{
    const cnSolverVTable* pgs = cnFindSolver( "pgs" );
    const cnSolverParam* iterations = pgs->params + cnFindSolverParam( pgs, "iterations" );
    const cnSolverParam* kernel = pgs->params + cnFindSolverParam( pgs, "kernel" );
    const cnSolverParam* warm = pgs->params + cnFindSolverParam( pgs, "warm_start" );
    double value = -1.0;
    char message[160];
    ck_assert_int_eq( cnParseSolverParam( iterations, "25", &value, message, sizeof( message ) ),
                      cn_statusOk );
    ck_assert( value == 25.0 );
    ck_assert_int_eq( cnParseSolverParam( iterations, "2.5", &value, message, sizeof( message ) ),
                      cn_statusInvalidArgument );
    ck_assert_ptr_nonnull( strstr( message, "whole" ) );
    ck_assert_int_eq( cnParseSolverParam( iterations, "0", &value, message, sizeof( message ) ),
                      cn_statusInvalidArgument );
    ck_assert_ptr_nonnull( strstr( message, "outside" ) );
    ck_assert_int_eq( cnParseSolverParam( kernel, "reference", &value, message, sizeof( message ) ),
                      cn_statusOk );
    ck_assert( value == 1.0 );
    ck_assert_int_eq( cnParseSolverParam( kernel, "fastest", &value, message, sizeof( message ) ),
                      cn_statusInvalidArgument );
    ck_assert_ptr_nonnull( strstr( message, "fast, reference" ) );
    ck_assert_int_eq( cnParseSolverParam( warm, "false", &value, message, sizeof( message ) ), cn_statusOk );
    ck_assert( value == 0.0 );
    ck_assert_int_eq( cnParseSolverParam( warm, "0.5", &value, message, sizeof( message ) ),
                      cn_statusInvalidArgument );
    ck_assert_int_eq( cnCheckSolverParam( iterations, (double)NAN, message, sizeof( message ) ),
                      cn_statusNonFinite );
    char text[32];
    ck_assert_str_eq( cnFormatSolverParam( kernel, 1.0, text, sizeof( text ) ), "reference" );
    ck_assert_str_eq( cnFormatSolverParam( warm, 1.0, text, sizeof( text ) ), "true" );
    ck_assert_str_eq( cnFormatSolverParam( iterations, 10.0, text, sizeof( text ) ), "10" );
}
END_TEST

// a ball of `mass` falling at 3 m/s onto the ground: one frictionless normal row, b = u = -3 m/s
static cntLcp* cntFallingBall( double mass )
{
    cntLcp* lcp = cntCreateLcp( 1, 1 );
    int ball = cntAddBody( lcp, mass, 0.0, 0.0, 0.0, 0.0, 0.0, -3.0 );
    static const double up[6] = { 0, 0, 1, 0, 0, 0 };
    cntAddRow( lcp, cn_rowNormal, -1, ball, NULL, up );
    cntFinishB( lcp );
    lcp->problem.dynamics = cn_dynamicsInertial;
    return lcp;
}

// The physics test's figures for a ball of 2 kg falling at 3 m/s onto the ground (one frictionless
// normal row, u = -3 m/s): each is the change of kinetic energy in closed form,
// m (u+^2 - u^2) / 2, for the impulse that stops the ball, the one that bounces it back elastically,
// one too large and one too small.
START_TEST( physics_of_a_falling_ball_in_closed_form )
{
    const double mass = 2.0;
    cntLcp* lcp = cntFallingBall( mass );
    cnSolverProblem* p = &lcp->problem;
    cnScratch scratch = { .arena = &s_arena };
    cnPrepared prepared;
    ck_assert( cnPrepareProblem( p, &scratch, &prepared ) );
    double velocity[6];
    double w[1];
    // lambda, then u+ = -3 + lambda / m
    static const double impulses[4] = { 6.0, 12.0, 18.0, 3.0 };
    for ( int k = 0; k < 4; ++k )
    {
        double lambda = impulses[k];
        double after = -3.0 + lambda / mass;
        cnComputeVelocity( p, &prepared, &lambda, velocity );
        cnComputeW( p, &prepared, &lambda, velocity, w );
        cnSolvePhysics physics;
        cnPhysicsFromW( p, &prepared, &lambda, w, &physics );
        CNT_ASSERT_ABS( physics.energyAdded, 0.5 * mass * ( after * after - 9.0 ), 1e-13 );
        // with the test's slack: the ball's approach sped up by 1 mm/s
        CNT_ASSERT_ABS( physics.approachEnergy,
                        0.5 * mass * ( 3.0 + CN_PHYSICS_SLACK ) * ( 3.0 + CN_PHYSICS_SLACK ), 1e-13 );
        CNT_ASSERT_ABS( physics.approach, 3.0, 1e-15 );
        // the ball still falls at 1.5 m/s after the small impulse: slower than it came, so nothing
        // closes faster than it approached
        ck_assert_double_eq( physics.closing, 0.0 );
        // only the impulse that throws the ball up at twice its speed adds energy: 27 J of the 9 J
        // its approach had
        ck_assert( cnPhysicsFails( &physics ) == ( k == 2 ) );
    }

    // a bounce with restitution 0.5 (b = u + e u, the velocity given apart): it loses three
    // quarters of the energy, and the bias asks for none of it back
    double u = -3.0;
    p->velocity = &u;
    lcp->b[0] = -4.5;
    cnRefreshPrepared( p, &prepared );
    double lambda = 9.0;
    cnComputeVelocity( p, &prepared, &lambda, velocity );
    cnComputeW( p, &prepared, &lambda, velocity, w );
    cnSolvePhysics physics;
    cnPhysicsFromW( p, &prepared, &lambda, w, &physics );
    CNT_ASSERT_ABS( physics.energyAdded, 0.5 * mass * ( 1.5 * 1.5 - 9.0 ), 1e-13 );
    ck_assert( cnPhysicsFails( &physics ) == false );
    cnScratchRelease( &scratch );
    cntDestroyLcp( lcp );
}
END_TEST

// a solver that answers with three times the impulse that stops each row, and calls it usable
static void cntOverpushSolve( void* state, const double* params, const cnSolverBudget* budget,
                              cnSolverProblem* problem, const cnPrepared* prepared,
                              cnSolverSolution* solution, cnArena* arena, cnSolverStats* stats )
{
    (void)state, (void)params, (void)budget, (void)arena;
    for ( int i = 0; i < problem->rowCount; ++i )
    {
        solution->lambda[i] = -3.0 * problem->b[i] * prepared->invDiagonal[i];
    }
    stats->status = cn_solveMaxIterations;
    stats->iterations = 1;
}

static const cnSolverVTable cnt_overpushSolver = {
    .name = "overpush",
    .apiVersion = CN_SOLVER_API_VERSION,
    .caps = cn_solverMatrixFree,
    .model = cn_modelPyramid,
    .iterationUnit = "sweep",
    .solve = cntOverpushSolve,
};

// The layer applies such an answer when nobody asks it to decide, and replaces it with its
// fallback sweeps when the world does: the ball then stops, as PGS stops it.
START_TEST( layer_replaces_an_answer_that_fails_the_physics_test )
{
    cntLcp* lcp = cntFallingBall( 2.0 );
    cnSolverProblem* p = &lcp->problem;
    cnSolverBudget budget = { 10, 0.0, 0.0 };
    for ( int decide = 0; decide < 2; ++decide )
    {
        double lambda = 0.0;
        double delta[6];
        cnSolverSolution solution = { .lambda = &lambda, .deltaVelocity = delta };
        cnLayerOptions options = { .grade = true, .decide = decide == 1, .fallbackSweeps = 20 };
        cnSolverStats stats;
        cnLayerSolve( &cnt_overpushSolver, NULL, NULL, &budget, p, &solution, &s_arena, &options, &stats );
        ck_assert_int_eq( stats.status, cn_solveMaxIterations ); // the solver's own, either way
        if ( decide == 0 )
        {
            ck_assert_int_eq( stats.outcome, cn_outcomeApplied );
            CNT_ASSERT_ABS( lambda, 18.0, 1e-12 );
            ck_assert( cnPhysicsFails( &stats.physics ) );
            continue;
        }
        ck_assert_int_eq( stats.outcome, cn_outcomeReplaced );
        ck_assert_int_eq( stats.fallbacks, 1 );
        CNT_ASSERT_ABS( lambda, 6.0, 1e-12 );
        CNT_ASSERT_ABS( delta[2], 3.0, 1e-12 ); // what is applied is what was graded
        CNT_ASSERT_ABS( stats.physics.energyAdded, -9.0, 1e-12 );
        ck_assert( stats.residual < 1e-12 && cnPhysicsFails( &stats.physics ) == false );
    }
    cntDestroyLcp( lcp );
}
END_TEST

Suite* cntKitSuite( void )
{
    Suite* suite = suite_create( "kit" );
    TCase* tc = tcase_create( "helpers" );
    tcase_add_checked_fixture( tc, setup, teardown );
    tcase_add_test( tc, dense_builder_matches_products_through_j_and_w );
    tcase_add_test( tc, prepared_rows_are_the_velocity_change_of_a_unit_impulse );
    tcase_add_test( tc, builders_give_a_not_its_transpose );
    tcase_add_test( tc, sparse_builder_on_subset_equals_dense_submatrix );
    tcase_add_test( tc, row_bounds_follow_the_current_normal_impulse );
    tcase_add_test( tc, validation_names_what_is_wrong );
    tcase_add_test( tc, merits_are_zero_at_an_exact_solution_and_known_elsewhere );
    tcase_add_test( tc, friction_merits_at_and_around_the_sliding_solution );
    tcase_add_test( tc, merits_do_not_depend_on_units_or_size );
    tcase_add_test( tc, sliding_block_on_an_incline_merits );
    tcase_add_test( tc, parameter_values_are_clamped_with_defaults_for_nan );
    tcase_add_test( tc, parameters_are_read_and_checked_by_type );
    tcase_add_test( tc, physics_of_a_falling_ball_in_closed_form );
    tcase_add_test( tc, layer_replaces_an_answer_that_fails_the_physics_test );
    suite_add_tcase( suite, tc );
    return suite;
}
