// SPDX-License-Identifier: MIT
#pragma once

// The solver kit: what every solver in solvers/ shares, private to this folder. The engine sees
// the layer through solver_layer.h only.
//
//   problem.c   validation, the data prepared once per solve (cnPrepared), row products, the
//               dense and sparse builders
//   merit.c     the grading merits (cnSolverMerits) and the per-iteration merit of a model
//   sweep.c     the sweep kernel (Gauss-Seidel in contact-point-major blocks, a reference row
//               sweep, Jacobi) with its hooks, and the sweep solver PGS, PSOR and PGJ share
//   solver_layer.c  the registry, parameters, and one solve as the layer runs it
//
// Nothing here knows about bodies or worlds.

#include "cairn/solver.h"

#include <stdbool.h>
#include <stdint.h>

// ---- rows -----------------------------------------------------------------------------------------

// What each row is, from its group (cnPrepared.rowKind).
typedef enum cnRowKind
{
    cn_rowNormal = 0,  // lambda >= 0 (a contact's normal row, or a cn_groupNormal row)
    cn_rowTangent = 1, // a contact's tangent row: bounds from mu and the normal impulse
    cn_rowBounded = 2, // lower <= lambda <= upper (bounded and bilateral rows)
} cnRowKind;

// ---- the data prepared once per solve ---------------------------------------------------------------

// One matrix-free row as the sweep kernel reads it: J and W J^T on each side, side by side so that
// a row's dot product and its update read neighbouring memory. An absent side is zeros.
typedef struct cnSweepRow
{
    double jA[6];  // J on body A: linear xyz, angular xyz
    double wjA[6]; // W_A J_A^T: the velocity change of body A per unit impulse
    double jB[6];
    double wjB[6];
} cnSweepRow;

// Prepared by the layer before a solve (cnPrepareProblem) and extended by cnPrepareRows after the
// oracle appends rows. Everything has room for the problem's rowCapacity and groupCapacity.
struct cnPrepared
{
    int rowCount;   // rows prepared: the problem's rowCount
    int groupCount; // groups prepared
    bool explicitForm;
    // per row
    uint8_t* rowKind;      // cnRowKind
    int32_t* rowGroup;     // the group of each row
    int32_t* normalRow;    // tangent rows: their normal row; others -1
    double* baseDiagonal;  // A_ii, from J and W alone
    double* diagonal;      // A_ii + softness_i
    double* invDiagonal;   // 1 / diagonal, 0 where the diagonal is not positive and finite
    cnSweepRow* sweepRows; // matrix-free problems: J and W J^T per row; NULL for explicit ones
    // rows whose diagonal is not positive and finite (a sweep is not defined there)
    int singularRows;
    // rows with NaN or infinity in b, softness, J or their bodies' W, or a negative softness (the
    // solvers report cn_solveNonFinite before they start)
    int nonFiniteRows;
    // |D^-1/2 b|^2, the part of the merits' scale that does not depend on lambda
    double freeEnergy;
    // the groups' body pairs are the same on every row of the group (checked by validation)
    bool hasCone; // some contact group has the cone model
    // the problem's colouring holds (no two groups of a colour share a body): the fast sweep
    // runs a colour's groups on the problem's workers
    bool colored;
    // coloured problems: the runs of each colour (groups in a row that each share a body with the
    // one before: a contact's points). At a run's first group its length, negative when the
    // sweep's lanes cannot take it (not all contacts of the pyramid model on one pair of bodies, two
    // dynamic or one and the world; sweep.c); 0 at its other groups. Groups [0,
    // colorStart[colorCount]); NULL without colours.
    int32_t* colorRuns;
};

// Check a problem's structure: counts within capacities, groups tiling the rows in order with the
// right row counts, bodies in [-1, bodyCount) and the same on every row of a group, mu >= 0,
// lower <= upper on bounded and bilateral rows, softness >= 0, an explicit matrix square with
// increasing row starts and columns in range. NaN in b, J, W or matrix values is not checked here
// (the solvers report it as cn_solveNonFinite). False with a static reason in *why (nullable).
bool cnValidateProblem( const cnSolverProblem* problem, const char** why );

