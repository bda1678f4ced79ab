// SPDX-License-Identifier: MIT
#pragma once

// Helpers of test_convex: a fixed random sequence, test shapes of every type (hulls scaled from a
// few templates), surface sampling and the separation along a direction.

#include "ccd_support.h"
#include "collide.h"
#include "hull.h"
#include "test_support.h"

#include "cairn/cairn.h"

#include <stdbool.h>
#include <stdint.h>

#define CNT_PI 3.14159265358979323846

// cntRandom, cntUniform, cntRange and cntDirection are in test_support.h
double cntLogUniform( cntRandom* random, double lower, double upper );
int cntIndex( cntRandom* random, int count ); // [0, count)
cnQuat cntRotation( cntRandom* random );      // uniform rotation

// Hull templates: unit-sized clouds computed once per test.
enum
{
    cnt_hullCube,  // the 8 corners of [-1, 1]^3
    cnt_hullRound, // 40 points on the unit sphere
    cnt_hullTetra, // a tetrahedron
    cnt_hullPrism, // a hexagonal prism
    cnt_hullTemplateCount
};

#define CNT_MAX_HULL_VERTICES 64

typedef struct cntHullTemplates
{
    cnHull hulls[cnt_hullTemplateCount];
} cntHullTemplates;

void cntCreateHullTemplates( cntHullTemplates* templates );
void cntDestroyHullTemplates( cntHullTemplates* templates );

// A test shape. It points into itself: call cntPlace after copying it.
typedef struct cntShape
{
    cnGeometry geometry;
    cnHull hull; // hulls only: vertices scaled into `vertices`, triangles shared with a template
    cnVec3 vertices[CNT_MAX_HULL_VERTICES];
    cnCollisionShape placed;
} cntShape;

void cntPlace( cntShape* shape, cnTransform transform );

void cntMakeSphere( cntShape* shape, double radius );
void cntMakeBox( cntShape* shape, cnVec3 halfExtents );
void cntMakeCapsule( cntShape* shape, double radius, double halfLength );
void cntMakeCylinder( cntShape* shape, double radius, double halfLength );
void cntMakeEllipsoid( cntShape* shape, cnVec3 radii );
void cntMakeTorus( cntShape* shape, double major, double minor );
// the template scaled by `scale` per axis
void cntMakeHull( cntShape* shape, const cnHull* hullTemplate, cnVec3 scale );
void cntMakePlane( cntShape* shape, cnVec3 normal, double offset );

// A random shape of `type` with sizes in [lower, upper] (log-uniform), placed at the identity.
void cntMakeRandomShape( cntShape* shape, cnShapeType type, const cntHullTemplates* templates,
                         cntRandom* random, double lower, double upper );

// A point on the surface, shape frame (not a plane).
cnVec3 cntSampleSurface( const cntShape* shape, cntRandom* random );

// sep(n) = min over B of dot(n, x) - max over A of dot(n, x), from the support functions; planes
// are handled as half-spaces (+-infinity when n is not along the plane's normal).
double cntSeparationAlong( const cnCollisionShape* a, const cnCollisionShape* b, cnVec3 n );

// world normal and offset of a placed plane: the half-space dot(n, x) <= offset
void cntWorldPlane( const cnCollisionShape* plane, cnVec3* normal, double* offset );

const char* cntTypeName( cnShapeType type );

bool cntVerbose( void );
