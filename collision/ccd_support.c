// SPDX-License-Identifier: MIT
// Support functions, bounding boxes, GJK distance, the libccd bridge and the generic convex pair
// function with its persistent manifold. See ccd_support.h for the conventions and for what is
// trusted from libccd. This file is the one place that talks to libccd: ccd_real_t is double
// (CCD_DOUBLE), so no conversion happens at the boundary, only copies.

#include "ccd_support.h"

#include <ccd/ccd.h>

#include <float.h>
#include <math.h>
#include <stddef.h>
#include <string.h>

_Thread_local cnConvexStats cn_convexStats;

// ---------------------------------------------------------------------------------------------
// Support functions

// Unit vector along d; zero or non-finite d gives +x.
static cnVec3 cnSafeDirection( cnVec3 d )
{
    return cnNormalizeOr( d, cnMakeVec3( 1.0, 0.0, 0.0 ) );
}

static void cnHullVertices( const cnGeometry* geometry, const cnHull* hull, const cnVec3** vertices,
                            int* count )
{
    if ( hull != NULL && hull->vertexCount > 0 && hull->vertices != NULL )
    {
        *vertices = hull->vertices;
        *count = hull->vertexCount;
    }
    else
    {
        *vertices = geometry->hull.points;
        *count = geometry->hull.points != NULL ? geometry->hull.pointCount : 0;
    }
}

cnVec3 cnLocalSupport( const cnGeometry* geometry, const cnHull* hull, cnVec3 direction )
{
    cnVec3 u = cnSafeDirection( direction );
    switch ( geometry->type )
    {
        case cn_sphereShape:
            return cnScale( geometry->sphere.radius, u );

        case cn_boxShape:
        {
            cnVec3 h = geometry->box.halfExtents;
            return cnMakeVec3( u.x >= 0.0 ? h.x : -h.x, u.y >= 0.0 ? h.y : -h.y, u.z >= 0.0 ? h.z : -h.z );
        }

        case cn_capsuleShape:
        {
            double hl = geometry->capsule.halfLength;
            double z = u.z > 0.0 ? hl : ( u.z < 0.0 ? -hl : 0.0 );
            return cnMulAdd( cnMakeVec3( 0.0, 0.0, z ), geometry->capsule.radius, u );
        }

        case cn_cylinderShape:
        {
            double r = geometry->cylinder.radius;
            double hl = geometry->cylinder.halfLength;
            double rho = sqrt( u.x * u.x + u.y * u.y );
            double z = u.z > 0.0 ? hl : ( u.z < 0.0 ? -hl : 0.0 );
            if ( rho > 0.0 )
            {
                return cnMakeVec3( r * u.x / rho, r * u.y / rho, z );
            }
            return cnMakeVec3( r, 0.0, z );
        }

        case cn_ellipsoidShape:
        {
            // x = D^2 u / |D u|, D = diag(radii); |D u| >= min radius > 0 for a unit u
            cnVec3 r = geometry->ellipsoid.radii;
            cnVec3 du = cnMulComponents( r, u );
            double length = cnLength( du );
            if ( !( length > 0.0 ) || !isfinite( length ) )
            {
                return cnMakeVec3( r.x, 0.0, 0.0 );
            }
            return cnScale( 1.0 / length, cnMulComponents( r, du ) );
        }

        case cn_torusShape:
        {
            // the swept circle's support plus the tube radius along u
            double major = geometry->torus.majorRadius;
            double rho = sqrt( u.x * u.x + u.y * u.y );
            cnVec3 ring = rho > 0.0 ? cnMakeVec3( major * u.x / rho, major * u.y / rho, 0.0 )
                                    : cnMakeVec3( major, 0.0, 0.0 );
            return cnMulAdd( ring, geometry->torus.minorRadius, u );
        }

        case cn_hullShape:
        {
            const cnVec3* vertices;
            int count;
            cnHullVertices( geometry, hull, &vertices, &count );
            if ( count <= 0 )
            {
                return cn_vec3Zero;
            }
            int best = 0;
            double bestDot = cnDot( vertices[0], u );
            for ( int i = 1; i < count; ++i )
            {
                double d = cnDot( vertices[i], u );
                if ( d > bestDot )
                {
                    bestDot = d;
                    best = i;
                }
            }
            return vertices[best];
        }

        case cn_planeShape:
        {
            cnVec3 n = cnSafeDirection( geometry->plane.normal );
            return cnScale( geometry->plane.offset, n );
        }

        default:
            return cn_vec3Zero;
    }
}

cnVec3 cnLocalCenter( const cnGeometry* geometry, const cnHull* hull )
{
    if ( geometry->type != cn_hullShape )
    {
        return cn_vec3Zero;
    }
    const cnVec3* vertices;
    int count;
    cnHullVertices( geometry, hull, &vertices, &count );
    if ( count <= 0 )
    {
        return cn_vec3Zero;
    }
    cnVec3 sum = cn_vec3Zero;
    for ( int i = 0; i < count; ++i )
    {
        sum = cnAdd( sum, vertices[i] );
    }
    return cnScale( 1.0 / (double)count, sum );
}

double cnLocalBoundingRadius( const cnGeometry* geometry, const cnHull* hull )
{
    switch ( geometry->type )
    {
        case cn_sphereShape:
            return geometry->sphere.radius;
        case cn_boxShape:
            return cnLength( geometry->box.halfExtents );
        case cn_capsuleShape:
            return geometry->capsule.radius + geometry->capsule.halfLength;
        case cn_cylinderShape:
            return sqrt( geometry->cylinder.radius * geometry->cylinder.radius +
                         geometry->cylinder.halfLength * geometry->cylinder.halfLength );
        case cn_ellipsoidShape:
        {
            cnVec3 r = geometry->ellipsoid.radii;
            return fmax( r.x, fmax( r.y, r.z ) );
        }
        case cn_torusShape:
            return geometry->torus.majorRadius + geometry->torus.minorRadius;
        case cn_hullShape:
        {
            const cnVec3* vertices;
            int count;
            cnHullVertices( geometry, hull, &vertices, &count );
            cnVec3 c = cnLocalCenter( geometry, hull );
            double r2 = 0.0;
            for ( int i = 0; i < count; ++i )
            {
                r2 = fmax( r2, cnLengthSquared( cnSub( vertices[i], c ) ) );
            }
            return sqrt( r2 );
        }
        default:
            return 0.0;
    }
}

