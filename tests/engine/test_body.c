// SPDX-License-Identifier: MIT
#include "engine_suites.h"
#include "test_support.h"
#include "world.h"

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

static cnBodyId cntMakeBody( double x, const char* name )
{
    cnBodyDef def = cnDefaultBodyDef();
    def.position = cnMakeVec3( x, 0.0, 0.0 );
    def.name = name;
    return cnCreateBody( s_world, &def );
}

// a destroyed body's id is stale, even when its slot is reused by a new body
START_TEST( stale_body_id_is_detected )
{
    cnBodyId a = cntMakeBody( 1.0, "a" );
    ck_assert( cnBody_IsValid( a ) );
    ck_assert_int_eq( cnDestroyBody( a ), cn_statusOk );
    ck_assert( cnBody_IsValid( a ) == false );

    cnBodyId b = cntMakeBody( 2.0, "b" );
    ck_assert_int_eq( a.index1, b.index1 );
    ck_assert_int_ne( a.generation, b.generation );
    ck_assert( cnBody_IsValid( a ) == false );

    // every entry point refuses the stale id and leaves b alone
    ck_assert_int_eq( cnDestroyBody( a ), cn_statusInvalidId );
    ck_assert_int_eq( cnBody_SetLinearVelocity( a, cnMakeVec3( 1, 1, 1 ) ), cn_statusInvalidId );
    ck_assert_int_eq( cnBody_SetTransform( a, cn_vec3Zero, cn_quatIdentity ), cn_statusInvalidId );
    ck_assert_int_eq( cnBody_ApplyForceToCenter( a, cnMakeVec3( 1, 1, 1 ) ), cn_statusInvalidId );
    cnBodyState state;
    ck_assert_int_eq( cnBody_GetState( a, &state ), cn_statusInvalidId );
    ck_assert( cnBody_GetPosition( a ).x == 0.0 );
    ck_assert_str_eq( cnBody_GetName( a ), "" );
    cnShapeDef shapeDef = cnDefaultShapeDef();
    cnSphere sphere = { 1.0 };
    ck_assert( CN_IS_NULL( cnCreateSphereShape( a, &shapeDef, &sphere ) ) );

    ck_assert( cnBody_GetPosition( b ).x == 2.0 );
    ck_assert( cnBody_GetLinearVelocity( b ).x == 0.0 );
}
END_TEST

// ids made up by hand never reach memory they should not
START_TEST( forged_body_ids_are_refused )
{
    cnBodyId real = cntMakeBody( 0.0, NULL );
    cnBodyId forged[] = {
        { 0, real.world0, real.generation },                             // null
        { -5, real.world0, real.generation },                            // negative index
        { 1000000, real.world0, real.generation },                       // past the slots
        { real.index1, (uint16_t)( real.world0 + 7 ), real.generation }, // another world slot
        { real.index1, 65535, real.generation },                         // past the world table
        { real.index1, real.world0, (uint16_t)( real.generation + 1 ) }, // wrong generation
    };
    for ( size_t i = 0; i < sizeof( forged ) / sizeof( forged[0] ); ++i )
    {
        ck_assert_msg( cnBody_IsValid( forged[i] ) == false, "forged id %zu accepted", i );
        ck_assert_int_eq( cnDestroyBody( forged[i] ), cn_statusInvalidId );
        ck_assert_int_eq( cnBody_ApplyTorque( forged[i], cnMakeVec3( 1, 0, 0 ) ), cn_statusInvalidId );
        ck_assert( cnBody_GetMassData( forged[i] ).mass == 0.0 );
    }
    cnShapeId forgedShape = { 99999, real.world0, 1 };
    ck_assert( cnShape_IsValid( forgedShape ) == false );
    ck_assert_int_eq( cnDestroyShape( forgedShape ), cn_statusInvalidId );
    ck_assert( cnBody_IsValid( real ) );
}
END_TEST

