// SPDX-License-Identifier: MIT
#pragma once

/// @defgroup api Cairn
/// The engine's face: worlds, bodies, shapes and systems, through handles.
///
/// Failure rules, the same everywhere:
/// - functions that can fail return a cnStatus (or a null id for the create functions, with the
///   reason logged through the world's log hook together with its status code);
/// - a null, stale or forged id is never dereferenced: it gives cn_statusInvalidId, or a zero
///   value from a getter; cn*_IsValid asks without side effects;
/// - NaN or infinity in a def, a setter or a geometry is refused with cn_statusNonFinite, and
///   the world keeps running with nothing lost.
/// @{

#include "cairn/base.h"
#include "cairn/id.h"
#include "cairn/joint.h"
#include "cairn/math.h"
#include "cairn/query.h"
#include "cairn/solver.h"
#include "cairn/status.h"
#include "cairn/types.h"

/// @name Worlds
/// @{

/// Create a world. Null id when the def is invalid (logged) or CN_MAX_WORLDS worlds are alive.
CN_API cnWorldId cnCreateWorld( const cnWorldDef* def );

/// Destroy a world with every body, shape and system in it. Ids into it become stale.
CN_API cnStatus cnDestroyWorld( cnWorldId worldId );

/// False for null, destroyed or forged ids. Never logs.
CN_API bool cnWorld_IsValid( cnWorldId worldId );

/// Advance the world by `timeStep` seconds (> 0, finite). Runs the pipeline: systems at
/// cn_stageBegin, gravity and the bodies' constant forces, systems at cn_stageForces, then
/// cnWorldDef.substeps times predict, collide, solve and integrate by timeStep / substeps, then
/// systems at cn_stageEnd. cn_statusWorldLocked when called from a system of the same world.
CN_API cnStatus cnWorld_Step( cnWorldId worldId, double timeStep );

/// What the last step did. Zero for an invalid id.
CN_API cnStepReport cnWorld_GetStepReport( cnWorldId worldId );

/// Gravity, m/s^2.
CN_API cnStatus cnWorld_SetGravity( cnWorldId worldId, cnVec3 gravity );
CN_API cnVec3 cnWorld_GetGravity( cnWorldId worldId );

/// Dynamics mode; may change between steps.
CN_API cnStatus cnWorld_SetDynamics( cnWorldId worldId, cnDynamicsMode mode );
CN_API cnDynamicsMode cnWorld_GetDynamics( cnWorldId worldId );

/// Friction model of the world's contacts (cnWorldDef.frictionModel); may change between steps,
/// for the viewer's live switch. cn_frictionCone needs a solver with cn_solverCone: with any other
/// it is refused (cn_statusUnsupported, logged with the solvers that have the cone) and the model
/// stays. cn_statusInvalidArgument for an unknown model, cn_statusWorldLocked from inside a step.
CN_API cnStatus cnWorld_SetFrictionModel( cnWorldId worldId, cnFrictionModel model );
/// cn_frictionPyramid for an invalid id.
CN_API cnFrictionModel cnWorld_GetFrictionModel( cnWorldId worldId );

/// The def the world was created with, as changed since by the setters.
CN_API cnWorldDef cnWorld_GetDef( cnWorldId worldId );

/// Swap the solver and set its iteration limit and tolerance (see cnWorld_SetSolver).
CN_API cnStatus cnWorld_SetSolverSettings( cnWorldId worldId, const cnSolverSettings* settings );

/// Swap the constraint solver between two steps, by registered name. The new solver starts with
/// its defaults, except "tolerance", "deadline_ms" and "warm_start", which carry over, and
/// "iterations", which carries over only between solvers whose iterations are the same unit
/// (cnSolverVTable.iterationUnit: a sweep is not a pivot). Warm-start impulses live in the contact
/// cache, not in the solver, so they survive the swap. Refused (cn_statusUnsupported, logged; the
/// world keeps its solver) when the solver cannot take the world's problems at all (explicit
/// matrices only, or a world with the exact friction cone, cnWorldDef.frictionModel, and a solver
/// without cn_solverCone: the log names the solvers that have it); a solver without
/// friction rows is accepted with a logged warning, and every step whose contacts had friction
/// then raises cn_warnFrictionDropped. cn_statusInvalidArgument for an unknown name (logged with
/// the registered ones), cn_statusWorldLocked from inside a step.
CN_API cnStatus cnWorld_SetSolver( cnWorldId worldId, const char* name );

