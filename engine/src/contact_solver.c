// SPDX-License-Identifier: MIT
// The contact solve's passes (the model is in contact_solver.h), the stages the step runs, as in
// Box2D v3's contact solver:
//   prepare     the rows (contact_rows.c: bodies, contacts, warm start; joint_solver.c: joints)
//   solve       the main pass: the soft problem of an inertial world, or the hard one
//   relax       the hard problem from the soft impulses, with the world's small relax budget (the
//               joints' rows from their warm start, with the full budget)
//   recursion   the final pass with the oracle (contact_oracle.c): rows added at the trial poses,
//               solved again (the relcp solver, or the world's contactRecursions around its solver)
//   store       impulses back into the contact cache and the joints (contact_rows.c, joint_solver.c)
//   apply       velocity change, the impulse's angular momentum, the push as a one-step
//               pseudo-velocity (contact_rows.c)
// and the position pass of the split impulse. Every pass goes through the solver layer
// (cnLayerSolve), which checks the problem against the solver, prepares it and grades the result
// with the merits the step report carries.

#include "contact_solver.h"

#include "contact_oracle.h"
#include "contact_rows.h"
#include "core.h"
#include "joint_solver.h"
#include "solver_layer.h"
#include "world.h"

#include "cairn/solver.h"

#include <math.h>
#include <string.h>

// soft contact of the soft step: damping ratio of the push-out spring, and the fastest push-out, m/s
#define CN_CONTACT_DAMPING 10.0
#define CN_MAX_PUSH_SPEED  3.0
// the hard problem's touching tolerance, m: a point this close counts as touching (b = J v), not as
// a speculative gap (b = J v + separation / dt). The position pass of the split impulse leaves the
// points of a resting face at separations of +-1e-8 to 1e-7 m (its solve's tolerance and the
// rotation's second-order terms); as gaps their biases differ from point to point in a way no rigid
// motion meets, so a face's equations in the velocity problem are inconsistent and an exact solver
// has to let go of some point every step (pyramid20 under pgs_sm: its solves stalled at a merit of
// 5e-6 and the pyramid rocked; with 1e-7 it still does; with 1e-6 or 1e-5 every solve converges).
#define CN_TOUCH_TOLERANCE 1e-5
// the sweeps of the layer's fallback when a velocity solve fails the physics test (cnLayerOptions):
// this many, or twice a sweep solver's own budget
#define CN_FALLBACK_SWEEPS 20

// ---- solve ------------------------------------------------------------------------------------------

// a usable status and a finite velocity change
static bool cnPassUsable( const cnWorld* world, const cnContactRows* rows, const cnSolverStats* stats,
                          const double* delta )
{
    bool usable = cnSolveStatusIsUsable( stats->status, world->solver->caps );
    for ( int i = 0; usable && i < 6 * rows->bodyCount; ++i )
    {
        usable = isfinite( delta[i] );
    }
    return usable;
}

// the fallback's sweeps: CN_FALLBACK_SWEEPS, or twice the budget of a solver that sweeps
static int cnFallbackSweeps( const cnSolverVTable* solver, const cnSolverBudget* budget )
{
    bool sweeps = solver->iterationUnit != NULL && strcmp( solver->iterationUnit, "sweep" ) == 0;
    int budgetSweeps = budget->maxIterations < 1000000 ? budget->maxIterations : 1000000;
    return sweeps && 2 * budgetSweeps > CN_FALLBACK_SWEEPS ? 2 * budgetSweeps : CN_FALLBACK_SWEEPS;
}

