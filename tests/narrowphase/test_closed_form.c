// SPDX-License-Identifier: MIT
// Closed-form narrowphase pairs: resting configurations against hand-computed depths and normals,
// the libccd box-box regression cases against their separating-axis depths, degenerate input,
// stable feature ids, speculative margins, and a fixed-seed random sweep per pair function checked
// against independent computations done here.
// Set CNT_VERBOSE=1 to print the measured errors.

#include "closed_form.h"
#include "hull.h"
#include "narrowphase_suites.h"
#include "test_support.h"

#include "cairn/cairn.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CNT_PI    3.14159265358979323846
#define CNT_EXACT 1e-9

static bool cntVerbose( void )
{
    return getenv( "CNT_VERBOSE" ) != NULL;
}

// ---------------------------------------------------------------------------------------------
// shapes

static cnCollisionShape cntPlace( const cnGeometry* geometry, cnVec3 position, cnQuat rotation )
{
    cnCollisionShape s;
    s.geometry = geometry;
    s.hull = NULL;
    s.transform.p = position;
    s.transform.q = rotation;
    return s;
}

static cnCollisionShape cntAt( const cnGeometry* geometry, double x, double y, double z )
{
    return cntPlace( geometry, cnMakeVec3( x, y, z ), cn_quatIdentity );
}

static cnQuat cntAxisAngle( double x, double y, double z, double angle )
{
    return cnQuatFromAxisAngle( cnNormalize( cnMakeVec3( x, y, z ) ), angle );
}

static cnManifold cntCollide( cnCollideFcn* fcn, const cnCollisionShape* a, const cnCollisionShape* b,
                              double margin )
{
    cnManifold m;
    memset( &m, 0xff, sizeof( m ) ); // garbage: every field read must have been written
    fcn( a, b, margin, NULL, &m );
    return m;
}

static double cntMinSeparation( const cnManifold* m )
{
    double s = DBL_MAX;
    for ( int i = 0; i < m->pointCount; ++i )
    {
        s = fmin( s, m->points[i].separation );
    }
    return s;
}

// ---------------------------------------------------------------------------------------------
// the contract every manifold must meet; returns a description of the first breach, or NULL

static const char* cntBreach( const cnCollisionShape* a, const cnCollisionShape* b, const cnManifold* m,
                              double margin, double scale )
{
    if ( m->pointCount < 0 || m->pointCount > CN_MAX_MANIFOLD_POINTS )
    {
        return "point count out of range";
    }
    if ( m->pointCount == 0 )
    {
        return NULL;
    }
    if ( cnIsFiniteVec3( m->normal ) == false )
    {
        return "normal not finite";
    }
    if ( fabs( cnLength( m->normal ) - 1.0 ) > 1e-12 )
    {
        return "normal not unit";
    }
    for ( int i = 0; i < m->pointCount; ++i )
    {
        const cnManifoldPoint* p = m->points + i;
        if ( cnIsFiniteVec3( p->point ) == false || cnIsFiniteVec3( p->localA ) == false ||
             cnIsFiniteVec3( p->localB ) == false || isfinite( p->separation ) == false )
        {
            return "point not finite";
        }
        if ( ( p->separation < margin ) == false )
        {
            return "separation not below the margin";
        }
        cnVec3 worldA = cnTransformPoint( a->transform, p->localA );
        cnVec3 worldB = cnTransformPoint( b->transform, p->localB );
        if ( fabs( cnDot( cnSub( worldB, worldA ), m->normal ) - p->separation ) > 1e-9 * scale )
        {
            return "separation is not the surface points' distance along the normal";
        }
        if ( cnLength( cnSub( p->point, cnScale( 0.5, cnAdd( worldA, worldB ) ) ) ) > 1e-9 * scale )
        {
            return "point is not midway between the surface points";
        }
    }
    return NULL;
}

#define CNT_ASSERT_SANE( a, b, m, margin, scale )                                                            \
    do                                                                                                       \
    {                                                                                                        \
        const char* breach_ = cntBreach( ( a ), ( b ), ( m ), ( margin ), ( scale ) );                       \
        ck_assert_msg( breach_ == NULL, "%s", breach_ == NULL ? "" : breach_ );                              \
    } while ( 0 )

static void cntAssertNormal( const cnManifold* m, double x, double y, double z )
{
    CNT_ASSERT_ABS( m->normal.x, x, CNT_EXACT );
    CNT_ASSERT_ABS( m->normal.y, y, CNT_EXACT );
    CNT_ASSERT_ABS( m->normal.z, z, CNT_EXACT );
}

// every point at the same separation
static void cntAssertSeparations( const cnManifold* m, double separation )
{
    for ( int i = 0; i < m->pointCount; ++i )
    {
        CNT_ASSERT_ABS( m->points[i].separation, separation, CNT_EXACT );
    }
}

// does the manifold hold a point whose surface point on A is at `p` (world)?
static bool cntHasPointA( const cnCollisionShape* a, const cnManifold* m, cnVec3 p, double tolerance )
{
    for ( int i = 0; i < m->pointCount; ++i )
    {
        if ( cnLength( cnSub( cnTransformPoint( a->transform, m->points[i].localA ), p ) ) <= tolerance )
        {
            return true;
        }
    }
    return false;
}

static bool cntHasPointB( const cnCollisionShape* b, const cnManifold* m, cnVec3 p, double tolerance )
{
    for ( int i = 0; i < m->pointCount; ++i )
    {
        if ( cnLength( cnSub( cnTransformPoint( b->transform, m->points[i].localB ), p ) ) <= tolerance )
        {
            return true;
        }
    }
    return false;
}

// ids, sorted, so that two manifolds can be compared as sets
static void cntSortedIds( const cnManifold* m, uint32_t ids[CN_MAX_MANIFOLD_POINTS] )
{
    for ( int i = 0; i < m->pointCount; ++i )
    {
        ids[i] = m->points[i].id;
    }
    for ( int i = 1; i < m->pointCount; ++i )
    {
        for ( int j = i; j > 0 && ids[j - 1] > ids[j]; --j )
        {
            uint32_t swap = ids[j];
            ids[j] = ids[j - 1];
            ids[j - 1] = swap;
        }
    }
}

static void cntAssertSameIds( const cnManifold* m0, const cnManifold* m1 )
{
    ck_assert_int_eq( m0->pointCount, m1->pointCount );
    uint32_t ids0[CN_MAX_MANIFOLD_POINTS], ids1[CN_MAX_MANIFOLD_POINTS];
    cntSortedIds( m0, ids0 );
    cntSortedIds( m1, ids1 );
    for ( int i = 0; i < m0->pointCount; ++i )
    {
        ck_assert_uint_eq( ids0[i], ids1[i] );
    }
}

