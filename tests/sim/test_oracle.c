// SPDX-License-Identifier: MIT
// The world's oracle (cairn/solver.h, cnSolverOracle), as a solver that calls it sees it (relcp
// does, through solvers/recursion.c; here the test puts its own solver into a world, so that each
// call can be watched): it asks the oracle where the bodies go without any impulse, gets rows for the
// overlaps there, solves old and new rows with pgs, and the world applies the result. Checked: what the
// oracle appends (rows, groups, the deepest overlap against the falling box's closed form), that it refuses
// rows past the problem's capacity and counts them, and that the layer and the world carry the grown problem
// through (graded, applied: the box stops on the ground).
#include "sim_suites.h"
#include "solver_kit.h"
#include "test_support.h"
#include "world.h"

#include "cairn/solver.h"

#include <math.h>
#include <string.h>

// what the test solver saw, call by call
#define CNT_ORACLE_CALLS 64
static cnOracleResult s_results[CNT_ORACLE_CALLS];
static int s_rowsBefore[CNT_ORACLE_CALLS];
static int s_calls;
static int s_finalRows;
static int s_capacity;

// Oracle calls with no impulse (the free motion) until one adds nothing, or CNT_ORACLE_CALLS, then
// pgs on every row.
static void cntOracleSolve( void* state, const double* params, const cnSolverBudget* budget,
                            cnSolverProblem* problem, const cnPrepared* prepared, cnSolverSolution* solution,
                            cnArena* arena, cnSolverStats* stats )
{
    (void)state;
    const cnSolverVTable* pgs = cnFindSolver( "pgs" );
    double* none = cnArena_Alloc(
        arena, 6 * (size_t)( problem->bodyCount > 0 ? problem->bodyCount : 1 ) * sizeof( double ), 16 );
    ck_assert_ptr_nonnull( none );
    memset( none, 0, 6 * (size_t)problem->bodyCount * sizeof( double ) );
    ck_assert( problem->oracle.fcn != NULL );
    s_capacity = problem->rowCapacity;
    while ( s_calls < CNT_ORACLE_CALLS )
    {
        s_rowsBefore[s_calls] = problem->rowCount;
        cnOracleResult* result = s_results + s_calls;
        ck_assert_int_eq(
            problem->oracle.fcn( problem->oracle.context, problem, solution->lambda, none, 1e-4, result ),
            cn_statusOk );
        s_calls += 1;
        stats->oracleCalls += 1;
        stats->rowsAdded += result->rowsAdded;
        stats->rowsRefused += result->rowsRefused;
        stats->overlap = result->maxOverlap;
        if ( result->rowsAdded == 0 )
        {
            break;
        }
        stats->levels += 1;
    }
    // the kit's data for the appended rows, then one pgs solve of the grown problem
    cnPrepareRows( problem, (cnPrepared*)prepared );
    s_finalRows = problem->rowCount;
    cnSolverStats inner = { 0 };
    pgs->solve( NULL, params, budget, problem, prepared, solution, arena, &inner );
    stats->status = inner.status;
    stats->iterations = inner.iterations;
    stats->ownMeasure = inner.ownMeasure;
}

static cnSolverVTable s_oracleSolver;

// A unit box 1 cm above the ground driven down at 3 m/s (an overdamped world without gravity: unit
// mobility and a constant 3 N), in a world whose solver is the test solver (pgs's parameter table, so
// the world's budget is read as for pgs). Overdamped: the oracle is on the one pass, and its free
// motion is the box's 3 m/s.
static cnWorldId cntFallingBox( cnBodyId* box )
{
    cnWorldDef def = cnDefaultWorldDef();
    def.dynamics = cn_dynamicsOverdamped;
    def.gravity = cn_vec3Zero;
    cnWorldId world = cnCreateWorld( &def );
    cnBodyDef groundDef = cnDefaultBodyDef();
    groundDef.type = cn_staticBody;
    cnBodyId ground = cnCreateBody( world, &groundDef );
    cnShapeDef shapeDef = cnDefaultShapeDef();
    cnPlane plane = { { 0.0, 0.0, 1.0 }, 0.0 };
    ck_assert( CN_IS_NON_NULL( cnCreatePlaneShape( ground, &shapeDef, &plane ) ) );
    cnBodyDef boxDef = cnDefaultBodyDef();
    boxDef.position = cnMakeVec3( 0.0, 0.0, 0.51 );
    *box = cnCreateBody( world, &boxDef );
    cnBox geometry = { { 0.5, 0.5, 0.5 } };
    ck_assert( CN_IS_NON_NULL( cnCreateBoxShape( *box, &shapeDef, &geometry ) ) );
    cnMat3 unit = cnMakeMat3Diagonal( 1.0, 1.0, 1.0 );
    ck_assert_int_eq( cnBody_SetMobility( *box, unit, unit ), cn_statusOk );
    ck_assert_int_eq( cnBody_SetConstantForce( *box, cnMakeVec3( 0.0, 0.0, -3.0 ) ), cn_statusOk );

    const cnSolverVTable* pgs = cnFindSolver( "pgs" );
    s_oracleSolver = *pgs;
    s_oracleSolver.name = "oracle_probe";
    s_oracleSolver.caps = pgs->caps | cn_solverUsesOracle | cn_solverSinglePass;
    s_oracleSolver.create = NULL;
    s_oracleSolver.destroy = NULL;
    s_oracleSolver.solve = cntOracleSolve;
    // the world runs pgs's parameters (its defaults) with the test's functions
    cnWorld* w = cnGetWorld( world );
    ck_assert_ptr_nonnull( w );
    ck_assert_ptr_null( w->solverState );
    w->solver = &s_oracleSolver;
    s_calls = 0;
    memset( s_results, 0, sizeof( s_results ) );
    return world;
}

