// SPDX-License-Identifier: MIT
// Viewer meshes (demos/viewer/mesh.c): every vertex on the surface, unit outward normals (the
// analytic normal on smooth surfaces, the face normal on flat faces), windings that agree with the
// normals, closed and consistently oriented meshes, volumes that converge to the closed forms,
// hulls against the engine's own hull, keys and scales, refused input.
// Set CNT_VERBOSE=1 to print the measured numbers.

#include "hull.h"
#include "mesh.h"
#include "test_support.h"

#include "cairn/cairn.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// the detail levels the shape tests loop over (3 is below the minimum of 8)
static const int cnt_segments[] = { 3, 8, 13, 16, 32, 64 };
#define CNT_SEGMENT_LEVELS ( (int)( sizeof( cnt_segments ) / sizeof( cnt_segments[0] ) ) )

// float positions and normals: a few float epsilons relative to the shape's size
#define CNT_POSITION_TOLERANCE 1e-6
#define CNT_NORMAL_TOLERANCE   1e-5

static bool cntVerbose( void )
{
    return getenv( "CNT_VERBOSE" ) != NULL;
}

// ---------------------------------------------------------------------------------------------
// properties every mesh must have

static cnVec3 cntPosition( const vwVertex* vertex )
{
    return cnMakeVec3( vertex->position[0], vertex->position[1], vertex->position[2] );
}

static cnVec3 cntNormal( const vwVertex* vertex )
{
    return cnMakeVec3( vertex->normal[0], vertex->normal[1], vertex->normal[2] );
}

typedef struct cntMeshStats
{
    int badIndices;   // out of range, or a count that is not a multiple of 3
    int degenerate;   // triangles with two corners at one position
    int openEdges;    // undirected edges not in exactly two triangles running opposite ways
    int positions;    // distinct positions (the welded vertices)
    int edges;        // distinct undirected edges between welded vertices
    int triangles;    //
    int euler;        // positions - edges + triangles
    int badNormals;   // not unit length
    int badWindings;  // corners whose normal is against the triangle's cross product
    int splitNormals; // positions whose vertices disagree on the normal
    double volume;    // divergence theorem: sum of det[p0, p1, p2] / 6
} cntMeshStats;

static const vwMesh* cnt_sortMesh; // for the comparators (qsort has no context)

static int cntComparePositions( const void* left, const void* right )
{
    const float* a = cnt_sortMesh->vertices[*(const int*)left].position;
    const float* b = cnt_sortMesh->vertices[*(const int*)right].position;
    for ( int k = 0; k < 3; ++k )
    {
        if ( a[k] != b[k] )
        {
            return a[k] < b[k] ? -1 : 1;
        }
    }
    return 0;
}

typedef struct cntEdge
{
    int low;
    int high;
    int from;
} cntEdge;

static int cntCompareEdges( const void* left, const void* right )
{
    const cntEdge* a = left;
    const cntEdge* b = right;
    if ( a->low != b->low )
    {
        return a->low < b->low ? -1 : 1;
    }
    if ( a->high != b->high )
    {
        return a->high < b->high ? -1 : 1;
    }
    return ( a->from > b->from ) - ( a->from < b->from );
}

static bool cntSameNormal( const vwVertex* a, const vwVertex* b )
{
    return a->normal[0] == b->normal[0] && a->normal[1] == b->normal[1] && a->normal[2] == b->normal[2];
}

static cntMeshStats cntAnalyze( const vwMesh* mesh )
{
    cntMeshStats stats;
    memset( &stats, 0, sizeof( stats ) );
    int vertexCount = mesh->vertexCount;
    int triangleCount = mesh->indexCount / 3;
    stats.triangles = triangleCount;
    ck_assert_ptr_nonnull( mesh->vertices );
    ck_assert_ptr_nonnull( mesh->indices );
    ck_assert_int_gt( vertexCount, 0 );
    ck_assert_int_gt( triangleCount, 0 );
    stats.badIndices = mesh->indexCount % 3 != 0 ? 1 : 0;
    for ( int i = 0; i < mesh->indexCount; ++i )
    {
        stats.badIndices += mesh->indices[i] < (uint32_t)vertexCount ? 0 : 1;
    }
    ck_assert_int_eq( stats.badIndices, 0 );

    // weld: one id per distinct position; vertices at one position must agree on smooth shapes
    int* order = malloc( (size_t)vertexCount * sizeof( int ) );
    int* weld = malloc( (size_t)vertexCount * sizeof( int ) );
    ck_assert_ptr_nonnull( order );
    ck_assert_ptr_nonnull( weld );
    for ( int i = 0; i < vertexCount; ++i )
    {
        order[i] = i;
    }
    cnt_sortMesh = mesh;
    qsort( order, (size_t)vertexCount, sizeof( int ), cntComparePositions );
    for ( int i = 0; i < vertexCount; )
    {
        int end = i + 1;
        bool split = false;
        while ( end < vertexCount && cntComparePositions( order + i, order + end ) == 0 )
        {
            split = split || cntSameNormal( mesh->vertices + order[i], mesh->vertices + order[end] ) == false;
            ++end;
        }
        for ( int k = i; k < end; ++k )
        {
            weld[order[k]] = stats.positions;
        }
        stats.splitNormals += split ? 1 : 0;
        stats.positions += 1;
        i = end;
    }

    // normals, windings and volume
    for ( int i = 0; i < vertexCount; ++i )
    {
        stats.badNormals +=
            fabs( cnLength( cntNormal( mesh->vertices + i ) ) - 1.0 ) <= CNT_NORMAL_TOLERANCE ? 0 : 1;
    }
    cntEdge* edges = malloc( (size_t)mesh->indexCount * sizeof( cntEdge ) );
    ck_assert_ptr_nonnull( edges );
    for ( int t = 0; t < triangleCount; ++t )
    {
        const uint32_t* v = mesh->indices + 3 * t;
        cnVec3 p0 = cntPosition( mesh->vertices + v[0] );
        cnVec3 p1 = cntPosition( mesh->vertices + v[1] );
        cnVec3 p2 = cntPosition( mesh->vertices + v[2] );
        cnVec3 cross = cnCross( cnSub( p1, p0 ), cnSub( p2, p0 ) );
        stats.volume += cnDot( p0, cnCross( p1, p2 ) ) / 6.0;
        for ( int k = 0; k < 3; ++k )
        {
            stats.badWindings += cnDot( cross, cntNormal( mesh->vertices + v[k] ) ) > 0.0 ? 0 : 1;
        }

        int w[3] = { weld[v[0]], weld[v[1]], weld[v[2]] };
        stats.degenerate += w[0] == w[1] || w[1] == w[2] || w[2] == w[0] ? 1 : 0;
        for ( int k = 0; k < 3; ++k )
        {
            int a = w[k], b = w[( k + 1 ) % 3];
            cntEdge edge = { a < b ? a : b, a < b ? b : a, a };
            edges[3 * t + k] = edge;
        }
    }

    // closed and oriented: every undirected edge twice, once each way
    qsort( edges, (size_t)mesh->indexCount, sizeof( cntEdge ), cntCompareEdges );
    for ( int e = 0; e < mesh->indexCount; )
    {
        int end = e + 1;
        while ( end < mesh->indexCount && edges[end].low == edges[e].low && edges[end].high == edges[e].high )
        {
            ++end;
        }
        bool paired = end - e == 2 && edges[e].from != edges[e + 1].from;
        stats.openEdges += paired ? 0 : 1;
        stats.edges += 1;
        e = end;
    }
    stats.euler = stats.positions - stats.edges + triangleCount;

    free( edges );
    free( weld );
    free( order );
    return stats;
}

