// SPDX-License-Identifier: MIT
// The symmetric factorisation behind pgs_sm and the Newton methods (solvers/factor.h): the dense
// LDL^T and CHOLMOD give the same answers on positive definite systems, semi-definite ones (the
// normals of four points on one box face) are regularised and say so, bad input fails with a
// reason, never a NaN. Built twice: test_factor links the library as configured, and
// test_factor_nocholmod compiles factor.c without CHOLMOD, as -DCN_WITH_CHOLMOD=OFF builds it, to
// check that such a build reports the sparse backend unavailable.

#include "factor.h"

#include <check.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

// a deterministic generator (splitmix64)
static double cntUniform( unsigned long long* state )
{
    unsigned long long z = ( *state += 0x9E3779B97F4A7C15ull );
    z = ( z ^ ( z >> 30 ) ) * 0xBF58476D1CE4E5B9ull;
    z = ( z ^ ( z >> 27 ) ) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (double)( z >> 11 ) / 9007199254740992.0;
}

// A dense symmetric matrix as CSR with both triangles (zeros left out).
typedef struct cntCsr
{
    int n;
    int* rowStart;
    int* column;
    double* value;
    cnSparseMatrix matrix;
} cntCsr;

static void cntFromDense( const double* dense, int n, cntCsr* csr )
{
    csr->n = n;
    csr->rowStart = calloc( (size_t)n + 1, sizeof( int ) );
    csr->column = calloc( (size_t)n * (size_t)n + 1, sizeof( int ) );
    csr->value = calloc( (size_t)n * (size_t)n + 1, sizeof( double ) );
    int at = 0;
    for ( int r = 0; r < n; ++r )
    {
        for ( int c = 0; c < n; ++c )
        {
            double x = dense[r * n + c];
            if ( x != 0.0 )
            {
                csr->column[at] = c;
                csr->value[at] = x;
                at += 1;
            }
        }
        csr->rowStart[r + 1] = at;
    }
    csr->matrix = ( cnSparseMatrix ){ n, n, csr->rowStart, csr->column, csr->value };
}

static void cntFree( cntCsr* csr )
{
    free( csr->rowStart );
    free( csr->column );
    free( csr->value );
}

// G G^T + shift I with G n x rank, sparse-ish (a band of width `band`), into `dense`
static void cntGram( int n, int rank, int band, double shift, unsigned long long seed, double* dense )
{
    double* g = calloc( (size_t)n * (size_t)rank, sizeof( double ) );
    unsigned long long state = seed;
    for ( int i = 0; i < n; ++i )
    {
        for ( int k = 0; k < rank; ++k )
        {
            int centre = rank > 1 ? i * ( rank - 1 ) / ( n > 1 ? n - 1 : 1 ) : 0;
            g[i * rank + k] = abs( k - centre ) <= band ? cntUniform( &state ) - 0.5 : 0.0;
        }
    }
    for ( int i = 0; i < n; ++i )
    {
        for ( int j = 0; j < n; ++j )
        {
            double sum = i == j ? shift : 0.0;
            for ( int k = 0; k < rank; ++k )
            {
                sum += g[i * rank + k] * g[j * rank + k];
            }
            dense[i * n + j] = sum;
        }
    }
    free( g );
}

// |K x - rhs|_inf / |rhs|_inf
static double cntResidual( const double* dense, int n, const double* x, const double* rhs )
{
    double worst = 0.0, scale = 0.0;
    for ( int i = 0; i < n; ++i )
    {
        double sum = 0.0;
        for ( int j = 0; j < n; ++j )
        {
            sum += dense[i * n + j] * x[j];
        }
        worst = fmax( worst, fabs( sum - rhs[i] ) );
        scale = fmax( scale, fabs( rhs[i] ) );
    }
    return worst / scale;
}

