// SPDX-License-Identifier: MIT
// Impulses and setters after creation: each checked against the physics it should produce (closed
// forms of the integrator, conservation of momentum, contacts that start and stop), and each bad
// input against the status it should give with nothing changed.

#include "engine_suites.h"
#include "test_support.h"

#include <math.h>
#include <string.h>

static cnWorldId s_world;
static cntLogCapture s_log;

static void setup( void )
{
    cnWorldDef def = cntWorldDef( &s_log, NULL );
    s_world = cnCreateWorld( &def );
}

static void teardown( void )
{
    cnDestroyWorld( s_world );
}

static cnBodyId cntBody( cnWorldId world, cnBodyType type, cnVec3 position )
{
    cnBodyDef def = cnDefaultBodyDef();
    def.type = type;
    def.position = position;
    return cnCreateBody( world, &def );
}

static cnShapeId cntBox( cnBodyId body, double hx, double hy, double hz, double density )
{
    cnShapeDef def = cnDefaultShapeDef();
    def.material.density = density;
    cnBox box = { cnMakeVec3( hx, hy, hz ) };
    return cnCreateBoxShape( body, &def, &box );
}

static cnShapeId cntSphere( cnBodyId body, double radius, double density )
{
    cnShapeDef def = cnDefaultShapeDef();
    def.material.density = density;
    cnSphere sphere = { radius };
    return cnCreateSphereShape( body, &def, &sphere );
}

// a static ground slab, top face at z = 0
static cnBodyId cntGround( cnWorldId world, uint32_t categoryBits )
{
    cnBodyId ground = cntBody( world, cn_staticBody, cnMakeVec3( 0.0, 0.0, -0.5 ) );
    cnShapeDef def = cnDefaultShapeDef();
    def.categoryBits = categoryBits;
    cnBox box = { cnMakeVec3( 10.0, 10.0, 0.5 ) };
    cnCreateBoxShape( ground, &def, &box );
    return ground;
}

static void cntSteps( cnWorldId world, int count )
{
    for ( int i = 0; i < count; ++i )
    {
        ck_assert_int_eq( cnWorld_Step( world, 1.0 / 60.0 ), cn_statusOk );
    }
}

// contacts with points between two bodies, after the last update
static int cntContactsBetween( cnWorldId world, cnBodyId a, cnBodyId b )
{
    cnContactData contacts[64];
    int count = cnWorld_GetContacts( world, contacts, 64 );
    int found = 0;
    for ( int i = 0; i < count && i < 64; ++i )
    {
        bool ab = CN_ID_EQUALS( contacts[i].bodyA, a ) && CN_ID_EQUALS( contacts[i].bodyB, b );
        bool ba = CN_ID_EQUALS( contacts[i].bodyA, b ) && CN_ID_EQUALS( contacts[i].bodyB, a );
        found += ab || ba ? 1 : 0;
    }
    return found;
}

static void cntAssertVecRel( cnVec3 a, cnVec3 b, double tol )
{
    double scale = fmax( cnLength( a ), cnLength( b ) );
    ck_assert_msg( cnLength( cnSub( a, b ) ) <= tol * scale, "(%.17g, %.17g, %.17g) != (%.17g, %.17g, %.17g)",
                   a.x, a.y, a.z, b.x, b.y, b.z );
}

// impulses ---------------------------------------------------------------------------------------

// J at r from the centre: dv = J / m, dw = I_w^-1 (r x J), with I the box's closed form
START_TEST( linear_impulse_matches_closed_form )
{
    cnWorld_SetGravity( s_world, cn_vec3Zero );
    cnBodyDef def = cnDefaultBodyDef();
    def.position = cnMakeVec3( 1.0, -2.0, 3.0 );
    def.orientation = cnQuatFromAxisAngle( cnNormalize( cnMakeVec3( 1.0, 2.0, -0.5 ) ), 0.7 );
    def.linearVelocity = cnMakeVec3( 0.25, -0.5, 0.125 );
    def.angularVelocity = cnMakeVec3( 0.1, 0.2, -0.3 );
    cnBodyId body = cnCreateBody( s_world, &def );
    double hx = 0.5, hy = 1.0, hz = 1.5, density = 700.0;
    cntBox( body, hx, hy, hz, density );

    double m = density * 8.0 * hx * hy * hz;
    double inertia[3] = { m * ( hy * hy + hz * hz ) / 3.0, m * ( hx * hx + hz * hz ) / 3.0,
                          m * ( hx * hx + hy * hy ) / 3.0 };
    CNT_ASSERT_REL( cnBody_GetMassData( body ).mass, m, 1e-14 );

    cnVec3 v0 = cnBody_GetLinearVelocity( body );
    cnVec3 w0 = cnBody_GetAngularVelocity( body );
    cnVec3 center = cnBody_GetWorldCenter( body );
    cnVec3 r = cnMakeVec3( 0.3, -0.8, 1.1 );
    cnVec3 J = cnMakeVec3( 12.0, -7.0, 30.0 );
    ck_assert_int_eq( cnBody_ApplyLinearImpulse( body, J, cnAdd( center, r ) ), cn_statusOk );

    // dw in the body frame: (R^T (r x J))_i / I_ii
    cnQuat q = cnBody_GetOrientation( body );
    cnVec3 hBody = cnInvRotate( q, cnCross( r, J ) );
    cnVec3 dwBody = cnMakeVec3( hBody.x / inertia[0], hBody.y / inertia[1], hBody.z / inertia[2] );
    cntAssertVecRel( cnSub( cnBody_GetLinearVelocity( body ), v0 ), cnScale( 1.0 / m, J ), 1e-12 );
    cntAssertVecRel( cnSub( cnBody_GetAngularVelocity( body ), w0 ), cnRotate( q, dwBody ), 1e-12 );

    // through the centre: the velocity only; an angular impulse: the spin only
    v0 = cnBody_GetLinearVelocity( body );
    w0 = cnBody_GetAngularVelocity( body );
    ck_assert_int_eq( cnBody_ApplyLinearImpulseToCenter( body, J ), cn_statusOk );
    cntAssertVecRel( cnSub( cnBody_GetLinearVelocity( body ), v0 ), cnScale( 1.0 / m, J ), 1e-12 );
    cnVec3 w1 = cnBody_GetAngularVelocity( body );
    ck_assert( w1.x == w0.x && w1.y == w0.y && w1.z == w0.z );
    v0 = cnBody_GetLinearVelocity( body );
    cnVec3 H = cnMakeVec3( -4.0, 9.0, 2.5 );
    ck_assert_int_eq( cnBody_ApplyAngularImpulse( body, H ), cn_statusOk );
    hBody = cnInvRotate( q, H );
    dwBody = cnMakeVec3( hBody.x / inertia[0], hBody.y / inertia[1], hBody.z / inertia[2] );
    cntAssertVecRel( cnSub( cnBody_GetAngularVelocity( body ), w0 ), cnRotate( q, dwBody ), 1e-12 );
    ck_assert( cnBody_GetLinearVelocity( body ).x == v0.x && cnBody_GetLinearVelocity( body ).z == v0.z );

    // the integrator keeps the world angular momentum I_w w the impulses gave, to round-off
    cnVec3 wNow = cnBody_GetAngularVelocity( body );
    cnVec3 wb = cnInvRotate( q, wNow );
    cnVec3 L = cnRotate( q, cnMakeVec3( inertia[0] * wb.x, inertia[1] * wb.y, inertia[2] * wb.z ) );
    cntSteps( s_world, 30 );
    q = cnBody_GetOrientation( body );
    wb = cnInvRotate( q, cnBody_GetAngularVelocity( body ) );
    cnVec3 L30 = cnRotate( q, cnMakeVec3( inertia[0] * wb.x, inertia[1] * wb.y, inertia[2] * wb.z ) );
    cntAssertVecRel( L30, L, 1e-10 );
}
END_TEST

