// SPDX-License-Identifier: MIT
// PGS, PSOR and PGJ on hand-built problems: exact one-sweep answers, friction bounds, honest
// statuses. The loop tests run once per solver in s_names.
#include "arena.h"
#include "solver_layer.h"
#include "solvers_suites.h"
#include "test_support.h"

#include <math.h>
#include <string.h>

static const char* const s_names[] = { "pgs", "psor", "pgj" };
#define CNT_SWEEP_SOLVERS 3

static const double s_zero3[3] = { 0, 0, 0 };
static const double s_zero6[6] = { 0, 0, 0, 0, 0, 0 };
static const double s_up[3] = { 0, 0, 1 };
static const double s_x[3] = { 1, 0, 0 };
static const double s_y[3] = { 0, 1, 0 };

static const cnSolverVTable* cntSweepSolver( int index )
{
    const cnSolverVTable* solver = cnFindSolver( s_names[index] );
    ck_assert_ptr_nonnull( solver );
    ck_assert( solver->solve != NULL );
    return solver;
}

START_TEST( vtables_describe_themselves )
{
    const cnSolverVTable* solver = cntSweepSolver( _i );
    uint32_t caps =
        cn_solverFriction | cn_solverBounded | cn_solverBilateral | cn_solverExplicit | cn_solverMatrixFree;
    ck_assert_uint_eq( solver->caps, caps );
    ck_assert_int_eq( solver->apiVersion, CN_SOLVER_API_VERSION );
    ck_assert_int_eq( solver->model, cn_modelPyramid );
    ck_assert_str_eq( solver->iterationUnit, "sweep" );
    ck_assert_ptr_nonnull( solver->description );
    static const char* const names[] = {
        "iterations", "tolerance",          "deadline_ms",          "warm_start",       "relaxation",
        "kernel",     "relative_tolerance", "stagnation_tolerance", "divergence_factor" };
    ck_assert_int_eq( solver->paramCount, cn_sweepParamCount );
    int failures = 0;
    for ( int k = 0; k < cn_sweepParamCount; ++k )
    {
        failures += cntParamIndex( solver, names[k] ) != k;
        const cnSolverParam* param = solver->params + k;
        failures += !( param->minValue <= param->defaultValue && param->defaultValue <= param->maxValue );
        failures += cnCheckSolverParam( param, param->defaultValue, NULL, 0 ) != cn_statusOk;
    }
    ck_assert_int_eq( failures, 0 );
    ck_assert( solver->params[cn_sweepParamIterations].defaultValue == 10.0 &&
               solver->params[cn_sweepParamTolerance].defaultValue == 1e-6 );
    static const double relaxation[3] = { 1.0, 1.4, 0.3 };
    ck_assert( solver->params[cn_sweepParamRelaxation].defaultValue == relaxation[_i] );
    ck_assert_int_eq( solver->params[cn_sweepParamKernel].type, cn_paramChoice );
}
END_TEST

// A 2 kg sphere of radius 0.5 falling at 1 m/s onto static ground: one normal row,
// lambda = m v = 2 after one sweep (PGS, and PSOR / PGJ with relaxation 1)
START_TEST( sphere_on_ground_one_sweep_gives_m_v )
{
    const cnSolverVTable* solver = cntSweepSolver( _i );
    cntLcp* lcp = cntCreateLcp( 1, 1 );
    int body = cntAddBody( lcp, 2.0, 5.0, 5.0, 5.0, 0.0, 0.0, -1.0 );
    double r[3] = { 0, 0, -0.5 };
    cntAddContact( lcp, -1, body, s_zero3, r, s_up, NULL, NULL, 0.0, false );
    cntFinishB( lcp );
    double lambda[1] = { 0.0 };
    double dv[6] = { 0 };
    cnSolverStats stats = cntSolve( solver, &lcp->problem, lambda, dv, 1, 0.0, 1.0 );
    ck_assert( lambda[0] == 2.0 );
    ck_assert( dv[2] == 1.0 && dv[0] == 0.0 && dv[3] == 0.0 );
    ck_assert_int_eq( stats.status, cn_solveConverged );
    ck_assert_int_eq( stats.iterations, 1 );
    ck_assert( stats.residual == 0.0 );
    ck_assert( stats.milliseconds >= 0.0 );
    cntDestroyLcp( lcp );
}
END_TEST