// One pass of the layer on the rows with right-hand side b and softness (nullable), through the
// data prepared once for the substep (`prepared`, NULL when preparing failed: the layer then
// prepares itself); lambda in and out, the velocity change in delta; graded when `grade`; with the
// recursion around the solver for `recursions` levels when the problem has the oracle. When
// `record`, the pass counts in solverPasses and its history goes after what earlier passes of this
// step recorded (the position pass keeps none: the history ends with the velocity problem's
// residual, as the report does). True when the result is usable.
static bool cnSolvePass( cnWorld* world, cnContactRows* rows, cnPrepared* prepared, bool grade, bool record,
                         double* b, double* softness, const cnSolverBudget* budget, int recursions,
                         double* lambda, double* delta, cnSolverStats* stats )
{
    cnSolverProblem* problem = &rows->problem;
    problem->b = b;
    problem->softness = softness;
    int recorded = world->residualHistoryCount;
    cnSolverSolution solution = {
        .lambda = lambda,
        .deltaVelocity = delta,
        .residualHistory =
            world->residualHistory != NULL && record ? world->residualHistory + recorded : NULL,
        .residualHistoryCapacity = record ? world->residualHistoryCapacity - recorded : 0,
    };
    memset( delta, 0, 6 * (size_t)rows->bodyCount * sizeof( double ) );
    cnLayerOptions options = {
        .prepared = prepared,
        .grade = grade,
        .recursionLevels = recursions,
        .overlapTolerance = world->def.contactOverlapTolerance,
        // the velocity solve that is applied: the layer checks its physics and falls back
        .decide = grade && world->def.dynamics == cn_dynamicsInertial,
        .fallbackSweeps = cnFallbackSweeps( world->solver, budget ),
    };
    cnLayerSolve( world->solver, world->solverState, world->solverParams, budget, problem, &solution,
                  &world->arena, &options, stats );
    if ( record == false )
    {
        return cnPassUsable( world, rows, stats, delta );
    }
    world->report.solverPasses += 1;
    world->residualHistoryCount += stats->historyCount;
    if ( stats->historyCount == 0 && world->residualHistoryCount < world->residualHistoryCapacity )
    {
        // a solver that keeps no history (a pivoting one) still has an end
        world->residualHistory[world->residualHistoryCount++] = stats->residual;
    }
    return cnPassUsable( world, rows, stats, delta );
}

// the step report's record of the final pass
static void cnReportSolve( cnStepReport* report, const cnSolverStats* stats )
{
    report->solverStatus = (int)stats->status;
    report->solverReason = stats->reason;
    report->solverResidual = stats->residual;
    report->solverOwnMeasure = stats->ownMeasure;
    report->meritNaturalMap = stats->merits.naturalMap;
    report->meritCone = stats->merits.cone;
    report->violationSignorini = stats->merits.signorini;
    report->violationCoulomb = stats->merits.coulomb;
    report->violationDissipation = stats->merits.dissipation;
    report->solverEnergyAdded = stats->physics.energyAdded;
    report->solverApproachEnergy = stats->physics.approachEnergy;
    report->solverClosing = stats->physics.closing;
    report->solverApproach = stats->physics.approach;
    report->solverOutcome = (int)stats->outcome;
}

// the step report's record of what the recursion did, and its warning when a pair still overlaps;
// and the factorising solvers' counters (every pass that reports the recursion)
static void cnReportRecursion( cnWorld* world, const cnSolverStats* stats )
{
    cnStepReport* report = &world->report;
    const cnSolverVTable* solver = world->solver;
    report->solverFactorizations += stats->factorizations;
    report->solverKrylovIterations += stats->krylovIterations;
    report->solverFallbacks += stats->fallbacks;
    report->solverFreeRows = stats->freeRows > 0 ? stats->freeRows : report->solverFreeRows;
    report->contactRecursions += stats->levels;
    report->recursionRows += stats->rowsAdded;
    report->recursionRefused += stats->rowsRefused;
    if ( stats->oracleCalls == 0 )
    {
        return;
    }
    report->recursionOverlap = stats->overlap;
    double tolerance = world->def.contactOverlapTolerance;
    int index = cnFindSolverParam( solver, "overlap_tolerance" );
    if ( ( solver->caps & cn_solverUsesOracle ) != 0 && index >= 0 )
    {
        tolerance = world->solverParams[index];
    }
    if ( !( stats->overlap <= tolerance ) || stats->rowsRefused > 0 )
    {
        report->warnings |= cn_warnOverlapLeft;
        cnLogWorld(
            world, cn_logWarning, cn_statusNotConverged,
            "step %lld: after %d recursion levels a pair still overlaps by %.3g m (tolerance %.3g m; %d "
            "rows had no room; %d fallbacks: failed levels taken back and the inner solver's own)",
            (long long)world->stepIndex + 1, stats->levels, stats->overlap, tolerance, stats->rowsRefused,
            stats->fallbacks );
    }
}

