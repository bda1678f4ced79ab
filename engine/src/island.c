// SPDX-License-Identifier: MIT
// Islands and sleeping: the island pass of a step, the sleeping islands and waking. See island.h.

#include "island.h"

#include "core.h"
#include "joint.h"
#include "world.h"

#include <math.h>
#include <string.h>

// union-find over body rows (cnUnionFindRoot): the smaller row is the root, so the islands and
// their order do not depend on the order of the edges

static bool cnIsAwakeDynamic( const cnBodyStore* b, int row )
{
    return b->type[row] == cn_dynamicBody && cnIsBodyAsleep( b, row ) == false;
}

// the rows of a contact's two bodies, false when a shape is gone or its slot reused since the
// contact was made (between steps, before the next update drops the contact)
static bool cnContactBodyRows( const cnWorld* world, const cnContact* contact, int* rowA, int* rowB )
{
    const cnShape* a = world->shapes + contact->shapeA;
    const cnShape* b = world->shapes + contact->shapeB;
    if ( a->bodySlot == CN_NULL_INDEX || b->bodySlot == CN_NULL_INDEX ||
         a->generation != contact->generationA || b->generation != contact->generationB )
    {
        return false;
    }
    *rowA = world->slots[a->bodySlot].row;
    *rowB = world->slots[b->bodySlot].row;
    return true;
}

static bool cnIsMovingKinematic( const cnBodyStore* b, int row )
{
    return b->type[row] == cn_kinematicBody && ( cnLengthSquared( b->linearVelocity[row] ) > 0.0 ||
                                                 cnLengthSquared( b->angularVelocity[row] ) > 0.0 );
}

// sleeping islands --------------------------------------------------------------------------------

static int cnAllocateSleepIsland( cnWorld* world )
{
    int index = world->freeSleepIsland;
    if ( index != CN_NULL_INDEX )
    {
        world->freeSleepIsland = world->sleepIslands[index].nextFree;
    }
    else
    {
        void* pool = world->sleepIslands;
        if ( cnReserve( &world->allocator, &pool, &world->sleepIslandCapacity,
                        world->sleepIslandSlotCount + 1, 16, sizeof( cnSleepIsland ) ) == false )
        {
            return CN_NULL_INDEX;
        }
        world->sleepIslands = pool;
        index = world->sleepIslandSlotCount++;
    }
    world->sleepIslands[index] = ( cnSleepIsland ){ CN_NULL_INDEX, 0, CN_NULL_INDEX };
    world->sleepIslandCount += 1;
    return index;
}

// body `row` joins sleeping island `island`: its pose stays, its motion stops
static void cnPutToSleep( cnWorld* world, int row, int island )
{
    cnBodyStore* b = &world->bodies;
    cnSleepIsland* entry = world->sleepIslands + island;
    b->sleepIsland[row] = island;
    b->sleepNext[row] = entry->headSlot;
    entry->headSlot = b->slotOf[row];
    entry->bodyCount += 1;
    b->linearVelocity[row] = cn_vec3Zero;
    b->angularVelocity[row] = cn_vec3Zero;
    b->safeLinearVelocity[row] = cn_vec3Zero;
    b->safeAngularVelocity[row] = cn_vec3Zero;
    b->force[row] = cn_vec3Zero;
    b->torque[row] = cn_vec3Zero;
}

static void cnWakeIsland( cnWorld* world, int island )
{
    cnBodyStore* b = &world->bodies;
    cnSleepIsland* entry = world->sleepIslands + island;
    for ( int slot = entry->headSlot; slot != CN_NULL_INDEX; )
    {
        int row = world->slots[slot].row;
        CN_ASSERT( row != CN_NULL_INDEX && b->sleepIsland[row] == island );
        slot = b->sleepNext[row];
        b->sleepIsland[row] = CN_NULL_INDEX;
        b->sleepNext[row] = CN_NULL_INDEX;
        b->sleepTime[row] = 0.0;
    }
    entry->headSlot = CN_NULL_INDEX;
    entry->bodyCount = 0;
    entry->nextFree = world->freeSleepIsland;
    world->freeSleepIsland = island;
    world->sleepIslandCount -= 1;
}

void cnWakeBody( cnWorld* world, int row )
{
    cnBodyStore* b = &world->bodies;
    if ( cnIsBodyAsleep( b, row ) )
    {
        cnWakeIsland( world, b->sleepIsland[row] );
    }
    b->sleepTime[row] = 0.0;
}

