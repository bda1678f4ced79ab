// SPDX-License-Identifier: MIT
// Joints: the joint pool and API, the pair filter of jointed bodies, and the geometry the API and
// the rows share (the model: cairn/joint.h and docs/architecture.md, "Joints"). The rows each joint
// adds to the solver problem, and the projection, are joint_solver.c's.

#include "joint.h"

#include "core.h"
#include "world.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

// ---- lookup ---------------------------------------------------------------------------------------------

static cnWorld* cnGetJointWorld( cnJointId jointId, cnJoint** joint )
{
    *joint = NULL;
    cnWorld* world = cnGetWorldFromIndex( jointId.world0 );
    if ( world == NULL )
    {
        return NULL;
    }
    int index = jointId.index1 - 1;
    if ( index < 0 || index >= world->jointSlotCount )
    {
        return NULL;
    }
    cnJoint* j = world->joints + index;
    if ( j->bodySlotA == CN_NULL_INDEX || j->generation != jointId.generation )
    {
        return NULL;
    }
    *joint = j;
    return world;
}

bool cnJoint_IsValid( cnJointId jointId )
{
    cnJoint* joint;
    return cnGetJointWorld( jointId, &joint ) != NULL;
}

int cnWorld_GetJointCount( cnWorldId worldId )
{
    cnWorld* world = cnGetWorld( worldId );
    return world != NULL ? world->jointCount : 0;
}

int cnWorld_GetJoints( cnWorldId worldId, cnJointId* jointIds, int capacity )
{
    cnWorld* world = cnGetWorld( worldId );
    if ( world == NULL || jointIds == NULL )
    {
        return 0;
    }
    int count = 0;
    for ( int index = 0; index < world->jointSlotCount && count < capacity; ++index )
    {
        const cnJoint* joint = world->joints + index;
        if ( joint->bodySlotA != CN_NULL_INDEX )
        {
            jointIds[count++] = ( cnJointId ){ index + 1, world->slot, joint->generation };
        }
    }
    return count;
}

cnStatus cnWorld_EnableJointProjection( cnWorldId worldId, bool enable )
{
    cnWorld* world = cnGetWorld( worldId );
    if ( world == NULL )
    {
        return cn_statusInvalidId;
    }
    if ( world->locked )
    {
        cnLogWorld( world, cn_logError, cn_statusWorldLocked,
                    "cnWorld_EnableJointProjection: called from inside cnWorld_Step" );
        return cn_statusWorldLocked;
    }
    world->def.enableJointProjection = enable;
    return cn_statusOk;
}

bool cnWorld_IsJointProjectionEnabled( cnWorldId worldId )
{
    cnWorld* world = cnGetWorld( worldId );
    return world != NULL && world->def.enableJointProjection;
}

// the pose of a body slot's row
static int cnRowOfSlot( const cnWorld* world, int slot )
{
    return world->slots[slot].row;
}

static const char* cnTypeName( cnBodyType type )
{
    return type == cn_staticBody ? "static" : type == cn_kinematicBody ? "kinematic" : "dynamic";
}

// ---- geometry -------------------------------------------------------------------------------------------

cnJointFrame cnMakeJointFrame( const cnWorld* world, const cnJoint* joint )
{
    const cnBodyStore* bodies = &world->bodies;
    cnJointFrame f;
    f.rowA = cnRowOfSlot( world, joint->bodySlotA );
    f.rowB = cnRowOfSlot( world, joint->bodySlotB );
    cnTransform ta = bodies->transform[f.rowA];
    cnTransform tb = bodies->transform[f.rowB];
    f.qA = ta.q;
    f.qB = tb.q;
    f.pA = cnTransformPoint( ta, joint->localAnchorA );
    f.pB = cnTransformPoint( tb, joint->localAnchorB );
    f.rA = cnSub( f.pA, bodies->center[f.rowA] );
    f.rB = cnSub( f.pB, bodies->center[f.rowB] );
    return f;
}

// D = conj(qA) qB conj(reference): B's rotation away from the pose held, in A's frame, w >= 0
static cnQuat cnJointDeviation( const cnJoint* joint, const cnJointFrame* f )
{
    cnQuat d = cnMulQuat( cnMulQuat( cnConjugate( f->qA ), f->qB ), cnConjugate( joint->referenceRotation ) );
    if ( d.w < 0.0 )
    {
        d = cnMakeQuat( -d.w, -d.x, -d.y, -d.z );
    }
    return d;
}

// the rotation vector of the deviation, world frame, rad
cnVec3 cnJointRotationError( const cnJoint* joint, const cnJointFrame* f )
{
    cnQuat d = cnJointDeviation( joint, f );
    cnVec3 v = cnMakeVec3( d.x, d.y, d.z );
    double s = cnLength( v );
    if ( s < 1e-12 )
    {
        return cnRotate( f->qA, cnScale( 2.0, v ) );
    }
    double angle = 2.0 * atan2( s, d.w );
    return cnRotate( f->qA, cnScale( angle / s, v ) );
}

cnVec3 cnHingeAxisA( const cnJoint* joint, const cnJointFrame* f )
{
    return cnRotate( f->qA, joint->localAxisA );
}

// the hinge axis as B carries it
cnVec3 cnHingeAxisB( const cnJoint* joint, const cnJointFrame* f )
{
    return cnRotate( f->qB, cnInvRotate( joint->referenceRotation, joint->localAxisA ) );
}

// the twist of the deviation about the hinge axis, rad, in (-pi, pi]
double cnHingeAngle( const cnJoint* joint, const cnJointFrame* f )
{
    cnQuat d = cnJointDeviation( joint, f );
    double angle =
        2.0 * atan2( d.x * joint->localAxisA.x + d.y * joint->localAxisA.y + d.z * joint->localAxisA.z, d.w );
    if ( angle > CN_PI )
    {
        angle -= 2.0 * CN_PI;
    }
    else if ( angle <= -CN_PI )
    {
        angle += 2.0 * CN_PI;
    }
    return angle;
}

