// SPDX-License-Identifier: MIT
// Sensors and hit events (cnShapeDef.isSensor, enableHitEvents; cnWorld_GetSensorEvents,
// cnContactEvents.hitEvents).
//
// Sensors: a ball falling through a static sensor box begins and ends at the steps the integrator's
// closed form gives (and within a step of the continuous free fall), on a trajectory bit-identical to
// a world without the sensor; a sensor on a falling dynamic body sees the static ground; overlap is
// exact, not the speculative margin; a sensor neither wakes sleeping bodies nor joins islands;
// destroying the visitor, its body or the sensor ends the overlap under the destroyed id; filters.
// Hit events: a ball dropped from h hits at sqrt(2 g h) within the substep's bound, once, and not
// again while it rests; none below the threshold or without the flag; one per bounce; the threshold's
// checks. Scene keys and their errors. Each test prints its numbers.

#include "test_support.h"

#include "cairn/query.h"
#include "cairn/scene.h"

#include <check.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CNT_DT ( 1.0 / 60.0 )
#define CNT_G  9.81

static cntLogCapture cnt_log;

static cnWorldId cntMakeWorld( double gravity, bool sleep )
{
    cnWorldDef def = cntWorldDef( &cnt_log, NULL );
    def.gravity = cnMakeVec3( 0.0, 0.0, -gravity );
    def.enableSleep = sleep;
    cnWorldId world = cnCreateWorld( &def );
    ck_assert( cnWorld_IsValid( world ) );
    return world;
}

static cnBodyId cntBody( cnWorldId world, cnBodyType type, cnVec3 position )
{
    cnBodyDef def = cnDefaultBodyDef();
    def.type = type;
    def.position = position;
    cnBodyId body = cnCreateBody( world, &def );
    ck_assert( cnBody_IsValid( body ) );
    return body;
}

static cnShapeId cntBox( cnBodyId body, cnVec3 halfExtents, bool sensor )
{
    cnShapeDef def = cnDefaultShapeDef();
    def.isSensor = sensor;
    cnBox box = { halfExtents };
    cnShapeId shape = cnCreateBoxShape( body, &def, &box );
    ck_assert( cnShape_IsValid( shape ) );
    return shape;
}

static cnShapeId cntSphere( cnBodyId body, double radius, const cnShapeDef* def )
{
    cnSphere sphere = { radius };
    cnShapeId shape = cnCreateSphereShape( body, def, &sphere );
    ck_assert( cnShape_IsValid( shape ) );
    return shape;
}

static bool cntSameShape( cnShapeId a, cnShapeId b )
{
    return a.index1 == b.index1 && a.world0 == b.world0 && a.generation == b.generation;
}

// Drop after `substeps` substeps of h from rest: the engine's integrator (velocity first, then
// position) gives d_j = g h^2 j (j + 1) / 2.
static double cntDrop( int substeps, double h )
{
    return CNT_G * h * h * (double)substeps * (double)( substeps + 1 ) / 2.0;
}

// The first step after which the drop exceeds `depth` (2 substeps per step).
static int cntFirstStepBeyond( double depth )
{
    int step = 1;
    while ( cntDrop( 2 * step, CNT_DT / 2.0 ) <= depth )
    {
        step += 1;
    }
    return step;
}

// ---- sensors ----------------------------------------------------------------------------------------

// A ball of radius 0.1 falls from z = 10 through a static sensor box z in [4.5, 5.5]; a static box
// overlaps the sensor too (static shapes are not seen by a static sensor). The ball's twin falls in a
// world without the sensor.
START_TEST( test_fall_through_static_sensor )
{
    const double r = 0.1;
    const double z0 = 10.0;
    cnWorldId worlds[2];
    cnBodyId balls[2];
    cnShapeId ballShape = cn_nullShapeId;
    cnShapeId sensor = cn_nullShapeId;
    for ( int w = 0; w < 2; ++w )
    {
        worlds[w] = cntMakeWorld( CNT_G, false );
        if ( w == 0 )
        {
            cnBodyId holder = cntBody( worlds[w], cn_staticBody, cnMakeVec3( 0.0, 0.0, 5.0 ) );
            sensor = cntBox( holder, cnMakeVec3( 1.0, 1.0, 0.5 ), true );
            cnBodyId wall = cntBody( worlds[w], cn_staticBody, cnMakeVec3( 0.9, 0.0, 5.0 ) );
            cntBox( wall, cnMakeVec3( 0.2, 0.2, 0.2 ), false );
        }
        balls[w] = cntBody( worlds[w], cn_dynamicBody, cnMakeVec3( 0.0, 0.0, z0 ) );
        cnShapeDef def = cnDefaultShapeDef();
        cnShapeId shape = cntSphere( balls[w], r, &def );
        if ( w == 0 )
        {
            ballShape = shape;
        }
    }
    ck_assert( cnShape_IsSensor( sensor ) );
    ck_assert( cnShape_IsSensor( ballShape ) == false );

    // overlap begins when the ball's bottom passes the top (z - r < 5.5), ends when its top passes
    // the bottom (z + r < 4.5)
    const double beginDepth = z0 - r - 5.5;
    const double endDepth = z0 + r - 4.5;
    int expectBegin = cntFirstStepBeyond( beginDepth );
    int expectEnd = cntFirstStepBeyond( endDepth );
    int beginStep = -1;
    int endStep = -1;
    int begins = 0;
    int ends = 0;
    bool identical = true;
    for ( int step = 1; step <= 90; ++step )
    {
        for ( int w = 0; w < 2; ++w )
        {
            ck_assert_int_eq( cnWorld_Step( worlds[w], CNT_DT ), cn_statusOk );
        }
        cnBodyState a;
        cnBodyState b;
        cnBody_GetState( balls[0], &a );
        cnBody_GetState( balls[1], &b );
        identical = identical && memcmp( &a.transform, &b.transform, sizeof( a.transform ) ) == 0 &&
                    memcmp( &a.linearVelocity, &b.linearVelocity, sizeof( a.linearVelocity ) ) == 0 &&
                    memcmp( &a.angularVelocity, &b.angularVelocity, sizeof( a.angularVelocity ) ) == 0;
        ck_assert_int_eq( cnWorld_GetContactCount( worlds[0] ), 0 );

        cnSensorEvents events = cnWorld_GetSensorEvents( worlds[0] );
        for ( int k = 0; k < events.beginCount; ++k )
        {
            ck_assert( cntSameShape( events.beginEvents[k].sensorShapeId, sensor ) );
            ck_assert( cntSameShape( events.beginEvents[k].visitorShapeId, ballShape ) );
            beginStep = step;
        }
        for ( int k = 0; k < events.endCount; ++k )
        {
            ck_assert( cntSameShape( events.endEvents[k].sensorShapeId, sensor ) );
            ck_assert( cntSameShape( events.endEvents[k].visitorShapeId, ballShape ) );
            endStep = step;
        }
        begins += events.beginCount;
        ends += events.endCount;

        // the overlap list agrees with the events, and with the pose the step ended with
        cnShapeId visitors[4];
        int overlaps = cnShape_GetSensorOverlaps( sensor, visitors, 4 );
        double z = a.transform.p.z;
        bool inside = z - r < 5.5 && z + r > 4.5;
        ck_assert_int_eq( overlaps, inside ? 1 : 0 );
        ck_assert_int_eq( overlaps, begins - ends );
        if ( overlaps == 1 )
        {
            ck_assert( cntSameShape( visitors[0], ballShape ) );
        }
    }
    double tBegin = sqrt( 2.0 * beginDepth / CNT_G );
    double tEnd = sqrt( 2.0 * endDepth / CNT_G );
    printf( "fall through a static sensor: begin at step %d (%.4f s; integrator %d, free fall %.4f s), end "
            "at step %d (%.4f s; integrator %d, free fall %.4f s); trajectory identical to no sensor: %s\n",
            beginStep, beginStep * CNT_DT, expectBegin, tBegin, endStep, endStep * CNT_DT, expectEnd, tEnd,
            identical ? "yes" : "no" );
    ck_assert( identical );
    ck_assert_int_eq( begins, 1 );
    ck_assert_int_eq( ends, 1 );
    ck_assert_int_eq( beginStep, expectBegin );
    ck_assert_int_eq( endStep, expectEnd );
    // the continuous free fall crosses within the step that reports it (the integrator runs ahead of
    // it by about a quarter of a step)
    ck_assert( beginStep * CNT_DT >= tBegin - 0.5 * CNT_DT && ( beginStep - 1 ) * CNT_DT < tBegin );
    ck_assert( endStep * CNT_DT >= tEnd - 0.5 * CNT_DT && ( endStep - 1 ) * CNT_DT < tEnd );
    ck_assert_int_eq( cnt_log.errorCount + cnt_log.warningCount, 0 );
    cnDestroyWorld( worlds[0] );
    cnDestroyWorld( worlds[1] );
}
END_TEST

