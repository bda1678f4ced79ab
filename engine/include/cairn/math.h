// SPDX-License-Identifier: MIT
#pragma once

/// @defgroup math Math
/// Double-precision vectors, quaternions, 3x3 matrices and rigid transforms, with the small
/// inline functions the engine itself uses. SI units throughout; z is up by convention only.
/// @{

#include "cairn/base.h"

#include <math.h>
#include <stdbool.h>

/// pi, which -std=c17 does not give as M_PI.
#define CN_PI 3.14159265358979323846

/// 3-vector.
typedef struct cnVec3
{
    double x, y, z;
} cnVec3;

/// Unit quaternion, stored x, y, z, w (libccd's and cglm's order). Scene files and reports
/// write it as [w, x, y, z].
typedef struct cnQuat
{
    double x, y, z, w;
} cnQuat;

/// 3x3 matrix stored by columns.
typedef struct cnMat3
{
    cnVec3 cx, cy, cz;
} cnMat3;

/// Rigid transform: rotate by q, then translate by p.
typedef struct cnTransform
{
    cnVec3 p;
    cnQuat q;
} cnTransform;

static const cnVec3 cn_vec3Zero = { 0.0, 0.0, 0.0 };
static const cnQuat cn_quatIdentity = { 0.0, 0.0, 0.0, 1.0 };
static const cnMat3 cn_mat3Zero = { { 0.0, 0.0, 0.0 }, { 0.0, 0.0, 0.0 }, { 0.0, 0.0, 0.0 } };
static const cnMat3 cn_mat3Identity = { { 1.0, 0.0, 0.0 }, { 0.0, 1.0, 0.0 }, { 0.0, 0.0, 1.0 } };
static const cnTransform cn_transformIdentity = { { 0.0, 0.0, 0.0 }, { 0.0, 0.0, 0.0, 1.0 } };

CN_INLINE cnVec3 cnMakeVec3( double x, double y, double z )
{
    cnVec3 v = { x, y, z };
    return v;
}

CN_INLINE cnVec3 cnAdd( cnVec3 a, cnVec3 b )
{
    return cnMakeVec3( a.x + b.x, a.y + b.y, a.z + b.z );
}

CN_INLINE cnVec3 cnSub( cnVec3 a, cnVec3 b )
{
    return cnMakeVec3( a.x - b.x, a.y - b.y, a.z - b.z );
}

CN_INLINE cnVec3 cnNeg( cnVec3 a )
{
    return cnMakeVec3( -a.x, -a.y, -a.z );
}

CN_INLINE cnVec3 cnScale( double s, cnVec3 a )
{
    return cnMakeVec3( s * a.x, s * a.y, s * a.z );
}

/// a + s * b
CN_INLINE cnVec3 cnMulAdd( cnVec3 a, double s, cnVec3 b )
{
    return cnMakeVec3( a.x + s * b.x, a.y + s * b.y, a.z + s * b.z );
}

/// Component-wise product.
CN_INLINE cnVec3 cnMulComponents( cnVec3 a, cnVec3 b )
{
    return cnMakeVec3( a.x * b.x, a.y * b.y, a.z * b.z );
}

CN_INLINE double cnDot( cnVec3 a, cnVec3 b )
{
    return a.x * b.x + a.y * b.y + a.z * b.z;
}

CN_INLINE cnVec3 cnCross( cnVec3 a, cnVec3 b )
{
    return cnMakeVec3( a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x );
}

CN_INLINE double cnLength( cnVec3 a )
{
    return sqrt( cnDot( a, a ) );
}

CN_INLINE double cnLengthSquared( cnVec3 a )
{
    return cnDot( a, a );
}

/// Unit vector along a; the zero vector stays zero.
CN_INLINE cnVec3 cnNormalize( cnVec3 a )
{
    double length = cnLength( a );
    return length > 0.0 ? cnScale( 1.0 / length, a ) : cn_vec3Zero;
}

CN_INLINE bool cnIsFiniteVec3( cnVec3 a )
{
    return isfinite( a.x ) && isfinite( a.y ) && isfinite( a.z );
}

/// Unit vector along a, scaled first so that tiny or huge components neither under- nor overflow;
/// `fallback` when a is zero or not finite.
CN_INLINE cnVec3 cnNormalizeOr( cnVec3 a, cnVec3 fallback )
{
    double m = fmax( fabs( a.x ), fmax( fabs( a.y ), fabs( a.z ) ) );
    if ( !( m > 0.0 ) || !cnIsFiniteVec3( a ) )
    {
        return fallback;
    }
    cnVec3 s = cnScale( 1.0 / m, a );
    return cnScale( 1.0 / cnLength( s ), s );
}

