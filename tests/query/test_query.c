// SPDX-License-Identifier: MIT
// Scene queries (cairn/query.h, collision/ray.c, collision/shape_cast.c).
//
// Per shape type: random rays (random poses, sizes, origins inside and outside, directions and
// lengths) against an independent reference: a march along the ray on the shape's signed distance
// (or a lower bound of it: steps never jump over the surface), then bisection of the first
// outside-to-inside change of the point-inside test to 1e-14. Hit or miss must agree and the entry
// distance must agree to 1e-9 relative (to the larger of the distance and the shape's size); the
// normal must be the outward unit normal (the numerical gradient of the reference function, or at
// an edge or rim an outward normal of a supporting plane through the hit). Rays that graze the
// surface (|cos| between the ray and the normal below CNT_GRAZING), that start on the surface or
// whose entry lies at the ray's very end are counted and printed, not compared.
//
// Shape casts, per target type and per cast shape (sphere, capsule, box; the ray count per type,
// shared by the three): the time of impact against a reference that marches along the cast on an
// independent separation (the target's signed distance at a sphere's centre minus its radius; the
// narrowphase's separation for a capsule or a box, with an exact box-cylinder test of its own where
// the narrowphase's separation falls short by more than 1e-9) and closes the first free-to-overlapping
// bracket to 1e-14. Hit or miss and a start inside must agree, the fraction to 1e-9 relative (to the
// larger of the distance travelled and the two sizes); the contact point must lie on the target.
//
// World: a pile of mixed shapes (every type), before and after it falls: closest hit = minimum of
// all hits = a brute-force pass over every shape; filters, callbacks that stop, ignore and clip,
// box overlaps, multisphere worlds, queries from a system, bad ids and NaN inputs, an empty world;
// the same for shape casts, and overlaps by shape against brute force with query shapes placed 1e-6
// m off a surface (bounding boxes overlap, shapes do not).

#include "ccd_support.h"
#include "collide.h"
#include "hull.h"
#include "narrow_phase.h"
#include "ray.h"
#include "shape_cast.h"
#include "smooth.h"
#include "test_support.h"

#include "cairn/query.h"

#include <check.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef CNT_QUERY_DEFAULT_RAYS
#    define CNT_QUERY_DEFAULT_RAYS 10000
#endif

#define CNT_GRAZING   1.0e-3 // |cos| below this: a grazing ray, excluded and counted
#define CNT_DIST_TOL  1.0e-9 // relative entry distance
#define CNT_ANGLE_TOL 1.0e-6 // normal against the reference's

static int cntRayCount( void )
{
    const char* text = getenv( "CNT_QUERY_RAYS" );
    int count = text != NULL ? atoi( text ) : 0;
    return count > 0 ? count : CNT_QUERY_DEFAULT_RAYS;
}

// ---------------------------------------------------------------------------------------------
// reference: signed distance (or a lower bound of its size, with the right sign), shape frame

typedef struct cntShape
{
    cnGeometry geometry;
    cnHull hull;      // hulls
    cnVec3* planeN;   // hulls: unit face normals
    double* planeD;   // hulls: offsets
    int planeCount;   // hulls
    cnTransform pose; // shape -> world
    double size;      // bounding radius about the shape origin
} cntShape;

static double cntMax3( double a, double b, double c )
{
    double m = a > b ? a : b;
    return m > c ? m : c;
}

static double cntReference( const cntShape* shape, cnVec3 x )
{
    const cnGeometry* g = &shape->geometry;
    switch ( g->type )
    {
        case cn_sphereShape:
            return cnLength( x ) - g->sphere.radius;
        case cn_boxShape:
        {
            cnVec3 q = { fabs( x.x ) - g->box.halfExtents.x, fabs( x.y ) - g->box.halfExtents.y,
                         fabs( x.z ) - g->box.halfExtents.z };
            cnVec3 pos = { fmax( q.x, 0.0 ), fmax( q.y, 0.0 ), fmax( q.z, 0.0 ) };
            return cnLength( pos ) + fmin( cntMax3( q.x, q.y, q.z ), 0.0 );
        }
        case cn_capsuleShape:
        {
            double h = g->capsule.halfLength;
            double z = x.z < -h ? -h : ( x.z > h ? h : x.z );
            return cnLength( cnMakeVec3( x.x, x.y, x.z - z ) ) - g->capsule.radius;
        }
        case cn_cylinderShape:
        {
            double dr = hypot( x.x, x.y ) - g->cylinder.radius;
            double dz = fabs( x.z ) - g->cylinder.halfLength;
            return fmin( fmax( dr, dz ), 0.0 ) + hypot( fmax( dr, 0.0 ), fmax( dz, 0.0 ) );
        }
        case cn_ellipsoidShape:
        {
            cnVec3 r = g->ellipsoid.radii;
            double minRadius = fmin( r.x, fmin( r.y, r.z ) );
            return ( cnLength( cnMakeVec3( x.x / r.x, x.y / r.y, x.z / r.z ) ) - 1.0 ) * minRadius;
        }
        case cn_torusShape:
            return hypot( hypot( x.x, x.y ) - g->torus.majorRadius, x.z ) - g->torus.minorRadius;
        case cn_hullShape:
        {
            double best = -INFINITY;
            for ( int i = 0; i < shape->planeCount; ++i )
            {
                best = fmax( best, cnDot( shape->planeN[i], x ) - shape->planeD[i] );
            }
            return best;
        }
        case cn_planeShape:
            return cnDot( g->plane.normal, x ) - g->plane.offset;
        default:
            return NAN;
    }
}

static double cntReferenceWorld( const cntShape* shape, cnVec3 x )
{
    return cntReference( shape, cnInvTransformPoint( shape->pose, x ) );
}

static cnVec3 cntGradientWorld( const cntShape* shape, cnVec3 x )
{
    double h = 1.0e-6 * shape->size;
    cnVec3 g;
    for ( int axis = 0; axis < 3; ++axis )
    {
        cnVec3 a = x;
        cnVec3 b = x;
        ( &a.x )[axis] += h;
        ( &b.x )[axis] -= h;
        ( &g.x )[axis] = ( cntReferenceWorld( shape, a ) - cntReferenceWorld( shape, b ) ) / ( 2.0 * h );
    }
    return cnNormalizeOr( g, cn_vec3Zero );
}

// At an edge or rim (box, hull, cylinder) the normal is any outward normal of a supporting plane:
// true when the local point touches two or more faces within `tol`.
static bool cntOnEdge( const cntShape* shape, cnVec3 x, double tol )
{
    const cnGeometry* g = &shape->geometry;
    int near = 0;
    if ( g->type == cn_boxShape )
    {
        near += fabs( fabs( x.x ) - g->box.halfExtents.x ) < tol;
        near += fabs( fabs( x.y ) - g->box.halfExtents.y ) < tol;
        near += fabs( fabs( x.z ) - g->box.halfExtents.z ) < tol;
    }
    else if ( g->type == cn_cylinderShape )
    {
        near += fabs( hypot( x.x, x.y ) - g->cylinder.radius ) < tol;
        near += fabs( fabs( x.z ) - g->cylinder.halfLength ) < tol;
    }
    else if ( g->type == cn_hullShape )
    {
        // distinct planes (coplanar triangles count once)
        for ( int i = 0; i < shape->planeCount; ++i )
        {
            if ( fabs( cnDot( shape->planeN[i], x ) - shape->planeD[i] ) >= tol )
            {
                continue;
            }
            bool seen = false;
            for ( int j = 0; j < i && seen == false; ++j )
            {
                seen = fabs( cnDot( shape->planeN[j], x ) - shape->planeD[j] ) < tol &&
                       cnLength( cnSub( shape->planeN[i], shape->planeN[j] ) ) < 1.0e-9;
            }
            near += seen ? 0 : 1;
        }
    }
    return near >= 2;
}

// the largest of dot(n, v - x) over the shape (local frame): <= 0 when n is an outward normal of a
// supporting plane through x
static double cntSupportGap( const cntShape* shape, cnVec3 n, cnVec3 x )
{
    const cnGeometry* g = &shape->geometry;
    if ( g->type == cn_boxShape )
    {
        cnVec3 h = g->box.halfExtents;
        return fabs( n.x ) * h.x + fabs( n.y ) * h.y + fabs( n.z ) * h.z - cnDot( n, x );
    }
    if ( g->type == cn_cylinderShape )
    {
        return hypot( n.x, n.y ) * g->cylinder.radius + fabs( n.z ) * g->cylinder.halfLength - cnDot( n, x );
    }
    double best = -INFINITY;
    for ( int i = 0; i < shape->hull.vertexCount; ++i )
    {
        best = fmax( best, cnDot( n, cnSub( shape->hull.vertices[i], x ) ) );
    }
    return best;
}

// March and bisect: the distance s along the unit direction u at which the ray first passes from
// outside (f > 0) to inside (f <= 0), within [0, length]; -1 when it does not.
static double cntReferenceEntry( const cntShape* shape, cnVec3 origin, cnVec3 u, double length )
{
    double floor = 1.0e-7 * shape->size;
    double s = 0.0;
    double f = cntReferenceWorld( shape, origin );
    for ( int guard = 0; guard < 50000000; ++guard )
    {
        if ( s >= length )
        {
            return -1.0;
        }
        double next = s + fmax( 0.999 * fabs( f ), floor );
        next = next > length ? length : next;
        double fn = cntReferenceWorld( shape, cnMulAdd( origin, next, u ) );
        if ( f > 0.0 && fn <= 0.0 )
        {
            double a = s;
            double b = next;
            for ( int k = 0; k < 200 && b - a > 1.0e-14 * fmax( 1.0, b ); ++k )
            {
                double m = 0.5 * ( a + b );
                if ( cntReferenceWorld( shape, cnMulAdd( origin, m, u ) ) > 0.0 )
                {
                    a = m;
                }
                else
                {
                    b = m;
                }
            }
            return b;
        }
        s = next;
        f = fn;
    }
    return -1.0;
}

// ---------------------------------------------------------------------------------------------
// random shapes

static cnQuat cntRandomQuat( cntRandom* random )
{
    cnQuat q = { cntRange( random, -1, 1 ), cntRange( random, -1, 1 ), cntRange( random, -1, 1 ),
                 cntRange( random, -1, 1 ) };
    double length = cnQuatLength( q );
    return length > 1.0e-3 ? cnNormalizeQuat( q ) : cn_quatIdentity;
}

static void cntFreeShape( cntShape* shape )
{
    cnDestroyHull( &shape->hull, NULL );
    free( shape->planeN );
    free( shape->planeD );
    memset( shape, 0, sizeof( *shape ) );
}

static void cntMakeShape( cntRandom* random, cnShapeType type, cntShape* shape )
{
    memset( shape, 0, sizeof( *shape ) );
    double scale = exp( cntRange( random, log( 0.05 ), log( 20.0 ) ) );
    cnGeometry* g = &shape->geometry;
    g->type = type;
    switch ( type )
    {
        case cn_sphereShape:
            g->sphere.radius = scale * cntRange( random, 0.2, 1.0 );
            shape->size = g->sphere.radius;
            break;
        case cn_boxShape:
            g->box.halfExtents =
                cnMakeVec3( scale * cntRange( random, 0.05, 1.0 ), scale * cntRange( random, 0.05, 1.0 ),
                            scale * cntRange( random, 0.05, 1.0 ) );
            shape->size = cnLength( g->box.halfExtents );
            break;
        case cn_capsuleShape:
            g->capsule.radius = scale * cntRange( random, 0.05, 0.6 );
            g->capsule.halfLength = cntUniform( random ) < 0.05 ? 0.0 : scale * cntRange( random, 0.0, 1.0 );
            shape->size = g->capsule.radius + g->capsule.halfLength;
            break;
        case cn_cylinderShape:
            g->cylinder.radius = scale * cntRange( random, 0.05, 1.0 );
            g->cylinder.halfLength = scale * cntRange( random, 0.05, 1.0 );
            shape->size = hypot( g->cylinder.radius, g->cylinder.halfLength );
            break;
        case cn_ellipsoidShape:
            g->ellipsoid.radii =
                cnMakeVec3( scale * cntRange( random, 0.1, 1.0 ), scale * cntRange( random, 0.1, 1.0 ),
                            scale * cntRange( random, 0.1, 1.0 ) );
            shape->size = cntMax3( g->ellipsoid.radii.x, g->ellipsoid.radii.y, g->ellipsoid.radii.z );
            break;
        case cn_torusShape:
            g->torus.majorRadius = scale;
            g->torus.minorRadius = scale * cntRange( random, 0.05, 0.9 );
            shape->size = g->torus.majorRadius + g->torus.minorRadius;
            break;
        case cn_hullShape:
        {
            cnVec3 points[24];
            int count = 6 + (int)( cntUniform( random ) * 18.0 );
            cnVec3 center = cnScale( scale * 0.3, cntDirection( random ) );
            for ( int i = 0; i < count; ++i )
            {
                cnVec3 dir = cntDirection( random );
                points[i] = cnAdd( center, cnMakeVec3( scale * dir.x, 0.6 * scale * dir.y,
                                                       scale * cntRange( random, 0.3, 1.0 ) * dir.z ) );
            }
            ck_assert_int_eq( cnComputeHull( points, count, NULL, &shape->hull, NULL, 0 ), cn_statusOk );
            g->hull.points = shape->hull.vertices;
            g->hull.pointCount = shape->hull.vertexCount;
            shape->planeCount = shape->hull.triangleCount;
            shape->planeN = malloc( (size_t)shape->planeCount * sizeof( cnVec3 ) );
            shape->planeD = malloc( (size_t)shape->planeCount * sizeof( double ) );
            shape->size = 0.0;
            for ( int i = 0; i < shape->hull.vertexCount; ++i )
            {
                shape->size = fmax( shape->size, cnLength( shape->hull.vertices[i] ) );
            }
            for ( int i = 0; i < shape->planeCount; ++i )
            {
                const int* tri = shape->hull.triangles + 3 * i;
                cnVec3 v0 = shape->hull.vertices[tri[0]];
                cnVec3 n = cnNormalize( cnCross( cnSub( shape->hull.vertices[tri[1]], v0 ),
                                                 cnSub( shape->hull.vertices[tri[2]], v0 ) ) );
                shape->planeN[i] = n;
                shape->planeD[i] = cnDot( n, v0 );
            }
            break;
        }
        case cn_planeShape:
            g->plane.normal = cntDirection( random );
            g->plane.offset = scale * cntRange( random, -1.0, 1.0 );
            shape->size = scale;
            break;
        default:
            break;
    }
    shape->pose.p = cnScale( scale * cntRange( random, 0.0, 2.0 ), cntDirection( random ) );
    shape->pose.q = cntRandomQuat( random );
}

