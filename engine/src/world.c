// SPDX-License-Identifier: MIT
// Worlds: the world table, lifetime, user systems and the step pipeline.
//
// One step, as data (docs/architecture.md has the full picture):
//   begin systems -> gravity and constant forces into the force arrays -> force systems
//   -> predict velocities -> (broadphase, narrowphase, assemble, solve: the collision and solver layers)
//   -> integrate positions -> clear forces -> end systems -> report
// User systems run with the world unlocked, so they may create and destroy bodies; the
// pipeline re-reads the store after each of them.

#include "world.h"

#include "contact_solver.h"
#include "continuous.h"
#include "core.h"
#include "island.h"
#include "joint.h"
#include "joint_solver.h"

#include <stdio.h>
#include <string.h>

static cnWorld cn_worlds[CN_MAX_WORLDS];

_Static_assert( CN_MAX_WORLDS < UINT16_MAX, "world index must fit in a uint16_t" );

// counting wrapper: every byte a world owns passes through here
static void* cnWorldAllocFcn( size_t size, size_t alignment, void* context )
{
    cnWorld* world = context;
    void* memory = cnAlloc( &world->userAllocator, size, alignment );
    if ( memory != NULL )
    {
        world->byteCount += size;
    }
    return memory;
}

static void cnWorldFreeFcn( void* memory, size_t size, void* context )
{
    cnWorld* world = context;
    CN_ASSERT( world->byteCount >= size );
    world->byteCount -= size;
    cnFree( &world->userAllocator, memory, size );
}

void cnLogWorld( const cnWorld* world, cnLogLevel level, cnStatus status, const char* format, ... )
{
    char message[512];
    va_list args;
    va_start( args, format );
    vsnprintf( message, sizeof( message ), format, args );
    va_end( args );

    if ( world != NULL && world->def.logFcn != NULL )
    {
        world->def.logFcn( level, (int)status, message, world->def.logContext );
    }
    else
    {
        cnDefaultLog( level, (int)status, message, NULL );
    }
}

cnWorld* cnGetWorldFromIndex( int world0 )
{
    if ( world0 < 0 || world0 >= CN_MAX_WORLDS || cn_worlds[world0].inUse == false )
    {
        return NULL;
    }
    return cn_worlds + world0;
}

cnWorld* cnGetWorld( cnWorldId worldId )
{
    cnWorld* world = cnGetWorldFromIndex( (int)worldId.index1 - 1 );
    if ( world == NULL || world->generation != worldId.generation )
    {
        return NULL;
    }
    return world;
}

static cnWorldId cnMakeWorldId( const cnWorld* world )
{
    cnWorldId id = { (uint16_t)( world->slot + 1 ), world->generation };
    return id;
}

// check a world def; false with a logged reason
static bool cnValidateWorldDef( const cnWorldDef* def, char* message, int size )
{
    if ( def->internalValue != CN_SECRET_COOKIE )
    {
        cnFormat( message, size, "world def: not initialized with cnDefaultWorldDef()" );
        return false;
    }
    if ( cnIsFiniteVec3( def->gravity ) == false )
    {
        cnFormat( message, size, "world def: gravity is not finite (%g, %g, %g)", def->gravity.x,
                  def->gravity.y, def->gravity.z );
        return false;
    }
    if ( (int)def->dynamics < 0 || def->dynamics >= cn_dynamicsModeCount )
    {
        cnFormat( message, size, "world def: unknown dynamics mode %d", (int)def->dynamics );
        return false;
    }
    if ( (int)def->frictionModel < 0 || def->frictionModel >= cn_frictionModelCount )
    {
        cnFormat( message, size, "world def: unknown friction model %d", (int)def->frictionModel );
        return false;
    }
    if ( !( isfinite( def->viscosity ) && def->viscosity > 0.0 ) )
    {
        cnFormat( message, size, "world def: viscosity must be a positive number, got %g", def->viscosity );
        return false;
    }
    if ( !( isfinite( def->timeStep ) && def->timeStep > 0.0 ) )
    {
        cnFormat( message, size, "world def: timeStep must be a positive number, got %g", def->timeStep );
        return false;
    }
    if ( def->solver.iterations <= 0 ||
         !( isfinite( def->solver.tolerance ) && def->solver.tolerance >= 0.0 ) ||
         memchr( def->solver.name, 0, sizeof( def->solver.name ) ) == NULL )
    {
        cnFormat( message, size,
                  "world def: solver settings need a name, iterations > 0 and tolerance >= 0" );
        return false;
    }
    if ( !( isfinite( def->contactMargin ) && def->contactMargin >= 0.0 ) ||
         !( isfinite( def->aabbMargin ) && def->aabbMargin >= 0.0 ) )
    {
        cnFormat( message, size,
                  "world def: contactMargin and aabbMargin must be numbers >= 0, got %g and %g",
                  def->contactMargin, def->aabbMargin );
        return false;
    }
    if ( def->substeps < 0 || def->substeps > 64 ||
         !( isfinite( def->contactHertz ) && def->contactHertz > 0.0 ) )
    {
        cnFormat( message, size,
                  "world def: substeps must be 0 (automatic) to 64 and contactHertz > 0, got %d and %g",
                  def->substeps, def->contactHertz );
        return false;
    }
    if ( def->relaxIterations < 1 || def->relaxIterations > 1000 )
    {
        cnFormat( message, size, "world def: relaxIterations must be 1 to 1000, got %d",
                  def->relaxIterations );
        return false;
    }
    if ( !( isfinite( def->maxLinearSpeed ) && def->maxLinearSpeed > 0.0 ) )
    {
        cnFormat( message, size, "world def: maxLinearSpeed must be a positive number, got %g",
                  def->maxLinearSpeed );
        return false;
    }
    if ( def->contactRecursions < 0 || def->contactRecursions > 64 )
    {
        cnFormat( message, size, "world def: contactRecursions must be 0 to 64, got %d",
                  def->contactRecursions );
        return false;
    }
    if ( !( isfinite( def->contactOverlapTolerance ) && def->contactOverlapTolerance > 0.0 ) )
    {
        cnFormat( message, size, "world def: contactOverlapTolerance must be a positive number, got %g",
                  def->contactOverlapTolerance );
        return false;
    }
    if ( !( isfinite( def->hitEventThreshold ) && def->hitEventThreshold >= 0.0 ) )
    {
        cnFormat( message, size, "world def: hitEventThreshold must be a finite number >= 0 (m/s), got %g",
                  def->hitEventThreshold );
        return false;
    }
    if ( def->multisphere != 0 && ( def->multisphere < 2 || def->multisphere > 256 ) )
    {
        cnFormat( message, size, "world def: multisphere must be 0 (off) or 2 to 256, got %d",
                  def->multisphere );
        return false;
    }
    if ( def->workerCount < 1 || def->workerCount > CN_MAX_WORKERS )
    {
        cnFormat( message, size, "world def: workerCount must be 1 to %d, got %d", CN_MAX_WORKERS,
                  def->workerCount );
        return false;
    }
    if ( ( def->enqueueTask == NULL ) != ( def->finishTask == NULL ) )
    {
        cnFormat( message, size,
                  "world def: the task callbacks need both enqueueTask and finishTask, or neither" );
        return false;
    }
    if ( ( def->allocator.allocFcn == NULL ) != ( def->allocator.freeFcn == NULL ) )
    {
        cnFormat( message, size, "world def: allocator needs both allocFcn and freeFcn, or neither" );
        return false;
    }
    return true;
}