// NaN or infinity anywhere in a def: null id, an error with the field's name, world untouched
START_TEST( non_finite_body_def_is_refused )
{
    cnBodyId keep = cntMakeBody( 3.0, "keep" );
    int before = cnWorld_GetBodyCount( s_world );

    cnBodyDef def = cnDefaultBodyDef();
    def.position.y = NAN;
    ck_assert( CN_IS_NULL( cnCreateBody( s_world, &def ) ) );
    ck_assert_int_eq( s_log.lastStatus, cn_statusNonFinite );
    ck_assert_ptr_nonnull( strstr( s_log.lastMessage, "position" ) );

    def = cnDefaultBodyDef();
    def.angularVelocity.z = INFINITY;
    ck_assert( CN_IS_NULL( cnCreateBody( s_world, &def ) ) );
    ck_assert_ptr_nonnull( strstr( s_log.lastMessage, "angularVelocity" ) );

    def = cnDefaultBodyDef();
    def.orientation.w = NAN;
    ck_assert( CN_IS_NULL( cnCreateBody( s_world, &def ) ) );
    ck_assert_int_eq( s_log.lastStatus, cn_statusNonFinite );

    def = cnDefaultBodyDef();
    def.orientation = cnMakeQuat( 0.0, 0.0, 0.0, 0.0 );
    ck_assert( CN_IS_NULL( cnCreateBody( s_world, &def ) ) );
    ck_assert_int_eq( s_log.lastStatus, cn_statusInvalidArgument );

    def = cnDefaultBodyDef();
    def.gravityScale = NAN;
    ck_assert( CN_IS_NULL( cnCreateBody( s_world, &def ) ) );

    def = cnDefaultBodyDef();
    def.linearDamping = -1.0;
    ck_assert( CN_IS_NULL( cnCreateBody( s_world, &def ) ) );

    def = cnDefaultBodyDef();
    def.internalValue = 0;
    ck_assert( CN_IS_NULL( cnCreateBody( s_world, &def ) ) );
    ck_assert( CN_IS_NULL( cnCreateBody( s_world, NULL ) ) );

    // setters refuse NaN the same way and leave the state alone
    ck_assert_int_eq( cnBody_SetLinearVelocity( keep, cnMakeVec3( NAN, 0, 0 ) ), cn_statusNonFinite );
    ck_assert_int_eq( cnBody_SetTransform( keep, cnMakeVec3( 0, INFINITY, 0 ), cn_quatIdentity ),
                      cn_statusNonFinite );
    ck_assert_int_eq( cnBody_ApplyForce( keep, cnMakeVec3( 1, 0, 0 ), cnMakeVec3( NAN, 0, 0 ) ),
                      cn_statusNonFinite );
    ck_assert_int_eq( cnWorld_SetGravity( s_world, cnMakeVec3( 0, 0, NAN ) ), cn_statusNonFinite );

    ck_assert_int_eq( cnWorld_GetBodyCount( s_world ), before );
    ck_assert( cnBody_GetPosition( keep ).x == 3.0 );
    ck_assert( cnBody_GetLinearVelocity( keep ).x == 0.0 );
    ck_assert_int_eq( cnWorld_Step( s_world, 0.01 ), cn_statusOk );
    ck_assert( isfinite( cnBody_GetPosition( keep ).z ) );
}
END_TEST

// removal keeps the component arrays packed and every surviving id pointing at its own data
START_TEST( removal_keeps_arrays_dense )
{
    enum
    {
        count = 200
    };
    cnBodyId ids[count];
    for ( int i = 0; i < count; ++i )
    {
        char name[16];
        snprintf( name, sizeof( name ), "n%d", i );
        ids[i] = cntMakeBody( (double)i, name );
    }
    // remove every third body, in a scattered order
    int alive = count;
    for ( int k = 0; k < count; ++k )
    {
        int i = ( k * 37 ) % count;
        if ( i % 3 == 0 )
        {
            ck_assert_int_eq( cnDestroyBody( ids[i] ), cn_statusOk );
            alive -= 1;
        }
    }
    ck_assert_int_eq( cnWorld_GetBodyCount( s_world ), alive );

    cnBodyArrays view = cnWorld_GetBodyArrays( s_world );
    ck_assert_int_eq( view.count, alive );
    for ( int row = 0; row < view.count; ++row )
    {
        // each row's id leads back to the same row's data
        ck_assert( cnBody_IsValid( view.ids[row] ) );
        ck_assert( cnBody_GetPosition( view.ids[row] ).x == view.transforms[row].p.x );
    }
    for ( int i = 0; i < count; ++i )
    {
        ck_assert( cnBody_IsValid( ids[i] ) == ( i % 3 != 0 ) );
        if ( i % 3 != 0 )
        {
            char name[16];
            snprintf( name, sizeof( name ), "n%d", i );
            ck_assert_str_eq( cnBody_GetName( ids[i] ), name );
            ck_assert( cnBody_GetPosition( ids[i] ).x == (double)i );
            ck_assert( CN_ID_EQUALS( cnWorld_FindBody( s_world, name ), ids[i] ) );
        }
    }

    cnTransform transforms[count];
    cnBodyId copied[count];
    ck_assert_int_eq( cnWorld_CopyTransforms( s_world, transforms, copied, count ), alive );
    for ( int row = 0; row < alive; ++row )
    {
        ck_assert( CN_ID_EQUALS( copied[row], view.ids[row] ) );
        ck_assert( transforms[row].p.x == view.transforms[row].p.x );
    }
}
END_TEST

