// SPDX-License-Identifier: MIT
// Convex hull: topology (closed, outward, Euler), containment of every input point, exact mass of
// polyhedra with closed forms, degenerate input, and every byte given back.
// Set CNT_VERBOSE=1 to print the measured errors.

#include "hull.h"
#include "test_support.h"

#include "cairn/cairn.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

Suite* cntHullSuite( void );

#define CNT_PI 3.14159265358979323846

// the hull's tolerance relative to the cloud's largest extent (see collision/hull.c)
#define CNT_HULL_RELATIVE_TOLERANCE 1e-8

static void cntReportHull( const char* what, double value )
{
    if ( getenv( "CNT_VERBOSE" ) != NULL )
    {
        printf( "  %-40s %.3g\n", what, value );
    }
}

// largest extent of the bounding box
static double cntExtent( const cnVec3* points, int count )
{
    cnVec3 low = points[0], high = points[0];
    for ( int i = 1; i < count; ++i )
    {
        low =
            cnMakeVec3( fmin( low.x, points[i].x ), fmin( low.y, points[i].y ), fmin( low.z, points[i].z ) );
        high = cnMakeVec3( fmax( high.x, points[i].x ), fmax( high.y, points[i].y ),
                           fmax( high.z, points[i].z ) );
    }
    return fmax( high.x - low.x, fmax( high.y - low.y, high.z - low.z ) );
}

static bool cntSameVec3( cnVec3 a, cnVec3 b )
{
    return a.x == b.x && a.y == b.y && a.z == b.z;
}

// unit normal of triangle t, from its own vertices
static cnVec3 cntTriangleNormal( const cnHull* hull, int t )
{
    const int* v = hull->triangles + 3 * t;
    cnVec3 a = hull->vertices[v[0]];
    cnVec3 n = cnCross( cnSub( hull->vertices[v[1]], a ), cnSub( hull->vertices[v[2]], a ) );
    return cnScale( 1.0 / cnLength( n ), n );
}

// everything a valid hull of `points` must satisfy; returns the largest distance of an input point
// above a face (<= tolerance)
static double cntCheckHull( const cnHull* hull, const cnVec3* points, int count, double tolerance )
{
    // (the loops only count: a passing ck_assert costs a message to the runner, too slow here)
    int vertexCount = hull->vertexCount;
    int triangleCount = hull->triangleCount;
    ck_assert_int_ge( vertexCount, 4 );
    ck_assert_int_eq( triangleCount, 2 * vertexCount - 4 );

    // indices in range, three different corners
    int badTriangles = 0;
    for ( int t = 0; t < triangleCount; ++t )
    {
        const int* v = hull->triangles + 3 * t;
        bool inRange = v[0] >= 0 && v[0] < vertexCount && v[1] >= 0 && v[1] < vertexCount && v[2] >= 0 &&
                       v[2] < vertexCount;
        badTriangles += inRange && v[0] != v[1] && v[1] != v[2] && v[2] != v[0] ? 0 : 1;
    }
    ck_assert_int_eq( badTriangles, 0 );

    // each directed edge once and its reverse once: a closed, consistently oriented surface
    unsigned char* edges = calloc( (size_t)vertexCount * (size_t)vertexCount, 1 );
    ck_assert_ptr_nonnull( edges );
    int repeatedEdges = 0;
    for ( int t = 0; t < triangleCount; ++t )
    {
        const int* v = hull->triangles + 3 * t;
        for ( int k = 0; k < 3; ++k )
        {
            size_t index = (size_t)v[k] * (size_t)vertexCount + (size_t)v[( k + 1 ) % 3];
            repeatedEdges += edges[index];
            edges[index] = 1;
        }
    }
    int edgeCount = 0;
    int openEdges = 0;
    for ( int a = 0; a < vertexCount; ++a )
    {
        for ( int b = a + 1; b < vertexCount; ++b )
        {
            unsigned char ab = edges[(size_t)a * (size_t)vertexCount + (size_t)b];
            unsigned char ba = edges[(size_t)b * (size_t)vertexCount + (size_t)a];
            openEdges += ab != ba ? 1 : 0;
            edgeCount += ab;
        }
    }
    free( edges );
    ck_assert_msg( repeatedEdges == 0, "%d directed edges are in two triangles", repeatedEdges );
    ck_assert_msg( openEdges == 0, "%d edges are in one triangle only", openEdges );

    // Euler characteristic of a sphere
    ck_assert_int_eq( vertexCount - edgeCount + triangleCount, 2 );

    // every vertex is used and is one of the input points
    int* uses = calloc( (size_t)vertexCount, sizeof( int ) );
    ck_assert_ptr_nonnull( uses );
    for ( int t = 0; t < 3 * triangleCount; ++t )
    {
        uses[hull->triangles[t]] += 1;
    }
    int unused = 0;
    int foreign = 0;
    for ( int i = 0; i < vertexCount; ++i )
    {
        unused += uses[i] == 0 ? 1 : 0;
        bool found = false;
        for ( int j = 0; j < count && found == false; ++j )
        {
            found = cntSameVec3( hull->vertices[i], points[j] );
        }
        foreign += found ? 0 : 1;
    }
    free( uses );
    ck_assert_msg( unused == 0, "%d vertices are in no triangle", unused );
    ck_assert_msg( foreign == 0, "%d vertices are not input points", foreign );

    // outward: positive volume, and every face turns away from the centroid
    cnMassData mass = cnHullMass( hull, 1.0 );
    ck_assert( mass.mass > 0.0 );
    int inward = 0;
    for ( int t = 0; t < triangleCount; ++t )
    {
        cnVec3 n = cntTriangleNormal( hull, t );
        inward += cnDot( n, cnSub( hull->vertices[hull->triangles[3 * t]], mass.center ) ) > 0.0 ? 0 : 1;
    }
    ck_assert_msg( inward == 0, "%d triangles face inwards", inward );

    // every input point inside or on the hull
    double worst = -INFINITY;
    int worstPoint = -1;
    int worstTriangle = -1;
    for ( int t = 0; t < triangleCount; ++t )
    {
        cnVec3 n = cntTriangleNormal( hull, t );
        cnVec3 a = hull->vertices[hull->triangles[3 * t]];
        for ( int j = 0; j < count; ++j )
        {
            double distance = cnDot( n, cnSub( points[j], a ) );
            if ( distance > worst )
            {
                worst = distance;
                worstPoint = j;
                worstTriangle = t;
            }
        }
    }
    ck_assert_msg( worst <= tolerance, "point %d is %g above triangle %d (tolerance %g)", worstPoint, worst,
                   worstTriangle, tolerance );
    return worst;
}

