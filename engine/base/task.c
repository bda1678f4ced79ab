// SPDX-License-Identifier: MIT
// The world's own worker threads. One loop at a time. Its state is one 64-bit atomic word: the
// loop's generation (20 bits) and its untaken ranges [front, back) (22 bits each). The calling
// thread writes the loop's task and context, then publishes the word; it takes ranges from the
// front and the workers from the back, each by a compare-and-swap on the word, so a thread can take
// one only while that loop still has one untaken, and a loop whose ranges are not all finished is
// never replaced. The caller takes ranges too and returns when every range has finished (a
// counter), without waiting for workers that have not woken up: a busy machine never makes a loop
// wait for a thread it has not scheduled. Inside a step (cnTaskSystem_SetHot) a worker spins
// between loops, since the stages of a step follow one another within microseconds and waking a
// sleeping thread takes tens of them; outside it spins a short while, then sleeps on a condition
// variable until the next loop.

#include "task.h"

#include "core.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#if defined( __x86_64__ ) || defined( __i386__ )
#    include <immintrin.h>
#    define CN_PAUSE() _mm_pause()
#else
#    define CN_PAUSE() ( (void)0 )
#endif

// pauses a worker spins before it sleeps outside a step (about 0.2 ms)
#define CN_SPIN_LIMIT 4000

// the state word: generation | front | back
#define CN_RANGE_BITS 22
#define CN_RANGE_MASK ( ( UINT64_C( 1 ) << CN_RANGE_BITS ) - 1 )
#define CN_MAX_RANGES ( (int)CN_RANGE_MASK )

static inline uint64_t cnPackState( uint64_t generation, uint64_t front, uint64_t back )
{
    return ( generation << ( 2 * CN_RANGE_BITS ) ) | ( front << CN_RANGE_BITS ) | back;
}

static inline uint64_t cnStateGeneration( uint64_t state )
{
    return state >> ( 2 * CN_RANGE_BITS );
}

typedef struct cnWorkerStart
{
    struct cnTaskPool* pool;
    int index;
} cnWorkerStart;

struct cnTaskPool
{
    pthread_t threads[CN_MAX_WORKERS];
    cnWorkerStart starts[CN_MAX_WORKERS]; // what each thread is started with
    int threadCount;
    pthread_mutex_t mutex;
    pthread_cond_t wake;

    // the loop being run, written before its state word is published
    cnTaskFcn* task;
    void* context;
    int itemCount;
    int rangeSize;
    uint64_t generation; // the caller's count of loops (the word keeps its low 20 bits)

    _Alignas( 64 ) _Atomic uint64_t state;
    _Alignas( 64 ) atomic_int finished; // ranges of the current loop that have run
    atomic_bool quit;
    atomic_bool hot; // inside a step: workers spin between loops instead of sleeping
};

// While this thread runs a range: its worker index + 1. A loop started from inside a range runs
// inline under that index (the pool runs one loop at a time).
static _Thread_local int cn_insideRange = 0;

// Take and run ranges of the loop whose word was `state` until it has none left.
static void cnRunRanges( cnTaskPool* pool, uint64_t state, int workerIndex )
{
    // the calling thread takes ranges from the front, the workers from the back: with two threads
    // each keeps to its own end of every loop, and so of the arrays the loops walk (contacts, rows,
    // bodies), whose cache lines then stay in its own cache from stage to stage
    bool fromBack = workerIndex > 0;
    for ( ;; )
    {
        uint64_t front = ( state >> CN_RANGE_BITS ) & CN_RANGE_MASK;
        uint64_t back = state & CN_RANGE_MASK;
        if ( front >= back )
        {
            return;
        }
        uint64_t taken = fromBack ? state - 1 : state + ( UINT64_C( 1 ) << CN_RANGE_BITS );
        if ( atomic_compare_exchange_weak_explicit( &pool->state, &state, taken, memory_order_acquire,
                                                    memory_order_acquire ) == false )
        {
            // another worker took one, or a new loop started: `state` now holds the word as it is;
            // a new loop is run too, which is what the caller wants
            continue;
        }
        // the range is ours, so its loop cannot finish (nor its task change) before it has run
        uint64_t range = fromBack ? back - 1 : front;
        int start = (int)range * pool->rangeSize;
        int end = start + pool->rangeSize < pool->itemCount ? start + pool->rangeSize : pool->itemCount;
        cn_insideRange = workerIndex + 1;
        pool->task( start, end, workerIndex, pool->context );
        cn_insideRange = 0;
        atomic_fetch_add_explicit( &pool->finished, 1, memory_order_release );
        state = taken;
    }
}

static void* cnWorkerMain( void* argument )
{
    cnTaskPool* pool = ( (cnWorkerStart*)argument )->pool;
    int index = ( (cnWorkerStart*)argument )->index;
    uint64_t seen = 0; // the generation whose ranges this worker has run out of
    for ( ;; )
    {
        uint64_t state = atomic_load_explicit( &pool->state, memory_order_acquire );
        for ( int spin = 0;
              cnStateGeneration( state ) == seen &&
              ( spin < CN_SPIN_LIMIT || atomic_load_explicit( &pool->hot, memory_order_relaxed ) );
              ++spin )
        {
            if ( ( spin & 1023 ) == 1023 )
            {
                // more workers than free cores: let the thread that has the work run
                sched_yield();
            }
            CN_PAUSE();
            state = atomic_load_explicit( &pool->state, memory_order_acquire );
        }
        if ( cnStateGeneration( state ) == seen )
        {
            pthread_mutex_lock( &pool->mutex );
            while ( cnStateGeneration( atomic_load_explicit( &pool->state, memory_order_acquire ) ) == seen &&
                    atomic_load( &pool->quit ) == false )
            {
                pthread_cond_wait( &pool->wake, &pool->mutex );
            }
            pthread_mutex_unlock( &pool->mutex );
            state = atomic_load_explicit( &pool->state, memory_order_acquire );
        }
        if ( atomic_load( &pool->quit ) )
        {
            return NULL;
        }
        seen = cnStateGeneration( state );
        cnRunRanges( pool, state, index );
    }
}