/// Set a parameter of the current solver (its table: cnWorld_GetSolver()->params). Checked
/// against the parameter's range and type (cnCheckSolverParam); a choice is its index (see
/// cnParseSolverParam for names).
CN_API cnStatus cnWorld_SetSolverParam( cnWorldId worldId, const char* name, double value );
CN_API cnStatus cnWorld_GetSolverParam( cnWorldId worldId, const char* name, double* value );

/// Called after the final pass of each contact solve with the problem as it was solved, the
/// impulses the solver started from, the impulses it returned and its statistics, all valid during
/// the call only. For tools: `cairn run --dump-problem` writes the problem of one step to a file.
typedef void cnProblemFcn( const cnSolverProblem* problem, const double* start, const double* lambda,
                           const cnSolverStats* stats, void* context );
/// Set (or, with NULL, clear) the world's problem callback.
CN_API cnStatus cnWorld_SetProblemFcn( cnWorldId worldId, cnProblemFcn* fcn, void* context );

/// Keep the grading merit of the solver's model (cnSolverStats.residual) of every iteration of
/// each step's contact solves, up to `capacity` values (0, the default, keeps none; at most
/// CN_MAX_RESIDUAL_HISTORY): for each pass of each substep in turn (main, relax, recursion
/// levels), its start and one value per iteration (a pivoting solver: its end alone). Iterative
/// solvers then compute the merit after every iteration.
CN_API cnStatus cnWorld_SetResidualHistory( cnWorldId worldId, int capacity );
/// Copy the last step's merits (the start, then one per iteration) into `values`; returns how many
/// the step recorded (copies at most `capacity`). 0 when there were no contacts or no history.
CN_API int cnWorld_GetResidualHistory( cnWorldId worldId, double* values, int capacity );

/// The current solver. NULL for an invalid id.
CN_API const cnSolverVTable* cnWorld_GetSolver( cnWorldId worldId );

/// Number of bodies alive.
CN_API int cnWorld_GetBodyCount( cnWorldId worldId );

/// Bulk access for renderers and data-oriented readers: the component arrays themselves.
/// Transient: see cnBodyArrays. A zero view for an invalid id.
CN_API cnBodyArrays cnWorld_GetBodyArrays( cnWorldId worldId );

/// Copy every body's transform into `transforms` and its id into `ids` (either nullable), in
/// row order, up to `capacity` entries. Returns the number of bodies (which may exceed capacity).
CN_API int cnWorld_CopyTransforms( cnWorldId worldId, cnTransform* transforms, cnBodyId* ids, int capacity );

/// Register a user system. cn_statusInvalidArgument for a duplicate or missing name or function.
CN_API cnStatus cnWorld_AddSystem( cnWorldId worldId, const cnSystemDef* def );

/// Remove a user system by name.
CN_API cnStatus cnWorld_RemoveSystem( cnWorldId worldId, const char* name );

/// Find a body by the name it was created with. Null id when there is none.
CN_API cnBodyId cnWorld_FindBody( cnWorldId worldId, const char* name );

/// Run the broadphase and the narrowphase at the current poses without stepping (what
/// cairn contacts does), refreshing the contacts and their events, and the sensors' overlaps and
/// events. cnWorld_Step does the same every step (contacts after predicting velocities, sensors at
/// the poses the step ends with).
CN_API cnStatus cnWorld_UpdateContacts( cnWorldId worldId );

/// Number of contacts that have at least one point.
CN_API int cnWorld_GetContactCount( cnWorldId worldId );

/// Copy up to `capacity` contacts that have points into `contacts`, ordered by shape pair.
/// Returns the number of such contacts (which may exceed capacity). In a multisphere world
/// (cnWorldDef.multisphere) every touching pair of sub-spheres is a contact of its own, with one
/// point, naming the two shapes the sub-spheres belong to.
CN_API int cnWorld_GetContacts( cnWorldId worldId, cnContactData* contacts, int capacity );