// Two bodies meeting off-center along x: A (mass 1, inverse inertia diag(2, 3, 4)) at 1 m/s,
// B (mass 2, unit inverse inertia) at -1 m/s. J_A = (-1,0,0, 0,0,0.2), J_B = (1,0,0, 0,0,-0.2),
// A_11 = 1 + 4 * 0.04 + 0.5 + 0.04 = 1.7, b = -2: lambda = 2 / 1.7, after which the normal
// velocity is zero and the linear momentum unchanged
START_TEST( two_body_row_uses_both_w_blocks )
{
    const cnSolverVTable* solver = cntSweepSolver( _i );
    cntLcp* lcp = cntCreateLcp( 1, 2 );
    int a = cntAddBody( lcp, 1.0, 2.0, 3.0, 4.0, 1.0, 0.0, 0.0 );
    int b = cntAddBody( lcp, 2.0, 1.0, 1.0, 1.0, -1.0, 0.0, 0.0 );
    double rA[3] = { 0.5, 0.2, 0.0 };
    double rB[3] = { -0.5, 0.2, 0.0 };
    cntAddContact( lcp, a, b, rA, rB, s_x, NULL, NULL, 0.0, false );
    cntFinishB( lcp );
    cnScratch scratch = { .arena = NULL };
    cnPrepared prepared;
    ck_assert( cnPrepareProblem( &lcp->problem, &scratch, &prepared ) );
    CNT_ASSERT_REL( prepared.diagonal[0], 1.7, 1e-15 );
    cnScratchRelease( &scratch );

    double lambda[1] = { 0.0 };
    double dv[12] = { 0 };
    cnSolverStats stats = cntSolve( solver, &lcp->problem, lambda, dv, 1, 1e-14, 1.0 );
    ck_assert_int_eq( stats.status, cn_solveConverged );
    ck_assert_int_eq( stats.iterations, 1 );
    CNT_ASSERT_REL( lambda[0], 2.0 / 1.7, 1e-15 );
    double normalVelocity = 0.0;
    for ( int k = 0; k < 6; ++k )
    {
        normalVelocity += lcp->jacobianA[k] * ( lcp->freeVelocity[k] + dv[k] ) +
                          lcp->jacobianB[k] * ( lcp->freeVelocity[6 + k] + dv[6 + k] );
    }
    CNT_ASSERT_ABS( normalVelocity, 0.0, 1e-15 );
    CNT_ASSERT_ABS( 1.0 * dv[0] + 2.0 * dv[6], 0.0, 1e-15 );
    // the angular kick about z through W_angular: A gets 4 * 0.2 * lambda, B gets -0.2 * lambda
    CNT_ASSERT_REL( dv[5], 0.8 * lambda[0], 1e-15 );
    CNT_ASSERT_REL( dv[11], -0.2 * lambda[0], 1e-15 );
    cntDestroyLcp( lcp );
}
END_TEST

// A block (mass 1, no rotation) on static ground, pressed in at 1 m/s; sliding at 3 m/s along x
// with mu = 0.5 the tangential impulse stops at mu lambda_n = 0.5 (the block keeps sliding at
// 2.5); at 0.2 m/s it sticks (impulse 0.2, no sliding). The slope: gravity's tangential part is
// the tangential free velocity.
START_TEST( friction_stops_at_mu_lambda_n )
{
    const cnSolverVTable* solver = cntSweepSolver( _i );
    static const double speeds[2] = { 3.0, 0.2 };
    int failures = 0;
    for ( int s = 0; s < 2; ++s )
    {
        cntLcp* lcp = cntCreateLcp( 3, 1 );
        int body = cntAddBody( lcp, 1.0, 0.0, 0.0, 0.0, speeds[s], 0.0, -1.0 );
        cntAddContact( lcp, -1, body, s_zero3, s_zero3, s_up, s_x, s_y, 0.5, true );
        cntFinishB( lcp );
        double lambda[3] = { 0 };
        double dv[6] = { 0 };
        // PGJ takes the friction bound from the previous normal impulse: it needs a second sweep
        cnSolverStats stats = cntSolve( solver, &lcp->problem, lambda, dv, 50, 1e-12, 1.0 );
        failures += stats.status != cn_solveConverged;
        failures += fabs( lambda[0] - 1.0 ) > 1e-12;
        double expected = s == 0 ? -0.5 : -0.2;
        failures += fabs( lambda[1] - expected ) > 1e-12;
        failures += lambda[2] != 0.0;
        failures += fabs( lcp->freeVelocity[0] + dv[0] - ( s == 0 ? 2.5 : 0.0 ) ) > 1e-12;
        failures += fabs( lcp->freeVelocity[2] + dv[2] ) > 1e-12;
        failures += fabs( lambda[1] ) > 0.5 * lambda[0] + 1e-15;
        cntDestroyLcp( lcp );
    }
    ck_assert_int_eq( failures, 0 );
}
END_TEST

