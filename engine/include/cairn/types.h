// SPDX-License-Identifier: MIT
#pragma once

/// @defgroup types Types
/// Creation structs (always start from a cnDefault*Def() call), shape geometry, mass data,
/// the step report and the views that user systems and renderers read.
/// @{

#include "cairn/base.h"
#include "cairn/id.h"
#include "cairn/math.h"
#include "cairn/status.h"

#include <stdbool.h>
#include <stdint.h>

/// Largest number of worlds alive at once.
#define CN_MAX_WORLDS 128

/// Longest body or system name kept, including the terminating zero. Longer names are an error.
#define CN_NAME_CAPACITY 64

/// Most merits a world keeps per step (cnWorld_SetResidualHistory).
#define CN_MAX_RESIDUAL_HISTORY 100000

/// How a body moves.
typedef enum cnBodyType
{
    /// Never moves; infinite mass. Planes must be on static bodies.
    cn_staticBody = 0,
    /// Moves with the velocity the user sets; infinite mass; gravity and forces do not act.
    cn_kinematicBody = 1,
    /// Moved by forces, gravity and contacts.
    cn_dynamicBody = 2,
    cn_bodyTypeCount
} cnBodyType;

/// How the bodies of a world respond to forces.
typedef enum cnDynamicsMode
{
    /// Newton: forces change velocities (games, stacking, chainmail).
    cn_dynamicsInertial = 0,
    /// Stokes: velocity = mobility x force, no memory of the previous velocity (colonies,
    /// suspensions, the ReLCP experiments).
    cn_dynamicsOverdamped = 1,
    cn_dynamicsModeCount
} cnDynamicsMode;

/// Friction models of a contact: of every contact group of a world's problems
/// (cnWorldDef.frictionModel) and of each group of a solver problem (cnRowGroup.model).
typedef enum cnFrictionModel
{
    /// Per-tangent bounds: each tangent impulse in [-mu lambda_n, mu lambda_n] (a box, or pyramid:
    /// an LCP). Friction is up to sqrt(2) stronger along the diagonals of the tangent basis.
    cn_frictionPyramid = 0,
    /// The exact circular Coulomb cone |lambda_t| <= mu lambda_n: friction the same in every
    /// direction, opposite the sliding velocity (maximum dissipation). Needs a solver with
    /// cn_solverCone.
    cn_frictionCone = 1,
    cn_frictionModelCount
} cnFrictionModel;

/// Constraint-solver choice of a world def: the solver and its two common parameters.
typedef struct cnSolverSettings
{
    /// Registered solver name, lower case, e.g. "pgs".
    char name[32];
    /// Iteration limit per step.
    int iterations;
    /// Stop when the merit residual falls below this.
    double tolerance;
} cnSolverSettings;

