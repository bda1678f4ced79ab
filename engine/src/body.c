// SPDX-License-Identifier: MIT
// Bodies: the dense component store and the body API.

#include "core.h"
#include "island.h"
#include "joint.h"
#include "world.h"

#include <string.h>

// component store --------------------------------------------------------------------------------

bool cnBodyStore_Reserve( cnBodyStore* store, const cnAllocator* allocator, int capacity )
{
    if ( capacity <= store->capacity )
    {
        return true;
    }

    // allocate every new array first, so a failure leaves the store as it was
    cnBodyStore grown = *store;
    bool ok = true;
#define CN_GROW( type, name )                                                                                \
    grown.name = ok ? cnRealloc( allocator, NULL, 0, (size_t)capacity * sizeof( type ), 16 ) : NULL;         \
    ok = ok && grown.name != NULL;
    CN_BODY_COMPONENTS( CN_GROW )
#undef CN_GROW

    if ( ok == false )
    {
#define CN_UNDO( type, name )                                                                                \
    cnFree( allocator, grown.name, grown.name != NULL ? (size_t)capacity * sizeof( type ) : 0 );
        CN_BODY_COMPONENTS( CN_UNDO )
#undef CN_UNDO
        return false;
    }

#define CN_MOVE_ARRAY( type, name )                                                                          \
    if ( store->count > 0 )                                                                                  \
    {                                                                                                        \
        memcpy( grown.name, store->name, (size_t)store->count * sizeof( type ) );                            \
    }                                                                                                        \
    cnFree( allocator, store->name, (size_t)store->capacity * sizeof( type ) );
    CN_BODY_COMPONENTS( CN_MOVE_ARRAY )
#undef CN_MOVE_ARRAY

    grown.capacity = capacity;
    *store = grown;
    return true;
}

int cnBodyStore_AddRow( cnBodyStore* store, const cnAllocator* allocator )
{
    if ( store->count == store->capacity )
    {
        int capacity = store->capacity > 0 ? store->capacity + store->capacity / 2 : 16;
        if ( cnBodyStore_Reserve( store, allocator, capacity ) == false )
        {
            return CN_NULL_INDEX;
        }
    }
    int row = store->count;
    store->count += 1;
    return row;
}

int cnBodyStore_RemoveRow( cnBodyStore* store, int row )
{
    CN_ASSERT( 0 <= row && row < store->count );
    int last = store->count - 1;
    store->count = last;
    if ( row == last )
    {
        return CN_NULL_INDEX;
    }

#define CN_MOVE( type, name ) store->name[row] = store->name[last];
    CN_BODY_COMPONENTS( CN_MOVE )
#undef CN_MOVE

    return store->slotOf[row];
}

void cnBodyStore_Destroy( cnBodyStore* store, const cnAllocator* allocator )
{
#define CN_FREE( type, name ) cnFree( allocator, store->name, (size_t)store->capacity * sizeof( type ) );
    CN_BODY_COMPONENTS( CN_FREE )
#undef CN_FREE
    memset( store, 0, sizeof( *store ) );
}

// lookup ----------------------------------------------------------------------------------------

cnWorld* cnGetBodyWorld( cnBodyId bodyId, int* row )
{
    *row = CN_NULL_INDEX;
    cnWorld* world = cnGetWorldFromIndex( bodyId.world0 );
    if ( world == NULL )
    {
        return NULL;
    }
    int slot = bodyId.index1 - 1;
    if ( slot < 0 || slot >= world->slotCount )
    {
        return NULL;
    }
    const cnBodySlot* s = world->slots + slot;
    if ( s->row == CN_NULL_INDEX || s->generation != bodyId.generation )
    {
        return NULL;
    }
    CN_ASSERT( 0 <= s->row && s->row < world->bodies.count && world->bodies.slotOf[s->row] == slot );
    *row = s->row;
    return world;
}

bool cnBody_IsValid( cnBodyId bodyId )
{
    int row;
    return cnGetBodyWorld( bodyId, &row ) != NULL;
}

// creation --------------------------------------------------------------------------------------

// symmetric positive definite, by Sylvester's criterion on the leading minors
static bool cnIsPositiveDefinite( cnMat3 m )
{
    double tol = 1e-12 * ( fabs( m.cx.x ) + fabs( m.cy.y ) + fabs( m.cz.z ) );
    bool symmetric =
        fabs( m.cy.x - m.cx.y ) <= tol && fabs( m.cz.x - m.cx.z ) <= tol && fabs( m.cz.y - m.cy.z ) <= tol;
    double minor2 = m.cx.x * m.cy.y - m.cy.x * m.cx.y;
    return symmetric && m.cx.x > 0.0 && minor2 > 0.0 && cnDeterminant( m ) > 0.0;
}

