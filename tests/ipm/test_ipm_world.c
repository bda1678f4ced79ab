// SPDX-License-Identifier: MIT
// ipm in a world: a box resting on a plane pushed sideways in eight directions. The sliding
// threshold (the push at which one step from rest leaves the box moving) is found by bisection. With
// the exact cone (world friction_model "cone", solver ipm) it is mu m g in every direction; with the
// friction pyramid (pgs converged tightly) it depends on the direction against the contact frames
// where those do not follow the slide (below).

#include "test_support.h"

#include "cairn/cairn.h"
#include "cairn/solver.h"

#include <check.h>

#include <math.h>
#include <stdio.h>

#define CNT_MU      0.5
#define CNT_GRAVITY 9.81

typedef struct cntPush
{
    cnWorldId world;
    cnBodyId box;
    double mass;
    double dt;
} cntPush;

static cntPush cntCreatePush( cnFrictionModel model, double dt )
{
    cnWorldDef def = cntWorldDef( NULL, NULL );
    def.timeStep = dt;
    def.gravity = cnMakeVec3( 0.0, 0.0, -CNT_GRAVITY );
    def.frictionModel = model;
    def.substeps = 1;
    if ( model == cn_frictionCone )
    {
        snprintf( def.solver.name, sizeof( def.solver.name ), "ipm" );
    }
    else
    {
        snprintf( def.solver.name, sizeof( def.solver.name ), "pgs" );
    }
    cntPush push = { .world = cnCreateWorld( &def ), .dt = dt };
    ck_assert( cnWorld_IsValid( push.world ) );
    if ( model == cn_frictionCone )
    {
        ck_assert_int_eq( cnWorld_SetSolverParam( push.world, "tolerance", 1e-11 ), cn_statusOk );
        ck_assert_int_eq( cnWorld_SetSolverParam( push.world, "iterations", 2000 ), cn_statusOk );
        ck_assert_int_eq( cnWorld_SetSolverParam( push.world, "de_saxce_passes", 100 ), cn_statusOk );
    }
    else
    {
        ck_assert_int_eq( cnWorld_SetSolverParam( push.world, "tolerance", 1e-13 ), cn_statusOk );
        ck_assert_int_eq( cnWorld_SetSolverParam( push.world, "iterations", 20000 ), cn_statusOk );
    }
    cnShapeDef shapeDef = cnDefaultShapeDef();
    shapeDef.material.friction = CNT_MU;
    cnBodyDef groundDef = cnDefaultBodyDef();
    groundDef.type = cn_staticBody;
    cnBodyId ground = cnCreateBody( push.world, &groundDef );
    cnGeometry plane = cntPlaneGeometry( cnMakeVec3( 0.0, 0.0, 1.0 ), 0.0 );
    ck_assert( CN_IS_NON_NULL( cnCreateShape( ground, &shapeDef, &plane ) ) );
    cnBodyDef boxDef = cnDefaultBodyDef();
    boxDef.position = cnMakeVec3( 0.0, 0.0, 0.5 );
    push.box = cnCreateBody( push.world, &boxDef );
    cnGeometry box = cntBoxGeometry( 0.5, 0.5, 0.5 );
    ck_assert( CN_IS_NON_NULL( cnCreateShape( push.box, &shapeDef, &box ) ) );
    push.mass = cnBody_GetMassData( push.box ).mass;
    ck_assert_double_gt( push.mass, 0.0 );
    return push;
}

// one step from rest with a push of `share` times mu m g in the direction at `angle`: the horizontal
// speed it leaves
static double cntSpeedAfter( cntPush* push, double angle, double share )
{
    ck_assert_int_eq(
        cnBody_SetTransform( push->box, cnMakeVec3( 0.0, 0.0, 0.5 ), cnMakeQuat( 1.0, 0.0, 0.0, 0.0 ) ),
        cn_statusOk );
    ck_assert_int_eq( cnBody_SetLinearVelocity( push->box, cnMakeVec3( 0.0, 0.0, 0.0 ) ), cn_statusOk );
    ck_assert_int_eq( cnBody_SetAngularVelocity( push->box, cnMakeVec3( 0.0, 0.0, 0.0 ) ), cn_statusOk );
    double force = share * CNT_MU * push->mass * CNT_GRAVITY;
    ck_assert_int_eq(
        cnBody_ApplyForceToCenter( push->box, cnMakeVec3( force * cos( angle ), force * sin( angle ), 0.0 ) ),
        cn_statusOk );
    ck_assert_int_eq( cnWorld_Step( push->world, push->dt ), cn_statusOk );
    cnVec3 v = cnBody_GetLinearVelocity( push->box );
    return hypot( v.x, v.y );
}

