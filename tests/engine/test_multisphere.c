// SPDX-License-Identifier: MIT
// The multisphere baseline (cnWorldDef.multisphere, LCP-MS of the ReLCP paper, digest 6.2): the
// sub-sphere placement against its closed forms, the hidden sub-sphere shapes, the smooth shape's
// mass kept, contacts counted against a brute-force count of sphere pairs, and the option's
// validation.

#include "core.h"
#include "engine_suites.h"
#include "test_support.h"
#include "world.h"

#include <math.h>
#include <string.h>

#define CNT_MAX_SPHERES 256

// the body's world pose composed with a shape's local pose and a centre in the shape frame
static cnVec3 cntWorldCenter( cnTransform body, cnTransform local, cnVec3 center )
{
    return cnTransformPoint( cnMulTransforms( body, local ), center );
}

static cnQuat cntAxisAngle( cnVec3 axis, double angle )
{
    cnVec3 u = cnNormalize( axis );
    double s = sin( 0.5 * angle );
    cnQuat q = { u.x * s, u.y * s, u.z * s, cos( 0.5 * angle ) };
    return q;
}

static cnWorldDef cntMultisphereDef( cntLogCapture* log, int multisphere )
{
    cnWorldDef def = cntWorldDef( log, NULL );
    def.gravity = cn_vec3Zero;
    def.multisphere = multisphere;
    return def;
}

static cnBodyId cntBodyAt( cnWorldId world, cnBodyType type, cnVec3 position, cnQuat orientation )
{
    cnBodyDef def = cnDefaultBodyDef();
    def.type = type;
    def.position = position;
    def.orientation = orientation;
    return cnCreateBody( world, &def );
}

// shape slots in use (user shapes and sub-spheres)
static int cntLiveShapeSlots( cnWorldId worldId )
{
    cnWorld* world = cnGetWorld( worldId );
    int live = 0;
    for ( int i = 0; i < world->shapeSlotCount; ++i )
    {
        live += world->shapes[i].bodySlot != CN_NULL_INDEX ? 1 : 0;
    }
    return live;
}

static const cnShape* cntShapeOf( cnShapeId id )
{
    return cnGetWorldFromIndex( id.world0 )->shapes + ( id.index1 - 1 );
}

// placement ---------------------------------------------------------------------------------------

// digest 6.2: a = 2, b = 1, N = 3 gives radii {0.5, 1, 0.5} at x = {-1.5, 0, 1.5}
START_TEST( ellipsoid_three_spheres_closed_form )
{
    cnGeometry g = cntEllipsoidGeometry( 2.0, 1.0, 1.0 );
    cnVec3 c[3];
    double r[3];
    ck_assert_int_eq( cnMultisphereSpheres( &g, 3, c, r ), 3 );
    const double x[3] = { -1.5, 0.0, 1.5 };
    const double radius[3] = { 0.5, 1.0, 0.5 };
    for ( int i = 0; i < 3; ++i )
    {
        CNT_ASSERT_ABS( c[i].x, x[i], 1e-15 );
        ck_assert( c[i].y == 0.0 && c[i].z == 0.0 );
        CNT_ASSERT_ABS( r[i], radius[i], 1e-15 );
    }
}
END_TEST

// any N: centres equally spaced on [-x_max, x_max], x_max = (a^2 - b^2)/a, radius
// r(x) = b sqrt(1 - x^2/(a^2 - b^2)); the end spheres osculate the tips (x_max + r = a, r = b^2/a);
// the major axis is the largest semi-axis, b the larger of the other two; every sphere lies inside
// a spheroid (b = c)
START_TEST( ellipsoid_spheres_follow_the_rule )
{
    static const int counts[] = { 2, 3, 7, 13, 17, 23, 27, 256 };
    // (radii, major axis, b)
    static const struct
    {
        double radii[3];
        int major;
        double b;
    } cases[] = {
        { { 2.0, 1.0, 1.0 }, 0, 1.0 },    // prolate along x
        { { 0.25, 0.5, 0.25 }, 1, 0.25 }, // along y
        { { 0.3, 0.2, 0.9 }, 2, 0.3 },    // triaxial along z: b the larger of 0.3 and 0.2
    };
    static cnVec3 c[CNT_MAX_SPHERES];
    static double r[CNT_MAX_SPHERES];
    for ( size_t k = 0; k < sizeof( cases ) / sizeof( cases[0] ); ++k )
    {
        cnGeometry g = cntEllipsoidGeometry( cases[k].radii[0], cases[k].radii[1], cases[k].radii[2] );
        double a = cases[k].radii[cases[k].major];
        double b = cases[k].b;
        double xMax = ( a * a - b * b ) / a;
        for ( size_t j = 0; j < sizeof( counts ) / sizeof( counts[0] ); ++j )
        {
            int n = counts[j];
            ck_assert_int_eq( cnMultisphereSpheres( &g, n, c, r ), n );
            for ( int i = 0; i < n; ++i )
            {
                double along[3] = { c[i].x, c[i].y, c[i].z };
                double x = -xMax + 2.0 * xMax * i / ( n - 1 );
                CNT_ASSERT_ABS( along[cases[k].major], x, 1e-14 );
                ck_assert( along[( cases[k].major + 1 ) % 3] == 0.0 &&
                           along[( cases[k].major + 2 ) % 3] == 0.0 );
                CNT_ASSERT_ABS( r[i], b * sqrt( fmax( 0.0, 1.0 - x * x / ( a * a - b * b ) ) ), 1e-14 );
            }
            // the ends osculate the tips: radius b^2/a, touching x = +-a
            CNT_ASSERT_ABS( r[0], b * b / a, 1e-14 );
            CNT_ASSERT_ABS( r[n - 1], b * b / a, 1e-14 );
            double tip[3] = { c[n - 1].x, c[n - 1].y, c[n - 1].z };
            CNT_ASSERT_ABS( tip[cases[k].major] + r[n - 1], a, 1e-14 );
            // odd counts: the largest sphere (radius b) is centred
            if ( n % 2 == 1 )
            {
                CNT_ASSERT_ABS( r[n / 2], b, 1e-15 );
            }
        }
    }

    // inscribed: points on every sub-sphere of a spheroid satisfy the ellipsoid's inequality
    cnGeometry g = cntEllipsoidGeometry( 2.0, 1.0, 1.0 );
    int n = cnMultisphereSpheres( &g, 13, c, r );
    cntRandom random = { 7 };
    for ( int i = 0; i < n; ++i )
    {
        for ( int s = 0; s < 200; ++s )
        {
            cnVec3 p = cnMulAdd( c[i], r[i], cntDirection( &random ) );
            double f = p.x * p.x / 4.0 + p.y * p.y + p.z * p.z;
            ck_assert_msg( f <= 1.0 + 1e-12, "sphere %d pokes out: %.17g", i, f );
        }
    }
}
END_TEST

