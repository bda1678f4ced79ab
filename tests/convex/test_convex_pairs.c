// SPDX-License-Identifier: MIT
// cnCollideConvex and cnConvexQuery against closed forms (sphere, capsule, equal-radii ellipsoid),
// the libccd box-box regression cases (read from the shared data folder), separated pairs within
// the margin, and the degenerate inputs libccd is known to stumble on.
// Set CNT_VERBOSE=1 to print the measured errors.

#include "convex_helpers.h"
#include "test_convex_suites.h"
#include "test_support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// closest points of segments p1q1 and p2q2 (Ericson 5.1.9)
static void cntClosestSegmentSegment( cnVec3 p1, cnVec3 q1, cnVec3 p2, cnVec3 q2, cnVec3* c1, cnVec3* c2 )
{
    cnVec3 d1 = cnSub( q1, p1 ), d2 = cnSub( q2, p2 ), r = cnSub( p1, p2 );
    double a = cnDot( d1, d1 ), e = cnDot( d2, d2 ), f = cnDot( d2, r );
    double s, t;
    if ( a <= 1e-300 && e <= 1e-300 )
    {
        s = t = 0.0;
    }
    else if ( a <= 1e-300 )
    {
        s = 0.0;
        t = fmin( 1.0, fmax( 0.0, f / e ) );
    }
    else
    {
        double c = cnDot( d1, r );
        if ( e <= 1e-300 )
        {
            t = 0.0;
            s = fmin( 1.0, fmax( 0.0, -c / a ) );
        }
        else
        {
            double b = cnDot( d1, d2 ), denom = a * e - b * b;
            s = denom > 0.0 ? fmin( 1.0, fmax( 0.0, ( b * f - c * e ) / denom ) ) : 0.0;
            t = ( b * s + f ) / e;
            if ( t < 0.0 )
            {
                t = 0.0;
                s = fmin( 1.0, fmax( 0.0, -c / a ) );
            }
            else if ( t > 1.0 )
            {
                t = 1.0;
                s = fmin( 1.0, fmax( 0.0, ( b - c ) / a ) );
            }
        }
    }
    *c1 = cnMulAdd( p1, s, d1 );
    *c2 = cnMulAdd( p2, t, d2 );
}

static void cntSegment( const cntShape* capsule, cnVec3* p, cnVec3* q )
{
    double hl = capsule->geometry.capsule.halfLength;
    *p = cnTransformPoint( capsule->placed.transform, cnMakeVec3( 0.0, 0.0, -hl ) );
    *q = cnTransformPoint( capsule->placed.transform, cnMakeVec3( 0.0, 0.0, hl ) );
}

typedef struct cntErrors
{
    double depth;
    double normal;
    int count;
} cntErrors;

// one query against the exact separation and normal; returns false on a non-finite answer
static bool cntCompare( const cntShape* a, const cntShape* b, double exactSeparation, cnVec3 exactNormal,
                        double margin, cntErrors* errors )
{
    cnManifold m;
    cnCollideConvex( &a->placed, &b->placed, margin, NULL, &m );
    if ( m.pointCount != 1 || !cnIsFiniteVec3( m.normal ) || !isfinite( m.points[0].separation ) )
    {
        printf( "compare %s-%s: %d points, normal (%g %g %g)\n", cntTypeName( a->geometry.type ),
                cntTypeName( b->geometry.type ), m.pointCount, m.normal.x, m.normal.y, m.normal.z );
        return false;
    }
    if ( cntVerbose() && fabs( m.points[0].separation - exactSeparation ) > 1e-6 )
    {
        cnConvexContact c;
        cnConvexQuery( &a->placed, &b->placed, NULL, &c );
        printf( "  large error: %s-%s separation %.9g exact %.9g, normal (%g %g %g) exact (%g %g %g), source "
                "%d\n",
                cntTypeName( a->geometry.type ), cntTypeName( b->geometry.type ), m.points[0].separation,
                exactSeparation, m.normal.x, m.normal.y, m.normal.z, exactNormal.x, exactNormal.y,
                exactNormal.z, c.source );
    }
    errors->depth = fmax( errors->depth, fabs( m.points[0].separation - exactSeparation ) );
    errors->normal = fmax( errors->normal, cnLength( cnSub( m.normal, exactNormal ) ) );
    errors->count += 1;
    return true;
}

