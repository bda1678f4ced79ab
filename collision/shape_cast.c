// SPDX-License-Identifier: MIT
// Time of impact and exact overlap of placed shapes (see shape_cast.h for the method).

#include "shape_cast.h"

#include "ccd_support.h"
#include "narrow_phase.h"
#include "smooth.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

#define CN_TOI_TOLERANCE            1.0e-11 // of the two shapes' sizes: the distance that counts as touching
#define CN_TOI_MAX_ITERATIONS       100     // conservative-advancement steps per convex pair
#define CN_TOI_ARC_CAPACITY         512     // live arcs of the torus branch and bound
#define CN_TOI_ARC_BUDGET           4096    // arcs evaluated per torus query
#define CN_TOI_FIRST_ARCS           8       // the torus's core circle starts as this many arcs
#define CN_TOI_ELLIPSOID_ITERATIONS 400     // steps of the ellipsoid method when the bounds stall

// A placed shape as a core swept by a radius: a sphere is its centre and a capsule its segment
// (radius 0 in `geometry`), every other shape itself with radius 0. `shape.geometry` points into the
// struct: never copy a cnCore.
typedef struct cnCore
{
    cnGeometry geometry;
    cnCollisionShape shape;
    double radius;
    cnGeometry fullGeometry; // the whole shape, core and radius
    cnCollisionShape full;
} cnCore;

static void cnMakeCore( const cnCollisionShape* source, cnCore* core )
{
    core->fullGeometry = *source->geometry;
    core->full = *source;
    core->full.geometry = &core->fullGeometry;
    core->geometry = *source->geometry;
    core->radius = 0.0;
    if ( core->geometry.type == cn_sphereShape )
    {
        core->radius = core->geometry.sphere.radius;
        core->geometry.sphere.radius = 0.0;
    }
    else if ( core->geometry.type == cn_capsuleShape )
    {
        core->radius = core->geometry.capsule.radius;
        core->geometry.capsule.radius = 0.0;
    }
    core->shape.geometry = &core->geometry;
    core->shape.hull = source->hull;
    core->shape.transform = source->transform;
}

// A point at `center`, swept by `radius` (a ball).
static void cnMakeBallCore( cnVec3 center, double radius, cnCore* core )
{
    memset( &core->geometry, 0, sizeof( core->geometry ) );
    core->geometry.type = cn_sphereShape;
    core->geometry.sphere.radius = 0.0;
    core->shape.geometry = &core->geometry;
    core->shape.hull = NULL;
    core->shape.transform.p = center;
    core->shape.transform.q = cn_quatIdentity;
    core->radius = radius;
    core->fullGeometry = core->geometry;
    core->fullGeometry.sphere.radius = radius;
    core->full = core->shape;
    core->full.geometry = &core->fullGeometry;
}

static bool cnIsKnownType( cnShapeType type )
{
    return (int)type >= 0 && type < cn_shapeTypeCount;
}

bool cnIsTimeOfImpactSupported( cnShapeType a, cnShapeType b )
{
    if ( cnIsKnownType( a ) == false || cnIsKnownType( b ) == false )
    {
        return false;
    }
    return !( a == cn_planeShape && b == cn_planeShape ) && !( a == cn_torusShape && b == cn_torusShape );
}

// size of a shape for the tolerance: its bounding radius about its origin (0 for a plane)
static double cnShapeSize( const cnCollisionShape* shape )
{
    const cnGeometry* g = shape->geometry;
    if ( g->type == cn_planeShape )
    {
        return 0.0;
    }
    return cnLocalBoundingRadius( g, shape->hull ) + cnLength( cnLocalCenter( g, shape->hull ) );
}

// ---------------------------------------------------------------------------------------------
// Distance bounds of two convex placed shapes, for the advancement: GJK on the Minkowski
// difference D = B - A whose sub-problem (the point of a simplex's hull nearest the origin) is
// solved by trying every face of the simplex (at most 15) and keeping the nearest valid projection,
// which stays correct for the flat, nearly degenerate simplices that near contacts produce. Every
// direction tried gives a lower bound (the separation along it); the best one is kept with its
// direction, and the nearest simplex point gives the upper bound.

typedef struct cnGapBounds
{
    double upper;  // |v|: the distance is at most this
    double lower;  // the separation along `normal`: the distance is at least this
    cnVec3 normal; // unit, from A to B: the direction of `lower`
    cnVec3 pointB; // on B, nearest A as far as the upper bound knows
    bool overlap;  // the origin is in D (to round-off): upper = lower = 0
} cnGapBounds;

