// SPDX-License-Identifier: MIT
#pragma once

// Suites of test_newton, and what they share: a white-box copy of the two Newton solvers
// (test_newton_units.c includes solvers/solver_newton.c with a trace of theta per step) and the
// generators of Erleben's problem classes (test_newton_lcp.c).

#include "solvers_suites.h"

#include "cairn/solver.h"

#include <check.h>

#include <stdbool.h>

Suite* cntNewtonUnitsSuite( void );
Suite* cntNewtonLcpSuite( void );
Suite* cntNewtonEngineSuite( void );

// The white-box copies of newton_minmap and newton_fb (the same code as the registered ones).
const cnSolverVTable* cntNewtonMinmapCopy( void );
const cnSolverVTable* cntNewtonFbCopy( void );

// theta = 1/2 |H|^2 at the start (entry 0) and after each accepted step of the last solve of a
// copy; the number of entries
#define CNT_NT_TRACE_MAX 1024
extern double cntNtTheta[CNT_NT_TRACE_MAX];
extern int cntNtTraceCount;
void cntNtTraceReset( void );
// The first step at which theta fell below `epsilon` (0: at the start), -1 when it never did.
int cntNtFirstBelow( double epsilon );

// The defaults of `solver` in params, then name = value pairs (names must exist), ending with NULL.
void cntNtParams( const cnSolverVTable* solver, double* params, ... );

// Solve an explicit or matrix-free problem with `solver` and `params` from lambda (in/out).
cnSolverStats cntNtSolve( const cnSolverVTable* solver, cntLcp* lcp, double* lambda, double* dv,
                          const double* params );
