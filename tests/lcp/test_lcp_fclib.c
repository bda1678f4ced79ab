// SPDX-License-Identifier: MIT
// fclib HDF5 files: the nine shared ones read or refused with a reason naming the file, each one
// that reads checked against Siconos' own runs (u = W r + q for the reference r and u, the contact
// count, |q|, mu), files crafted in memory with HDF5 for every refusal and every lying size, broken
// images, and formats asked for that the file does not hold. Without HDF5 in the build every HDF5
// file must be refused, saying that the build has no HDF5 support.
#include "lcp_suites.h"
#include "lcp_test_support.h"
#include "test_support.h"

#include "cairn/lcp_io.h"

#include <check.h>

#if defined( CN_HAS_HDF5 )
#    include <hdf5.h>
#endif

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct cntFclibFile
{
    const char* name;
    cnStatus status;
    cnProblemFormat format; // when it reads
    const char* reason;     // when it is refused
} cntFclibFile;

static const cntFclibFile cnt_fclibFiles[] = {
    { "Box_Stacks-i0122-82-5.hdf5", cn_statusOk, cn_problemFclibGlobal, NULL },
    { "Capsules-i125-1213.hdf5", cn_statusOk, cn_problemFclibLocal, NULL },
    { "Chute-ndof-768-nc-4-3.hdf5", cn_statusUnsupported, cn_problemAuto,
      "a rolling-friction problem (/fclib_global_rolling" },
    { "CubeH8.hdf5", cn_statusUnsupported, cn_problemAuto,
      "CubeH8.hdf5: a global problem whose M is not diagonal (FEM): not reduced" },
    { "LMGC_100_PR_PerioBox-i00361-60-03000.hdf5", cn_statusOk, cn_problemFclibLocal, NULL },
    { "LMGC_GlobalFrictionContactProblem00046.hdf5", cn_statusUnsupported, cn_problemAuto,
      "LMGC_GlobalFrictionContactProblem00046.hdf5: a global problem whose M is not diagonal (FEM): not "
      "reduced" },
    { "Spheres-i099-356-679.hdf5", cn_statusOk, cn_problemFclibGlobal, NULL },
    { "fclib_local_problem_test_BoxesStack.hdf5", cn_statusOk, cn_problemFclibLocal, NULL },
    { "spheres-in-a-box-98-i10000-256-10.hdf5", cn_statusOk, cn_problemFclibGlobal, NULL },
};
#define CNT_FCLIB_COUNT ( (int)( sizeof( cnt_fclibFiles ) / sizeof( cnt_fclibFiles[0] ) ) )

static const cntFclibFile* cntFindFclib( const char* name )
{
    for ( int k = 0; k < CNT_FCLIB_COUNT; ++k )
    {
        if ( strcmp( cnt_fclibFiles[k].name, name ) == 0 )
        {
            return cnt_fclibFiles + k;
        }
    }
    return NULL;
}

// u = A r + b against the u of a reference run: the largest gap relative to the size of the terms,
// max_i |(A r + b)_i - u_i| / max_i (sum_j |A_ij r_j| + |b_i|).
static double cntEquationGap( const cnFileProblem* problem, const double* r, const double* u )
{
    const cnSparseMatrix* a = &problem->matrix;
    double gap = 0.0;
    double scale = 0.0;
    for ( int i = 0; i < problem->problem.rowCount; ++i )
    {
        double sum = problem->problem.b[i];
        double size = fabs( problem->problem.b[i] );
        for ( int k = a->rowStart[i]; k < a->rowStart[i + 1]; ++k )
        {
            sum += a->value[k] * r[a->column[k]];
            size += fabs( a->value[k] * r[a->column[k]] );
        }
        gap = fmax( gap, fabs( sum - u[i] ) );
        scale = fmax( scale, size );
    }
    return gap / fmax( scale, 1e-300 );
}

