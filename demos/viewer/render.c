// SPDX-License-Identifier: MIT
// The 3-D renderer. A frame is built from queues filled by vwDrawInstances / vwDrawPlane /
// vwDrawLine and drawn by vwRenderFrame in passes:
//
// 1. instances: each queued instance is culled (its mesh's bounding sphere against the view's
//    frustum and the shadow map's box) and given a level of detail for each pass: detailed meshes
//    get simplified copies when added (vertex clustering), and an instance is drawn with the
//    coarsest copy that strays about a pixel at most from the mesh at its size on screen (or in the
//    shadow map). Per level, the instance buffer (orphaned every frame) holds the opaque instances
//    in view front to back, the see-through ones back to front, then the shadow casters.
// 2. shadow map: the casters (also those out of view: they cast into it) as seen from the light,
//    an orthographic box around the scene sphere, depth clamped so casters between the light and
//    the box still count; snapped to whole texels so that still scenes do not shimmer.
// 3. the view: opaque shapes, planes (a large square with a procedural grid), the sky (one
//    triangle at the far plane, shaded only where nothing else was drawn), see-through shapes
//    (blended, no depth writes), depth-tested lines, overlay lines. Opaque things go first and
//    front to back because a software renderer (llvmpipe) then shades each pixel about once.
//
// The shaders are in assets/shaders; sky_common.glsl holds what the sky, mesh and grid fragment
// shaders share (sky, lights, shadow lookup, fog, gamma) and is spliced in after their #version.
// Shadowed and unshadowed variants of the mesh and grid programs are built (VW_SHADOWS), as a
// software renderer pays for texture lookups even behind a branch that skips them.
//
// GL state: vwRenderFrame draws into the framebuffer bound when it is called and sets what it
// needs. It turns off the scissor test and GL_FRAMEBUFFER_SRGB (its shaders encode gamma), and
// leaves, for a 2-D overlay: viewport (0, 0, width, height), depth test and face culling off,
// depth writes on, blending on with (SRC_ALPHA, ONE_MINUS_SRC_ALPHA), no program or vertex array
// bound, texture unit 0 active (the shadow map stays bound to unit 1).
#include "render.h"

#include "gl_program.h"
#include "vw_shaders.h"

#include <cglm/cglm.h>
#include <glad/gl.h>

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VW_SHADOW_SIZE 2048
// texture unit of the shadow map (unit 0 stays free for the HUD's font)
#define VW_SHADOW_UNIT 1
// Levels of detail: meshes of VW_LEVEL_MIN_TRIANGLES or more get up to VW_LEVEL_COUNT - 1
// simplified copies, each with at most 60% of the triangles of the one before, and each knows how
// far it strays from the mesh. The view draws the coarsest that strays at most VW_ERROR_PIXELS on
// screen. A shape in view casts its shadow with the copy it is drawn with (another copy, finer or
// coarser, would stick out of it here and there and shadow it in specks); casters out of view may
// stray VW_HIDDEN_ERROR_TEXELS in the shadow map.
#define VW_LEVEL_COUNT         6
#define VW_LEVEL_MIN_TRIANGLES 64
#define VW_ERROR_PIXELS        0.75f
#define VW_HIDDEN_ERROR_TEXELS 1.5f

enum
{
    vwAttribPosition = 0,
    vwAttribNormal = 1,
    vwAttribInstancePosition = 2,
    vwAttribInstanceRotation = 3,
    vwAttribInstanceScale = 4,
    vwAttribInstanceColor = 5,
    vwAttribLineColor = 1,
};

/// A linked program and the locations of the uniforms the renderer sets (-1 when the program
/// does not use one: glUniform ignores those).
typedef struct vwProgram
{
    GLuint id;
    GLint viewProjection;
    GLint shadowMatrix;
    GLint shadowNormalOffset;
    GLint lightViewProjection;
    GLint up;
    GLint lightDirection;
    GLint eye;
    GLint fog;
    GLint shadowMap;
    GLint shadowTexel;
    GLint cameraToWorld;
    GLint projection;
    GLint orthographic;
    GLint origin;
    GLint axisU;
    GLint axisV;
    GLint normal;
    GLint halfSize;
} vwProgram;

/// One level of detail of a mesh, with this frame's instances: its instance buffer holds three
/// segments, opaque and see-through instances in view, then shadow casters.
typedef struct vwMeshLevel
{
    GLuint vertexArray;
    GLuint vertexBuffer;
    GLuint indexBuffer;
    GLuint instanceBuffer;
    GLsizei indexCount;
    int instanceCapacity; ///< of instanceBuffer
    float error;          ///< how far the level strays from the mesh at most, mesh units

    int opaqueCount;
    int transparentCount;
    int casterCount;
} vwMeshLevel;

typedef struct vwGpuMesh
{
    vwMeshLevel levels[VW_LEVEL_COUNT]; ///< 0 as given, then coarser and coarser
    int levelCount;
    float radius; ///< bounding sphere about the mesh origin

    vwInstance* queue; ///< this frame's instances
    int queueCount;
    int queueCapacity;
} vwGpuMesh;

typedef struct vwPlaneDraw
{
    float normal[3];
    float offset;
    float focus[3];
} vwPlaneDraw;

typedef struct vwLineVertex
{
    float position[3];
    float color[4];
} vwLineVertex;

typedef struct vwLineQueue
{
    vwLineVertex* vertices;
    int count;
    int capacity;
} vwLineQueue;

struct vwRenderer
{
    vwProgram meshPrograms[2]; ///< without, with shadows
    vwProgram shadowProgram;
    vwProgram gridPrograms[2];
    vwProgram lineProgram;
    vwProgram skyProgram;

    vwGpuMesh* meshes;
    int meshCount;
    int meshCapacity;

    vwPlaneDraw* planes;
    int planeCount;
    int planeCapacity;

    vwLineQueue lines[2]; ///< depth tested, overlay
    GLuint lineArray;
    GLuint lineBuffer;
    int lineCapacity; ///< vertices in lineBuffer

    GLuint emptyArray; ///< for the sky and planes, whose vertices come from gl_VertexID
    GLuint shadowFramebuffer;
    GLuint shadowTexture;

    vwInstance* scratch; ///< instances being ordered before upload
    int scratchCapacity;
    signed char* choices; ///< per instance: level in view (-1: out of view), level as a caster
    int choiceCapacity;
    float* depths; ///< per instance: distance along the view direction
    int depthCapacity;
    int* order; ///< instances front to back
    int orderCapacity;

    int statInstances;
    long long statTriangles;
};

/// `data` (holding `*capacity` items of `size` bytes) grown to hold at least `needed`: the block,
/// maybe moved, or NULL when out of memory (then `data` is still valid and unchanged).
static void* vwGrow( void* data, int* capacity, int needed, size_t size )
{
    if ( needed <= *capacity )
    {
        return data;
    }
    int grown = *capacity > 0 ? *capacity : 16;
    while ( grown < needed )
    {
        grown = grown > 0x3fffffff ? needed : 2 * grown;
    }
    void* moved = realloc( data, (size_t)grown * size );
    if ( moved != NULL )
    {
        *capacity = grown;
    }
    return moved;
}

// ----------------------------------------------------------------------------------------------
// shaders

/// Build a program from its two shaders and look up its uniforms; false (log on stderr) on failure.
/// With `common`, the fragment shader gets sky_common.glsl; `shadows` defines VW_SHADOWS 0 or 1
/// in both shaders (a branch on a uniform would cost the lookups anyway on software renderers).
static bool vwBuildProgram( vwProgram* program, const char* name, const char* vertexSource,
                            const char* fragmentSource, bool common, bool shadows )
{
    *program = ( vwProgram ){ 0 };
    const char* variant = shadows ? " [VW_SHADOWS 1]" : "";
    const char* defines = shadows ? "#define VW_SHADOWS 1\n" : "#define VW_SHADOWS 0\n";
    char label[64];
    snprintf( label, sizeof( label ), "%s%s", name, variant );
    GLuint id =
        vwLinkProgram( label, vertexSource, fragmentSource, defines, common ? vw_shader_sky_common : NULL );
    if ( id == 0 )
    {
        return false;
    }

    program->id = id;
    program->viewProjection = glGetUniformLocation( id, "uViewProjection" );
    program->shadowMatrix = glGetUniformLocation( id, "uShadowMatrix" );
    program->shadowNormalOffset = glGetUniformLocation( id, "uShadowNormalOffset" );
    program->lightViewProjection = glGetUniformLocation( id, "uLightViewProjection" );
    program->up = glGetUniformLocation( id, "uUp" );
    program->lightDirection = glGetUniformLocation( id, "uLightDirection" );
    program->eye = glGetUniformLocation( id, "uEye" );
    program->fog = glGetUniformLocation( id, "uFog" );
    program->shadowMap = glGetUniformLocation( id, "uShadowMap" );
    program->shadowTexel = glGetUniformLocation( id, "uShadowTexel" );
    program->cameraToWorld = glGetUniformLocation( id, "uCameraToWorld" );
    program->projection = glGetUniformLocation( id, "uProjection" );
    program->orthographic = glGetUniformLocation( id, "uOrthographic" );
    program->origin = glGetUniformLocation( id, "uOrigin" );
    program->axisU = glGetUniformLocation( id, "uAxisU" );
    program->axisV = glGetUniformLocation( id, "uAxisV" );
    program->normal = glGetUniformLocation( id, "uNormal" );
    program->halfSize = glGetUniformLocation( id, "uHalfSize" );

    // samplers are fixed for the program's life
    if ( program->shadowMap >= 0 )
    {
        glUseProgram( id );
        glUniform1i( program->shadowMap, VW_SHADOW_UNIT );
        glUseProgram( 0 );
    }
    return true;
}