START_TEST( names_are_unique_and_bounded )
{
    cnBodyId a = cntMakeBody( 0.0, "crate" );
    ck_assert( cnBody_IsValid( a ) );
    ck_assert( CN_IS_NULL( cntMakeBody( 1.0, "crate" ) ) );
    ck_assert_ptr_nonnull( strstr( s_log.lastMessage, "crate" ) );

    char longName[CN_NAME_CAPACITY + 1];
    memset( longName, 'x', sizeof( longName ) - 1 );
    longName[CN_NAME_CAPACITY] = 0;
    ck_assert( CN_IS_NULL( cntMakeBody( 2.0, longName ) ) );

    // unnamed bodies may be many
    ck_assert( cnBody_IsValid( cntMakeBody( 3.0, NULL ) ) );
    ck_assert( cnBody_IsValid( cntMakeBody( 4.0, "" ) ) );
    ck_assert( CN_IS_NULL( cnWorld_FindBody( s_world, "nobody" ) ) );
}
END_TEST

// the name index survives heavy churn: every live name is found, no dead one is
START_TEST( name_index_under_churn )
{
    enum
    {
        count = 5000
    };
    static cnBodyId ids[count];
    char name[32];
    for ( int i = 0; i < count; ++i )
    {
        snprintf( name, sizeof( name ), "cell-%d", i );
        ids[i] = cntMakeBody( 0.0, name );
        ck_assert( cnBody_IsValid( ids[i] ) );
    }
    // destroy a pseudo-random half, then rename-create some of them again
    unsigned state = 12345u;
    bool alive[count];
    for ( int i = 0; i < count; ++i )
    {
        state = state * 1103515245u + 12345u;
        alive[i] = ( state >> 16 ) % 2 == 0;
        if ( alive[i] == false )
        {
            ck_assert_int_eq( cnDestroyBody( ids[i] ), cn_statusOk );
        }
    }
    for ( int i = 0; i < count; i += 7 )
    {
        if ( alive[i] == false )
        {
            snprintf( name, sizeof( name ), "cell-%d", i );
            ids[i] = cntMakeBody( 1.0, name );
            alive[i] = true;
        }
    }
    for ( int i = 0; i < count; ++i )
    {
        snprintf( name, sizeof( name ), "cell-%d", i );
        cnBodyId found = cnWorld_FindBody( s_world, name );
        if ( alive[i] )
        {
            ck_assert( CN_ID_EQUALS( found, ids[i] ) );
            ck_assert_str_eq( cnBody_GetName( found ), name );
        }
        else
        {
            ck_assert( CN_IS_NULL( found ) );
        }
    }
}
END_TEST

START_TEST( user_data_round_trip )
{
    int token = 42;
    cnBodyDef def = cnDefaultBodyDef();
    def.userData = &token;
    cnBodyId body = cnCreateBody( s_world, &def );
    ck_assert_ptr_eq( cnBody_GetUserData( body ), &token );
    ck_assert_ptr_eq( cnWorld_GetBodyArrays( s_world ).userData[0], &token );
    ck_assert_int_eq( cnBody_SetUserData( body, NULL ), cn_statusOk );
    ck_assert_ptr_null( cnBody_GetUserData( body ) );

    cnShapeDef shapeDef = cnDefaultShapeDef();
    shapeDef.userData = &token;
    cnSphere sphere = { 0.25 };
    cnShapeId shape = cnCreateSphereShape( body, &shapeDef, &sphere );
    ck_assert_ptr_eq( cnShape_GetUserData( shape ), &token );
    ck_assert( CN_ID_EQUALS( cnShape_GetBody( shape ), body ) );
}
END_TEST

