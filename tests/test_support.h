// SPDX-License-Identifier: MIT
#pragma once

// Shared test helpers: the suite runner with a zero-test guard, tolerance checks, a counting
// allocator, a log hook that records what the engine said, and a fixed random sequence.

#include "cairn/cairn.h"

#include <check.h>

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifndef M_PI
#    define M_PI 3.14159265358979323846
#endif

typedef Suite* cntSuiteFcn( void );

// Run every suite; fails when a test fails or when no test ran at all (a misspelt
// CK_RUN_SUITE would otherwise report 100%).
int cntRunSuites( cntSuiteFcn* const* suites, int count );

// |a - b| <= tol * max(|a|, |b|, floor)
int cntClose( double a, double b, double relTol, double floor );

#define CNT_ASSERT_REL( a, b, tol )                                                                          \
    ck_assert_msg( cntClose( ( a ), ( b ), ( tol ), 1e-300 ),                                                \
                   "%s = %.17g, %s = %.17g, relative tolerance %g", #a, (double)( a ), #b, (double)( b ),    \
                   (double)( tol ) )

#define CNT_ASSERT_ABS( a, b, tol )                                                                          \
    ck_assert_msg( fabs( (double)( a ) - (double)( b ) ) <= ( tol ), "%s = %.17g, %s = %.17g, tolerance %g", \
                   #a, (double)( a ), #b, (double)( b ), (double)( tol ) )

// An allocator that counts live bytes and blocks and can be told to fail after N allocations.
typedef struct cntCountingAllocator
{
    size_t liveBytes;
    long liveBlocks;
    long totalAllocations;
    long failAfter; // -1: never fail
} cntCountingAllocator;

cnAllocator cntMakeCountingAllocator( cntCountingAllocator* counter );

// A log hook that keeps the last message and status and counts messages per level.
typedef struct cntLogCapture
{
    int errorCount;
    int warningCount;
    int lastStatus;
    char lastMessage[512];
} cntLogCapture;

void cntCaptureLog( cnLogLevel level, int status, const char* message, void* context );

// A world def whose log goes to `capture` (nullable) and whose allocator is `allocator` (nullable).
cnWorldDef cntWorldDef( cntLogCapture* capture, const cnAllocator* allocator );

// Random numbers for tests: splitmix64, a fixed and portable sequence from a seed.
typedef struct cntRandom
{
    uint64_t state;
} cntRandom;

uint64_t cntNext( cntRandom* random );
double cntUniform( cntRandom* random );                           // [0, 1)
double cntRange( cntRandom* random, double lower, double upper ); // [lower, upper)
cnVec3 cntDirection( cntRandom* random );                         // uniform on the unit sphere
void cntShuffle( cntRandom* random, cnVec3* points, int count );  // a uniform permutation

// The whole file, malloc'ed and zero-terminated, its length in `length` (nullable); NULL when it
// cannot be read.
char* cntReadText( const char* path, size_t* length );

// Geometries by their dimensions (see cnGeometry), everything else zero.
cnGeometry cntSphereGeometry( double radius );
cnGeometry cntBoxGeometry( double hx, double hy, double hz );
cnGeometry cntCapsuleGeometry( double radius, double halfLength );
cnGeometry cntCylinderGeometry( double radius, double halfLength );
cnGeometry cntEllipsoidGeometry( double a, double b, double c );
cnGeometry cntTorusGeometry( double majorRadius, double minorRadius );
cnGeometry cntPlaneGeometry( cnVec3 normal, double offset );
