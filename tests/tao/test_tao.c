// SPDX-License-Identifier: MIT
// The tao solver (solvers/solver_tao.c, PETSc/TAO): built only with -DCN_WITH_PETSC=ON.
//
// - On problems dumped from the ReLCP colony (relcp_colony.json at 64 and 128 cells, `cairn run
//   --dump-problem`): TAO's methods to a merit of 1e-10 and pgs_sm to 1e-14, from zero, give the same
//   solution to 1e-8. The impulses of such a problem are not unique (a jammed colony has more rows
//   than its cells have degrees of freedom), so the comparison is of what is: the objective
//   1/2 x^T A x + b^T x and the velocities w = A x + b, in the merit's own scale.
// - Bounded rows with a closed form, a non-symmetric matrix refused, friction refused by the layer.
// - relcp with tao inside grows the colony to 32 cells with no step leaving an overlap.

#include "solver_kit.h"
#include "solvers_suites.h"
#include "systems.h"
#include "test_support.h"

#include "cairn/cairn.h"
#include "cairn/lcp_io.h"
#include "cairn/scene.h"

#include <check.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// one solve through the layer, from lambda, with the solver's defaults and the given changes
static cnSolverStats cntSolveTao( const char* name, cnSolverProblem* problem, double* lambda,
                                  const char* param, double value, double tolerance, int iterations )
{
    const cnSolverVTable* solver = cnFindSolver( name );
    ck_assert_msg( solver != NULL, "solver %s is not registered", name );
    double params[CN_MAX_SOLVER_PARAMS];
    for ( int k = 0; k < solver->paramCount; ++k )
    {
        params[k] = solver->params[k].defaultValue;
    }
    params[cnFindSolverParam( solver, "tolerance" )] = tolerance;
    params[cnFindSolverParam( solver, "iterations" )] = iterations;
    if ( param != NULL )
    {
        int index = cnFindSolverParam( solver, param );
        ck_assert_int_ge( index, 0 );
        params[index] = value;
    }
    return cntSolveWithParams( solver, problem, lambda, NULL, params, NULL, 0 );
}

// w = A x + b of an explicit problem
static void cntVelocities( const cnSolverProblem* problem, const double* x, double* w )
{
    cnSparseMultiply( problem->matrix, x, w );
    for ( int i = 0; i < problem->rowCount; ++i )
    {
        w[i] += problem->b[i];
    }
}

// A_ii of an explicit problem
static double cntDiagonal( const cnSolverProblem* problem, int i )
{
    double d = 0.0;
    for ( int k = problem->matrix->rowStart[i]; k < problem->matrix->rowStart[i + 1]; ++k )
    {
        d = problem->matrix->column[k] == i ? problem->matrix->value[k] : d;
    }
    return d;
}

