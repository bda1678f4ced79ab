// SPDX-License-Identifier: MIT
#pragma once

// Ray casts against single shapes: exact closed forms for every shape type.
//
// A ray is the segment origin + t translation, t in [0, maxFraction]. It hits a shape where it
// ENTERS the solid: the smallest t at which it passes from outside to inside (or touches the
// surface while heading in). A ray whose origin lies inside a convex shape does not hit it; one
// that starts inside a torus's tube can hit the ring where it enters the tube again.
//
// How each type is solved, in the shape frame:
// - sphere, ellipsoid (scaled to the unit sphere), capsule (its finite cylinder and its two end
//   spheres; the union's entry is the earliest entry of the parts), the cylinder's side:
//   quadratics whose discriminant comes from the line's closest point to the centre (or axis) and
//   whose roots are taken in forms that do not cancel, so that a far origin or a nearly tangent
//   ray keeps its digits;
// - box, cylinder, hull, plane: interval clipping (slabs, the circle of the cylinder, the hull's
//   face planes, the plane's half-space); the entry is the last lower bound, its feature the normal;
// - torus: the quartic (|x|^2 + R^2 - r^2)^2 - 4 R^2 (x^2 + y^2) along the ray, after the ray is
//   clipped to the torus's bounding sphere and put in unit length (well-scaled coefficients). Its
//   real roots on the clipped interval are isolated by recursion on the derivatives (the roots of
//   the derivative split the interval into monotone pieces, the quadratic at the bottom in closed
//   form), each found by safeguarded Newton within its bracket, and the entry root polished by
//   Newton on the torus's signed distance. A tangential touch (a double root) is not a hit.

#include "collide.h"

#include "cairn/math.h"
#include "cairn/types.h"

#include <stdbool.h>

// Where a ray enters a shape.
typedef struct cnRayHitLocal
{
    double fraction; // t of the entry point, in [0, maxFraction]
    cnVec3 normal;   // outward unit normal of the surface at the entry point
} cnRayHitLocal;

// Ray in the shape frame: `origin` and `translation` in the shape's own frame. `hull` is needed
// for hulls (its triangles give the face planes). False when the ray does not enter the shape at
// a t in [0, maxFraction]; `out` is then left alone.
bool cnRayCastLocal( const cnGeometry* geometry, const cnHull* hull, cnVec3 origin, cnVec3 translation,
                     double maxFraction, cnRayHitLocal* out );

// Ray in the world frame against a placed shape; the normal comes back in the world frame.
bool cnRayCastShape( const cnCollisionShape* shape, cnVec3 origin, cnVec3 translation, double maxFraction,
                     cnRayHitLocal* out );

// Does the ray meet the closed box at some t in [0, maxFraction]? Slab test; a zero component
// of the translation is handled without dividing by it.
bool cnRayOverlapsAABB( cnAABB box, cnVec3 origin, cnVec3 translation, double maxFraction );
