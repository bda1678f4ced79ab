// SPDX-License-Identifier: MIT
// The flagship scenes (assets/scenes: stacking, chainmail, colony) run headless for 2,000 steps
// (200 under the sanitizers, which are ~10x slower), loaded with the real application systems:
// - no NaN or infinity in any pose, ever;
// - no body below the ground: every dynamic body's lowest point (from its shapes, computed here)
//   stays above -1 cm in scenes with a ground plane;
// - the stacks stand: no body of a stacking scene ends further than a stated distance from
//   where it started;
// - chainmail: no ring passes through another: every ring-ring contact point keeps a separation
//   >= -0.01 m at every step, and at the end the core circles of every pair of rings, measured
//   here by sampling and refinement (not the engine's query), are at least 2r - 0.01 apart.
// Each scene's max penetration and mean step time go to stdout for the record.

#include "systems.h"
#include "test_support.h"

#include "cairn/cairn.h"
#include "cairn/scene.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined( __SANITIZE_ADDRESS__ )
#    define CNT_FLAGSHIP_STEPS 200
#elif defined( __has_feature )
#    if __has_feature( address_sanitizer )
#        define CNT_FLAGSHIP_STEPS 200
#    endif
#endif
#ifndef CNT_FLAGSHIP_STEPS
#    define CNT_FLAGSHIP_STEPS 2000
#endif

#define CNT_PI 3.14159265358979323846

typedef struct cntFlagship
{
    const char* file;
    // the farthest any body may end from its start, m (stacks stand); 0: not checked
    double settle;
    // ring-ring contacts are measured and held to the -0.01 m bound
    bool rings;
    // the bodies spread out from the origin (a field pushes them): their mean distance grows
    bool expands;
} cntFlagship;

static const cntFlagship cnt_flagships[] = {
    { "pyramid.json", 0.01, false, false },      { "tall_tower.json", 0.05, false, false },
    { "card_house.json", 0.01, false, false },   { "mixed_stack.json", 0.01, false, false },
    { "mass_ratio.json", 0.02, false, false },   { "chainmail_drape.json", 0.0, true, false },
    { "chainmail_game.json", 0.0, true, false }, { "chainmail_taut.json", 0.0, true, true },
    { "colony.json", 0.0, false, false },
};

// Lowest z of a shape at a world pose.
static double cntLowestPoint( const cnGeometry* g, cnTransform pose )
{
    cnVec3 ex = cnRotate( pose.q, cnMakeVec3( 1.0, 0.0, 0.0 ) );
    cnVec3 ey = cnRotate( pose.q, cnMakeVec3( 0.0, 1.0, 0.0 ) );
    cnVec3 ez = cnRotate( pose.q, cnMakeVec3( 0.0, 0.0, 1.0 ) );
    double z = pose.p.z;
    switch ( g->type )
    {
        case cn_sphereShape:
            return z - g->sphere.radius;
        case cn_boxShape:
            return z - fabs( ex.z ) * g->box.halfExtents.x - fabs( ey.z ) * g->box.halfExtents.y -
                   fabs( ez.z ) * g->box.halfExtents.z;
        case cn_capsuleShape:
            return z - fabs( ez.z ) * g->capsule.halfLength - g->capsule.radius;
        case cn_ellipsoidShape:
        {
            cnVec3 r = g->ellipsoid.radii;
            return z - sqrt( r.x * r.x * ex.z * ex.z + r.y * r.y * ey.z * ey.z + r.z * r.z * ez.z * ez.z );
        }
        case cn_torusShape:
            return z - g->torus.majorRadius * sqrt( fmax( 0.0, 1.0 - ez.z * ez.z ) ) - g->torus.minorRadius;
        default:
            return z; // not in the flagship scenes
    }
}

static double cntBodyLowestPoint( cnBodyId body )
{
    cnShapeId shapes[8];
    int count = cnBody_GetShapes( body, shapes, 8 );
    cnTransform pose = cnBody_GetTransform( body );
    double lowest = INFINITY;
    for ( int i = 0; i < count && i < 8; ++i )
    {
        cnGeometry g;
        cnShape_GetGeometry( shapes[i], &g );
        lowest =
            fmin( lowest, cntLowestPoint( &g, cnMulTransforms( pose, cnShape_GetLocalPose( shapes[i] ) ) ) );
    }
    return lowest;
}

