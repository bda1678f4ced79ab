// SPDX-License-Identifier: MIT
#pragma once

// The PGS-SM digest's Appendix A scenes (../shared/papers/pgs-sm.md, built as amgs.md Appendix A
// says), as matrix-free problems: 2-D discs as 3-D bodies (W = 1/m on the linear block, 1/I with
// I = m r^2 / 2 on the angular one), frictionless normal rows through the centres (J on the
// in-plane normal, no angular entries), b = J v with the velocities of Appendix A. The "CFM c"
// variants put c mean(diag A) in every row's softness, so that every solver and the grading see
// the same A. Each scene also carries its dense A + diag(softness) (row major), assembled here
// from J and W, for the textbook references (Algorithm 2.1, phi, r1). tests/amgs uses them too.

#include "solvers_suites.h"

#include <stdbool.h>

typedef struct cntSmScene
{
    cntLcp* lcp;
    double* softness; // (rows) NULL without CFM
    double* dense;    // (rows x rows) A + diag(softness), row major
    int n;            // rows
    char name[48];
} cntSmScene;

#define CNT_SM_G  9.80665
#define CNT_SM_DT ( 1.0 / 60.0 )

// pyramid12: 78 discs, 144 rows (12 floor rows, then disc-disc rows); graded: mass 1 + 99 L / 11
cntSmScene* cntSmPyramid12( bool graded );
// hexpool: 95 discs, 267 rows; graded: mass 1 + 99 min(1, y / 3.3), else 2; cfm: c (0: none)
cntSmScene* cntSmHexpool( bool graded, double cfm );
// stack30 (amgs.md Appendix A): 30 unit discs in a column, 30 rows, every impulse positive at the
// solution; bilateral: every row a free cn_groupBilateral row, with velocities (0, 0.5 cos(0.7 i))
// so that the linear solution has both signs
cntSmScene* cntSmStack30( bool bilateral );
// pyramid12 (equal mass) with its 12 floor rows free bilateral rows (glued to the floor): a mixed
// LCP whose bilateral rows come first, as Algorithm 2.1 orders them
cntSmScene* cntSmPyramid12Mixed( void );
// The variants the AMGS tests use (amgs.md section 6), rows, J, W and b as above and no CFM:
// graded masses (stack30: mass 1 + 2 i / 29, the others as above) and, with upper > 0, every row
// a cn_groupBounded row in [0, upper] instead of a normal one (its T5; upper 0: normal rows)
cntSmScene* cntSmStack30Variant( bool graded, double upper );
cntSmScene* cntSmPyramid12Variant( bool graded, double upper );
cntSmScene* cntSmHexpoolVariant( bool graded, double upper );
void cntSmSceneFree( cntSmScene* scene );

// Recompute dense, from the problem's J, W and softness (after the caller changed them).
void cntSmAssemble( cntSmScene* scene );
// The same, with each entry summed term by term over the bodies both rows share instead of body by
// body: it differs from cntSmAssemble in the last bits of the diagonals of two-body rows, and is
// the order tests/amgs's references (and their printed numbers) use.
void cntSmAssembleTermwise( cntSmScene* scene );

// w = (A + S) lambda + b, from the dense matrix
void cntSmW( const cntSmScene* scene, const double* lambda, double* w );
// phi = 1/2 lambda^T (A + S) lambda + b^T lambda
double cntSmPhi( const cntSmScene* scene, const double* lambda );
// The paper's r1 (its 2.7, read as in the digest's 2.2): free rows |w| / (1 + |a|), normal rows
// |min(lambda, w)| and max(0, -w) over 1 + |b| (b the right-hand sides of the sign-constrained
// rows, a of the free ones; infinity norms)
double cntSmR1( const cntSmScene* scene, const double* lambda );
// Textbook PGS (the digest's Algorithm 2.1) on the dense matrix: one sweep in row order, free
// bilateral rows unclamped, normal rows clamped at 0
void cntSmTextbookSweep( const cntSmScene* scene, double* lambda );
// Solve (A + S)_FF x_F = rhs_F by dense Cholesky (F: count rows, increasing); false when not
// positive definite
bool cntSmDenseSolve( const cntSmScene* scene, const int* rows, int count, const double* rhs, double* x );
