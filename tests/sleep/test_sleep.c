// SPDX-License-Identifier: MIT
// Islands and sleeping (engine/src/island.c): a box at rest falls asleep and holds its pose bit for
// bit; a thrown ball wakes a sleeping stack; setters, impulses, bulk writes and a removed ground
// wake; two piles are two islands and only the disturbed one wakes; with sleep off nothing
// sleeps; a pile of boxes and the 1,000-box bin (assets/scenes/pile1000.json) fall asleep within
// a bound. Each prints its numbers.

#include "test_support.h"

#include "cairn/joint.h"
#include "cairn/scene.h"

#include <check.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#define CNT_DT ( 1.0 / 60.0 )

static cntLogCapture cnt_log;

static cnWorldId cntMakeWorld( bool sleep )
{
    memset( &cnt_log, 0, sizeof( cnt_log ) );
    cnWorldDef def = cntWorldDef( &cnt_log, NULL );
    def.enableSleep = sleep;
    return cnCreateWorld( &def );
}

static cnBodyId cntGround( cnWorldId world )
{
    cnBodyDef def = cnDefaultBodyDef();
    def.type = cn_staticBody;
    def.name = "ground";
    cnBodyId body = cnCreateBody( world, &def );
    cnShapeDef shape = cnDefaultShapeDef();
    cnPlane plane = { { 0.0, 0.0, 1.0 }, 0.0 };
    cnCreatePlaneShape( body, &shape, &plane );
    return body;
}

static cnBodyId cntBox( cnWorldId world, cnVec3 position, double half )
{
    cnBodyDef def = cnDefaultBodyDef();
    def.position = position;
    cnBodyId body = cnCreateBody( world, &def );
    cnShapeDef shape = cnDefaultShapeDef();
    cnBox box = { { half, half, half } };
    cnCreateBoxShape( body, &shape, &box );
    return body;
}

static cnBodyId cntBall( cnWorldId world, cnVec3 position, double radius, cnVec3 velocity )
{
    cnBodyDef def = cnDefaultBodyDef();
    def.position = position;
    def.linearVelocity = velocity;
    cnBodyId body = cnCreateBody( world, &def );
    cnShapeDef shape = cnDefaultShapeDef();
    cnSphere sphere = { radius };
    cnCreateSphereShape( body, &shape, &sphere );
    return body;
}

// Step until every body of `bodies` sleeps, at most `maxSteps`; returns the steps taken, or -1.
static int cntStepUntilAsleep( cnWorldId world, const cnBodyId* bodies, int count, int maxSteps )
{
    for ( int step = 1; step <= maxSteps; ++step )
    {
        ck_assert_int_eq( cnWorld_Step( world, CNT_DT ), cn_statusOk );
        bool asleep = true;
        for ( int i = 0; i < count && asleep; ++i )
        {
            asleep = cnBody_IsAwake( bodies[i] ) == false;
        }
        if ( asleep )
        {
            return step;
        }
    }
    return -1;
}

static void cntStep( cnWorldId world, int steps )
{
    for ( int step = 0; step < steps; ++step )
    {
        ck_assert_int_eq( cnWorld_Step( world, CNT_DT ), cn_statusOk );
    }
}