// the checks every closed mesh passes; `genus` 0 for sphere-like shapes, 1 for the torus
static cntMeshStats cntCheckMesh( const vwMesh* mesh, int genus )
{
    cntMeshStats stats = cntAnalyze( mesh );
    ck_assert_msg( stats.degenerate == 0, "%d degenerate triangles", stats.degenerate );
    ck_assert_msg( stats.openEdges == 0, "%d of %d edges are open or not oriented", stats.openEdges,
                   stats.edges );
    ck_assert_int_eq( stats.euler, 2 - 2 * genus );
    ck_assert_msg( stats.badNormals == 0, "%d normals are not unit length", stats.badNormals );
    ck_assert_msg( stats.badWindings == 0, "%d corners have a normal against the winding",
                   stats.badWindings );
    ck_assert( stats.volume > 0.0 );
    return stats;
}

// all three corners of every triangle share the normal, and it is the triangle's own normal
static int cntFlatTriangles( const vwMesh* mesh, int first, int count )
{
    int bad = 0;
    for ( int t = first; t < first + count; ++t )
    {
        const uint32_t* v = mesh->indices + 3 * t;
        cnVec3 p0 = cntPosition( mesh->vertices + v[0] );
        cnVec3 cross = cnCross( cnSub( cntPosition( mesh->vertices + v[1] ), p0 ),
                                cnSub( cntPosition( mesh->vertices + v[2] ), p0 ) );
        cnVec3 n = cntNormal( mesh->vertices + v[0] );
        bool same = cntSameNormal( mesh->vertices + v[0], mesh->vertices + v[1] ) &&
                    cntSameNormal( mesh->vertices + v[0], mesh->vertices + v[2] );
        bool along = cnLength( cnSub( cnNormalize( cross ), n ) ) <= 1e-4;
        bad += same && along ? 0 : 1;
    }
    return bad;
}

// distinct vertex normals
static int cntDistinctNormals( const vwMesh* mesh )
{
    int count = 0;
    for ( int i = 0; i < mesh->vertexCount; ++i )
    {
        bool seen = false;
        for ( int j = 0; j < i && seen == false; ++j )
        {
            seen = cntSameNormal( mesh->vertices + i, mesh->vertices + j );
        }
        count += seen ? 0 : 1;
    }
    return count;
}

static void cntBuild( const cnGeometry* geometry, int segments, vwMesh* mesh )
{
    vwMeshDetail detail = { segments };
    memset( mesh, 0x5a, sizeof( *mesh ) );
    ck_assert_msg( vwBuildMesh( geometry, detail, mesh ), "vwBuildMesh refused type %d at %d segments",
                   (int)geometry->type, segments );
}

// ---------------------------------------------------------------------------------------------
// the surfaces in closed form

// distance of p to the surface (signed: > 0 outside) and the outward unit normal at the nearest
// surface point; `core` is the nearest point of the shape's core (centre, segment, circle), from
// which the normal points outwards
typedef struct cntSurfacePoint
{
    double residual;
    cnVec3 normal;
} cntSurfacePoint;

static cntSurfacePoint cntRoundSurface( cnVec3 p, cnVec3 core, double radius )
{
    cntSurfacePoint s;
    cnVec3 d = cnSub( p, core );
    double length = cnLength( d );
    s.residual = length - radius;
    s.normal = cnScale( 1.0 / length, d );
    return s;
}

static cntSurfacePoint cntSphereSurface( cnVec3 p )
{
    return cntRoundSurface( p, cn_vec3Zero, 1.0 );
}

static cntSurfacePoint cntCapsuleSurface( cnVec3 p, double radius, double halfLength )
{
    double z = fmin( fmax( p.z, -halfLength ), halfLength );
    return cntRoundSurface( p, cnMakeVec3( 0.0, 0.0, z ), radius );
}

static cntSurfacePoint cntTorusSurface( cnVec3 p, double major, double minor )
{
    double rho = sqrt( p.x * p.x + p.y * p.y );
    cnVec3 core = cnMakeVec3( major * p.x / rho, major * p.y / rho, 0.0 );
    return cntRoundSurface( p, core, minor );
}

// smooth shapes: every vertex on the surface with the analytic normal; counts the failures and
// keeps the largest errors
typedef struct cntSurfaceErrors
{
    int offSurface;
    int wrongNormals;
    int inward;
    double worstResidual;
    double worstNormal;
} cntSurfaceErrors;

static void cntAddSurfacePoint( cntSurfaceErrors* errors, const vwVertex* vertex, cntSurfacePoint s,
                                double size )
{
    cnVec3 n = cntNormal( vertex );
    double normalError = cnLength( cnSub( n, s.normal ) );
    errors->worstResidual = fmax( errors->worstResidual, fabs( s.residual ) / size );
    errors->worstNormal = fmax( errors->worstNormal, normalError );
    errors->offSurface += fabs( s.residual ) <= CNT_POSITION_TOLERANCE * size ? 0 : 1;
    errors->wrongNormals += normalError <= CNT_NORMAL_TOLERANCE ? 0 : 1;
    errors->inward += cnDot( n, s.normal ) > 0.0 ? 0 : 1;
}

static void cntAssertSurface( const cntSurfaceErrors* errors )
{
    ck_assert_msg( errors->offSurface == 0, "%d vertices off the surface (worst residual %.3g)",
                   errors->offSurface, errors->worstResidual );
    ck_assert_msg( errors->wrongNormals == 0, "%d normals differ from the surface's (worst %.3g)",
                   errors->wrongNormals, errors->worstNormal );
    ck_assert_msg( errors->inward == 0, "%d normals point inwards", errors->inward );
}

// |measured - exact| / exact
static double cntRelativeError( double measured, double exact )
{
    return fabs( measured - exact ) / exact;
}

static void cntReport( const char* what, int segments, const vwMesh* mesh, double volumeError )
{
    if ( cntVerbose() )
    {
        printf( "  %-28s segments %3d: %6d vertices %6d triangles, volume error %.3e\n", what, segments,
                mesh->vertexCount, mesh->indexCount / 3, volumeError );
    }
}

// ---------------------------------------------------------------------------------------------
// unit meshes

// sphere and ellipsoid share the unit sphere: on it, analytic normals, closed, volume near 4/3 pi
START_TEST( sphere_mesh )
{
    int segments = cnt_segments[_i];
    cnGeometry spheres[2];
    memset( spheres, 0, sizeof( spheres ) );
    spheres[0].type = cn_sphereShape;
    spheres[0].sphere.radius = 2.5;
    spheres[1].type = cn_ellipsoidShape;
    spheres[1].ellipsoid.radii = cnMakeVec3( 0.5, 1.0, 3.0 );

    vwMesh meshes[2];
    for ( int m = 0; m < 2; ++m )
    {
        cntBuild( spheres + m, segments, meshes + m );
        cntMeshStats stats = cntCheckMesh( meshes + m, 0 );
        ck_assert_int_eq( stats.splitNormals, 0 );

        cntSurfaceErrors errors;
        memset( &errors, 0, sizeof( errors ) );
        for ( int i = 0; i < meshes[m].vertexCount; ++i )
        {
            const vwVertex* v = meshes[m].vertices + i;
            cntAddSurfacePoint( &errors, v, cntSphereSurface( cntPosition( v ) ), 1.0 );
        }
        cntAssertSurface( &errors );

        // inscribed: a little less than the ball, by about (2 pi / segments)^2 / 3
        double exact = 4.0 / 3.0 * CN_PI;
        double h = 2.0 * CN_PI / (double)( segments < 8 ? 8 : segments );
        ck_assert( stats.volume < exact );
        ck_assert_msg( cntRelativeError( stats.volume, exact ) < 0.6 * h * h, "volume %.6f, exact %.6f",
                       stats.volume, exact );
        cntReport( m == 0 ? "sphere" : "ellipsoid", segments, meshes + m,
                   cntRelativeError( stats.volume, exact ) );
    }

    // the same unit mesh for both
    ck_assert_int_eq( meshes[0].vertexCount, meshes[1].vertexCount );
    ck_assert_int_eq( meshes[0].indexCount, meshes[1].indexCount );
    ck_assert( memcmp( meshes[0].vertices, meshes[1].vertices,
                       (size_t)meshes[0].vertexCount * sizeof( vwVertex ) ) == 0 );
    vwFreeMesh( meshes + 0 );
    vwFreeMesh( meshes + 1 );
}
END_TEST