// A resting stack with friction converges with each solver's default relaxation
START_TEST( stack_of_boxes_converges_with_default_relaxation )
{
    const cnSolverVTable* solver = cntSweepSolver( _i );
    cntLcp* lcp = cntCreateStack( 4, 9.81 / 60.0, 0.6 );
    int n = lcp->problem.rowCount;
    double lambda[48] = { 0 };
    double dv[24] = { 0 };
    cnSolverStats stats = cntSolve( solver, &lcp->problem, lambda, dv, 20000, 1e-10, -1.0 );
    ck_assert_msg( stats.status == cn_solveConverged, "%s: %s after %d sweeps, residual %g", solver->name,
                   cnSolveStatusName( stats.status ), stats.iterations, stats.residual );
    cnSolverMerits merits;
    ck_assert( cnComputeSolverMerits( &lcp->problem, lambda, NULL, &merits ) );
    CNT_ASSERT_REL( stats.residual, merits.naturalMap, 1e-12 );
    ck_assert( stats.residual <= 1e-10 );
    // the ground carries the whole stack's momentum: 4 kg * 9.81 / 60
    double groundImpulse = 0.0;
    for ( int g = 0; g < lcp->problem.groupCount; ++g )
    {
        int row = lcp->groups[g].firstRow;
        groundImpulse += lcp->bodyA[row] < 0 ? lambda[row] : 0.0;
    }
    ck_assert_int_eq( n, 48 );
    CNT_ASSERT_REL( groundImpulse, 4.0 * 9.81 / 60.0, 1e-8 );
    for ( int k = 0; k < 4; ++k )
    {
        CNT_ASSERT_ABS( dv[6 * k + 2] - 9.81 / 60.0, 0.0, 1e-9 );
    }
    printf( "stack of 4 boxes, %s: converged in %d sweeps\n", solver->name, stats.iterations );
    cntDestroyLcp( lcp );
}
END_TEST

// The same stack of 4 with spin and sliding in the free velocity (every box turning about x at
// 0.05 k and about y at -0.03, sliding along x at 0.01 k): friction now matters, and undamped or
// lightly damped Jacobi cycles; each default still converges
START_TEST( spinning_stack_converges_with_default_relaxation )
{
    const cnSolverVTable* solver = cntSweepSolver( _i );
    cntLcp* lcp = cntCreateStack( 4, 9.81 / 60.0, 0.6 );
    for ( int k = 0; k < 4; ++k )
    {
        lcp->freeVelocity[6 * k + 0] = 0.01 * k;
        lcp->freeVelocity[6 * k + 3] = 0.05 * ( k + 1 );
        lcp->freeVelocity[6 * k + 4] = -0.03;
    }
    cntFinishB( lcp );
    double lambda[48] = { 0 };
    cnSolverStats stats = cntSolve( solver, &lcp->problem, lambda, NULL, 20000, 1e-8, -1.0 );
    ck_assert_msg( stats.status == cn_solveConverged, "%s: %s after %d sweeps, residual %g", solver->name,
                   cnSolveStatusName( stats.status ), stats.iterations, stats.residual );
    printf( "spinning stack of 4 boxes, %s: converged in %d sweeps\n", solver->name, stats.iterations );
    cntDestroyLcp( lcp );
}
END_TEST

// [2 1; 1 2] z + (-1, -1): z = (1/3, 1/3); one sweep is not enough
START_TEST( one_sweep_on_a_coupled_problem_reports_max_iterations )
{
    const cnSolverVTable* solver = cntSweepSolver( _i );
    cntLcp* lcp = cntCreateLcp( 2, 0 );
    static const double m[4] = { 2, 1, 1, 2 };
    static const double q[2] = { -1, -1 };
    cntSetDense( lcp, 2, m, q );
    double lambda[2] = { 0, 0 };
    cnSolverStats stats = cntSolve( solver, &lcp->problem, lambda, NULL, 1, 1e-6, -1.0 );
    ck_assert_int_eq( stats.status, cn_solveMaxIterations );
    ck_assert_int_eq( stats.iterations, 1 );
    ck_assert( stats.residual > 1e-6 );
    cnSolverMerits merits;
    ck_assert( cnComputeSolverMerits( &lcp->problem, lambda, NULL, &merits ) );
    CNT_ASSERT_REL( stats.residual, merits.naturalMap, 1e-14 );

    // and enough sweeps converge to the solution
    stats = cntSolve( solver, &lcp->problem, lambda, NULL, 1000, 1e-12, -1.0 );
    ck_assert_int_eq( stats.status, cn_solveConverged );
    CNT_ASSERT_ABS( lambda[0], 1.0 / 3.0, 1e-11 );
    CNT_ASSERT_ABS( lambda[1], 1.0 / 3.0, 1e-11 );
    cntDestroyLcp( lcp );
}
END_TEST

