// SPDX-License-Identifier: MIT
// Support points on the surface and maximal against dense surface samples; bounding boxes that
// hold every sampled surface point and touch each face; the box helpers.

#include "convex_helpers.h"
#include "test_convex_suites.h"
#include "test_support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define CNT_SAMPLES 20000

// the test shapes of one type, in their shape frames (no plane)
static int cntShapesOfType( cnShapeType type, const cntHullTemplates* templates, cntShape* out )
{
    switch ( type )
    {
        case cn_sphereShape:
            cntMakeSphere( out + 0, 0.7 );
            cntMakeSphere( out + 1, 1e-3 );
            return 2;
        case cn_boxShape:
            cntMakeBox( out + 0, cnMakeVec3( 0.5, 1.25, 0.1 ) );
            cntMakeBox( out + 1, cnMakeVec3( 30.0, 2.0, 0.01 ) );
            return 2;
        case cn_capsuleShape:
            cntMakeCapsule( out + 0, 0.3, 0.8 );
            cntMakeCapsule( out + 1, 0.5, 0.0 );
            return 2;
        case cn_cylinderShape:
            cntMakeCylinder( out + 0, 0.4, 1.1 );
            cntMakeCylinder( out + 1, 2.0, 0.05 );
            return 2;
        case cn_ellipsoidShape:
            cntMakeEllipsoid( out + 0, cnMakeVec3( 0.3, 1.0, 2.2 ) );
            cntMakeEllipsoid( out + 1, cnMakeVec3( 1.0, 1.0, 1.0 ) );
            return 2;
        case cn_torusShape:
            cntMakeTorus( out + 0, 1.0, 0.25 );
            cntMakeTorus( out + 1, 0.5, 0.45 );
            return 2;
        case cn_hullShape:
            cntMakeHull( out + 0, &templates->hulls[cnt_hullRound], cnMakeVec3( 1.0, 0.5, 2.0 ) );
            cntMakeHull( out + 1, &templates->hulls[cnt_hullPrism], cnMakeVec3( 0.2, 0.2, 3.0 ) );
            return 2;
        default:
            return 0;
    }
}

// distance of a local point from the surface, by type (0 on the surface)
static double cntSurfaceError( const cntShape* shape, cnVec3 p )
{
    const cnGeometry* g = &shape->geometry;
    switch ( g->type )
    {
        case cn_sphereShape:
            return fabs( cnLength( p ) - g->sphere.radius );
        case cn_boxShape:
        {
            // a vertex: every component at +-halfExtent
            cnVec3 h = g->box.halfExtents;
            return fmax( fabs( fabs( p.x ) - h.x ),
                         fmax( fabs( fabs( p.y ) - h.y ), fabs( fabs( p.z ) - h.z ) ) );
        }
        case cn_capsuleShape:
        {
            double z = fmax( -g->capsule.halfLength, fmin( g->capsule.halfLength, p.z ) );
            return fabs( cnLength( cnSub( p, cnMakeVec3( 0.0, 0.0, z ) ) ) - g->capsule.radius );
        }
        case cn_cylinderShape:
        {
            // on the boundary: the side or a cap, and inside the other constraint
            double rho = sqrt( p.x * p.x + p.y * p.y );
            double side = fabs( rho - g->cylinder.radius );
            double cap = fabs( fabs( p.z ) - g->cylinder.halfLength );
            double outside =
                fmax( 0.0, fmax( rho - g->cylinder.radius, fabs( p.z ) - g->cylinder.halfLength ) );
            return fmax( fmin( side, cap ), outside );
        }
        case cn_ellipsoidShape:
        {
            cnVec3 r = g->ellipsoid.radii;
            double f = p.x * p.x / ( r.x * r.x ) + p.y * p.y / ( r.y * r.y ) + p.z * p.z / ( r.z * r.z );
            return fabs( f - 1.0 ) * fmin( r.x, fmin( r.y, r.z ) );
        }
        case cn_torusShape:
        {
            double rho = sqrt( p.x * p.x + p.y * p.y );
            double q = rho - g->torus.majorRadius;
            return fabs( sqrt( q * q + p.z * p.z ) - g->torus.minorRadius );
        }
        case cn_hullShape:
        {
            // a vertex
            double best = INFINITY;
            for ( int i = 0; i < shape->hull.vertexCount; ++i )
            {
                best = fmin( best, cnLength( cnSub( p, shape->vertices[i] ) ) );
            }
            return best;
        }
        default:
            return INFINITY;
    }
}