typedef struct cnDiffPoint
{
    cnVec3 w; // b - a
    cnVec3 b;
} cnDiffPoint;

// nearest point of the hull of `count` (1..4) points to the origin; weights in `lambda`
static cnVec3 cnNearestOnSimplex( const cnDiffPoint* p, int count, double lambda[4] )
{
    double bestLength = (double)INFINITY;
    cnVec3 best = p[0].w;
    int subsets = ( 1 << count ) - 1;
    for ( int mask = 1; mask <= subsets; ++mask )
    {
        int index[4];
        int n = 0;
        for ( int i = 0; i < count; ++i )
        {
            if ( mask & ( 1 << i ) )
            {
                index[n++] = i;
            }
        }
        // affine projection: w0 + sum mu_k e_k, e_k = w_k - w0, G mu = -E^T w0
        double mu[3] = { 0.0, 0.0, 0.0 };
        if ( n > 1 )
        {
            cnVec3 e[3];
            double g[3][4];
            for ( int k = 1; k < n; ++k )
            {
                e[k - 1] = cnSub( p[index[k]].w, p[index[0]].w );
            }
            for ( int r = 0; r < n - 1; ++r )
            {
                for ( int c = 0; c < n - 1; ++c )
                {
                    g[r][c] = cnDot( e[r], e[c] );
                }
                g[r][n - 1] = -cnDot( e[r], p[index[0]].w );
            }
            // Gaussian elimination with partial pivoting; a singular face is skipped
            int m = n - 1;
            double scale = 0.0;
            for ( int r = 0; r < m; ++r )
            {
                scale = fmax( scale, g[r][r] );
            }
            bool singular = false;
            for ( int c = 0; c < m && singular == false; ++c )
            {
                int pivot = c;
                for ( int r = c + 1; r < m; ++r )
                {
                    pivot = fabs( g[r][c] ) > fabs( g[pivot][c] ) ? r : pivot;
                }
                if ( !( fabs( g[pivot][c] ) > 1.0e-13 * scale ) )
                {
                    singular = true;
                    break;
                }
                for ( int k = 0; k <= m; ++k )
                {
                    double t = g[c][k];
                    g[c][k] = g[pivot][k];
                    g[pivot][k] = t;
                }
                for ( int r = c + 1; r < m; ++r )
                {
                    double f = g[r][c] / g[c][c];
                    for ( int k = c; k <= m; ++k )
                    {
                        g[r][k] -= f * g[c][k];
                    }
                }
            }
            if ( singular )
            {
                continue;
            }
            for ( int r = m - 1; r >= 0; --r )
            {
                double sum = g[r][m];
                for ( int k = r + 1; k < m; ++k )
                {
                    sum -= g[r][k] * mu[k];
                }
                mu[r] = sum / g[r][r];
            }
        }
        double weights[4];
        weights[0] = 1.0;
        bool valid = true;
        for ( int k = 1; k < n; ++k )
        {
            weights[k] = mu[k - 1];
            weights[0] -= mu[k - 1];
            valid = valid && mu[k - 1] > 0.0;
        }
        valid = valid && weights[0] > 0.0;
        if ( valid == false )
        {
            continue;
        }
        cnVec3 q = cn_vec3Zero;
        for ( int k = 0; k < n; ++k )
        {
            q = cnMulAdd( q, weights[k], p[index[k]].w );
        }
        double length = cnLength( q );
        if ( length < bestLength )
        {
            bestLength = length;
            best = q;
            for ( int i = 0; i < 4; ++i )
            {
                lambda[i] = 0.0;
            }
            for ( int k = 0; k < n; ++k )
            {
                lambda[index[k]] = weights[k];
            }
        }
    }
    return best;
}

#define CN_TOI_GJK_ITERATIONS 64

