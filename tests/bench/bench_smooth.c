// SPDX-License-Identifier: MIT
// Smooth-surface query benchmark: for every pair type with an ellipsoid, a capsule or a torus,
// N random pairs (seeded; a third separated, a third touching, a third overlapping; random
// positions and rotations, sizes 0.2 to 1.5 m), the median and 90th-percentile wall time per
// query of
// - cold: cnSmoothQuery with no warm start;
// - warm: the same pair after a small rigid motion of B (1e-3 m, 1e-3 rad), warm-started from
//   the contacts of the cold query;
// and, on the convex pairs (no torus, no plane), of libccd on the same pairs with support
// functions written here (ccdGJKIntersect alone, ccdGJKPenetration = GJK + EPA, ccdMPRPenetration)
// and of the engine's generic cnConvexQuery, with the largest disagreement of their separation
// with cnSmoothQuery's over the overlapping pairs. See tests/bench/README.md.
//
// cairn_bench_smooth [--pairs N] [--seed S] [--repeats R] [--ccd-tol T] [--csv FILE] [--quick]
#define _POSIX_C_SOURCE 200809L

#include "ccd_support.h"
#include "hull.h"
#include "smooth.h"

#include <ccd/ccd.h>

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

// speculative margin of the torus queries (the engine's default contactMargin)
#define BENCH_MARGIN 0.02
// the small rigid motion between the cold and the warm query (one step of a moving body)
#define BENCH_STEP_MOVE 1.0e-3
#define BENCH_STEP_TURN 1.0e-3
// |separation| below this counts as touching (neither a libccd miss nor a false hit is a failure)
#define BENCH_TOUCH_TOL 1.0e-6
// slack of the "too deep" check: the GJK reference (cnConvexDistance) can call shapes apart that
// overlap by a few 1e-6 m near contact (curved shapes, e.g. capsule-sphere), so the touching
// distance along the ray is known to about that
#define BENCH_BOUND_TOL 1.0e-5
// support calls one libccd call may make (MPR's portal refinement and EPA have no iteration
// limit of their own); past it the support is NaN and the call counts as a failure
#define BENCH_CCD_BUDGET 4000
// samples around a torus ring for the reference distance, before the golden-section polish
#define BENCH_RING_SAMPLES 48

enum
{
    m_cold,
    m_warm,
    m_gjk,
    m_epa,
    m_mpr,
    m_convex,
    m_methodCount
};

static const char* const s_methodNames[m_methodCount] = { "smooth_cold", "smooth_warm", "ccd_gjk_intersect",
                                                          "ccd_gjk_epa", "ccd_mpr",     "cn_convex_query" };

typedef struct PairSpec
{
    const char* name;
    cnShapeType a; // the smooth shape (ellipsoid, capsule or torus)
    cnShapeType b;
} PairSpec;

static const PairSpec s_pairSpecs[] = {
    { "ellipsoid-sphere", cn_ellipsoidShape, cn_sphereShape },
    { "ellipsoid-box", cn_ellipsoidShape, cn_boxShape },
    { "ellipsoid-capsule", cn_ellipsoidShape, cn_capsuleShape },
    { "ellipsoid-cylinder", cn_ellipsoidShape, cn_cylinderShape },
    { "ellipsoid-ellipsoid", cn_ellipsoidShape, cn_ellipsoidShape },
    { "ellipsoid-hull", cn_ellipsoidShape, cn_hullShape },
    { "ellipsoid-plane", cn_ellipsoidShape, cn_planeShape },
    { "ellipsoid-torus", cn_ellipsoidShape, cn_torusShape },
    { "capsule-sphere", cn_capsuleShape, cn_sphereShape },
    { "capsule-box", cn_capsuleShape, cn_boxShape },
    { "capsule-capsule", cn_capsuleShape, cn_capsuleShape },
    { "capsule-cylinder", cn_capsuleShape, cn_cylinderShape },
    { "capsule-hull", cn_capsuleShape, cn_hullShape },
    { "capsule-plane", cn_capsuleShape, cn_planeShape },
    { "capsule-torus", cn_capsuleShape, cn_torusShape },
    { "torus-sphere", cn_torusShape, cn_sphereShape },
    { "torus-box", cn_torusShape, cn_boxShape },
    { "torus-cylinder", cn_torusShape, cn_cylinderShape },
    { "torus-hull", cn_torusShape, cn_hullShape },
    { "torus-plane", cn_torusShape, cn_planeShape },
    { "torus-torus", cn_torusShape, cn_torusShape },
};
#define BENCH_PAIR_TYPES ( (int)( sizeof( s_pairSpecs ) / sizeof( s_pairSpecs[0] ) ) )

enum
{
    c_separated,
    c_touching,
    c_overlapping
};

// One random pair: A, B, and B after the small motion (B1). The shapes point at the geometries
// here, so a Pair never moves once built.
typedef struct Pair
{
    cnGeometry geometryA;
    cnGeometry geometryB;
    cnHull hullA;
    cnHull hullB;
    cnCollisionShape a;
    cnCollisionShape b;
    cnCollisionShape b1;
    int cls;       // c_separated, c_touching, c_overlapping
    double refSep; // reference separation: exact apart (GJK, closed forms), ~0 touching; < 0 overlapping
    cnSmoothContact cold[CN_MAX_SMOOTH_CONTACTS];
    int coldCount;
} Pair;

