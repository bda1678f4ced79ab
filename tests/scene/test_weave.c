// SPDX-License-Identifier: MIT
// The European 4-in-1 chainmail sheet (engine/src/weave.c), checked by geometry written here and
// independent of weave.c and of the engine's torus queries. For every pair of rings:
//   - the linking number of the two core circles, computed exactly as the signed crossings of one
//     circle through the disc spanned by the other, and cross-checked with the Gauss double
//     integral (trapezoid rule, which converges geometrically for these smooth periodic integrands)
//     for every pair close enough to link;
//   - the distance between the two core circles: one circle sampled at 720 points, the exact
//     distance from each point to the other circle, then every sampled local minimum refined by
//     golden-section search (accurate far below 1e-9 R).
// Also the poses themselves (unit quaternions, centring, z = 0, the layout's box) and the refusals.

#include "test_support.h"
#include "weave.h"

#include <check.h>

#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// the clearance asserted for every ratio up to CN_WEAVE_MAX_RATIO, in units of the minor radius
#define CNT_MIN_CLEARANCE    0.25
#define CNT_DISTANCE_SAMPLES 720
#define CNT_GAUSS_SAMPLES    128

// A core circle: centre, in-plane unit axes u and v, unit normal n = u x v, radius.
typedef struct cntCircle
{
    cnVec3 c, u, v, n;
    double radius;
} cntCircle;

static cntCircle cntCoreCircle( cnTransform pose, double radius )
{
    cntCircle k;
    k.c = pose.p;
    k.u = cnRotate( pose.q, cnMakeVec3( 1.0, 0.0, 0.0 ) );
    k.v = cnRotate( pose.q, cnMakeVec3( 0.0, 1.0, 0.0 ) );
    k.n = cnRotate( pose.q, cnMakeVec3( 0.0, 0.0, 1.0 ) );
    k.radius = radius;
    return k;
}

static cnVec3 cntCirclePoint( const cntCircle* k, double t )
{
    return cnAdd( k->c,
                  cnAdd( cnScale( k->radius * cos( t ), k->u ), cnScale( k->radius * sin( t ), k->v ) ) );
}

static cnVec3 cntCircleTangent( const cntCircle* k, double t )
{
    return cnAdd( cnScale( -k->radius * sin( t ), k->u ), cnScale( k->radius * cos( t ), k->v ) );
}

// Signed crossings of circle b through the flat disc bounded by circle a: the linking number.
// The height of b over a's plane is h(t) = h0 + hc cos t + hs sin t, zero at t = phi +- acos.
static int cntCrossings( const cntCircle* a, const cntCircle* b )
{
    double h0 = cnDot( cnSub( b->c, a->c ), a->n );
    double hc = b->radius * cnDot( b->u, a->n );
    double hs = b->radius * cnDot( b->v, a->n );
    double amplitude = sqrt( hc * hc + hs * hs );
    if ( !( amplitude > fabs( h0 ) ) )
    {
        return 0;
    }
    double phi = atan2( hs, hc );
    double spread = acos( -h0 / amplitude );
    int crossings = 0;
    for ( int side = -1; side <= 1; side += 2 )
    {
        double t = phi + side * spread;
        cnVec3 offset = cnSub( cntCirclePoint( b, t ), a->c );
        if ( cnLength( offset ) < a->radius )
        {
            double slope = -hc * sin( t ) + hs * cos( t );
            crossings += slope > 0.0 ? 1 : -1;
        }
    }
    return crossings;
}

// Gauss linking integral (1 / 4 pi) double integral of (x - y) . (dx x dy) / |x - y|^3.
static double cntGaussIntegral( const cntCircle* a, const cntCircle* b )
{
    double step = 2.0 * M_PI / CNT_GAUSS_SAMPLES;
    double sum = 0.0;
    for ( int i = 0; i < CNT_GAUSS_SAMPLES; ++i )
    {
        double s = i * step;
        cnVec3 x = cntCirclePoint( a, s );
        cnVec3 dx = cntCircleTangent( a, s );
        for ( int j = 0; j < CNT_GAUSS_SAMPLES; ++j )
        {
            double t = j * step;
            cnVec3 d = cnSub( x, cntCirclePoint( b, t ) );
            double length = cnLength( d );
            sum += cnDot( d, cnCross( dx, cntCircleTangent( b, t ) ) ) / ( length * length * length );
        }
    }
    return sum * step * step / ( 4.0 * M_PI );
}