// The velocity problem of the substep: assemble, solve (soft and relax passes, or one), grade, apply.
// `withOracle`: the final pass runs the recursion (overdamped worlds: the poses it checks are where
// these velocities take the bodies). `hard`: an inertial world's problem without the soft push, in
// one pass (the position pass pushes out instead).
static cnStatus cnSolveVelocities( cnWorld* world, double timeStep, cnStepScratch* scratch, bool withOracle,
                                   bool hard )
{
    const cnBodyStore* bodies = &world->bodies;
    const cnContactSet* set = &world->contacts;
    cnStepReport* report = &world->report;
    cnArena* arena = &world->arena;
    const cnSolverVTable* solver = world->solver;
    bool overdamped = world->def.dynamics == cn_dynamicsOverdamped;
    // contact groups of the world's friction model, when the solver takes them (a cone world's
    // solver always does: the world refuses others); else frictionless normals
    bool friction =
        ( solver->caps &
          ( world->def.frictionModel == cn_frictionCone ? cn_solverCone : cn_solverFriction ) ) != 0;
    int warmIndex = cnFindSolverParam( solver, "warm_start" );
    bool warmStart = warmIndex < 0 || world->solverParams[warmIndex] >= 0.5;

    // prepare: room for one group per manifold point, three rows each, and for the recursion's
    // rows: one per manifold point of every pair at every level
    int points = 0;
    for ( int i = 0; i < set->count; ++i )
    {
        points += set->contacts[i].manifold.pointCount;
    }
    // the oracle on the final pass: for a solver that calls it (relcp), or around the world's solver
    // when contactRecursions asks for the recursion; room for CN_ORACLE_LEVELS calls' worth of rows
    bool oracle = withOracle;
    int recursions = oracle ? world->def.contactRecursions : 0;
    int extra = oracle ? CN_ORACLE_LEVELS * ( points + set->count + 16 ) : 0;
    int jointRows = cnJointRowBound( world );
    cnContactRows rows;
    int bodyRows = bodies->count;
    double* delta = cnArenaAlloc( arena, 6 * (size_t)( bodyRows > 0 ? bodyRows : 1 ) * sizeof( double ), 16 );
    if ( delta == NULL || cnAllocRows( arena, &rows, bodyRows, 3 * points + extra + jointRows,
                                       points + extra + jointRows ) == false )
    {
        return cn_statusOutOfMemory;
    }
    rows.problem.timeStep = timeStep;
    rows.problem.dynamics = world->def.dynamics;
    rows.problem.tasks = &world->tasks;
    cnPrepareBodies( world, &rows );
    // joints under load turn their bodies more slowly than the bare inertia says (joint_solver.c)
    if ( overdamped == false && world->jointCount > 0 )
    {
        cnAddJointGeometricInertia( world, rows.solverIndex, rows.wAngular, timeStep );
    }
    bool outOfMemory = false;
    if ( cnPrepareContacts( world, &rows, timeStep, scratch, friction, warmStart, false,
                            hard ? CN_TOUCH_TOLERANCE : 0.0, arena, &outOfMemory ) )
    {
        report->warnings |= cn_warnFrictionDropped;
    }
    if ( outOfMemory )
    {
        return cn_statusOutOfMemory;
    }
    cnSolverProblem* problem = &rows.problem;
    // the joints' rows after the contacts': an inertial world corrects their position error in the
    // soft pass (joint_solver.c), an overdamped one in b
    cnJointSoft jointSoft = { 0 };
    int jointFirst = problem->rowCount;
    if ( world->jointCount > 0 )
    {
        size_t capacity = (size_t)problem->rowCapacity;
        jointSoft.softBias = cnArenaAlloc( arena, capacity * sizeof( double ), 16 );
        jointSoft.softSoftness = cnArenaAlloc( arena, capacity * sizeof( double ), 16 );
        jointSoft.springSoftness = cnArenaAlloc( arena, capacity * sizeof( double ), 16 );
        if ( jointSoft.softBias == NULL || jointSoft.softSoftness == NULL ||
             jointSoft.springSoftness == NULL )
        {
            return cn_statusOutOfMemory;
        }
        memset( jointSoft.springSoftness, 0, capacity * sizeof( double ) );
        cnAppendJointRows( world, problem, rows.solverIndex, rows.lambda, timeStep,
                           overdamped ? cn_jointPassPositional : cn_jointPassSoft, warmStart,
                           overdamped ? NULL : &jointSoft, NULL );
        for ( int i = jointFirst; i < problem->rowCount; ++i )
        {
            rows.contact[i] = -1;
            rows.point[i] = 0;
            rows.slot[i] = CN_JOINT_SLOT;
            rows.direction[i] = cn_vec3Zero;
            rows.push[i] = 0.0;
            rows.velocity[i] = (double)NAN; // not a contact: the physics test leaves it out
        }
    }
    // rows that are soft in every pass (springs), NULL when none
    double* springSoftness = jointSoft.springs ? jointSoft.springSoftness : NULL;
    report->solverRows = problem->rowCount;
    report->solverFrictionless = friction == false && problem->rowCount > 0;
    // nothing to solve, unless the oracle may find pairs that the motion brings into overlap
    if ( problem->rowCount == 0 && ( oracle == false || rows.bodyCount == 0 ) )
    {
        return cn_statusOk;
    }

    // the soft pass's right-hand side and softness: penetrating points push out as a stiff damped
    // spring (bias rate and constraint-force mixing from the world's contactHertz)
    size_t count = (size_t)problem->rowCount;
    double* hardB = problem->b;
    double* softB = NULL;
    double* softness = NULL;
    bool soft = false;
    if ( overdamped == false && hard == false )
    {
        // room for the rows an oracle appends (their softness is 0: they are hard)
        size_t capacity = (size_t)problem->rowCapacity;
        softB = cnArenaAlloc( arena, capacity * sizeof( double ), 16 );
        softness = cnArenaAlloc( arena, capacity * sizeof( double ), 16 );
        if ( softB == NULL || softness == NULL )
        {
            return cn_statusOutOfMemory;
        }
        memset( softness, 0, capacity * sizeof( double ) );
        double omega = 2.0 * CN_PI * world->def.contactHertz;
        double a1 = 2.0 * CN_CONTACT_DAMPING + timeStep * omega;
        double a2 = timeStep * omega * a1;
        double biasRate = omega / a1;
        for ( size_t i = 0; i < count; ++i )
        {
            softB[i] = hardB[i];
            if ( rows.slot[i] == CN_JOINT_SLOT )
            {
                softB[i] += jointSoft.softBias[i];
                softness[i] = jointSoft.softSoftness[i];
                soft = soft || jointSoft.softSoftness[i] > 0.0 || jointSoft.softBias[i] != 0.0;
                continue;
            }
            if ( rows.push[i] < 0.0 )
            {
                softB[i] += fmax( biasRate * rows.push[i], -CN_MAX_PUSH_SPEED );
                // softness = A_ii / a2: Box2D's mass scale a2 / (1 + a2) and impulse scale 1 / (1 + a2)
                softness[i] = cnProblemRowDiagonal( &rows.problem, (int)i ) / a2;
                soft = true;
            }
        }
    }

    // the layer's data for these rows, prepared once for every pass (J and W do not change between
    // them); an invalid problem leaves it NULL and each pass reports why
    cnPrepared* prepared = cnLayerPrepare( problem, arena, NULL );

    cnSolverBudget budget = cnBudgetFromParams( solver, world->solverParams );
    bool direct = ( solver->caps & cn_solverDirect ) != 0;
    bool singlePass = ( solver->caps & cn_solverSinglePass ) != 0;
    double* start = NULL; // what the final pass started from, for the problem callback
    if ( world->problemFcn != NULL )
    {
        start = cnArenaAlloc( arena, (size_t)problem->rowCapacity * sizeof( double ), 16 );
        if ( start == NULL )
        {
            return cn_statusOutOfMemory;
        }
        memset( start, 0, (size_t)problem->rowCapacity * sizeof( double ) ); // rows an oracle adds start at 0
    }

    // the oracle, for the solvers that call it, on the final pass only
    cnOracleContext oracleContext;
    cnSolverOracle oracleHook = { 0 };
    if ( oracle && cnMakeOracle( world, &rows, timeStep, &oracleContext, &oracleHook ) != cn_statusOk )
    {
        return cn_statusOutOfMemory;
    }

    // solve: the main pass (soft when something pushes), then relax from its impulses
    cnSolverStats stats;
    double* softDelta = NULL;
    bool usable;
    if ( soft && singlePass == false )
    {
        softDelta = cnArenaAlloc(
            arena, 6 * (size_t)( rows.bodyCount > 0 ? rows.bodyCount : 1 ) * sizeof( double ), 16 );
        double* softLambda = cnArenaAlloc( arena, count * sizeof( double ), 16 );
        if ( softDelta == NULL || softLambda == NULL )
        {
            return cn_statusOutOfMemory;
        }
        cnCopyDoubles( softLambda, rows.lambda, problem->rowCount );
        bool softUsable = cnSolvePass( world, &rows, prepared, false, true, softB, softness, &budget, 0,
                                       softLambda, softDelta, &stats );
        report->solverIterations += stats.iterations;
        cnSolverBudget relax = budget;
        // the joints' rows are rigid, with their position error as a bias in the soft pass only: with
        // the warm start they relax from it, not from the soft impulses, so that neither the
        // velocities they leave nor the impulses kept for the next warm start carry the bias, however
        // far a sweep solver is from converged (from the soft impulses, the few relax sweeps left the
        // bias of a long chain's slow modes in both, and the next substep's warm start applied it
        // again: a hanging chain of 10 links blew up under pgs). That relax is then the joints'
        // velocity solve, so it has the full budget. Without the warm start they relax from the soft
        // impulses, as the contacts (from zero, the velocity solve of a long chain falls short).
        int relaxFirst = warmStart ? jointFirst : problem->rowCount;
        bool joints = relaxFirst < problem->rowCount;
        if ( softUsable )
        {
            cnCopyDoubles( rows.lambda, softLambda, relaxFirst );
            if ( direct == false && joints == false )
            {
                relax.maxIterations = world->def.relaxIterations < budget.maxIterations
                                          ? world->def.relaxIterations
                                          : budget.maxIterations;
            }
        }
        else
        {
            // relax from the warm start with the full budget, and no push: a fallback, said
            softDelta = NULL;
            report->warnings |=
                stats.status == cn_solveDiverged ? cn_warnSolverDiverged : cn_warnSolverFailed;
            cnLogWorld( world, cn_logWarning, cn_statusNotConverged,
                        "step %lld: solver '%s' ended '%s'%s%s on the soft pass; the hard problem was solved "
                        "from the warm start instead (no push-out this substep)",
                        (long long)world->stepIndex + 1, solver->name, cnSolveStatusName( stats.status ),
                        stats.reason != NULL ? ": " : "", stats.reason != NULL ? stats.reason : "" );
        }
        if ( start != NULL )
        {
            cnCopyDoubles( start, rows.lambda, problem->rowCount );
        }
        problem->oracle = oracleHook;
        usable = cnSolvePass( world, &rows, prepared, true, true, hardB, springSoftness, &relax, recursions,
                              rows.lambda, delta, &stats );
        problem->oracle = ( cnSolverOracle ){ 0 };
        if ( softUsable )
        {
            report->relaxIterations += stats.iterations;
        }
        else
        {
            report->solverIterations += stats.iterations;
        }
    }
    else
    {
        if ( start != NULL )
        {
            cnCopyDoubles( start, rows.lambda, problem->rowCount );
        }
        problem->oracle = oracleHook;
        usable =
            cnSolvePass( world, &rows, prepared, true, true, soft ? softB : hardB,
                         soft ? softness : springSoftness, &budget, recursions, rows.lambda, delta, &stats );
        problem->oracle = ( cnSolverOracle ){ 0 };
        report->solverIterations += stats.iterations;
    }

    cnReportSolve( report, &stats );
    cnReportRecursion( world, &stats );
    if ( world->problemFcn != NULL )
    {
        world->problemFcn( problem, start, rows.lambda, &stats, world->problemContext );
    }
    if ( usable == false )
    {
        // NaN, divergence or no answer: the bodies of this problem keep their velocities
        report->warnings |= stats.status == cn_solveDiverged ? cn_warnSolverDiverged : cn_warnSolverFailed;
        cnLogWorld( world, cn_logWarning, cn_statusNotConverged,
                    "step %lld: solver '%s' ended '%s'%s%s; its %d bodies kept their velocities this step",
                    (long long)world->stepIndex + 1, solver->name, cnSolveStatusName( stats.status ),
                    stats.reason != NULL ? ": " : "", stats.reason != NULL ? stats.reason : "",
                    rows.bodyCount );
        cnKeepPreviousVelocities( world, &rows, scratch );
        return cn_statusOk;
    }
    // the layer's physics test (cnPhysicsFails): what it did, and what the applied answer still does
    // replaced by the fallback: the step report says so (a flag the summary counts); a log line only
    // when what is applied still fails
    if ( stats.outcome == cn_outcomeReplaced )
    {
        report->warnings |= cn_warnSolverReplaced;
    }
    if ( cnPhysicsFails( &stats.physics ) )
    {
        report->warnings |= cn_warnSolverInaccurate;
        cnLogWorld(
            world, cn_logWarning, cn_statusNotConverged,
            "step %lld: after solver '%s' (%s%s) the contacts add %.3g J where their approach carried "
            "%.3g J, and a contact closes %.3g m/s faster than it approached (the fastest approach: "
            "%.3g m/s)",
            (long long)world->stepIndex + 1, solver->name, cnSolveStatusName( stats.status ),
            stats.outcome == cn_outcomeReplaced ? ", replaced by the fallback sweeps" : "",
            stats.physics.energyAdded, stats.physics.approachEnergy, stats.physics.closing,
            stats.physics.approach );
    }
    cnRaiseHitEvents( world, &rows, rows.lambda );
    cnStoreImpulses( world, &rows, rows.lambda );
    cnStoreJointImpulses( world, rows.lambda, timeStep );
    cnApplyVelocities( world, &rows, delta, singlePass ? NULL : softDelta, scratch );
    return cn_statusOk;
}

