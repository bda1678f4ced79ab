// SPDX-License-Identifier: MIT
// Lemke's method: the Siconos LCPs against every solution found by enumeration, Siconos' own
// Lemke answers under our merit function, and small problems of our own for each status.
#include "arena.h"
#include "lcp_suites.h"
#include "lcp_test_support.h"
#include "solver_layer.h"
#include "test_support.h"

#include "cairn/lcp_io.h"
#include "cairn/solver.h"

#include <check.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CNT_MAX_N 64

static const cnSolverVTable* cntLemke( void )
{
    const cnSolverVTable* lemke = cnFindSolver( "lemke" );
    ck_assert_ptr_nonnull( lemke );
    ck_assert( lemke->solve != NULL );
    return lemke;
}

// Lemke's params with the given pivot limit (0: default).
static void cntLemkeParams( double* params, int pivots )
{
    const cnSolverVTable* lemke = cntLemke();
    ck_assert_int_eq( lemke->paramCount, 4 );
    for ( int i = 0; i < lemke->paramCount; ++i )
    {
        params[i] = lemke->params[i].defaultValue;
    }
    ck_assert_str_eq( lemke->params[0].name, "iterations" );
    if ( pivots > 0 )
    {
        params[0] = (double)pivots;
    }
}

// What Lemke does on each reference LCP: every LCP with a solution is solved. CPS_3's M has zero
// diagonal blocks, so the pivoting ends on a ray at pivot 2 for any positive covering vector (as
// Siconos' Lemke, info 1); the enumeration of complementary bases that follows finds a solution.
static cnSolveStatus cntExpectedLemkeStatus( const char* name )
{
    if ( strcmp( name, "lcp_Pang_isolated_sol_perturbed.dat" ) == 0 )
    {
        return cn_solveNoSolution;
    }
    return cn_solveConverged;
}

static double cntInfNorm( const double* v, int n )
{
    double m = 0.0;
    for ( int i = 0; i < n; ++i )
    {
        m = fmax( m, fabs( v[i] ) );
    }
    return m;
}

START_TEST( lemke_on_reference_lcps )
{
    cJSON* reference = cntLoadJson( CNT_LCP_REFERENCE );
    if ( reference == NULL )
    {
        printf( "skipped: %s not found\n", CNT_LCP_REFERENCE );
        return;
    }
    const cnSolverVTable* lemke = cntLemke();
    double params[4];
    cntLemkeParams( params, 0 );
    cntCountingAllocator counter;
    cnAllocator allocator = cntMakeCountingAllocator( &counter );

    int failures = 0;
    int solved = 0;
    const cJSON* entry = NULL;
    cJSON_ArrayForEach( entry, cJSON_GetObjectItemCaseSensitive( reference, "problems" ) )
    {
        const char* name = entry->string;
        int n = (int)cJSON_GetObjectItemCaseSensitive( entry, "n" )->valuedouble;
        ck_assert_int_le( n, CNT_MAX_N );
        double m[CNT_MAX_N * CNT_MAX_N];
        double q[CNT_MAX_N];
        const cJSON* rows = cJSON_GetObjectItemCaseSensitive( entry, "M_rowmajor" );
        for ( int i = 0; i < n; ++i )
        {
            ck_assert_int_eq( cntJsonNumbers( cJSON_GetArrayItem( rows, i ), m + i * n, n ), n );
        }
        ck_assert_int_eq( cntJsonNumbers( cJSON_GetObjectItemCaseSensitive( entry, "q" ), q, n ), n );
        cntDenseLcp lcp;
        cntMakeDenseLcp( &lcp, n, m, q );

        double lambda[CNT_MAX_N] = { 0 };
        cnSolverSolution solution = { .lambda = lambda };
        cnSolverStats stats;
        ck_assert_int_eq( cnRunSolver( lemke, params, &lcp.problem, &solution, &allocator, &stats ),
                          cn_statusOk );
        // the test's own natural map, and the layer's merit recomputed
        double residual = cntRawNaturalMap( n, m, q, lambda );
        double scale = fmax( 1.0, cntInfNorm( q, n ) );
        cnSolverMerits merits;
        ck_assert( cnComputeSolverMerits( &lcp.problem, lambda, NULL, &merits ) );

        // the closest enumerated solution
        const cJSON* solutions = cJSON_GetObjectItemCaseSensitive( entry, "all_solutions_by_enumeration" );
        int solutionCount = cJSON_IsArray( solutions ) ? cJSON_GetArraySize( solutions ) : -1;
        double closest = (double)INFINITY;
        const cJSON* s = NULL;
        cJSON_ArrayForEach( s, solutions )
        {
            double z[CNT_MAX_N];
            ck_assert_int_eq( cntJsonNumbers( s, z, n ), n );
            double gap = 0.0;
            for ( int i = 0; i < n; ++i )
            {
                gap = fmax( gap, fabs( z[i] - lambda[i] ) / fmax( 1.0, fabs( z[i] ) ) );
            }
            closest = fmin( closest, gap );
        }

        cnSolveStatus expected = cntExpectedLemkeStatus( name );
        bool ok = stats.status == expected && stats.residual == merits.naturalMap;
        if ( expected == cn_solveConverged )
        {
            ok = ok && residual <= 1e-10 * scale && ( solutionCount < 0 || closest <= 1e-9 );
            solved += ok ? 1 : 0;
        }
        printf( "lemke %-36s n %2d: %-11s %3d pivots, residual %.3g, enumerated solutions %d, closest %.3g\n",
                name, n, cnSolveStatusName( stats.status ), stats.iterations, residual, solutionCount,
                closest );
        if ( ok == false )
        {
            printf( "    expected %s\n", cnSolveStatusName( expected ) );
            failures += 1;
        }
        cntFreeDenseLcp( &lcp );
    }
    ck_assert_msg( failures == 0, "%d reference LCPs did not go as expected", failures );
    ck_assert_int_ge( solved, 18 );
    ck_assert_uint_eq( counter.liveBytes, 0 );
    cJSON_Delete( reference );
}
END_TEST