// Distance from the point at parameter t on circle a to circle b (exact: the nearest point of a
// circle lies toward the point's projection on the circle's plane).
static double cntPointToCircle( const cntCircle* a, double t, const cntCircle* b )
{
    cnVec3 w = cnSub( cntCirclePoint( a, t ), b->c );
    double height = cnDot( w, b->n );
    double radial = cnLength( cnSub( w, cnScale( height, b->n ) ) );
    return hypot( height, radial - b->radius );
}

// Distance between two circles: sample a, refine every sampled local minimum by golden section.
static double cntCircleDistance( const cntCircle* a, const cntCircle* b )
{
    double f[CNT_DISTANCE_SAMPLES];
    double step = 2.0 * M_PI / CNT_DISTANCE_SAMPLES;
    for ( int i = 0; i < CNT_DISTANCE_SAMPLES; ++i )
    {
        f[i] = cntPointToCircle( a, i * step, b );
    }
    double best = INFINITY;
    double golden = 0.5 * ( sqrt( 5.0 ) - 1.0 );
    for ( int i = 0; i < CNT_DISTANCE_SAMPLES; ++i )
    {
        double before = f[( i + CNT_DISTANCE_SAMPLES - 1 ) % CNT_DISTANCE_SAMPLES];
        double after = f[( i + 1 ) % CNT_DISTANCE_SAMPLES];
        best = fmin( best, f[i] );
        if ( f[i] > before || f[i] > after )
        {
            continue;
        }
        double lo = ( i - 1 ) * step, hi = ( i + 1 ) * step;
        double x1 = hi - golden * ( hi - lo ), x2 = lo + golden * ( hi - lo );
        double f1 = cntPointToCircle( a, x1, b ), f2 = cntPointToCircle( a, x2, b );
        for ( int iteration = 0; iteration < 60; ++iteration )
        {
            if ( f1 < f2 )
            {
                hi = x2;
                x2 = x1;
                f2 = f1;
                x1 = hi - golden * ( hi - lo );
                f1 = cntPointToCircle( a, x1, b );
            }
            else
            {
                lo = x1;
                x1 = x2;
                f1 = f2;
                x2 = lo + golden * ( hi - lo );
                f2 = cntPointToCircle( a, x2, b );
            }
        }
        best = fmin( best, fmin( f1, f2 ) );
    }
    return best;
}

// The intended 4-in-1 neighbours, from the index convention of weave.h: odd columns sit half a
// row spacing higher, so ring (row, column) links rows row - 1 and row of the columns beside it
// when its column is even, rows row and row + 1 when it is odd.
static bool cntIntendedLink( int row0, int column0, int row1, int column1 )
{
    if ( abs( column1 - column0 ) != 1 )
    {
        return false;
    }
    int first = ( column0 & 1 ) != 0 ? row0 : row0 - 1;
    return row1 == first || row1 == first + 1;
}

// ---------------------------------------------------------------------------------------------
// links and clearance on a 6 x 7 sheet

typedef struct cntWeaveCase
{
    double majorRadius;
    double minorRadius;
} cntWeaveCase;

static const cntWeaveCase cnt_weaveCases[] = {
    { 1.0, 0.05 }, { 1.0, 0.1 }, { 1.0, 0.15 }, { 1.0, 0.2 }, { 1.0, 0.22 }, { 0.03, 0.0045 },
};

#define CNT_WEAVE_CASES ( (int)( sizeof( cnt_weaveCases ) / sizeof( cnt_weaveCases[0] ) ) )
#define CNT_ROWS        6
#define CNT_COLUMNS     7
#define CNT_RINGS       ( CNT_ROWS * CNT_COLUMNS )

