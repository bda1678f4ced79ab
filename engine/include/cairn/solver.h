// SPDX-License-Identifier: MIT
#pragma once

/// @defgroup solver Constraint solvers
/// The pluggable solver layer: the contract between the engine (or a problem file) and every
/// solver. A solver sees one problem, a budget, scratch memory and a statistics struct, never
/// bodies, ids or the world, so it can be swapped between two steps (cnWorld_SetSolver) and run on
/// problems read from files (cnRunSolver).
///
/// **The problem** (solver API version 4) is a complementarity problem in the constraint impulses
/// lambda (N s for an inertial world, N for an overdamped one, where impulses are forces):
///
///     w = (A + diag(softness)) lambda + b,    A = J W J^T,    b = J v* + bias
///
/// w is the velocity of each row after the solve (m/s or rad/s), W the per-body mobility (inverse
/// mass and inertia for inertial worlds, the drag mobility for overdamped ones), v* the predicted
/// velocities. The rows come in **groups** that tile them in order (group g covers rows
/// groups[g].firstRow ... firstRow + rowCount - 1, and the next group starts where it ends):
///
/// | group             | rows | admissible lambda                   | complementary to              |
/// | ----------------- | ---- | ----------------------------------- | ----------------------------- |
/// | cn_groupContact   | 3    | normal >= 0; tangents: friction set | w_n >= 0; slide opposed       |
/// | cn_groupNormal    | 1    | lambda >= 0                         | w >= 0 (frictionless contact) |
/// | cn_groupBounded   | 1    | lower <= lambda <= upper            | w = 0 strictly inside         |
/// | cn_groupBilateral | 1-6  | per row lower <= lambda <= upper    | w = 0 strictly inside         |
///
/// (A free bilateral row has bounds -INFINITY and INFINITY.)
///
/// A contact group is one contact point: its normal row, then two tangent rows, with the point's
/// friction coefficient mu and a friction model:
/// - cn_frictionPyramid: each tangent impulse in [-mu lambda_n, mu lambda_n], and w_t = 0 where it
///   is strictly inside (the box, or pyramid, of the LCP solvers);
/// - cn_frictionCone: the exact Coulomb cone |lambda_t| <= mu lambda_n, with the tangent impulse
///   opposite the tangent velocity when it slides (maximum dissipation).
///
/// A is never formed unless a solver asks for it: J (6 numbers per body per row) and the per-body
/// 3x3 blocks of W give every product (the matrix-free form, the engine's). Problems read from
/// files carry an explicit A instead (the explicit form).
///
/// **The layer** prepares data once per solve (W J^T per row, 1 / A_ii, the group layout; see
/// solvers/solver_kit.h), calls the solver, and grades the result with the merits of
/// cnSolverMerits, whatever the solver: every solver is compared on that one scale.
/// @{

#include "cairn/base.h"
#include "cairn/status.h"
#include "cairn/types.h"

#include <stdbool.h>
#include <stdint.h>

/// Bump when the vtable, the problem or the statistics change layout or meaning.
#define CN_SOLVER_API_VERSION 7

/// Most parameters one solver may declare.
#define CN_MAX_SOLVER_PARAMS 64

/// Kinds of row groups (see the table above).
typedef enum cnGroupKind
{
    cn_groupContact = 0,   ///< 3 rows: normal, tangent 1, tangent 2; mu and a friction model
    cn_groupNormal = 1,    ///< 1 row: a frictionless normal
    cn_groupBounded = 2,   ///< 1 row: constant bounds lower <= lambda <= upper
    cn_groupBilateral = 3, ///< 1 to 6 rows of a joint: each free (infinite bounds) or limited
    cn_groupKindCount
} cnGroupKind;

// cnFrictionModel, the friction model of a contact group, is in cairn/types.h (a world setting too:
// cnWorldDef.frictionModel).

/// Most rows of one group.
#define CN_MAX_GROUP_ROWS 6

/// Levels of oracle rows a step's problem has room for: the world makes room for this many calls'
/// worth of rows (one per manifold point of every pair, plus pairs the trial poses bring); what
/// does not fit is refused and counted (cnOracleResult.rowsRefused).
#define CN_ORACLE_LEVELS 4

