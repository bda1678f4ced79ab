// SPDX-License-Identifier: MIT
// Shapes: the per-world shape pool, attaching shapes to bodies, and the body's mass and
// default mobility derived from its shapes.

#include "core.h"
#include "hull.h"
#include "world.h"

#include <string.h>

// lookup ----------------------------------------------------------------------------------------

static cnWorld* cnGetShapeWorld( cnShapeId shapeId, cnShape** shape )
{
    *shape = NULL;
    cnWorld* world = cnGetWorldFromIndex( shapeId.world0 );
    if ( world == NULL )
    {
        return NULL;
    }
    int index = shapeId.index1 - 1;
    if ( index < 0 || index >= world->shapeSlotCount )
    {
        return NULL;
    }
    cnShape* s = world->shapes + index;
    if ( s->bodySlot == CN_NULL_INDEX || s->generation != shapeId.generation )
    {
        return NULL;
    }
    *shape = s;
    return world;
}

bool cnShape_IsValid( cnShapeId shapeId )
{
    cnShape* shape;
    return cnGetShapeWorld( shapeId, &shape ) != NULL;
}

// mass and mobility -----------------------------------------------------------------------------

// Stokes drag of a sphere: translation 1/(6 pi eta r), rotation 1/(8 pi eta r^3)
static void cnStokesMobility( double viscosity, double radius, cnMat3* linear, cnMat3* angular )
{
    double t = 1.0 / ( 6.0 * CN_PI * viscosity * radius );
    double r = 1.0 / ( 8.0 * CN_PI * viscosity * radius * radius * radius );
    *linear = cnMakeMat3Diagonal( t, t, t );
    *angular = cnMakeMat3Diagonal( r, r, r );
}

// local slender-body drag of the ReLCP paper (eq. 27): translation 1/(xi l), rotation 12/(xi l^3),
// both isotropic, l the body length
static void cnSlenderMobility( double xi, double length, cnMat3* linear, cnMat3* angular )
{
    double t = 1.0 / ( xi * length );
    double r = 12.0 / ( xi * length * length * length );
    *linear = cnMakeMat3Diagonal( t, t, t );
    *angular = cnMakeMat3Diagonal( r, r, r );
}

static void cnDefaultMobility( const cnWorld* world, int row, cnMat3* linear, cnMat3* angular )
{
    const cnBodyStore* b = &world->bodies;
    double eta = world->def.viscosity;
    if ( b->shapeCount[row] == 0 )
    {
        *linear = cn_mat3Identity;
        *angular = cn_mat3Identity;
        return;
    }

    const cnShape* first = world->shapes + b->headShape[row];
    if ( b->shapeCount[row] == 1 )
    {
        const cnGeometry* g = &first->geometry;
        switch ( g->type )
        {
            case cn_sphereShape:
                cnStokesMobility( eta, g->sphere.radius, linear, angular );
                return;
            case cn_capsuleShape:
                cnSlenderMobility( eta, 2.0 * ( g->capsule.halfLength + g->capsule.radius ), linear,
                                   angular );
                return;
            case cn_cylinderShape:
                cnSlenderMobility( eta, 2.0 * fmax( g->cylinder.halfLength, g->cylinder.radius ), linear,
                                   angular );
                return;
            case cn_ellipsoidShape:
            {
                cnVec3 r = g->ellipsoid.radii;
                if ( r.x == r.y && r.y == r.z )
                {
                    cnStokesMobility( eta, r.x, linear, angular );
                }
                else
                {
                    cnSlenderMobility( eta, 2.0 * fmax( r.x, fmax( r.y, r.z ) ), linear, angular );
                }
                return;
            }
            default:
                break;
        }
    }

    // anything else: the Stokes drag of the sphere of equal volume
    double volume = 0.0;
    for ( int index = b->headShape[row]; index != CN_NULL_INDEX; index = world->shapes[index].next )
    {
        const cnShape* shape = world->shapes + index;
        double v =
            shape->hull != NULL ? cnHullMass( shape->hull, 1.0 ).mass : cnComputeVolume( &shape->geometry );
        volume += isfinite( v ) ? v : 0.0;
    }
    if ( volume <= 0.0 )
    {
        *linear = cn_mat3Identity;
        *angular = cn_mat3Identity;
        return;
    }
    cnStokesMobility( eta, cbrt( 3.0 * volume / ( 4.0 * CN_PI ) ), linear, angular );
}

