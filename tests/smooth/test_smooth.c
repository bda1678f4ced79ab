// SPDX-License-Identifier: MIT
// Verification of the smooth-surface queries (collision/smooth.h) against independent brute-force
// references (smooth_ref.c) and closed forms. See tests/smooth/README.md for what each case checks.

#include "ccd_support.h"
#include "smooth.h"
#include "smooth_ref.h"
#include "test_support.h"

#include <check.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef CNT_SMOOTH_DEFAULT_PAIRS
#    define CNT_SMOOTH_DEFAULT_PAIRS 1000
#endif
#define CNT_DIRECTIONS   12000
#define CNT_RING_SAMPLES 4096
#define CNT_MAX_REPORTS  4

static int cntEnvInt( const char* name, int fallback )
{
    const char* text = getenv( name );
    if ( text && *text )
    {
        int v = atoi( text );
        if ( v > 0 )
            return v;
    }
    return fallback;
}

static int cntPairSamples( void )
{
    return cntEnvInt( "CNT_SMOOTH_PAIRS", CNT_SMOOTH_DEFAULT_PAIRS );
}

// ------------------------------------------------------------------------------------------------
// the 21 type pairs

static int cntTypePairs( cnShapeType pairs[][2] )
{
    int count = 0;
    for ( int a = 0; a < cn_shapeTypeCount; ++a )
    {
        for ( int b = a; b < cn_shapeTypeCount; ++b )
        {
            bool smooth = a == cn_ellipsoidShape || a == cn_capsuleShape || a == cn_torusShape ||
                          b == cn_ellipsoidShape || b == cn_capsuleShape || b == cn_torusShape;
            if ( !smooth || ( a == cn_planeShape && b == cn_planeShape ) )
                continue;
            pairs[count][0] = (cnShapeType)a;
            pairs[count][1] = (cnShapeType)b;
            ++count;
        }
    }
    return count;
}

#define CNT_TYPE_PAIRS 21

// ------------------------------------------------------------------------------------------------
// helpers

static void cntDescribe( const trShape* s, char* buffer, size_t size )
{
    const cnGeometry* g = &s->geometry;
    cnTransform t = s->placed.transform;
    int n = 0;
    switch ( g->type )
    {
        case cn_sphereShape:
            n = snprintf( buffer, size, "sphere r=%.17g", g->sphere.radius );
            break;
        case cn_boxShape:
            n = snprintf( buffer, size, "box h=(%.17g, %.17g, %.17g)", g->box.halfExtents.x,
                          g->box.halfExtents.y, g->box.halfExtents.z );
            break;
        case cn_capsuleShape:
            n = snprintf( buffer, size, "capsule r=%.17g hl=%.17g", g->capsule.radius,
                          g->capsule.halfLength );
            break;
        case cn_cylinderShape:
            n = snprintf( buffer, size, "cylinder r=%.17g hl=%.17g", g->cylinder.radius,
                          g->cylinder.halfLength );
            break;
        case cn_ellipsoidShape:
            n = snprintf( buffer, size, "ellipsoid radii=(%.17g, %.17g, %.17g)", g->ellipsoid.radii.x,
                          g->ellipsoid.radii.y, g->ellipsoid.radii.z );
            break;
        case cn_torusShape:
            n = snprintf( buffer, size, "torus R=%.17g r=%.17g", g->torus.majorRadius, g->torus.minorRadius );
            break;
        case cn_hullShape:
        {
            n = snprintf( buffer, size, "hull %d vertices {", s->hull.vertexCount );
            for ( int i = 0; i < s->hull.vertexCount && n > 0 && (size_t)n < size; ++i )
            {
                cnVec3 v = s->hull.vertices[i];
                n += snprintf( buffer + n, size - (size_t)n, "{%.17g,%.17g,%.17g},", v.x, v.y, v.z );
            }
            if ( n > 0 && (size_t)n < size )
                n += snprintf( buffer + n, size - (size_t)n, "}" );
            break;
        }
        case cn_planeShape:
            n = snprintf( buffer, size, "plane n=(%.17g, %.17g, %.17g) offset=%.17g", g->plane.normal.x,
                          g->plane.normal.y, g->plane.normal.z, g->plane.offset );
            break;
        default:
            n = snprintf( buffer, size, "?" );
            break;
    }
    if ( n > 0 && (size_t)n < size )
    {
        snprintf( buffer + n, size - (size_t)n,
                  " at p=(%.17g, %.17g, %.17g) q(xyzw)=(%.17g, %.17g, %.17g, %.17g)", t.p.x, t.p.y, t.p.z,
                  t.q.x, t.q.y, t.q.z, t.q.w );
    }
}

static void cntPrintPair( const char* what, const trShape* a, const trShape* b )
{
    static char bufferA[4096], bufferB[4096];
    cntDescribe( a, bufferA, sizeof( bufferA ) );
    cntDescribe( b, bufferB, sizeof( bufferB ) );
    printf( "  %s\n    A: %s\n    B: %s\n", what, bufferA, bufferB );
}

static double cntDist( cnVec3 a, cnVec3 b )
{
    return cnLength( cnSub( a, b ) );
}

static bool cntIsConvex( cnShapeType t )
{
    return t != cn_torusShape && t != cn_planeShape;
}

// A separation for placing shapes only (not a check): cnConvexQuery for convex pairs, a coarse
// ring scan for tori.
static double cntCoarseSeparation( const trShape* a, const trShape* b )
{
    if ( cntIsConvex( a->geometry.type ) && cntIsConvex( b->geometry.type ) )
    {
        cnConvexContact contact;
        cnConvexQuery( &a->placed, &b->placed, NULL, &contact );
        return contact.separation;
    }
    trReference ref;
    trReferenceQuery( a, b, 512, &ref );
    return ref.separation;
}

static cnVec3 cntRandomPosition( trRng* rng, double extent )
{
    return cnMakeVec3( trRange( rng, -extent, extent ), trRange( rng, -extent, extent ),
                       trRange( rng, -extent, extent ) );
}

// Places a (random pose) and b so that their separation is about `target`.
static bool cntPlacePair( trShape* a, trShape* b, double target, trRng* rng )
{
    bool planeA = a->geometry.type == cn_planeShape, planeB = b->geometry.type == cn_planeShape;
    cnTransform ta = { planeA ? cn_vec3Zero : cntRandomPosition( rng, 1.0 ), trRotation( rng ) };
    cnTransform tb = { planeB ? cn_vec3Zero : cntRandomPosition( rng, 1.0 ), trRotation( rng ) };
    trPlace( a, ta );
    trPlace( b, tb );
    if ( planeA || planeB )
    {
        trShape* plane = planeA ? a : b;
        trShape* other = planeA ? b : a;
        cnVec3 N;
        double offset;
        trWorldPlane( plane, &N, &offset );
        trReference ref;
        trReferenceQuery( a, b, 64, &ref );
        cnTransform t = other->placed.transform;
        t.p = cnMulAdd( t.p, target - ref.separation, N );
        trPlace( other, t );
        return true;
    }
    cnVec3 d = trDirection( rng );
    double lo = 0.0, hi = trBoundingRadius( a ) + trBoundingRadius( b ) + 0.5;
    cnTransform t = tb;
    t.p = cnMulAdd( ta.p, hi, d );
    trPlace( b, t );
    if ( !( cntCoarseSeparation( a, b ) > target ) )
        return false;
    t.p = ta.p;
    trPlace( b, t );
    if ( !( cntCoarseSeparation( a, b ) < target ) )
        return false;
    for ( int it = 0; it < 48; ++it )
    {
        double mid = 0.5 * ( lo + hi );
        t.p = cnMulAdd( ta.p, mid, d );
        trPlace( b, t );
        if ( cntCoarseSeparation( a, b ) > target )
            hi = mid;
        else
            lo = mid;
    }
    t.p = cnMulAdd( ta.p, 0.5 * ( lo + hi ), d );
    trPlace( b, t );
    return true;
}

// Random shapes of the two types placed at a separation class: 0 apart, 1 touching, 2 overlapping.
static void cntMakePlacedPair( trShape* a, cnShapeType ta, trShape* b, cnShapeType tb, int kind, trRng* rng )
{
    for ( int attempt = 0; attempt < 1000; ++attempt )
    {
        if ( !trMakeRandom( a, ta, rng ) )
            continue;
        if ( !trMakeRandom( b, tb, rng ) )
        {
            trFreeShape( a );
            continue;
        }
        double small = fmin( trSmallSize( a ), trSmallSize( b ) );
        double target;
        if ( kind == 0 )
            target = trRange( rng, 0.01, 0.5 );
        else if ( kind == 1 )
            target = trRange( rng, -1e-5, 1e-5 );
        else
            target = -trRange( rng, 0.02, 0.3 ) * small;
        if ( cntPlacePair( a, b, target, rng ) )
            return;
        trFreeShape( a );
        trFreeShape( b );
    }
    ck_abort_msg( "could not place a %s-%s pair", trTypeName( ta ), trTypeName( tb ) );
}

// ------------------------------------------------------------------------------------------------
// checks on one contact (acceptance item 2)

typedef struct cntSurfaceStats
{
    double residual;     // worst implicit residual of pointA / pointB
    double normalSmooth; // worst |n_shape - (+-normal)|, smooth shapes
    double normalSum;    // worst |nA + nB| when both are smooth
    double cone;         // worst support excess h(n) - n.x, box / cylinder / hull
    double consistency;  // worst |sep - dot(pB - pA, n)|
    double unit;         // worst ||n| - 1|
    int failures;
} cntSurfaceStats;

static double cntResidualScale( const trShape* s, double residual )
{
    // every residual is a length except the ellipsoid's, which is dimensionless already
    (void)s;
    return fabs( residual );
}

