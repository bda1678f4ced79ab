// SPDX-License-Identifier: MIT
#include "smooth_ref.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

// ------------------------------------------------------------------------------------------------
// random numbers (splitmix64)

static uint64_t trNext( trRng* rng )
{
    uint64_t z = ( rng->state += 0x9e3779b97f4a7c15u );
    z = ( z ^ ( z >> 30 ) ) * 0xbf58476d1ce4e5b9u;
    z = ( z ^ ( z >> 27 ) ) * 0x94d049bb133111ebu;
    return z ^ ( z >> 31 );
}

double trUniform( trRng* rng )
{
    return (double)( trNext( rng ) >> 11 ) * ( 1.0 / 9007199254740992.0 );
}

double trRange( trRng* rng, double lower, double upper )
{
    return lower + ( upper - lower ) * trUniform( rng );
}

cnVec3 trDirection( trRng* rng )
{
    double z = 2.0 * trUniform( rng ) - 1.0;
    double phi = 2.0 * TR_PI * trUniform( rng );
    double s = sqrt( fmax( 0.0, 1.0 - z * z ) );
    return cnMakeVec3( s * cos( phi ), s * sin( phi ), z );
}

cnQuat trRotation( trRng* rng )
{
    double u1 = trUniform( rng ), u2 = trUniform( rng ), u3 = trUniform( rng );
    double a = sqrt( 1.0 - u1 ), b = sqrt( u1 );
    cnQuat q = { a * sin( 2.0 * TR_PI * u2 ), a * cos( 2.0 * TR_PI * u2 ), b * sin( 2.0 * TR_PI * u3 ),
                 b * cos( 2.0 * TR_PI * u3 ) };
    return cnNormalizeQuat( q );
}

// ------------------------------------------------------------------------------------------------
// shapes

static cnVec3 trToLocalDir( const trShape* s, cnVec3 v )
{
    return cnMakeVec3( cnDot( s->rot.cx, v ), cnDot( s->rot.cy, v ), cnDot( s->rot.cz, v ) );
}

static cnVec3 trToLocal( const trShape* s, cnVec3 x )
{
    return trToLocalDir( s, cnSub( x, s->placed.transform.p ) );
}

static cnVec3 trToWorldDir( const trShape* s, cnVec3 v )
{
    return cnMulMV( s->rot, v );
}

static cnVec3 trToWorld( const trShape* s, cnVec3 v )
{
    return cnAdd( cnMulMV( s->rot, v ), s->placed.transform.p );
}

void trPlace( trShape* shape, cnTransform transform )
{
    shape->placed.geometry = &shape->geometry;
    if ( shape->geometry.type == cn_hullShape )
    {
        shape->geometry.hull.points = shape->hull.vertices;
        shape->geometry.hull.pointCount = shape->hull.vertexCount;
        shape->placed.hull = &shape->hull;
    }
    else
    {
        shape->placed.hull = NULL;
    }
    shape->placed.transform = transform;
    shape->rot = cnMat3FromQuat( transform.q );
}

void trFreeShape( trShape* shape )
{
    if ( shape->geometry.type == cn_hullShape )
    {
        cnDestroyHull( &shape->hull, NULL );
    }
    memset( shape, 0, sizeof( *shape ) );
}

static void trReset( trShape* shape, cnShapeType type )
{
    memset( shape, 0, sizeof( *shape ) );
    shape->geometry.type = type;
}

void trMakeSphere( trShape* shape, double radius )
{
    trReset( shape, cn_sphereShape );
    shape->geometry.sphere.radius = radius;
    trPlace( shape, cn_transformIdentity );
}

void trMakeBox( trShape* shape, cnVec3 half )
{
    trReset( shape, cn_boxShape );
    shape->geometry.box.halfExtents = half;
    trPlace( shape, cn_transformIdentity );
}

void trMakeCapsule( trShape* shape, double radius, double halfLength )
{
    trReset( shape, cn_capsuleShape );
    shape->geometry.capsule.radius = radius;
    shape->geometry.capsule.halfLength = halfLength;
    trPlace( shape, cn_transformIdentity );
}

void trMakeCylinder( trShape* shape, double radius, double halfLength )
{
    trReset( shape, cn_cylinderShape );
    shape->geometry.cylinder.radius = radius;
    shape->geometry.cylinder.halfLength = halfLength;
    trPlace( shape, cn_transformIdentity );
}

void trMakeEllipsoid( trShape* shape, cnVec3 radii )
{
    trReset( shape, cn_ellipsoidShape );
    shape->geometry.ellipsoid.radii = radii;
    trPlace( shape, cn_transformIdentity );
}

void trMakeTorus( trShape* shape, double major, double minor )
{
    trReset( shape, cn_torusShape );
    shape->geometry.torus.majorRadius = major;
    shape->geometry.torus.minorRadius = minor;
    trPlace( shape, cn_transformIdentity );
}

void trMakePlane( trShape* shape, cnVec3 normal, double offset )
{
    trReset( shape, cn_planeShape );
    shape->geometry.plane.normal = cnNormalize( normal );
    shape->geometry.plane.offset = offset;
    trPlace( shape, cn_transformIdentity );
}

bool trMakeHull( trShape* shape, const cnVec3* points, int count )
{
    trReset( shape, cn_hullShape );
    char message[256];
    if ( cnComputeHull( points, count, NULL, &shape->hull, message, (int)sizeof( message ) ) != cn_statusOk )
    {
        return false;
    }
    if ( shape->hull.triangleCount > TR_MAX_FACES )
    {
        cnDestroyHull( &shape->hull, NULL );
        return false;
    }
    shape->faceCount = shape->hull.triangleCount;
    for ( int t = 0; t < shape->hull.triangleCount; ++t )
    {
        cnVec3 a = shape->hull.vertices[shape->hull.triangles[3 * t]];
        cnVec3 b = shape->hull.vertices[shape->hull.triangles[3 * t + 1]];
        cnVec3 c = shape->hull.vertices[shape->hull.triangles[3 * t + 2]];
        cnVec3 n = cnNormalize( cnCross( cnSub( b, a ), cnSub( c, a ) ) );
        shape->faceNormal[t] = n;
        // the largest of the three offsets: a point on the face plane within round-off
        double d = fmax( cnDot( n, a ), fmax( cnDot( n, b ), cnDot( n, c ) ) );
        shape->faceOffset[t] = d;
    }
    trPlace( shape, cn_transformIdentity );
    return true;
}