// static and kinematic bodies ignore impulses; a fixed-rotation body drops the angular part
START_TEST( impulses_on_static_kinematic_and_fixed_rotation_bodies )
{
    cnWorld_SetGravity( s_world, cn_vec3Zero );
    cnBodyId wall = cntBody( s_world, cn_staticBody, cn_vec3Zero );
    cntBox( wall, 1.0, 1.0, 1.0, 1000.0 );
    cnBodyDef def = cnDefaultBodyDef();
    def.type = cn_kinematicBody;
    def.position = cnMakeVec3( 5.0, 0.0, 0.0 );
    def.linearVelocity = cnMakeVec3( 1.0, 0.0, 0.0 );
    def.angularVelocity = cnMakeVec3( 0.0, 0.0, 0.5 );
    cnBodyId mover = cnCreateBody( s_world, &def );
    cntBox( mover, 1.0, 1.0, 1.0, 1000.0 );

    cnVec3 J = cnMakeVec3( 3.0, 4.0, 5.0 );
    cnBodyId ignoring[] = { wall, mover };
    for ( int i = 0; i < 2; ++i )
    {
        cnVec3 v = cnBody_GetLinearVelocity( ignoring[i] );
        cnVec3 w = cnBody_GetAngularVelocity( ignoring[i] );
        ck_assert_int_eq( cnBody_ApplyLinearImpulse( ignoring[i], J, cnMakeVec3( 9.0, 9.0, 9.0 ) ),
                          cn_statusOk );
        ck_assert_int_eq( cnBody_ApplyLinearImpulseToCenter( ignoring[i], J ), cn_statusOk );
        ck_assert_int_eq( cnBody_ApplyAngularImpulse( ignoring[i], J ), cn_statusOk );
        ck_assert( cnBody_GetLinearVelocity( ignoring[i] ).x == v.x &&
                   cnBody_GetLinearVelocity( ignoring[i] ).y == v.y );
        ck_assert( cnBody_GetAngularVelocity( ignoring[i] ).z == w.z &&
                   cnBody_GetAngularVelocity( ignoring[i] ).x == w.x );
    }

    def = cnDefaultBodyDef();
    def.position = cnMakeVec3( -5.0, 0.0, 0.0 );
    def.fixedRotation = true;
    cnBodyId slider = cnCreateBody( s_world, &def );
    cntSphere( slider, 0.5, 1000.0 );
    double m = cnBody_GetMassData( slider ).mass;
    cnVec3 center = cnBody_GetWorldCenter( slider );
    ck_assert_int_eq( cnBody_ApplyLinearImpulse( slider, J, cnAdd( center, cnMakeVec3( 0.0, 0.5, 0.0 ) ) ),
                      cn_statusOk );
    cntAssertVecRel( cnBody_GetLinearVelocity( slider ), cnScale( 1.0 / m, J ), 1e-14 );
    ck_assert_int_eq( cnBody_ApplyAngularImpulse( slider, J ), cn_statusOk );
    cnVec3 w = cnBody_GetAngularVelocity( slider );
    ck_assert( w.x == 0.0 && w.y == 0.0 && w.z == 0.0 );
    cntSteps( s_world, 5 );
    w = cnBody_GetAngularVelocity( slider );
    ck_assert( w.x == 0.0 && w.y == 0.0 && w.z == 0.0 );
}
END_TEST