static cnGapBounds cnDistanceBounds( const cnCollisionShape* a, const cnCollisionShape* b, double tolerance )
{
    cnGapBounds out;
    memset( &out, 0, sizeof( out ) );
    cnDiffPoint simplex[4];
    int count = 1;
    cnVec3 d = cnSub( cnTransformPoint( b->transform, cnLocalCenter( b->geometry, b->hull ) ),
                      cnTransformPoint( a->transform, cnLocalCenter( a->geometry, a->hull ) ) );
    d = cnNormalizeOr( d, cnMakeVec3( 1.0, 0.0, 0.0 ) );
    simplex[0].b = cnWorldSupport( b, cnNeg( d ) );
    simplex[0].w = cnSub( simplex[0].b, cnWorldSupport( a, d ) );
    out.lower = -(double)INFINITY;
    out.normal = d;
    out.upper = (double)INFINITY;
    double lambda[4] = { 1.0, 0.0, 0.0, 0.0 };
    for ( int iteration = 0; iteration < CN_TOI_GJK_ITERATIONS; ++iteration )
    {
        cnVec3 v = cnNearestOnSimplex( simplex, count, lambda );
        double length = cnLength( v );
        if ( length >= out.upper )
        {
            break; // no progress (round-off)
        }
        out.upper = length;
        out.pointB = cn_vec3Zero;
        for ( int i = 0; i < count; ++i )
        {
            out.pointB = cnMulAdd( out.pointB, lambda[i], simplex[i].b );
        }
        if ( !( length > 1.0e-3 * tolerance ) )
        {
            out.overlap = true;
            out.upper = 0.0;
            out.lower = 0.0;
            return out;
        }
        cnVec3 n = cnScale( 1.0 / length, v );
        cnDiffPoint w;
        w.b = cnWorldSupport( b, cnNeg( n ) );
        w.w = cnSub( w.b, cnWorldSupport( a, n ) );
        double lower = cnDot( n, w.w );
        if ( lower > out.lower )
        {
            out.lower = lower;
            out.normal = n;
        }
        if ( out.upper - out.lower <= 1.0e-3 * tolerance )
        {
            break;
        }
        // keep the points that carry the nearest point, then add the new one
        int kept = 0;
        bool duplicate = false;
        for ( int i = 0; i < count; ++i )
        {
            if ( lambda[i] > 0.0 )
            {
                duplicate = duplicate || cnLengthSquared( cnSub( simplex[i].w, w.w ) ) == 0.0;
                simplex[kept++] = simplex[i];
            }
        }
        if ( duplicate || kept >= 4 )
        {
            break;
        }
        simplex[kept] = w;
        count = kept + 1;
    }
    return out;
}

// ---------------------------------------------------------------------------------------------
// Convex against convex: conservative advancement on the cores' distance bounds

// sep(n) of the cores, minus nothing: a lower bound of the cores' distance for any unit n
static double cnCoreSeparation( const cnCollisionShape* a, const cnCollisionShape* b, cnVec3 n )
{
    return cnDot( n, cnSub( cnWorldSupport( b, cnNeg( n ) ), cnWorldSupport( a, n ) ) );
}