// A box dropped 0.5 m onto the ground comes to rest and sleeps within 2 s (0.5 s of it at rest);
// asleep, its pose does not change by a bit, its velocities are zero, its contact keeps its impulse
// (the warm start), and the report counts it.
START_TEST( box_falls_asleep_and_keeps_its_pose )
{
    cnWorldId world = cntMakeWorld( true );
    cntGround( world );
    cnBodyId box = cntBox( world, cnMakeVec3( 0.0, 0.0, 1.0 ), 0.5 );
    ck_assert( cnBody_IsAwake( box ) );

    int steps = cntStepUntilAsleep( world, &box, 1, 240 );
    printf( "box: asleep after %d steps (%.3f s)\n", steps, steps * CNT_DT );
    ck_assert_int_gt( steps, (int)( 0.5 / CNT_DT ) ); // not before it has rested 0.5 s
    ck_assert_int_le( steps, 120 );

    cnStepReport report = cnWorld_GetStepReport( world );
    ck_assert_int_eq( report.awakeCount, 0 );
    ck_assert_int_eq( report.sleepingCount, 1 );
    ck_assert_int_eq( report.islandCount, 1 );
    ck_assert_int_eq( report.sleepingIslandCount, 1 );

    cnTransform pose = cnBody_GetTransform( box );
    CNT_ASSERT_ABS( pose.p.z, 0.5, 0.02 );
    cnContactData contact;
    ck_assert_int_eq( cnWorld_GetContacts( world, &contact, 1 ), 1 );
    double impulse = 0.0;
    for ( int k = 0; k < contact.pointCount; ++k )
    {
        impulse += contact.points[k].normalImpulse;
    }
    ck_assert( impulse > 0.0 );

    for ( int step = 0; step < 300; ++step )
    {
        ck_assert_int_eq( cnWorld_Step( world, CNT_DT ), cn_statusOk );
        cnTransform now = cnBody_GetTransform( box );
        ck_assert( memcmp( &now, &pose, sizeof( pose ) ) == 0 );
        ck_assert( cnBody_IsAwake( box ) == false );
    }
    cnVec3 v = cnBody_GetLinearVelocity( box );
    cnVec3 w = cnBody_GetAngularVelocity( box );
    ck_assert( v.x == 0.0 && v.y == 0.0 && v.z == 0.0 && w.x == 0.0 && w.y == 0.0 && w.z == 0.0 );
    // the contact stays, with the same impulses
    cnContactData later;
    ck_assert_int_eq( cnWorld_GetContacts( world, &later, 1 ), 1 );
    double laterImpulse = 0.0;
    for ( int k = 0; k < later.pointCount; ++k )
    {
        laterImpulse += later.points[k].normalImpulse;
    }
    ck_assert( laterImpulse == impulse );
    ck_assert_int_eq( cnWorld_GetStepReport( world ).warnings, 0 );
    ck_assert_int_eq( cnt_log.warningCount + cnt_log.errorCount, 0 );
    cnDestroyWorld( world );
}
END_TEST

// A ball thrown at a sleeping stack of three boxes wakes it on contact, and the stack moves.
START_TEST( thrown_ball_wakes_a_sleeping_stack )
{
    cnWorldId world = cntMakeWorld( true );
    cntGround( world );
    cnBodyId stack[3];
    for ( int i = 0; i < 3; ++i )
    {
        stack[i] = cntBox( world, cnMakeVec3( 0.0, 0.0, 0.5 + 1.0 * i ), 0.5 );
    }
    int steps = cntStepUntilAsleep( world, stack, 3, 360 );
    printf( "stack of 3: asleep after %d steps (%.3f s)\n", steps, steps * CNT_DT );
    ck_assert_int_gt( steps, 0 );
    ck_assert_int_le( steps, 180 );
    cnTransform top = cnBody_GetTransform( stack[2] );

    // nothing touches it: it sleeps on
    cntStep( world, 30 );
    ck_assert( cnBody_IsAwake( stack[0] ) == false );

    // a 0.3 m ball at 8 m/s towards the top box, from 3 m away
    cnBodyId ball = cntBall( world, cnMakeVec3( -3.0, 0.0, 2.5 ), 0.3, cnMakeVec3( 8.0, 0.0, 0.0 ) );
    ck_assert( cnBody_IsAwake( ball ) );
    int wokeAt = -1;
    for ( int step = 1; step <= 60 && wokeAt < 0; ++step )
    {
        ck_assert_int_eq( cnWorld_Step( world, CNT_DT ), cn_statusOk );
        if ( cnBody_IsAwake( stack[2] ) )
        {
            wokeAt = step;
        }
    }
    printf( "ball: the stack woke %d steps after the throw\n", wokeAt );
    ck_assert_int_gt( wokeAt, 0 );
    // the whole island wakes, not only the box that was hit
    ck_assert( cnBody_IsAwake( stack[0] ) && cnBody_IsAwake( stack[1] ) );
    cntStep( world, 10 );
    cnTransform moved = cnBody_GetTransform( stack[2] );
    double shift = cnLength( cnSub( moved.p, top.p ) );
    printf( "ball: the top box moved %.3f m\n", shift );
    ck_assert( shift > 0.01 );
    cnDestroyWorld( world );
}
END_TEST