// Returns a text describing the first violated condition, or NULL.
static const char* cntCheckSurface( const trShape* a, const trShape* b, const cnSmoothContact* c,
                                    cntSurfaceStats* st, char* why, size_t whySize )
{
    const char* bad = NULL;
    double unit = fabs( cnLength( c->normal ) - 1.0 );
    st->unit = fmax( st->unit, unit );
    if ( !( unit <= 1e-12 ) && !bad )
    {
        snprintf( why, whySize, "normal length off by %.3g", unit );
        bad = why;
    }
    double cons = fabs( c->separation - cnDot( cnSub( c->pointB, c->pointA ), c->normal ) );
    st->consistency = fmax( st->consistency, cons );
    if ( !( cons <= 1e-12 ) && !bad )
    {
        snprintf( why, whySize, "separation - dot(pB - pA, n) = %.3g", cons );
        bad = why;
    }
    double ra = cntResidualScale( a, trResidual( a, c->pointA ) );
    double rb = cntResidualScale( b, trResidual( b, c->pointB ) );
    st->residual = fmax( st->residual, fmax( ra, rb ) );
    if ( !( ra <= 1e-12 && rb <= 1e-12 ) && !bad )
    {
        snprintf( why, whySize, "surface residual A %.3g B %.3g", ra, rb );
        bad = why;
    }
    cnVec3 nA, nB;
    bool smoothA = trSmoothNormal( a, c->pointA, &nA );
    bool smoothB = trSmoothNormal( b, c->pointB, &nB );
    if ( smoothA )
    {
        double e = cntDist( nA, c->normal );
        st->normalSmooth = fmax( st->normalSmooth, e );
        if ( !( e <= 1e-9 ) && !bad )
        {
            snprintf( why, whySize, "A's normal at pointA off +normal by %.3g", e );
            bad = why;
        }
    }
    else
    {
        double e = trSupportValue( a, c->normal ) - cnDot( c->normal, c->pointA );
        st->cone = fmax( st->cone, fabs( e ) );
        if ( !( fabs( e ) <= 1e-12 ) && !bad )
        {
            snprintf( why, whySize, "pointA does not maximise dot(normal, x) over A: excess %.3g", e );
            bad = why;
        }
    }
    if ( smoothB )
    {
        double e = cntDist( nB, cnNeg( c->normal ) );
        st->normalSmooth = fmax( st->normalSmooth, e );
        if ( !( e <= 1e-9 ) && !bad )
        {
            snprintf( why, whySize, "B's normal at pointB off -normal by %.3g", e );
            bad = why;
        }
    }
    else
    {
        double e = trSupportValue( b, cnNeg( c->normal ) ) + cnDot( c->normal, c->pointB );
        st->cone = fmax( st->cone, fabs( e ) );
        if ( !( fabs( e ) <= 1e-12 ) && !bad )
        {
            snprintf( why, whySize, "pointB does not maximise dot(-normal, x) over B: excess %.3g", e );
            bad = why;
        }
    }
    if ( smoothA && smoothB )
    {
        double e = cnLength( cnAdd( nA, nB ) );
        st->normalSum = fmax( st->normalSum, e );
        if ( !( e <= 1e-9 ) && !bad )
        {
            snprintf( why, whySize, "|nA + nB| = %.3g", e );
            bad = why;
        }
    }
    if ( bad )
        st->failures++;
    return bad;
}

static void cntPrintContact( const char* label, const cnSmoothContact* c )
{
    printf( "    %s: sep=%.17g n=(%.17g, %.17g, %.17g)\n      pA=(%.17g, %.17g, %.17g) pB=(%.17g, %.17g, "
            "%.17g)\n",
            label, c->separation, c->normal.x, c->normal.y, c->normal.z, c->pointA.x, c->pointA.y,
            c->pointA.z, c->pointB.x, c->pointB.y, c->pointB.z );
}

static void cntPrintReference( const trReference* r )
{
    printf( "    reference: sep=%.17g n=(%.17g, %.17g, %.17g) ambiguous=%d optima=%d\n", r->separation,
            r->normal.x, r->normal.y, r->normal.z, (int)r->ambiguous, r->optimumCount );
    for ( int i = 0; i < r->optimumCount && i < 4; ++i )
    {
        printf( "      optimum %d: sep=%.17g n=(%.17g, %.17g, %.17g)\n", i, r->optimumSep[i],
                r->optimumNormal[i].x, r->optimumNormal[i].y, r->optimumNormal[i].z );
    }
}

// ------------------------------------------------------------------------------------------------
// 1 + 2. random pairs of every type against the brute-force reference

START_TEST( test_random_pairs )
{
    cnShapeType pairs[CNT_TYPE_PAIRS][2];
    ck_assert_int_eq( cntTypePairs( pairs ), CNT_TYPE_PAIRS );
    cnShapeType t1 = pairs[_i][0], t2 = pairs[_i][1];
    trInitDirections( CNT_DIRECTIONS );
    int samples = cntPairSamples();
    trRng rng = { 0x5eed0000u + (uint64_t)_i * 7919u };

    double worstSep[3] = { 0, 0, 0 }, worstNormal[3] = { 0, 0, 0 }, worstGjk = 0.0;
    int skipped = 0, sepFail = 0, normalFail = 0, gjkFail = 0, countFail = 0, reports = 0, orderFail = 0;
    cntSurfaceStats surface;
    memset( &surface, 0, sizeof( surface ) );
    int surfaceReports = 0;
    bool convexPair = cntIsConvex( t1 ) && cntIsConvex( t2 );

    for ( int k = 0; k < samples; ++k )
    {
        int kind = k % 3;
        trShape s1, s2;
        cntMakePlacedPair( &s1, t1, &s2, t2, kind, &rng );
        bool swap = ( k % 4 ) == 3;
        trShape* a = swap ? &s2 : &s1;
        trShape* b = swap ? &s1 : &s2;

        trReference ref;
        trReferenceQuery( a, b, CNT_RING_SAMPLES, &ref );
        cnSmoothContact contacts[CN_MAX_SMOOTH_CONTACTS];
        int n = cnSmoothQuery( &a->placed, &b->placed, 0.0, NULL, 0, contacts, CN_MAX_SMOOTH_CONTACTS );
        if ( n < 1 )
        {
            if ( countFail++ < CNT_MAX_REPORTS )
            {
                printf( "[%s-%s #%d] cnSmoothQuery returned %d\n", trTypeName( t1 ), trTypeName( t2 ), k, n );
            }
            trFreeShape( &s1 );
            trFreeShape( &s2 );
            continue;
        }
        const cnSmoothContact* c = &contacts[0];
        // convex pairs: exactly one contact; tori: deepest first, the others local minima below
        // the margin (0 here)
        bool orderBad = ( convexPair || t2 == cn_planeShape ) && t1 != cn_torusShape && t2 != cn_torusShape
                            ? n != 1
                            : false;
        for ( int m = 1; m < n; ++m )
        {
            if ( contacts[m].separation < c->separation )
                orderBad = true;
        }
        if ( orderBad && orderFail++ < CNT_MAX_REPORTS )
        {
            printf( "[%s-%s #%d] %d contacts, not deepest first or more than one for a convex pair\n",
                    trTypeName( t1 ), trTypeName( t2 ), k, n );
            for ( int m = 0; m < n; ++m )
                cntPrintContact( "contact", &contacts[m] );
        }
        else if ( orderBad )
        {
            orderFail++;
        }
        double es = fabs( c->separation - ref.separation );
        double en = cntDist( c->normal, ref.normal );
        worstSep[kind] = fmax( worstSep[kind], es );
        bool bad = false;
        if ( !( es <= 1e-7 ) )
        {
            sepFail++;
            bad = true;
        }
        if ( ref.ambiguous )
        {
            skipped++;
        }
        else
        {
            worstNormal[kind] = fmax( worstNormal[kind], en );
            if ( !( en <= 1e-7 ) )
            {
                normalFail++;
                bad = true;
            }
        }
        double eg = 0.0;
        if ( convexPair && kind == 0 )
        {
            cnDistanceResult gjk = cnConvexDistance( &a->placed, &b->placed );
            eg = fabs( c->separation - gjk.distance );
            worstGjk = fmax( worstGjk, eg );
            if ( !( eg <= 1e-7 ) )
            {
                gjkFail++;
                bad = true;
            }
        }
        if ( bad && reports++ < CNT_MAX_REPORTS )
        {
            char what[256];
            snprintf( what, sizeof( what ),
                      "[%s-%s #%d kind=%d swapped=%d] sep err %.3g normal err %.3g gjk err %.3g",
                      trTypeName( a->geometry.type ), trTypeName( b->geometry.type ), k, kind, (int)swap, es,
                      en, eg );
            cntPrintPair( what, a, b );
            cntPrintContact( "smooth", c );
            cntPrintReference( &ref );
        }
        char why[256];
        const char* surfaceBad = cntCheckSurface( a, b, c, &surface, why, sizeof( why ) );
        if ( surfaceBad && surfaceReports++ < CNT_MAX_REPORTS )
        {
            char what[512];
            snprintf( what, sizeof( what ), "[%s-%s #%d kind=%d swapped=%d] surface: %s",
                      trTypeName( a->geometry.type ), trTypeName( b->geometry.type ), k, kind, (int)swap,
                      surfaceBad );
            cntPrintPair( what, a, b );
            cntPrintContact( "smooth", c );
        }
        trFreeShape( &s1 );
        trFreeShape( &s2 );
    }
    printf(
        "[pairs] %-9s-%-9s n=%d worst sep err apart/touch/overlap %.2e %.2e %.2e, normal err %.2e %.2e %.2e, "
        "gjk %.2e, normal skipped %d, reference refine failures %d | fails: count %d sep %d normal %d gjk "
        "%d\n",
        trTypeName( t1 ), trTypeName( t2 ), samples, worstSep[0], worstSep[1], worstSep[2], worstNormal[0],
        worstNormal[1], worstNormal[2], worstGjk, skipped, trRefineFailures, countFail, sepFail, normalFail,
        gjkFail );
    printf( "[surface] %-9s-%-9s residual %.2e smooth-normal %.2e |nA+nB| %.2e cone %.2e consistency %.2e "
            "unit %.2e "
            "| fails %d\n",
            trTypeName( t1 ), trTypeName( t2 ), surface.residual, surface.normalSmooth, surface.normalSum,
            surface.cone, surface.consistency, surface.unit, surface.failures );
    fflush( stdout );
    double worstS = fmax( worstSep[0], fmax( worstSep[1], worstSep[2] ) );
    double worstN = fmax( worstNormal[0], fmax( worstNormal[1], worstNormal[2] ) );
    ck_assert_msg(
        countFail == 0 && sepFail == 0 && normalFail == 0 && gjkFail == 0,
        "%s-%s: %d queries without a contact, %d separations off by > 1e-7 (worst %.3g), %d normals off by "
        "> 1e-7 (worst %.3g), %d separated pairs off the GJK distance (worst %.3g)",
        trTypeName( t1 ), trTypeName( t2 ), countFail, sepFail, worstS, normalFail, worstN, gjkFail,
        worstGjk );
    ck_assert_msg( orderFail == 0, "%s-%s: %d answers with a wrong contact count or order", trTypeName( t1 ),
                   trTypeName( t2 ), orderFail );
    ck_assert_msg( skipped * 20 <= samples, "%s-%s: %d of %d normal checks skipped as ambiguous",
                   trTypeName( t1 ), trTypeName( t2 ), skipped, samples );
    ck_assert_msg(
        surface.failures == 0,
        "%s-%s: %d contacts fail the surface checks (residual %.3g, smooth normal %.3g, |nA+nB| %.3g, cone "
        "%.3g, consistency %.3g, unit %.3g)",
        trTypeName( t1 ), trTypeName( t2 ), surface.failures, surface.residual, surface.normalSmooth,
        surface.normalSum, surface.cone, surface.consistency, surface.unit );
}
END_TEST

