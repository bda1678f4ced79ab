// SPDX-License-Identifier: MIT
#pragma once

// The solver layer as the engine sees it: one solve run the way every caller runs it (the world's
// passes, cairn lcp, the tests through cnRunSolver). The kit behind it (solver_kit.h) is private
// to solvers/.

#include "cairn/solver.h"

// The budget of one solve from a solver's parameters "iterations", "tolerance" and "deadline_ms"
// (absent ones: 1000 iterations, no tolerance, no deadline).
cnSolverBudget cnBudgetFromParams( const cnSolverVTable* solver, const double* params );

// The layer's data for a problem, prepared once and kept by a caller that solves the same rows
// several times (the world's soft and relax passes): validated, then prepared from `arena`. NULL
// with the reason in *why when the problem is invalid or memory ran out.
cnPrepared* cnLayerPrepare( const cnSolverProblem* problem, cnArena* arena, const char** why );

// How cnLayerSolve runs.
typedef struct cnLayerOptions
{
    // Nullable: data from cnLayerPrepare for this problem, whose rows, J and W have not changed
    // since (b and the softness may have: they are refreshed). NULL: the problem is validated and
    // prepared here.
    cnPrepared* prepared;
    // Compute the grading merits (stats->merits, stats->residual). A solve with a residual history
    // is always graded; a pass whose result nobody reads may skip it.
    bool grade;
    // The ReLCP recursion around a solver that does not call the oracle itself (the world's
    // contactRecursions): at most this many levels when the problem has an oracle (0: none), rows
    // for overlaps above overlapTolerance, m (recursion.c).
    int recursionLevels;
    double overlapTolerance;
    // Decide what to do with the answer (a world's velocity solve, with no oracle): when a usable
    // answer fails the physics test (cnPhysicsFails), a fallback of `fallbackSweeps` PGS sweeps runs
    // from the same start, and whichever of the two passes the test (else has the lower merit) is
    // returned; stats->outcome says which (docs/solvers.md, "The physics test").
    bool decide;
    int fallbackSweeps;
} cnLayerOptions;

// The physics test of an inertial solve's answer: its contact impulses add more kinetic energy than
// their approach carried (each contact's approach sped up by 1 mm/s: cnSolvePhysics.approachEnergy),
// or a contact closes faster than a quarter of the problem's fastest approach (plus 1 mm/s) beyond
// its own approach and its gap. NaN figures count as passing (an overdamped problem has no
// energies; an ungraded solve has no figures).
bool cnPhysicsFails( const cnSolvePhysics* physics );

// One solve: check the problem (structure, and what it holds against the solver's caps: friction,
// cones, bounded and bilateral rows, explicit or matrix-free), prepare the layer's data, start from
// solution->lambda with non-finite entries set to 0, call the solver within `budget`, and grade the
// result (stats->merits, stats->residual for the solver's model). solution->deltaVelocity (when
// given, matrix-free problems) is set to W J^T of the impulses returned, recomputed by the layer
// when it grades, so that what the world applies is what was graded. An unusable problem ends
// cn_solveUnsupported with stats->reason and lambda untouched. stats->milliseconds covers all of it.
void cnLayerSolve( const cnSolverVTable* solver, void* state, const double* params,
                   const cnSolverBudget* budget, cnSolverProblem* problem, cnSolverSolution* solution,
                   cnArena* arena, const cnLayerOptions* options, cnSolverStats* stats );

// The exact solution of the problem's free bilateral rows alone (the equality rows of joints,
// cn_groupBilateral rows with infinite bounds, in groups whose rows share their bodies and move at
// least one; every other row's impulse 0): (J W J^T + S) lambda = -b on them, by the tree
// factorisation of bilateral.h, then up to `rounds` passes in all when some units close loops
// (their blocks one after another, block Gauss-Seidel). lambda (rowCount) and deltaVelocity
// (bodyCount x 6, W J^T lambda) are written. Returns the rows solved (0 when there are none), -1
// when memory ran out.
int cnLayerSolveBilateral( const cnSolverProblem* problem, cnArena* arena, int rounds, double* lambda,
                           double* deltaVelocity );