// an impulse into one of two spheres: the collision shares it, the total momentum stays J
START_TEST( collision_keeps_the_momentum_of_an_impulse )
{
    cnWorld_SetGravity( s_world, cn_vec3Zero );
    cnBodyId a = cntBody( s_world, cn_dynamicBody, cnMakeVec3( -2.0, 0.0, 0.0 ) );
    cnBodyId b = cntBody( s_world, cn_dynamicBody, cnMakeVec3( 2.0, 0.0, 0.0 ) );
    cntSphere( a, 0.5, 1000.0 );
    cntSphere( b, 0.5, 3000.0 );
    double ma = cnBody_GetMassData( a ).mass;
    double mb = cnBody_GetMassData( b ).mass;
    cnVec3 J = cnMakeVec3( 3.0 * ma, 0.0, 0.0 );
    ck_assert_int_eq( cnBody_ApplyLinearImpulseToCenter( a, J ), cn_statusOk );
    CNT_ASSERT_REL( cnBody_GetLinearVelocity( a ).x, 3.0, 1e-15 );

    cntSteps( s_world, 120 );
    // they met (b moves away at the speed a perfectly inelastic collision gives), and the
    // contact impulses, equal and opposite, kept the total
    ck_assert( cnBody_GetLinearVelocity( b ).x > 0.5 );
    cnVec3 p =
        cnAdd( cnScale( ma, cnBody_GetLinearVelocity( a ) ), cnScale( mb, cnBody_GetLinearVelocity( b ) ) );
    cntAssertVecRel( p, J, 1e-12 );
    CNT_ASSERT_REL( cnBody_GetLinearVelocity( b ).x, J.x / ( ma + mb ), 0.02 );
}
END_TEST

// overdamped bodies have no momentum: an impulse moves them by mobility x J, and turns them by
// the angular mobility x (r x J); no velocity is left
START_TEST( overdamped_impulse_moves_by_mobility )
{
    cnWorldDef worldDef = cntWorldDef( &s_log, NULL );
    worldDef.dynamics = cn_dynamicsOverdamped;
    worldDef.gravity = cn_vec3Zero;
    worldDef.viscosity = 2.0;
    cnWorldId world = cnCreateWorld( &worldDef );
    double radius = 0.5;
    cnBodyId ball = cntBody( world, cn_dynamicBody, cnMakeVec3( 1.0, 2.0, 3.0 ) );
    cntSphere( ball, radius, 1000.0 );
    double mt = 1.0 / ( 6.0 * M_PI * 2.0 * radius );
    double mr = 1.0 / ( 8.0 * M_PI * 2.0 * radius * radius * radius );

    cnVec3 J = cnMakeVec3( 0.5, -0.25, 1.0 );
    cnVec3 r = cnMakeVec3( 0.0, 0.0, radius );
    ck_assert_int_eq( cnBody_ApplyLinearImpulse( ball, J, cnAdd( cnBody_GetWorldCenter( ball ), r ) ),
                      cn_statusOk );
    cntAssertVecRel( cnSub( cnBody_GetPosition( ball ), cnMakeVec3( 1.0, 2.0, 3.0 ) ), cnScale( mt, J ),
                     1e-12 );
    cnQuat q = cnBody_GetOrientation( ball );
    double angle = 2.0 * atan2( cnLength( cnMakeVec3( q.x, q.y, q.z ) ), q.w );
    CNT_ASSERT_REL( angle, mr * cnLength( cnCross( r, J ) ), 1e-12 );
    ck_assert( cnLength( cnBody_GetLinearVelocity( ball ) ) == 0.0 );

    // no memory: the next step, with no force, moves nothing
    cnVec3 before = cnBody_GetPosition( ball );
    ck_assert_int_eq( cnWorld_Step( world, 0.01 ), cn_statusOk );
    ck_assert( cnLength( cnSub( cnBody_GetPosition( ball ), before ) ) == 0.0 );

    // fixed rotation: the move without the turn
    ck_assert_int_eq( cnBody_SetFixedRotation( ball, true ), cn_statusOk );
    q = cnBody_GetOrientation( ball );
    ck_assert_int_eq( cnBody_ApplyAngularImpulse( ball, cnMakeVec3( 1.0, 1.0, 1.0 ) ), cn_statusOk );
    cnQuat q1 = cnBody_GetOrientation( ball );
    ck_assert( q1.w == q.w && q1.x == q.x && q1.y == q.y && q1.z == q.z );
    cnDestroyWorld( world );
}
END_TEST

// gravity scale and damping ----------------------------------------------------------------------

// semi-implicit Euler over N substeps of h: v_n = n h s g, drop = h^2 s g N (N + 1) / 2
START_TEST( gravity_scale_scales_the_fall )
{
    cnBodyId normal = cntBody( s_world, cn_dynamicBody, cnMakeVec3( 0.0, 0.0, 0.0 ) );
    cnBodyId floating = cntBody( s_world, cn_dynamicBody, cnMakeVec3( 5.0, 0.0, 0.0 ) );
    cnBodyId heavy = cntBody( s_world, cn_dynamicBody, cnMakeVec3( 10.0, 0.0, 0.0 ) );
    cntSphere( normal, 0.5, 1000.0 );
    cntSphere( floating, 0.5, 1000.0 );
    cntSphere( heavy, 0.5, 1000.0 );
    CNT_ASSERT_REL( cnBody_GetGravityScale( normal ), 1.0, 0.0 );
    ck_assert_int_eq( cnBody_SetGravityScale( floating, 0.0 ), cn_statusOk );
    ck_assert_int_eq( cnBody_SetGravityScale( heavy, 2.0 ), cn_statusOk );
    CNT_ASSERT_REL( cnBody_GetGravityScale( heavy ), 2.0, 0.0 );

    cntSteps( s_world, 100 );
    int n = 100 * cnWorld_GetStepReport( s_world ).substeps;
    double h = 1.0 / 60.0 / ( n / 100 );
    double g = cnWorld_GetGravity( s_world ).z;
    double drop = h * h * g * n * ( n + 1 ) / 2.0;
    CNT_ASSERT_REL( cnBody_GetPosition( normal ).z, drop, 1e-12 );
    CNT_ASSERT_REL( cnBody_GetPosition( heavy ).z, 2.0 * drop, 1e-12 );
    CNT_ASSERT_REL( cnBody_GetLinearVelocity( heavy ).z, 2.0 * n * h * g, 1e-12 );
    ck_assert( cnBody_GetPosition( floating ).z == 0.0 );
    ck_assert( cnBody_GetLinearVelocity( floating ).z == 0.0 );
}
END_TEST

