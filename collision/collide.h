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

typedef struct cnManifoldPoint
{
    cnVec3 point;      // world, midway between the surfaces
    cnVec3 localA;     // surface point on A, in A's shape frame
    cnVec3 localB;     // surface point on B, in B's shape frame
    double separation; // along the normal, m; negative is penetration
    uint32_t id;       // feature key, stable while the same features touch
} cnManifoldPoint;

typedef struct cnManifold
{
    cnVec3 normal; // unit, from A towards B
    int pointCount;
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
