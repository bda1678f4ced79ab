// SPDX-License-Identifier: MIT
#pragma once

// What the narrowphase reads and writes: shapes placed in the world, and contact manifolds.
//
// Conventions, the same for every pair function:
// - the manifold normal is a unit vector pointing from shape A towards shape B;
// - a point's separation is measured along the normal, negative when the shapes overlap;
// - `point` is world space, midway between the two surface points;
// - `localA` / `localB` are the two surface points in the frames of shape A and shape B (the shape
//   frame, not the body frame), so a point can be re-evaluated after the bodies move;
// - `id` names the features that touch (e.g. a box vertex against a face), and stays the same
//   while the same features touch, so impulses can be warm-started from one step to the next;
// - points are reported while separation < margin (speculative contacts), at most
//   CN_MAX_MANIFOLD_POINTS of them, chosen to span the contact area.

#include "hull.h"

#include "cairn/types.h"

#include <stdint.h>

#define CN_MAX_MANIFOLD_POINTS 4

// Where a point sits on a shape's surface, in the shape frame: what the next query starts from
// (smooth.h).
// - Convex shapes (sphere, box, capsule, cylinder, ellipsoid, hull): the outward unit normal at
//   the point, n = (sin u cos v, sin u sin v, cos u): u in [0, pi] is the polar angle from +z and
//   v in (-pi, pi] the azimuth.
// - Torus: u is the angle around the ring (core point R (cos u, sin u, 0)) and v the angle around
//   the tube: the point is core + r (cos v (cos u, sin u, 0) + sin v (0, 0, 1)).
// - Plane: u = v = 0.
typedef struct cnSurfaceParams
{
    double u;
    double v;
} cnSurfaceParams;

typedef struct cnManifoldPoint
{
    cnVec3 point;           // world, midway between the surfaces
    cnVec3 localA;          // surface point on A, in A's shape frame
    cnVec3 localB;          // surface point on B, in B's shape frame
    double separation;      // along the normal, m; negative is penetration
    uint32_t id;            // feature key, stable while the same features touch
    cnVec3 normal;          // unit, from A towards B: the manifold normal unless perPointNormals
    cnSurfaceParams paramA; // smooth-surface pairs: where localA sits on A (else zero)
    cnSurfaceParams paramB; // and localB on B
} cnManifoldPoint;

typedef struct cnManifold
{
    cnVec3 normal; // unit, from A towards B (the deepest point's, with perPointNormals)
    int pointCount;
    // Points with normals of their own (a torus touching a shape in separate places). When false
    // the dispatcher copies `normal` into every point.
    bool perPointNormals;
    cnManifoldPoint points[CN_MAX_MANIFOLD_POINTS];
} cnManifold;

// A shape placed in the world: what pair functions read.
typedef struct cnCollisionShape
{
    const cnGeometry* geometry; // shape-frame geometry (for hulls, geometry->hull.points = hull->vertices)
    const cnHull* hull;         // hulls only, else NULL
    cnTransform transform;      // shape frame -> world
} cnCollisionShape;

// A pair function. `a` and `b` arrive with a->geometry->type <= b->geometry->type (the
// dispatcher swaps and flips). `previous` (nullable) is the same pair's manifold from the last
// step, for functions that build a persistent manifold from one point per step (libccd pairs);
// its points' localA/localB are re-evaluated at the new transforms. Writes pointCount 0 when the
// shapes are farther apart than `margin`.
typedef void cnCollideFcn( const cnCollisionShape* a, const cnCollisionShape* b, double margin,
                           const cnManifold* previous, cnManifold* manifold );

// Axis-aligned box.
typedef struct cnAABB
{
    cnVec3 lower;
    cnVec3 upper;
} cnAABB;

// Bounds of planes and other unbounded things: finite, so tree arithmetic stays finite.
#define CN_HUGE 1.0e18