bool trMakeRandom( trShape* shape, cnShapeType type, trRng* rng )
{
    switch ( type )
    {
        case cn_sphereShape:
            trMakeSphere( shape, trRange( rng, 0.15, 1.2 ) );
            return true;
        case cn_boxShape:
            trMakeBox( shape, cnMakeVec3( trRange( rng, 0.1, 1.2 ), trRange( rng, 0.1, 1.2 ),
                                          trRange( rng, 0.1, 1.2 ) ) );
            return true;
        case cn_capsuleShape:
            trMakeCapsule( shape, trRange( rng, 0.1, 0.6 ), trRange( rng, 0.1, 1.5 ) );
            return true;
        case cn_cylinderShape:
            trMakeCylinder( shape, trRange( rng, 0.1, 1.0 ), trRange( rng, 0.1, 1.2 ) );
            return true;
        case cn_ellipsoidShape:
        {
            // semi-axes in [0.2, 1.5], aspect ratio up to 3
            double lo = trRange( rng, 0.2, 1.0 );
            double hi = fmin( 1.5, 3.0 * lo );
            trMakeEllipsoid(
                shape, cnMakeVec3( trRange( rng, lo, hi ), trRange( rng, lo, hi ), trRange( rng, lo, hi ) ) );
            return true;
        }
        case cn_torusShape:
        {
            double major = trRange( rng, 0.5, 1.5 );
            trMakeTorus( shape, major, major * trRange( rng, 0.05, 0.4 ) );
            return true;
        }
        case cn_hullShape:
        {
            cnVec3 radii =
                cnMakeVec3( trRange( rng, 0.2, 1.2 ), trRange( rng, 0.2, 1.2 ), trRange( rng, 0.2, 1.2 ) );
            int count = 12 + (int)( trUniform( rng ) * 19.0 );
            cnVec3 points[TR_MAX_HULL_POINTS];
            for ( int i = 0; i < count; ++i )
            {
                points[i] = cnMulComponents( radii, trDirection( rng ) );
            }
            return trMakeHull( shape, points, count );
        }
        case cn_planeShape:
            trMakePlane( shape, trDirection( rng ), 0.0 );
            return true;
        default:
            return false;
    }
}

const char* trTypeName( cnShapeType type )
{
    static const char* names[] = { "sphere",    "box",   "capsule", "cylinder",
                                   "ellipsoid", "torus", "hull",    "plane" };
    return (int)type >= 0 && type < cn_shapeTypeCount ? names[type] : "?";
}

double trBoundingRadius( const trShape* s )
{
    const cnGeometry* g = &s->geometry;
    switch ( g->type )
    {
        case cn_sphereShape:
            return g->sphere.radius;
        case cn_boxShape:
            return cnLength( g->box.halfExtents );
        case cn_capsuleShape:
            return g->capsule.radius + g->capsule.halfLength;
        case cn_cylinderShape:
            return hypot( g->cylinder.radius, g->cylinder.halfLength );
        case cn_ellipsoidShape:
            return fmax( g->ellipsoid.radii.x, fmax( g->ellipsoid.radii.y, g->ellipsoid.radii.z ) );
        case cn_torusShape:
            return g->torus.majorRadius + g->torus.minorRadius;
        case cn_hullShape:
        {
            double r = 0.0;
            for ( int i = 0; i < s->hull.vertexCount; ++i )
            {
                r = fmax( r, cnLength( s->hull.vertices[i] ) );
            }
            return r;
        }
        default:
            return 0.0;
    }
}

double trSmallSize( const trShape* s )
{
    const cnGeometry* g = &s->geometry;
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
        case cn_hullShape:
        {
            // inradius about the vertex mean
            cnVec3 c = cn_vec3Zero;
            for ( int i = 0; i < s->hull.vertexCount; ++i )
            {
                c = cnAdd( c, s->hull.vertices[i] );
            }
            c = cnScale( 1.0 / s->hull.vertexCount, c );
            double r = DBL_MAX;
            for ( int f = 0; f < s->faceCount; ++f )
            {
                r = fmin( r, s->faceOffset[f] - cnDot( s->faceNormal[f], c ) );
            }
            return r;
        }
        default:
            return 1.0;
    }
}

// ------------------------------------------------------------------------------------------------
// support functions (our own)

static double trLocalSupportValue( const trShape* s, cnVec3 d )
{
    const cnGeometry* g = &s->geometry;
    switch ( g->type )
    {
        case cn_sphereShape:
            return g->sphere.radius * cnLength( d );
        case cn_boxShape:
            return g->box.halfExtents.x * fabs( d.x ) + g->box.halfExtents.y * fabs( d.y ) +
                   g->box.halfExtents.z * fabs( d.z );
        case cn_capsuleShape:
            return g->capsule.radius * cnLength( d ) + g->capsule.halfLength * fabs( d.z );
        case cn_cylinderShape:
            return g->cylinder.radius * hypot( d.x, d.y ) + g->cylinder.halfLength * fabs( d.z );
        case cn_ellipsoidShape:
            return cnLength( cnMulComponents( g->ellipsoid.radii, d ) );
        case cn_hullShape:
        {
            double best = -DBL_MAX;
            for ( int i = 0; i < s->hull.vertexCount; ++i )
            {
                best = fmax( best, cnDot( s->hull.vertices[i], d ) );
            }
            return best;
        }
        default:
            return NAN;
    }
}

static cnVec3 trLocalSupportPoint( const trShape* s, cnVec3 d )
{
    const cnGeometry* g = &s->geometry;
    switch ( g->type )
    {
        case cn_sphereShape:
            return cnScale( g->sphere.radius / cnLength( d ), d );
        case cn_boxShape:
        {
            cnVec3 h = g->box.halfExtents;
            return cnMakeVec3( d.x >= 0.0 ? h.x : -h.x, d.y >= 0.0 ? h.y : -h.y, d.z >= 0.0 ? h.z : -h.z );
        }
        case cn_capsuleShape:
        {
            cnVec3 p = cnScale( g->capsule.radius / cnLength( d ), d );
            p.z += d.z >= 0.0 ? g->capsule.halfLength : -g->capsule.halfLength;
            return p;
        }
        case cn_cylinderShape:
        {
            double rho = hypot( d.x, d.y );
            cnVec3 p = rho > 0.0
                           ? cnMakeVec3( g->cylinder.radius * d.x / rho, g->cylinder.radius * d.y / rho, 0.0 )
                           : cnMakeVec3( g->cylinder.radius, 0.0, 0.0 );
            p.z = d.z >= 0.0 ? g->cylinder.halfLength : -g->cylinder.halfLength;
            return p;
        }
        case cn_ellipsoidShape:
        {
            cnVec3 r = g->ellipsoid.radii;
            cnVec3 rd = cnMulComponents( r, d );
            return cnScale( 1.0 / cnLength( rd ), cnMulComponents( r, rd ) );
        }
        case cn_hullShape:
        {
            int best = 0;
            for ( int i = 1; i < s->hull.vertexCount; ++i )
            {
                if ( cnDot( s->hull.vertices[i], d ) > cnDot( s->hull.vertices[best], d ) )
                {
                    best = i;
                }
            }
            return s->hull.vertices[best];
        }
        default:
            return cn_vec3Zero;
    }
}

