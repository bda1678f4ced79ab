// SPDX-License-Identifier: MIT
#include "engine_suites.h"
#include "test_support.h"

#include <math.h>
#include <string.h>

// create a world, fill it, destroy it: every byte goes back to the user's allocator
START_TEST( destroy_returns_every_byte )
{
    cntCountingAllocator counter;
    cnAllocator allocator = cntMakeCountingAllocator( &counter );
    cnWorldDef def = cntWorldDef( NULL, &allocator );
    cnWorldId world = cnCreateWorld( &def );
    ck_assert( cnWorld_IsValid( world ) );

    cnShapeDef shapeDef = cnDefaultShapeDef();
    cnVec3 points[8];
    for ( int i = 0; i < 8; ++i )
    {
        points[i] = cnMakeVec3( i & 1 ? 1.0 : -1.0, i & 2 ? 1.0 : -1.0, i & 4 ? 1.0 : -1.0 );
    }
    for ( int i = 0; i < 300; ++i )
    {
        cnBodyDef bodyDef = cnDefaultBodyDef();
        char name[32];
        snprintf( name, sizeof( name ), "body%d", i );
        bodyDef.name = name;
        bodyDef.position = cnMakeVec3( i, 0.0, 0.0 );
        cnBodyId body = cnCreateBody( world, &bodyDef );
        ck_assert( cnBody_IsValid( body ) );
        cnSphere sphere = { 0.5 };
        ck_assert( CN_IS_NON_NULL( cnCreateSphereShape( body, &shapeDef, &sphere ) ) );
        ck_assert( CN_IS_NON_NULL( cnCreateHullShape( body, &shapeDef, points, 8 ) ) );
        if ( i % 3 == 0 )
        {
            ck_assert_int_eq( cnDestroyBody( body ), cn_statusOk );
        }
    }
    for ( int i = 0; i < 10; ++i )
    {
        ck_assert_int_eq( cnWorld_Step( world, 1.0 / 60.0 ), cn_statusOk );
    }
    ck_assert_uint_eq( cnWorld_GetByteCount( world ), counter.liveBytes );
    ck_assert_uint_gt( counter.liveBytes, 0 );

    ck_assert_int_eq( cnDestroyWorld( world ), cn_statusOk );
    ck_assert_uint_eq( counter.liveBytes, 0 );
    ck_assert_int_eq( counter.liveBlocks, 0 );
    ck_assert( cnWorld_IsValid( world ) == false );
}
END_TEST

// a destroyed world's id is stale even after its slot is reused; forged ids are refused
START_TEST( stale_and_forged_world_ids )
{
    cnWorldDef def = cnDefaultWorldDef();
    cnWorldId first = cnCreateWorld( &def );
    ck_assert_int_eq( cnDestroyWorld( first ), cn_statusOk );
    cnWorldId second = cnCreateWorld( &def );
    ck_assert_int_eq( first.index1, second.index1 );
    ck_assert( cnWorld_IsValid( first ) == false );
    ck_assert( cnWorld_IsValid( second ) );

    ck_assert_int_eq( cnDestroyWorld( first ), cn_statusInvalidId );
    ck_assert_int_eq( cnWorld_Step( first, 0.01 ), cn_statusInvalidId );
    ck_assert( cnWorld_IsValid( cn_nullWorldId ) == false );

    cnWorldId forged = { 60000, 1 };
    ck_assert( cnWorld_IsValid( forged ) == false );
    ck_assert_int_eq( cnWorld_Step( forged, 0.01 ), cn_statusInvalidId );
    ck_assert_int_eq( cnWorld_GetBodyCount( forged ), 0 );
    cnBodyDef bodyDef = cnDefaultBodyDef();
    ck_assert( CN_IS_NULL( cnCreateBody( forged, &bodyDef ) ) );

    ck_assert_int_eq( cnDestroyWorld( second ), cn_statusOk );
}
END_TEST

// the world table is finite: the next create fails cleanly, and a slot frees up again
START_TEST( world_table_full )
{
    cntLogCapture log;
    cnWorldDef def = cntWorldDef( &log, NULL );
    cnWorldId worlds[CN_MAX_WORLDS];
    for ( int i = 0; i < CN_MAX_WORLDS; ++i )
    {
        worlds[i] = cnCreateWorld( &def );
        ck_assert( cnWorld_IsValid( worlds[i] ) );
    }
    cnWorldId extra = cnCreateWorld( &def );
    ck_assert( CN_IS_NULL( extra ) );
    ck_assert_int_eq( log.lastStatus, cn_statusCapacityExceeded );

    ck_assert_int_eq( cnDestroyWorld( worlds[5] ), cn_statusOk );
    extra = cnCreateWorld( &def );
    ck_assert( cnWorld_IsValid( extra ) );
    worlds[5] = extra;
    for ( int i = 0; i < CN_MAX_WORLDS; ++i )
    {
        ck_assert_int_eq( cnDestroyWorld( worlds[i] ), cn_statusOk );
    }
}
END_TEST

