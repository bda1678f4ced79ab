// SPDX-License-Identifier: MIT
// The registered Newton solvers on engine-shaped, matrix-free problems: a box resting on a plane
// (the digest's M2: the total normal impulse is m g dt), a box on an incline below and above the
// friction angle (M3 in the pyramid model: static with the closed-form impulses, or sliding with
// friction at its bound and the closed-form sliding speed), agreement with Lemke on a stack, and
// the history the layer expects (its start and one entry per Newton step).
#include "newton_suites.h"
#include "test_support.h"

#include <stdlib.h>
#include <string.h>

static const double s_n[3] = { 0, 0, 1 };
static const double s_t1[3] = { 1, 0, 0 };
static const double s_t2[3] = { 0, 1, 0 };

#define CNT_G  9.81
#define CNT_DT ( 1.0 / 60.0 )

static const cnSolverVTable* cntNtFind( const char* name )
{
    const cnSolverVTable* solver = cnFindSolver( name );
    ck_assert_ptr_nonnull( solver );
    return solver;
}

// A unit box (mass m, I = m / 6) resting on the ground with four corner contacts (friction mu),
// under gravity tilted by `angle` about y: v* = g dt (sin angle, 0, -cos angle) in the contact
// frame, the body at rest before the step.
static cntLcp* cntNtBoxOnPlane( double mass, double angle, double mu )
{
    cntLcp* lcp = cntCreateLcp( 12, 1 );
    double vx = CNT_G * CNT_DT * sin( angle );
    double vz = -CNT_G * CNT_DT * cos( angle );
    int box = cntAddBody( lcp, mass, 6.0 / mass, 6.0 / mass, 6.0 / mass, vx, 0.0, vz );
    for ( int c = 0; c < 4; ++c )
    {
        double x = ( c & 1 ) ? 0.5 : -0.5;
        double y = ( c & 2 ) ? 0.5 : -0.5;
        double rB[3] = { x, y, -0.5 };
        double rA[3] = { x, y, 0.0 };
        cntAddContact( lcp, -1, box, rA, rB, s_n, s_t1, s_t2, mu, true );
    }
    cntFinishB( lcp );
    return lcp;
}

// M2: both methods, every inner solver: sum lambda_n = m g dt to 1e-6 relative, the normal
// velocities after the step >= -1e-9, the body at rest (|v| <= 1e-9), converged at 1e-10.
START_TEST( box_resting_on_a_plane )
{
    static const char* const names[2] = { "newton_minmap", "newton_fb" };
    for ( int s = 0; s < 2; ++s )
    {
        const cnSolverVTable* solver = cntNtFind( names[s] );
        for ( int inner = 0; inner < 3; ++inner )
        {
            cntLcp* lcp = cntNtBoxOnPlane( 2.5, 0.0, 0.5 );
            double params[CN_MAX_SOLVER_PARAMS];
            cntNtParams( solver, params, "inner", (double)inner, "tolerance", 1e-10, NULL );
            double lambda[12] = { 0 };
            double dv[6] = { 0 };
            cnSolverStats stats = cntNtSolve( solver, lcp, lambda, dv, params );
            ck_assert_msg( stats.status == cn_solveConverged, "%s inner %d: %s after %d", names[s], inner,
                           cnSolveStatusName( stats.status ), stats.iterations );
            double total = 0.0;
            for ( int c = 0; c < 4; ++c )
            {
                total += lambda[3 * c];
            }
            CNT_ASSERT_REL( total, 2.5 * CNT_G * CNT_DT, 1e-6 );
            for ( int k = 0; k < 3; ++k )
            {
                CNT_ASSERT_ABS( lcp->freeVelocity[k] + dv[k], 0.0, 1e-9 );
            }
            fprintf( stderr,
                     "[newton] M2 %s inner %d: %d steps, %d krylov, %d factorizations, %d fallbacks\n",
                     names[s], inner, stats.iterations, stats.krylovIterations, stats.factorizations,
                     stats.fallbacks );
            cntDestroyLcp( lcp );
        }
    }
}
END_TEST