double trSupportValue( const trShape* s, cnVec3 n )
{
    return trLocalSupportValue( s, trToLocalDir( s, n ) ) + cnDot( n, s->placed.transform.p );
}

cnVec3 trSupportPoint( const trShape* s, cnVec3 n )
{
    return trToWorld( s, trLocalSupportPoint( s, trToLocalDir( s, n ) ) );
}

void trWorldPlane( const trShape* s, cnVec3* normal, double* offset )
{
    cnVec3 n = trToWorldDir( s, cnNormalize( s->geometry.plane.normal ) );
    *normal = n;
    *offset = s->geometry.plane.offset + cnDot( n, s->placed.transform.p );
}

// ------------------------------------------------------------------------------------------------
// point distances

cnVec3 trClosestOnSegment( cnVec3 a, cnVec3 b, cnVec3 p )
{
    cnVec3 ab = cnSub( b, a );
    double len2 = cnDot( ab, ab );
    double t = len2 > 0.0 ? cnDot( cnSub( p, a ), ab ) / len2 : 0.0;
    t = fmin( 1.0, fmax( 0.0, t ) );
    return cnMulAdd( a, t, ab );
}

// Ericson, Real-Time Collision Detection 5.1.9
double trSegmentSegment( cnVec3 p1, cnVec3 q1, cnVec3 p2, cnVec3 q2, cnVec3* c1, cnVec3* c2 )
{
    cnVec3 d1 = cnSub( q1, p1 ), d2 = cnSub( q2, p2 ), r = cnSub( p1, p2 );
    double a = cnDot( d1, d1 ), e = cnDot( d2, d2 ), f = cnDot( d2, r );
    double s, t;
    double c = cnDot( d1, r );
    double b = cnDot( d1, d2 );
    double denom = a * e - b * b;
    if ( denom > 1e-14 * a * e )
    {
        s = fmin( 1.0, fmax( 0.0, ( b * f - c * e ) / denom ) );
    }
    else
    {
        s = 0.0;
    }
    t = ( b * s + f ) / e;
    if ( t < 0.0 )
    {
        t = 0.0;
        s = fmin( 1.0, fmax( 0.0, -c / a ) );
    }
    else if ( t > 1.0 )
    {
        t = 1.0;
        s = fmin( 1.0, fmax( 0.0, ( b - c ) / a ) );
    }
    *c1 = cnMulAdd( p1, s, d1 );
    *c2 = cnMulAdd( p2, t, d2 );
    return cnLength( cnSub( *c1, *c2 ) );
}

// Nearest point of the ellipsoid surface to p (shape frame), signed distance (Eberly's 1-D root
// by bisection on F(t) = sum (r_i p_i / (t + r_i^2))^2 - 1, decreasing on t > -min r_i^2).
double trEllipsoidLocalDistance( cnVec3 radii, cnVec3 p, cnVec3* closest )
{
    double r[3] = { radii.x, radii.y, radii.z };
    double q[3] = { fabs( p.x ), fabs( p.y ), fabs( p.z ) };
    double sgn[3] = { p.x < 0.0 ? -1.0 : 1.0, p.y < 0.0 ? -1.0 : 1.0, p.z < 0.0 ? -1.0 : 1.0 };
    double inside = ( q[0] / r[0] ) * ( q[0] / r[0] ) + ( q[1] / r[1] ) * ( q[1] / r[1] ) +
                    ( q[2] / r[2] ) * ( q[2] / r[2] ) - 1.0;
    double rmin2 = fmin( r[0] * r[0], fmin( r[1] * r[1], r[2] * r[2] ) );
    double lo, hi;
    if ( inside >= 0.0 )
    {
        lo = 0.0;
        hi = cnLength( p ) * fmax( r[0], fmax( r[1], r[2] ) ) + 1e-300;
    }
    else
    {
        lo = -rmin2;
        hi = 0.0;
    }
    double x[3];
    for ( int it = 0; it < 400; ++it )
    {
        double mid = 0.5 * ( lo + hi );
        if ( mid <= lo || mid >= hi )
        {
            break;
        }
        double F = -1.0;
        for ( int i = 0; i < 3; ++i )
        {
            double v = r[i] * q[i] / ( mid + r[i] * r[i] );
            F += v * v;
        }
        if ( F > 0.0 )
        {
            lo = mid;
        }
        else
        {
            hi = mid;
        }
    }
    double t = 0.5 * ( lo + hi );
    for ( int i = 0; i < 3; ++i )
    {
        x[i] = r[i] * r[i] * q[i] / ( t + r[i] * r[i] );
    }
    // degenerate interior points (medial axis with a zero coordinate): F stays below 1 on the
    // whole interval; the foot point then leaves the plane of the smallest axis
    double F = -1.0;
    for ( int i = 0; i < 3; ++i )
    {
        F += ( x[i] / r[i] ) * ( x[i] / r[i] );
    }
    if ( inside < 0.0 && F < -1e-9 )
    {
        int k = 0;
        for ( int i = 1; i < 3; ++i )
        {
            if ( r[i] < r[k] )
            {
                k = i;
            }
        }
        double rest = 0.0;
        for ( int i = 0; i < 3; ++i )
        {
            if ( i != k )
            {
                x[i] = r[i] * r[i] * q[i] / ( r[i] * r[i] - r[k] * r[k] );
                rest += ( x[i] / r[i] ) * ( x[i] / r[i] );
            }
        }
        x[k] = r[k] * sqrt( fmax( 0.0, 1.0 - rest ) );
    }
    cnVec3 c = cnMakeVec3( sgn[0] * x[0], sgn[1] * x[1], sgn[2] * x[2] );
    if ( closest )
    {
        *closest = c;
    }
    double d = cnLength( cnSub( p, c ) );
    return inside >= 0.0 ? d : -d;
}

static cnVec3 trClosestOnTriangle( cnVec3 p, cnVec3 a, cnVec3 b, cnVec3 c )
{
    // Ericson 5.1.5
    cnVec3 ab = cnSub( b, a ), ac = cnSub( c, a ), ap = cnSub( p, a );
    double d1 = cnDot( ab, ap ), d2 = cnDot( ac, ap );
    if ( d1 <= 0.0 && d2 <= 0.0 )
        return a;
    cnVec3 bp = cnSub( p, b );
    double d3 = cnDot( ab, bp ), d4 = cnDot( ac, bp );
    if ( d3 >= 0.0 && d4 <= d3 )
        return b;
    double vc = d1 * d4 - d3 * d2;
    if ( vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 )
        return cnMulAdd( a, d1 / ( d1 - d3 ), ab );
    cnVec3 cp = cnSub( p, c );
    double d5 = cnDot( ab, cp ), d6 = cnDot( ac, cp );
    if ( d6 >= 0.0 && d5 <= d6 )
        return c;
    double vb = d5 * d2 - d1 * d6;
    if ( vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 )
        return cnMulAdd( a, d2 / ( d2 - d6 ), ac );
    double va = d3 * d6 - d5 * d4;
    if ( va <= 0.0 && ( d4 - d3 ) >= 0.0 && ( d5 - d6 ) >= 0.0 )
        return cnMulAdd( b, ( d4 - d3 ) / ( ( d4 - d3 ) + ( d5 - d6 ) ), cnSub( c, b ) );
    double denom = 1.0 / ( va + vb + vc );
    double v = vb * denom, w = vc * denom;
    return cnAdd( a, cnAdd( cnScale( v, ab ), cnScale( w, ac ) ) );
}