// Every shared fclib file reads or is refused with a reason naming it; every one that reads agrees
// with Siconos' reference runs of it.
START_TEST( fclib_files_read_or_refused )
{
    int count = 0;
    char** names = cntListFiles( CNT_FCLIB_DIR, ".hdf5", &count );
    if ( names == NULL )
    {
        printf( "skipped: %s not found\n", CNT_FCLIB_DIR );
        return;
    }
    cJSON* reference = cntLoadJson( CNT_FC3D_REFERENCE );
    const cJSON* problems = cJSON_GetObjectItemCaseSensitive( reference, "problems" );
    cntPeakAllocator peak;
    cnAllocator allocator = cntMakePeakAllocator( &peak );
    int failures = 0;
    int read = 0;
    int refused = 0;
    int runsChecked = 0;
    double worstGap = 0.0;
    ck_assert_int_eq( count, CNT_FCLIB_COUNT );
    for ( int f = 0; f < count; ++f )
    {
        const cntFclibFile* expected = cntFindFclib( names[f] );
        ck_assert_msg( expected != NULL, "%s: a file this test does not know", names[f] );
        const char* path = cntJoinPath( 0, CNT_FCLIB_DIR, names[f] );
        cnFileProblem problem;
        char message[CN_PROBLEM_MESSAGE_CAPACITY];
        peak.largest = 0;
        cnStatus status =
            cnReadProblemFile( path, cn_problemAuto, &allocator, &problem, message, sizeof( message ) );
#if !defined( CN_HAS_HDF5 )
        if ( status != cn_statusUnsupported || strstr( message, "no HDF5 support" ) == NULL ||
             strstr( message, names[f] ) == NULL )
        {
            printf( "%s: expected a refusal for want of HDF5, got %s: %s\n", names[f], cnStatusName( status ),
                    message );
            failures += 1;
        }
        refused += 1;
        cnDestroyFileProblem( &problem );
        continue;
#endif
        if ( status != expected->status )
        {
            printf( "%s: %s, expected %s: %s\n", names[f], cnStatusName( status ),
                    cnStatusName( expected->status ), message );
            failures += 1;
            cnDestroyFileProblem( &problem );
            continue;
        }
        if ( status != cn_statusOk )
        {
            if ( strstr( message, names[f] ) == NULL || strstr( message, expected->reason ) == NULL )
            {
                printf( "%s: the reason does not say \"%s\": %s\n", names[f], expected->reason, message );
                failures += 1;
            }
            refused += 1;
            continue;
        }
        read += 1;
        size_t size = cntFileSize( path );
        printf( "%s: %s, %d contacts, largest block %zu bytes for a file of %zu\n", names[f],
                cnProblemFormatName( problem.format ), problem.contactCount, peak.largest, size );
        int n = problem.problem.rowCount;
        int contacts = problem.contactCount;
        bool ok = problem.format == expected->format && n == 3 * contacts &&
                  problem.problem.groupCount == contacts && problem.start == NULL &&
                  problem.reference == NULL && peak.largest <= 32 * size + 65536;
        for ( int c = 0; ok && c < contacts; ++c )
        {
            const cnRowGroup* group = problem.problem.groups + c;
            ok = group->kind == cn_groupContact && group->firstRow == 3 * c &&
                 group->model == cn_frictionPyramid;
        }
        // the reference: contacts, |q|, mu, and u = W r + q for every converged run
        const cJSON* entry = cJSON_GetObjectItemCaseSensitive( problems, names[f] );
        if ( ok && entry == NULL )
        {
            printf( "%s: no reference entry\n", names[f] );
            ok = false;
        }
        if ( ok )
        {
            double normQ = 0.0;
            ok = cntMatchesReferenceEntry( &problem, entry, 1e-12, &normQ );
            if ( ok == false )
            {
                printf( "%s: contacts, |q| (%.17g against %.17g) or mu differ from the reference\n", names[f],
                        normQ, cJSON_GetObjectItemCaseSensitive( entry, "norm_q" )->valuedouble );
            }
        }
        const cJSON* runs = ok ? cJSON_GetObjectItemCaseSensitive( entry, "runs" ) : NULL;
        const cJSON* run = NULL;
        int converged = 0;
        cJSON_ArrayForEach( run, runs )
        {
            const cJSON* info = cJSON_GetObjectItemCaseSensitive( run, "info" );
            if ( ok == false || cJSON_IsNumber( info ) == false || info->valuedouble != 0.0 )
            {
                continue;
            }
            double* r = calloc( (size_t)n + 1, sizeof( double ) );
            double* u = calloc( (size_t)n + 1, sizeof( double ) );
            ok = cntJsonNumbers( cJSON_GetObjectItemCaseSensitive( run, "r" ), r, n ) == n &&
                 cntJsonNumbers( cJSON_GetObjectItemCaseSensitive( run, "u" ), u, n ) == n;
            double gap = ok ? cntEquationGap( &problem, r, u ) : (double)NAN;
            worstGap = fmax( worstGap, gap );
            if ( !( gap <= 1e-13 ) )
            {
                printf( "%s, %s: u = W r + q is off by %.3g (relative)\n", names[f], run->string, gap );
                ok = false;
            }
            converged += 1;
            runsChecked += 1;
            free( r );
            free( u );
        }
        if ( ok && converged == 0 )
        {
            printf( "%s: no converged reference run to check against\n", names[f] );
            ok = false;
        }
        failures += ok ? 0 : 1;
        cnDestroyFileProblem( &problem );
    }
    printf(
        "fclib: %d files read (%d reference runs, largest relative gap in u = W r + q %.3g), %d refused\n",
        read, runsChecked, worstGap, refused );
    ck_assert_msg( failures == 0, "%d of %d fclib files failed", failures, count );
#if defined( CN_HAS_HDF5 )
    ck_assert_int_eq( read, 6 );
    ck_assert_int_eq( refused, 3 );
    ck_assert_int_eq( runsChecked, 9 ); // two runs each for three files, one for the other three
#else
    ck_assert_int_eq( refused, CNT_FCLIB_COUNT );
#endif
    ck_assert_uint_eq( peak.liveBytes, 0 );
    ck_assert_int_eq( peak.liveBlocks, 0 );
    cntFreeNames( names, count );
    cJSON_Delete( reference );
}
END_TEST

