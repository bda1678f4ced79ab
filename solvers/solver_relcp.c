// SPDX-License-Identifier: MIT
// ReLCP (Palmer, Aktulga, Gao): recursively generated constraints for smooth bodies. The problem's
// rows are one deepest-point constraint per contact point; after a solve the oracle moves the
// bodies to the trial poses of the answer, and every pair still overlapping there by more than
// overlap_tolerance gets a new row linearised at the trial pose, appended after the others; the
// grown problem is solved again from the answer padded with zeros, until nothing overlaps (or
// `levels` runs out). The recursion is recursion.c's, shared with the world's contactRecursions;
// the solver inside is any registered one (BBPGD by default, as in the authors' SimToolbox).
// Frictionless, as the paper: contacts with friction are not taken (the world then feeds normal
// rows only and says friction_dropped). docs/relcp.md.

#include "solver_kit.h"

#include <math.h>
#include <string.h>

enum
{
    cn_relcpIterations = 0,
    cn_relcpTolerance,
    cn_relcpDeadline,
    cn_relcpWarmStart,
    cn_relcpInner,
    cn_relcpOverlapTolerance,
    cn_relcpLevels,
    cn_relcpGapTolerance,
    cn_relcpParamCount,
};

// the solvers relcp may run inside (not itself; a later solver is added here)
// (tao is in builds with PETSc only: elsewhere relcp says it is not registered)
static const char* const cn_relcpInnerChoices[] = { "bbpgd",  "pgs",           "psor", "pgj", "lemke",
                                                    "pgs_sm", "newton_minmap", "ipm",  "tao" };

static const cnSolverParam cn_relcpParams[cn_relcpParamCount] = {
    { "iterations", "budget of the solver inside, per level, in its own unit", 10000.0, 1.0, 1000000.0,
      cn_paramInteger, NULL, 0 },
    { "tolerance", "each level's solve stops at this grading merit (natural map, unit-free)", 1e-6, 0.0, 1.0,
      cn_paramNumber, NULL, 0 },
    { "deadline_ms", "stop a level's solve after this many milliseconds (0: no deadline)", 0.0, 0.0, 1e6,
      cn_paramNumber, NULL, 0 },
    { "warm_start", "1: the world starts from the contact cache's impulses", 1.0, 0.0, 1.0, cn_paramToggle,
      NULL, 0 },
    { "inner", "the solver of each level", 0.0, 0.0, 8.0, cn_paramChoice, cn_relcpInnerChoices, 9 },
    { "overlap_tolerance", "a pair overlapping by more than this at the trial pose gets a new row, m", 1e-5,
      1e-12, 1.0, cn_paramNumber, NULL, 0 },
    { "levels", "most recursion levels per solve (0: the single-constraint LCP)", 50.0, 0.0, 1000.0,
      cn_paramInteger, NULL, 0 },
    { "gap_tolerance",
      "also stop a level when the projected gradient's largest entry times dt (the linearised gap, m) is at "
      "most this: the paper's rule, for an inner solver that has gradient_tolerance (bbpgd; 0: off)",
      0.0, 0.0, 1.0, cn_paramNumber, NULL, 0 },
};

static void cnRelcpSolve( void* state, const double* params, const cnSolverBudget* budget,
                          cnSolverProblem* problem, const cnPrepared* prepared, cnSolverSolution* solution,
                          cnArena* arena, cnSolverStats* stats )
{
    (void)state;
    int choice = (int)cnSolverParamValue( cn_relcpParams, cn_relcpParamCount, params, cn_relcpInner );
    const cnSolverVTable* inner = cnFindSolver( cn_relcpInnerChoices[choice] );
    if ( inner == NULL || inner->solve == NULL || inner->create != NULL )
    {
        stats->status = cn_solveUnsupported;
        stats->reason =
            "relcp: the inner solver is not in this build (tao needs -DCN_WITH_PETSC=ON), or keeps "
            "state between steps";
        return;
    }
    const char* refusal = cnSolverRefusal( inner, problem );
    if ( refusal != NULL )
    {
        stats->status = cn_solveUnsupported;
        stats->reason = refusal;
        return;
    }

    // the inner solver with its own defaults; the budget is relcp's
    double innerParams[CN_MAX_SOLVER_PARAMS];
    for ( int i = 0; i < inner->paramCount && i < CN_MAX_SOLVER_PARAMS; ++i )
    {
        innerParams[i] = inner->params[i].defaultValue;
    }
    // the paper's stopping rule (SimToolbox's conResTol, in length): w is a velocity, so dt w is the gap
    double gap = cnSolverParamValue( cn_relcpParams, cn_relcpParamCount, params, cn_relcpGapTolerance );
    int gradient = cnFindSolverParam( inner, "gradient_tolerance" );
    if ( gap > 0.0 && gradient >= 0 && gradient < CN_MAX_SOLVER_PARAMS && problem->timeStep > 0.0 )
    {
        innerParams[gradient] = gap / problem->timeStep;
    }
    cnRecursionInner run = { inner, NULL, innerParams };
    cnRecursionSettings settings = {
        .maxLevels = (int)cnSolverParamValue( cn_relcpParams, cn_relcpParamCount, params, cn_relcpLevels ),
        .overlapTolerance =
            cnSolverParamValue( cn_relcpParams, cn_relcpParamCount, params, cn_relcpOverlapTolerance ),
    };
    cnRecursionSolve( &run, &settings, budget, problem, (cnPrepared*)prepared, solution, arena, stats );
}

const cnSolverVTable cn_relcpSolver = {
    .name = "relcp",
    .description = "ReLCP: rows added where the answer still overlaps, solved again (frictionless)",
    .apiVersion = CN_SOLVER_API_VERSION,
    .caps = cn_solverBounded | cn_solverBilateral | cn_solverExplicit | cn_solverMatrixFree |
            cn_solverUsesOracle | cn_solverSinglePass,
    .model = cn_modelPyramid,
    .iterationUnit = "inner iteration",
    .params = cn_relcpParams,
    .paramCount = cn_relcpParamCount,
    .solve = cnRelcpSolve,
};
