// SPDX-License-Identifier: MIT
// Projected Gauss-Seidel: the in-place sweep in row order,
//     lambda_i <- proj_i( lambda_i - w_i / A_ii ),
// friction bounds from the current normal impulse and the body velocities W J^T lambda updated
// after every row (sequential impulses). The loop, the stopping rules and the statuses are
// cnSweepSolve's; the kernel is sweep.c's (fast by default, "reference" for the textbook
// arithmetic that reproduces Siconos' lcp_pgs). A zero, negative or non-finite diagonal entry on
// any row gives cn_solveUnsupported with lambda untouched. Contacts with the cone model are
// updated as one block per contact (the exact Coulomb law, or with de_saxce 0 the relaxed cone
// problem; sweep.c) and graded by the cone merit.

#include "solver_kit.h"

static const cnSolverParam cn_pgsParams[] = { CN_SWEEP_PARAM_TABLE( 1.0 ) };

static void cnPgsSolve( void* state, const double* params, const cnSolverBudget* budget,
                        cnSolverProblem* problem, const cnPrepared* prepared, cnSolverSolution* solution,
                        cnArena* arena, cnSolverStats* stats )
{
    (void)state;
    cnSweepSolve( cn_pgsParams, cn_sweepParamCount, params, cn_sweepGaussSeidel, budget, problem, prepared,
                  solution, arena, stats, NULL );
}

const cnSolverVTable cn_pgsSolver = {
    .name = "pgs",
    .description = "projected Gauss-Seidel (sequential impulses)",
    .apiVersion = CN_SOLVER_API_VERSION,
    .caps = cn_solverFriction | cn_solverCone | cn_solverBounded | cn_solverBilateral | cn_solverExplicit |
            cn_solverMatrixFree,
    .model = cn_modelPyramid,
    .iterationUnit = "sweep",
    .params = cn_pgsParams,
    .paramCount = cn_sweepParamCount,
    .solve = cnPgsSolve,
};