void cnUpdateBodyMass( cnWorld* world, int row )
{
    cnBodyStore* b = &world->bodies;

    // mass data of every shape, already in the body frame, summed with the parallel-axis theorem
    cnMassData total = { 0.0, cn_vec3Zero, cn_mat3Zero };
    int parts = 0;
    for ( int index = b->headShape[row]; index != CN_NULL_INDEX; index = world->shapes[index].next )
    {
        const cnShape* shape = world->shapes + index;
        if ( shape->geometry.type == cn_planeShape )
        {
            continue;
        }
        cnMassData pair[2] = { total, shape->mass };
        total = parts == 0 ? shape->mass : cnCombineMass( pair, 2 );
        parts += 1;
    }

    if ( ( b->flags[row] & cn_bodyCustomMobility ) == 0 )
    {
        cnDefaultMobility( world, row, b->linearMobility + row, b->angularMobility + row );
    }
    if ( b->flags[row] & cn_bodyCustomMass )
    {
        return;
    }

    b->localCenter[row] = total.mass > 0.0 ? total.center : cn_vec3Zero;
    b->center[row] = cnTransformPoint( b->transform[row], b->localCenter[row] );

    if ( b->type[row] != cn_dynamicBody )
    {
        b->mass[row] = 0.0;
        b->invMass[row] = 0.0;
        b->inertia[row] = cn_mat3Zero;
        b->invInertia[row] = cn_mat3Zero;
        return;
    }

    if ( total.mass > 0.0 && cnDeterminant( total.inertia ) > 0.0 )
    {
        b->mass[row] = total.mass;
        b->inertia[row] = total.inertia;
    }
    else
    {
        // a dynamic body with no massive shape: 1 kg with unit inertia, so it still moves sensibly
        b->mass[row] = 1.0;
        b->inertia[row] = cn_mat3Identity;
    }
    b->invMass[row] = 1.0 / b->mass[row];
    b->invInertia[row] = cnInvertMat3( b->inertia[row] );
}

// creation and destruction ----------------------------------------------------------------------

static void cnFreeShapeData( cnWorld* world, cnShape* shape )
{
    if ( shape->hull != NULL )
    {
        cnDestroyHull( shape->hull, &world->allocator );
        cnFree( &world->allocator, shape->hull, sizeof( cnHull ) );
        shape->hull = NULL;
    }
}

static void cnReleaseShapeSlot( cnWorld* world, int index )
{
    cnShape* shape = world->shapes + index;
    cnDestroyShapeProxy( world, index );
    cnFreeShapeData( world, shape );
    shape->bodySlot = CN_NULL_INDEX;
    shape->generation = (uint16_t)( shape->generation + 1 );
    if ( shape->generation == 0 )
    {
        shape->generation = 1;
    }
    shape->next = world->freeShape;
    world->freeShape = index;
}

void cnDestroyBodyShapes( cnWorld* world, int row )
{
    int index = world->bodies.headShape[row];
    while ( index != CN_NULL_INDEX )
    {
        int next = world->shapes[index].next;
        cnReleaseShapeSlot( world, index );
        index = next;
    }
    world->bodies.headShape[row] = CN_NULL_INDEX;
    world->bodies.shapeCount[row] = 0;
}

