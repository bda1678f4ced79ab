// SPDX-License-Identifier: MIT
// Constant per-body force and torque (cnBody_SetConstantForce, cnBodyDef.constantForce): they act
// on every step until changed, beside gravity and the forces applied for one step, checked
// against closed forms in overdamped worlds (velocity = mobility x force) and inertial ones (the
// semi-implicit Euler sum).
#define _GNU_SOURCE // feenableexcept: a NaN fails the test where it is produced
#include "sim_suites.h"
#include "test_support.h"

#include <fenv.h>
#include <math.h>
#include <string.h>

static void cntTrapFloatingPoint( void )
{
    feenableexcept( FE_INVALID | FE_DIVBYZERO | FE_OVERFLOW );
}

static void cntUntrap( void )
{
    fedisableexcept( FE_INVALID | FE_DIVBYZERO | FE_OVERFLOW );
}

static cnWorldId cntWorld( cnDynamicsMode mode, double viscosity, cnVec3 gravity, int substeps )
{
    cnWorldDef def = cnDefaultWorldDef();
    def.dynamics = mode;
    def.viscosity = viscosity;
    def.gravity = gravity;
    def.substeps = substeps;
    return cnCreateWorld( &def );
}

static cnBodyId cntSphereBody( cnWorldId world, cnVec3 position, double radius, double density )
{
    cnBodyDef bodyDef = cnDefaultBodyDef();
    bodyDef.position = position;
    cnBodyId body = cnCreateBody( world, &bodyDef );
    cnShapeDef shapeDef = cnDefaultShapeDef();
    shapeDef.material.density = density;
    cnSphere sphere = { radius };
    cnCreateSphereShape( body, &shapeDef, &sphere );
    return body;
}

// the rotation angle of a unit quaternion, in [0, pi]
static double cntAngle( cnQuat q )
{
    double s = sqrt( q.x * q.x + q.y * q.y + q.z * q.z );
    return 2.0 * atan2( s, fabs( q.w ) );
}

// An overdamped sphere (Stokes: M_lin = 1 / (6 pi eta r), M_ang = 1 / (8 pi eta r^3), both
// isotropic, so turning does not change them) with a constant force and torque: v = M_lin F and
// omega = M_ang tau at every step, the centre at x0 + n dt M_lin F after n steps and the rotation
// by n dt |omega| about tau's axis.
START_TEST( overdamped_moves_at_mobility_times_constant_force )
{
    cntTrapFloatingPoint();
    double eta = 0.8, r = 0.5, dt = 0.01;
    int n = 100;
    cnWorldId world = cntWorld( cn_dynamicsOverdamped, eta, cn_vec3Zero, 0 );
    cnVec3 x0 = cnMakeVec3( 1.0, -2.0, 3.0 );
    cnBodyId ball = cntSphereBody( world, x0, r, 1000.0 );
    cnVec3 force = cnMakeVec3( 0.3, -1.0, 0.25 );
    cnVec3 torque = cnMakeVec3( 0.0, 0.02, 0.05 );
    ck_assert_int_eq( cnBody_SetConstantForce( ball, force ), cn_statusOk );
    ck_assert_int_eq( cnBody_SetConstantTorque( ball, torque ), cn_statusOk );

    double mLin = 1.0 / ( 6.0 * M_PI * eta * r );
    double mAng = 1.0 / ( 8.0 * M_PI * eta * r * r * r );
    cnVec3 v = cnScale( mLin, force );
    cnVec3 w = cnScale( mAng, torque );
    double worstV = 0.0, worstW = 0.0;
    for ( int i = 0; i < n; ++i )
    {
        ck_assert_int_eq( cnWorld_Step( world, dt ), cn_statusOk );
        worstV = fmax( worstV, cnLength( cnSub( cnBody_GetLinearVelocity( ball ), v ) ) / cnLength( v ) );
        worstW = fmax( worstW, cnLength( cnSub( cnBody_GetAngularVelocity( ball ), w ) ) / cnLength( w ) );
    }
    ck_assert_msg( worstV <= 1e-14 && worstW <= 1e-14, "velocity off M F by %.3g, spin off M tau by %.3g",
                   worstV, worstW );
    cnVec3 expected = cnMulAdd( x0, n * dt, v );
    cnVec3 center = cnBody_GetWorldCenter( ball );
    double error = cnLength( cnSub( center, expected ) ) / cnLength( cnSub( expected, x0 ) );
    ck_assert_msg( error <= 1e-12, "centre off x0 + n dt M F by %.3g of the distance moved", error );
    // the turn: n dt |omega| about the axis of tau
    cnQuat q = cnBody_GetOrientation( ball );
    CNT_ASSERT_REL( cntAngle( q ), n * dt * cnLength( w ), 1e-12 );
    cnVec3 axis = cnNormalize( cnMakeVec3( q.x, q.y, q.z ) );
    ck_assert( cnLength( cnSub( axis, cnNormalize( torque ) ) ) <= 1e-12 );
    // kept, not consumed by the step
    ck_assert( cnBody_GetConstantForce( ball ).y == force.y );
    ck_assert( cnBody_GetConstantTorque( ball ).z == torque.z );

    // zero removes them: the overdamped body stops
    ck_assert_int_eq( cnBody_SetConstantForce( ball, cn_vec3Zero ), cn_statusOk );
    ck_assert_int_eq( cnBody_SetConstantTorque( ball, cn_vec3Zero ), cn_statusOk );
    ck_assert_int_eq( cnWorld_Step( world, dt ), cn_statusOk );
    ck_assert( cnLength( cnBody_GetLinearVelocity( ball ) ) == 0.0 );
    ck_assert( cnLength( cnBody_GetAngularVelocity( ball ) ) == 0.0 );
    cnDestroyWorld( world );
    cntUntrap();
}
END_TEST

