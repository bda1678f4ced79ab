// SPDX-License-Identifier: MIT
// Triangle meshes of the engine's shapes for the viewer, built on the CPU (no OpenGL here, so the
// tests check them directly). Floats: this is what goes to the GPU.
//
// Instancing: one mesh serves many bodies. Spheres, ellipsoids, boxes and cylinders share unit
// meshes scaled per instance (vwMeshScale); capsules, tori and hulls cannot be scaled into each
// other and get a mesh per distinct geometry (vwMeshKey tells which).
#pragma once

#include "cairn/types.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct vwVertex
{
    float position[3]; ///< shape frame, m
    float normal[3];   ///< unit, outward
} vwVertex;

typedef struct vwMesh
{
    vwVertex* vertices;
    int vertexCount;
    uint32_t* indices; ///< triangles, counter-clockwise seen from outside
    int indexCount;
} vwMesh;

/// How finely curved surfaces are cut: segments around a full circle (>= 8). Rings of latitude,
/// cap rings and the torus tube follow from it.
typedef struct vwMeshDetail
{
    int segments;
} vwMeshDetail;

/// Which mesh a geometry uses: two geometries with equal keys draw with the same mesh. Unit-mesh
/// types (sphere, ellipsoid, box, cylinder) have the type alone as key; capsules and tori add
/// their dimensions; hulls their point cloud's hash. Planes have no mesh (the grid draws them).
typedef struct vwMeshKey
{
    cnShapeType type;
    double a;      ///< capsule: radius; torus: major radius
    double b;      ///< capsule: half length; torus: minor radius
    uint64_t hash; ///< hull: a hash of the points
} vwMeshKey;

vwMeshKey vwMeshKeyOf( const cnGeometry* geometry );
bool vwMeshKeyEqual( vwMeshKey a, vwMeshKey b );

/// Per-instance scale that maps the key's mesh onto this geometry: radii for spheres and
/// ellipsoids, half extents for boxes, (radius, radius, half length) for cylinders, 1 otherwise.
void vwMeshScale( const cnGeometry* geometry, float scale[3] );

/// Build the mesh of a key: unit sphere (radius 1), unit cube (half extent 1), unit cylinder
/// (radius 1, half length 1, along z), or the capsule / torus / hull itself. Hulls need the
/// geometry's points (the key holds only their hash). Smooth surfaces get smooth normals; flat
/// faces (box, hull, cylinder caps) get face normals, with vertices split at edges.
/// false (and an empty mesh) on bad input or out of memory.
bool vwBuildMesh( const cnGeometry* geometry, vwMeshDetail detail, vwMesh* mesh );

void vwFreeMesh( vwMesh* mesh );