// When the bounds leave a wide gap (curved surfaces converge slowly), other directions may prove
// more: the penetration query's polished normal, and the smooth query's for smooth pairs. Each is
// scored by the cores' separation along it, so the bound stays a lower bound whatever they return.
static void cnImproveLowerBound( const cnCore* a, const cnCollisionShape* movedCore, const cnCore* b,
                                 cnGapBounds* d, int* iterations )
{
    cnCollisionShape movedFull = a->full;
    movedFull.transform.p = movedCore->transform.p;
    cnShapeType typeA = movedFull.geometry->type;
    cnShapeType typeB = b->full.geometry->type;
    cnConvexContact contact;
    *iterations += 1;
    if ( cnConvexQuery( &movedFull, &b->full, &d->normal, &contact ) )
    {
        double lower = cnCoreSeparation( movedCore, &b->shape, contact.normal );
        if ( lower > d->lower )
        {
            d->lower = lower;
            d->normal = contact.normal;
        }
    }
    // The separation along a vector, sep(v) = min over D = B - A of v.d, is concave and positively
    // homogeneous in v, so on the plane v = n0 + x t1 + y t2 tangent to the unit sphere at the best
    // direction n0 so far it is a concave function of (x, y) whose maximum lies on the ray of the
    // optimal direction. The ellipsoid method in those two variables (a cut through the centre by
    // the supergradient (t1.w, t2.w), w = sB(-v) - sA(v), at every step) closes in on it whatever
    // the kinks and ridges of sep; each v tried gives the lower bound sep(v) / |v|.
    cnVec3 n0 = d->normal;
    cnVec3 t1 = cnPerpendicular( n0 );
    cnVec3 t2 = cnCross( n0, t1 );
    double P[2][2] = { { 0.01, 0.0 }, { 0.0, 0.01 } };
    double x = 0.0, y = 0.0;
    for ( int iteration = 0; iteration < CN_TOI_ELLIPSOID_ITERATIONS; ++iteration )
    {
        cnVec3 v = cnAdd( n0, cnAdd( cnScale( x, t1 ), cnScale( y, t2 ) ) );
        double length = cnLength( v );
        cnVec3 w = cnSub( cnWorldSupport( &b->shape, cnNeg( v ) ), cnWorldSupport( movedCore, v ) );
        double lower = cnDot( v, w ) / length;
        if ( lower > d->lower )
        {
            d->lower = lower;
            d->normal = cnScale( 1.0 / length, v );
        }
        // keep (g.(z - c)) <= 0 with g = -(t1.w, t2.w): the side where sep grows
        double g[2] = { -cnDot( t1, w ), -cnDot( t2, w ) };
        double pg[2] = { P[0][0] * g[0] + P[0][1] * g[1], P[1][0] * g[0] + P[1][1] * g[1] };
        double gpg = g[0] * pg[0] + g[1] * pg[1];
        if ( !( gpg > 1.0e-300 ) || !( P[0][0] + P[1][1] > 1.0e-32 ) )
        {
            break;
        }
        double inv = 1.0 / sqrt( gpg );
        pg[0] *= inv;
        pg[1] *= inv;
        x -= pg[0] / 3.0;
        y -= pg[1] / 3.0;
        for ( int r = 0; r < 2; ++r )
        {
            for ( int k = 0; k < 2; ++k )
            {
                P[r][k] = ( 4.0 / 3.0 ) * ( P[r][k] - ( 2.0 / 3.0 ) * pg[r] * pg[k] );
            }
        }
        double off = 0.5 * ( P[0][1] + P[1][0] );
        P[0][1] = P[1][0] = off;
    }
    *iterations += 1;

    if ( cnIsSmoothPair( typeA, typeB ) )
    {
        cnSmoothContact smooth;
        *iterations += 1;
        if ( cnSmoothQuery( &movedFull, &b->full, 0.0, NULL, 0, &smooth, 1 ) == 1 )
        {
            double lower = cnCoreSeparation( movedCore, &b->shape, smooth.normal );
            if ( lower > d->lower )
            {
                d->lower = lower;
                d->normal = smooth.normal;
            }
        }
    }
}

static bool cnConvexToi( const cnCore* a, cnVec3 translation, const cnCore* b, double maxFraction,
                         double tolerance, cnToiResult* out )
{
    double radius = a->radius + b->radius;
    cnCollisionShape moved = a->shape;
    cnVec3 start = a->shape.transform.p;
    double t = 0.0;
    cnVec3 lastNormal = cn_vec3Zero;
    cnVec3 lastPointB = cn_vec3Zero;
    for ( int iteration = 0; iteration < CN_TOI_MAX_ITERATIONS; ++iteration )
    {
        moved.transform.p = cnMulAdd( start, t, translation );
        cnGapBounds d = cnDistanceBounds( &moved, &b->shape, tolerance );
        out->iterations += 1;
        if ( d.overlap == false )
        {
            lastNormal = d.normal;
            lastPointB = cnMulAdd( d.pointB, -b->radius, d.normal );
        }
        else if ( t > 0.0 )
        {
            // landed on the contact exactly: B's support against the last direction is on it
            lastPointB = cnMulAdd( cnWorldSupport( &b->shape, cnNeg( lastNormal ) ), -b->radius, lastNormal );
        }
        double separation = d.lower - radius;
        if ( d.overlap == false && !( separation > 0.5 * ( d.upper - radius ) ) )
        {
            cnImproveLowerBound( a, &moved, b, &d, &out->iterations );
            separation = d.lower - radius;
        }
        if ( d.overlap || d.upper - radius <= tolerance || !( separation > 0.0 ) )
        {
            // touching (or, when only the lower bound says so, as close as the bounds can tell)
            out->fraction = t;
            out->initialOverlap = t == 0.0;
            out->normal = lastNormal;
            out->point = lastPointB;
            return true;
        }
        // the separation along n falls at dot(translation, n) and no faster
        double closing = cnDot( translation, d.normal );
        if ( !( closing > 0.0 ) )
        {
            return false; // n separates A from B for every later t
        }
        // aim half the tolerance short of the contact, where the bounds still see two shapes apart
        t += fmax( separation - 0.5 * tolerance, 0.25 * separation ) / closing;
        if ( !( t <= maxFraction ) )
        {
            return false;
        }
    }
    // out of steps (a grazing approach): where advancement got to, early but never late
    out->fraction = t;
    out->initialOverlap = t == 0.0;
    out->normal = lastNormal;
    out->point = lastPointB;
    return true;
}