// Asking for a format the file does not hold, and an HDF5 signature in front of garbage.
START_TEST( formats_and_signatures )
{
    cnFileProblem problem;
    char message[CN_PROBLEM_MESSAGE_CAPACITY];
    const char* fake = cntLcpDataPath( 0, "fake.hdf5" );
    cnStatus status = cnReadProblemFile( fake, cn_problemAuto, NULL, &problem, message, sizeof( message ) );
#if defined( CN_HAS_HDF5 )
    ck_assert_msg( status == cn_statusParseError, "%s: %s", cnStatusName( status ), message );
    ck_assert_msg( strstr( message, "an HDF5 file that HDF5 cannot open" ) != NULL, "%s", message );
#else
    ck_assert_msg( status == cn_statusUnsupported, "%s: %s", cnStatusName( status ), message );
    ck_assert_msg( strstr( message, "this build has no HDF5 support" ) != NULL, "%s", message );
#endif
    ck_assert_msg( strncmp( message, fake, strlen( fake ) ) == 0, "%s", message );
    ck_assert_ptr_null( problem.memory );

    // a text file asked for as fclib; an HDF5 file asked for as text
    status = cnReadProblemFile( cntLcpDataPath( 1, "small_fc3d.dat" ), cn_problemFclibLocal, NULL, &problem,
                                message, sizeof( message ) );
    ck_assert_int_eq( status, cn_statusParseError );
    ck_assert_msg( strstr( message,
                           "small_fc3d.dat: not an HDF5 file (no HDF5 signature), but the format fclib_local "
                           "was asked for" ) != NULL,
                   "%s", message );
    status = cnReadProblemFile( fake, cn_problemSiconosFc3d, NULL, &problem, message, sizeof( message ) );
    ck_assert_int_eq( status, cn_statusParseError );
    ck_assert_msg( strstr( message, "fake.hdf5: an HDF5 file, but the format siconos_fc3d was asked for" ) !=
                       NULL,
                   "%s", message );
    ck_assert_str_eq( cnProblemFormatName( cn_problemFclibLocal ), "fclib_local" );
    ck_assert_str_eq( cnProblemFormatName( cn_problemFclibGlobal ), "fclib_global" );
    ck_assert_int_eq( cnParseProblemText( "x", "1", 1, (cnProblemFormat)( cn_problemFclibGlobal + 1 ), NULL,
                                          &problem, message, sizeof( message ) ),
                      cn_statusInvalidArgument );

#if defined( CN_HAS_HDF5 )
    // a local file asked for as global
    const char* local = cntJoinPath( 0, CNT_FCLIB_DIR, "fclib_local_problem_test_BoxesStack.hdf5" );
    if ( cntFileSize( local ) > 0 )
    {
        status =
            cnReadProblemFile( local, cn_problemFclibGlobal, NULL, &problem, message, sizeof( message ) );
        ck_assert_int_eq( status, cn_statusParseError );
        ck_assert_msg( strstr( message, "there is no /fclib_global" ) != NULL, "%s", message );
        status = cnReadProblemFile( local, cn_problemFclibLocal, NULL, &problem, message, sizeof( message ) );
        ck_assert_msg( status == cn_statusOk, "%s", message );
        ck_assert_int_eq( problem.format, cn_problemFclibLocal );
        cnDestroyFileProblem( &problem );
    }
#endif
}
END_TEST