// shapes update the body's mass; destroying or reshaping them updates it again
START_TEST( shapes_drive_body_mass )
{
    cnBodyId body = cntMakeBody( 0.0, "compound" );
    cnShapeDef shapeDef = cnDefaultShapeDef();
    shapeDef.material.density = 2.0;
    cnBox box = { { 1.0, 2.0, 3.0 } };
    cnShapeId boxShape = cnCreateBoxShape( body, &shapeDef, &box );
    CNT_ASSERT_REL( cnBody_GetMassData( body ).mass, 2.0 * 48.0, 1e-14 );

    shapeDef.localPose.p = cnMakeVec3( 10.0, 0.0, 0.0 );
    cnSphere sphere = { 1.0 };
    cnShapeId sphereShape = cnCreateSphereShape( body, &shapeDef, &sphere );
    double sphereMass = 2.0 * 4.0 / 3.0 * M_PI;
    cnMassData mass = cnBody_GetMassData( body );
    CNT_ASSERT_REL( mass.mass, 96.0 + sphereMass, 1e-14 );
    CNT_ASSERT_REL( mass.center.x, 10.0 * sphereMass / ( 96.0 + sphereMass ), 1e-14 );

    cnShapeId shapes[4];
    ck_assert_int_eq( cnBody_GetShapes( body, shapes, 4 ), 2 );
    ck_assert( CN_ID_EQUALS( shapes[0], boxShape ) );
    ck_assert( CN_ID_EQUALS( shapes[1], sphereShape ) );

    // grow the sphere: mass follows
    cnGeometry bigger = { .type = cn_sphereShape, .sphere = { 2.0 } };
    ck_assert_int_eq( cnShape_SetGeometry( sphereShape, &bigger ), cn_statusOk );
    CNT_ASSERT_REL( cnBody_GetMassData( body ).mass, 96.0 + 8.0 * sphereMass, 1e-14 );

    // a refused geometry leaves the shape as it was
    cnGeometry bad = { .type = cn_sphereShape, .sphere = { -1.0 } };
    ck_assert_int_eq( cnShape_SetGeometry( sphereShape, &bad ), cn_statusInvalidArgument );
    cnGeometry wrongType = { .type = cn_boxShape, .box = { { 1.0, 1.0, 1.0 } } };
    ck_assert_int_eq( cnShape_SetGeometry( sphereShape, &wrongType ), cn_statusInvalidArgument );
    CNT_ASSERT_REL( cnBody_GetMassData( body ).mass, 96.0 + 8.0 * sphereMass, 1e-14 );

    ck_assert_int_eq( cnDestroyShape( sphereShape ), cn_statusOk );
    ck_assert( cnShape_IsValid( sphereShape ) == false );
    mass = cnBody_GetMassData( body );
    CNT_ASSERT_REL( mass.mass, 96.0, 1e-14 );
    ck_assert( fabs( mass.center.x ) < 1e-14 );
    CNT_ASSERT_REL( mass.inertia.cx.x, 96.0 * ( 4.0 + 9.0 ) / 3.0, 1e-14 );

    // a plane on a dynamic body is refused
    cnPlane plane = { { 0.0, 0.0, 1.0 }, 0.0 };
    ck_assert( CN_IS_NULL( cnCreatePlaneShape( body, &shapeDef, &plane ) ) );
    ck_assert_int_eq( s_log.lastStatus, cn_statusInvalidArgument );
}
END_TEST

// a hull shape gets the mass of the solid it encloses, and follows a density change
START_TEST( hull_shape_mass_follows_density )
{
    cnBodyId body = cntMakeBody( 0.0, "hull" );
    cnShapeDef shapeDef = cnDefaultShapeDef();
    shapeDef.material.density = 3.0;
    shapeDef.localPose.p = cnMakeVec3( 0.0, 0.0, 1.0 );
    // a 2 x 4 x 6 box's corners plus an interior point
    cnVec3 points[9];
    for ( int i = 0; i < 8; ++i )
    {
        points[i] = cnMakeVec3( i & 1 ? 1.0 : -1.0, i & 2 ? 2.0 : -2.0, i & 4 ? 3.0 : -3.0 );
    }
    points[8] = cnMakeVec3( 0.1, 0.2, 0.3 );
    cnShapeId shape = cnCreateHullShape( body, &shapeDef, points, 9 );
    ck_assert( cnShape_IsValid( shape ) );
    cnGeometry g;
    ck_assert_int_eq( cnShape_GetGeometry( shape, &g ), cn_statusOk );
    ck_assert_int_eq( g.hull.pointCount, 8 );

    cnMassData mass = cnBody_GetMassData( body );
    CNT_ASSERT_REL( mass.mass, 3.0 * 48.0, 1e-12 );
    CNT_ASSERT_REL( mass.center.z, 1.0, 1e-12 );
    CNT_ASSERT_REL( mass.inertia.cx.x, 3.0 * 48.0 * ( 4.0 + 9.0 ) / 3.0, 1e-12 );

    cnMaterial material = cnShape_GetMaterial( shape );
    material.density = 6.0;
    ck_assert_int_eq( cnShape_SetMaterial( shape, material ), cn_statusOk );
    CNT_ASSERT_REL( cnBody_GetMassData( body ).mass, 6.0 * 48.0, 1e-12 );
    material.density = -1.0;
    ck_assert_int_eq( cnShape_SetMaterial( shape, material ), cn_statusInvalidArgument );
    CNT_ASSERT_REL( cnBody_GetMassData( body ).mass, 6.0 * 48.0, 1e-12 );

    // a flat hull is refused with the hull's own reason
    for ( int i = 0; i < 8; ++i )
    {
        points[i].z = 0.0;
    }
    points[8].z = 0.0;
    ck_assert( CN_IS_NULL( cnCreateHullShape( body, &shapeDef, points, 9 ) ) );
    ck_assert_ptr_nonnull( strstr( s_log.lastMessage, "one plane" ) );
}
END_TEST