START_TEST( links_and_clearance )
{
    double R = cnt_weaveCases[_i].majorRadius;
    double r = cnt_weaveCases[_i].minorRadius;
    cnTransform poses[CNT_RINGS];
    char message[256] = "";
    ck_assert_msg( cnWeaveEuropean4in1( R, r, CNT_ROWS, CNT_COLUMNS, poses, message, sizeof( message ) ),
                   "R = %g, r = %g refused: %s", R, r, message );
    cnWeaveLayout layout;
    ck_assert(
        cnWeaveEuropean4in1Layout( R, r, CNT_ROWS, CNT_COLUMNS, &layout, message, sizeof( message ) ) );

    cntCircle circles[CNT_RINGS];
    for ( int k = 0; k < CNT_RINGS; ++k )
    {
        circles[k] = cntCoreCircle( poses[k], R );
    }

    int linkCount[CNT_RINGS] = { 0 };
    int totalLinks = 0;
    int linkFailures = 0, gaussFailures = 0;
    char firstLinkFailure[256] = "", firstGaussFailure[256] = "";
    double minGap = INFINITY;
    int minA = -1, minB = -1;
    for ( int a = 0; a < CNT_RINGS; ++a )
    {
        for ( int b = a + 1; b < CNT_RINGS; ++b )
        {
            int rowA = a / CNT_COLUMNS, columnA = a % CNT_COLUMNS;
            int rowB = b / CNT_COLUMNS, columnB = b % CNT_COLUMNS;
            int crossings = cntCrossings( &circles[a], &circles[b] );
            int reverse = cntCrossings( &circles[b], &circles[a] );
            bool intended = cntIntendedLink( rowA, columnA, rowB, columnB );
            bool ok = crossings == reverse && ( intended ? abs( crossings ) == 1 : crossings == 0 );
            if ( ok == false && linkFailures++ == 0 )
            {
                snprintf(
                    firstLinkFailure, sizeof( firstLinkFailure ),
                    "rings (row %d, column %d) and (row %d, column %d): linking number %d (reverse %d), "
                    "want %s",
                    rowA, columnA, rowB, columnB, crossings, reverse, intended ? "+-1" : "0" );
            }
            if ( crossings != 0 )
            {
                linkCount[a] += 1;
                linkCount[b] += 1;
                totalLinks += 1;
            }

            // Centres more than 2 R apart: the circles lie in disjoint balls, so they cannot
            // link and the Gauss integral has nothing to add.
            if ( cnLength( cnSub( circles[a].c, circles[b].c ) ) < 2.0 * R )
            {
                double gauss = cntGaussIntegral( &circles[a], &circles[b] );
                if ( fabs( gauss - crossings ) > 1e-6 && gaussFailures++ == 0 )
                {
                    snprintf( firstGaussFailure, sizeof( firstGaussFailure ),
                              "rings (row %d, column %d) and (row %d, column %d): Gauss integral %.9f, "
                              "crossings %d",
                              rowA, columnA, rowB, columnB, gauss, crossings );
                }
            }

            double gap = cntCircleDistance( &circles[a], &circles[b] );
            if ( gap < minGap )
            {
                minGap = gap;
                minA = a;
                minB = b;
            }
        }
    }
    ck_assert_msg( linkFailures == 0, "R = %g, r = %g: %d wrong links, first %s", R, r, linkFailures,
                   firstLinkFailure );
    ck_assert_msg( gaussFailures == 0, "R = %g, r = %g: %d Gauss integrals disagree, first %s", R, r,
                   gaussFailures, firstGaussFailure );

    // each pair of adjacent columns is joined by 2 rows - 1 links; interior rings have 4
    ck_assert_int_eq( totalLinks, ( CNT_COLUMNS - 1 ) * ( 2 * CNT_ROWS - 1 ) );
    int interiorFailures = 0, firstInterior = -1;
    for ( int k = 0; k < CNT_RINGS; ++k )
    {
        int row = k / CNT_COLUMNS, column = k % CNT_COLUMNS;
        bool interior = row > 0 && row < CNT_ROWS - 1 && column > 0 && column < CNT_COLUMNS - 1;
        if ( interior && linkCount[k] != 4 && interiorFailures++ == 0 )
        {
            firstInterior = k;
        }
    }
    ck_assert_msg( interiorFailures == 0,
                   "%d interior rings without 4 links, first (row %d, column %d) with %d", interiorFailures,
                   firstInterior / CNT_COLUMNS, firstInterior % CNT_COLUMNS,
                   firstInterior >= 0 ? linkCount[firstInterior] : 0 );

    double clearance = minGap - 2.0 * r;
    printf( "weave R = %g, r = %g (r/R = %.3f): smallest core distance %.7f R, clearance %.4f r = %.5f R, "
            "%d links\n",
            R, r, r / R, minGap / R, clearance / r, clearance / R, totalLinks );
    ck_assert_msg(
        clearance >= CNT_MIN_CLEARANCE * r,
        "R = %g, r = %g: rings (row %d, column %d) and (row %d, column %d) have clearance %.9g = %.4f r, "
        "want at least %.2f r",
        R, r, minA / CNT_COLUMNS, minA % CNT_COLUMNS, minB / CNT_COLUMNS, minB % CNT_COLUMNS, clearance,
        clearance / r, CNT_MIN_CLEARANCE );
    // the layout's gap is a lower bound, and close to what is measured
    ck_assert_msg( minGap >= layout.coreGap - 1e-12 * R && minGap <= layout.coreGap + 1e-5 * R,
                   "measured core distance %.9g, layout says %.9g", minGap, layout.coreGap );
    CNT_ASSERT_ABS( layout.clearance, layout.coreGap - 2.0 * r, 1e-15 );
}
END_TEST

