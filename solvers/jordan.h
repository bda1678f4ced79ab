// SPDX-License-Identifier: MIT
#pragma once

// The Jordan algebra of the three-dimensional Lorentz (second-order) cone, in the normalisation of
// Kleinert, Simeon and Obermayr (the IPM digest, ../shared/papers/ipm.md 2.1), which the interior
// point method (solver_ipm.c) is written in. Private to solvers/; the tests check every identity.
//
// A vector x = (x_n, x_t) with x_t in R^2. The product carries a factor 1/sqrt 2, so the identity
// is e = (sqrt 2, 0, 0), not (1, 0, 0):
//
//     x o y   = (x^T y, x_n y_t + y_n x_t) / sqrt 2
//     C       = { x : x_n >= |x_t| }           (self-dual: the cone of squares)
//     lambda  = (x_n -+ |x_t|) / sqrt 2        (spectral values; x in int C <=> both > 0)
//     det x   = lambda_1 lambda_2 = (x_n - |x_t|)(x_n + |x_t|) / 2   (factored: no cancellation
//               near the boundary, where x_n^2 - |x_t|^2 loses every digit)
//     x^-1    = J x / det x,  J = diag(1, -1, -1)
//     L(x)    = [[x_n, x_t^T], [x_t, x_n I]] / sqrt 2      (x o y = L(x) y)
//     P(x)    = x x^T - det(x) J                  (the quadratic representation, 2 L(x)^2 - L(x o x))
//
// The Nesterov-Todd scaling point w of (x, y), both in int C, is the point with P(w) x = y; the
// closed form is the paper's Lemma 3. The largest step keeping x + theta dx in int C is its Lemma 2,
// written through the smaller spectral value of P(x^-1/2) dx.

#include <math.h>

#define CN_JORDAN_SQRT1_2 0.70710678118654752440

// |x_t|
static inline double cnJordanTangent( const double x[3] )
{
    return hypot( x[1], x[2] );
}

// det x in factored form
static inline double cnJordanDet( const double x[3] )
{
    double t = cnJordanTangent( x );
    return 0.5 * ( x[0] - t ) * ( x[0] + t );
}

// the smaller and the larger spectral value
static inline double cnJordanMinEigen( const double x[3] )
{
    return ( x[0] - cnJordanTangent( x ) ) * CN_JORDAN_SQRT1_2;
}
static inline double cnJordanMaxEigen( const double x[3] )
{
    return ( x[0] + cnJordanTangent( x ) ) * CN_JORDAN_SQRT1_2;
}

// x in the interior of C
static inline int cnJordanInterior( const double x[3] )
{
    return x[0] > cnJordanTangent( x );
}

// x o y
static inline void cnJordanProduct( const double x[3], const double y[3], double out[3] )
{
    double n = ( x[0] * y[0] + x[1] * y[1] + x[2] * y[2] ) * CN_JORDAN_SQRT1_2;
    double t1 = ( x[0] * y[1] + y[0] * x[1] ) * CN_JORDAN_SQRT1_2;
    double t2 = ( x[0] * y[2] + y[0] * x[2] ) * CN_JORDAN_SQRT1_2;
    out[0] = n;
    out[1] = t1;
    out[2] = t2;
}

// x^-1 = J x / det x (x in int C)
static inline void cnJordanInverse( const double x[3], double out[3] )
{
    double d = cnJordanDet( x );
    out[0] = x[0] / d;
    out[1] = -x[1] / d;
    out[2] = -x[2] / d;
}

// x^(1/2), the square root in the cone (x in C): the spectral values' roots on the same frame
static inline void cnJordanSqrt( const double x[3], double out[3] )
{
    double t = cnJordanTangent( x );
    double l1 = sqrt( fmax( ( x[0] - t ) * CN_JORDAN_SQRT1_2, 0.0 ) );
    double l2 = sqrt( ( x[0] + t ) * CN_JORDAN_SQRT1_2 );
    // q_1,2 = (1, -+u) / sqrt 2 with u = x_t / |x_t| (any unit vector when x_t = 0)
    double u1 = t > 0.0 ? x[1] / t : 1.0;
    double u2 = t > 0.0 ? x[2] / t : 0.0;
    out[0] = ( l1 + l2 ) * CN_JORDAN_SQRT1_2;
    out[1] = ( l2 - l1 ) * CN_JORDAN_SQRT1_2 * u1;
    out[2] = ( l2 - l1 ) * CN_JORDAN_SQRT1_2 * u2;
}

// P(x) = x x^T - det(x) J, row major
static inline void cnJordanQuadratic( const double x[3], double p[9] )
{
    double d = cnJordanDet( x );
    for ( int i = 0; i < 3; ++i )
    {
        for ( int j = 0; j < 3; ++j )
        {
            p[3 * i + j] = x[i] * x[j];
        }
    }
    p[0] -= d;
    p[4] += d;
    p[8] += d;
}

// The Nesterov-Todd point w with P(w) x = y (x, y in int C; Lemma 3).
static inline void cnJordanScaling( const double x[3], const double y[3], double w[3] )
{
    double dx = cnJordanDet( x );
    double dy = cnJordanDet( y );
    double ratio = sqrt( dy / dx );
    double den = sqrt( x[0] * y[0] + x[1] * y[1] + x[2] * y[2] + 2.0 * sqrt( dx * dy ) );
    w[0] = ( y[0] + ratio * x[0] ) / den;
    w[1] = ( y[1] - ratio * x[1] ) / den;
    w[2] = ( y[2] - ratio * x[2] ) / den;
}

// The supremum of theta with x + theta dx in int C (x in int C; Lemma 2): INFINITY when dx is in C.
// The smaller spectral value of P(x^-1/2) dx is (h - sqrt(h^2 - det dx det x)) / det x with
// h = dx^T J x / 2; the step is unrestricted when it is not negative, else it is -1 over it.
static inline double cnJordanStepMax( const double x[3], const double dx[3] )
{
    double detx = cnJordanDet( x );
    double detd = cnJordanDet( dx );
    double h = 0.5 * ( dx[0] * x[0] - dx[1] * x[1] - dx[2] * x[2] );
    double radicand = fmax( h * h - detd * detx, 0.0 );
    double smallest = ( h - sqrt( radicand ) ) / detx;
    return smallest < 0.0 ? -1.0 / smallest : (double)INFINITY;
}

// log(2 sqrt(det x det y)): a cone pair's term of the centrality measure, log(x^T y) on the central
// path (Lemma 1)
static inline double cnJordanPairLog( const double x[3], const double y[3] )
{
    return log( 2.0 ) + 0.5 * ( log( cnJordanDet( x ) ) + log( cnJordanDet( y ) ) );
}
