// SPDX-License-Identifier: MIT
// The contact pipeline inside a world: broadphase, narrowphase, the contact cache, its events.
#include "contact_suites.h"
#include "test_support.h"

#include <math.h>
#include <string.h>

static cnWorldId s_world;
static cntLogCapture s_log;
static cnBodyId s_ground;

// a world without gravity (nothing acts on the contacts yet) and a static ground plane z = 0. Its
// relax pass runs up to 10 sweeps instead of the default 3: in zero gravity what a short relax
// leaves of a push-out stays as a drift that nothing stops (2.7 mm/s for the box below; the
// dynamics tests measure it, docs/solvers.md), and these tests are about contact features
static void setup( void )
{
    cnWorldDef def = cntWorldDef( &s_log, NULL );
    def.gravity = cn_vec3Zero;
    def.relaxIterations = 10;
    s_world = cnCreateWorld( &def );
    cnBodyDef bodyDef = cnDefaultBodyDef();
    bodyDef.type = cn_staticBody;
    bodyDef.name = "ground";
    s_ground = cnCreateBody( s_world, &bodyDef );
    cnShapeDef shapeDef = cnDefaultShapeDef();
    cnPlane plane = { { 0.0, 0.0, 1.0 }, 0.0 };
    cnCreatePlaneShape( s_ground, &shapeDef, &plane );
}

static void teardown( void )
{
    cnDestroyWorld( s_world );
}

static cnBodyId cntDynamicBody( cnVec3 position, cnQuat orientation, const cnGeometry* geometry )
{
    cnBodyDef bodyDef = cnDefaultBodyDef();
    bodyDef.position = position;
    bodyDef.orientation = orientation;
    cnBodyId body = cnCreateBody( s_world, &bodyDef );
    cnShapeDef shapeDef = cnDefaultShapeDef();
    ck_assert( CN_IS_NON_NULL( cnCreateShape( body, &shapeDef, geometry ) ) );
    return body;
}

// the single contact of the world, which must exist
static cnContactData cntOnlyContact( void )
{
    cnContactData contacts[4];
    int count = cnWorld_GetContacts( s_world, contacts, 4 );
    ck_assert_int_eq( count, 1 );
    return contacts[0];
}

// a unit box resting 1 cm deep in the ground: four points at its bottom corners, all 1 cm deep,
// normal up (from the ground, created first, to the box); the same features over 1,000 steps
// while the solver lifts it out
START_TEST( box_rests_on_plane_with_four_stable_points )
{
    cnGeometry box = { .type = cn_boxShape, .box = { { 0.5, 0.5, 0.5 } } };
    cntDynamicBody( cnMakeVec3( 2.0, -1.0, 0.49 ), cn_quatIdentity, &box );
    ck_assert_int_eq( cnWorld_UpdateContacts( s_world ), cn_statusOk );
    cnContactData c = cntOnlyContact();
    ck_assert_int_eq( c.pointCount, 4 );
    CNT_ASSERT_ABS( c.normal.z, 1.0, 1e-12 );
    uint32_t ids[4];
    for ( int k = 0; k < 4; ++k )
    {
        CNT_ASSERT_ABS( c.points[k].separation, -0.01, 1e-9 );
        CNT_ASSERT_ABS( fabs( c.points[k].point.x - 2.0 ), 0.5, 1e-9 );
        CNT_ASSERT_ABS( fabs( c.points[k].point.y + 1.0 ), 0.5, 1e-9 );
        CNT_ASSERT_ABS( c.points[k].point.z, -0.005, 1e-9 );
        ids[k] = c.points[k].id;
        for ( int j = 0; j < k; ++j )
        {
            ck_assert_uint_ne( ids[j], ids[k] );
        }
    }
    ck_assert_str_eq( cnBody_GetName( c.bodyA ), "ground" );

    for ( int step = 0; step < 1000; ++step )
    {
        ck_assert_int_eq( cnWorld_Step( s_world, 1.0 / 60.0 ), cn_statusOk );
        c = cntOnlyContact();
        int same = c.pointCount == 4;
        for ( int k = 0; k < 4 && same; ++k )
        {
            same = c.points[k].id == ids[k];
        }
        ck_assert_msg( same, "step %d: the feature ids changed", step );
    }
    cnStepReport report = cnWorld_GetStepReport( s_world );
    ck_assert_int_eq( report.contactCount, 4 );
    ck_assert_int_eq( report.manifoldCount, 1 );
    // the solver's soft contacts pushed the box out (to within a millimetre: there is no slop)
    ck_assert_msg( report.maxPenetration < 1e-3, "penetration %g m", report.maxPenetration );
}
END_TEST

