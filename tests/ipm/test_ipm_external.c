// SPDX-License-Identifier: MIT
// The interior point method on every 3-D frictional contact problem of ../shared/external-data (the
// Siconos FC3D text files and the fclib HDF5 files, read in place; skipped when absent), with every
// contact given the exact cone (the files' own model: u = W r + q, De Saxce's shifted velocity in
// the dual cone):
// - each is solved to the cone merit 1e-8, or ends with a status that is not "converged" (the layer
//   never calls a solve converged above its tolerance; this checks the solver says so too);
// - where Siconos' NSGS or NSN_AC converged (info 0 in generated/fc3d-reference.json) and the IPM
//   did, the velocities u agree with one of theirs, unless Siconos' own two answers differ (frictional
//   contact can have several solutions; those are counted and printed).

#include "test_support.h"

#include "cairn/lcp_io.h"
#include "cairn/solver.h"

#include <check.h>
#include <cjson/cJSON.h>

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CNT_TARGET 1e-8

static char* cntPath( const char* folder, const char* file )
{
    size_t size = strlen( CN_SHARED_DIR ) + strlen( folder ) + strlen( file ) + 32;
    char* path = malloc( size );
    snprintf( path, size, "%s/external-data/%s/%s", CN_SHARED_DIR, folder, file );
    return path;
}

static int cntCompareNames( const void* a, const void* b )
{
    return strcmp( *(char* const*)a, *(char* const*)b );
}

// the names in a folder ending with `suffix`, sorted; *count of them
static char** cntList( const char* folder, const char* suffix, int* count )
{
    char* path = cntPath( folder, "" );
    DIR* dir = opendir( path );
    free( path );
    *count = 0;
    if ( dir == NULL )
    {
        return NULL;
    }
    char** names = calloc( 256, sizeof( char* ) );
    for ( struct dirent* item = readdir( dir ); item != NULL && *count < 256; item = readdir( dir ) )
    {
        size_t length = strlen( item->d_name );
        size_t tail = strlen( suffix );
        if ( length > tail && strcmp( item->d_name + length - tail, suffix ) == 0 )
        {
            names[*count] = malloc( length + 1 );
            memcpy( names[*count], item->d_name, length + 1 );
            *count += 1;
        }
    }
    closedir( dir );
    qsort( names, (size_t)*count, sizeof( char* ), cntCompareNames );
    return names;
}

// the reference velocities of the converged Siconos runs of `name` (NSN_AC, NSGS): *count of them
static int cntReferences( const cJSON* problems, const char* name, const cJSON* u[2], const char* solver[2] )
{
    const cJSON* entry = cJSON_GetObjectItemCaseSensitive( problems, name );
    const cJSON* runs = cJSON_GetObjectItemCaseSensitive( entry, "runs" );
    static const char* const order[] = { "NSN_AC", "NSGS" };
    int count = 0;
    for ( int k = 0; k < 2; ++k )
    {
        const cJSON* run = cJSON_GetObjectItemCaseSensitive( runs, order[k] );
        const cJSON* info = cJSON_GetObjectItemCaseSensitive( run, "info" );
        const cJSON* velocities = cJSON_GetObjectItemCaseSensitive( run, "u" );
        if ( cJSON_IsNumber( info ) && info->valueint == 0 && cJSON_IsArray( velocities ) )
        {
            solver[count] = order[k];
            u[count] = velocities;
            count += 1;
        }
    }
    return count;
}

static double cntWorst( const cJSON* reference, const double* w, int n )
{
    double worst = 0.0;
    for ( int i = 0; i < n; ++i )
    {
        worst = fmax( worst, fabs( w[i] - cJSON_GetArrayItem( reference, i )->valuedouble ) );
    }
    return worst;
}

