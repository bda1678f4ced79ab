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
    cnManifold manifold;
    double normalImpulse[CN_MAX_MANIFOLD_POINTS];  // warm start, N s
    cnVec3 tangentImpulse[CN_MAX_MANIFOLD_POINTS]; // warm start, N s, world frame: the tangent
                                                   // basis may turn from step to step
} cnContact;

typedef struct cnContactSet
{
    cnBroadPhase broadPhase;

    cnContact* contacts; // (count) sorted by (shapeA, shapeB)
    int count;
    int capacity;

    // the next list, built by the merge; swapped with `contacts`
    cnContact* spare;
    int spareCapacity;

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