// equal major and middle semi-axes: one sphere of radius b, not N coincident ones
START_TEST( sphere_like_ellipsoid_is_one_sphere )
{
    cnVec3 c[7];
    double r[7];
    cnGeometry sphere = cntEllipsoidGeometry( 1.5, 1.5, 1.5 );
    ck_assert_int_eq( cnMultisphereSpheres( &sphere, 7, c, r ), 1 );
    ck_assert( c[0].x == 0.0 && c[0].y == 0.0 && c[0].z == 0.0 );
    ck_assert( r[0] == 1.5 );
    cnGeometry oblate = cntEllipsoidGeometry( 1.0, 1.0, 0.5 ); // b = the larger of 1 and 0.5
    ck_assert_int_eq( cnMultisphereSpheres( &oblate, 7, c, r ), 1 );
    ck_assert( r[0] == 1.0 );
    cnGeometry almost = cntEllipsoidGeometry( 1.0 + 1e-12, 1.0, 1.0 );
    ck_assert_int_eq( cnMultisphereSpheres( &almost, 7, c, r ), 1 );
    cnGeometry close = cntEllipsoidGeometry( 1.0 + 1e-6, 1.0, 1.0 ); // above 1e-9: spread, no NaN
    ck_assert_int_eq( cnMultisphereSpheres( &close, 7, c, r ), 7 );
    for ( int i = 0; i < 7; ++i )
    {
        ck_assert( isfinite( c[i].x ) && r[i] > 0.999 && r[i] <= 1.0 );
    }
    cnGeometry box = cntBoxGeometry( 1.0, 2.0, 3.0 );
    ck_assert_int_eq( cnMultisphereSpheres( &box, 7, c, r ), 0 );
}
END_TEST

// a capsule: N spheres of its radius, the end ones at the cap centres, equally spaced
START_TEST( capsule_spheres_closed_form )
{
    cnGeometry g = cntCapsuleGeometry( 0.25, 0.75 );
    cnVec3 c[5];
    double r[5];
    ck_assert_int_eq( cnMultisphereSpheres( &g, 5, c, r ), 5 );
    const double z[5] = { -0.75, -0.375, 0.0, 0.375, 0.75 };
    for ( int i = 0; i < 5; ++i )
    {
        ck_assert( c[i].x == 0.0 && c[i].y == 0.0 );
        CNT_ASSERT_ABS( c[i].z, z[i], 1e-15 );
        ck_assert( r[i] == 0.25 );
    }
    cnGeometry ball = cntCapsuleGeometry( 0.25, 0.0 );
    ck_assert_int_eq( cnMultisphereSpheres( &ball, 5, c, r ), 1 );
    ck_assert( c[0].z == 0.0 && r[0] == 0.25 );
}
END_TEST

