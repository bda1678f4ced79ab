// SPDX-License-Identifier: MIT
#include "engine_suites.h"
#include "test_support.h"

#include <string.h>

typedef struct cntTrace
{
    char order[64];
    int calls;
} cntTrace;

static void cntRecordBegin( cnWorldId worldId, cnBodyArrays* bodies, double timeStep, void* context )
{
    (void)worldId;
    (void)bodies;
    (void)timeStep;
    cntTrace* trace = context;
    strcat( trace->order, "B" );
}

// at the force stage gravity is already in the force array; add an upward force that cancels it
static void cntCancelGravity( cnWorldId worldId, cnBodyArrays* bodies, double timeStep, void* context )
{
    (void)timeStep;
    cntTrace* trace = context;
    strcat( trace->order, "F" );
    cnVec3 g = cnWorld_GetGravity( worldId );
    for ( int row = 0; row < bodies->count; ++row )
    {
        bodies->forces[row] = cnMulAdd( bodies->forces[row], -bodies->masses[row], g );
    }
}

static void cntRecordEnd( cnWorldId worldId, cnBodyArrays* bodies, double timeStep, void* context )
{
    (void)worldId;
    (void)bodies;
    (void)timeStep;
    cntTrace* trace = context;
    strcat( trace->order, "E" );
    trace->calls += 1;
}

// systems run at their stage, in registration order, and can write forces
START_TEST( systems_run_at_their_stage )
{
    cnWorldDef def = cnDefaultWorldDef();
    cnWorldId world = cnCreateWorld( &def );
    cnBodyDef bodyDef = cnDefaultBodyDef();
    bodyDef.position = cnMakeVec3( 0.0, 0.0, 5.0 );
    cnBodyId body = cnCreateBody( world, &bodyDef );

    cntTrace trace;
    memset( &trace, 0, sizeof( trace ) );
    cnSystemDef end = cnDefaultSystemDef();
    end.name = "end";
    end.stage = cn_stageEnd;
    end.fcn = cntRecordEnd;
    end.context = &trace;
    cnSystemDef forces = cnDefaultSystemDef();
    forces.name = "antigravity";
    forces.stage = cn_stageForces;
    forces.fcn = cntCancelGravity;
    forces.context = &trace;
    cnSystemDef begin = cnDefaultSystemDef();
    begin.name = "begin";
    begin.stage = cn_stageBegin;
    begin.fcn = cntRecordBegin;
    begin.context = &trace;
    ck_assert_int_eq( cnWorld_AddSystem( world, &end ), cn_statusOk );
    ck_assert_int_eq( cnWorld_AddSystem( world, &forces ), cn_statusOk );
    ck_assert_int_eq( cnWorld_AddSystem( world, &begin ), cn_statusOk );
    ck_assert_int_eq( cnWorld_AddSystem( world, &begin ), cn_statusInvalidArgument );

    for ( int i = 0; i < 3; ++i )
    {
        ck_assert_int_eq( cnWorld_Step( world, 0.1 ), cn_statusOk );
    }
    ck_assert_str_eq( trace.order, "BFEBFEBFE" );
    ck_assert( cnBody_GetPosition( body ).z == 5.0 );

    // without the force system the body falls
    ck_assert_int_eq( cnWorld_RemoveSystem( world, "antigravity" ), cn_statusOk );
    ck_assert_int_eq( cnWorld_RemoveSystem( world, "antigravity" ), cn_statusInvalidArgument );
    ck_assert_int_eq( cnWorld_Step( world, 0.1 ), cn_statusOk );
    ck_assert( cnBody_GetPosition( body ).z < 5.0 );
    ck_assert_int_eq( trace.calls, 4 );
    cnDestroyWorld( world );
}
END_TEST

typedef struct cntColony
{
    double divideAt;
    int divisions;
} cntColony;