START_TEST( test_support_on_surface_and_maximal )
{
    cntHullTemplates templates;
    cntCreateHullTemplates( &templates );
    cntRandom random = { 77 };
    static cnVec3 samples[CNT_SAMPLES];
    int failures = 0;
    double worstSurface = 0.0, worstGap = 0.0;

    for ( int type = 0; type < cn_planeShape; ++type )
    {
        cntShape shapes[4];
        int count = cntShapesOfType( (cnShapeType)type, &templates, shapes );
        ck_assert_int_gt( count, 0 );
        for ( int s = 0; s < count; ++s )
        {
            cntShape* shape = shapes + s;
            cntPlace( shape, cn_transformIdentity );
            double size = cnLocalBoundingRadius( &shape->geometry, &shape->hull );
            for ( int i = 0; i < CNT_SAMPLES; ++i )
            {
                samples[i] = cntSampleSurface( shape, &random );
            }
            for ( int k = 0; k < 64; ++k )
            {
                cnVec3 d;
                if ( k < 6 )
                {
                    double c[3] = { 0.0, 0.0, 0.0 };
                    c[k / 2] = ( k & 1 ) ? -1.0 : 1.0;
                    d = cnMakeVec3( c[0], c[1], c[2] );
                }
                else if ( k < 12 )
                {
                    // two zero components among three... or one: ties on faces and rims
                    d = cnMakeVec3( ( k & 1 ) ? 1.0 : -0.5, 0.0, ( k & 2 ) ? 0.3 : -2.0 );
                }
                else
                {
                    // any length
                    d = cnScale( cntLogUniform( &random, 1e-6, 1e6 ), cntDirection( &random ) );
                }
                cnVec3 p = cnLocalSupport( &shape->geometry, &shape->hull, d );
                double surface = cntSurfaceError( shape, p );
                double best = -INFINITY;
                for ( int i = 0; i < CNT_SAMPLES; ++i )
                {
                    best = fmax( best, cnDot( d, samples[i] ) );
                }
                // how far a sample beats the support, relative to |d| size
                double gap = ( best - cnDot( d, p ) ) / ( cnLength( d ) * size );
                worstSurface = fmax( worstSurface, surface / size );
                worstGap = fmax( worstGap, gap );
                if ( !cnIsFiniteVec3( p ) || surface > 1e-12 * size || gap > 1e-12 )
                {
                    if ( failures < 10 )
                    {
                        printf( "support %s #%d d = (%g %g %g): p = (%.17g %.17g %.17g), surface error %g, "
                                "gap %g\n",
                                cntTypeName( (cnShapeType)type ), s, d.x, d.y, d.z, p.x, p.y, p.z, surface,
                                gap );
                    }
                    failures += 1;
                }
            }
            // zero and non-finite directions: a defined, finite surface point
            cnVec3 zero = cnLocalSupport( &shape->geometry, &shape->hull, cn_vec3Zero );
            cnVec3 nan = cnLocalSupport( &shape->geometry, &shape->hull, cnMakeVec3( NAN, 0.0, 1.0 ) );
            cnVec3 inf = cnLocalSupport( &shape->geometry, &shape->hull, cnMakeVec3( INFINITY, 0.0, 1.0 ) );
            ck_assert( cnIsFiniteVec3( zero ) && cnIsFiniteVec3( nan ) && cnIsFiniteVec3( inf ) );
            ck_assert( cntSurfaceError( shape, zero ) <= 1e-12 * size );
            ck_assert( cntSurfaceError( shape, nan ) <= 1e-12 * size );
            // huge and tiny directions give the same point as a unit one
            cnVec3 u = cnNormalize( cnMakeVec3( 0.3, -0.4, 0.5 ) );
            cnVec3 p1 = cnLocalSupport( &shape->geometry, &shape->hull, u );
            cnVec3 p2 = cnLocalSupport( &shape->geometry, &shape->hull, cnScale( 1e300, u ) );
            cnVec3 p3 = cnLocalSupport( &shape->geometry, &shape->hull, cnScale( 1e-300, u ) );
            ck_assert( cnLength( cnSub( p1, p2 ) ) <= 1e-14 * size &&
                       cnLength( cnSub( p1, p3 ) ) <= 1e-14 * size );
        }
    }
    if ( cntVerbose() )
    {
        printf( "  support: worst surface error %.3g, worst gap to samples %.3g (relative)\n", worstSurface,
                worstGap );
    }
    fflush( stdout );
    ck_assert_int_eq( failures, 0 );
    cntDestroyHullTemplates( &templates );
}
END_TEST

