// SPDX-License-Identifier: MIT
// Threads (engine/base/task.c, docs/architecture.md "Threads"): the parallel loop visits every item
// once with worker indices in range, on the world's own pool and through a game's task callbacks;
// the state hash sees a change of one bit; and the same scene stepped on 1, 2 and 4 workers ends
// with the same state hash: pyramid20 under the sweep solvers and PGS-SM, a smaller pyramid under
// every other solver (the ipm in a cone world), pile1000, the ragdoll and a growing colony under
// ReLCP, a world whose worker count changes between steps, and a world run by the game's own
// threads; the coloured sweep gives the same hash with SIMD on and off.

#include "systems.h"
#include "task.h"
#include "test_support.h"

#include "cairn/scene.h"

#include <check.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The light set (the default under the sanitizers, CNT_THREADS_LIGHT=1 or 0 in the environment
// decides): every parallel stage still runs, on fewer solvers, scenes and steps
#ifndef CNT_THREADS_LIGHT_DEFAULT
#    define CNT_THREADS_LIGHT_DEFAULT 0
#endif
static bool cntLight( void )
{
    const char* light = getenv( "CNT_THREADS_LIGHT" );
    return light != NULL ? strcmp( light, "1" ) == 0 : CNT_THREADS_LIGHT_DEFAULT == 1;
}

// ---- the parallel loop ------------------------------------------------------------------------

#define CNT_ITEMS 100003

typedef struct cntVisit
{
    atomic_int visits[CNT_ITEMS];
    atomic_int badWorker;
    atomic_int shortRanges;
    int workerCount;
    int rangeSize;
    int itemCount;
} cntVisit;

static void cntVisitTask( int start, int end, int worker, void* context )
{
    cntVisit* visit = context;
    if ( worker < 0 || worker >= visit->workerCount )
    {
        atomic_fetch_add( &visit->badWorker, 1 );
    }
    if ( end - start < visit->rangeSize && end != visit->itemCount )
    {
        atomic_fetch_add( &visit->shortRanges, 1 );
    }
    for ( int i = start; i < end; ++i )
    {
        atomic_fetch_add( &visit->visits[i], 1 );
    }
}

static void cntCheckVisits( cntVisit* visit, int count )
{
    ck_assert_int_eq( atomic_load( &visit->badWorker ), 0 );
    ck_assert_int_eq( atomic_load( &visit->shortRanges ), 0 );
    for ( int i = 0; i < CNT_ITEMS; ++i )
    {
        ck_assert_msg( atomic_load( &visit->visits[i] ) == ( i < count ? 1 : 0 ), "item %d visited %d times",
                       i, atomic_load( &visit->visits[i] ) );
    }
}

static cntVisit cnt_visit;

START_TEST( pool_visits_every_item_once )
{
    const int workers[] = { 1, 2, 3, 8 };
    const int ranges[] = { 1, 7, 64, 200000 };
    const int counts[] = { 0, 1, 63, 1000, CNT_ITEMS };
    for ( int w = 0; w < 4; ++w )
    {
        cnTaskSystem system;
        const char* why = NULL;
        ck_assert( cnTaskSystem_Create( &system, workers[w], NULL, NULL, NULL, NULL, &why ) );
        ck_assert_int_eq( cnWorkerCount( &system ), workers[w] );
        for ( int r = 0; r < 4; ++r )
        {
            for ( int c = 0; c < 5; ++c )
            {
                // hot and cold: the workers spin or sleep between loops
                cnTaskSystem_SetHot( &system, ( r + c ) % 2 == 0 );
                memset( &cnt_visit, 0, sizeof( cnt_visit ) );
                cnt_visit.workerCount = workers[w];
                cnt_visit.rangeSize = ranges[r];
                cnt_visit.itemCount = counts[c];
                cnParallelFor( &system, cntVisitTask, counts[c], ranges[r], &cnt_visit );
                cntCheckVisits( &cnt_visit, counts[c] );
            }
        }
        cnTaskSystem_SetHot( &system, false );
        cnTaskSystem_Destroy( &system, NULL );
    }
}
END_TEST

// A game's task system: each enqueue runs the ranges on threads started for it (worker indices 1
// and up) and on the caller (worker 0) when finished.
#define CNT_GAME_THREADS 3

typedef struct cntGameTask
{
    cnTaskFcn* task;
    void* context;
    int itemCount;
    int rangeSize;
    atomic_int next;
    pthread_t threads[CNT_GAME_THREADS];
    int workerIndex[CNT_GAME_THREADS];
} cntGameTask;

typedef struct cntGame
{
    cntGameTask tasks[4];
    int used;
    atomic_int enqueued;
} cntGame;