// a torus: N spheres of the tube radius equally spaced on the core circle. With N = 32 (the
// chainmail of digest 7.4) the union of the spheres dips 0.1 - sqrt(0.01 - 0.098^2) ~ 0.080 below
// the tube midway between two centres (digest 6.2, 0.098 = sin(pi/32) the half chord), measured
// here on the spheres as placed
START_TEST( torus_spheres_and_their_dip )
{
    cnGeometry g = cntTorusGeometry( 1.0, 0.1 );
    cnVec3 c[32];
    double r[32];
    ck_assert_int_eq( cnMultisphereSpheres( &g, 32, c, r ), 32 );
    for ( int i = 0; i < 32; ++i )
    {
        double angle = 2.0 * M_PI * i / 32.0;
        CNT_ASSERT_ABS( c[i].x, cos( angle ), 1e-15 );
        CNT_ASSERT_ABS( c[i].y, sin( angle ), 1e-15 );
        ck_assert( c[i].z == 0.0 && r[i] == 0.1 );
    }

    // Along the chord between neighbours i and i + 1, the union reaches sqrt(r^2 - d^2) above the
    // chord (d the distance to the nearest centre), where the tube is r thick: the deepest dip over
    // every chord, sampled, is at a midpoint.
    double deepest = 0.0;
    for ( int i = 0; i < 32; ++i )
    {
        cnVec3 p = c[i];
        cnVec3 q = c[( i + 1 ) % 32];
        for ( int s = 0; s <= 1000; ++s )
        {
            cnVec3 x = cnMulAdd( p, s / 1000.0, cnSub( q, p ) );
            double height = 0.0;
            for ( int j = 0; j < 32; ++j )
            {
                double d2 = cnLengthSquared( cnSub( x, c[j] ) );
                height = d2 < r[j] * r[j] ? fmax( height, sqrt( r[j] * r[j] - d2 ) ) : height;
            }
            deepest = fmax( deepest, 0.1 - height );
        }
    }
    double halfChord = sin( M_PI / 32.0 ); // 0.09802
    CNT_ASSERT_ABS( deepest, 0.1 - sqrt( 0.01 - halfChord * halfChord ), 1e-12 );
    CNT_ASSERT_ABS( deepest, 0.1 - sqrt( 0.01 - 0.098 * 0.098 ), 2e-4 ); // the digest's rounding
    CNT_ASSERT_ABS( deepest, 0.080, 1e-3 );

    // over the true core circle instead (the top of the tube at angle u against the union straight
    // below it) the dip is a little deeper, 0.1 - sqrt(0.01 - (2 sin(pi/64))^2) = 0.0808
    double lowest = INFINITY;
    for ( int s = 0; s <= 32 * 1000; ++s )
    {
        double u = 2.0 * M_PI * s / ( 32.0 * 1000.0 );
        cnVec3 core = cnMakeVec3( cos( u ), sin( u ), 0.0 );
        double top = 0.0;
        for ( int i = 0; i < 32; ++i )
        {
            double d2 = cnLengthSquared( cnSub( core, c[i] ) );
            top = d2 < r[i] * r[i] ? fmax( top, sqrt( r[i] * r[i] - d2 ) ) : top;
        }
        lowest = fmin( lowest, top );
    }
    double arc = 2.0 * sin( M_PI / 64.0 );
    CNT_ASSERT_ABS( 0.1 - lowest, 0.1 - sqrt( 0.01 - arc * arc ), 1e-12 );
    ck_assert( 0.1 - lowest > deepest && 0.1 - lowest < 0.081 );
}
END_TEST

// the world's shapes ------------------------------------------------------------------------------

// the user gets one shape id; hidden sub-sphere shapes collide for it, placed by the rule at the
// shape's pose, with its material, filter and user data; they go with the shape and the body
START_TEST( shape_collides_through_hidden_sub_spheres )
{
    cntCountingAllocator counter;
    cnAllocator allocator = cntMakeCountingAllocator( &counter );
    cntLogCapture log;
    cnWorldDef def = cntMultisphereDef( &log, 3 );
    def.allocator = allocator;
    cnWorldId world = cnCreateWorld( &def );
    cnBodyId body = cntBodyAt( world, cn_dynamicBody, cnMakeVec3( 1.0, 2.0, 3.0 ),
                               cntAxisAngle( cnMakeVec3( 1, 1, 0 ), 0.7 ) );
    cnShapeDef shapeDef = cnDefaultShapeDef();
    shapeDef.localPose.p = cnMakeVec3( 0.1, -0.2, 0.3 );
    shapeDef.localPose.q = cntAxisAngle( cnMakeVec3( 0, 0, 1 ), 0.4 );
    shapeDef.material.friction = 0.37;
    shapeDef.categoryBits = 4;
    shapeDef.maskBits = 5;
    int tag = 0;
    shapeDef.userData = &tag;
    cnEllipsoid ellipsoid = { { 2.0, 1.0, 1.0 } };
    cnShapeId id = cnCreateEllipsoidShape( body, &shapeDef, &ellipsoid );
    ck_assert( CN_IS_NON_NULL( id ) );

    // one shape to the user
    cnShapeId ids[4];
    ck_assert_int_eq( cnBody_GetShapes( body, ids, 4 ), 1 );
    ck_assert( ids[0].index1 == id.index1 && ids[0].generation == id.generation );
    cnBodyState state;
    cnBody_GetState( body, &state );
    ck_assert_int_eq( state.shapeCount, 1 );
    ck_assert_int_eq( cnShape_GetType( id ), cn_ellipsoidShape );
    ck_assert_int_eq( cntLiveShapeSlots( world ), 4 );

    // the shape has no proxy; three sphere children have one each
    const cnShape* shape = cntShapeOf( id );
    ck_assert_int_eq( shape->proxyKey, CN_NULL_INDEX );
    ck_assert_int_eq( shape->childCount, 3 );
    cnWorld* w = cnGetWorld( world );
    const double x[3] = { -1.5, 0.0, 1.5 };
    const double radius[3] = { 0.5, 1.0, 0.5 };
    int k = 0;
    for ( int c = shape->firstChild; c != CN_NULL_INDEX; c = w->shapes[c].next, ++k )
    {
        const cnShape* child = w->shapes + c;
        ck_assert_int_eq( child->parent, id.index1 - 1 );
        ck_assert_int_ne( child->proxyKey, CN_NULL_INDEX );
        ck_assert_int_eq( child->geometry.type, cn_sphereShape );
        CNT_ASSERT_ABS( child->geometry.sphere.radius, radius[k], 1e-15 );
        cnVec3 expected = cnTransformPoint( shapeDef.localPose, cnMakeVec3( x[k], 0.0, 0.0 ) );
        CNT_ASSERT_ABS( cnLength( cnSub( child->localPose.p, expected ) ), 0.0, 1e-14 );
        ck_assert( child->material.friction == 0.37 );
        ck_assert( child->categoryBits == 4 && child->maskBits == 5 && child->userData == &tag );
        ck_assert( child->mass.mass == 0.0 );
        // a sub-sphere has no id a user can use
        cnShapeId forged = { c + 1, id.world0, child->generation };
        ck_assert( cnShape_IsValid( forged ) == false );
        ck_assert_int_eq( cnDestroyShape( forged ), cn_statusInvalidId );
    }
    ck_assert_int_eq( k, 3 );

    // the material follows the shape
    cnMaterial material = cnDefaultMaterial();
    material.friction = 0.9;
    ck_assert_int_eq( cnShape_SetMaterial( id, material ), cn_statusOk );
    for ( int c = cntShapeOf( id )->firstChild; c != CN_NULL_INDEX; c = w->shapes[c].next )
    {
        ck_assert( w->shapes[c].material.friction == 0.9 );
    }

    // destroying the shape frees its sub-spheres; a second one goes with its body
    ck_assert_int_eq( cnDestroyShape( id ), cn_statusOk );
    ck_assert_int_eq( cntLiveShapeSlots( world ), 0 );
    cnCapsule capsule = { 0.25, 1.0 };
    cnShapeId capsuleId = cnCreateCapsuleShape( body, &shapeDef, &capsule );
    ck_assert( CN_IS_NON_NULL( capsuleId ) );
    ck_assert_int_eq( cntLiveShapeSlots( world ), 4 );
    cnWorld_Step( world, 1.0 / 60.0 );
    ck_assert_int_eq( cnDestroyBody( body ), cn_statusOk );
    ck_assert_int_eq( cntLiveShapeSlots( world ), 0 );
    cnWorld_Step( world, 1.0 / 60.0 );
    ck_assert_int_eq( log.errorCount, 0 );
    ck_assert_int_eq( cnDestroyWorld( world ), cn_statusOk );
    ck_assert_uint_eq( counter.liveBytes, 0 );
}
END_TEST

