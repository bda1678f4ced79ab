// SPDX-License-Identifier: MIT
// Overdamped dynamics: velocity = mobility x force, checked against the drag laws.
#include "sim_suites.h"
#include "test_support.h"

#include <math.h>

static cnWorldId cntOverdampedWorld( double viscosity, cnVec3 gravity )
{
    cnWorldDef def = cnDefaultWorldDef();
    def.dynamics = cn_dynamicsOverdamped;
    def.viscosity = viscosity;
    def.gravity = gravity;
    return cnCreateWorld( &def );
}

// a rod (capsule) pushed by a constant force moves at exactly F / (xi l), l tip to tip (eq. 27)
START_TEST( rod_moves_at_mobility_times_force )
{
    double xi = 2.5;
    cnWorldId world = cntOverdampedWorld( xi, cn_vec3Zero );
    cnBodyDef bodyDef = cnDefaultBodyDef();
    bodyDef.orientation = cnQuatFromAxisAngle( cnNormalize( cnMakeVec3( 1.0, 1.0, 0.0 ) ), 0.7 );
    cnBodyId rod = cnCreateBody( world, &bodyDef );
    cnShapeDef shapeDef = cnDefaultShapeDef();
    cnCapsule capsule = { 0.25, 1.5 };
    cnCreateCapsuleShape( rod, &shapeDef, &capsule );

    double length = 2.0 * ( 1.5 + 0.25 );
    cnVec3 force = cnMakeVec3( 0.3, -1.2, 2.0 );
    cnVec3 torque = cnMakeVec3( 0.0, 0.0, 0.05 );
    double dt = 0.01;
    cnVec3 start = cnBody_GetWorldCenter( rod );
    for ( int i = 0; i < 50; ++i )
    {
        cnBody_ApplyForceToCenter( rod, force );
        cnBody_ApplyTorque( rod, torque );
        ck_assert_int_eq( cnWorld_Step( world, dt ), cn_statusOk );
        cnVec3 v = cnBody_GetLinearVelocity( rod );
        cnVec3 w = cnBody_GetAngularVelocity( rod );
        CNT_ASSERT_REL( v.x, force.x / ( xi * length ), 1e-14 );
        CNT_ASSERT_REL( v.y, force.y / ( xi * length ), 1e-14 );
        CNT_ASSERT_REL( v.z, force.z / ( xi * length ), 1e-14 );
        CNT_ASSERT_REL( w.z, 12.0 * torque.z / ( xi * length * length * length ), 1e-14 );
    }
    cnVec3 moved = cnSub( cnBody_GetWorldCenter( rod ), start );
    CNT_ASSERT_REL( moved.z, 50 * dt * force.z / ( xi * length ), 1e-12 );

    // no force, no motion: the overdamped body has no memory
    ck_assert_int_eq( cnWorld_Step( world, dt ), cn_statusOk );
    ck_assert( cnLength( cnBody_GetLinearVelocity( rod ) ) == 0.0 );
    cnDestroyWorld( world );
}
END_TEST

// a sphere sediments at Stokes' terminal speed m g / (6 pi eta r)
START_TEST( sphere_sediments_at_stokes_speed )
{
    double eta = 1e-3;
    cnWorldId world = cntOverdampedWorld( eta, cnMakeVec3( 0.0, 0.0, -9.81 ) );
    cnBodyDef bodyDef = cnDefaultBodyDef();
    cnBodyId ball = cnCreateBody( world, &bodyDef );
    cnShapeDef shapeDef = cnDefaultShapeDef();
    shapeDef.material.density = 2500.0;
    double r = 1e-4;
    cnSphere sphere = { r };
    cnCreateSphereShape( ball, &shapeDef, &sphere );
    cnWorld_Step( world, 0.01 );
    double mass = 2500.0 * 4.0 / 3.0 * M_PI * r * r * r;
    CNT_ASSERT_REL( cnBody_GetLinearVelocity( ball ).z, -mass * 9.81 / ( 6.0 * M_PI * eta * r ), 1e-13 );
    cnDestroyWorld( world );
}
END_TEST

