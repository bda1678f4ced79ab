// SPDX-License-Identifier: MIT
#pragma once

/// @defgroup solver Constraint solvers
/// The pluggable solver layer. A solver sees one problem, scratch memory and a statistics struct,
/// never bodies, ids or the world, so it can be swapped between two steps
/// (cnWorld_SetSolver) and tested on problems read from files.
///
/// The problem is a (boxed) linear complementarity problem in the constraint impulses lambda:
///
///     w = A lambda + b,   A = J W J^T,   b = J v* + bias
///
/// with one row per constraint direction, grouped per contact point:
/// - a normal row:    0 <= lambda_n  complementary to  w_n >= 0;
/// - friction rows (pyramid: two tangent rows after their normal row):
///       -mu lambda_n <= lambda_t <= mu lambda_n, and w_t = 0 where lambda_t is inside the bounds;
/// - bounded rows (general boxes lower <= lambda <= upper), for joints later.
/// A is never formed unless a solver asks for it: J (12 numbers per row, 6 per body) and the
/// per-body blocks of W (inverse mass and inertia for inertial worlds, mobility for overdamped
/// ones) give products matrix-free. Problems read from files carry an explicit A instead.
/// @{

#include "cairn/base.h"
#include "cairn/status.h"

#include <stdbool.h>
#include <stdint.h>

/// Bump when the vtable or the problem layout changes.
#define CN_SOLVER_API_VERSION 3

/// Kinds of rows.
typedef enum cnRowKind
{
    cn_rowNormal = 0,   ///< lambda >= 0, complementary to w >= 0
    cn_rowFriction = 1, ///< |lambda| <= mu lambda[normalRow], w = 0 inside
    cn_rowBounded = 2,  ///< lower <= lambda <= upper, w = 0 inside
} cnRowKind;

/// An explicit sparse matrix in compressed sparse rows (CSR).
typedef struct cnSparseMatrix
{
    int rows;
    int columns;
    const int* rowStart; ///< (rows + 1)
    const int* column;   ///< (nonzeros) column of each entry, increasing within a row
    const double* value; ///< (nonzeros)
} cnSparseMatrix;

/// What ReLCP asks the narrowphase: given trial impulses, where would the bodies go and which
/// pairs would overlap there. Reserved for ReLCP; every other solver ignores it.
typedef struct cnSolverOracle
{
    void* context;
    /// Nullable. Returns the number of new rows it appended to the problem (see ReLCP).
    int ( *fcn )( void* context, const double* lambda, int rowCount );
} cnSolverOracle;

/// One solver problem. Read-only for solvers.
typedef struct cnSolverProblem
{
    int rowCount;
    int bodyCount; ///< bodies with a W block (0 for an explicit-matrix problem)

    const uint8_t* kind;     ///< (rowCount) cnRowKind
    const int32_t* normalOf; ///< (rowCount) a friction row's normal row, else -1
    const double* mu;        ///< (rowCount) friction coefficient of a friction row, else 0
    const double* lower;     ///< (rowCount) bounds of cn_rowBounded rows (may be -INFINITY)
    const double* upper;     ///< (rowCount) (may be INFINITY)
    const double* b;         ///< (rowCount) right-hand side: J v* + bias
    /// (rowCount) nullable: A + diag(softness), a constraint-force mixing term per row (>= 0; soft
    /// contacts). Every solver solves w = (A + diag(softness)) lambda + b; NULL means zeros.
    const double* softness;

    /// Matrix-free form (matrix == NULL): rows act on at most two bodies.
    const int32_t* bodyA;    ///< (rowCount) body index, -1 for none (static or kinematic)
    const int32_t* bodyB;    ///< (rowCount)
    const double* jacobianA; ///< (rowCount x 6) linear xyz then angular xyz
    const double* jacobianB; ///< (rowCount x 6)
    const double* wLinear;   ///< (bodyCount x 9) 3x3 block of W acting on force, row major
    const double* wAngular;  ///< (bodyCount x 9) 3x3 block of W acting on torque, row major

    /// Explicit form: A itself (rowCount x rowCount); the J and W fields are then unused.
    const cnSparseMatrix* matrix;

    cnSolverOracle oracle;
} cnSolverProblem;

/// Solver output.
typedef struct cnSolverSolution
{
    /// (rowCount) in: the warm-start guess (zeros for a cold start); out: the impulses.
    double* lambda;
    /// (bodyCount x 6) out: W J^T lambda, the velocity change of each body (matrix-free form).
    double* deltaVelocity;
    /// Nullable, (residualHistoryCapacity) out: the merit (cnSolverResidual) of the start and after
    /// each iteration, for plots; a solver that asks for it computes the merit every iteration.
    /// Solvers record what they have (at least the start and the end); stats->historyCount says
    /// how many entries they wrote, the first `capacity` of them when there are more.
    double* residualHistory;
    int residualHistoryCapacity;
} cnSolverSolution;