static cnStatus cnCheckBodyDef( const cnWorld* world, const cnBodyDef* def, char* message, int size )
{
    if ( def == NULL )
    {
        cnFormat( message, size, "def is NULL" );
        return cn_statusInvalidArgument;
    }
    if ( def->internalValue != CN_SECRET_COOKIE )
    {
        cnFormat( message, size, "def not initialized with cnDefaultBodyDef()" );
        return cn_statusInvalidArgument;
    }
    if ( (int)def->type < 0 || def->type >= cn_bodyTypeCount )
    {
        cnFormat( message, size, "type: unknown body type %d", (int)def->type );
        return cn_statusInvalidArgument;
    }

    // every number must be finite
    struct
    {
        const char* name;
        cnVec3 value;
    } vectors[] = {
        { "position", def->position },
        { "linearVelocity", def->linearVelocity },
        { "angularVelocity", def->angularVelocity },
        { "constantForce", def->constantForce },
        { "constantTorque", def->constantTorque },
    };
    for ( int i = 0; i < (int)( sizeof( vectors ) / sizeof( vectors[0] ) ); ++i )
    {
        if ( cnIsFiniteVec3( vectors[i].value ) == false )
        {
            cnFormat( message, size, "%s: not finite (%g, %g, %g)", vectors[i].name, vectors[i].value.x,
                      vectors[i].value.y, vectors[i].value.z );
            return cn_statusNonFinite;
        }
    }
    if ( cnIsFiniteQuat( def->orientation ) == false )
    {
        cnFormat( message, size, "orientation: not finite" );
        return cn_statusNonFinite;
    }
    if ( cnQuatLength( def->orientation ) < 1e-12 )
    {
        cnFormat( message, size, "orientation: the zero quaternion is not a rotation" );
        return cn_statusInvalidArgument;
    }
    struct
    {
        const char* name;
        double value;
    } scalars[] = {
        { "linearDamping", def->linearDamping },
        { "angularDamping", def->angularDamping },
        { "gravityScale", def->gravityScale },
    };
    for ( int i = 0; i < 3; ++i )
    {
        if ( isfinite( scalars[i].value ) == false )
        {
            cnFormat( message, size, "%s: not finite (%g)", scalars[i].name, scalars[i].value );
            return cn_statusNonFinite;
        }
    }
    if ( def->fixedRotation && def->type == cn_dynamicBody &&
         ( def->angularVelocity.x != 0.0 || def->angularVelocity.y != 0.0 || def->angularVelocity.z != 0.0 ) )
    {
        cnFormat( message, size, "angularVelocity: a body with fixedRotation cannot spin, got (%g, %g, %g)",
                  def->angularVelocity.x, def->angularVelocity.y, def->angularVelocity.z );
        return cn_statusInvalidArgument;
    }
    if ( def->linearDamping < 0.0 || def->angularDamping < 0.0 )
    {
        cnFormat( message, size, "damping must be >= 0, got linear %g, angular %g", def->linearDamping,
                  def->angularDamping );
        return cn_statusInvalidArgument;
    }
    if ( def->customMobility )
    {
        if ( cnIsFiniteMat3( def->linearMobility ) == false ||
             cnIsFiniteMat3( def->angularMobility ) == false )
        {
            cnFormat( message, size, "mobility: not finite" );
            return cn_statusNonFinite;
        }
        if ( cnIsPositiveDefinite( def->linearMobility ) == false ||
             cnIsPositiveDefinite( def->angularMobility ) == false )
        {
            cnFormat( message, size, "mobility: must be symmetric positive definite" );
            return cn_statusInvalidArgument;
        }
    }
    if ( def->name != NULL )
    {
        size_t length = strlen( def->name );
        if ( length >= CN_NAME_CAPACITY )
        {
            cnFormat( message, size, "name: longer than %d characters", CN_NAME_CAPACITY - 1 );
            return cn_statusInvalidArgument;
        }
        if ( length > 0 && cnFindNamedSlot( world, def->name ) != CN_NULL_INDEX )
        {
            cnFormat( message, size, "name: a body named '%s' exists already", def->name );
            return cn_statusInvalidArgument;
        }
    }
    return cn_statusOk;
}

// a free slot from the free list, or a new one
static int cnAllocateSlot( cnWorld* world )
{
    if ( world->freeSlot != CN_NULL_INDEX )
    {
        int slot = world->freeSlot;
        world->freeSlot = world->slots[slot].nextFree;
        return slot;
    }
    void* slots = world->slots;
    if ( cnReserve( &world->allocator, &slots, &world->slotCapacity, world->slotCount + 1, 16,
                    sizeof( cnBodySlot ) ) == false )
    {
        return CN_NULL_INDEX;
    }
    world->slots = slots;
    int slot = world->slotCount;
    world->slotCount += 1;
    // a new world reusing this world slot starts its generations elsewhere, which keeps most ids
    // from a destroyed world from matching bodies of the new one
    world->slots[slot].generation = world->generation;
    return slot;
}

