// SPDX-License-Identifier: MIT
#pragma once

// The world: a table of worlds, and inside each one the body component store, the shape pool,
// the user systems and the per-step arena.
//
// Bodies are entities. An id indexes a sparse slot that stays put for the body's life; the slot
// names a row of the dense component arrays below. Destroying a body moves the last row into the
// hole (swap-remove) and patches the one slot that moved, so every array stays packed and the
// hot loops walk contiguous memory with no holes. An X-list names every component once, so grow,
// move and free cannot fall out of step when a component is added.

#include "arena.h"
#include "contact.h"
#include "task.h"

#include "cairn/cairn.h"
#include "cairn/solver.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct cnHull cnHull;

// body flags
enum
{
    cn_bodyCustomMass = 1u << 0,
    cn_bodyCustomMobility = 1u << 1,
    // does not rotate (cnBodyDef.fixedRotation): zero inverse inertia, angular mobility not used
    cn_bodyFixedRotation = 1u << 2,
};

// Sparse side: one slot per body id, stable for the body's lifetime.
typedef struct cnBodySlot
{
    int row;             // row in the store, CN_NULL_INDEX when the slot is free
    int nextFree;        // free-list link while the slot is free
    uint16_t generation; // bumped on destroy; a stale id no longer matches
} cnBodySlot;

// clang-format off
// X( type, name ): every dense per-body component
#define CN_BODY_COMPONENTS( X )                                                                        \
    /* identity */                                                                                     \
    X( cnBodyId, id )               /* the body's own id */                                            \
    X( int, slotOf )                /* row -> slot, to patch the moved body's slot */                 \
    X( cnBodyType, type )                                                                              \
    /* hot: pose and motion */                                                                         \
    X( cnTransform, transform )     /* body origin and orientation */                                  \
    X( cnVec3, center )             /* world centre of mass */                                         \
    X( cnVec3, linearVelocity )     /* of the centre of mass, m/s */                                   \
    X( cnVec3, angularVelocity )    /* world frame, rad/s */                                           \
    X( cnVec3, force )              /* accumulated for the next step, N */                             \
    X( cnVec3, torque )             /* accumulated for the next step, N m */                           \
    X( cnVec3, constantForce )      /* added every step until changed, N, at the centre of mass */     \
    X( cnVec3, constantTorque )     /* added every step until changed, N m, world frame */             \
    /* the last finite state, to put a body back to (world.c, cnGuardBodies) */                       \
    X( cnTransform, safeTransform )                                                                    \
    X( cnVec3, safeCenter )                                                                            \
    X( cnVec3, safeLinearVelocity )                                                                    \
    X( cnVec3, safeAngularVelocity )                                                                   \
    X( int64_t, flaggedStep )       /* the step that last reported this body (non-finite, clamped) */ \
    /* islands and sleeping (island.c) */                                                              \
    X( double, sleepTime )          /* s this dynamic body has been slow enough to sleep */           \
    X( int, sleepIsland )           /* its sleeping island, CN_NULL_INDEX while awake */              \
    X( int, sleepNext )             /* next body slot of that island, CN_NULL_INDEX at the end */     \
    /* mass and mobility, body frame */                                                                \
    X( double, mass )               /* 0 for static and kinematic bodies */                            \
    X( double, invMass )                                                                               \
    X( cnVec3, localCenter )        /* centre of mass in the body frame */                             \
    X( cnMat3, inertia )            /* about the centre of mass, body axes */                          \
    X( cnMat3, invInertia )                                                                            \
    X( cnMat3, linearMobility )                                                                        \
    X( cnMat3, angularMobility )                                                                       \
    /* cold */                                                                                         \
    X( double, linearDamping )                                                                         \
    X( double, angularDamping )                                                                        \
    X( double, gravityScale )                                                                          \
    X( uint32_t, flags )                                                                               \
    X( int, headShape )             /* first shape index, CN_NULL_INDEX when none */                  \
    X( int, shapeCount )                                                                               \
    X( char*, name )                /* owned, NULL when unnamed */                                     \
    X( void*, userData )
// clang-format on

typedef struct cnBodyStore
{
    int count;
    int capacity;
#define CN_DECLARE_COMPONENT( type, name ) type* name;
    CN_BODY_COMPONENTS( CN_DECLARE_COMPONENT )
#undef CN_DECLARE_COMPONENT
} cnBodyStore;

// The body's rotation is stopped (cnBodyDef.fixedRotation): its inverse inertia is zero and its
// angular mobility is not used. Dynamic bodies only: nothing rotates the others but the user.
static inline bool cnIsRotationFixed( const cnBodyStore* store, int row )
{
    return ( store->flags[row] & cn_bodyFixedRotation ) != 0;
}

// The body is asleep (island.c): it keeps its pose, has zero velocities and is skipped by
// integration, broadphase moves and the solve until its island wakes. Dynamic bodies only.
static inline bool cnIsBodyAsleep( const cnBodyStore* store, int row )
{
    return store->sleepIsland[row] >= 0;
}

