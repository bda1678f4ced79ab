// SPDX-License-Identifier: MIT
// Convex hull of a point cloud: quickhull over triangles, decided by exact orientation tests.
//
// Algorithm (Barber, Dobkin and Huhdanpaa, "The quickhull algorithm for convex hulls", ACM TOMS
// 1996; the horizon search follows Gregorius, "Implementing Quickhull", GDC 2014):
// 1. an initial tetrahedron from extreme points: the farthest pair among the axis extremes, the
//    point farthest from their line, the point farthest from that plane. When one of these
//    distances is within the tolerance the cloud has no volume, and the message says which
//    degeneracy it is (all points coincide, lie on a line, lie in a plane).
// 2. every other point joins the outside list of a face it is above (the one it is farthest
//    above); a point above no face is inside or on the hull and is dropped for good.
// 3. repeat: take a face with outside points and its farthest point q; find the faces q sees by a
//    depth-first search from that face; walk their boundary (the horizon) as one loop; replace the
//    visible faces by a fan of triangles from q to the horizon; give the visible faces' outside
//    points to the new faces. Every round removes q from the outside lists for good, so there are
//    at most n rounds, whatever the input.
// 4. clean-up: points within the tolerance of the hull's surface, say the centre of a box face or
//    a point of a face that is flat only up to rounding, can be vertices after step 3. A vertex
//    that lies within the tolerance of the plane of its neighbours, or of a segment between two of
//    them, is no corner: such vertices are removed (never two neighbours in one pass) by building
//    the hull again from the remaining vertices. Each pass removes a vertex, so this ends too.
//
// Exactness. "q is above face abc" is the sign of det[b - a, c - a, q - a], computed exactly: a
// floating-point filter with a forward error bound settles almost every case, and the rest is
// summed exactly as a floating-point expansion (two-sum, two-product with fma; Shewchuk,
// "Adaptive precision floating-point arithmetic and fast robust geometric predicates", 1997, for
// the method). Steps 2 and 3 are then the exact beneath-beyond construction of the hull of the
// working points: the visible faces always form a disc, every new triangle has an area, and the
// result is convex with no tolerance at all, whatever coplanarity or near-degeneracy the input has.
// Floating-point distances only choose which outside point to take first.
// The working points are the input centred on its bounding box and scaled by a power of two to an
// extent in [0.5, 1). Centring rounds relative to |p - c| <= L (L the largest extent), however far
// the cloud is from the origin; the scaling is exact. Coordinates below 2^-200 are flushed to zero
// (a change of 1e-60 L), which keeps every product in the exact range of the arithmetic.
//
// Tolerance. tol = 1e-8 L, used for what is physical rather than combinatorial: refusing a cloud
// thinner than tol (its volume and inertia would be dominated by rounding: a tetrahedron sum has
// relative error eps L / thickness) and the clean-up of step 4. Features finer than 1e-8 of the
// body's size do not matter to a rigid body, and rounding noise (1e-16 L) is far below it.
// Consequences: every input point is inside the hull or within about tol of it (exactly inside
// when step 4 removes nothing), and every vertex is a corner to within tol.
//
// Robustness. The horizon is still checked to be one simple loop before anything changes, and a
// point that failed would be dropped as if it were inside; with exact tests this cannot happen,
// so it is a guard against bugs, not a tolerance.
//
// Memory. Scratch memory (the face block grows by doubling) goes through the caller's allocator and
// is freed before returning; the result is two arrays, freed by cnDestroyHull.

#include "hull.h"

#include "core.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

// the exact predicate needs IEEE rounding: no reassociation, no contraction into fma
#if defined( __FAST_MATH__ )
#    error "collision/hull.c must not be compiled with -ffast-math"
#endif

// see the note at the top
#define CN_HULL_RELATIVE_TOLERANCE 1e-8

// working coordinates below this are zero: every product of the exact predicate stays normal
#define CN_HULL_FLUSH 0x1p-200

// keeps every index (3 x faces, 6 x points) inside an int
#define CN_HULL_MAX_POINTS ( INT_MAX / 8 )

// a triangle of the hull under construction
typedef struct cnHullFace
{
    int v[3];                // point indices, counter-clockwise seen from outside
    int adj[3];              // adj[i]: the face across the edge v[i] -> v[(i + 1) % 3]
    cnVec3 normal;           // unit outward normal in floating point (ranks points; decides nothing)
    double offset;           // dot( normal, x ) = offset on the face's plane
    int outsideHead;         // first point of the outside list, -1 when empty
    int farthest;            // outside point farthest above the plane, -1 when none
    double farthestDistance; // its distance
    int visibleStamp;        // insertion that found the face visible
    int hiddenStamp;         // insertion that found the face not visible
    bool alive;
    bool pending; // the face is on the pending stack
} cnHullFace;

typedef struct cnHullPlane
{
    cnVec3 normal;
    double offset;
} cnHullPlane;

// an edge of the horizon: owned by a visible face, across it a hidden one
typedef struct cnHullEdge
{
    int face;
    int edge;
    int neighbor;
    int from;
    int to;
} cnHullEdge;

// a frame of the depth-first search over the visible faces
typedef struct cnHullVisit
{
    int face;
    int start; // first edge to look across
    int step;  // edges looked across so far
} cnHullVisit;

