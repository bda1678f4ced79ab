// SPDX-License-Identifier: MIT
// Contacts: shape proxies in the broadphase, the contact cache and its events. See contact.h.

#include "contact.h"

#include "ccd_support.h"
#include "core.h"
#include "island.h"
#include "joint.h"
#include "narrow_phase.h"
#include "world.h"

#include <stdlib.h>
#include <string.h>

// Multisphere worlds: one sub-sphere contact's touching before and after an update, under the pair
// of shapes the user knows (shapeA < shapeB, by index then generation).
typedef struct cnOwnerTouch
{
    int shapeA;
    int shapeB;
    uint16_t generationA;
    uint16_t generationB;
    bool before;
    bool after;
} cnOwnerTouch;

void cnCreateContactSet( cnWorld* world )
{
    cnContactSet* set = &world->contacts;
    memset( set, 0, sizeof( *set ) );
    cnCreateBroadPhase( &set->broadPhase, &world->allocator );
    cnBroadPhase_SetMargin( &set->broadPhase, world->def.aabbMargin );
}

void cnDestroyContactSet( cnWorld* world )
{
    cnContactSet* set = &world->contacts;
    const cnAllocator* allocator = &world->allocator;
    cnBroadPhase_FreePairArray( &set->broadPhase, &set->pairs, &set->pairCapacity );
    cnDestroyBroadPhase( &set->broadPhase );
    cnFree( allocator, set->contacts, (size_t)set->capacity * sizeof( cnContact ) );
    cnFree( allocator, set->spare, (size_t)set->spareCapacity * sizeof( cnContact ) );
    cnFree( allocator, set->sources, (size_t)set->sourceCapacity * sizeof( int ) );
    cnFree( allocator, set->beginEvents, (size_t)set->beginCapacity * sizeof( cnContactEvent ) );
    cnFree( allocator, set->endEvents, (size_t)set->endCapacity * sizeof( cnContactEvent ) );
    cnFree( allocator, set->ownerTouches, (size_t)set->ownerTouchCapacity * sizeof( cnOwnerTouch ) );
    cnFree( allocator, set->hitEvents, (size_t)set->hitCapacity * sizeof( cnContactHitEvent ) );
    for ( int i = 0; i < set->sensorCount; ++i )
    {
        cnFree( allocator, set->sensors[i].overlaps,
                (size_t)set->sensors[i].overlapCapacity * sizeof( cnSensorVisitor ) );
    }
    cnFree( allocator, set->sensors, (size_t)set->sensorCapacity * sizeof( cnSensor ) );
    cnFree( allocator, set->sensorBeginEvents, (size_t)set->sensorBeginCapacity * sizeof( cnSensorEvent ) );
    cnFree( allocator, set->sensorEndEvents, (size_t)set->sensorEndCapacity * sizeof( cnSensorEvent ) );
    cnFree( allocator, set->retiredEnds, (size_t)set->retiredCapacity * sizeof( cnSensorEvent ) );
    cnFree( allocator, set->candidates, (size_t)set->candidateCapacity * sizeof( cnSensorVisitor ) );
    memset( set, 0, sizeof( *set ) );
}

// proxies ---------------------------------------------------------------------------------------

cnCollisionShape cnPlaceShape( const cnWorld* world, int shapeIndex )
{
    const cnShape* shape = world->shapes + shapeIndex;
    int row = world->slots[shape->bodySlot].row;
    cnCollisionShape placed;
    placed.geometry = &shape->geometry;
    placed.hull = shape->hull;
    // the product with the identity would give the body's own pose, bit for bit (up to the sign of a
    // zero), at the cost of a quaternion product
    placed.transform = shape->atBodyOrigin
                           ? world->bodies.transform[row]
                           : cnMulTransforms( world->bodies.transform[row], shape->localPose );
    return placed;
}

static cnProxyKind cnProxyKindOf( cnBodyType type )
{
    return type == cn_staticBody      ? cn_proxyStatic
           : type == cn_kinematicBody ? cn_proxyKinematic
                                      : cn_proxyDynamic;
}

bool cnCreateShapeProxy( cnWorld* world, int shapeIndex )
{
    cnShape* shape = world->shapes + shapeIndex;
    int row = world->slots[shape->bodySlot].row;
    cnCollisionShape placed = cnPlaceShape( world, shapeIndex );
    cnProxyDef def;
    memset( &def, 0, sizeof( def ) );
    def.aabb = cnComputeAABB( &placed );
    def.kind = cnProxyKindOf( world->bodies.type[row] );
    def.shapeIndex = shapeIndex;
    def.bodyKey = shape->bodySlot;
    def.categoryBits = shape->categoryBits;
    def.maskBits = shape->maskBits;
    shape->proxyKey = cnBroadPhase_CreateProxy( &world->contacts.broadPhase, &def );
    return shape->proxyKey != CN_NULL_INDEX;
}

void cnDestroyShapeProxy( cnWorld* world, int shapeIndex )
{
    cnShape* shape = world->shapes + shapeIndex;
    if ( shape->proxyKey != CN_NULL_INDEX )
    {
        cnBroadPhase_DestroyProxy( &world->contacts.broadPhase, shape->proxyKey );
        shape->proxyKey = CN_NULL_INDEX;
    }
}

