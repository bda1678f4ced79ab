// SPDX-License-Identifier: MIT
// Shapes: the per-world shape pool, attaching shapes to bodies, the body's mass and default
// mobility derived from its shapes, and the hidden sub-spheres of the multisphere baseline.

#include "continuous.h"
#include "core.h"
#include "hull.h"
#include "island.h"
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
    // a sub-sphere (multisphere worlds) has no id a user can hold
    if ( s->bodySlot == CN_NULL_INDEX || s->generation != shapeId.generation || s->parent != CN_NULL_INDEX )
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
    b->invInertia[row] = cnIsRotationFixed( b, row ) ? cn_mat3Zero : cnInvertMat3( b->inertia[row] );
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

static void cnReleaseSubSpheres( cnWorld* world, int index );

static void cnReleaseShapeSlot( cnWorld* world, int index )
{
    cnReleaseSubSpheres( world, index );
    cnShape* shape = world->shapes + index;
    if ( shape->parent == CN_NULL_INDEX && shape->isSensor )
    {
        cnRemoveSensor( world, index );
    }
    if ( shape->parent == CN_NULL_INDEX && shape->enableHitEvents )
    {
        world->contacts.hitShapeCount -= 1;
    }
    shape->isSensor = false;
    shape->enableHitEvents = false;
    cnDestroyShapeProxy( world, index );
    cnFreeShapeData( world, shape );
    shape->bodySlot = CN_NULL_INDEX;
    shape->parent = CN_NULL_INDEX;
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

// multisphere ------------------------------------------------------------------------------------

// The most sub-spheres per shape (cnWorldDef.multisphere is checked against it in world.c).
#define CN_MULTISPHERE_MAX 256

// Below this relative difference of the semi-axes (ellipsoid: major and middle; capsule: the
// half-length against the radius) the sub-spheres would coincide: one sphere stands for the shape.
#define CN_MULTISPHERE_DEGENERATE 1e-9

int cnMultisphereSpheres( const cnGeometry* geometry, int count, cnVec3* centers, double* radii )
{
    if ( count < 1 )
    {
        return 0;
    }
    int n = 0;
    switch ( geometry->type )
    {
        case cn_ellipsoidShape:
        {
            // a: the largest semi-axis (the first of equal ones), b: the larger of the other two
            const double r[3] = { geometry->ellipsoid.radii.x, geometry->ellipsoid.radii.y,
                                  geometry->ellipsoid.radii.z };
            int major = 0;
            for ( int k = 1; k < 3; ++k )
            {
                major = r[k] > r[major] ? k : major;
            }
            double a = r[major];
            double b = fmax( r[( major + 1 ) % 3], r[( major + 2 ) % 3] );
            n = count == 1 || a - b <= CN_MULTISPHERE_DEGENERATE * a ? 1 : count;
            // centres equally spaced on [-x_max, x_max], x_max = (a^2 - b^2) / a; radius
            // r(x) = b sqrt(1 - x^2 / (a^2 - b^2)) = b sqrt(1 - t^2 (a^2 - b^2) / a^2) at x = t x_max,
            // a^2 - b^2 taken as (a - b)(a + b), exact for close semi-axes
            double d2 = ( a - b ) * ( a + b );
            for ( int i = 0; i < n && centers != NULL; ++i )
            {
                double t = n == 1 ? 0.0 : (double)( 2 * i - ( n - 1 ) ) / (double)( n - 1 );
                double along[3] = { 0.0, 0.0, 0.0 };
                along[major] = n == 1 ? 0.0 : t * d2 / a;
                centers[i] = cnMakeVec3( along[0], along[1], along[2] );
                radii[i] = n == 1 ? b : b * sqrt( fmax( 0.0, 1.0 - t * t * d2 / ( a * a ) ) );
            }
            return n;
        }
        case cn_capsuleShape:
        {
            // radius R, centres equally spaced on the core segment, the end ones at the cap centres
            double h = geometry->capsule.halfLength;
            n = count == 1 || h <= CN_MULTISPHERE_DEGENERATE * geometry->capsule.radius ? 1 : count;
            for ( int i = 0; i < n && centers != NULL; ++i )
            {
                double t = n == 1 ? 0.0 : (double)( 2 * i - ( n - 1 ) ) / (double)( n - 1 );
                centers[i] = cnMakeVec3( 0.0, 0.0, t * h );
                radii[i] = geometry->capsule.radius;
            }
            return n;
        }
        case cn_torusShape:
        {
            // radius r, centres equally spaced on the core circle, the first on +x
            double major = geometry->torus.majorRadius;
            for ( int i = 0; i < count && centers != NULL; ++i )
            {
                double angle = 2.0 * CN_PI * (double)i / (double)count;
                centers[i] = cnMakeVec3( major * cos( angle ), major * sin( angle ), 0.0 );
                radii[i] = geometry->torus.minorRadius;
            }
            return count;
        }
        default:
            return 0;
    }
}

// how many sub-spheres a shape of this geometry collides as in this world; 0: as itself
static int cnSubSphereCount( const cnWorld* world, const cnGeometry* geometry )
{
    int count = world->def.multisphere;
    return count >= 2 && count <= CN_MULTISPHERE_MAX ? cnMultisphereSpheres( geometry, count, NULL, NULL )
                                                     : 0;
}

// The sub-spheres listed from `first`, placed for `geometry` of the shape at `index`: their
// spheres, poses (the shape's pose, moved along its axis or core circle), and the shape's material,
// filter bits and user data. No mass: the shape carries it.
static void cnPlaceSubSpheres( cnWorld* world, int index, int first, const cnGeometry* geometry )
{
    cnVec3 centers[CN_MULTISPHERE_MAX];
    double radii[CN_MULTISPHERE_MAX];
    const cnShape* parent = world->shapes + index;
    int count = cnMultisphereSpheres( geometry, world->def.multisphere, centers, radii );
    int k = 0;
    for ( int c = first; c != CN_NULL_INDEX; c = world->shapes[c].next, ++k )
    {
        CN_ASSERT( k < count );
        cnShape* child = world->shapes + c;
        child->geometry = ( cnGeometry ){ .type = cn_sphereShape, .sphere = { radii[k] } };
        child->coreRadius = cnShapeCore( child, &child->coreCenter );
        cnTransform offset = { centers[k], cn_quatIdentity };
        cnSetShapeLocalPose( child, cnMulTransforms( parent->localPose, offset ) );
        child->material = parent->material;
        child->categoryBits = parent->categoryBits;
        child->maskBits = parent->maskBits;
        child->isSensor = false; // a sensor has no sub-spheres; the others' flags stay on the parent
        child->enableHitEvents = false;
        child->userData = parent->userData;
        child->mass = ( cnMassData ){ 0.0, cn_vec3Zero, cn_mat3Zero };
    }
}

// Free a shape's sub-spheres and their proxies.
static void cnReleaseSubSpheres( cnWorld* world, int index )
{
    int c = world->shapes[index].firstChild;
    while ( c != CN_NULL_INDEX )
    {
        int next = world->shapes[c].next;
        cnReleaseShapeSlot( world, c );
        c = next;
    }
    world->shapes[index].firstChild = CN_NULL_INDEX;
    world->shapes[index].childCount = 0;
}

// Build `count` sub-spheres for the shape at `index` as it would be with `geometry`, each with its
// broadphase proxy, linked from *first (not yet the shape's). The shape's body, pose, material and
// filter must be set. False, with nothing left behind, when out of memory. Moves the shape pool.
static bool cnBuildSubSpheres( cnWorld* world, int index, const cnGeometry* geometry, int count, int* first )
{
    cnGeometry placed = *geometry; // `geometry` may be the shape's own, in the pool that moves
    *first = CN_NULL_INDEX;
    int last = CN_NULL_INDEX;
    bool ok = true;
    for ( int k = 0; k < count && ok; ++k )
    {
        int c = cnAllocateShapeSlot( world );
        if ( c == CN_NULL_INDEX )
        {
            ok = false;
            break;
        }
        cnShape* child = world->shapes + c;
        child->bodySlot = world->shapes[index].bodySlot;
        child->next = CN_NULL_INDEX;
        child->hull = NULL;
        child->proxyKey = CN_NULL_INDEX;
        child->parent = index;
        child->firstChild = CN_NULL_INDEX;
        child->childCount = 0;
        if ( last == CN_NULL_INDEX )
        {
            *first = c;
        }
        else
        {
            world->shapes[last].next = c;
        }
        last = c;
    }
    if ( ok )
    {
        cnPlaceSubSpheres( world, index, *first, &placed );
        for ( int c = *first; c != CN_NULL_INDEX && ok; c = world->shapes[c].next )
        {
            ok = cnCreateShapeProxy( world, c );
        }
    }
    if ( ok == false )
    {
        int c = *first;
        while ( c != CN_NULL_INDEX )
        {
            int next = world->shapes[c].next;
            cnReleaseShapeSlot( world, c );
            c = next;
        }
        *first = CN_NULL_INDEX;
    }
    return ok;
}

static bool cnIsValidMaterial( cnMaterial m )
{
    return isfinite( m.friction ) && m.friction >= 0.0 && isfinite( m.restitution ) && m.restitution >= 0.0 &&
           m.restitution <= 1.0 && isfinite( m.density ) && m.density >= 0.0;
}

// the geometry as the shape stores it: hulls computed (once, through the world's allocator),
// planes normalized; the mass in the body frame
static cnStatus cnPrepareGeometryData( cnWorld* world, const cnShapeDef* def, const cnGeometry* geometry,
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

// ... and its core for continuous collision
static cnStatus cnPrepareGeometry( cnWorld* world, const cnShapeDef* def, const cnGeometry* geometry,
                                   cnShape* shape, char* message, int size )
{
    cnStatus status = cnPrepareGeometryData( world, def, geometry, shape, message, size );
    if ( status == cn_statusOk )
    {
        shape->coreRadius = cnShapeCore( shape, &shape->coreCenter );
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
    cnSetShapeLocalPose( shape, localDef.localPose );
    shape->material = def->material;
    shape->categoryBits = def->categoryBits;
    shape->maskBits = def->maskBits;
    shape->isSensor = false; // set once the sensor is registered
    shape->enableHitEvents = false;
    shape->userData = def->userData;
    shape->parent = CN_NULL_INDEX;
    shape->firstChild = CN_NULL_INDEX;
    shape->childCount = 0;
    // a multisphere world's ellipsoid, capsule or torus collides through its sub-spheres' proxies;
    // a sensor's overlaps are exact, so it has none
    int subSpheres = def->isSensor ? 0 : cnSubSphereCount( world, &shape->geometry );
    int firstChild = CN_NULL_INDEX;
    bool collides = subSpheres > 0
                        ? cnBuildSubSpheres( world, index, &shape->geometry, subSpheres, &firstChild )
                        : cnCreateShapeProxy( world, index );
    shape = world->shapes + index; // building sub-spheres may move the pool
    shape->firstChild = firstChild;
    shape->childCount = firstChild != CN_NULL_INDEX ? subSpheres : 0;
    if ( collides && def->isSensor && cnAddSensor( world, index ) == false )
    {
        cnDestroyShapeProxy( world, index );
        collides = false;
    }
    if ( collides == false )
    {
        cnFreeShapeData( world, shape );
        shape->bodySlot = CN_NULL_INDEX;
        shape->next = world->freeShape;
        world->freeShape = index;
        cnLogWorld( world, cn_logError, cn_statusOutOfMemory, "cnCreateShape: out of memory" );
        return cn_nullShapeId;
    }
    shape->isSensor = def->isSensor;
    shape->enableHitEvents = def->enableHitEvents;
    world->contacts.hitShapeCount += def->enableHitEvents ? 1 : 0;
    shape->next = world->bodies.headShape[row];
    world->bodies.headShape[row] = index;
    world->bodies.shapeCount[row] += 1;

    cnUpdateBodyMass( world, row );
    cnWakeTouching( world, row );
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
    // what rests on the shape falls again (its contacts still name it here)
    cnWakeTouching( world, row );

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

    // multisphere worlds: the sub-spheres follow, re-placed in their slots (contacts and warm
    // starts kept) unless their count changes (an ellipsoid that became a sphere)
    int index = shapeId.index1 - 1;
    int subSpheres = shape->isSensor ? 0 : cnSubSphereCount( world, &updated.geometry );
    bool rebuild = subSpheres != shape->childCount;
    int firstChild = CN_NULL_INDEX;
    if ( rebuild && subSpheres > 0 &&
         cnBuildSubSpheres( world, index, &updated.geometry, subSpheres, &firstChild ) == false )
    {
        cnFreeShapeData( world, &updated );
        cnLogWorld( world, cn_logError, cn_statusOutOfMemory, "cnShape_SetGeometry: out of memory" );
        return cn_statusOutOfMemory;
    }
    shape = world->shapes + index; // building sub-spheres may move the pool
    cnFreeShapeData( world, shape );
    *shape = updated;
    if ( rebuild )
    {
        cnReleaseSubSpheres( world, index );
        shape->firstChild = firstChild;
        shape->childCount = firstChild != CN_NULL_INDEX ? subSpheres : 0;
    }
    else if ( subSpheres > 0 )
    {
        cnPlaceSubSpheres( world, index, shape->firstChild, &shape->geometry );
    }
    int row = cnShapeRow( world, shape );
    cnUpdateBodyMass( world, row );
    cnMoveBodyProxies( world, row, cn_vec3Zero );
    cnWakeTouching( world, row );
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
    if ( cnRefuseWhileDestroying( world, "cnShape_SetMaterial" ) )
    {
        return cn_statusWorldLocked;
    }
    if ( isfinite( material.friction ) == false || isfinite( material.restitution ) == false ||
         isfinite( material.density ) == false )
    {
        cnLogWorld( world, cn_logError, cn_statusNonFinite,
                    "cnShape_SetMaterial: not finite (friction %g, restitution %g, density %g)",
                    material.friction, material.restitution, material.density );
        return cn_statusNonFinite;
    }
    if ( cnIsValidMaterial( material ) == false )
    {
        cnLogWorld(
            world, cn_logError, cn_statusInvalidArgument,
            "cnShape_SetMaterial: out of range (friction >= 0, restitution in [0, 1], density >= 0), got "
            "friction %g, restitution %g, density %g",
            material.friction, material.restitution, material.density );
        return cn_statusInvalidArgument;
    }
    bool densityChanged =
        material.density != shape->material.density && shape->geometry.type != cn_planeShape;
    // a new mass in the middle of a solve would break it
    if ( densityChanged && world->locked )
    {
        cnLogWorld( world, cn_logError, cn_statusWorldLocked,
                    "cnShape_SetMaterial: density changed from inside cnWorld_Step" );
        return cn_statusWorldLocked;
    }

    // the new mass first: a failure leaves the shape as it was
    cnMassData mass = shape->mass;
    if ( densityChanged )
    {
        cnStatus status =
            shape->hull != NULL
                ? cnComputeHullMassAtPose( shape->hull, material.density, shape->localPose, &mass )
                : cnComputeMass( &shape->geometry, material.density, shape->localPose, &mass );
        if ( status != cn_statusOk )
        {
            cnLogWorld( world, cn_logError, status,
                        "cnShape_SetMaterial: mass properties could not be computed" );
            return status;
        }
    }
    shape->material = material;
    cnWakeTouching( world, cnShapeRow( world, shape ) );
    shape->mass = mass;
    for ( int c = shape->firstChild; c != CN_NULL_INDEX; c = world->shapes[c].next )
    {
        world->shapes[c].material = material; // sub-spheres touch with the shape's material
    }
    if ( densityChanged )
    {
        cnUpdateBodyMass( world, cnShapeRow( world, shape ) );
    }
    return cn_statusOk;
}

// Give the shape at `index` (and its sub-spheres) the filter bits, and new broadphase proxies that
// carry them: the broadphase keeps the bits in its proxies, and the next update finds the pairs
// of the new ones (a pair the new bits forbid ends there, with its contact). A shape with
// sub-spheres (multisphere worlds) has no proxy of its own. False when out of memory: some have no
// proxy then, and the old bits must be set again, which cannot fail (each proxy goes back into
// the arrays and tree it just left).
static bool cnRefilterShape( cnWorld* world, int index, uint32_t categoryBits, uint32_t maskBits )
{
    cnShape* shape = world->shapes + index;
    shape->categoryBits = categoryBits;
    shape->maskBits = maskBits;
    if ( shape->firstChild == CN_NULL_INDEX )
    {
        cnDestroyShapeProxy( world, index );
        return cnCreateShapeProxy( world, index );
    }
    bool ok = true;
    for ( int c = shape->firstChild; c != CN_NULL_INDEX; c = world->shapes[c].next )
    {
        world->shapes[c].categoryBits = categoryBits;
        world->shapes[c].maskBits = maskBits;
        cnDestroyShapeProxy( world, c );
        ok = ok && cnCreateShapeProxy( world, c );
    }
    return ok;
}

cnStatus cnShape_SetFilter( cnShapeId shapeId, uint32_t categoryBits, uint32_t maskBits )
{
    cnShape* shape;
    cnWorld* world = cnGetShapeWorld( shapeId, &shape );
    if ( world == NULL )
    {
        return cn_statusInvalidId;
    }
    if ( cnRefuseWhileDestroying( world, "cnShape_SetFilter" ) )
    {
        return cn_statusWorldLocked;
    }
    if ( world->locked )
    {
        cnLogWorld( world, cn_logError, cn_statusWorldLocked,
                    "cnShape_SetFilter: called from inside cnWorld_Step" );
        return cn_statusWorldLocked;
    }
    if ( shape->categoryBits == categoryBits && shape->maskBits == maskBits )
    {
        return cn_statusOk;
    }

    int index = shapeId.index1 - 1;
    cnWakeTouching( world, cnShapeRow( world, shape ) );
    uint32_t oldCategory = shape->categoryBits;
    uint32_t oldMask = shape->maskBits;
    if ( cnRefilterShape( world, index, categoryBits, maskBits ) == false )
    {
        bool restored = cnRefilterShape( world, index, oldCategory, oldMask );
        CN_ASSERT( restored );
        (void)restored;
        cnLogWorld( world, cn_logError, cn_statusOutOfMemory, "cnShape_SetFilter: out of memory" );
        return cn_statusOutOfMemory;
    }
    return cn_statusOk;
}

cnStatus cnShape_GetFilter( cnShapeId shapeId, uint32_t* categoryBits, uint32_t* maskBits )
{
    cnShape* shape;
    cnWorld* world = cnGetShapeWorld( shapeId, &shape );
    if ( world == NULL )
    {
        return cn_statusInvalidId;
    }
    if ( categoryBits != NULL )
    {
        *categoryBits = shape->categoryBits;
    }
    if ( maskBits != NULL )
    {
        *maskBits = shape->maskBits;
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

// sensors and hit events ------------------------------------------------------------------------

bool cnShape_IsSensor( cnShapeId shapeId )
{
    cnShape* shape;
    return cnGetShapeWorld( shapeId, &shape ) != NULL && shape->isSensor;
}

int cnShape_GetSensorOverlaps( cnShapeId sensorShapeId, cnShapeId* visitorIds, int capacity )
{
    cnShape* shape;
    cnWorld* world = cnGetShapeWorld( sensorShapeId, &shape );
    const cnSensor* sensor =
        world != NULL && shape->isSensor ? cnFindSensor( world, sensorShapeId.index1 - 1 ) : NULL;
    if ( sensor == NULL )
    {
        return 0;
    }
    for ( int k = 0; visitorIds != NULL && k < sensor->overlapCount && k < capacity; ++k )
    {
        visitorIds[k] =
            ( cnShapeId ){ sensor->overlaps[k].shape + 1, world->slot, sensor->overlaps[k].generation };
    }
    return sensor->overlapCount;
}

cnStatus cnShape_EnableHitEvents( cnShapeId shapeId, bool enable )
{
    cnShape* shape;
    cnWorld* world = cnGetShapeWorld( shapeId, &shape );
    if ( world == NULL )
    {
        return cn_statusInvalidId;
    }
    if ( shape->enableHitEvents != enable )
    {
        world->contacts.hitShapeCount += enable ? 1 : -1;
        shape->enableHitEvents = enable;
    }
    return cn_statusOk;
}

bool cnShape_AreHitEventsEnabled( cnShapeId shapeId )
{
    cnShape* shape;
    return cnGetShapeWorld( shapeId, &shape ) != NULL && shape->enableHitEvents;
}
