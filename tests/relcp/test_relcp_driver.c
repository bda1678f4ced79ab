// SPDX-License-Identifier: MIT
// The recursion driver (solvers/recursion.c) on problems built here, with an oracle that appends
// random rows for a few calls: the invariants of the ReLCP digest's section 9 item 4 and the
// driver's contract.
//   - the rows an oracle appends are solved with the old ones from the answer padded with zeros,
//     and the objective 1/2 x^T A x + b^T x at each level's answer never rises (appendix B),
//     checked against the value the oracle computes itself from the impulses it is given;
//   - a level the inner solver cannot solve is taken back: its rows go, the answer is the level
//     before's, bit for bit, and the fallback is counted;
//   - past `levels` the rows found are not solved and the overlap stays reported;
//   - without an oracle, relcp is its inner solver.
#include "arena.h"
#include "relcp_suites.h"
#include "solver_kit.h"
#include "solver_layer.h"
#include "test_support.h"

#include "cairn/lcp_io.h"
#include "cairn/solver.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CNT_BODIES   4
#define CNT_CAPACITY 64

typedef struct cntProblem
{
    cnSolverProblem problem;
    cnRowGroup groups[CNT_CAPACITY];
    double lower[CNT_CAPACITY], upper[CNT_CAPACITY], b[CNT_CAPACITY];
    int32_t bodyA[CNT_CAPACITY], bodyB[CNT_CAPACITY];
    double jacobianA[6 * CNT_CAPACITY], jacobianB[6 * CNT_CAPACITY];
    double wLinear[9 * CNT_BODIES], wAngular[9 * CNT_BODIES];
    double lambda[CNT_CAPACITY];
    double velocity[6 * CNT_BODIES];
    // the oracle's record
    unsigned seed;
    int calls;
    int addCalls;    // calls that append rows
    int rowsPerCall; // rows each appends
    double objective[16];
    double overlap;      // what it reports as the deepest overlap
    uint64_t hashes[16]; // of the rows as each call found them
    int rowsAt[16];
} cntProblem;

static double cntNextRandom( unsigned* seed )
{
    *seed = *seed * 1103515245u + 12345u;
    return (double)( ( *seed >> 8 ) & 0xffffff ) / (double)0x1000000;
}

// one normal row between two random bodies (or one and the ground), b below zero: it pushes
static void cntAppendRow( cntProblem* t )
{
    cnSolverProblem* p = &t->problem;
    int i = p->rowCount++;
    int a = (int)( cntNextRandom( &t->seed ) * ( CNT_BODIES + 1 ) ) - 1;
    int b = (int)( cntNextRandom( &t->seed ) * CNT_BODIES );
    if ( a == b )
    {
        a = -1;
    }
    t->bodyA[i] = a;
    t->bodyB[i] = b;
    for ( int k = 0; k < 6; ++k )
    {
        t->jacobianA[6 * i + k] = 2.0 * cntNextRandom( &t->seed ) - 1.0;
        t->jacobianB[6 * i + k] = 2.0 * cntNextRandom( &t->seed ) - 1.0;
    }
    t->b[i] = -0.1 - cntNextRandom( &t->seed );
    t->lower[i] = 0.0;
    t->upper[i] = (double)INFINITY;
    p->groups[p->groupCount++] = ( cnRowGroup ){ .firstRow = i, .rowCount = 1, .kind = cn_groupNormal };
}

// 1/2 x^T A x + b^T x from the impulses and their velocity change (A x = J W J^T x = J dv)
static double cntObjective( const cnSolverProblem* p, const double* lambda, const double* dv )
{
    double f = 0.0;
    for ( int i = 0; i < p->rowCount; ++i )
    {
        double w = p->b[i];
        if ( p->bodyA[i] >= 0 )
        {
            for ( int k = 0; k < 6; ++k )
            {
                w += p->jacobianA[6 * i + k] * dv[6 * p->bodyA[i] + k];
            }
        }
        for ( int k = 0; k < 6; ++k )
        {
            w += p->jacobianB[6 * i + k] * dv[6 * p->bodyB[i] + k];
        }
        f += 0.5 * lambda[i] * ( w + p->b[i] );
    }
    return f;
}