static void cnMoveShapeProxy( cnWorld* world, int shapeIndex, cnVec3 displacement )
{
    cnCollisionShape placed = cnPlaceShape( world, shapeIndex );
    cnAABB box = cnComputeAABB( &placed );
    if ( cnAABB_IsValid( box ) )
    {
        cnBroadPhase_MoveProxyPredicted( &world->contacts.broadPhase, world->shapes[shapeIndex].proxyKey, box,
                                         displacement );
    }
}

// a shape, or its first sub-sphere when it has them
static int cnColliderOf( const cnWorld* world, int shapeIndex )
{
    if ( shapeIndex != CN_NULL_INDEX && world->shapes[shapeIndex].firstChild != CN_NULL_INDEX )
    {
        return world->shapes[shapeIndex].firstChild;
    }
    return shapeIndex;
}

int cnFirstCollider( const cnWorld* world, int row )
{
    return cnColliderOf( world, world->bodies.headShape[row] );
}

int cnNextCollider( const cnWorld* world, int shapeIndex )
{
    const cnShape* shape = world->shapes + shapeIndex;
    if ( shape->next != CN_NULL_INDEX )
    {
        return cnColliderOf( world, shape->next ); // the next sub-sphere, or the body's next shape
    }
    // after a shape's last sub-sphere, the body's shape after that shape
    return shape->parent != CN_NULL_INDEX ? cnColliderOf( world, world->shapes[shape->parent].next )
                                          : CN_NULL_INDEX;
}

void cnMoveBodyProxies( cnWorld* world, int row, cnVec3 displacement )
{
    // the step puts back bodies that are not finite before they get here (world.c); between steps
    // (cnWorld_UpdateContacts after a bulk write) a body that is not finite keeps its old boxes
    if ( cnIsFiniteVec3( displacement ) == false )
    {
        displacement = cn_vec3Zero;
    }
    // a shape with sub-spheres (multisphere worlds) has no proxy: theirs move
    for ( int index = cnFirstCollider( world, row ); index != CN_NULL_INDEX;
          index = cnNextCollider( world, index ) )
    {
        cnMoveShapeProxy( world, index, displacement );
    }
}

// the update ------------------------------------------------------------------------------------

static cnShapeId cnShapeIdOf( const cnWorld* world, int shapeIndex, uint16_t generation )
{
    cnShapeId id = { shapeIndex + 1, world->slot, generation };
    return id;
}

static bool cnPushEvent( cnWorld* world, cnContactEvent** events, int* count, int* capacity,
                         cnContactEvent event )
{
    void* block = *events;
    bool pushed = cnAppendItem( &world->allocator, &block, count, capacity, 64, &event, sizeof( event ) );
    *events = block;
    return pushed;
}

// a contact whose shapes are still the ones it was made for
static bool cnContactIsCurrent( const cnWorld* world, const cnContact* contact )
{
    const cnShape* a = world->shapes + contact->shapeA;
    const cnShape* b = world->shapes + contact->shapeB;
    return a->bodySlot != CN_NULL_INDEX && b->bodySlot != CN_NULL_INDEX &&
           a->generation == contact->generationA && b->generation == contact->generationB;
}

// the shapes the user knows of a new contact: a sub-sphere stands for its parent
static void cnSetContactOwners( const cnWorld* world, cnContact* contact )
{
    int parentA = world->shapes[contact->shapeA].parent;
    int parentB = world->shapes[contact->shapeB].parent;
    contact->ownerA = parentA != CN_NULL_INDEX ? parentA : contact->shapeA;
    contact->ownerB = parentB != CN_NULL_INDEX ? parentB : contact->shapeB;
    contact->ownerGenerationA = world->shapes[contact->ownerA].generation;
    contact->ownerGenerationB = world->shapes[contact->ownerB].generation;
}

static bool cnIsSubSphereContact( const cnContact* contact )
{
    return contact->ownerA != contact->shapeA || contact->ownerB != contact->shapeB;
}

static void cnRecordOwnerTouch( cnContactSet* set, int* count, const cnContact* contact, bool before,
                                bool after )
{
    CN_ASSERT( *count < set->ownerTouchCapacity );
    bool swap = contact->ownerA > contact->ownerB;
    cnOwnerTouch* touch = set->ownerTouches + *count;
    touch->shapeA = swap ? contact->ownerB : contact->ownerA;
    touch->shapeB = swap ? contact->ownerA : contact->ownerB;
    touch->generationA = swap ? contact->ownerGenerationB : contact->ownerGenerationA;
    touch->generationB = swap ? contact->ownerGenerationA : contact->ownerGenerationB;
    touch->before = before;
    touch->after = after;
    *count += 1;
}

static int cnCompareOwnerTouch( const void* left, const void* right )
{
    const cnOwnerTouch* a = left;
    const cnOwnerTouch* b = right;
    int keysA[4] = { a->shapeA, a->generationA, a->shapeB, a->generationB };
    int keysB[4] = { b->shapeA, b->generationA, b->shapeB, b->generationB };
    for ( int k = 0; k < 4; ++k )
    {
        if ( keysA[k] != keysB[k] )
        {
            return keysA[k] < keysB[k] ? -1 : 1;
        }
    }
    return 0;
}

