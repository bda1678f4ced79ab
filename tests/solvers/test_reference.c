// SPDX-License-Identifier: MIT
// PGS and PSOR against iterates computed by other people's code on the 20 Siconos LCPs:
// Siconos 4.4.0 lcp_pgs after k = 1, 2, 3, 5, 10, 20, 50 sweeps from zero, and Erleben's num4lcp
// (Octave) pgs.m after the same k and psor.m with lambda = 1.4 after 10 sweeps. Read from
// CN_SHARED_DIR at test time; skipped (passing, with a message) when the files are absent.
//
// Agreement measure, per component and purely relative: |x - ref| <= 1e-12 |ref| (so a zero in the
// reference must be an exact zero). This is stricter than the 1e-12 * max(1, |ref|), which
// matters for lcp_mmc whose iterates are ~1e-4; both worst values are printed.
#include "solvers_suites.h"
#include "test_support.h"

#include <cjson/cJSON.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CNT_SICONOS_REFERENCE CN_SHARED_DIR "/external-data/generated/siconos-lcp-reference.json"
#define CNT_NUM4LCP_REFERENCE CN_SHARED_DIR "/external-data/generated/num4lcp-octave-reference.json"
#define CNT_MAX_N             64

static cJSON* cntReadJson( const char* path )
{
    char* text = cntReadText( path, NULL );
    cJSON* root = text != NULL ? cJSON_Parse( text ) : NULL;
    free( text );
    return root;
}

// M_rowmajor and q of a Siconos reference problem into an explicit problem; false when malformed
static bool cntLoadProblem( const cJSON* record, cntLcp* lcp )
{
    const cJSON* rows = cJSON_GetObjectItemCaseSensitive( record, "M_rowmajor" );
    const cJSON* q = cJSON_GetObjectItemCaseSensitive( record, "q" );
    int n = cJSON_GetArraySize( q );
    if ( !cJSON_IsArray( rows ) || !cJSON_IsArray( q ) || n < 1 || n > CNT_MAX_N ||
         cJSON_GetArraySize( rows ) != n )
    {
        return false;
    }
    static double dense[CNT_MAX_N * CNT_MAX_N];
    double b[CNT_MAX_N];
    for ( int i = 0; i < n; ++i )
    {
        const cJSON* row = cJSON_GetArrayItem( rows, i );
        if ( cJSON_GetArraySize( row ) != n )
        {
            return false;
        }
        for ( int j = 0; j < n; ++j )
        {
            dense[i * n + j] = cJSON_GetNumberValue( cJSON_GetArrayItem( row, j ) );
        }
        b[i] = cJSON_GetNumberValue( cJSON_GetArrayItem( q, i ) );
    }
    cntSetDense( lcp, n, dense, b );
    return true;
}

typedef struct cntAgreement
{
    int compared;         // iterates compared
    int failures;         // components outside the tolerance, plus structural failures
    double worst;         // max |x - ref| / max(1, |ref|)
    double worstRelative; // max |x - ref| / |ref| over ref != 0
    char worstWhere[128];
} cntAgreement;

static void cntCompare( cntAgreement* agreement, const double* x, const cJSON* reference, int n,
                        const char* where )
{
    if ( cJSON_GetArraySize( reference ) != n )
    {
        agreement->failures += 1;
        return;
    }
    agreement->compared += 1;
    for ( int i = 0; i < n; ++i )
    {
        double ref = cJSON_GetNumberValue( cJSON_GetArrayItem( reference, i ) );
        double error = fabs( x[i] - ref );
        double scaled = error / fmax( 1.0, fabs( ref ) );
        if ( !( error <= 1e-12 * fabs( ref ) ) )
        {
            agreement->failures += 1;
        }
        agreement->worst = fmax( agreement->worst, scaled );
        if ( ref != 0.0 && error / fabs( ref ) > agreement->worstRelative )
        {
            agreement->worstRelative = error / fabs( ref );
            snprintf( agreement->worstWhere, sizeof( agreement->worstWhere ), "%s[%d]", where, i );
        }
    }
}