static cnVec3 trClosestOnCircle( cnVec3 center, cnVec3 axis, double radius, cnVec3 p, cnVec3 fallback )
{
    cnVec3 q = cnSub( p, center );
    cnVec3 w = cnMulAdd( q, -cnDot( q, axis ), axis );
    double rho = cnLength( w );
    if ( !( rho > 0.0 ) )
    {
        w = fallback;
        rho = 1.0;
    }
    return cnMulAdd( center, radius / rho, w );
}

double trPointDistance( const trShape* s, cnVec3 pw, cnVec3* closestWorld )
{
    const cnGeometry* g = &s->geometry;
    cnVec3 p = trToLocal( s, pw );
    cnVec3 c = cn_vec3Zero;
    double d = 0.0;
    switch ( g->type )
    {
        case cn_sphereShape:
        {
            double len = cnLength( p );
            c = len > 0.0 ? cnScale( g->sphere.radius / len, p ) : cnMakeVec3( g->sphere.radius, 0.0, 0.0 );
            d = len - g->sphere.radius;
            break;
        }
        case cn_boxShape:
        {
            cnVec3 h = g->box.halfExtents;
            double pa[3] = { p.x, p.y, p.z }, ha[3] = { h.x, h.y, h.z }, qa[3];
            double outside = 0.0, maxq = -DBL_MAX;
            int kmax = 0;
            for ( int i = 0; i < 3; ++i )
            {
                qa[i] = fabs( pa[i] ) - ha[i];
                if ( qa[i] > 0.0 )
                    outside += qa[i] * qa[i];
                if ( qa[i] > maxq )
                {
                    maxq = qa[i];
                    kmax = i;
                }
            }
            double ca[3];
            if ( maxq > 0.0 )
            {
                d = sqrt( outside );
                for ( int i = 0; i < 3; ++i )
                    ca[i] = fmin( ha[i], fmax( -ha[i], pa[i] ) );
            }
            else
            {
                d = maxq;
                for ( int i = 0; i < 3; ++i )
                    ca[i] = pa[i];
                ca[kmax] = pa[kmax] >= 0.0 ? ha[kmax] : -ha[kmax];
            }
            c = cnMakeVec3( ca[0], ca[1], ca[2] );
            break;
        }
        case cn_capsuleShape:
        {
            cnVec3 a = cnMakeVec3( 0.0, 0.0, -g->capsule.halfLength ),
                   b = cnMakeVec3( 0.0, 0.0, g->capsule.halfLength );
            cnVec3 k = trClosestOnSegment( a, b, p );
            cnVec3 w = cnSub( p, k );
            double len = cnLength( w );
            c = cnMulAdd( k, g->capsule.radius / len, w );
            d = len - g->capsule.radius;
            break;
        }
        case cn_cylinderShape:
        {
            double R = g->cylinder.radius, H = g->cylinder.halfLength;
            double rho = hypot( p.x, p.y );
            double ex = rho > 0.0 ? p.x / rho : 1.0, ey = rho > 0.0 ? p.y / rho : 0.0;
            double dr = rho - R, dz = fabs( p.z ) - H;
            double sz = p.z >= 0.0 ? 1.0 : -1.0;
            if ( dr > 0.0 || dz > 0.0 )
            {
                d = hypot( fmax( dr, 0.0 ), fmax( dz, 0.0 ) );
                double cr = fmin( rho, R ), cz = fmin( fabs( p.z ), H ) * sz;
                c = cnMakeVec3( cr * ex, cr * ey, cz );
            }
            else if ( dr > dz )
            {
                d = dr;
                c = cnMakeVec3( R * ex, R * ey, p.z );
            }
            else
            {
                d = dz;
                c = cnMakeVec3( p.x, p.y, sz * H );
            }
            break;
        }
        case cn_ellipsoidShape:
            d = trEllipsoidLocalDistance( g->ellipsoid.radii, p, &c );
            break;
        case cn_hullShape:
        {
            double maxPlane = -DBL_MAX;
            int fmaxIndex = 0;
            for ( int f = 0; f < s->faceCount; ++f )
            {
                double v = cnDot( s->faceNormal[f], p ) - s->faceOffset[f];
                if ( v > maxPlane )
                {
                    maxPlane = v;
                    fmaxIndex = f;
                }
            }
            if ( maxPlane > 0.0 )
            {
                double best = DBL_MAX;
                for ( int t = 0; t < s->hull.triangleCount; ++t )
                {
                    cnVec3 k = trClosestOnTriangle( p, s->hull.vertices[s->hull.triangles[3 * t]],
                                                    s->hull.vertices[s->hull.triangles[3 * t + 1]],
                                                    s->hull.vertices[s->hull.triangles[3 * t + 2]] );
                    double dist = cnLength( cnSub( p, k ) );
                    if ( dist < best )
                    {
                        best = dist;
                        c = k;
                    }
                }
                d = best;
            }
            else
            {
                d = maxPlane;
                c = cnMulAdd( p, -maxPlane, s->faceNormal[fmaxIndex] );
            }
            break;
        }
        case cn_torusShape:
        {
            cnVec3 k = trClosestOnCircle( cn_vec3Zero, cnMakeVec3( 0.0, 0.0, 1.0 ), g->torus.majorRadius, p,
                                          cnMakeVec3( 1.0, 0.0, 0.0 ) );
            cnVec3 w = cnSub( p, k );
            double len = cnLength( w );
            c = cnMulAdd( k, g->torus.minorRadius / len, w );
            d = len - g->torus.minorRadius;
            break;
        }
        case cn_planeShape:
        {
            cnVec3 n = cnNormalize( g->plane.normal );
            d = cnDot( n, p ) - g->plane.offset;
            c = cnMulAdd( p, -d, n );
            break;
        }
        default:
            break;
    }
    if ( closestWorld )
    {
        *closestWorld = trToWorld( s, c );
    }
    return d;
}