// A dynamic body whose only shape is a sensor sphere (radius 0.5) falls through the static ground box
// (top at z = 0.5) without touching it: it sees the ground from the step its sphere dips into it to
// the step it leaves through the bottom, and keeps falling freely.
START_TEST( test_dynamic_sensor )
{
    cnWorldId world = cntMakeWorld( CNT_G, false );
    cnBodyId ground = cntBody( world, cn_staticBody, cnMakeVec3( 0.0, 0.0, 0.0 ) );
    cnShapeId groundShape = cntBox( ground, cnMakeVec3( 5.0, 5.0, 0.5 ), false );
    const double z0 = 3.0;
    cnBodyId probe = cntBody( world, cn_dynamicBody, cnMakeVec3( 0.0, 0.0, z0 ) );
    cnShapeDef def = cnDefaultShapeDef();
    def.isSensor = true;
    cnShapeId sensor = cntSphere( probe, 0.5, &def );
    // its density still gives the body its mass
    CNT_ASSERT_REL( cnBody_GetMassData( probe ).mass, 1000.0 * 4.0 / 3.0 * M_PI * 0.125, 1e-12 );

    int expectBegin = cntFirstStepBeyond( z0 - 0.5 - 0.5 );
    int expectEnd = cntFirstStepBeyond( z0 + 0.5 + 0.5 );
    int beginStep = -1;
    int endStep = -1;
    int begins = 0;
    int ends = 0;
    for ( int step = 1; step <= 70; ++step )
    {
        ck_assert_int_eq( cnWorld_Step( world, CNT_DT ), cn_statusOk );
        ck_assert_int_eq( cnWorld_GetStepReport( world ).contactCount, 0 );
        cnSensorEvents events = cnWorld_GetSensorEvents( world );
        if ( events.beginCount > 0 )
        {
            ck_assert( cntSameShape( events.beginEvents[0].sensorShapeId, sensor ) );
            ck_assert( cntSameShape( events.beginEvents[0].visitorShapeId, groundShape ) );
            beginStep = step;
        }
        if ( events.endCount > 0 )
        {
            ck_assert( cntSameShape( events.endEvents[0].sensorShapeId, sensor ) );
            ck_assert( cntSameShape( events.endEvents[0].visitorShapeId, groundShape ) );
            endStep = step;
        }
        begins += events.beginCount;
        ends += events.endCount;
    }
    // free fall all along: v = -g t to rounding
    double expectSpeed = CNT_G * 70.0 * CNT_DT;
    double speed = -cnBody_GetLinearVelocity( probe ).z;
    printf( "dynamic sensor through the ground: begin at step %d (integrator %d), end at step %d (integrator "
            "%d), speed after 70 steps %.12f m/s (free fall %.12f)\n",
            beginStep, expectBegin, endStep, expectEnd, speed, expectSpeed );
    ck_assert_int_eq( begins, 1 );
    ck_assert_int_eq( ends, 1 );
    ck_assert_int_eq( beginStep, expectBegin );
    ck_assert_int_eq( endStep, expectEnd );
    CNT_ASSERT_REL( speed, expectSpeed, 1e-12 );
    cnDestroyWorld( world );
}
END_TEST