// ---------------------------------------------------------------------------------------------
// poses: unit quaternions, centred, flat, inside the layout's box

START_TEST( poses_are_centred_unit_and_boxed )
{
    static const int shapes[][2] = { { 6, 7 }, { 1, 1 }, { 1, 2 }, { 2, 1 }, { 5, 4 }, { 3, 9 } };
    int shape = _i;
    int rows = shapes[shape][0], columns = shapes[shape][1];
    double R = 0.7, r = 0.1;
    cnTransform poses[64];
    char message[256] = "";
    ck_assert_msg( cnWeaveEuropean4in1( R, r, rows, columns, poses, message, sizeof( message ) ), "%s",
                   message );
    cnWeaveLayout layout;
    ck_assert( cnWeaveEuropean4in1Layout( R, r, rows, columns, &layout, message, sizeof( message ) ) );

    int count = rows * columns;
    cnVec3 sum = cn_vec3Zero;
    cnVec3 lower = cnMakeVec3( INFINITY, INFINITY, INFINITY );
    cnVec3 upper = cnMakeVec3( -INFINITY, -INFINITY, -INFINITY );
    for ( int k = 0; k < count; ++k )
    {
        cnQuat q = poses[k].q;
        double norm = sqrt( q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w );
        ck_assert_msg( fabs( norm - 1.0 ) <= 1e-14, "ring %d: |q| = %.17g", k, norm );
        ck_assert_msg( poses[k].p.z == 0.0, "ring %d: z = %g", k, poses[k].p.z );
        sum = cnAdd( sum, poses[k].p );
        // a torus with unit axis n reaches R sqrt(1 - n_i^2) + r along axis i
        cnVec3 n = cnRotate( q, cnMakeVec3( 0.0, 0.0, 1.0 ) );
        cnVec3 reach = cnMakeVec3( R * sqrt( fmax( 0.0, 1.0 - n.x * n.x ) ) + r,
                                   R * sqrt( fmax( 0.0, 1.0 - n.y * n.y ) ) + r,
                                   R * sqrt( fmax( 0.0, 1.0 - n.z * n.z ) ) + r );
        cnVec3 p = poses[k].p;
        lower = cnMakeVec3( fmin( lower.x, p.x - reach.x ), fmin( lower.y, p.y - reach.y ),
                            fmin( lower.z, p.z - reach.z ) );
        upper = cnMakeVec3( fmax( upper.x, p.x + reach.x ), fmax( upper.y, p.y + reach.y ),
                            fmax( upper.z, p.z + reach.z ) );
    }
    cnVec3 mean = cnScale( 1.0 / count, sum );
    ck_assert_msg( cnLength( mean ) <= 1e-12 * R, "%d x %d: mean centre (%g, %g, %g)", rows, columns, mean.x,
                   mean.y, mean.z );
    CNT_ASSERT_ABS( layout.lower.x, lower.x, 1e-12 );
    CNT_ASSERT_ABS( layout.lower.y, lower.y, 1e-12 );
    CNT_ASSERT_ABS( layout.lower.z, lower.z, 1e-12 );
    CNT_ASSERT_ABS( layout.upper.x, upper.x, 1e-12 );
    CNT_ASSERT_ABS( layout.upper.y, upper.y, 1e-12 );
    CNT_ASSERT_ABS( layout.upper.z, upper.z, 1e-12 );

    // the layout's spacings are the ones used: columns along x, rings of a column along y
    if ( columns > 1 )
    {
        CNT_ASSERT_ABS( poses[1].p.x - poses[0].p.x, layout.columnSpacing, 1e-12 );
        CNT_ASSERT_ABS( poses[1].p.y - poses[0].p.y, 0.5 * layout.rowSpacing, 1e-12 );
    }
    if ( rows > 1 )
    {
        CNT_ASSERT_ABS( poses[columns].p.y - poses[0].p.y, layout.rowSpacing, 1e-12 );
        CNT_ASSERT_ABS( poses[columns].p.x - poses[0].p.x, 0.0, 1e-12 );
    }
}
END_TEST