// unit cube: 6 faces of 4 vertices, axis normals, volume 8 exactly
START_TEST( box_mesh )
{
    cnGeometry box;
    memset( &box, 0, sizeof( box ) );
    box.type = cn_boxShape;
    box.box.halfExtents = cnMakeVec3( 0.1, 2.0, 30.0 );

    vwMesh mesh;
    cntBuild( &box, cnt_segments[_i], &mesh );
    cntMeshStats stats = cntCheckMesh( &mesh, 0 );
    ck_assert_int_eq( mesh.vertexCount, 24 );
    ck_assert_int_eq( mesh.indexCount, 36 );
    ck_assert_int_eq( stats.positions, 8 );
    ck_assert_int_eq( stats.splitNormals, 8 ); // three normals at every corner
    ck_assert_int_eq( cntFlatTriangles( &mesh, 0, 12 ), 0 );
    ck_assert_int_eq( cntDistinctNormals( &mesh ), 6 );
    CNT_ASSERT_ABS( stats.volume, 8.0, 1e-12 );

    // corners at +-1; the normal is the axis of a coordinate at +-1, with its sign
    int bad = 0;
    for ( int i = 0; i < mesh.vertexCount; ++i )
    {
        const vwVertex* v = mesh.vertices + i;
        int axes = 0;
        for ( int k = 0; k < 3; ++k )
        {
            bad += fabs( v->position[k] ) == 1.0f ? 0 : 1;
            if ( v->normal[k] != 0.0f )
            {
                ++axes;
                bad += v->normal[k] == v->position[k] ? 0 : 1;
            }
        }
        bad += axes == 1 ? 0 : 1;
    }
    ck_assert_int_eq( bad, 0 );
    vwFreeMesh( &mesh );
    ck_assert_ptr_null( mesh.vertices );
}
END_TEST

// unit cylinder: side with radial normals, flat caps with their own vertices, volume near 2 pi
START_TEST( cylinder_mesh )
{
    int segments = cnt_segments[_i];
    int around = segments < 8 ? 8 : segments;
    cnGeometry cylinder;
    memset( &cylinder, 0, sizeof( cylinder ) );
    cylinder.type = cn_cylinderShape;
    cylinder.cylinder.radius = 0.2;
    cylinder.cylinder.halfLength = 5.0;

    vwMesh mesh;
    cntBuild( &cylinder, segments, &mesh );
    cntMeshStats stats = cntCheckMesh( &mesh, 0 );

    // the rims carry two normals (cap and side), nothing else does
    ck_assert_int_eq( stats.splitNormals, 2 * around );

    // caps: z = +-1 inside the unit circle, normal +-z; side: on the unit circle, radial normal
    int capVertices = 0, sideVertices = 0, bad = 0;
    double worst = 0.0;
    for ( int i = 0; i < mesh.vertexCount; ++i )
    {
        const vwVertex* v = mesh.vertices + i;
        cnVec3 p = cntPosition( v );
        cnVec3 n = cntNormal( v );
        double rho = sqrt( p.x * p.x + p.y * p.y );
        if ( n.x == 0.0 && n.y == 0.0 )
        {
            ++capVertices;
            bad += fabs( p.z ) == 1.0 && n.z == p.z && rho <= 1.0 + CNT_POSITION_TOLERANCE ? 0 : 1;
        }
        else
        {
            ++sideVertices;
            double error = cnLength( cnSub( n, cnMakeVec3( p.x / rho, p.y / rho, 0.0 ) ) );
            worst = fmax( worst, fmax( error, fabs( rho - 1.0 ) ) );
            bad += fabs( rho - 1.0 ) <= CNT_POSITION_TOLERANCE && error <= CNT_NORMAL_TOLERANCE &&
                           fabs( p.z ) == 1.0
                       ? 0
                       : 1;
        }
    }
    ck_assert_msg( bad == 0, "%d vertices off the cylinder or with a wrong normal (worst %.3g)", bad, worst );
    ck_assert_int_ge( capVertices, 2 * around );
    ck_assert_int_ge( sideVertices, 2 * around );

    // cap triangles are flat: every triangle whose corners all have the cap normal
    int capTriangles = 0, badCaps = 0;
    for ( int t = 0; t < mesh.indexCount / 3; ++t )
    {
        const uint32_t* v = mesh.indices + 3 * t;
        bool cap = true;
        for ( int k = 0; k < 3; ++k )
        {
            cap = cap && mesh.vertices[v[k]].normal[0] == 0.0f && mesh.vertices[v[k]].normal[1] == 0.0f;
        }
        if ( cap )
        {
            ++capTriangles;
            badCaps += cntFlatTriangles( &mesh, t, 1 );
        }
    }
    ck_assert_int_ge( capTriangles, 2 * ( around - 2 ) );
    ck_assert_int_eq( badCaps, 0 );

    // exactly the inscribed prism: height 2 times the n-gon's area n/2 sin(2 pi / n)
    double exact = 2.0 * CN_PI;
    double prism = 2.0 * ( 0.5 * (double)around * sin( 2.0 * CN_PI / (double)around ) );
    CNT_ASSERT_REL( stats.volume, prism, 1e-6 );
    cntReport( "cylinder", segments, &mesh, cntRelativeError( stats.volume, exact ) );
    vwFreeMesh( &mesh );
}
END_TEST

// ---------------------------------------------------------------------------------------------
// meshes per geometry

static const double cnt_capsules[][2] = {
    { 1.0, 1.0 },                // radius, half length
    { 0.3, 0.7 },  { 0.5, 0.0 }, // a sphere
    { 0.05, 4.0 }, { 2.0, 0.01 },
};
#define CNT_CAPSULE_COUNT ( (int)( sizeof( cnt_capsules ) / sizeof( cnt_capsules[0] ) ) )

static double cntCapsuleVolume( double r, double h )
{
    return CN_PI * r * r * 2.0 * h + 4.0 / 3.0 * CN_PI * r * r * r;
}

