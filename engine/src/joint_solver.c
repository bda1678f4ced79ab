// SPDX-License-Identifier: MIT
// Joint rows and projection (joint_solver.h): the rows each joint adds to the solver problem, the
// warm start and impulses they keep, the geometric stiffness of loaded joints, and the projection
// back onto the joints after the positions move (the model: cairn/joint.h; docs/architecture.md,
// "Joints"). The pool and the API are joint.c's.
//
// Rows, each J = [-l, -(rA x l) - g | l, rB x l + g] for a linear direction l or an angular one g,
// so that w = J v is the rate of the row's position error C (m or rad):
//   point      l = world x, y, z          C = (pB - pA) . l                     free
//   fixed      g = world x, y, z          C = the rotation vector from the pose held, . g
//   hinge      g = two axes across a      C = (a x b) . g, a and b the axis on A and on B
//   limit      g = +a (lower), -a (upper) C = angle - lower, upper - angle     lambda >= 0
//   motor      g = a                      b = J v - speed                       |lambda| <= T dt
//   distance   l = the unit A -> B        C = |pB - pA| - length (rod, spring, limits)
//   prismatic  l = two axes across a      C = (pB - pA) . l, A's lever arm to pB; + the fixed rows'
//              angular ones; limits and motor along a (translation - lower, upper - translation)
// An inertial world corrects C in its soft pass (the same soft step as contacts): b gets
// bias rate * C, with Box2D v3's bias rate for a joint spring at twice the world's contactHertz (at
// most half the substep rate) and damping ratio 1; the rows stay rigid (no constraint-force mixing)
// and the relax pass solves them again with no bias, so the bodies move by the correction without
// keeping it as velocity (a split impulse). Rigid rows keep a pendulum's period exact: with the
// soft rows' mixing term (A_ii / a2, as for contacts) a 5 cm ball on a 1 m pendulum swung 3.4%
// slow, because the bodies then move with impulses 4% short of holding the joint. A limit row
// whose C is positive is speculative in every pass (b += C / dt: the gap may close, no more), as a
// contact's. A distance spring is the one soft row: its own frequency and damping ratio, in every
// pass. Overdamped worlds and the split impulse's position pass put the whole C / dt in b.

#include "joint_solver.h"

#include "contact_rows.h"
#include "core.h"
#include "joint.h"
#include "solver_layer.h"
#include "world.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

// the soft pass's joint spring: damping ratio, and its stiffness relative to the contacts'
#define CN_JOINT_DAMPING       1.0
#define CN_JOINT_HERTZ_FACTOR  2.0
#define CN_JOINT_HERTZ_PER_SUB 0.5 // at most this times the substep rate
// below this length, m, a distance joint keeps the direction of its last step
#define CN_DISTANCE_EPSILON 1e-9

// ---- rows -----------------------------------------------------------------------------------------------

int cnJointRowBound( const cnWorld* world )
{
    return 8 * world->jointCount;
}

// What building one pass's rows needs.
typedef struct cnJointBuild
{
    cnWorld* world;
    cnSolverProblem* problem;
    const int* solverIndex;
    double* lambda;
    double timeStep;
    cnJointPass pass;
    bool warmStart;
    cnJointSoft* soft;
    double* rowVelocity; // nullable: each row's J v
    double biasRate;     // the soft pass's position correction, 1/s
} cnJointBuild;

// The warm start of a row in `slot` along `direction`: the slot's impulse, or for the angular rows
// across a hinge or of a fixed joint the last step's angular impulse projected on this direction.
static double cnJointWarmStart( const cnJointBuild* jb, const cnJoint* joint, int slot, cnVec3 direction )
{
    if ( jb->warmStart == false || jb->pass != cn_jointPassSoft || !( joint->stepTime > 0.0 ) )
    {
        return 0.0;
    }
    double scale = jb->timeStep / joint->stepTime;
    if ( joint->type == cn_prismaticJoint && slot < cn_jointSlotAngular )
    {
        cnVec3 sum = cnMulAdd( cnScale( joint->impulse[0], joint->direction[0] ), joint->impulse[1],
                               joint->direction[1] );
        return scale * cnDot( sum, direction );
    }
    if ( slot >= cn_jointSlotAngular && slot < cn_jointSlotLower )
    {
        cnVec3 sum = cn_vec3Zero;
        for ( int s = cn_jointSlotAngular; s < cn_jointSlotLower; ++s )
        {
            sum = cnMulAdd( sum, joint->impulse[s], joint->direction[s] );
        }
        return scale * cnDot( sum, direction );
    }
    return scale * joint->impulse[slot];
}