typedef struct cnHullBuilder
{
    const cnAllocator* allocator;
    cnVec3* points; // (pointCount) centred coordinates
    int pointCount;
    double tolerance;
    int stamp;

    // per point, one block of ints
    int* intBlock;
    size_t intBlockCount;
    int* nextOutside; // (pointCount) outside list links, -1 ends a list
    int* edgeStamp;   // (pointCount) stamp of the insertion whose horizon leaves this point
    int* edgeFrom;    // (pointCount) that horizon edge; cursor when counting incidences
    int* orphans;     // (pointCount) outside points of the faces being replaced
    int* candidates;  // (pointCount) the points a build starts from
    int* flags;       // (pointCount) redundant-vertex marks
    int* offsets;     // (pointCount + 1) incidence ranges per point
    int* incidence;   // (6 x pointCount) face * 3 + corner, grouped by point

    // per face slot, one block that grows by doubling
    void* faceBlock;
    size_t faceBlockSize;
    int faceCapacity;
    cnHullFace* faces;   // (faceCapacity)
    int* freeFaces;      // (faceCapacity) dead slots to reuse
    int* pending;        // (faceCapacity) faces that may have outside points
    int* visible;        // (faceCapacity)
    cnHullVisit* stack;  // (faceCapacity)
    cnHullEdge* horizon; // (faceCapacity + 2)
    int* loop;           // (faceCapacity + 2) horizon edges in walking order
    int* newFaces;       // (faceCapacity + 2)
    int faceCount;
    int freeCount;
    int pendingCount;
} cnHullBuilder;

static size_t cnHullAlignUp( size_t size )
{
    return ( size + 15u ) & ~(size_t)15u;
}

// bytes of the face block for a capacity, 0 when it would overflow
static size_t cnHullFaceBlockSize( int capacity )
{
    size_t n = (size_t)capacity;
    size_t m = n + 2u;
    if ( n > SIZE_MAX / 1024u )
    {
        return 0;
    }
    return cnHullAlignUp( n * sizeof( cnHullFace ) ) + 3u * cnHullAlignUp( n * sizeof( int ) ) +
           cnHullAlignUp( n * sizeof( cnHullVisit ) ) + cnHullAlignUp( m * sizeof( cnHullEdge ) ) +
           2u * cnHullAlignUp( m * sizeof( int ) );
}

// make room for `needed` face slots; keeps the faces, the free list and the pending stack
static bool cnHullReserveFaces( cnHullBuilder* b, int needed )
{
    if ( needed <= b->faceCapacity )
    {
        return true;
    }

    // double until it fits
    int capacity = b->faceCapacity > 0 ? b->faceCapacity : 32;
    while ( capacity < needed )
    {
        if ( capacity > INT_MAX / 2 )
        {
            return false;
        }
        capacity *= 2;
    }
    size_t size = cnHullFaceBlockSize( capacity );
    if ( size == 0 )
    {
        return false;
    }
    char* block = cnAlloc( b->allocator, size, 16 );
    if ( block == NULL )
    {
        return false;
    }

    // carve the block
    size_t n = (size_t)capacity;
    size_t m = n + 2u;
    cnHullFace* faces = (cnHullFace*)(void*)block;
    block += cnHullAlignUp( n * sizeof( cnHullFace ) );
    int* freeFaces = (int*)(void*)block;
    block += cnHullAlignUp( n * sizeof( int ) );
    int* pending = (int*)(void*)block;
    block += cnHullAlignUp( n * sizeof( int ) );
    int* visible = (int*)(void*)block;
    block += cnHullAlignUp( n * sizeof( int ) );
    cnHullVisit* stack = (cnHullVisit*)(void*)block;
    block += cnHullAlignUp( n * sizeof( cnHullVisit ) );
    cnHullEdge* horizon = (cnHullEdge*)(void*)block;
    block += cnHullAlignUp( m * sizeof( cnHullEdge ) );
    int* loop = (int*)(void*)block;
    block += cnHullAlignUp( m * sizeof( int ) );
    int* newFaces = (int*)(void*)block;

    // keep what lives across insertions; the rest is scratch
    if ( b->faceCount > 0 )
    {
        memcpy( faces, b->faces, (size_t)b->faceCount * sizeof( cnHullFace ) );
    }
    if ( b->freeCount > 0 )
    {
        memcpy( freeFaces, b->freeFaces, (size_t)b->freeCount * sizeof( int ) );
    }
    if ( b->pendingCount > 0 )
    {
        memcpy( pending, b->pending, (size_t)b->pendingCount * sizeof( int ) );
    }
    cnFree( b->allocator, b->faceBlock, b->faceBlockSize );

    b->faceBlock = faces;
    b->faceBlockSize = size;
    b->faceCapacity = capacity;
    b->faces = faces;
    b->freeFaces = freeFaces;
    b->pending = pending;
    b->visible = visible;
    b->stack = stack;
    b->horizon = horizon;
    b->loop = loop;
    b->newFaces = newFaces;
    return true;
}

static void cnHullFreeBuilder( cnHullBuilder* b )
{
    cnFree( b->allocator, b->faceBlock, b->faceBlockSize );
    cnFree( b->allocator, b->intBlock, b->intBlockCount * sizeof( int ) );
    cnFree( b->allocator, b->points, (size_t)b->pointCount * sizeof( cnVec3 ) );
    memset( b, 0, sizeof( *b ) );
}

// a + b exactly: sum + error (Knuth)
static void cnTwoSum( double a, double b, double* sum, double* error )
{
    double s = a + b;
    double bv = s - a;
    double av = s - bv;
    *sum = s;
    *error = ( a - av ) + ( b - bv );
}

// a * b exactly: product + error
static void cnTwoProduct( double a, double b, double* product, double* error )
{
    double p = a * b;
    *product = p;
    *error = fma( a, b, -p );
}

// add b to an expansion (components non-overlapping, by increasing magnitude, no zeros); returns
// the new length, at most one more
static int cnGrowExpansion( double* e, int count, double b )
{
    double q = b;
    int length = 0;
    for ( int i = 0; i < count; ++i )
    {
        double sum, error;
        cnTwoSum( q, e[i], &sum, &error );
        q = sum;
        if ( error != 0.0 )
        {
            e[length++] = error;
        }
    }
    if ( q != 0.0 )
    {
        e[length++] = q;
    }
    return length;
}

