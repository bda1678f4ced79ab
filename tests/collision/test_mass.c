// SPDX-License-Identifier: MIT
// Geometry checks, volumes and mass properties against closed forms written out here, independently
// of collision/mass.c (own rotation matrix, own formulas, hemispheres moved step by step).
// Set CNT_VERBOSE=1 to print the measured relative errors.

#include "test_support.h"

#include "cairn/cairn.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

Suite* cntMassSuite( void );

#define CNT_PI      3.14159265358979323846
#define CNT_DENSITY 1234.5

// print a measured relative error when CNT_VERBOSE is set
static void cntReport( const char* what, double error )
{
    if ( getenv( "CNT_VERBOSE" ) != NULL )
    {
        printf( "  %-40s relative error %.3g\n", what, error );
    }
}

// a rotation of 0.83 rad about (1, -2, 0.5), then a translation
static cnTransform cntPose( void )
{
    double angle = 0.83;
    double ax = 1.0, ay = -2.0, az = 0.5;
    double length = sqrt( ax * ax + ay * ay + az * az );
    double s = sin( 0.5 * angle ) / length;
    cnTransform pose;
    pose.q.x = s * ax;
    pose.q.y = s * ay;
    pose.q.z = s * az;
    pose.q.w = cos( 0.5 * angle );
    pose.p.x = 1.25;
    pose.p.y = -0.5;
    pose.p.z = 2.0;
    return pose;
}

// rotation matrix of a unit quaternion, row by row (the textbook formula, not cnMat3FromQuat)
static void cntRotationMatrix( cnQuat q, double r[3][3] )
{
    double w = q.w, x = q.x, y = q.y, z = q.z;
    r[0][0] = 1.0 - 2.0 * ( y * y + z * z );
    r[0][1] = 2.0 * ( x * y - w * z );
    r[0][2] = 2.0 * ( x * z + w * y );
    r[1][0] = 2.0 * ( x * y + w * z );
    r[1][1] = 1.0 - 2.0 * ( x * x + z * z );
    r[1][2] = 2.0 * ( y * z - w * x );
    r[2][0] = 2.0 * ( x * z - w * y );
    r[2][1] = 2.0 * ( y * z + w * x );
    r[2][2] = 1.0 - 2.0 * ( x * x + y * y );
}

// element (row, col) of a column-stored cnMat3
static double cntAt( cnMat3 m, int row, int col )
{
    cnVec3 c = col == 0 ? m.cx : col == 1 ? m.cy : m.cz;
    return row == 0 ? c.x : row == 1 ? c.y : c.z;
}

static double cntComponent( cnVec3 v, int i )
{
    return i == 0 ? v.x : i == 1 ? v.y : v.z;
}

// largest |actual - expected| over the largest |expected| entry
static double cntTensorError( cnMat3 actual, double expected[3][3] )
{
    double scale = 0.0;
    double error = 0.0;
    for ( int i = 0; i < 3; ++i )
    {
        for ( int j = 0; j < 3; ++j )
        {
            scale = fmax( scale, fabs( expected[i][j] ) );
            error = fmax( error, fabs( cntAt( actual, i, j ) - expected[i][j] ) );
        }
    }
    return error / scale;
}

// largest component error over the length of the expected vector (or 1 m when it is shorter)
static double cntVectorError( cnVec3 actual, cnVec3 expected )
{
    double scale =
        fmax( 1.0, sqrt( expected.x * expected.x + expected.y * expected.y + expected.z * expected.z ) );
    double error = 0.0;
    for ( int i = 0; i < 3; ++i )
    {
        error = fmax( error, fabs( cntComponent( actual, i ) - cntComponent( expected, i ) ) );
    }
    return error / scale;
}

// the expected mass properties of one case, in the shape frame: a diagonal inertia
typedef struct cntMassCase
{
    const char* name;
    cnGeometry geometry;
    double mass;
    cnVec3 center;
    double ix, iy, iz;
} cntMassCase;

static const cnVec3 cnt_boxCorners[8] = {
    { -0.3, -0.55, -1.2 }, { 0.3, -0.55, -1.2 }, { -0.3, 0.55, -1.2 }, { 0.3, 0.55, -1.2 },
    { -0.3, -0.55, 1.2 },  { 0.3, -0.55, 1.2 },  { -0.3, 0.55, 1.2 },  { 0.3, 0.55, 1.2 },
};

// the same box, moved off the shape origin by (0.2, -0.1, 0.3)
static const cnVec3 cnt_shiftedCorners[8] = {
    { -0.1, -0.65, -0.9 }, { 0.5, -0.65, -0.9 }, { -0.1, 0.45, -0.9 }, { 0.5, 0.45, -0.9 },
    { -0.1, -0.65, 1.5 },  { 0.5, -0.65, 1.5 },  { -0.1, 0.45, 1.5 },  { 0.5, 0.45, 1.5 },
};

enum
{
    cnt_caseCount = 10
};

