// SPDX-License-Identifier: MIT
// The Siconos readers: every shared LCP file against the reference JSON, the sparse-block twins
// against their dense files, every shared FC3D file, cairn's trailing start and reference blocks,
// and malformed files of our own (status, message naming file, line and token, no crash, no leak,
// no allocation much larger than the file whatever sizes it claims).
#include "lcp_suites.h"
#include "lcp_test_support.h"
#include "test_support.h"

#include "cairn/lcp_io.h"

#include <check.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool cntSameMatrix( const cnFileProblem* a, const cnFileProblem* b )
{
    int n = a->problem.rowCount;
    if ( n != b->problem.rowCount || a->matrix.rowStart[n] != b->matrix.rowStart[n] )
    {
        return false;
    }
    for ( int i = 0; i <= n; ++i )
    {
        if ( a->matrix.rowStart[i] != b->matrix.rowStart[i] )
        {
            return false;
        }
    }
    for ( int k = 0; k < a->matrix.rowStart[n]; ++k )
    {
        if ( a->matrix.column[k] != b->matrix.column[k] || a->matrix.value[k] != b->matrix.value[k] )
        {
            return false;
        }
    }
    for ( int i = 0; i < n; ++i )
    {
        if ( a->problem.b[i] != b->problem.b[i] )
        {
            return false;
        }
    }
    if ( a->problem.groupCount != b->problem.groupCount )
    {
        return false;
    }
    for ( int g = 0; g < a->problem.groupCount; ++g )
    {
        const cnRowGroup* x = a->problem.groups + g;
        const cnRowGroup* y = b->problem.groups + g;
        if ( x->firstRow != y->firstRow || x->rowCount != y->rowCount || x->kind != y->kind ||
             x->mu != y->mu )
        {
            return false;
        }
    }
    return true;
}

// Every Siconos LCP file: M and q exactly as the reference JSON has them (read by Siconos itself).
START_TEST( siconos_lcp_files_match_reference )
{
    int count = 0;
    char** names = cntListFiles( CNT_SICONOS_LCP_DIR, ".dat", &count );
    cJSON* reference = cntLoadJson( CNT_LCP_REFERENCE );
    if ( names == NULL || reference == NULL )
    {
        printf( "skipped: %s or %s not found\n", CNT_SICONOS_LCP_DIR, CNT_LCP_REFERENCE );
        cntFreeNames( names, count );
        cJSON_Delete( reference );
        return;
    }
    const cJSON* problems = cJSON_GetObjectItemCaseSensitive( reference, "problems" );
    cntPeakAllocator peak;
    cnAllocator allocator = cntMakePeakAllocator( &peak );
    int failures = 0;
    int compared = 0;
    for ( int f = 0; f < count; ++f )
    {
        const cJSON* entry = cJSON_GetObjectItemCaseSensitive( problems, names[f] );
        cnFileProblem problem;
        char message[CN_PROBLEM_MESSAGE_CAPACITY];
        cnStatus status = cnReadProblemFile( cntJoinPath( 0, CNT_SICONOS_LCP_DIR, names[f] ), cn_problemAuto,
                                             &allocator, &problem, message, sizeof( message ) );
        if ( status != cn_statusOk || entry == NULL )
        {
            printf( "%s: %s\n", names[f], status != cn_statusOk ? message : "no reference entry" );
            failures += 1;
            cnDestroyFileProblem( &problem );
            continue;
        }
        int n = problem.problem.rowCount;
        // a good file costs at most a few tens of bytes per byte in one block
        size_t size = cntFileSize( cntJoinPath( 0, CNT_SICONOS_LCP_DIR, names[f] ) );
        if ( peak.largest > 40 * size + 512 )
        {
            printf( "%s: a block of %zu bytes for a file of %zu\n", names[f], peak.largest, size );
            failures += 1;
        }
        peak.largest = 0;
        double* dense = cntDenseMatrix( &problem.problem );
        double* q = calloc( (size_t)n + 1, sizeof( double ) );
        const cJSON* rows = cJSON_GetObjectItemCaseSensitive( entry, "M_rowmajor" );
        bool same = problem.format == cn_problemSiconosLcp && problem.contactCount == 0 &&
                    cJSON_GetArraySize( rows ) == n &&
                    cntJsonNumbers( cJSON_GetObjectItemCaseSensitive( entry, "q" ), q, n ) == n;
        for ( int i = 0; same && i < n; ++i )
        {
            const cnRowGroup* group = problem.problem.groups + i;
            same = problem.problem.b[i] == q[i] && problem.problem.groupCount == n && group->firstRow == i &&
                   group->rowCount == 1 && group->kind == cn_groupNormal;
            double row[64];
            same = same && n <= 64 && cntJsonNumbers( cJSON_GetArrayItem( rows, i ), row, 64 ) == n;
            for ( int j = 0; same && j < n; ++j )
            {
                same = dense[(size_t)i * (size_t)n + (size_t)j] == row[j];
            }
        }
        if ( same == false )
        {
            printf( "%s: M or q differ from the reference\n", names[f] );
            failures += 1;
        }
        compared += 1;
        free( dense );
        free( q );
        cnDestroyFileProblem( &problem );
    }
    printf( "siconos-lcp: %d files read and compared, %d failures\n", compared, failures );
    ck_assert_msg( failures == 0, "%d of %d LCP files differ from the reference", failures, count );
    ck_assert_int_eq( compared, cJSON_GetArraySize( problems ) );
    ck_assert_uint_eq( peak.liveBytes, 0 );
    ck_assert_int_eq( peak.liveBlocks, 0 );
    cntFreeNames( names, count );
    cJSON_Delete( reference );
}
END_TEST

