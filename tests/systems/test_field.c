// SPDX-License-Identifier: MIT
// The force fields (demos/systems/field.c): the extensile F(x) = s x (|x| - sin|x|) / |x|^2 and
// the compacting one, its negative, checked against the closed form in long double, and bodies in
// an overdamped world moving at mobility x F.
#include "systems.h"
#include "systems_suites.h"
#include "test_support.h"

#include "cairn/scene.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

// the closed form, in long double: |x| - sin|x| keeps about 19 - 3 log10(1/r) digits
static cnVec3 cntExtensileReference( cnVec3 center, double strength, cnVec3 point )
{
    long double x = (long double)point.x - center.x, y = (long double)point.y - center.y,
                z = (long double)point.z - center.z;
    long double r = sqrtl( x * x + y * y + z * z );
    long double k = (long double)strength * ( r - sinl( r ) ) / ( r * r );
    return cnMakeVec3( (double)( k * x ), (double)( k * y ), (double)( k * z ) );
}

START_TEST( force_matches_closed_form )
{
    cxFieldConfig config = cxDefaultFieldConfig();
    config.center = cnMakeVec3( 0.5, -1.0, 2.0 );
    config.strength = 2.5;
    cntRandom random = { 99 };
    int failures = 0;
    double worst = 0.0;
    // radii from 1e-3 (the series) through 0.5 (the switch) to 1e3
    for ( int i = 0; i < 400; ++i )
    {
        double r = pow( 10.0, cntRange( &random, -3.0, 3.0 ) );
        cnVec3 point = cnMulAdd( config.center, r, cntDirection( &random ) );
        cnVec3 f = cxExtensileForce( &config, point );
        cnVec3 g = cntExtensileReference( config.center, config.strength, point );
        double error = cnLength( cnSub( f, g ) ) / cnLength( g );
        worst = fmax( worst, error );
        // the point itself carries a relative rounding of |center| / r ulps into x
        double tolerance = 1e-13 * fmax( 1.0, cnLength( config.center ) / r );
        failures += error > tolerance ? 1 : 0;
    }
    ck_assert_msg( failures == 0, "%d of 400 points off the closed form (worst relative error %.3g)",
                   failures, worst );

    // zero at the centre, |F| = s r^2 / 6 next to it, radial, and the sign of the strength
    ck_assert( cnLength( cxExtensileForce( &config, config.center ) ) == 0.0 );
    cnVec3 near = cnAdd( config.center, cnMakeVec3( 1e-4, 0.0, 0.0 ) );
    CNT_ASSERT_REL( cxExtensileForce( &config, near ).x, 2.5 * 1e-8 / 6.0, 1e-8 );
    config.strength = -1.0;
    ck_assert( cxExtensileForce( &config, cnMakeVec3( 3.0, -1.0, 2.0 ) ).x < 0.0 );
    // NULL config: the defaults (origin, strength 1)
    CNT_ASSERT_REL( cxExtensileForce( NULL, cnMakeVec3( 2.0, 0.0, 0.0 ) ).x, ( 2.0 - sin( 2.0 ) ) / 2.0,
                    1e-15 );
}
END_TEST

// |F| = s (1 - sin r / r) -> s as r -> infinity
START_TEST( force_tends_to_strength_far_away )
{
    cxFieldConfig config = cxDefaultFieldConfig();
    config.strength = 3.0;
    double radii[] = { 10.0, 1e3, 1e6, 1e9 };
    for ( int i = 0; i < 4; ++i )
    {
        double r = radii[i];
        cnVec3 f = cxExtensileForce( &config, cnMakeVec3( 0.0, r, 0.0 ) );
        CNT_ASSERT_REL( cnLength( f ), 3.0 * ( 1.0 - sin( r ) / r ), 1e-14 );
        CNT_ASSERT_ABS( cnLength( f ), 3.0, 3.0 / r );
        ck_assert( f.y > 0.0 && f.x == 0.0 && f.z == 0.0 );
    }
}
END_TEST