// Setters, impulses, forces, bulk writes, cnBody_SetAwake and removing the ground wake a sleeping
// box; values of zero do not.
START_TEST( setters_and_impulses_wake_a_body )
{
    cnWorldId world = cntMakeWorld( true );
    cnBodyId ground = cntGround( world );
    cnBodyId box = cntBox( world, cnMakeVec3( 0.0, 0.0, 0.5 ), 0.5 );
    cntStep( world, 2 );

    // cnBody_SetAwake puts the island to sleep now, and wakes it
    ck_assert_int_eq( cnBody_SetAwake( box, false ), cn_statusOk );
    ck_assert( cnBody_IsAwake( box ) == false );
    ck_assert_int_eq( cnBody_SetAwake( box, true ), cn_statusOk );
    ck_assert( cnBody_IsAwake( box ) );
    // static bodies are never awake; SetAwake ignores them
    ck_assert( cnBody_IsAwake( ground ) == false );
    ck_assert_int_eq( cnBody_SetAwake( ground, true ), cn_statusOk );
    ck_assert( cnBody_IsAwake( ground ) == false );

    // zero values keep it asleep
    cnBody_SetAwake( box, false );
    cnBody_SetLinearVelocity( box, cn_vec3Zero );
    cnBody_ApplyForceToCenter( box, cn_vec3Zero );
    cnBody_ApplyLinearImpulseToCenter( box, cn_vec3Zero );
    ck_assert( cnBody_IsAwake( box ) == false );

    cnVec3 up = cnMakeVec3( 0.0, 0.0, 1.0 );
    cnBody_ApplyLinearImpulseToCenter( box, up );
    ck_assert( cnBody_IsAwake( box ) );
    cnBody_SetAwake( box, false );
    cnBody_ApplyAngularImpulse( box, up );
    ck_assert( cnBody_IsAwake( box ) );
    cnBody_SetAwake( box, false );
    cnBody_SetLinearVelocity( box, up );
    ck_assert( cnBody_IsAwake( box ) );
    cnBody_SetAwake( box, false );
    cnBody_SetAngularVelocity( box, up );
    ck_assert( cnBody_IsAwake( box ) );
    cnBody_SetAwake( box, false );
    cnBody_ApplyForceToCenter( box, up );
    ck_assert( cnBody_IsAwake( box ) );
    cnBody_SetAwake( box, false );
    cnBody_ApplyTorque( box, up );
    ck_assert( cnBody_IsAwake( box ) );
    cnBody_SetAwake( box, false );
    cnBody_SetConstantForce( box, up );
    ck_assert( cnBody_IsAwake( box ) );
    cnBody_SetConstantForce( box, cn_vec3Zero );
    cnBody_SetAwake( box, false );
    cnBody_SetTransform( box, cnMakeVec3( 0.0, 0.0, 0.6 ), cnBody_GetOrientation( box ) );
    ck_assert( cnBody_IsAwake( box ) );
    cnBody_SetAwake( box, false );
    cnBody_SetGravityScale( box, 2.0 );
    ck_assert( cnBody_IsAwake( box ) );

    // a velocity written into the bulk arrays wakes it at the next step, and it moves
    cnBody_SetAwake( box, false );
    cnBodyArrays arrays = cnWorld_GetBodyArrays( world );
    int row = 0;
    while ( row < arrays.count && CN_ID_EQUALS( arrays.ids[row], box ) == false )
    {
        row += 1;
    }
    ck_assert_int_lt( row, arrays.count );
    cnVec3 before = cnBody_GetPosition( box );
    arrays.linearVelocities[row] = cnMakeVec3( 1.0, 0.0, 0.0 );
    cntStep( world, 1 );
    ck_assert( cnBody_IsAwake( box ) );
    ck_assert( cnBody_GetPosition( box ).x > before.x );

    // the ground taken away: what slept on it falls
    int steps = cntStepUntilAsleep( world, &box, 1, 240 );
    ck_assert_int_gt( steps, 0 );
    double z = cnBody_GetPosition( box ).z;
    ck_assert_int_eq( cnDestroyBody( ground ), cn_statusOk );
    ck_assert( cnBody_IsAwake( box ) );
    cntStep( world, 10 );
    ck_assert( cnBody_GetPosition( box ).z < z - 0.1 );
    ck_assert_int_eq( cnt_log.errorCount, 0 );
    cnDestroyWorld( world );
}
END_TEST