static void cntReport( const char* what, const cntErrors* e )
{
    if ( cntVerbose() )
    {
        printf( "  %-34s %4d cases: separation error %.3g m, normal error %.3g\n", what, e->count, e->depth,
                e->normal );
    }
}

START_TEST( test_sphere_sphere )
{
    cntRandom random = { 1 };
    cntErrors overlap = { 0 }, apart = { 0 };
    for ( int i = 0; i < 400; ++i )
    {
        cntShape a, b;
        double ra = cntRange( &random, 0.2, 2.0 ), rb = cntRange( &random, 0.2, 2.0 );
        cntMakeSphere( &a, ra );
        cntMakeSphere( &b, rb );
        cnVec3 ca = cntDirection( &random ), u = cntDirection( &random );
        // overlapping for half of the cases, apart within the margin for the others
        double d = i % 2 == 0 ? cntRange( &random, 0.05, 0.98 ) * ( ra + rb )
                              : ra + rb + cntRange( &random, 0.0, 0.1 );
        cnTransform ta = { ca, cntRotation( &random ) },
                    tb = { cnMulAdd( ca, d, u ), cntRotation( &random ) };
        cntPlace( &a, ta );
        cntPlace( &b, tb );
        ck_assert( cntCompare( &a, &b, d - ra - rb, u, 0.2, i % 2 == 0 ? &overlap : &apart ) );
    }
    cntReport( "sphere-sphere overlapping", &overlap );
    cntReport( "sphere-sphere apart (margin 0.2)", &apart );
    ck_assert_msg( overlap.depth < 1e-9 && overlap.normal < 1e-9, "%g %g", overlap.depth, overlap.normal );
    ck_assert_msg( apart.depth < 1e-9 && apart.normal < 1e-9, "%g %g", apart.depth, apart.normal );
}
END_TEST

START_TEST( test_sphere_capsule )
{
    cntRandom random = { 2 };
    cntErrors overlap = { 0 }, apart = { 0 };
    int done = 0;
    while ( done < 400 )
    {
        cntShape a, b;
        double rs = cntRange( &random, 0.2, 1.5 ), rc = cntRange( &random, 0.1, 1.0 ),
               hl = cntRange( &random, 0.0, 2.0 );
        cntMakeSphere( &a, rs );
        cntMakeCapsule( &b, rc, hl );
        cnTransform tb = { cnScale( 0.5, cntDirection( &random ) ), cntRotation( &random ) };
        cntPlace( &b, tb );
        cnVec3 p, q;
        cntSegment( &b, &p, &q );
        bool wantOverlap = done % 2 == 0;
        double target = wantOverlap ? cntRange( &random, 0.05, 0.95 ) * ( rs + rc )
                                    : rs + rc + cntRange( &random, 0.0, 0.1 );
        cnVec3 onSegment = cnAdd( p, cnScale( cntUniform( &random ), cnSub( q, p ) ) );
        cnVec3 c = cnMulAdd( onSegment, target, cntDirection( &random ) );
        cnTransform ta = { c, cntRotation( &random ) };
        cntPlace( &a, ta );
        // exact: closest point of the core segment
        cnVec3 qa, qb;
        cntClosestSegmentSegment( c, c, p, q, &qa, &qb );
        double dist = cnLength( cnSub( qb, c ) );
        if ( dist < 1e-3 )
        {
            continue;
        }
        cnVec3 n = cnScale( 1.0 / dist, cnSub( qb, c ) );
        ck_assert( cntCompare( &a, &b, dist - rs - rc, n, 0.2, dist < rs + rc ? &overlap : &apart ) );
        done += 1;
    }
    cntReport( "sphere-capsule overlapping", &overlap );
    cntReport( "sphere-capsule apart (margin 0.2)", &apart );
    ck_assert_msg( overlap.depth < 1e-9 && overlap.normal < 1e-6, "%g %g", overlap.depth, overlap.normal );
    ck_assert_msg( apart.depth < 1e-9 && apart.normal < 1e-6, "%g %g", apart.depth, apart.normal );
}
END_TEST