/// Contacts that began or ended in the last update, once per pair of shapes (in a multisphere
/// world too: when the first pair of their sub-spheres touches, when the last one parts). Zero
/// for an invalid id.
CN_API cnContactEvents cnWorld_GetContactEvents( cnWorldId worldId );

/// Sensors (cnShapeDef.isSensor) that started or stopped overlapping a shape in the last step or
/// cnWorld_UpdateContacts. Overlap is the exact one of the two shapes (the narrowphase with no
/// speculative margin: some point of separation <= 0, i.e. the solids share volume; a shape within
/// the contact margin but apart does not count) at the poses the step ends with, so a body that
/// crosses a thin sensor within one step is not seen. Every begin is followed by exactly one end:
/// when the shapes part, when the filter or a body type change no longer lets them pair, or when
/// the sensor or the visitor (or its body) is destroyed: then at the next step or update, naming
/// the destroyed shape by its id, which is stale by then (cnShape_IsValid says false). A visitor
/// created and destroyed between two updates raises nothing. A sleeping visitor stays inside (its
/// pose does not change); a sensor wakes nobody. Order: the sensors in creation order (a
/// destroyed sensor's ends first), each one's visitors by shape index. Zero for an invalid id.
CN_API cnSensorEvents cnWorld_GetSensorEvents( cnWorldId worldId );

/// Change cnWorldDef.hitEventThreshold, m/s. cn_statusNonFinite (logged, nothing changed) for NaN
/// or infinity, cn_statusInvalidArgument (logged) for a negative value.
CN_API cnStatus cnWorld_SetHitEventThreshold( cnWorldId worldId, double threshold );
/// 0 for an invalid id.
CN_API double cnWorld_GetHitEventThreshold( cnWorldId worldId );

/// Turn continuous collision for fast bodies on or off (cnWorldDef.enableContinuous). Between
/// steps; cn_statusWorldLocked (logged) from inside cnWorld_Step.
CN_API cnStatus cnWorld_EnableContinuous( cnWorldId worldId, bool enable );
/// False for an invalid id.
CN_API bool cnWorld_IsContinuousEnabled( cnWorldId worldId );

/// Run the parallel stages of later steps on `workerCount` workers (1 to CN_MAX_WORKERS): the
/// game's task callbacks when the world was created with them, else threads of the world's own
/// (started and stopped here). The results do not change. cn_statusWorldLocked inside a step;
/// cn_statusOutOfMemory (logged) when threads could not be started, the world then runs on fewer.
CN_API cnStatus cnWorld_SetWorkerCount( cnWorldId worldId, int workerCount );
/// The workers a world runs on; 0 for an invalid id.
CN_API int cnWorld_GetWorkerCount( cnWorldId worldId );

/// A 64-bit hash of every body's state as bit patterns, in row order: position (the body origin),
/// orientation (w, x, y, z), linear and angular velocity, 13 doubles a body (FNV-1a over their
/// bytes, little-endian). Two runs that give the same hash went through the same bits: the
/// engine's results do not depend on the thread count or the SIMD path, and this is how the
/// tests check it (`state_hash` in `cairn run --report`, 16 hex digits). 0 for an invalid id.
CN_API uint64_t cnWorld_GetStateHash( cnWorldId worldId );

/// Bytes the world's allocator currently holds for this world.
CN_API size_t cnWorld_GetByteCount( cnWorldId worldId );

CN_API void* cnWorld_GetUserData( cnWorldId worldId );

/// @}

/// @name Bodies
/// @{

/// Create a body. Null id (reason logged) for an invalid world or def: NaN or infinity anywhere,
/// a zero orientation, negative damping, an over-long or duplicate name.
CN_API cnBodyId cnCreateBody( cnWorldId worldId, const cnBodyDef* def );

/// Destroy a body and its shapes. The dense component arrays stay packed.
CN_API cnStatus cnDestroyBody( cnBodyId bodyId );

/// False for null, destroyed or forged ids. Never logs.
CN_API bool cnBody_IsValid( cnBodyId bodyId );

/// Everything about a body in one call.
CN_API cnStatus cnBody_GetState( cnBodyId bodyId, cnBodyState* outState );