cnBodyId cnCreateBody( cnWorldId worldId, const cnBodyDef* def )
{
    cnWorld* world = cnGetWorld( worldId );
    if ( world == NULL )
    {
        cnDefaultLog( cn_logError, cn_statusInvalidId, "cnCreateBody: null, stale or forged world id", NULL );
        return cn_nullBodyId;
    }
    if ( cnRefuseWhileDestroying( world, "cnCreateBody" ) )
    {
        return cn_nullBodyId;
    }

    char message[256];
    cnStatus status = cnCheckBodyDef( world, def, message, sizeof( message ) );
    if ( status != cn_statusOk )
    {
        cnLogWorld( world, cn_logError, status, "cnCreateBody: %s", message );
        return cn_nullBodyId;
    }

    // the name first: the only allocation besides the store
    char* name = NULL;
    size_t nameSize = def->name != NULL && def->name[0] != 0 ? strlen( def->name ) + 1 : 0;
    if ( nameSize > 0 )
    {
        name = cnAlloc( &world->allocator, nameSize, 1 );
        if ( name == NULL )
        {
            cnLogWorld( world, cn_logError, cn_statusOutOfMemory, "cnCreateBody: out of memory" );
            return cn_nullBodyId;
        }
        memcpy( name, def->name, nameSize );
    }

    int slot = cnAllocateSlot( world );
    int row = slot != CN_NULL_INDEX ? cnBodyStore_AddRow( &world->bodies, &world->allocator ) : CN_NULL_INDEX;
    if ( row == CN_NULL_INDEX )
    {
        if ( slot != CN_NULL_INDEX )
        {
            world->slots[slot].row = CN_NULL_INDEX;
            world->slots[slot].nextFree = world->freeSlot;
            world->freeSlot = slot;
        }
        cnFree( &world->allocator, name, nameSize );
        cnLogWorld( world, cn_logError, cn_statusOutOfMemory, "cnCreateBody: out of memory" );
        return cn_nullBodyId;
    }

    cnBodySlot* s = world->slots + slot;
    s->row = row;
    s->nextFree = CN_NULL_INDEX;
    cnBodyId id = { slot + 1, world->slot, s->generation };

    cnBodyStore* b = &world->bodies;
    cnTransform transform = { def->position, cnNormalizeQuat( def->orientation ) };
    b->id[row] = id;
    b->slotOf[row] = slot;
    b->type[row] = def->type;
    b->transform[row] = transform;
    b->center[row] = def->position;
    b->linearVelocity[row] = def->type == cn_staticBody ? cn_vec3Zero : def->linearVelocity;
    b->angularVelocity[row] = def->type == cn_staticBody ? cn_vec3Zero : def->angularVelocity;
    b->force[row] = cn_vec3Zero;
    b->torque[row] = cn_vec3Zero;
    // like cnBody_ApplyForce, only dynamic bodies take forces
    b->constantForce[row] = def->type == cn_dynamicBody ? def->constantForce : cn_vec3Zero;
    b->constantTorque[row] = def->type == cn_dynamicBody ? def->constantTorque : cn_vec3Zero;
    b->safeTransform[row] = transform;
    b->safeCenter[row] = def->position;
    b->safeLinearVelocity[row] = b->linearVelocity[row];
    b->safeAngularVelocity[row] = b->angularVelocity[row];
    b->flaggedStep[row] = -1;
    b->sleepTime[row] = 0.0;
    b->sleepIsland[row] = CN_NULL_INDEX;
    b->sleepNext[row] = CN_NULL_INDEX;
    b->mass[row] = 0.0;
    b->invMass[row] = 0.0;
    b->localCenter[row] = cn_vec3Zero;
    b->inertia[row] = cn_mat3Zero;
    b->invInertia[row] = cn_mat3Zero;
    b->linearMobility[row] = def->linearMobility;
    b->angularMobility[row] = def->angularMobility;
    b->linearDamping[row] = def->linearDamping;
    b->angularDamping[row] = def->angularDamping;
    b->gravityScale[row] = def->gravityScale;
    b->flags[row] = ( def->customMobility ? cn_bodyCustomMobility : 0u ) |
                    ( def->fixedRotation ? cn_bodyFixedRotation : 0u );
    b->headShape[row] = CN_NULL_INDEX;
    b->shapeCount[row] = 0;
    b->name[row] = name;
    b->userData[row] = def->userData;

    if ( name != NULL && cnInsertName( world, slot ) == false )
    {
        // undo: the row is the last one, the slot goes back on the free list
        cnBodyStore_RemoveRow( b, row );
        s->row = CN_NULL_INDEX;
        s->nextFree = world->freeSlot;
        world->freeSlot = slot;
        cnFree( &world->allocator, name, nameSize );
        cnLogWorld( world, cn_logError, cn_statusOutOfMemory, "cnCreateBody: out of memory" );
        return cn_nullBodyId;
    }

    cnUpdateBodyMass( world, row );
    return id;
}

cnStatus cnDestroyBody( cnBodyId bodyId )
{
    int row;
    cnWorld* world = cnGetBodyWorld( bodyId, &row );
    if ( world == NULL )
    {
        return cn_statusInvalidId;
    }
    if ( cnRefuseWhileDestroying( world, "cnDestroyBody" ) )
    {
        return cn_statusWorldLocked;
    }
    if ( world->locked )
    {
        cnLogWorld( world, cn_logError, cn_statusWorldLocked,
                    "cnDestroyBody: called from inside cnWorld_Step" );
        return cn_statusWorldLocked;
    }

    // what rests on the body, or is linked to it, falls again (its island wakes with it)
    cnWakeTouching( world, row );
    int slot = bodyId.index1 - 1;
    cnDestroyBodyJoints( world, slot );
    cnDestroyBodyShapes( world, row );
    cnRemoveName( world, slot );
    char* name = world->bodies.name[row];
    cnFree( &world->allocator, name, name != NULL ? strlen( name ) + 1 : 0 );

    // free the slot: bump its generation so the id goes stale
    cnBodySlot* s = world->slots + slot;
    s->row = CN_NULL_INDEX;
    s->generation = (uint16_t)( s->generation + 1 );
    if ( s->generation == 0 )
    {
        s->generation = 1;
    }
    s->nextFree = world->freeSlot;
    world->freeSlot = slot;

    // swap-remove the row and patch the slot of the body that moved into it
    int movedSlot = cnBodyStore_RemoveRow( &world->bodies, row );
    if ( movedSlot != CN_NULL_INDEX )
    {
        world->slots[movedSlot].row = row;
        // shapes keep their owner by slot, so they need no patching
    }
    return cn_statusOk;
}

// getters and setters ---------------------------------------------------------------------------

cnStatus cnBody_GetState( cnBodyId bodyId, cnBodyState* outState )
{
    int row;
    cnWorld* world = cnGetBodyWorld( bodyId, &row );
    if ( world == NULL || outState == NULL )
    {
        return world == NULL ? cn_statusInvalidId : cn_statusInvalidArgument;
    }
    const cnBodyStore* b = &world->bodies;
    outState->type = b->type[row];
    outState->transform = b->transform[row];
    outState->center = b->center[row];
    outState->linearVelocity = b->linearVelocity[row];
    outState->angularVelocity = b->angularVelocity[row];
    outState->constantForce = b->constantForce[row];
    outState->constantTorque = b->constantTorque[row];
    outState->mass.mass = b->mass[row];
    outState->mass.center = b->localCenter[row];
    outState->mass.inertia = b->inertia[row];
    outState->shapeCount = b->shapeCount[row];
    return cn_statusOk;
}