// a capsule lying on the ground touches along its segment: two points
START_TEST( lying_capsule_has_two_points )
{
    cnGeometry capsule = { .type = cn_capsuleShape, .capsule = { 0.25, 1.0 } };
    cnQuat lying = cnQuatFromAxisAngle( cnMakeVec3( 1.0, 0.0, 0.0 ), 0.5 * CN_PI );
    cntDynamicBody( cnMakeVec3( 0.0, 0.0, 0.245 ), lying, &capsule );
    ck_assert_int_eq( cnWorld_UpdateContacts( s_world ), cn_statusOk );
    cnContactData c = cntOnlyContact();
    ck_assert_int_eq( c.pointCount, 2 );
    CNT_ASSERT_ABS( c.normal.z, 1.0, 1e-12 );
    for ( int k = 0; k < 2; ++k )
    {
        CNT_ASSERT_ABS( c.points[k].separation, -0.005, 1e-9 );
        CNT_ASSERT_ABS( fabs( c.points[k].point.y ), 1.0, 1e-9 );
    }
}
END_TEST

// a sphere touches at one point; a box lying on a bigger box's top face at four
START_TEST( sphere_one_point_box_on_box_four )
{
    cnGeometry sphere = { .type = cn_sphereShape, .sphere = { 0.5 } };
    cntDynamicBody( cnMakeVec3( -5.0, 0.0, 0.499 ), cn_quatIdentity, &sphere );

    // a big static slab, top face at z = 1, far from the sphere, and a small box on it
    cnBodyDef slabDef = cnDefaultBodyDef();
    slabDef.type = cn_staticBody;
    slabDef.position = cnMakeVec3( 10.0, 0.0, 0.5 );
    cnBodyId slab = cnCreateBody( s_world, &slabDef );
    cnShapeDef shapeDef = cnDefaultShapeDef();
    cnBox slabBox = { { 3.0, 3.0, 0.5 } };
    cnCreateBoxShape( slab, &shapeDef, &slabBox );
    cnGeometry small = { .type = cn_boxShape, .box = { { 0.5, 0.25, 0.25 } } };
    cnQuat turned = cnQuatFromAxisAngle( cnMakeVec3( 0.0, 0.0, 1.0 ), CN_PI / 6.0 );
    cntDynamicBody( cnMakeVec3( 10.5, 0.3, 1.248 ), turned, &small );

    ck_assert_int_eq( cnWorld_UpdateContacts( s_world ), cn_statusOk );
    cnContactData contacts[4];
    ck_assert_int_eq( cnWorld_GetContacts( s_world, contacts, 4 ), 2 );
    int spheres = 0;
    int boxes = 0;
    for ( int i = 0; i < 2; ++i )
    {
        const cnContactData* c = contacts + i;
        if ( cnShape_GetType( c->shapeB ) == cn_sphereShape ||
             cnShape_GetType( c->shapeA ) == cn_sphereShape )
        {
            spheres += 1;
            ck_assert_int_eq( c->pointCount, 1 );
            CNT_ASSERT_ABS( c->points[0].separation, -0.001, 1e-9 );
            CNT_ASSERT_ABS( c->points[0].point.x, -5.0, 1e-9 );
        }
        else
        {
            boxes += 1;
            ck_assert_int_eq( c->pointCount, 4 );
            // the normal points from shape A to shape B: the slab was created before the small box
            CNT_ASSERT_ABS( c->normal.z, 1.0, 1e-9 );
            for ( int k = 0; k < 4; ++k )
            {
                CNT_ASSERT_ABS( c->points[k].separation, -0.002, 1e-9 );
            }
        }
    }
    ck_assert_int_eq( spheres, 1 );
    ck_assert_int_eq( boxes, 1 );
}
END_TEST

