// SPDX-License-Identifier: MIT
// Colony growth (ReLCP paper section 7.3), through the public API only.
//
// A cell is a dynamic body with one capsule: tip-to-tip length l = 2 (halfLength + radius),
// axis = the capsule's z axis. The colony keeps its own dense arrays, one entry per cell, and a
// hash from body id to cell index so that per-body queries (the viewer colours every body by
// age every frame) take constant time without touching the body's user data.
//
// One step of the system (cn_stageBegin, before the contact solve sees the new shapes):
//   1. drop cells whose body or shape the user destroyed;
//   2. monolayer: put every cell centre back on the plane z = z0 and its axis into the plane
//      (the solver's round-off would otherwise drift them out of it);
//   3. grow every cell about its centre, l *= exp(rate dt), and divide those that reached the
//      division length into two daughters of length l / 2, end to end along the mother's axis,
//      each turned by a small random angle. The leftover above the division length is kept, so
//      every lineage divides once per ln 2 / rate exactly (to the step). Once the colony holds
//      max_cells cells it stops growing: a cell that reaches the division length in the step
//      the colony fills stops there, and from the next step on no cell lengthens.
// Overlaps that growth and division create are left to the world's contact solve of the same
// step: in an overdamped world it ends each step with the cells just touching.

#include "systems.h"
#include "systems_format.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cxColony
{
    cnWorldId worldId;
    cxColonyConfig config;
    /// simulated time since the colony was added, s
    double time;
    /// z of the monolayer plane
    double planeZ;
    /// splitmix64 state
    uint64_t random;
    /// set to NULL when the colony leaves its world (cxColony_TrackPointer)
    cxColony** trackedPointer;
    /// set once a division failed for want of memory, so that it is logged once
    bool reportedFailure;

    // the cells, dense: one entry per cell
    int count;
    int capacity;
    cnBodyId* bodies;
    cnShapeId* shapes;
    cnTransform* localPoses; ///< the capsule's pose in its body
    double* lengths;         ///< tip to tip, m
    double* radii;           ///< m
    double* births;          ///< colony time of birth, s
    int* generations;

    // body id -> cell index + 1 (0: empty slot); open addressing, linear probing
    int* map;
    int mapCapacity; ///< a power of two, at least twice the cell count
};

// small helpers --------------------------------------------------------------------------------

// log through the world's hook (stderr when it has none), as the engine does
static void cxLog( cnWorldId worldId, cnLogLevel level, cnStatus status, const char* message )
{
    cnWorldDef def = cnWorld_GetDef( worldId );
    if ( cnWorld_IsValid( worldId ) && def.logFcn != NULL )
    {
        def.logFcn( level, (int)status, message, def.logContext );
        return;
    }
    fprintf( stderr, "cairn: %s: %s\n", level == cn_logError ? "error" : "warning", message );
}

static uint64_t cxNextRandom( uint64_t* state )
{
    // splitmix64 (Steele, Lea, Flood 2014): a fixed, portable sequence from any seed
    uint64_t z = ( *state += 0x9e3779b97f4a7c15u );
    z = ( z ^ ( z >> 30 ) ) * 0xbf58476d1ce4e5b9u;
    z = ( z ^ ( z >> 27 ) ) * 0x94d049bb133111ebu;
    return z ^ ( z >> 31 );
}

// uniform in [-1, 1)
static double cxRandomSigned( uint64_t* state )
{
    double unit = (double)( cxNextRandom( state ) >> 11 ) * 0x1.0p-53;
    return 2.0 * unit - 1.0;
}

static cnTransform cxInvertTransform( cnTransform t )
{
    cnTransform inverse;
    inverse.q = cnConjugate( t.q );
    inverse.p = cnNeg( cnRotate( inverse.q, t.p ) );
    return inverse;
}

static bool cxIsIdentity( cnTransform t )
{
    return t.p.x == 0.0 && t.p.y == 0.0 && t.p.z == 0.0 && t.q.x == 0.0 && t.q.y == 0.0 && t.q.z == 0.0 &&
           t.q.w == 1.0;
}