// every shape type with its closed form
static cntMassCase cntMakeCase( int index )
{
    cntMassCase c;
    memset( &c, 0, sizeof( c ) );
    double rho = CNT_DENSITY;
    switch ( index )
    {
        case 0:
        {
            // solid sphere
            double r = 0.37;
            c.name = "sphere";
            c.geometry.type = cn_sphereShape;
            c.geometry.sphere.radius = r;
            c.mass = rho * 4.0 / 3.0 * CNT_PI * r * r * r;
            c.ix = c.iy = c.iz = 2.0 / 5.0 * c.mass * r * r;
            break;
        }
        case 1:
        {
            // box of sides 2a, 2b, 2c: I_x = m (side_y^2 + side_z^2) / 12
            double a = 0.3, b = 0.55, d = 1.2;
            c.name = "box";
            c.geometry.type = cn_boxShape;
            c.geometry.box.halfExtents = cnMakeVec3( a, b, d );
            c.mass = rho * ( 2.0 * a ) * ( 2.0 * b ) * ( 2.0 * d );
            c.ix = c.mass * ( 4.0 * b * b + 4.0 * d * d ) / 12.0;
            c.iy = c.mass * ( 4.0 * a * a + 4.0 * d * d ) / 12.0;
            c.iz = c.mass * ( 4.0 * a * a + 4.0 * b * b ) / 12.0;
            break;
        }
        case 2:
        case 3:
        {
            // capsule: a cylinder of length L = 2h plus two hemispheres, each moved step by step
            double r = 0.25, h = index == 2 ? 0.6 : 0.0, length = 2.0 * h;
            c.name = index == 2 ? "capsule" : "capsule of zero length";
            c.geometry.type = cn_capsuleShape;
            c.geometry.capsule.radius = r;
            c.geometry.capsule.halfLength = h;
            double cylinderMass = rho * CNT_PI * r * r * length;
            double cylinderX = cylinderMass * ( 3.0 * r * r + length * length ) / 12.0;
            double cylinderZ = cylinderMass * r * r / 2.0;
            // one hemisphere: about the centre of its flat face, then its centroid (3r/8 up), then
            // the capsule centre (h + 3r/8 away)
            double hemiMass = rho * 2.0 / 3.0 * CNT_PI * r * r * r;
            double hemiFaceX = 2.0 / 5.0 * hemiMass * r * r;
            double offset = 3.0 * r / 8.0;
            double hemiCentroidX = hemiFaceX - hemiMass * offset * offset;
            double hemiCapsuleX = hemiCentroidX + hemiMass * ( h + offset ) * ( h + offset );
            double hemiZ = 2.0 / 5.0 * hemiMass * r * r;
            c.mass = cylinderMass + 2.0 * hemiMass;
            c.ix = c.iy = cylinderX + 2.0 * hemiCapsuleX;
            c.iz = cylinderZ + 2.0 * hemiZ;
            break;
        }
        case 4:
        {
            // cylinder of length L along z
            double r = 0.4, h = 0.9, length = 2.0 * h;
            c.name = "cylinder";
            c.geometry.type = cn_cylinderShape;
            c.geometry.cylinder.radius = r;
            c.geometry.cylinder.halfLength = h;
            c.mass = rho * CNT_PI * r * r * length;
            c.ix = c.iy = c.mass * ( 3.0 * r * r + length * length ) / 12.0;
            c.iz = c.mass * r * r / 2.0;
            break;
        }
        case 5:
        {
            // ellipsoid: I_x = m (b^2 + c^2) / 5
            double a = 0.3, b = 0.5, d = 0.8;
            c.name = "ellipsoid";
            c.geometry.type = cn_ellipsoidShape;
            c.geometry.ellipsoid.radii = cnMakeVec3( a, b, d );
            c.mass = rho * 4.0 / 3.0 * CNT_PI * a * b * d;
            c.ix = c.mass * ( b * b + d * d ) / 5.0;
            c.iy = c.mass * ( a * a + d * d ) / 5.0;
            c.iz = c.mass * ( a * a + b * b ) / 5.0;
            break;
        }
        case 6:
        {
            // ring torus about z
            double big = 1.1, r = 0.35;
            c.name = "torus";
            c.geometry.type = cn_torusShape;
            c.geometry.torus.majorRadius = big;
            c.geometry.torus.minorRadius = r;
            c.mass = rho * 2.0 * CNT_PI * CNT_PI * big * r * r;
            c.ix = c.iy = c.mass * ( big * big / 2.0 + 5.0 / 8.0 * r * r );
            c.iz = c.mass * ( big * big + 3.0 / 4.0 * r * r );
            break;
        }
        case 7:
        case 8:
        {
            // hull of a box's corners: the box (moved off the origin in case 8)
            double a = 0.3, b = 0.55, d = 1.2;
            c.name = index == 7 ? "hull of box corners" : "hull of shifted box corners";
            c.geometry.type = cn_hullShape;
            c.geometry.hull.points = index == 7 ? cnt_boxCorners : cnt_shiftedCorners;
            c.geometry.hull.pointCount = 8;
            c.mass = rho * 8.0 * a * b * d;
            c.center = index == 7 ? cnMakeVec3( 0.0, 0.0, 0.0 ) : cnMakeVec3( 0.2, -0.1, 0.3 );
            c.ix = c.mass * ( b * b + d * d ) / 3.0;
            c.iy = c.mass * ( a * a + d * d ) / 3.0;
            c.iz = c.mass * ( a * a + b * b ) / 3.0;
            break;
        }
        default:
        {
            // a thin torus, nearly a ring
            double big = 2.0, r = 0.01;
            c.name = "thin torus";
            c.geometry.type = cn_torusShape;
            c.geometry.torus.majorRadius = big;
            c.geometry.torus.minorRadius = r;
            c.mass = rho * 2.0 * CNT_PI * CNT_PI * big * r * r;
            c.ix = c.iy = c.mass * ( big * big / 2.0 + 5.0 / 8.0 * r * r );
            c.iz = c.mass * ( big * big + 3.0 / 4.0 * r * r );
            break;
        }
    }
    return c;
}