// Why `solver` cannot take `problem` (its caps against the problem's groups and form), or NULL.
const char* cnSolverRefusal( const cnSolverVTable* solver, const cnSolverProblem* problem );

// Where a block of a colour's groups [colorFirst, colorEnd) that would start at group `nominal`
// starts: moved past groups that share a body with the group before them (a contact's points),
// so that such a run stays in one block. colorEnd when nominal is at or past it.
int cnColorBlockStart( const cnSolverProblem* problem, int colorFirst, int colorEnd, int nominal );

// Whether groups g and h act on a common body (a dynamic one: -1 is no body).
bool cnGroupsShareBody( const cnSolverProblem* problem, int g, int h );

// Prepare the problem's rows [0, rowCount) and groups. Memory from `scratch` (6 blocks). False when
// out of memory. The problem must be valid.
typedef struct cnScratch cnScratch;
bool cnPrepareProblem( const cnSolverProblem* problem, cnScratch* scratch, cnPrepared* prepared );

// Prepare what the oracle appended: rows [prepared->rowCount, problem->rowCount) and the new
// groups. The arrays were sized for the capacities by cnPrepareProblem.
void cnPrepareRows( const cnSolverProblem* problem, cnPrepared* prepared );

// Redo what b and the softness fix (the diagonal with softness, its inverse, the counts, the free
// scale) after they changed; J, W and the groups must be as they were prepared. What the world's
// relax pass needs after its soft pass.
void cnRefreshPrepared( const cnSolverProblem* problem, cnPrepared* prepared );

// ---- products ---------------------------------------------------------------------------------------

// a . b of two 6-vectors (one body's part of a row's J against a velocity, or against W J^T)
static inline double cnDot6( const double* a, const double* b )
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] + a[4] * b[4] + a[5] * b[5];
}

// out = W_body j: the body's linear 3x3 block of W on j[0..2], its angular block on j[3..5]
static inline void cnApplyW( const cnSolverProblem* problem, int body, const double* j, double* out )
{
    const double* l = problem->wLinear + 9 * body;
    const double* a = problem->wAngular + 9 * body;
    for ( int r = 0; r < 3; ++r )
    {
        out[r] = l[3 * r] * j[0] + l[3 * r + 1] * j[1] + l[3 * r + 2] * j[2];
        out[3 + r] = a[3 * r] * j[3] + a[3 * r + 1] * j[4] + a[3 * r + 2] * j[5];
    }
}

// The textbook row products the reference sweep uses: J_i . velocity summed in row order, and
// velocity += W J_i^T delta with W applied as its 3x3 blocks.
double cnRowVelocity( const cnSolverProblem* problem, int row, const double* velocity );
void cnApplyRowImpulse( const cnSolverProblem* problem, int row, double delta, double* velocity );

// velocity = W J^T lambda, (bodyCount x 6); matrix-free problems only (a no-op for explicit ones).
void cnComputeVelocity( const cnSolverProblem* problem, const cnPrepared* prepared, const double* lambda,
                        double* velocity );

// w = (A + diag(softness)) lambda + b for every row, through `velocity` (= W J^T lambda) for
// matrix-free problems, through the matrix for explicit ones.
void cnComputeW( const cnSolverProblem* problem, const cnPrepared* prepared, const double* lambda,
                 const double* velocity, double* w );

// The admissible interval of row i of the pyramid model given the current lambda (a tangent row's
// bounds are +-mu max(lambda_n, 0)).
void cnRowBounds( const cnSolverProblem* problem, const cnPrepared* prepared, const double* lambda, int row,
                  double* low, double* high );

// Dense A + diag(softness) (rowCount x rowCount, row major); NULL when out of memory or when
// rowCount is above CN_DENSE_LIMIT. Memory from `arena`.
#define CN_DENSE_LIMIT 4096
double* cnBuildDenseMatrix( const cnSolverProblem* problem, cnArena* arena );