#if defined( CN_HAS_HDF5 )

// ---- files crafted in memory -------------------------------------------------------------------------

// An HDF5 file in memory (the core driver, no backing store), written with the helpers below, then
// taken as an image.
typedef struct cntH5Image
{
    hid_t file;
    char* bytes;
    size_t size;
} cntH5Image;

static void cntH5Begin( cntH5Image* image, hsize_t userBlock )
{
    static int counter = 0;
    char name[64];
    snprintf( name, sizeof( name ), "cnt-crafted-%d.h5", counter++ );
    hid_t access = H5Pcreate( H5P_FILE_ACCESS );
    H5Pset_fapl_core( access, 4096, 0 );
    hid_t creation = H5Pcreate( H5P_FILE_CREATE );
    if ( userBlock > 0 )
    {
        H5Pset_userblock( creation, userBlock );
    }
    image->file = H5Fcreate( name, H5F_ACC_TRUNC, creation, access );
    ck_assert_int_ge( image->file, 0 );
    H5Pclose( access );
    H5Pclose( creation );
    image->bytes = NULL;
    image->size = 0;
}

static void cntH5End( cntH5Image* image )
{
    ck_assert_int_ge( H5Fflush( image->file, H5F_SCOPE_GLOBAL ), 0 );
    ssize_t size = H5Fget_file_image( image->file, NULL, 0 );
    ck_assert_int_gt( size, 0 );
    image->bytes = malloc( (size_t)size );
    ck_assert_int_eq( H5Fget_file_image( image->file, image->bytes, (size_t)size ), size );
    image->size = (size_t)size;
    H5Fclose( image->file );
}

// A 1-D dataset (parents created as needed); `chunked`: stored in chunks, never written, whatever
// its extent (a lying size that costs the file nothing).
static void cntH5Write( cntH5Image* image, const char* path, bool integer, const void* values, hsize_t count,
                        bool chunked )
{
    hid_t links = H5Pcreate( H5P_LINK_CREATE );
    H5Pset_create_intermediate_group( links, 1 );
    hid_t creation = H5Pcreate( H5P_DATASET_CREATE );
    if ( chunked )
    {
        hsize_t chunk = 1024;
        H5Pset_chunk( creation, 1, &chunk );
    }
    hid_t space = H5Screate_simple( 1, &count, NULL );
    hid_t type = integer ? H5T_STD_I32LE : H5T_IEEE_F64LE;
    hid_t dataset = H5Dcreate2( image->file, path, type, space, links, creation, H5P_DEFAULT );
    ck_assert_int_ge( dataset, 0 );
    if ( chunked == false && count > 0 )
    {
        ck_assert_int_ge( H5Dwrite( dataset, integer ? H5T_NATIVE_INT : H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL,
                                    H5P_DEFAULT, values ),
                          0 );
    }
    H5Dclose( dataset );
    H5Sclose( space );
    H5Pclose( creation );
    H5Pclose( links );
}