// a ball thrown at a fixed ball bounces off elastically: the contact begins once and ends once
START_TEST( begin_and_end_events )
{
    cnGeometry sphere = { .type = cn_sphereShape, .sphere = { 0.5 } };
    cnBodyDef postDef = cnDefaultBodyDef();
    postDef.type = cn_staticBody;
    postDef.position = cnMakeVec3( 0.0, 0.0, 5.0 );
    cnBodyId post = cnCreateBody( s_world, &postDef );
    cnShapeDef shapeDef = cnDefaultShapeDef();
    cnShapeId postShape = cnCreateShape( post, &shapeDef, &sphere );

    cnBodyDef ballDef = cnDefaultBodyDef();
    ballDef.position = cnMakeVec3( -3.0, 0.0, 5.0 );
    ballDef.linearVelocity = cnMakeVec3( 2.0, 0.0, 0.0 );
    cnBodyId ball = cnCreateBody( s_world, &ballDef );
    shapeDef.material.restitution = 1.0;
    cnCreateShape( ball, &shapeDef, &sphere );

    int begins = 0;
    int ends = 0;
    double beganAt = 0.0;
    for ( int step = 0; step < 300; ++step )
    {
        ck_assert_int_eq( cnWorld_Step( s_world, 0.01 ), cn_statusOk );
        cnContactEvents events = cnWorld_GetContactEvents( s_world );
        for ( int i = 0; i < events.beginCount; ++i )
        {
            ck_assert( CN_ID_EQUALS( events.beginEvents[i].shapeA, postShape ) ||
                       CN_ID_EQUALS( events.beginEvents[i].shapeB, postShape ) );
            begins += 1;
            beganAt = cnBody_GetPosition( ball ).x;
        }
        ends += events.endCount;
    }
    ck_assert_int_eq( begins, 1 );
    ck_assert_int_eq( ends, 1 );
    // contacts are found within the speculative margin, so the centres are about a diameter apart
    ck_assert_msg( beganAt > -1.0 - 0.02 - 0.021 && beganAt < -1.0 + 0.001, "began at x = %g", beganAt );
    // an elastic bounce off a fixed ball: the ball comes back at the speed it came in
    CNT_ASSERT_REL( cnBody_GetLinearVelocity( ball ).x, -2.0, 1e-9 );
}
END_TEST

// destroying a body ends its contacts; a new shape in the same slot starts afresh
START_TEST( destroyed_shapes_end_their_contacts )
{
    cnGeometry box = { .type = cn_boxShape, .box = { { 0.5, 0.5, 0.5 } } };
    cnBodyId body = cntDynamicBody( cnMakeVec3( 0.0, 0.0, 0.49 ), cn_quatIdentity, &box );
    ck_assert_int_eq( cnWorld_UpdateContacts( s_world ), cn_statusOk );
    ck_assert_int_eq( cnWorld_GetContactEvents( s_world ).beginCount, 1 );
    cnShapeId shape;
    ck_assert_int_eq( cnBody_GetShapes( body, &shape, 1 ), 1 );

    ck_assert_int_eq( cnDestroyBody( body ), cn_statusOk );
    cnBodyId replacement = cntDynamicBody( cnMakeVec3( 0.0, 0.0, 0.45 ), cn_quatIdentity, &box );
    ck_assert_int_eq( cnWorld_UpdateContacts( s_world ), cn_statusOk );
    cnContactEvents events = cnWorld_GetContactEvents( s_world );
    ck_assert_int_eq( events.endCount, 1 );
    ck_assert( CN_ID_EQUALS( events.endEvents[0].shapeB, shape ) );
    ck_assert_int_eq( events.beginCount, 1 );
    ck_assert( cnShape_IsValid( events.beginEvents[0].shapeB ) );
    cnContactData c = cntOnlyContact();
    ck_assert( CN_ID_EQUALS( c.bodyB, replacement ) );
    CNT_ASSERT_ABS( c.points[0].separation, -0.05, 1e-9 );
    ck_assert( c.points[0].normalImpulse == 0.0 );
}
END_TEST

// shapes that share a body, static pairs, and masked-out pairs never collide
START_TEST( filtered_pairs_do_not_collide )
{
    cnBodyDef bodyDef = cnDefaultBodyDef();
    bodyDef.position = cnMakeVec3( 0.0, 0.0, 3.0 );
    cnBodyId body = cnCreateBody( s_world, &bodyDef );
    cnShapeDef shapeDef = cnDefaultShapeDef();
    cnSphere sphere = { 0.5 };
    cnCreateSphereShape( body, &shapeDef, &sphere );
    shapeDef.localPose.p = cnMakeVec3( 0.3, 0.0, 0.0 );
    cnCreateSphereShape( body, &shapeDef, &sphere ); // overlaps its sibling

    bodyDef.type = cn_staticBody;
    bodyDef.position = cnMakeVec3( 0.0, 0.0, -0.2 );
    cnBodyId buried = cnCreateBody( s_world, &bodyDef ); // static, inside the static ground
    shapeDef.localPose = cn_transformIdentity;
    cnCreateSphereShape( buried, &shapeDef, &sphere );

    bodyDef.type = cn_dynamicBody;
    bodyDef.position = cnMakeVec3( 5.0, 0.0, 0.2 );
    cnBodyId ghost = cnCreateBody( s_world, &bodyDef );
    shapeDef.categoryBits = 2;
    shapeDef.maskBits = ~1u; // ignores the ground's category 1
    cnCreateSphereShape( ghost, &shapeDef, &sphere );

    ck_assert_int_eq( cnWorld_UpdateContacts( s_world ), cn_statusOk );
    ck_assert_int_eq( cnWorld_GetContactCount( s_world ), 0 );
}
END_TEST