cnWorldId cnCreateWorld( const cnWorldDef* def )
{
    char message[256];
    if ( def == NULL )
    {
        cnDefaultLog( cn_logError, cn_statusInvalidArgument, "cnCreateWorld: def is NULL", NULL );
        return cn_nullWorldId;
    }
    if ( cnValidateWorldDef( def, message, sizeof( message ) ) == false )
    {
        cnWorld probe = { 0 };
        probe.def.logFcn = def->logFcn;
        probe.def.logContext = def->logContext;
        cnLogWorld( &probe, cn_logError, cn_statusInvalidArgument, "%s", message );
        return cn_nullWorldId;
    }

    // find a free slot
    int slot = CN_NULL_INDEX;
    for ( int i = 0; i < CN_MAX_WORLDS; ++i )
    {
        if ( cn_worlds[i].inUse == false )
        {
            slot = i;
            break;
        }
    }
    if ( slot == CN_NULL_INDEX )
    {
        cnWorld probe = { 0 };
        probe.def.logFcn = def->logFcn;
        probe.def.logContext = def->logContext;
        cnLogWorld( &probe, cn_logError, cn_statusCapacityExceeded,
                    "cnCreateWorld: all %d world slots are in use", CN_MAX_WORLDS );
        return cn_nullWorldId;
    }

    cnWorld* world = cn_worlds + slot;
    uint16_t generation = (uint16_t)( world->generation + 1 );
    if ( generation == 0 )
    {
        generation = 1;
    }

    memset( world, 0, sizeof( *world ) );
    world->inUse = true;
    world->slot = (uint16_t)slot;
    world->generation = generation;
    world->userAllocator = def->allocator;
    world->allocator = ( cnAllocator ){ cnWorldAllocFcn, cnWorldFreeFcn, world };
    world->def = *def;
    world->freeSlot = CN_NULL_INDEX;
    world->freeShape = CN_NULL_INDEX;
    world->freeSleepIsland = CN_NULL_INDEX;
    world->freeJoint = CN_NULL_INDEX;
    cnCreateArena( &world->arena, &world->allocator, 0 );
    const char* taskWhy = NULL;
    if ( cnTaskSystem_Create( &world->tasks, def->workerCount, def->enqueueTask, def->finishTask,
                              def->userTaskContext, &world->allocator, &taskWhy ) == false )
    {
        cnLogWorld( world, cn_logWarning, cn_statusOutOfMemory, "cnCreateWorld: %s; %d workers run the steps",
                    taskWhy, world->tasks.workerCount );
    }
    world->def.workerCount = world->tasks.workerCount;
    cnCreateContactSet( world );
    char solverMessage[256];
    cnStatus solverStatus = cnInitWorldSolver( world, &def->solver, solverMessage, sizeof( solverMessage ) );
    if ( solverStatus != cn_statusOk )
    {
        cnLogWorld( world, cn_logError, solverStatus, "cnCreateWorld: %s", solverMessage );
        cnDestroyWorld( cnMakeWorldId( world ) );
        return cn_nullWorldId;
    }
    memcpy( world->report.solverName, def->solver.name, sizeof( world->report.solverName ) );

    // early capacity, from the hint; failing here only means growing later
    if ( def->bodyCapacity > 0 )
    {
        void* slots = NULL;
        if ( cnReserve( &world->allocator, &slots, &world->slotCapacity, def->bodyCapacity, 16,
                        sizeof( cnBodySlot ) ) )
        {
            world->slots = slots;
        }
        cnBodyStore_Reserve( &world->bodies, &world->allocator, def->bodyCapacity );
    }

    return cnMakeWorldId( world );
}