// capsules: on the surface at their true size, analytic smooth normals (so the hemispheres meet
// the side with the side's normal), closed (so they meet it at the same ring), volume
START_TEST( capsule_mesh )
{
    int segments = cnt_segments[_i];
    double h = 2.0 * CN_PI / (double)( segments < 8 ? 8 : segments );
    for ( int c = 0; c < CNT_CAPSULE_COUNT; ++c )
    {
        double r = cnt_capsules[c][0], halfLength = cnt_capsules[c][1];
        cnGeometry capsule;
        memset( &capsule, 0, sizeof( capsule ) );
        capsule.type = cn_capsuleShape;
        capsule.capsule.radius = r;
        capsule.capsule.halfLength = halfLength;

        vwMesh mesh;
        cntBuild( &capsule, segments, &mesh );
        cntMeshStats stats = cntCheckMesh( &mesh, 0 );
        ck_assert_int_eq( stats.splitNormals, 0 );

        cntSurfaceErrors errors;
        memset( &errors, 0, sizeof( errors ) );
        float top = -INFINITY, bottom = INFINITY;
        for ( int i = 0; i < mesh.vertexCount; ++i )
        {
            const vwVertex* v = mesh.vertices + i;
            cntAddSurfacePoint( &errors, v, cntCapsuleSurface( cntPosition( v ), r, halfLength ),
                                r + halfLength );
            top = fmaxf( top, v->position[2] );
            bottom = fminf( bottom, v->position[2] );
        }
        cntAssertSurface( &errors );

        // exact length: the poles are on the axis at +-(h + r)
        CNT_ASSERT_REL( top, halfLength + r, 1e-6 );
        CNT_ASSERT_REL( bottom, -( halfLength + r ), 1e-6 );

        double exact = cntCapsuleVolume( r, halfLength );
        ck_assert( stats.volume < exact );
        ck_assert_msg( cntRelativeError( stats.volume, exact ) < 0.6 * h * h,
                       "capsule %d: volume %.6g, exact %.6g", c, stats.volume, exact );
        if ( c == 1 )
        {
            cntReport( "capsule r 0.3 h 0.7", segments, &mesh, cntRelativeError( stats.volume, exact ) );
        }
        vwFreeMesh( &mesh );
    }
}
END_TEST

static const double cnt_tori[][2] = {
    { 1.0, 0.25 }, // major, minor
    { 2.0, 1.9 },
    { 0.5, 0.01 },
};
#define CNT_TORUS_COUNT ( (int)( sizeof( cnt_tori ) / sizeof( cnt_tori[0] ) ) )

// tori: on the surface, normals from the core circle, genus 1, volume near 2 pi^2 R r^2
START_TEST( torus_mesh )
{
    int segments = cnt_segments[_i];
    for ( int c = 0; c < CNT_TORUS_COUNT; ++c )
    {
        double major = cnt_tori[c][0], minor = cnt_tori[c][1];
        cnGeometry torus;
        memset( &torus, 0, sizeof( torus ) );
        torus.type = cn_torusShape;
        torus.torus.majorRadius = major;
        torus.torus.minorRadius = minor;

        vwMesh mesh;
        cntBuild( &torus, segments, &mesh );
        cntMeshStats stats = cntCheckMesh( &mesh, 1 );
        ck_assert_int_eq( stats.splitNormals, 0 );

        cntSurfaceErrors errors;
        memset( &errors, 0, sizeof( errors ) );
        double worstImplicit = 0.0;
        for ( int i = 0; i < mesh.vertexCount; ++i )
        {
            const vwVertex* v = mesh.vertices + i;
            cnVec3 p = cntPosition( v );
            cntAddSurfacePoint( &errors, v, cntTorusSurface( p, major, minor ), major + minor );

            // the implicit form too: (rho - R)^2 + z^2 = r^2
            double rho = sqrt( p.x * p.x + p.y * p.y );
            double implicit = ( rho - major ) * ( rho - major ) + p.z * p.z - minor * minor;
            worstImplicit = fmax( worstImplicit, fabs( implicit ) / ( minor * ( major + minor ) ) );
        }
        cntAssertSurface( &errors );
        ck_assert_msg( worstImplicit <= 4.0 * CNT_POSITION_TOLERANCE, "implicit residual %.3g",
                       worstImplicit );

        // the tube has at least 8 steps and half the segments
        double around = 2.0 * CN_PI / (double)( segments < 8 ? 8 : segments );
        double exact = 2.0 * CN_PI * CN_PI * major * minor * minor;
        ck_assert_msg( cntRelativeError( stats.volume, exact ) < 1.5 * around * around,
                       "torus %d: volume %.6g, exact %.6g", c, stats.volume, exact );
        if ( c == 0 )
        {
            cntReport( "torus R 1 r 0.25", segments, &mesh, cntRelativeError( stats.volume, exact ) );
        }
        vwFreeMesh( &mesh );
    }
}
END_TEST

// volume error of one shape at a detail level
static double cntVolumeError( const cnGeometry* geometry, int segments, double exact, int genus )
{
    vwMesh mesh;
    cntBuild( geometry, segments, &mesh );
    double error = cntRelativeError( cntCheckMesh( &mesh, genus ).volume, exact );
    vwFreeMesh( &mesh );
    return error;
}

// the volume error falls like 1 / segments^2: about 4 times per doubling
START_TEST( volumes_converge )
{
    cnGeometry shapes[5];
    double exact[5];
    memset( shapes, 0, sizeof( shapes ) );
    shapes[0].type = cn_sphereShape;
    shapes[0].sphere.radius = 1.0;
    exact[0] = 4.0 / 3.0 * CN_PI;
    shapes[1].type = cn_cylinderShape;
    shapes[1].cylinder.radius = 1.0;
    shapes[1].cylinder.halfLength = 1.0;
    exact[1] = 2.0 * CN_PI;
    shapes[2].type = cn_capsuleShape;
    shapes[2].capsule.radius = 0.3;
    shapes[2].capsule.halfLength = 0.7;
    exact[2] = cntCapsuleVolume( 0.3, 0.7 );
    shapes[3].type = cn_torusShape;
    shapes[3].torus.majorRadius = 1.0;
    shapes[3].torus.minorRadius = 0.25;
    exact[3] = 2.0 * CN_PI * CN_PI * 0.25 * 0.25;
    shapes[4].type = cn_ellipsoidShape;
    shapes[4].ellipsoid.radii = cnMakeVec3( 1.0, 2.0, 3.0 );
    exact[4] = 4.0 / 3.0 * CN_PI; // of the unit mesh

    static const char* names[5] = { "sphere", "cylinder", "capsule", "torus", "ellipsoid" };
    for ( int s = 0; s < 5; ++s )
    {
        double e16 = cntVolumeError( shapes + s, 16, exact[s], s == 3 ? 1 : 0 );
        double e32 = cntVolumeError( shapes + s, 32, exact[s], s == 3 ? 1 : 0 );
        double e64 = cntVolumeError( shapes + s, 64, exact[s], s == 3 ? 1 : 0 );
        double e128 = cntVolumeError( shapes + s, 128, exact[s], s == 3 ? 1 : 0 );
        if ( cntVerbose() )
        {
            printf( "  %-10s volume error 16: %.3e  32: %.3e  64: %.3e  128: %.3e\n", names[s], e16, e32, e64,
                    e128 );
        }
        ck_assert_msg( e32 < 0.3 * e16 && e64 < 0.3 * e32 && e128 < 0.3 * e64,
                       "%s: errors %.3g %.3g %.3g %.3g do not fall like 1/n^2", names[s], e16, e32, e64,
                       e128 );
        // the constant of the law: about 6.6 for the cylinder (n-gon area), 16 for the sphere, 33 for
        // the torus (its tube has n / 2 steps)
        ck_assert_msg( e128 * 128.0 * 128.0 < 40.0, "%s: error %.3g at 128 segments", names[s], e128 );
    }
}
END_TEST