// Explicit sparse A + diag(softness) restricted to the rows and columns in `rows` (count of them,
// increasing; NULL: all rows), for solvers that factorise a subset (PGS-SM). Memory from `arena`.
// False when out of memory or the subset is not increasing and in range.
bool cnBuildSparseMatrix( const cnSolverProblem* problem, const int* rows, int count, cnArena* arena,
                          cnSparseMatrix* matrix );
// The same from the caller's scratch (arena NULL: the C library's memory, which the caller frees
// with cnScratchRelease once it no longer reads the matrix; what repeated builds within one solve
// use). Takes up to 9 of the scratch's blocks.
bool cnBuildSparseMatrixIn( const cnSolverProblem* problem, const int* rows, int count, cnScratch* scratch,
                            cnSparseMatrix* matrix );

// y = K x for an explicit CSR matrix (x and y do not alias).
void cnSparseMultiply( const cnSparseMatrix* k, const double* x, double* y );

// ---- merits -----------------------------------------------------------------------------------------

// Projection of (xn, x1, x2) on the cone |x_t| <= mu x_n (mu >= 0) into p[0 .. 3): kept inside,
// zero in the polar cone, onto the surface otherwise; p[0] is NaN when an input is NaN. The cone
// merit's natural map and the sweep kernel's cone block (sweep.c) share it.
void cnProjectCone( double mu, double xn, double x1, double x2, double* p );

// The merits of lambda given w (= (A + S) lambda + b) for every row.
void cnMeritsFromW( const cnSolverProblem* problem, const cnPrepared* prepared, const double* lambda,
                    const double* w, cnSolverMerits* merits );

// The physics test's slack, m/s: a contact may close this much faster than it approached, and the
// contacts may add the energy of each one's approach sped up by this much (solver_layer.c).
#define CN_PHYSICS_SLACK 1e-3

// The physics of lambda given w (= (A + S) lambda + b): cnSolvePhysics over the contact and normal
// groups (docs/solvers.md, "The physics test").
void cnPhysicsFromW( const cnSolverProblem* problem, const cnPrepared* prepared, const double* lambda,
                     const double* w, cnSolvePhysics* physics );

// The grading merit of one model (naturalMap for the pyramid, cone for the cone) given w; what the
// solvers record per iteration.
double cnModelMeritFromW( const cnSolverProblem* problem, const cnPrepared* prepared, cnSolverModel model,
                          const double* lambda, const double* w );

// The grading merit of the problem's own models given w: each contact group by its friction model
// (cn_frictionCone: the cone merit's map; cn_frictionPyramid: the natural map), other rows by the
// natural map. The same number, bit for bit, as cnModelMeritFromW's cone merit when every contact
// is a cone and as its pyramid merit when none is; what the sweep solvers stop on and the layer
// grades them by on problems with cone contacts (the cone merit alone would grade a mixed
// problem's pyramid contacts against the cone, which their exact answer does not solve).
double cnProblemMeritFromW( const cnSolverProblem* problem, const cnPrepared* prepared, const double* lambda,
                            const double* w );

// to[0 .. count) = from[0 .. count); nothing when count <= 0 (then either may be NULL).
void cnCopyDoubles( double* to, const double* from, int count );

// Append `merit` to the solution's residual history (when it has room) and count it in
// stats->historyCount: what every solver records at its start and after each iteration.
void cnRecordHistory( const cnSolverSolution* solution, cnSolverStats* stats, double merit );

// The scale the merits divide by: |D^1/2 lambda| + |D^-1/2 b|.
double cnMeritScale( const cnSolverProblem* problem, const cnPrepared* prepared, const double* lambda );

// ---- scratch and parameters ---------------------------------------------------------------------------

// Scratch from an arena, or from the C library when the arena is NULL (released by
// cnScratchRelease; with an arena it does nothing, the arena's reset frees it).
#define CN_SCRATCH_MAX_BLOCKS 12
struct cnScratch
{
    cnArena* arena;
    void* blocks[CN_SCRATCH_MAX_BLOCKS];
    size_t sizes[CN_SCRATCH_MAX_BLOCKS];
    int count;
};

