// SPDX-License-Identifier: MIT
// cairn lcp and cairn solvers: PGS through the tool reproduces Siconos' PGS iterates, the JSON
// output, the solver list, and the ways to get the command line or the file wrong.
#include "cli_suites.h"
#include "cli_support.h"
#include "test_support.h"

#include "cairn/solver.h"

#include <check.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CNT_LCP_DIR       CN_SHARED_DIR "/external-data/siconos-lcp"
#define CNT_LCP_REFERENCE CN_SHARED_DIR "/external-data/generated/siconos-lcp-reference.json"
#define CNT_FC3D_FILE     CN_SHARED_DIR "/external-data/siconos-fc3d/Rover4396.dat"

static const cJSON* cntField( const cJSON* object, const char* key )
{
    return cJSON_GetObjectItemCaseSensitive( object, key );
}

// `cairn lcp FILE --solver pgs --tol 0 --max-iter k` gives Siconos' PGS iterate k from zero.
START_TEST( pgs_matches_siconos_iterates )
{
    cJSON* reference = cntReadJson( CNT_LCP_REFERENCE );
    if ( reference == NULL )
    {
        printf( "skipped: %s not found\n", CNT_LCP_REFERENCE );
        return;
    }
    const cnSolverVTable* pgs = cnFindSolver( "pgs" );
    ck_assert_ptr_nonnull( pgs );
    if ( pgs->solve == NULL )
    {
        cntCliRun run = cntRunCli( "lcp \"%s/lcp_deudeu.dat\" --solver pgs", CNT_LCP_DIR );
        ck_assert_int_eq( run.exitCode, 1 );
        ck_assert_msg( cntContains( run.err, "has no solve function" ), "%s", run.err );
        cntFreeCliRun( &run );
        printf( "skipped: pgs has no solve function in this build\n" );
        cJSON_Delete( reference );
        return;
    }

    const char* out = cntWorkPath( 0, "lcp_pgs.json" );
    int failures = 0;
    int compared = 0;
    double worst = 0.0;
    const cJSON* entry = NULL;
    cJSON_ArrayForEach( entry, cntField( reference, "problems" ) )
    {
        const cJSON* iterates = cntField( entry, "pgs_iterates_from_zero" );
        const cJSON* iterate = NULL;
        cJSON_ArrayForEach( iterate, iterates )
        {
            int k = atoi( iterate->string );
            remove( out );
            cntCliRun run = cntRunCli( "lcp \"%s/%s\" --solver pgs --tol 0 --max-iter %d --out \"%s\"",
                                       CNT_LCP_DIR, entry->string, k, out );
            cJSON* result = run.exitCode == 0 ? cntReadJson( out ) : NULL;
            const cJSON* lambda = cntField( result, "lambda" );
            // with --tol 0 PGS stops early only on an exact solution, a fixed point of the sweep
            const cJSON* status = cntField( result, "status" );
            double iterations = result != NULL ? cntField( result, "iterations" )->valuedouble : -1.0;
            bool ok = result != NULL && cJSON_GetArraySize( lambda ) == cJSON_GetArraySize( iterate ) &&
                      ( iterations == (double)k ||
                        ( iterations < (double)k && strcmp( status->valuestring, "converged" ) == 0 ) );
            for ( int i = 0; ok && i < cJSON_GetArraySize( iterate ); ++i )
            {
                double mine = cJSON_GetArrayItem( lambda, i )->valuedouble;
                double theirs = cJSON_GetArrayItem( iterate, i )->valuedouble;
                double gap = fabs( mine - theirs ) / fmax( 1.0, fabs( theirs ) );
                worst = fmax( worst, gap );
                ok = gap <= 1e-12;
            }
            if ( ok == false )
            {
                printf( "%s, %d sweeps: exit %d, %s%s", entry->string, k, run.exitCode, run.out, run.err );
                for ( int i = 0; i < cJSON_GetArraySize( iterate ) && i < 6; ++i )
                {
                    printf( "    lambda[%d] %.17g, Siconos %.17g\n", i,
                            cJSON_GetArrayItem( lambda, i ) != NULL
                                ? cJSON_GetArrayItem( lambda, i )->valuedouble
                                : (double)NAN,
                            cJSON_GetArrayItem( iterate, i )->valuedouble );
                }
                failures += 1;
            }
            compared += 1;
            cJSON_Delete( result );
            cntFreeCliRun( &run );
        }
    }
    printf( "cairn lcp --solver pgs: %d Siconos iterates compared, largest relative gap %.3g\n", compared,
            worst );
    ck_assert_msg( failures == 0, "%d of %d PGS iterates differ from Siconos'", failures, compared );
    ck_assert_int_ge( compared, 7 );
    cJSON_Delete( reference );
}
END_TEST