// ---------------------------------------------------------------------------------------------
// Against a half-space {x : dot(m, x) <= offset}, m unit: closed form on A's deepest point

static bool cnHalfSpaceToi( const cnCore* a, cnVec3 translation, cnVec3 m, double offset, double maxFraction,
                            double tolerance, cnToiResult* out )
{
    cnVec3 deepest = cnMulAdd( cnWorldSupport( &a->shape, cnNeg( m ) ), -a->radius, m );
    double separation = cnDot( m, deepest ) - offset;
    out->iterations += 1;
    double t = 0.0;
    if ( separation > tolerance )
    {
        double closing = -cnDot( translation, m );
        if ( !( closing > 0.0 ) )
        {
            return false;
        }
        t = separation / closing;
        if ( !( t <= maxFraction ) )
        {
            return false;
        }
    }
    out->fraction = t;
    out->initialOverlap = t == 0.0;
    out->normal = cnNeg( m );
    out->point = cnMulAdd( deepest, t, translation );
    return true;
}

// ---------------------------------------------------------------------------------------------
// Convex against a torus: branch and bound over arcs of the core circle

typedef struct cnArc
{
    double u0;
    double u1;
    double lower; // no time of impact with this arc's part of the torus comes earlier
} cnArc;

typedef struct cnTorusCast
{
    const cnCore* a;
    cnVec3 translation;
    cnTransform frame; // the torus's
    double major;
    double minor;
    double maxFraction;
    double tolerance;
    double slabLower;  // A's time of impact against the slab |z| <= minor of the torus frame
    double best;       // the best upper bound so far ((double)INFINITY: none)
    cnToiResult found; // the ball contact that gave `best`
    int iterations;
} cnTorusCast;

// lower bound for the arc [u0, u1] ((double)INFINITY: A misses the arc's part before the best so far)
static double cnArcLowerBound( cnTorusCast* cast, double u0, double u1 )
{
    double half = 0.5 * ( u1 - u0 );
    double mid = 0.5 * ( u0 + u1 );
    double s = sin( 0.5 * half );
    double sagitta = 2.0 * cast->major * s * s; // R (1 - cos half)
    double limit = fmin( cast->maxFraction, cast->best );

    cnCore capsule;
    memset( &capsule.geometry, 0, sizeof( capsule.geometry ) );
    capsule.geometry.type = cn_capsuleShape;
    capsule.geometry.capsule.radius = 0.0;
    capsule.geometry.capsule.halfLength = cast->major * sin( half );
    capsule.shape.geometry = &capsule.geometry;
    capsule.shape.hull = NULL;
    double chordDistance = cast->major * cos( half );
    cnVec3 center = { chordDistance * cos( mid ), chordDistance * sin( mid ), 0.0 };
    // local z onto the chord: a quarter turn about the radial direction
    cnVec3 radial = { cos( mid ), sin( mid ), 0.0 };
    cnQuat turn = cnQuatFromAxisAngle( radial, 0.5 * CN_PI );
    capsule.shape.transform.p = cnTransformPoint( cast->frame, center );
    capsule.shape.transform.q = cnMulQuat( cast->frame.q, turn );
    capsule.radius = cast->minor + sagitta;
    capsule.fullGeometry = capsule.geometry;
    capsule.fullGeometry.capsule.radius = capsule.radius;
    capsule.full = capsule.shape;
    capsule.full.geometry = &capsule.fullGeometry;

    cnToiResult result;
    memset( &result, 0, sizeof( result ) );
    bool hit = cnConvexToi( cast->a, cast->translation, &capsule, limit, cast->tolerance, &result );
    cast->iterations += result.iterations;
    if ( hit == false )
    {
        return (double)INFINITY;
    }
    return fmax( result.fraction, cast->slabLower );
}