/// Pose of the body origin. Identity for an invalid id.
CN_API cnTransform cnBody_GetTransform( cnBodyId bodyId );
CN_API cnVec3 cnBody_GetPosition( cnBodyId bodyId );
CN_API cnQuat cnBody_GetOrientation( cnBodyId bodyId );

/// Centre of mass, world frame.
CN_API cnVec3 cnBody_GetWorldCenter( cnBodyId bodyId );

/// Teleport. The orientation is normalized; a zero or non-finite one is refused.
CN_API cnStatus cnBody_SetTransform( cnBodyId bodyId, cnVec3 position, cnQuat orientation );

CN_API cnVec3 cnBody_GetLinearVelocity( cnBodyId bodyId );
CN_API cnVec3 cnBody_GetAngularVelocity( cnBodyId bodyId );
CN_API cnStatus cnBody_SetLinearVelocity( cnBodyId bodyId, cnVec3 velocity );
/// A fixed-rotation dynamic body (cnBody_SetFixedRotation) refuses a non-zero angular velocity
/// (cn_statusInvalidArgument, logged).
CN_API cnStatus cnBody_SetAngularVelocity( cnBodyId bodyId, cnVec3 velocity );

/// Add a force (N) at a world point for the next step. Static bodies ignore it.
CN_API cnStatus cnBody_ApplyForce( cnBodyId bodyId, cnVec3 force, cnVec3 worldPoint );
/// Add a force at the centre of mass.
CN_API cnStatus cnBody_ApplyForceToCenter( cnBodyId bodyId, cnVec3 force );
/// Add a torque (N m, world frame) for the next step.
CN_API cnStatus cnBody_ApplyTorque( cnBodyId bodyId, cnVec3 torque );

/// Add a linear impulse (N s, world frame) at a world point, at once: v += J / m and
/// w += I_w^-1 (r x J), r from the centre of mass to the point, I_w the world inertia (a fixed-rotation
/// body keeps w = 0). Overdamped worlds have no momentum (velocity = mobility x force): the impulse
/// of a force acting over any time moves the body by the time integral of that velocity, so the
/// body moves at once by R M R^T J and turns by R M_ang R^T (r x J) (the body-frame mobilities of
/// cnBody_SetMobility), and keeps no velocity from it; contacts resolve any overlap this makes at
/// the next step. Static and kinematic bodies ignore it (cn_statusOk), as they ignore
/// cnBody_ApplyForce. cn_statusNonFinite (logged, nothing changed) for NaN or infinity in the
/// impulse or the point, or a result that overflows; cn_statusInvalidId for a null, stale or
/// forged id.
CN_API cnStatus cnBody_ApplyLinearImpulse( cnBodyId bodyId, cnVec3 impulse, cnVec3 worldPoint );
/// A linear impulse (N s, world frame) at the centre of mass: the velocity only (an overdamped
/// body: the position only). As cnBody_ApplyLinearImpulse.
CN_API cnStatus cnBody_ApplyLinearImpulseToCenter( cnBodyId bodyId, cnVec3 impulse );
/// An angular impulse (N m s, world frame): w += I_w^-1 H (an overdamped body turns by
/// R M_ang R^T H). Dropped for a fixed-rotation body (cn_statusOk); otherwise as
/// cnBody_ApplyLinearImpulse.
CN_API cnStatus cnBody_ApplyAngularImpulse( cnBodyId bodyId, cnVec3 impulse );

/// A force (N, world frame, at the centre of mass) that acts on every step until changed, in
/// addition to gravity and the forces applied for one step (cnBody_ApplyForce); zero removes it.
/// Inertial bodies accelerate by it, overdamped ones move at mobility x (all forces). As with
/// cnBody_ApplyForce, static and kinematic bodies ignore it (cn_statusOk; it stays zero).
/// cn_statusNonFinite (logged, nothing changed) for NaN or infinity, cn_statusInvalidId for a
/// null, stale or forged id. Also cnBodyDef.constantForce.
CN_API cnStatus cnBody_SetConstantForce( cnBodyId bodyId, cnVec3 force );
/// Zero for an invalid id.
CN_API cnVec3 cnBody_GetConstantForce( cnBodyId bodyId );
/// A torque (N m, world frame) that acts on every step until changed; as
/// cnBody_SetConstantForce. Also cnBodyDef.constantTorque.
CN_API cnStatus cnBody_SetConstantTorque( cnBodyId bodyId, cnVec3 torque );
/// Zero for an invalid id.
CN_API cnVec3 cnBody_GetConstantTorque( cnBodyId bodyId );