// every vertex is a corner: its triangles lie in at least three different planes
static void cntCheckCorners( const cnHull* hull )
{
    for ( int i = 0; i < hull->vertexCount; ++i )
    {
        cnVec3 normals[3];
        int distinct = 0;
        for ( int t = 0; t < hull->triangleCount && distinct < 3; ++t )
        {
            const int* v = hull->triangles + 3 * t;
            if ( v[0] != i && v[1] != i && v[2] != i )
            {
                continue;
            }
            cnVec3 n = cntTriangleNormal( hull, t );
            bool seen = false;
            for ( int k = 0; k < distinct; ++k )
            {
                seen = seen || cnLength( cnSub( n, normals[k] ) ) < 1e-6;
            }
            if ( seen == false )
            {
                normals[distinct++] = n;
            }
        }
        ck_assert_msg( distinct >= 3, "vertex %d lies on a face or an edge", i );
    }
}

// the box of cnt_box* below, with its closed form
#define CNT_BOX_A 0.3
#define CNT_BOX_B 0.55
#define CNT_BOX_C 1.2

static cnVec3 cntBoxPoint( double u, double v, double w )
{
    return cnMakeVec3( u * CNT_BOX_A, v * CNT_BOX_B, w * CNT_BOX_C );
}

// |actual - expected| over the largest entry of a diagonal expected tensor
static double cntDiagonalError( cnMat3 inertia, double ix, double iy, double iz )
{
    double scale = fmax( ix, fmax( iy, iz ) );
    double error =
        fmax( fabs( inertia.cx.x - ix ), fmax( fabs( inertia.cy.y - iy ), fabs( inertia.cz.z - iz ) ) );
    error = fmax( error, fmax( fabs( inertia.cx.y ), fmax( fabs( inertia.cx.z ), fabs( inertia.cy.z ) ) ) );
    error = fmax( error, fmax( fabs( inertia.cy.x ), fmax( fabs( inertia.cz.x ), fabs( inertia.cz.y ) ) ) );
    return error / scale;
}

// the hull's mass against the box of half extents (a, b, c) centred at `center`, axis-aligned
static void cntCheckBoxMass( const cnHull* hull, double density, cnVec3 center )
{
    double a = CNT_BOX_A, b = CNT_BOX_B, c = CNT_BOX_C;
    double m = density * ( 2.0 * a ) * ( 2.0 * b ) * ( 2.0 * c );
    cnMassData mass = cnHullMass( hull, density );
    double massError = fabs( mass.mass - m ) / m;
    double centerError = cnLength( cnSub( mass.center, center ) ) / fmax( 1.0, cnLength( center ) );
    double inertiaError = cntDiagonalError( mass.inertia, m * ( b * b + c * c ) / 3.0,
                                            m * ( a * a + c * c ) / 3.0, m * ( a * a + b * b ) / 3.0 );
    cntReportHull( "box hull mass relative error", massError );
    cntReportHull( "box hull centre relative error", centerError );
    cntReportHull( "box hull inertia relative error", inertiaError );
    ck_assert_msg( massError <= 1e-12, "mass error %g", massError );
    ck_assert_msg( centerError <= 1e-12, "centre error %g", centerError );
    ck_assert_msg( inertiaError <= 1e-12, "inertia error %g", inertiaError );
}

