// SPDX-License-Identifier: MIT
// Projected Gauss-Jacobi: every row is updated from the same previous iterate,
//     lambda_i^{k+1} = proj_i( lambda_i^k - relaxation * (A lambda^k + b)_i / A_ii ),
// with friction bounds from the previous normal impulse, then the velocity W J^T lambda^{k+1} is
// recomputed. Undamped Jacobi diverges once the spectral radius of D^-1 A exceeds 2, and on
// contact problems it easily does: a box on four corner contacts already has 1.5 from its
// rotations alone, friction rows couple the corners again through r x t, and every box stacked on
// it adds more. Measured on stacks of unit boxes with four corner contacts per interface, mu 0.6,
// some spin and sliding in the free velocity (tests/solvers/test_sweeps.c builds the same):
// relaxation 0.4 and above ends in a limit cycle (residual ~1) on 4 boxes, 0.7 and above
// diverges; 0.3 converges (4 boxes: ~8,600 sweeps to 1e-8; stacks at rest without spin converge
// at any relaxation up to 1). The default is therefore 0.3, robust rather than fast: PGJ is the
// solver for parallel sweeps, not for few iterations. Same loop, rules and statuses as PGS
// (cnSweepSolve); the "kernel" parameter does not apply (a Jacobi sweep is one kernel). A contact
// with the cone model is one block from the previous iterate, its step scaled by the relaxation:
// with de_saxce 0 this is Tasora and Anitescu's projected Jacobi on the relaxed cone problem.

#include "solver_kit.h"

static const cnSolverParam cn_pgjParams[] = { CN_SWEEP_PARAM_TABLE( 0.3 ) };

static void cnPgjSolve( void* state, const double* params, const cnSolverBudget* budget,
                        cnSolverProblem* problem, const cnPrepared* prepared, cnSolverSolution* solution,
                        cnArena* arena, cnSolverStats* stats )
{
    (void)state;
    cnSweepSolve( cn_pgjParams, cn_sweepParamCount, params, cn_sweepJacobi, budget, problem, prepared,
                  solution, arena, stats, NULL );
}

const cnSolverVTable cn_pgjSolver = {
    .name = "pgj",
    .description = "projected Gauss-Jacobi (damped, relaxation 0.3)",
    .apiVersion = CN_SOLVER_API_VERSION,
    .caps = cn_solverFriction | cn_solverCone | cn_solverBounded | cn_solverBilateral | cn_solverExplicit |
            cn_solverMatrixFree,
    .model = cn_modelPyramid,
    .iterationUnit = "sweep",
    .params = cn_pgjParams,
    .paramCount = cn_sweepParamCount,
    .solve = cnPgjSolve,
};