// ---- the pair filter ------------------------------------------------------------------------------------

static uint64_t cnPairKey( int slotA, int slotB )
{
    uint32_t low = (uint32_t)( slotA < slotB ? slotA : slotB );
    uint32_t high = (uint32_t)( slotA < slotB ? slotB : slotA );
    return ( (uint64_t)low << 32 ) | high;
}

static int cnCompareKeys( const void* a, const void* b )
{
    uint64_t x = *(const uint64_t*)a;
    uint64_t y = *(const uint64_t*)b;
    return x < y ? -1 : x > y ? 1 : 0;
}

static bool cnRebuildJointPairs( cnWorld* world )
{
    void* keys = world->jointPairs;
    if ( cnReserve( &world->allocator, &keys, &world->jointPairCapacity, world->jointCount, 16,
                    sizeof( uint64_t ) ) == false )
    {
        return false;
    }
    world->jointPairs = keys;
    int count = 0;
    for ( int i = 0; i < world->jointSlotCount; ++i )
    {
        const cnJoint* joint = world->joints + i;
        if ( joint->bodySlotA != CN_NULL_INDEX && joint->collideConnected == false )
        {
            world->jointPairs[count++] = cnPairKey( joint->bodySlotA, joint->bodySlotB );
        }
    }
    qsort( world->jointPairs, (size_t)count, sizeof( uint64_t ), cnCompareKeys );
    world->jointPairCount = count;
    world->jointPairsDirty = false;
    return true;
}

bool cnJointsFilterPair( cnWorld* world, int bodySlotA, int bodySlotB )
{
    if ( world->jointCount == 0 )
    {
        return false;
    }
    if ( world->jointPairsDirty && cnRebuildJointPairs( world ) == false )
    {
        // out of memory: a slow scan, still right
        for ( int i = 0; i < world->jointSlotCount; ++i )
        {
            const cnJoint* joint = world->joints + i;
            if ( joint->bodySlotA != CN_NULL_INDEX && joint->collideConnected == false &&
                 cnPairKey( joint->bodySlotA, joint->bodySlotB ) == cnPairKey( bodySlotA, bodySlotB ) )
            {
                return true;
            }
        }
        return false;
    }
    uint64_t key = cnPairKey( bodySlotA, bodySlotB );
    return world->jointPairCount > 0 && bsearch( &key, world->jointPairs, (size_t)world->jointPairCount,
                                                 sizeof( uint64_t ), cnCompareKeys ) != NULL;
}

// ---- creation and destruction ---------------------------------------------------------------------------

cnBallJointDef cnDefaultBallJointDef( void )
{
    cnBallJointDef def;
    memset( &def, 0, sizeof( def ) );
    def.internalValue = CN_SECRET_COOKIE;
    return def;
}

cnHingeJointDef cnDefaultHingeJointDef( void )
{
    cnHingeJointDef def;
    memset( &def, 0, sizeof( def ) );
    def.localAxisA = cnMakeVec3( 0.0, 0.0, 1.0 );
    def.lowerAngle = -0.25 * CN_PI;
    def.upperAngle = 0.25 * CN_PI;
    def.internalValue = CN_SECRET_COOKIE;
    return def;
}

cnFixedJointDef cnDefaultFixedJointDef( void )
{
    cnFixedJointDef def;
    memset( &def, 0, sizeof( def ) );
    def.internalValue = CN_SECRET_COOKIE;
    return def;
}

cnDistanceJointDef cnDefaultDistanceJointDef( void )
{
    cnDistanceJointDef def;
    memset( &def, 0, sizeof( def ) );
    def.length = 1.0;
    def.minLength = 0.0;
    def.maxLength = 1e9;
    def.internalValue = CN_SECRET_COOKIE;
    return def;
}

cnPrismaticJointDef cnDefaultPrismaticJointDef( void )
{
    cnPrismaticJointDef def;
    memset( &def, 0, sizeof( def ) );
    def.localAxisA = cnMakeVec3( 1.0, 0.0, 0.0 );
    def.lowerTranslation = -1.0;
    def.upperTranslation = 1.0;
    def.internalValue = CN_SECRET_COOKIE;
    return def;
}

// What every def has, checked against the world.
typedef struct cnJointCommon
{
    cnBodyId bodyA;
    cnBodyId bodyB;
    cnVec3 localAnchorA;
    cnVec3 localAnchorB;
    bool collideConnected;
    void* userData;
    int internalValue;
} cnJointCommon;

static cnStatus cnCheckCommon( const cnWorld* world, const cnJointCommon* c, const char* defaultName,
                               char* message, int size )
{
    if ( c->internalValue != CN_SECRET_COOKIE )
    {
        cnFormat( message, size, "def not initialized with %s()", defaultName );
        return cn_statusInvalidArgument;
    }
    int rowA;
    int rowB;
    cnWorld* worldA = cnGetBodyWorld( c->bodyA, &rowA );
    cnWorld* worldB = cnGetBodyWorld( c->bodyB, &rowB );
    if ( worldA == NULL || worldB == NULL )
    {
        cnFormat( message, size, "%s is a null, stale or forged body id",
                  worldA == NULL ? "bodyA" : "bodyB" );
        return cn_statusInvalidId;
    }
    if ( worldA != world || worldB != world )
    {
        cnFormat( message, size, "%s belongs to another world", worldA != world ? "bodyA" : "bodyB" );
        return cn_statusInvalidArgument;
    }
    if ( rowA == rowB )
    {
        cnFormat( message, size, "bodyA and bodyB are the same body" );
        return cn_statusInvalidArgument;
    }
    if ( world->bodies.type[rowA] != cn_dynamicBody && world->bodies.type[rowB] != cn_dynamicBody )
    {
        cnFormat( message, size,
                  "neither body is dynamic (bodyA is %s, bodyB is %s): the joint would hold nothing",
                  cnTypeName( world->bodies.type[rowA] ), cnTypeName( world->bodies.type[rowB] ) );
        return cn_statusInvalidArgument;
    }
    if ( !cnIsFiniteVec3( c->localAnchorA ) || !cnIsFiniteVec3( c->localAnchorB ) )
    {
        cnFormat( message, size, "%s is not finite",
                  cnIsFiniteVec3( c->localAnchorA ) ? "localAnchorB" : "localAnchorA" );
        return cn_statusNonFinite;
    }
    return cn_statusOk;
}

