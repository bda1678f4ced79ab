// SPDX-License-Identifier: MIT
// The command line itself: help, version, unknown commands, and every way to get the
// arguments wrong (exit code 2 and a message that names the problem).
#include "cli_suites.h"
#include "cli_support.h"
#include "test_support.h"

#include "cairn/cairn.h"

#include <check.h>

#include <stdio.h>
#include <string.h>

typedef struct cntBadArgs
{
    const char* args; // after "run SCENE", or the whole line when no scene is wanted
    bool withScene;
    const char* message; // a part of what stderr must say
} cntBadArgs;

static const cntBadArgs cnt_badArgs[] = {
    { "--bogus", true, "unknown option '--bogus'" },
    { "-x", true, "unknown option '-x'" },
    { "--steps", true, "--steps needs a value" },
    { "--steps abc", true, "--steps expects a non-negative integer, got 'abc'" },
    { "--steps 10x", true, "got '10x'" },
    { "--steps -5", true, "got '-5'" },
    { "--steps 1.5", true, "got '1.5'" },
    { "--steps 99999999999999999999999", true, "--steps expects" },
    { "--dt -0.1", true, "--dt expects a positive number of seconds, got '-0.1'" },
    { "--dt 0", true, "got '0'" },
    { "--dt fast", true, "got 'fast'" },
    { "--dt nan", true, "got 'nan'" },
    { "--dt", true, "--dt needs a value" },
    { "--set", true, "--set needs a value" },
    { "--set world.dt", true, "--set expects KEY=VALUE" },
    { "--set =3", true, "--set expects KEY=VALUE" },
    { "--solver", true, "--solver needs a value" },
    { "--solver a_name_that_is_far_too_long_for_it", true, "--solver expects a name of 1 to 31 characters" },
    { "--report", true, "--report needs a value" },
    { "--trace", true, "--trace needs a value" },
    { "--report=", true, "needs a non-empty value" },
    { "run", false, "no scene file given" },
    { "run --steps 5", false, "no scene file given" },
    { "run a.json b.json", false, "more than one scene file: 'a.json' and 'b.json'" },
    { "", false, "usage: cairn" },
    { "frobnicate", false, "unknown command 'frobnicate'" },
    { "lcp", false, "cairn lcp: no problem file given" },
    { "lcp x.txt --bogus", false, "cairn lcp: unknown option '--bogus'" },
    { "solvers --bogus", false, "cairn solvers: unknown option '--bogus'" },
};

START_TEST( bad_arguments_exit_2 )
{
    const cntBadArgs* bad = cnt_badArgs + _i;
    cntCliRun run = bad->withScene
                        ? cntRunCli( "run \"%s\" %s", cntDataPath( 0, "free_fall.json" ), bad->args )
                        : cntRunCli( "%s", bad->args );
    ck_assert_msg( run.exitCode == 2, "'%s': exit code %d, stderr: %s", bad->args, run.exitCode, run.err );
    ck_assert_msg( cntContains( run.err, bad->message ), "'%s': stderr does not say \"%s\": %s", bad->args,
                   bad->message, run.err );
    ck_assert_msg( run.out[0] == '\0', "'%s': stdout: %s", bad->args, run.out );
    cntFreeCliRun( &run );
}
END_TEST

START_TEST( help_and_version )
{
    cntCliRun run = cntRunCli( "--help" );
    ck_assert_int_eq( run.exitCode, 0 );
    ck_assert_msg( cntContains( run.out, "usage: cairn COMMAND" ) && cntContains( run.out, "run SCENE.json" ),
                   "%s", run.out );
    ck_assert_msg( run.err[0] == '\0', "stderr: %s", run.err );
    cntFreeCliRun( &run );

    run = cntRunCli( "run --help" );
    ck_assert_int_eq( run.exitCode, 0 );
    const char* options[] = { "--steps", "--dt", "--solver", "--set", "--report", "--trace", "--quiet" };
    for ( int i = 0; i < 7; ++i )
    {
        ck_assert_msg( cntContains( run.out, options[i] ), "run --help does not mention %s", options[i] );
    }
    cntFreeCliRun( &run );

    run = cntRunCli( "--version" );
    ck_assert_int_eq( run.exitCode, 0 );
    char expected[64];
    snprintf( expected, sizeof( expected ), "cairn %s\n", cnVersionString() );
    ck_assert_str_eq( run.out, expected );
    cntFreeCliRun( &run );
}
END_TEST

Suite* cntCliArgsSuite( void )
{
    Suite* suite = suite_create( "cli_args" );
    TCase* args = tcase_create( "args" );
    tcase_add_loop_test( args, bad_arguments_exit_2, 0,
                         (int)( sizeof( cnt_badArgs ) / sizeof( cnt_badArgs[0] ) ) );
    tcase_add_test( args, help_and_version );
    suite_add_tcase( suite, args );
    return suite;
}