typedef struct cntGameWorker
{
    cntGameTask* task;
    int index;
} cntGameWorker;

static void cntGameRun( cntGameTask* task, int worker )
{
    for ( ;; )
    {
        int range = atomic_fetch_add( &task->next, 1 );
        int start = range * task->rangeSize;
        if ( start >= task->itemCount )
        {
            return;
        }
        int end = start + task->rangeSize < task->itemCount ? start + task->rangeSize : task->itemCount;
        task->task( start, end, worker, task->context );
    }
}

static cntGameWorker cnt_gameWorkers[4][CNT_GAME_THREADS];

static void* cntGameThread( void* argument )
{
    cntGameWorker* worker = argument;
    cntGameRun( worker->task, worker->index );
    return NULL;
}

static void* cntGameEnqueue( cnTaskFcn* task, int itemCount, int minRange, void* taskContext,
                             void* userContext )
{
    cntGame* game = userContext;
    atomic_fetch_add( &game->enqueued, 1 );
    int slot = game->used++ % 4;
    cntGameTask* t = game->tasks + slot;
    t->task = task;
    t->context = taskContext;
    t->itemCount = itemCount;
    t->rangeSize = minRange + 3; // the game cuts its own ranges, at least minRange long
    atomic_store( &t->next, 0 );
    for ( int k = 0; k < CNT_GAME_THREADS; ++k )
    {
        cnt_gameWorkers[slot][k] = ( cntGameWorker ){ t, k + 1 };
        ck_assert_int_eq( pthread_create( t->threads + k, NULL, cntGameThread, &cnt_gameWorkers[slot][k] ),
                          0 );
    }
    return t;
}

static void cntGameFinish( void* userTask, void* userContext )
{
    (void)userContext;
    cntGameTask* t = userTask;
    cntGameRun( t, 0 );
    for ( int k = 0; k < CNT_GAME_THREADS; ++k )
    {
        pthread_join( t->threads[k], NULL );
    }
}

static cntGame cnt_game;

START_TEST( game_callbacks_visit_every_item_once )
{
    memset( &cnt_game, 0, sizeof( cnt_game ) );
    cnTaskSystem system;
    const char* why = NULL;
    ck_assert( cnTaskSystem_Create( &system, CNT_GAME_THREADS + 1, cntGameEnqueue, cntGameFinish, &cnt_game,
                                    NULL, &why ) );
    memset( &cnt_visit, 0, sizeof( cnt_visit ) );
    cnt_visit.workerCount = CNT_GAME_THREADS + 1;
    cnt_visit.rangeSize = 50;
    cnt_visit.itemCount = CNT_ITEMS;
    cnParallelFor( &system, cntVisitTask, CNT_ITEMS, 50, &cnt_visit );
    cntCheckVisits( &cnt_visit, CNT_ITEMS );
    ck_assert_int_eq( atomic_load( &cnt_game.enqueued ), 1 );
    cnTaskSystem_Destroy( &system, NULL );
}
END_TEST

// ---- the state hash ---------------------------------------------------------------------------

START_TEST( state_hash_sees_one_bit )
{
    cnWorldDef def = cnDefaultWorldDef();
    cnWorldId world = cnCreateWorld( &def );
    cnBodyDef bodyDef = cnDefaultBodyDef();
    bodyDef.position = cnMakeVec3( 0.0, 0.0, 1.0 );
    cnBodyId body = cnCreateBody( world, &bodyDef );
    uint64_t before = cnWorld_GetStateHash( world );
    ck_assert( before != 0 );
    ck_assert( cnWorld_GetStateHash( world ) == before );
    cnBody_SetTransform( body, cnMakeVec3( 0.0, 0.0, nextafter( 1.0, 2.0 ) ), cn_quatIdentity );
    ck_assert( cnWorld_GetStateHash( world ) != before );
    cnBody_SetTransform( body, cnMakeVec3( 0.0, 0.0, 1.0 ), cn_quatIdentity );
    ck_assert( cnWorld_GetStateHash( world ) == before );
    cnBody_SetLinearVelocity( body, cnMakeVec3( 0.0, -0.0, 0.0 ) );
    ck_assert( cnWorld_GetStateHash( world ) != before ); // -0 is another bit pattern
    cnDestroyWorld( world );
    ck_assert( cnWorld_GetStateHash( world ) == 0 );
}
END_TEST

// ---- the same bits on any number of workers -----------------------------------------------------

static cxSceneSystems cnt_systems;
static cnSceneSystem cnt_handlers[CX_SCENE_SYSTEM_COUNT];

