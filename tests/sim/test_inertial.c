// SPDX-License-Identifier: MIT
// Closed-form checks of the inertial integrator.
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

// after n steps of semi-implicit Euler: v_n = v0 + n dt g, z_n = z0 + n dt v0 + g dt^2 n (n+1) / 2
START_TEST( free_fall_matches_semi_implicit_euler_sum )
{
    cnWorldDef def = cnDefaultWorldDef();
    def.gravity = cnMakeVec3( 0.0, 0.0, -9.81 );
    cnWorldId world = cnCreateWorld( &def );
    cnBodyDef bodyDef = cnDefaultBodyDef();
    bodyDef.position = cnMakeVec3( 1.0, -2.0, 10.0 );
    bodyDef.linearVelocity = cnMakeVec3( 0.5, 0.0, 3.0 );
    cnBodyId body = cnCreateBody( world, &bodyDef );
    cnShapeDef shapeDef = cnDefaultShapeDef();
    cnSphere sphere = { 0.5 };
    cnCreateSphereShape( body, &shapeDef, &sphere );

    double dt = 1.0 / 60.0;
    int n = 60;
    for ( int i = 0; i < n; ++i )
    {
        ck_assert_int_eq( cnWorld_Step( world, dt ), cn_statusOk );
    }

    // the default world takes 2 substeps per step (inertial): N Euler steps of h = dt / substeps
    int substeps = cnWorld_GetStepReport( world ).substeps;
    ck_assert_int_eq( substeps, 2 );
    double g = -9.81;
    double h = dt / substeps;
    int steps = n * substeps;
    double z = 10.0 + steps * h * 3.0 + g * h * h * steps * ( steps + 1 ) / 2.0;
    double vz = 3.0 + steps * h * g;
    cnVec3 p = cnBody_GetPosition( body );
    cnVec3 v = cnBody_GetLinearVelocity( body );
    CNT_ASSERT_REL( p.z, z, 1e-12 );
    CNT_ASSERT_REL( v.z, vz, 1e-12 );
    CNT_ASSERT_REL( p.x, 1.0 + n * dt * 0.5, 1e-12 );
    ck_assert( p.y == -2.0 );
    CNT_ASSERT_REL( cnWorld_GetStepReport( world ).time, 1.0, 1e-12 );
    cnDestroyWorld( world );
}
END_TEST

// with substeps, a step of dt is that many semi-implicit Euler steps of dt / substeps
START_TEST( free_fall_with_substeps )
{
    cnWorldDef def = cnDefaultWorldDef();
    def.substeps = 3;
    cnWorldId world = cnCreateWorld( &def );
    cnBodyDef bodyDef = cnDefaultBodyDef();
    bodyDef.position = cnMakeVec3( 0.0, 0.0, 10.0 );
    cnBodyId body = cnCreateBody( world, &bodyDef );
    double dt = 1.0 / 60.0;
    for ( int i = 0; i < 60; ++i )
    {
        ck_assert_int_eq( cnWorld_Step( world, dt ), cn_statusOk );
    }
    double h = dt / 3.0;
    int n = 180;
    CNT_ASSERT_REL( cnBody_GetPosition( body ).z, 10.0 - 9.81 * h * h * n * ( n + 1 ) / 2.0, 1e-12 );
    CNT_ASSERT_REL( cnBody_GetLinearVelocity( body ).z, -9.81 * h * n, 1e-12 );
    cnDestroyWorld( world );
}
END_TEST

// linear damping is implicit: v_n = v0 / (1 + c dt)^n with no gravity
START_TEST( linear_damping_closed_form )
{
    cnWorldDef def = cnDefaultWorldDef();
    def.gravity = cn_vec3Zero;
    cnWorldId world = cnCreateWorld( &def );
    cnBodyDef bodyDef = cnDefaultBodyDef();
    bodyDef.linearVelocity = cnMakeVec3( 2.0, 0.0, 0.0 );
    bodyDef.linearDamping = 0.5;
    cnBodyId body = cnCreateBody( world, &bodyDef );
    double dt = 0.01;
    for ( int i = 0; i < 100; ++i )
    {
        cnWorld_Step( world, dt );
    }
    int substeps = cnWorld_GetStepReport( world ).substeps;
    double h = dt / substeps;
    CNT_ASSERT_REL( cnBody_GetLinearVelocity( body ).x, 2.0 / pow( 1.0 + 0.5 * h, 100 * substeps ), 1e-12 );
    cnDestroyWorld( world );
}
END_TEST

