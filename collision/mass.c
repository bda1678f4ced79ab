// SPDX-License-Identifier: MIT
// Mass properties of the shapes (closed forms in the shape frame, then moved to a pose) and of
// compounds (parallel-axis theorem).
//
// Shape frame formulas, for density rho and mass m = rho V:
// - sphere (radius r): I = 2/5 m r^2 about every axis.
// - box (half extents a, b, c): I_x = m/3 (b^2 + c^2), and so on.
// - cylinder (radius r, half length h, axis z): I_z = m r^2 / 2, I_x = I_y = m (r^2/4 + h^2/3).
// - capsule: that cylinder (mass m_c) plus two hemispheres (together m_s = rho 4/3 pi r^3). A
//   hemisphere has I = 2/5 (m_s/2) r^2 about any axis through the centre of its flat face, and
//   its centroid is 3r/8 from that face. Moving to the centroid and on to the capsule centre
//   (distance h + 3r/8) gives, for both together, I_x = m_s (2/5 r^2 + h^2 + 3/4 h r) and
//   I_z = 2/5 m_s r^2.
// - ellipsoid (radii a, b, c): I_x = m/5 (b^2 + c^2), and so on.
// - ring torus (major R, minor r, axis z): V = 2 pi^2 R r^2, I_z = m (R^2 + 3/4 r^2),
//   I_x = I_y = m (R^2/2 + 5/8 r^2).
// - hull: integrated over its triangles (cnHullMass).

#include "core.h"
#include "hull.h"

#include "cairn/cairn.h"

#include <math.h>
#include <string.h>

static cnMassData cnZeroMass( void )
{
    cnMassData mass;
    memset( &mass, 0, sizeof( mass ) );
    return mass;
}

// mass at the origin with a diagonal inertia
static cnMassData cnDiagonalMass( double mass, double ix, double iy, double iz )
{
    cnMassData data = cnZeroMass();
    data.mass = mass;
    data.inertia = cnMakeMat3Diagonal( ix, iy, iz );
    return data;
}

// closed forms in the shape frame (the geometry is valid and not a hull or a plane)
static cnMassData cnLocalMass( const cnGeometry* geometry, double density )
{
    switch ( geometry->type )
    {
        case cn_sphereShape:
        {
            double r = geometry->sphere.radius;
            double m = density * ( 4.0 / 3.0 * CN_PI * r * r * r );
            double i = 0.4 * m * r * r;
            return cnDiagonalMass( m, i, i, i );
        }

        case cn_boxShape:
        {
            cnVec3 h = geometry->box.halfExtents;
            double m = density * ( 8.0 * h.x * h.y * h.z );
            double k = m / 3.0;
            return cnDiagonalMass( m, k * ( h.y * h.y + h.z * h.z ), k * ( h.x * h.x + h.z * h.z ),
                                   k * ( h.x * h.x + h.y * h.y ) );
        }

        case cn_capsuleShape:
        {
            // cylinder part plus the two hemispheres, each moved to the centre
            double r = geometry->capsule.radius;
            double h = geometry->capsule.halfLength;
            double mc = density * ( CN_PI * r * r * ( 2.0 * h ) );
            double ms = density * ( 4.0 / 3.0 * CN_PI * r * r * r );
            double ix = mc * ( 0.25 * r * r + h * h / 3.0 ) + ms * ( 0.4 * r * r + h * h + 0.75 * h * r );
            double iz = 0.5 * mc * r * r + 0.4 * ms * r * r;
            return cnDiagonalMass( mc + ms, ix, ix, iz );
        }

        case cn_cylinderShape:
        {
            double r = geometry->cylinder.radius;
            double h = geometry->cylinder.halfLength;
            double m = density * ( CN_PI * r * r * ( 2.0 * h ) );
            double ix = m * ( 0.25 * r * r + h * h / 3.0 );
            return cnDiagonalMass( m, ix, ix, 0.5 * m * r * r );
        }

        case cn_ellipsoidShape:
        {
            cnVec3 a = geometry->ellipsoid.radii;
            double m = density * ( 4.0 / 3.0 * CN_PI * a.x * a.y * a.z );
            double k = 0.2 * m;
            return cnDiagonalMass( m, k * ( a.y * a.y + a.z * a.z ), k * ( a.x * a.x + a.z * a.z ),
                                   k * ( a.x * a.x + a.y * a.y ) );
        }

        case cn_torusShape:
        {
            double big = geometry->torus.majorRadius;
            double r = geometry->torus.minorRadius;
            double m = density * ( 2.0 * CN_PI * CN_PI * big * r * r );
            double ix = m * ( 0.5 * big * big + 0.625 * r * r );
            return cnDiagonalMass( m, ix, ix, m * ( big * big + 0.75 * r * r ) );
        }

        default:
            break;
    }
    CN_ASSERT( false );
    return cnZeroMass();
}