// compare cnComputeMass at a pose with R I R^T and p + R c computed here
static void cntCheckCase( const cntMassCase* c, cnTransform pose, double tolerance )
{
    cnMassData data;
    cnStatus status = cnComputeMass( &c->geometry, CNT_DENSITY, pose, &data );
    ck_assert_msg( status == cn_statusOk, "%s: %s", c->name, cnStatusString( status ) );

    double r[3][3];
    cntRotationMatrix( pose.q, r );
    double diagonal[3] = { c->ix, c->iy, c->iz };
    double expected[3][3];
    for ( int i = 0; i < 3; ++i )
    {
        for ( int j = 0; j < 3; ++j )
        {
            expected[i][j] = 0.0;
            for ( int k = 0; k < 3; ++k )
            {
                expected[i][j] += r[i][k] * diagonal[k] * r[j][k];
            }
        }
    }
    double local[3] = { c->center.x, c->center.y, c->center.z };
    cnVec3 center = pose.p;
    center.x += r[0][0] * local[0] + r[0][1] * local[1] + r[0][2] * local[2];
    center.y += r[1][0] * local[0] + r[1][1] * local[1] + r[1][2] * local[2];
    center.z += r[2][0] * local[0] + r[2][1] * local[1] + r[2][2] * local[2];

    double massError = fabs( data.mass - c->mass ) / c->mass;
    double centerError = cntVectorError( data.center, center );
    double inertiaError = cntTensorError( data.inertia, expected );
    char label[96];
    snprintf( label, sizeof( label ), "%s mass", c->name );
    cntReport( label, massError );
    snprintf( label, sizeof( label ), "%s centre", c->name );
    cntReport( label, centerError );
    snprintf( label, sizeof( label ), "%s inertia", c->name );
    cntReport( label, inertiaError );

    ck_assert_msg( massError <= tolerance, "%s: mass %.17g, expected %.17g", c->name, data.mass, c->mass );
    ck_assert_msg( centerError <= tolerance, "%s: centre error %g", c->name, centerError );
    ck_assert_msg( inertiaError <= tolerance, "%s: inertia error %g", c->name, inertiaError );

    // the result is an exactly symmetric tensor
    for ( int i = 0; i < 3; ++i )
    {
        for ( int j = 0; j < 3; ++j )
        {
            ck_assert( cntAt( data.inertia, i, j ) == cntAt( data.inertia, j, i ) );
        }
    }
}

// _i: the case; rotated and translated pose
START_TEST( mass_matches_closed_form_at_a_pose )
{
    cntMassCase c = cntMakeCase( _i );
    cntCheckCase( &c, cntPose(), 1e-12 );
}
END_TEST

// _i: the case; identity pose, so the inertia is the diagonal itself
START_TEST( mass_matches_closed_form_in_shape_frame )
{
    cntMassCase c = cntMakeCase( _i );
    cntCheckCase( &c, cn_transformIdentity, 1e-12 );
}
END_TEST