// NaN in b: nonfinite, lambda stays the (finite) guess; NaN in W: the same; a NaN guess starts at 0
START_TEST( nan_input_reports_nonfinite_and_keeps_lambda_finite )
{
    const cnSolverVTable* solver = cntSweepSolver( _i );
    cntLcp* lcp = cntCreateStack( 2, 0.1, 0.5 );
    int n = lcp->problem.rowCount;
    int failures = 0;

    double lambda[24];
    for ( int k = 0; k < n; ++k )
    {
        lambda[k] = 0.01;
    }
    lcp->b[5] = (double)NAN;
    cnSolverStats stats = cntSolve( solver, &lcp->problem, lambda, NULL, 100, 1e-8, -1.0 );
    failures += stats.status != cn_solveNonFinite;
    for ( int k = 0; k < n; ++k )
    {
        failures += lambda[k] != 0.01;
    }
    // the same with the merit never needed (tolerance 0, divergence rule off)
    double params[cn_sweepParamCount];
    for ( int k = 0; k < cn_sweepParamCount; ++k )
    {
        params[k] = solver->params[k].defaultValue;
    }
    params[cn_sweepParamTolerance] = 0.0;
    params[cn_sweepParamDivergenceFactor] = 0.0;
    stats = cntSolveWithParams( solver, &lcp->problem, lambda, NULL, params, NULL, 0 );
    failures += stats.status != cn_solveNonFinite || stats.reason == NULL;
    for ( int k = 0; k < n; ++k )
    {
        failures += !isfinite( lambda[k] );
    }
    cntFinishB( lcp );

    lcp->wLinear[9 + 4] = (double)NAN;
    stats = cntSolve( solver, &lcp->problem, lambda, NULL, 100, 1e-8, -1.0 );
    failures += stats.status != cn_solveNonFinite && stats.status != cn_solveUnsupported;
    for ( int k = 0; k < n; ++k )
    {
        failures += !isfinite( lambda[k] );
    }
    lcp->wLinear[9 + 4] = 1.0;

    for ( int k = 0; k < n; ++k )
    {
        lambda[k] = k == 3 ? (double)NAN : ( k == 4 ? (double)INFINITY : 0.0 );
    }
    stats = cntSolve( solver, &lcp->problem, lambda, NULL, 10000, 1e-9, -1.0 );
    failures += stats.status != cn_solveConverged;
    ck_assert_msg( failures == 0, "%s: %d failures", solver->name, failures );
    cntDestroyLcp( lcp );
}
END_TEST

// M = [1 -2; -3 1], q = (-1, -1): every sweep multiplies the iterate (PGS: by 6), the update grows
// past divergence_factor (1e4 in energy) times the first sweep's: diverged, with lambda put back to
// where the solve started
START_TEST( non_symmetric_problem_diverges_and_puts_back_the_start )
{
    const cnSolverVTable* solver = cntSweepSolver( _i );
    cntLcp* lcp = cntCreateLcp( 2, 0 );
    static const double m[4] = { 1, -2, -3, 1 };
    static const double q[2] = { -1, -1 };
    cntSetDense( lcp, 2, m, q );
    double lambda[2] = { 0, 0 };
    cnSolverMerits initial;
    ck_assert( cnComputeSolverMerits( &lcp->problem, lambda, NULL, &initial ) );
    cnSolverStats stats = cntSolve( solver, &lcp->problem, lambda, NULL, 1000, 1e-8, -1.0 );
    ck_assert_msg( stats.status == cn_solveDiverged, "%s: %s", solver->name,
                   cnSolveStatusName( stats.status ) );
    ck_assert_int_gt( stats.iterations, 1 );
    ck_assert_int_lt( stats.iterations, 30 );
    ck_assert( lambda[0] == 0.0 && lambda[1] == 0.0 );
    ck_assert( stats.residual == initial.naturalMap );
    ck_assert( cnSolveStatusIsUsable( stats.status, solver->caps ) == false );
    cntDestroyLcp( lcp );
}
END_TEST

