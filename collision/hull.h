// SPDX-License-Identifier: MIT
#pragma once

// Convex hull of a point cloud (quickhull, see hull.c) and the mass properties of the solid hull.

#include "cairn/base.h"
#include "cairn/math.h"
#include "cairn/status.h"
#include "cairn/types.h"

// A closed, outward-oriented triangulation of the convex hull of a point cloud.
typedef struct cnHull
{
    int vertexCount;
    cnVec3* vertices; // (vertexCount) hull vertices, a subset of the input points, in input order
    int triangleCount;
    int* triangles; // (triangleCount x 3) vertex indices, counter-clockwise seen from outside
} cnHull;

// Hull of a point cloud, built with exact orientation tests (see hull.c): the result is convex and
// closed whatever the input. Points within a small tolerance of the hull's surface (1e-8 of the
// cloud's largest extent) count as on it: duplicates, interior points and points on faces or edges
// are never vertices, and a cloud thinner than that has no volume. On failure `outHull` is zeroed, nothing is
// kept, and `message` (nullable, `messageSize` bytes) gets one line naming the field, e.g. "points: need at
// least 4 points, got 3":
// - cn_statusInvalidArgument: fewer than 4 points, a NULL array, or no volume (all points
//   coincide, lie on one line or lie in one plane);
// - cn_statusNonFinite: a point with NaN or infinity ("points[5]: not a finite number");
// - cn_statusOutOfMemory: the allocator said no.
// Memory goes through `allocator` (NULL: the C library); free it with cnDestroyHull.
cnStatus cnComputeHull( const cnVec3* points, int pointCount, const cnAllocator* allocator, cnHull* outHull,
                        char* message, int messageSize );

// Free a hull through the allocator it was computed with, and zero it. A zeroed hull is a no-op.
void cnDestroyHull( cnHull* hull, const cnAllocator* allocator );

// Mass properties of the solid hull of uniform `density`, in the hull's frame: exact up to
// round-off (a sum of signed tetrahedra about the mean vertex). A zeroed hull gives zero mass.
cnMassData cnHullMass( const cnHull* hull, double density );

// The solid hull's mass properties placed at `pose` (as cnComputeMass does for any geometry),
// for callers that already hold the hull. Checks the density and the pose; zero on failure.
cnStatus cnComputeHullMassAtPose( const cnHull* hull, double density, cnTransform pose, cnMassData* outMass );