// the push (times mu m g) at which the box starts to slide, to `precision` (relative), by bisection
// on one step from rest: held, the speed after the step is the solver's round-off; sliding, it is
// the excess push times dt / m. A speed above 1e-9 of mu g dt counts as sliding (the solves are
// converged to 1e-11 and below, so a held box stays under it).
static double cntThreshold( cntPush* push, double angle, double precision )
{
    double low = 0.5, high = 2.0;
    double floor = 1e-9 * CNT_MU * CNT_GRAVITY * push->dt;
    while ( high - low > precision * low )
    {
        double middle = 0.5 * ( low + high );
        if ( cntSpeedAfter( push, angle, middle ) > floor )
        {
            high = middle;
        }
        else
        {
            low = middle;
        }
    }
    return 0.5 * ( low + high );
}

// The table at two steps: 0.01 s, where the push's predicted slide (mu g dt = 49 mm/s) is above the
// engine's 1 mm/s, so the pyramid's first axis follows it (contact_rows.c) and the pyramid holds
// mu m g in every direction too; and 1e-4 s, where the predicted slide is 0.49 mm/s, the axes are a
// fixed function of the normal, and the pyramid holds up to sqrt 2 mu m g across them.
START_TEST( test_sliding_threshold_is_isotropic_with_the_cone )
{
    const double steps[2] = { 0.01, 1e-4 };
    for ( int s = 0; s < 2; ++s )
    {
        cntPush cone = cntCreatePush( cn_frictionCone, steps[s] );
        cntPush pyramid = cntCreatePush( cn_frictionPyramid, steps[s] );
        double coneLow = INFINITY, coneHigh = 0.0, pyramidLow = INFINITY, pyramidHigh = 0.0;
        printf(
            "sliding threshold / (mu m g), one step of %g s from rest:\n| direction | cone (ipm) | pyramid "
            "(pgs) |\n| ---: | ---: | ---: |\n",
            steps[s] );
        for ( int k = 0; k < 8; ++k )
        {
            double angle = k * M_PI / 4.0;
            double coneThreshold = cntThreshold( &cone, angle, 1e-8 );
            double pyramidThreshold = cntThreshold( &pyramid, angle, 1e-6 );
            printf( "| %d deg | %.9f | %.6f |\n", 45 * k, coneThreshold, pyramidThreshold );
            coneLow = fmin( coneLow, coneThreshold );
            coneHigh = fmax( coneHigh, coneThreshold );
            pyramidLow = fmin( pyramidLow, pyramidThreshold );
            pyramidHigh = fmax( pyramidHigh, pyramidThreshold );
        }
        // the cone: mu m g in every direction, the same to 1e-6 relative
        ck_assert_double_le( coneHigh - coneLow, 1e-6 * coneLow );
        ck_assert_double_le( fabs( coneLow - 1.0 ), 1e-6 );
        if ( s == 0 )
        {
            // the pyramid with its axes along the slide: mu m g too
            ck_assert_double_le( fabs( pyramidLow - 1.0 ), 1e-5 );
            ck_assert_double_le( fabs( pyramidHigh - 1.0 ), 1e-5 );
        }
        else
        {
            // the pyramid on fixed axes: mu m g along them, sqrt 2 mu m g across them
            ck_assert_double_le( fabs( pyramidLow - 1.0 ), 1e-5 );
            ck_assert_double_le( fabs( pyramidHigh - sqrt( 2.0 ) ), 1e-5 );
        }
        cnDestroyWorld( cone.world );
        cnDestroyWorld( pyramid.world );
    }
}
END_TEST

static Suite* cntIpmWorldSuite( void )
{
    Suite* suite = suite_create( "ipm_world" );
    TCase* tc = tcase_create( "push" );
    tcase_set_timeout( tc, 600 );
    tcase_add_test( tc, test_sliding_threshold_is_isotropic_with_the_cone );
    suite_add_tcase( suite, tc );
    return suite;
}

int main( void )
{
    cntSuiteFcn* suites[] = { cntIpmWorldSuite };
    return cntRunSuites( suites, 1 );
}