/// One group of rows.
typedef struct cnRowGroup
{
    int32_t firstRow;
    int32_t rowCount; ///< 3 for a contact, 1 for a normal or bounded row, 1 to 6 for a bilateral group
    uint8_t kind;     ///< cnGroupKind
    uint8_t model;    ///< cnFrictionModel (contacts; 0 otherwise)
    double mu;        ///< friction coefficient of a contact, >= 0 (0 otherwise)
} cnRowGroup;

/// An explicit sparse matrix in compressed sparse rows (CSR).
typedef struct cnSparseMatrix
{
    int rows;
    int columns;
    const int* rowStart; ///< (rows + 1)
    const int* column;   ///< (nonzeros) column of each entry, increasing within a row
    const double* value; ///< (nonzeros)
} cnSparseMatrix;

typedef struct cnSolverProblem cnSolverProblem;

/// What an oracle call did.
typedef struct cnOracleResult
{
    int rowsAdded;   ///< rows appended at the end of the problem
    int groupsAdded; ///< their groups
    int rowsRefused; ///< overlaps found that had no room (rowCapacity or groupCapacity)
    /// Deepest overlap found at the trial poses, m (0 when none).
    double maxOverlap;
} cnOracleResult;

/// What ReLCP asks the engine: "given these impulses, where do the bodies go and which pairs
/// overlap there?" The engine moves the bodies to trial poses by lambda's velocity change (the
/// pose the integrator would give them), re-runs the broadphase for the bodies whose trial boxes
/// leave their fat boxes, collides every candidate pair there and **appends** one frictionless
/// normal row (a cn_groupNormal group) for every point overlapping by more than
/// `overlapTolerance`, in a deterministic order (pair order, then point order), with Jacobians at
/// the trial pose and b = separation / dt - J deltaVelocity: the row asks that the pair's gap,
/// linearised at the trial pose, be non-negative at the end of the step (ReLCP digest 3.5). The
/// oracle never changes an existing row, and
/// never appends past rowCapacity or groupCapacity (what does not fit is counted in
/// `rowsRefused`, not added). After each call the solver re-reads rowCount and groupCount (the
/// array pointers stay the same). The world sets it for solvers with cn_solverUsesOracle and when
/// cnWorldDef.contactRecursions asks for the recursion: on the final pass of each substep of an
/// overdamped world, on the position pass of an inertial one (its unknowns pseudo-impulses, its
/// velocities the solved ones; docs/relcp.md). Problems from files have none (fcn NULL).
typedef struct cnSolverOracle
{
    void* context;
    /// Nullable. `lambda` (rowCount) the current impulses, `deltaVelocity` (bodyCount x 6) their
    /// W J^T lambda; `overlapTolerance` (m, > 0) the overlap that asks for a row. Returns
    /// cn_statusOk, or a failure (the solver then keeps its last good level).
    cnStatus ( *fcn )( void* context, cnSolverProblem* problem, const double* lambda,
                       const double* deltaVelocity, double overlapTolerance, cnOracleResult* result );
} cnSolverOracle;

/// One solver problem. Solvers read it and never write it; only the oracle appends rows.
struct cnSolverProblem
{
    int rowCount;
    /// Rows every per-row array has room for (>= rowCount); the oracle appends up to it.
    int rowCapacity;
    int groupCount;
    int groupCapacity;       ///< (>= groupCount)
    int bodyCount;           ///< bodies with a W block (0 for an explicit problem)
    double timeStep;         ///< s; 0 when unknown (problems from files)
    cnDynamicsMode dynamics; ///< what lambda and W mean (inertial: impulses; overdamped: forces)

    cnRowGroup* groups; ///< (groupCapacity)
    double* lower;      ///< (rowCapacity) bounds of bounded and bilateral rows (may be -INFINITY)
    double* upper;      ///< (rowCapacity) (may be INFINITY); other rows: unused
    double* b;          ///< (rowCapacity) right-hand side: J v* + bias
    /// (rowCapacity) nullable: a constraint-force-mixing term per row (>= 0; soft contacts).
    /// Every solver solves w = (A + diag(softness)) lambda + b; NULL means zeros.
    double* softness;
    /// (rowCapacity) nullable: each row's velocity before the solve, J v, that is b without its
    /// bias terms (restitution, a speculative gap, the soft push). The layer's physics test
    /// (cnSolvePhysics) reads it; NULL: b is taken as the velocity (a problem from a file). NaN in a
    /// group's first row leaves the group out of the test (a joint's limit: not a contact).
    const double* velocity;