// a new geometry moves the sub-spheres in their slots (a growing capsule); an ellipsoid that
// becomes a sphere is one sub-sphere from then on
START_TEST( new_geometry_replaces_sub_spheres )
{
    cntLogCapture log;
    cnWorldDef def = cntMultisphereDef( &log, 5 );
    cnWorldId world = cnCreateWorld( &def );
    cnBodyId body = cntBodyAt( world, cn_dynamicBody, cn_vec3Zero, cn_quatIdentity );
    cnShapeDef shapeDef = cnDefaultShapeDef();
    cnCapsule capsule = { 0.25, 0.5 };
    cnShapeId id = cnCreateCapsuleShape( body, &shapeDef, &capsule );
    int first = cntShapeOf( id )->firstChild;
    cnGeometry longer = cntCapsuleGeometry( 0.3, 1.0 );
    ck_assert_int_eq( cnShape_SetGeometry( id, &longer ), cn_statusOk );
    cnWorld* w = cnGetWorld( world );
    ck_assert_int_eq( cntShapeOf( id )->firstChild, first );
    int k = 0;
    for ( int c = first; c != CN_NULL_INDEX; c = w->shapes[c].next, ++k )
    {
        ck_assert( w->shapes[c].geometry.sphere.radius == 0.3 );
        CNT_ASSERT_ABS( w->shapes[c].localPose.p.z, -1.0 + 0.5 * k, 1e-15 );
    }
    ck_assert_int_eq( k, 5 );

    cnEllipsoid ellipsoid = { { 1.0, 0.5, 0.5 } };
    cnShapeId eid = cnCreateEllipsoidShape( body, &shapeDef, &ellipsoid );
    ck_assert_int_eq( cntShapeOf( eid )->childCount, 5 );
    cnGeometry round = cntEllipsoidGeometry( 0.5, 0.5, 0.5 );
    ck_assert_int_eq( cnShape_SetGeometry( eid, &round ), cn_statusOk );
    ck_assert_int_eq( cntShapeOf( eid )->childCount, 1 );
    ck_assert_int_eq( cntLiveShapeSlots( world ), 2 + 5 + 1 );
    cnGeometry back = cntEllipsoidGeometry( 1.0, 0.5, 0.5 );
    ck_assert_int_eq( cnShape_SetGeometry( eid, &back ), cn_statusOk );
    ck_assert_int_eq( cntShapeOf( eid )->childCount, 5 );
    ck_assert_int_eq( cntLiveShapeSlots( world ), 2 + 5 + 5 );
    ck_assert_int_eq( cnBody_GetShapes( body, NULL, 0 ), 2 );
    ck_assert_int_eq( log.errorCount, 0 );
    cnDestroyWorld( world );
}
END_TEST