START_TEST( zero_diagonal_is_unsupported_and_lambda_untouched )
{
    const cnSolverVTable* solver = cntSweepSolver( _i );
    cntLcp* lcp = cntCreateLcp( 2, 0 );
    static const double m[4] = { 0, 1, 1, 1 };
    static const double q[2] = { -1, -1 };
    cntSetDense( lcp, 2, m, q );
    double lambda[2] = { 7, 8 };
    cnSolverStats stats = cntSolve( solver, &lcp->problem, lambda, NULL, 100, 1e-8, -1.0 );
    ck_assert_int_eq( stats.status, cn_solveUnsupported );
    ck_assert_int_eq( stats.iterations, 0 );
    ck_assert( lambda[0] == 7 && lambda[1] == 8 );

    // matrix-free: a row with an all-zero Jacobian, and a negative diagonal entry
    cntDestroyLcp( lcp );
    lcp = cntCreateLcp( 2, 1 );
    int body = cntAddBody( lcp, 1.0, 1.0, 1.0, 1.0, 0, 0, -1 );
    cntAddContact( lcp, -1, body, s_zero3, s_zero3, s_up, NULL, NULL, 0.0, false );
    cntAddRow( lcp, cn_rowNormal, -1, body, NULL, s_zero6 );
    cntFinishB( lcp );
    stats = cntSolve( solver, &lcp->problem, lambda, NULL, 100, 1e-8, -1.0 );
    ck_assert_int_eq( stats.status, cn_solveUnsupported );
    ck_assert( lambda[0] == 7 && lambda[1] == 8 );
    lcp->wLinear[8] = -1.0;
    lcp->problem.rowCount = 1;
    lcp->problem.groupCount = 1;
    stats = cntSolve( solver, &lcp->problem, lambda, NULL, 100, 1e-8, -1.0 );
    ck_assert_int_eq( stats.status, cn_solveUnsupported );
    ck_assert( lambda[0] == 7 );
    cntDestroyLcp( lcp );
}
END_TEST

// Started from the exact solution of the stack, the solvers stop after one sweep (its update is
// round-off, and the merit confirms it) and keep it
START_TEST( warm_start_from_the_solution_converges_at_once )
{
    const cnSolverVTable* solver = cntSweepSolver( _i );
    cntLcp* lcp = cntCreateStack( 3, 0.2, 0.5 );
    int n = lcp->problem.rowCount;
    double lambda[36] = { 0 };
    const cnSolverVTable* pgs = cnFindSolver( "pgs" );
    cnSolverStats stats = cntSolve( pgs, &lcp->problem, lambda, NULL, 100000, 1e-13, -1.0 );
    ck_assert_int_eq( stats.status, cn_solveConverged );
    double exact[36];
    memcpy( exact, lambda, sizeof( exact ) );

    double dv[18] = { 0 };
    stats = cntSolve( solver, &lcp->problem, lambda, dv, 100, 1e-12, -1.0 );
    ck_assert_int_eq( stats.status, cn_solveConverged );
    ck_assert_int_le( stats.iterations, 1 );
    int failures = 0;
    for ( int k = 0; k < n; ++k )
    {
        failures += fabs( lambda[k] - exact[k] ) > 1e-12;
    }
    // deltaVelocity is filled even when no sweep ran: every box stops
    for ( int k = 0; k < 3; ++k )
    {
        failures += fabs( lcp->freeVelocity[6 * k + 2] + dv[6 * k + 2] ) > 1e-12;
    }
    ck_assert_int_eq( failures, 0 );
    cntDestroyLcp( lcp );
}
END_TEST

// No rows, a broken problem, NULL lambda: statuses with their reasons, never a crash
START_TEST( degenerate_inputs )
{
    const cnSolverVTable* solver = cntSweepSolver( _i );
    cnSolverProblem empty = { 0 };
    cnSolverStats stats = cntSolve( solver, &empty, NULL, NULL, 10, 1e-6, -1.0 );
    ck_assert_int_eq( stats.status, cn_solveConverged );
    ck_assert_int_eq( stats.iterations, 0 );
    ck_assert( stats.residual == 0.0 );

    cntLcp* lcp = cntCreateStack( 1, 0.1, 0.5 );
    double dv[6] = { 1, 1, 1, 1, 1, 1 };
    // rows removed but a body remains: its velocity change is zero
    lcp->problem.rowCount = 0;
    lcp->problem.groupCount = 0;
    stats = cntSolve( solver, &lcp->problem, NULL, dv, 10, 1e-6, -1.0 );
    ck_assert_int_eq( stats.status, cn_solveConverged );
    ck_assert( dv[0] == 0.0 && dv[5] == 0.0 );
    lcp->problem.rowCount = 12;
    lcp->problem.groupCount = 4;

    stats = cntSolve( solver, &lcp->problem, NULL, dv, 10, 1e-6, -1.0 );
    ck_assert_int_eq( stats.status, cn_solveUnsupported );
    ck_assert_ptr_nonnull( stats.reason );
    double lambda[12] = { 0 };
    lcp->bodyB[3] = 5; // no such body
    stats = cntSolve( solver, &lcp->problem, lambda, dv, 10, 1e-6, -1.0 );
    ck_assert_int_eq( stats.status, cn_solveUnsupported );
    ck_assert_ptr_nonnull( strstr( stats.reason, "body" ) );
    lcp->bodyB[3] = 0;
    lcp->groups[1].firstRow = 4; // a gap between groups
    stats = cntSolve( solver, &lcp->problem, lambda, dv, 10, 1e-6, -1.0 );
    ck_assert_int_eq( stats.status, cn_solveUnsupported );
    lcp->groups[1].firstRow = 3;
    stats = cntSolve( solver, &lcp->problem, lambda, dv, 10, 1e-6, -1.0 );
    ck_assert_int_ne( stats.status, cn_solveUnsupported );
    // a cone model is not a sweep solver's
    lcp->groups[0].model = cn_frictionCone;
    stats = cntSolve( solver, &lcp->problem, lambda, dv, 10, 1e-6, -1.0 );
    ck_assert_int_eq( stats.status, cn_solveUnsupported );
    ck_assert_ptr_nonnull( strstr( stats.reason, "cone" ) );
    cntDestroyLcp( lcp );
}
END_TEST

