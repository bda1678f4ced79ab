// SPDX-License-Identifier: MIT
// cairn lcp and cairn solvers: PGS through the tool reproduces Siconos' PGS iterates, the JSON
// output (merits, reason, history, start, reference difference), --param, --history, --cold,
// fclib HDF5 files, the solver list with parameter types and choices, and the ways to get the
// command line or the file wrong.
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
#define CNT_FCLIB_DIR     CN_SHARED_DIR "/external-data/fclib-hdf5"

static const char* const cnt_meritKeys[5] = { "merit_natural_map", "merit_cone", "violation_signorini",
                                              "violation_coulomb", "violation_dissipation" };

static const cJSON* cntField( const cJSON* object, const char* key )
{
    return cJSON_GetObjectItemCaseSensitive( object, key );
}

// A file of ../shared/external-data: true when it is there; otherwise says the test is skipped.
static bool cntSharedFileIsThere( const char* path )
{
    FILE* probe = fopen( path, "r" );
    if ( probe == NULL )
    {
        printf( "skipped: %s not found\n", path );
        return false;
    }
    fclose( probe );
    return true;
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
    if ( cntSharedFileIsThere( file ) == false )
    {
        return;
    }
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
    ck_assert_str_eq( cntField( result, "start" )->valuestring, "zero" );
    ck_assert_ptr_null( cntField( result, "reason" ) );
    ck_assert_ptr_null( cntField( result, "history" ) );
    ck_assert_ptr_null( cntField( result, "reference_max_difference" ) );
    for ( int k = 0; k < 5; ++k )
    {
        const cJSON* merit = cntField( result, cnt_meritKeys[k] );
        ck_assert_msg( cJSON_IsNumber( merit ), "no %s", cnt_meritKeys[k] );
        CNT_ASSERT_ABS( merit->valuedouble, 0.0, 1e-15 ); // an exact solution
    }
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
    if ( cntSharedFileIsThere( CNT_FC3D_FILE ) == false )
    {
        return;
    }
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

    // the merits are numbers, the violations of a truncated pgs are >= 0
    for ( int k = 0; k < 5; ++k )
    {
        const cJSON* merit = cntField( result, cnt_meritKeys[k] );
        ck_assert_msg( cJSON_IsNumber( merit ) && merit->valuedouble >= 0.0, "%s", cnt_meritKeys[k] );
    }
    ck_assert_ptr_null( cntField( result, "reason" ) );
    cJSON_Delete( result );
    cntFreeCliRun( &run );

    // lemke cannot take friction: unsupported, and the summary and the JSON say why
    remove( out );
    run = cntRunCli( "lcp \"%s\" --solver lemke --out \"%s\"", CNT_FC3D_FILE, out );
    ck_assert_int_eq( run.exitCode, 0 );
    ck_assert_msg( cntContains( run.out,
                                "solver lemke: unsupported (contacts with friction rows: this solver takes "
                                "frictionless normals only), 0 iterations" ),
                   "%s", run.out );
    result = cntReadJson( out );
    ck_assert_ptr_nonnull( result );
    ck_assert_str_eq( cntField( result, "status" )->valuestring, "unsupported" );
    ck_assert_msg( strstr( cntField( result, "reason" )->valuestring, "contacts with friction rows" ) != NULL,
                   "%s", cntField( result, "reason" )->valuestring );
    cJSON_Delete( result );
    cntFreeCliRun( &run );

    // ipm takes the cone, not the file's pyramid: the refusal names the option that fixes it, and
    // with that option the same file is solved
    remove( out );
    run = cntRunCli( "lcp \"%s\" --solver ipm --out \"%s\"", CNT_FC3D_FILE, out );
    ck_assert_int_eq( run.exitCode, 0 );
    ck_assert_msg( cntContains( run.out, "solver ipm: unsupported (" ) &&
                       cntContains( run.out, "--friction cone" ),
                   "%s", run.out );
    cntFreeCliRun( &run );
    remove( out );
    run = cntRunCli( "lcp \"%s\" --solver ipm --friction cone --out \"%s\"", CNT_FC3D_FILE, out );
    ck_assert_int_eq( run.exitCode, 0 );
    result = cntReadJson( out );
    ck_assert_ptr_nonnull( result );
    ck_assert_str_ne( cntField( result, "status" )->valuestring, "unsupported" );
    cJSON_Delete( result );
    cntFreeCliRun( &run );
}
END_TEST

