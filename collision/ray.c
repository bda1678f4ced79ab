// SPDX-License-Identifier: MIT
// Ray casts against single shapes. See ray.h for the rules and the method of each type.

#include "ray.h"

#include "core.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>

// ---------------------------------------------------------------------------------------------
// interval clipping: the ray's parameter interval inside an intersection of convex pieces

typedef struct cnRayInterval
{
    double enter; // last lower bound, -inf before any
    double exit;  // first upper bound, +inf before any
    cnVec3 normal;
    bool empty;
} cnRayInterval;

static cnRayInterval cnMakeRayInterval( void )
{
    cnRayInterval interval = { -INFINITY, INFINITY, { 0.0, 0.0, 0.0 }, false };
    return interval;
}

// the half-space dot(a, x) <= b (a need not be unit; `normal` is what to report when it bounds the
// entry)
static void cnClipHalfSpace( cnRayInterval* interval, cnVec3 a, double b, cnVec3 p, cnVec3 d, cnVec3 normal )
{
    double num = b - cnDot( a, p );
    double den = cnDot( a, d );
    if ( den == 0.0 )
    {
        // parallel: all outside or no bound
        interval->empty = interval->empty || num < 0.0;
        return;
    }
    double t = num / den;
    if ( den < 0.0 )
    {
        if ( t > interval->enter )
        {
            interval->enter = t;
            interval->normal = normal;
        }
    }
    else if ( t < interval->exit )
    {
        interval->exit = t;
    }
}

// The roots t0 <= t1 of a t^2 + 2 b t + c = 0 (a > 0); false when there are none. The root away
// from zero is (-b - sign(b) sqrt(disc)) / a, the other c / that numerator: neither cancels.
static bool cnSolveHalfQuadratic( double a, double b, double c, double* t0, double* t1 )
{
    double disc = b * b - a * c;
    if ( disc < 0.0 )
    {
        return false;
    }
    double q = -( b + copysign( sqrt( disc ), b ) );
    if ( q == 0.0 )
    {
        *t0 = 0.0;
        *t1 = 0.0;
        return true;
    }
    double r0 = q / a;
    double r1 = c / q;
    *t0 = r0 < r1 ? r0 : r1;
    *t1 = r0 < r1 ? r1 : r0;
    return true;
}

// The parameters t0 <= t1 where |p + t d| = radius (d != 0); false when the line misses the
// sphere. The discriminant is taken from the line's closest point to the centre, l = p - (p.d / d.d) d:
// disc = d.d (radius - |l|) (radius + |l|), which keeps its digits when the origin is far away and
// the line nearly tangent (b^2 - a c would lose them; "Precision Improvements for Ray/Sphere
// Intersection", Ray Tracing Gems, chapter 7).
static bool cnSolveSphereLine( cnVec3 p, cnVec3 d, double radius, double* t0, double* t1 )
{
    double a = cnDot( d, d );
    double b = cnDot( p, d );
    double c = cnDot( p, p ) - radius * radius;
    double l = cnLength( cnMulAdd( p, -b / a, d ) );
    double h = ( radius - l ) * ( radius + l );
    if ( h < 0.0 )
    {
        return false;
    }
    double q = -( b + copysign( sqrt( a * h ), b ) );
    if ( q == 0.0 )
    {
        *t0 = 0.0;
        *t1 = 0.0;
        return true;
    }
    double r0 = q / a;
    double r1 = c / q;
    *t0 = r0 < r1 ? r0 : r1;
    *t1 = r0 < r1 ? r1 : r0;
    return true;
}

// the ray's entry into an interval: a hit when it enters at t in [0, maxFraction]
static bool cnFinishInterval( const cnRayInterval* interval, double maxFraction, cnRayHitLocal* out )
{
    if ( interval->empty || !( interval->enter <= interval->exit ) || interval->enter < 0.0 ||
         interval->enter > maxFraction )
    {
        return false;
    }
    out->fraction = interval->enter;
    out->normal = interval->normal;
    return true;
}

// ---------------------------------------------------------------------------------------------
// the types

// the unit sphere: the ray already scaled
static bool cnRayUnitSphere( cnVec3 p, cnVec3 d, double radius, double maxFraction, double* t )
{
    double t0;
    double t1;
    if ( cnDot( d, d ) == 0.0 || cnDot( p, p ) < radius * radius ||
         cnSolveSphereLine( p, d, radius, &t0, &t1 ) == false )
    {
        return false;
    }
    if ( t0 < 0.0 || t0 > maxFraction || cnDot( p, d ) > 0.0 )
    {
        return false;
    }
    *t = t0;
    return true;
}