/// World creation settings. Must be initialized with cnDefaultWorldDef().
typedef struct cnWorldDef
{
    /// Gravity, m/s^2. Default (0, 0, -9.81).
    cnVec3 gravity;
    /// Inertial or overdamped dynamics. Default inertial.
    cnDynamicsMode dynamics;
    /// Fluid viscosity for the default overdamped mobilities, Pa s (= N s/m^2). Default 1.
    /// Spheres get Stokes drag (6 pi eta r, 8 pi eta r^3); rods and ellipsoids get the local
    /// slender-body drag of the ReLCP paper (eq. 27) with xi = viscosity.
    double viscosity;
    /// Default time step for tools that step a world on their own (cairn run), s. Default 1/60.
    double timeStep;
    /// Speculative contact distance, m: shapes closer than this get contact points (with a
    /// positive separation) so that resting contacts do not flicker. Default 0.02.
    double contactMargin;
    /// Fattening of broadphase boxes, m: a moving shape is re-inserted only when it leaves its
    /// fat box. Default 0.1.
    double aabbMargin;
    /// Substeps per step: cnWorld_Step(dt) advances the pipeline (predict, collide, solve,
    /// integrate) this many times by dt / substeps; systems run once per step. 0 to 64; default 0,
    /// automatic: 2 for an inertial world (stiff enough contacts for stacks: docs/solvers.md, "The
    /// defaults"), 1 for an overdamped one (no inertia to resolve). The step report says how many
    /// a step took.
    int substeps;
    /// Stiffness of the soft contact push-out, Hz (damping ratio 10). Default 70 (with the 2
    /// automatic substeps at 60 Hz, 0.58 of the substep rate); keep it at or below about 0.6 x
    /// the substep rate (40 Hz is stable at 60 Hz, 70 Hz at 120 Hz, 60 Hz at 60 Hz is not).
    double contactHertz;
    /// Iterations of the relax pass of inertial worlds, in the solver's own unit: after the soft
    /// pass (the solver's full budget) the hard problem is solved again from its impulses with this
    /// small budget (Box2D v3's relax). 1 to 1000; default 3. What the relax leaves unsolved of
    /// the push-out stays in the velocities: in zero gravity a box pushed out of 1 cm of
    /// penetration leaves at 2.7 mm/s with 3 sweeps, 0.02 mm/s with 10 (docs/solvers.md). Solvers
    /// that solve the compliant problem once (cn_solverSinglePass) skip it; pivoting solvers
    /// always run to the end.
    int relaxIterations;
    /// Fastest a body may move, m/s: a faster body is slowed to it and the step says so
    /// (speed_clamped). > 0; default 400 (6.7 m per 60 Hz step).
    double maxLinearSpeed;
    /// After the contact solve (in an overdamped world, each substep's), move the bodies to where
    /// the solve takes them, collide there, and add a constraint for every point still overlapping by more
    /// than contactOverlapTolerance, up to this many times (the ReLCP paper's recursion, section 3.8; the
    /// same driver as the relcp solver, with the world's solver inside). It holds contacts that one point per
    /// region cannot, such as linked rings pulled taut. 0 to 64; default 0 (off). With it on (or with a
    /// solver that calls the oracle), an inertial world solves its velocities hard (no soft push, no relax
    /// pass) and runs the recursion on a position pass on the step's last substep: pseudo-velocities,
    /// forgotten after the move, that end every pair touching, so the push-out adds no kinetic energy (a
    /// split impulse; docs/relcp.md).
    int contactRecursions;
    /// Overlap, m, above which the contact recursion adds a constraint at the trial pose. > 0;
    /// default 1e-5 (the ReLCP paper's tolerance).
    double contactOverlapTolerance;
    /// The multisphere baseline (LCP-MS of the ReLCP paper, for comparisons): every ellipsoid,
    /// capsule and torus collides as this many spheres along its major axis or core circle (its
    /// mass properties stay the smooth shape's). 0 (off, the default) or 2 to 256. The sub-spheres
    /// are hidden: contacts and events name the shape; the step report counts sub-sphere pairs.
    /// Placement rule: docs/architecture.md, "The multisphere baseline".
    int multisphere;
    /// Friction model of every contact: cn_frictionPyramid (default; every solver with friction
    /// takes it) or cn_frictionCone (the exact Coulomb cone). A cone world needs a solver with
    /// cn_solverCone: cnCreateWorld, cnWorld_SetSolver and cnWorld_SetFrictionModel refuse the
    /// combination (cn_statusUnsupported, logged with the solvers that have the cone).
    cnFrictionModel frictionModel;
    /// Sleeping of resting islands (default false; docs/architecture.md, "Islands and
    /// sleeping"): an island of dynamic bodies whose every body has moved slower than 0.05 m/s
    /// and 2 degrees/s for 0.5 s goes to sleep and costs nothing until a contact with a moving
    /// body, a setter, an impulse or a shape change wakes it.
    bool enableSleep;
    /// Continuous collision for fast bodies (docs/games.md, "Fast bodies and tunnelling"): after
    /// each substep, a dynamic body whose centre moved more than half its smallest extent (a
    /// sphere's radius, a box's smallest half extent) is swept from where it started against the
    /// static shapes, and put back just short of the first one it would have passed into, its
    /// velocity kept, so that the next contact update stops it. Slower bodies are not touched.
    /// Rotation is not swept, and dynamic bodies are not swept against each other. Default true
    /// (Box2D's). Also cnWorld_EnableContinuous.
    bool enableContinuous;
    /// Joint projection (docs/games.md, "Joints"; inertial worlds): after each substep moves the
    /// bodies, they are put back onto their joints' equality constraints (anchors together, hinge
    /// axes aligned, fixed orientations held; limits carried past their bound, back onto it) by
    /// the mass-weighted least change, exactly on a tree of joints, in Newton steps until the
    /// error is below 1e-8 m (at most 4 a substep, each asking at most 5 cm or 0.05 rad of a row); then
    /// the velocities lose, by the least change, what would pull those rows apart (which never
    /// adds kinetic energy). Contacts are not projected. Default true. False leaves the position
    /// error to the velocity solve's soft correction. Also cnWorld_EnableJointProjection.
    bool enableJointProjection;
    /// Approach speed, m/s, above which a contact that starts pressing raises a hit event
    /// (cnContactHitEvent), for pairs where a shape has cnShapeDef.enableHitEvents. A finite number
    /// >= 0; default 1 (Box2D's). Also cnWorld_SetHitEventThreshold.
    double hitEventThreshold;
    /// Solver (a registered name, see cnGetSolverAt) with its iteration limit and tolerance.
    /// Default "pgs", 10 iterations, tolerance 1e-6.
    cnSolverSettings solver;
    /// Workers the parallel stages of a step run on (docs/architecture.md, "Threads"): 1 (the
    /// default) runs everything on the calling thread; up to CN_MAX_WORKERS. The results are the
    /// same bits for every worker count (cnWorld_GetStateHash). Also cnWorld_SetWorkerCount.
    int workerCount;
    /// Solve the contacts in levels (docs/architecture.md, "Threads"): each contact takes the level
    /// after the last one of its bodies, so that no two contacts of a level move a common body and
    /// the sweep solvers update a level's contacts on all the workers at once. The levels in order
    /// are the sweep in the contact cache's order itself: the sweep solvers give the same bits
    /// either way (pgs_sm and the factorising solvers see the rows in another order, so other
    /// round-off). Worth it when the levels are wide (a pile); a stack is a chain of narrow levels
    /// that runs on one thread. Default false. Scene key world.coloring.
    bool enableColoring;
    /// Nullable, both or neither: the game's task system (Box2D v3's model). Without them a world
    /// with workerCount > 1 starts workerCount - 1 threads of its own.
    cnEnqueueTaskFcn* enqueueTask;
    cnFinishTaskFcn* finishTask;
    /// Passed to enqueueTask and finishTask.
    void* userTaskContext;
    /// Capacity hint: storage grows past it, it only avoids early reallocations.
    int bodyCapacity;
    /// Memory for everything the world owns. Zero means the C library.
    cnAllocator allocator;
    /// Nullable. Errors and warnings go here; NULL prints them to stderr.
    cnLogFcn* logFcn;
    void* logContext;
    /// Kept for the user.
    void* userData;
    /// Set by cnDefaultWorldDef(); cnCreateWorld refuses a def without it.
    int internalValue;
} cnWorldDef;

