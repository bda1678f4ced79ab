// SPDX-License-Identifier: MIT
#pragma once

// What every solver shares: row products through J and W (or an explicit A), projections on the
// rows' admissible sets, the merit function and the stopping rules, and the matrix builders for
// the solvers that want A itself. Nothing here knows about bodies or worlds.

#include "cairn/solver.h"

#include <stdbool.h>

// A_ii for every row (the effective mass inverse of the row). `diagonal` has rowCount entries.
void cnComputeDiagonal( const cnSolverProblem* problem, double* diagonal );

// velocity = W J^T lambda, (bodyCount x 6); matrix-free problems only (a no-op for explicit ones).
void cnComputeVelocity( const cnSolverProblem* problem, const double* lambda, double* velocity );

// (A lambda + b)_row: through `velocity` (= W J^T lambda, kept up to date by the caller) for
// matrix-free problems, through the matrix row for explicit ones.
double cnRowValue( const cnSolverProblem* problem, const double* velocity, const double* lambda, int row );

// After lambda[row] changed by `delta`: velocity += W J_row^T delta (matrix-free; explicit: no-op).
void cnApplyRowDelta( const cnSolverProblem* problem, double* velocity, int row, double delta );

// The row's admissible interval given the current lambda (friction rows depend on their normal
// row's lambda): lambda[row] must lie in [*low, *high].
void cnRowBounds( const cnSolverProblem* problem, const double* lambda, int row, double* low, double* high );

// Natural-map residual (see cnSolverResidual) with caller scratch: `velocity` (bodyCount x 6) and
// `w` (rowCount) are overwritten. Returns the 2-norm.
double cnNaturalResidual( const cnSolverProblem* problem, const double* lambda, double* velocity, double* w );

// Cone natural-map residual for problems whose contacts are 3-row groups (a normal row followed by
// its two friction rows): per contact, r - proj_K(r - w~) with K the Coulomb cone
// {|r_t| <= mu r_n} and w~ = w + (mu |w_t|, 0, 0) (the De Saxce change of variable); rows outside
// such groups use the natural map. Returns the 2-norm. Scratch as above.
double cnConeResidual( const cnSolverProblem* problem, const double* lambda, double* velocity, double* w );

// Append a merit to solution->residualHistory when it was asked for and has room.
void cnRecordResidual( const cnSolverSolution* solution, cnSolverStats* stats, double residual );

// Stopping rules (Erleben's notes, section 4.2): absolute (residual <= tolerance), relative
// (|r_k - r_{k-1}| <= relTolerance r_{k-1}), stagnation (max |dlambda| / max(1, |lambda|) <=
// stagnationTolerance), divergence (residual > divergenceFactor * r_0, or not finite).
typedef struct cnStopRules
{
    double tolerance;
    double relativeTolerance;   // 0: off
    double stagnationTolerance; // 0: off
    double divergenceFactor;    // e.g. 1e6
} cnStopRules;

typedef enum cnStopDecision
{
    cn_continue = 0,
    cn_stopConverged,
    cn_stopDiverged,
    cn_stopNonFinite,
} cnStopDecision;

cnStopDecision cnCheckStop( const cnStopRules* rules, double residual, double previousResidual,
                            double initialResidual, double maxStep );

// Dense A (rowCount x rowCount, row major) from either form; NULL when out of memory or when
// rowCount is too large for a dense matrix (> 4096). Memory from `arena`.
double* cnBuildDenseMatrix( const cnSolverProblem* problem, cnArena* arena );

// Explicit sparse A restricted to the rows and columns in `rows` (count of them, increasing; NULL:
// all rows), for solvers that factorise a subset (PGS-SM). Memory from `arena`. Returns false when
// out of memory.
bool cnBuildSparseMatrix( const cnSolverProblem* problem, const int* rows, int count, cnArena* arena,
                          cnSparseMatrix* matrix );

// ---- Additions for the iterative solvers (PGS, PSOR, PGJ) ------------------------------------

// Notes on the functions above: the builders need an arena (NULL: they return NULL / false) and
// refuse an invalid problem (cnIsProblemValid); a 0-row problem gives a non-NULL dense matrix and
// an empty sparse one. The residuals return NaN where any entry is NaN, 0 for 0 rows.

// True when the problem is structurally sound: counts and arrays present, body indices in
// [-1, bodyCount), friction rows pointing at a normal row with mu >= 0, bounded rows with
// lower <= upper (not NaN), an explicit matrix that is square, rowCount x rowCount, with
// increasing row starts and columns in range. NaN in b, J, W or matrix values is not checked here
// (the solvers report it as cn_solveNonFinite).
bool cnIsProblemValid( const cnSolverProblem* problem );