// A positive definite banded system: each backend solves it to 1e-12, and they agree.
START_TEST( backends_solve_a_definite_system )
{
    int n = 300;
    double* dense = malloc( (size_t)n * (size_t)n * sizeof( double ) );
    cntGram( n, n, 6, 1e-3, 7, dense );
    cntCsr csr;
    cntFromDense( dense, n, &csr );
    double* rhs = malloc( (size_t)n * sizeof( double ) );
    double* x[2] = { malloc( (size_t)n * sizeof( double ) ), malloc( (size_t)n * sizeof( double ) ) };
    unsigned long long state = 11;
    for ( int i = 0; i < n; ++i )
    {
        rhs[i] = cntUniform( &state ) - 0.5;
    }
    cnFactorBackend backends[2] = { cn_factorDense, cn_factorCholmod };
    int tried = 0;
    for ( int b = 0; b < 2; ++b )
    {
        if ( backends[b] == cn_factorCholmod && cnFactorHasCholmod() == false )
        {
            continue;
        }
        cnFactor* factor = cnFactorCreate();
        cnFactorStats stats = { 0 };
        ck_assert_int_eq( cnFactorize( factor, &csr.matrix, 0.0, backends[b], &stats ), cn_factorOk );
        ck_assert_str_eq( cnFactorBackendName( factor ), b == 0 ? "dense" : "cholmod" );
        ck_assert_int_eq( stats.factorizations, 1 );
        ck_assert_int_eq( stats.regularized, 0 );
        ck_assert( stats.factorNonzeros >= n && stats.factorNonzeros <= (double)n * ( n + 1 ) / 2.0 );
        ck_assert( cnFactorSolve( factor, rhs, x[b] ) );
        ck_assert_double_le( cntResidual( dense, n, x[b], rhs ), 1e-12 );
        cnFactorDestroy( factor );
        tried += 1;
    }
    if ( tried == 2 )
    {
        double worst = 0.0, scale = 0.0;
        for ( int i = 0; i < n; ++i )
        {
            worst = fmax( worst, fabs( x[0][i] - x[1][i] ) );
            scale = fmax( scale, fabs( x[0][i] ) );
        }
        ck_assert_double_le( worst, 1e-10 * scale );
    }
    free( x[0] );
    free( x[1] );
    free( rhs );
    cntFree( &csr );
    free( dense );
}
END_TEST

// The normal rows of four points on one face of a box resting on the ground: their 4 x 4 matrix
// J W J^T has rank 3 (a face's normal impulses can move the box only along the normal and tilt it
// about two axes). Not positive definite: both backends regularise, say so, and the regularised
// solve of a consistent right-hand side (one the rank-3 matrix can produce) still satisfies the
// unregularised system to the regularisation's size.
START_TEST( semi_definite_face_is_regularised )
{
    // unit box of mass 1, inertia 1/6 about every axis; points at (+-0.5, +-0.5, -0.5), normal z
    double px[4] = { 0.5, -0.5, 0.5, -0.5 };
    double py[4] = { 0.5, 0.5, -0.5, -0.5 };
    double dense[16];
    for ( int i = 0; i < 4; ++i )
    {
        for ( int j = 0; j < 4; ++j )
        {
            // J_i = [n, r_i x n]; r x z = (y, -x, 0); W = diag(1, 1, 1, 6, 6, 6)
            dense[i * 4 + j] = 1.0 + 6.0 * ( py[i] * py[j] + px[i] * px[j] );
        }
    }
    cntCsr csr;
    cntFromDense( dense, 4, &csr );
    double weights[4] = { 1.0, 2.0, -0.5, 0.25 };
    double rhs[4];
    for ( int i = 0; i < 4; ++i )
    {
        rhs[i] = 0.0;
        for ( int j = 0; j < 4; ++j )
        {
            rhs[i] += dense[i * 4 + j] * weights[j];
        }
    }
    for ( int b = 0; b < 2; ++b )
    {
        cnFactorBackend backend = b == 0 ? cn_factorDense : cn_factorCholmod;
        if ( backend == cn_factorCholmod && cnFactorHasCholmod() == false )
        {
            continue;
        }
        cnFactor* factor = cnFactorCreate();
        cnFactorStats stats = { 0 };
        ck_assert_int_eq( cnFactorize( factor, &csr.matrix, 0.0, backend, &stats ), cn_factorRegularized );
        ck_assert_int_eq( stats.regularized, 1 );
        ck_assert_int_ge( stats.factorizations, 2 );
        ck_assert_double_gt( stats.regularization, 0.0 );
        ck_assert_double_le( stats.regularization, 1e-2 * 4.0 ); // the largest step: 1e-2 x mean diagonal
        double x[4];
        ck_assert( cnFactorSolve( factor, rhs, x ) );
        ck_assert_double_le( cntResidual( dense, 4, x, rhs ), 1e3 * stats.regularization );
        cnFactorDestroy( factor );
    }
    cntFree( &csr );
}
END_TEST

