// SPDX-License-Identifier: MIT
// Triangle meshes of the shapes for the viewer (see mesh.h).
//
// Curved shapes are surfaces of revolution about z, built by one routine (vwAddLathe): a profile
// of points in the (rho, z) half-plane, each with its unit normal, is swept around z in
// `segments` steps. A profile point on the axis (rho = 0) is a pole and gets one vertex; the
// others get a ring. Consecutive profile points are joined by a band of quads (two triangles
// each) or, next to a pole, by a fan. The profile runs so that the outward normal is its tangent
// turned by +90 degrees in the (rho, z) plane (down the outside, like a meridian from the north
// pole); the bands are then counter-clockwise seen from outside.
// - sphere: a capsule profile with no core segment;
// - capsule: pole, quarter circle, equator at z = +h, equator at z = -h, quarter circle, pole.
//   Both hemispheres end in the ring the side starts from, so positions and normals match
//   exactly (when h = 0 the two equators are one ring);
// - cylinder: three profiles (top disc, side, bottom disc), so the rims have two vertices each,
//   one with the cap normal and one with the side normal;
// - torus: a closed profile, the tube circle.
// Rings of latitude: a quarter circle gets max(2, segments / 4) steps, so a sphere has about
// segments / 2 bands; the torus tube gets max(8, segments / 2) steps. `segments` is clamped to
// [8, 1024], which keeps every count inside an int.
//
// Hulls: the viewer sees only the public API, so it builds the hull itself, incrementally
// (beneath-beyond) over triangles with adjacency, in double precision on the points centred on
// their bounding box:
// 1. an initial tetrahedron from extreme points (the farthest pair among the axis extremes, the
//    point farthest from their line, the point farthest from that plane); a cloud whose line or
//    plane distance is within the tolerance has no volume and is refused;
// 2. the other points, farthest from the tetrahedron's centroid first (likely corners come before
//    points that end up inside), are added one by one: the faces the point sees (more than the
//    tolerance above their plane) are found by a search from the face it sees most, their
//    boundary (the horizon) must be one simple loop, and they are replaced by a fan of triangles
//    from the point to the horizon. A point that sees no face is inside (or within the tolerance
//    of the surface) and is dropped. A horizon that is not one loop (impossible in exact
//    arithmetic, conceivable with a tolerance on nearly degenerate input) drops the point too.
// 3. triangles are grouped into flat faces: starting from the largest triangle not yet in a face,
//    neighbours whose corners lie within the tolerance of the seed's plane join it. Each
//    face gets the area-weighted mean normal of its triangles and its own copies of its vertices.
// 4. a point that came in before the corners around it can stay a vertex in the middle of a flat
//    face or of an edge. Corners are the vertices where three or more flat faces meet; while some
//    vertex is not one, the hull is built again from the corners alone (each pass drops a point,
//    and at most VW_HULL_MAX_PASSES are made; a pass that fails keeps the previous hull).
// Tolerance: 1e-8 of the cloud's largest extent, for the construction and the flat faces alike
// (the engine's hull uses the same figure, so both refuse the same flat clouds). A looser one for
// the faces would merge real faces of thin hulls (a plate 1e-5 as thick as it is wide).
// A new triangle is at least the tolerance high over its base edge (its point is that far above
// the visible face through the edge), so no triangle is degenerate and every plane is well defined.
// O(n x faces) work, fine for the few hundred points of a viewer's hull.

#include "mesh.h"

#include "cairn/math.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define VW_MIN_SEGMENTS 8
#define VW_MAX_SEGMENTS 1024

// hull tolerance, relative to the cloud's largest extent (see the note at the top)
#define VW_HULL_TOLERANCE 1e-8

// keeps every face and index count of a hull inside an int
#define VW_HULL_MAX_POINTS ( 1 << 24 )

// rebuilds from the corners alone (step 4), at most
#define VW_HULL_MAX_PASSES 8

// ---------------------------------------------------------------------------------------------
// keys and scales

// FNV-1a over the bytes of the coordinates (least significant byte first, whatever the machine)
static uint64_t vwHashPoints( const cnVec3* points, int count )
{
    uint64_t hash = UINT64_C( 14695981039346656037 );
    if ( points == NULL || count <= 0 )
    {
        return hash;
    }
    for ( int i = 0; i < count; ++i )
    {
        double coordinates[3] = { points[i].x, points[i].y, points[i].z };
        for ( int k = 0; k < 3; ++k )
        {
            // -0 and +0 are the same point
            double value = coordinates[k] + 0.0;
            uint64_t bits;
            memcpy( &bits, &value, sizeof( bits ) );
            for ( int byte = 0; byte < 8; ++byte )
            {
                hash ^= ( bits >> ( 8 * byte ) ) & 0xffu;
                hash *= UINT64_C( 1099511628211 );
            }
        }
    }
    return hash;
}

vwMeshKey vwMeshKeyOf( const cnGeometry* geometry )
{
    vwMeshKey key;
    memset( &key, 0, sizeof( key ) );
    if ( geometry == NULL )
    {
        key.type = cn_shapeTypeCount;
        return key;
    }

    key.type = geometry->type;
    switch ( geometry->type )
    {
        case cn_capsuleShape:
            key.a = geometry->capsule.radius;
            key.b = geometry->capsule.halfLength;
            break;

        case cn_torusShape:
            key.a = geometry->torus.majorRadius;
            key.b = geometry->torus.minorRadius;
            break;

        case cn_hullShape:
            key.hash = vwHashPoints( geometry->hull.points, geometry->hull.pointCount );
            break;

        default:
            break;
    }
    return key;
}

bool vwMeshKeyEqual( vwMeshKey a, vwMeshKey b )
{
    return a.type == b.type && a.a == b.a && a.b == b.b && a.hash == b.hash;
}

