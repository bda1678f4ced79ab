// SPDX-License-Identifier: MIT
// ReLCP in a world (docs/relcp.md): the relcp solver and the world's contactRecursions, one driver.
// Checked against geometry measured independently of the solve: the true deepest-point separation
// of each pair after the step, from the narrowphase at the poses the integrator gave.
//   - two ellipsoids pushed together in an overdamped world end every step touching, to 1e-9, with
//     the world's recursion and with relcp (the single-constraint LCP does not);
//   - three crossing capsules overlapping at a large time step: the single-constraint LCP leaves
//     overlap that changes from step to step (the paper's figure 2), relcp leaves none above the
//     tolerance, with more than one level;
//   - at a small time step relcp adds no level and gives the single-constraint LCP's answer, bit for
//     bit (the paper's limit, digest 9.5);
//   - inertial worlds (a split impulse): two overlapping ellipsoids at rest are pushed apart to
//     touching in one step with no velocity and their centre of mass fixed; an ellipsoid dropped
//     on the ground rests at its closed-form height, to 1e-6 m, and never ends a step in it.
#include "narrow_phase.h"
#include "relcp_suites.h"
#include "test_support.h"
#include "world.h"

#include "cairn/cairn.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The deepest-point separation of every contact pair of the world at the current poses (the
// narrowphase, no warm start, a margin wide enough to see a gap), the smallest of them. HUGE_VAL
// when no pair is within the margin.
static double cntSmallestSeparation( cnWorldId worldId )
{
    cnWorld* world = cnGetWorld( worldId );
    ck_assert_ptr_nonnull( world );
    double smallest = HUGE_VAL;
    for ( int c = 0; c < world->contacts.count; ++c )
    {
        const cnContact* contact = world->contacts.contacts + c;
        cnCollisionShape a = cnPlaceShape( world, contact->shapeA );
        cnCollisionShape b = cnPlaceShape( world, contact->shapeB );
        cnManifold manifold;
        if ( cnCollide( &a, &b, 1.0, NULL, &manifold ) != cn_statusOk )
        {
            continue;
        }
        for ( int k = 0; k < manifold.pointCount; ++k )
        {
            smallest = fmin( smallest, manifold.points[k].separation );
        }
    }
    return smallest;
}

// What a pair run sets: the solver, its parameters, the world's recursion.
typedef struct cntSetup
{
    const char* solver;
    const char* params[4]; // "name" then value pairs in `values`
    double values[4];
    int recursions;
    double tolerance; // the world's contactOverlapTolerance
    double timeStep;
} cntSetup;

static void cntApplySetup( cnWorldId world, const cntSetup* setup )
{
    ck_assert_int_eq( cnWorld_SetSolver( world, setup->solver ), cn_statusOk );
    for ( int k = 0; k < 4 && setup->params[k] != NULL; ++k )
    {
        ck_assert_int_eq( cnWorld_SetSolverParam( world, setup->params[k], setup->values[k] ), cn_statusOk );
    }
}

