// SPDX-License-Identifier: MIT
#include "core.h"

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cnDefaultAssert( const char* condition, const char* fileName, int lineNumber )
{
    fprintf( stderr, "cairn: assertion failed: %s (%s:%d)\n", condition, fileName, lineNumber );
    return 1;
}

static cnAssertFcn* cn_assertFcn = cnDefaultAssert;

void cnSetAssertFcn( cnAssertFcn* assertFcn )
{
    cn_assertFcn = assertFcn != NULL ? assertFcn : cnDefaultAssert;
}

int cnInternalAssert( const char* condition, const char* fileName, int lineNumber )
{
    if ( cn_assertFcn( condition, fileName, lineNumber ) != 0 )
    {
        abort();
    }
    return 0;
}

const char* cnVersionString( void )
{
    return "0.1.0";
}

void* cnAlloc( const cnAllocator* allocator, size_t size, size_t alignment )
{
    CN_ASSERT( alignment > 0 && ( alignment & ( alignment - 1 ) ) == 0 && alignment <= 64 );
    if ( size == 0 )
    {
        return NULL;
    }

    if ( allocator != NULL && allocator->allocFcn != NULL )
    {
        return allocator->allocFcn( size, alignment, allocator->context );
    }

    // aligned_alloc wants a size that is a multiple of the alignment
    if ( alignment < sizeof( void* ) )
    {
        alignment = sizeof( void* );
    }
    size_t rounded = ( size + alignment - 1 ) & ~( alignment - 1 );
    if ( rounded < size )
    {
        return NULL;
    }
    return aligned_alloc( alignment, rounded );
}

void cnFree( const cnAllocator* allocator, void* memory, size_t size )
{
    if ( memory == NULL )
    {
        return;
    }
    if ( allocator != NULL && allocator->freeFcn != NULL )
    {
        allocator->freeFcn( memory, size, allocator->context );
        return;
    }
    free( memory );
}

void* cnRealloc( const cnAllocator* allocator, void* memory, size_t oldSize, size_t newSize,
                 size_t alignment )
{
    void* block = cnAlloc( allocator, newSize, alignment );
    if ( block == NULL && newSize > 0 )
    {
        return NULL;
    }
    if ( memory != NULL && block != NULL )
    {
        memcpy( block, memory, oldSize < newSize ? oldSize : newSize );
    }
    cnFree( allocator, memory, oldSize );
    return block;
}

bool cnReserve( const cnAllocator* allocator, void** array, int* capacity, int needed, int minimum,
                size_t elementSize )
{
    if ( needed <= *capacity )
    {
        return true;
    }
    int grown = *capacity > 0 ? *capacity : minimum;
    while ( grown < needed )
    {
        if ( grown > INT32_MAX / 2 )
        {
            return false;
        }
        grown *= 2;
    }
    void* block =
        cnRealloc( allocator, *array, (size_t)*capacity * elementSize, (size_t)grown * elementSize, 16 );
    if ( block == NULL )
    {
        return false;
    }
    *array = block;
    *capacity = grown;
    return true;
}

bool cnAppendItem( const cnAllocator* allocator, void** array, int* count, int* capacity, int minimum,
                   const void* element, size_t elementSize )
{
    if ( cnReserve( allocator, array, capacity, *count + 1, minimum, elementSize ) == false )
    {
        return false;
    }
    memcpy( (char*)*array + (size_t)*count * elementSize, element, elementSize );
    *count += 1;
    return true;
}

void* cnAllocArray( const cnAllocator* allocator, size_t count, size_t size )
{
    if ( count == 0 || size == 0 || count > SIZE_MAX / size )
    {
        return NULL;
    }
    void* block = cnAlloc( allocator, count * size, 16 );
    if ( block != NULL )
    {
        memset( block, 0, count * size );
    }
    return block;
}

void cnFormat( char* buffer, int size, const char* format, ... )
{
    if ( buffer == NULL || size <= 0 )
    {
        return;
    }
    va_list args;
    va_start( args, format );
    vsnprintf( buffer, (size_t)size, format, args );
    va_end( args );
}

void cnFormatNumber( char* buffer, int size, double value )
{
    if ( isnan( value ) )
    {
        cnFormat( buffer, size, "NaN" );
    }
    else if ( isinf( value ) )
    {
        cnFormat( buffer, size, value > 0.0 ? "Infinity" : "-Infinity" );
    }
    else
    {
        cnFormat( buffer, size, "%.17g", value );
        // prefer the shortest form that reads back exactly
        for ( int precision = 1; precision < 17; ++precision )
        {
            char shorter[64];
            snprintf( shorter, sizeof( shorter ), "%.*g", precision, value );
            if ( strtod( shorter, NULL ) == value )
            {
                cnFormat( buffer, size, "%s", shorter );
                break;
            }
        }
    }
}

void cnDefaultLog( cnLogLevel level, int status, const char* message, void* context )
{
    (void)status;
    (void)context;
    const char* prefix = level == cn_logError ? "error" : level == cn_logWarning ? "warning" : "info";
    fprintf( stderr, "cairn: %s: %s\n", prefix, message );
}