cnStatus cnDestroyWorld( cnWorldId worldId )
{
    cnWorld* world = cnGetWorld( worldId );
    if ( world == NULL )
    {
        return cn_statusInvalidId;
    }
    if ( world->locked || world->stepping )
    {
        cnLogWorld( world, cn_logError, cn_statusWorldLocked,
                    "cnDestroyWorld: called from inside cnWorld_Step" );
        return cn_statusWorldLocked;
    }

    // the systems' finish functions see the world whole, and cannot change it
    world->destroying = true;
    for ( int i = 0; i < world->systemCount; ++i )
    {
        if ( world->systems[i].finishFcn != NULL )
        {
            world->systems[i].finishFcn( worldId, world->systems[i].context );
        }
    }
    world->destroying = false;

    for ( int row = 0; row < world->bodies.count; ++row )
    {
        cnDestroyBodyShapes( world, row );
        cnFree( &world->allocator, world->bodies.name[row],
                world->bodies.name[row] != NULL ? strlen( world->bodies.name[row] ) + 1 : 0 );
    }
    cnDestroyJoints( world );
    cnTaskSystem_Destroy( &world->tasks, &world->allocator );
    cnDestroyWorldSolver( world );
    cnDestroyContactSet( world );
    cnDestroyIslands( world );
    cnDestroyNames( world );
    cnBodyStore_Destroy( &world->bodies, &world->allocator );
    cnFree( &world->allocator, world->slots, (size_t)world->slotCapacity * sizeof( cnBodySlot ) );
    cnFree( &world->allocator, world->shapes, (size_t)world->shapeCapacity * sizeof( cnShape ) );
    cnFree( &world->allocator, world->systems, (size_t)world->systemCapacity * sizeof( cnSystem ) );
    cnDestroyArena( &world->arena );
    CN_ASSERT( world->byteCount == 0 );

    uint16_t generation = world->generation;
    memset( world, 0, sizeof( *world ) );
    world->generation = generation;
    return cn_statusOk;
}

bool cnWorld_IsValid( cnWorldId worldId )
{
    return cnGetWorld( worldId ) != NULL;
}

cnStepReport cnWorld_GetStepReport( cnWorldId worldId )
{
    cnWorld* world = cnGetWorld( worldId );
    cnStepReport report;
    memset( &report, 0, sizeof( report ) );
    return world != NULL ? world->report : report;
}

cnStatus cnWorld_SetGravity( cnWorldId worldId, cnVec3 gravity )
{
    cnWorld* world = cnGetWorld( worldId );
    if ( world == NULL )
    {
        return cn_statusInvalidId;
    }
    if ( cnIsFiniteVec3( gravity ) == false )
    {
        cnLogWorld( world, cn_logError, cn_statusNonFinite, "cnWorld_SetGravity: gravity is not finite" );
        return cn_statusNonFinite;
    }
    if ( memcmp( &world->def.gravity, &gravity, sizeof( gravity ) ) != 0 )
    {
        cnWakeAll( world );
    }
    world->def.gravity = gravity;
    return cn_statusOk;
}

cnVec3 cnWorld_GetGravity( cnWorldId worldId )
{
    cnWorld* world = cnGetWorld( worldId );
    return world != NULL ? world->def.gravity : cn_vec3Zero;
}

cnStatus cnWorld_SetDynamics( cnWorldId worldId, cnDynamicsMode mode )
{
    cnWorld* world = cnGetWorld( worldId );
    if ( world == NULL )
    {
        return cn_statusInvalidId;
    }
    if ( (int)mode < 0 || mode >= cn_dynamicsModeCount )
    {
        cnLogWorld( world, cn_logError, cn_statusInvalidArgument, "cnWorld_SetDynamics: unknown mode %d",
                    (int)mode );
        return cn_statusInvalidArgument;
    }
    if ( world->locked )
    {
        return cn_statusWorldLocked;
    }
    if ( world->def.dynamics != mode )
    {
        cnWakeAll( world );
    }
    world->def.dynamics = mode;
    return cn_statusOk;
}

cnDynamicsMode cnWorld_GetDynamics( cnWorldId worldId )
{
    cnWorld* world = cnGetWorld( worldId );
    return world != NULL ? world->def.dynamics : cn_dynamicsInertial;
}

