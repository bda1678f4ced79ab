// SPDX-License-Identifier: MIT
// Integration: gravity and constant forces, velocity prediction and position update, for
// inertial and overdamped worlds.
//
// Inertial bodies use semi-implicit Euler for translation: v += dt f/m, then x += dt v.
//
// Rotation is where the naive scheme fails. Integrating omega with the torque alone and
// ignoring the gyroscopic term (what many game engines do) keeps energy but lets the angular
// momentum wander, and a body spun about its intermediate axis never flips. The explicit
// gyroscopic term instead gains energy until the body explodes. We work with the angular momentum:
//
//   L      = I_w(q_n) omega_n + dt tau                  (world frame, exact for the torque impulse)
//   L_b    = R_n^T L                                     (in the body frame at the step's start)
//   Omega  = I_b^-1 (L_b + exp(-dt Omega) L_b) / 2       (implicit midpoint on the body sphere)
//   omega* = R_n Omega                                   (the velocity the body moves with)
//   q_n+1  = exp(dt omega*) q_n
//   omega_n+1 = I_w(q_n+1)^-1 L                          (momentum carried to the new pose)
//
// Because q rotates about omega* itself, the body-frame momentum after the step is
// exp(-dt Omega) L_b, and the world-frame momentum is exactly L: the torque-free body keeps its
// angular momentum vector to round-off. The midpoint choice of Omega makes the step symmetric
// and, since a rotation about Omega keeps the component of L_b along Omega, keeps the kinetic
// energy L.I^-1.L/2 exactly as well. The implicit equation is solved by fixed-point iteration,
// which contracts for dt |omega| < 1; if it does not converge the step still conserves L.
// When the solver layer changes omega* by an impulse, the change is carried into L the same way.
//
// Overdamped bodies have no memory: v = R M_lin R^T f, omega = R M_ang R^T tau.
//
// A body with fixed rotation has a zero inverse inertia (and its angular mobility is not used), so
// omega is zero after every prediction and every solve: torques and contacts never turn it.
//
// f and tau are everything that acts in the step: the forces applied for this step
// (cnBody_ApplyForce, user systems), gravity, and each body's constant force and torque.

#include "core.h"
#include "task.h"
#include "world.h"

#include <string.h>

void cnApplyBodyForces( cnWorld* world )
{
    cnBodyStore* b = &world->bodies;
    cnVec3 g = world->def.gravity;
    for ( int row = 0; row < b->count; ++row )
    {
        // a sleeping body takes no gravity: a force on it is the user's, and wakes it (island.c)
        if ( b->type[row] == cn_dynamicBody && cnIsBodyAsleep( b, row ) == false )
        {
            cnVec3 force = cnMulAdd( b->force[row], b->mass[row] * b->gravityScale[row], g );
            b->force[row] = cnAdd( force, b->constantForce[row] );
            b->torque[row] = cnAdd( b->torque[row], b->constantTorque[row] );
        }
    }
}

// Omega = I^-1 (L + exp(-dt Omega) L) / 2, body frame; returns Omega
static cnVec3 cnMidpointAngularVelocity( cnMat3 invInertia, cnVec3 momentum, double timeStep )
{
    cnVec3 omega = cnMulMV( invInertia, momentum );
    double scale = cnLength( omega );

    // no spin, or a spin about L itself (any spin of an isotropic body, a spin about a principal
    // axis): the rotation keeps L, and I^-1 L is the exact answer
    cnVec3 gyro = cnCross( omega, momentum );
    if ( cnLengthSquared( gyro ) <= 1e-30 * cnLengthSquared( omega ) * cnLengthSquared( momentum ) )
    {
        return omega;
    }

    // start from the expansion exp(-dt w) L ~ L - dt w x L, which is right to second order in dt,
    // then iterate; each pass gains a factor of about dt |w|
    omega = cnMulMV( invInertia, cnMulAdd( momentum, -0.5 * timeStep, gyro ) );
    for ( int iteration = 0; iteration < 32; ++iteration )
    {
        cnVec3 rotated = cnRotate( cnQuatExp( cnScale( -timeStep, omega ) ), momentum );
        cnVec3 next = cnMulMV( invInertia, cnScale( 0.5, cnAdd( momentum, rotated ) ) );
        double change = cnLength( cnSub( next, omega ) );
        omega = next;
        if ( change <= 1e-14 * scale )
        {
            break;
        }
    }
    return omega;
}