double trResidual( const trShape* s, cnVec3 xw )
{
    const cnGeometry* g = &s->geometry;
    cnVec3 x = trToLocal( s, xw );
    switch ( g->type )
    {
        case cn_sphereShape:
            return cnLength( x ) - g->sphere.radius;
        case cn_boxShape:
        {
            cnVec3 h = g->box.halfExtents;
            return fmax( fabs( x.x ) - h.x, fmax( fabs( x.y ) - h.y, fabs( x.z ) - h.z ) );
        }
        case cn_capsuleShape:
        {
            cnVec3 k = trClosestOnSegment( cnMakeVec3( 0.0, 0.0, -g->capsule.halfLength ),
                                           cnMakeVec3( 0.0, 0.0, g->capsule.halfLength ), x );
            return cnLength( cnSub( x, k ) ) - g->capsule.radius;
        }
        case cn_cylinderShape:
            return fmax( hypot( x.x, x.y ) - g->cylinder.radius, fabs( x.z ) - g->cylinder.halfLength );
        case cn_ellipsoidShape:
        {
            cnVec3 r = g->ellipsoid.radii;
            return ( x.x / r.x ) * ( x.x / r.x ) + ( x.y / r.y ) * ( x.y / r.y ) +
                   ( x.z / r.z ) * ( x.z / r.z ) - 1.0;
        }
        case cn_torusShape:
        {
            double rho = hypot( x.x, x.y );
            return hypot( rho - g->torus.majorRadius, x.z ) - g->torus.minorRadius;
        }
        case cn_hullShape:
        {
            double m = -DBL_MAX;
            for ( int f = 0; f < s->faceCount; ++f )
            {
                m = fmax( m, cnDot( s->faceNormal[f], x ) - s->faceOffset[f] );
            }
            return m;
        }
        case cn_planeShape:
            return cnDot( cnNormalize( g->plane.normal ), x ) - g->plane.offset;
        default:
            return NAN;
    }
}

bool trSmoothNormal( const trShape* s, cnVec3 xw, cnVec3* normal )
{
    const cnGeometry* g = &s->geometry;
    cnVec3 x = trToLocal( s, xw );
    cnVec3 n;
    switch ( g->type )
    {
        case cn_sphereShape:
            n = x;
            break;
        case cn_capsuleShape:
            n = cnSub( x, trClosestOnSegment( cnMakeVec3( 0.0, 0.0, -g->capsule.halfLength ),
                                              cnMakeVec3( 0.0, 0.0, g->capsule.halfLength ), x ) );
            break;
        case cn_ellipsoidShape:
        {
            cnVec3 r = g->ellipsoid.radii;
            n = cnMakeVec3( x.x / ( r.x * r.x ), x.y / ( r.y * r.y ), x.z / ( r.z * r.z ) );
            break;
        }
        case cn_torusShape:
        {
            double rho = hypot( x.x, x.y );
            cnVec3 k = cnMakeVec3( g->torus.majorRadius * x.x / rho, g->torus.majorRadius * x.y / rho, 0.0 );
            n = cnSub( x, k );
            break;
        }
        case cn_planeShape:
            n = g->plane.normal;
            break;
        default:
            return false;
    }
    *normal = trToWorldDir( s, cnNormalize( n ) );
    return true;
}

// ------------------------------------------------------------------------------------------------
// convex reference: maximise Phi over the unit sphere

static cnVec3* trDirs;
static int trDirCount;

void trInitDirections( int count )
{
    if ( trDirs && trDirCount == count )
    {
        return;
    }
    free( trDirs );
    trDirs = malloc( sizeof( cnVec3 ) * (size_t)count );
    trDirCount = count;
    double golden = TR_PI * ( 3.0 - sqrt( 5.0 ) );
    for ( int i = 0; i < count; ++i )
    {
        double z = 1.0 - ( 2.0 * i + 1.0 ) / count;
        double s = sqrt( fmax( 0.0, 1.0 - z * z ) );
        double phi = golden * i;
        trDirs[i] = cnMakeVec3( s * cos( phi ), s * sin( phi ), z );
    }
}

double trPhi( const trShape* a, const trShape* b, cnVec3 n )
{
    return -trSupportValue( b, cnNeg( n ) ) - trSupportValue( a, n );
}

static void trBasis( cnVec3 n, cnVec3* e1, cnVec3* e2 )
{
    cnVec3 t = fabs( n.x ) < 0.6 ? cnMakeVec3( 1.0, 0.0, 0.0 ) : cnMakeVec3( 0.0, 1.0, 0.0 );
    *e1 = cnNormalize( cnCross( n, t ) );
    *e2 = cnCross( n, *e1 );
}

static cnVec3 trChart( cnVec3 n0, cnVec3 e1, cnVec3 e2, const double x[2] )
{
    return cnNormalize( cnAdd( n0, cnAdd( cnScale( x[0], e1 ), cnScale( x[1], e2 ) ) ) );
}

// One Nelder-Mead run (maximising Phi) in the tangent chart at *n, initial simplex `size`.
static double trNelderMead( const trShape* A, const trShape* B, cnVec3* n, double size )
{
    cnVec3 n0 = *n, e1, e2;
    trBasis( n0, &e1, &e2 );
    double x[3][2] = { { 0.0, 0.0 }, { size, 0.0 }, { 0.0, size } };
    double f[3];
    for ( int i = 0; i < 3; ++i )
    {
        f[i] = -trPhi( A, B, trChart( n0, e1, e2, x[i] ) );
    }
    for ( int it = 0; it < 3000; ++it )
    {
        // order: f[0] best (lowest)
        for ( int i = 0; i < 2; ++i )
        {
            for ( int j = 0; j < 2 - i; ++j )
            {
                if ( f[j + 1] < f[j] )
                {
                    double t = f[j];
                    f[j] = f[j + 1];
                    f[j + 1] = t;
                    double t0 = x[j][0], t1 = x[j][1];
                    x[j][0] = x[j + 1][0];
                    x[j][1] = x[j + 1][1];
                    x[j + 1][0] = t0;
                    x[j + 1][1] = t1;
                }
            }
        }
        double diam = 0.0;
        for ( int i = 1; i < 3; ++i )
        {
            diam = fmax( diam, fmax( fabs( x[i][0] - x[0][0] ), fabs( x[i][1] - x[0][1] ) ) );
        }
        if ( diam < 1e-15 )
        {
            break;
        }
        double c[2] = { 0.5 * ( x[0][0] + x[1][0] ), 0.5 * ( x[0][1] + x[1][1] ) };
        double xr[2] = { 2.0 * c[0] - x[2][0], 2.0 * c[1] - x[2][1] };
        double fr = -trPhi( A, B, trChart( n0, e1, e2, xr ) );
        if ( fr < f[0] )
        {
            double xe[2] = { 3.0 * c[0] - 2.0 * x[2][0], 3.0 * c[1] - 2.0 * x[2][1] };
            double fe = -trPhi( A, B, trChart( n0, e1, e2, xe ) );
            if ( fe < fr )
            {
                x[2][0] = xe[0], x[2][1] = xe[1], f[2] = fe;
            }
            else
            {
                x[2][0] = xr[0], x[2][1] = xr[1], f[2] = fr;
            }
            continue;
        }
        if ( fr < f[1] )
        {
            x[2][0] = xr[0], x[2][1] = xr[1], f[2] = fr;
            continue;
        }
        double xc[2];
        double fc;
        bool accept;
        if ( fr < f[2] )
        {
            xc[0] = c[0] + 0.5 * ( xr[0] - c[0] ), xc[1] = c[1] + 0.5 * ( xr[1] - c[1] );
            fc = -trPhi( A, B, trChart( n0, e1, e2, xc ) );
            accept = fc <= fr;
        }
        else
        {
            xc[0] = c[0] + 0.5 * ( x[2][0] - c[0] ), xc[1] = c[1] + 0.5 * ( x[2][1] - c[1] );
            fc = -trPhi( A, B, trChart( n0, e1, e2, xc ) );
            accept = fc < f[2];
        }
        if ( accept )
        {
            x[2][0] = xc[0], x[2][1] = xc[1], f[2] = fc;
            continue;
        }
        for ( int i = 1; i < 3; ++i )
        {
            x[i][0] = x[0][0] + 0.5 * ( x[i][0] - x[0][0] );
            x[i][1] = x[0][1] + 0.5 * ( x[i][1] - x[0][1] );
            f[i] = -trPhi( A, B, trChart( n0, e1, e2, x[i] ) );
        }
    }
    int best = 0;
    for ( int i = 1; i < 3; ++i )
    {
        if ( f[i] < f[best] )
            best = i;
    }
    *n = trChart( n0, e1, e2, x[best] );
    return -f[best];
}