// a system that divides every body past a height into two: bodies are created mid-step
static void cntDivide( cnWorldId worldId, cnBodyArrays* bodies, double timeStep, void* context )
{
    (void)timeStep;
    cntColony* colony = context;
    int count = bodies->count;
    for ( int row = 0; row < count; ++row )
    {
        if ( bodies->transforms[row].p.z > colony->divideAt )
        {
            continue;
        }
        cnBodyId parent = bodies->ids[row];
        cnBodyDef def = cnDefaultBodyDef();
        def.position = cnAdd( cnBody_GetPosition( parent ), cnMakeVec3( 1.0, 0.0, 10.0 ) );
        cnBodyId child = cnCreateBody( worldId, &def );
        ck_assert( cnBody_IsValid( child ) );
        colony->divisions += 1;
        // the view is stale now: stop here and divide more next step
        return;
    }
}

START_TEST( systems_may_create_bodies )
{
    cnWorldDef def = cnDefaultWorldDef();
    cnWorldId world = cnCreateWorld( &def );
    cnBodyDef bodyDef = cnDefaultBodyDef();
    cnCreateBody( world, &bodyDef );

    cntColony colony = { -0.5, 0 };
    cnSystemDef divide = cnDefaultSystemDef();
    divide.name = "divide";
    divide.stage = cn_stageEnd;
    divide.fcn = cntDivide;
    divide.context = &colony;
    ck_assert_int_eq( cnWorld_AddSystem( world, &divide ), cn_statusOk );
    for ( int i = 0; i < 120; ++i )
    {
        ck_assert_int_eq( cnWorld_Step( world, 1.0 / 60.0 ), cn_statusOk );
    }
    ck_assert_int_gt( colony.divisions, 0 );
    ck_assert_int_eq( cnWorld_GetBodyCount( world ), 1 + colony.divisions );
    ck_assert_int_eq( cnWorld_GetStepReport( world ).bodyCount, 1 + colony.divisions );
    cnDestroyWorld( world );
}
END_TEST

static void cntStepInside( cnWorldId worldId, cnBodyArrays* bodies, double timeStep, void* context )
{
    (void)bodies;
    int* result = context;
    result[0] = (int)cnWorld_Step( worldId, timeStep );
    result[1] = (int)cnDestroyWorld( worldId );
}

// a system cannot step or destroy its own world
START_TEST( reentrant_step_is_refused )
{
    cntLogCapture log;
    cnWorldDef def = cntWorldDef( &log, NULL );
    cnWorldId world = cnCreateWorld( &def );
    int result[2] = { -1, -1 };
    cnSystemDef system = cnDefaultSystemDef();
    system.name = "bad";
    system.fcn = cntStepInside;
    system.context = result;
    ck_assert_int_eq( cnWorld_AddSystem( world, &system ), cn_statusOk );
    ck_assert_int_eq( cnWorld_Step( world, 0.01 ), cn_statusOk );
    ck_assert_int_eq( result[0], cn_statusWorldLocked );
    ck_assert_int_eq( result[1], cn_statusWorldLocked );
    ck_assert( cnWorld_IsValid( world ) );
    ck_assert_int_eq( cnDestroyWorld( world ), cn_statusOk );
}
END_TEST

START_TEST( bad_system_defs )
{
    cntLogCapture log;
    cnWorldDef def = cntWorldDef( &log, NULL );
    cnWorldId world = cnCreateWorld( &def );
    cnSystemDef system = cnDefaultSystemDef();
    system.name = "nofcn";
    ck_assert_int_eq( cnWorld_AddSystem( world, &system ), cn_statusInvalidArgument );
    system.fcn = cntRecordEnd;
    system.name = NULL;
    ck_assert_int_eq( cnWorld_AddSystem( world, &system ), cn_statusInvalidArgument );
    system.name = "x";
    system.stage = cn_stageCount;
    ck_assert_int_eq( cnWorld_AddSystem( world, &system ), cn_statusInvalidArgument );
    ck_assert_int_eq( log.errorCount, 3 );
    ck_assert_int_eq( cnWorld_AddSystem( cn_nullWorldId, &system ), cn_statusInvalidId );
    cnDestroyWorld( world );
}
END_TEST