START_TEST( oracle_appends_rows_at_the_trial_poses )
{
    cnBodyId box;
    cnWorldId world = cntFallingBox( &box );
    ck_assert_int_eq( cnWorld_Step( world, 1.0 / 60.0 ), cn_statusOk );
    cnStepReport report = cnWorld_GetStepReport( world );
    ck_assert_int_eq( report.substeps, 1 );

    // the box's four bottom corners overlap the ground where the free motion takes them, by 3 m/s
    // over h = 1/60 s, less the 1 cm gap
    double h = 1.0 / 60.0;
    double overlap = 3.0 * h - 0.01;
    ck_assert_int_ge( s_calls, 2 );
    const cnOracleResult* first = s_results + 0;
    ck_assert_int_eq( first->rowsAdded, 4 );
    ck_assert_int_eq( first->groupsAdded, 4 );
    ck_assert_int_eq( first->rowsRefused, 0 );
    CNT_ASSERT_REL( first->maxOverlap, overlap, 1e-9 );
    ck_assert_int_eq( s_rowsBefore[1], s_rowsBefore[0] + 4 );

    // the problem has room for CN_ORACLE_LEVELS calls' worth of rows (a row per point and pair, and
    // some): the calls fill it four rows at a time, the first without room for all four adds what
    // fits and refuses the rest, and says so
    int room = s_capacity - s_rowsBefore[0];
    ck_assert_int_ge( room, CN_ORACLE_LEVELS * 4 );
    int filling = room / 4;
    ck_assert_int_lt( filling, CNT_ORACLE_CALLS );
    ck_assert_int_ge( s_calls, filling + 1 );
    for ( int k = 1; k < filling; ++k )
    {
        ck_assert_int_eq( s_results[k].rowsAdded, 4 );
        ck_assert_int_eq( s_rowsBefore[k], s_rowsBefore[0] + 4 * k );
    }
    const cnOracleResult* full = s_results + filling;
    ck_assert_int_eq( full->rowsAdded, room % 4 );
    ck_assert_int_eq( full->rowsRefused, 4 - room % 4 );
    CNT_ASSERT_REL( full->maxOverlap, overlap, 1e-9 );
    ck_assert( report.warnings & cn_warnOverlapLeft );

    // graded and applied with every row: the box stops on the ground, and the oracle was only set
    // for the pass (a step of a world whose solver does not ask for it has none: pgs's contract)
    ck_assert( cnSolveStatusIsUsable( (cnSolveStatus)report.solverStatus, s_oracleSolver.caps ) );
    ck_assert( report.meritNaturalMap < 1e-3 );
    ck_assert_msg( cnGetWorld( world )->contacts.count == 1, "one contact pair" );
    for ( int i = 0; i < 30; ++i )
    {
        ck_assert_int_eq( cnWorld_Step( world, 1.0 / 60.0 ), cn_statusOk );
    }
    cnVec3 p = cnBody_GetPosition( box );
    cnVec3 v = cnBody_GetLinearVelocity( box );
    printf( "oracle: %d calls in the last step, first added %d rows (overlap %.6f m, closed form %.6f m); "
            "box at z = %.5f m, v_z = %.2e m/s\n",
            s_calls, first->rowsAdded, first->maxOverlap, overlap, p.z, v.z );
    fflush( stdout );
    ck_assert( p.z > 0.499 && p.z < 0.501 );
    ck_assert( fabs( v.z ) < 1e-3 );
    cnDestroyWorld( world );
}
END_TEST

Suite* cntOracleSuite( void )
{
    Suite* suite = suite_create( "oracle" );
    TCase* tc = tcase_create( "world" );
    tcase_add_test( tc, oracle_appends_rows_at_the_trial_poses );
    suite_add_tcase( suite, tc );
    return suite;
}