// Two ellipsoids of semi-axes (1, 1, 2) (the paper's section 7.1 shape) in an overdamped world
// without gravity, lying in the x-y plane, centres 2.4 m apart in y (8 cm apart), the second turned 30
// degrees: pushed together along y by 1 N each they meet, and the second turns flat onto the first while the
// force keeps them touching.
static cnWorldId cntEllipsoidPair( const cntSetup* setup, cnBodyId bodies[2] )
{
    cnWorldDef def = cnDefaultWorldDef();
    def.gravity = cn_vec3Zero;
    def.dynamics = cn_dynamicsOverdamped;
    def.timeStep = setup->timeStep;
    def.contactRecursions = setup->recursions;
    def.contactOverlapTolerance = setup->tolerance;
    cnWorldId world = cnCreateWorld( &def );
    cntApplySetup( world, setup );
    cnShapeDef shapeDef = cnDefaultShapeDef();
    shapeDef.material.friction = 0.0;
    cnEllipsoid ellipsoid = { { 1.0, 1.0, 2.0 } };
    // the major axes (local z) in the x-y plane: the first along x, the second at 30 degrees to it
    cnQuat lie = cnQuatFromAxisAngle( cnMakeVec3( 0.0, 1.0, 0.0 ), 0.5 * CN_PI );
    cnQuat turn = cnQuatFromAxisAngle( cnMakeVec3( 0.0, 0.0, 1.0 ), CN_PI / 6.0 );
    for ( int k = 0; k < 2; ++k )
    {
        cnBodyDef bodyDef = cnDefaultBodyDef();
        bodyDef.position = cnMakeVec3( 0.0, k == 0 ? 0.0 : 2.4, 0.0 );
        bodyDef.orientation = k == 0 ? lie : cnMulQuat( turn, lie );
        bodies[k] = cnCreateBody( world, &bodyDef );
        ck_assert( CN_IS_NON_NULL( cnCreateEllipsoidShape( bodies[k], &shapeDef, &ellipsoid ) ) );
    }
    return world;
}

#define CNT_PAIR_STEPS 40

typedef struct cntPairRun
{
    double separation[CNT_PAIR_STEPS]; // after each step
    int levels[CNT_PAIR_STEPS];        // recursion levels of each step
    double lowest;                     // smallest separation after a step in which contact acted
    int contactSteps;
    cnVec3 end; // the second body's final centre
} cntPairRun;

static void cntRunPair( const cntSetup* setup, cntPairRun* run )
{
    cnBodyId bodies[2];
    cnWorldId world = cntEllipsoidPair( setup, bodies );
    run->lowest = HUGE_VAL;
    run->contactSteps = 0;
    for ( int step = 0; step < CNT_PAIR_STEPS; ++step )
    {
        ck_assert_int_eq( cnBody_ApplyForceToCenter( bodies[0], cnMakeVec3( 0.0, 1.0, 0.0 ) ), cn_statusOk );
        ck_assert_int_eq( cnBody_ApplyForceToCenter( bodies[1], cnMakeVec3( 0.0, -1.0, 0.0 ) ), cn_statusOk );
        ck_assert_int_eq( cnWorld_Step( world, setup->timeStep ), cn_statusOk );
        cnStepReport report = cnWorld_GetStepReport( world );
        run->levels[step] = report.contactRecursions;
        run->separation[step] = cntSmallestSeparation( world );
        if ( getenv( "CNT_VERBOSE" ) != NULL )
        {
            printf( "pair %s step %d: separation %.3g, levels %d, rows %d, overlap %.3g\n", setup->solver,
                    step, run->separation[step], report.contactRecursions, report.recursionRows,
                    report.recursionOverlap );
        }
        // contact acted: the first body does not move as the force alone moves it (1 N on the drag
        // of a 4 m body, v = f / (xi l) = 0.25 m/s along y)
        cnVec3 v = cnBody_GetLinearVelocity( bodies[0] );
        cnVec3 w = cnBody_GetAngularVelocity( bodies[0] );
        if ( fabs( v.x ) + fabs( v.y - 0.25 ) + fabs( v.z ) + cnLength( w ) > 1e-9 )
        {
            run->contactSteps += 1;
            run->lowest = fmin( run->lowest, run->separation[step] );
        }
    }
    run->end = cnBody_GetWorldCenter( bodies[1] );
    cnDestroyWorld( world );
}