// ----------------------------------------------------------------------------------------------
// lifetime

vwRenderer* vwCreateRenderer( void )
{
    vwRenderer* renderer = calloc( 1, sizeof( vwRenderer ) );
    if ( renderer == NULL )
    {
        fprintf( stderr, "cairn-viewer: out of memory creating the renderer\n" );
        return NULL;
    }

    bool ok = true;
    for ( int shadows = 0; shadows < 2; ++shadows )
    {
        ok = ok && vwBuildProgram( renderer->meshPrograms + shadows, "mesh", vw_shader_mesh_vs,
                                   vw_shader_mesh_fs, true, shadows != 0 );
        ok = ok && vwBuildProgram( renderer->gridPrograms + shadows, "grid", vw_shader_grid_vs,
                                   vw_shader_grid_fs, true, shadows != 0 );
    }
    ok = ok && vwBuildProgram( &renderer->shadowProgram, "shadow", vw_shader_shadow_vs, vw_shader_shadow_fs,
                               false, false );
    ok = ok &&
         vwBuildProgram( &renderer->lineProgram, "line", vw_shader_line_vs, vw_shader_line_fs, false, false );
    ok =
        ok && vwBuildProgram( &renderer->skyProgram, "sky", vw_shader_sky_vs, vw_shader_sky_fs, true, false );
    if ( !ok )
    {
        vwDestroyRenderer( renderer );
        return NULL;
    }

    glGenVertexArrays( 1, &renderer->emptyArray );

    // lines: one buffer, depth-tested lines first, then the overlay
    glGenVertexArrays( 1, &renderer->lineArray );
    glGenBuffers( 1, &renderer->lineBuffer );
    glBindVertexArray( renderer->lineArray );
    glBindBuffer( GL_ARRAY_BUFFER, renderer->lineBuffer );
    glEnableVertexAttribArray( vwAttribPosition );
    glVertexAttribPointer( vwAttribPosition, 3, GL_FLOAT, GL_FALSE, sizeof( vwLineVertex ),
                           (const void*)offsetof( vwLineVertex, position ) );
    glEnableVertexAttribArray( vwAttribLineColor );
    glVertexAttribPointer( vwAttribLineColor, 4, GL_FLOAT, GL_FALSE, sizeof( vwLineVertex ),
                           (const void*)offsetof( vwLineVertex, color ) );
    glBindVertexArray( 0 );
    glBindBuffer( GL_ARRAY_BUFFER, 0 );

    // shadow map: depth with hardware comparison (sampler2DShadow); outside it is lit
    glGenTextures( 1, &renderer->shadowTexture );
    glActiveTexture( GL_TEXTURE0 + VW_SHADOW_UNIT );
    glBindTexture( GL_TEXTURE_2D, renderer->shadowTexture );
    glTexImage2D( GL_TEXTURE_2D, 0, GL_DEPTH_COMPONENT24, VW_SHADOW_SIZE, VW_SHADOW_SIZE, 0,
                  GL_DEPTH_COMPONENT, GL_UNSIGNED_INT, NULL );
    glTexParameteri( GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR );
    glTexParameteri( GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR );
    glTexParameteri( GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_BORDER );
    glTexParameteri( GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_BORDER );
    const float border[4] = { 1.0f, 1.0f, 1.0f, 1.0f };
    glTexParameterfv( GL_TEXTURE_2D, GL_TEXTURE_BORDER_COLOR, border );
    glTexParameteri( GL_TEXTURE_2D, GL_TEXTURE_COMPARE_MODE, GL_COMPARE_REF_TO_TEXTURE );
    glTexParameteri( GL_TEXTURE_2D, GL_TEXTURE_COMPARE_FUNC, GL_LEQUAL );
    glActiveTexture( GL_TEXTURE0 );

    GLint previous = 0;
    glGetIntegerv( GL_DRAW_FRAMEBUFFER_BINDING, &previous );
    glGenFramebuffers( 1, &renderer->shadowFramebuffer );
    glBindFramebuffer( GL_FRAMEBUFFER, renderer->shadowFramebuffer );
    glFramebufferTexture2D( GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_TEXTURE_2D, renderer->shadowTexture, 0 );
    glDrawBuffer( GL_NONE );
    glReadBuffer( GL_NONE );
    GLenum status = glCheckFramebufferStatus( GL_FRAMEBUFFER );
    glBindFramebuffer( GL_FRAMEBUFFER, (GLuint)previous );
    if ( status != GL_FRAMEBUFFER_COMPLETE )
    {
        fprintf( stderr, "cairn-viewer: the shadow map framebuffer is incomplete (0x%x)\n", status );
        vwDestroyRenderer( renderer );
        return NULL;
    }
    return renderer;
}

void vwDestroyRenderer( vwRenderer* renderer )
{
    if ( renderer == NULL )
    {
        return;
    }
    for ( int i = 0; i < renderer->meshCount; ++i )
    {
        vwGpuMesh* mesh = renderer->meshes + i;
        for ( int k = 0; k < mesh->levelCount; ++k )
        {
            vwMeshLevel* level = mesh->levels + k;
            glDeleteVertexArrays( 1, &level->vertexArray );
            glDeleteBuffers( 1, &level->vertexBuffer );
            glDeleteBuffers( 1, &level->indexBuffer );
            glDeleteBuffers( 1, &level->instanceBuffer );
        }
        free( mesh->queue );
    }
    free( renderer->meshes );
    free( renderer->planes );
    free( renderer->lines[0].vertices );
    free( renderer->lines[1].vertices );
    free( renderer->scratch );
    free( renderer->choices );
    free( renderer->depths );
    free( renderer->order );

    // deleting name 0 is silently ignored, so a half-built renderer goes the same way
    glDeleteVertexArrays( 1, &renderer->lineArray );
    glDeleteBuffers( 1, &renderer->lineBuffer );
    glDeleteVertexArrays( 1, &renderer->emptyArray );
    glDeleteFramebuffers( 1, &renderer->shadowFramebuffer );
    glDeleteTextures( 1, &renderer->shadowTexture );
    for ( int shadows = 0; shadows < 2; ++shadows )
    {
        glDeleteProgram( renderer->meshPrograms[shadows].id );
        glDeleteProgram( renderer->gridPrograms[shadows].id );
    }
    glDeleteProgram( renderer->shadowProgram.id );
    glDeleteProgram( renderer->lineProgram.id );
    glDeleteProgram( renderer->skyProgram.id );
    free( renderer );
}

// ----------------------------------------------------------------------------------------------
// queues

/// The side of a square with a mesh's mean triangle area (0 without triangles): how large its
/// triangles are, whatever their shape (a cylinder's sides are long and thin).
static float vwTriangleSize( const vwMesh* mesh )
{
    double area = 0.0;
    for ( int t = 0; t + 2 < mesh->indexCount; t += 3 )
    {
        const float* a = mesh->vertices[mesh->indices[t]].position;
        const float* b = mesh->vertices[mesh->indices[t + 1]].position;
        const float* c = mesh->vertices[mesh->indices[t + 2]].position;
        vec3 u = { b[0] - a[0], b[1] - a[1], b[2] - a[2] };
        vec3 w = { c[0] - a[0], c[1] - a[1], c[2] - a[2] };
        vec3 n = { 0.0f, 0.0f, 0.0f };
        glm_vec3_cross( u, w, n );
        area += 0.5 * (double)glm_vec3_norm( n );
    }
    int triangles = mesh->indexCount / 3;
    return triangles > 0 ? (float)sqrt( area / triangles ) : 0.0f;
}

typedef struct vwClusterKey
{
    uint64_t key; ///< grid cell
    int vertex;
} vwClusterKey;

static int vwCompareClusterKeys( const void* a, const void* b )
{
    const vwClusterKey* x = a;
    const vwClusterKey* y = b;
    if ( x->key != y->key )
    {
        return x->key < y->key ? -1 : 1;
    }
    return x->vertex - y->vertex;
}

typedef struct vwPositionKey
{
    float position[3];
    int vertex;
} vwPositionKey;

