// SPDX-License-Identifier: MIT
// Broadphase benchmark: n proxies at a constant density, mostly dynamic boxes drifting in a cube
// above a static floor of 1 m tiles. Each step moves every dynamic proxy by its velocity times
// dt (some leave their fat box and are re-inserted) and calls cnBroadPhase_UpdatePairs. The
// time of a step is the process CPU time of the MoveProxy calls plus the update; the reported
// figure is the minimum over repeats of the mean per step, after 20 untimed warm-up steps. See
// tests/bench/README.md.
//
// cairn_bench_broadphase                       the standard table (1k, 10k, 100k; static cost)
// cairn_bench_broadphase --bodies N [--static M] [--steps S] [--repeats R] [--seed X]
#define _POSIX_C_SOURCE 200809L

#include "broad_phase.h"
#include "core.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

// proxies per m^3 in the dynamic cube
#define BENCH_DENSITY 0.25
#define BENCH_DT      ( 1.0 / 60.0 )
// untimed steps first, so that re-insertions reach their steady rate
#define BENCH_WARMUP_STEPS 20

typedef struct BenchConfig
{
    int dynamicCount;
    int staticCount;
    int steps;
    int repeats;
    uint64_t seed;
} BenchConfig;

typedef struct BenchResult
{
    double msPerStep;
    double reinsertsPerStep;
    int pairs;
} BenchResult;

typedef struct Mover
{
    cnVec3 position;
    cnVec3 velocity;
    cnVec3 half;
    int key;
} Mover;

static uint64_t s_rng;

static double Uniform( double lo, double hi )
{
    // splitmix64
    uint64_t z = ( s_rng += 0x9e3779b97f4a7c15ull );
    z = ( z ^ ( z >> 30 ) ) * 0xbf58476d1ce4e5b9ull;
    z = ( z ^ ( z >> 27 ) ) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return lo + ( hi - lo ) * (double)( z >> 11 ) * ( 1.0 / 9007199254740992.0 );
}

static double CpuSeconds( void )
{
    struct timespec ts;
    clock_gettime( CLOCK_PROCESS_CPUTIME_ID, &ts );
    return (double)ts.tv_sec + 1.0e-9 * (double)ts.tv_nsec;
}

static cnAABB BoxAround( cnVec3 p, cnVec3 half )
{
    cnAABB box = { cnSub( p, half ), cnAdd( p, half ) };
    return box;
}

// keep a coordinate inside [lo, hi] by reflecting it and its velocity
static void Reflect( double* x, double* v, double lo, double hi )
{
    if ( *x < lo )
    {
        *x = 2.0 * lo - *x;
        *v = -*v;
    }
    else if ( *x > hi )
    {
        *x = 2.0 * hi - *x;
        *v = -*v;
    }
}

// One run: build the scene, one untimed update, then `steps` timed steps. False on failure.
static bool RunOnce( const BenchConfig* config, BenchResult* result )
{
    s_rng = config->seed;
    cnBroadPhase bp;
    cnCreateBroadPhase( &bp, NULL );
    int n = config->dynamicCount;
    Mover* movers = malloc( sizeof( Mover ) * (size_t)( n > 0 ? n : 1 ) );
    cnPair* pairs = NULL;
    int capacity = 0;
    int count = -1;
    double seconds = 0.0;
    int64_t reinsertStart = 0;
    if ( movers == NULL )
    {
        goto done;
    }

    // the static floor: 1 m tiles (0.9 m boxes) on z in [-0.5, 0], centred under the cube
    int side = (int)ceil( sqrt( (double)config->staticCount ) );
    int shape = 0;
    for ( int i = 0; i < config->staticCount; ++i )
    {
        cnVec3 center =
            cnMakeVec3( (double)( i % side ) - 0.5 * side, (double)( i / side ) - 0.5 * side, -0.25 );
        cnProxyDef def = { BoxAround( center, cnMakeVec3( 0.45, 0.45, 0.25 ) ),
                           cn_proxyStatic,
                           shape,
                           shape,
                           1,
                           UINT32_MAX };
        if ( cnBroadPhase_CreateProxy( &bp, &def ) == CN_NULL_INDEX )
        {
            goto done;
        }
        shape += 1;
    }

    // the dynamic cube: side L for the density, boxes of 0.2 to 1 m, speeds up to 1.5 m/s per axis
    double length = cbrt( (double)n / BENCH_DENSITY );
    for ( int i = 0; i < n; ++i )
    {
        Mover* m = movers + i;
        m->position = cnMakeVec3( Uniform( -0.5 * length, 0.5 * length ),
                                  Uniform( -0.5 * length, 0.5 * length ), Uniform( 0.0, length ) );
        m->velocity = cnMakeVec3( Uniform( -1.5, 1.5 ), Uniform( -1.5, 1.5 ), Uniform( -1.5, 1.5 ) );
        m->half = cnMakeVec3( Uniform( 0.1, 0.5 ), Uniform( 0.1, 0.5 ), Uniform( 0.1, 0.5 ) );
        cnProxyDef def = { BoxAround( m->position, m->half ), cn_proxyDynamic, shape, shape, 1, UINT32_MAX };
        m->key = cnBroadPhase_CreateProxy( &bp, &def );
        if ( m->key == CN_NULL_INDEX )
        {
            goto done;
        }
        shape += 1;
    }

    count = cnBroadPhase_UpdatePairs( &bp, &pairs, &capacity );
    for ( int step = -BENCH_WARMUP_STEPS; step < config->steps && count >= 0; ++step )
    {
        if ( step == 0 )
        {
            reinsertStart = cnBroadPhase_GetStats( &bp ).reinsertCount;
        }

        // integrate (not timed)
        for ( int i = 0; i < n; ++i )
        {
            Mover* m = movers + i;
            m->position = cnMulAdd( m->position, BENCH_DT, m->velocity );
            Reflect( &m->position.x, &m->velocity.x, -0.5 * length, 0.5 * length );
            Reflect( &m->position.y, &m->velocity.y, -0.5 * length, 0.5 * length );
            Reflect( &m->position.z, &m->velocity.z, 0.0, length );
        }

        // the broadphase's share of a step
        double start = CpuSeconds();
        for ( int i = 0; i < n; ++i )
        {
            cnBroadPhase_MoveProxy( &bp, movers[i].key, BoxAround( movers[i].position, movers[i].half ) );
        }
        count = cnBroadPhase_UpdatePairs( &bp, &pairs, &capacity );
        if ( step >= 0 )
        {
            seconds += CpuSeconds() - start;
        }
    }

done:;
    char message[256];
    bool valid = count >= 0 && cnBroadPhase_Validate( &bp, message, (int)sizeof( message ) );
    if ( count >= 0 && valid == false )
    {
        fprintf( stderr, "bench_broadphase: invalid broadphase: %s\n", message );
    }
    int steps = config->steps > 0 ? config->steps : 1;
    result->msPerStep = 1.0e3 * seconds / steps;
    result->reinsertsPerStep = (double)( cnBroadPhase_GetStats( &bp ).reinsertCount - reinsertStart ) / steps;
    result->pairs = count;

    cnBroadPhase_FreePairArray( &bp, &pairs, &capacity );
    cnDestroyBroadPhase( &bp );
    free( movers );
    return valid;
}