cnVec3 cnWorldSupport( const cnCollisionShape* shape, cnVec3 direction )
{
    cnQuat q = cnNormalizeQuat( shape->transform.q );
    cnVec3 local = cnLocalSupport( shape->geometry, shape->hull, cnInvRotate( q, direction ) );
    return cnAdd( cnRotate( q, local ), shape->transform.p );
}

// ---------------------------------------------------------------------------------------------
// Bounding boxes

static cnAABB cnMakeAABB( cnVec3 center, cnVec3 extent )
{
    cnAABB box = { cnSub( center, extent ), cnAdd( center, extent ) };
    return box;
}

cnAABB cnComputeAABB( const cnCollisionShape* shape )
{
    const cnGeometry* g = shape->geometry;
    cnQuat q = cnNormalizeQuat( shape->transform.q );
    cnVec3 p = shape->transform.p;
    cnMat3 r = cnMat3FromQuat( q ); // columns: the shape axes in the world
    // rows of R: row i = ( r.cx.i, r.cy.i, r.cz.i )
    cnVec3 row[3] = { { r.cx.x, r.cy.x, r.cz.x }, { r.cx.y, r.cy.y, r.cz.y }, { r.cx.z, r.cy.z, r.cz.z } };
    cnVec3 axis = r.cz; // the shape's z axis, for capsule, cylinder and torus
    double a[3] = { axis.x, axis.y, axis.z };
    double e[3] = { 0.0, 0.0, 0.0 };

    switch ( g->type )
    {
        case cn_sphereShape:
            e[0] = e[1] = e[2] = g->sphere.radius;
            break;

        case cn_boxShape:
        {
            cnVec3 h = g->box.halfExtents;
            for ( int i = 0; i < 3; ++i )
            {
                e[i] = fabs( row[i].x ) * h.x + fabs( row[i].y ) * h.y + fabs( row[i].z ) * h.z;
            }
            break;
        }

        case cn_capsuleShape:
            for ( int i = 0; i < 3; ++i )
            {
                e[i] = fabs( a[i] ) * g->capsule.halfLength + g->capsule.radius;
            }
            break;

        case cn_cylinderShape:
            // the end discs: extent r sqrt(1 - a_i^2) per axis, plus the half axis
            for ( int i = 0; i < 3; ++i )
            {
                e[i] = fabs( a[i] ) * g->cylinder.halfLength +
                       g->cylinder.radius * sqrt( fmax( 0.0, 1.0 - a[i] * a[i] ) );
            }
            break;

        case cn_ellipsoidShape:
        {
            // support along e_i: sqrt( sum_j R_ij^2 r_j^2 )
            cnVec3 rad = g->ellipsoid.radii;
            for ( int i = 0; i < 3; ++i )
            {
                cnVec3 s = cnMulComponents( row[i], rad );
                e[i] = cnLength( s );
            }
            break;
        }

        case cn_torusShape:
            for ( int i = 0; i < 3; ++i )
            {
                e[i] = g->torus.majorRadius * sqrt( fmax( 0.0, 1.0 - a[i] * a[i] ) ) + g->torus.minorRadius;
            }
            break;

        case cn_hullShape:
        {
            const cnVec3* vertices;
            int count;
            cnHullVertices( g, shape->hull, &vertices, &count );
            if ( count <= 0 )
            {
                return cnMakeAABB( p, cn_vec3Zero );
            }
            cnVec3 w = cnAdd( cnMulMV( r, vertices[0] ), p );
            cnAABB box = { w, w };
            for ( int i = 1; i < count; ++i )
            {
                w = cnAdd( cnMulMV( r, vertices[i] ), p );
                box.lower = cnMakeVec3( fmin( box.lower.x, w.x ), fmin( box.lower.y, w.y ),
                                        fmin( box.lower.z, w.z ) );
                box.upper = cnMakeVec3( fmax( box.upper.x, w.x ), fmax( box.upper.y, w.y ),
                                        fmax( box.upper.z, w.z ) );
            }
            return box;
        }

        case cn_planeShape:
        {
            cnVec3 n = cnMulMV( r, cnSafeDirection( g->plane.normal ) );
            double offset = g->plane.offset + cnDot( n, p );
            double lower[3] = { -CN_HUGE, -CN_HUGE, -CN_HUGE };
            double upper[3] = { CN_HUGE, CN_HUGE, CN_HUGE };
            double c[3] = { n.x, n.y, n.z };
            for ( int i = 0; i < 3; ++i )
            {
                int j = ( i + 1 ) % 3;
                int k = ( i + 2 ) % 3;
                if ( fabs( c[j] ) < 1e-12 && fabs( c[k] ) < 1e-12 )
                {
                    // dot(n, x) <= offset with n = +-e_i (to 1e-12): x_i <= offset / n_i, or >=
                    double bound = offset / c[i];
                    double pad = 1e-6 * ( 1.0 + fabs( bound ) );
                    if ( c[i] > 0.0 )
                    {
                        upper[i] = fmax( -CN_HUGE, fmin( CN_HUGE, bound + pad ) );
                    }
                    else
                    {
                        lower[i] = fmax( -CN_HUGE, fmin( CN_HUGE, bound - pad ) );
                    }
                }
            }
            cnAABB box = { { lower[0], lower[1], lower[2] }, { upper[0], upper[1], upper[2] } };
            return box;
        }

        default:
            break;
    }
    return cnMakeAABB( p, cnMakeVec3( e[0], e[1], e[2] ) );
}

cnAABB cnAABBUnion( cnAABB a, cnAABB b )
{
    cnAABB box = {
        { fmin( a.lower.x, b.lower.x ), fmin( a.lower.y, b.lower.y ), fmin( a.lower.z, b.lower.z ) },
        { fmax( a.upper.x, b.upper.x ), fmax( a.upper.y, b.upper.y ), fmax( a.upper.z, b.upper.z ) } };
    return box;
}

cnAABB cnAABBInflate( cnAABB box, double margin )
{
    cnVec3 m = { margin, margin, margin };
    cnAABB out = { cnSub( box.lower, m ), cnAdd( box.upper, m ) };
    return out;
}

bool cnAABBOverlaps( cnAABB a, cnAABB b )
{
    return a.lower.x <= b.upper.x && b.lower.x <= a.upper.x && a.lower.y <= b.upper.y &&
           b.lower.y <= a.upper.y && a.lower.z <= b.upper.z && b.lower.z <= a.upper.z;
}