// Siconos' own Lemke answers (where it said info 0) are solutions under our merit function too.
START_TEST( siconos_lemke_answers_have_small_residual )
{
    cJSON* reference = cntLoadJson( CNT_LCP_REFERENCE );
    if ( reference == NULL )
    {
        printf( "skipped: %s not found\n", CNT_LCP_REFERENCE );
        return;
    }
    int failures = 0;
    int checked = 0;
    const cJSON* entry = NULL;
    cJSON_ArrayForEach( entry, cJSON_GetObjectItemCaseSensitive( reference, "problems" ) )
    {
        const cJSON* run = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive( entry, "siconos_runs" ), "LEMKE" );
        const cJSON* info = cJSON_GetObjectItemCaseSensitive( run, "info" );
        if ( cJSON_IsNumber( info ) == false || info->valuedouble != 0.0 )
        {
            continue;
        }
        int n = (int)cJSON_GetObjectItemCaseSensitive( entry, "n" )->valuedouble;
        double m[CNT_MAX_N * CNT_MAX_N];
        double q[CNT_MAX_N];
        double z[CNT_MAX_N];
        const cJSON* rows = cJSON_GetObjectItemCaseSensitive( entry, "M_rowmajor" );
        for ( int i = 0; i < n; ++i )
        {
            cntJsonNumbers( cJSON_GetArrayItem( rows, i ), m + i * n, n );
        }
        cntJsonNumbers( cJSON_GetObjectItemCaseSensitive( entry, "q" ), q, n );
        ck_assert_int_eq( cntJsonNumbers( cJSON_GetObjectItemCaseSensitive( run, "z" ), z, n ), n );
        cntDenseLcp lcp;
        cntMakeDenseLcp( &lcp, n, m, q );
        double residual = cntRawNaturalMap( n, m, q, z );
        if ( !( residual <= 1e-10 * fmax( 1.0, cntInfNorm( q, n ) ) ) )
        {
            printf( "%s: Siconos LEMKE z has residual %.3g\n", entry->string, residual );
            failures += 1;
        }
        checked += 1;
        cntFreeDenseLcp( &lcp );
    }
    printf( "siconos LEMKE: %d answers with info 0 checked\n", checked );
    ck_assert_int_eq( failures, 0 );
    ck_assert_int_ge( checked, 15 );
    cJSON_Delete( reference );
}
END_TEST

