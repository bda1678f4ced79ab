// SPDX-License-Identifier: MIT
#pragma once

/// @defgroup joint Joints
/// Constraints between two bodies, through handles like bodies (Box2D v3's joints, in 3D).
///
/// A joint joins body A and body B (at least one of them dynamic) at an anchor point given in each
/// body's frame (from the body origin, m): `localAnchorA` on A and `localAnchorB` on B are held
/// together. Axes are given in A's frame. Angles (hinge limits) are measured from the two bodies'
/// relative orientation when the joint is created: create the bodies in the pose the joint should
/// hold. Every step each joint adds a group of bilateral rows to the world's solver problem
/// (docs/architecture.md, "Joints"):
///
/// | joint    | rows                                                                       |
/// | -------- | -------------------------------------------------------------------------- |
/// | ball     | 3: the anchors coincide                                                    |
/// | hinge    | 5: the anchors coincide, the axis stays aligned; + 2 limit rows, + 1 motor |
/// | fixed    | 6: the anchors coincide, the relative orientation stays                     |
/// | distance | 1: the anchors' distance is `length`; or a spring row and 2 limit rows     |
/// | prismatic| 5: B's anchor on A's axis, the relative orientation stays; + 2 limit, + 1 motor |
///
/// Position errors are corrected in the soft pass of an inertial world (a stiff, damped spring
/// at twice the world's contactHertz, as Box2D v3's soft step does), so correction adds no
/// energy; joint impulses are kept by each joint and warm-start the next step.
///
/// A solver without bilateral rows (cn_solverBilateral, e.g. `lemke`) runs no joint: the world
/// logs that when the solver is set and every step with joints raises cn_warnJointsDropped. A
/// solver without bounded rows (cn_solverBounded) runs joints without their motors (also
/// cn_warnJointsDropped); limits are one-sided rows, which such a solver takes (ipm), but a
/// solver without bilateral rows drops the whole joint, limits included.
///
/// The two bodies of a joint do not collide with each other unless `collideConnected` is set.
/// Destroying a body destroys its joints.
/// @{

#include "cairn/base.h"
#include "cairn/id.h"
#include "cairn/math.h"
#include "cairn/status.h"

#include <stdbool.h>

/// Kinds of joints.
typedef enum cnJointType
{
    cn_ballJoint = 0,      ///< point to point: 3 rotational degrees of freedom left
    cn_hingeJoint = 1,     ///< revolute: one rotation about an axis, with a limit and a motor
    cn_fixedJoint = 2,     ///< weld: no relative motion
    cn_distanceJoint = 3,  ///< the anchors' distance: rigid, or a spring between limits
    cn_prismaticJoint = 4, ///< slider: one translation along an axis, with a limit and a motor
    cn_jointTypeCount
} cnJointType;

/// Ball joint (point to point). Initialize with cnDefaultBallJointDef().
typedef struct cnBallJointDef
{
    cnBodyId bodyA;
    cnBodyId bodyB;
    /// The anchor on each body, body frame (from the body origin), m.
    cnVec3 localAnchorA;
    cnVec3 localAnchorB;
    /// Let the two bodies collide with each other (default false).
    bool collideConnected;
    void* userData;
    /// Set by cnDefaultBallJointDef().
    int internalValue;
} cnBallJointDef;

/// Hinge (revolute) joint. Initialize with cnDefaultHingeJointDef().
typedef struct cnHingeJointDef
{
    cnBodyId bodyA;
    cnBodyId bodyB;
    /// The anchor on each body, body frame, m.
    cnVec3 localAnchorA;
    cnVec3 localAnchorB;
    /// The hinge axis in A's frame (normalized on creation; default z).
    cnVec3 localAxisA;
    /// Keep the hinge angle (B about the axis relative to A, right-handed, from the pose at
    /// creation), rad, within [lowerAngle, upperAngle] (lower <= upper, both within [-pi, pi]).
    bool enableLimit;
    double lowerAngle;
    double upperAngle;
    /// Drive the hinge's relative angular speed to motorSpeed, rad/s, with a torque of at most
    /// maxMotorTorque, N m (>= 0). A motor with a speed of 0 is a joint friction.
    bool enableMotor;
    double motorSpeed;
    double maxMotorTorque;
    bool collideConnected;
    void* userData;
    int internalValue;
} cnHingeJointDef;

/// Fixed (weld) joint. Initialize with cnDefaultFixedJointDef().
typedef struct cnFixedJointDef
{
    cnBodyId bodyA;
    cnBodyId bodyB;
    /// The anchor on each body, body frame, m. The relative orientation held is the one at creation.
    cnVec3 localAnchorA;
    cnVec3 localAnchorB;
    bool collideConnected;
    void* userData;
    int internalValue;
} cnFixedJointDef;