void vwMeshScale( const cnGeometry* geometry, float scale[3] )
{
    if ( scale == NULL )
    {
        return;
    }
    double s[3] = { 1.0, 1.0, 1.0 };
    if ( geometry != NULL )
    {
        switch ( geometry->type )
        {
            case cn_sphereShape:
                s[0] = s[1] = s[2] = geometry->sphere.radius;
                break;

            case cn_ellipsoidShape:
                s[0] = geometry->ellipsoid.radii.x;
                s[1] = geometry->ellipsoid.radii.y;
                s[2] = geometry->ellipsoid.radii.z;
                break;

            case cn_boxShape:
                s[0] = geometry->box.halfExtents.x;
                s[1] = geometry->box.halfExtents.y;
                s[2] = geometry->box.halfExtents.z;
                break;

            case cn_cylinderShape:
                s[0] = s[1] = geometry->cylinder.radius;
                s[2] = geometry->cylinder.halfLength;
                break;

            default:
                break;
        }
    }
    for ( int k = 0; k < 3; ++k )
    {
        scale[k] = (float)s[k];
    }
}

// ---------------------------------------------------------------------------------------------
// the mesh under construction: arrays sized up front, filled in order

typedef struct vwMeshWriter
{
    vwMesh* mesh;
    int vertexCapacity;
    int indexCapacity;
    bool overflow; // a bug guard: more was written than was counted
} vwMeshWriter;

static bool vwBeginMesh( vwMeshWriter* writer, vwMesh* mesh, int vertexCount, int indexCount )
{
    writer->mesh = mesh;
    writer->vertexCapacity = vertexCount;
    writer->indexCapacity = indexCount;
    writer->overflow = false;
    memset( mesh, 0, sizeof( *mesh ) );
    if ( vertexCount <= 0 || indexCount <= 0 )
    {
        return false;
    }
    mesh->vertices = malloc( (size_t)vertexCount * sizeof( vwVertex ) );
    mesh->indices = malloc( (size_t)indexCount * sizeof( uint32_t ) );
    if ( mesh->vertices == NULL || mesh->indices == NULL )
    {
        vwFreeMesh( mesh );
        return false;
    }
    return true;
}

static int vwAddVertex( vwMeshWriter* writer, cnVec3 position, cnVec3 normal )
{
    vwMesh* mesh = writer->mesh;
    if ( mesh->vertexCount >= writer->vertexCapacity )
    {
        writer->overflow = true;
        return 0;
    }
    vwVertex* vertex = mesh->vertices + mesh->vertexCount;
    vertex->position[0] = (float)position.x;
    vertex->position[1] = (float)position.y;
    vertex->position[2] = (float)position.z;
    vertex->normal[0] = (float)normal.x;
    vertex->normal[1] = (float)normal.y;
    vertex->normal[2] = (float)normal.z;
    return mesh->vertexCount++;
}

// counter-clockwise seen from outside
static void vwAddTriangle( vwMeshWriter* writer, int a, int b, int c )
{
    vwMesh* mesh = writer->mesh;
    if ( mesh->indexCount + 3 > writer->indexCapacity )
    {
        writer->overflow = true;
        return;
    }
    uint32_t* index = mesh->indices + mesh->indexCount;
    index[0] = (uint32_t)a;
    index[1] = (uint32_t)b;
    index[2] = (uint32_t)c;
    mesh->indexCount += 3;
}

// true when exactly what was counted was written; otherwise the mesh is freed
static bool vwEndMesh( vwMeshWriter* writer )
{
    vwMesh* mesh = writer->mesh;
    if ( writer->overflow || mesh->vertexCount != writer->vertexCapacity ||
         mesh->indexCount != writer->indexCapacity )
    {
        vwFreeMesh( mesh );
        return false;
    }
    return true;
}

// ---------------------------------------------------------------------------------------------
// surfaces of revolution

// a point of a profile in the (rho, z) half-plane with its unit normal; rho = 0 is a pole
typedef struct vwProfilePoint
{
    double rho;
    double z;
    double normalRho;
    double normalZ;
} vwProfilePoint;

static vwProfilePoint vwMakeProfilePoint( double rho, double z, double normalRho, double normalZ )
{
    vwProfilePoint point = { rho, z, normalRho, normalZ };
    return point;
}

static bool vwIsPole( const vwProfilePoint* point )
{
    return point->rho <= 0.0;
}

// cos and sin of the j-th of `segments` steps around the circle
static void vwCircle( int j, int segments, double* c, double* s )
{
    double angle = 2.0 * CN_PI * (double)j / (double)segments;
    *c = cos( angle );
    *s = sin( angle );
}

// vertices and indices of a lathe, added to the counts
static void vwLatheSize( const vwProfilePoint* profile, int count, bool closed, int segments,
                         int* vertexCount, int* indexCount )
{
    for ( int k = 0; k < count; ++k )
    {
        *vertexCount += vwIsPole( profile + k ) ? 1 : segments;
    }
    int bands = closed ? count : count - 1;
    for ( int k = 0; k < bands; ++k )
    {
        bool fan = vwIsPole( profile + k ) || vwIsPole( profile + ( k + 1 ) % count );
        *indexCount += ( fan ? 3 : 6 ) * segments;
    }
}