START_TEST( box_corners_give_the_box )
{
    cnVec3 center = cnMakeVec3( 0.25, -0.75, 1.5 );
    cnVec3 points[8];
    int count = 0;
    for ( int i = 0; i < 8; ++i )
    {
        points[count++] = cnAdd(
            center, cntBoxPoint( ( i & 1 ) ? 1.0 : -1.0, ( i & 2 ) ? 1.0 : -1.0, ( i & 4 ) ? 1.0 : -1.0 ) );
    }

    cntCountingAllocator counter;
    cnAllocator allocator = cntMakeCountingAllocator( &counter );
    cnHull hull;
    char message[128];
    ck_assert_int_eq( cnComputeHull( points, count, &allocator, &hull, message, (int)sizeof( message ) ),
                      cn_statusOk );
    ck_assert_str_eq( message, "" );
    ck_assert_int_eq( hull.vertexCount, 8 );
    ck_assert_int_eq( hull.triangleCount, 12 );
    cntCheckHull( &hull, points, count, 1e-14 );
    cntCheckCorners( &hull );
    cntCheckBoxMass( &hull, 1234.5, center );

    // the vertices keep the input order
    for ( int i = 0; i < 8; ++i )
    {
        ck_assert( cntSameVec3( hull.vertices[i], points[i] ) );
    }

    // the result is all the allocator holds, and destroying gives it back
    ck_assert_uint_eq( counter.liveBytes, 8 * sizeof( cnVec3 ) + 12 * 3 * sizeof( int ) );
    cnDestroyHull( &hull, &allocator );
    ck_assert_uint_eq( counter.liveBytes, 0 );
    ck_assert_int_eq( counter.liveBlocks, 0 );
    ck_assert_ptr_null( hull.vertices );
    cnDestroyHull( &hull, &allocator );
}
END_TEST

// _i = 0: axis-aligned box; 1: rotated and translated (its face points are coplanar only to rounding)
START_TEST( extra_points_change_nothing )
{
    cntRandom random = { 42u + (uint64_t)_i };
    cnTransform pose = cn_transformIdentity;
    if ( _i == 1 )
    {
        pose.q = cnNormalizeQuat( cnMakeQuat( 0.8, 0.3, -0.4, 0.2 ) );
        pose.p = cnMakeVec3( 3.0, -2.0, 0.5 );
    }

    // corners first, then interior points, duplicates, face and edge points
    enum
    {
        capacity = 700
    };
    cnVec3 local[capacity];
    int count = 0;
    for ( int i = 0; i < 8; ++i )
    {
        local[count++] =
            cntBoxPoint( ( i & 1 ) ? 1.0 : -1.0, ( i & 2 ) ? 1.0 : -1.0, ( i & 4 ) ? 1.0 : -1.0 );
    }
    for ( int i = 0; i < 100; ++i )
    {
        local[count++] =
            cntBoxPoint( 1.98 * cntUniform( &random ) - 0.99, 1.98 * cntUniform( &random ) - 0.99,
                         1.98 * cntUniform( &random ) - 0.99 );
    }
    for ( int i = 0; i < 16; ++i )
    {
        local[count++] = local[i % 8];
    }
    for ( int axis = 0; axis < 3; ++axis )
    {
        for ( int side = -1; side <= 1; side += 2 )
        {
            double s = (double)side;
            // the face centre, its edge midpoints and random points of the face
            double c[3] = { 0.0, 0.0, 0.0 };
            c[axis] = s;
            local[count++] = cntBoxPoint( c[0], c[1], c[2] );
            for ( int k = 0; k < 30; ++k )
            {
                double p[3] = { 2.0 * cntUniform( &random ) - 1.0, 2.0 * cntUniform( &random ) - 1.0,
                                2.0 * cntUniform( &random ) - 1.0 };
                p[axis] = s;
                local[count++] = cntBoxPoint( p[0], p[1], p[2] );
                // and a point on one of the face's edges
                p[( axis + 1 ) % 3] = k % 2 == 0 ? 1.0 : -1.0;
                local[count++] = cntBoxPoint( p[0], p[1], p[2] );
                // and an edge midpoint
                p[( axis + 2 ) % 3] = 0.0;
                local[count++] = cntBoxPoint( p[0], p[1], p[2] );
            }
        }
    }
    ck_assert_int_le( count, capacity );

    // place them; keep the corners apart, then shuffle everything
    cnVec3 corners[8];
    cnVec3 points[capacity];
    for ( int i = 0; i < count; ++i )
    {
        points[i] = cnTransformPoint( pose, local[i] );
    }
    memcpy( corners, points, sizeof( corners ) );
    cntShuffle( &random, points, count );

    cntCountingAllocator counter;
    cnAllocator allocator = cntMakeCountingAllocator( &counter );
    cnHull hull, cornerHull;
    ck_assert_int_eq( cnComputeHull( points, count, &allocator, &hull, NULL, 0 ), cn_statusOk );
    ck_assert_int_eq( cnComputeHull( corners, 8, &allocator, &cornerHull, NULL, 0 ), cn_statusOk );

    // the same eight vertices and twelve triangles
    ck_assert_int_eq( hull.vertexCount, 8 );
    ck_assert_int_eq( hull.triangleCount, 12 );
    for ( int i = 0; i < 8; ++i )
    {
        bool found = false;
        for ( int j = 0; j < 8; ++j )
        {
            found = found || cntSameVec3( hull.vertices[i], corners[j] );
        }
        ck_assert( found );
    }
    double worst = cntCheckHull( &hull, points, count, 1e-13 );
    cntReportHull( "box with extra points: worst distance", worst );
    cntCheckCorners( &hull );

    // the same mass, centre and inertia as the corners alone
    double density = 2700.0;
    cnMassData a = cnHullMass( &hull, density );
    cnMassData b = cnHullMass( &cornerHull, density );
    CNT_ASSERT_REL( a.mass, b.mass, 1e-12 );
    ck_assert( cnLength( cnSub( a.center, b.center ) ) <= 1e-12 * cnLength( b.center ) + 1e-15 );
    double scale = fmax( b.inertia.cx.x, fmax( b.inertia.cy.y, b.inertia.cz.z ) );
    cnMat3 difference = cnAddMat3( a.inertia, cnScaleMat3( -1.0, b.inertia ) );
    double error =
        fmax( cnLength( difference.cx ), fmax( cnLength( difference.cy ), cnLength( difference.cz ) ) );
    ck_assert_msg( error <= 1e-12 * scale, "inertia differs by %g of %g", error, scale );
    if ( _i == 0 )
    {
        cntCheckBoxMass( &hull, density, cn_vec3Zero );
    }

    cnDestroyHull( &hull, &allocator );
    cnDestroyHull( &cornerHull, &allocator );
    ck_assert_uint_eq( counter.liveBytes, 0 );
}
END_TEST