// segments below 8 mean 8; more segments, more triangles; a huge count is capped, not overflowed
START_TEST( detail_levels )
{
    cnGeometry shapes[4];
    memset( shapes, 0, sizeof( shapes ) );
    shapes[0].type = cn_sphereShape;
    shapes[0].sphere.radius = 1.0;
    shapes[1].type = cn_cylinderShape;
    shapes[1].cylinder.radius = 1.0;
    shapes[1].cylinder.halfLength = 1.0;
    shapes[2].type = cn_capsuleShape;
    shapes[2].capsule.radius = 1.0;
    shapes[2].capsule.halfLength = 1.0;
    shapes[3].type = cn_torusShape;
    shapes[3].torus.majorRadius = 1.0;
    shapes[3].torus.minorRadius = 0.5;

    for ( int s = 0; s < 4; ++s )
    {
        vwMesh low, eight, more;
        cntBuild( shapes + s, -7, &low );
        cntBuild( shapes + s, 8, &eight );
        cntBuild( shapes + s, 24, &more );
        ck_assert_int_eq( low.vertexCount, eight.vertexCount );
        ck_assert_int_eq( low.indexCount, eight.indexCount );
        ck_assert( memcmp( low.vertices, eight.vertices, (size_t)low.vertexCount * sizeof( vwVertex ) ) ==
                   0 );
        ck_assert( memcmp( low.indices, eight.indices, (size_t)low.indexCount * sizeof( uint32_t ) ) == 0 );
        ck_assert_int_gt( more.vertexCount, eight.vertexCount );
        ck_assert_int_gt( more.indexCount, eight.indexCount );
        if ( cntVerbose() )
        {
            vwMesh m32;
            cntBuild( shapes + s, 32, &m32 );
            printf( "  type %d at 32 segments: %d vertices, %d triangles\n", (int)shapes[s].type,
                    m32.vertexCount, m32.indexCount / 3 );
            vwFreeMesh( &m32 );
        }
        vwFreeMesh( &low );
        vwFreeMesh( &eight );
        vwFreeMesh( &more );
    }

    // INT_MAX segments: capped, a valid mesh all the same
    vwMesh huge;
    cntBuild( shapes + 3, INT_MAX, &huge );
    ck_assert_int_gt( huge.vertexCount, 64 * 32 );
    cntMeshStats stats = cntCheckMesh( &huge, 1 );
    ck_assert_int_eq( stats.openEdges, 0 );
    vwFreeMesh( &huge );
}
END_TEST

// ---------------------------------------------------------------------------------------------
// hulls

typedef struct cntHullReport
{
    cntMeshStats stats;
    int faces;         // distinct normals: flat faces
    double worstAbove; // largest distance of an input point above a face, relative to the size
} cntHullReport;

// everything a hull mesh of `points` must satisfy
static cntHullReport cntCheckHullMesh( const vwMesh* mesh, const cnVec3* points, int count )
{
    cntHullReport report;
    memset( &report, 0, sizeof( report ) );
    report.stats = cntCheckMesh( mesh, 0 );
    ck_assert_int_eq( cntFlatTriangles( mesh, 0, mesh->indexCount / 3 ), 0 );
    report.faces = cntDistinctNormals( mesh );

    // the cloud's size
    double size = 0.0;
    for ( int i = 0; i < count; ++i )
    {
        for ( int j = 0; j < i; j += 7 )
        {
            size = fmax( size, cnLength( cnSub( points[i], points[j] ) ) );
        }
    }

    // every vertex is an input point
    int foreign = 0;
    for ( int i = 0; i < mesh->vertexCount; ++i )
    {
        const float* p = mesh->vertices[i].position;
        bool found = false;
        for ( int j = 0; j < count && found == false; ++j )
        {
            found = p[0] == (float)points[j].x && p[1] == (float)points[j].y && p[2] == (float)points[j].z;
        }
        foreign += found ? 0 : 1;
    }
    ck_assert_msg( foreign == 0, "%d vertices are not input points", foreign );

    // every input point below every face's plane, every corner on its face's plane
    int above = 0, offPlane = 0, inward = 0;
    cnVec3 centroid = cn_vec3Zero;
    for ( int i = 0; i < count; ++i )
    {
        centroid = cnMulAdd( centroid, 1.0 / (double)count, points[i] );
    }
    for ( int t = 0; t < mesh->indexCount / 3; ++t )
    {
        const uint32_t* v = mesh->indices + 3 * t;
        cnVec3 n = cntNormal( mesh->vertices + v[0] );
        cnVec3 a = cntPosition( mesh->vertices + v[0] );
        for ( int j = 0; j < count; ++j )
        {
            double distance = cnDot( n, cnSub( points[j], a ) ) / size;
            report.worstAbove = fmax( report.worstAbove, distance );
            above += distance <= 1e-5 ? 0 : 1;
        }
        for ( int k = 1; k < 3; ++k )
        {
            offPlane +=
                fabs( cnDot( n, cnSub( cntPosition( mesh->vertices + v[k] ), a ) ) ) <= 1e-5 * size ? 0 : 1;
        }
        inward += cnDot( n, cnSub( a, centroid ) ) > 0.0 ? 0 : 1;
    }
    ck_assert_msg( above == 0, "%d point-face pairs with the point above the face (worst %.3g)", above,
                   report.worstAbove );
    ck_assert_msg( offPlane == 0, "%d corners off their face's plane", offPlane );
    ck_assert_msg( inward == 0, "%d faces turn towards the centroid", inward );
    return report;
}

static bool cntBuildHull( const cnVec3* points, int count, vwMesh* mesh )
{
    cnGeometry hull;
    memset( &hull, 0, sizeof( hull ) );
    hull.type = cn_hullShape;
    hull.hull.points = points;
    hull.hull.pointCount = count;
    vwMeshDetail detail = { 32 };
    memset( mesh, 0x5a, sizeof( *mesh ) );
    return vwBuildMesh( &hull, detail, mesh );
}

// a box from its corners among lattice points, interior points and duplicates, off the origin:
// 6 faces of 4 corners, volume 8 a b c
START_TEST( hull_box )
{
    cntRandom random = { 17u + (uint64_t)_i };
    cnVec3 half = cnMakeVec3( 0.5, 1.0, 2.0 );
    cnVec3 offset = _i == 0 ? cn_vec3Zero : cnMakeVec3( 3.0, -2.0, 1.0 );
    cnVec3 points[27 + 40 + 8];
    int count = 0;
    for ( int i = -1; i <= 1; ++i )
    {
        for ( int j = -1; j <= 1; ++j )
        {
            for ( int k = -1; k <= 1; ++k )
            {
                points[count++] =
                    cnAdd( offset, cnMakeVec3( (double)i * half.x, (double)j * half.y, (double)k * half.z ) );
            }
        }
    }
    for ( int i = 0; i < 40; ++i )
    {
        cnVec3 u = cnMakeVec3( 2.0 * cntUniform( &random ) - 1.0, 2.0 * cntUniform( &random ) - 1.0,
                               2.0 * cntUniform( &random ) - 1.0 );
        // every third point on a face y = +-1 (on the second run 1e-12 outside it: within the
        // tolerance, so still no corner)
        if ( i % 3 == 0 )
        {
            double side = u.x > 0.0 ? 1.0 : -1.0;
            u.y = side * ( 1.0 + ( _i == 1 ? 1e-12 : 0.0 ) );
        }
        points[count++] = cnAdd( offset, cnMulComponents( u, half ) );
    }
    for ( int i = 0; i < 8; ++i )
    {
        points[count++] = points[2 * i]; // duplicates
    }
    cntShuffle( &random, points, count );

    vwMesh mesh;
    ck_assert( cntBuildHull( points, count, &mesh ) );
    cntHullReport report = cntCheckHullMesh( &mesh, points, count );
    ck_assert_int_eq( report.faces, 6 );
    ck_assert_int_eq( mesh.vertexCount, 24 );
    ck_assert_int_eq( mesh.indexCount, 36 );
    ck_assert_int_eq( report.stats.positions, 8 );
    CNT_ASSERT_REL( report.stats.volume, 8.0 * half.x * half.y * half.z, 1e-6 );

    // the normals are the axes
    int bad = 0;
    for ( int i = 0; i < mesh.vertexCount; ++i )
    {
        const float* n = mesh.vertices[i].normal;
        int ones = 0, zeros = 0;
        for ( int k = 0; k < 3; ++k )
        {
            ones += fabsf( n[k] ) == 1.0f ? 1 : 0;
            zeros += n[k] == 0.0f ? 1 : 0;
        }
        bad += ones == 1 && zeros == 2 ? 0 : 1;
    }
    ck_assert_int_eq( bad, 0 );
    vwFreeMesh( &mesh );
}
END_TEST