// lcp_deudeu_block.dat and the other sparse-block twins give exactly what their dense files give.
START_TEST( block_twins_equal_dense_files )
{
    int count = 0;
    char** names = cntListFiles( CNT_SICONOS_LCP_DIR, "_block.dat", &count );
    if ( names == NULL )
    {
        printf( "skipped: %s not found\n", CNT_SICONOS_LCP_DIR );
        return;
    }
    int failures = 0;
    for ( int f = 0; f < count; ++f )
    {
        char dense[256];
        snprintf( dense, sizeof( dense ), "%.*s.dat", (int)( strlen( names[f] ) - strlen( "_block.dat" ) ),
                  names[f] );
        cnFileProblem a;
        cnFileProblem b;
        cnStatus sa = cnReadProblemFile( cntJoinPath( 0, CNT_SICONOS_LCP_DIR, names[f] ), cn_problemAuto,
                                         NULL, &a, NULL, 0 );
        cnStatus sb = cnReadProblemFile( cntJoinPath( 1, CNT_SICONOS_LCP_DIR, dense ), cn_problemAuto, NULL,
                                         &b, NULL, 0 );
        if ( sa != cn_statusOk || sb != cn_statusOk || cntSameMatrix( &a, &b ) == false )
        {
            printf( "%s differs from %s\n", names[f], dense );
            failures += 1;
        }
        cnDestroyFileProblem( &a );
        cnDestroyFileProblem( &b );
    }
    printf( "siconos-lcp: %d sparse-block twins compared\n", count );
    ck_assert_msg( count >= 1 && failures == 0, "%d of %d twins differ", failures, count );
    cntFreeNames( names, count );

    // and our own small pair, which has off-diagonal blocks and a trailing comment
    cnFileProblem a;
    cnFileProblem b;
    ck_assert_int_eq(
        cnReadProblemFile( cntLcpDataPath( 0, "small_block.dat" ), cn_problemAuto, NULL, &a, NULL, 0 ),
        cn_statusOk );
    ck_assert_int_eq(
        cnReadProblemFile( cntLcpDataPath( 1, "small_dense.dat" ), cn_problemAuto, NULL, &b, NULL, 0 ),
        cn_statusOk );
    ck_assert( cntSameMatrix( &a, &b ) );
    // row 0 is 4 1 0.5 (the 0.5 from the off-diagonal block), row 2 only 6
    ck_assert_int_eq( a.matrix.rowStart[1], 3 );
    CNT_ASSERT_ABS( a.matrix.value[2], 0.5, 0.0 );
    ck_assert_int_eq( a.matrix.column[2], 2 );
    ck_assert_int_eq( a.matrix.rowStart[3] - a.matrix.rowStart[2], 1 );
    cnDestroyFileProblem( &a );
    cnDestroyFileProblem( &b );
}
END_TEST