// a rotated box with 2000 points on its faces, each moved by up to f L in a random direction:
// f = 1e-15, 1e-12, 1e-9 (_i = 0, 1, 2) is below the tolerance and absorbed; f = 1e-6 (_i = 3) is
// real shape, and the hull keeps it, still closed, convex and containing every point
START_TEST( near_coplanar_noise )
{
    const double fractions[4] = { 1e-15, 1e-12, 1e-9, 1e-6 };
    cntRandom random = { 300u + (uint64_t)_i };
    enum
    {
        n = 2000
    };
    cnVec3 points[n];
    cnQuat q = cnNormalizeQuat( cnMakeQuat( 0.8, 0.3, -0.4, 0.2 ) );
    double extent = 2.0 * sqrt( CNT_BOX_A * CNT_BOX_A + CNT_BOX_B * CNT_BOX_B + CNT_BOX_C * CNT_BOX_C );
    for ( int i = 0; i < n; ++i )
    {
        double c[3] = { 2.0 * cntUniform( &random ) - 1.0, 2.0 * cntUniform( &random ) - 1.0,
                        2.0 * cntUniform( &random ) - 1.0 };
        c[i % 3] = ( i / 3 ) % 2 == 0 ? 1.0 : -1.0;
        cnVec3 p = cntBoxPoint( c[0], c[1], c[2] );
        if ( i < 8 )
        {
            // the corners themselves are exact
            p = cntBoxPoint( ( i & 1 ) ? 1.0 : -1.0, ( i & 2 ) ? 1.0 : -1.0, ( i & 4 ) ? 1.0 : -1.0 );
        }
        else
        {
            p = cnMulAdd( p, fractions[_i] * extent * ( 2.0 * cntUniform( &random ) - 1.0 ),
                          cntDirection( &random ) );
        }
        points[i] = cnRotate( q, p );
    }

    cnHull hull;
    ck_assert_int_eq( cnComputeHull( points, n, NULL, &hull, NULL, 0 ), cn_statusOk );
    double worst = cntCheckHull( &hull, points, n, CNT_HULL_RELATIVE_TOLERANCE * cntExtent( points, n ) );
    cntReportHull( "noisy box faces: worst distance", worst );
    if ( _i < 3 )
    {
        ck_assert_int_eq( hull.vertexCount, 8 );
        cntCheckCorners( &hull );
        double m = 8.0 * CNT_BOX_A * CNT_BOX_B * CNT_BOX_C;
        CNT_ASSERT_REL( cnHullMass( &hull, 1.0 ).mass, m, 1e-12 );
    }
    else
    {
        ck_assert_int_gt( hull.vertexCount, 8 );
    }
    cnDestroyHull( &hull, NULL );
}
END_TEST

