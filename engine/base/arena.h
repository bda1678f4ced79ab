// SPDX-License-Identifier: MIT
#pragma once

// Per-step scratch memory. One linear block, reset at the start of every step. Nothing in it is
// freed by hand. When a step asks for more than the block holds, the excess comes from the
// heap as separate spill blocks (never a failure, never a write past the end); the next reset
// frees them and grows the block to the high-water mark, so a steady simulation stops spilling
// after its first step.

#include "cairn/base.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct cnArenaSpill cnArenaSpill;

typedef struct cnArena
{
    const cnAllocator* allocator;
    char* block;
    size_t capacity;
    size_t used;
    // bytes asked for since the last reset, block and spill together
    size_t requested;
    size_t highWater;
    cnArenaSpill* spills;
    int spillCount;
} cnArena;

void cnCreateArena( cnArena* arena, const cnAllocator* allocator, size_t capacity );
void cnDestroyArena( cnArena* arena );

// Scratch memory aligned to `alignment` (power of two, <= 64), valid until the next reset.
// NULL only when the allocator itself is out of memory (or size is 0).
void* cnArenaAlloc( cnArena* arena, size_t size, size_t alignment );

// Forget everything; free spill blocks and grow the block to the high-water mark.
// Returns false when growing failed (the old block is kept; spilling goes on working).
bool cnArenaReset( cnArena* arena );
