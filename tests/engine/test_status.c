// SPDX-License-Identifier: MIT
#include "engine_suites.h"
#include "test_support.h"

#include <string.h>

// every code has its own non-empty string and name, and unknown codes are caught
START_TEST( every_status_has_a_distinct_string )
{
    for ( int i = 0; i < cn_statusCount; ++i )
    {
        const char* text = cnStatusString( (cnStatus)i );
        ck_assert_ptr_nonnull( text );
        ck_assert_int_gt( (int)strlen( text ), 0 );
        ck_assert_str_ne( text, "unknown status" );
        ck_assert_int_eq( strncmp( cnStatusName( (cnStatus)i ), "cn_status", 9 ), 0 );
        for ( int j = 0; j < i; ++j )
        {
            ck_assert_str_ne( text, cnStatusString( (cnStatus)j ) );
        }
    }
    ck_assert_str_eq( cnStatusString( cn_statusCount ), "unknown status" );
    ck_assert_str_eq( cnStatusString( (cnStatus)-1 ), "unknown status" );
    ck_assert_str_eq( cnStatusName( cn_statusInvalidId ), "cn_statusInvalidId" );
}
END_TEST

START_TEST( version_string_matches_macros )
{
    char expected[32];
    snprintf( expected, sizeof( expected ), "%d.%d.%d", CN_VERSION_MAJOR, CN_VERSION_MINOR,
              CN_VERSION_PATCH );
    ck_assert_str_eq( cnVersionString(), expected );
}
END_TEST

Suite* cntStatusSuite( void )
{
    Suite* suite = suite_create( "status" );
    TCase* tc = tcase_create( "strings" );
    tcase_add_test( tc, every_status_has_a_distinct_string );
    tcase_add_test( tc, version_string_matches_macros );
    suite_add_tcase( suite, tc );
    return suite;
}