// The position pass of an inertial world with the recursion (a split impulse), on the step's last
// substep: with the solved velocities v, the pseudo-velocity u that leaves every pair touching or
// apart at the poses x + dt (v + u): a frictionless normal row per manifold point,
// b = J v + separation / dt, from zero impulses, solved by the world's solver with the recursion
// (the oracle's trial poses are the ones the step ends at). u moves the bodies on this substep only,
// so the push-out adds no kinetic energy. When the pass gives nothing usable the bodies move with
// their velocities alone (no push-out this step), and the step says so.
static cnStatus cnCorrectPositions( cnWorld* world, double timeStep, cnStepScratch* scratch )
{
    const cnContactSet* set = &world->contacts;
    cnArena* arena = &world->arena;
    const cnSolverVTable* solver = world->solver;
    int points = 0;
    for ( int i = 0; i < set->count; ++i )
    {
        points += set->contacts[i].manifold.pointCount;
    }
    int capacity = points + CN_ORACLE_LEVELS * ( points + set->count + 16 ) + cnJointRowBound( world );
    int bodyRows = world->bodies.count;
    cnContactRows rows;
    double* delta = cnArenaAlloc( arena, 6 * (size_t)( bodyRows > 0 ? bodyRows : 1 ) * sizeof( double ), 16 );
    if ( delta == NULL || cnAllocRows( arena, &rows, bodyRows, capacity, capacity ) == false )
    {
        return cn_statusOutOfMemory;
    }
    rows.problem.timeStep = timeStep;
    rows.problem.dynamics = world->def.dynamics;
    rows.problem.tasks = &world->tasks;
    cnPrepareBodies( world, &rows );
    if ( rows.bodyCount == 0 )
    {
        return cn_statusOk;
    }
    bool outOfMemory = false;
    cnPrepareContacts( world, &rows, timeStep, scratch, false, false, true, 0.0, arena, &outOfMemory );
    if ( outOfMemory )
    {
        return cn_statusOutOfMemory;
    }
    int jointFirst = rows.problem.rowCount;
    cnAppendJointRows( world, &rows.problem, rows.solverIndex, rows.lambda, timeStep, cn_jointPassPosition,
                       false, NULL, NULL );
    for ( int i = jointFirst; i < rows.problem.rowCount; ++i )
    {
        rows.contact[i] = -1;
        rows.slot[i] = CN_JOINT_SLOT;
        rows.push[i] = 0.0;
    }
    cnOracleContext oracleContext;
    cnSolverOracle oracleHook;
    if ( cnMakeOracle( world, &rows, timeStep, &oracleContext, &oracleHook ) != cn_statusOk )
    {
        return cn_statusOutOfMemory;
    }
    cnPrepared* prepared = cnLayerPrepare( &rows.problem, arena, NULL );
    cnSolverBudget budget = cnBudgetFromParams( solver, world->solverParams );
    cnSolverStats stats;
    rows.problem.oracle = oracleHook;
    bool usable = cnSolvePass( world, &rows, prepared, false, false, rows.problem.b, NULL, &budget,
                               world->def.contactRecursions, rows.lambda, delta, &stats );
    rows.problem.oracle = ( cnSolverOracle ){ 0 };
    world->report.positionIterations += stats.iterations;
    cnReportRecursion( world, &stats );
    if ( usable == false )
    {
        world->report.warnings |=
            stats.status == cn_solveDiverged ? cn_warnSolverDiverged : cn_warnSolverFailed;
        cnLogWorld( world, cn_logWarning, cn_statusNotConverged,
                    "step %lld: solver '%s' ended '%s'%s%s on the position pass; no push-out this step",
                    (long long)world->stepIndex + 1, solver->name, cnSolveStatusName( stats.status ),
                    stats.reason != NULL ? ": " : "", stats.reason != NULL ? stats.reason : "" );
        return cn_statusOk;
    }
    for ( int k = 0; k < rows.bodyCount; ++k )
    {
        int row = rows.rowOf[k];
        const double* u = delta + 6 * k;
        scratch->pseudoLinear[row] = cnMakeVec3( u[0], u[1], u[2] );
        scratch->pseudoAngular[row] = cnMakeVec3( u[3], u[4], u[5] );
    }
    return cn_statusOk;
}

cnStatus cnSolveContacts( cnWorld* world, double timeStep, cnStepScratch* scratch )
{
    world->report.recursionOverlap = (double)NAN;
    // the recursion: a solver that calls the oracle (relcp), or the world's around its solver
    bool recursion = ( world->solver->caps & cn_solverUsesOracle ) != 0 || world->def.contactRecursions > 0;
    // a solver accurate enough for hard contact takes the same split impulse, with or without levels
    bool split = recursion || ( world->solver->caps & cn_solverHardContact ) != 0;
    if ( world->def.dynamics == cn_dynamicsOverdamped || split == false )
    {
        return cnSolveVelocities( world, timeStep, scratch, recursion, false );
    }
    // inertial, with the recursion or a hard-contact solver: hard velocities every substep, and on
    // the step's last substep the positions, with the recursion when it is on (a split impulse)
    cnStatus status = cnSolveVelocities( world, timeStep, scratch, false, true );
    if ( status != cn_statusOk || scratch->finalSubstep == false )
    {
        return status;
    }
    return cnCorrectPositions( world, timeStep, scratch );
}