static int vwComparePositions( const void* a, const void* b )
{
    const vwPositionKey* x = a;
    const vwPositionKey* y = b;
    for ( int k = 0; k < 3; ++k )
    {
        if ( x->position[k] != y->position[k] )
        {
            return x->position[k] < y->position[k] ? -1 : 1;
        }
    }
    return x->vertex - y->vertex;
}

/// Vertices at one position with different normals make a sharp edge (box, hull, cylinder rim).
/// Returns the cosine above which two normals may merge when the mesh is simplified: halfway
/// from the mildest sharp edge to 1, or -1 (all merge) for a smooth mesh.
static float vwSmoothLimit( const vwMesh* mesh )
{
    int count = mesh->vertexCount;
    vwPositionKey* keys = count > 0 ? malloc( (size_t)count * sizeof( vwPositionKey ) ) : NULL;
    if ( keys == NULL )
    {
        return 0.5f;
    }
    for ( int i = 0; i < count; ++i )
    {
        memcpy( keys[i].position, mesh->vertices[i].position, sizeof( keys[i].position ) );
        keys[i].vertex = i;
    }
    qsort( keys, (size_t)count, sizeof( vwPositionKey ), vwComparePositions );

    // the largest cosine between normals at one point that still differ (a seam of equal
    // normals, as on a sphere's meridian, is no edge)
    float mildest = -2.0f;
    for ( int first = 0; first < count; )
    {
        int last = first + 1;
        while ( last < count && memcmp( keys[last].position, keys[first].position, sizeof( float[3] ) ) == 0 )
        {
            ++last;
        }
        for ( int i = first; i < last; ++i )
        {
            for ( int j = i + 1; j < last; ++j )
            {
                const float* a = mesh->vertices[keys[i].vertex].normal;
                const float* b = mesh->vertices[keys[j].vertex].normal;
                float cosine = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
                mildest = cosine < 0.99f ? fmaxf( mildest, cosine ) : mildest;
            }
        }
        first = last;
    }
    free( keys );
    return mildest > -2.0f ? 0.5f * ( 1.0f + mildest ) : -1.0f;
}

/// Distance from p to the triangle abc (Ericson, Real-Time Collision Detection, 5.1.5).
static float vwPointTriangleDistance( const vec3 p, const float a[3], const float b[3], const float c[3] )
{
    vec3 ab = { b[0] - a[0], b[1] - a[1], b[2] - a[2] };
    vec3 ac = { c[0] - a[0], c[1] - a[1], c[2] - a[2] };
    vec3 ap = { p[0] - a[0], p[1] - a[1], p[2] - a[2] };
    vec3 bp = { p[0] - b[0], p[1] - b[1], p[2] - b[2] };
    vec3 cp = { p[0] - c[0], p[1] - c[1], p[2] - c[2] };
    float d1 = glm_vec3_dot( ab, ap );
    float d2 = glm_vec3_dot( ac, ap );
    float d3 = glm_vec3_dot( ab, bp );
    float d4 = glm_vec3_dot( ac, bp );
    float d5 = glm_vec3_dot( ab, cp );
    float d6 = glm_vec3_dot( ac, cp );
    float va = d3 * d6 - d5 * d4;
    float vb = d5 * d2 - d1 * d6;
    float vc = d1 * d4 - d3 * d2;

    // the closest point is a + s ab + t ac
    float s = 0.0f;
    float t = 0.0f;
    if ( d1 <= 0.0f && d2 <= 0.0f )
    {
        // vertex a
    }
    else if ( d3 >= 0.0f && d4 <= d3 )
    {
        s = 1.0f;
    }
    else if ( d6 >= 0.0f && d5 <= d6 )
    {
        t = 1.0f;
    }
    else if ( vc <= 0.0f && d1 >= 0.0f && d3 <= 0.0f )
    {
        s = d1 / ( d1 - d3 );
    }
    else if ( vb <= 0.0f && d2 >= 0.0f && d6 <= 0.0f )
    {
        t = d2 / ( d2 - d6 );
    }
    else if ( va <= 0.0f && d4 - d3 >= 0.0f && d5 - d6 >= 0.0f )
    {
        t = ( d4 - d3 ) / ( ( d4 - d3 ) + ( d5 - d6 ) );
        s = 1.0f - t;
    }
    else
    {
        float sum = va + vb + vc;
        s = sum != 0.0f ? vb / sum : 0.0f;
        t = sum != 0.0f ? vc / sum : 0.0f;
    }
    vec3 q = { 0.0f, 0.0f, 0.0f };
    for ( int k = 0; k < 3; ++k )
    {
        q[k] = a[k] + s * ab[k] + t * ac[k] - p[k];
    }
    return glm_vec3_norm( q );
}