/// Mass properties in the body frame (centre = local centre of mass). A fixed-rotation body's
/// inertia is its shapes' (or the one set), though it acts as infinite.
CN_API cnMassData cnBody_GetMassData( cnBodyId bodyId );

/// Stop (true) or allow (false) the body's rotation (cnBodyDef.fixedRotation): with it, its
/// inverse inertia and angular mobility act as zero and its angular velocity is set to zero and
/// stays there. Dynamic bodies only; the others keep the flag and ignore it. cn_statusWorldLocked
/// from inside a step.
CN_API cnStatus cnBody_SetFixedRotation( cnBodyId bodyId, bool fixedRotation );
/// False for an invalid id.
CN_API bool cnBody_IsFixedRotation( cnBodyId bodyId );

/// Override the mass properties computed from the shapes (until the next shape change).
/// Mass > 0 and a symmetric positive-definite inertia are required for dynamic bodies.
CN_API cnStatus cnBody_SetMassData( cnBodyId bodyId, const cnMassData* massData );

/// Overdamped mobility in the body frame: velocity = R M R^T force.
CN_API cnStatus cnBody_SetMobility( cnBodyId bodyId, cnMat3 linearMobility, cnMat3 angularMobility );
CN_API cnStatus cnBody_GetMobility( cnBodyId bodyId, cnMat3* linearMobility, cnMat3* angularMobility );

/// Change how the body moves (cnBodyDef.type), keeping its pose and shapes:
/// - to static: it stops (both velocities zero) and stays where it is; contacts with other static
///   bodies end at the next update, contacts with dynamic bodies go on (warm starts kept);
/// - to kinematic: it keeps its velocities and moves with them, infinite mass;
/// - to dynamic: it gets its mass, centre and inertia from its shapes (1 kg and unit inertia when
///   they have no mass) and falls with gravity from the next step; a fixed-rotation body's angular
///   velocity is set to zero.
/// A body that is no longer dynamic loses its forces of this step and its constant force and
/// torque (as on creation, only dynamic bodies take forces). A mass set with cnBody_SetMassData is
/// dropped: the mass comes from the shapes again. The shapes' broadphase proxies move to the new
/// type's tree, so the pairs follow at the next update. cn_statusInvalidArgument (logged) for an
/// unknown type or a body with a plane becoming non-static; cn_statusWorldLocked from inside a
/// step (user systems excepted) or while the world is being destroyed; cn_statusOutOfMemory
/// (logged, nothing changed) when the broadphase cannot grow.
CN_API cnStatus cnBody_SetType( cnBodyId bodyId, cnBodyType type );
/// cn_staticBody for an invalid id.
CN_API cnBodyType cnBody_GetType( cnBodyId bodyId );

/// Wake (true) or put to sleep (false) a dynamic body's island (docs/architecture.md, "Islands and
/// sleeping"): the bodies linked to it by touching contacts and joints wake or sleep with it.
/// Sleeping works in any world, whatever cnWorldDef.enableSleep (which only lets resting islands
/// fall asleep by themselves); a sleeping body keeps its pose, has zero velocities and is skipped
/// by the step until something wakes it. Static and kinematic bodies never sleep: ignored.
/// cn_statusWorldLocked from inside a step (user systems excepted); cn_statusOutOfMemory (logged,
/// the island stays awake) when the pool of sleeping islands cannot grow.
CN_API cnStatus cnBody_SetAwake( cnBodyId bodyId, bool awake );
/// False for a sleeping dynamic body, a static body and an invalid id; true otherwise.
CN_API bool cnBody_IsAwake( cnBodyId bodyId );

