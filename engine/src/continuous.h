// SPDX-License-Identifier: MIT
#pragma once

// Continuous collision for fast bodies (cnWorldDef.enableContinuous): no tunnelling through static
// shapes (docs/games.md, "Fast bodies and tunnelling").
//
// The discrete step sees contacts only at the poses each substep starts from, within the contact
// margin. A body that moves more than its own thickness plus the margin in one substep can start in
// front of a thin wall and end behind it with no contact ever made. After each substep integrates
// positions, this pass looks at every awake dynamic body:
//
// - Fast or not: the translation d of its centre of mass over the substep is compared with half of
//   its smallest extent (the smallest of its shapes' inner radii: a sphere's radius, a box's
//   smallest half extent, a hull's inradius about its vertex mean...). A body that moves less
//   cannot cross anything it did not already touch: it is left alone, bit for bit, and costs one
//   short loop over its shapes.
// - A fast body's shapes are swept at the orientation the substep ends with, from the start
//   position of its centre along d (cnTimeOfImpact), against the static shapes the broadphase
//   finds over the swept box (sensors, filtered pairs and joint-filtered pairs excluded).
// - A touch counts when the shape was farther than the contact margin from the static shape, along
//   the touch normal, where it started: closer, and this substep's solve had a speculative contact
//   for the pair, which is trusted (a ball rolling fast on the floor touches the floor all the
//   time and must not be stopped by it). When the touch does not count, a core sphere inside the
//   shape (a quarter of its smallest extent, at its centre) is swept instead, and its touch counts
//   from any gap: so a body that was already touching a wall and is driven through it is still
//   caught, a little deeper.
// - The earliest touch over the body's shapes wins: the body's centre goes back along d to a
//   safety distance (a quarter of the contact margin) short of that touch, its orientation and its
//   velocities unchanged. The next substep's contact update makes a speculative contact there and
//   the solve stops or bounces the body (restitution included).
//
// Rotation: the sweep uses the end orientation throughout, so it is exact for spheres and for any
// body that does not turn, and ignores what turning alone sweeps (the tips of a fast-spinning long
// rod). Dynamic-vs-dynamic and dynamic-vs-kinematic pairs are not swept: two fast bodies can still
// pass through each other. Bodies held by a joint are not swept: putting one link back on its own
// pulls its joints apart (the ragdoll's landing opened them 23.6 mm instead of 15.1 mm). With a contact
// margin of 0 no speculative contact can hold the body at the safety distance; then only the core sweep acts
// and the body stops partly inside the wall, where the solve pushes it out.

#include "cairn/math.h"

#include <stdbool.h>

typedef struct cnShape cnShape;
typedef struct cnWorld cnWorld;
typedef struct cnStepScratch cnStepScratch;

// A body is fast when its centre moves more than this fraction of its smallest extent in a substep.
#define CN_CONTINUOUS_FAST_FRACTION 0.5
// The core sphere's radius, as a fraction of the shape's smallest extent.
#define CN_CONTINUOUS_CORE_FRACTION 0.25
// The distance short of the touch a swept body stops at, as a fraction of the contact margin.
#define CN_CONTINUOUS_SAFETY_FRACTION 0.25
// A touch of the whole shape counts when the start gap along the touch normal exceeds the contact
// margin and this floor, m: with a margin of 0, a shape that starts touching is not stopped by the
// shape it slides on.
#define CN_CONTINUOUS_MIN_GAP 0.005

// The pass, after a substep integrated positions: fast bodies moved back to just short of their
// first touch of a static shape. `scratch` holds the poses the substep started from. Adds to the
// step report's continuous counters.
void cnSolveContinuous( cnWorld* world, const cnStepScratch* scratch );

// The smallest extent of a body's colliding shapes, m (CN_HUGE for a body with none).
double cnBodyMinExtent( const cnWorld* world, int row );

// A shape's smallest extent (its inner radius: a sphere's or capsule's radius, a box's smallest half
// extent, a hull's distance from its vertex mean to its nearest face, CN_HUGE for a plane) and the
// centre of that core sphere, shape frame. Computed when the geometry is set (cnShape.coreRadius).
double cnShapeCore( const cnShape* shape, cnVec3* center );
