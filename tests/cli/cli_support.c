// SPDX-License-Identifier: MIT
// mkdir and WEXITSTATUS are POSIX.
#define _POSIX_C_SOURCE 200809L

#include "cli_support.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#define CNT_PATH_CAPACITY 1024

static void cntEnsureWorkDir( void )
{
    if ( mkdir( CN_CLI_WORK_DIR, 0777 ) != 0 && errno != EEXIST )
    {
        fprintf( stderr, "cannot create %s: %s\n", CN_CLI_WORK_DIR, strerror( errno ) );
    }
}

const char* cntWorkPath( int slot, const char* name )
{
    static char paths[8][CNT_PATH_CAPACITY];
    cntEnsureWorkDir();
    snprintf( paths[slot & 7], CNT_PATH_CAPACITY, "%s/%s", CN_CLI_WORK_DIR, name );
    return paths[slot & 7];
}

const char* cntDataPath( int slot, const char* name )
{
    static char paths[8][CNT_PATH_CAPACITY];
    snprintf( paths[slot & 7], CNT_PATH_CAPACITY, "%s/%s", CN_TEST_DATA_DIR, name );
    return paths[slot & 7];
}

char* cntReadFile( const char* path )
{
    FILE* file = fopen( path, "rb" );
    if ( file == NULL )
    {
        return NULL;
    }

    size_t size = 0;
    size_t capacity = 4096;
    char* text = malloc( capacity );
    while ( text != NULL )
    {
        size += fread( text + size, 1, capacity - size - 1, file );
        if ( size + 1 < capacity )
        {
            break;
        }
        capacity *= 2;
        char* bigger = realloc( text, capacity );
        if ( bigger == NULL )
        {
            free( text );
        }
        text = bigger;
    }
    fclose( file );
    if ( text != NULL )
    {
        text[size] = '\0';
    }
    return text;
}

cJSON* cntReadJson( const char* path )
{
    char* text = cntReadFile( path );
    if ( text == NULL )
    {
        return NULL;
    }
    cJSON* json = cJSON_Parse( text );
    free( text );
    return json;
}

cntCliRun cntRunCli( const char* format, ... )
{
    char args[4 * CNT_PATH_CAPACITY];
    va_list list;
    va_start( list, format );
    vsnprintf( args, sizeof( args ), format, list );
    va_end( list );

    // fixed names: Check runs the tests of one process one after the other
    char outPath[CNT_PATH_CAPACITY];
    char errPath[CNT_PATH_CAPACITY];
    snprintf( outPath, sizeof( outPath ), "%s", cntWorkPath( 7, "cli_stdout.txt" ) );
    snprintf( errPath, sizeof( errPath ), "%s", cntWorkPath( 7, "cli_stderr.txt" ) );

    char command[8 * CNT_PATH_CAPACITY];
    snprintf( command, sizeof( command ), "\"%s\" %s </dev/null >\"%s\" 2>\"%s\"", CN_CLI_PATH, args, outPath,
              errPath );

    cntCliRun run = { .exitCode = -1 };
    fflush( NULL );
    int status = system( command );
    if ( status != -1 && WIFEXITED( status ) )
    {
        run.exitCode = WEXITSTATUS( status );
    }
    run.out = cntReadFile( outPath );
    run.err = cntReadFile( errPath );
    if ( run.out == NULL || run.err == NULL )
    {
        run.exitCode = -1;
    }
    return run;
}

void cntFreeCliRun( cntCliRun* run )
{
    free( run->out );
    free( run->err );
    run->out = NULL;
    run->err = NULL;
}

int cntCountLines( const char* text )
{
    int count = 0;
    for ( const char* c = text; *c != '\0'; ++c )
    {
        count += *c == '\n';
    }
    return count;
}

bool cntContains( const char* text, const char* part )
{
    return text != NULL && strstr( text, part ) != NULL;
}