// Two stacks of two boxes 6 m apart are two islands; both sleep; an impulse on one box wakes its
// stack only.
START_TEST( two_piles_are_two_islands )
{
    cnWorldId world = cntMakeWorld( true );
    cntGround( world );
    cnBodyId left[2];
    cnBodyId right[2];
    for ( int i = 0; i < 2; ++i )
    {
        left[i] = cntBox( world, cnMakeVec3( -3.0, 0.0, 0.5 + 1.0 * i ), 0.5 );
        right[i] = cntBox( world, cnMakeVec3( 3.0, 0.0, 0.5 + 1.0 * i ), 0.5 );
    }
    cntStep( world, 5 );
    cnStepReport report = cnWorld_GetStepReport( world );
    ck_assert_int_eq( report.islandCount, 2 );
    ck_assert_int_eq( report.awakeCount, 4 );

    cnBodyId all[4] = { left[0], left[1], right[0], right[1] };
    int steps = cntStepUntilAsleep( world, all, 4, 360 );
    printf( "two piles: asleep after %d steps\n", steps );
    ck_assert_int_gt( steps, 0 );
    report = cnWorld_GetStepReport( world );
    ck_assert_int_eq( report.islandCount, 2 );
    ck_assert_int_eq( report.sleepingIslandCount, 2 );
    ck_assert_int_eq( report.sleepingCount, 4 );
    cnTransform rightPose[2] = { cnBody_GetTransform( right[0] ), cnBody_GetTransform( right[1] ) };

    cnBody_ApplyLinearImpulseToCenter( left[1], cnMakeVec3( 0.0, 200.0, 0.0 ) );
    ck_assert( cnBody_IsAwake( left[0] ) && cnBody_IsAwake( left[1] ) );
    ck_assert( cnBody_IsAwake( right[0] ) == false && cnBody_IsAwake( right[1] ) == false );
    cntStep( world, 20 );
    report = cnWorld_GetStepReport( world );
    ck_assert_int_eq( report.sleepingIslandCount, 1 );
    ck_assert_int_eq( report.sleepingCount, 2 );
    ck_assert_int_eq( report.awakeCount, 2 );
    ck_assert( cnBody_IsAwake( right[0] ) == false && cnBody_IsAwake( right[1] ) == false );
    for ( int i = 0; i < 2; ++i )
    {
        cnTransform now = cnBody_GetTransform( right[i] );
        ck_assert( memcmp( &now, rightPose + i, sizeof( now ) ) == 0 );
    }
    cnDestroyWorld( world );
}
END_TEST

// A kinematic box at rest beside a sleeping box leaves it asleep; set moving, it wakes the box on
// contact and pushes it.
START_TEST( moving_kinematic_body_wakes_on_contact )
{
    cnWorldId world = cntMakeWorld( true );
    cntGround( world );
    cnBodyId box = cntBox( world, cnMakeVec3( 0.0, 0.0, 0.5 ), 0.5 );
    cnBodyDef def = cnDefaultBodyDef();
    def.type = cn_kinematicBody;
    def.position = cnMakeVec3( -1.5, 0.0, 0.5 );
    cnBodyId pusher = cnCreateBody( world, &def );
    cnShapeDef shape = cnDefaultShapeDef();
    cnBox half = { { 0.5, 0.5, 0.5 } };
    cnCreateBoxShape( pusher, &shape, &half );
    int steps = cntStepUntilAsleep( world, &box, 1, 240 );
    ck_assert_int_gt( steps, 0 );
    ck_assert( cnBody_IsAwake( pusher ) );
    cntStep( world, 30 );
    ck_assert( cnBody_IsAwake( box ) == false );

    cnVec3 start = cnBody_GetPosition( box );
    cnBody_SetLinearVelocity( pusher, cnMakeVec3( 1.0, 0.0, 0.0 ) );
    int wokeAt = -1;
    for ( int step = 1; step <= 90 && wokeAt < 0; ++step )
    {
        ck_assert_int_eq( cnWorld_Step( world, CNT_DT ), cn_statusOk );
        wokeAt = cnBody_IsAwake( box ) ? step : -1;
    }
    printf( "kinematic: the box woke %d steps after the pusher started (0.5 m gap at 1 m/s)\n", wokeAt );
    ck_assert_int_gt( wokeAt, 20 );
    cntStep( world, 30 );
    ck_assert( cnBody_GetPosition( box ).x > start.x + 0.2 );
    cnDestroyWorld( world );
}
END_TEST