// implicit damping: each substep divides the velocity by a = 1 + h c
START_TEST( damping_matches_the_integrator )
{
    cnWorld_SetGravity( s_world, cn_vec3Zero );
    cnBodyDef def = cnDefaultBodyDef();
    def.linearVelocity = cnMakeVec3( 3.0, -1.0, 0.5 );
    def.angularVelocity = cnMakeVec3( 0.0, 0.4, 2.0 );
    cnBodyId ball = cnCreateBody( s_world, &def );
    cntSphere( ball, 0.5, 1000.0 ); // isotropic: no gyroscopic coupling
    ck_assert_int_eq( cnBody_SetLinearDamping( ball, 0.5 ), cn_statusOk );
    ck_assert_int_eq( cnBody_SetAngularDamping( ball, 0.7 ), cn_statusOk );
    CNT_ASSERT_REL( cnBody_GetLinearDamping( ball ), 0.5, 0.0 );
    CNT_ASSERT_REL( cnBody_GetAngularDamping( ball ), 0.7, 0.0 );

    cntSteps( s_world, 60 );
    int n = 60 * cnWorld_GetStepReport( s_world ).substeps;
    double h = 1.0 / 60.0 / ( n / 60 );
    double a = 1.0 / ( 1.0 + h * 0.5 );
    double b = 1.0 / ( 1.0 + h * 0.7 );
    cntAssertVecRel( cnBody_GetLinearVelocity( ball ), cnScale( pow( a, n ), def.linearVelocity ), 1e-12 );
    cntAssertVecRel( cnBody_GetAngularVelocity( ball ), cnScale( pow( b, n ), def.angularVelocity ), 1e-12 );
    // x_n = h sum_k v0 a^k = h v0 a (1 - a^n) / (1 - a)
    cnVec3 travelled = cnScale( h * a * ( 1.0 - pow( a, n ) ) / ( 1.0 - a ), def.linearVelocity );
    cntAssertVecRel( cnBody_GetPosition( ball ), travelled, 1e-12 );
}
END_TEST

// body type --------------------------------------------------------------------------------------

// a moving dynamic body turned static stops, and neither gravity nor a box landing on it moves it;
// it no longer touches the static ground it rested on
START_TEST( dynamic_turned_static_stops )
{
    cnBodyId ground = cntGround( s_world, 1u );
    cnBodyId block = cntBody( s_world, cn_dynamicBody, cnMakeVec3( 0.0, 0.0, 0.5 ) );
    cntBox( block, 0.5, 0.5, 0.5, 1000.0 );
    cntSteps( s_world, 30 );
    ck_assert_int_ge( cntContactsBetween( s_world, block, ground ), 1 );

    cnBody_SetLinearVelocity( block, cnMakeVec3( 1.0, 0.0, 2.0 ) );
    cnBody_SetAngularVelocity( block, cnMakeVec3( 0.0, 0.0, 1.0 ) );
    cnBody_SetConstantForce( block, cnMakeVec3( 0.0, 0.0, 100.0 ) );
    ck_assert_int_eq( cnBody_SetType( block, cn_staticBody ), cn_statusOk );
    ck_assert_int_eq( cnBody_GetType( block ), cn_staticBody );
    ck_assert( cnLength( cnBody_GetLinearVelocity( block ) ) == 0.0 );
    ck_assert( cnLength( cnBody_GetAngularVelocity( block ) ) == 0.0 );
    ck_assert( cnLength( cnBody_GetConstantForce( block ) ) == 0.0 );
    ck_assert( cnBody_GetMassData( block ).mass == 0.0 );
    ck_assert( cnBody_GetKineticEnergy( block ) == 0.0 );
    ck_assert_int_eq( cnBody_ApplyLinearImpulseToCenter( block, cnMakeVec3( 100.0, 0.0, 0.0 ) ),
                      cn_statusOk );
    ck_assert( cnLength( cnBody_GetLinearVelocity( block ) ) == 0.0 );

    cnTransform pose = cnBody_GetTransform( block );
    cnBodyId crate = cntBody( s_world, cn_dynamicBody, cnMakeVec3( 0.0, 0.0, 2.5 ) );
    cntBox( crate, 0.5, 0.5, 0.5, 1000.0 );
    cntSteps( s_world, 120 );
    cnTransform after = cnBody_GetTransform( block );
    ck_assert( memcmp( &pose, &after, sizeof( pose ) ) == 0 );
    ck_assert_int_eq( cntContactsBetween( s_world, block, ground ), 0 );
    ck_assert_int_ge( cntContactsBetween( s_world, block, crate ), 1 );
    // the crate rests on top of it
    CNT_ASSERT_ABS( cnBody_GetPosition( crate ).z, 1.5, 0.01 );
    CNT_ASSERT_ABS( cnBody_GetLinearVelocity( crate ).z, 0.0, 0.01 );
}
END_TEST

