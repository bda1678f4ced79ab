// SPDX-License-Identifier: MIT
#pragma once

// Matrix-free Krylov solvers for the Newton methods' inner systems (solver_newton.c), private to
// solvers/. The operator is a callback y = K x; nothing is assembled.
//
// - cnPcg: conjugate gradients with a Jacobi (diagonal) preconditioner, for symmetric positive
//   definite K (the Newton methods' reduced systems with frozen friction bounds);
// - cnGmres: restarted GMRES(m) with modified Gram-Schmidt and Givens rotations, for any
//   non-singular K (the exact generalised Jacobian, which is not symmetric).
//
// Both solve K x = rhs from the x given (x = 0 when there is no better guess) and stop when the
// residual |rhs - K x| is at most `tolerance` times |rhs|, or after `maxIterations` products.

#include <stdbool.h>

// y = K x for vectors of the system's size
typedef void cnKrylovApply( void* context, const double* x, double* y );

typedef struct cnKrylovResult
{
    int iterations;  // products K v spent (one per CG or Arnoldi step)
    double residual; // |rhs - K x| / |rhs| at the end (0 when rhs is zero)
    bool converged;  // the residual met the tolerance
    bool breakdown;  // PCG: a direction of zero or negative curvature (K not positive definite)
    bool finite;     // false: a NaN or infinity appeared (x is then the last finite iterate)
} cnKrylovResult;

// Doubles of scratch cnPcg needs for a system of n rows.
int cnPcgWorkSize( int n );

// Jacobi-preconditioned CG. `diagonal` (nullable, n): the preconditioner's entries; entries that
// are not positive and finite count as 1. `work`: cnPcgWorkSize(n) doubles.
cnKrylovResult cnPcg( cnKrylovApply* apply, void* context, const double* diagonal, const double* rhs,
                      double* x, int n, double tolerance, int maxIterations, double* work );

// Doubles of scratch cnGmres needs for n rows and restart length m (>= 1).
int cnGmresWorkSize( int n, int restart );

// GMRES(restart). `work`: cnGmresWorkSize(n, restart) doubles.
cnKrylovResult cnGmres( cnKrylovApply* apply, void* context, const double* rhs, double* x, int n, int restart,
                        double tolerance, int maxIterations, double* work );
