// SPDX-License-Identifier: MIT
// The progress line: on a terminal (a pseudo-terminal here) it is drawn with \r and erased at the
// end; under --quiet, and whenever stderr is not a terminal, nothing is written at all.
// posix_openpt, grantpt, unlockpt and ptsname are XSI.
#define _XOPEN_SOURCE 600

#include "cli_suites.h"
#include "cli_support.h"
#include "test_support.h"

#include <check.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

// Run `cairn run free_fall.json --steps N [extra]` with stderr on a new pseudo-terminal and
// stdout to /dev/null. Returns what the terminal received (owned) and the exit code.
static char* cntRunOnTerminal( int steps, const char* extra, int* exitCode )
{
    int master = posix_openpt( O_RDWR | O_NOCTTY );
    ck_assert_msg( master >= 0, "posix_openpt: %s", strerror( errno ) );
    ck_assert_int_eq( grantpt( master ), 0 );
    ck_assert_int_eq( unlockpt( master ), 0 );
    char slaveName[256];
    snprintf( slaveName, sizeof( slaveName ), "%s", ptsname( master ) );

    char stepText[32];
    snprintf( stepText, sizeof( stepText ), "%d", steps );
    const char* scene = cntDataPath( 0, "free_fall.json" );

    fflush( NULL );
    pid_t child = fork();
    ck_assert_int_ge( child, 0 );
    if ( child == 0 )
    {
        int slave = open( slaveName, O_RDWR | O_NOCTTY );
        int null = open( "/dev/null", O_RDWR );
        if ( slave < 0 || null < 0 )
        {
            _exit( 126 );
        }
        dup2( null, STDIN_FILENO );
        dup2( null, STDOUT_FILENO );
        dup2( slave, STDERR_FILENO );
        close( master );
        if ( extra != NULL )
        {
            execl( CN_CLI_PATH, "cairn", "run", scene, "--steps", stepText, extra, (char*)NULL );
        }
        else
        {
            execl( CN_CLI_PATH, "cairn", "run", scene, "--steps", stepText, (char*)NULL );
        }
        _exit( 127 );
    }

    // read until the child is gone and the terminal reports EOF or EIO (no slave left open)
    size_t size = 0;
    size_t capacity = 1 << 16;
    char* text = malloc( capacity );
    ck_assert_ptr_nonnull( text );
    for ( ;; )
    {
        if ( size + 1 >= capacity )
        {
            capacity *= 2;
            text = realloc( text, capacity );
            ck_assert_ptr_nonnull( text );
        }
        ssize_t got = read( master, text + size, capacity - size - 1 );
        if ( got > 0 )
        {
            size += (size_t)got;
        }
        else if ( got < 0 && errno == EINTR )
        {
            continue;
        }
        else
        {
            break;
        }
    }
    text[size] = '\0';
    close( master );

    int status = 0;
    ck_assert_int_eq( waitpid( child, &status, 0 ), child );
    *exitCode = WIFEXITED( status ) ? WEXITSTATUS( status ) : -1;
    return text;
}

START_TEST( progress_line_on_a_terminal )
{
    int exitCode = -1;
    char* text = cntRunOnTerminal( 3000, NULL, &exitCode );
    ck_assert_int_eq( exitCode, 0 );
    ck_assert_msg( cntContains( text, "\rstep " ) && cntContains( text, "/3000 " ), "terminal got: %s",
                   text );
    ck_assert_msg( cntContains( text, " steps/s " ) && cntContains( text, " left" ), "terminal got: %s",
                   text );
    // one line, never a newline; erased at the end
    ck_assert_ptr_null( strchr( text, '\n' ) );
    size_t length = strlen( text );
    ck_assert_msg( length >= 4 && strcmp( text + length - 4, "\r\x1b[K" ) == 0, "the line is not erased: %s",
                   text );
    free( text );
}
END_TEST

START_TEST( quiet_writes_nothing_on_a_terminal )
{
    int exitCode = -1;
    char* text = cntRunOnTerminal( 3000, "--quiet", &exitCode );
    ck_assert_int_eq( exitCode, 0 );
    ck_assert_msg( text[0] == '\0', "terminal got: %s", text );
    free( text );
}
END_TEST

START_TEST( nothing_on_stderr_when_it_is_not_a_terminal )
{
    // a run long enough for several progress updates, were they drawn
    cntCliRun run = cntRunCli( "run \"%s\" --steps 20000", cntDataPath( 0, "free_fall.json" ) );
    ck_assert_msg( run.exitCode == 0, "exit code %d, stderr: %s", run.exitCode, run.err );
    ck_assert_msg( run.err[0] == '\0', "stderr is not empty: %s", run.err );
    ck_assert_int_eq( cntCountLines( run.out ), 1 );
    cntFreeCliRun( &run );
}
END_TEST

Suite* cntCliProgressSuite( void )
{
    Suite* suite = suite_create( "cli_progress" );
    TCase* progress = tcase_create( "progress" );
    tcase_add_test( progress, progress_line_on_a_terminal );
    tcase_add_test( progress, quiet_writes_nothing_on_a_terminal );
    tcase_add_test( progress, nothing_on_stderr_when_it_is_not_a_terminal );
    suite_add_tcase( suite, progress );
    return suite;
}
