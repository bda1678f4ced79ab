// SPDX-License-Identifier: MIT
#pragma once

// Exact solves of a problem's free bilateral rows (the equality rows of joints: cn_groupBilateral
// rows with infinite bounds), private to solvers/ and the layer.
//
// The rows are gathered into units: the free rows of one group, with the groups of one pair of
// dynamic bodies merged into one unit (two ropes between the same planks). The units whose bodies
// form a forest (each unit an edge between two dynamic bodies, or a pendant edge to a static or
// kinematic one) are the tree; the units that would close a loop are loop units. Ordered children
// before parents (a post-order of each tree, a body's pendant units before the edge to its
// parent), the tree's block of A = J W J^T (+ the rows' softness) factors as L L^T with no fill:
// every unit eliminated meets only units at one body, which already couple among themselves.
// Factoring is linear in the units for a chain and quadratic in a body's joint count for a star
// (Baraff 1996 orders the augmented system the same way). A row whose pivot vanishes (a merged
// unit's redundant rows, two ball joints on one axis) is dropped from the solve: its impulse
// change is 0.
//
// One step (cnBilateralStep) moves the free rows' impulses to the exact solution of their rows with
// everything else held: the tree's in one factored solve, then each loop unit's on its own block
// (one block Gauss-Seidel pass over the loop units).

#include "solver_kit.h"

#include <stdbool.h>

// units of more rows than this are split (the rest become loop units)
#define CN_BILATERAL_MAX_ROWS 12

typedef struct cnBilateralUnit
{
    int firstRow;       // into cnBilateral.rows
    int rowCount;       //
    int body[2];        // solver body indices, -1 for none (static, kinematic)
    int firstNeighbour; // tree units: later neighbours in cnBilateral.neighbour
    int neighbourCount; //
    int diagonalOffset; // n x n block in cnBilateral.diagonal
} cnBilateralUnit;

typedef struct cnBilateral
{
    int unitCount;          // tree units [0, treeCount) in elimination order, loop units after
    int treeCount;          //
    int rowCount;           // rows in units
    cnBilateralUnit* units; //
    int* rows;              // (rowCount) problem rows, unit by unit
    int* neighbour;         // later neighbours of the tree units (unit indices)
    int* blockOffset;       // offset of each neighbour's block L_ke (n_k x n_e) in `blocks`
    double* blocks;         //
    double* diagonal;       // each unit's block, its Cholesky factor after cnBilateralFactor
    double* rowDiagonal;    // (rowCount) A_ii + softness_i before factoring
    bool* dropped;          // (rowCount) rows whose pivot vanished
    bool* wholeGroup;       // (problem's groupCount) groups whose every row is in a unit
    double* jacobian;       // (rowCount x 12) J of each row on its unit's body[0], body[1]
    double* wj;             // (rowCount x 12) W J^T of each row, the same way
    double* work;           // (rowCount) right-hand side and solution
    bool factored;          // false when the factor met a fill it has no room for (no step)
} cnBilateral;

// Find the units, the forest and the elimination order of `problem`'s free bilateral rows
// (matrix-free problems; an explicit one has none). False only when out of memory; a problem
// without free bilateral rows gives unitCount 0.
bool cnBilateralBuild( const cnSolverProblem* problem, cnScratch* scratch, cnBilateral* bilateral );

// Factor the units' blocks of J W J^T + diag(softness) at the problem's current J, W and softness.
void cnBilateralFactor( cnBilateral* bilateral, const cnSolverProblem* problem );

// One exact step: w = J v + softness lambda + b on the units' rows (v = W J^T lambda of all rows,
// kept current in `velocity`, bodyCount x 6), lambda += dlambda with (A + S) dlambda = -w on the
// tree, then on each loop unit in turn. Returns sum A_ii dlambda_i^2 (the sweep solver's update
// energy) and adds sum A_ii lambda_i^2 of the new impulses to *lambdaEnergy (nullable).
double cnBilateralStep( const cnBilateral* bilateral, const cnSolverProblem* problem, double* lambda,
                        double* velocity, double* lambdaEnergy );
