// SPDX-License-Identifier: MIT
#pragma once

/// @defgroup base Base
/// Export macros, memory and logging hooks, version. Stand-alone: only the C library.
/// @{

#include <stddef.h>
#include <stdint.h>

#if defined( _WIN32 ) && defined( CN_BUILDING_SHARED )
#    define CN_EXPORT __declspec( dllexport )
#elif defined( _WIN32 ) && defined( CN_USING_SHARED )
#    define CN_EXPORT __declspec( dllimport )
#elif defined( CN_BUILDING_SHARED )
#    define CN_EXPORT __attribute__( ( visibility( "default" ) ) )
#else
#    define CN_EXPORT
#endif

#ifdef __cplusplus
#    define CN_API    extern "C" CN_EXPORT
#    define CN_INLINE inline
#else
#    define CN_API    CN_EXPORT
#    define CN_INLINE static inline
#endif

/// Library version (semantic versioning).
#define CN_VERSION_MAJOR 0
#define CN_VERSION_MINOR 1
#define CN_VERSION_PATCH 0

/// Allocation hook. Must return memory aligned to `alignment` (a power of two, at most 64),
/// or NULL when out of memory.
typedef void* cnAllocFcn( size_t size, size_t alignment, void* context );

/// Free hook. `size` is the size that was passed to the matching cnAllocFcn call.
typedef void cnFreeFcn( void* memory, size_t size, void* context );

/// A world's allocator. Zero-initialized means "use the C library".
/// Every byte a world owns goes through this door, so a test can count bytes per world.
typedef struct cnAllocator
{
    /// Nullable: the C library's aligned_alloc.
    cnAllocFcn* allocFcn;
    /// Nullable: the C library's free. Set both hooks or neither.
    cnFreeFcn* freeFcn;
    /// Passed back to both hooks.
    void* context;
} cnAllocator;

/// Severity of a log line.
typedef enum cnLogLevel
{
    cn_logError,
    cn_logWarning,
    cn_logInfo,
} cnLogLevel;

/// Log hook. `status` is the cnStatus code (an int, so that this header stands alone) that goes
/// with an error or warning, 0 for plain information. `message` is only valid during the call.
typedef void cnLogFcn( cnLogLevel level, int status, const char* message, void* context );

/// Most workers a world runs its parallel stages on (cnWorldDef.workerCount).
#define CN_MAX_WORKERS 64

/// One range of a parallel loop: items [startIndex, endIndex), run on worker `workerIndex`
/// (0 to workerCount - 1; no two ranges run at once on one worker index).
typedef void cnTaskFcn( int startIndex, int endIndex, int workerIndex, void* taskContext );

/// The game's task system, Box2D v3's way: run `task` over the items [0, itemCount), split into
/// ranges of at least `minRange` items (the last may be shorter) on the game's workers, each call
/// with its own worker index below the world's workerCount. Return a handle that
/// cnFinishTaskFcn waits on, or NULL after running every range before returning. The world
/// passes `taskContext` through; `userContext` is cnWorldDef.userTaskContext.
typedef void* cnEnqueueTaskFcn( cnTaskFcn* task, int itemCount, int minRange, void* taskContext,
                                void* userContext );

/// Wait until every range of the task that cnEnqueueTaskFcn returned has run.
typedef void cnFinishTaskFcn( void* userTask, void* userContext );

/// Assert hook for broken internal invariants (never for bad input, which gets a status).
/// Return 0 to continue, non-zero to abort.
typedef int cnAssertFcn( const char* condition, const char* fileName, int lineNumber );

/// Override the assert handler process-wide. NULL restores the default (print and abort).
CN_API void cnSetAssertFcn( cnAssertFcn* assertFcn );

/// Version string, e.g. "0.1.0". Never NULL.
CN_API const char* cnVersionString( void );

/// The library's monotonic clock: nanosecond ticks from an arbitrary origin (CLOCK_MONOTONIC).
/// Step timings, solver deadlines and the tools' wall times all read this one clock.
CN_API uint64_t cnGetTicks( void );

/// A tick difference in milliseconds.
CN_API double cnTicksToMilliseconds( uint64_t ticks );

/// Milliseconds since `startTicks` (a cnGetTicks reading).
CN_API double cnGetMilliseconds( uint64_t startTicks );

/// @}
