// SPDX-License-Identifier: MIT
// The HUD's parameter editor (demos/viewer/params.c): what Left/Right does to each type of
// parameter, on the real tables of pgs and lemke, and that every step it takes is a value the
// solver accepts (cnCheckSolverParam).
#include "params.h"
#include "test_support.h"

#include "cairn/solver.h"

#include <string.h>

static const cnSolverParam* cntParam( const char* solverName, const char* name )
{
    const cnSolverVTable* solver = cnFindSolver( solverName );
    ck_assert_ptr_nonnull( solver );
    int index = cnFindSolverParam( solver, name );
    ck_assert_msg( index >= 0, "%s has no parameter %s", solverName, name );
    return solver->params + index;
}

START_TEST( each_type_steps_its_own_way )
{
    // a choice: Right and Left step through the names and wrap; the HUD shows the name
    const cnSolverParam* kernel = cntParam( "pgs", "kernel" );
    ck_assert_int_eq( kernel->type, cn_paramChoice );
    ck_assert_int_eq( kernel->choiceCount, 2 );
    double value = vwNudgeParamValue( kernel, 0.0, 1 );
    char text[64];
    ck_assert_str_eq( cnFormatSolverParam( kernel, value, text, (int)sizeof( text ) ), "reference" );
    ck_assert( vwNudgeParamValue( kernel, value, 1 ) == 0.0 ); // wraps forward
    ck_assert( vwNudgeParamValue( kernel, 0.0, -1 ) == 1.0 );  // and back
    ck_assert( vwNudgeParamValue( kernel, 1.0, -1 ) == 0.0 );

    // a toggle flips, either way
    const cnSolverParam* warm = cntParam( "pgs", "warm_start" );
    ck_assert_int_eq( warm->type, cn_paramToggle );
    ck_assert( vwNudgeParamValue( warm, 1.0, 1 ) == 0.0 );
    ck_assert( vwNudgeParamValue( warm, 0.0, -1 ) == 1.0 );

    // an integer doubles and halves, within its range (iterations >= 1)
    const cnSolverParam* iterations = cntParam( "pgs", "iterations" );
    ck_assert_int_eq( iterations->type, cn_paramInteger );
    ck_assert( vwNudgeParamValue( iterations, 10.0, 1 ) == 20.0 );
    ck_assert( vwNudgeParamValue( iterations, 11.0, -1 ) == 5.0 );
    ck_assert( vwNudgeParamValue( iterations, 1.0, -1 ) == 1.0 );
    ck_assert( vwNudgeParamValue( iterations, iterations->maxValue, 1 ) == iterations->maxValue );
    const cnSolverParam* pivots = cntParam( "lemke", "iterations" );
    ck_assert( vwNudgeParamValue( pivots, 1000.0, 1 ) == 2000.0 );

    // numbers: a tolerance by decades (from 0, Right gives the default), relaxation by tenths
    // that read back as tenths, in range; divergence_factor (a count-like number) doubles
    const cnSolverParam* tolerance = cntParam( "pgs", "tolerance" );
    ck_assert_int_eq( tolerance->type, cn_paramNumber );
    ck_assert( vwNudgeParamValue( tolerance, 1e-6, 1 ) == 1e-5 );
    ck_assert( vwNudgeParamValue( tolerance, 1e-6, -1 ) == 1e-7 );
    ck_assert( vwNudgeParamValue( tolerance, 0.0, 1 ) == tolerance->defaultValue );
    ck_assert( vwNudgeParamValue( tolerance, 0.0, -1 ) == 0.0 );
    ck_assert( vwNudgeParamValue( tolerance, 0.5, 1 ) == 1.0 ); // clamped to its maximum
    const cnSolverParam* relaxation = cntParam( "pgs", "relaxation" );
    value = 1.0;
    for ( int i = 0; i < 3; ++i )
    {
        value = vwNudgeParamValue( relaxation, value, 1 );
    }
    ck_assert_str_eq( cnFormatSolverParam( relaxation, value, text, (int)sizeof( text ) ), "1.3" );
    ck_assert( vwNudgeParamValue( relaxation, 1.95, 1 ) == relaxation->maxValue );
    ck_assert( vwNudgeParamValue( relaxation, 0.05, -1 ) == relaxation->minValue );
    const cnSolverParam* divergence = cntParam( "pgs", "divergence_factor" );
    ck_assert( vwNudgeParamValue( divergence, 10000.0, 1 ) == 20000.0 );
    ck_assert( vwNudgeParamValue( divergence, 10000.0, -1 ) == 5000.0 );
}
END_TEST

// From every parameter's default, ten steps each way stay acceptable to the solver.
START_TEST( every_step_is_a_value_the_solver_takes )
{
    int refused = 0, steps = 0;
    for ( int s = 0; s < cnGetSolverCount(); ++s )
    {
        const cnSolverVTable* solver = cnGetSolverAt( s );
        for ( int p = 0; p < solver->paramCount; ++p )
        {
            const cnSolverParam* param = solver->params + p;
            for ( int direction = -1; direction <= 1; direction += 2 )
            {
                double value = param->defaultValue;
                for ( int k = 0; k < 10; ++k )
                {
                    value = vwNudgeParamValue( param, value, direction );
                    char why[192];
                    if ( cnCheckSolverParam( param, value, why, (int)sizeof( why ) ) != cn_statusOk )
                    {
                        fprintf( stderr, "%s.%s: %s\n", solver->name, param->name, why );
                        refused += 1;
                    }
                    steps += 1;
                }
            }
        }
    }
    ck_assert_int_gt( steps, 0 );
    ck_assert_int_eq( refused, 0 );
}
END_TEST

static Suite* cntParamsSuite( void )
{
    Suite* suite = suite_create( "viewer_params" );
    TCase* tc = tcase_create( "editor" );
    tcase_add_test( tc, each_type_steps_its_own_way );
    tcase_add_test( tc, every_step_is_a_value_the_solver_takes );
    suite_add_tcase( suite, tc );
    return suite;
}

int main( void )
{
    static cntSuiteFcn* const suites[] = { cntParamsSuite };
    return cntRunSuites( suites, 1 );
}