// A small LCP solved through cnRunSolver, with the given pivot limit (0: default).
static cnSolverStats cntSolveSmall( int n, const double* m, const double* q, int pivots, double* lambda )
{
    cntDenseLcp lcp;
    cntMakeDenseLcp( &lcp, n, m, q );
    double params[4];
    cntLemkeParams( params, pivots );
    cnSolverSolution solution = { .lambda = lambda };
    cnSolverStats stats;
    cntCountingAllocator counter;
    cnAllocator allocator = cntMakeCountingAllocator( &counter );
    ck_assert_int_eq( cnRunSolver( cntLemke(), params, &lcp.problem, &solution, &allocator, &stats ),
                      cn_statusOk );
    ck_assert_uint_eq( counter.liveBytes, 0 );
    cntFreeDenseLcp( &lcp );
    return stats;
}

START_TEST( statuses_on_small_problems )
{
    // b >= 0: lambda = 0 at once
    double lambda[8];
    const double identity2[4] = { 1, 0, 0, 1 };
    const double positive[2] = { 1, 0 };
    lambda[0] = lambda[1] = 7.0;
    cnSolverStats stats = cntSolveSmall( 2, identity2, positive, 0, lambda );
    ck_assert_int_eq( stats.status, cn_solveConverged );
    ck_assert_int_eq( stats.iterations, 0 );
    CNT_ASSERT_ABS( lambda[0], 0.0, 0.0 );
    CNT_ASSERT_ABS( lambda[1], 0.0, 0.0 );
    ck_assert( stats.milliseconds >= 0.0 );

    // w = 2 z1 + z2 - 5, z1 + 2 z2 - 6: z = (4/3, 7/3) after 3 pivots; a limit of 1 stops first
    const double m[4] = { 2, 1, 1, 2 };
    const double q[2] = { -5, -6 };
    stats = cntSolveSmall( 2, m, q, 0, lambda );
    ck_assert_int_eq( stats.status, cn_solveConverged );
    CNT_ASSERT_ABS( lambda[0], 4.0 / 3.0, 1e-15 );
    CNT_ASSERT_ABS( lambda[1], 7.0 / 3.0, 1e-15 );
    ck_assert( stats.residual <= 1e-15 );
    stats = cntSolveSmall( 2, m, q, 1, lambda );
    ck_assert_int_eq( stats.status, cn_solveMaxIterations );
    ck_assert_int_eq( stats.iterations, 1 );
    ck_assert( stats.residual > 0.1 );

    // w = -z - 1 >= 0 has no solution with z >= 0: ray termination
    const double minusOne[1] = { -1 };
    stats = cntSolveSmall( 1, minusOne, minusOne, 0, lambda );
    ck_assert_int_eq( stats.status, cn_solveNoSolution );

    // fully degenerate: M = I, b = -1 everywhere, every first ratio ties (lexicographic rule)
    double eye[36] = { 0 };
    double minus[6];
    for ( int i = 0; i < 6; ++i )
    {
        eye[i * 6 + i] = 1.0;
        minus[i] = -1.0;
    }
    stats = cntSolveSmall( 6, eye, minus, 0, lambda );
    ck_assert_int_eq( stats.status, cn_solveConverged );
    for ( int i = 0; i < 6; ++i )
    {
        CNT_ASSERT_ABS( lambda[i], 1.0, 1e-15 );
    }

    // NaN in b or A: nonfinite, lambda 0
    const double nanQ[2] = { -1, (double)NAN };
    lambda[0] = lambda[1] = 3.0;
    stats = cntSolveSmall( 2, identity2, nanQ, 0, lambda );
    ck_assert_int_eq( stats.status, cn_solveNonFinite );
    CNT_ASSERT_ABS( lambda[0], 0.0, 0.0 );
    const double nanM[4] = { 1, (double)NAN, 0, 1 };
    stats = cntSolveSmall( 2, nanM, q, 0, lambda );
    ck_assert_int_eq( stats.status, cn_solveNonFinite );

    // no rows at all
    stats = cntSolveSmall( 0, identity2, q, 0, lambda );
    ck_assert_int_eq( stats.status, cn_solveConverged );
    CNT_ASSERT_ABS( stats.residual, 0.0, 0.0 );
}
END_TEST