// --param sets any parameter by name (a choice by its name, a toggle by true/false); the settings
// apply in command-line order, so a later one wins.
START_TEST( param_option )
{
    const char* file = CNT_LCP_DIR "/lcp_deudeu.dat";
    if ( cntSharedFileIsThere( file ) == false )
    {
        return;
    }
    const char* out = cntWorkPath( 0, "lcp_param.json" );
    remove( out );
    cntCliRun run = cntRunCli( "lcp \"%s\" --solver pgs --param kernel=reference --param warm_start=false "
                               "--max-iter 5 --param iterations=3 --param tolerance=0 --param relaxation=0.5 "
                               "--out \"%s\"",
                               file, out );
    ck_assert_msg( run.exitCode == 0, "%s", run.err );
    ck_assert_msg( run.err[0] == '\0', "stderr: %s", run.err );
    cJSON* result = cntReadJson( out );
    ck_assert_ptr_nonnull( result );
    const cJSON* params = cntField( result, "params" );
    CNT_ASSERT_ABS( cntField( params, "kernel" )->valuedouble, 1.0, 0.0 ); // "reference"
    CNT_ASSERT_ABS( cntField( params, "warm_start" )->valuedouble, 0.0, 0.0 );
    CNT_ASSERT_ABS( cntField( params, "iterations" )->valuedouble, 3.0, 0.0 );
    CNT_ASSERT_ABS( cntField( params, "tolerance" )->valuedouble, 0.0, 0.0 );
    CNT_ASSERT_ABS( cntField( params, "relaxation" )->valuedouble, 0.5, 0.0 );
    CNT_ASSERT_ABS( cntField( result, "iterations" )->valuedouble, 3.0, 0.0 );
    // three under-relaxed sweeps from zero on M = [2 1; 1 2], q = [-5 -6]: lambda_0 after the first
    // is 0.5 * 5 / 2
    ck_assert( cJSON_GetArrayItem( cntField( result, "lambda" ), 0 )->valuedouble > 0.0 );
    cJSON_Delete( result );
    cntFreeCliRun( &run );

    // the other order: --max-iter after --param wins
    run = cntRunCli( "lcp \"%s\" --solver pgs --param iterations=3 --max-iter 2 --tol 0", file );
    ck_assert_msg( run.exitCode == 0, "%s", run.err );
    ck_assert_msg( cntContains( run.out, "max_iterations, 2 iterations" ), "%s", run.out );
    cntFreeCliRun( &run );

    // lemke's own parameters
    run = cntRunCli( "lcp \"%s\" --solver lemke --param pivot_tolerance=1e-10 --param iterations=1", file );
    ck_assert_msg( run.exitCode == 0, "%s", run.err );
    ck_assert_msg( cntContains( run.out, "solver lemke: " ) && cntContains( run.out, ", 1 iterations" ), "%s",
                   run.out );
    cntFreeCliRun( &run );
}
END_TEST

