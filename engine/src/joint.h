// SPDX-License-Identifier: MIT
#pragma once

// Joints inside the world: the joint pool (slots with generations, like shapes), the pair filter
// of jointed bodies, and the geometry their API and their rows share (joint.c). The rows each joint
// adds to the solver problem and the projection are joint_solver.h's. The model is in
// cairn/joint.h and docs/architecture.md, "Joints".

#include "cairn/joint.h"

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

// Where a joint is now: anchors, their lever arms from the centres of mass, orientations.
typedef struct cnJointFrame
{
    int rowA;
    int rowB;
    cnQuat qA;
    cnQuat qB;
    cnVec3 pA; // world anchors
    cnVec3 pB;
    cnVec3 rA; // from the centres of mass
    cnVec3 rB;
} cnJointFrame;

// Where a joint is now, from its bodies' poses.
cnJointFrame cnMakeJointFrame( const cnWorld* world, const cnJoint* joint );

// the rotation vector of B's rotation away from the pose held, world frame, rad
cnVec3 cnJointRotationError( const cnJoint* joint, const cnJointFrame* f );

// a hinge's axis as A carries it, and as B carries it, world frame
cnVec3 cnHingeAxisA( const cnJoint* joint, const cnJointFrame* f );
cnVec3 cnHingeAxisB( const cnJoint* joint, const cnJointFrame* f );

// the twist of B's rotation away from the pose held about the hinge axis, rad, in (-pi, pi]
double cnHingeAngle( const cnJoint* joint, const cnJointFrame* f );

// True when the row in `slot` runs along an angular direction (hinge rows 3-4 and 6-8, fixed and
// prismatic rows 3-5)
bool cnSlotIsAngular( const cnJoint* joint, int slot );

// True when a joint between the bodies in these slots keeps them from colliding.
bool cnJointsFilterPair( cnWorld* world, int bodySlotA, int bodySlotB );

// Destroy every joint of a body (cnDestroyBody), and every joint (cnDestroyWorld).
void cnDestroyBodyJoints( cnWorld* world, int bodySlot );
void cnDestroyJoints( cnWorld* world );

// Log that the world's solver runs no joint, when the world has joints (world_solver.c).
void cnWarnJointless( const cnWorld* world );