// Distance from a point to a circle (centre c, unit axis a, radius R).
static double cntPointCircle( cnVec3 p, cnVec3 c, cnVec3 a, double R )
{
    cnVec3 w = cnSub( p, c );
    double h = cnDot( w, a );
    cnVec3 radial = cnSub( w, cnScale( h, a ) );
    double d = cnLength( radial ) - R;
    return sqrt( h * h + d * d );
}

// Minimum distance between two circles: sample circle 1 finely, then refine the best samples
// by golden-section search on the angle.
static double cntCircleCircle( cnTransform t1, cnTransform t2, double R )
{
    cnVec3 a2 = cnRotate( t2.q, cnMakeVec3( 0.0, 0.0, 1.0 ) );
    cnVec3 e1 = cnRotate( t1.q, cnMakeVec3( 1.0, 0.0, 0.0 ) );
    cnVec3 e2 = cnRotate( t1.q, cnMakeVec3( 0.0, 1.0, 0.0 ) );
    enum
    {
        samples = 256
    };
    double values[samples];
    for ( int k = 0; k < samples; ++k )
    {
        double u = 2.0 * CNT_PI * k / samples;
        cnVec3 p = cnAdd( t1.p, cnAdd( cnScale( R * cos( u ), e1 ), cnScale( R * sin( u ), e2 ) ) );
        values[k] = cntPointCircle( p, t2.p, a2, R );
    }
    double best = INFINITY;
    for ( int k = 0; k < samples; ++k )
    {
        // refine each local minimum of the samples
        if ( values[k] > values[( k + samples - 1 ) % samples] || values[k] > values[( k + 1 ) % samples] )
        {
            continue;
        }
        double lo = 2.0 * CNT_PI * ( k - 1 ) / samples;
        double hi = 2.0 * CNT_PI * ( k + 1 ) / samples;
        for ( int it = 0; it < 60; ++it )
        {
            double m1 = hi - 0.6180339887498949 * ( hi - lo );
            double m2 = lo + 0.6180339887498949 * ( hi - lo );
            cnVec3 p1 = cnAdd( t1.p, cnAdd( cnScale( R * cos( m1 ), e1 ), cnScale( R * sin( m1 ), e2 ) ) );
            cnVec3 p2 = cnAdd( t1.p, cnAdd( cnScale( R * cos( m2 ), e1 ), cnScale( R * sin( m2 ), e2 ) ) );
            if ( cntPointCircle( p1, t2.p, a2, R ) < cntPointCircle( p2, t2.p, a2, R ) )
            {
                hi = m2;
            }
            else
            {
                lo = m1;
            }
        }
        double u = 0.5 * ( lo + hi );
        cnVec3 p = cnAdd( t1.p, cnAdd( cnScale( R * cos( u ), e1 ), cnScale( R * sin( u ), e2 ) ) );
        best = fmin( best, fmin( values[k], cntPointCircle( p, t2.p, a2, R ) ) );
    }
    return best;
}

static bool cntIsTorusBody( cnBodyId body, cnTorus* torus )
{
    cnShapeId shape;
    if ( cnBody_GetShapes( body, &shape, 1 ) != 1 || cnShape_GetType( shape ) != cn_torusShape )
    {
        return false;
    }
    cnGeometry g;
    cnShape_GetGeometry( shape, &g );
    *torus = g.torus;
    return true;
}

// Load assets/scenes/`file` with the application systems and `overrides`; its world.
static cnWorldId cntLoadFlagship( const char* file, const char* const* overrides, int overrideCount )
{
    char path[512];
    snprintf( path, sizeof( path ), "%s/scenes/%s", CN_ASSETS_DIR, file );
    // no cxSceneSystems to report to: it would have to outlive the world
    cnSceneSystem handlers[CX_SCENE_SYSTEM_COUNT];
    cnSceneOptions options = cnDefaultSceneOptions();
    options.overrides = overrides;
    options.overrideCount = overrideCount;
    options.systems = handlers;
    options.systemCount = cxGetSceneSystems( NULL, handlers, CX_SCENE_SYSTEM_COUNT );
    cnScene scene;
    cnSceneError error;
    ck_assert_msg( cnLoadSceneFile( path, &options, &scene, &error ) == cn_statusOk, "%s", error.text );
    ck_assert_int_eq( scene.warningCount, 0 );
    return scene.worldId;
}