// a hull of box corners placed by the pose (shape frame = identity): the hull integration itself
// must produce the full rotated tensor R I R^T, off-diagonal terms included
START_TEST( hull_of_rotated_box_has_rotated_inertia )
{
    cnTransform pose = cntPose();
    double r[3][3];
    cntRotationMatrix( pose.q, r );
    double half[3] = { 0.3, 0.55, 1.2 };
    cnVec3 corners[8];
    for ( int i = 0; i < 8; ++i )
    {
        double local[3] = { ( i & 1 ) ? half[0] : -half[0], ( i & 2 ) ? half[1] : -half[1],
                            ( i & 4 ) ? half[2] : -half[2] };
        corners[i].x = pose.p.x + r[0][0] * local[0] + r[0][1] * local[1] + r[0][2] * local[2];
        corners[i].y = pose.p.y + r[1][0] * local[0] + r[1][1] * local[1] + r[1][2] * local[2];
        corners[i].z = pose.p.z + r[2][0] * local[0] + r[2][1] * local[1] + r[2][2] * local[2];
    }

    cntMassCase c;
    memset( &c, 0, sizeof( c ) );
    c.name = "hull of rotated box corners";
    c.geometry.type = cn_hullShape;
    c.geometry.hull.points = corners;
    c.geometry.hull.pointCount = 8;
    c.mass = CNT_DENSITY * 8.0 * half[0] * half[1] * half[2];
    c.ix = c.mass * ( half[1] * half[1] + half[2] * half[2] ) / 3.0;
    c.iy = c.mass * ( half[0] * half[0] + half[2] * half[2] ) / 3.0;
    c.iz = c.mass * ( half[0] * half[0] + half[1] * half[1] ) / 3.0;

    // expected: the box at `pose`; computed: the placed corners at the identity
    cnMassData data;
    ck_assert_int_eq( cnComputeMass( &c.geometry, CNT_DENSITY, cn_transformIdentity, &data ), cn_statusOk );
    double expected[3][3];
    for ( int i = 0; i < 3; ++i )
    {
        for ( int j = 0; j < 3; ++j )
        {
            expected[i][j] = r[i][0] * c.ix * r[j][0] + r[i][1] * c.iy * r[j][1] + r[i][2] * c.iz * r[j][2];
        }
    }
    double massError = fabs( data.mass - c.mass ) / c.mass;
    double centerError = cntVectorError( data.center, pose.p );
    double inertiaError = cntTensorError( data.inertia, expected );
    cntReport( "hull of rotated box corners mass", massError );
    cntReport( "hull of rotated box corners centre", centerError );
    cntReport( "hull of rotated box corners inertia", inertiaError );
    ck_assert_msg( massError <= 1e-12, "mass error %g", massError );
    ck_assert_msg( centerError <= 1e-12, "centre error %g", centerError );
    ck_assert_msg( inertiaError <= 1e-12, "inertia error %g", inertiaError );
    // the off-diagonal terms are not small here, so the check above is about them too
    ck_assert( fabs( expected[0][1] ) > 0.01 * c.ix );
}
END_TEST

// _i: the case; the volume is the mass over the density
START_TEST( volume_matches_closed_form )
{
    cntMassCase c = cntMakeCase( _i );
    double volume = cnComputeVolume( &c.geometry );
    CNT_ASSERT_REL( volume, c.mass / CNT_DENSITY, 1e-13 );
}
END_TEST

// a capsule of zero length is the sphere of its radius
START_TEST( capsule_of_zero_length_is_a_sphere )
{
    cnGeometry capsule = { .type = cn_capsuleShape, .capsule = { 0.7, 0.0 } };
    cnGeometry sphere = { .type = cn_sphereShape, .sphere = { 0.7 } };
    cnMassData a, b;
    ck_assert_int_eq( cnComputeMass( &capsule, 900.0, cntPose(), &a ), cn_statusOk );
    ck_assert_int_eq( cnComputeMass( &sphere, 900.0, cntPose(), &b ), cn_statusOk );
    CNT_ASSERT_REL( a.mass, b.mass, 1e-15 );
    CNT_ASSERT_REL( a.inertia.cx.x, b.inertia.cx.x, 1e-14 );
    CNT_ASSERT_REL( a.inertia.cz.z, b.inertia.cz.z, 1e-14 );
}
END_TEST

// a long capsule tends to its cylinder part: the hemispheres add 4/3 pi r^3 of 2 pi r^2 h
START_TEST( long_capsule_tends_to_its_cylinder )
{
    double r = 0.1, h = 1000.0;
    cnGeometry capsule = { .type = cn_capsuleShape, .capsule = { r, h } };
    cnGeometry cylinder = { .type = cn_cylinderShape, .cylinder = { r, h } };
    cnMassData a, b;
    ck_assert_int_eq( cnComputeMass( &capsule, 1.0, cn_transformIdentity, &a ), cn_statusOk );
    ck_assert_int_eq( cnComputeMass( &cylinder, 1.0, cn_transformIdentity, &b ), cn_statusOk );
    ck_assert( a.mass > b.mass && a.inertia.cx.x > b.inertia.cx.x );
    CNT_ASSERT_REL( a.mass, b.mass, 2.0 * r / ( 3.0 * h ) );
    CNT_ASSERT_REL( a.inertia.cx.x, b.inertia.cx.x, 3.0 * r / h );
}
END_TEST

// zero density: no mass, no inertia, and the centre still where the shape is
START_TEST( zero_density_gives_zero_mass )
{
    cnGeometry sphere = { .type = cn_sphereShape, .sphere = { 0.5 } };
    cnTransform pose = cntPose();
    cnMassData data;
    ck_assert_int_eq( cnComputeMass( &sphere, 0.0, pose, &data ), cn_statusOk );
    ck_assert( data.mass == 0.0 );
    ck_assert( data.inertia.cx.x == 0.0 && data.inertia.cy.y == 0.0 && data.inertia.cz.z == 0.0 );
    ck_assert( data.center.x == pose.p.x && data.center.y == pose.p.y && data.center.z == pose.p.z );
}
END_TEST

