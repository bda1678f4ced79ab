// SPDX-License-Identifier: MIT
// The solver layer: the registry of built-in solvers (the X-list in solver_list.h), parameters
// read and checked by name, and one solve as every caller runs it (cnLayerSolve): check, prepare,
// solve, grade.

#include "solver_layer.h"

#include "arena.h"
#include "bilateral.h"
#include "core.h"
#include "solver_kit.h"

#include "cairn/lcp_io.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CN_SOLVER( symbol ) extern const cnSolverVTable symbol;
#include "solver_list.h"
#undef CN_SOLVER

static const cnSolverVTable* const cn_solvers[] = {
#define CN_SOLVER( symbol ) &symbol,
#include "solver_list.h"
#undef CN_SOLVER
};

int cnGetSolverCount( void )
{
    return (int)( sizeof( cn_solvers ) / sizeof( cn_solvers[0] ) );
}

const cnSolverVTable* cnGetSolverAt( int index )
{
    return index >= 0 && index < cnGetSolverCount() ? cn_solvers[index] : NULL;
}

const cnSolverVTable* cnFindSolver( const char* name )
{
    if ( name == NULL )
    {
        return NULL;
    }
    for ( int i = 0; i < cnGetSolverCount(); ++i )
    {
        if ( strcmp( cn_solvers[i]->name, name ) == 0 )
        {
            return cn_solvers[i];
        }
    }
    return NULL;
}

const char* cnSolveStatusName( cnSolveStatus status )
{
    switch ( status )
    {
#define CN_SOLVE_STATUS_NAME( name, text, usable )                                                           \
    case name:                                                                                               \
        return text;
        CN_SOLVE_STATUS_LIST( CN_SOLVE_STATUS_NAME )
#undef CN_SOLVE_STATUS_NAME
        default:
            return "unknown";
    }
}

const char* cnSolveOutcomeName( cnSolveOutcome outcome )
{
    switch ( outcome )
    {
        case cn_outcomeApplied:
            return "applied";
        case cn_outcomeWarned:
            return "warned";
        case cn_outcomeReplaced:
            return "replaced";
        default:
            return "unknown";
    }
}

bool cnSolveStatusIsUsable( cnSolveStatus status, uint32_t caps )
{
    if ( status == cn_solveMaxIterations && ( caps & cn_solverDirect ) != 0 )
    {
        return false;
    }
    switch ( status )
    {
#define CN_SOLVE_STATUS_USABLE( name, text, usable )                                                         \
    case name:                                                                                               \
        return usable;
        CN_SOLVE_STATUS_LIST( CN_SOLVE_STATUS_USABLE )
#undef CN_SOLVE_STATUS_USABLE
        default:
            return false;
    }
}

// ---- parameters ---------------------------------------------------------------------------------

int cnFindSolverParam( const cnSolverVTable* solver, const char* name )
{
    if ( solver == NULL || name == NULL )
    {
        return -1;
    }
    for ( int i = 0; i < solver->paramCount; ++i )
    {
        if ( strcmp( solver->params[i].name, name ) == 0 )
        {
            return i;
        }
    }
    return -1;
}

double cnSolverParamValue( const cnSolverParam* table, int count, const double* params, int index )
{
    if ( table == NULL || index < 0 || index >= count )
    {
        return 0.0;
    }
    const cnSolverParam* param = table + index;
    if ( params == NULL || isnan( params[index] ) )
    {
        return param->defaultValue;
    }
    double value = params[index];
    return value < param->minValue ? param->minValue : ( value > param->maxValue ? param->maxValue : value );
}