/// A unit vector perpendicular to v: v crossed with the coordinate axis least aligned with it
/// (a fixed function of v); +x for a zero v.
CN_INLINE cnVec3 cnPerpendicular( cnVec3 v )
{
    double ax = fabs( v.x ), ay = fabs( v.y ), az = fabs( v.z );
    cnVec3 axis = ax <= ay && ax <= az
                      ? cnMakeVec3( 1.0, 0.0, 0.0 )
                      : ( ay <= az ? cnMakeVec3( 0.0, 1.0, 0.0 ) : cnMakeVec3( 0.0, 0.0, 1.0 ) );
    cnVec3 p = cnNormalize( cnCross( v, axis ) );
    return cnLengthSquared( p ) > 0.0 ? p : cnMakeVec3( 1.0, 0.0, 0.0 );
}

CN_INLINE bool cnIsFiniteQuat( cnQuat q )
{
    return isfinite( q.x ) && isfinite( q.y ) && isfinite( q.z ) && isfinite( q.w );
}

CN_INLINE bool cnIsFiniteMat3( cnMat3 m )
{
    return cnIsFiniteVec3( m.cx ) && cnIsFiniteVec3( m.cy ) && cnIsFiniteVec3( m.cz );
}

CN_INLINE cnQuat cnMakeQuat( double w, double x, double y, double z )
{
    cnQuat q = { x, y, z, w };
    return q;
}

/// Hamilton product a * b (apply b first, then a).
CN_INLINE cnQuat cnMulQuat( cnQuat a, cnQuat b )
{
    cnQuat q;
    q.w = a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z;
    q.x = a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y;
    q.y = a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x;
    q.z = a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w;
    return q;
}

CN_INLINE cnQuat cnConjugate( cnQuat q )
{
    cnQuat c = { -q.x, -q.y, -q.z, q.w };
    return c;
}

CN_INLINE double cnQuatLength( cnQuat q )
{
    return sqrt( q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w );
}

/// Unit quaternion along q; a zero quaternion gives the identity.
CN_INLINE cnQuat cnNormalizeQuat( cnQuat q )
{
    double length = cnQuatLength( q );
    if ( length > 0.0 )
    {
        double inv = 1.0 / length;
        cnQuat u = { q.x * inv, q.y * inv, q.z * inv, q.w * inv };
        return u;
    }
    return cn_quatIdentity;
}

/// Rotation by `angle` radians about the unit vector `axis`.
CN_INLINE cnQuat cnQuatFromAxisAngle( cnVec3 axis, double angle )
{
    double s = sin( 0.5 * angle );
    cnQuat q = { s * axis.x, s * axis.y, s * axis.z, cos( 0.5 * angle ) };
    return q;
}

/// Rotate v by the unit quaternion q.
CN_INLINE cnVec3 cnRotate( cnQuat q, cnVec3 v )
{
    // v + 2 w (u x v) + 2 u x (u x v), with u the vector part
    cnVec3 u = { q.x, q.y, q.z };
    cnVec3 t = cnScale( 2.0, cnCross( u, v ) );
    return cnAdd( cnAdd( v, cnScale( q.w, t ) ), cnCross( u, t ) );
}

/// Rotate the unit axis k (0: x, 1: y, 2: z) by the unit quaternion q: cnRotate( q, e_k ) with the
/// products by the axis's zeros and ones left out, so the same bits as cnRotate (up to the sign of
/// a zero component) at a third of the arithmetic.
CN_INLINE cnVec3 cnRotateAxis( cnQuat q, int k )
{
    double x = q.x, y = q.y, z = q.z, w = q.w;
    if ( k == 0 )
    {
        // t = 2 (u x e_x) = (0, 2 z, -2 y)
        double ty = 2.0 * z, tz = 2.0 * -y;
        return cnMakeVec3( 1.0 + ( y * tz - z * ty ), w * ty - x * tz, w * tz + x * ty );
    }
    if ( k == 1 )
    {
        // t = 2 (u x e_y) = (-2 z, 0, 2 x)
        double tx = 2.0 * -z, tz = 2.0 * x;
        return cnMakeVec3( w * tx + y * tz, 1.0 + ( z * tx - x * tz ), w * tz - y * tx );
    }
    // t = 2 (u x e_z) = (2 y, -2 x, 0)
    double tx = 2.0 * y, ty = 2.0 * -x;
    return cnMakeVec3( w * tx - z * ty, w * ty + z * tx, 1.0 + ( x * ty - y * tx ) );
}

/// Rotate v by the inverse of the unit quaternion q.
CN_INLINE cnVec3 cnInvRotate( cnQuat q, cnVec3 v )
{
    return cnRotate( cnConjugate( q ), v );
}

