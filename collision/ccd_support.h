// SPDX-License-Identifier: MIT
#pragma once

// Support functions, bounding boxes and the generic convex pair function (libccd's MPR for
// penetration, our own GJK for distance, a persistent manifold built from one point per step).
//
// What libccd (Debian's 2.1, CCD_DOUBLE) gives, and how it is used:
// - ccdMPRPenetration is the only libccd call, for overlapping (or nearly touching) shapes. MPR
//   answers along the ray from its interior point through the origin of the Minkowski difference,
//   which is not the minimum translation in general (a sphere against a capsule's side: normals
//   off by 1e-3, depths by up to 0.3 m in our tests), its stopping test compares the new support
//   point with the nearest portal vertex only (direction off near portal edges, danfis/libccd#71),
//   a touching contact gives depth 0 with a zero direction (#49), and its portal refinement has
//   no iteration limit. So MPR runs on B swept by a small sphere (origin strictly inside, normals
//   unchanged), under a budget of support calls (past it the support is NaN and MPR gives up), and
//   its direction is only one candidate among others (below).
// - ccdGJKPenetration (EPA) is not called: NaN for face-touching boxes (#25), a crash on touching
//   boxes (#68), hangs (#7), and it allocates.
// - There is no distance function in 2.1: separated shapes go through our own GJK
//   (cnConvexDistance) on the same support functions.
//
// How cnConvexQuery finds the normal:
// - spheres and capsules are a core (point, segment) swept by a radius: while the cores are apart,
//   GJK on the cores is exact whatever the depth (sep = core distance - radii);
// - otherwise the candidates are GJK's direction, the centre-to-centre direction, the previous
//   normal, and for overlaps MPR's direction, both senses of the six local axes of the two shapes
//   and the best face normal of each hull;
// - the best candidate is polished by projected gradient descent on sep(n) (its gradient is the
//   support point of the Minkowski difference), and its opposite is tried too.
//
// Every direction libccd or our GJK proposes is scored the same way, with our support functions:
// the separation along a unit n (from A to B) is
//     sep(n) = min_{b in B} dot(n, b) - max_{a in A} dot(n, a) = dot(n, sB(-n)) - dot(n, sA(n)).
// For convex shapes sep(n) <= the signed distance for every n, with equality at the optimum
// (separating axis theorem): the distance when apart, minus the penetration depth when
// overlapping. So the reported normal is the candidate with the largest sep(n), and the reported
// separation is exactly sep(normal): never NaN, never more optimistic than the truth.

#include "collide.h"

#include "cairn/math.h"
#include "cairn/types.h"

#include <stdbool.h>

// Farthest point of the shape in `direction` (any length), in the shape frame. Plane: the point
// of the plane nearest the shape origin (a plane has no bounded support). Zero or non-finite
// direction: the support along +x (a defined surface point, never NaN). Ties (a box face, a
// cylinder cap) resolve to a fixed point: box components with a zero direction component take
// +halfExtent; a cylinder or torus asked straight along z gives the rim point on +x; capsule and
// cylinder with a zero z component take z = 0 on the side; hulls return the first best vertex.
// `hull` may be NULL for hulls: geometry->hull.points is then used.
cnVec3 cnLocalSupport( const cnGeometry* geometry, const cnHull* hull, cnVec3 direction );

// World-space support of a placed shape: R * cnLocalSupport( R^T d ) + p.
cnVec3 cnWorldSupport( const cnCollisionShape* shape, cnVec3 direction );

// A point strictly inside the shape, shape frame: the origin for every type but hulls, whose
// vertex mean is used (hull points need not surround the shape origin).
cnVec3 cnLocalCenter( const cnGeometry* geometry, const cnHull* hull );

// Radius of a sphere about cnLocalCenter that holds the shape (0 for planes).
double cnLocalBoundingRadius( const cnGeometry* geometry, const cnHull* hull );

// Tight world box of a placed shape (closed forms for the smooth shapes, the transformed vertices
// for hulls). Planes: +-CN_HUGE on every axis, except that when the world normal lies along a
// coordinate axis (the other two components below 1e-12) the box is cut at the plane on that
// axis, padded by 1e-6 (1 + |offset|) m so that a residual tilt of 1e-12 over 1e6 m stays inside.
cnAABB cnComputeAABB( const cnCollisionShape* shape );

cnAABB cnAABBUnion( cnAABB a, cnAABB b );

// Grown by `margin` on every side.
cnAABB cnAABBInflate( cnAABB box, double margin );

// Closed boxes: touching faces overlap.
bool cnAABBOverlaps( cnAABB a, cnAABB b );

// Whether `outer` holds `inner` entirely.
bool cnAABBContains( cnAABB outer, cnAABB inner );

// Result of cnConvexDistance.
typedef struct cnDistanceResult
{
    double distance; // >= 0; 0 when the shapes overlap or touch
    cnVec3 pointA;   // closest point on A, world (meaningful when separated)
    cnVec3 pointB;   // closest point on B, world
    cnVec3 normal;   // unit, from A to B: the last search direction; zero if there never was one
    bool overlap;    // the origin is inside the Minkowski difference (up to the tolerance)
    int iterations;
} cnDistanceResult;