// ---------------------------------------------------------------------------------------------
// per type

typedef struct cntTypeReport
{
    int rays;
    int hits;
    int misses;
    int insideOrigins;
    int grazing;     // excluded: |cos| < CNT_GRAZING
    int boundary;    // excluded: origin on the surface or entry at the ray's end
    int edgeNormals; // normals checked by the supporting plane (edges, rims)
    double worstDistance;
    double worstAngle;
} cntTypeReport;

static void cntRunType( cnShapeType type, uint64_t seed, cntTypeReport* report )
{
    memset( report, 0, sizeof( *report ) );
    cntRandom random = { seed };
    int rays = cntRayCount();
    cntShape shape;
    for ( int ray = 0; ray < rays; ++ray )
    {
        // a new shape every 10 rays
        if ( ray % 10 == 0 )
        {
            if ( ray > 0 )
            {
                cntFreeShape( &shape );
            }
            cntMakeShape( &random, type, &shape );
        }
        double size = shape.size;
        cnVec3 center = shape.pose.p;
        if ( type == cn_hullShape || type == cn_planeShape )
        {
            center =
                cnTransformPoint( shape.pose, type == cn_hullShape ? shape.hull.vertices[0] : cn_vec3Zero );
        }
        // origins near (often inside) and far; aimed at a point near the shape or anywhere
        double reach = cntUniform( &random ) < 0.5 ? 1.2 : 4.0;
        cnVec3 origin =
            cnMulAdd( center, size * reach * cbrt( cntUniform( &random ) ), cntDirection( &random ) );
        cnVec3 target = cnMulAdd( center, size * cntUniform( &random ), cntDirection( &random ) );
        cnVec3 dir = cntUniform( &random ) < 0.7
                         ? cnNormalizeOr( cnSub( target, origin ), cntDirection( &random ) )
                         : cntDirection( &random );
        double length = size * cntRange( &random, 0.2, 8.0 );
        cnVec3 translation = cnScale( length, dir );

        cnCollisionShape placed = { &shape.geometry, type == cn_hullShape ? &shape.hull : NULL, shape.pose };
        cnRayHitLocal hit;
        bool engineHit = cnRayCastShape( &placed, origin, translation, 1.0, &hit );
        double f0 = cntReferenceWorld( &shape, origin );
        double sRef = cntReferenceEntry( &shape, origin, dir, length );
        bool refHit = sRef >= 0.0;
        report->rays += 1;
        report->insideOrigins += f0 <= 0.0 ? 1 : 0;

        // exclusions: an origin on the surface, an entry at the end, a grazing ray
        if ( fabs( f0 ) < 1.0e-9 * size || ( refHit && length - sRef < 1.0e-8 * size ) ||
             ( engineHit && ( 1.0 - hit.fraction ) * length < 1.0e-8 * size ) )
        {
            report->boundary += 1;
            continue;
        }
        double cosRef =
            refHit ? fabs( cnDot( dir, cntGradientWorld( &shape, cnMulAdd( origin, sRef, dir ) ) ) ) : 1.0;
        double cosEngine = engineHit ? fabs( cnDot( dir, hit.normal ) ) : 1.0;
        if ( cosRef < CNT_GRAZING || cosEngine < CNT_GRAZING )
        {
            report->grazing += 1;
            continue;
        }
        ck_assert_msg( engineHit == refHit,
                       "%s ray %d: engine %s, reference %s (reference distance %.17g, engine fraction %.17g, "
                       "length %.17g, size %g, f(origin) %g)",
                       cnShapeTypeName( type ), ray, engineHit ? "hit" : "miss", refHit ? "hit" : "miss",
                       sRef, engineHit ? hit.fraction : -1.0, length, size, f0 );
        if ( engineHit == false )
        {
            report->misses += 1;
            continue;
        }
        report->hits += 1;
        double s = hit.fraction * length;
        double error = fabs( s - sRef ) / fmax( sRef, size );
        report->worstDistance = fmax( report->worstDistance, error );
        ck_assert_msg( error <= CNT_DIST_TOL, "%s ray %d: distance %.17g, reference %.17g, relative error %g",
                       cnShapeTypeName( type ), ray, s, sRef, error );

        // normal: unit, facing the ray, the reference's gradient (or a supporting plane at an edge)
        ck_assert_msg( fabs( cnLength( hit.normal ) - 1.0 ) < 1.0e-12, "%s ray %d: |normal| = %.17g",
                       cnShapeTypeName( type ), ray, cnLength( hit.normal ) );
        ck_assert_msg( cnDot( hit.normal, dir ) < 0.0, "%s ray %d: normal does not face the ray",
                       cnShapeTypeName( type ), ray );
        cnVec3 point = cnMulAdd( origin, s, dir );
        cnVec3 local = cnInvTransformPoint( shape.pose, point );
        if ( cntOnEdge( &shape, local, 1.0e-5 * size ) )
        {
            report->edgeNormals += 1;
            double gap = cntSupportGap( &shape, cnInvRotate( shape.pose.q, hit.normal ), local );
            ck_assert_msg( gap <= 1.0e-9 * size, "%s ray %d: normal is not a supporting plane's (gap %g)",
                           cnShapeTypeName( type ), ray, gap );
            continue;
        }
        cnVec3 gradient = cntGradientWorld( &shape, point );
        double angle = cnLength( cnSub( gradient, hit.normal ) );
        report->worstAngle = fmax( report->worstAngle, angle );
        ck_assert_msg( angle <= CNT_ANGLE_TOL, "%s ray %d: normal off the gradient by %g",
                       cnShapeTypeName( type ), ray, angle );
    }
    cntFreeShape( &shape );
    printf( "query %-10s rays %d: hits %d, misses %d, origins inside %d, grazing excluded %d, boundary "
            "excluded %d, edge normals %d, worst relative distance error %.3g, worst normal error %.3g\n",
            cnShapeTypeName( type ), report->rays, report->hits, report->misses, report->insideOrigins,
            report->grazing, report->boundary, report->edgeNormals, report->worstDistance,
            report->worstAngle );
    fflush( stdout );
    // the comparison must have compared something on both sides
    ck_assert_int_gt( report->hits, report->rays / 10 );
    ck_assert_int_gt( report->misses, report->rays / 20 );
}

START_TEST( test_ray_each_type )
{
    cntTypeReport report;
    cntRunType( (cnShapeType)_i, 0x5eed0000u + (uint64_t)_i, &report );
}
END_TEST

// A surface point of a smooth shape (local frame) and its outward normal, in closed form.
static void cntSurfacePoint( cntRandom* random, const cntShape* shape, cnVec3* point, cnVec3* normal )
{
    const cnGeometry* g = &shape->geometry;
    cnVec3 w = cntDirection( random );
    double phi = cntRange( random, -M_PI, M_PI );
    switch ( g->type )
    {
        case cn_sphereShape:
            *point = cnScale( g->sphere.radius, w );
            *normal = w;
            break;
        case cn_ellipsoidShape:
        {
            cnVec3 r = g->ellipsoid.radii;
            *point = cnMakeVec3( r.x * w.x, r.y * w.y, r.z * w.z );
            *normal = cnNormalize( cnMakeVec3( w.x / r.x, w.y / r.y, w.z / r.z ) );
            break;
        }
        case cn_capsuleShape:
        {
            double h = g->capsule.halfLength;
            double rr = g->capsule.radius;
            if ( cntUniform( random ) < 0.5 )
            {
                *normal = cnMakeVec3( cos( phi ), sin( phi ), 0.0 );
                *point = cnMakeVec3( rr * cos( phi ), rr * sin( phi ), cntRange( random, -h, h ) );
            }
            else
            {
                *normal = w;
                *point = cnMulAdd( cnMakeVec3( 0, 0, w.z > 0.0 ? h : -h ), rr, w );
            }
            break;
        }
        case cn_cylinderShape:
            *normal = cnMakeVec3( cos( phi ), sin( phi ), 0.0 );
            *point = cnMakeVec3( g->cylinder.radius * cos( phi ), g->cylinder.radius * sin( phi ),
                                 cntRange( random, -0.9, 0.9 ) * g->cylinder.halfLength );
            break;
        default: // torus
        {
            double v = cntRange( random, -M_PI, M_PI );
            double R = g->torus.majorRadius;
            double rr = g->torus.minorRadius;
            *normal = cnMakeVec3( cos( v ) * cos( phi ), cos( v ) * sin( phi ), sin( v ) );
            *point = cnMakeVec3( ( R + rr * cos( v ) ) * cos( phi ), ( R + rr * cos( v ) ) * sin( phi ),
                                 rr * sin( v ) );
            break;
        }
    }
}

// Rays tangent to a smooth surface, moved off it along the normal by delta = 1e-12 .. 1e-4 of the
// size, outwards or inwards: hit or miss and the entry must still agree with the reference (no
// exclusions here). On the convex shapes an outward ray must miss and an inward one hit.
START_TEST( test_ray_near_tangent )
{
    static const cnShapeType types[5] = { cn_sphereShape, cn_capsuleShape, cn_cylinderShape,
                                          cn_ellipsoidShape, cn_torusShape };
    cnShapeType type = types[_i];
    cntRandom random = { 0x7a9e0000u + (uint64_t)_i };
    int rays = cntRayCount() / 5;
    int hits = 0;
    int grazing = 0;
    double worst = 0.0;
    double worstGrazing = 0.0;
    cntShape shape;
    for ( int ray = 0; ray < rays; ++ray )
    {
        if ( ray % 10 == 0 )
        {
            if ( ray > 0 )
            {
                cntFreeShape( &shape );
            }
            cntMakeShape( &random, type, &shape );
        }
        cnVec3 point;
        cnVec3 normal;
        cntSurfacePoint( &random, &shape, &point, &normal );
        cnVec3 tangent = cnNormalize( cnCross( normal, cntDirection( &random ) ) );
        double delta = shape.size * exp( cntRange( &random, log( 1.0e-12 ), log( 1.0e-4 ) ) );
        double side = cntUniform( &random ) < 0.5 ? 1.0 : -1.0;
        double length = 3.0 * shape.size;
        cnVec3 localOrigin = cnMulAdd( cnMulAdd( point, side * delta, normal ), -length, tangent );
        cnVec3 origin = cnTransformPoint( shape.pose, localOrigin );
        cnVec3 dir = cnRotate( shape.pose.q, tangent );
        cnCollisionShape placed = { &shape.geometry, NULL, shape.pose };
        cnRayHitLocal hit;
        bool engineHit = cnRayCastShape( &placed, origin, cnScale( 2.0 * length, dir ), 1.0, &hit );
        double sRef = cntReferenceEntry( &shape, origin, dir, 2.0 * length );
        ck_assert_msg( engineHit == ( sRef >= 0.0 ),
                       "%s tangent ray %d (delta %g, side %g): engine %d, reference %g",
                       cnShapeTypeName( type ), ray, delta / shape.size, side, engineHit, sRef );
        if ( type != cn_torusShape && cntReferenceWorld( &shape, origin ) > 0.0 )
        {
            ck_assert( engineHit == ( side < 0.0 ) );
        }
        if ( engineHit )
        {
            hits += 1;
            // the entry's condition number is 1 / cos: round-off of 1e-16 in a position moves it by
            // 1e-16 / cos, in the engine and in the reference alike (checked with 50 digits on the
            // worst rays: both are that far from the exact entry)
            double error = fabs( hit.fraction * 2.0 * length - sRef ) / fmax( sRef, shape.size );
            double cosine = fabs( cnDot( dir, hit.normal ) );
            double tolerance = CNT_DIST_TOL + 1.0e-14 / cosine;
            if ( cosine < CNT_GRAZING )
            {
                grazing += 1;
                worstGrazing = fmax( worstGrazing, error * cosine );
            }
            else
            {
                worst = fmax( worst, error );
            }
            ck_assert_msg( error <= tolerance, "%s tangent ray %d (delta %g, cos %g): relative error %g",
                           cnShapeTypeName( type ), ray, delta / shape.size, cosine, error );
        }
    }
    cntFreeShape( &shape );
    printf( "query %-10s near-tangent rays %d (offsets 1e-12 .. 1e-4 of the size): hits %d, worst relative "
            "distance error %.3g (cos >= %g); %d hits with cos < %g compared at 1e-9 + 1e-14 / cos: worst "
            "error x cos %.3g\n",
            cnShapeTypeName( type ), rays, hits, worst, CNT_GRAZING, grazing, CNT_GRAZING, worstGrazing );
    fflush( stdout );
    ck_assert_int_gt( hits, rays / 4 );
}
END_TEST