// sign of det[b - a, c - a, d - a], exactly: differences as two-term expansions, the determinant
// as the signed sum of the products of one component of each, each product as four doubles
static int cnOrientExact( cnVec3 a, cnVec3 b, cnVec3 c, cnVec3 d )
{
    double u[3][2], v[3][2], w[3][2];
    const double pa[3] = { a.x, a.y, a.z };
    const double pb[3] = { b.x, b.y, b.z };
    const double pc[3] = { c.x, c.y, c.z };
    const double pd[3] = { d.x, d.y, d.z };
    for ( int i = 0; i < 3; ++i )
    {
        cnTwoSum( pb[i], -pa[i], &u[i][0], &u[i][1] );
        cnTwoSum( pc[i], -pa[i], &v[i][0], &v[i][1] );
        cnTwoSum( pd[i], -pa[i], &w[i][0], &w[i][1] );
    }

    // the six terms of the determinant (even permutations first)
    static const int permutations[6][3] = { { 0, 1, 2 }, { 1, 2, 0 }, { 2, 0, 1 },
                                            { 0, 2, 1 }, { 1, 0, 2 }, { 2, 1, 0 } };
    double e[6 * 8 * 4 + 1];
    int length = 0;
    for ( int p = 0; p < 6; ++p )
    {
        double sign = p < 3 ? 1.0 : -1.0;
        const int* s = permutations[p];
        for ( int i = 0; i < 8; ++i )
        {
            double x = u[s[0]][i & 1];
            double y = v[s[1]][( i >> 1 ) & 1];
            double z = w[s[2]][( i >> 2 ) & 1];
            if ( x == 0.0 || y == 0.0 || z == 0.0 )
            {
                continue;
            }
            double xy, xyError, high, highError, low, lowError;
            cnTwoProduct( x, y, &xy, &xyError );
            cnTwoProduct( xy, z, &high, &highError );
            cnTwoProduct( xyError, z, &low, &lowError );
            length = cnGrowExpansion( e, length, sign * high );
            length = cnGrowExpansion( e, length, sign * highError );
            length = cnGrowExpansion( e, length, sign * low );
            length = cnGrowExpansion( e, length, sign * lowError );
        }
    }

    // the largest component has the sign of the sum
    if ( length == 0 )
    {
        return 0;
    }
    return e[length - 1] > 0.0 ? 1 : -1;
}

// sign of det[b - a, c - a, d - a]: +1 when d is above the triangle abc (counter-clockwise seen
// from above), -1 below, 0 in its plane. Exact; the floating-point value decides when its error
// bound allows (each of the six terms carries at most 8 roundings: 4 eps of it, bounded by 8 eps).
static int cnOrient( cnVec3 a, cnVec3 b, cnVec3 c, cnVec3 d )
{
    cnVec3 u = cnSub( b, a );
    cnVec3 v = cnSub( c, a );
    cnVec3 w = cnSub( d, a );
    double m0 = v.y * w.z, m1 = v.z * w.y;
    double m2 = v.z * w.x, m3 = v.x * w.z;
    double m4 = v.x * w.y, m5 = v.y * w.x;
    double det = u.x * ( m0 - m1 ) + u.y * ( m2 - m3 ) + u.z * ( m4 - m5 );
    double permanent = fabs( u.x ) * ( fabs( m0 ) + fabs( m1 ) ) + fabs( u.y ) * ( fabs( m2 ) + fabs( m3 ) ) +
                       fabs( u.z ) * ( fabs( m4 ) + fabs( m5 ) );
    double bound = 8.0 * DBL_EPSILON * permanent;
    if ( det > bound )
    {
        return 1;
    }
    if ( det < -bound )
    {
        return -1;
    }
    return cnOrientExact( a, b, c, d );
}

// side of a point with respect to a face, exactly
static int cnHullSide( const cnHullBuilder* b, const cnHullFace* face, cnVec3 point )
{
    return cnOrient( b->points[face->v[0]], b->points[face->v[1]], b->points[face->v[2]], point );
}

// plane through three points, from the two edges at the largest angle (the most accurate cross
// product); false when the triangle has no area in floating point (the plane is then zero)
static bool cnHullPlaneOf( const cnVec3* points, int a, int b, int c, cnHullPlane* plane )
{
    cnVec3 pa = points[a];
    cnVec3 pb = points[b];
    cnVec3 pc = points[c];
    double ab = cnLengthSquared( cnSub( pb, pa ) );
    double bc = cnLengthSquared( cnSub( pc, pb ) );
    double ca = cnLengthSquared( cnSub( pa, pc ) );

    // the same normal (b - a) x (c - a) taken at the vertex opposite the longest edge
    cnVec3 n;
    if ( ab >= bc && ab >= ca )
    {
        n = cnCross( cnSub( pa, pc ), cnSub( pb, pc ) );
    }
    else if ( bc >= ca )
    {
        n = cnCross( cnSub( pb, pa ), cnSub( pc, pa ) );
    }
    else
    {
        n = cnCross( cnSub( pc, pb ), cnSub( pa, pb ) );
    }

    double length = cnLength( n );
    if ( length > 0.0 && isfinite( length ) )
    {
        plane->normal = cnScale( 1.0 / length, n );
        cnVec3 centroid = cnScale( 1.0 / 3.0, cnAdd( cnAdd( pa, pb ), pc ) );
        plane->offset = cnDot( plane->normal, centroid );
        return true;
    }
    plane->normal = cn_vec3Zero;
    plane->offset = 0.0;
    return false;
}

static double cnHullDistance( const cnHullFace* face, cnVec3 point )
{
    return cnDot( face->normal, point ) - face->offset;
}

// index of the edge from -> to in a face, -1 when the face has no such edge
static int cnHullFindEdge( const cnHullFace* face, int from, int to )
{
    for ( int i = 0; i < 3; ++i )
    {
        if ( face->v[i] == from && face->v[( i + 1 ) % 3] == to )
        {
            return i;
        }
    }
    return -1;
}

