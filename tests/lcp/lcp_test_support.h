// SPDX-License-Identifier: MIT
#pragma once

// Helpers of test_lcp: the shared external data, reference JSON, an allocator that remembers its
// largest block, dense copies of a problem's matrix.

#include "cairn/lcp_io.h"

#include <cjson/cJSON.h>

#include <stdbool.h>
#include <stddef.h>

#define CNT_SICONOS_LCP_DIR  CN_SHARED_DIR "/external-data/siconos-lcp"
#define CNT_SICONOS_FC3D_DIR CN_SHARED_DIR "/external-data/siconos-fc3d"
#define CNT_LCP_REFERENCE    CN_SHARED_DIR "/external-data/generated/siconos-lcp-reference.json"
#define CNT_FC3D_REFERENCE   CN_SHARED_DIR "/external-data/generated/fc3d-reference.json"
#define CNT_FCLIB_DIR        CN_SHARED_DIR "/external-data/fclib-hdf5"

/// Parse a JSON file; NULL when it cannot be read or parsed.
cJSON* cntLoadJson( const char* path );

/// The names of the files in `dir` ending in `suffix`, sorted; NULL when the folder is absent.
/// Free with cntFreeNames.
char** cntListFiles( const char* dir, const char* suffix, int* count );
void cntFreeNames( char** names, int count );

/// "dir/name" in a static buffer per slot (0..3).
const char* cntJoinPath( int slot, const char* dir, const char* name );

/// A file from tests/lcp/data in a static buffer per slot (0..3).
const char* cntLcpDataPath( int slot, const char* name );

/// A scratch file in the build tree (CNT_LCP_WORK_DIR) in a static buffer per slot (0..3).
const char* cntLcpWorkPath( int slot, const char* name );

/// The size of a file in bytes, 0 when it cannot be opened.
size_t cntFileSize( const char* path );

/// Bit-for-bit equality of two arrays of doubles (so -0 differs from 0 and NaN equals itself).
bool cntSameBits( const double* a, const double* b, int count );

/// Dense row-major copy of an explicit problem's matrix (rowCount^2 doubles, malloc).
double* cntDenseMatrix( const cnSolverProblem* problem );

/// Numbers of a JSON array into `values` (at most `capacity`); returns how many, -1 when `array`
/// is not an array of numbers.
int cntJsonNumbers( const cJSON* array, double* values, int capacity );

/// A problem against its entry in a Siconos reference file: the contact count, |q| to `tolerance`
/// (relative), and every contact's mu among the entry's `mu_values`. `normQ` (nullable) gets |q|.
bool cntMatchesReferenceEntry( const cnFileProblem* problem, const cJSON* entry, double tolerance,
                               double* normQ );

/// An allocator that counts live bytes and remembers the largest single request.
typedef struct cntPeakAllocator
{
    size_t liveBytes;
    long liveBlocks;
    size_t largest;
} cntPeakAllocator;

cnAllocator cntMakePeakAllocator( cntPeakAllocator* peak );

/// An explicit LCP (every row a cn_groupNormal group) over a dense row-major matrix, owning its arrays.
typedef struct cntDenseLcp
{
    cnSolverProblem problem;
    cnSparseMatrix matrix;
    int* rowStart;
    int* column;
    double* value;
    cnRowGroup* groups;
    double* lower;
    double* upper;
    double* b;
} cntDenseLcp;

void cntMakeDenseLcp( cntDenseLcp* lcp, int n, const double* rowMajor, const double* q );

/// The test's own check of an LCP solution, independent of the solver layer: the 2-norm of the
/// natural map z - max(0, z - (M z + q)) in the problem's units (M row-major, n x n).
double cntRawNaturalMap( int n, const double* rowMajor, const double* q, const double* z );
void cntFreeDenseLcp( cntDenseLcp* lcp );