    /// Matrix-free form (matrix == NULL): rows act on at most two bodies.
    int32_t* bodyA;         ///< (rowCapacity) body index, -1 for none (static or kinematic)
    int32_t* bodyB;         ///< (rowCapacity)
    double* jacobianA;      ///< (rowCapacity x 6) linear xyz then angular xyz
    double* jacobianB;      ///< (rowCapacity x 6)
    const double* wLinear;  ///< (bodyCount x 9) 3x3 block of W acting on force, row major
    const double* wAngular; ///< (bodyCount x 9) 3x3 block of W acting on torque, row major

    /// Explicit form: A itself (rowCount x rowCount); the J and W fields are then unused.
    const cnSparseMatrix* matrix;

    cnSolverOracle oracle;

    /// Optional (0 and NULL: none): a colouring of the first groups (the world's: its contacts'
    /// levels, docs/architecture.md "Threads"). Colour c is the
    /// groups [colorStart[c], colorStart[c + 1]) for c < colorCount (colorStart has colorCount + 1
    /// entries, non-decreasing, within groupCount), and within a colour, groups that act on a
    /// common body follow one another (a contact's points), so that a sweep may update a colour's
    /// runs of such groups in any order, or at once on several workers, with the same result. The groups from
    /// colorStart[colorCount] on are swept one after another. The world colours its contacts this way, in
    /// levels whose order is the sequential sweep's; problems from files have no colours.
    int colorCount;
    const int32_t* colorStart;
    /// Nullable: the workers a solver may run its loops on (the world's; engine/base/task.h).
    const struct cnTaskSystem* tasks;
};

/// Solver output.
typedef struct cnSolverSolution
{
    /// (rowCapacity) in: the warm-start guess (zeros for a cold start); out: the impulses.
    double* lambda;
    /// (bodyCount x 6) out: W J^T lambda, the velocity change of each body (matrix-free form).
    double* deltaVelocity;
    /// Nullable, (residualHistoryCapacity) out: the grading merit of the solver's model
    /// (cnSolverMerits) at the start and after each iteration, for plots. A caller that asks for it
    /// makes the solver compute the merit every iteration. stats->historyCount says how many
    /// entries were written (the first `capacity` of them when there are more). The last entry is
    /// the merit of the impulses returned (the layer writes it, as stats->residual).
    double* residualHistory;
    int residualHistoryCapacity;
} cnSolverSolution;

// clang-format off
/// How a solve ended: X( enum, name, usable ). `usable`: the impulses are an answer the world
/// applies (an approximation for an iteration or time limit); otherwise the world keeps the
/// velocities it had and raises a warning.
#define CN_SOLVE_STATUS_LIST( X )                                                                          \
    X( cn_solveConverged,     "converged",      true  ) /* the merit met the tolerance */                  \
    X( cn_solveMaxIterations, "max_iterations", true  ) /* the iteration budget ran out first: a statistic */ \
    X( cn_solveDiverged,      "diverged",       false ) /* the solver's measure grew within the solve */  \
    X( cn_solveNonFinite,     "nonfinite",      false ) /* NaN or infinity in the data or an iterate */   \
    X( cn_solveUnsupported,   "unsupported",    false ) /* something this solver cannot take; untouched */ \
    X( cn_solveNoSolution,    "no_solution",    false ) /* the method ended without a solution */         \
    X( cn_solveDeadline,      "deadline",       true  ) /* the time budget ran out first */               \
    X( cn_solveInfeasible,    "infeasible",     false ) /* the problem has no feasible point */           \
    X( cn_solveStalled,       "stalled",        true  ) /* no further progress possible; best iterate */  \
    X( cn_solveLocalMinimum,  "local_minimum",  true  ) /* a merit minimum that is not a solution */      \
    X( cn_solveNonDescent,    "non_descent",    true  ) /* the Newton direction was not a descent direction; best iterate */
// clang-format on

typedef enum cnSolveStatus
{
#define CN_SOLVE_STATUS_ENUM( name, text, usable ) name,
    CN_SOLVE_STATUS_LIST( CN_SOLVE_STATUS_ENUM )
#undef CN_SOLVE_STATUS_ENUM
        cn_solveStatusCount
} cnSolveStatus;

