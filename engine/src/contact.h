// SPDX-License-Identifier: MIT
#pragma once

// Contacts: the broadphase proxies of the shapes, and the contact cache.
//
// The cache is an array of contacts sorted by shape pair. Each update the broadphase hands over
// its pair list, sorted the same way, and the two lists are merged in one pass: a pair found in
// both keeps its contact (manifold and warm-start impulses), a new pair gets a new contact, and
// a contact whose pair is gone ends. The narrowphase then refreshes every manifold, and the
// impulses follow their points by feature id. Warm-start impulses live here, not in a solver,
// so the solver can be swapped between steps without losing them.

#include "broad_phase.h"
#include "collide.h"

#include "cairn/types.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct cnWorld cnWorld;

enum
{
    cn_contactTouching = 1u << 0,    // the manifold has points
    cn_contactUnsupported = 1u << 1, // no pair function for these types (reported once)
};

typedef struct cnContact
{
    int shapeA; // shape index, shapeA < shapeB
    int shapeB;
    uint16_t generationA; // the shapes' generations when the contact was made: a reused
    uint16_t generationB; // shape slot does not inherit a stale contact
    // the shapes the user knows: shapeA/B themselves, or the shapes whose sub-spheres they are
    // (multisphere worlds), with their generations when the contact was made
    int ownerA;
    int ownerB;
    uint16_t ownerGenerationA;
    uint16_t ownerGenerationB;
    uint32_t flags;
    // what this step's narrowphase did (contact.c), kept here rather than in an array of its own so
    // that workers never write to one cache line
    uint8_t collided;
    cnManifold manifold;
    double normalImpulse[CN_MAX_MANIFOLD_POINTS];  // warm start, N s
    cnVec3 tangentImpulse[CN_MAX_MANIFOLD_POINTS]; // warm start, N s, world frame: the tangent
                                                   // basis may turn from step to step
} cnContact;

// A shape a sensor overlaps (the shape the user knows: a sub-sphere's parent), with its
// generation at the update that found it.
typedef struct cnSensorVisitor
{
    int shape;
    uint16_t generation;
} cnSensorVisitor;

// A sensor shape (cnShapeDef.isSensor) and what it overlapped at the last update (contact.c,
// "sensors"). Sensors have no contacts: the sensor pass asks the broadphase for each one.
typedef struct cnSensor
{
    int shape;
    uint16_t generation;
    cnSensorVisitor* overlaps; // (overlapCount) sorted by shape, then generation
    int overlapCount;
    int overlapCapacity;
} cnSensor;

typedef struct cnContactSet
{
    cnBroadPhase broadPhase;

    cnContact* contacts; // (count) sorted by (shapeA, shapeB)
    int count;
    int capacity;

    // the next list, built by the merge; swapped with `contacts`
    cnContact* spare;
    int spareCapacity;
    // the merge's map from the next list to the last one: sources[i] is the old index of contact i,
    // or -1 for a new pair (made by the merge itself). The narrowphase's workers copy the old
    // contacts over (contact.c), each the contacts it then collides.
    int* sources;
    int sourceCapacity;

    cnPair* pairs; // (pairCapacity) filled by the broadphase
    int pairCapacity;

    cnContactEvent* beginEvents; // (beginCount)
    int beginCount;
    int beginCapacity;
    cnContactEvent* endEvents; // (endCount)
    int endCount;
    int endCapacity;

    // multisphere worlds: touching before and after the update of every sub-sphere contact, by
    // the pair of shapes the user knows, to raise one event per such pair (contact.c)
    struct cnOwnerTouch* ownerTouches; // (ownerTouchCapacity)
    int ownerTouchCapacity;

    // hit events of the step's solves (contact_rows.c), and how many shapes ask for them: none,
    // and the solve does not look
    cnContactHitEvent* hitEvents; // (hitCount)
    int hitCount;
    int hitCapacity;
    int hitShapeCount;

    // sensors in creation order, their events, the end events owed for the overlaps of sensors
    // destroyed since the last update, and the sensor pass's candidate list
    cnSensor* sensors; // (sensorCount)
    int sensorCount;
    int sensorCapacity;
    cnSensorEvent* sensorBeginEvents; // (sensorBeginCount)
    int sensorBeginCount;
    int sensorBeginCapacity;
    cnSensorEvent* sensorEndEvents; // (sensorEndCount)
    int sensorEndCount;
    int sensorEndCapacity;
    cnSensorEvent* retiredEnds; // (retiredCount)
    int retiredCount;
    int retiredCapacity;
    cnSensorVisitor* candidates; // (candidateCapacity)
    int candidateCount;
    int candidateCapacity;
} cnContactSet;

void cnCreateContactSet( cnWorld* world );
void cnDestroyContactSet( cnWorld* world );

// Broadphase proxy of a shape at its body's current pose (false: out of memory).
bool cnCreateShapeProxy( cnWorld* world, int shapeIndex );
void cnDestroyShapeProxy( cnWorld* world, int shapeIndex );
// Move the proxies of one body's shapes to its current pose; `displacement` (m) is the motion
// expected before the next move, which stretches a re-inserted fat box.
void cnMoveBodyProxies( cnWorld* world, int row, cnVec3 displacement );

// The shapes of body `row` that collide (have a proxy), in list order: the body's shapes, each
// one with sub-spheres (multisphere worlds) replaced by them. CN_NULL_INDEX after the last:
//     for ( int i = cnFirstCollider( world, row ); i != CN_NULL_INDEX; i = cnNextCollider( world, i ) )
int cnFirstCollider( const cnWorld* world, int row );
int cnNextCollider( const cnWorld* world, int shapeIndex );

// The shape placed in the world, as pair functions read it.
cnCollisionShape cnPlaceShape( const cnWorld* world, int shapeIndex );

// Forget the events of the last step (the updates of one step, one per substep, add to them).
void cnClearContactEvents( cnWorld* world );

// Broadphase, cache merge, narrowphase and events at the bodies' current poses (the time step
// only predicts the motion for the broadphase's fat boxes). Fills the step report's contact
// fields and warnings.
cnStatus cnUpdateContacts( cnWorld* world, double timeStep );

// Add a hit event (contact_rows.c finds them). False when out of memory (the event is lost).
bool cnPushHitEvent( cnWorld* world, const cnContactHitEvent* event );

// Sensors: register a new sensor shape (false: out of memory), and forget one being destroyed
// (its overlaps are owed as end events at the next update).
bool cnAddSensor( cnWorld* world, int shapeIndex );
void cnRemoveSensor( cnWorld* world, int shapeIndex );
// The sensor of a shape, NULL when it is not one.
const cnSensor* cnFindSensor( const cnWorld* world, int shapeIndex );
// The sensor pass: every sensor's overlaps at the bodies' current poses, against the broadphase's
// boxes (which must hold the current poses), and the begin and end events since the last pass.
cnStatus cnUpdateSensors( cnWorld* world );