// The single constraint lets the pair sink in while the second body turns flat. With the
// recursion no step ends overlapping, and while the turn takes the linear step into overlap (the
// single-constraint run overlaps after this step and the next) the pair ends each step touching to
// 1e-9: the rows ask for exactly that (rows whose right-hand side carried an extra J v* leave the
// pair up to 0.25 m apart here: tried). The step that leaves that regime, and the steps after it, may end
// slightly apart: the linearisation at the start pose over-estimates the approach of the turning
// bodies (below 1 cm at dt = 0.5 s): the linear step, which ReLCP does not change.
START_TEST( ellipsoid_pair_ends_every_step_touching )
{
    double dt = 0.5;
    // lemke inside: each level solved exactly, so the gap says what the recursion does
    cntSetup single = { "relcp", { "inner", "levels" }, { 4.0, 0.0 }, 0, 1e-5, dt };
    cntSetup relcp = { "relcp", { "inner", "overlap_tolerance" }, { 4.0, 1e-10 }, 0, 1e-5, dt };
    cntSetup world = { "lemke", { NULL }, { 0.0 }, 64, 1e-10, dt };
    static cntPairRun a, b, c;
    cntRunPair( &single, &a );
    cntRunPair( &relcp, &b );
    cntRunPair( &world, &c );
    int checked = 0;
    int levels = 0;
    double worst = 0.0;
    for ( int step = 0; step < CNT_PAIR_STEPS; ++step )
    {
        levels += b.levels[step];
        // one driver: the same levels, the same motion, bit for bit
        ck_assert_int_eq( b.levels[step], c.levels[step] );
        ck_assert( b.separation[step] == c.separation[step] );
        if ( step + 1 < CNT_PAIR_STEPS && a.separation[step] < -1e-6 && a.separation[step + 1] < -1e-6 )
        {
            checked += 1;
            worst = fmax( worst, fabs( b.separation[step] ) );
        }
    }
    printf( "ellipsoid pair, dt %.2g s, %d steps: the single-constraint LCP sinks %.3g m; relcp (%d levels): "
            "|separation| at most %.3g m after the %d steps inside the turn, lowest separation %.3g m\n",
            dt, CNT_PAIR_STEPS, -a.lowest, levels, worst, checked, b.lowest );
    fflush( stdout );
    ck_assert_int_ge( b.contactSteps, 30 );
    ck_assert_msg( a.lowest < -1e-3,
                   "the single-constraint LCP held the pair (%.3g m): the test shows nothing", a.lowest );
    ck_assert_int_ge( checked, 5 );
    ck_assert_msg( worst < 1e-9, "relcp: |separation| %.3g m inside the turn", worst );
    ck_assert_msg( b.lowest > -1e-9, "relcp: the pair ends %.3g m in", -b.lowest );
    ck_assert( b.end.x == c.end.x && b.end.y == c.end.y && b.end.z == c.end.z );
}
END_TEST