cnStatus cnWorld_SetHitEventThreshold( cnWorldId worldId, double threshold )
{
    cnWorld* world = cnGetWorld( worldId );
    if ( world == NULL )
    {
        return cn_statusInvalidId;
    }
    if ( isfinite( threshold ) == false )
    {
        cnLogWorld( world, cn_logError, cn_statusNonFinite,
                    "cnWorld_SetHitEventThreshold: threshold is not finite (%g)", threshold );
        return cn_statusNonFinite;
    }
    if ( threshold < 0.0 )
    {
        cnLogWorld( world, cn_logError, cn_statusInvalidArgument,
                    "cnWorld_SetHitEventThreshold: threshold must be >= 0 (m/s), got %g", threshold );
        return cn_statusInvalidArgument;
    }
    world->def.hitEventThreshold = threshold;
    return cn_statusOk;
}

double cnWorld_GetHitEventThreshold( cnWorldId worldId )
{
    cnWorld* world = cnGetWorld( worldId );
    return world != NULL ? world->def.hitEventThreshold : 0.0;
}

cnWorldDef cnWorld_GetDef( cnWorldId worldId )
{
    cnWorld* world = cnGetWorld( worldId );
    if ( world == NULL )
    {
        cnWorldDef def;
        memset( &def, 0, sizeof( def ) );
        return def;
    }
    cnWorldDef def = world->def;
    def.allocator = world->userAllocator;
    return def;
}

cnStatus cnWorld_SetSolverSettings( cnWorldId worldId, const cnSolverSettings* settings )
{
    cnWorld* world = cnGetWorld( worldId );
    if ( world == NULL )
    {
        return cn_statusInvalidId;
    }
    if ( settings == NULL || memchr( settings->name, 0, sizeof( settings->name ) ) == NULL )
    {
        cnLogWorld( world, cn_logError, cn_statusInvalidArgument,
                    "cnWorld_SetSolverSettings: no solver name" );
        return cn_statusInvalidArgument;
    }
    if ( world->stepping )
    {
        return cn_statusWorldLocked;
    }
    char message[256];
    cnStatus status = cnInitWorldSolver( world, settings, message, sizeof( message ) );
    if ( status != cn_statusOk )
    {
        cnLogWorld( world, cn_logError, status, "cnWorld_SetSolverSettings: %s", message );
        return status;
    }
    world->def.solver.iterations = settings->iterations;
    world->def.solver.tolerance = settings->tolerance;
    return cn_statusOk;
}

int cnWorld_GetBodyCount( cnWorldId worldId )
{
    cnWorld* world = cnGetWorld( worldId );
    return world != NULL ? world->bodies.count : 0;
}

cnBodyArrays cnMakeBodyArrays( cnWorld* world )
{
    cnBodyStore* s = &world->bodies;
    cnBodyArrays view = {
        .count = s->count,
        .ids = s->id,
        .types = s->type,
        .transforms = s->transform,
        .centers = s->center,
        .linearVelocities = s->linearVelocity,
        .angularVelocities = s->angularVelocity,
        .forces = s->force,
        .torques = s->torque,
        .masses = s->mass,
        .userData = s->userData,
    };
    return view;
}

cnBodyArrays cnWorld_GetBodyArrays( cnWorldId worldId )
{
    cnWorld* world = cnGetWorld( worldId );
    if ( world == NULL )
    {
        cnBodyArrays empty;
        memset( &empty, 0, sizeof( empty ) );
        return empty;
    }
    return cnMakeBodyArrays( world );
}

int cnWorld_CopyTransforms( cnWorldId worldId, cnTransform* transforms, cnBodyId* ids, int capacity )
{
    cnWorld* world = cnGetWorld( worldId );
    if ( world == NULL )
    {
        return 0;
    }
    int n = world->bodies.count < capacity ? world->bodies.count : capacity;
    if ( n > 0 && transforms != NULL )
    {
        memcpy( transforms, world->bodies.transform, (size_t)n * sizeof( cnTransform ) );
    }
    if ( n > 0 && ids != NULL )
    {
        memcpy( ids, world->bodies.id, (size_t)n * sizeof( cnBodyId ) );
    }
    return world->bodies.count;
}

cnStatus cnWorld_SetWorkerCount( cnWorldId worldId, int workerCount )
{
    cnWorld* world = cnGetWorld( worldId );
    if ( world == NULL )
    {
        return cn_statusInvalidId;
    }
    if ( workerCount < 1 || workerCount > CN_MAX_WORKERS )
    {
        cnLogWorld( world, cn_logError, cn_statusInvalidArgument,
                    "cnWorld_SetWorkerCount: workerCount must be 1 to %d, got %d", CN_MAX_WORKERS,
                    workerCount );
        return cn_statusInvalidArgument;
    }
    if ( world->locked || world->stepping )
    {
        cnLogWorld( world, cn_logError, cn_statusWorldLocked,
                    "cnWorld_SetWorkerCount: called from inside a step" );
        return cn_statusWorldLocked;
    }
    if ( workerCount == world->tasks.workerCount )
    {
        return cn_statusOk;
    }
    cnTaskSystem_Destroy( &world->tasks, &world->allocator );
    const char* why = NULL;
    bool started =
        cnTaskSystem_Create( &world->tasks, workerCount, world->def.enqueueTask, world->def.finishTask,
                             world->def.userTaskContext, &world->allocator, &why );
    world->def.workerCount = world->tasks.workerCount;
    if ( started == false )
    {
        cnLogWorld( world, cn_logWarning, cn_statusOutOfMemory,
                    "cnWorld_SetWorkerCount: %s; %d workers run the steps", why, world->tasks.workerCount );
        return cn_statusOutOfMemory;
    }
    return cn_statusOk;
}