/// A coarser copy of a mesh by vertex clustering (Lindstrom, "Out-of-core simplification of large
/// polygonal models", 2000) on a grid of `cell`-sized cubes centred on the mesh. All vertices of a
/// cell move to one point, the one nearest (in least squares) to the planes of the triangles
/// around them, so corners stay corners and curved surfaces keep their size. Vertices of a cell
/// merge when their normals' cosine exceeds `smooth` (vwSmoothLimit: those across a sharp edge do
/// not, so flat faces stay flat), and triangles that lose a corner go. Free out's arrays with
/// free(). `error` receives how far the mesh's vertices are from the copy's surface at most (from
/// the copy's triangles around their cell). false (and an empty copy) when out of memory or when
/// nothing is left.
static bool vwClusterMesh( const vwMesh* mesh, float cell, float smooth, vwMesh* out, float* error )
{
    *out = ( vwMesh ){ 0 };
    int vertexCount = mesh->vertexCount;
    if ( vertexCount <= 0 || mesh->indexCount < 3 || !( cell > 0.0f ) )
    {
        return false;
    }

    // the grid: cells on both sides of the bounding box's centre, as many each way
    float lower[3] = { INFINITY, INFINITY, INFINITY };
    float upper[3] = { -INFINITY, -INFINITY, -INFINITY };
    for ( int i = 0; i < vertexCount; ++i )
    {
        for ( int k = 0; k < 3; ++k )
        {
            lower[k] = fminf( lower[k], mesh->vertices[i].position[k] );
            upper[k] = fmaxf( upper[k], mesh->vertices[i].position[k] );
        }
    }
    float origin[3] = { 0 };
    for ( int k = 0; k < 3; ++k )
    {
        float half = 0.5f * ( upper[k] - lower[k] );
        origin[k] = 0.5f * ( upper[k] + lower[k] ) - cell * ceilf( half / cell + 0.5f ) + 0.5f * cell;
    }

    vwClusterKey* keys = malloc( (size_t)vertexCount * sizeof( vwClusterKey ) );
    int* cellOf = malloc( (size_t)vertexCount * sizeof( int ) );
    int* remap = malloc( (size_t)vertexCount * sizeof( int ) );
    // per cell: quadric (xx, xy, xz, yy, yz, zz), linear term (3), vertex sum (3), vertex count
    double* quadrics = calloc( (size_t)vertexCount * 13, sizeof( double ) );
    float* points = malloc( (size_t)vertexCount * 3 * sizeof( float ) );
    int* seeds = malloc( (size_t)vertexCount * sizeof( int ) ); ///< per cluster: its first vertex
    int* cellOfOut = malloc( (size_t)vertexCount * sizeof( int ) );
    out->vertices = malloc( (size_t)vertexCount * sizeof( vwVertex ) );
    out->indices = malloc( (size_t)mesh->indexCount * sizeof( uint32_t ) );
    if ( keys == NULL || cellOf == NULL || remap == NULL || quadrics == NULL || points == NULL ||
         seeds == NULL || cellOfOut == NULL || out->vertices == NULL || out->indices == NULL )
    {
        free( seeds );
        free( cellOfOut );
        free( keys );
        free( cellOf );
        free( remap );
        free( quadrics );
        free( points );
        free( out->vertices );
        free( out->indices );
        *out = ( vwMesh ){ 0 };
        return false;
    }

    for ( int i = 0; i < vertexCount; ++i )
    {
        const vwVertex* v = mesh->vertices + i;
        uint64_t key = 0;
        for ( int k = 2; k >= 0; --k )
        {
            // 20 bits per axis: a million cells along a side is beyond any useful level
            float c = floorf( ( v->position[k] - origin[k] ) / cell );
            key = ( key << 20 ) | (uint64_t)( c > 0.0f ? fminf( c, 1048575.0f ) : 0.0f );
        }
        keys[i] = ( vwClusterKey ){ key, i };
    }
    qsort( keys, (size_t)vertexCount, sizeof( vwClusterKey ), vwCompareClusterKeys );

    // cells are runs of equal keys
    int cellCount = 0;
    for ( int i = 0; i < vertexCount; ++i )
    {
        if ( i > 0 && keys[i].key != keys[i - 1].key )
        {
            cellCount += 1;
        }
        int vertex = keys[i].vertex;
        cellOf[vertex] = cellCount;
        double* q = quadrics + 13 * cellCount;
        for ( int k = 0; k < 3; ++k )
        {
            q[9 + k] += (double)mesh->vertices[vertex].position[k];
        }
        q[12] += 1.0;
    }
    cellCount += 1;

    // each triangle's plane, weighted by its area, goes to the cells of its corners
    for ( int t = 0; t + 2 < mesh->indexCount; t += 3 )
    {
        double a[3] = { 0 };
        double u[3] = { 0 };
        double w[3] = { 0 };
        for ( int k = 0; k < 3; ++k )
        {
            a[k] = (double)mesh->vertices[mesh->indices[t]].position[k];
            u[k] = (double)mesh->vertices[mesh->indices[t + 1]].position[k] - a[k];
            w[k] = (double)mesh->vertices[mesh->indices[t + 2]].position[k] - a[k];
        }
        double n[3] = { u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0] };
        double twiceArea = sqrt( n[0] * n[0] + n[1] * n[1] + n[2] * n[2] );
        if ( twiceArea <= 0.0 )
        {
            continue;
        }
        for ( int k = 0; k < 3; ++k )
        {
            n[k] /= twiceArea;
        }
        double d = -( n[0] * a[0] + n[1] * a[1] + n[2] * a[2] );
        double weight = 0.5 * twiceArea;
        for ( int corner = 0; corner < 3; ++corner )
        {
            double* q = quadrics + 13 * cellOf[mesh->indices[t + corner]];
            q[0] += weight * n[0] * n[0];
            q[1] += weight * n[0] * n[1];
            q[2] += weight * n[0] * n[2];
            q[3] += weight * n[1] * n[1];
            q[4] += weight * n[1] * n[2];
            q[5] += weight * n[2] * n[2];
            q[6] += weight * d * n[0];
            q[7] += weight * d * n[1];
            q[8] += weight * d * n[2];
        }
    }

    // each cell's point: (A + l I) x = -b + l mean, a little pull to the mean where the planes
    // leave it free (flat or ridge-like cells); kept within a cell of the cell's mean
    for ( int c = 0; c < cellCount; ++c )
    {
        const double* q = quadrics + 13 * c;
        double mean[3] = { q[9] / q[12], q[10] / q[12], q[11] / q[12] };
        double l = 1e-3 * ( q[0] + q[3] + q[5] ) + 1e-12;
        double m[3][3] = { { q[0] + l, q[1], q[2] }, { q[1], q[3] + l, q[4] }, { q[2], q[4], q[5] + l } };
        const double r[3] = { -q[6] + l * mean[0], -q[7] + l * mean[1], -q[8] + l * mean[2] };
        double det = m[0][0] * ( m[1][1] * m[2][2] - m[1][2] * m[2][1] ) -
                     m[0][1] * ( m[1][0] * m[2][2] - m[1][2] * m[2][0] ) +
                     m[0][2] * ( m[1][0] * m[2][1] - m[1][1] * m[2][0] );
        double x[3] = { mean[0], mean[1], mean[2] };
        if ( fabs( det ) > 1e-30 )
        {
            // Cramer's rule
            for ( int k = 0; k < 3; ++k )
            {
                double s[3][3] = { { 0 } };
                memcpy( s, m, sizeof( s ) );
                s[0][k] = r[0];
                s[1][k] = r[1];
                s[2][k] = r[2];
                x[k] = ( s[0][0] * ( s[1][1] * s[2][2] - s[1][2] * s[2][1] ) -
                         s[0][1] * ( s[1][0] * s[2][2] - s[1][2] * s[2][0] ) +
                         s[0][2] * ( s[1][0] * s[2][1] - s[1][1] * s[2][0] ) ) /
                       det;
            }
        }
        for ( int k = 0; k < 3; ++k )
        {
            double lowest = mean[k] - (double)cell;
            double highest = mean[k] + (double)cell;
            x[k] = x[k] < lowest ? lowest : x[k] > highest ? highest : x[k];
        }
        points[3 * c] = (float)x[0];
        points[3 * c + 1] = (float)x[1];
        points[3 * c + 2] = (float)x[2];
    }

    // clusters: in each cell, a vertex joins the cluster whose first normal is most like its own,
    // if like enough, else starts one; a cluster's normal is the mean of its vertices'
    for ( int first = 0; first < vertexCount; )
    {
        int last = first + 1;
        while ( last < vertexCount && keys[last].key == keys[first].key )
        {
            ++last;
        }
        int cellStart = out->vertexCount;
        for ( int i = first; i < last; ++i )
        {
            const vwVertex* v = mesh->vertices + keys[i].vertex;
            int best = -1;
            float bestCosine = smooth;
            for ( int j = cellStart; j < out->vertexCount; ++j )
            {
                const float* seed = mesh->vertices[seeds[j]].normal;
                float cosine = seed[0] * v->normal[0] + seed[1] * v->normal[1] + seed[2] * v->normal[2];
                if ( cosine > bestCosine )
                {
                    best = j;
                    bestCosine = cosine;
                }
            }
            if ( best < 0 )
            {
                best = out->vertexCount++;
                seeds[best] = keys[i].vertex;
                cellOfOut[best] = cellOf[keys[i].vertex];
                memcpy( out->vertices[best].position, points + 3 * cellOf[keys[i].vertex],
                        sizeof( float[3] ) );
                memset( out->vertices[best].normal, 0, sizeof( float[3] ) );
            }
            for ( int k = 0; k < 3; ++k )
            {
                out->vertices[best].normal[k] += v->normal[k];
            }
            remap[keys[i].vertex] = best;
        }
        for ( int j = cellStart; j < out->vertexCount; ++j )
        {
            float* n = out->vertices[j].normal;
            float length = sqrtf( n[0] * n[0] + n[1] * n[1] + n[2] * n[2] );
            const float* seed = mesh->vertices[seeds[j]].normal;
            for ( int k = 0; k < 3; ++k )
            {
                n[k] = length > 1e-6f ? n[k] / length : seed[k];
            }
        }
        first = last;
    }

    for ( int t = 0; t + 2 < mesh->indexCount; t += 3 )
    {
        int a = (int)mesh->indices[t];
        int b = (int)mesh->indices[t + 1];
        int c = (int)mesh->indices[t + 2];
        // corners in one cell collapse the triangle (split normals keep their indices apart)
        if ( cellOf[a] == cellOf[b] || cellOf[b] == cellOf[c] || cellOf[c] == cellOf[a] )
        {
            continue;
        }
        out->indices[out->indexCount++] = (uint32_t)remap[a];
        out->indices[out->indexCount++] = (uint32_t)remap[b];
        out->indices[out->indexCount++] = (uint32_t)remap[c];
    }

    // the error: each vertex against the copy's triangles that touch its cell (or the cell's
    // point, when none does)
    int triangleCount = out->indexCount / 3;
    int* lists = malloc( (size_t)( 3 * triangleCount + 1 ) * sizeof( int ) );
    int* starts = calloc( (size_t)( cellCount + 1 ), sizeof( int ) );
    float worst = INFINITY;
    if ( lists != NULL && starts != NULL )
    {
        for ( int i = 0; i < out->indexCount; ++i )
        {
            starts[cellOfOut[out->indices[i]] + 1] += 1;
        }
        for ( int c = 0; c < cellCount; ++c )
        {
            starts[c + 1] += starts[c];
        }
        for ( int i = 0; i < out->indexCount; ++i )
        {
            lists[starts[cellOfOut[out->indices[i]]]++] = i / 3;
        }
        for ( int c = cellCount; c > 0; --c )
        {
            starts[c] = starts[c - 1];
        }
        starts[0] = 0;

        worst = 0.0f;
        for ( int v = 0; v < vertexCount; ++v )
        {
            int c = cellOf[v];
            vec3 p = { mesh->vertices[v].position[0], mesh->vertices[v].position[1],
                       mesh->vertices[v].position[2] };
            float nearest = glm_vec3_distance( p, points + 3 * c );
            for ( int j = starts[c]; j < starts[c + 1]; ++j )
            {
                const uint32_t* corner = out->indices + 3 * lists[j];
                float d = vwPointTriangleDistance( p, out->vertices[corner[0]].position,
                                                   out->vertices[corner[1]].position,
                                                   out->vertices[corner[2]].position );
                nearest = fminf( nearest, d );
            }
            worst = fmaxf( worst, nearest );
        }
    }
    free( lists );
    free( starts );
    *error = worst;

    free( keys );
    free( cellOf );
    free( cellOfOut );
    free( remap );
    free( quadrics );
    free( points );
    free( seeds );
    if ( out->indexCount == 0 )
    {
        free( out->vertices );
        free( out->indices );
        *out = ( vwMesh ){ 0 };
        return false;
    }
    return true;
}

