// SPDX-License-Identifier: MIT
// Dense ReLCP benchmarks: the paper's performance experiments (../shared/papers/relcp.md, sections
// 7.2 and 7.3) on this machine, through the public API, the scene loader and the demo systems.
// Each subcommand prints markdown tables, writes them to OUT/relcp_<name>.md and draws SVG plots
// into PLOTS/relcp_<name>.svg (bench_plot.c).
//
// suspension   7.2: N ellipsoids (semi-axes 1, 1, 2) at 0.25 % volume fraction pulled together by
//              the compacting field (overdamped, xi = 1). relcp compacts them once (dt 0.1, until
//              the packing has almost stopped moving); then, from that packing, relcp and the
//              multisphere baseline (LCP-MS: world.multisphere = k, relcp with levels = 0, so the
//              same BBPGD inside with the same budget and tolerance) run side by side at every
//              time step asked for: constraints per step and CPU time per step (Table 2, Fig. 4).
// colony       7.3: a monolayer colony of growing, dividing capsules (relcp_colony.json) grown
//              with relcp for a CPU budget; then MS-k colonies for a few minutes each, compared
//              step by step with the relcp run (division is synchronous, so a step has the same
//              cell count in every run): constraint ratios and time per constraint (Table 3).
// colony_scene the shipped colony.json as it is (pgs, 40 sweeps), switched to relcp the way
//              `cairn run --solver relcp` does it (keeping the scene's 40 iterations), and relcp
//              with its own budget: true capsule overlap, warnings, cost.
//
// cairn_bench_relcp_dense suspension [--count N] [--dt X[,X..]] [--steps S] [--ms K,K,..]
//                         [--seed S] [--fraction F] [--compact-dt X] [--compact-time T] [--start FILE]
//                         [--write-scene FILE] [--write-dense FILE] [--out DIR] [--plots DIR]
// cairn_bench_relcp_dense colony [--minutes M] [--ms K,K,..] [--ms-minutes M] [--max-cells N]
//                         [--dt X] [--inner NAME] [--iterations N] [--name NAME] [--scene FILE]
//                         [--out DIR] [--plots DIR]
// cairn_bench_relcp_dense colony_scene [--steps N] [--minutes M] [--scene FILE] [--out DIR]
// cairn_bench_relcp_dense colony_inners [--minutes M] [--inners NAME[:ITERATIONS],..] [--scene FILE]
//                         [--out DIR] [--plots DIR]
//
// Times are process CPU time (CLOCK_PROCESS_CPUTIME_ID) around cnWorld_Step only; the machines
// are shared, so wall time is not used. See tests/bench/README.md, "bench_relcp_dense". Exit
// status 1 when a scene fails to load, a step fails or a measured value is not finite; 2 for a
// bad command line.
#define _POSIX_C_SOURCE 200809L

#include "bench_common.h"
#include "bench_plot.h"
#include "systems.h"

#include "cairn/cairn.h"
#include "cairn/scene.h"
#include "cairn/solver.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef CN_ASSETS_DIR
#    define CN_ASSETS_DIR "assets"
#endif
#ifndef CN_SOURCE_DIR
#    define CN_SOURCE_DIR "."
#endif

#define DENSE_MAX_LIST      8
#define DENSE_MAX_RUNS      24
#define DENSE_MAX_OVERRIDES 8
// the paper's overlap tolerance, relcp's default, m
#define DENSE_OVERLAP_TOLERANCE 1.0e-5
// the bit of the warning overlap_left in cnStepReport.warnings
#define OVERLAP_LEFT_BIT 9
_Static_assert( cn_warnOverlapLeft == 1u << OVERLAP_LEFT_BIT, "overlap_left moved" );

// the suspension of section 7.2: ellipsoid semi-axes (major along the shape's z), volume
// fraction of the dilute start, viscosity
#define SUSPENSION_MINOR     1.0
#define SUSPENSION_MAJOR     2.0
#define SUSPENSION_FRACTION  0.0025
#define SUSPENSION_VISCOSITY 1.0
// the drift speed of a lone ellipsoid under the far field (force 1, local drag 1 / (xi l), l = 4)
#define SUSPENSION_FREE_SPEED ( 1.0 / ( SUSPENSION_VISCOSITY * 2.0 * SUSPENSION_MAJOR ) )
// the solver every run uses: relcp (MS runs with levels = 0) around BBPGD with this budget per
// level and this tolerance on the natural map (relcp's defaults)
#define DENSE_ITERATIONS 10000
#define DENSE_TOLERANCE  1.0e-6
#define DENSE_LEVELS     50

// ---------------------------------------------------------------------------------------------
// small utilities (the rest are bench_common.c's)

// the panels into DIR/relcp_NAME.svg, then freed
static void WritePanels( cnPlot** panels, int count, const char* dir, const char* name )
{
    WritePlot( (const cnPlot* const*)panels, count, dir, name );
    for ( int i = 0; i < count; ++i )
    {
        cnPlot_Destroy( panels[i] );
    }
}

// A growing text buffer (the scenes the suspension writes and loads from memory).
typedef struct Text
{
    char* data;
    size_t length;
    size_t capacity;
} Text;

static void Append( Text* text, const char* format, ... )
{
    for ( ;; )
    {
        size_t room = text->capacity - text->length;
        va_list args;
        va_start( args, format );
        int n = vsnprintf( text->data != NULL ? text->data + text->length : NULL, room, format, args );
        va_end( args );
        if ( n < 0 )
        {
            Fail( "text formatting failed" );
            return;
        }
        if ( (size_t)n < room )
        {
            text->length += (size_t)n;
            return;
        }
        size_t capacity = text->capacity > 0 ? 2 * text->capacity : 4096;
        while ( capacity < text->length + (size_t)n + 1 )
        {
            capacity *= 2;
        }
        text->data = Realloc( text->data, capacity );
        text->capacity = capacity;
    }
}

static bool WriteText( const Text* text, const char* path )
{
    FILE* file = fopen( path, "w" );
    if ( file == NULL )
    {
        Fail( "cannot write %s", path );
        return false;
    }
    bool ok = fwrite( text->data, 1, text->length, file ) == text->length;
    ok = fclose( file ) == 0 && ok;
    if ( ok == false )
    {
        Fail( "cannot write %s", path );
    }
    else
    {
        fprintf( stderr, "writing %s\n", path );
    }
    return ok;
}

// Loads a scene from a file (text NULL) or from the text (bench_common.c's LoadScene).
static cnWorldId Load( const char* path, const Text* text, const char* const* overrides, int overrideCount,
                       LogCounter* log, cxSceneSystems* systems )
{
    return LoadScene( path, text != NULL ? text->data : NULL, text != NULL ? text->length : 0, overrides,
                      overrideCount, log, systems );
}

// parses "a,b,c" into at most DENSE_MAX_LIST finite numbers
static bool ParseList( const char* text, double* values, int* count )
{
    *count = 0;
    const char* p = text;
    while ( *p != '\0' )
    {
        char* end = NULL;
        double v = strtod( p, &end );
        if ( end == p || *count >= DENSE_MAX_LIST || isfinite( v ) == false )
        {
            return false;
        }
        values[( *count )++] = v;
        if ( *end != ',' && *end != '\0' )
        {
            return false;
        }
        p = *end == ',' ? end + 1 : end;
    }
    return *count > 0;
}

static bool ParsePositive( const char* text, double* value )
{
    char* end = NULL;
    double v = strtod( text, &end );
    if ( end == text || *end != '\0' || !( v > 0.0 ) || isfinite( v ) == false )
    {
        return false;
    }
    *value = v;
    return true;
}

static bool ParseCount( const char* text, int* value )
{
    char* end = NULL;
    long v = strtol( text, &end, 10 );
    if ( end == text || *end != '\0' || v < 1 || v > 100000000 )
    {
        return false;
    }
    *value = (int)v;
    return true;
}

// splitmix64: the benchmark's own random numbers (positions and orientations of the suspension)
static uint64_t NextRandom( uint64_t* state )
{
    uint64_t z = ( *state += 0x9E3779B97F4A7C15ull );
    z = ( z ^ ( z >> 30 ) ) * 0xBF58476D1CE4E5B9ull;
    z = ( z ^ ( z >> 27 ) ) * 0x94D049BB133111EBull;
    return z ^ ( z >> 31 );
}

// uniform in [0, 1)
static double Uniform( uint64_t* state )
{
    return (double)( NextRandom( state ) >> 11 ) * ( 1.0 / 9007199254740992.0 );
}

static double MeanOf( const double* v, int from, int to )
{
    double sum = 0.0;
    int n = 0;
    for ( int i = from; i < to; ++i )
    {
        sum += v[i];
        n += 1;
    }
    return n > 0 ? sum / n : (double)NAN;
}

// mean and (population) standard deviation of the values marked in `use` (all when NULL)
static void MeanStd( const double* v, const bool* use, int count, double* mean, double* std )
{
    double sum = 0.0;
    int n = 0;
    for ( int i = 0; i < count; ++i )
    {
        if ( use == NULL || use[i] )
        {
            sum += v[i];
            n += 1;
        }
    }
    *mean = n > 0 ? sum / n : (double)NAN;
    double squares = 0.0;
    for ( int i = 0; i < count; ++i )
    {
        if ( use == NULL || use[i] )
        {
            squares += ( v[i] - *mean ) * ( v[i] - *mean );
        }
    }
    *std = n > 0 ? sqrt( squares / n ) : (double)NAN;
}

// "overlap_left 3, speed_clamped 12" for the warning counts of a run ("none" when there are none)
static void WarningSummary( const int counts[32], char* text, size_t size )
{
    text[0] = '\0';
    size_t used = 0;
    for ( int bit = 0; bit < 32; ++bit )
    {
        const char* name = cnStepWarningName( 1u << bit );
        if ( counts[bit] > 0 && used < size )
        {
            int n = snprintf( text + used, size - used, "%s%s %d", used > 0 ? ", " : "",
                              name != NULL ? name : "bit", counts[bit] );
            used += n > 0 ? (size_t)n : 0;
        }
    }
    if ( text[0] == '\0' )
    {
        snprintf( text, size, "none" );
    }
}

// ---------------------------------------------------------------------------------------------
// per-step records

typedef struct StepLog
{
    int count;
    int capacity;
    double* time;        // s, after the step
    double* constraints; // solverRows + recursionRows
    double* added;       // recursionRows: the rows the recursion added
    double* cpuMs;       // process CPU time of the step
    double* levels;      // recursion levels that added rows
    double* iterations;  // inner iterations over all levels
    double* overlap;     // the recursion's deepest overlap at the accepted trial pose, m (NaN: not asked)
    double* penetration; // the step report's deepest contact penetration, m
    double* trueOverlap; // colony: deepest capsule-capsule overlap by the bench's own check, m
    double* cells;       // colony: cells after the step
    double* flags;       // the step's warning bits
    int statusCount[cn_solveStatusCount];
    int warningCount[32];
    int warningSteps;
    double cpuTotal; // s
} StepLog;

static void LogReserve( StepLog* log, int count )
{
    if ( count <= log->capacity )
    {
        return;
    }
    int capacity = log->capacity > 0 ? 2 * log->capacity : 1024;
    while ( capacity < count )
    {
        capacity *= 2;
    }
    double** columns[] = { &log->time,        &log->constraints, &log->added,   &log->cpuMs,
                           &log->levels,      &log->iterations,  &log->overlap, &log->penetration,
                           &log->trueOverlap, &log->cells,       &log->flags };
    for ( size_t c = 0; c < sizeof( columns ) / sizeof( columns[0] ); ++c )
    {
        *columns[c] = Realloc( *columns[c], (size_t)capacity * sizeof( double ) );
    }
    log->capacity = capacity;
}