// the orientation whose z axis is (cos phi, sin phi, 0): a quarter turn about y (z -> x), then
// phi about z. The same function of phi every time, so a cell's roll never drifts.
static cnQuat cxInPlaneOrientation( double phi )
{
    double h = 0.5 * phi;
    double s = sin( h ), c = cos( h );
    double r = sqrt( 0.5 );
    // (c, 0, 0, s) * (r, 0, r, 0), Hamilton product written out
    return cnMakeQuat( c * r, -s * r, c * r, s * r );
}

static const cnVec3 cx_axisZ = { 0.0, 0.0, 1.0 };

// the hash: body ids are keys here, their fields are only mixed, not interpreted
static uint32_t cxHashBodyId( cnBodyId id )
{
    uint64_t key =
        (uint64_t)(uint32_t)id.index1 | ( (uint64_t)id.generation << 32 ) | ( (uint64_t)id.world0 << 48 );
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdu;
    key ^= key >> 33;
    key *= 0xc4ceb9fe1a85ec53u;
    key ^= key >> 33;
    return (uint32_t)key;
}

static void cxMapInsert( cxColony* colony, int cell )
{
    uint32_t mask = (uint32_t)colony->mapCapacity - 1u;
    uint32_t slot = cxHashBodyId( colony->bodies[cell] ) & mask;
    while ( colony->map[slot] != 0 )
    {
        slot = ( slot + 1u ) & mask;
    }
    colony->map[slot] = cell + 1;
}

// rebuild the map for the current cells with room for `cellCapacity`; false when out of memory
static bool cxRebuildMap( cxColony* colony, int cellCapacity )
{
    int capacity = colony->mapCapacity > 0 ? colony->mapCapacity : 16;
    while ( capacity < 2 * cellCapacity )
    {
        capacity *= 2;
    }
    if ( capacity != colony->mapCapacity )
    {
        int* map = malloc( (size_t)capacity * sizeof( int ) );
        if ( map == NULL )
        {
            return false;
        }
        free( colony->map );
        colony->map = map;
        colony->mapCapacity = capacity;
    }
    memset( colony->map, 0, (size_t)colony->mapCapacity * sizeof( int ) );
    for ( int cell = 0; cell < colony->count; ++cell )
    {
        cxMapInsert( colony, cell );
    }
    return true;
}

static int cxFindCell( const cxColony* colony, cnBodyId bodyId )
{
    if ( colony == NULL || colony->mapCapacity == 0 || CN_IS_NULL( bodyId ) )
    {
        return -1;
    }
    uint32_t mask = (uint32_t)colony->mapCapacity - 1u;
    uint32_t slot = cxHashBodyId( bodyId ) & mask;
    while ( colony->map[slot] != 0 )
    {
        int cell = colony->map[slot] - 1;
        if ( CN_ID_EQUALS( colony->bodies[cell], bodyId ) )
        {
            return cell;
        }
        slot = ( slot + 1u ) & mask;
    }
    return -1;
}

static bool cxGrowArray( void** array, size_t elementSize, int capacity )
{
    void* grown = realloc( *array, (size_t)capacity * elementSize );
    if ( grown == NULL )
    {
        return false;
    }
    *array = grown;
    return true;
}

// room for `needed` cells in the arrays and the map; false when out of memory (nothing lost)
static bool cxReserveCells( cxColony* colony, int needed )
{
    if ( needed <= colony->capacity )
    {
        return true;
    }
    int capacity = colony->capacity > 0 ? colony->capacity : 16;
    while ( capacity < needed )
    {
        capacity *= 2;
    }
    bool ok = cxGrowArray( (void**)&colony->bodies, sizeof( cnBodyId ), capacity ) &&
              cxGrowArray( (void**)&colony->shapes, sizeof( cnShapeId ), capacity ) &&
              cxGrowArray( (void**)&colony->localPoses, sizeof( cnTransform ), capacity ) &&
              cxGrowArray( (void**)&colony->lengths, sizeof( double ), capacity ) &&
              cxGrowArray( (void**)&colony->radii, sizeof( double ), capacity ) &&
              cxGrowArray( (void**)&colony->births, sizeof( double ), capacity ) &&
              cxGrowArray( (void**)&colony->generations, sizeof( int ), capacity ) &&
              cxRebuildMap( colony, capacity );
    if ( ok )
    {
        colony->capacity = capacity;
    }
    return ok;
}