/// Multiply the world's gravity for this body (cnBodyDef.gravityScale): 0 floats, 2 falls twice as
/// fast, negative rises. Any finite number; cn_statusNonFinite (logged, nothing changed) for NaN or
/// infinity. Takes effect at the next step; acts on dynamic bodies only, but is kept for any type.
CN_API cnStatus cnBody_SetGravityScale( cnBodyId bodyId, double scale );
/// 0 for an invalid id.
CN_API double cnBody_GetGravityScale( cnBodyId bodyId );

/// Linear and angular damping, 1/s (cnBodyDef.linearDamping, angularDamping): each step of length
/// h divides the predicted velocity by (1 + h c), implicit and stable for any c >= 0. Inertial
/// dynamic bodies only. cn_statusInvalidArgument (logged) for a negative value,
/// cn_statusNonFinite (logged) for NaN or infinity; nothing changed then.
CN_API cnStatus cnBody_SetLinearDamping( cnBodyId bodyId, double damping );
/// 0 for an invalid id.
CN_API double cnBody_GetLinearDamping( cnBodyId bodyId );
CN_API cnStatus cnBody_SetAngularDamping( cnBodyId bodyId, double damping );
/// 0 for an invalid id.
CN_API double cnBody_GetAngularDamping( cnBodyId bodyId );

/// The body's name, "" when it has none or the id is invalid. Valid while the body lives.
CN_API const char* cnBody_GetName( cnBodyId bodyId );

CN_API void* cnBody_GetUserData( cnBodyId bodyId );
CN_API cnStatus cnBody_SetUserData( cnBodyId bodyId, void* userData );

/// Kinetic energy, J (0 for static and kinematic bodies).
CN_API double cnBody_GetKineticEnergy( cnBodyId bodyId );

/// Number of shapes, and up to `capacity` of their ids in creation order.
CN_API int cnBody_GetShapes( cnBodyId bodyId, cnShapeId* shapeIds, int capacity );

/// @}

/// @name Shapes
/// @{

/// Attach a shape to a body and update the body's mass. Null id (reason logged) for an invalid
/// body, def or geometry (non-positive sizes, NaN, a torus whose tube crosses its axis, a hull
/// of fewer than 4 points or of zero volume, a plane on a non-static body).
CN_API cnShapeId cnCreateShape( cnBodyId bodyId, const cnShapeDef* def, const cnGeometry* geometry );

/// Convenience wrappers around cnCreateShape.
CN_API cnShapeId cnCreateSphereShape( cnBodyId bodyId, const cnShapeDef* def, const cnSphere* sphere );
CN_API cnShapeId cnCreateBoxShape( cnBodyId bodyId, const cnShapeDef* def, const cnBox* box );
CN_API cnShapeId cnCreateCapsuleShape( cnBodyId bodyId, const cnShapeDef* def, const cnCapsule* capsule );
CN_API cnShapeId cnCreateCylinderShape( cnBodyId bodyId, const cnShapeDef* def, const cnCylinder* cylinder );
CN_API cnShapeId cnCreateEllipsoidShape( cnBodyId bodyId, const cnShapeDef* def,
                                         const cnEllipsoid* ellipsoid );
CN_API cnShapeId cnCreateTorusShape( cnBodyId bodyId, const cnShapeDef* def, const cnTorus* torus );
CN_API cnShapeId cnCreateHullShape( cnBodyId bodyId, const cnShapeDef* def, const cnVec3* points,
                                    int pointCount );
CN_API cnShapeId cnCreatePlaneShape( cnBodyId bodyId, const cnShapeDef* def, const cnPlane* plane );

/// Detach and destroy a shape; the body's mass is recomputed.
CN_API cnStatus cnDestroyShape( cnShapeId shapeId );

CN_API bool cnShape_IsValid( cnShapeId shapeId );
CN_API cnShapeType cnShape_GetType( cnShapeId shapeId );
CN_API cnBodyId cnShape_GetBody( cnShapeId shapeId );

/// Geometry of a shape. For a hull, `hull.points` are the hull's vertices (owned by the shape,
/// valid while it lives).
CN_API cnStatus cnShape_GetGeometry( cnShapeId shapeId, cnGeometry* outGeometry );

