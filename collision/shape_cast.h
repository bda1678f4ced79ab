// SPDX-License-Identifier: MIT
#pragma once

// Time of impact and exact overlap of two placed shapes: what the shape casts and shape overlaps
// of cairn/query.h are made of, and what a swept test for fast bodies can reuse.
//
// The problem: shape A, placed, moves by t * translation (a translation, no rotation) for t in
// [0, maxFraction]; shape B stays where it is. The time of impact is the first t at which the two
// touch (their distance reaches 0). When they already overlap or touch at t = 0 the answer is
// t = 0, flagged as an initial overlap.
//
// How each pair is solved (every pair of types except plane-plane and torus-torus):
// - A and B convex (sphere, box, capsule, cylinder, ellipsoid, hull): conservative advancement.
//   A sphere or a capsule is taken as its core (a point, a segment) swept by its radius. At each t a
//   GJK of this file's own (its sub-problem solved on every face of the simplex, which stays right
//   on the flat simplices near contact) bounds the distance from above (|v|) and from below: the
//   separation sep(n) = min_B n.x - max_A n.x minus the radii along the best direction n tried.
//   Where GJK stalls with a wide gap (a curved surface, a box edge against a cylinder's rim), the
//   penetration query's and the smooth query's normals are tried, and then the ellipsoid method on
//   the concave function sep over the plane tangent to the best direction, which closes the gap
//   whatever the kinks of sep. Along a fixed n the separation falls at dot(translation, n) and no
//   faster, so A cannot touch B before t + sep(n) / dot(translation, n) (and never, when that rate
//   is not positive): each step is conservative, exact for a face meeting a face and Newton's step
//   on the distance for smooth surfaces. It stops once the upper bound falls below the tolerance:
//   the answer is then early by at most the tolerance over the closing speed, never late.
// - B a plane: closed form on A's deepest point along the plane's normal (A may be a torus).
// - B a torus, A convex: a torus is the union of the balls of its minor radius centred on its core
//   circle, so the time of impact is the smallest over the circle's angle u of the time A meets
//   the ball at u, g(u). Branch and bound over arcs of the circle: an arc's part of the torus lies
//   inside the capsule around the arc's chord whose radius is the minor radius plus the arc's
//   sagitta, and inside the slab |z| <= minor radius of the torus frame, so the later of A's times
//   of impact against those two convex sets is a lower bound for the arc; the ball at the arc's
//   midpoint gives an upper bound. The arc with the smallest lower bound is halved until no arc's
//   lower bound is below the best upper bound by more than the tolerance. The sagitta shrinks with
//   the square of the arc's width, so the work grows with the number of digits only. Where A meets
//   a whole stretch of the ring at once (a box lying flat on the torus) the slab bound is already
//   exact. The known limit: a shape meeting the inner side of the ring along a stretch at once (a
//   rod through the hole, exactly on the axis) cannot be proven by the bounds before the budget
//   of arcs is spent; the best upper bound is then returned (exact in the exactly symmetric case).
// - A a plane or a torus and B convex: the same problem seen from B, B moving by -translation.
// Tolerance: 1e-11 of the two shapes' sizes (bounding radii), in distance.

#include "collide.h"

#include "cairn/math.h"
#include "cairn/types.h"

#include <stdbool.h>

// Where and when A first touches B.
typedef struct cnToiResult
{
    double fraction;     // time of impact, in [0, maxFraction]
    cnVec3 point;        // world: where the shapes touch, A at its pose at `fraction`
    cnVec3 normal;       // unit, from A towards B (B's inward surface normal at the point)
    bool initialOverlap; // A overlaps or touches B at t = 0: fraction 0, and the point and normal
                         // are the deepest point's (cnCollide), the normal pushing B away from A
    int iterations;      // distance queries spent (for tests and statistics)
} cnToiResult;

// Whether cnTimeOfImpact handles this pair of types (in either order): every pair but plane-plane
// and torus-torus.
bool cnIsTimeOfImpactSupported( cnShapeType a, cnShapeType b );

// The time of impact of `a` moving by t * translation (world, m) against `b` at rest, t in
// [0, maxFraction]. False when they do not touch in that range, for an unsupported pair and for
// non-finite input; `out` is then zeroed.
bool cnTimeOfImpact( const cnCollisionShape* a, cnVec3 translation, const cnCollisionShape* b,
                     double maxFraction, cnToiResult* out );

// Whether the two placed shapes overlap or touch (to the tolerance above): the time of impact of a
// zero translation. False for an unsupported pair and for non-finite input.
bool cnShapesOverlap( const cnCollisionShape* a, const cnCollisionShape* b );
