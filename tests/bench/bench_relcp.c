// SPDX-License-Identifier: MIT
// ReLCP benchmarks after the experiments of the paper (../shared/papers/relcp.md, section 7), through
// the public API, the scene loader and the demo systems. Three subcommands, each printing markdown
// tables and writing them to OUT/relcp_<name>.md, with SVG plots in PLOTS/relcp_*.svg:
//
// two_ellipsoids      section 7.1: two ellipsoids pushed past each other (overdamped), relcp at
//                     several time steps and the multisphere baseline (LCP-MS) against a fine relcp
//                     reference: L2 trajectory errors in the form of the paper's Table 1.
// chainmail           section 7.4: the taut chainmail sheet (chainmail_taut.json) under relcp, the
//                     single-constraint LCP (relcp levels = 0) and MS-32: the deepest TRUE ring-ring
//                     overlap per step, found by a brute-force scan of the rings' core circles.
// inertial_chainmail  the inertial chainmail scenes (pgs) against relcp and pgs with the world's
//                     contact recursion: worst true overlap and CPU time per step, side by side.
//
// cairn_bench_relcp two_ellipsoids [--reference-dt X] [--dts A,B,..] [--ms N,N,..] [--ms-dt X]
//                   [--t-end T] [--out DIR] [--plots DIR]
// cairn_bench_relcp chainmail [--steps N] [--rows R] [--columns C] [--strength S] [--dt S] [--scan-every K]
//                   [--tag NAME] [--out DIR] [--plots DIR]
// cairn_bench_relcp inertial_chainmail [--steps N] [--scene FILE ...] [--out DIR] [--plots DIR]
//
// See tests/bench/README.md, "bench_relcp". Exit status 1 when a scene fails to load, a step fails
// or a measured value is not finite.
#define _POSIX_C_SOURCE 200809L

#include "bench_common.h"
#include "bench_plot.h"
#include "systems.h"

#include "cairn/cairn.h"
#include "cairn/scene.h"
#include "cairn/solver.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef CN_ASSETS_DIR
#    define CN_ASSETS_DIR "assets"
#endif
#ifndef CN_SOURCE_DIR
#    define CN_SOURCE_DIR "."
#endif

#define BENCH_MAX_LIST      16
#define BENCH_MAX_SCENES    4
#define BENCH_MAX_OVERRIDES 8
// samples of A's core circle in the ring-ring scan (then each local minimum is refined)
#define RING_SCAN_SAMPLES 720
// sub-spheres per ring of the MS baseline in the chainmail (the paper's 32)
#define CHAIN_MS_SPHERES 32
// the overlap tolerance of the paper and of relcp's default, m
#define RELCP_TOLERANCE 1.0e-5
// floor of the log plots: smaller overlaps (and no overlap at all) are drawn here
#define PLOT_FLOOR 1.0e-8

// ---------------------------------------------------------------------------------------------
// small utilities (the rest are bench_common.c's)

static int CompareDoubles( const void* a, const void* b )
{
    double x = *(const double*)a, y = *(const double*)b;
    return ( x > y ) - ( x < y );
}

// median of values[from, to) (copied), NaN entries left out; NaN for an empty range
static double Median( const double* values, int from, int to )
{
    int n = to - from;
    if ( n <= 0 )
    {
        return (double)NAN;
    }
    double* copy = Calloc( (size_t)n, sizeof( double ) );
    int kept = 0;
    for ( int i = from; i < to; ++i )
    {
        if ( !isnan( values[i] ) )
        {
            copy[kept++] = values[i];
        }
    }
    n = kept;
    if ( n == 0 )
    {
        free( copy );
        return (double)NAN;
    }
    qsort( copy, (size_t)n, sizeof( double ), CompareDoubles );
    double m = n % 2 == 1 ? copy[n / 2] : 0.5 * ( copy[n / 2 - 1] + copy[n / 2] );
    free( copy );
    return m;
}

// parses "a,b,c" into numbers; false on a bad list
static bool ParseList( const char* text, double* values, int* count )
{
    *count = 0;
    const char* p = text;
    while ( *p != '\0' )
    {
        char* end = NULL;
        double v = strtod( p, &end );
        if ( end == p || *count >= BENCH_MAX_LIST || !isfinite( v ) )
        {
            return false;
        }
        values[( *count )++] = v;
        p = *end == ',' ? end + 1 : end;
        if ( *end != ',' && *end != '\0' )
        {
            return false;
        }
    }
    return true;
}

// ---------------------------------------------------------------------------------------------
// rings: the true ring-ring separation by a brute-force scan (independent of the narrowphase)

// A ring (the first torus shape of a body) and its pose in the world.
typedef struct Ring
{
    cnBodyId body;
    cnTransform local; // the torus shape's pose in its body
    cnTorus torus;
    cnTransform pose; // the torus's pose in the world, refreshed by RingsUpdate
} Ring;

typedef struct RingSet
{
    int count;
    Ring* rings;
    // MS sub-sphere centres, CHAIN_MS_SPHERES per ring (RingsUpdate with spheres)
    cnVec3* spheres;
} RingSet;

static RingSet RingsFind( cnWorldId world )
{
    RingSet set = { 0 };
    cnBodyArrays arrays = cnWorld_GetBodyArrays( world );
    set.rings = Calloc( (size_t)arrays.count, sizeof( Ring ) );
    set.spheres = Calloc( (size_t)arrays.count * CHAIN_MS_SPHERES, sizeof( cnVec3 ) );
    for ( int i = 0; i < arrays.count; ++i )
    {
        cnShapeId shapes[8];
        int n = cnBody_GetShapes( arrays.ids[i], shapes, 8 );
        for ( int k = 0; k < n && k < 8; ++k )
        {
            cnGeometry geometry;
            if ( cnShape_GetType( shapes[k] ) == cn_torusShape &&
                 cnShape_GetGeometry( shapes[k], &geometry ) == cn_statusOk )
            {
                Ring* ring = &set.rings[set.count++];
                ring->body = arrays.ids[i];
                ring->local = cnShape_GetLocalPose( shapes[k] );
                ring->torus = geometry.torus;
                break;
            }
        }
    }
    return set;
}

static void RingsFree( RingSet* set )
{
    free( set->rings );
    free( set->spheres );
    memset( set, 0, sizeof( *set ) );
}

// refreshes the world poses; with spheres, also the MS sub-sphere centres (equally spaced on the
// core circle, the first on the torus's local +x: docs/architecture.md, "The multisphere baseline")
static void RingsUpdate( RingSet* set, bool spheres )
{
    for ( int i = 0; i < set->count; ++i )
    {
        Ring* ring = &set->rings[i];
        ring->pose = cnMulTransforms( cnBody_GetTransform( ring->body ), ring->local );
        if ( spheres )
        {
            for ( int k = 0; k < CHAIN_MS_SPHERES; ++k )
            {
                double u = 2.0 * CN_PI * (double)k / CHAIN_MS_SPHERES;
                cnVec3 p =
                    cnMakeVec3( ring->torus.majorRadius * cos( u ), ring->torus.majorRadius * sin( u ), 0.0 );
                set->spheres[i * CHAIN_MS_SPHERES + k] = cnTransformPoint( ring->pose, p );
            }
        }
    }
}

// Ring A's core circle seen from ring B's frame: the point at angle u is c + cos u e1 + sin u e2.
typedef struct CirclePair
{
    cnVec3 c, e1, e2;
    double radiusB;
} CirclePair;

// distance from A's core-circle point at angle u to B's core circle (closed form: B's circle lies
// in its local x-y plane about the origin)
static double CircleGap( const CirclePair* pair, double u )
{
    double cu = cos( u ), su = sin( u );
    double x = pair->c.x + cu * pair->e1.x + su * pair->e2.x;
    double y = pair->c.y + cu * pair->e1.y + su * pair->e2.y;
    double z = pair->c.z + cu * pair->e1.z + su * pair->e2.z;
    double radial = sqrt( x * x + y * y ) - pair->radiusB;
    return sqrt( radial * radial + z * z );
}