// a quaternion that is not of unit length is normalized, not applied as a scaling
START_TEST( pose_quaternion_is_normalized )
{
    cnGeometry box = { .type = cn_boxShape, .box = { { 0.3, 0.5, 0.7 } } };
    cnTransform pose = cntPose();
    cnTransform scaled = pose;
    scaled.q.x *= 3.0;
    scaled.q.y *= 3.0;
    scaled.q.z *= 3.0;
    scaled.q.w *= 3.0;
    cnMassData a, b;
    ck_assert_int_eq( cnComputeMass( &box, 10.0, pose, &a ), cn_statusOk );
    ck_assert_int_eq( cnComputeMass( &box, 10.0, scaled, &b ), cn_statusOk );
    CNT_ASSERT_REL( b.inertia.cx.y, a.inertia.cx.y, 1e-13 );
    CNT_ASSERT_REL( b.inertia.cz.z, a.inertia.cz.z, 1e-13 );
}
END_TEST

// failures: the status, and a zeroed output
START_TEST( mass_refuses_bad_input )
{
    cnGeometry sphere = { .type = cn_sphereShape, .sphere = { 0.5 } };
    cnMassData data;

    // the geometry's own status comes first
    cnGeometry negative = { .type = cn_sphereShape, .sphere = { -1.0 } };
    cnGeometry notANumber = { .type = cn_sphereShape, .sphere = { NAN } };
    ck_assert_int_eq( cnComputeMass( &negative, NAN, cn_transformIdentity, &data ),
                      cn_statusInvalidArgument );
    ck_assert_int_eq( cnComputeMass( &notANumber, 1.0, cn_transformIdentity, &data ), cn_statusNonFinite );

    // density
    data.mass = 5.0;
    ck_assert_int_eq( cnComputeMass( &sphere, NAN, cn_transformIdentity, &data ), cn_statusNonFinite );
    ck_assert( data.mass == 0.0 );
    ck_assert_int_eq( cnComputeMass( &sphere, INFINITY, cn_transformIdentity, &data ), cn_statusNonFinite );
    ck_assert_int_eq( cnComputeMass( &sphere, -1.0, cn_transformIdentity, &data ), cn_statusInvalidArgument );

    // pose
    cnTransform pose = cn_transformIdentity;
    pose.p.y = NAN;
    ck_assert_int_eq( cnComputeMass( &sphere, 1.0, pose, &data ), cn_statusNonFinite );
    pose = cn_transformIdentity;
    pose.q.w = 0.0;
    ck_assert_int_eq( cnComputeMass( &sphere, 1.0, pose, &data ), cn_statusInvalidArgument );

    // a plane has no finite mass
    cnGeometry plane = { .type = cn_planeShape, .plane = { { 0.0, 0.0, 1.0 }, 0.0 } };
    ck_assert_int_eq( cnComputeMass( &plane, 1.0, cn_transformIdentity, &data ), cn_statusUnsupported );

    // a hull without volume
    cnVec3 flat[4] = { { 0, 0, 0 }, { 1, 0, 0 }, { 0, 1, 0 }, { 1, 1, 0 } };
    cnGeometry hull = { .type = cn_hullShape, .hull = { flat, 4 } };
    ck_assert_int_eq( cnComputeMass( &hull, 1.0, cn_transformIdentity, &data ), cn_statusInvalidArgument );

    // sizes whose mass overflows
    cnGeometry huge = { .type = cn_sphereShape, .sphere = { 1e200 } };
    ck_assert_int_eq( cnComputeMass( &huge, 1.0, cn_transformIdentity, &data ), cn_statusNonFinite );
    ck_assert( data.mass == 0.0 );

    // null pointers
    ck_assert_int_eq( cnComputeMass( NULL, 1.0, cn_transformIdentity, &data ), cn_statusInvalidArgument );
    ck_assert_int_eq( cnComputeMass( &sphere, 1.0, cn_transformIdentity, NULL ), cn_statusInvalidArgument );
}
END_TEST