/// Static name of a solve status, e.g. "converged". Never NULL ("unknown" for other values).
CN_API const char* cnSolveStatusName( cnSolveStatus status );

/// True when the world applies a solve that ended with `status` (the table above). A pivoting
/// solver (cn_solverDirect) stopped by its pivot limit is not usable either: its iterate is not
/// an approximation.
CN_API bool cnSolveStatusIsUsable( cnSolveStatus status, uint32_t caps );

/// The grading merits of one solve, computed by the layer after every solve from the problem and
/// the returned impulses, never by the solver (docs/solvers.md has the definitions and a worked
/// example). The first two are unit-free and comparable across scenes and sizes; the violations
/// are velocities, m/s (rad/s for angular rows), the worst over the contact points. All are 0
/// exactly at a solution of the model they grade, and NaN when lambda or the problem holds NaN.
typedef struct cnSolverMerits
{
    /// The natural map of the pyramid (box) model, lambda - proj(lambda - w / A_ii) per row, in the
    /// energy norm (rows weighted by A_ii) and divided by the problem's own scale
    /// |D^1/2 lambda| + |D^-1/2 b|.
    double naturalMap;
    /// The same for the exact Coulomb cone, per contact with De Saxce's shift of the normal
    /// velocity by mu |w_t|; rows outside contacts as in naturalMap.
    double cone;
    /// Signorini: the worst |min(A_nn lambda_n, w_n)| (a penetrating velocity, or a separating one
    /// with an impulse pushing), or A_nn times a negative normal impulse.
    double signorini;
    /// Coulomb: the worst (|lambda_t| - mu lambda_n)+ times the tangent rows' mean A_tt: the
    /// velocity the friction impulse outside the circular cone produces.
    double coulomb;
    /// Maximum dissipation: the worst (|w_t| + lambda_t . w_t / (mu lambda_n))+ over contacts with
    /// mu lambda_n > 0: the part of the sliding velocity that friction does not oppose fully.
    double dissipation;
} cnSolverMerits;

/// What the impulses of a solve do to the bodies, from the layer (docs/solvers.md, "The physics
/// test"). u_i is a contact row's velocity before the solve (cnSolverProblem.velocity), u+_i the
/// same after it, with the impulses' velocity change (A lambda) but not the softness.
typedef struct cnSolvePhysics
{
    /// Kinetic energy the contact impulses add, J: the sum over the contact rows of
    /// lambda_i (u_i + u+_i) / 2, less what their biases ask for (the soft push out: a normal
    /// row's lambda_n (u_n + t_n) / 2 where that is positive, t_n = u_n - b_n the separating speed
    /// its bias asks for; a bounce with restitution <= 1 asks for none). Negative when the
    /// contacts take energy out, as an inelastic contact does. The sum is the exact change of
    /// kinetic energy when the problem has no other rows.
    double energyAdded;
    /// The kinetic energy of the contacts' approach, J: the sum over the normal rows of
    /// (max(-u_i, 0) + 1 mm/s)^2 / (2 A_ii), what each would take out to stop its own approach
    /// alone, with the physics test's slack (the scale energyAdded is judged against).
    double approachEnergy;
    /// The fastest a contact closes after the solve beyond what it may (its gap over the step,
    /// for a speculative one) and beyond the speed it approached at before, m/s; 0 when none
    /// does.
    double closing;
    /// The largest speed at which a contact approached before the solve, m/s.
    double approach;
} cnSolvePhysics;

/// What the layer did with a solve (cnLayerOptions.decide): applied it as it was, applied it with
/// a warning, or replaced it with what a fallback sweep found.
typedef enum cnSolveOutcome
{
    cn_outcomeApplied = 0,  ///< passed the physics test (or nobody asked)
    cn_outcomeWarned = 1,   ///< failed it and nothing better was found: applied, with a warning
    cn_outcomeReplaced = 2, ///< failed it: the fallback sweep's impulses were applied instead
} cnSolveOutcome;

/// Static name of an outcome: "applied", "warned" or "replaced" ("unknown" for other values).
CN_API const char* cnSolveOutcomeName( cnSolveOutcome outcome );