/// Upload one level's vertices and indices and set up its vertex array.
static void vwUploadLevel( vwMeshLevel* level, const vwMesh* mesh, float error )
{
    *level = ( vwMeshLevel ){ 0 };
    level->indexCount = mesh->indexCount;
    level->error = error;

    glGenVertexArrays( 1, &level->vertexArray );
    glGenBuffers( 1, &level->vertexBuffer );
    glGenBuffers( 1, &level->indexBuffer );
    glGenBuffers( 1, &level->instanceBuffer );

    glBindVertexArray( level->vertexArray );
    glBindBuffer( GL_ARRAY_BUFFER, level->vertexBuffer );
    glBufferData( GL_ARRAY_BUFFER, (GLsizeiptr)( (size_t)mesh->vertexCount * sizeof( vwVertex ) ),
                  mesh->vertices, GL_STATIC_DRAW );
    glEnableVertexAttribArray( vwAttribPosition );
    glVertexAttribPointer( vwAttribPosition, 3, GL_FLOAT, GL_FALSE, sizeof( vwVertex ),
                           (const void*)offsetof( vwVertex, position ) );
    glEnableVertexAttribArray( vwAttribNormal );
    glVertexAttribPointer( vwAttribNormal, 3, GL_FLOAT, GL_FALSE, sizeof( vwVertex ),
                           (const void*)offsetof( vwVertex, normal ) );

    glBindBuffer( GL_ELEMENT_ARRAY_BUFFER, level->indexBuffer );
    glBufferData( GL_ELEMENT_ARRAY_BUFFER, (GLsizeiptr)( (size_t)mesh->indexCount * sizeof( uint32_t ) ),
                  mesh->indices, GL_STATIC_DRAW );

    // instance attributes: their pointers are set at draw time (they start at the drawn range)
    const GLuint instanceAttribs[4] = { vwAttribInstancePosition, vwAttribInstanceRotation,
                                        vwAttribInstanceScale, vwAttribInstanceColor };
    for ( int i = 0; i < 4; ++i )
    {
        glEnableVertexAttribArray( instanceAttribs[i] );
        glVertexAttribDivisor( instanceAttribs[i], 1 );
    }
    glBindVertexArray( 0 );
    glBindBuffer( GL_ARRAY_BUFFER, 0 );
}

int vwAddMesh( vwRenderer* renderer, const vwMesh* mesh )
{
    vwGpuMesh* meshes =
        vwGrow( renderer->meshes, &renderer->meshCapacity, renderer->meshCount + 1, sizeof( vwGpuMesh ) );
    if ( meshes == NULL )
    {
        return -1;
    }
    renderer->meshes = meshes;
    vwGpuMesh* gpu = renderer->meshes + renderer->meshCount;
    *gpu = ( vwGpuMesh ){ 0 };

    float radiusSquared = 0.0f;
    for ( int i = 0; i < mesh->vertexCount; ++i )
    {
        const float* p = mesh->vertices[i].position;
        float r2 = p[0] * p[0] + p[1] * p[1] + p[2] * p[2];
        radiusSquared = r2 > radiusSquared ? r2 : radiusSquared;
    }
    gpu->radius = sqrtf( radiusSquared );

    vwUploadLevel( gpu->levels, mesh, 0.0f );
    gpu->levelCount = 1;

    // detailed meshes get simpler copies, for when they are small on screen (or in the shadow
    // map): cells from twice the triangles' size on, growing until the triangles drop enough
    int triangles = mesh->indexCount / 3;
    if ( triangles >= VW_LEVEL_MIN_TRIANGLES )
    {
        float smooth = vwSmoothLimit( mesh );
        float cell = 2.0f * vwTriangleSize( mesh );
        for ( int attempt = 0; attempt < 16 && gpu->levelCount < VW_LEVEL_COUNT && cell > 0.0f; ++attempt )
        {
            vwMesh coarse;
            float error = 0.0f;
            if ( !vwClusterMesh( mesh, cell, smooth, &coarse, &error ) )
            {
                break;
            }
            int coarseTriangles = coarse.indexCount / 3;
            bool fewer = 5 * coarseTriangles <= 3 * triangles;
            if ( fewer && coarseTriangles >= 8 )
            {
                vwUploadLevel( gpu->levels + gpu->levelCount, &coarse, error );
                gpu->levelCount += 1;
                triangles = coarseTriangles;
            }
            free( coarse.vertices );
            free( coarse.indices );
            if ( coarseTriangles < 8 )
            {
                break;
            }
            cell *= fewer ? 1.6f : 1.25f;
        }
    }

    return renderer->meshCount++;
}

void vwDrawInstances( vwRenderer* renderer, int mesh, const vwInstance* instances, int count )
{
    if ( mesh < 0 || mesh >= renderer->meshCount || count <= 0 )
    {
        return;
    }
    vwGpuMesh* gpu = renderer->meshes + mesh;
    vwInstance* queue =
        vwGrow( gpu->queue, &gpu->queueCapacity, gpu->queueCount + count, sizeof( vwInstance ) );
    if ( queue == NULL )
    {
        return;
    }
    gpu->queue = queue;
    memcpy( gpu->queue + gpu->queueCount, instances, (size_t)count * sizeof( vwInstance ) );
    gpu->queueCount += count;
}

void vwDrawPlane( vwRenderer* renderer, const float normal[3], float offset, const float focus[3] )
{
    vwPlaneDraw* planes =
        vwGrow( renderer->planes, &renderer->planeCapacity, renderer->planeCount + 1, sizeof( vwPlaneDraw ) );
    if ( planes == NULL )
    {
        return;
    }
    renderer->planes = planes;
    vwPlaneDraw* plane = renderer->planes + renderer->planeCount++;
    memcpy( plane->normal, normal, sizeof( plane->normal ) );
    plane->offset = offset;
    memcpy( plane->focus, focus, sizeof( plane->focus ) );
}

void vwDrawLine( vwRenderer* renderer, const float a[3], const float b[3], const float color[4],
                 bool overlay )
{
    vwLineQueue* queue = renderer->lines + ( overlay ? 1 : 0 );
    vwLineVertex* vertices =
        vwGrow( queue->vertices, &queue->capacity, queue->count + 2, sizeof( vwLineVertex ) );
    if ( vertices == NULL )
    {
        return;
    }
    queue->vertices = vertices;
    vwLineVertex* v = queue->vertices + queue->count;
    memcpy( v[0].position, a, sizeof( v[0].position ) );
    memcpy( v[0].color, color, sizeof( v[0].color ) );
    memcpy( v[1].position, b, sizeof( v[1].position ) );
    memcpy( v[1].color, color, sizeof( v[1].color ) );
    queue->count += 2;
}

void vwRenderStats( const vwRenderer* renderer, int* instances, long long* triangles )
{
    if ( instances != NULL )
    {
        *instances = renderer->statInstances;
    }
    if ( triangles != NULL )
    {
        *triangles = renderer->statTriangles;
    }
}

// ----------------------------------------------------------------------------------------------
// frame

/// Point a level's instance attributes at its instance buffer from instance `first` on.
static void vwBindInstances( const vwMeshLevel* level, int first )
{
    size_t base = (size_t)first * sizeof( vwInstance );
    glBindBuffer( GL_ARRAY_BUFFER, level->instanceBuffer );
    glVertexAttribPointer( vwAttribInstancePosition, 3, GL_FLOAT, GL_FALSE, sizeof( vwInstance ),
                           (const void*)( base + offsetof( vwInstance, position ) ) );
    glVertexAttribPointer( vwAttribInstanceRotation, 4, GL_FLOAT, GL_FALSE, sizeof( vwInstance ),
                           (const void*)( base + offsetof( vwInstance, rotation ) ) );
    glVertexAttribPointer( vwAttribInstanceScale, 3, GL_FLOAT, GL_FALSE, sizeof( vwInstance ),
                           (const void*)( base + offsetof( vwInstance, scale ) ) );
    glVertexAttribPointer( vwAttribInstanceColor, 4, GL_FLOAT, GL_FALSE, sizeof( vwInstance ),
                           (const void*)( base + offsetof( vwInstance, color ) ) );
}

static void vwDrawLevel( const vwMeshLevel* level, int first, int count )
{
    if ( count <= 0 || level->indexCount <= 0 )
    {
        return;
    }
    glBindVertexArray( level->vertexArray );
    vwBindInstances( level, first );
    glDrawElementsInstanced( GL_TRIANGLES, level->indexCount, GL_UNSIGNED_INT, NULL, count );
}

/// What a pass sees (frustum planes) and how large things look in it, to cull and pick levels.
typedef struct vwPassView
{
    float planes[6][4]; ///< inside when a x + b y + c z + d >= 0, (a, b, c) unit or zero
    int planeCount;
    float eye[3];
    float forward[3]; ///< unit view direction
    bool perspective;
    float pixelsPerMetre; ///< at distance 1 when perspective
} vwPassView;

