// SPDX-License-Identifier: MIT
// Closed-form narrowphase pairs.
//
// Why these pairs are not left to libccd: a single GJK/EPA or MPR point per step makes a box rock
// on its corners and a lying capsule roll and sink (peers.md section 3: capsule rows, libccd #25 and
// #49: NaN for face-touching boxes, division by zero at zero depth). Every function here builds the
// whole manifold in one call from exact geometry:
// - round shapes (sphere, capsule) reduce to closest points between a point or a segment and the
//   other shape, then subtract the radii;
// - boxes use the separating axis test over the 15 axes (3 + 3 face normals, 9 edge cross products),
//   preferring face axes when an edge axis is not clearly better (a resting box must not flip to an
//   edge axis because of round-off), then clip the incident face against the side planes of the
//   reference face (Sutherland-Hodgman), as Box2D does in 2D and ODE's dBoxBox in 3D;
// - convex shapes on a plane take the vertices (or rim points) within the margin.
// More than 4 candidate points are reduced to 4 that span the area: the deepest point, the point
// farthest from it, the point making the largest triangle with those two, and the point adding the
// most area outside that triangle.
//
// Feature ids are built from feature indices only (never from positions), so they stay the same
// while the same features touch. Bit layouts are given where each function builds them.

#include "closed_form.h"

#include "ccd_support.h"
#include "core.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>

// two directions count as parallel when the sine of their angle is below this (capsule pairs)
#define CN_PARALLEL_SINE 0.005
// Capsules lying along each other within this angle (about 11.5 degrees) touch along a stretch,
// not at a point: rods side by side in a colony. One point would let a rod turn about it into
// its neighbour, so they get the ends of their overlap (and the closest point between them).
#define CN_ALONGSIDE_SINE 0.2

// edge cross products shorter than this (sine of the edge angle) are skipped: parallel edges are
// covered by the face axes
#define CN_EDGE_AXIS_SINE 1.0e-6

// separating-axis bias, relative to the size of the shapes (the sum of the largest half extents):
// the face of B replaces the face of A, and an edge axis replaces the faces, only when it separates
// more by this much (or separates while the other overlaps). The reported depth can then exceed the
// least penetration by up to the bias: 0.5 mm and 1 mm for metre-sized boxes.
#define CN_FACE_BIAS 5.0e-4
#define CN_EDGE_BIAS 1.0e-3

// lengths below this fraction of the shapes' size count as zero (coincident points, empty clips)
#define CN_RELATIVE_EPSILON 1.0e-12

// ---------------------------------------------------------------------------------------------
// small vector helpers

static double cnGetComponent( cnVec3 v, int k )
{
    return k == 0 ? v.x : ( k == 1 ? v.y : v.z );
}

static cnVec3 cnSetComponent( cnVec3 v, int k, double value )
{
    if ( k == 0 )
    {
        v.x = value;
    }
    else if ( k == 1 )
    {
        v.y = value;
    }
    else
    {
        v.z = value;
    }
    return v;
}

static cnVec3 cnUnitAxis( int k )
{
    return cnSetComponent( cn_vec3Zero, k, 1.0 );
}

static double cnClamp( double value, double low, double high )
{
    return value < low ? low : ( value > high ? high : value );
}

// +1 for non-negative values, -1 for negative ones (zero picks +1: deterministic)
static double cnSignOf( double value )
{
    return value < 0.0 ? -1.0 : 1.0;
}

// ---------------------------------------------------------------------------------------------
// manifold output

static void cnBeginManifold( cnManifold* manifold )
{
    manifold->pointCount = 0;
    manifold->normal = cnUnitAxis( 2 );
}

// add a point from the two surface points (world); separation is along the manifold normal
static void cnPushPoint( const cnCollisionShape* a, const cnCollisionShape* b, cnVec3 pointA, cnVec3 pointB,
                         double separation, uint32_t id, cnManifold* manifold )
{
    CN_ASSERT( manifold->pointCount < CN_MAX_MANIFOLD_POINTS );
    if ( manifold->pointCount >= CN_MAX_MANIFOLD_POINTS )
    {
        return;
    }
    cnManifoldPoint* mp = manifold->points + manifold->pointCount;
    mp->point = cnScale( 0.5, cnAdd( pointA, pointB ) );
    mp->localA = cnInvTransformPoint( a->transform, pointA );
    mp->localB = cnInvTransformPoint( b->transform, pointB );
    mp->separation = separation;
    mp->id = id;
    manifold->pointCount += 1;
}

// the plane of shape `s` in world space: unit normal and offset of dot(n, x) <= offset. A normal that
// is not unit length is normalized with its offset; a zero or non-finite normal becomes +z (the
// offset is kept), so the result stays finite.
static void cnWorldPlane( const cnCollisionShape* s, cnVec3* outNormal, double* outOffset )
{
    cnVec3 n = s->geometry->plane.normal;
    double offset = s->geometry->plane.offset;
    double length = cnLength( n );
    if ( length > 0.0 && isfinite( length ) )
    {
        n = cnScale( 1.0 / length, n );
        offset /= length;
    }
    else
    {
        n = cnUnitAxis( 2 );
    }
    cnVec3 world = cnRotate( s->transform.q, n );
    *outNormal = world;
    *outOffset = offset + cnDot( world, s->transform.p );
}

// ---------------------------------------------------------------------------------------------
// candidate points and their reduction to at most 4 spanning the area

// a possible manifold point: surface points on A and B (world) and the separation along the normal
typedef struct cnCandidate
{
    cnVec3 pointA;
    cnVec3 pointB;
    double separation;
    uint32_t id;
} cnCandidate;

// candidates are produced on demand, so that a hull with many vertices needs no storage:
// false when candidate `index` is not eligible (beyond the margin)
typedef bool cnCandidateFcn( const void* context, int index, cnCandidate* out );

typedef struct cnCandidateArray
{
    const cnCandidate* items; // (count)
    double margin;
} cnCandidateArray;

static bool cnArrayCandidate( const void* context, int index, cnCandidate* out )
{
    const cnCandidateArray* array = context;
    *out = array->items[index];
    return out->separation < array->margin;
}