// hand-checked rays: one per type, the answer in closed form
START_TEST( test_ray_known_answers )
{
    cnRayHitLocal hit;
    cnGeometry g = cntSphereGeometry( 2.0 );
    ck_assert( cnRayCastLocal( &g, NULL, cnMakeVec3( -5, 0, 0 ), cnMakeVec3( 10, 0, 0 ), 1.0, &hit ) );
    CNT_ASSERT_REL( hit.fraction, 0.3, 1e-15 );
    CNT_ASSERT_ABS( hit.normal.x, -1.0, 1e-15 );
    // from inside: no hit; pointing away: no hit; too short: no hit
    ck_assert( cnRayCastLocal( &g, NULL, cn_vec3Zero, cnMakeVec3( 10, 0, 0 ), 1.0, &hit ) == false );
    ck_assert( cnRayCastLocal( &g, NULL, cnMakeVec3( -5, 0, 0 ), cnMakeVec3( -10, 0, 0 ), 1.0, &hit ) ==
               false );
    ck_assert( cnRayCastLocal( &g, NULL, cnMakeVec3( -5, 0, 0 ), cnMakeVec3( 2.9, 0, 0 ), 1.0, &hit ) ==
               false );

    g = cntBoxGeometry( 1, 2, 3 );
    ck_assert( cnRayCastLocal( &g, NULL, cnMakeVec3( 0.5, 0.5, 10 ), cnMakeVec3( 0, 0, -20 ), 1.0, &hit ) );
    CNT_ASSERT_REL( hit.fraction, 7.0 / 20.0, 1e-15 );
    CNT_ASSERT_ABS( hit.normal.z, 1.0, 0.0 );

    g = cntCapsuleGeometry( 1.0, 2.0 );
    ck_assert( cnRayCastLocal( &g, NULL, cnMakeVec3( 0, 0, 10 ), cnMakeVec3( 0, 0, -10 ), 1.0, &hit ) );
    CNT_ASSERT_REL( hit.fraction, 0.7, 1e-15 );
    ck_assert( cnRayCastLocal( &g, NULL, cnMakeVec3( 5, 0, 1 ), cnMakeVec3( -10, 0, 0 ), 1.0, &hit ) );
    CNT_ASSERT_REL( hit.fraction, 0.4, 1e-15 );

    g = cntCylinderGeometry( 1.0, 2.0 );
    ck_assert( cnRayCastLocal( &g, NULL, cnMakeVec3( 0.5, 0, 10 ), cnMakeVec3( 0, 0, -10 ), 1.0, &hit ) );
    CNT_ASSERT_REL( hit.fraction, 0.8, 1e-15 );
    ck_assert( cnRayCastLocal( &g, NULL, cnMakeVec3( 5, 0, 1 ), cnMakeVec3( -10, 0, 0 ), 1.0, &hit ) );
    CNT_ASSERT_REL( hit.fraction, 0.4, 1e-15 );

    g = cntEllipsoidGeometry( 1, 2, 3 );
    ck_assert( cnRayCastLocal( &g, NULL, cnMakeVec3( 0, 10, 0 ), cnMakeVec3( 0, -10, 0 ), 1.0, &hit ) );
    CNT_ASSERT_REL( hit.fraction, 0.8, 1e-15 );

    // torus R 3, r 1: along x through the ring hits the outer equator at x = -4; through the hole
    // along z misses; from the hole along x hits the inner equator at x = 2
    g = cntTorusGeometry( 3.0, 1.0 );
    ck_assert( cnRayCastLocal( &g, NULL, cnMakeVec3( -10, 0, 0 ), cnMakeVec3( 20, 0, 0 ), 1.0, &hit ) );
    CNT_ASSERT_REL( hit.fraction, 0.3, 1e-14 );
    CNT_ASSERT_ABS( hit.normal.x, -1.0, 1e-14 );
    ck_assert( cnRayCastLocal( &g, NULL, cnMakeVec3( 0, 0, 10 ), cnMakeVec3( 0, 0, -20 ), 1.0, &hit ) ==
               false );
    ck_assert( cnRayCastLocal( &g, NULL, cn_vec3Zero, cnMakeVec3( 10, 0, 0 ), 1.0, &hit ) );
    CNT_ASSERT_REL( hit.fraction, 0.2, 1e-14 );
    CNT_ASSERT_ABS( hit.normal.x, -1.0, 1e-14 );
    // from inside the tube (x = -3): leaves it, crosses the hole, enters again at x = 2
    ck_assert( cnRayCastLocal( &g, NULL, cnMakeVec3( -3, 0, 0 ), cnMakeVec3( 10, 0, 0 ), 1.0, &hit ) );
    CNT_ASSERT_REL( hit.fraction, 0.5, 1e-14 );

    g = cntPlaneGeometry( cnMakeVec3( 0, 0, 1 ), 1.0 );
    ck_assert( cnRayCastLocal( &g, NULL, cnMakeVec3( 3, 4, 5 ), cnMakeVec3( 0, 0, -8 ), 1.0, &hit ) );
    CNT_ASSERT_REL( hit.fraction, 0.5, 1e-15 );
    ck_assert( cnRayCastLocal( &g, NULL, cnMakeVec3( 3, 4, 0 ), cnMakeVec3( 0, 0, -8 ), 1.0, &hit ) ==
               false );

    // zero and non-finite rays hit nothing
    ck_assert( cnRayCastLocal( &g, NULL, cnMakeVec3( 3, 4, 5 ), cn_vec3Zero, 1.0, &hit ) == false );
    ck_assert( cnRayCastLocal( &g, NULL, cnMakeVec3( NAN, 4, 5 ), cnMakeVec3( 0, 0, -8 ), 1.0, &hit ) ==
               false );
}
END_TEST

// ---------------------------------------------------------------------------------------------
// shape casts against single shapes (collision/shape_cast.c)

#define CNT_CAST_SHAPES 3

static const cnShapeType cnt_castTypes[CNT_CAST_SHAPES] = { cn_sphereShape, cn_capsuleShape, cn_boxShape };

// a random sphere, capsule or box of about `size`
static cnGeometry cntRandomCastGeometry( cntRandom* random, cnShapeType type, double size )
{
    switch ( type )
    {
        case cn_sphereShape:
            return cntSphereGeometry( size * cntRange( random, 0.05, 0.8 ) );
        case cn_capsuleShape:
            return cntCapsuleGeometry( size * cntRange( random, 0.05, 0.5 ),
                                       cntUniform( random ) < 0.05 ? 0.0
                                                                   : size * cntRange( random, 0.0, 0.8 ) );
        default:
            return cntBoxGeometry( size * cntRange( random, 0.03, 0.6 ), size * cntRange( random, 0.03, 0.6 ),
                                   size * cntRange( random, 0.03, 0.6 ) );
    }
}

static double cntCastSize( const cnGeometry* g )
{
    switch ( g->type )
    {
        case cn_sphereShape:
            return g->sphere.radius;
        case cn_capsuleShape:
            return g->capsule.radius + g->capsule.halfLength;
        default:
            return cnLength( g->box.halfExtents );
    }
}

typedef struct cntCast
{
    const cntShape* target;
    cnCollisionShape placed; // the target
    const cnGeometry* castGeometry;
    cnTransform start; // the cast shape's pose at fraction 0
    cnVec3 translation;
    double margin; // for cnCollide: large, so that the closest features always come back
} cntCast;

// The reference's separation of the cast shape moved by s * translation from the target: positive
// apart (never above the distance), zero or negative overlapping. A sphere: the target's signed
// distance at the centre (smooth.h, closed forms and a 1-D root) minus the radius; a capsule or a
// box: the narrowphase's deepest separation (cnCollide), neither of them shape_cast.c's method.
static double cntCastSeparation( const cntCast* cast, double s )
{
    cnTransform pose = cast->start;
    pose.p = cnMulAdd( pose.p, s, cast->translation );
    if ( cast->castGeometry->type == cn_sphereShape )
    {
        return cnPointSignedDistance( &cast->placed, pose.p, NULL, NULL ) - cast->castGeometry->sphere.radius;
    }
    cnCollisionShape moving = { cast->castGeometry, NULL, pose };
    cnManifold manifold;
    ck_assert_int_eq( cnCollide( &moving, &cast->placed, cast->margin, NULL, &manifold ), cn_statusOk );
    double best = cast->margin;
    for ( int i = 0; i < manifold.pointCount; ++i )
    {
        best = fmin( best, manifold.points[i].separation );
    }
    return best;
}

// Exact overlap of a box and a cylinder, by a route of its own: the part of the box inside the
// slab |z| <= halfLength of the cylinder frame is a convex polytope whose vertices are the box
// corners inside the slab and the crossings of the box edges with the slab's two planes; it meets
// the cylinder when its shadow on the xy-plane (the hull of those vertices) comes within the radius
// of the axis. Returns that distance minus the radius (<= 0: overlap); 1 when the box misses the
// slab.
static double cntBoxCylinderGap( cnTransform boxPose, cnVec3 half, const cntShape* cylinder )
{
    double h = cylinder->geometry.cylinder.halfLength;
    double radius = cylinder->geometry.cylinder.radius;
    cnVec3 corner[8];
    for ( int i = 0; i < 8; ++i )
    {
        cnVec3 local = { ( i & 1 ) ? half.x : -half.x, ( i & 2 ) ? half.y : -half.y,
                         ( i & 4 ) ? half.z : -half.z };
        corner[i] = cnInvTransformPoint( cylinder->pose, cnTransformPoint( boxPose, local ) );
    }
    double px[40], py[40];
    int count = 0;
    for ( int i = 0; i < 8; ++i )
    {
        if ( fabs( corner[i].z ) <= h )
        {
            px[count] = corner[i].x;
            py[count++] = corner[i].y;
        }
        for ( int bit = 1; bit < 8; bit <<= 1 )
        {
            int j = i | bit;
            if ( j == i )
            {
                continue;
            }
            for ( int side = -1; side <= 1; side += 2 )
            {
                double plane = side * h;
                double zi = corner[i].z - plane, zj = corner[j].z - plane;
                if ( ( zi < 0.0 && zj > 0.0 ) || ( zi > 0.0 && zj < 0.0 ) )
                {
                    double t = zi / ( zi - zj );
                    px[count] = corner[i].x + t * ( corner[j].x - corner[i].x );
                    py[count++] = corner[i].y + t * ( corner[j].y - corner[i].y );
                }
            }
        }
    }
    if ( count == 0 )
    {
        return 1.0;
    }
    // convex hull (monotone chain), counter-clockwise
    for ( int i = 1; i < count; ++i )
    {
        for ( int j = i; j > 0 && ( px[j] < px[j - 1] || ( px[j] == px[j - 1] && py[j] < py[j - 1] ) ); --j )
        {
            double tx = px[j], ty = py[j];
            px[j] = px[j - 1];
            py[j] = py[j - 1];
            px[j - 1] = tx;
            py[j - 1] = ty;
        }
    }
    double hx[80], hy[80];
    int k = 0;
    for ( int pass = 0; pass < 2; ++pass )
    {
        int floor = k;
        for ( int n = 0; n < count; ++n )
        {
            int i = pass == 0 ? n : count - 1 - n;
            while ( k >= floor + 2 && ( hx[k - 1] - hx[k - 2] ) * ( py[i] - hy[k - 2] ) -
                                              ( hy[k - 1] - hy[k - 2] ) * ( px[i] - hx[k - 2] ) <=
                                          0.0 )
            {
                k -= 1;
            }
            hx[k] = px[i];
            hy[k++] = py[i];
        }
        k -= 1; // the last point starts the other chain
    }
    if ( k < 1 )
    {
        k = 1;
    }
    // the distance from the axis to the polygon
    bool inside = k >= 3;
    double best = INFINITY;
    for ( int i = 0; i < k; ++i )
    {
        int j = ( i + 1 ) % k;
        double ex = hx[j] - hx[i], ey = hy[j] - hy[i];
        double cross = ex * ( -hy[i] ) - ey * ( -hx[i] );
        inside = inside && cross >= 0.0;
        double ee = ex * ex + ey * ey;
        double t = ee > 0.0 ? fmin( fmax( -( hx[i] * ex + hy[i] * ey ) / ee, 0.0 ), 1.0 ) : 0.0;
        best = fmin( best, hypot( hx[i] + t * ex, hy[i] + t * ey ) );
    }
    return ( inside ? 0.0 : best ) - radius;
}