// a custom anisotropic mobility is rotated with the body: v = R M R^T F
START_TEST( custom_mobility_rotates_with_body )
{
    cnWorldId world = cntOverdampedWorld( 1.0, cn_vec3Zero );
    cnBodyDef bodyDef = cnDefaultBodyDef();
    bodyDef.orientation = cnQuatFromAxisAngle( cnMakeVec3( 0.0, 0.0, 1.0 ), 0.5 * M_PI );
    bodyDef.customMobility = true;
    bodyDef.linearMobility = cnMakeMat3Diagonal( 2.0, 1.0, 1.0 ); // moves twice as easily along body x
    bodyDef.angularMobility = cnMakeMat3Diagonal( 1.0, 1.0, 1.0 );
    cnBodyId body = cnCreateBody( world, &bodyDef );
    cnShapeDef shapeDef = cnDefaultShapeDef();
    cnSphere sphere = { 1.0 };
    cnCreateSphereShape( body, &shapeDef, &sphere ); // shapes do not override a custom mobility

    // body x points along world y after the quarter turn
    cnBody_ApplyForceToCenter( body, cnMakeVec3( 1.0, 1.0, 0.0 ) );
    cnWorld_Step( world, 1e-6 );
    cnVec3 v = cnBody_GetLinearVelocity( body );
    CNT_ASSERT_REL( v.x, 1.0, 1e-12 );
    CNT_ASSERT_REL( v.y, 2.0, 1e-12 );

    // a mobility that is not positive definite is refused and changes nothing
    ck_assert_int_eq( cnBody_SetMobility( body, cnMakeMat3Diagonal( 1.0, -1.0, 1.0 ), cn_mat3Identity ),
                      cn_statusInvalidArgument );
    cnMat3 linear;
    ck_assert_int_eq( cnBody_GetMobility( body, &linear, NULL ), cn_statusOk );
    ck_assert( linear.cx.x == 2.0 );
    cnDestroyWorld( world );
}
END_TEST

// an ellipsoid uses the slender-body law with l = its major axis; a sphere-like one uses Stokes
START_TEST( default_mobility_by_shape )
{
    double eta = 0.5;
    cnWorldId world = cntOverdampedWorld( eta, cn_vec3Zero );
    cnShapeDef shapeDef = cnDefaultShapeDef();
    cnBodyDef bodyDef = cnDefaultBodyDef();

    cnBodyId egg = cnCreateBody( world, &bodyDef );
    cnEllipsoid ellipsoid = { { 0.5, 0.5, 2.0 } };
    cnCreateEllipsoidShape( egg, &shapeDef, &ellipsoid );
    cnMat3 linear, angular;
    cnBody_GetMobility( egg, &linear, &angular );
    CNT_ASSERT_REL( linear.cx.x, 1.0 / ( eta * 4.0 ), 1e-15 );
    CNT_ASSERT_REL( angular.cz.z, 12.0 / ( eta * 64.0 ), 1e-15 );

    cnBodyId ball = cnCreateBody( world, &bodyDef );
    cnEllipsoid round = { { 0.5, 0.5, 0.5 } };
    cnCreateEllipsoidShape( ball, &shapeDef, &round );
    cnBody_GetMobility( ball, &linear, &angular );
    CNT_ASSERT_REL( linear.cy.y, 1.0 / ( 6.0 * M_PI * eta * 0.5 ), 1e-15 );
    CNT_ASSERT_REL( angular.cy.y, 1.0 / ( 8.0 * M_PI * eta * 0.125 ), 1e-15 );

    // a box: Stokes drag of the sphere of equal volume
    cnBodyId crate = cnCreateBody( world, &bodyDef );
    cnBox box = { { 0.5, 0.5, 0.5 } };
    cnCreateBoxShape( crate, &shapeDef, &box );
    cnBody_GetMobility( crate, &linear, &angular );
    double radius = cbrt( 3.0 / ( 4.0 * M_PI ) );
    CNT_ASSERT_REL( linear.cz.z, 1.0 / ( 6.0 * M_PI * eta * radius ), 1e-14 );
    cnDestroyWorld( world );
}
END_TEST

// switching dynamics between steps: overdamped forgets the inertial velocity
START_TEST( switch_dynamics_between_steps )
{
    cnWorldDef def = cnDefaultWorldDef();
    def.gravity = cn_vec3Zero;
    cnWorldId world = cnCreateWorld( &def );
    cnBodyDef bodyDef = cnDefaultBodyDef();
    bodyDef.linearVelocity = cnMakeVec3( 1.0, 0.0, 0.0 );
    cnBodyId body = cnCreateBody( world, &bodyDef );
    cnWorld_Step( world, 0.1 );
    CNT_ASSERT_REL( cnBody_GetPosition( body ).x, 0.1, 1e-15 );
    ck_assert_int_eq( cnWorld_SetDynamics( world, cn_dynamicsOverdamped ), cn_statusOk );
    cnWorld_Step( world, 0.1 );
    CNT_ASSERT_REL( cnBody_GetPosition( body ).x, 0.1, 1e-15 );
    ck_assert_int_eq( cnWorld_SetDynamics( world, (cnDynamicsMode)7 ), cn_statusInvalidArgument );
    cnDestroyWorld( world );
}
END_TEST

Suite* cntOverdampedSuite( void )
{
    Suite* suite = suite_create( "overdamped" );
    TCase* tc = tcase_create( "mobility" );
    tcase_add_test( tc, rod_moves_at_mobility_times_force );
    tcase_add_test( tc, sphere_sediments_at_stokes_speed );
    tcase_add_test( tc, custom_mobility_rotates_with_body );
    tcase_add_test( tc, default_mobility_by_shape );
    tcase_add_test( tc, switch_dynamics_between_steps );
    suite_add_tcase( suite, tc );
    return suite;
}