// two spheres: the compound by hand with the parallel-axis theorem
START_TEST( two_spheres_combine_by_parallel_axis )
{
    double r1 = 0.5, r2 = 0.25, rho = 800.0;
    cnGeometry s1 = { .type = cn_sphereShape, .sphere = { r1 } };
    cnGeometry s2 = { .type = cn_sphereShape, .sphere = { r2 } };
    cnTransform p1 = cn_transformIdentity;
    cnTransform p2 = cn_transformIdentity;
    p1.p = cnMakeVec3( 1.0, 2.0, 3.0 );
    p2.p = cnMakeVec3( 1.0 + 0.6, 2.0 - 0.3, 3.0 + 0.9 );
    cnMassData parts[2];
    ck_assert_int_eq( cnComputeMass( &s1, rho, p1, &parts[0] ), cn_statusOk );
    ck_assert_int_eq( cnComputeMass( &s2, rho, p2, &parts[1] ), cn_statusOk );
    cnMassData total = cnCombineMass( parts, 2 );

    // by hand: masses, centre, then each sphere's 2/5 m r^2 plus m (|d|^2 delta_ij - d_i d_j)
    double m1 = rho * 4.0 / 3.0 * CNT_PI * r1 * r1 * r1;
    double m2 = rho * 4.0 / 3.0 * CNT_PI * r2 * r2 * r2;
    double m = m1 + m2;
    double c[3] = { ( m1 * 1.0 + m2 * 1.6 ) / m, ( m1 * 2.0 + m2 * 1.7 ) / m, ( m1 * 3.0 + m2 * 3.9 ) / m };
    double d1[3] = { 1.0 - c[0], 2.0 - c[1], 3.0 - c[2] };
    double d2[3] = { 1.6 - c[0], 1.7 - c[1], 3.9 - c[2] };
    double expected[3][3];
    for ( int i = 0; i < 3; ++i )
    {
        for ( int j = 0; j < 3; ++j )
        {
            double delta = i == j ? 1.0 : 0.0;
            double dd1 = d1[0] * d1[0] + d1[1] * d1[1] + d1[2] * d1[2];
            double dd2 = d2[0] * d2[0] + d2[1] * d2[1] + d2[2] * d2[2];
            expected[i][j] = delta * ( 0.4 * m1 * r1 * r1 + 0.4 * m2 * r2 * r2 ) +
                             m1 * ( dd1 * delta - d1[i] * d1[j] ) + m2 * ( dd2 * delta - d2[i] * d2[j] );
        }
    }

    CNT_ASSERT_REL( total.mass, m, 1e-14 );
    double centerError = cntVectorError( total.center, cnMakeVec3( c[0], c[1], c[2] ) );
    double inertiaError = cntTensorError( total.inertia, expected );
    cntReport( "two spheres centre", centerError );
    cntReport( "two spheres inertia", inertiaError );
    ck_assert_msg( centerError <= 1e-14, "centre error %g", centerError );
    ck_assert_msg( inertiaError <= 1e-12, "inertia error %g", inertiaError );
}
END_TEST

// the two halves of a box, each at its own pose, add up to the whole box
START_TEST( two_half_boxes_make_the_box )
{
    double a = 0.4, b = 0.3, c = 0.2, rho = 2.5;
    cnTransform pose = cntPose();
    cnGeometry half = { .type = cn_boxShape, .box = { { 0.5 * a, b, c } } };
    cnGeometry whole = { .type = cn_boxShape, .box = { { a, b, c } } };
    cnMassData parts[2], box;
    cnTransform left = pose, right = pose;
    left.p = cnTransformPoint( pose, cnMakeVec3( -0.5 * a, 0.0, 0.0 ) );
    right.p = cnTransformPoint( pose, cnMakeVec3( 0.5 * a, 0.0, 0.0 ) );
    ck_assert_int_eq( cnComputeMass( &half, rho, left, &parts[0] ), cn_statusOk );
    ck_assert_int_eq( cnComputeMass( &half, rho, right, &parts[1] ), cn_statusOk );
    ck_assert_int_eq( cnComputeMass( &whole, rho, pose, &box ), cn_statusOk );
    cnMassData total = cnCombineMass( parts, 2 );

    double expected[3][3];
    for ( int i = 0; i < 3; ++i )
    {
        for ( int j = 0; j < 3; ++j )
        {
            expected[i][j] = cntAt( box.inertia, i, j );
        }
    }
    CNT_ASSERT_REL( total.mass, box.mass, 1e-14 );
    ck_assert( cntVectorError( total.center, box.center ) <= 1e-14 );
    double error = cntTensorError( total.inertia, expected );
    cntReport( "two half boxes inertia", error );
    ck_assert_msg( error <= 1e-13, "inertia error %g", error );
}
END_TEST