START_TEST( fc3d_problems_are_solved_or_say_why )
{
    char* referencePath = cntPath( "generated", "fc3d-reference.json" );
    size_t length = 0;
    char* text = cntReadText( referencePath, &length );
    free( referencePath );
    if ( text == NULL )
    {
        printf( "fc3d: ../shared/external-data absent, skipped\n" );
        return;
    }
    cJSON* root = cJSON_Parse( text );
    free( text );
    ck_assert_ptr_nonnull( root );
    const cJSON* problems = cJSON_GetObjectItemCaseSensitive( root, "problems" );

    const cnSolverVTable* ipm = cnFindSolver( "ipm" );
    ck_assert_ptr_nonnull( ipm );
    double params[CN_MAX_SOLVER_PARAMS];
    for ( int k = 0; k < ipm->paramCount; ++k )
    {
        params[k] = ipm->params[k].defaultValue;
    }
    params[cnFindSolverParam( ipm, "tolerance" )] = CNT_TARGET;
    params[cnFindSolverParam( ipm, "iterations" )] = 1000;
    params[cnFindSolverParam( ipm, "de_saxce_passes" )] = 100;

    const char* folders[2] = { "siconos-fc3d", "fclib-hdf5" };
    const char* suffixes[2] = { ".dat", ".hdf5" };
    int read = 0, solved = 0, compared = 0, agreed = 0, several = 0;
    for ( int f = 0; f < 2; ++f )
    {
        int count = 0;
        char** names = cntList( folders[f], suffixes[f], &count );
        for ( int k = 0; k < count; ++k )
        {
            char* path = cntPath( folders[f], names[k] );
            cnFileProblem file;
            char message[512];
            cnStatus status =
                cnReadProblemFile( path, cn_problemAuto, NULL, &file, message, sizeof( message ) );
            free( path );
            if ( status != cn_statusOk || file.contactCount == 0 )
            {
                // global GFC3D text files, rolling friction, a build without HDF5
                printf( "fc3d %-44s not read here: %s\n", names[k],
                        status != cn_statusOk ? message : "no contacts" );
                if ( status == cn_statusOk )
                {
                    cnDestroyFileProblem( &file );
                }
                free( names[k] );
                continue;
            }
            read += 1;
            cnSolverProblem* problem = &file.problem;
            for ( int g = 0; g < problem->groupCount; ++g )
            {
                problem->groups[g].model = cn_frictionCone;
            }
            int n = problem->rowCount;
            double* lambda = calloc( (size_t)n, sizeof( double ) );
            double* w = calloc( (size_t)n, sizeof( double ) );
            cnSolverSolution solution = { .lambda = lambda };
            cnSolverStats stats;
            ck_assert_int_eq( cnRunSolver( ipm, params, problem, &solution, NULL, &stats ), cn_statusOk );
            bool converged = stats.status == cn_solveConverged;
            // converged means the merit met the target; above it the status says so
            ck_assert( converged == ( stats.merits.cone <= CNT_TARGET ) || !converged );
            ck_assert( !converged || stats.merits.cone <= CNT_TARGET );
            solved += converged ? 1 : 0;

            // u = W r + q
            const cnSparseMatrix* a = problem->matrix;
            double scale = 0.0;
            for ( int i = 0; i < n; ++i )
            {
                double sum = problem->b[i];
                for ( int e = a->rowStart[i]; e < a->rowStart[i + 1]; ++e )
                {
                    sum += a->value[e] * lambda[a->column[e]];
                }
                w[i] = sum;
                scale = fmax( scale, fabs( problem->b[i] ) );
            }
            const cJSON* references[2] = { NULL, NULL };
            const char* by[2] = { NULL, NULL };
            int referenceCount = cntReferences( problems, names[k], references, by );
            char agreement[160] = "no converged reference";
            // a part in 1e5 of the largest free velocity |q|: far above the merit's 1e-8, far below a
            // different contact state
            double bound = 1e-5 * fmax( scale, 1e-300 );
            if ( referenceCount > 0 && cJSON_GetArraySize( references[0] ) == n && converged )
            {
                compared += 1;
                int match = -1;
                double worst[2] = { 0.0, 0.0 };
                for ( int r = 0; r < referenceCount; ++r )
                {
                    worst[r] = cntWorst( references[r], w, n );
                    match = match < 0 && worst[r] <= bound ? r : match;
                }
                // Siconos' two converged answers apart: the problem has several solutions
                double apart = 0.0;
                if ( referenceCount == 2 )
                {
                    for ( int i = 0; i < n; ++i )
                    {
                        apart = fmax( apart, fabs( cJSON_GetArrayItem( references[0], i )->valuedouble -
                                                   cJSON_GetArrayItem( references[1], i )->valuedouble ) );
                    }
                }
                if ( match >= 0 )
                {
                    agreed += 1;
                    snprintf( agreement, sizeof( agreement ), "u agrees with %s (worst %.1e of |q| %.1e)",
                              by[match], worst[match], scale );
                }
                else
                {
                    // not one of Siconos' answers: only acceptable where those differ among themselves
                    ck_assert_msg( apart > bound, "%s: u differs from %s by %g and Siconos' answers agree",
                                   names[k], by[0], worst[0] );
                    several += 1;
                    snprintf( agreement, sizeof( agreement ),
                              "u differs from %s by %.1e and from %s by %.1e, which differ by %.1e: several "
                              "solutions",
                              by[0], worst[0], by[1], worst[1], apart );
                }
            }
            printf( "fc3d %-44s %4d contacts: %s after %d Newton steps, merit %.2e%s%s; %s\n", names[k],
                    file.contactCount, cnSolveStatusName( stats.status ), stats.iterations, stats.merits.cone,
                    stats.reason != NULL ? ": " : "", stats.reason != NULL ? stats.reason : "", agreement );
            free( lambda );
            free( w );
            cnDestroyFileProblem( &file );
            free( names[k] );
        }
        free( names );
    }
    printf( "fc3d: %d problems read, %d solved to %.0e by ipm, %d compared with Siconos: %d agree, %d have "
            "several "
            "solutions\n",
            read, solved, CNT_TARGET, compared, agreed, several );
    cJSON_Delete( root );
    ck_assert_int_gt( read, 30 );
    ck_assert_int_eq( agreed + several, compared );
    ck_assert_int_gt( compared, 20 );
}
END_TEST

static Suite* cntIpmExternalSuite( void )
{
    Suite* suite = suite_create( "ipm_external" );
    TCase* tc = tcase_create( "fc3d" );
    tcase_set_timeout( tc, 600 );
    tcase_add_test( tc, fc3d_problems_are_solved_or_say_why );
    suite_add_tcase( suite, tc );
    return suite;
}

int main( void )
{
    cntSuiteFcn* suites[] = { cntIpmExternalSuite };
    return cntRunSuites( suites, 1 );
}
