// SPDX-License-Identifier: MIT
// Projected successive over-relaxation (Erleben's PSOR, eq. 59): the PGS sweep with the step
// scaled by the relaxation factor, default 1.4 (the value Erleben recommends and num4lcp's
// reference runs used). Same loop, rules, statuses and cone blocks as PGS (cnSweepSolve).

#include "solver_kit.h"

static const cnSolverParam cn_psorParams[] = { CN_SWEEP_PARAM_TABLE( 1.4 ) };

static void cnPsorSolve( void* state, const double* params, const cnSolverBudget* budget,
                         cnSolverProblem* problem, const cnPrepared* prepared, cnSolverSolution* solution,
                         cnArena* arena, cnSolverStats* stats )
{
    (void)state;
    cnSweepSolve( cn_psorParams, cn_sweepParamCount, params, cn_sweepGaussSeidel, budget, problem, prepared,
                  solution, arena, stats, NULL );
}

const cnSolverVTable cn_psorSolver = {
    .name = "psor",
    .description = "projected successive over-relaxation (PGS with relaxation 1.4)",
    .apiVersion = CN_SOLVER_API_VERSION,
    .caps = cn_solverFriction | cn_solverCone | cn_solverBounded | cn_solverBilateral | cn_solverExplicit |
            cn_solverMatrixFree,
    .model = cn_modelPyramid,
    .iterationUnit = "sweep",
    .params = cn_psorParams,
    .paramCount = cn_sweepParamCount,
    .solve = cnPsorSolve,
};