/// Exponential map: the unit quaternion of a rotation by the rotation vector `theta` (axis times
/// angle, radians). Exact to rounding for any angle. Below half a radian, the Taylor series of
/// sin and cos of the half angle (truncated past the 1e-20 level) replaces the two libm calls:
/// the integrator calls this several times per body and step.
CN_INLINE cnQuat cnQuatExp( cnVec3 theta )
{
    double angle2 = cnDot( theta, theta );
    double k, c;
    if ( angle2 < 0.25 )
    {
        // h = angle / 2; k = sin(h) / angle = (1/2) sin(h) / h; c = cos(h); series in h^2
        double h2 = 0.25 * angle2;
        k = 0.5 *
            ( 1.0 + h2 * ( -1.0 / 6.0 +
                           h2 * ( 1.0 / 120.0 + h2 * ( -1.0 / 5040.0 +
                                                       h2 * ( 1.0 / 362880.0 +
                                                              h2 * ( -1.0 / 39916800.0 +
                                                                     h2 * ( 1.0 / 6227020800.0 ) ) ) ) ) ) );
        c = 1.0 + h2 * ( -0.5 + h2 * ( 1.0 / 24.0 +
                                       h2 * ( -1.0 / 720.0 +
                                              h2 * ( 1.0 / 40320.0 +
                                                     h2 * ( -1.0 / 3628800.0 +
                                                            h2 * ( 1.0 / 479001600.0 +
                                                                   h2 * ( -1.0 / 87178291200.0 ) ) ) ) ) ) );
    }
    else
    {
        double angle = sqrt( angle2 );
        k = sin( 0.5 * angle ) / angle;
        c = cos( 0.5 * angle );
    }
    cnQuat q = { k * theta.x, k * theta.y, k * theta.z, c };
    return q;
}

/// Apply a transform to a point.
CN_INLINE cnVec3 cnTransformPoint( cnTransform t, cnVec3 p )
{
    return cnAdd( cnRotate( t.q, p ), t.p );
}

/// Apply the inverse of a transform to a point.
CN_INLINE cnVec3 cnInvTransformPoint( cnTransform t, cnVec3 p )
{
    return cnInvRotate( t.q, cnSub( p, t.p ) );
}

/// a * b: apply b first, then a.
CN_INLINE cnTransform cnMulTransforms( cnTransform a, cnTransform b )
{
    cnTransform t;
    t.q = cnMulQuat( a.q, b.q );
    t.p = cnAdd( cnRotate( a.q, b.p ), a.p );
    return t;
}

CN_INLINE cnMat3 cnMakeMat3Diagonal( double a, double b, double c )
{
    cnMat3 m = { { a, 0.0, 0.0 }, { 0.0, b, 0.0 }, { 0.0, 0.0, c } };
    return m;
}

CN_INLINE cnVec3 cnMulMV( cnMat3 m, cnVec3 v )
{
    return cnAdd( cnAdd( cnScale( v.x, m.cx ), cnScale( v.y, m.cy ) ), cnScale( v.z, m.cz ) );
}

CN_INLINE cnMat3 cnMulMM( cnMat3 a, cnMat3 b )
{
    cnMat3 m = { cnMulMV( a, b.cx ), cnMulMV( a, b.cy ), cnMulMV( a, b.cz ) };
    return m;
}

CN_INLINE cnMat3 cnTranspose( cnMat3 m )
{
    cnMat3 t = { { m.cx.x, m.cy.x, m.cz.x }, { m.cx.y, m.cy.y, m.cz.y }, { m.cx.z, m.cy.z, m.cz.z } };
    return t;
}

CN_INLINE cnMat3 cnAddMat3( cnMat3 a, cnMat3 b )
{
    cnMat3 m = { cnAdd( a.cx, b.cx ), cnAdd( a.cy, b.cy ), cnAdd( a.cz, b.cz ) };
    return m;
}

CN_INLINE cnMat3 cnScaleMat3( double s, cnMat3 a )
{
    cnMat3 m = { cnScale( s, a.cx ), cnScale( s, a.cy ), cnScale( s, a.cz ) };
    return m;
}

/// Rotation matrix of a unit quaternion.
CN_INLINE cnMat3 cnMat3FromQuat( cnQuat q )
{
    cnMat3 m = { cnRotateAxis( q, 0 ), cnRotateAxis( q, 1 ), cnRotateAxis( q, 2 ) };
    return m;
}

/// R m R^T: a body-frame tensor (inertia, mobility) expressed in the world frame.
CN_INLINE cnMat3 cnRotateTensor( cnQuat q, cnMat3 m )
{
    cnMat3 r = cnMat3FromQuat( q );
    return cnMulMM( cnMulMM( r, m ), cnTranspose( r ) );
}

CN_INLINE double cnDeterminant( cnMat3 m )
{
    return cnDot( m.cx, cnCross( m.cy, m.cz ) );
}

/// Inverse of a 3x3 matrix; a singular matrix gives the zero matrix.
CN_INLINE cnMat3 cnInvertMat3( cnMat3 m )
{
    double det = cnDeterminant( m );
    if ( det == 0.0 || isfinite( det ) == false )
    {
        return cn_mat3Zero;
    }
    double inv = 1.0 / det;
    // rows of the inverse are the cross products of the columns
    cnVec3 r0 = cnScale( inv, cnCross( m.cy, m.cz ) );
    cnVec3 r1 = cnScale( inv, cnCross( m.cz, m.cx ) );
    cnVec3 r2 = cnScale( inv, cnCross( m.cx, m.cy ) );
    cnMat3 t = { r0, r1, r2 };
    return cnTranspose( t );
}

/// @}