// --history: the grading merit at the start and after every sweep, in the JSON and counted on the
// summary line; the last entry is the returned merit.
START_TEST( history_option )
{
    if ( cntSharedFileIsThere( CNT_FC3D_FILE ) == false )
    {
        return;
    }
    const char* out = cntWorkPath( 0, "lcp_history.json" );
    remove( out );
    cntCliRun run = cntRunCli( "lcp \"%s\" --solver pgs --tol 0 --max-iter 7 --history --out \"%s\"",
                               CNT_FC3D_FILE, out );
    ck_assert_msg( run.exitCode == 0, "%s", run.err );
    ck_assert_msg( cntContains( run.out, ", 7 iterations, " ) && cntContains( run.out, ", history 8\n" ),
                   "%s", run.out );
    cJSON* result = cntReadJson( out );
    ck_assert_ptr_nonnull( result );
    const cJSON* history = cntField( result, "history" );
    ck_assert_int_eq( cJSON_GetArraySize( history ), 8 );
    double last = cJSON_GetArrayItem( history, 7 )->valuedouble;
    ck_assert( last == cntField( result, "residual" )->valuedouble );
    ck_assert( last == cntField( result, "merit_natural_map" )->valuedouble );
    // from zero the first entry is the start's merit, larger than after seven sweeps
    ck_assert( cJSON_GetArrayItem( history, 0 )->valuedouble > last );
    cJSON_Delete( result );
    cntFreeCliRun( &run );

    // without --history: no "history" in the JSON, nothing on the summary line
    remove( out );
    run = cntRunCli( "lcp \"%s\" --solver pgs --out \"%s\"", CNT_FC3D_FILE, out );
    ck_assert_msg( run.exitCode == 0 && cntContains( run.out, "history" ) == false, "%s%s", run.out,
                   run.err );
    result = cntReadJson( out );
    ck_assert_ptr_nonnull( result );
    ck_assert_ptr_null( cntField( result, "history" ) );
    cJSON_Delete( result );
    cntFreeCliRun( &run );
}
END_TEST

// A file with cairn's start and reference blocks: solved from the start (here the exact solution),
// or from zero with --cold; the largest relative difference to the reference in the JSON and on the
// summary line.
START_TEST( start_and_reference_blocks )
{
    const char* file = cntDataPath( 0, "lcp_with_blocks.dat" );
    const char* out = cntWorkPath( 0, "lcp_blocks.json" );
    remove( out );
    cntCliRun run = cntRunCli( "lcp \"%s\" --solver pgs --tol 1e-12 --out \"%s\"", file, out );
    ck_assert_msg( run.exitCode == 0, "%s", run.err );
    ck_assert_msg( cntContains( run.out, ", from the file's start, reference max difference 0\n" ), "%s",
                   run.out );
    cJSON* result = cntReadJson( out );
    ck_assert_ptr_nonnull( result );
    ck_assert_str_eq( cntField( result, "start" )->valuestring, "file" );
    ck_assert_str_eq( cntField( result, "status" )->valuestring, "converged" );
    CNT_ASSERT_ABS( cntField( result, "reference_max_difference" )->valuedouble, 0.0, 0.0 );
    cJSON_Delete( result );
    cntFreeCliRun( &run );

    // --cold: one sweep from zero gives (2.5, 1.75); against (4/3, 7/3): 0.875 and 0.25
    remove( out );
    run = cntRunCli( "lcp \"%s\" --solver pgs --cold --tol 0 --max-iter 1 --out \"%s\"", file, out );
    ck_assert_msg( run.exitCode == 0, "%s", run.err );
    ck_assert_msg( cntContains( run.out, ", from zero (--cold), reference max difference 0.875\n" ), "%s",
                   run.out );
    result = cntReadJson( out );
    ck_assert_ptr_nonnull( result );
    ck_assert_str_eq( cntField( result, "start" )->valuestring, "zero" );
    CNT_ASSERT_ABS( cJSON_GetArrayItem( cntField( result, "lambda" ), 0 )->valuedouble, 2.5, 0.0 );
    CNT_ASSERT_ABS( cntField( result, "reference_max_difference" )->valuedouble, 0.875, 1e-15 );
    cJSON_Delete( result );
    cntFreeCliRun( &run );

    // a file without blocks: from zero, no reference difference
    const char* plain = CNT_LCP_DIR "/lcp_deudeu.dat";
    if ( cntSharedFileIsThere( plain ) )
    {
        remove( out );
        run = cntRunCli( "lcp \"%s\" --solver pgs --out \"%s\"", plain, out );
        ck_assert_msg( run.exitCode == 0, "%s", run.err );
        ck_assert_msg( cntContains( run.out, ", from zero\n" ), "%s", run.out );
        result = cntReadJson( out );
        ck_assert_ptr_nonnull( result );
        ck_assert_str_eq( cntField( result, "start" )->valuestring, "zero" );
        ck_assert_ptr_null( cntField( result, "reference_max_difference" ) );
        cJSON_Delete( result );
        cntFreeCliRun( &run );
    }
}
END_TEST