// ------------------------------------------------------------------------------------------------
// 3. first-order identity

static double cntSeparationAt( trShape* a, trShape* b, cnTransform ta, cnTransform tb, cnVec3 va, cnVec3 wa,
                               cnVec3 vb, cnVec3 wb, double t, cnSmoothContact* out )
{
    cnTransform ma = { cnMulAdd( ta.p, t, va ),
                       cnNormalizeQuat( cnMulQuat( cnQuatExp( cnScale( t, wa ) ), ta.q ) ) };
    cnTransform mb = { cnMulAdd( tb.p, t, vb ),
                       cnNormalizeQuat( cnMulQuat( cnQuatExp( cnScale( t, wb ) ), tb.q ) ) };
    trPlace( a, ma );
    trPlace( b, mb );
    cnSmoothContact contacts[CN_MAX_SMOOTH_CONTACTS];
    int n = cnSmoothQuery( &a->placed, &b->placed, 0.0, NULL, 0, contacts, CN_MAX_SMOOTH_CONTACTS );
    trPlace( a, ta );
    trPlace( b, tb );
    if ( n < 1 )
        return NAN;
    if ( out )
        *out = contacts[0];
    return contacts[0].separation;
}

static const cnShapeType cntJacobianPairs[][2] = { { cn_ellipsoidShape, cn_ellipsoidShape },
                                                   { cn_sphereShape, cn_ellipsoidShape },
                                                   { cn_capsuleShape, cn_capsuleShape },
                                                   { cn_torusShape, cn_torusShape } };

START_TEST( test_first_order_identity )
{
    cnShapeType t1 = cntJacobianPairs[_i][0], t2 = cntJacobianPairs[_i][1];
    trInitDirections( CNT_DIRECTIONS );
    trRng rng = { 0xf1f0u + (uint64_t)_i };
    int samples = cntEnvInt( "CNT_SMOOTH_JACOBIAN", 200 );
    const double h = 1e-5;
    int failures = 0, reports = 0, used = 0, rejected = 0;
    double worst = 0.0;
    for ( int k = 0; used < samples && k < 20 * samples; ++k )
    {
        trShape a, b;
        int kind = k % 2 == 0 ? 0 : 2; // apart or overlapping (generic position)
        cntMakePlacedPair( &a, t1, &b, t2, kind, &rng );
        trReference ref;
        trReferenceQuery( &a, &b, CNT_RING_SAMPLES, &ref );
        // generic position: the optimum is unique and well separated from the other local optima
        bool generic = true;
        double sense = t1 == cn_torusShape ? -1.0 : 1.0; // convex: optima are maxima; torus: minima
        for ( int m = 0; m < ref.optimumCount; ++m )
        {
            bool elsewhere = cntDist( ref.optimumNormal[m], ref.normal ) > 1e-4;
            if ( elsewhere && sense * ref.optimumSep[m] > sense * ref.separation - 1e-3 )
                generic = false;
        }
        if ( !generic )
        {
            rejected++;
            trFreeShape( &a );
            trFreeShape( &b );
            continue;
        }
        used++;
        cnTransform ta = a.placed.transform, tb = b.placed.transform;
        cnVec3 va = trDirection( &rng ), vb = trDirection( &rng );
        cnVec3 wa = trDirection( &rng ), wb = trDirection( &rng );
        cnSmoothContact c0;
        double s0 = cntSeparationAt( &a, &b, ta, tb, va, wa, vb, wb, 0.0, &c0 );
        double sp = cntSeparationAt( &a, &b, ta, tb, va, wa, vb, wb, h, NULL );
        double sm = cntSeparationAt( &a, &b, ta, tb, va, wa, vb, wb, -h, NULL );
        double fd = ( sp - sm ) / ( 2.0 * h );
        cnVec3 velB = cnAdd( vb, cnCross( wb, cnSub( c0.pointB, tb.p ) ) );
        cnVec3 velA = cnAdd( va, cnCross( wa, cnSub( c0.pointA, ta.p ) ) );
        double predicted = cnDot( c0.normal, cnSub( velB, velA ) );
        double scale =
            cnLength( va ) + cnLength( vb ) +
            ( cnLength( wa ) + cnLength( wb ) ) * fmax( trBoundingRadius( &a ), trBoundingRadius( &b ) );
        double err = fabs( fd - predicted ) / scale;
        worst = fmax( worst, err );
        if ( !( err <= 1e-6 ) )
        {
            failures++;
            if ( reports++ < CNT_MAX_REPORTS )
            {
                char what[256];
                snprintf( what, sizeof( what ),
                          "[jacobian %s-%s #%d] sep %.17g fd %.17g predicted %.17g rel err %.3g",
                          trTypeName( t1 ), trTypeName( t2 ), k, s0, fd, predicted, err );
                cntPrintPair( what, &a, &b );
                printf( "    vA=(%.17g,%.17g,%.17g) wA=(%.17g,%.17g,%.17g) vB=(%.17g,%.17g,%.17g) "
                        "wB=(%.17g,%.17g,%.17g)\n",
                        va.x, va.y, va.z, wa.x, wa.y, wa.z, vb.x, vb.y, vb.z, wb.x, wb.y, wb.z );
            }
        }
        trFreeShape( &a );
        trFreeShape( &b );
    }
    printf( "[jacobian] %s-%s n=%d (rejected as near-ties %d) h=%g worst relative error %.2e | fails %d\n",
            trTypeName( t1 ), trTypeName( t2 ), used, rejected, h, worst, failures );
    fflush( stdout );
    ck_assert_msg( used == samples, "only %d generic configurations", used );
    ck_assert_msg( failures == 0,
                   "%s-%s: %d of %d finite differences off the predicted rate (worst %.3g relative)",
                   trTypeName( t1 ), trTypeName( t2 ), failures, used, worst );
}
END_TEST

// ------------------------------------------------------------------------------------------------
// 4. warm starts

static void cntNudge( trShape* s, trRng* rng )
{
    if ( s->geometry.type == cn_planeShape )
        return;
    cnTransform t = s->placed.transform;
    t.p = cnMulAdd( t.p, 1e-3, trDirection( rng ) );
    t.q = cnNormalizeQuat( cnMulQuat( cnQuatExp( cnScale( 1e-3, trDirection( rng ) ) ), t.q ) );
    trPlace( s, t );
}