// ---------------------------------------------------------------------------------------------
// refusals

START_TEST( bad_input_is_refused )
{
    static const struct
    {
        double majorRadius, minorRadius;
        int rows, columns;
    } bad[] = {
        { 1.0, 0.1, 0, 5 },  { 1.0, 0.1, 5, 0 },  { 1.0, 0.1, -1, 5 },     { 1.0, 0.1, 5, -3 },
        { 1.0, 0.23, 4, 4 }, { 1.0, 0.5, 4, 4 },  { 1.0, 1.5, 4, 4 },      { 2.0, 0.45, 1, 1 },
        { 1.0, 0.0, 4, 4 },  { 1.0, -0.1, 4, 4 }, { 0.0, 0.1, 4, 4 },      { -1.0, 0.1, 4, 4 },
        { NAN, 0.1, 4, 4 },  { 1.0, NAN, 4, 4 },  { INFINITY, 0.1, 4, 4 }, { 1.0, 0.1, INT_MAX, 2 },
    };
    int count = (int)( sizeof( bad ) / sizeof( bad[0] ) );
    for ( int k = 0; k < count; ++k )
    {
        cnTransform pose = { { 7.0, 7.0, 7.0 }, { 0.0, 0.0, 0.0, 1.0 } };
        char message[256] = "";
        bool ok = cnWeaveEuropean4in1( bad[k].majorRadius, bad[k].minorRadius, bad[k].rows, bad[k].columns,
                                       &pose, message, sizeof( message ) );
        ck_assert_msg( ok == false, "case %d (R = %g, r = %g, %d x %d) accepted", k, bad[k].majorRadius,
                       bad[k].minorRadius, bad[k].rows, bad[k].columns );
        ck_assert_msg( strlen( message ) > 0 && strchr( message, '\n' ) == NULL,
                       "case %d: want a one-line reason, got \"%s\"", k, message );
        ck_assert_msg( pose.p.x == 7.0, "case %d: the output was written", k );
        cnWeaveLayout layout;
        ck_assert( cnWeaveEuropean4in1Layout( bad[k].majorRadius, bad[k].minorRadius, bad[k].rows,
                                              bad[k].columns, &layout, NULL, 0 ) == false );
    }

    // the ratio message names the limit
    char message[256] = "";
    cnTransform pose;
    ck_assert( cnWeaveEuropean4in1( 1.0, 0.3, 1, 1, &pose, message, sizeof( message ) ) == false );
    ck_assert_msg( strstr( message, "0.22" ) != NULL, "%s", message );

    // a short buffer is truncated, not overrun
    char tiny[8];
    memset( tiny, 'x', sizeof( tiny ) );
    ck_assert( cnWeaveEuropean4in1( 1.0, 0.3, 1, 1, &pose, tiny, 4 ) == false );
    ck_assert_int_eq( (int)strlen( tiny ), 3 );
    ck_assert_int_eq( tiny[4], 'x' );

    // the largest ratio itself is accepted
    ck_assert( cnWeaveEuropean4in1( 1.0, CN_WEAVE_MAX_RATIO, 1, 1, &pose, NULL, 0 ) );
    CNT_ASSERT_ABS( pose.p.x, 0.0, 0.0 );
    CNT_ASSERT_ABS( pose.p.y, 0.0, 0.0 );
}
END_TEST

static Suite* cntWeaveSuite( void )
{
    Suite* suite = suite_create( "weave" );
    TCase* links = tcase_create( "links" );
    tcase_add_loop_test( links, links_and_clearance, 0, CNT_WEAVE_CASES );
    suite_add_tcase( suite, links );
    TCase* poses = tcase_create( "poses" );
    tcase_add_loop_test( poses, poses_are_centred_unit_and_boxed, 0, 6 );
    tcase_add_test( poses, bad_input_is_refused );
    suite_add_tcase( suite, poses );
    return suite;
}

int main( void )
{
    static cntSuiteFcn* const suites[] = { cntWeaveSuite };
    return cntRunSuites( suites, (int)( sizeof( suites ) / sizeof( suites[0] ) ) );
}