// _i = 0: a 10 x 10 x 10 lattice (everything coplanar and collinear); 1: the same, rotated
START_TEST( lattice_cube_gives_the_cube )
{
    enum
    {
        side = 10
    };
    cnVec3 points[side * side * side];
    cnQuat q = _i == 0 ? cn_quatIdentity : cnNormalizeQuat( cnMakeQuat( 0.3, -0.5, 0.7, 0.4 ) );
    int count = 0;
    for ( int i = 0; i < side; ++i )
    {
        for ( int j = 0; j < side; ++j )
        {
            for ( int k = 0; k < side; ++k )
            {
                points[count++] = cnRotate( q, cnMakeVec3( 0.1 * i, 0.1 * j, 0.1 * k ) );
            }
        }
    }

    cnHull hull;
    ck_assert_int_eq( cnComputeHull( points, count, NULL, &hull, NULL, 0 ), cn_statusOk );
    ck_assert_int_eq( hull.vertexCount, 8 );
    ck_assert_int_eq( hull.triangleCount, 12 );
    cntCheckHull( &hull, points, count, 1e-13 );
    cntCheckCorners( &hull );

    // a cube of side 0.9: I = m s^2 / 6
    double s = 0.1 * ( side - 1 );
    cnMassData mass = cnHullMass( &hull, 10.0 );
    double m = 10.0 * s * s * s;
    CNT_ASSERT_REL( mass.mass, m, 1e-12 );
    double trace = mass.inertia.cx.x + mass.inertia.cy.y + mass.inertia.cz.z;
    CNT_ASSERT_REL( trace, 3.0 * m * s * s / 6.0, 1e-12 );
    cnDestroyHull( &hull, NULL );
}
END_TEST

// regular tetrahedron of edge a: V = a^3 / (6 sqrt 2), I = m a^2 / 20 about every axis
START_TEST( regular_tetrahedron_closed_form )
{
    double s = 0.7;
    cnVec3 shift = cnMakeVec3( -1.0, 2.0, 0.5 );
    cnVec3 points[4] = {
        cnAdd( shift, cnMakeVec3( s, s, s ) ),
        cnAdd( shift, cnMakeVec3( s, -s, -s ) ),
        cnAdd( shift, cnMakeVec3( -s, s, -s ) ),
        cnAdd( shift, cnMakeVec3( -s, -s, s ) ),
    };
    cnHull hull;
    ck_assert_int_eq( cnComputeHull( points, 4, NULL, &hull, NULL, 0 ), cn_statusOk );
    cntCheckHull( &hull, points, 4, 1e-14 );

    double a = 2.0 * sqrt( 2.0 ) * s;
    double density = 500.0;
    double m = density * a * a * a / ( 6.0 * sqrt( 2.0 ) );
    double i = m * a * a / 20.0;
    cnMassData mass = cnHullMass( &hull, density );
    double error = cntDiagonalError( mass.inertia, i, i, i );
    cntReportHull( "tetrahedron inertia relative error", error );
    CNT_ASSERT_REL( mass.mass, m, 1e-13 );
    ck_assert( cnLength( cnSub( mass.center, shift ) ) <= 1e-14 * cnLength( shift ) );
    ck_assert_msg( error <= 1e-12, "inertia error %g", error );
    cnDestroyHull( &hull, NULL );
}
END_TEST

// regular octahedron of edge a: V = sqrt(2)/3 a^3, I = m a^2 / 10 about every axis
START_TEST( regular_octahedron_closed_form )
{
    double s = 1.3;
    cnVec3 points[6] = { { s, 0, 0 }, { -s, 0, 0 }, { 0, s, 0 }, { 0, -s, 0 }, { 0, 0, s }, { 0, 0, -s } };
    cnHull hull;
    ck_assert_int_eq( cnComputeHull( points, 6, NULL, &hull, NULL, 0 ), cn_statusOk );
    ck_assert_int_eq( hull.vertexCount, 6 );
    ck_assert_int_eq( hull.triangleCount, 8 );
    cntCheckHull( &hull, points, 6, 1e-14 );
    cntCheckCorners( &hull );

    double a = sqrt( 2.0 ) * s;
    double density = 3.0;
    double m = density * sqrt( 2.0 ) / 3.0 * a * a * a;
    double i = m * a * a / 10.0;
    cnMassData mass = cnHullMass( &hull, density );
    double error = cntDiagonalError( mass.inertia, i, i, i );
    cntReportHull( "octahedron inertia relative error", error );
    CNT_ASSERT_REL( mass.mass, m, 1e-13 );
    ck_assert_msg( error <= 1e-12, "inertia error %g", error );
    cnDestroyHull( &hull, NULL );
}
END_TEST

// a prism over a regular 64-gon (whose caps hold 64 coplanar points each): V = k/2 r^2 sin(2 pi/k) L
START_TEST( polygon_prism_closed_form )
{
    enum
    {
        k = 64
    };
    double r = 0.8, h = 0.3;
    cnVec3 points[2 * k + 3];
    int count = 0;
    for ( int i = 0; i < k; ++i )
    {
        double angle = 2.0 * CNT_PI * i / k;
        points[count++] = cnMakeVec3( r * cos( angle ), r * sin( angle ), -h );
        points[count++] = cnMakeVec3( r * cos( angle ), r * sin( angle ), h );
    }
    // cap centres and the middle
    points[count++] = cnMakeVec3( 0.0, 0.0, -h );
    points[count++] = cnMakeVec3( 0.0, 0.0, h );
    points[count++] = cnMakeVec3( 0.0, 0.0, 0.0 );

    cnHull hull;
    ck_assert_int_eq( cnComputeHull( points, count, NULL, &hull, NULL, 0 ), cn_statusOk );
    ck_assert_int_eq( hull.vertexCount, 2 * k );
    cntCheckHull( &hull, points, count, 1e-13 );
    cntCheckCorners( &hull );

    double volume = 0.5 * k * r * r * sin( 2.0 * CNT_PI / k ) * ( 2.0 * h );
    cnMassData mass = cnHullMass( &hull, 1.0 );
    CNT_ASSERT_REL( mass.mass, volume, 1e-13 );
    // about the axis: the polygon's polar moment, m r^2 (2 + cos(2 pi/k)) / 6 for a regular k-gon
    double iz = mass.mass * r * r * ( 2.0 + cos( 2.0 * CNT_PI / k ) ) / 6.0;
    CNT_ASSERT_REL( mass.inertia.cz.z, iz, 1e-12 );
    cnDestroyHull( &hull, NULL );
}
END_TEST