// One begin event per pair of user shapes whose sub-spheres had no point and now have one, one end
// event per pair that had points and has none now.
static void cnRaiseOwnerEvents( cnWorld* world, int count )
{
    cnContactSet* set = &world->contacts;
    qsort( set->ownerTouches, (size_t)count, sizeof( cnOwnerTouch ), cnCompareOwnerTouch );
    for ( int first = 0; first < count; )
    {
        const cnOwnerTouch* touch = set->ownerTouches + first;
        bool before = false;
        bool after = false;
        int next = first;
        while ( next < count && cnCompareOwnerTouch( touch, set->ownerTouches + next ) == 0 )
        {
            before = before || set->ownerTouches[next].before;
            after = after || set->ownerTouches[next].after;
            next += 1;
        }
        cnContactEvent event = { cnShapeIdOf( world, touch->shapeA, touch->generationA ),
                                 cnShapeIdOf( world, touch->shapeB, touch->generationB ) };
        if ( after && before == false )
        {
            cnPushEvent( world, &set->beginEvents, &set->beginCount, &set->beginCapacity, event );
        }
        else if ( before && after == false )
        {
            cnPushEvent( world, &set->endEvents, &set->endCount, &set->endCapacity, event );
        }
        first = next;
    }
}

static int cnComparePair( int a0, int b0, int a1, int b1 )
{
    if ( a0 != a1 )
    {
        return a0 < a1 ? -1 : 1;
    }
    return b0 < b1 ? -1 : b0 > b1 ? 1 : 0;
}

// a new point with no old point of its id takes the impulse of the nearest old point left over
// within this distance, m, measured on shape A's surface in A's frame: a corner of an incident face
// that is clipped by a hair (two aligned boxes of the same size) changes its id from step to step
// without moving, and losing its impulse each time lets a tall stack sink on one side and rock
#define CN_MATCH_DISTANCE 0.01

// carry warm-start impulses from the old points to the new ones: same feature id first, then the
// nearest unclaimed old point
static void cnMatchImpulses( cnContact* contact, const cnManifold* old, const double* oldNormal,
                             const cnVec3* oldTangent )
{
    bool claimed[CN_MAX_MANIFOLD_POINTS] = { false };
    bool matched[CN_MAX_MANIFOLD_POINTS] = { false };
    for ( int i = 0; i < contact->manifold.pointCount; ++i )
    {
        contact->normalImpulse[i] = 0.0;
        contact->tangentImpulse[i] = cn_vec3Zero;
        for ( int j = 0; j < old->pointCount; ++j )
        {
            if ( claimed[j] == false && old->points[j].id == contact->manifold.points[i].id )
            {
                contact->normalImpulse[i] = oldNormal[j];
                contact->tangentImpulse[i] = oldTangent[j];
                claimed[j] = true;
                matched[i] = true;
                break;
            }
        }
    }
    for ( int i = 0; i < contact->manifold.pointCount; ++i )
    {
        if ( matched[i] )
        {
            continue;
        }
        int nearest = -1;
        double best = CN_MATCH_DISTANCE * CN_MATCH_DISTANCE;
        for ( int j = 0; j < old->pointCount; ++j )
        {
            double d2 = cnLengthSquared( cnSub( old->points[j].localA, contact->manifold.points[i].localA ) );
            if ( claimed[j] == false && d2 < best )
            {
                best = d2;
                nearest = j;
            }
        }
        if ( nearest >= 0 )
        {
            contact->normalImpulse[i] = oldNormal[nearest];
            contact->tangentImpulse[i] = oldTangent[nearest];
            claimed[nearest] = true;
        }
    }
}

void cnClearContactEvents( cnWorld* world )
{
    world->contacts.beginCount = 0;
    world->contacts.endCount = 0;
    world->contacts.hitCount = 0;
    world->contacts.sensorBeginCount = 0;
    world->contacts.sensorEndCount = 0;
}

// contacts a worker of the narrowphase takes at a time
#define CN_COLLIDE_RANGE 16

// what the narrowphase did to a contact (cnContact.collided)
enum
{
    cn_collideKept = 0, // both bodies still (static or sleeping): the manifold kept
    cn_collideOk,
    cn_collideUnsupported,
    cn_collideNonFinite,
};

static bool cnBothStill( const cnBodyStore* b, int rowA, int rowB )
{
    bool stillA = b->type[rowA] == cn_staticBody || cnIsBodyAsleep( b, rowA );
    bool stillB = b->type[rowB] == cn_staticBody || cnIsBodyAsleep( b, rowB );
    return stillA && stillB;
}