typedef struct cntSpin
{
    double maxMomentumError;
    double maxEnergyError;
    int flips;
    bool blewUp;
} cntSpin;

// a torque-free 1 x 2 x 3 box spun about its intermediate axis, with a small perturbation
static cntSpin cntSpinBox( double omega, double perturbation, double dt, double duration )
{
    cnWorldDef def = cnDefaultWorldDef();
    def.gravity = cn_vec3Zero;
    cnWorldId world = cnCreateWorld( &def );
    cnBodyDef bodyDef = cnDefaultBodyDef();
    bodyDef.angularVelocity = cnMakeVec3( perturbation, omega, perturbation );
    cnBodyId body = cnCreateBody( world, &bodyDef );
    cnShapeDef shapeDef = cnDefaultShapeDef();
    cnBox box = { { 0.5, 1.0, 1.5 } };
    cnCreateBoxShape( body, &shapeDef, &box );

    cnMassData mass = cnBody_GetMassData( body );
    cnVec3 w0 = cnBody_GetAngularVelocity( body );
    cnVec3 momentum0 = cnMulMV( mass.inertia, w0 );
    double energy0 = cnBody_GetKineticEnergy( body );

    cntSpin result = { 0.0, 0.0, 0, false };
    double previousSign = 1.0;
    int steps = (int)lround( duration / dt );
    for ( int i = 0; i < steps; ++i )
    {
        cnWorld_Step( world, dt );
        cnQuat q = cnBody_GetOrientation( body );
        cnVec3 w = cnBody_GetAngularVelocity( body );
        cnVec3 momentum = cnMulMV( cnRotateTensor( q, mass.inertia ), w );
        double error = cnLength( cnSub( momentum, momentum0 ) ) / cnLength( momentum0 );
        double energyError = fabs( cnBody_GetKineticEnergy( body ) - energy0 ) / energy0;
        result.maxMomentumError = fmax( result.maxMomentumError, error );
        result.maxEnergyError = fmax( result.maxEnergyError, energyError );
        result.blewUp = result.blewUp || isfinite( error ) == false || cnLength( w ) > 10.0 * omega;

        // the body's y axis against the fixed momentum: it turns over when the box flips
        double sign = cnDot( cnRotate( q, cnMakeVec3( 0.0, 1.0, 0.0 ) ), momentum0 ) >= 0.0 ? 1.0 : -1.0;
        result.flips += sign != previousSign ? 1 : 0;
        previousSign = sign;
    }
    cnDestroyWorld( world );
    return result;
}

START_TEST( tennis_racket_flips_and_conserves )
{
    // the perturbation grows like exp(lambda t), lambda = w sqrt((I1-I2)(I2-I3)/(I1 I3)) = 0.48 w for
    // this box, so from 1e-3 the first turn-over comes after about 7 s at 2 rad/s and the box then
    // turns over again every ~14 s; at 3 rad/s after about 5 s and every ~10 s
    const double spins[2] = { 2.0, 3.0 };
    const int minFlips[2] = { 1, 2 };
    for ( int i = 0; i < 2; ++i )
    {
        cntTrapFloatingPoint();
        cntSpin spin = cntSpinBox( spins[i], 1e-3, 1.0 / 60.0, 20.0 );
        cntUntrap();
        ck_assert( spin.blewUp == false );
        ck_assert_msg( spin.maxMomentumError <= 1e-6, "angular momentum drifted by %g",
                       spin.maxMomentumError );
        ck_assert_msg( spin.maxEnergyError <= 0.01, "kinetic energy drifted by %g", spin.maxEnergyError );
        ck_assert_msg( spin.flips >= minFlips[i], "at %g rad/s the box flipped %d times in 20 s", spins[i],
                       spin.flips );
        printf( "tennis racket at %g rad/s: momentum error %.3g, energy error %.3g, %d flips in 20 s\n",
                spins[i], spin.maxMomentumError, spin.maxEnergyError, spin.flips );
    }
}
END_TEST