// one body in an overdamped world moves at mobility x F(x), step after step
START_TEST( body_moves_at_mobility_times_force )
{
    cntLogCapture log;
    cnWorldDef def = cntWorldDef( &log, NULL );
    def.dynamics = cn_dynamicsOverdamped;
    def.gravity = cn_vec3Zero;
    def.viscosity = 0.7;
    cnWorldId world = cnCreateWorld( &def );

    cxFieldConfig config = cxDefaultFieldConfig();
    config.center = cnMakeVec3( 1.0, 1.0, 1.0 );
    config.strength = 2.0;
    cxField* field = cxAddExtensileField( world, &config );
    ck_assert_ptr_nonnull( field );

    // a sphere (Stokes drag) and a rod (slender-body drag, rotated: anisotropic in the world frame)
    cnShapeDef shapeDef = cnDefaultShapeDef();
    cnBodyDef bodyDef = cnDefaultBodyDef();
    bodyDef.position = cnMakeVec3( 3.0, -1.0, 2.0 );
    cnBodyId ball = cnCreateBody( world, &bodyDef );
    cnSphere sphere = { 0.5 };
    cnCreateSphereShape( ball, &shapeDef, &sphere );
    bodyDef.position = cnMakeVec3( -20.0, 4.0, 1.5 );
    bodyDef.orientation = cnQuatFromAxisAngle( cnNormalize( cnMakeVec3( 1.0, 2.0, 0.5 ) ), 0.8 );
    cnBodyId rod = cnCreateBody( world, &bodyDef );
    cnCapsule capsule = { 0.25, 1.5 };
    cnCreateCapsuleShape( rod, &shapeDef, &capsule );
    // a static body feels nothing
    cnBodyDef staticDef = cnDefaultBodyDef();
    staticDef.type = cn_staticBody;
    staticDef.position = cnMakeVec3( 0.0, 50.0, 0.0 );
    cnBodyId post = cnCreateBody( world, &staticDef );
    cnCreateSphereShape( post, &shapeDef, &sphere );

    cnBodyId bodies[2] = { ball, rod };
    int failures = 0;
    double worst = 0.0, dt = 0.01;
    for ( int step = 0; step < 20; ++step )
    {
        cnVec3 before[2];
        for ( int k = 0; k < 2; ++k )
        {
            before[k] = cnBody_GetWorldCenter( bodies[k] );
        }
        ck_assert_int_eq( cnWorld_Step( world, dt ), cn_statusOk );
        for ( int k = 0; k < 2; ++k )
        {
            cnMat3 linear;
            cnBody_GetMobility( bodies[k], &linear, NULL );
            cnMat3 world3 = cnRotateTensor( cnBody_GetOrientation( bodies[k] ), linear );
            cnVec3 expected = cnMulMV( world3, cntExtensileReference( config.center, 2.0, before[k] ) );
            cnVec3 v = cnBody_GetLinearVelocity( bodies[k] );
            double error = cnLength( cnSub( v, expected ) ) / cnLength( expected );
            // and the body moved by v dt
            cnVec3 moved = cnSub( cnBody_GetWorldCenter( bodies[k] ), before[k] );
            double moveError = cnLength( cnSub( moved, cnScale( dt, v ) ) ) / ( dt * cnLength( v ) );
            worst = fmax( worst, fmax( error, moveError ) );
            failures += error > 1e-12 || moveError > 1e-9 ? 1 : 0;
        }
    }
    ck_assert_msg( failures == 0, "%d of 40 velocities off mobility x F (worst relative error %.3g)",
                   failures, worst );
    ck_assert( cnLength( cnBody_GetLinearVelocity( post ) ) == 0.0 );

    // the sphere's drag is Stokes': v = F / (6 pi eta r), exactly
    cnVec3 at = cnBody_GetWorldCenter( ball );
    cnWorld_Step( world, dt );
    cnVec3 stokes =
        cnScale( 1.0 / ( 6.0 * M_PI * 0.7 * 0.5 ), cntExtensileReference( config.center, 2.0, at ) );
    CNT_ASSERT_REL( cnBody_GetLinearVelocity( ball ).x, stokes.x, 1e-12 );
    CNT_ASSERT_REL( cnBody_GetLinearVelocity( ball ).y, stokes.y, 1e-12 );

    // one field per world; removal frees it and clears the tracked pointer
    ck_assert_ptr_null( cxAddExtensileField( world, &config ) );
    ck_assert_msg( strstr( log.lastMessage, "one field per world" ) != NULL, "%s", log.lastMessage );
    cxField* tracked = field;
    cxField_TrackPointer( field, &tracked );
    ck_assert_int_eq( cnWorld_RemoveSystem( world, CX_FIELD_SYSTEM_NAME ), cn_statusOk );
    ck_assert_ptr_null( tracked );
    cnWorld_Step( world, dt );
    ck_assert( cnLength( cnBody_GetLinearVelocity( ball ) ) == 0.0 );
    cnDestroyWorld( world );
}
END_TEST

