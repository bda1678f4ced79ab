// SPDX-License-Identifier: MIT
// pgs_sm in the world: the mass_ratio scene (heavy boxes on light ones, 100:1) at the default
// step settings (2 substeps, contact_hertz 70). pgs solves the soft contact, whose push-out spring
// is tuned per contact for the light box, so the heavy ones sag into it; pgs_sm declares
// cn_solverHardContact and gets hard velocities with a split-impulse position pass, so the loaded
// contacts hold. The closed form: every box rests where the scene put it (touching), so the
// heavy box's height is 3.5 m and the slab's 2.25 m.

#include "cairn/cairn.h"
#include "cairn/scene.h"

#include <check.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define CNT_STEPS 600

typedef struct cntHold
{
    double heavySag;   // m, height lost by the heavy box (3.5 m at rest)
    double slabSag;    // m, the slab (2.25 m)
    double deepest;    // m, the deepest penetration reported at the end of the run's last 60 steps
    double kinetic;    // J, at the end
    uint32_t warnings; // every step's, or-ed
    int factorizations;
} cntHold;

static cntHold cntRunMassRatio( const char* solver )
{
    char path[512];
    snprintf( path, sizeof( path ), "%s/scenes/mass_ratio.json", CN_ASSETS_DIR );
    char solverSet[64];
    snprintf( solverSet, sizeof( solverSet ), "world.solver.name=%s", solver );
    // the defaults: the scene's 4 substeps and contact_hertz 120 set back to the engine's 2 and 70
    const char* overrides[] = { solverSet, "world.substeps=2", "world.contact_hertz=70" };
    cnSceneOptions options = cnDefaultSceneOptions();
    options.overrides = overrides;
    options.overrideCount = 3;
    cnScene scene;
    cnSceneError error;
    ck_assert_msg( cnLoadSceneFile( path, &options, &scene, &error ) == cn_statusOk, "%s", error.text );
    cnWorldId world = scene.worldId;
    double dt = cnWorld_GetDef( world ).timeStep;
    cntHold hold = { 0 };
    for ( int step = 0; step < CNT_STEPS; ++step )
    {
        ck_assert_int_eq( cnWorld_Step( world, dt ), cn_statusOk );
        cnStepReport report = cnWorld_GetStepReport( world );
        hold.warnings |= report.warnings;
        hold.factorizations += report.solverFactorizations;
        if ( step >= CNT_STEPS - 60 )
        {
            hold.deepest = fmax( hold.deepest, report.maxPenetration );
        }
        hold.kinetic = report.kineticEnergy;
    }
    hold.heavySag = 3.5 - cnBody_GetPosition( cnWorld_FindBody( world, "heavy" ) ).z;
    hold.slabSag = 2.25 - cnBody_GetPosition( cnWorld_FindBody( world, "slab" ) ).z;
    cnDestroyWorld( world );
    return hold;
}

START_TEST( loaded_contacts_hold_at_the_defaults )
{
    cntHold pgs = cntRunMassRatio( "pgs" );
    cntHold sm = cntRunMassRatio( "pgs_sm" );
    printf( "mass_ratio at the defaults after %d steps: heavy box sags %.3f mm (pgs) and %.3f mm (pgs_sm), "
            "the slab "
            "%.3f and %.3f mm; deepest penetration of the last second %.3f and %.3f mm; pgs_sm factorised %d "
            "times\n",
            CNT_STEPS, 1e3 * pgs.heavySag, 1e3 * sm.heavySag, 1e3 * pgs.slabSag, 1e3 * sm.slabSag,
            1e3 * pgs.deepest, 1e3 * sm.deepest, sm.factorizations );
    // pgs sinks into the soft contact (measured: 31 mm and 15 mm)
    ck_assert_double_gt( pgs.heavySag, 0.01 );
    ck_assert_double_gt( pgs.slabSag, 0.005 );
    // pgs_sm holds both loads within 1 mm, at rest, without a warning, by factorising
    ck_assert_double_lt( fabs( sm.heavySag ), 1e-3 );
    ck_assert_double_lt( fabs( sm.slabSag ), 1e-3 );
    ck_assert_double_lt( sm.deepest, 1e-3 );
    ck_assert_double_lt( sm.kinetic, 1e-3 );
    ck_assert_uint_eq( sm.warnings, 0 );
    ck_assert_int_gt( sm.factorizations, 0 );
}
END_TEST

int main( void )
{
    Suite* suite = suite_create( "pgs_sm_world" );
    TCase* tc = tcase_create( "mass_ratio" );
    tcase_set_timeout( tc, 600 );
    tcase_add_test( tc, loaded_contacts_hold_at_the_defaults );
    suite_add_tcase( suite, tc );
    SRunner* runner = srunner_create( suite );
    srunner_run_all( runner, CK_NORMAL );
    int failed = srunner_ntests_failed( runner );
    srunner_free( runner );
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