cnStatus cnCheckSolverParam( const cnSolverParam* param, double value, char* message, int messageSize )
{
    if ( param == NULL )
    {
        cnFormat( message, messageSize, "no parameter" );
        return cn_statusInvalidArgument;
    }
    if ( isfinite( value ) == false )
    {
        cnFormat( message, messageSize, "%s: not a finite number", param->name );
        return cn_statusNonFinite;
    }
    if ( value < param->minValue || value > param->maxValue )
    {
        char low[32];
        char high[32];
        cnFormatNumber( low, sizeof( low ), param->minValue );
        cnFormatNumber( high, sizeof( high ), param->maxValue );
        cnFormat( message, messageSize, "%s: %g is outside [%s, %s]", param->name, value, low, high );
        return cn_statusInvalidArgument;
    }
    bool whole = value == floor( value );
    if ( ( param->type == cn_paramInteger || param->type == cn_paramChoice ) && whole == false )
    {
        cnFormat( message, messageSize, "%s: %g is not a whole number", param->name, value );
        return cn_statusInvalidArgument;
    }
    if ( param->type == cn_paramToggle && value != 0.0 && value != 1.0 )
    {
        cnFormat( message, messageSize, "%s: a toggle is 0 or 1, got %g", param->name, value );
        return cn_statusInvalidArgument;
    }
    if ( param->type == cn_paramChoice && ( value < 0.0 || value >= (double)param->choiceCount ) )
    {
        cnFormat( message, messageSize, "%s: %g is not one of its %d choices", param->name, value,
                  param->choiceCount );
        return cn_statusInvalidArgument;
    }
    return cn_statusOk;
}

cnStatus cnParseSolverParam( const cnSolverParam* param, const char* text, double* value, char* message,
                             int messageSize )
{
    if ( param == NULL || text == NULL || value == NULL )
    {
        cnFormat( message, messageSize, "no parameter or no text" );
        return cn_statusInvalidArgument;
    }
    if ( param->type == cn_paramChoice )
    {
        for ( int k = 0; k < param->choiceCount; ++k )
        {
            if ( strcmp( param->choices[k], text ) == 0 )
            {
                *value = (double)k;
                return cn_statusOk;
            }
        }
    }
    if ( param->type == cn_paramToggle && ( strcmp( text, "true" ) == 0 || strcmp( text, "false" ) == 0 ) )
    {
        *value = text[0] == 't' ? 1.0 : 0.0;
        return cn_statusOk;
    }
    char* end = NULL;
    errno = 0;
    double number = strtod( text, &end );
    if ( end == text || *end != '\0' || errno == ERANGE )
    {
        if ( param->type == cn_paramChoice )
        {
            char names[256] = "";
            for ( int k = 0; k < param->choiceCount; ++k )
            {
                size_t used = strlen( names );
                cnFormat( names + used, (int)( sizeof( names ) - used ), "%s%s", k > 0 ? ", " : "",
                          param->choices[k] );
            }
            cnFormat( message, messageSize, "%s: '%s' is not one of %s", param->name, text, names );
        }
        else
        {
            cnFormat( message, messageSize, "%s: expected a number, got '%s'", param->name, text );
        }
        return cn_statusInvalidArgument;
    }
    cnStatus status = cnCheckSolverParam( param, number, message, messageSize );
    if ( status == cn_statusOk )
    {
        *value = number;
    }
    return status;
}

const char* cnFormatSolverParam( const cnSolverParam* param, double value, char* buffer, int size )
{
    if ( buffer == NULL || size <= 0 )
    {
        return "";
    }
    if ( param != NULL && param->type == cn_paramChoice && value >= 0.0 &&
         value < (double)param->choiceCount && value == floor( value ) )
    {
        cnFormat( buffer, size, "%s", param->choices[(int)value] );
    }
    else if ( param != NULL && param->type == cn_paramToggle && ( value == 0.0 || value == 1.0 ) )
    {
        cnFormat( buffer, size, "%s", value != 0.0 ? "true" : "false" );
    }
    else if ( param != NULL && param->type == cn_paramInteger && fabs( value ) < 1e15 )
    {
        cnFormat( buffer, size, "%.0f", value );
    }
    else
    {
        cnFormat( buffer, size, "%.17g", value );
        // the shortest text that reads back to the same number
        for ( int digits = 6; digits < 17; ++digits )
        {
            char shorter[40];
            cnFormat( shorter, (int)sizeof( shorter ), "%.*g", digits, value );
            if ( strtod( shorter, NULL ) == value )
            {
                cnFormat( buffer, size, "%s", shorter );
                break;
            }
        }
    }
    return buffer;
}

