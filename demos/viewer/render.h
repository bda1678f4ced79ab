// SPDX-License-Identifier: MIT
// The 3-D renderer: instanced, lit meshes with a directional shadow map, a ground grid on planes,
// and debug lines. OpenGL 3.3 core; call between a current context's frame begin and end.
#pragma once

#include "mesh.h"

#include <stdbool.h>

typedef struct vwRenderer vwRenderer;

/// One drawn shape: its mesh's frame placed in the world.
typedef struct vwInstance
{
    float position[3]; ///< world, m
    float rotation[4]; ///< unit quaternion w, x, y, z
    float scale[3];    ///< vwMeshScale
    float color[4];    ///< linear RGB, alpha 1 (alpha < 1 draws see-through, unsorted)
} vwInstance;

typedef struct vwFrameParams
{
    float view[16];          ///< column major (cglm mat4)
    float projection[16];    ///< column major
    float eye[3];            ///< camera position, world
    float lightDirection[3]; ///< unit, from the light towards the scene
    float sceneCenter[3];    ///< what the shadow map must cover: a sphere
    float sceneRadius;
    int width; ///< framebuffer pixels
    int height;
    bool shadows;
    float upAxis[3]; ///< world up (minus gravity), for the sky gradient
} vwFrameParams;

/// NULL (and a message on stderr naming the shader and its log) when a shader fails to build.
vwRenderer* vwCreateRenderer( void );
void vwDestroyRenderer( vwRenderer* renderer );

/// Upload a mesh; returns its handle (>= 0), or -1 when out of memory.
int vwAddMesh( vwRenderer* renderer, const vwMesh* mesh );

/// Queue instances of a mesh for this frame (copied).
void vwDrawInstances( vwRenderer* renderer, int mesh, const vwInstance* instances, int count );
/// Queue a plane {x : dot(normal, x) = offset} drawn as a large grid around `focus`.
void vwDrawPlane( vwRenderer* renderer, const float normal[3], float offset, const float focus[3] );
/// Queue a line segment (drawn on top of shapes when `overlay`, else depth tested).
void vwDrawLine( vwRenderer* renderer, const float a[3], const float b[3], const float color[4],
                 bool overlay );

/// Clear and draw everything queued (shadow pass, sky, planes, shapes, lines), then empty the
/// queues. The caller swaps buffers or reads pixels afterwards.
void vwRenderFrame( vwRenderer* renderer, const vwFrameParams* params );

/// Instances and triangles drawn in the last frame (for the HUD).
void vwRenderStats( const vwRenderer* renderer, int* instances, long long* triangles );