// run `solver` for exactly k sweeps from zero (tolerance 0, divergence rule off)
static cnSolverStats cntSweeps( const char* name, cnSolverProblem* problem, int k, double relaxation,
                                double* lambda )
{
    const cnSolverVTable* solver = cnFindSolver( name );
    ck_assert_ptr_nonnull( solver );
    double params[cn_sweepParamCount];
    for ( int p = 0; p < cn_sweepParamCount; ++p )
    {
        params[p] = solver->params[p].defaultValue;
    }
    params[cn_sweepParamIterations] = (double)k;
    params[cn_sweepParamTolerance] = 0.0;
    params[cn_sweepParamRelaxation] = relaxation;
    params[cn_sweepParamDivergenceFactor] = 0.0;
    for ( int i = 0; i < problem->rowCount; ++i )
    {
        lambda[i] = 0.0;
    }
    return cntSolveWithParams( solver, problem, lambda, NULL, params, NULL, 0 );
}

static bool cntHasZeroDiagonal( const cnSolverProblem* problem )
{
    cnScratch scratch = { .arena = NULL };
    cnPrepared prepared;
    ck_assert( cnPrepareProblem( problem, &scratch, &prepared ) );
    double diagonal[CNT_MAX_N];
    memcpy( diagonal, prepared.diagonal, (size_t)problem->rowCount * sizeof( double ) );
    cnScratchRelease( &scratch );
    for ( int i = 0; i < problem->rowCount; ++i )
    {
        if ( diagonal[i] == 0.0 )
        {
            return true;
        }
    }
    return false;
}

// the iterates of one "pgs_iterates_from_zero" object (or its absence where the diagonal has a
// zero: then pgs must say unsupported)
// keys: "1", "2", ... (Siconos file) or "k1", "k2", ... (num4lcp file): `keyPrefix`
static void cntCheckPgsIterates( cntAgreement* agreement, cnSolverProblem* problem, const cJSON* iterates,
                                 const char* keyPrefix, const char* file, int* undefined )
{
    double lambda[CNT_MAX_N];
    int n = problem->rowCount;
    if ( iterates == NULL || cJSON_IsNull( iterates ) )
    {
        *undefined += 1;
        cnSolverStats stats = cntSweeps( "pgs", problem, 1, 1.0, lambda );
        agreement->failures += stats.status != cn_solveUnsupported;
        agreement->failures += !cntHasZeroDiagonal( problem );
        return;
    }
    agreement->failures += cntHasZeroDiagonal( problem );
    static const int sweeps[7] = { 1, 2, 3, 5, 10, 20, 50 };
    for ( int s = 0; s < 7; ++s )
    {
        char key[16];
        snprintf( key, sizeof( key ), "%s%d", keyPrefix, sweeps[s] );
        const cJSON* reference = cJSON_GetObjectItemCaseSensitive( iterates, key );
        cnSolverStats stats = cntSweeps( "pgs", problem, sweeps[s], 1.0, lambda );
        agreement->failures += stats.status != cn_solveMaxIterations && stats.status != cn_solveConverged;
        char where[96];
        snprintf( where, sizeof( where ), "%s k=%d", file, sweeps[s] );
        cntCompare( agreement, lambda, reference, n, where );
    }
}

