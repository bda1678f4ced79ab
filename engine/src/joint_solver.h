// SPDX-License-Identifier: MIT
#pragma once

// Joint rows and projection (joint_solver.c): the rows each joint adds to a solver problem, in
// every pass a contact solve runs (contact_solver.c), the impulses they keep for the next warm
// start, the geometric stiffness of loaded joints, and the projection back onto the joints after
// a substep moved the bodies. The joint pool and API are joint.h's; the model is in cairn/joint.h
// and docs/architecture.md, "Joints".

#include "cairn/solver.h"

#include <stdbool.h>

typedef struct cnWorld cnWorld;

// What the rows of joints need beyond b: the soft pass's extra bias and softness (position
// correction, as for penetrating contacts), and the softness every pass has (springs).
typedef struct cnJointSoft
{
    double* softBias;       // (rowCapacity) added to b in the soft pass
    double* softSoftness;   // (rowCapacity) the soft pass's softness
    double* springSoftness; // (rowCapacity) softness of every pass (spring rows), else 0
    bool pushes;            // some row has a soft-pass push
    bool springs;           // some row has spring softness
} cnJointSoft;

// How the rows are built.
typedef enum cnJointPass
{
    // an inertial world's velocity problem: hard b = J v* (+ speculative limits, motor speeds,
    // springs); the position error as a soft-pass push
    cn_jointPassSoft = 0,
    // the whole position error in b: C / dt (overdamped worlds, and the position pass of an
    // inertial world with the split impulse, where motors and springs are left out)
    cn_jointPassPositional = 1,
    cn_jointPassPosition = 2,
    // the joints' position error alone, b = C / dt (no velocities in b, no motors or springs): the rows of
    // the projection after the positions moved (cnProjectJoints); the joints keep the directions
    // and rows of the velocity pass (warm starts, reported forces)
    cn_jointPassProjection = 3,
} cnJointPass;

// Rows and groups the world's joints may add to one problem (an upper bound).
int cnJointRowBound( const cnWorld* world );

// Append every joint's rows to `problem` (its bodies and W blocks prepared: `solverIndex` maps body
// rows to solver indices). `lambda` gets the warm start when `warmStart`; `soft` (nullable for
// the positional passes) the soft-pass data, zeroed by the caller; `rowVelocity` (nullable) each
// row's J v at the bodies' current velocities, kinematic bodies included. Rows the solver cannot
// take are left out and raise cn_warnJointsDropped.
void cnAppendJointRows( cnWorld* world, cnSolverProblem* problem, const int* solverIndex, double* lambda,
                        double timeStep, cnJointPass pass, bool warmStart, cnJointSoft* soft,
                        double* rowVelocity );

// Stiffen the W blocks of bodies that joints hold under load (an inertial world's velocity
// problem): each joint end adds h^2 |f| |r| to its body's inertia about every axis, with f the
// joint's force of the last step and r the lever arm from the centre of mass to the anchor, and
// the body's angular W block becomes the inverse of that. `wAngular` holds the blocks of the
// solver indices `solverIndex` maps body rows to.
void cnAddJointGeometricInertia( cnWorld* world, const int* solverIndex, double* wAngular, double timeStep );

// Keep the impulses of the joints' rows for the next step's warm start (a joint that had no rows
// because its bodies sleep keeps the ones it had).
void cnStoreJointImpulses( cnWorld* world, const double* lambda, double timeStep );

// Joint projection (cnWorldDef.enableJointProjection; inertial worlds): after a substep's positions
// moved, bring the bodies back onto their joints' equality constraints (post-stabilisation, Cline
// and Pai 2003): Newton steps on the positions, each the mass-weighted least change that removes
// the linearised error, J W J^T lambda = -C, solved exactly (cnLayerSolveBilateral); then the
// velocities' least change that zeroes those rows' J v (kinematic bodies' motion included). Limits
// carried past their bound join both as equalities. cn_statusOutOfMemory is the only failure.
cnStatus cnProjectJoints( cnWorld* world, double timeStep );