// a tetrahedron with points inside and on its faces: 4 faces, 12 vertices, exact volume and
// the analytic face normals
START_TEST( hull_tetrahedron )
{
    cntRandom random = { 5u };
    cnVec3 corners[4] = { { 0.0, 0.0, 0.0 }, { 2.0, 0.0, 0.0 }, { 0.0, 1.0, 0.0 }, { 0.3, 0.2, 1.5 } };
    cnVec3 points[4 + 60];
    int count = 0;
    for ( int k = 0; k < 4; ++k )
    {
        points[count++] = corners[k];
    }
    for ( int i = 0; i < 60; ++i )
    {
        // barycentric weights; every other point on a face (one weight zero)
        double w[4], sum = 0.0;
        for ( int k = 0; k < 4; ++k )
        {
            w[k] = cntUniform( &random ) + 0.01;
        }
        if ( i % 2 == 0 )
        {
            w[i % 4] = 0.0;
        }
        for ( int k = 0; k < 4; ++k )
        {
            sum += w[k];
        }
        cnVec3 p = cn_vec3Zero;
        for ( int k = 0; k < 4; ++k )
        {
            p = cnMulAdd( p, w[k] / sum, corners[k] );
        }
        points[count++] = p;
    }
    cntShuffle( &random, points, count );

    vwMesh mesh;
    ck_assert( cntBuildHull( points, count, &mesh ) );
    cntHullReport report = cntCheckHullMesh( &mesh, points, count );
    ck_assert_int_eq( report.faces, 4 );
    ck_assert_int_eq( mesh.vertexCount, 12 );
    ck_assert_int_eq( mesh.indexCount, 12 );
    double exact =
        fabs( cnDot( cnSub( corners[1], corners[0] ),
                     cnCross( cnSub( corners[2], corners[0] ), cnSub( corners[3], corners[0] ) ) ) ) /
        6.0;
    CNT_ASSERT_REL( report.stats.volume, exact, 1e-6 );

    // each normal is the outward normal of the face opposite one corner
    int bad = 0;
    for ( int i = 0; i < mesh.vertexCount; ++i )
    {
        cnVec3 n = cntNormal( mesh.vertices + i );
        bool matched = false;
        for ( int k = 0; k < 4; ++k )
        {
            cnVec3 a = corners[( k + 1 ) % 4], b = corners[( k + 2 ) % 4], c = corners[( k + 3 ) % 4];
            cnVec3 face = cnNormalize( cnCross( cnSub( b, a ), cnSub( c, a ) ) );
            face = cnDot( face, cnSub( corners[k], a ) ) > 0.0 ? cnNeg( face ) : face;
            matched = matched || cnLength( cnSub( face, n ) ) <= CNT_NORMAL_TOLERANCE;
        }
        bad += matched ? 0 : 1;
    }
    ck_assert_int_eq( bad, 0 );
    vwFreeMesh( &mesh );
}
END_TEST

// a prism over a regular heptagon, with points on its caps and sides: 9 flat faces (the caps are
// 7-gons split into triangles that must be merged), volume 2 x the heptagon's area
START_TEST( hull_prism )
{
    enum
    {
        sides = 7
    };
    cnVec3 points[2 * sides + 2 * sides + 2];
    int count = 0;
    for ( int k = 0; k < sides; ++k )
    {
        double angle = 2.0 * CN_PI * (double)k / (double)sides;
        double next = 2.0 * CN_PI * (double)( k + 1 ) / (double)sides;
        points[count++] = cnMakeVec3( cos( angle ), sin( angle ), 1.0 );
        points[count++] = cnMakeVec3( cos( angle ), sin( angle ), -1.0 );
        // mid-edge of the caps, and a point in the middle of a side
        points[count++] =
            cnMakeVec3( 0.5 * ( cos( angle ) + cos( next ) ), 0.5 * ( sin( angle ) + sin( next ) ), 1.0 );
        points[count++] =
            cnMakeVec3( 0.5 * ( cos( angle ) + cos( next ) ), 0.5 * ( sin( angle ) + sin( next ) ), 0.0 );
    }
    points[count++] = cnMakeVec3( 0.0, 0.0, 1.0 );
    points[count++] = cnMakeVec3( 0.1, -0.2, -1.0 );

    vwMesh mesh;
    ck_assert( cntBuildHull( points, count, &mesh ) );
    cntHullReport report = cntCheckHullMesh( &mesh, points, count );
    ck_assert_int_eq( report.faces, sides + 2 );
    ck_assert_int_eq( report.stats.positions, 2 * sides );
    ck_assert_int_eq( mesh.vertexCount, 2 * sides + 4 * sides );
    ck_assert_int_eq( mesh.indexCount, 3 * ( 2 * ( sides - 2 ) + 2 * sides ) );
    double area = 0.5 * (double)sides * sin( 2.0 * CN_PI / (double)sides );
    CNT_ASSERT_REL( report.stats.volume, 2.0 * area, 1e-6 );
    vwFreeMesh( &mesh );
}
END_TEST

// the engine's hull (collision/hull.c, quickhull with exact predicates) as the reference
static void cntCompareWithEngine( const vwMesh* mesh, const cntHullReport* report, const cnVec3* points,
                                  int count )
{
    cnHull reference;
    ck_assert_int_eq( cnComputeHull( points, count, NULL, &reference, NULL, 0 ), cn_statusOk );
    double volume = cnHullMass( &reference, 1.0 ).mass;
    if ( cntVerbose() )
    {
        printf( "  hull of %d points: %d vertices (engine %d), %d triangles, volume %.9f (engine %.9f)\n",
                count, report->stats.positions, reference.vertexCount, mesh->indexCount / 3,
                report->stats.volume, volume );
    }
    CNT_ASSERT_REL( report->stats.volume, volume, 1e-5 );

    // the same corners
    ck_assert_int_eq( report->stats.positions, reference.vertexCount );
    int missing = 0;
    for ( int i = 0; i < reference.vertexCount; ++i )
    {
        cnVec3 r = reference.vertices[i];
        bool found = false;
        for ( int j = 0; j < mesh->vertexCount && found == false; ++j )
        {
            const float* p = mesh->vertices[j].position;
            found = p[0] == (float)r.x && p[1] == (float)r.y && p[2] == (float)r.z;
        }
        missing += found ? 0 : 1;
    }
    ck_assert_msg( missing == 0, "%d of the engine's hull vertices are missing", missing );
    cnDestroyHull( &reference, NULL );
}

// points on a sphere (all of them corners) and in a ball (most inside): the engine's hull
START_TEST( hull_random_clouds )
{
    cntRandom random = { 1234u + (uint64_t)_i };
    int count = _i == 0 ? 200 : 500;
    cnVec3* points = malloc( (size_t)count * sizeof( cnVec3 ) );
    ck_assert_ptr_nonnull( points );
    cnVec3 centre = cnMakeVec3( 0.5, -1.0, 2.0 );
    for ( int i = 0; i < count; ++i )
    {
        double radius = _i == 0 ? 1.5 : 1.5 * cbrt( cntUniform( &random ) );
        points[i] = cnMulAdd( centre, radius, cntDirection( &random ) );
    }

    vwMesh mesh;
    ck_assert( cntBuildHull( points, count, &mesh ) );
    cntHullReport report = cntCheckHullMesh( &mesh, points, count );
    if ( _i == 0 )
    {
        ck_assert_int_eq( report.stats.positions, count ); // every point on the sphere is a corner
    }
    cntCompareWithEngine( &mesh, &report, points, count );
    vwFreeMesh( &mesh );
    free( points );
}
END_TEST

