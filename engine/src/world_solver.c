// SPDX-License-Identifier: MIT
// The world's solver: which one, its parameter values, swapping it between steps, the residual
// history and the problem callback. The solve itself is contact_solver.c's.

#include "contact_solver.h"
#include "core.h"
#include "joint.h"
#include "world.h"

#include "cairn/solver.h"

#include <string.h>

// The parameters a swap carries over: the ones every solver understands the same way.
// "iterations" carries over only between solvers whose iterations are the same unit.
static bool cnCarriesOver( const cnSolverVTable* from, const cnSolverVTable* to, const char* name )
{
    if ( strcmp( name, "iterations" ) == 0 )
    {
        return from->iterationUnit != NULL && to->iterationUnit != NULL &&
               strcmp( from->iterationUnit, to->iterationUnit ) == 0;
    }
    return strcmp( name, "tolerance" ) == 0 || strcmp( name, "deadline_ms" ) == 0 ||
           strcmp( name, "warm_start" ) == 0;
}

// What a world's problems need that the solver lacks, as a refusal (NULL: it can take them).
static const char* cnSolverRefusal( const cnSolverVTable* solver )
{
    if ( ( solver->caps & cn_solverMatrixFree ) == 0 )
    {
        return "it takes explicit matrices only, and a world's problems are matrix-free";
    }
    return NULL;
}

void cnFormatConeRefusal( const cnSolverVTable* solver, char* message, int size )
{
    char names[256] = "";
    for ( int i = 0; i < cnGetSolverCount(); ++i )
    {
        const cnSolverVTable* other = cnGetSolverAt( i );
        if ( ( other->caps & cn_solverCone ) != 0 && ( other->caps & cn_solverMatrixFree ) != 0 )
        {
            size_t used = strlen( names );
            cnFormat( names + used, (int)( sizeof( names ) - used ), "%s%s", used > 0 ? ", " : "",
                      other->name );
        }
    }
    if ( names[0] != 0 )
    {
        cnFormat( message, size,
                  "friction model \"cone\" needs a solver with the exact friction cone, and solver '%s' "
                  "has none (solvers with it: %s)",
                  solver->name, names );
    }
    else
    {
        cnFormat( message, size,
                  "friction model \"cone\" needs a solver with the exact friction cone, and solver '%s' "
                  "has none (no registered solver has it)",
                  solver->name );
    }
}

// a pyramid world whose solver takes no pyramid friction rows runs frictionless: say so
static void cnWarnFrictionless( const cnWorld* world )
{
    if ( world->def.frictionModel == cn_frictionPyramid && ( world->solver->caps & cn_solverFriction ) == 0 )
    {
        cnLogWorld( world, cn_logWarning, cn_statusUnsupported,
                    "solver '%s' takes no friction rows%s: contacts are solved frictionless while it runs "
                    "(each step with friction says friction_dropped)",
                    world->solver->name,
                    ( world->solver->caps & cn_solverCone ) != 0 ? " of the pyramid (only the exact cone)"
                                                                 : "" );
    }
}

// make `solver` the world's: new state first, so a failure leaves the old one running
static cnStatus cnSwapSolver( cnWorld* world, const cnSolverVTable* solver, char* message, int size )
{
    if ( solver->apiVersion != CN_SOLVER_API_VERSION || solver->solve == NULL || solver->paramCount < 0 ||
         solver->paramCount > CN_MAX_SOLVER_PARAMS )
    {
        cnFormat( message, size, "solver '%s' does not implement solver API version %d", solver->name,
                  CN_SOLVER_API_VERSION );
        return cn_statusInvalidArgument;
    }
    const char* refusal = cnSolverRefusal( solver );
    if ( refusal != NULL )
    {
        cnFormat( message, size, "solver '%s' cannot run in a world: %s", solver->name, refusal );
        return cn_statusUnsupported;
    }
    if ( world->def.frictionModel == cn_frictionCone && ( solver->caps & cn_solverCone ) == 0 )
    {
        cnFormatConeRefusal( solver, message, size );
        return cn_statusUnsupported;
    }

    double params[CN_MAX_SOLVER_PARAMS];
    for ( int i = 0; i < solver->paramCount; ++i )
    {
        params[i] = solver->params[i].defaultValue;
        const cnSolverVTable* old = world->solver;
        int from = old != NULL ? cnFindSolverParam( old, solver->params[i].name ) : -1;
        if ( from >= 0 && cnCarriesOver( old, solver, solver->params[i].name ) &&
             cnCheckSolverParam( solver->params + i, world->solverParams[from], NULL, 0 ) == cn_statusOk )
        {
            params[i] = world->solverParams[from];
        }
    }

    void* state = NULL;
    if ( solver->create != NULL )
    {
        cnStatus status = solver->create( params, &world->allocator, &state );
        if ( status != cn_statusOk )
        {
            cnFormat( message, size, "solver '%s' could not start: %s", solver->name,
                      cnStatusString( status ) );
            return status;
        }
    }
    if ( world->solver != NULL && world->solver->destroy != NULL )
    {
        world->solver->destroy( world->solverState, &world->allocator );
    }
    world->solver = solver;
    world->solverState = state;
    memcpy( world->solverParams, params, (size_t)solver->paramCount * sizeof( double ) );
    memset( world->def.solver.name, 0, sizeof( world->def.solver.name ) );
    cnFormat( world->def.solver.name, (int)sizeof( world->def.solver.name ), "%s", solver->name );
    cnWarnFrictionless( world );
    cnWarnJointless( world );
    return cn_statusOk;
}