// mass, centre, inertia and the overdamped mobility stay the smooth shape's
START_TEST( mass_properties_are_the_smooth_shapes )
{
    cnGeometry geometries[] = {
        cntEllipsoidGeometry( 0.5, 0.25, 0.3 ),
        cntCapsuleGeometry( 0.25, 0.75 ),
        cntTorusGeometry( 1.0, 0.1 ),
    };
    for ( int dynamics = 0; dynamics < 2; ++dynamics )
    {
        for ( size_t k = 0; k < sizeof( geometries ) / sizeof( geometries[0] ); ++k )
        {
            cnMassData mass[2];
            cnMat3 mobility[2][2];
            for ( int on = 0; on < 2; ++on )
            {
                cnWorldDef def = cntMultisphereDef( NULL, on ? 7 : 0 );
                def.dynamics = dynamics ? cn_dynamicsOverdamped : cn_dynamicsInertial;
                cnWorldId world = cnCreateWorld( &def );
                cnBodyId body = cntBodyAt( world, cn_dynamicBody, cnMakeVec3( 1, 2, 3 ), cn_quatIdentity );
                cnShapeDef shapeDef = cnDefaultShapeDef();
                shapeDef.localPose.p = cnMakeVec3( 0.2, 0.0, -0.1 );
                shapeDef.localPose.q = cntAxisAngle( cnMakeVec3( 1, 2, 3 ), 0.5 );
                ck_assert( CN_IS_NON_NULL( cnCreateShape( body, &shapeDef, geometries + k ) ) );
                mass[on] = cnBody_GetMassData( body );
                int row;
                cnWorld* w = cnGetBodyWorld( body, &row );
                mobility[on][0] = w->bodies.linearMobility[row];
                mobility[on][1] = w->bodies.angularMobility[row];
                cnDestroyWorld( world );
            }
            ck_assert( mass[0].mass > 0.0 );
            ck_assert( memcmp( mass + 0, mass + 1, sizeof( cnMassData ) ) == 0 );
            ck_assert( memcmp( mobility[0], mobility[1], sizeof( mobility[0] ) ) == 0 );
        }
    }
}
END_TEST

// contacts ----------------------------------------------------------------------------------------

// sub-sphere pairs of two shapes closer than the contact margin, by brute force
static int cntCountSpherePairs( cnWorldId world, cnBodyId a, cnShapeId sa, cnBodyId b, cnShapeId sb, int n )
{
    static cnVec3 ca[CNT_MAX_SPHERES], cb[CNT_MAX_SPHERES];
    static double ra[CNT_MAX_SPHERES], rb[CNT_MAX_SPHERES];
    cnGeometry ga, gb;
    cnShape_GetGeometry( sa, &ga );
    cnShape_GetGeometry( sb, &gb );
    int na = cnMultisphereSpheres( &ga, n, ca, ra );
    int nb = cnMultisphereSpheres( &gb, n, cb, rb );
    double margin = cnGetWorld( world )->def.contactMargin;
    int count = 0;
    for ( int i = 0; i < na; ++i )
    {
        cnVec3 pi = cntWorldCenter( cnBody_GetTransform( a ), cnShape_GetLocalPose( sa ), ca[i] );
        for ( int j = 0; j < nb; ++j )
        {
            cnVec3 pj = cntWorldCenter( cnBody_GetTransform( b ), cnShape_GetLocalPose( sb ), cb[j] );
            double separation = cnLength( cnSub( pi, pj ) ) - ra[i] - rb[j];
            ck_assert_msg( fabs( separation - margin ) > 1e-9, "pair %d %d on the margin", i, j );
            count += separation < margin ? 1 : 0;
        }
    }
    return count;
}

// every contact names the user's shapes and bodies, one point each (a sphere pair)
static void cntCheckContactsNameShapes( cnWorldId world, cnShapeId sa, cnShapeId sb, int expected )
{
    static cnContactData contacts[CNT_MAX_SPHERES * 4];
    int count = cnWorld_GetContacts( world, contacts, CNT_MAX_SPHERES * 4 );
    ck_assert_int_eq( count, expected );
    for ( int i = 0; i < count; ++i )
    {
        bool ab = contacts[i].shapeA.index1 == sa.index1 && contacts[i].shapeB.index1 == sb.index1;
        bool ba = contacts[i].shapeA.index1 == sb.index1 && contacts[i].shapeB.index1 == sa.index1;
        ck_assert_msg( ab || ba, "contact %d names shapes %d and %d", i, contacts[i].shapeA.index1,
                       contacts[i].shapeB.index1 );
        ck_assert( cnShape_IsValid( contacts[i].shapeA ) && cnShape_IsValid( contacts[i].shapeB ) );
        ck_assert( CN_IS_NON_NULL( contacts[i].bodyA ) && CN_IS_NON_NULL( contacts[i].bodyB ) );
        ck_assert_int_eq( contacts[i].pointCount, 1 );
    }
}