// a static body turned dynamic gets its shapes' mass and falls freely; kinematic keeps velocity
START_TEST( static_turned_dynamic_falls )
{
    cnBodyId body = cntBody( s_world, cn_staticBody, cnMakeVec3( 0.0, 0.0, 10.0 ) );
    cntBox( body, 0.5, 1.0, 0.25, 800.0 );
    ck_assert( cnBody_GetMassData( body ).mass == 0.0 );
    cntSteps( s_world, 10 );
    ck_assert( cnBody_GetPosition( body ).z == 10.0 );

    ck_assert_int_eq( cnBody_SetType( body, cn_dynamicBody ), cn_statusOk );
    double m = 800.0 * 8.0 * 0.5 * 1.0 * 0.25;
    CNT_ASSERT_REL( cnBody_GetMassData( body ).mass, m, 1e-14 );
    CNT_ASSERT_REL( cnBody_GetMassData( body ).inertia.cx.x, m * ( 1.0 + 0.0625 ) / 3.0, 1e-14 );
    cntSteps( s_world, 60 );
    int n = 60 * cnWorld_GetStepReport( s_world ).substeps;
    double h = 1.0 / 60.0 / ( n / 60 );
    double drop = h * h * cnWorld_GetGravity( s_world ).z * n * ( n + 1 ) / 2.0;
    CNT_ASSERT_REL( cnBody_GetPosition( body ).z - 10.0, drop, 1e-12 );

    // kinematic: keeps its velocity, infinite mass, gravity no longer acts
    cnVec3 v = cnBody_GetLinearVelocity( body );
    ck_assert_int_eq( cnBody_SetType( body, cn_kinematicBody ), cn_statusOk );
    ck_assert( cnBody_GetLinearVelocity( body ).z == v.z );
    ck_assert( cnBody_GetMassData( body ).mass == 0.0 );
    cnVec3 p = cnBody_GetPosition( body );
    cntSteps( s_world, 6 );
    CNT_ASSERT_REL( cnBody_GetPosition( body ).z, p.z + 0.1 * v.z, 1e-12 );
    ck_assert( cnBody_GetLinearVelocity( body ).z == v.z );

    // a mass set by hand is dropped: the next dynamic body weighs what its shapes do
    ck_assert_int_eq( cnBody_SetType( body, cn_dynamicBody ), cn_statusOk );
    cnMassData custom = { 5.0, cn_vec3Zero, cnMakeMat3Diagonal( 1.0, 1.0, 1.0 ) };
    ck_assert_int_eq( cnBody_SetMassData( body, &custom ), cn_statusOk );
    ck_assert( cnBody_GetMassData( body ).mass == 5.0 );
    ck_assert_int_eq( cnBody_SetType( body, cn_staticBody ), cn_statusOk );
    ck_assert_int_eq( cnBody_SetType( body, cn_dynamicBody ), cn_statusOk );
    CNT_ASSERT_REL( cnBody_GetMassData( body ).mass, m, 1e-14 );

    // a fixed-rotation kinematic body may spin; as a dynamic body it stops spinning
    ck_assert_int_eq( cnBody_SetType( body, cn_kinematicBody ), cn_statusOk );
    ck_assert_int_eq( cnBody_SetFixedRotation( body, true ), cn_statusOk );
    ck_assert_int_eq( cnBody_SetAngularVelocity( body, cnMakeVec3( 0.0, 0.0, 3.0 ) ), cn_statusOk );
    ck_assert_int_eq( cnBody_SetType( body, cn_dynamicBody ), cn_statusOk );
    ck_assert( cnBody_GetAngularVelocity( body ).z == 0.0 );
}
END_TEST

START_TEST( set_type_refusals_change_nothing )
{
    cnBodyId floor = cntBody( s_world, cn_staticBody, cn_vec3Zero );
    cnShapeDef def = cnDefaultShapeDef();
    cnPlane plane = { cnMakeVec3( 0.0, 0.0, 1.0 ), 0.0 };
    ck_assert( CN_IS_NULL( cnCreatePlaneShape( floor, &def, &plane ) ) == false );
    ck_assert_int_eq( cnBody_SetType( floor, cn_dynamicBody ), cn_statusInvalidArgument );
    ck_assert_int_eq( s_log.lastStatus, cn_statusInvalidArgument );
    ck_assert_ptr_nonnull( strstr( s_log.lastMessage, "plane" ) );
    ck_assert_int_eq( cnBody_GetType( floor ), cn_staticBody );

    cnBodyId body = cntBody( s_world, cn_dynamicBody, cnMakeVec3( 0.0, 0.0, 3.0 ) );
    cntSphere( body, 0.5, 1000.0 );
    ck_assert_int_eq( cnBody_SetType( body, (cnBodyType)7 ), cn_statusInvalidArgument );
    ck_assert_int_eq( cnBody_SetType( body, (cnBodyType)-1 ), cn_statusInvalidArgument );
    ck_assert_int_eq( cnBody_GetType( body ), cn_dynamicBody );
    ck_assert_int_eq( cnBody_SetType( body, cn_dynamicBody ), cn_statusOk ); // the same type: nothing

    cnBodyId stale = cntBody( s_world, cn_dynamicBody, cn_vec3Zero );
    cnDestroyBody( stale );
    ck_assert_int_eq( cnBody_SetType( stale, cn_staticBody ), cn_statusInvalidId );
    ck_assert_int_eq( cnBody_SetType( cn_nullBodyId, cn_staticBody ), cn_statusInvalidId );

    // the world still steps and the broadphase still pairs the body with the floor
    cntSteps( s_world, 90 );
    CNT_ASSERT_ABS( cnBody_GetPosition( body ).z, 0.5, 0.01 );
}
END_TEST

// out of memory while the proxies move to the other tree: refused, the body as it was
START_TEST( set_type_out_of_memory_changes_nothing )
{
    cntCountingAllocator counter;
    cnAllocator allocator = cntMakeCountingAllocator( &counter );
    cntLogCapture capture;
    cnWorldDef worldDef = cntWorldDef( &capture, &allocator );
    cnWorldId world = cnCreateWorld( &worldDef );
    cnBodyId ground = cntGround( world, 1u );
    // only static bodies: the moving tree has no room yet
    cnBodyId block = cntBody( world, cn_staticBody, cnMakeVec3( 0.0, 0.0, 2.0 ) );
    cntBox( block, 0.5, 0.5, 0.5, 1000.0 );
    cntBox( block, 0.25, 0.25, 1.0, 1000.0 );
    ck_assert_int_eq( cnWorld_UpdateContacts( world ), cn_statusOk );

    counter.failAfter = counter.totalAllocations;
    ck_assert_int_eq( cnBody_SetType( block, cn_dynamicBody ), cn_statusOutOfMemory );
    ck_assert_int_eq( capture.lastStatus, cn_statusOutOfMemory );
    ck_assert_int_eq( cnBody_GetType( block ), cn_staticBody );
    ck_assert( cnBody_GetMassData( block ).mass == 0.0 );
    counter.failAfter = -1;
    ck_assert_int_eq( cnWorld_UpdateContacts( world ), cn_statusOk );
    cntSteps( world, 10 );
    ck_assert( cnBody_GetPosition( block ).z == 2.0 );

    ck_assert_int_eq( cnBody_SetType( block, cn_dynamicBody ), cn_statusOk );
    cntSteps( world, 120 );
    ck_assert( cnBody_GetPosition( block ).z < 1.5 );
    ck_assert_int_ge( cntContactsBetween( world, block, ground ), 1 );
    cnDestroyWorld( world );
    ck_assert_uint_eq( counter.liveBytes, 0 );
}
END_TEST

