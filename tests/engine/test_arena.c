// SPDX-License-Identifier: MIT
#include "arena.h"
#include "engine_suites.h"
#include "test_support.h"

#include <stdint.h>
#include <string.h>

START_TEST( allocations_are_aligned_and_disjoint )
{
    cntCountingAllocator counter;
    cnAllocator allocator = cntMakeCountingAllocator( &counter );
    cnArena arena;
    cnCreateArena( &arena, &allocator, 1024 );

    char* previous = NULL;
    size_t previousSize = 0;
    for ( int i = 0; i < 20; ++i )
    {
        size_t alignment = (size_t)1 << ( i % 7 );
        size_t size = (size_t)( 3 + 5 * i );
        char* p = cnArenaAlloc( &arena, size, alignment );
        ck_assert_ptr_nonnull( p );
        ck_assert_uint_eq( (uintptr_t)p % alignment, 0 );
        memset( p, 0xab, size );
        if ( previous != NULL && p > previous )
        {
            ck_assert( p >= previous + previousSize );
        }
        previous = p;
        previousSize = size;
    }
    cnDestroyArena( &arena );
    ck_assert_uint_eq( counter.liveBytes, 0 );
    ck_assert_int_eq( counter.liveBlocks, 0 );
}
END_TEST

// asking for more than the block holds spills to the heap, and the next reset grows the block
START_TEST( overflow_spills_then_grows )
{
    cntCountingAllocator counter;
    cnAllocator allocator = cntMakeCountingAllocator( &counter );
    cnArena arena;
    cnCreateArena( &arena, &allocator, 256 );

    char* a = cnArenaAlloc( &arena, 200, 16 );
    char* b = cnArenaAlloc( &arena, 4000, 64 );
    ck_assert_ptr_nonnull( a );
    ck_assert_ptr_nonnull( b );
    ck_assert_uint_eq( (uintptr_t)b % 64, 0 );
    ck_assert_int_eq( arena.spillCount, 1 );
    memset( b, 1, 4000 );

    ck_assert( cnArenaReset( &arena ) );
    ck_assert_int_eq( arena.spillCount, 0 );
    ck_assert_uint_ge( arena.capacity, 4200 );

    // the same demand now fits without spilling
    ck_assert_ptr_nonnull( cnArenaAlloc( &arena, 200, 16 ) );
    ck_assert_ptr_nonnull( cnArenaAlloc( &arena, 4000, 64 ) );
    ck_assert_int_eq( arena.spillCount, 0 );

    cnDestroyArena( &arena );
    ck_assert_uint_eq( counter.liveBytes, 0 );
}
END_TEST

// out of memory inside the arena gives NULL, not a crash, and nothing leaks
START_TEST( out_of_memory_gives_null )
{
    cntCountingAllocator counter;
    cnAllocator allocator = cntMakeCountingAllocator( &counter );
    cnArena arena;
    cnCreateArena( &arena, &allocator, 64 );
    counter.failAfter = counter.totalAllocations;
    ck_assert_ptr_null( cnArenaAlloc( &arena, 1000, 16 ) );
    ck_assert( cnArenaReset( &arena ) );
    cnDestroyArena( &arena );
    ck_assert_uint_eq( counter.liveBytes, 0 );
}
END_TEST

Suite* cntArenaSuite( void )
{
    Suite* suite = suite_create( "arena" );
    TCase* tc = tcase_create( "alloc" );
    tcase_add_test( tc, allocations_are_aligned_and_disjoint );
    tcase_add_test( tc, overflow_spills_then_grows );
    tcase_add_test( tc, out_of_memory_gives_null );
    suite_add_tcase( suite, tc );
    return suite;
}