START_TEST( flagship_scene_runs_clean )
{
    const cntFlagship* flagship = cnt_flagships + _i;
    cnWorldId world = cntLoadFlagship( flagship->file, NULL, 0 );
    bool ground = CN_IS_NON_NULL( cnWorld_FindBody( world, "ground" ) );
    double dt = cnWorld_GetDef( world ).timeStep;

    int n = cnWorld_GetBodyCount( world );
    cnTransform* start = malloc( (size_t)n * sizeof( cnTransform ) );
    cnBodyId* ids = malloc( (size_t)n * sizeof( cnBodyId ) );
    cnContactData* contacts = NULL;
    int contactCapacity = 0;
    cnWorld_CopyTransforms( world, start, ids, n );

    int nonFinite = 0, belowGround = 0, ringCrossings = 0;
    double lowest = INFINITY, worstRing = INFINITY, maxPenetration = 0.0;
    int firstBad = -1;
    clock_t begin = clock();
    for ( int step = 0; step < CNT_FLAGSHIP_STEPS; ++step )
    {
        ck_assert_int_eq( cnWorld_Step( world, dt ), cn_statusOk );
        cnStepReport report = cnWorld_GetStepReport( world );
        maxPenetration = fmax( maxPenetration, report.maxPenetration );

        cnBodyArrays arrays = cnWorld_GetBodyArrays( world );
        for ( int i = 0; i < arrays.count; ++i )
        {
            cnTransform t = arrays.transforms[i];
            if ( cnIsFiniteVec3( t.p ) == false || cnIsFiniteQuat( t.q ) == false )
            {
                nonFinite += 1;
                firstBad = firstBad < 0 ? step : firstBad;
                continue;
            }
            if ( ground && arrays.types[i] == cn_dynamicBody )
            {
                double z = cntBodyLowestPoint( arrays.ids[i] );
                lowest = fmin( lowest, z );
                belowGround += z < -0.01;
            }
        }
        if ( flagship->rings )
        {
            int count = cnWorld_GetContacts( world, contacts, contactCapacity );
            if ( count > contactCapacity )
            {
                contactCapacity = 2 * count;
                contacts = realloc( contacts, (size_t)contactCapacity * sizeof( cnContactData ) );
                count = cnWorld_GetContacts( world, contacts, contactCapacity );
            }
            for ( int c = 0; c < count; ++c )
            {
                cnTorus a, b;
                if ( cntIsTorusBody( contacts[c].bodyA, &a ) == false ||
                     cntIsTorusBody( contacts[c].bodyB, &b ) == false )
                {
                    continue;
                }
                for ( int k = 0; k < contacts[c].pointCount; ++k )
                {
                    worstRing = fmin( worstRing, contacts[c].points[k].separation );
                    ringCrossings += contacts[c].points[k].separation < -0.01;
                }
            }
        }
    }
    double msPerStep = 1000.0 * (double)( clock() - begin ) / CLOCKS_PER_SEC / CNT_FLAGSHIP_STEPS;

    // where the bodies ended
    cnTransform* end = malloc( (size_t)n * sizeof( cnTransform ) );
    int now = cnWorld_CopyTransforms( world, end, NULL, n );
    double farthest = 0.0;
    const char* farthestName = "";
    for ( int i = 0; i < n && now == n; ++i )
    {
        double moved = cnLength( cnSub( end[i].p, start[i].p ) );
        if ( moved > farthest )
        {
            farthest = moved;
            farthestName = cnBody_GetName( ids[i] );
        }
    }

    // the rings' core circles, pair by pair, measured here
    double closestCircles = INFINITY;
    double minor = 0.0;
    if ( flagship->rings )
    {
        for ( int i = 0; i < n; ++i )
        {
            cnTorus a;
            if ( cntIsTorusBody( ids[i], &a ) == false )
            {
                continue;
            }
            minor = a.minorRadius;
            for ( int j = i + 1; j < n; ++j )
            {
                cnTorus b;
                if ( cntIsTorusBody( ids[j], &b ) == false ||
                     cnLength( cnSub( end[i].p, end[j].p ) ) > 2.0 * a.majorRadius + 2.0 * a.minorRadius )
                {
                    continue;
                }
                double d = cntCircleCircle( end[i], end[j], a.majorRadius ) - a.minorRadius - b.minorRadius;
                closestCircles = fmin( closestCircles, d );
            }
        }
    }

    printf( "flagship %-22s %5d bodies at the end, %d steps: max penetration %.4f m, %.2f ms/step",
            flagship->file, cnWorld_GetBodyCount( world ), CNT_FLAGSHIP_STEPS, maxPenetration, msPerStep );
    if ( ground )
    {
        printf( ", lowest point %.4f m", lowest );
    }
    if ( flagship->settle > 0.0 )
    {
        printf( ", farthest move %.4f m (%s)", farthest, farthestName );
    }
    if ( flagship->rings )
    {
        printf( ", worst ring contact %.4f m, closest rings at the end %.4f m (r = %g)", worstRing,
                closestCircles, minor );
    }
    printf( "\n" );

    ck_assert_msg( nonFinite == 0, "%s: %d non-finite poses, first at step %d", flagship->file, nonFinite,
                   firstBad );
    ck_assert_msg( belowGround == 0, "%s: %d body-steps below the ground (lowest %.4f m)", flagship->file,
                   belowGround, lowest );
    if ( flagship->settle > 0.0 )
    {
        ck_assert_msg( farthest <= flagship->settle,
                       "%s: %s moved %.4f m (at most %.3f for a standing stack)", flagship->file,
                       farthestName, farthest, flagship->settle );
    }
    if ( flagship->expands )
    {
        double before = 0.0, after = 0.0;
        for ( int i = 0; i < n; ++i )
        {
            before += cnLength( start[i].p ) / n;
            after += cnLength( end[i].p ) / n;
        }
        ck_assert_msg( after > 1.01 * before, "%s: mean distance from the origin %.4f -> %.4f",
                       flagship->file, before, after );
    }
    if ( flagship->rings )
    {
        ck_assert_msg( ringCrossings == 0, "%s: %d ring-ring contact points below -0.01 m (worst %.4f)",
                       flagship->file, ringCrossings, worstRing );
        ck_assert_msg( closestCircles >= -0.01, "%s: two rings' tubes overlap by %.4f m at the end",
                       flagship->file, -closestCircles );
    }
    free( start );
    free( end );
    free( ids );
    free( contacts );
    cnDestroyWorld( world );
}
END_TEST