static void cntAssertDistinctIds( const cnManifold* m )
{
    for ( int i = 0; i < m->pointCount; ++i )
    {
        for ( int j = i + 1; j < m->pointCount; ++j )
        {
            ck_assert_uint_ne( m->points[i].id, m->points[j].id );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// independent references

// rotation matrix rows of a quaternion (written out, not through cnRotate)
static void cntMatrix( cnQuat q, double r[3][3] )
{
    double x = q.x, y = q.y, z = q.z, w = q.w;
    r[0][0] = 1.0 - 2.0 * ( y * y + z * z );
    r[0][1] = 2.0 * ( x * y - z * w );
    r[0][2] = 2.0 * ( x * z + y * w );
    r[1][0] = 2.0 * ( x * y + z * w );
    r[1][1] = 1.0 - 2.0 * ( x * x + z * z );
    r[1][2] = 2.0 * ( y * z - x * w );
    r[2][0] = 2.0 * ( x * z - y * w );
    r[2][1] = 2.0 * ( y * z + x * w );
    r[2][2] = 1.0 - 2.0 * ( x * x + y * y );
}

// separation of two boxes along one unit axis (positive: apart)
static double cntBoxAxisSeparation( double ra[3][3], const double ha[3], const double* pa, double rb[3][3],
                                    const double hb[3], const double* pb, const double* axis )
{
    double d = 0.0, projection = 0.0;
    for ( int k = 0; k < 3; ++k )
    {
        d += ( pb[k] - pa[k] ) * axis[k];
    }
    for ( int c = 0; c < 3; ++c )
    {
        double da = ra[0][c] * axis[0] + ra[1][c] * axis[1] + ra[2][c] * axis[2];
        double db = rb[0][c] * axis[0] + rb[1][c] * axis[1] + rb[2][c] * axis[2];
        projection += ha[c] * fabs( da ) + hb[c] * fabs( db );
    }
    return fabs( d ) - projection;
}

// brute-force separating axis test over the 15 axes: the largest separation (negative: overlap)
static double cntBoxBoxSat( const cnCollisionShape* a, const cnCollisionShape* b )
{
    double ra[3][3], rb[3][3];
    cntMatrix( a->transform.q, ra );
    cntMatrix( b->transform.q, rb );
    cnVec3 ea = a->geometry->box.halfExtents, eb = b->geometry->box.halfExtents;
    double ha[3] = { ea.x, ea.y, ea.z }, hb[3] = { eb.x, eb.y, eb.z };
    double pa[3] = { a->transform.p.x, a->transform.p.y, a->transform.p.z };
    double pb[3] = { b->transform.p.x, b->transform.p.y, b->transform.p.z };
    double best = -DBL_MAX;
    for ( int i = 0; i < 3; ++i )
    {
        double axisA[3] = { ra[0][i], ra[1][i], ra[2][i] };
        double axisB[3] = { rb[0][i], rb[1][i], rb[2][i] };
        best = fmax( best, cntBoxAxisSeparation( ra, ha, pa, rb, hb, pb, axisA ) );
        best = fmax( best, cntBoxAxisSeparation( ra, ha, pa, rb, hb, pb, axisB ) );
        for ( int j = 0; j < 3; ++j )
        {
            double u[3] = { ra[0][i], ra[1][i], ra[2][i] };
            double v[3] = { rb[0][j], rb[1][j], rb[2][j] };
            double c[3] = { u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0] };
            double length = sqrt( c[0] * c[0] + c[1] * c[1] + c[2] * c[2] );
            if ( length > 1e-9 )
            {
                double unit[3] = { c[0] / length, c[1] / length, c[2] / length };
                best = fmax( best, cntBoxAxisSeparation( ra, ha, pa, rb, hb, pb, unit ) );
            }
        }
    }
    return best;
}

// the same along one given axis (for the cases where several axes tie)
static double cntBoxBoxAlong( const cnCollisionShape* a, const cnCollisionShape* b, cnVec3 axis )
{
    double ra[3][3], rb[3][3];
    cntMatrix( a->transform.q, ra );
    cntMatrix( b->transform.q, rb );
    cnVec3 ea = a->geometry->box.halfExtents, eb = b->geometry->box.halfExtents;
    double ha[3] = { ea.x, ea.y, ea.z }, hb[3] = { eb.x, eb.y, eb.z };
    double pa[3] = { a->transform.p.x, a->transform.p.y, a->transform.p.z };
    double pb[3] = { b->transform.p.x, b->transform.p.y, b->transform.p.z };
    double u[3] = { axis.x, axis.y, axis.z };
    return cntBoxAxisSeparation( ra, ha, pa, rb, hb, pb, u );
}

// half the width of a box's projection on a unit axis
static double cntBoxReach( const cnCollisionShape* box, cnVec3 axis )
{
    double r[3][3];
    cntMatrix( box->transform.q, r );
    cnVec3 h = box->geometry->box.halfExtents;
    double e[3] = { h.x, h.y, h.z };
    double sum = 0.0;
    for ( int c = 0; c < 3; ++c )
    {
        sum += e[c] * fabs( r[0][c] * axis.x + r[1][c] * axis.y + r[2][c] * axis.z );
    }
    return sum;
}

// distance from a point (box frame) to a box, negative inside (depth to the nearest face)
static double cntPointBoxDistance( cnVec3 h, cnVec3 p )
{
    double e[3] = { fabs( p.x ) - h.x, fabs( p.y ) - h.y, fabs( p.z ) - h.z };
    double outside = 0.0, inside = -DBL_MAX;
    for ( int k = 0; k < 3; ++k )
    {
        outside += e[k] > 0.0 ? e[k] * e[k] : 0.0;
        inside = fmax( inside, e[k] );
    }
    return inside > 0.0 ? sqrt( outside ) : inside;
}

// minimum over t in [0, 1] of a convex function, by golden-section search (plus the end points)
typedef double cntConvexFcn( const void* context, double t );

static double cntMinimize( cntConvexFcn* f, const void* context )
{
    double lo = 0.0, hi = 1.0;
    const double g = 0.5 * ( sqrt( 5.0 ) - 1.0 );
    double x1 = hi - g * ( hi - lo ), x2 = lo + g * ( hi - lo );
    double f1 = f( context, x1 ), f2 = f( context, x2 );
    for ( int i = 0; i < 200; ++i )
    {
        if ( f1 < f2 )
        {
            hi = x2;
            x2 = x1;
            f2 = f1;
            x1 = hi - g * ( hi - lo );
            f1 = f( context, x1 );
        }
        else
        {
            lo = x1;
            x1 = x2;
            f1 = f2;
            x2 = lo + g * ( hi - lo );
            f2 = f( context, x2 );
        }
    }
    return fmin( fmin( f1, f2 ), fmin( f( context, 0.0 ), f( context, 1.0 ) ) );
}

typedef struct cntSegments
{
    cnVec3 p0, d1, q0, d2;
    cnVec3 h; // box half extents (segment-box)
} cntSegments;

// squared distance from the point p0 + s d1 to the segment q0 + t d2
static double cntPointSegment2( const void* context, double s )
{
    const cntSegments* g = context;
    cnVec3 p = cnMulAdd( g->p0, s, g->d1 );
    double dd = cnDot( g->d2, g->d2 );
    double t = dd > 0.0 ? fmin( fmax( cnDot( cnSub( p, g->q0 ), g->d2 ) / dd, 0.0 ), 1.0 ) : 0.0;
    return cnLengthSquared( cnSub( p, cnMulAdd( g->q0, t, g->d2 ) ) );
}

// squared distance outside the box of the point p0 + s d1 (box frame)
static double cntPointBox2( const void* context, double s )
{
    const cntSegments* g = context;
    cnVec3 p = cnMulAdd( g->p0, s, g->d1 );
    double e[3] = { fabs( p.x ) - g->h.x, fabs( p.y ) - g->h.y, fabs( p.z ) - g->h.z };
    double sum = 0.0;
    for ( int k = 0; k < 3; ++k )
    {
        sum += e[k] > 0.0 ? e[k] * e[k] : 0.0;
    }
    return sum;
}

static void cntCapsuleEnds( const cnCollisionShape* s, cnVec3* start, cnVec3* direction )
{
    double r[3][3];
    cntMatrix( s->transform.q, r );
    double h = s->geometry->capsule.halfLength;
    cnVec3 axis = cnMakeVec3( r[0][2], r[1][2], r[2][2] );
    *start = cnMulAdd( s->transform.p, -h, axis );
    *direction = cnScale( 2.0 * h, axis );
}

// ---------------------------------------------------------------------------------------------
// sphere pairs

START_TEST( spheres_closed_form )
{
    cnGeometry ga = cntSphereGeometry( 1.0 ), gb = cntSphereGeometry( 1.5 );
    cnCollisionShape a = cntAt( &ga, 0.0, 0.0, 0.0 );
    cnCollisionShape b = cntAt( &gb, 3.0, 0.0, 0.0 );

    // apart by 0.5, inside a margin of 1
    cnManifold m = cntCollide( cnCollideSpheres, &a, &b, 1.0 );
    CNT_ASSERT_SANE( &a, &b, &m, 1.0, 3.0 );
    ck_assert_int_eq( m.pointCount, 1 );
    cntAssertNormal( &m, 1.0, 0.0, 0.0 );
    CNT_ASSERT_ABS( m.points[0].separation, 0.5, CNT_EXACT );
    CNT_ASSERT_ABS( m.points[0].point.x, 1.25, CNT_EXACT );
    CNT_ASSERT_ABS( m.points[0].localA.x, 1.0, CNT_EXACT );
    CNT_ASSERT_ABS( m.points[0].localB.x, -1.5, CNT_EXACT );
    ck_assert_uint_eq( m.points[0].id, 0 );

    // the margin is exclusive
    m = cntCollide( cnCollideSpheres, &a, &b, 0.5 );
    ck_assert_int_eq( m.pointCount, 0 );

    // overlapping, B below A: the normal points from A to B
    b = cntAt( &gb, 0.0, 0.0, -2.0 );
    m = cntCollide( cnCollideSpheres, &a, &b, 0.0 );
    CNT_ASSERT_SANE( &a, &b, &m, 0.0, 3.0 );
    ck_assert_int_eq( m.pointCount, 1 );
    cntAssertNormal( &m, 0.0, 0.0, -1.0 );
    CNT_ASSERT_ABS( m.points[0].separation, -0.5, CNT_EXACT );
}
END_TEST

// coincident centres: the direction is not unique, the functions pick world +z
START_TEST( spheres_coincident_centres )
{
    cnGeometry ga = cntSphereGeometry( 1.0 ), gb = cntSphereGeometry( 0.25 );
    cnCollisionShape a = cntAt( &ga, 1.0, 2.0, 3.0 );
    cnCollisionShape b = cntAt( &gb, 1.0, 2.0, 3.0 );
    cnManifold m = cntCollide( cnCollideSpheres, &a, &b, 0.0 );
    CNT_ASSERT_SANE( &a, &b, &m, 0.0, 1.0 );
    ck_assert_int_eq( m.pointCount, 1 );
    cntAssertNormal( &m, 0.0, 0.0, 1.0 );
    CNT_ASSERT_ABS( m.points[0].separation, -1.25, CNT_EXACT );
}
END_TEST

START_TEST( sphere_plane_closed_form )
{
    cnGeometry ga = cntSphereGeometry( 0.5 );
    cnGeometry gp = cntPlaneGeometry( cnMakeVec3( 0.0, 0.0, 1.0 ), 0.0 );
    cnCollisionShape plane = cntAt( &gp, 0.0, 0.0, 0.0 );
    cnCollisionShape a = cntAt( &ga, 0.3, -0.2, 0.49 );
    cnManifold m = cntCollide( cnCollideSpherePlane, &a, &plane, 0.0 );
    CNT_ASSERT_SANE( &a, &plane, &m, 0.0, 1.0 );
    ck_assert_int_eq( m.pointCount, 1 );
    cntAssertNormal( &m, 0.0, 0.0, -1.0 );
    CNT_ASSERT_ABS( m.points[0].separation, -0.01, CNT_EXACT );
    CNT_ASSERT_ABS( m.points[0].point.z, -0.005, CNT_EXACT );
    CNT_ASSERT_ABS( m.points[0].localB.z, 0.0, CNT_EXACT );

    // a normal that is not unit length: dot((0,0,2), x) <= 0.2 is z <= 0.1; the plane shape is
    // turned upside down and lifted, so its world half-space is z >= 2 - 0.1
    gp = cntPlaneGeometry( cnMakeVec3( 0.0, 0.0, 2.0 ), 0.2 );
    plane = cntPlace( &gp, cnMakeVec3( 0.0, 0.0, 2.0 ), cntAxisAngle( 1.0, 0.0, 0.0, CNT_PI ) );
    a = cntAt( &ga, 0.0, 0.0, 1.5 );
    m = cntCollide( cnCollideSpherePlane, &a, &plane, 0.5 );
    CNT_ASSERT_SANE( &a, &plane, &m, 0.5, 1.0 );
    ck_assert_int_eq( m.pointCount, 1 );
    cntAssertNormal( &m, 0.0, 0.0, 1.0 );
    CNT_ASSERT_ABS( m.points[0].separation, -0.1, CNT_EXACT );

    // a zero normal stays finite
    gp = cntPlaneGeometry( cn_vec3Zero, 0.0 );
    plane = cntAt( &gp, 0.0, 0.0, 0.0 );
    m = cntCollide( cnCollideSpherePlane, &a, &plane, 10.0 );
    CNT_ASSERT_SANE( &a, &plane, &m, 10.0, 1.0 );
}
END_TEST

START_TEST( sphere_box_closed_form )
{
    cnGeometry gs = cntSphereGeometry( 0.5 );
    cnGeometry gb = cntBoxGeometry( 1.0, 2.0, 0.5 );
    cnCollisionShape box = cntPlace( &gb, cnMakeVec3( 1.0, 0.0, 0.0 ), cntAxisAngle( 0.0, 0.0, 1.0, 0.3 ) );
    cnVec3 up = cnRotate( box.transform.q, cnMakeVec3( 0.0, 0.0, 1.0 ) );

    // resting on the top face (sphere is A, so the normal points down into the box)
    cnCollisionShape s =
        cntPlace( &gs, cnTransformPoint( box.transform, cnMakeVec3( 0.2, 0.3, 0.999 ) ), cn_quatIdentity );
    cnManifold m = cntCollide( cnCollideSphereBox, &s, &box, 0.0 );
    CNT_ASSERT_SANE( &s, &box, &m, 0.0, 2.0 );
    ck_assert_int_eq( m.pointCount, 1 );
    cntAssertNormal( &m, -up.x, -up.y, -up.z );
    CNT_ASSERT_ABS( m.points[0].separation, -0.001, CNT_EXACT );
    CNT_ASSERT_ABS( m.points[0].localB.z, 0.5, CNT_EXACT );

    // beside a vertical edge: distance to the edge line
    s = cntPlace( &gs, cnTransformPoint( box.transform, cnMakeVec3( 1.3, 2.4, 0.0 ) ), cn_quatIdentity );
    m = cntCollide( cnCollideSphereBox, &s, &box, 0.1 );
    CNT_ASSERT_SANE( &s, &box, &m, 0.1, 2.0 );
    ck_assert_int_eq( m.pointCount, 1 );
    CNT_ASSERT_ABS( m.points[0].separation, 0.0, CNT_EXACT );
    cnVec3 expected = cnRotate( box.transform.q, cnMakeVec3( -0.6, -0.8, 0.0 ) );
    cntAssertNormal( &m, expected.x, expected.y, expected.z );

    // centre inside, nearest the -y face: depth 0.1 + radius
    s = cntPlace( &gs, cnTransformPoint( box.transform, cnMakeVec3( 0.0, -1.9, 0.0 ) ), cn_quatIdentity );
    m = cntCollide( cnCollideSphereBox, &s, &box, 0.0 );
    CNT_ASSERT_SANE( &s, &box, &m, 0.0, 2.0 );
    ck_assert_int_eq( m.pointCount, 1 );
    CNT_ASSERT_ABS( m.points[0].separation, -0.6, CNT_EXACT );
    expected = cnRotate( box.transform.q, cnMakeVec3( 0.0, 1.0, 0.0 ) );
    cntAssertNormal( &m, expected.x, expected.y, expected.z );

    // centre at the box centre: finite
    s = cntPlace( &gs, box.transform.p, cn_quatIdentity );
    m = cntCollide( cnCollideSphereBox, &s, &box, 0.0 );
    CNT_ASSERT_SANE( &s, &box, &m, 0.0, 2.0 );
    ck_assert_int_eq( m.pointCount, 1 );
    CNT_ASSERT_ABS( m.points[0].separation, -1.0, CNT_EXACT );
}
END_TEST

START_TEST( sphere_capsule_closed_form )
{
    cnGeometry gs = cntSphereGeometry( 0.5 );
    cnGeometry gc = cntCapsuleGeometry( 0.25, 1.0 );
    // capsule along world x
    cnCollisionShape c =
        cntPlace( &gc, cnMakeVec3( 0.0, 0.0, 0.0 ), cntAxisAngle( 0.0, 1.0, 0.0, 0.5 * CNT_PI ) );

    // beside the middle, sphere above: normal points down (sphere is A)
    cnCollisionShape s = cntAt( &gs, 0.4, 0.0, 0.7 );
    cnManifold m = cntCollide( cnCollideSphereCapsule, &s, &c, 0.0 );
    CNT_ASSERT_SANE( &s, &c, &m, 0.0, 2.0 );
    ck_assert_int_eq( m.pointCount, 1 );
    cntAssertNormal( &m, 0.0, 0.0, -1.0 );
    CNT_ASSERT_ABS( m.points[0].separation, -0.05, CNT_EXACT );

    // beyond the end cap
    s = cntAt( &gs, 1.8, 0.0, 0.0 );
    m = cntCollide( cnCollideSphereCapsule, &s, &c, 0.1 );
    CNT_ASSERT_SANE( &s, &c, &m, 0.1, 2.0 );
    ck_assert_int_eq( m.pointCount, 1 );
    cntAssertNormal( &m, -1.0, 0.0, 0.0 );
    CNT_ASSERT_ABS( m.points[0].separation, 0.05, CNT_EXACT );

    // centre on the core: a direction perpendicular to the capsule axis
    s = cntAt( &gs, 0.3, 0.0, 0.0 );
    m = cntCollide( cnCollideSphereCapsule, &s, &c, 0.0 );
    CNT_ASSERT_SANE( &s, &c, &m, 0.0, 2.0 );
    ck_assert_int_eq( m.pointCount, 1 );
    CNT_ASSERT_ABS( m.normal.x, 0.0, CNT_EXACT );
    CNT_ASSERT_ABS( m.points[0].separation, -0.75, CNT_EXACT );

    // zero-length capsule: a sphere
    gc = cntCapsuleGeometry( 0.25, 0.0 );
    s = cntAt( &gs, 0.0, 0.6, 0.0 );
    m = cntCollide( cnCollideSphereCapsule, &s, &c, 0.0 );
    CNT_ASSERT_SANE( &s, &c, &m, 0.0, 2.0 );
    ck_assert_int_eq( m.pointCount, 1 );
    cntAssertNormal( &m, 0.0, -1.0, 0.0 );
    CNT_ASSERT_ABS( m.points[0].separation, -0.15, CNT_EXACT );
}
END_TEST

// ---------------------------------------------------------------------------------------------
// box against plane

START_TEST( box_rests_on_plane )
{
    cnGeometry gb = cntBoxGeometry( 0.5, 0.3, 0.2 );
    cnGeometry gp = cntPlaneGeometry( cnMakeVec3( 0.0, 0.0, 1.0 ), 0.0 );
    cnCollisionShape plane = cntAt( &gp, 0.0, 0.0, 0.0 );
    cnCollisionShape box =
        cntPlace( &gb, cnMakeVec3( 2.0, 1.0, 0.2 - 0.001 ), cntAxisAngle( 0.0, 0.0, 1.0, 0.7 ) );
    cnManifold m = cntCollide( cnCollideBoxPlane, &box, &plane, 0.0 );
    CNT_ASSERT_SANE( &box, &plane, &m, 0.0, 1.0 );
    ck_assert_int_eq( m.pointCount, 4 );
    cntAssertNormal( &m, 0.0, 0.0, -1.0 );
    cntAssertSeparations( &m, -0.001 );
    cntAssertDistinctIds( &m );
    for ( int i = 0; i < 4; ++i )
    {
        CNT_ASSERT_ABS( m.points[i].localA.z, -0.2, CNT_EXACT );
        CNT_ASSERT_ABS( m.points[i].point.z, -0.0005, CNT_EXACT );
        ck_assert( ( m.points[i].id & 4u ) == 0u ); // bottom vertices
    }

    // nudged sideways by 1e-6: the same ids
    cnCollisionShape nudged = box;
    nudged.transform.p.x += 1e-6;
    cnManifold m1 = cntCollide( cnCollideBoxPlane, &nudged, &plane, 0.0 );
    cntAssertSameIds( &m, &m1 );

    // turned over onto its top face: other vertices, other ids
    cnCollisionShape flipped = cntPlace( &gb, box.transform.p, cntAxisAngle( 1.0, 0.0, 0.0, CNT_PI ) );
    m1 = cntCollide( cnCollideBoxPlane, &flipped, &plane, 0.0 );
    ck_assert_int_eq( m1.pointCount, 4 );
    for ( int i = 0; i < 4; ++i )
    {
        ck_assert( ( m1.points[i].id & 4u ) != 0u );
    }

    // on an edge (tilted 45 degrees about x): 2 points
    double drop = 0.3 * sqrt( 0.5 ) + 0.2 * sqrt( 0.5 );
    cnCollisionShape edge =
        cntPlace( &gb, cnMakeVec3( 0.0, 0.0, drop - 0.002 ), cntAxisAngle( 1.0, 0.0, 0.0, 0.25 * CNT_PI ) );
    m1 = cntCollide( cnCollideBoxPlane, &edge, &plane, 0.0 );
    CNT_ASSERT_SANE( &edge, &plane, &m1, 0.0, 1.0 );
    ck_assert_int_eq( m1.pointCount, 2 );
    cntAssertSeparations( &m1, -0.002 );
}
END_TEST

START_TEST( box_plane_speculative_margin )
{
    cnGeometry gb = cntBoxGeometry( 0.5, 0.5, 0.5 );
    cnGeometry gp = cntPlaneGeometry( cnMakeVec3( 0.0, 0.0, 1.0 ), 0.0 );
    cnCollisionShape plane = cntAt( &gp, 0.0, 0.0, 0.0 );
    cnCollisionShape box = cntAt( &gb, 0.0, 0.0, 0.51 );
    cnManifold m = cntCollide( cnCollideBoxPlane, &box, &plane, 0.02 );
    CNT_ASSERT_SANE( &box, &plane, &m, 0.02, 1.0 );
    ck_assert_int_eq( m.pointCount, 4 );
    cntAssertSeparations( &m, 0.01 );
    m = cntCollide( cnCollideBoxPlane, &box, &plane, 0.005 );
    ck_assert_int_eq( m.pointCount, 0 );

    // the same with a box-box pair: 1 cm above a large box
    cnGeometry ground = cntBoxGeometry( 5.0, 5.0, 1.0 );
    cnCollisionShape floor = cntAt( &ground, 0.0, 0.0, -1.0 );
    m = cntCollide( cnCollideBoxes, &floor, &box, 0.02 );
    CNT_ASSERT_SANE( &floor, &box, &m, 0.02, 5.0 );
    ck_assert_int_eq( m.pointCount, 4 );
    cntAssertSeparations( &m, 0.01 );
    cntAssertNormal( &m, 0.0, 0.0, 1.0 );
    m = cntCollide( cnCollideBoxes, &floor, &box, 0.005 );
    ck_assert_int_eq( m.pointCount, 0 );
}
END_TEST

START_TEST( box_plane_rotated_plane_and_more_than_four )
{
    // a plane shape rotated so that its world normal is +x, offset moves it to x = 1 (the
    // half-space x <= 1)
    cnGeometry gp = cntPlaneGeometry( cnMakeVec3( 0.0, 0.0, 1.0 ), 1.0 );
    cnCollisionShape plane = cntPlace( &gp, cn_vec3Zero, cntAxisAngle( 0.0, 1.0, 0.0, 0.5 * CNT_PI ) );
    cnGeometry gb = cntBoxGeometry( 0.1, 0.1, 0.1 );
    cnCollisionShape box = cntAt( &gb, 1.05, 0.0, 0.0 );
    // margin larger than the box: all 8 vertices qualify, 4 are kept, the deepest among them
    cnManifold m = cntCollide( cnCollideBoxPlane, &box, &plane, 1.0 );
    CNT_ASSERT_SANE( &box, &plane, &m, 1.0, 1.0 );
    ck_assert_int_eq( m.pointCount, 4 );
    cntAssertNormal( &m, -1.0, 0.0, 0.0 ); // from the box into the half-space x <= 1
    CNT_ASSERT_ABS( cntMinSeparation( &m ), -0.05, CNT_EXACT );
    cntAssertDistinctIds( &m );
}
END_TEST

// ---------------------------------------------------------------------------------------------
// box against box

// the four top corners of a box (world), for checking where the points sit
static void cntTopCorners( const cnCollisionShape* box, double sign, cnVec3 corners[4] )
{
    cnVec3 h = box->geometry->box.halfExtents;
    for ( int i = 0; i < 4; ++i )
    {
        cnVec3 local = cnMakeVec3( ( i & 1 ) ? h.x : -h.x, ( i & 2 ) ? h.y : -h.y, sign * h.z );
        corners[i] = cnTransformPoint( box->transform, local );
    }
}

START_TEST( box_rests_on_box )
{
    cnGeometry big = cntBoxGeometry( 2.0, 2.0, 0.5 );
    cnGeometry small = cntBoxGeometry( 0.5, 0.3, 0.2 );
    cnCollisionShape ground = cntAt( &big, 0.0, 0.0, -0.5 );
    double depth = 1e-3;
    cnCollisionShape box = cntAt( &small, 0.3, -0.2, 0.2 - depth );

    // ground is A: normal up
    cnManifold m = cntCollide( cnCollideBoxes, &ground, &box, 0.0 );
    CNT_ASSERT_SANE( &ground, &box, &m, 0.0, 2.0 );
    ck_assert_int_eq( m.pointCount, 4 );
    cntAssertNormal( &m, 0.0, 0.0, 1.0 );
    cntAssertSeparations( &m, -depth );
    cntAssertDistinctIds( &m );
    cnVec3 corners[4];
    cntTopCorners( &box, -1.0, corners );
    for ( int i = 0; i < 4; ++i )
    {
        ck_assert( cntHasPointB( &box, &m, corners[i], CNT_EXACT ) );
    }

    // the small box as A: normal down
    m = cntCollide( cnCollideBoxes, &box, &ground, 0.0 );
    CNT_ASSERT_SANE( &box, &ground, &m, 0.0, 2.0 );
    ck_assert_int_eq( m.pointCount, 4 );
    cntAssertNormal( &m, 0.0, 0.0, -1.0 );
    cntAssertSeparations( &m, -depth );
    for ( int i = 0; i < 4; ++i )
    {
        ck_assert( cntHasPointA( &box, &m, corners[i], CNT_EXACT ) );
    }

    // nudged by 1e-6: the same ids; moved to overhang the edge: still 4 points, other ids
    cnCollisionShape nudged = box;
    nudged.transform.p.y += 1e-6;
    cnManifold m1 = cntCollide( cnCollideBoxes, &ground, &nudged, 0.0 );
    m = cntCollide( cnCollideBoxes, &ground, &box, 0.0 );
    cntAssertSameIds( &m, &m1 );
    cnCollisionShape overhang = cntAt( &small, 2.2, 0.0, 0.2 - depth );
    m1 = cntCollide( cnCollideBoxes, &ground, &overhang, 0.0 );
    CNT_ASSERT_SANE( &ground, &overhang, &m1, 0.0, 2.0 );
    ck_assert_int_eq( m1.pointCount, 4 );
    cntAssertSeparations( &m1, -depth );
    uint32_t ids0[4], ids1[4];
    cntSortedIds( &m, ids0 );
    cntSortedIds( &m1, ids1 );
    ck_assert( memcmp( ids0, ids1, sizeof( ids0 ) ) != 0 );
}
END_TEST

START_TEST( box_rotated_on_box )
{
    cnGeometry big = cntBoxGeometry( 2.0, 2.0, 0.5 );
    cnGeometry small = cntBoxGeometry( 0.5, 0.3, 0.2 );
    cnCollisionShape ground = cntAt( &big, 0.0, 0.0, -0.5 );
    double depth = 2e-3;
    cnCollisionShape box =
        cntPlace( &small, cnMakeVec3( -0.4, 0.5, 0.2 - depth ), cntAxisAngle( 0.0, 0.0, 1.0, CNT_PI / 6.0 ) );
    cnVec3 corners[4];
    cntTopCorners( &box, -1.0, corners );

    for ( int order = 0; order < 2; ++order )
    {
        const cnCollisionShape* a = order == 0 ? &ground : &box;
        const cnCollisionShape* b = order == 0 ? &box : &ground;
        cnManifold m = cntCollide( cnCollideBoxes, a, b, 0.0 );
        CNT_ASSERT_SANE( a, b, &m, 0.0, 2.0 );
        ck_assert_int_eq( m.pointCount, 4 );
        cntAssertNormal( &m, 0.0, 0.0, order == 0 ? 1.0 : -1.0 );
        cntAssertSeparations( &m, -depth );
        for ( int i = 0; i < 4; ++i )
        {
            ck_assert( order == 0 ? cntHasPointB( &box, &m, corners[i], CNT_EXACT )
                                  : cntHasPointA( &box, &m, corners[i], CNT_EXACT ) );
        }
    }

    // two equal boxes stacked, the upper turned by 30 degrees: 8 clip points reduced to 4
    cnGeometry cube = cntBoxGeometry( 0.5, 0.5, 0.5 );
    cnCollisionShape lower = cntAt( &cube, 0.0, 0.0, 0.0 );
    cnCollisionShape upper =
        cntPlace( &cube, cnMakeVec3( 0.0, 0.0, 1.0 - depth ), cntAxisAngle( 0.0, 0.0, 1.0, CNT_PI / 6.0 ) );
    cnManifold m = cntCollide( cnCollideBoxes, &lower, &upper, 0.0 );
    CNT_ASSERT_SANE( &lower, &upper, &m, 0.0, 1.0 );
    ck_assert_int_eq( m.pointCount, 4 );
    cntAssertNormal( &m, 0.0, 0.0, 1.0 );
    cntAssertSeparations( &m, -depth );
    cntAssertDistinctIds( &m );

    // nudged by 1e-6: the same 4 of the 8 clip points
    upper.transform.p.x += 1e-6;
    cnManifold m1 = cntCollide( cnCollideBoxes, &lower, &upper, 0.0 );
    cntAssertSameIds( &m, &m1 );
}
END_TEST

START_TEST( boxes_exactly_touching_and_aligned )
{
    cnGeometry cube = cntBoxGeometry( 0.5, 0.5, 0.5 );
    cnCollisionShape a = cntAt( &cube, 0.0, 0.0, 0.0 );
    // face to face, exactly aligned and exactly touching (zero depth): the GJK/EPA NaN case
    cnCollisionShape b = cntAt( &cube, 0.0, 0.0, 1.0 );
    cnManifold m = cntCollide( cnCollideBoxes, &a, &b, 0.01 );
    CNT_ASSERT_SANE( &a, &b, &m, 0.01, 1.0 );
    ck_assert_int_eq( m.pointCount, 4 );
    cntAssertNormal( &m, 0.0, 0.0, 1.0 );
    cntAssertSeparations( &m, 0.0 );

    // the same, sideways and with a zero margin: zero separation is not below the margin
    b = cntAt( &cube, -1.0, 0.0, 0.0 );
    m = cntCollide( cnCollideBoxes, &a, &b, 0.0 );
    ck_assert_int_eq( m.pointCount, 0 );
    m = cntCollide( cnCollideBoxes, &a, &b, 1e-9 );
    ck_assert_int_eq( m.pointCount, 4 );
    cntAssertNormal( &m, -1.0, 0.0, 0.0 );

    // coincident boxes: deep, finite, a face normal, depth 1
    b = cntAt( &cube, 0.0, 0.0, 0.0 );
    m = cntCollide( cnCollideBoxes, &a, &b, 0.0 );
    CNT_ASSERT_SANE( &a, &b, &m, 0.0, 1.0 );
    ck_assert_int_eq( m.pointCount, 4 );
    CNT_ASSERT_ABS( cntMinSeparation( &m ), -1.0, CNT_EXACT );
    CNT_ASSERT_ABS( fabs( m.normal.x ) + fabs( m.normal.y ) + fabs( m.normal.z ), 1.0, CNT_EXACT );
}
END_TEST

START_TEST( box_inside_box )
{
    cnGeometry big = cntBoxGeometry( 1.0, 1.0, 1.0 );
    cnGeometry small = cntBoxGeometry( 0.2, 0.2, 0.2 );
    cnCollisionShape a = cntAt( &big, 0.0, 0.0, 0.0 );
    cnCollisionShape b = cntPlace( &small, cnMakeVec3( 0.1, 0.5, 0.0 ), cntAxisAngle( 1.0, 2.0, 3.0, 0.4 ) );
    cnManifold m = cntCollide( cnCollideBoxes, &a, &b, 0.0 );
    CNT_ASSERT_SANE( &a, &b, &m, 0.0, 1.0 );
    ck_assert_int_gt( m.pointCount, 0 );
    cntAssertNormal( &m, 0.0, 1.0, 0.0 );
    // push out through +y: 1 - 0.5 plus the small box's reach along y
    double reach = cntBoxReach( &b, cnMakeVec3( 0.0, 1.0, 0.0 ) );
    CNT_ASSERT_ABS( cntMinSeparation( &m ), -( 0.5 + reach ), CNT_EXACT );
    CNT_ASSERT_ABS( cntMinSeparation( &m ), cntBoxBoxSat( &a, &b ), CNT_EXACT );
}
END_TEST

START_TEST( box_edge_on_box_edge )
{
    // A turned 45 degrees about x (top edge along x), B turned 45 degrees about y (bottom edge
    // along y): the edges cross at the origin's vertical, normal +z
    cnGeometry cube = cntBoxGeometry( 0.5, 0.5, 0.5 );
    double depth = 0.01;
    double reach = 0.5 * sqrt( 2.0 );
    cnCollisionShape a = cntPlace( &cube, cn_vec3Zero, cntAxisAngle( 1.0, 0.0, 0.0, 0.25 * CNT_PI ) );
    cnCollisionShape b = cntPlace( &cube, cnMakeVec3( 0.1, -0.05, 2.0 * reach - depth ),
                                   cntAxisAngle( 0.0, 1.0, 0.0, 0.25 * CNT_PI ) );
    cnManifold m = cntCollide( cnCollideBoxes, &a, &b, 0.0 );
    CNT_ASSERT_SANE( &a, &b, &m, 0.0, 1.0 );
    ck_assert_int_eq( m.pointCount, 1 );
    cntAssertNormal( &m, 0.0, 0.0, 1.0 );
    CNT_ASSERT_ABS( m.points[0].separation, -depth, CNT_EXACT );
    ck_assert( cntHasPointA( &a, &m, cnMakeVec3( 0.1, 0.0, reach ), CNT_EXACT ) );
    ck_assert( cntHasPointB( &b, &m, cnMakeVec3( 0.1, 0.0, reach - depth ), CNT_EXACT ) );
    uint32_t id = m.points[0].id;

    // nudged: the same id; the other way round: the normal flips
    b.transform.p.x += 1e-6;
    m = cntCollide( cnCollideBoxes, &a, &b, 0.0 );
    ck_assert_uint_eq( m.points[0].id, id );
    m = cntCollide( cnCollideBoxes, &b, &a, 0.0 );
    CNT_ASSERT_SANE( &b, &a, &m, 0.0, 1.0 );
    ck_assert_int_eq( m.pointCount, 1 );
    cntAssertNormal( &m, 0.0, 0.0, -1.0 );
    CNT_ASSERT_ABS( m.points[0].separation, -depth, CNT_EXACT );
}
END_TEST

// libccd's box-box penetration cases with their independent separating-axis depths
START_TEST( libccd_box_box_cases )
{
    const char* path = CN_SHARED_DIR "/external-data/libccd-regressions/boxbox_penetration_cases.csv";
    FILE* file = fopen( path, "r" );
    if ( file == NULL )
    {
        printf( "skipped: %s not found\n", path );
        return;
    }
    char line[2048];
    int cases = 0;
    double worstDepth = 0.0, worstDirection = 0.0;
    while ( fgets( line, (int)sizeof( line ), file ) != NULL )
    {
        if ( line[0] == '#' || strncmp( line, "case", 4 ) == 0 || line[0] == '\n' )
        {
            continue;
        }
        double v[30];
        int count = 0;
        char* cursor = line;
        while ( count < 30 )
        {
            char* end = NULL;
            v[count] = strtod( cursor, &end );
            if ( end == cursor )
            {
                break;
            }
            count += 1;
            cursor = *end == ',' ? end + 1 : end;
        }
        ck_assert_int_eq( count, 30 );
        int index = (int)v[0];

        cnGeometry g1 = cntBoxGeometry( 0.5 * v[1], 0.5 * v[2], 0.5 * v[3] );
        cnGeometry g2 = cntBoxGeometry( 0.5 * v[11], 0.5 * v[12], 0.5 * v[13] );
        cnQuat q1 = { v[7], v[8], v[9], v[10] };
        cnQuat q2 = { v[17], v[18], v[19], v[20] };
        cnCollisionShape a = cntPlace( &g1, cnMakeVec3( v[4], v[5], v[6] ), cnNormalizeQuat( q1 ) );
        cnCollisionShape b = cntPlace( &g2, cnMakeVec3( v[14], v[15], v[16] ), cnNormalizeQuat( q2 ) );
        cnVec3 direction = cnNormalize( cnMakeVec3( v[22], v[23], v[24] ) );
        double satDepth = v[28];

        cnManifold m = cntCollide( cnCollideBoxes, &a, &b, 0.0 );
        CNT_ASSERT_SANE( &a, &b, &m, 0.0, 1.0 );
        ck_assert_msg( m.pointCount > 0, "case %d: no contact", index );
        double depth = -cntMinSeparation( &m );
        double along = cnDot( m.normal, direction );
        worstDepth = fmax( worstDepth, fabs( depth - satDepth ) );
        if ( cntVerbose() )
        {
            printf( "  case %d: depth %.9f (sat %.6f), normal [%.6f %.6f %.6f] . ref_dir = %.9f, %d points\n",
                    index, depth, satDepth, m.normal.x, m.normal.y, m.normal.z, along, m.pointCount );
        }
        ck_assert_msg( fabs( depth - satDepth ) <= 1e-6, "case %d: depth %.9g, sat_depth %.9g", index, depth,
                       satDepth );
        // the depth of the two boxes along the reported normal is the minimum too
        CNT_ASSERT_ABS( -cntBoxBoxAlong( &a, &b, m.normal ), satDepth, 1e-6 );
        if ( index == 7 )
        {
            // case 7: several separating axes are reported to tie at the minimum depth here, so any
            // normal whose own SAT depth is the minimum passes (checked just above) instead of a
            // comparison with ref_dir. (Our normal happens to be ref_dir, +x, box 2's face axis.)
            continue;
        }
        worstDirection = fmax( worstDirection, 1.0 - along );
        ck_assert_msg( along > 1.0 - 1e-6, "case %d: normal . ref_dir = %.9g", index, along );
        cases += 1;
    }
    fclose( file );
    ck_assert_int_eq( cases, 7 );
    if ( cntVerbose() )
    {
        printf( "  libccd box-box: worst depth error %.3g, worst 1 - normal . ref_dir %.3g\n", worstDepth,
                worstDirection );
    }
}
END_TEST

// ---------------------------------------------------------------------------------------------
// capsules

START_TEST( capsule_lies_on_box )
{
    cnGeometry gb = cntBoxGeometry( 1.0, 1.0, 0.5 );
    cnGeometry gc = cntCapsuleGeometry( 0.2, 0.5 );
    cnCollisionShape box = cntAt( &gb, 0.0, 0.0, 0.0 );
    cnQuat alongX = cntAxisAngle( 0.0, 1.0, 0.0, 0.5 * CNT_PI );
    double depth = 0.001;
    cnCollisionShape c = cntPlace( &gc, cnMakeVec3( 0.1, 0.2, 0.5 + 0.2 - depth ), alongX );
    cnManifold m = cntCollide( cnCollideBoxCapsule, &box, &c, 0.0 );
    CNT_ASSERT_SANE( &box, &c, &m, 0.0, 2.0 );
    ck_assert_int_eq( m.pointCount, 2 );
    cntAssertNormal( &m, 0.0, 0.0, 1.0 );
    cntAssertSeparations( &m, -depth );
    cntAssertDistinctIds( &m );
    ck_assert( cntHasPointB( &c, &m, cnMakeVec3( -0.4, 0.2, 0.5 - depth ), CNT_EXACT ) );
    ck_assert( cntHasPointB( &c, &m, cnMakeVec3( 0.6, 0.2, 0.5 - depth ), CNT_EXACT ) );
    ck_assert( cntHasPointA( &box, &m, cnMakeVec3( 0.6, 0.2, 0.5 ), CNT_EXACT ) );

    // nudged: the same ids
    cnCollisionShape nudged = c;
    nudged.transform.p.y += 1e-6;
    cnManifold m1 = cntCollide( cnCollideBoxCapsule, &box, &nudged, 0.0 );
    cntAssertSameIds( &m, &m1 );

    // hanging over the +x edge: the points are the inner end and the edge crossing
    c = cntPlace( &gc, cnMakeVec3( 0.8, 0.0, 0.5 + 0.2 - depth ), alongX );
    m = cntCollide( cnCollideBoxCapsule, &box, &c, 0.0 );
    CNT_ASSERT_SANE( &box, &c, &m, 0.0, 2.0 );
    ck_assert_int_eq( m.pointCount, 2 );
    cntAssertSeparations( &m, -depth );
    ck_assert( cntHasPointA( &box, &m, cnMakeVec3( 0.3, 0.0, 0.5 ), CNT_EXACT ) );
    ck_assert( cntHasPointA( &box, &m, cnMakeVec3( 1.0, 0.0, 0.5 ), CNT_EXACT ) );

    // sunk with its core below the face (the segment crosses the box): still two points
    c = cntPlace( &gc, cnMakeVec3( 0.0, 0.0, 0.45 ), alongX );
    m = cntCollide( cnCollideBoxCapsule, &box, &c, 0.0 );
    CNT_ASSERT_SANE( &box, &c, &m, 0.0, 2.0 );
    ck_assert_int_eq( m.pointCount, 2 );
    cntAssertNormal( &m, 0.0, 0.0, 1.0 );
    cntAssertSeparations( &m, -0.25 );

    // standing on its end: one point
    c = cntAt( &gc, 0.2, 0.3, 0.5 + 0.7 - depth );
    m = cntCollide( cnCollideBoxCapsule, &box, &c, 0.0 );
    CNT_ASSERT_SANE( &box, &c, &m, 0.0, 2.0 );
    ck_assert_int_eq( m.pointCount, 1 );
    cntAssertNormal( &m, 0.0, 0.0, 1.0 );
    CNT_ASSERT_ABS( m.points[0].separation, -depth, CNT_EXACT );

    // beside the top +x edge, lying along y: one point, diagonal normal
    c = cntPlace( &gc, cnMakeVec3( 1.1, 0.0, 0.6 ), cntAxisAngle( 1.0, 0.0, 0.0, 0.5 * CNT_PI ) );
    m = cntCollide( cnCollideBoxCapsule, &box, &c, 0.0 );
    CNT_ASSERT_SANE( &box, &c, &m, 0.0, 2.0 );
    ck_assert_int_eq( m.pointCount, 1 );
    cntAssertNormal( &m, sqrt( 0.5 ), 0.0, sqrt( 0.5 ) );
    CNT_ASSERT_ABS( m.points[0].separation, sqrt( 0.02 ) - 0.2, CNT_EXACT );

    // a zero-length capsule inside the box: one point through the nearest face (-y)
    gc = cntCapsuleGeometry( 0.1, 0.0 );
    c = cntAt( &gc, 0.0, -0.9, 0.0 );
    m = cntCollide( cnCollideBoxCapsule, &box, &c, 0.0 );
    CNT_ASSERT_SANE( &box, &c, &m, 0.0, 2.0 );
    ck_assert_int_eq( m.pointCount, 1 );
    cntAssertNormal( &m, 0.0, -1.0, 0.0 );
    CNT_ASSERT_ABS( m.points[0].separation, -0.2, CNT_EXACT );
}
END_TEST

START_TEST( capsules_closed_form )
{
    cnGeometry ga = cntCapsuleGeometry( 0.3, 1.0 );
    cnGeometry gb = cntCapsuleGeometry( 0.3, 0.75 );
    cnQuat alongX = cntAxisAngle( 0.0, 1.0, 0.0, 0.5 * CNT_PI );
    cnCollisionShape a = cntPlace( &ga, cn_vec3Zero, alongX );

    // parallel, stacked, overlapping in extent over x in [-0.25, 1]: two points
    cnCollisionShape b = cntPlace( &gb, cnMakeVec3( 0.5, 0.0, 0.6 - 0.01 ), alongX );
    cnManifold m = cntCollide( cnCollideCapsules, &a, &b, 0.0 );
    CNT_ASSERT_SANE( &a, &b, &m, 0.0, 2.0 );
    ck_assert_int_eq( m.pointCount, 2 );
    cntAssertNormal( &m, 0.0, 0.0, 1.0 );
    cntAssertSeparations( &m, -0.01 );
    cntAssertDistinctIds( &m );
    ck_assert( cntHasPointA( &a, &m, cnMakeVec3( -0.25, 0.0, 0.3 ), CNT_EXACT ) );
    ck_assert( cntHasPointA( &a, &m, cnMakeVec3( 1.0, 0.0, 0.3 ), CNT_EXACT ) );
    cnCollisionShape nudged = b;
    nudged.transform.p.y += 1e-6;
    cnManifold m1 = cntCollide( cnCollideCapsules, &a, &nudged, 0.0 );
    cntAssertSameIds( &m, &m1 );

    // the other way round: normal down
    m = cntCollide( cnCollideCapsules, &b, &a, 0.0 );
    CNT_ASSERT_SANE( &b, &a, &m, 0.0, 2.0 );
    ck_assert_int_eq( m.pointCount, 2 );
    cntAssertNormal( &m, 0.0, 0.0, -1.0 );
    cntAssertSeparations( &m, -0.01 );

    // side by side 5 degrees apart (rods in a colony): held at both ends of the overlap, not only
    // where they are closest, or B could turn about that point into A. B's core runs from
    // (-0.747, 0.485) to (0.747, 0.615) in z = 0: the deep end is 0.55 - 0.75 sin 5 deg - 0.6 apart
    // along +y, the other end just apart (within the margin of 0.05).
    {
        cnQuat turned = cnMulQuat( cntAxisAngle( 0.0, 0.0, 1.0, 5.0 * CNT_PI / 180.0 ), alongX );
        cnCollisionShape side = cntPlace( &gb, cnMakeVec3( 0.0, 0.55, 0.0 ), turned );
        m = cntCollide( cnCollideCapsules, &a, &side, 0.05 );
        CNT_ASSERT_SANE( &a, &side, &m, 0.05, 2.0 );
        ck_assert_int_eq( m.pointCount, 2 );
        cntAssertNormal( &m, 0.0, 1.0, 0.0 );
        double deep = 0.55 - 0.75 * sin( 5.0 * CNT_PI / 180.0 ) - 0.6;
        double end = 0.75 * cos( 5.0 * CNT_PI / 180.0 );
        int low = m.points[0].separation < m.points[1].separation ? 0 : 1;
        CNT_ASSERT_ABS( m.points[low].separation, deep, 1e-12 );
        ck_assert( m.points[1 - low].separation > 0.0 && m.points[1 - low].separation < 0.05 );
        ck_assert( cntHasPointA( &a, &m, cnMakeVec3( -end, 0.3, 0.0 ), 1e-9 ) );
        ck_assert( cntHasPointA( &a, &m, cnMakeVec3( end, 0.3, 0.0 ), 1e-9 ) );
        // past about 11.5 degrees they count as crossing: one point
        turned = cnMulQuat( cntAxisAngle( 0.0, 0.0, 1.0, 20.0 * CNT_PI / 180.0 ), alongX );
        side = cntPlace( &gb, cnMakeVec3( 0.0, 0.55, 0.0 ), turned );
        m = cntCollide( cnCollideCapsules, &a, &side, 0.05 );
        ck_assert_int_eq( m.pointCount, 1 );
    }

    // crossed: one point
    b = cntPlace( &gb, cnMakeVec3( 0.2, 0.1, 0.55 ), cntAxisAngle( 1.0, 0.0, 0.0, 0.5 * CNT_PI ) );
    m = cntCollide( cnCollideCapsules, &a, &b, 0.0 );
    CNT_ASSERT_SANE( &a, &b, &m, 0.0, 2.0 );
    ck_assert_int_eq( m.pointCount, 1 );
    cntAssertNormal( &m, 0.0, 0.0, 1.0 );
    CNT_ASSERT_ABS( m.points[0].separation, -0.05, CNT_EXACT );

    // collinear, end to end: one point along the axis
    b = cntPlace( &gb, cnMakeVec3( 2.25, 0.0, 0.0 ), alongX );
    m = cntCollide( cnCollideCapsules, &a, &b, 0.0 );
    CNT_ASSERT_SANE( &a, &b, &m, 0.0, 2.0 );
    ck_assert_int_eq( m.pointCount, 1 );
    cntAssertNormal( &m, 1.0, 0.0, 0.0 );
    CNT_ASSERT_ABS( m.points[0].separation, 0.5 - 0.6, CNT_EXACT );

    // coincident cores: finite, a normal across the axis, two points at full depth
    b = cntPlace( &gb, cn_vec3Zero, alongX );
    m = cntCollide( cnCollideCapsules, &a, &b, 0.0 );
    CNT_ASSERT_SANE( &a, &b, &m, 0.0, 2.0 );
    ck_assert_int_eq( m.pointCount, 2 );
    CNT_ASSERT_ABS( m.normal.x, 0.0, CNT_EXACT );
    cntAssertSeparations( &m, -0.6 );

    // crossing cores: the common perpendicular
    b = cntPlace( &gb, cn_vec3Zero, cntAxisAngle( 1.0, 0.0, 0.0, 0.5 * CNT_PI ) );
    m = cntCollide( cnCollideCapsules, &a, &b, 0.0 );
    CNT_ASSERT_SANE( &a, &b, &m, 0.0, 2.0 );
    ck_assert_int_eq( m.pointCount, 1 );
    CNT_ASSERT_ABS( fabs( m.normal.z ), 1.0, CNT_EXACT );
    CNT_ASSERT_ABS( m.points[0].separation, -0.6, CNT_EXACT );

    // zero half lengths: spheres, including coincident ones
    cnGeometry g0 = cntCapsuleGeometry( 0.3, 0.0 );
    a = cntAt( &g0, 0.0, 0.0, 0.0 );
    b = cntAt( &g0, 0.0, 0.5, 0.0 );
    m = cntCollide( cnCollideCapsules, &a, &b, 0.0 );
    CNT_ASSERT_SANE( &a, &b, &m, 0.0, 1.0 );
    ck_assert_int_eq( m.pointCount, 1 );
    cntAssertNormal( &m, 0.0, 1.0, 0.0 );
    CNT_ASSERT_ABS( m.points[0].separation, -0.1, CNT_EXACT );
    b = a;
    m = cntCollide( cnCollideCapsules, &a, &b, 0.0 );
    CNT_ASSERT_SANE( &a, &b, &m, 0.0, 1.0 );
    ck_assert_int_eq( m.pointCount, 1 );
    CNT_ASSERT_ABS( m.points[0].separation, -0.6, CNT_EXACT );
}
END_TEST

START_TEST( capsule_on_plane )
{
    cnGeometry gc = cntCapsuleGeometry( 0.2, 0.5 );
    cnGeometry gp = cntPlaneGeometry( cnMakeVec3( 0.0, 0.0, 1.0 ), 0.0 );
    cnCollisionShape plane = cntAt( &gp, 0.0, 0.0, 0.0 );
    double depth = 0.001;

    // lying: both ends
    cnCollisionShape c =
        cntPlace( &gc, cnMakeVec3( 1.0, 2.0, 0.2 - depth ), cntAxisAngle( 1.0, 1.0, 0.0, 0.5 * CNT_PI ) );
    cnManifold m = cntCollide( cnCollideCapsulePlane, &c, &plane, 0.0 );
    CNT_ASSERT_SANE( &c, &plane, &m, 0.0, 1.0 );
    ck_assert_int_eq( m.pointCount, 2 );
    cntAssertNormal( &m, 0.0, 0.0, -1.0 );
    cntAssertSeparations( &m, -depth );
    cntAssertDistinctIds( &m );
    CNT_ASSERT_ABS( m.points[0].localA.z * m.points[1].localA.z, -0.25, CNT_EXACT );

    // standing: the lower end only, unless the margin reaches the upper one
    c = cntAt( &gc, 0.0, 0.0, 0.7 - depth );
    m = cntCollide( cnCollideCapsulePlane, &c, &plane, 0.0 );
    CNT_ASSERT_SANE( &c, &plane, &m, 0.0, 1.0 );
    ck_assert_int_eq( m.pointCount, 1 );
    CNT_ASSERT_ABS( m.points[0].separation, -depth, CNT_EXACT );
    ck_assert_uint_eq( m.points[0].id, 0 );
    m = cntCollide( cnCollideCapsulePlane, &c, &plane, 1.5 );
    ck_assert_int_eq( m.pointCount, 2 );

    // zero half length: one point
    cnGeometry g0 = cntCapsuleGeometry( 0.2, 0.0 );
    c = cntAt( &g0, 0.0, 0.0, 0.1 );
    m = cntCollide( cnCollideCapsulePlane, &c, &plane, 0.0 );
    CNT_ASSERT_SANE( &c, &plane, &m, 0.0, 1.0 );
    ck_assert_int_eq( m.pointCount, 1 );
    CNT_ASSERT_ABS( m.points[0].separation, -0.1, CNT_EXACT );
}
END_TEST

// ---------------------------------------------------------------------------------------------
// cylinder, ellipsoid and hull on a plane

START_TEST( cylinder_on_plane )
{
    cnGeometry gc = cntCylinderGeometry( 0.5, 0.4 );
    cnGeometry gp = cntPlaneGeometry( cnMakeVec3( 0.0, 0.0, 1.0 ), 0.0 );
    cnCollisionShape plane = cntAt( &gp, 0.0, 0.0, 0.0 );
    double depth = 0.002;

    // standing, either end down: 4 rim points at the same depth
    for ( int flip = 0; flip < 2; ++flip )
    {
        cnQuat q = cnMulQuat( cntAxisAngle( 1.0, 0.0, 0.0, flip ? CNT_PI : 0.0 ),
                              cntAxisAngle( 0.0, 0.0, 1.0, 0.3 ) );
        cnCollisionShape c = cntPlace( &gc, cnMakeVec3( 1.0, 0.0, 0.4 - depth ), q );
        cnManifold m = cntCollide( cnCollideCylinderPlane, &c, &plane, 0.0 );
        CNT_ASSERT_SANE( &c, &plane, &m, 0.0, 1.0 );
        ck_assert_int_eq( m.pointCount, 4 );
        cntAssertNormal( &m, 0.0, 0.0, -1.0 );
        cntAssertSeparations( &m, -depth );
        cntAssertDistinctIds( &m );
        for ( int i = 0; i < 4; ++i )
        {
            cnVec3 p = m.points[i].localA;
            CNT_ASSERT_ABS( p.x * p.x + p.y * p.y, 0.25, CNT_EXACT );
        }
    }

    // lying: two points along the line of contact
    cnCollisionShape c =
        cntPlace( &gc, cnMakeVec3( 0.0, 0.0, 0.5 - depth ), cntAxisAngle( 1.0, 0.0, 0.0, 0.5 * CNT_PI ) );
    cnManifold m = cntCollide( cnCollideCylinderPlane, &c, &plane, 0.0 );
    CNT_ASSERT_SANE( &c, &plane, &m, 0.0, 1.0 );
    ck_assert_int_eq( m.pointCount, 2 );
    cntAssertSeparations( &m, -depth );
    CNT_ASSERT_ABS( fabs( m.points[0].point.y - m.points[1].point.y ), 0.8, CNT_EXACT );

    // tilted by 0.3 rad: one point on the lower rim, exact depth
    double tilt = 0.3;
    double height = 0.4 * cos( tilt ) + 0.5 * sin( tilt );
    c = cntPlace( &gc, cnMakeVec3( 0.0, 0.0, height - depth ), cntAxisAngle( 0.0, 1.0, 0.0, tilt ) );
    m = cntCollide( cnCollideCylinderPlane, &c, &plane, 0.0 );
    CNT_ASSERT_SANE( &c, &plane, &m, 0.0, 1.0 );
    ck_assert_int_eq( m.pointCount, 1 );
    CNT_ASSERT_ABS( m.points[0].separation, -depth, CNT_EXACT );
}
END_TEST

START_TEST( ellipsoid_on_plane )
{
    cnGeometry ge = cntEllipsoidGeometry( 0.3, 0.5, 0.7 );
    cnGeometry gp = cntPlaneGeometry( cnMakeVec3( 0.0, 0.0, 1.0 ), 0.0 );
    cnCollisionShape plane = cntAt( &gp, 0.0, 0.0, 0.0 );
    cnCollisionShape e = cntAt( &ge, 0.0, 0.0, 0.69 );
    cnManifold m = cntCollide( cnCollideEllipsoidPlane, &e, &plane, 0.0 );
    CNT_ASSERT_SANE( &e, &plane, &m, 0.0, 1.0 );
    ck_assert_int_eq( m.pointCount, 1 );
    cntAssertNormal( &m, 0.0, 0.0, -1.0 );
    CNT_ASSERT_ABS( m.points[0].separation, -0.01, CNT_EXACT );
    CNT_ASSERT_ABS( m.points[0].localA.z, -0.7, CNT_EXACT );

    // turned about x by 60 degrees: the support height is sqrt(b^2 sin^2 + c^2 cos^2)
    double angle = CNT_PI / 3.0;
    double height = sqrt( 0.25 * sin( angle ) * sin( angle ) + 0.49 * cos( angle ) * cos( angle ) );
    e = cntPlace( &ge, cnMakeVec3( 0.0, 0.0, height + 0.02 ), cntAxisAngle( 1.0, 0.0, 0.0, angle ) );
    m = cntCollide( cnCollideEllipsoidPlane, &e, &plane, 0.05 );
    CNT_ASSERT_SANE( &e, &plane, &m, 0.05, 1.0 );
    ck_assert_int_eq( m.pointCount, 1 );
    CNT_ASSERT_ABS( m.points[0].separation, 0.02, CNT_EXACT );
    // the support point is on the surface
    cnVec3 p = m.points[0].localA;
    CNT_ASSERT_ABS( p.x * p.x / 0.09 + p.y * p.y / 0.25 + p.z * p.z / 0.49, 1.0, CNT_EXACT );
    m = cntCollide( cnCollideEllipsoidPlane, &e, &plane, 0.01 );
    ck_assert_int_eq( m.pointCount, 0 );
}
END_TEST

START_TEST( hull_cube_on_plane )
{
    // cube corners plus face centres and the centre: only the corners are hull vertices
    cnVec3 points[15];
    int n = 0;
    for ( int i = 0; i < 8; ++i )
    {
        points[n++] = cnMakeVec3( ( i & 1 ) ? 0.5 : -0.5, ( i & 2 ) ? 0.5 : -0.5, ( i & 4 ) ? 0.5 : -0.5 );
    }
    for ( int k = 0; k < 3; ++k )
    {
        points[n++] = cnScale( 0.5, cnMakeVec3( k == 0, k == 1, k == 2 ) );
        points[n++] = cnScale( -0.5, cnMakeVec3( k == 0, k == 1, k == 2 ) );
    }
    points[n++] = cn_vec3Zero;
    cnHull hull;
    ck_assert_int_eq( cnComputeHull( points, n, NULL, &hull, NULL, 0 ), cn_statusOk );
    ck_assert_int_eq( hull.vertexCount, 8 );
    cnGeometry gh;
    memset( &gh, 0, sizeof( gh ) );
    gh.type = cn_hullShape;
    gh.hull.points = hull.vertices;
    gh.hull.pointCount = hull.vertexCount;

    cnGeometry gp = cntPlaneGeometry( cnMakeVec3( 0.0, 0.0, 1.0 ), 0.0 );
    cnCollisionShape plane = cntAt( &gp, 0.0, 0.0, 0.0 );
    double depth = 0.003;
    cnCollisionShape h =
        cntPlace( &gh, cnMakeVec3( 0.3, 0.1, 0.5 - depth ), cntAxisAngle( 0.0, 0.0, 1.0, 0.4 ) );
    h.hull = &hull;
    cnManifold m = cntCollide( cnCollideHullPlane, &h, &plane, 0.0 );
    CNT_ASSERT_SANE( &h, &plane, &m, 0.0, 1.0 );
    ck_assert_int_eq( m.pointCount, 4 );
    cntAssertNormal( &m, 0.0, 0.0, -1.0 );
    cntAssertSeparations( &m, -depth );
    cntAssertDistinctIds( &m );
    cnCollisionShape nudged = h;
    nudged.transform.p.x += 1e-6;
    cnManifold m1 = cntCollide( cnCollideHullPlane, &nudged, &plane, 0.0 );
    cntAssertSameIds( &m, &m1 );

    // the same without the cnHull: the geometry's points
    h.hull = NULL;
    m1 = cntCollide( cnCollideHullPlane, &h, &plane, 0.0 );
    ck_assert_int_eq( m1.pointCount, 4 );
    cntAssertSeparations( &m1, -depth );
    cnDestroyHull( &hull, NULL );
}
END_TEST

// ---------------------------------------------------------------------------------------------
// random sweep: a fixed seed, ~20,000 poses per pair function

// a random rotation; one time in five a multiple of 90 degrees about a coordinate axis (aligned
// faces and parallel edges are the cases that break iterative methods)
static cnQuat cntRotation( cntRandom* random )
{
    if ( cntUniform( random ) < 0.2 )
    {
        int axis = (int)( 3.0 * cntUniform( random ) );
        int quarter = (int)( 4.0 * cntUniform( random ) );
        return cnQuatFromAxisAngle( cnMakeVec3( axis == 0, axis == 1, axis == 2 ), 0.5 * CNT_PI * quarter );
    }
    cnQuat q = { cntRange( random, -1.0, 1.0 ), cntRange( random, -1.0, 1.0 ), cntRange( random, -1.0, 1.0 ),
                 cntRange( random, -1.0, 1.0 ) };
    return cnNormalizeQuat( q );
}

// a size; one time in five a multiple of 0.25 (so that aligned poses touch exactly)
static double cntSize( cntRandom* random )
{
    double size = cntRange( random, 0.05, 1.0 );
    return cntUniform( random ) < 0.2 ? 0.25 * ceil( 4.0 * size ) : size;
}

static cnVec3 cntOffset( cntRandom* random, double reach )
{
    cnVec3 p = cnScale( cntRange( random, 0.0, reach ), cntDirection( random ) );
    if ( cntUniform( random ) < 0.2 )
    {
        p = cnMakeVec3( 0.25 * round( 4.0 * p.x ), 0.25 * round( 4.0 * p.y ), 0.25 * round( 4.0 * p.z ) );
    }
    return p;
}

enum
{
    cnt_pairSpheres,
    cnt_pairSphereBox,
    cnt_pairSphereCapsule,
    cnt_pairSpherePlane,
    cnt_pairBoxes,
    cnt_pairBoxCapsule,
    cnt_pairBoxPlane,
    cnt_pairCapsules,
    cnt_pairCapsulePlane,
    cnt_pairCylinderPlane,
    cnt_pairEllipsoidPlane,
    cnt_pairHullPlane,
    cnt_pairCount
};

static const char* const cnt_pairNames[cnt_pairCount] = {
    "sphere-sphere", "sphere-box",      "sphere-capsule", "sphere-plane",   "box-box",         "box-capsule",
    "box-plane",     "capsule-capsule", "capsule-plane",  "cylinder-plane", "ellipsoid-plane", "hull-plane",
};

static cnCollideFcn* const cnt_pairFcns[cnt_pairCount] = {
    cnCollideSpheres,      cnCollideSphereBox,     cnCollideSphereCapsule,  cnCollideSpherePlane,
    cnCollideBoxes,        cnCollideBoxCapsule,    cnCollideBoxPlane,       cnCollideCapsules,
    cnCollideCapsulePlane, cnCollideCylinderPlane, cnCollideEllipsoidPlane, cnCollideHullPlane,
};

static cnGeometry cntRandomGeometry( cntRandom* random, cnShapeType type, const cnHull* hull )
{
    switch ( type )
    {
        case cn_sphereShape:
            return cntSphereGeometry( cntSize( random ) );
        case cn_boxShape:
            return cntBoxGeometry( cntSize( random ), cntSize( random ), cntSize( random ) );
        case cn_capsuleShape:
            return cntCapsuleGeometry( cntSize( random ),
                                       cntUniform( random ) < 0.1 ? 0.0 : cntSize( random ) );
        case cn_cylinderShape:
            return cntCylinderGeometry( cntSize( random ), cntSize( random ) );
        case cn_ellipsoidShape:
            return cntEllipsoidGeometry( cntSize( random ), cntSize( random ), cntSize( random ) );
        case cn_hullShape:
        {
            cnGeometry g;
            memset( &g, 0, sizeof( g ) );
            g.type = cn_hullShape;
            g.hull.points = hull->vertices;
            g.hull.pointCount = hull->vertexCount;
            return g;
        }
        default:
            return cntSphereGeometry( 1.0 );
    }
}

// the world plane of a plane shape, computed here (normalizing the normal and its offset)
static void cntWorldPlane( const cnCollisionShape* s, cnVec3* n, double* offset )
{
    double r[3][3];
    cntMatrix( s->transform.q, r );
    cnVec3 local = s->geometry->plane.normal;
    double length = cnLength( local );
    cnVec3 u = cnScale( 1.0 / length, local );
    *n = cnMakeVec3( r[0][0] * u.x + r[0][1] * u.y + r[0][2] * u.z,
                     r[1][0] * u.x + r[1][1] * u.y + r[1][2] * u.z,
                     r[2][0] * u.x + r[2][1] * u.y + r[2][2] * u.z );
    *offset = s->geometry->plane.offset / length + cnDot( *n, s->transform.p );
}

// world point of a shape-frame point, computed here
static cnVec3 cntToWorld( const cnCollisionShape* s, cnVec3 p )
{
    double r[3][3];
    cntMatrix( s->transform.q, r );
    return cnMakeVec3( r[0][0] * p.x + r[0][1] * p.y + r[0][2] * p.z + s->transform.p.x,
                       r[1][0] * p.x + r[1][1] * p.y + r[1][2] * p.z + s->transform.p.y,
                       r[2][0] * p.x + r[2][1] * p.y + r[2][2] * p.z + s->transform.p.z );
}

// shape-frame point of a world point, computed here
static cnVec3 cntToLocal( const cnCollisionShape* s, cnVec3 p )
{
    double r[3][3];
    cntMatrix( s->transform.q, r );
    cnVec3 d = cnSub( p, s->transform.p );
    return cnMakeVec3( r[0][0] * d.x + r[1][0] * d.y + r[2][0] * d.z,
                       r[0][1] * d.x + r[1][1] * d.y + r[2][1] * d.z,
                       r[0][2] * d.x + r[1][2] * d.y + r[2][2] * d.z );
}

// lowest signed height of shape `a` above the plane `b`: the exact separation of a convex shape and
// a half-space
static double cntPlaneReference( const cnCollisionShape* a, const cnCollisionShape* b )
{
    cnVec3 n;
    double offset;
    cntWorldPlane( b, &n, &offset );
    const cnGeometry* g = a->geometry;
    cnVec3 c = a->transform.p;
    double centre = cnDot( n, c ) - offset;
    cnVec3 local = cntToLocal( a, cnAdd( a->transform.p, n ) ); // n in the shape frame
    switch ( g->type )
    {
        case cn_sphereShape:
            return centre - g->sphere.radius;
        case cn_boxShape:
        {
            double best = DBL_MAX;
            for ( int i = 0; i < 8; ++i )
            {
                cnVec3 h = g->box.halfExtents;
                cnVec3 v =
                    cnMakeVec3( ( i & 1 ) ? h.x : -h.x, ( i & 2 ) ? h.y : -h.y, ( i & 4 ) ? h.z : -h.z );
                best = fmin( best, cnDot( n, cntToWorld( a, v ) ) - offset );
            }
            return best;
        }
        case cn_capsuleShape:
            return centre - g->capsule.halfLength * fabs( local.z ) - g->capsule.radius;
        case cn_cylinderShape:
            return centre - g->cylinder.halfLength * fabs( local.z ) -
                   g->cylinder.radius * sqrt( fmax( 0.0, local.x * local.x + local.y * local.y ) );
        case cn_ellipsoidShape:
        {
            cnVec3 r = g->ellipsoid.radii;
            return centre - sqrt( r.x * r.x * local.x * local.x + r.y * r.y * local.y * local.y +
                                  r.z * r.z * local.z * local.z );
        }
        case cn_hullShape:
        {
            double best = DBL_MAX;
            for ( int i = 0; i < g->hull.pointCount; ++i )
            {
                best = fmin( best, cnDot( n, cntToWorld( a, g->hull.points[i] ) ) - offset );
            }
            return best;
        }
        default:
            return 0.0;
    }
}

typedef struct cntSweepResult
{
    int runs;
    int contacts;
    int breaches;
    int wrong;       // a reference disagreement beyond tolerance
    double worst;    // largest |min separation - reference| where the reference is exact
    char first[256]; // the first failure
} cntSweepResult;

static void cntNote( cntSweepResult* r, int run, const char* what, double value, double reference )
{
    if ( r->first[0] == '\0' )
    {
        snprintf( r->first, sizeof( r->first ), "run %d: %s (got %.17g, reference %.17g)", run, what, value,
                  reference );
    }
}

// a point cloud whose hull the hull-plane sweep uses
static void cntSweepHull( cnHull* hull )
{
    cntRandom random = { 77u };
    cnVec3 points[40];
    for ( int i = 0; i < 40; ++i )
    {
        cnVec3 d = cntDirection( &random );
        points[i] = cnMakeVec3( 0.6 * d.x, 0.4 * d.y, 0.3 * d.z );
        if ( i < 8 )
        {
            // some flat faces: box corners
            points[i] =
                cnMakeVec3( ( i & 1 ) ? 0.35 : -0.35, ( i & 2 ) ? 0.25 : -0.25, ( i & 4 ) ? 0.2 : -0.2 );
        }
    }
    cnStatus status = cnComputeHull( points, 40, NULL, hull, NULL, 0 );
    ck_assert_int_eq( status, cn_statusOk );
}

START_TEST( random_sweep )
{
    int pair = _i;
    cnCollideFcn* fcn = cnt_pairFcns[pair];
    const int runs = 20000;
    cntRandom random = { 1234u + (uint64_t)pair };
    cnHull hull;
    memset( &hull, 0, sizeof( hull ) );
    cntSweepHull( &hull );

    static const cnShapeType types[cnt_pairCount][2] = {
        { cn_sphereShape, cn_sphereShape },   { cn_sphereShape, cn_boxShape },
        { cn_sphereShape, cn_capsuleShape },  { cn_sphereShape, cn_planeShape },
        { cn_boxShape, cn_boxShape },         { cn_boxShape, cn_capsuleShape },
        { cn_boxShape, cn_planeShape },       { cn_capsuleShape, cn_capsuleShape },
        { cn_capsuleShape, cn_planeShape },   { cn_cylinderShape, cn_planeShape },
        { cn_ellipsoidShape, cn_planeShape }, { cn_hullShape, cn_planeShape },
    };

    cntSweepResult result;
    memset( &result, 0, sizeof( result ) );
    double worstDepthGap = 0.0; // box-box: |deepest point - SAT depth| when overlapping
    int depthGaps = 0;
    for ( int run = 0; run < runs; ++run )
    {
        cnGeometry ga = cntRandomGeometry( &random, types[pair][0], &hull );
        cnGeometry gb;
        cnCollisionShape a = cntPlace( &ga, cntOffset( &random, 0.5 ), cntRotation( &random ) );
        cnCollisionShape b;
        double margin = cntUniform( &random ) < 0.5 ? 0.0 : cntRange( &random, 0.0, 0.1 );
        if ( types[pair][1] == cn_planeShape )
        {
            // a plane with a normal of random length, its shape frame turned; placed so that the
            // shape is anywhere from well inside to just beyond the margin
            double scale = cntRange( &random, 0.5, 2.0 );
            gb = cntPlaneGeometry( cnScale( scale, cntDirection( &random ) ), 0.0 );
            b = cntPlace( &gb, cntOffset( &random, 1.0 ), cntRotation( &random ) );
            cnVec3 n;
            double offset;
            cntWorldPlane( &b, &n, &offset );
            double height = cntPlaneReference( &a, &b );
            double shift = cntRange( &random, -0.5, 0.15 );
            gb.plane.offset = ( height - shift ) * scale; // moves the plane up by height - shift
        }
        else
        {
            gb = cntRandomGeometry( &random, types[pair][1], &hull );
            b = cntPlace( &gb, cnAdd( a.transform.p, cntOffset( &random, 2.5 ) ), cntRotation( &random ) );
            if ( cntUniform( &random ) < 0.1 )
            {
                b.transform.q = a.transform.q; // aligned (parallel capsules, face-to-face boxes)
            }
        }
        if ( types[pair][0] == cn_hullShape )
        {
            a.hull = &hull;
        }

        cnManifold m = cntCollide( fcn, &a, &b, margin );
        result.runs += 1;
        result.contacts += m.pointCount > 0 ? 1 : 0;
        const char* breach = cntBreach( &a, &b, &m, margin, 4.0 );
        if ( breach != NULL )
        {
            result.breaches += 1;
            cntNote( &result, run, breach, (double)m.pointCount, 0.0 );
            continue;
        }
        double minimum = m.pointCount > 0 ? cntMinSeparation( &m ) : DBL_MAX;

        // the reference: exact separation (exact = true) or only its sign
        double reference = 0.0;
        bool exact = true;
        switch ( pair )
        {
            case cnt_pairSpheres:
                reference =
                    cnLength( cnSub( b.transform.p, a.transform.p ) ) - ga.sphere.radius - gb.sphere.radius;
                break;
            case cnt_pairSphereBox:
                reference = cntPointBoxDistance( gb.box.halfExtents, cntToLocal( &b, a.transform.p ) ) -
                            ga.sphere.radius;
                break;
            case cnt_pairSphereCapsule:
            {
                cntSegments g;
                cntCapsuleEnds( &b, &g.q0, &g.d2 );
                g.p0 = a.transform.p;
                g.d1 = cn_vec3Zero;
                reference = sqrt( cntPointSegment2( &g, 0.0 ) ) - ga.sphere.radius - gb.capsule.radius;
                break;
            }
            case cnt_pairBoxes:
                reference = cntBoxBoxSat( &a, &b );
                exact = false;
                break;
            case cnt_pairBoxCapsule:
            {
                cntSegments g;
                cnVec3 start, direction;
                cntCapsuleEnds( &b, &start, &direction );
                g.p0 = cntToLocal( &a, start );
                g.d1 = cnSub( cntToLocal( &a, cnAdd( start, direction ) ), g.p0 );
                g.h = ga.box.halfExtents;
                double distance = sqrt( cntMinimize( cntPointBox2, &g ) );
                reference = distance - gb.capsule.radius;
                // the core inside the box: only the sign is known here
                exact = distance > 1e-6;
                break;
            }
            case cnt_pairCapsules:
            {
                cntSegments g;
                cntCapsuleEnds( &a, &g.p0, &g.d1 );
                cntCapsuleEnds( &b, &g.q0, &g.d2 );
                reference =
                    sqrt( cntMinimize( cntPointSegment2, &g ) ) - ga.capsule.radius - gb.capsule.radius;
                break;
            }
            default:
                reference = cntPlaneReference( &a, &b );
                break;
        }

        // tolerances: 1e-9 for the closed forms, 1e-7 where the reference is a numeric minimum
        double tolerance = pair == cnt_pairBoxCapsule || pair == cnt_pairCapsules ? 1e-7 : 1e-9;
        if ( reference < margin - tolerance && m.pointCount == 0 )
        {
            result.wrong += 1;
            cntNote( &result, run, "no point within the margin", minimum, reference );
        }
        else if ( reference > margin + tolerance && m.pointCount > 0 )
        {
            result.wrong += 1;
            cntNote( &result, run, "points although apart by more than the margin", minimum, reference );
        }
        else if ( m.pointCount > 0 && exact )
        {
            double gap = fabs( minimum - reference );
            result.worst = fmax( result.worst, gap );
            if ( gap > tolerance )
            {
                result.wrong += 1;
                cntNote( &result, run, "deepest separation differs from the reference", minimum, reference );
            }
        }
        else if ( m.pointCount > 0 )
        {
            // sign only: overlapping shapes give a negative separation, separated ones a positive one
            if ( ( reference < -1e-9 && minimum >= 0.0 ) || ( reference > 1e-9 && minimum <= 0.0 ) )
            {
                result.wrong += 1;
                cntNote( &result, run, "separation sign differs from the reference", minimum, reference );
            }
            if ( pair == cnt_pairBoxes && reference < 0.0 )
            {
                // the face bias may report a face axis up to 1e-3 of the boxes' size deeper than
                // the least penetration (closed_form.c: CN_FACE_BIAS, CN_EDGE_BIAS), never more
                cnVec3 ha = ga.box.halfExtents, hb = gb.box.halfExtents;
                double size = fmax( fmax( ha.x, ha.y ), ha.z ) + fmax( fmax( hb.x, hb.y ), hb.z );
                double gap = fabs( minimum - reference );
                worstDepthGap = fmax( worstDepthGap, gap );
                depthGaps += gap > 1e-6 ? 1 : 0;
                if ( gap > 1e-3 * size + 1e-9 )
                {
                    result.wrong += 1;
                    cntNote( &result, run, "deepest point farther from the SAT depth than the bias", minimum,
                             reference );
                }
            }
        }
    }
    cnDestroyHull( &hull, NULL );

    if ( cntVerbose() )
    {
        printf( "  sweep %-16s %d runs, %d with contacts, worst error %.3g", cnt_pairNames[pair], result.runs,
                result.contacts, result.worst );
        if ( pair == cnt_pairBoxes )
        {
            printf( ", overlapping: worst |deepest - SAT| %.3g, %d beyond 1e-6", worstDepthGap, depthGaps );
        }
        printf( "\n" );
    }
    ck_assert_msg( result.breaches == 0 && result.wrong == 0, "%s: %d breaches, %d wrong; first: %s",
                   cnt_pairNames[pair], result.breaches, result.wrong, result.first );
    ck_assert_int_gt( result.contacts, runs / 10 );
}
END_TEST

Suite* cntClosedFormSuite( void )
{
    Suite* suite = suite_create( "closed_form" );

    TCase* spheres = tcase_create( "spheres" );
    tcase_add_test( spheres, spheres_closed_form );
    tcase_add_test( spheres, spheres_coincident_centres );
    tcase_add_test( spheres, sphere_plane_closed_form );
    tcase_add_test( spheres, sphere_box_closed_form );
    tcase_add_test( spheres, sphere_capsule_closed_form );
    suite_add_tcase( suite, spheres );

    TCase* boxes = tcase_create( "boxes" );
    tcase_add_test( boxes, box_rests_on_plane );
    tcase_add_test( boxes, box_plane_speculative_margin );
    tcase_add_test( boxes, box_plane_rotated_plane_and_more_than_four );
    tcase_add_test( boxes, box_rests_on_box );
    tcase_add_test( boxes, box_rotated_on_box );
    tcase_add_test( boxes, boxes_exactly_touching_and_aligned );
    tcase_add_test( boxes, box_inside_box );
    tcase_add_test( boxes, box_edge_on_box_edge );
    tcase_add_test( boxes, libccd_box_box_cases );
    suite_add_tcase( suite, boxes );

    TCase* capsules = tcase_create( "capsules" );
    tcase_add_test( capsules, capsule_lies_on_box );
    tcase_add_test( capsules, capsules_closed_form );
    tcase_add_test( capsules, capsule_on_plane );
    suite_add_tcase( suite, capsules );

    TCase* planes = tcase_create( "planes" );
    tcase_add_test( planes, cylinder_on_plane );
    tcase_add_test( planes, ellipsoid_on_plane );
    tcase_add_test( planes, hull_cube_on_plane );
    suite_add_tcase( suite, planes );

    TCase* sweep = tcase_create( "sweep" );
    tcase_set_timeout( sweep, 120.0 );
    tcase_add_loop_test( sweep, random_sweep, 0, cnt_pairCount );
    suite_add_tcase( suite, sweep );

    return suite;
}