// GJK distance between two convex placed shapes (not planes, not tori), on cnWorldSupport.
// Johnson's sub-algorithm in the Voronoi-region form, at most 64 iterations; stops when the gap
// between the upper bound |v| and the lower bound dot(v, w) / |v| falls below 1e-12 of the shapes'
// size or 1e-14 relative, or when a step makes no progress. `distance` is then an upper bound,
// within that gap of the truth. Overlap: |v| below 1e-12 of the size, or a tetrahedron holds the
// origin.
cnDistanceResult cnConvexDistance( const cnCollisionShape* a, const cnCollisionShape* b );

// libccd's ccdMPRPenetration alone, on the shapes as they are (for tests and diagnostics):
// false when it reports no hit or an unusable answer (NaN, zero direction).
bool cnMprPenetration( const cnCollisionShape* a, const cnCollisionShape* b, double* depth, cnVec3* normal,
                       cnVec3* position );

// What the penetration query found, before it becomes a manifold point.
typedef struct cnConvexContact
{
    cnVec3 normal;     // unit, from A towards B
    double separation; // sep(normal); negative when overlapping
    cnVec3 pointA;     // on A's supporting plane along normal, world
    cnVec3 pointB;     // on B's supporting plane along -normal, world
    int source;        // cn_contactFrom* below: which candidate won (for tests and statistics)
} cnConvexContact;

enum
{
    cn_contactFromGjk = 0,
    cn_contactFromMpr = 1,
    cn_contactFromCenters = 2,
    cn_contactFromPrevious = 3,
    cn_contactFromAxis = 4
};

// One contact between two convex shapes (every type but plane and torus), whether they overlap or
// not. `previousNormal` (nullable) is tried as a candidate direction too. Always finite for finite
// input; returns false only for non-finite transforms.
bool cnConvexQuery( const cnCollisionShape* a, const cnCollisionShape* b, const cnVec3* previousNormal,
                    cnConvexContact* contact );

// Counters of what cnConvexQuery did on the calling thread, for tests and statistics only
// (nothing reads them to decide anything).
typedef struct cnConvexStats
{
    long queries;
    long mprCalls;
    long mprRejected; // misses, non-finite answers, zero directions
} cnConvexStats;

extern _Thread_local cnConvexStats cn_convexStats;

// Persistent-manifold tuning.
#define CN_MANIFOLD_NORMAL_COS 0.95 // previous points are dropped when the normal turns more
#define CN_MANIFOLD_DRIFT_MAX  0.02 // m: a point drifting tangentially farther is dropped ...
#define CN_MANIFOLD_DRIFT_SIZE 0.05 // ... or farther than this fraction of the smaller shape

// The generic convex pair function (cnCollideFcn), for every pair among sphere, box, capsule,
// cylinder, ellipsoid and hull, in any order. One new point per call from cnConvexQuery; the
// points of `previous` are re-evaluated at the new transforms from their localA/localB (separation
// along the new normal; dropped when farther apart than `margin`, when they drifted tangentially
// by more than min(CN_MANIFOLD_DRIFT_MAX, CN_MANIFOLD_DRIFT_SIZE * smaller bounding radius), or
// when the normal turned by more than acos(CN_MANIFOLD_NORMAL_COS)). The new point replaces a kept
// point closer than the drift threshold (and takes its id); otherwise it gets id 1 + the largest id
// of `previous` (wrapping), so a point keeps its id while it persists and a dropped id is not
// reused on the next step. At most 4 points: the deepest, then those spanning the largest area.
// `previous` may alias `manifold`.
void cnCollideConvex( const cnCollisionShape* a, const cnCollisionShape* b, double margin,
                      const cnManifold* previous, cnManifold* manifold );

// The common start of a pair function that keeps a persistent manifold: copies `previous`
// (nullable; it may alias `manifold`) into `old` with its point count clamped, clears `manifold`,
// turns a NaN margin into 0, and returns false when A's box grown by the margin misses B's box.
bool cnBeginPersistentPair( const cnCollisionShape* a, const cnCollisionShape* b, double* margin,
                            const cnManifold* previous, cnManifold* old, cnManifold* manifold );

// The persistent-manifold step of cnCollideConvex, for any pair function that finds one new point
// per step: `previous` (its points re-evaluated at the shapes' transforms, as above) merged with
// the new point (surface points pointA on A and pointB on B, world, separation along the unit
// normal n, surface parameters for the next query). `previous` may alias `manifold`.
void cnMergePersistentPoint( const cnCollisionShape* a, const cnCollisionShape* b, double margin,
                             const cnManifold* previous, cnVec3 n, cnVec3 pointA, cnVec3 pointB,
                             double separationAB, cnSurfaceParams paramA, cnSurfaceParams paramB,
                             cnManifold* manifold );