// Bodies a worker predicts or moves at a time. Each body's update reads and writes its own row
// only, so the ranges run on any number of workers with the same bits.
#define CN_BODY_RANGE 64

typedef struct cnPredictTask
{
    cnWorld* world;
    cnStepScratch* scratch;
    double timeStep;
} cnPredictTask;

static void cnPredictRange( int start, int end, int worker, void* context );

bool cnPredictVelocities( cnWorld* world, double timeStep, cnStepScratch* scratch )
{
    cnBodyStore* b = &world->bodies;
    int n = b->count;
    if ( n == 0 )
    {
        return true;
    }

    // scratch: momentum and the state to fall back on, all from the per-step arena
    scratch->angularMomentum = cnArenaAlloc( &world->arena, (size_t)n * sizeof( cnVec3 ), 16 );
    scratch->savedCenter = cnArenaAlloc( &world->arena, (size_t)n * sizeof( cnVec3 ), 16 );
    scratch->savedTransform = cnArenaAlloc( &world->arena, (size_t)n * sizeof( cnTransform ), 16 );
    scratch->savedLinear = cnArenaAlloc( &world->arena, (size_t)n * sizeof( cnVec3 ), 16 );
    scratch->savedAngular = cnArenaAlloc( &world->arena, (size_t)n * sizeof( cnVec3 ), 16 );
    scratch->pseudoLinear = cnArenaAlloc( &world->arena, (size_t)n * sizeof( cnVec3 ), 16 );
    scratch->pseudoAngular = cnArenaAlloc( &world->arena, (size_t)n * sizeof( cnVec3 ), 16 );
    if ( scratch->angularMomentum == NULL || scratch->savedCenter == NULL ||
         scratch->savedTransform == NULL || scratch->savedLinear == NULL || scratch->savedAngular == NULL ||
         scratch->pseudoLinear == NULL || scratch->pseudoAngular == NULL )
    {
        return false;
    }
    memcpy( scratch->savedCenter, b->center, (size_t)n * sizeof( cnVec3 ) );
    memcpy( scratch->savedTransform, b->transform, (size_t)n * sizeof( cnTransform ) );
    memcpy( scratch->savedLinear, b->linearVelocity, (size_t)n * sizeof( cnVec3 ) );
    memcpy( scratch->savedAngular, b->angularVelocity, (size_t)n * sizeof( cnVec3 ) );
    memset( scratch->pseudoLinear, 0, (size_t)n * sizeof( cnVec3 ) );
    memset( scratch->pseudoAngular, 0, (size_t)n * sizeof( cnVec3 ) );

    cnPredictTask task = { world, scratch, timeStep };
    cnParallelFor( &world->tasks, cnPredictRange, n, CN_BODY_RANGE, &task );
    return true;
}

static void cnPredictRange( int start, int end, int worker, void* context )
{
    (void)worker;
    const cnPredictTask* task = context;
    cnBodyStore* b = &task->world->bodies;
    cnStepScratch* scratch = task->scratch;
    double timeStep = task->timeStep;
    bool overdamped = task->world->def.dynamics == cn_dynamicsOverdamped;
    for ( int row = start; row < end; ++row )
    {
        if ( b->type[row] != cn_dynamicBody )
        {
            continue;
        }
        if ( cnIsBodyAsleep( b, row ) )
        {
            // still; a contact may wake it in this substep, with no momentum
            scratch->angularMomentum[row] = cn_vec3Zero;
            continue;
        }
        cnQuat q = b->transform[row].q;

        if ( overdamped )
        {
            // velocity = mobility x force, mobility rotated from the body frame to the world
            b->linearVelocity[row] = cnMulMV( cnRotateTensor( q, b->linearMobility[row] ), b->force[row] );
            b->angularVelocity[row] =
                cnIsRotationFixed( b, row )
                    ? cn_vec3Zero
                    : cnMulMV( cnRotateTensor( q, b->angularMobility[row] ), b->torque[row] );
            continue;
        }

        // translation: semi-implicit Euler, then implicit linear damping
        cnVec3 v = cnMulAdd( b->linearVelocity[row], timeStep * b->invMass[row], b->force[row] );
        b->linearVelocity[row] = cnScale( 1.0 / ( 1.0 + timeStep * b->linearDamping[row] ), v );

        // rotation: angular momentum plus the torque impulse, midpoint velocity in the body frame
        cnMat3 inertiaWorld = cnRotateTensor( q, b->inertia[row] );
        cnVec3 momentum =
            cnMulAdd( cnMulMV( inertiaWorld, b->angularVelocity[row] ), timeStep, b->torque[row] );
        cnVec3 omegaBody =
            cnMidpointAngularVelocity( b->invInertia[row], cnInvRotate( q, momentum ), timeStep );

        double damping = 1.0 / ( 1.0 + timeStep * b->angularDamping[row] );
        scratch->angularMomentum[row] = cnScale( damping, momentum );
        b->angularVelocity[row] = cnScale( damping, cnRotate( q, omegaBody ) );
    }
}