// pick at most 4 of `count` candidates: the deepest, the farthest from it (across the normal), the one
// making the largest triangle, the one adding the most area outside it. Ties go to the lower index.
// `epsilon` is a length below which points count as coincident. Returns the number picked.
static int cnReduceCandidates( cnCandidateFcn* fcn, const void* context, int count, cnVec3 normal,
                               double epsilon, int picked[CN_MAX_MANIFOLD_POINTS] )
{
    cnCandidate c;
    cnVec3 p[3] = { cn_vec3Zero, cn_vec3Zero, cn_vec3Zero };

    // deepest; separations within epsilon count as equal, so that a resting face keeps the same
    // first point whatever the round-off
    int best = -1;
    double bestValue = DBL_MAX;
    for ( int i = 0; i < count; ++i )
    {
        if ( fcn( context, i, &c ) && ( best < 0 || c.separation < bestValue - epsilon ) )
        {
            best = i;
            bestValue = c.separation;
        }
    }
    if ( best < 0 )
    {
        return 0;
    }
    picked[0] = best;
    fcn( context, best, &c );
    p[0] = c.pointA;

    // farthest from it, across the normal
    best = -1;
    bestValue = epsilon * epsilon;
    for ( int i = 0; i < count; ++i )
    {
        if ( fcn( context, i, &c ) )
        {
            cnVec3 d = cnSub( c.pointA, p[0] );
            d = cnMulAdd( d, -cnDot( d, normal ), normal );
            double value = cnLengthSquared( d );
            if ( value > bestValue )
            {
                best = i;
                bestValue = value;
            }
        }
    }
    if ( best < 0 )
    {
        return 1;
    }
    picked[1] = best;
    fcn( context, best, &c );
    p[1] = c.pointA;

    // largest triangle (twice its signed area along the normal)
    cnVec3 edge = cnSub( p[1], p[0] );
    double edgeLength = cnLength( edge );
    best = -1;
    bestValue = epsilon * edgeLength;
    double orientation = 1.0;
    for ( int i = 0; i < count; ++i )
    {
        if ( fcn( context, i, &c ) )
        {
            double area = cnDot( cnCross( edge, cnSub( c.pointA, p[0] ) ), normal );
            if ( fabs( area ) > bestValue )
            {
                best = i;
                bestValue = fabs( area );
                orientation = cnSignOf( area );
            }
        }
    }
    if ( best < 0 )
    {
        return 2;
    }
    picked[2] = best;
    fcn( context, best, &c );
    p[2] = c.pointA;

    // most area added outside the triangle: the largest negative area against one of its edges
    best = -1;
    bestValue = epsilon * edgeLength;
    for ( int i = 0; i < count; ++i )
    {
        if ( fcn( context, i, &c ) )
        {
            double outside = 0.0;
            for ( int e = 0; e < 3; ++e )
            {
                cnVec3 from = p[e];
                cnVec3 to = p[( e + 1 ) % 3];
                double area =
                    orientation * cnDot( cnCross( cnSub( to, from ), cnSub( c.pointA, from ) ), normal );
                outside = fmax( outside, -area );
            }
            if ( outside > bestValue )
            {
                best = i;
                bestValue = outside;
            }
        }
    }
    if ( best < 0 )
    {
        return 3;
    }
    picked[3] = best;
    return 4;
}

// reduce and push: the manifold normal must already be set
static void cnPushReduced( const cnCollisionShape* a, const cnCollisionShape* b, cnCandidateFcn* fcn,
                           const void* context, int count, double epsilon, cnManifold* manifold )
{
    int picked[CN_MAX_MANIFOLD_POINTS] = { 0, 0, 0, 0 };
    int n = cnReduceCandidates( fcn, context, count, manifold->normal, epsilon, picked );
    for ( int i = 0; i < n; ++i )
    {
        cnCandidate c;
        fcn( context, picked[i], &c );
        cnPushPoint( a, b, c.pointA, c.pointB, c.separation, c.id, manifold );
    }
}

// ---------------------------------------------------------------------------------------------
// closest points between two segments p0 + s d1 and q0 + t d2 (s, t in [0, 1]), after Ericson,
// Real-Time Collision Detection 5.1.9. Zero-length segments are points. Parallel segments: the
// middle of the overlap of their extents (or the nearest ends), so the answer does not jump.

void cnClosestSegmentSegment( cnVec3 p0, cnVec3 d1, cnVec3 q0, cnVec3 d2, double* outS, double* outT )
{
    cnVec3 r = cnSub( p0, q0 );
    double a = cnDot( d1, d1 );
    double e = cnDot( d2, d2 );
    double f = cnDot( d2, r );
    double s = 0.0, t = 0.0;

    if ( a <= DBL_MIN && e <= DBL_MIN )
    {
        s = 0.0;
        t = 0.0;
    }
    else if ( a <= DBL_MIN )
    {
        s = 0.0;
        t = cnClamp( f / e, 0.0, 1.0 );
    }
    else
    {
        double c = cnDot( d1, r );
        if ( e <= DBL_MIN )
        {
            t = 0.0;
            s = cnClamp( -c / a, 0.0, 1.0 );
        }
        else
        {
            double b = cnDot( d1, d2 );
            double denominator = a * e - b * b;
            if ( denominator > 1.0e-14 * a * e )
            {
                s = cnClamp( ( b * f - c * e ) / denominator, 0.0, 1.0 );
            }
            else
            {
                // parallel: middle of the overlap of q's extent projected on p's line
                double s0 = -c / a;
                double s1 = ( b - c ) / a;
                double low = cnClamp( fmin( s0, s1 ), 0.0, 1.0 );
                double high = cnClamp( fmax( s0, s1 ), 0.0, 1.0 );
                s = 0.5 * ( low + high );
            }
            t = ( b * s + f ) / e;
            if ( t < 0.0 )
            {
                t = 0.0;
                s = cnClamp( -c / a, 0.0, 1.0 );
            }
            else if ( t > 1.0 )
            {
                t = 1.0;
                s = cnClamp( ( b - c ) / a, 0.0, 1.0 );
            }
        }
    }
    *outS = s;
    *outT = t;
}

// parameter of the point of segment p0 + t d (t in [0, 1]) closest to x
static double cnClosestOnSegment( cnVec3 p0, cnVec3 d, cnVec3 x )
{
    double dd = cnDot( d, d );
    return dd > DBL_MIN ? cnClamp( cnDot( cnSub( x, p0 ), d ) / dd, 0.0, 1.0 ) : 0.0;
}

// world end points of a capsule's core segment: start and start-to-end vector
static void cnCapsuleSegment( const cnCollisionShape* s, cnVec3* outStart, cnVec3* outDirection )
{
    double h = s->geometry->capsule.halfLength;
    cnVec3 axis = cnRotateAxis( s->transform.q, 2 );
    *outStart = cnMulAdd( s->transform.p, -h, axis );
    *outDirection = cnScale( 2.0 * h, axis );
}

// ---------------------------------------------------------------------------------------------
// sphere pairs

// two round cores: a point on A's core and one on B's core, radii rA and rB. Coincident cores take
// `fallback` (a unit vector) as the normal.
static void cnCollideCores( const cnCollisionShape* a, const cnCollisionShape* b, cnVec3 coreA,
                            double radiusA, cnVec3 coreB, double radiusB, cnVec3 fallback, double margin,
                            uint32_t id, cnManifold* manifold )
{
    cnVec3 d = cnSub( coreB, coreA );
    double distance = cnLength( d );
    double separation = distance - radiusA - radiusB;
    if ( separation >= margin )
    {
        return;
    }
    // the cores' coordinates carry round-off of their own size: below that, d has no direction
    double position = fmax( fmax( fabs( coreA.x ), fabs( coreA.y ) ), fabs( coreA.z ) ) +
                      fmax( fmax( fabs( coreB.x ), fabs( coreB.y ) ), fabs( coreB.z ) );
    double scale = radiusA + radiusB + fabs( distance ) + position;
    cnVec3 normal = distance > CN_RELATIVE_EPSILON * scale ? cnScale( 1.0 / distance, d ) : fallback;
    manifold->normal = normal;
    cnVec3 pointA = cnMulAdd( coreA, radiusA, normal );
    cnVec3 pointB = cnMulAdd( coreB, -radiusB, normal );
    // with a fallback normal the distance along it is still exact: the cores coincide
    separation = cnDot( cnSub( coreB, coreA ), normal ) - radiusA - radiusB;
    cnPushPoint( a, b, pointA, pointB, separation, id, manifold );
}