// The constant force adds to gravity and to the forces applied for one step; a rotated rod with
// anisotropic (slender-body) mobility moves at R M R^T (F_const + m g + F_applied). The ReLCP
// paper's section 7.1 setup: two bodies pushed toward each other by constant unit forces.
START_TEST( overdamped_constant_force_adds_to_gravity_and_applied_forces )
{
    cntTrapFloatingPoint();
    cnVec3 g = cnMakeVec3( 0.0, 0.0, -0.5 );
    cnWorldId world = cntWorld( cn_dynamicsOverdamped, 1.0, g, 0 );
    cnBodyDef bodyDef = cnDefaultBodyDef();
    bodyDef.position = cnMakeVec3( 0.0, 5.0, 0.0 );
    // the capsule's axis (local z) turned off the world axes: anisotropic in the world frame
    bodyDef.orientation = cnQuatFromAxisAngle( cnNormalize( cnMakeVec3( 1.0, 1.0, 0.0 ) ), 0.25 * M_PI );
    bodyDef.constantForce = cnMakeVec3( 0.0, -1.0, 0.0 );
    cnBodyId upper = cnCreateBody( world, &bodyDef );
    bodyDef.position = cnMakeVec3( 1.0, -5.0, 0.0 );
    bodyDef.constantForce = cnMakeVec3( 0.0, 1.0, 0.0 );
    cnBodyId lower = cnCreateBody( world, &bodyDef );
    cnShapeDef shapeDef = cnDefaultShapeDef();
    cnCapsule capsule = { 0.5, 1.5 };
    cnCreateCapsuleShape( upper, &shapeDef, &capsule );
    cnCreateCapsuleShape( lower, &shapeDef, &capsule );
    CNT_ASSERT_ABS( cnBody_GetConstantForce( upper ).y, -1.0, 0.0 );

    cnVec3 pushed = cnMakeVec3( 0.2, 0.0, 0.1 );
    cnBodyId bodies[2] = { upper, lower };
    double worst = 0.0;
    for ( int i = 0; i < 20; ++i )
    {
        cnBody_ApplyForceToCenter( lower, pushed );
        ck_assert_int_eq( cnWorld_Step( world, 0.05 ), cn_statusOk );
        for ( int k = 0; k < 2; ++k )
        {
            cnMat3 linear;
            cnBody_GetMobility( bodies[k], &linear, NULL );
            cnVec3 force =
                cnMulAdd( cnBody_GetConstantForce( bodies[k] ), cnBody_GetMassData( bodies[k] ).mass, g );
            force = k == 1 ? cnAdd( force, pushed ) : force;
            cnVec3 expected = cnMulMV( cnRotateTensor( cnBody_GetOrientation( bodies[k] ), linear ), force );
            double error =
                cnLength( cnSub( cnBody_GetLinearVelocity( bodies[k] ), expected ) ) / cnLength( expected );
            worst = fmax( worst, error );
        }
    }
    ck_assert_msg( worst <= 1e-14, "velocity off R M R^T (F + m g + F_applied) by %.3g", worst );
    // the two approach each other along y
    ck_assert( cnBody_GetLinearVelocity( upper ).y < 0.0 && cnBody_GetLinearVelocity( lower ).y > 0.0 );
    cnDestroyWorld( world );
    cntUntrap();
}
END_TEST