// One contact's pair function at the current poses, its points in feature-id order and its
// impulses matched to them. Touches nothing but the contact, so contacts run in parallel.
static uint8_t cnCollideContact( const cnWorld* world, cnContact* contact )
{
    cnManifold previous = contact->manifold;
    double oldNormal[CN_MAX_MANIFOLD_POINTS];
    cnVec3 oldTangent[CN_MAX_MANIFOLD_POINTS];
    memcpy( oldNormal, contact->normalImpulse, sizeof( oldNormal ) );
    memcpy( oldTangent, contact->tangentImpulse, sizeof( oldTangent ) );

    cnCollisionShape a = cnPlaceShape( world, contact->shapeA );
    cnCollisionShape bShape = cnPlaceShape( world, contact->shapeB );
    cnStatus status = cnCollide( &a, &bShape, world->def.contactMargin,
                                 previous.pointCount > 0 ? &previous : NULL, &contact->manifold );
    // points in feature-id order: the solver meets them in the same order every step
    cnManifold* m = &contact->manifold;
    for ( int k = 1; k < m->pointCount; ++k )
    {
        cnManifoldPoint point = m->points[k];
        int j = k - 1;
        while ( j >= 0 && m->points[j].id > point.id )
        {
            m->points[j + 1] = m->points[j];
            j -= 1;
        }
        m->points[j + 1] = point;
    }
    cnMatchImpulses( contact, &previous, oldNormal, oldTangent );
    return status == cn_statusUnsupported ? cn_collideUnsupported
           : status == cn_statusNonFinite ? cn_collideNonFinite
                                          : cn_collideOk;
}

// The narrowphase's loop: the old contacts the merge kept are copied into the new list first (when
// the list changed), by the worker that then collides them, so that each contact is written once a
// step and by the thread that goes on to read it.
typedef struct cnCollideLoop
{
    const cnWorld* world;
    const cnContact* previous; // the last list, or NULL when the merge kept it as it was
} cnCollideLoop;

static void cnCollideTask( int start, int end, int worker, void* context )
{
    (void)worker;
    const cnCollideLoop* loop = context;
    const cnWorld* world = loop->world;
    cnContactSet* set = (cnContactSet*)&world->contacts;
    for ( int i = start; i < end; ++i )
    {
        cnContact* contact = set->contacts + i;
        if ( loop->previous != NULL && set->sources[i] >= 0 )
        {
            *contact = loop->previous[set->sources[i]];
        }
        int rowA = world->slots[world->shapes[contact->shapeA].bodySlot].row;
        int rowB = world->slots[world->shapes[contact->shapeB].bodySlot].row;
        contact->collided =
            cnBothStill( &world->bodies, rowA, rowB ) ? cn_collideKept : cnCollideContact( world, contact );
    }
}