void cnWakeTouching( cnWorld* world, int row )
{
    cnWakeBody( world, row );
    if ( world->sleepIslandCount == 0 )
    {
        return;
    }
    const cnContactSet* set = &world->contacts;
    for ( int c = 0; c < set->count && world->sleepIslandCount > 0; ++c )
    {
        const cnContact* contact = set->contacts + c;
        int rowA;
        int rowB;
        if ( contact->manifold.pointCount == 0 ||
             cnContactBodyRows( world, contact, &rowA, &rowB ) == false || ( rowA != row && rowB != row ) )
        {
            continue;
        }
        cnWakeBody( world, rowA == row ? rowB : rowA );
    }
}

void cnWakeAll( cnWorld* world )
{
    for ( int island = 0; island < world->sleepIslandSlotCount && world->sleepIslandCount > 0; ++island )
    {
        if ( world->sleepIslands[island].headSlot != CN_NULL_INDEX )
        {
            cnWakeIsland( world, island );
        }
    }
}

void cnWakeByContact( cnWorld* world, int rowA, int rowB )
{
    const cnBodyStore* b = &world->bodies;
    bool asleepA = cnIsBodyAsleep( b, rowA );
    bool asleepB = cnIsBodyAsleep( b, rowB );
    if ( asleepA == asleepB )
    {
        return;
    }
    int sleeper = asleepA ? rowA : rowB;
    int other = asleepA ? rowB : rowA;
    if ( cnIsAwakeDynamic( b, other ) || cnIsMovingKinematic( b, other ) )
    {
        cnWakeBody( world, sleeper );
    }
}

static bool cnNonZero( cnVec3 v )
{
    return v.x != 0.0 || v.y != 0.0 || v.z != 0.0;
}

void cnWakeWritten( cnWorld* world )
{
    cnBodyStore* b = &world->bodies;
    for ( int row = 0; row < b->count && world->sleepIslandCount > 0; ++row )
    {
        if ( cnIsBodyAsleep( b, row ) == false )
        {
            continue;
        }
        if ( memcmp( b->transform + row, b->safeTransform + row, sizeof( cnTransform ) ) != 0 )
        {
            cnWakeTouching( world, row );
        }
        else if ( cnNonZero( b->linearVelocity[row] ) || cnNonZero( b->angularVelocity[row] ) ||
                  cnNonZero( b->force[row] ) || cnNonZero( b->torque[row] ) )
        {
            cnWakeBody( world, row );
        }
    }
}

void cnDestroyIslands( cnWorld* world )
{
    cnFree( &world->allocator, world->sleepIslands,
            (size_t)world->sleepIslandCapacity * sizeof( cnSleepIsland ) );
    world->sleepIslands = NULL;
    world->sleepIslandCapacity = 0;
    world->sleepIslandSlotCount = 0;
    world->sleepIslandCount = 0;
    world->freeSleepIsland = CN_NULL_INDEX;
}

// islands -----------------------------------------------------------------------------------------

void cnIslandAddEdge( cnWorld* world, int rowA, int rowB )
{
    int* parent = world->islandParent;
    if ( parent == NULL || rowA == rowB )
    {
        return;
    }
    cnBodyStore* b = &world->bodies;
    // a sleeping body linked to an awake one wakes and joins its island
    cnWakeByContact( world, rowA, rowB );
    bool awakeA = cnIsAwakeDynamic( b, rowA );
    bool awakeB = cnIsAwakeDynamic( b, rowB );
    if ( awakeA && awakeB )
    {
        int rootA = cnUnionFindRoot( parent, rowA );
        int rootB = cnUnionFindRoot( parent, rowB );
        if ( rootA < rootB )
        {
            parent[rootB] = rootA;
        }
        else if ( rootB < rootA )
        {
            parent[rootA] = rootB;
        }
    }
    else if ( awakeA && cnIsMovingKinematic( b, rowB ) )
    {
        b->sleepTime[rowA] = 0.0;
    }
    else if ( awakeB && cnIsMovingKinematic( b, rowA ) )
    {
        b->sleepTime[rowB] = 0.0;
    }
}

// Every edge of the island pass: the touching contacts, then the joints.
static void cnAddIslandEdges( cnWorld* world )
{
    const cnContactSet* set = &world->contacts;
    for ( int c = 0; c < set->count; ++c )
    {
        const cnContact* contact = set->contacts + c;
        int rowA;
        int rowB;
        if ( contact->manifold.pointCount > 0 && cnContactBodyRows( world, contact, &rowA, &rowB ) )
        {
            cnIslandAddEdge( world, rowA, rowB );
        }
    }
    for ( int j = 0; j < world->jointSlotCount; ++j )
    {
        const cnJoint* joint = world->joints + j;
        if ( joint->bodySlotA == CN_NULL_INDEX )
        {
            continue;
        }
        cnIslandAddEdge( world, world->slots[joint->bodySlotA].row, world->slots[joint->bodySlotB].row );
    }
}