// n random points on a sphere of radius r: hull volume deficit, relative
static double cntSphereHullError( int n, uint64_t seed, bool check )
{
    cntRandom random = { seed };
    double r = 2.5;
    cnVec3 center = cnMakeVec3( 0.3, -1.2, 0.7 );
    cnVec3* points = malloc( (size_t)n * sizeof( cnVec3 ) );
    ck_assert_ptr_nonnull( points );
    for ( int i = 0; i < n; ++i )
    {
        points[i] = cnMulAdd( center, r, cntDirection( &random ) );
    }

    cntCountingAllocator counter;
    cnAllocator allocator = cntMakeCountingAllocator( &counter );
    cnHull hull;
    ck_assert_int_eq( cnComputeHull( points, n, &allocator, &hull, NULL, 0 ), cn_statusOk );

    // points in convex position: every one is a vertex
    ck_assert_int_eq( hull.vertexCount, n );
    if ( check )
    {
        double tolerance = CNT_HULL_RELATIVE_TOLERANCE * cntExtent( points, n );
        double worst = cntCheckHull( &hull, points, n, tolerance );
        cntReportHull( "sphere points: worst distance above a face", worst );
    }

    // mass: below the ball's, and close to it
    double density = 7.5;
    double m = density * 4.0 / 3.0 * CNT_PI * r * r * r;
    cnMassData mass = cnHullMass( &hull, density );
    ck_assert( mass.mass < m );
    double inertia = 0.4 * m * r * r;
    double trace = ( mass.inertia.cx.x + mass.inertia.cy.y + mass.inertia.cz.z ) / 3.0;
    ck_assert( trace < inertia );
    ck_assert( cnLength( cnSub( mass.center, center ) ) < 0.01 * r );

    cnDestroyHull( &hull, &allocator );
    ck_assert_uint_eq( counter.liveBytes, 0 );
    free( points );
    return ( m - mass.mass ) / m;
}

START_TEST( sphere_points_hull )
{
    double error1000 = cntSphereHullError( 1000, 7u, true );
    double error8000 = cntSphereHullError( 8000, 8u, false );
    cntReportHull( "sphere volume deficit, 1000 points", error1000 );
    cntReportHull( "sphere volume deficit, 8000 points", error8000 );
    // the deficit of a random inscribed polytope falls like 1/n (about 12 / n here)
    ck_assert_msg( error1000 > 0.0 && error1000 < 0.02, "1000 points: %g", error1000 );
    ck_assert_msg( error8000 < error1000 / 4.0, "8000 points: %g, 1000 points: %g", error8000, error1000 );
}
END_TEST

// points on and in a ball: only the surface points are vertices
START_TEST( ball_points_hull )
{
    cntRandom random = { 2024u };
    enum
    {
        n = 1000
    };
    double r = 1.75;
    cnVec3 center = cnMakeVec3( -4.0, 0.5, 2.0 );
    cnVec3 points[n];
    for ( int i = 0; i < n; ++i )
    {
        double radius = i % 2 == 0 ? r : 0.95 * r * cbrt( cntUniform( &random ) );
        points[i] = cnMulAdd( center, radius, cntDirection( &random ) );
    }
    cnHull hull;
    ck_assert_int_eq( cnComputeHull( points, n, NULL, &hull, NULL, 0 ), cn_statusOk );
    ck_assert_int_eq( hull.vertexCount, n / 2 );
    double worst = cntCheckHull( &hull, points, n, CNT_HULL_RELATIVE_TOLERANCE * cntExtent( points, n ) );
    cntReportHull( "ball points: worst distance above a face", worst );
    for ( int i = 0; i < hull.vertexCount; ++i )
    {
        CNT_ASSERT_REL( cnLength( cnSub( hull.vertices[i], center ) ), r, 1e-14 );
    }
    cnDestroyHull( &hull, NULL );
}
END_TEST

