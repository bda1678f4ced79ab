// SPDX-License-Identifier: MIT
#pragma once

// The task interface every layer runs its parallel loops through: the game's own task callbacks
// (cnWorldDef.enqueueTask and finishTask, Box2D v3's model) or, without them, a small pool of
// pthreads that the world owns. A loop's items are split into fixed ranges whatever the worker
// count, and a loop that must add things up does it per range into its own slot and then in range
// order, so that its result never depends on how many workers ran it or which ran what.

#include "cairn/base.h"

#include <stdbool.h>

typedef struct cnTaskPool cnTaskPool;

typedef struct cnTaskSystem
{
    int workerCount; // >= 1; 1 runs every loop on the calling thread
    cnEnqueueTaskFcn* enqueueTask;
    cnFinishTaskFcn* finishTask;
    void* userContext;
    cnTaskPool* pool; // the world's own threads (workerCount - 1 of them), when the game gave none
} cnTaskSystem;

// Start a task system of `workerCount` workers: the game's callbacks when both are given, else
// workerCount - 1 pthreads of our own. False when the threads could not be started (the system
// then runs on one worker and says so through *why).
bool cnTaskSystem_Create( cnTaskSystem* system, int workerCount, cnEnqueueTaskFcn* enqueueTask,
                          cnFinishTaskFcn* finishTask, void* userContext, const cnAllocator* allocator,
                          const char** why );

// Stop and join the pool's threads (nothing for the game's callbacks).
void cnTaskSystem_Destroy( cnTaskSystem* system, const cnAllocator* allocator );

// Run task over [0, itemCount) in ranges of `rangeSize` items and wait for all of them. Ranges
// start at multiples of rangeSize on our own pool and with one worker; the game's callbacks may
// cut them otherwise (at least rangeSize long), so a loop that reduces must make its unit of
// reduction one item. With one worker, or a single range, the calling thread runs it (worker 0).
// NULL system: the calling thread. A loop started from inside a range of the own pool runs
// inline, on the calling worker and under its index.
void cnParallelFor( const cnTaskSystem* system, cnTaskFcn* task, int itemCount, int rangeSize,
                    void* context );

// Between cnTaskSystem_SetHot(true) and (false) (a step) the pool's workers wait for the next loop
// spinning, not sleeping: a loop then starts within a microsecond, at the price of the workers'
// CPU time while the calling thread runs the serial stages. Nothing for the game's callbacks.
void cnTaskSystem_SetHot( const cnTaskSystem* system, bool hot );

// Worker count of a system (1 for NULL).
static inline int cnWorkerCount( const cnTaskSystem* system )
{
    return system != NULL ? system->workerCount : 1;
}