// `count` doubles (at least one); NULL when out of memory.
double* cnScratchDoubles( cnScratch* scratch, int count );
// `size` bytes aligned to 64; NULL when out of memory.
void* cnScratchBytes( cnScratch* scratch, size_t size );
void cnScratchRelease( cnScratch* scratch );

// The value of parameter `index`: params[index] clamped to the table's range, the default when
// params is NULL or the value NaN.
double cnSolverParamValue( const cnSolverParam* table, int count, const double* params, int index );

// ---- the sweep kernel ------------------------------------------------------------------------------------

typedef enum cnSweepKind
{
    cn_sweepGaussSeidel = 0, // in place, group by group in row order (PGS, PSOR, AMGS, PGS-SM's phase)
    cn_sweepJacobi = 1,      // every row from the previous iterate (PGJ)
} cnSweepKind;

// Hooks that change one sweep:
//     y_i = lambda_i + c_i d_i - relaxation_i w_i / A_ii,   lambda_i <- clamp(y_i),
// with c_i = relaxation_i - 1 (or 1 where d_i > 0 and upperMemoryFull is set):
// - relaxation: the step factor (1: PGS);
// - rowRelaxation (nullable, rowCount): a step factor per row instead (AMGS with Omega = w E);
// - memory (nullable, rowCount): d_i, the signed overshoot y_i - clamp(y_i) of the row's last
//   update, kept across sweeps (AMGS's modulus memory; NULL: d = 0, plain projected SOR);
// - upperMemoryFull: an overshoot above the upper bound is carried whole (coefficient 1), as the
//   boxed AMGS of Miyamoto and Yamashita's Method 3.2 does; below the lower bound it is damped by
//   relaxation - 1 either way;
// - frozenLow / frozenHigh (nullable, rowCount): bounds to use for every row instead of the
//   model's (PGS-SM's subspace phase freezes the friction bounds);
// - reference: the textbook arithmetic, row by row (w from J and the velocities, the division by
//   A_ii, W applied as its 3x3 blocks): what reproduces other projects' iterates; the fast kernel
//   agrees with it to round-off;
// - relaxedCone: how contact groups with the cone model are updated (below): false (the default)
//   the exact Coulomb law, true the relaxed cone complementarity problem.
// A contact group with the cone model (cn_frictionCone) is one block in every kernel: w of its
// three rows at the current velocities (Jacobi: of the previous iterate), then
//     lambda_g <- Proj_{K_mu}( lambda_g - relaxation eta (w_n + s mu |w_t|, w_t1, w_t2) ),
// eta = 3 / (A_nn + A_t1t1 + A_t2t2) with the softness, s = 1 (De Saxce's shift: the fixed points
// are the zeros of the cone merit) or 0 (relaxedCone: Anitescu and Tasora's convex problem), and
// the velocities move by W J^T of the three changes. Memory, row relaxations and frozen bounds do not apply
// to cone groups (their memory entries are left as they are): the methods that use them (AMGS, PGS-SM's
// subspace phase) solve the pyramid only.
typedef struct cnSweepHooks
{
    double relaxation;
    const double* rowRelaxation;
    double* memory;
    bool upperMemoryFull;
    const double* frozenLow;
    const double* frozenHigh;
    bool reference;
    bool relaxedCone;
    // nullable, (groupCount): groups the sweep leaves alone (the joints' groups that the exact block
    // of bilateral.h solves after each sweep); their impulses still count in lambdaEnergy
    const bool* skipGroups;
    // the coloured sweep without AVX2 even where the CPU has it (the parameter simd = off); the
    // same bits either way (sweep.c)
    bool scalar;
} cnSweepHooks;

// What a sweep measured: sums over the rows it updated (a cone block's three rows too).
typedef struct cnSweepResult
{
    double updateEnergy; // sum of A_ii (lambda_new - lambda_old)^2
    double lambdaEnergy; // sum of A_ii lambda_new^2
    bool finite;         // false: a value became NaN or infinite (lambda is then partly updated)
} cnSweepResult;

// One sweep over every row. `velocity` (bodyCount x 6) is W J^T lambda and is kept so; Jacobi
// reads the previous iterate from `previous` (rowCount) and writes lambda.
cnSweepResult cnSweep( const cnSolverProblem* problem, const cnPrepared* prepared, cnSweepKind kind,
                       const cnSweepHooks* hooks, double* lambda, double* velocity, const double* previous );