// A regularisation asked for is used as it is (no retry), and shifts the answer accordingly.
START_TEST( cfm_asked_for_is_added )
{
    double dense[4] = { 2.0, 1.0, 1.0, 2.0 };
    cntCsr csr;
    cntFromDense( dense, 2, &csr );
    cnFactor* factor = cnFactorCreate();
    cnFactorStats stats = { 0 };
    ck_assert_int_eq( cnFactorize( factor, &csr.matrix, 1.0, cn_factorAuto, &stats ), cn_factorOk );
    ck_assert_double_eq( stats.regularization, 1.0 );
    double rhs[2] = { 4.0, 4.0 }; // (K + I) x = rhs: x = (1, 1)
    double x[2];
    ck_assert( cnFactorSolve( factor, rhs, x ) );
    ck_assert_double_eq_tol( x[0], 1.0, 1e-15 );
    ck_assert_double_eq_tol( x[1], 1.0, 1e-15 );
    cnFactorDestroy( factor );
    cntFree( &csr );
}
END_TEST

// CHOLMOD keeps its ordering and symbolic analysis for a system with the same pattern (new values:
// the IPM's Newton systems) and makes a new one for another pattern; every solve is right.
START_TEST( same_pattern_reuses_the_analysis )
{
    if ( !cnFactorHasCholmod() )
    {
        return;
    }
    int n = 150;
    double* dense = calloc( (size_t)( n * n ), sizeof( double ) );
    double* rhs = calloc( (size_t)n, sizeof( double ) );
    double* x = calloc( (size_t)n, sizeof( double ) );
    unsigned long long state = 7;
    for ( int i = 0; i < n; ++i )
    {
        rhs[i] = cntUniform( &state ) - 0.5;
    }
    cnFactor* factor = cnFactorCreate();
    cnFactorStats stats = { 0 };
    for ( int round = 0; round < 3; ++round )
    {
        // rounds 0 and 1: the same band pattern with other values; round 2: a wider band
        cntGram( n, n / 2, round < 2 ? 2 : 4, 1.0 + round, 11 + (unsigned long long)round, dense );
        cntCsr csr;
        cntFromDense( dense, n, &csr );
        ck_assert_int_eq( cnFactorize( factor, &csr.matrix, 0.0, cn_factorCholmod, &stats ), cn_factorOk );
        ck_assert( cnFactorSolve( factor, rhs, x ) );
        ck_assert_double_le( cntResidual( dense, n, x, rhs ), 1e-12 );
        ck_assert_int_eq( cnFactorAnalyses( factor ), round < 2 ? 1 : 2 );
        cntFree( &csr );
    }
    cnFactorDestroy( factor );
    free( dense );
    free( rhs );
    free( x );
}
END_TEST