// static bodies have no mass and ignore forces; a dynamic body with no shape gets 1 kg
START_TEST( body_types_and_default_mass )
{
    cnBodyDef def = cnDefaultBodyDef();
    def.type = cn_staticBody;
    cnBodyId ground = cnCreateBody( s_world, &def );
    cnShapeDef shapeDef = cnDefaultShapeDef();
    cnPlane plane = { { 0.0, 0.0, 2.0 }, 4.0 };
    cnShapeId planeShape = cnCreatePlaneShape( ground, &shapeDef, &plane );
    ck_assert( cnShape_IsValid( planeShape ) );
    cnGeometry g;
    ck_assert_int_eq( cnShape_GetGeometry( planeShape, &g ), cn_statusOk );
    ck_assert( g.plane.normal.z == 1.0 && g.plane.offset == 2.0 );
    ck_assert( cnBody_GetMassData( ground ).mass == 0.0 );
    ck_assert_int_eq( cnBody_ApplyForceToCenter( ground, cnMakeVec3( 0, 0, 100 ) ), cn_statusOk );

    def = cnDefaultBodyDef();
    cnBodyId bare = cnCreateBody( s_world, &def );
    ck_assert( cnBody_GetMassData( bare ).mass == 1.0 );

    for ( int i = 0; i < 10; ++i )
    {
        cnWorld_Step( s_world, 0.1 );
    }
    ck_assert( cnBody_GetPosition( ground ).z == 0.0 );
    ck_assert( cnBody_GetPosition( bare ).z < -1.0 );
}
END_TEST

// kinematic bodies move with their velocity and ignore gravity and forces
START_TEST( kinematic_body_moves_with_its_velocity )
{
    cnBodyDef def = cnDefaultBodyDef();
    def.type = cn_kinematicBody;
    def.linearVelocity = cnMakeVec3( 1.0, 0.0, 0.0 );
    def.angularVelocity = cnMakeVec3( 0.0, 0.0, M_PI );
    cnBodyId body = cnCreateBody( s_world, &def );
    cnShapeDef shapeDef = cnDefaultShapeDef();
    cnBox box = { { 1.0, 1.0, 1.0 } };
    cnCreateBoxShape( body, &shapeDef, &box );
    ck_assert_int_eq( cnBody_ApplyForceToCenter( body, cnMakeVec3( 0, 0, 1000 ) ), cn_statusOk );
    for ( int i = 0; i < 100; ++i )
    {
        cnWorld_Step( s_world, 0.01 );
    }
    cnTransform t = cnBody_GetTransform( body );
    CNT_ASSERT_REL( t.p.x, 1.0, 1e-12 );
    ck_assert( t.p.z == 0.0 );
    // a half turn about z
    CNT_ASSERT_REL( fabs( t.q.z ), 1.0, 1e-12 );
}
END_TEST