// The residual history holds the merit of the start and of every sweep: entry k equals the merit
// of a separate solve stopped after k sweeps; a short buffer keeps the first entries
START_TEST( residual_history_records_every_sweep )
{
    const cnSolverVTable* solver = cntSweepSolver( _i );
    cntLcp* lcp = cntCreateLcp( 3, 0 );
    static const double m[9] = { 4, 1, 0, 1, 3, 1, 0, 1, 2 };
    static const double q[3] = { -1, -2, -1 };
    cntSetDense( lcp, 3, m, q );
    double lambda[3] = { 0, 0, 0 };
    cnSolverMerits merits;
    ck_assert( cnComputeSolverMerits( &lcp->problem, lambda, NULL, &merits ) );
    double start = merits.naturalMap;
    double history[256];
    cnSolverStats stats =
        cntSolveWithHistory( solver, &lcp->problem, lambda, NULL, 200, 1e-12, -1.0, history, 256 );
    ck_assert_msg( stats.status == cn_solveConverged, "%s: %s", solver->name,
                   cnSolveStatusName( stats.status ) );
    ck_assert_int_gt( stats.iterations, 3 );
    ck_assert_int_eq( stats.historyCount, stats.iterations + 1 );
    ck_assert( history[0] == start );
    ck_assert( history[stats.historyCount - 1] == stats.residual );

    int failures = 0;
    for ( int k = 1; k < stats.historyCount && k <= 8; ++k )
    {
        double alone[3] = { 0, 0, 0 };
        cnSolverStats partial = cntSolve( solver, &lcp->problem, alone, NULL, k, 0.0, -1.0 );
        failures += partial.iterations != k ||
                    fabs( partial.residual - history[k] ) > 1e-12 * fmax( 1.0, history[k] );
    }
    ck_assert_int_eq( failures, 0 );

    double shortHistory[3] = { -1, -1, -1 };
    double again[3] = { 0, 0, 0 };
    stats = cntSolveWithHistory( solver, &lcp->problem, again, NULL, 200, 1e-12, -1.0, shortHistory, 3 );
    ck_assert_int_eq( stats.historyCount, 3 );
    ck_assert( shortHistory[0] == history[0] && shortHistory[1] == history[1] &&
               shortHistory[2] == history[2] );
    cntDestroyLcp( lcp );
}
END_TEST

