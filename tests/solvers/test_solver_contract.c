// SPDX-License-Identifier: MIT
// What every registered solver promises, as a loop over the registry.
#include "solvers_suites.h"
#include "test_support.h"

#include <math.h>
#include <string.h>

START_TEST( registry_names_are_unique_and_findable )
{
    int count = cnGetSolverCount();
    ck_assert_int_ge( count, 3 );
    ck_assert_ptr_null( cnGetSolverAt( -1 ) );
    ck_assert_ptr_null( cnGetSolverAt( count ) );
    ck_assert_ptr_null( cnFindSolver( "no such solver" ) );
    ck_assert_ptr_null( cnFindSolver( NULL ) );
    int failures = 0;
    for ( int i = 0; i < count; ++i )
    {
        const cnSolverVTable* solver = cnGetSolverAt( i );
        failures += solver == NULL || solver->name == NULL;
        failures += cnFindSolver( solver->name ) != solver;
        failures += solver->apiVersion != CN_SOLVER_API_VERSION;
    }
    ck_assert_int_eq( failures, 0 );
    ck_assert_str_eq( cnGetSolverAt( 0 )->name, "pgs" );
}
END_TEST

// A 2 kg sphere falling at 1 m/s onto static ground: one normal row, +z normal. Every solver
// that takes matrix-free problems ends with impulse m v = 2 and zero normal velocity, given its
// default parameters except up to 1000 iterations and a 1e-12 tolerance (over-relaxed PSOR and
// damped PGJ approach the answer geometrically rather than in one sweep).
START_TEST( single_contact_stops_normal_velocity )
{
    const cnSolverVTable* solver = cnGetSolverAt( _i );
    ck_assert_ptr_nonnull( solver );
    ck_assert_msg( solver->solve != NULL, "solver '%s' has no solve function", solver->name );
    if ( ( solver->caps & cn_solverMatrixFree ) == 0 )
    {
        return;
    }
    cntLcp* lcp = cntCreateLcp( 1, 1 );
    int body = cntAddBody( lcp, 2.0, 5.0, 5.0, 5.0, 0.0, 0.0, -1.0 );
    static const double zero[3] = { 0, 0, 0 };
    static const double r[3] = { 0, 0, -0.5 };
    static const double n[3] = { 0, 0, 1 };
    cntAddContact( lcp, -1, body, zero, r, n, NULL, NULL, 0.0, false );
    cntFinishB( lcp );

    double lambda[1] = { 0.0 };
    double dv[6] = { 0 };
    cnSolverStats stats = cntSolve( solver, &lcp->problem, lambda, dv, 1000, 1e-12, -1.0 );
    ck_assert_msg( stats.status == cn_solveConverged, "%s: %s", solver->name,
                   cnSolveStatusName( stats.status ) );
    CNT_ASSERT_ABS( lambda[0], 2.0, 1e-9 );
    CNT_ASSERT_ABS( lcp->freeVelocity[2] + dv[2], 0.0, 1e-9 );
    ck_assert( stats.residual <= 1e-9 );
    cntDestroyLcp( lcp );
}
END_TEST

// A world keeps the merit of every iteration of its last step's solves when asked: a pile of three
// boxes on the ground, stepped with each solver; the history holds every pass of every substep (its
// start and one entry per iteration for the iterative solvers), and ends at the step report's
// residual
START_TEST( world_keeps_the_residual_history )
{
    const cnSolverVTable* solver = cnGetSolverAt( _i );
    cnWorldDef def = cnDefaultWorldDef();
    cnWorldId world = cnCreateWorld( &def );
    ck_assert_int_eq( cnWorld_SetSolver( world, solver->name ), cn_statusOk );
    // a budget whose history fits (the projected-gradient solvers default to thousands)
    if ( cnFindSolverParam( solver, "iterations" ) >= 0 )
    {
        ck_assert_int_eq( cnWorld_SetSolverParam( world, "iterations", 20.0 ), cn_statusOk );
    }
    cnBodyDef groundDef = cnDefaultBodyDef();
    groundDef.type = cn_staticBody;
    cnBodyId ground = cnCreateBody( world, &groundDef );
    cnShapeDef shapeDef = cnDefaultShapeDef();
    cnPlane plane = { { 0.0, 0.0, 1.0 }, 0.0 };
    cnCreatePlaneShape( ground, &shapeDef, &plane );
    for ( int i = 0; i < 3; ++i )
    {
        cnBodyDef boxDef = cnDefaultBodyDef();
        boxDef.position = cnMakeVec3( 0.1 * i, 0.0, 0.5 + 1.0 * i );
        cnBodyId box = cnCreateBody( world, &boxDef );
        cnBox geometry = { { 0.5, 0.5, 0.5 } };
        cnCreateBoxShape( box, &shapeDef, &geometry );
    }

    double history[512];
    for ( int i = 0; i < 5; ++i )
    {
        cnWorld_Step( world, 1.0 / 60.0 );
    }
    ck_assert_int_eq( cnWorld_GetResidualHistory( world, history, 512 ), 0 );

    ck_assert_int_eq( cnWorld_SetResidualHistory( world, -1 ), cn_statusInvalidArgument );
    ck_assert_int_eq( cnWorld_SetResidualHistory( world, CN_MAX_RESIDUAL_HISTORY + 1 ),
                      cn_statusInvalidArgument );
    ck_assert_int_eq( cnWorld_SetResidualHistory( world, 512 ), cn_statusOk );
    int failures = 0;
    for ( int i = 0; i < 30; ++i )
    {
        cnWorld_Step( world, 1.0 / 60.0 );
        cnStepReport report = cnWorld_GetStepReport( world );
        int count = cnWorld_GetResidualHistory( world, history, 512 );
        ck_assert_int_gt( report.contactCount, 0 );
        bool direct = ( solver->caps & cn_solverDirect ) != 0;
        // a start entry per pass; relcp's recursion levels each start a solve, but in this inertial
        // world they run in the position pass, which keeps no history (only positionIterations)
        int expected = report.solverIterations + report.relaxIterations + report.solverPasses;
        failures += report.solverPasses < report.substeps;
        failures += count < 1 || history[count - 1] != report.solverResidual;
        failures += direct == false && count != expected;
    }
    ck_assert_int_eq( failures, 0 );

    ck_assert_int_eq( cnWorld_SetResidualHistory( world, 0 ), cn_statusOk );
    cnWorld_Step( world, 1.0 / 60.0 );
    ck_assert_int_eq( cnWorld_GetResidualHistory( world, history, 512 ), 0 );
    ck_assert_int_eq( cnWorld_GetResidualHistory( ( cnWorldId ){ 0 }, history, 512 ), 0 );
    cnDestroyWorld( world );
}
END_TEST

Suite* cntSolverContractSuite( void )
{
    Suite* suite = suite_create( "solver_contract" );
    TCase* tc = tcase_create( "registry" );
    tcase_add_test( tc, registry_names_are_unique_and_findable );
    tcase_add_loop_test( tc, single_contact_stops_normal_velocity, 0, cnGetSolverCount() );
    tcase_add_loop_test( tc, world_keeps_the_residual_history, 0, cnGetSolverCount() );
    suite_add_tcase( suite, tc );
    return suite;
}