bool cnAABBContains( cnAABB outer, cnAABB inner )
{
    return outer.lower.x <= inner.lower.x && outer.lower.y <= inner.lower.y &&
           outer.lower.z <= inner.lower.z && inner.upper.x <= outer.upper.x &&
           inner.upper.y <= outer.upper.y && inner.upper.z <= outer.upper.z;
}

// ---------------------------------------------------------------------------------------------
// A placed shape with its rotation matrix and interior point: what libccd's `obj` points at.

typedef struct cnConvexObject
{
    const cnGeometry* geometry;
    const cnHull* hull;
    cnMat3 rotation;
    cnVec3 position;
    cnVec3 center;  // world, strictly inside (MPR's interior point)
    double radius;  // bounding radius about the centre
    double inflate; // radius of a sphere swept over the shape (0: the shape itself)
    int* budget;    // nullable: support calls left for the running libccd call (see cnCcdSupport)
    double sweep;   // spheres and capsules: the radius swept over the core (a point, a segment)
    bool core;      // support of the core only (the shape without `sweep`)
} cnConvexObject;

static cnConvexObject cnMakeConvexObject( const cnCollisionShape* shape )
{
    cnConvexObject o;
    o.geometry = shape->geometry;
    o.hull = shape->hull;
    o.rotation = cnMat3FromQuat( cnNormalizeQuat( shape->transform.q ) );
    o.position = shape->transform.p;
    o.center = cnAdd( cnMulMV( o.rotation, cnLocalCenter( shape->geometry, shape->hull ) ), o.position );
    o.radius = cnLocalBoundingRadius( shape->geometry, shape->hull );
    o.inflate = 0.0;
    o.budget = NULL;
    o.sweep = shape->geometry->type == cn_sphereShape    ? shape->geometry->sphere.radius
              : shape->geometry->type == cn_capsuleShape ? shape->geometry->capsule.radius
                                                         : 0.0;
    o.core = false;
    return o;
}

static cnVec3 cnObjectSupport( const cnConvexObject* o, cnVec3 d )
{
    cnMat3 r = o->rotation;
    cnVec3 local = { cnDot( r.cx, d ), cnDot( r.cy, d ), cnDot( r.cz, d ) };
    cnVec3 p = cnAdd( cnMulMV( r, cnLocalSupport( o->geometry, o->hull, local ) ), o->position );
    double extra = o->inflate - ( o->core ? o->sweep : 0.0 );
    return extra != 0.0 ? cnMulAdd( p, extra, cnSafeDirection( d ) ) : p;
}

// sep(n) = dot(n, sB(-n)) - dot(n, sA(n)), with the two support points
static double cnSeparationAlong( const cnConvexObject* a, const cnConvexObject* b, cnVec3 n, cnVec3* supportA,
                                 cnVec3* supportB )
{
    cnVec3 sa = cnObjectSupport( a, n );
    cnVec3 sb = cnObjectSupport( b, cnNeg( n ) );
    if ( supportA != NULL )
    {
        *supportA = sa;
        *supportB = sb;
    }
    return cnDot( n, sb ) - cnDot( n, sa );
}

// libccd's MPR portal refinement (the yes/no phase) loops until its tolerance is met, with no
// iteration limit. A budget of support calls bounds it: past the budget the support is NaN, which
// makes every libccd test fail, so MPR returns "no hit" (refinement) or stops at max_iterations
// with a NaN answer (penetration). cnMpr rejects both.
static void cnCcdSupport( const void* obj, const ccd_vec3_t* dir, ccd_vec3_t* out )
{
    const cnConvexObject* o = obj;
    if ( o->budget != NULL )
    {
        if ( *o->budget <= 0 )
        {
            ccdVec3Set( out, NAN, NAN, NAN );
            return;
        }
        *o->budget -= 1;
    }
    cnVec3 d = { dir->v[0], dir->v[1], dir->v[2] };
    cnVec3 s = cnObjectSupport( o, d );
    ccdVec3Set( out, s.x, s.y, s.z );
}

static void cnCcdCenter( const void* obj, ccd_vec3_t* center )
{
    const cnConvexObject* o = obj;
    ccdVec3Set( center, o->center.x, o->center.y, o->center.z );
}

// ---------------------------------------------------------------------------------------------
// GJK distance on the Minkowski difference D = B - A (so the closest point v = b - a points from A
// to B). Johnson's sub-algorithm written as Voronoi-region tests (Ericson, Real-Time Collision
// Detection, 5.1.5 and 5.1.6), every division guarded.

typedef struct cnSimplexVertex
{
    cnVec3 w; // b - a
    cnVec3 a;
    cnVec3 b;
} cnSimplexVertex;

typedef struct cnSimplex
{
    cnSimplexVertex v[4];
    double lambda[4];
    int count;
} cnSimplex;

static cnVec3 cnSimplexPoint( const cnSimplex* s )
{
    cnVec3 p = cn_vec3Zero;
    for ( int i = 0; i < s->count; ++i )
    {
        p = cnMulAdd( p, s->lambda[i], s->v[i].w );
    }
    return p;
}

static void cnSimplexKeep1( cnSimplex* s, int i )
{
    s->v[0] = s->v[i];
    s->lambda[0] = 1.0;
    s->count = 1;
}

static void cnSimplexKeep2( cnSimplex* s, int i, int j, double t )
{
    cnSimplexVertex vi = s->v[i], vj = s->v[j];
    s->v[0] = vi;
    s->v[1] = vj;
    s->lambda[0] = 1.0 - t;
    s->lambda[1] = t;
    s->count = 2;
}

static void cnSolve2( cnSimplex* s )
{
    cnVec3 a = s->v[0].w;
    cnVec3 ab = cnSub( s->v[1].w, a );
    double denom = cnDot( ab, ab );
    double t = denom > 0.0 ? -cnDot( a, ab ) / denom : 0.0;
    if ( !( t > 0.0 ) )
    {
        cnSimplexKeep1( s, 0 );
    }
    else if ( t >= 1.0 )
    {
        cnSimplexKeep1( s, 1 );
    }
    else
    {
        cnSimplexKeep2( s, 0, 1, t );
    }
}