// a face in a free slot (room was reserved by the caller)
static int cnHullAddFace( cnHullBuilder* b, int v0, int v1, int v2, cnHullPlane plane )
{
    int index;
    bool pending = false;
    if ( b->freeCount > 0 )
    {
        // a reused slot may still be on the pending stack: keep the mark so it is not pushed twice
        index = b->freeFaces[--b->freeCount];
        pending = b->faces[index].pending;
    }
    else
    {
        CN_ASSERT( b->faceCount < b->faceCapacity );
        index = b->faceCount++;
    }

    cnHullFace* face = b->faces + index;
    face->v[0] = v0;
    face->v[1] = v1;
    face->v[2] = v2;
    face->adj[0] = -1;
    face->adj[1] = -1;
    face->adj[2] = -1;
    face->normal = plane.normal;
    face->offset = plane.offset;
    face->outsideHead = -1;
    face->farthest = -1;
    face->farthestDistance = 0.0;
    face->visibleStamp = 0;
    face->hiddenStamp = 0;
    face->alive = true;
    face->pending = pending;
    return index;
}

static void cnHullPushPending( cnHullBuilder* b, int faceIndex )
{
    cnHullFace* face = b->faces + faceIndex;
    if ( face->pending == false )
    {
        CN_ASSERT( b->pendingCount < b->faceCapacity );
        face->pending = true;
        b->pending[b->pendingCount++] = faceIndex;
    }
}

// give a point to the face (among `faces`) it is farthest above; a point above none is dropped
static void cnHullAssign( cnHullBuilder* b, int point, const int* faces, int count )
{
    cnVec3 p = b->points[point];
    int best = -1;
    double bestDistance = 0.0;
    for ( int i = 0; i < count; ++i )
    {
        const cnHullFace* face = b->faces + faces[i];
        if ( cnHullSide( b, face, p ) > 0 )
        {
            // exactly above; the floating-point distance only ranks
            double distance = cnHullDistance( face, p );
            if ( best < 0 || distance > bestDistance )
            {
                best = faces[i];
                bestDistance = distance;
            }
        }
    }
    if ( best < 0 )
    {
        return;
    }

    cnHullFace* face = b->faces + best;
    b->nextOutside[point] = face->outsideHead;
    face->outsideHead = point;
    if ( face->farthest < 0 || bestDistance > face->farthestDistance )
    {
        face->farthest = point;
        face->farthestDistance = bestDistance;
    }
    cnHullPushPending( b, best );
}

// remove a point from a face's outside list and find the new farthest point
static void cnHullDropPoint( cnHullBuilder* b, int faceIndex, int point )
{
    cnHullFace* face = b->faces + faceIndex;

    // unlink
    int* link = &face->outsideHead;
    while ( *link >= 0 && *link != point )
    {
        link = b->nextOutside + *link;
    }
    if ( *link == point )
    {
        *link = b->nextOutside[point];
    }

    // farthest of the rest
    face->farthest = -1;
    face->farthestDistance = 0.0;
    for ( int p = face->outsideHead; p >= 0; p = b->nextOutside[p] )
    {
        double distance = cnHullDistance( face, b->points[p] );
        if ( face->farthest < 0 || distance > face->farthestDistance )
        {
            face->farthest = p;
            face->farthestDistance = distance;
        }
    }
}

// add the farthest outside point of a face to the hull, or drop it when its horizon is broken
static cnStatus cnHullInsert( cnHullBuilder* b, int seed )
{
    // the new faces take the visible faces' slots, plus at most two more
    if ( cnHullReserveFaces( b, b->faceCount + 2 ) == false )
    {
        return cn_statusOutOfMemory;
    }

    int q = b->faces[seed].farthest;
    cnVec3 point = b->points[q];
    b->stamp += 1;
    int stamp = b->stamp;

    // depth-first search over the faces that see q; edges towards hidden faces form the horizon
    int visibleCount = 0;
    int horizonCount = 0;
    int top = 0;
    b->faces[seed].visibleStamp = stamp;
    b->visible[visibleCount++] = seed;
    b->stack[top++] = ( cnHullVisit ){ seed, 0, 0 };
    while ( top > 0 )
    {
        cnHullVisit* visit = b->stack + ( top - 1 );
        if ( visit->step == 3 )
        {
            top -= 1;
            continue;
        }
        int faceIndex = visit->face;
        int edge = ( visit->start + visit->step ) % 3;
        visit->step += 1;

        const cnHullFace* face = b->faces + faceIndex;
        int neighborIndex = face->adj[edge];
        cnHullFace* neighbor = b->faces + neighborIndex;
        if ( neighbor->visibleStamp == stamp )
        {
            continue;
        }

        int from = face->v[edge];
        int to = face->v[( edge + 1 ) % 3];
        if ( neighbor->hiddenStamp != stamp )
        {
            if ( cnHullSide( b, neighbor, point ) > 0 )
            {
                // visible: continue the search from the edge after the shared one
                int twin = cnHullFindEdge( neighbor, to, from );
                CN_ASSERT( twin >= 0 );
                neighbor->visibleStamp = stamp;
                b->visible[visibleCount++] = neighborIndex;
                b->stack[top++] = ( cnHullVisit ){ neighborIndex, twin + 1, 0 };
                continue;
            }
            neighbor->hiddenStamp = stamp;
        }
        b->horizon[horizonCount++] = ( cnHullEdge ){ faceIndex, edge, neighborIndex, from, to };
    }

    // the horizon must be one simple loop: every point starts at most one edge, and walking from
    // edge 0 comes back to it after visiting every edge
    bool simple = horizonCount >= 3;
    for ( int i = 0; i < horizonCount && simple; ++i )
    {
        int from = b->horizon[i].from;
        simple = b->edgeStamp[from] != stamp;
        b->edgeStamp[from] = stamp;
        b->edgeFrom[from] = i;
    }
    if ( simple )
    {
        int edge = 0;
        int count = 0;
        do
        {
            b->loop[count++] = edge;
            int to = b->horizon[edge].to;
            if ( b->edgeStamp[to] != stamp )
            {
                simple = false;
                break;
            }
            edge = b->edgeFrom[to];
        } while ( edge != 0 && count < horizonCount );
        simple = simple && edge == 0 && count == horizonCount;
    }

    // a broken horizon (a bug: exact tests make the visible faces a disc): drop q as if inside
    if ( simple == false )
    {
        cnHullDropPoint( b, seed, q );
        if ( b->faces[seed].outsideHead >= 0 )
        {
            cnHullPushPending( b, seed );
        }
        return cn_statusOk;
    }

    // gather the outside points of the visible faces, and free those faces
    int orphanCount = 0;
    for ( int i = 0; i < visibleCount; ++i )
    {
        cnHullFace* face = b->faces + b->visible[i];
        for ( int p = face->outsideHead; p >= 0; p = b->nextOutside[p] )
        {
            if ( p != q )
            {
                b->orphans[orphanCount++] = p;
            }
        }
        face->alive = false;
        face->outsideHead = -1;
        face->farthest = -1;
        b->freeFaces[b->freeCount++] = b->visible[i];
    }

    // a fan of new faces from q around the horizon
    for ( int k = 0; k < horizonCount; ++k )
    {
        const cnHullEdge* e = b->horizon + b->loop[k];
        cnHullPlane plane;
        cnHullPlaneOf( b->points, e->from, e->to, q, &plane );
        b->newFaces[k] = cnHullAddFace( b, e->from, e->to, q, plane );
    }

    // link them to each other and to the hidden faces across the horizon
    for ( int k = 0; k < horizonCount; ++k )
    {
        const cnHullEdge* e = b->horizon + b->loop[k];
        cnHullFace* face = b->faces + b->newFaces[k];
        face->adj[0] = e->neighbor;
        face->adj[1] = b->newFaces[( k + 1 ) % horizonCount];
        face->adj[2] = b->newFaces[( k + horizonCount - 1 ) % horizonCount];

        cnHullFace* neighbor = b->faces + e->neighbor;
        int twin = cnHullFindEdge( neighbor, e->to, e->from );
        CN_ASSERT( twin >= 0 );
        neighbor->adj[twin] = b->newFaces[k];
    }

    // the orphans go to the new faces (a point outside the old hull that sees none is inside now)
    for ( int i = 0; i < orphanCount; ++i )
    {
        cnHullAssign( b, b->orphans[i], b->newFaces, horizonCount );
    }
    return cn_statusOk;
}

