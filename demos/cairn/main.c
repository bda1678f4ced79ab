// SPDX-License-Identifier: MIT
// cairn: run a scene headless, list its contacts, solve a problem file, list the solvers (docs/cli.md).
#include "cli.h"

#include <string.h>

static void PrintUsage( FILE* stream )
{
    fprintf( stream, "usage: cairn COMMAND [options]\n"
                     "\n"
                     "commands:\n"
                     "  run SCENE.json    step a scene headless; report timings and the final state\n"
                     "  contacts SCENE.json  list the contacts of a scene as loaded, without stepping\n"
                     "  lcp FILE          solve an LCP or frictional-contact problem file (Siconos text)\n"
                     "  solvers           list the registered solvers and their parameters\n"
                     "\n"
                     "  cairn COMMAND --help   options of a command\n"
                     "  cairn --version        print the version\n" );
}

int main( int argc, char** argv )
{
    if ( argc < 2 )
    {
        PrintUsage( stderr );
        return exitUsage;
    }

    const char* command = argv[1];
    if ( strcmp( command, "-h" ) == 0 || strcmp( command, "--help" ) == 0 || strcmp( command, "help" ) == 0 )
    {
        PrintUsage( stdout );
        return exitOk;
    }
    if ( strcmp( command, "--version" ) == 0 || strcmp( command, "version" ) == 0 )
    {
        printf( "cairn %s\n", cnVersionString() );
        return exitOk;
    }
    if ( strcmp( command, "run" ) == 0 )
    {
        return RunCommand( argc - 1, argv + 1 );
    }
    if ( strcmp( command, "contacts" ) == 0 )
    {
        return ContactsCommand( argc - 1, argv + 1 );
    }
    if ( strcmp( command, "lcp" ) == 0 )
    {
        return LcpCommand( argc - 1, argv + 1 );
    }
    if ( strcmp( command, "solvers" ) == 0 )
    {
        return SolversCommand( argc - 1, argv + 1 );
    }

    fprintf( stderr, "cairn: unknown command '%s' (try cairn --help)\n", command );
    return exitUsage;
}