// Append one row in `slot`: linear direction l at the anchors, angular direction g; b = J v; bounds.
static int cnJointAddRow( cnJointBuild* jb, cnJoint* joint, const cnJointFrame* f, int slot, cnVec3 l,
                          cnVec3 g, double lower, double upper )
{
    cnSolverProblem* p = jb->problem;
    const cnBodyStore* bodies = &jb->world->bodies;
    int i = p->rowCount++;
    int ra = bodies->type[f->rowA] == cn_staticBody ? -1 : f->rowA;
    int rb = bodies->type[f->rowB] == cn_staticBody ? -1 : f->rowB;
    cnVec3 angularA = cnNeg( cnAdd( cnCross( f->rA, l ), g ) );
    cnVec3 angularB = cnAdd( cnCross( f->rB, l ), g );
    double* ja = p->jacobianA + 6 * i;
    double* jbv = p->jacobianB + 6 * i;
    ja[0] = -l.x, ja[1] = -l.y, ja[2] = -l.z, ja[3] = angularA.x, ja[4] = angularA.y, ja[5] = angularA.z;
    jbv[0] = l.x, jbv[1] = l.y, jbv[2] = l.z, jbv[3] = angularB.x, jbv[4] = angularB.y, jbv[5] = angularB.z;
    p->bodyA[i] = ra >= 0 ? jb->solverIndex[ra] : -1;
    p->bodyB[i] = rb >= 0 ? jb->solverIndex[rb] : -1;
    p->lower[i] = lower;
    p->upper[i] = upper;
    double v = 0.0;
    if ( ra >= 0 )
    {
        v += cnDot( cnMakeVec3( ja[0], ja[1], ja[2] ), bodies->linearVelocity[ra] ) +
             cnDot( angularA, bodies->angularVelocity[ra] );
    }
    if ( rb >= 0 )
    {
        v += cnDot( l, bodies->linearVelocity[rb] ) + cnDot( angularB, bodies->angularVelocity[rb] );
    }
    // the projection's rows hold the position error alone; their J v goes to rowVelocity
    p->b[i] = jb->pass == cn_jointPassProjection ? 0.0 : v;
    if ( jb->rowVelocity != NULL )
    {
        jb->rowVelocity[i] = v;
    }
    cnVec3 direction = cnSlotIsAngular( joint, slot ) ? g : l;
    jb->lambda[i] = cnJointWarmStart( jb, joint, slot, direction );
    if ( jb->pass != cn_jointPassProjection )
    {
        joint->direction[slot] = direction;
        joint->rowSlot[joint->rowCount++] = (uint8_t)slot;
    }
    if ( jb->soft != NULL )
    {
        jb->soft->softBias[i] = 0.0;
        jb->soft->softSoftness[i] = 0.0;
        jb->soft->springSoftness[i] = 0.0;
    }
    return i;
}

// an equality row's position error C: corrected in the soft pass, or wholly in b
static void cnJointCorrect( cnJointBuild* jb, int i, double c )
{
    if ( jb->pass != cn_jointPassSoft )
    {
        jb->problem->b[i] += c / jb->timeStep;
        return;
    }
    if ( jb->soft != NULL )
    {
        jb->soft->softBias[i] = jb->biasRate * c;
        jb->soft->pushes = true;
    }
}

// a one-sided row (lambda >= 0) whose C must stay >= 0: speculative while open, pushed when closed
static void cnJointLimit( cnJointBuild* jb, int i, double c )
{
    if ( c > 0.0 || jb->pass != cn_jointPassSoft )
    {
        jb->problem->b[i] += c / jb->timeStep;
        return;
    }
    cnJointCorrect( jb, i, c );
}