// integer points of a ball: many coplanar faces, collinear edges, cospherical points
START_TEST( lattice_ball_hull )
{
    enum
    {
        capacity = 1000
    };
    cnVec3 points[capacity];
    int count = 0;
    for ( int i = -6; i <= 6; ++i )
    {
        for ( int j = -6; j <= 6; ++j )
        {
            for ( int k = -6; k <= 6; ++k )
            {
                if ( i * i + j * j + k * k <= 36 )
                {
                    ck_assert_int_lt( count, capacity );
                    points[count++] = cnMakeVec3( i, j, k );
                }
            }
        }
    }
    cnHull hull;
    ck_assert_int_eq( cnComputeHull( points, count, NULL, &hull, NULL, 0 ), cn_statusOk );
    cntCheckHull( &hull, points, count, 1e-12 );
    cntCheckCorners( &hull );

    // the hull of its own vertices is itself
    cnHull again;
    ck_assert_int_eq( cnComputeHull( hull.vertices, hull.vertexCount, NULL, &again, NULL, 0 ), cn_statusOk );
    ck_assert_int_eq( again.vertexCount, hull.vertexCount );
    ck_assert_int_eq( again.triangleCount, hull.triangleCount );
    CNT_ASSERT_REL( cnHullMass( &again, 1.0 ).mass, cnHullMass( &hull, 1.0 ).mass, 1e-13 );
    cnDestroyHull( &again, NULL );
    cnDestroyHull( &hull, NULL );
}
END_TEST

// a small cloud far from the origin (coordinates 1e6, size 1e-3)
START_TEST( small_cloud_far_away )
{
    cntRandom random = { 99u };
    enum
    {
        n = 2000
    };
    cnVec3 center = cnMakeVec3( 1e6, -2e6, 3e6 );
    double r = 1e-3;
    cnVec3 points[n];
    for ( int i = 0; i < n; ++i )
    {
        points[i] = cnMulAdd( center, r, cntDirection( &random ) );
    }
    cnHull hull;
    ck_assert_int_eq( cnComputeHull( points, n, NULL, &hull, NULL, 0 ), cn_statusOk );
    ck_assert_int_eq( hull.vertexCount, n );
    // centring is exact, so the tolerance is relative to the extent, not to the coordinates
    double worst = cntCheckHull( &hull, points, n, CNT_HULL_RELATIVE_TOLERANCE * cntExtent( points, n ) );
    cntReportHull( "far cloud: worst distance above a face", worst );
    double volume = 4.0 / 3.0 * CNT_PI * r * r * r;
    // about 12 / n below the ball, as for the sphere test
    CNT_ASSERT_REL( cnHullMass( &hull, 1.0 ).mass, volume, 0.012 );
    cnDestroyHull( &hull, NULL );
}
END_TEST

// a degenerate input: the status, the exact message, a zeroed result and no byte kept
static void cntExpectHullError( const cnVec3* points, int count, cnStatus status, const char* message )
{
    cntCountingAllocator counter;
    cnAllocator allocator = cntMakeCountingAllocator( &counter );
    cnHull hull;
    memset( &hull, 0x5a, sizeof( hull ) );
    char text[128];
    cnStatus got = cnComputeHull( points, count, &allocator, &hull, text, (int)sizeof( text ) );
    ck_assert_msg( got == status, "%s: got %s (%s)", message, cnStatusName( got ), text );
    ck_assert_str_eq( text, message );
    ck_assert_int_eq( hull.vertexCount, 0 );
    ck_assert_int_eq( hull.triangleCount, 0 );
    ck_assert_ptr_null( hull.vertices );
    ck_assert_ptr_null( hull.triangles );
    ck_assert_uint_eq( counter.liveBytes, 0 );
    ck_assert_int_eq( counter.liveBlocks, 0 );
    cnDestroyHull( &hull, &allocator );
}

START_TEST( degenerate_inputs_are_refused )
{
    cntRandom random = { 5u };
    enum
    {
        n = 1000
    };
    static cnVec3 points[n];

    // too few points
    cnVec3 three[3] = { { 0, 0, 0 }, { 1, 0, 0 }, { 0, 1, 0 } };
    cntExpectHullError( three, 3, cn_statusInvalidArgument, "points: need at least 4 points, got 3" );
    cntExpectHullError( three, -2, cn_statusInvalidArgument, "points: need at least 4 points, got -2" );
    cntExpectHullError( NULL, 10, cn_statusInvalidArgument,
                        "points: expected an array of 10 points, got NULL" );

    // four coplanar points
    cnVec3 square[4] = { { 0, 0, 1 }, { 1, 0, 1 }, { 1, 1, 1 }, { 0, 1, 1 } };
    cntExpectHullError( square, 4, cn_statusInvalidArgument,
                        "points: all points lie in one plane (zero volume)" );

    // a thousand points of a tilted plane (coplanar up to rounding)
    cnVec3 u = cnNormalize( cnMakeVec3( 1.0, 2.0, -0.5 ) );
    cnVec3 v = cnNormalize( cnCross( u, cnMakeVec3( 0.3, -0.2, 1.0 ) ) );
    for ( int i = 0; i < n; ++i )
    {
        points[i] = cnMulAdd( cnMulAdd( cnMakeVec3( 5.0, -3.0, 2.0 ), 4.0 * cntUniform( &random ) - 2.0, u ),
                              4.0 * cntUniform( &random ) - 2.0, v );
    }
    cntExpectHullError( points, n, cn_statusInvalidArgument,
                        "points: all points lie in one plane (zero volume)" );

    // a thousand points of a line
    for ( int i = 0; i < n; ++i )
    {
        points[i] = cnMulAdd( cnMakeVec3( 1.0, 1.0, 1.0 ), 3.0 * cntUniform( &random ), u );
    }
    cntExpectHullError( points, n, cn_statusInvalidArgument,
                        "points: all points lie on one line (zero volume)" );

    // a thousand copies of one point
    for ( int i = 0; i < n; ++i )
    {
        points[i] = cnMakeVec3( 0.25, -7.0, 3.5 );
    }
    cntExpectHullError( points, n, cn_statusInvalidArgument, "points: all points coincide (zero volume)" );
    for ( int i = 0; i < n; ++i )
    {
        points[i] = cn_vec3Zero;
    }
    cntExpectHullError( points, n, cn_statusInvalidArgument, "points: all points coincide (zero volume)" );

    // NaN and infinity
    for ( int i = 0; i < 8; ++i )
    {
        points[i] = cnMakeVec3( i & 1, ( i >> 1 ) & 1, ( i >> 2 ) & 1 );
    }
    points[5].y = NAN;
    cntExpectHullError( points, 8, cn_statusNonFinite, "points[5]: not a finite number" );
    points[5].y = 1.0;
    points[7].z = -INFINITY;
    cntExpectHullError( points, 8, cn_statusNonFinite, "points[7]: not a finite number" );

    // coordinates whose extent overflows
    points[7] = cnMakeVec3( 1.7e308, 0.0, 0.0 );
    points[6] = cnMakeVec3( -1.7e308, 0.0, 0.0 );
    cntExpectHullError( points, 8, cn_statusInvalidArgument,
                        "points: coordinates too large (the extent overflows)" );
}
END_TEST