/// Statistics of one solve.
typedef struct cnSolverStats
{
    cnSolveStatus status;
    /// Static text saying why a solve was unsupported or failed (e.g. "a row's diagonal A_ii is
    /// zero, negative or not finite"); NULL otherwise.
    const char* reason;
    /// Iterations in the solver's own unit (cnSolverVTable.iterationUnit).
    int iterations;
    /// The grading merit of the solver's model (naturalMap or cone), from the layer. A solver that
    /// takes both models (the sweep solvers) on a problem with cone contacts is graded contact by
    /// contact by each one's model (cone when every contact is a cone).
    double residual;
    /// The solver's own stopping measure at the end (its definition: docs/solvers.md), NaN when it
    /// keeps none.
    double ownMeasure;
    double milliseconds;
    /// Entries written to solution->residualHistory.
    int historyCount;
    /// Counters for the solvers that have them (0 otherwise).
    int factorizations;
    int krylovIterations;
    int fallbacks; ///< e.g. a failed level put back, a rejected subspace step, a gradient step
    /// Rows of the last linear system factorised or solved (PGS-SM's free set, the reduced
    /// system of a Newton step); 0 for solvers without one.
    int freeRows;
    int oracleCalls;
    int levels;      ///< recursion levels that added rows
    int rowsAdded;   ///< rows the oracle appended
    int rowsRefused; ///< rows the oracle had no room for
    /// Deepest true overlap at the trial poses of the impulses returned, m, from the oracle's last
    /// call (NaN when the solve called none). Above the overlap tolerance only when the recursion
    /// ran out of levels or of room, or a level failed.
    double overlap;
    /// Filled by the layer after the solve.
    cnSolverMerits merits;
    /// Filled by the layer after the solve (the energies are NaN for overdamped problems).
    cnSolvePhysics physics;
    /// What the layer did with the answer.
    cnSolveOutcome outcome;
} cnSolverStats;

/// How a parameter's value is read and shown.
typedef enum cnParamType
{
    cn_paramNumber = 0,  ///< any number in [minValue, maxValue]
    cn_paramInteger = 1, ///< a whole number (counts, budgets)
    cn_paramToggle = 2,  ///< 0 or 1
    cn_paramChoice = 3,  ///< an index into `choices`, written by name in scenes and on command lines
} cnParamType;

/// One tunable parameter of a solver.
typedef struct cnSolverParam
{
    const char* name;        ///< e.g. "iterations"
    const char* description; ///< one line
    double defaultValue;
    double minValue;
    double maxValue;
    cnParamType type;
    const char* const* choices; ///< cn_paramChoice: the names of values 0 .. choiceCount - 1
    int choiceCount;
} cnSolverParam;

/// What a solver can take and how it runs.
typedef enum cnSolverCaps
{
    cn_solverFriction = 1u << 0,   ///< contact groups with the pyramid model (else: normals only)
    cn_solverBounded = 1u << 1,    ///< bounded rows
    cn_solverExplicit = 1u << 2,   ///< explicit-matrix problems
    cn_solverMatrixFree = 1u << 3, ///< matrix-free problems (the engine's)
    cn_solverCone = 1u << 4,       ///< contact groups with the exact cone model
    cn_solverUsesOracle = 1u << 5, ///< calls the oracle
    /// pivoting: runs to an exact answer; its "iterations" is a pivot limit, and a solve stopped
    /// by it is not usable
    cn_solverDirect = 1u << 6,
    cn_solverBilateral = 1u << 7, ///< bilateral groups (joints)
    /// solves the compliant (soft) problem once per step instead of a soft and a relax pass:
    /// for solvers that are expensive per call
    cn_solverSinglePass = 1u << 8,
    /// accurate enough for hard contact: an inertial world solves its velocities without the soft
    /// push-out and moves penetrating bodies apart with a position pass on the step's last
    /// substep (the split impulse of the recursion, without its levels unless
    /// cnWorldDef.contactRecursions asks for them), so a load does not sag into the soft contact
    cn_solverHardContact = 1u << 9,
} cnSolverCaps;

/// Which grading merit a solver's own model is judged by (cnSolverStats.residual).
typedef enum cnSolverModel
{
    cn_modelPyramid = 0, ///< the LCP with box friction: merits.naturalMap
    cn_modelCone = 1,    ///< the exact cone: merits.cone
} cnSolverModel;