// closest point of triangle (v[i0], v[i1], v[i2]) to the origin; writes the reduced simplex to out
static void cnSolveTriangle( const cnSimplex* in, int i0, int i1, int i2, cnSimplex* out )
{
    cnSimplex s;
    s.v[0] = in->v[i0];
    s.v[1] = in->v[i1];
    s.v[2] = in->v[i2];
    s.count = 3;
    cnVec3 a = s.v[0].w, b = s.v[1].w, c = s.v[2].w;
    cnVec3 ab = cnSub( b, a ), ac = cnSub( c, a );
    double d1 = -cnDot( ab, a ), d2 = -cnDot( ac, a );
    if ( d1 <= 0.0 && d2 <= 0.0 )
    {
        cnSimplexKeep1( &s, 0 );
        *out = s;
        return;
    }
    double d3 = -cnDot( ab, b ), d4 = -cnDot( ac, b );
    if ( d3 >= 0.0 && d4 <= d3 )
    {
        cnSimplexKeep1( &s, 1 );
        *out = s;
        return;
    }
    double vc = d1 * d4 - d3 * d2;
    if ( vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 )
    {
        double denom = d1 - d3;
        if ( denom > 0.0 )
        {
            cnSimplexKeep2( &s, 0, 1, d1 / denom );
        }
        else
        {
            cnSimplexKeep1( &s, 0 );
        }
        *out = s;
        return;
    }
    double d5 = -cnDot( ab, c ), d6 = -cnDot( ac, c );
    if ( d6 >= 0.0 && d5 <= d6 )
    {
        cnSimplexKeep1( &s, 2 );
        *out = s;
        return;
    }
    double vb = d5 * d2 - d1 * d6;
    if ( vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 )
    {
        double denom = d2 - d6;
        if ( denom > 0.0 )
        {
            cnSimplexKeep2( &s, 0, 2, d2 / denom );
        }
        else
        {
            cnSimplexKeep1( &s, 0 );
        }
        *out = s;
        return;
    }
    double va = d3 * d6 - d5 * d4;
    if ( va <= 0.0 && ( d4 - d3 ) >= 0.0 && ( d5 - d6 ) >= 0.0 )
    {
        double denom = ( d4 - d3 ) + ( d5 - d6 );
        if ( denom > 0.0 )
        {
            cnSimplexKeep2( &s, 1, 2, ( d4 - d3 ) / denom );
        }
        else
        {
            cnSimplexKeep1( &s, 1 );
        }
        *out = s;
        return;
    }
    double sum = va + vb + vc;
    if ( !( sum > 0.0 ) || !isfinite( sum ) )
    {
        // degenerate (collinear) triangle: the best of its edges
        cnSimplex best, e;
        double bestDistance = HUGE_VAL;
        static const int edges[3][2] = { { 0, 1 }, { 0, 2 }, { 1, 2 } };
        best = s;
        cnSimplexKeep1( &best, 0 );
        for ( int k = 0; k < 3; ++k )
        {
            e = s;
            e.v[0] = s.v[edges[k][0]];
            e.v[1] = s.v[edges[k][1]];
            e.count = 2;
            cnSolve2( &e );
            double d = cnLengthSquared( cnSimplexPoint( &e ) );
            if ( d < bestDistance )
            {
                bestDistance = d;
                best = e;
            }
        }
        *out = best;
        return;
    }
    double inv = 1.0 / sum;
    s.lambda[1] = vb * inv;
    s.lambda[2] = vc * inv;
    s.lambda[0] = 1.0 - s.lambda[1] - s.lambda[2];
    *out = s;
}

// returns true when the origin is inside the tetrahedron
static bool cnSolve4( cnSimplex* s )
{
    static const int faces[4][4] = { { 0, 1, 2, 3 }, { 0, 1, 3, 2 }, { 0, 2, 3, 1 }, { 1, 2, 3, 0 } };
    cnVec3 p0 = s->v[0].w;
    double volume6 =
        cnDot( cnSub( s->v[1].w, p0 ), cnCross( cnSub( s->v[2].w, p0 ), cnSub( s->v[3].w, p0 ) ) );
    double edge = 0.0;
    for ( int i = 1; i < 4; ++i )
    {
        edge = fmax( edge, cnLength( cnSub( s->v[i].w, p0 ) ) );
    }
    bool degenerate = !( fabs( volume6 ) > 1e-12 * edge * edge * edge );

    bool anyOutside = false;
    double bestDistance = HUGE_VAL;
    cnSimplex best = *s;
    for ( int f = 0; f < 4; ++f )
    {
        cnVec3 a = s->v[faces[f][0]].w, b = s->v[faces[f][1]].w, c = s->v[faces[f][2]].w;
        cnVec3 d = s->v[faces[f][3]].w;
        cnVec3 n = cnCross( cnSub( b, a ), cnSub( c, a ) );
        double sideOrigin = -cnDot( n, a );
        double sideOther = cnDot( n, cnSub( d, a ) );
        bool outside = degenerate || sideOrigin * sideOther < 0.0;
        if ( !outside )
        {
            continue;
        }
        anyOutside = true;
        cnSimplex face;
        cnSolveTriangle( s, faces[f][0], faces[f][1], faces[f][2], &face );
        double distance = cnLengthSquared( cnSimplexPoint( &face ) );
        if ( distance < bestDistance )
        {
            bestDistance = distance;
            best = face;
        }
    }
    if ( !anyOutside )
    {
        return true;
    }
    *s = best;
    return false;
}

static cnSimplexVertex cnMinkowskiSupport( const cnConvexObject* a, const cnConvexObject* b, cnVec3 d )
{
    // support of B - A along d: sB(d) - sA(-d)
    cnSimplexVertex v;
    v.a = cnObjectSupport( a, cnNeg( d ) );
    v.b = cnObjectSupport( b, d );
    v.w = cnSub( v.b, v.a );
    return v;
}

#define CN_GJK_MAX_ITERATIONS 64

