// SPDX-License-Identifier: MIT
// The ReLCP benchmarks' shared utilities (bench_common.h).
#define _POSIX_C_SOURCE 200809L // clock_gettime

#include "bench_common.h"

#include "cairn/scene.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static const char* s_program = "bench";
static int s_printLimit = 3;
static const char* s_quiet = NULL;
static int s_failures;

void BenchSetup( const char* program, int printLimit, const char* quiet )
{
    s_program = program;
    s_printLimit = printLimit;
    s_quiet = quiet;
}

int BenchFailures( void )
{
    return s_failures;
}

double CpuSeconds( void )
{
    struct timespec ts;
    clock_gettime( CLOCK_PROCESS_CPUTIME_ID, &ts );
    return (double)ts.tv_sec + 1.0e-9 * (double)ts.tv_nsec;
}

void Fail( const char* format, ... )
{
    va_list args;
    va_start( args, format );
    fprintf( stderr, "%s: ", s_program );
    vfprintf( stderr, format, args );
    fputc( '\n', stderr );
    va_end( args );
    s_failures += 1;
}

void* Calloc( size_t count, size_t size )
{
    void* p = calloc( count > 0 ? count : 1, size );
    if ( p == NULL )
    {
        fprintf( stderr, "%s: out of memory\n", s_program );
        exit( 1 );
    }
    return p;
}

void* Realloc( void* p, size_t bytes )
{
    void* q = realloc( p, bytes > 0 ? bytes : 1 );
    if ( q == NULL )
    {
        fprintf( stderr, "%s: out of memory\n", s_program );
        exit( 1 );
    }
    return q;
}

void MakeDir( const char* dir )
{
    if ( mkdir( dir, 0777 ) != 0 && errno != EEXIST )
    {
        Fail( "cannot create the directory %s", dir );
    }
}

const char* BaseName( const char* path )
{
    const char* slash = strrchr( path, '/' );
    return slash != NULL ? slash + 1 : path;
}

bool OpenReport( Report* report, const char* dir, const char* name )
{
    char path[1024];
    MakeDir( dir );
    snprintf( path, sizeof( path ), "%s/relcp_%s.md", dir, name );
    report->file = fopen( path, "w" );
    if ( report->file == NULL )
    {
        Fail( "cannot write %s", path );
        return false;
    }
    fprintf( stderr, "writing %s\n", path );
    return true;
}

void Say( Report* report, const char* format, ... )
{
    if ( format == NULL )
    {
        return; // never: every caller passes a literal (this keeps gcc -O1 -fsanitize=undefined quiet)
    }
    va_list args;
    va_start( args, format );
    va_list copy;
    va_copy( copy, args );
    vfprintf( stdout, format, args );
    if ( report->file != NULL )
    {
        vfprintf( report->file, format, copy );
    }
    va_end( copy );
    va_end( args );
    fflush( stdout );
}

void CloseReport( Report* report )
{
    if ( report->file != NULL )
    {
        fclose( report->file );
        report->file = NULL;
    }
}

void WritePlot( const cnPlot* const* panels, int count, const char* dir, const char* name )
{
    char path[1024];
    MakeDir( dir );
    snprintf( path, sizeof( path ), "%s/relcp_%s.svg", dir, name );
    if ( cnPlot_WriteSvgPanels( panels, count, path ) == false )
    {
        Fail( "cannot write %s", path );
    }
    else
    {
        fprintf( stderr, "writing %s\n", path );
    }
}

static void CountLog( cnLogLevel level, int status, const char* message, void* context )
{
    (void)level;
    (void)status;
    LogCounter* counter = context;
    counter->lines += 1;
    if ( s_quiet != NULL && strstr( message, s_quiet ) != NULL )
    {
        return;
    }
    if ( counter->printed < s_printLimit )
    {
        counter->printed += 1;
        fprintf( stderr, "  [engine] %s\n", message );
    }
}

cnWorldId LoadScene( const char* path, const char* text, size_t length, const char* const* overrides,
                     int overrideCount, LogCounter* log, cxSceneSystems* systems )
{
    cnSceneSystem handlers[CX_SCENE_SYSTEM_COUNT];
    cnSceneOptions options = cnDefaultSceneOptions();
    options.overrides = overrides;
    options.overrideCount = overrideCount;
    options.systems = handlers;
    options.systemCount = cxGetSceneSystems( systems, handlers, CX_SCENE_SYSTEM_COUNT );
    options.worldDef.logFcn = CountLog;
    options.worldDef.logContext = log;
    cnScene scene;
    cnSceneError error;
    cnStatus status = text != NULL ? cnLoadSceneString( text, length, path, &options, &scene, &error )
                                   : cnLoadSceneFile( path, &options, &scene, &error );
    if ( status != cn_statusOk )
    {
        Fail( "cannot load %s: %s", path, error.text );
        return cn_nullWorldId;
    }
    return scene.worldId;
}