// sweep the profile around z; a closed profile also joins its last point to its first
static void vwAddLathe( vwMeshWriter* writer, const vwProfilePoint* profile, int count, bool closed,
                        int segments )
{
    // rings (or poles) in profile order
    int base = writer->mesh->vertexCount;
    for ( int k = 0; k < count; ++k )
    {
        const vwProfilePoint* point = profile + k;
        if ( vwIsPole( point ) )
        {
            vwAddVertex( writer, cnMakeVec3( 0.0, 0.0, point->z ), cnMakeVec3( 0.0, 0.0, point->normalZ ) );
            continue;
        }
        for ( int j = 0; j < segments; ++j )
        {
            double c, s;
            vwCircle( j, segments, &c, &s );
            vwAddVertex( writer, cnMakeVec3( point->rho * c, point->rho * s, point->z ),
                         cnMakeVec3( point->normalRho * c, point->normalRho * s, point->normalZ ) );
        }
    }

    // bands between consecutive points: quads, or fans next to a pole
    int bands = closed ? count : count - 1;
    int upperStart = base;
    for ( int k = 0; k < bands; ++k )
    {
        const vwProfilePoint* upper = profile + k;
        const vwProfilePoint* lower = profile + ( k + 1 ) % count;
        bool upperPole = vwIsPole( upper );
        bool lowerPole = vwIsPole( lower );
        int lowerStart = k + 1 < count ? upperStart + ( upperPole ? 1 : segments ) : base;
        for ( int j = 0; j < segments; ++j )
        {
            int next = ( j + 1 ) % segments;
            int u0 = upperPole ? upperStart : upperStart + j;
            int u1 = upperPole ? upperStart : upperStart + next;
            int w0 = lowerPole ? lowerStart : lowerStart + j;
            int w1 = lowerPole ? lowerStart : lowerStart + next;
            if ( upperPole )
            {
                vwAddTriangle( writer, w0, w1, u0 );
            }
            else if ( lowerPole )
            {
                vwAddTriangle( writer, w0, u1, u0 );
            }
            else
            {
                vwAddTriangle( writer, w0, w1, u1 );
                vwAddTriangle( writer, w0, u1, u0 );
            }
        }
        upperStart = lowerStart;
    }
}

// capsule profile (a sphere when halfLength = 0): 2 quarter circles of `steps` steps each;
// (2 steps + 2) points
static int vwCapsuleProfile( double radius, double halfLength, int steps, vwProfilePoint* profile )
{
    int count = 0;

    // top hemisphere, pole to equator (exact values at both ends)
    for ( int k = 0; k <= steps; ++k )
    {
        double angle = 0.5 * CN_PI * (double)k / (double)steps;
        double s = k == 0 ? 0.0 : ( k == steps ? 1.0 : sin( angle ) );
        double c = k == 0 ? 1.0 : ( k == steps ? 0.0 : cos( angle ) );
        profile[count++] = vwMakeProfilePoint( radius * s, halfLength + radius * c, s, c );
    }

    // bottom hemisphere, the mirror image, equator to pole; one equator when there is no side
    for ( int k = halfLength > 0.0 ? steps : steps - 1; k >= 0; --k )
    {
        vwProfilePoint top = profile[k];
        profile[count++] = vwMakeProfilePoint( top.rho, -top.z, top.normalRho, -top.normalZ );
    }
    return count;
}

static int vwQuarterSteps( int segments )
{
    return segments / 4 > 2 ? segments / 4 : 2;
}

// a mesh of one lathe of `profile` (which it frees)
static bool vwBuildLathe( vwProfilePoint* profile, int count, bool closed, int segments, vwMesh* mesh )
{
    int vertexCount = 0, indexCount = 0;
    vwLatheSize( profile, count, closed, segments, &vertexCount, &indexCount );
    vwMeshWriter writer;
    bool ok = vwBeginMesh( &writer, mesh, vertexCount, indexCount );
    if ( ok )
    {
        vwAddLathe( &writer, profile, count, closed, segments );
        ok = vwEndMesh( &writer );
    }
    free( profile );
    return ok;
}

static bool vwBuildCapsule( double radius, double halfLength, int segments, vwMesh* mesh )
{
    int steps = vwQuarterSteps( segments );
    vwProfilePoint* profile = malloc( (size_t)( 2 * steps + 2 ) * sizeof( vwProfilePoint ) );
    if ( profile == NULL )
    {
        return false;
    }
    int count = vwCapsuleProfile( radius, halfLength, steps, profile );
    return vwBuildLathe( profile, count, false, segments, mesh );
}

static bool vwBuildTorus( double majorRadius, double minorRadius, int segments, vwMesh* mesh )
{
    // the tube circle, clockwise in the (rho, z) plane so that the outside runs downwards
    int steps = segments / 2 > VW_MIN_SEGMENTS ? segments / 2 : VW_MIN_SEGMENTS;
    vwProfilePoint* profile = malloc( (size_t)steps * sizeof( vwProfilePoint ) );
    if ( profile == NULL )
    {
        return false;
    }
    for ( int k = 0; k < steps; ++k )
    {
        double c, s;
        vwCircle( ( steps - k ) % steps, steps, &c, &s );
        profile[k] = vwMakeProfilePoint( majorRadius + minorRadius * c, minorRadius * s, c, s );
    }

    return vwBuildLathe( profile, steps, true, segments, mesh );
}

// unit cylinder: top disc, side and bottom disc, each with its own vertices
static bool vwBuildCylinder( int segments, vwMesh* mesh )
{
    const vwProfilePoint top[2] = { { 0.0, 1.0, 0.0, 1.0 }, { 1.0, 1.0, 0.0, 1.0 } };
    const vwProfilePoint side[2] = { { 1.0, 1.0, 1.0, 0.0 }, { 1.0, -1.0, 1.0, 0.0 } };
    const vwProfilePoint bottom[2] = { { 1.0, -1.0, 0.0, -1.0 }, { 0.0, -1.0, 0.0, -1.0 } };

    int vertexCount = 0, indexCount = 0;
    vwLatheSize( top, 2, false, segments, &vertexCount, &indexCount );
    vwLatheSize( side, 2, false, segments, &vertexCount, &indexCount );
    vwLatheSize( bottom, 2, false, segments, &vertexCount, &indexCount );
    vwMeshWriter writer;
    if ( vwBeginMesh( &writer, mesh, vertexCount, indexCount ) == false )
    {
        return false;
    }
    vwAddLathe( &writer, top, 2, false, segments );
    vwAddLathe( &writer, side, 2, false, segments );
    vwAddLathe( &writer, bottom, 2, false, segments );
    return vwEndMesh( &writer );
}