// Three capsules (radius 0.25 m, core 2 m) crossing each other in a star, each pair overlapping,
// in an overdamped world without forces at dt = 1 s: the paper's figure 2. Returns the deepest
// overlap after each step in `overlap` and the levels in `levels`.
#define CNT_STAR_STEPS 12
static void cntRunStar( const cntSetup* setup, double* overlap, int* levels )
{
    cnWorldDef def = cnDefaultWorldDef();
    def.gravity = cn_vec3Zero;
    def.dynamics = cn_dynamicsOverdamped;
    def.timeStep = setup->timeStep;
    def.contactRecursions = setup->recursions;
    def.contactOverlapTolerance = setup->tolerance;
    cnWorldId world = cnCreateWorld( &def );
    cntApplySetup( world, setup );
    cnShapeDef shapeDef = cnDefaultShapeDef();
    shapeDef.material.friction = 0.0;
    cnCapsule capsule = { 0.25, 1.0 };
    cnBodyId bodies[3];
    for ( int k = 0; k < 3; ++k )
    {
        cnBodyDef bodyDef = cnDefaultBodyDef();
        double angle = k * CN_PI / 3.0;
        // centres on a small circle, at heights 0, 0.15, 0.3: every pair crosses and overlaps
        bodyDef.position = cnMakeVec3( 0.2 * cos( 2.0 * angle ), 0.2 * sin( 2.0 * angle ), 0.15 * k );
        bodyDef.orientation =
            cnMulQuat( cnQuatFromAxisAngle( cnMakeVec3( 0.0, 0.0, 1.0 ), angle ),
                       cnQuatFromAxisAngle( cnMakeVec3( 0.0, 1.0, 0.0 ), 0.5 * CN_PI + 0.2 * k ) );
        bodies[k] = cnCreateBody( world, &bodyDef );
        ck_assert( CN_IS_NON_NULL( cnCreateCapsuleShape( bodies[k], &shapeDef, &capsule ) ) );
    }
    for ( int step = 0; step < CNT_STAR_STEPS; ++step )
    {
        // pressed together: 1 N on each toward the middle
        for ( int k = 0; k < 3; ++k )
        {
            cnVec3 toward = cnNeg( cnBody_GetWorldCenter( bodies[k] ) );
            double length = cnLength( toward );
            cnVec3 force = length > 0.0 ? cnScale( 1.0 / length, toward ) : cn_vec3Zero;
            ck_assert_int_eq( cnBody_ApplyForceToCenter( bodies[k], force ), cn_statusOk );
        }
        ck_assert_int_eq( cnWorld_Step( world, setup->timeStep ), cn_statusOk );
        cnStepReport report = cnWorld_GetStepReport( world );
        overlap[step] = fmax( 0.0, -cntSmallestSeparation( world ) );
        levels[step] = report.contactRecursions;
        if ( getenv( "CNT_VERBOSE" ) != NULL )
        {
            printf( "star %s levels %d: step %d overlap %.3g, recursion overlap %.3g\n", setup->solver,
                    setup->params[1] != NULL ? (int)setup->values[1] : -1, step, overlap[step],
                    report.recursionOverlap );
        }
    }
    cnDestroyWorld( world );
}

// The single constraint per pair leaves overlap after every step, and it jumps from step to step
// (orthogonal motions: each step's push-out turns the capsules into each other elsewhere); relcp
// leaves none above its tolerance after any step, with more than one level in the first.
START_TEST( capsule_star_jitters_without_the_recursion )
{
    double dt = 1.0;
    cntSetup single = { "relcp", { "inner", "levels" }, { 4.0, 0.0 }, 0, 1e-5, dt };
    cntSetup relcp = { "relcp", { "inner", "levels" }, { 4.0, 50.0 }, 0, 1e-5, dt };
    double a[CNT_STAR_STEPS];
    double b[CNT_STAR_STEPS];
    int levelsA[CNT_STAR_STEPS];
    int levelsB[CNT_STAR_STEPS];
    cntRunStar( &single, a, levelsA );
    cntRunStar( &relcp, b, levelsB );
    double worstSingle = 0.0;
    double worstRelcp = 0.0;
    int jumps = 0;
    for ( int step = 0; step < CNT_STAR_STEPS; ++step )
    {
        worstSingle = fmax( worstSingle, a[step] );
        worstRelcp = fmax( worstRelcp, b[step] );
        jumps += step > 0 && fabs( a[step] - a[step - 1] ) > 1e-4 ? 1 : 0;
    }
    printf(
        "capsule star, dt %.2g s, %d steps: single-constraint LCP overlap after each step up to %.3g m (%d "
        "jumps above 0.1 mm), first %.3g m; relcp up to %.3g m, %d levels in the first step\n",
        dt, CNT_STAR_STEPS, worstSingle, jumps, a[0], worstRelcp, levelsB[0] );
    fflush( stdout );
    ck_assert_msg( a[0] > 1e-3, "the single constraint resolved the star in one step (%.3g m left)", a[0] );
    ck_assert_int_ge( jumps, 2 );
    ck_assert_msg( worstRelcp <= 1e-5 + 1e-12, "relcp leaves %.3g m of overlap", worstRelcp );
    ck_assert_int_gt( levelsB[0], 1 );
}
END_TEST