START_TEST( test_world_support )
{
    cntHullTemplates templates;
    cntCreateHullTemplates( &templates );
    cntRandom random = { 5 };
    for ( int type = 0; type < cn_planeShape; ++type )
    {
        cntShape shapes[4];
        int count = cntShapesOfType( (cnShapeType)type, &templates, shapes );
        for ( int s = 0; s < count; ++s )
        {
            cnTransform t = { cnMakeVec3( 1.0, -2.0, 3.5 ), cntRotation( &random ) };
            cntPlace( shapes + s, t );
            for ( int k = 0; k < 16; ++k )
            {
                cnVec3 d = cntDirection( &random );
                cnVec3 expected = cnTransformPoint(
                    t, cnLocalSupport( &shapes[s].geometry, &shapes[s].hull, cnInvRotate( t.q, d ) ) );
                cnVec3 world = cnWorldSupport( &shapes[s].placed, d );
                ck_assert( cnLength( cnSub( world, expected ) ) < 1e-12 * ( 1.0 + cnLength( expected ) ) );
            }
        }
    }
    cntDestroyHullTemplates( &templates );
}
END_TEST

START_TEST( test_aabb_contains_and_tight )
{
    cntHullTemplates templates;
    cntCreateHullTemplates( &templates );
    cntRandom random = { 31 };
    int failures = 0;
    double worstTouch = 0.0;
    for ( int type = 0; type < cn_planeShape; ++type )
    {
        cntShape shapes[4];
        int count = cntShapesOfType( (cnShapeType)type, &templates, shapes );
        for ( int s = 0; s < count; ++s )
        {
            for ( int pose = 0; pose < 8; ++pose )
            {
                cnTransform t = { cnScale( 3.0, cntDirection( &random ) ),
                                  pose == 0 ? cn_quatIdentity : cntRotation( &random ) };
                cntShape* shape = shapes + s;
                cntPlace( shape, t );
                cnAABB box = cnComputeAABB( &shape->placed );
                cnVec3 extent = cnSub( box.upper, box.lower );
                double size = fmax( extent.x, fmax( extent.y, extent.z ) );
                double lower[3] = { INFINITY, INFINITY, INFINITY },
                       upper[3] = { -INFINITY, -INFINITY, -INFINITY };
                int outside = 0;
                int n = type == cn_boxShape ? 8 : ( type == cn_hullShape ? shape->hull.vertexCount : 0 );
                for ( int i = 0; i < CNT_SAMPLES + n; ++i )
                {
                    cnVec3 local;
                    if ( i < n && type == cn_hullShape )
                    {
                        local = shape->vertices[i];
                    }
                    else if ( i < n )
                    {
                        cnVec3 h = shape->geometry.box.halfExtents;
                        local = cnMakeVec3( ( i & 1 ) ? h.x : -h.x, ( i & 2 ) ? h.y : -h.y,
                                            ( i & 4 ) ? h.z : -h.z );
                    }
                    else
                    {
                        local = cntSampleSurface( shape, &random );
                    }
                    cnVec3 w = cnTransformPoint( t, local );
                    double c[3] = { w.x, w.y, w.z };
                    double lo[3] = { box.lower.x, box.lower.y, box.lower.z };
                    double hi[3] = { box.upper.x, box.upper.y, box.upper.z };
                    for ( int j = 0; j < 3; ++j )
                    {
                        lower[j] = fmin( lower[j], c[j] );
                        upper[j] = fmax( upper[j], c[j] );
                        if ( c[j] < lo[j] - 1e-12 * size || c[j] > hi[j] + 1e-12 * size )
                        {
                            outside += 1;
                        }
                    }
                }
                // each face touched: within 1e-3 of the extent for sampled smooth surfaces, to
                // rounding for boxes and hulls (their vertices are among the samples)
                double lo[3] = { box.lower.x, box.lower.y, box.lower.z };
                double hi[3] = { box.upper.x, box.upper.y, box.upper.z };
                double e[3] = { extent.x, extent.y, extent.z };
                double tolerance = type == cn_boxShape || type == cn_hullShape ? 1e-12 : 1e-3;
                double touch = 0.0;
                for ( int j = 0; j < 3; ++j )
                {
                    touch = fmax( touch, fmax( lower[j] - lo[j], hi[j] - upper[j] ) / e[j] );
                }
                worstTouch = fmax( worstTouch, type == cn_boxShape || type == cn_hullShape ? 0.0 : touch );
                // and the faces are the support values along the axes (exact for convex shapes,
                // the hull of the torus included)
                double supportError = 0.0;
                for ( int j = 0; j < 3; ++j )
                {
                    double axis[3] = { 0.0, 0.0, 0.0 };
                    axis[j] = 1.0;
                    cnVec3 a = { axis[0], axis[1], axis[2] };
                    double up = cnDot( a, cnWorldSupport( &shape->placed, a ) );
                    double down = cnDot( a, cnWorldSupport( &shape->placed, cnNeg( a ) ) );
                    supportError =
                        fmax( supportError, fmax( fabs( up - hi[j] ), fabs( down - lo[j] ) ) / size );
                }
                if ( outside > 0 || touch > tolerance || supportError > 1e-12 )
                {
                    if ( failures < 10 )
                    {
                        printf( "aabb %s #%d pose %d: %d outside, touch %g, support error %g\n",
                                cntTypeName( (cnShapeType)type ), s, pose, outside, touch, supportError );
                    }
                    failures += 1;
                }
            }
        }
    }
    if ( cntVerbose() )
    {
        printf( "  aabb: worst face gap of the smooth shapes' samples %.3g of the extent\n", worstTouch );
    }
    fflush( stdout );
    ck_assert_int_eq( failures, 0 );
    cntDestroyHullTemplates( &templates );
}
END_TEST