// unit cube: four vertices per face
static bool vwBuildBox( vwMesh* mesh )
{
    vwMeshWriter writer;
    if ( vwBeginMesh( &writer, mesh, 24, 36 ) == false )
    {
        return false;
    }

    // per face: normal axis and sign, then two tangent axes u, v with u x v = normal
    static const int faces[6][4] = {
        { 0, 1, 1, 2 }, { 0, -1, 2, 1 }, { 1, 1, 2, 0 }, { 1, -1, 0, 2 }, { 2, 1, 0, 1 }, { 2, -1, 1, 0 },
    };
    static const double corners[4][2] = { { -1.0, -1.0 }, { 1.0, -1.0 }, { 1.0, 1.0 }, { -1.0, 1.0 } };
    for ( int f = 0; f < 6; ++f )
    {
        int first = writer.mesh->vertexCount;
        for ( int k = 0; k < 4; ++k )
        {
            double position[3], normal[3] = { 0.0, 0.0, 0.0 };
            position[faces[f][0]] = (double)faces[f][1];
            position[faces[f][2]] = corners[k][0];
            position[faces[f][3]] = corners[k][1];
            normal[faces[f][0]] = (double)faces[f][1];
            vwAddVertex( &writer, cnMakeVec3( position[0], position[1], position[2] ),
                         cnMakeVec3( normal[0], normal[1], normal[2] ) );
        }
        vwAddTriangle( &writer, first, first + 1, first + 2 );
        vwAddTriangle( &writer, first, first + 2, first + 3 );
    }
    return vwEndMesh( &writer );
}

// ---------------------------------------------------------------------------------------------
// convex hull

// a triangle of the hull under construction
typedef struct vwHullFace
{
    int v[3];      // point indices, counter-clockwise seen from outside
    int adj[3];    // adj[i]: the face across the edge v[i] -> v[(i + 1) % 3]
    cnVec3 normal; // unit, outward
    double offset; // dot( normal, x ) = offset on the plane
    double area2;  // twice the area
    bool alive;
} vwHullFace;

// an edge of the horizon: a -> b as the visible face ran it, `outside` the hidden face across it
typedef struct vwHullEdge
{
    int a;
    int b;
    int outside;
} vwHullEdge;

typedef struct vwHullBuilder
{
    cnVec3* points; // (pointCount) centred on the bounding box
    int pointCount;
    double tolerance;

    // per point
    int* source;    // (pointCount) index of the point in the input
    int* edgeStamp; // (pointCount) insertion whose horizon starts at the point
    int* edgeIndex; // (pointCount) that horizon edge
    int* newFace;   // (pointCount) the new face whose horizon edge starts at the point
    int* endFace;   // (pointCount) the new face whose horizon edge ends at the point

    // per face slot, grown together
    int faceCapacity;
    int faceCount;
    vwHullFace* faces;   // (faceCapacity)
    double* distances;   // (faceCapacity) of the point being inserted
    int* visibleStamp;   // (faceCapacity)
    int* stack;          // (faceCapacity)
    int* visible;        // (faceCapacity)
    int* freeFaces;      // (faceCapacity) dead slots to reuse
    vwHullEdge* horizon; // (3 x faceCapacity)
    int freeCount;
    int stamp;
} vwHullBuilder;

static void vwFreeHullBuilder( vwHullBuilder* b )
{
    free( b->points );
    free( b->source );
    free( b->edgeStamp );
    free( b->edgeIndex );
    free( b->newFace );
    free( b->endFace );
    free( b->faces );
    free( b->distances );
    free( b->visibleStamp );
    free( b->stack );
    free( b->visible );
    free( b->freeFaces );
    free( b->horizon );
    memset( b, 0, sizeof( *b ) );
}

// grow one per-face array; keeps its content
static bool vwGrow( void** array, int capacity, size_t elementSize )
{
    void* grown = realloc( *array, (size_t)capacity * elementSize );
    if ( grown == NULL )
    {
        return false;
    }
    *array = grown;
    return true;
}

// room for `needed` face slots
static bool vwReserveFaces( vwHullBuilder* b, int needed )
{
    if ( needed <= b->faceCapacity )
    {
        return true;
    }
    int capacity = b->faceCapacity > 0 ? b->faceCapacity : 64;
    while ( capacity < needed )
    {
        capacity *= 2;
    }
    bool ok = vwGrow( (void**)&b->faces, capacity, sizeof( vwHullFace ) ) &&
              vwGrow( (void**)&b->distances, capacity, sizeof( double ) ) &&
              vwGrow( (void**)&b->visibleStamp, capacity, sizeof( int ) ) &&
              vwGrow( (void**)&b->stack, capacity, sizeof( int ) ) &&
              vwGrow( (void**)&b->visible, capacity, sizeof( int ) ) &&
              vwGrow( (void**)&b->freeFaces, capacity, sizeof( int ) ) &&
              vwGrow( (void**)&b->horizon, 3 * capacity, sizeof( vwHullEdge ) );
    if ( ok == false )
    {
        return false;
    }
    for ( int f = b->faceCapacity; f < capacity; ++f )
    {
        b->visibleStamp[f] = 0;
    }
    b->faceCapacity = capacity;
    return true;
}

// a face slot (capacity must have been reserved)
static int vwNewFace( vwHullBuilder* b, int p0, int p1, int p2 )
{
    int f = b->freeCount > 0 ? b->freeFaces[--b->freeCount] : b->faceCount++;
    vwHullFace* face = b->faces + f;
    face->v[0] = p0;
    face->v[1] = p1;
    face->v[2] = p2;
    face->adj[0] = face->adj[1] = face->adj[2] = -1;
    cnVec3 a = b->points[p0];
    cnVec3 n = cnCross( cnSub( b->points[p1], a ), cnSub( b->points[p2], a ) );
    double length = cnLength( n );
    face->area2 = length;
    // cannot happen (see the note at the top); a zero normal makes the face invisible to all
    face->normal = length > 0.0 ? cnScale( 1.0 / length, n ) : cn_vec3Zero;
    face->offset = cnDot( face->normal, a );
    face->alive = true;
    b->visibleStamp[f] = 0;
    return f;
}