static void cnJointGroup( cnJointBuild* jb, int firstRow, cnGroupKind kind )
{
    cnSolverProblem* p = jb->problem;
    p->groups[p->groupCount++] = ( cnRowGroup ){
        .firstRow = firstRow,
        .rowCount = p->rowCount - firstRow,
        .kind = (uint8_t)kind,
        .model = 0,
        .mu = 0.0,
    };
}

static const cnVec3 cn_axes[3] = { { 1.0, 0.0, 0.0 }, { 0.0, 1.0, 0.0 }, { 0.0, 0.0, 1.0 } };

// the three rows holding the anchors together
static void cnJointPointRows( cnJointBuild* jb, cnJoint* joint, const cnJointFrame* f )
{
    cnVec3 c = cnSub( f->pB, f->pA );
    for ( int k = 0; k < 3; ++k )
    {
        int i = cnJointAddRow( jb, joint, f, cn_jointSlotPoint + k, cn_axes[k], cn_vec3Zero, -INFINITY,
                               INFINITY );
        cnJointCorrect( jb, i, cnDot( c, cn_axes[k] ) );
    }
}

// True when a motor row was dropped.
static bool cnHingeRows( cnJointBuild* jb, cnJoint* joint, const cnJointFrame* f, bool bounded )
{
    int first = jb->problem->rowCount;
    cnJointPointRows( jb, joint, f );
    cnVec3 a = cnHingeAxisA( joint, f );
    cnVec3 b = cnHingeAxisB( joint, f );
    cnVec3 across = cnCross( a, b );
    cnVec3 p1 = cnPerpendicular( a );
    cnVec3 p2 = cnCross( a, p1 );
    cnVec3 perps[2] = { p1, p2 };
    for ( int k = 0; k < 2; ++k )
    {
        int i = cnJointAddRow( jb, joint, f, cn_jointSlotAngular + k, cn_vec3Zero, perps[k], -INFINITY,
                               INFINITY );
        cnJointCorrect( jb, i, cnDot( across, perps[k] ) );
    }
    cnJointGroup( jb, first, cn_groupBilateral );

    if ( joint->enableLimit )
    {
        double angle = cnHingeAngle( joint, f );
        int i = cnJointAddRow( jb, joint, f, cn_jointSlotLower, cn_vec3Zero, a, 0.0, INFINITY );
        cnJointLimit( jb, i, angle - joint->lowerAngle );
        cnJointGroup( jb, i, cn_groupNormal );
        i = cnJointAddRow( jb, joint, f, cn_jointSlotUpper, cn_vec3Zero, cnNeg( a ), 0.0, INFINITY );
        cnJointLimit( jb, i, joint->upperAngle - angle );
        cnJointGroup( jb, i, cn_groupNormal );
    }
    if ( joint->enableMotor && jb->pass != cn_jointPassPosition && jb->pass != cn_jointPassProjection )
    {
        if ( bounded == false )
        {
            return true;
        }
        // impulses in an inertial world, forces in an overdamped one
        double limit =
            joint->maxMotorTorque * ( jb->world->def.dynamics == cn_dynamicsOverdamped ? 1.0 : jb->timeStep );
        int i = cnJointAddRow( jb, joint, f, cn_jointSlotAxial, cn_vec3Zero, a, -limit, limit );
        jb->problem->b[i] -= joint->motorSpeed;
        cnJointGroup( jb, i, cn_groupBounded );
    }
    return false;
}