/// The planes (left, right, bottom, top, near, far) of a view-projection's frustum, normalised;
/// a degenerate plane (an infinite far plane) is all zero and culls nothing.
static void vwFrustumPlanes( mat4 viewProjection, float planes[6][4] )
{
    for ( int i = 0; i < 6; ++i )
    {
        int row = i / 2;
        float sign = ( i & 1 ) != 0 ? -1.0f : 1.0f;
        for ( int k = 0; k < 4; ++k )
        {
            planes[i][k] = viewProjection[k][3] + sign * viewProjection[k][row];
        }
        float length =
            sqrtf( planes[i][0] * planes[i][0] + planes[i][1] * planes[i][1] + planes[i][2] * planes[i][2] );
        float scale = length > 1e-12f ? 1.0f / length : 0.0f;
        for ( int k = 0; k < 4; ++k )
        {
            planes[i][k] *= scale;
        }
    }
}

/// Pixels per metre at a sphere in a view; -1 when the sphere is out of view.
static float vwPixelsPerMetre( const vwPassView* view, const float center[3], float radius )
{
    for ( int k = 0; k < view->planeCount; ++k )
    {
        const float* plane = view->planes[k];
        if ( plane[0] * center[0] + plane[1] * center[1] + plane[2] * center[2] + plane[3] < -radius )
        {
            return -1.0f;
        }
    }
    if ( !view->perspective )
    {
        return view->pixelsPerMetre;
    }
    float dx = center[0] - view->eye[0];
    float dy = center[1] - view->eye[1];
    float dz = center[2] - view->eye[2];
    float distance = sqrtf( dx * dx + dy * dy + dz * dz ) - radius;
    return distance > 1e-3f ? view->pixelsPerMetre / distance : 1e30f;
}

/// The coarsest level that strays at most `errorPixels` at `pixels` per mesh unit.
static int vwPickLevel( const vwGpuMesh* mesh, float pixels, float errorPixels )
{
    for ( int k = mesh->levelCount - 1; k > 0; --k )
    {
        if ( mesh->levels[k].error * pixels <= errorPixels )
        {
            return k;
        }
    }
    return 0;
}

#define VW_DEPTH_BUCKETS 256

/// Room in the renderer's scratch arrays for ordering `count` instances.
static bool vwGrowScratch( vwRenderer* renderer, int count )
{
    vwInstance* scratch =
        vwGrow( renderer->scratch, &renderer->scratchCapacity, 2 * count, sizeof( vwInstance ) );
    renderer->scratch = scratch != NULL ? scratch : renderer->scratch;
    signed char* choices = vwGrow( renderer->choices, &renderer->choiceCapacity, 2 * count, 1 );
    renderer->choices = choices != NULL ? choices : renderer->choices;
    float* depths = vwGrow( renderer->depths, &renderer->depthCapacity, count, sizeof( float ) );
    renderer->depths = depths != NULL ? depths : renderer->depths;
    int* order = vwGrow( renderer->order, &renderer->orderCapacity, count, sizeof( int ) );
    renderer->order = order != NULL ? order : renderer->order;
    return scratch != NULL && choices != NULL && depths != NULL && order != NULL;
}

static int vwDepthBucket( const vwRenderer* renderer, int instance, float nearest, float toBucket )
{
    float bucket = ( renderer->depths[instance] - nearest ) * toBucket;
    // out of view, and NaN, go first
    return renderer->choices[2 * instance] >= 0 && bucket > 0.0f
               ? (int)fminf( bucket, (float)( VW_DEPTH_BUCKETS - 1 ) )
               : 0;
}

/// Sort each mesh's queued instances by level into the segments of the levels' instance buffers
/// (opaque in view, see-through in view, shadow casters) and upload them. `light` is NULL when
/// there is no shadow pass. Opaque instances go front to back, so that on software renderers
/// most hidden pixels fail the depth test before they are shaded; see-through ones back to front
/// (blending is then right within a mesh).
static void vwPrepareInstances( vwRenderer* renderer, const vwPassView* camera, const vwPassView* light )
{
    for ( int m = 0; m < renderer->meshCount; ++m )
    {
        vwGpuMesh* mesh = renderer->meshes + m;
        for ( int k = 0; k < mesh->levelCount; ++k )
        {
            mesh->levels[k].opaqueCount = 0;
            mesh->levels[k].transparentCount = 0;
            mesh->levels[k].casterCount = 0;
        }
        int count = mesh->queueCount;
        if ( count == 0 || !vwGrowScratch( renderer, count ) )
        {
            continue;
        }
        float nearest = INFINITY;
        float farthest = -INFINITY;

        // choose, and count each segment
        for ( int i = 0; i < count; ++i )
        {
            const vwInstance* instance = mesh->queue + i;
            float size = fmaxf( fabsf( instance->scale[0] ),
                                fmaxf( fabsf( instance->scale[1] ), fabsf( instance->scale[2] ) ) );
            float radius = mesh->radius * size;
            // pixels per mesh unit on screen and texels in the shadow map; negative: out of view
            float onScreen = vwPixelsPerMetre( camera, instance->position, radius );
            float inMap = light != NULL ? vwPixelsPerMetre( light, instance->position, radius ) : -1.0f;
            onScreen = onScreen >= 0.0f ? onScreen * size : -1.0f;
            inMap = inMap >= 0.0f ? inMap * size : -1.0f;
            int inView = onScreen >= 0.0f ? vwPickLevel( mesh, onScreen, VW_ERROR_PIXELS ) : -1;
            int caster = -1;
            if ( inMap >= 0.0f )
            {
                caster = inView >= 0 ? inView : vwPickLevel( mesh, inMap, VW_HIDDEN_ERROR_TEXELS );
            }
            renderer->choices[2 * i] = (signed char)inView;
            renderer->choices[2 * i + 1] = (signed char)caster;
            float depth = 0.0f;
            if ( inView >= 0 )
            {
                for ( int k = 0; k < 3; ++k )
                {
                    depth += ( instance->position[k] - camera->eye[k] ) * camera->forward[k];
                }
                nearest = fminf( nearest, depth );
                farthest = fmaxf( farthest, depth );
            }
            renderer->depths[i] = depth;
            if ( inView >= 0 && instance->color[3] < 1.0f )
            {
                mesh->levels[inView].transparentCount += 1;
            }
            else if ( inView >= 0 )
            {
                mesh->levels[inView].opaqueCount += 1;
            }
            if ( caster >= 0 )
            {
                mesh->levels[caster].casterCount += 1;
            }
        }

        // where each segment starts in scratch
        int next[VW_LEVEL_COUNT][3] = { { 0 } };
        int start[VW_LEVEL_COUNT + 1] = { 0 };
        start[0] = 0;
        for ( int k = 0; k < mesh->levelCount; ++k )
        {
            const vwMeshLevel* level = mesh->levels + k;
            next[k][0] = start[k];
            next[k][1] = next[k][0] + level->opaqueCount;
            next[k][2] = next[k][1] + level->transparentCount;
            start[k + 1] = next[k][2] + level->casterCount;
        }

        // front to back: a bucket sort on depth is enough for the depth test
        int buckets[VW_DEPTH_BUCKETS + 1] = { 0 };
        float toBucket = farthest > nearest ? ( VW_DEPTH_BUCKETS - 1 ) / ( farthest - nearest ) : 0.0f;
        for ( int i = 0; i < count; ++i )
        {
            buckets[vwDepthBucket( renderer, i, nearest, toBucket ) + 1] += 1;
        }
        for ( int b = 0; b < VW_DEPTH_BUCKETS; ++b )
        {
            buckets[b + 1] += buckets[b];
        }
        for ( int i = 0; i < count; ++i )
        {
            renderer->order[buckets[vwDepthBucket( renderer, i, nearest, toBucket )]++] = i;
        }

        // see-through ones fill their segment from its end
        int farEnd[VW_LEVEL_COUNT] = { 0 };
        for ( int k = 0; k < mesh->levelCount; ++k )
        {
            farEnd[k] = next[k][2];
        }
        for ( int j = 0; j < count; ++j )
        {
            const vwInstance* instance = mesh->queue + renderer->order[j];
            int inView = renderer->choices[2 * renderer->order[j]];
            int caster = renderer->choices[2 * renderer->order[j] + 1];
            if ( inView >= 0 && instance->color[3] < 1.0f )
            {
                renderer->scratch[--farEnd[inView]] = *instance;
            }
            else if ( inView >= 0 )
            {
                renderer->scratch[next[inView][0]++] = *instance;
            }
            if ( caster >= 0 )
            {
                renderer->scratch[next[caster][2]++] = *instance;
            }
        }

        // orphan each buffer (the GPU may still read last frame's) and fill it
        for ( int k = 0; k < mesh->levelCount; ++k )
        {
            vwMeshLevel* level = mesh->levels + k;
            int used = start[k + 1] - start[k];
            if ( used == 0 )
            {
                continue;
            }
            if ( used > level->instanceCapacity )
            {
                int capacity = level->instanceCapacity > 0 ? level->instanceCapacity : 64;
                while ( capacity < used )
                {
                    capacity *= 2;
                }
                level->instanceCapacity = capacity;
            }
            glBindBuffer( GL_ARRAY_BUFFER, level->instanceBuffer );
            glBufferData( GL_ARRAY_BUFFER,
                          (GLsizeiptr)( (size_t)level->instanceCapacity * sizeof( vwInstance ) ), NULL,
                          GL_STREAM_DRAW );
            glBufferSubData( GL_ARRAY_BUFFER, 0, (GLsizeiptr)( (size_t)used * sizeof( vwInstance ) ),
                             renderer->scratch + start[k] );
        }
    }
    glBindBuffer( GL_ARRAY_BUFFER, 0 );
}