static cnStatus cnCheckHingeValues( bool enableLimit, double lower, double upper, double speed, double torque,
                                    char* message, int size )
{
    (void)enableLimit;
    if ( !isfinite( lower ) || !isfinite( upper ) || !isfinite( speed ) || !isfinite( torque ) )
    {
        cnFormat( message, size, "%s is not finite",
                  !isfinite( lower )   ? "lowerAngle"
                  : !isfinite( upper ) ? "upperAngle"
                  : !isfinite( speed ) ? "motorSpeed"
                                       : "maxMotorTorque" );
        return cn_statusNonFinite;
    }
    if ( !( lower <= upper ) || lower < -CN_PI || upper > CN_PI )
    {
        cnFormat( message, size,
                  "the limits must satisfy -pi <= lowerAngle <= upperAngle <= pi, got [%g, %g]", lower,
                  upper );
        return cn_statusInvalidArgument;
    }
    if ( torque < 0.0 )
    {
        cnFormat( message, size, "maxMotorTorque must be >= 0, got %g", torque );
        return cn_statusInvalidArgument;
    }
    return cn_statusOk;
}

static cnStatus cnCheckPrismaticValues( double lower, double upper, double speed, double force, char* message,
                                        int size )
{
    if ( !isfinite( lower ) || !isfinite( upper ) || !isfinite( speed ) || !isfinite( force ) )
    {
        cnFormat( message, size, "%s is not finite",
                  !isfinite( lower )   ? "lowerTranslation"
                  : !isfinite( upper ) ? "upperTranslation"
                  : !isfinite( speed ) ? "motorSpeed"
                                       : "maxMotorForce" );
        return cn_statusNonFinite;
    }
    if ( !( lower <= upper ) )
    {
        cnFormat( message, size, "the limits must satisfy lowerTranslation <= upperTranslation, got [%g, %g]",
                  lower, upper );
        return cn_statusInvalidArgument;
    }
    if ( force < 0.0 )
    {
        cnFormat( message, size, "maxMotorForce must be >= 0, got %g", force );
        return cn_statusInvalidArgument;
    }
    return cn_statusOk;
}

static cnStatus cnCheckDistanceValues( double length, double minLength, double maxLength, double hertz,
                                       double dampingRatio, char* message, int size )
{
    if ( !isfinite( length ) || !isfinite( minLength ) || !isfinite( maxLength ) || !isfinite( hertz ) ||
         !isfinite( dampingRatio ) )
    {
        cnFormat( message, size, "%s is not finite",
                  !isfinite( length )      ? "length"
                  : !isfinite( minLength ) ? "minLength"
                  : !isfinite( maxLength ) ? "maxLength"
                  : !isfinite( hertz )     ? "hertz"
                                           : "dampingRatio" );
        return cn_statusNonFinite;
    }
    if ( !( length > 0.0 ) )
    {
        cnFormat( message, size, "length must be > 0, got %g", length );
        return cn_statusInvalidArgument;
    }
    if ( !( 0.0 <= minLength && minLength <= maxLength ) )
    {
        cnFormat( message, size, "the limits must satisfy 0 <= minLength <= maxLength, got [%g, %g]",
                  minLength, maxLength );
        return cn_statusInvalidArgument;
    }
    if ( hertz < 0.0 || dampingRatio < 0.0 )
    {
        cnFormat( message, size, "hertz and dampingRatio must be >= 0, got %g and %g", hertz, dampingRatio );
        return cn_statusInvalidArgument;
    }
    return cn_statusOk;
}

static int cnAllocateJointSlot( cnWorld* world )
{
    if ( world->freeJoint != CN_NULL_INDEX )
    {
        int index = world->freeJoint;
        world->freeJoint = world->joints[index].next;
        return index;
    }
    void* joints = world->joints;
    if ( cnReserve( &world->allocator, &joints, &world->jointCapacity, world->jointSlotCount + 1, 16,
                    sizeof( cnJoint ) ) == false )
    {
        return CN_NULL_INDEX;
    }
    world->joints = joints;
    int index = world->jointSlotCount;
    world->jointSlotCount += 1;
    world->joints[index].generation = world->generation;
    return index;
}