/// Body creation settings. Must be initialized with cnDefaultBodyDef().
typedef struct cnBodyDef
{
    /// Default dynamic.
    cnBodyType type;
    /// World position of the body origin, m.
    cnVec3 position;
    /// World orientation; normalized on creation (must not be zero).
    cnQuat orientation;
    /// Velocity of the centre of mass, m/s.
    cnVec3 linearVelocity;
    /// Angular velocity in the world frame, rad/s.
    cnVec3 angularVelocity;
    /// Linear damping, 1/s (v' = -c v). Default 0.
    double linearDamping;
    /// Angular damping, 1/s. Default 0.
    double angularDamping;
    /// Multiplies the world's gravity for this body. Default 1.
    double gravityScale;
    /// Force kept on the body every step until changed (cnBody_SetConstantForce), N, world frame,
    /// at the centre of mass; added to gravity and the per-step forces. Dynamic bodies only (the
    /// others ignore it, as they ignore cnBody_ApplyForce). Default zero.
    cnVec3 constantForce;
    /// Torque kept on the body every step until changed (cnBody_SetConstantTorque), N m, world
    /// frame. Dynamic bodies only. Default zero.
    cnVec3 constantTorque;
    /// The body does not rotate (Box2D's fixedRotation): its inverse inertia (inertial worlds) and
    /// its angular mobility (overdamped worlds) act as zero, so contacts and torques never turn it
    /// and its angular velocity stays zero; it slides where a free body would roll. Dynamic bodies
    /// only (the others ignore it); angularVelocity must then be zero. cnBody_GetMassData still
    /// gives the shapes' inertia. Default false. Also cnBody_SetFixedRotation.
    bool fixedRotation;
    /// Nullable. Copied; at most CN_NAME_CAPACITY - 1 characters.
    const char* name;
    /// Overdamped worlds only: replace the mobility derived from the shapes.
    bool customMobility;
    /// Translational mobility in the body frame, m/(N s), used when customMobility is set.
    cnMat3 linearMobility;
    /// Rotational mobility in the body frame, 1/(N m s), used when customMobility is set.
    cnMat3 angularMobility;
    void* userData;
    /// Set by cnDefaultBodyDef().
    int internalValue;
} cnBodyDef;