// shapes -----------------------------------------------------------------------------------------

START_TEST( density_change_doubles_the_mass )
{
    cnBodyId body = cntBody( s_world, cn_dynamicBody, cn_vec3Zero );
    cnShapeId shape = cntSphere( body, 0.5, 1000.0 );
    cnMassData before = cnBody_GetMassData( body );
    CNT_ASSERT_REL( before.mass, 1000.0 * 4.0 / 3.0 * M_PI * 0.125, 1e-14 );

    cnMaterial material = { 0.2, 0.5, 2000.0 };
    ck_assert_int_eq( cnShape_SetMaterial( shape, material ), cn_statusOk );
    cnMassData after = cnBody_GetMassData( body );
    CNT_ASSERT_REL( after.mass, 2.0 * before.mass, 1e-14 );
    CNT_ASSERT_REL( after.inertia.cx.x, 2.0 * before.inertia.cx.x, 1e-14 );
    CNT_ASSERT_REL( cnShape_GetMassData( shape ).mass, 2.0 * before.mass, 1e-14 );
    cnMaterial read = cnShape_GetMaterial( shape );
    ck_assert( read.friction == 0.2 && read.restitution == 0.5 && read.density == 2000.0 );

    // the same velocity change now takes twice the impulse
    ck_assert_int_eq( cnBody_ApplyLinearImpulseToCenter( body, cnMakeVec3( before.mass, 0.0, 0.0 ) ),
                      cn_statusOk );
    CNT_ASSERT_REL( cnBody_GetLinearVelocity( body ).x, 0.5, 1e-14 );

    // bad materials: refused, logged, nothing changed
    cnMaterial bad[] = {
        { NAN, 0.0, 1000.0 },  { 0.5, INFINITY, 1000.0 }, { 0.5, 0.0, NAN },
        { -0.1, 0.0, 1000.0 }, { 0.5, 1.5, 1000.0 },      { 0.5, 0.0, -1.0 },
    };
    cnStatus expected[] = { cn_statusNonFinite,       cn_statusNonFinite,       cn_statusNonFinite,
                            cn_statusInvalidArgument, cn_statusInvalidArgument, cn_statusInvalidArgument };
    for ( int i = 0; i < 6; ++i )
    {
        int errors = s_log.errorCount;
        ck_assert_int_eq( cnShape_SetMaterial( shape, bad[i] ), expected[i] );
        ck_assert_int_eq( s_log.errorCount, errors + 1 );
        ck_assert_int_eq( s_log.lastStatus, expected[i] );
        read = cnShape_GetMaterial( shape );
        ck_assert( read.friction == 0.2 && read.restitution == 0.5 && read.density == 2000.0 );
        ck_assert( cnBody_GetMassData( body ).mass == after.mass );
    }
    cnShapeId stale = cntSphere( body, 0.1, 1000.0 );
    cnDestroyShape( stale );
    ck_assert_int_eq( cnShape_SetMaterial( stale, material ), cn_statusInvalidId );
}
END_TEST

// a box resting on the ground falls through once its mask leaves out the ground's category; the
// contact ends and begins with the filter
START_TEST( filter_change_starts_and_stops_contacts )
{
    cnBodyId ground = cntGround( s_world, 0x2u );
    cnBodyId box = cntBody( s_world, cn_dynamicBody, cnMakeVec3( 0.0, 0.0, 0.5 ) );
    cnShapeId shape = cntBox( box, 0.5, 0.5, 0.5, 1000.0 );
    cntSteps( s_world, 30 );
    CNT_ASSERT_ABS( cnBody_GetPosition( box ).z, 0.5, 0.01 );
    ck_assert_int_ge( cntContactsBetween( s_world, box, ground ), 1 );

    uint32_t category = 0, mask = 0;
    ck_assert_int_eq( cnShape_GetFilter( shape, &category, &mask ), cn_statusOk );
    ck_assert_uint_eq( category, cnDefaultShapeDef().categoryBits );
    ck_assert_uint_eq( mask, cnDefaultShapeDef().maskBits );

    // no pair at the next update: the contact ends
    ck_assert_int_eq( cnShape_SetFilter( shape, 0x1u, ~0x2u ), cn_statusOk );
    ck_assert_int_eq( cnWorld_UpdateContacts( s_world ), cn_statusOk );
    ck_assert_int_eq( cntContactsBetween( s_world, box, ground ), 0 );
    ck_assert_int_eq( cnWorld_GetContactEvents( s_world ).endCount, 1 );

    // allowed again: it begins
    ck_assert_int_eq( cnShape_SetFilter( shape, 0x1u, 0xFFFFFFFFu ), cn_statusOk );
    ck_assert_int_eq( cnWorld_UpdateContacts( s_world ), cn_statusOk );
    ck_assert_int_ge( cntContactsBetween( s_world, box, ground ), 1 );
    ck_assert_int_eq( cnWorld_GetContactEvents( s_world ).beginCount, 1 );

    // excluded for good: it falls through the ground
    ck_assert_int_eq( cnShape_SetFilter( shape, 0x1u, ~0x2u ), cn_statusOk );
    ck_assert_int_eq( cnShape_GetFilter( shape, NULL, &mask ), cn_statusOk );
    ck_assert_uint_eq( mask, ~0x2u );
    cntSteps( s_world, 60 );
    ck_assert( cnBody_GetPosition( box ).z < -3.0 );
    ck_assert_int_eq( cntContactsBetween( s_world, box, ground ), 0 );

    cnShapeId stale = cntSphere( box, 0.1, 1000.0 );
    cnDestroyShape( stale );
    ck_assert_int_eq( cnShape_SetFilter( stale, 1u, 1u ), cn_statusInvalidId );
    ck_assert_int_eq( cnShape_GetFilter( stale, &category, &mask ), cn_statusInvalidId );
}
END_TEST