// Scratch memory from an arena, or from the C library when the arena is NULL (then released by
// cnScratchRelease; with an arena cnScratchRelease does nothing, the arena's reset frees it).
#define CN_SCRATCH_MAX_BLOCKS 8
typedef struct cnScratch
{
    cnArena* arena;
    void* blocks[CN_SCRATCH_MAX_BLOCKS];
    size_t sizes[CN_SCRATCH_MAX_BLOCKS];
    int count;
} cnScratch;

// `count` doubles (at least one, so a zero count still gives memory); NULL when out of memory.
double* cnScratchDoubles( cnScratch* scratch, int count );
void cnScratchRelease( cnScratch* scratch );

// The value of parameter `index` of a solver's parameter table: `params[index]` clamped to the
// table's range, the table's default when `params` is NULL or the value is NaN.
double cnSolverParamValue( const cnSolverParam* table, int count, const double* params, int index );

// The parameters the projected sweeps share, in this order in each solver's table.
enum cnSweepParamIndex
{
    cn_sweepParamIterations = 0,
    cn_sweepParamTolerance,
    cn_sweepParamWarmStart,
    cn_sweepParamRelaxation,
    cn_sweepParamRelativeTolerance,
    cn_sweepParamStagnationTolerance,
    cn_sweepParamDivergenceFactor,
    cn_sweepParamCount,
};

typedef enum cnSweepKind
{
    cn_sweepGaussSeidel = 0, // in place, row order (PGS, PSOR)
    cn_sweepJacobi = 1,      // every row from the previous iterate (PGJ)
} cnSweepKind;

// The projected sweep solver shared by PGS, PSOR and PGJ:
//     lambda_i <- proj_i( lambda_i - relaxation * (A lambda + b)_i / A_ii )
// Gauss-Seidel sweeps update in place in row order (friction bounds from the current normal
// impulse, velocity updated row by row for matrix-free problems); Jacobi sweeps compute every row
// from the previous iterate, then recompute the velocity.
// - cn_solveUnsupported, lambda untouched: an invalid problem, a diagonal entry that is zero,
//   negative or not finite, or out of memory.
// - The guess in solution->lambda is used as given, except that non-finite entries start at 0.
// - The natural residual (cnNaturalResidual) is checked before the first sweep (a guess that
//   already meets the tolerance returns cn_solveConverged with 0 iterations) and after every sweep
//   when tolerance, relative tolerance or the divergence factor is positive; otherwise (all three
//   zero) only at the end, so a fixed number of sweeps costs no residual passes.
// - cn_solveNonFinite: a sweep produced NaN or infinity (lambda is the iterate before that sweep),
//   or the residual of the start or of a finite iterate is not finite (NaN in b, J, W or A, or an
//   overflow; lambda is then the guess or the best iterate).
// - cn_solveDiverged: the divergence rule fired; lambda is the iterate with the smallest residual.
// - stats->residual is the natural residual of the returned lambda; stats->iterations the sweeps
//   whose result was kept (a non-finite sweep is not counted).
// - solution->deltaVelocity (nullable) receives W J^T lambda for matrix-free problems.
void cnProjectedSweepSolve( const cnSolverParam* table, int paramCount, const double* params,
                            cnSweepKind kind, const cnSolverProblem* problem, cnSolverSolution* solution,
                            cnArena* arena, cnSolverStats* stats );

// The parameter table of a projected sweep solver, in cnSweepParamIndex order; only the
// relaxation's default differs between PGS (1), PSOR (1.4) and PGJ (0.3).
// clang-format off
#define CN_SWEEP_PARAM_TABLE( relaxationDefault )                                                          \
    {                                                                                                      \
        { "iterations", "sweep limit", 10.0, 1.0, 100000.0 },                                              \
        { "tolerance", "stop when the natural residual is at most this", 1e-6, 0.0, 1.0 },                 \
        { "warm_start", "1: the world seeds lambda from the contact cache (the solver starts from the "    \
                        "lambda it is given either way)", 1.0, 0.0, 1.0 },                                 \
        { "relaxation", "step factor: lambda_i -= relaxation * w_i / A_ii before the projection",         \
          ( relaxationDefault ), 0.0, 2.0 },                                                               \
        { "relative_tolerance", "stop when |r_k - r_k-1| <= this * r_k-1 (0: off)", 0.0, 0.0, 1.0 },       \
        { "stagnation_tolerance", "stop when max |dlambda| / max(1, |lambda|) <= this (0: off)", 0.0, 0.0, \
          1.0 },                                                                                           \
        { "divergence_factor", "diverged when the residual exceeds this * the initial one (0: off)", 1e6,  \
          0.0, 1e300 },                                                                                    \
    }
// clang-format on