// Every local FC3D file reads, 3 rows per contact; the global ones are refused as unsupported.
START_TEST( siconos_fc3d_files_read )
{
    int count = 0;
    char** names = cntListFiles( CNT_SICONOS_FC3D_DIR, ".dat", &count );
    if ( names == NULL )
    {
        printf( "skipped: %s not found\n", CNT_SICONOS_FC3D_DIR );
        return;
    }
    cJSON* reference = cntLoadJson( CNT_FC3D_REFERENCE );
    const cJSON* problems = cJSON_GetObjectItemCaseSensitive( reference, "problems" );
    cntPeakAllocator peak;
    cnAllocator allocator = cntMakePeakAllocator( &peak );
    int failures = 0;
    int local = 0;
    int global = 0;
    int checkedQ = 0;
    for ( int f = 0; f < count; ++f )
    {
        cnFileProblem problem;
        char message[CN_PROBLEM_MESSAGE_CAPACITY];
        const char* path = cntJoinPath( 0, CNT_SICONOS_FC3D_DIR, names[f] );
        cnStatus status =
            cnReadProblemFile( path, cn_problemAuto, &allocator, &problem, message, sizeof( message ) );
        if ( strncmp( names[f], "GFC3D_", 6 ) == 0 )
        {
            global += 1;
            if ( status != cn_statusUnsupported || strstr( message, "global" ) == NULL ||
                 strstr( message, names[f] ) == NULL )
            {
                printf( "%s: expected unsupported (global problem), got %s: %s\n", names[f],
                        cnStatusName( status ), message );
                failures += 1;
            }
            cnDestroyFileProblem( &problem );
            continue;
        }
        local += 1;
        if ( status != cn_statusOk )
        {
            printf( "%s: %s\n", names[f], message );
            failures += 1;
            continue;
        }
        int n = problem.problem.rowCount;
        int contacts = problem.contactCount;
        bool ok = problem.format == cn_problemSiconosFc3d && n == 3 * contacts && contacts > 0;
        ok = ok && problem.problem.groupCount == contacts;
        for ( int c = 0; ok && c < contacts; ++c )
        {
            const cnRowGroup* group = problem.problem.groups + c;
            ok = group->firstRow == 3 * c && group->rowCount == 3 && group->kind == cn_groupContact &&
                 group->model == cn_frictionPyramid && group->mu >= 0.0;
        }
        // the reference: contact count, |q| and the mu values
        const cJSON* entry = cJSON_GetObjectItemCaseSensitive( problems, names[f] );
        if ( ok && entry != NULL )
        {
            ok = cntMatchesReferenceEntry( &problem, entry, 1e-13, NULL );
            checkedQ += 1;
        }
        if ( ok == false )
        {
            printf( "%s: rows, kinds, contacts, |q| or mu wrong\n", names[f] );
            failures += 1;
        }
        cnDestroyFileProblem( &problem );
    }
    printf( "siconos-fc3d: %d local files read (%d checked against the reference), %d global refused\n",
            local, checkedQ, global );
    ck_assert_msg( failures == 0, "%d of %d FC3D files failed", failures, count );
    ck_assert_int_ge( local, 1 );
    ck_assert_uint_eq( peak.liveBytes, 0 );
    ck_assert_int_eq( peak.liveBlocks, 0 );
    cntFreeNames( names, count );
    cJSON_Delete( reference );
}
END_TEST