// A joint from `proto` (type and its values set) and the common part: checks, then a slot.
static cnJointId cnCreateJoint( cnWorldId worldId, const char* function, const char* defaultName,
                                const cnJointCommon* common, cnJoint* proto,
                                cnStatus ( *check )( const void* def, char* message, int size ),
                                const void* def )
{
    cnWorld* world = cnGetWorld( worldId );
    if ( world == NULL )
    {
        char text[128];
        cnFormat( text, sizeof( text ), "%s: null, stale or forged world id", function );
        cnDefaultLog( cn_logError, cn_statusInvalidId, text, NULL );
        return cn_nullJointId;
    }
    if ( cnRefuseWhileDestroying( world, function ) )
    {
        return cn_nullJointId;
    }
    if ( world->locked )
    {
        cnLogWorld( world, cn_logError, cn_statusWorldLocked, "%s: called from inside cnWorld_Step",
                    function );
        return cn_nullJointId;
    }
    char message[256];
    cnStatus status = def == NULL ? cn_statusInvalidArgument : cn_statusOk;
    if ( def == NULL )
    {
        cnFormat( message, sizeof( message ), "def is NULL" );
    }
    if ( status == cn_statusOk )
    {
        status = cnCheckCommon( world, common, defaultName, message, sizeof( message ) );
    }
    if ( status == cn_statusOk && check != NULL )
    {
        status = check( def, message, sizeof( message ) );
    }
    if ( status != cn_statusOk )
    {
        cnLogWorld( world, cn_logError, status, "%s: %s", function, message );
        return cn_nullJointId;
    }
    int index = cnAllocateJointSlot( world );
    if ( index == CN_NULL_INDEX )
    {
        cnLogWorld( world, cn_logError, cn_statusOutOfMemory, "%s: out of memory", function );
        return cn_nullJointId;
    }

    cnJoint* joint = world->joints + index;
    uint16_t generation = joint->generation;
    *joint = *proto;
    joint->generation = generation;
    joint->next = CN_NULL_INDEX;
    joint->bodySlotA = common->bodyA.index1 - 1;
    joint->bodySlotB = common->bodyB.index1 - 1;
    joint->localAnchorA = common->localAnchorA;
    joint->localAnchorB = common->localAnchorB;
    joint->collideConnected = common->collideConnected;
    joint->userData = common->userData;
    const cnBodyStore* bodies = &world->bodies;
    cnQuat qA = bodies->transform[cnRowOfSlot( world, joint->bodySlotA )].q;
    cnQuat qB = bodies->transform[cnRowOfSlot( world, joint->bodySlotB )].q;
    joint->referenceRotation = cnNormalizeQuat( cnMulQuat( cnConjugate( qA ), qB ) );
    memset( joint->impulse, 0, sizeof( joint->impulse ) );
    memset( joint->direction, 0, sizeof( joint->direction ) );
    joint->stepTime = 0.0;
    joint->rowCount = 0;
    world->jointCount += 1;
    world->jointPairsDirty = true;
    if ( world->jointCount == 1 )
    {
        cnWarnJointless( world );
    }
    return ( cnJointId ){ index + 1, world->slot, generation };
}

static cnJoint cnJointProto( cnJointType type )
{
    cnJoint joint;
    memset( &joint, 0, sizeof( joint ) );
    joint.type = (uint8_t)type;
    joint.localAxisA = cnMakeVec3( 0.0, 0.0, 1.0 );
    joint.referenceRotation = cn_quatIdentity;
    return joint;
}

#define CN_COMMON_OF( def )                                                                                  \
    ( def ) != NULL ? ( cnJointCommon ){ ( def )->bodyA,                                                     \
                                         ( def )->bodyB,                                                     \
                                         ( def )->localAnchorA,                                              \
                                         ( def )->localAnchorB,                                              \
                                         ( def )->collideConnected,                                          \
                                         ( def )->userData,                                                  \
                                         ( def )->internalValue }                                            \
                    : ( cnJointCommon )                                                                      \
    {                                                                                                        \
        0                                                                                                    \
    }

cnJointId cnCreateBallJoint( cnWorldId worldId, const cnBallJointDef* def )
{
    cnJointCommon common = CN_COMMON_OF( def );
    cnJoint proto = cnJointProto( cn_ballJoint );
    return cnCreateJoint( worldId, "cnCreateBallJoint", "cnDefaultBallJointDef", &common, &proto, NULL, def );
}

// a def's localAxisA: finite and not zero (it is normalised)
static cnStatus cnCheckAxis( cnVec3 axis, char* message, int size )
{
    if ( !cnIsFiniteVec3( axis ) )
    {
        cnFormat( message, size, "localAxisA is not finite" );
        return cn_statusNonFinite;
    }
    if ( !( cnLength( axis ) > 1e-9 ) )
    {
        cnFormat( message, size, "localAxisA must not be zero" );
        return cn_statusInvalidArgument;
    }
    return cn_statusOk;
}

static cnStatus cnCheckHingeDef( const void* d, char* message, int size )
{
    const cnHingeJointDef* def = d;
    cnStatus status = cnCheckAxis( def->localAxisA, message, size );
    if ( status != cn_statusOk )
    {
        return status;
    }
    return cnCheckHingeValues( def->enableLimit, def->lowerAngle, def->upperAngle, def->motorSpeed,
                               def->maxMotorTorque, message, size );
}

// an axis joint's axis, limits and motor (hinge: angles and torque; prismatic: translations and
// force, kept in the same fields)
static void cnAxisProto( cnJoint* proto, cnVec3 axis, cnVec3 fallback, bool enableLimit, double lower,
                         double upper, bool enableMotor, double speed, double load )
{
    proto->localAxisA = cnNormalizeOr( axis, fallback );
    proto->enableLimit = enableLimit;
    proto->lowerAngle = lower;
    proto->upperAngle = upper;
    proto->enableMotor = enableMotor;
    proto->motorSpeed = speed;
    proto->maxMotorTorque = load;
}

cnJointId cnCreateHingeJoint( cnWorldId worldId, const cnHingeJointDef* def )
{
    cnJointCommon common = CN_COMMON_OF( def );
    cnJoint proto = cnJointProto( cn_hingeJoint );
    if ( def != NULL )
    {
        cnAxisProto( &proto, def->localAxisA, cnMakeVec3( 0.0, 0.0, 1.0 ), def->enableLimit, def->lowerAngle,
                     def->upperAngle, def->enableMotor, def->motorSpeed, def->maxMotorTorque );
    }
    return cnCreateJoint( worldId, "cnCreateHingeJoint", "cnDefaultHingeJointDef", &common, &proto,
                          cnCheckHingeDef, def );
}

cnJointId cnCreateFixedJoint( cnWorldId worldId, const cnFixedJointDef* def )
{
    cnJointCommon common = CN_COMMON_OF( def );
    cnJoint proto = cnJointProto( cn_fixedJoint );
    return cnCreateJoint( worldId, "cnCreateFixedJoint", "cnDefaultFixedJointDef", &common, &proto, NULL,
                          def );
}

static cnStatus cnCheckDistanceDef( const void* d, char* message, int size )
{
    const cnDistanceJointDef* def = d;
    return cnCheckDistanceValues( def->length, def->minLength, def->maxLength, def->hertz, def->dampingRatio,
                                  message, size );
}