// what a finish function saw and was allowed to do
typedef struct cntFinishLog
{
    int calls;
    int bodiesSeen;
    cnStatus step;
    bool created;
    cnStatus destroyed;
    cnStatus added;
} cntFinishLog;

static void cntFinish( cnWorldId worldId, void* context )
{
    cntFinishLog* log = context;
    log->calls += 1;
    log->bodiesSeen = cnWorld_GetBodyCount( worldId );
    log->step = cnWorld_Step( worldId, 0.01 );
    cnBodyDef body = cnDefaultBodyDef();
    log->created = CN_IS_NON_NULL( cnCreateBody( worldId, &body ) );
    cnBodyArrays arrays = cnWorld_GetBodyArrays( worldId );
    log->destroyed = arrays.count > 0 ? cnDestroyBody( arrays.ids[0] ) : cn_statusOk;
    cnSystemDef other = cnDefaultSystemDef();
    other.name = "late";
    other.fcn = cntRecordEnd;
    log->added = cnWorld_AddSystem( worldId, &other );
}

// finish functions: once on removal, once on destruction, and a dying world is read-only
START_TEST( finish_runs_once_when_a_system_leaves )
{
    cntLogCapture capture;
    cnWorldDef def = cntWorldDef( &capture, NULL );
    cnWorldId world = cnCreateWorld( &def );
    cnBodyDef body = cnDefaultBodyDef();
    cnCreateBody( world, &body );
    cntFinishLog removed = { 0 };
    cnSystemDef system = cnDefaultSystemDef();
    system.name = "removed";
    system.fcn = cntRecordEnd;
    system.finishFcn = cntFinish;
    system.context = &removed;
    ck_assert_int_eq( cnWorld_AddSystem( world, &system ), cn_statusOk );
    ck_assert_int_eq( cnWorld_RemoveSystem( world, "removed" ), cn_statusOk );
    // removed from a live world: the world may still change
    ck_assert_int_eq( removed.calls, 1 );
    ck_assert_int_eq( removed.step, cn_statusOk );
    ck_assert( removed.created );
    ck_assert_int_eq( cnWorld_RemoveSystem( world, "late" ), cn_statusOk );

    cntFinishLog destroyed = { 0 };
    system.name = "destroyed";
    system.context = &destroyed;
    ck_assert_int_eq( cnWorld_AddSystem( world, &system ), cn_statusOk );
    int bodies = cnWorld_GetBodyCount( world );
    int errors = capture.errorCount;
    ck_assert_int_eq( cnDestroyWorld( world ), cn_statusOk );
    ck_assert_int_eq( destroyed.calls, 1 );
    ck_assert_int_eq( destroyed.bodiesSeen, bodies );
    ck_assert_int_eq( destroyed.step, cn_statusWorldLocked );
    ck_assert( destroyed.created == false );
    ck_assert_int_eq( destroyed.destroyed, cn_statusWorldLocked );
    ck_assert_int_eq( destroyed.added, cn_statusWorldLocked );
    // each refusal logged, saying why
    ck_assert_int_eq( capture.errorCount, errors + 4 );
    ck_assert_msg( strstr( capture.lastMessage, "being destroyed" ) != NULL, "%s", capture.lastMessage );
}
END_TEST

Suite* cntSystemsSuite( void )
{
    Suite* suite = suite_create( "systems" );
    TCase* tc = tcase_create( "stages" );
    tcase_add_test( tc, systems_run_at_their_stage );
    tcase_add_test( tc, systems_may_create_bodies );
    tcase_add_test( tc, reentrant_step_is_refused );
    tcase_add_test( tc, bad_system_defs );
    tcase_add_test( tc, finish_runs_once_when_a_system_leaves );
    suite_add_tcase( suite, tc );
    return suite;
}