// Signed separation of two rings: the distance between their core circles minus both tube radii
// (a torus is the set of points within its minor radius of its core circle, so this is exact).
// The distance is minimised over A's angle: RING_SCAN_SAMPLES samples, then every sampled local
// minimum refined by golden-section search on its two neighbouring intervals.
static double RingSeparation( const Ring* a, const Ring* b )
{
    CirclePair pair;
    pair.c = cnInvTransformPoint( b->pose, a->pose.p );
    pair.e1 = cnInvRotate( b->pose.q, cnRotate( a->pose.q, cnMakeVec3( a->torus.majorRadius, 0.0, 0.0 ) ) );
    pair.e2 = cnInvRotate( b->pose.q, cnRotate( a->pose.q, cnMakeVec3( 0.0, a->torus.majorRadius, 0.0 ) ) );
    pair.radiusB = b->torus.majorRadius;

    double f[RING_SCAN_SAMPLES];
    const double step = 2.0 * CN_PI / RING_SCAN_SAMPLES;
    for ( int i = 0; i < RING_SCAN_SAMPLES; ++i )
    {
        f[i] = CircleGap( &pair, step * (double)i );
    }
    double best = INFINITY;
    const double shrink = 0.6180339887498949; // golden ratio - 1
    for ( int i = 0; i < RING_SCAN_SAMPLES; ++i )
    {
        double before = f[( i + RING_SCAN_SAMPLES - 1 ) % RING_SCAN_SAMPLES];
        double after = f[( i + 1 ) % RING_SCAN_SAMPLES];
        if ( f[i] > before || f[i] > after )
        {
            continue;
        }
        double lo = step * (double)( i - 1 ), hi = step * (double)( i + 1 );
        double m1 = hi - shrink * ( hi - lo ), m2 = lo + shrink * ( hi - lo );
        double f1 = CircleGap( &pair, m1 ), f2 = CircleGap( &pair, m2 );
        double low = f[i];
        for ( int k = 0; k < 64; ++k )
        {
            if ( f1 < f2 )
            {
                hi = m2;
                m2 = m1;
                f2 = f1;
                m1 = hi - shrink * ( hi - lo );
                f1 = CircleGap( &pair, m1 );
            }
            else
            {
                lo = m1;
                m1 = m2;
                f1 = f2;
                m2 = lo + shrink * ( hi - lo );
                f2 = CircleGap( &pair, m2 );
            }
            low = fmin( low, fmin( f1, f2 ) );
        }
        best = fmin( best, low );
    }
    return best - a->torus.minorRadius - b->torus.minorRadius;
}

// may two rings touch? (centres within the sum of their outer radii)
static bool RingsNear( const Ring* a, const Ring* b )
{
    double reach = a->torus.majorRadius + a->torus.minorRadius + b->torus.majorRadius + b->torus.minorRadius;
    cnVec3 d = cnSub( a->pose.p, b->pose.p );
    return cnDot( d, d ) < reach * reach;
}

// Deepest true ring-ring overlap over all pairs of the set (the negative of the smallest
// separation: negative when no two rings overlap). For 2R = 2 m, r = 0.1 m the pairs scanned are
// those with centres within 2.2 m, as in tests/systems/test_flagship.c.
static double RingsWorstOverlap( const RingSet* set )
{
    double worst = -INFINITY;
    for ( int i = 0; i < set->count; ++i )
    {
        for ( int j = i + 1; j < set->count; ++j )
        {
            if ( RingsNear( &set->rings[i], &set->rings[j] ) )
            {
                worst = fmax( worst, -RingSeparation( &set->rings[i], &set->rings[j] ) );
            }
        }
    }
    return worst;
}

// Deepest overlap between MS sub-spheres of different rings (spheres of the minor radius at the
// centres of RingsUpdate), at the poses after the step.
static double RingsWorstSphereOverlap( const RingSet* set )
{
    double worst = -INFINITY;
    for ( int i = 0; i < set->count; ++i )
    {
        for ( int j = i + 1; j < set->count; ++j )
        {
            if ( RingsNear( &set->rings[i], &set->rings[j] ) == false )
            {
                continue;
            }
            double reach = set->rings[i].torus.minorRadius + set->rings[j].torus.minorRadius;
            const cnVec3* a = set->spheres + i * CHAIN_MS_SPHERES;
            const cnVec3* b = set->spheres + j * CHAIN_MS_SPHERES;
            double closest2 = INFINITY;
            for ( int p = 0; p < CHAIN_MS_SPHERES; ++p )
            {
                for ( int q = 0; q < CHAIN_MS_SPHERES; ++q )
                {
                    cnVec3 d = cnSub( a[p], b[q] );
                    closest2 = fmin( closest2, cnDot( d, d ) );
                }
            }
            worst = fmax( worst, reach - sqrt( closest2 ) );
        }
    }
    return worst;
}

// Deepest ring-ring penetration among the engine's contacts of the last step (their points'
// separations, computed at the poses the step started from); in an MS world these are sub-sphere
// pairs named by their tori. -INFINITY when there is none.
static double EngineRingOverlap( cnWorldId world, cnContactData** buffer, int* capacity )
{
    int count = cnWorld_GetContacts( world, *buffer, *capacity );
    if ( count > *capacity )
    {
        free( *buffer );
        *capacity = 2 * count;
        *buffer = Calloc( (size_t)*capacity, sizeof( cnContactData ) );
        count = cnWorld_GetContacts( world, *buffer, *capacity );
    }
    double worst = -INFINITY;
    for ( int i = 0; i < count && i < *capacity; ++i )
    {
        const cnContactData* c = &( *buffer )[i];
        if ( cnShape_GetType( c->shapeA ) != cn_torusShape || cnShape_GetType( c->shapeB ) != cn_torusShape )
        {
            continue;
        }
        for ( int k = 0; k < c->pointCount; ++k )
        {
            worst = fmax( worst, -c->points[k].separation );
        }
    }
    return worst;
}

// ---------------------------------------------------------------------------------------------
// two_ellipsoids (section 7.1)

typedef struct EllipsoidOptions
{
    const char* scene;
    double referenceDt;
    double dts[BENCH_MAX_LIST];
    int dtCount;
    double spheres[BENCH_MAX_LIST];
    int sphereCount;
    double msDt;
    double tEnd;
    double outputDt;
} EllipsoidOptions;

// one run: the upper body's trajectory at the output times, and what the steps reported
typedef struct EllipsoidRun
{
    char label[48];
    double dt;
    int multisphere;
    int samples;
    double* x;
    double* y;
    double* angle; // of the upper body's major axis in the x-y plane, unwrapped, rad
    long long steps;
    long long multiLevelSteps; // steps whose solve added rows at a recursion level
    int mostLevels;
    double deepestLeft; // largest recursionOverlap (the deepest overlap left at an accepted pose)
    double contactStart, contactEnd;
    int warningSteps;
    double cpuSeconds;
    bool ok;
} EllipsoidRun;