cnTransform cnBody_GetTransform( cnBodyId bodyId )
{
    int row;
    cnWorld* world = cnGetBodyWorld( bodyId, &row );
    return world != NULL ? world->bodies.transform[row] : cn_transformIdentity;
}

cnVec3 cnBody_GetPosition( cnBodyId bodyId )
{
    return cnBody_GetTransform( bodyId ).p;
}

cnQuat cnBody_GetOrientation( cnBodyId bodyId )
{
    return cnBody_GetTransform( bodyId ).q;
}

cnVec3 cnBody_GetWorldCenter( cnBodyId bodyId )
{
    int row;
    cnWorld* world = cnGetBodyWorld( bodyId, &row );
    return world != NULL ? world->bodies.center[row] : cn_vec3Zero;
}

cnStatus cnBody_SetTransform( cnBodyId bodyId, cnVec3 position, cnQuat orientation )
{
    int row;
    cnWorld* world = cnGetBodyWorld( bodyId, &row );
    if ( world == NULL )
    {
        return cn_statusInvalidId;
    }
    if ( cnIsFiniteVec3( position ) == false || cnIsFiniteQuat( orientation ) == false )
    {
        cnLogWorld( world, cn_logError, cn_statusNonFinite,
                    "cnBody_SetTransform: position or orientation not finite" );
        return cn_statusNonFinite;
    }
    if ( cnQuatLength( orientation ) < 1e-12 )
    {
        cnLogWorld( world, cn_logError, cn_statusInvalidArgument,
                    "cnBody_SetTransform: the zero quaternion is not a rotation" );
        return cn_statusInvalidArgument;
    }
    cnBodyStore* b = &world->bodies;
    b->transform[row].p = position;
    b->transform[row].q = cnNormalizeQuat( orientation );
    b->center[row] = cnTransformPoint( b->transform[row], b->localCenter[row] );
    cnMoveBodyProxies( world, row, cn_vec3Zero );
    cnWakeTouching( world, row );
    return cn_statusOk;
}

cnVec3 cnBody_GetLinearVelocity( cnBodyId bodyId )
{
    int row;
    cnWorld* world = cnGetBodyWorld( bodyId, &row );
    return world != NULL ? world->bodies.linearVelocity[row] : cn_vec3Zero;
}

cnVec3 cnBody_GetAngularVelocity( cnBodyId bodyId )
{
    int row;
    cnWorld* world = cnGetBodyWorld( bodyId, &row );
    return world != NULL ? world->bodies.angularVelocity[row] : cn_vec3Zero;
}

// shared checks of the vector setters: valid id, finite value; returns the row or -1
static cnWorld* cnBodyForVector( cnBodyId bodyId, cnVec3 value, const char* what, int* row, cnStatus* status )
{
    cnWorld* world = cnGetBodyWorld( bodyId, row );
    if ( world == NULL )
    {
        *status = cn_statusInvalidId;
        return NULL;
    }
    if ( cnIsFiniteVec3( value ) == false )
    {
        cnLogWorld( world, cn_logError, cn_statusNonFinite, "%s: value not finite (%g, %g, %g)", what,
                    value.x, value.y, value.z );
        *status = cn_statusNonFinite;
        return NULL;
    }
    *status = cn_statusOk;
    return world;
}

// a change of `value` (not zero) wakes the body's island
static void cnWakeIfNonZero( cnWorld* world, int row, cnVec3 value )
{
    if ( value.x != 0.0 || value.y != 0.0 || value.z != 0.0 )
    {
        cnWakeBody( world, row );
    }
}

cnStatus cnBody_SetLinearVelocity( cnBodyId bodyId, cnVec3 velocity )
{
    int row;
    cnStatus status;
    cnWorld* world = cnBodyForVector( bodyId, velocity, "cnBody_SetLinearVelocity", &row, &status );
    if ( world != NULL && world->bodies.type[row] != cn_staticBody )
    {
        world->bodies.linearVelocity[row] = velocity;
        cnWakeIfNonZero( world, row, velocity );
    }
    return status;
}

cnStatus cnBody_SetAngularVelocity( cnBodyId bodyId, cnVec3 velocity )
{
    int row;
    cnStatus status;
    cnWorld* world = cnBodyForVector( bodyId, velocity, "cnBody_SetAngularVelocity", &row, &status );
    if ( world != NULL && world->bodies.type[row] == cn_dynamicBody &&
         cnIsRotationFixed( &world->bodies, row ) &&
         ( velocity.x != 0.0 || velocity.y != 0.0 || velocity.z != 0.0 ) )
    {
        cnLogWorld( world, cn_logError, cn_statusInvalidArgument,
                    "cnBody_SetAngularVelocity: the body has fixed rotation and cannot spin (%g, %g, %g)",
                    velocity.x, velocity.y, velocity.z );
        return cn_statusInvalidArgument;
    }
    if ( world != NULL && world->bodies.type[row] != cn_staticBody )
    {
        world->bodies.angularVelocity[row] = velocity;
        cnWakeIfNonZero( world, row, velocity );
    }
    return status;
}

cnStatus cnBody_ApplyForce( cnBodyId bodyId, cnVec3 force, cnVec3 worldPoint )
{
    int row;
    cnStatus status;
    cnWorld* world = cnBodyForVector( bodyId, force, "cnBody_ApplyForce", &row, &status );
    if ( world != NULL && cnIsFiniteVec3( worldPoint ) == false )
    {
        cnLogWorld( world, cn_logError, cn_statusNonFinite, "cnBody_ApplyForce: point not finite" );
        return cn_statusNonFinite;
    }
    if ( world != NULL && world->bodies.type[row] == cn_dynamicBody )
    {
        cnBodyStore* b = &world->bodies;
        b->force[row] = cnAdd( b->force[row], force );
        b->torque[row] = cnAdd( b->torque[row], cnCross( cnSub( worldPoint, b->center[row] ), force ) );
        cnWakeIfNonZero( world, row, force );
    }
    return status;
}