START_TEST( test_capsule_capsule )
{
    cntRandom random = { 3 };
    cntErrors overlap = { 0 }, apart = { 0 };
    int done = 0;
    while ( done < 400 )
    {
        cntShape a, b;
        double ra = cntRange( &random, 0.1, 1.0 ), rb = cntRange( &random, 0.1, 1.0 );
        cntMakeCapsule( &a, ra, cntRange( &random, 0.0, 2.0 ) );
        cntMakeCapsule( &b, rb, cntRange( &random, 0.0, 2.0 ) );
        cnTransform ta = { cntDirection( &random ), cntRotation( &random ) };
        cnTransform tb = { cnScale( cntRange( &random, 0.0, 3.0 ), cntDirection( &random ) ),
                           cntRotation( &random ) };
        cntPlace( &a, ta );
        cntPlace( &b, tb );
        cnVec3 p1, q1, p2, q2, c1, c2;
        cntSegment( &a, &p1, &q1 );
        cntSegment( &b, &p2, &q2 );
        cntClosestSegmentSegment( p1, q1, p2, q2, &c1, &c2 );
        double dist = cnLength( cnSub( c2, c1 ) );
        // the closed form's normal is defined when the cores are apart and not parallel
        cnVec3 e1 = cnNormalize( cnSub( q1, p1 ) ), e2 = cnNormalize( cnSub( q2, p2 ) );
        if ( dist < 1e-2 || dist > ra + rb + 0.1 || cnLength( cnCross( e1, e2 ) ) < 1e-2 )
        {
            continue;
        }
        cnVec3 n = cnScale( 1.0 / dist, cnSub( c2, c1 ) );
        ck_assert( cntCompare( &a, &b, dist - ra - rb, n, 0.2, dist < ra + rb ? &overlap : &apart ) );
        done += 1;
    }
    cntReport( "capsule-capsule overlapping", &overlap );
    cntReport( "capsule-capsule apart (margin 0.2)", &apart );
    ck_assert_msg( overlap.depth < 1e-9 && overlap.normal < 1e-6, "%g %g", overlap.depth, overlap.normal );
    ck_assert_msg( apart.depth < 1e-9 && apart.normal < 1e-6, "%g %g", apart.depth, apart.normal );
}
END_TEST

START_TEST( test_round_ellipsoid_is_a_sphere )
{
    cntRandom random = { 4 };
    cntErrors errors = { 0 };
    double worstAgreement = 0.0;
    for ( int i = 0; i < 300; ++i )
    {
        double re = cntRange( &random, 0.2, 2.0 ), rs = cntRange( &random, 0.2, 2.0 );
        cntShape e, s, e2;
        cntMakeEllipsoid( &e, cnMakeVec3( re, re, re ) );
        cntMakeSphere( &e2, re );
        cntMakeSphere( &s, rs );
        cnVec3 u = cntDirection( &random );
        double d = cntRange( &random, 0.05, 1.05 ) * ( re + rs );
        cnTransform te = { cn_vec3Zero, cntRotation( &random ) },
                    ts = { cnScale( d, u ), cntRotation( &random ) };
        cntPlace( &e, te );
        cntPlace( &e2, te );
        cntPlace( &s, ts );
        ck_assert( cntCompare( &e, &s, d - re - rs, u, 0.2, &errors ) );
        cnManifold me, ms;
        cnCollideConvex( &e.placed, &s.placed, 0.2, NULL, &me );
        cnCollideConvex( &e2.placed, &s.placed, 0.2, NULL, &ms );
        ck_assert_int_eq( me.pointCount, ms.pointCount );
        worstAgreement = fmax( worstAgreement, fabs( me.points[0].separation - ms.points[0].separation ) );
        worstAgreement = fmax( worstAgreement, cnLength( cnSub( me.normal, ms.normal ) ) );
        worstAgreement = fmax( worstAgreement, cnLength( cnSub( me.points[0].point, ms.points[0].point ) ) );
    }
    cntReport( "round ellipsoid-sphere", &errors );
    if ( cntVerbose() )
    {
        printf( "  round ellipsoid vs sphere answers differ by at most %.3g\n", worstAgreement );
    }
    ck_assert_msg( errors.depth < 1e-9 && errors.normal < 1e-6, "%g %g", errors.depth, errors.normal );
    ck_assert_msg( worstAgreement < 1e-6, "%g", worstAgreement );
}
END_TEST