// _i: the allocation that fails; every failure is reported and gives back every byte
START_TEST( out_of_memory_never_leaks )
{
    cntRandom random = { 11u };
    enum
    {
        n = 300
    };
    cnVec3 points[n];
    for ( int i = 0; i < n; ++i )
    {
        points[i] = cnMulAdd( cn_vec3Zero, 1.0 + 0.1 * cntUniform( &random ), cntDirection( &random ) );
    }

    cntCountingAllocator counter;
    cnAllocator allocator = cntMakeCountingAllocator( &counter );
    counter.failAfter = _i;
    cnHull hull;
    char text[64];
    cnStatus status = cnComputeHull( points, n, &allocator, &hull, text, (int)sizeof( text ) );
    if ( status == cn_statusOk )
    {
        ck_assert_int_gt( hull.vertexCount, 4 );
        cnDestroyHull( &hull, &allocator );
    }
    else
    {
        ck_assert_int_eq( status, cn_statusOutOfMemory );
        ck_assert_str_eq( text, "out of memory" );
        ck_assert_ptr_null( hull.vertices );
    }
    ck_assert_uint_eq( counter.liveBytes, 0 );
    ck_assert_int_eq( counter.liveBlocks, 0 );
}
END_TEST

// cnHullMass and cnDestroyHull on an empty hull
START_TEST( empty_hull_is_harmless )
{
    cnHull hull;
    memset( &hull, 0, sizeof( hull ) );
    cnMassData mass = cnHullMass( &hull, 1.0 );
    ck_assert( mass.mass == 0.0 && mass.inertia.cx.x == 0.0 );
    mass = cnHullMass( NULL, 1.0 );
    ck_assert( mass.mass == 0.0 );
    cnDestroyHull( &hull, NULL );
    cnDestroyHull( NULL, NULL );
    ck_assert_int_eq( cnComputeHull( NULL, 4, NULL, NULL, NULL, 0 ), cn_statusInvalidArgument );
}
END_TEST

Suite* cntHullSuite( void )
{
    Suite* suite = suite_create( "hull" );

    TCase* exact = tcase_create( "exact" );
    tcase_add_test( exact, box_corners_give_the_box );
    tcase_add_loop_test( exact, extra_points_change_nothing, 0, 2 );
    tcase_add_loop_test( exact, lattice_cube_gives_the_cube, 0, 2 );
    tcase_add_test( exact, regular_tetrahedron_closed_form );
    tcase_add_test( exact, regular_octahedron_closed_form );
    tcase_add_test( exact, polygon_prism_closed_form );
    suite_add_tcase( suite, exact );

    TCase* clouds = tcase_create( "clouds" );
    tcase_set_timeout( clouds, 60.0 );
    tcase_add_test( clouds, sphere_points_hull );
    tcase_add_test( clouds, ball_points_hull );
    tcase_add_test( clouds, lattice_ball_hull );
    tcase_add_test( clouds, small_cloud_far_away );
    tcase_add_loop_test( clouds, near_coplanar_noise, 0, 4 );
    suite_add_tcase( suite, clouds );

    TCase* failures = tcase_create( "failures" );
    tcase_add_test( failures, degenerate_inputs_are_refused );
    tcase_add_loop_test( failures, out_of_memory_never_leaks, 0, 24 );
    tcase_add_test( failures, empty_hull_is_harmless );
    suite_add_tcase( suite, failures );
    return suite;
}