// B's anchor on A's axis a: two linear rows across a, at B's anchor for both bodies (A's lever arm
// reaches B's anchor, so that A turning carries the axis: Box2D's d + rA), three angular rows
// holding the orientation; limits and motor along a. True when a motor row was dropped.
static bool cnPrismaticRows( cnJointBuild* jb, cnJoint* joint, const cnJointFrame* f, bool bounded )
{
    cnJointFrame at = *f;
    at.rA = cnSub( f->pB, jb->world->bodies.center[f->rowA] );
    cnVec3 d = cnSub( f->pB, f->pA );
    cnVec3 a = cnRotate( f->qA, joint->localAxisA );
    cnVec3 p1 = cnPerpendicular( a );
    cnVec3 p2 = cnCross( a, p1 );
    cnVec3 perps[2] = { p1, p2 };
    int first = jb->problem->rowCount;
    for ( int k = 0; k < 2; ++k )
    {
        int i = cnJointAddRow( jb, joint, &at, cn_jointSlotPoint + k, perps[k], cn_vec3Zero, -INFINITY,
                               INFINITY );
        cnJointCorrect( jb, i, cnDot( d, perps[k] ) );
    }
    cnVec3 e = cnJointRotationError( joint, f );
    for ( int k = 0; k < 3; ++k )
    {
        int i = cnJointAddRow( jb, joint, f, cn_jointSlotAngular + k, cn_vec3Zero, cn_axes[k], -INFINITY,
                               INFINITY );
        cnJointCorrect( jb, i, cnDot( e, cn_axes[k] ) );
    }
    cnJointGroup( jb, first, cn_groupBilateral );

    double translation = cnDot( d, a );
    if ( joint->enableLimit )
    {
        int i = cnJointAddRow( jb, joint, &at, cn_jointSlotLower, a, cn_vec3Zero, 0.0, INFINITY );
        cnJointLimit( jb, i, translation - joint->lowerAngle );
        cnJointGroup( jb, i, cn_groupNormal );
        i = cnJointAddRow( jb, joint, &at, cn_jointSlotUpper, cnNeg( a ), cn_vec3Zero, 0.0, INFINITY );
        cnJointLimit( jb, i, joint->upperAngle - translation );
        cnJointGroup( jb, i, cn_groupNormal );
    }
    if ( joint->enableMotor && jb->pass != cn_jointPassPosition && jb->pass != cn_jointPassProjection )
    {
        if ( bounded == false )
        {
            return true;
        }
        double limit =
            joint->maxMotorTorque * ( jb->world->def.dynamics == cn_dynamicsOverdamped ? 1.0 : jb->timeStep );
        int i = cnJointAddRow( jb, joint, &at, cn_jointSlotAxial, a, cn_vec3Zero, -limit, limit );
        jb->problem->b[i] -= joint->motorSpeed;
        cnJointGroup( jb, i, cn_groupBounded );
    }
    return false;
}

static void cnFixedRows( cnJointBuild* jb, cnJoint* joint, const cnJointFrame* f )
{
    int first = jb->problem->rowCount;
    cnJointPointRows( jb, joint, f );
    cnVec3 e = cnJointRotationError( joint, f );
    for ( int k = 0; k < 3; ++k )
    {
        int i = cnJointAddRow( jb, joint, f, cn_jointSlotAngular + k, cn_vec3Zero, cn_axes[k], -INFINITY,
                               INFINITY );
        cnJointCorrect( jb, i, cnDot( e, cn_axes[k] ) );
    }
    cnJointGroup( jb, first, cn_groupBilateral );
}

static void cnDistanceRows( cnJointBuild* jb, cnJoint* joint, const cnJointFrame* f )
{
    cnVec3 d = cnSub( f->pB, f->pA );
    double length = cnLength( d );
    cnVec3 u = joint->direction[cn_jointSlotAxial];
    if ( length > CN_DISTANCE_EPSILON )
    {
        u = cnScale( 1.0 / length, d );
    }
    else if ( !( cnLengthSquared( u ) > 0.5 ) )
    {
        u = cnMakeVec3( 0.0, 0.0, 1.0 );
    }
    bool rigid =
        joint->enableSpring == false || ( joint->enableLimit && joint->minLength == joint->maxLength );
    if ( rigid )
    {
        double rest = joint->enableSpring ? joint->minLength : joint->length;
        int i = cnJointAddRow( jb, joint, f, cn_jointSlotAxial, u, cn_vec3Zero, -INFINITY, INFINITY );
        cnJointCorrect( jb, i, length - rest );
        cnJointGroup( jb, i, cn_groupBilateral );
        return;
    }
    // the spring: soft in every pass of an inertial world (its own frequency and damping)
    if ( joint->hertz > 0.0 && jb->pass == cn_jointPassSoft )
    {
        int i = cnJointAddRow( jb, joint, f, cn_jointSlotAxial, u, cn_vec3Zero, -INFINITY, INFINITY );
        double omega = 2.0 * CN_PI * joint->hertz;
        double a1 = 2.0 * joint->dampingRatio + jb->timeStep * omega;
        double a2 = jb->timeStep * omega * a1;
        jb->problem->b[i] += omega / a1 * ( length - joint->length );
        if ( jb->soft != NULL )
        {
            double softness = cnProblemRowDiagonal( jb->problem, i ) / a2;
            jb->soft->springSoftness[i] = softness;
            jb->soft->softSoftness[i] = softness;
            jb->soft->springs = true;
        }
        cnJointGroup( jb, i, cn_groupBilateral );
    }
    if ( joint->enableLimit )
    {
        int i = cnJointAddRow( jb, joint, f, cn_jointSlotLower, u, cn_vec3Zero, 0.0, INFINITY );
        cnJointLimit( jb, i, length - joint->minLength );
        cnJointGroup( jb, i, cn_groupNormal );
        i = cnJointAddRow( jb, joint, f, cn_jointSlotUpper, cnNeg( u ), cn_vec3Zero, 0.0, INFINITY );
        cnJointLimit( jb, i, joint->maxLength - length );
        cnJointGroup( jb, i, cn_groupNormal );
    }
}