// NaN in the matrix, a negative or NaN cfm, an indefinite matrix: failures with a reason; no solve.
START_TEST( bad_systems_fail_with_a_reason )
{
    double indefinite[4] = { 1.0, 0.0, 0.0, -1.0 };
    double nan[4] = { 1.0, 0.0, 0.0, NAN };
    cntCsr a, b;
    cntFromDense( indefinite, 2, &a );
    cntFromDense( nan, 2, &b );
    cnFactor* factor = cnFactorCreate();
    cnFactorStats stats = { 0 };
    double rhs[2] = { 1.0, 1.0 };
    double x[2];
    ck_assert_int_eq( cnFactorize( factor, &a.matrix, 0.0, cn_factorDense, &stats ), cn_factorFailed );
    ck_assert_ptr_nonnull( cnFactorReason( factor ) );
    ck_assert_int_eq( stats.failures, 1 );
    ck_assert( cnFactorSolve( factor, rhs, x ) == false );
    ck_assert_int_eq( cnFactorize( factor, &b.matrix, 0.0, cn_factorAuto, &stats ), cn_factorFailed );
    ck_assert_ptr_nonnull( strstr( cnFactorReason( factor ), "not finite" ) );
    ck_assert_int_eq( cnFactorize( factor, &a.matrix, -1.0, cn_factorAuto, &stats ), cn_factorFailed );
    ck_assert_int_eq( cnFactorize( factor, &a.matrix, (double)NAN, cn_factorAuto, &stats ), cn_factorFailed );
    if ( cnFactorHasCholmod() )
    {
        ck_assert_int_eq( cnFactorize( factor, &a.matrix, 0.0, cn_factorCholmod, &stats ), cn_factorFailed );
    }
    cnFactorDestroy( factor );
    cntFree( &a );
    cntFree( &b );
}
END_TEST

// What a build has: with CHOLMOD, auto takes it above CN_FACTOR_DENSE_AUTO rows; without it,
// the cholmod backend and dense systems above CN_FACTOR_DENSE_MAX rows are unavailable, saying
// that the build has no CHOLMOD.
START_TEST( build_says_what_it_has )
{
#ifdef CNT_EXPECT_CHOLMOD
    ck_assert( cnFactorHasCholmod() == ( CNT_EXPECT_CHOLMOD != 0 ) );
#endif
    int n = CN_FACTOR_DENSE_MAX + 1;
    // a diagonal system of that size
    int* rowStart = malloc( (size_t)( n + 1 ) * sizeof( int ) );
    int* column = malloc( (size_t)n * sizeof( int ) );
    double* value = malloc( (size_t)n * sizeof( double ) );
    for ( int i = 0; i < n; ++i )
    {
        rowStart[i] = i;
        column[i] = i;
        value[i] = 1.0 + i;
    }
    rowStart[n] = n;
    cnSparseMatrix big = { n, n, rowStart, column, value };
    cnFactor* factor = cnFactorCreate();
    cnFactorStats stats = { 0 };
    ck_assert_int_eq( cnFactorize( factor, &big, 0.0, cn_factorDense, &stats ), cn_factorUnavailable );
    if ( cnFactorHasCholmod() )
    {
        ck_assert_int_eq( cnFactorize( factor, &big, 0.0, cn_factorAuto, &stats ), cn_factorOk );
        ck_assert_str_eq( cnFactorBackendName( factor ), "cholmod" );
    }
    else
    {
        ck_assert_int_eq( cnFactorize( factor, &big, 0.0, cn_factorAuto, &stats ), cn_factorUnavailable );
        ck_assert_ptr_nonnull( strstr( cnFactorReason( factor ), "CN_WITH_CHOLMOD=OFF" ) );
        ck_assert_int_eq( cnFactorize( factor, &big, 0.0, cn_factorCholmod, &stats ), cn_factorUnavailable );
        ck_assert_ptr_nonnull( strstr( cnFactorReason( factor ), "CN_WITH_CHOLMOD=OFF" ) );
    }
    cnFactorDestroy( factor );
    free( rowStart );
    free( column );
    free( value );
}
END_TEST

int main( void )
{
    Suite* suite = suite_create( "factor" );
    TCase* tc = tcase_create( "factor" );
    tcase_add_test( tc, backends_solve_a_definite_system );
    tcase_add_test( tc, semi_definite_face_is_regularised );
    tcase_add_test( tc, cfm_asked_for_is_added );
    tcase_add_test( tc, same_pattern_reuses_the_analysis );
    tcase_add_test( tc, bad_systems_fail_with_a_reason );
    tcase_add_test( tc, build_says_what_it_has );
    suite_add_tcase( suite, tc );
    SRunner* runner = srunner_create( suite );
    srunner_run_all( runner, CK_NORMAL );
    int failed = srunner_ntests_failed( runner );
    srunner_free( runner );
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