// Lemke on a Siconos file: the summary line and every JSON field.
START_TEST( lemke_summary_and_json )
{
    const char* file = CNT_LCP_DIR "/lcp_deudeu.dat";
    FILE* probe = fopen( file, "r" );
    if ( probe == NULL )
    {
        printf( "skipped: %s not found\n", file );
        return;
    }
    fclose( probe );
    const char* out = cntWorkPath( 0, "lcp_lemke.json" );
    remove( out );
    cntCliRun run = cntRunCli( "lcp \"%s\" --solver lemke --out \"%s\"", file, out );
    ck_assert_msg( run.exitCode == 0, "%s", run.err );
    ck_assert_msg( run.err[0] == '\0', "stderr: %s", run.err );
    ck_assert_int_eq( cntCountLines( run.out ), 1 );
    ck_assert_msg(
        cntContains( run.out, "lcp_deudeu.dat: 2 rows, solver lemke: converged, 3 iterations, residual 0, " ),
        "%s", run.out );
    cJSON* result = cntReadJson( out );
    ck_assert_ptr_nonnull( result );
    ck_assert_str_eq( cntField( result, "file" )->valuestring, file );
    ck_assert_str_eq( cntField( result, "solver" )->valuestring, "lemke" );
    ck_assert_str_eq( cntField( result, "status" )->valuestring, "converged" );
    ck_assert_str_eq( cntField( result, "format" )->valuestring, "siconos_lcp" );
    CNT_ASSERT_ABS( cntField( result, "rows" )->valuedouble, 2.0, 0.0 );
    CNT_ASSERT_ABS( cntField( result, "iterations" )->valuedouble, 3.0, 0.0 );
    CNT_ASSERT_ABS( cntField( result, "residual" )->valuedouble, 0.0, 0.0 );
    ck_assert( cntField( result, "milliseconds" )->valuedouble >= 0.0 );
    ck_assert_ptr_null( cntField( result, "contacts" ) );
    // full precision: 4/3 and 7/3 to the last bit
    ck_assert( cJSON_GetArrayItem( cntField( result, "lambda" ), 0 )->valuedouble == 4.0 / 3.0 );
    ck_assert( cJSON_GetArrayItem( cntField( result, "lambda" ), 1 )->valuedouble == 7.0 / 3.0 );
    ck_assert_int_eq( cJSON_GetArraySize( cntField( result, "w" ) ), 2 );
    CNT_ASSERT_ABS( cJSON_GetArrayItem( cntField( result, "w" ), 0 )->valuedouble, 0.0, 1e-15 );
    CNT_ASSERT_ABS( cntField( cntField( result, "params" ), "iterations" )->valuedouble, 1000.0, 0.0 );
    cJSON_Delete( result );
    cntFreeCliRun( &run );

    // the status is data: no solution still exits 0
    run = cntRunCli( "lcp \"%s/lcp_Pang_isolated_sol_perturbed.dat\" --solver lemke", CNT_LCP_DIR );
    ck_assert_int_eq( run.exitCode, 0 );
    ck_assert_msg( cntContains( run.out, "solver lemke: no_solution" ), "%s", run.out );
    cntFreeCliRun( &run );
}
END_TEST

// An FC3D file: contacts in the summary and the JSON; Lemke refuses friction (status unsupported).
START_TEST( fc3d_file )
{
    FILE* probe = fopen( CNT_FC3D_FILE, "r" );
    if ( probe == NULL )
    {
        printf( "skipped: %s not found\n", CNT_FC3D_FILE );
        return;
    }
    fclose( probe );
    const char* out = cntWorkPath( 0, "lcp_fc3d.json" );
    remove( out );
    cntCliRun run =
        cntRunCli( "lcp \"%s\" --solver pgs --max-iter 50 --tol 1e-9 --out \"%s\"", CNT_FC3D_FILE, out );
    ck_assert_msg( run.exitCode == 0, "%s", run.err );
    ck_assert_msg( cntContains( run.out, "Rover4396.dat: 6 rows (2 contacts), solver pgs: " ), "%s",
                   run.out );
    cJSON* result = cntReadJson( out );
    ck_assert_ptr_nonnull( result );
    CNT_ASSERT_ABS( cntField( result, "contacts" )->valuedouble, 2.0, 0.0 );
    ck_assert_str_eq( cntField( result, "format" )->valuestring, "siconos_fc3d" );
    ck_assert_int_eq( cJSON_GetArraySize( cntField( result, "lambda" ) ), 6 );
    CNT_ASSERT_ABS( cntField( cntField( result, "params" ), "tolerance" )->valuedouble, 1e-9, 0.0 );
    cJSON_Delete( result );
    cntFreeCliRun( &run );

    run = cntRunCli( "lcp \"%s\" --solver lemke", CNT_FC3D_FILE );
    ck_assert_int_eq( run.exitCode, 0 );
    ck_assert_msg( cntContains( run.out, "solver lemke: unsupported, 0 iterations" ), "%s", run.out );
    cntFreeCliRun( &run );
}
END_TEST