void cnAppendJointRows( cnWorld* world, cnSolverProblem* problem, const int* solverIndex, double* lambda,
                        double timeStep, cnJointPass pass, bool warmStart, cnJointSoft* soft,
                        double* rowVelocity )
{
    if ( world->jointCount == 0 )
    {
        return;
    }
    uint32_t caps = world->solver->caps;
    bool bilateral = ( caps & cn_solverBilateral ) != 0;
    bool bounded = ( caps & cn_solverBounded ) != 0;
    double hertz = fmin( CN_JOINT_HERTZ_FACTOR * world->def.contactHertz, CN_JOINT_HERTZ_PER_SUB / timeStep );
    double omega = 2.0 * CN_PI * hertz;
    double a1 = 2.0 * CN_JOINT_DAMPING + timeStep * omega;
    cnJointBuild jb = {
        .world = world,
        .problem = problem,
        .solverIndex = solverIndex,
        .lambda = lambda,
        .timeStep = timeStep,
        .pass = pass,
        .warmStart = warmStart,
        .soft = soft,
        .rowVelocity = rowVelocity,
        .biasRate = omega / a1,
    };
    bool dropped = false;
    for ( int j = 0; j < world->jointSlotCount; ++j )
    {
        cnJoint* joint = world->joints + j;
        if ( joint->bodySlotA == CN_NULL_INDEX )
        {
            continue;
        }
        if ( pass != cn_jointPassProjection )
        {
            joint->rowCount = 0;
            joint->firstRow = problem->rowCount;
        }
        cnJointFrame f = cnMakeJointFrame( world, joint );
        // no solved body: two non-dynamic ones, or a sleeping one (island.c) and a static one; its
        // impulses stay for the warm start when the bodies wake (firstRow -1: nothing to store)
        if ( solverIndex[f.rowA] < 0 && solverIndex[f.rowB] < 0 )
        {
            joint->firstRow = pass != cn_jointPassProjection ? -1 : joint->firstRow;
            continue;
        }
        if ( bilateral == false )
        {
            dropped = true;
            continue;
        }
        CN_ASSERT( problem->rowCount + 8 <= problem->rowCapacity &&
                   problem->groupCount + 4 <= problem->groupCapacity );
        switch ( (cnJointType)joint->type )
        {
            case cn_ballJoint:
            {
                int first = problem->rowCount;
                cnJointPointRows( &jb, joint, &f );
                cnJointGroup( &jb, first, cn_groupBilateral );
                break;
            }
            case cn_hingeJoint:
                dropped = cnHingeRows( &jb, joint, &f, bounded ) || dropped;
                break;
            case cn_fixedJoint:
                cnFixedRows( &jb, joint, &f );
                break;
            case cn_distanceJoint:
                cnDistanceRows( &jb, joint, &f );
                break;
            case cn_prismaticJoint:
                dropped = cnPrismaticRows( &jb, joint, &f, bounded ) || dropped;
                break;
            default:
                break;
        }
    }
    if ( dropped )
    {
        world->report.warnings |= cn_warnJointsDropped;
    }
}