START_TEST( tao_matches_pgs_sm_on_colony_dumps )
{
    const char* files[2] = { "colony64.dat", "colony128.dat" };
    // TAO's interior point (the default) and its Newton method with line search (blmvm, its
    // quasi-Newton method, stalls near 1e-10 on these: 1.8e-10 after 20,000 iterations)
    const char* methods[2] = { "bqpip", "bnls" };
    const double methodChoice[2] = { 0.0, 1.0 }; // their places in the parameter's choices
    for ( int f = 0; f < 2; ++f )
    {
        char path[512];
        snprintf( path, sizeof( path ), "%s/%s", CN_TEST_DATA_DIR, files[f] );
        cnFileProblem file;
        char message[CN_PROBLEM_MESSAGE_CAPACITY];
        ck_assert_msg( cnReadProblemFile( path, cn_problemAuto, NULL, &file, message, sizeof( message ) ) ==
                           cn_statusOk,
                       "%s", message );
        cnSolverProblem* problem = &file.problem;
        int n = problem->rowCount;
        double* reference = calloc( (size_t)n, sizeof( double ) );
        double* lambda = calloc( (size_t)n, sizeof( double ) );
        double* wReference = calloc( (size_t)n, sizeof( double ) );
        double* w = calloc( (size_t)n, sizeof( double ) );
        ck_assert( reference != NULL && lambda != NULL && wReference != NULL && w != NULL );

        cnSolverStats sm = cntSolveTao( "pgs_sm", problem, reference, NULL, 0.0, 1e-14, 20000 );
        ck_assert_msg( sm.status == cn_solveConverged, "%s: pgs_sm %s at %g", files[f],
                       cnSolveStatusName( sm.status ), sm.residual );
        cntVelocities( problem, reference, wReference );
        double objectiveReference = 0.0;
        for ( int i = 0; i < n; ++i )
        {
            objectiveReference += 0.5 * reference[i] * ( wReference[i] + problem->b[i] );
        }

        // the merit's scale and weights (merit.c): |D^1/2 x| + |D^-1/2 b|, rows weighted by 1 / A_ii
        double scale = 0.0, freeScale = 0.0;
        for ( int i = 0; i < n; ++i )
        {
            double d = cntDiagonal( problem, i );
            ck_assert( d > 0.0 );
            scale += d * reference[i] * reference[i];
            freeScale += problem->b[i] * problem->b[i] / d;
        }
        scale = sqrt( scale ) + sqrt( freeScale );

        for ( int m = 0; m < 2; ++m )
        {
            memset( lambda, 0, (size_t)n * sizeof( double ) );
            cnSolverStats tao =
                cntSolveTao( "tao", problem, lambda, "method", methodChoice[m], 1e-10, 50000 );
            ck_assert_msg( tao.status == cn_solveConverged, "%s: tao %s %s at %g (%s)", files[f], methods[m],
                           cnSolveStatusName( tao.status ), tao.residual, tao.reason ? tao.reason : "" );
            ck_assert( tao.residual <= 1e-10 );
            cntVelocities( problem, lambda, w );
            double objective = 0.0, difference = 0.0;
            for ( int i = 0; i < n; ++i )
            {
                objective += 0.5 * lambda[i] * ( w[i] + problem->b[i] );
                difference += ( w[i] - wReference[i] ) * ( w[i] - wReference[i] ) / cntDiagonal( problem, i );
            }
            difference = sqrt( difference ) / scale;
            double objectiveGap = fabs( objective - objectiveReference ) / ( scale * scale );
            printf( "%s (%d rows): tao %s %d iterations, merit %.3g; pgs_sm %d cycles, merit %.3g; "
                    "w differs by %.3g, the objective by %.3g (in the merit's scale)\n",
                    files[f], n, methods[m], tao.iterations, tao.residual, sm.iterations, sm.residual,
                    difference, objectiveGap );
            ck_assert_msg( difference <= 1e-8, "%s, %s: w differs by %g", files[f], methods[m], difference );
            ck_assert_msg( objectiveGap <= 1e-8, "%s, %s: objective differs by %g", files[f], methods[m],
                           objectiveGap );
        }
        free( reference );
        free( lambda );
        free( wReference );
        free( w );
        cnDestroyFileProblem( &file );
    }
}
END_TEST

// an explicit problem of n rows, A tridiagonal (2 on the diagonal, `off` beside it)
typedef struct cntSmall
{
    cnSolverProblem problem;
    cnSparseMatrix matrix;
    cnRowGroup groups[4];
    int rowStart[5];
    int column[12];
    double value[12];
    double b[4], lower[4], upper[4];
} cntSmall;

static void cntMakeSmall( cntSmall* s, double off, double below )
{
    memset( s, 0, sizeof( *s ) );
    int k = 0;
    for ( int i = 0; i < 4; ++i )
    {
        s->rowStart[i] = k;
        for ( int j = i - 1; j <= i + 1; ++j )
        {
            if ( j < 0 || j > 3 )
            {
                continue;
            }
            s->column[k] = j;
            s->value[k] = j == i ? 2.0 : ( j < i ? below : off );
            k += 1;
        }
        s->groups[i] =
            ( cnRowGroup ){ .kind = i < 2 ? cn_groupBounded : cn_groupNormal, .firstRow = i, .rowCount = 1 };
    }
    s->rowStart[4] = k;
    s->matrix = ( cnSparseMatrix ){ 4, 4, s->rowStart, s->column, s->value };
    // row 0 wants -3 / 2 below its bound -1; row 1 wants 4 / 2 inside [-5, 5]; row 2 is pulled
    // negative (clamped at 0); row 3 wants 1
    double b[4] = { 3.0, -4.0, 1.0, -2.0 };
    double lower[4] = { -1.0, -5.0, 0.0, 0.0 };
    double upper[4] = { 1.0, 5.0, INFINITY, INFINITY };
    memcpy( s->b, b, sizeof( b ) );
    memcpy( s->lower, lower, sizeof( lower ) );
    memcpy( s->upper, upper, sizeof( upper ) );
    s->problem = ( cnSolverProblem ){ .rowCount = 4,
                                      .rowCapacity = 4,
                                      .groupCount = 4,
                                      .groupCapacity = 4,
                                      .groups = s->groups,
                                      .lower = s->lower,
                                      .upper = s->upper,
                                      .b = s->b,
                                      .matrix = &s->matrix };
}

START_TEST( tao_keeps_bounds_with_a_closed_form )
{
    // A = 2 I: each row alone, x_i = clamp(-b_i / 2, lower_i, upper_i)
    cntSmall s;
    cntMakeSmall( &s, 0.0, 0.0 );
    double x[4] = { 0.0, 0.0, 0.0, 0.0 };
    cnSolverStats stats = cntSolveTao( "tao", &s.problem, x, NULL, 0.0, 1e-12, 1000 );
    ck_assert_msg( stats.status == cn_solveConverged, "%s", cnSolveStatusName( stats.status ) );
    double expected[4] = { -1.0, 2.0, 0.0, 1.0 };
    for ( int i = 0; i < 4; ++i )
    {
        ck_assert_msg( fabs( x[i] - expected[i] ) <= 1e-10, "row %d: %.17g, expected %g", i, x[i],
                       expected[i] );
    }
}
END_TEST

