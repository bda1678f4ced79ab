// SPDX-License-Identifier: MIT
// The built-in solvers, from the X-list in solvers/solver_list.h.

#include "arena.h"
#include "core.h"

#include "cairn/lcp_io.h"
#include "cairn/solver.h"

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
        case cn_solveConverged:
            return "converged";
        case cn_solveMaxIterations:
            return "max_iterations";
        case cn_solveDiverged:
            return "diverged";
        case cn_solveNonFinite:
            return "nonfinite";
        case cn_solveUnsupported:
            return "unsupported";
        case cn_solveNoSolution:
            return "no_solution";
        default:
            return "unknown";
    }
}

// one solve outside a world (cairn lcp, tests): parameters, state and a scratch arena of its own
cnStatus cnRunSolver( const cnSolverVTable* solver, const double* params, const cnSolverProblem* problem,
                      cnSolverSolution* solution, const cnAllocator* allocator, cnSolverStats* stats )
{
    if ( solver == NULL || problem == NULL || solution == NULL || stats == NULL ||
         ( problem->rowCount > 0 && solution->lambda == NULL ) ||
         ( problem->matrix == NULL && problem->bodyCount > 0 && solution->deltaVelocity == NULL ) )
    {
        return cn_statusInvalidArgument;
    }
    *stats = ( cnSolverStats ){ .status = cn_solveUnsupported };
    if ( solver->solve == NULL || solver->apiVersion != CN_SOLVER_API_VERSION || solver->paramCount < 0 ||
         ( solver->paramCount > 0 && solver->params == NULL ) )
    {
        return cn_statusUnsupported;
    }

    // the parameters: the caller's, or every default
    int count = solver->paramCount;
    double* values = count > 0 ? cnAllocArray( allocator, (size_t)count, sizeof( double ) ) : NULL;
    if ( count > 0 && values == NULL )
    {
        return cn_statusOutOfMemory;
    }
    for ( int i = 0; i < count; ++i )
    {
        values[i] = params != NULL ? params[i] : solver->params[i].defaultValue;
    }

    void* state = NULL;
    cnStatus status = solver->create != NULL ? solver->create( values, allocator, &state ) : cn_statusOk;
    if ( status == cn_statusOk )
    {
        cnArena arena;
        cnCreateArena( &arena, allocator, 0 );
        solver->solve( state, values, problem, solution, &arena, stats );
        cnDestroyArena( &arena );
        if ( solver->destroy != NULL )
        {
            solver->destroy( state, allocator );
        }
    }
    if ( values != NULL )
    {
        cnFree( allocator, values, (size_t)count * sizeof( double ) );
    }
    return status;
}