START_TEST( test_warm_start )
{
    cnShapeType pairs[CNT_TYPE_PAIRS][2];
    cntTypePairs( pairs );
    cnShapeType t1 = pairs[_i][0], t2 = pairs[_i][1];
    trInitDirections( CNT_DIRECTIONS );
    trRng rng = { 0xa11u + (uint64_t)_i * 31u };
    int samples = cntEnvInt( "CNT_SMOOTH_WARM", 150 );
    int repeatFail = 0, movedFail = 0, movedTies = 0, reports = 0, countFail = 0;
    double worstRepeat = 0.0, worstMoved = 0.0;
    long warmBefore = cn_smoothStats.warmStarts, fallbackBefore = cn_smoothStats.warmFallbacks;
    for ( int k = 0; k < samples; ++k )
    {
        trShape a, b;
        cntMakePlacedPair( &a, t1, &b, t2, k % 3, &rng );
        cnSmoothContact cold[CN_MAX_SMOOTH_CONTACTS], again[CN_MAX_SMOOTH_CONTACTS];
        int n0 = cnSmoothQuery( &a.placed, &b.placed, 0.0, NULL, 0, cold, CN_MAX_SMOOTH_CONTACTS );
        int n1 =
            n0 >= 1 ? cnSmoothQuery( &a.placed, &b.placed, 0.0, cold, n0, again, CN_MAX_SMOOTH_CONTACTS ) : 0;
        if ( n0 < 1 || n1 < 1 )
        {
            countFail++;
            trFreeShape( &a );
            trFreeShape( &b );
            continue;
        }
        double e = fmax( fabs( again[0].separation - cold[0].separation ),
                         cntDist( again[0].normal, cold[0].normal ) );
        worstRepeat = fmax( worstRepeat, e );
        if ( !( e <= 1e-10 ) )
        {
            repeatFail++;
            if ( reports++ < CNT_MAX_REPORTS )
            {
                cntPrintPair( "[warm repeat] differs", &a, &b );
                cntPrintContact( "cold", &cold[0] );
                cntPrintContact( "warm", &again[0] );
            }
        }
        cntNudge( &a, &rng );
        cntNudge( &b, &rng );
        cnSmoothContact moved[CN_MAX_SMOOTH_CONTACTS], warmMoved[CN_MAX_SMOOTH_CONTACTS];
        int m0 = cnSmoothQuery( &a.placed, &b.placed, 0.0, NULL, 0, moved, CN_MAX_SMOOTH_CONTACTS );
        int m1 = cnSmoothQuery( &a.placed, &b.placed, 0.0, cold, n0, warmMoved, CN_MAX_SMOOTH_CONTACTS );
        if ( m0 < 1 || m1 < 1 )
        {
            countFail++;
            trFreeShape( &a );
            trFreeShape( &b );
            continue;
        }
        double es = fabs( warmMoved[0].separation - moved[0].separation );
        double en = cntDist( warmMoved[0].normal, moved[0].normal );
        bool bad = !( es <= 1e-9 );
        if ( !bad && !( en <= 1e-9 ) )
        {
            // a different normal with the same separation is a tie only if the reference says so
            trReference ref;
            trReferenceQuery( &a, &b, CNT_RING_SAMPLES, &ref );
            if ( ref.ambiguous )
                movedTies++;
            else
                bad = true;
        }
        if ( bad || ( es <= 1e-9 && en <= 1e-9 ) )
            worstMoved = fmax( worstMoved, fmax( es, en ) );
        if ( bad )
        {
            movedFail++;
            if ( reports++ < CNT_MAX_REPORTS )
            {
                cntPrintPair( "[warm moved] differs from cold", &a, &b );
                cntPrintContact( "cold", &moved[0] );
                cntPrintContact( "warm", &warmMoved[0] );
            }
        }
        trFreeShape( &a );
        trFreeShape( &b );
    }
    long warmStarts = cn_smoothStats.warmStarts - warmBefore;
    printf( "[warm] %-9s-%-9s n=%d worst repeat %.2e worst moved %.2e ties %d warmStarts +%ld fallbacks +%ld "
            "| fails "
            "repeat %d moved %d\n",
            trTypeName( t1 ), trTypeName( t2 ), samples, worstRepeat, worstMoved, movedTies, warmStarts,
            cn_smoothStats.warmFallbacks - fallbackBefore, repeatFail, movedFail );
    fflush( stdout );
    // pairs answered in closed form (smooth.h: capsule-sphere, -capsule, -plane, ellipsoid-plane;
    // capsule-box too) need no start: their counter may stay put
    bool closedForm = ( t1 == cn_sphereShape && t2 == cn_capsuleShape ) ||
                      ( t1 == cn_capsuleShape && ( t2 == cn_capsuleShape || t2 == cn_planeShape ) ) ||
                      ( t1 == cn_boxShape && t2 == cn_capsuleShape ) ||
                      ( t1 == cn_ellipsoidShape && t2 == cn_planeShape );
    ck_assert_msg( closedForm || warmStarts > 0, "cn_smoothStats.warmStarts did not grow" );
    ck_assert_msg( countFail == 0, "%d queries returned no contact", countFail );
    ck_assert_msg( repeatFail == 0, "%d warm repeats differ from the cold query (worst %.3g)", repeatFail,
                   worstRepeat );
    ck_assert_msg( movedFail == 0, "%d warm queries after a small move differ from the cold one (worst %.3g)",
                   movedFail, worstMoved );
}
END_TEST

// ------------------------------------------------------------------------------------------------
// 5. tori in closed form

static cnTransform cntPose( cnVec3 p, cnQuat q )
{
    cnTransform t = { p, q };
    return t;
}

START_TEST( test_torus_linked_rings )
{
    // A: the xy-plane, centred at the origin; B: the xz-plane (axis along -y... any sign), centred
    // at (d, 0, 0), both R = 1, r = 0.1. B's core passes through A's hole: it is linked. The core
    // distance has two local minima, at A's core points (1,0,0) and (-1,0,0), both equal to d: so
    // both contacts have separation d - 0.2 with normal +x, pointA = (1.1,0,0) / (-0.9,0,0) and
    // pointB = (d + 0.9, 0, 0) / (d - 1.1, 0, 0).
    const double ds[] = { 0.19, 0.2, 0.205, 0.15 };
    for ( int i = 0; i < 4; ++i )
    {
        double d = ds[i];
        trShape a, b;
        trMakeTorus( &a, 1.0, 0.1 );
        trMakeTorus( &b, 1.0, 0.1 );
        trPlace( &a, cn_transformIdentity );
        trPlace( &b, cntPose( cnMakeVec3( d, 0.0, 0.0 ),
                              cnQuatFromAxisAngle( cnMakeVec3( 1.0, 0.0, 0.0 ), 0.5 * TR_PI ) ) );
        cnSmoothContact c[CN_MAX_SMOOTH_CONTACTS];
        int n = cnSmoothQuery( &a.placed, &b.placed, 0.01, NULL, 0, c, CN_MAX_SMOOTH_CONTACTS );
        printf( "[linked rings] d=%g: %d contacts", d, n );
        for ( int k = 0; k < n; ++k )
            printf( " (sep %.17g pA (%.6g, %.6g, %.6g))", c[k].separation, c[k].pointA.x, c[k].pointA.y,
                    c[k].pointA.z );
        printf( "\n" );
        ck_assert_msg( n == 2, "linked rings d=%g: %d contacts, expected 2", d, n );
        int foundPlus = 0, foundMinus = 0;
        for ( int k = 0; k < n; ++k )
        {
            CNT_ASSERT_ABS( c[k].separation, d - 0.2, 1e-10 );
            ck_assert_msg( cntDist( c[k].normal, cnMakeVec3( 1.0, 0.0, 0.0 ) ) < 1e-9, "normal (%g, %g, %g)",
                           c[k].normal.x, c[k].normal.y, c[k].normal.z );
            if ( cntDist( c[k].pointA, cnMakeVec3( 1.1, 0.0, 0.0 ) ) < 1e-8 &&
                 cntDist( c[k].pointB, cnMakeVec3( d + 0.9, 0.0, 0.0 ) ) < 1e-8 )
                foundPlus++;
            if ( cntDist( c[k].pointA, cnMakeVec3( -0.9, 0.0, 0.0 ) ) < 1e-8 &&
                 cntDist( c[k].pointB, cnMakeVec3( d - 1.1, 0.0, 0.0 ) ) < 1e-8 )
                foundMinus++;
        }
        ck_assert_msg( foundPlus == 1 && foundMinus == 1, "d=%g: contact points not at x = +-1", d );
        // the same with the shapes swapped: normals flip
        n = cnSmoothQuery( &b.placed, &a.placed, 0.01, NULL, 0, c, CN_MAX_SMOOTH_CONTACTS );
        ck_assert_int_eq( n, 2 );
        for ( int k = 0; k < n; ++k )
        {
            CNT_ASSERT_ABS( c[k].separation, d - 0.2, 1e-10 );
            ck_assert( cntDist( c[k].normal, cnMakeVec3( -1.0, 0.0, 0.0 ) ) < 1e-9 );
        }
        // with a zero margin, a separated pair reports the global minimum (one of the two ties)
        // and an overlapping one both
        n = cnSmoothQuery( &a.placed, &b.placed, 0.0, NULL, 0, c, CN_MAX_SMOOTH_CONTACTS );
        ck_assert_int_ge( n, 1 );
        CNT_ASSERT_ABS( c[0].separation, d - 0.2, 1e-10 );
        if ( d < 0.2 )
            ck_assert_int_eq( n, 2 );
    }
}
END_TEST

// ------------------------------------------------------------------------------------------------
// 5b. the ring scan against the reference, contact by contact

// Linked rings: B's plane holds A's axis (turned by up to 0.3 rad), B's centre near A's, the major
// radii within 20%: B's core passes through A's hole, and where the rings are pulled tight they touch
// in two places (test_torus_linked_rings is the symmetric case).
static void cntMakeLinkedRings( trShape* a, trShape* b, trRng* rng )
{
    double major = trRange( rng, 0.5, 2.0 );
    trMakeTorus( a, major, major * trRange( rng, 0.05, 0.3 ) );
    double majorB = major * trRange( rng, 0.8, 1.2 );
    trMakeTorus( b, majorB, majorB * trRange( rng, 0.05, 0.3 ) );
    cnTransform ta = { cntRandomPosition( rng, 1.0 ), trRotation( rng ) };
    cnQuat turn = cnQuatFromAxisAngle( cnRotate( ta.q, cnMakeVec3( 1.0, 0.0, 0.0 ) ),
                                       0.5 * TR_PI + trRange( rng, -0.3, 0.3 ) );
    cnQuat spin =
        cnQuatFromAxisAngle( cnRotate( ta.q, cnMakeVec3( 0.0, 0.0, 1.0 ) ), trRange( rng, -0.3, 0.3 ) );
    double reach = a->geometry.torus.minorRadius + b->geometry.torus.minorRadius;
    cnVec3 offset =
        cnRotate( ta.q, cnMakeVec3( trRange( rng, -1.5, 1.5 ) * reach, trRange( rng, -0.5, 0.5 ) * reach,
                                    trRange( rng, -0.5, 0.5 ) * reach ) );
    cnTransform tb = { cnAdd( ta.p, offset ), cnNormalizeQuat( cnMulQuat( spin, cnMulQuat( turn, ta.q ) ) ) };
    trPlace( a, ta );
    trPlace( b, tb );
}

