// SPDX-License-Identifier: MIT
#include "convex_helpers.h"

#include <check.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

double cntLogUniform( cntRandom* random, double lower, double upper )
{
    return exp( cntRange( random, log( lower ), log( upper ) ) );
}

int cntIndex( cntRandom* random, int count )
{
    return (int)( cntNext( random ) % (uint64_t)count );
}

cnQuat cntRotation( cntRandom* random )
{
    // Shoemake's uniform quaternion
    double u1 = cntUniform( random ), u2 = cntUniform( random ), u3 = cntUniform( random );
    double a = sqrt( 1.0 - u1 ), b = sqrt( u1 );
    cnQuat q = { a * sin( 2.0 * CNT_PI * u2 ), a * cos( 2.0 * CNT_PI * u2 ), b * sin( 2.0 * CNT_PI * u3 ),
                 b * cos( 2.0 * CNT_PI * u3 ) };
    return cnNormalizeQuat( q );
}

static void cntComputeTemplate( cnHull* hull, const cnVec3* points, int count )
{
    char message[256];
    cnStatus status = cnComputeHull( points, count, NULL, hull, message, (int)sizeof( message ) );
    ck_assert_msg( status == cn_statusOk, "hull template: %s", message );
    ck_assert_int_le( hull->vertexCount, CNT_MAX_HULL_VERTICES );
}

void cntCreateHullTemplates( cntHullTemplates* templates )
{
    memset( templates, 0, sizeof( *templates ) );
    cnVec3 points[64];
    int n = 0;
    for ( int i = 0; i < 8; ++i )
    {
        points[n++] = cnMakeVec3( ( i & 1 ) ? 1.0 : -1.0, ( i & 2 ) ? 1.0 : -1.0, ( i & 4 ) ? 1.0 : -1.0 );
    }
    cntComputeTemplate( &templates->hulls[cnt_hullCube], points, n );

    cntRandom random = { 12345 };
    n = 0;
    for ( int i = 0; i < 40; ++i )
    {
        points[n++] = cntDirection( &random );
    }
    cntComputeTemplate( &templates->hulls[cnt_hullRound], points, n );

    n = 0;
    points[n++] = cnMakeVec3( 1.0, 0.0, -0.35 );
    points[n++] = cnMakeVec3( -0.5, 0.866, -0.35 );
    points[n++] = cnMakeVec3( -0.5, -0.866, -0.35 );
    points[n++] = cnMakeVec3( 0.1, 0.05, 1.0 );
    cntComputeTemplate( &templates->hulls[cnt_hullTetra], points, n );

    n = 0;
    for ( int i = 0; i < 6; ++i )
    {
        double angle = CNT_PI / 3.0 * (double)i;
        points[n++] = cnMakeVec3( cos( angle ), sin( angle ), -1.0 );
        points[n++] = cnMakeVec3( cos( angle ), sin( angle ), 1.0 );
    }
    cntComputeTemplate( &templates->hulls[cnt_hullPrism], points, n );
}

void cntDestroyHullTemplates( cntHullTemplates* templates )
{
    for ( int i = 0; i < cnt_hullTemplateCount; ++i )
    {
        cnDestroyHull( &templates->hulls[i], NULL );
    }
}

void cntPlace( cntShape* shape, cnTransform transform )
{
    if ( shape->geometry.type == cn_hullShape )
    {
        shape->hull.vertices = shape->vertices;
        shape->geometry.hull.points = shape->vertices;
        shape->geometry.hull.pointCount = shape->hull.vertexCount;
        shape->placed.hull = &shape->hull;
    }
    else
    {
        shape->placed.hull = NULL;
    }
    shape->placed.geometry = &shape->geometry;
    shape->placed.transform = transform;
}

static void cntReset( cntShape* shape, cnShapeType type )
{
    memset( shape, 0, sizeof( *shape ) );
    shape->geometry.type = type;
}

void cntMakeSphere( cntShape* shape, double radius )
{
    cntReset( shape, cn_sphereShape );
    shape->geometry.sphere.radius = radius;
    cntPlace( shape, cn_transformIdentity );
}

void cntMakeBox( cntShape* shape, cnVec3 halfExtents )
{
    cntReset( shape, cn_boxShape );
    shape->geometry.box.halfExtents = halfExtents;
    cntPlace( shape, cn_transformIdentity );
}