START_TEST( test_aabb_plane )
{
    cntShape plane;
    cntMakePlane( &plane, cnMakeVec3( 0.0, 0.0, 1.0 ), 0.5 );
    cnTransform t = { cnMakeVec3( 3.0, 4.0, 1.0 ), cn_quatIdentity };
    cntPlace( &plane, t );
    cnAABB box = cnComputeAABB( &plane.placed );
    // z <= 1.5, padded by 1e-6 (1 + 1.5)
    CNT_ASSERT_ABS( box.upper.z, 1.5 + 2.5e-6, 1e-15 );
    ck_assert( box.lower.z == -CN_HUGE && box.lower.x == -CN_HUGE && box.upper.x == CN_HUGE );

    // turned upside down by a rotation: the bound moves to the lower side
    cnTransform flipped = { cnMakeVec3( 0.0, 0.0, -2.0 ),
                            cnQuatFromAxisAngle( cnMakeVec3( 1.0, 0.0, 0.0 ), CNT_PI ) };
    cntPlace( &plane, flipped );
    box = cnComputeAABB( &plane.placed );
    // world normal -z, offset 0.5 + dot(-z, p) = 2.5: -z <= 2.5, z >= -2.5
    CNT_ASSERT_ABS( box.lower.z, -2.5 - 3.5e-6, 1e-12 );
    ck_assert( box.upper.z == CN_HUGE );

    // a tilted plane: unbounded on every axis
    cntMakePlane( &plane, cnMakeVec3( 0.0, 0.1, 1.0 ), 0.0 );
    box = cnComputeAABB( &plane.placed );
    ck_assert( box.lower.x == -CN_HUGE && box.upper.y == CN_HUGE && box.upper.z == CN_HUGE &&
               box.lower.z == -CN_HUGE );

    // a plane along x in its own frame turned onto y
    cntMakePlane( &plane, cnMakeVec3( 1.0, 0.0, 0.0 ), -1.0 );
    cnTransform turn = { cn_vec3Zero, cnQuatFromAxisAngle( cnMakeVec3( 0.0, 0.0, 1.0 ), 0.5 * CNT_PI ) };
    cntPlace( &plane, turn );
    box = cnComputeAABB( &plane.placed );
    CNT_ASSERT_ABS( box.upper.y, -1.0 + 2e-6, 1e-12 );
    ck_assert( box.upper.x == CN_HUGE && box.lower.y == -CN_HUGE );
}
END_TEST

START_TEST( test_aabb_helpers )
{
    cnAABB a = { { 0.0, 0.0, 0.0 }, { 1.0, 1.0, 1.0 } };
    cnAABB b = { { 1.0, 0.5, -1.0 }, { 2.0, 0.75, 0.0 } };
    cnAABB c = { { 1.5, 0.0, 0.0 }, { 2.0, 1.0, 1.0 } };
    ck_assert( cnAABBOverlaps( a, b ) ); // touching faces and an edge
    ck_assert( cnAABBOverlaps( b, a ) );
    ck_assert( !cnAABBOverlaps( a, c ) );
    ck_assert( cnAABBOverlaps( cnAABBInflate( a, 0.5 ), c ) );
    cnAABB u = cnAABBUnion( a, c );
    ck_assert( u.lower.x == 0.0 && u.upper.x == 2.0 && u.lower.z == 0.0 && u.upper.z == 1.0 );
    ck_assert( cnAABBContains( u, a ) && cnAABBContains( u, c ) && !cnAABBContains( a, u ) );
    ck_assert( cnAABBContains( a, a ) );
}
END_TEST

Suite* cntSupportSuite( void )
{
    Suite* suite = suite_create( "support" );
    TCase* tc = tcase_create( "support" );
    tcase_set_timeout( tc, 120 );
    tcase_add_test( tc, test_support_on_surface_and_maximal );
    tcase_add_test( tc, test_world_support );
    tcase_add_test( tc, test_aabb_contains_and_tight );
    tcase_add_test( tc, test_aabb_plane );
    tcase_add_test( tc, test_aabb_helpers );
    suite_add_tcase( suite, tc );
    return suite;
}