START_TEST( pgs_matches_siconos_lcp_pgs_iterates )
{
    cJSON* root = cntReadJson( CNT_SICONOS_REFERENCE );
    if ( root == NULL )
    {
        printf( "skipped: %s is absent\n", CNT_SICONOS_REFERENCE );
        return;
    }
    const cJSON* problems = cJSON_GetObjectItemCaseSensitive( root, "problems" );
    cntAgreement agreement = { 0 };
    int count = 0;
    int undefined = 0;
    char skippedNames[1024] = "";
    cntLcp* lcp = cntCreateLcp( CNT_MAX_N, 0 );
    const cJSON* record = NULL;
    cJSON_ArrayForEach( record, problems )
    {
        count += 1;
        if ( !cntLoadProblem( record, lcp ) )
        {
            agreement.failures += 1;
            continue;
        }
        const cJSON* iterates = cJSON_GetObjectItemCaseSensitive( record, "pgs_iterates_from_zero" );
        int before = undefined;
        cntCheckPgsIterates( &agreement, &lcp->problem, iterates, "", record->string, &undefined );
        if ( undefined != before )
        {
            strncat( skippedNames, " ", sizeof( skippedNames ) - strlen( skippedNames ) - 1 );
            strncat( skippedNames, record->string, sizeof( skippedNames ) - strlen( skippedNames ) - 1 );
        }
    }
    printf( "siconos lcp_pgs: %d problems, %d iterates compared, %d undefined (zero diagonal):%s\n", count,
            agreement.compared, undefined, skippedNames );
    printf( "siconos lcp_pgs: worst |x - ref| / |ref| = %.3g at %s, worst |x - ref| / max(1, |ref|) = %.3g\n",
            agreement.worstRelative, agreement.worstWhere, agreement.worst );
    cntDestroyLcp( lcp );
    cJSON_Delete( root );
    ck_assert_int_eq( count, 20 );
    ck_assert_int_eq( agreement.compared, 7 * 11 );
    ck_assert_int_eq( undefined, 9 );
    ck_assert_msg( agreement.failures == 0, "%d failures, worst %g at %s", agreement.failures,
                   agreement.worstRelative, agreement.worstWhere );
}
END_TEST

START_TEST( pgs_and_psor_match_num4lcp )
{
    cJSON* siconos = cntReadJson( CNT_SICONOS_REFERENCE );
    cJSON* root = cntReadJson( CNT_NUM4LCP_REFERENCE );
    if ( root == NULL || siconos == NULL )
    {
        printf( "skipped: %s or %s is absent\n", CNT_NUM4LCP_REFERENCE, CNT_SICONOS_REFERENCE );
        cJSON_Delete( root );
        cJSON_Delete( siconos );
        return;
    }
    // the matrices come from the Siconos file, by file name
    const cJSON* matrices = cJSON_GetObjectItemCaseSensitive( siconos, "problems" );
    const cJSON* problems = cJSON_GetObjectItemCaseSensitive( root, "problems" );
    cntAgreement pgs = { 0 };
    cntAgreement psor = { 0 };
    int count = 0;
    int undefined = 0;
    cntLcp* lcp = cntCreateLcp( CNT_MAX_N, 0 );
    const cJSON* record = NULL;
    cJSON_ArrayForEach( record, problems )
    {
        count += 1;
        const cJSON* file = cJSON_GetObjectItemCaseSensitive( record, "file" );
        const cJSON* matrix =
            cJSON_IsString( file ) ? cJSON_GetObjectItemCaseSensitive( matrices, file->valuestring ) : NULL;
        if ( matrix == NULL || !cntLoadProblem( matrix, lcp ) )
        {
            psor.failures += 1;
            continue;
        }
        cntCheckPgsIterates( &pgs, &lcp->problem,
                             cJSON_GetObjectItemCaseSensitive( record, "pgs_iterates_from_zero" ), "k",
                             file->valuestring, &undefined );

        const cJSON* reference = cJSON_GetObjectItemCaseSensitive( record, "psor_lambda1p4_10sweeps" );
        double lambda[CNT_MAX_N];
        cnSolverStats stats = cntSweeps( "psor", &lcp->problem, 10, 1.4, lambda );
        if ( reference == NULL )
        {
            psor.failures += stats.status != cn_solveUnsupported;
            continue;
        }
        psor.failures += stats.status != cn_solveMaxIterations && stats.status != cn_solveConverged;
        char where[96];
        snprintf( where, sizeof( where ), "%s psor", file->valuestring );
        cntCompare( &psor, lambda, reference, lcp->problem.rowCount, where );
    }
    printf( "num4lcp pgs.m: %d iterates compared, worst relative %.3g at %s, worst scaled %.3g\n",
            pgs.compared, pgs.worstRelative, pgs.worstWhere, pgs.worst );
    printf( "num4lcp psor.m (1.4, 10 sweeps): %d problems compared, worst relative %.3g at %s, worst scaled "
            "%.3g\n",
            psor.compared, psor.worstRelative, psor.worstWhere, psor.worst );
    cntDestroyLcp( lcp );
    cJSON_Delete( root );
    cJSON_Delete( siconos );
    ck_assert_int_eq( count, 20 );
    ck_assert_int_eq( undefined, 9 );
    ck_assert_int_eq( pgs.compared, 7 * 11 );
    ck_assert_int_eq( psor.compared, 11 );
    ck_assert_msg( pgs.failures == 0, "pgs: %d failures, worst %g at %s", pgs.failures, pgs.worstRelative,
                   pgs.worstWhere );
    ck_assert_msg( psor.failures == 0, "psor: %d failures, worst %g at %s", psor.failures, psor.worstRelative,
                   psor.worstWhere );
}
END_TEST