// Overlap is the shapes' own, not the contact margin's: a ball held 1 cm above a sensor (within the
// 2 cm speculative margin) is outside; 1 mm into it, inside; 1 mm above again, outside. Through
// cnWorld_UpdateContacts, in a world without gravity.
START_TEST( test_exact_overlap )
{
    cnWorldId world = cntMakeWorld( 0.0, false );
    cnBodyId holder = cntBody( world, cn_staticBody, cnMakeVec3( 0.0, 0.0, 0.0 ) );
    cnShapeId sensor = cntBox( holder, cnMakeVec3( 1.0, 1.0, 1.0 ), true );
    cnBodyId ball = cntBody( world, cn_dynamicBody, cnMakeVec3( 0.0, 0.0, 1.5 ) );
    cnShapeDef def = cnDefaultShapeDef();
    cntSphere( ball, 0.25, &def );
    const double gaps[4] = { 0.01, -0.001, 0.001, -0.001 };
    const int begins[4] = { 0, 1, 0, 1 };
    const int ends[4] = { 0, 0, 1, 0 };
    for ( int k = 0; k < 4; ++k )
    {
        cnBody_SetTransform( ball, cnMakeVec3( 0.0, 0.0, 1.0 + 0.25 + gaps[k] ), cn_quatIdentity );
        ck_assert_int_eq( cnWorld_UpdateContacts( world ), cn_statusOk );
        cnSensorEvents events = cnWorld_GetSensorEvents( world );
        printf( "exact overlap: gap %+.3f m: %d begin, %d end, %d inside\n", gaps[k], events.beginCount,
                events.endCount, cnShape_GetSensorOverlaps( sensor, NULL, 0 ) );
        ck_assert_int_eq( events.beginCount, begins[k] );
        ck_assert_int_eq( events.endCount, ends[k] );
        ck_assert_int_eq( cnShape_GetSensorOverlaps( sensor, NULL, 0 ), gaps[k] < 0.0 ? 1 : 0 );
    }
    cnDestroyWorld( world );
}
END_TEST

// Body A rests on the ground with a sensor box around it that overlaps body B resting beside it;
// both fall asleep as separate islands, a ball falling into the sensor wakes neither, and waking A
// leaves B asleep.
START_TEST( test_sensor_sleep_islands )
{
    cnWorldId world = cntMakeWorld( CNT_G, true );
    cnBodyId ground = cntBody( world, cn_staticBody, cnMakeVec3( 0.0, 0.0, -0.5 ) );
    cntBox( ground, cnMakeVec3( 10.0, 10.0, 0.5 ), false );
    cnBodyId a = cntBody( world, cn_dynamicBody, cnMakeVec3( 0.0, 0.0, 0.5 ) );
    cntBox( a, cnMakeVec3( 0.5, 0.5, 0.5 ), false );
    cnShapeDef def = cnDefaultShapeDef();
    def.isSensor = true;
    def.material.density = 0.0;
    cnBox zone = { cnMakeVec3( 3.0, 3.0, 1.0 ) };
    cnShapeId sensor = cnCreateBoxShape( a, &def, &zone );
    ck_assert( cnShape_IsValid( sensor ) );
    cnBodyId b = cntBody( world, cn_dynamicBody, cnMakeVec3( 2.0, 0.0, 0.5 ) );
    cnShapeId bShape = cntBox( b, cnMakeVec3( 0.5, 0.5, 0.5 ), false );

    int asleepAt = -1;
    cnStepReport report;
    memset( &report, 0, sizeof( report ) );
    for ( int step = 1; step <= 200 && asleepAt < 0; ++step )
    {
        ck_assert_int_eq( cnWorld_Step( world, CNT_DT ), cn_statusOk );
        report = cnWorld_GetStepReport( world );
        ck_assert_int_eq( report.islandCount, 2 ); // the sensor joins nothing
        if ( cnBody_IsAwake( a ) == false && cnBody_IsAwake( b ) == false )
        {
            asleepAt = step;
        }
    }
    printf(
        "sensor and sleep: both asleep after step %d, islands %d, sleeping islands %d, sensor overlaps %d\n",
        asleepAt, report.islandCount, report.sleepingIslandCount,
        cnShape_GetSensorOverlaps( sensor, NULL, 0 ) );
    ck_assert_int_gt( asleepAt, 0 );
    ck_assert_int_eq( report.sleepingIslandCount, 2 );
    // it sees B and the ground
    ck_assert_int_eq( cnShape_GetSensorOverlaps( sensor, NULL, 0 ), 2 );

    // a ball falls into the zone beside both bodies and lands on the ground: one begin event, and
    // nobody wakes
    cnBodyId ball = cntBody( world, cn_dynamicBody, cnMakeVec3( 0.0, 2.0, 3.0 ) );
    cnShapeDef ballDef = cnDefaultShapeDef();
    cnShapeId ballShape = cntSphere( ball, 0.2, &ballDef );
    int begins = 0;
    for ( int step = 0; step < 60; ++step )
    {
        ck_assert_int_eq( cnWorld_Step( world, CNT_DT ), cn_statusOk );
        cnSensorEvents events = cnWorld_GetSensorEvents( world );
        for ( int k = 0; k < events.beginCount; ++k )
        {
            ck_assert( cntSameShape( events.beginEvents[k].visitorShapeId, ballShape ) );
        }
        ck_assert_int_eq( events.endCount, 0 );
        begins += events.beginCount;
        ck_assert( cnBody_IsAwake( a ) == false );
        ck_assert( cnBody_IsAwake( b ) == false );
    }
    ck_assert_int_eq( begins, 1 );
    ck_assert_int_eq( cnShape_GetSensorOverlaps( sensor, NULL, 0 ), 3 );

    // waking A wakes its island only
    ck_assert_int_eq( cnBody_SetAwake( a, true ), cn_statusOk );
    ck_assert( cnBody_IsAwake( a ) );
    ck_assert( cnBody_IsAwake( b ) == false );
    ck_assert_int_eq( cnWorld_Step( world, CNT_DT ), cn_statusOk );
    ck_assert( cnBody_IsAwake( b ) == false );
    ck_assert_int_eq( cnWorld_GetSensorEvents( world ).beginCount + cnWorld_GetSensorEvents( world ).endCount,
                      0 );
    (void)bShape;
    cnDestroyWorld( world );
}
END_TEST