static void cntH5Int( cntH5Image* image, const char* path, int value )
{
    cntH5Write( image, path, true, &value, 1, false );
}

// A matrix group in one of fclib's forms (nz >= 0 triplet, -1 CSC, -2 CSR).
static void cntH5Matrix( cntH5Image* image, const char* group, int m, int n, int nz, const int* p, int pCount,
                         const int* i, const double* x, int count )
{
    char path[128];
    snprintf( path, sizeof( path ), "%s/m", group );
    cntH5Int( image, path, m );
    snprintf( path, sizeof( path ), "%s/n", group );
    cntH5Int( image, path, n );
    snprintf( path, sizeof( path ), "%s/nz", group );
    cntH5Int( image, path, nz );
    snprintf( path, sizeof( path ), "%s/nzmax", group );
    cntH5Int( image, path, count );
    snprintf( path, sizeof( path ), "%s/p", group );
    cntH5Write( image, path, true, p, (hsize_t)pCount, false );
    snprintf( path, sizeof( path ), "%s/i", group );
    cntH5Write( image, path, true, i, (hsize_t)count, false );
    snprintf( path, sizeof( path ), "%s/x", group );
    cntH5Write( image, path, false, x, (hsize_t)count, false );
}

// What goes wrong in a crafted file.
typedef enum cntDefect
{
    cntGoodTriplet,   // one contact, W as triplets with a duplicate entry (summed)
    cntGoodCsc,       // the same W as CSC
    cntGoodUserBlock, // the same behind a 512-byte user block (the signature at 512)
    cntGoodGlobal,    // two bodies' worth of diagonal M and an H: W = H^T M^-1 H
    cntHugeVector,    // q claims 2^30 values it does not store
    cntLyingNz,       // nz says 10^6 entries, i/p/x hold 4
    cntLyingSize,     // W/m claims 10^8 rows
    cntBadIndex,      // a row index outside W
    cntBadPointers,   // CSR pointers that decrease
    cntNanValue,      // NaN in W
    cntNegativeMu,    // mu < 0
    cntTwoD,          // spacedim 2
    cntBilateral,     // a global problem with G
    cntZeroMass,      // a global problem with a zero on M's diagonal
    cntNotFclib,      // an HDF5 file without fclib groups
    cntMissingQ,      // no q
    cntDefectCount
} cntDefect;

typedef struct cntCrafted
{
    cntDefect defect;
    cnStatus status;
    const char* message;
} cntCrafted;

static const cntCrafted cnt_crafted[] = {
    { cntGoodTriplet, cn_statusOk, NULL },
    { cntGoodCsc, cn_statusOk, NULL },
    { cntGoodUserBlock, cn_statusOk, NULL },
    { cntGoodGlobal, cn_statusOk, NULL },
    { cntHugeVector, cn_statusParseError,
      "crafted.h5: /fclib_local/vectors/q claims 1073741824 values, more than a file of" },
    { cntLyingNz, cn_statusParseError, "/fclib_local/W holds 1000000 entries but i, p or x is shorter" },
    { cntLyingSize, cn_statusParseError, "/fclib_local/W is 100000000 x 3, but the vectors make it 3 x 3" },
    { cntBadIndex, cn_statusParseError, "/fclib_local/W: entry 1 at row 7, column 1 is outside 3 x 3" },
    { cntBadPointers, cn_statusParseError, "/fclib_local/W/p must start at 0 and never decrease" },
    { cntNanValue, cn_statusNonFinite, "/fclib_local/W/x[2] is not finite" },
    { cntNegativeMu, cn_statusParseError, "/fclib_local/vectors/mu[0] is negative" },
    { cntTwoD, cn_statusUnsupported, "a 2-D problem (/fclib_local/spacedim is 2): not supported" },
    { cntBilateral, cn_statusUnsupported, "bilateral constraints (/fclib_global/G, 12 x 1): not supported" },
    { cntZeroMass, cn_statusUnsupported, "M[3][3] is 0: a global problem with a zero or negative mass" },
    { cntNotFclib, cn_statusParseError,
      "an HDF5 file without /fclib_local or /fclib_global: not an fclib problem" },
    { cntMissingQ, cn_statusParseError, "/fclib_local/vectors/q is missing" },
};