void cnCollideSpheres( const cnCollisionShape* a, const cnCollisionShape* b, double margin,
                       const cnManifold* previous, cnManifold* manifold )
{
    (void)previous;
    cnBeginManifold( manifold );
    // coincident centres: the direction is not unique; we pick world +z
    cnCollideCores( a, b, a->transform.p, a->geometry->sphere.radius, b->transform.p,
                    b->geometry->sphere.radius, cnUnitAxis( 2 ), margin, 0u, manifold );
}

void cnCollideSphereCapsule( const cnCollisionShape* a, const cnCollisionShape* b, double margin,
                             const cnManifold* previous, cnManifold* manifold )
{
    (void)previous;
    cnBeginManifold( manifold );
    cnVec3 start, direction;
    cnCapsuleSegment( b, &start, &direction );
    cnVec3 centre = a->transform.p;
    double t = cnClosestOnSegment( start, direction, centre );
    cnVec3 core = cnMulAdd( start, t, direction );
    // centre on the core segment: the direction is not unique; we pick one perpendicular to the
    // capsule axis (cnPerpendicular of the axis)
    cnVec3 axis = cnRotateAxis( b->transform.q, 2 );
    cnCollideCores( a, b, centre, a->geometry->sphere.radius, core, b->geometry->capsule.radius,
                    cnPerpendicular( axis ), margin, 0u, manifold );
}

void cnCollideSpherePlane( const cnCollisionShape* a, const cnCollisionShape* b, double margin,
                           const cnManifold* previous, cnManifold* manifold )
{
    (void)previous;
    cnBeginManifold( manifold );
    cnVec3 n;
    double offset;
    cnWorldPlane( b, &n, &offset );
    manifold->normal = cnNeg( n );
    double radius = a->geometry->sphere.radius;
    cnVec3 centre = a->transform.p;
    double separation = cnDot( n, centre ) - offset - radius;
    if ( separation >= margin )
    {
        return;
    }
    cnVec3 pointA = cnMulAdd( centre, -radius, n );
    cnVec3 pointB = cnMulAdd( pointA, -separation, n );
    cnPushPoint( a, b, pointA, pointB, separation, 0u, manifold );
}

void cnCollideSphereBox( const cnCollisionShape* a, const cnCollisionShape* b, double margin,
                         const cnManifold* previous, cnManifold* manifold )
{
    (void)previous;
    cnBeginManifold( manifold );
    double radius = a->geometry->sphere.radius;
    cnVec3 h = b->geometry->box.halfExtents;
    cnVec3 c = cnInvTransformPoint( b->transform, a->transform.p );

    // closest box point to the centre, in the box frame
    cnVec3 q = cnMakeVec3( cnClamp( c.x, -h.x, h.x ), cnClamp( c.y, -h.y, h.y ), cnClamp( c.z, -h.z, h.z ) );
    cnVec3 d = cnSub( c, q );
    double distance = cnLength( d );
    cnVec3 outward; // box normal at the contact, box frame, pointing at the sphere
    double separation;
    if ( distance > 0.0 )
    {
        outward = cnScale( 1.0 / distance, d );
        separation = distance - radius;
    }
    else
    {
        // centre inside (or on) the box: the face it is nearest to; ties go to the lower axis, and a
        // centre on a mid-plane picks the + face
        int axis = 0;
        double depth = DBL_MAX;
        for ( int k = 0; k < 3; ++k )
        {
            double value = cnGetComponent( h, k ) - fabs( cnGetComponent( c, k ) );
            if ( value < depth )
            {
                depth = value;
                axis = k;
            }
        }
        double sign = cnSignOf( cnGetComponent( c, axis ) );
        outward = cnScale( sign, cnUnitAxis( axis ) );
        q = cnSetComponent( c, axis, sign * cnGetComponent( h, axis ) );
        separation = -depth - radius;
    }
    if ( separation >= margin )
    {
        return;
    }
    cnVec3 normal = cnNeg( cnRotate( b->transform.q, outward ) );
    manifold->normal = normal;
    cnVec3 pointA = cnMulAdd( a->transform.p, radius, normal );
    cnVec3 pointB = cnTransformPoint( b->transform, q );
    cnPushPoint( a, b, pointA, pointB, separation, 0u, manifold );
}

// ---------------------------------------------------------------------------------------------
// box against plane

// box vertex `index` in the box frame: bit 0 +x, bit 1 +y, bit 2 +z
static cnVec3 cnBoxVertex( cnVec3 h, int index )
{
    return cnMakeVec3( ( index & 1 ) ? h.x : -h.x, ( index & 2 ) ? h.y : -h.y, ( index & 4 ) ? h.z : -h.z );
}

// shape points (world, pointA) against a plane (normal n, offset): candidate with its plane point
static cnCandidate cnPlaneCandidate( cnVec3 point, cnVec3 n, double offset, uint32_t id )
{
    cnCandidate c;
    c.pointA = point;
    c.separation = cnDot( n, point ) - offset;
    c.pointB = cnMulAdd( point, -c.separation, n );
    c.id = id;
    return c;
}

void cnCollideBoxPlane( const cnCollisionShape* a, const cnCollisionShape* b, double margin,
                        const cnManifold* previous, cnManifold* manifold )
{
    (void)previous;
    cnBeginManifold( manifold );
    cnVec3 n;
    double offset;
    cnWorldPlane( b, &n, &offset );
    manifold->normal = cnNeg( n );
    cnVec3 h = a->geometry->box.halfExtents;

    cnCandidate items[8];
    for ( int i = 0; i < 8; ++i )
    {
        items[i] =
            cnPlaneCandidate( cnTransformPoint( a->transform, cnBoxVertex( h, i ) ), n, offset, (uint32_t)i );
    }
    cnCandidateArray array = { items, margin };
    double epsilon = CN_RELATIVE_EPSILON * ( h.x + h.y + h.z );
    cnPushReduced( a, b, cnArrayCandidate, &array, 8, epsilon, manifold );
}

// ---------------------------------------------------------------------------------------------
// box against box

// a box in world space: centre, axes (unit columns of its rotation) and half extents
typedef struct cnBoxFrame
{
    cnVec3 centre;
    cnVec3 axis[3];
    double h[3];
} cnBoxFrame;

static cnBoxFrame cnMakeBoxFrame( const cnCollisionShape* s )
{
    cnBoxFrame f;
    f.centre = s->transform.p;
    for ( int k = 0; k < 3; ++k )
    {
        f.axis[k] = cnRotateAxis( s->transform.q, k );
        f.h[k] = cnGetComponent( s->geometry->box.halfExtents, k );
    }
    return f;
}

// half the width of a box's projection on the unit axis L
static double cnBoxProjection( const cnBoxFrame* box, cnVec3 axis )
{
    return box->h[0] * fabs( cnDot( box->axis[0], axis ) ) + box->h[1] * fabs( cnDot( box->axis[1], axis ) ) +
           box->h[2] * fabs( cnDot( box->axis[2], axis ) );
}

// a vertex of a clipped polygon: the polygon edges entering and leaving it (tags 0..3: incident face
// edges, 4..7: reference side planes), which name the features that make it
typedef struct cnClipVertex
{
    cnVec3 p;
    uint32_t in;
    uint32_t out;
} cnClipVertex;