int cnWorld_GetWorkerCount( cnWorldId worldId )
{
    cnWorld* world = cnGetWorld( worldId );
    return world != NULL ? world->tasks.workerCount : 0;
}

// FNV-1a, 64 bits, over one double's bytes from the least significant up (the same on every
// little- or big-endian machine)
static uint64_t cnHashDouble( uint64_t hash, double x )
{
    uint64_t bits;
    memcpy( &bits, &x, sizeof( bits ) );
    for ( int k = 0; k < 8; ++k )
    {
        hash ^= ( bits >> ( 8 * k ) ) & 0xffu;
        hash *= 0x100000001b3ull;
    }
    return hash;
}

uint64_t cnWorld_GetStateHash( cnWorldId worldId )
{
    cnWorld* world = cnGetWorld( worldId );
    if ( world == NULL )
    {
        return 0;
    }
    const cnBodyStore* b = &world->bodies;
    uint64_t hash = 0xcbf29ce484222325ull;
    for ( int row = 0; row < b->count; ++row )
    {
        cnTransform t = b->transform[row];
        cnVec3 v = b->linearVelocity[row];
        cnVec3 w = b->angularVelocity[row];
        const double values[13] = { t.p.x, t.p.y, t.p.z, t.q.w, t.q.x, t.q.y, t.q.z,
                                    v.x,   v.y,   v.z,   w.x,   w.y,   w.z };
        for ( int k = 0; k < 13; ++k )
        {
            hash = cnHashDouble( hash, values[k] );
        }
    }
    return hash;
}

size_t cnWorld_GetByteCount( cnWorldId worldId )
{
    cnWorld* world = cnGetWorld( worldId );
    return world != NULL ? world->byteCount : 0;
}

void* cnWorld_GetUserData( cnWorldId worldId )
{
    cnWorld* world = cnGetWorld( worldId );
    return world != NULL ? world->def.userData : NULL;
}

cnBodyId cnWorld_FindBody( cnWorldId worldId, const char* name )
{
    cnWorld* world = cnGetWorld( worldId );
    if ( world == NULL || name == NULL || name[0] == 0 )
    {
        return cn_nullBodyId;
    }
    int slot = cnFindNamedSlot( world, name );
    if ( slot != CN_NULL_INDEX )
    {
        return world->bodies.id[world->slots[slot].row];
    }
    return cn_nullBodyId;
}

// systems ----------------------------------------------------------------------------------------

static int cnFindSystem( const cnWorld* world, const char* name )
{
    for ( int i = 0; i < world->systemCount; ++i )
    {
        if ( strcmp( world->systems[i].name, name ) == 0 )
        {
            return i;
        }
    }
    return CN_NULL_INDEX;
}

cnStatus cnWorld_AddSystem( cnWorldId worldId, const cnSystemDef* def )
{
    cnWorld* world = cnGetWorld( worldId );
    if ( world == NULL )
    {
        return cn_statusInvalidId;
    }
    if ( cnRefuseWhileDestroying( world, "cnWorld_AddSystem" ) )
    {
        return cn_statusWorldLocked;
    }
    if ( def == NULL || def->internalValue != CN_SECRET_COOKIE )
    {
        cnLogWorld( world, cn_logError, cn_statusInvalidArgument,
                    "cnWorld_AddSystem: def is NULL or not initialized with cnDefaultSystemDef()" );
        return cn_statusInvalidArgument;
    }
    if ( def->fcn == NULL || def->name == NULL || def->name[0] == 0 ||
         strlen( def->name ) >= CN_NAME_CAPACITY || (int)def->stage < 0 || def->stage >= cn_stageCount )
    {
        cnLogWorld( world, cn_logError, cn_statusInvalidArgument,
                    "cnWorld_AddSystem: a system needs a function, a stage and a name of 1 to %d characters",
                    CN_NAME_CAPACITY - 1 );
        return cn_statusInvalidArgument;
    }
    if ( cnFindSystem( world, def->name ) != CN_NULL_INDEX )
    {
        cnLogWorld( world, cn_logError, cn_statusInvalidArgument,
                    "cnWorld_AddSystem: a system named '%s' exists", def->name );
        return cn_statusInvalidArgument;
    }
    void* systems = world->systems;
    if ( cnReserve( &world->allocator, &systems, &world->systemCapacity, world->systemCount + 1, 4,
                    sizeof( cnSystem ) ) == false )
    {
        return cn_statusOutOfMemory;
    }
    world->systems = systems;
    cnSystem* system = world->systems + world->systemCount;
    memset( system, 0, sizeof( *system ) );
    memcpy( system->name, def->name, strlen( def->name ) + 1 );
    system->stage = def->stage;
    system->fcn = def->fcn;
    system->finishFcn = def->finishFcn;
    system->context = def->context;
    world->systemCount += 1;
    return cn_statusOk;
}