// The exact overlap test where the reference has one (a box against a cylinder), else the sign of
// cntCastSeparation.
static bool cntCastOverlaps( const cntCast* cast, double s, double separation )
{
    if ( cast->castGeometry->type == cn_boxShape && cast->placed.geometry->type == cn_cylinderShape )
    {
        cnTransform pose = { cnMulAdd( cast->start.p, s, cast->translation ), cast->start.q };
        return cntBoxCylinderGap( pose, cast->castGeometry->box.halfExtents, cast->target ) <= 0.0;
    }
    return separation <= 0.0;
}

// March along the cast on the separation (steps never jump over a contact: the separation is a
// lower bound of the distance, which changes no faster than the shape moves), then close the
// first free-to-overlapping bracket to 1e-14 (regula falsi with the Illinois step, bisection
// whenever it stalls). Returns the fraction, 0 for a start that overlaps, -1 for a miss.
static double cntReferenceCast( const cntCast* cast, double size, bool* jump )
{
    *jump = false;
    double length = cnLength( cast->translation );
    double floor = 1.0e-7 * size / length;
    double s = 0.0;
    double f = cntCastSeparation( cast, 0.0 );
    if ( f <= 0.0 && cntCastOverlaps( cast, 0.0, f ) )
    {
        return 0.0;
    }
    f = fmax( f, 0.0 );
    for ( int guard = 0; guard < 20000000; ++guard )
    {
        if ( s >= 1.0 )
        {
            return -1.0;
        }
        double next = s + fmax( 0.999 * f / length, floor );
        next = next > 1.0 ? 1.0 : next;
        double fn = cntCastSeparation( cast, next );
        if ( fn <= 0.0 && cntCastOverlaps( cast, next, fn ) == false )
        {
            fn = 0.0; // the narrowphase's separation fell short of the distance: march on
        }
        else if ( fn <= 0.0 )
        {
            double a = s, fa = f, b = next, fb = fn;
            int side = 0;
            bool exact =
                cast->castGeometry->type == cn_boxShape && cast->placed.geometry->type == cn_cylinderShape;
            for ( int k = 0; k < 400 && b - a > 1.0e-14 * fmax( 1.0e-3, b ); ++k )
            {
                double m = b - fb * ( b - a ) / ( fb - fa );
                if ( exact || !( m > a && m < b ) || k % 4 == 3 )
                {
                    m = 0.5 * ( a + b );
                }
                double fm = cntCastSeparation( cast, m );
                if ( cntCastOverlaps( cast, m, fm ) == false )
                {
                    a = m;
                    fa = fmax( fm, 0.0 );
                    fb *= side == 1 ? 0.5 : 1.0;
                    side = 1;
                }
                else
                {
                    b = m;
                    fb = fmin( fm, 0.0 );
                    fa *= side == -1 ? 0.5 : 1.0;
                    side = -1;
                }
            }
            if ( exact )
            {
                return b;
            }
            // the narrowphase's separation may jump where its choice of normal changes: the
            // reference cannot place the contact closer than the jump
            *jump = fa - fb > 1.0e-10 * size;
            return b;
        }
        s = next;
        f = fn;
    }
    return -1.0;
}

typedef struct cntCastReport
{
    int casts;
    int hits;
    int misses;
    int startInside;
    int grazing;  // excluded: |cos| < CNT_GRAZING
    int boundary; // excluded: start or contact within 1e-8 of the size of a boundary
    int jumps;    // excluded: the reference's separation jumps across its bracket (see above)
    double worst;
    double worstPoint;
    long iterations;
} cntCastReport;

static int cntCastCount( void )
{
    // the ray count per target type, shared by the three cast shapes
    return ( cntRayCount() + CNT_CAST_SHAPES - 1 ) / CNT_CAST_SHAPES;
}

static void cntRunCasts( cnShapeType type, cnShapeType castType, uint64_t seed, cntCastReport* report )
{
    memset( report, 0, sizeof( *report ) );
    cntRandom random = { seed };
    int casts = cntCastCount();
    cntShape shape;
    for ( int index = 0; index < casts; ++index )
    {
        if ( index % 10 == 0 )
        {
            if ( index > 0 )
            {
                cntFreeShape( &shape );
            }
            cntMakeShape( &random, type, &shape );
        }
        double targetSize = shape.size;
        cnGeometry castGeometry = cntRandomCastGeometry( &random, castType, targetSize );
        double size = targetSize + cntCastSize( &castGeometry );
        cnVec3 center = shape.pose.p;
        if ( type == cn_hullShape || type == cn_planeShape )
        {
            center =
                cnTransformPoint( shape.pose, type == cn_hullShape ? shape.hull.vertices[0] : cn_vec3Zero );
        }
        double reach = cntUniform( &random ) < 0.5 ? 1.2 : 4.0;
        cnTransform start = {
            cnMulAdd( center, size * reach * cbrt( cntUniform( &random ) ), cntDirection( &random ) ),
            cntRandomQuat( &random ) };
        cnVec3 aim = cnMulAdd( center, targetSize * cntUniform( &random ), cntDirection( &random ) );
        cnVec3 dir = cntUniform( &random ) < 0.7
                         ? cnNormalizeOr( cnSub( aim, start.p ), cntDirection( &random ) )
                         : cntDirection( &random );
        double length = size * cntRange( &random, 0.2, 8.0 );
        cnVec3 translation = cnScale( length, dir );

        cntCast cast = {
            &shape,        { &shape.geometry, type == cn_hullShape ? &shape.hull : NULL, shape.pose },
            &castGeometry, start,
            translation,   100.0 * size };
        cnCollisionShape moving = { &castGeometry, NULL, start };
        cnToiResult toi;
        bool engineHit = cnTimeOfImpact( &moving, translation, &cast.placed, 1.0, &toi );
        report->iterations += toi.iterations;
        double f0 = cntCastSeparation( &cast, 0.0 );
        bool jump = false;
        double ref = cntReferenceCast( &cast, size, &jump );
        bool refHit = ref >= 0.0;
        report->casts += 1;
        if ( jump )
        {
            report->jumps += 1;
            continue;
        }

        if ( fabs( f0 ) < 1.0e-9 * size || ( refHit && ( 1.0 - ref ) * length < 1.0e-8 * size ) ||
             ( engineHit && ( 1.0 - toi.fraction ) * length < 1.0e-8 * size ) )
        {
            report->boundary += 1;
            continue;
        }
        if ( f0 < 0.0 && cntCastOverlaps( &cast, 0.0, f0 ) )
        {
            report->startInside += 1;
            ck_assert_msg( engineHit && toi.fraction == 0.0 && toi.initialOverlap,
                           "%s cast %s %d: starts overlapping (separation %g) but engine %s at %g",
                           cnShapeTypeName( castType ), cnShapeTypeName( type ), index, f0,
                           engineHit ? "hit" : "miss", engineHit ? toi.fraction : -1.0 );
            continue;
        }
        // grazing: the contact normal nearly perpendicular to the motion
        double cosEngine = engineHit ? fabs( cnDot( dir, toi.normal ) ) : 1.0;
        double cosRef = 1.0;
        if ( refHit )
        {
            cnVec3 moved = cnMulAdd( start.p, ref, translation );
            cnTransform pose = { moved, start.q };
            cnCollisionShape atContact = { &castGeometry, NULL, pose };
            cnManifold manifold;
            cnCollide( &atContact, &cast.placed, cast.margin, NULL, &manifold );
            if ( manifold.pointCount > 0 )
            {
                int deepest = 0;
                for ( int i = 1; i < manifold.pointCount; ++i )
                {
                    deepest =
                        manifold.points[i].separation < manifold.points[deepest].separation ? i : deepest;
                }
                cosRef = fabs( cnDot( dir, manifold.points[deepest].normal ) );
            }
        }
        if ( cosRef < CNT_GRAZING || cosEngine < CNT_GRAZING )
        {
            report->grazing += 1;
            continue;
        }
        ck_assert_msg( engineHit == refHit,
                       "%s cast %s %d: engine %s, reference %s (reference %.17g, engine %.17g, length %.17g, "
                       "size %g, separation at start %g)",
                       cnShapeTypeName( castType ), cnShapeTypeName( type ), index,
                       engineHit ? "hit" : "miss", refHit ? "hit" : "miss", ref,
                       engineHit ? toi.fraction : -1.0, length, size, f0 );
        if ( engineHit == false )
        {
            report->misses += 1;
            continue;
        }
        report->hits += 1;
        ck_assert( toi.initialOverlap == false );
        double error = fabs( toi.fraction - ref ) * length / fmax( ref * length, size );
        report->worst = fmax( report->worst, error );
        ck_assert_msg(
            error <= CNT_DIST_TOL, "%s cast %s %d: fraction %.17g, reference %.17g, relative error %g",
            cnShapeTypeName( castType ), cnShapeTypeName( type ), index, toi.fraction, ref, error );
        // the contact: on the target's surface, the normal unit and facing the motion
        ck_assert_msg( fabs( cnLength( toi.normal ) - 1.0 ) < 1.0e-12, "%s cast %s %d: |normal| %.17g",
                       cnShapeTypeName( castType ), cnShapeTypeName( type ), index, cnLength( toi.normal ) );
        ck_assert( cnDot( toi.normal, dir ) > 0.0 );
        double onSurface = fabs( cntReferenceWorld( &shape, toi.point ) ) / size;
        report->worstPoint = fmax( report->worstPoint, onSurface );
        ck_assert_msg( onSurface < 1.0e-7, "%s cast %s %d: contact point %g of the size off the surface",
                       cnShapeTypeName( castType ), cnShapeTypeName( type ), index, onSurface );
    }
    cntFreeShape( &shape );
}

START_TEST( test_cast_each_type )
{
    cnShapeType type = (cnShapeType)_i;
    for ( int c = 0; c < CNT_CAST_SHAPES; ++c )
    {
        cntCastReport report;
        cntRunCasts( type, cnt_castTypes[c], 0xca570000u + (uint64_t)( 16 * _i + c ), &report );
        printf(
            "cast %-8s at %-10s casts %d: hits %d, misses %d, starts overlapping %d, grazing excluded %d, "
            "boundary excluded %d, reference jumps excluded %d, worst relative error %.3g, worst contact "
            "point off the surface %.3g of "
            "the size, distance queries per cast %.1f\n",
            cnShapeTypeName( cnt_castTypes[c] ), cnShapeTypeName( type ), report.casts, report.hits,
            report.misses, report.startInside, report.grazing, report.boundary, report.jumps, report.worst,
            report.worstPoint, (double)report.iterations / report.casts );
        fflush( stdout );
        ck_assert_int_gt( report.hits, report.casts / 10 );
        ck_assert_int_gt( report.misses, report.casts / 20 );
        ck_assert_int_le( report.grazing + report.boundary + report.jumps, report.casts / 100 + 2 );
    }
}
END_TEST

// ---------------------------------------------------------------------------------------------
// world

typedef struct cntPile
{
    cnWorldId world;
    cntLogCapture log; // the step's warnings stay out of the test output
    cnShapeId shapes[128];
    uint32_t categories[128];
    int count;
} cntPile;

static cnShapeId cntAddShape( cntPile* pile, cnBodyId body, const cnGeometry* g, uint32_t category )
{
    cnShapeDef def = cnDefaultShapeDef();
    def.categoryBits = category;
    cnShapeId id = cnCreateShape( body, &def, g );
    ck_assert( cnShape_IsValid( id ) );
    pile->shapes[pile->count] = id;
    pile->categories[pile->count] = category;
    pile->count += 1;
    return id;
}