// clip a convex polygon against dot(n, x) <= d, the side plane tagged `tag`; at most count + 1 out
static int cnClipPolygon( const cnClipVertex* in, int count, cnVec3 n, double d, uint32_t tag,
                          cnClipVertex* out )
{
    int outCount = 0;
    for ( int i = 0; i < count; ++i )
    {
        cnClipVertex v0 = in[i];
        cnClipVertex v1 = in[( i + 1 ) % count];
        double d0 = cnDot( n, v0.p ) - d;
        double d1 = cnDot( n, v1.p ) - d;
        bool inside0 = d0 <= 0.0;
        bool inside1 = d1 <= 0.0;
        if ( inside0 )
        {
            out[outCount++] = v0;
        }
        if ( inside0 != inside1 )
        {
            // the edge v0 -> v1 (tag v0.out) crosses the plane; d0 != d1 here
            cnClipVertex x;
            x.p = cnAdd( v0.p, cnScale( d0 / ( d0 - d1 ), cnSub( v1.p, v0.p ) ) );
            if ( inside0 )
            {
                x.in = v0.out;
                x.out = tag;
            }
            else
            {
                x.in = tag;
                x.out = v0.out;
            }
            out[outCount++] = x;
        }
    }
    return outCount;
}

// does an axis with separation `candidate` replace the preferred one? Only when it separates more
// by the bias, or when it separates and the preferred one does not (the bias must not turn shapes
// that are apart into overlapping ones)
static bool cnClearlyBetter( double candidate, double preferred, double bias )
{
    return candidate > preferred + bias || ( candidate > 0.0 && preferred <= 0.0 );
}

// the best axis of one kind: separation, index, sign (+1: along the axis from A to B)
typedef struct cnAxisQuery
{
    double separation;
    int index;
    double sign;
} cnAxisQuery;

// face contact: reference box `ref` with face normal axis `axisIndex` signed `sign` (pointing at the
// incident box), incident box `inc`. Ids (bits): 16 reference is B, 12..14 reference face,
// 8..10 incident face, 4..6 and 0..2 the tags of the two polygon edges meeting at the point.
static void cnBoxFaceContact( const cnCollisionShape* a, const cnCollisionShape* b, const cnBoxFrame* ref,
                              const cnBoxFrame* inc, int axisIndex, double sign, bool referenceIsB,
                              double margin, double epsilon, cnManifold* manifold )
{
    cnVec3 refNormal = cnScale( sign, ref->axis[axisIndex] );
    uint32_t refFace = (uint32_t)( 2 * axisIndex + ( sign < 0.0 ? 1 : 0 ) );
    manifold->normal = referenceIsB ? cnNeg( refNormal ) : refNormal;

    // incident face: the face of `inc` most anti-parallel to the reference normal
    int k = 0;
    double best = -1.0;
    for ( int i = 0; i < 3; ++i )
    {
        double value = fabs( cnDot( inc->axis[i], refNormal ) );
        if ( value > best )
        {
            best = value;
            k = i;
        }
    }
    double incSign = -cnSignOf( cnDot( inc->axis[k], refNormal ) );
    uint32_t incFace = (uint32_t)( 2 * k + ( incSign < 0.0 ? 1 : 0 ) );
    int ku = ( k + 1 ) % 3;
    int kv = ( k + 2 ) % 3;
    cnVec3 faceCentre = cnMulAdd( inc->centre, incSign * inc->h[k], inc->axis[k] );
    cnVec3 u = cnScale( inc->h[ku], inc->axis[ku] );
    cnVec3 v = cnScale( inc->h[kv], inc->axis[kv] );
    static const double corners[4][2] = { { 1.0, 1.0 }, { -1.0, 1.0 }, { -1.0, -1.0 }, { 1.0, -1.0 } };

    // polygon buffers: each clip adds at most one vertex
    cnClipVertex polygon[8];
    cnClipVertex clipped[8];
    for ( int i = 0; i < 4; ++i )
    {
        polygon[i].p = cnAdd( faceCentre, cnAdd( cnScale( corners[i][0], u ), cnScale( corners[i][1], v ) ) );
        polygon[i].in = (uint32_t)( ( i + 3 ) % 4 );
        polygon[i].out = (uint32_t)i;
    }
    int count = 4;

    // clip against the four side planes of the reference face
    int ru = ( axisIndex + 1 ) % 3;
    int rv = ( axisIndex + 2 ) % 3;
    const int sideAxes[4] = { ru, ru, rv, rv };
    const double sideSigns[4] = { 1.0, -1.0, 1.0, -1.0 };
    for ( int m = 0; m < 4 && count > 0; ++m )
    {
        cnVec3 n = cnScale( sideSigns[m], ref->axis[sideAxes[m]] );
        double d = cnDot( n, ref->centre ) + ref->h[sideAxes[m]];
        count = cnClipPolygon( polygon, count, n, d, (uint32_t)( 4 + m ), clipped );
        for ( int i = 0; i < count; ++i )
        {
            polygon[i] = clipped[i];
        }
    }

    // separations from the reference face
    double refOffset = cnDot( refNormal, ref->centre ) + ref->h[axisIndex];
    uint32_t base = ( referenceIsB ? 1u << 16 : 0u ) | ( refFace << 12 ) | ( incFace << 8 );
    cnCandidate items[8];
    for ( int i = 0; i < count; ++i )
    {
        cnVec3 p = polygon[i].p;
        double separation = cnDot( refNormal, p ) - refOffset;
        cnVec3 onRef = cnMulAdd( p, -separation, refNormal );
        items[i].separation = separation;
        items[i].pointA = referenceIsB ? p : onRef;
        items[i].pointB = referenceIsB ? onRef : p;
        items[i].id = base | ( polygon[i].in << 4 ) | polygon[i].out;
    }

    int eligible = 0;
    for ( int i = 0; i < count; ++i )
    {
        eligible += items[i].separation < margin ? 1 : 0;
    }
    if ( eligible == 0 )
    {
        // nothing of the incident face lies over the reference face (a corner reaching past a face
        // it barely overlaps, or a speculative pair offset sideways): report the incident vertex
        // deepest along the reference normal, id bit 20 plus its vertex index
        int vertex = 0;
        double deepest = DBL_MAX;
        for ( int i = 0; i < 4; ++i )
        {
            cnVec3 p = cnAdd( faceCentre, cnAdd( cnScale( corners[i][0], u ), cnScale( corners[i][1], v ) ) );
            double separation = cnDot( refNormal, p ) - refOffset;
            if ( separation < deepest )
            {
                deepest = separation;
                vertex = i;
                items[0].pointA = p;
            }
        }
        if ( deepest >= margin )
        {
            return;
        }
        cnVec3 p = items[0].pointA;
        cnVec3 onRef = cnMulAdd( p, -deepest, refNormal );
        items[0].separation = deepest;
        items[0].pointA = referenceIsB ? p : onRef;
        items[0].pointB = referenceIsB ? onRef : p;
        items[0].id = base | ( 1u << 20 ) | (uint32_t)vertex;
        count = 1;
    }

    cnCandidateArray array = { items, margin };
    cnPushReduced( a, b, cnArrayCandidate, &array, count, epsilon, manifold );
}

