// SPDX-License-Identifier: MIT
// Projected Gauss-Seidel: the in-place component sweep in row order,
//     lambda_i <- proj_i( lambda_i - relaxation * (A lambda + b)_i / A_ii ),
// friction bounds from the current normal impulse and, for matrix-free problems, the body
// velocities W J^T lambda updated after every row (sequential impulses). The loop, the stopping
// rules and the statuses are cnProjectedSweepSolve's (lcp_common.h). A zero, negative or
// non-finite diagonal entry on any row gives cn_solveUnsupported with lambda untouched.

#include "lcp_common.h"

static const cnSolverParam cn_pgsParams[] = CN_SWEEP_PARAM_TABLE( 1.0 );

static void cnPgsSolve( void* state, const double* params, const cnSolverProblem* problem,
                        cnSolverSolution* solution, cnArena* arena, cnSolverStats* stats )
{
    (void)state;
    cnProjectedSweepSolve( cn_pgsParams, cn_sweepParamCount, params, cn_sweepGaussSeidel, problem, solution,
                           arena, stats );
}

const cnSolverVTable cn_pgsSolver = {
    .name = "pgs",
    .description = "projected Gauss-Seidel (sequential impulses)",
    .apiVersion = CN_SOLVER_API_VERSION,
    .caps = cn_solverFriction | cn_solverBounded | cn_solverExplicit | cn_solverMatrixFree,
    .params = cn_pgsParams,
    .paramCount = cn_sweepParamCount,
    .create = NULL,
    .destroy = NULL,
    .solve = cnPgsSolve,
};