static double vwHullDistance( const vwHullFace* face, cnVec3 p )
{
    return cnDot( face->normal, p ) - face->offset;
}

// the corner of `face` where the edge a -> b starts, -1 when the face has no such edge
static int vwFindEdge( const vwHullFace* face, int a, int b )
{
    for ( int k = 0; k < 3; ++k )
    {
        if ( face->v[k] == a && face->v[( k + 1 ) % 3] == b )
        {
            return k;
        }
    }
    return -1;
}

typedef struct vwRankedIndex
{
    double key;
    int index;
} vwRankedIndex;

// larger key first, then lower index (qsort is not stable)
static int vwCompareRanked( const void* left, const void* right )
{
    const vwRankedIndex* a = left;
    const vwRankedIndex* b = right;
    if ( a->key != b->key )
    {
        return a->key > b->key ? -1 : 1;
    }
    return ( a->index > b->index ) - ( a->index < b->index );
}

// step 1: the initial tetrahedron; false when the cloud has no volume
static bool vwHullStart( vwHullBuilder* b, int start[4] )
{
    const cnVec3* p = b->points;
    int n = b->pointCount;
    double tol = b->tolerance;

    // the farthest pair among the axis extremes
    int extremes[6] = { 0, 0, 0, 0, 0, 0 };
    for ( int i = 1; i < n; ++i )
    {
        double c[3] = { p[i].x, p[i].y, p[i].z };
        for ( int k = 0; k < 3; ++k )
        {
            const cnVec3* low = p + extremes[2 * k];
            const cnVec3* high = p + extremes[2 * k + 1];
            double lowValue = k == 0 ? low->x : ( k == 1 ? low->y : low->z );
            double highValue = k == 0 ? high->x : ( k == 1 ? high->y : high->z );
            if ( c[k] < lowValue )
            {
                extremes[2 * k] = i;
            }
            if ( c[k] > highValue )
            {
                extremes[2 * k + 1] = i;
            }
        }
    }
    double best = -1.0;
    for ( int i = 0; i < 6; ++i )
    {
        for ( int j = i + 1; j < 6; ++j )
        {
            double d = cnLength( cnSub( p[extremes[i]], p[extremes[j]] ) );
            if ( d > best )
            {
                best = d;
                start[0] = extremes[i];
                start[1] = extremes[j];
            }
        }
    }
    if ( best <= tol )
    {
        return false; // all points coincide
    }

    // farthest from their line
    cnVec3 a = p[start[0]];
    cnVec3 direction = cnScale( 1.0 / best, cnSub( p[start[1]], a ) );
    best = -1.0;
    for ( int i = 0; i < n; ++i )
    {
        double d = cnLength( cnCross( cnSub( p[i], a ), direction ) );
        if ( d > best )
        {
            best = d;
            start[2] = i;
        }
    }
    if ( best <= tol )
    {
        return false; // on one line
    }

    // farthest from their plane
    cnVec3 normal = cnNormalize( cnCross( cnSub( p[start[1]], a ), cnSub( p[start[2]], a ) ) );
    best = -1.0;
    for ( int i = 0; i < n; ++i )
    {
        double d = fabs( cnDot( cnSub( p[i], a ), normal ) );
        if ( d > best )
        {
            best = d;
            start[3] = i;
        }
    }
    return best > tol; // else in one plane
}

// the four faces of the tetrahedron, outward, with their adjacency
static void vwHullTetrahedron( vwHullBuilder* b, const int start[4] )
{
    static const int corners[4][3] = { { 0, 1, 2 }, { 0, 1, 3 }, { 0, 2, 3 }, { 1, 2, 3 } };
    cnVec3 centroid = cn_vec3Zero;
    for ( int k = 0; k < 4; ++k )
    {
        centroid = cnMulAdd( centroid, 0.25, b->points[start[k]] );
    }
    for ( int f = 0; f < 4; ++f )
    {
        int p0 = start[corners[f][0]], p1 = start[corners[f][1]], p2 = start[corners[f][2]];
        cnVec3 a = b->points[p0];
        cnVec3 n = cnCross( cnSub( b->points[p1], a ), cnSub( b->points[p2], a ) );
        if ( cnDot( n, cnSub( centroid, a ) ) > 0.0 )
        {
            int swap = p1;
            p1 = p2;
            p2 = swap;
        }
        vwNewFace( b, p0, p1, p2 );
    }
    for ( int f = 0; f < 4; ++f )
    {
        for ( int k = 0; k < 3; ++k )
        {
            int from = b->faces[f].v[k], to = b->faces[f].v[( k + 1 ) % 3];
            for ( int g = 0; g < 4; ++g )
            {
                if ( g != f && vwFindEdge( b->faces + g, to, from ) >= 0 )
                {
                    b->faces[f].adj[k] = g;
                }
            }
        }
    }
}

// what became of a point in step 2
typedef enum vwHullInsertion
{
    vw_hullInserted,
    vw_hullDropped, // inside, or a horizon that is not one loop
    vw_hullOutOfMemory,
} vwHullInsertion;