// bad world defs are refused with a reason
START_TEST( bad_world_defs )
{
    cntLogCapture log;
    cnWorldDef def = cntWorldDef( &log, NULL );
    def.gravity.z = NAN;
    ck_assert( CN_IS_NULL( cnCreateWorld( &def ) ) );
    ck_assert_int_eq( log.errorCount, 1 );
    ck_assert_ptr_nonnull( strstr( log.lastMessage, "gravity" ) );

    def = cntWorldDef( &log, NULL );
    def.timeStep = -1.0;
    ck_assert( CN_IS_NULL( cnCreateWorld( &def ) ) );
    ck_assert_ptr_nonnull( strstr( log.lastMessage, "timeStep" ) );

    def = cntWorldDef( &log, NULL );
    def.internalValue = 0;
    ck_assert( CN_IS_NULL( cnCreateWorld( &def ) ) );
    ck_assert_ptr_nonnull( strstr( log.lastMessage, "cnDefaultWorldDef" ) );

    def = cntWorldDef( &log, NULL );
    def.substeps = -1;
    ck_assert( CN_IS_NULL( cnCreateWorld( &def ) ) );
    ck_assert_ptr_nonnull( strstr( log.lastMessage, "substeps" ) );

    def = cntWorldDef( &log, NULL );
    def.contactRecursions = 65;
    ck_assert( CN_IS_NULL( cnCreateWorld( &def ) ) );
    ck_assert_ptr_nonnull( strstr( log.lastMessage, "contactRecursions" ) );

    ck_assert( CN_IS_NULL( cnCreateWorld( NULL ) ) );
}
END_TEST

// a step with a bad time step is refused and changes nothing
START_TEST( bad_time_step_changes_nothing )
{
    cntLogCapture log;
    cnWorldDef def = cntWorldDef( &log, NULL );
    cnWorldId world = cnCreateWorld( &def );
    cnBodyDef bodyDef = cnDefaultBodyDef();
    bodyDef.linearVelocity = cnMakeVec3( 1.0, 2.0, 3.0 );
    cnBodyId body = cnCreateBody( world, &bodyDef );

    ck_assert_int_eq( cnWorld_Step( world, NAN ), cn_statusInvalidArgument );
    ck_assert_int_eq( cnWorld_Step( world, 0.0 ), cn_statusInvalidArgument );
    ck_assert_int_eq( cnWorld_Step( world, -0.1 ), cn_statusInvalidArgument );
    ck_assert_int_eq( cnWorld_Step( world, INFINITY ), cn_statusInvalidArgument );
    ck_assert_int_eq( log.errorCount, 4 );
    cnVec3 p = cnBody_GetPosition( body );
    ck_assert( p.x == 0.0 && p.y == 0.0 && p.z == 0.0 );
    ck_assert_int_eq( (int)cnWorld_GetStepReport( world ).stepIndex, 0 );

    ck_assert_int_eq( cnWorld_Step( world, 0.5 ), cn_statusOk );
    ck_assert_int_eq( (int)cnWorld_GetStepReport( world ).stepIndex, 1 );
    cnDestroyWorld( world );
}
END_TEST

// out of memory at any allocation leaves the world consistent and every byte accounted for
START_TEST( out_of_memory_anywhere )
{
    for ( long failAt = 0; failAt < 40; ++failAt )
    {
        cntCountingAllocator counter;
        cnAllocator allocator = cntMakeCountingAllocator( &counter );
        cntLogCapture log;
        cnWorldDef def = cntWorldDef( &log, &allocator );
        def.bodyCapacity = 0;
        counter.failAfter = failAt;
        cnWorldId world = cnCreateWorld( &def );
        ck_assert( cnWorld_IsValid( world ) );
        int created = 0;
        for ( int i = 0; i < 40; ++i )
        {
            cnBodyDef bodyDef = cnDefaultBodyDef();
            bodyDef.name = i % 2 ? "odd" : NULL;
            if ( i % 2 )
            {
                char name[16];
                snprintf( name, sizeof( name ), "b%d", i );
                bodyDef.name = name;
                cnBodyId body = cnCreateBody( world, &bodyDef );
                created += CN_IS_NON_NULL( body ) ? 1 : 0;
            }
            else
            {
                cnBodyId body = cnCreateBody( world, &bodyDef );
                created += CN_IS_NON_NULL( body ) ? 1 : 0;
                cnShapeDef shapeDef = cnDefaultShapeDef();
                cnBox box = { { 1.0, 1.0, 1.0 } };
                cnCreateBoxShape( body, &shapeDef, &box );
            }
        }
        ck_assert_int_eq( cnWorld_GetBodyCount( world ), created );
        cnWorld_Step( world, 0.01 );
        ck_assert_uint_eq( cnWorld_GetByteCount( world ), counter.liveBytes );
        ck_assert_int_eq( cnDestroyWorld( world ), cn_statusOk );
        ck_assert_uint_eq( counter.liveBytes, 0 );
    }
}
END_TEST

Suite* cntWorldSuite( void )
{
    Suite* suite = suite_create( "world" );
    TCase* tc = tcase_create( "lifecycle" );
    tcase_add_test( tc, destroy_returns_every_byte );
    tcase_add_test( tc, stale_and_forged_world_ids );
    tcase_add_test( tc, world_table_full );
    tcase_add_test( tc, bad_world_defs );
    tcase_add_test( tc, bad_time_step_changes_nothing );
    tcase_add_test( tc, out_of_memory_anywhere );
    suite_add_tcase( suite, tc );
    return suite;
}