START_TEST( field_handler )
{
    cnWorldDef def = cnDefaultWorldDef();
    def.dynamics = cn_dynamicsOverdamped;
    def.gravity = cn_vec3Zero;
    cnWorldId world = cnCreateWorld( &def );
    static const struct
    {
        const char* config;
        const char* prefix;
    } cases[] = {
        { "{ \"strength\": ", "extensile_field: JSON syntax error" },
        { "\"strong\"", "extensile_field: expected an object" },
        { "{ \"strenght\": 1 }", "strenght: unknown key" },
        { "{ \"strength\": \"big\" }", "strength: expected a finite number" },
        { "{ \"center\": [1, 2] }", "center: expected an array of 3 finite numbers, got an array of 2" },
        { "{ \"center\": [1, \"a\", 2] }", "center: expected an array of 3 finite numbers" },
        { "{ \"center\": 0 }", "center: expected an array of 3 finite numbers, got 0" },
        { "{ \"center\": [0, 0, 0], \"center\": [1, 1, 1] }", "center: key given twice" },
    };
    int failures = 0;
    char report[1024] = "";
    char message[256];
    for ( int i = 0; i < (int)( sizeof( cases ) / sizeof( cases[0] ) ); ++i )
    {
        cxSceneSystems systems = { NULL, NULL };
        cnStatus status =
            cxFieldSceneHandler( world, cases[i].config, &systems, message, (int)sizeof( message ) );
        if ( status == cn_statusOk || strncmp( message, cases[i].prefix, strlen( cases[i].prefix ) ) != 0 ||
             systems.field != NULL )
        {
            failures += 1;
            size_t used = strlen( report );
            snprintf( report + used, sizeof( report ) - used, "\n  %s -> %s, \"%s\"", cases[i].config,
                      cnStatusName( status ), message );
        }
    }
    ck_assert_msg( failures == 0, "%d bad configs not refused as expected:%s", failures, report );

    cxFieldConfig bad = cxDefaultFieldConfig();
    bad.strength = NAN;
    ck_assert_int_ne( cxValidateFieldConfig( &bad, message, (int)sizeof( message ) ), cn_statusOk );
    ck_assert_msg( strncmp( message, "strength:", 9 ) == 0, "%s", message );

    cxSceneSystems systems = { NULL, NULL };
    cnStatus status = cxFieldSceneHandler( world, "{ \"center\": [0, 0, 1], \"strength\": -0.5 }", &systems,
                                           message, (int)sizeof( message ) );
    ck_assert_msg( status == cn_statusOk, "%s", message );
    ck_assert_ptr_nonnull( systems.field );
    cxFieldConfig config = cxField_GetConfig( systems.field );
    ck_assert( config.center.x == 0.0 && config.center.y == 0.0 && config.center.z == 1.0 );
    ck_assert( config.strength == -0.5 );
    cnDestroyWorld( world );
    ck_assert_ptr_null( systems.field );
}
END_TEST

