// SPDX-License-Identifier: MIT
#pragma once

/// @defgroup lcp_io Solver problems from files
/// Readers for other projects' solver problems (the Siconos text formats and fclib HDF5 files),
/// each giving an owned explicit cnSolverProblem, a writer of the Siconos text formats, and a
/// runner that solves one problem outside a world (the solver gets a private scratch arena). Used
/// by `cairn lcp`, `cairn run --dump-problem` and the solver tests.
///
/// Siconos formats (whitespace-separated tokens):
/// - LCP: `n`, a NumericsMatrix M (n x n), q (n values): w = M z + q, 0 <= z complementary to w >= 0.
///   Every row becomes a cn_groupNormal group; A = M, b = q. Text after q (a comment) is ignored.
/// - FC3D: `3 nc`, a NumericsMatrix W (3nc x 3nc), q (3nc values), mu (nc values). Contact c
///   becomes a cn_groupContact group of rows 3c (normal), 3c+1, 3c+2 (tangents) with mu[c] and the
///   pyramid model (the grading merits also give its exact-cone residual).
/// - NumericsMatrix: `storageType size0 size1`, then type 0 (dense, column-major) or type 1
///   (sparse block, blocks column-major). Type 2 and global (GFC3D) problems are refused with
///   cn_statusUnsupported.
/// - cairn's own trailing blocks (what cnWriteProblemFile appends; Siconos' readers stop before
///   them): a line `# cairn start` then one number per row, a line `# cairn reference` then one
///   number per row; each optional, start first.
///
/// fclib HDF5 files (told from text by the HDF5 signature, before any text is parsed; the layout:
/// ../shared/external-data/README.md, "fclib HDF5"). `/fclib_local` (W, q, mu, spacedim 3) is read
/// as an FC3D problem. `/fclib_global` whose M is diagonal (rigid bodies) is reduced to local form,
/// W = H^T M^-1 H and q = H^T M^-1 f + w. Refused with cn_statusUnsupported and the reason: a global
/// problem whose M is not diagonal (FEM), bilateral rows (G), rolling friction
/// (`/fclib_global_rolling`), 2-D problems, and every HDF5 file when the build has no HDF5 support.
/// A dataset may not claim more than 16 times the file's bytes, nor the reduced W hold more.
/// @{

#include "cairn/base.h"
#include "cairn/solver.h"
#include "cairn/status.h"

#include <stddef.h>
#include <stdint.h>

/// What a problem file holds.
typedef enum cnProblemFormat
{
    cn_problemAuto = 0,        ///< reading: decide from the first tokens
    cn_problemSiconosLcp = 1,  ///< Siconos LCP (`n`, M, q)
    cn_problemSiconosFc3d = 2, ///< Siconos 3-D frictional contact (`3 nc`, W, q, mu)
    cn_problemFclibLocal = 3,  ///< fclib HDF5, `/fclib_local` (W, q, mu)
    cn_problemFclibGlobal = 4, ///< fclib HDF5, `/fclib_global` with a diagonal M, reduced to local form
} cnProblemFormat;

/// Room for a reader's message, e.g. "lcp_x.dat:4: token 9: expected a number, got 'abc'".
#define CN_PROBLEM_MESSAGE_CAPACITY 512

/// An explicit problem read from a file. Everything it points to is owned by it: release it with
/// cnDestroyFileProblem. Treat the fields as read-only.
typedef struct cnFileProblem
{
    /// The view solvers take (explicit form: problem.matrix points to `matrix`).
    cnSolverProblem problem;
    /// A in CSR form; exact zeros of the file are not stored.
    cnSparseMatrix matrix;
    /// What was read: cn_problemSiconosLcp, cn_problemSiconosFc3d, cn_problemFclibLocal or
    /// cn_problemFclibGlobal (every format but the LCP gives contact groups).
    cnProblemFormat format;
    /// FC3D and fclib: the number of contacts (3 rows each); LCP: 0.
    int contactCount;
    /// Nullable (rowCount): impulses a solve of this problem started from, and the impulses it
    /// returned, when the file carries them (files written by cnWriteProblemFile do).
    double* start;
    double* reference;
    /// The one block holding every array, and the allocator it came from.
    void* memory;
    size_t memorySize;
    cnAllocator allocator;
} cnFileProblem;