// a cylinder's point cloud: many coplanar points on the caps, which must become one face each
START_TEST( hull_coplanar_caps )
{
    enum
    {
        around = 24,
        rings = 5
    };
    cnVec3 points[around * rings];
    int count = 0;
    for ( int r = 0; r < rings; ++r )
    {
        double z = -1.0 + 2.0 * (double)r / (double)( rings - 1 );
        for ( int k = 0; k < around; ++k )
        {
            double angle = 2.0 * CN_PI * (double)k / (double)around;
            points[count++] = cnMakeVec3( 0.7 * cos( angle ), 0.7 * sin( angle ), z );
        }
    }

    vwMesh mesh;
    ck_assert( cntBuildHull( points, count, &mesh ) );
    cntHullReport report = cntCheckHullMesh( &mesh, points, count );
    ck_assert_int_eq( report.faces, around + 2 );
    ck_assert_int_eq( report.stats.positions, 2 * around );
    cntCompareWithEngine( &mesh, &report, points, count );

    // one vertex per cap corner with the cap normal
    int top = 0, bottom = 0;
    for ( int i = 0; i < mesh.vertexCount; ++i )
    {
        const float* n = mesh.vertices[i].normal;
        top += n[0] == 0.0f && n[1] == 0.0f && n[2] == 1.0f ? 1 : 0;
        bottom += n[0] == 0.0f && n[1] == 0.0f && n[2] == -1.0f ? 1 : 0;
    }
    ck_assert_int_eq( top, around );
    ck_assert_int_eq( bottom, around );
    vwFreeMesh( &mesh );
}
END_TEST

// ---------------------------------------------------------------------------------------------
// keys, scales and refusals

static void cntAssertScale( const cnGeometry* geometry, double x, double y, double z )
{
    float scale[3] = { -1.0f, -1.0f, -1.0f };
    vwMeshScale( geometry, scale );
    ck_assert( scale[0] == (float)x && scale[1] == (float)y && scale[2] == (float)z );
}

START_TEST( keys_and_scales )
{
    // capsules and tori: a key per size
    cnGeometry a = cntCapsuleGeometry( 0.5, 1.0 ), b = cntCapsuleGeometry( 0.5, 2.0 ),
               c = cntCapsuleGeometry( 0.5, 1.0 );
    ck_assert( vwMeshKeyEqual( vwMeshKeyOf( &a ), vwMeshKeyOf( &c ) ) );
    ck_assert( vwMeshKeyEqual( vwMeshKeyOf( &a ), vwMeshKeyOf( &b ) ) == false );
    b = cntCapsuleGeometry( 0.6, 1.0 );
    ck_assert( vwMeshKeyEqual( vwMeshKeyOf( &a ), vwMeshKeyOf( &b ) ) == false );
    cntAssertScale( &a, 1.0, 1.0, 1.0 );

    cnGeometry t1, t2;
    memset( &t1, 0, sizeof( t1 ) );
    t1.type = cn_torusShape;
    t1.torus.majorRadius = 1.0;
    t1.torus.minorRadius = 0.2;
    t2 = t1;
    ck_assert( vwMeshKeyEqual( vwMeshKeyOf( &t1 ), vwMeshKeyOf( &t2 ) ) );
    t2.torus.minorRadius = 0.3;
    ck_assert( vwMeshKeyEqual( vwMeshKeyOf( &t1 ), vwMeshKeyOf( &t2 ) ) == false );
    cntAssertScale( &t1, 1.0, 1.0, 1.0 );

    // boxes: one key, the half extents as scale, the same mesh
    cnGeometry box1 = cntBoxGeometry( 1.0, 2.0, 3.0 ), box2 = cntBoxGeometry( 0.25, 0.5, 7.0 );
    ck_assert( vwMeshKeyEqual( vwMeshKeyOf( &box1 ), vwMeshKeyOf( &box2 ) ) );
    cntAssertScale( &box1, 1.0, 2.0, 3.0 );
    cntAssertScale( &box2, 0.25, 0.5, 7.0 );
    vwMesh m1, m2;
    cntBuild( &box1, 16, &m1 );
    cntBuild( &box2, 16, &m2 );
    ck_assert_int_eq( m1.vertexCount, m2.vertexCount );
    ck_assert( memcmp( m1.vertices, m2.vertices, (size_t)m1.vertexCount * sizeof( vwVertex ) ) == 0 );
    vwFreeMesh( &m1 );
    vwFreeMesh( &m2 );

    // spheres, ellipsoids, cylinders: the type is the key
    cnGeometry s1, s2, e, cyl1, cyl2;
    memset( &s1, 0, sizeof( s1 ) );
    s1.type = cn_sphereShape;
    s1.sphere.radius = 0.5;
    s2 = s1;
    s2.sphere.radius = 3.0;
    memset( &e, 0, sizeof( e ) );
    e.type = cn_ellipsoidShape;
    e.ellipsoid.radii = cnMakeVec3( 1.0, 2.0, 3.0 );
    memset( &cyl1, 0, sizeof( cyl1 ) );
    cyl1.type = cn_cylinderShape;
    cyl1.cylinder.radius = 0.5;
    cyl1.cylinder.halfLength = 2.0;
    cyl2 = cyl1;
    cyl2.cylinder.radius = 1.5;
    ck_assert( vwMeshKeyEqual( vwMeshKeyOf( &s1 ), vwMeshKeyOf( &s2 ) ) );
    ck_assert( vwMeshKeyEqual( vwMeshKeyOf( &cyl1 ), vwMeshKeyOf( &cyl2 ) ) );
    ck_assert( vwMeshKeyEqual( vwMeshKeyOf( &s1 ), vwMeshKeyOf( &e ) ) == false );
    ck_assert( vwMeshKeyEqual( vwMeshKeyOf( &s1 ), vwMeshKeyOf( &box1 ) ) == false );
    cntAssertScale( &s2, 3.0, 3.0, 3.0 );
    cntAssertScale( &e, 1.0, 2.0, 3.0 );
    cntAssertScale( &cyl1, 0.5, 0.5, 2.0 );

    // hulls: the points' values, not their address
    cnVec3 p1[4] = { { 0, 0, 0 }, { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 } };
    cnVec3 p2[4] = { { 0, 0, 0 }, { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 } };
    cnGeometry h1, h2;
    memset( &h1, 0, sizeof( h1 ) );
    h1.type = cn_hullShape;
    h1.hull.points = p1;
    h1.hull.pointCount = 4;
    h2 = h1;
    h2.hull.points = p2;
    ck_assert( vwMeshKeyEqual( vwMeshKeyOf( &h1 ), vwMeshKeyOf( &h2 ) ) );
    p2[3].z = nextafter( 1.0, 2.0 );
    ck_assert( vwMeshKeyEqual( vwMeshKeyOf( &h1 ), vwMeshKeyOf( &h2 ) ) == false );
    p2[3].z = 1.0;
    h2.hull.pointCount = 3;
    ck_assert( vwMeshKeyEqual( vwMeshKeyOf( &h1 ), vwMeshKeyOf( &h2 ) ) == false );
    cntAssertScale( &h1, 1.0, 1.0, 1.0 );

    // a capsule's key is not a hull's or a torus's with the same numbers
    cnGeometry ct = t1;
    cnGeometry cc = cntCapsuleGeometry( 1.0, 0.2 );
    ck_assert( vwMeshKeyEqual( vwMeshKeyOf( &ct ), vwMeshKeyOf( &cc ) ) == false );

    // no geometry: scale 1
    cntAssertScale( NULL, 1.0, 1.0, 1.0 );
    vwMeshScale( &s1, NULL );
}
END_TEST