// The distance from a point to a ring's core circle (centre and axis of `pose`, radius `big`).
static double cntCircleDistance( cnVec3 point, cnTransform pose, double big )
{
    cnVec3 axis = cnRotate( pose.q, cnMakeVec3( 0.0, 0.0, 1.0 ) );
    cnVec3 w = cnSub( point, pose.p );
    double along = cnDot( w, axis );
    double radial = cnLength( cnMulAdd( w, -along, axis ) ) - big;
    return sqrt( along * along + radial * radial );
}

// The separation of two rings (tori with the core circle in their local x-y plane), found without
// the narrowphase: the distance from ring A's core circle to ring B's, minus both tube radii,
// scanned at 1024 angles of A and every local minimum refined by golden section.
static double cntRingSeparation( cnTransform a, cnTorus ta, cnTransform b, cnTorus tb )
{
    enum
    {
        count = 1024
    };
    double f[count];
    for ( int i = 0; i < count; ++i )
    {
        double u = 2.0 * CN_PI * i / count;
        cnVec3 p =
            cnTransformPoint( a, cnMakeVec3( ta.majorRadius * cos( u ), ta.majorRadius * sin( u ), 0.0 ) );
        f[i] = cntCircleDistance( p, b, tb.majorRadius );
    }
    double best = HUGE_VAL;
    for ( int i = 0; i < count; ++i )
    {
        if ( f[i] > f[( i + count - 1 ) % count] || f[i] > f[( i + 1 ) % count] )
        {
            continue;
        }
        double low = 2.0 * CN_PI * ( i - 1 ) / count;
        double high = 2.0 * CN_PI * ( i + 1 ) / count;
        double value = f[i];
        for ( int k = 0; k < 80; ++k )
        {
            double m1 = low + 0.381966011250105 * ( high - low );
            double m2 = high - 0.381966011250105 * ( high - low );
            double f1 =
                cntCircleDistance( cnTransformPoint( a, cnMakeVec3( ta.majorRadius * cos( m1 ),
                                                                    ta.majorRadius * sin( m1 ), 0.0 ) ),
                                   b, tb.majorRadius );
            double f2 =
                cntCircleDistance( cnTransformPoint( a, cnMakeVec3( ta.majorRadius * cos( m2 ),
                                                                    ta.majorRadius * sin( m2 ), 0.0 ) ),
                                   b, tb.majorRadius );
            if ( f1 < f2 )
            {
                high = m2;
                value = fmin( value, f1 );
            }
            else
            {
                low = m1;
                value = fmin( value, f2 );
            }
        }
        best = fmin( best, value );
    }
    return best - ta.minorRadius - tb.minorRadius;
}