typedef struct BenchConfig
{
    int pairs;
    int repeats;
    uint64_t seed;
    double ccdTolerance;
    const char* csvPath;
} BenchConfig;

// one table row
typedef struct Row
{
    const char* pair;
    int method;
    double medianUs;
    double p90Us;
    int queries;
    int failures;
    double maxDiff; // < 0: not applicable
    char note[96];
} Row;

static uint64_t s_rng;
static double s_timerOverhead; // s, subtracted from every timed query
static volatile double s_sink; // keeps results alive

static double Uniform( double lo, double hi )
{
    // splitmix64
    uint64_t z = ( s_rng += 0x9e3779b97f4a7c15ull );
    z = ( z ^ ( z >> 30 ) ) * 0xbf58476d1ce4e5b9ull;
    z = ( z ^ ( z >> 27 ) ) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return lo + ( hi - lo ) * (double)( z >> 11 ) * ( 1.0 / 9007199254740992.0 );
}

static double WallSeconds( void )
{
    struct timespec ts;
    clock_gettime( CLOCK_MONOTONIC, &ts );
    return (double)ts.tv_sec + 1.0e-9 * (double)ts.tv_nsec;
}

static cnVec3 RandomUnit( void )
{
    for ( ;; )
    {
        cnVec3 v = cnMakeVec3( Uniform( -1.0, 1.0 ), Uniform( -1.0, 1.0 ), Uniform( -1.0, 1.0 ) );
        double l2 = cnLengthSquared( v );
        if ( l2 > 1.0e-4 && l2 <= 1.0 )
        {
            return cnScale( 1.0 / sqrt( l2 ), v );
        }
    }
}

// uniform rotation (Shoemake)
static cnQuat RandomRotation( void )
{
    double u1 = Uniform( 0.0, 1.0 ), u2 = Uniform( 0.0, 2.0 * CN_PI ), u3 = Uniform( 0.0, 2.0 * CN_PI );
    double s1 = sqrt( 1.0 - u1 ), s2 = sqrt( u1 );
    return cnNormalizeQuat( cnMakeQuat( s1 * cos( u2 ), s1 * sin( u2 ), s2 * cos( u3 ), s2 * sin( u3 ) ) );
}

// A random shape of `type`, 0.2 to 1.5 m across. Hulls: 8 to 24 points on a random ellipsoid.
static bool RandomGeometry( cnShapeType type, cnGeometry* g, cnHull* hull )
{
    memset( g, 0, sizeof( *g ) );
    memset( hull, 0, sizeof( *hull ) );
    g->type = type;
    switch ( type )
    {
        case cn_sphereShape:
            g->sphere.radius = Uniform( 0.1, 0.75 );
            break;
        case cn_boxShape:
            g->box.halfExtents =
                cnMakeVec3( Uniform( 0.1, 0.75 ), Uniform( 0.1, 0.75 ), Uniform( 0.1, 0.75 ) );
            break;
        case cn_capsuleShape:
            g->capsule.radius = Uniform( 0.1, 0.4 );
            g->capsule.halfLength = Uniform( 0.0, 0.75 - g->capsule.radius );
            break;
        case cn_cylinderShape:
            g->cylinder.radius = Uniform( 0.1, 0.75 );
            g->cylinder.halfLength = Uniform( 0.1, 0.75 );
            break;
        case cn_ellipsoidShape:
            g->ellipsoid.radii =
                cnMakeVec3( Uniform( 0.1, 0.75 ), Uniform( 0.1, 0.75 ), Uniform( 0.1, 0.75 ) );
            break;
        case cn_torusShape:
            g->torus.majorRadius = Uniform( 0.25, 0.6 );
            g->torus.minorRadius = Uniform( 0.1, 0.6 ) * g->torus.majorRadius;
            break;
        case cn_hullShape:
        {
            cnVec3 radii = cnMakeVec3( Uniform( 0.1, 0.75 ), Uniform( 0.1, 0.75 ), Uniform( 0.1, 0.75 ) );
            cnVec3 points[24];
            int count = 8 + (int)Uniform( 0.0, 16.999 );
            for ( int i = 0; i < count; ++i )
            {
                points[i] = cnMulComponents( radii, RandomUnit() );
            }
            if ( cnComputeHull( points, count, NULL, hull, NULL, 0 ) != cn_statusOk )
            {
                return false;
            }
            g->hull.points = hull->vertices;
            g->hull.pointCount = hull->vertexCount;
            break;
        }
        case cn_planeShape:
            g->plane.normal = cnMakeVec3( 0.0, 0.0, 1.0 );
            g->plane.offset = 0.0;
            break;
        default:
            return false;
    }
    return true;
}

static cnVec3 WorldCenter( const cnCollisionShape* s )
{
    return cnTransformPoint( s->transform, cnLocalCenter( s->geometry, s->hull ) );
}