static bool RunEllipsoids( const EllipsoidOptions* options, EllipsoidRun* run )
{
    run->ok = false;
    run->contactStart = (double)NAN;
    run->contactEnd = (double)NAN;
    run->deepestLeft = 0.0;
    long long every = llround( options->outputDt / run->dt );
    if ( every < 1 || fabs( (double)every * run->dt - options->outputDt ) > 1.0e-9 * options->outputDt )
    {
        Fail( "dt %g does not divide the output interval %g", run->dt, options->outputDt );
        return false;
    }
    run->samples = (int)floor( options->tEnd / options->outputDt + 1.0e-9 ) + 1;
    run->x = Calloc( (size_t)run->samples, sizeof( double ) );
    run->y = Calloc( (size_t)run->samples, sizeof( double ) );
    run->angle = Calloc( (size_t)run->samples, sizeof( double ) );

    char dtText[64], msText[64];
    snprintf( dtText, sizeof( dtText ), "world.dt=%.17g", run->dt );
    snprintf( msText, sizeof( msText ), "world.multisphere=%d", run->multisphere );
    const char* overrides[2] = { dtText, msText };
    LogCounter log = { 0 };
    cnWorldId world = LoadScene( options->scene, NULL, 0, overrides, 2, &log, NULL );
    if ( CN_IS_NULL( world ) )
    {
        return false;
    }
    if ( run->multisphere > 0 && cnWorld_SetSolverParam( world, "levels", 0.0 ) != cn_statusOk )
    {
        Fail( "%s: cannot set levels = 0 (is the scene's solver relcp?)", run->label );
        cnDestroyWorld( world );
        return false;
    }
    cnBodyId upper = cnWorld_FindBody( world, "upper" );
    if ( CN_IS_NULL( upper ) )
    {
        Fail( "%s: the scene has no body named 'upper'", options->scene );
        cnDestroyWorld( world );
        return false;
    }

    long long total = every * (long long)( run->samples - 1 );
    double previous = 0.0;
    double start = CpuSeconds();
    for ( long long step = 0; step <= total; ++step )
    {
        if ( step > 0 )
        {
            if ( cnWorld_Step( world, run->dt ) != cn_statusOk )
            {
                Fail( "%s: step %lld failed", run->label, step );
                break;
            }
            cnStepReport report = cnWorld_GetStepReport( world );
            double t = (double)step * run->dt;
            if ( report.contactCount > 0 )
            {
                if ( isnan( run->contactStart ) )
                {
                    run->contactStart = t;
                }
                run->contactEnd = t;
            }
            if ( report.contactRecursions > 0 )
            {
                run->multiLevelSteps += 1;
            }
            run->mostLevels =
                report.contactRecursions > run->mostLevels ? report.contactRecursions : run->mostLevels;
            if ( isfinite( report.recursionOverlap ) )
            {
                run->deepestLeft = fmax( run->deepestLeft, report.recursionOverlap );
            }
            run->warningSteps += report.warnings != 0 ? 1 : 0;
            run->steps += 1;
        }
        if ( step % every == 0 )
        {
            int k = (int)( step / every );
            cnTransform pose = cnBody_GetTransform( upper );
            cnVec3 axis = cnRotate( pose.q, cnMakeVec3( 1.0, 0.0, 0.0 ) );
            double a = atan2( axis.y, axis.x );
            // unwrap: continue from the previous sample
            a = k == 0 ? a : previous + remainder( a - previous, 2.0 * CN_PI );
            previous = a;
            run->x[k] = pose.p.x;
            run->y[k] = pose.p.y;
            run->angle[k] = a;
            if ( !isfinite( pose.p.x ) || !isfinite( pose.p.y ) || !isfinite( a ) )
            {
                Fail( "%s: non-finite pose at t = %g", run->label, (double)step * run->dt );
                break;
            }
        }
    }
    run->cpuSeconds = CpuSeconds() - start;
    cnDestroyWorld( world );
    run->ok = run->steps == total;
    fprintf( stderr, "  %-28s %lld steps, %.1f s CPU, contact %.2f .. %.2f, %lld steps recursed\n",
             run->label, run->steps, run->cpuSeconds, run->contactStart, run->contactEnd,
             run->multiLevelSteps );
    return run->ok;
}

static void FreeEllipsoidRun( EllipsoidRun* run )
{
    free( run->x );
    free( run->y );
    free( run->angle );
}

// root mean square of a - b over the samples
static double RmsError( const double* a, const double* b, int n )
{
    double sum = 0.0;
    for ( int i = 0; i < n; ++i )
    {
        sum += ( a[i] - b[i] ) * ( a[i] - b[i] );
    }
    return n > 0 ? sqrt( sum / (double)n ) : (double)NAN;
}

static double MaxError( const double* a, const double* b, int n )
{
    double worst = 0.0;
    for ( int i = 0; i < n; ++i )
    {
        worst = fmax( worst, fabs( a[i] - b[i] ) );
    }
    return worst;
}

// the paper's Table 1 (x, y, angle) for a relcp time step or an MS sphere count; false if absent
static bool PaperTable1( double dt, int spheres, double out[3] )
{
    static const double dtRows[4][4] = { { 1e-1, 2.4530, 1.0111, 0.1078 },
                                         { 1e-2, 0.0256, 0.0243, 0.0041 },
                                         { 1e-3, 0.0048, 0.0044, 0.0006 },
                                         { 1e-4, 0.0026, 0.0024, 0.0003 } };
    static const double msRows[6][4] = { { 3, 2.1326, 0.2473, 1.2034 },  { 7, 0.2086, 0.1361, 0.0145 },
                                         { 13, 0.0574, 0.0422, 0.0044 }, { 17, 0.0309, 0.0230, 0.0023 },
                                         { 23, 0.0120, 0.0087, 0.0008 }, { 27, 0.0103, 0.0077, 0.0007 } };
    if ( spheres > 0 )
    {
        for ( int i = 0; i < 6; ++i )
        {
            if ( (int)msRows[i][0] == spheres )
            {
                memcpy( out, &msRows[i][1], 3 * sizeof( double ) );
                return true;
            }
        }
        return false;
    }
    for ( int i = 0; i < 4; ++i )
    {
        if ( fabs( dtRows[i][0] - dt ) < 1.0e-3 * dt )
        {
            memcpy( out, &dtRows[i][1], 3 * sizeof( double ) );
            return true;
        }
    }
    if ( fabs( dt - 1e-5 ) < 1e-8 )
    {
        out[0] = out[1] = out[2] = 0.0; // the paper's reference
        return true;
    }
    return false;
}

static void EllipsoidRow( Report* report, const char* study, const EllipsoidRun* run,
                          const EllipsoidRun* ref )
{
    int n = run->samples < ref->samples ? run->samples : ref->samples;
    double paper[3] = { 0.0, 0.0, 0.0 };
    // the reference row: the paper's reference (zeros) whatever its dt
    bool hasPaper = run == ref || PaperTable1( run->dt, run->multisphere, paper );
    char paperText[64] = "-";
    if ( hasPaper )
    {
        snprintf( paperText, sizeof( paperText ), "%.4f / %.4f / %.4f", paper[0], paper[1], paper[2] );
    }
    double turn = run->angle[run->samples - 1] - run->angle[0];
    Say( report,
         "| %s | %s | %g | %.4g | %.4g | %.4g | %.3g | %.3g | %+.3f | %s | %lld | %lld | %d | %.2g | %d | "
         "%.1f |\n",
         study, run->label, run->dt, RmsError( run->x, ref->x, n ), RmsError( run->y, ref->y, n ),
         RmsError( run->angle, ref->angle, n ), MaxError( run->x, ref->x, n ),
         MaxError( run->angle, ref->angle, n ), turn, paperText, run->steps, run->multiLevelSteps,
         run->mostLevels, run->deepestLeft, run->warningSteps, run->cpuSeconds );
}