// two overlapping ellipsoids (a = 2, b = 1; one turned 30 degrees): one contact per sub-sphere pair
// closer than the margin, as many as a brute-force count of the pairs, named by the user's shapes;
// one begin event for the pair of ellipsoids, one end event when they part
START_TEST( ellipsoid_contacts_match_sphere_pairs )
{
    static const int counts[] = { 3, 7, 13, 17, 23 };
    for ( size_t j = 0; j < sizeof( counts ) / sizeof( counts[0] ); ++j )
    {
        int n = counts[j];
        cntLogCapture log;
        cnWorldDef def = cntMultisphereDef( &log, n );
        cnWorldId world = cnCreateWorld( &def );
        cnShapeDef shapeDef = cnDefaultShapeDef();
        cnEllipsoid ellipsoid = { { 2.0, 1.0, 1.0 } };
        cnBodyId a = cntBodyAt( world, cn_dynamicBody, cn_vec3Zero, cn_quatIdentity );
        cnBodyId b = cntBodyAt( world, cn_dynamicBody, cnMakeVec3( 0.6, 1.8, 0.1 ),
                                cntAxisAngle( cnMakeVec3( 0, 0, 1 ), M_PI / 6.0 ) );
        cnShapeId sa = cnCreateEllipsoidShape( a, &shapeDef, &ellipsoid );
        cnShapeId sb = cnCreateEllipsoidShape( b, &shapeDef, &ellipsoid );

        ck_assert_int_eq( cnWorld_UpdateContacts( world ), cn_statusOk );
        int expected = cntCountSpherePairs( world, a, sa, b, sb, n );
        ck_assert_int_gt( expected, 0 );
        ck_assert_int_eq( cnWorld_GetContactCount( world ), expected );
        cnStepReport report = cnWorld_GetStepReport( world );
        ck_assert_int_eq( report.contactCount, expected );
        ck_assert_int_eq( report.manifoldCount, expected );
        cntCheckContactsNameShapes( world, sa, sb, expected );
        cnContactEvents events = cnWorld_GetContactEvents( world );
        ck_assert_int_eq( events.beginCount, 1 );
        ck_assert_int_eq( events.endCount, 0 );
        ck_assert( ( events.beginEvents[0].shapeA.index1 == sa.index1 &&
                     events.beginEvents[0].shapeB.index1 == sb.index1 ) ||
                   ( events.beginEvents[0].shapeA.index1 == sb.index1 &&
                     events.beginEvents[0].shapeB.index1 == sa.index1 ) );

        // still touching, with a pair more or less: no event
        cnBody_SetTransform( b, cnMakeVec3( 0.6, 1.7, 0.1 ),
                             cntAxisAngle( cnMakeVec3( 0, 0, 1 ), M_PI / 6.0 ) );
        ck_assert_int_eq( cnWorld_UpdateContacts( world ), cn_statusOk );
        ck_assert_int_eq( cnWorld_GetContactCount( world ), cntCountSpherePairs( world, a, sa, b, sb, n ) );
        events = cnWorld_GetContactEvents( world );
        ck_assert_int_eq( events.beginCount + events.endCount, 0 );

        // apart: one end event
        cnBody_SetTransform( b, cnMakeVec3( 0.0, 2.5, 0.0 ), cn_quatIdentity );
        ck_assert_int_eq( cnWorld_UpdateContacts( world ), cn_statusOk );
        ck_assert_int_eq( cnWorld_GetContactCount( world ), 0 );
        events = cnWorld_GetContactEvents( world );
        ck_assert_int_eq( events.beginCount, 0 );
        ck_assert_int_eq( events.endCount, 1 );
        ck_assert_int_eq( log.errorCount, 0 );
        cnDestroyWorld( world );
    }
}
END_TEST

// two parallel capsules 1 cm into each other: sphere i of one touches sphere i of the other, N
// contacts where the smooth pair has one manifold; with closely packed spheres the diagonal
// neighbours come within the margin too, as the brute-force count says
START_TEST( parallel_capsules_touch_sphere_by_sphere )
{
    static const int counts[] = { 0, 2, 3, 5, 7, 13, 32 };
    for ( size_t j = 0; j < sizeof( counts ) / sizeof( counts[0] ); ++j )
    {
        int n = counts[j];
        cnWorldDef def = cntMultisphereDef( NULL, n );
        cnWorldId world = cnCreateWorld( &def );
        cnShapeDef shapeDef = cnDefaultShapeDef();
        cnCapsule capsule = { 0.25, 1.0 };
        cnBodyId a = cntBodyAt( world, cn_dynamicBody, cn_vec3Zero, cn_quatIdentity );
        cnBodyId b = cntBodyAt( world, cn_dynamicBody, cnMakeVec3( 0.49, 0.0, 0.0 ), cn_quatIdentity );
        cnShapeId sa = cnCreateCapsuleShape( a, &shapeDef, &capsule );
        cnShapeId sb = cnCreateCapsuleShape( b, &shapeDef, &capsule );
        ck_assert_int_eq( cnWorld_UpdateContacts( world ), cn_statusOk );
        int manifolds = cnWorld_GetContactCount( world );
        if ( n == 0 )
        {
            ck_assert_int_eq( manifolds, 1 ); // the smooth pair
        }
        else
        {
            int expected = cntCountSpherePairs( world, a, sa, b, sb, n );
            ck_assert_int_eq( manifolds, expected );
            // spacing 2/(N-1): from N = 13 on the diagonal neighbours are within the margin
            if ( n <= 7 )
            {
                ck_assert_int_eq( expected, n );
            }
            else if ( n == 13 )
            {
                ck_assert_int_eq( expected, n + 2 * ( n - 1 ) );
            }
            cntCheckContactsNameShapes( world, sa, sb, expected );
        }
        cnDestroyWorld( world );
    }
}
END_TEST

// a torus against a plane counts the sub-spheres that reach the plane; solver rows follow the
// sub-sphere contacts (three per point: a normal and two friction rows)
START_TEST( step_report_counts_sub_sphere_rows )
{
    cnWorldDef def = cntMultisphereDef( NULL, 32 );
    cnWorldId world = cnCreateWorld( &def );
    cnShapeDef shapeDef = cnDefaultShapeDef();
    cnBodyId ground = cntBodyAt( world, cn_staticBody, cn_vec3Zero, cn_quatIdentity );
    cnPlane plane = { { 0, 0, 1 }, 0.0 };
    cnCreatePlaneShape( ground, &shapeDef, &plane );
    cnBodyId ring = cntBodyAt( world, cn_dynamicBody, cnMakeVec3( 0, 0, 0.095 ), cn_quatIdentity );
    cnTorus torus = { 1.0, 0.1 };
    cnCreateTorusShape( ring, &shapeDef, &torus );
    ck_assert_int_eq( cnWorld_Step( world, 1.0 / 60.0 ), cn_statusOk );
    cnStepReport report = cnWorld_GetStepReport( world );
    ck_assert_int_eq( report.contactCount, 32 );
    ck_assert_int_eq( report.manifoldCount, 32 );
    ck_assert_int_eq( report.solverRows, 3 * 32 );
    cnDestroyWorld( world );
}
END_TEST