// The parameters the sweep solvers share, in this order at the start of their tables.
enum cnSweepParamIndex
{
    cn_sweepParamIterations = 0,
    cn_sweepParamTolerance,
    cn_sweepParamDeadline,
    cn_sweepParamWarmStart,
    cn_sweepParamRelaxation,
    cn_sweepParamKernel,
    cn_sweepParamRelativeTolerance,
    cn_sweepParamStagnationTolerance,
    cn_sweepParamDivergenceFactor,
    cn_sweepParamDeSaxce,
    cn_sweepParamJoints,
    cn_sweepParamSimd,
    cn_sweepParamCount,
};

// kernel choices
enum
{
    cn_kernelFast = 0,
    cn_kernelReference = 1,
};
extern const char* const cn_kernelChoices[2];

// The sweep solvers' "joints" parameter: the free rows of joints swept like every row, or after
// every sweep solved exactly on their tree (bilateral.h).
enum
{
    cn_jointsSweep = 0,
    cn_jointsExact = 1,
};
extern const char* const cn_jointsChoices[2];

// The "simd" parameter: the coloured sweep four contact points at a time in AVX2 where the CPU has
// it (auto), or always the scalar kernel (off). The same bits either way.
enum
{
    cn_simdAuto = 0,
    cn_simdOff = 1,
};
extern const char* const cn_simdChoices[2];

// The sweep solver's loop: sweeps of `kind` with the hooks from the parameters until the budget,
// a stopping rule or a failure ends it. Its own measure is the update energy of the last sweep,
// sqrt(sum A_ii dlambda^2) / (|D^1/2 lambda| + |D^-1/2 b|): for a Gauss-Seidel sweep the natural
// map at the mixed iterate, so the grading merit is computed only to confirm convergence (when the
// measure is at or below the tolerance) or when a history is asked for. The grading merit is the
// pyramid's natural map, or when the problem has a cone contact (prepared->hasCone) the merit of
// the problem's own models (cnProblemMeritFromW: the cone merit when every contact is a cone; the
// layer grades stats->residual the same way for solvers with cn_solverCone). Rules (Erleben's notes,
// 4.2) on that measure: absolute (confirmed on the merit), relative, stagnation, and divergence
// (the solve ends with its update above divergence_factor times the smallest of the solve and its
// merit above the start's, or a sweep runs away past a thousand times the smallest update:
// cn_solveDiverged, lambda put back to the start).
// `own` (nullable) gives the hooks instead of the table (AMGS: its relaxation, memory and row
// relaxations); the table's kernel, tolerances, divergence rule and de_saxce apply either way.
void cnSweepSolve( const cnSolverParam* table, int paramCount, const double* params, cnSweepKind kind,
                   const cnSolverBudget* budget, const cnSolverProblem* problem, const cnPrepared* prepared,
                   cnSolverSolution* solution, cnArena* arena, cnSolverStats* stats,
                   const cnSweepHooks* own );

// The hooks the shared parameters give: relaxation, kernel (reference), de_saxce (relaxedCone) and
// simd (scalar).
cnSweepHooks cnSweepHooksFromParams( const cnSolverParam* table, int paramCount, const double* params );

// The table of a sweep solver, in cnSweepParamIndex order; the relaxation's default is its own.
// AMGS puts its alpha where the relaxation is (CN_SWEEP_PARAM_HEAD, alpha, CN_SWEEP_PARAM_TAIL).
// clang-format off
#define CN_SWEEP_PARAM_TABLE( relaxationDefault )                                                              \
    CN_SWEEP_PARAM_HEAD,                                                                                       \
    { "relaxation", "step factor: lambda_i -= relaxation * w_i / A_ii before the projection",                \
      ( relaxationDefault ), 0.0, 2.0, cn_paramNumber, NULL, 0 },                                            \
    CN_SWEEP_PARAM_TAIL