// fclib HDF5 files: a local one reads (contacts on the summary line, the format in the JSON); a FEM
// one is refused with the reason (exit 1). A build without HDF5 refuses both, saying so.
START_TEST( fclib_files )
{
    const char* local = CNT_FCLIB_DIR "/Capsules-i125-1213.hdf5";
    if ( cntSharedFileIsThere( local ) == false )
    {
        return;
    }
    const char* out = cntWorkPath( 0, "lcp_fclib.json" );
    remove( out );
    cntCliRun run = cntRunCli( "lcp \"%s\" --solver pgs --max-iter 5 --out \"%s\"", local, out );
    if ( cntContains( run.err, "no HDF5 support" ) )
    {
        ck_assert_int_eq( run.exitCode, 1 );
        ck_assert_msg( cntContains( run.err,
                                    "Capsules-i125-1213.hdf5: an HDF5 file (fclib), but this build has no "
                                    "HDF5 support" ),
                       "%s", run.err );
        printf( "skipped: this build has no HDF5 support (%s)\n", run.err );
        cntFreeCliRun( &run );
        return;
    }
    ck_assert_msg( run.exitCode == 0, "%s", run.err );
    ck_assert_msg( cntContains( run.out, "Capsules-i125-1213.hdf5: 858 rows (286 contacts), solver pgs: " ),
                   "%s", run.out );
    cJSON* result = cntReadJson( out );
    ck_assert_ptr_nonnull( result );
    ck_assert_str_eq( cntField( result, "format" )->valuestring, "fclib_local" );
    CNT_ASSERT_ABS( cntField( result, "contacts" )->valuedouble, 286.0, 0.0 );
    cJSON_Delete( result );
    cntFreeCliRun( &run );

    run = cntRunCli( "lcp \"%s/CubeH8.hdf5\"", CNT_FCLIB_DIR );
    ck_assert_int_eq( run.exitCode, 1 );
    ck_assert_msg(
        cntContains( run.err, "CubeH8.hdf5: a global problem whose M is not diagonal (FEM): not reduced" ),
        "%s", run.err );
    ck_assert_msg( cntContains( run.err, "(cn_statusUnsupported)" ), "%s", run.err );
    cntFreeCliRun( &run );
}
END_TEST