// The fast kernel (contact-point blocks, W J^T prepared, multiplication by 1 / A_ii) and the
// reference kernel (the textbook row sweep) give the same iterates to round-off on an engine-like
// problem: a spinning, sliding stack of 6 with friction and some soft rows, over 1 to 200 sweeps
START_TEST( fast_kernel_agrees_with_the_reference_kernel )
{
    const cnSolverVTable* solver = cntSweepSolver( _i );
    cntLcp* lcp = cntCreateStack( 6, 9.81 / 60.0, 0.6 );
    for ( int k = 0; k < 6; ++k )
    {
        lcp->freeVelocity[6 * k + 0] = 0.02 * k;
        lcp->freeVelocity[6 * k + 3] = 0.05 * ( k + 1 );
        lcp->freeVelocity[6 * k + 4] = -0.03;
    }
    cntFinishB( lcp );
    double softness[72] = { 0 };
    for ( int i = 0; i < lcp->problem.rowCount; i += 7 )
    {
        softness[i] = 0.05;
    }
    lcp->problem.softness = softness;
    double params[cn_sweepParamCount];
    for ( int k = 0; k < cn_sweepParamCount; ++k )
    {
        params[k] = solver->params[k].defaultValue;
    }
    params[cn_sweepParamTolerance] = 0.0;
    params[cn_sweepParamDivergenceFactor] = 0.0;
    static const int sweeps[4] = { 1, 10, 50, 200 };
    double worst = 0.0;
    for ( int s = 0; s < 4; ++s )
    {
        double fast[72] = { 0 };
        double reference[72] = { 0 };
        double dvFast[36] = { 0 };
        double dvReference[36] = { 0 };
        params[cn_sweepParamIterations] = sweeps[s];
        params[cn_sweepParamKernel] = cn_kernelFast;
        cnSolverStats a = cntSolveWithParams( solver, &lcp->problem, fast, dvFast, params, NULL, 0 );
        params[cn_sweepParamKernel] = cn_kernelReference;
        cnSolverStats b =
            cntSolveWithParams( solver, &lcp->problem, reference, dvReference, params, NULL, 0 );
        ck_assert_int_eq( a.iterations, sweeps[s] );
        ck_assert_int_eq( b.iterations, sweeps[s] );
        double scale = 0.0;
        for ( int i = 0; i < lcp->problem.rowCount; ++i )
        {
            scale = fmax( scale, fabs( reference[i] ) );
        }
        for ( int i = 0; i < lcp->problem.rowCount; ++i )
        {
            worst = fmax( worst, fabs( fast[i] - reference[i] ) / scale );
        }
        for ( int k = 0; k < 36; ++k )
        {
            worst = fmax( worst, fabs( dvFast[k] - dvReference[k] ) / fmax( 1.0, fabs( dvReference[k] ) ) );
        }
    }
    printf( "%s: fast against reference kernel, worst relative difference %.3g\n", solver->name, worst );
    ck_assert( worst <= 1e-12 );
    lcp->problem.softness = NULL;
    cntDestroyLcp( lcp );
}
END_TEST

// The kernel's hooks: with relaxation 1 the overshoot memory has coefficient 0 and the sweep is
// PGS bit for bit; frozen bounds equal to the model's own give PGS's iterate of the first sweep;
// a memory with relaxation 1.5 changes the iterates and records y - clamp(y)
START_TEST( sweep_hooks_memory_and_frozen_bounds )
{
    cntLcp* lcp = cntCreateStack( 3, 0.3, 0.5 );
    cnSolverProblem* p = &lcp->problem;
    int n = p->rowCount;
    cnScratch scratch = { .arena = NULL };
    cnPrepared prepared;
    ck_assert( cnPrepareProblem( p, &scratch, &prepared ) );
    double plain[36] = { 0 }, withMemory[36] = { 0 }, memory[36] = { 0 };
    double velocity[18] = { 0 }, velocityMemory[18] = { 0 };
    cnSweepHooks hooks = { .relaxation = 1.0 };
    cnSweepHooks memoryHooks = { .relaxation = 1.0, .memory = memory };
    for ( int sweep = 0; sweep < 20; ++sweep )
    {
        cnSweep( p, &prepared, cn_sweepGaussSeidel, &hooks, plain, velocity, NULL );
        cnSweep( p, &prepared, cn_sweepGaussSeidel, &memoryHooks, withMemory, velocityMemory, NULL );
    }
    int failures = 0;
    for ( int i = 0; i < n; ++i )
    {
        failures += plain[i] != withMemory[i];
    }

    // frozen bounds: the model's bounds of the current iterate, held fixed for one sweep
    double low[36], high[36], frozen[36], velocityFrozen[18], again[36], velocityAgain[18];
    memcpy( frozen, plain, sizeof( frozen ) );
    memcpy( again, plain, sizeof( again ) );
    memcpy( velocityFrozen, velocity, sizeof( velocityFrozen ) );
    memcpy( velocityAgain, velocity, sizeof( velocityAgain ) );
    for ( int i = 0; i < n; ++i )
    {
        cnRowBounds( p, &prepared, plain, i, low + i, high + i );
    }
    cnSweepHooks frozenHooks = { .relaxation = 1.0, .frozenLow = low, .frozenHigh = high };
    cnSweep( p, &prepared, cn_sweepGaussSeidel, &frozenHooks, frozen, velocityFrozen, NULL );
    cnSweep( p, &prepared, cn_sweepGaussSeidel, &hooks, again, velocityAgain, NULL );
    for ( int i = 0; i < n; ++i )
    {
        // the friction bounds differ only through the normal impulses, converged to 1e-3 here
        failures += fabs( frozen[i] - again[i] ) > 1e-3 * fmax( 1.0, fabs( again[i] ) );
        failures += frozen[i] < low[i] || frozen[i] > high[i];
    }

    // over-relaxed with memory: y - clamp(y) is recorded where the clamp acted
    double relaxed[36] = { 0 }, relaxedMemory[36] = { 0 }, velocityRelaxed[18] = { 0 };
    cnSweepHooks amgs = { .relaxation = 1.5, .memory = relaxedMemory };
    cnSweep( p, &prepared, cn_sweepGaussSeidel, &amgs, relaxed, velocityRelaxed, NULL );
    int clamped = 0;
    for ( int i = 0; i < n; ++i )
    {
        clamped += relaxedMemory[i] != 0.0;
    }
    ck_assert_int_gt( clamped, 0 );
    ck_assert_int_eq( failures, 0 );
    cnScratchRelease( &scratch );
    cntDestroyLcp( lcp );
}
END_TEST