void cnCollideBoxes( const cnCollisionShape* a, const cnCollisionShape* b, double margin,
                     const cnManifold* previous, cnManifold* manifold )
{
    (void)previous;
    cnBeginManifold( manifold );
    cnBoxFrame boxA = cnMakeBoxFrame( a );
    cnBoxFrame boxB = cnMakeBoxFrame( b );
    cnVec3 t = cnSub( boxB.centre, boxA.centre );
    double scale =
        fmax( fmax( boxA.h[0], boxA.h[1] ), boxA.h[2] ) + fmax( fmax( boxB.h[0], boxB.h[1] ), boxB.h[2] );

    // faces of A
    cnAxisQuery faceA = { -DBL_MAX, 0, 1.0 };
    for ( int i = 0; i < 3; ++i )
    {
        double d = cnDot( t, boxA.axis[i] );
        double separation = fabs( d ) - boxA.h[i] - cnBoxProjection( &boxB, boxA.axis[i] );
        if ( separation >= margin )
        {
            return;
        }
        if ( separation > faceA.separation )
        {
            faceA = ( cnAxisQuery ){ separation, i, cnSignOf( d ) };
        }
    }

    // faces of B
    cnAxisQuery faceB = { -DBL_MAX, 0, 1.0 };
    for ( int j = 0; j < 3; ++j )
    {
        double d = cnDot( t, boxB.axis[j] );
        double separation = fabs( d ) - boxB.h[j] - cnBoxProjection( &boxA, boxB.axis[j] );
        if ( separation >= margin )
        {
            return;
        }
        if ( separation > faceB.separation )
        {
            faceB = ( cnAxisQuery ){ separation, j, cnSignOf( d ) };
        }
    }

    // edge pairs: index 3 i + j
    cnAxisQuery edge = { -DBL_MAX, -1, 1.0 };
    cnVec3 edgeAxis = cn_vec3Zero;
    for ( int i = 0; i < 3; ++i )
    {
        for ( int j = 0; j < 3; ++j )
        {
            cnVec3 axis = cnCross( boxA.axis[i], boxB.axis[j] );
            double length = cnLength( axis );
            if ( length < CN_EDGE_AXIS_SINE )
            {
                continue;
            }
            axis = cnScale( 1.0 / length, axis );
            double d = cnDot( t, axis );
            double separation = fabs( d ) - cnBoxProjection( &boxA, axis ) - cnBoxProjection( &boxB, axis );
            if ( separation >= margin )
            {
                return;
            }
            if ( separation > edge.separation )
            {
                edge = ( cnAxisQuery ){ separation, 3 * i + j, cnSignOf( d ) };
                edgeAxis = cnScale( cnSignOf( d ), axis );
            }
        }
    }

    // prefer A's face, then B's face, then an edge: each must beat the one before by a bias
    bool useB = cnClearlyBetter( faceB.separation, faceA.separation, CN_FACE_BIAS * scale );
    cnAxisQuery face = useB ? faceB : faceA;
    double epsilon = CN_RELATIVE_EPSILON * scale;
    if ( edge.index >= 0 && cnClearlyBetter( edge.separation, face.separation, CN_EDGE_BIAS * scale ) )
    {
        // edge-edge: the edge of A farthest along the axis, the edge of B farthest against it.
        // Id (bits): 24 edge contact, 4..7 edge of A (axis, two signs), 0..3 edge of B.
        int i = edge.index / 3;
        int j = edge.index % 3;
        cnVec3 centreA = boxA.centre;
        cnVec3 centreB = boxB.centre;
        uint32_t signsA = 0u, signsB = 0u;
        for ( int k = 1; k < 3; ++k )
        {
            int ka = ( i + k ) % 3;
            double sa = cnSignOf( cnDot( boxA.axis[ka], edgeAxis ) );
            centreA = cnMulAdd( centreA, sa * boxA.h[ka], boxA.axis[ka] );
            signsA |= sa > 0.0 ? 1u << ( k - 1 ) : 0u;
            int kb = ( j + k ) % 3;
            double sb = -cnSignOf( cnDot( boxB.axis[kb], edgeAxis ) );
            centreB = cnMulAdd( centreB, sb * boxB.h[kb], boxB.axis[kb] );
            signsB |= sb > 0.0 ? 1u << ( k - 1 ) : 0u;
        }
        cnVec3 startA = cnMulAdd( centreA, -boxA.h[i], boxA.axis[i] );
        cnVec3 startB = cnMulAdd( centreB, -boxB.h[j], boxB.axis[j] );
        double s, u;
        cnClosestSegmentSegment( startA, cnScale( 2.0 * boxA.h[i], boxA.axis[i] ), startB,
                                 cnScale( 2.0 * boxB.h[j], boxB.axis[j] ), &s, &u );
        cnVec3 pointA = cnMulAdd( startA, 2.0 * boxA.h[i] * s, boxA.axis[i] );
        cnVec3 pointB = cnMulAdd( startB, 2.0 * boxB.h[j] * u, boxB.axis[j] );
        double separation = cnDot( cnSub( pointB, pointA ), edgeAxis );
        manifold->normal = edgeAxis;
        if ( separation < margin )
        {
            uint32_t id =
                ( 1u << 24 ) | ( (uint32_t)( i << 2 ) | signsA ) << 4 | ( (uint32_t)( j << 2 ) | signsB );
            cnPushPoint( a, b, pointA, pointB, separation, id, manifold );
        }
        return;
    }

    if ( useB )
    {
        // B's face normal pointing at A
        cnBoxFaceContact( a, b, &boxB, &boxA, face.index, -face.sign, true, margin, epsilon, manifold );
    }
    else
    {
        cnBoxFaceContact( a, b, &boxA, &boxB, face.index, face.sign, false, margin, epsilon, manifold );
    }
}

// ---------------------------------------------------------------------------------------------
// box against capsule

// squared distance from the box |x_k| <= h_k to the segment c + t d, minimised over t in [0, 1]:
// piecewise quadratic in t with breaks where the segment crosses a slab plane, so minimise each
// piece exactly. Returns the best t (the lowest on ties).
static double cnSegmentBoxParameter( cnVec3 h, cnVec3 c, cnVec3 d )
{
    double breaks[8];
    int count = 0;
    breaks[count++] = 0.0;
    breaks[count++] = 1.0;
    for ( int k = 0; k < 3; ++k )
    {
        double dk = cnGetComponent( d, k );
        double ck = cnGetComponent( c, k );
        double hk = cnGetComponent( h, k );
        if ( dk != 0.0 )
        {
            for ( int side = -1; side <= 1; side += 2 )
            {
                double tb = ( (double)side * hk - ck ) / dk;
                if ( tb > 0.0 && tb < 1.0 )
                {
                    breaks[count++] = tb;
                }
            }
        }
    }
    // insertion sort: at most 8 values
    for ( int i = 1; i < count; ++i )
    {
        double value = breaks[i];
        int j = i - 1;
        while ( j >= 0 && breaks[j] > value )
        {
            breaks[j + 1] = breaks[j];
            --j;
        }
        breaks[j + 1] = value;
    }

    double bestT = 0.0;
    double bestValue = DBL_MAX;
    for ( int i = 0; i + 1 < count; ++i )
    {
        double t0 = breaks[i];
        double t1 = breaks[i + 1];
        double middle = 0.5 * ( t0 + t1 );
        // on this piece each axis is below, inside or above its slab: f = sum (e_k + t d_k)^2
        double numerator = 0.0, denominator = 0.0;
        for ( int k = 0; k < 3; ++k )
        {
            double dk = cnGetComponent( d, k );
            double ck = cnGetComponent( c, k );
            double hk = cnGetComponent( h, k );
            double x = ck + middle * dk;
            if ( x > hk || x < -hk )
            {
                double e = x > hk ? ck - hk : ck + hk;
                numerator += e * dk;
                denominator += dk * dk;
            }
        }
        double t = denominator > 0.0 ? cnClamp( -numerator / denominator, t0, t1 ) : t0;
        // evaluate exactly, whatever the piece
        double value = 0.0;
        for ( int k = 0; k < 3; ++k )
        {
            double x = cnGetComponent( c, k ) + t * cnGetComponent( d, k );
            double hk = cnGetComponent( h, k );
            double excess = fmax( fabs( x ) - hk, 0.0 );
            value += excess * excess;
        }
        if ( value < bestValue )
        {
            bestValue = value;
            bestT = t;
        }
    }
    return bestT;
}

