// SPDX-License-Identifier: MIT
#pragma once

// Narrowphase dispatch: one function per pair of shape types, in a table laid out as a matrix
// (upper triangle; the dispatcher swaps the arguments so that typeA <= typeB, then flips the
// answer back). Closed forms where they exist (closed_form.c), libccd for the remaining convex
// pairs (ccd_support.c); the torus arrives with the smooth-surface queries.

#include "collide.h"

#include "cairn/status.h"

// Contact between two placed shapes, in the caller's order: the normal points from `a` to `b`,
// localA is on `a`. `previous` (nullable) is this pair's manifold from the last step, in the same
// order. Returns cn_statusUnsupported for a pair no function handles (anything with a torus, for
// now), and cn_statusNonFinite when the pair function produced NaN or infinity (the manifold is
// then emptied): the caller reports it, nothing else breaks.
cnStatus cnCollide( const cnCollisionShape* a, const cnCollisionShape* b, double margin,
                    const cnManifold* previous, cnManifold* out );

// Whether a pair of types has a function.
bool cnIsCollisionSupported( cnShapeType a, cnShapeType b );