// Inertial, no gravity, one substep: semi-implicit Euler v_n = n dt F / m and
// x_n = x0 + F dt^2 n (n + 1) / (2 m), against x = F t^2 / (2 m) of the exact motion. A constant
// torque on a sphere (isotropic inertia, no gyroscopic term) gives omega_n = n dt tau / I.
START_TEST( inertial_constant_force_matches_semi_implicit_euler )
{
    cntTrapFloatingPoint();
    cnWorldId world = cntWorld( cn_dynamicsInertial, 1.0, cn_vec3Zero, 1 );
    cnVec3 x0 = cnMakeVec3( -1.0, 2.0, 0.5 );
    cnBodyId ball = cntSphereBody( world, x0, 0.5, 800.0 );
    double m = cnBody_GetMassData( ball ).mass;
    double inertia = 0.4 * m * 0.25;
    cnVec3 force = cnMakeVec3( 30.0, -12.0, 45.0 );
    cnVec3 torque = cnMakeVec3( 0.0, 0.0, 2.0 );
    ck_assert_int_eq( cnBody_SetConstantForce( ball, force ), cn_statusOk );
    ck_assert_int_eq( cnBody_SetConstantTorque( ball, torque ), cn_statusOk );

    double dt = 1.0 / 60.0;
    int n = 100;
    for ( int i = 0; i < n; ++i )
    {
        ck_assert_int_eq( cnWorld_Step( world, dt ), cn_statusOk );
    }
    ck_assert_int_eq( cnWorld_GetStepReport( world ).substeps, 1 );
    double sum = dt * dt * n * ( n + 1 ) / ( 2.0 * m );
    cnVec3 expected = cnMulAdd( x0, sum, force );
    cnVec3 center = cnBody_GetWorldCenter( ball );
    double error = cnLength( cnSub( center, expected ) ) / cnLength( cnSub( expected, x0 ) );
    ck_assert_msg( error <= 1e-12, "x_n off x0 + F dt^2 n (n+1) / (2m) by %.3g of the distance moved",
                   error );
    cnVec3 v = cnBody_GetLinearVelocity( ball );
    CNT_ASSERT_REL( v.x, n * dt * force.x / m, 1e-12 );
    CNT_ASSERT_REL( v.z, n * dt * force.z / m, 1e-12 );
    CNT_ASSERT_REL( cnBody_GetAngularVelocity( ball ).z, n * dt * torque.z / inertia, 1e-12 );
    // the discrete sum differs from F t^2 / (2m) by F t dt / (2m): the integrator's first order
    double t = n * dt;
    CNT_ASSERT_REL( center.z - x0.z - force.z * t * t / ( 2.0 * m ), force.z * t * dt / ( 2.0 * m ), 1e-9 );
    cnDestroyWorld( world );
    cntUntrap();
}
END_TEST

