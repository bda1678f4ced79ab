// SPDX-License-Identifier: MIT
#pragma once

// The engine's lowest layer: asserts, memory through a cnAllocator, message formatting.
// It lives in engine/base, beneath the engine, collision/ and solvers/, which all may include it.

#include "cairn/base.h"
#include "cairn/status.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

// Internal invariants only. Bad input from the user gets a status, never an assert.
#if !defined( NDEBUG ) || defined( CN_ENABLE_ASSERT )
int cnInternalAssert( const char* condition, const char* fileName, int lineNumber );
#    define CN_ASSERT( c ) ( (void)( ( !!( c ) ) || ( cnInternalAssert( #    c, __FILE__, (int)__LINE__ ), 0 ) ) )
#else
#    define CN_ASSERT( ... ) ( (void)0 )
#endif

// stamped into defs by cnDefault*Def(): "CNDF"
#define CN_SECRET_COOKIE 0x434e4446

#define CN_NULL_INDEX ( -1 )

// Allocate `size` bytes aligned to `alignment` (power of two, <= 64) through the allocator
// (NULL or zero hooks: the C library). Returns NULL when out of memory. `size` 0 gives NULL.
void* cnAlloc( const cnAllocator* allocator, size_t size, size_t alignment );

// Free memory from cnAlloc; `size` must be the size it was allocated with. NULL is a no-op.
void cnFree( const cnAllocator* allocator, void* memory, size_t size );

// Grow or shrink an array: allocate `newSize`, copy min(old, new) bytes, free the old block.
// On failure returns NULL and leaves the old block alone.
void* cnRealloc( const cnAllocator* allocator, void* memory, size_t oldSize, size_t newSize,
                 size_t alignment );

// Make room for `needed` elements in a growable array (doubling, at least `minimum`), moving the
// contents. False when out of memory or past INT32_MAX elements; the array is then unchanged.
bool cnReserve( const cnAllocator* allocator, void** array, int* capacity, int needed, int minimum,
                size_t elementSize );

// Append a copy of `element` to a growable array of *count elements (grown as cnReserve does).
// False when out of memory; the array and the count are then unchanged.
bool cnAppendItem( const cnAllocator* allocator, void** array, int* count, int* capacity, int minimum,
                   const void* element, size_t elementSize );

// The root of element i in a union-find forest held in `parent` (a root is its own parent), with
// path halving; the caller's union decides which root wins.
static inline int cnUnionFindRoot( int* parent, int i )
{
    while ( parent[i] != i )
    {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    return i;
}

// Allocate a zeroed array of `count` elements of `size` bytes (aligned to 16); NULL on overflow.
void* cnAllocArray( const cnAllocator* allocator, size_t count, size_t size );

// snprintf into a fixed buffer (nullable), always terminated, never overflows.
void cnFormat( char* buffer, int size, const char* format, ... )
#if defined( __GNUC__ )
    __attribute__( ( format( printf, 3, 4 ) ) )
#endif
    ;

// %g-style text for a number: NaN and infinities spelled out the same everywhere.
void cnFormatNumber( char* buffer, int size, double value );

// Default log sink: "cairn: error: message" on stderr.
void cnDefaultLog( cnLogLevel level, int status, const char* message, void* context );