static cnDistanceResult cnGjk( const cnConvexObject* a, const cnConvexObject* b )
{
    cnDistanceResult result;
    memset( &result, 0, sizeof( result ) );

    double scale = a->radius + b->radius + cnLength( cnSub( b->center, a->center ) );
    double tolerance = 1e-12 * scale;

    cnVec3 d = cnSub( a->center, b->center ); // from D's centre towards the origin
    if ( !( cnLengthSquared( d ) > 0.0 ) )
    {
        d = cnMakeVec3( 1.0, 0.0, 0.0 );
    }
    cnSimplex s;
    s.v[0] = cnMinkowskiSupport( a, b, d );
    s.lambda[0] = 1.0;
    s.count = 1;
    cnVec3 v = s.v[0].w;
    cnVec3 lastDirection = cn_vec3Zero;
    bool overlap = false;
    int iteration = 0;

    for ( ; iteration < CN_GJK_MAX_ITERATIONS; ++iteration )
    {
        double vv = cnLengthSquared( v );
        if ( !( vv > tolerance * tolerance ) )
        {
            overlap = true;
            break;
        }
        double vLength = sqrt( vv );
        lastDirection = cnScale( 1.0 / vLength, v );

        cnSimplexVertex w = cnMinkowskiSupport( a, b, cnNeg( v ) );
        double gap = vv - cnDot( v, w.w ); // |v| (|v| - lower bound)
        if ( gap <= vLength * fmax( 1e-14 * vLength, tolerance ) )
        {
            break;
        }
        bool duplicate = false;
        for ( int i = 0; i < s.count; ++i )
        {
            if ( cnLengthSquared( cnSub( s.v[i].w, w.w ) ) <= tolerance * tolerance )
            {
                duplicate = true;
            }
        }
        if ( duplicate )
        {
            break;
        }

        cnSimplex saved = s;
        s.v[s.count] = w;
        s.count += 1;
        if ( s.count == 2 )
        {
            cnSolve2( &s );
        }
        else if ( s.count == 3 )
        {
            cnSimplex reduced;
            cnSolveTriangle( &s, 0, 1, 2, &reduced );
            s = reduced;
        }
        else if ( cnSolve4( &s ) )
        {
            overlap = true;
            break;
        }
        cnVec3 next = cnSimplexPoint( &s );
        if ( !( cnLengthSquared( next ) < vv ) )
        {
            // no progress: keep the previous simplex and stop
            s = saved;
            break;
        }
        v = next;
    }

    result.iterations = iteration;
    result.overlap = overlap;
    result.normal = lastDirection;
    if ( overlap )
    {
        result.distance = 0.0;
        cnVec3 pa = cn_vec3Zero, pb = cn_vec3Zero;
        double total = 0.0;
        for ( int i = 0; i < s.count; ++i )
        {
            pa = cnAdd( pa, s.v[i].a );
            pb = cnAdd( pb, s.v[i].b );
            total += 1.0;
        }
        result.pointA = cnScale( 1.0 / total, pa );
        result.pointB = cnScale( 1.0 / total, pb );
        return result;
    }
    cnVec3 pa = cn_vec3Zero, pb = cn_vec3Zero;
    for ( int i = 0; i < s.count; ++i )
    {
        pa = cnMulAdd( pa, s.lambda[i], s.v[i].a );
        pb = cnMulAdd( pb, s.lambda[i], s.v[i].b );
    }
    result.pointA = pa;
    result.pointB = pb;
    result.distance = cnLength( v );
    result.normal = cnScale( 1.0 / result.distance, v );
    return result;
}

cnDistanceResult cnConvexDistance( const cnCollisionShape* a, const cnCollisionShape* b )
{
    cnConvexObject oa = cnMakeConvexObject( a );
    cnConvexObject ob = cnMakeConvexObject( b );
    return cnGjk( &oa, &ob );
}

// ---------------------------------------------------------------------------------------------
// The penetration query

static bool cnIsUsableDirection( cnVec3 n )
{
    if ( !cnIsFiniteVec3( n ) )
    {
        return false;
    }
    double length = cnLength( n );
    return length > 0.5 && length < 2.0;
}

static ccd_t cnMakeCcd( double tolerance )
{
    ccd_t ccd;
    CCD_INIT( &ccd );
    ccd.support1 = cnCcdSupport;
    ccd.support2 = cnCcdSupport;
    ccd.center1 = cnCcdCenter; // MPR needs a point strictly inside each shape
    ccd.center2 = cnCcdCenter;
    // MPR's penetration phase stops here; its portal refinement (the yes/no phase) has no limit
    // but its tolerance, and is bounded by the support budget (cnCcdSupport)
    ccd.max_iterations = 100;
    ccd.mpr_tolerance = tolerance;
    ccd.epa_tolerance = tolerance;
    ccd.dist_tolerance = tolerance;
    return ccd;
}

// One ccdMPRPenetration, every output checked. false: no usable direction (miss, depth 0 with a
// zero direction, NaN).
#define CN_MPR_SUPPORT_BUDGET 400

static bool cnMpr( const cnConvexObject* objectA, const cnConvexObject* objectB, double tolerance,
                   cnVec3* normal, double* depth, cnVec3* position, bool* havePosition )
{
    int budget = CN_MPR_SUPPORT_BUDGET;
    cnConvexObject oa = *objectA, ob = *objectB;
    oa.budget = &budget;
    ob.budget = &budget;
    const cnConvexObject* a = &oa;
    const cnConvexObject* b = &ob;
    ccd_t ccd = cnMakeCcd( tolerance );
    ccd_real_t d = 0.0;
    ccd_vec3_t dir, pos;
    ccdVec3Set( &dir, 0.0, 0.0, 0.0 );
    ccdVec3Set( &pos, 0.0, 0.0, 0.0 );
    cn_convexStats.mprCalls += 1;
    int ret = ccdMPRPenetration( a, b, &ccd, &d, &dir, &pos );
    cnVec3 n = { dir.v[0], dir.v[1], dir.v[2] };
    cnVec3 p = { pos.v[0], pos.v[1], pos.v[2] };
    *havePosition = ret == 0 && cnIsFiniteVec3( p );
    if ( *havePosition )
    {
        *position = p;
    }
    if ( ret == 0 && isfinite( d ) && cnIsUsableDirection( n ) )
    {
        *normal = cnNormalize( n );
        *depth = d;
        return true;
    }
    cn_convexStats.mprRejected += 1;
    return false;
}

bool cnMprPenetration( const cnCollisionShape* a, const cnCollisionShape* b, double* depth, cnVec3* normal,
                       cnVec3* position )
{
    cnConvexObject oa = cnMakeConvexObject( a );
    cnConvexObject ob = cnMakeConvexObject( b );
    double coordinates = fmax( cnLength( oa.center ), cnLength( ob.center ) );
    double tolerance = fmax( 1e-15 * ( oa.radius + ob.radius ), 1e-14 * coordinates );
    bool havePosition = false;
    *position = cn_vec3Zero;
    return cnMpr( &oa, &ob, tolerance, normal, depth, position, &havePosition );
}

