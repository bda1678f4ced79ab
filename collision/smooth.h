// SPDX-License-Identifier: MIT
#pragma once

// Smooth-surface deepest-point queries (ReLCP digest, section 4): for every pair among sphere,
// box, capsule, cylinder, ellipsoid, torus, hull and plane that involves an ellipsoid, a capsule or
// a torus.
//
// What is computed:
// - Convex pairs: the shared-normal pair of surface points that maximises the separation along
//   the normal, Phi(n) = min_{b in B} n.b - max_{a in A} n.a over unit n (the digest's
//   support-function form). Apart, Phi is the distance and the maximiser is unique; overlapping,
//   Phi is minus the penetration depth, and elongated shapes can have several local maxima, so the
//   query starts from several directions. Every convex shape's support function is the maximum of
//   a few smooth pieces (an ellipsoid: one; a capsule: its two end balls; a cylinder: its two rims;
//   a box or hull: its vertices), so Phi is the minimum of smooth pieces and its maximum is found
//   by a sequential-quadratic (minimax) Newton method on the sphere with analytic gradients and
//   Hessians, which converges quadratically also where two or three pieces tie (an ellipsoid
//   against a box edge or face). A cylinder's cap (the cone point of its rims) has an exact
//   optimality test and a step of its own. Where both cores are polytopes (a capsule's segment
//   against a box or hull), the separating axes (face normals, segment x edge) give the exact
//   answer when the cores overlap. Capsule-sphere and capsule-capsule take the segments' closest
//   points, and a plane the support point along its normal.
// - Pairs with a torus: a torus is the set of points within its minor radius of its core circle,
//   so its separation from a shape is the signed distance from the core circle to the shape minus
//   the minor radius, a function of one angle around the ring. Every local minimum of it is a
//   contact (linked rings touch in up to two places); where the separation stays within the margin
//   along a stretch (a ring lying on a plane or a face) further points spread along it. Where the
//   core passes inside the shape (deeper than the tube), a minimum can sit on a crease of the signed
//   distance; the normal there is the shape's.
//
// Conventions: the normal is a unit vector from A towards B; pointA lies on A's surface and
// pointB on B's; separation = dot(pointB - pointA, normal), negative when overlapping; the
// surface normals at pointA and pointB are +normal and -normal (for a box or hull vertex or edge,
// +normal lies in the normal cone there).

#include "collide.h"

#include "cairn/math.h"

#include <stdbool.h>

typedef struct cnSmoothContact
{
    double separation;      // dot(pointB - pointA, normal); negative when overlapping
    cnVec3 normal;          // unit, from A towards B
    cnVec3 pointA;          // world, on A's surface
    cnVec3 pointB;          // world, on B's surface
    cnSurfaceParams paramA; // pointA on A, shape frame
    cnSurfaceParams paramB; // pointB on B, shape frame
} cnSmoothContact;

// Most contacts one query reports (pairs with a torus); the narrowphase keeps at most
// CN_MAX_MANIFOLD_POINTS of them.
#define CN_MAX_SMOOTH_CONTACTS 8

// Whether cnSmoothQuery handles this pair of types (in either order): at least one of ellipsoid,
// capsule or torus, and not both planes.
bool cnIsSmoothPair( cnShapeType a, cnShapeType b );

// The contacts of A and B, deepest first. Returns how many were written (at most `capacity`), 0
// only for an unsupported pair, non-finite transforms or capacity < 1.
// - Convex pairs: exactly one, the deepest point (or the closest points when apart), whatever
//   `margin` is.
// - Pairs with a torus: the global minimum of the separation always, then every other local
//   minimum with separation < margin, and for flat minima points spread along the touching arc.
// `warm` (nullable) holds `warmCount` contacts of the last query of the same pair, in the same
// order of shapes: the query starts from their surface parameters, checks the answer against a
// few cheap probes, and falls back to the full multistart when a probe does better.
int cnSmoothQuery( const cnCollisionShape* a, const cnCollisionShape* b, double margin,
                   const cnSmoothContact* warm, int warmCount, cnSmoothContact* contacts, int capacity );

// Signed distance from world point p to a placed shape's surface (negative inside), with the
// nearest surface point and the shape's outward unit normal there (both nullable). Every type but
// torus and plane is exact to round-off (the ellipsoid through a safeguarded 1-D root); a torus
// and a plane are closed forms too.
double cnPointSignedDistance( const cnCollisionShape* shape, cnVec3 p, cnVec3* closest, cnVec3* normal );

// What the queries did on the calling thread, for tests, benchmarks and statistics only.
typedef struct cnSmoothStats
{
    long queries;
    long warmStarts;    // queries that started from a warm contact
    long warmFallbacks; // of those, the ones that had to run the full multistart
    long newtonSteps;   // minimax Newton iterations, all starts
    long notConverged;  // starts that ran out of iterations before the tolerance
} cnSmoothStats;

extern _Thread_local cnSmoothStats cn_smoothStats;

// Narrowphase pair functions (cnCollideFcn; `a` has the lower type).
// Convex smooth pairs: one new point per step from cnSmoothQuery, warm-started from the previous
// manifold's deepest point, kept in a persistent manifold as cnCollideConvex does.
void cnCollideSmoothConvex( const cnCollisionShape* a, const cnCollisionShape* b, double margin,
                            const cnManifold* previous, cnManifold* manifold );

// Any pair with a torus: every contact of cnSmoothQuery within margin, at most 4, the deepest
// kept and the rest chosen to span the largest area.
void cnCollideTorus( const cnCollisionShape* a, const cnCollisionShape* b, double margin,
                     const cnManifold* previous, cnManifold* manifold );