// The paper's limit (digest 9.5): at a small step the linear step overlaps by less than the
// tolerance, relcp adds no level and its answer is the single-constraint LCP's, bit for bit. The
// pair of the first test through its turn at dt = 0.01 s.
START_TEST( small_steps_add_no_level )
{
    double dt = 0.01;
    int steps = 500;
    cntSetup setups[2] = {
        { "relcp", { "inner", "levels" }, { 4.0, 0.0 }, 0, 1e-5, dt },
        { "relcp", { "inner", "levels" }, { 4.0, 50.0 }, 0, 1e-5, dt },
    };
    cnVec3 ends[2];
    cnQuat turns[2];
    int levels = 0;
    double deepest = 0.0;
    for ( int k = 0; k < 2; ++k )
    {
        cnBodyId bodies[2];
        cnWorldId world = cntEllipsoidPair( setups + k, bodies );
        for ( int step = 0; step < steps; ++step )
        {
            ck_assert_int_eq( cnBody_ApplyForceToCenter( bodies[0], cnMakeVec3( 0.0, 1.0, 0.0 ) ),
                              cn_statusOk );
            ck_assert_int_eq( cnBody_ApplyForceToCenter( bodies[1], cnMakeVec3( 0.0, -1.0, 0.0 ) ),
                              cn_statusOk );
            ck_assert_int_eq( cnWorld_Step( world, dt ), cn_statusOk );
            cnStepReport report = cnWorld_GetStepReport( world );
            levels += k == 1 ? report.contactRecursions : 0;
            deepest = fmax( deepest, -cntSmallestSeparation( world ) );
        }
        ends[k] = cnBody_GetWorldCenter( bodies[1] );
        turns[k] = cnBody_GetOrientation( bodies[1] );
        cnDestroyWorld( world );
    }
    printf(
        "ellipsoid pair, dt %.2g s, %d steps: relcp added %d levels; deepest overlap of either run %.3g m; "
        "second body at (%.6f, %.6f) in both\n",
        dt, steps, levels, deepest, ends[1].x, ends[1].y );
    fflush( stdout );
    ck_assert_int_eq( levels, 0 );
    ck_assert( deepest < 1e-5 );
    ck_assert( ends[0].x == ends[1].x && ends[0].y == ends[1].y && ends[0].z == ends[1].z );
    ck_assert( turns[0].x == turns[1].x && turns[0].y == turns[1].y && turns[0].z == turns[1].z &&
               turns[0].w == turns[1].w );
    // and the pair did turn in contact: the second body's major axis moved off its 30 degrees
    cnVec3 axis = cnRotate( turns[1], cnMakeVec3( 0.0, 0.0, 1.0 ) );
    ck_assert( fabs( atan2( axis.y, axis.x ) ) < CN_PI / 6.0 - 0.05 );
}
END_TEST