static void cxFreeColony( cxColony* colony )
{
    free( colony->bodies );
    free( colony->shapes );
    free( colony->localPoses );
    free( colony->lengths );
    free( colony->radii );
    free( colony->births );
    free( colony->generations );
    free( colony->map );
    free( colony );
}

// append a cell; the caller reserved room
static void cxAppendCell( cxColony* colony, cnBodyId bodyId, cnShapeId shapeId, cnTransform localPose,
                          double length, double radius, double birth, int generation )
{
    int cell = colony->count;
    colony->bodies[cell] = bodyId;
    colony->shapes[cell] = shapeId;
    colony->localPoses[cell] = localPose;
    colony->lengths[cell] = length;
    colony->radii[cell] = radius;
    colony->births[cell] = birth;
    colony->generations[cell] = generation;
    colony->count += 1;
    cxMapInsert( colony, cell );
}

// world pose of a cell's capsule
static cnTransform cxCellPose( const cxColony* colony, int cell )
{
    cnTransform body = cnBody_GetTransform( colony->bodies[cell] );
    cnTransform local = colony->localPoses[cell];
    return cxIsIdentity( local ) ? body : cnMulTransforms( body, local );
}

// place a cell's body so that its capsule has the world pose `pose`
static void cxSetCellPose( const cxColony* colony, int cell, cnTransform pose )
{
    cnTransform local = colony->localPoses[cell];
    cnTransform body = cxIsIdentity( local ) ? pose : cnMulTransforms( pose, cxInvertTransform( local ) );
    cnBody_SetTransform( colony->bodies[cell], body.p, body.q );
}

static cnGeometry cxCapsuleGeometry( double length, double radius )
{
    cnGeometry geometry;
    memset( &geometry, 0, sizeof( geometry ) );
    geometry.type = cn_capsuleShape;
    geometry.capsule.radius = radius;
    // a daughter at the smallest allowed division length is a sphere; keep round-off from
    // making the half length a hair negative
    geometry.capsule.halfLength = fmax( 0.5 * length - radius, 0.0 );
    return geometry;
}

// the step ---------------------------------------------------------------------------------------

// 1. cells whose body or shape is gone (destroyed by the user) leave the colony
static void cxDropLostCells( cxColony* colony )
{
    bool dropped = false;
    for ( int cell = 0; cell < colony->count; )
    {
        if ( cnShape_IsValid( colony->shapes[cell] ) && cnBody_IsValid( colony->bodies[cell] ) )
        {
            ++cell;
            continue;
        }
        // keep the order of the others (determinism does not depend on which cell was lost)
        int tail = colony->count - cell - 1;
        memmove( colony->bodies + cell, colony->bodies + cell + 1, (size_t)tail * sizeof( cnBodyId ) );
        memmove( colony->shapes + cell, colony->shapes + cell + 1, (size_t)tail * sizeof( cnShapeId ) );
        memmove( colony->localPoses + cell, colony->localPoses + cell + 1,
                 (size_t)tail * sizeof( cnTransform ) );
        memmove( colony->lengths + cell, colony->lengths + cell + 1, (size_t)tail * sizeof( double ) );
        memmove( colony->radii + cell, colony->radii + cell + 1, (size_t)tail * sizeof( double ) );
        memmove( colony->births + cell, colony->births + cell + 1, (size_t)tail * sizeof( double ) );
        memmove( colony->generations + cell, colony->generations + cell + 1, (size_t)tail * sizeof( int ) );
        colony->count -= 1;
        dropped = true;
    }
    if ( dropped )
    {
        // same capacity: no allocation, cannot fail
        cxRebuildMap( colony, colony->capacity );
    }
}

