// SPDX-License-Identifier: MIT
#pragma once

// Contact constraints: one solver problem assembled from the contact cache, solved by the
// world's solver through the solver layer, and applied to the bodies (stages 5 to 7 of the step).
// The stages read as Box2D v3's contact solver does: prepare, warm start, solve, relax, store,
// apply; split by stage as Box2D's files are: the passes (contact_solver.c), the rows and what goes
// back after the solve (contact_rows.c), the ReLCP oracle (contact_oracle.c), and the joints' rows
// and projection (joint_solver.c).
//
// Per contact point a contact group: a normal row and two tangent rows, with the world's friction
// model (cnWorldDef.frictionModel: the pyramid, or the exact cone for a solver with cn_solverCone).
// The first tangent follows the sliding direction when the point slides, so that sliding friction
// is exactly Coulomb's along it; at rest it is a fixed function of the normal. Tangent impulses
// are cached as world vectors and projected on whatever basis the next step uses. A solver that
// takes no friction rows gets one frictionless normal group per point.
//
// Inertial worlds take a soft step (Box2D v3's, Catto 2024): b = J v* + bias with
// bias = separation / dt for a speculative point (separation > 0: the gap may close, no more), and
// e v_n for a point hit faster than the restitution threshold within this step.
// Soft pass: penetrating points also push apart as a stiff, heavily damped spring (contactHertz,
// damping ratio 10): bias rate * separation in b and a constraint-force-mixing term on the diagonal
// (cnSolverProblem.softness); the solver's full budget. Relax pass: the hard problem without the
// push, started from the soft pass's impulses, with the world's small relax budget
// (cnWorldDef.relaxIterations). The bodies move with the soft velocities this step and keep the
// relaxed ones, so position correction adds no kinetic energy; there is no slop, so no dead zone
// in which a tilt survives. A solver that declares cn_solverSinglePass solves the soft problem
// once and keeps its velocities.
// With the ReLCP recursion (a solver that calls the oracle, or cnWorldDef.contactRecursions) an
// inertial world solves the hard problem in one pass instead, and on the step's last substep a
// position pass: pseudo-velocities that end every pair touching at the poses the step ends at,
// with the recursion (a split impulse; docs/relcp.md).
// Overdamped worlds have no momentum to protect: one pass, b = J v* + separation / dt for every
// point, so the bodies end the step just touching (the ReLCP paper's constraint), then the
// contact recursion levels (cnWorldDef.contactRecursions).

#include "cairn/solver.h"
#include "cairn/types.h"

typedef struct cnWorld cnWorld;
typedef struct cnStepScratch cnStepScratch;

// Assemble, solve and apply. On return the bodies' velocities hold the solved values (or, for the
// bodies of a solve that failed or diverged, the velocities they had before this substep),
// scratch->pseudoLinear/pseudoAngular the soft pass's push or the position pass's correction (on
// scratch->finalSubstep), and the step report the solver's numbers and warnings.
// cn_statusOutOfMemory is the only failure.
cnStatus cnSolveContacts( cnWorld* world, double timeStep, cnStepScratch* scratch );

// Solver management (world.c calls these; world_solver.c).
cnStatus cnInitWorldSolver( cnWorld* world, const cnSolverSettings* settings, char* message, int size );
void cnDestroyWorldSolver( cnWorld* world );
// Why `solver` (which lacks cn_solverCone) cannot run a world whose friction model is the cone,
// naming the registered solvers that can.
void cnFormatConeRefusal( const cnSolverVTable* solver, char* message, int size );