// A torus against every other type: apart, touching, overlapping and (torus-torus) linked. The
// deepest contact of cnSmoothQuery equals the reference's global minimum to 1e-10, every local
// minimum of the reference within the margin is one of the contacts to 1e-10, and the narrowphase
// (cnCollideTorus, which asks only for the contacts within the margin) keeps the deepest one, or
// nothing when it is out of the margin.
START_TEST( test_torus_scan_reference )
{
    static const cnShapeType others[] = { cn_torusShape,    cn_sphereShape,    cn_boxShape,  cn_capsuleShape,
                                          cn_cylinderShape, cn_ellipsoidShape, cn_hullShape, cn_planeShape };
    cnShapeType other = others[_i];
    trRng rng = { 0x70a5u + (uint64_t)_i * 104729u };
    int samples = cntEnvInt( "CNT_SMOOTH_TORUS", CNT_SMOOTH_DEFAULT_PAIRS / 4 );
    int kinds = other == cn_torusShape ? 4 : 3;
    int failures = 0, reports = 0, twoPlaces = 0, withinCount = 0, narrowFail = 0;
    double worstDeepest = 0.0, worstMinimum = 0.0;
    for ( int k = 0; k < samples; ++k )
    {
        int kind = k % kinds;
        trShape s1, s2;
        if ( kind == 3 )
            cntMakeLinkedRings( &s1, &s2, &rng );
        else
            cntMakePlacedPair( &s1, cn_torusShape, &s2, other, kind, &rng );
        bool swap = ( k / kinds ) % 2 == 1;
        trShape* a = swap ? &s2 : &s1;
        trShape* b = swap ? &s1 : &s2;
        double margin = 0.5 * fmin( trSmallSize( &s1 ), trSmallSize( &s2 ) );
        trReference ref;
        trReferenceQuery( a, b, CNT_RING_SAMPLES, &ref );
        cnSmoothContact c[CN_MAX_SMOOTH_CONTACTS];
        int n = cnSmoothQuery( &a->placed, &b->placed, margin, NULL, 0, c, CN_MAX_SMOOTH_CONTACTS );
        bool bad = n < 1;
        double e = n >= 1 ? fabs( c[0].separation - ref.separation ) : HUGE_VAL;
        worstDeepest = fmax( worstDeepest, e );
        bad = bad || !( e <= 1e-10 );
        int within = 0;
        for ( int m = 0; m < ref.optimumCount; ++m )
        {
            if ( !( ref.optimumSep[m] < margin - 1e-9 ) )
                continue;
            within++;
            double nearest = HUGE_VAL;
            for ( int j = 0; j < n; ++j )
                nearest = fmin( nearest, fabs( c[j].separation - ref.optimumSep[m] ) );
            worstMinimum = fmax( worstMinimum, nearest );
            bad = bad || !( nearest <= 1e-10 );
        }
        withinCount += within > 0 ? 1 : 0;
        twoPlaces += kind == 3 && within >= 2 ? 1 : 0;

        // the narrowphase: the pair in type order, no previous manifold
        bool ordered = a->geometry.type <= b->geometry.type;
        const cnCollisionShape* na = ordered ? &a->placed : &b->placed;
        const cnCollisionShape* nb = ordered ? &b->placed : &a->placed;
        cnManifold manifold;
        cnCollideTorus( na, nb, margin, NULL, &manifold );
        double deepest = HUGE_VAL;
        for ( int j = 0; j < manifold.pointCount; ++j )
            deepest = fmin( deepest, manifold.points[j].separation );
        bool narrowBad =
            n >= 1 && ( c[0].separation < margin ? !( fabs( deepest - c[0].separation ) <= 1e-12 )
                                                 : manifold.pointCount != 0 );
        narrowFail += narrowBad ? 1 : 0;
        if ( ( bad || narrowBad ) && reports++ < CNT_MAX_REPORTS )
        {
            char what[256];
            snprintf( what, sizeof( what ),
                      "[torus scan %s-%s #%d kind=%d] deepest err %.3g, %d contacts, %d reference minima "
                      "within the margin %.3g, narrowphase %d points deepest %.17g",
                      trTypeName( a->geometry.type ), trTypeName( b->geometry.type ), k, kind, e, n, within,
                      margin, manifold.pointCount, deepest );
            cntPrintPair( what, a, b );
            for ( int j = 0; j < n; ++j )
                cntPrintContact( "contact", &c[j] );
            cntPrintReference( &ref );
        }
        failures += bad ? 1 : 0;
        trFreeShape( &s1 );
        trFreeShape( &s2 );
    }
    printf( "[torus scan] torus-%-9s n=%d worst deepest err %.2e, worst minimum err %.2e, with contacts %d, "
            "linked touching in two places %d | fails %d narrowphase %d\n",
            trTypeName( other ), samples, worstDeepest, worstMinimum, withinCount, twoPlaces, failures,
            narrowFail );
    fflush( stdout );
    ck_assert_msg( failures == 0,
                   "torus-%s: %d of %d answers off the reference (worst %.3g deepest, %.3g minimum)",
                   trTypeName( other ), failures, samples, worstDeepest, worstMinimum );
    ck_assert_msg( narrowFail == 0, "torus-%s: %d narrowphase manifolds differ from the query",
                   trTypeName( other ), narrowFail );
    ck_assert_msg( withinCount * 4 >= samples, "torus-%s: only %d of %d poses with a contact in the margin",
                   trTypeName( other ), withinCount, samples );
    if ( other == cn_torusShape )
        ck_assert_msg( twoPlaces * 20 >= samples, "only %d linked poses touch in two places", twoPlaces );
}
END_TEST

START_TEST( test_torus_on_plane )
{
    // flat: the ring lies on the plane z = 0 (plane normal +z, offset 0), gap 0.005, margin 0.02:
    // the whole lower circle touches, so >= 3 contacts spread around the ring, all at the gap
    const double R = 1.0, r = 0.2, gap = 0.005;
    trShape torus, plane;
    trMakeTorus( &torus, R, r );
    trMakePlane( &plane, cnMakeVec3( 0.0, 0.0, 1.0 ), 0.0 );
    trPlace( &torus, cntPose( cnMakeVec3( 0.3, -0.2, r + gap ),
                              cnQuatFromAxisAngle( cnMakeVec3( 0.0, 0.0, 1.0 ), 0.7 ) ) );
    trPlace( &plane, cn_transformIdentity );
    cnSmoothContact c[CN_MAX_SMOOTH_CONTACTS];
    int n = cnSmoothQuery( &torus.placed, &plane.placed, 0.02, NULL, 0, c, CN_MAX_SMOOTH_CONTACTS );
    printf( "[torus on plane] flat: %d contacts\n", n );
    ck_assert_msg( n >= 3, "a ring lying flat reports %d contacts", n );
    double minPair = DBL_MAX;
    for ( int i = 0; i < n; ++i )
    {
        CNT_ASSERT_ABS( c[i].separation, gap, 1e-12 );
        ck_assert( cntDist( c[i].normal, cnMakeVec3( 0.0, 0.0, -1.0 ) ) < 1e-12 );
        CNT_ASSERT_ABS( c[i].pointA.z, gap, 1e-12 );
        CNT_ASSERT_ABS( c[i].pointB.z, 0.0, 1e-12 );
        for ( int j = 0; j < i; ++j )
            minPair = fmin( minPair, cntDist( c[i].pointA, c[j].pointA ) );
    }
    printf( "[torus on plane] flat: smallest pairwise distance %.6g (R = %g)\n", minPair, R );
    ck_assert_msg( minPair > R, "contacts not spread: smallest pairwise distance %g <= R", minPair );

    // tilted by theta about x, centre at height h: the core circle's lowest point is at
    // h - R sin(theta), so separation = h - R sin(theta) - r, at the core point
    // c - R (0, cos, sin) (the ring's local -y), pointA straight below it by r.
    const double thetas[] = { 0.05, 0.3, 1.0, 1.4 };
    for ( int i = 0; i < 4; ++i )
    {
        double th = thetas[i];
        double h = R * sin( th ) + r + ( i % 2 == 0 ? 0.01 : -0.03 );
        cnVec3 center = cnMakeVec3( -0.4, 0.25, h );
        trPlace( &torus, cntPose( center, cnQuatFromAxisAngle( cnMakeVec3( 1.0, 0.0, 0.0 ), th ) ) );
        n = cnSmoothQuery( &torus.placed, &plane.placed, 0.0, NULL, 0, c, CN_MAX_SMOOTH_CONTACTS );
        ck_assert_int_ge( n, 1 );
        double expected = h - R * sin( th ) - r;
        cnVec3 low = cnAdd( center, cnMakeVec3( 0.0, -R * cos( th ), -R * sin( th ) - r ) );
        printf( "[torus on plane] tilt %g: sep %.17g expected %.17g, pointA err %.3g\n", th, c[0].separation,
                expected, cntDist( c[0].pointA, low ) );
        CNT_ASSERT_ABS( c[0].separation, expected, 1e-12 );
        ck_assert( cntDist( c[0].normal, cnMakeVec3( 0.0, 0.0, -1.0 ) ) < 1e-12 );
        ck_assert_msg( cntDist( c[0].pointA, low ) < 1e-9, "tilt %g: pointA off the lowest point by %g", th,
                       cntDist( c[0].pointA, low ) );
        // plane first
        n = cnSmoothQuery( &plane.placed, &torus.placed, 0.0, NULL, 0, c, CN_MAX_SMOOTH_CONTACTS );
        ck_assert_int_ge( n, 1 );
        CNT_ASSERT_ABS( c[0].separation, expected, 1e-12 );
        ck_assert( cntDist( c[0].normal, cnMakeVec3( 0.0, 0.0, 1.0 ) ) < 1e-12 );
    }
}
END_TEST