static bool cnRaySphere( double radius, cnVec3 center, cnVec3 p, cnVec3 d, double maxFraction,
                         cnRayHitLocal* out )
{
    cnVec3 rel = cnSub( p, center );
    double t;
    if ( cnRayUnitSphere( rel, d, radius, maxFraction, &t ) == false )
    {
        return false;
    }
    out->fraction = t;
    out->normal = cnNormalizeOr( cnMulAdd( rel, t, d ), cnNormalizeOr( cnNeg( d ), cn_vec3Zero ) );
    return true;
}

static bool cnRayBox( cnVec3 h, cnVec3 p, cnVec3 d, double maxFraction, cnRayHitLocal* out )
{
    cnRayInterval interval = cnMakeRayInterval();
    const double extents[3] = { h.x, h.y, h.z };
    for ( int axis = 0; axis < 3 && interval.empty == false; ++axis )
    {
        cnVec3 a = cn_vec3Zero;
        ( &a.x )[axis] = 1.0;
        cnClipHalfSpace( &interval, a, extents[axis], p, d, a );
        cnClipHalfSpace( &interval, cnNeg( a ), extents[axis], p, d, cnNeg( a ) );
    }
    return cnFinishInterval( &interval, maxFraction, out );
}

// the solid cylinder x^2 + y^2 <= r^2, |z| <= h
static bool cnRayCylinder( double radius, double halfLength, cnVec3 p, cnVec3 d, double maxFraction,
                           cnRayHitLocal* out )
{
    cnRayInterval interval = cnMakeRayInterval();
    cnVec3 up = { 0.0, 0.0, 1.0 };
    cnClipHalfSpace( &interval, up, halfLength, p, d, up );
    cnClipHalfSpace( &interval, cnNeg( up ), halfLength, p, d, cnNeg( up ) );
    if ( interval.empty )
    {
        return false;
    }
    cnVec3 pxy = { p.x, p.y, 0.0 };
    cnVec3 dxy = { d.x, d.y, 0.0 };
    if ( cnDot( dxy, dxy ) == 0.0 )
    {
        // along the axis: inside the circle for every t, or never
        if ( cnDot( pxy, pxy ) > radius * radius )
        {
            return false;
        }
    }
    else
    {
        double t0;
        double t1;
        if ( cnSolveSphereLine( pxy, dxy, radius, &t0, &t1 ) == false )
        {
            return false;
        }
        if ( t0 > interval.enter )
        {
            interval.enter = t0;
            cnVec3 x = cnMulAdd( p, t0, d );
            interval.normal = cnNormalizeOr( cnMakeVec3( x.x, x.y, 0.0 ), cnMakeVec3( 1.0, 0.0, 0.0 ) );
        }
        interval.exit = t1 < interval.exit ? t1 : interval.exit;
    }
    return cnFinishInterval( &interval, maxFraction, out );
}

static bool cnRayCapsule( double radius, double halfLength, cnVec3 p, cnVec3 d, double maxFraction,
                          cnRayHitLocal* out )
{
    // a ray from inside does not hit; from outside, the union's entry is its parts' earliest
    double zc = p.z < -halfLength ? -halfLength : ( p.z > halfLength ? halfLength : p.z );
    cnVec3 rel = { p.x, p.y, p.z - zc };
    if ( cnDot( rel, rel ) < radius * radius )
    {
        return false;
    }
    bool hit = false;
    double best = maxFraction;
    cnRayHitLocal part;
    if ( halfLength > 0.0 && cnRayCylinder( radius, halfLength, p, d, best, &part ) )
    {
        *out = part;
        best = part.fraction;
        hit = true;
    }
    for ( int end = -1; end <= 1; end += 2 )
    {
        if ( cnRaySphere( radius, cnMakeVec3( 0.0, 0.0, end * halfLength ), p, d, best, &part ) &&
             ( hit == false || part.fraction < best ) )
        {
            *out = part;
            best = part.fraction;
            hit = true;
        }
    }
    return hit;
}

