// SPDX-License-Identifier: MIT
#include "arena.h"

#include "core.h"

#include "cairn/solver.h"

#include <stdint.h>

struct cnArenaSpill
{
    cnArenaSpill* next;
    size_t size;
};

// spill blocks start with their header, padded to the largest alignment we hand out
#define CN_SPILL_HEADER 64

void cnCreateArena( cnArena* arena, const cnAllocator* allocator, size_t capacity )
{
    *arena = ( cnArena ){ 0 };
    arena->allocator = allocator;
    if ( capacity > 0 )
    {
        arena->block = cnAlloc( allocator, capacity, 64 );
        arena->capacity = arena->block != NULL ? capacity : 0;
    }
}

static void cnFreeSpills( cnArena* arena )
{
    cnArenaSpill* spill = arena->spills;
    while ( spill != NULL )
    {
        cnArenaSpill* next = spill->next;
        cnFree( arena->allocator, spill, spill->size );
        spill = next;
    }
    arena->spills = NULL;
    arena->spillCount = 0;
}

void cnDestroyArena( cnArena* arena )
{
    cnFreeSpills( arena );
    cnFree( arena->allocator, arena->block, arena->capacity );
    *arena = ( cnArena ){ 0 };
}

void* cnArenaAlloc( cnArena* arena, size_t size, size_t alignment )
{
    CN_ASSERT( alignment > 0 && ( alignment & ( alignment - 1 ) ) == 0 && alignment <= 64 );
    if ( size == 0 )
    {
        return NULL;
    }

    arena->requested += size + alignment;
    if ( arena->requested > arena->highWater )
    {
        arena->highWater = arena->requested;
    }

    // bump allocation inside the block
    uintptr_t base = (uintptr_t)arena->block;
    uintptr_t start = ( base + arena->used + alignment - 1 ) & ~(uintptr_t)( alignment - 1 );
    if ( arena->block != NULL && start + size <= base + arena->capacity )
    {
        arena->used = (size_t)( start + size - base );
        return (void*)start;
    }

    // the block is full: a heap block on the spill list, freed at the next reset
    size_t total = CN_SPILL_HEADER + size;
    cnArenaSpill* spill = cnAlloc( arena->allocator, total, 64 );
    if ( spill == NULL )
    {
        return NULL;
    }
    spill->next = arena->spills;
    spill->size = total;
    arena->spills = spill;
    arena->spillCount += 1;
    return (char*)spill + CN_SPILL_HEADER;
}

bool cnArenaReset( cnArena* arena )
{
    bool ok = true;
    if ( arena->spillCount > 0 && arena->highWater > arena->capacity )
    {
        // grow to the high-water mark plus a quarter, so slow growth does not spill every step
        size_t capacity = arena->highWater + arena->highWater / 4;
        char* block = cnAlloc( arena->allocator, capacity, 64 );
        if ( block != NULL )
        {
            cnFree( arena->allocator, arena->block, arena->capacity );
            arena->block = block;
            arena->capacity = capacity;
        }
        else
        {
            ok = false;
        }
    }
    cnFreeSpills( arena );
    arena->used = 0;
    arena->requested = 0;
    return ok;
}

void* cnArena_Alloc( cnArena* arena, size_t size, size_t alignment )
{
    return cnArenaAlloc( arena, size, alignment );
}