static int TwoEllipsoids( const EllipsoidOptions* options, const char* outDir, const char* plotDir )
{
    fprintf( stderr, "two_ellipsoids: %s, t_end %g, reference dt %g\n", options->scene, options->tEnd,
             options->referenceDt );
    double wallStart = CpuSeconds();
    EllipsoidRun ref = { 0 };
    snprintf( ref.label, sizeof( ref.label ), "reference dt=%g", options->referenceDt );
    ref.dt = options->referenceDt;
    if ( RunEllipsoids( options, &ref ) == false )
    {
        FreeEllipsoidRun( &ref );
        return 1;
    }
    int runCount = options->dtCount + options->sphereCount;
    EllipsoidRun* runs = Calloc( (size_t)runCount, sizeof( EllipsoidRun ) );
    for ( int i = 0; i < options->dtCount; ++i )
    {
        runs[i].dt = options->dts[i];
        snprintf( runs[i].label, sizeof( runs[i].label ), "dt=%g", runs[i].dt );
        RunEllipsoids( options, &runs[i] );
    }
    for ( int i = 0; i < options->sphereCount; ++i )
    {
        EllipsoidRun* run = &runs[options->dtCount + i];
        run->dt = options->msDt;
        run->multisphere = (int)options->spheres[i];
        snprintf( run->label, sizeof( run->label ), "%d sub-spheres", run->multisphere );
        RunEllipsoids( options, run );
    }
    double cpuAll = CpuSeconds() - wallStart;

    Report report = { 0 };
    OpenReport( &report, outDir, "two_ellipsoids" );
    Say( &report, "# ReLCP: two contacting ellipsoids (paper section 7.1, Table 1)\n\n" );
    Say( &report,
         "`cairn_bench_relcp two_ellipsoids` on `%s`: two ellipsoids of semi-axes 2, 1, 1 m, major axes in "
         "the x-y plane along (1, 1)/sqrt 2, centres 1 m apart in x, a unit force pushing the upper one "
         "down and the lower one up; overdamped, viscosity (xi) 1, frictionless, no gravity. Each moves at "
         "F/(xi l) = 0.25 m/s alone (l = 4 m). They start 3.5 m apart in y (the paper: about 53 m), so "
         "contact starts at t = %.2f s here instead of t = 100 s: **add 99 s to compare times with the "
         "paper's figure**. The run ends at t = %g s. Trajectory: the upper body's centre x, y and the angle "
         "of its major axis in the x-y plane (unwrapped), sampled every %g s (%d common output times).\n\n",
         BaseName( options->scene ), ref.contactStart, options->tEnd, options->outputDt, ref.samples );
    Say( &report,
         "Reference: relcp (BBPGD inside, its defaults: tolerance 1e-6, overlap tolerance 1e-5 m, 50 levels) "
         "at dt = %g s (the paper: 1e-5 s). Contact points (within the engine's 0.02 m speculative margin) "
         "exist from t = %.2f to %.2f s in the reference (the paper: about 100 to 400, i.e. about 300 s of "
         "contact against %.1f s here). The multisphere (LCP-MS) rows run the single-constraint LCP "
         "(`relcp` with `levels` = 0, the same BBPGD inside) on `world.multisphere` = N at dt = %g s.\n\n",
         ref.dt, ref.contactStart, ref.contactEnd, ref.contactEnd - ref.contactStart, options->msDt );
    Say( &report,
         "Errors: the root mean square of (run - reference) over the common output times (the paper does not "
         "give its L2 normalisation; multiply by sqrt(%d) = %.1f for the plain discrete L2 norm), x and y in "
         "m, "
         "the angle in rad; the largest absolute x and angle errors; the rotation of the upper body over the "
         "run (reference: %+.3f rad). `recursed steps`: steps in which the recursion added rows (more than "
         "one level); `deepest left`: the largest overlap the recursion left at an accepted pose (the step "
         "report's `recursionOverlap`), m; `warning steps`: steps whose report had any warning bit (the "
         "engine's log names them).\n\n",
         ref.samples, sqrt( (double)ref.samples ), ref.angle[ref.samples - 1] - ref.angle[0] );
    Say( &report,
         "| study | refinement | dt (s) | x-pos | y-pos | angle | max abs x | max abs angle | rotation "
         "(rad) | paper x / y / angle | steps | recursed steps | most levels | deepest left (m) | warning "
         "steps | CPU s |\n" );
    Say( &report, "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- "
                  "| --- |\n" );
    EllipsoidRow( &report, "ReLCP", &ref, &ref );
    for ( int i = 0; i < runCount; ++i )
    {
        if ( runs[i].ok )
        {
            EllipsoidRow( &report, runs[i].multisphere > 0 ? "LCP-MS" : "ReLCP", &runs[i], &ref );
        }
        else
        {
            Say( &report, "| %s | %s | %g | failed | | | | | | | | | | | | |\n",
                 runs[i].multisphere > 0 ? "LCP-MS" : "ReLCP", runs[i].label, runs[i].dt );
        }
    }
    Say( &report,
         "\nContact interval per run (s, contact points present):\n\n| run | contact from | to |\n| --- | "
         "--- | --- |\n" );
    Say( &report, "| %s | %.4g | %.4g |\n", ref.label, ref.contactStart, ref.contactEnd );
    for ( int i = 0; i < runCount; ++i )
    {
        Say( &report, "| %s%s | %.4g | %.4g |\n", runs[i].multisphere > 0 ? "MS " : "relcp ", runs[i].label,
             runs[i].contactStart, runs[i].contactEnd );
    }
    double refTurn = ref.angle[ref.samples - 1] - ref.angle[0];
    Say( &report, "\nRotation direction against the reference (%+.3f rad):", refTurn );
    for ( int i = 0; i < runCount; ++i )
    {
        if ( runs[i].multisphere > 0 && runs[i].ok )
        {
            double turn = runs[i].angle[runs[i].samples - 1] - runs[i].angle[0];
            Say( &report, " MS-%d %+.3f rad (%s);", runs[i].multisphere, turn,
                 turn * refTurn > 0.0 ? "same way" : "**opposite way**" );
        }
    }
    Say( &report,
         "\n\nCPU time of the whole subcommand: %.0f s. Plots: `docs/images/relcp_two_ellipsoids.svg` "
         "(relcp at each dt) and `docs/images/relcp_two_ellipsoids_ms.svg` (LCP-MS).\n",
         cpuAll );
    CloseReport( &report );

    // plots: x, y and angle against time, one panel each
    for ( int family = 0; family < 2; ++family )
    {
        const char* titles[3] = { "upper body: centre x", "upper body: centre y",
                                  "upper body: major-axis angle" };
        const char* ylabels[3] = { "x (m)", "y (m)", "angle (rad)" };
        cnPlot* panels[3];
        for ( int p = 0; p < 3; ++p )
        {
            char title[128];
            snprintf( title, sizeof( title ), "%s, %s", titles[p],
                      family == 0 ? "relcp at each dt" : "LCP-MS" );
            panels[p] = cnPlot_Create( title, "t (s; the paper's t = this + 99)", ylabels[p], false );
        }
        const EllipsoidRun* list[BENCH_MAX_LIST + 1];
        int count = 0;
        list[count++] = &ref;
        for ( int i = 0; i < runCount; ++i )
        {
            if ( runs[i].ok && ( runs[i].multisphere > 0 ) == ( family == 1 ) && count < CN_PLOT_MAX_SERIES )
            {
                list[count++] = &runs[i];
            }
        }
        for ( int s = 0; s < count; ++s )
        {
            const EllipsoidRun* run = list[s];
            double* t = Calloc( (size_t)run->samples, sizeof( double ) );
            for ( int k = 0; k < run->samples; ++k )
            {
                t[k] = options->outputDt * (double)k;
            }
            cnPlot_AddSeries( panels[0], run->label, t, run->x, run->samples );
            cnPlot_AddSeries( panels[1], run->label, t, run->y, run->samples );
            cnPlot_AddSeries( panels[2], run->label, t, run->angle, run->samples );
            free( t );
        }
        WritePlot( (const cnPlot* const*)panels, 3, plotDir,
                   family == 0 ? "two_ellipsoids" : "two_ellipsoids_ms" );
        for ( int p = 0; p < 3; ++p )
        {
            cnPlot_Destroy( panels[p] );
        }
    }

    for ( int i = 0; i < runCount; ++i )
    {
        FreeEllipsoidRun( &runs[i] );
    }
    free( runs );
    FreeEllipsoidRun( &ref );
    return BenchFailures() > 0 ? 1 : 0;
}

// ---------------------------------------------------------------------------------------------
// chainmail (section 7.4) and the inertial chainmail scenes: several worlds stepped side by side

// One configuration of a scene, stepped in lockstep with the others.
typedef struct ChainRun
{
    const char* label;
    const char* what;
    cnWorldId world;
    RingSet rings;
    LogCounter log;
    bool multisphere;
    int steps;
    // per step
    double* cpuMs;
    double* trueOverlap;   // brute-force scan, after the step
    double* sphereOverlap; // MS sub-spheres (own placement), after the step; NaN without MS
    double* engineOverlap; // the engine's ring-ring contacts of the step (poses before it)
    double* leftOverlap;   // recursionOverlap of the step's report (NaN: no oracle)
    double* levels;
    double* rows;
    double* extentX;
    double* extentY;
    double* kinetic;
    int firstContact; // first step (1-based) with a ring-ring contact; 0: none
    int frictionDropped, overlapLeft, otherWarnings;
    double innerIterations; // relcp's iterations parameter, or the world's iteration limit
    bool failed;
} ChainRun;

static void ChainAlloc( ChainRun* run, int steps )
{
    run->steps = steps;
    double** arrays[] = { &run->cpuMs,       &run->trueOverlap, &run->sphereOverlap, &run->engineOverlap,
                          &run->leftOverlap, &run->levels,      &run->rows,          &run->extentX,
                          &run->extentY,     &run->kinetic };
    for ( size_t i = 0; i < sizeof( arrays ) / sizeof( arrays[0] ); ++i )
    {
        *arrays[i] = Calloc( (size_t)steps + 1, sizeof( double ) );
    }
}

static void ChainFree( ChainRun* run )
{
    free( run->cpuMs );
    free( run->trueOverlap );
    free( run->sphereOverlap );
    free( run->engineOverlap );
    free( run->leftOverlap );
    free( run->levels );
    free( run->rows );
    free( run->extentX );
    free( run->extentY );
    free( run->kinetic );
    RingsFree( &run->rings );
    if ( CN_IS_NON_NULL( run->world ) )
    {
        cnDestroyWorld( run->world );
    }
}