cnStatus cnUpdateContacts( cnWorld* world, double timeStep )
{
    cnContactSet* set = &world->contacts;
    cnBodyStore* b = &world->bodies;
    cnStepReport* report = &world->report;

    // 3 broadphase: moving shapes to their current boxes; a box that must be re-inserted is
    // stretched along the motion expected over the next step (sleeping bodies do not move)
    for ( int row = 0; row < b->count; ++row )
    {
        if ( b->type[row] != cn_staticBody && cnIsBodyAsleep( b, row ) == false )
        {
            cnMoveBodyProxies( world, row, cnScale( timeStep, b->linearVelocity[row] ) );
        }
    }
    int pairCount = cnBroadPhase_UpdatePairs( &set->broadPhase, &set->pairs, &set->pairCapacity );
    if ( pairCount < 0 )
    {
        return cn_statusOutOfMemory;
    }
    if ( world->jointCount > 0 )
    {
        // the bodies of a joint do not collide unless it says so (cnJointDef.collideConnected)
        int kept = 0;
        for ( int p = 0; p < pairCount; ++p )
        {
            cnPair pair = set->pairs[p];
            if ( cnJointsFilterPair( world, world->shapes[pair.shapeA].bodySlot,
                                     world->shapes[pair.shapeB].bodySlot ) == false )
            {
                set->pairs[kept++] = pair;
            }
        }
        pairCount = kept;
    }
    if ( set->sensorCount > 0 )
    {
        // a sensor has no contacts: the sensor pass finds its overlaps (cnUpdateSensors)
        int kept = 0;
        for ( int p = 0; p < pairCount; ++p )
        {
            cnPair pair = set->pairs[p];
            if ( world->shapes[pair.shapeA].isSensor == false &&
                 world->shapes[pair.shapeB].isSensor == false )
            {
                set->pairs[kept++] = pair;
            }
        }
        pairCount = kept;
    }
    report->pairCount = pairCount;

    // merge the sorted pair list with the sorted contacts into the spare list
    void* spare = set->spare;
    if ( cnReserve( &world->allocator, &spare, &set->spareCapacity, pairCount, 64, sizeof( cnContact ) ) ==
         false )
    {
        return cn_statusOutOfMemory;
    }
    set->spare = spare;
    void* sources = set->sources;
    if ( cnReserve( &world->allocator, &sources, &set->sourceCapacity, pairCount, 64, sizeof( int ) ) ==
         false )
    {
        return cn_statusOutOfMemory;
    }
    set->sources = sources;

    // multisphere worlds: room to record every sub-sphere contact, old and new
    int touchCount = 0;
    if ( world->def.multisphere > 0 )
    {
        void* touches = set->ownerTouches;
        if ( cnReserve( &world->allocator, &touches, &set->ownerTouchCapacity, set->count + pairCount, 64,
                        sizeof( cnOwnerTouch ) ) == false )
        {
            return cn_statusOutOfMemory;
        }
        set->ownerTouches = touches;
    }

    int next = 0;
    int old = 0;
    bool unchanged = true; // every old contact kept, in place, and no new one
    for ( int p = 0; p < pairCount || old < set->count; )
    {
        const cnContact* existing = old < set->count ? set->contacts + old : NULL;
        int order = 1;
        if ( existing != NULL && p < pairCount )
        {
            order = cnComparePair( existing->shapeA, existing->shapeB, set->pairs[p].shapeA,
                                   set->pairs[p].shapeB );
        }
        else if ( existing == NULL )
        {
            order = 1;
        }
        else
        {
            order = -1;
        }

        if ( order < 0 || ( order == 0 && cnContactIsCurrent( world, existing ) == false ) )
        {
            // the pair is gone (or its shapes are not the same any more): the contact ends
            if ( ( existing->flags & cn_contactTouching ) && cnIsSubSphereContact( existing ) )
            {
                cnRecordOwnerTouch( set, &touchCount, existing, true, false );
            }
            else if ( existing->flags & cn_contactTouching )
            {
                cnContactEvent event = { cnShapeIdOf( world, existing->shapeA, existing->generationA ),
                                         cnShapeIdOf( world, existing->shapeB, existing->generationB ) };
                cnPushEvent( world, &set->endEvents, &set->endCount, &set->endCapacity, event );
            }
            old += 1;
            if ( order < 0 )
            {
                continue;
            }
        }

        cnContact* contact = set->spare + next;
        if ( order == 0 && cnContactIsCurrent( world, existing ) )
        {
            // copied by the narrowphase's worker (cnCollideTask)
            set->sources[next] = old;
            unchanged = unchanged && old == next;
            old += 1;
        }
        else
        {
            set->sources[next] = -1;
            unchanged = false;
            memset( contact, 0, sizeof( *contact ) );
            contact->shapeA = set->pairs[p].shapeA;
            contact->shapeB = set->pairs[p].shapeB;
            contact->generationA = world->shapes[contact->shapeA].generation;
            contact->generationB = world->shapes[contact->shapeB].generation;
            cnSetContactOwners( world, contact );
        }
        p += 1;
        next += 1;
    }

    // the same pairs as before, in the same places: the list stays where it is
    cnCollideLoop loop = { world, NULL };
    unchanged = unchanged && next == set->count;
    if ( unchanged == false )
    {
        cnContact* swap = set->contacts;
        int swapCapacity = set->capacity;
        set->contacts = set->spare;
        set->capacity = set->spareCapacity;
        set->count = next;
        set->spare = swap;
        set->spareCapacity = swapCapacity;
        loop.previous = swap;
    }

    // 4 narrowphase: refresh every manifold; impulses follow their points by feature id. The pair
    // functions run in parallel (each contact on its own); what they report and what follows from
    // them (warnings, events, waking) is read in contact order below.
    int points = 0;
    int manifolds = 0;
    double deepest = 0.0;
    cnParallelFor( &world->tasks, cnCollideTask, set->count, CN_COLLIDE_RANGE, &loop );
    for ( int i = 0; i < set->count; ++i )
    {
        cnContact* contact = set->contacts + i;
        int rowA = world->slots[world->shapes[contact->shapeA].bodySlot].row;
        int rowB = world->slots[world->shapes[contact->shapeB].bodySlot].row;
        if ( contact->collided == cn_collideKept && cnBothStill( b, rowA, rowB ) == false )
        {
            // an earlier contact of this loop woke one of the bodies: collide it now, as a
            // contact of an awake body
            contact->collided = cnCollideContact( world, contact );
        }
        if ( contact->collided == cn_collideKept )
        {
            // two sleeping bodies, or a sleeping one and a static one: nothing moved, the manifold
            // and its impulses are kept as they are
            if ( contact->manifold.pointCount > 0 )
            {
                manifolds += 1;
                points += contact->manifold.pointCount;
                for ( int k = 0; k < contact->manifold.pointCount; ++k )
                {
                    deepest = fmax( deepest, -contact->manifold.points[k].separation );
                }
            }
            continue;
        }
        cnStatus status = contact->collided == cn_collideUnsupported ? cn_statusUnsupported
                          : contact->collided == cn_collideNonFinite ? cn_statusNonFinite
                                                                     : cn_statusOk;
        if ( status == cn_statusUnsupported )
        {
            // reported once per pair, when it is first met, not every step it lasts
            if ( ( contact->flags & cn_contactUnsupported ) == 0 )
            {
                report->warnings |= cn_warnUnsupportedPair;
                contact->flags |= cn_contactUnsupported;
                cnLogWorld(
                    world, cn_logWarning, cn_statusUnsupported,
                    "no collision function for %s against %s yet: these shapes pass through each other",
                    cnShapeTypeName( world->shapes[contact->shapeA].geometry.type ),
                    cnShapeTypeName( world->shapes[contact->shapeB].geometry.type ) );
            }
        }
        else if ( status == cn_statusNonFinite )
        {
            report->warnings |= cn_warnNonFiniteContact;
        }

        // touching: begin and end events
        bool touching = contact->manifold.pointCount > 0;
        bool wasTouching = ( contact->flags & cn_contactTouching ) != 0;
        cnContactEvent event = { cnShapeIdOf( world, contact->shapeA, contact->generationA ),
                                 cnShapeIdOf( world, contact->shapeB, contact->generationB ) };
        if ( cnIsSubSphereContact( contact ) )
        {
            // one event per pair of the user's shapes, once every sub-sphere contact is known
            if ( touching || wasTouching )
            {
                cnRecordOwnerTouch( set, &touchCount, contact, wasTouching, touching );
            }
        }
        else if ( touching && wasTouching == false )
        {
            cnPushEvent( world, &set->beginEvents, &set->beginCount, &set->beginCapacity, event );
        }
        else if ( touching == false && wasTouching )
        {
            cnPushEvent( world, &set->endEvents, &set->endCount, &set->endCapacity, event );
        }
        // written only when it changes: the contact's line stays in the cache of the worker that
        // collided it
        uint32_t flags =
            touching ? contact->flags | cn_contactTouching : contact->flags & ~(uint32_t)cn_contactTouching;
        if ( flags != contact->flags )
        {
            contact->flags = flags;
        }
        if ( touching && world->sleepIslandCount > 0 )
        {
            // a moving body touches a sleeping one: its island wakes and joins this substep's solve
            cnWakeByContact( world, rowA, rowB );
        }

        if ( touching )
        {
            manifolds += 1;
            points += contact->manifold.pointCount;
            for ( int k = 0; k < contact->manifold.pointCount; ++k )
            {
                deepest = fmax( deepest, -contact->manifold.points[k].separation );
            }
        }
    }
    if ( touchCount > 0 )
    {
        cnRaiseOwnerEvents( world, touchCount );
    }
    report->manifoldCount = manifolds;
    report->contactCount = points;
    report->maxPenetration = deepest;
    return cn_statusOk;
}

