// SPDX-License-Identifier: MIT
// AMGS: the accelerated modulus-based Gauss-Seidel method of Miyamoto and Yamashita, matrix-free
// through the body velocities (their Method 3.1; docs/amgs.md, the digest ../shared/papers/amgs.md).
// The method iterates on a modulus variable x with lambda = (2/gamma) max(0, x) and a positive
// diagonal Omega. Written in impulse units, y = (2/gamma) x, its row update is
//
//     y_i <- lambda_i - relaxation_i w_i / A_ii + (relaxation_i - 1) d_i,   lambda_i <- clamp(y_i)
//     d_i <- y_i - lambda_i                                  (the overshoot memory, one per row)
//     relaxation_i = 2 / (1 + s_i),   s_i = gamma Omega_ii / A_ii
//
// (the digest's section 3): projected SOR whose step remembers how far the last unprojected iterate
// fell outside the bounds. The shared Gauss-Seidel kernel does it with the memory and row-relaxation
// hooks; the loop, stopping rules and statuses are cnSweepSolve's, so a sweep costs what a PGS
// sweep costs and the solver is graded by the same merit.
//
// Omega: "alpha_d" is Omega = alpha D, the same relaxation 2 / (1 + alpha gamma) on every row
// (alpha = 1 / gamma is the paper's "optimal" choice, and is PGS exactly); "mean_e" is Zheng and
// Yin's Omega = (mean(D) / gamma) E, a relaxation per row that depends on how A_ii compares with
// the mean. gamma alone changes nothing but the scale of x: only alpha gamma matters.
//
// Bounded and friction rows: "symmetric" (Cairn's extension, the digest's 2.7) damps the overshoot
// beyond either bound by relaxation - 1, so that at relaxation 1 it is PGS on the box; "paper" is
// Method 3.2 as printed for 0 <= l < u, read in the shifted variable lambda - l the paper assumes:
// the memory damps only the overshoot below the lower bound and carries one above the upper bound
// whole. The friction bounds +-mu lambda_n are the current ones, as in PGS. The memory starts at
// zero in every solve (the paper's x^0 = (gamma/2) lambda^0 with a warm-started lambda^0).
//
// Refused: alpha gamma below 0.04 (a relaxation above 2/1.04 = 1.92) with Omega = alpha D. At
// alpha = 0 (relaxation 2) the method stalls: the digest measured a residual still 0.1 and 3.5
// after 1500 sweeps on its pile and graded pyramid. alpha below 0.02 is outside the parameter's
// range; a smaller gamma that brings alpha gamma under 0.04 ends the solve cn_solveUnsupported with
// lambda untouched and the reason said. Cone contacts are not taken (the memory has no meaning on a
// cone block): the world reports the fallback.

#include "solver_kit.h"

enum
{
    cn_amgsAlpha = cn_sweepParamRelaxation,
    cn_amgsGamma = cn_sweepParamCount,
    cn_amgsOmega,
    cn_amgsBox,
    cn_amgsParamCount,
};

enum
{
    cn_omegaAlphaD = 0,
    cn_omegaMeanE = 1,
};
static const char* const cn_omegaChoices[] = { "alpha_d", "mean_e" };

enum
{
    cn_boxSymmetric = 0,
    cn_boxPaper = 1,
};
static const char* const cn_boxChoices[] = { "symmetric", "paper" };

// alpha gamma below this is refused (relaxation above 2 / 1.04)
#define CN_AMGS_MIN_ALPHA_GAMMA 0.04