cnJointId cnCreateDistanceJoint( cnWorldId worldId, const cnDistanceJointDef* def )
{
    cnJointCommon common = CN_COMMON_OF( def );
    cnJoint proto = cnJointProto( cn_distanceJoint );
    if ( def != NULL )
    {
        proto.length = def->length;
        proto.enableLimit = def->enableLimit;
        proto.minLength = def->minLength;
        proto.maxLength = def->maxLength;
        proto.enableSpring = def->enableSpring;
        proto.hertz = def->hertz;
        proto.dampingRatio = def->dampingRatio;
    }
    return cnCreateJoint( worldId, "cnCreateDistanceJoint", "cnDefaultDistanceJointDef", &common, &proto,
                          cnCheckDistanceDef, def );
}

static cnStatus cnCheckPrismaticDef( const void* d, char* message, int size )
{
    const cnPrismaticJointDef* def = d;
    cnStatus status = cnCheckAxis( def->localAxisA, message, size );
    if ( status != cn_statusOk )
    {
        return status;
    }
    return cnCheckPrismaticValues( def->lowerTranslation, def->upperTranslation, def->motorSpeed,
                                   def->maxMotorForce, message, size );
}

cnJointId cnCreatePrismaticJoint( cnWorldId worldId, const cnPrismaticJointDef* def )
{
    cnJointCommon common = CN_COMMON_OF( def );
    cnJoint proto = cnJointProto( cn_prismaticJoint );
    if ( def != NULL )
    {
        cnAxisProto( &proto, def->localAxisA, cnMakeVec3( 1.0, 0.0, 0.0 ), def->enableLimit,
                     def->lowerTranslation, def->upperTranslation, def->enableMotor, def->motorSpeed,
                     def->maxMotorForce );
    }
    return cnCreateJoint( worldId, "cnCreatePrismaticJoint", "cnDefaultPrismaticJointDef", &common, &proto,
                          cnCheckPrismaticDef, def );
}

static void cnFreeJoint( cnWorld* world, int index )
{
    cnJoint* joint = world->joints + index;
    joint->bodySlotA = CN_NULL_INDEX;
    joint->bodySlotB = CN_NULL_INDEX;
    joint->generation = (uint16_t)( joint->generation + 1 );
    if ( joint->generation == 0 )
    {
        joint->generation = 1;
    }
    joint->next = world->freeJoint;
    world->freeJoint = index;
    world->jointCount -= 1;
    world->jointPairsDirty = true;
}

cnStatus cnDestroyJoint( cnJointId jointId )
{
    cnJoint* joint;
    cnWorld* world = cnGetJointWorld( jointId, &joint );
    if ( world == NULL )
    {
        return cn_statusInvalidId;
    }
    if ( cnRefuseWhileDestroying( world, "cnDestroyJoint" ) )
    {
        return cn_statusWorldLocked;
    }
    if ( world->locked )
    {
        cnLogWorld( world, cn_logError, cn_statusWorldLocked,
                    "cnDestroyJoint: called from inside cnWorld_Step" );
        return cn_statusWorldLocked;
    }
    cnFreeJoint( world, jointId.index1 - 1 );
    return cn_statusOk;
}

void cnDestroyBodyJoints( cnWorld* world, int bodySlot )
{
    for ( int i = 0; i < world->jointSlotCount && world->jointCount > 0; ++i )
    {
        const cnJoint* joint = world->joints + i;
        if ( joint->bodySlotA != CN_NULL_INDEX &&
             ( joint->bodySlotA == bodySlot || joint->bodySlotB == bodySlot ) )
        {
            cnFreeJoint( world, i );
        }
    }
}

void cnDestroyJoints( cnWorld* world )
{
    cnFree( &world->allocator, world->joints, (size_t)world->jointCapacity * sizeof( cnJoint ) );
    cnFree( &world->allocator, world->jointPairs, (size_t)world->jointPairCapacity * sizeof( uint64_t ) );
    world->joints = NULL;
    world->jointPairs = NULL;
    world->jointCapacity = 0;
    world->jointPairCapacity = 0;
    world->jointSlotCount = 0;
    world->jointPairCount = 0;
    world->jointCount = 0;
    world->freeJoint = CN_NULL_INDEX;
}

void cnWarnJointless( const cnWorld* world )
{
    if ( world->jointCount == 0 || world->solver == NULL )
    {
        return;
    }
    if ( ( world->solver->caps & cn_solverBilateral ) == 0 )
    {
        cnLogWorld(
            world, cn_logWarning, cn_statusUnsupported,
            "solver '%s' takes no bilateral (joint) rows: the world's %d joints are not solved while it "
            "runs (each step with joints says joints_dropped)",
            world->solver->name, world->jointCount );
    }
    else if ( ( world->solver->caps & cn_solverBounded ) == 0 )
    {
        cnLogWorld( world, cn_logWarning, cn_statusUnsupported,
                    "solver '%s' takes no bounded rows: joint motors are not solved while it runs (each step "
                    "with a motor says joints_dropped)",
                    world->solver->name );
    }
}

// ---- getters and setters --------------------------------------------------------------------------------

cnJointType cnJoint_GetType( cnJointId jointId )
{
    cnJoint* joint;
    return cnGetJointWorld( jointId, &joint ) != NULL ? (cnJointType)joint->type : cn_ballJoint;
}

static cnBodyId cnBodyIdOfSlot( const cnWorld* world, int slot )
{
    return world->bodies.id[cnRowOfSlot( world, slot )];
}

cnBodyId cnJoint_GetBodyA( cnJointId jointId )
{
    cnJoint* joint;
    cnWorld* world = cnGetJointWorld( jointId, &joint );
    return world != NULL ? cnBodyIdOfSlot( world, joint->bodySlotA ) : cn_nullBodyId;
}

