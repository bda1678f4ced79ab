// SPDX-License-Identifier: MIT
// Command-line helpers shared by the subcommands.
#include "cli.h"

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