static cnStatus cnSetParam( cnWorld* world, const char* name, double value, char* message, int size )
{
    int index = cnFindSolverParam( world->solver, name );
    if ( index < 0 )
    {
        cnFormat( message, size, "solver '%s' has no parameter '%s'", world->solver->name, name );
        return cn_statusInvalidArgument;
    }
    char why[192];
    cnStatus status = cnCheckSolverParam( world->solver->params + index, value, why, sizeof( why ) );
    if ( status != cn_statusOk )
    {
        cnFormat( message, size, "%s.%s", world->solver->name, why );
        return status;
    }
    world->solverParams[index] = value;
    return cn_statusOk;
}

cnStatus cnInitWorldSolver( cnWorld* world, const cnSolverSettings* settings, char* message, int size )
{
    const cnSolverVTable* solver = cnFindSolver( settings->name );
    if ( solver == NULL )
    {
        char names[256] = "";
        for ( int i = 0; i < cnGetSolverCount(); ++i )
        {
            size_t used = strlen( names );
            cnFormat( names + used, (int)( sizeof( names ) - used ), "%s%s", i > 0 ? ", " : "",
                      cnGetSolverAt( i )->name );
        }
        cnFormat( message, size, "unknown solver '%s' (registered: %s)", settings->name, names );
        return cn_statusInvalidArgument;
    }
    cnStatus status = cnSwapSolver( world, solver, message, size );
    // the settings' iteration limit is a budget of sweeps and the like; a pivoting solver's limit
    // is its own (set it through its parameter)
    bool direct = ( solver->caps & cn_solverDirect ) != 0;
    if ( status == cn_statusOk && direct == false && cnFindSolverParam( solver, "iterations" ) >= 0 )
    {
        status = cnSetParam( world, "iterations", (double)settings->iterations, message, size );
    }
    if ( status == cn_statusOk && cnFindSolverParam( solver, "tolerance" ) >= 0 )
    {
        status = cnSetParam( world, "tolerance", settings->tolerance, message, size );
    }
    return status;
}

void cnDestroyWorldSolver( cnWorld* world )
{
    if ( world->solver != NULL && world->solver->destroy != NULL )
    {
        world->solver->destroy( world->solverState, &world->allocator );
    }
    world->solver = NULL;
    world->solverState = NULL;
    cnFree( &world->allocator, world->residualHistory,
            (size_t)world->residualHistoryCapacity * sizeof( double ) );
    world->residualHistory = NULL;
    world->residualHistoryCapacity = 0;
    world->residualHistoryCount = 0;
}

cnStatus cnWorld_SetResidualHistory( cnWorldId worldId, int capacity )
{
    cnWorld* world = cnGetWorld( worldId );
    if ( world == NULL )
    {
        return cn_statusInvalidId;
    }
    if ( world->locked )
    {
        cnLogWorld( world, cn_logError, cn_statusWorldLocked,
                    "cnWorld_SetResidualHistory: called from inside cnWorld_Step" );
        return cn_statusWorldLocked;
    }
    if ( capacity < 0 || capacity > CN_MAX_RESIDUAL_HISTORY )
    {
        cnLogWorld( world, cn_logError, cn_statusInvalidArgument,
                    "cnWorld_SetResidualHistory: capacity %d is outside [0, %d]", capacity,
                    CN_MAX_RESIDUAL_HISTORY );
        return cn_statusInvalidArgument;
    }
    double* history = NULL;
    if ( capacity > 0 )
    {
        history = cnAlloc( &world->allocator, (size_t)capacity * sizeof( double ), 16 );
        if ( history == NULL )
        {
            return cn_statusOutOfMemory;
        }
    }
    cnFree( &world->allocator, world->residualHistory,
            (size_t)world->residualHistoryCapacity * sizeof( double ) );
    world->residualHistory = history;
    world->residualHistoryCapacity = capacity;
    world->residualHistoryCount = 0;
    return cn_statusOk;
}