// upper bound: the ball of the minor radius at angle u
static void cnArcUpperBound( cnTorusCast* cast, double u )
{
    cnCore ball;
    cnVec3 local = { cast->major * cos( u ), cast->major * sin( u ), 0.0 };
    cnMakeBallCore( cnTransformPoint( cast->frame, local ), cast->minor, &ball );
    double limit = fmin( cast->maxFraction, cast->best );
    cnToiResult result;
    memset( &result, 0, sizeof( result ) );
    bool hit = cnConvexToi( cast->a, cast->translation, &ball, limit, cast->tolerance, &result );
    cast->iterations += result.iterations;
    if ( hit && result.fraction < cast->best )
    {
        cast->best = result.fraction;
        cast->found = result;
    }
}

static bool cnTorusToi( const cnCore* a, cnVec3 translation, const cnCollisionShape* torus,
                        double maxFraction, double tolerance, cnToiResult* out )
{
    cnTorusCast cast;
    memset( &cast, 0, sizeof( cast ) );
    cast.a = a;
    cast.translation = translation;
    cast.frame.p = torus->transform.p;
    cast.frame.q = cnNormalizeQuat( torus->transform.q );
    cast.major = torus->geometry->torus.majorRadius;
    cast.minor = torus->geometry->torus.minorRadius;
    cast.maxFraction = maxFraction;
    cast.tolerance = tolerance;
    cast.best = (double)INFINITY;

    // the slab: A must reach both of its half-spaces
    cnVec3 axis = cnRotate( cast.frame.q, cnMakeVec3( 0.0, 0.0, 1.0 ) );
    double height = cnDot( axis, cast.frame.p );
    cnToiResult slab;
    memset( &slab, 0, sizeof( slab ) );
    if ( cnHalfSpaceToi( a, translation, axis, height + cast.minor, maxFraction, tolerance, &slab ) == false )
    {
        out->iterations += slab.iterations;
        return false;
    }
    cast.slabLower = slab.fraction;
    if ( cnHalfSpaceToi( a, translation, cnNeg( axis ), cast.minor - height, maxFraction, tolerance,
                         &slab ) == false )
    {
        out->iterations += slab.iterations;
        return false;
    }
    cast.slabLower = fmax( cast.slabLower, slab.fraction );
    cast.iterations += 2;

    // the gap that ends the search, in fraction: the tolerance over the distance moved
    double length = cnLength( translation );
    double gap = length > 0.0 ? tolerance / length : 0.0;

    cnArc arcs[CN_TOI_ARC_CAPACITY];
    int count = 0;
    for ( int i = 0; i < CN_TOI_FIRST_ARCS; ++i )
    {
        double u0 = -CN_PI + 2.0 * CN_PI * i / CN_TOI_FIRST_ARCS;
        double u1 = -CN_PI + 2.0 * CN_PI * ( i + 1 ) / CN_TOI_FIRST_ARCS;
        double lower = cnArcLowerBound( &cast, u0, u1 );
        if ( lower < (double)INFINITY )
        {
            cnArcUpperBound( &cast, 0.5 * ( u0 + u1 ) );
            arcs[count++] = ( cnArc ){ u0, u1, lower };
        }
    }

    int evaluated = CN_TOI_FIRST_ARCS;
    while ( count > 0 )
    {
        int pick = 0;
        for ( int i = 1; i < count; ++i )
        {
            if ( arcs[i].lower < arcs[pick].lower )
            {
                pick = i;
            }
        }
        cnArc arc = arcs[pick];
        if ( arc.lower >= cast.best - gap || evaluated >= CN_TOI_ARC_BUDGET ||
             count + 1 > CN_TOI_ARC_CAPACITY )
        {
            break;
        }
        arcs[pick] = arcs[--count];
        double mid = 0.5 * ( arc.u0 + arc.u1 );
        if ( !( mid > arc.u0 && mid < arc.u1 ) )
        {
            continue; // an arc cannot be halved further
        }
        double bounds[2][2] = { { arc.u0, mid }, { mid, arc.u1 } };
        for ( int k = 0; k < 2; ++k )
        {
            double lower = cnArcLowerBound( &cast, bounds[k][0], bounds[k][1] );
            evaluated += 1;
            if ( lower < cast.best - gap )
            {
                cnArcUpperBound( &cast, 0.5 * ( bounds[k][0] + bounds[k][1] ) );
                arcs[count++] = ( cnArc ){ bounds[k][0], bounds[k][1], lower };
            }
        }
    }

    out->iterations += cast.iterations;
    if ( !( cast.best <= maxFraction ) )
    {
        return false;
    }
    int iterations = out->iterations;
    *out = cast.found;
    out->iterations = iterations;
    return true;
}