static const cnSolverParam cn_amgsParams[cn_amgsParamCount] = {
    CN_SWEEP_PARAM_HEAD,
    { "alpha",
      "Omega = alpha D: relaxation 2 / (1 + alpha gamma); 1 / gamma is PGS, smaller over-relaxes (the "
      "paper's best: 0.2); below 0.02 it stalls",
      0.2, 0.02, 100.0, cn_paramNumber, NULL, 0 },
    CN_SWEEP_PARAM_TAIL,
    { "gamma", "the modulus scale, lambda = (2 / gamma) max(0, x); only alpha gamma matters (the paper: 2)",
      2.0, 0.5, 100.0, cn_paramNumber, NULL, 0 },
    { "omega",
      "alpha_d: Omega = alpha D; mean_e: Omega = mean(D) / gamma E (Zheng and Yin's choice, alpha unused)",
      0.0, 0.0, 1.0, cn_paramChoice, cn_omegaChoices, 2 },
    { "box",
      "symmetric: the overshoot past either bound damped alike (Cairn's extension); paper: Method 3.2 as "
      "printed, an overshoot above the upper bound kept whole",
      0.0, 0.0, 1.0, cn_paramChoice, cn_boxChoices, 2 },
};

static void cnAmgsSolve( void* state, const double* params, const cnSolverBudget* budget,
                         cnSolverProblem* problem, const cnPrepared* prepared, cnSolverSolution* solution,
                         cnArena* arena, cnSolverStats* stats )
{
    (void)state;
    const cnSolverParam* table = cn_amgsParams;
    int n = problem->rowCount;
    double alpha = cnSolverParamValue( table, cn_amgsParamCount, params, cn_amgsAlpha );
    double gamma = cnSolverParamValue( table, cn_amgsParamCount, params, cn_amgsGamma );
    int omega = (int)cnSolverParamValue( table, cn_amgsParamCount, params, cn_amgsOmega );
    int box = (int)cnSolverParamValue( table, cn_amgsParamCount, params, cn_amgsBox );
    stats->status = cn_solveUnsupported;
    stats->ownMeasure = (double)NAN;
    if ( omega == cn_omegaAlphaD && alpha * gamma < CN_AMGS_MIN_ALPHA_GAMMA )
    {
        stats->reason =
            "amgs: alpha * gamma is below 0.04 (a relaxation above 1.92), where the method stalls";
        return;
    }

    cnScratch scratch = { .arena = arena };
    cnSweepHooks hooks = cnSweepHooksFromParams( table, cn_amgsParamCount, params );
    hooks.relaxation = 2.0 / ( 1.0 + alpha * gamma );
    hooks.upperMemoryFull = box == cn_boxPaper;
    hooks.memory = cnScratchDoubles( &scratch, n );
    if ( hooks.memory == NULL )
    {
        stats->reason = "out of memory";
        return;
    }
    for ( int i = 0; i < n; ++i )
    {
        hooks.memory[i] = 0.0;
    }
    if ( omega == cn_omegaMeanE && prepared->singularRows == 0 && n > 0 )
    {
        // s_i = gamma (mean(D) / gamma) / A_ii = mean(D) / A_ii
        double* relaxation = cnScratchDoubles( &scratch, n );
        if ( relaxation == NULL )
        {
            cnScratchRelease( &scratch );
            stats->reason = "out of memory";
            return;
        }
        double mean = 0.0;
        for ( int i = 0; i < n; ++i )
        {
            mean += prepared->diagonal[i];
        }
        mean /= n;
        for ( int i = 0; i < n; ++i )
        {
            relaxation[i] = 2.0 / ( 1.0 + mean / prepared->diagonal[i] );
        }
        hooks.rowRelaxation = relaxation;
    }
    cnSweepSolve( table, cn_amgsParamCount, params, cn_sweepGaussSeidel, budget, problem, prepared, solution,
                  arena, stats, &hooks );
    cnScratchRelease( &scratch );
}

const cnSolverVTable cn_amgsSolver = {
    .name = "amgs",
    .description = "accelerated modulus-based Gauss-Seidel (Miyamoto and Yamashita): relaxed PGS with an "
                   "overshoot memory",
    .apiVersion = CN_SOLVER_API_VERSION,
    .caps =
        cn_solverFriction | cn_solverBounded | cn_solverBilateral | cn_solverExplicit | cn_solverMatrixFree,
    .model = cn_modelPyramid,
    .iterationUnit = "sweep",
    .params = cn_amgsParams,
    .paramCount = cn_amgsParamCount,
    .solve = cnAmgsSolve,
};