// dropped on a plane, an ellipsoid of sub-spheres comes to lie on its side like the smooth one
START_TEST( ellipsoid_settles_on_a_plane )
{
    cnWorldDef def = cntMultisphereDef( NULL, 7 );
    def.gravity = cnMakeVec3( 0, 0, -9.81 );
    cnWorldId world = cnCreateWorld( &def );
    cnShapeDef shapeDef = cnDefaultShapeDef();
    cnBodyId ground = cntBodyAt( world, cn_staticBody, cn_vec3Zero, cn_quatIdentity );
    cnPlane plane = { { 0, 0, 1 }, 0.0 };
    cnCreatePlaneShape( ground, &shapeDef, &plane );
    cnBodyId body = cntBodyAt( world, cn_dynamicBody, cnMakeVec3( 0, 0, 0.6 ),
                               cntAxisAngle( cnMakeVec3( 0, 1, 0 ), 0.3 ) );
    cnEllipsoid ellipsoid = { { 0.5, 0.25, 0.25 } };
    cnCreateEllipsoidShape( body, &shapeDef, &ellipsoid );
    for ( int step = 0; step < 240; ++step )
    {
        ck_assert_int_eq( cnWorld_Step( world, 1.0 / 60.0 ), cn_statusOk );
    }
    // on its side, the middle sphere (radius b) on the plane; the sub-spheres make a body of
    // revolution about the major axis, which may roll about it but not bounce
    CNT_ASSERT_ABS( cnBody_GetWorldCenter( body ).z, 0.25, 0.005 );
    CNT_ASSERT_ABS( cnBody_GetLinearVelocity( body ).z, 0.0, 0.01 );
    // and level within the faceting: on the middle sphere alone (centred on the centre of mass) any
    // tilt is neutral until a neighbour (x = 0.125, radius 0.2394, 0.0106 higher) touches at
    // sin(tilt) = 0.0106 / 0.125 = 0.085
    cnVec3 axis = cnRotate( cnBody_GetOrientation( body ), cnMakeVec3( 1, 0, 0 ) );
    ck_assert_msg( fabs( axis.z ) < 0.09, "tilt %g", axis.z );
    cnDestroyWorld( world );
}
END_TEST

// the option off ----------------------------------------------------------------------------------

// Twelve bodies of every kind dropped on a plane, 100 steps; the final transforms. With
// `standIns` the ellipsoids, capsules and tori are spheres (shapes the option leaves alone).
static void cntRunPile( const cnWorldDef* def, bool standIns, cnTransform* transforms )
{
    cnWorldId world = cnCreateWorld( def );
    cnShapeDef shapeDef = cnDefaultShapeDef();
    cnBodyId ground = cntBodyAt( world, cn_staticBody, cn_vec3Zero, cn_quatIdentity );
    cnPlane plane = { { 0, 0, 1 }, 0.0 };
    cnCreatePlaneShape( ground, &shapeDef, &plane );
    cntRandom random = { 42 };
    for ( int i = 0; i < 12; ++i )
    {
        cnVec3 p =
            cnMakeVec3( cntRange( &random, -0.3, 0.3 ), cntRange( &random, -0.3, 0.3 ), 0.5 + 0.6 * i );
        cnBodyId body = cntBodyAt( world, cn_dynamicBody, p, cntAxisAngle( cntDirection( &random ), 1.0 ) );
        cnGeometry g;
        switch ( i % 6 )
        {
            case 0:
                g = cntEllipsoidGeometry( 0.4, 0.2, 0.25 );
                break;
            case 1:
                g = cntCapsuleGeometry( 0.15, 0.3 );
                break;
            case 2:
                g = cntTorusGeometry( 0.4, 0.08 );
                break;
            case 3:
                g = cntSphereGeometry( 0.2 );
                break;
            case 4:
                g = cntBoxGeometry( 0.2, 0.15, 0.1 );
                break;
            default:
                g = cntCylinderGeometry( 0.15, 0.2 );
                break;
        }
        if ( standIns && ( i % 6 ) < 3 )
        {
            g = cntSphereGeometry( 0.2 );
        }
        ck_assert( CN_IS_NON_NULL( cnCreateShape( body, &shapeDef, &g ) ) );
    }
    for ( int step = 0; step < 100; ++step )
    {
        ck_assert_int_eq( cnWorld_Step( world, 1.0 / 60.0 ), cn_statusOk );
    }
    ck_assert_int_eq( cnWorld_CopyTransforms( world, transforms, NULL, 13 ), 13 );
    cnDestroyWorld( world );
}

// multisphere = 0 is the world as it was: a def that sets it runs bit for bit like one that never
// mentions it; and a multisphere world with none of the three shapes runs like a plain one
START_TEST( option_off_changes_nothing )
{
    cnTransform untouched[13], zero[13];
    cnWorldDef def = cnDefaultWorldDef();
    cntRunPile( &def, false, untouched );
    def.multisphere = 0;
    cntRunPile( &def, false, zero );
    ck_assert( memcmp( untouched, zero, sizeof( untouched ) ) == 0 );
    ck_assert( untouched[12].p.z < 0.5 + 0.6 * 11 - 1.0 ); // they did fall

    cnTransform plain[13], multisphere[13];
    def.multisphere = 0;
    cntRunPile( &def, true, plain );
    def.multisphere = 7;
    cntRunPile( &def, true, multisphere );
    ck_assert( memcmp( plain, multisphere, sizeof( plain ) ) == 0 );
}
END_TEST