void cnStoreJointImpulses( cnWorld* world, const double* lambda, double timeStep )
{
    for ( int j = 0; j < world->jointSlotCount; ++j )
    {
        cnJoint* joint = world->joints + j;
        if ( joint->bodySlotA == CN_NULL_INDEX || joint->firstRow < 0 )
        {
            continue;
        }
        memset( joint->impulse, 0, sizeof( joint->impulse ) );
        joint->stepTime = timeStep;
        for ( int k = 0; k < joint->rowCount; ++k )
        {
            joint->impulse[joint->rowSlot[k]] = lambda[joint->firstRow + k];
        }
    }
}

// Geometric stiffness. A joint carrying a force f turns it with the bodies: the torque r x f of an
// anchor at lever arm r changes by about |f| |r| per radian the body turns. The velocity problem
// takes f along the directions of the start of the substep, so that stiffness is explicit in time,
// and with the pseudo-velocity that corrects the joints' position error it made a taut chain
// unstable: the 50-link chain with a 100:1 end mass, swinging, grew a mode that flipped sign every
// substep with a factor of about 3 in the light links near the pivot (29 kN through 20 kg links),
// and went from a 15 mm stretch to metres and 1e7 J in 20 s; below 60:1, or at g = 5 m/s^2, it did
// not. Adding h^2 |f| |r| to the inertia of each jointed body about every axis (Andrews, Teichmann
// and Kry's diagonal geometric stiffness, "Geometric stiffness for real-time constrained
// multibody dynamics", 2017) damps that mode: the bodies turn less under a given impulse, never
// more, so it takes energy out, and it vanishes with the load (a joint with no force adds nothing)
// and with the substep (h^2). f is the last step's (the warm start's); translations are left alone.
void cnAddJointGeometricInertia( cnWorld* world, const int* solverIndex, double* wAngular, double timeStep )
{
    cnBodyStore* bodies = &world->bodies;
    double* added = cnArenaAlloc( &world->arena,
                                  (size_t)( bodies->count > 0 ? bodies->count : 1 ) * sizeof( double ), 16 );
    if ( added == NULL )
    {
        return; // the bare inertia, as without joints
    }
    memset( added, 0, (size_t)bodies->count * sizeof( double ) );
    bool any = false;
    for ( int j = 0; j < world->jointSlotCount; ++j )
    {
        const cnJoint* joint = world->joints + j;
        if ( joint->bodySlotA == CN_NULL_INDEX || !( joint->stepTime > 0.0 ) )
        {
            continue;
        }
        // the force of the linear rows (point, prismatic, distance), world frame, N
        cnVec3 force = cn_vec3Zero;
        for ( int s = 0; s < cn_jointSlotCount; ++s )
        {
            if ( joint->impulse[s] != 0.0 && cnSlotIsAngular( joint, s ) == false )
            {
                force = cnMulAdd( force, joint->impulse[s] / joint->stepTime, joint->direction[s] );
            }
        }
        double load = cnLength( force );
        if ( !( load > 0.0 ) || isfinite( load ) == false )
        {
            continue;
        }
        cnJointFrame f = cnMakeJointFrame( world, joint );
        added[f.rowA] += load * cnLength( f.rA );
        added[f.rowB] += load * cnLength( f.rB );
        any = true;
    }
    if ( any == false )
    {
        return;
    }
    double h2 = timeStep * timeStep;
    for ( int row = 0; row < bodies->count; ++row )
    {
        int k = solverIndex[row];
        // a body that does not rotate keeps its zero block
        if ( k < 0 || !( added[row] > 0.0 ) || cnIsRotationFixed( bodies, row ) )
        {
            continue;
        }
        double e = h2 * added[row];
        cnMat3 inertia = cnRotateTensor( bodies->transform[row].q, bodies->inertia[row] );
        cnMat3 w = cnInvertMat3( cnAddMat3( inertia, cnMakeMat3Diagonal( e, e, e ) ) );
        // the blocks are stored by rows; w is symmetric
        memcpy( wAngular + 9 * k, &w, 9 * sizeof( double ) );
    }
}

// ---- projection -------------------------------------------------------------------------------------------