// A deadline of a microsecond stops a long solve early with cn_solveDeadline, still usable
START_TEST( a_deadline_stops_the_solve )
{
    const cnSolverVTable* solver = cntSweepSolver( _i );
    cntLcp* lcp = cntCreateStack( 6, 9.81 / 60.0, 0.6 );
    double params[cn_sweepParamCount];
    for ( int k = 0; k < cn_sweepParamCount; ++k )
    {
        params[k] = solver->params[k].defaultValue;
    }
    params[cn_sweepParamIterations] = 1000000;
    params[cn_sweepParamTolerance] = 0.0;
    params[cn_sweepParamDeadline] = 0.001;
    double lambda[72] = { 0 };
    cnSolverStats stats = cntSolveWithParams( solver, &lcp->problem, lambda, NULL, params, NULL, 0 );
    ck_assert_int_eq( stats.status, cn_solveDeadline );
    ck_assert_int_ge( stats.iterations, 1 );
    ck_assert_int_lt( stats.iterations, 1000000 );
    ck_assert( cnSolveStatusIsUsable( stats.status, solver->caps ) );
    cntDestroyLcp( lcp );
}
END_TEST

Suite* cntSweepsSuite( void )
{
    Suite* suite = suite_create( "sweeps" );
    TCase* tc = tcase_create( "solvers" );
    tcase_add_loop_test( tc, vtables_describe_themselves, 0, CNT_SWEEP_SOLVERS );
    tcase_add_loop_test( tc, sphere_on_ground_one_sweep_gives_m_v, 0, CNT_SWEEP_SOLVERS );
    tcase_add_loop_test( tc, two_body_row_uses_both_w_blocks, 0, CNT_SWEEP_SOLVERS );
    tcase_add_loop_test( tc, friction_stops_at_mu_lambda_n, 0, CNT_SWEEP_SOLVERS );
    tcase_add_loop_test( tc, stack_of_boxes_converges_with_default_relaxation, 0, CNT_SWEEP_SOLVERS );
    tcase_add_loop_test( tc, spinning_stack_converges_with_default_relaxation, 0, CNT_SWEEP_SOLVERS );
    tcase_add_loop_test( tc, one_sweep_on_a_coupled_problem_reports_max_iterations, 0, CNT_SWEEP_SOLVERS );
    tcase_add_loop_test( tc, nan_input_reports_nonfinite_and_keeps_lambda_finite, 0, CNT_SWEEP_SOLVERS );
    tcase_add_loop_test( tc, non_symmetric_problem_diverges_and_puts_back_the_start, 0, CNT_SWEEP_SOLVERS );
    tcase_add_loop_test( tc, zero_diagonal_is_unsupported_and_lambda_untouched, 0, CNT_SWEEP_SOLVERS );
    tcase_add_loop_test( tc, warm_start_from_the_solution_converges_at_once, 0, CNT_SWEEP_SOLVERS );
    tcase_add_loop_test( tc, degenerate_inputs, 0, CNT_SWEEP_SOLVERS );
    tcase_add_loop_test( tc, residual_history_records_every_sweep, 0, CNT_SWEEP_SOLVERS );
    tcase_add_loop_test( tc, fast_kernel_agrees_with_the_reference_kernel, 0, 2 );
    tcase_add_test( tc, sweep_hooks_memory_and_frozen_bounds );
    tcase_add_loop_test( tc, a_deadline_stops_the_solve, 0, CNT_SWEEP_SOLVERS );
    suite_add_tcase( suite, tc );
    return suite;
}
