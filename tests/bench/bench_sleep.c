// SPDX-License-Identifier: MIT
// The cost of a step asleep and awake, side by side in one run: assets/scenes/pile1000.json loaded
// twice, world.sleeping true and false, both stepped until settled, then timed in alternating
// blocks (process CPU time and wall time of the stepping alone), with the island pass's own time.
//
//     cairn_bench_sleep [SCENE.json] [--settle STEPS] [--rounds N] [--block STEPS]
//
// Defaults: pile1000.json, 600 settling steps (10 s), 30 rounds of 10 steps per world.

#define _POSIX_C_SOURCE 200809L // clock_gettime

#include "cairn/cairn.h"
#include "cairn/scene.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double Seconds( clockid_t clock )
{
    struct timespec t;
    clock_gettime( clock, &t );
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static cnWorldId Load( const char* path, const char* override )
{
    const char* const overrides[] = { override };
    cnSceneOptions options = cnDefaultSceneOptions();
    options.overrides = overrides;
    options.overrideCount = 1;
    cnScene scene;
    cnSceneError error;
    if ( cnLoadSceneFile( path, &options, &scene, &error ) != cn_statusOk )
    {
        fprintf( stderr, "cairn_bench_sleep: %s: %s\n", path, error.text );
        exit( 1 );
    }
    return scene.worldId;
}

typedef struct Timing
{
    double cpu;
    double wall;
    double islandMs;
    int steps;
} Timing;

static void Step( cnWorldId world, int steps, double dt, Timing* timing )
{
    double cpu0 = Seconds( CLOCK_PROCESS_CPUTIME_ID );
    double wall0 = Seconds( CLOCK_MONOTONIC );
    for ( int i = 0; i < steps; ++i )
    {
        cnWorld_Step( world, dt );
        if ( timing != NULL )
        {
            timing->islandMs += cnWorld_GetStepReport( world ).islandMs;
        }
    }
    if ( timing != NULL )
    {
        timing->cpu += Seconds( CLOCK_PROCESS_CPUTIME_ID ) - cpu0;
        timing->wall += Seconds( CLOCK_MONOTONIC ) - wall0;
        timing->steps += steps;
    }
}

int main( int argc, char** argv )
{
    const char* path = CN_ASSETS_DIR "/scenes/pile1000.json";
    int settle = 600;
    int rounds = 30;
    int block = 10;
    for ( int i = 1; i < argc; ++i )
    {
        if ( strcmp( argv[i], "--settle" ) == 0 && i + 1 < argc )
        {
            settle = atoi( argv[++i] );
        }
        else if ( strcmp( argv[i], "--rounds" ) == 0 && i + 1 < argc )
        {
            rounds = atoi( argv[++i] );
        }
        else if ( strcmp( argv[i], "--block" ) == 0 && i + 1 < argc )
        {
            block = atoi( argv[++i] );
        }
        else
        {
            path = argv[i];
        }
    }

    cnWorldId worlds[2] = { Load( path, "world.sleeping=true" ), Load( path, "world.sleeping=false" ) };
    const char* names[2] = { "sleeping on", "sleeping off" };
    double dt = cnWorld_GetDef( worlds[0] ).timeStep;
    int settledAt = -1;
    for ( int step = 1; step <= settle; ++step )
    {
        Step( worlds[0], 1, dt, NULL );
        Step( worlds[1], 1, dt, NULL );
        if ( settledAt < 0 && cnWorld_GetStepReport( worlds[0] ).awakeCount == 0 )
        {
            settledAt = step;
        }
    }
    printf( "%s: %d settling steps; every body asleep after %d steps (%.2f s)\n", path, settle, settledAt,
            settledAt * dt );

    Timing timing[2];
    memset( timing, 0, sizeof( timing ) );
    for ( int round = 0; round < rounds; ++round )
    {
        // alternate which world goes first, so that neither always follows the other
        int first = round % 2;
        Step( worlds[first], block, dt, timing + first );
        Step( worlds[1 - first], block, dt, timing + 1 - first );
    }
    for ( int w = 0; w < 2; ++w )
    {
        cnStepReport report = cnWorld_GetStepReport( worlds[w] );
        printf(
            "%-12s  cpu %8.4f ms/step  wall %8.4f ms/step  island pass %.4f ms/step  awake %d  asleep %d  "
            "islands %d (%d asleep)  contacts %d\n",
            names[w], 1e3 * timing[w].cpu / timing[w].steps, 1e3 * timing[w].wall / timing[w].steps,
            timing[w].islandMs / timing[w].steps, report.awakeCount, report.sleepingCount, report.islandCount,
            report.sleepingIslandCount, report.contactCount );
    }
    printf( "asleep / awake: cpu %.4f, wall %.4f\n", timing[0].cpu / timing[1].cpu,
            timing[0].wall / timing[1].wall );
    cnDestroyWorld( worlds[0] );
    cnDestroyWorld( worlds[1] );
    return 0;
}
