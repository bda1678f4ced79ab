// SPDX-License-Identifier: MIT
#pragma once

// The solver layer as the engine sees it: one solve run the way every caller runs it (the world's
// passes, cairn lcp, the tests through cnRunSolver). The kit behind it (solver_kit.h) is private
// to solvers/.

#include "cairn/solver.h"

// The budget of one solve from a solver's parameters "iterations", "tolerance" and "deadline_ms"
// (absent ones: 1000 iterations, no tolerance, no deadline).
cnSolverBudget cnBudgetFromParams( const cnSolverVTable* solver, const double* params );

// One solve: check the problem (structure, and what it holds against the solver's caps: friction,
// cones, bounded and bilateral rows, explicit or matrix-free), prepare the layer's data, start from
// solution->lambda with non-finite entries set to 0, call the solver within `budget`, and grade the
// result (stats->merits, stats->residual for the solver's model). An unusable problem ends
// cn_solveUnsupported with stats->reason and lambda untouched; solution->deltaVelocity (when given)
// then holds W J^T of the guess. stats->milliseconds covers all of it.
void cnLayerSolve( const cnSolverVTable* solver, void* state, const double* params, const cnSolverBudget* budget,
                   cnSolverProblem* problem, cnSolverSolution* solution, cnArena* arena, cnSolverStats* stats );
