// SPDX-License-Identifier: MIT
// The world's own worker threads. One loop at a time: the calling thread publishes the loop (its
// task, context and range count) under a new generation number, every worker takes ranges from one
// atomic counter until none is left and then says it is done, and the caller, which takes ranges
// too, returns once every worker has said so. So no worker can still be reading a loop when the
// next one is published. Between loops a worker spins a short while (the stages of a step follow
// one another within microseconds), then sleeps on a condition variable until the next loop.

#include "task.h"

#include "core.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>

#if defined( __x86_64__ ) || defined( __i386__ )
#    include <immintrin.h>
#    define CN_PAUSE() _mm_pause()
#else
#    define CN_PAUSE() ( (void)0 )
#endif

// pauses a worker spins before it sleeps (about 0.2 ms), and the caller before it yields
#define CN_SPIN_LIMIT 4000

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

    // the loop being run, written before its generation is published
    cnTaskFcn* task;
    void* context;
    int itemCount;
    int rangeSize;
    int rangeCount;

    atomic_uint generation; // bumped for every loop
    atomic_int nextRange;
    atomic_int doneWorkers; // workers that found no range left in this generation
    atomic_bool quit;
};

static void cnRunRanges( cnTaskPool* pool, int workerIndex )
{
    for ( ;; )
    {
        int range = atomic_fetch_add_explicit( &pool->nextRange, 1, memory_order_relaxed );
        if ( range >= pool->rangeCount )
        {
            return;
        }
        int start = range * pool->rangeSize;
        int end = start + pool->rangeSize < pool->itemCount ? start + pool->rangeSize : pool->itemCount;
        pool->task( start, end, workerIndex, pool->context );
    }
}

static void* cnWorkerMain( void* argument )
{
    cnTaskPool* pool = ( (cnWorkerStart*)argument )->pool;
    int index = ( (cnWorkerStart*)argument )->index;
    unsigned seen = 0;
    for ( ;; )
    {
        unsigned generation = atomic_load_explicit( &pool->generation, memory_order_acquire );
        for ( int spin = 0; generation == seen && spin < CN_SPIN_LIMIT; ++spin )
        {
            CN_PAUSE();
            generation = atomic_load_explicit( &pool->generation, memory_order_acquire );
        }
        if ( generation == seen )
        {
            pthread_mutex_lock( &pool->mutex );
            while ( atomic_load_explicit( &pool->generation, memory_order_acquire ) == seen &&
                    atomic_load( &pool->quit ) == false )
            {
                pthread_cond_wait( &pool->wake, &pool->mutex );
            }
            generation = atomic_load_explicit( &pool->generation, memory_order_acquire );
            pthread_mutex_unlock( &pool->mutex );
        }
        if ( atomic_load( &pool->quit ) )
        {
            return NULL;
        }
        seen = generation;
        cnRunRanges( pool, index );
        atomic_fetch_add_explicit( &pool->doneWorkers, 1, memory_order_release );
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
    atomic_init( &pool->generation, 0u );
    atomic_init( &pool->nextRange, 0 );
    atomic_init( &pool->doneWorkers, 0 );
    atomic_init( &pool->quit, false );
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
    if ( system == NULL || system->workerCount <= 1 || itemCount <= rangeSize )
    {
        task( 0, itemCount, 0, context );
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
    pool->task = task;
    pool->context = context;
    pool->itemCount = itemCount;
    pool->rangeSize = rangeSize;
    pool->rangeCount = ( itemCount + rangeSize - 1 ) / rangeSize;
    atomic_store_explicit( &pool->nextRange, 0, memory_order_relaxed );
    atomic_store_explicit( &pool->doneWorkers, 0, memory_order_relaxed );
    pthread_mutex_lock( &pool->mutex );
    atomic_fetch_add_explicit( &pool->generation, 1u, memory_order_release );
    pthread_cond_broadcast( &pool->wake );
    pthread_mutex_unlock( &pool->mutex );

    cnRunRanges( pool, 0 );
    int spin = 0;
    while ( atomic_load_explicit( &pool->doneWorkers, memory_order_acquire ) < pool->threadCount )
    {
        if ( ++spin < CN_SPIN_LIMIT )
        {
            CN_PAUSE();
        }
        else
        {
            sched_yield();
        }
    }
}