// extent of the dynamic bodies' centres in x and y
static void Extents( cnWorldId world, double* ex, double* ey )
{
    cnBodyArrays arrays = cnWorld_GetBodyArrays( world );
    double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
    for ( int i = 0; i < arrays.count; ++i )
    {
        if ( arrays.types[i] != cn_dynamicBody )
        {
            continue;
        }
        cnVec3 p = arrays.transforms[i].p;
        x0 = fmin( x0, p.x );
        x1 = fmax( x1, p.x );
        y0 = fmin( y0, p.y );
        y1 = fmax( y1, p.y );
    }
    *ex = x1 - x0;
    *ey = y1 - y0;
}

// Steps every run once (timing only cnWorld_Step), then measures each at its new poses (the ring
// scans only every scanEvery steps: NaN at the others).
static void ChainStepAll( ChainRun* runs, int runCount, int step, double dt, int scanEvery,
                          cnContactData** contacts, int* capacity )
{
    for ( int m = 0; m < runCount; ++m )
    {
        ChainRun* run = &runs[m];
        if ( run->failed )
        {
            continue;
        }
        double start = CpuSeconds();
        cnStatus status = cnWorld_Step( run->world, dt );
        run->cpuMs[step] = 1000.0 * ( CpuSeconds() - start );
        if ( status != cn_statusOk )
        {
            Fail( "%s: step %d failed (status %d)", run->label, step, (int)status );
            run->failed = true;
            continue;
        }
        cnStepReport report = cnWorld_GetStepReport( run->world );
        run->levels[step] = report.contactRecursions;
        run->rows[step] = report.recursionRows;
        run->leftOverlap[step] = report.recursionOverlap;
        run->kinetic[step] = report.kineticEnergy;
        run->frictionDropped += ( report.warnings & (uint32_t)cn_warnFrictionDropped ) != 0 ? 1 : 0;
        run->overlapLeft += ( report.warnings & (uint32_t)cn_warnOverlapLeft ) != 0 ? 1 : 0;
        uint32_t others =
            report.warnings & ~( (uint32_t)cn_warnFrictionDropped | (uint32_t)cn_warnOverlapLeft );
        run->otherWarnings += others != 0 ? 1 : 0;

        run->engineOverlap[step] = EngineRingOverlap( run->world, contacts, capacity );
        if ( run->firstContact == 0 && isfinite( run->engineOverlap[step] ) )
        {
            run->firstContact = step;
        }
        Extents( run->world, &run->extentX[step], &run->extentY[step] );
        if ( step % scanEvery != 0 )
        {
            // not measured at this step
            run->trueOverlap[step] = (double)NAN;
            run->sphereOverlap[step] = (double)NAN;
            continue;
        }
        RingsUpdate( &run->rings, run->multisphere );
        run->trueOverlap[step] = RingsWorstOverlap( &run->rings );
        run->sphereOverlap[step] = run->multisphere ? RingsWorstSphereOverlap( &run->rings ) : (double)NAN;
        if ( !isfinite( run->trueOverlap[step] ) && run->rings.count > 1 )
        {
            // no pair near enough to scan is fine (-inf); NaN is not
            if ( isnan( run->trueOverlap[step] ) )
            {
                Fail( "%s: step %d: non-finite ring overlap", run->label, step );
                run->failed = true;
            }
        }
    }
}

// sets up a run: load with overrides; the caller adjusts the solver afterwards
static bool ChainLoad( ChainRun* run, const char* scene, const char* const* overrides, int count, int steps )
{
    ChainAlloc( run, steps );
    run->world = LoadScene( scene, NULL, 0, overrides, count, &run->log, NULL );
    if ( CN_IS_NULL( run->world ) )
    {
        run->failed = true;
        return false;
    }
    run->rings = RingsFind( run->world );
    RingsUpdate( &run->rings, run->multisphere );
    run->trueOverlap[0] = RingsWorstOverlap( &run->rings );
    run->sphereOverlap[0] = run->multisphere ? RingsWorstSphereOverlap( &run->rings ) : (double)NAN;
    run->engineOverlap[0] = (double)NAN;
    run->leftOverlap[0] = (double)NAN;
    Extents( run->world, &run->extentX[0], &run->extentY[0] );
    double iterations = 0.0;
    if ( cnWorld_GetSolverParam( run->world, "iterations", &iterations ) != cn_statusOk )
    {
        iterations = cnWorld_GetDef( run->world ).solver.iterations;
    }
    run->innerIterations = iterations;
    return true;
}

// the largest value of v[from, to] and its index
static double MaxOf( const double* v, int from, int to, int* at )
{
    double worst = -INFINITY;
    *at = -1;
    for ( int i = from; i <= to; ++i )
    {
        if ( v[i] > worst )
        {
            worst = v[i];
            *at = i;
        }
    }
    return worst;
}

static double MeanOf( const double* v, int from, int to )
{
    double sum = 0.0;
    int n = 0;
    for ( int i = from; i <= to; ++i )
    {
        if ( isfinite( v[i] ) )
        {
            sum += v[i];
            n += 1;
        }
    }
    return n > 0 ? sum / (double)n : (double)NAN;
}

static int CountAbove( const double* v, int from, int to, double limit )
{
    int n = 0;
    for ( int i = from; i <= to; ++i )
    {
        n += v[i] > limit ? 1 : 0;
    }
    return n;
}

// a series for a log plot: values below the floor (and no overlap) drawn at the floor; steps that
// were not measured (NaN) are left out
static void AddFloored( cnPlot* plot, const char* name, const double* t, const double* v, int n )
{
    double* x = Calloc( (size_t)n, sizeof( double ) );
    double* y = Calloc( (size_t)n, sizeof( double ) );
    int kept = 0;
    for ( int i = 0; i < n; ++i )
    {
        if ( !isnan( v[i] ) )
        {
            x[kept] = t[i];
            y[kept++] = fmax( v[i], PLOT_FLOOR );
        }
    }
    cnPlot_AddSeries( plot, name, x, y, kept );
    free( x );
    free( y );
}

typedef struct ChainOptions
{
    const char* scene;
    int steps;
    int rows, columns; // 0: the scene's
    double strength;   // NaN: the scene's
    double dt;         // 0: the scene's
    int scanEvery;     // scan the rings after every this many steps
    const char* tag;   // NULL, or a suffix of the output names
} ChainOptions;

