// SPDX-License-Identifier: MIT
#pragma once

// Matrix-free Krylov solvers for the Newton methods' inner systems (solver_newton.c), private to
// solvers/. The operator is a callback y = K x; nothing is assembled.
//
// - cnPcg: conjugate gradients with a Jacobi (diagonal) preconditioner, for symmetric positive
//   definite K (the Newton methods' reduced systems with frozen friction bounds);
// - cnGmres: restarted GMRES(m) with modified Gram-Schmidt and Givens rotations, for any
//   non-singular K (the exact generalised Jacobian, which is not symmetric);
// - cnPcgPre: CG with any symmetric positive definite preconditioner given as a callback (an
//   incomplete Cholesky factor, ic0.h), for the interior point method's SPD systems;
// - cnBicgstab: right-preconditioned BiCGstab, for any non-singular K with short recurrences
//   (constant memory, unlike GMRES), with the same preconditioner callback.
//
// All solve K x = rhs from the x given (x = 0 when there is no better guess) and stop when the
// residual |rhs - K x| is at most `tolerance` times |rhs|, or after `maxIterations` iterations
// (products for cnPcg and cnGmres, see each function for the others).

#include <stdbool.h>

// y = K x for vectors of the system's size
typedef void cnKrylovApply( void* context, const double* x, double* y );

// z = M^-1 r, the preconditioner (M approximates K); r and z never alias
typedef void cnKrylovPrecondition( void* context, const double* r, double* z );

typedef struct cnKrylovResult
{
    int iterations;  // products K v spent (one per CG or Arnoldi step); BiCGstab: its iterations
    double residual; // |rhs - K x| / |rhs| at the end (0 when rhs is zero)
    bool converged;  // the residual met the tolerance
    bool breakdown;  // PCG: a direction of zero or negative curvature (K not positive definite);
                     // BiCGstab: rho, <r0hat, v> or omega vanished (x is the best iterate found)
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

// Doubles of scratch cnPcgPre needs for a system of n rows.
int cnPcgPreWorkSize( int n );

// CG preconditioned by `precondition` (nullable: the identity), which must be symmetric positive
// definite; one iteration is one product K p and one preconditioner application. A direction of
// non-positive curvature (K not positive definite) or a non-positive <r, M^-1 r> (M not positive
// definite) stops it with `breakdown`. When the recursive residual meets the tolerance, the true
// residual is computed (one product more, not counted) and CG restarts from it if it does not;
// `residual` is the true one of the x returned. `work`: cnPcgPreWorkSize(n) doubles.
cnKrylovResult cnPcgPre( cnKrylovApply* apply, void* context, cnKrylovPrecondition* precondition,
                         void* preconditionContext, const double* rhs, double* x, int n, double tolerance,
                         int maxIterations, double* work );

// Doubles of scratch cnBicgstab needs for a system of n rows.
int cnBicgstabWorkSize( int n );

// Right-preconditioned BiCGstab (van der Vorst 1992): it solves K M^-1 u = rhs with x = M^-1 u, so
// the residual it recurs is the unpreconditioned rhs - K x the tolerance is about. `precondition`
// nullable: the identity. One iteration is two products K v and two preconditioner applications;
// `iterations` counts iterations (a stop half way through one counts it whole). The residual of
// BiCGstab is not monotone, so the iterate of smallest residual is kept, and x is that one when the
// last is worse. When the recursive residual meets the tolerance, the true residual is computed
// (one product more, not counted); when it does not meet it, BiCGstab restarts from it. A few more
// products at the end compare the true residuals of the last and the best iterates: `residual` is
// the true one of the x returned. On a breakdown (rho, <r0hat, v> or omega is zero) or a NaN, x is
// the best finite iterate. `work`: cnBicgstabWorkSize(n) doubles.
cnKrylovResult cnBicgstab( cnKrylovApply* apply, void* context, cnKrylovPrecondition* precondition,
                           void* preconditionContext, const double* rhs, double* x, int n, double tolerance,
                           int maxIterations, double* work );