// Load a scene with overrides and `threads` workers (0: the scene's own), run `steps` steps; the
// state hash at the end, and the largest contact count seen in *contacts (nullable).
static uint64_t cntRunScene( const char* file, const char* const* overrides, int overrideCount, int threads,
                             int steps, int* contacts )
{
    char path[512];
    snprintf( path, sizeof( path ), "%s/scenes/%s", CN_ASSETS_DIR, file );
    const char* all[8];
    char threadKey[64];
    int count = 0;
    for ( int i = 0; i < overrideCount && count < 7; ++i )
    {
        all[count++] = overrides[i];
    }
    if ( threads > 0 )
    {
        snprintf( threadKey, sizeof( threadKey ), "world.threads=%d", threads );
        all[count++] = threadKey;
    }
    memset( &cnt_systems, 0, sizeof( cnt_systems ) );
    cnSceneOptions options = cnDefaultSceneOptions();
    options.overrides = all;
    options.overrideCount = count;
    options.systems = cnt_handlers;
    options.systemCount = cxGetSceneSystems( &cnt_systems, cnt_handlers, CX_SCENE_SYSTEM_COUNT );
    cnScene scene;
    cnSceneError error;
    cnStatus status = cnLoadSceneFile( path, &options, &scene, &error );
    ck_assert_msg( status == cn_statusOk, "%s", error.text );
    ck_assert_int_eq( cnWorld_GetWorkerCount( scene.worldId ), threads > 0 ? threads : 1 );
    double dt = cnWorld_GetDef( scene.worldId ).timeStep;
    int most = 0;
    for ( int i = 0; i < steps; ++i )
    {
        ck_assert_int_eq( cnWorld_Step( scene.worldId, dt ), cn_statusOk );
        cnStepReport report = cnWorld_GetStepReport( scene.worldId );
        most = report.contactCount > most ? report.contactCount : most;
    }
    uint64_t hash = cnWorld_GetStateHash( scene.worldId );
    cnDestroyWorld( scene.worldId );
    if ( contacts != NULL )
    {
        *contacts = most;
    }
    return hash;
}

// the same hash on 1, 2 and 4 workers, with contacts to solve
static uint64_t cntSameOnEveryCount( const char* file, const char* const* overrides, int overrideCount,
                                     int steps, int minContacts )
{
    int contacts = 0;
    uint64_t one = cntRunScene( file, overrides, overrideCount, 1, steps, &contacts );
    ck_assert_msg( contacts >= minContacts, "%s: %d contacts, expected at least %d", file, contacts,
                   minContacts );
    for ( int threads = 2; threads <= 4; threads += 2 )
    {
        uint64_t other = cntRunScene( file, overrides, overrideCount, threads, steps, NULL );
        ck_assert_msg( other == one, "%s (%s%s): %016llx on 1 worker, %016llx on %d", file,
                       overrideCount > 0 ? overrides[0] : "", overrideCount > 1 ? ", ..." : "",
                       (unsigned long long)one, (unsigned long long)other, threads );
    }
    printf( "%-22s %-40s %3d steps, %5d contacts: %016llx on 1, 2 and 4 workers\n", file,
            overrideCount > 0 ? overrides[0] : "", steps, contacts, (unsigned long long)one );
    return one;
}

START_TEST( pyramid20_under_the_sweep_solvers )
{
    const char* const solvers[] = { "pgs", "psor", "pgj", "amgs", "pgs_sm" };
    for ( int s = 0; s < ( cntLight() ? 1 : 5 ); ++s )
    {
        char key[64];
        snprintf( key, sizeof( key ), "world.solver.name=%s", solvers[s] );
        const char* overrides[1] = { key };
        uint64_t plain = cntSameOnEveryCount( "pyramid20.json", overrides, 1, 20, 1000 );
        if ( s == 0 || s == 3 || s == 4 )
        {
            // in level order: the sweeps run a level's contacts on every worker at once, and the
            // levels one after another are the sweep in cache order itself, so the sweep solvers
            // end with the plain solve's bits. pgs_sm factorises its rows in the levels' order, so
            // it may differ in round-off there.
            const char* colored[2] = { key, "world.coloring=true" };
            uint64_t leveled = cntSameOnEveryCount( "pyramid20.json", colored, 2, 20, 1000 );
            if ( s != 4 )
            {
                ck_assert_msg( leveled == plain, "%s: %016llx coloured, %016llx plain", solvers[s],
                               (unsigned long long)leveled, (unsigned long long)plain );
            }
        }
    }
}
END_TEST