#define CN_CANDIDATE_CAPACITY 40

typedef struct cnCandidates
{
    cnVec3 normal[CN_CANDIDATE_CAPACITY];
    double separation[CN_CANDIDATE_CAPACITY];
    int source[CN_CANDIDATE_CAPACITY];
    int count;
    int best;
} cnCandidates;

// score a direction by the true separation along it (the inflation is not counted)
static double cnAddCandidate( cnCandidates* c, const cnConvexObject* a, const cnConvexObject* b, cnVec3 n,
                              int source )
{
    if ( c->count >= CN_CANDIDATE_CAPACITY || !cnIsUsableDirection( n ) )
    {
        return -HUGE_VAL;
    }
    n = cnNormalize( n );
    cnConvexObject bare = *b;
    bare.inflate = 0.0;
    double separation = cnSeparationAlong( a, &bare, n, NULL, NULL );
    if ( !isfinite( separation ) )
    {
        return -HUGE_VAL;
    }
    int i = c->count++;
    c->normal[i] = n;
    c->separation[i] = separation;
    c->source[i] = source;
    if ( c->best < 0 || separation > c->separation[c->best] )
    {
        c->best = i;
    }
    return separation;
}

#define CN_POLISH_ITERATIONS 60

// Local refinement of the best direction: minimise h(n) = -sep(n) over unit n by projected
// gradient descent. h is the support function of the Minkowski difference A - B, whose gradient
// is its support point q = sA(n) - sB(-n); the step follows the tangential part of q, sized by
// Barzilai-Borwein from the last two steps and kept only when h decreases (Armijo). Smooth pairs
// converge to round-off in a few dozen support calls; at a polytope's face normal (a kink of h)
// every trial step fails and the step size runs out at once. Only ever improves the candidate.
static void cnPolish( cnCandidates* c, const cnConvexObject* a, const cnConvexObject* b, double scale )
{
    cnVec3 n = c->normal[c->best];
    double h = -c->separation[c->best];
    cnVec3 sa = cnObjectSupport( a, n ), sb = cnObjectSupport( b, cnNeg( n ) );
    cnVec3 g = cnSub( sa, sb );
    g = cnMulAdd( g, -cnDot( g, n ), n );
    double alpha = 1.0 / scale;
    bool improved = false;
    for ( int k = 0; k < CN_POLISH_ITERATIONS; ++k )
    {
        double gg = cnLengthSquared( g );
        if ( !( gg > 1e-30 * scale * scale ) || !( alpha * sqrt( gg ) > 1e-15 ) )
        {
            break;
        }
        cnVec3 trial = cnSafeDirection( cnMulAdd( n, -alpha, g ) );
        cnVec3 ta = cnObjectSupport( a, trial ), tb = cnObjectSupport( b, cnNeg( trial ) );
        cnVec3 q = cnSub( ta, tb );
        double hTrial = cnDot( q, trial );
        if ( isfinite( hTrial ) && hTrial < h - 1e-4 * alpha * gg )
        {
            cnVec3 gTrial = cnMulAdd( q, -cnDot( q, trial ), trial );
            cnVec3 dn = cnSub( trial, n ), dg = cnSub( gTrial, g );
            double curvature = cnDot( dn, dg );
            alpha = curvature > 0.0 ? cnLengthSquared( dn ) / curvature : 2.0 * alpha;
            n = trial;
            h = hTrial;
            g = gTrial;
            improved = true;
        }
        else
        {
            alpha *= 0.25;
        }
    }
    if ( improved )
    {
        cnAddCandidate( c, a, b, n, c->source[c->best] );
    }
}

// the outward normal of `hull`'s face that separates best, as one candidate
static void cnAddBestFaceNormal( cnCandidates* c, const cnConvexObject* a, const cnConvexObject* b,
                                 const cnConvexObject* hull )
{
    if ( hull->geometry->type != cn_hullShape || hull->hull == NULL || hull->hull->triangles == NULL )
    {
        return;
    }
    const cnHull* h = hull->hull;
    double best = -HUGE_VAL;
    cnVec3 bestNormal = cn_vec3Zero;
    for ( int t = 0; t < h->triangleCount; ++t )
    {
        cnVec3 p0 = h->vertices[h->triangles[3 * t]];
        cnVec3 p1 = h->vertices[h->triangles[3 * t + 1]];
        cnVec3 p2 = h->vertices[h->triangles[3 * t + 2]];
        cnVec3 n = cnMulMV( hull->rotation, cnCross( cnSub( p1, p0 ), cnSub( p2, p0 ) ) );
        if ( !( cnLengthSquared( n ) > 0.0 ) )
        {
            continue;
        }
        n = cnSafeDirection( n );
        // outward from A: as is when the hull is A, reversed when it is B
        if ( hull == b )
        {
            n = cnNeg( n );
        }
        double separation = cnSeparationAlong( a, b, n, NULL, NULL );
        if ( separation > best )
        {
            best = separation;
            bestNormal = n;
        }
    }
    if ( best > -HUGE_VAL )
    {
        cnAddCandidate( c, a, b, bestNormal, cn_contactFromAxis );
    }
}