static int cnAllocateShapeSlot( cnWorld* world )
{
    if ( world->freeShape != CN_NULL_INDEX )
    {
        int index = world->freeShape;
        world->freeShape = world->shapes[index].next;
        return index;
    }
    void* shapes = world->shapes;
    if ( cnReserve( &world->allocator, &shapes, &world->shapeCapacity, world->shapeSlotCount + 1, 16,
                    sizeof( cnShape ) ) == false )
    {
        return CN_NULL_INDEX;
    }
    world->shapes = shapes;
    int index = world->shapeSlotCount;
    world->shapeSlotCount += 1;
    world->shapes[index].generation = world->generation;
    return index;
}

static bool cnIsValidMaterial( cnMaterial m )
{
    return isfinite( m.friction ) && m.friction >= 0.0 && isfinite( m.restitution ) && m.restitution >= 0.0 &&
           m.restitution <= 1.0 && isfinite( m.density ) && m.density >= 0.0;
}

// the geometry as the shape stores it: hulls computed, planes normalized; the mass in the body frame
// the geometry as the shape stores it: hulls computed (once, through the world's allocator),
// planes normalized; the mass in the body frame
static cnStatus cnPrepareGeometry( cnWorld* world, const cnShapeDef* def, const cnGeometry* geometry,
                                   cnShape* shape, char* message, int size )
{
    shape->geometry = *geometry;
    shape->hull = NULL;

    if ( geometry->type == cn_hullShape )
    {
        // computing the hull checks the points
        cnHull* hull = cnAlloc( &world->allocator, sizeof( cnHull ), 16 );
        if ( hull == NULL )
        {
            cnFormat( message, size, "out of memory" );
            return cn_statusOutOfMemory;
        }
        cnStatus status = cnComputeHull( geometry->hull.points, geometry->hull.pointCount, &world->allocator,
                                         hull, message, size );
        if ( status != cn_statusOk )
        {
            cnFree( &world->allocator, hull, sizeof( cnHull ) );
            return status;
        }
        shape->hull = hull;
        shape->geometry.hull.points = hull->vertices;
        shape->geometry.hull.pointCount = hull->vertexCount;
        status = cnComputeHullMassAtPose( hull, def->material.density, def->localPose, &shape->mass );
        if ( status != cn_statusOk )
        {
            cnFormat( message, size, "mass properties could not be computed (%s)", cnStatusString( status ) );
            cnFreeShapeData( world, shape );
        }
        return status;
    }

    cnStatus status = cnValidateGeometry( geometry, message, size );
    if ( status != cn_statusOk )
    {
        return status;
    }

    if ( geometry->type == cn_planeShape )
    {
        double length = cnLength( geometry->plane.normal );
        shape->geometry.plane.normal = cnScale( 1.0 / length, geometry->plane.normal );
        shape->geometry.plane.offset = geometry->plane.offset / length;
        shape->mass = ( cnMassData ){ 0.0, cn_vec3Zero, cn_mat3Zero };
        return cn_statusOk;
    }

    status = cnComputeMass( &shape->geometry, def->material.density, def->localPose, &shape->mass );
    if ( status != cn_statusOk )
    {
        cnFormat( message, size, "mass properties could not be computed (%s)", cnStatusString( status ) );
    }
    return status;
}