// step 2 for one point
static vwHullInsertion vwHullInsert( vwHullBuilder* b, int point )
{
    cnVec3 p = b->points[point];
    int stamp = ++b->stamp;

    // the face the point sees most
    int first = -1;
    double best = b->tolerance;
    for ( int f = 0; f < b->faceCount; ++f )
    {
        if ( b->faces[f].alive == false )
        {
            continue;
        }
        double d = vwHullDistance( b->faces + f, p );
        b->distances[f] = d;
        if ( d > best )
        {
            best = d;
            first = f;
        }
    }
    if ( first < 0 )
    {
        return vw_hullDropped;
    }

    // the visible faces connected to it, and the horizon edges around them
    int visibleCount = 0, stackCount = 0, horizonCount = 0;
    b->visibleStamp[first] = stamp;
    b->stack[stackCount++] = first;
    while ( stackCount > 0 )
    {
        int f = b->stack[--stackCount];
        b->visible[visibleCount++] = f;
        for ( int k = 0; k < 3; ++k )
        {
            int g = b->faces[f].adj[k];
            if ( b->visibleStamp[g] == stamp )
            {
                continue;
            }
            if ( b->distances[g] > b->tolerance )
            {
                b->visibleStamp[g] = stamp;
                b->stack[stackCount++] = g;
            }
            else
            {
                vwHullEdge edge = { b->faces[f].v[k], b->faces[f].v[( k + 1 ) % 3], g };
                b->horizon[horizonCount++] = edge;
            }
        }
    }

    // the horizon must be one simple loop: one edge leaves each of its points
    for ( int e = 0; e < horizonCount; ++e )
    {
        int a = b->horizon[e].a;
        if ( b->edgeStamp[a] == stamp )
        {
            return vw_hullDropped;
        }
        b->edgeStamp[a] = stamp;
        b->edgeIndex[a] = e;
    }
    int walked = 0;
    int e = 0;
    do
    {
        int next = b->horizon[e].b;
        if ( b->edgeStamp[next] != stamp )
        {
            return vw_hullDropped;
        }
        e = b->edgeIndex[next];
        ++walked;
    } while ( e != 0 && walked <= horizonCount );
    if ( walked != horizonCount )
    {
        return vw_hullDropped;
    }

    // replace the visible faces by a fan from the point to the horizon
    if ( vwReserveFaces( b, b->faceCount + horizonCount ) == false )
    {
        return vw_hullOutOfMemory;
    }
    for ( int i = 0; i < visibleCount; ++i )
    {
        b->faces[b->visible[i]].alive = false;
        b->freeFaces[b->freeCount++] = b->visible[i];
    }
    for ( int i = 0; i < horizonCount; ++i )
    {
        vwHullEdge edge = b->horizon[i];
        int f = vwNewFace( b, edge.a, edge.b, point );
        vwHullFace* outside = b->faces + edge.outside;
        outside->adj[vwFindEdge( outside, edge.b, edge.a )] = f;
        b->faces[f].adj[0] = edge.outside;
        b->newFace[edge.a] = f;
        b->endFace[edge.b] = f;
    }
    for ( int i = 0; i < horizonCount; ++i )
    {
        vwHullEdge edge = b->horizon[i];
        int f = b->newFace[edge.a];
        b->faces[f].adj[1] = b->newFace[edge.b];
        b->faces[f].adj[2] = b->endFace[edge.a];
    }
    return vw_hullInserted;
}

// scratch of steps 3 and 4, per face slot and per point
typedef struct vwHullGroups
{
    vwRankedIndex* ranked; // (faceCount) alive faces, largest first
    int* group;            // (faceCount) flat face of each triangle, -1: none yet
    int* members;          // (faceCount) triangles, flat face after flat face
    int* groupStart;       // (faceCount + 1) first member of each flat face
    cnVec3* groupNormal;   // (faceCount)
    int* slot;             // (pointCount) step 3: the point's vertex in the face being written;
                           // step 4: the number of faces at the point
    int* slotGroup;        // (pointCount) the last face that set `slot`
    int groupCount;
    int memberCount;
} vwHullGroups;

// flood each seed's plane from the largest triangle down
static void vwHullGroup( const vwHullBuilder* b, vwHullGroups* s )
{
    int aliveCount = 0;
    for ( int f = 0; f < b->faceCount; ++f )
    {
        s->group[f] = -1;
        if ( b->faces[f].alive )
        {
            s->ranked[aliveCount].key = b->faces[f].area2;
            s->ranked[aliveCount].index = f;
            ++aliveCount;
        }
    }
    qsort( s->ranked, (size_t)aliveCount, sizeof( vwRankedIndex ), vwCompareRanked );

    s->groupCount = 0;
    s->memberCount = 0;
    for ( int r = 0; r < aliveCount; ++r )
    {
        int seed = s->ranked[r].index;
        if ( s->group[seed] >= 0 )
        {
            continue;
        }
        int g = s->groupCount++;
        const vwHullFace* plane = b->faces + seed;
        s->groupStart[g] = s->memberCount;
        s->group[seed] = g;
        s->members[s->memberCount++] = seed;
        cnVec3 sum = cn_vec3Zero;
        for ( int m = s->groupStart[g]; m < s->memberCount; ++m )
        {
            const vwHullFace* face = b->faces + s->members[m];
            sum = cnMulAdd( sum, face->area2, face->normal );
            for ( int k = 0; k < 3; ++k )
            {
                int h = face->adj[k];
                const vwHullFace* neighbor = b->faces + h;
                if ( s->group[h] >= 0 || cnDot( neighbor->normal, plane->normal ) <= 0.0 )
                {
                    continue;
                }
                bool flat = true;
                for ( int c = 0; c < 3; ++c )
                {
                    double d = vwHullDistance( plane, b->points[neighbor->v[c]] );
                    flat = flat && fabs( d ) <= b->tolerance;
                }
                if ( flat )
                {
                    s->group[h] = g;
                    s->members[s->memberCount++] = h;
                }
            }
        }
        s->groupNormal[g] = cnNormalizeOr( sum, plane->normal );
    }
    s->groupStart[s->groupCount] = s->memberCount;
}