/// Surface and bulk material of a shape.
typedef struct cnMaterial
{
    /// Coulomb friction coefficient, >= 0. Default 0.6.
    double friction;
    /// Coefficient of restitution in [0, 1]. Default 0.
    double restitution;
    /// Mass density, kg/m^3, >= 0. Default 1000 (water).
    double density;
} cnMaterial;

/// Shape creation settings. Must be initialized with cnDefaultShapeDef().
typedef struct cnShapeDef
{
    /// Pose of the shape in its body's frame. Default identity.
    cnTransform localPose;
    cnMaterial material;
    /// Collision filtering: two shapes may touch when each one's category is in the other's mask.
    uint32_t categoryBits;
    uint32_t maskBits;
    /// A sensor: the shape reports which shapes overlap it (cnWorld_GetSensorEvents,
    /// cnShape_GetSensorOverlaps) and never touches anything: it has no contacts, pushes nothing,
    /// takes no part in the solve, islands or sleeping, and wakes nobody. It sees the shapes of
    /// other bodies that pass the filter (categoryBits, maskBits) and are not sensors, except a
    /// static sensor's static neighbours; its density still adds to its body's mass (set 0 for a
    /// massless sensor). Fixed at creation. Default false.
    bool isSensor;
    /// Report hit events (cnContactEvents.hitEvents) for this shape's contacts: a contact where
    /// either shape has the flag raises one when it starts pressing faster than
    /// cnWorldDef.hitEventThreshold. Also cnShape_EnableHitEvents. Default false.
    bool enableHitEvents;
    void* userData;
    /// Set by cnDefaultShapeDef().
    int internalValue;
} cnShapeDef;

/// Shape types. The order is the narrowphase table's order; append, do not reorder.
typedef enum cnShapeType
{
    cn_sphereShape,
    cn_boxShape,
    cn_capsuleShape,
    cn_cylinderShape,
    cn_ellipsoidShape,
    cn_torusShape,
    cn_hullShape,
    cn_planeShape,
    cn_shapeTypeCount
} cnShapeType;

/// Sphere centred on the shape origin.
typedef struct cnSphere
{
    double radius; ///< m, > 0
} cnSphere;

/// Box centred on the shape origin, axes along the shape frame.
typedef struct cnBox
{
    cnVec3 halfExtents; ///< m, each > 0
} cnBox;

/// Capsule: the points within `radius` of the segment from (0,0,-halfLength) to (0,0,halfLength).
typedef struct cnCapsule
{
    double radius;     ///< m, > 0
    double halfLength; ///< half the length of the core segment, m, >= 0
} cnCapsule;

/// Solid circular cylinder along the shape's z axis, from z = -halfLength to z = halfLength.
typedef struct cnCylinder
{
    double radius;     ///< m, > 0
    double halfLength; ///< m, > 0
} cnCylinder;