START_TEST( test_sphere_in_torus_hole )
{
    // torus R = 1, r = 0.2 about z at the origin; a sphere of radius rho centred at (x0, 0, z0)
    // inside the hole: the nearest core point is (1, 0, 0), so
    // separation = sqrt((1 - x0)^2 + z0^2) - 0.2 - rho, normal from the sphere to the torus.
    const double R = 1.0, r = 0.2;
    const double cases[][3] = {
        { 0.31, 0.0, 0.5 }, { 0.3, 0.0, 0.5 }, { 0.25, 0.1, 0.5 }, { 0.4, -0.05, 0.35 } };
    for ( int i = 0; i < 4; ++i )
    {
        double x0 = cases[i][0], z0 = cases[i][1], rho = cases[i][2];
        trShape sphere, torus;
        trMakeSphere( &sphere, rho );
        trMakeTorus( &torus, R, r );
        cnQuat spin = cnQuatFromAxisAngle( cnNormalize( cnMakeVec3( 0.3, -0.5, 0.8 ) ), 0.9 );
        trPlace( &sphere, cntPose( cnMakeVec3( x0, 0.0, z0 ), spin ) );
        trPlace( &torus, cn_transformIdentity );
        cnSmoothContact c[CN_MAX_SMOOTH_CONTACTS];
        int n = cnSmoothQuery( &sphere.placed, &torus.placed, 0.0, NULL, 0, c, CN_MAX_SMOOTH_CONTACTS );
        ck_assert_int_ge( n, 1 );
        double dist = hypot( R - x0, z0 );
        double expected = dist - r - rho;
        cnVec3 normal = cnMakeVec3( ( R - x0 ) / dist, 0.0, -z0 / dist );
        printf( "[sphere in hole] x0=%g z0=%g rho=%g: sep %.17g expected %.17g\n", x0, z0, rho,
                c[0].separation, expected );
        CNT_ASSERT_ABS( c[0].separation, expected, 1e-12 );
        ck_assert_msg( cntDist( c[0].normal, normal ) < 1e-10, "normal off by %g",
                       cntDist( c[0].normal, normal ) );
        n = cnSmoothQuery( &torus.placed, &sphere.placed, 0.0, NULL, 0, c, CN_MAX_SMOOTH_CONTACTS );
        ck_assert_int_ge( n, 1 );
        CNT_ASSERT_ABS( c[0].separation, expected, 1e-12 );
        ck_assert( cntDist( c[0].normal, cnNeg( normal ) ) < 1e-10 );
    }
}
END_TEST

// ------------------------------------------------------------------------------------------------
// 6. closed forms

typedef struct cntClosedStats
{
    double worstSep, worstNormal;
    int failures, reports;
} cntClosedStats;

static void cntCompareClosed( const char* label, const trShape* a, const trShape* b, double sep,
                              const cnVec3* normal, cntClosedStats* st )
{
    cnSmoothContact c[CN_MAX_SMOOTH_CONTACTS];
    int n = cnSmoothQuery( &a->placed, &b->placed, 0.0, NULL, 0, c, CN_MAX_SMOOTH_CONTACTS );
    double es = n >= 1 ? fabs( c[0].separation - sep ) : INFINITY;
    double en = n >= 1 && normal ? cntDist( c[0].normal, *normal ) : 0.0;
    st->worstSep = fmax( st->worstSep, es );
    st->worstNormal = fmax( st->worstNormal, en );
    if ( !( es <= 1e-12 ) || !( en <= 1e-9 ) )
    {
        st->failures++;
        if ( st->reports++ < CNT_MAX_REPORTS )
        {
            char what[256];
            snprintf( what, sizeof( what ), "[%s] expected sep %.17g, error %.3g, normal error %.3g", label,
                      sep, es, en );
            cntPrintPair( what, a, b );
            if ( n >= 1 )
                cntPrintContact( "smooth", &c[0] );
        }
    }
}

static void cntReportClosed( const char* label, const cntClosedStats* st, int count )
{
    printf( "[closed form] %s n=%d worst sep err %.2e normal err %.2e | fails %d\n", label, count,
            st->worstSep, st->worstNormal, st->failures );
    fflush( stdout );
    ck_assert_msg( st->failures == 0, "%s: %d of %d off the closed form (worst sep %.3g, normal %.3g)", label,
                   st->failures, count, st->worstSep, st->worstNormal );
}

START_TEST( test_closed_sphere_capsule )
{
    trRng rng = { 101 };
    cntClosedStats st = { 0 };
    int count = 2000;
    for ( int k = 0; k < count; ++k )
    {
        trShape s, c;
        trMakeSphere( &s, trRange( &rng, 0.1, 1.0 ) );
        trMakeCapsule( &c, trRange( &rng, 0.1, 0.6 ), trRange( &rng, 0.1, 1.5 ) );
        trPlace( &c, cntPose( cntRandomPosition( &rng, 1.0 ), trRotation( &rng ) ) );
        cnVec3 axis = c.rot.cz;
        cnVec3 e0 = cnMulAdd( c.placed.transform.p, -c.geometry.capsule.halfLength, axis );
        cnVec3 e1 = cnMulAdd( c.placed.transform.p, c.geometry.capsule.halfLength, axis );
        double radii = s.geometry.sphere.radius + c.geometry.capsule.radius;
        // the sphere centre at a distance in (0.2, 1.5) * radii from the segment
        double t = trRange( &rng, -0.3, 1.3 );
        cnVec3 base = cnAdd( cnScale( 1.0 - t, e0 ), cnScale( t, e1 ) );
        cnVec3 center = cnMulAdd( base, trRange( &rng, 0.2, 1.5 ) * radii, trDirection( &rng ) );
        trPlace( &s, cntPose( center, trRotation( &rng ) ) );
        cnVec3 k0 = trClosestOnSegment( e0, e1, center );
        double d = cntDist( center, k0 );
        double sep = d - radii;
        cnVec3 nSC = cnScale( 1.0 / d, cnSub( k0, center ) ); // sphere -> capsule
        cntCompareClosed( "sphere-capsule", &s, &c, sep, &nSC, &st );
        cnVec3 nCS = cnNeg( nSC );
        cntCompareClosed( "capsule-sphere", &c, &s, sep, &nCS, &st );
    }
    cntReportClosed( "sphere-capsule", &st, 2 * count );
}
END_TEST

START_TEST( test_closed_capsule_capsule )
{
    trRng rng = { 202 };
    cntClosedStats st = { 0 };
    int count = 2000;
    for ( int k = 0; k < count; ++k )
    {
        trShape a, b;
        trMakeCapsule( &a, trRange( &rng, 0.1, 0.6 ), trRange( &rng, 0.1, 1.5 ) );
        trMakeCapsule( &b, trRange( &rng, 0.1, 0.6 ), trRange( &rng, 0.1, 1.5 ) );
        trPlace( &a, cntPose( cntRandomPosition( &rng, 1.0 ), trRotation( &rng ) ) );
        double radii = a.geometry.capsule.radius + b.geometry.capsule.radius;
        cnVec3 a0 = cnMulAdd( a.placed.transform.p, -a.geometry.capsule.halfLength, a.rot.cz );
        cnVec3 a1 = cnMulAdd( a.placed.transform.p, a.geometry.capsule.halfLength, a.rot.cz );
        // B's core at a random distance in (0.15, 1.5) * radii from A's core
        for ( int attempt = 0; attempt < 100; ++attempt )
        {
            trPlace( &b, cntPose( cntRandomPosition( &rng, 1.5 ), trRotation( &rng ) ) );
            cnVec3 b0 = cnMulAdd( b.placed.transform.p, -b.geometry.capsule.halfLength, b.rot.cz );
            cnVec3 b1 = cnMulAdd( b.placed.transform.p, b.geometry.capsule.halfLength, b.rot.cz );
            cnVec3 ca, cb;
            double d = trSegmentSegment( a0, a1, b0, b1, &ca, &cb );
            double want = trRange( &rng, 0.15, 1.5 ) * radii;
            if ( d < 1e-3 )
                continue;
            // move B along the connecting direction to the wanted core distance (keeps the same
            // closest features for a convex pair)
            cnVec3 dir = cnScale( 1.0 / d, cnSub( cb, ca ) );
            cnTransform t = b.placed.transform;
            t.p = cnMulAdd( t.p, want - d, dir );
            trPlace( &b, t );
            break;
        }
        cnVec3 b0 = cnMulAdd( b.placed.transform.p, -b.geometry.capsule.halfLength, b.rot.cz );
        cnVec3 b1 = cnMulAdd( b.placed.transform.p, b.geometry.capsule.halfLength, b.rot.cz );
        cnVec3 ca, cb;
        double d = trSegmentSegment( a0, a1, b0, b1, &ca, &cb );
        cnVec3 normal = cnScale( 1.0 / d, cnSub( cb, ca ) );
        cntCompareClosed( "capsule-capsule", &a, &b, d - radii, &normal, &st );
    }
    cntReportClosed( "capsule-capsule", &st, count );
}
END_TEST

START_TEST( test_closed_ellipsoid_plane )
{
    trRng rng = { 303 };
    cntClosedStats st = { 0 };
    int count = 2000;
    for ( int k = 0; k < count; ++k )
    {
        trShape e, p;
        trMakeRandom( &e, cn_ellipsoidShape, &rng );
        trMakePlane( &p, trDirection( &rng ), trRange( &rng, -0.5, 0.5 ) );
        trPlace( &p, cntPose( cntRandomPosition( &rng, 0.5 ), trRotation( &rng ) ) );
        trPlace( &e, cntPose( cntRandomPosition( &rng, 1.5 ), trRotation( &rng ) ) );
        cnVec3 N;
        double offset;
        trWorldPlane( &p, &N, &offset );
        // support along -N in closed form: the ellipsoid's lowest point
        cnVec3 r = e.geometry.ellipsoid.radii;
        cnVec3 dl = cnMakeVec3( cnDot( e.rot.cx, N ), cnDot( e.rot.cy, N ), cnDot( e.rot.cz, N ) );
        double support = sqrt( r.x * r.x * dl.x * dl.x + r.y * r.y * dl.y * dl.y + r.z * r.z * dl.z * dl.z );
        // push it to a separation in [-0.3 min r, 0.3]
        double want = trRange( &rng, -0.3 * fmin( r.x, fmin( r.y, r.z ) ), 0.3 );
        double sep = cnDot( N, e.placed.transform.p ) - support - offset;
        cnTransform t = e.placed.transform;
        t.p = cnMulAdd( t.p, want - sep, N );
        trPlace( &e, t );
        sep = cnDot( N, e.placed.transform.p ) - support - offset;
        cnVec3 nEP = cnNeg( N );
        cntCompareClosed( "ellipsoid-plane", &e, &p, sep, &nEP, &st );
        cntCompareClosed( "plane-ellipsoid", &p, &e, sep, &N, &st );
    }
    cntReportClosed( "ellipsoid-plane", &st, 2 * count );
}
END_TEST