// 1 and 300 (and negatives) are refused with a message that names the field and the range
START_TEST( out_of_range_counts_are_refused )
{
    static const int bad[] = { 1, 257, 300, -1 };
    for ( size_t k = 0; k < sizeof( bad ) / sizeof( bad[0] ); ++k )
    {
        cntLogCapture log;
        cnWorldDef def = cntMultisphereDef( &log, bad[k] );
        cnWorldId world = cnCreateWorld( &def );
        ck_assert( CN_IS_NULL( world ) );
        ck_assert_int_eq( log.errorCount, 1 );
        char expected[128];
        snprintf( expected, sizeof( expected ), "multisphere must be 0 (off) or 2 to 256, got %d", bad[k] );
        ck_assert_msg( strstr( log.lastMessage, expected ) != NULL, "message: %s", log.lastMessage );
    }
    static const int good[] = { 0, 2, 256 };
    for ( size_t k = 0; k < sizeof( good ) / sizeof( good[0] ); ++k )
    {
        cnWorldDef def = cntMultisphereDef( NULL, good[k] );
        cnWorldId world = cnCreateWorld( &def );
        ck_assert( cnWorld_IsValid( world ) );
        cnDestroyWorld( world );
    }
}
END_TEST

// out of memory at any allocation while sub-spheres are made, changed and stepped: the world stays
// consistent and every byte is accounted for
START_TEST( out_of_memory_anywhere )
{
    for ( long failAt = 0; failAt < 60; ++failAt )
    {
        cntCountingAllocator counter;
        cnAllocator allocator = cntMakeCountingAllocator( &counter );
        cntLogCapture log;
        cnWorldDef def = cntMultisphereDef( &log, 7 );
        def.allocator = allocator;
        def.bodyCapacity = 0;
        counter.failAfter = failAt;
        cnWorldId world = cnCreateWorld( &def );
        ck_assert( cnWorld_IsValid( world ) );
        cnShapeDef shapeDef = cnDefaultShapeDef();
        for ( int i = 0; i < 8; ++i )
        {
            cnBodyId body = cntBodyAt( world, cn_dynamicBody, cnMakeVec3( 0.3 * i, 0, 0 ), cn_quatIdentity );
            cnGeometry g = i % 3 == 0   ? cntEllipsoidGeometry( 0.5, 0.25, 0.25 )
                           : i % 3 == 1 ? cntCapsuleGeometry( 0.2, 0.3 )
                                        : cntTorusGeometry( 0.5, 0.1 );
            cnShapeId id = cnCreateShape( body, &shapeDef, &g );
            cnGeometry round = cntEllipsoidGeometry( 0.3, 0.3, 0.3 );
            if ( i % 3 == 0 && CN_IS_NON_NULL( id ) )
            {
                cnShape_SetGeometry( id, &round );
                cnShape_SetGeometry( id, &g );
            }
        }
        cnWorld_Step( world, 0.01 );
        // every live shape with sub-spheres has them all, every sub-sphere its proxy
        cnWorld* w = cnGetWorld( world );
        for ( int i = 0; i < w->shapeSlotCount; ++i )
        {
            const cnShape* s = w->shapes + i;
            if ( s->bodySlot == CN_NULL_INDEX )
            {
                continue;
            }
            if ( s->parent == CN_NULL_INDEX )
            {
                ck_assert_int_gt( s->childCount, 0 );
                ck_assert_int_eq( s->proxyKey, CN_NULL_INDEX );
            }
            else
            {
                ck_assert_int_ne( s->proxyKey, CN_NULL_INDEX );
            }
        }
        ck_assert_uint_eq( cnWorld_GetByteCount( world ), counter.liveBytes );
        ck_assert_int_eq( cnDestroyWorld( world ), cn_statusOk );
        ck_assert_uint_eq( counter.liveBytes, 0 );
    }
}
END_TEST

Suite* cntMultisphereSuite( void )
{
    Suite* suite = suite_create( "multisphere" );
    TCase* placement = tcase_create( "placement" );
    tcase_add_test( placement, ellipsoid_three_spheres_closed_form );
    tcase_add_test( placement, ellipsoid_spheres_follow_the_rule );
    tcase_add_test( placement, sphere_like_ellipsoid_is_one_sphere );
    tcase_add_test( placement, capsule_spheres_closed_form );
    tcase_add_test( placement, torus_spheres_and_their_dip );
    suite_add_tcase( suite, placement );

    TCase* shapes = tcase_create( "shapes" );
    tcase_add_test( shapes, shape_collides_through_hidden_sub_spheres );
    tcase_add_test( shapes, new_geometry_replaces_sub_spheres );
    tcase_add_test( shapes, mass_properties_are_the_smooth_shapes );
    tcase_add_test( shapes, out_of_memory_anywhere );
    suite_add_tcase( suite, shapes );

    TCase* contacts = tcase_create( "contacts" );
    tcase_add_test( contacts, ellipsoid_contacts_match_sphere_pairs );
    tcase_add_test( contacts, parallel_capsules_touch_sphere_by_sphere );
    tcase_add_test( contacts, step_report_counts_sub_sphere_rows );
    tcase_add_test( contacts, ellipsoid_settles_on_a_plane );
    suite_add_tcase( suite, contacts );

    TCase* option = tcase_create( "option" );
    tcase_add_test( option, option_off_changes_nothing );
    tcase_add_test( option, out_of_range_counts_are_refused );
    suite_add_tcase( suite, option );
    return suite;
}