static uint64_t cntHash( const cntProblem* t, int rows )
{
    uint64_t h = 1469598103934665603ull;
    const unsigned char* bytes[3] = { (const unsigned char*)t->b, (const unsigned char*)t->jacobianA,
                                      (const unsigned char*)t->jacobianB };
    size_t sizes[3] = { sizeof( double ) * (size_t)rows, 6 * sizeof( double ) * (size_t)rows,
                        6 * sizeof( double ) * (size_t)rows };
    for ( int p = 0; p < 3; ++p )
    {
        for ( size_t k = 0; k < sizes[p]; ++k )
        {
            h = ( h ^ bytes[p][k] ) * 1099511628211ull;
        }
    }
    return h;
}

static cnStatus cntOracle( void* context, cnSolverProblem* problem, const double* lambda, const double* dv,
                           double tolerance, cnOracleResult* result )
{
    cntProblem* t = context;
    ck_assert_ptr_eq( problem, &t->problem );
    ck_assert( tolerance > 0.0 );
    *result = ( cnOracleResult ){ 0 };
    int call = t->calls++;
    ck_assert_int_lt( call, 16 );
    t->objective[call] = cntObjective( problem, lambda, dv );
    t->hashes[call] = cntHash( t, problem->rowCount );
    t->rowsAt[call] = problem->rowCount;
    // the rows the last call found are as they were (nobody changed them since)
    if ( call > 0 )
    {
        ck_assert_int_ge( problem->rowCount, t->rowsAt[call - 1] );
        ck_assert( cntHash( t, t->rowsAt[call - 1] ) == t->hashes[call - 1] );
    }
    if ( call < t->addCalls )
    {
        for ( int r = 0; r < t->rowsPerCall && problem->rowCount < problem->rowCapacity; ++r )
        {
            cntAppendRow( t );
            result->rowsAdded += 1;
            result->groupsAdded += 1;
        }
        result->maxOverlap = 1.0;
    }
    else
    {
        result->maxOverlap = t->overlap;
    }
    return cn_statusOk;
}

static void cntMakeProblem( cntProblem* t, unsigned seed, int addCalls, int rowsPerCall )
{
    memset( t, 0, sizeof( *t ) );
    t->seed = seed;
    t->addCalls = addCalls;
    t->rowsPerCall = rowsPerCall;
    t->overlap = 1e-7;
    cnSolverProblem* p = &t->problem;
    p->rowCapacity = CNT_CAPACITY;
    p->groupCapacity = CNT_CAPACITY;
    p->bodyCount = CNT_BODIES;
    p->groups = t->groups;
    p->lower = t->lower;
    p->upper = t->upper;
    p->b = t->b;
    p->bodyA = t->bodyA;
    p->bodyB = t->bodyB;
    p->jacobianA = t->jacobianA;
    p->jacobianB = t->jacobianB;
    p->wLinear = t->wLinear;
    p->wAngular = t->wAngular;
    p->dynamics = cn_dynamicsOverdamped;
    p->timeStep = 0.01;
    for ( int k = 0; k < CNT_BODIES; ++k )
    {
        for ( int j = 0; j < 3; ++j )
        {
            t->wLinear[9 * k + 4 * j] = 1.0 + k;
            t->wAngular[9 * k + 4 * j] = 0.5 + 0.25 * k;
        }
    }
    for ( int r = 0; r < 3; ++r )
    {
        cntAppendRow( t );
    }
    p->oracle = ( cnSolverOracle ){ .context = t, .fcn = cntOracle };
}