// min over repeats; prints one CSV row
static bool Run( const BenchConfig* config )
{
    BenchResult best = { 0 };
    for ( int r = 0; r < config->repeats; ++r )
    {
        BenchResult result;
        if ( RunOnce( config, &result ) == false )
        {
            fprintf( stderr, "bench_broadphase: run failed (%d dynamic, %d static)\n", config->dynamicCount,
                     config->staticCount );
            return false;
        }
        if ( r == 0 || result.msPerStep < best.msPerStep )
        {
            best = result;
        }
    }
    int total = config->dynamicCount + config->staticCount;
    printf( "%d,%d,%.4f,%.1f,%d,%.1f,%d\n", total, config->steps, best.msPerStep, best.reinsertsPerStep,
            best.pairs, total > 0 ? 1.0e6 * best.msPerStep / total : 0.0, config->staticCount );
    fflush( stdout );
    return true;
}

static int ParseInt( const char* text, const char* name )
{
    char* end = NULL;
    long value = strtol( text, &end, 10 );
    if ( end == text || *end != '\0' || value < 0 || value > 100000000 )
    {
        fprintf( stderr, "bench_broadphase: bad value for %s: %s\n", name, text );
        exit( 2 );
    }
    return (int)value;
}

int main( int argc, char** argv )
{
    BenchConfig config = { 0, 0, 60, 3, 0x1234567u };
    int bodies = -1;
    int statics = -1;
    for ( int i = 1; i < argc; ++i )
    {
        const char* arg = argv[i];
        const char* value = i + 1 < argc ? argv[i + 1] : NULL;
        if ( value == NULL )
        {
            fprintf( stderr, "usage: %s [--bodies N] [--static M] [--steps S] [--repeats R] [--seed X]\n",
                     argv[0] );
            return 2;
        }
        if ( strcmp( arg, "--bodies" ) == 0 )
        {
            bodies = ParseInt( value, arg );
        }
        else if ( strcmp( arg, "--static" ) == 0 )
        {
            statics = ParseInt( value, arg );
        }
        else if ( strcmp( arg, "--steps" ) == 0 )
        {
            config.steps = ParseInt( value, arg );
        }
        else if ( strcmp( arg, "--repeats" ) == 0 )
        {
            config.repeats = ParseInt( value, arg );
            config.repeats = config.repeats > 0 ? config.repeats : 1;
        }
        else if ( strcmp( arg, "--seed" ) == 0 )
        {
            config.seed = (uint64_t)ParseInt( value, arg );
        }
        else
        {
            fprintf( stderr, "usage: %s [--bodies N] [--static M] [--steps S] [--repeats R] [--seed X]\n",
                     argv[0] );
            return 2;
        }
        i += 1;
    }

    printf( "n,steps,ms_per_update_cpu,reinserts_per_step,pairs,ns_per_proxy,static\n" );
    if ( bodies >= 0 )
    {
        // one row: n proxies, 10% static unless told
        config.staticCount = statics >= 0 ? statics : bodies / 10;
        config.dynamicCount = bodies > config.staticCount ? bodies - config.staticCount : 0;
        return Run( &config ) ? 0 : 1;
    }

    // the table: growth with n (10% static floor), then what 100k static proxies cost
    static const int sizes[] = { 1000, 10000, 100000 };
    for ( int i = 0; i < 3; ++i )
    {
        config.staticCount = sizes[i] / 10;
        config.dynamicCount = sizes[i] - config.staticCount;
        if ( Run( &config ) == false )
        {
            return 1;
        }
    }
    static const int staticCounts[] = { 0, 100000 };
    for ( int i = 0; i < 2; ++i )
    {
        config.dynamicCount = 1000;
        config.staticCount = staticCounts[i];
        if ( Run( &config ) == false )
        {
            return 1;
        }
    }
    return 0;
}