cnSolverBudget cnBudgetFromParams( const cnSolverVTable* solver, const double* params )
{
    cnSolverBudget budget = { 1000, 0.0, 0.0 };
    int iterations = cnFindSolverParam( solver, "iterations" );
    int tolerance = cnFindSolverParam( solver, "tolerance" );
    int deadline = cnFindSolverParam( solver, "deadline_ms" );
    if ( iterations >= 0 )
    {
        budget.maxIterations =
            (int)cnSolverParamValue( solver->params, solver->paramCount, params, iterations );
    }
    if ( tolerance >= 0 )
    {
        budget.tolerance = cnSolverParamValue( solver->params, solver->paramCount, params, tolerance );
    }
    if ( deadline >= 0 )
    {
        budget.deadlineMs = cnSolverParamValue( solver->params, solver->paramCount, params, deadline );
    }
    budget.maxIterations = budget.maxIterations > 0 ? budget.maxIterations : 1;
    return budget;
}

// ---- one solve --------------------------------------------------------------------------------------

// what the problem holds that the solver cannot take; NULL when it can take everything
const char* cnSolverRefusal( const cnSolverVTable* solver, const cnSolverProblem* problem )
{
    uint32_t caps = solver->caps;
    if ( problem->matrix != NULL && ( caps & cn_solverExplicit ) == 0 )
    {
        return "this solver takes matrix-free problems only, not an explicit matrix";
    }
    if ( problem->matrix == NULL && problem->rowCount > 0 && ( caps & cn_solverMatrixFree ) == 0 )
    {
        return "this solver takes explicit matrices only";
    }
    for ( int g = 0; g < problem->groupCount; ++g )
    {
        const cnRowGroup* group = problem->groups + g;
        if ( group->kind == cn_groupContact && group->model == cn_frictionPyramid &&
             ( caps & cn_solverFriction ) == 0 )
        {
            // say the fix: the friction model this solver does take, where it takes one
            return ( caps & cn_solverCone ) != 0
                       ? "contacts with friction rows on the pyramid: this solver takes the exact friction "
                         "cone (cairn lcp --friction cone; a scene's world.friction_model \"cone\") or "
                         "frictionless normals"
                       : "contacts with friction rows: this solver takes frictionless normals only";
        }
        if ( group->kind == cn_groupContact && group->model == cn_frictionCone &&
             ( caps & cn_solverCone ) == 0 )
        {
            return ( caps & cn_solverFriction ) != 0
                       ? "contacts with the exact friction cone: this solver solves the pyramid only (cairn "
                         "lcp "
                         "--friction pyramid; a scene's world.friction_model \"pyramid\")"
                       : "contacts with the exact friction cone: this solver takes frictionless normals only";
        }
        if ( group->kind == cn_groupBounded && ( caps & cn_solverBounded ) == 0 )
        {
            return "bounded rows: this solver takes complementarity rows only";
        }
        if ( group->kind == cn_groupBilateral && ( caps & cn_solverBilateral ) == 0 )
        {
            return "bilateral (joint) rows: this solver does not take them";
        }
    }
    return NULL;
}

cnPrepared* cnLayerPrepare( const cnSolverProblem* problem, cnArena* arena, const char** why )
{
    if ( cnValidateProblem( problem, why ) == false )
    {
        return NULL;
    }
    cnScratch scratch = { .arena = arena };
    cnPrepared* prepared = cnScratchBytes( &scratch, sizeof( cnPrepared ) );
    if ( prepared == NULL || cnPrepareProblem( problem, &scratch, prepared ) == false )
    {
        if ( why != NULL )
        {
            *why = "out of memory";
        }
        return NULL;
    }
    return prepared;
}

// CN_PHYSICS_CLOSING: how fast a contact may close beyond its approach, as a share of the problem's
// fastest approach (plus CN_PHYSICS_SLACK); docs/solvers.md, "The physics test", has the measurements
#define CN_PHYSICS_CLOSING 0.25

bool cnPhysicsFails( const cnSolvePhysics* physics )
{
    return physics->energyAdded > physics->approachEnergy ||
           physics->closing > CN_PHYSICS_CLOSING * physics->approach + CN_PHYSICS_SLACK;
}