// Joint projection: at most this many Newton steps a substep, until every equality row's error is
// at most the tolerance (m, or rad for angular rows); a row's error is taken as at most the largest
// correction (m or rad) in one Newton step, so that a joint created far apart closes over several
// steps.
#define CN_PROJECTION_ITERATIONS 4
#define CN_PROJECTION_TOLERANCE  1e-8
#define CN_PROJECTION_MAX        0.05
// passes over the units that close loops (bilateral.h) within one Newton step
#define CN_PROJECTION_LOOP_ROUNDS 8

// a row the projection holds at C = 0: an equality row, or a limit it made one (motors and springs
// are not built in this pass)
static bool cnIsEqualityRow( const cnSolverProblem* p, int i )
{
    return p->lower[i] == -(double)INFINITY && p->upper[i] == (double)INFINITY;
}

// Hold the limit rows (one-sided normal groups of one row, marked in `limit`) at C = 0 like
// equality rows where `value` (their position error C, or their J v) is below zero: a limit the move
// carried past, or one at its bound that the velocities push further. The others stay one-sided,
// outside the projection.
static void cnActivateLimits( cnSolverProblem* p, const bool* limit, const double* value )
{
    for ( int g = 0; g < p->groupCount; ++g )
    {
        cnRowGroup* group = p->groups + g;
        int i = group->firstRow;
        if ( limit[i] )
        {
            bool active = value[i] < 0.0;
            group->kind = (uint8_t)( active ? cn_groupBilateral : cn_groupNormal );
            p->lower[i] = active ? -(double)INFINITY : 0.0;
            p->upper[i] = (double)INFINITY;
        }
    }
}

// The joints' rows at the current poses (cn_jointPassProjection: b = C / dt) in `rows`, their J v
// in `rowVelocity` (room for cnJointRowBound), with room for `delta`; false when out of memory.
// rows->bodyCount 0: nothing to project.
static bool cnProjectionRows( cnWorld* world, double timeStep, cnContactRows* rows, double** delta,
                              double* rowVelocity )
{
    cnBodyStore* bodies = &world->bodies;
    int capacity = cnJointRowBound( world );
    *delta = cnArenaAlloc( &world->arena,
                           6 * (size_t)( bodies->count > 0 ? bodies->count : 1 ) * sizeof( double ), 16 );
    if ( *delta == NULL || cnAllocRows( &world->arena, rows, bodies->count, capacity, capacity ) == false )
    {
        return false;
    }
    rows->problem.timeStep = timeStep;
    rows->problem.dynamics = world->def.dynamics;
    cnPrepareBodies( world, rows );
    if ( rows->bodyCount > 0 )
    {
        cnAppendJointRows( world, &rows->problem, rows->solverIndex, rows->lambda, timeStep,
                           cn_jointPassProjection, false, NULL, rowVelocity );
    }
    return true;
}

