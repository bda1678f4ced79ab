// SPDX-License-Identifier: MIT
// The persistent manifold of cnCollideConvex: a hull cube and a cylinder resting flat on a big hull
// box build up four points over a few perturbed steps, keep their ids, and lose them when the
// bodies slide apart. Set CNT_VERBOSE=1 to print the manifolds.

#include "convex_helpers.h"
#include "test_convex_suites.h"
#include "test_support.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static bool cntHasId( const cnManifold* m, uint32_t id )
{
    for ( int i = 0; i < m->pointCount; ++i )
    {
        if ( m->points[i].id == id )
        {
            return true;
        }
    }
    return false;
}

// rest `shape` (half height `halfHeight`) on `ground` (top at z = 0), tilted a little towards a
// different side every step, and check the manifold it builds
static void cntRestingContact( cntShape* shape, double halfHeight, cntShape* ground, const char* what )
{
    cnManifold previous, m;
    memset( &previous, 0, sizeof( previous ) );
    cntRandom random = { 17 };
    int fullAt = -1;
    cnManifold full;
    memset( &full, 0, sizeof( full ) );
    for ( int step = 0; step < 16; ++step )
    {
        double phi = 0.5 * CNT_PI * (double)step + 0.25 * CNT_PI;
        cnVec3 axis = { cos( phi ), sin( phi ), 0.0 };
        cnTransform t = { cnMakeVec3( 1e-5 * cntRange( &random, -1.0, 1.0 ),
                                      1e-5 * cntRange( &random, -1.0, 1.0 ), halfHeight - 1e-3 ),
                          cnQuatFromAxisAngle( axis, 2e-3 ) };
        cntPlace( shape, t );
        cnCollideConvex( &shape->placed, &ground->placed, 0.02, &previous, &m );
        ck_assert_int_ge( m.pointCount, 1 );
        ck_assert_int_le( m.pointCount, CN_MAX_MANIFOLD_POINTS );
        CNT_ASSERT_ABS( m.normal.z, -1.0, 1e-9 );
        for ( int i = 0; i < m.pointCount; ++i )
        {
            // resting: every point within a few millimetres of touching
            ck_assert( m.points[i].separation < 0.01 && m.points[i].separation > -0.01 );
            for ( int j = 0; j < i; ++j )
            {
                ck_assert_msg( m.points[i].id != m.points[j].id, "%s: duplicate id", what );
            }
        }
        // a point that persists keeps its id and stays on the same spot of the shape
        for ( int i = 0; i < m.pointCount; ++i )
        {
            for ( int j = 0; j < previous.pointCount; ++j )
            {
                if ( previous.points[j].id == m.points[i].id )
                {
                    ck_assert_msg( cnLength( cnSub( previous.points[j].localA, m.points[i].localA ) ) < 0.03,
                                   "%s: id %u moved", what, m.points[i].id );
                }
            }
        }
        if ( cntVerbose() )
        {
            printf( "  %s step %d: %d points, ids", what, step, m.pointCount );
            for ( int i = 0; i < m.pointCount; ++i )
            {
                printf( " %u (%.3f %.3f, %.2e)", m.points[i].id, m.points[i].point.x, m.points[i].point.y,
                        m.points[i].separation );
            }
            printf( "\n" );
        }
        if ( fullAt < 0 && m.pointCount == CN_MAX_MANIFOLD_POINTS )
        {
            fullAt = step;
            full = m;
        }
        else if ( fullAt >= 0 )
        {
            // once full, the same four ids stay (new points replace the nearby old ones)
            ck_assert_int_eq( m.pointCount, CN_MAX_MANIFOLD_POINTS );
            for ( int i = 0; i < full.pointCount; ++i )
            {
                ck_assert_msg( cntHasId( &m, full.points[i].id ), "%s step %d: id %u lost", what, step,
                               full.points[i].id );
            }
        }
        previous = m;
    }
    ck_assert_msg( fullAt >= 0 && fullAt <= 8, "%s: four points after %d steps", what, fullAt );

    // the four points span the contact: their xy spread is most of the shape's footprint
    double spread = 0.0;
    for ( int i = 0; i < m.pointCount; ++i )
    {
        for ( int j = 0; j < i; ++j )
        {
            spread = fmax( spread, cnLength( cnSub( m.points[i].point, m.points[j].point ) ) );
        }
    }
    ck_assert_msg( spread > 0.5, "%s: points span %g m", what, spread );

    // slide by 0.1 m (more than the 0.02 m drift threshold): the old points go, a new one comes
    uint32_t maxId = 0;
    for ( int i = 0; i < previous.pointCount; ++i )
    {
        maxId = previous.points[i].id > maxId ? previous.points[i].id : maxId;
    }
    cnTransform slid = shape->placed.transform;
    slid.p.x += 0.1;
    cntPlace( shape, slid );
    cnCollideConvex( &shape->placed, &ground->placed, 0.02, &previous, &m );
    ck_assert_int_eq( m.pointCount, 1 );
    ck_assert_uint_eq( m.points[0].id, maxId + 1u );

    // lifted beyond the margin: nothing
    slid.p.z += 0.05;
    cntPlace( shape, slid );
    previous = m;
    cnCollideConvex( &shape->placed, &ground->placed, 0.02, &previous, &m );
    ck_assert_int_eq( m.pointCount, 0 );
}