static void LogFree( StepLog* log )
{
    free( log->time );
    free( log->constraints );
    free( log->added );
    free( log->cpuMs );
    free( log->levels );
    free( log->iterations );
    free( log->overlap );
    free( log->penetration );
    free( log->trueOverlap );
    free( log->cells );
    free( log->flags );
    memset( log, 0, sizeof( *log ) );
}

// Steps a world once under the CPU clock and appends the step to the log. False when the step
// failed or its report holds something non-finite.
static bool TimedStep( cnWorldId world, double dt, StepLog* log )
{
    double start = CpuSeconds();
    cnStatus status = cnWorld_Step( world, dt );
    double cpu = CpuSeconds() - start;
    if ( status != cn_statusOk )
    {
        Fail( "step %d failed: %s", log->count + 1, cnStatusString( status ) );
        return false;
    }
    cnStepReport r = cnWorld_GetStepReport( world );
    LogReserve( log, log->count + 1 );
    int i = log->count++;
    log->time[i] = r.time;
    log->constraints[i] = (double)r.solverRows + (double)r.recursionRows;
    log->added[i] = (double)r.recursionRows;
    log->cpuMs[i] = 1.0e3 * cpu;
    log->levels[i] = (double)r.contactRecursions;
    log->iterations[i] = (double)r.solverIterations;
    log->overlap[i] = r.recursionOverlap;
    log->penetration[i] = r.contactCount > 0 ? fmax( r.maxPenetration, 0.0 ) : 0.0;
    log->trueOverlap[i] = (double)NAN;
    log->cells[i] = (double)r.dynamicCount;
    log->flags[i] = (double)r.warnings;
    log->cpuTotal += cpu;
    if ( r.solverStatus >= 0 && r.solverStatus < cn_solveStatusCount && r.solverRows > 0 )
    {
        log->statusCount[r.solverStatus] += 1;
    }
    if ( r.warnings != 0 )
    {
        log->warningSteps += 1;
        for ( int bit = 0; bit < 32; ++bit )
        {
            log->warningCount[bit] += ( r.warnings >> bit ) & 1u;
        }
    }
    if ( isfinite( r.kineticEnergy ) == false || isfinite( r.maxPenetration ) == false )
    {
        Fail( "step %d: a non-finite state (kinetic energy %g, penetration %g)", log->count, r.kineticEnergy,
              r.maxPenetration );
        return false;
    }
    return true;
}

// largest finite value of v[from, to) (NaN when there is none)
static double MaxFinite( const double* v, int from, int to )
{
    double m = (double)NAN;
    for ( int i = from; i < to; ++i )
    {
        if ( isfinite( v[i] ) && ( isfinite( m ) == false || v[i] > m ) )
        {
            m = v[i];
        }
    }
    return m;
}

// first index whose time is at least t (count when none)
static int FirstAtTime( const StepLog* log, double t )
{
    for ( int i = 0; i < log->count; ++i )
    {
        if ( log->time[i] >= t - 1.0e-9 )
        {
            return i;
        }
    }
    return log->count;
}

// ---------------------------------------------------------------------------------------------
// suspension (section 7.2)

typedef struct SuspensionOptions
{
    int count;
    double dts[DENSE_MAX_LIST];
    int dtCount;
    int steps; // steps of the side-by-side runs at the largest time step
    double spheres[DENSE_MAX_LIST];
    int sphereCount;
    uint64_t seed;
    double compactDt;
    double compactTime;     // the compaction stops here at the latest
    double settledFraction; // ... or once the rms speed is below this fraction of the free drift speed
    double fraction;        // volume fraction of the dilute start (the paper's 0.25 %)
    double finalFraction;   // the table's window: the last part of the side-by-side runs
    const char* start;      // a packed scene to start from instead of compacting
    const char* writeScene;
    const char* writeDense;
    const char* outDir;
    const char* plotDir;
} SuspensionOptions;

// the side of the cube that holds `count` ellipsoids at the dilute start's volume fraction
static double SuspensionSide( int count, double fraction )
{
    double volume = 4.0 / 3.0 * CN_PI * SUSPENSION_MINOR * SUSPENSION_MINOR * SUSPENSION_MAJOR;
    return cbrt( (double)count * volume / fraction );
}

// Uniform random centres in the cube (each ellipsoid inside it), no two closer than the diameter
// of the bounding sphere (so nothing overlaps), found by rejection on a grid of that pitch; uniform
// random orientations (Shoemake's method).
static bool SuspensionPoses( int count, double fraction, uint64_t seed, cnTransform* poses )
{
    double side = SuspensionSide( count, fraction );
    double reach = side / 2.0 - SUSPENSION_MAJOR;
    double pitch = 2.0 * SUSPENSION_MAJOR;
    int cells = (int)ceil( side / pitch ) + 1;
    size_t cellCount = (size_t)cells * (size_t)cells * (size_t)cells;
    int* head = Calloc( cellCount, sizeof( int ) ); // body + 1 per cell, 0 for none
    int* next = Calloc( (size_t)count, sizeof( int ) );
    uint64_t random = seed;
    int placed = 0;
    long long tries = 0;
    while ( placed < count )
    {
        if ( ++tries > 1000LL * count + 1000000LL )
        {
            Fail( "could not place %d ellipsoids without overlap (volume fraction %g)", count, fraction );
            break;
        }
        cnVec3 p = cnMakeVec3( reach * ( 2.0 * Uniform( &random ) - 1.0 ),
                               reach * ( 2.0 * Uniform( &random ) - 1.0 ),
                               reach * ( 2.0 * Uniform( &random ) - 1.0 ) );
        int c[3] = { (int)( ( p.x + side / 2.0 ) / pitch ), (int)( ( p.y + side / 2.0 ) / pitch ),
                     (int)( ( p.z + side / 2.0 ) / pitch ) };
        bool free = true;
        for ( int dx = -1; dx <= 1 && free; ++dx )
        {
            for ( int dy = -1; dy <= 1 && free; ++dy )
            {
                for ( int dz = -1; dz <= 1 && free; ++dz )
                {
                    int x = c[0] + dx, y = c[1] + dy, z = c[2] + dz;
                    if ( x < 0 || y < 0 || z < 0 || x >= cells || y >= cells || z >= cells )
                    {
                        continue;
                    }
                    for ( int k = head[( (size_t)z * cells + y ) * cells + x]; k != 0 && free;
                          k = next[k - 1] )
                    {
                        free = cnLengthSquared( cnSub( poses[k - 1].p, p ) ) >= pitch * pitch;
                    }
                }
            }
        }
        if ( free == false )
        {
            continue;
        }
        double u1 = Uniform( &random ), u2 = Uniform( &random ), u3 = Uniform( &random );
        double a = sqrt( 1.0 - u1 ), b = sqrt( u1 );
        cnQuat q = { a * sin( 2.0 * CN_PI * u2 ), a * cos( 2.0 * CN_PI * u2 ), b * sin( 2.0 * CN_PI * u3 ),
                     b * cos( 2.0 * CN_PI * u3 ) };
        poses[placed].p = p;
        poses[placed].q = cnNormalizeQuat( q );
        size_t cell = ( (size_t)c[2] * cells + c[1] ) * cells + c[0];
        next[placed] = head[cell];
        head[cell] = placed + 1;
        placed += 1;
    }
    free( head );
    free( next );
    return placed == count;
}

// The scene: the bodies at `poses`, the overdamped world, relcp, the compacting field.
static void SuspensionScene( Text* text, const cnTransform* poses, int count, double dt,
                             const char* description )
{
    Append( text, "{\n  \"version\": 1,\n  \"description\": \"%s\",\n", description );
    Append( text,
            "  \"world\": {\"gravity\": [0, 0, 0], \"dt\": %.15g, \"dynamics\": \"overdamped\", "
            "\"viscosity\": %.15g,\n"
            "    \"solver\": {\"name\": \"relcp\", \"iterations\": %d, \"tolerance\": %.15g,\n"
            "      \"params\": {\"inner\": \"bbpgd\", \"overlap_tolerance\": %.15g, \"levels\": %d}}},\n",
            dt, SUSPENSION_VISCOSITY, DENSE_ITERATIONS, DENSE_TOLERANCE, DENSE_OVERLAP_TOLERANCE,
            DENSE_LEVELS );
    Append( text,
            "  \"materials\": {\"default\": {\"friction\": 0, \"density\": 1000}},\n  \"bodies\": [\n" );
    for ( int i = 0; i < count; ++i )
    {
        cnVec3 p = poses[i].p;
        cnQuat q = poses[i].q;
        Append( text,
                "    {\"position\": [%.17g, %.17g, %.17g], \"orientation\": [%.17g, %.17g, %.17g, %.17g], "
                "\"shapes\": [{\"type\": \"ellipsoid\", \"radii\": [%g, %g, %g]}]}%s\n",
                p.x, p.y, p.z, q.w, q.x, q.y, q.z, SUSPENSION_MINOR, SUSPENSION_MINOR, SUSPENSION_MAJOR,
                i + 1 < count ? "," : "" );
    }
    Append( text,
            "  ],\n  \"systems\": {\"compacting_field\": {\"center\": [0, 0, 0], \"strength\": 1}}\n}\n" );
}

static void SuspensionDescription( char* text, size_t size, int count, double fraction, uint64_t seed,
                                   double side )
{
    char fractionOption[64] = "";
    if ( fraction != SUSPENSION_FRACTION )
    {
        snprintf( fractionOption, sizeof( fractionOption ), " --fraction %g", fraction );
    }
    snprintf(
        text, size,
        "The compacting ellipsoid suspension of the ReLCP paper (section 7.2), scaled down to %d bodies: "
        "ellipsoids of semi-axes 1, 1, 2 (aspect ratio 2, major axis along the shape's z) at uniformly "
        "random positions (no two bounding spheres overlap) and orientations in a cube of side %.2f m "
        "centred at the origin (volume fraction %g %%), in an overdamped world without gravity "
        "(viscosity 1: the paper's local drag, a lone ellipsoid drifts at F / 4), pulled in by the "
        "compacting field F(x) = -x (|x| - sin|x|) / |x|^2 (systems.compacting_field) until they pack. "
        "Solved by relcp (BBPGD inside, 10,000 iterations per level, tolerance 1e-6, overlap tolerance "
        "1e-5 m); the LCP-MS baseline is --set world.multisphere=K --set world.solver.params.levels=0. "
        "dt = 0.1 s; about %.0f s to pack. Written by cairn_bench_relcp_dense suspension --count %d%s "
        "--seed %llu --write-scene FILE (tests/bench/README.md).",
        count, side, 100.0 * fraction, 1.2 * side / 2.0 / SUSPENSION_FREE_SPEED, count, fractionOption,
        (unsigned long long)seed );
}

static bool ReadText( const char* path, Text* text )
{
    FILE* file = fopen( path, "rb" );
    if ( file == NULL )
    {
        Fail( "cannot open %s", path );
        return false;
    }
    char buffer[65536];
    size_t n;
    while ( ( n = fread( buffer, 1, sizeof( buffer ), file ) ) > 0 )
    {
        Append( text, "%.*s", (int)n, buffer );
    }
    fclose( file );
    return true;
}