START_TEST( solvers_lists_every_solver )
{
    cntCliRun run = cntRunCli( "solvers" );
    ck_assert_int_eq( run.exitCode, 0 );
    ck_assert_msg( run.err[0] == '\0', "stderr: %s", run.err );
    const char* expected[] = {
        "pgs (default): ", "\npsor: ",   "\npgj: ",    "\nlemke: ",   "iterations",
        "tolerance",       "warm_start", "relaxation", "pivot limit", "caps: explicit matrix_free" };
    for ( int i = 0; i < (int)( sizeof( expected ) / sizeof( expected[0] ) ); ++i )
    {
        ck_assert_msg( cntContains( run.out, expected[i] ), "cairn solvers does not say \"%s\": %s",
                       expected[i], run.out );
    }
    cntFreeCliRun( &run );

    // JSON: the registry, in order, every parameter with default and range
    run = cntRunCli( "solvers --json" );
    ck_assert_int_eq( run.exitCode, 0 );
    cJSON* root = cJSON_Parse( run.out );
    ck_assert_ptr_nonnull( root );
    const cJSON* list = cntField( root, "solvers" );
    ck_assert_int_eq( cJSON_GetArraySize( list ), cnGetSolverCount() );
    for ( int s = 0; s < cnGetSolverCount(); ++s )
    {
        const cnSolverVTable* solver = cnGetSolverAt( s );
        const cJSON* entry = cJSON_GetArrayItem( list, s );
        ck_assert_str_eq( cntField( entry, "name" )->valuestring, solver->name );
        ck_assert( cJSON_IsBool( cntField( entry, "available" ) ) );
        const cJSON* params = cntField( entry, "params" );
        ck_assert_int_eq( cJSON_GetArraySize( params ), solver->paramCount );
        for ( int p = 0; p < solver->paramCount; ++p )
        {
            const cJSON* param = cJSON_GetArrayItem( params, p );
            ck_assert_str_eq( cntField( param, "name" )->valuestring, solver->params[p].name );
            ck_assert( cntField( param, "default" )->valuedouble == solver->params[p].defaultValue );
            ck_assert( cntField( param, "min" )->valuedouble == solver->params[p].minValue );
            ck_assert( cntField( param, "max" )->valuedouble == solver->params[p].maxValue );
        }
    }
    const char* names[] = { "pgs", "psor", "pgj", "lemke" };
    for ( int i = 0; i < 4; ++i )
    {
        ck_assert_msg( cnFindSolver( names[i] ) != NULL, "no solver %s", names[i] );
    }
    cJSON_Delete( root );
    cntFreeCliRun( &run );

    run = cntRunCli( "solvers --help" );
    ck_assert_int_eq( run.exitCode, 0 );
    ck_assert( cntContains( run.out, "usage: cairn solvers" ) );
    cntFreeCliRun( &run );
    run = cntRunCli( "lcp --help" );
    ck_assert_int_eq( run.exitCode, 0 );
    ck_assert( cntContains( run.out, "--max-iter" ) && cntContains( run.out, "--out" ) );
    cntFreeCliRun( &run );
}
END_TEST

typedef struct cntBadLcpArgs
{
    const char* args;
    const char* message;
} cntBadLcpArgs;