// a multisphere world: the filter reaches the hidden sub-spheres, the type their proxies
START_TEST( multisphere_shapes_follow_filter_and_type )
{
    cnWorldDef worldDef = cntWorldDef( &s_log, NULL );
    worldDef.multisphere = 8;
    cnWorldId world = cnCreateWorld( &worldDef );
    cnBodyId ground = cntGround( world, 0x2u );
    cnBodyId rod = cntBody( world, cn_dynamicBody, cnMakeVec3( 0.0, 0.0, 0.25 ) );
    cnShapeDef def = cnDefaultShapeDef();
    def.localPose.q = cnQuatFromAxisAngle( cnMakeVec3( 0.0, 1.0, 0.0 ), 0.5 * M_PI ); // lying down
    cnCapsule capsule = { 0.25, 1.0 };
    cnShapeId shape = cnCreateCapsuleShape( rod, &def, &capsule );
    ck_assert_int_eq( cnWorld_UpdateContacts( world ), cn_statusOk );
    ck_assert_int_ge( cntContactsBetween( world, rod, ground ), 1 );

    ck_assert_int_eq( cnShape_SetFilter( shape, 0x1u, 0x1u ), cn_statusOk );
    ck_assert_int_eq( cnWorld_UpdateContacts( world ), cn_statusOk );
    ck_assert_int_eq( cntContactsBetween( world, rod, ground ), 0 );
    ck_assert_int_eq( cnShape_SetFilter( shape, 0x1u, 0x3u ), cn_statusOk );

    // static with static: no pair; dynamic again: the pair is back
    ck_assert_int_eq( cnBody_SetType( rod, cn_staticBody ), cn_statusOk );
    ck_assert_int_eq( cnWorld_UpdateContacts( world ), cn_statusOk );
    ck_assert_int_eq( cntContactsBetween( world, rod, ground ), 0 );
    ck_assert_int_eq( cnBody_SetType( rod, cn_dynamicBody ), cn_statusOk );
    ck_assert_int_eq( cnWorld_UpdateContacts( world ), cn_statusOk );
    ck_assert_int_ge( cntContactsBetween( world, rod, ground ), 1 );
    cntSteps( world, 60 );
    CNT_ASSERT_ABS( cnBody_GetPosition( rod ).z, 0.25, 0.01 );
    cnDestroyWorld( world );
}
END_TEST

// bad input and locking --------------------------------------------------------------------------

START_TEST( bad_body_input_changes_nothing )
{
    cnBodyDef def = cnDefaultBodyDef();
    def.linearVelocity = cnMakeVec3( 1.0, 2.0, 3.0 );
    def.angularVelocity = cnMakeVec3( 0.5, 0.0, 0.0 );
    cnBodyId body = cnCreateBody( s_world, &def );
    cntSphere( body, 0.5, 1000.0 );
    cnBody_SetLinearDamping( body, 0.25 );
    cnBody_SetAngularDamping( body, 0.5 );
    cnBody_SetGravityScale( body, 1.5 );
    cnBodyId stale = cntBody( s_world, cn_dynamicBody, cn_vec3Zero );
    cnDestroyBody( stale );
    cnBodyId forged = { body.index1, body.world0, (uint16_t)( body.generation + 3 ) };

    cnVec3 nan3 = cnMakeVec3( 0.0, NAN, 0.0 );
    cnVec3 inf3 = cnMakeVec3( INFINITY, 0.0, 0.0 );
    cnVec3 one = cnMakeVec3( 1.0, 1.0, 1.0 );
    struct
    {
        cnStatus got;
        cnStatus expected;
    } cases[] = {
        { cnBody_ApplyLinearImpulse( body, nan3, cn_vec3Zero ), cn_statusNonFinite },
        { cnBody_ApplyLinearImpulse( body, one, inf3 ), cn_statusNonFinite },
        { cnBody_ApplyLinearImpulse( body, cnMakeVec3( 1e308, 0.0, 0.0 ), cnMakeVec3( 0.0, 1e300, 0.0 ) ),
          cn_statusNonFinite }, // a moment that overflows
        { cnBody_ApplyLinearImpulseToCenter( body, inf3 ), cn_statusNonFinite },
        { cnBody_ApplyAngularImpulse( body, nan3 ), cn_statusNonFinite },
        { cnBody_SetGravityScale( body, NAN ), cn_statusNonFinite },
        { cnBody_SetGravityScale( body, -INFINITY ), cn_statusNonFinite },
        { cnBody_SetLinearDamping( body, -0.5 ), cn_statusInvalidArgument },
        { cnBody_SetLinearDamping( body, INFINITY ), cn_statusNonFinite },
        { cnBody_SetAngularDamping( body, -1e-9 ), cn_statusInvalidArgument },
        { cnBody_SetAngularDamping( body, NAN ), cn_statusNonFinite },
    };
    for ( int i = 0; i < (int)( sizeof( cases ) / sizeof( cases[0] ) ); ++i )
    {
        ck_assert_msg( cases[i].got == cases[i].expected, "case %d: %s, expected %s", i,
                       cnStatusName( cases[i].got ), cnStatusName( cases[i].expected ) );
    }
    ck_assert_int_eq( s_log.errorCount, (int)( sizeof( cases ) / sizeof( cases[0] ) ) );

    cnBodyId bad[] = { stale, forged, cn_nullBodyId };
    for ( int i = 0; i < 3; ++i )
    {
        ck_assert_int_eq( cnBody_ApplyLinearImpulse( bad[i], one, cn_vec3Zero ), cn_statusInvalidId );
        ck_assert_int_eq( cnBody_ApplyLinearImpulseToCenter( bad[i], one ), cn_statusInvalidId );
        ck_assert_int_eq( cnBody_ApplyAngularImpulse( bad[i], one ), cn_statusInvalidId );
        ck_assert_int_eq( cnBody_SetGravityScale( bad[i], 1.0 ), cn_statusInvalidId );
        ck_assert_int_eq( cnBody_SetLinearDamping( bad[i], 1.0 ), cn_statusInvalidId );
        ck_assert_int_eq( cnBody_SetAngularDamping( bad[i], 1.0 ), cn_statusInvalidId );
        ck_assert_int_eq( cnBody_SetType( bad[i], cn_kinematicBody ), cn_statusInvalidId );
        ck_assert( cnBody_GetGravityScale( bad[i] ) == 0.0 );
        ck_assert( cnBody_GetLinearDamping( bad[i] ) == 0.0 );
        ck_assert( cnBody_GetAngularDamping( bad[i] ) == 0.0 );
    }

    // nothing changed
    ck_assert( cnBody_GetLinearVelocity( body ).x == 1.0 && cnBody_GetLinearVelocity( body ).y == 2.0 &&
               cnBody_GetLinearVelocity( body ).z == 3.0 );
    ck_assert( cnBody_GetAngularVelocity( body ).x == 0.5 && cnBody_GetAngularVelocity( body ).y == 0.0 );
    ck_assert( cnBody_GetGravityScale( body ) == 1.5 );
    ck_assert( cnBody_GetLinearDamping( body ) == 0.25 );
    ck_assert( cnBody_GetAngularDamping( body ) == 0.5 );
    ck_assert_int_eq( cnBody_GetType( body ), cn_dynamicBody );
}
END_TEST