// ---------------------------------------------------------------------------------------------
// libccd's box-box penetration cases

#define CNT_BOXBOX_CSV CN_SHARED_DIR "/external-data/libccd-regressions/boxbox_penetration_cases.csv"

START_TEST( test_libccd_boxbox_cases )
{
    FILE* file = fopen( CNT_BOXBOX_CSV, "r" );
    if ( file == NULL )
    {
        printf( "skipped: %s not found\n", CNT_BOXBOX_CSV );
        return;
    }
    char line[2048];
    int cases = 0;
    double worstDepth = 0.0, worstNormal = 0.0, worstMprDepth = 0.0, worstMprNormal = 0.0;
    while ( fgets( line, (int)sizeof( line ), file ) != NULL )
    {
        if ( line[0] == '#' || strncmp( line, "case", 4 ) == 0 || line[0] == '\n' )
        {
            continue;
        }
        double v[30];
        int n = 0;
        char* cursor = line;
        while ( n < 30 )
        {
            char* end;
            v[n] = strtod( cursor, &end );
            if ( end == cursor )
            {
                break;
            }
            n += 1;
            cursor = *end == ',' ? end + 1 : end;
        }
        ck_assert_msg( n == 30, "case line with %d numbers: %s", n, line );
        // case, box1 size(3) pos(3) q xyzw(4), box2 size(3) pos(3) q(4), ref_depth, ref_dir(3),
        // ref_pos(3), sat_depth, mpr_depth
        cntShape a, b;
        cntMakeBox( &a, cnMakeVec3( 0.5 * v[1], 0.5 * v[2], 0.5 * v[3] ) );
        cntMakeBox( &b, cnMakeVec3( 0.5 * v[11], 0.5 * v[12], 0.5 * v[13] ) );
        cnTransform ta = { cnMakeVec3( v[4], v[5], v[6] ),
                           cnNormalizeQuat( ( cnQuat ){ v[7], v[8], v[9], v[10] } ) };
        cnTransform tb = { cnMakeVec3( v[14], v[15], v[16] ),
                           cnNormalizeQuat( ( cnQuat ){ v[17], v[18], v[19], v[20] } ) };
        cntPlace( &a, ta );
        cntPlace( &b, tb );
        cnVec3 refDir = cnNormalize( cnMakeVec3( v[22], v[23], v[24] ) );
        double satDepth = v[28];

        cnConvexContact contact;
        ck_assert( cnConvexQuery( &a.placed, &b.placed, NULL, &contact ) );
        double depth = -contact.separation;
        double depthError = fabs( depth - satDepth );
        double normalError = cnLength( cnSub( contact.normal, refDir ) );
        // and libccd's MPR alone, as the bridge calls it (its own depth, its own direction)
        double mprDepth = 0.0;
        cnVec3 mprNormal, mprPosition;
        ck_assert( cnMprPenetration( &a.placed, &b.placed, &mprDepth, &mprNormal, &mprPosition ) );
        double mprDepthError = fabs( mprDepth - satDepth );
        double mprNormalError = cnLength( cnSub( mprNormal, refDir ) );
        worstMprNormal = fmax( worstMprNormal, mprNormalError );
        worstDepth = fmax( worstDepth, depthError );
        worstNormal = fmax( worstNormal, normalError );
        worstMprDepth = fmax( worstMprDepth, mprDepthError );
        if ( cntVerbose() )
        {
            printf( "  box-box case %d: depth %.9f (SAT %.6f, error %.2g), normal error %.2g, won by %d; "
                    "libccd MPR alone: depth %.9f (error %.2g), normal error %.2g\n",
                    (int)v[0], depth, satDepth, depthError, normalError, contact.source, mprDepth,
                    mprDepthError, mprNormalError );
        }
        cnManifold m;
        cnCollideConvex( &a.placed, &b.placed, 0.0, NULL, &m );
        ck_assert_int_eq( m.pointCount, 1 );
        CNT_ASSERT_ABS( cnLength( m.normal ), 1.0, 1e-12 );
        // the CSV's depths have 6 decimals
        ck_assert_msg( depthError < 2e-6, "case %d: depth %.9f, SAT %.6f", (int)v[0], depth, satDepth );
        ck_assert_msg( normalError < 2e-6, "case %d: normal error %g", (int)v[0], normalError );
        cases += 1;
    }
    fclose( file );
    ck_assert_int_eq( cases, 8 );
    if ( cntVerbose() )
    {
        printf(
            "  box-box: worst depth error %.3g, normal error %.3g; libccd MPR alone: depth %.3g, normal %.3g "
            "(errors include the CSV's 6-decimal rounding)\n",
            worstDepth, worstNormal, worstMprDepth, worstMprNormal );
    }
}
END_TEST