START_TEST( test_closed_sphere_round_ellipsoid )
{
    trRng rng = { 404 };
    cntClosedStats st = { 0 };
    int count = 2000;
    for ( int k = 0; k < count; ++k )
    {
        trShape s, e;
        double re = trRange( &rng, 0.2, 1.5 );
        trMakeSphere( &s, trRange( &rng, 0.1, 1.2 ) );
        trMakeEllipsoid( &e, cnMakeVec3( re, re, re ) );
        trPlace( &e, cntPose( cntRandomPosition( &rng, 1.0 ), trRotation( &rng ) ) );
        double radii = re + s.geometry.sphere.radius;
        cnVec3 dir = trDirection( &rng );
        double dist = trRange( &rng, 0.7, 1.5 ) * radii;
        trPlace( &s, cntPose( cnMulAdd( e.placed.transform.p, dist, dir ), trRotation( &rng ) ) );
        double d = cntDist( s.placed.transform.p, e.placed.transform.p );
        cnVec3 nES = cnScale( 1.0 / d, cnSub( s.placed.transform.p, e.placed.transform.p ) );
        cnVec3 nSE = cnNeg( nES );
        cntCompareClosed( "sphere-round ellipsoid", &s, &e, d - radii, &nSE, &st );
        cntCompareClosed( "round ellipsoid-sphere", &e, &s, d - radii, &nES, &st );
        // two round ellipsoids
        trShape e2;
        double r2 = s.geometry.sphere.radius;
        trMakeEllipsoid( &e2, cnMakeVec3( r2, r2, r2 ) );
        trPlace( &e2, s.placed.transform );
        cntCompareClosed( "round ellipsoid-round ellipsoid", &e, &e2, d - radii, &nES, &st );
    }
    cntReportClosed( "sphere-round ellipsoid", &st, 3 * count );
}
END_TEST

START_TEST( test_closed_ellipsoid_axis )
{
    // two ellipsoids with the same orientation, B offset along a shared principal axis k: the
    // tips are the optimum (apart: the distance; overlapping by less than the radius of curvature
    // of the Minkowski difference at the tip: the depth), separation = t - a_k - b_k.
    trRng rng = { 505 };
    cntClosedStats st = { 0 };
    int count = 2000;
    for ( int k = 0; k < count; ++k )
    {
        trShape a, b;
        trMakeRandom( &a, cn_ellipsoidShape, &rng );
        trMakeRandom( &b, cn_ellipsoidShape, &rng );
        cnQuat q = trRotation( &rng );
        trPlace( &a, cntPose( cntRandomPosition( &rng, 1.0 ), q ) );
        int axis = (int)( trUniform( &rng ) * 3.0 ) % 3;
        double ra[3] = { a.geometry.ellipsoid.radii.x, a.geometry.ellipsoid.radii.y,
                         a.geometry.ellipsoid.radii.z };
        double rb[3] = { b.geometry.ellipsoid.radii.x, b.geometry.ellipsoid.radii.y,
                         b.geometry.ellipsoid.radii.z };
        double curvature = DBL_MAX; // smallest radius of curvature of A - B at the tip
        for ( int j = 0; j < 3; ++j )
        {
            if ( j != axis )
                curvature = fmin( curvature, ra[j] * ra[j] / ra[axis] + rb[j] * rb[j] / rb[axis] );
        }
        double sep = trRange( &rng, -0.3 * fmin( curvature, fmin( ra[axis], rb[axis] ) ), 0.5 );
        double sign = trUniform( &rng ) < 0.5 ? -1.0 : 1.0;
        cnVec3 local = cnMakeVec3( axis == 0 ? sign : 0.0, axis == 1 ? sign : 0.0, axis == 2 ? sign : 0.0 );
        cnVec3 dir = cnRotate( q, local );
        trPlace( &b, cntPose( cnMulAdd( a.placed.transform.p, ra[axis] + rb[axis] + sep, dir ), q ) );
        cntCompareClosed( "ellipsoid-ellipsoid shared axis", &a, &b, sep, &dir, &st );
    }
    cntReportClosed( "ellipsoid-ellipsoid shared axis", &st, count );
}
END_TEST

// ------------------------------------------------------------------------------------------------
// 7. cnPointSignedDistance

START_TEST( test_point_signed_distance )
{
    trRng rng = { 606 };
    const cnShapeType types[] = { cn_sphereShape,    cn_boxShape,   cn_capsuleShape, cn_cylinderShape,
                                  cn_ellipsoidShape, cn_torusShape, cn_planeShape };
    int total = 0, failures = 0, reports = 0;
    for ( int ti = 0; ti < 7; ++ti )
    {
        double worst = 0.0, worstClosest = 0.0;
        int inside = 0, outside = 0, typeFailures = 0;
        for ( int k = 0; k < 4000; ++k )
        {
            trShape s;
            trMakeRandom( &s, types[ti], &rng );
            if ( types[ti] == cn_planeShape )
                trMakePlane( &s, trDirection( &rng ), trRange( &rng, -0.5, 0.5 ) );
            trPlace( &s, cntPose( cntRandomPosition( &rng, 1.0 ), trRotation( &rng ) ) );
            // points near the surface (both sides) and anywhere in a box around the shape
            cnVec3 p;
            double bound = types[ti] == cn_planeShape ? 2.0 : trBoundingRadius( &s );
            if ( k % 2 == 0 )
            {
                p = cnMulAdd( s.placed.transform.p, bound * trRange( &rng, 0.0, 1.6 ), trDirection( &rng ) );
            }
            else
            {
                cnVec3 q = cnMulAdd( s.placed.transform.p, bound * 1.2, trDirection( &rng ) );
                cnVec3 c;
                trPointDistance( &s, q, &c );
                p = cnMulAdd( c, trRange( &rng, -0.05, 0.05 ) * bound, trDirection( &rng ) );
            }
            cnVec3 refClosest;
            double ref = trPointDistance( &s, p, &refClosest );
            cnVec3 closest, normal;
            double d = cnPointSignedDistance( &s.placed, p, &closest, &normal );
            double dOnly = cnPointSignedDistance( &s.placed, p, NULL, NULL );
            ref < 0.0 ? inside++ : outside++;
            double e = fabs( d - ref );
            worst = fmax( worst, e );
            bool bad = !( e <= 1e-10 ) || !( fabs( dOnly - d ) <= 1e-15 );
            // the closest point: on the surface, at |d| from p, and the normal unit and along p - closest
            double res = fabs( trResidual( &s, closest ) );
            double gap = fabs( cntDist( p, closest ) - fabs( d ) );
            double unit = fabs( cnLength( normal ) - 1.0 );
            double along = 0.0;
            if ( fabs( d ) > 1e-4 )
                along = cntDist( cnScale( 1.0 / d, cnSub( p, closest ) ), normal );
            worstClosest = fmax( worstClosest, fmax( res, fmax( gap, along ) ) );
            if ( !( res <= 1e-12 ) || !( gap <= 1e-10 ) || !( unit <= 1e-12 ) || !( along <= 1e-9 ) )
                bad = true;
            if ( bad )
            {
                typeFailures++;
                if ( reports++ < CNT_MAX_REPORTS )
                {
                    char buffer[4096];
                    cntDescribe( &s, buffer, sizeof( buffer ) );
                    printf( "  [point distance] %s\n    p=(%.17g, %.17g, %.17g): got %.17g (no outputs "
                            "%.17g), reference "
                            "%.17g; closest residual %.3g gap %.3g normal unit %.3g along %.3g\n",
                            buffer, p.x, p.y, p.z, d, dOnly, ref, res, gap, unit, along );
                }
            }
            ++total;
            trFreeShape( &s );
        }
        printf( "[point distance] %-9s n=4000 (inside %d) worst distance err %.2e, closest/normal %.2e | "
                "fails %d\n",
                trTypeName( types[ti] ), inside, worst, worstClosest, typeFailures );
        (void)outside;
        failures += typeFailures;
    }
    fflush( stdout );
    ck_assert_msg( failures == 0, "%d of %d signed distances off the reference", failures, total );
}
END_TEST

// ------------------------------------------------------------------------------------------------
// the reference checked on its own (closed forms and cnConvexQuery / cnConvexDistance)