// no mass: the plain mean of the centres, no inertia; no parts: all zero; one part: itself
START_TEST( combine_edge_cases )
{
    cnMassData parts[3];
    memset( parts, 0, sizeof( parts ) );
    parts[0].center = cnMakeVec3( 1.0, 0.0, 0.0 );
    parts[1].center = cnMakeVec3( 0.0, 3.0, 0.0 );
    parts[2].center = cnMakeVec3( 2.0, 0.0, 6.0 );
    parts[1].inertia = cnMakeMat3Diagonal( 1.0, 1.0, 1.0 );
    cnMassData none = cnCombineMass( parts, 3 );
    ck_assert( none.mass == 0.0 );
    CNT_ASSERT_ABS( none.center.x, 1.0, 1e-15 );
    CNT_ASSERT_ABS( none.center.y, 1.0, 1e-15 );
    CNT_ASSERT_ABS( none.center.z, 2.0, 1e-15 );
    ck_assert( none.inertia.cx.x == 0.0 && none.inertia.cy.y == 0.0 );

    cnMassData empty = cnCombineMass( parts, 0 );
    ck_assert( empty.mass == 0.0 && empty.center.x == 0.0 && empty.center.y == 0.0 && empty.center.z == 0.0 );
    empty = cnCombineMass( NULL, 2 );
    ck_assert( empty.mass == 0.0 );

    cnGeometry box = { .type = cn_boxShape, .box = { { 0.3, 0.5, 0.7 } } };
    cnMassData one;
    ck_assert_int_eq( cnComputeMass( &box, 3.0, cntPose(), &one ), cn_statusOk );
    cnMassData same = cnCombineMass( &one, 1 );
    CNT_ASSERT_REL( same.mass, one.mass, 1e-15 );
    CNT_ASSERT_REL( same.center.z, one.center.z, 1e-15 );
    CNT_ASSERT_REL( same.inertia.cx.y, one.inertia.cx.y, 1e-15 );
}
END_TEST

// a validation failure: status and the exact message
static void cntExpectInvalid( const cnGeometry* geometry, cnStatus status, const char* message )
{
    char text[160];
    memset( text, 'x', sizeof( text ) );
    cnStatus got = cnValidateGeometry( geometry, text, (int)sizeof( text ) );
    ck_assert_msg( got == status, "%s: got %s", message, cnStatusName( got ) );
    ck_assert_str_eq( text, message );
    ck_assert( isnan( cnComputeVolume( geometry ) ) );
}

START_TEST( validation_messages_name_the_field )
{
    cnGeometry g;
    memset( &g, 0, sizeof( g ) );

    g.type = cn_sphereShape;
    g.sphere.radius = -1.0;
    cntExpectInvalid( &g, cn_statusInvalidArgument, "radius: expected a positive number, got -1" );
    g.sphere.radius = NAN;
    cntExpectInvalid( &g, cn_statusNonFinite, "radius: expected a positive number, got NaN" );
    g.sphere.radius = INFINITY;
    cntExpectInvalid( &g, cn_statusNonFinite, "radius: expected a positive number, got Infinity" );

    g.type = cn_boxShape;
    g.box.halfExtents = cnMakeVec3( 1.0, 0.0, 1.0 );
    cntExpectInvalid( &g, cn_statusInvalidArgument,
                      "half_extents: expected three positive numbers, got [1, 0, 1]" );
    g.box.halfExtents = cnMakeVec3( 0.5, -INFINITY, 1.0 );
    cntExpectInvalid( &g, cn_statusNonFinite,
                      "half_extents: expected three positive numbers, got [0.5, -Infinity, 1]" );

    g.type = cn_capsuleShape;
    g.capsule.radius = 0.0;
    g.capsule.halfLength = 1.0;
    cntExpectInvalid( &g, cn_statusInvalidArgument, "radius: expected a positive number, got 0" );
    g.capsule.radius = 0.5;
    g.capsule.halfLength = -0.25;
    cntExpectInvalid( &g, cn_statusInvalidArgument,
                      "half_length: expected a non-negative number, got -0.25" );

    g.type = cn_cylinderShape;
    g.cylinder.radius = 0.5;
    g.cylinder.halfLength = 0.0;
    cntExpectInvalid( &g, cn_statusInvalidArgument, "half_length: expected a positive number, got 0" );

    g.type = cn_ellipsoidShape;
    g.ellipsoid.radii = cnMakeVec3( 1.0, 2.0, -3.0 );
    cntExpectInvalid( &g, cn_statusInvalidArgument,
                      "radii: expected three positive numbers, got [1, 2, -3]" );

    g.type = cn_torusShape;
    g.torus.majorRadius = 1.0;
    g.torus.minorRadius = 2.0;
    cntExpectInvalid( &g, cn_statusInvalidArgument,
                      "minor_radius: must be smaller than major_radius (a ring torus), got 2 >= 1" );
    g.torus.minorRadius = 1.0;
    cntExpectInvalid( &g, cn_statusInvalidArgument,
                      "minor_radius: must be smaller than major_radius (a ring torus), got 1 >= 1" );
    g.torus.majorRadius = 0.0;
    cntExpectInvalid( &g, cn_statusInvalidArgument, "major_radius: expected a positive number, got 0" );
    g.torus.majorRadius = 1.0;
    g.torus.minorRadius = NAN;
    cntExpectInvalid( &g, cn_statusNonFinite, "minor_radius: expected a positive number, got NaN" );

    cnVec3 points[5] = { { 0, 0, 0 }, { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 }, { 0.1, NAN, 0.1 } };
    g.type = cn_hullShape;
    g.hull.points = points;
    g.hull.pointCount = 3;
    cntExpectInvalid( &g, cn_statusInvalidArgument, "points: need at least 4 points, got 3" );
    g.hull.pointCount = 5;
    cntExpectInvalid( &g, cn_statusNonFinite, "points[4]: not a finite number" );
    points[3].z = 0.0;
    points[4].y = 0.3;
    points[4].z = 0.0;
    cntExpectInvalid( &g, cn_statusInvalidArgument, "points: all points lie in one plane (zero volume)" );
    g.hull.points = NULL;
    cntExpectInvalid( &g, cn_statusInvalidArgument, "points: expected an array of 5 points, got NULL" );

    g.type = cn_planeShape;
    g.plane.normal = cnMakeVec3( 0.0, 0.0, 0.0 );
    g.plane.offset = 0.0;
    cntExpectInvalid( &g, cn_statusInvalidArgument, "normal: must not be the zero vector" );
    g.plane.normal = cnMakeVec3( 0.0, NAN, 1.0 );
    cntExpectInvalid( &g, cn_statusNonFinite, "normal: expected three finite numbers, got [0, NaN, 1]" );
    g.plane.normal = cnMakeVec3( 0.0, 0.0, 1.0 );
    g.plane.offset = -INFINITY;
    cntExpectInvalid( &g, cn_statusNonFinite, "offset: expected a finite number, got -Infinity" );
    g.plane.normal = cnMakeVec3( 1e200, 0.0, 0.0 );
    g.plane.offset = 0.0;
    cntExpectInvalid( &g, cn_statusInvalidArgument, "normal: too long to normalize, got [1e+200, 0, 0]" );

    g.type = (cnShapeType)99;
    cntExpectInvalid( &g, cn_statusInvalidArgument, "type: unknown shape type 99" );
    g.type = (cnShapeType)-1;
    cntExpectInvalid( &g, cn_statusInvalidArgument, "type: unknown shape type -1" );

    cntExpectInvalid( NULL, cn_statusInvalidArgument, "geometry: expected a geometry, got NULL" );
}
END_TEST