static void vwNormalizeOr( const float v[3], const float fallback[3], vec3 out )
{
    float length = sqrtf( v[0] * v[0] + v[1] * v[1] + v[2] * v[2] );
    const float* source = length > 1e-12f ? v : fallback;
    float scale = length > 1e-12f ? 1.0f / length : 1.0f;
    out[0] = source[0] * scale;
    out[1] = source[1] * scale;
    out[2] = source[2] * scale;
}

/// The unit world axis least aligned with `v` (unit), projected onto v's normal plane.
static void vwPerpendicular( const vec3 v, vec3 out )
{
    int axis = 0;
    for ( int k = 1; k < 3; ++k )
    {
        axis = fabsf( v[k] ) < fabsf( v[axis] ) ? k : axis;
    }
    vec3 e = { 0.0f, 0.0f, 0.0f };
    e[axis] = 1.0f;
    float d = v[axis];
    out[0] = e[0] - d * v[0];
    out[1] = e[1] - d * v[1];
    out[2] = e[2] - d * v[2];
    glm_vec3_normalize( out );
}

/// Light view-projection around the scene sphere (depth 0 .. 1 across the sphere), its center
/// snapped to whole texels, and the world size of one texel.
static void vwLightMatrix( const vwFrameParams* params, const vec3 light, mat4 lightViewProjection,
                           float* texelWorld )
{
    // the radius grows in steps of 1/8 of its power of two, so a scene that grows slowly keeps
    // its texel size (and its shadows' look) for a while
    float radius = params->sceneRadius > 1e-3f ? params->sceneRadius * 1.05f : 1.0f;
    float step = exp2f( floorf( log2f( radius ) ) ) / 8.0f;
    radius = ceilf( radius / step ) * step;

    vec3 center = { params->sceneCenter[0], params->sceneCenter[1], params->sceneCenter[2] };
    vec3 eye = { center[0] - radius * light[0], center[1] - radius * light[1],
                 center[2] - radius * light[2] };
    vec3 up = { 0.0f, 0.0f, 0.0f };
    vwPerpendicular( light, up );

    mat4 view = GLM_MAT4_ZERO_INIT;
    mat4 projection = GLM_MAT4_ZERO_INIT;
    glm_lookat( eye, center, up, view );
    glm_ortho( -radius, radius, -radius, radius, 0.0f, 2.0f * radius, projection );
    glm_mat4_mul( projection, view, lightViewProjection );

    // move the projection by less than a texel so the world origin falls on a texel corner
    float half = 0.5f * (float)VW_SHADOW_SIZE;
    float x = lightViewProjection[3][0] * half;
    float y = lightViewProjection[3][1] * half;
    projection[3][0] += ( roundf( x ) - x ) / half;
    projection[3][1] += ( roundf( y ) - y ) / half;
    glm_mat4_mul( projection, view, lightViewProjection );

    *texelWorld = 2.0f * radius / (float)VW_SHADOW_SIZE;
}

static void vwSetCommonUniforms( const vwProgram* program, const vwFrameParams* params, const vec3 light,
                                 const vec3 up, const float fog[2] )
{
    glUniform3fv( program->up, 1, up );
    glUniform3fv( program->lightDirection, 1, light );
    glUniform3fv( program->eye, 1, params->eye );
    glUniform2fv( program->fog, 1, fog );
    glUniform1f( program->shadowTexel, 1.0f / (float)VW_SHADOW_SIZE );
}