// face contact of a box (A) and a capsule (B) in the box frame: clip the core segment p0 + t d to the
// face's side slabs and report both ends. Face: axis k, sign (outward normal sign e_k). Ids: face
// index << 4, plus 1 for the end nearer t = 1, plus 2 when the end was cut by a slab.
static void cnBoxCapsuleFace( const cnCollisionShape* a, const cnCollisionShape* b, cnVec3 h, cnVec3 p0,
                              cnVec3 d, double radius, int k, double sign, double margin, double epsilon,
                              bool deep, const cnManifold* previous, cnManifold* manifold )
{
    cnVec3 outward = cnScale( sign, cnUnitAxis( k ) );
    manifold->normal = cnRotate( a->transform.q, outward );

    // Liang-Barsky against the two side slabs
    double t0 = 0.0, t1 = 1.0;
    bool cut0 = false, cut1 = false;
    for ( int s = 1; s < 3; ++s )
    {
        int axis = ( k + s ) % 3;
        double dk = cnGetComponent( d, axis );
        double pk = cnGetComponent( p0, axis );
        double hk = cnGetComponent( h, axis );
        if ( dk == 0.0 )
        {
            continue;
        }
        double ta = ( -hk - pk ) / dk;
        double tb = ( hk - pk ) / dk;
        double low = fmin( ta, tb ), high = fmax( ta, tb );
        if ( low > t0 )
        {
            t0 = low;
            cut0 = true;
        }
        if ( high < t1 )
        {
            t1 = high;
            cut1 = true;
        }
    }
    if ( t0 > t1 )
    {
        // the closest point lies over the face, so this only happens by round-off: keep its middle
        t0 = t1 = cnClamp( 0.5 * ( t0 + t1 ), 0.0, 1.0 );
    }

    uint32_t face = (uint32_t)( 2 * k + ( sign < 0.0 ? 1 : 0 ) );
    bool single = ( t1 - t0 ) * cnLength( d ) <= epsilon;
    double ts[2] = { t0, t1 };
    uint32_t ids[2] = { ( face << 4 ) | ( cut0 ? 2u : 0u ), ( face << 4 ) | 1u | ( cut1 ? 2u : 0u ) };
    for ( int i = 0; i < ( single ? 1 : 2 ); ++i )
    {
        cnVec3 core = cnMulAdd( p0, ts[i], d );
        double separation = sign * cnGetComponent( core, k ) - cnGetComponent( h, k ) - radius;
        if ( separation >= margin )
        {
            continue;
        }
        cnVec3 onFace = cnSetComponent( core, k, sign * cnGetComponent( h, k ) );
        cnVec3 onCapsule = cnMulAdd( core, -radius, outward );
        cnPushPoint( a, b, cnTransformPoint( a->transform, onFace ),
                     cnTransformPoint( a->transform, onCapsule ), separation, ids[i], manifold );
    }

    // (only when the core crosses the box: a core beside the box projects past the face harmlessly)
    // a deep core that leaves the face through a side: clipping cut off its deepest end, and the
    // face points understate the overlap. Rare (a capsule far inside a box); the support-function
    // query finds the least-penetration direction and a consistent depth for it.
    double a0 = sign * cnGetComponent( p0, k );
    double a1 = sign * ( cnGetComponent( p0, k ) + cnGetComponent( d, k ) );
    double deepest = fmin( a0, a1 ) - cnGetComponent( h, k ) - radius;
    double reported = DBL_MAX;
    for ( int i = 0; i < manifold->pointCount; ++i )
    {
        reported = fmin( reported, manifold->points[i].separation );
    }
    if ( deep && deepest < margin && ( manifold->pointCount == 0 || reported > deepest + epsilon ) )
    {
        cnCollideConvex( a, b, margin, previous, manifold );
    }
}