// M3 (pyramid): tan(angle) = 0.3, 0.45 below mu = 0.5: the box stops, sum lambda_t1 = -m g dt
// sin(angle), sum lambda_n = m g dt cos(angle); tan(angle) = 0.6, 1.0 above: every contact's
// friction at its bound -mu lambda_n, the box slides at g dt (sin - mu cos), with no normal motion.
START_TEST( friction_on_an_incline )
{
    static const double tangents[4] = { 0.3, 0.45, 0.6, 1.0 };
    const double mu = 0.5, mass = 1.5;
    for ( int s = 0; s < 2; ++s )
    {
        const cnSolverVTable* solver = cntNtFind( s == 0 ? "newton_fb" : "newton_minmap" );
        for ( int k = 0; k < 4; ++k )
        {
            double angle = atan( tangents[k] );
            cntLcp* lcp = cntNtBoxOnPlane( mass, angle, mu );
            double params[CN_MAX_SOLVER_PARAMS];
            cntNtParams( solver, params, "tolerance", 1e-12, NULL );
            double lambda[12] = { 0 };
            double dv[6] = { 0 };
            cnSolverStats stats = cntNtSolve( solver, lcp, lambda, dv, params );
            ck_assert_msg( stats.status == cn_solveConverged, "%s tan %g: %s", solver->name, tangents[k],
                           cnSolveStatusName( stats.status ) );
            double normal = 0.0, friction = 0.0, side = 0.0;
            for ( int c = 0; c < 4; ++c )
            {
                normal += lambda[3 * c];
                friction += lambda[3 * c + 1];
                side += lambda[3 * c + 2];
            }
            double impulse = mass * CNT_G * CNT_DT;
            CNT_ASSERT_REL( normal, impulse * cos( angle ), 1e-8 );
            CNT_ASSERT_ABS( side, 0.0, 1e-9 * impulse );
            double vx = lcp->freeVelocity[0] + dv[0];
            CNT_ASSERT_ABS( lcp->freeVelocity[2] + dv[2], 0.0, 1e-9 );
            if ( tangents[k] < mu )
            {
                CNT_ASSERT_REL( friction, -impulse * sin( angle ), 1e-8 );
                CNT_ASSERT_ABS( vx, 0.0, 1e-9 );
            }
            else
            {
                for ( int c = 0; c < 4; ++c )
                {
                    CNT_ASSERT_ABS( lambda[3 * c + 1], -mu * lambda[3 * c], 1e-9 * impulse );
                }
                CNT_ASSERT_REL( vx, CNT_G * CNT_DT * ( sin( angle ) - mu * cos( angle ) ), 1e-8 );
            }
            cntDestroyLcp( lcp );
        }
    }
}
END_TEST

// A stack of 4 unit boxes (mass 1) on the ground hit at 2 m/s, four corner contacts per interface
// (frictionless: what Lemke takes, 16 rows), redundant like an engine's
static cntLcp* cntNtFrictionlessStack( void )
{
    cntLcp* lcp = cntCreateLcp( 16, 4 );
    for ( int k = 0; k < 4; ++k )
    {
        cntAddBody( lcp, 1.0, 6.0, 6.0, 6.0, 0.0, 0.0, -2.0 );
    }
    for ( int k = 0; k < 4; ++k )
    {
        for ( int c = 0; c < 4; ++c )
        {
            double x = ( c & 1 ) ? 0.5 : -0.5;
            double y = ( c & 2 ) ? 0.5 : -0.5;
            double rB[3] = { x, y, -0.5 };
            double rA[3] = { x, y, 0.5 };
            cntAddContact( lcp, k - 1, k, rA, rB, s_n, NULL, NULL, 0.0, false );
        }
    }
    cntFinishB( lcp );
    return lcp;
}