// Two boxes 3 m apart on a distance joint are one island: they sleep together and wake together.
// A ball hanging at rest from a static pivot on a ball joint sleeps too (its joint, to a static
// body, is not solved while it sleeps) and holds its pose.
START_TEST( joints_link_islands )
{
    cnWorldId world = cntMakeWorld( true );
    cnBodyId ground = cntGround( world );
    cnBodyId a = cntBox( world, cnMakeVec3( -1.5, 0.0, 0.5 ), 0.5 );
    cnBodyId b = cntBox( world, cnMakeVec3( 1.5, 0.0, 0.5 ), 0.5 );
    cnDistanceJointDef rod = cnDefaultDistanceJointDef();
    rod.bodyA = a;
    rod.bodyB = b;
    rod.length = 3.0;
    ck_assert( CN_IS_NON_NULL( cnCreateDistanceJoint( world, &rod ) ) );

    cnBodyDef pivotDef = cnDefaultBodyDef();
    pivotDef.type = cn_staticBody;
    pivotDef.position = cnMakeVec3( 10.0, 0.0, 3.0 );
    cnBodyId pivot = cnCreateBody( world, &pivotDef );
    cnBodyId bob = cntBall( world, cnMakeVec3( 10.0, 0.0, 2.0 ), 0.1, cn_vec3Zero );
    cnBallJointDef hang = cnDefaultBallJointDef();
    hang.bodyA = pivot;
    hang.bodyB = bob;
    hang.localAnchorB = cnMakeVec3( 0.0, 0.0, 1.0 );
    ck_assert( CN_IS_NON_NULL( cnCreateBallJoint( world, &hang ) ) );
    (void)ground;

    cntStep( world, 2 );
    ck_assert_int_eq( cnWorld_GetStepReport( world ).islandCount, 2 );
    cnBodyId all[3] = { a, b, bob };
    int steps = cntStepUntilAsleep( world, all, 3, 240 );
    printf( "joints: asleep after %d steps\n", steps );
    ck_assert_int_gt( steps, 0 );
    cnTransform bobPose = cnBody_GetTransform( bob );
    cntStep( world, 60 );
    cnTransform now = cnBody_GetTransform( bob );
    ck_assert( memcmp( &now, &bobPose, sizeof( now ) ) == 0 );

    cnBody_ApplyLinearImpulseToCenter( b, cnMakeVec3( 0.0, 100.0, 0.0 ) );
    cntStep( world, 1 );
    ck_assert( cnBody_IsAwake( a ) && cnBody_IsAwake( b ) );
    ck_assert( cnBody_IsAwake( bob ) == false );
    cnDestroyWorld( world );
}
END_TEST

// With sleep off (the default) nothing sleeps, however long it rests; islands are still counted.
START_TEST( nothing_sleeps_with_sleep_off )
{
    ck_assert( cnDefaultWorldDef().enableSleep == false );
    cnWorldId world = cntMakeWorld( false );
    cntGround( world );
    cnBodyId box = cntBox( world, cnMakeVec3( 0.0, 0.0, 1.0 ), 0.5 );
    for ( int step = 0; step < 300; ++step )
    {
        ck_assert_int_eq( cnWorld_Step( world, CNT_DT ), cn_statusOk );
        ck_assert( cnBody_IsAwake( box ) );
        cnStepReport report = cnWorld_GetStepReport( world );
        ck_assert_int_eq( report.sleepingCount, 0 );
        ck_assert_int_eq( report.awakeCount, 1 );
        ck_assert_int_eq( report.islandCount, 1 );
    }
    cnDestroyWorld( world );
}
END_TEST