cnBodyId cnJoint_GetBodyB( cnJointId jointId )
{
    cnJoint* joint;
    cnWorld* world = cnGetJointWorld( jointId, &joint );
    return world != NULL ? cnBodyIdOfSlot( world, joint->bodySlotB ) : cn_nullBodyId;
}

cnVec3 cnJoint_GetLocalAnchorA( cnJointId jointId )
{
    cnJoint* joint;
    return cnGetJointWorld( jointId, &joint ) != NULL ? joint->localAnchorA : cn_vec3Zero;
}

cnVec3 cnJoint_GetLocalAnchorB( cnJointId jointId )
{
    cnJoint* joint;
    return cnGetJointWorld( jointId, &joint ) != NULL ? joint->localAnchorB : cn_vec3Zero;
}

cnVec3 cnJoint_GetWorldAnchorA( cnJointId jointId )
{
    cnJoint* joint;
    cnWorld* world = cnGetJointWorld( jointId, &joint );
    return world != NULL ? cnMakeJointFrame( world, joint ).pA : cn_vec3Zero;
}

cnVec3 cnJoint_GetWorldAnchorB( cnJointId jointId )
{
    cnJoint* joint;
    cnWorld* world = cnGetJointWorld( jointId, &joint );
    return world != NULL ? cnMakeJointFrame( world, joint ).pB : cn_vec3Zero;
}

bool cnJoint_GetCollideConnected( cnJointId jointId )
{
    cnJoint* joint;
    return cnGetJointWorld( jointId, &joint ) != NULL && joint->collideConnected;
}

void* cnJoint_GetUserData( cnJointId jointId )
{
    cnJoint* joint;
    return cnGetJointWorld( jointId, &joint ) != NULL ? joint->userData : NULL;
}

cnStatus cnJoint_SetUserData( cnJointId jointId, void* userData )
{
    cnJoint* joint;
    if ( cnGetJointWorld( jointId, &joint ) == NULL )
    {
        return cn_statusInvalidId;
    }
    joint->userData = userData;
    return cn_statusOk;
}

double cnJoint_GetConstraintError( cnJointId jointId )
{
    cnJoint* joint;
    cnWorld* world = cnGetJointWorld( jointId, &joint );
    if ( world == NULL )
    {
        return (double)NAN;
    }
    cnJointFrame f = cnMakeJointFrame( world, joint );
    cnVec3 d = cnSub( f.pB, f.pA );
    double distance = cnLength( d );
    if ( joint->type == cn_prismaticJoint )
    {
        // off the axis
        cnVec3 a = cnRotate( f.qA, joint->localAxisA );
        return cnLength( cnMulAdd( d, -cnDot( d, a ), a ) );
    }
    if ( joint->type != cn_distanceJoint )
    {
        return distance;
    }
    if ( joint->enableSpring == false )
    {
        return fabs( distance - joint->length );
    }
    if ( joint->enableLimit == false )
    {
        return 0.0;
    }
    return fmax( 0.0, fmax( joint->minLength - distance, distance - joint->maxLength ) );
}

double cnJoint_GetAngularError( cnJointId jointId )
{
    cnJoint* joint;
    cnWorld* world = cnGetJointWorld( jointId, &joint );
    if ( world == NULL )
    {
        return (double)NAN;
    }
    cnJointFrame f = cnMakeJointFrame( world, joint );
    if ( joint->type == cn_hingeJoint )
    {
        cnVec3 a = cnHingeAxisA( joint, &f );
        cnVec3 b = cnHingeAxisB( joint, &f );
        return atan2( cnLength( cnCross( a, b ) ), cnDot( a, b ) );
    }
    if ( joint->type == cn_fixedJoint || joint->type == cn_prismaticJoint )
    {
        return cnLength( cnJointRotationError( joint, &f ) );
    }
    return 0.0;
}

// rows along an angular direction: hinge rows 3-4 and 6-8, fixed rows 3-5
bool cnSlotIsAngular( const cnJoint* joint, int slot )
{
    return ( slot >= cn_jointSlotAngular && slot < cn_jointSlotLower ) ||
           ( joint->type == cn_hingeJoint && slot >= cn_jointSlotLower );
}

static cnVec3 cnJointReaction( cnJointId jointId, bool angular )
{
    cnJoint* joint;
    if ( cnGetJointWorld( jointId, &joint ) == NULL || !( joint->stepTime > 0.0 ) )
    {
        return cn_vec3Zero;
    }
    cnVec3 sum = cn_vec3Zero;
    for ( int s = 0; s < cn_jointSlotCount; ++s )
    {
        if ( cnSlotIsAngular( joint, s ) == angular )
        {
            sum = cnMulAdd( sum, joint->impulse[s], joint->direction[s] );
        }
    }
    return cnScale( 1.0 / joint->stepTime, sum );
}

cnVec3 cnJoint_GetConstraintForce( cnJointId jointId )
{
    return cnJointReaction( jointId, false );
}

cnVec3 cnJoint_GetConstraintTorque( cnJointId jointId )
{
    return cnJointReaction( jointId, true );
}

// a joint of `type`, or NULL (logged when `function` is not NULL)
static cnJoint* cnGetTypedJoint( cnJointId jointId, cnJointType type, const char* function, cnWorld** world,
                                 cnStatus* status )
{
    cnJoint* joint;
    *world = cnGetJointWorld( jointId, &joint );
    *status = cn_statusOk;
    if ( *world == NULL )
    {
        *status = cn_statusInvalidId;
        return NULL;
    }
    if ( joint->type != type )
    {
        *status = cn_statusInvalidArgument;
        if ( function != NULL )
        {
            cnLogWorld( *world, cn_logError, *status, "%s: the joint is not a %s joint", function,
                        type == cn_hingeJoint      ? "hinge"
                        : type == cn_distanceJoint ? "distance"
                                                   : "prismatic" );
        }
        return NULL;
    }
    return joint;
}