// a static ground plane at z = 0 and bodies of every type above it, categories 1, 2, 4 in turn
static void cntMakePile( cntPile* pile, cntRandom* random, int multisphere )
{
    memset( pile, 0, sizeof( *pile ) );
    cnWorldDef def = cntWorldDef( &pile->log, NULL );
    def.multisphere = multisphere;
    pile->world = cnCreateWorld( &def );
    ck_assert( cnWorld_IsValid( pile->world ) );
    cnBodyDef groundDef = cnDefaultBodyDef();
    groundDef.type = cn_staticBody;
    cnBodyId ground = cnCreateBody( pile->world, &groundDef );
    cnGeometry plane = cntPlaneGeometry( cnMakeVec3( 0, 0, 1 ), 0.0 );
    cntAddShape( pile, ground, &plane, 1 );
    cnVec3 hullPoints[8];
    for ( int i = 0; i < 8; ++i )
    {
        hullPoints[i] =
            cnMakeVec3( ( i & 1 ) ? 0.4 : -0.3, ( i & 2 ) ? 0.35 : -0.4, ( i & 4 ) ? 0.3 : -0.45 );
    }
    for ( int i = 0; i < 60; ++i )
    {
        cnBodyDef bodyDef = cnDefaultBodyDef();
        bodyDef.type = i % 10 == 0 ? cn_staticBody : cn_dynamicBody;
        bodyDef.position =
            cnMakeVec3( cntRange( random, -4, 4 ), cntRange( random, -4, 4 ), cntRange( random, 0.5, 6 ) );
        bodyDef.orientation = cntRandomQuat( random );
        cnBodyId body = cnCreateBody( pile->world, &bodyDef );
        cnGeometry g;
        switch ( i % 7 )
        {
            case 0:
                g = cntSphereGeometry( 0.4 );
                break;
            case 1:
                g = cntBoxGeometry( 0.4, 0.3, 0.2 );
                break;
            case 2:
                g = cntCapsuleGeometry( 0.2, 0.4 );
                break;
            case 3:
                g = cntCylinderGeometry( 0.3, 0.3 );
                break;
            case 4:
                g = cntEllipsoidGeometry( 0.5, 0.3, 0.2 );
                break;
            case 5:
                g = cntTorusGeometry( 0.5, 0.15 );
                break;
            default:
                memset( &g, 0, sizeof( g ) );
                g.type = cn_hullShape;
                g.hull.points = hullPoints;
                g.hull.pointCount = 8;
                break;
        }
        cntAddShape( pile, body, &g, 1u << ( i % 3 ) );
    }
}

typedef struct cntHitList
{
    cnRayHit hits[256];
    int count;
    double returnValue; // what the callback returns; NAN: the hit's fraction
} cntHitList;

static double cntCollect( const cnRayHit* hit, void* context )
{
    cntHitList* list = context;
    ck_assert( list->count < 256 );
    list->hits[list->count++] = *hit;
    return isnan( list->returnValue ) ? hit->fraction : list->returnValue;
}

static int cntFindShape( const cntPile* pile, cnShapeId id )
{
    for ( int i = 0; i < pile->count; ++i )
    {
        if ( CN_ID_EQUALS( pile->shapes[i], id ) )
        {
            return i;
        }
    }
    return -1;
}

// brute force over every shape of the pile through the public geometry and pose
static bool cntBruteForce( const cntPile* pile, int index, cnVec3 origin, cnVec3 translation,
                           cnRayHitLocal* hit )
{
    cnShapeId id = pile->shapes[index];
    cnGeometry g;
    ck_assert_int_eq( cnShape_GetGeometry( id, &g ), cn_statusOk );
    cnHull hull = { 0 };
    if ( g.type == cn_hullShape )
    {
        ck_assert_int_eq( cnComputeHull( g.hull.points, g.hull.pointCount, NULL, &hull, NULL, 0 ),
                          cn_statusOk );
    }
    cnCollisionShape placed = {
        &g, g.type == cn_hullShape ? &hull : NULL,
        cnMulTransforms( cnBody_GetTransform( cnShape_GetBody( id ) ), cnShape_GetLocalPose( id ) ) };
    bool result = cnRayCastShape( &placed, origin, translation, 1.0, hit );
    cnDestroyHull( &hull, NULL );
    return result;
}

static bool cntPasses( uint32_t category, cnQueryFilter filter )
{
    // every pile shape has the default mask (all bits)
    return ( category & filter.maskBits ) != 0 && filter.categoryBits != 0;
}

// random rays through the pile: closest = min of all = brute force, each shape once
static void cntCheckPileRays( const cntPile* pile, cntRandom* random, int rays, cnQueryFilter filter,
                              int* hitCount )
{
    for ( int ray = 0; ray < rays; ++ray )
    {
        cnVec3 origin =
            cnMakeVec3( cntRange( random, -8, 8 ), cntRange( random, -8, 8 ), cntRange( random, -1, 10 ) );
        cnVec3 target =
            cnMakeVec3( cntRange( random, -4, 4 ), cntRange( random, -4, 4 ), cntRange( random, -0.5, 6 ) );
        cnVec3 translation = cnScale( cntRange( random, 0.3, 1.5 ), cnSub( target, origin ) );

        cnRayHit closest;
        ck_assert_int_eq( cnWorld_CastRayClosest( pile->world, origin, translation, filter, &closest ),
                          cn_statusOk );
        cntHitList all = { .count = 0, .returnValue = 1.0 };
        ck_assert_int_eq( cnWorld_CastRay( pile->world, origin, translation, filter, cntCollect, &all ),
                          cn_statusOk );

        // brute force
        bool expected[128] = { false };
        double expectedFraction[128];
        double bruteMin = INFINITY;
        int bruteCount = 0;
        for ( int i = 0; i < pile->count; ++i )
        {
            cnRayHitLocal hit;
            if ( cntPasses( pile->categories[i], filter ) &&
                 cntBruteForce( pile, i, origin, translation, &hit ) )
            {
                expected[i] = true;
                expectedFraction[i] = hit.fraction;
                bruteMin = fmin( bruteMin, hit.fraction );
                bruteCount += 1;
            }
        }
        ck_assert_int_eq( all.count, bruteCount );
        double allMin = INFINITY;
        bool seen[128] = { false };
        for ( int k = 0; k < all.count; ++k )
        {
            const cnRayHit* hit = all.hits + k;
            int index = cntFindShape( pile, hit->shapeId );
            ck_assert_int_ge( index, 0 );
            ck_assert_msg( expected[index] && seen[index] == false, "ray %d: shape %d reported wrongly", ray,
                           index );
            seen[index] = true;
            ck_assert( CN_ID_EQUALS( hit->bodyId, cnShape_GetBody( hit->shapeId ) ) );
            ck_assert( hit->hit );
            CNT_ASSERT_ABS( hit->fraction, expectedFraction[index], 1e-15 );
            cnVec3 point = cnMulAdd( origin, hit->fraction, translation );
            CNT_ASSERT_ABS( cnLength( cnSub( point, hit->point ) ), 0.0, 1e-12 );
            CNT_ASSERT_ABS( cnLength( hit->normal ), 1.0, 1e-12 );
            ck_assert( cntPasses( pile->categories[index], filter ) );
            allMin = fmin( allMin, hit->fraction );
        }
        ck_assert( closest.hit == ( bruteCount > 0 ) );
        if ( closest.hit )
        {
            ck_assert( closest.fraction == allMin );
            ck_assert( closest.fraction == bruteMin );
            *hitCount += 1;
        }
        else
        {
            ck_assert( CN_IS_NULL( closest.shapeId ) && closest.fraction == 0.0 );
        }
    }
}

START_TEST( test_world_pile )
{
    cntRandom random = { 42 };
    cntPile pile;
    cntMakePile( &pile, &random, 0 );
    int hits = 0;
    cntCheckPileRays( &pile, &random, 2000, cnDefaultQueryFilter(), &hits );
    ck_assert_int_gt( hits, 500 );
    // fall and settle, then again: the broadphase's boxes must hold the shapes where they are now
    for ( int step = 0; step < 90; ++step )
    {
        ck_assert_int_eq( cnWorld_Step( pile.world, 1.0 / 60.0 ), cn_statusOk );
        if ( step % 30 == 29 )
        {
            cntCheckPileRays( &pile, &random, 500, cnDefaultQueryFilter(), &hits );
        }
    }
    printf( "query pile: %d of %d rays hit\n", hits, 3500 );
    cnDestroyWorld( pile.world );
}
END_TEST

START_TEST( test_world_filter )
{
    cntRandom random = { 7 };
    cntPile pile;
    cntMakePile( &pile, &random, 0 );
    int hits = 0;
    cnQueryFilter filter = cnDefaultQueryFilter();
    filter.maskBits = 1u | 4u; // not category 2
    cntCheckPileRays( &pile, &random, 1000, filter, &hits );
    filter.maskBits = 2u;
    cntCheckPileRays( &pile, &random, 1000, filter, &hits );
    // a query whose category no shape's mask takes sees nothing
    cnShapeDef def = cnDefaultShapeDef();
    def.maskBits = 1u;
    cnBodyDef bodyDef = cnDefaultBodyDef();
    bodyDef.type = cn_staticBody;
    bodyDef.position = cnMakeVec3( 0, 0, 20 );
    cnBodyId body = cnCreateBody( pile.world, &bodyDef );
    cnSphere sphere = { 1.0 };
    cnShapeId picky = cnCreateSphereShape( body, &def, &sphere );
    cnRayHit hit;
    filter = cnDefaultQueryFilter();
    ck_assert_int_eq(
        cnWorld_CastRayClosest( pile.world, cnMakeVec3( 0, 0, 30 ), cnMakeVec3( 0, 0, -10 ), filter, &hit ),
        cn_statusOk );
    ck_assert( hit.hit && CN_ID_EQUALS( hit.shapeId, picky ) );
    CNT_ASSERT_REL( hit.fraction, 0.9, 1e-14 );
    filter.categoryBits = 2u; // not in the sphere's mask
    ck_assert_int_eq(
        cnWorld_CastRayClosest( pile.world, cnMakeVec3( 0, 0, 30 ), cnMakeVec3( 0, 0, -10 ), filter, &hit ),
        cn_statusOk );
    ck_assert( hit.hit == false );
    filter = cnDefaultQueryFilter();
    filter.maskBits = 0u;
    ck_assert_int_eq(
        cnWorld_CastRayClosest( pile.world, cnMakeVec3( 0, 0, 30 ), cnMakeVec3( 0, 0, -40 ), filter, &hit ),
        cn_statusOk );
    ck_assert( hit.hit == false );
    cnDestroyWorld( pile.world );
}
END_TEST

// the callback's return value: stop, ignore, clip
START_TEST( test_world_callback_control )
{
    cnWorldDef def = cntWorldDef( NULL, NULL );
    cnWorldId world = cnCreateWorld( &def );
    // ten spheres in a row along x at x = 1..10
    cnBodyDef bodyDef = cnDefaultBodyDef();
    bodyDef.type = cn_staticBody;
    cnShapeDef shapeDef = cnDefaultShapeDef();
    cnSphere sphere = { 0.25 };
    for ( int i = 1; i <= 10; ++i )
    {
        bodyDef.position = cnMakeVec3( i, 0, 0 );
        cnCreateSphereShape( cnCreateBody( world, &bodyDef ), &shapeDef, &sphere );
    }
    cnVec3 origin = cn_vec3Zero;
    cnVec3 translation = { 20, 0, 0 };
    cntHitList list = { .count = 0, .returnValue = 1.0 };
    ck_assert_int_eq(
        cnWorld_CastRay( world, origin, translation, cnDefaultQueryFilter(), cntCollect, &list ),
        cn_statusOk );
    ck_assert_int_eq( list.count, 10 );
    list = ( cntHitList ){ .count = 0, .returnValue = -1.0 };
    ck_assert_int_eq(
        cnWorld_CastRay( world, origin, translation, cnDefaultQueryFilter(), cntCollect, &list ),
        cn_statusOk );
    ck_assert_int_eq( list.count, 10 );
    list = ( cntHitList ){ .count = 0, .returnValue = 0.0 };
    ck_assert_int_eq(
        cnWorld_CastRay( world, origin, translation, cnDefaultQueryFilter(), cntCollect, &list ),
        cn_statusOk );
    ck_assert_int_eq( list.count, 1 );
    // clipping: every later report is at or before the clip so far, and the last is the closest
    list = ( cntHitList ){ .count = 0, .returnValue = NAN };
    ck_assert_int_eq(
        cnWorld_CastRay( world, origin, translation, cnDefaultQueryFilter(), cntCollect, &list ),
        cn_statusOk );
    ck_assert_int_ge( list.count, 1 );
    for ( int k = 1; k < list.count; ++k )
    {
        ck_assert( list.hits[k].fraction <= list.hits[k - 1].fraction );
    }
    CNT_ASSERT_REL( list.hits[list.count - 1].fraction, 0.75 / 20.0, 1e-14 );
    // a short ray reaches the first three only
    list = ( cntHitList ){ .count = 0, .returnValue = 1.0 };
    ck_assert_int_eq(
        cnWorld_CastRay( world, origin, cnMakeVec3( 3, 0, 0 ), cnDefaultQueryFilter(), cntCollect, &list ),
        cn_statusOk );
    ck_assert_int_eq( list.count, 3 );
    cnDestroyWorld( world );
}
END_TEST

typedef struct cntOverlapList
{
    cnShapeId ids[256];
    int count;
    int stopAfter;
} cntOverlapList;