// ---------------------------------------------------------------------------------------------
// Reference separations, independent of smooth.c: GJK for convex pairs, closed forms for planes,
// and a 1-D minimisation around the core circle for tori (a torus is its core circle swept by a
// ball of the minor radius). Exact when apart; when overlapping only the sign is meaningful.

// world point of a torus core circle at angle u
static cnVec3 CorePoint( const cnCollisionShape* torus, double u )
{
    double major = torus->geometry->torus.majorRadius;
    return cnTransformPoint( torus->transform, cnMakeVec3( major * cos( u ), major * sin( u ), 0.0 ) );
}

// distance from a world point to a circle (centre/axis from the torus transform, radius R)
static double PointCircleDistance( const cnCollisionShape* torus, cnVec3 p )
{
    cnVec3 q = cnInvTransformPoint( torus->transform, p );
    double rho = sqrt( q.x * q.x + q.y * q.y );
    double dr = rho - torus->geometry->torus.majorRadius;
    return sqrt( dr * dr + q.z * q.z );
}

// f(u): core point of `torus` at u against `other`, minus the radii that sweep it
static double RingFunction( const cnCollisionShape* torus, const cnCollisionShape* other, double u )
{
    cnVec3 c = CorePoint( torus, u );
    double minor = torus->geometry->torus.minorRadius;
    if ( other->geometry->type == cn_torusShape )
    {
        return PointCircleDistance( other, c ) - minor - other->geometry->torus.minorRadius;
    }
    if ( other->geometry->type == cn_sphereShape )
    {
        return cnLength( cnSub( c, other->transform.p ) ) - minor - other->geometry->sphere.radius;
    }
    // a point: a ball of 1e-9 m, whose radius is added back
    cnGeometry point = { .type = cn_sphereShape, .sphere = { 1.0e-9 } };
    cnCollisionShape ps = { &point, NULL, { c, cn_quatIdentity } };
    cnDistanceResult r = cnConvexDistance( &ps, other );
    return ( r.overlap ? 0.0 : r.distance + 1.0e-9 ) - minor;
}

// min over u of RingFunction: samples, then (unless `coarse`) golden section around the two best
// local minima
static double RingMinimum( const cnCollisionShape* torus, const cnCollisionShape* other, bool coarse )
{
    double f[BENCH_RING_SAMPLES];
    double h = 2.0 * CN_PI / BENCH_RING_SAMPLES;
    for ( int i = 0; i < BENCH_RING_SAMPLES; ++i )
    {
        f[i] = RingFunction( torus, other, h * i );
    }
    int best[2] = { -1, -1 };
    for ( int i = 0; i < BENCH_RING_SAMPLES; ++i )
    {
        double prev = f[( i + BENCH_RING_SAMPLES - 1 ) % BENCH_RING_SAMPLES];
        double next = f[( i + 1 ) % BENCH_RING_SAMPLES];
        if ( f[i] <= prev && f[i] <= next )
        {
            if ( best[0] < 0 || f[i] < f[best[0]] )
            {
                best[1] = best[0];
                best[0] = i;
            }
            else if ( best[1] < 0 || f[i] < f[best[1]] )
            {
                best[1] = i;
            }
        }
    }
    double result = INFINITY;
    for ( int i = 0; i < BENCH_RING_SAMPLES; ++i )
    {
        result = fmin( result, f[i] );
    }
    if ( result < 0.0 || coarse )
    {
        return result; // overlapping: the sign is all that is used
    }
    const double g = 0.5 * ( sqrt( 5.0 ) - 1.0 );
    for ( int k = 0; k < 2 && best[k] >= 0; ++k )
    {
        double lo = h * ( best[k] - 1 ), hi = h * ( best[k] + 1 );
        double x1 = hi - g * ( hi - lo ), x2 = lo + g * ( hi - lo );
        double f1 = RingFunction( torus, other, x1 ), f2 = RingFunction( torus, other, x2 );
        for ( int it = 0; it < 48 && hi - lo > 1.0e-8; ++it )
        {
            if ( f1 < f2 )
            {
                hi = x2, x2 = x1, f2 = f1;
                x1 = hi - g * ( hi - lo );
                f1 = RingFunction( torus, other, x1 );
            }
            else
            {
                lo = x1, x1 = x2, f1 = f2;
                x2 = lo + g * ( hi - lo );
                f2 = RingFunction( torus, other, x2 );
            }
        }
        result = fmin( result, fmin( f1, f2 ) );
    }
    return result;
}

// separation of `shape` above a plane (exact for every type: the support along -normal)
static double PlaneSeparation( const cnCollisionShape* shape, const cnCollisionShape* plane,
                               cnVec3* worldNormal )
{
    cnVec3 n = cnNormalize( cnRotate( plane->transform.q, plane->geometry->plane.normal ) );
    double offset = cnDot( n, plane->transform.p ) + plane->geometry->plane.offset;
    *worldNormal = n;
    return cnDot( n, cnWorldSupport( shape, cnNeg( n ) ) ) - offset;
}