// the layer's grade of lambda: velocity (W J^T lambda), w, the merits, the physics (its energies
// NaN for an overdamped problem) and the residual of the solver's model
static void cnLayerGrade( const cnSolverVTable* solver, const cnSolverProblem* problem,
                          const cnPrepared* prepared, const double* lambda, double* velocity, double* w,
                          cnSolverStats* stats )
{
    cnComputeVelocity( problem, prepared, lambda, velocity );
    cnComputeW( problem, prepared, lambda, velocity, w );
    cnMeritsFromW( problem, prepared, lambda, w, &stats->merits );
    cnPhysicsFromW( problem, prepared, lambda, w, &stats->physics );
    // the merit of the model the solver solved: the cone for a cone solver; for one that takes
    // cone contacts beside pyramid ones (cn_solverCone with cn_modelPyramid: the sweep solvers) on
    // a problem that has cone contacts, each contact by its own model, as cnSweepSolve's stopping
    // test (merits.cone exactly when every contact is a cone)
    if ( solver->model == cn_modelCone )
    {
        stats->residual = stats->merits.cone;
    }
    else if ( prepared->hasCone && ( solver->caps & cn_solverCone ) != 0 )
    {
        stats->residual = cnProblemMeritFromW( problem, prepared, lambda, w );
    }
    else
    {
        stats->residual = stats->merits.naturalMap;
    }
}

// An answer that failed the physics test: `sweeps` of PGS from `start`, graded by the solver's
// model; the fallback's impulses replace the answer (lambda, velocity, merits, physics, residual)
// when they pass the test and the answer does not, or when both fail and the fallback's merit is
// lower. stats->outcome says which; the solver's status and counters stay its own.
static void cnLayerFallback( const cnSolverVTable* solver, const cnSolverBudget* budget, int sweeps,
                             cnSolverProblem* problem, cnPrepared* prepared, const double* start,
                             cnSolverSolution* solution, double* velocity, cnScratch* scratch,
                             cnSolverStats* stats )
{
    stats->outcome = cn_outcomeWarned;
    if ( sweeps <= 0 || ( solver == &cn_pgsSolver && sweeps <= budget->maxIterations ) )
    {
        return; // the fallback would be the solve itself
    }
    double* lambda = cnScratchDoubles( scratch, problem->rowCount );
    double* fallbackVelocity = cnScratchDoubles( scratch, 6 * problem->bodyCount );
    double* w = cnScratchDoubles( scratch, problem->rowCount );
    if ( lambda == NULL || fallbackVelocity == NULL || w == NULL )
    {
        return;
    }
    cnCopyDoubles( lambda, start, problem->rowCount );
    cnSolverBudget fallbackBudget = { sweeps, budget->tolerance, 0.0 };
    cnSolverSolution fallbackSolution = { .lambda = lambda, .deltaVelocity = fallbackVelocity };
    cnSolverStats fallback = { 0 };
    cn_pgsSolver.solve( NULL, NULL, &fallbackBudget, problem, prepared, &fallbackSolution, scratch->arena,
                        &fallback );
    if ( cnSolveStatusIsUsable( fallback.status, cn_pgsSolver.caps ) == false )
    {
        return;
    }
    cnLayerGrade( solver, problem, prepared, lambda, fallbackVelocity, w, &fallback );
    bool passes = cnPhysicsFails( &fallback.physics ) == false;
    if ( passes || fallback.residual < stats->residual )
    {
        cnCopyDoubles( solution->lambda, lambda, problem->rowCount );
        cnCopyDoubles( velocity, fallbackVelocity, 6 * problem->bodyCount );
        stats->merits = fallback.merits;
        stats->physics = fallback.physics;
        stats->residual = fallback.residual;
        stats->fallbacks += 1;
        stats->outcome = cn_outcomeReplaced;
    }
}