START_TEST( tao_refuses_what_is_not_a_quadratic_program )
{
    // a non-symmetric matrix: no quadratic objective has it as its Hessian
    cntSmall s;
    cntMakeSmall( &s, 0.5, -0.5 );
    double x[4] = { 0.25, 0.5, 0.75, 1.0 };
    cnSolverStats stats = cntSolveTao( "tao", &s.problem, x, NULL, 0.0, 1e-10, 100 );
    ck_assert_int_eq( stats.status, cn_solveUnsupported );
    ck_assert_msg( stats.reason != NULL && strstr( stats.reason, "not symmetric" ) != NULL, "%s",
                   stats.reason ? stats.reason : "(no reason)" );
    ck_assert( x[0] == 0.25 && x[3] == 1.0 ); // untouched

    // friction: a contact group's bounds move with its normal impulse; the layer refuses it
    const cnSolverVTable* tao = cnFindSolver( "tao" );
    ck_assert( ( tao->caps & cn_solverFriction ) == 0 );
    cntMakeSmall( &s, 0.0, 0.0 );
    s.groups[0] = ( cnRowGroup ){ .kind = cn_groupContact, .firstRow = 0, .rowCount = 3, .mu = 0.5 };
    s.groups[1] = ( cnRowGroup ){ .kind = cn_groupNormal, .firstRow = 3, .rowCount = 1 };
    s.problem.groupCount = 2;
    const char* refusal = cnSolverRefusal( tao, &s.problem );
    ck_assert_ptr_nonnull( refusal );
}
END_TEST

// relcp with tao inside: the colony grows to 32 cells (5 generations, 350 steps of 10 ms) and
// every step ends with its deepest overlap within the tolerance, no overlap_left
START_TEST( relcp_with_tao_grows_a_colony_without_overlap )
{
    const char* overrides[2] = { "world.solver.params.inner=tao", "systems.colony.max_cells=32" };
    cnSceneOptions options = cnDefaultSceneOptions();
    options.overrides = overrides;
    options.overrideCount = 2;
    cnSceneSystem handlers[CX_SCENE_SYSTEM_COUNT];
    options.systems = handlers;
    options.systemCount = cxGetSceneSystems( NULL, handlers, CX_SCENE_SYSTEM_COUNT );
    cnScene scene;
    cnSceneError error;
    ck_assert_msg( cnLoadSceneFile( CN_ASSETS_DIR "/scenes/relcp_colony.json", &options, &scene, &error ) ==
                       cn_statusOk,
                   "%s", error.text );
    double deepest = 0.0;
    int left = 0;
    for ( int step = 0; step < 350; ++step )
    {
        ck_assert_int_eq( cnWorld_Step( scene.worldId, 0.01 ), cn_statusOk );
        cnStepReport report = cnWorld_GetStepReport( scene.worldId );
        left += ( report.warnings & cn_warnOverlapLeft ) != 0;
        ck_assert_msg( report.solverStatus == cn_solveConverged || report.solverRows == 0, "step %d: %s (%s)",
                       step + 1, cnSolveStatusName( (cnSolveStatus)report.solverStatus ),
                       report.solverReason ? report.solverReason : "" );
        if ( isfinite( report.recursionOverlap ) )
        {
            deepest = fmax( deepest, report.recursionOverlap );
        }
    }
    int cells = cnWorld_GetBodyCount( scene.worldId );
    printf(
        "relcp with tao inside: %d cells after 350 steps, deepest overlap %.3g m, %d steps overlap_left\n",
        cells, deepest, left );
    ck_assert_int_eq( cells, 32 );
    ck_assert_int_eq( left, 0 );
    ck_assert( deepest <= 1e-5 );
    cnDestroyWorld( scene.worldId );
}
END_TEST

static Suite* cntTaoSuite( void )
{
    Suite* suite = suite_create( "tao" );
    TCase* cases = tcase_create( "tao" );
    tcase_set_timeout( cases, 600 );
    tcase_add_test( cases, tao_keeps_bounds_with_a_closed_form );
    tcase_add_test( cases, tao_refuses_what_is_not_a_quadratic_program );
    tcase_add_test( cases, tao_matches_pgs_sm_on_colony_dumps );
    tcase_add_test( cases, relcp_with_tao_grows_a_colony_without_overlap );
    suite_add_tcase( suite, cases );
    return suite;
}

int main( void )
{
    static cntSuiteFcn* const suites[] = { cntTaoSuite };
    return cntRunSuites( suites, 1 );
}