// Friction and bounded rows, too many rows, no arena: unsupported, lambda untouched.
START_TEST( unsupported_problems )
{
    const cnSolverVTable* lemke = cntLemke();
    cnFileProblem file;
    char message[CN_PROBLEM_MESSAGE_CAPACITY];
    ck_assert_int_eq( cnReadProblemFile( cntLcpDataPath( 0, "small_fc3d.dat" ), cn_problemAuto, NULL, &file,
                                         message, sizeof( message ) ),
                      cn_statusOk );
    double lambda[3] = { 5, 6, 7 };
    cnSolverSolution solution = { .lambda = lambda };
    cnSolverStats stats;
    ck_assert_int_eq( cnRunSolver( lemke, NULL, &file.problem, &solution, NULL, &stats ), cn_statusOk );
    ck_assert_int_eq( stats.status, cn_solveUnsupported );
    CNT_ASSERT_ABS( lambda[0], 5.0, 0.0 );
    CNT_ASSERT_ABS( lambda[2], 7.0, 0.0 );
    cnDestroyFileProblem( &file );

    // 4097 rows: past the dense limit (the check comes before any allocation)
    int n = 4097;
    int* rowStart = calloc( (size_t)n + 1, sizeof( int ) );
    int* column = calloc( (size_t)n, sizeof( int ) );
    double* value = calloc( (size_t)n, sizeof( double ) );
    cnRowGroup* groups = calloc( (size_t)n, sizeof( cnRowGroup ) );
    double* b = calloc( (size_t)n, sizeof( double ) );
    double* big = calloc( (size_t)n, sizeof( double ) );
    for ( int i = 0; i < n; ++i )
    {
        rowStart[i + 1] = i + 1;
        column[i] = i;
        value[i] = 1.0;
        b[i] = -1.0;
        groups[i] = ( cnRowGroup ){ .firstRow = i, .rowCount = 1, .kind = cn_groupNormal };
    }
    cnSparseMatrix matrix = {
        .rows = n, .columns = n, .rowStart = rowStart, .column = column, .value = value };
    cnSolverProblem problem = { .rowCount = n,
                                .rowCapacity = n,
                                .groupCount = n,
                                .groupCapacity = n,
                                .groups = groups,
                                .b = b,
                                .matrix = &matrix };
    solution.lambda = big;
    ck_assert_int_eq( cnRunSolver( lemke, NULL, &problem, &solution, NULL, &stats ), cn_statusOk );
    ck_assert_int_eq( stats.status, cn_solveUnsupported );
    CNT_ASSERT_ABS( big[0], 0.0, 0.0 );

    problem.rowCount = 2;
    problem.groupCount = 2;
    matrix.rows = matrix.columns = 2;
    free( rowStart );
    free( column );
    free( value );
    free( groups );
    free( b );
    free( big );

    // the runner's own refusals
    ck_assert_int_eq( cnRunSolver( NULL, NULL, &problem, &solution, NULL, &stats ),
                      cn_statusInvalidArgument );
    cnSolverVTable noSolve = *lemke;
    noSolve.solve = NULL;
    ck_assert_int_eq( cnRunSolver( &noSolve, NULL, &problem, &solution, NULL, &stats ),
                      cn_statusUnsupported );
    cnSolverVTable otherVersion = *lemke;
    otherVersion.apiVersion = CN_SOLVER_API_VERSION + 1;
    ck_assert_int_eq( cnRunSolver( &otherVersion, NULL, &problem, &solution, NULL, &stats ),
                      cn_statusUnsupported );
}
END_TEST