// valid geometry: ok and an empty message; a NULL or short buffer is fine
START_TEST( validation_accepts_good_geometry )
{
    cnGeometry g = { .type = cn_capsuleShape, .capsule = { 0.5, 0.0 } };
    char text[64] = "stale";
    ck_assert_int_eq( cnValidateGeometry( &g, text, (int)sizeof( text ) ), cn_statusOk );
    ck_assert_str_eq( text, "" );

    cnGeometry plane = { .type = cn_planeShape, .plane = { { 0.0, 3.0, 4.0 }, -2.0 } };
    ck_assert_int_eq( cnValidateGeometry( &plane, NULL, 0 ), cn_statusOk );
    ck_assert( isinf( cnComputeVolume( &plane ) ) && cnComputeVolume( &plane ) > 0.0 );

    // a short buffer is cut and terminated, never overrun
    cnGeometry bad = { .type = cn_sphereShape, .sphere = { -1.0 } };
    char shortText[12];
    memset( shortText, 'x', sizeof( shortText ) );
    ck_assert_int_eq( cnValidateGeometry( &bad, shortText, 8 ), cn_statusInvalidArgument );
    ck_assert_str_eq( shortText, "radius:" );
    ck_assert( shortText[8] == 'x' );
    ck_assert_int_eq( cnValidateGeometry( &bad, NULL, 100 ), cn_statusInvalidArgument );

    ck_assert( isnan( cnComputeVolume( NULL ) ) );
}
END_TEST

Suite* cntMassSuite( void )
{
    Suite* suite = suite_create( "mass" );

    TCase* closed = tcase_create( "closed_forms" );
    tcase_add_loop_test( closed, mass_matches_closed_form_at_a_pose, 0, cnt_caseCount );
    tcase_add_loop_test( closed, mass_matches_closed_form_in_shape_frame, 0, cnt_caseCount );
    tcase_add_loop_test( closed, volume_matches_closed_form, 0, cnt_caseCount );
    tcase_add_test( closed, hull_of_rotated_box_has_rotated_inertia );
    tcase_add_test( closed, capsule_of_zero_length_is_a_sphere );
    tcase_add_test( closed, long_capsule_tends_to_its_cylinder );
    tcase_add_test( closed, zero_density_gives_zero_mass );
    tcase_add_test( closed, pose_quaternion_is_normalized );
    tcase_add_test( closed, mass_refuses_bad_input );
    suite_add_tcase( suite, closed );

    TCase* combine = tcase_create( "combine" );
    tcase_add_test( combine, two_spheres_combine_by_parallel_axis );
    tcase_add_test( combine, two_half_boxes_make_the_box );
    tcase_add_test( combine, combine_edge_cases );
    suite_add_tcase( suite, combine );

    TCase* validation = tcase_create( "validation" );
    tcase_add_test( validation, validation_messages_name_the_field );
    tcase_add_test( validation, validation_accepts_good_geometry );
    suite_add_tcase( suite, validation );
    return suite;
}