void cnCollideBoxCapsule( const cnCollisionShape* a, const cnCollisionShape* b, double margin,
                          const cnManifold* previous, cnManifold* manifold )
{

    cnBeginManifold( manifold );
    cnVec3 h = a->geometry->box.halfExtents;
    double radius = b->geometry->capsule.radius;
    cnVec3 start, direction;
    cnCapsuleSegment( b, &start, &direction );
    // the core segment in the box frame
    cnVec3 p0 = cnInvTransformPoint( a->transform, start );
    cnVec3 d = cnInvRotate( a->transform.q, direction );
    double scale = h.x + h.y + h.z + radius + b->geometry->capsule.halfLength;
    double epsilon = CN_RELATIVE_EPSILON * scale;

    double t = cnSegmentBoxParameter( h, p0, d );
    cnVec3 core = cnMulAdd( p0, t, d );
    cnVec3 q = cnMakeVec3( cnClamp( core.x, -h.x, h.x ), cnClamp( core.y, -h.y, h.y ),
                           cnClamp( core.z, -h.z, h.z ) );
    cnVec3 diff = cnSub( core, q );
    double distance = cnLength( diff );
    if ( distance - radius >= margin )
    {
        return;
    }

    if ( distance > epsilon )
    {
        // apart: the closest box feature is a face (one coordinate clamped), an edge or a vertex
        int clamped = 0, faceAxis = 0;
        uint32_t region = 0u;
        for ( int k = 0; k < 3; ++k )
        {
            double x = cnGetComponent( core, k );
            double hk = cnGetComponent( h, k );
            if ( x > hk || x < -hk )
            {
                clamped += 1;
                faceAxis = k;
                region |= ( x > hk ? 1u : 2u ) << ( 2 * k );
            }
        }
        if ( clamped == 1 )
        {
            double sign = cnSignOf( cnGetComponent( core, faceAxis ) );
            cnBoxCapsuleFace( a, b, h, p0, d, radius, faceAxis, sign, margin, epsilon, false, NULL,
                              manifold );
            return;
        }
        // edge or vertex: one point, id bit 8 plus the region (2 bits per axis: above, below)
        cnVec3 outward = cnScale( 1.0 / distance, diff );
        manifold->normal = cnRotate( a->transform.q, outward );
        cnVec3 onCapsule = cnMulAdd( core, -radius, outward );
        cnPushPoint( a, b, cnTransformPoint( a->transform, q ), cnTransformPoint( a->transform, onCapsule ),
                     distance - radius, ( 1u << 8 ) | region, manifold );
        return;
    }

    // the core segment touches or crosses the box: separating axes of a segment and a box, the 3
    // face normals and the 3 cross products of the box edges with the segment; faces preferred
    double bestFace = -DBL_MAX, faceSign = 1.0;
    int faceAxis = 0;
    cnVec3 p1 = cnAdd( p0, d );
    for ( int k = 0; k < 3; ++k )
    {
        double a0 = cnGetComponent( p0, k ), a1 = cnGetComponent( p1, k ), hk = cnGetComponent( h, k );
        double plus = fmin( a0, a1 ) - hk;   // push the segment towards +e_k
        double minus = -fmax( a0, a1 ) - hk; // towards -e_k
        double separation = fmax( plus, minus );
        if ( separation > bestFace )
        {
            bestFace = separation;
            faceAxis = k;
            faceSign = plus >= minus ? 1.0 : -1.0;
        }
    }
    double bestEdge = -DBL_MAX;
    int edgeAxis = -1;
    cnVec3 edgeNormal = cn_vec3Zero;
    double dLength = cnLength( d );
    for ( int k = 0; k < 3; ++k )
    {
        cnVec3 axis = cnCross( cnUnitAxis( k ), d );
        double length = cnLength( axis );
        if ( length <= CN_EDGE_AXIS_SINE * dLength || length == 0.0 )
        {
            continue;
        }
        axis = cnScale( 1.0 / length, axis );
        double r = h.x * fabs( axis.x ) + h.y * fabs( axis.y ) + h.z * fabs( axis.z );
        // the segment is perpendicular to the axis: both ends project to the same value
        double projection = cnDot( axis, p0 );
        double separation = fabs( projection ) - r;
        if ( separation > bestEdge )
        {
            bestEdge = separation;
            edgeAxis = k;
            edgeNormal = cnScale( cnSignOf( projection ), axis );
        }
    }
    if ( edgeAxis < 0 || cnClearlyBetter( bestEdge, bestFace, CN_EDGE_BIAS * scale ) == false )
    {
        cnBoxCapsuleFace( a, b, h, p0, d, radius, faceAxis, faceSign, margin, epsilon, true, previous,
                          manifold );
        return;
    }

    // edge: the box edge along e_k farthest along the normal, against the core segment.
    // Id: bit 9 plus the edge (axis, two signs).
    cnVec3 edgeCentre = cn_vec3Zero;
    uint32_t signs = 0u;
    for ( int s = 1; s < 3; ++s )
    {
        int axis = ( edgeAxis + s ) % 3;
        double sign = cnSignOf( cnGetComponent( edgeNormal, axis ) );
        edgeCentre = cnSetComponent( edgeCentre, axis, sign * cnGetComponent( h, axis ) );
        signs |= sign > 0.0 ? 1u << ( s - 1 ) : 0u;
    }
    double hk = cnGetComponent( h, edgeAxis );
    cnVec3 edgeStart = cnSetComponent( edgeCentre, edgeAxis, -hk );
    double s, u;
    cnClosestSegmentSegment( edgeStart, cnScale( 2.0 * hk, cnUnitAxis( edgeAxis ) ), p0, d, &s, &u );
    cnVec3 onEdge = cnSetComponent( edgeCentre, edgeAxis, -hk + 2.0 * hk * s );
    cnVec3 onCore = cnMulAdd( p0, u, d );
    double separation = cnDot( cnSub( onCore, onEdge ), edgeNormal ) - radius;
    manifold->normal = cnRotate( a->transform.q, edgeNormal );
    if ( separation < margin )
    {
        cnVec3 onCapsule = cnMulAdd( onCore, -radius, edgeNormal );
        cnPushPoint( a, b, cnTransformPoint( a->transform, onEdge ),
                     cnTransformPoint( a->transform, onCapsule ), separation,
                     ( 1u << 9 ) | (uint32_t)( edgeAxis << 2 ) | signs, manifold );
    }
}

// ---------------------------------------------------------------------------------------------
// capsule pairs

void cnCollideCapsules( const cnCollisionShape* a, const cnCollisionShape* b, double margin,
                        const cnManifold* previous, cnManifold* manifold )
{
    (void)previous;
    cnBeginManifold( manifold );
    double ra = a->geometry->capsule.radius;
    double rb = b->geometry->capsule.radius;
    cnVec3 p0, d1, q0, d2;
    cnCapsuleSegment( a, &p0, &d1 );
    cnCapsuleSegment( b, &q0, &d2 );
    double scale = ra + rb + a->geometry->capsule.halfLength + b->geometry->capsule.halfLength;
    double epsilon = CN_RELATIVE_EPSILON * scale;

    double s, t;
    cnClosestSegmentSegment( p0, d1, q0, d2, &s, &t );
    cnVec3 coreA = cnMulAdd( p0, s, d1 );
    cnVec3 coreB = cnMulAdd( q0, t, d2 );
    cnVec3 diff = cnSub( coreB, coreA );
    double distance = cnLength( diff );
    if ( distance - ra - rb >= margin )
    {
        return;
    }

    double l1 = cnLength( d1 ), l2 = cnLength( d2 );
    cnVec3 cross = cnCross( d1, d2 );
    double sine = l1 > 0.0 && l2 > 0.0 ? cnLength( cross ) / ( l1 * l2 ) : 1.0;

    // normal: along the closest points; crossing cores take the common perpendicular, towards B's
    // centre; coincident parallel cores (or points) pick a perpendicular of A's axis, or world +z
    cnVec3 normal;
    if ( distance > epsilon )
    {
        normal = cnScale( 1.0 / distance, diff );
    }
    else if ( l1 > 0.0 && l2 > 0.0 && sine > CN_PARALLEL_SINE )
    {
        normal = cnNormalize( cross );
        if ( cnDot( normal, cnSub( b->transform.p, a->transform.p ) ) < 0.0 )
        {
            normal = cnNeg( normal );
        }
    }
    else if ( l1 > 0.0 )
    {
        normal = cnPerpendicular( cnScale( 1.0 / l1, d1 ) );
    }
    else if ( l2 > 0.0 )
    {
        normal = cnPerpendicular( cnScale( 1.0 / l2, d2 ) );
    }
    else
    {
        normal = cnUnitAxis( 2 );
    }
    manifold->normal = normal;

    // alongside with overlapping extents: the two ends of the overlap, on A's core, against B's
    // core, and between them the closest points when they are deeper than both ends (cores at a
    // small angle crossing, or nearly).
    // Ids: 0 and 1 for the low and high ends, plus 2 when the end is B's end point projected; 4 for
    // the closest points.
    if ( l1 > 0.0 && l2 > 0.0 && sine <= CN_ALONGSIDE_SINE )
    {
        double a2 = l1 * l1;
        double s0 = cnDot( cnSub( q0, p0 ), d1 ) / a2;
        double s1 = cnDot( cnSub( cnAdd( q0, d2 ), p0 ), d1 ) / a2;
        double low = fmin( s0, s1 ), high = fmax( s0, s1 );
        bool fromB0 = low > 0.0, fromB1 = high < 1.0;
        low = cnClamp( low, 0.0, 1.0 );
        high = cnClamp( high, 0.0, 1.0 );
        if ( ( high - low ) * l1 > epsilon )
        {
            double ends[2] = { low, high };
            uint32_t ids[2] = { fromB0 ? 2u : 0u, fromB1 ? 3u : 1u };
            double shallowest = -HUGE_VAL;
            for ( int i = 0; i < 2; ++i )
            {
                cnVec3 onA = cnMulAdd( p0, ends[i], d1 );
                cnVec3 onB = cnMulAdd( q0, cnClosestOnSegment( q0, d2, onA ), d2 );
                double separation = cnDot( cnSub( onB, onA ), normal ) - ra - rb;
                shallowest = fmax( shallowest, separation );
                if ( separation < margin )
                {
                    cnPushPoint( a, b, cnMulAdd( onA, ra, normal ), cnMulAdd( onB, -rb, normal ), separation,
                                 ids[i], manifold );
                }
            }
            double closest = cnDot( diff, normal ) - ra - rb;
            if ( sine > CN_PARALLEL_SINE && closest < shallowest - epsilon && s > low && s < high )
            {
                bool deeper = true;
                for ( int i = 0; i < manifold->pointCount; ++i )
                {
                    deeper = deeper && closest < manifold->points[i].separation - epsilon;
                }
                if ( deeper )
                {
                    cnPushPoint( a, b, cnMulAdd( coreA, ra, normal ), cnMulAdd( coreB, -rb, normal ), closest,
                                 4u, manifold );
                }
            }
            return;
        }
    }

    double separation = cnDot( diff, normal ) - ra - rb;
    cnPushPoint( a, b, cnMulAdd( coreA, ra, normal ), cnMulAdd( coreB, -rb, normal ), separation, 0u,
                 manifold );
}

