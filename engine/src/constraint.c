// SPDX-License-Identifier: MIT
// Contact constraints: assemble one solver problem from the contact cache, solve it with the
// world's solver, apply the result (see constraint.h for the model).

#include "constraint.h"

#include "core.h"
#include "lcp_common.h"
#include "narrow_phase.h"
#include "world.h"

#include "cairn/solver.h"

#include <string.h>

// restitution acts on impacts faster than this, m/s
#define CN_RESTITUTION_THRESHOLD 1.0
// below this tangential speed, m/s, the friction basis is a fixed function of the normal
#define CN_SLIDE_THRESHOLD 1.0e-3
// soft contact of the soft step: stiffness (Hz) and damping ratio of the push-out spring, and the
// fastest push-out, m/s
#define CN_CONTACT_DAMPING   10.0
#define CN_MAX_PUSH_SPEED    3.0
#define CN_MAX_SOLVER_PARAMS 16

// solver management --------------------------------------------------------------------------------

static int cnParamIndex( const cnSolverVTable* solver, const char* name )
{
    for ( int i = 0; i < solver->paramCount; ++i )
    {
        if ( strcmp( solver->params[i].name, name ) == 0 )
        {
            return i;
        }
    }
    return CN_NULL_INDEX;
}

// make `solver` the world's: new state first, so a failure leaves the old one running; the
// common knobs (iterations, tolerance, warm start) carry over, the rest take their defaults
static cnStatus cnSwapSolver( cnWorld* world, const cnSolverVTable* solver, char* message, int size )
{
    if ( solver->apiVersion != CN_SOLVER_API_VERSION || solver->solve == NULL || solver->paramCount < 0 ||
         solver->paramCount > CN_MAX_SOLVER_PARAMS )
    {
        cnFormat( message, size, "solver '%s' does not implement solver API version %d", solver->name,
                  CN_SOLVER_API_VERSION );
        return cn_statusInvalidArgument;
    }

    double params[CN_MAX_SOLVER_PARAMS];
    for ( int i = 0; i < solver->paramCount; ++i )
    {
        params[i] = solver->params[i].defaultValue;
        if ( world->solver != NULL )
        {
            int old = cnParamIndex( world->solver, solver->params[i].name );
            // a direct solver's "iterations" is a pivot limit, not the iterative budget
            bool budget =
                ( solver->caps & cn_solverDirect ) == 0 && ( world->solver->caps & cn_solverDirect ) == 0;
            bool common = ( budget && ( strcmp( solver->params[i].name, "iterations" ) == 0 ||
                                        strcmp( solver->params[i].name, "tolerance" ) == 0 ) ) ||
                          strcmp( solver->params[i].name, "warm_start" ) == 0;
            if ( old != CN_NULL_INDEX && common )
            {
                params[i] = world->solverParams[old];
            }
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
    memcpy( world->solverParams, params, sizeof( params ) );
    memset( world->def.solver.name, 0, sizeof( world->def.solver.name ) );
    cnFormat( world->def.solver.name, (int)sizeof( world->def.solver.name ), "%s", solver->name );
    return cn_statusOk;
}

static cnStatus cnSetParam( cnWorld* world, const char* name, double value, char* message, int size )
{
    int index = cnParamIndex( world->solver, name );
    if ( index == CN_NULL_INDEX )
    {
        cnFormat( message, size, "solver '%s' has no parameter '%s'", world->solver->name, name );
        return cn_statusInvalidArgument;
    }
    const cnSolverParam* param = world->solver->params + index;
    if ( isfinite( value ) == false )
    {
        cnFormat( message, size, "%s.%s: not a finite number", world->solver->name, name );
        return cn_statusNonFinite;
    }
    if ( value < param->minValue || value > param->maxValue )
    {
        cnFormat( message, size, "%s.%s: %g is outside [%g, %g]", world->solver->name, name, value,
                  param->minValue, param->maxValue );
        return cn_statusInvalidArgument;
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
    bool direct = ( solver->caps & cn_solverDirect ) != 0;
    if ( status == cn_statusOk && direct == false && cnParamIndex( solver, "iterations" ) != CN_NULL_INDEX )
    {
        status = cnSetParam( world, "iterations", (double)settings->iterations, message, size );
    }
    if ( status == cn_statusOk && direct == false && cnParamIndex( solver, "tolerance" ) != CN_NULL_INDEX )
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
    int index = name != NULL ? cnParamIndex( world->solver, name ) : CN_NULL_INDEX;
    if ( index == CN_NULL_INDEX || value == NULL )
    {
        return cn_statusInvalidArgument;
    }
    *value = world->solverParams[index];
    return cn_statusOk;
}

// assembly ---------------------------------------------------------------------------------------

// the arrays of one problem, all from the step arena
typedef struct cnRows
{
    int count;
    int capacity;
    uint8_t* kind;
    int32_t* normalOf;
    double* mu;
    double* lower;
    double* upper;
    double* b;
    int32_t* bodyA;
    int32_t* bodyB;
    double* jacobianA;
    double* jacobianB;
    double* lambda;
    // where each row's impulse goes back to: contact, point and slot (0 normal, 1-2 tangents)
    int32_t* contact;
    uint8_t* point;
    uint8_t* slot;
    cnVec3* direction; // (count) the row's world direction (normal or tangent)
    double* push;      // (count) separation a penetrating normal row pushes out in the soft pass, else 0
} cnRows;

static bool cnAllocRows( cnArena* arena, cnRows* rows, int capacity )
{
    memset( rows, 0, sizeof( *rows ) );
    size_t n = (size_t)( capacity > 0 ? capacity : 1 );
    rows->capacity = capacity;
    rows->kind = cnArenaAlloc( arena, n, 16 );
    rows->normalOf = cnArenaAlloc( arena, n * sizeof( int32_t ), 16 );
    rows->mu = cnArenaAlloc( arena, n * sizeof( double ), 16 );
    rows->lower = cnArenaAlloc( arena, n * sizeof( double ), 16 );
    rows->upper = cnArenaAlloc( arena, n * sizeof( double ), 16 );
    rows->b = cnArenaAlloc( arena, n * sizeof( double ), 16 );
    rows->bodyA = cnArenaAlloc( arena, n * sizeof( int32_t ), 16 );
    rows->bodyB = cnArenaAlloc( arena, n * sizeof( int32_t ), 16 );
    rows->jacobianA = cnArenaAlloc( arena, 6 * n * sizeof( double ), 16 );
    rows->jacobianB = cnArenaAlloc( arena, 6 * n * sizeof( double ), 16 );
    rows->lambda = cnArenaAlloc( arena, n * sizeof( double ), 16 );
    rows->contact = cnArenaAlloc( arena, n * sizeof( int32_t ), 16 );
    rows->point = cnArenaAlloc( arena, n, 16 );
    rows->slot = cnArenaAlloc( arena, n, 16 );
    rows->direction = cnArenaAlloc( arena, n * sizeof( cnVec3 ), 16 );
    rows->push = cnArenaAlloc( arena, n * sizeof( double ), 16 );
    return rows->push != NULL && rows->kind != NULL && rows->normalOf != NULL && rows->mu != NULL &&
           rows->lower != NULL && rows->upper != NULL && rows->b != NULL && rows->bodyA != NULL &&
           rows->bodyB != NULL && rows->jacobianA != NULL && rows->jacobianB != NULL &&
           rows->lambda != NULL && rows->contact != NULL && rows->point != NULL && rows->slot != NULL &&
           rows->direction != NULL;
}

// velocity of a body's material point at `r` from its centre
static cnVec3 cnPointVelocity( const cnVec3* linear, const cnVec3* angular, int row, cnVec3 r )
{
    return row >= 0 ? cnAdd( linear[row], cnCross( angular[row], r ) ) : cn_vec3Zero;
}

// append one row along `d` between body rows ra and rb (-1: the ground) at lever arms rA, rB
static int cnAddRow( cnRows* rows, const cnWorld* world, const int* solverIndex, int ra, int rb, cnVec3 rA,
                     cnVec3 rB, cnVec3 d, cnRowKind kind, int normalRow, double mu, double bias )
{
    int i = rows->count++;
    const cnBodyStore* bodies = &world->bodies;
    cnVec3 angularA = cnNeg( cnCross( rA, d ) );
    cnVec3 angularB = cnCross( rB, d );
    double* ja = rows->jacobianA + 6 * i;
    double* jb = rows->jacobianB + 6 * i;
    ja[0] = -d.x, ja[1] = -d.y, ja[2] = -d.z, ja[3] = angularA.x, ja[4] = angularA.y, ja[5] = angularA.z;
    jb[0] = d.x, jb[1] = d.y, jb[2] = d.z, jb[3] = angularB.x, jb[4] = angularB.y, jb[5] = angularB.z;
    rows->kind[i] = (uint8_t)kind;
    rows->normalOf[i] = normalRow;
    rows->mu[i] = kind == cn_rowFriction ? mu : 0.0;
    rows->lower[i] = 0.0;
    rows->upper[i] = (double)INFINITY;
    rows->bodyA[i] = ra >= 0 ? solverIndex[ra] : -1;
    rows->bodyB[i] = rb >= 0 ? solverIndex[rb] : -1;
    rows->direction[i] = d;

    // b = J v (every moving body, kinematic ones included) + bias
    cnVec3 vA = cnPointVelocity( bodies->linearVelocity, bodies->angularVelocity, ra, rA );
    cnVec3 vB = cnPointVelocity( bodies->linearVelocity, bodies->angularVelocity, rb, rB );
    rows->b[i] = cnDot( d, cnSub( vB, vA ) ) + bias;
    rows->lambda[i] = 0.0;
    rows->push[i] = 0.0;
    return i;
}

// 3x3 block, row major, of a tensor
static void cnStoreBlock( double* out, cnMat3 m )
{
    cnMat3 t = cnTranspose( m );
    memcpy( out, &t, 9 * sizeof( double ) );
}

// the solver's view of the assembled rows
static cnSolverProblem cnMakeProblem( const cnRows* rows, const double* b, const double* softness,
                                      int bodyCount, const double* wLinear, const double* wAngular )
{
    cnSolverProblem problem;
    memset( &problem, 0, sizeof( problem ) );
    problem.rowCount = rows->count;
    problem.bodyCount = bodyCount;
    problem.kind = rows->kind;
    problem.normalOf = rows->normalOf;
    problem.mu = rows->mu;
    problem.lower = rows->lower;
    problem.upper = rows->upper;
    problem.b = b;
    problem.softness = softness;
    problem.bodyA = rows->bodyA;
    problem.bodyB = rows->bodyB;
    problem.jacobianA = rows->jacobianA;
    problem.jacobianB = rows->jacobianB;
    problem.wLinear = wLinear;
    problem.wAngular = wAngular;
    return problem;
}

// solve one assembled problem and return the velocity changes; false when the solver failed
static bool cnSolveRows( cnWorld* world, const cnRows* rows, const double* b, const double* softness,
                         int bodyCount, const double* wLinear, const double* wAngular, double* lambda,
                         double* deltaVelocity, cnSolverStats* stats )
{
    cnSolverProblem problem = cnMakeProblem( rows, b, softness, bodyCount, wLinear, wAngular );
    cnSolverSolution solution = { lambda, deltaVelocity, world->residualHistory,
                                  world->residualHistoryCapacity };
    memset( deltaVelocity, 0, 6 * (size_t)bodyCount * sizeof( double ) );
    memset( stats, 0, sizeof( *stats ) );
    world->solver->solve( world->solverState, world->solverParams, &problem, &solution, &world->arena,
                          stats );

    // an iterative solver's last iterate at its limit is still an approximation; a pivoting
    // solver stopped part way is not
    bool direct = ( world->solver->caps & cn_solverDirect ) != 0;
    bool usable =
        stats->status == cn_solveConverged || ( stats->status == cn_solveMaxIterations && direct == false );
    for ( int i = 0; usable && i < 6 * bodyCount; ++i )
    {
        usable = isfinite( deltaVelocity[i] );
    }
    return usable;
}

// Contact recursion (the ReLCP paper's section 3.8, overdamped worlds): after a solve, move every
// dynamic body by the solved velocities to a trial pose, collide every pair there, and for each
// point still overlapping by more than CN_RECURSION_TOLERANCE add a constraint measured at the
// trial pose: separation + dt J (v - v*) >= 0, v* the velocities of the solve just made. The
// constraints of earlier levels stay. Returns how many were added.
#define CN_RECURSION_SLOT      255
#define CN_RECURSION_TOLERANCE 1e-4

static int cnAddRecursionRows( cnWorld* world, cnRows* rows, const int* solverIndex, const double* delta,
                               double timeStep )
{
    const cnBodyStore* bodies = &world->bodies;
    const cnContactSet* set = &world->contacts;
    int added = 0;
    for ( int c = 0; c < set->count; ++c )
    {
        const cnContact* contact = set->contacts + c;
        const cnShape* shapes[2] = { world->shapes + contact->shapeA, world->shapes + contact->shapeB };
        int bodyRows[2];
        cnCollisionShape placed[2];
        cnVec3 centers[2];
        bool moving = false;
        for ( int side = 0; side < 2; ++side )
        {
            int row = world->slots[shapes[side]->bodySlot].row;
            bodyRows[side] = bodies->type[row] == cn_dynamicBody ? row : -1;
            cnTransform pose = bodies->transform[row];
            centers[side] = bodies->center[row];
            if ( bodyRows[side] >= 0 )
            {
                // the trial pose: as the integrator would move it with the solved velocities
                const double* d = delta + 6 * solverIndex[row];
                cnVec3 v = cnAdd( bodies->linearVelocity[row], cnMakeVec3( d[0], d[1], d[2] ) );
                cnVec3 w = cnAdd( bodies->angularVelocity[row], cnMakeVec3( d[3], d[4], d[5] ) );
                pose = cnAdvanceBody( bodies, row, v, w, timeStep, centers + side );
                moving = true;
            }
            placed[side].geometry = &shapes[side]->geometry;
            placed[side].hull = shapes[side]->hull;
            placed[side].transform = cnMulTransforms( pose, shapes[side]->localPose );
        }
        if ( moving == false )
        {
            continue;
        }
        cnManifold manifold;
        if ( cnCollide( placed + 0, placed + 1, 0.0, NULL, &manifold ) != cn_statusOk )
        {
            continue;
        }
        for ( int k = 0; k < manifold.pointCount; ++k )
        {
            const cnManifoldPoint* mp = manifold.points + k;
            if ( mp->separation >= -CN_RECURSION_TOLERANCE || rows->count >= rows->capacity )
            {
                continue;
            }
            cnVec3 rA = bodyRows[0] >= 0 ? cnSub( mp->point, centers[0] ) : cn_vec3Zero;
            cnVec3 rB = bodyRows[1] >= 0 ? cnSub( mp->point, centers[1] ) : cn_vec3Zero;
            int i = cnAddRow( rows, world, solverIndex, bodyRows[0], bodyRows[1], rA, rB, mp->normal,
                              cn_rowNormal, -1, 0.0, mp->separation / timeStep );
            // b = J v0 + separation / dt - J v* = separation / dt - J delta
            const double* ja = rows->jacobianA + 6 * i;
            const double* jb = rows->jacobianB + 6 * i;
            for ( int j = 0; j < 6; ++j )
            {
                rows->b[i] -= ( bodyRows[0] >= 0 ? ja[j] * delta[6 * solverIndex[bodyRows[0]] + j] : 0.0 ) +
                              ( bodyRows[1] >= 0 ? jb[j] * delta[6 * solverIndex[bodyRows[1]] + j] : 0.0 );
            }
            rows->contact[i] = c;
            rows->point[i] = 0;
            rows->slot[i] = CN_RECURSION_SLOT;
            rows->push[i] = 0.0;
            added += 1;
        }
    }
    return added;
}

cnStatus cnSolveContacts( cnWorld* world, double timeStep, cnStepScratch* scratch )
{
    cnBodyStore* bodies = &world->bodies;
    cnContactSet* set = &world->contacts;
    cnStepReport* report = &world->report;
    world->residualHistoryCount = 0;
    report->contactRecursions = 0;
    int n = bodies->count;
    bool overdamped = world->def.dynamics == cn_dynamicsOverdamped;
    bool friction = ( world->solver->caps & cn_solverFriction ) != 0;
    int warmIndex = cnParamIndex( world->solver, "warm_start" );
    bool warmStart = warmIndex == CN_NULL_INDEX || world->solverParams[warmIndex] >= 0.5;

    // solver indices of the dynamic bodies, and their W blocks
    int* solverIndex = cnArenaAlloc( &world->arena, (size_t)( n > 0 ? n : 1 ) * sizeof( int ), 16 );
    int* rowOf = cnArenaAlloc( &world->arena, (size_t)( n > 0 ? n : 1 ) * sizeof( int ), 16 );
    double* wLinear = cnArenaAlloc( &world->arena, 9 * (size_t)( n > 0 ? n : 1 ) * sizeof( double ), 16 );
    double* wAngular = cnArenaAlloc( &world->arena, 9 * (size_t)( n > 0 ? n : 1 ) * sizeof( double ), 16 );
    double* delta = cnArenaAlloc( &world->arena, 6 * (size_t)( n > 0 ? n : 1 ) * sizeof( double ), 16 );
    int points = 0;
    for ( int i = 0; i < set->count; ++i )
    {
        points += set->contacts[i].manifold.pointCount;
    }
    // the recursion's constraints (overdamped worlds, contactRecursions > 0) are appended: room for
    // one per manifold point of every pair at every level
    int recursions = overdamped ? world->def.contactRecursions : 0;
    int extra = recursions * CN_MAX_MANIFOLD_POINTS * set->count;
    cnRows rows;
    bool ok = solverIndex != NULL && rowOf != NULL && wLinear != NULL && wAngular != NULL && delta != NULL &&
              cnAllocRows( &world->arena, &rows, 3 * points + extra );
    if ( ok == false )
    {
        return cn_statusOutOfMemory;
    }
    int bodyCount = 0;
    for ( int row = 0; row < n; ++row )
    {
        solverIndex[row] = -1;
        if ( bodies->type[row] != cn_dynamicBody )
        {
            continue;
        }
        int k = bodyCount++;
        solverIndex[row] = k;
        rowOf[k] = row;
        cnQuat q = bodies->transform[row].q;
        if ( overdamped )
        {
            cnStoreBlock( wLinear + 9 * k, cnRotateTensor( q, bodies->linearMobility[row] ) );
            cnStoreBlock( wAngular + 9 * k, cnRotateTensor( q, bodies->angularMobility[row] ) );
        }
        else
        {
            double m = bodies->invMass[row];
            cnStoreBlock( wLinear + 9 * k, cnMakeMat3Diagonal( m, m, m ) );
            cnStoreBlock( wAngular + 9 * k, cnRotateTensor( q, bodies->invInertia[row] ) );
        }
    }

    // velocity pass: a normal and two friction rows per point
    for ( int c = 0; c < set->count; ++c )
    {
        const cnContact* contact = set->contacts + c;
        if ( contact->manifold.pointCount == 0 )
        {
            continue;
        }
        const cnShape* shapeA = world->shapes + contact->shapeA;
        const cnShape* shapeB = world->shapes + contact->shapeB;
        int ra = world->slots[shapeA->bodySlot].row;
        int rb = world->slots[shapeB->bodySlot].row;
        ra = bodies->type[ra] == cn_staticBody ? -1 : ra;
        rb = bodies->type[rb] == cn_staticBody ? -1 : rb;
        double mu = sqrt( shapeA->material.friction * shapeB->material.friction );
        double restitution = fmax( shapeA->material.restitution, shapeB->material.restitution );
        for ( int k = 0; k < contact->manifold.pointCount; ++k )
        {
            const cnManifoldPoint* mp = contact->manifold.points + k;
            cnVec3 normal = mp->normal; // the manifold's, or the point's own (tori)
            cnVec3 rA = ra >= 0 ? cnSub( mp->point, bodies->center[ra] ) : cn_vec3Zero;
            cnVec3 rB = rb >= 0 ? cnSub( mp->point, bodies->center[rb] ) : cn_vec3Zero;
            double separation = mp->separation;

            double bias = 0.0;
            double push = 0.0;
            if ( overdamped )
            {
                // end the step just touching
                bias = separation / timeStep;
            }
            else
            {
                // relative normal velocity at the start of the step, for restitution
                cnVec3 vA = cnPointVelocity( scratch->savedLinear, scratch->savedAngular, ra, rA );
                cnVec3 vB = cnPointVelocity( scratch->savedLinear, scratch->savedAngular, rb, rB );
                double approach = cnDot( normal, cnSub( vB, vA ) );
                if ( restitution > 0.0 && approach < -CN_RESTITUTION_THRESHOLD &&
                     separation + approach * timeStep <= 0.0 )
                {
                    bias = restitution * approach;
                }
                else if ( separation > 0.0 )
                {
                    bias = separation / timeStep;
                }
                else
                {
                    push = separation;
                }
            }

            int normalRow =
                cnAddRow( &rows, world, solverIndex, ra, rb, rA, rB, normal, cn_rowNormal, -1, 0.0, bias );
            rows.push[normalRow] = push;
            rows.contact[normalRow] = c;
            rows.point[normalRow] = (uint8_t)k;
            rows.slot[normalRow] = 0;
            if ( warmStart )
            {
                rows.lambda[normalRow] = contact->normalImpulse[k];
            }
            if ( friction == false )
            {
                continue;
            }

            // friction basis: along the sliding direction when the point slides
            cnVec3 vA = cnPointVelocity( bodies->linearVelocity, bodies->angularVelocity, ra, rA );
            cnVec3 vB = cnPointVelocity( bodies->linearVelocity, bodies->angularVelocity, rb, rB );
            cnVec3 slide = cnSub( vB, vA );
            slide = cnMulAdd( slide, -cnDot( slide, normal ), normal );
            double speed = cnLength( slide );
            cnVec3 t1 =
                speed > CN_SLIDE_THRESHOLD ? cnScale( 1.0 / speed, slide ) : cnPerpendicular( normal );
            cnVec3 t2 = cnCross( normal, t1 );
            cnVec3 tangents[2] = { t1, t2 };
            for ( int j = 0; j < 2; ++j )
            {
                int i = cnAddRow( &rows, world, solverIndex, ra, rb, rA, rB, tangents[j], cn_rowFriction,
                                  normalRow, mu, 0.0 );
                rows.contact[i] = c;
                rows.point[i] = (uint8_t)k;
                rows.slot[i] = (uint8_t)( 1 + j );
                if ( warmStart )
                {
                    rows.lambda[i] = cnDot( contact->tangentImpulse[k], tangents[j] );
                }
            }
        }
    }
    report->solverRows = rows.count;
    report->solverFrictionless = friction == false && rows.count > 0;
    if ( rows.count == 0 )
    {
        return cn_statusOk;
    }

    // Soft step (Box2D v3's, Catto 2024): first the soft pass, where penetrating points push
    // apart as a stiff damped spring (bias rate and constraint-force mixing from the world's contactHertz
    // and CN_CONTACT_DAMPING), then the relax pass, the hard problem without the push, started
    // from the soft pass's impulses. The bodies move with the soft pass's velocities and keep the
    // relaxed ones: position correction adds no kinetic energy, and there is no slop dead zone in
    // which a tilt can survive.
    size_t count = (size_t)rows.count;
    double* softB = NULL;
    double* softness = NULL;
    double* softLambda = NULL;
    double* softDelta = NULL;
    bool soft = overdamped == false;
    if ( soft )
    {
        softB = cnArenaAlloc( &world->arena, count * sizeof( double ), 16 );
        softness = cnArenaAlloc( &world->arena, count * sizeof( double ), 16 );
        softLambda = cnArenaAlloc( &world->arena, count * sizeof( double ), 16 );
        softDelta = cnArenaAlloc( &world->arena,
                                  6 * (size_t)( bodyCount > 0 ? bodyCount : 1 ) * sizeof( double ), 16 );
        if ( softB == NULL || softness == NULL || softLambda == NULL || softDelta == NULL )
        {
            return cn_statusOutOfMemory;
        }
        double* diagonal = cnArenaAlloc( &world->arena, count * sizeof( double ), 16 );
        if ( diagonal == NULL )
        {
            return cn_statusOutOfMemory;
        }
        cnSolverProblem hard = cnMakeProblem( &rows, rows.b, NULL, bodyCount, wLinear, wAngular );
        cnComputeDiagonal( &hard, diagonal );
        double omega = 2.0 * CN_PI * world->def.contactHertz;
        double a1 = 2.0 * CN_CONTACT_DAMPING + timeStep * omega;
        double a2 = timeStep * omega * a1;
        double biasRate = omega / a1;
        bool pushing = false;
        for ( size_t i = 0; i < count; ++i )
        {
            softB[i] = rows.b[i];
            softness[i] = 0.0;
            softLambda[i] = rows.lambda[i];
            if ( rows.kind[i] == cn_rowNormal && rows.push[i] < 0.0 )
            {
                softB[i] += fmax( biasRate * rows.push[i], -CN_MAX_PUSH_SPEED );
                softness[i] = diagonal[i] / a2;
                pushing = true;
            }
        }
        soft = pushing;
    }

    cnSolverStats stats;
    bool softUsable = false;
    if ( soft )
    {
        softUsable = cnSolveRows( world, &rows, softB, softness, bodyCount, wLinear, wAngular, softLambda,
                                  softDelta, &stats );
        if ( softUsable )
        {
            memcpy( rows.lambda, softLambda, count * sizeof( double ) );
        }
    }
    bool usable =
        cnSolveRows( world, &rows, rows.b, NULL, bodyCount, wLinear, wAngular, rows.lambda, delta, &stats );
    report->solverIterations = stats.iterations;
    report->solverResidual = stats.residual;
    world->residualHistoryCount = stats.historyCount;
    if ( stats.historyCount == 0 && world->residualHistoryCapacity > 0 )
    {
        // a solver that keeps no history (a pivoting one) still has an end
        world->residualHistory[0] = stats.residual;
        world->residualHistoryCount = 1;
    }
    report->solverStatus = (int)stats.status;
    if ( stats.status != cn_solveConverged )
    {
        report->warnings |= cn_warnSolverNotConverged;
    }
    for ( int level = 0; usable && level < recursions; ++level )
    {
        int added = cnAddRecursionRows( world, &rows, solverIndex, delta, timeStep );
        if ( added == 0 )
        {
            break;
        }
        report->contactRecursions = level + 1;
        usable = cnSolveRows( world, &rows, rows.b, NULL, bodyCount, wLinear, wAngular, rows.lambda, delta,
                              &stats );
        report->solverIterations += stats.iterations;
        report->solverResidual = stats.residual;
    }
    if ( usable == false )
    {
        // NaN, divergence or no answer: this step's velocities stay as predicted
        cnLogWorld( world, cn_logWarning, cn_statusNotConverged,
                    "step %lld: solver '%s' ended with '%s'; contacts were not applied this step",
                    (long long)world->stepIndex + 1, world->solver->name, cnSolveStatusName( stats.status ) );
        return cn_statusOk;
    }
    for ( int c = 0; c < set->count; ++c )
    {
        cnContact* contact = set->contacts + c;
        for ( int k = 0; k < CN_MAX_MANIFOLD_POINTS; ++k )
        {
            contact->normalImpulse[k] = 0.0;
            contact->tangentImpulse[k] = cn_vec3Zero;
        }
    }
    for ( int i = 0; i < rows.count; ++i )
    {
        cnContact* contact = set->contacts + rows.contact[i];
        int k = rows.point[i];
        if ( rows.slot[i] == CN_RECURSION_SLOT )
        {
            continue; // a constraint of the recursion: no manifold point to warm-start
        }
        if ( rows.slot[i] == 0 )
        {
            contact->normalImpulse[k] = rows.lambda[i];
        }
        else
        {
            contact->tangentImpulse[k] =
                cnMulAdd( contact->tangentImpulse[k], rows.lambda[i], rows.direction[i] );
        }
    }
    for ( int k = 0; k < bodyCount; ++k )
    {
        int row = rowOf[k];
        const double* d = delta + 6 * k;
        cnVec3 dv = cnMakeVec3( d[0], d[1], d[2] );
        cnVec3 dw = cnMakeVec3( d[3], d[4], d[5] );
        bodies->linearVelocity[row] = cnAdd( bodies->linearVelocity[row], dv );
        bodies->angularVelocity[row] = cnAdd( bodies->angularVelocity[row], dw );
        if ( overdamped == false )
        {
            // the impulse's angular momentum, carried to the new pose with the rest (integrate.c)
            cnMat3 inertia = cnRotateTensor( bodies->transform[row].q, bodies->inertia[row] );
            scratch->angularMomentum[row] = cnAdd( scratch->angularMomentum[row], cnMulMV( inertia, dw ) );
        }
        if ( softUsable )
        {
            // the push: what the soft pass moved by beyond the relaxed velocities, this step only
            const double* s = softDelta + 6 * k;
            scratch->pseudoLinear[row] = cnMakeVec3( s[0] - d[0], s[1] - d[1], s[2] - d[2] );
            scratch->pseudoAngular[row] = cnMakeVec3( s[3] - d[3], s[4] - d[4], s[5] - d[5] );
        }
    }
    return cn_statusOk;
}