static bool cntCollectOverlap( cnShapeId shapeId, cnBodyId bodyId, void* context )
{
    cntOverlapList* list = context;
    ck_assert( CN_ID_EQUALS( bodyId, cnShape_GetBody( shapeId ) ) );
    ck_assert( list->count < 256 );
    list->ids[list->count++] = shapeId;
    return list->count != list->stopAfter;
}

START_TEST( test_world_overlap )
{
    cntRandom random = { 99 };
    cntPile pile;
    cntMakePile( &pile, &random, 0 );
    for ( int step = 0; step < 20; ++step )
    {
        cnWorld_Step( pile.world, 1.0 / 60.0 );
    }
    int found = 0;
    for ( int query = 0; query < 300; ++query )
    {
        cnVec3 center =
            cnMakeVec3( cntRange( &random, -5, 5 ), cntRange( &random, -5, 5 ), cntRange( &random, -1, 7 ) );
        cnVec3 half =
            cnMakeVec3( cntRange( &random, 0, 2 ), cntRange( &random, 0, 2 ), cntRange( &random, 0, 2 ) );
        cnBounds box = { cnSub( center, half ), cnAdd( center, half ) };
        cnQueryFilter filter = cnDefaultQueryFilter();
        filter.maskBits = query % 2 == 0 ? UINT32_MAX : 5u;
        cntOverlapList list = { .count = 0, .stopAfter = -1 };
        ck_assert_int_eq( cnWorld_OverlapAABB( pile.world, box, filter, cntCollectOverlap, &list ),
                          cn_statusOk );
        // brute force on the shapes' tight boxes
        int expected = 0;
        for ( int i = 0; i < pile.count; ++i )
        {
            cnShapeId id = pile.shapes[i];
            cnGeometry g;
            cnShape_GetGeometry( id, &g );
            cnHull hull = { 0 };
            if ( g.type == cn_hullShape )
            {
                cnComputeHull( g.hull.points, g.hull.pointCount, NULL, &hull, NULL, 0 );
            }
            cnCollisionShape placed = {
                &g, g.type == cn_hullShape ? &hull : NULL,
                cnMulTransforms( cnBody_GetTransform( cnShape_GetBody( id ) ), cnShape_GetLocalPose( id ) ) };
            cnAABB tight = cnComputeAABB( &placed );
            cnDestroyHull( &hull, NULL );
            cnAABB queryBox = { box.lower, box.upper };
            bool want = cntPasses( pile.categories[i], filter ) && cnAABBOverlaps( tight, queryBox );
            bool got = false;
            for ( int k = 0; k < list.count; ++k )
            {
                got = got || CN_ID_EQUALS( list.ids[k], id );
            }
            ck_assert_msg( want == got, "query %d shape %d: expected %d, got %d", query, i, want, got );
            expected += want ? 1 : 0;
        }
        ck_assert_int_eq( list.count, expected );
        found += expected;
        if ( expected >= 2 )
        {
            cntOverlapList first = { .count = 0, .stopAfter = 1 };
            cnWorld_OverlapAABB( pile.world, box, filter, cntCollectOverlap, &first );
            ck_assert_int_eq( first.count, 1 );
        }
    }
    ck_assert_int_gt( found, 300 );
    cnDestroyWorld( pile.world );
}
END_TEST

// multisphere worlds: the exact shape is hit, once, under its own id
START_TEST( test_world_multisphere )
{
    cntRandom random = { 1234 };
    cntPile pile;
    cntMakePile( &pile, &random, 8 );
    int hits = 0;
    cntCheckPileRays( &pile, &random, 1000, cnDefaultQueryFilter(), &hits );
    ck_assert_int_gt( hits, 200 );
    for ( int query = 0; query < 100; ++query )
    {
        cnVec3 center =
            cnMakeVec3( cntRange( &random, -5, 5 ), cntRange( &random, -5, 5 ), cntRange( &random, 0, 7 ) );
        cnBounds box = { cnSub( center, cnMakeVec3( 1, 1, 1 ) ), cnAdd( center, cnMakeVec3( 1, 1, 1 ) ) };
        cntOverlapList list = { .count = 0, .stopAfter = -1 };
        ck_assert_int_eq(
            cnWorld_OverlapAABB( pile.world, box, cnDefaultQueryFilter(), cntCollectOverlap, &list ),
            cn_statusOk );
        for ( int k = 0; k < list.count; ++k )
        {
            ck_assert_int_ge( cntFindShape( &pile, list.ids[k] ), 0 );
            for ( int j = 0; j < k; ++j )
            {
                ck_assert( CN_ID_EQUALS( list.ids[j], list.ids[k] ) == false );
            }
        }
    }
    cnDestroyWorld( pile.world );
}
END_TEST

// bad input: a clear status, no hit, no crash; an empty world has nothing to hit
START_TEST( test_world_bad_input )
{
    cntLogCapture capture;
    cnWorldDef def = cntWorldDef( &capture, NULL );
    cnWorldId world = cnCreateWorld( &def );
    cnRayHit hit;
    cnQueryFilter filter = cnDefaultQueryFilter();
    cnVec3 down = { 0, 0, -10 };

    // empty world
    hit.hit = true;
    ck_assert_int_eq( cnWorld_CastRayClosest( world, cnMakeVec3( 0, 0, 5 ), down, filter, &hit ),
                      cn_statusOk );
    ck_assert( hit.hit == false );
    cntOverlapList list = { .count = 0, .stopAfter = -1 };
    cnBounds everything = { { -1e9, -1e9, -1e9 }, { 1e9, 1e9, 1e9 } };
    ck_assert_int_eq( cnWorld_OverlapAABB( world, everything, filter, cntCollectOverlap, &list ),
                      cn_statusOk );
    ck_assert_int_eq( list.count, 0 );

    cnBodyDef bodyDef = cnDefaultBodyDef();
    bodyDef.type = cn_staticBody;
    cnBodyId ground = cnCreateBody( world, &bodyDef );
    cnShapeDef shapeDef = cnDefaultShapeDef();
    cnPlane plane = { { 0, 0, 1 }, 0.0 };
    cnShapeId groundShape = cnCreatePlaneShape( ground, &shapeDef, &plane );
    ck_assert_int_eq( cnWorld_CastRayClosest( world, cnMakeVec3( 1, 2, 5 ), down, filter, &hit ),
                      cn_statusOk );
    ck_assert( hit.hit && CN_ID_EQUALS( hit.shapeId, groundShape ) && CN_ID_EQUALS( hit.bodyId, ground ) );
    CNT_ASSERT_REL( hit.fraction, 0.5, 1e-15 );
    CNT_ASSERT_ABS( hit.point.z, 0.0, 1e-15 );
    CNT_ASSERT_ABS( hit.normal.z, 1.0, 1e-15 );
    // from below the plane (inside its half-space): no hit; far away: still the infinite plane
    ck_assert_int_eq( cnWorld_CastRayClosest( world, cnMakeVec3( 1, 2, -1 ), down, filter, &hit ),
                      cn_statusOk );
    ck_assert( hit.hit == false );
    ck_assert_int_eq( cnWorld_CastRayClosest( world, cnMakeVec3( 1e7, -3e7, 5 ), down, filter, &hit ),
                      cn_statusOk );
    ck_assert( hit.hit );
    // a zero translation hits nothing
    ck_assert_int_eq( cnWorld_CastRayClosest( world, cnMakeVec3( 1, 2, 5 ), cn_vec3Zero, filter, &hit ),
                      cn_statusOk );
    ck_assert( hit.hit == false );

    // non-finite input
    int errors = capture.errorCount;
    hit.hit = true;
    ck_assert_int_eq( cnWorld_CastRayClosest( world, cnMakeVec3( NAN, 0, 5 ), down, filter, &hit ),
                      cn_statusNonFinite );
    ck_assert( hit.hit == false );
    ck_assert_int_eq(
        cnWorld_CastRayClosest( world, cnMakeVec3( 0, 0, 5 ), cnMakeVec3( 0, INFINITY, 0 ), filter, &hit ),
        cn_statusNonFinite );
    ck_assert( hit.hit == false );
    cntHitList hits = { .count = 0, .returnValue = 1.0 };
    ck_assert_int_eq(
        cnWorld_CastRay( world, cnMakeVec3( 0, 0, 5 ), cnMakeVec3( 0, 0, NAN ), filter, cntCollect, &hits ),
        cn_statusNonFinite );
    ck_assert_int_eq( hits.count, 0 );
    cnBounds nanBox = { { 0, 0, NAN }, { 1, 1, 1 } };
    ck_assert_int_eq( cnWorld_OverlapAABB( world, nanBox, filter, cntCollectOverlap, &list ),
                      cn_statusNonFinite );
    cnBounds inverted = { { 0, 0, 2 }, { 1, 1, 1 } };
    ck_assert_int_eq( cnWorld_OverlapAABB( world, inverted, filter, cntCollectOverlap, &list ),
                      cn_statusInvalidArgument );
    ck_assert_int_eq( list.count, 0 );
    // NULL callback or result
    ck_assert_int_eq( cnWorld_CastRay( world, cn_vec3Zero, down, filter, NULL, NULL ),
                      cn_statusInvalidArgument );
    ck_assert_int_eq( cnWorld_CastRayClosest( world, cn_vec3Zero, down, filter, NULL ),
                      cn_statusInvalidArgument );
    ck_assert_int_eq( cnWorld_OverlapAABB( world, everything, filter, NULL, NULL ),
                      cn_statusInvalidArgument );
    ck_assert_int_eq( capture.errorCount, errors + 8 );
    ck_assert_int_eq( capture.lastStatus, cn_statusInvalidArgument );

    // null, stale and forged world ids
    cnWorldId forged = world;
    forged.generation += 7;
    cnDestroyWorld( world );
    const cnWorldId ids[3] = { cn_nullWorldId, world, forged };
    for ( int i = 0; i < 3; ++i )
    {
        hit.hit = true;
        ck_assert_int_eq( cnWorld_CastRayClosest( ids[i], cn_vec3Zero, down, filter, &hit ),
                          cn_statusInvalidId );
        ck_assert( hit.hit == false );
        ck_assert_int_eq( cnWorld_CastRay( ids[i], cn_vec3Zero, down, filter, cntCollect, &hits ),
                          cn_statusInvalidId );
        ck_assert_int_eq( cnWorld_OverlapAABB( ids[i], everything, filter, cntCollectOverlap, &list ),
                          cn_statusInvalidId );
        ck_assert_int_eq( cnWorld_CastRayClosest( ids[i], cn_vec3Zero, down, filter, NULL ),
                          cn_statusInvalidId );
    }
    ck_assert_int_eq( hits.count, 0 );
    ck_assert_int_eq( list.count, 0 );
}
END_TEST

// a system may query its world during the step
typedef struct cntSystemProbe
{
    int calls;
    int hits;
    cnStatus status;
} cntSystemProbe;

static void cntProbeSystem( cnWorldId worldId, cnBodyArrays* bodies, double timeStep, void* context )
{
    (void)bodies;
    (void)timeStep;
    cntSystemProbe* probe = context;
    cnRayHit hit;
    probe->status = cnWorld_CastRayClosest( worldId, cnMakeVec3( 0, 0, 10 ), cnMakeVec3( 0, 0, -20 ),
                                            cnDefaultQueryFilter(), &hit );
    probe->calls += 1;
    probe->hits += hit.hit ? 1 : 0;
}

START_TEST( test_world_query_from_system )
{
    cnWorldDef def = cntWorldDef( NULL, NULL );
    cnWorldId world = cnCreateWorld( &def );
    cnBodyDef bodyDef = cnDefaultBodyDef();
    bodyDef.position = cnMakeVec3( 0, 0, 2 );
    cnBodyId ball = cnCreateBody( world, &bodyDef );
    cnShapeDef shapeDef = cnDefaultShapeDef();
    cnSphere sphere = { 0.5 };
    cnCreateSphereShape( ball, &shapeDef, &sphere );
    cntSystemProbe probe = { 0, 0, cn_statusCount };
    cnSystemDef systemDef = cnDefaultSystemDef();
    systemDef.name = "probe";
    systemDef.stage = cn_stageForces;
    systemDef.fcn = cntProbeSystem;
    systemDef.context = &probe;
    ck_assert_int_eq( cnWorld_AddSystem( world, &systemDef ), cn_statusOk );
    for ( int step = 0; step < 10; ++step )
    {
        ck_assert_int_eq( cnWorld_Step( world, 1.0 / 60.0 ), cn_statusOk );
    }
    ck_assert_int_eq( probe.status, cn_statusOk );
    ck_assert_int_eq( probe.calls, 10 );
    ck_assert_int_eq( probe.hits, 10 );
    cnDestroyWorld( world );
}
END_TEST