// ---------------------------------------------------------------------------------------------
// Separated pairs within the margin, and beyond it

START_TEST( test_separated_within_margin )
{
    cntShape a, b;
    cntMakeBox( &a, cnMakeVec3( 1.0, 1.0, 1.0 ) );
    cntMakeBox( &b, cnMakeVec3( 0.5, 0.5, 0.5 ) );
    cnTransform tb = { cnMakeVec3( 0.2, -0.3, 1.5 + 0.01 ), cn_quatIdentity };
    cntPlace( &a, cn_transformIdentity );
    cntPlace( &b, tb );
    cnManifold m;
    cnCollideConvex( &a.placed, &b.placed, 0.02, NULL, &m );
    ck_assert_int_eq( m.pointCount, 1 );
    CNT_ASSERT_ABS( m.points[0].separation, 0.01, 1e-12 );
    CNT_ASSERT_ABS( m.normal.z, 1.0, 1e-12 );
    // beyond the margin: nothing
    cnCollideConvex( &a.placed, &b.placed, 0.005, NULL, &m );
    ck_assert_int_eq( m.pointCount, 0 );

    // a capsule above a hull cube, apart by 0.05: the points sit on the surfaces
    cntHullTemplates templates;
    cntCreateHullTemplates( &templates );
    cntShape cube, capsule;
    cntMakeHull( &cube, &templates.hulls[cnt_hullCube], cnMakeVec3( 1.0, 1.0, 1.0 ) );
    cntMakeCapsule( &capsule, 0.25, 0.5 );
    cnTransform tc = { cnMakeVec3( 0.1, 0.2, 1.3 ),
                       cnQuatFromAxisAngle( cnMakeVec3( 1.0, 0.0, 0.0 ), 0.5 * CNT_PI ) };
    cntPlace( &cube, cn_transformIdentity );
    cntPlace( &capsule, tc );
    cnCollideConvex( &capsule.placed, &cube.placed, 0.1, NULL, &m );
    ck_assert_int_eq( m.pointCount, 1 );
    CNT_ASSERT_ABS( m.points[0].separation, 0.05, 1e-9 );
    CNT_ASSERT_ABS( m.normal.z, -1.0, 1e-9 );
    CNT_ASSERT_ABS( cnTransformPoint( cube.placed.transform, m.points[0].localB ).z, 1.0, 1e-9 );
    CNT_ASSERT_ABS( cnTransformPoint( capsule.placed.transform, m.points[0].localA ).z, 1.05, 1e-9 );
    cntDestroyHullTemplates( &templates );
}
END_TEST

