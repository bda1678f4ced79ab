// SPDX-License-Identifier: MIT
// Viewer scripts: commands parsed with their arguments, sorted by frame (file order within a
// frame), and every kind of mistake refused with the file and line.
#include "script.h"
#include "test_support.h"

#include <math.h>
#include <string.h>

START_TEST( commands_parse_and_sort_by_frame )
{
    const char* text = "# a demo\n"
                       "120 solver psor   # switch\n"
                       "  0 param iterations 50\n"
                       "\n"
                       "120 param relaxation 1.2\n"
                       "30 show contacts on\n"
                       "30 color island\n"
                       "60 camera 45 -10 12.5\n"
                       "61 drop torus\n"
                       "90 screenshot out/a.png\n"
                       "200 slow off\n"
                       "300 quit\n";
    vwScript script;
    char error[256] = "";
    ck_assert_msg( vwParseScript( text, "demo.script", &script, error, (int)sizeof( error ) ), "%s", error );
    ck_assert_int_eq( script.count, 10 );
    static const int frames[10] = { 0, 30, 30, 60, 61, 90, 120, 120, 200, 300 };
    static const vwCommandKind kinds[10] = {
        vw_commandParam,      vw_commandShow,   vw_commandColor, vw_commandCamera, vw_commandDrop,
        vw_commandScreenshot, vw_commandSolver, vw_commandParam, vw_commandSlow,   vw_commandQuit };
    int failures = 0;
    for ( int i = 0; i < 10; ++i )
    {
        failures += script.commands[i].frame != frames[i] || script.commands[i].kind != kinds[i];
    }
    ck_assert_int_eq( failures, 0 );
    ck_assert_str_eq( script.commands[0].text, "iterations" );
    ck_assert( script.commands[0].values[0] == 50.0 );
    ck_assert( script.commands[1].values[0] == 0.0 && script.commands[1].values[1] == 1.0 ); // contacts on
    ck_assert( script.commands[2].values[0] == 1.0 );                                        // island
    ck_assert( script.commands[3].values[0] == 45.0 && script.commands[3].values[1] == -10.0 &&
               script.commands[3].values[2] == 12.5 );
    ck_assert( script.commands[4].values[0] == 5.0 ); // torus
    ck_assert_str_eq( script.commands[5].text, "out/a.png" );
    // file order within frame 120: the solver first, then its parameter
    ck_assert_str_eq( script.commands[6].text, "psor" );
    ck_assert_str_eq( script.commands[7].text, "relaxation" );
    ck_assert( script.commands[7].values[0] == 1.2 );
    ck_assert( script.commands[8].values[0] == 0.0 );
    vwFreeScript( &script );
    ck_assert_ptr_null( script.commands );

    ck_assert( vwParseScript( "5 grab 320.5 240\n6 move 320 140\n9 release\n", "drag.script", &script, error,
                              (int)sizeof( error ) ) );
    ck_assert_int_eq( script.count, 3 );
    ck_assert( script.commands[0].kind == vw_commandGrab && script.commands[0].values[0] == 320.5 &&
               script.commands[0].values[1] == 240.0 );
    ck_assert( script.commands[1].kind == vw_commandMove && script.commands[1].values[1] == 140.0 );
    ck_assert( script.commands[2].kind == vw_commandRelease );
    vwFreeScript( &script );

    // a parameter's value as written: a number, a choice's name, true/false; checked against the
    // registered solvers' tables when the script is read, set on the current solver when it runs
    ck_assert_msg(
        vwParseScript( "0 param kernel reference\n1 param warm_start false\n2 param relaxation 1.5\n",
                       "names.script", &script, error, (int)sizeof( error ) ),
        "%s", error );
    ck_assert_int_eq( script.count, 3 );
    ck_assert( script.commands[0].kind == vw_commandParam );
    ck_assert_str_eq( script.commands[0].text, "kernel" );
    ck_assert_str_eq( script.commands[0].value, "reference" );
    ck_assert( isnan( script.commands[0].values[0] ) );
    ck_assert_str_eq( script.commands[1].value, "false" );
    ck_assert_str_eq( script.commands[2].value, "1.5" );
    ck_assert( script.commands[2].values[0] == 1.5 );
    vwFreeScript( &script );

    ck_assert( vwParseScript( "# nothing\n\n", "empty.script", &script, error, (int)sizeof( error ) ) );
    ck_assert_int_eq( script.count, 0 );
    vwFreeScript( &script );
}
END_TEST

START_TEST( mistakes_name_the_line )
{
    static const char* const bad[][2] = {
        { "0 pause\n10 jump\n", "bad.script:2: unknown command 'jump'" },
        { "x solver pgs\n", "bad.script:1: a line starts with its frame number" },
        { "-5 pause\n", "bad.script:1: a line starts with its frame number" },
        { "1.5 pause\n", "bad.script:1: a line starts with its frame number" },
        { "7\n", "bad.script:1: frame 7 has no command" },
        { "0 solver\n", "bad.script:1: 'solver' takes 1 argument" },
        { "0 param iterations\n", "bad.script:1: 'param' takes 2 arguments" },
        { "0 param iterations lots\n", "bad.script:1: bad argument" },
        { "0 param iterations nan\n", "bad.script:1: bad argument" },
        { "0 param iterations 2.5\n",
          "bad.script:1: bad argument: param NAME VALUE (iterations: 2.5 is not a whole" },
        { "0 param kernel fastest\n",
          "bad.script:1: bad argument: param NAME VALUE (kernel: 'fastest' is not one of" },
        { "0 param warm_start maybe\n", "bad.script:1: bad argument" },
        { "0 param iteratoins 5\n", "bad.script:1: no solver has a parameter 'iteratoins'" },
        { "\n\n0 color plaid\n", "bad.script:3: bad argument" },
        { "0 show everything on\n", "bad.script:1: bad argument" },
        { "0 slow maybe\n", "bad.script:1: bad argument" },
        { "0 drop piano\n", "bad.script:1: bad argument" },
        { "0 camera 1 2 -3\n", "bad.script:1: bad argument" },
        { "0 a b c d e f g\n", "bad.script:1: too many words" },
        { "0 grab 10\n", "bad.script:1: 'grab' takes 2 arguments" },
        { "0 move x 10\n", "bad.script:1: bad argument" },
    };
    int failures = 0;
    for ( size_t i = 0; i < sizeof( bad ) / sizeof( bad[0] ); ++i )
    {
        vwScript script;
        char error[256] = "";
        bool ok = vwParseScript( bad[i][0], "bad.script", &script, error, (int)sizeof( error ) );
        bool right = !ok && strncmp( error, bad[i][1], strlen( bad[i][1] ) ) == 0 && script.commands == NULL;
        if ( !right )
        {
            fprintf( stderr, "'%s': got '%s'\n", bad[i][0], error );
        }
        failures += !right;
    }
    ck_assert_int_eq( failures, 0 );

    vwScript script;
    char error[256];
    ck_assert( !vwLoadScript( "/no/such/file.script", &script, error, (int)sizeof( error ) ) );
    ck_assert( strstr( error, "/no/such/file.script: cannot open" ) == error );
}
END_TEST

static Suite* cntScriptSuite( void )
{
    Suite* suite = suite_create( "viewer_script" );
    TCase* tc = tcase_create( "parse" );
    tcase_add_test( tc, commands_parse_and_sort_by_frame );
    tcase_add_test( tc, mistakes_name_the_line );
    suite_add_tcase( suite, tc );
    return suite;
}

int main( void )
{
    static cntSuiteFcn* const suites[] = { cntScriptSuite };
    return cntRunSuites( suites, 1 );
}