// The spot-check by hand: the smallest FC3D file, every number.
START_TEST( fc3d_small_file_by_hand )
{
    cnFileProblem problem;
    char message[CN_PROBLEM_MESSAGE_CAPACITY];
    cnStatus status = cnReadProblemFile( cntLcpDataPath( 0, "small_fc3d.dat" ), cn_problemAuto, NULL,
                                         &problem, message, sizeof( message ) );
    ck_assert_msg( status == cn_statusOk, "%s", message );
    ck_assert_int_eq( problem.format, cn_problemSiconosFc3d );
    ck_assert_int_eq( problem.contactCount, 1 );
    ck_assert_int_eq( problem.problem.rowCount, 3 );
    ck_assert_int_eq( problem.matrix.rowStart[3], 3 ); // the zeros are not stored
    const double b[3] = { -1.0, 0.5, 0.0 };
    for ( int i = 0; i < 3; ++i )
    {
        CNT_ASSERT_ABS( problem.problem.b[i], b[i], 0.0 );
        CNT_ASSERT_ABS( problem.matrix.value[i], 2.0, 0.0 );
        ck_assert_int_eq( problem.matrix.column[i], i );
    }
    ck_assert_int_eq( problem.problem.groupCount, 1 );
    ck_assert_int_eq( problem.problem.groups[0].kind, cn_groupContact );
    ck_assert_int_eq( problem.problem.groups[0].firstRow, 0 );
    ck_assert_int_eq( problem.problem.groups[0].rowCount, 3 );
    CNT_ASSERT_ABS( problem.problem.groups[0].mu, 0.3, 0.0 );
    ck_assert_ptr_eq( problem.problem.matrix, &problem.matrix );
    cnDestroyFileProblem( &problem );
    ck_assert_ptr_null( problem.memory );
    cnDestroyFileProblem( &problem ); // twice is harmless
    cnDestroyFileProblem( NULL );

    // forcing the format works too, and the wrong one fails cleanly
    status = cnReadProblemFile( cntLcpDataPath( 0, "small_fc3d.dat" ), cn_problemSiconosFc3d, NULL, &problem,
                                NULL, 0 );
    ck_assert_int_eq( status, cn_statusOk );
    cnDestroyFileProblem( &problem );
    status = cnReadProblemFile( cntLcpDataPath( 0, "small_fc3d.dat" ), cn_problemSiconosLcp, NULL, &problem,
                                message, sizeof( message ) );
    ck_assert_int_ne( status, cn_statusOk );
    ck_assert_ptr_null( problem.memory );
}
END_TEST

typedef struct cntBadFile
{
    const char* name;
    cnStatus status;
    const char* message; // a part of what the message must say
} cntBadFile;

static const cntBadFile cnt_badFiles[] = {
    { "truncated_q.dat", cn_statusParseError,
      ":9: token 18: expected q[2] (a number), got the end of the file" },
    { "truncated_matrix.dat", cn_statusParseError, "M needs 9 numbers but only 11 bytes are left" },
    { "letter.dat", cn_statusParseError, ":6: token 9: expected M[2] (a number), got 'x'" },
    { "negative_size.dat", cn_statusParseError,
      "token 1: n (the size of the LCP) must be in [0, 100000000], got '-3'" },
    { "nan.dat", cn_statusNonFinite, "token 10: M[3] is not finite: 'nan'" },
    { "inf_q.dat", cn_statusNonFinite, "q[1] is not finite: 'inf'" },
    // sizes the file claims, each refused before anything of that size is allocated
    { "huge_dense.dat", cn_statusParseError,
      ":1: token 1: n (the size of the LCP) is 50000000, which needs at least 50000003 more numbers (the "
      "matrix header and q), but only 47 bytes are left" },
    { "huge_fc3d.dat", cn_statusParseError,
      ":2: token 2: the number of contacts is 30000000, which needs at least 120000003 more numbers" },
    { "huge_blocks.dat", cn_statusParseError,
      ":5: token 7: the block structure needs 4000000005 numbers but only 35 bytes are left" },
    // the 66-byte sparse-block file of issue 13 (it used to cost 400 MB before "truncated")
    { "claim_block_rows.dat", cn_statusParseError,
      ":1: token 1: n (the size of the LCP) is 100000000, which needs at least 100000003 more numbers" },
    { "dense_too_big.dat", cn_statusParseError,
      ":4: token 6: M needs 900 numbers but only 82 bytes are left" },
    { "claim_block_values.dat", cn_statusParseError,
      ":9: token 14: the block data needs 1601 numbers but only 92 bytes are left" },
    // cairn's trailing blocks
    { "start_truncated.dat", cn_statusParseError,
      ":10: token 17: expected the start block[1] (a number), got the end of the file" },
    { "blocks_out_of_order.dat", cn_statusParseError,
      ":10: token 20: '# cairn start': expected '# cairn start' or '# cairn reference', once each and in "
      "that order" },
    { "numbers_after_start.dat", cn_statusParseError, ":10: token 18: more numbers after the start block" },
    { "storage_csparse.dat", cn_statusUnsupported, "storage type 2 (sparse CSparse): not supported" },
    { "storage_unknown.dat", cn_statusParseError,
      "the storage type of M must be 0 (dense) or 1 (sparse block), got 7" },
    { "empty.dat", cn_statusParseError,
      "token 1: expected n (the size of the LCP) (an integer), got the end" },
    { "bad_block_index.dat", cn_statusParseError,
      "a block index is 5 but blocks come in order, this one is 1" },
    { "fc3d_extra_numbers.dat", cn_statusUnsupported, "global frictional-contact problem (GFC3D)" },
    { "fc3d_negative_mu.dat", cn_statusParseError, "mu[0] is negative" },
    { "lcp_extra_numbers.dat", cn_statusParseError, "more numbers after q" },
    { "no_such_file.dat", cn_statusIoError, "no_such_file.dat: cannot open: No such file or directory" },
};