#define CN_SWEEP_PARAM_HEAD                                                                                    \
    { "iterations", "sweep budget per solve", 10.0, 1.0, 1000000.0, cn_paramInteger, NULL, 0 },               \
    { "tolerance", "stop when the grading merit (natural map; the cone merit on problems with cone "         \
                   "contacts; unit-free) is at most this (0: run the budget)",                               \
      1e-6, 0.0, 1.0, cn_paramNumber, NULL, 0 },                                                              \
    { "deadline_ms", "stop after this many milliseconds of a solve (0: no deadline)", 0.0, 0.0, 1e6,         \
      cn_paramNumber, NULL, 0 },                                                                              \
    { "warm_start", "1: the world starts from the contact cache's impulses (the solver starts from the "      \
                    "lambda it is given either way)", 1.0, 0.0, 1.0, cn_paramToggle, NULL, 0 }

#define CN_SWEEP_PARAM_TAIL                                                                                    \
    { "kernel", "fast: contact-point blocks with W J^T prepared; reference: the textbook row sweep",          \
      0.0, 0.0, 1.0, cn_paramChoice, cn_kernelChoices, 2 },                                                   \
    { "relative_tolerance", "stop when the measure changes by at most this fraction in a sweep (0: off)",     \
      0.0, 0.0, 1.0, cn_paramNumber, NULL, 0 },                                                               \
    { "stagnation_tolerance", "stop when the measure is at most this, unconfirmed (0: off)", 0.0, 0.0, 1.0,   \
      cn_paramNumber, NULL, 0 },                                                                              \
    { "divergence_factor", "diverged when a solve's last update is above this times its smallest and "       \
                           "its merit above its start's (0: off)",                                            \
      2.0, 0.0, 1e300, cn_paramNumber, NULL, 0 },                                                             \
    { "de_saxce", "1: the exact Coulomb law (De Saxce's shift of the normal velocity by mu |w_t|); 0: the "   \
                  "relaxed cone complementarity problem (no shift), as Tasora and Anitescu's PGJ",           \
      1.0, 0.0, 1.0, cn_paramToggle, NULL, 0 },                                                               \
    { "joints", "sweep: the joints' free rows swept like every row; exact: after every sweep, solved "          \
                "exactly on their tree of bodies (loops: block by block)",                                     \
      1.0, 0.0, 1.0, cn_paramChoice, cn_jointsChoices, 2 },                                                   \
    { "simd", "auto: a coloured sweep (world.coloring) four contact points at a time in AVX2 where the CPU "  \
              "has it; off: the scalar kernel (the same bits)",                                              \
      0.0, 0.0, 1.0, cn_paramChoice, cn_simdChoices, 2 }
// clang-format on

// ---- the ReLCP recursion (recursion.c) -------------------------------------------------------------

// The solver inside the recursion: a registered vtable, its state (NULL) and parameters.
typedef struct cnRecursionInner
{
    const cnSolverVTable* solver;
    void* state;
    const double* params;
} cnRecursionInner;

typedef struct cnRecursionSettings
{
    int maxLevels;           // oracle calls that may add rows (0: the single-constraint LCP)
    double overlapTolerance; // m: the overlap at a trial pose that asks for a row
} cnRecursionSettings;

// Solve with `inner`, then while the problem's oracle appends rows for overlaps at the trial poses
// of the answer (at most maxLevels times), solve the grown problem from the answer padded with
// zeros. A level the inner solver cannot solve (an unusable status or a non-finite answer) is taken
// back: its rows go, the level before it is the answer, stats->fallbacks counts it. Rows found on
// the call after the last level are not solved (stats->overlap then stays above the tolerance).
// stats: the status, reason and own measure of the last level kept; iterations and history summed
// over the levels; oracleCalls, levels, rowsAdded, rowsRefused, overlap. Without an oracle it is
// one solve. `prepared` follows the rows.
void cnRecursionSolve( const cnRecursionInner* inner, const cnRecursionSettings* settings,
                       const cnSolverBudget* budget, cnSolverProblem* problem, cnPrepared* prepared,
                       cnSolverSolution* solution, cnArena* arena, cnSolverStats* stats );