void cnLayerSolve( const cnSolverVTable* solver, void* state, const double* params,
                   const cnSolverBudget* budget, cnSolverProblem* problem, cnSolverSolution* solution,
                   cnArena* arena, const cnLayerOptions* options, cnSolverStats* stats )
{
    uint64_t start = cnGetTicks();
    cnSolverMerits nan = { (double)NAN, (double)NAN, (double)NAN, (double)NAN, (double)NAN };
    *stats = ( cnSolverStats ){ .status = cn_solveUnsupported,
                                .residual = (double)NAN,
                                .ownMeasure = (double)NAN,
                                .overlap = (double)NAN,
                                .merits = nan,
                                .physics = { (double)NAN, (double)NAN, (double)NAN, (double)NAN } };
    cnScratch scratch = { .arena = arena };
    cnPrepared local;
    cnPrepared* prepared = options != NULL ? options->prepared : NULL;
    bool grade = options == NULL || options->grade ||
                 ( solution->residualHistory != NULL && solution->residualHistoryCapacity > 0 );
    if ( prepared != NULL )
    {
        // rows the caller appended since, then what b and the softness fix
        cnPrepareRows( problem, prepared );
        cnRefreshPrepared( problem, prepared );
    }
    else
    {
        const char* why = NULL;
        if ( cnValidateProblem( problem, &why ) == false )
        {
            stats->reason = why;
            stats->milliseconds = cnGetMilliseconds( start );
            return;
        }
        if ( cnPrepareProblem( problem, &scratch, &local ) == false )
        {
            stats->reason = "out of memory";
            stats->milliseconds = cnGetMilliseconds( start );
            return;
        }
        prepared = &local;
    }
    if ( problem->rowCount > 0 && solution->lambda == NULL )
    {
        stats->reason = "no room for the impulses";
        stats->milliseconds = cnGetMilliseconds( start );
        return;
    }
    // a guess is only a guess: non-finite entries start from zero
    for ( int i = 0; i < problem->rowCount; ++i )
    {
        if ( isfinite( solution->lambda[i] ) == false )
        {
            solution->lambda[i] = 0.0;
        }
    }

    // what the solve starts from, for the fallback when the layer decides (no oracle: its rows
    // would not be the fallback's)
    double* startLambda = NULL;
    if ( options != NULL && options->decide && problem->oracle.fcn == NULL && problem->rowCount > 0 &&
         problem->matrix == NULL )
    {
        startLambda = cnScratchDoubles( &scratch, problem->rowCount );
        if ( startLambda != NULL )
        {
            cnCopyDoubles( startLambda, solution->lambda, problem->rowCount );
            grade = true;
        }
    }

    // the world's recursion around a solver that does not call the oracle itself; with either, a
    // problem with no rows yet is still solved (the oracle may find overlaps at the free motion)
    bool usesOracle = problem->oracle.fcn != NULL && ( solver->caps & cn_solverUsesOracle ) != 0;
    bool recursion =
        problem->oracle.fcn != NULL && usesOracle == false && options != NULL && options->recursionLevels > 0;
    bool asksOracle = usesOracle || recursion;
    const char* refusal = cnSolverRefusal( solver, problem );
    if ( refusal != NULL )
    {
        stats->reason = refusal;
        grade = true; // the guess is what comes back: grade it, and give its velocity
    }
    else if ( problem->rowCount == 0 && asksOracle == false )
    {
        stats->status = cn_solveConverged;
        grade = true;
    }
    else
    {
        if ( recursion )
        {
            // the world's recursion: the same driver as relcp's, with this solver inside
            cnRecursionInner inner = { solver, state, params };
            cnRecursionSettings settings = { options->recursionLevels, options->overlapTolerance };
            cnRecursionSolve( &inner, &settings, budget, problem, prepared, solution, arena, stats );
        }
        else
        {
            solver->solve( state, params, budget, problem, prepared, solution, arena, stats );
        }
        // the oracle may have appended rows: grade all of them
        cnPrepareRows( problem, prepared );
        if ( stats->reason == NULL && stats->status == cn_solveUnsupported && prepared->singularRows > 0 )
        {
            stats->reason = "a row's diagonal A_ii is zero, negative or not finite";
        }
        if ( stats->reason == NULL && stats->status == cn_solveNonFinite )
        {
            stats->reason = "NaN or infinity in the problem or an iterate";
        }
    }

    if ( grade )
    {
        double* velocity = cnScratchDoubles( &scratch, 6 * problem->bodyCount );
        double* w = cnScratchDoubles( &scratch, problem->rowCount );
        if ( velocity != NULL && w != NULL )
        {
            cnLayerGrade( solver, problem, prepared, solution->lambda, velocity, w, stats );
            // the merit met the tolerance (a zero tolerance is met by an exact answer)
            if ( stats->status == cn_solveMaxIterations && stats->residual <= budget->tolerance )
            {
                stats->status = cn_solveConverged;
            }
            if ( startLambda != NULL && cnSolveStatusIsUsable( stats->status, solver->caps ) &&
                 cnPhysicsFails( &stats->physics ) )
            {
                cnLayerFallback( solver, budget, options->fallbackSweeps, problem, prepared, startLambda,
                                 solution, velocity, &scratch, stats );
            }
            // the history's last entry is the returned impulses' merit, recomputed from scratch
            int recorded = stats->historyCount < solution->residualHistoryCapacity
                               ? stats->historyCount
                               : solution->residualHistoryCapacity;
            if ( solution->residualHistory != NULL && recorded > 0 && recorded == stats->historyCount )
            {
                solution->residualHistory[recorded - 1] = stats->residual;
            }
            // what the world applies is what was graded
            if ( solution->deltaVelocity != NULL && problem->matrix == NULL )
            {
                memcpy( solution->deltaVelocity, velocity,
                        6 * (size_t)problem->bodyCount * sizeof( double ) );
            }
        }
    }
    if ( stats->historyCount > solution->residualHistoryCapacity )
    {
        stats->historyCount = solution->residualHistoryCapacity;
    }
    cnScratchRelease( &scratch );
    stats->milliseconds = cnGetMilliseconds( start );
}