// link the faces of a small set (the initial tetrahedron) across their shared edges
static void cnHullLinkAll( cnHullBuilder* b, const int* faces, int count )
{
    for ( int i = 0; i < count; ++i )
    {
        cnHullFace* face = b->faces + faces[i];
        for ( int edge = 0; edge < 3; ++edge )
        {
            int from = face->v[edge];
            int to = face->v[( edge + 1 ) % 3];
            for ( int j = 0; j < count; ++j )
            {
                if ( j != i && cnHullFindEdge( b->faces + faces[j], to, from ) >= 0 )
                {
                    face->adj[edge] = faces[j];
                }
            }
        }
    }
}

static double cnHullCoordinate( cnVec3 p, int axis )
{
    return axis == 0 ? p.x : axis == 1 ? p.y : p.z;
}

// quickhull of the candidate points
static cnStatus cnHullBuild( cnHullBuilder* b, int candidateCount, char* message, int messageSize )
{
    const cnVec3* points = b->points;
    const int* candidates = b->candidates;
    double tolerance = b->tolerance;
    b->faceCount = 0;
    b->freeCount = 0;
    b->pendingCount = 0;

    // the extreme candidates along each axis
    int lowest[3] = { candidates[0], candidates[0], candidates[0] };
    int highest[3] = { candidates[0], candidates[0], candidates[0] };
    for ( int i = 1; i < candidateCount; ++i )
    {
        int c = candidates[i];
        for ( int axis = 0; axis < 3; ++axis )
        {
            double coordinate = cnHullCoordinate( points[c], axis );
            if ( coordinate < cnHullCoordinate( points[lowest[axis]], axis ) )
            {
                lowest[axis] = c;
            }
            if ( coordinate > cnHullCoordinate( points[highest[axis]], axis ) )
            {
                highest[axis] = c;
            }
        }
    }

    // the farthest apart of those pairs
    int i0 = lowest[0];
    int i1 = highest[0];
    double span = -1.0;
    for ( int axis = 0; axis < 3; ++axis )
    {
        double distance = cnLength( cnSub( points[highest[axis]], points[lowest[axis]] ) );
        if ( distance > span )
        {
            span = distance;
            i0 = lowest[axis];
            i1 = highest[axis];
        }
    }
    if ( span <= tolerance )
    {
        cnFormat( message, messageSize, "points: all points coincide (zero volume)" );
        return cn_statusInvalidArgument;
    }

    // the point farthest from their line
    cnVec3 direction = cnScale( 1.0 / span, cnSub( points[i1], points[i0] ) );
    int i2 = -1;
    double lineDistance = -1.0;
    for ( int i = 0; i < candidateCount; ++i )
    {
        int c = candidates[i];
        double distance = cnLength( cnCross( cnSub( points[c], points[i0] ), direction ) );
        if ( distance > lineDistance )
        {
            lineDistance = distance;
            i2 = c;
        }
    }
    if ( lineDistance <= tolerance )
    {
        cnFormat( message, messageSize, "points: all points lie on one line (zero volume)" );
        return cn_statusInvalidArgument;
    }

    // the point farthest from their plane
    cnHullPlane base;
    if ( cnHullPlaneOf( points, i0, i1, i2, &base ) == false )
    {
        cnFormat( message, messageSize, "points: all points lie on one line (zero volume)" );
        return cn_statusInvalidArgument;
    }
    int i3 = -1;
    double planeDistance = 0.0;
    for ( int i = 0; i < candidateCount; ++i )
    {
        int c = candidates[i];
        double distance = cnDot( base.normal, points[c] ) - base.offset;
        if ( i3 < 0 || fabs( distance ) > fabs( planeDistance ) )
        {
            planeDistance = distance;
            i3 = c;
        }
    }
    if ( fabs( planeDistance ) <= tolerance )
    {
        cnFormat( message, messageSize, "points: all points lie in one plane (zero volume)" );
        return cn_statusInvalidArgument;
    }

    // the tetrahedron, with the base turned away from the apex (exactly: a flat one cannot pass the
    // test above, whose tolerance is far above rounding)
    int side = cnOrient( points[i0], points[i1], points[i2], points[i3] );
    if ( side == 0 )
    {
        cnFormat( message, messageSize, "points: all points lie in one plane (zero volume)" );
        return cn_statusInvalidArgument;
    }
    if ( side > 0 )
    {
        int swap = i1;
        i1 = i2;
        i2 = swap;
    }
    const int corners[4][3] = { { i0, i1, i2 }, { i1, i0, i3 }, { i2, i1, i3 }, { i0, i2, i3 } };
    if ( cnHullReserveFaces( b, 8 ) == false )
    {
        cnFormat( message, messageSize, "out of memory" );
        return cn_statusOutOfMemory;
    }
    int faces[4];
    for ( int i = 0; i < 4; ++i )
    {
        cnHullPlane plane;
        cnHullPlaneOf( points, corners[i][0], corners[i][1], corners[i][2], &plane );
        faces[i] = cnHullAddFace( b, corners[i][0], corners[i][1], corners[i][2], plane );
    }
    cnHullLinkAll( b, faces, 4 );

    // every other candidate to the face it is farthest above
    for ( int i = 0; i < candidateCount; ++i )
    {
        int c = candidates[i];
        if ( c != i0 && c != i1 && c != i2 && c != i3 )
        {
            cnHullAssign( b, c, faces, 4 );
        }
    }

    // insert outside points until there are none
    while ( b->pendingCount > 0 )
    {
        int faceIndex = b->pending[--b->pendingCount];
        cnHullFace* face = b->faces + faceIndex;
        face->pending = false;
        if ( face->alive == false || face->outsideHead < 0 )
        {
            continue;
        }
        cnStatus status = cnHullInsert( b, faceIndex );
        if ( status != cn_statusOk )
        {
            cnFormat( message, messageSize, "out of memory" );
            return status;
        }
    }
    return cn_statusOk;
}