static bool cnRayEllipsoid( cnVec3 radii, cnVec3 p, cnVec3 d, double maxFraction, cnRayHitLocal* out )
{
    cnVec3 ps = { p.x / radii.x, p.y / radii.y, p.z / radii.z };
    cnVec3 ds = { d.x / radii.x, d.y / radii.y, d.z / radii.z };
    double t;
    if ( cnRayUnitSphere( ps, ds, 1.0, maxFraction, &t ) == false )
    {
        return false;
    }
    cnVec3 x = cnMulAdd( p, t, d );
    cnVec3 gradient = { x.x / ( radii.x * radii.x ), x.y / ( radii.y * radii.y ),
                        x.z / ( radii.z * radii.z ) };
    out->fraction = t;
    out->normal = cnNormalizeOr( gradient, cnNormalizeOr( cnNeg( d ), cn_vec3Zero ) );
    return true;
}

static bool cnRayHull( const cnHull* hull, cnVec3 p, cnVec3 d, double maxFraction, cnRayHitLocal* out )
{
    if ( hull == NULL || hull->triangleCount == 0 )
    {
        return false;
    }
    cnRayInterval interval = cnMakeRayInterval();
    for ( int i = 0; i < hull->triangleCount && interval.empty == false; ++i )
    {
        const int* tri = hull->triangles + 3 * i;
        cnVec3 v0 = hull->vertices[tri[0]];
        cnVec3 n = cnCross( cnSub( hull->vertices[tri[1]], v0 ), cnSub( hull->vertices[tri[2]], v0 ) );
        double length = cnLength( n );
        if ( length == 0.0 )
        {
            continue;
        }
        n = cnScale( 1.0 / length, n );
        cnClipHalfSpace( &interval, n, cnDot( n, v0 ), p, d, n );
    }
    return cnFinishInterval( &interval, maxFraction, out );
}

static bool cnRayPlane( const cnPlane* plane, cnVec3 p, cnVec3 d, double maxFraction, cnRayHitLocal* out )
{
    cnRayInterval interval = cnMakeRayInterval();
    cnClipHalfSpace( &interval, plane->normal, plane->offset, p, d, plane->normal );
    return cnFinishInterval( &interval, maxFraction, out );
}

// ---------------------------------------------------------------------------------------------
// torus: real roots of a polynomial on an interval

// c[0] + c[1] x + ... + c[n] x^n
static double cnPolyEval( const double* c, int n, double x )
{
    double value = c[n];
    for ( int i = n - 1; i >= 0; --i )
    {
        value = value * x + c[i];
    }
    return value;
}

static double cnPolyDerivEval( const double* c, int n, double x )
{
    double value = n * c[n];
    for ( int i = n - 1; i >= 1; --i )
    {
        value = value * x + i * c[i];
    }
    return value;
}

// The root of a polynomial that changes sign once on [lo, hi] (fLo and fHi of opposite signs):
// Newton inside the bracket, bisection when Newton leaves it or stalls.
static double cnPolyBracketRoot( const double* c, int n, double lo, double hi, double fLo )
{
    double x = 0.5 * ( lo + hi );
    for ( int iteration = 0; iteration < 200; ++iteration )
    {
        double f = cnPolyEval( c, n, x );
        if ( f == 0.0 )
        {
            return x;
        }
        if ( ( f < 0.0 ) == ( fLo < 0.0 ) )
        {
            lo = x;
        }
        else
        {
            hi = x;
        }
        double slope = cnPolyDerivEval( c, n, x );
        double next = slope != 0.0 ? x - f / slope : lo;
        if ( !( next > lo && next < hi ) )
        {
            next = 0.5 * ( lo + hi );
        }
        if ( next == x || next == lo || next == hi )
        {
            return x;
        }
        x = next;
        if ( hi - lo <= 4.0 * DBL_EPSILON * fabs( x ) )
        {
            return x;
        }
    }
    return x;
}