// Compacts the suspension with relcp at the compaction time step until the bodies' rms speed falls
// below the settled fraction of the free drift speed (or the time limit). The packed poses go to
// `poses` (room for `count`).
static bool Compact( const SuspensionOptions* o, const Text* scene, StepLog* log, cnTransform* poses,
                     int count )
{
    char dt[64];
    snprintf( dt, sizeof( dt ), "world.dt=%.17g", o->compactDt );
    const char* overrides[] = { dt };
    LogCounter counter = { 0 };
    cnWorldId world = Load( "relcp_suspension (dilute start)", scene, overrides, 1, &counter, NULL );
    if ( CN_IS_NULL( world ) )
    {
        return false;
    }
    bool ok = true;
    double rms = SUSPENSION_FREE_SPEED;
    double lastPrint = CpuSeconds();
    while ( ok && ( log->count == 0 || log->time[log->count - 1] < o->compactTime - 1.0e-9 ) )
    {
        ok = TimedStep( world, o->compactDt, log );
        cnBodyArrays arrays = cnWorld_GetBodyArrays( world );
        double sum = 0.0;
        for ( int i = 0; i < arrays.count; ++i )
        {
            sum += cnLengthSquared( arrays.linearVelocities[i] );
        }
        rms = arrays.count > 0 ? sqrt( sum / arrays.count ) : 0.0;
        int i = log->count - 1;
        if ( CpuSeconds() - lastPrint > 10.0 )
        {
            lastPrint = CpuSeconds();
            fprintf( stderr, "  compaction t = %.1f: %.0f constraints, rms speed %.4f, %.1f s CPU so far\n",
                     log->time[i], log->constraints[i], rms, log->cpuTotal );
        }
        if ( ok && log->time[i] > 1.0 && rms < o->settledFraction * SUSPENSION_FREE_SPEED )
        {
            break;
        }
    }
    cnBodyArrays arrays = cnWorld_GetBodyArrays( world );
    if ( ok && arrays.count != count )
    {
        Fail( "the compacted world has %d bodies, expected %d", arrays.count, count );
        ok = false;
    }
    for ( int i = 0; ok && i < count; ++i )
    {
        poses[i] = arrays.transforms[i];
    }
    fprintf( stderr, "  compaction done at t = %.1f (rms speed %.4f), %d steps, %.1f s CPU\n",
             log->count > 0 ? log->time[log->count - 1] : 0.0, rms, log->count, log->cpuTotal );
    cnDestroyWorld( world );
    return ok;
}

// One run of the side-by-side part: a method (spheres 0: relcp) at one time step.
typedef struct DenseRun
{
    char label[32];
    int spheres;
    double dt;
    int stride; // steps per step of the largest time step
    cnWorldId world;
    LogCounter log;
    StepLog steps;
} DenseRun;

// the paper's Table 2 (N = 10,000): constraints and ReLCP speed-up at dt 0.01 and 0.1
static bool PaperTable2( int spheres, double dt, double* constraints, double* speedup )
{
    static const struct
    {
        int spheres;
        double c01, s01, c1, s1;
    } rows[] = {
        { 23, 3.0e6, 215.0, 3.5e6, 642.0 }, { 17, 1.7e6, 67.0, 1.8e6, 402.0 },
        { 13, 9.9e5, 39.0, 1.0e6, 174.0 },  { 7, 2.7e5, 7.0, 2.8e5, 28.0 },
        { 3, 5.8e4, 0.8, 5.9e4, 1.9 },      { 0, 2.9e4, 1.0, 2.9e4, 1.0 },
    };
    bool small = fabs( dt - 0.01 ) < 1.0e-12, large = fabs( dt - 0.1 ) < 1.0e-12;
    for ( size_t i = 0; i < sizeof( rows ) / sizeof( rows[0] ); ++i )
    {
        if ( rows[i].spheres == spheres && ( small || large ) )
        {
            *constraints = small ? rows[i].c01 : rows[i].c1;
            *speedup = small ? rows[i].s01 : rows[i].s1;
            return true;
        }
    }
    return false;
}

static void MethodName( int spheres, char* text, size_t size )
{
    if ( spheres == 0 )
    {
        snprintf( text, size, "ReLCP" );
    }
    else
    {
        snprintf( text, size, "LCP-MS %d", spheres );
    }
}

// the run of `spheres` at `dt`, or NULL
static DenseRun* FindRun( DenseRun* runs, int count, int spheres, double dt )
{
    for ( int i = 0; i < count; ++i )
    {
        if ( runs[i].spheres == spheres && runs[i].dt == dt )
        {
            return &runs[i];
        }
    }
    return NULL;
}

static int CountStatus( const StepLog* log, cnSolveStatus status )
{
    return log->statusCount[status];
}