START_TEST( malformed_files_give_status_and_message )
{
    const cntBadFile* bad = cnt_badFiles + _i;
    cntPeakAllocator peak;
    cnAllocator allocator = cntMakePeakAllocator( &peak );
    cnFileProblem problem;
    char message[CN_PROBLEM_MESSAGE_CAPACITY];
    const char* path = cntLcpDataPath( 0, bad->name );
    cnStatus status =
        cnReadProblemFile( path, cn_problemAuto, &allocator, &problem, message, sizeof( message ) );
    ck_assert_msg( status == bad->status, "%s: status %s, expected %s (%s)", bad->name,
                   cnStatusName( status ), cnStatusName( bad->status ), message );
    ck_assert_msg( strstr( message, bad->message ) != NULL, "%s: message does not say \"%s\": %s", bad->name,
                   bad->message, message );
    ck_assert_msg( strncmp( message, path, strlen( path ) ) == 0,
                   "%s: message does not start with the path: %s", bad->name, message );
    ck_assert_ptr_null( problem.memory );
    ck_assert_int_eq( problem.problem.rowCount, 0 );
    cnDestroyFileProblem( &problem );
    ck_assert_uint_eq( peak.liveBytes, 0 );
    // never much more than the file itself, whatever size the file claims (the text buffer starts
    // at 256 bytes and doubles)
    size_t size = cntFileSize( path );
    ck_assert_msg( peak.largest <= 16 * size + 512, "%s: a block of %zu bytes for a file of %zu", bad->name,
                   peak.largest, size );
}
END_TEST