cnStatus cnBody_ApplyForceToCenter( cnBodyId bodyId, cnVec3 force )
{
    int row;
    cnStatus status;
    cnWorld* world = cnBodyForVector( bodyId, force, "cnBody_ApplyForceToCenter", &row, &status );
    if ( world != NULL && world->bodies.type[row] == cn_dynamicBody )
    {
        world->bodies.force[row] = cnAdd( world->bodies.force[row], force );
        cnWakeIfNonZero( world, row, force );
    }
    return status;
}

cnStatus cnBody_ApplyTorque( cnBodyId bodyId, cnVec3 torque )
{
    int row;
    cnStatus status;
    cnWorld* world = cnBodyForVector( bodyId, torque, "cnBody_ApplyTorque", &row, &status );
    if ( world != NULL && world->bodies.type[row] == cn_dynamicBody )
    {
        world->bodies.torque[row] = cnAdd( world->bodies.torque[row], torque );
        cnWakeIfNonZero( world, row, torque );
    }
    return status;
}

// Give a dynamic body row the linear impulse `linear` through its centre of mass and the angular
// impulse `angular` (N m s, world frame; the moment of an off-centre impulse included). Inertial
// worlds: the velocities jump, v += J / m and w += I_w^-1 H. Overdamped worlds have no momentum:
// velocity = mobility x force, so a force of total impulse J moves the body by M J at once (the
// integral of the velocity), and turns it by M_ang H. Fixed rotation drops the angular part (the
// inverse inertia and angular mobility act as zero). Refused (nothing changed) when the result is
// not finite.
static cnStatus cnApplyImpulse( cnWorld* world, int row, cnVec3 linear, cnVec3 angular, const char* function )
{
    cnBodyStore* b = &world->bodies;
    if ( b->type[row] != cn_dynamicBody )
    {
        return cn_statusOk;
    }
    cnWakeIfNonZero( world, row, linear );
    cnWakeIfNonZero( world, row, angular );
    cnQuat q = b->transform[row].q;
    bool turns = cnIsRotationFixed( b, row ) == false;

    if ( world->def.dynamics == cn_dynamicsOverdamped )
    {
        cnVec3 move = cnMulMV( cnRotateTensor( q, b->linearMobility[row] ), linear );
        cnVec3 turn = turns ? cnMulMV( cnRotateTensor( q, b->angularMobility[row] ), angular ) : cn_vec3Zero;
        cnVec3 center;
        cnTransform pose = cnAdvanceBody( b, row, move, turn, 1.0, &center );
        if ( cnIsFiniteVec3( center ) == false || cnIsFiniteVec3( pose.p ) == false ||
             cnIsFiniteQuat( pose.q ) == false )
        {
            cnLogWorld( world, cn_logError, cn_statusNonFinite,
                        "%s: the body would move to a non-finite pose", function );
            return cn_statusNonFinite;
        }
        b->transform[row] = pose;
        b->center[row] = center;
        cnMoveBodyProxies( world, row, cn_vec3Zero );
        return cn_statusOk;
    }

    cnVec3 v = cnMulAdd( b->linearVelocity[row], b->invMass[row], linear );
    cnVec3 w = b->angularVelocity[row];
    if ( turns )
    {
        w = cnAdd( w, cnMulMV( cnRotateTensor( q, b->invInertia[row] ), angular ) );
    }
    if ( cnIsFiniteVec3( v ) == false || cnIsFiniteVec3( w ) == false )
    {
        cnLogWorld( world, cn_logError, cn_statusNonFinite, "%s: the velocity would not be finite",
                    function );
        return cn_statusNonFinite;
    }
    b->linearVelocity[row] = v;
    b->angularVelocity[row] = w;
    return cn_statusOk;
}

cnStatus cnBody_ApplyLinearImpulse( cnBodyId bodyId, cnVec3 impulse, cnVec3 worldPoint )
{
    int row;
    cnStatus status;
    cnWorld* world = cnBodyForVector( bodyId, impulse, "cnBody_ApplyLinearImpulse", &row, &status );
    if ( world == NULL )
    {
        return status;
    }
    if ( cnIsFiniteVec3( worldPoint ) == false )
    {
        cnLogWorld( world, cn_logError, cn_statusNonFinite, "cnBody_ApplyLinearImpulse: point not finite" );
        return cn_statusNonFinite;
    }
    cnVec3 moment = cnCross( cnSub( worldPoint, world->bodies.center[row] ), impulse );
    return cnApplyImpulse( world, row, impulse, moment, "cnBody_ApplyLinearImpulse" );
}

cnStatus cnBody_ApplyLinearImpulseToCenter( cnBodyId bodyId, cnVec3 impulse )
{
    int row;
    cnStatus status;
    cnWorld* world = cnBodyForVector( bodyId, impulse, "cnBody_ApplyLinearImpulseToCenter", &row, &status );
    return world != NULL
               ? cnApplyImpulse( world, row, impulse, cn_vec3Zero, "cnBody_ApplyLinearImpulseToCenter" )
               : status;
}

cnStatus cnBody_ApplyAngularImpulse( cnBodyId bodyId, cnVec3 impulse )
{
    int row;
    cnStatus status;
    cnWorld* world = cnBodyForVector( bodyId, impulse, "cnBody_ApplyAngularImpulse", &row, &status );
    return world != NULL ? cnApplyImpulse( world, row, cn_vec3Zero, impulse, "cnBody_ApplyAngularImpulse" )
                         : status;
}