cnStatus cnWorld_RemoveSystem( cnWorldId worldId, const char* name )
{
    cnWorld* world = cnGetWorld( worldId );
    if ( world == NULL )
    {
        return cn_statusInvalidId;
    }
    if ( cnRefuseWhileDestroying( world, "cnWorld_RemoveSystem" ) )
    {
        return cn_statusWorldLocked;
    }
    int index = name != NULL ? cnFindSystem( world, name ) : CN_NULL_INDEX;
    if ( index == CN_NULL_INDEX )
    {
        return cn_statusInvalidArgument;
    }
    cnSystem removed = world->systems[index];
    // keep registration order: systems run in the order they were added
    memmove( world->systems + index, world->systems + index + 1,
             (size_t)( world->systemCount - index - 1 ) * sizeof( cnSystem ) );
    world->systemCount -= 1;
    if ( removed.finishFcn != NULL )
    {
        removed.finishFcn( worldId, removed.context );
    }
    return cn_statusOk;
}

// run the systems registered for a stage, in registration order; a system cannot destroy its
// own world (cnDestroyWorld refuses while stepping), so the world outlives the calls
static void cnRunSystems( cnWorld* world, cnStage stage, double timeStep )
{
    cnWorldId worldId = cnMakeWorldId( world );
    for ( int i = 0; i < world->systemCount; ++i )
    {
        if ( world->systems[i].stage != stage )
        {
            continue;
        }
        // copy: the system may add or remove systems
        cnSystem system = world->systems[i];
        cnBodyArrays view = cnMakeBodyArrays( world );
        world->locked = false;
        system.fcn( worldId, &view, timeStep, system.context );
        world->locked = true;
    }
}

// the step --------------------------------------------------------------------------------------

// Bad values in the step. Users write velocities and forces through the bulk arrays and user
// systems, and arithmetic can overflow (two 1e308 N forces, a 1e308 gravity over a large step): a
// body whose state is not finite would reach the broadphase and the solver, and the solver's NaN
// would cost every other body its contacts. So every body's state is checked where values enter:
// at the start of the step (bulk writes between steps), after the force stage (user systems and
// gravity), after prediction and after the solve (overflow). A body that fails gets its last finite
// state back (taken at the start of the step, before user systems run, and at its end), its forces
// dropped, and the step report counts it (nonfinite_state); the others go on as if nothing
// happened.

void cnFlagBody( cnWorld* world, int row, int* count )
{
    cnBodyStore* b = &world->bodies;
    int64_t step = world->stepIndex + 1;
    if ( b->flaggedStep[row] != step )
    {
        b->flaggedStep[row] = step;
        *count += 1;
    }
}

static bool cnIsBodyStateFinite( const cnBodyStore* b, int row )
{
    return cnIsFiniteVec3( b->transform[row].p ) && cnIsFiniteQuat( b->transform[row].q ) &&
           cnIsFiniteVec3( b->center[row] ) && cnIsFiniteVec3( b->linearVelocity[row] ) &&
           cnIsFiniteVec3( b->angularVelocity[row] ) && cnIsFiniteVec3( b->force[row] ) &&
           cnIsFiniteVec3( b->torque[row] );
}

// every body checked; a finite one's state becomes its last finite state when `keep`
static void cnGuardBodies( cnWorld* world, bool keep )
{
    cnBodyStore* b = &world->bodies;
    for ( int row = 0; row < b->count; ++row )
    {
        if ( cnIsBodyStateFinite( b, row ) )
        {
            if ( keep )
            {
                b->safeTransform[row] = b->transform[row];
                b->safeCenter[row] = b->center[row];
                b->safeLinearVelocity[row] = b->linearVelocity[row];
                b->safeAngularVelocity[row] = b->angularVelocity[row];
            }
            continue;
        }
        b->transform[row] = b->safeTransform[row];
        b->center[row] = b->safeCenter[row];
        b->linearVelocity[row] = b->safeLinearVelocity[row];
        b->angularVelocity[row] = b->safeAngularVelocity[row];
        b->force[row] = cn_vec3Zero;
        b->torque[row] = cn_vec3Zero;
        cnFlagBody( world, row, &world->report.nonFiniteCount );
    }
}

void cnGuardVelocities( cnWorld* world )
{
    cnBodyStore* b = &world->bodies;
    double limit = world->def.maxLinearSpeed;
    for ( int row = 0; row < b->count; ++row )
    {
        if ( cnIsFiniteVec3( b->linearVelocity[row] ) == false ||
             cnIsFiniteVec3( b->angularVelocity[row] ) == false )
        {
            b->linearVelocity[row] = b->safeLinearVelocity[row];
            b->angularVelocity[row] = b->safeAngularVelocity[row];
            cnFlagBody( world, row, &world->report.nonFiniteCount );
        }
        double speed = cnLength( b->linearVelocity[row] );
        if ( speed > limit )
        {
            b->linearVelocity[row] = cnScale( limit / speed, b->linearVelocity[row] );
            cnFlagBody( world, row, &world->report.clampedCount );
        }
    }
}

