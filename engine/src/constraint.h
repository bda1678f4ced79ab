// SPDX-License-Identifier: MIT
#pragma once

// Contact constraints: one solver problem assembled from the contact cache, solved by the
// world's solver, and applied to the bodies (stages 5 to 7 of the step).
//
// Per contact point: a normal row and two friction rows (the friction pyramid). The first tangent
// follows the sliding direction when the point slides, so that sliding friction is exactly
// Coulomb's along it; at rest it is a fixed function of the normal. Tangent impulses are cached
// as world vectors and projected on whatever basis the next step uses.
//
// Inertial worlds take a soft step (Box2D v3's, without substeps): b = J v* + bias with
// bias = separation / dt for a speculative point (separation > 0: the gap may close, no more), and
// e v_n for a point hit faster than the restitution threshold within this step.
// Soft pass: penetrating points also push apart as a stiff, heavily damped spring (40 Hz, damping
// ratio 10): bias rate * separation in b and a constraint-force-mixing term on the diagonal
// (cnSolverProblem.softness). Relax pass: the hard problem without the push, started from the soft
// pass's impulses. The bodies move with the soft velocities this step and keep the relaxed ones, so
// position correction adds no kinetic energy; there is no slop, so no dead zone in which a tilt
// survives.
// Overdamped worlds have no momentum to protect: one pass, b = J v* + separation / dt for every
// point, so the bodies end the step just touching (the ReLCP paper's constraint).

#include "cairn/types.h"

typedef struct cnWorld cnWorld;
typedef struct cnStepScratch cnStepScratch;

// Assemble, solve and apply. On return the bodies' velocities hold the solved values,
// scratch->pseudoVelocity the position correction, and the step report the solver's numbers.
cnStatus cnSolveContacts( cnWorld* world, double timeStep, cnStepScratch* scratch );

// Solver management (world.c calls these).
cnStatus cnInitWorldSolver( cnWorld* world, const cnSolverSettings* settings, char* message, int size );
void cnDestroyWorldSolver( cnWorld* world );