cnShapeId cnCreateShape( cnBodyId bodyId, const cnShapeDef* def, const cnGeometry* geometry )
{
    int row;
    cnWorld* world = cnGetBodyWorld( bodyId, &row );
    if ( world == NULL )
    {
        cnDefaultLog( cn_logError, cn_statusInvalidId, "cnCreateShape: null, stale or forged body id", NULL );
        return cn_nullShapeId;
    }
    if ( cnRefuseWhileDestroying( world, "cnCreateShape" ) )
    {
        return cn_nullShapeId;
    }
    if ( def == NULL || def->internalValue != CN_SECRET_COOKIE || geometry == NULL )
    {
        cnLogWorld(
            world, cn_logError, cn_statusInvalidArgument,
            "cnCreateShape: def or geometry is NULL, or def not initialized with cnDefaultShapeDef()" );
        return cn_nullShapeId;
    }
    if ( cnIsFiniteVec3( def->localPose.p ) == false || cnIsFiniteQuat( def->localPose.q ) == false ||
         isfinite( def->material.friction ) == false || isfinite( def->material.restitution ) == false ||
         isfinite( def->material.density ) == false )
    {
        cnLogWorld( world, cn_logError, cn_statusNonFinite,
                    "cnCreateShape: local pose or material not finite" );
        return cn_nullShapeId;
    }
    if ( cnQuatLength( def->localPose.q ) < 1e-12 || cnIsValidMaterial( def->material ) == false )
    {
        cnLogWorld( world, cn_logError, cn_statusInvalidArgument,
                    "cnCreateShape: zero local orientation, or material out of range (friction >= 0, "
                    "restitution in [0, 1], density >= 0)" );
        return cn_nullShapeId;
    }
    if ( geometry->type == cn_planeShape && world->bodies.type[row] != cn_staticBody )
    {
        cnLogWorld( world, cn_logError, cn_statusInvalidArgument,
                    "cnCreateShape: a plane must be on a static body (body '%s')",
                    world->bodies.name[row] != NULL ? world->bodies.name[row] : "" );
        return cn_nullShapeId;
    }

    int index = cnAllocateShapeSlot( world );
    if ( index == CN_NULL_INDEX )
    {
        cnLogWorld( world, cn_logError, cn_statusOutOfMemory, "cnCreateShape: out of memory" );
        return cn_nullShapeId;
    }

    cnShapeDef localDef = *def;
    localDef.localPose.q = cnNormalizeQuat( def->localPose.q );
    cnShape* shape = world->shapes + index;
    char message[256];
    cnStatus status = cnPrepareGeometry( world, &localDef, geometry, shape, message, sizeof( message ) );
    if ( status != cn_statusOk )
    {
        // give the slot back untouched: bodySlot stays free, generation unchanged
        shape->bodySlot = CN_NULL_INDEX;
        shape->next = world->freeShape;
        world->freeShape = index;
        cnLogWorld( world, cn_logError, status, "cnCreateShape: %s", message );
        return cn_nullShapeId;
    }

    int bodySlot = bodyId.index1 - 1;
    shape->bodySlot = bodySlot;
    shape->proxyKey = CN_NULL_INDEX;
    shape->localPose = localDef.localPose;
    shape->material = def->material;
    shape->categoryBits = def->categoryBits;
    shape->maskBits = def->maskBits;
    shape->userData = def->userData;
    if ( cnCreateShapeProxy( world, index ) == false )
    {
        cnFreeShapeData( world, shape );
        shape->bodySlot = CN_NULL_INDEX;
        shape->next = world->freeShape;
        world->freeShape = index;
        cnLogWorld( world, cn_logError, cn_statusOutOfMemory, "cnCreateShape: out of memory" );
        return cn_nullShapeId;
    }
    shape->next = world->bodies.headShape[row];
    world->bodies.headShape[row] = index;
    world->bodies.shapeCount[row] += 1;

    cnUpdateBodyMass( world, row );
    cnShapeId id = { index + 1, world->slot, shape->generation };
    return id;
}

cnShapeId cnCreateSphereShape( cnBodyId bodyId, const cnShapeDef* def, const cnSphere* sphere )
{
    cnGeometry g = { .type = cn_sphereShape, .sphere = sphere != NULL ? *sphere : ( cnSphere ){ 0.0 } };
    return cnCreateShape( bodyId, def, &g );
}

cnShapeId cnCreateBoxShape( cnBodyId bodyId, const cnShapeDef* def, const cnBox* box )
{
    cnGeometry g = { .type = cn_boxShape, .box = box != NULL ? *box : ( cnBox ){ cn_vec3Zero } };
    return cnCreateShape( bodyId, def, &g );
}