void cnCollideCapsulePlane( const cnCollisionShape* a, const cnCollisionShape* b, double margin,
                            const cnManifold* previous, cnManifold* manifold )
{
    (void)previous;
    cnBeginManifold( manifold );
    cnVec3 n;
    double offset;
    cnWorldPlane( b, &n, &offset );
    manifold->normal = cnNeg( n );
    double radius = a->geometry->capsule.radius;
    cnVec3 start, direction;
    cnCapsuleSegment( a, &start, &direction );
    // a zero-length capsule is a sphere: one point
    int ends = a->geometry->capsule.halfLength > 0.0 ? 2 : 1;
    for ( int i = 0; i < ends; ++i )
    {
        cnVec3 core = cnMulAdd( start, (double)i, direction );
        cnCandidate c = cnPlaneCandidate( cnMulAdd( core, -radius, n ), n, offset, (uint32_t)i );
        if ( c.separation < margin )
        {
            cnPushPoint( a, b, c.pointA, c.pointB, c.separation, c.id, manifold );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// smooth and polyhedral shapes against a plane

void cnCollideCylinderPlane( const cnCollisionShape* a, const cnCollisionShape* b, double margin,
                             const cnManifold* previous, cnManifold* manifold )
{
    (void)previous;
    cnBeginManifold( manifold );
    cnVec3 n;
    double offset;
    cnWorldPlane( b, &n, &offset );
    manifold->normal = cnNeg( n );
    double radius = a->geometry->cylinder.radius;
    double h = a->geometry->cylinder.halfLength;

    // the plane normal in the cylinder frame; the disc nearer the plane and the rim direction that
    // reaches deepest (an upright cylinder has none: it takes the cylinder's local x)
    cnVec3 local = cnInvRotate( a->transform.q, n );
    double bottom = local.z >= 0.0 ? -h : h;
    double radial = sqrt( local.x * local.x + local.y * local.y );
    cnVec3 u = radial > 1.0e-12 ? cnMakeVec3( -local.x / radial, -local.y / radial, 0.0 ) : cnUnitAxis( 0 );
    cnVec3 v = cnMakeVec3( -u.y, u.x, 0.0 );

    // ids: 0 deepest rim point of the near disc, 1 opposite, 2 and 3 the sides, 4 deepest of the far disc
    cnVec3 rim[5] = {
        cnMakeVec3( radius * u.x, radius * u.y, bottom ),  cnMakeVec3( -radius * u.x, -radius * u.y, bottom ),
        cnMakeVec3( radius * v.x, radius * v.y, bottom ),  cnMakeVec3( -radius * v.x, -radius * v.y, bottom ),
        cnMakeVec3( radius * u.x, radius * u.y, -bottom ),
    };
    cnCandidate items[5];
    for ( int i = 0; i < 5; ++i )
    {
        items[i] = cnPlaneCandidate( cnTransformPoint( a->transform, rim[i] ), n, offset, (uint32_t)i );
    }
    cnCandidateArray array = { items, margin };
    cnPushReduced( a, b, cnArrayCandidate, &array, 5, CN_RELATIVE_EPSILON * ( radius + h ), manifold );
}

void cnCollideEllipsoidPlane( const cnCollisionShape* a, const cnCollisionShape* b, double margin,
                              const cnManifold* previous, cnManifold* manifold )
{
    (void)previous;
    cnBeginManifold( manifold );
    cnVec3 n;
    double offset;
    cnWorldPlane( b, &n, &offset );
    manifold->normal = cnNeg( n );

    // support in -n: x = -D^2 m / |D m| with m the normal in the ellipsoid frame, D = diag(radii)
    cnVec3 radii = a->geometry->ellipsoid.radii;
    cnVec3 m = cnInvRotate( a->transform.q, n );
    cnVec3 dm = cnMulComponents( radii, m );
    double length = cnLength( dm );
    cnVec3 support = length > 0.0 ? cnScale( -1.0 / length, cnMulComponents( radii, dm ) ) : cn_vec3Zero;
    cnCandidate c = cnPlaneCandidate( cnTransformPoint( a->transform, support ), n, offset, 0u );
    if ( c.separation < margin )
    {
        cnPushPoint( a, b, c.pointA, c.pointB, c.separation, c.id, manifold );
    }
}

// hull vertices against a plane, produced on demand
typedef struct cnHullPlaneContext
{
    const cnVec3* vertices; // (count) shape frame
    cnTransform transform;
    cnVec3 normal;
    double offset;
    double margin;
} cnHullPlaneContext;

static bool cnHullPlaneCandidate( const void* context, int index, cnCandidate* out )
{
    const cnHullPlaneContext* h = context;
    *out = cnPlaneCandidate( cnTransformPoint( h->transform, h->vertices[index] ), h->normal, h->offset,
                             (uint32_t)index );
    return out->separation < h->margin;
}

void cnCollideHullPlane( const cnCollisionShape* a, const cnCollisionShape* b, double margin,
                         const cnManifold* previous, cnManifold* manifold )
{
    (void)previous;
    cnBeginManifold( manifold );
    cnHullPlaneContext context;
    cnWorldPlane( b, &context.normal, &context.offset );
    manifold->normal = cnNeg( context.normal );
    context.transform = a->transform;
    context.margin = margin;

    // the hull's vertices, or without a hull the geometry's points (interior points never reach
    // deeper than the vertices, so the result is the same up to ties)
    int count = a->hull != NULL ? a->hull->vertexCount : a->geometry->hull.pointCount;
    context.vertices = a->hull != NULL ? a->hull->vertices : a->geometry->hull.points;
    if ( context.vertices == NULL || count <= 0 )
    {
        return;
    }
    double extent = 0.0;
    for ( int i = 0; i < count; ++i )
    {
        extent = fmax( extent, cnLength( context.vertices[i] ) );
    }
    cnPushReduced( a, b, cnHullPlaneCandidate, &context, count, CN_RELATIVE_EPSILON * extent, manifold );
}