static void cntCraftLocal( cntH5Image* image, cntDefect defect )
{
    // W = [[4, 1, 0], [1, 3, 0], [0, 0, 2]] (row 0, column 0 given as 3 + 1)
    const double q[3] = { -1.0, 0.5, 0.25 };
    const double mu[1] = { defect == cntNegativeMu ? -0.5 : 0.6 };
    cntH5Int( image, "/fclib_local/spacedim", defect == cntTwoD ? 2 : 3 );
    if ( defect != cntMissingQ )
    {
        cntH5Write( image, "/fclib_local/vectors/q", false, q, defect == cntHugeVector ? ( 1ull << 30 ) : 3,
                    defect == cntHugeVector );
    }
    cntH5Write( image, "/fclib_local/vectors/mu", false, mu, 1, false );
    if ( defect == cntGoodCsc || defect == cntBadPointers )
    {
        const int p[4] = { 0, 2, defect == cntBadPointers ? 1 : 4, 5 };
        const int i[5] = { 0, 1, 0, 1, 2 };
        const double x[5] = { 4.0, 1.0, 1.0, 3.0, 2.0 };
        cntH5Matrix( image, "/fclib_local/W", 3, 3, defect == cntBadPointers ? -2 : -1, p, 4, i, x, 5 );
        return;
    }
    const int rows[6] = { 0, defect == cntBadIndex ? 7 : 1, 0, 1, 2, 0 };
    const int columns[6] = { 0, 1, 1, 0, 2, 0 };
    const double x[6] = { 3.0, 3.0, defect == cntNanValue ? (double)NAN : 1.0, 1.0, 2.0, 1.0 };
    cntH5Matrix( image, "/fclib_local/W", defect == cntLyingSize ? 100000000 : 3, 3,
                 defect == cntLyingNz ? 1000000 : 6, columns, 6, rows, x, defect == cntLyingNz ? 4 : 6 );
}

// Two free bodies (12 dofs, masses 2 and 4 on every dof; body 1's third dof zero for cntZeroMass)
// and one contact between them: H maps the contact's rows to dofs 0-2 of body 0 (+1) and 6-8 of
// body 1 (-1).
static void cntCraftGlobal( cntH5Image* image, cntDefect defect )
{
    cntH5Int( image, "/fclib_global/spacedim", 3 );
    double f[12];
    int diagonal[12];
    double mass[12];
    for ( int k = 0; k < 12; ++k )
    {
        f[k] = 0.5 * k - 1.0;
        diagonal[k] = k;
        mass[k] = k < 6 ? 2.0 : 4.0;
    }
    if ( defect == cntZeroMass )
    {
        mass[3] = 0.0;
    }
    const double w[3] = { 0.1, -0.2, 0.3 };
    const double mu[1] = { 0.4 };
    cntH5Write( image, "/fclib_global/vectors/f", false, f, 12, false );
    cntH5Write( image, "/fclib_global/vectors/w", false, w, 3, false );
    cntH5Write( image, "/fclib_global/vectors/mu", false, mu, 1, false );
    cntH5Matrix( image, "/fclib_global/M", 12, 12, 12, diagonal, 12, diagonal, mass, 12 );
    // H: dof k of body 0 and dof 6 + k of body 1 for contact row k, and row 0 also on dof 3
    const int dof[7] = { 0, 1, 2, 6, 7, 8, 3 };
    const int row[7] = { 0, 1, 2, 0, 1, 2, 0 };
    const double h[7] = { 1.0, 1.0, 1.0, -1.0, -1.0, -1.0, 0.5 };
    cntH5Matrix( image, "/fclib_global/H", 12, 3, 7, row, 7, dof, h, 7 );
    if ( defect == cntBilateral )
    {
        const int one[1] = { 0 };
        const double x[1] = { 1.0 };
        cntH5Matrix( image, "/fclib_global/G", 12, 1, 1, one, 1, one, x, 1 );
    }
}