cnTransform cnAdvanceBody( const cnBodyStore* bodies, int row, cnVec3 v, cnVec3 w, double timeStep,
                           cnVec3* center )
{
    cnTransform pose;
    pose.q = cnNormalizeQuat( cnMulQuat( cnQuatExp( cnScale( timeStep, w ) ), bodies->transform[row].q ) );
    *center = cnMulAdd( bodies->center[row], timeStep, v );
    pose.p = cnSub( *center, cnRotate( pose.q, bodies->localCenter[row] ) );
    return pose;
}

typedef struct cnIntegrateTask
{
    cnWorld* world;
    const cnStepScratch* scratch;
    double timeStep;
    uint8_t* putBack; // (bodies) 1 where the new state was not finite and the old one came back;
                      // NULL: one range on the caller's thread, which flags the body itself
} cnIntegrateTask;

static void cnIntegrateRange( int start, int end, int worker, void* context )
{
    (void)worker;
    const cnIntegrateTask* task = context;
    cnBodyStore* b = &task->world->bodies;
    const cnStepScratch* scratch = task->scratch;
    double timeStep = task->timeStep;
    bool inertial = task->world->def.dynamics == cn_dynamicsInertial;

    for ( int row = start; row < end; ++row )
    {
        if ( task->putBack != NULL )
        {
            task->putBack[row] = 0;
        }
        if ( b->type[row] == cn_staticBody || cnIsBodyAsleep( b, row ) )
        {
            continue;
        }

        // move the centre of mass, rotate about it by the exponential map, keep q unit
        // (plus the split-impulse pass's position-only velocities, forgotten after this move)
        cnVec3 center;
        b->transform[row] =
            cnAdvanceBody( b, row, cnAdd( b->linearVelocity[row], scratch->pseudoLinear[row] ),
                           cnAdd( b->angularVelocity[row], scratch->pseudoAngular[row] ), timeStep, &center );
        b->center[row] = center;
        cnQuat q = b->transform[row].q;

        // inertial dynamic bodies carry their angular momentum to the new orientation
        if ( inertial && b->type[row] == cn_dynamicBody )
        {
            b->angularVelocity[row] =
                cnMulMV( cnRotateTensor( q, b->invInertia[row] ), scratch->angularMomentum[row] );
        }

        // a non-finite state is put back where it was; the step report says so
        if ( cnIsFiniteVec3( b->center[row] ) == false || cnIsFiniteQuat( q ) == false ||
             cnIsFiniteVec3( b->linearVelocity[row] ) == false ||
             cnIsFiniteVec3( b->angularVelocity[row] ) == false )
        {
            b->center[row] = scratch->savedCenter[row];
            b->transform[row] = scratch->savedTransform[row];
            b->linearVelocity[row] = scratch->savedLinear[row];
            b->angularVelocity[row] = scratch->savedAngular[row];
            if ( task->putBack != NULL )
            {
                task->putBack[row] = 1;
            }
            else
            {
                cnFlagBody( task->world, row, &task->world->report.nonFiniteCount );
            }
        }
    }
}

void cnIntegratePositions( cnWorld* world, double timeStep, const cnStepScratch* scratch )
{
    int n = world->bodies.count;
    cnIntegrateTask task = { world, scratch, timeStep, NULL };
    task.putBack = cnArenaAlloc( &world->arena, (size_t)( n > 0 ? n : 1 ), 16 );
    if ( task.putBack == NULL )
    {
        // no room for the flags: all on this thread, the same state
        cnIntegrateRange( 0, n, 0, &task );
        return;
    }
    cnParallelFor( &world->tasks, cnIntegrateRange, n, CN_BODY_RANGE, &task );
    // the report's count, in row order
    for ( int row = 0; row < n; ++row )
    {
        if ( task.putBack[row] )
        {
            cnFlagBody( world, row, &world->report.nonFiniteCount );
        }
    }
}