// the union-find over `parent` (bodies.count rows) with every edge; the roots after it
static void cnLinkIslands( cnWorld* world, int* parent )
{
    for ( int row = 0; row < world->bodies.count; ++row )
    {
        parent[row] = row;
    }
    world->islandParent = parent;
    cnAddIslandEdges( world );
    world->islandParent = NULL;
}

bool cnUpdateIslands( cnWorld* world, double timeStep )
{
    cnBodyStore* b = &world->bodies;
    cnStepReport* report = &world->report;
    int n = b->count;
    bool sleep = world->def.enableSleep;
    int sleepingBefore = world->sleepIslandCount;

    // rest timers
    if ( sleep )
    {
        double linear2 = CN_SLEEP_LINEAR_SPEED * CN_SLEEP_LINEAR_SPEED;
        double angular2 = CN_SLEEP_ANGULAR_SPEED * CN_SLEEP_ANGULAR_SPEED;
        for ( int row = 0; row < n; ++row )
        {
            if ( cnIsAwakeDynamic( b, row ) == false )
            {
                continue;
            }
            bool slow = cnLengthSquared( b->linearVelocity[row] ) <= linear2 &&
                        cnLengthSquared( b->angularVelocity[row] ) <= angular2;
            b->sleepTime[row] = slow ? b->sleepTime[row] + timeStep : 0.0;
        }
    }

    int* parent = n > 0 ? cnArenaAlloc( &world->arena, (size_t)n * sizeof( int ), 16 ) : NULL;
    double* restTime = n > 0 ? cnArenaAlloc( &world->arena, (size_t)n * sizeof( double ), 16 ) : NULL;
    int* islandOf = n > 0 ? cnArenaAlloc( &world->arena, (size_t)n * sizeof( int ), 16 ) : NULL;
    bool ok = n == 0 || ( parent != NULL && restTime != NULL && islandOf != NULL );
    int islands = 0;
    if ( n > 0 && ok )
    {
        cnLinkIslands( world, parent );
        // the shortest rest of each island, at its root
        for ( int row = 0; row < n; ++row )
        {
            restTime[row] = (double)INFINITY;
            islandOf[row] = CN_NULL_INDEX;
        }
        for ( int row = 0; row < n; ++row )
        {
            if ( cnIsAwakeDynamic( b, row ) )
            {
                int root = cnUnionFindRoot( parent, row );
                restTime[root] = fmin( restTime[root], b->sleepTime[row] );
                islands += root == row ? 1 : 0;
            }
        }
        // islands that have all rested long enough go to sleep
        for ( int row = 0; row < n && sleep; ++row )
        {
            if ( cnIsAwakeDynamic( b, row ) == false )
            {
                continue;
            }
            int root = cnUnionFindRoot( parent, row );
            if ( restTime[root] < CN_TIME_TO_SLEEP )
            {
                continue;
            }
            if ( islandOf[root] == CN_NULL_INDEX )
            {
                islandOf[root] = cnAllocateSleepIsland( world );
                if ( islandOf[root] == CN_NULL_INDEX )
                {
                    restTime[root] = 0.0; // no room: the island stays awake
                    ok = false;
                    continue;
                }
            }
            cnPutToSleep( world, row, islandOf[root] );
        }
    }

    // the report: islands awake before this pass plus those already asleep
    report->islandCount = islands + sleepingBefore;
    report->sleepingIslandCount = world->sleepIslandCount;
    report->awakeCount = 0;
    report->sleepingCount = 0;
    for ( int row = 0; row < n; ++row )
    {
        if ( b->type[row] == cn_dynamicBody )
        {
            bool asleep = cnIsBodyAsleep( b, row );
            report->sleepingCount += asleep ? 1 : 0;
            report->awakeCount += asleep ? 0 : 1;
        }
    }
    return ok;
}

bool cnSleepIslandOf( cnWorld* world, int row )
{
    cnBodyStore* b = &world->bodies;
    if ( cnIsAwakeDynamic( b, row ) == false )
    {
        return true;
    }
    int n = b->count;
    int* parent = cnAlloc( &world->allocator, (size_t)n * sizeof( int ), 16 );
    if ( parent == NULL )
    {
        return false;
    }
    cnLinkIslands( world, parent );
    bool ok = true;
    int root = cnUnionFindRoot( parent, row );
    int island = cnAllocateSleepIsland( world );
    if ( island == CN_NULL_INDEX )
    {
        ok = false;
    }
    for ( int other = 0; other < n && ok; ++other )
    {
        if ( cnIsAwakeDynamic( b, other ) && cnUnionFindRoot( parent, other ) == root )
        {
            cnPutToSleep( world, other, island );
        }
    }
    cnFree( &world->allocator, parent, (size_t)n * sizeof( int ) );
    return ok;
}