// Three balls rest inside a static sensor; destroying one's shape, another's body, then the sensor
// itself, each ends its overlaps at the next step under the destroyed (stale) id, once.
START_TEST( test_destroy_mid_overlap )
{
    cnWorldId world = cntMakeWorld( 0.0, false );
    cnBodyId holder = cntBody( world, cn_staticBody, cnMakeVec3( 0.0, 0.0, 0.0 ) );
    cnShapeId sensor = cntBox( holder, cnMakeVec3( 2.0, 2.0, 2.0 ), true );
    cnBodyId balls[3];
    cnShapeId shapes[3];
    for ( int k = 0; k < 3; ++k )
    {
        balls[k] = cntBody( world, cn_dynamicBody, cnMakeVec3( -1.0 + k, 0.0, 0.0 ) );
        cnShapeDef def = cnDefaultShapeDef();
        shapes[k] = cntSphere( balls[k], 0.2, &def );
    }
    ck_assert_int_eq( cnWorld_Step( world, CNT_DT ), cn_statusOk );
    ck_assert_int_eq( cnWorld_GetSensorEvents( world ).beginCount, 3 );

    // the shape of ball 0
    ck_assert_int_eq( cnDestroyShape( shapes[0] ), cn_statusOk );
    cnShapeId listed[4];
    ck_assert_int_eq( cnShape_GetSensorOverlaps( sensor, listed, 4 ), 3 ); // until the next update
    ck_assert( cntSameShape( listed[0], shapes[0] ) );
    ck_assert_int_eq( cnWorld_Step( world, CNT_DT ), cn_statusOk );
    cnSensorEvents events = cnWorld_GetSensorEvents( world );
    ck_assert_int_eq( events.beginCount, 0 );
    ck_assert_int_eq( events.endCount, 1 );
    ck_assert( cntSameShape( events.endEvents[0].visitorShapeId, shapes[0] ) );
    ck_assert( cnShape_IsValid( events.endEvents[0].visitorShapeId ) == false );
    ck_assert_int_eq( cnShape_GetSensorOverlaps( sensor, NULL, 0 ), 2 );

    // the body of ball 1; a new shape takes the freed slot inside the sensor: it begins under its own id
    ck_assert_int_eq( cnDestroyBody( balls[1] ), cn_statusOk );
    cnShapeDef def = cnDefaultShapeDef();
    cnShapeId reborn = cntSphere( balls[0], 0.2, &def );
    ck_assert_int_eq( cnWorld_Step( world, CNT_DT ), cn_statusOk );
    events = cnWorld_GetSensorEvents( world );
    printf( "destroy mid-overlap: after the body: %d end (stale id: %s), %d begin (the new shape)\n",
            events.endCount, cnShape_IsValid( events.endEvents[0].visitorShapeId ) ? "no" : "yes",
            events.beginCount );
    ck_assert_int_eq( events.endCount, 1 );
    ck_assert( cntSameShape( events.endEvents[0].visitorShapeId, shapes[1] ) );
    ck_assert_int_eq( events.beginCount, 1 );
    ck_assert( cntSameShape( events.beginEvents[0].visitorShapeId, reborn ) );
    ck_assert_int_eq( cnShape_GetSensorOverlaps( sensor, NULL, 0 ), 2 );

    // the sensor's body: both remaining overlaps end, naming the stale sensor
    ck_assert_int_eq( cnDestroyBody( holder ), cn_statusOk );
    ck_assert_int_eq( cnWorld_Step( world, CNT_DT ), cn_statusOk );
    events = cnWorld_GetSensorEvents( world );
    ck_assert_int_eq( events.endCount, 2 );
    ck_assert_int_eq( events.beginCount, 0 );
    for ( int k = 0; k < 2; ++k )
    {
        ck_assert( cntSameShape( events.endEvents[k].sensorShapeId, sensor ) );
        ck_assert( cnShape_IsValid( events.endEvents[k].sensorShapeId ) == false );
    }
    ck_assert_int_eq( cnShape_GetSensorOverlaps( sensor, NULL, 0 ), 0 );
    ck_assert_int_eq( cnWorld_Step( world, CNT_DT ), cn_statusOk );
    ck_assert_int_eq( cnWorld_GetSensorEvents( world ).endCount, 0 );
    cnDestroyWorld( world );
}
END_TEST

// Balls with different filters fall through a static sensor (category 2, mask 1): only the one both
// filters allow is seen; a sensor ball is never seen. Then the filter changes and the next overlap
// follows it.
START_TEST( test_filters )
{
    cnWorldId world = cntMakeWorld( CNT_G, false );
    cnBodyId holder = cntBody( world, cn_staticBody, cnMakeVec3( 0.0, 0.0, 0.0 ) );
    cnShapeDef sensorDef = cnDefaultShapeDef();
    sensorDef.isSensor = true;
    sensorDef.categoryBits = 2;
    sensorDef.maskBits = 1;
    cnBox zone = { cnMakeVec3( 5.0, 1.0, 0.5 ) };
    cnShapeId sensor = cnCreateBoxShape( holder, &sensorDef, &zone );
    ck_assert( cnShape_IsValid( sensor ) );
    // seen; not in the sensor's mask; its mask leaves out the sensor; a sensor
    const uint32_t categories[4] = { 1, 4, 1, 1 };
    const uint32_t masks[4] = { UINT32_MAX, UINT32_MAX, ~2u, UINT32_MAX };
    const bool sensors[4] = { false, false, false, true };
    cnShapeId shapes[4];
    for ( int k = 0; k < 4; ++k )
    {
        cnBodyId ball = cntBody( world, cn_dynamicBody, cnMakeVec3( -3.0 + 2.0 * k, 0.0, 2.0 ) );
        cnShapeDef def = cnDefaultShapeDef();
        def.categoryBits = categories[k];
        def.maskBits = masks[k];
        def.isSensor = sensors[k];
        shapes[k] = cntSphere( ball, 0.1, &def );
    }
    int begins[4] = { 0 };
    int ends[4] = { 0 };
    for ( int step = 0; step < 60; ++step )
    {
        ck_assert_int_eq( cnWorld_Step( world, CNT_DT ), cn_statusOk );
        cnSensorEvents events = cnWorld_GetSensorEvents( world );
        for ( int k = 0; k < 4; ++k )
        {
            for ( int e = 0; e < events.beginCount; ++e )
            {
                begins[k] += cntSameShape( events.beginEvents[e].visitorShapeId, shapes[k] ) ? 1 : 0;
            }
            for ( int e = 0; e < events.endCount; ++e )
            {
                ends[k] += cntSameShape( events.endEvents[e].visitorShapeId, shapes[k] ) ? 1 : 0;
            }
        }
    }
    printf( "filters: begins %d %d %d %d, ends %d %d %d %d\n", begins[0], begins[1], begins[2], begins[3],
            ends[0], ends[1], ends[2], ends[3] );
    ck_assert_int_eq( begins[0], 1 );
    ck_assert_int_eq( ends[0], 1 );
    for ( int k = 1; k < 4; ++k )
    {
        ck_assert_int_eq( begins[k] + ends[k], 0 );
    }

    // a kinematic ball parked inside: seen until its category leaves the sensor's mask
    cnBodyId parked = cntBody( world, cn_kinematicBody, cnMakeVec3( 0.0, 0.0, 0.0 ) );
    cnShapeDef def = cnDefaultShapeDef();
    cnShapeId parkedShape = cntSphere( parked, 0.1, &def );
    ck_assert_int_eq( cnWorld_Step( world, CNT_DT ), cn_statusOk );
    ck_assert_int_eq( cnWorld_GetSensorEvents( world ).beginCount, 1 );
    ck_assert_int_eq( cnShape_SetFilter( parkedShape, 8, UINT32_MAX ), cn_statusOk );
    ck_assert_int_eq( cnWorld_Step( world, CNT_DT ), cn_statusOk );
    cnSensorEvents events = cnWorld_GetSensorEvents( world );
    ck_assert_int_eq( events.endCount, 1 );
    ck_assert( cntSameShape( events.endEvents[0].visitorShapeId, parkedShape ) );
    cnDestroyWorld( world );
}
END_TEST