typedef struct cntLockProbe
{
    cnBodyId body;
    cnShapeId shape;
    int calls;
    cnStatus setType;
    cnStatus setFilter;
    cnStatus setDensity;
    cnStatus setFriction;
} cntLockProbe;

// called mid-solve, with the world locked
static void cntProbeLocked( const cnSolverProblem* problem, const double* start, const double* lambda,
                            const cnSolverStats* stats, void* context )
{
    (void)problem;
    (void)start;
    (void)lambda;
    (void)stats;
    cntLockProbe* probe = context;
    probe->calls += 1;
    probe->setType = cnBody_SetType( probe->body, cn_staticBody );
    probe->setFilter = cnShape_SetFilter( probe->shape, 0u, 0u );
    cnMaterial material = cnShape_GetMaterial( probe->shape );
    material.density *= 2.0;
    probe->setDensity = cnShape_SetMaterial( probe->shape, material );
    material = cnShape_GetMaterial( probe->shape );
    material.friction = 0.25;
    probe->setFriction = cnShape_SetMaterial( probe->shape, material );
}

// a user system runs unlocked: it may change a body's type
static void cntTurnStatic( cnWorldId worldId, cnBodyArrays* bodies, double timeStep, void* context )
{
    (void)worldId;
    (void)bodies;
    (void)timeStep;
    cntLockProbe* probe = context;
    probe->setType = cnBody_SetType( probe->body, cn_staticBody );
}

START_TEST( structural_setters_are_refused_mid_solve )
{
    cntGround( s_world, 1u );
    cntLockProbe probe = { 0 };
    probe.body = cntBody( s_world, cn_dynamicBody, cnMakeVec3( 0.0, 0.0, 0.5 ) );
    probe.shape = cntBox( probe.body, 0.5, 0.5, 0.5, 1000.0 );
    double mass = cnBody_GetMassData( probe.body ).mass;
    ck_assert_int_eq( cnWorld_SetProblemFcn( s_world, cntProbeLocked, &probe ), cn_statusOk );
    ck_assert_int_eq( cnWorld_Step( s_world, 1.0 / 60.0 ), cn_statusOk );
    ck_assert_int_ge( probe.calls, 1 );
    ck_assert_int_eq( probe.setType, cn_statusWorldLocked );
    ck_assert_int_eq( probe.setFilter, cn_statusWorldLocked );
    ck_assert_int_eq( probe.setDensity, cn_statusWorldLocked );
    ck_assert_int_eq( probe.setFriction, cn_statusOk ); // no mass change: allowed
    ck_assert_int_eq( cnBody_GetType( probe.body ), cn_dynamicBody );
    ck_assert( cnBody_GetMassData( probe.body ).mass == mass );
    cnWorld_SetProblemFcn( s_world, NULL, NULL );

    cnSystemDef system = cnDefaultSystemDef();
    system.name = "turn static";
    system.stage = cn_stageBegin;
    system.fcn = cntTurnStatic;
    system.context = &probe;
    ck_assert_int_eq( cnWorld_AddSystem( s_world, &system ), cn_statusOk );
    ck_assert_int_eq( cnWorld_Step( s_world, 1.0 / 60.0 ), cn_statusOk );
    ck_assert_int_eq( probe.setType, cn_statusOk );
    ck_assert_int_eq( cnBody_GetType( probe.body ), cn_staticBody );
}
END_TEST

Suite* cntSettersSuite( void )
{
    Suite* suite = suite_create( "setters" );
    TCase* tc = tcase_create( "setters" );
    tcase_add_checked_fixture( tc, setup, teardown );
    tcase_add_test( tc, linear_impulse_matches_closed_form );
    tcase_add_test( tc, impulses_on_static_kinematic_and_fixed_rotation_bodies );
    tcase_add_test( tc, collision_keeps_the_momentum_of_an_impulse );
    tcase_add_test( tc, overdamped_impulse_moves_by_mobility );
    tcase_add_test( tc, gravity_scale_scales_the_fall );
    tcase_add_test( tc, damping_matches_the_integrator );
    tcase_add_test( tc, dynamic_turned_static_stops );
    tcase_add_test( tc, static_turned_dynamic_falls );
    tcase_add_test( tc, set_type_refusals_change_nothing );
    tcase_add_test( tc, set_type_out_of_memory_changes_nothing );
    tcase_add_test( tc, density_change_doubles_the_mass );
    tcase_add_test( tc, filter_change_starts_and_stops_contacts );
    tcase_add_test( tc, multisphere_shapes_follow_filter_and_type );
    tcase_add_test( tc, bad_body_input_changes_nothing );
    tcase_add_test( tc, structural_setters_are_refused_mid_solve );
    suite_add_tcase( suite, tc );
    return suite;
}