/// Read a problem file. `format` cn_problemAuto reads an HDF5 file as fclib and tells LCP and FC3D
/// text files apart by their first tokens; another format insists on it. `allocator` NULL: the C
/// library (HDF5 itself allocates through the C library). On failure `problem` is left empty (safe
/// to destroy) and `message` (nullable, `messageSize` bytes, CN_PROBLEM_MESSAGE_CAPACITY is enough)
/// names the file and, for text, the line and the token (for HDF5, the dataset):
/// cn_statusIoError (cannot open or read), cn_statusParseError (bad token, truncated file, sizes
/// that do not agree), cn_statusNonFinite (NaN or infinity), cn_statusUnsupported (a matrix storage
/// or problem kind we do not read), cn_statusOutOfMemory. Every size a file claims is checked
/// against what the rest of the file can hold before anything of that size is allocated: no
/// allocation is much larger than the file (a few tens of bytes per byte of file at most, for a
/// problem that reads), whatever sizes the file claims.
CN_API cnStatus cnReadProblemFile( const char* path, cnProblemFormat format, const cnAllocator* allocator,
                                   cnFileProblem* problem, char* message, int messageSize );

/// The same from text in memory (`length` bytes, need not be terminated); `name` labels messages.
CN_API cnStatus cnParseProblemText( const char* name, const char* text, size_t length, cnProblemFormat format,
                                    const cnAllocator* allocator, cnFileProblem* problem, char* message,
                                    int messageSize );

/// Release what a reader allocated and empty `problem`. NULL or empty: no-op.
CN_API void cnDestroyFileProblem( cnFileProblem* problem );

/// Static name of a format: "auto", "siconos_lcp", "siconos_fc3d", "fclib_local", "fclib_global".
CN_API const char* cnProblemFormatName( cnProblemFormat format );

/// Write a problem in the Siconos text format cnReadProblemFile reads: FC3D when its groups are all
/// contacts (with their mu), LCP when they are all frictionless normals; the matrix A +
/// diag(softness) explicitly (built from J and W for a matrix-free problem), as a sparse block
/// matrix (3x3 blocks for FC3D, 1x1 for LCP; only blocks with a nonzero), every number with 17
/// significant digits so that it reads back exactly. `start` and `lambda` (nullable, rowCount) are
/// appended after the problem as the two blocks `# cairn start` and `# cairn reference`, which
/// Siconos' readers ignore and cnReadProblemFile reads back into `start` and `reference`.
/// cn_statusUnsupported (with the reason in `message`) for a problem that mixes contacts with other
/// rows, has bounded or bilateral rows (which neither format holds) or cone-model contacts (read
/// back, they would be pyramids); cn_statusInvalidArgument for an invalid problem;
/// cn_statusNonFinite for NaN or infinity in A, b, start or lambda (the file would not read back);
/// cn_statusIoError when the file cannot be written; cn_statusOutOfMemory.
CN_API cnStatus cnWriteProblemFile( const char* path, const cnSolverProblem* problem, const double* start,
                                    const double* lambda, char* message, int messageSize );

/// Run `solver` once on `problem` outside a world, as the world's layer runs it: the budget from
/// the solver's "iterations", "tolerance" and "deadline_ms", the problem checked against the
/// solver's capabilities (cn_solveUnsupported with stats->reason when it cannot take it), and the
/// result graded (stats->merits). `params`: solver->paramCount values in the order of
/// solver->params (NULL: every default). `solution->lambda` is the start (zeros for a cold start)
/// and receives the result; `solution->deltaVelocity` (bodyCount x 6) is needed for matrix-free
/// problems only. Scratch comes from a private arena and solver state from solver->create /
/// destroy, all through `allocator` (NULL: the C library) and released before returning. Solvers do
/// not change the problem; an oracle may append rows to it. Returns cn_statusOk when the solver
/// ran (its outcome is in `stats`),
/// cn_statusUnsupported for a solver without a solve function or of another API version,
/// cn_statusInvalidArgument for NULL arguments, cn_statusOutOfMemory.
CN_API cnStatus cnRunSolver( const cnSolverVTable* solver, const double* params, cnSolverProblem* problem,
                             cnSolverSolution* solution, const cnAllocator* allocator, cnSolverStats* stats );

/// @}