static cnSolverStats cntRunRelcp( cntProblem* t, const char* inner, int levels )
{
    const cnSolverVTable* relcp = cnFindSolver( "relcp" );
    ck_assert_ptr_nonnull( relcp );
    double params[CN_MAX_SOLVER_PARAMS];
    for ( int i = 0; i < relcp->paramCount; ++i )
    {
        params[i] = relcp->params[i].defaultValue;
    }
    int index = cnFindSolverParam( relcp, "inner" );
    const cnSolverParam* choice = relcp->params + index;
    for ( int k = 0; k < choice->choiceCount; ++k )
    {
        if ( strcmp( choice->choices[k], inner ) == 0 )
        {
            params[index] = k;
        }
    }
    params[cnFindSolverParam( relcp, "levels" )] = levels;
    params[cnFindSolverParam( relcp, "tolerance" )] = 1e-12;
    cnSolverSolution solution = { .lambda = t->lambda, .deltaVelocity = t->velocity };
    cnSolverStats stats;
    ck_assert_int_eq( cnRunSolver( relcp, params, &t->problem, &solution, NULL, &stats ), cn_statusOk );
    return stats;
}

// Lemke inside (exact): each level's objective at most the level before's; rows kept as made.
START_TEST( objective_does_not_rise_over_levels )
{
    int checked = 0;
    double worstRise = -HUGE_VAL;
    for ( unsigned seed = 1; seed <= 40; ++seed )
    {
        static cntProblem t;
        cntMakeProblem( &t, seed, 4, 3 );
        cnSolverStats stats = cntRunRelcp( &t, "lemke", 50 );
        ck_assert_msg( cnSolveStatusIsUsable( stats.status, 0 ), "seed %u: %s", seed,
                       cnSolveStatusName( stats.status ) );
        ck_assert_int_eq( stats.oracleCalls, 5 );
        ck_assert_int_eq( stats.levels, 4 );
        ck_assert_int_eq( stats.rowsAdded, 12 );
        ck_assert_int_eq( t.problem.rowCount, 15 );
        ck_assert_double_eq( stats.overlap, t.overlap );
        for ( int k = 1; k < t.calls; ++k )
        {
            double rise = t.objective[k] - t.objective[k - 1];
            worstRise = fmax( worstRise, rise / fmax( 1.0, fabs( t.objective[k - 1] ) ) );
            ck_assert_msg( rise <= 1e-9 * fmax( 1.0, fabs( t.objective[k - 1] ) ),
                           "seed %u: objective %.17g after level %d, %.17g before", seed, t.objective[k], k,
                           t.objective[k - 1] );
            checked += 1;
        }
        // the answer: nothing negative, and complementary with w = A x + b (graded by the layer)
        ck_assert( stats.merits.naturalMap < 1e-9 );
    }
    printf( "driver: %d level pairs, the objective rose by at most %.3g (relative)\n", checked, worstRise );
    fflush( stdout );
}
END_TEST

// levels runs out: the rows of the last call are taken away unsolved, the overlap stays reported
START_TEST( levels_cap_the_recursion )
{
    static cntProblem t;
    cntMakeProblem( &t, 7, 10, 2 );
    cnSolverStats stats = cntRunRelcp( &t, "lemke", 2 );
    ck_assert_int_eq( stats.oracleCalls, 3 );
    ck_assert_int_eq( stats.levels, 2 );
    ck_assert_int_eq( stats.rowsAdded, 4 );
    ck_assert_int_eq( t.problem.rowCount, 7 );
    ck_assert_double_eq( stats.overlap, 1.0 );

    // levels = 0: one solve, no oracle call (the single-constraint LCP)
    cntMakeProblem( &t, 7, 10, 2 );
    stats = cntRunRelcp( &t, "lemke", 0 );
    ck_assert_int_eq( stats.oracleCalls, 0 );
    ck_assert_int_eq( t.problem.rowCount, 3 );
    ck_assert( isnan( stats.overlap ) );
}
END_TEST

// A solver that fails once the problem has more rows than the test allows: the driver takes the
// level back.
static int s_failAbove;
static void cntFailingSolve( void* state, const double* params, const cnSolverBudget* budget,
                             cnSolverProblem* problem, const cnPrepared* prepared, cnSolverSolution* solution,
                             cnArena* arena, cnSolverStats* stats )
{
    if ( problem->rowCount > s_failAbove )
    {
        for ( int i = 0; i < problem->rowCount; ++i )
        {
            solution->lambda[i] = (double)NAN; // garbage the driver must not keep
        }
        stats->status = cn_solveNonFinite;
        return;
    }
    cnFindSolver( "lemke" )->solve( state, params, budget, problem, prepared, solution, arena, stats );
}