// with the default two substeps, the constant force acts in each: N = 2n steps of h = dt / 2
START_TEST( inertial_constant_force_in_every_substep )
{
    cnWorldId world = cntWorld( cn_dynamicsInertial, 1.0, cn_vec3Zero, 0 );
    cnBodyDef bodyDef = cnDefaultBodyDef();
    bodyDef.constantForce = cnMakeVec3( 0.0, 0.0, 10.0 );
    cnBodyId body = cnCreateBody( world, &bodyDef );
    cnShapeDef shapeDef = cnDefaultShapeDef();
    cnBox box = { { 0.5, 0.25, 0.1 } };
    cnCreateBoxShape( body, &shapeDef, &box );
    double m = cnBody_GetMassData( body ).mass;
    double dt = 0.01;
    for ( int i = 0; i < 50; ++i )
    {
        ck_assert_int_eq( cnWorld_Step( world, dt ), cn_statusOk );
    }
    ck_assert_int_eq( cnWorld_GetStepReport( world ).substeps, 2 );
    double h = dt / 2.0;
    int steps = 100;
    CNT_ASSERT_REL( cnBody_GetPosition( body ).z, 10.0 * h * h * steps * ( steps + 1 ) / ( 2.0 * m ), 1e-12 );
    CNT_ASSERT_REL( cnBody_GetLinearVelocity( body ).z, 10.0 * h * steps / m, 1e-12 );
    cnDestroyWorld( world );
}
END_TEST

// Static and kinematic bodies ignore constant forces as they ignore cnBody_ApplyForce: the setter
// succeeds and the value stays zero, from the def as from the setter.
START_TEST( static_and_kinematic_bodies_ignore_constant_forces )
{
    cnWorldId world = cntWorld( cn_dynamicsInertial, 1.0, cn_vec3Zero, 0 );
    cnBodyDef bodyDef = cnDefaultBodyDef();
    bodyDef.constantForce = cnMakeVec3( 1.0, 2.0, 3.0 );
    bodyDef.constantTorque = cnMakeVec3( 0.0, 0.0, 1.0 );
    bodyDef.type = cn_kinematicBody;
    bodyDef.linearVelocity = cnMakeVec3( 0.5, 0.0, 0.0 );
    cnBodyId platform = cnCreateBody( world, &bodyDef );
    bodyDef.type = cn_staticBody;
    cnBodyId wall = cnCreateBody( world, &bodyDef );
    cnBodyId bodies[2] = { platform, wall };
    for ( int k = 0; k < 2; ++k )
    {
        ck_assert( cnLength( cnBody_GetConstantForce( bodies[k] ) ) == 0.0 );
        ck_assert( cnLength( cnBody_GetConstantTorque( bodies[k] ) ) == 0.0 );
        ck_assert_int_eq( cnBody_SetConstantForce( bodies[k], cnMakeVec3( 5.0, 0.0, 0.0 ) ), cn_statusOk );
        ck_assert_int_eq( cnBody_SetConstantTorque( bodies[k], cnMakeVec3( 5.0, 0.0, 0.0 ) ), cn_statusOk );
        ck_assert( cnLength( cnBody_GetConstantForce( bodies[k] ) ) == 0.0 );
        ck_assert( cnLength( cnBody_GetConstantTorque( bodies[k] ) ) == 0.0 );
    }
    for ( int i = 0; i < 10; ++i )
    {
        ck_assert_int_eq( cnWorld_Step( world, 0.1 ), cn_statusOk );
    }
    CNT_ASSERT_ABS( cnBody_GetLinearVelocity( platform ).x, 0.5, 0.0 );
    CNT_ASSERT_REL( cnBody_GetPosition( platform ).x, 0.5, 1e-14 );
    ck_assert( cnLength( cnBody_GetLinearVelocity( wall ) ) == 0.0 );
    ck_assert( cnLength( cnBody_GetPosition( wall ) ) == 0.0 );
    cnDestroyWorld( world );
}
END_TEST

Suite* cntConstantForceSuite( void )
{
    Suite* suite = suite_create( "constant_force" );
    TCase* tc = tcase_create( "closed_form" );
    tcase_add_test( tc, overdamped_moves_at_mobility_times_constant_force );
    tcase_add_test( tc, overdamped_constant_force_adds_to_gravity_and_applied_forces );
    tcase_add_test( tc, inertial_constant_force_matches_semi_implicit_euler );
    tcase_add_test( tc, inertial_constant_force_in_every_substep );
    tcase_add_test( tc, static_and_kinematic_bodies_ignore_constant_forces );
    suite_add_tcase( suite, tc );
    return suite;
}