// The critical points of a polynomial of degree n <= 4 on (lo, hi), ascending: the real roots of
// its derivative, found the same way one degree lower (the quadratic in closed form). Returns
// their count.
static int cnPolyCriticalPoints( const double* c, int n, double lo, double hi, double* points )
{
    double dc[4];
    for ( int i = 1; i <= n; ++i )
    {
        dc[i - 1] = i * c[i];
    }
    int m = n - 1; // degree of the derivative
    int count = 0;
    if ( m == 1 )
    {
        if ( dc[1] != 0.0 )
        {
            double x = -dc[0] / dc[1];
            if ( x > lo && x < hi )
            {
                points[count++] = x;
            }
        }
        return count;
    }
    if ( m == 2 )
    {
        // dc[2] x^2 + dc[1] x + dc[0]
        double t0;
        double t1;
        if ( dc[2] != 0.0 && cnSolveHalfQuadratic( dc[2], 0.5 * dc[1], dc[0], &t0, &t1 ) )
        {
            if ( t0 > lo && t0 < hi )
            {
                points[count++] = t0;
            }
            if ( t1 > lo && t1 < hi && t1 != t0 )
            {
                points[count++] = t1;
            }
        }
        return count;
    }
    // the derivative's own critical points cut (lo, hi) into pieces where it is monotone
    double inner[4];
    int innerCount = cnPolyCriticalPoints( dc, m, lo, hi, inner );
    double a = lo;
    double fa = cnPolyEval( dc, m, a );
    for ( int k = 0; k <= innerCount; ++k )
    {
        double b = k < innerCount ? inner[k] : hi;
        double fb = cnPolyEval( dc, m, b );
        if ( fa != 0.0 && fb != 0.0 && ( fa < 0.0 ) != ( fb < 0.0 ) )
        {
            points[count++] = cnPolyBracketRoot( dc, m, a, b, fa );
        }
        else if ( fb == 0.0 && k < innerCount )
        {
            points[count++] = b;
        }
        a = b;
        fa = fb;
    }
    return count;
}

// signed distance to the torus surface, and its gradient
static double cnTorusDistance( double majorRadius, double minorRadius, cnVec3 x, cnVec3* gradient )
{
    double rho = hypot( x.x, x.y );
    double radial = rho - majorRadius;
    double tube = hypot( radial, x.z );
    if ( gradient != NULL )
    {
        cnVec3 out = { 1.0, 0.0, 0.0 };
        if ( tube > 0.0 && rho > 0.0 )
        {
            out = cnMakeVec3( radial * x.x / ( rho * tube ), radial * x.y / ( rho * tube ), x.z / tube );
        }
        *gradient = out;
    }
    return tube - minorRadius;
}

static bool cnRayTorus( const cnTorus* torus, cnVec3 p, cnVec3 d, double maxFraction, cnRayHitLocal* out )
{
    double length = cnLength( d );
    if ( !( length > 0.0 ) )
    {
        return false;
    }
    cnVec3 u = cnScale( 1.0 / length, d );
    double bound = torus->majorRadius + torus->minorRadius;
    double sMax = maxFraction * length;

    // clip to a sphere a little larger than the bounding sphere (which touches the torus along its
    // outer equator: a ray entering there must start outside), in lengths scaled by `bound`
    double s0;
    double s1;
    double clip = 1.0625 * bound;
    if ( cnSolveHalfQuadratic( 1.0, cnDot( p, u ), cnDot( p, p ) - clip * clip, &s0, &s1 ) == false ||
         s1 < 0.0 || s0 > sMax )
    {
        return false;
    }
    double start = s0 > 0.0 ? s0 : 0.0;
    double stop = s1 < sMax ? s1 : sMax;
    double inv = 1.0 / bound;
    cnVec3 q = cnScale( inv, cnMulAdd( p, start, u ) );
    double R = torus->majorRadius * inv;
    double r = torus->minorRadius * inv;
    double span = ( stop - start ) * inv;

    // (|q + s u|^2 + R^2 - r^2)^2 - 4 R^2 ((q + s u)_x^2 + (q + s u)_y^2), with |u| = 1
    double e = cnDot( q, q ) + R * R - r * r;
    double f = cnDot( q, u );
    double a2 = u.x * u.x + u.y * u.y;
    double a1 = 2.0 * ( q.x * u.x + q.y * u.y );
    double a0 = q.x * q.x + q.y * q.y;
    double fourR2 = 4.0 * R * R;
    double c[5] = { e * e - fourR2 * a0, 4.0 * f * e - fourR2 * a1, 4.0 * f * f + 2.0 * e - fourR2 * a2,
                    4.0 * f, 1.0 };

    // monotone pieces; the first that goes from outside (> 0) to inside (<= 0) holds the entry
    double points[4];
    int count = cnPolyCriticalPoints( c, 4, 0.0, span, points );
    double a = 0.0;
    double fa = cnPolyEval( c, 4, a );
    double root = -1.0;
    for ( int k = 0; k <= count; ++k )
    {
        double b = k < count ? points[k] : span;
        double fb = cnPolyEval( c, 4, b );
        if ( fa > 0.0 && fb <= 0.0 )
        {
            root = fb == 0.0 ? b : cnPolyBracketRoot( c, 4, a, b, fa );
            break;
        }
        a = b;
        fa = fb;
    }
    if ( root < 0.0 )
    {
        return false;
    }

    // polish on the signed distance, in the original lengths
    double s = start + root * bound;
    for ( int iteration = 0; iteration < 4; ++iteration )
    {
        cnVec3 gradient;
        double h = cnTorusDistance( torus->majorRadius, torus->minorRadius, cnMulAdd( p, s, u ), &gradient );
        double slope = cnDot( gradient, u );
        if ( h == 0.0 || slope == 0.0 )
        {
            break;
        }
        double step = h / slope;
        if ( !( fabs( step ) < 1.0e-6 * bound ) )
        {
            break;
        }
        s -= step;
    }
    s = s < 0.0 ? 0.0 : s;
    double t = s / length;
    if ( t > maxFraction )
    {
        return false;
    }
    cnVec3 gradient;
    cnTorusDistance( torus->majorRadius, torus->minorRadius, cnMulAdd( p, s, u ), &gradient );
    out->fraction = t;
    out->normal = gradient;
    return true;
}