cnStatus cnBody_SetConstantForce( cnBodyId bodyId, cnVec3 force )
{
    int row;
    cnStatus status;
    cnWorld* world = cnBodyForVector( bodyId, force, "cnBody_SetConstantForce", &row, &status );
    if ( world != NULL && world->bodies.type[row] == cn_dynamicBody )
    {
        world->bodies.constantForce[row] = force;
        cnWakeIfNonZero( world, row, force );
    }
    return status;
}

cnVec3 cnBody_GetConstantForce( cnBodyId bodyId )
{
    int row;
    cnWorld* world = cnGetBodyWorld( bodyId, &row );
    return world != NULL ? world->bodies.constantForce[row] : cn_vec3Zero;
}

cnStatus cnBody_SetConstantTorque( cnBodyId bodyId, cnVec3 torque )
{
    int row;
    cnStatus status;
    cnWorld* world = cnBodyForVector( bodyId, torque, "cnBody_SetConstantTorque", &row, &status );
    if ( world != NULL && world->bodies.type[row] == cn_dynamicBody )
    {
        world->bodies.constantTorque[row] = torque;
        cnWakeIfNonZero( world, row, torque );
    }
    return status;
}

cnVec3 cnBody_GetConstantTorque( cnBodyId bodyId )
{
    int row;
    cnWorld* world = cnGetBodyWorld( bodyId, &row );
    return world != NULL ? world->bodies.constantTorque[row] : cn_vec3Zero;
}

cnMassData cnBody_GetMassData( cnBodyId bodyId )
{
    int row;
    cnWorld* world = cnGetBodyWorld( bodyId, &row );
    cnMassData data = { 0.0, cn_vec3Zero, cn_mat3Zero };
    if ( world != NULL )
    {
        data.mass = world->bodies.mass[row];
        data.center = world->bodies.localCenter[row];
        data.inertia = world->bodies.inertia[row];
    }
    return data;
}

cnStatus cnBody_SetMassData( cnBodyId bodyId, const cnMassData* massData )
{
    int row;
    cnWorld* world = cnGetBodyWorld( bodyId, &row );
    if ( world == NULL )
    {
        return cn_statusInvalidId;
    }
    if ( massData == NULL )
    {
        return cn_statusInvalidArgument;
    }
    if ( isfinite( massData->mass ) == false || cnIsFiniteVec3( massData->center ) == false ||
         cnIsFiniteMat3( massData->inertia ) == false )
    {
        cnLogWorld( world, cn_logError, cn_statusNonFinite, "cnBody_SetMassData: not finite" );
        return cn_statusNonFinite;
    }
    if ( massData->mass <= 0.0 || cnIsPositiveDefinite( massData->inertia ) == false )
    {
        cnLogWorld( world, cn_logError, cn_statusInvalidArgument,
                    "cnBody_SetMassData: need mass > 0 and a symmetric positive definite inertia" );
        return cn_statusInvalidArgument;
    }
    cnBodyStore* b = &world->bodies;
    cnWakeBody( world, row );
    b->flags[row] |= cn_bodyCustomMass;
    if ( b->type[row] == cn_dynamicBody )
    {
        b->mass[row] = massData->mass;
        b->invMass[row] = 1.0 / massData->mass;
        b->inertia[row] = massData->inertia;
        b->invInertia[row] = cnIsRotationFixed( b, row ) ? cn_mat3Zero : cnInvertMat3( massData->inertia );
    }
    b->localCenter[row] = massData->center;
    b->center[row] = cnTransformPoint( b->transform[row], massData->center );
    return cn_statusOk;
}

cnStatus cnBody_SetFixedRotation( cnBodyId bodyId, bool fixedRotation )
{
    int row;
    cnWorld* world = cnGetBodyWorld( bodyId, &row );
    if ( world == NULL )
    {
        return cn_statusInvalidId;
    }
    if ( world->locked )
    {
        cnLogWorld( world, cn_logError, cn_statusWorldLocked,
                    "cnBody_SetFixedRotation: called from inside cnWorld_Step" );
        return cn_statusWorldLocked;
    }
    cnBodyStore* b = &world->bodies;
    cnWakeBody( world, row );
    if ( fixedRotation )
    {
        b->flags[row] |= cn_bodyFixedRotation;
    }
    else
    {
        b->flags[row] &= ~(uint32_t)cn_bodyFixedRotation;
    }
    if ( b->type[row] == cn_dynamicBody )
    {
        b->invInertia[row] = fixedRotation ? cn_mat3Zero : cnInvertMat3( b->inertia[row] );
        if ( fixedRotation )
        {
            b->angularVelocity[row] = cn_vec3Zero;
        }
    }
    return cn_statusOk;
}

bool cnBody_IsFixedRotation( cnBodyId bodyId )
{
    int row;
    cnWorld* world = cnGetBodyWorld( bodyId, &row );
    return world != NULL && cnIsRotationFixed( &world->bodies, row );
}

cnStatus cnBody_SetMobility( cnBodyId bodyId, cnMat3 linearMobility, cnMat3 angularMobility )
{
    int row;
    cnWorld* world = cnGetBodyWorld( bodyId, &row );
    if ( world == NULL )
    {
        return cn_statusInvalidId;
    }
    if ( cnIsFiniteMat3( linearMobility ) == false || cnIsFiniteMat3( angularMobility ) == false )
    {
        cnLogWorld( world, cn_logError, cn_statusNonFinite, "cnBody_SetMobility: not finite" );
        return cn_statusNonFinite;
    }
    if ( cnIsPositiveDefinite( linearMobility ) == false || cnIsPositiveDefinite( angularMobility ) == false )
    {
        cnLogWorld( world, cn_logError, cn_statusInvalidArgument,
                    "cnBody_SetMobility: mobility must be symmetric positive definite" );
        return cn_statusInvalidArgument;
    }
    cnWakeBody( world, row );
    world->bodies.linearMobility[row] = linearMobility;
    world->bodies.angularMobility[row] = angularMobility;
    world->bodies.flags[row] |= cn_bodyCustomMobility;
    return cn_statusOk;
}