// A multisphere world (every capsule collides as 8 spheres): a capsule falling through a static
// sensor begins and ends once, under the capsule's own id (not one event per sphere), and a sensor
// capsule keeps its exact shape (it has no sub-spheres). Lying on the ground, the capsule's hit is
// one event for the pair, though several of its spheres land at once.
START_TEST( test_multisphere )
{
    cnWorldDef def = cntWorldDef( &cnt_log, NULL );
    def.multisphere = 8;
    cnWorldId world = cnCreateWorld( &def );
    ck_assert( cnWorld_IsValid( world ) );
    cnBodyId holder = cntBody( world, cn_staticBody, cnMakeVec3( 0.0, 0.0, 2.0 ) );
    cnShapeId sensor = cntBox( holder, cnMakeVec3( 2.0, 2.0, 0.5 ), true );
    cnBodyId ground = cntBody( world, cn_staticBody, cnMakeVec3( 0.0, 0.0, -0.5 ) );
    cnShapeId groundShape = cntBox( ground, cnMakeVec3( 5.0, 5.0, 0.5 ), false );
    // lying along x, falling
    cnBodyDef bodyDef = cnDefaultBodyDef();
    bodyDef.position = cnMakeVec3( 0.0, 0.0, 4.0 );
    bodyDef.orientation = cnMakeQuat( sqrt( 0.5 ), 0.0, sqrt( 0.5 ), 0.0 );
    cnBodyId body = cnCreateBody( world, &bodyDef );
    cnShapeDef shapeDef = cnDefaultShapeDef();
    shapeDef.enableHitEvents = true;
    cnCapsule capsule = { 0.2, 0.8 };
    cnShapeId rod = cnCreateCapsuleShape( body, &shapeDef, &capsule );
    ck_assert( cnShape_IsValid( rod ) );
    // a sensor capsule standing in the zone: an exact capsule, not spheres
    cnBodyId post = cntBody( world, cn_staticBody, cnMakeVec3( 3.0, 0.0, 2.0 ) );
    cnShapeDef postDef = cnDefaultShapeDef();
    postDef.isSensor = true;
    cnShapeId postShape = cnCreateCapsuleShape( post, &postDef, &capsule );
    ck_assert( cnShape_IsValid( postShape ) );

    int begins = 0;
    int ends = 0;
    int hits = 0;
    int hitSteps = 0;
    for ( int step = 0; step < 90; ++step )
    {
        ck_assert_int_eq( cnWorld_Step( world, CNT_DT ), cn_statusOk );
        cnSensorEvents events = cnWorld_GetSensorEvents( world );
        for ( int k = 0; k < events.beginCount; ++k )
        {
            ck_assert( cntSameShape( events.beginEvents[k].sensorShapeId, sensor ) );
            ck_assert( cntSameShape( events.beginEvents[k].visitorShapeId, rod ) );
        }
        for ( int k = 0; k < events.endCount; ++k )
        {
            ck_assert( cntSameShape( events.endEvents[k].visitorShapeId, rod ) );
        }
        begins += events.beginCount;
        ends += events.endCount;
        cnContactEvents contactEvents = cnWorld_GetContactEvents( world );
        for ( int k = 0; k < contactEvents.hitCount; ++k )
        {
            ck_assert( cntSameShape( contactEvents.hitEvents[k].shapeA, groundShape ) );
            ck_assert( cntSameShape( contactEvents.hitEvents[k].shapeB, rod ) );
            CNT_ASSERT_ABS( contactEvents.hitEvents[k].normal.z, 1.0, 1e-9 );
        }
        hits += contactEvents.hitCount;
        hitSteps += contactEvents.hitCount > 0 ? 1 : 0;
    }
    printf( "multisphere: sensor begins %d, ends %d; hits %d in %d steps\n", begins, ends, hits, hitSteps );
    ck_assert_int_eq( begins, 1 );
    ck_assert_int_eq( ends, 1 );
    ck_assert_int_eq( hits, 1 );
    ck_assert_int_eq( hitSteps, 1 );

    // the sensor capsule's exact surface: a small ball 1 mm outside its cap is outside, 1 mm in, inside
    cnBodyId ball =
        cntBody( world, cn_kinematicBody, cnMakeVec3( 3.0, 0.0, 2.0 + 0.8 + 0.2 + 0.05 + 0.001 ) );
    cnShapeDef ballDef = cnDefaultShapeDef();
    cntSphere( ball, 0.05, &ballDef );
    ck_assert_int_eq( cnWorld_UpdateContacts( world ), cn_statusOk );
    ck_assert_int_eq( cnShape_GetSensorOverlaps( postShape, NULL, 0 ), 0 );
    cnBody_SetTransform( ball, cnMakeVec3( 3.0, 0.0, 2.0 + 0.8 + 0.2 + 0.05 - 0.001 ), cn_quatIdentity );
    ck_assert_int_eq( cnWorld_UpdateContacts( world ), cn_statusOk );
    ck_assert_int_eq( cnShape_GetSensorOverlaps( postShape, NULL, 0 ), 1 );
    cnDestroyWorld( world );
}
END_TEST

// ---- hit events -------------------------------------------------------------------------------------

typedef struct cntDropResult
{
    int hits;
    int hitStep;
    cnContactHitEvent first;
    double speeds[16];
} cntDropResult;