static double trPolish( const trShape* A, const trShape* B, cnVec3* n )
{
    static const double sizes[] = { 3e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-3, 1e-5, 1e-7, 1e-4, 1e-6, 1e-8 };
    double best = trPhi( A, B, *n );
    for ( int r = 0; r < (int)( sizeof( sizes ) / sizeof( sizes[0] ) ); ++r )
    {
        cnVec3 m = *n;
        double v = trNelderMead( A, B, &m, sizes[r] );
        if ( v > best )
        {
            best = v;
            *n = m;
        }
    }
    return best;
}

// Precise polish by nested bisection on derivative signs in the gnomonic chart at n0 (lines of
// the chart are great circles, so the kinks of Phi, where a support point jumps, are straight
// lines there). Phi's Euclidean gradient is g = sB(-n) - sA(n); at a kink, one-sided. Inner: for
// fixed t, the s that maximises Phi, by bisection on the sign of dPhi/ds (exact also at a kink).
// Outer: g(t) = max_s Phi, by bisection on the sign of g'(t), the derivative along the kink when
// the inner maximum is a kink (from the two one-sided gradients), else the plain t derivative.
typedef struct trChartFrame
{
    cnVec3 n0, e1, e2;
} trChartFrame;

static cnVec3 trChartPoint( const trChartFrame* f, double s, double t )
{
    return cnNormalize( cnAdd( f->n0, cnAdd( cnScale( s, f->e1 ), cnScale( t, f->e2 ) ) ) );
}

static cnVec3 trGradient( const trShape* A, const trShape* B, cnVec3 n )
{
    return cnSub( trSupportPoint( B, cnNeg( n ) ), trSupportPoint( A, n ) );
}

static double trSlope( cnVec3 g, cnVec3 n, cnVec3 e )
{
    return cnDot( g, cnSub( e, cnScale( cnDot( n, e ), n ) ) );
}

// false when the maximiser is not inside (-w, w)
static bool trInnerMax( const trShape* A, const trShape* B, const trChartFrame* f, double t, double w,
                        double* outS, double* outDerivative )
{
    double lo = -w, hi = w;
    cnVec3 nlo = trChartPoint( f, lo, t ), nhi = trChartPoint( f, hi, t );
    cnVec3 glo = trGradient( A, B, nlo ), ghi = trGradient( A, B, nhi );
    if ( !( trSlope( glo, nlo, f->e1 ) > 0.0 ) || !( trSlope( ghi, nhi, f->e1 ) < 0.0 ) )
        return false;
    for ( int it = 0; it < 200; ++it )
    {
        double mid = 0.5 * ( lo + hi );
        if ( mid <= lo || mid >= hi )
            break;
        cnVec3 n = trChartPoint( f, mid, t );
        cnVec3 g = trGradient( A, B, n );
        if ( trSlope( g, n, f->e1 ) > 0.0 )
        {
            lo = mid, glo = g, nlo = n;
        }
        else
        {
            hi = mid, ghi = g, nhi = n;
        }
    }
    *outS = 0.5 * ( lo + hi );
    cnVec3 n = trChartPoint( f, *outS, t );
    double ps1 = trSlope( glo, n, f->e1 ), pt1 = trSlope( glo, n, f->e2 );
    double ps2 = trSlope( ghi, n, f->e1 ), pt2 = trSlope( ghi, n, f->e2 );
    if ( cnLength( cnSub( glo, ghi ) ) < 1e-9 || fabs( ps1 - ps2 ) < 1e-12 )
    {
        *outDerivative = 0.5 * ( pt1 + pt2 );
    }
    else
    {
        double alpha = -( pt1 - pt2 ) / ( ps1 - ps2 );
        *outDerivative = pt1 + alpha * ps1;
    }
    return true;
}

static bool trRefine( const trShape* A, const trShape* B, cnVec3* n )
{
    trChartFrame f;
    f.n0 = *n;
    trBasis( f.n0, &f.e1, &f.e2 );
    for ( double w = 1e-4; w <= 1.1e-2; w *= 10.0 )
    {
        double s, dlo, dhi;
        double lo = -w, hi = w;
        if ( !trInnerMax( A, B, &f, lo, 0.05, &s, &dlo ) || !trInnerMax( A, B, &f, hi, 0.05, &s, &dhi ) )
            continue;
        if ( !( dlo > 0.0 ) || !( dhi < 0.0 ) )
            continue;
        bool ok = true;
        for ( int it = 0; it < 200; ++it )
        {
            double mid = 0.5 * ( lo + hi );
            if ( mid <= lo || mid >= hi )
                break;
            double d;
            if ( !trInnerMax( A, B, &f, mid, 0.05, &s, &d ) )
            {
                ok = false;
                break;
            }
            if ( d > 0.0 )
                lo = mid;
            else
                hi = mid;
        }
        if ( !ok )
            continue;
        double t = 0.5 * ( lo + hi ), d;
        if ( !trInnerMax( A, B, &f, t, 0.05, &s, &d ) )
            continue;
        cnVec3 m = trChartPoint( &f, s, t );
        if ( trPhi( A, B, m ) >= trPhi( A, B, *n ) - 1e-13 )
        {
            *n = m;
            return true;
        }
        return false;
    }
    return false;
}