START_TEST( failed_level_is_taken_back )
{
    static cntProblem t;
    cntMakeProblem( &t, 11, 4, 3 );
    cnSolverVTable failing = *cnFindSolver( "lemke" );
    failing.name = "failing_lemke";
    failing.solve = cntFailingSolve;
    s_failAbove = 6; // level 1 (6 rows) solves, level 2 (9 rows) fails

    cnArena arena;
    cnCreateArena( &arena, NULL, 1 << 20 );
    cnPrepared* prepared = cnLayerPrepare( &t.problem, &arena, NULL );
    ck_assert_ptr_nonnull( prepared );
    double params[CN_MAX_SOLVER_PARAMS];
    for ( int i = 0; i < failing.paramCount; ++i )
    {
        params[i] = failing.params[i].defaultValue;
    }
    cnRecursionInner inner = { &failing, NULL, params };
    cnRecursionSettings settings = { 50, 1e-5 };
    cnSolverBudget budget = { 1000, 1e-12, 0.0 };
    cnSolverSolution solution = { .lambda = t.lambda, .deltaVelocity = t.velocity };
    cnSolverStats stats = { 0 };
    cnRecursionSolve( &inner, &settings, &budget, &t.problem, prepared, &solution, &arena, &stats );

    // what level 1 gave, from a second run stopped there
    static cntProblem u;
    cntMakeProblem( &u, 11, 1, 3 );
    cnSolverStats reference = cntRunRelcp( &u, "lemke", 50 );
    ck_assert_int_eq( reference.levels, 1 );

    ck_assert_int_eq( stats.fallbacks, 1 );
    ck_assert_int_eq( stats.levels, 1 );
    ck_assert_int_eq( t.problem.rowCount, 6 );
    ck_assert_int_eq( t.problem.groupCount, 6 );
    ck_assert( cnSolveStatusIsUsable( stats.status, 0 ) );
    ck_assert_double_eq( stats.overlap, 1.0 ); // the overlap the failed level was to fix
    for ( int i = 0; i < 6; ++i )
    {
        ck_assert_msg( t.lambda[i] == u.lambda[i], "row %d: %.17g, level 1 gave %.17g", i, t.lambda[i],
                       u.lambda[i] );
    }
    cnDestroyArena( &arena );
}
END_TEST

// A problem without an oracle (from a file): relcp is one solve of its inner solver.
START_TEST( without_an_oracle_relcp_is_its_inner_solver )
{
    static cntProblem t, u;
    cntMakeProblem( &t, 5, 0, 0 );
    cntMakeProblem( &u, 5, 0, 0 );
    t.problem.oracle = ( cnSolverOracle ){ 0 };
    cnSolverStats stats = cntRunRelcp( &t, "lemke", 50 );
    ck_assert_int_eq( stats.oracleCalls, 0 );
    double params[CN_MAX_SOLVER_PARAMS];
    const cnSolverVTable* lemke = cnFindSolver( "lemke" );
    for ( int i = 0; i < lemke->paramCount; ++i )
    {
        params[i] = lemke->params[i].defaultValue;
    }
    // relcp runs its inner solver with the inner's defaults, and relcp's budget
    u.problem.oracle = ( cnSolverOracle ){ 0 };
    cnSolverSolution solution = { .lambda = u.lambda, .deltaVelocity = u.velocity };
    cnSolverStats direct;
    ck_assert_int_eq( cnRunSolver( lemke, params, &u.problem, &solution, NULL, &direct ), cn_statusOk );
    for ( int i = 0; i < 3; ++i )
    {
        ck_assert( t.lambda[i] == u.lambda[i] );
    }
}
END_TEST