// cairn's start and reference blocks after a problem: read into start and reference, bit for bit
// (-0 stays -0), inside the problem's one block; a file without them has neither.
START_TEST( start_and_reference_blocks )
{
    cntPeakAllocator peak;
    cnAllocator allocator = cntMakePeakAllocator( &peak );
    cnFileProblem problem;
    char message[CN_PROBLEM_MESSAGE_CAPACITY];
    cnStatus status = cnReadProblemFile( cntLcpDataPath( 0, "with_blocks.dat" ), cn_problemAuto, &allocator,
                                         &problem, message, sizeof( message ) );
    ck_assert_msg( status == cn_statusOk, "%s", message );
    ck_assert_int_eq( problem.format, cn_problemSiconosLcp );
    ck_assert_ptr_nonnull( problem.start );
    ck_assert_ptr_nonnull( problem.reference );
    const double start[2] = { 0.25, -0.0 };
    const double reference[2] = { 4.0 / 3.0, 7.0 / 3.0 };
    ck_assert( cntSameBits( problem.start, start, 2 ) );
    ck_assert( cntSameBits( problem.reference, reference, 2 ) );
    // inside the one block: one allocation alive
    ck_assert_int_eq( peak.liveBlocks, 1 );
    const char* block = problem.memory;
    ck_assert( (const char*)problem.start >= block &&
               (const char*)( problem.start + 2 ) <= block + problem.memorySize );
    ck_assert( (const char*)problem.reference >= block &&
               (const char*)( problem.reference + 2 ) <= block + problem.memorySize );
    cnDestroyFileProblem( &problem );
    ck_assert_uint_eq( peak.liveBytes, 0 );

    // a reference block alone, in an FC3D file after the isComplete flag
    const char text[] = "3 1 0 3 3 3 3 2 0 0 0 2 0 0 0 2 -1 0.5 0 0.3 1\n# cairn reference\n0.5 0 0\n";
    status = cnParseProblemText( "mem.dat", text, sizeof( text ) - 1, cn_problemAuto, &allocator, &problem,
                                 message, sizeof( message ) );
    ck_assert_msg( status == cn_statusOk, "%s", message );
    ck_assert_ptr_null( problem.start );
    ck_assert_ptr_nonnull( problem.reference );
    CNT_ASSERT_ABS( problem.reference[0], 0.5, 0.0 );
    cnDestroyFileProblem( &problem );

    // no blocks: neither
    status = cnReadProblemFile( cntLcpDataPath( 0, "small_block.dat" ), cn_problemAuto, &allocator, &problem,
                                message, sizeof( message ) );
    ck_assert_msg( status == cn_statusOk, "%s", message );
    ck_assert_ptr_null( problem.start );
    ck_assert_ptr_null( problem.reference );
    cnDestroyFileProblem( &problem );

    // a '#' comment that is not ours is still a comment
    const char comment[] = "1 0 1 1 1 1 2 -1 # cairnless comment 1 2 3";
    status = cnParseProblemText( "comment.dat", comment, sizeof( comment ) - 1, cn_problemAuto, &allocator,
                                 &problem, message, sizeof( message ) );
    ck_assert_msg( status == cn_statusOk, "%s", message );
    ck_assert_ptr_null( problem.start );
    cnDestroyFileProblem( &problem );
    ck_assert_uint_eq( peak.liveBytes, 0 );
}
END_TEST

// A directory, a NULL path and a NULL message buffer.
START_TEST( odd_arguments )
{
    cnFileProblem problem;
    char message[CN_PROBLEM_MESSAGE_CAPACITY];
    cnStatus status =
        cnReadProblemFile( CN_TEST_DATA_DIR, cn_problemAuto, NULL, &problem, message, sizeof( message ) );
    ck_assert_int_eq( status, cn_statusIoError );
    ck_assert_msg( strstr( message, CN_TEST_DATA_DIR ) != NULL, "%s", message );
    ck_assert_int_eq( cnReadProblemFile( NULL, cn_problemAuto, NULL, &problem, message, sizeof( message ) ),
                      cn_statusInvalidArgument );
    ck_assert_int_eq(
        cnReadProblemFile( cntLcpDataPath( 0, "letter.dat" ), cn_problemAuto, NULL, NULL, NULL, 0 ),
        cn_statusInvalidArgument );
    ck_assert_int_eq(
        cnReadProblemFile( cntLcpDataPath( 0, "letter.dat" ), cn_problemAuto, NULL, &problem, NULL, 0 ),
        cn_statusParseError );
    ck_assert_int_eq( cnParseProblemText( "x", "1 0 1 1 2 -1", 12, (cnProblemFormat)9, NULL, &problem,
                                          message, sizeof( message ) ),
                      cn_statusInvalidArgument );
    ck_assert_str_eq( cnProblemFormatName( cn_problemSiconosLcp ), "siconos_lcp" );
    ck_assert_str_eq( cnProblemFormatName( (cnProblemFormat)42 ), "unknown" );

    // text in memory need not be terminated: "1 0 1 1 1 1 2 -1" then garbage past the length
    const char text[] = { '1', ' ', '0', ' ', '1', ' ', '1', ' ', '1',
                          ' ', '1', ' ', '2', ' ', '-', '1', '9', '9' };
    status =
        cnParseProblemText( "mem", text, 16, cn_problemAuto, NULL, &problem, message, sizeof( message ) );
    ck_assert_msg( status == cn_statusOk, "%s", message );
    CNT_ASSERT_ABS( problem.problem.b[0], -1.0, 0.0 );
    cnDestroyFileProblem( &problem );
}
END_TEST