// After a step the broadphase boxes must hold every shape where the step left it: a long rod turning
// at 10 rad/s sweeps its tips 0.4 m in a substep, past the 0.1 m margin of its box.
START_TEST( test_world_after_fast_turn )
{
    cnWorldDef def = cntWorldDef( NULL, NULL );
    def.gravity = cn_vec3Zero;
    cnWorldId world = cnCreateWorld( &def );
    cnBodyDef bodyDef = cnDefaultBodyDef();
    bodyDef.angularVelocity = cnMakeVec3( 0, 0, 10 );
    cnBodyId rod = cnCreateBody( world, &bodyDef );
    cnShapeDef shapeDef = cnDefaultShapeDef();
    shapeDef.localPose.q = cnQuatFromAxisAngle( cnMakeVec3( 0, 1, 0 ), 0.5 * M_PI ); // along x
    cnCapsule capsule = { 0.1, 5.0 };
    cnShapeId shape = cnCreateCapsuleShape( rod, &shapeDef, &capsule );
    for ( int step = 0; step < 30; ++step )
    {
        ck_assert_int_eq( cnWorld_Step( world, 1.0 / 60.0 ), cn_statusOk );
        cnTransform pose = cnMulTransforms( cnBody_GetTransform( rod ), cnShape_GetLocalPose( shape ) );
        for ( int end = -1; end <= 1; end += 2 )
        {
            cnVec3 tip = cnTransformPoint( pose, cnMakeVec3( 0, 0, end * 5.0 ) );
            cnRayHit hit;
            ck_assert_int_eq( cnWorld_CastRayClosest( world, cnMakeVec3( tip.x, tip.y, 3 ),
                                                      cnMakeVec3( 0, 0, -6 ), cnDefaultQueryFilter(), &hit ),
                              cn_statusOk );
            ck_assert_msg( hit.hit && CN_ID_EQUALS( hit.shapeId, shape ), "step %d: the rod's tip was missed",
                           step );
            CNT_ASSERT_ABS( hit.point.z, 0.1, 1e-12 );
            int count = 0;
            cnBounds box = { cnSub( tip, cnMakeVec3( 0.01, 0.01, 0.01 ) ),
                             cnAdd( tip, cnMakeVec3( 0.01, 0.01, 0.01 ) ) };
            cntOverlapList list = { .count = 0, .stopAfter = -1 };
            ck_assert_int_eq(
                cnWorld_OverlapAABB( world, box, cnDefaultQueryFilter(), cntCollectOverlap, &list ),
                cn_statusOk );
            count = list.count;
            ck_assert_int_eq( count, 1 );
        }
    }
    cnDestroyWorld( world );
}
END_TEST

// ---------------------------------------------------------------------------------------------
// world shape casts and shape overlaps

typedef struct cntCastList
{
    cnShapeCastHit hits[256];
    int count;
    double returnValue; // NAN: the hit's fraction
} cntCastList;

static double cntCollectCast( const cnShapeCastHit* hit, void* context )
{
    cntCastList* list = context;
    ck_assert( list->count < 256 );
    list->hits[list->count++] = *hit;
    return isnan( list->returnValue ) ? hit->fraction : list->returnValue;
}

// a pile shape placed through the public API (its own hull when it is one)
static cnCollisionShape cntPlacePileShape( const cntPile* pile, int index, cnGeometry* g, cnHull* hull )
{
    cnShapeId id = pile->shapes[index];
    ck_assert_int_eq( cnShape_GetGeometry( id, g ), cn_statusOk );
    memset( hull, 0, sizeof( *hull ) );
    if ( g->type == cn_hullShape )
    {
        ck_assert_int_eq( cnComputeHull( g->hull.points, g->hull.pointCount, NULL, hull, NULL, 0 ),
                          cn_statusOk );
        g->hull.points = hull->vertices;
        g->hull.pointCount = hull->vertexCount;
    }
    cnCollisionShape placed = {
        g, g->type == cn_hullShape ? hull : NULL,
        cnMulTransforms( cnBody_GetTransform( cnShape_GetBody( id ) ), cnShape_GetLocalPose( id ) ) };
    return placed;
}

static cnGeometry cntPileCastGeometry( cntRandom* random, int which )
{
    return cntRandomCastGeometry( random, cnt_castTypes[which % CNT_CAST_SHAPES], 1.0 );
}

// random casts through the pile: closest = min of all = brute force over every shape, each once
static void cntCheckPileCasts( const cntPile* pile, cntRandom* random, int casts, cnQueryFilter filter,
                               int* hitCount )
{
    for ( int index = 0; index < casts; ++index )
    {
        cnGeometry g = cntPileCastGeometry( random, index );
        cnTransform pose = {
            cnMakeVec3( cntRange( random, -8, 8 ), cntRange( random, -8, 8 ), cntRange( random, -1, 10 ) ),
            cntRandomQuat( random ) };
        cnVec3 target =
            cnMakeVec3( cntRange( random, -4, 4 ), cntRange( random, -4, 4 ), cntRange( random, -0.5, 6 ) );
        cnVec3 translation = cnScale( cntRange( random, 0.3, 1.5 ), cnSub( target, pose.p ) );

        cnShapeCastHit closest;
        ck_assert_int_eq( cnWorld_CastShapeClosest( pile->world, &g, pose, translation, filter, &closest ),
                          cn_statusOk );
        cntCastList all = { .count = 0, .returnValue = 1.0 };
        ck_assert_int_eq(
            cnWorld_CastShape( pile->world, &g, pose, translation, filter, cntCollectCast, &all ),
            cn_statusOk );

        bool expected[128] = { false };
        double expectedFraction[128];
        double bruteMin = INFINITY;
        int bruteCount = 0;
        cnCollisionShape moving = { &g, NULL, pose };
        for ( int i = 0; i < pile->count; ++i )
        {
            if ( cntPasses( pile->categories[i], filter ) == false )
            {
                continue;
            }
            cnGeometry pg;
            cnHull hull;
            cnCollisionShape placed = cntPlacePileShape( pile, i, &pg, &hull );
            cnToiResult toi;
            if ( cnTimeOfImpact( &moving, translation, &placed, 1.0, &toi ) )
            {
                expected[i] = true;
                expectedFraction[i] = toi.fraction;
                bruteMin = fmin( bruteMin, toi.fraction );
                bruteCount += 1;
            }
            cnDestroyHull( &hull, NULL );
        }
        ck_assert_int_eq( all.count, bruteCount );
        double allMin = INFINITY;
        bool seen[128] = { false };
        for ( int k = 0; k < all.count; ++k )
        {
            const cnShapeCastHit* hit = all.hits + k;
            int i = cntFindShape( pile, hit->shapeId );
            ck_assert_int_ge( i, 0 );
            ck_assert_msg( expected[i] && seen[i] == false, "cast %d: shape %d reported wrongly", index, i );
            seen[i] = true;
            ck_assert( CN_ID_EQUALS( hit->bodyId, cnShape_GetBody( hit->shapeId ) ) );
            ck_assert( hit->hit );
            // the pose through the public API may differ from the world's in the last bit, which
            // moves the answer within the tolerance
            CNT_ASSERT_ABS( hit->fraction, expectedFraction[i], 1e-10 );
            CNT_ASSERT_ABS( cnLength( hit->normal ), 1.0, 1e-12 );
            allMin = fmin( allMin, hit->fraction );
        }
        ck_assert( closest.hit == ( bruteCount > 0 ) );
        if ( closest.hit )
        {
            // a clipped cast may stop its search a little differently: the same time of impact to the
            // tolerance (1e-11 of the sizes in distance)
            CNT_ASSERT_ABS( closest.fraction, allMin, 1e-10 );
            CNT_ASSERT_ABS( closest.fraction, bruteMin, 1e-10 );
            *hitCount += 1;
        }
        else
        {
            ck_assert( CN_IS_NULL( closest.shapeId ) && closest.fraction == 0.0 );
        }
    }
}

START_TEST( test_world_cast_pile )
{
    cntRandom random = { 4242 };
    cntPile pile;
    cntMakePile( &pile, &random, 0 );
    int hits = 0;
    cntCheckPileCasts( &pile, &random, 600, cnDefaultQueryFilter(), &hits );
    cnQueryFilter filter = cnDefaultQueryFilter();
    filter.maskBits = 1u | 4u;
    cntCheckPileCasts( &pile, &random, 300, filter, &hits );
    for ( int step = 0; step < 60; ++step )
    {
        ck_assert_int_eq( cnWorld_Step( pile.world, 1.0 / 60.0 ), cn_statusOk );
    }
    cntCheckPileCasts( &pile, &random, 300, cnDefaultQueryFilter(), &hits );
    printf( "query pile: %d of 1200 shape casts hit\n", hits );
    ck_assert_int_gt( hits, 400 );
    cnDestroyWorld( pile.world );

    // multisphere worlds: the exact shapes, each once, under their own ids
    cntMakePile( &pile, &random, 8 );
    hits = 0;
    cntCheckPileCasts( &pile, &random, 300, cnDefaultQueryFilter(), &hits );
    ck_assert_int_gt( hits, 100 );
    cnDestroyWorld( pile.world );
}
END_TEST

// the callback's return value, a cast that starts overlapping, a zero translation
START_TEST( test_world_cast_control )
{
    cnWorldDef def = cntWorldDef( NULL, NULL );
    cnWorldId world = cnCreateWorld( &def );
    // ten spheres of radius 0.25 in a row along x at x = 1..10
    cnBodyDef bodyDef = cnDefaultBodyDef();
    bodyDef.type = cn_staticBody;
    cnShapeDef shapeDef = cnDefaultShapeDef();
    cnSphere sphere = { 0.25 };
    for ( int i = 1; i <= 10; ++i )
    {
        bodyDef.position = cnMakeVec3( i, 0, 0 );
        cnCreateSphereShape( cnCreateBody( world, &bodyDef ), &shapeDef, &sphere );
    }
    // a box of half extent 0.25 swept from x = 0 along +x: it meets the sphere at x = 1 when its
    // face reaches x = 0.75, after 0.5 of 20 m
    cnGeometry box = cntBoxGeometry( 0.25, 0.25, 0.25 );
    cnTransform pose = { cn_vec3Zero, cn_quatIdentity };
    cnVec3 translation = { 20, 0, 0 };
    cnQueryFilter filter = cnDefaultQueryFilter();
    cntCastList list = { .count = 0, .returnValue = 1.0 };
    ck_assert_int_eq( cnWorld_CastShape( world, &box, pose, translation, filter, cntCollectCast, &list ),
                      cn_statusOk );
    ck_assert_int_eq( list.count, 10 );
    list = ( cntCastList ){ .count = 0, .returnValue = -1.0 };
    ck_assert_int_eq( cnWorld_CastShape( world, &box, pose, translation, filter, cntCollectCast, &list ),
                      cn_statusOk );
    ck_assert_int_eq( list.count, 10 );
    list = ( cntCastList ){ .count = 0, .returnValue = 0.0 };
    ck_assert_int_eq( cnWorld_CastShape( world, &box, pose, translation, filter, cntCollectCast, &list ),
                      cn_statusOk );
    ck_assert_int_eq( list.count, 1 );
    list = ( cntCastList ){ .count = 0, .returnValue = NAN };
    ck_assert_int_eq( cnWorld_CastShape( world, &box, pose, translation, filter, cntCollectCast, &list ),
                      cn_statusOk );
    for ( int k = 1; k < list.count; ++k )
    {
        ck_assert( list.hits[k].fraction <= list.hits[k - 1].fraction );
    }
    CNT_ASSERT_REL( list.hits[list.count - 1].fraction, 0.5 / 20.0, 1e-9 ); // early by at most the tolerance
    cnShapeCastHit hit;
    ck_assert_int_eq( cnWorld_CastShapeClosest( world, &box, pose, translation, filter, &hit ), cn_statusOk );
    ck_assert( hit.hit );
    CNT_ASSERT_REL( hit.fraction, 0.5 / 20.0, 1e-9 );
    CNT_ASSERT_ABS( hit.normal.x, -1.0, 1e-9 );
    CNT_ASSERT_ABS( hit.point.x, 0.75, 1e-9 );
    // a capsule along x (turned a quarter about y) of half length 0.5 and radius 0.1 reaches the
    // sphere at x = 1 when its tip is at 0.75
    cnGeometry capsule = cntCapsuleGeometry( 0.1, 0.5 );
    cnTransform turned = { cn_vec3Zero, cnQuatFromAxisAngle( cnMakeVec3( 0, 1, 0 ), 0.5 * CN_PI ) };
    ck_assert_int_eq( cnWorld_CastShapeClosest( world, &capsule, turned, translation, filter, &hit ),
                      cn_statusOk );
    CNT_ASSERT_REL( hit.fraction, 0.15 / 20.0, 1e-9 );
    // a short cast reaches the first three only
    list = ( cntCastList ){ .count = 0, .returnValue = 1.0 };
    ck_assert_int_eq(
        cnWorld_CastShape( world, &box, pose, cnMakeVec3( 2.6, 0, 0 ), filter, cntCollectCast, &list ),
        cn_statusOk );
    ck_assert_int_eq( list.count, 3 );
    // starting inside the sphere at x = 3: fraction 0, and a zero translation reports it too
    cnGeometry ball = cntSphereGeometry( 0.1 );
    cnTransform inside = { cnMakeVec3( 3.1, 0, 0 ), cn_quatIdentity };
    ck_assert_int_eq( cnWorld_CastShapeClosest( world, &ball, inside, translation, filter, &hit ),
                      cn_statusOk );
    ck_assert( hit.hit && hit.fraction == 0.0 );
    CNT_ASSERT_ABS( hit.normal.x, 1.0, 1e-9 ); // out of the sphere at x = 3, towards the cast shape
    ck_assert_int_eq( cnWorld_CastShapeClosest( world, &ball, inside, cn_vec3Zero, filter, &hit ),
                      cn_statusOk );
    ck_assert( hit.hit && hit.fraction == 0.0 );
    cnDestroyWorld( world );
}
END_TEST

