// SPDX-License-Identifier: MIT
// The ReLCP recursion (Palmer, Aktulga, Gao; docs/relcp.md): solve, ask the problem's oracle which
// pairs still overlap at the trial poses of the answer, append a row for each, solve the grown
// problem from the answer padded with zeros, until no pair overlaps by more than the tolerance.
// The one driver behind the relcp solver (any registered solver inside) and the world's
// contactRecursions (the world's solver inside, run by the layer).
//
// Rows are never changed or taken away within a solve: each keeps the right-hand side it was made
// with (digest 3.5c). For a frictionless problem (normal rows only) every level is the convex QP
// min 1/2 x^T A x + b^T x over x >= 0 whose leading block is the level before's, so the objective at
// the answer cannot rise from level to level (the paper's appendix B): Debug builds assert it, to
// the inner solve's tolerance; every build asserts (CN_ASSERT) that the oracle only appends and that
// the accepted level overlaps by no more than the tolerance unless rows were refused.

#include "arena.h"
#include "core.h"
#include "solver_kit.h"

#include <math.h>
#include <string.h>

#ifndef NDEBUG
// Objective 1/2 lambda^T (A + S) lambda + b^T lambda = 1/2 lambda^T (w + b), w = (A + S) lambda + b.
static double cnQuadraticObjective( const cnSolverProblem* problem, const double* lambda, const double* w )
{
    double f = 0.0;
    for ( int i = 0; i < problem->rowCount; ++i )
    {
        f += 0.5 * lambda[i] * ( w[i] + problem->b[i] );
    }
    return f;
}

// a problem whose rows are all unilateral normals: the levels are QPs (the invariant holds)
static bool cnIsNormalOnly( const cnSolverProblem* problem )
{
    for ( int g = 0; g < problem->groupCount; ++g )
    {
        if ( problem->groups[g].kind != cn_groupNormal )
        {
            return false;
        }
    }
    return true;
}
#endif

// the run-time checks of the invariants, wherever CN_ASSERT is on (every build the project makes:
// cmake/CnCompileOptions.cmake keeps it on in optimised ones)
#if !defined( NDEBUG ) || defined( CN_ENABLE_ASSERT )
#    define CN_RECURSION_CHECKS 1
#else
#    define CN_RECURSION_CHECKS 0
#endif

#if CN_RECURSION_CHECKS
// FNV-1a over the rows [0, count): what must not change once a row is made
static uint64_t cnHashRows( const cnSolverProblem* problem, int count )
{
    uint64_t hash = 1469598103934665603ull;
    const unsigned char* parts[6] = {
        (const unsigned char*)problem->b,         (const unsigned char*)problem->jacobianA,
        (const unsigned char*)problem->jacobianB, (const unsigned char*)problem->bodyA,
        (const unsigned char*)problem->bodyB,     (const unsigned char*)problem->lower,
    };
    size_t sizes[6] = { sizeof( double ),  6 * sizeof( double ), 6 * sizeof( double ),
                        sizeof( int32_t ), sizeof( int32_t ),    sizeof( double ) };
    for ( int p = 0; p < 6; ++p )
    {
        if ( parts[p] == NULL )
        {
            continue;
        }
        size_t bytes = sizes[p] * (size_t)count;
        for ( size_t k = 0; k < bytes; ++k )
        {
            hash = ( hash ^ parts[p][k] ) * 1099511628211ull;
        }
    }
    return hash;
}
#endif

// One level: the inner solver from lambda (its history after what earlier levels recorded).
static void cnSolveLevel( const cnRecursionInner* inner, const cnSolverBudget* budget,
                          cnSolverProblem* problem, const cnPrepared* prepared, cnSolverSolution* solution,
                          cnArena* arena, int recorded, cnSolverStats* level )
{
    cnSolverSolution part = *solution;
    part.residualHistory = solution->residualHistory != NULL ? solution->residualHistory + recorded : NULL;
    part.residualHistoryCapacity = solution->residualHistoryCapacity - recorded;
    if ( part.residualHistoryCapacity <= 0 )
    {
        part.residualHistory = NULL;
        part.residualHistoryCapacity = 0;
    }
    *level = ( cnSolverStats ){
        .status = cn_solveUnsupported, .residual = (double)NAN, .ownMeasure = (double)NAN };
    inner->solver->solve( inner->state, inner->params, budget, problem, prepared, &part, arena, level );
}

// usable and finite: what a level must be to be kept
static bool cnLevelUsable( const cnRecursionInner* inner, const cnSolverStats* level,
                           const cnSolverProblem* problem, const double* lambda )
{
    if ( cnSolveStatusIsUsable( level->status, inner->solver->caps ) == false )
    {
        return false;
    }
    for ( int i = 0; i < problem->rowCount; ++i )
    {
        if ( isfinite( lambda[i] ) == false )
        {
            return false;
        }
    }
    return true;
}

