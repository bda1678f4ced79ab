// SPDX-License-Identifier: MIT
#pragma once

// The oracle of the ReLCP recursion (contact_oracle.c): "given these impulses, where do the bodies
// go and which pairs now overlap?" For every point that overlaps at the trial poses by more than
// the tolerance it appends a frictionless normal row to the pass's rows; a pair that was beyond the
// contact margin at the start first gets its rows at the start pose (docs/relcp.md).

#include "cairn/solver.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct cnWorld cnWorld;
typedef struct cnContactRows cnContactRows;

// What one oracle call reads: the world, the rows, the step, and the step's contacts as they were
// assembled.
typedef struct cnOracleContext
{
    cnWorld* world;
    cnContactRows* rows;
    double timeStep;
    // pairs that have rows at the start pose: per contact of the cache (those with manifold points
    // from the assembly, the others once the oracle gave them theirs), and the pairs the cache does
    // not have, by shapes
    bool* started;
    int* startedPairs; // (2 x startedCapacity) shape indices
    int startedCount;
    int startedCapacity;
    // the trial collisions' manifolds, one chunk of candidates at a time, kept from call to call
    struct cnManifold* trialManifolds; // (trialCapacity)
    uint8_t* trialTouched;             // (trialCapacity)
    int trialCapacity;
} cnOracleContext;

// The oracle for the rows of one pass: which pairs have rows at the start pose (the cache's with
// points; room for CN_ORACLE_NEW_PAIRS others), all from the step arena. `hook` goes into the
// problem (cnSolverProblem.oracle) for the pass that runs the recursion; `context` must outlive it.
// cn_statusOutOfMemory is the only failure.
cnStatus cnMakeOracle( cnWorld* world, cnContactRows* rows, double timeStep, cnOracleContext* context,
                       cnSolverOracle* hook );