/// Ellipsoid x^2/a^2 + y^2/b^2 + z^2/c^2 <= 1 in the shape frame.
typedef struct cnEllipsoid
{
    cnVec3 radii; ///< semi-axes a, b, c, m, each > 0
} cnEllipsoid;

/// Ring torus about the shape's z axis. Not convex.
typedef struct cnTorus
{
    double majorRadius; ///< distance from the axis to the centre of the tube, m
    double minorRadius; ///< tube radius, m, 0 < minor < major
} cnTorus;

/// Convex hull of a point cloud, computed on creation. The points are copied.
typedef struct cnHullPoints
{
    const cnVec3* points; ///< (pointCount) in the shape frame
    int pointCount;       ///< at least 4, not all in one plane
} cnHullPoints;

/// Half-space below the plane {x : dot(normal, x) = offset} in the body frame. Static bodies only.
typedef struct cnPlane
{
    cnVec3 normal; ///< outward normal; normalized on creation
    double offset; ///< m
} cnPlane;

/// Any shape's geometry, tagged by type.
typedef struct cnGeometry
{
    cnShapeType type;
    union
    {
        cnSphere sphere;
        cnBox box;
        cnCapsule capsule;
        cnCylinder cylinder;
        cnEllipsoid ellipsoid;
        cnTorus torus;
        cnHullPoints hull;
        cnPlane plane;
    };
} cnGeometry;

/// Mass properties.
typedef struct cnMassData
{
    /// kg
    double mass;
    /// Centre of mass in the frame the data was computed in, m.
    cnVec3 center;
    /// Inertia tensor about the centre of mass, in that frame's axes, kg m^2.
    cnMat3 inertia;
} cnMassData;

// clang-format off
/// Warnings one step can raise: X( enum, bit, name ). One list for the enum and the names.
#define CN_STEP_WARNING_LIST( X )                                                                          \
    X( cn_warnNonFiniteState,   0, "nonfinite_state" )   /* a body's state went NaN/inf; put back */        \
    X( cn_warnSolverFailed,     1, "solver_failed" )     /* the solve gave no usable answer; not applied */ \
    X( cn_warnContactCapacity,  2, "contact_capacity" )  /* contacts were dropped */                        \
    X( cn_warnUnsupportedPair,  3, "unsupported_pair" )  /* shapes overlap with no pair function */         \
    X( cn_warnNonFiniteContact, 4, "nonfinite_contact" ) /* a pair function gave NaN; dropped */            \
    X( cn_warnSolverDiverged,   5, "solver_diverged" )   /* the solve grew; previous velocities kept */     \
    X( cn_warnFrictionDropped,  6, "friction_dropped" )  /* the solver takes no friction rows */            \
    X( cn_warnSpeedClamped,     7, "speed_clamped" )     /* a body was slowed to maxLinearSpeed */        \
    X( cn_warnSolverInaccurate, 8, "solver_inaccurate" ) /* applied, but it fails the physics test: energy added or a contact closing */ \
    X( cn_warnOverlapLeft,      9, "overlap_left" )      /* the recursion stopped with a pair overlapping past its tolerance */ \
    X( cn_warnJointsDropped,   10, "joints_dropped" )    /* the solver takes no joint rows (or no motor rows); left out */ \
    X( cn_warnSolverReplaced,  11, "solver_replaced" )   /* it failed the physics test; a fallback sweep's answer was applied */
// clang-format on

/// Warnings raised during one step (bit field).
typedef enum cnStepWarning
{
#define CN_STEP_WARNING_ENUM( name, bit, text ) name = 1u << ( bit ),
    CN_STEP_WARNING_LIST( CN_STEP_WARNING_ENUM )
#undef CN_STEP_WARNING_ENUM
} cnStepWarning;

/// Static name of one warning bit, e.g. "nonfinite_state"; NULL for a bit that is not a warning.
CN_API const char* cnStepWarningName( uint32_t bit );

