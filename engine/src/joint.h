// SPDX-License-Identifier: MIT
#pragma once

// Joints inside the world: the joint pool (slots with generations, like shapes), the pair filter
// of jointed bodies, and the rows each joint adds to the solver problem (joint.c). The model is in
// cairn/joint.h and docs/architecture.md, "Joints".

#include "cairn/joint.h"
#include "cairn/solver.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct cnWorld cnWorld;

// Places of a joint's rows, each with its own warm-start impulse: the three point rows, three
// angular rows, the lower and upper limit rows, and the axial row (a hinge's motor, a distance
// joint's rod or spring).
enum
{
    cn_jointSlotPoint = 0,   // 0, 1, 2: world x, y, z
    cn_jointSlotAngular = 3, // 3, 4, 5: fixed: world x, y, z; hinge: the two axes across the hinge
    cn_jointSlotLower = 6,
    cn_jointSlotUpper = 7,
    cn_jointSlotAxial = 8,
    cn_jointSlotCount = 9,
};

typedef struct cnJoint
{
    int bodySlotA;       // CN_NULL_INDEX when the joint slot is free
    int bodySlotB;       //
    int next;            // next free joint slot
    uint16_t generation; // bumped on destroy
    uint8_t type;        // cnJointType
    bool collideConnected;
    cnVec3 localAnchorA; // body frames, from the body origins
    cnVec3 localAnchorB;
    cnVec3 localAxisA;                   // unit, A's frame (hinge, prismatic)
    cnQuat referenceRotation;            // conj(qA) qB at creation: the relative orientation held
    bool enableLimit;                    // hinge: angles; distance: lengths
    bool enableMotor;                    // hinge
    bool enableSpring;                   // distance
    double lowerAngle;                   // hinge, rad; prismatic: the lower translation, m
    double upperAngle;                   //
    double motorSpeed;                   // rad/s; prismatic: m/s
    double maxMotorTorque;               // N m; prismatic: the motor's force, N
    double length;                       // distance, m
    double minLength;                    //
    double maxLength;                    //
    double hertz;                        // distance spring
    double dampingRatio;                 //
    double impulse[cn_jointSlotCount];   // last step's, the warm start of the next
    cnVec3 direction[cn_jointSlotCount]; // world directions of the rows (linear or angular)
    double stepTime;                     // the substep the impulses are of, s
    void* userData;
    // the rows of the current pass: first row in the problem and the slot of each row
    int firstRow;
    int rowCount;
    uint8_t rowSlot[cn_jointSlotCount];
} cnJoint;

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

// True when a joint between the bodies in these slots keeps them from colliding.
bool cnJointsFilterPair( cnWorld* world, int bodySlotA, int bodySlotB );

// Destroy every joint of a body (cnDestroyBody), and every joint (cnDestroyWorld).
void cnDestroyBodyJoints( cnWorld* world, int bodySlot );
void cnDestroyJoints( cnWorld* world );

// Log that the world's solver runs no joint, when the world has joints (world_solver.c).
void cnWarnJointless( const cnWorld* world );