// every bad input: false and an empty mesh, whatever the mesh held before
START_TEST( bad_input_is_refused )
{
    cnVec3 flat[6] = { { 0, 0, 0 }, { 1, 0, 0 }, { 0, 1, 0 }, { 1, 1, 0 }, { 0.5, 0.2, 1e-12 }, { 2, 3, 0 } };
    cnVec3 line[5] = { { 0, 0, 0 }, { 1, 1, 1 }, { 2, 2, 2 }, { 3, 3, 3 }, { -1, -1, -1 } };
    cnVec3 same[4] = { { 1, 2, 3 }, { 1, 2, 3 }, { 1, 2, 3 }, { 1, 2, 3 } };
    cnVec3 nan[4] = { { 0, 0, 0 }, { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, NAN } };
    cnVec3 tetra[4] = { { 0, 0, 0 }, { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 } };

    cnGeometry bad[24];
    memset( bad, 0, sizeof( bad ) );
    int count = 0;
    bad[count].type = cn_planeShape;
    bad[count++].plane.normal = cnMakeVec3( 0, 0, 1 );
    bad[count].type = cn_sphereShape;
    bad[count++].sphere.radius = 0.0;
    bad[count].type = cn_sphereShape;
    bad[count++].sphere.radius = -1.0;
    bad[count].type = cn_sphereShape;
    bad[count++].sphere.radius = NAN;
    bad[count++] = cntBoxGeometry( 1.0, 0.0, 1.0 );
    bad[count++] = cntBoxGeometry( -1.0, 1.0, 1.0 );
    bad[count++] = cntBoxGeometry( 1.0, 1.0, INFINITY );
    bad[count].type = cn_ellipsoidShape;
    bad[count++].ellipsoid.radii = cnMakeVec3( 1.0, 1.0, 0.0 );
    bad[count++] = cntCapsuleGeometry( 0.0, 1.0 );
    bad[count++] = cntCapsuleGeometry( 1.0, -0.5 );
    bad[count].type = cn_cylinderShape;
    bad[count].cylinder.radius = 1.0;
    bad[count++].cylinder.halfLength = 0.0;
    bad[count].type = cn_cylinderShape;
    bad[count].cylinder.radius = -1.0;
    bad[count++].cylinder.halfLength = 1.0;
    bad[count].type = cn_torusShape;
    bad[count].torus.majorRadius = 1.0;
    bad[count++].torus.minorRadius = 1.0; // not a ring torus
    bad[count].type = cn_torusShape;
    bad[count].torus.majorRadius = 1.0;
    bad[count++].torus.minorRadius = 0.0;
    bad[count].type = cn_torusShape;
    bad[count].torus.majorRadius = -2.0;
    bad[count++].torus.minorRadius = 0.5;
    cnVec3* clouds[6] = { flat, line, same, nan, tetra, NULL };
    int cloudCounts[6] = { 6, 5, 4, 4, 3, 4 };
    for ( int k = 0; k < 6; ++k )
    {
        bad[count].type = cn_hullShape;
        bad[count].hull.points = clouds[k];
        bad[count++].hull.pointCount = cloudCounts[k];
    }
    bad[count++].type = cn_shapeTypeCount;

    int accepted = 0, notEmpty = 0;
    for ( int k = 0; k < count; ++k )
    {
        vwMesh mesh;
        memset( &mesh, 0x5a, sizeof( mesh ) );
        vwMeshDetail detail = { 16 };
        bool ok = vwBuildMesh( bad + k, detail, &mesh );
        accepted += ok ? 1 : 0;
        notEmpty +=
            mesh.vertices == NULL && mesh.indices == NULL && mesh.vertexCount == 0 && mesh.indexCount == 0
                ? 0
                : 1;
        if ( ok )
        {
            fprintf( stderr, "bad input %d (type %d) accepted\n", k, (int)bad[k].type );
            vwFreeMesh( &mesh );
        }
    }
    ck_assert_int_eq( accepted, 0 );
    ck_assert_int_eq( notEmpty, 0 );

    // NULL geometry, NULL mesh
    vwMesh mesh;
    memset( &mesh, 0x5a, sizeof( mesh ) );
    vwMeshDetail detail = { 16 };
    ck_assert( vwBuildMesh( NULL, detail, &mesh ) == false );
    ck_assert_ptr_null( mesh.vertices );
    ck_assert_int_eq( mesh.indexCount, 0 );
    ck_assert( vwBuildMesh( bad + 1, detail, NULL ) == false );

    // the good tetrahedron still works, and freeing twice is harmless
    cnGeometry good;
    memset( &good, 0, sizeof( good ) );
    good.type = cn_hullShape;
    good.hull.points = tetra;
    good.hull.pointCount = 4;
    ck_assert( vwBuildMesh( &good, detail, &mesh ) );
    ck_assert_int_eq( mesh.vertexCount, 12 );
    vwFreeMesh( &mesh );
    ck_assert( mesh.vertices == NULL && mesh.indices == NULL && mesh.vertexCount == 0 &&
               mesh.indexCount == 0 );
    vwFreeMesh( &mesh );
    vwFreeMesh( NULL );

    // keys of nothing and of planes
    ck_assert_int_eq( (int)vwMeshKeyOf( NULL ).type, (int)cn_shapeTypeCount );
    ck_assert_int_eq( (int)vwMeshKeyOf( bad + 0 ).type, (int)cn_planeShape );
}
END_TEST

static Suite* cntMeshSuite( void )
{
    Suite* suite = suite_create( "viewer_mesh" );

    TCase* unit = tcase_create( "unit_meshes" );
    tcase_add_loop_test( unit, sphere_mesh, 0, CNT_SEGMENT_LEVELS );
    tcase_add_loop_test( unit, box_mesh, 0, CNT_SEGMENT_LEVELS );
    tcase_add_loop_test( unit, cylinder_mesh, 0, CNT_SEGMENT_LEVELS );
    suite_add_tcase( suite, unit );

    TCase* sized = tcase_create( "sized_meshes" );
    tcase_add_loop_test( sized, capsule_mesh, 0, CNT_SEGMENT_LEVELS );
    tcase_add_loop_test( sized, torus_mesh, 0, CNT_SEGMENT_LEVELS );
    tcase_add_test( sized, volumes_converge );
    tcase_add_test( sized, detail_levels );
    suite_add_tcase( suite, sized );

    TCase* hulls = tcase_create( "hulls" );
    tcase_set_timeout( hulls, 60.0 );
    tcase_add_loop_test( hulls, hull_box, 0, 2 );
    tcase_add_test( hulls, hull_tetrahedron );
    tcase_add_test( hulls, hull_prism );
    tcase_add_loop_test( hulls, hull_random_clouds, 0, 2 );
    tcase_add_test( hulls, hull_coplanar_caps );
    suite_add_tcase( suite, hulls );

    TCase* keys = tcase_create( "keys" );
    tcase_add_test( keys, keys_and_scales );
    tcase_add_test( keys, bad_input_is_refused );
    suite_add_tcase( suite, keys );
    return suite;
}

int main( void )
{
    static cntSuiteFcn* const suites[] = {
        cntMeshSuite,
    };
    return cntRunSuites( suites, (int)( sizeof( suites ) / sizeof( suites[0] ) ) );
}