/// Stages of the step pipeline at which timings are taken and user systems run.
typedef enum cnStage
{
    /// Before anything else; the last step's forces have been cleared.
    cn_stageBegin = 0,
    /// After gravity is added to the force arrays, before velocities are predicted:
    /// add forces and torques here.
    cn_stageForces = 1,
    /// After positions are integrated: growth, division, measurements.
    cn_stageEnd = 2,
    cn_stageCount
} cnStage;

/// What happened in the last step.
typedef struct cnStepReport
{
    /// cnStepWarning bits.
    uint32_t warnings;
    /// Steps taken by the world so far.
    int64_t stepIndex;
    /// Simulated time after the step, s.
    double time;
    double timeStep;
    /// Substeps the step took (cnWorldDef.substeps, or the automatic count).
    int substeps;
    /// Bodies by type.
    int bodyCount;
    int dynamicCount;
    /// Islands and sleeping, after the step: dynamic bodies awake and asleep, islands of dynamic
    /// bodies (linked by touching contacts and joints; static and kinematic bodies join none) and
    /// how many of them sleep, and the island pass's wall time, ms.
    int awakeCount;
    int sleepingCount;
    int islandCount;
    int sleepingIslandCount;
    double islandMs;
    /// Contact manifolds with at least one point, their points, and the deepest penetration, m.
    int manifoldCount;
    int contactCount;
    double maxPenetration;
    /// Shape pairs whose bounding boxes overlap (narrowphase candidates).
    int pairCount;
    /// Solver name and its rows (of the last substep).
    char solverName[32];
    int solverRows;
    /// Iterations, in the solver's own unit, of the main pass (the soft pass of an inertial world)
    /// and of the relax pass, summed over the substeps.
    int solverIterations;
    int relaxIterations;
    /// Solves the step ran: main, relax and recursion passes over its substeps (the position pass
    /// not included: it keeps no residual history).
    int solverPasses;
    /// Iterations, in the solver's own unit, of the position pass of an inertial world with the
    /// recursion (docs/relcp.md), every level included; 0 without it.
    int positionIterations;
    /// Newton steps of the joint projection (cnWorldDef.enableJointProjection), summed over the
    /// substeps; 0 when no joint needed one.
    int projectionIterations;
    /// The grading merit of the solver's model (cnSolverStats.residual) and the solver's own
    /// stopping measure, of the step's last solve (docs/solvers.md).
    double solverResidual;
    double solverOwnMeasure;
    /// The grading merits of the step's last solve (cnSolverMerits): unit-free natural-map and
    /// cone residuals, and the Signorini, Coulomb and maximum-dissipation violations in m/s.
    double meritNaturalMap;
    double meritCone;
    double violationSignorini;
    double violationCoulomb;
    double violationDissipation;
    /// The layer's physics test of the step's last velocity solve (cnSolvePhysics; the energies
    /// are NaN in an overdamped world): the kinetic energy its contact impulses added beyond what
    /// the push out asks for (J), the kinetic energy of the contacts' approach it is judged
    /// against (J), the fastest a contact closed beyond its own approach (m/s) and the fastest
    /// approach before it (m/s). solverOutcome is that solve's cnSolveOutcome.
    double solverEnergyAdded;
    double solverApproachEnergy;
    double solverClosing;
    double solverApproach;
    int solverOutcome;
    /// The ReLCP recursion (the relcp solver, or cnWorldDef.contactRecursions) summed over the
    /// step's substeps: levels that added rows, the rows added, the rows that had no room; and the
    /// deepest true overlap at the trial poses of the last solve's answer, m (NaN when no solve
    /// asked the oracle). Warning overlap_left when that is above the tolerance. In an inertial
    /// world the recursion runs in the position pass (docs/relcp.md).
    int contactRecursions;
    int recursionRows;
    int recursionRefused;
    double recursionOverlap;
    /// Counters of the solvers that factorise or run Krylov methods (pgs_sm, newton_minmap,
    /// newton_fb), summed over the step's solves, the position pass included: factorisations
    /// (regularised retries included), Krylov iterations, fallbacks (rejected subspace steps,
    /// gradient steps, failed factorisations); and the rows of the last linear system solved
    /// (PGS-SM's free set, a Newton step's reduced system). 0 for the other solvers.
    int solverFactorizations;
    int solverKrylovIterations;
    int solverFallbacks;
    int solverFreeRows;
    /// How the step's last solve ended (a cnSolveStatus); the worst status of the step goes with
    /// the warnings solver_failed and solver_diverged.
    int solverStatus;
    /// Static text with the reason of an unsupported or failed solve, NULL otherwise.
    const char* solverReason;
    /// The solver takes no friction rows and was fed normal rows only (warning friction_dropped
    /// when some contact had friction).
    bool solverFrictionless;
    /// Bodies whose state went non-finite this step and were put back.
    int nonFiniteCount;
    /// Bodies slowed to cnWorldDef.maxLinearSpeed this step.
    int clampedCount;
    /// Continuous collision (cnWorldDef.enableContinuous), summed over the substeps: fast bodies
    /// swept, time-of-impact queries they took, and bodies put back short of a static shape.
    int continuousBodies;
    int continuousSweeps;
    int continuousHits;
    /// Kinetic energy of the dynamic bodies after the step, J.
    double kineticEnergy;
    /// Wall time per pipeline part, ms: systems, predict, collision (broad and narrow phase),
    /// solve (assembly, the passes and the store, and the joint projection after the move),
    /// integrate, and the whole step.
    double systemsMs;
    double predictMs;
    double collideMs;
    double solveMs;
    double integrateMs;
    /// Wall time of the continuous collision pass, ms (included in neither of the above).
    double continuousMs;
    double stepMs;
} cnStepReport;