cnShapeId cnCreateCapsuleShape( cnBodyId bodyId, const cnShapeDef* def, const cnCapsule* capsule )
{
    cnGeometry g = { .type = cn_capsuleShape,
                     .capsule = capsule != NULL ? *capsule : ( cnCapsule ){ 0.0, 0.0 } };
    return cnCreateShape( bodyId, def, &g );
}

cnShapeId cnCreateCylinderShape( cnBodyId bodyId, const cnShapeDef* def, const cnCylinder* cylinder )
{
    cnGeometry g = { .type = cn_cylinderShape,
                     .cylinder = cylinder != NULL ? *cylinder : ( cnCylinder ){ 0.0, 0.0 } };
    return cnCreateShape( bodyId, def, &g );
}

cnShapeId cnCreateEllipsoidShape( cnBodyId bodyId, const cnShapeDef* def, const cnEllipsoid* ellipsoid )
{
    cnGeometry g = { .type = cn_ellipsoidShape,
                     .ellipsoid = ellipsoid != NULL ? *ellipsoid : ( cnEllipsoid ){ cn_vec3Zero } };
    return cnCreateShape( bodyId, def, &g );
}

cnShapeId cnCreateTorusShape( cnBodyId bodyId, const cnShapeDef* def, const cnTorus* torus )
{
    cnGeometry g = { .type = cn_torusShape, .torus = torus != NULL ? *torus : ( cnTorus ){ 0.0, 0.0 } };
    return cnCreateShape( bodyId, def, &g );
}

cnShapeId cnCreateHullShape( cnBodyId bodyId, const cnShapeDef* def, const cnVec3* points, int pointCount )
{
    cnGeometry g = { .type = cn_hullShape, .hull = { points, pointCount } };
    return cnCreateShape( bodyId, def, &g );
}

cnShapeId cnCreatePlaneShape( cnBodyId bodyId, const cnShapeDef* def, const cnPlane* plane )
{
    cnGeometry g = { .type = cn_planeShape,
                     .plane = plane != NULL ? *plane : ( cnPlane ){ cn_vec3Zero, 0.0 } };
    return cnCreateShape( bodyId, def, &g );
}

// the body row that owns a shape
static int cnShapeRow( const cnWorld* world, const cnShape* shape )
{
    return world->slots[shape->bodySlot].row;
}

cnStatus cnDestroyShape( cnShapeId shapeId )
{
    cnShape* shape;
    cnWorld* world = cnGetShapeWorld( shapeId, &shape );
    if ( world == NULL )
    {
        return cn_statusInvalidId;
    }
    if ( cnRefuseWhileDestroying( world, "cnDestroyShape" ) || world->locked )
    {
        return cn_statusWorldLocked;
    }
    int row = cnShapeRow( world, shape );
    int index = shapeId.index1 - 1;

    // unlink from the body's list
    int* link = world->bodies.headShape + row;
    while ( *link != index )
    {
        CN_ASSERT( *link != CN_NULL_INDEX );
        link = &world->shapes[*link].next;
    }
    *link = shape->next;
    world->bodies.shapeCount[row] -= 1;

    cnReleaseShapeSlot( world, index );
    cnUpdateBodyMass( world, row );
    return cn_statusOk;
}

cnShapeType cnShape_GetType( cnShapeId shapeId )
{
    cnShape* shape;
    cnWorld* world = cnGetShapeWorld( shapeId, &shape );
    return world != NULL ? shape->geometry.type : cn_shapeTypeCount;
}

cnBodyId cnShape_GetBody( cnShapeId shapeId )
{
    cnShape* shape;
    cnWorld* world = cnGetShapeWorld( shapeId, &shape );
    return world != NULL ? world->bodies.id[cnShapeRow( world, shape )] : cn_nullBodyId;
}