// density finite and >= 0, pose finite with a non-zero quaternion
static cnStatus cnCheckDensityAndPose( double density, cnTransform pose )
{
    if ( isfinite( density ) == false )
    {
        return cn_statusNonFinite;
    }
    if ( density < 0.0 )
    {
        return cn_statusInvalidArgument;
    }
    if ( cnIsFiniteVec3( pose.p ) == false || cnIsFiniteQuat( pose.q ) == false )
    {
        return cn_statusNonFinite;
    }
    double length = cnQuatLength( pose.q );
    if ( !( length > 0.0 && isfinite( length ) ) )
    {
        return cn_statusInvalidArgument;
    }
    return cn_statusOk;
}

// shape-frame mass data moved to the frame of the pose: centre p + R c, inertia R I R^T (made
// exactly symmetric); huge sizes can overflow even though every input is finite
static cnStatus cnPlaceMass( cnMassData local, cnTransform pose, cnMassData* outMass )
{
    cnQuat q = cnNormalizeQuat( pose.q );
    cnMat3 rotated = cnRotateTensor( q, local.inertia );
    cnMat3 symmetric = cnScaleMat3( 0.5, cnAddMat3( rotated, cnTranspose( rotated ) ) );
    cnMassData result;
    result.mass = local.mass;
    result.center = cnAdd( pose.p, cnRotate( q, local.center ) );
    result.inertia = symmetric;

    if ( isfinite( result.mass ) == false || cnIsFiniteVec3( result.center ) == false ||
         cnIsFiniteMat3( result.inertia ) == false )
    {
        return cn_statusNonFinite;
    }
    *outMass = result;
    return cn_statusOk;
}

cnStatus cnComputeMass( const cnGeometry* geometry, double density, cnTransform pose, cnMassData* outMass )
{
    if ( outMass == NULL )
    {
        return cn_statusInvalidArgument;
    }
    *outMass = cnZeroMass();
    if ( geometry == NULL )
    {
        return cn_statusInvalidArgument;
    }

    // a hull: computing it is the check
    if ( geometry->type == cn_hullShape )
    {
        cnHull hull;
        memset( &hull, 0, sizeof( hull ) );
        cnStatus status =
            cnComputeHull( geometry->hull.points, geometry->hull.pointCount, NULL, &hull, NULL, 0 );
        if ( status == cn_statusOk )
        {
            status = cnComputeHullMassAtPose( &hull, density, pose, outMass );
        }
        cnDestroyHull( &hull, NULL );
        return status;
    }

    // the geometry, the density and the pose, then the closed form in the shape frame
    cnStatus status = cnValidateGeometry( geometry, NULL, 0 );
    if ( status == cn_statusOk )
    {
        status = cnCheckDensityAndPose( density, pose );
    }
    if ( status == cn_statusOk && geometry->type == cn_planeShape )
    {
        status = cn_statusUnsupported;
    }
    if ( status != cn_statusOk )
    {
        return status;
    }
    return cnPlaceMass( cnLocalMass( geometry, density ), pose, outMass );
}

cnStatus cnComputeHullMassAtPose( const cnHull* hull, double density, cnTransform pose, cnMassData* outMass )
{
    *outMass = cnZeroMass();
    cnStatus status = cnCheckDensityAndPose( density, pose );
    if ( status != cn_statusOk )
    {
        return status;
    }
    return cnPlaceMass( cnHullMass( hull, density ), pose, outMass );
}

cnMassData cnCombineMass( const cnMassData* parts, int count )
{
    cnMassData total = cnZeroMass();
    if ( parts == NULL || count <= 0 )
    {
        return total;
    }

    // total mass, and the centres relative to the first one (small differences, less rounding)
    cnVec3 reference = parts[0].center;
    cnVec3 weighted = cn_vec3Zero;
    cnVec3 plain = cn_vec3Zero;
    for ( int i = 0; i < count; ++i )
    {
        cnVec3 offset = cnSub( parts[i].center, reference );
        total.mass += parts[i].mass;
        weighted = cnMulAdd( weighted, parts[i].mass, offset );
        plain = cnAdd( plain, offset );
    }

    // no mass: the plain mean of the centres and no inertia
    if ( total.mass == 0.0 )
    {
        total.center = cnMulAdd( reference, 1.0 / (double)count, plain );
        return total;
    }

    // mass-weighted centre, then every inertia moved to it: I + m (|d|^2 E - d d^T)
    cnVec3 shift = cnScale( 1.0 / total.mass, weighted );
    total.center = cnAdd( reference, shift );
    cnMat3 inertia = cn_mat3Zero;
    for ( int i = 0; i < count; ++i )
    {
        cnVec3 d = cnSub( cnSub( parts[i].center, reference ), shift );
        double m = parts[i].mass;
        cnMat3 parallel = {
            { m * ( d.y * d.y + d.z * d.z ), -m * d.x * d.y, -m * d.x * d.z },
            { -m * d.y * d.x, m * ( d.x * d.x + d.z * d.z ), -m * d.y * d.z },
            { -m * d.z * d.x, -m * d.z * d.y, m * ( d.x * d.x + d.y * d.y ) },
        };
        inertia = cnAddMat3( inertia, cnAddMat3( parts[i].inertia, parallel ) );
    }
    total.inertia = inertia;
    return total;
}