// A ball of radius 0.1 (hit events as given) dropped with a gap `gap` above a static ground box (top
// at z = 0); hits over `steps` steps.
static cntDropResult cntDropBall( double gap, bool enable, double threshold, double restitution, int steps,
                                  cnShapeId* groundOut, cnShapeId* ballOut )
{
    cntDropResult result;
    memset( &result, 0, sizeof( result ) );
    result.hitStep = -1;
    cnWorldDef worldDef = cntWorldDef( &cnt_log, NULL );
    worldDef.hitEventThreshold = threshold;
    cnWorldId world = cnCreateWorld( &worldDef );
    ck_assert( cnWorld_IsValid( world ) );
    cnBodyId ground = cntBody( world, cn_staticBody, cnMakeVec3( 0.0, 0.0, -0.5 ) );
    cnShapeId groundShape = cntBox( ground, cnMakeVec3( 5.0, 5.0, 0.5 ), false );
    cnBodyId ball = cntBody( world, cn_dynamicBody, cnMakeVec3( 0.0, 0.0, 0.1 + gap ) );
    cnShapeDef def = cnDefaultShapeDef();
    def.enableHitEvents = enable;
    def.material.restitution = restitution;
    cnShapeId ballShape = cntSphere( ball, 0.1, &def );
    ck_assert( cnShape_AreHitEventsEnabled( ballShape ) == enable );
    for ( int step = 1; step <= steps; ++step )
    {
        ck_assert_int_eq( cnWorld_Step( world, CNT_DT ), cn_statusOk );
        cnContactEvents events = cnWorld_GetContactEvents( world );
        for ( int k = 0; k < events.hitCount; ++k )
        {
            if ( result.hits == 0 )
            {
                result.first = events.hitEvents[k];
                result.hitStep = step;
            }
            if ( result.hits < 16 )
            {
                result.speeds[result.hits] = events.hitEvents[k].approachSpeed;
            }
            result.hits += 1;
        }
    }
    if ( groundOut != NULL )
    {
        *groundOut = groundShape;
        *ballOut = ballShape;
    }
    cnDestroyWorld( world );
    return result;
}

// Dropped with a 0.2 m gap the ball lands at sqrt(2 g h) = 1.98 m/s. The first substep k whose solve
// presses has d_{k-1} <= h < d_k (a speculative point closes its gap s only when v h > s), and with
// v_k = g h k the integrator gives v_k^2 = 2 g d_k - g h v_k = 2 g d_{k-1} + g h v_k: so
// |v^2 - 2 g h| <= g h v (h the substep). One hit, at the step of substep k, none while it rests after.
START_TEST( test_hit_speed )
{
    const double gap = 0.2;
    cnShapeId ground;
    cnShapeId ball;
    cntDropResult drop = cntDropBall( gap, true, 1.0, 0.0, 120, &ground, &ball );
    const double h = CNT_DT / 2.0;
    int k = 1;
    while ( cntDrop( k, h ) <= gap )
    {
        k += 1;
    }
    double v = drop.first.approachSpeed;
    double bound = CNT_G * h * v;
    printf( "hit: %d event(s), step %d (substep %d expected, step %d), approach %.9f m/s, sqrt(2gh) %.9f, "
            "|v^2 - 2gh| = %.3g <= g h v = %.3g, integrator v_k = %.9f\n",
            drop.hits, drop.hitStep, k, ( k + 1 ) / 2, v, sqrt( 2.0 * CNT_G * gap ),
            fabs( v * v - 2.0 * CNT_G * gap ), bound, CNT_G * h * k );
    ck_assert_int_eq( drop.hits, 1 );
    ck_assert_int_eq( drop.hitStep, ( k + 1 ) / 2 );
    ck_assert( fabs( v * v - 2.0 * CNT_G * gap ) <= bound );
    CNT_ASSERT_REL( v, CNT_G * h * k, 1e-12 );
    // ground first (lower index): the normal points up, from the ground to the ball
    ck_assert( cntSameShape( drop.first.shapeA, ground ) );
    ck_assert( cntSameShape( drop.first.shapeB, ball ) );
    CNT_ASSERT_ABS( drop.first.normal.z, 1.0, 1e-12 );
    // the point lies between the surfaces, which were less than v h apart
    ck_assert( drop.first.point.z >= -1e-12 && drop.first.point.z <= v * h );
    CNT_ASSERT_ABS( drop.first.point.x, 0.0, 1e-12 );
}
END_TEST

// No event below the threshold, none without the flag, none from a drop slower than 1 m/s at the
// default threshold.
START_TEST( test_hit_threshold )
{
    double v = sqrt( 2.0 * CNT_G * 0.2 );
    cntDropResult above = cntDropBall( 0.2, true, v + 0.1, 0.0, 120, NULL, NULL );
    cntDropResult off = cntDropBall( 0.2, false, 1.0, 0.0, 120, NULL, NULL );
    cntDropResult slow = cntDropBall( 0.03, true, 1.0, 0.0, 120, NULL, NULL );
    cntDropResult zero = cntDropBall( 0.03, true, 0.0, 0.0, 120, NULL, NULL );
    printf(
        "hit thresholds: threshold %.3f: %d, flag off: %d, 0.77 m/s drop: %d, threshold 0: %d (%.4f m/s)\n",
        v + 0.1, above.hits, off.hits, slow.hits, zero.hits, zero.first.approachSpeed );
    ck_assert_int_eq( above.hits, 0 );
    ck_assert_int_eq( off.hits, 0 );
    ck_assert_int_eq( slow.hits, 0 );
    // with threshold 0 the slow drop hits once, and resting does not raise more
    ck_assert_int_eq( zero.hits, 1 );
    ck_assert( zero.first.approachSpeed > 0.5 && zero.first.approachSpeed < 1.0 );
}
END_TEST

// A bouncing ball (restitution 0.8) from 1 m: one hit per bounce, each slower than the one before.
START_TEST( test_hit_bounces )
{
    cntDropResult drop = cntDropBall( 1.0, true, 1.0, 0.8, 240, NULL, NULL );
    printf( "bounces: %d hits:", drop.hits );
    for ( int k = 0; k < drop.hits && k < 16; ++k )
    {
        printf( " %.3f", drop.speeds[k] );
    }
    printf( " m/s\n" );
    ck_assert_int_ge( drop.hits, 3 );
    ck_assert( drop.speeds[0] > 4.0 );
    for ( int k = 1; k < drop.hits && k < 16; ++k )
    {
        ck_assert( drop.speeds[k] < drop.speeds[k - 1] );
        ck_assert( drop.speeds[k] > 1.0 );
    }
}
END_TEST