START_TEST( test_distance )
{
    cntRandom random = { 9 };
    double worst = 0.0;
    int worstIterations = 0;
    for ( int i = 0; i < 300; ++i )
    {
        cntShape a, b;
        double ra = cntRange( &random, 0.1, 2.0 ), rb = cntRange( &random, 0.1, 2.0 );
        cntMakeSphere( &a, ra );
        cntMakeCapsule( &b, rb, 0.0 ); // a capsule of zero length is a sphere
        cnVec3 u = cntDirection( &random );
        double gap = cntLogUniform( &random, 1e-6, 10.0 );
        cnTransform tb = { cnScale( ra + rb + gap, u ), cntRotation( &random ) };
        cntPlace( &a, cn_transformIdentity );
        cntPlace( &b, tb );
        cnDistanceResult r = cnConvexDistance( &a.placed, &b.placed );
        ck_assert( !r.overlap );
        worst = fmax( worst, fabs( r.distance - gap ) / gap );
        worstIterations = r.iterations > worstIterations ? r.iterations : worstIterations;
        ck_assert( cnLength( cnSub( r.normal, u ) ) < 1e-6 );
    }
    if ( cntVerbose() )
    {
        printf( "  GJK sphere distance: worst relative error %.3g, at most %d iterations\n", worst,
                worstIterations );
    }
    ck_assert_msg( worst < 1e-6, "%g", worst );
}
END_TEST

// ---------------------------------------------------------------------------------------------
// Guards

static void cntAssertSane( const cnManifold* m, const char* what )
{
    ck_assert_msg( m->pointCount >= 0 && m->pointCount <= CN_MAX_MANIFOLD_POINTS, "%s: %d points", what,
                   m->pointCount );
    ck_assert_msg( cnIsFiniteVec3( m->normal ), "%s: normal not finite", what );
    if ( m->pointCount > 0 )
    {
        ck_assert_msg( fabs( cnLength( m->normal ) - 1.0 ) < 1e-9, "%s: |normal| = %.17g", what,
                       cnLength( m->normal ) );
    }
    for ( int i = 0; i < m->pointCount; ++i )
    {
        const cnManifoldPoint* p = m->points + i;
        ck_assert_msg( cnIsFiniteVec3( p->point ) && cnIsFiniteVec3( p->localA ) &&
                           cnIsFiniteVec3( p->localB ) && isfinite( p->separation ),
                       "%s: point %d not finite", what, i );
    }
}