cnStatus cnBody_GetMobility( cnBodyId bodyId, cnMat3* linearMobility, cnMat3* angularMobility )
{
    int row;
    cnWorld* world = cnGetBodyWorld( bodyId, &row );
    if ( world == NULL )
    {
        return cn_statusInvalidId;
    }
    if ( linearMobility != NULL )
    {
        *linearMobility = world->bodies.linearMobility[row];
    }
    if ( angularMobility != NULL )
    {
        *angularMobility = world->bodies.angularMobility[row];
    }
    return cn_statusOk;
}

// Re-create the broadphase proxies of body `row` (a proxy's tree and pair rule follow its body's
// type). False when out of memory: the shapes after the failing one are left without a proxy, and
// the caller must put the old type back and call this again, which cannot fail (every proxy goes
// back into the arrays and tree it just left).
static bool cnRecreateBodyProxies( cnWorld* world, int row )
{
    bool ok = true;
    for ( int index = cnFirstCollider( world, row ); index != CN_NULL_INDEX;
          index = cnNextCollider( world, index ) )
    {
        cnDestroyShapeProxy( world, index );
        ok = ok && cnCreateShapeProxy( world, index );
    }
    return ok;
}

cnStatus cnBody_SetType( cnBodyId bodyId, cnBodyType type )
{
    int row;
    cnWorld* world = cnGetBodyWorld( bodyId, &row );
    if ( world == NULL )
    {
        return cn_statusInvalidId;
    }
    if ( cnRefuseWhileDestroying( world, "cnBody_SetType" ) )
    {
        return cn_statusWorldLocked;
    }
    if ( world->locked )
    {
        cnLogWorld( world, cn_logError, cn_statusWorldLocked,
                    "cnBody_SetType: called from inside cnWorld_Step" );
        return cn_statusWorldLocked;
    }
    if ( (int)type < 0 || type >= cn_bodyTypeCount )
    {
        cnLogWorld( world, cn_logError, cn_statusInvalidArgument, "cnBody_SetType: unknown body type %d",
                    (int)type );
        return cn_statusInvalidArgument;
    }
    cnBodyStore* b = &world->bodies;
    cnBodyType oldType = b->type[row];
    if ( type == oldType )
    {
        return cn_statusOk;
    }
    if ( type != cn_staticBody )
    {
        for ( int index = b->headShape[row]; index != CN_NULL_INDEX; index = world->shapes[index].next )
        {
            if ( world->shapes[index].geometry.type == cn_planeShape )
            {
                cnLogWorld( world, cn_logError, cn_statusInvalidArgument,
                            "cnBody_SetType: body '%s' has a plane, and planes must be on static bodies",
                            b->name[row] != NULL ? b->name[row] : "" );
                return cn_statusInvalidArgument;
            }
        }
    }

    // a sleeping body wakes before it changes, and so do the bodies touching it
    cnWakeTouching( world, row );

    // the proxies move to the tree and pair rule of the new type; the contacts follow at the
    // next update (a pair the new type cannot have, static with static, ends)
    b->type[row] = type;
    if ( cnRecreateBodyProxies( world, row ) == false )
    {
        b->type[row] = oldType;
        bool restored = cnRecreateBodyProxies( world, row );
        CN_ASSERT( restored );
        (void)restored;
        cnLogWorld( world, cn_logError, cn_statusOutOfMemory, "cnBody_SetType: out of memory" );
        return cn_statusOutOfMemory;
    }

    // as on creation: static bodies do not move, only dynamic ones take forces
    if ( type == cn_staticBody )
    {
        b->linearVelocity[row] = cn_vec3Zero;
        b->angularVelocity[row] = cn_vec3Zero;
    }
    if ( type != cn_dynamicBody )
    {
        b->force[row] = cn_vec3Zero;
        b->torque[row] = cn_vec3Zero;
        b->constantForce[row] = cn_vec3Zero;
        b->constantTorque[row] = cn_vec3Zero;
    }
    else if ( cnIsRotationFixed( b, row ) )
    {
        b->angularVelocity[row] = cn_vec3Zero;
    }
    b->safeLinearVelocity[row] = b->linearVelocity[row];
    b->safeAngularVelocity[row] = b->angularVelocity[row];

    // the mass comes from the shapes again (a dynamic body's; zero for the others)
    b->flags[row] &= ~(uint32_t)cn_bodyCustomMass;
    cnUpdateBodyMass( world, row );
    return cn_statusOk;
}

// shared checks of the scalar setters: valid id, finite value, >= 0 when `nonNegative`
static cnWorld* cnBodyForScalar( cnBodyId bodyId, double value, bool nonNegative, const char* what, int* row,
                                 cnStatus* status )
{
    cnWorld* world = cnGetBodyWorld( bodyId, row );
    if ( world == NULL )
    {
        *status = cn_statusInvalidId;
        return NULL;
    }
    if ( isfinite( value ) == false )
    {
        cnLogWorld( world, cn_logError, cn_statusNonFinite, "%s: value not finite (%g)", what, value );
        *status = cn_statusNonFinite;
        return NULL;
    }
    if ( nonNegative && value < 0.0 )
    {
        cnLogWorld( world, cn_logError, cn_statusInvalidArgument, "%s: must be >= 0, got %g", what, value );
        *status = cn_statusInvalidArgument;
        return NULL;
    }
    *status = cn_statusOk;
    return world;
}