// group the corners of the live faces by point: offsets[p] .. offsets[p + 1] in `incidence`
static void cnHullCountIncidence( cnHullBuilder* b )
{
    int n = b->pointCount;
    memset( b->offsets, 0, (size_t)( n + 1 ) * sizeof( int ) );
    for ( int f = 0; f < b->faceCount; ++f )
    {
        if ( b->faces[f].alive )
        {
            for ( int k = 0; k < 3; ++k )
            {
                b->offsets[b->faces[f].v[k] + 1] += 1;
            }
        }
    }
    for ( int p = 0; p < n; ++p )
    {
        b->offsets[p + 1] += b->offsets[p];
        b->edgeFrom[p] = b->offsets[p];
    }
    for ( int f = 0; f < b->faceCount; ++f )
    {
        if ( b->faces[f].alive )
        {
            for ( int k = 0; k < 3; ++k )
            {
                int p = b->faces[f].v[k];
                b->incidence[b->edgeFrom[p]++] = 3 * f + k;
            }
        }
    }
}

// true when a vertex lies (within tol) in the plane of its largest incident face together with all
// its neighbours, or on a segment between two of its neighbours: it is no corner
static bool cnHullIsRedundant( const cnHullBuilder* b, int vertex )
{
    const cnVec3* points = b->points;
    const int* incident = b->incidence + b->offsets[vertex];
    int count = b->offsets[vertex + 1] - b->offsets[vertex];
    double tolerance = b->tolerance;
    cnVec3 p = points[vertex];

    // the largest incident face has the most accurate plane
    const cnHullFace* largest = NULL;
    double largestArea = -1.0;
    for ( int i = 0; i < count; ++i )
    {
        const cnHullFace* face = b->faces + incident[i] / 3;
        cnVec3 a = points[face->v[0]];
        double area =
            cnLengthSquared( cnCross( cnSub( points[face->v[1]], a ), cnSub( points[face->v[2]], a ) ) );
        if ( area > largestArea )
        {
            largestArea = area;
            largest = face;
        }
    }

    // flat: every neighbour in that plane
    bool flat = largest != NULL;
    for ( int i = 0; i < count && flat; ++i )
    {
        const cnHullFace* face = b->faces + incident[i] / 3;
        for ( int k = 0; k < 3; ++k )
        {
            flat = flat && fabs( cnHullDistance( largest, points[face->v[k]] ) ) <= tolerance;
        }
    }
    if ( flat )
    {
        return true;
    }

    // on an edge: strictly between two neighbours (each neighbour is the next corner of one face)
    for ( int i = 0; i < count; ++i )
    {
        const cnHullFace* fi = b->faces + incident[i] / 3;
        cnVec3 u = points[fi->v[( incident[i] % 3 + 1 ) % 3]];
        for ( int j = i + 1; j < count; ++j )
        {
            const cnHullFace* fj = b->faces + incident[j] / 3;
            cnVec3 w = cnSub( points[fj->v[( incident[j] % 3 + 1 ) % 3]], u );
            double lengthSquared = cnLengthSquared( w );
            double t = lengthSquared > 0.0 ? cnDot( cnSub( p, u ), w ) / lengthSquared : 0.0;
            if ( t > 0.0 && t < 1.0 && cnLength( cnSub( p, cnMulAdd( u, t, w ) ) ) <= tolerance )
            {
                return true;
            }
        }
    }
    return false;
}

