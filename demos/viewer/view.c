// SPDX-License-Identifier: MIT
// What the viewer draws: a view per body and shape (meshes shared between equal geometries),
// colours by body, island, rest, contact force, orientation or cell age, debug draw, and the HUD with its
// plots.
#include "app.h"

#include <GLFW/glfw3.h>
#include <cglm/cglm.h>

#include <math.h>
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
                // resting: what a sleep test would put to sleep (the engine has no sleep yet)
                double v = cnLength( arrays.linearVelocities[i] );
                double w = cnLength( arrays.angularVelocities[i] );
                bool resting = v < 0.05 && w < 0.1;
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
            instance->color[3] = 1.0f;
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

static const char* vwWarningText( uint32_t warnings, char* buffer, int size )
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
    return used > 0 ? buffer : "none";
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
    char text[2048];
    char warnings[256];
    int instances = 0;
    long long triangles = 0;
    vwRenderStats( app->renderer, &instances, &triangles );
    snprintf( text, sizeof( text ),
              "%s   t = %.2f s   step %lld%s%s\n"
              "bodies %d (%d dynamic)   contacts %d points in %d pairs\n"
              "max penetration %.2f mm   kinetic energy %.4g J\n"
              "warnings: %s\n"
              "frame %.1f ms (%.0f fps)   render %.1f ms   %d instances, %.1fk triangles",
              app->sceneName, r->time, (long long)r->stepIndex, app->paused ? "   PAUSED" : "",
              app->slowMotion ? "   SLOW x0.25" : "", r->bodyCount, r->dynamicCount, r->contactCount,
              r->manifoldCount, 1000.0 * r->maxPenetration, r->kineticEnergy,
              vwWarningText( r->warnings, warnings, (int)sizeof( warnings ) ), app->frameMsLast, fps,
              app->renderMsLast, instances, (double)triangles * 1e-3 );
    vwPanel( app, 12.0f * s, 12.0f * s, text, s_white );

    // solver panel: name, what the last solve did, the parameters (the selected one highlighted)
    const cnSolverVTable* solver = cnWorld_GetSolver( app->worldId );
    float x = 12.0f * s, y = 104.0f * s;
    if ( solver != NULL )
    {
        int number = 0;
        for ( int i = 0; i < cnGetSolverCount(); ++i )
        {
            number = cnGetSolverAt( i ) == solver ? i + 1 : number;
        }
        int used = snprintf( text, sizeof( text ),
                             "solver %s (%d of %d: Tab or 1-9)\n"
                             "iterations %d   residual %.3e   %s\n"
                             "rows %d%s\n"
                             "step %.2f ms: collide %.2f  solve %.2f  integrate %.2f  other %.2f\n",
                             solver->name, number, cnGetSolverCount(), r->solverIterations, r->solverResidual,
                             cnSolveStatusName( (cnSolveStatus)r->solverStatus ), r->solverRows,
                             r->solverFrictionless ? " (frictionless: normal rows only)" : "", r->stepMs,
                             r->collideMs, r->solveMs, r->integrateMs, r->systemsMs + r->predictMs );
        for ( int p = 0; p < solver->paramCount && used < (int)sizeof( text ) - 80; ++p )
        {
            double value = 0.0;
            cnWorld_GetSolverParam( app->worldId, solver->params[p].name, &value );
            used += snprintf( text + used, sizeof( text ) - (size_t)used, "%s %-20s %g\n",
                              p == app->selectedParam ? ">" : " ", solver->params[p].name, value );
        }
        vwPanel( app, x, y, text, s_white );
        // highlight the selected parameter's line in the accent colour
        float w, h;
        vwHudTextSize( app->hud, "A", &w, &h );
        (void)w;
        float lineHeight = h;
        char line[160];
        double value = 0.0;
        if ( app->selectedParam < solver->paramCount )
        {
            cnWorld_GetSolverParam( app->worldId, solver->params[app->selectedParam].name, &value );
            snprintf( line, sizeof( line ), "> %-20s %g", solver->params[app->selectedParam].name, value );
            vwHudText( app->hud, x, y + lineHeight * (float)( 4 + app->selectedParam ), s_accent, line );
        }
    }

    // plots: residual against iteration for the last step, step times over the last seconds
    float plotWidth = 360.0f * s, plotHeight = 150.0f * s;
    float px = (float)app->width - plotWidth - 14.0f * s;
    static float residuals[VW_HISTORY_CAPACITY];
    for ( int i = 0; i < app->residualCount; ++i )
    {
        residuals[i] = (float)app->residualHistory[i];
    }
    vwPlotSeries residualSeries = { residuals, app->residualCount, { 0.35f, 0.85f, 1.0f, 1.0f }, NULL };
    char title[96];
    snprintf( title, sizeof( title ), "residual vs iteration (%s, last step)",
              solver != NULL ? solver->name : "-" );
    vwPlot residualPlot = { .x = px,
                            .y = 12.0f * s,
                            .width = plotWidth,
                            .height = plotHeight,
                            .title = title,
                            .xLabel = "iteration",
                            .logY = true,
                            .series = &residualSeries,
                            .seriesCount = 1 };
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

    if ( app->message[0] != '\0' && vwNowSeconds() - app->messageTime < 4.0 )
    {
        vwPanel( app, 12.0f * s, (float)app->height - 56.0f * s, app->message, s_accent );
    }
    if ( app->showHelp )
    {
        vwPanel( app, (float)app->width * 0.5f - 200.0f * s, 120.0f * s,
                 "mouse: left drag orbits, or drags a body on it with a spring\n"
                 "       right drag pans, wheel zooms\n"
                 "Space pause   N single step   R reset   T slow motion\n"
                 "B drop a body   C colour mode   L shadows   G hide the HUD   P screenshot\n"
                 "Tab next solver   1-9 solver by number\n"
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