// ---------------------------------------------------------------------------------------------

static bool cnIsFiniteShape( const cnCollisionShape* shape )
{
    return shape != NULL && shape->geometry != NULL && cnIsFiniteVec3( shape->transform.p ) &&
           cnIsFiniteQuat( shape->transform.q ) && cnIsKnownType( shape->geometry->type );
}

// the deepest point of an initial overlap: normal from A to B and a point between the surfaces
static void cnInitialContact( const cnCollisionShape* a, const cnCollisionShape* b, double tolerance,
                              cnToiResult* out )
{
    cnManifold manifold;
    if ( cnCollide( a, b, 2.0 * tolerance, NULL, &manifold ) != cn_statusOk || manifold.pointCount == 0 )
    {
        return; // keep what the time-of-impact query found
    }
    int deepest = 0;
    for ( int i = 1; i < manifold.pointCount; ++i )
    {
        if ( manifold.points[i].separation < manifold.points[deepest].separation )
        {
            deepest = i;
        }
    }
    out->normal = manifold.points[deepest].normal;
    out->point = manifold.points[deepest].point;
}

// b is never a moving plane or torus here: a is the convex (or, against a plane, any) shape
static bool cnOrderedToi( const cnCollisionShape* a, cnVec3 translation, const cnCollisionShape* b,
                          double maxFraction, double tolerance, cnToiResult* out )
{
    cnCore coreA;
    cnMakeCore( a, &coreA );
    cnShapeType typeB = b->geometry->type;
    if ( typeB == cn_planeShape )
    {
        // the normal is unit (cnValidateGeometry), as the ray casts take it
        cnVec3 m = cnRotate( cnNormalizeQuat( b->transform.q ), b->geometry->plane.normal );
        double offset = b->geometry->plane.offset + cnDot( m, b->transform.p );
        return cnHalfSpaceToi( &coreA, translation, m, offset, maxFraction, tolerance, out );
    }
    if ( typeB == cn_torusShape )
    {
        return cnTorusToi( &coreA, translation, b, maxFraction, tolerance, out );
    }
    cnCore coreB;
    cnMakeCore( b, &coreB );
    return cnConvexToi( &coreA, translation, &coreB, maxFraction, tolerance, out );
}

bool cnTimeOfImpact( const cnCollisionShape* a, cnVec3 translation, const cnCollisionShape* b,
                     double maxFraction, cnToiResult* out )
{
    memset( out, 0, sizeof( *out ) );
    if ( cnIsFiniteShape( a ) == false || cnIsFiniteShape( b ) == false ||
         cnIsFiniteVec3( translation ) == false || !( maxFraction >= 0.0 ) ||
         isfinite( maxFraction ) == false )
    {
        return false;
    }
    cnShapeType typeA = a->geometry->type;
    cnShapeType typeB = b->geometry->type;
    if ( cnIsTimeOfImpactSupported( typeA, typeB ) == false )
    {
        return false;
    }
    double tolerance = CN_TOI_TOLERANCE * ( cnShapeSize( a ) + cnShapeSize( b ) );

    // a moving plane, or a moving torus against a convex shape: seen from B, moving the other way
    bool swap = typeA == cn_planeShape || ( typeA == cn_torusShape && typeB != cn_planeShape );
    bool hit = false;
    if ( swap )
    {
        hit = cnOrderedToi( b, cnNeg( translation ), a, maxFraction, tolerance, out );
        if ( hit )
        {
            // B's contact point moved back with A's frame, the normal from A to B again
            out->point = cnMulAdd( out->point, out->fraction, translation );
            out->normal = cnNeg( out->normal );
        }
    }
    else
    {
        hit = cnOrderedToi( a, translation, b, maxFraction, tolerance, out );
    }
    if ( hit == false )
    {
        int iterations = out->iterations;
        memset( out, 0, sizeof( *out ) );
        out->iterations = iterations;
        return false;
    }
    if ( out->initialOverlap )
    {
        cnInitialContact( a, b, tolerance, out );
    }
    return true;
}

bool cnShapesOverlap( const cnCollisionShape* a, const cnCollisionShape* b )
{
    cnToiResult result;
    return cnTimeOfImpact( a, cn_vec3Zero, b, 0.0, &result );
}