// The threshold's checks: NaN, infinity and negative values refused with a status and a log line.
START_TEST( test_threshold_checks )
{
    cnWorldDef def = cntWorldDef( &cnt_log, NULL );
    ck_assert( def.hitEventThreshold == 1.0 );
    const double bad[3] = { NAN, INFINITY, -0.5 };
    for ( int k = 0; k < 3; ++k )
    {
        def = cntWorldDef( &cnt_log, NULL );
        def.hitEventThreshold = bad[k];
        cnWorldId world = cnCreateWorld( &def );
        ck_assert( CN_IS_NULL( world ) );
        ck_assert_int_eq( cnt_log.errorCount, 1 );
        ck_assert_int_eq( cnt_log.lastStatus, cn_statusInvalidArgument );
        ck_assert_ptr_nonnull( strstr( cnt_log.lastMessage, "hitEventThreshold" ) );
        printf( "bad threshold %g: %s\n", bad[k], cnt_log.lastMessage );
    }

    cnWorldId world = cntMakeWorld( CNT_G, false );
    const cnStatus expected[3] = { cn_statusNonFinite, cn_statusNonFinite, cn_statusInvalidArgument };
    for ( int k = 0; k < 3; ++k )
    {
        int errors = cnt_log.errorCount;
        ck_assert_int_eq( cnWorld_SetHitEventThreshold( world, bad[k] ), expected[k] );
        ck_assert_int_eq( cnt_log.errorCount, errors + 1 );
        ck_assert_int_eq( cnt_log.lastStatus, expected[k] );
        ck_assert( cnWorld_GetHitEventThreshold( world ) == 1.0 );
    }
    ck_assert_int_eq( cnWorld_SetHitEventThreshold( world, 2.5 ), cn_statusOk );
    ck_assert( cnWorld_GetHitEventThreshold( world ) == 2.5 );
    ck_assert( cnWorld_GetDef( world ).hitEventThreshold == 2.5 );
    cnWorldId stale = world;
    cnDestroyWorld( world );
    ck_assert_int_eq( cnWorld_SetHitEventThreshold( stale, 1.0 ), cn_statusInvalidId );
    ck_assert_int_eq( cnShape_EnableHitEvents( cn_nullShapeId, true ), cn_statusInvalidId );
    ck_assert( cnShape_IsSensor( cn_nullShapeId ) == false );
    ck_assert_int_eq( cnShape_GetSensorOverlaps( cn_nullShapeId, NULL, 0 ), 0 );
    ck_assert_int_eq( cnWorld_GetSensorEvents( stale ).beginCount, 0 );
}
END_TEST

// cnShape_EnableHitEvents after creation, on either shape of the pair.
START_TEST( test_hit_enable_later )
{
    cnWorldId world = cntMakeWorld( CNT_G, false );
    cnBodyId ground = cntBody( world, cn_staticBody, cnMakeVec3( 0.0, 0.0, -0.5 ) );
    cnShapeId groundShape = cntBox( ground, cnMakeVec3( 5.0, 5.0, 0.5 ), false );
    cnBodyId ball = cntBody( world, cn_dynamicBody, cnMakeVec3( 0.0, 0.0, 0.3 ) );
    cnShapeDef def = cnDefaultShapeDef();
    cntSphere( ball, 0.1, &def );
    ck_assert_int_eq( cnShape_EnableHitEvents( groundShape, true ), cn_statusOk );
    ck_assert( cnShape_AreHitEventsEnabled( groundShape ) );
    int hits = 0;
    for ( int step = 0; step < 60; ++step )
    {
        cnWorld_Step( world, CNT_DT );
        hits += cnWorld_GetContactEvents( world ).hitCount;
    }
    ck_assert_int_eq( hits, 1 );
    ck_assert_int_eq( cnShape_EnableHitEvents( groundShape, false ), cn_statusOk );
    cnBody_SetTransform( ball, cnMakeVec3( 0.0, 0.0, 0.3 ), cn_quatIdentity );
    for ( int step = 0; step < 60; ++step )
    {
        cnWorld_Step( world, CNT_DT );
        hits += cnWorld_GetContactEvents( world ).hitCount;
    }
    ck_assert_int_eq( hits, 1 );
    cnDestroyWorld( world );
}
END_TEST

// ---- scene files ------------------------------------------------------------------------------------

static const char* const cnt_scene =
    "{ \"world\": { \"hit_event_threshold\": 0.5 },\n"
    "  \"bodies\": [\n"
    "    { \"name\": \"zone\", \"type\": \"static\",\n"
    "      \"shapes\": [ { \"type\": \"box\", \"half_extents\": [1, 1, 1], \"sensor\": true } ] },\n"
    "    { \"name\": \"ball\", \"position\": [0, 0, 3],\n"
    "      \"shapes\": [ { \"type\": \"sphere\", \"radius\": 0.1, \"hit_events\": true, \"sensor\": false } "
    "] }\n"
    "  ] }\n";

START_TEST( test_scene_keys )
{
    cnSceneOptions options = cnDefaultSceneOptions();
    options.worldDef = cntWorldDef( &cnt_log, NULL );
    cnScene scene;
    cnSceneError error;
    ck_assert_int_eq(
        cnLoadSceneString( cnt_scene, strlen( cnt_scene ), "sensor.json", &options, &scene, &error ),
        cn_statusOk );
    ck_assert_int_eq( scene.warningCount, 0 );
    ck_assert( cnWorld_GetHitEventThreshold( scene.worldId ) == 0.5 );
    cnShapeId zone;
    cnShapeId ball;
    ck_assert_int_eq( cnBody_GetShapes( cnWorld_FindBody( scene.worldId, "zone" ), &zone, 1 ), 1 );
    ck_assert_int_eq( cnBody_GetShapes( cnWorld_FindBody( scene.worldId, "ball" ), &ball, 1 ), 1 );
    ck_assert( cnShape_IsSensor( zone ) );
    ck_assert( cnShape_AreHitEventsEnabled( zone ) == false );
    ck_assert( cnShape_IsSensor( ball ) == false );
    ck_assert( cnShape_AreHitEventsEnabled( ball ) );
    int begins = 0;
    for ( int step = 0; step < 60; ++step )
    {
        cnWorld_Step( scene.worldId, CNT_DT );
        begins += cnWorld_GetSensorEvents( scene.worldId ).beginCount;
    }
    ck_assert_int_eq( begins, 1 );
    cnDestroyWorld( scene.worldId );
}
END_TEST

typedef struct cntBadKey
{
    const char* override;
    const char* text;
} cntBadKey;

