// SPDX-License-Identifier: MIT
#pragma once

// Independent brute-force references for test_smooth: our own support functions, point distances,
// a dense-sampling + Nelder-Mead maximisation of Phi(n) for convex pairs, and a sampled ring angle
// with a derivative-bisection polish for pairs with a torus. Nothing here calls the code under test
// (collision/smooth.c); only the hull builder (collision/hull.h) is used to make hull shapes.

#include "collide.h"
#include "hull.h"

#include "cairn/cairn.h"

#include <stdbool.h>
#include <stdint.h>

#define TR_PI              3.14159265358979323846
#define TR_MAX_HULL_POINTS 32
#define TR_MAX_FACES       128

typedef struct trRng
{
    uint64_t state;
} trRng;

double trUniform( trRng* rng );
double trRange( trRng* rng, double lower, double upper );
cnVec3 trDirection( trRng* rng );
cnQuat trRotation( trRng* rng );

// A test shape: geometry, the hull (owned, hulls only), its face planes, the placement and the
// rotation matrix. Points into itself: call trPlace after copying.
typedef struct trShape
{
    cnGeometry geometry;
    cnHull hull;
    int faceCount;
    cnVec3 faceNormal[TR_MAX_FACES]; // shape frame
    double faceOffset[TR_MAX_FACES];
    cnCollisionShape placed;
    cnMat3 rot; // columns: the shape frame's axes in the world
} trShape;

void trPlace( trShape* shape, cnTransform transform );
void trFreeShape( trShape* shape );
void trMakeSphere( trShape* shape, double radius );
void trMakeBox( trShape* shape, cnVec3 half );
void trMakeCapsule( trShape* shape, double radius, double halfLength );
void trMakeCylinder( trShape* shape, double radius, double halfLength );
void trMakeEllipsoid( trShape* shape, cnVec3 radii );
void trMakeTorus( trShape* shape, double major, double minor );
void trMakePlane( trShape* shape, cnVec3 normal, double offset );
bool trMakeHull( trShape* shape, const cnVec3* points, int count );
// random sizes as the acceptance list asks
bool trMakeRandom( trShape* shape, cnShapeType type, trRng* rng );

const char* trTypeName( cnShapeType type );
double trBoundingRadius( const trShape* shape );
double trSmallSize( const trShape* shape ); // smallest half-dimension (torus: the minor radius)

// Support (world): max over the shape of dot(n, x), and a maximiser.
double trSupportValue( const trShape* shape, cnVec3 n );
cnVec3 trSupportPoint( const trShape* shape, cnVec3 n );

// World plane of a plane shape: the half-space dot(normal, x) <= offset.
void trWorldPlane( const trShape* shape, cnVec3* normal, double* offset );

// Implicit residual at a world point, ~0 on the surface (see test_smooth.c for each form).
double trResidual( const trShape* shape, cnVec3 x );
// Outward unit normal at a world surface point, smooth types only (sphere, capsule, ellipsoid,
// torus, plane); false for the others.
bool trSmoothNormal( const trShape* shape, cnVec3 x, cnVec3* normal );

// Signed distance from a world point (sphere, box, capsule, cylinder, ellipsoid, hull, torus,
// plane), with the closest surface point.
double trPointDistance( const trShape* shape, cnVec3 p, cnVec3* closest );
double trEllipsoidLocalDistance( cnVec3 radii, cnVec3 p, cnVec3* closest );
double trSegmentSegment( cnVec3 p1, cnVec3 q1, cnVec3 p2, cnVec3 q2, cnVec3* c1, cnVec3* c2 );
cnVec3 trClosestOnSegment( cnVec3 a, cnVec3 b, cnVec3 p );

// The reference answer for a pair.
#define TR_MAX_OPTIMA 8
typedef struct trReference
{
    double separation;
    cnVec3 normal;    // A -> B
    bool ambiguous;   // another local optimum within 1e-6 whose normal is more than 1e-4 away
    int optimumCount; // distinct local optima found (torus: local minima in the ring angle)
    double optimumSep[TR_MAX_OPTIMA];
    cnVec3 optimumNormal[TR_MAX_OPTIMA];
} trReference;

// Fibonacci directions for the convex search (once per process).
void trInitDirections( int count );

// Any supported pair: convex pairs by Phi maximisation, planes in closed form, tori by the ring
// angle. `samples` is the torus ring sample count (4096 for the reference).
void trReferenceQuery( const trShape* a, const trShape* b, int ringSamples, trReference* out );
// Phi(n) = min over B of n.b - max over A of n.a (convex shapes only)
double trPhi( const trShape* a, const trShape* b, cnVec3 n );

// how many precise refinements failed to bracket the optimum (the Nelder-Mead answer is kept)
extern int trRefineFailures;
