// SPDX-License-Identifier: MIT
#pragma once

// Closed-form narrowphase pairs: the shape pairs whose contact manifold has an exact (or exactly
// clipped) answer, with no iteration. Each function has the cnCollideFcn signature of collide.h
// and follows its conventions: `a` has the lower (or equal) cnShapeType, the normal is a unit vector
// from A towards B, separations are along that normal (negative when overlapping), points are
// reported while separation < margin, at most CN_MAX_MANIFOLD_POINTS, chosen to span the contact
// area. `previous` is not used by these functions (their manifolds are complete every step).
//
// Feature ids (stable while the same features touch; see closed_form.c for the bit layouts):
// - sphere pairs: 0;
// - capsule ends, or the two ends of the overlap of two parallel capsules: 0 and 1 (plus flags);
// - box vertices against a plane: the vertex index (bit 0: +x, bit 1: +y, bit 2: +z);
// - box-box face contacts: reference box and face, incident face, and the two edges (of the incident
//   face or of the clipping planes) that meet at the clipped point; edge-edge contacts: both edges;
// - hull vertices against a plane: the vertex index; cylinder rim points: 0..4.
//
// Degenerate input gives finite results: coincident sphere centres, zero-length capsules, parallel
// or coincident segments, exactly touching or exactly aligned boxes, a box inside another, plane
// normals that are not unit length (normalized here, the offset scaled with them).

#include "collide.h"

// Closest points of the segments p0 + s d1 and q0 + t d2, s and t in [0, 1] (Ericson, Real-Time
// Collision Detection 5.1.9). Zero-length segments are points; parallel segments take the middle of
// the overlap of their extents.
void cnClosestSegmentSegment( cnVec3 p0, cnVec3 d1, cnVec3 q0, cnVec3 d2, double* outS, double* outT );

// sphere (A) against sphere (B)
void cnCollideSpheres( const cnCollisionShape* a, const cnCollisionShape* b, double margin,
                       const cnManifold* previous, cnManifold* manifold );

// sphere (A) against box (B)
void cnCollideSphereBox( const cnCollisionShape* a, const cnCollisionShape* b, double margin,
                         const cnManifold* previous, cnManifold* manifold );

// sphere (A) against capsule (B)
void cnCollideSphereCapsule( const cnCollisionShape* a, const cnCollisionShape* b, double margin,
                             const cnManifold* previous, cnManifold* manifold );

// sphere (A) against plane (B)
void cnCollideSpherePlane( const cnCollisionShape* a, const cnCollisionShape* b, double margin,
                           const cnManifold* previous, cnManifold* manifold );

// box (A) against box (B): separating axes, then reference-face / incident-face clipping
void cnCollideBoxes( const cnCollisionShape* a, const cnCollisionShape* b, double margin,
                     const cnManifold* previous, cnManifold* manifold );

// box (A) against capsule (B): two points for a capsule lying on a face
void cnCollideBoxCapsule( const cnCollisionShape* a, const cnCollisionShape* b, double margin,
                          const cnManifold* previous, cnManifold* manifold );

// box (A) against plane (B): the vertices within margin, at most 4
void cnCollideBoxPlane( const cnCollisionShape* a, const cnCollisionShape* b, double margin,
                        const cnManifold* previous, cnManifold* manifold );

// capsule (A) against capsule (B): two points when parallel and overlapping in extent
void cnCollideCapsules( const cnCollisionShape* a, const cnCollisionShape* b, double margin,
                        const cnManifold* previous, cnManifold* manifold );

// capsule (A) against plane (B): both segment ends
void cnCollideCapsulePlane( const cnCollisionShape* a, const cnCollisionShape* b, double margin,
                            const cnManifold* previous, cnManifold* manifold );

// cylinder (A) against plane (B): rim points, 4 for a standing cylinder, 2 for a lying one
void cnCollideCylinderPlane( const cnCollisionShape* a, const cnCollisionShape* b, double margin,
                             const cnManifold* previous, cnManifold* manifold );

// ellipsoid (A) against plane (B): the exact support point, 1 point
void cnCollideEllipsoidPlane( const cnCollisionShape* a, const cnCollisionShape* b, double margin,
                              const cnManifold* previous, cnManifold* manifold );

// hull (A) against plane (B): the hull vertices within margin, at most 4 spanning the area
void cnCollideHullPlane( const cnCollisionShape* a, const cnCollisionShape* b, double margin,
                         const cnManifold* previous, cnManifold* manifold );