START_TEST( small_pyramid_under_every_other_solver )
{
    // a 6-row pyramid (21 boxes): the pivoting, Newton and interior-point solvers at test cost
    const char* const solvers[] = { "relcp", "newton_minmap", "newton_fb", "lemke", "bbpgd" };
    for ( int s = 0; s < ( cntLight() ? 1 : 5 ); ++s )
    {
        char key[64];
        snprintf( key, sizeof( key ), "world.solver.name=%s", solvers[s] );
        const char* overrides[2] = { key, "generators[0].rows=6" };
        cntSameOnEveryCount( "pyramid15_small.json", overrides, 2, 20, 40 );
    }
    if ( cntLight() == false )
    {
        const char* cone[3] = { "world.solver.name=ipm", "world.friction_model=cone",
                                "generators[0].rows=6" };
        cntSameOnEveryCount( "pyramid15_small.json", cone, 3, 10, 40 );
    }
}
END_TEST

START_TEST( pile1000_ragdoll_and_colony )
{
    bool light = cntLight();
    // the pile lands on its bin between steps 60 and 90
    if ( light == false )
    {
        cntSameOnEveryCount( "pile1000.json", NULL, 0, 100, 1000 );
    }
    const char* colored[1] = { "world.coloring=true" };
    uint64_t leveled =
        cntSameOnEveryCount( "pile1000.json", colored, 1, light ? 70 : 100, light ? 100 : 1000 );
    if ( light == false )
    {
        // the levels give the sweep in cache order: the plain solve's bits
        ck_assert_uint_eq( leveled, cntRunScene( "pile1000.json", NULL, 0, 1, 100, NULL ) );
    }
    const char* pgsSm[1] = { "world.solver.name=pgs_sm" };
    cntSameOnEveryCount( "joint_ragdoll.json", NULL, 0, light ? 60 : 150, 1 );
    if ( light == false )
    {
        cntSameOnEveryCount( "joint_ragdoll.json", pgsSm, 1, 150, 1 );
    }
    // a colony grown ten times faster than the scene's: about 40 cells
    const char* colony[1] = { "systems.colony.growth_rate=10" };
    cntSameOnEveryCount( "colony.json", colony, 1, light ? 200 : 300, 10 );
}
END_TEST

// The coloured sweep four contact points at a time in AVX2 (where the CPU has it, the parameter
// simd = auto) and in the scalar kernel (simd = off): the same hash, on 1, 2 and 4 workers, under
// the sweep solvers and PGS-SM (AMGS keeps its memory in every sweep: its sweeps stay in group order
// either way), on pyramid20 and pile1000
START_TEST( colored_sweep_simd_on_and_off )
{
    bool light = cntLight();
    const char* const solvers[] = { "pgs", "psor", "amgs", "pgs_sm" };
    const char* const scenes[] = { "pyramid20.json", "pile1000.json" };
    for ( int scene = 0; scene < 2; ++scene )
    {
        int steps = scene == 0 ? 20 : ( light ? 70 : 100 );
        int contacts = scene == 0 ? 1000 : ( light ? 100 : 1000 );
        for ( int s = 0; s < ( light ? 1 : 4 ); ++s )
        {
            if ( scene == 1 && s > 0 )
            {
                // on the pile, pgs alone: psor runs pgs's kernel, amgs keeps group order, and pgs_sm
                // takes 70 s for 100 steps of the pile (its sweeps are checked on pyramid20)
                continue;
            }
            char key[64];
            snprintf( key, sizeof( key ), "world.solver.name=%s", solvers[s] );
            const char* on[3] = { key, "world.coloring=true", "world.solver.params.simd=auto" };
            const char* off[3] = { key, "world.coloring=true", "world.solver.params.simd=off" };
            uint64_t simd = cntSameOnEveryCount( scenes[scene], on, 3, steps, contacts );
            uint64_t scalar = cntSameOnEveryCount( scenes[scene], off, 3, steps, contacts );
            ck_assert_msg( simd == scalar, "%s, %s: %016llx with simd, %016llx without", scenes[scene],
                           solvers[s], (unsigned long long)simd, (unsigned long long)scalar );
        }
    }
}
END_TEST