bool cnConvexQuery( const cnCollisionShape* a, const cnCollisionShape* b, const cnVec3* previousNormal,
                    cnConvexContact* contact )
{
    memset( contact, 0, sizeof( *contact ) );
    contact->normal = cnMakeVec3( 0.0, 0.0, 1.0 );
    if ( !cnIsFiniteVec3( a->transform.p ) || !cnIsFiniteQuat( a->transform.q ) ||
         !cnIsFiniteVec3( b->transform.p ) || !cnIsFiniteQuat( b->transform.q ) )
    {
        return false;
    }
    cn_convexStats.queries += 1;

    cnConvexObject oa = cnMakeConvexObject( a );
    cnConvexObject ob = cnMakeConvexObject( b );
    double scale = oa.radius + ob.radius;
    // MPR's tolerance: far below the accuracy asked of normals (1e-6), above the round-off of the
    // Minkowski difference's coordinates
    double coordinates = fmax( cnLength( oa.center ), cnLength( ob.center ) );
    double tolerance = fmax( 1e-15 * scale, 1e-14 * coordinates );

    cnCandidates candidates;
    candidates.count = 0;
    candidates.best = -1;
    cnVec3 mid = cnScale( 0.5, cnAdd( oa.center, ob.center ) ); // where the contact point sits
    bool haveMid = false;

    cnDistanceResult gjk = cnGjk( &oa, &ob );
    cnAddCandidate( &candidates, &oa, &ob, gjk.normal, cn_contactFromGjk );
    if ( gjk.overlap == false && cnIsFiniteVec3( gjk.pointA ) && cnIsFiniteVec3( gjk.pointB ) && !haveMid )
    {
        mid = cnScale( 0.5, cnAdd( gjk.pointA, gjk.pointB ) );
        haveMid = true;
    }
    // Spheres and capsules are a core (point, segment) swept by a radius: while the cores are
    // apart, GJK on the cores gives the exact answer, however deep the shapes overlap (the
    // separation is the cores' distance minus the radii, along the same normal).
    bool coreExact = false;
    if ( oa.sweep + ob.sweep > 0.0 )
    {
        cnConvexObject ca = oa, cb = ob;
        ca.core = true;
        cb.core = true;
        cnDistanceResult core = cnGjk( &ca, &cb );
        if ( !core.overlap && core.distance > 1e-9 * scale )
        {
            cnVec3 n = cnNormalize( core.normal );
            cnAddCandidate( &candidates, &oa, &ob, n, cn_contactFromGjk );
            mid = cnScale(
                0.5, cnAdd( cnMulAdd( core.pointA, oa.sweep, n ), cnMulAdd( core.pointB, -ob.sweep, n ) ) );
            haveMid = cnIsFiniteVec3( mid );
            coreExact = true;
        }
    }
    cnVec3 centers = cnSub( ob.center, oa.center );
    if ( cnLengthSquared( centers ) > 0.0 )
    {
        cnAddCandidate( &candidates, &oa, &ob, cnSafeDirection( centers ), cn_contactFromCenters );
    }
    if ( previousNormal != NULL )
    {
        cnAddCandidate( &candidates, &oa, &ob, *previousNormal, cn_contactFromPrevious );
    }
    if ( gjk.overlap && !coreExact )
    {
        // the shapes' axes, both senses: face normals of boxes, cylinder and capsule axes. MPR and
        // the polish below find a local minimum of the translation; these seed the global one
        // (a box deep inside a box leaves through its nearest face).
        cnMat3 r[2] = { oa.rotation, ob.rotation };
        for ( int k = 0; k < 2; ++k )
        {
            cnVec3 axes[3] = { r[k].cx, r[k].cy, r[k].cz };
            for ( int i = 0; i < 3; ++i )
            {
                cnAddCandidate( &candidates, &oa, &ob, axes[i], cn_contactFromAxis );
                cnAddCandidate( &candidates, &oa, &ob, cnNeg( axes[i] ), cn_contactFromAxis );
            }
        }
    }

    // Overlapping, touching or nearly so (GJK's direction degrades as the distance goes to zero):
    // MPR on B swept by a small sphere, so that the origin is well inside the Minkowski difference
    // (no touching-contact special cases in libccd) without changing the normals.
    if ( ( gjk.overlap || gjk.distance < 1e-3 * scale ) && !coreExact )
    {
        double inflate = ( gjk.overlap ? 0.0 : gjk.distance ) + 1e-6 * scale;
        ob.inflate = inflate;
        cnVec3 n, position;
        double depth;
        bool havePosition;
        if ( cnMpr( &oa, &ob, tolerance, &n, &depth, &position, &havePosition ) )
        {
            cnAddCandidate( &candidates, &oa, &ob, n, cn_contactFromMpr );
        }
        if ( havePosition )
        {
            mid = position;
            haveMid = true;
        }

        ob.inflate = 0.0;
    }
    if ( candidates.count == 0 )
    {
        cnAddCandidate( &candidates, &oa, &ob, cnMakeVec3( 0.0, 0.0, 1.0 ), cn_contactFromAxis );
    }
    if ( gjk.overlap && !coreExact )
    {
        // hull face normals, the best of each hull (a hull deep in something leaves through a face)
        cnAddBestFaceNormal( &candidates, &oa, &ob, &oa );
        cnAddBestFaceNormal( &candidates, &oa, &ob, &ob );
    }
    if ( candidates.count > 0 && !coreExact )
    {
        cnPolish( &candidates, &oa, &ob, scale );
        // the opposite of a local optimum can be better (nearly symmetric deep overlaps)
        int before = candidates.best;
        cnAddCandidate( &candidates, &oa, &ob, cnNeg( candidates.normal[before] ),
                        candidates.source[before] );
        if ( candidates.best != before )
        {
            cnPolish( &candidates, &oa, &ob, scale );
        }
    }
    if ( candidates.count == 0 )
    {
        // only reachable with non-finite geometry: report a finite nothing
        contact->separation = HUGE_VAL;
        return false;
    }

    cnVec3 n = candidates.normal[candidates.best];
    cnVec3 sa, sb;
    double separation = cnSeparationAlong( &oa, &ob, n, &sa, &sb );
    if ( !haveMid || !cnIsFiniteVec3( mid ) )
    {
        mid = cnScale( 0.5, cnAdd( sa, sb ) );
    }
    // the contact sits at `mid` tangentially, on each shape's supporting plane along the normal
    double m = cnDot( n, mid );
    contact->normal = n;
    contact->separation = separation;
    contact->pointA = cnMulAdd( mid, cnDot( n, sa ) - m, n );
    contact->pointB = cnMulAdd( mid, cnDot( n, sb ) - m, n );
    contact->source = candidates.source[candidates.best];
    if ( !isfinite( separation ) || !cnIsFiniteVec3( contact->pointA ) || !cnIsFiniteVec3( contact->pointB ) )
    {
        contact->normal = cnMakeVec3( 0.0, 0.0, 1.0 );
        contact->separation = HUGE_VAL;
        return false;
    }
    return true;
}

// ---------------------------------------------------------------------------------------------
// The persistent manifold

static double cnQuadArea( cnVec3 p0, cnVec3 p1, cnVec3 p2, cnVec3 p3 )
{
    // twice the area of the quadrilateral, up to its ordering: the largest diagonal cross product
    double a = cnLength( cnCross( cnSub( p0, p1 ), cnSub( p2, p3 ) ) );
    double b = cnLength( cnCross( cnSub( p0, p2 ), cnSub( p1, p3 ) ) );
    double c = cnLength( cnCross( cnSub( p0, p3 ), cnSub( p1, p2 ) ) );
    return fmax( a, fmax( b, c ) );
}