// gap_tolerance: the paper's stopping rule (SimToolbox's conResTol, a length) handed to bbpgd as its
// gradient_tolerance, divided by dt (w is a velocity). The level stops as soon as the projected
// gradient times dt is at most the tolerance, with the same answer as bbpgd run with that gradient
// tolerance, and sooner than the merit alone (1e-12) would stop it.
START_TEST( gap_tolerance_is_the_papers_rule )
{
    static cntProblem t, u, v;
    cntMakeProblem( &t, 9, 0, 0 );
    cntMakeProblem( &u, 9, 0, 0 );
    cntMakeProblem( &v, 9, 0, 0 );
    t.problem.oracle = ( cnSolverOracle ){ 0 };
    u.problem.oracle = ( cnSolverOracle ){ 0 };
    v.problem.oracle = ( cnSolverOracle ){ 0 };
    double gap = 1e-6; // m
    const cnSolverVTable* relcp = cnFindSolver( "relcp" );
    const cnSolverVTable* bbpgd = cnFindSolver( "bbpgd" );
    double params[CN_MAX_SOLVER_PARAMS], inner[CN_MAX_SOLVER_PARAMS];
    for ( int i = 0; i < relcp->paramCount; ++i )
    {
        params[i] = relcp->params[i].defaultValue; // inner: bbpgd
    }
    params[cnFindSolverParam( relcp, "tolerance" )] = 1e-12;
    params[cnFindSolverParam( relcp, "gap_tolerance" )] = gap;
    for ( int i = 0; i < bbpgd->paramCount; ++i )
    {
        inner[i] = bbpgd->params[i].defaultValue;
    }
    inner[cnFindSolverParam( bbpgd, "gradient_tolerance" )] = gap / t.problem.timeStep;
    cnSolverSolution a = { .lambda = t.lambda, .deltaVelocity = t.velocity };
    cnSolverSolution b = { .lambda = u.lambda, .deltaVelocity = u.velocity };
    cnSolverStats withGap, direct;
    ck_assert_int_eq( cnRunSolver( relcp, params, &t.problem, &a, NULL, &withGap ), cn_statusOk );
    // bbpgd's own run takes relcp's budget (its iterations and tolerance)
    inner[cnFindSolverParam( bbpgd, "iterations" )] = params[cnFindSolverParam( relcp, "iterations" )];
    inner[cnFindSolverParam( bbpgd, "tolerance" )] = 1e-12;
    ck_assert_int_eq( cnRunSolver( bbpgd, inner, &u.problem, &b, NULL, &direct ), cn_statusOk );
    // the merit alone (1e-12)
    cnSolverSolution c = { .lambda = v.lambda, .deltaVelocity = v.velocity };
    cnSolverStats merit;
    params[cnFindSolverParam( relcp, "gap_tolerance" )] = 0.0;
    ck_assert_int_eq( cnRunSolver( relcp, params, &v.problem, &c, NULL, &merit ), cn_statusOk );
    printf( "gap tolerance %.0e m: %d iterations, projected gradient x dt %.3g m; the merit alone: %d "
            "iterations\n",
            gap, withGap.iterations, withGap.ownMeasure * t.problem.timeStep, merit.iterations );
    fflush( stdout );
    ck_assert_int_eq( withGap.status, cn_solveConverged );
    ck_assert( withGap.ownMeasure * t.problem.timeStep <= gap );
    ck_assert_int_lt( withGap.iterations, merit.iterations );
    ck_assert_int_eq( withGap.iterations, direct.iterations );
    for ( int i = 0; i < t.problem.rowCount; ++i )
    {
        ck_assert( t.lambda[i] == u.lambda[i] );
    }
}
END_TEST

Suite* cntRelcpDriverSuite( void )
{
    Suite* suite = suite_create( "relcp_driver" );
    TCase* tc = tcase_create( "driver" );
    tcase_add_test( tc, objective_does_not_rise_over_levels );
    tcase_add_test( tc, levels_cap_the_recursion );
    tcase_add_test( tc, failed_level_is_taken_back );
    tcase_add_test( tc, without_an_oracle_relcp_is_its_inner_solver );
    tcase_add_test( tc, gap_tolerance_is_the_papers_rule );
    suite_add_tcase( suite, tc );
    return suite;
}