// one vertex per corner of each flat face: count them, then write them
static bool vwHullWriteGroups( const vwHullBuilder* b, vwHullGroups* s, const cnVec3* input, vwMesh* mesh )
{
    for ( int i = 0; i < b->pointCount; ++i )
    {
        s->slotGroup[i] = -1;
    }
    int vertexCount = 0;
    for ( int g = 0; g < s->groupCount; ++g )
    {
        for ( int m = s->groupStart[g]; m < s->groupStart[g + 1]; ++m )
        {
            for ( int c = 0; c < 3; ++c )
            {
                int v = b->faces[s->members[m]].v[c];
                if ( s->slotGroup[v] != g )
                {
                    s->slotGroup[v] = g;
                    ++vertexCount;
                }
            }
        }
    }

    vwMeshWriter writer;
    if ( vwBeginMesh( &writer, mesh, vertexCount, 3 * s->memberCount ) == false )
    {
        return false;
    }
    for ( int i = 0; i < b->pointCount; ++i )
    {
        s->slotGroup[i] = -1;
    }
    for ( int g = 0; g < s->groupCount; ++g )
    {
        for ( int m = s->groupStart[g]; m < s->groupStart[g + 1]; ++m )
        {
            const vwHullFace* face = b->faces + s->members[m];
            int corner[3];
            for ( int c = 0; c < 3; ++c )
            {
                int v = face->v[c];
                if ( s->slotGroup[v] != g )
                {
                    s->slotGroup[v] = g;
                    s->slot[v] = vwAddVertex( &writer, input[b->source[v]], s->groupNormal[g] );
                }
                corner[c] = s->slot[v];
            }
            vwAddTriangle( &writer, corner[0], corner[1], corner[2] );
        }
    }
    return vwEndMesh( &writer );
}

static void vwFreeHullGroups( vwHullGroups* s )
{
    free( s->ranked );
    free( s->group );
    free( s->members );
    free( s->groupStart );
    free( s->groupNormal );
    free( s->slot );
    free( s->slotGroup );
    memset( s, 0, sizeof( *s ) );
}

static bool vwAllocHullGroups( vwHullGroups* s, const vwHullBuilder* b )
{
    size_t faces = (size_t)b->faceCount;
    size_t points = (size_t)b->pointCount;
    memset( s, 0, sizeof( *s ) );
    s->ranked = malloc( faces * sizeof( vwRankedIndex ) );
    s->group = malloc( faces * sizeof( int ) );
    s->members = malloc( faces * sizeof( int ) );
    s->groupStart = malloc( ( faces + 1 ) * sizeof( int ) );
    s->groupNormal = malloc( faces * sizeof( cnVec3 ) );
    s->slot = malloc( points * sizeof( int ) );
    s->slotGroup = malloc( points * sizeof( int ) );
    return s->ranked != NULL && s->group != NULL && s->members != NULL && s->groupStart != NULL &&
           s->groupNormal != NULL && s->slot != NULL && s->slotGroup != NULL;
}

// steps 1 and 2 over input[source[0 .. count - 1]]; false when the points have no volume or
// memory ran out. The caller frees the builder either way.
static bool vwHullCompute( vwHullBuilder* b, const cnVec3* input, const int* source, int count, cnVec3 centre,
                           double tolerance )
{
    memset( b, 0, sizeof( *b ) );
    b->pointCount = count;
    b->tolerance = tolerance;
    size_t perPoint = (size_t)count * sizeof( int );
    b->points = malloc( (size_t)count * sizeof( cnVec3 ) );
    b->source = malloc( perPoint );
    b->edgeStamp = calloc( (size_t)count, sizeof( int ) );
    b->edgeIndex = malloc( perPoint );
    b->newFace = malloc( perPoint );
    b->endFace = malloc( perPoint );
    vwRankedIndex* ranked = malloc( (size_t)count * sizeof( vwRankedIndex ) );
    bool ok = b->points != NULL && b->source != NULL && b->edgeStamp != NULL && b->edgeIndex != NULL &&
              b->newFace != NULL && b->endFace != NULL && ranked != NULL && vwReserveFaces( b, 64 );
    if ( ok )
    {
        for ( int i = 0; i < count; ++i )
        {
            b->source[i] = source[i];
            b->points[i] = cnSub( input[source[i]], centre );
        }
    }

    // step 1
    int start[4] = { 0, 0, 0, 0 };
    ok = ok && vwHullStart( b, start );
    if ( ok )
    {
        vwHullTetrahedron( b, start );

        // step 2: the other points, farthest from the tetrahedron's centroid first
        cnVec3 centroid = cn_vec3Zero;
        for ( int k = 0; k < 4; ++k )
        {
            centroid = cnMulAdd( centroid, 0.25, b->points[start[k]] );
        }
        int rankedCount = 0;
        for ( int i = 0; i < count; ++i )
        {
            if ( i != start[0] && i != start[1] && i != start[2] && i != start[3] )
            {
                ranked[rankedCount].key = cnLengthSquared( cnSub( b->points[i], centroid ) );
                ranked[rankedCount].index = i;
                ++rankedCount;
            }
        }
        qsort( ranked, (size_t)rankedCount, sizeof( vwRankedIndex ), vwCompareRanked );
        for ( int r = 0; r < rankedCount && ok; ++r )
        {
            ok = vwHullInsert( b, ranked[r].index ) != vw_hullOutOfMemory;
        }
    }
    free( ranked );
    return ok;
}

// step 4: the corners, hull vertices where three or more flat faces meet, as input indices in
// `corners`; returns their number and sets the number of hull vertices
static int vwHullCorners( const vwHullBuilder* b, vwHullGroups* s, int* corners, int* vertexCount )
{
    // slot: flat faces met so far; slotGroup: the last one counted (faces come group by group)
    for ( int i = 0; i < b->pointCount; ++i )
    {
        s->slot[i] = 0;
        s->slotGroup[i] = -1;
    }
    for ( int g = 0; g < s->groupCount; ++g )
    {
        for ( int m = s->groupStart[g]; m < s->groupStart[g + 1]; ++m )
        {
            for ( int c = 0; c < 3; ++c )
            {
                int v = b->faces[s->members[m]].v[c];
                if ( s->slotGroup[v] != g )
                {
                    s->slotGroup[v] = g;
                    s->slot[v] += 1;
                }
            }
        }
    }
    int count = 0;
    *vertexCount = 0;
    for ( int i = 0; i < b->pointCount; ++i )
    {
        *vertexCount += s->slot[i] > 0 ? 1 : 0;
        if ( s->slot[i] >= 3 )
        {
            corners[count++] = b->source[i];
        }
    }
    return count;
}