START_TEST( crafted_files )
{
    const cntCrafted* crafted = cnt_crafted + _i;
    cntH5Image image;
    cntH5Begin( &image, crafted->defect == cntGoodUserBlock ? 512 : 0 );
    bool global =
        crafted->defect == cntGoodGlobal || crafted->defect == cntBilateral || crafted->defect == cntZeroMass;
    if ( global )
    {
        cntCraftGlobal( &image, crafted->defect );
    }
    else if ( crafted->defect == cntNotFclib )
    {
        cntH5Int( &image, "/something/else", 1 );
    }
    else
    {
        cntCraftLocal( &image, crafted->defect );
    }
    cntH5End( &image );

    cntPeakAllocator peak;
    cnAllocator allocator = cntMakePeakAllocator( &peak );
    cnFileProblem problem;
    char message[CN_PROBLEM_MESSAGE_CAPACITY];
    cnStatus status = cnParseProblemText( "crafted.h5", image.bytes, image.size, cn_problemAuto, &allocator,
                                          &problem, message, sizeof( message ) );
    ck_assert_msg( status == crafted->status, "defect %d: %s, expected %s: %s", (int)crafted->defect,
                   cnStatusName( status ), cnStatusName( crafted->status ), message );
    // whatever the file claims, nothing much larger than the file
    ck_assert_msg( peak.largest <= 16 * image.size + 4096,
                   "defect %d: a block of %zu bytes for a file of %zu", (int)crafted->defect, peak.largest,
                   image.size );
    if ( status != cn_statusOk )
    {
        ck_assert_msg( strstr( message, crafted->message ) != NULL,
                       "defect %d: the message does not say \"%s\": %s", (int)crafted->defect,
                       crafted->message, message );
        ck_assert_msg( strncmp( message, "crafted.h5: ", 12 ) == 0, "%s", message );
        ck_assert_ptr_null( problem.memory );
    }
    else if ( global )
    {
        // W = H^T M^-1 H: row 0 of H^T is dofs 0 (+1), 3 (+0.5), 6 (-1): W_00 = 1/2 + 0.25/2 + 1/4
        ck_assert_int_eq( problem.format, cn_problemFclibGlobal );
        double* dense = cntDenseMatrix( &problem.problem );
        const double expected[9] = { 0.875, 0.0, 0.0, 0.0, 0.75, 0.0, 0.0, 0.0, 0.75 };
        for ( int k = 0; k < 9; ++k )
        {
            CNT_ASSERT_ABS( dense[k], expected[k], 1e-15 );
        }
        // q = H^T M^-1 f + w: row 0 = f0/2 + 0.5 f3/2 - f6/4 + 0.1
        CNT_ASSERT_ABS( problem.problem.b[0], -0.5 + 0.125 - 0.5 + 0.1, 1e-15 );
        CNT_ASSERT_ABS( problem.problem.b[1], -0.25 - 0.625 - 0.2, 1e-15 );
        CNT_ASSERT_ABS( problem.problem.groups[0].mu, 0.4, 0.0 );
        free( dense );
        cnDestroyFileProblem( &problem );
    }
    else
    {
        ck_assert_int_eq( problem.format, cn_problemFclibLocal );
        ck_assert_int_eq( problem.contactCount, 1 );
        double* dense = cntDenseMatrix( &problem.problem );
        const double expected[9] = { 4.0, 1.0, 0.0, 1.0, 3.0, 0.0, 0.0, 0.0, 2.0 };
        for ( int k = 0; k < 9; ++k )
        {
            CNT_ASSERT_ABS( dense[k], expected[k], 0.0 );
        }
        ck_assert_int_eq( problem.matrix.rowStart[3], 5 ); // the zeros are not stored
        CNT_ASSERT_ABS( problem.problem.b[1], 0.5, 0.0 );
        CNT_ASSERT_ABS( problem.problem.groups[0].mu, 0.6, 0.0 );
        free( dense );
        cnDestroyFileProblem( &problem );
    }
    ck_assert_uint_eq( peak.liveBytes, 0 );
    free( image.bytes );
}
END_TEST

