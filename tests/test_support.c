// SPDX-License-Identifier: MIT
#include "test_support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cntRunSuites( cntSuiteFcn* const* suites, int count )
{
    SRunner* runner = srunner_create( suites[0]() );
    for ( int i = 1; i < count; ++i )
    {
        srunner_add_suite( runner, suites[i]() );
    }

    srunner_run_all( runner, CK_NORMAL );
    int run = srunner_ntests_run( runner );
    int failed = srunner_ntests_failed( runner );
    srunner_free( runner );

    if ( run == 0 )
    {
        fprintf( stderr, "no test ran: check CK_RUN_SUITE / CK_RUN_CASE\n" );
        return EXIT_FAILURE;
    }
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

int cntClose( double a, double b, double relTol, double floor )
{
    double scale = fmax( fmax( fabs( a ), fabs( b ) ), floor );
    return fabs( a - b ) <= relTol * scale;
}

static void* cntCountingAlloc( size_t size, size_t alignment, void* context )
{
    cntCountingAllocator* counter = context;
    if ( counter->failAfter >= 0 && counter->totalAllocations >= counter->failAfter )
    {
        return NULL;
    }
    // aligned_alloc wants a size that is a multiple of the alignment it is given
    size_t used = alignment < sizeof( void* ) ? sizeof( void* ) : alignment;
    size_t rounded = ( size + used - 1 ) / used * used;
    void* memory = aligned_alloc( used, rounded );
    if ( memory != NULL )
    {
        counter->liveBytes += size;
        counter->liveBlocks += 1;
        counter->totalAllocations += 1;
    }
    return memory;
}

static void cntCountingFree( void* memory, size_t size, void* context )
{
    cntCountingAllocator* counter = context;
    counter->liveBytes -= size;
    counter->liveBlocks -= 1;
    free( memory );
}

cnAllocator cntMakeCountingAllocator( cntCountingAllocator* counter )
{
    memset( counter, 0, sizeof( *counter ) );
    counter->failAfter = -1;
    cnAllocator allocator = { cntCountingAlloc, cntCountingFree, counter };
    return allocator;
}

void cntCaptureLog( cnLogLevel level, int status, const char* message, void* context )
{
    cntLogCapture* capture = context;
    if ( level == cn_logError )
    {
        capture->errorCount += 1;
    }
    else if ( level == cn_logWarning )
    {
        capture->warningCount += 1;
    }
    capture->lastStatus = status;
    snprintf( capture->lastMessage, sizeof( capture->lastMessage ), "%s", message );
}

cnWorldDef cntWorldDef( cntLogCapture* capture, const cnAllocator* allocator )
{
    cnWorldDef def = cnDefaultWorldDef();
    if ( capture != NULL )
    {
        memset( capture, 0, sizeof( *capture ) );
        def.logFcn = cntCaptureLog;
        def.logContext = capture;
    }
    if ( allocator != NULL )
    {
        def.allocator = *allocator;
    }
    return def;
}

uint64_t cntNext( cntRandom* random )
{
    uint64_t z = ( random->state += 0x9e3779b97f4a7c15u );
    z = ( z ^ ( z >> 30 ) ) * 0xbf58476d1ce4e5b9u;
    z = ( z ^ ( z >> 27 ) ) * 0x94d049bb133111ebu;
    return z ^ ( z >> 31 );
}

double cntUniform( cntRandom* random )
{
    return (double)( cntNext( random ) >> 11 ) * ( 1.0 / 9007199254740992.0 );
}

double cntRange( cntRandom* random, double lower, double upper )
{
    return lower + ( upper - lower ) * cntUniform( random );
}

cnVec3 cntDirection( cntRandom* random )
{
    double z = 2.0 * cntUniform( random ) - 1.0;
    double phi = 2.0 * CN_PI * cntUniform( random );
    double s = sqrt( fmax( 0.0, 1.0 - z * z ) );
    return cnMakeVec3( s * cos( phi ), s * sin( phi ), z );
}

void cntShuffle( cntRandom* random, cnVec3* points, int count )
{
    for ( int i = count - 1; i > 0; --i )
    {
        int j = (int)( cntUniform( random ) * (double)( i + 1 ) );
        cnVec3 swap = points[i];
        points[i] = points[j];
        points[j] = swap;
    }
}

char* cntReadText( const char* path, size_t* length )
{
    FILE* file = fopen( path, "rb" );
    if ( file == NULL )
    {
        return NULL;
    }
    fseek( file, 0, SEEK_END );
    long size = ftell( file );
    fseek( file, 0, SEEK_SET );
    char* text = size >= 0 ? malloc( (size_t)size + 1 ) : NULL;
    size_t got = text != NULL ? fread( text, 1, (size_t)size, file ) : 0;
    fclose( file );
    if ( text != NULL )
    {
        text[got] = '\0';
    }
    if ( length != NULL )
    {
        *length = got;
    }
    return text;
}

// every byte zero first, as a geometry read through another member of the union would see
static cnGeometry cntZeroGeometry( cnShapeType type )
{
    cnGeometry g;
    memset( &g, 0, sizeof( g ) );
    g.type = type;
    return g;
}

cnGeometry cntSphereGeometry( double radius )
{
    cnGeometry g = cntZeroGeometry( cn_sphereShape );
    g.sphere.radius = radius;
    return g;
}

cnGeometry cntBoxGeometry( double hx, double hy, double hz )
{
    cnGeometry g = cntZeroGeometry( cn_boxShape );
    g.box.halfExtents = cnMakeVec3( hx, hy, hz );
    return g;
}

cnGeometry cntCapsuleGeometry( double radius, double halfLength )
{
    cnGeometry g = cntZeroGeometry( cn_capsuleShape );
    g.capsule.radius = radius;
    g.capsule.halfLength = halfLength;
    return g;
}

cnGeometry cntCylinderGeometry( double radius, double halfLength )
{
    cnGeometry g = cntZeroGeometry( cn_cylinderShape );
    g.cylinder.radius = radius;
    g.cylinder.halfLength = halfLength;
    return g;
}

cnGeometry cntEllipsoidGeometry( double a, double b, double c )
{
    cnGeometry g = cntZeroGeometry( cn_ellipsoidShape );
    g.ellipsoid.radii = cnMakeVec3( a, b, c );
    return g;
}

cnGeometry cntTorusGeometry( double majorRadius, double minorRadius )
{
    cnGeometry g = cntZeroGeometry( cn_torusShape );
    g.torus.majorRadius = majorRadius;
    g.torus.minorRadius = minorRadius;
    return g;
}

cnGeometry cntPlaneGeometry( cnVec3 normal, double offset )
{
    cnGeometry g = cntZeroGeometry( cn_planeShape );
    g.plane.normal = normal;
    g.plane.offset = offset;
    return g;
}