// 2. back onto the plane: centre at z0, axis in the plane (and, in inertial worlds, no velocity
// out of the plane)
static void cxProjectMonolayer( cxColony* colony )
{
    bool inertial = cnWorld_GetDynamics( colony->worldId ) == cn_dynamicsInertial;
    for ( int cell = 0; cell < colony->count; ++cell )
    {
        cnTransform pose = cxCellPose( colony, cell );
        cnVec3 axis = cnRotate( pose.q, cx_axisZ );
        cnTransform projected;
        projected.p = cnMakeVec3( pose.p.x, pose.p.y, colony->planeZ );
        // a cell standing upright has no in-plane direction: lay it down along x
        double phi = axis.x == 0.0 && axis.y == 0.0 ? 0.0 : atan2( axis.y, axis.x );
        projected.q = cxInPlaneOrientation( phi );
        if ( memcmp( &projected, &pose, sizeof( pose ) ) != 0 )
        {
            cxSetCellPose( colony, cell, projected );
        }
        if ( inertial )
        {
            cnBodyId body = colony->bodies[cell];
            cnVec3 v = cnBody_GetLinearVelocity( body );
            cnVec3 w = cnBody_GetAngularVelocity( body );
            if ( v.z != 0.0 || w.x != 0.0 || w.y != 0.0 )
            {
                cnBody_SetLinearVelocity( body, cnMakeVec3( v.x, v.y, 0.0 ) );
                cnBody_SetAngularVelocity( body, cnMakeVec3( 0.0, 0.0, w.z ) );
            }
        }
    }
}

// the axis a daughter turns about: the plane normal, or a random direction perpendicular to the
// mother's axis in a 3-D colony
static cnVec3 cxNoiseAxis( cxColony* colony, cnVec3 axis )
{
    if ( colony->config.monolayer )
    {
        return cx_axisZ;
    }
    cnVec3 e1 = cnPerpendicular( axis );
    cnVec3 e2 = cnCross( axis, e1 );
    double psi = CN_PI * cxRandomSigned( &colony->random );
    return cnAdd( cnScale( cos( psi ), e1 ), cnScale( sin( psi ), e2 ) );
}

// 3b. divide a cell of (grown) length `length` into two of length / 2. False when the new body
// could not be made; the mother is then left as it was.
static bool cxDivide( cxColony* colony, int cell, double length )
{
    if ( cxReserveCells( colony, colony->count + 1 ) == false )
    {
        return false;
    }
    cnTransform pose = cxCellPose( colony, cell );
    cnVec3 axis = cnRotate( pose.q, cx_axisZ );
    double radius = colony->radii[cell];
    double noise = colony->config.noiseDegrees * ( CN_PI / 180.0 );

    // daughters end to end along the mother's axis, each turned about its own centre
    cnTransform daughters[2];
    for ( int k = 0; k < 2; ++k )
    {
        cnVec3 turnAxis = cxNoiseAxis( colony, axis );
        double angle = noise * cxRandomSigned( &colony->random );
        daughters[k].p = cnMulAdd( pose.p, ( k == 0 ? -0.25 : 0.25 ) * length, axis );
        daughters[k].q = cnNormalizeQuat( cnMulQuat( cnQuatFromAxisAngle( turnAxis, angle ), pose.q ) );
    }

    // the second daughter: a new body like the mother's
    cnBodyId mother = colony->bodies[cell];
    cnShapeId motherShape = colony->shapes[cell];
    cnTransform local = colony->localPoses[cell];
    cnTransform bodyPose =
        cxIsIdentity( local ) ? daughters[1] : cnMulTransforms( daughters[1], cxInvertTransform( local ) );
    cnBodyDef bodyDef = cnDefaultBodyDef();
    bodyDef.type = cn_dynamicBody;
    bodyDef.position = bodyPose.p;
    bodyDef.orientation = bodyPose.q;
    bodyDef.linearVelocity = cnBody_GetLinearVelocity( mother );
    bodyDef.angularVelocity = cnBody_GetAngularVelocity( mother );
    cnBodyId sister = cnCreateBody( colony->worldId, &bodyDef );
    if ( CN_IS_NULL( sister ) )
    {
        return false;
    }
    cnShapeDef shapeDef = cnDefaultShapeDef();
    shapeDef.localPose = local;
    shapeDef.material = cnShape_GetMaterial( motherShape );
    cnGeometry half = cxCapsuleGeometry( 0.5 * length, radius );
    cnShapeId sisterShape = cnCreateCapsuleShape( sister, &shapeDef, &half.capsule );
    if ( CN_IS_NULL( sisterShape ) )
    {
        cnDestroyBody( sister );
        return false;
    }

    // the first daughter keeps the mother's body
    cnShape_SetGeometry( motherShape, &half );
    cxSetCellPose( colony, cell, daughters[0] );

    // born when the mother reached the division length, inside this step
    double birth = colony->time - log( length / colony->config.divisionLength ) / colony->config.growthRate;
    int generation = colony->generations[cell] + 1;
    colony->lengths[cell] = 0.5 * length;
    colony->births[cell] = birth;
    colony->generations[cell] = generation;
    cxAppendCell( colony, sister, sisterShape, local, 0.5 * length, radius, birth, generation );
    return true;
}