int trRefineFailures;

#define TR_LAT 18
#define TR_LON 36

static void trConvexReference( const trShape* A, const trShape* B, trReference* out )
{
    double cellBest[TR_LAT][TR_LON];
    int cellIndex[TR_LAT][TR_LON];
    for ( int i = 0; i < TR_LAT; ++i )
    {
        for ( int j = 0; j < TR_LON; ++j )
        {
            cellBest[i][j] = -DBL_MAX;
            cellIndex[i][j] = -1;
        }
    }
    for ( int k = 0; k < trDirCount; ++k )
    {
        cnVec3 n = trDirs[k];
        double v = trPhi( A, B, n );
        int lat = (int)( acos( fmax( -1.0, fmin( 1.0, n.z ) ) ) / TR_PI * TR_LAT );
        int lon = (int)( ( atan2( n.y, n.x ) + TR_PI ) / ( 2.0 * TR_PI ) * TR_LON );
        lat = lat < 0 ? 0 : ( lat >= TR_LAT ? TR_LAT - 1 : lat );
        lon = lon < 0 ? 0 : ( lon >= TR_LON ? TR_LON - 1 : lon );
        if ( v > cellBest[lat][lon] )
        {
            cellBest[lat][lon] = v;
            cellIndex[lat][lon] = k;
        }
    }
    // cells that are local maxima among their neighbours; the best few are polished
    enum
    {
        maxCandidates = 8
    };
    int candidates[maxCandidates];
    double candidateValue[maxCandidates];
    int candidateCount = 0;
    for ( int i = 0; i < TR_LAT; ++i )
    {
        for ( int j = 0; j < TR_LON; ++j )
        {
            if ( cellIndex[i][j] < 0 )
                continue;
            double v = cellBest[i][j];
            bool isMax = true;
            for ( int di = -1; di <= 1 && isMax; ++di )
            {
                for ( int dj = -1; dj <= 1; ++dj )
                {
                    int ii = i + di, jj = ( j + dj + TR_LON ) % TR_LON;
                    if ( ii < 0 || ii >= TR_LAT || ( di == 0 && dj == 0 ) )
                        continue;
                    if ( cellBest[ii][jj] > v )
                    {
                        isMax = false;
                        break;
                    }
                }
            }
            // polar rows: every cell of the row is a neighbour
            if ( isMax && ( i == 0 || i == TR_LAT - 1 ) )
            {
                for ( int jj = 0; jj < TR_LON; ++jj )
                {
                    if ( cellBest[i][jj] > v )
                    {
                        isMax = false;
                        break;
                    }
                }
            }
            if ( !isMax )
                continue;
            // insert sorted (best first)
            int pos = candidateCount < maxCandidates ? candidateCount : maxCandidates;
            while ( pos > 0 && candidateValue[pos - 1] < v )
            {
                --pos;
            }
            if ( pos >= maxCandidates )
                continue;
            int last = candidateCount < maxCandidates ? candidateCount : maxCandidates - 1;
            for ( int m = last; m > pos; --m )
            {
                candidates[m] = candidates[m - 1];
                candidateValue[m] = candidateValue[m - 1];
            }
            candidates[pos] = cellIndex[i][j];
            candidateValue[pos] = v;
            if ( candidateCount < maxCandidates )
                ++candidateCount;
        }
    }
    out->optimumCount = 0;
    double best = -DBL_MAX;
    cnVec3 bestN = cnMakeVec3( 1.0, 0.0, 0.0 );
    cnVec3 found[maxCandidates];
    double foundValue[maxCandidates];
    int foundCount = 0;
    for ( int c = 0; c < candidateCount; ++c )
    {
        // candidates far below the best sample cannot win (Phi is Lipschitz; spacing ~0.03 rad)
        if ( c > 0 && candidateValue[c] < candidateValue[0] - 0.5 )
            break;
        cnVec3 n = trDirs[candidates[c]];
        double v = trPolish( A, B, &n );
        bool duplicate = false;
        for ( int m = 0; m < foundCount; ++m )
        {
            if ( cnLength( cnSub( found[m], n ) ) < 1e-4 )
            {
                duplicate = true;
                if ( v > foundValue[m] )
                {
                    foundValue[m] = v;
                    found[m] = n;
                }
            }
        }
        if ( !duplicate )
        {
            found[foundCount] = n;
            foundValue[foundCount] = v;
            ++foundCount;
        }
        if ( v > best )
        {
            best = v;
            bestN = n;
        }
    }
    // precise refinement of the candidates near the best
    double bestPolished = best;
    best = -DBL_MAX;
    for ( int m = 0; m < foundCount; ++m )
    {
        if ( foundValue[m] > bestPolished - 1e-3 )
        {
            if ( trRefine( A, B, &found[m] ) )
                foundValue[m] = trPhi( A, B, found[m] );
            else
                trRefineFailures++;
        }
        if ( foundValue[m] > best )
        {
            best = foundValue[m];
            bestN = found[m];
        }
    }
    out->separation = best;
    out->normal = bestN;
    out->ambiguous = false;
    for ( int m = 0; m < foundCount; ++m )
    {
        if ( out->optimumCount < TR_MAX_OPTIMA )
        {
            out->optimumSep[out->optimumCount] = foundValue[m];
            out->optimumNormal[out->optimumCount] = found[m];
            ++out->optimumCount;
        }
        if ( foundValue[m] > best - 1e-6 && cnLength( cnSub( found[m], bestN ) ) > 1e-4 )
        {
            out->ambiguous = true;
        }
    }
}

// ------------------------------------------------------------------------------------------------
// torus reference: f(u) = signed distance from the core point P(u) to the other shape - r

typedef struct trRing
{
    cnVec3 center, ex, ey, axis;
    double major, minor;
} trRing;

static trRing trMakeRing( const trShape* torus )
{
    trRing ring;
    ring.center = torus->placed.transform.p;
    ring.ex = torus->rot.cx;
    ring.ey = torus->rot.cy;
    ring.axis = torus->rot.cz;
    ring.major = torus->geometry.torus.majorRadius;
    ring.minor = torus->geometry.torus.minorRadius;
    return ring;
}

static cnVec3 trRingPoint( const trRing* ring, double u )
{
    return cnAdd( ring->center, cnAdd( cnScale( ring->major * cos( u ), ring->ex ),
                                       cnScale( ring->major * sin( u ), ring->ey ) ) );
}

static cnVec3 trRingTangent( const trRing* ring, double u )
{
    return cnAdd( cnScale( -ring->major * sin( u ), ring->ex ), cnScale( ring->major * cos( u ), ring->ey ) );
}