cnStatus cnShape_GetGeometry( cnShapeId shapeId, cnGeometry* outGeometry )
{
    cnShape* shape;
    cnWorld* world = cnGetShapeWorld( shapeId, &shape );
    if ( world == NULL )
    {
        return cn_statusInvalidId;
    }
    if ( outGeometry == NULL )
    {
        return cn_statusInvalidArgument;
    }
    *outGeometry = shape->geometry;
    return cn_statusOk;
}

cnStatus cnShape_SetGeometry( cnShapeId shapeId, const cnGeometry* geometry )
{
    cnShape* shape;
    cnWorld* world = cnGetShapeWorld( shapeId, &shape );
    if ( world == NULL )
    {
        return cn_statusInvalidId;
    }
    if ( cnRefuseWhileDestroying( world, "cnShape_SetGeometry" ) )
    {
        return cn_statusWorldLocked;
    }
    if ( geometry == NULL || geometry->type != shape->geometry.type )
    {
        cnLogWorld( world, cn_logError, cn_statusInvalidArgument,
                    "cnShape_SetGeometry: geometry is NULL or of another type than the shape" );
        return cn_statusInvalidArgument;
    }

    // prepare into a copy, so a refused geometry leaves the shape as it was
    cnShape updated = *shape;
    cnShapeDef def = cnDefaultShapeDef();
    def.localPose = shape->localPose;
    def.material = shape->material;
    char message[256];
    cnStatus status = cnPrepareGeometry( world, &def, geometry, &updated, message, sizeof( message ) );
    if ( status != cn_statusOk )
    {
        cnLogWorld( world, cn_logError, status, "cnShape_SetGeometry: %s", message );
        return status;
    }
    cnFreeShapeData( world, shape );
    *shape = updated;
    int row = cnShapeRow( world, shape );
    cnUpdateBodyMass( world, row );
    cnMoveBodyProxies( world, row, cn_vec3Zero );
    return cn_statusOk;
}

cnTransform cnShape_GetLocalPose( cnShapeId shapeId )
{
    cnShape* shape;
    cnWorld* world = cnGetShapeWorld( shapeId, &shape );
    return world != NULL ? shape->localPose : cn_transformIdentity;
}

cnMaterial cnShape_GetMaterial( cnShapeId shapeId )
{
    cnShape* shape;
    cnWorld* world = cnGetShapeWorld( shapeId, &shape );
    return world != NULL ? shape->material : cnDefaultMaterial();
}

cnStatus cnShape_SetMaterial( cnShapeId shapeId, cnMaterial material )
{
    cnShape* shape;
    cnWorld* world = cnGetShapeWorld( shapeId, &shape );
    if ( world == NULL )
    {
        return cn_statusInvalidId;
    }
    if ( isfinite( material.friction ) == false || isfinite( material.restitution ) == false ||
         isfinite( material.density ) == false )
    {
        return cn_statusNonFinite;
    }
    if ( cnIsValidMaterial( material ) == false )
    {
        return cn_statusInvalidArgument;
    }
    bool densityChanged = material.density != shape->material.density;
    shape->material = material;
    if ( densityChanged && shape->geometry.type != cn_planeShape )
    {
        if ( shape->hull != NULL )
        {
            cnComputeHullMassAtPose( shape->hull, material.density, shape->localPose, &shape->mass );
        }
        else
        {
            cnComputeMass( &shape->geometry, material.density, shape->localPose, &shape->mass );
        }
        cnUpdateBodyMass( world, cnShapeRow( world, shape ) );
    }
    return cn_statusOk;
}

void* cnShape_GetUserData( cnShapeId shapeId )
{
    cnShape* shape;
    cnWorld* world = cnGetShapeWorld( shapeId, &shape );
    return world != NULL ? shape->userData : NULL;
}

cnMassData cnShape_GetMassData( cnShapeId shapeId )
{
    cnShape* shape;
    cnWorld* world = cnGetShapeWorld( shapeId, &shape );
    cnMassData zero = { 0.0, cn_vec3Zero, cn_mat3Zero };
    return world != NULL ? shape->mass : zero;
}