// Constant force and torque: zero by default; the setters refuse NaN and infinity (logged, nothing
// changed) and stale ids; a bad def names the field; the value follows its body through
// swap-removal and shows in cnBody_GetState.
START_TEST( constant_force_setters_validate )
{
    cnBodyDef def = cnDefaultBodyDef();
    ck_assert( cnLength( def.constantForce ) == 0.0 && cnLength( def.constantTorque ) == 0.0 );
    cnBodyId body = cntMakeBody( 0.0, "pushed" );
    ck_assert( cnLength( cnBody_GetConstantForce( body ) ) == 0.0 );
    ck_assert( cnLength( cnBody_GetConstantTorque( body ) ) == 0.0 );

    cnVec3 force = cnMakeVec3( 1.0, -2.0, 3.0 );
    cnVec3 torque = cnMakeVec3( -0.5, 0.25, 4.0 );
    ck_assert_int_eq( cnBody_SetConstantForce( body, force ), cn_statusOk );
    ck_assert_int_eq( cnBody_SetConstantTorque( body, torque ), cn_statusOk );

    // NaN and infinity: refused, logged with the function's name, the value kept
    cnVec3 bad[3] = { { NAN, 0.0, 0.0 }, { 0.0, INFINITY, 0.0 }, { 0.0, 0.0, -INFINITY } };
    for ( int i = 0; i < 3; ++i )
    {
        s_log.lastMessage[0] = 0;
        ck_assert_int_eq( cnBody_SetConstantForce( body, bad[i] ), cn_statusNonFinite );
        ck_assert_int_eq( s_log.lastStatus, cn_statusNonFinite );
        ck_assert_msg( strstr( s_log.lastMessage, "cnBody_SetConstantForce: value not finite" ) != NULL, "%s",
                       s_log.lastMessage );
        ck_assert_int_eq( cnBody_SetConstantTorque( body, bad[i] ), cn_statusNonFinite );
        ck_assert_msg( strstr( s_log.lastMessage, "cnBody_SetConstantTorque: value not finite" ) != NULL,
                       "%s", s_log.lastMessage );
    }
    ck_assert( cnBody_GetConstantForce( body ).x == 1.0 && cnBody_GetConstantForce( body ).z == 3.0 );
    ck_assert( cnBody_GetConstantTorque( body ).z == 4.0 );

    cnBodyState state;
    ck_assert_int_eq( cnBody_GetState( body, &state ), cn_statusOk );
    ck_assert( state.constantForce.y == -2.0 && state.constantTorque.x == -0.5 );

    // a def with a non-finite constant force or torque: null id, the field named
    def = cnDefaultBodyDef();
    def.constantForce.y = NAN;
    ck_assert( CN_IS_NULL( cnCreateBody( s_world, &def ) ) );
    ck_assert_int_eq( s_log.lastStatus, cn_statusNonFinite );
    ck_assert_msg( strstr( s_log.lastMessage, "constantForce" ) != NULL, "%s", s_log.lastMessage );
    def = cnDefaultBodyDef();
    def.constantTorque.z = INFINITY;
    ck_assert( CN_IS_NULL( cnCreateBody( s_world, &def ) ) );
    ck_assert_msg( strstr( s_log.lastMessage, "constantTorque" ) != NULL, "%s", s_log.lastMessage );

    // from the def; the values move with their body when an earlier row is removed
    def = cnDefaultBodyDef();
    def.constantForce = cnMakeVec3( 7.0, 8.0, 9.0 );
    def.constantTorque = cnMakeVec3( 0.0, 0.0, -1.0 );
    cnBodyId last = cnCreateBody( s_world, &def );
    ck_assert( cnBody_GetConstantForce( last ).y == 8.0 );
    ck_assert_int_eq( cnDestroyBody( body ), cn_statusOk );
    cnBodyArrays view = cnWorld_GetBodyArrays( s_world );
    ck_assert_int_eq( view.count, 1 );
    ck_assert( CN_ID_EQUALS( view.ids[0], last ) );
    ck_assert( cnBody_GetConstantForce( last ).x == 7.0 && cnBody_GetConstantForce( last ).z == 9.0 );
    ck_assert( cnBody_GetConstantTorque( last ).z == -1.0 );

    // the stale id: refused, and the getters give zero
    ck_assert_int_eq( cnBody_SetConstantForce( body, force ), cn_statusInvalidId );
    ck_assert_int_eq( cnBody_SetConstantTorque( body, torque ), cn_statusInvalidId );
    ck_assert( cnLength( cnBody_GetConstantForce( body ) ) == 0.0 );
    ck_assert( cnLength( cnBody_GetConstantTorque( body ) ) == 0.0 );
    ck_assert_int_eq( cnBody_SetConstantForce( cn_nullBodyId, force ), cn_statusInvalidId );
    // a stale id with NaN is still a stale id
    ck_assert_int_eq( cnBody_SetConstantForce( body, bad[0] ), cn_statusInvalidId );
}
END_TEST

// ---- fixed rotation ---------------------------------------------------------------------------------

static cnBodyId cntMakeBall( cnWorldId world, cnVec3 position, double radius, double friction, bool fixed )
{
    cnBodyDef def = cnDefaultBodyDef();
    def.position = position;
    def.fixedRotation = fixed;
    cnBodyId body = cnCreateBody( world, &def );
    ck_assert( cnBody_IsValid( body ) );
    cnShapeDef shapeDef = cnDefaultShapeDef();
    shapeDef.material.friction = friction;
    cnGeometry sphere = cntSphereGeometry( radius );
    ck_assert( CN_IS_NON_NULL( cnCreateShape( body, &shapeDef, &sphere ) ) );
    return body;
}

static bool cntIsZero( cnVec3 v )
{
    return v.x == 0.0 && v.y == 0.0 && v.z == 0.0;
}