// A sleeping island: its bodies by slot, linked through cnBodyStore.sleepNext (island.c).
typedef struct cnSleepIsland
{
    int headSlot; // first body slot, CN_NULL_INDEX while the entry is free
    int bodyCount;
    int nextFree; // free-list link while the entry is free
} cnSleepIsland;

// A shape in the world's shape pool. Shapes of one body form a list through `next`.
typedef struct cnShape
{
    int bodySlot;        // owner, CN_NULL_INDEX when the shape slot is free
    int next;            // next shape of the same body, or next free shape slot
    uint16_t generation; // bumped on destroy
    cnGeometry geometry; // for hulls, geometry.hull.points aliases hull->vertices
    cnHull* hull;        // owned, hulls only
    cnTransform localPose;
    bool atBodyOrigin; // localPose is the identity (cnSetShapeLocalPose): placed where its body is
    cnMaterial material;
    uint32_t categoryBits;
    uint32_t maskBits;
    bool isSensor;        // cnShapeDef.isSensor: no contacts; its overlaps in contacts.sensors
    bool enableHitEvents; // cnShapeDef.enableHitEvents
    void* userData;
    cnMassData mass; // body frame
    // the shape's smallest extent and the centre of the sphere of that radius inside it, shape
    // frame: what continuous collision measures a body's motion against (cnShapeCore, continuous.c)
    double coreRadius;
    cnVec3 coreCenter;
    int proxyKey; // broadphase proxy, CN_NULL_INDEX for a shape that collides through sub-spheres
    // Multisphere worlds (cnWorldDef.multisphere): an ellipsoid, capsule or torus collides as hidden
    // sphere shapes on the same body (its sub-spheres), listed from `firstChild` through their
    // `next`, not in the body's list; the parent keeps the mass and has no proxy. A sub-sphere has
    // the parent's material, filter bits and user data, no mass, and no id a user can reach.
    int parent;     // the shape whose sub-sphere this is, CN_NULL_INDEX for a user's shape
    int firstChild; // first sub-sphere, CN_NULL_INDEX when none
    int childCount;
} cnShape;

// Sets a shape's pose in its body's frame, and whether it is the identity (cnPlaceShape's shortcut).
static inline void cnSetShapeLocalPose( cnShape* shape, cnTransform localPose )
{
    shape->localPose = localPose;
    shape->atBodyOrigin = localPose.p.x == 0.0 && localPose.p.y == 0.0 && localPose.p.z == 0.0 &&
                          localPose.q.w == 1.0 && localPose.q.x == 0.0 && localPose.q.y == 0.0 &&
                          localPose.q.z == 0.0;
}

typedef struct cnSystem
{
    char name[CN_NAME_CAPACITY];
    cnStage stage;
    cnSystemFcn* fcn;
    cnSystemFinishFcn* finishFcn;
    void* context;
} cnSystem;

typedef struct cnWorld
{
    bool inUse;
    bool locked;     // inside cnWorld_Step, except while user systems run
    bool destroying; // in cnDestroyWorld, while the systems' finish functions run
    bool stepping;
    uint16_t slot;
    uint16_t generation;

    // the user's allocator, and the counting wrapper everything in the world goes through
    cnAllocator userAllocator;
    cnAllocator allocator;
    size_t byteCount;

    cnWorldDef def;

    cnBodySlot* slots; // (slotCapacity)
    int slotCount;     // slots ever used
    int slotCapacity;
    int freeSlot;

    cnBodyStore bodies;

    // body names -> slots (name_index.c)
    int* nameSlots; // (nameCapacity) slot or CN_NULL_INDEX; capacity a power of two
    int nameCapacity;
    int nameCount;

    cnShape* shapes; // (shapeCapacity)
    int shapeSlotCount;
    int shapeCapacity;
    int freeShape;

    // joints (joint.c): a pool of slots like the shapes', and the body-slot pairs whose contacts
    // joints filter out (sorted keys, rebuilt when joints change)
    struct cnJoint* joints; // (jointCapacity)
    int jointSlotCount;
    int jointCapacity;
    int freeJoint;
    int jointCount;
    uint64_t* jointPairs; // (jointPairCapacity)
    int jointPairCount;
    int jointPairCapacity;
    bool jointPairsDirty;

    cnSystem* systems; // (systemCapacity)
    int systemCount;
    int systemCapacity;

    cnArena arena;
    cnTaskSystem tasks; // the workers the parallel stages run on (task.h)

    cnContactSet contacts;

    // islands and sleeping (island.c): the pool of sleeping islands, and the union-find over body
    // rows that the island pass fills (cnIslandAddEdge; NULL outside the pass)
    cnSleepIsland* sleepIslands; // (sleepIslandCapacity)
    int sleepIslandCapacity;
    int sleepIslandSlotCount; // entries ever used
    int sleepIslandCount;     // live sleeping islands
    int freeSleepIsland;
    int* islandParent; // (bodies.count) during the island pass

    // the constraint solver and its parameter values (world_solver.c)
    const cnSolverVTable* solver;
    void* solverState;
    double solverParams[CN_MAX_SOLVER_PARAMS];
    // merit per iteration of the last step's solve, when asked for (cnWorld_SetResidualHistory)
    double* residualHistory; // (residualHistoryCapacity)
    int residualHistoryCapacity;
    int residualHistoryCount;
    // called with the problem of each solve's final pass (cnWorld_SetProblemFcn)
    cnProblemFcn* problemFcn;
    void* problemContext;

    cnStepReport report;
    int64_t stepIndex;
    double time;
} cnWorld;