// A shared file cut short anywhere, or with bytes overwritten: a status naming the file, never a
// crash or a leak.
START_TEST( broken_images )
{
    const char* path = cntJoinPath( 0, CNT_FCLIB_DIR, "fclib_local_problem_test_BoxesStack.hdf5" );
    size_t length = 0;
    char* bytes = cntReadText( path, &length );
    if ( bytes == NULL )
    {
        printf( "skipped: %s not found\n", path );
        return;
    }
    cntPeakAllocator peak;
    cnAllocator allocator = cntMakePeakAllocator( &peak );
    int refused = 0;
    int runs = 0;
    char message[CN_PROBLEM_MESSAGE_CAPACITY];
    for ( int k = 1; k < 32; ++k )
    {
        size_t cut = length * (size_t)k / 32;
        cnFileProblem problem;
        cnStatus status = cnParseProblemText( "cut.h5", bytes, cut, cn_problemAuto, &allocator, &problem,
                                              message, sizeof( message ) );
        ck_assert_msg( status != cn_statusOk, "cut at %zu of %zu: read", cut, length );
        ck_assert_msg( strncmp( message, "cut.h5: ", 8 ) == 0, "%s", message );
        refused += 1;
        runs += 1;
    }
    char* copy = malloc( length );
    cntRandom random = { 5 };
    for ( int k = 0; k < 200; ++k )
    {
        memcpy( copy, bytes, length );
        size_t at = (size_t)( cntUniform( &random ) * (double)length );
        copy[at] = (char)( copy[at] ^ (char)( 1 + ( cntNext( &random ) % 255 ) ) );
        cnFileProblem problem;
        cnStatus status = cnParseProblemText( "flipped.h5", copy, length, cn_problemAuto, &allocator,
                                              &problem, message, sizeof( message ) );
        if ( status != cn_statusOk )
        {
            ck_assert_msg( strncmp( message, "flipped.h5: ", 12 ) == 0, "%s", message );
            refused += 1;
        }
        cnDestroyFileProblem( &problem );
        runs += 1;
    }
    printf( "fclib: %d cut or damaged images, %d refused\n", runs, refused );
    ck_assert_uint_eq( peak.liveBytes, 0 );
    ck_assert_int_eq( peak.liveBlocks, 0 );
    free( copy );
    free( bytes );
}
END_TEST

#endif

Suite* cntLcpFclibSuite( void )
{
    Suite* suite = suite_create( "lcp_fclib" );
    TCase* shared = tcase_create( "shared_files" );
    tcase_set_timeout( shared, 120 );
    tcase_add_test( shared, fclib_files_read_or_refused );
    tcase_add_test( shared, formats_and_signatures );
#if defined( CN_HAS_HDF5 )
    tcase_add_test( shared, broken_images );
#endif
    suite_add_tcase( suite, shared );
#if defined( CN_HAS_HDF5 )
    TCase* crafted = tcase_create( "crafted_files" );
    tcase_add_loop_test( crafted, crafted_files, 0,
                         (int)( sizeof( cnt_crafted ) / sizeof( cnt_crafted[0] ) ) );
    suite_add_tcase( suite, crafted );
#endif
    return suite;
}