// reference separation of a non-plane pair: > 0 apart (exact), <= 0 touching or overlapping.
// `coarse`: tori from the ring samples only (a sampled overlap is an overlap; a sampled gap may
// hide a shallow overlap)
static double ReferenceSeparation( const cnCollisionShape* a, const cnCollisionShape* b, bool coarse )
{
    if ( a->geometry->type == cn_torusShape )
    {
        return RingMinimum( a, b, coarse );
    }
    if ( b->geometry->type == cn_torusShape )
    {
        return RingMinimum( b, a, coarse );
    }
    cnDistanceResult r = cnConvexDistance( a, b );
    return r.overlap ? -1.0 : r.distance;
}

static double ShapeSize( const cnGeometry* g )
{
    switch ( g->type )
    {
        case cn_sphereShape:
            return g->sphere.radius;
        case cn_boxShape:
            return fmin( g->box.halfExtents.x, fmin( g->box.halfExtents.y, g->box.halfExtents.z ) );
        case cn_capsuleShape:
            return g->capsule.radius;
        case cn_cylinderShape:
            return fmin( g->cylinder.radius, g->cylinder.halfLength );
        case cn_ellipsoidShape:
            return fmin( g->ellipsoid.radii.x, fmin( g->ellipsoid.radii.y, g->ellipsoid.radii.z ) );
        case cn_torusShape:
            return g->torus.minorRadius;
        default:
            return 0.1;
    }
}

// Place B against A for class `cls`: B's centre on a random ray from A's centre, at the touching
// distance found by bisection on the reference (coming in from far away), then moved out or in.
static bool PlacePair( Pair* p, int cls )
{
    p->a.transform.q = RandomRotation();
    p->a.transform.p = cnMakeVec3( Uniform( -1.0, 1.0 ), Uniform( -1.0, 1.0 ), Uniform( -1.0, 1.0 ) );
    p->b.transform.q = RandomRotation();
    double size = fmin( ShapeSize( &p->geometryA ), ShapeSize( &p->geometryB ) );
    double target = cls == c_separated     ? Uniform( 0.02, 0.3 ) * size
                    : cls == c_overlapping ? -Uniform( 0.02, 0.3 ) * size
                                           : 0.0;

    if ( p->geometryB.type == cn_planeShape )
    {
        p->b.transform.p = cnMakeVec3( Uniform( -1.0, 1.0 ), Uniform( -1.0, 1.0 ), Uniform( -1.0, 1.0 ) );
        cnVec3 n;
        double sep = PlaneSeparation( &p->a, &p->b, &n );
        p->a.transform.p = cnMulAdd( p->a.transform.p, target - sep, n );
        p->refSep = PlaneSeparation( &p->a, &p->b, &n );
        return true;
    }

    cnVec3 centerA = WorldCenter( &p->a );
    cnVec3 offsetB = cnRotate( p->b.transform.q, cnLocalCenter( &p->geometryB, p->b.hull ) );
    cnVec3 u = RandomUnit();
    double far = cnLocalBoundingRadius( &p->geometryA, p->a.hull ) +
                 cnLocalBoundingRadius( &p->geometryB, p->b.hull ) + 0.01;
    // B's centre at centreA + t u
#define BENCH_PLACE( t ) ( p->b.transform.p = cnSub( cnMulAdd( centerA, ( t ), u ), offsetB ) )
    double hi = far, lo = -1.0;
    double step = 0.5 * size;
    for ( double t = far - step; t >= 0.0; t -= step )
    {
        BENCH_PLACE( t );
        if ( ReferenceSeparation( &p->a, &p->b, true ) <= 0.0 )
        {
            lo = t;
            break;
        }
        hi = t;
    }
    if ( lo < 0.0 )
    {
        return false; // e.g. a small shape through a torus's hole: try another pair
    }
    for ( int it = 0; it < 60 && hi - lo > 1.0e-12; ++it )
    {
        double mid = 0.5 * ( lo + hi );
        BENCH_PLACE( mid );
        if ( ReferenceSeparation( &p->a, &p->b, false ) <= 0.0 )
        {
            lo = mid;
        }
        else
        {
            hi = mid;
        }
    }
    // separated: out along the ray by the gap (the distance is then checked, not assumed);
    // overlapping: in by the depth (a bound: moving B back out along the ray separates them).
    // Touching: the separated end of the bracket, within 1e-12 m of the contact along the ray
    double t = cls == c_touching ? hi : hi + target;
    BENCH_PLACE( t );
#undef BENCH_PLACE
    double ref = ReferenceSeparation( &p->a, &p->b, false );
    if ( cls == c_separated && ref <= 0.0 )
    {
        return false;
    }
    if ( cls == c_overlapping && ref > 0.0 )
    {
        return false;
    }
    if ( cls == c_touching && !( fabs( ref ) <= BENCH_TOUCH_TOL ) )
    {
        return false;
    }
    p->refSep = cls == c_touching ? 0.0 : cls == c_separated ? ref : target;
    return true;
}

static void FreePair( Pair* p )
{
    cnDestroyHull( &p->hullA, NULL );
    cnDestroyHull( &p->hullB, NULL );
}