// A 4 x 4 x 4 block of boxes dropped on the ground: asleep within a bound (measured 0.83 s; the
// bound 3 s), every island asleep, nothing through the ground.
START_TEST( small_pile_falls_asleep )
{
    cnWorldId world = cntMakeWorld( true );
    cntGround( world );
    cnBodyId boxes[64];
    int n = 0;
    for ( int k = 0; k < 4; ++k )
    {
        for ( int j = 0; j < 4; ++j )
        {
            for ( int i = 0; i < 4; ++i )
            {
                cnVec3 p = cnMakeVec3( 1.05 * i + 0.01 * k, 1.05 * j, 0.6 + 1.1 * k );
                boxes[n++] = cntBox( world, p, 0.5 );
            }
        }
    }
    int steps = cntStepUntilAsleep( world, boxes, n, 600 );
    printf( "pile of 64: asleep after %d steps (%.2f s)\n", steps, steps * CNT_DT );
    ck_assert_int_gt( steps, 0 );
    ck_assert_int_le( steps, 180 );
    cnStepReport report = cnWorld_GetStepReport( world );
    ck_assert_int_eq( report.sleepingCount, 64 );
    ck_assert_int_eq( report.islandCount, report.sleepingIslandCount );
    // nothing fell through
    for ( int i = 0; i < n; ++i )
    {
        ck_assert( cnBody_GetPosition( boxes[i] ).z > 0.45 );
    }
    cnDestroyWorld( world );
}
END_TEST

// assets/scenes/pile1000.json with world.sleeping overridden: every box asleep within a bound
// (measured 5.6 s; the bound 10 s), nothing below the floor.
START_TEST( pile1000_falls_asleep )
{
    const char* const overrides[] = { "world.sleeping=true" };
    cnSceneOptions options = cnDefaultSceneOptions();
    memset( &cnt_log, 0, sizeof( cnt_log ) );
    options.worldDef = cntWorldDef( &cnt_log, NULL );
    options.overrides = overrides;
    options.overrideCount = 1;
    cnScene scene;
    cnSceneError error;
    ck_assert_int_eq( cnLoadSceneFile( CN_ASSETS_DIR "/scenes/pile1000.json", &options, &scene, &error ),
                      cn_statusOk );
    ck_assert_int_eq( scene.warningCount, 0 );
    int allAsleep = -1;
    double islandMs = 0.0;
    int maxSteps = (int)( 10.0 / CNT_DT );
    for ( int step = 1; step <= maxSteps && allAsleep < 0; ++step )
    {
        ck_assert_int_eq( cnWorld_Step( scene.worldId, CNT_DT ), cn_statusOk );
        cnStepReport report = cnWorld_GetStepReport( scene.worldId );
        islandMs += report.islandMs;
        if ( report.awakeCount == 0 )
        {
            allAsleep = step;
        }
    }
    cnStepReport report = cnWorld_GetStepReport( scene.worldId );
    printf( "pile1000: all %d boxes asleep after %d steps (%.2f s), %d islands, island pass %.3f ms/step\n",
            report.sleepingCount, allAsleep, allAsleep * CNT_DT, report.islandCount,
            allAsleep > 0 ? islandMs / allAsleep : 0.0 );
    ck_assert_int_gt( allAsleep, 0 );
    ck_assert_int_eq( report.sleepingCount, 1000 );
    cnBodyArrays arrays = cnWorld_GetBodyArrays( scene.worldId );
    for ( int row = 0; row < arrays.count; ++row )
    {
        if ( arrays.types[row] == cn_dynamicBody )
        {
            ck_assert( arrays.centers[row].z > 0.3 );
        }
    }
    cnDestroyWorld( scene.worldId );
}
END_TEST

static Suite* cntSleepSuite( void )
{
    Suite* suite = suite_create( "sleep" );
    TCase* tc = tcase_create( "sleep" );
    tcase_set_timeout( tc, 600 );
    tcase_add_test( tc, box_falls_asleep_and_keeps_its_pose );
    tcase_add_test( tc, thrown_ball_wakes_a_sleeping_stack );
    tcase_add_test( tc, setters_and_impulses_wake_a_body );
    tcase_add_test( tc, two_piles_are_two_islands );
    tcase_add_test( tc, moving_kinematic_body_wakes_on_contact );
    tcase_add_test( tc, joints_link_islands );
    tcase_add_test( tc, nothing_sleeps_with_sleep_off );
    tcase_add_test( tc, small_pile_falls_asleep );
    tcase_add_test( tc, pile1000_falls_asleep );
    suite_add_tcase( suite, tc );
    return suite;
}

int main( void )
{
    cntSuiteFcn* const suites[] = { cntSleepSuite };
    return cntRunSuites( suites, 1 );
}