// The paper's section 7.1 pair, started just before it meets: two ellipsoids (1, 1, 2) in the x-y
// plane turned 45 degrees, centres 1 m apart in x and 3.1 m in y, pushed together by 1 N each
// (overdamped, xi = 1), for 12 s of glancing contact. Returns the upper body's centre x, y and its
// in-plane angle at every 0.4 s.
#define CNT_CONVERGENCE_SAMPLES 30
static void cntRunGlancing( double dt, int levels, double out[CNT_CONVERGENCE_SAMPLES][3] )
{
    cnWorldDef def = cnDefaultWorldDef();
    def.gravity = cn_vec3Zero;
    def.dynamics = cn_dynamicsOverdamped;
    def.timeStep = dt;
    cnWorldId world = cnCreateWorld( &def );
    cntSetup setup = {
        "relcp", { "inner", "levels", "overlap_tolerance" }, { 4.0, (double)levels, 1e-7 }, 0, 1e-5, dt };
    cntApplySetup( world, &setup );
    cnShapeDef shapeDef = cnDefaultShapeDef();
    cnEllipsoid ellipsoid = { { 1.0, 1.0, 2.0 } };
    cnQuat lie = cnQuatFromAxisAngle( cnMakeVec3( 1.0, 0.0, 0.0 ), 0.5 * CN_PI );
    cnQuat turn = cnQuatFromAxisAngle( cnMakeVec3( 0.0, 0.0, 1.0 ), 0.25 * CN_PI );
    cnBodyId bodies[2];
    for ( int k = 0; k < 2; ++k )
    {
        cnBodyDef bodyDef = cnDefaultBodyDef();
        bodyDef.position = cnMakeVec3( k == 0 ? 0.0 : 1.0, k == 0 ? 0.0 : 3.1, 0.0 );
        bodyDef.orientation = cnMulQuat( turn, lie );
        bodyDef.constantForce = cnMakeVec3( 0.0, k == 0 ? 1.0 : -1.0, 0.0 );
        bodies[k] = cnCreateBody( world, &bodyDef );
        ck_assert( CN_IS_NON_NULL( cnCreateEllipsoidShape( bodies[k], &shapeDef, &ellipsoid ) ) );
    }
    int perSample = (int)lround( 0.4 / dt );
    for ( int sample = 0; sample < CNT_CONVERGENCE_SAMPLES; ++sample )
    {
        for ( int step = 0; step < perSample; ++step )
        {
            ck_assert_int_eq( cnWorld_Step( world, dt ), cn_statusOk );
        }
        cnVec3 c = cnBody_GetWorldCenter( bodies[1] );
        cnVec3 axis = cnRotate( cnBody_GetOrientation( bodies[1] ), cnMakeVec3( 0.0, 0.0, 1.0 ) );
        out[sample][0] = c.x;
        out[sample][1] = c.y;
        out[sample][2] = atan2( axis.y, axis.x );
    }
    cnDestroyWorld( world );
}

// Self-convergence under dt refinement (digest 9.7, short): the discrete L2 errors of x, y and the
// angle against a run at dt = 1/640 s fall as dt falls from 0.4 s, for each of the three.
START_TEST( glancing_pair_converges_under_refinement )
{
    static double reference[CNT_CONVERGENCE_SAMPLES][3];
    static double run[CNT_CONVERGENCE_SAMPLES][3];
    cntRunGlancing( 1.0 / 640.0, 50, reference );
    const double steps[4] = { 0.4, 0.1, 0.025, 1.0 / 160.0 };
    double errors[4][3];
    for ( int k = 0; k < 4; ++k )
    {
        cntRunGlancing( steps[k], 50, run );
        for ( int c = 0; c < 3; ++c )
        {
            double sum = 0.0;
            for ( int i = 0; i < CNT_CONVERGENCE_SAMPLES; ++i )
            {
                sum += ( run[i][c] - reference[i][c] ) * ( run[i][c] - reference[i][c] );
            }
            errors[k][c] = sqrt( sum / CNT_CONVERGENCE_SAMPLES );
        }
        printf( "glancing pair, dt %.5f s: L2 errors x %.3g m, y %.3g m, angle %.3g rad\n", steps[k],
                errors[k][0], errors[k][1], errors[k][2] );
    }
    fflush( stdout );
    // they touched: the angle moved off 45 degrees
    ck_assert( fabs( reference[CNT_CONVERGENCE_SAMPLES - 1][2] - 0.25 * CN_PI ) > 0.05 );
    for ( int k = 1; k < 4; ++k )
    {
        for ( int c = 0; c < 3; ++c )
        {
            ck_assert_msg( errors[k][c] < errors[k - 1][c], "dt %.5f: error %d is %.3g, %.3g at dt %.5f",
                           steps[k], c, errors[k][c], errors[k - 1][c], steps[k - 1] );
        }
    }
}
END_TEST