static int Chainmail( const ChainOptions* options, const char* outDir, const char* plotDir )
{
    char rowsText[64], columnsText[64], strengthText[64];
    const char* overrides[BENCH_MAX_OVERRIDES];
    int count = 0;
    if ( options->rows > 0 )
    {
        snprintf( rowsText, sizeof( rowsText ), "generators[0].rows=%d", options->rows );
        overrides[count++] = rowsText;
    }
    if ( options->columns > 0 )
    {
        snprintf( columnsText, sizeof( columnsText ), "generators[0].columns=%d", options->columns );
        overrides[count++] = columnsText;
    }
    if ( !isnan( options->strength ) )
    {
        snprintf( strengthText, sizeof( strengthText ), "systems.extensile_field.strength=%.17g",
                  options->strength );
        overrides[count++] = strengthText;
    }
    char dtText[64];
    if ( options->dt > 0.0 )
    {
        snprintf( dtText, sizeof( dtText ), "world.dt=%.17g", options->dt );
        overrides[count++] = dtText;
    }
    int base = count;
    overrides[count] = "world.multisphere=32";
    char name[96], extentName[112];
    snprintf( name, sizeof( name ), "chainmail%s%s", options->tag != NULL ? "_" : "",
              options->tag != NULL ? options->tag : "" );
    snprintf( extentName, sizeof( extentName ), "%s_extent", name );

    enum
    {
        methodCount = 3
    };
    ChainRun runs[methodCount];
    memset( runs, 0, sizeof( runs ) );
    runs[0].label = "relcp";
    runs[0].what = "the scene's solver: relcp, PGS inside, 50 levels, overlap tolerance 1e-5 m";
    runs[1].label = "LCP";
    runs[1].what = "the single-constraint LCP: relcp with levels = 0";
    runs[2].label = "MS-32";
    runs[2].what = "world.multisphere = 32, relcp with levels = 0 (one LCP over the sub-sphere pairs)";
    runs[2].multisphere = true;
    fprintf( stderr, "chainmail: %s, %d steps\n", options->scene, options->steps );
    for ( int m = 0; m < methodCount; ++m )
    {
        if ( ChainLoad( &runs[m], options->scene, overrides, m == 2 ? base + 1 : base, options->steps ) &&
             m > 0 && cnWorld_SetSolverParam( runs[m].world, "levels", 0.0 ) != cn_statusOk )
        {
            Fail( "%s: cannot set levels = 0 (is the scene's solver relcp?)", runs[m].label );
            runs[m].failed = true;
        }
    }
    if ( runs[0].failed || runs[1].failed || runs[2].failed )
    {
        for ( int m = 0; m < methodCount; ++m )
        {
            ChainFree( &runs[m] );
        }
        return 1;
    }
    double dt = cnWorld_GetDef( runs[0].world ).timeStep;
    cnContactData* contacts = NULL;
    int capacity = 0;
    double start = CpuSeconds();
    for ( int step = 1; step <= options->steps; ++step )
    {
        ChainStepAll( runs, methodCount, step, dt, options->scanEvery, &contacts, &capacity );
        if ( step % 100 == 0 )
        {
            fprintf( stderr, "  step %d: true overlap relcp %.3g, LCP %.3g, MS-32 %.3g (sub-spheres %.3g)\n",
                     step, runs[0].trueOverlap[step], runs[1].trueOverlap[step], runs[2].trueOverlap[step],
                     runs[2].sphereOverlap[step] );
        }
    }
    double cpuAll = CpuSeconds() - start;
    free( contacts );
    int n = options->steps;

    Report report = { 0 };
    OpenReport( &report, outDir, name );
    Say( &report, "# ReLCP: taut chainmail (paper section 7.4)\n\n" );
    Say(
        &report,
        "`cairn_bench_relcp chainmail --steps %d` on `%s`%s%s: %d rings (torus R = %g m, r = %g m) in a "
        "4-in-1 weave, overdamped (viscosity 1), no gravity, pulled by the extensile field, dt = %g s "
        "(the paper: 1e-3 s; the scene's 1e-2 s keeps the run affordable, and is further outside the linear "
        "regime, which is harder for the single-constraint LCP and for relcp). The three runs are stepped "
        "side by side in one process (one step of each in turn). After every step the deepest TRUE ring-ring "
        "overlap is found by a brute-force scan of the core circles (%d samples of one circle, every local "
        "minimum refined by golden section, all pairs with centres within R_a + R_b + r_a + r_b = 2.2 m; "
        "the overlap is 2r minus the circles' distance), independent of the engine's narrowphase.\n\n",
        n, BaseName( options->scene ), count > 0 ? " with " : "", count > 0 ? "overrides" : "",
        runs[0].rings.count, runs[0].rings.count > 0 ? runs[0].rings.rings[0].torus.majorRadius : 0.0,
        runs[0].rings.count > 0 ? runs[0].rings.rings[0].torus.minorRadius : 0.0, dt, RING_SCAN_SAMPLES );
    for ( int i = 0; i < count; ++i )
    {
        Say( &report, "- override `%s`\n", overrides[i] );
    }
    if ( options->scanEvery > 1 )
    {
        Say(
            &report,
            "- the ring scans ran after every %d-th step only (`--scan-every`): the overlap columns and step "
            "counts cover those steps\n",
            options->scanEvery );
    }
    for ( int m = 0; m < methodCount; ++m )
    {
        Say( &report, "- **%s**: %s (inner iterations per level: %g)\n", runs[m].label, runs[m].what,
             runs[m].innerIterations );
    }
    Say( &report,
         "\nMS-32 has two more measures: `sub-sphere (own)`, the deepest overlap of two rings' sub-spheres "
         "(32 spheres of radius r on each core circle, the engine's placement) at the poses after the step, "
         "and `engine contacts`, the deepest penetration among the engine's ring-ring contact points of the "
         "step (sub-sphere pairs in MS; computed at the poses the step started from). CPU: process CPU time "
         "of `cnWorld_Step` only (the scans are not timed). `taut` = from the first step with a ring-ring "
         "contact.\n\n" );

    Say( &report,
         "| method | first contact step | CPU ms/step (all) | CPU ms/step (taut) | worst true overlap (m) | "
         "at step | steps > 1e-5 | steps > 0.1 | median true overlap, last quarter | worst sub-sphere "
         "(own) | worst engine contacts | mean levels (taut) | mean added rows (taut) | deepest left "
         "(engine) | steps overlap_left |\n" );
    Say( &report,
         "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n" );
    for ( int m = 0; m < methodCount; ++m )
    {
        ChainRun* run = &runs[m];
        int taut = run->firstContact > 0 ? run->firstContact : 1;
        int at = 0, atSphere = 0, atEngine = 0;
        double worst = MaxOf( run->trueOverlap, 1, n, &at );
        double worstSphere = run->multisphere ? MaxOf( run->sphereOverlap, 1, n, &atSphere ) : (double)NAN;
        double worstEngine = MaxOf( run->engineOverlap, 1, n, &atEngine );
        double left = -INFINITY;
        for ( int i = 1; i <= n; ++i )
        {
            left = isfinite( run->leftOverlap[i] ) ? fmax( left, run->leftOverlap[i] ) : left;
        }
        Say( &report,
             "| %s | %d | %.3f | %.3f | %.3g | %d | %d | %d | %.3g | %.3g | %.3g | %.2f | %.1f | %.3g | %d "
             "|\n",
             run->label, run->firstContact, MeanOf( run->cpuMs, 1, n ), MeanOf( run->cpuMs, taut, n ), worst,
             at, CountAbove( run->trueOverlap, 1, n, RELCP_TOLERANCE ),
             CountAbove( run->trueOverlap, 1, n, 0.1 ), Median( run->trueOverlap, n - n / 4, n + 1 ),
             worstSphere, worstEngine, MeanOf( run->levels, taut, n ), MeanOf( run->rows, taut, n ), left,
             run->overlapLeft );
    }

    // verdicts against the paper's claims
    ChainRun* relcp = &runs[0];
    ChainRun* lcp = &runs[1];
    ChainRun* ms = &runs[2];
    int at = 0;
    double relcpWorst = MaxOf( relcp->trueOverlap, 1, n, &at );
    Say( &report, "\nAgainst the paper:\n\n" );
    Say( &report,
         "- relcp at or below 1e-5 m at every step: **%s** (worst true overlap %.4g m at step %d; %d steps "
         "above 1e-5, %d above 1.1e-5)\n",
         CountAbove( relcp->trueOverlap, 1, n, RELCP_TOLERANCE ) == 0 ? "yes" : "no", relcpWorst, at,
         CountAbove( relcp->trueOverlap, 1, n, RELCP_TOLERANCE ),
         CountAbove( relcp->trueOverlap, 1, n, 1.1e-5 ) );
    double lcpWorst = MaxOf( lcp->trueOverlap, 1, n, &at );
    Say( &report,
         "- single-constraint LCP: worst %.4g m at step %d, %d steps above 0.1 m (the paper: spikes above "
         "0.1), median over the last quarter %.4g m (the paper: a plateau near 0.01)\n",
         lcpWorst, at, CountAbove( lcp->trueOverlap, 1, n, 0.1 ),
         Median( lcp->trueOverlap, n - n / 4, n + 1 ) );
    double msWorst = MaxOf( ms->trueOverlap, 1, n, &at );
    int atSub = 0;
    double msSub = MaxOf( ms->sphereOverlap, 1, n, &atSub );
    Say( &report,
         "- MS-32: worst true overlap %.4g m at step %d, median over the last quarter %.4g m (the paper: "
         "about "
         "0.06); worst sub-sphere overlap %.3g m at step %d (the paper: below 1e-5)\n",
         msWorst, at, Median( ms->trueOverlap, n - n / 4, n + 1 ), msSub, atSub );

    // extents over time
    Say( &report,
         "\nSheet extent (spread of the ring centres, m) in x (across the columns) and y (along them), "
         "every %d steps:\n\n",
         n >= 20 ? n / 20 : 1 );
    Say( &report,
         "| step | t (s) | relcp x | relcp y | LCP x | LCP y | MS-32 x | MS-32 y |\n| --- | --- | --- | --- "
         "| --- | --- | --- | --- |\n" );
    int every = n >= 20 ? n / 20 : 1;
    for ( int i = 0; i <= n; i += every )
    {
        Say( &report, "| %d | %.2f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f |\n", i, dt * (double)i,
             relcp->extentX[i], relcp->extentY[i], lcp->extentX[i], lcp->extentY[i], ms->extentX[i],
             ms->extentY[i] );
    }
    for ( int m = 0; m < methodCount; ++m )
    {
        int atX = 0, atY = 0;
        double mx = MaxOf( runs[m].extentX, 0, n, &atX );
        double my = MaxOf( runs[m].extentY, 0, n, &atY );
        Say( &report,
             "\n- %s: x extent %.3f -> largest %.3f (step %d) -> %.3f at the end; y extent %.3f -> largest "
             "%.3f "
             "(step %d) -> %.3f at the end",
             runs[m].label, runs[m].extentX[0], mx, atX, runs[m].extentX[n], runs[m].extentY[0], my, atY,
             runs[m].extentY[n] );
    }
    Say( &report,
         "\n\nCPU time of the whole subcommand (stepping and scans): %.0f s. Plots: "
         "`docs/images/relcp_%s.svg` "
         "(overlap), `docs/images/relcp_%s.svg`.\n",
         cpuAll, name, extentName );
    CloseReport( &report );

    // plots
    double* t = Calloc( (size_t)n + 1, sizeof( double ) );
    for ( int i = 0; i <= n; ++i )
    {
        t[i] = dt * (double)i;
    }
    char title[160];
    snprintf( title, sizeof( title ),
              "chainmail %d rings: deepest overlap after each step (below 1e-8 drawn at 1e-8)",
              relcp->rings.count );
    cnPlot* plot = cnPlot_Create( title, "t (s)", "max overlap (m)", true );
    AddFloored( plot, "relcp, true", t + 1, relcp->trueOverlap + 1, n );
    AddFloored( plot, "LCP, true", t + 1, lcp->trueOverlap + 1, n );
    AddFloored( plot, "MS-32, true", t + 1, ms->trueOverlap + 1, n );
    AddFloored( plot, "MS-32, sub-spheres", t + 1, ms->sphereOverlap + 1, n );
    cnPlot_AddHLine( plot, RELCP_TOLERANCE, "tolerance 1e-5 m" );
    cnPlot_AddHLine( plot, 0.1, "minor radius 0.1 m" );
    cnPlot_SetYRange( plot, PLOT_FLOOR, 1.0 );
    const cnPlot* one[1] = { plot };
    WritePlot( one, 1, plotDir, name );
    cnPlot_Destroy( plot );

    cnPlot* extent = cnPlot_Create( "chainmail: spread of the ring centres", "t (s)", "extent (m)", false );
    cnPlot_AddSeries( extent, "relcp, x", t, relcp->extentX, n + 1 );
    cnPlot_AddSeries( extent, "relcp, y", t, relcp->extentY, n + 1 );
    cnPlot_AddSeries( extent, "LCP, x", t, lcp->extentX, n + 1 );
    cnPlot_AddSeries( extent, "LCP, y", t, lcp->extentY, n + 1 );
    cnPlot_AddSeries( extent, "MS-32, x", t, ms->extentX, n + 1 );
    cnPlot_AddSeries( extent, "MS-32, y", t, ms->extentY, n + 1 );
    one[0] = extent;
    WritePlot( one, 1, plotDir, extentName );
    cnPlot_Destroy( extent );
    free( t );

    for ( int m = 0; m < methodCount; ++m )
    {
        ChainFree( &runs[m] );
    }
    return BenchFailures() > 0 ? 1 : 0;
}