// The frictionless stack: newton_fb and newton_minmap reach the body velocities of Lemke after the
// step (to 1e-8 m/s, every body at rest) and a grading merit of 1e-9; with friction 0.6 (48 rows)
// both converge to 1e-9 and stop every body. The history holds the start and one entry per step,
// ending at the graded merit.
START_TEST( a_stack_agrees_with_lemke )
{
    const cnSolverVTable* lemke = cntNtFind( "lemke" );
    cntLcp* frictionless = cntNtFrictionlessStack();
    double reference[16] = { 0 };
    double dvReference[24] = { 0 };
    cnSolverStats stats = cntSolve( lemke, &frictionless->problem, reference, dvReference, -1, -1.0, -1.0 );
    ck_assert_int_eq( stats.status, cn_solveConverged );
    cntLcp* rough = cntCreateStack( 4, 2.0, 0.6 );
    static const char* const names[2] = { "newton_fb", "newton_minmap" };
    for ( int s = 0; s < 2; ++s )
    {
        const cnSolverVTable* solver = cntNtFind( names[s] );
        for ( int f = 0; f < 2; ++f )
        {
            cntLcp* lcp = f == 0 ? frictionless : rough;
            double lambda[48] = { 0 };
            double dv[24] = { 0 };
            double history[64];
            double params[CN_MAX_SOLVER_PARAMS];
            cntNtParams( solver, params, "tolerance", 1e-9, NULL );
            stats = cntSolveWithParams( solver, &lcp->problem, lambda, dv, params, history, 64 );
            ck_assert_msg( stats.status == cn_solveConverged, "%s: %s", names[s],
                           cnSolveStatusName( stats.status ) );
            ck_assert_int_eq( stats.historyCount, stats.iterations + 1 );
            ck_assert( history[stats.historyCount - 1] == stats.residual );
            ck_assert( stats.residual <= 1e-9 );
            for ( int k = 0; k < 24; ++k )
            {
                CNT_ASSERT_ABS( lcp->freeVelocity[k] + dv[k], 0.0, 1e-8 );
                if ( f == 0 )
                {
                    CNT_ASSERT_ABS( dv[k], dvReference[k], 1e-8 );
                }
            }
            fprintf( stderr, "[newton] stack of 4 (%s) %s: %d steps, merit %.1e, %d fallbacks\n",
                     f == 0 ? "frictionless" : "mu 0.6", names[s], stats.iterations, stats.residual,
                     stats.fallbacks );
        }
    }
    cntDestroyLcp( frictionless );
    cntDestroyLcp( rough );
}
END_TEST

// The vtables: the two names, the unit, the caps, the parameter tables in the brief's order.
START_TEST( vtables_describe_themselves )
{
    static const char* const order[] = { "iterations",
                                         "tolerance",
                                         "deadline_ms",
                                         "warm_start",
                                         "inner",
                                         "factorization",
                                         "gamma",
                                         "strategy",
                                         "pgs_sweeps",
                                         "gradient_fallback",
                                         "diagonal_scaling",
                                         "line_search_alpha",
                                         "line_search_beta" };
    static const char* const names[2] = { "newton_minmap", "newton_fb" };
    for ( int s = 0; s < 2; ++s )
    {
        const cnSolverVTable* solver = cntNtFind( names[s] );
        ck_assert_str_eq( solver->iterationUnit, "newton step" );
        ck_assert_int_eq( solver->model, cn_modelPyramid );
        ck_assert( ( solver->caps & cn_solverSinglePass ) != 0 );
        ck_assert( ( solver->caps & cn_solverFriction ) != 0 );
        ck_assert_int_eq( solver->paramCount, 13 );
        for ( int k = 0; k < 13; ++k )
        {
            ck_assert_str_eq( solver->params[k].name, order[k] );
        }
        ck_assert_str_eq( cnSolveStatusName( cn_solveNonDescent ), "non_descent" );
        ck_assert( cnSolveStatusIsUsable( cn_solveNonDescent, solver->caps ) );
    }
}
END_TEST

Suite* cntNewtonEngineSuite( void )
{
    Suite* suite = suite_create( "newton_engine" );
    TCase* tc = tcase_create( "engine" );
    tcase_set_timeout( tc, 60 );
    tcase_add_test( tc, vtables_describe_themselves );
    tcase_add_test( tc, box_resting_on_a_plane );
    tcase_add_test( tc, friction_on_an_incline );
    tcase_add_test( tc, a_stack_agrees_with_lemke );
    suite_add_tcase( suite, tc );
    return suite;
}