int cnWorld_GetResidualHistory( cnWorldId worldId, double* values, int capacity )
{
    cnWorld* world = cnGetWorld( worldId );
    if ( world == NULL || ( values == NULL && capacity > 0 ) )
    {
        return 0;
    }
    int count = world->residualHistoryCount < capacity ? world->residualHistoryCount : capacity;
    if ( count > 0 )
    {
        memcpy( values, world->residualHistory, (size_t)count * sizeof( double ) );
    }
    return world->residualHistoryCount;
}

cnStatus cnWorld_SetProblemFcn( cnWorldId worldId, cnProblemFcn* fcn, void* context )
{
    cnWorld* world = cnGetWorld( worldId );
    if ( world == NULL )
    {
        return cn_statusInvalidId;
    }
    if ( world->stepping )
    {
        return cn_statusWorldLocked;
    }
    world->problemFcn = fcn;
    world->problemContext = context;
    return cn_statusOk;
}

cnStatus cnWorld_SetSolver( cnWorldId worldId, const char* name )
{
    cnWorld* world = cnGetWorld( worldId );
    if ( world == NULL )
    {
        return cn_statusInvalidId;
    }
    if ( world->stepping )
    {
        return cn_statusWorldLocked;
    }
    char message[256];
    const cnSolverVTable* solver = name != NULL ? cnFindSolver( name ) : NULL;
    cnStatus status = cn_statusInvalidArgument;
    if ( solver == NULL )
    {
        cnSolverSettings probe = world->def.solver;
        cnFormat( probe.name, (int)sizeof( probe.name ), "%s", name != NULL ? name : "" );
        cnInitWorldSolver( world, &probe, message, sizeof( message ) ); // only for its message
    }
    else
    {
        status = cnSwapSolver( world, solver, message, sizeof( message ) );
    }
    if ( status != cn_statusOk )
    {
        cnLogWorld( world, cn_logError, status, "cnWorld_SetSolver: %s", message );
    }
    return status;
}

const cnSolverVTable* cnWorld_GetSolver( cnWorldId worldId )
{
    cnWorld* world = cnGetWorld( worldId );
    return world != NULL ? world->solver : NULL;
}

cnStatus cnWorld_SetSolverParam( cnWorldId worldId, const char* name, double value )
{
    cnWorld* world = cnGetWorld( worldId );
    if ( world == NULL )
    {
        return cn_statusInvalidId;
    }
    if ( world->stepping )
    {
        return cn_statusWorldLocked;
    }
    char message[256];
    cnStatus status = name != NULL ? cnSetParam( world, name, value, message, sizeof( message ) )
                                   : cn_statusInvalidArgument;
    if ( status != cn_statusOk )
    {
        cnLogWorld( world, cn_logError, status, "cnWorld_SetSolverParam: %s",
                    name != NULL ? message : "no name" );
        return status;
    }
    if ( strcmp( name, "iterations" ) == 0 )
    {
        world->def.solver.iterations = (int)value;
    }
    else if ( strcmp( name, "tolerance" ) == 0 )
    {
        world->def.solver.tolerance = value;
    }
    return cn_statusOk;
}

cnStatus cnWorld_GetSolverParam( cnWorldId worldId, const char* name, double* value )
{
    cnWorld* world = cnGetWorld( worldId );
    if ( world == NULL )
    {
        return cn_statusInvalidId;
    }
    int index = name != NULL ? cnFindSolverParam( world->solver, name ) : -1;
    if ( index < 0 || value == NULL )
    {
        return cn_statusInvalidArgument;
    }
    *value = world->solverParams[index];
    return cn_statusOk;
}

cnStatus cnWorld_SetFrictionModel( cnWorldId worldId, cnFrictionModel model )
{
    cnWorld* world = cnGetWorld( worldId );
    if ( world == NULL )
    {
        return cn_statusInvalidId;
    }
    if ( (int)model < 0 || model >= cn_frictionModelCount )
    {
        cnLogWorld( world, cn_logError, cn_statusInvalidArgument,
                    "cnWorld_SetFrictionModel: unknown friction model %d", (int)model );
        return cn_statusInvalidArgument;
    }
    if ( world->stepping )
    {
        return cn_statusWorldLocked;
    }
    if ( model == cn_frictionCone && ( world->solver->caps & cn_solverCone ) == 0 )
    {
        char message[320];
        cnFormatConeRefusal( world->solver, message, sizeof( message ) );
        cnLogWorld( world, cn_logError, cn_statusUnsupported, "cnWorld_SetFrictionModel: %s", message );
        return cn_statusUnsupported;
    }
    bool changed = world->def.frictionModel != model;
    world->def.frictionModel = model;
    if ( changed )
    {
        cnWarnFrictionless( world );
    }
    return cn_statusOk;
}

cnFrictionModel cnWorld_GetFrictionModel( cnWorldId worldId )
{
    cnWorld* world = cnGetWorld( worldId );
    return world != NULL ? world->def.frictionModel : cn_frictionPyramid;
}