// 3. grow every cell; divide those at the division length while there is room
static void cxGrowAndDivide( cxColony* colony, double timeStep )
{
    const cxColonyConfig* config = &colony->config;
    if ( colony->count >= config->maxCells )
    {
        // full: growth is over, and the contact solve relaxes what it left
        return;
    }
    double factor = exp( config->growthRate * timeStep );
    // daughters made in this step are appended and not visited again
    int count = colony->count;
    for ( int cell = 0; cell < count; ++cell )
    {
        double old = colony->lengths[cell];
        double length = old * factor;
        if ( length >= config->divisionLength )
        {
            if ( colony->count < config->maxCells )
            {
                if ( cxDivide( colony, cell, length ) )
                {
                    continue;
                }
                if ( colony->reportedFailure == false )
                {
                    colony->reportedFailure = true;
                    cxLog(
                        colony->worldId, cn_logError, cn_statusOutOfMemory,
                        "colony: a cell could not divide (out of memory); it stops at the division length" );
                }
            }
            // filled in this step: stop at the division length (a cell adopted longer than it
            // keeps its length)
            length = fmax( old, config->divisionLength );
        }
        if ( length != old )
        {
            colony->lengths[cell] = length;
            cnGeometry geometry = cxCapsuleGeometry( length, colony->radii[cell] );
            cnShape_SetGeometry( colony->shapes[cell], &geometry );
        }
    }
}

static void cxColonyStep( cnWorldId worldId, cnBodyArrays* bodies, double timeStep, void* context )
{
    (void)worldId;
    (void)bodies;
    cxColony* colony = context;
    colony->time += timeStep;
    cxDropLostCells( colony );
    if ( colony->config.monolayer )
    {
        cxProjectMonolayer( colony );
    }
    cxGrowAndDivide( colony, timeStep );
}

static void cxColonyFinish( cnWorldId worldId, void* context )
{
    (void)worldId;
    cxColony* colony = context;
    if ( colony->trackedPointer != NULL && *colony->trackedPointer == colony )
    {
        *colony->trackedPointer = NULL;
    }
    cxFreeColony( colony );
}

// the API ----------------------------------------------------------------------------------------

cxColonyConfig cxDefaultColonyConfig( void )
{
    cxColonyConfig config;
    memset( &config, 0, sizeof( config ) );
    config.growthRate = 1.0;
    config.divisionLength = 4.0;
    config.noiseDegrees = 0.01;
    config.seed = 1;
    config.maxCells = 4096;
    config.monolayer = true;
    return config;
}

cnStatus cxValidateColonyConfig( const cxColonyConfig* config, char* message, int messageSize )
{
    if ( config == NULL )
    {
        cxFormat( message, messageSize, "config: NULL" );
        return cn_statusInvalidArgument;
    }
    if ( !( isfinite( config->growthRate ) && config->growthRate > 0.0 ) )
    {
        cxFormat( message, messageSize, "growth_rate: expected a positive number, got %g",
                  config->growthRate );
        return cn_statusInvalidArgument;
    }
    if ( !( isfinite( config->divisionLength ) && config->divisionLength > 0.0 ) )
    {
        cxFormat( message, messageSize, "division_length: expected a positive number, got %g",
                  config->divisionLength );
        return cn_statusInvalidArgument;
    }
    if ( !( isfinite( config->noiseDegrees ) && config->noiseDegrees >= 0.0 ) )
    {
        cxFormat( message, messageSize, "noise_degrees: expected a number >= 0, got %g",
                  config->noiseDegrees );
        return cn_statusInvalidArgument;
    }
    if ( config->maxCells < 1 )
    {
        cxFormat( message, messageSize, "max_cells: expected an integer >= 1, got %d", config->maxCells );
        return cn_statusInvalidArgument;
    }
    return cn_statusOk;
}