// a torus lying flat on the ground, 5 cm into it, touches along its whole lower circle: the contact
// spans it with 4 points at the same depth, 90 degrees apart, and no warning is raised
START_TEST( torus_lying_on_ground_touches_along_a_circle )
{
    cnGeometry torus = { .type = cn_torusShape, .torus = { 1.0, 0.25 } };
    cntDynamicBody( cnMakeVec3( 0.0, 0.0, 0.2 ), cn_quatIdentity, &torus );
    ck_assert_int_eq( cnWorld_UpdateContacts( s_world ), cn_statusOk );
    ck_assert_int_eq( cnWorld_GetContactCount( s_world ), 1 );
    cnContactData data;
    ck_assert_int_eq( cnWorld_GetContacts( s_world, &data, 1 ), 1 );
    ck_assert_int_eq( data.pointCount, 4 );
    for ( int i = 0; i < data.pointCount; ++i )
    {
        ck_assert_double_eq_tol( data.points[i].separation, -0.05, 1e-12 );
        ck_assert_double_eq_tol( fabs( data.points[i].normal.z ), 1.0, 1e-12 );
        double rho = hypot( data.points[i].point.x, data.points[i].point.y );
        ck_assert_double_eq_tol( rho, 1.0, 1e-12 ); // under the tube's centre circle
        for ( int j = 0; j < i; ++j )
        {
            // spread around the ring: at least a quarter turn apart (chord sqrt(2) R)
            double chord = cnLength( cnSub( data.points[i].point, data.points[j].point ) );
            ck_assert( chord > 1.41 );
        }
    }
    ck_assert_int_eq( s_log.warningCount, 0 );
}
END_TEST

// a static world of many bodies: a falling box meets only the ones near it
START_TEST( many_static_bodies )
{
    cnShapeDef shapeDef = cnDefaultShapeDef();
    cnBox tile = { { 0.45, 0.45, 0.1 } };
    for ( int i = 0; i < 2500; ++i )
    {
        cnBodyDef bodyDef = cnDefaultBodyDef();
        bodyDef.type = cn_staticBody;
        bodyDef.position = cnMakeVec3( i % 50, i / 50, 10.0 );
        cnBodyId body = cnCreateBody( s_world, &bodyDef );
        cnCreateBoxShape( body, &shapeDef, &tile );
    }
    cnGeometry box = { .type = cn_boxShape, .box = { { 0.5, 0.5, 0.5 } } };
    cntDynamicBody( cnMakeVec3( 20.5, 20.5, 10.55 ), cn_quatIdentity, &box );
    ck_assert_int_eq( cnWorld_UpdateContacts( s_world ), cn_statusOk );
    // the box's bottom face (z = 10.05) dips 5 cm into the four tiles around (20.5, 20.5)
    cnContactData contacts[8];
    ck_assert_int_eq( cnWorld_GetContacts( s_world, contacts, 8 ), 4 );
    for ( int i = 0; i < 4; ++i )
    {
        CNT_ASSERT_ABS( contacts[i].normal.z, 1.0, 1e-9 );
        for ( int k = 0; k < contacts[i].pointCount; ++k )
        {
            CNT_ASSERT_ABS( contacts[i].points[k].separation, -0.05, 1e-9 );
        }
    }
    ck_assert_int_le( cnWorld_GetStepReport( s_world ).pairCount, 9 );
}
END_TEST

Suite* cntContactsSuite( void )
{
    Suite* suite = suite_create( "contacts" );
    TCase* tc = tcase_create( "pipeline" );
    tcase_add_checked_fixture( tc, setup, teardown );
    tcase_add_test( tc, box_rests_on_plane_with_four_stable_points );
    tcase_add_test( tc, lying_capsule_has_two_points );
    tcase_add_test( tc, sphere_one_point_box_on_box_four );
    tcase_add_test( tc, begin_and_end_events );
    tcase_add_test( tc, destroyed_shapes_end_their_contacts );
    tcase_add_test( tc, filtered_pairs_do_not_collide );
    tcase_add_test( tc, torus_lying_on_ground_touches_along_a_circle );
    tcase_add_test( tc, many_static_bodies );
    suite_add_tcase( suite, tc );
    return suite;
}