bool cnTaskSystem_Create( cnTaskSystem* system, int workerCount, cnEnqueueTaskFcn* enqueueTask,
                          cnFinishTaskFcn* finishTask, void* userContext, const cnAllocator* allocator,
                          const char** why )
{
    memset( system, 0, sizeof( *system ) );
    system->workerCount = 1;
    if ( workerCount <= 1 )
    {
        return true;
    }
    if ( enqueueTask != NULL && finishTask != NULL )
    {
        system->workerCount = workerCount;
        system->enqueueTask = enqueueTask;
        system->finishTask = finishTask;
        system->userContext = userContext;
        return true;
    }

    cnTaskPool* pool = cnAlloc( allocator, sizeof( cnTaskPool ), 64 );
    if ( pool == NULL )
    {
        *why = "out of memory for the worker pool";
        return false;
    }
    memset( pool, 0, sizeof( *pool ) );
    atomic_init( &pool->state, 0 );
    atomic_init( &pool->finished, 0 );
    atomic_init( &pool->quit, false );
    atomic_init( &pool->hot, false );
    pthread_mutex_init( &pool->mutex, NULL );
    pthread_cond_init( &pool->wake, NULL );

    int wanted = workerCount - 1;
    for ( int i = 0; i < wanted; ++i )
    {
        pool->starts[i] = ( cnWorkerStart ){ pool, i + 1 };
        if ( pthread_create( pool->threads + i, NULL, cnWorkerMain, pool->starts + i ) != 0 )
        {
            break;
        }
        pool->threadCount += 1;
    }
    system->pool = pool;
    system->workerCount = pool->threadCount + 1;
    if ( pool->threadCount < wanted )
    {
        *why = "the system refused to start every worker thread";
        return false;
    }
    return true;
}

void cnTaskSystem_Destroy( cnTaskSystem* system, const cnAllocator* allocator )
{
    cnTaskPool* pool = system->pool;
    if ( pool != NULL )
    {
        pthread_mutex_lock( &pool->mutex );
        atomic_store( &pool->quit, true );
        pthread_cond_broadcast( &pool->wake );
        pthread_mutex_unlock( &pool->mutex );
        for ( int i = 0; i < pool->threadCount; ++i )
        {
            pthread_join( pool->threads[i], NULL );
        }
        pthread_cond_destroy( &pool->wake );
        pthread_mutex_destroy( &pool->mutex );
        cnFree( allocator, pool, sizeof( cnTaskPool ) );
    }
    memset( system, 0, sizeof( *system ) );
    system->workerCount = 1;
}

void cnParallelFor( const cnTaskSystem* system, cnTaskFcn* task, int itemCount, int rangeSize, void* context )
{
    if ( itemCount <= 0 || task == NULL )
    {
        return;
    }
    rangeSize = rangeSize > 1 ? rangeSize : 1;
    if ( system == NULL || system->workerCount <= 1 || itemCount <= rangeSize || cn_insideRange > 0 )
    {
        task( 0, itemCount, cn_insideRange > 0 ? cn_insideRange - 1 : 0, context );
        return;
    }
    if ( system->pool == NULL )
    {
        void* userTask = system->enqueueTask( task, itemCount, rangeSize, context, system->userContext );
        if ( userTask != NULL )
        {
            system->finishTask( userTask, system->userContext );
        }
        return;
    }

    cnTaskPool* pool = system->pool;
    int rangeCount = ( itemCount - 1 ) / rangeSize + 1;
    if ( rangeCount > CN_MAX_RANGES )
    {
        rangeSize = ( itemCount - 1 ) / CN_MAX_RANGES + 1;
        rangeCount = ( itemCount - 1 ) / rangeSize + 1;
    }
    // the previous loop has finished: no worker holds a range of it, so its fields can change
    pool->task = task;
    pool->context = context;
    pool->itemCount = itemCount;
    pool->rangeSize = rangeSize;
    atomic_store_explicit( &pool->finished, 0, memory_order_relaxed );
    pool->generation = ( pool->generation + 1 ) & ( ( UINT64_C( 1 ) << ( 64 - 2 * CN_RANGE_BITS ) ) - 1 );
    if ( pool->generation == 0 )
    {
        pool->generation = 1; // 0 is the workers' "seen nothing yet"
    }
    uint64_t state = cnPackState( pool->generation, 0, (uint64_t)rangeCount );
    pthread_mutex_lock( &pool->mutex );
    atomic_store_explicit( &pool->state, state, memory_order_release );
    pthread_cond_broadcast( &pool->wake );
    pthread_mutex_unlock( &pool->mutex );

    cnRunRanges( pool, state, 0 );
    int spin = 0;
    while ( atomic_load_explicit( &pool->finished, memory_order_acquire ) < rangeCount )
    {
        if ( ( ++spin & 1023 ) == 0 )
        {
            sched_yield();
        }
        CN_PAUSE();
    }
}

void cnTaskSystem_SetHot( const cnTaskSystem* system, bool hot )
{
    if ( system->pool != NULL )
    {
        atomic_store_explicit( &system->pool->hot, hot, memory_order_relaxed );
    }
}
