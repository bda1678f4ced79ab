// SPDX-License-Identifier: MIT
#pragma once

// Factorising a symmetric positive (semi-)definite system: the machinery PGS-SM's subspace solves
// and the Newton methods' direct inner solves share. Private to solvers/.
//
//     (K + cfm I) x = rhs,   K symmetric, given as CSR with both triangles (cnBuildSparseMatrix)
//
// Two backends:
// - dense: an in-tree LDL^T without pivoting on a dense copy, for small systems (and every system
//   when the build has no CHOLMOD, up to CN_FACTOR_DENSE_MAX rows);
// - cholmod: SuiteSparse's CHOLMOD with the AMD ordering (simplicial, or supernodal for systems
//   dense enough: CN_FACTOR_SUPERNODAL_SWITCH in factor.c), when the build has it (CN_WITH_CHOLMOD;
//   its supernodal module is GPL-2.0+).
//
// A system that is not numerically positive definite (a pivot at or below CN_FACTOR_PIVOT_RATIO
// times the largest, as redundant contacts give: four points per box face) is regularised: the
// factorisation is retried with cfm raised step by step (CN_FACTOR_RETRIES times at most, from
// 1e-8 to 1e-2 of the mean diagonal), and the statistics say so. A system that fails even then is
// reported, never factorised into NaN.

#include "cairn/solver.h"

#include <stdbool.h>

typedef enum cnFactorBackend
{
    cn_factorAuto = 0,    // dense up to CN_FACTOR_DENSE_AUTO rows, cholmod above (dense without it)
    cn_factorDense = 1,   // always the dense LDL^T (up to CN_FACTOR_DENSE_MAX rows)
    cn_factorCholmod = 2, // always CHOLMOD (unavailable in a build without it)
    cn_factorBackendCount
} cnFactorBackend;

// the names of the backends, for solver parameters ("auto", "dense", "cholmod")
extern const char* const cn_factorChoices[cn_factorBackendCount];

// auto: the dense LDL^T up to this many rows (below it CHOLMOD's analysis costs more than it saves)
#define CN_FACTOR_DENSE_AUTO 96
// the dense LDL^T refuses larger systems (n^3 / 3 flops and n^2 doubles)
#define CN_FACTOR_DENSE_MAX 2500
// a pivot at or below this times the largest diagonal entry is not positive definite
#define CN_FACTOR_PIVOT_RATIO 1e-13
#define CN_FACTOR_RETRIES     4

typedef enum cnFactorResult
{
    cn_factorOk = 0,          // factorised with the cfm asked for
    cn_factorRegularized = 1, // factorised after raising the cfm (cnFactorStats.regularization)
    cn_factorFailed = 2,      // not positive definite even regularised, or non-finite entries
    cn_factorUnavailable = 3, // the backend asked for is not in this build, or the system too big
    cn_factorNoMemory = 4,
} cnFactorResult;

// Counters over the factorisations of one cnFactor (reset by the caller when it wants).
typedef struct cnFactorStats
{
    int factorizations;        // numeric factorisations attempted, retries included
    int regularized;           // systems that needed more cfm than asked
    int failures;              // systems that could not be factorised
    double regularization;     // the cfm of the last success (added to every diagonal entry)
    double factorNonzeros;     // entries of L (strict lower triangle plus the diagonal), last success
    double peakFactorNonzeros; // the most of them
} cnFactorStats;

typedef struct cnFactor cnFactor;

// True when this build has CHOLMOD.
bool cnFactorHasCholmod( void );

// A factorisation's state (the C library's memory; NULL when out of memory).
cnFactor* cnFactorCreate( void );
void cnFactorDestroy( cnFactor* factor );

// The pivot ratio below which a system counts as not positive definite (and is regularised), for
// the factorisations from now on; CN_FACTOR_PIVOT_RATIO until set. 0: only a pivot that is not
// positive fails (the interior point method's systems are positive definite by construction, with
// a dynamic range that grows like 1 / alpha^2 as they near the answer).
void cnFactorSetPivotRatio( cnFactor* factor, double ratio );

// Factorise K + cfm I (cfm >= 0), regularising as above. `matrix` must stay unchanged until the
// next cnFactorize (the dense backend copies it; CHOLMOD reads it through the call only).
cnFactorResult cnFactorize( cnFactor* factor, const cnSparseMatrix* matrix, double cfm,
                            cnFactorBackend backend, cnFactorStats* stats );

// x = (K + cfm I)^-1 rhs with the last successful factorisation (x may be rhs). False when there is
// none, or the result is not finite.
bool cnFactorSolve( cnFactor* factor, const double* rhs, double* x );

// CHOLMOD's orderings and symbolic analyses so far: a system with the pattern of the last one is
// factorised again on the analysis held (the IPM's Newton systems, a retry with more cfm).
int cnFactorAnalyses( const cnFactor* factor );

// The backend of the last factorisation ("dense", "cholmod", or "none").
const char* cnFactorBackendName( const cnFactor* factor );

// Why the last cnFactorize did not succeed (static text), or NULL.
const char* cnFactorReason( const cnFactor* factor );