cnStatus cxTryAddColony( cnWorldId worldId, const cxColonyConfig* config, cxColony** outColony, char* message,
                         int messageSize )
{
    if ( outColony != NULL )
    {
        *outColony = NULL;
    }
    cxFormat( message, messageSize, "%s", "" );
    if ( cnWorld_IsValid( worldId ) == false )
    {
        cxFormat( message, messageSize, "colony: null, stale or forged world id" );
        return cn_statusInvalidId;
    }
    cnStatus status = cxValidateColonyConfig( config, message, messageSize );
    if ( status != cn_statusOk )
    {
        return status;
    }

    cxColony* colony = calloc( 1, sizeof( cxColony ) );
    if ( colony == NULL )
    {
        cxFormat( message, messageSize, "colony: out of memory" );
        return cn_statusOutOfMemory;
    }
    colony->worldId = worldId;
    colony->config = *config;
    colony->random = config->seed;

    // adopt every dynamic body with exactly one capsule, in row order
    cnBodyArrays view = cnWorld_GetBodyArrays( worldId );
    int candidates = 0;
    for ( int row = 0; row < view.count; ++row )
    {
        candidates += view.types[row] == cn_dynamicBody ? 1 : 0;
    }
    if ( cxReserveCells( colony, candidates > 0 ? candidates : 1 ) == false )
    {
        cxFreeColony( colony );
        cxFormat( message, messageSize, "colony: out of memory" );
        return cn_statusOutOfMemory;
    }
    for ( int row = 0; row < view.count; ++row )
    {
        if ( view.types[row] != cn_dynamicBody )
        {
            continue;
        }
        cnShapeId shapes[2];
        if ( cnBody_GetShapes( view.ids[row], shapes, 2 ) != 1 ||
             cnShape_GetType( shapes[0] ) != cn_capsuleShape )
        {
            continue;
        }
        cnGeometry geometry;
        cnShape_GetGeometry( shapes[0], &geometry );
        double radius = geometry.capsule.radius;
        double length = 2.0 * ( geometry.capsule.halfLength + radius );
        if ( config->divisionLength < 4.0 * radius )
        {
            const char* name = cnBody_GetName( view.ids[row] );
            cxFormat( message, messageSize,
                      "division_length: expected at least twice the cell diameter (%g for body %d%s%s%s), "
                      "got %g",
                      4.0 * radius, row, name[0] != '\0' ? " '" : "", name, name[0] != '\0' ? "'" : "",
                      config->divisionLength );
            cxFreeColony( colony );
            return cn_statusInvalidArgument;
        }
        cxAppendCell( colony, view.ids[row], shapes[0], cnShape_GetLocalPose( shapes[0] ), length, radius,
                      0.0, 0 );
    }
    if ( colony->count == 0 )
    {
        cxFreeColony( colony );
        cxFormat( message, messageSize,
                  "colony: no dynamic body with exactly one capsule shape to adopt as a cell" );
        return cn_statusInvalidArgument;
    }
    colony->planeZ = cxCellPose( colony, 0 ).p.z;

    cnSystemDef def = cnDefaultSystemDef();
    def.name = CX_COLONY_SYSTEM_NAME;
    def.stage = cn_stageBegin;
    def.fcn = cxColonyStep;
    def.finishFcn = cxColonyFinish;
    def.context = colony;
    status = cnWorld_AddSystem( worldId, &def );
    if ( status != cn_statusOk )
    {
        cxFreeColony( colony );
        cxFormat( message, messageSize, "colony: cannot register the system '%s' (%s; one colony per world)",
                  CX_COLONY_SYSTEM_NAME, cnStatusString( status ) );
        return status;
    }
    if ( outColony != NULL )
    {
        *outColony = colony;
    }
    return cn_statusOk;
}

cxColony* cxAddColony( cnWorldId worldId, const cxColonyConfig* config )
{
    char message[256];
    cxColony* colony = NULL;
    cnStatus status = cxTryAddColony( worldId, config, &colony, message, (int)sizeof( message ) );
    if ( status != cn_statusOk )
    {
        char line[300];
        snprintf( line, sizeof( line ), "cxAddColony: %s", message );
        cxLog( worldId, cn_logError, status, line );
        return NULL;
    }
    return colony;
}