// overlap by shape against brute force (the narrowphase's separation, or the signed distance for a
// sphere), with query shapes placed just off a surface: boxes overlap, shapes do not
START_TEST( test_world_overlap_shape )
{
    cntRandom random = { 777 };
    cntPile pile;
    cntMakePile( &pile, &random, 0 );
    for ( int step = 0; step < 20; ++step )
    {
        cnWorld_Step( pile.world, 1.0 / 60.0 );
    }
    int found = 0;
    int ambiguous = 0;
    int nearMisses = 0;
    int nearMissBoxes = 0;
    for ( int query = 0; query < 1200; ++query )
    {
        cnGeometry g = cntPileCastGeometry( &random, query );
        cnTransform pose = {
            cnMakeVec3( cntRange( &random, -5, 5 ), cntRange( &random, -5, 5 ), cntRange( &random, -1, 7 ) ),
            cntRandomQuat( &random ) };
        int near = -1;
        double side = 1.0;
        if ( query % 2 == 1 )
        {
            // just outside (or inside) a random pile shape, along a supporting direction
            near = (int)( cntUniform( &random ) * pile.count );
            cnGeometry pg;
            cnHull hull;
            cnCollisionShape placed = cntPlacePileShape( &pile, near, &pg, &hull );
            cnVec3 n = pg.type == cn_planeShape ? cnRotate( placed.transform.q, pg.plane.normal )
                                                : cntDirection( &random );
            cnVec3 surface = pg.type == cn_planeShape
                                 ? cnMulAdd( pose.p, -( cnDot( n, pose.p ) - pg.plane.offset ), n )
                                 : cnWorldSupport( &placed, n );
            cnDestroyHull( &hull, NULL );
            side = cntUniform( &random ) < 0.5 ? 1.0 : -1.0;
            double gap = side * 1.0e-6;
            // turn the query shape's local z onto n: its extent along n is then known
            cnVec3 axis = cnCross( cnMakeVec3( 0, 0, 1 ), n );
            double s = cnLength( axis );
            pose.q = s > 1e-12 ? cnQuatFromAxisAngle( cnScale( 1.0 / s, axis ), atan2( s, n.z ) )
                               : ( n.z > 0 ? cn_quatIdentity : cnMakeQuat( 0, 1, 0, 0 ) );
            double extent = g.type == cn_sphereShape    ? g.sphere.radius
                            : g.type == cn_capsuleShape ? g.capsule.radius + g.capsule.halfLength
                                                        : g.box.halfExtents.z;
            pose.p = cnMulAdd( surface, extent + gap, n );
        }
        cnQueryFilter filter = cnDefaultQueryFilter();
        filter.maskBits = query % 3 == 0 ? 5u : UINT32_MAX;
        cntOverlapList list = { .count = 0, .stopAfter = -1 };
        ck_assert_int_eq( cnWorld_OverlapShape( pile.world, &g, pose, filter, cntCollectOverlap, &list ),
                          cn_statusOk );
        cnCollisionShape moving = { &g, NULL, pose };
        cnAABB queryBox = cnComputeAABB( &moving );
        for ( int i = 0; i < pile.count; ++i )
        {
            cnGeometry pg;
            cnHull hull;
            cnCollisionShape placed = cntPlacePileShape( &pile, i, &pg, &hull );
            double separation;
            if ( g.type == cn_sphereShape )
            {
                separation = cnPointSignedDistance( &placed, pose.p, NULL, NULL ) - g.sphere.radius;
            }
            else
            {
                cnManifold manifold;
                ck_assert_int_eq( cnCollide( &moving, &placed, 100.0, NULL, &manifold ), cn_statusOk );
                separation = 100.0;
                for ( int k = 0; k < manifold.pointCount; ++k )
                {
                    separation = fmin( separation, manifold.points[k].separation );
                }
            }
            bool boxes = cnAABBOverlaps( cnComputeAABB( &placed ), queryBox );
            cnDestroyHull( &hull, NULL );
            bool got = false;
            for ( int k = 0; k < list.count; ++k )
            {
                got = got || CN_ID_EQUALS( list.ids[k], pile.shapes[i] );
            }
            if ( cntPasses( pile.categories[i], filter ) == false )
            {
                ck_assert( got == false );
                continue;
            }
            if ( fabs( separation ) < 1.0e-9 )
            {
                ambiguous += 1;
                continue;
            }
            bool want = separation < 0.0;
            ck_assert_msg( want == got, "query %d (%s) shape %d (%s): separation %g, reported %d", query,
                           cnShapeTypeName( g.type ), i, cnShapeTypeName( pg.type ), separation, got );
            found += want ? 1 : 0;
            if ( i == near && side > 0.0 )
            {
                nearMisses += 1;
                nearMissBoxes += boxes ? 1 : 0;
            }
        }
        if ( list.count >= 2 )
        {
            cntOverlapList first = { .count = 0, .stopAfter = 1 };
            cnWorld_OverlapShape( pile.world, &g, pose, filter, cntCollectOverlap, &first );
            ck_assert_int_eq( first.count, 1 );
        }
    }
    printf(
        "query overlap by shape: %d overlaps found, %d near misses (1e-6 m off a surface; %d of them with "
        "overlapping boxes), %d pairs within 1e-9 m of touching skipped\n",
        found, nearMisses, nearMissBoxes, ambiguous );
    ck_assert_int_gt( found, 600 );
    ck_assert_int_gt( nearMissBoxes, 200 );
    ck_assert_int_eq( ambiguous, 0 );
    cnDestroyWorld( pile.world );
}
END_TEST

// bad input: a clear status, logged, no hit
START_TEST( test_world_cast_bad_input )
{
    cntLogCapture capture;
    cnWorldDef def = cntWorldDef( &capture, NULL );
    cnWorldId world = cnCreateWorld( &def );
    cnBodyDef bodyDef = cnDefaultBodyDef();
    bodyDef.type = cn_staticBody;
    cnShapeDef shapeDef = cnDefaultShapeDef();
    cnPlane plane = { { 0, 0, 1 }, 0.0 };
    cnCreatePlaneShape( cnCreateBody( world, &bodyDef ), &shapeDef, &plane );
    cnQueryFilter filter = cnDefaultQueryFilter();
    cnGeometry ball = cntSphereGeometry( 0.5 );
    cnTransform pose = { cnMakeVec3( 0, 0, 5 ), cn_quatIdentity };
    cnVec3 down = { 0, 0, -10 };
    cnShapeCastHit hit;
    ck_assert_int_eq( cnWorld_CastShapeClosest( world, &ball, pose, down, filter, &hit ), cn_statusOk );
    ck_assert( hit.hit );
    CNT_ASSERT_REL( hit.fraction, 0.45, 1e-15 );
    CNT_ASSERT_ABS( hit.normal.z, 1.0, 1e-15 );
    CNT_ASSERT_ABS( hit.point.z, 0.0, 1e-15 );

    int errors = capture.errorCount;
    cntCastList list = { .count = 0, .returnValue = 1.0 };
    cntOverlapList overlaps = { .count = 0, .stopAfter = -1 };
    cnTransform nanPose = { cnMakeVec3( NAN, 0, 5 ), cn_quatIdentity };
    cnTransform zeroQ = { cnMakeVec3( 0, 0, 5 ), cnMakeQuat( 0, 0, 0, 0 ) };
    cnGeometry negative = cntSphereGeometry( -1.0 );
    cnGeometry torus = cntTorusGeometry( 1.0, 0.2 );
    hit.hit = true;
    ck_assert_int_eq( cnWorld_CastShapeClosest( world, &ball, nanPose, down, filter, &hit ),
                      cn_statusNonFinite );
    ck_assert( hit.hit == false );
    ck_assert_int_eq(
        cnWorld_CastShapeClosest( world, &ball, pose, cnMakeVec3( 0, INFINITY, 0 ), filter, &hit ),
        cn_statusNonFinite );
    ck_assert_int_eq( cnWorld_CastShape( world, &ball, zeroQ, down, filter, cntCollectCast, &list ),
                      cn_statusInvalidArgument );
    ck_assert_int_eq( cnWorld_CastShape( world, &negative, pose, down, filter, cntCollectCast, &list ),
                      cn_statusInvalidArgument );
    ck_assert_int_eq( cnWorld_CastShape( world, &torus, pose, down, filter, cntCollectCast, &list ),
                      cn_statusUnsupported );
    ck_assert_int_eq( cnWorld_CastShape( world, NULL, pose, down, filter, cntCollectCast, &list ),
                      cn_statusInvalidArgument );
    ck_assert_int_eq( cnWorld_CastShape( world, &ball, pose, down, filter, NULL, NULL ),
                      cn_statusInvalidArgument );
    ck_assert_int_eq( cnWorld_CastShapeClosest( world, &ball, pose, down, filter, NULL ),
                      cn_statusInvalidArgument );
    ck_assert_int_eq( cnWorld_OverlapShape( world, &ball, nanPose, filter, cntCollectOverlap, &overlaps ),
                      cn_statusNonFinite );
    ck_assert_int_eq( cnWorld_OverlapShape( world, &torus, pose, filter, cntCollectOverlap, &overlaps ),
                      cn_statusUnsupported );
    ck_assert_int_eq( cnWorld_OverlapShape( world, NULL, pose, filter, cntCollectOverlap, &overlaps ),
                      cn_statusInvalidArgument );
    ck_assert_int_eq( cnWorld_OverlapShape( world, &ball, pose, filter, NULL, NULL ),
                      cn_statusInvalidArgument );
    ck_assert_int_eq( capture.errorCount, errors + 12 );
    ck_assert_int_eq( list.count, 0 );
    ck_assert_int_eq( overlaps.count, 0 );

    // null, stale and forged world ids
    cnWorldId forged = world;
    forged.generation += 7;
    cnDestroyWorld( world );
    const cnWorldId ids[3] = { cn_nullWorldId, world, forged };
    for ( int i = 0; i < 3; ++i )
    {
        hit.hit = true;
        ck_assert_int_eq( cnWorld_CastShapeClosest( ids[i], &ball, pose, down, filter, &hit ),
                          cn_statusInvalidId );
        ck_assert( hit.hit == false );
        ck_assert_int_eq( cnWorld_CastShape( ids[i], &ball, pose, down, filter, cntCollectCast, &list ),
                          cn_statusInvalidId );
        ck_assert_int_eq( cnWorld_OverlapShape( ids[i], &ball, pose, filter, cntCollectOverlap, &overlaps ),
                          cn_statusInvalidId );
        ck_assert_int_eq( cnWorld_CastShapeClosest( ids[i], &ball, pose, down, filter, NULL ),
                          cn_statusInvalidId );
    }
    ck_assert_int_eq( list.count, 0 );
    ck_assert_int_eq( overlaps.count, 0 );
}
END_TEST

static Suite* cntQuerySuite( void )
{
    Suite* suite = suite_create( "query" );
    TCase* rays = tcase_create( "shape rays" );
    tcase_set_timeout( rays, 600 );
    tcase_add_test( rays, test_ray_known_answers );
    tcase_add_loop_test( rays, test_ray_each_type, 0, cn_shapeTypeCount );
    tcase_add_loop_test( rays, test_ray_near_tangent, 0, 5 );
    suite_add_tcase( suite, rays );
    TCase* casts = tcase_create( "shape casts" );
    tcase_set_timeout( casts, 600 );
    tcase_add_loop_test( casts, test_cast_each_type, 0, cn_shapeTypeCount );
    suite_add_tcase( suite, casts );
    TCase* world = tcase_create( "world" );
    tcase_set_timeout( world, 600 );
    tcase_add_test( world, test_world_pile );
    tcase_add_test( world, test_world_filter );
    tcase_add_test( world, test_world_callback_control );
    tcase_add_test( world, test_world_overlap );
    tcase_add_test( world, test_world_multisphere );
    tcase_add_test( world, test_world_bad_input );
    tcase_add_test( world, test_world_query_from_system );
    tcase_add_test( world, test_world_after_fast_turn );
    tcase_add_test( world, test_world_cast_pile );
    tcase_add_test( world, test_world_cast_control );
    tcase_add_test( world, test_world_overlap_shape );
    tcase_add_test( world, test_world_cast_bad_input );
    suite_add_tcase( suite, world );
    return suite;
}

int main( void )
{
    static cntSuiteFcn* const suites[] = { cntQuerySuite };
    return cntRunSuites( suites, 1 );
}