// one pass of the pipeline by h: predict velocities, collide, solve, integrate positions.
// On failure the velocities of this substep are put back and the status returned.
static cnStatus cnSubstep( cnWorld* world, double h, bool final, cnStepReport* report )
{
    uint64_t ticks;
    // 2 predict velocities
    ticks = cnGetTicks();
    cnStepScratch scratch;
    memset( &scratch, 0, sizeof( scratch ) );
    scratch.finalSubstep = final;
    bool ok = cnPredictVelocities( world, h, &scratch );
    cnGuardVelocities( world );
    report->predictMs += cnGetMilliseconds( ticks );
    if ( ok == false )
    {
        cnLogWorld( world, cn_logError, cn_statusOutOfMemory,
                    "cnWorld_Step: out of memory for step scratch" );
        return cn_statusOutOfMemory;
    }

    // 3-4 broadphase and narrowphase at the current poses: the contact cache and its events
    ticks = cnGetTicks();
    cnStatus collided = cnUpdateContacts( world, h );
    report->collideMs += cnGetMilliseconds( ticks );
    if ( collided != cn_statusOk )
    {
        // nothing moved in this substep yet: put its velocities back
        for ( int row = 0; row < world->bodies.count; ++row )
        {
            world->bodies.linearVelocity[row] = scratch.savedLinear[row];
            world->bodies.angularVelocity[row] = scratch.savedAngular[row];
        }
        cnLogWorld( world, cn_logError, collided, "cnWorld_Step: collision: %s", cnStatusString( collided ) );
        return collided;
    }

    // 5-6 assembly of the contact rows and the solve; the velocities take the result
    ticks = cnGetTicks();
    cnStatus solved = cnSolveContacts( world, h, &scratch );
    if ( solved != cn_statusOk )
    {
        for ( int row = 0; row < world->bodies.count; ++row )
        {
            world->bodies.linearVelocity[row] = scratch.savedLinear[row];
            world->bodies.angularVelocity[row] = scratch.savedAngular[row];
        }
        cnLogWorld( world, cn_logError, solved, "cnWorld_Step: contact solve: %s", cnStatusString( solved ) );
        return solved;
    }
    cnGuardVelocities( world );
    report->solveMs += cnGetMilliseconds( ticks );

    // 7 integrate positions and orientations
    ticks = cnGetTicks();
    cnIntegratePositions( world, h, &scratch );
    report->integrateMs += cnGetMilliseconds( ticks );

    // 7a the joints' position error the move left, projected away (joint_solver.c)
    ticks = cnGetTicks();
    cnStatus projected = cnProjectJoints( world, h );
    report->solveMs += cnGetMilliseconds( ticks );
    if ( projected != cn_statusOk )
    {
        // the step goes on with the joints as the solve left them
        cnLogWorld( world, cn_logError, projected, "cnWorld_Step: joint projection skipped: %s",
                    cnStatusString( projected ) );
    }

    // 7b continuous collision: a fast body goes back to just short of the first static shape it
    // would have crossed (continuous.c), before the next substep collides and the step's end
    // refreshes the broadphase boxes and runs the sensors
    if ( world->def.enableContinuous )
    {
        cnSolveContinuous( world, &scratch );
    }

    return cn_statusOk;
}

bool cnRefuseWhileDestroying( const cnWorld* world, const char* function )
{
    if ( world->destroying )
    {
        cnLogWorld( world, cn_logError, cn_statusWorldLocked,
                    "%s: the world is being destroyed (called from a system's finish function)", function );
    }
    return world->destroying;
}

