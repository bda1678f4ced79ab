// SPDX-License-Identifier: MIT
#pragma once

// Suites of test_solvers and the hand-built problems they share.

#include "solver_kit.h"

#include "cairn/solver.h"

#include <check.h>

#include <stdbool.h>
#include <stdint.h>

Suite* cntKitSuite( void );
Suite* cntSweepsSuite( void );
Suite* cntReferenceSuite( void );
Suite* cntSolverContractSuite( void );
Suite* cntBbpgdSuite( void );
Suite* cntBilateralSuite( void );

// A problem with its own storage. Matrix-free: bodies with W blocks and a free velocity v* each,
// rows through cntAddRow (a row and its one-row group) / cntAddContact (a contact group), then
// cntFinishB sets b = J v*. Explicit: cntSetDense (every row a normal group).
typedef struct cntLcp
{
    cnSolverProblem problem;
    int rowCapacity;
    int bodyCapacity;
    cnRowGroup* groups;
    double* lower;
    double* upper;
    double* b;
    int32_t* bodyA;
    int32_t* bodyB;
    double* jacobianA;
    double* jacobianB;
    double* wLinear;
    double* wAngular;
    double* freeVelocity; // (bodies x 6) v*
    cnSparseMatrix matrix;
    int* rowStart;
    int* column;
    double* value;
} cntLcp;

cntLcp* cntCreateLcp( int rowCapacity, int bodyCapacity );
void cntDestroyLcp( cntLcp* lcp );

// A body with inverse mass 1/mass and diagonal inverse inertia (0 entries: infinite inertia).
int cntAddBody( cntLcp* lcp, double mass, double invInertiaX, double invInertiaY, double invInertiaZ,
                double vx, double vy, double vz );
// Replace a body's W blocks (row-major 3x3 each).
void cntSetBodyW( cntLcp* lcp, int body, const double* wLinear, const double* wAngular );

// A row and its group: cn_rowNormal gives a cn_groupNormal row, cn_rowBounded a cn_groupBounded
// one (bounds [0, 0] until set).
int cntAddRow( cntLcp* lcp, cnRowKind kind, int bodyA, int bodyB, const double* jacobianA,
               const double* jacobianB );

// A contact between bodyA (nullable: -1) and bodyB at offsets rA, rB from their centers, normal
// n from A to B: a contact group (normal row, then tangents t1, t2, mu) when withFriction, else a
// frictionless normal group. Returns the normal row.
int cntAddContact( cntLcp* lcp, int bodyA, int bodyB, const double* rA, const double* rB, const double* n,
                   const double* t1, const double* t2, double mu, bool withFriction );

// b = J v* for every row.
void cntFinishB( cntLcp* lcp );

// An explicit problem from a row-major dense matrix (zeros skipped) and q; every row a normal row.
void cntSetDense( cntLcp* lcp, int n, const double* dense, const double* q );

// A stack of `boxes` unit boxes (mass 1) resting on static ground, falling at `speed`, four
// corner contacts per interface with friction mu (3 rows each). The caller owns the result.
cntLcp* cntCreateStack( int boxes, double speed, double mu );

// Solve with a registered solver through the layer (cnLayerSolve: checked, prepared, graded);
// params from the table's defaults, then `iterations`, `tolerance` and `relaxation` overridden
// where >= 0 (relaxation: only if the solver has it).
cnSolverStats cntSolve( const cnSolverVTable* solver, cnSolverProblem* problem, double* lambda,
                        double* deltaVelocity, int iterations, double tolerance, double relaxation );
// cntSolve with a residual history (solution.residualHistory) of `historyCapacity` entries.
cnSolverStats cntSolveWithHistory( const cnSolverVTable* solver, cnSolverProblem* problem, double* lambda,
                                   double* deltaVelocity, int iterations, double tolerance, double relaxation,
                                   double* history, int historyCapacity );
// The same with every parameter given (solver->paramCount values).
cnSolverStats cntSolveWithParams( const cnSolverVTable* solver, cnSolverProblem* problem, double* lambda,
                                  double* deltaVelocity, const double* params, double* history,
                                  int historyCapacity );

// Index of a parameter by name in the solver's table, -1 when absent.
int cntParamIndex( const cnSolverVTable* solver, const char* name );