START_TEST( worker_count_changes_between_steps )
{
    const char* overrides[1] = { "generators[0].rows=10" };
    uint64_t straight = cntRunScene( "pyramid15_small.json", overrides, 1, 1, 60, NULL );

    char path[512];
    snprintf( path, sizeof( path ), "%s/scenes/pyramid15_small.json", CN_ASSETS_DIR );
    cnSceneOptions options = cnDefaultSceneOptions();
    options.overrides = overrides;
    options.overrideCount = 1;
    cnScene scene;
    cnSceneError error;
    ck_assert_msg( cnLoadSceneFile( path, &options, &scene, &error ) == cn_statusOk, "%s", error.text );
    for ( int i = 0; i < 60; ++i )
    {
        ck_assert_int_eq( cnWorld_SetWorkerCount( scene.worldId, 1 + i % 3 ), cn_statusOk );
        ck_assert_int_eq( cnWorld_GetWorkerCount( scene.worldId ), 1 + i % 3 );
        ck_assert_int_eq( cnWorld_Step( scene.worldId, 1.0 / 60.0 ), cn_statusOk );
    }
    ck_assert( cnWorld_GetStateHash( scene.worldId ) == straight );
    // bad counts are refused and change nothing
    ck_assert_int_eq( cnWorld_SetWorkerCount( scene.worldId, 0 ), cn_statusInvalidArgument );
    ck_assert_int_eq( cnWorld_SetWorkerCount( scene.worldId, CN_MAX_WORKERS + 1 ), cn_statusInvalidArgument );
    ck_assert_int_eq( cnWorld_GetWorkerCount( scene.worldId ), 3 );
    cnDestroyWorld( scene.worldId );
}
END_TEST

START_TEST( game_task_system_gives_the_same_bits )
{
    const char* overrides[1] = { "generators[0].rows=10" };
    uint64_t own = cntRunScene( "pyramid15_small.json", overrides, 1, 1, 40, NULL );

    memset( &cnt_game, 0, sizeof( cnt_game ) );
    char path[512];
    snprintf( path, sizeof( path ), "%s/scenes/pyramid15_small.json", CN_ASSETS_DIR );
    cnSceneOptions options = cnDefaultSceneOptions();
    options.overrides = overrides;
    options.overrideCount = 1;
    options.worldDef.workerCount = CNT_GAME_THREADS + 1;
    options.worldDef.enqueueTask = cntGameEnqueue;
    options.worldDef.finishTask = cntGameFinish;
    options.worldDef.userTaskContext = &cnt_game;
    cnScene scene;
    cnSceneError error;
    ck_assert_msg( cnLoadSceneFile( path, &options, &scene, &error ) == cn_statusOk, "%s", error.text );
    ck_assert_int_eq( cnWorld_GetWorkerCount( scene.worldId ), CNT_GAME_THREADS + 1 );
    for ( int i = 0; i < 40; ++i )
    {
        ck_assert_int_eq( cnWorld_Step( scene.worldId, 1.0 / 60.0 ), cn_statusOk );
    }
    ck_assert( cnWorld_GetStateHash( scene.worldId ) == own );
    ck_assert( atomic_load( &cnt_game.enqueued ) > 0 ); // the world did use the game's threads
    cnDestroyWorld( scene.worldId );
}
END_TEST

START_TEST( bad_task_settings_are_refused )
{
    cntLogCapture log = { 0 };
    cnWorldDef def = cntWorldDef( &log, NULL );
    def.workerCount = 0;
    ck_assert( cnWorld_IsValid( cnCreateWorld( &def ) ) == false );
    ck_assert( strstr( log.lastMessage, "workerCount" ) != NULL );
    def.workerCount = 2;
    def.enqueueTask = cntGameEnqueue;
    ck_assert( cnWorld_IsValid( cnCreateWorld( &def ) ) == false );
    ck_assert( strstr( log.lastMessage, "finishTask" ) != NULL );
}
END_TEST

static Suite* cntThreadsSuite( void )
{
    Suite* suite = suite_create( "threads" );
    TCase* loop = tcase_create( "loop" );
    tcase_set_timeout( loop, 600 );
    tcase_add_test( loop, pool_visits_every_item_once );
    tcase_add_test( loop, game_callbacks_visit_every_item_once );
    tcase_add_test( loop, state_hash_sees_one_bit );
    tcase_add_test( loop, bad_task_settings_are_refused );
    suite_add_tcase( suite, loop );
    TCase* bits = tcase_create( "same bits" );
    tcase_set_timeout( bits, 1200 );
    tcase_add_test( bits, pyramid20_under_the_sweep_solvers );
    tcase_add_test( bits, small_pyramid_under_every_other_solver );
    tcase_add_test( bits, pile1000_ragdoll_and_colony );
    tcase_add_test( bits, colored_sweep_simd_on_and_off );
    tcase_add_test( bits, worker_count_changes_between_steps );
    tcase_add_test( bits, game_task_system_gives_the_same_bits );
    suite_add_tcase( suite, bits );
    return suite;
}

int main( void )
{
    cntSuiteFcn* const suites[] = { cntThreadsSuite };
    return cntRunSuites( suites, 1 );
}