cnStatus cnBody_SetGravityScale( cnBodyId bodyId, double scale )
{
    int row;
    cnStatus status;
    cnWorld* world = cnBodyForScalar( bodyId, scale, false, "cnBody_SetGravityScale", &row, &status );
    if ( world != NULL )
    {
        world->bodies.gravityScale[row] = scale;
        cnWakeBody( world, row );
    }
    return status;
}

double cnBody_GetGravityScale( cnBodyId bodyId )
{
    int row;
    cnWorld* world = cnGetBodyWorld( bodyId, &row );
    return world != NULL ? world->bodies.gravityScale[row] : 0.0;
}

cnStatus cnBody_SetLinearDamping( cnBodyId bodyId, double damping )
{
    int row;
    cnStatus status;
    cnWorld* world = cnBodyForScalar( bodyId, damping, true, "cnBody_SetLinearDamping", &row, &status );
    if ( world != NULL )
    {
        world->bodies.linearDamping[row] = damping;
        cnWakeBody( world, row );
    }
    return status;
}

double cnBody_GetLinearDamping( cnBodyId bodyId )
{
    int row;
    cnWorld* world = cnGetBodyWorld( bodyId, &row );
    return world != NULL ? world->bodies.linearDamping[row] : 0.0;
}

cnStatus cnBody_SetAngularDamping( cnBodyId bodyId, double damping )
{
    int row;
    cnStatus status;
    cnWorld* world = cnBodyForScalar( bodyId, damping, true, "cnBody_SetAngularDamping", &row, &status );
    if ( world != NULL )
    {
        world->bodies.angularDamping[row] = damping;
        cnWakeBody( world, row );
    }
    return status;
}

double cnBody_GetAngularDamping( cnBodyId bodyId )
{
    int row;
    cnWorld* world = cnGetBodyWorld( bodyId, &row );
    return world != NULL ? world->bodies.angularDamping[row] : 0.0;
}

cnBodyType cnBody_GetType( cnBodyId bodyId )
{
    int row;
    cnWorld* world = cnGetBodyWorld( bodyId, &row );
    return world != NULL ? world->bodies.type[row] : cn_staticBody;
}

cnStatus cnBody_SetAwake( cnBodyId bodyId, bool awake )
{
    int row;
    cnWorld* world = cnGetBodyWorld( bodyId, &row );
    if ( world == NULL )
    {
        return cn_statusInvalidId;
    }
    if ( cnRefuseWhileDestroying( world, "cnBody_SetAwake" ) )
    {
        return cn_statusWorldLocked;
    }
    if ( world->locked )
    {
        cnLogWorld( world, cn_logError, cn_statusWorldLocked,
                    "cnBody_SetAwake: called from inside cnWorld_Step" );
        return cn_statusWorldLocked;
    }
    if ( world->bodies.type[row] != cn_dynamicBody )
    {
        return cn_statusOk;
    }
    if ( awake )
    {
        cnWakeBody( world, row );
        return cn_statusOk;
    }
    if ( cnSleepIslandOf( world, row ) == false )
    {
        cnLogWorld( world, cn_logError, cn_statusOutOfMemory, "cnBody_SetAwake: out of memory" );
        return cn_statusOutOfMemory;
    }
    return cn_statusOk;
}

bool cnBody_IsAwake( cnBodyId bodyId )
{
    int row;
    cnWorld* world = cnGetBodyWorld( bodyId, &row );
    if ( world == NULL || world->bodies.type[row] == cn_staticBody )
    {
        return false;
    }
    return cnIsBodyAsleep( &world->bodies, row ) == false;
}

const char* cnBody_GetName( cnBodyId bodyId )
{
    int row;
    cnWorld* world = cnGetBodyWorld( bodyId, &row );
    return world != NULL && world->bodies.name[row] != NULL ? world->bodies.name[row] : "";
}

void* cnBody_GetUserData( cnBodyId bodyId )
{
    int row;
    cnWorld* world = cnGetBodyWorld( bodyId, &row );
    return world != NULL ? world->bodies.userData[row] : NULL;
}

cnStatus cnBody_SetUserData( cnBodyId bodyId, void* userData )
{
    int row;
    cnWorld* world = cnGetBodyWorld( bodyId, &row );
    if ( world == NULL )
    {
        return cn_statusInvalidId;
    }
    world->bodies.userData[row] = userData;
    return cn_statusOk;
}

double cnBodyStore_KineticEnergy( const cnBodyStore* store, int row )
{
    if ( store->type[row] != cn_dynamicBody )
    {
        return 0.0;
    }
    cnVec3 w = store->angularVelocity[row];
    cnMat3 inertia = cnRotateTensor( store->transform[row].q, store->inertia[row] );
    return 0.5 * store->mass[row] * cnLengthSquared( store->linearVelocity[row] ) +
           0.5 * cnDot( w, cnMulMV( inertia, w ) );
}

double cnBody_GetKineticEnergy( cnBodyId bodyId )
{
    int row;
    cnWorld* world = cnGetBodyWorld( bodyId, &row );
    return world != NULL ? cnBodyStore_KineticEnergy( &world->bodies, row ) : 0.0;
}

int cnBody_GetShapes( cnBodyId bodyId, cnShapeId* shapeIds, int capacity )
{
    int row;
    cnWorld* world = cnGetBodyWorld( bodyId, &row );
    if ( world == NULL )
    {
        return 0;
    }
    // the list is newest first; hand ids out in creation order
    int count = world->bodies.shapeCount[row];
    int index = world->bodies.headShape[row];
    for ( int k = count - 1; k >= 0 && index != CN_NULL_INDEX; --k )
    {
        if ( shapeIds != NULL && k < capacity )
        {
            cnShapeId id = { index + 1, world->slot, world->shapes[index].generation };
            shapeIds[k] = id;
        }
        index = world->shapes[index].next;
    }
    return count;
}