// A fixed-rotation body pushed off its centre, or given a torque, keeps an angular velocity of
// exactly zero (inertial and overdamped), while the same push spins a free body; its linear motion
// is the free body's. The def and the setters check the flag.
START_TEST( fixed_rotation_body_never_turns )
{
    cnBodyId free = cntMakeBall( s_world, cnMakeVec3( 0.0, 0.0, 0.0 ), 0.5, 0.6, false );
    cnBodyId fixed = cntMakeBall( s_world, cnMakeVec3( 10.0, 0.0, 0.0 ), 0.5, 0.6, true );
    ck_assert( cnBody_IsFixedRotation( fixed ) );
    ck_assert( cnBody_IsFixedRotation( free ) == false );
    ck_assert( cnBody_IsFixedRotation( cn_nullBodyId ) == false );
    // the mass data still holds the shape's inertia
    CNT_ASSERT_REL( cnBody_GetMassData( fixed ).inertia.cx.x, cnBody_GetMassData( free ).inertia.cx.x, 0.0 );
    ck_assert( cnBody_GetMassData( fixed ).inertia.cx.x > 0.0 );

    for ( int i = 0; i < 3; ++i )
    {
        cnVec3 force = cnMakeVec3( 0.0, 10.0, 0.0 );
        cnVec3 lever = cnMakeVec3( 0.5, 0.0, 0.0 );
        ck_assert_int_eq( cnBody_ApplyForce( free, force, cnAdd( cnBody_GetWorldCenter( free ), lever ) ),
                          cn_statusOk );
        ck_assert_int_eq( cnBody_ApplyForce( fixed, force, cnAdd( cnBody_GetWorldCenter( fixed ), lever ) ),
                          cn_statusOk );
        ck_assert_int_eq( cnBody_ApplyTorque( fixed, cnMakeVec3( 1.0, 2.0, 3.0 ) ), cn_statusOk );
        ck_assert_int_eq( cnWorld_Step( s_world, 1.0 / 60.0 ), cn_statusOk );
        ck_assert_msg( cntIsZero( cnBody_GetAngularVelocity( fixed ) ), "fixed body spins at z %g",
                       cnBody_GetAngularVelocity( fixed ).z );
    }
    ck_assert( cnBody_GetAngularVelocity( free ).z > 0.0 );
    CNT_ASSERT_REL( cnBody_GetLinearVelocity( fixed ).y, cnBody_GetLinearVelocity( free ).y, 1e-12 );
    ck_assert( cnBody_GetLinearVelocity( fixed ).y > 0.0 );
    CNT_ASSERT_REL( cnBody_GetOrientation( fixed ).w, 1.0, 0.0 );

    // a spin is refused for it (logged), zero is fine
    ck_assert_int_eq( cnBody_SetAngularVelocity( fixed, cnMakeVec3( 0.0, 0.0, 1.0 ) ),
                      cn_statusInvalidArgument );
    ck_assert_msg( strstr( s_log.lastMessage, "fixed rotation" ) != NULL, "%s", s_log.lastMessage );
    ck_assert_int_eq( cnBody_SetAngularVelocity( fixed, cn_vec3Zero ), cn_statusOk );
    // so is a def with a spin
    cnBodyDef def = cnDefaultBodyDef();
    def.fixedRotation = true;
    def.angularVelocity = cnMakeVec3( 0.0, 1.0, 0.0 );
    ck_assert( CN_IS_NULL( cnCreateBody( s_world, &def ) ) );
    ck_assert_int_eq( s_log.lastStatus, cn_statusInvalidArgument );
    ck_assert_msg( strstr( s_log.lastMessage, "angularVelocity" ) != NULL, "%s", s_log.lastMessage );

    // the setter: stopping a spinning body zeroes its spin; freeing the other lets it turn
    ck_assert_int_eq( cnBody_SetFixedRotation( free, true ), cn_statusOk );
    ck_assert( cntIsZero( cnBody_GetAngularVelocity( free ) ) && cnBody_IsFixedRotation( free ) );
    ck_assert_int_eq( cnBody_SetFixedRotation( fixed, false ), cn_statusOk );
    ck_assert_int_eq( cnBody_ApplyTorque( fixed, cnMakeVec3( 0.0, 0.0, 3.0 ) ), cn_statusOk );
    ck_assert_int_eq( cnBody_ApplyTorque( free, cnMakeVec3( 0.0, 0.0, 3.0 ) ), cn_statusOk );
    ck_assert_int_eq( cnWorld_Step( s_world, 1.0 / 60.0 ), cn_statusOk );
    ck_assert( cnBody_GetAngularVelocity( fixed ).z > 0.0 );
    ck_assert( cntIsZero( cnBody_GetAngularVelocity( free ) ) );
    ck_assert_int_eq( cnBody_SetFixedRotation( cn_nullBodyId, true ), cn_statusInvalidId );

    // overdamped: omega = M_ang torque for a free body, zero for a fixed one
    ck_assert_int_eq( cnWorld_SetDynamics( s_world, cn_dynamicsOverdamped ), cn_statusOk );
    ck_assert_int_eq( cnBody_ApplyTorque( fixed, cnMakeVec3( 0.0, 0.0, 3.0 ) ), cn_statusOk );
    ck_assert_int_eq( cnBody_ApplyTorque( free, cnMakeVec3( 0.0, 0.0, 3.0 ) ), cn_statusOk );
    ck_assert_int_eq( cnWorld_Step( s_world, 1.0 / 60.0 ), cn_statusOk );
    ck_assert( cnBody_GetAngularVelocity( fixed ).z > 0.0 );
    ck_assert( cntIsZero( cnBody_GetAngularVelocity( free ) ) );
}
END_TEST

