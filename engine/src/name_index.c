// SPDX-License-Identifier: MIT
// Body names: an open-addressing hash table from name to body slot (linear probing, deletion by
// backward shift, so there are no tombstones). Keeps name lookups and the uniqueness check O(1),
// which matters for scenes of a hundred thousand named bodies.

#include "core.h"
#include "world.h"

#include <string.h>

static uint32_t cnHashName( const char* name )
{
    // FNV-1a
    uint32_t hash = 2166136261u;
    for ( const unsigned char* c = (const unsigned char*)name; *c != 0; ++c )
    {
        hash = ( hash ^ *c ) * 16777619u;
    }
    return hash;
}

static const char* cnSlotName( const cnWorld* world, int slot )
{
    return world->bodies.name[world->slots[slot].row];
}

int cnFindNamedSlot( const cnWorld* world, const char* name )
{
    if ( world->nameCapacity == 0 || name == NULL || name[0] == 0 )
    {
        return CN_NULL_INDEX;
    }
    uint32_t mask = (uint32_t)world->nameCapacity - 1;
    for ( uint32_t i = cnHashName( name ) & mask;; i = ( i + 1 ) & mask )
    {
        int slot = world->nameSlots[i];
        if ( slot == CN_NULL_INDEX )
        {
            return CN_NULL_INDEX;
        }
        if ( strcmp( cnSlotName( world, slot ), name ) == 0 )
        {
            return slot;
        }
    }
}

static void cnPlaceName( int* table, int capacity, uint32_t hash, int slot )
{
    uint32_t mask = (uint32_t)capacity - 1;
    uint32_t i = hash & mask;
    while ( table[i] != CN_NULL_INDEX )
    {
        i = ( i + 1 ) & mask;
    }
    table[i] = slot;
}

bool cnInsertName( cnWorld* world, int slot )
{
    // keep the load factor at or below one half
    if ( 2 * ( world->nameCount + 1 ) > world->nameCapacity )
    {
        int capacity = world->nameCapacity > 0 ? 2 * world->nameCapacity : 64;
        int* table = cnAlloc( &world->allocator, (size_t)capacity * sizeof( int ), 16 );
        if ( table == NULL )
        {
            return false;
        }
        for ( int i = 0; i < capacity; ++i )
        {
            table[i] = CN_NULL_INDEX;
        }
        for ( int i = 0; i < world->nameCapacity; ++i )
        {
            int other = world->nameSlots[i];
            if ( other != CN_NULL_INDEX )
            {
                cnPlaceName( table, capacity, cnHashName( cnSlotName( world, other ) ), other );
            }
        }
        cnFree( &world->allocator, world->nameSlots, (size_t)world->nameCapacity * sizeof( int ) );
        world->nameSlots = table;
        world->nameCapacity = capacity;
    }
    cnPlaceName( world->nameSlots, world->nameCapacity, cnHashName( cnSlotName( world, slot ) ), slot );
    world->nameCount += 1;
    return true;
}

void cnRemoveName( cnWorld* world, int slot )
{
    const char* name = cnSlotName( world, slot );
    if ( name == NULL || world->nameCapacity == 0 )
    {
        return;
    }
    uint32_t mask = (uint32_t)world->nameCapacity - 1;
    uint32_t i = cnHashName( name ) & mask;
    while ( world->nameSlots[i] != slot )
    {
        CN_ASSERT( world->nameSlots[i] != CN_NULL_INDEX );
        i = ( i + 1 ) & mask;
    }

    // backward shift: pull later entries of the probe run into the hole when that keeps them
    // reachable from their home position
    uint32_t hole = i;
    for ( uint32_t j = ( hole + 1 ) & mask; world->nameSlots[j] != CN_NULL_INDEX; j = ( j + 1 ) & mask )
    {
        uint32_t home = cnHashName( cnSlotName( world, world->nameSlots[j] ) ) & mask;
        // distance from home to j and from home to the hole, around the ring
        if ( ( ( j - home ) & mask ) >= ( ( j - hole ) & mask ) )
        {
            world->nameSlots[hole] = world->nameSlots[j];
            hole = j;
        }
    }
    world->nameSlots[hole] = CN_NULL_INDEX;
    world->nameCount -= 1;
}

void cnDestroyNames( cnWorld* world )
{
    cnFree( &world->allocator, world->nameSlots, (size_t)world->nameCapacity * sizeof( int ) );
    world->nameSlots = NULL;
    world->nameCapacity = 0;
    world->nameCount = 0;
}