// A matrix-free problem: one body (unit mass and inertia), two rows; deltaVelocity = W J^T lambda,
// and the same lambda as the explicit A = J W J^T.
START_TEST( matrix_free_problem )
{
    const double jacobian[12] = { 0, 0, 1, 0, 0, 0, /**/ 0, 0, 1, 1, 0, 0 };
    const double none[12] = { 0 };
    const double identity[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 };
    int32_t bodyA[2] = { 0, 0 };
    int32_t bodyB[2] = { -1, -1 };
    cnRowGroup groups[2] = { { .firstRow = 0, .rowCount = 1, .kind = cn_groupNormal },
                             { .firstRow = 1, .rowCount = 1, .kind = cn_groupNormal } };
    double zeros[2] = { 0, 0 };
    double upper[2] = { (double)INFINITY, (double)INFINITY };
    double b[2] = { -1.0, -3.0 };
    double jacobianA[12];
    double jacobianB[12];
    memcpy( jacobianA, jacobian, sizeof( jacobianA ) );
    memcpy( jacobianB, none, sizeof( jacobianB ) );
    cnSolverProblem problem = {
        .rowCount = 2,
        .rowCapacity = 2,
        .groupCount = 2,
        .groupCapacity = 2,
        .bodyCount = 1,
        .groups = groups,
        .lower = zeros,
        .upper = upper,
        .b = b,
        .bodyA = bodyA,
        .bodyB = bodyB,
        .jacobianA = jacobianA,
        .jacobianB = jacobianB,
        .wLinear = identity,
        .wAngular = identity,
    };
    double lambda[2] = { 0, 0 };
    double velocity[6] = { 9, 9, 9, 9, 9, 9 };
    cnSolverSolution solution = { .lambda = lambda, .deltaVelocity = velocity };
    cnSolverStats stats;
    cntCountingAllocator counter;
    cnAllocator allocator = cntMakeCountingAllocator( &counter );
    ck_assert_int_eq( cnRunSolver( cntLemke(), NULL, &problem, &solution, &allocator, &stats ), cn_statusOk );
    ck_assert_int_eq( stats.status, cn_solveConverged );
    ck_assert( stats.residual <= 1e-14 );
    // A = [[1, 1], [1, 2]]: w = A lambda + b = 0 gives lambda = (-1, 2), not admissible; the
    // solution is lambda = (0, 1.5) with w0 = 0.5
    CNT_ASSERT_ABS( lambda[0], 0.0, 1e-15 );
    CNT_ASSERT_ABS( lambda[1], 1.5, 1e-15 );
    // W J^T lambda = lambda0 (0,0,1,0,0,0) + lambda1 (0,0,1,1,0,0)
    const double expected[6] = { 0, 0, 1.5, 1.5, 0, 0 };
    for ( int k = 0; k < 6; ++k )
    {
        CNT_ASSERT_ABS( velocity[k], expected[k], 1e-15 );
    }
    ck_assert_uint_eq( counter.liveBytes, 0 );

    // the engine's way: the layer with an arena the caller owns (a definite problem: no second
    // round)
    cnArena arena;
    cnCreateArena( &arena, NULL, 256 );
    lambda[0] = lambda[1] = 0.0;
    cnSolverBudget budget = cnBudgetFromParams( cntLemke(), NULL );
    cnLayerSolve( cntLemke(), NULL, NULL, &budget, &problem, &solution, &arena, NULL, &stats );
    ck_assert_int_eq( stats.status, cn_solveConverged );
    ck_assert_int_eq( stats.fallbacks, 0 );
    CNT_ASSERT_ABS( lambda[1], 1.5, 1e-15 );
    cnDestroyArena( &arena );
}
END_TEST

// The registry entry: name, caps, the three common parameters.
START_TEST( registry_entry )
{
    const cnSolverVTable* lemke = cntLemke();
    ck_assert_int_eq( lemke->apiVersion, CN_SOLVER_API_VERSION );
    ck_assert_uint_eq( lemke->caps, cn_solverExplicit | cn_solverMatrixFree | cn_solverDirect );
    const char* names[4] = { "iterations", "pivot_tolerance", "warm_start", "regularization" };
    ck_assert_int_eq( lemke->paramCount, 4 );
    for ( int i = 0; i < 4; ++i )
    {
        const cnSolverParam* param = lemke->params + i;
        ck_assert_str_eq( param->name, names[i] );
        ck_assert( param->minValue <= param->defaultValue && param->defaultValue <= param->maxValue );
        ck_assert_ptr_nonnull( param->description );
    }
    ck_assert( lemke->create == NULL );
}
END_TEST

Suite* cntLcpLemkeSuite( void )
{
    Suite* suite = suite_create( "lcp_lemke" );
    TCase* shared = tcase_create( "shared_data" );
    tcase_add_test( shared, lemke_on_reference_lcps );
    tcase_add_test( shared, siconos_lemke_answers_have_small_residual );
    suite_add_tcase( suite, shared );
    TCase* own = tcase_create( "own_problems" );
    tcase_add_test( own, statuses_on_small_problems );
    tcase_add_test( own, unsupported_problems );
    tcase_add_test( own, matrix_free_problem );
    tcase_add_test( own, registry_entry );
    suite_add_tcase( suite, own );
    return suite;
}