// |F| = |s| (1 - sin r / r) = |s| (r^2/6 - r^4/120 + ...): r^2/6 near the centre, not r^3/6
START_TEST( magnitude_grows_as_r_squared_over_six )
{
    cxFieldConfig config = cxDefaultFieldConfig();
    config.strength = 1.5;
    double radii[] = { 1e-6, 1e-4, 1e-2 };
    for ( int i = 0; i < 3; ++i )
    {
        double r = radii[i];
        double magnitude = cnLength( cxExtensileForce( &config, cnMakeVec3( 0.0, 0.0, r ) ) );
        // the next term of the series is r^4 / 120, a relative r^2 / 20
        CNT_ASSERT_REL( magnitude, 1.5 * r * r / 6.0, 0.06 * r * r );
        CNT_ASSERT_REL( cnLength( cxCompactingForce( &config, cnMakeVec3( 0.0, 0.0, r ) ) ), magnitude, 0.0 );
    }
}
END_TEST

// the compacting field is the extensile one reversed, bit for bit, and matches
// F(x) = -s x (|x| - sin|x|) / |x|^2 in long double
START_TEST( compacting_force_is_the_extensile_one_reversed )
{
    cxFieldConfig config = cxDefaultFieldConfig();
    config.center = cnMakeVec3( -1.0, 0.5, 2.0 );
    config.strength = 1.75;
    cntRandom random = { 7 };
    int failures = 0;
    double worst = 0.0;
    for ( int i = 0; i < 400; ++i )
    {
        double r = pow( 10.0, cntRange( &random, -3.0, 3.0 ) );
        cnVec3 point = cnMulAdd( config.center, r, cntDirection( &random ) );
        cnVec3 pull = cxCompactingForce( &config, point );
        cnVec3 push = cxExtensileForce( &config, point );
        failures += pull.x == -push.x && pull.y == -push.y && pull.z == -push.z ? 0 : 1;
        cnVec3 g = cntExtensileReference( config.center, -config.strength, point );
        worst = fmax( worst, cnLength( cnSub( pull, g ) ) / cnLength( g ) );
        // inward: against x - center
        failures += cnDot( pull, cnSub( point, config.center ) ) < 0.0 ? 0 : 1;
    }
    ck_assert_msg( failures == 0, "%d of 800 checks failed", failures );
    // as for the extensile field: the point carries |center| / r ulps into x; r >= 1e-3 here
    ck_assert_msg( worst <= 1e-13 * cnLength( config.center ) / 1e-3, "worst relative error %.3g", worst );
    // zero at the centre; NULL config: the defaults, pulling in
    ck_assert( cnLength( cxCompactingForce( &config, config.center ) ) == 0.0 );
    CNT_ASSERT_REL( cxCompactingForce( NULL, cnMakeVec3( 2.0, 0.0, 0.0 ) ).x, -( 2.0 - sin( 2.0 ) ) / 2.0,
                    1e-15 );
}
END_TEST