START_TEST( test_cube_on_box )
{
    cntHullTemplates templates;
    cntCreateHullTemplates( &templates );
    cntShape cube, ground;
    cntMakeHull( &cube, &templates.hulls[cnt_hullCube], cnMakeVec3( 0.5, 0.5, 0.5 ) );
    cntMakeHull( &ground, &templates.hulls[cnt_hullCube], cnMakeVec3( 5.0, 5.0, 0.5 ) );
    cnTransform below = { cnMakeVec3( 0.3, -0.2, -0.5 ), cn_quatIdentity };
    cntPlace( &ground, below );
    cntRestingContact( &cube, 0.5, &ground, "hull cube" );
    cntDestroyHullTemplates( &templates );
}
END_TEST

START_TEST( test_cylinder_on_box )
{
    cntHullTemplates templates;
    cntCreateHullTemplates( &templates );
    cntShape cylinder, ground;
    cntMakeCylinder( &cylinder, 0.5, 0.25 );
    cntMakeHull( &ground, &templates.hulls[cnt_hullCube], cnMakeVec3( 5.0, 5.0, 0.5 ) );
    cnTransform below = { cnMakeVec3( -0.3, 0.2, -0.5 ), cn_quatIdentity };
    cntPlace( &ground, below );
    cntRestingContact( &cylinder, 0.25, &ground, "cylinder" );
    cntDestroyHullTemplates( &templates );
}
END_TEST

START_TEST( test_ids_wrap_and_alias )
{
    // ids continue from the largest previous id, wrapping; `previous` may be the output itself
    cntShape a, b;
    cntMakeBox( &a, cnMakeVec3( 0.5, 0.5, 0.5 ) );
    cntMakeBox( &b, cnMakeVec3( 0.5, 0.5, 0.5 ) );
    cnTransform tb = { cnMakeVec3( 5.0, 0.0, 0.9 ), cn_quatIdentity };
    cntPlace( &a, cn_transformIdentity );
    cntPlace( &b, tb );
    cnManifold m;
    memset( &m, 0, sizeof( m ) );
    m.pointCount = 1;
    m.normal = cnMakeVec3( 0.0, 0.0, 1.0 );
    m.points[0].id = UINT32_MAX;
    m.points[0].localA = cnMakeVec3( 9.0, 9.0, 9.0 ); // far away: dropped
    m.points[0].localB = cnMakeVec3( -9.0, 9.0, 9.0 );
    tb.p.x = 0.2;
    cntPlace( &b, tb );
    cnCollideConvex( &a.placed, &b.placed, 0.0, &m, &m );
    ck_assert_int_eq( m.pointCount, 1 );
    ck_assert_uint_eq( m.points[0].id, 0u );
    CNT_ASSERT_ABS( m.points[0].separation, -0.1, 1e-12 );
}
END_TEST

Suite* cntManifoldSuite( void )
{
    Suite* suite = suite_create( "manifold" );
    TCase* tc = tcase_create( "manifold" );
    tcase_set_timeout( tc, 60 );
    tcase_add_test( tc, test_cube_on_box );
    tcase_add_test( tc, test_cylinder_on_box );
    tcase_add_test( tc, test_ids_wrap_and_alias );
    suite_add_tcase( suite, tc );
    return suite;
}