void cntMakeCapsule( cntShape* shape, double radius, double halfLength )
{
    cntReset( shape, cn_capsuleShape );
    shape->geometry.capsule.radius = radius;
    shape->geometry.capsule.halfLength = halfLength;
    cntPlace( shape, cn_transformIdentity );
}

void cntMakeCylinder( cntShape* shape, double radius, double halfLength )
{
    cntReset( shape, cn_cylinderShape );
    shape->geometry.cylinder.radius = radius;
    shape->geometry.cylinder.halfLength = halfLength;
    cntPlace( shape, cn_transformIdentity );
}

void cntMakeEllipsoid( cntShape* shape, cnVec3 radii )
{
    cntReset( shape, cn_ellipsoidShape );
    shape->geometry.ellipsoid.radii = radii;
    cntPlace( shape, cn_transformIdentity );
}

void cntMakeTorus( cntShape* shape, double major, double minor )
{
    cntReset( shape, cn_torusShape );
    shape->geometry.torus.majorRadius = major;
    shape->geometry.torus.minorRadius = minor;
    cntPlace( shape, cn_transformIdentity );
}

void cntMakeHull( cntShape* shape, const cnHull* hullTemplate, cnVec3 scale )
{
    cntReset( shape, cn_hullShape );
    shape->hull = *hullTemplate;
    for ( int i = 0; i < hullTemplate->vertexCount; ++i )
    {
        shape->vertices[i] = cnMulComponents( hullTemplate->vertices[i], scale );
    }
    cntPlace( shape, cn_transformIdentity );
}

void cntMakePlane( cntShape* shape, cnVec3 normal, double offset )
{
    cntReset( shape, cn_planeShape );
    shape->geometry.plane.normal = cnNormalize( normal );
    shape->geometry.plane.offset = offset;
    cntPlace( shape, cn_transformIdentity );
}

void cntMakeRandomShape( cntShape* shape, cnShapeType type, const cntHullTemplates* templates,
                         cntRandom* random, double lower, double upper )
{
    // half of the shapes are roughly isotropic, half take every dimension independently
    bool independent = cntUniform( random ) < 0.5;
    double base = cntLogUniform( random, lower, upper );
    double d[3];
    for ( int i = 0; i < 3; ++i )
    {
        d[i] = independent ? cntLogUniform( random, lower, upper ) : base * cntRange( random, 0.3, 1.0 );
        d[i] = fmax( d[i], lower );
    }
    switch ( type )
    {
        case cn_sphereShape:
            cntMakeSphere( shape, d[0] );
            break;
        case cn_boxShape:
            cntMakeBox( shape, cnMakeVec3( d[0], d[1], d[2] ) );
            break;
        case cn_capsuleShape:
            cntMakeCapsule( shape, d[0], cntUniform( random ) < 0.05 ? 0.0 : d[1] );
            break;
        case cn_cylinderShape:
            cntMakeCylinder( shape, d[0], d[1] );
            break;
        case cn_ellipsoidShape:
            cntMakeEllipsoid( shape, cnMakeVec3( d[0], d[1], d[2] ) );
            break;
        case cn_torusShape:
            cntMakeTorus( shape, d[0] + d[1], d[1] );
            break;
        case cn_hullShape:
            cntMakeHull( shape, &templates->hulls[cntIndex( random, cnt_hullTemplateCount )],
                         cnMakeVec3( d[0], d[1], d[2] ) );
            break;
        case cn_planeShape:
            cntMakePlane( shape, cntDirection( random ), cntRange( random, -d[0], d[0] ) );
            break;
        default:
            ck_abort_msg( "no such type" );
    }
}