START_TEST( test_scene_bad_keys )
{
    const cntBadKey bad[] = {
        { "world.hit_event_threshold=-1",
          "sensor.json:<--set world.hit_event_threshold=-1>: world.hit_event_threshold: "
          "expected a non-negative number, got -1" },
        { "world.hit_event_threshold=\"fast\"",
          "sensor.json:<--set world.hit_event_threshold=\"fast\">: world.hit_event_threshold: expected a "
          "non-negative number, got string \"fast\"" },
        { "bodies[0].shapes[0].sensor=1", "sensor.json:<--set bodies[0].shapes[0].sensor=1>: "
                                          "bodies[0].shapes[0].sensor: expected true or false, got 1" },
        { "bodies[1].shapes[0].hit_events=\"yes\"",
          "sensor.json:<--set bodies[1].shapes[0].hit_events=\"yes\">: bodies[1].shapes[0].hit_events: "
          "expected true or "
          "false, got string \"yes\"" },
    };
    for ( int k = 0; k < (int)( sizeof( bad ) / sizeof( bad[0] ) ); ++k )
    {
        cnSceneOptions options = cnDefaultSceneOptions();
        options.worldDef = cntWorldDef( &cnt_log, NULL );
        options.overrides = &bad[k].override;
        options.overrideCount = 1;
        cnScene scene;
        cnSceneError error;
        cnStatus status =
            cnLoadSceneString( cnt_scene, strlen( cnt_scene ), "sensor.json", &options, &scene, &error );
        printf( "bad key: %s\n", error.text );
        ck_assert_int_eq( status, cn_statusSchemaError );
        ck_assert_str_eq( error.text, bad[k].text );
        ck_assert( CN_IS_NULL( scene.worldId ) );
    }
    // in the file itself: the place of the value
    const char* inFile = "{ \"bodies\": [ { \"shapes\": [ { \"type\": \"sphere\", \"radius\": 1,\n"
                         "    \"sensor\": \"maybe\" } ] } ] }";
    cnSceneOptions options = cnDefaultSceneOptions();
    options.worldDef = cntWorldDef( &cnt_log, NULL );
    cnScene scene;
    cnSceneError error;
    ck_assert_int_eq( cnLoadSceneString( inFile, strlen( inFile ), "sensor.json", &options, &scene, &error ),
                      cn_statusSchemaError );
    printf( "bad key: %s\n", error.text );
    ck_assert_str_eq(
        error.text,
        "sensor.json:2:15: bodies[0].shapes[0].sensor: expected true or false, got string \"maybe\"" );
}
END_TEST

static bool cntCountOverlap( cnShapeId shapeId, cnBodyId bodyId, void* context )
{
    (void)shapeId;
    (void)bodyId;
    *(int*)context += 1;
    return true;
}

// Queries see solids only: a ray through a sensor box hits the wall behind it, and box and shape
// overlaps over the sensor alone find nothing (they find the sensor's twin that is not a sensor)
START_TEST( test_queries_skip_sensors )
{
    cnWorldId world = cntMakeWorld( 0.0, false );
    cnBodyId sensorBody = cntBody( world, cn_staticBody, cnMakeVec3( 0.0, 0.0, 0.0 ) );
    cntBox( sensorBody, cnMakeVec3( 1.0, 1.0, 1.0 ), true );
    cnBodyId wallBody = cntBody( world, cn_staticBody, cnMakeVec3( 5.0, 0.0, 0.0 ) );
    cnShapeId wall = cntBox( wallBody, cnMakeVec3( 0.5, 1.0, 1.0 ), false );

    cnRayHit hit;
    ck_assert_int_eq( cnWorld_CastRayClosest( world, cnMakeVec3( -5.0, 0.0, 0.0 ),
                                              cnMakeVec3( 20.0, 0.0, 0.0 ), cnDefaultQueryFilter(), &hit ),
                      cn_statusOk );
    ck_assert( hit.hit );
    ck_assert( cntSameShape( hit.shapeId, wall ) );
    ck_assert_double_eq_tol( hit.point.x, 4.5, 1e-12 );

    int found = 0;
    cnBounds box = { { -0.5, -0.5, -0.5 }, { 0.5, 0.5, 0.5 } };
    ck_assert_int_eq( cnWorld_OverlapAABB( world, box, cnDefaultQueryFilter(), cntCountOverlap, &found ),
                      cn_statusOk );
    ck_assert_int_eq( found, 0 );
    cnGeometry ball = { .type = cn_sphereShape, .sphere = { 0.25 } };
    cnTransform pose = { cnMakeVec3( 0.0, 0.0, 0.0 ), cn_quatIdentity };
    ck_assert_int_eq(
        cnWorld_OverlapShape( world, &ball, pose, cnDefaultQueryFilter(), cntCountOverlap, &found ),
        cn_statusOk );
    ck_assert_int_eq( found, 0 );

    // the same box as a solid is seen
    cnBodyId solidBody = cntBody( world, cn_staticBody, cnMakeVec3( 0.0, 0.0, 0.0 ) );
    cntBox( solidBody, cnMakeVec3( 1.0, 1.0, 1.0 ), false );
    ck_assert_int_eq( cnWorld_OverlapAABB( world, box, cnDefaultQueryFilter(), cntCountOverlap, &found ),
                      cn_statusOk );
    ck_assert_int_eq( found, 1 );
    cnDestroyWorld( world );
}
END_TEST

static Suite* cntSensorSuite( void )
{
    Suite* suite = suite_create( "sensor" );
    TCase* sensors = tcase_create( "sensors" );
    tcase_add_test( sensors, test_fall_through_static_sensor );
    tcase_add_test( sensors, test_dynamic_sensor );
    tcase_add_test( sensors, test_exact_overlap );
    tcase_add_test( sensors, test_sensor_sleep_islands );
    tcase_add_test( sensors, test_destroy_mid_overlap );
    tcase_add_test( sensors, test_filters );
    tcase_add_test( sensors, test_multisphere );
    tcase_add_test( sensors, test_queries_skip_sensors );
    suite_add_tcase( suite, sensors );
    TCase* hits = tcase_create( "hits" );
    tcase_add_test( hits, test_hit_speed );
    tcase_add_test( hits, test_hit_threshold );
    tcase_add_test( hits, test_hit_bounces );
    tcase_add_test( hits, test_threshold_checks );
    tcase_add_test( hits, test_hit_enable_later );
    suite_add_tcase( suite, hits );
    TCase* scene = tcase_create( "scene" );
    tcase_add_test( scene, test_scene_keys );
    tcase_add_test( scene, test_scene_bad_keys );
    suite_add_tcase( suite, scene );
    return suite;
}

int main( void )
{
    cntSuiteFcn* suites[] = { cntSensorSuite };
    return cntRunSuites( suites, 1 );
}
