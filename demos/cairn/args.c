// SPDX-License-Identifier: MIT
// Command-line helpers shared by the subcommands.
#include "cli.h"

#include <stdlib.h>
#include <string.h>

int MatchOption( int argc, char** argv, int* index, const char* name, const char** value )
{
    const char* arg = argv[*index];
    size_t length = strlen( name );
    if ( strncmp( arg, name, length ) != 0 )
    {
        return 0;
    }
    if ( arg[length] == '=' )
    {
        *value = arg + length + 1;
        return 1;
    }
    if ( arg[length] != '\0' )
    {
        return 0;
    }
    if ( *index + 1 >= argc )
    {
        return -1;
    }
    *index += 1;
    *value = argv[*index];
    return 1;
}

const char* BaseName( const char* path )
{
    const char* slash = strrchr( path, '/' );
    return slash != NULL ? slash + 1 : path;
}

int MpiRank( void )
{
    const char* names[] = { "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK" };
    for ( int i = 0; i < 3; ++i )
    {
        const char* value = getenv( names[i] );
        if ( value != NULL && value[0] != '\0' )
        {
            return atoi( value );
        }
    }
    return 0;
}

bool SilenceOutput( void )
{
    return freopen( "/dev/null", "w", stdout ) != NULL && freopen( "/dev/null", "w", stderr ) != NULL;
}