cnStatus cnWorld_Step( cnWorldId worldId, double timeStep )
{
    cnWorld* world = cnGetWorld( worldId );
    if ( world == NULL )
    {
        return cn_statusInvalidId;
    }
    if ( cnRefuseWhileDestroying( world, "cnWorld_Step" ) )
    {
        return cn_statusWorldLocked;
    }
    if ( world->stepping )
    {
        cnLogWorld( world, cn_logError, cn_statusWorldLocked, "cnWorld_Step: called from inside a step" );
        return cn_statusWorldLocked;
    }
    if ( !( isfinite( timeStep ) && timeStep > 0.0 ) )
    {
        cnLogWorld( world, cn_logError, cn_statusInvalidArgument,
                    "cnWorld_Step: time step must be a positive number, got %g", timeStep );
        return cn_statusInvalidArgument;
    }

    uint64_t stepStart = cnGetTicks();
    world->stepping = true;
    world->locked = true;

    cnStepReport* report = &world->report;
    char solverName[32];
    memcpy( solverName, world->def.solver.name, sizeof( solverName ) );
    memset( report, 0, sizeof( *report ) );
    memcpy( report->solverName, solverName, sizeof( solverName ) );
    report->timeStep = timeStep;
    report->recursionOverlap = (double)NAN;
    if ( cnArenaReset( &world->arena ) == false )
    {
        cnLogWorld( world, cn_logWarning, cn_statusOutOfMemory,
                    "step scratch could not grow; it keeps spilling" );
    }

    cnClearContactEvents( world );
    world->residualHistoryCount = 0;

    // what was written into the bulk arrays since the last step: sleeping bodies it touched wake;
    // the finite state is kept
    cnWakeWritten( world );
    cnGuardBodies( world, true );

    // 1 forces: user systems, gravity and the constant forces, more user systems; then what they wrote
    uint64_t ticks = cnGetTicks();
    cnRunSystems( world, cn_stageBegin, timeStep );
    cnApplyBodyForces( world );
    cnRunSystems( world, cn_stageForces, timeStep );
    cnGuardBodies( world, false );
    cnWakeWritten( world );
    uint64_t systemTicks = cnGetTicks() - ticks;

    // 2-7 predict, collide, solve, integrate: once per substep
    // automatic: two for inertial worlds (stiff contacts for stacks), one for overdamped ones
    int substeps = world->def.substeps > 0 ? world->def.substeps
                                           : ( world->def.dynamics == cn_dynamicsInertial ? 2 : 1 );
    report->substeps = substeps;
    double h = timeStep / (double)substeps;
    // the workers stay awake through the substeps' parallel stages
    cnTaskSystem_SetHot( &world->tasks, true );
    for ( int sub = 0; sub < substeps; ++sub )
    {
        cnStatus status = cnSubstep( world, h, sub == substeps - 1, report );
        if ( status != cn_statusOk )
        {
            cnTaskSystem_SetHot( &world->tasks, false );
            world->locked = false;
            world->stepping = false;
            return status;
        }
    }
    cnTaskSystem_SetHot( &world->tasks, false );

    // the state the step ends with is the last finite one (end systems may still break it)
    cnGuardBodies( world, true );

    // the broadphase boxes follow the poses the step ends with (each substep moved them before it
    // integrated), so that scene queries (cairn/query.h) from the end systems and between steps
    // find every shape where it is: a fast-turning rod leaves its fat box within one substep
    for ( int row = 0; row < world->bodies.count; ++row )
    {
        if ( world->bodies.type[row] != cn_staticBody && cnIsBodyAsleep( &world->bodies, row ) == false )
        {
            cnMoveBodyProxies( world, row, cnScale( h, world->bodies.linearVelocity[row] ) );
        }
    }
    // sensors see the poses the step ends with; out of memory, the sensors not reached keep their
    // overlaps and report the changes at a later step
    if ( world->contacts.sensorCount > 0 || world->contacts.retiredCount > 0 )
    {
        if ( cnUpdateSensors( world ) != cn_statusOk )
        {
            cnLogWorld( world, cn_logWarning, cn_statusOutOfMemory,
                        "step %lld: out of memory for the sensors; their events wait for a later step",
                        (long long)world->stepIndex + 1 );
        }
    }
    world->stepIndex += 1;
    world->time += timeStep;

    // forces are per step: what the end systems or the user add counts for the next step
    for ( int row = 0; row < world->bodies.count; ++row )
    {
        world->bodies.force[row] = cn_vec3Zero;
        world->bodies.torque[row] = cn_vec3Zero;
    }

    // 8 islands and sleeping, end systems (growth, division, measurements), then the report
    ticks = cnGetTicks();
    if ( cnUpdateIslands( world, timeStep ) == false )
    {
        cnLogWorld( world, cn_logWarning, cn_statusOutOfMemory,
                    "step %lld: out of memory for the islands; every body stays awake this step",
                    (long long)world->stepIndex );
    }
    report->islandMs = cnGetMilliseconds( ticks );
    ticks = cnGetTicks();
    cnRunSystems( world, cn_stageEnd, timeStep );
    systemTicks += cnGetTicks() - ticks;

    if ( report->nonFiniteCount > 0 )
    {
        report->warnings |= cn_warnNonFiniteState;
        cnLogWorld( world, cn_logWarning, cn_statusNonFinite,
                    "step %lld: %d bodies got a non-finite state and were put back to their last finite one",
                    (long long)world->stepIndex, report->nonFiniteCount );
    }
    if ( report->clampedCount > 0 )
    {
        report->warnings |= cn_warnSpeedClamped;
        cnLogWorld( world, cn_logWarning, cn_statusInvalidArgument,
                    "step %lld: %d bodies were faster than maxLinearSpeed (%g m/s) and were slowed to it",
                    (long long)world->stepIndex, report->clampedCount, world->def.maxLinearSpeed );
    }
    report->stepIndex = world->stepIndex;
    report->time = world->time;
    report->bodyCount = world->bodies.count;
    for ( int row = 0; row < world->bodies.count; ++row )
    {
        report->dynamicCount += world->bodies.type[row] == cn_dynamicBody ? 1 : 0;
    }
    for ( int row = 0; row < world->bodies.count; ++row )
    {
        report->kineticEnergy += cnBodyStore_KineticEnergy( &world->bodies, row );
    }
    report->systemsMs = cnTicksToMilliseconds( systemTicks );
    report->stepMs = cnGetMilliseconds( stepStart );

    world->locked = false;
    world->stepping = false;
    return cn_statusOk;
}