static bool MakePair( Pair* p, const PairSpec* spec, int cls )
{
    for ( int attempt = 0; attempt < 100; ++attempt )
    {
        memset( p, 0, sizeof( *p ) );
        if ( !RandomGeometry( spec->a, &p->geometryA, &p->hullA ) ||
             !RandomGeometry( spec->b, &p->geometryB, &p->hullB ) )
        {
            FreePair( p );
            continue;
        }
        p->a.geometry = &p->geometryA;
        p->a.hull = spec->a == cn_hullShape ? &p->hullA : NULL;
        p->b.geometry = &p->geometryB;
        p->b.hull = spec->b == cn_hullShape ? &p->hullB : NULL;
        if ( PlacePair( p, cls ) )
        {
            p->cls = cls;
            // the small rigid motion of one step
            p->b1 = p->b;
            p->b1.transform.p = cnMulAdd( p->b.transform.p, BENCH_STEP_MOVE, RandomUnit() );
            p->b1.transform.q = cnNormalizeQuat(
                cnMulQuat( cnQuatExp( cnScale( BENCH_STEP_TURN, RandomUnit() ) ), p->b.transform.q ) );
            return true;
        }
        FreePair( p );
    }
    return false;
}

// ---------------------------------------------------------------------------------------------
// libccd on our shapes: support and centre written here (cached rotation matrix, local support)

typedef struct CcdObject
{
    const cnCollisionShape* shape;
    cnMat3 rotation;
    cnVec3 center;
    int* budget;
} CcdObject;

static CcdObject MakeCcdObject( const cnCollisionShape* shape, int* budget )
{
    CcdObject o;
    o.shape = shape;
    o.rotation = cnMat3FromQuat( cnNormalizeQuat( shape->transform.q ) );
    o.center =
        cnAdd( cnMulMV( o.rotation, cnLocalCenter( shape->geometry, shape->hull ) ), shape->transform.p );
    o.budget = budget;
    return o;
}

static void CcdSupport( const void* obj, const ccd_vec3_t* dir, ccd_vec3_t* out )
{
    const CcdObject* o = obj;
    if ( *o->budget <= 0 )
    {
        ccdVec3Set( out, NAN, NAN, NAN );
        return;
    }
    *o->budget -= 1;
    cnMat3 r = o->rotation;
    cnVec3 d = { dir->v[0], dir->v[1], dir->v[2] };
    cnVec3 local = { cnDot( r.cx, d ), cnDot( r.cy, d ), cnDot( r.cz, d ) };
    cnVec3 s = cnAdd( cnMulMV( r, cnLocalSupport( o->shape->geometry, o->shape->hull, local ) ),
                      o->shape->transform.p );
    ccdVec3Set( out, s.x, s.y, s.z );
}

static void CcdCenter( const void* obj, ccd_vec3_t* center )
{
    const CcdObject* o = obj;
    ccdVec3Set( center, o->center.x, o->center.y, o->center.z );
}

static ccd_t s_ccd;

// One libccd call on (a, b). Returns the separation (-depth) when it reports a hit with a usable
// answer, +INFINITY when it reports no hit, NAN when the answer is unusable (NaN, zero direction,
// support budget exhausted).
static double RunCcd( int method, const cnCollisionShape* a, const cnCollisionShape* b )
{
    int budget = BENCH_CCD_BUDGET;
    // the objects are built inside the timed region: a libccd user pays for them too
    CcdObject oa = MakeCcdObject( a, &budget );
    CcdObject ob = MakeCcdObject( b, &budget );
    ccd_real_t depth = 0.0;
    ccd_vec3_t dir, pos;
    ccdVec3Set( &dir, 0.0, 0.0, 0.0 );
    ccdVec3Set( &pos, 0.0, 0.0, 0.0 );
    int ret;
    if ( method == m_gjk )
    {
        ret = ccdGJKIntersect( &oa, &ob, &s_ccd );
        return budget <= 0 ? NAN : ret ? 0.0 : INFINITY;
    }
    if ( method == m_epa )
    {
        ret = ccdGJKPenetration( &oa, &ob, &s_ccd, &depth, &dir, &pos );
    }
    else
    {
        ret = ccdMPRPenetration( &oa, &ob, &s_ccd, &depth, &dir, &pos );
    }
    if ( ret == -1 && budget > 0 )
    {
        return INFINITY;
    }
    double length = sqrt( dir.v[0] * dir.v[0] + dir.v[1] * dir.v[1] + dir.v[2] * dir.v[2] );
    if ( ret != 0 || budget <= 0 || !isfinite( depth ) || !( length > 0.5 && length < 2.0 ) )
    {
        return NAN;
    }
    return -depth;
}

// ---------------------------------------------------------------------------------------------
// timing

static int CompareDoubles( const void* x, const void* y )
{
    double a = *(const double*)x, b = *(const double*)y;
    return ( a > b ) - ( a < b );
}