/// Distance joint. Initialize with cnDefaultDistanceJointDef().
typedef struct cnDistanceJointDef
{
    cnBodyId bodyA;
    cnBodyId bodyB;
    /// The anchor on each body, body frame, m.
    cnVec3 localAnchorA;
    cnVec3 localAnchorB;
    /// Rest length, m (> 0; default 1).
    double length;
    /// Keep the length within [minLength, maxLength], m (0 <= min <= max). Acts with the spring only:
    /// without it the joint is rigid at `length`.
    bool enableLimit;
    double minLength;
    double maxLength;
    /// A spring towards `length` instead of a rigid rod: frequency, Hz (>= 0; 0 is a free rope
    /// between the limits), and damping ratio (>= 0, 1 is critical).
    bool enableSpring;
    double hertz;
    double dampingRatio;
    bool collideConnected;
    void* userData;
    int internalValue;
} cnDistanceJointDef;

/// Prismatic (slider) joint. Initialize with cnDefaultPrismaticJointDef().
typedef struct cnPrismaticJointDef
{
    cnBodyId bodyA;
    cnBodyId bodyB;
    /// The anchor on each body, body frame, m: B's anchor slides along the axis through A's.
    cnVec3 localAnchorA;
    cnVec3 localAnchorB;
    /// The sliding axis in A's frame (normalized on creation; default x). The relative orientation
    /// held is the one at creation.
    cnVec3 localAxisA;
    /// Keep the translation (B's anchor from A's, along the axis), m, within [lower, upper].
    bool enableLimit;
    double lowerTranslation;
    double upperTranslation;
    /// Drive the relative speed along the axis to motorSpeed, m/s, with a force of at most
    /// maxMotorForce, N (>= 0).
    bool enableMotor;
    double motorSpeed;
    double maxMotorForce;
    bool collideConnected;
    void* userData;
    int internalValue;
} cnPrismaticJointDef;

/// Defaults: null bodies, anchors at the origins, no limit, no motor, no spring.
CN_API cnBallJointDef cnDefaultBallJointDef( void );
/// Defaults as for the ball joint; axis z, limits [-pi/4, pi/4] (disabled), motor speed 0 and
/// maximum torque 0 (disabled).
CN_API cnHingeJointDef cnDefaultHingeJointDef( void );
CN_API cnFixedJointDef cnDefaultFixedJointDef( void );
/// Length 1, limits [0, 1e9] (disabled), spring 0 Hz with damping ratio 0 (disabled).
CN_API cnDistanceJointDef cnDefaultDistanceJointDef( void );
/// Axis x, limits [-1, 1] m (disabled), motor speed 0 and maximum force 0 (disabled).
CN_API cnPrismaticJointDef cnDefaultPrismaticJointDef( void );

/// Create a joint. A null id when the def is invalid: a null or stale body, the same body twice,
/// bodies of another world, neither body dynamic, NaN or infinity (cn_statusNonFinite), a
/// negative torque or length, limits out of order; the reason is logged with its status code.
CN_API cnJointId cnCreateBallJoint( cnWorldId worldId, const cnBallJointDef* def );
CN_API cnJointId cnCreateHingeJoint( cnWorldId worldId, const cnHingeJointDef* def );
CN_API cnJointId cnCreateFixedJoint( cnWorldId worldId, const cnFixedJointDef* def );
CN_API cnJointId cnCreateDistanceJoint( cnWorldId worldId, const cnDistanceJointDef* def );
CN_API cnJointId cnCreatePrismaticJoint( cnWorldId worldId, const cnPrismaticJointDef* def );

/// Destroy a joint; its id becomes stale. cn_statusInvalidId for a null or stale id,
/// cn_statusWorldLocked from inside a step.
CN_API cnStatus cnDestroyJoint( cnJointId jointId );

/// False for null, stale or forged ids. Never logs.
CN_API bool cnJoint_IsValid( cnJointId jointId );

/// Joints alive in a world (0 for an invalid id).
CN_API int cnWorld_GetJointCount( cnWorldId worldId );
/// Up to `capacity` ids of the world's joints, in slot order; returns how many were written (0 for an
/// invalid world or a NULL array).
CN_API int cnWorld_GetJoints( cnWorldId worldId, cnJointId* jointIds, int capacity );

/// Turn the joint projection on or off (cnWorldDef.enableJointProjection: after each substep the
/// bodies are put back onto their joints' equality constraints). Between steps;
/// cn_statusWorldLocked (logged) from inside cnWorld_Step, cn_statusInvalidId for an invalid id.
CN_API cnStatus cnWorld_EnableJointProjection( cnWorldId worldId, bool enable );
/// False for an invalid id.
CN_API bool cnWorld_IsJointProjectionEnabled( cnWorldId worldId );