// Two ellipsoids (semi-axes 1, 1, 2, upright) side by side 5 mm into each other, at rest, no gravity,
// in an inertial world with `recursions` levels of the world's recursion (PGS inside), or with relcp
// when `solver` says so. One step: how far they end apart (true separation), their kinetic energy, and
// how far their centre of mass moved.
static void cntPushApart( const char* solver, int recursions, double* separation, double* kinetic,
                          double* drift )
{
    cnWorldDef def = cnDefaultWorldDef();
    def.gravity = cn_vec3Zero;
    def.contactRecursions = recursions;
    cnWorldId world = cnCreateWorld( &def );
    ck_assert_int_eq( cnWorld_SetSolver( world, solver ), cn_statusOk );
    cnShapeDef shapeDef = cnDefaultShapeDef();
    cnEllipsoid ellipsoid = { { 1.0, 1.0, 2.0 } };
    cnBodyId bodies[2];
    for ( int k = 0; k < 2; ++k )
    {
        cnBodyDef bodyDef = cnDefaultBodyDef();
        bodyDef.position = cnMakeVec3( k == 0 ? 0.0 : 1.995, 0.0, 0.0 );
        bodies[k] = cnCreateBody( world, &bodyDef );
        ck_assert( CN_IS_NON_NULL( cnCreateEllipsoidShape( bodies[k], &shapeDef, &ellipsoid ) ) );
    }
    ck_assert_int_eq( cnWorld_Step( world, 1.0 / 60.0 ), cn_statusOk );
    *separation = cntSmallestSeparation( world );
    *kinetic = cnBody_GetKineticEnergy( bodies[0] ) + cnBody_GetKineticEnergy( bodies[1] );
    cnVec3 mid =
        cnScale( 0.5, cnAdd( cnBody_GetWorldCenter( bodies[0] ), cnBody_GetWorldCenter( bodies[1] ) ) );
    *drift = cnLength( cnSub( mid, cnMakeVec3( 0.5 * 1.995, 0.0, 0.0 ) ) );
    cnDestroyWorld( world );
}

// In an inertial world the recursion corrects positions with pseudo-velocities that the bodies do
// not keep: the push-out ends the pair touching in one step and adds no kinetic energy, and equal and
// opposite pushes leave the centre of mass where it was. The soft contact alone (no recursion)
// pushes out over several steps.
START_TEST( inertial_push_out_adds_no_energy )
{
    double soft[3], world[3], relcp[3];
    cntPushApart( "pgs", 0, soft + 0, soft + 1, soft + 2 );
    cntPushApart( "pgs", 8, world + 0, world + 1, world + 2 );
    cntPushApart( "relcp", 0, relcp + 0, relcp + 1, relcp + 2 );
    printf( "overlapping ellipsoids, one step: soft contact separation %.3g m, KE %.3g J; recursion "
            "%.3g m, KE %.3g J, centre moved %.3g m; relcp %.3g m, KE %.3g J, centre moved %.3g m\n",
            soft[0], soft[1], world[0], world[1], world[2], relcp[0], relcp[1], relcp[2] );
    fflush( stdout );
    ck_assert_msg( soft[0] < -1e-3, "the soft contact alone ends %.3g m apart: the test shows nothing",
                   soft[0] );
    double* runs[2] = { world, relcp };
    for ( int k = 0; k < 2; ++k )
    {
        ck_assert_msg( runs[k][0] >= -1e-5 && runs[k][0] <= 1e-6, "run %d ends %.3g m apart", k, runs[k][0] );
        ck_assert_msg( runs[k][1] == 0.0, "run %d: kinetic energy %.3g J", k, runs[k][1] );
        ck_assert_msg( runs[k][2] < 1e-12, "run %d: centre of mass moved %.3g m", k, runs[k][2] );
    }
}
END_TEST