cnVec3 cntSampleSurface( const cntShape* shape, cntRandom* random )
{
    const cnGeometry* g = &shape->geometry;
    switch ( g->type )
    {
        case cn_sphereShape:
            return cnScale( g->sphere.radius, cntDirection( random ) );
        case cn_boxShape:
        {
            cnVec3 h = g->box.halfExtents;
            double c[3] = { cntRange( random, -h.x, h.x ), cntRange( random, -h.y, h.y ),
                            cntRange( random, -h.z, h.z ) };
            double e[3] = { h.x, h.y, h.z };
            int axis = cntIndex( random, 3 );
            c[axis] = cntUniform( random ) < 0.5 ? -e[axis] : e[axis];
            return cnMakeVec3( c[0], c[1], c[2] );
        }
        case cn_capsuleShape:
        {
            double r = g->capsule.radius, hl = g->capsule.halfLength;
            cnVec3 u = cntDirection( random );
            if ( cntUniform( random ) < 0.5 )
            {
                // the side
                double rho = sqrt( u.x * u.x + u.y * u.y );
                if ( rho == 0.0 )
                {
                    return cnMakeVec3( r, 0.0, 0.0 );
                }
                return cnMakeVec3( r * u.x / rho, r * u.y / rho, cntRange( random, -hl, hl ) );
            }
            return cnMulAdd( cnMakeVec3( 0.0, 0.0, u.z >= 0.0 ? hl : -hl ), r, u );
        }
        case cn_cylinderShape:
        {
            double r = g->cylinder.radius, hl = g->cylinder.halfLength;
            double phi = cntRange( random, 0.0, 2.0 * CNT_PI );
            double pick = cntUniform( random );
            if ( pick < 0.4 )
            {
                return cnMakeVec3( r * cos( phi ), r * sin( phi ), cntRange( random, -hl, hl ) );
            }
            if ( pick < 0.6 )
            {
                // the rims themselves
                return cnMakeVec3( r * cos( phi ), r * sin( phi ), cntUniform( random ) < 0.5 ? -hl : hl );
            }
            double rho = r * sqrt( cntUniform( random ) );
            return cnMakeVec3( rho * cos( phi ), rho * sin( phi ), cntUniform( random ) < 0.5 ? -hl : hl );
        }
        case cn_ellipsoidShape:
            return cnMulComponents( g->ellipsoid.radii, cntDirection( random ) );
        case cn_torusShape:
        {
            double theta = cntRange( random, 0.0, 2.0 * CNT_PI );
            double phi = cntRange( random, 0.0, 2.0 * CNT_PI );
            double rho = g->torus.majorRadius + g->torus.minorRadius * cos( phi );
            return cnMakeVec3( rho * cos( theta ), rho * sin( theta ), g->torus.minorRadius * sin( phi ) );
        }
        case cn_hullShape:
        {
            const cnHull* h = &shape->hull;
            int t = cntIndex( random, h->triangleCount );
            double u = cntUniform( random ), v = cntUniform( random );
            if ( u + v > 1.0 )
            {
                u = 1.0 - u;
                v = 1.0 - v;
            }
            cnVec3 a = shape->vertices[h->triangles[3 * t]];
            cnVec3 b = shape->vertices[h->triangles[3 * t + 1]];
            cnVec3 c = shape->vertices[h->triangles[3 * t + 2]];
            return cnAdd( a, cnAdd( cnScale( u, cnSub( b, a ) ), cnScale( v, cnSub( c, a ) ) ) );
        }
        default:
            ck_abort_msg( "no surface to sample" );
            return cn_vec3Zero;
    }
}

void cntWorldPlane( const cnCollisionShape* plane, cnVec3* normal, double* offset )
{
    cnQuat q = cnNormalizeQuat( plane->transform.q );
    *normal = cnRotate( q, cnNormalize( plane->geometry->plane.normal ) );
    *offset = plane->geometry->plane.offset + cnDot( *normal, plane->transform.p );
}

// max over the shape of dot(n, x); planes: +infinity unless n is along the normal
static double cntSupportValue( const cnCollisionShape* shape, cnVec3 n )
{
    if ( shape->geometry->type == cn_planeShape )
    {
        cnVec3 normal;
        double offset;
        cntWorldPlane( shape, &normal, &offset );
        double c = cnDot( n, normal );
        if ( c >= 1.0 - 1e-12 )
        {
            return offset / c;
        }
        return INFINITY;
    }
    return cnDot( n, cnWorldSupport( shape, n ) );
}

double cntSeparationAlong( const cnCollisionShape* a, const cnCollisionShape* b, cnVec3 n )
{
    return -cntSupportValue( b, cnNeg( n ) ) - cntSupportValue( a, n );
}

const char* cntTypeName( cnShapeType type )
{
    static const char* const names[] = { "sphere",    "box",   "capsule", "cylinder",
                                         "ellipsoid", "torus", "hull",    "plane" };
    return (int)type >= 0 && type < cn_shapeTypeCount ? names[type] : "?";
}

bool cntVerbose( void )
{
    return getenv( "CNT_VERBOSE" ) != NULL;
}