// median and 90th percentile of n per-query times (s), in microseconds
static void Percentiles( double* times, int n, double* median, double* p90 )
{
    qsort( times, (size_t)n, sizeof( double ), CompareDoubles );
    *median = n > 0 ? 1.0e6 * ( n % 2 ? times[n / 2] : 0.5 * ( times[n / 2 - 1] + times[n / 2] ) ) : 0.0;
    *p90 = n > 0 ? 1.0e6 * times[(int)floor( 0.9 * ( n - 1 ) + 0.5 )] : 0.0;
}

static void MeasureTimerOverhead( void )
{
    double samples[1001];
    for ( int i = 0; i < 1001; ++i )
    {
        double t0 = WallSeconds();
        double t1 = WallSeconds();
        samples[i] = t1 - t0;
    }
    qsort( samples, 1001, sizeof( double ), CompareDoubles );
    s_timerOverhead = samples[500];
}

// One query of `method` on pair p; returns the separation it reports (NAN: failure).
static double RunQuery( int method, Pair* p, cnSmoothContact* out )
{
    switch ( method )
    {
        case m_cold:
        {
            int n = cnSmoothQuery( &p->a, &p->b, BENCH_MARGIN, NULL, 0, out, CN_MAX_SMOOTH_CONTACTS );
            return n >= 1 ? out[0].separation : NAN;
        }
        case m_warm:
        {
            int n = cnSmoothQuery( &p->a, &p->b1, BENCH_MARGIN, p->coldCount > 0 ? p->cold : NULL,
                                   p->coldCount, out, CN_MAX_SMOOTH_CONTACTS );
            return n >= 1 ? out[0].separation : NAN;
        }
        case m_convex:
        {
            cnConvexContact contact;
            return cnConvexQuery( &p->a, &p->b, NULL, &contact ) ? contact.separation : NAN;
        }
        default:
            return RunCcd( method, &p->a, &p->b );
    }
}

// Time `method` over every pair: `repeats` passes over the pairs (pairs inner, so consecutive
// queries differ as in a step), each query timed alone; per pair the fastest pass counts.
static void TimeMethod( int method, Pair* pairs, int n, int repeats, double* best, double* results )
{
    cnSmoothContact out[CN_MAX_SMOOTH_CONTACTS];
    for ( int i = 0; i < n; ++i )
    {
        best[i] = INFINITY;
    }
    for ( int r = 0; r < repeats; ++r )
    {
        for ( int i = 0; i < n; ++i )
        {
            double t0 = WallSeconds();
            double sep = RunQuery( method, pairs + i, out );
            double t1 = WallSeconds();
            double dt = fmax( t1 - t0 - s_timerOverhead, 0.0 );
            best[i] = fmin( best[i], dt );
            results[i] = sep;
            s_sink = s_sink + ( isfinite( sep ) ? sep : 0.0 );
        }
    }
}

// ---------------------------------------------------------------------------------------------

static void PrintRow( FILE* f, const Row* row, bool csv, double coldMedian )
{
    if ( csv )
    {
        fprintf( f, "%s,%s,%.4f,%.4f,%d,%d,", row->pair, s_methodNames[row->method], row->medianUs,
                 row->p90Us, row->queries, row->failures );
        if ( row->maxDiff >= 0.0 )
        {
            fprintf( f, "%.3e", row->maxDiff );
        }
        fprintf( f, "\n" );
        return;
    }
    char diff[32] = "-";
    if ( row->maxDiff >= 0.0 )
    {
        snprintf( diff, sizeof( diff ), "%.2e", row->maxDiff );
    }
    char ratio[32] = "-";
    if ( coldMedian > 0.0 )
    {
        snprintf( ratio, sizeof( ratio ), "%.2f", row->medianUs / coldMedian );
    }
    fprintf( f, "%-20s %-18s %10.3f %10.3f %7d %8d %10s %8s  %s\n", row->pair, s_methodNames[row->method],
             row->medianUs, row->p90Us, row->queries, row->failures, diff, ratio, row->note );
}

static void PrintUsage( const char* program )
{
    fprintf( stderr, "usage: %s [--pairs N] [--seed S] [--repeats R] [--ccd-tol T] [--csv FILE] [--quick]\n",
             program );
}

static long ParseLong( const char* text, const char* name, long lo, long hi )
{
    char* end = NULL;
    long value = strtol( text, &end, 10 );
    if ( end == text || *end != '\0' || value < lo || value > hi )
    {
        fprintf( stderr, "bench_smooth: bad value for %s: %s\n", name, text );
        exit( 2 );
    }
    return value;
}