bool cnBeginPersistentPair( const cnCollisionShape* a, const cnCollisionShape* b, double* margin,
                            const cnManifold* previous, cnManifold* old, cnManifold* manifold )
{
    memset( old, 0, sizeof( *old ) );
    if ( previous != NULL )
    {
        *old = *previous; // `previous` may alias `manifold`
    }
    old->pointCount =
        old->pointCount < 0
            ? 0
            : ( old->pointCount > CN_MAX_MANIFOLD_POINTS ? CN_MAX_MANIFOLD_POINTS : old->pointCount );
    memset( manifold, 0, sizeof( *manifold ) );
    manifold->normal = cnMakeVec3( 0.0, 0.0, 1.0 );
    if ( isnan( *margin ) )
    {
        *margin = 0.0;
    }
    // bounding boxes first: most broadphase pairs stop here
    cnAABB boxA = cnAABBInflate( cnComputeAABB( a ), fmax( *margin, 0.0 ) );
    return cnAABBOverlaps( boxA, cnComputeAABB( b ) );
}

void cnCollideConvex( const cnCollisionShape* a, const cnCollisionShape* b, double margin,
                      const cnManifold* previous, cnManifold* manifold )
{
    cnManifold old;
    if ( !cnBeginPersistentPair( a, b, &margin, previous, &old, manifold ) )
    {
        return;
    }

    const cnVec3* previousNormal = old.pointCount > 0 ? &old.normal : NULL;
    cnConvexContact contact;
    if ( !cnConvexQuery( a, b, previousNormal, &contact ) || !( contact.separation < margin ) )
    {
        return;
    }
    cnSurfaceParams none = { 0.0, 0.0 };
    cnMergePersistentPoint( a, b, margin, &old, contact.normal, contact.pointA, contact.pointB,
                            contact.separation, none, none, manifold );
}

void cnMergePersistentPoint( const cnCollisionShape* a, const cnCollisionShape* b, double margin,
                             const cnManifold* previous, cnVec3 n, cnVec3 pointA, cnVec3 pointB,
                             double separationAB, cnSurfaceParams paramA, cnSurfaceParams paramB,
                             cnManifold* manifold )
{
    cnManifold old = *previous; // may alias `manifold`
    old.pointCount = old.pointCount < 0 ? 0
                                        : ( old.pointCount > CN_MAX_MANIFOLD_POINTS ? CN_MAX_MANIFOLD_POINTS
                                                                                    : old.pointCount );
    memset( manifold, 0, sizeof( *manifold ) );
    manifold->normal = n;

    cnTransform ta = a->transform, tb = b->transform;
    ta.q = cnNormalizeQuat( ta.q );
    tb.q = cnNormalizeQuat( tb.q );
    double smaller =
        fmin( cnLocalBoundingRadius( a->geometry, a->hull ), cnLocalBoundingRadius( b->geometry, b->hull ) );
    double drift = fmin( CN_MANIFOLD_DRIFT_MAX, CN_MANIFOLD_DRIFT_SIZE * smaller );

    cnManifoldPoint points[CN_MAX_MANIFOLD_POINTS + 1];
    int count = 0;
    uint32_t maxId = 0;
    for ( int i = 0; i < old.pointCount; ++i )
    {
        maxId = i == 0 || old.points[i].id > maxId ? old.points[i].id : maxId;
    }
    bool keepOld = old.pointCount > 0 && cnIsFiniteVec3( old.normal ) &&
                   cnDot( old.normal, n ) >= CN_MANIFOLD_NORMAL_COS;
    for ( int i = 0; keepOld && i < old.pointCount; ++i )
    {
        const cnManifoldPoint* p = old.points + i;
        cnVec3 wa = cnTransformPoint( ta, p->localA );
        cnVec3 wb = cnTransformPoint( tb, p->localB );
        cnVec3 d = cnSub( wb, wa );
        double separation = cnDot( d, n );
        double tangential = cnLength( cnMulAdd( d, -separation, n ) );
        if ( !( separation < margin ) || !( tangential <= drift ) || !cnIsFiniteVec3( d ) )
        {
            continue;
        }
        cnManifoldPoint q = *p;
        q.point = cnScale( 0.5, cnAdd( wa, wb ) );
        q.separation = separation;
        points[count++] = q;
    }

    cnManifoldPoint fresh;
    fresh.point = cnScale( 0.5, cnAdd( pointA, pointB ) );
    fresh.localA = cnInvTransformPoint( ta, pointA );
    fresh.localB = cnInvTransformPoint( tb, pointB );
    fresh.separation = separationAB;
    fresh.normal = n;
    fresh.paramA = paramA;
    fresh.paramB = paramB;
    fresh.id = old.pointCount > 0 ? maxId + 1u : 1u;

    int nearest = -1;
    double nearestDistance = drift;
    for ( int i = 0; i < count; ++i )
    {
        double distance = cnLength( cnSub( points[i].point, fresh.point ) );
        if ( distance <= nearestDistance )
        {
            nearestDistance = distance;
            nearest = i;
        }
    }
    if ( nearest >= 0 )
    {
        fresh.id = points[nearest].id;
        points[nearest] = fresh;
    }
    else
    {
        points[count++] = fresh;
    }

    if ( count > CN_MAX_MANIFOLD_POINTS )
    {
        // keep the deepest; drop the point whose removal leaves the largest area
        int deepest = 0;
        for ( int i = 1; i < count; ++i )
        {
            if ( points[i].separation < points[deepest].separation )
            {
                deepest = i;
            }
        }
        int drop = -1;
        double bestArea = -1.0;
        for ( int j = 0; j < count; ++j )
        {
            if ( j == deepest )
            {
                continue;
            }
            cnVec3 rest[4];
            int k = 0;
            for ( int i = 0; i < count; ++i )
            {
                if ( i != j )
                {
                    rest[k++] = points[i].point;
                }
            }
            double area = cnQuadArea( rest[0], rest[1], rest[2], rest[3] );
            if ( area > bestArea )
            {
                bestArea = area;
                drop = j;
            }
        }
        for ( int i = drop; i + 1 < count; ++i )
        {
            points[i] = points[i + 1];
        }
        count -= 1;
    }

    manifold->pointCount = count;
    for ( int i = 0; i < count; ++i )
    {
        manifold->points[i] = points[i];
    }
}