// keep as candidates the hull vertices that are corners; false when all of them are
static bool cnHullKeepCorners( cnHullBuilder* b, int* candidateCount )
{
    int n = b->pointCount;
    cnHullCountIncidence( b );
    memset( b->flags, 0, (size_t)n * sizeof( int ) );

    // flag redundant vertices, never two neighbours in one pass (1: remove, 2: a neighbour goes)
    int removed = 0;
    for ( int p = 0; p < n; ++p )
    {
        if ( b->offsets[p + 1] == b->offsets[p] || b->flags[p] != 0 || cnHullIsRedundant( b, p ) == false )
        {
            continue;
        }
        b->flags[p] = 1;
        removed += 1;
        for ( int i = b->offsets[p]; i < b->offsets[p + 1]; ++i )
        {
            const cnHullFace* face = b->faces + b->incidence[i] / 3;
            int neighbor = face->v[( b->incidence[i] % 3 + 1 ) % 3];
            if ( b->flags[neighbor] == 0 )
            {
                b->flags[neighbor] = 2;
            }
        }
    }
    if ( removed == 0 )
    {
        return false;
    }

    // the other vertices, in input order
    int count = 0;
    for ( int p = 0; p < n; ++p )
    {
        if ( b->offsets[p + 1] > b->offsets[p] && b->flags[p] != 1 )
        {
            b->candidates[count++] = p;
        }
    }
    *candidateCount = count;
    return true;
}

// copy the live faces and their vertices (input coordinates, input order) into the result
static cnStatus cnHullOutput( cnHullBuilder* b, const cnVec3* input, cnHull* hull )
{
    int n = b->pointCount;
    int* remap = b->flags;
    for ( int p = 0; p < n; ++p )
    {
        remap[p] = -1;
    }
    int triangleCount = 0;
    for ( int f = 0; f < b->faceCount; ++f )
    {
        if ( b->faces[f].alive )
        {
            triangleCount += 1;
            for ( int k = 0; k < 3; ++k )
            {
                remap[b->faces[f].v[k]] = 0;
            }
        }
    }
    int vertexCount = 0;
    for ( int p = 0; p < n; ++p )
    {
        if ( remap[p] == 0 )
        {
            remap[p] = vertexCount++;
        }
    }

    cnVec3* vertices = cnAlloc( b->allocator, (size_t)vertexCount * sizeof( cnVec3 ), 16 );
    int* triangles = cnAlloc( b->allocator, (size_t)triangleCount * 3u * sizeof( int ), 16 );
    if ( vertices == NULL || triangles == NULL )
    {
        cnFree( b->allocator, vertices, (size_t)vertexCount * sizeof( cnVec3 ) );
        cnFree( b->allocator, triangles, (size_t)triangleCount * 3u * sizeof( int ) );
        return cn_statusOutOfMemory;
    }

    for ( int p = 0; p < n; ++p )
    {
        if ( remap[p] >= 0 )
        {
            vertices[remap[p]] = input[p];
        }
    }
    int t = 0;
    for ( int f = 0; f < b->faceCount; ++f )
    {
        if ( b->faces[f].alive )
        {
            for ( int k = 0; k < 3; ++k )
            {
                triangles[3 * t + k] = remap[b->faces[f].v[k]];
            }
            t += 1;
        }
    }

    hull->vertexCount = vertexCount;
    hull->vertices = vertices;
    hull->triangleCount = triangleCount;
    hull->triangles = triangles;
    return cn_statusOk;
}

cnStatus cnComputeHull( const cnVec3* points, int pointCount, const cnAllocator* allocator, cnHull* outHull,
                        char* message, int messageSize )
{
    cnFormat( message, messageSize, "%s", "" );
    if ( outHull == NULL )
    {
        cnFormat( message, messageSize, "hull: the output pointer is NULL" );
        return cn_statusInvalidArgument;
    }
    memset( outHull, 0, sizeof( *outHull ) );

    // the input itself
    if ( pointCount < 4 )
    {
        cnFormat( message, messageSize, "points: need at least 4 points, got %d", pointCount );
        return cn_statusInvalidArgument;
    }
    if ( points == NULL )
    {
        cnFormat( message, messageSize, "points: expected an array of %d points, got NULL", pointCount );
        return cn_statusInvalidArgument;
    }
    if ( pointCount > CN_HULL_MAX_POINTS )
    {
        cnFormat( message, messageSize, "points: at most %d points, got %d", CN_HULL_MAX_POINTS, pointCount );
        return cn_statusInvalidArgument;
    }
    for ( int i = 0; i < pointCount; ++i )
    {
        if ( cnIsFiniteVec3( points[i] ) == false )
        {
            cnFormat( message, messageSize, "points[%d]: not a finite number", i );
            return cn_statusNonFinite;
        }
    }

    // bounding box, extent and tolerance
    cnVec3 low = points[0];
    cnVec3 high = points[0];
    for ( int i = 0; i < pointCount; ++i )
    {
        cnVec3 p = points[i];
        low = cnMakeVec3( fmin( low.x, p.x ), fmin( low.y, p.y ), fmin( low.z, p.z ) );
        high = cnMakeVec3( fmax( high.x, p.x ), fmax( high.y, p.y ), fmax( high.z, p.z ) );
    }
    cnVec3 size = cnSub( high, low );
    double extent = fmax( size.x, fmax( size.y, size.z ) );
    cnVec3 center = cnAdd( cnScale( 0.5, low ), cnScale( 0.5, high ) );

    cnHullBuilder builder;
    memset( &builder, 0, sizeof( builder ) );
    cnHullBuilder* b = &builder;
    b->allocator = allocator;
    if ( isfinite( extent ) == false )
    {
        cnFormat( message, messageSize, "points: coordinates too large (the extent overflows)" );
        return cn_statusInvalidArgument;
    }

    // working units: extent in [0.5, 1) by an exact power-of-two scaling
    int exponent = 0;
    double scaledExtent = frexp( extent, &exponent );
    b->tolerance = CN_HULL_RELATIVE_TOLERANCE * scaledExtent;

    // working memory: centred copies and the per-point arrays
    size_t n = (size_t)pointCount;
    b->points = cnAlloc( allocator, n * sizeof( cnVec3 ), 16 );
    if ( b->points == NULL )
    {
        cnFormat( message, messageSize, "out of memory" );
        return cn_statusOutOfMemory;
    }
    b->pointCount = pointCount;
    b->intBlockCount = 13u * n + 1u;
    b->intBlock = cnAllocArray( allocator, b->intBlockCount, sizeof( int ) );
    if ( b->intBlock == NULL )
    {
        b->intBlockCount = 0;
        cnHullFreeBuilder( b );
        cnFormat( message, messageSize, "out of memory" );
        return cn_statusOutOfMemory;
    }
    b->nextOutside = b->intBlock;
    b->edgeStamp = b->nextOutside + n;
    b->edgeFrom = b->edgeStamp + n;
    b->orphans = b->edgeFrom + n;
    b->candidates = b->orphans + n;
    b->flags = b->candidates + n;
    b->offsets = b->flags + n;
    b->incidence = b->offsets + n + 1;
    for ( int i = 0; i < pointCount; ++i )
    {
        // centre, scale, and flush what is too small for the exact arithmetic
        cnVec3 p = cnSub( points[i], center );
        double coordinates[3] = { p.x, p.y, p.z };
        for ( int k = 0; k < 3; ++k )
        {
            coordinates[k] = ldexp( coordinates[k], -exponent );
            coordinates[k] = fabs( coordinates[k] ) < CN_HULL_FLUSH ? 0.0 : coordinates[k];
        }
        b->points[i] = cnMakeVec3( coordinates[0], coordinates[1], coordinates[2] );
        b->candidates[i] = i;
    }

    // build, then build again without the vertices that are no corners
    int candidateCount = pointCount;
    cnStatus status = cn_statusOk;
    for ( ;; )
    {
        status = cnHullBuild( b, candidateCount, message, messageSize );
        if ( status != cn_statusOk || cnHullKeepCorners( b, &candidateCount ) == false )
        {
            break;
        }
    }

    // the result
    if ( status == cn_statusOk )
    {
        status = cnHullOutput( b, points, outHull );
        if ( status != cn_statusOk )
        {
            cnFormat( message, messageSize, "out of memory" );
        }
    }
    cnHullFreeBuilder( b );
    return status;
}