// the API ---------------------------------------------------------------------------------------

cnStatus cnWorld_UpdateContacts( cnWorldId worldId )
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
    cnClearContactEvents( world );
    cnStatus status = cnUpdateContacts( world, 0.0 );
    if ( status == cn_statusOk )
    {
        status = cnUpdateSensors( world );
    }
    if ( status != cn_statusOk )
    {
        cnLogWorld( world, cn_logError, status, "cnWorld_UpdateContacts: %s", cnStatusString( status ) );
    }
    return status;
}

int cnWorld_GetContactCount( cnWorldId worldId )
{
    cnWorld* world = cnGetWorld( worldId );
    if ( world == NULL )
    {
        return 0;
    }
    int count = 0;
    for ( int i = 0; i < world->contacts.count; ++i )
    {
        count += world->contacts.contacts[i].manifold.pointCount > 0 ? 1 : 0;
    }
    return count;
}

int cnWorld_GetContacts( cnWorldId worldId, cnContactData* contacts, int capacity )
{
    cnWorld* world = cnGetWorld( worldId );
    if ( world == NULL )
    {
        return 0;
    }
    int count = 0;
    for ( int i = 0; i < world->contacts.count; ++i )
    {
        const cnContact* contact = world->contacts.contacts + i;
        if ( contact->manifold.pointCount == 0 )
        {
            continue;
        }
        if ( contacts != NULL && count < capacity )
        {
            cnContactData* data = contacts + count;
            memset( data, 0, sizeof( *data ) );
            // a sub-sphere's contact names its shape (multisphere worlds)
            data->shapeA = cnShapeIdOf( world, contact->ownerA, contact->ownerGenerationA );
            data->shapeB = cnShapeIdOf( world, contact->ownerB, contact->ownerGenerationB );
            data->bodyA = cnShape_GetBody( data->shapeA );
            data->bodyB = cnShape_GetBody( data->shapeB );
            data->normal = contact->manifold.normal;
            data->pointCount = contact->manifold.pointCount;
            for ( int k = 0; k < contact->manifold.pointCount; ++k )
            {
                data->points[k].point = contact->manifold.points[k].point;
                data->points[k].separation = contact->manifold.points[k].separation;
                data->points[k].id = contact->manifold.points[k].id;
                data->points[k].normal = contact->manifold.points[k].normal;
                data->points[k].normalImpulse = contact->normalImpulse[k];
            }
        }
        count += 1;
    }
    return count;
}

cnContactEvents cnWorld_GetContactEvents( cnWorldId worldId )
{
    cnContactEvents events;
    memset( &events, 0, sizeof( events ) );
    cnWorld* world = cnGetWorld( worldId );
    if ( world != NULL )
    {
        events.beginEvents = world->contacts.beginEvents;
        events.beginCount = world->contacts.beginCount;
        events.endEvents = world->contacts.endEvents;
        events.endCount = world->contacts.endCount;
        events.hitEvents = world->contacts.hitEvents;
        events.hitCount = world->contacts.hitCount;
    }
    return events;
}

// sensors and hit events --------------------------------------------------------------------------
//
// A sensor has a broadphase proxy like any shape, but its pairs never reach the contact cache (the
// update drops them), so it is never part of a solve, an island or a wake. After each step (and in
// cnWorld_UpdateContacts), once the broadphase boxes hold the poses the step ends with, the sensor
// pass asks the broadphase for the shapes whose fat boxes meet each sensor's tight box, keeps the
// ones the sensor may see, and collides each with the sensor with no margin: a point of separation
// <= 0 is an overlap. The sorted result is merged with the last pass's list: entries only in the new
// list begin, entries only in the old one end. A visitor is kept with the generation it had when it
// was found, so a destroyed visitor (gone from the broadphase) ends under its old id, and a new shape
// that reuses its slot begins under the new id.