/// A view of the body component arrays, rows [0, count). Transient: valid until the next call
/// that creates or destroys a body or steps the world. Writes to the non-const arrays take effect.
typedef struct cnBodyArrays
{
    int count;
    const cnBodyId* ids;           ///< (count)
    const cnBodyType* types;       ///< (count)
    const cnTransform* transforms; ///< (count) body origin and orientation
    const cnVec3* centers;         ///< (count) world centre of mass
    cnVec3* linearVelocities;      ///< (count) centre-of-mass velocity, m/s
    cnVec3* angularVelocities;     ///< (count) world frame, rad/s
    cnVec3* forces;                ///< (count) accumulated this step at the centre of mass, N
    cnVec3* torques;               ///< (count) accumulated this step, world frame, N m
    const double* masses;          ///< (count) kg; 0 for static and kinematic bodies
    void* const* userData;         ///< (count)
} cnBodyArrays;

/// A user system: a function over the component arrays, run at a stage of every step.
/// It may create and destroy bodies; the view it got is invalid after that.
typedef void cnSystemFcn( cnWorldId worldId, cnBodyArrays* bodies, double timeStep, void* context );

/// Called once when a system leaves its world: removed with cnWorld_RemoveSystem or its world
/// destroyed. The place to free the context. While its world is being destroyed the world can
/// be read but not changed: stepping, creating or destroying bodies and shapes, changing a
/// geometry and adding or removing systems give cn_statusWorldLocked (or a null id).
typedef void cnSystemFinishFcn( cnWorldId worldId, void* context );

/// User system registration. Must be initialized with cnDefaultSystemDef().
typedef struct cnSystemDef
{
    /// Unique within the world; at most CN_NAME_CAPACITY - 1 characters.
    const char* name;
    cnStage stage;
    cnSystemFcn* fcn;
    /// Nullable: called when the system is removed or its world destroyed.
    cnSystemFinishFcn* finishFcn;
    void* context;
    int internalValue;
} cnSystemDef;

/// A body's full state, read in one call.
typedef struct cnBodyState
{
    cnBodyType type;
    cnTransform transform;
    cnVec3 center;
    cnVec3 linearVelocity;
    cnVec3 angularVelocity;
    cnVec3 constantForce;  ///< N, world frame (cnBody_SetConstantForce)
    cnVec3 constantTorque; ///< N m, world frame (cnBody_SetConstantTorque)
    cnMassData mass;       ///< body frame; the centre is the local centre of mass
    int shapeCount;
} cnBodyState;