// ---------------------------------------------------------------------------------------------
// inertial_chainmail

static int InertialChainmail( const char* const* scenes, int sceneCount, int steps, const char* outDir,
                              const char* plotDir )
{
    Report report = { 0 };
    OpenReport( &report, outDir, "inertial_chainmail" );
    Say( &report, "# ReLCP on the inertial chainmail scenes\n\n" );
    Say(
        &report,
        "`cairn_bench_relcp inertial_chainmail --steps %d`. Per scene three configurations, stepped side by "
        "side in one process (one step of each in turn, so that a drift in the machine's speed hits all "
        "three alike): (a) the scene's pgs with `world.contact_recursions` = 0 (the soft contact: the scenes "
        "as shipped); (b) `relcp` with `inner` = pgs and no world recursion, set like `cairn run --solver "
        "relcp --param inner=pgs` (the scene's iteration limit becomes relcp's per-level budget); relcp "
        "takes no friction rows, so the world drops the friction and says `friction_dropped`; (c) pgs with "
        "`world.contact_recursions` = 8 (the world's recursion around its solver, which keeps friction). "
        "After every step the deepest TRUE ring-ring overlap is found by the brute-force scan of the core "
        "circles (the torus radii read from the scene's shapes; pairs with centres within R_a + R_b + r_a + "
        "r_b). CPU: process CPU time of `cnWorld_Step` only. The goal stated by the project: worst true "
        "overlap <= 1e-4 m at no more than twice the cost per step of (a).\n\n",
        steps );
    Say( &report,
         "| scene | config | inner iterations | CPU ms/step | x (a) | worst true overlap (m) | at step | "
         "steps > 1e-4 | median true overlap | mean levels | steps friction_dropped | steps overlap_left "
         "| steps other warnings | largest KE (J) | final KE (J) | goal met |\n" );
    Say( &report, "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- "
                  "| --- |\n" );

    cnPlot* plots[BENCH_MAX_SCENES];
    int plotCount = 0;
    for ( int s = 0; s < sceneCount; ++s )
    {
        enum
        {
            configCount = 3
        };
        ChainRun runs[configCount];
        memset( runs, 0, sizeof( runs ) );
        runs[0].label = "(a) pgs, soft contact";
        runs[1].label = "(b) relcp inner pgs";
        runs[2].label = "(c) pgs + contact_recursions 8";
        const char* recursions[1] = { "world.contact_recursions=8" };
        const char* soft[1] = { "world.contact_recursions=0" };
        fprintf( stderr, "inertial_chainmail: %s, %d steps\n", scenes[s], steps );
        bool ok = ChainLoad( &runs[0], scenes[s], soft, 1, steps );
        ok = ChainLoad( &runs[1], scenes[s], soft, 1, steps ) && ok;
        ok = ChainLoad( &runs[2], scenes[s], recursions, 1, steps ) && ok;
        if ( ok )
        {
            // as cairn run --solver relcp: keep the scene's iteration limit and tolerance
            cnWorldDef def = cnWorld_GetDef( runs[1].world );
            cnSolverSettings settings = def.solver;
            snprintf( settings.name, sizeof( settings.name ), "relcp" );
            const cnSolverVTable* relcp = cnFindSolver( "relcp" );
            int inner = relcp != NULL ? cnFindSolverParam( relcp, "inner" ) : -1;
            double pgs = 0.0;
            if ( cnWorld_SetSolverSettings( runs[1].world, &settings ) != cn_statusOk || inner < 0 ||
                 cnParseSolverParam( &relcp->params[inner], "pgs", &pgs, NULL, 0 ) != cn_statusOk ||
                 cnWorld_SetSolverParam( runs[1].world, "inner", pgs ) != cn_statusOk )
            {
                Fail( "%s: cannot switch to relcp with inner pgs", scenes[s] );
                ok = false;
            }
            cnWorld_GetSolverParam( runs[1].world, "iterations", &runs[1].innerIterations );
        }
        if ( ok == false )
        {
            for ( int m = 0; m < configCount; ++m )
            {
                ChainFree( &runs[m] );
            }
            continue;
        }
        double dt = cnWorld_GetDef( runs[0].world ).timeStep;
        cnContactData* contacts = NULL;
        int capacity = 0;
        for ( int step = 1; step <= steps; ++step )
        {
            ChainStepAll( runs, configCount, step, dt, 1, &contacts, &capacity );
            if ( step % 100 == 0 )
            {
                fprintf( stderr, "  step %d: true overlap %.3g / %.3g / %.3g, cpu ms %.1f / %.1f / %.1f\n",
                         step, runs[0].trueOverlap[step], runs[1].trueOverlap[step],
                         runs[2].trueOverlap[step], runs[0].cpuMs[step], runs[1].cpuMs[step],
                         runs[2].cpuMs[step] );
            }
        }
        free( contacts );
        double baseCost = MeanOf( runs[0].cpuMs, 1, steps );
        for ( int m = 0; m < configCount; ++m )
        {
            ChainRun* run = &runs[m];
            int at = 0, atKe = 0;
            double worst = MaxOf( run->trueOverlap, 1, steps, &at );
            double cost = MeanOf( run->cpuMs, 1, steps );
            double ke = MaxOf( run->kinetic, 1, steps, &atKe );
            bool goal = worst <= 1.0e-4 && cost <= 2.0 * baseCost && run->failed == false;
            Say( &report,
                 "| %s | %s | %g | %.2f | %.2f | %.3g | %d | %d | %.3g | %.2f | %d | %d | %d | %.4g | %.4g | "
                 "%s |\n",
                 BaseName( scenes[s] ), run->label, run->innerIterations, cost, cost / baseCost, worst, at,
                 CountAbove( run->trueOverlap, 1, steps, 1.0e-4 ), Median( run->trueOverlap, 1, steps + 1 ),
                 MeanOf( run->levels, 1, steps ), run->frictionDropped, run->overlapLeft, run->otherWarnings,
                 ke, run->kinetic[steps], goal ? "yes" : "no" );
        }
        if ( plotCount < BENCH_MAX_SCENES )
        {
            char title[160];
            snprintf( title, sizeof( title ), "%s: deepest true ring-ring overlap (below 1e-8 drawn at 1e-8)",
                      BaseName( scenes[s] ) );
            cnPlot* plot = cnPlot_Create( title, "t (s)", "max overlap (m)", true );
            double* t = Calloc( (size_t)steps + 1, sizeof( double ) );
            for ( int i = 0; i <= steps; ++i )
            {
                t[i] = dt * (double)i;
            }
            for ( int m = 0; m < configCount; ++m )
            {
                AddFloored( plot, runs[m].label, t + 1, runs[m].trueOverlap + 1, steps );
            }
            cnPlot_AddHLine( plot, 1.0e-4, "goal 1e-4 m" );
            cnPlot_SetYRange( plot, PLOT_FLOOR, 1.0 );
            plots[plotCount++] = plot;
            free( t );
        }
        for ( int m = 0; m < configCount; ++m )
        {
            ChainFree( &runs[m] );
        }
    }
    Say( &report,
         "\n`x (a)`: CPU per step over that of (a) in the same run. `median true overlap`: over all steps "
         "(negative: the closest pair is apart). KE: kinetic energy from the step report. The goal column "
         "applies the project's goal as stated (worst <= 1e-4 m and at most 2 x (a)'s cost). Plot: "
         "`docs/images/relcp_inertial_chainmail.svg`.\n" );
    CloseReport( &report );
    if ( plotCount > 0 )
    {
        WritePlot( (const cnPlot* const*)plots, plotCount, plotDir, "inertial_chainmail" );
    }
    for ( int i = 0; i < plotCount; ++i )
    {
        cnPlot_Destroy( plots[i] );
    }
    return BenchFailures() > 0 ? 1 : 0;
}