bool cnPushHitEvent( cnWorld* world, const cnContactHitEvent* event )
{
    cnContactSet* set = &world->contacts;
    void* block = set->hitEvents;
    bool pushed = cnAppendItem( &world->allocator, &block, &set->hitCount, &set->hitCapacity, 16, event,
                                sizeof( *event ) );
    set->hitEvents = block;
    return pushed;
}

static bool cnPushSensorEvent( cnWorld* world, cnSensorEvent** events, int* count, int* capacity,
                               cnSensorEvent event )
{
    void* block = *events;
    bool pushed = cnAppendItem( &world->allocator, &block, count, capacity, 16, &event, sizeof( event ) );
    *events = block;
    return pushed;
}

static cnSensorEvent cnMakeSensorEvent( const cnWorld* world, const cnSensor* sensor,
                                        cnSensorVisitor visitor )
{
    cnSensorEvent event = { cnShapeIdOf( world, sensor->shape, sensor->generation ),
                            cnShapeIdOf( world, visitor.shape, visitor.generation ) };
    return event;
}

static int cnCompareVisitors( cnSensorVisitor a, cnSensorVisitor b )
{
    if ( a.shape != b.shape )
    {
        return a.shape < b.shape ? -1 : 1;
    }
    return a.generation < b.generation ? -1 : a.generation > b.generation ? 1 : 0;
}

static int cnCompareVisitorEntries( const void* left, const void* right )
{
    return cnCompareVisitors( *(const cnSensorVisitor*)left, *(const cnSensorVisitor*)right );
}

const cnSensor* cnFindSensor( const cnWorld* world, int shapeIndex )
{
    const cnContactSet* set = &world->contacts;
    for ( int i = 0; i < set->sensorCount; ++i )
    {
        if ( set->sensors[i].shape == shapeIndex )
        {
            return set->sensors + i;
        }
    }
    return NULL;
}

bool cnAddSensor( cnWorld* world, int shapeIndex )
{
    cnContactSet* set = &world->contacts;
    cnSensor sensor = { shapeIndex, world->shapes[shapeIndex].generation, NULL, 0, 0 };
    void* block = set->sensors;
    bool added = cnAppendItem( &world->allocator, &block, &set->sensorCount, &set->sensorCapacity, 8, &sensor,
                               sizeof( sensor ) );
    set->sensors = block;
    return added;
}

void cnRemoveSensor( cnWorld* world, int shapeIndex )
{
    cnContactSet* set = &world->contacts;
    const cnSensor* found = cnFindSensor( world, shapeIndex );
    if ( found == NULL )
    {
        return;
    }
    int i = (int)( found - set->sensors );
    cnSensor* sensor = set->sensors + i;
    // its overlaps end at the next update, like those of a destroyed visitor (lost when out of memory)
    for ( int k = 0; k < sensor->overlapCount; ++k )
    {
        cnPushSensorEvent( world, &set->retiredEnds, &set->retiredCount, &set->retiredCapacity,
                           cnMakeSensorEvent( world, sensor, sensor->overlaps[k] ) );
    }
    cnFree( &world->allocator, sensor->overlaps,
            (size_t)sensor->overlapCapacity * sizeof( cnSensorVisitor ) );
    // keep creation order: events come sensor by sensor in that order
    memmove( set->sensors + i, set->sensors + i + 1,
             (size_t)( set->sensorCount - i - 1 ) * sizeof( cnSensor ) );
    set->sensorCount -= 1;
}

typedef struct cnSensorQuery
{
    cnWorld* world;
    int sensor; // shape index
    bool full;  // out of memory
} cnSensorQuery;

// A shape a sensor may see: on another body, not a sensor, passing the filter both ways, and not
// static when the sensor's body is static. A sub-sphere stands for its shape.
static bool cnSensorQueryFcn( int proxyKey, int shapeIndex, void* context )
{
    (void)proxyKey;
    cnSensorQuery* query = context;
    cnWorld* world = query->world;
    cnContactSet* set = &world->contacts;
    int owner =
        world->shapes[shapeIndex].parent != CN_NULL_INDEX ? world->shapes[shapeIndex].parent : shapeIndex;
    const cnShape* visitor = world->shapes + owner;
    const cnShape* sensor = world->shapes + query->sensor;
    if ( visitor->bodySlot == sensor->bodySlot || visitor->isSensor ||
         ( sensor->categoryBits & visitor->maskBits ) == 0 ||
         ( visitor->categoryBits & sensor->maskBits ) == 0 )
    {
        return true;
    }
    const cnBodyStore* bodies = &world->bodies;
    if ( bodies->type[world->slots[sensor->bodySlot].row] == cn_staticBody &&
         bodies->type[world->slots[visitor->bodySlot].row] == cn_staticBody )
    {
        return true;
    }
    cnSensorVisitor candidate = { owner, visitor->generation };
    void* block = set->candidates;
    bool added = cnAppendItem( &world->allocator, &block, &set->candidateCount, &set->candidateCapacity, 16,
                               &candidate, sizeof( candidate ) );
    set->candidates = block;
    if ( added == false )
    {
        query->full = true;
    }
    return added;
}