// The smallest separation (the scan above) between any two of the world's n rings (all the same
// torus) at their current poses: pairs whose centres are within 2 (R + r) can touch.
static double cntClosestRings( cnWorldId world, cnTransform* poses, cnBodyId* ids, int n, cnTorus ring )
{
    ck_assert_int_eq( cnWorld_CopyTransforms( world, poses, ids, n ), n );
    double closest = HUGE_VAL;
    for ( int i = 0; i < n; ++i )
    {
        for ( int j = i + 1; j < n; ++j )
        {
            if ( cnLength( cnSub( poses[i].p, poses[j].p ) ) < 2.0 * ( ring.majorRadius + ring.minorRadius ) )
            {
                closest = fmin( closest, cntRingSeparation( poses[i], ring, poses[j], ring ) );
            }
        }
    }
    return closest;
}

// ReLCP on a small taut sheet: chainmail_taut.json (relcp) cut to 4 x 4 rings and pulled 5 times
// harder, so that it is taut within 400 steps (also under the sanitizers). After every step the
// deepest ring-ring overlap is measured by the scan above, not by the engine's narrowphase. With
// levels = 0 (the single-constraint LCP) linked rings sink into each other by centimetres; with
// the recursion no pair overlaps by more than its tolerance, 1e-5 m (the paper's section 7.4).
static double cntTautSheetWorst( const char* levels, int* recursed, int* warned )
{
    const char* overrides[] = { "generators[0].rows=4", "generators[0].columns=4",
                                "systems.extensile_field.strength=5", levels };
    cnWorldId world = cntLoadFlagship( "chainmail_taut.json", overrides, 4 );
    double worst = 0.0;
    int contacts = 0;
    *recursed = 0;
    *warned = 0;
    int n = cnWorld_GetBodyCount( world );
    cnTransform* poses = malloc( (size_t)n * sizeof( cnTransform ) );
    cnBodyId* ids = malloc( (size_t)n * sizeof( cnBodyId ) );
    ck_assert( poses != NULL && ids != NULL );
    cnTorus ring = { 1.0, 0.1 };
    for ( int step = 0; step < 400; ++step )
    {
        ck_assert_int_eq( cnWorld_Step( world, 0.01 ), cn_statusOk );
        cnStepReport report = cnWorld_GetStepReport( world );
        *recursed += report.contactRecursions > 0 ? 1 : 0;
        // the recursion ended within its levels and room, every level solved
        *warned +=
            ( report.warnings & ( cn_warnOverlapLeft | cn_warnSolverFailed | cn_warnSolverDiverged ) ) != 0;
        contacts += report.contactCount;
        worst = fmin( worst, cntClosestRings( world, poses, ids, n, ring ) );
    }
    ck_assert_msg( contacts > 0, "the sheet never became taut" );
    free( poses );
    free( ids );
    cnDestroyWorld( world );
    return worst;
}