START_TEST( solvers_lists_every_solver )
{
    cntCliRun run = cntRunCli( "solvers" );
    ck_assert_int_eq( run.exitCode, 0 );
    ck_assert_msg( run.err[0] == '\0', "stderr: %s", run.err );
    const char* expected[] = {
        "pgs (default): ",
        "\npsor: ",
        "\npgj: ",
        "\nlemke: ",
        "iterations",
        "tolerance",
        "warm_start",
        "relaxation",
        "pivot limit",
        "caps: explicit matrix_free",
        "  iterations             integer  default 10         range [1, 1e+06]  ",
        "  warm_start             toggle   default true       true or false  ",
        "  kernel                 choice   default fast       one of fast, reference  ",
        "  pivot_tolerance        number   default 1e-12      range [0, 0.001]  " };
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
            const char* types[4] = { "number", "integer", "toggle", "choice" };
            ck_assert_str_eq( cntField( param, "type" )->valuestring, types[solver->params[p].type] );
            const cJSON* choices = cntField( param, "choices" );
            if ( solver->params[p].type == cn_paramChoice )
            {
                ck_assert_int_eq( cJSON_GetArraySize( choices ), solver->params[p].choiceCount );
                for ( int c = 0; c < solver->params[p].choiceCount; ++c )
                {
                    ck_assert_str_eq( cJSON_GetArrayItem( choices, c )->valuestring,
                                      solver->params[p].choices[c] );
                }
            }
            else
            {
                ck_assert_ptr_null( choices );
            }
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
    ck_assert( cntContains( run.out, "--max-iter" ) && cntContains( run.out, "--out" ) &&
               cntContains( run.out, "--param NAME=VALUE" ) && cntContains( run.out, "--history" ) &&
               cntContains( run.out, "--cold" ) );
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
    // lemke's tolerance is "pivot_tolerance": --tol names the parameters lemke has
    { "lcp a.dat --solver lemke --tol 0.5",
      "solver 'lemke' has no \"tolerance\" parameter for --tol; its parameters: iterations (integer), "
      "pivot_tolerance (number), warm_start (toggle), regularization (number) (set one with --param "
      "NAME=VALUE)" },
    { "lcp a.dat --solver pgs --max-iter 1000001",
      "--max-iter 1e+06 is outside the range of pgs's \"iterations\"" },
    { "lcp a.dat --solver pgs --tol 2", "--tol 2 is outside the range of pgs's \"tolerance\", [0, 1]" },
    // --param: any parameter of the solver, by name; the message lists them
    { "lcp a.dat --param", "--param needs a value" },
    { "lcp a.dat --param=", "--param= needs a non-empty value" },
    { "lcp a.dat --param iterations", "--param expects NAME=VALUE, got 'iterations'" },
    { "lcp a.dat --param =3", "--param expects NAME=VALUE, got '=3'" },
    { "lcp a.dat --param iterations=", "--param expects NAME=VALUE, got 'iterations='" },
    { "lcp a.dat --param bogus=1",
      "--param bogus=1: solver 'pgs' has no parameter \"bogus\"; its parameters: iterations (integer), "
      "tolerance "
      "(number), deadline_ms (number), warm_start (toggle), relaxation (number), kernel (fast|reference)" },
    { "lcp a.dat --param kernel=fastest", "--param kernel=fastest: kernel: 'fastest' is not one of fast, "
                                          "reference; pgs's parameters: iterations" },
    { "lcp a.dat --param iterations=2.5",
      "--param iterations=2.5: iterations: 2.5 is not a whole number; pgs's" },
    { "lcp a.dat --param relaxation=3",
      "--param relaxation=3: relaxation: 3 is outside [0, 2]; pgs's parameters" },
    { "lcp a.dat --param warm_start=maybe", "warm_start: expected a number, got 'maybe'; pgs's parameters" },
    { "lcp a.dat --solver lemke --param tolerance=1e-9",
      "--param tolerance=1e-9: solver 'lemke' has no parameter \"tolerance\"; its parameters: iterations "
      "(integer), pivot_tolerance (number), warm_start (toggle)" },
    { "lcp a.dat --history=1", "unknown option '--history=1'" },
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
    tcase_add_test( lcp, param_option );
    tcase_add_test( lcp, history_option );
    tcase_add_test( lcp, start_and_reference_blocks );
    tcase_add_test( lcp, fclib_files );
    tcase_add_test( lcp, solvers_lists_every_solver );
    tcase_add_loop_test( lcp, bad_lcp_arguments_exit_2, 0,
                         (int)( sizeof( cnt_badLcpArgs ) / sizeof( cnt_badLcpArgs[0] ) ) );
    tcase_add_test( lcp, unreadable_files_exit_1 );
    suite_add_tcase( suite, lcp );
    return suite;
}