void cnRecursionSolve( const cnRecursionInner* inner, const cnRecursionSettings* settings,
                       const cnSolverBudget* budget, cnSolverProblem* problem, cnPrepared* prepared,
                       cnSolverSolution* solution, cnArena* arena, cnSolverStats* stats )
{
    stats->overlap = (double)NAN;
    int recorded = 0;
    cnSolverStats level = { .status = cn_solveConverged, .residual = (double)NAN, .ownMeasure = (double)NAN };
    if ( problem->rowCount > 0 )
    {
        // (with no rows yet the oracle may still find overlaps at the free motion's poses)
        cnSolveLevel( inner, budget, problem, prepared, solution, arena, recorded, &level );
    }
    stats->status = level.status;
    stats->reason = level.reason;
    stats->iterations = level.iterations;
    stats->ownMeasure = level.ownMeasure;
    stats->factorizations += level.factorizations;
    stats->krylovIterations += level.krylovIterations;
    stats->fallbacks += level.fallbacks;
    recorded += level.historyCount;
    bool usable = cnLevelUsable( inner, &level, problem, solution->lambda );
    if ( usable == false || problem->oracle.fcn == NULL || settings->maxLevels <= 0 )
    {
        stats->historyCount = recorded;
        return;
    }

    cnScratch scratch = { .arena = arena };
    int capacity = problem->rowCapacity > 0 ? problem->rowCapacity : 1;
    double* velocity = cnScratchDoubles( &scratch, 6 * problem->bodyCount );
    double* keptVelocity = cnScratchDoubles( &scratch, 6 * problem->bodyCount );
    double* keptLambda = cnScratchDoubles( &scratch, capacity );
    double* w = cnScratchDoubles( &scratch, capacity );
    if ( velocity == NULL || keptVelocity == NULL || keptLambda == NULL || w == NULL )
    {
        stats->reason = "out of memory for the recursion";
        stats->historyCount = recorded;
        cnScratchRelease( &scratch );
        return;
    }
    cnComputeVelocity( problem, prepared, solution->lambda, velocity );
#ifndef NDEBUG
    // the objective's check costs a product per level: Debug builds only
    bool quadratic = cnIsNormalOnly( problem );
    double objective = (double)NAN;
    if ( quadratic )
    {
        cnComputeW( problem, prepared, solution->lambda, velocity, w );
        objective = cnQuadraticObjective( problem, solution->lambda, w );
    }
#endif

    for ( int call = 0; call <= settings->maxLevels; ++call )
    {
        int rowsBefore = problem->rowCount;
        int groupsBefore = problem->groupCount;
#if CN_RECURSION_CHECKS
        uint64_t before = cnHashRows( problem, rowsBefore );
#endif
        cnOracleResult added = { 0 };
        cnStatus called = problem->oracle.fcn( problem->oracle.context, problem, solution->lambda, velocity,
                                               settings->overlapTolerance, &added );
        stats->oracleCalls += 1;
        stats->rowsRefused += added.rowsRefused;
        stats->overlap = added.maxOverlap;
        if ( called != cn_statusOk || problem->rowCount < rowsBefore || problem->groupCount < groupsBefore )
        {
            // a failed call keeps what was solved; rows it may have left are taken away
            problem->rowCount = rowsBefore;
            problem->groupCount = groupsBefore;
            stats->fallbacks += 1;
            stats->overlap = (double)NAN;
            break;
        }
#if CN_RECURSION_CHECKS
        // the oracle only appends
        CN_ASSERT( cnHashRows( problem, rowsBefore ) == before );
#endif
        if ( problem->rowCount == rowsBefore )
        {
            // accepted: nothing overlaps beyond the tolerance, unless rows had no room
            CN_ASSERT( added.rowsRefused > 0 || added.maxOverlap <= settings->overlapTolerance );
            break;
        }
        if ( call == settings->maxLevels )
        {
            // out of levels: the rows just added are not solved; the answer is the last level's
            problem->rowCount = rowsBefore;
            problem->groupCount = groupsBefore;
            break;
        }
        stats->rowsAdded += problem->rowCount - rowsBefore;

        // the grown problem, from the answer padded with zeros
        cnPrepareRows( problem, prepared );
        memcpy( keptLambda, solution->lambda, (size_t)rowsBefore * sizeof( double ) );
        memcpy( keptVelocity, velocity, 6 * (size_t)problem->bodyCount * sizeof( double ) );
        for ( int i = rowsBefore; i < problem->rowCount; ++i )
        {
            solution->lambda[i] = 0.0;
        }
        cnSolveLevel( inner, budget, problem, prepared, solution, arena, recorded, &level );
        stats->iterations += level.iterations;
        stats->factorizations += level.factorizations;
        stats->krylovIterations += level.krylovIterations;
        stats->fallbacks += level.fallbacks;
        recorded += level.historyCount;
        if ( cnLevelUsable( inner, &level, problem, solution->lambda ) == false )
        {
            // the level's rows go; the last good level stays, and the fallback is counted
            problem->rowCount = rowsBefore;
            problem->groupCount = groupsBefore;
            cnPrepareRows( problem, prepared );
            cnRefreshPrepared( problem, prepared );
            memcpy( solution->lambda, keptLambda, (size_t)rowsBefore * sizeof( double ) );
            memcpy( velocity, keptVelocity, 6 * (size_t)problem->bodyCount * sizeof( double ) );
            stats->fallbacks += 1;
            stats->overlap = added.maxOverlap;
            break;
        }
        stats->levels += 1;
        stats->status = level.status;
        stats->reason = level.reason;
        stats->ownMeasure = level.ownMeasure;
        cnComputeVelocity( problem, prepared, solution->lambda, velocity );
#ifndef NDEBUG
        if ( quadratic )
        {
            // appendix B: the objective at the answer does not rise (to the inner tolerance)
            cnComputeW( problem, prepared, solution->lambda, velocity, w );
            double next = cnQuadraticObjective( problem, solution->lambda, w );
            double scale = cnMeritScale( problem, prepared, solution->lambda );
            double merit = cnModelMeritFromW( problem, prepared, cn_modelPyramid, solution->lambda, w );
            double slack = 10.0 * fmax( fmax( budget->tolerance, merit ), 1e-12 ) * scale * scale;
            CN_ASSERT( level.status != cn_solveConverged || next <= objective + slack ||
                       isfinite( slack ) == false );
            objective = next;
        }
#endif
    }
    stats->historyCount = recorded;
    cnScratchRelease( &scratch );
}
