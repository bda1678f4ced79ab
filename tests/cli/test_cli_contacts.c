// SPDX-License-Identifier: MIT
// cairn contacts: the narrowphase on a scene as loaded, listed and reported.
#include "cli_suites.h"
#include "cli_support.h"
#include "test_support.h"

#include <string.h>

// the crate rests 1 cm deep on the ground: one contact of four points; the ball is out of reach
START_TEST( contacts_of_a_resting_crate )
{
    const char* report = cntWorkPath( 0, "contacts.json" );
    cntCliRun run =
        cntRunCli( "contacts \"%s\" --report \"%s\"", cntDataPath( 1, "box_on_ground.json" ), report );
    ck_assert_msg( run.exitCode == 0, "exit %d, stderr: %s", run.exitCode, run.err );
    ck_assert_msg( cntContains( run.out, "ground (plane) - crate (box): normal [0, 0, 1], 4 points" ),
                   "stdout: %s", run.out );
    ck_assert_msg( cntContains( run.out, "1 contact, 4 points, deepest penetration 0.01 m" ), "stdout: %s",
                   run.out );
    ck_assert_msg( run.err[0] == '\0', "stderr: %s", run.err );
    cntFreeCliRun( &run );

    cJSON* json = cntReadJson( report );
    ck_assert_ptr_nonnull( json );
    ck_assert_int_eq( cJSON_GetObjectItem( json, "contact_count" )->valueint, 1 );
    ck_assert_int_eq( cJSON_GetObjectItem( json, "point_count" )->valueint, 4 );
    cJSON* contact = cJSON_GetArrayItem( cJSON_GetObjectItem( json, "contacts" ), 0 );
    ck_assert_str_eq( cJSON_GetObjectItem( contact, "body_a" )->valuestring, "ground" );
    ck_assert_str_eq( cJSON_GetObjectItem( contact, "body_b" )->valuestring, "crate" );
    ck_assert_str_eq( cJSON_GetObjectItem( contact, "shape_b" )->valuestring, "box" );
    cJSON* point = NULL;
    cJSON_ArrayForEach( point, cJSON_GetObjectItem( contact, "points" ) )
    {
        CNT_ASSERT_ABS( cJSON_GetObjectItem( point, "separation" )->valuedouble, -0.01, 1e-9 );
        cJSON* position = cJSON_GetObjectItem( point, "position" );
        CNT_ASSERT_ABS( fabs( cJSON_GetArrayItem( position, 0 )->valuedouble - 1.0 ), 0.5, 1e-9 );
        CNT_ASSERT_ABS( fabs( cJSON_GetArrayItem( position, 1 )->valuedouble - 2.0 ), 0.5, 1e-9 );
    }
    cJSON_Delete( json );
}
END_TEST

// an override moves the ball into the ground: the unnamed body is listed by its place
START_TEST( contacts_follow_overrides )
{
    cntCliRun run = cntRunCli( "contacts \"%s\" --set 'bodies[2].position=[5,0,0.4]'",
                               cntDataPath( 1, "box_on_ground.json" ) );
    ck_assert_msg( run.exitCode == 0, "exit %d, stderr: %s", run.exitCode, run.err );
    ck_assert_msg( cntContains( run.out, "ground (plane) - #2 (sphere): normal [0, 0, 1], 1 point" ),
                   "stdout: %s", run.out );
    ck_assert_msg( cntContains( run.out, "2 contacts, 5 points, deepest penetration 0.1 m" ), "stdout: %s",
                   run.out );
    cntFreeCliRun( &run );
}
END_TEST

START_TEST( contacts_errors )
{
    cntCliRun run = cntRunCli( "contacts" );
    ck_assert_int_eq( run.exitCode, 2 );
    cntFreeCliRun( &run );
    run = cntRunCli( "contacts \"%s\" --frobnicate", cntDataPath( 1, "box_on_ground.json" ) );
    ck_assert_int_eq( run.exitCode, 2 );
    ck_assert( cntContains( run.err, "unknown option '--frobnicate'" ) );
    cntFreeCliRun( &run );
    run = cntRunCli( "contacts \"%s\"", cntDataPath( 1, "malformed.json" ) );
    ck_assert_int_eq( run.exitCode, 1 );
    ck_assert( cntContains( run.err, "malformed.json:3:" ) );
    cntFreeCliRun( &run );
}
END_TEST

Suite* cntCliContactsSuite( void )
{
    Suite* suite = suite_create( "cli_contacts" );
    TCase* tc = tcase_create( "contacts" );
    tcase_add_test( tc, contacts_of_a_resting_crate );
    tcase_add_test( tc, contacts_follow_overrides );
    tcase_add_test( tc, contacts_errors );
    suite_add_tcase( suite, tc );
    return suite;
}