// An upright ellipsoid (semi-axes 0.5, 0.5, 1) dropped from 0.5 m onto the ground under gravity, in an
// inertial world with the world's recursion: no step ends with it in the ground by more than the
// tolerance, and it comes to rest at its closed-form height (centre at z = 1, the c semi-axis), to
// 1e-6 m. The soft contact alone lets the landing sink it millimetres in, and rests it lower by the
// depth its spring needs to carry the weight (5e-5 m here).
static void cntDrop( int recursions, double* deepest, double* height, double* kinetic )
{
    cnWorldDef def = cnDefaultWorldDef();
    def.contactRecursions = recursions;
    cnWorldId world = cnCreateWorld( &def );
    cnBodyDef groundDef = cnDefaultBodyDef();
    groundDef.type = cn_staticBody;
    cnBodyId ground = cnCreateBody( world, &groundDef );
    cnShapeDef shapeDef = cnDefaultShapeDef();
    cnPlane plane = { { 0.0, 0.0, 1.0 }, 0.0 };
    ck_assert( CN_IS_NON_NULL( cnCreatePlaneShape( ground, &shapeDef, &plane ) ) );
    cnBodyDef bodyDef = cnDefaultBodyDef();
    bodyDef.position = cnMakeVec3( 0.0, 0.0, 1.5 );
    cnBodyId body = cnCreateBody( world, &bodyDef );
    cnEllipsoid ellipsoid = { { 0.5, 0.5, 1.0 } };
    ck_assert( CN_IS_NON_NULL( cnCreateEllipsoidShape( body, &shapeDef, &ellipsoid ) ) );
    *deepest = HUGE_VAL;
    for ( int step = 0; step < 300; ++step )
    {
        ck_assert_int_eq( cnWorld_Step( world, 1.0 / 60.0 ), cn_statusOk );
        *deepest = fmin( *deepest, cntSmallestSeparation( world ) );
    }
    *height = cnBody_GetWorldCenter( body ).z;
    *kinetic = cnBody_GetKineticEnergy( body );
    cnDestroyWorld( world );
}

START_TEST( inertial_drop_rests_at_its_height )
{
    double soft[3], recursion[3];
    cntDrop( 0, soft + 0, soft + 1, soft + 2 );
    cntDrop( 8, recursion + 0, recursion + 1, recursion + 2 );
    printf( "ellipsoid dropped on the ground, 300 steps: soft contact deepest %.3g m, rests at %.6f m; "
            "recursion deepest %.3g m, rests at %.9f m (closed form 1), KE %.3g J\n",
            -soft[0], soft[1], -recursion[0], recursion[1], recursion[2] );
    fflush( stdout );
    ck_assert_msg( soft[0] < -1e-3 && soft[1] < 1.0 - 1e-5,
                   "the soft contact sinks %.3g m and rests at %.6f m: the test shows nothing", -soft[0],
                   soft[1] );
    ck_assert_msg( recursion[0] >= -1e-5, "a step ends %.3g m in the ground", -recursion[0] );
    ck_assert_msg( fabs( recursion[1] - 1.0 ) <= 1e-6, "rests at %.9f m", recursion[1] );
    ck_assert_msg( recursion[2] < 1e-12, "still moving: %.3g J", recursion[2] );
}
END_TEST

Suite* cntRelcpPairSuite( void )
{
    Suite* suite = suite_create( "relcp_pairs" );
    TCase* tc = tcase_create( "world" );
    tcase_set_timeout( tc, 120 );
    tcase_add_test( tc, ellipsoid_pair_ends_every_step_touching );
    tcase_add_test( tc, capsule_star_jitters_without_the_recursion );
    tcase_add_test( tc, small_steps_add_no_level );
    tcase_add_test( tc, glancing_pair_converges_under_refinement );
    tcase_add_test( tc, inertial_push_out_adds_no_energy );
    tcase_add_test( tc, inertial_drop_rests_at_its_height );
    suite_add_tcase( suite, tc );
    return suite;
}