// ---------------------------------------------------------------------------------------------
// dispatch

bool cnRayCastLocal( const cnGeometry* geometry, const cnHull* hull, cnVec3 origin, cnVec3 translation,
                     double maxFraction, cnRayHitLocal* out )
{
    if ( !( maxFraction >= 0.0 ) || cnIsFiniteVec3( origin ) == false ||
         cnIsFiniteVec3( translation ) == false || cnLengthSquared( translation ) == 0.0 )
    {
        return false;
    }
    switch ( geometry->type )
    {
        case cn_sphereShape:
            return cnRaySphere( geometry->sphere.radius, cn_vec3Zero, origin, translation, maxFraction, out );
        case cn_boxShape:
            return cnRayBox( geometry->box.halfExtents, origin, translation, maxFraction, out );
        case cn_capsuleShape:
            return cnRayCapsule( geometry->capsule.radius, geometry->capsule.halfLength, origin, translation,
                                 maxFraction, out );
        case cn_cylinderShape:
            return cnRayCylinder( geometry->cylinder.radius, geometry->cylinder.halfLength, origin,
                                  translation, maxFraction, out );
        case cn_ellipsoidShape:
            return cnRayEllipsoid( geometry->ellipsoid.radii, origin, translation, maxFraction, out );
        case cn_torusShape:
            return cnRayTorus( &geometry->torus, origin, translation, maxFraction, out );
        case cn_hullShape:
            return cnRayHull( hull, origin, translation, maxFraction, out );
        case cn_planeShape:
            return cnRayPlane( &geometry->plane, origin, translation, maxFraction, out );
        default:
            return false;
    }
}

bool cnRayCastShape( const cnCollisionShape* shape, cnVec3 origin, cnVec3 translation, double maxFraction,
                     cnRayHitLocal* out )
{
    cnVec3 p = cnInvTransformPoint( shape->transform, origin );
    cnVec3 d = cnInvRotate( shape->transform.q, translation );
    cnRayHitLocal local;
    if ( cnRayCastLocal( shape->geometry, shape->hull, p, d, maxFraction, &local ) == false )
    {
        return false;
    }
    out->fraction = local.fraction;
    out->normal = cnRotate( shape->transform.q, local.normal );
    return true;
}

bool cnRayOverlapsAABB( cnAABB box, cnVec3 origin, cnVec3 translation, double maxFraction )
{
    double enter = 0.0;
    double exit = maxFraction;
    const double* p = &origin.x;
    const double* d = &translation.x;
    const double* lower = &box.lower.x;
    const double* upper = &box.upper.x;
    for ( int axis = 0; axis < 3; ++axis )
    {
        if ( d[axis] == 0.0 )
        {
            if ( p[axis] < lower[axis] || p[axis] > upper[axis] )
            {
                return false;
            }
            continue;
        }
        double inv = 1.0 / d[axis];
        double t0 = ( lower[axis] - p[axis] ) * inv;
        double t1 = ( upper[axis] - p[axis] ) * inv;
        if ( t0 > t1 )
        {
            double swap = t0;
            t0 = t1;
            t1 = swap;
        }
        enter = t0 > enter ? t0 : enter;
        exit = t1 < exit ? t1 : exit;
        if ( enter > exit )
        {
            return false;
        }
    }
    return true;
}