static const cntBadLcpArgs cnt_badLcpArgs[] = {
    { "lcp", "no problem file given" },
    { "lcp a.dat b.dat", "more than one problem file: 'a.dat' and 'b.dat'" },
    { "lcp a.dat --tol", "--tol needs a value" },
    { "lcp a.dat --tol -1", "--tol expects a non-negative number, got '-1'" },
    { "lcp a.dat --tol abc", "got 'abc'" },
    { "lcp a.dat --tol nan", "got 'nan'" },
    { "lcp a.dat --tol=", "--tol= needs a non-empty value" },
    { "lcp a.dat --max-iter 0", "--max-iter expects an integer >= 1, got '0'" },
    { "lcp a.dat --max-iter 1.5", "got '1.5'" },
    { "lcp a.dat --max-iter -3", "got '-3'" },
    { "lcp a.dat --max-iter 99999999999999999999", "--max-iter expects" },
    { "lcp a.dat --solver", "--solver needs a value" },
    { "lcp a.dat --solver nosuch", "unknown solver 'nosuch' (cairn solvers lists them)" },
    { "lcp a.dat --solver lemke --tol 0.5", "--tol 0.5 is outside the range of lemke's \"tolerance\"" },
    { "lcp a.dat --solver pgs --max-iter 1000000", "--max-iter 1e+06 is outside the range" },
    { "lcp a.dat --out", "--out needs a value" },
    { "lcp a.dat --bogus", "unknown option '--bogus'" },
    { "solvers extra", "unexpected argument 'extra'" },
    { "solvers --bogus", "unknown option '--bogus'" },
};

START_TEST( bad_lcp_arguments_exit_2 )
{
    const cntBadLcpArgs* bad = cnt_badLcpArgs + _i;
    cntCliRun run = cntRunCli( "%s", bad->args );
    ck_assert_msg( run.exitCode == 2, "'%s': exit code %d, stderr: %s", bad->args, run.exitCode, run.err );
    ck_assert_msg( cntContains( run.err, bad->message ), "'%s': stderr does not say \"%s\": %s", bad->args,
                   bad->message, run.err );
    ck_assert_msg( run.out[0] == '\0', "'%s': stdout: %s", bad->args, run.out );
    cntFreeCliRun( &run );
}
END_TEST

// A file that is missing or malformed exits 1 with the reader's message; so does an output file
// that cannot be written.
START_TEST( unreadable_files_exit_1 )
{
    cntCliRun run = cntRunCli( "lcp \"%s\"", cntWorkPath( 0, "no_such_problem.dat" ) );
    ck_assert_int_eq( run.exitCode, 1 );
    ck_assert_msg( cntContains( run.err, "no_such_problem.dat: cannot open: No such file or directory" ),
                   "%s", run.err );
    ck_assert_msg( run.out[0] == '\0', "stdout: %s", run.out );
    cntFreeCliRun( &run );

    const char* path = cntWorkPath( 1, "letter.dat" );
    FILE* file = fopen( path, "w" );
    ck_assert_ptr_nonnull( file );
    fputs( "2\n0\n2 2\n2 2\n2 1\nx 2\n-5 -6\n", file );
    fclose( file );
    run = cntRunCli( "lcp \"%s\"", path );
    ck_assert_int_eq( run.exitCode, 1 );
    ck_assert_msg( cntContains( run.err, "letter.dat:6: token 9: expected M[2] (a number), got 'x'" ), "%s",
                   run.err );
    cntFreeCliRun( &run );

    // a good file, an output that cannot be written: the summary still prints, exit 1
    file = fopen( path, "w" );
    ck_assert_ptr_nonnull( file );
    fputs( "2\n0\n2 2\n2 2\n2 1\n1 2\n-5 -6\n", file );
    fclose( file );
    run = cntRunCli( "lcp \"%s\" --solver lemke --out /nonexistent/folder/out.json", path );
    ck_assert_int_eq( run.exitCode, 1 );
    ck_assert_msg( cntContains( run.out, "solver lemke: converged" ), "%s", run.out );
    ck_assert_msg( cntContains( run.err, "cannot open /nonexistent/folder/out.json for writing" ), "%s",
                   run.err );
    cntFreeCliRun( &run );
}
END_TEST

Suite* cntCliLcpSuite( void )
{
    Suite* suite = suite_create( "cli_lcp" );
    TCase* lcp = tcase_create( "lcp" );
    tcase_set_timeout( lcp, 120 );
    tcase_add_test( lcp, pgs_matches_siconos_iterates );
    tcase_add_test( lcp, lemke_summary_and_json );
    tcase_add_test( lcp, fc3d_file );
    tcase_add_test( lcp, solvers_lists_every_solver );
    tcase_add_loop_test( lcp, bad_lcp_arguments_exit_2, 0,
                         (int)( sizeof( cnt_badLcpArgs ) / sizeof( cnt_badLcpArgs[0] ) ) );
    tcase_add_test( lcp, unreadable_files_exit_1 );
    suite_add_tcase( suite, lcp );
    return suite;
}