cxColonyConfig cxColony_GetConfig( const cxColony* colony )
{
    return colony != NULL ? colony->config : cxDefaultColonyConfig();
}

int cxColony_GetCellCount( const cxColony* colony )
{
    return colony != NULL ? colony->count : 0;
}

double cxColony_GetTime( const cxColony* colony )
{
    return colony != NULL ? colony->time : 0.0;
}

double cxColony_GetPlaneZ( const cxColony* colony )
{
    return colony != NULL ? colony->planeZ : 0.0;
}

double cxColony_GetCellAge( const cxColony* colony, cnBodyId bodyId )
{
    int cell = cxFindCell( colony, bodyId );
    return cell >= 0 ? colony->time - colony->births[cell] : -1.0;
}

int cxColony_GetGeneration( const cxColony* colony, cnBodyId bodyId )
{
    int cell = cxFindCell( colony, bodyId );
    return cell >= 0 ? colony->generations[cell] : -1;
}

double cxColony_GetCellLength( const cxColony* colony, cnBodyId bodyId )
{
    int cell = cxFindCell( colony, bodyId );
    return cell >= 0 ? colony->lengths[cell] : -1.0;
}

int cxColony_GetCells( const cxColony* colony, cnBodyId* bodyIds, int capacity )
{
    if ( colony == NULL )
    {
        return 0;
    }
    int n = bodyIds != NULL && capacity < colony->count ? capacity : colony->count;
    if ( bodyIds != NULL && n > 0 )
    {
        memcpy( bodyIds, colony->bodies, (size_t)n * sizeof( cnBodyId ) );
    }
    return colony->count;
}

cxColonyStats cxColony_GetStats( const cxColony* colony )
{
    cxColonyStats stats;
    memset( &stats, 0, sizeof( stats ) );
    if ( colony == NULL || colony->count == 0 )
    {
        return stats;
    }
    // cells whose body the user destroyed since the last step are left out (the step drops them)
    int count = 0;
    cnVec3 sum = cnMakeVec3( 0.0, 0.0, 0.0 );
    double occupied = 0.0;
    for ( int cell = 0; cell < colony->count; ++cell )
    {
        if ( !cnBody_IsValid( colony->bodies[cell] ) )
        {
            continue;
        }
        count += 1;
        sum = cnAdd( sum, cxCellPose( colony, cell ).p );
        double r = colony->radii[cell];
        double spine = fmax( colony->lengths[cell] - 2.0 * r, 0.0 );
        occupied += colony->config.monolayer ? 2.0 * r * spine + CN_PI * r * r
                                             : CN_PI * r * r * spine + 4.0 / 3.0 * CN_PI * r * r * r;
        stats.generations =
            colony->generations[cell] > stats.generations ? colony->generations[cell] : stats.generations;
    }
    if ( count == 0 )
    {
        return stats;
    }
    stats.cells = count;
    stats.center = cnScale( 1.0 / count, sum );
    for ( int cell = 0; cell < colony->count; ++cell )
    {
        if ( !cnBody_IsValid( colony->bodies[cell] ) )
        {
            continue;
        }
        cnTransform pose = cxCellPose( colony, cell );
        double r = colony->radii[cell];
        cnVec3 half = cnScale( fmax( 0.5 * colony->lengths[cell] - r, 0.0 ), cnRotate( pose.q, cx_axisZ ) );
        double tips = fmax( cnLength( cnSub( cnAdd( pose.p, half ), stats.center ) ),
                            cnLength( cnSub( cnSub( pose.p, half ), stats.center ) ) );
        stats.radius = fmax( stats.radius, tips + r );
    }
    double whole = colony->config.monolayer ? CN_PI * stats.radius * stats.radius
                                            : 4.0 / 3.0 * CN_PI * stats.radius * stats.radius * stats.radius;
    stats.volumeFraction = whole > 0.0 ? occupied / whole : 0.0;
    return stats;
}

void cxColony_TrackPointer( cxColony* colony, cxColony** pointer )
{
    if ( colony != NULL )
    {
        colony->trackedPointer = pointer;
    }
}