int main( int argc, char** argv )
{
    BenchConfig config = { 2000, 5, 0x5eed5u, 1.0e-4, NULL };
    for ( int i = 1; i < argc; ++i )
    {
        const char* arg = argv[i];
        if ( strcmp( arg, "--quick" ) == 0 )
        {
            config.pairs = 24;
            config.repeats = 1;
            continue;
        }
        const char* value = i + 1 < argc ? argv[i + 1] : NULL;
        if ( value == NULL )
        {
            PrintUsage( argv[0] );
            return 2;
        }
        if ( strcmp( arg, "--pairs" ) == 0 )
        {
            config.pairs = (int)ParseLong( value, arg, 3, 10000000 );
        }
        else if ( strcmp( arg, "--seed" ) == 0 )
        {
            config.seed = (uint64_t)ParseLong( value, arg, 0, 0x7fffffffL );
        }
        else if ( strcmp( arg, "--repeats" ) == 0 )
        {
            config.repeats = (int)ParseLong( value, arg, 1, 1000 );
        }
        else if ( strcmp( arg, "--ccd-tol" ) == 0 )
        {
            char* end = NULL;
            config.ccdTolerance = strtod( value, &end );
            if ( end == value || *end != '\0' || !( config.ccdTolerance > 0.0 && config.ccdTolerance < 1.0 ) )
            {
                fprintf( stderr, "bench_smooth: bad value for %s: %s\n", arg, value );
                return 2;
            }
        }
        else if ( strcmp( arg, "--csv" ) == 0 )
        {
            config.csvPath = value;
        }
        else
        {
            PrintUsage( argv[0] );
            return 2;
        }
        i += 1;
    }

    // libccd as a user would set it up: its default tolerances (or --ccd-tol), at most 100 GJK /
    // MPR iterations as the engine does
    CCD_INIT( &s_ccd );
    s_ccd.support1 = CcdSupport;
    s_ccd.support2 = CcdSupport;
    s_ccd.center1 = CcdCenter;
    s_ccd.center2 = CcdCenter;
    s_ccd.max_iterations = 100;
    s_ccd.epa_tolerance = config.ccdTolerance;
    s_ccd.mpr_tolerance = config.ccdTolerance;

    FILE* csv = NULL;
    if ( config.csvPath != NULL )
    {
        csv = fopen( config.csvPath, "w" );
        if ( csv == NULL )
        {
            fprintf( stderr, "bench_smooth: cannot write %s\n", config.csvPath );
            return 2;
        }
        fprintf( csv, "pair,method,median_us,p90_us,queries,failures,max_abs_diff_vs_smooth\n" );
    }

    MeasureTimerOverhead();
    printf( "# cairn_bench_smooth: %d pairs per type (1/3 apart, 1/3 touching, 1/3 overlapping), seed %llu, "
            "%d timed passes (fastest per query), libccd tolerance %.1e, timer overhead %.1f ns subtracted\n",
            config.pairs, (unsigned long long)config.seed, config.repeats, config.ccdTolerance,
            1.0e9 * s_timerOverhead );
    printf(
        "# times in microseconds per query (wall, CLOCK_MONOTONIC); max_diff: |sep - sep_smooth_cold| over "
        "overlapping pairs (warm: vs a cold query on the moved pair, all pairs); x_cold: median / cold "
        "median\n" );
    printf( "%-20s %-18s %10s %10s %7s %8s %10s %8s  %s\n", "pair", "method", "median_us", "p90_us",
            "queries", "failures", "max_diff", "x_cold", "notes" );

    int n = config.pairs;
    Pair* pairs = calloc( (size_t)n, sizeof( Pair ) );
    double* best = malloc( sizeof( double ) * (size_t)n );
    double* results = malloc( sizeof( double ) * (size_t)n );
    double* coldSep = malloc( sizeof( double ) * (size_t)n );
    double* coldSep1 = malloc( sizeof( double ) * (size_t)n );
    if ( pairs == NULL || best == NULL || results == NULL || coldSep == NULL || coldSep1 == NULL )
    {
        fprintf( stderr, "bench_smooth: out of memory\n" );
        return 2;
    }

    int smoothFailures = 0;
    int setupFailures = 0;
    double setupSeconds = 0.0;
    for ( int type = 0; type < BENCH_PAIR_TYPES; ++type )
    {
        const PairSpec* spec = s_pairSpecs + type;
        bool torus = spec->a == cn_torusShape || spec->b == cn_torusShape;
        bool convex = !torus && spec->b != cn_planeShape;
        s_rng = config.seed * 0x100000001b3ull + (uint64_t)type;

        double setupStart = WallSeconds();
        int built = 0;
        for ( int i = 0; i < n; ++i )
        {
            if ( !MakePair( pairs + built, spec, i % 3 ) )
            {
                setupFailures += 1;
                continue;
            }
            built += 1;
        }
        setupSeconds += WallSeconds() - setupStart;
        if ( built == 0 )
        {
            fprintf( stderr, "bench_smooth: %s: could not place any pair\n", spec->name );
            return 1;
        }

        // untimed: what the warm queries start from, and the cold answers the others are compared with
        cnSmoothContact out[CN_MAX_SMOOTH_CONTACTS];
        double maxApartDiff = 0.0, maxTouching = 0.0; // vs the reference distance; |sep| when touching
        int belowBound = 0;
        for ( int i = 0; i < built; ++i )
        {
            Pair* p = pairs + i;
            p->coldCount =
                cnSmoothQuery( &p->a, &p->b, BENCH_MARGIN, NULL, 0, p->cold, CN_MAX_SMOOTH_CONTACTS );
            coldSep[i] = p->coldCount >= 1 ? p->cold[0].separation : NAN;
            int n1 = cnSmoothQuery( &p->a, &p->b1, BENCH_MARGIN, NULL, 0, out, CN_MAX_SMOOTH_CONTACTS );
            coldSep1[i] = n1 >= 1 ? out[0].separation : NAN;
            if ( p->coldCount >= 1 && isfinite( coldSep[i] ) )
            {
                if ( p->cls == c_separated )
                {
                    maxApartDiff = fmax( maxApartDiff, fabs( coldSep[i] - p->refSep ) );
                }
                else if ( p->cls == c_touching )
                {
                    maxTouching = fmax( maxTouching, fabs( coldSep[i] ) );
                }
                else if ( !torus && coldSep[i] < p->refSep - BENCH_BOUND_TOL )
                {
                    // deeper than moving B back out along the placement ray, which separates them
                    // (tori: the separation overlapping is not a translation depth, no bound)
                    belowBound += 1;
                }
            }
        }

        double coldMedian = 0.0, warmMedian = 0.0;
        for ( int method = 0; method < m_methodCount; ++method )
        {
            if ( !convex && method >= m_gjk )
            {
                break;
            }
            Row row = { spec->name, method, 0.0, 0.0, built, 0, -1.0, "" };
            cnSmoothStats before = cn_smoothStats;
            TimeMethod( method, pairs, built, config.repeats, best, results );
            cnSmoothStats after = cn_smoothStats;
            Percentiles( best, built, &row.medianUs, &row.p90Us );

            int nanCount = 0, missCount = 0, falseHits = 0;
            for ( int i = 0; i < built; ++i )
            {
                const Pair* p = pairs + i;
                double sep = results[i];
                bool overlapping = p->cls == c_overlapping;
                bool apart = p->cls == c_separated;
                if ( method == m_cold || method == m_warm || method == m_convex )
                {
                    if ( !isfinite( sep ) )
                    {
                        row.failures += 1;
                        continue;
                    }
                    if ( method == m_warm && isfinite( coldSep1[i] ) )
                    {
                        row.maxDiff = fmax( row.maxDiff, fabs( sep - coldSep1[i] ) );
                    }
                    if ( method == m_convex && overlapping && isfinite( coldSep[i] ) )
                    {
                        row.maxDiff = fmax( row.maxDiff, fabs( sep - coldSep[i] ) );
                    }
                    continue;
                }
                // libccd: a miss on an overlapping pair, a hit on a separated one, or no usable
                // answer is a failure; touching pairs can go either way
                if ( isnan( sep ) )
                {
                    nanCount += 1;
                    row.failures += 1;
                }
                else if ( overlapping && sep == INFINITY )
                {
                    missCount += 1;
                    row.failures += 1;
                }
                else if ( apart && sep != INFINITY )
                {
                    falseHits += 1;
                    row.failures += 1;
                }
                else if ( method != m_gjk && overlapping && isfinite( coldSep[i] ) )
                {
                    row.maxDiff = fmax( row.maxDiff, fabs( sep - coldSep[i] ) );
                }
            }
            if ( method == m_cold )
            {
                coldMedian = row.medianUs;
                snprintf( row.note, sizeof( row.note ),
                          "apart |sep-ref| %.1e, touching |sep| %.1e, too deep %d", maxApartDiff, maxTouching,
                          belowBound );
                smoothFailures += row.failures;
            }
            else if ( method == m_warm )
            {
                warmMedian = row.medianUs;
                long warmQueries = after.queries - before.queries;
                long fallbacks = after.warmFallbacks - before.warmFallbacks;
                long starts = after.warmStarts - before.warmStarts;
                snprintf( row.note, sizeof( row.note ), "warm starts %ld/%ld, fallbacks %ld", starts,
                          warmQueries, fallbacks );
                smoothFailures += row.failures;
            }
            else if ( method != m_convex )
            {
                snprintf( row.note, sizeof( row.note ), "unusable %d, misses %d, false hits %d", nanCount,
                          missCount, falseHits );
            }
            PrintRow( stdout, &row, false, method == m_cold ? 0.0 : coldMedian );
            if ( csv != NULL )
            {
                PrintRow( csv, &row, true, 0.0 );
            }
        }
        if ( coldMedian > 0.0 )
        {
            printf( "%-20s warm/cold = %.2f\n", spec->name, warmMedian / coldMedian );
        }
        else
        {
            printf( "%-20s warm/cold = n/a (cold median 0)\n", spec->name );
        }
        fflush( stdout );
        for ( int i = 0; i < built; ++i )
        {
            FreePair( pairs + i );
        }
    }

    printf( "# setup (placing the pairs, untimed) %.1f s; pairs that could not be placed: %d; smooth "
            "failures: %d\n",
            setupSeconds, setupFailures, smoothFailures );
    if ( csv != NULL )
    {
        fclose( csv );
    }
    free( pairs );
    free( best );
    free( results );
    free( coldSep );
    free( coldSep1 );
    // the smoke run's verdict: cnSmoothQuery must answer every supported pair
    return smoothFailures == 0 ? 0 : 1;
}