// about a stable principal axis nothing flips, and a fast spin at a coarse step stays bounded
START_TEST( stable_axes_stay_put )
{
    cnWorldDef def = cnDefaultWorldDef();
    def.gravity = cn_vec3Zero;
    cnWorldId world = cnCreateWorld( &def );
    cnShapeDef shapeDef = cnDefaultShapeDef();
    cnBox box = { { 0.5, 1.0, 1.5 } };
    cnBodyDef bodyDef = cnDefaultBodyDef();
    bodyDef.angularVelocity = cnMakeVec3( 1e-3, 1e-3, 30.0 ); // about the smallest-inertia axis
    cnBodyId body = cnCreateBody( world, &bodyDef );
    cnCreateBoxShape( body, &shapeDef, &box );
    double energy0 = cnBody_GetKineticEnergy( body );
    for ( int i = 0; i < 1200; ++i )
    {
        cnWorld_Step( world, 1.0 / 60.0 );
        cnVec3 axis = cnRotate( cnBody_GetOrientation( body ), cnMakeVec3( 0.0, 0.0, 1.0 ) );
        ck_assert_msg( axis.z > 0.99, "step %d: the spin axis wandered to %g", i, axis.z );
    }
    CNT_ASSERT_REL( cnBody_GetKineticEnergy( body ), energy0, 1e-9 );
    ck_assert( cnWorld_GetStepReport( world ).warnings == 0 );
    cnDestroyWorld( world );
}
END_TEST

// a constant torque about a principal axis: omega grows like tau t / I (no gyroscopic coupling)
START_TEST( torque_about_principal_axis )
{
    cnWorldDef def = cnDefaultWorldDef();
    def.gravity = cn_vec3Zero;
    cnWorldId world = cnCreateWorld( &def );
    cnBodyDef bodyDef = cnDefaultBodyDef();
    cnBodyId body = cnCreateBody( world, &bodyDef );
    cnShapeDef shapeDef = cnDefaultShapeDef();
    cnCylinder cylinder = { 0.5, 1.0 };
    cnCreateCylinderShape( body, &shapeDef, &cylinder );
    double inertiaZ = cnBody_GetMassData( body ).inertia.cz.z;
    double dt = 0.01;
    for ( int i = 0; i < 100; ++i )
    {
        cnBody_ApplyTorque( body, cnMakeVec3( 0.0, 0.0, 5.0 ) );
        cnWorld_Step( world, dt );
    }
    CNT_ASSERT_REL( cnBody_GetAngularVelocity( body ).z, 5.0 * 1.0 / inertiaZ, 1e-12 );
    cnDestroyWorld( world );
}
END_TEST

// a force at a point off the centre gives the torque r x F
START_TEST( force_at_point_gives_torque )
{
    cnWorldDef def = cnDefaultWorldDef();
    def.gravity = cn_vec3Zero;
    cnWorldId world = cnCreateWorld( &def );
    cnBodyDef bodyDef = cnDefaultBodyDef();
    cnBodyId body = cnCreateBody( world, &bodyDef );
    cnShapeDef shapeDef = cnDefaultShapeDef();
    cnSphere sphere = { 1.0 };
    cnCreateSphereShape( body, &shapeDef, &sphere );
    cnMassData mass = cnBody_GetMassData( body );
    double dt = 0.001;
    cnBody_ApplyForce( body, cnMakeVec3( 0.0, 10.0, 0.0 ), cnMakeVec3( 2.0, 0.0, 0.0 ) );
    cnWorld_Step( world, dt );
    CNT_ASSERT_REL( cnBody_GetLinearVelocity( body ).y, 10.0 * dt / mass.mass, 1e-12 );
    // torque (0, 0, 20); a sphere has no gyroscopic coupling
    CNT_ASSERT_REL( cnBody_GetAngularVelocity( body ).z, 20.0 * dt / mass.inertia.cz.z, 1e-12 );
    // forces last one step
    cnWorld_Step( world, dt );
    CNT_ASSERT_REL( cnBody_GetLinearVelocity( body ).y, 10.0 * dt / mass.mass, 1e-12 );
    cnDestroyWorld( world );
}
END_TEST

