// SPDX-License-Identifier: MIT
// What the viewer draws: a view per body and shape (meshes shared between equal geometries),
// colours by body, island, rest, contact force, orientation or cell age, debug draw, and the HUD with its
// plots.
#include "app.h"

#include <GLFW/glfw3.h>
#include <cglm/cglm.h>

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VW_MAX_BODY_SHAPES 64

static const float s_white[4] = { 1.0f, 1.0f, 1.0f, 1.0f };
static const float s_dim[4] = { 0.72f, 0.76f, 0.82f, 1.0f };
static const float s_accent[4] = { 1.0f, 0.80f, 0.35f, 1.0f };
static const float s_warn[4] = { 1.0f, 0.45f, 0.35f, 1.0f };
static const float s_panel[4] = { 0.05f, 0.06f, 0.08f, 0.72f };

// growing arrays -----------------------------------------------------------------------------------

static bool vwReserve( void** array, int* capacity, int needed, size_t size )
{
    if ( needed <= *capacity )
    {
        return true;
    }
    int grown = *capacity > 0 ? *capacity : 64;
    while ( grown < needed )
    {
        grown *= 2;
    }
    void* memory = realloc( *array, (size_t)grown * size );
    if ( memory == NULL )
    {
        return false;
    }
    *array = memory;
    *capacity = grown;
    return true;
}

// meshes -------------------------------------------------------------------------------------------

static int vwFindOrAddMesh( vwApp* app, const cnGeometry* geometry )
{
    vwMeshKey key = vwMeshKeyOf( geometry );
    for ( int i = 0; i < app->meshCount; ++i )
    {
        if ( vwMeshKeyEqual( app->meshes[i].key, key ) )
        {
            return i;
        }
    }
    if ( !vwReserve( (void**)&app->meshes, &app->meshCapacity, app->meshCount + 1, sizeof( vwMeshEntry ) ) )
    {
        return -1;
    }
    vwMeshEntry* entry = app->meshes + app->meshCount;
    *entry = ( vwMeshEntry ){ .key = key, .handle = -1 };
    if ( !vwBuildMesh( geometry, ( vwMeshDetail ){ app->meshSegments }, &entry->mesh ) )
    {
        return -1;
    }
    entry->handle = vwAddMesh( app->renderer, &entry->mesh );
    if ( entry->handle < 0 )
    {
        vwFreeMesh( &entry->mesh );
        return -1;
    }
    return app->meshCount++;
}

static int vwCompareShapeViews( const void* a, const void* b )
{
    const vwShapeView* sa = a;
    const vwShapeView* sb = b;
    if ( sa->mesh != sb->mesh )
    {
        return sa->mesh < sb->mesh ? -1 : 1;
    }
    return ( sa->bodyIndex > sb->bodyIndex ) - ( sa->bodyIndex < sb->bodyIndex );
}

void vwSyncBodies( vwApp* app )
{
    cnBodyArrays arrays = cnWorld_GetBodyArrays( app->worldId );
    bool same = app->bodiesDirty == false && arrays.count == app->bodyCount &&
                ( arrays.count == 0 ||
                  memcmp( arrays.ids, app->bodies, (size_t)arrays.count * sizeof( cnBodyId ) ) == 0 );
    if ( same )
    {
        return;
    }
    app->bodiesDirty = false;

    int count = arrays.count;
    if ( !vwReserve( (void**)&app->bodies, &app->bodyCapacity, count, sizeof( cnBodyId ) ) )
    {
        vwSetMessage( app, "out of memory for %d bodies", count );
        return;
    }
    // the per-body arrays share bodyCapacity
    float* colors = realloc( app->bodyColors, 3 * (size_t)app->bodyCapacity * sizeof( float ) );
    app->bodyColors = colors != NULL ? colors : app->bodyColors;
    double* forces = realloc( app->bodyForces, (size_t)app->bodyCapacity * sizeof( double ) );
    app->bodyForces = forces != NULL ? forces : app->bodyForces;
    int* islands = realloc( app->islandOf, (size_t)app->bodyCapacity * sizeof( int ) );
    app->islandOf = islands != NULL ? islands : app->islandOf;
    if ( colors == NULL || forces == NULL || islands == NULL )
    {
        app->bodyCount = 0;
        vwSetMessage( app, "out of memory for %d bodies", count );
        return;
    }
    memcpy( app->bodies, arrays.ids, (size_t)count * sizeof( cnBodyId ) );
    app->bodyCount = count;

    int maxSlot = 0;
    for ( int i = 0; i < count; ++i )
    {
        maxSlot = arrays.ids[i].index1 > maxSlot ? arrays.ids[i].index1 : maxSlot;
    }
    if ( !vwReserve( (void**)&app->slotToBody, &app->slotCapacity, maxSlot + 1, sizeof( int ) ) )
    {
        app->bodyCount = 0;
        return;
    }
    for ( int i = 0; i < app->slotCapacity; ++i )
    {
        app->slotToBody[i] = -1;
    }
    for ( int i = 0; i < count; ++i )
    {
        app->slotToBody[arrays.ids[i].index1] = i;
    }

    app->shapeCount = 0;
    for ( int i = 0; i < count; ++i )
    {
        cnShapeId shapeIds[VW_MAX_BODY_SHAPES];
        int shapeCount = cnBody_GetShapes( app->bodies[i], shapeIds, VW_MAX_BODY_SHAPES );
        shapeCount = shapeCount < VW_MAX_BODY_SHAPES ? shapeCount : VW_MAX_BODY_SHAPES;
        for ( int k = 0; k < shapeCount; ++k )
        {
            cnGeometry geometry;
            if ( cnShape_GetGeometry( shapeIds[k], &geometry ) != cn_statusOk )
            {
                continue;
            }
            if ( !vwReserve( (void**)&app->shapes, &app->shapeCapacity, app->shapeCount + 1,
                             sizeof( vwShapeView ) ) )
            {
                break;
            }
            vwShapeView* view = app->shapes + app->shapeCount;
            *view = ( vwShapeView ){ .shapeId = shapeIds[k],
                                     .bodyIndex = i,
                                     .mesh = -1,
                                     .sensor = cnShape_IsSensor( shapeIds[k] ),
                                     .localPose = cnShape_GetLocalPose( shapeIds[k] ) };
            if ( geometry.type == cn_planeShape )
            {
                view->plane = true;
                view->planeGeometry = geometry.plane;
                app->shapeCount += 1;
                continue;
            }
            view->mesh = vwFindOrAddMesh( app, &geometry );
            if ( view->mesh < 0 )
            {
                vwSetMessage( app, "body %d: could not build the mesh of a shape", i );
                continue;
            }
            vwMeshScale( &geometry, view->scale );
            const vwMesh* mesh = &app->meshes[view->mesh].mesh;
            double radius = 0.0;
            for ( int v = 0; v < mesh->vertexCount; ++v )
            {
                const float* p = mesh->vertices[v].position;
                double x = p[0] * view->scale[0], y = p[1] * view->scale[1], z = p[2] * view->scale[2];
                radius = fmax( radius, sqrt( x * x + y * y + z * z ) );
            }
            view->boundRadius = radius;
            app->shapeCount += 1;
        }
    }
    qsort( app->shapes, (size_t)app->shapeCount, sizeof( vwShapeView ), vwCompareShapeViews );
    if ( app->pick.active && !cnBody_IsValid( app->pick.bodyId ) )
    {
        app->pick.active = false;
    }
}