/// How a solve ended.
typedef enum cnSolveStatus
{
    cn_solveConverged = 0,     ///< the residual met the tolerance (or the relative / stagnation rule)
    cn_solveMaxIterations = 1, ///< the iteration limit came first; lambda is the last iterate
    cn_solveDiverged = 2,      ///< the residual grew without bound; lambda is the best iterate seen
    cn_solveNonFinite = 3,     ///< NaN or infinity appeared; lambda is the last finite iterate
    cn_solveUnsupported = 4,   ///< the problem has something this solver cannot handle (e.g. a zero diagonal)
    /// The method ended without a solution and cannot go on (Lemke: its rays, then, on small
    /// problems, an exhaustive search). A proof that there is none on small problems and for
    /// copositive-plus matrices (e.g. symmetric positive semidefinite); otherwise only that this
    /// method found none.
    cn_solveNoSolution = 5,
} cnSolveStatus;

/// Static name of a solve status, e.g. "converged". Never NULL.
CN_API const char* cnSolveStatusName( cnSolveStatus status );

/// Statistics of one solve.
typedef struct cnSolverStats
{
    cnSolveStatus status;
    int iterations;
    /// Merit of the final lambda (cnSolverResidual).
    double residual;
    double milliseconds;
    /// Entries written to solution->residualHistory.
    int historyCount;
} cnSolverStats;

/// One tunable parameter of a solver.
typedef struct cnSolverParam
{
    const char* name;        ///< e.g. "iterations"
    const char* description; ///< one line
    double defaultValue;
    double minValue;
    double maxValue;
} cnSolverParam;

/// What a solver can do.
typedef enum cnSolverCaps
{
    cn_solverFriction = 1u << 0,   ///< friction rows (pyramid)
    cn_solverBounded = 1u << 1,    ///< bounded rows
    cn_solverExplicit = 1u << 2,   ///< explicit-matrix problems
    cn_solverMatrixFree = 1u << 3, ///< matrix-free problems (the engine's)
    cn_solverCone = 1u << 4,       ///< exact Coulomb cones on 3-row contact groups
    cn_solverUsesOracle = 1u << 5, ///< calls the oracle
    /// pivoting: runs to an exact answer; the world\'s iteration budget does not apply to it
    cn_solverDirect = 1u << 6,
} cnSolverCaps;

/// Scratch memory of one step, released after it.
typedef struct cnArena cnArena;
/// Scratch memory aligned to `alignment` (power of two, <= 64); NULL only when out of memory.
CN_API void* cnArena_Alloc( cnArena* arena, size_t size, size_t alignment );

/// A solver: a name, its capabilities and parameters, and three functions.
typedef struct cnSolverVTable
{
    const char* name;        ///< unique, lower case, e.g. "pgs"
    const char* description; ///< one line
    int apiVersion;          ///< CN_SOLVER_API_VERSION
    uint32_t caps;           ///< cnSolverCaps
    const cnSolverParam* params;
    int paramCount;

    /// Optional (NULL: no state). Allocate solver state that outlives a step.
    cnStatus ( *create )( const double* params, const cnAllocator* allocator, void** state );
    /// Optional. Release what create allocated.
    void ( *destroy )( void* state, const cnAllocator* allocator );
    /// Required. Solve; scratch from `arena`. Must not crash on any input: report a status.
    void ( *solve )( void* state, const double* params, const cnSolverProblem* problem,
                     cnSolverSolution* solution, cnArena* arena, cnSolverStats* stats );
} cnSolverVTable;

/// Parameters every built-in solver understands, by these names: "iterations" (the limit),
/// "tolerance" (on cnSolverResidual), "warm_start" (1 or 0: use the contact cache's impulses).

/// Built-in solvers in registration order.
CN_API int cnGetSolverCount( void );
CN_API const cnSolverVTable* cnGetSolverAt( int index );
/// NULL when there is none of that name.
CN_API const cnSolverVTable* cnFindSolver( const char* name );

/// The merit every solver is graded by: the 2-norm of the natural map
/// lambda - proj(lambda - w) over all rows, where proj is the projection on each row's admissible
/// set (lambda >= 0 for normal rows, [-mu lambda_n, mu lambda_n] for friction rows, [lower, upper]
/// for bounded rows). Zero exactly at a solution. Allocates its scratch from `arena` (NULL: the
/// C library). NaN when lambda or the problem holds NaN.
CN_API double cnSolverResidual( const cnSolverProblem* problem, const double* lambda, cnArena* arena );

/// @}