// world lookup; NULL for a null, stale or forged id
cnWorld* cnGetWorld( cnWorldId worldId );
cnWorld* cnGetWorldFromIndex( int world0 );

// body lookup; row -1 / NULL when the id is invalid
cnWorld* cnGetBodyWorld( cnBodyId bodyId, int* row );

// log through the world's hook
// True (and logged, naming `function`) when the world is being destroyed: the systems' finish
// functions may read it but not change it.
bool cnRefuseWhileDestroying( const cnWorld* world, const char* function );

void cnLogWorld( const cnWorld* world, cnLogLevel level, cnStatus status, const char* format, ... )
#if defined( __GNUC__ )
    __attribute__( ( format( printf, 4, 5 ) ) )
#endif
    ;

// body store rows; Reserve grows the arrays to `capacity` rows (false: out of memory, unchanged)
bool cnBodyStore_Reserve( cnBodyStore* store, const cnAllocator* allocator, int capacity );
int cnBodyStore_AddRow( cnBodyStore* store, const cnAllocator* allocator );
int cnBodyStore_RemoveRow( cnBodyStore* store, int row );
void cnBodyStore_Destroy( cnBodyStore* store, const cnAllocator* allocator );

// kinetic energy of one row, J (0 unless dynamic)
double cnBodyStore_KineticEnergy( const cnBodyStore* store, int row );

// body names (name_index.c); the name must already be in the body's row
int cnFindNamedSlot( const cnWorld* world, const char* name );
bool cnInsertName( cnWorld* world, int slot );
void cnRemoveName( cnWorld* world, int slot );
void cnDestroyNames( cnWorld* world );

// recompute a body's mass, centre, inertia and default mobility from its shapes
void cnUpdateBodyMass( cnWorld* world, int row );

// free every shape of a body row
void cnDestroyBodyShapes( cnWorld* world, int row );

// The multisphere baseline's sub-spheres of a geometry (docs/architecture.md, "The multisphere
// baseline"): writes the centres (shape frame) and radii of at most `count` spheres (both NULL:
// count only) and returns how many there are: `count` for an ellipsoid, capsule or torus, 1 for
// an ellipsoid whose major and middle semi-axes are equal (within 1e-9 relative) or a capsule of
// zero length, 0 for any other type.
int cnMultisphereSpheres( const cnGeometry* geometry, int count, cnVec3* centers, double* radii );

// the view handed to systems and renderers
cnBodyArrays cnMakeBodyArrays( cnWorld* world );

// integration stages (integrate.c)
typedef struct cnStepScratch
{
    cnVec3* angularMomentum; // (count) world frame, dynamic rows
    cnVec3* savedCenter;     // (count) state before the step, to undo a non-finite step
    cnTransform* savedTransform;
    cnVec3* savedLinear;
    cnVec3* savedAngular;
    cnVec3* pseudoLinear;  // (count) position-only velocities of the split-impulse pass
    cnVec3* pseudoAngular; // (count)
    bool finalSubstep;     // the step's last substep: an inertial world's recursion runs on it
} cnStepScratch;

// Gravity, then each dynamic body's constant force and torque, into the force arrays.
void cnApplyBodyForces( cnWorld* world );

// Count body `row` in this step's report under `count` (nonFiniteCount or clampedCount) once per
// step, however many checks catch it.
void cnFlagBody( cnWorld* world, int row, int* count );

// Velocities after a stage that changed them (prediction, the solve): a body whose velocities are
// not finite gets its last finite ones back (cnGuardBodies); one faster than the world's
// maxLinearSpeed is slowed to it. Both are counted in the step report.
void cnGuardVelocities( cnWorld* world );
bool cnPredictVelocities( cnWorld* world, double timeStep, cnStepScratch* scratch );
void cnIntegratePositions( cnWorld* world, double timeStep, const cnStepScratch* scratch );
// Where body `row` is after `timeStep` at velocity `v` and angular velocity `w`: the centre of
// mass moved, the rotation about it by the exponential map (q kept unit). Returns the body
// origin's transform and writes the new centre. The integrator's move, also used for trial poses.
cnTransform cnAdvanceBody( const cnBodyStore* bodies, int row, cnVec3 v, cnVec3 w, double timeStep,
                           cnVec3* center );