/// Largest number of points of one contact manifold.
#define CN_MAX_CONTACT_POINTS 4

/// One point of a contact.
typedef struct cnContactPoint
{
    /// World position, midway between the two surfaces, m.
    cnVec3 point;
    /// Distance between the surfaces along the normal, m; negative is penetration.
    double separation;
    /// Feature key: stays the same while the same features of the two shapes touch.
    uint32_t id;
    /// Unit normal of this point, from shape A to shape B: the contact's normal, except for a
    /// torus touching a shape in separate places, where each point has its own.
    cnVec3 normal;
    /// Normal impulse of the last solve, kept for warm starting, N s.
    double normalImpulse;
} cnContactPoint;

/// A contact between two shapes: a manifold of up to four points sharing one normal (a torus's
/// points can each have their own: see cnContactPoint.normal).
typedef struct cnContactData
{
    cnShapeId shapeA;
    cnShapeId shapeB;
    cnBodyId bodyA;
    cnBodyId bodyB;
    /// Unit normal pointing from shape A to shape B.
    cnVec3 normal;
    int pointCount;
    cnContactPoint points[CN_MAX_CONTACT_POINTS];
} cnContactData;

/// Two shapes that started or stopped touching (having contact points) in the last update.
typedef struct cnContactEvent
{
    cnShapeId shapeA;
    cnShapeId shapeB;
} cnContactEvent;

/// A contact that started pressing fast: its shapes had been apart, or only within the speculative
/// margin, or resting without an impulse, and a solve of the step gave it a normal impulse while
/// they approached faster than cnWorldDef.hitEventThreshold. Raised for pairs where either shape
/// has cnShapeDef.enableHitEvents, once per start and at most once per pair of shapes and step (a
/// resting contact raises none; a ball that bounces raises one per bounce).
typedef struct cnContactHitEvent
{
    cnShapeId shapeA;
    cnShapeId shapeB;
    /// The manifold point that approached fastest among those with an impulse, world, m.
    cnVec3 point;
    /// Unit normal at that point, from shape A to shape B.
    cnVec3 normal;
    /// Relative normal speed of the two surfaces at the point before the solve (the predicted
    /// velocities of that substep: gravity and forces included, no contact impulse yet), m/s,
    /// positive when they approach; above the threshold.
    double approachSpeed;
} cnContactHitEvent;

/// The events of the last step (or cnWorld_UpdateContacts). Transient: valid until the next one.
typedef struct cnContactEvents
{
    const cnContactEvent* beginEvents; ///< (beginCount)
    int beginCount;
    const cnContactEvent* endEvents; ///< (endCount)
    int endCount;
    /// Hit events of the step's solves (none from cnWorld_UpdateContacts, which solves nothing).
    const cnContactHitEvent* hitEvents; ///< (hitCount)
    int hitCount;
} cnContactEvents;

/// A shape that started or stopped overlapping a sensor.
typedef struct cnSensorEvent
{
    cnShapeId sensorShapeId;
    cnShapeId visitorShapeId;
} cnSensorEvent;

/// The sensor events of the last step (or cnWorld_UpdateContacts). Transient: valid until the next
/// step or update. See cnWorld_GetSensorEvents.
typedef struct cnSensorEvents
{
    const cnSensorEvent* beginEvents; ///< (beginCount)
    int beginCount;
    const cnSensorEvent* endEvents; ///< (endCount)
    int endCount;
} cnSensorEvents;

/// The scene file's name of a shape type ("sphere", ..., "convex", "plane"). Never NULL.
CN_API const char* cnShapeTypeName( cnShapeType type );

CN_API cnWorldDef cnDefaultWorldDef( void );
CN_API cnBodyDef cnDefaultBodyDef( void );
CN_API cnShapeDef cnDefaultShapeDef( void );
CN_API cnSystemDef cnDefaultSystemDef( void );
CN_API cnMaterial cnDefaultMaterial( void );

/// @}