static bool vwBuildHull( const cnVec3* input, int count, vwMesh* mesh )
{
    if ( input == NULL || count < 4 || count > VW_HULL_MAX_POINTS )
    {
        return false;
    }

    // centre on the bounding box
    cnVec3 low = input[0], high = input[0];
    for ( int i = 0; i < count; ++i )
    {
        if ( cnIsFiniteVec3( input[i] ) == false )
        {
            return false;
        }
        low = cnMakeVec3( fmin( low.x, input[i].x ), fmin( low.y, input[i].y ), fmin( low.z, input[i].z ) );
        high =
            cnMakeVec3( fmax( high.x, input[i].x ), fmax( high.y, input[i].y ), fmax( high.z, input[i].z ) );
    }
    cnVec3 extent = cnSub( high, low );
    double largest = fmax( extent.x, fmax( extent.y, extent.z ) );
    if ( !( largest > 0.0 ) || isfinite( largest ) == false )
    {
        return false;
    }
    cnVec3 centre = cnScale( 0.5, cnAdd( low, high ) );
    double tolerance = VW_HULL_TOLERANCE * largest;

    int* subset = malloc( (size_t)count * sizeof( int ) );
    if ( subset == NULL )
    {
        return false;
    }
    for ( int i = 0; i < count; ++i )
    {
        subset[i] = i;
    }

    // steps 1 to 4, again from the corners alone while some hull vertices are not corners
    vwHullBuilder hull;
    vwHullGroups groups;
    memset( &hull, 0, sizeof( hull ) );
    memset( &groups, 0, sizeof( groups ) );
    bool built = false;
    int subsetCount = count;
    for ( int pass = 0; pass < VW_HULL_MAX_PASSES; ++pass )
    {
        vwHullBuilder next;
        vwHullGroups nextGroups;
        memset( &nextGroups, 0, sizeof( nextGroups ) );
        if ( vwHullCompute( &next, input, subset, subsetCount, centre, tolerance ) == false ||
             vwAllocHullGroups( &nextGroups, &next ) == false )
        {
            // no volume or no memory: keep the last hull, if any
            vwFreeHullBuilder( &next );
            vwFreeHullGroups( &nextGroups );
            break;
        }
        vwFreeHullBuilder( &hull );
        vwFreeHullGroups( &groups );
        hull = next;
        groups = nextGroups;
        built = true;

        vwHullGroup( &hull, &groups );
        int vertexCount = 0;
        int cornerCount = vwHullCorners( &hull, &groups, subset, &vertexCount );
        if ( cornerCount == vertexCount || cornerCount < 4 )
        {
            break;
        }
        subsetCount = cornerCount;
    }

    bool ok = built && vwHullWriteGroups( &hull, &groups, input, mesh );
    vwFreeHullBuilder( &hull );
    vwFreeHullGroups( &groups );
    free( subset );
    return ok;
}

// ---------------------------------------------------------------------------------------------
// building

static bool vwIsPositive( double value )
{
    return value > 0.0 && isfinite( value );
}

bool vwBuildMesh( const cnGeometry* geometry, vwMeshDetail detail, vwMesh* mesh )
{
    if ( mesh == NULL )
    {
        return false;
    }
    memset( mesh, 0, sizeof( *mesh ) );
    if ( geometry == NULL )
    {
        return false;
    }

    int segments = detail.segments;
    segments = segments < VW_MIN_SEGMENTS ? VW_MIN_SEGMENTS : segments;
    segments = segments > VW_MAX_SEGMENTS ? VW_MAX_SEGMENTS : segments;

    bool ok = false;
    switch ( geometry->type )
    {
        case cn_sphereShape:
            ok = vwIsPositive( geometry->sphere.radius ) && vwBuildCapsule( 1.0, 0.0, segments, mesh );
            break;

        case cn_ellipsoidShape:
        {
            cnVec3 r = geometry->ellipsoid.radii;
            ok = vwIsPositive( r.x ) && vwIsPositive( r.y ) && vwIsPositive( r.z ) &&
                 vwBuildCapsule( 1.0, 0.0, segments, mesh );
            break;
        }

        case cn_boxShape:
        {
            cnVec3 h = geometry->box.halfExtents;
            ok = vwIsPositive( h.x ) && vwIsPositive( h.y ) && vwIsPositive( h.z ) && vwBuildBox( mesh );
            break;
        }

        case cn_cylinderShape:
            ok = vwIsPositive( geometry->cylinder.radius ) && vwIsPositive( geometry->cylinder.halfLength ) &&
                 vwBuildCylinder( segments, mesh );
            break;

        case cn_capsuleShape:
        {
            double r = geometry->capsule.radius, h = geometry->capsule.halfLength;
            ok = vwIsPositive( r ) && h >= 0.0 && isfinite( h ) && vwBuildCapsule( r, h, segments, mesh );
            break;
        }

        case cn_torusShape:
        {
            double major = geometry->torus.majorRadius, minor = geometry->torus.minorRadius;
            ok = vwIsPositive( minor ) && vwIsPositive( major ) && minor < major &&
                 vwBuildTorus( major, minor, segments, mesh );
            break;
        }

        case cn_hullShape:
            ok = vwBuildHull( geometry->hull.points, geometry->hull.pointCount, mesh );
            break;

        default:
            break; // planes have no mesh
    }

    if ( ok == false )
    {
        vwFreeMesh( mesh );
    }
    return ok;
}

void vwFreeMesh( vwMesh* mesh )
{
    if ( mesh == NULL )
    {
        return;
    }
    free( mesh->vertices );
    free( mesh->indices );
    memset( mesh, 0, sizeof( *mesh ) );
}