// colours ------------------------------------------------------------------------------------------

static void vwHsv( float hue, float saturation, float value, float rgb[3] )
{
    float h = ( hue - floorf( hue ) ) * 6.0f;
    int sector = (int)h;
    float f = h - (float)sector;
    float p = value * ( 1.0f - saturation );
    float q = value * ( 1.0f - saturation * f );
    float t = value * ( 1.0f - saturation * ( 1.0f - f ) );
    float table[6][3] = { { value, t, p }, { q, value, p }, { p, value, t },
                          { p, q, value }, { t, p, value }, { value, p, q } };
    memcpy( rgb, table[sector % 6], sizeof( table[0] ) );
}

// a well-spread colour per integer (golden-ratio hues)
static void vwPaletteColor( int index, float rgb[3] )
{
    float hue = 0.07f + 0.61803398875f * (float)index;
    float saturation = index % 3 == 1 ? 0.45f : 0.62f;
    float value = index % 2 == 0 ? 0.92f : 0.80f;
    vwHsv( hue, saturation, value, rgb );
}

static int vwFindRoot( int* parent, int i )
{
    while ( parent[i] != i )
    {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    return i;
}

static int vwBodyIndex( const vwApp* app, cnBodyId id )
{
    if ( id.index1 <= 0 || id.index1 >= app->slotCapacity )
    {
        return -1;
    }
    int index = app->slotToBody[id.index1];
    return index >= 0 && CN_ID_EQUALS( app->bodies[index], id ) ? index : -1;
}

void vwUpdateColors( vwApp* app )
{
    int n = app->bodyCount;
    int contactCount = cnWorld_GetContacts( app->worldId, NULL, 0 );
    if ( vwReserve( (void**)&app->contacts, &app->contactCapacity, contactCount, sizeof( cnContactData ) ) )
    {
        app->contactCount = cnWorld_GetContacts( app->worldId, app->contacts, app->contactCapacity );
        app->contactCount =
            app->contactCount < app->contactCapacity ? app->contactCount : app->contactCapacity;
    }

    // contact forces (impulse over the step) and islands (union-find over dynamic bodies)
    cnBodyArrays arrays = cnWorld_GetBodyArrays( app->worldId );
    if ( arrays.count != n )
    {
        return;
    }
    for ( int i = 0; i < n; ++i )
    {
        app->bodyForces[i] = 0.0;
        app->islandOf[i] = i;
    }
    double dt = app->timeStep > 0.0 ? app->timeStep : 1.0 / 60.0;
    for ( int c = 0; c < app->contactCount; ++c )
    {
        const cnContactData* contact = app->contacts + c;
        int a = vwBodyIndex( app, contact->bodyA );
        int b = vwBodyIndex( app, contact->bodyB );
        double impulse = 0.0;
        for ( int k = 0; k < contact->pointCount; ++k )
        {
            impulse += contact->points[k].normalImpulse;
        }
        bool dynamicA = a >= 0 && arrays.types[a] == cn_dynamicBody;
        bool dynamicB = b >= 0 && arrays.types[b] == cn_dynamicBody;
        if ( a >= 0 )
        {
            app->bodyForces[a] += impulse / dt;
        }
        if ( b >= 0 )
        {
            app->bodyForces[b] += impulse / dt;
        }
        if ( dynamicA && dynamicB )
        {
            int ra = vwFindRoot( app->islandOf, a );
            int rb = vwFindRoot( app->islandOf, b );
            app->islandOf[ra > rb ? ra : rb] = ra < rb ? ra : rb;
        }
    }

    double g = cnLength( cnWorld_GetGravity( app->worldId ) );
    bool sleeping = cnWorld_GetDef( app->worldId ).enableSleep;
    // a colony cell's doubling time, for colouring by age
    double doubling = log( 2.0 ) / cxColony_GetConfig( app->systems.colony ).growthRate;
    for ( int i = 0; i < n; ++i )
    {
        float* rgb = app->bodyColors + 3 * i;
        if ( arrays.types[i] == cn_staticBody )
        {
            rgb[0] = rgb[1] = rgb[2] = 0.55f;
            continue;
        }
        switch ( app->colorMode )
        {
            case vw_colorBody:
                vwPaletteColor( i, rgb );
                break;
            case vw_colorIsland:
                vwPaletteColor( vwFindRoot( app->islandOf, i ) * 7 + 3, rgb );
                break;
            case vw_colorRest:
            {
                // with world.sleeping the engine's own sleep state (island.c); without it, what a
                // sleep test would pick
                bool resting = false;
                if ( sleeping )
                {
                    resting = cnBody_IsAwake( arrays.ids[i] ) == false;
                }
                else
                {
                    double v = cnLength( arrays.linearVelocities[i] );
                    double w = cnLength( arrays.angularVelocities[i] );
                    resting = v < 0.05 && w < 0.1;
                }
                const float rest[3] = { 0.30f, 0.50f, 0.95f };
                const float moving[3] = { 1.0f, 0.55f, 0.15f };
                memcpy( rgb, resting ? rest : moving, sizeof( rest ) );
                break;
            }
            case vw_colorOrientation:
            {
                // the z axis (a capsule's or cylinder's axis) has no sign: its azimuth modulo pi
                // is the hue, and tilting out of the horizontal fades it to grey
                cnVec3 axis = cnRotate( arrays.transforms[i].q, ( cnVec3 ){ 0.0, 0.0, 1.0 } );
                double azimuth = atan2( axis.y, axis.x );
                azimuth = azimuth < 0.0 ? azimuth + 3.14159265358979323846 : azimuth;
                float hue = (float)( azimuth / 3.14159265358979323846 );
                float saturation = (float)( 0.75 * sqrt( fmax( 0.0, 1.0 - axis.z * axis.z ) ) );
                vwHsv( hue, saturation, 0.9f, rgb );
                break;
            }
            case vw_colorAge:
            {
                double age = cxColony_GetCellAge( app->systems.colony, arrays.ids[i] );
                if ( age < 0.0 )
                {
                    vwPaletteColor( i, rgb );
                    break;
                }
                // over one doubling time: newborn pale yellow, about to divide deep blue
                float t = (float)fmin( 1.0, age / doubling );
                rgb[0] = 1.0f - 0.85f * t;
                rgb[1] = 0.95f - 0.55f * t;
                rgb[2] = 0.55f + 0.35f * t;
                break;
            }
            case vw_colorForce:
            default:
            {
                // force against weight on a log scale: 0.1 W dark blue .. 100 W white-hot
                double weight = arrays.masses[i] * ( g > 0.0 ? g : 1.0 );
                double ratio = weight > 0.0 ? app->bodyForces[i] / weight : 0.0;
                float t = ratio > 0.0 ? (float)( ( log10( ratio ) + 1.0 ) / 3.0 ) : 0.0f;
                t = t < 0.0f ? 0.0f : ( t > 1.0f ? 1.0f : t );
                rgb[0] = fminf( 1.0f, 0.15f + 1.8f * t );
                rgb[1] = fminf( 1.0f, 0.20f + 1.2f * t * t );
                rgb[2] = 0.55f * ( 1.0f - t ) + 0.6f * t * t * t;
                break;
            }
        }
    }
}

// camera -------------------------------------------------------------------------------------------

void vwCameraMatrices( const vwApp* app, float view[16], float projection[16], float eye[3] )
{
    const vwCamera* camera = &app->camera;
    // an orthonormal frame around up: forward at yaw 0 is the first axis perpendicular to up
    vec3 up = { (float)camera->up[0], (float)camera->up[1], (float)camera->up[2] };
    vec3 reference = { 1.0f, 0.0f, 0.0f };
    if ( fabsf( up[0] ) > 0.9f )
    {
        reference[0] = 0.0f;
        reference[1] = 1.0f;
    }
    vec3 side, front;
    glm_vec3_crossn( up, reference, side );
    glm_vec3_crossn( side, up, front );
    float cy = cosf( (float)camera->yaw ), sy = sinf( (float)camera->yaw );
    float cp = cosf( (float)camera->pitch ), sp = sinf( (float)camera->pitch );
    vec3 offset;
    for ( int k = 0; k < 3; ++k )
    {
        offset[k] = (float)camera->distance * ( cp * ( cy * front[k] + sy * side[k] ) + sp * up[k] );
    }
    vec3 target = { (float)camera->target[0], (float)camera->target[1], (float)camera->target[2] };
    vec3 position;
    glm_vec3_add( target, offset, position );
    mat4 v, p;
    glm_lookat( position, target, up, v );
    float aspect = app->height > 0 ? (float)app->width / (float)app->height : 1.0f;
    float nearPlane = (float)fmax( 0.01, camera->distance * 0.01 );
    float farPlane = (float)fmax( 1000.0, camera->distance * 50.0 );
    glm_perspective( (float)camera->fovY, aspect, nearPlane, farPlane, p );
    memcpy( view, v, sizeof( float ) * 16 );
    memcpy( projection, p, sizeof( float ) * 16 );
    if ( eye != NULL )
    {
        memcpy( eye, position, sizeof( float ) * 3 );
    }
}

// scene --------------------------------------------------------------------------------------------

static void vwToFloats( cnVec3 v, float out[3] )
{
    out[0] = (float)v.x;
    out[1] = (float)v.y;
    out[2] = (float)v.z;
}

static void vwDrawBox( vwRenderer* renderer, cnVec3 lo, cnVec3 hi, const float color[4] )
{
    for ( int e = 0; e < 12; ++e )
    {
        // the 12 edges: 4 along each axis
        int axis = e / 4;
        int corner = e % 4;
        double c[3][2] = { { lo.x, hi.x }, { lo.y, hi.y }, { lo.z, hi.z } };
        int u = ( axis + 1 ) % 3, w = ( axis + 2 ) % 3;
        float a[3], b[3];
        a[axis] = (float)c[axis][0];
        b[axis] = (float)c[axis][1];
        a[u] = b[u] = (float)c[u][corner & 1];
        a[w] = b[w] = (float)c[w][corner >> 1];
        vwDrawLine( renderer, a, b, color, false );
    }
}

// Joints, always drawn over the scene: each body's centre of mass to its anchor (cyan), and the two
// anchors to each other in red (a joint that holds draws no red: its anchors coincide)
static void vwDrawJoints( vwApp* app )
{
    int count = cnWorld_GetJointCount( app->worldId );
    cnJointId* joints = count > 0 ? malloc( (size_t)count * sizeof( cnJointId ) ) : NULL;
    if ( joints == NULL )
    {
        return;
    }
    count = cnWorld_GetJoints( app->worldId, joints, count );
    const float armColor[4] = { 0.2f, 0.9f, 1.0f, 1.0f };
    const float errorColor[4] = { 1.0f, 0.2f, 0.2f, 1.0f };
    for ( int j = 0; j < count; ++j )
    {
        cnVec3 anchorA = cnJoint_GetWorldAnchorA( joints[j] );
        cnVec3 anchorB = cnJoint_GetWorldAnchorB( joints[j] );
        cnVec3 centerA = cnBody_GetWorldCenter( cnJoint_GetBodyA( joints[j] ) );
        cnVec3 centerB = cnBody_GetWorldCenter( cnJoint_GetBodyB( joints[j] ) );
        float a[3], b[3];
        vwToFloats( centerA, a );
        vwToFloats( anchorA, b );
        vwDrawLine( app->renderer, a, b, armColor, true );
        vwToFloats( centerB, a );
        vwToFloats( anchorB, b );
        vwDrawLine( app->renderer, a, b, armColor, true );
        vwToFloats( anchorA, a );
        vwToFloats( anchorB, b );
        vwDrawLine( app->renderer, a, b, errorColor, true );
    }
    free( joints );
}

void vwDrawScene( vwApp* app )
{
    cnBodyArrays arrays = cnWorld_GetBodyArrays( app->worldId );
    if ( arrays.count != app->bodyCount )
    {
        return;
    }
    float focus[3] = { (float)app->camera.target[0], (float)app->camera.target[1],
                       (float)app->camera.target[2] };

    // shapes, one instanced draw per mesh (the views are sorted by mesh)
    int start = 0;
    while ( start < app->shapeCount )
    {
        int mesh = app->shapes[start].mesh;
        int end = start;
        while ( end < app->shapeCount && app->shapes[end].mesh == mesh )
        {
            ++end;
        }
        if ( !vwReserve( (void**)&app->instances, &app->instanceCapacity, end - start,
                         sizeof( vwInstance ) ) )
        {
            return;
        }
        int count = 0;
        for ( int s = start; s < end; ++s )
        {
            const vwShapeView* view = app->shapes + s;
            cnTransform body = arrays.transforms[view->bodyIndex];
            if ( view->plane )
            {
                cnVec3 normal = cnRotate( body.q, view->planeGeometry.normal );
                double offset = view->planeGeometry.offset + cnDot( normal, body.p );
                float n[3];
                vwToFloats( normal, n );
                vwDrawPlane( app->renderer, n, (float)offset, focus );
                continue;
            }
            if ( app->options.hideBodies )
            {
                continue;
            }
            cnTransform world = cnMulTransforms( body, view->localPose );
            vwInstance* instance = app->instances + count++;
            vwToFloats( world.p, instance->position );
            instance->rotation[0] = (float)world.q.w;
            instance->rotation[1] = (float)world.q.x;
            instance->rotation[2] = (float)world.q.y;
            instance->rotation[3] = (float)world.q.z;
            memcpy( instance->scale, view->scale, sizeof( view->scale ) );
            const float* rgb = app->bodyColors + 3 * view->bodyIndex;
            bool picked = app->pick.active && CN_ID_EQUALS( app->pick.bodyId, app->bodies[view->bodyIndex] );
            for ( int k = 0; k < 3; ++k )
            {
                instance->color[k] = picked ? fminf( 1.0f, rgb[k] * 0.6f + 0.45f ) : rgb[k];
            }
            instance->color[3] = view->sensor ? 0.3f : 1.0f; // a sensor touches nothing: see-through
        }
        if ( mesh >= 0 && count > 0 )
        {
            vwDrawInstances( app->renderer, app->meshes[mesh].handle, app->instances, count );
        }
        start = end;
    }

    // debug draw
    if ( app->showContacts || app->showNormals )
    {
        double scale = fmax( 0.05, 0.04 * app->camera.distance );
        const float pointColor[4] = { 1.0f, 0.15f, 0.1f, 1.0f };
        const float normalColor[4] = { 1.0f, 0.9f, 0.1f, 1.0f };
        for ( int c = 0; c < app->contactCount; ++c )
        {
            const cnContactData* contact = app->contacts + c;
            for ( int k = 0; k < contact->pointCount; ++k )
            {
                const cnContactPoint* point = contact->points + k;
                if ( app->showContacts )
                {
                    double r = 0.15 * scale;
                    for ( int axis = 0; axis < 3; ++axis )
                    {
                        cnVec3 d = { axis == 0 ? r : 0.0, axis == 1 ? r : 0.0, axis == 2 ? r : 0.0 };
                        float a[3], b[3];
                        vwToFloats( cnSub( point->point, d ), a );
                        vwToFloats( cnAdd( point->point, d ), b );
                        vwDrawLine( app->renderer, a, b, pointColor, true );
                    }
                }
                if ( app->showNormals )
                {
                    float a[3], b[3];
                    vwToFloats( point->point, a );
                    vwToFloats( cnMulAdd( point->point, scale, point->normal ), b );
                    vwDrawLine( app->renderer, a, b, normalColor, true );
                }
            }
        }
    }
    vwDrawJoints( app );
    if ( app->showAabbs )
    {
        const float boxColor[4] = { 0.3f, 1.0f, 0.5f, 1.0f };
        for ( int s = 0; s < app->shapeCount; ++s )
        {
            const vwShapeView* view = app->shapes + s;
            if ( view->plane || view->mesh < 0 )
            {
                continue;
            }
            cnTransform world = cnMulTransforms( arrays.transforms[view->bodyIndex], view->localPose );
            // the box of the rotated, scaled mesh: |R| times the local half extents about the local centre
            const vwMesh* mesh = &app->meshes[view->mesh].mesh;
            cnVec3 lo = { INFINITY, INFINITY, INFINITY }, hi = { -INFINITY, -INFINITY, -INFINITY };
            for ( int v = 0; v < mesh->vertexCount; ++v )
            {
                const float* p = mesh->vertices[v].position;
                cnVec3 local = { p[0] * view->scale[0], p[1] * view->scale[1], p[2] * view->scale[2] };
                cnVec3 x = cnTransformPoint( world, local );
                lo = ( cnVec3 ){ fmin( lo.x, x.x ), fmin( lo.y, x.y ), fmin( lo.z, x.z ) };
                hi = ( cnVec3 ){ fmax( hi.x, x.x ), fmax( hi.y, x.y ), fmax( hi.z, x.z ) };
            }
            vwDrawBox( app->renderer, lo, hi, boxColor );
        }
    }
    if ( app->pick.active )
    {
        const float springColor[4] = { 1.0f, 1.0f, 1.0f, 1.0f };
        cnVec3 anchor = cnTransformPoint( cnBody_GetTransform( app->pick.bodyId ), app->pick.localAnchor );
        float a[3], b[3];
        vwToFloats( anchor, a );
        vwToFloats( app->pick.target, b );
        vwDrawLine( app->renderer, a, b, springColor, true );
    }
}

// HUD ----------------------------------------------------------------------------------------------

const char* vwWarningNames( uint32_t warnings, char* buffer, int size )
{
    buffer[0] = '\0';
    int used = 0;
    for ( int bit = 0; bit < 32; ++bit )
    {
        const char* name = ( warnings & ( 1u << bit ) ) != 0 ? cnStepWarningName( 1u << bit ) : NULL;
        if ( name != NULL && used < size )
        {
            used += snprintf( buffer + used, (size_t)( size - used ), "%s%s", used > 0 ? " " : "", name );
        }
    }
    return buffer;
}

static void vwPanel( vwApp* app, float x, float y, const char* text, const float color[4] )
{
    float w, h;
    vwHudTextSize( app->hud, text, &w, &h );
    float pad = 6.0f * app->hudScale;
    vwHudRect( app->hud, x - pad, y - pad, w + 2.0f * pad, h + 2.0f * pad, s_panel );
    vwHudText( app->hud, x, y, color, text );
}

static void vwDrawPicker( vwApp* app )
{
    float s = app->hudScale;
    float x = 40.0f * s, y = 40.0f * s;
    float rowHeight = 18.0f * s;
    float width = 420.0f * s;
    vwHudRect( app->hud, x - 14.0f * s, y - 14.0f * s, width + 28.0f * s,
               (float)( app->sceneCount + 1 ) * rowHeight + 40.0f * s, s_panel );
    vwHudText( app->hud, x, y, s_white, "Cairn: pick a scene (Up/Down and Enter, or click)" );
    y += 24.0f * s;
    if ( app->sceneCount == 0 )
    {
        vwHudText( app->hud, x, y, s_warn, "no scenes found in assets/scenes" );
    }
    for ( int i = 0; i < app->sceneCount; ++i )
    {
        const char* name = strrchr( app->scenes[i], '/' );
        name = name != NULL ? name + 1 : app->scenes[i];
        if ( i == app->sceneCursor )
        {
            vwHudRect( app->hud, x - 6.0f * s, y - 3.0f * s, width, 16.0f * s,
                       ( float[4] ){ 0.2f, 0.35f, 0.6f, 0.9f } );
        }
        vwHudText( app->hud, x, y, i == app->sceneCursor ? s_accent : s_white, name );
        y += rowHeight;
    }
    if ( app->sceneDescription[0] != '\0' )
    {
        vwPanel( app, x + width + 40.0f * s, 40.0f * s, app->sceneDescription, s_dim );
    }
    if ( app->loadError[0] != '\0' )
    {
        vwPanel( app, x, y + 24.0f * s, app->loadError, s_warn );
    }
}

// Lines of a panel, each in its own colour, drawn on one dark background.
#define VW_PANEL_LINES 96
typedef struct vwLines
{
    char text[8192]; ///< the lines, '\n' between them
    int used;
    int count;
    const float* colors[VW_PANEL_LINES];
} vwLines;

static void vwAddLine( vwLines* lines, const float color[4], const char* format, ... )
#if defined( __GNUC__ )
    __attribute__( ( format( printf, 3, 4 ) ) )
#endif
    ;
static void vwAddLine( vwLines* lines, const float color[4], const char* format, ... )
{
    int room = (int)sizeof( lines->text ) - lines->used;
    if ( lines->count == VW_PANEL_LINES || room < 2 )
    {
        return;
    }
    if ( lines->count > 0 )
    {
        lines->text[lines->used++] = '\n';
        room -= 1;
    }
    va_list args;
    va_start( args, format );
    int length = vsnprintf( lines->text + lines->used, (size_t)room, format, args );
    va_end( args );
    lines->used += length < 0 ? 0 : ( length < room ? length : room - 1 );
    lines->colors[lines->count++] = color != NULL ? color : s_white;
}

// The line `i` of `lines` split at its tab (if any) into `head` and `tail`; false past the end.
static bool vwLineParts( const vwLines* lines, int i, char head[512], char tail[512], bool* tabbed )
{
    const char* line = lines->text;
    for ( int k = 0; k < i && line != NULL; ++k )
    {
        line = strchr( line, '\n' );
        line = line != NULL ? line + 1 : NULL;
    }
    if ( line == NULL || i >= lines->count )
    {
        return false;
    }
    const char* end = strchr( line, '\n' );
    int length = end != NULL ? (int)( end - line ) : (int)strlen( line );
    const char* tab = memchr( line, '\t', (size_t)length );
    *tabbed = tab != NULL;
    int headLength = tab != NULL ? (int)( tab - line ) : length;
    snprintf( head, 512, "%.*s", headLength, line );
    snprintf( tail, 512, "%.*s", tab != NULL ? length - headLength - 1 : 0, tab != NULL ? tab + 1 : "" );
    return true;
}

// The lines on one background; the text after a tab starts in a column of its own (the font is
// proportional, so spaces do not line values up).
static void vwDrawLines( vwApp* app, float x, float y, const vwLines* lines )
{
    char head[512], tail[512];
    bool tabbed;
    float column = 0.0f, width = 0.0f, lineHeight = 0.0f, gap = 0.0f;
    vwHudTextSize( app->hud, "  ", &gap, &lineHeight );
    for ( int i = 0; vwLineParts( lines, i, head, tail, &tabbed ); ++i )
    {
        float w;
        vwHudTextSize( app->hud, head, &w, NULL );
        column = tabbed && w + gap > column ? w + gap : column;
    }
    for ( int i = 0; vwLineParts( lines, i, head, tail, &tabbed ); ++i )
    {
        float w, t;
        vwHudTextSize( app->hud, head, &w, NULL );
        vwHudTextSize( app->hud, tail, &t, NULL );
        w = tabbed ? column + t : w;
        width = w > width ? w : width;
    }
    float pad = 6.0f * app->hudScale;
    float height = lineHeight * (float)lines->count;
    vwHudRect( app->hud, x - pad, y - pad, width + 2.0f * pad, height + 2.0f * pad, s_panel );
    for ( int i = 0; vwLineParts( lines, i, head, tail, &tabbed ); ++i )
    {
        vwHudText( app->hud, x, y + lineHeight * (float)i, lines->colors[i], head );
        if ( tabbed )
        {
            vwHudText( app->hud, x + column, y + lineHeight * (float)i, lines->colors[i], tail );
        }
    }
}

// A merit or violation: "-" for NaN (nothing solved), "0" for an exact zero, else 3 digits
static const char* vwMeritText( double value, char* buffer, size_t size )
{
    if ( isnan( value ) )
    {
        snprintf( buffer, size, "-" );
    }
    else if ( value == 0.0 )
    {
        snprintf( buffer, size, "0" );
    }
    else
    {
        snprintf( buffer, size, "%.2e", value );
    }
    return buffer;
}

// The passes of the last step in its residual history, which holds every pass of every substep
// in order, each as its start and one merit per iteration: per substep the main pass, then the
// relax pass when the substep had a soft pass. Where each relax pass starts is known when every
// substep had both passes and the main and relax iterations (summed in the report) divide evenly
// among them, and the history's length agrees: the count of these starts, at most `capacity`;
// 0 when they cannot be told (an uneven step, a pivoting solver, a cut history, no relax pass).
static int vwRelaxStarts( const vwApp* app, const cnSolverVTable* solver, int* starts, int capacity )
{
    const cnStepReport* r = &app->report;
    int substeps = r->substeps;
    if ( solver == NULL || ( solver->caps & cn_solverDirect ) != 0 || r->relaxIterations <= 0 ||
         substeps < 1 || r->solverPasses != 2 * substeps || r->solverIterations % substeps != 0 ||
         r->relaxIterations % substeps != 0 ||
         app->residualCount != r->solverIterations + r->relaxIterations + r->solverPasses )
    {
        return 0;
    }
    int mainLength = r->solverIterations / substeps + 1;
    int relaxLength = r->relaxIterations / substeps + 1;
    int count = 0;
    for ( int k = 0; k < substeps && count < capacity; ++k )
    {
        starts[count++] = k * ( mainLength + relaxLength ) + mainLength;
    }
    return count;
}

void vwDrawHud( vwApp* app, double fps )
{
    vwHudBegin( app->hud, app->width, app->height, app->hudScale );
    float s = app->hudScale;
    if ( app->picking )
    {
        vwDrawPicker( app );
        vwHudEnd( app->hud );
        return;
    }

    const cnStepReport* r = &app->report;
    static vwLines lines;
    char warnings[512];
    int instances = 0;
    long long triangles = 0;
    vwRenderStats( app->renderer, &instances, &triangles );
    lines = ( vwLines ){ 0 };
    vwAddLine( &lines, s_white, "%s   t = %.2f s   step %lld%s%s", app->sceneName, r->time,
               (long long)r->stepIndex, app->paused ? "   PAUSED" : "",
               app->slowMotion ? "   SLOW x0.25" : "" );
    vwAddLine( &lines, s_white, "bodies %d (%d dynamic)   contacts %d points in %d pairs", r->bodyCount,
               r->dynamicCount, r->contactCount, r->manifoldCount );
    vwAddLine( &lines, s_white, "max penetration %.2f mm   kinetic energy %.4g J", 1000.0 * r->maxPenetration,
               r->kineticEnergy );
    vwWarningNames( r->warnings, warnings, (int)sizeof( warnings ) );
    vwAddLine( &lines, warnings[0] != '\0' ? s_warn : s_white, "warnings: %s",
               warnings[0] != '\0' ? warnings : "none" );
    vwAddLine( &lines, s_white, "frame %.1f ms (%.0f fps)   render %.1f ms   %d instances, %.1fk triangles",
               app->frameMsLast, fps, app->renderMsLast, instances, (double)triangles * 1e-3 );
    vwDrawLines( app, 12.0f * s, 12.0f * s, &lines );

    // solver panel: name, what the last solve did and how it grades, the parameters (the selected
    // one highlighted, its description below)
    const cnSolverVTable* solver = cnWorld_GetSolver( app->worldId );
    float x = 12.0f * s, y = 104.0f * s;
    if ( solver != NULL )
    {
        int number = 0;
        for ( int i = 0; i < cnGetSolverCount(); ++i )
        {
            number = cnGetSolverAt( i ) == solver ? i + 1 : number;
        }
        lines = ( vwLines ){ 0 };
        vwAddLine( &lines, s_white, "solver %s (%d of %d: Tab or 1-9, 0, -)   friction %s (F)", solver->name,
                   number, cnGetSolverCount(),
                   cnWorld_GetFrictionModel( app->worldId ) == cn_frictionCone ? "cone" : "pyramid" );
        cnSolveStatus status = (cnSolveStatus)r->solverStatus;
        bool usable = cnSolveStatusIsUsable( status, solver->caps );
        // iterations in the solver's unit ("sweep" -> "sweeps: 10 main + 2 relax")
        const char* unit = solver->iterationUnit != NULL ? solver->iterationUnit : "iteration";
        char substeps[64] = "";
        int workers = cnWorld_GetWorkerCount( app->worldId );
        if ( r->substeps > 1 || workers > 1 )
        {
            snprintf( substeps, sizeof( substeps ), " in %d substep%s on %d worker%s", r->substeps,
                      r->substeps > 1 ? "s" : "", workers, workers > 1 ? "s" : "" );
        }
        vwAddLine( &lines, usable ? s_white : s_warn, "%ss: %d main + %d relax%s   status %s%s%s", unit,
                   r->solverIterations, r->relaxIterations, substeps, cnSolveStatusName( status ),
                   r->solverReason != NULL ? ": " : "", r->solverReason != NULL ? r->solverReason : "" );
        char a[32], b[32], c[32];
        vwAddLine( &lines, s_white, "merit (unit-free): natural map %s   cone %s",
                   vwMeritText( r->meritNaturalMap, a, sizeof( a ) ),
                   vwMeritText( r->meritCone, b, sizeof( b ) ) );
        vwAddLine( &lines, s_white, "violations (m/s): Signorini %s   Coulomb %s   dissipation %s",
                   vwMeritText( r->violationSignorini, a, sizeof( a ) ),
                   vwMeritText( r->violationCoulomb, b, sizeof( b ) ),
                   vwMeritText( r->violationDissipation, c, sizeof( c ) ) );
        vwAddLine( &lines, s_white, "rows %d%s   own measure %s", r->solverRows,
                   r->solverFrictionless ? " (frictionless: normal rows only)" : "",
                   vwMeritText( r->solverOwnMeasure, a, sizeof( a ) ) );
        if ( r->solverFactorizations > 0 || r->solverKrylovIterations > 0 || r->solverFallbacks > 0 )
        {
            // the factorising solvers (pgs_sm, the Newton methods): their linear algebra this step
            vwAddLine( &lines, r->solverFallbacks > 0 ? s_warn : s_white,
                       "factorisations %d   Krylov iterations %d   free set %d rows   fallbacks %d",
                       r->solverFactorizations, r->solverKrylovIterations, r->solverFreeRows,
                       r->solverFallbacks );
        }
        if ( isfinite( r->recursionOverlap ) || r->contactRecursions > 0 )
        {
            // the ReLCP recursion (relcp, or the world's contact_recursions): what it added, what
            // overlap it left at the poses the step ends at
            bool left = ( r->warnings & cn_warnOverlapLeft ) != 0;
            vwAddLine( &lines, left ? s_warn : s_white,
                       "recursion: %d levels, %d rows added%s   overlap left %s m", r->contactRecursions,
                       r->recursionRows, r->recursionRefused > 0 ? " (some refused: no room)" : "",
                       vwMeritText( r->recursionOverlap, a, sizeof( a ) ) );
        }
        vwAddLine( &lines, s_white, "step %.2f ms: collide %.2f  solve %.2f  integrate %.2f  other %.2f",
                   r->stepMs, r->collideMs, r->solveMs, r->integrateMs, r->systemsMs + r->predictMs );
        for ( int p = 0; p < solver->paramCount; ++p )
        {
            const cnSolverParam* param = solver->params + p;
            double value = 0.0;
            char shown[64];
            cnWorld_GetSolverParam( app->worldId, param->name, &value );
            cnFormatSolverParam( param, value, shown, (int)sizeof( shown ) );
            bool selected = p == app->selectedParam;
            // a selected choice shows that Left/Right steps through names
            vwAddLine( &lines, selected ? s_accent : s_white, "%s %s\t%s%s%s", selected ? ">" : " ",
                       param->name, selected && param->type == cn_paramChoice ? "< " : "", shown,
                       selected && param->type == cn_paramChoice ? " >" : "" );
        }
        if ( app->selectedParam < solver->paramCount )
        {
            const char* description = solver->params[app->selectedParam].description;
            vwAddLine( &lines, s_dim, "  %.96s%s", description != NULL ? description : "",
                       description != NULL && strlen( description ) > 96 ? "..." : "" );
        }
        vwDrawLines( app, x, y, &lines );
    }

    // plots: the merit against iteration for the last step (per substep the main pass, then the
    // relax pass from where the main pass left), step times over the last seconds
    float plotWidth = 360.0f * s, plotHeight = 150.0f * s;
    float px = (float)app->width - plotWidth - 14.0f * s;
    static float mainMerits[VW_HISTORY_CAPACITY];
    static float relaxMerits[VW_HISTORY_CAPACITY];
    int relaxStarts[64];
    float marks[64];
    int passes = vwRelaxStarts( app, solver, relaxStarts, 64 );
    int relaxLength = passes > 0 ? app->report.relaxIterations / app->report.substeps + 1 : 0;
    for ( int i = 0, k = 0; i < app->residualCount; ++i )
    {
        k += k < passes && i >= relaxStarts[k] + relaxLength ? 1 : 0;
        bool relax = k < passes && i >= relaxStarts[k];
        mainMerits[i] = relax ? NAN : (float)app->residualHistory[i];
        relaxMerits[i] = relax ? (float)app->residualHistory[i] : NAN;
    }
    for ( int k = 0; k < passes; ++k )
    {
        marks[k] = (float)relaxStarts[k];
    }
    vwPlotSeries meritSeries[2] = {
        { mainMerits, app->residualCount, { 0.35f, 0.85f, 1.0f, 1.0f }, passes > 0 ? "main" : NULL },
        { relaxMerits,
          passes > 0 ? app->residualCount : 0,
          { 1.0f, 0.55f, 0.85f, 1.0f },
          passes > 0 ? "relax" : NULL },
    };
    char title[96];
    snprintf( title, sizeof( title ), "merit vs iteration (%s, last step)",
              solver != NULL ? solver->name : "-" );
    vwPlot residualPlot = { .x = px,
                            .y = 12.0f * s,
                            .width = plotWidth,
                            .height = plotHeight,
                            .title = title,
                            .xLabel = "iteration",
                            .logY = true,
                            .series = meritSeries,
                            .seriesCount = 2,
                            .marks = marks,
                            .markCount = passes };
    vwHudPlot( app->hud, &residualPlot );

    vwPlotSeries timeSeries[3] = {
        { app->stepTimes[0], app->stepTimeCount, { 1.0f, 1.0f, 1.0f, 1.0f }, "step" },
        { app->stepTimes[2], app->stepTimeCount, { 1.0f, 0.55f, 0.2f, 1.0f }, "solve" },
        { app->stepTimes[1], app->stepTimeCount, { 0.4f, 0.9f, 0.4f, 1.0f }, "collide" },
    };
    vwPlot timePlot = { .x = px,
                        .y = 24.0f * s + plotHeight,
                        .width = plotWidth,
                        .height = plotHeight,
                        .title = "step time, ms (last 10 s)",
                        .xLabel = "step",
                        .yMin = 0.0f,
                        .yMax = 0.0f,
                        .series = timeSeries,
                        .seriesCount = 3 };
    vwHudPlot( app->hud, &timePlot );

    if ( app->message[0] != '\0' && vwNowSeconds() - app->messageTime < VW_MESSAGE_SECONDS )
    {
        vwPanel( app, 12.0f * s, (float)app->height - 56.0f * s, app->message, s_accent );
    }
    if ( app->showHelp )
    {
        vwPanel( app, (float)app->width * 0.5f - 200.0f * s, 120.0f * s,
                 "mouse: left drag orbits, or drags a body on it with a spring\n"
                 "       right drag pans, wheel zooms\n"
                 "Space pause   N single step   R reset   T slow motion   W workers\n"
                 "B drop a body   C colour mode   L shadows   G hide the HUD   P screenshot\n"
                 "Tab next solver   1-9, 0, - solver by number   F friction cone/pyramid\n"
                 "Up/Down pick a parameter   Left/Right change it\n"
                 "K contacts   J normals   Y bounding boxes   H help   Esc quit",
                 s_white );
    }
    else
    {
        vwHudText( app->hud, 12.0f * s, (float)app->height - 20.0f * s, s_dim,
                   "H help   Space pause   Tab solver   C colour   B drop   R reset" );
    }
    vwHudEnd( app->hud );
}