START_TEST( test_reference_closed_forms )
{
    trInitDirections( CNT_DIRECTIONS );
    trRng rng = { 909 };
    double worstSS = 0.0, worstSSn = 0.0, worstCC = 0.0, worstCCn = 0.0, worstEE = 0.0, worstEEn = 0.0;
    for ( int k = 0; k < 150; ++k )
    {
        // sphere-sphere
        trShape a, b;
        trMakeSphere( &a, trRange( &rng, 0.1, 1.0 ) );
        trMakeSphere( &b, trRange( &rng, 0.1, 1.0 ) );
        double radii = a.geometry.sphere.radius + b.geometry.sphere.radius;
        trPlace( &a, cntPose( cntRandomPosition( &rng, 1.0 ), trRotation( &rng ) ) );
        cnVec3 dir = trDirection( &rng );
        double dist = trRange( &rng, 0.5, 1.5 ) * radii;
        trPlace( &b, cntPose( cnMulAdd( a.placed.transform.p, dist, dir ), trRotation( &rng ) ) );
        trReference ref;
        trReferenceQuery( &a, &b, CNT_RING_SAMPLES, &ref );
        worstSS = fmax( worstSS, fabs( ref.separation - ( dist - radii ) ) );
        worstSSn = fmax( worstSSn, cntDist( ref.normal, dir ) );

        // capsule-capsule
        trMakeCapsule( &a, trRange( &rng, 0.1, 0.6 ), trRange( &rng, 0.1, 1.5 ) );
        trMakeCapsule( &b, trRange( &rng, 0.1, 0.6 ), trRange( &rng, 0.1, 1.5 ) );
        trPlace( &a, cntPose( cntRandomPosition( &rng, 1.0 ), trRotation( &rng ) ) );
        trPlace( &b, cntPose( cntRandomPosition( &rng, 1.0 ), trRotation( &rng ) ) );
        cnVec3 a0 = cnMulAdd( a.placed.transform.p, -a.geometry.capsule.halfLength, a.rot.cz );
        cnVec3 a1 = cnMulAdd( a.placed.transform.p, a.geometry.capsule.halfLength, a.rot.cz );
        cnVec3 b0 = cnMulAdd( b.placed.transform.p, -b.geometry.capsule.halfLength, b.rot.cz );
        cnVec3 b1 = cnMulAdd( b.placed.transform.p, b.geometry.capsule.halfLength, b.rot.cz );
        cnVec3 ca, cb;
        double d = trSegmentSegment( a0, a1, b0, b1, &ca, &cb );
        if ( d > 1e-2 )
        {
            trReferenceQuery( &a, &b, CNT_RING_SAMPLES, &ref );
            double r2 = a.geometry.capsule.radius + b.geometry.capsule.radius;
            worstCC = fmax( worstCC, fabs( ref.separation - ( d - r2 ) ) );
            if ( !ref.ambiguous )
                worstCCn = fmax( worstCCn, cntDist( ref.normal, cnScale( 1.0 / d, cnSub( cb, ca ) ) ) );
        }

        // aligned ellipsoids along a shared axis
        trMakeRandom( &a, cn_ellipsoidShape, &rng );
        trMakeRandom( &b, cn_ellipsoidShape, &rng );
        cnQuat q = trRotation( &rng );
        trPlace( &a, cntPose( cntRandomPosition( &rng, 1.0 ), q ) );
        double sep = trRange( &rng, -0.05, 0.5 );
        cnVec3 ax = cnRotate( q, cnMakeVec3( 0.0, 1.0, 0.0 ) );
        trPlace( &b,
                 cntPose( cnMulAdd( a.placed.transform.p,
                                    a.geometry.ellipsoid.radii.y + b.geometry.ellipsoid.radii.y + sep, ax ),
                          q ) );
        trReferenceQuery( &a, &b, CNT_RING_SAMPLES, &ref );
        worstEE = fmax( worstEE, fabs( ref.separation - sep ) );
        worstEEn = fmax( worstEEn, cntDist( ref.normal, ax ) );
    }
    printf( "[reference] refine failures %d\n", trRefineFailures );
    printf( "[reference] sphere-sphere sep %.2e normal %.2e; capsule-capsule sep %.2e normal %.2e; aligned "
            "ellipsoids "
            "sep %.2e normal %.2e\n",
            worstSS, worstSSn, worstCC, worstCCn, worstEE, worstEEn );
    fflush( stdout );
    ck_assert_msg( worstSS < 1e-10 && worstCC < 1e-10 && worstEE < 1e-10,
                   "reference separations off the closed forms" );
    ck_assert_msg( worstSSn < 1e-10 && worstCCn < 1e-10 && worstEEn < 1e-10,
                   "reference normals off the closed forms" );
}
END_TEST

START_TEST( test_reference_vs_convex )
{
    // separated convex pairs: the reference against our GJK (cnConvexDistance, exact to ~1e-12)
    // and, overlapping smooth pairs, against cnConvexQuery (a looser check: its polish is a
    // projected gradient descent)
    trInitDirections( CNT_DIRECTIONS );
    trRng rng = { 1010 };
    const cnShapeType types[] = { cn_sphereShape,   cn_boxShape,       cn_capsuleShape,
                                  cn_cylinderShape, cn_ellipsoidShape, cn_hullShape };
    double worstGjk = 0.0, worstQuery = 0.0;
    int count = 0, bad = 0;
    for ( int k = 0; k < 600; ++k )
    {
        cnShapeType t1 = types[k % 6], t2 = types[( k / 6 ) % 6];
        // the pairs of the acceptance list have a curved shape (polytope pairs are not smooth pairs)
        if ( t1 != cn_capsuleShape && t1 != cn_ellipsoidShape && t2 != cn_capsuleShape &&
             t2 != cn_ellipsoidShape )
            t1 = cn_ellipsoidShape;
        trShape a, b;
        int kind = ( k / 36 ) % 2 == 0 ? 0 : 2;
        cntMakePlacedPair( &a, t1, &b, t2, kind, &rng );
        trReference ref;
        trReferenceQuery( &a, &b, CNT_RING_SAMPLES, &ref );
        if ( kind == 0 )
        {
            cnDistanceResult gjk = cnConvexDistance( &a.placed, &b.placed );
            double e = fabs( gjk.distance - ref.separation );
            worstGjk = fmax( worstGjk, e );
            if ( e > 1e-9 && bad++ < CNT_MAX_REPORTS )
            {
                char what[128];
                snprintf( what, sizeof( what ), "[reference vs gjk] %.3g", e );
                cntPrintPair( what, &a, &b );
                cntPrintReference( &ref );
                printf( "    gjk %.17g\n", gjk.distance );
            }
        }
        else if ( t1 != cn_boxShape && t1 != cn_hullShape && t1 != cn_cylinderShape && t2 != cn_boxShape &&
                  t2 != cn_hullShape && t2 != cn_cylinderShape )
        {
            cnConvexContact contact;
            cnConvexQuery( &a.placed, &b.placed, NULL, &contact );
            // cnConvexQuery's separation is sep(its normal) <= the optimum: never above the reference
            worstQuery = fmax( worstQuery, fabs( contact.separation - ref.separation ) );
            if ( contact.separation > ref.separation + 1e-12 )
            {
                bad++;
                printf( "  query %.17g reference %.17g\n", contact.separation, ref.separation );
                cntPrintPair( "[reference vs cnConvexQuery] query beats the reference", &a, &b );
                cntPrintReference( &ref );
            }
        }
        ++count;
        trFreeShape( &a );
        trFreeShape( &b );
    }
    printf( "[reference] vs GJK worst %.2e, vs cnConvexQuery (overlapping smooth) worst %.2e, n=%d, refine "
            "failures %d\n",
            worstGjk, worstQuery, count, trRefineFailures );
    fflush( stdout );
    ck_assert_msg( bad == 0 && worstGjk < 1e-9, "reference disagrees with GJK (%.3g) or is beaten (%d)",
                   worstGjk, bad );
}
END_TEST

START_TEST( test_reference_point_distance )
{
    // the ellipsoid point distance (1-D root) against max over n of (n.p - h(n)), by sampling
    trInitDirections( CNT_DIRECTIONS );
    trRng rng = { 1111 };
    double worst = 0.0;
    for ( int k = 0; k < 200; ++k )
    {
        trShape e, point;
        trMakeRandom( &e, cn_ellipsoidShape, &rng );
        trMakeSphere( &point, 0.0 );
        trPlace( &e, cntPose( cntRandomPosition( &rng, 1.0 ), trRotation( &rng ) ) );
        cnVec3 p = cnMulAdd( e.placed.transform.p, trRange( &rng, 0.0, 1.5 ) * trBoundingRadius( &e ),
                             trDirection( &rng ) );
        trPlace( &point, cntPose( p, cn_quatIdentity ) );
        trReference ref;
        trReferenceQuery( &e, &point, 0, &ref );
        double d = trPointDistance( &e, p, NULL );
        worst = fmax( worst, fabs( d - ref.separation ) );
    }
    printf( "[reference] ellipsoid point distance: root vs support sampling worst %.2e\n", worst );
    fflush( stdout );
    ck_assert_msg( worst < 1e-9, "ellipsoid point distance: %.3g", worst );
}
END_TEST

// ------------------------------------------------------------------------------------------------

static Suite* cntReferenceSuite( void )
{
    Suite* suite = suite_create( "smooth reference" );
    TCase* tc = tcase_create( "reference" );
    tcase_set_timeout( tc, 600 );
    tcase_add_test( tc, test_reference_closed_forms );
    tcase_add_test( tc, test_reference_vs_convex );
    tcase_add_test( tc, test_reference_point_distance );
    suite_add_tcase( suite, tc );
    return suite;
}

static Suite* cntSmoothSuite( void )
{
    Suite* suite = suite_create( "smooth" );
    TCase* tc = tcase_create( "random pairs" );
    tcase_set_timeout( tc, 600 );
    tcase_add_loop_test( tc, test_random_pairs, 0, CNT_TYPE_PAIRS );
    suite_add_tcase( suite, tc );

    tc = tcase_create( "first order" );
    tcase_set_timeout( tc, 600 );
    tcase_add_loop_test( tc, test_first_order_identity, 0, 4 );
    suite_add_tcase( suite, tc );

    tc = tcase_create( "warm start" );
    tcase_set_timeout( tc, 600 );
    tcase_add_loop_test( tc, test_warm_start, 0, CNT_TYPE_PAIRS );
    suite_add_tcase( suite, tc );

    tc = tcase_create( "tori" );
    tcase_set_timeout( tc, 600 );
    tcase_add_test( tc, test_torus_linked_rings );
    tcase_add_test( tc, test_torus_on_plane );
    tcase_add_test( tc, test_sphere_in_torus_hole );
    tcase_add_loop_test( tc, test_torus_scan_reference, 0, 8 );
    suite_add_tcase( suite, tc );

    tc = tcase_create( "closed forms" );
    tcase_set_timeout( tc, 600 );
    tcase_add_test( tc, test_closed_sphere_capsule );
    tcase_add_test( tc, test_closed_capsule_capsule );
    tcase_add_test( tc, test_closed_ellipsoid_plane );
    tcase_add_test( tc, test_closed_sphere_round_ellipsoid );
    tcase_add_test( tc, test_closed_ellipsoid_axis );
    tcase_add_test( tc, test_point_signed_distance );
    suite_add_tcase( suite, tc );
    return suite;
}

int main( void )
{
    static cntSuiteFcn* const suites[] = { cntReferenceSuite, cntSmoothSuite };
    return cntRunSuites( suites, (int)( sizeof( suites ) / sizeof( suites[0] ) ) );
}