// On a slope of 30 degrees (gravity tilted about y) with mu = 0.3: a free ball rolls without
// slipping (mu >= (2/7) tan th = 0.165) at a = (5/7) g sin th; a ball with fixed rotation cannot
// roll, so it slides as a block does, at a = g (sin th - mu cos th), and its angular velocity is
// exactly zero at every step.
START_TEST( fixed_rotation_ball_slides_down_a_slope )
{
    cnWorldDef worldDef = cntWorldDef( NULL, NULL );
    double th = 30.0 * M_PI / 180.0;
    double g = 9.81;
    double mu = 0.3;
    worldDef.gravity = cnMakeVec3( g * sin( th ), 0.0, -g * cos( th ) );
    worldDef.solver.iterations = 30;
    cnWorldId world = cnCreateWorld( &worldDef );
    cnBodyDef groundDef = cnDefaultBodyDef();
    groundDef.type = cn_staticBody;
    cnBodyId ground = cnCreateBody( world, &groundDef );
    cnShapeDef shapeDef = cnDefaultShapeDef();
    shapeDef.material.friction = mu;
    cnGeometry plane = cntPlaneGeometry( cnMakeVec3( 0.0, 0.0, 1.0 ), 0.0 );
    ck_assert( CN_IS_NON_NULL( cnCreateShape( ground, &shapeDef, &plane ) ) );
    cnBodyId rolling = cntMakeBall( world, cnMakeVec3( 0.0, -5.0, 0.5 ), 0.5, mu, false );
    cnBodyId sliding = cntMakeBall( world, cnMakeVec3( 0.0, 5.0, 0.5 ), 0.5, mu, true );

    double dt = 1.0 / 60.0;
    int steps = 90;
    for ( int i = 0; i < steps; ++i )
    {
        ck_assert_int_eq( cnWorld_Step( world, dt ), cn_statusOk );
        ck_assert_msg( cntIsZero( cnBody_GetAngularVelocity( sliding ) ), "step %d: spins", i + 1 );
    }
    double t = steps * dt;
    CNT_ASSERT_REL( cnBody_GetLinearVelocity( sliding ).x, g * ( sin( th ) - mu * cos( th ) ) * t, 0.02 );
    CNT_ASSERT_REL( cnBody_GetLinearVelocity( rolling ).x, 5.0 / 7.0 * g * sin( th ) * t, 0.03 );
    // the free ball rolls: omega_y = v / r
    CNT_ASSERT_REL( cnBody_GetAngularVelocity( rolling ).y, cnBody_GetLinearVelocity( rolling ).x / 0.5,
                    0.03 );
    CNT_ASSERT_ABS( cnBody_GetLinearVelocity( sliding ).z, 0.0, 1e-3 );
    cnDestroyWorld( world );
}
END_TEST

Suite* cntBodySuite( void )
{
    Suite* suite = suite_create( "body" );
    TCase* tc = tcase_create( "handles" );
    tcase_add_checked_fixture( tc, setup, teardown );
    tcase_add_test( tc, stale_body_id_is_detected );
    tcase_add_test( tc, forged_body_ids_are_refused );
    tcase_add_test( tc, non_finite_body_def_is_refused );
    tcase_add_test( tc, removal_keeps_arrays_dense );
    tcase_add_test( tc, names_are_unique_and_bounded );
    tcase_add_test( tc, name_index_under_churn );
    tcase_add_test( tc, user_data_round_trip );
    tcase_add_test( tc, shapes_drive_body_mass );
    tcase_add_test( tc, hull_shape_mass_follows_density );
    tcase_add_test( tc, body_types_and_default_mass );
    tcase_add_test( tc, kinematic_body_moves_with_its_velocity );
    tcase_add_test( tc, constant_force_setters_validate );
    tcase_add_test( tc, fixed_rotation_body_never_turns );
    tcase_add_test( tc, fixed_rotation_ball_slides_down_a_slope );
    suite_add_tcase( suite, tc );
    return suite;
}
