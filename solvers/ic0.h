// SPDX-License-Identifier: MIT
#pragma once

// IC(0), the zero fill-in incomplete Cholesky factor A ~ L L^T of a symmetric positive definite
// sparse matrix: a preconditioner for the Krylov solvers (krylov.h) on the interior point method's
// inner systems, private to solvers/.
//
// L keeps exactly the pattern of A's lower triangle (diagonal included) and drops every fill-in
// entry, so it costs no more memory than A and needs no ordering. IC(0) can break down on a
// positive definite matrix (a pivot at or below zero: the dropped fill is what kept it positive),
// so a failed attempt is retried on A + shift diag(A) with shift = 1e-3, 1e-2, 1e-1, 1 in turn
// (Manteuffel 1980, "An incomplete factorization technique for positive definite linear systems").
// The shift used and the attempts are recorded.

#include "cairn/solver.h"

#include <stdbool.h>

// the shifts tried after the unshifted attempt, in order
#define CN_IC0_SHIFT_COUNT 4

// a pivot at or below this times its (shifted) diagonal entry of A counts as not positive: what
// rounding leaves of a pivot that cancelled to zero
#define CN_IC0_PIVOT_RATIO 1e-12

// The factor. Zero-initialise before the first cnIc0Factor; a struct may be factored again (its
// arrays are reused when large enough) and is released by cnIc0Release.
typedef struct cnIc0
{
    int n;             // rows of the last A given (0 when it was not square)
    int* rowStart;     // (n + 1) L in CSR: row i holds entries rowStart[i] .. rowStart[i + 1] - 1
    int* column;       // (nonzeros) increasing within a row; the diagonal is the last of each row
    double* value;     // (nonzeros)
    int* position;     // (n) scratch of the factorisation: where column j sits in the current row, or -1
    double shift;      // the shift of the factor: A + shift diag(A) was factored (0: A itself)
    int attempts;      // factorisations tried by the last cnIc0Factor (1: no shift was needed)
    bool factored;     // the last cnIc0Factor succeeded (cnIc0Apply is the identity otherwise)
    int rowCapacity;   // rows the arrays can hold
    int valueCapacity; // entries column and value can hold
} cnIc0;

// Factors A ~ L L^T on A's lower-triangle pattern (A is taken to be symmetric: of the upper triangle
// only finiteness is checked), shifting as above when a pivot is not positive. Returns false with a static
// reason in *why (nullable) when A is not square, has a row without a diagonal entry or a diagonal entry that
// is not positive (not positive definite), an entry that is not finite, when even the largest shift fails, or
// when memory runs out; ic is then not factored.
bool cnIc0Factor( cnIc0* ic, const cnSparseMatrix* a, const char** why );

// z = (L L^T)^-1 r by a forward and a backward substitution; a cnKrylovPrecondition with `ic` a
// cnIc0*. r and z must not alias. When the last cnIc0Factor failed, z = r (the identity) on the
// rows of the matrix it was given, so a Krylov solver runs unpreconditioned rather than on garbage.
void cnIc0Apply( void* ic, const double* r, double* z );

// Frees the arrays; the struct is then as zero-initialised.
void cnIc0Release( cnIc0* ic );