/// Getters; zero values for an invalid id.
CN_API cnJointType cnJoint_GetType( cnJointId jointId );
CN_API cnBodyId cnJoint_GetBodyA( cnJointId jointId );
CN_API cnBodyId cnJoint_GetBodyB( cnJointId jointId );
CN_API cnVec3 cnJoint_GetLocalAnchorA( cnJointId jointId );
CN_API cnVec3 cnJoint_GetLocalAnchorB( cnJointId jointId );
/// The anchors in the world frame now, m.
CN_API cnVec3 cnJoint_GetWorldAnchorA( cnJointId jointId );
CN_API cnVec3 cnJoint_GetWorldAnchorB( cnJointId jointId );
CN_API bool cnJoint_GetCollideConnected( cnJointId jointId );
CN_API void* cnJoint_GetUserData( cnJointId jointId );
CN_API cnStatus cnJoint_SetUserData( cnJointId jointId, void* userData );

/// How far the joint's position conditions are from holding now, m: the distance between the
/// anchors (ball, hinge, fixed), B's anchor's distance from A's axis (prismatic), or how far the anchors'
/// distance is from `length` (a rigid distance joint) or outside [minLength, maxLength] (a spring with
/// limits; 0 for a spring without). NaN for an invalid id.
CN_API double cnJoint_GetConstraintError( cnJointId jointId );
/// The angle, rad, by which the relative orientation breaks the joint's angular conditions: the
/// hinge axes' misalignment (hinge), the rotation away from the creation pose (fixed, prismatic); 0 for ball
/// and distance joints, NaN for an invalid id.
CN_API double cnJoint_GetAngularError( cnJointId jointId );
/// The joint's impulses of the last step, summed over its rows' directions and divided by the
/// step: the force on body B, N, and the torque on B about its anchor, N m (world frame).
CN_API cnVec3 cnJoint_GetConstraintForce( cnJointId jointId );
CN_API cnVec3 cnJoint_GetConstraintTorque( cnJointId jointId );

/// Hinge: the angle, rad (in (-pi, pi]), and relative angular speed about the axis, rad/s, now.
CN_API double cnHingeJoint_GetAngle( cnJointId jointId );
CN_API double cnHingeJoint_GetSpeed( cnJointId jointId );
/// Hinge: the axis in the world frame now.
CN_API cnVec3 cnHingeJoint_GetWorldAxis( cnJointId jointId );
/// Hinge setters, checked as in the def (cn_statusInvalidArgument / cn_statusNonFinite, logged);
/// cn_statusInvalidArgument for a joint of another type.
CN_API cnStatus cnHingeJoint_EnableLimit( cnJointId jointId, bool enable );
CN_API cnStatus cnHingeJoint_SetLimits( cnJointId jointId, double lowerAngle, double upperAngle );
CN_API cnStatus cnHingeJoint_EnableMotor( cnJointId jointId, bool enable );
CN_API cnStatus cnHingeJoint_SetMotorSpeed( cnJointId jointId, double motorSpeed );
CN_API cnStatus cnHingeJoint_SetMaxMotorTorque( cnJointId jointId, double maxMotorTorque );
/// The motor's torque in the last step, N m (0 without a motor).
CN_API double cnHingeJoint_GetMotorTorque( cnJointId jointId );

/// Distance: the anchors' distance now, m.
CN_API double cnDistanceJoint_GetCurrentLength( cnJointId jointId );
/// Distance setters, checked as in the def.
CN_API cnStatus cnDistanceJoint_SetLength( cnJointId jointId, double length );
CN_API cnStatus cnDistanceJoint_EnableLimit( cnJointId jointId, bool enable );
CN_API cnStatus cnDistanceJoint_SetLengthRange( cnJointId jointId, double minLength, double maxLength );
CN_API cnStatus cnDistanceJoint_EnableSpring( cnJointId jointId, bool enable );
CN_API cnStatus cnDistanceJoint_SetSpring( cnJointId jointId, double hertz, double dampingRatio );

/// Prismatic: the translation, m, and the relative speed along the axis, m/s, now.
CN_API double cnPrismaticJoint_GetTranslation( cnJointId jointId );
CN_API double cnPrismaticJoint_GetSpeed( cnJointId jointId );
/// Prismatic setters, checked as in the def.
CN_API cnStatus cnPrismaticJoint_EnableLimit( cnJointId jointId, bool enable );
CN_API cnStatus cnPrismaticJoint_SetLimits( cnJointId jointId, double lower, double upper );
CN_API cnStatus cnPrismaticJoint_EnableMotor( cnJointId jointId, bool enable );
CN_API cnStatus cnPrismaticJoint_SetMotorSpeed( cnJointId jointId, double motorSpeed );
CN_API cnStatus cnPrismaticJoint_SetMaxMotorForce( cnJointId jointId, double maxMotorForce );
/// The motor's force in the last step, N (0 without a motor).
CN_API double cnPrismaticJoint_GetMotorForce( cnJointId jointId );

/// @}