START_TEST( test_guards )
{
    cntHullTemplates templates;
    cntCreateHullTemplates( &templates );
    cnManifold m;

    // face-touching boxes, exactly zero depth (libccd #25, #49, #68)
    cntShape a, b;
    cntMakeBox( &a, cnMakeVec3( 1.0, 1.0, 1.0 ) );
    cntMakeBox( &b, cnMakeVec3( 1.0, 1.0, 1.0 ) );
    cnTransform above = { cnMakeVec3( 0.0, 0.0, 2.0 ), cn_quatIdentity };
    cntPlace( &a, cn_transformIdentity );
    cntPlace( &b, above );
    cnCollideConvex( &a.placed, &b.placed, 0.01, NULL, &m );
    cntAssertSane( &m, "face-touching boxes" );
    ck_assert_int_eq( m.pointCount, 1 );
    CNT_ASSERT_ABS( m.points[0].separation, 0.0, 1e-12 );
    CNT_ASSERT_ABS( m.normal.z, 1.0, 1e-12 );
    // ... shifted sideways, and touching at an edge
    cnTransform side = { cnMakeVec3( 0.7, -0.3, 2.0 ), cn_quatIdentity };
    cntPlace( &b, side );
    cnCollideConvex( &a.placed, &b.placed, 0.0, NULL, &m );
    cntAssertSane( &m, "shifted face-touching boxes" );
    cnTransform edge = { cnMakeVec3( 2.0, 0.0, 2.0 ), cn_quatIdentity };
    cntPlace( &b, edge );
    cnCollideConvex( &a.placed, &b.placed, 0.01, NULL, &m );
    cntAssertSane( &m, "edge-touching boxes" );
    ck_assert_int_eq( m.pointCount, 1 );
    CNT_ASSERT_ABS( m.points[0].separation, 0.0, 1e-12 );

    // identical coincident shapes of every convex type
    for ( int type = 0; type < cn_planeShape; ++type )
    {
        if ( type == cn_torusShape )
        {
            continue;
        }
        cntRandom random = { (uint64_t)type + 100u };
        cntShape s;
        cntMakeRandomShape( &s, (cnShapeType)type, &templates, &random, 0.5, 2.0 );
        cntShape t = s;
        cnTransform pose = { cnMakeVec3( 1.0, 2.0, 3.0 ), cntRotation( &random ) };
        cntPlace( &s, pose );
        cntPlace( &t, pose );
        cnCollideConvex( &s.placed, &t.placed, 0.0, NULL, &m );
        cntAssertSane( &m, cntTypeName( (cnShapeType)type ) );
        ck_assert_int_eq( m.pointCount, 1 );
        ck_assert( m.points[0].separation < 0.0 );
        // the depth is the smallest width of the shape: at most twice the bounding radius
        ck_assert( -m.points[0].separation <=
                   2.0 * cnLocalBoundingRadius( &s.geometry, &s.hull ) * ( 1.0 + 1e-12 ) );
    }

    // a box deep inside a big box: the way out is through the nearest face
    cntShape big, small;
    cntMakeBox( &big, cnMakeVec3( 5.0, 3.0, 4.0 ) );
    cntMakeBox( &small, cnMakeVec3( 0.5, 0.5, 0.5 ) );
    cnTransform inside = { cnMakeVec3( 0.3, 0.2, -0.1 ),
                           cnQuatFromAxisAngle( cnMakeVec3( 0.0, 0.0, 1.0 ), 0.3 ) };
    cntPlace( &big, cn_transformIdentity );
    cntPlace( &small, inside );
    cnCollideConvex( &big.placed, &small.placed, 0.0, NULL, &m );
    cntAssertSane( &m, "box in a box" );
    ck_assert_int_eq( m.pointCount, 1 );
    // out through +y: 3 - 0.2 + the small box's y extent (0.5 (cos 0.3 + sin 0.3))
    double exact = 3.0 - 0.2 + 0.5 * ( cos( 0.3 ) + sin( 0.3 ) );
    CNT_ASSERT_ABS( -m.points[0].separation, exact, 1e-9 );
    CNT_ASSERT_ABS( m.normal.y, 1.0, 1e-9 );

    // 1e-9-thin boxes crossing, and a thin box on a thick one
    cntShape thin1, thin2;
    cntMakeBox( &thin1, cnMakeVec3( 1.0, 1.0, 1e-9 ) );
    cntMakeBox( &thin2, cnMakeVec3( 1.0, 1e-9, 1.0 ) );
    cntPlace( &thin1, cn_transformIdentity );
    cnTransform cross = { cnMakeVec3( 0.1, 0.0, 0.2 ),
                          cnQuatFromAxisAngle( cnMakeVec3( 0.0, 0.0, 1.0 ), 0.4 ) };
    cntPlace( &thin2, cross );
    cnCollideConvex( &thin1.placed, &thin2.placed, 0.01, NULL, &m );
    cntAssertSane( &m, "thin boxes" );
    ck_assert_int_eq( m.pointCount, 1 );
    cnTransform flat = { cnMakeVec3( 0.3, 0.0, 1.0 + 0.5e-9 ), cn_quatIdentity };
    cntPlace( &thin1, flat );
    cnCollideConvex( &a.placed, &thin1.placed, 0.01, NULL, &m );
    cntAssertSane( &m, "thin box on a box" );
    ck_assert_int_eq( m.pointCount, 1 );
    CNT_ASSERT_ABS( m.normal.z, 1.0, 1e-9 );

    // huge and tiny: a 1e-6 sphere on a 1e6 box, a 1e-6 box against a 1e-6 cylinder, 1e6 hulls
    cntShape huge, tiny;
    cntMakeBox( &huge, cnMakeVec3( 1e6, 1e6, 1e6 ) );
    cntMakeSphere( &tiny, 1e-6 );
    cnTransform top = { cnMakeVec3( 12.0, -7.0, 1e6 + 0.5e-6 ), cn_quatIdentity };
    cntPlace( &huge, cn_transformIdentity );
    cntPlace( &tiny, top );
    cnCollideConvex( &tiny.placed, &huge.placed, 1e-6, NULL, &m );
    cntAssertSane( &m, "tiny sphere on a huge box" );
    ck_assert_int_eq( m.pointCount, 1 );
    CNT_ASSERT_ABS( m.normal.z, -1.0, 1e-6 );
    CNT_ASSERT_ABS( m.points[0].separation, -0.5e-6, 1e-9 );
    cntShape tinyBox, tinyCylinder;
    cntMakeBox( &tinyBox, cnMakeVec3( 1e-6, 2e-6, 1e-6 ) );
    cntMakeCylinder( &tinyCylinder, 1e-6, 1e-6 );
    cnTransform near = { cnMakeVec3( 1e-6, 0.5e-6, 0.0 ),
                         cnQuatFromAxisAngle( cnMakeVec3( 1.0, 0.0, 0.0 ), 1.0 ) };
    cntPlace( &tinyBox, cn_transformIdentity );
    cntPlace( &tinyCylinder, near );
    cnCollideConvex( &tinyBox.placed, &tinyCylinder.placed, 1e-7, NULL, &m );
    cntAssertSane( &m, "tiny box and cylinder" );
    ck_assert_int_eq( m.pointCount, 1 );
    cntShape hugeHull1, hugeHull2;
    cntMakeHull( &hugeHull1, &templates.hulls[cnt_hullRound], cnMakeVec3( 1e6, 1e6, 1e6 ) );
    cntMakeHull( &hugeHull2, &templates.hulls[cnt_hullTetra], cnMakeVec3( 1e6, 2e6, 1e6 ) );
    cnTransform offset = { cnMakeVec3( 1.5e6, 0.0, 0.0 ), cntRotation( &( cntRandom ){ 8 } ) };
    cntPlace( &hugeHull1, cn_transformIdentity );
    cntPlace( &hugeHull2, offset );
    cnCollideConvex( &hugeHull1.placed, &hugeHull2.placed, 1.0, NULL, &m );
    cntAssertSane( &m, "huge hulls" );

    // non-finite transforms: no points, finite normal
    cnTransform bad = { cnMakeVec3( NAN, 0.0, 0.0 ), cn_quatIdentity };
    cntPlace( &b, bad );
    cnCollideConvex( &a.placed, &b.placed, 0.01, NULL, &m );
    cntAssertSane( &m, "NaN position" );
    ck_assert_int_eq( m.pointCount, 0 );
    cntDestroyHullTemplates( &templates );
}
END_TEST

Suite* cntConvexPairSuite( void )
{
    Suite* suite = suite_create( "convex pairs" );
    TCase* tc = tcase_create( "pairs" );
    tcase_set_timeout( tc, 120 );
    tcase_add_test( tc, test_sphere_sphere );
    tcase_add_test( tc, test_sphere_capsule );
    tcase_add_test( tc, test_capsule_capsule );
    tcase_add_test( tc, test_round_ellipsoid_is_a_sphere );
    tcase_add_test( tc, test_libccd_boxbox_cases );
    tcase_add_test( tc, test_separated_within_margin );
    tcase_add_test( tc, test_distance );
    tcase_add_test( tc, test_guards );
    suite_add_tcase( suite, tc );
    return suite;
}