// an off-centre compound rotates about its centre of mass, which moves in a straight line
START_TEST( compound_rotates_about_center_of_mass )
{
    cnWorldDef def = cnDefaultWorldDef();
    def.gravity = cn_vec3Zero;
    cnWorldId world = cnCreateWorld( &def );
    cnBodyDef bodyDef = cnDefaultBodyDef();
    bodyDef.angularVelocity = cnMakeVec3( 0.0, 0.0, 3.0 );
    cnBodyId body = cnCreateBody( world, &bodyDef );
    cnShapeDef shapeDef = cnDefaultShapeDef();
    cnSphere sphere = { 0.5 };
    shapeDef.localPose.p = cnMakeVec3( 2.0, 0.0, 0.0 );
    cnCreateSphereShape( body, &shapeDef, &sphere );
    cnVec3 center0 = cnBody_GetWorldCenter( body );
    CNT_ASSERT_REL( center0.x, 2.0, 1e-14 );
    cnVec3 v0 = cnBody_GetLinearVelocity( body );
    for ( int i = 0; i < 500; ++i )
    {
        cnWorld_Step( world, 0.01 );
        cnVec3 c = cnBody_GetWorldCenter( body );
        CNT_ASSERT_ABS( c.x, center0.x + v0.x * 0.01 * ( i + 1 ), 1e-12 );
        CNT_ASSERT_ABS( c.y, center0.y + v0.y * 0.01 * ( i + 1 ), 1e-12 );
        // the origin stays 2 m from the centre
        CNT_ASSERT_REL( cnLength( cnSub( cnBody_GetPosition( body ), c ) ), 2.0, 1e-12 );
    }
    cnDestroyWorld( world );
}
END_TEST

// a force that overflows to infinity: the force is dropped, the step reports the body, which then
// falls with gravity alone; others go on
START_TEST( non_finite_state_is_put_back )
{
    cntLogCapture log;
    cnWorldDef def = cntWorldDef( &log, NULL );
    cnWorldId world = cnCreateWorld( &def );
    cnBodyDef bodyDef = cnDefaultBodyDef();
    bodyDef.position = cnMakeVec3( 0.0, 0.0, 1.0 );
    cnBodyId bad = cnCreateBody( world, &bodyDef );
    bodyDef.position = cnMakeVec3( 5.0, 0.0, 1.0 );
    cnBodyId good = cnCreateBody( world, &bodyDef );
    ck_assert_int_eq( cnBody_ApplyForceToCenter( bad, cnMakeVec3( 1e308, 0.0, 0.0 ) ), cn_statusOk );
    ck_assert_int_eq( cnBody_ApplyForceToCenter( bad, cnMakeVec3( 1e308, 0.0, 0.0 ) ), cn_statusOk );
    ck_assert_int_eq( cnWorld_Step( world, 0.1 ), cn_statusOk );
    cnStepReport report = cnWorld_GetStepReport( world );
    ck_assert( report.warnings & cn_warnNonFiniteState );
    ck_assert_int_eq( report.nonFiniteCount, 1 );
    ck_assert_int_eq( log.warningCount, 1 );
    ck_assert( cnBody_GetPosition( bad ).x == 0.0 );
    CNT_ASSERT_REL( cnBody_GetPosition( bad ).z, cnBody_GetPosition( good ).z, 1e-15 );
    ck_assert( cnBody_GetPosition( good ).z < 1.0 );
    ck_assert_int_eq( cnWorld_Step( world, 0.1 ), cn_statusOk );
    ck_assert( cnWorld_GetStepReport( world ).warnings == 0 );
    ck_assert( cnBody_GetPosition( bad ).z < 1.0 );
    cnDestroyWorld( world );
}
END_TEST

Suite* cntInertialSuite( void )
{
    Suite* suite = suite_create( "inertial" );
    TCase* tc = tcase_create( "closed_forms" );
    tcase_set_timeout( tc, 120 );
    tcase_add_test( tc, free_fall_matches_semi_implicit_euler_sum );
    tcase_add_test( tc, free_fall_with_substeps );
    tcase_add_test( tc, linear_damping_closed_form );
    tcase_add_test( tc, tennis_racket_flips_and_conserves );
    tcase_add_test( tc, stable_axes_stay_put );
    tcase_add_test( tc, torque_about_principal_axis );
    tcase_add_test( tc, force_at_point_gives_torque );
    tcase_add_test( tc, compound_rotates_about_center_of_mass );
    tcase_add_test( tc, non_finite_state_is_put_back );
    suite_add_tcase( suite, tc );
    return suite;
}