// The enumerated solutions are exact solutions: the shared residual is at round-off there, and
// the LEMKE run's z as well when Siconos reports success
START_TEST( residual_is_round_off_at_enumerated_solutions )
{
    cJSON* root = cntReadJson( CNT_SICONOS_REFERENCE );
    if ( root == NULL )
    {
        printf( "skipped: %s is absent\n", CNT_SICONOS_REFERENCE );
        return;
    }
    const cJSON* problems = cJSON_GetObjectItemCaseSensitive( root, "problems" );
    cntLcp* lcp = cntCreateLcp( CNT_MAX_N, 0 );
    int checked = 0;
    int failures = 0;
    double worst = 0.0;
    const cJSON* record = NULL;
    cJSON_ArrayForEach( record, problems )
    {
        if ( !cntLoadProblem( record, lcp ) )
        {
            failures += 1;
            continue;
        }
        int n = lcp->problem.rowCount;
        const cJSON* solutions = cJSON_GetObjectItemCaseSensitive( record, "all_solutions_by_enumeration" );
        const cJSON* solution = NULL;
        cJSON_ArrayForEach( solution, solutions )
        {
            double z[CNT_MAX_N];
            for ( int i = 0; i < n; ++i )
            {
                z[i] = cJSON_GetNumberValue( cJSON_GetArrayItem( solution, i ) );
            }
            // the grading merit is already relative to the problem's own scale
            cnSolverMerits merits;
            ck_assert( cnComputeSolverMerits( &lcp->problem, z, NULL, &merits ) );
            double relative = merits.naturalMap;
            worst = fmax( worst, relative );
            failures += !( relative <= 1e-12 );
            checked += 1;
        }
        // positive away from a solution: at zero unless q >= 0 (then zero is the solution)
        double zero[CNT_MAX_N] = { 0 };
        bool zeroSolves = true;
        for ( int i = 0; i < n; ++i )
        {
            zeroSolves = zeroSolves && lcp->b[i] >= 0.0;
        }
        cnSolverMerits merits;
        ck_assert( cnComputeSolverMerits( &lcp->problem, zero, NULL, &merits ) );
        double atZero = merits.naturalMap;
        failures += zeroSolves ? atZero != 0.0 : !( atZero > 0.0 );
    }
    printf( "enumerated solutions: %d checked, worst merit (natural map) %.3g\n", checked, worst );
    cntDestroyLcp( lcp );
    cJSON_Delete( root );
    ck_assert_int_gt( checked, 10 );
    ck_assert_int_eq( failures, 0 );
}
END_TEST

Suite* cntReferenceSuite( void )
{
    Suite* suite = suite_create( "reference" );
    TCase* tc = tcase_create( "external" );
    tcase_add_test( tc, pgs_matches_siconos_lcp_pgs_iterates );
    tcase_add_test( tc, pgs_and_psor_match_num4lcp );
    tcase_add_test( tc, residual_is_round_off_at_enumerated_solutions );
    suite_add_tcase( suite, tc );
    return suite;
}
