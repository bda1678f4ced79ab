// SPDX-License-Identifier: MIT
#pragma once

// Scene generators: the poses of the bodies a scene file's "generators" entries stand for
// (docs/scene-format.md). Pure functions of their parameters, so the loader's two passes (check,
// then create) get the same bodies, and a seed gives the same scene on every machine.

#include "cairn/math.h"

#include <stdbool.h>
#include <stdint.h>

typedef enum cnGeneratorType
{
    cn_generatePyramid,
    cn_generateGrid,
    cn_generateRandomPile,
    cn_generateRingLattice,
    cn_generateColonySeed,
    cn_generatorTypeCount
} cnGeneratorType;

typedef struct cnGeneratorParams
{
    cnGeneratorType type;
    // pyramid: rows; ring lattice: rows and columns
    int rows;
    int columns;
    // grid: bodies along x, y and z; random pile and colony seed: count[0] bodies
    int count[3];
    // pyramid: x pitch and z pitch; grid: pitch along x, y, z; random pile: the lattice cell;
    // colony seed: the pitch of its square lattice
    cnVec3 spacing;
    // pyramid: centre of the bottom row; grid: the first body; ring lattice and colony seed:
    // centre
    cnVec3 origin;
    // ring lattice: the sheet's orientation (about origin)
    cnQuat orientation;
    // random pile: the box the bodies' centres are placed in
    cnVec3 regionMin;
    cnVec3 regionMax;
    // uniform random offset in [-jitter, jitter] per axis (grid, random pile), m
    double jitter;
    uint64_t seed;
    // random pile: random orientations (else the template's)
    bool randomOrientation;
    // ring lattice: the torus
    double majorRadius;
    double minorRadius;
} cnGeneratorParams;

// The number of bodies the generator makes, or -1 with a reason in `message` when the
// parameters cannot be met (a region too small for the count, a torus too fat for the weave).
int cnGeneratorCount( const cnGeneratorParams* params, char* message, int messageSize );

// Poses of the generated bodies, `out[cnGeneratorCount()]`: the body origins and the rotations
// to apply on top of the template's orientation. False (with `message`) as cnGeneratorCount.
bool cnGeneratePoses( const cnGeneratorParams* params, cnTransform* out, char* message, int messageSize );