// one solve outside a world (cairn lcp, tests): parameters, state and a scratch arena of its own
cnStatus cnRunSolver( const cnSolverVTable* solver, const double* params, cnSolverProblem* problem,
                      cnSolverSolution* solution, const cnAllocator* allocator, cnSolverStats* stats )
{
    if ( solver == NULL || problem == NULL || solution == NULL || stats == NULL ||
         ( problem->rowCount > 0 && solution->lambda == NULL ) ||
         ( problem->matrix == NULL && problem->bodyCount > 0 && solution->deltaVelocity == NULL ) )
    {
        return cn_statusInvalidArgument;
    }
    *stats = ( cnSolverStats ){ .status = cn_solveUnsupported, .residual = (double)NAN };
    if ( solver->solve == NULL || solver->apiVersion != CN_SOLVER_API_VERSION || solver->paramCount < 0 ||
         solver->paramCount > CN_MAX_SOLVER_PARAMS || ( solver->paramCount > 0 && solver->params == NULL ) )
    {
        return cn_statusUnsupported;
    }

    // the parameters: the caller's, or every default
    double values[CN_MAX_SOLVER_PARAMS];
    for ( int i = 0; i < solver->paramCount; ++i )
    {
        values[i] = params != NULL ? params[i] : solver->params[i].defaultValue;
    }

    void* state = NULL;
    cnStatus status = solver->create != NULL ? solver->create( values, allocator, &state ) : cn_statusOk;
    if ( status == cn_statusOk )
    {
        cnArena arena;
        cnCreateArena( &arena, allocator, 0 );
        cnSolverBudget budget = cnBudgetFromParams( solver, values );
        cnLayerSolve( solver, state, values, &budget, problem, solution, &arena, NULL, stats );
        cnDestroyArena( &arena );
        if ( solver->destroy != NULL )
        {
            solver->destroy( state, allocator );
        }
    }
    return status;
}

int cnLayerSolveBilateral( const cnSolverProblem* problem, cnArena* arena, int rounds, double* lambda,
                           double* deltaVelocity )
{
    memset( lambda, 0, (size_t)problem->rowCount * sizeof( double ) );
    memset( deltaVelocity, 0, 6 * (size_t)problem->bodyCount * sizeof( double ) );
    cnScratch scratch = { .arena = arena };
    cnBilateral bilateral;
    if ( cnBilateralBuild( problem, &scratch, &bilateral ) == false )
    {
        cnScratchRelease( &scratch );
        return -1;
    }
    if ( bilateral.unitCount > 0 )
    {
        cnBilateralFactor( &bilateral, problem );
        int passes = bilateral.treeCount < bilateral.unitCount && rounds > 1 ? rounds : 1;
        for ( int pass = 0; pass < passes; ++pass )
        {
            cnBilateralStep( &bilateral, problem, lambda, deltaVelocity, NULL );
        }
    }
    int rows = bilateral.factored ? bilateral.rowCount : 0; // a failed factor solves nothing
    cnScratchRelease( &scratch );
    return rows;
}