// a body at distance r from the centre of a compacting field moves toward it at
// M F = -M s x (r - sin r) / r^2, step after step (the ReLCP paper's section 7.2 suspension)
START_TEST( compacting_field_pulls_bodies_in )
{
    cnWorldDef def = cnDefaultWorldDef();
    def.dynamics = cn_dynamicsOverdamped;
    def.gravity = cn_vec3Zero;
    def.viscosity = 0.5;
    cnWorldId world = cnCreateWorld( &def );

    cxFieldConfig config = cxDefaultFieldConfig();
    config.center = cnMakeVec3( 1.0, -2.0, 0.5 );
    config.strength = 3.0;
    cxField* field = cxAddCompactingField( world, &config );
    ck_assert_ptr_nonnull( field );
    ck_assert_int_eq( cxField_GetKind( field ), cx_compactingField );
    // the settings as given: a positive strength, pulling in
    ck_assert( cxField_GetConfig( field ).strength == 3.0 );

    cnBodyDef bodyDef = cnDefaultBodyDef();
    double r = 7.5;
    cnVec3 direction = cnNormalize( cnMakeVec3( 2.0, -1.0, 2.0 ) );
    bodyDef.position = cnMulAdd( config.center, r, direction );
    cnBodyId ball = cnCreateBody( world, &bodyDef );
    cnShapeDef shapeDef = cnDefaultShapeDef();
    double radius = 0.4;
    cnSphere sphere = { radius };
    cnCreateSphereShape( ball, &shapeDef, &sphere );
    double mobility = 1.0 / ( 6.0 * M_PI * 0.5 * radius );

    // the first step, in numbers: speed M s (1 - sin r / r), straight in
    ck_assert_int_eq( cnWorld_Step( world, 0.05 ), cn_statusOk );
    cnVec3 v0 = cnBody_GetLinearVelocity( ball );
    CNT_ASSERT_REL( cnLength( v0 ), mobility * 3.0 * ( 1.0 - sin( r ) / r ), 1e-14 );
    CNT_ASSERT_REL( cnDot( v0, direction ), -cnLength( v0 ), 1e-14 );

    double worst = 0.0, dt = 0.05;
    double distance = cnLength( cnSub( cnBody_GetWorldCenter( ball ), config.center ) );
    ck_assert( distance < r );
    for ( int step = 0; step < 50; ++step )
    {
        cnVec3 before = cnBody_GetWorldCenter( ball );
        ck_assert_int_eq( cnWorld_Step( world, dt ), cn_statusOk );
        cnVec3 x = cnSub( before, config.center );
        double rr = cnLength( x );
        cnVec3 expected = cnScale( -mobility * 3.0 * ( rr - sin( rr ) ) / ( rr * rr ), x );
        cnVec3 v = cnBody_GetLinearVelocity( ball );
        worst = fmax( worst, cnLength( cnSub( v, expected ) ) / cnLength( expected ) );
        double now = cnLength( cnSub( cnBody_GetWorldCenter( ball ), config.center ) );
        ck_assert_msg( now < distance, "step %d: distance %.17g, was %.17g", step, now, distance );
        distance = now;
    }
    ck_assert_msg( worst <= 1e-12, "velocity off M F by %.3g (relative)", worst );
    cnDestroyWorld( world );
}
END_TEST