void cnDestroyHull( cnHull* hull, const cnAllocator* allocator )
{
    if ( hull == NULL )
    {
        return;
    }
    cnFree( allocator, hull->vertices, (size_t)hull->vertexCount * sizeof( cnVec3 ) );
    cnFree( allocator, hull->triangles, (size_t)hull->triangleCount * 3u * sizeof( int ) );
    memset( hull, 0, sizeof( *hull ) );
}

cnMassData cnHullMass( const cnHull* hull, double density )
{
    cnMassData mass;
    memset( &mass, 0, sizeof( mass ) );
    if ( hull == NULL || hull->vertexCount <= 0 || hull->triangleCount <= 0 )
    {
        return mass;
    }

    // the mean vertex is inside: tetrahedra about it keep the terms small
    cnVec3 origin = cn_vec3Zero;
    for ( int i = 0; i < hull->vertexCount; ++i )
    {
        origin = cnAdd( origin, hull->vertices[i] );
    }
    origin = cnScale( 1.0 / (double)hull->vertexCount, origin );

    // sum over the tetrahedra (origin, a, b, c): 6 V = det, first moment det (a + b + c) / 24,
    // second moment det / 120 (a a^T + b b^T + c c^T + s s^T) with s = a + b + c
    double volume6 = 0.0;
    cnVec3 first = cn_vec3Zero;
    double xx = 0.0, yy = 0.0, zz = 0.0, xy = 0.0, xz = 0.0, yz = 0.0;
    for ( int t = 0; t < hull->triangleCount; ++t )
    {
        const int* v = hull->triangles + 3 * t;
        cnVec3 a = cnSub( hull->vertices[v[0]], origin );
        cnVec3 b = cnSub( hull->vertices[v[1]], origin );
        cnVec3 c = cnSub( hull->vertices[v[2]], origin );
        double det = cnDot( a, cnCross( b, c ) );
        cnVec3 s = cnAdd( cnAdd( a, b ), c );
        volume6 += det;
        first = cnMulAdd( first, det, s );
        xx += det * ( a.x * a.x + b.x * b.x + c.x * c.x + s.x * s.x );
        yy += det * ( a.y * a.y + b.y * b.y + c.y * c.y + s.y * s.y );
        zz += det * ( a.z * a.z + b.z * b.z + c.z * c.z + s.z * s.z );
        xy += det * ( a.x * a.y + b.x * b.y + c.x * c.y + s.x * s.y );
        xz += det * ( a.x * a.z + b.x * b.z + c.x * c.z + s.x * s.z );
        yz += det * ( a.y * a.z + b.y * b.z + c.y * c.z + s.y * s.z );
    }
    double volume = volume6 / 6.0;
    if ( !( volume > 0.0 ) )
    {
        mass.center = origin;
        return mass;
    }

    // centroid, then the covariance about it
    cnVec3 d = cnScale( 1.0 / ( 24.0 * volume ), first );
    xx = xx / 120.0 - volume * d.x * d.x;
    yy = yy / 120.0 - volume * d.y * d.y;
    zz = zz / 120.0 - volume * d.z * d.z;
    xy = xy / 120.0 - volume * d.x * d.y;
    xz = xz / 120.0 - volume * d.x * d.z;
    yz = yz / 120.0 - volume * d.y * d.z;

    // inertia = density (trace(C) E - C)
    mass.mass = density * volume;
    mass.center = cnAdd( origin, d );
    mass.inertia.cx = cnMakeVec3( density * ( yy + zz ), -density * xy, -density * xz );
    mass.inertia.cy = cnMakeVec3( -density * xy, density * ( xx + zz ), -density * yz );
    mass.inertia.cz = cnMakeVec3( -density * xz, -density * yz, density * ( xx + yy ) );
    return mass;
}