START_TEST( relcp_holds_a_taut_sheet )
{
    int single = 0;
    int recursed = 0;
    int warnedSingle = 0;
    int warned = 0;
    double without = cntTautSheetWorst( "world.solver.params.levels=0", &single, &warnedSingle );
    double with = cntTautSheetWorst( "world.solver.params.levels=50", &recursed, &warned );
    printf(
        "taut 4 x 4 sheet, 400 steps: deepest ring-ring overlap (scanned) %.4f m with the single-constraint "
        "LCP, %.3g m with relcp (%d steps recursed)\n",
        -without, -with, recursed );
    fflush( stdout );
    ck_assert_msg( without < -0.01, "without the recursion the sheet held (%.4f m): the test shows nothing",
                   without );
    ck_assert_int_eq( single, 0 );
    ck_assert_int_gt( recursed, 10 );
    ck_assert_msg( with >= -1e-5, "with relcp rings sink %.3g m into each other", -with );
    ck_assert_int_eq( warned, 0 );
}
END_TEST

// The world's recursion in an inertial world (a split impulse, docs/relcp.md): chainmail_game.json
// (8 substeps, PGS with friction) cut to 4 x 4 rings pinned at two corners, 600 steps (10 s). The
// soft contact alone lets linked rings rest millimetres into each other; with contact_recursions no
// step ends with two rings overlapping by more than 1e-4 m (the scan above, not the narrowphase), and
// the sheet, still swinging after 10 s, holds no more kinetic energy than the soft contact's sheet
// (within a factor 2 and 1 J: the position pass adds none). tests/relcp checks that a push-out adds no
// energy at all.
static double cntGameSheetWorst( const char* recursions, double* kinetic )
{
    const char* overrides[] = { "generators[0].rows=4", "generators[0].columns=4",
                                "generators[0].pinned=[[0,0],[0,3]]", recursions };
    cnWorldId world = cntLoadFlagship( "chainmail_game.json", overrides, 4 );
    double worst = 0.0;
    int n = cnWorld_GetBodyCount( world );
    cnTransform* poses = malloc( (size_t)n * sizeof( cnTransform ) );
    cnBodyId* ids = malloc( (size_t)n * sizeof( cnBodyId ) );
    ck_assert( poses != NULL && ids != NULL );
    cnTorus ring = { 1.0, 0.2 };
    for ( int step = 0; step < 600; ++step )
    {
        ck_assert_int_eq( cnWorld_Step( world, 1.0 / 60.0 ), cn_statusOk );
        worst = fmin( worst, cntClosestRings( world, poses, ids, n, ring ) );
    }
    *kinetic = cnWorld_GetStepReport( world ).kineticEnergy;
    free( poses );
    free( ids );
    cnDestroyWorld( world );
    return worst;
}

START_TEST( recursion_holds_an_inertial_sheet )
{
    double softKinetic = 0.0, kinetic = 0.0;
    double soft = cntGameSheetWorst( "world.contact_recursions=0", &softKinetic );
    double with = cntGameSheetWorst( "world.contact_recursions=8", &kinetic );
    printf( "game sheet 4 x 4, 600 steps: deepest ring-ring overlap (scanned) %.3g m with the soft contact "
            "(KE %.3g J at the end), %.3g m with contact_recursions 8 (KE %.3g J)\n",
            -soft, softKinetic, -with, kinetic );
    fflush( stdout );
    ck_assert_msg( soft < -1e-3, "the soft contact held the rings to %.3g m: the test shows nothing", -soft );
    ck_assert_msg( with >= -1e-4, "with the recursion rings end a step %.3g m into each other", -with );
    ck_assert_msg( kinetic <= 2.0 * softKinetic + 1.0, "the sheet holds %.3g J, the soft contact's %.3g J",
                   kinetic, softKinetic );
}
END_TEST

static Suite* cntFlagshipSuite( void )
{
    Suite* suite = suite_create( "flagship" );
    TCase* scenes = tcase_create( "scenes" );
    tcase_add_loop_test( scenes, flagship_scene_runs_clean, 0,
                         (int)( sizeof( cnt_flagships ) / sizeof( cnt_flagships[0] ) ) );
    tcase_add_test( scenes, relcp_holds_a_taut_sheet );
    suite_add_tcase( suite, scenes );
    TCase* inertial = tcase_create( "inertial_recursion" );
    tcase_add_test( inertial, recursion_holds_an_inertial_sheet );
    suite_add_tcase( suite, inertial );
    return suite;
}

int main( void )
{
    static cntSuiteFcn* const suites[] = { cntFlagshipSuite };
    return cntRunSuites( suites, 1 );
}