// one field per world, extensile or compacting: through the API and through a scene's "systems",
// where the second field's entry fails the load with a message naming both
START_TEST( one_field_per_world_of_either_kind )
{
    cntLogCapture log;
    cnWorldDef def = cntWorldDef( &log, NULL );
    def.dynamics = cn_dynamicsOverdamped;
    cnWorldId world = cnCreateWorld( &def );
    cxFieldConfig config = cxDefaultFieldConfig();
    ck_assert_ptr_nonnull( cxAddCompactingField( world, &config ) );
    ck_assert_ptr_null( cxAddExtensileField( world, &config ) );
    ck_assert_msg( strstr( log.lastMessage, "one field per world" ) != NULL, "%s", log.lastMessage );
    ck_assert_ptr_null( cxAddCompactingField( world, &config ) );
    ck_assert_msg( strstr( log.lastMessage,
                           "cxAddCompactingField: compacting_field: the world has a force field" ) != NULL,
                   "%s", log.lastMessage );
    cnDestroyWorld( world );

    // the handler table: compacting_field next to extensile_field
    cxSceneSystems systems = { NULL, NULL };
    cnSceneSystem handlers[CX_SCENE_SYSTEM_COUNT];
    ck_assert_int_eq( CX_SCENE_SYSTEM_COUNT, 3 );
    ck_assert_int_eq( cxGetSceneSystems( &systems, handlers, CX_SCENE_SYSTEM_COUNT ), 3 );
    ck_assert_str_eq( handlers[1].name, "extensile_field" );
    ck_assert_str_eq( handlers[2].name, "compacting_field" );

    static const char scene[] =
        "{ \"world\": { \"gravity\": [0, 0, 0], \"dynamics\": \"overdamped\" },"
        "  \"bodies\": [ { \"position\": [4, 0, 0],"
        "                \"shapes\": [ { \"type\": \"sphere\", \"radius\": 0.5 } ] } ],"
        "  \"systems\": { %s } }";
    cnSceneOptions options = cnDefaultSceneOptions();
    options.systems = handlers;
    options.systemCount = CX_SCENE_SYSTEM_COUNT;
    char json[1024];
    cnScene loaded;
    cnSceneError error;

    // alone: loads, pulls in
    snprintf( json, sizeof( json ), scene, "\"compacting_field\": { \"strength\": 2 }" );
    cnStatus status = cnLoadSceneString( json, strlen( json ), "field.json", &options, &loaded, &error );
    ck_assert_msg( status == cn_statusOk, "%s", error.text );
    ck_assert_ptr_nonnull( systems.field );
    ck_assert_int_eq( cxField_GetKind( systems.field ), cx_compactingField );
    ck_assert_int_eq( cnWorld_Step( loaded.worldId, 0.01 ), cn_statusOk );
    cnBodyArrays bodies = cnWorld_GetBodyArrays( loaded.worldId );
    double expected = -( 2.0 * ( 4.0 - sin( 4.0 ) ) / 4.0 ) / ( 6.0 * M_PI * 1.0 * 0.5 );
    CNT_ASSERT_REL( bodies.linearVelocities[0].x, expected, 1e-13 );
    cnDestroyWorld( loaded.worldId );
    ck_assert_ptr_null( systems.field );

    // both, in either order: the second one fails the load and names the first
    const char* both[2] = { "\"extensile_field\": {}, \"compacting_field\": { \"strength\": 2 }",
                            "\"compacting_field\": {}, \"extensile_field\": { \"strength\": 2 }" };
    const char* expectedText[2] = {
        "systems.compacting_field: compacting_field: the scene has extensile_field as well: one field per "
        "world, so give extensile_field or compacting_field, not both",
        "systems.extensile_field: extensile_field: the scene has compacting_field as well: one field per "
        "world, so give extensile_field or compacting_field, not both",
    };
    for ( int i = 0; i < 2; ++i )
    {
        snprintf( json, sizeof( json ), scene, both[i] );
        status = cnLoadSceneString( json, strlen( json ), "both.json", &options, &loaded, &error );
        ck_assert_int_ne( status, cn_statusOk );
        ck_assert_msg( strstr( error.text, expectedText[i] ) != NULL, "%s", error.text );
        ck_assert_ptr_null( systems.field );
    }

    // without a context the message still says what is wrong
    world = cnCreateWorld( &def );
    char message[256];
    ck_assert_int_eq( cxFieldSceneHandler( world, "{}", NULL, message, (int)sizeof( message ) ),
                      cn_statusOk );
    ck_assert_int_ne( cxCompactingFieldSceneHandler( world, "{}", NULL, message, (int)sizeof( message ) ),
                      cn_statusOk );
    ck_assert_msg( strstr( message, "compacting_field: the world has a force field already" ) != NULL, "%s",
                   message );
    // bad settings are refused under the compacting name
    cnWorldId other = cnCreateWorld( &def );
    ck_assert_int_ne(
        cxCompactingFieldSceneHandler( other, "{ \"strength\": ", NULL, message, (int)sizeof( message ) ),
        cn_statusOk );
    ck_assert_msg( strncmp( message, "compacting_field: JSON syntax error", 35 ) == 0, "%s", message );
    cnDestroyWorld( other );
    cnDestroyWorld( world );
}
END_TEST

Suite* cntFieldSuite( void )
{
    Suite* suite = suite_create( "extensile_field" );
    TCase* tc = tcase_create( "field" );
    tcase_add_test( tc, force_matches_closed_form );
    tcase_add_test( tc, force_tends_to_strength_far_away );
    tcase_add_test( tc, body_moves_at_mobility_times_force );
    tcase_add_test( tc, field_handler );
    tcase_add_test( tc, magnitude_grows_as_r_squared_over_six );
    tcase_add_test( tc, compacting_force_is_the_extensile_one_reversed );
    tcase_add_test( tc, compacting_field_pulls_bodies_in );
    tcase_add_test( tc, one_field_per_world_of_either_kind );
    suite_add_tcase( suite, tc );
    return suite;
}