// the shapes sensor `sensor` overlaps now, sorted, into set->candidates[0, candidateCount)
static cnStatus cnFindSensorOverlaps( cnWorld* world, const cnSensor* sensor )
{
    cnContactSet* set = &world->contacts;
    set->candidateCount = 0;
    cnCollisionShape placed = cnPlaceShape( world, sensor->shape );
    cnAABB box = cnComputeAABB( &placed );
    if ( cnAABB_IsValid( box ) == false )
    {
        return cn_statusOk; // a pose that is not finite overlaps nothing
    }
    cnSensorQuery query = { world, sensor->shape, false };
    cnBroadPhase_Query( &set->broadPhase, box, cnSensorQueryFcn, &query );
    if ( query.full )
    {
        return cn_statusOutOfMemory;
    }
    // a shape with sub-spheres is met once per sphere: each once, in order
    if ( set->candidateCount > 1 )
    {
        qsort( set->candidates, (size_t)set->candidateCount, sizeof( cnSensorVisitor ),
               cnCompareVisitorEntries );
    }
    int kept = 0;
    for ( int k = 0; k < set->candidateCount; ++k )
    {
        cnSensorVisitor candidate = set->candidates[k];
        if ( kept > 0 && cnCompareVisitors( set->candidates[kept - 1], candidate ) == 0 )
        {
            continue;
        }
        // the exact overlap: the narrowphase with no margin (a multisphere shape as its own shape)
        cnCollisionShape other = cnPlaceShape( world, candidate.shape );
        cnManifold manifold;
        cnStatus status = cnCollide( &placed, &other, 0.0, NULL, &manifold );
        if ( status == cn_statusUnsupported )
        {
            world->report.warnings |= cn_warnUnsupportedPair;
            continue;
        }
        bool overlap = false;
        for ( int p = 0; p < manifold.pointCount && status == cn_statusOk; ++p )
        {
            overlap = overlap || manifold.points[p].separation <= 0.0;
        }
        if ( overlap )
        {
            set->candidates[kept++] = candidate;
        }
    }
    set->candidateCount = kept;
    return cn_statusOk;
}

cnStatus cnUpdateSensors( cnWorld* world )
{
    cnContactSet* set = &world->contacts;
    // the ends owed for the overlaps of sensors destroyed since the last pass
    for ( int k = 0; k < set->retiredCount; ++k )
    {
        cnPushSensorEvent( world, &set->sensorEndEvents, &set->sensorEndCount, &set->sensorEndCapacity,
                           set->retiredEnds[k] );
    }
    set->retiredCount = 0;

    for ( int i = 0; i < set->sensorCount; ++i )
    {
        cnSensor* sensor = set->sensors + i;
        cnStatus status = cnFindSensorOverlaps( world, sensor );
        void* block = sensor->overlaps;
        if ( status != cn_statusOk ||
             cnReserve( &world->allocator, &block, &sensor->overlapCapacity, set->candidateCount, 8,
                        sizeof( cnSensorVisitor ) ) == false )
        {
            return cn_statusOutOfMemory; // this sensor and the ones after it keep their lists
        }
        sensor->overlaps = block;

        // merge the old list with the new one: the differences are the events
        int a = 0;
        int b = 0;
        while ( a < sensor->overlapCount || b < set->candidateCount )
        {
            int order = 0;
            if ( a == sensor->overlapCount || b == set->candidateCount )
            {
                order = a == sensor->overlapCount ? 1 : -1;
            }
            else
            {
                order = cnCompareVisitors( sensor->overlaps[a], set->candidates[b] );
            }
            if ( order < 0 )
            {
                cnPushSensorEvent( world, &set->sensorEndEvents, &set->sensorEndCount,
                                   &set->sensorEndCapacity,
                                   cnMakeSensorEvent( world, sensor, sensor->overlaps[a++] ) );
            }
            else if ( order > 0 )
            {
                cnPushSensorEvent( world, &set->sensorBeginEvents, &set->sensorBeginCount,
                                   &set->sensorBeginCapacity,
                                   cnMakeSensorEvent( world, sensor, set->candidates[b++] ) );
            }
            else
            {
                a += 1;
                b += 1;
            }
        }
        if ( set->candidateCount > 0 )
        {
            memcpy( sensor->overlaps, set->candidates,
                    (size_t)set->candidateCount * sizeof( cnSensorVisitor ) );
        }
        sensor->overlapCount = set->candidateCount;
    }
    return cn_statusOk;
}

cnSensorEvents cnWorld_GetSensorEvents( cnWorldId worldId )
{
    cnSensorEvents events;
    memset( &events, 0, sizeof( events ) );
    cnWorld* world = cnGetWorld( worldId );
    if ( world != NULL )
    {
        events.beginEvents = world->contacts.sensorBeginEvents;
        events.beginCount = world->contacts.sensorBeginCount;
        events.endEvents = world->contacts.sensorEndEvents;
        events.endCount = world->contacts.sensorEndCount;
    }
    return events;
}