void vwRenderFrame( vwRenderer* renderer, const vwFrameParams* params )
{
    const float defaultLight[3] = { 0.0f, 0.0f, -1.0f };
    const float defaultUp[3] = { 0.0f, 0.0f, 1.0f };
    vec3 light = { 0.0f, 0.0f, 0.0f };
    vec3 up = { 0.0f, 0.0f, 0.0f };
    vwNormalizeOr( params->lightDirection, defaultLight, light );
    vwNormalizeOr( params->upAxis, defaultUp, up );

    mat4 view = GLM_MAT4_ZERO_INIT;
    mat4 projection = GLM_MAT4_ZERO_INIT;
    mat4 viewProjection = GLM_MAT4_ZERO_INIT;
    memcpy( view, params->view, sizeof( view ) );
    memcpy( projection, params->projection, sizeof( projection ) );
    glm_mat4_mul( projection, view, viewProjection );

    int instanceCount = 0;
    for ( int m = 0; m < renderer->meshCount; ++m )
    {
        instanceCount += renderer->meshes[m].queueCount;
    }
    bool shadows = params->shadows && instanceCount > 0;

    // fog: none inside the scene, complete well before the planes' rim
    float sceneRadius = params->sceneRadius > 1e-3f ? params->sceneRadius : 1.0f;
    vec3 center = { params->sceneCenter[0], params->sceneCenter[1], params->sceneCenter[2] };
    vec3 eye = { params->eye[0], params->eye[1], params->eye[2] };
    float eyeDistance = glm_vec3_distance( eye, center );
    float fog[2] = { eyeDistance + sceneRadius, eyeDistance + 16.0f * fmaxf( sceneRadius, 5.0f ) };

    // state the HUD or the application may have left: we write gamma-encoded colour ourselves
    GLint target = 0;
    glGetIntegerv( GL_DRAW_FRAMEBUFFER_BINDING, &target );
    glDisable( GL_SCISSOR_TEST );
    glDisable( GL_FRAMEBUFFER_SRGB );
    glColorMask( GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE );

    // 1. instances: culled and sorted by level for both passes, uploaded
    mat4 lightViewProjection = GLM_MAT4_ZERO_INIT;
    mat4 shadowMatrix = GLM_MAT4_ZERO_INIT;
    float texelWorld = 0.0f;
    vwLightMatrix( params, light, lightViewProjection, &texelWorld );
    {
        // from clip space (-1 .. 1) to texture coordinates and depth (0 .. 1)
        mat4 bias = GLM_MAT4_IDENTITY_INIT;
        glm_scale_uni( bias, 0.5f );
        bias[3][0] = 0.5f;
        bias[3][1] = 0.5f;
        bias[3][2] = 0.5f;
        bias[3][3] = 1.0f;
        glm_mat4_mul( bias, lightViewProjection, shadowMatrix );
    }

    vwPassView camera = { 0 };
    vwFrustumPlanes( viewProjection, camera.planes );
    camera.planeCount = 6;
    memcpy( camera.eye, params->eye, sizeof( camera.eye ) );
    camera.forward[0] = -view[0][2];
    camera.forward[1] = -view[1][2];
    camera.forward[2] = -view[2][2];
    camera.perspective = projection[2][3] != 0.0f;
    camera.pixelsPerMetre = 0.5f * (float)params->height * fabsf( projection[1][1] );

    // casters in front of the light's near plane still count (depth clamp): no near plane
    vwPassView caster = { 0 };
    float lightPlanes[6][4] = { { 0 } };
    vwFrustumPlanes( lightViewProjection, lightPlanes );
    memcpy( caster.planes, lightPlanes, sizeof( float[4][4] ) );
    memcpy( caster.planes[4], lightPlanes[5], sizeof( float[4] ) );
    caster.planeCount = 5;
    caster.perspective = false;
    caster.pixelsPerMetre = 1.0f / texelWorld;

    vwPrepareInstances( renderer, &camera, shadows ? &caster : NULL );

    // 2. shadow map
    float normalOffset = 1.5f * texelWorld;

    if ( shadows )
    {
        glBindFramebuffer( GL_FRAMEBUFFER, renderer->shadowFramebuffer );
        glViewport( 0, 0, VW_SHADOW_SIZE, VW_SHADOW_SIZE );
        glDisable( GL_BLEND );
        glEnable( GL_DEPTH_TEST );
        glDepthFunc( GL_LESS );
        glDepthMask( GL_TRUE );
        glClear( GL_DEPTH_BUFFER_BIT );
        // casters nearer than the box still shadow it; slope-scaled offset against acne
        glEnable( GL_DEPTH_CLAMP );
        glEnable( GL_POLYGON_OFFSET_FILL );
        glPolygonOffset( 1.5f, 2.0f );
        glEnable( GL_CULL_FACE );
        glCullFace( GL_BACK );

        glUseProgram( renderer->shadowProgram.id );
        glUniformMatrix4fv( renderer->shadowProgram.lightViewProjection, 1, GL_FALSE,
                            (const float*)lightViewProjection );
        for ( int m = 0; m < renderer->meshCount; ++m )
        {
            const vwGpuMesh* mesh = renderer->meshes + m;
            for ( int k = 0; k < mesh->levelCount; ++k )
            {
                const vwMeshLevel* level = mesh->levels + k;
                vwDrawLevel( level, level->opaqueCount + level->transparentCount, level->casterCount );
            }
        }

        glDisable( GL_POLYGON_OFFSET_FILL );
        glDisable( GL_DEPTH_CLAMP );
        glBindFramebuffer( GL_FRAMEBUFFER, (GLuint)target );
    }

    // 3. the view: opaque things first, shapes front to back, then the sky where nothing was
    // drawn: a software renderer shades only what the depth test lets through
    glViewport( 0, 0, params->width, params->height );
    glClearColor( 0.62f, 0.70f, 0.80f, 1.0f );
    glDepthMask( GL_TRUE );
    glClear( GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT );
    glActiveTexture( GL_TEXTURE0 + VW_SHADOW_UNIT );
    glBindTexture( GL_TEXTURE_2D, renderer->shadowTexture );
    glActiveTexture( GL_TEXTURE0 );
    glEnable( GL_DEPTH_TEST );
    glDepthFunc( GL_LEQUAL );
    glDisable( GL_BLEND );
    glBlendFunc( GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA );

    // opaque shapes
    const vwProgram* meshProgram = renderer->meshPrograms + ( shadows ? 1 : 0 );
    renderer->statInstances = 0;
    renderer->statTriangles = 0;
    if ( instanceCount > 0 )
    {
        glUseProgram( meshProgram->id );
        vwSetCommonUniforms( meshProgram, params, light, up, fog );
        glUniformMatrix4fv( meshProgram->viewProjection, 1, GL_FALSE, (const float*)viewProjection );
        glUniformMatrix4fv( meshProgram->shadowMatrix, 1, GL_FALSE, (const float*)shadowMatrix );
        glUniform1f( meshProgram->shadowNormalOffset, normalOffset );
        glEnable( GL_CULL_FACE );
        glCullFace( GL_BACK );
        for ( int m = 0; m < renderer->meshCount; ++m )
        {
            const vwGpuMesh* mesh = renderer->meshes + m;
            for ( int k = 0; k < mesh->levelCount; ++k )
            {
                const vwMeshLevel* level = mesh->levels + k;
                vwDrawLevel( level, 0, level->opaqueCount );
                int drawn = level->opaqueCount + level->transparentCount;
                renderer->statInstances += drawn;
                renderer->statTriangles += (long long)drawn * ( level->indexCount / 3 );
            }
        }
        glDisable( GL_CULL_FACE );
    }

    // planes: opaque (their rim fades into the sky colour), seen from both sides
    if ( renderer->planeCount > 0 )
    {
        const vwProgram* program = renderer->gridPrograms + ( shadows ? 1 : 0 );
        glUseProgram( program->id );
        vwSetCommonUniforms( program, params, light, up, fog );
        glUniformMatrix4fv( program->viewProjection, 1, GL_FALSE, (const float*)viewProjection );
        glUniformMatrix4fv( program->shadowMatrix, 1, GL_FALSE, (const float*)shadowMatrix );
        glUniform1f( program->shadowNormalOffset, normalOffset );
        glUniform1f( program->halfSize, fmaxf( 20.0f * sceneRadius, 100.0f ) );
        glBindVertexArray( renderer->emptyArray );
        for ( int i = 0; i < renderer->planeCount; ++i )
        {
            const vwPlaneDraw* plane = renderer->planes + i;
            const float* n = plane->normal;
            const float* f = plane->focus;
            float d = n[0] * f[0] + n[1] * f[1] + n[2] * f[2] - plane->offset;
            vec3 origin = { f[0] - d * n[0], f[1] - d * n[1], f[2] - d * n[2] };
            vec3 normal = { n[0], n[1], n[2] };
            vec3 axisU = { 0.0f, 0.0f, 0.0f };
            vec3 axisV = { 0.0f, 0.0f, 0.0f };
            vwPerpendicular( normal, axisU );
            glm_vec3_cross( normal, axisU, axisV );
            glUniform3fv( program->origin, 1, origin );
            glUniform3fv( program->axisU, 1, axisU );
            glUniform3fv( program->axisV, 1, axisV );
            glUniform3fv( program->normal, 1, normal );
            glDrawArrays( GL_TRIANGLE_STRIP, 0, 4 );
        }
    }

    // sky: at the far plane, where the depth buffer is still clear
    {
        const vwProgram* program = &renderer->skyProgram;
        mat3 cameraToWorld = GLM_MAT3_ZERO_INIT;
        glm_mat4_pick3t( view, cameraToWorld );
        float p[4] = { projection[0][0], projection[1][1], projection[2][0], projection[2][1] };
        bool orthographic = projection[2][3] == 0.0f;
        glDepthMask( GL_FALSE );
        glUseProgram( program->id );
        vwSetCommonUniforms( program, params, light, up, fog );
        glUniformMatrix3fv( program->cameraToWorld, 1, GL_FALSE, (const float*)cameraToWorld );
        glUniform4fv( program->projection, 1, p );
        glUniform1i( program->orthographic, orthographic ? 1 : 0 );
        glBindVertexArray( renderer->emptyArray );
        glDrawArrays( GL_TRIANGLES, 0, 3 );
    }

    // see-through shapes, back to front within a mesh, without depth writes
    if ( instanceCount > 0 )
    {
        glUseProgram( meshProgram->id );
        glEnable( GL_CULL_FACE );
        glEnable( GL_BLEND );
        for ( int m = 0; m < renderer->meshCount; ++m )
        {
            const vwGpuMesh* mesh = renderer->meshes + m;
            for ( int k = 0; k < mesh->levelCount; ++k )
            {
                const vwMeshLevel* level = mesh->levels + k;
                vwDrawLevel( level, level->opaqueCount, level->transparentCount );
            }
        }
        glDisable( GL_CULL_FACE );
    }

    // lines: depth tested, then overlay
    int lineCount = renderer->lines[0].count + renderer->lines[1].count;
    if ( lineCount > 0 )
    {
        glBindBuffer( GL_ARRAY_BUFFER, renderer->lineBuffer );
        if ( lineCount > renderer->lineCapacity )
        {
            renderer->lineCapacity = lineCount + lineCount / 2;
        }
        glBufferData( GL_ARRAY_BUFFER,
                      (GLsizeiptr)( (size_t)renderer->lineCapacity * sizeof( vwLineVertex ) ), NULL,
                      GL_STREAM_DRAW );
        size_t tested = (size_t)renderer->lines[0].count * sizeof( vwLineVertex );
        glBufferSubData( GL_ARRAY_BUFFER, 0, (GLsizeiptr)tested, renderer->lines[0].vertices );
        glBufferSubData( GL_ARRAY_BUFFER, (GLintptr)tested,
                         (GLsizeiptr)( (size_t)renderer->lines[1].count * sizeof( vwLineVertex ) ),
                         renderer->lines[1].vertices );
        glBindBuffer( GL_ARRAY_BUFFER, 0 );

        glUseProgram( renderer->lineProgram.id );
        glUniformMatrix4fv( renderer->lineProgram.viewProjection, 1, GL_FALSE, (const float*)viewProjection );
        glBindVertexArray( renderer->lineArray );
        glEnable( GL_BLEND );
        glDepthMask( GL_FALSE );
        if ( renderer->lines[0].count > 0 )
        {
            glDrawArrays( GL_LINES, 0, renderer->lines[0].count );
        }
        glDisable( GL_DEPTH_TEST );
        if ( renderer->lines[1].count > 0 )
        {
            glDrawArrays( GL_LINES, renderer->lines[0].count, renderer->lines[1].count );
        }
        glDepthMask( GL_TRUE );
    }

    // leave a state for 2-D drawing: no depth test or culling, alpha blending on
    glDisable( GL_DEPTH_TEST );
    glDisable( GL_CULL_FACE );
    glEnable( GL_BLEND );
    glBlendFunc( GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA );
    glDepthMask( GL_TRUE );
    glBindVertexArray( 0 );
    glUseProgram( 0 );

    // empty the queues
    for ( int m = 0; m < renderer->meshCount; ++m )
    {
        renderer->meshes[m].queueCount = 0;
    }
    renderer->planeCount = 0;
    renderer->lines[0].count = 0;
    renderer->lines[1].count = 0;
}