double cnHingeJoint_GetAngle( cnJointId jointId )
{
    cnWorld* world;
    cnStatus status;
    cnJoint* joint = cnGetTypedJoint( jointId, cn_hingeJoint, NULL, &world, &status );
    if ( joint == NULL )
    {
        return 0.0;
    }
    cnJointFrame f = cnMakeJointFrame( world, joint );
    return cnHingeAngle( joint, &f );
}

double cnHingeJoint_GetSpeed( cnJointId jointId )
{
    cnWorld* world;
    cnStatus status;
    cnJoint* joint = cnGetTypedJoint( jointId, cn_hingeJoint, NULL, &world, &status );
    if ( joint == NULL )
    {
        return 0.0;
    }
    cnJointFrame f = cnMakeJointFrame( world, joint );
    cnVec3 a = cnHingeAxisA( joint, &f );
    const cnBodyStore* bodies = &world->bodies;
    return cnDot( a, cnSub( bodies->angularVelocity[f.rowB], bodies->angularVelocity[f.rowA] ) );
}

cnVec3 cnHingeJoint_GetWorldAxis( cnJointId jointId )
{
    cnWorld* world;
    cnStatus status;
    cnJoint* joint = cnGetTypedJoint( jointId, cn_hingeJoint, NULL, &world, &status );
    if ( joint == NULL )
    {
        return cn_vec3Zero;
    }
    cnJointFrame f = cnMakeJointFrame( world, joint );
    return cnHingeAxisA( joint, &f );
}

// A hinge's or prismatic joint's limits (which 0: lower x, upper y), motor speed (1: x) or motor
// torque or force (2: x) changed, checked as at creation and logged when refused
static cnStatus cnSetLimitsMotor( cnJointId jointId, cnJointType type, const char* function, int which,
                                  double x, double y )
{
    cnWorld* world;
    cnStatus status;
    cnJoint* joint = cnGetTypedJoint( jointId, type, function, &world, &status );
    if ( joint == NULL )
    {
        return status;
    }
    double lower = which == 0 ? x : joint->lowerAngle;
    double upper = which == 0 ? y : joint->upperAngle;
    double speed = which == 1 ? x : joint->motorSpeed;
    double load = which == 2 ? x : joint->maxMotorTorque;
    char message[256];
    status =
        type == cn_hingeJoint
            ? cnCheckHingeValues( joint->enableLimit, lower, upper, speed, load, message, sizeof( message ) )
            : cnCheckPrismaticValues( lower, upper, speed, load, message, sizeof( message ) );
    if ( status != cn_statusOk )
    {
        cnLogWorld( world, cn_logError, status, "%s: %s", function, message );
        return status;
    }
    joint->lowerAngle = lower;
    joint->upperAngle = upper;
    joint->motorSpeed = speed;
    joint->maxMotorTorque = load;
    return cn_statusOk;
}

// A hinge's or prismatic joint's limit (motor false) or motor (true) switched on or off
static cnStatus cnEnableLimitMotor( cnJointId jointId, cnJointType type, const char* function, bool motor,
                                    bool enable )
{
    cnWorld* world;
    cnStatus status;
    cnJoint* joint = cnGetTypedJoint( jointId, type, function, &world, &status );
    if ( joint != NULL )
    {
        *( motor ? &joint->enableMotor : &joint->enableLimit ) = enable;
    }
    return status;
}

// the motor's torque (hinge, N m) or force (prismatic, N) of the last substep; 0 without a motor
static double cnMotorLoad( cnJointId jointId, cnJointType type )
{
    cnWorld* world;
    cnStatus status;
    cnJoint* joint = cnGetTypedJoint( jointId, type, NULL, &world, &status );
    if ( joint == NULL || joint->enableMotor == false || !( joint->stepTime > 0.0 ) )
    {
        return 0.0;
    }
    return joint->impulse[cn_jointSlotAxial] / joint->stepTime;
}

cnStatus cnHingeJoint_SetLimits( cnJointId jointId, double lowerAngle, double upperAngle )
{
    return cnSetLimitsMotor( jointId, cn_hingeJoint, "cnHingeJoint_SetLimits", 0, lowerAngle, upperAngle );
}

cnStatus cnHingeJoint_SetMotorSpeed( cnJointId jointId, double motorSpeed )
{
    return cnSetLimitsMotor( jointId, cn_hingeJoint, "cnHingeJoint_SetMotorSpeed", 1, motorSpeed, 0.0 );
}

cnStatus cnHingeJoint_SetMaxMotorTorque( cnJointId jointId, double maxMotorTorque )
{
    return cnSetLimitsMotor( jointId, cn_hingeJoint, "cnHingeJoint_SetMaxMotorTorque", 2, maxMotorTorque,
                             0.0 );
}

cnStatus cnHingeJoint_EnableLimit( cnJointId jointId, bool enable )
{
    return cnEnableLimitMotor( jointId, cn_hingeJoint, "cnHingeJoint_EnableLimit", false, enable );
}

cnStatus cnHingeJoint_EnableMotor( cnJointId jointId, bool enable )
{
    return cnEnableLimitMotor( jointId, cn_hingeJoint, "cnHingeJoint_EnableMotor", true, enable );
}

double cnHingeJoint_GetMotorTorque( cnJointId jointId )
{
    return cnMotorLoad( jointId, cn_hingeJoint );
}

double cnDistanceJoint_GetCurrentLength( cnJointId jointId )
{
    cnWorld* world;
    cnStatus status;
    cnJoint* joint = cnGetTypedJoint( jointId, cn_distanceJoint, NULL, &world, &status );
    if ( joint == NULL )
    {
        return 0.0;
    }
    cnJointFrame f = cnMakeJointFrame( world, joint );
    return cnLength( cnSub( f.pB, f.pA ) );
}