// distance from the core point to the other shape (its minor radius not subtracted) and the
// closest point on the other (surface, or core circle for a torus)
static double trRingValue( const trRing* ring, const trShape* other, const trRing* otherRing, double u,
                           cnVec3* closest )
{
    cnVec3 p = trRingPoint( ring, u );
    if ( otherRing )
    {
        cnVec3 q =
            trClosestOnCircle( otherRing->center, otherRing->axis, otherRing->major, p, otherRing->ex );
        if ( closest )
            *closest = q;
        return cnLength( cnSub( p, q ) );
    }
    return trPointDistance( other, p, closest );
}

static double trRingSlope( const trRing* ring, const trShape* other, const trRing* otherRing, double u )
{
    cnVec3 c;
    double d = trRingValue( ring, other, otherRing, u, &c );
    cnVec3 p = trRingPoint( ring, u );
    cnVec3 g = cnSub( p, c );
    double len = cnLength( g );
    if ( !( len > 0.0 ) )
        return 0.0;
    // outside: the gradient of the distance is (p - c)/|p - c|; inside (not used): the reverse
    g = cnScale( ( d >= 0.0 ? 1.0 : -1.0 ) / len, g );
    return cnDot( g, trRingTangent( ring, u ) );
}

static void trTorusReference( const trShape* torus, const trShape* other, bool torusIsA, int samples,
                              trReference* out )
{
    trRing ring = trMakeRing( torus );
    trRing otherRingStore;
    const trRing* otherRing = NULL;
    double otherMinor = 0.0;
    if ( other->geometry.type == cn_torusShape )
    {
        otherRingStore = trMakeRing( other );
        otherRing = &otherRingStore;
        otherMinor = otherRingStore.minor;
    }
    double* f = malloc( sizeof( double ) * (size_t)samples );
    double du = 2.0 * TR_PI / samples;
    for ( int i = 0; i < samples; ++i )
    {
        f[i] = trRingValue( &ring, other, otherRing, du * i, NULL );
    }
    double values[64];
    cnVec3 normals[64];
    int count = 0;
    for ( int i = 0; i < samples && count < 64; ++i )
    {
        double prev = f[( i + samples - 1 ) % samples], next = f[( i + 1 ) % samples];
        if ( !( f[i] <= prev && f[i] < next ) )
            continue;
        double lo = du * ( i - 1 ), hi = du * ( i + 1 );
        double slo = trRingSlope( &ring, other, otherRing, lo ),
               shi = trRingSlope( &ring, other, otherRing, hi );
        double u;
        if ( slo <= 0.0 && shi >= 0.0 )
        {
            for ( int it = 0; it < 200; ++it )
            {
                double mid = 0.5 * ( lo + hi );
                if ( mid <= lo || mid >= hi )
                    break;
                if ( trRingSlope( &ring, other, otherRing, mid ) > 0.0 )
                    hi = mid;
                else
                    lo = mid;
            }
            u = 0.5 * ( lo + hi );
        }
        else
        {
            // golden section
            double g = 0.5 * ( sqrt( 5.0 ) - 1.0 );
            double a = lo, b = hi;
            double c = b - g * ( b - a ), d = a + g * ( b - a );
            double fc = trRingValue( &ring, other, otherRing, c, NULL ),
                   fd = trRingValue( &ring, other, otherRing, d, NULL );
            for ( int it = 0; it < 200 && b - a > 1e-15; ++it )
            {
                if ( fc < fd )
                {
                    b = d, d = c, fd = fc;
                    c = b - g * ( b - a );
                    fc = trRingValue( &ring, other, otherRing, c, NULL );
                }
                else
                {
                    a = c, c = d, fc = fd;
                    d = a + g * ( b - a );
                    fd = trRingValue( &ring, other, otherRing, d, NULL );
                }
            }
            u = 0.5 * ( a + b );
        }
        cnVec3 c;
        double v = trRingValue( &ring, other, otherRing, u, &c );
        cnVec3 p = trRingPoint( &ring, u );
        // from the torus towards the other
        cnVec3 n = cnNormalize( cnSub( c, p ) );
        values[count] = v - ring.minor - otherMinor;
        normals[count] = torusIsA ? n : cnNeg( n );
        ++count;
    }
    free( f );
    // sort ascending
    for ( int i = 1; i < count; ++i )
    {
        for ( int j = i; j > 0 && values[j] < values[j - 1]; --j )
        {
            double t = values[j];
            values[j] = values[j - 1];
            values[j - 1] = t;
            cnVec3 tn = normals[j];
            normals[j] = normals[j - 1];
            normals[j - 1] = tn;
        }
    }
    out->separation = count > 0 ? values[0] : NAN;
    out->normal = count > 0 ? normals[0] : cn_vec3Zero;
    out->ambiguous = false;
    out->optimumCount = 0;
    for ( int i = 0; i < count; ++i )
    {
        if ( out->optimumCount < TR_MAX_OPTIMA )
        {
            out->optimumSep[out->optimumCount] = values[i];
            out->optimumNormal[out->optimumCount] = normals[i];
            ++out->optimumCount;
        }
        if ( i > 0 && values[i] < values[0] + 1e-6 && cnLength( cnSub( normals[i], normals[0] ) ) > 1e-4 )
            out->ambiguous = true;
    }
}

void trReferenceQuery( const trShape* a, const trShape* b, int ringSamples, trReference* out )
{
    memset( out, 0, sizeof( *out ) );
    cnShapeType ta = a->geometry.type, tb = b->geometry.type;
    if ( ta == cn_planeShape || tb == cn_planeShape )
    {
        const trShape* plane = ta == cn_planeShape ? a : b;
        const trShape* other = ta == cn_planeShape ? b : a;
        cnVec3 N;
        double offset;
        trWorldPlane( plane, &N, &offset );
        double low;
        if ( other->geometry.type == cn_torusShape )
        {
            trRing ring = trMakeRing( other );
            double ax = cnDot( N, ring.ex ), ay = cnDot( N, ring.ey );
            low = cnDot( N, ring.center ) - ring.major * hypot( ax, ay ) - ring.minor;
        }
        else
        {
            low = -trSupportValue( other, cnNeg( N ) );
        }
        out->separation = low - offset;
        out->normal = ta == cn_planeShape ? N : cnNeg( N );
        out->optimumCount = 1;
        out->optimumSep[0] = out->separation;
        out->optimumNormal[0] = out->normal;
        return;
    }
    if ( ta == cn_torusShape )
    {
        trTorusReference( a, b, true, ringSamples, out );
        return;
    }
    if ( tb == cn_torusShape )
    {
        trTorusReference( b, a, false, ringSamples, out );
        return;
    }
    trConvexReference( a, b, out );
}