// Every prefix of a valid file and every single-byte corruption: a status, never a crash or a leak.
START_TEST( every_prefix_and_corruption_is_safe )
{
    const char* names[] = { "small_block.dat", "small_fc3d.dat", "with_blocks.dat" };
    cntPeakAllocator peak;
    cnAllocator allocator = cntMakePeakAllocator( &peak );
    int runs = 0;
    int accepted = 0;
    for ( int f = 0; f < 3; ++f )
    {
        FILE* file = fopen( cntLcpDataPath( 0, names[f] ), "rb" );
        ck_assert_ptr_nonnull( file );
        char text[1024];
        size_t length = fread( text, 1, sizeof( text ), file );
        fclose( file );
        char corrupt[1024];
        const char replacements[] = { 'x', '-', '9', ' ', '.', 'e', '\n', '\0' };
        for ( size_t cut = 0; cut <= length; ++cut )
        {
            cnFileProblem problem;
            cnStatus status =
                cnParseProblemText( names[f], text, cut, cn_problemAuto, &allocator, &problem, NULL, 0 );
            accepted += status == cn_statusOk ? 1 : 0;
            cnDestroyFileProblem( &problem );
            runs += 1;
            for ( size_t r = 0; cut < length && r < sizeof( replacements ); ++r )
            {
                memcpy( corrupt, text, length );
                corrupt[cut] = replacements[r];
                status = cnParseProblemText( names[f], corrupt, length, cn_problemAuto, &allocator, &problem,
                                             NULL, 0 );
                cnDestroyFileProblem( &problem );
                runs += 1;
            }
        }
    }
    printf( "reader: %d truncated or corrupted texts, %d prefixes still complete problems\n", runs,
            accepted );
    ck_assert_uint_eq( peak.liveBytes, 0 );
    ck_assert_int_eq( peak.liveBlocks, 0 );
}
END_TEST

// Running out of memory at every allocation: a status, nothing leaked.
START_TEST( out_of_memory_at_every_allocation )
{
    int failures = 0;
    for ( long failAfter = 0; failAfter < 40; ++failAfter )
    {
        cntCountingAllocator counter;
        cnAllocator allocator = cntMakeCountingAllocator( &counter );
        counter.failAfter = failAfter;
        cnFileProblem problem;
        char message[CN_PROBLEM_MESSAGE_CAPACITY];
        cnStatus status = cnReadProblemFile( cntLcpDataPath( 0, "small_block.dat" ), cn_problemAuto,
                                             &allocator, &problem, message, sizeof( message ) );
        if ( status != cn_statusOk && status != cn_statusOutOfMemory )
        {
            printf( "fail after %ld: %s\n", failAfter, message );
            failures += 1;
        }
        cnDestroyFileProblem( &problem );
        failures += counter.liveBytes != 0 ? 1 : 0;
    }
    ck_assert_int_eq( failures, 0 );
}
END_TEST

Suite* cntLcpReaderSuite( void )
{
    Suite* suite = suite_create( "lcp_reader" );
    TCase* shared = tcase_create( "shared_data" );
    tcase_add_test( shared, siconos_lcp_files_match_reference );
    tcase_add_test( shared, block_twins_equal_dense_files );
    tcase_add_test( shared, siconos_fc3d_files_read );
    suite_add_tcase( suite, shared );
    TCase* own = tcase_create( "own_files" );
    tcase_add_test( own, fc3d_small_file_by_hand );
    tcase_add_loop_test( own, malformed_files_give_status_and_message, 0,
                         (int)( sizeof( cnt_badFiles ) / sizeof( cnt_badFiles[0] ) ) );
    tcase_add_test( own, start_and_reference_blocks );
    tcase_add_test( own, odd_arguments );
    tcase_add_test( own, every_prefix_and_corruption_is_safe );
    tcase_add_test( own, out_of_memory_at_every_allocation );
    suite_add_tcase( suite, own );
    return suite;
}