/// Replace a shape's geometry (same type), e.g. a growing cell; the body's mass is recomputed.
CN_API cnStatus cnShape_SetGeometry( cnShapeId shapeId, const cnGeometry* geometry );

CN_API cnTransform cnShape_GetLocalPose( cnShapeId shapeId );
/// The default material for an invalid id.
CN_API cnMaterial cnShape_GetMaterial( cnShapeId shapeId );
/// Change friction, restitution and density. Friction and restitution act from the next contact
/// solve; a new density recomputes the shape's mass and its body's (mass, centre, inertia), unless
/// the body's mass was set with cnBody_SetMassData. cn_statusNonFinite (logged) for NaN or
/// infinity, cn_statusInvalidArgument (logged) for friction < 0, restitution outside [0, 1] or
/// density < 0; nothing changed then. A density change from inside a step (user systems
/// excepted) or any change while the world is being destroyed: cn_statusWorldLocked.
CN_API cnStatus cnShape_SetMaterial( cnShapeId shapeId, cnMaterial material );

/// Change the collision filter (cnShapeDef.categoryBits, maskBits): two shapes may touch when
/// each one's category is in the other's mask. Pairs are found again at the next update: a contact
/// the new bits forbid ends there (an end event), one they allow begins (a box resting on the
/// ground falls through once its mask leaves out the ground's category). Any bits are valid.
/// cn_statusWorldLocked from inside a step (user systems excepted) or while the world is being
/// destroyed, cn_statusOutOfMemory (logged, nothing changed) when the broadphase cannot grow.
CN_API cnStatus cnShape_SetFilter( cnShapeId shapeId, uint32_t categoryBits, uint32_t maskBits );
/// The filter bits (either pointer nullable). cn_statusInvalidId, outputs untouched, for an
/// invalid id.
CN_API cnStatus cnShape_GetFilter( cnShapeId shapeId, uint32_t* categoryBits, uint32_t* maskBits );
CN_API void* cnShape_GetUserData( cnShapeId shapeId );

/// Mass properties of the shape alone, in its body's frame.
CN_API cnMassData cnShape_GetMassData( cnShapeId shapeId );

/// Whether the shape is a sensor (cnShapeDef.isSensor). False for an invalid id.
CN_API bool cnShape_IsSensor( cnShapeId shapeId );

/// The shapes a sensor overlaps after the last step or cnWorld_UpdateContacts (those whose begin
/// event came and whose end event has not), by shape index: up to `capacity` ids into
/// `visitorIds` (nullable). Returns how many there are (which may exceed capacity); 0 for a shape
/// that is not a sensor or an invalid id. A visitor destroyed since the last update is still
/// listed, by its stale id, until the update that reports its end. Costs the copy only.
CN_API int cnShape_GetSensorOverlaps( cnShapeId sensorShapeId, cnShapeId* visitorIds, int capacity );

/// Turn hit events on or off for the shape's contacts (cnShapeDef.enableHitEvents); from the next
/// solve. cn_statusInvalidId for an invalid id.
CN_API cnStatus cnShape_EnableHitEvents( cnShapeId shapeId, bool enable );
/// False for an invalid id.
CN_API bool cnShape_AreHitEventsEnabled( cnShapeId shapeId );

/// @}

/// @name Geometry and mass, without a world
/// @{

/// Check a geometry. On failure, writes a one-line reason naming the field (e.g.
/// "radius: expected a positive number, got -1") to `message` (nullable, `size` bytes).
CN_API cnStatus cnValidateGeometry( const cnGeometry* geometry, char* message, int size );

/// Mass properties of a solid shape of uniform `density` placed at `pose`, in the frame of
/// `pose`: exact closed forms for every type (a hull is integrated over its faces). A plane
/// has no finite mass: cn_statusUnsupported.
CN_API cnStatus cnComputeMass( const cnGeometry* geometry, double density, cnTransform pose,
                               cnMassData* outMass );

/// Sum mass data given in one frame: masses add, centres average, inertias move to the common
/// centre with the parallel-axis theorem.
CN_API cnMassData cnCombineMass( const cnMassData* parts, int count );

/// Volume of a shape, m^3 (a plane: infinity).
CN_API double cnComputeVolume( const cnGeometry* geometry );

/// @}

/// @}