static cnStatus cnSetDistance( cnJointId jointId, const char* function, double length, double minLength,
                               double maxLength, double hertz, double dampingRatio )
{
    cnWorld* world;
    cnStatus status;
    cnJoint* joint = cnGetTypedJoint( jointId, cn_distanceJoint, function, &world, &status );
    if ( joint == NULL )
    {
        return status;
    }
    char message[256];
    status = cnCheckDistanceValues( length, minLength, maxLength, hertz, dampingRatio, message,
                                    sizeof( message ) );
    if ( status != cn_statusOk )
    {
        cnLogWorld( world, cn_logError, status, "%s: %s", function, message );
        return status;
    }
    joint->length = length;
    joint->minLength = minLength;
    joint->maxLength = maxLength;
    joint->hertz = hertz;
    joint->dampingRatio = dampingRatio;
    return cn_statusOk;
}

cnStatus cnDistanceJoint_SetLength( cnJointId jointId, double length )
{
    cnWorld* world;
    cnStatus status;
    cnJoint* joint =
        cnGetTypedJoint( jointId, cn_distanceJoint, "cnDistanceJoint_SetLength", &world, &status );
    return joint == NULL ? status
                         : cnSetDistance( jointId, "cnDistanceJoint_SetLength", length, joint->minLength,
                                          joint->maxLength, joint->hertz, joint->dampingRatio );
}

cnStatus cnDistanceJoint_SetLengthRange( cnJointId jointId, double minLength, double maxLength )
{
    cnWorld* world;
    cnStatus status;
    cnJoint* joint =
        cnGetTypedJoint( jointId, cn_distanceJoint, "cnDistanceJoint_SetLengthRange", &world, &status );
    return joint == NULL ? status
                         : cnSetDistance( jointId, "cnDistanceJoint_SetLengthRange", joint->length, minLength,
                                          maxLength, joint->hertz, joint->dampingRatio );
}

cnStatus cnDistanceJoint_SetSpring( cnJointId jointId, double hertz, double dampingRatio )
{
    cnWorld* world;
    cnStatus status;
    cnJoint* joint =
        cnGetTypedJoint( jointId, cn_distanceJoint, "cnDistanceJoint_SetSpring", &world, &status );
    return joint == NULL ? status
                         : cnSetDistance( jointId, "cnDistanceJoint_SetSpring", joint->length,
                                          joint->minLength, joint->maxLength, hertz, dampingRatio );
}

cnStatus cnDistanceJoint_EnableLimit( cnJointId jointId, bool enable )
{
    cnWorld* world;
    cnStatus status;
    cnJoint* joint =
        cnGetTypedJoint( jointId, cn_distanceJoint, "cnDistanceJoint_EnableLimit", &world, &status );
    if ( joint != NULL )
    {
        joint->enableLimit = enable;
    }
    return status;
}

cnStatus cnDistanceJoint_EnableSpring( cnJointId jointId, bool enable )
{
    cnWorld* world;
    cnStatus status;
    cnJoint* joint =
        cnGetTypedJoint( jointId, cn_distanceJoint, "cnDistanceJoint_EnableSpring", &world, &status );
    if ( joint != NULL )
    {
        joint->enableSpring = enable;
    }
    return status;
}

double cnPrismaticJoint_GetTranslation( cnJointId jointId )
{
    cnWorld* world;
    cnStatus status;
    cnJoint* joint = cnGetTypedJoint( jointId, cn_prismaticJoint, NULL, &world, &status );
    if ( joint == NULL )
    {
        return 0.0;
    }
    cnJointFrame f = cnMakeJointFrame( world, joint );
    return cnDot( cnSub( f.pB, f.pA ), cnRotate( f.qA, joint->localAxisA ) );
}

double cnPrismaticJoint_GetSpeed( cnJointId jointId )
{
    cnWorld* world;
    cnStatus status;
    cnJoint* joint = cnGetTypedJoint( jointId, cn_prismaticJoint, NULL, &world, &status );
    if ( joint == NULL )
    {
        return 0.0;
    }
    cnJointFrame f = cnMakeJointFrame( world, joint );
    const cnBodyStore* bodies = &world->bodies;
    cnVec3 rA = cnSub( f.pB, bodies->center[f.rowA] );
    cnVec3 vA = cnAdd( bodies->linearVelocity[f.rowA], cnCross( bodies->angularVelocity[f.rowA], rA ) );
    cnVec3 vB = cnAdd( bodies->linearVelocity[f.rowB], cnCross( bodies->angularVelocity[f.rowB], f.rB ) );
    return cnDot( cnSub( vB, vA ), cnRotate( f.qA, joint->localAxisA ) );
}

cnStatus cnPrismaticJoint_SetLimits( cnJointId jointId, double lower, double upper )
{
    return cnSetLimitsMotor( jointId, cn_prismaticJoint, "cnPrismaticJoint_SetLimits", 0, lower, upper );
}

cnStatus cnPrismaticJoint_SetMotorSpeed( cnJointId jointId, double motorSpeed )
{
    return cnSetLimitsMotor( jointId, cn_prismaticJoint, "cnPrismaticJoint_SetMotorSpeed", 1, motorSpeed,
                             0.0 );
}

cnStatus cnPrismaticJoint_SetMaxMotorForce( cnJointId jointId, double maxMotorForce )
{
    return cnSetLimitsMotor( jointId, cn_prismaticJoint, "cnPrismaticJoint_SetMaxMotorForce", 2,
                             maxMotorForce, 0.0 );
}

cnStatus cnPrismaticJoint_EnableLimit( cnJointId jointId, bool enable )
{
    return cnEnableLimitMotor( jointId, cn_prismaticJoint, "cnPrismaticJoint_EnableLimit", false, enable );
}

cnStatus cnPrismaticJoint_EnableMotor( cnJointId jointId, bool enable )
{
    return cnEnableLimitMotor( jointId, cn_prismaticJoint, "cnPrismaticJoint_EnableMotor", true, enable );
}

double cnPrismaticJoint_GetMotorForce( cnJointId jointId )
{
    return cnMotorLoad( jointId, cn_prismaticJoint );
}