// ---------------------------------------------------------------------------------------------

static void Usage( void )
{
    fputs( "usage: cairn_bench_relcp two_ellipsoids [--reference-dt X] [--dts A,B,..] [--ms N,N,..|none]\n"
           "                         [--ms-dt X] [--t-end T] [--scene FILE] [--out DIR] [--plots DIR]\n"
           "       cairn_bench_relcp chainmail [--steps N] [--rows R] [--columns C] [--strength S] [--dt S]\n"
           "                         [--scan-every K] [--tag NAME] [--scene FILE] [--out DIR] [--plots DIR]\n"
           "       cairn_bench_relcp inertial_chainmail [--steps N] [--scene FILE ...] [--out DIR] [--plots "
           "DIR]\n",
           stderr );
}

int main( int argc, char** argv )
{
    BenchSetup( "cairn_bench_relcp", 3, NULL );
    if ( argc < 2 )
    {
        Usage();
        return 2;
    }
    const char* command = argv[1];
    const char* outDir = CN_SOURCE_DIR "/tests/bench/results/amd_epyc_2vcpu";
    const char* plotDir = CN_SOURCE_DIR "/docs/images";
    const char* scenes[BENCH_MAX_SCENES];
    int sceneCount = 0;
    int steps = 0; // 0: the subcommand's default (chainmail 6000, inertial_chainmail 2000)

    EllipsoidOptions ell = { 0 };
    ell.scene = CN_ASSETS_DIR "/scenes/relcp_two_ellipsoids.json";
    ell.referenceDt = 1.0e-6;
    ell.msDt = 1.0e-5;
    ell.tEnd = 50.0;
    ell.outputDt = 0.1;
    ParseList( "0.1,0.01,0.001,0.0001,0.00001", ell.dts, &ell.dtCount );
    ParseList( "3,7,13,17,23,27", ell.spheres, &ell.sphereCount );

    ChainOptions chain = { 0 };
    chain.scene = CN_ASSETS_DIR "/scenes/chainmail_taut.json";
    chain.strength = (double)NAN;
    chain.scanEvery = 1;

    for ( int i = 2; i < argc; ++i )
    {
        const char* arg = argv[i];
        const char* value = i + 1 < argc ? argv[i + 1] : NULL;
        bool ok = value != NULL;
        if ( strcmp( arg, "--out" ) == 0 && ok )
        {
            outDir = value;
        }
        else if ( strcmp( arg, "--plots" ) == 0 && ok )
        {
            plotDir = value;
        }
        else if ( strcmp( arg, "--scene" ) == 0 && ok )
        {
            ok = sceneCount < BENCH_MAX_SCENES;
            if ( ok )
            {
                scenes[sceneCount++] = value;
            }
        }
        else if ( strcmp( arg, "--steps" ) == 0 && ok )
        {
            steps = atoi( value );
            ok = steps > 0;
        }
        else if ( strcmp( arg, "--reference-dt" ) == 0 && ok )
        {
            ell.referenceDt = atof( value );
            ok = ell.referenceDt > 0.0;
        }
        else if ( strcmp( arg, "--dts" ) == 0 && ok )
        {
            ok = ParseList( value, ell.dts, &ell.dtCount );
        }
        else if ( strcmp( arg, "--ms" ) == 0 && ok )
        {
            ok = strcmp( value, "none" ) == 0 ? ( ell.sphereCount = 0, true )
                                              : ParseList( value, ell.spheres, &ell.sphereCount );
        }
        else if ( strcmp( arg, "--ms-dt" ) == 0 && ok )
        {
            ell.msDt = atof( value );
            ok = ell.msDt > 0.0;
        }
        else if ( strcmp( arg, "--t-end" ) == 0 && ok )
        {
            ell.tEnd = atof( value );
            ok = ell.tEnd > 0.0;
        }
        else if ( strcmp( arg, "--rows" ) == 0 && ok )
        {
            chain.rows = atoi( value );
            ok = chain.rows > 0;
        }
        else if ( strcmp( arg, "--columns" ) == 0 && ok )
        {
            chain.columns = atoi( value );
            ok = chain.columns > 0;
        }
        else if ( strcmp( arg, "--dt" ) == 0 && ok )
        {
            chain.dt = atof( value );
            ok = chain.dt > 0.0;
        }
        else if ( strcmp( arg, "--scan-every" ) == 0 && ok )
        {
            chain.scanEvery = atoi( value );
            ok = chain.scanEvery > 0;
        }
        else if ( strcmp( arg, "--tag" ) == 0 && ok )
        {
            chain.tag = value;
        }
        else if ( strcmp( arg, "--strength" ) == 0 && ok )
        {
            chain.strength = atof( value );
            ok = isfinite( chain.strength );
        }
        else
        {
            ok = false;
        }
        if ( ok == false )
        {
            fprintf( stderr, "cairn_bench_relcp: bad option or value: %s\n", arg );
            Usage();
            return 2;
        }
        i += 1;
    }

    if ( strcmp( command, "two_ellipsoids" ) == 0 )
    {
        if ( sceneCount > 0 )
        {
            ell.scene = scenes[0];
        }
        return TwoEllipsoids( &ell, outDir, plotDir );
    }
    if ( strcmp( command, "chainmail" ) == 0 )
    {
        if ( sceneCount > 0 )
        {
            chain.scene = scenes[0];
        }
        chain.steps = steps > 0 ? steps : 6000;
        return Chainmail( &chain, outDir, plotDir );
    }
    if ( strcmp( command, "inertial_chainmail" ) == 0 )
    {
        if ( sceneCount == 0 )
        {
            scenes[sceneCount++] = CN_ASSETS_DIR "/scenes/chainmail_drape.json";
            scenes[sceneCount++] = CN_ASSETS_DIR "/scenes/chainmail_game.json";
        }
        return InertialChainmail( scenes, sceneCount, steps > 0 ? steps : 2000, outDir, plotDir );
    }
    Usage();
    return 2;
}