/// What one solve may spend, set by the layer from the solver's parameters "iterations",
/// "tolerance" and "deadline_ms" (or by the world for its relax pass).
typedef struct cnSolverBudget
{
    /// Iterations in the solver's own unit (at least 1).
    int maxIterations;
    /// Stop when the grading merit of the solver's model is at or below this (0: spend the budget).
    double tolerance;
    /// Wall-clock limit in ms from the start of the solve (0: none); checked between iterations.
    double deadlineMs;
} cnSolverBudget;

/// Scratch memory of one step, released after it.
typedef struct cnArena cnArena;
/// Scratch memory aligned to `alignment` (power of two, <= 64); NULL only when out of memory.
CN_API void* cnArena_Alloc( cnArena* arena, size_t size, size_t alignment );

/// Data the layer prepares once per solve (solvers/solver_kit.h has the layout).
typedef struct cnPrepared cnPrepared;

/// A solver: a name, its capabilities, model and parameters, and three functions.
typedef struct cnSolverVTable
{
    const char* name;        ///< unique, lower case, e.g. "pgs"
    const char* description; ///< one line
    int apiVersion;          ///< CN_SOLVER_API_VERSION
    uint32_t caps;           ///< cnSolverCaps
    cnSolverModel model;     ///< the model it solves, which its `residual` grades
    /// What one of its iterations is, e.g. "sweep", "pivot", "newton step". "iterations" carries
    /// over a swap only between solvers with the same unit.
    const char* iterationUnit;
    const cnSolverParam* params;
    int paramCount; ///< at most CN_MAX_SOLVER_PARAMS

    /// Optional (NULL: no state). Allocate solver state that outlives a step.
    cnStatus ( *create )( const double* params, const cnAllocator* allocator, void** state );
    /// Optional. Release what create allocated.
    void ( *destroy )( void* state, const cnAllocator* allocator );
    /// Required. Solve within `budget`; scratch from `arena`; `prepared` is the layer's data for
    /// this problem. Must not crash on any input: report a status. The layer fills stats->merits
    /// and stats->residual afterwards; the solver fills the rest.
    void ( *solve )( void* state, const double* params, const cnSolverBudget* budget,
                     cnSolverProblem* problem, const cnPrepared* prepared, cnSolverSolution* solution,
                     cnArena* arena, cnSolverStats* stats );
} cnSolverVTable;

/// Parameters every built-in iterative solver has, by these names: "iterations" (the budget, in the
/// solver's unit), "tolerance" (on the grading merit of its model), "deadline_ms" (0: none) and
/// "warm_start" (1: the world starts it from the contact cache's impulses).

/// Built-in solvers in registration order (the first is the default).
CN_API int cnGetSolverCount( void );
CN_API const cnSolverVTable* cnGetSolverAt( int index );
/// NULL when there is none of that name.
CN_API const cnSolverVTable* cnFindSolver( const char* name );

/// Index of a parameter in a solver's table, -1 when it has none of that name.
CN_API int cnFindSolverParam( const cnSolverVTable* solver, const char* name );

/// Read a parameter's value from text: a number (an integer for counts, 0 or 1 or "true"/"false"
/// for toggles) or, for a choice, one of its names. Range-checked. On failure returns
/// cn_statusInvalidArgument (or cn_statusNonFinite) and writes why to `message` (nullable).
CN_API cnStatus cnParseSolverParam( const cnSolverParam* param, const char* text, double* value,
                                    char* message, int messageSize );

/// Check a value for a parameter: finite, in range, whole for integers and choices, 0 or 1 for
/// toggles. Writes why to `message` (nullable) when it is not.
CN_API cnStatus cnCheckSolverParam( const cnSolverParam* param, double value, char* message,
                                    int messageSize );

/// The text of a value: a choice's name, "true"/"false", or the number. Never NULL.
CN_API const char* cnFormatSolverParam( const cnSolverParam* param, double value, char* buffer, int size );

/// The grading merits of `lambda` on `problem` (see cnSolverMerits), computed as the layer does
/// after every solve. Scratch from `arena` (NULL: the C library). False when the problem is
/// invalid or memory ran out (the merits are then NaN).
CN_API bool cnComputeSolverMerits( const cnSolverProblem* problem, const double* lambda, cnArena* arena,
                                   cnSolverMerits* merits );

/// @}