static int Suspension( const SuspensionOptions* o )
{
    double cpuStart = CpuSeconds();
    Text dilute = { 0 };
    Text dense = { 0 };
    StepLog compaction = { 0 };
    int count = o->count;
    double side = SuspensionSide( count, o->fraction );
    char description[2048];
    SuspensionDescription( description, sizeof( description ), count, o->fraction, o->seed, side );
    cnTransform* poses = NULL;

    if ( o->start == NULL )
    {
        poses = Calloc( (size_t)count, sizeof( cnTransform ) );
        if ( SuspensionPoses( count, o->fraction, o->seed, poses ) == false )
        {
            free( poses );
            return 1;
        }
        SuspensionScene( &dilute, poses, count, o->compactDt, description );
        if ( o->writeScene != NULL )
        {
            bool ok = WriteText( &dilute, o->writeScene );
            free( dilute.data );
            free( poses );
            return ok ? 0 : 1;
        }
        fprintf( stderr,
                 "suspension: %d ellipsoids in a cube of side %.2f m; compacting with relcp at dt %g\n",
                 count, side, o->compactDt );
        if ( Compact( o, &dilute, &compaction, poses, count ) == false )
        {
            return 1;
        }
        char packed[2300];
        snprintf(
            packed, sizeof( packed ),
            "The packing that relcp reached from relcp_suspension.json (%d bodies, seed %llu) after %.1f s "
            "of the compacting field at dt %g: the start of the side-by-side runs of "
            "cairn_bench_relcp_dense suspension.",
            count, (unsigned long long)o->seed,
            compaction.count > 0 ? compaction.time[compaction.count - 1] : 0.0, o->compactDt );
        SuspensionScene( &dense, poses, count, o->compactDt, packed );
        if ( o->writeDense != NULL )
        {
            WriteText( &dense, o->writeDense );
        }
    }
    else if ( ReadText( o->start, &dense ) == false )
    {
        return 1;
    }

    // the side-by-side runs: every method at every time step, all from the packing
    double macroDt = 0.0;
    for ( int d = 0; d < o->dtCount; ++d )
    {
        macroDt = fmax( macroDt, o->dts[d] );
    }
    DenseRun runs[DENSE_MAX_RUNS];
    int runCount = 0;
    memset( runs, 0, sizeof( runs ) );
    for ( int d = 0; d < o->dtCount; ++d )
    {
        for ( int m = 0; m <= o->sphereCount && runCount < DENSE_MAX_RUNS; ++m )
        {
            DenseRun* run = &runs[runCount];
            run->spheres = m == 0 ? 0 : (int)o->spheres[m - 1];
            run->dt = o->dts[d];
            run->stride = (int)lround( macroDt / run->dt );
            if ( fabs( run->stride * run->dt - macroDt ) > 1.0e-9 * macroDt )
            {
                Fail( "the time steps must divide the largest one (%g and %g)", run->dt, macroDt );
                return 2;
            }
            char label[24];
            MethodName( run->spheres, label, sizeof( label ) );
            snprintf( run->label, sizeof( run->label ), "%s", label );
            char dtText[64], msText[64];
            snprintf( dtText, sizeof( dtText ), "world.dt=%.17g", run->dt );
            snprintf( msText, sizeof( msText ), "world.multisphere=%d", run->spheres );
            const char* overrides[] = { dtText, msText, "world.solver.params.levels=0" };
            run->world = Load( o->start != NULL ? o->start : "relcp_suspension (packed)", &dense, overrides,
                               run->spheres > 0 ? 3 : 1, &run->log, NULL );
            if ( CN_IS_NULL( run->world ) )
            {
                return 1;
            }
            runCount += 1;
        }
    }
    int bodies = cnWorld_GetBodyCount( runs[0].world );
    fprintf( stderr, "suspension: %d runs side by side from the packing, %d steps of %g s (%g s)\n", runCount,
             o->steps, macroDt, o->steps * macroDt );
    bool ok = true;
    double lastPrint = CpuSeconds();
    for ( int s = 0; s < o->steps && ok; ++s )
    {
        for ( int r = 0; r < runCount && ok; ++r )
        {
            for ( int k = 0; k < runs[r].stride && ok; ++k )
            {
                ok = TimedStep( runs[r].world, runs[r].dt, &runs[r].steps );
            }
        }
        if ( CpuSeconds() - lastPrint > 30.0 || s + 1 == o->steps )
        {
            lastPrint = CpuSeconds();
            fprintf( stderr, "  t = %.2f:", ( s + 1 ) * macroDt );
            for ( int r = 0; r < runCount; ++r )
            {
                const StepLog* l = &runs[r].steps;
                fprintf( stderr, " %s/%g %.0f rows %.0f s;", runs[r].label, runs[r].dt,
                         l->count > 0 ? l->constraints[l->count - 1] : 0.0, l->cpuTotal );
            }
            fputc( '\n', stderr );
        }
    }
    for ( int r = 0; r < runCount; ++r )
    {
        cnDestroyWorld( runs[r].world );
    }
    if ( ok == false )
    {
        return 1;
    }

    // the tables
    double span = o->steps * macroDt;
    double windowStart = ( 1.0 - o->finalFraction ) * span;
    Report md = { 0 };
    OpenReport( &md, o->outDir, "suspension" );
    Say( &md, "# Compacting ellipsoid suspension (ReLCP paper, section 7.2; Table 2, Fig. 4)\n\n" );
    Say( &md,
         "%d ellipsoids (semi-axes 1, 1, 2), overdamped (viscosity 1, local drag), no gravity, compacting "
         "field "
         "(strength 1, centre at the origin). ",
         bodies );
    if ( o->start == NULL )
    {
        double tEnd = compaction.count > 0 ? compaction.time[compaction.count - 1] : 0.0;
        Say( &md,
             "Dilute start: uniform random positions (no two bounding spheres overlap) and orientations in a "
             "cube of side %.2f m (volume fraction %g %%; seed %llu). relcp compacted it at dt %g until the "
             "rms "
             "speed fell below %.0f %% of the free drift speed 0.25 m/s: t = %.1f s, %d steps, %.1f s "
             "CPU.\n\n",
             side, 100.0 * o->fraction, (unsigned long long)o->seed, o->compactDt, 100.0 * o->settledFraction,
             tEnd, compaction.count, compaction.cpuTotal );
    }
    else
    {
        Say( &md, "Packed start read from %s.\n\n", o->start );
    }
    Say( &md,
         "From that packing every method ran side by side (in turn, %g s of simulated time at a time) for %g "
         "s at "
         "each time step. Every run is relcp around BBPGD with %d iterations per level and tolerance %g on "
         "the "
         "natural map; LCP-MS K is world.multisphere = K with relcp levels = 0 (the single-constraint LCP: "
         "one "
         "solve, no oracle), so the solver inside, its budget and tolerance are the same for all. "
         "Constraints per "
         "step = solverRows + recursionRows. The table's numbers are means over the last %.0f %% of the runs "
         "(t > %g s), when the MS packings have settled; CPU is process CPU time of cnWorld_Step. Speed-up = "
         "the MS run's CPU ms per step / ReLCP's at the same time step.\n\n",
         macroDt, span, DENSE_ITERATIONS, DENSE_TOLERANCE, 100.0 * o->finalFraction, windowStart );

    // Table 2 form
    Say( &md, "| method |" );
    for ( int d = 0; d < o->dtCount; ++d )
    {
        Say( &md,
             " dt=%g constraints | per body | paper per body | CPU ms/step | ReLCP speed-up | paper speed-up "
             "|",
             o->dts[d] );
    }
    Say( &md, "\n|---|" );
    for ( int d = 0; d < o->dtCount; ++d )
    {
        Say( &md, "---:|---:|---:|---:|---:|---:|" );
    }
    Say( &md, "\n" );
    int order[DENSE_MAX_LIST + 1];
    int orderCount = 0;
    for ( int m = 0; m < o->sphereCount; ++m )
    {
        order[orderCount++] = (int)o->spheres[m];
    }
    // most spheres first, as in the paper, ReLCP last
    for ( int i = 0; i < orderCount; ++i )
    {
        for ( int j = i + 1; j < orderCount; ++j )
        {
            if ( order[j] > order[i] )
            {
                int t = order[i];
                order[i] = order[j];
                order[j] = t;
            }
        }
    }
    order[orderCount++] = 0;
    for ( int m = 0; m < orderCount; ++m )
    {
        char name[24];
        MethodName( order[m], name, sizeof( name ) );
        Say( &md, "| %s |", name );
        for ( int d = 0; d < o->dtCount; ++d )
        {
            DenseRun* run = FindRun( runs, runCount, order[m], o->dts[d] );
            DenseRun* base = FindRun( runs, runCount, 0, o->dts[d] );
            int from = FirstAtTime( &run->steps, windowStart + 0.5 * run->dt );
            double c = MeanOf( run->steps.constraints, from, run->steps.count );
            double ms = MeanOf( run->steps.cpuMs, from, run->steps.count );
            int baseFrom = FirstAtTime( &base->steps, windowStart + 0.5 * base->dt );
            double baseMs = MeanOf( base->steps.cpuMs, baseFrom, base->steps.count );
            double paperC = (double)NAN, paperS = (double)NAN;
            bool paper = PaperTable2( order[m], o->dts[d], &paperC, &paperS );
            char paperPerBody[32] = "-", paperSpeed[32] = "-";
            if ( paper )
            {
                snprintf( paperPerBody, sizeof( paperPerBody ), "%.2f", paperC / 1.0e4 );
                snprintf( paperSpeed, sizeof( paperSpeed ), "%.3g", paperS );
            }
            Say( &md, " %.0f | %.2f | %s | %.3g | %.3g | %s |", c, c / bodies, paperPerBody, ms, ms / baseMs,
                 paperPerBody[0] != '-' ? paperSpeed : "-" );
            if ( isfinite( c ) == false || isfinite( ms ) == false )
            {
                Fail( "%s at dt %g: no steps in the final window", name, o->dts[d] );
            }
        }
        Say( &md, "\n" );
    }
    Say( &md,
         "\nPaper: N = 10,000 (constraints per body = the paper's count / 10,000), a 64-core machine; its "
         "constraint counts: ReLCP 2.9e4, MS-3 5.8e4, MS-7 2.7e5, MS-13 9.9e5, MS-17 1.7e6 (dt 0.01).\n\n" );

    // the details
    Say( &md, "Per run (final window unless marked):\n\n" );
    Say( &md,
         "| run | dt | steps | constraints/step | at the last step | CPU ms/step | CPU ms/step, whole run | "
         "CPU s, whole run | inner iterations/step | solves at max_iterations | recursion levels/step | "
         "recursion rows/step | deepest overlap at accepted trial pose (m) | deepest contact penetration (m) "
         "| "
         "warnings (steps) |\n" );
    Say( &md, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n" );
    for ( int r = 0; r < runCount; ++r )
    {
        const StepLog* l = &runs[r].steps;
        int from = FirstAtTime( l, windowStart + 0.5 * runs[r].dt );
        char warnings[256];
        WarningSummary( l->warningCount, warnings, sizeof( warnings ) );
        double overlap = MaxFinite( l->overlap, 0, l->count );
        char overlapText[32] = "-";
        if ( isfinite( overlap ) )
        {
            snprintf( overlapText, sizeof( overlapText ), "%.2e", overlap );
        }
        Say( &md,
             "| %s | %g | %d | %.0f | %.0f | %.3g | %.3g | %.1f | %.0f | %d | %.2f | %.1f | %s | %.2e | %s "
             "|\n",
             runs[r].label, runs[r].dt, l->count, MeanOf( l->constraints, from, l->count ),
             l->count > 0 ? l->constraints[l->count - 1] : 0.0, MeanOf( l->cpuMs, from, l->count ),
             MeanOf( l->cpuMs, 0, l->count ), l->cpuTotal, MeanOf( l->iterations, from, l->count ),
             CountStatus( l, cn_solveMaxIterations ), MeanOf( l->levels, from, l->count ),
             MeanOf( l->added, from, l->count ), overlapText, MaxFinite( l->penetration, 0, l->count ),
             warnings );
    }
    Say(
        &md,
        "\n`solves at max_iterations`: steps whose last solve ended on the inner budget (the world applies "
        "that "
        "iterate). The overlap column is the recursion's own measure (relcp runs only; levels = 0 never asks "
        "the oracle); the penetration column is the deepest contact point of the step's contacts, which for "
        "LCP-MS are sub-sphere pairs, not the true ellipsoid overlap.\n\n" );

    // relcp's overlap over every relcp step of the benchmark
    int relcpSteps = compaction.count, overlapLeft = compaction.warningCount[OVERLAP_LEFT_BIT], maxLevels = 0;
    double worst = MaxFinite( compaction.overlap, 0, compaction.count );
    int otherWarnings = compaction.warningSteps - compaction.warningCount[OVERLAP_LEFT_BIT];
    for ( int i = 0; i < compaction.count; ++i )
    {
        maxLevels = compaction.levels[i] > maxLevels ? (int)compaction.levels[i] : maxLevels;
    }
    for ( int r = 0; r < runCount; ++r )
    {
        const StepLog* l = &runs[r].steps;
        if ( runs[r].spheres != 0 )
        {
            continue;
        }
        relcpSteps += l->count;
        overlapLeft += l->warningCount[OVERLAP_LEFT_BIT];
        otherWarnings += l->warningSteps - l->warningCount[OVERLAP_LEFT_BIT];
        double w = MaxFinite( l->overlap, 0, l->count );
        worst = isfinite( worst ) == false || w > worst ? w : worst;
        for ( int i = 0; i < l->count; ++i )
        {
            maxLevels = l->levels[i] > maxLevels ? (int)l->levels[i] : maxLevels;
        }
    }
    Say(
        &md,
        "**ReLCP overlap.** Over all %d relcp steps of this benchmark (compaction and side-by-side runs) the "
        "deepest overlap left at an accepted trial pose was %.2e m (tolerance %g m); %d steps raised "
        "overlap_left, %d steps raised other warnings; at most %d recursion levels in a step.\n\n",
        relcpSteps, worst, DENSE_OVERLAP_TOLERANCE, overlapLeft, otherWarnings, maxLevels );
    if ( compaction.count > 0 )
    {
        int peak = 0;
        for ( int i = 0; i < compaction.count; ++i )
        {
            peak = compaction.cpuMs[i] > compaction.cpuMs[peak] ? i : peak;
        }
        Say( &md,
             "**Compaction (relcp, dt %g).** %d steps, %.1f s CPU (%.3g ms/step on average); constraints at "
             "the "
             "end %.0f (%.2f per body); the most expensive step was at t = %.1f (%.0f ms, %.0f constraints, "
             "%.0f "
             "levels, %.0f inner iterations); %.2f recursion levels and %.1f added rows per step on "
             "average.\n\n",
             o->compactDt, compaction.count, compaction.cpuTotal,
             1.0e3 * compaction.cpuTotal / compaction.count, compaction.constraints[compaction.count - 1],
             compaction.constraints[compaction.count - 1] / bodies, compaction.time[peak],
             compaction.cpuMs[peak], compaction.constraints[peak], compaction.levels[peak],
             compaction.iterations[peak], MeanOf( compaction.levels, 0, compaction.count ),
             MeanOf( compaction.added, 0, compaction.count ) );
    }
    Say( &md, "Benchmark CPU time in all (process): %.1f s.\n", CpuSeconds() - cpuStart );
    CloseReport( &md );

    // the plots: the compaction, then per time step the constraints and the relative runtime
    cnPlot* panels[1 + 2 * DENSE_MAX_LIST];
    int panelCount = 0;
    if ( compaction.count > 0 )
    {
        char title[128];
        snprintf( title, sizeof( title ), "compaction with relcp (dt %g, %d ellipsoids)", o->compactDt,
                  bodies );
        cnPlot* p = cnPlot_Create( title, "time (s)", "constraints per step", false );
        cnPlot_AddSeries( p, "ReLCP", compaction.time, compaction.constraints, compaction.count );
        panels[panelCount++] = p;
    }
    for ( int d = 0; d < o->dtCount; ++d )
    {
        char title[160];
        snprintf( title, sizeof( title ), "from the packing, dt %g: constraints per step", o->dts[d] );
        cnPlot* rows = cnPlot_Create( title, "time since the packing (s)", "constraints", true );
        snprintf( title, sizeof( title ), "dt %g: LCP-MS CPU time / ReLCP's (rolling mean over 1 s)",
                  o->dts[d] );
        cnPlot* speed = cnPlot_Create( title, "time since the packing (s)", "relative runtime", true );
        DenseRun* base = FindRun( runs, runCount, 0, o->dts[d] );
        int window = (int)lround( 1.0 / o->dts[d] );
        window = window > 0 ? window : 1;
        // ReLCP first, then the MS runs with the fewest spheres first: the same colours in every panel
        for ( int m = orderCount - 1; m >= 0; --m )
        {
            DenseRun* run = FindRun( runs, runCount, order[m], o->dts[d] );
            cnPlot_AddSeries( rows, run->label, run->steps.time, run->steps.constraints, run->steps.count );
            int n = run->steps.count < base->steps.count ? run->steps.count : base->steps.count;
            double* ratio = Calloc( (size_t)n, sizeof( double ) );
            double top = 0.0, bottom = 0.0;
            for ( int i = 0; i < n; ++i )
            {
                top += run->steps.cpuMs[i];
                bottom += base->steps.cpuMs[i];
                if ( i >= window )
                {
                    top -= run->steps.cpuMs[i - window];
                    bottom -= base->steps.cpuMs[i - window];
                }
                ratio[i] = bottom > 0.0 ? top / bottom : (double)NAN;
            }
            cnPlot_AddSeries( speed, run->label, run->steps.time, ratio, n );
            free( ratio );
        }
        panels[panelCount++] = rows;
        panels[panelCount++] = speed;
    }
    WritePanels( panels, panelCount, o->plotDir, "suspension" );

    for ( int r = 0; r < runCount; ++r )
    {
        LogFree( &runs[r].steps );
    }
    LogFree( &compaction );
    free( dilute.data );
    free( dense.data );
    free( poses );
    return BenchFailures() > 0 ? 1 : 0;
}

// ---------------------------------------------------------------------------------------------
// the colony's true overlap, by the bench's own capsule-capsule check (independent of the
// narrowphase and of the multisphere spheres)

typedef struct Capsule
{
    cnVec3 a, b; // the core segment's ends
    double radius;
    cnVec3 lo, hi; // bounding box
} Capsule;

typedef struct CapsuleCheck
{
    cnBodyId* ids;
    Capsule* capsules;
    int capacity;
} CapsuleCheck;

static double Clamp01( double x )
{
    return x < 0.0 ? 0.0 : ( x > 1.0 ? 1.0 : x );
}

// Distance between the segments p1-q1 and p2-q2: minimise |p1 + s d1 - p2 - t d2| over the unit
// square, first without the bounds, then clamping s, t in turn (the classic closed form).
static double SegmentDistance( cnVec3 p1, cnVec3 q1, cnVec3 p2, cnVec3 q2 )
{
    const double tiny = 1.0e-24;
    cnVec3 d1 = cnSub( q1, p1 ), d2 = cnSub( q2, p2 ), r = cnSub( p1, p2 );
    double a = cnDot( d1, d1 ), e = cnDot( d2, d2 ), f = cnDot( d2, r );
    double s = 0.0, t = 0.0;
    if ( a <= tiny && e <= tiny )
    {
        return cnLength( r );
    }
    if ( a <= tiny )
    {
        t = Clamp01( f / e );
    }
    else
    {
        double c = cnDot( d1, r );
        if ( e <= tiny )
        {
            s = Clamp01( -c / a );
        }
        else
        {
            double b = cnDot( d1, d2 );
            double denominator = a * e - b * b;
            s = denominator > tiny * a * e ? Clamp01( ( b * f - c * e ) / denominator ) : 0.0;
            t = ( b * s + f ) / e;
            if ( t < 0.0 )
            {
                t = 0.0;
                s = Clamp01( -c / a );
            }
            else if ( t > 1.0 )
            {
                t = 1.0;
                s = Clamp01( ( b - c ) / a );
            }
        }
    }
    return cnLength( cnSub( cnMulAdd( p1, s, d1 ), cnMulAdd( p2, t, d2 ) ) );
}

static int CompareCapsules( const void* a, const void* b )
{
    double x = ( (const Capsule*)a )->lo.x, y = ( (const Capsule*)b )->lo.x;
    return ( x > y ) - ( x < y );
}

// The deepest overlap between two cells of the colony, m (0 when none overlaps): every cell's
// capsule from its body pose and geometry, pairs found by a sweep along x.
static double DeepestCapsuleOverlap( CapsuleCheck* check, const cxColony* colony )
{
    int n = cxColony_GetCells( colony, NULL, 0 );
    if ( n > check->capacity )
    {
        check->capacity = 2 * n;
        check->ids = Realloc( check->ids, (size_t)check->capacity * sizeof( cnBodyId ) );
        check->capsules = Realloc( check->capsules, (size_t)check->capacity * sizeof( Capsule ) );
    }
    n = cxColony_GetCells( colony, check->ids, check->capacity );
    int used = 0;
    for ( int i = 0; i < n; ++i )
    {
        cnShapeId shape;
        cnGeometry geometry;
        if ( cnBody_GetShapes( check->ids[i], &shape, 1 ) != 1 ||
             cnShape_GetGeometry( shape, &geometry ) != cn_statusOk || geometry.type != cn_capsuleShape )
        {
            continue;
        }
        cnTransform pose =
            cnMulTransforms( cnBody_GetTransform( check->ids[i] ), cnShape_GetLocalPose( shape ) );
        cnVec3 half = cnScale( geometry.capsule.halfLength, cnRotate( pose.q, cnMakeVec3( 0.0, 0.0, 1.0 ) ) );
        Capsule* c = &check->capsules[used++];
        c->a = cnSub( pose.p, half );
        c->b = cnAdd( pose.p, half );
        c->radius = geometry.capsule.radius;
        cnVec3 r = cnMakeVec3( c->radius, c->radius, c->radius );
        c->lo =
            cnSub( cnMakeVec3( fmin( c->a.x, c->b.x ), fmin( c->a.y, c->b.y ), fmin( c->a.z, c->b.z ) ), r );
        c->hi =
            cnAdd( cnMakeVec3( fmax( c->a.x, c->b.x ), fmax( c->a.y, c->b.y ), fmax( c->a.z, c->b.z ) ), r );
    }
    qsort( check->capsules, (size_t)used, sizeof( Capsule ), CompareCapsules );
    double deepest = 0.0;
    for ( int i = 0; i < used; ++i )
    {
        const Capsule* p = &check->capsules[i];
        for ( int j = i + 1; j < used && check->capsules[j].lo.x <= p->hi.x; ++j )
        {
            const Capsule* q = &check->capsules[j];
            if ( q->lo.y > p->hi.y || q->hi.y < p->lo.y || q->lo.z > p->hi.z || q->hi.z < p->lo.z )
            {
                continue;
            }
            double overlap = p->radius + q->radius - SegmentDistance( p->a, p->b, q->a, q->b );
            deepest = fmax( deepest, overlap );
        }
    }
    return deepest;
}

// ---------------------------------------------------------------------------------------------
// colony (section 7.3)

typedef struct ColonyOptions
{
    double minutes;   // CPU budget of the relcp run
    double msMinutes; // CPU budget of each MS run
    double spheres[DENSE_MAX_LIST];
    int sphereCount;
    int maxCells;      // 0: the scene's
    double dt;         // 0: the scene's
    const char* inner; // relcp's solver inside (every run)
    int iterations;    // its budget per level
    const char* name;  // the outputs: relcp_<name>.md, relcp_<name>_steps.csv, relcp_<name>.svg
    const char* scene;
    const char* outDir;
    const char* plotDir;
} ColonyOptions;

typedef struct ColonyRun
{
    char label[48];
    int spheres;
    cxSceneSystems systems;
    LogCounter log;
    StepLog steps;
    double dt;
    int finalCells;
    double checkSeconds; // CPU spent in the bench's overlap check (not in the steps' times)
} ColonyRun;

// Grows a colony: loads the scene with the overrides and steps it until it is full, `maxSteps`
// steps are done, or its steps have used `budget` seconds of CPU. Every step's true overlap is
// measured after it (outside the timed step).
static bool GrowColony( const char* scene, const char* const* overrides, int overrideCount, double budget,
                        int maxSteps, bool stopWhenFull, ColonyRun* run, CapsuleCheck* check )
{
    cnWorldId world = Load( scene, NULL, overrides, overrideCount, &run->log, &run->systems );
    if ( CN_IS_NULL( world ) )
    {
        return false;
    }
    cxColony* colony = run->systems.colony;
    if ( colony == NULL )
    {
        Fail( "%s has no colony (systems.colony)", scene );
        cnDestroyWorld( world );
        return false;
    }
    run->dt = cnWorld_GetDef( world ).timeStep;
    int full = cxColony_GetConfig( colony ).maxCells;
    bool ok = true;
    double lastPrint = CpuSeconds();
    while ( ok && run->steps.count < maxSteps && run->steps.cpuTotal < budget )
    {
        ok = TimedStep( world, run->dt, &run->steps );
        if ( ok == false )
        {
            break;
        }
        int i = run->steps.count - 1;
        int cells = cxColony_GetCellCount( colony );
        run->steps.cells[i] = (double)cells;
        double start = CpuSeconds();
        run->steps.trueOverlap[i] = DeepestCapsuleOverlap( check, colony );
        run->checkSeconds += CpuSeconds() - start;
        if ( CpuSeconds() - lastPrint > 30.0 )
        {
            lastPrint = CpuSeconds();
            fprintf( stderr,
                     "  %s: step %d, t = %.2f, %d cells, %.0f constraints, %.0f ms, %.0f s CPU so far\n",
                     run->label, i + 1, run->steps.time[i], cells, run->steps.constraints[i],
                     run->steps.cpuMs[i], run->steps.cpuTotal );
        }
        if ( stopWhenFull && cells >= full )
        {
            break;
        }
    }
    run->finalCells = cxColony_GetCellCount( colony );
    fprintf( stderr, "  %s: %d steps, t = %.3f, %d cells, %.1f s CPU in the steps\n", run->label,
             run->steps.count, run->steps.count > 0 ? run->steps.time[run->steps.count - 1] : 0.0,
             run->finalCells, run->steps.cpuTotal );
    cnDestroyWorld( world );
    return ok;
}

static void WriteStepCsv( FILE* file, const ColonyRun* run )
{
    const StepLog* l = &run->steps;
    for ( int i = 0; i < l->count; ++i )
    {
        fprintf( file, "%s,%d,%.6g,%.0f,%.0f,%.0f,%.0f,%.0f,%.6g,%.6g,%.6g,%.6g,%u\n", run->label, i + 1,
                 l->time[i], l->cells[i], l->constraints[i], l->added[i], l->levels[i], l->iterations[i],
                 l->cpuMs[i], l->overlap[i], l->trueOverlap[i], l->penetration[i], (unsigned)l->flags[i] );
    }
}

// the paper's Table 3: constraint ratio and time per constraint (mean, std)
static bool PaperTable3( int spheres, double values[4] )
{
    static const double rows[][5] = {
        { 27, 252.0, 78.0, 15.3, 20.1 }, { 17, 101.0, 32.8, 20.6, 30.8 }, { 7, 17.0, 5.1, 45.9, 101.0 },
        { 5, 8.77, 2.47, 82.2, 251.0 },  { 0, 1.0, 0.0, 341.0, 1010.0 },
    };
    for ( size_t i = 0; i < sizeof( rows ) / sizeof( rows[0] ); ++i )
    {
        if ( (int)rows[i][0] == spheres )
        {
            memcpy( values, &rows[i][1], 4 * sizeof( double ) );
            return true;
        }
    }
    return false;
}

// time per constraint, us, of the steps with constraints
static void TimePerConstraint( const StepLog* l, int count, double* mean, double* std )
{
    double* values = Calloc( (size_t)( count > 0 ? count : 1 ), sizeof( double ) );
    bool* use = Calloc( (size_t)( count > 0 ? count : 1 ), sizeof( bool ) );
    for ( int i = 0; i < count; ++i )
    {
        use[i] = l->constraints[i] > 0.0;
        values[i] = use[i] ? 1.0e3 * l->cpuMs[i] / l->constraints[i] : 0.0;
    }
    MeanStd( values, use, count, mean, std );
    free( values );
    free( use );
}

// the gap a capsule of tip-to-tip length `length` and radius `radius` shows between neighbouring
// sub-spheres of N: positive, the width of the opening between them; negative, minus the depth of
// the dip of the spheres' union below the capsule's surface
static double SphereGap( double length, double radius, int spheres )
{
    double spacing = ( length - 2.0 * radius ) / ( spheres - 1 );
    if ( spacing >= 2.0 * radius )
    {
        return spacing - 2.0 * radius;
    }
    return -( radius - sqrt( radius * radius - 0.25 * spacing * spacing ) );
}

static int Colony( const ColonyOptions* o )
{
    double cpuStart = CpuSeconds();
    CapsuleCheck check = { 0 };
    char dtText[64], cellsText[64];
    const char* base[DENSE_MAX_OVERRIDES];
    int baseCount = 0;
    if ( o->dt > 0.0 )
    {
        snprintf( dtText, sizeof( dtText ), "world.dt=%.17g", o->dt );
        base[baseCount++] = dtText;
    }
    if ( o->maxCells > 0 )
    {
        snprintf( cellsText, sizeof( cellsText ), "systems.colony.max_cells=%d", o->maxCells );
        base[baseCount++] = cellsText;
    }
    char innerText[64], iterationsText[64];
    snprintf( innerText, sizeof( innerText ), "world.solver.params.inner=%s", o->inner );
    snprintf( iterationsText, sizeof( iterationsText ), "world.solver.iterations=%d", o->iterations );
    base[baseCount++] = innerText;
    base[baseCount++] = iterationsText;

    ColonyRun* runs = Calloc( (size_t)( 1 + o->sphereCount ), sizeof( ColonyRun ) );
    int runCount = 0;
    ColonyRun* relcp = &runs[runCount++];
    snprintf( relcp->label, sizeof( relcp->label ), "ReLCP" );
    fprintf( stderr, "colony: relcp for %.1f CPU minutes (%s)\n", o->minutes, o->scene );
    if ( GrowColony( o->scene, base, baseCount, 60.0 * o->minutes, 1 << 30, true, relcp, &check ) == false )
    {
        return 1;
    }
    for ( int m = 0; m < o->sphereCount; ++m )
    {
        ColonyRun* run = &runs[runCount++];
        run->spheres = (int)o->spheres[m];
        snprintf( run->label, sizeof( run->label ), "LCP-MS %d", run->spheres );
        char msText[64];
        snprintf( msText, sizeof( msText ), "world.multisphere=%d", run->spheres );
        const char* overrides[DENSE_MAX_OVERRIDES];
        int n = 0;
        for ( int k = 0; k < baseCount; ++k )
        {
            overrides[n++] = base[k];
        }
        overrides[n++] = msText;
        overrides[n++] = "world.solver.params.levels=0";
        fprintf( stderr, "colony: %s for %.1f CPU minutes at most\n", run->label, o->msMinutes );
        if ( GrowColony( o->scene, overrides, n, 60.0 * o->msMinutes, relcp->steps.count, true, run,
                         &check ) == false )
        {
            return 1;
        }
    }

    const StepLog* rl = &relcp->steps;
    Report md = { 0 };
    OpenReport( &md, o->outDir, o->name );
    Say( &md, "# Growing bacterial colony (ReLCP paper, section 7.3; Table 3, Fig. 5)\n\n" );
    Say( &md,
         "Scene %s: a monolayer colony from one capsule (diameter 0.5, tip-to-tip length 2) growing as "
         "dl/dt = l and dividing at length 4 into two end-to-end daughters turned by up to 0.01 degrees; "
         "overdamped (viscosity 1, local drag with l = the cell length), no gravity, dt %g s. Every run is "
         "relcp around %s (`--inner`; %d iterations per level, tolerance %g on the natural map, overlap "
         "tolerance %g m); LCP-MS K is world.multisphere = K with relcp levels = 0. Constraints per step = "
         "solverRows + recursionRows; CPU is process CPU time of cnWorld_Step (the colony's growth and "
         "division included).\n\n",
         BaseName( o->scene ), relcp->dt, o->inner, o->iterations, DENSE_TOLERANCE, DENSE_OVERLAP_TOLERANCE );
    double tEnd = rl->count > 0 ? rl->time[rl->count - 1] : 0.0;
    Say( &md,
         "**ReLCP run.** Budget %.1f CPU minutes: %d steps, t = %.3f s (%.2f generations of ln 2), %d cells "
         "at "
         "the end, %.1f s CPU in the steps (%.1f s more in the bench's overlap check). The paper reaches "
         "131,072 "
         "cells (17 generations, t = 11.78 s) on 64 cores.\n\n",
         o->minutes, rl->count, tEnd, tEnd / log( 2.0 ), relcp->finalCells, rl->cpuTotal,
         relcp->checkSeconds );

    // per cell count
    Say( &md, "ReLCP cost against the cell count (one row per cell count, i.e. per generation):\n\n" );
    Say( &md, "| cells | steps | t from | t to | constraints/step | per cell | recursion levels/step | added "
              "rows/step | inner iterations/step | CPU ms/step | max CPU ms | us per constraint | deepest "
              "overlap at accepted trial pose (m) | deepest true overlap (m) | steps with overlap_left |\n" );
    Say( &md, "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n" );
    double genX[64], genMean[64], genMax[64];
    int genCount = 0;
    for ( int from = 0; from < rl->count; )
    {
        int to = from;
        while ( to < rl->count && rl->cells[to] == rl->cells[from] )
        {
            to += 1;
        }
        double constraints = 0.0, cpu = 0.0, maxCpu = 0.0;
        int left = 0;
        for ( int i = from; i < to; ++i )
        {
            constraints += rl->constraints[i];
            cpu += rl->cpuMs[i];
            maxCpu = fmax( maxCpu, rl->cpuMs[i] );
            left += ( (uint32_t)rl->flags[i] & cn_warnOverlapLeft ) != 0 ? 1 : 0;
        }
        int n = to - from;
        double overlap = MaxFinite( rl->overlap, from, to );
        char overlapText[32] = "-";
        if ( isfinite( overlap ) )
        {
            snprintf( overlapText, sizeof( overlapText ), "%.2e", overlap );
        }
        Say( &md,
             "| %.0f | %d | %.3f | %.3f | %.1f | %.2f | %.2f | %.1f | %.0f | %.3g | %.3g | %.3g | %s | %.2e "
             "| %d |\n",
             rl->cells[from], n, from > 0 ? rl->time[from - 1] : 0.0, rl->time[to - 1], constraints / n,
             constraints / n / rl->cells[from], MeanOf( rl->levels, from, to ), MeanOf( rl->added, from, to ),
             MeanOf( rl->iterations, from, to ), cpu / n, maxCpu,
             constraints > 0.0 ? 1.0e3 * cpu / constraints : 0.0, overlapText,
             MaxFinite( rl->trueOverlap, from, to ), left );
        if ( genCount < 64 )
        {
            genX[genCount] = log2( rl->cells[from] );
            genMean[genCount] = cpu / n;
            genMax[genCount] = maxCpu;
            genCount += 1;
        }
        from = to;
    }
    char warnings[256];
    WarningSummary( rl->warningCount, warnings, sizeof( warnings ) );
    Say( &md, "\nReLCP warnings (steps): %s. Deepest true capsule overlap over the run: %.2e m.\n\n",
         warnings, MaxFinite( rl->trueOverlap, 0, rl->count ) );

    // Table 3 form
    Say( &md,
         "Against LCP-MS (each MS run stops after %.1f CPU minutes or at the ReLCP run's last step; ratios "
         "are "
         "taken step by step over the steps both runs reached, where both have constraints: division is "
         "synchronous, so those steps have the same cell count in both runs):\n\n",
         o->msMinutes );
    Say( &md,
         "| method | constraint ratio vs ReLCP | paper | us per constraint | paper | steps compared | cells "
         "reached | CPU ratio MS / ReLCP over those steps | in the last generation compared | deepest true "
         "capsule overlap (m) | deepest sub-sphere penetration (m) | warnings (steps) |\n" );
    Say( &md, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n" );
    for ( int r = runCount - 1; r >= 0; --r )
    {
        const ColonyRun* run = &runs[r];
        const StepLog* l = &run->steps;
        int n = l->count < rl->count ? l->count : rl->count;
        double* ratio = Calloc( (size_t)( n > 0 ? n : 1 ), sizeof( double ) );
        bool* use = Calloc( (size_t)( n > 0 ? n : 1 ), sizeof( bool ) );
        int compared = 0, mismatched = 0, lastCells = 0;
        double cpuMs = 0.0, cpuRelcp = 0.0;
        for ( int i = 0; i < n; ++i )
        {
            if ( l->cells[i] != rl->cells[i] )
            {
                mismatched += 1;
                continue;
            }
            use[i] = l->constraints[i] > 0.0 && rl->constraints[i] > 0.0;
            ratio[i] = use[i] ? l->constraints[i] / rl->constraints[i] : 0.0;
            compared += use[i] ? 1 : 0;
            cpuMs += l->cpuMs[i];
            cpuRelcp += rl->cpuMs[i];
            lastCells = (int)l->cells[i];
        }
        double lastMs = 0.0, lastRelcp = 0.0;
        for ( int i = 0; i < n; ++i )
        {
            if ( (int)l->cells[i] == lastCells && l->cells[i] == rl->cells[i] )
            {
                lastMs += l->cpuMs[i];
                lastRelcp += rl->cpuMs[i];
            }
        }
        double ratioMean, ratioStd, usMean, usStd;
        MeanStd( ratio, use, n, &ratioMean, &ratioStd );
        TimePerConstraint( l, l->count, &usMean, &usStd );
        double paper[4];
        char paperRatio[48] = "-", paperUs[48] = "-";
        if ( PaperTable3( run->spheres, paper ) )
        {
            snprintf( paperRatio, sizeof( paperRatio ), "%.3g +- %.3g", paper[0], paper[1] );
            snprintf( paperUs, sizeof( paperUs ), "%.3g +- %.3g", paper[2], paper[3] );
        }
        WarningSummary( l->warningCount, warnings, sizeof( warnings ) );
        if ( r == 0 )
        {
            Say( &md, "| ReLCP | 1 | 1.00 +- 0 | %.3g +- %.3g | %s | %d | %d | 1 | 1 | %.2e | %.2e | %s |\n",
                 usMean, usStd, paperUs, l->count, run->finalCells, MaxFinite( l->trueOverlap, 0, l->count ),
                 MaxFinite( l->penetration, 0, l->count ), warnings );
        }
        else
        {
            Say( &md,
                 "| %s | %.3g +- %.3g | %s | %.3g +- %.3g | %s | %d | %d | %.3g | %.3g (%d cells) | %.2e | "
                 "%.2e | %s |\n",
                 run->label, ratioMean, ratioStd, paperRatio, usMean, usStd, paperUs, compared,
                 run->finalCells, cpuRelcp > 0.0 ? cpuMs / cpuRelcp : (double)NAN,
                 lastRelcp > 0.0 ? lastMs / lastRelcp : (double)NAN, lastCells,
                 MaxFinite( l->trueOverlap, 0, l->count ), MaxFinite( l->penetration, 0, l->count ),
                 warnings );
        }
        if ( mismatched > 0 )
        {
            Say( &md, "\n(%s: %d steps had a different cell count from the ReLCP run and were skipped.)\n\n",
                 run->label, mismatched );
        }
        free( ratio );
        free( use );
    }
    Say( &md,
         "\nThe ReLCP row's time per constraint is over its whole run (to %d cells), each MS row's over its "
         "own "
         "steps; the paper's runs are far larger (to 131,072 cells), where ReLCP's iterative cost per "
         "constraint dominates.\n\n",
         relcp->finalCells );
    Say( &md,
         "**MS sub-spheres on growing cells.** A capsule keeps its N sub-spheres (radius = the cell's, "
         "centres equally spaced on the core segment) as it grows, so the spacing grows with the cell. Just "
         "before division (length 4, radius 0.25):" );
    for ( int m = 0; m < o->sphereCount; ++m )
    {
        int k = (int)o->spheres[m];
        double gap = SphereGap( 4.0, 0.25, k ), young = SphereGap( 2.0, 0.25, k );
        Say( &md, " MS-%d %s %.3f m (newborn, length 2: %s %.3f m)%s", k,
             gap > 0.0 ? "opens gaps of" : "dips by", fabs( gap ), young > 0.0 ? "gaps of" : "dips of",
             fabs( young ), m + 1 < o->sphereCount ? ";" : "." );
    }
    Say(
        &md,
        " A neighbour's cap can sink into a gap without any sub-sphere pair overlapping: the true capsule "
        "overlap column above (the bench's own segment-segment check of every pair of cells) shows how deep; "
        "the sub-sphere penetration column is what the MS solve sees.\n\n" );
    Say( &md, "Benchmark CPU time in all (process): %.1f s.\n", CpuSeconds() - cpuStart );
    CloseReport( &md );

    // the per-step record
    char path[1024];
    snprintf( path, sizeof( path ), "%s/relcp_%s_steps.csv", o->outDir, o->name );
    FILE* csv = fopen( path, "w" );
    if ( csv == NULL )
    {
        Fail( "cannot write %s", path );
    }
    else
    {
        fprintf( csv,
                 "run,step,time,cells,constraints,recursion_rows,recursion_levels,inner_iterations,cpu_ms,"
                 "recursion_overlap,true_overlap,max_penetration,warnings\n" );
        for ( int r = 0; r < runCount; ++r )
        {
            WriteStepCsv( csv, &runs[r] );
        }
        fclose( csv );
        fprintf( stderr, "writing %s\n", path );
    }

    // the plots
    cnPlot* panels[4];
    panels[0] = cnPlot_Create( "colony: constraints per step", "time (s)", "constraints (and cells)", true );
    panels[1] = cnPlot_Create( "colony: CPU time per step", "time (s)", "CPU ms per step", true );
    panels[2] =
        cnPlot_Create( "colony: LCP-MS constraints / ReLCP's, step by step", "time (s)", "ratio", true );
    panels[3] = cnPlot_Create( "colony: ReLCP CPU time per step against the cell count", "log2(cells)",
                               "CPU ms per step", true );
    // the runs in the same order (so the same colours) in every panel, ReLCP first
    for ( int r = 0; r < runCount; ++r )
    {
        const StepLog* l = &runs[r].steps;
        cnPlot_AddSeries( panels[0], runs[r].label, l->time, l->constraints, l->count );
        cnPlot_AddSeries( panels[1], runs[r].label, l->time, l->cpuMs, l->count );
        int n = l->count < rl->count ? l->count : rl->count;
        double* ratio = Calloc( (size_t)( n > 0 ? n : 1 ), sizeof( double ) );
        for ( int i = 0; i < n; ++i )
        {
            ratio[i] = rl->constraints[i] > 0.0 && l->cells[i] == rl->cells[i]
                           ? l->constraints[i] / rl->constraints[i]
                           : (double)NAN;
        }
        cnPlot_AddSeries( panels[2], runs[r].label, l->time, ratio, n );
        free( ratio );
    }
    cnPlot_AddSeries( panels[0], "cells", rl->time, rl->cells, rl->count );
    cnPlot_AddMarkers( panels[3], "mean per generation", genX, genMean, genCount );
    cnPlot_AddMarkers( panels[3], "slowest step of the generation", genX, genMax, genCount );
    WritePanels( panels, 4, o->plotDir, o->name );

    for ( int r = 0; r < runCount; ++r )
    {
        LogFree( &runs[r].steps );
    }
    free( runs );
    free( check.ids );
    free( check.capsules );
    return BenchFailures() > 0 ? 1 : 0;
}

// ---------------------------------------------------------------------------------------------
// colony_inners: which solver inside relcp scales on the colony? (docs/relcp.md, "The colony at
// scale"). Each inner solver grows the colony for the same CPU budget; the table and the log-log
// plot give CPU per step against the cell count, one generation per row.

#define INNERS_MAX 12

typedef struct InnersOptions
{
    double minutes; // CPU budget of each run
    const char* inners[INNERS_MAX];
    int iterations[INNERS_MAX]; // budget per level ("pgs:100"); 0: the scene's
    int innerCount;
    const char* scene;
    const char* outDir;
    const char* plotDir;
} InnersOptions;

// per generation of a run: its cell count, mean and worst CPU ms per step, overlap_left steps and
// deepest true overlap
typedef struct Generation
{
    double cells, meanMs, maxMs, trueOverlap, levels;
    int steps, left;
} Generation;

static int Generations( const StepLog* l, Generation* out, int capacity )
{
    int count = 0;
    for ( int from = 0; from < l->count && count < capacity; )
    {
        int to = from;
        while ( to < l->count && l->cells[to] == l->cells[from] )
        {
            to += 1;
        }
        Generation g = { .cells = l->cells[from], .steps = to - from };
        for ( int i = from; i < to; ++i )
        {
            g.meanMs += l->cpuMs[i] / g.steps;
            g.levels += l->levels[i] / g.steps;
            g.maxMs = fmax( g.maxMs, l->cpuMs[i] );
            g.trueOverlap = fmax( g.trueOverlap, l->trueOverlap[i] );
            g.left += ( (unsigned)l->flags[i] >> OVERLAP_LEFT_BIT ) & 1u;
        }
        out[count++] = g;
        from = to;
    }
    return count;
}

static int ColonyInners( const InnersOptions* o )
{
    double cpuStart = CpuSeconds();
    CapsuleCheck check = { 0 };
    ColonyRun* runs = Calloc( (size_t)o->innerCount, sizeof( ColonyRun ) );
    Generation( *gens )[64] = Calloc( (size_t)o->innerCount, sizeof( *gens ) );
    int* genCount = Calloc( (size_t)o->innerCount, sizeof( int ) );
    int longest = 0;
    for ( int r = 0; r < o->innerCount; ++r )
    {
        char innerText[64], iterationsText[64];
        const char* overrides[2];
        int n = 0;
        snprintf( innerText, sizeof( innerText ), "world.solver.params.inner=%s", o->inners[r] );
        overrides[n++] = innerText;
        if ( o->iterations[r] > 0 )
        {
            snprintf( iterationsText, sizeof( iterationsText ), "world.solver.iterations=%d",
                      o->iterations[r] );
            overrides[n++] = iterationsText;
            snprintf( runs[r].label, sizeof( runs[r].label ), "%s, %d a level", o->inners[r],
                      o->iterations[r] );
        }
        else
        {
            snprintf( runs[r].label, sizeof( runs[r].label ), "%s", o->inners[r] );
        }
        fprintf( stderr, "colony_inners: relcp around %s for %.1f CPU minutes\n", runs[r].label, o->minutes );
        if ( GrowColony( o->scene, overrides, n, 60.0 * o->minutes, 1 << 30, true, &runs[r], &check ) ==
             false )
        {
            return 1;
        }
        genCount[r] = Generations( &runs[r].steps, gens[r], 64 );
        longest = genCount[r] > longest ? genCount[r] : longest;
    }

    Report md = { 0 };
    OpenReport( &md, o->outDir, "colony_inners" );
    Say( &md, "# The colony at scale: the solver inside relcp\n\n" );
    Say( &md,
         "Scene %s (dt %g s, overlap tolerance %g m), grown from one cell by relcp around each solver for "
         "%.1f CPU minutes each (process CPU time of cnWorld_Step, the colony's growth included), one run "
         "after another on this machine. Each row is one generation (a cell count); a cell is CPU ms per "
         "step, the mean over the generation's steps, with the steps that ended `overlap_left` (a pair "
         "still overlapping past the tolerance after the levels ran out) in brackets where there were "
         "any. The deepest true overlap is the bench's own capsule-capsule check after every step.\n\n",
         BaseName( o->scene ), runs[0].dt, DENSE_OVERLAP_TOLERANCE, o->minutes );
    Say( &md, "| cells |" );
    for ( int r = 0; r < o->innerCount; ++r )
    {
        Say( &md, " %s |", runs[r].label );
    }
    Say( &md, "\n|---:|" );
    for ( int r = 0; r < o->innerCount; ++r )
    {
        Say( &md, "---:|" );
    }
    Say( &md, "\n" );
    for ( int k = 0; k < longest; ++k )
    {
        double cells = 0.0;
        for ( int r = 0; r < o->innerCount; ++r )
        {
            cells = k < genCount[r] ? gens[r][k].cells : cells;
        }
        Say( &md, "| %.0f |", cells );
        for ( int r = 0; r < o->innerCount; ++r )
        {
            if ( k >= genCount[r] )
            {
                Say( &md, " - |" );
                continue;
            }
            const Generation* g = &gens[r][k];
            Say( &md, " %.3g%s", g->meanMs, g->steps < 60 ? "*" : "" );
            if ( g->left > 0 )
            {
                Say( &md, " (%d)", g->left );
            }
            Say( &md, " |" );
        }
        Say( &md, "\n" );
    }
    Say( &md, "\n\\* a generation the budget ended in (fewer steps, its first ones).\n\n" );
    Say( &md, "| solver inside | steps | cells reached | recursion levels/step at the last full generation | "
              "deepest true overlap (m) | steps ending overlap_left | CPU s "
              "|\n|---|---:|---:|---:|---:|---:|---:|\n" );
    for ( int r = 0; r < o->innerCount; ++r )
    {
        const StepLog* l = &runs[r].steps;
        double deepest = MaxFinite( l->trueOverlap, 0, l->count );
        int left = 0;
        for ( int i = 0; i < l->count; ++i )
        {
            left += ( (unsigned)l->flags[i] >> OVERLAP_LEFT_BIT ) & 1u;
        }
        int last = genCount[r] - 1;
        while ( last > 0 && gens[r][last].steps < 60 )
        {
            last -= 1;
        }
        Say( &md, "| %s | %d | %d | %.2f | %.2e | %d | %.1f |\n", runs[r].label, l->count, runs[r].finalCells,
             last >= 0 ? gens[r][last].levels : 0.0, deepest, left, l->cpuTotal );
    }
    Say( &md, "\nBenchmark CPU time in all (process): %.1f s.\n", CpuSeconds() - cpuStart );
    CloseReport( &md );

    // CPU per step against cells, log-log (log2 of the cells on x)
    cnPlot* panels[1];
    panels[0] = cnPlot_Create( "colony: CPU per step against the cell count, by the solver inside relcp",
                               "log2(cells)", "CPU ms per step (mean over the generation)", true );
    for ( int r = 0; r < o->innerCount; ++r )
    {
        double x[64], y[64];
        int n = 0;
        for ( int k = 0; k < genCount[r]; ++k )
        {
            if ( gens[r][k].cells >= 2.0 && gens[r][k].steps >= 60 )
            {
                x[n] = log2( gens[r][k].cells );
                y[n] = gens[r][k].meanMs;
                n += 1;
            }
        }
        cnPlot_AddSeries( panels[0], runs[r].label, x, y, n );
    }
    WritePanels( panels, 1, o->plotDir, "colony_inners" );
    for ( int r = 0; r < o->innerCount; ++r )
    {
        LogFree( &runs[r].steps );
    }
    free( runs );
    free( gens );
    free( genCount );
    free( check.ids );
    free( check.capsules );
    return BenchFailures() > 0 ? 1 : 0;
}

// ---------------------------------------------------------------------------------------------
// colony_scene: should the shipped colony.json use relcp?

typedef struct SceneOptions
{
    int steps;
    double minutes; // CPU budget per run
    const char* scene;
    const char* outDir;
} SceneOptions;

static int ColonyScene( const SceneOptions* o )
{
    double cpuStart = CpuSeconds();
    CapsuleCheck check = { 0 };
    static const char* const asShipped[] = { NULL };
    static const char* const switched[] = { "world.solver.name=relcp" };
    static const char* const ownBudget[] = { "world.solver.name=relcp", "world.solver.iterations=10000" };
    struct
    {
        const char* label;
        const char* const* overrides;
        int count;
    } variants[] = {
        { "as shipped: pgs, 40 iterations", asShipped, 0 },
        { "relcp as `cairn run --solver relcp` (keeps the scene's 40 iterations)", switched, 1 },
        { "relcp with its own budget (10,000 iterations per level)", ownBudget, 2 },
    };
    enum
    {
        variantCount = sizeof( variants ) / sizeof( variants[0] )
    };
    ColonyRun runs[variantCount];
    memset( runs, 0, sizeof( runs ) );
    for ( int v = 0; v < variantCount; ++v )
    {
        snprintf( runs[v].label, sizeof( runs[v].label ), "%s",
                  v == 0 ? "pgs" : ( v == 1 ? "relcp-40" : "relcp" ) );
        fprintf( stderr, "colony_scene: %s, %d steps or %.1f CPU minutes\n", variants[v].label, o->steps,
                 o->minutes );
        if ( GrowColony( o->scene, variants[v].overrides, variants[v].count, 60.0 * o->minutes, o->steps,
                         false, &runs[v], &check ) == false )
        {
            return 1;
        }
    }

    Report md = { 0 };
    OpenReport( &md, o->outDir, "colony_scene" );
    Say( &md, "# The shipped colony.json with relcp\n\n" );
    Say( &md,
         "%s (dt %g s, 1,024 cells at step 3,466, then growth stops and the contacts relax) run for %d steps "
         "or %.1f CPU minutes, whichever comes first, three ways. True overlap: the bench's own "
         "segment-segment check of every "
         "pair "
         "of cells after each step; the overlap tolerance of relcp is %g m.\n\n",
         BaseName( o->scene ), runs[0].dt, o->steps, o->minutes, DENSE_OVERLAP_TOLERANCE );
    Say( &md,
         "| run | steps | cells | simulated s | CPU s | CPU ms/step | ms/step, last 100 steps | deepest true "
         "overlap (m) | in the last 100 steps | at the end | steps above 1e-5 m | steps above 1e-3 m | "
         "deepest overlap at accepted trial pose (m) | recursion levels/step | warnings (steps) |\n" );
    Say( &md, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n" );
    for ( int v = 0; v < variantCount; ++v )
    {
        const StepLog* l = &runs[v].steps;
        int last = l->count > 100 ? l->count - 100 : 0;
        int above5 = 0, above3 = 0;
        for ( int i = 0; i < l->count; ++i )
        {
            above5 += l->trueOverlap[i] > 1.0e-5 ? 1 : 0;
            above3 += l->trueOverlap[i] > 1.0e-3 ? 1 : 0;
        }
        double overlap = MaxFinite( l->overlap, 0, l->count );
        char overlapText[32] = "-";
        if ( isfinite( overlap ) )
        {
            snprintf( overlapText, sizeof( overlapText ), "%.2e", overlap );
        }
        char warnings[256];
        WarningSummary( l->warningCount, warnings, sizeof( warnings ) );
        Say( &md,
             "| %s | %d | %d | %.3f | %.1f | %.3g | %.3g | %.2e | %.2e | %.2e | %d | %d | %s | %.2f | %s |\n",
             variants[v].label, l->count, runs[v].finalCells, l->count > 0 ? l->time[l->count - 1] : 0.0,
             l->cpuTotal, MeanOf( l->cpuMs, 0, l->count ), MeanOf( l->cpuMs, last, l->count ),
             MaxFinite( l->trueOverlap, 0, l->count ), MaxFinite( l->trueOverlap, last, l->count ),
             l->count > 0 ? l->trueOverlap[l->count - 1] : 0.0, above5, above3, overlapText,
             MeanOf( l->levels, 0, l->count ), warnings );
    }
    Say( &md, "\nBenchmark CPU time in all (process): %.1f s.\n", CpuSeconds() - cpuStart );
    CloseReport( &md );
    for ( int v = 0; v < variantCount; ++v )
    {
        LogFree( &runs[v].steps );
    }
    free( check.ids );
    free( check.capsules );
    return BenchFailures() > 0 ? 1 : 0;
}

// ---------------------------------------------------------------------------------------------

static void Usage( void )
{
    fputs(
        "usage: cairn_bench_relcp_dense suspension [--count N] [--dt X[,X..]] [--steps S] [--ms K,K,..]\n"
        "                               [--seed S] [--fraction F] [--compact-dt X] [--compact-time T] "
        "[--start FILE]\n"
        "                               [--write-scene FILE] [--write-dense FILE] [--out DIR] [--plots DIR]\n"
        "       cairn_bench_relcp_dense colony [--minutes M] [--ms K,K,..] [--ms-minutes M] [--max-cells N]\n"
        "                               [--dt X] [--inner NAME] [--iterations N] [--name NAME] [--scene "
        "FILE]\n"
        "                               [--out DIR] [--plots DIR]\n"
        "       cairn_bench_relcp_dense colony_scene [--steps N] [--minutes M] [--scene FILE] [--out DIR]\n"
        "       cairn_bench_relcp_dense colony_inners [--minutes M] [--inners NAME[:ITERATIONS],..] [--scene "
        "FILE]\n"
        "                               [--out DIR] [--plots DIR]\n",
        stderr );
}

int main( int argc, char** argv )
{
    // relcp says once per world that it takes no friction rows: expected here (frictionless scenes)
    BenchSetup( "cairn_bench_relcp_dense", 2, "takes no friction rows" );
    if ( argc < 2 )
    {
        Usage();
        return 2;
    }
    const char* command = argv[1];
    const char* outDir = CN_SOURCE_DIR "/tests/bench/results/amd_epyc_2vcpu";
    const char* plotDir = CN_SOURCE_DIR "/docs/images";
    const char* scene = NULL;
    const char* inner = NULL;
    const char* inners = NULL;
    const char* name = NULL;
    int iterations = 0;
    int steps = 0;
    double minutes = 0.0;
    double dt[DENSE_MAX_LIST];
    int dtCount = 0;
    double spheres[DENSE_MAX_LIST];
    int sphereCount = -1;

    SuspensionOptions sus;
    memset( &sus, 0, sizeof( sus ) );
    sus.count = 500;
    sus.seed = 1;
    sus.fraction = SUSPENSION_FRACTION;
    sus.compactDt = 0.1;
    sus.compactTime = 2000.0;
    sus.settledFraction = 0.05;
    sus.finalFraction = 0.25;
    ColonyOptions col;
    memset( &col, 0, sizeof( col ) );
    col.minutes = 60.0;
    col.msMinutes = 3.0;

    for ( int i = 2; i < argc; i += 2 )
    {
        const char* arg = argv[i];
        const char* value = i + 1 < argc ? argv[i + 1] : NULL;
        bool ok = value != NULL;
        if ( ok == false )
        {
        }
        else if ( strcmp( arg, "--out" ) == 0 )
        {
            outDir = value;
        }
        else if ( strcmp( arg, "--plots" ) == 0 )
        {
            plotDir = value;
        }
        else if ( strcmp( arg, "--scene" ) == 0 || strcmp( arg, "--start" ) == 0 )
        {
            scene = value;
        }
        else if ( strcmp( arg, "--count" ) == 0 )
        {
            ok = ParseCount( value, &sus.count );
        }
        else if ( strcmp( arg, "--steps" ) == 0 )
        {
            ok = ParseCount( value, &steps );
        }
        else if ( strcmp( arg, "--dt" ) == 0 )
        {
            ok = ParseList( value, dt, &dtCount );
            for ( int k = 0; ok && k < dtCount; ++k )
            {
                ok = dt[k] > 0.0;
            }
        }
        else if ( strcmp( arg, "--ms" ) == 0 )
        {
            ok = strcmp( value, "none" ) == 0 ? ( sphereCount = 0, true )
                                              : ParseList( value, spheres, &sphereCount );
            for ( int k = 0; ok && k < sphereCount; ++k )
            {
                ok = spheres[k] >= 2.0 && spheres[k] <= 256.0 && spheres[k] == floor( spheres[k] );
            }
        }
        else if ( strcmp( arg, "--seed" ) == 0 )
        {
            int seed = 0;
            ok = ParseCount( value, &seed );
            sus.seed = (uint64_t)seed;
        }
        else if ( strcmp( arg, "--fraction" ) == 0 )
        {
            ok = ParsePositive( value, &sus.fraction ) && sus.fraction <= 0.05;
        }
        else if ( strcmp( arg, "--compact-dt" ) == 0 )
        {
            ok = ParsePositive( value, &sus.compactDt );
        }
        else if ( strcmp( arg, "--compact-time" ) == 0 )
        {
            ok = ParsePositive( value, &sus.compactTime );
        }
        else if ( strcmp( arg, "--write-scene" ) == 0 )
        {
            sus.writeScene = value;
        }
        else if ( strcmp( arg, "--write-dense" ) == 0 )
        {
            sus.writeDense = value;
        }
        else if ( strcmp( arg, "--minutes" ) == 0 )
        {
            ok = ParsePositive( value, &minutes );
        }
        else if ( strcmp( arg, "--ms-minutes" ) == 0 )
        {
            ok = ParsePositive( value, &col.msMinutes );
        }
        else if ( strcmp( arg, "--max-cells" ) == 0 )
        {
            ok = ParseCount( value, &col.maxCells );
        }
        else if ( strcmp( arg, "--iterations" ) == 0 )
        {
            ok = ParseCount( value, &iterations ) && iterations > 0;
        }
        else if ( strcmp( arg, "--inners" ) == 0 )
        {
            inners = value;
        }
        else if ( strcmp( arg, "--inner" ) == 0 || strcmp( arg, "--name" ) == 0 )
        {
            ok = value != NULL && value[0] != '\0';
            *( strcmp( arg, "--inner" ) == 0 ? &inner : &name ) = value;
        }
        else
        {
            ok = false;
        }
        if ( ok == false )
        {
            fprintf( stderr, "cairn_bench_relcp_dense: bad option or value: %s %s\n", arg,
                     value != NULL ? value : "" );
            Usage();
            return 2;
        }
    }

    if ( strcmp( command, "suspension" ) == 0 )
    {
        sus.dtCount = dtCount > 0 ? dtCount : 2;
        memcpy( sus.dts, dtCount > 0 ? dt : ( double[] ){ 0.01, 0.1 },
                (size_t)sus.dtCount * sizeof( double ) );
        sus.sphereCount = sphereCount >= 0 ? sphereCount : 4;
        memcpy( sus.spheres, sphereCount >= 0 ? spheres : ( double[] ){ 3, 7, 13, 17 },
                (size_t)sus.sphereCount * sizeof( double ) );
        sus.steps = steps > 0 ? steps : 100;
        sus.start = scene;
        sus.outDir = outDir;
        sus.plotDir = plotDir;
        return Suspension( &sus );
    }
    if ( strcmp( command, "colony" ) == 0 )
    {
        col.minutes = minutes > 0.0 ? minutes : col.minutes;
        col.sphereCount = sphereCount >= 0 ? sphereCount : 3;
        memcpy( col.spheres, sphereCount >= 0 ? spheres : ( double[] ){ 5, 7, 17 },
                (size_t)col.sphereCount * sizeof( double ) );
        col.dt = dtCount > 0 ? dt[0] : 0.0;
        col.scene = scene != NULL ? scene : CN_ASSETS_DIR "/scenes/relcp_colony.json";
        col.inner = inner != NULL ? inner : "bbpgd";
        col.iterations = iterations > 0 ? iterations : DENSE_ITERATIONS;
        col.name = name != NULL ? name : "colony";
        col.outDir = outDir;
        col.plotDir = plotDir;
        return Colony( &col );
    }
    if ( strcmp( command, "colony_inners" ) == 0 )
    {
        InnersOptions io = { .minutes = minutes > 0.0 ? minutes : 4.0,
                             .scene = scene != NULL ? scene : CN_ASSETS_DIR "/scenes/relcp_colony.json",
                             .outDir = outDir,
                             .plotDir = plotDir };
        // the list: names with an optional budget per level
        static char list[512];
        snprintf( list, sizeof( list ), "%s", inners != NULL ? inners : "ipm,bbpgd,pgs:100,pgs_sm,tao" );
        for ( char* item = strtok( list, "," ); item != NULL && io.innerCount < INNERS_MAX;
              item = strtok( NULL, "," ) )
        {
            char* colon = strchr( item, ':' );
            io.iterations[io.innerCount] = colon != NULL ? atoi( colon + 1 ) : 0;
            if ( colon != NULL )
            {
                *colon = '\0';
            }
            if ( cnFindSolver( item ) == NULL )
            {
                fprintf( stderr,
                         "colony_inners: %s is not in this build (tao needs -DCN_WITH_PETSC=ON): left out\n",
                         item );
                continue;
            }
            io.inners[io.innerCount++] = item;
        }
        return ColonyInners( &io );
    }
    if ( strcmp( command, "colony_scene" ) == 0 )
    {
        SceneOptions so = { steps > 0 ? steps : 3500, minutes > 0.0 ? minutes : 5.0,
                            scene != NULL ? scene : CN_ASSETS_DIR "/scenes/colony.json", outDir };
        return ColonyScene( &so );
    }
    Usage();
    return 2;
}