cnStatus cnProjectJoints( cnWorld* world, double timeStep )
{
    if ( world->jointCount == 0 || world->def.dynamics != cn_dynamicsInertial ||
         world->def.enableJointProjection == false )
    {
        return cn_statusOk;
    }
    cnArena* arena = &world->arena;
    cnBodyStore* bodies = &world->bodies;
    cnContactRows rows;
    double* delta;
    // each row's C / h at the final poses (before the cap)
    size_t rowBound = (size_t)cnJointRowBound( world ) + 1;
    double* position = cnArenaAlloc( arena, rowBound * sizeof( double ), 16 );
    double* velocity = cnArenaAlloc( arena, rowBound * sizeof( double ), 16 ); // each row's J v
    bool* limit = cnArenaAlloc( arena, rowBound * sizeof( bool ), 16 );        // the limit rows
    if ( position == NULL || velocity == NULL || limit == NULL )
    {
        return cn_statusOutOfMemory;
    }
    for ( int iteration = 0; iteration <= CN_PROJECTION_ITERATIONS; ++iteration )
    {
        if ( cnProjectionRows( world, timeStep, &rows, &delta, velocity ) == false )
        {
            return cn_statusOutOfMemory;
        }
        if ( rows.bodyCount == 0 )
        {
            return cn_statusOk;
        }
        // limits carried past their bound join the equality rows; the worst error of those rows,
        // each capped at the largest correction
        cnSolverProblem* p = &rows.problem;
        cnCopyDoubles( position, p->b, p->rowCount );
        for ( int g = 0; g < p->groupCount; ++g )
        {
            limit[p->groups[g].firstRow] = p->groups[g].kind == cn_groupNormal;
            for ( int i = p->groups[g].firstRow + 1; i < p->groups[g].firstRow + p->groups[g].rowCount; ++i )
            {
                limit[i] = false;
            }
        }
        cnActivateLimits( p, limit, p->b );
        double worst = 0.0;
        double cap = CN_PROJECTION_MAX / timeStep;
        for ( int i = 0; i < p->rowCount; ++i )
        {
            if ( cnIsEqualityRow( p, i ) )
            {
                worst = fmax( worst, fabs( p->b[i] ) * timeStep );
                p->b[i] = fmin( fmax( p->b[i], -cap ), cap );
            }
        }
        if ( worst <= CN_PROJECTION_TOLERANCE || iteration == CN_PROJECTION_ITERATIONS )
        {
            break;
        }
        int solved =
            cnLayerSolveBilateral( &rows.problem, arena, CN_PROJECTION_LOOP_ROUNDS, rows.lambda, delta );
        if ( solved < 0 )
        {
            return cn_statusOutOfMemory;
        }
        if ( solved == 0 )
        {
            break;
        }
        // move each body by the pseudo-velocity for one substep (its velocity is not changed here)
        for ( int k = 0; k < rows.bodyCount; ++k )
        {
            int row = rows.rowOf[k];
            const double* u = delta + 6 * k;
            cnVec3 center;
            cnTransform pose = cnAdvanceBody( bodies, row, cnMakeVec3( u[0], u[1], u[2] ),
                                              cnMakeVec3( u[3], u[4], u[5] ), timeStep, &center );
            if ( cnIsFiniteVec3( center ) && cnIsFiniteQuat( pose.q ) )
            {
                bodies->center[row] = center;
                bodies->transform[row] = pose;
            }
        }
        world->report.projectionIterations += 1;
    }

    // the velocities: the mass-weighted least change that makes every equality row's J v zero
    // (never adds kinetic energy), at the rows of the final poses; with them the limits at their
    // bound (C within the tolerance) that the velocities would carry past it
    cnSolverProblem* p = &rows.problem;
    double fastest = 0.0; // the largest |J v| of an equality row
    for ( int i = 0; i < p->rowCount; ++i )
    {
        // (a kinematic body's velocity counts: a joint to a moving platform follows it)
        p->b[i] = velocity[i];
        // a limit away from its bound stays out (a positive value)
        position[i] = position[i] * timeStep <= CN_PROJECTION_TOLERANCE ? velocity[i] : 1.0;
    }
    cnActivateLimits( p, limit, position );
    for ( int i = 0; i < p->rowCount; ++i )
    {
        fastest = cnIsEqualityRow( p, i ) ? fmax( fastest, fabs( p->b[i] ) ) : fastest;
    }
    // rows that would drift less than the tolerance in a substep are left as they are
    if ( fastest * timeStep <= CN_PROJECTION_TOLERANCE )
    {
        return cn_statusOk;
    }
    int solved = cnLayerSolveBilateral( p, arena, CN_PROJECTION_LOOP_ROUNDS, rows.lambda, delta );
    if ( solved < 0 )
    {
        return cn_statusOutOfMemory;
    }
    for ( int k = 0; k < rows.bodyCount && solved > 0; ++k )
    {
        int row = rows.rowOf[k];
        const double* u = delta + 6 * k;
        cnVec3 linear = cnAdd( bodies->linearVelocity[row], cnMakeVec3( u[0], u[1], u[2] ) );
        cnVec3 angular = cnAdd( bodies->angularVelocity[row], cnMakeVec3( u[3], u[4], u[5] ) );
        if ( cnIsFiniteVec3( linear ) && cnIsFiniteVec3( angular ) )
        {
            bodies->linearVelocity[row] = linear;
            bodies->angularVelocity[row] = angular;
        }
    }
    return cn_statusOk;
}
