// SPDX-License-Identifier: MIT
// The problem writer (cnWriteProblemFile): a matrix-free FC3D problem and an explicit LCP written
// and read back (A against J W J^T + diag(softness) computed here, b, mu, start and reference bit
// for bit), every shared Siconos file read, written and read again unchanged, and the problems the
// Siconos formats cannot hold refused with a reason.
#include "lcp_suites.h"
#include "lcp_test_support.h"
#include "test_support.h"

#include "cairn/lcp_io.h"

#include <check.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// ---- a hand-built matrix-free problem ---------------------------------------------------------------

#define CNT_BODIES   3
#define CNT_CONTACTS 4
#define CNT_ROWS     ( 3 * CNT_CONTACTS )

typedef struct cntFreeProblem
{
    cnSolverProblem problem;
    cnRowGroup groups[CNT_CONTACTS];
    double lower[CNT_ROWS];
    double upper[CNT_ROWS];
    double b[CNT_ROWS];
    double softness[CNT_ROWS];
    int32_t bodyA[CNT_ROWS];
    int32_t bodyB[CNT_ROWS];
    double jacobianA[6 * CNT_ROWS];
    double jacobianB[6 * CNT_ROWS];
    double wLinear[9 * CNT_BODIES];
    double wAngular[9 * CNT_BODIES];
} cntFreeProblem;

// A symmetric positive definite 3x3 block, full (no zero entry): R diag(d) R^T for a rotation R
// about an oblique axis, row major.
static void cntFullBlock( double d0, double d1, double d2, double angle, double* m )
{
    double axis[3] = { 1.0 / sqrt( 3.0 ), 1.0 / sqrt( 3.0 ), 1.0 / sqrt( 3.0 ) };
    double c = cos( angle );
    double s = sin( angle );
    double r[9];
    for ( int i = 0; i < 3; ++i )
    {
        for ( int j = 0; j < 3; ++j )
        {
            double cross = 0.0;
            int k = 3 - i - j; // the third index when i != j
            if ( i != j )
            {
                double sign = ( ( i + 1 ) % 3 == j ) ? -1.0 : 1.0;
                cross = sign * axis[k];
            }
            r[3 * i + j] = ( i == j ? c : 0.0 ) + ( 1.0 - c ) * axis[i] * axis[j] + s * cross;
        }
    }
    double d[3] = { d0, d1, d2 };
    for ( int i = 0; i < 3; ++i )
    {
        for ( int j = 0; j < 3; ++j )
        {
            double sum = 0.0;
            for ( int k = 0; k < 3; ++k )
            {
                sum += r[3 * i + k] * d[k] * r[3 * j + k];
            }
            m[3 * i + j] = sum;
        }
    }
}

// Three bodies with full W blocks; four contacts (body 0 on the ground, 0 on 1, 1 on 2, 2 on the
// ground) with different mu; a softness on some rows; awkward values in b (a third, -0, the
// smallest subnormal, 1e300).
static void cntMakeFreeProblem( cntFreeProblem* p )
{
    *p = ( cntFreeProblem ){ 0 };
    for ( int body = 0; body < CNT_BODIES; ++body )
    {
        cntFullBlock( 0.5 + body, 0.25 + 0.5 * body, 2.0 - 0.3 * body, 0.3 + body, p->wLinear + 9 * body );
        cntFullBlock( 3.0 + body, 1.5, 0.75 + body, 1.1 - 0.2 * body, p->wAngular + 9 * body );
    }
    const int pairs[CNT_CONTACTS][2] = { { 0, -1 }, { 0, 1 }, { 1, 2 }, { -1, 2 } };
    const double mu[CNT_CONTACTS] = { 0.3, 0.5, 0.0, 0.9 };
    cntRandom random = { 13 };
    for ( int c = 0; c < CNT_CONTACTS; ++c )
    {
        p->groups[c] = ( cnRowGroup ){ .firstRow = 3 * c,
                                       .rowCount = 3,
                                       .kind = cn_groupContact,
                                       .model = cn_frictionPyramid,
                                       .mu = mu[c] };
        for ( int r = 3 * c; r < 3 * c + 3; ++r )
        {
            p->bodyA[r] = pairs[c][0];
            p->bodyB[r] = pairs[c][1];
            for ( int k = 0; k < 6; ++k )
            {
                p->jacobianA[6 * r + k] = pairs[c][0] >= 0 ? cntRange( &random, -1.0, 1.0 ) : 0.0;
                p->jacobianB[6 * r + k] = pairs[c][1] >= 0 ? cntRange( &random, -1.0, 1.0 ) : 0.0;
            }
            p->b[r] = cntRange( &random, -2.0, 2.0 );
            p->upper[r] = (double)INFINITY;
        }
    }
    p->b[1] = 1.0 / 3.0;
    p->b[4] = -0.0;
    p->b[7] = 4.9406564584124654e-324;
    p->b[10] = 1e300;
    p->softness[0] = 0.125;
    p->softness[5] = 1e-7;
    p->softness[9] = 3.0;
    p->problem = ( cnSolverProblem ){
        .rowCount = CNT_ROWS,
        .rowCapacity = CNT_ROWS,
        .groupCount = CNT_CONTACTS,
        .groupCapacity = CNT_CONTACTS,
        .bodyCount = CNT_BODIES,
        .timeStep = 1.0 / 60.0,
        .groups = p->groups,
        .lower = p->lower,
        .upper = p->upper,
        .b = p->b,
        .softness = p->softness,
        .bodyA = p->bodyA,
        .bodyB = p->bodyB,
        .jacobianA = p->jacobianA,
        .jacobianB = p->jacobianB,
        .wLinear = p->wLinear,
        .wAngular = p->wAngular,
    };
}

// The test's own A + diag(softness) = J W J^T + S, row major: for rows i and j and every body both
// act on, J_i,body (W_lin, W_ang) J_j,body^T.
static void cntExpectedMatrix( const cntFreeProblem* p, double* a )
{
    for ( int i = 0; i < CNT_ROWS; ++i )
    {
        for ( int j = 0; j < CNT_ROWS; ++j )
        {
            double sum = 0.0;
            for ( int body = 0; body < CNT_BODIES; ++body )
            {
                double ji[6] = { 0 };
                double jj[6] = { 0 };
                for ( int k = 0; k < 6; ++k )
                {
                    ji[k] = ( p->bodyA[i] == body ? p->jacobianA[6 * i + k] : 0.0 ) +
                            ( p->bodyB[i] == body ? p->jacobianB[6 * i + k] : 0.0 );
                    jj[k] = ( p->bodyA[j] == body ? p->jacobianA[6 * j + k] : 0.0 ) +
                            ( p->bodyB[j] == body ? p->jacobianB[6 * j + k] : 0.0 );
                }
                for ( int r = 0; r < 3; ++r )
                {
                    for ( int c = 0; c < 3; ++c )
                    {
                        sum += ji[r] * p->wLinear[9 * body + 3 * r + c] * jj[c];
                        sum += ji[3 + r] * p->wAngular[9 * body + 3 * r + c] * jj[3 + c];
                    }
                }
            }
            a[i * CNT_ROWS + j] = sum + ( i == j ? p->softness[i] : 0.0 );
        }
    }
}

// The tokens of a text file (at most `capacity`), for checking the written header.
static int cntTokens( const char* path, char tokens[][32], int capacity )
{
    FILE* file = fopen( path, "r" );
    int count = 0;
    while ( file != NULL && count < capacity && fscanf( file, "%31s", tokens[count] ) == 1 )
    {
        count += 1;
    }
    if ( file != NULL )
    {
        fclose( file );
    }
    return count;
}

static bool cntSameFile( const char* a, const char* b )
{
    size_t la = 0;
    size_t lb = 0;
    char* ta = cntReadText( a, &la );
    char* tb = cntReadText( b, &lb );
    bool same = ta != NULL && tb != NULL && la == lb && memcmp( ta, tb, la ) == 0;
    free( ta );
    free( tb );
    return same;
}

START_TEST( matrix_free_fc3d_round_trip )
{
    cntFreeProblem source;
    cntMakeFreeProblem( &source );
    double start[CNT_ROWS];
    double lambda[CNT_ROWS];
    cntRandom random = { 99 };
    for ( int i = 0; i < CNT_ROWS; ++i )
    {
        start[i] = cntRange( &random, 0.0, 1.0 );
        lambda[i] = cntRange( &random, -1.0, 1.0 ) * 1e-3;
    }
    start[2] = -0.0;
    lambda[3] = 2.2250738585072014e-308;

    const char* path = cntLcpWorkPath( 0, "free_fc3d.dat" );
    char message[CN_PROBLEM_MESSAGE_CAPACITY];
    cnStatus status = cnWriteProblemFile( path, &source.problem, start, lambda, message, sizeof( message ) );
    ck_assert_msg( status == cn_statusOk, "%s", message );

    cnFileProblem read;
    status = cnReadProblemFile( path, cn_problemAuto, NULL, &read, message, sizeof( message ) );
    ck_assert_msg( status == cn_statusOk, "%s", message );
    ck_assert_int_eq( read.format, cn_problemSiconosFc3d );
    ck_assert_int_eq( read.contactCount, CNT_CONTACTS );
    ck_assert_int_eq( read.problem.rowCount, CNT_ROWS );
    ck_assert_int_eq( read.problem.groupCount, CNT_CONTACTS );
    for ( int c = 0; c < CNT_CONTACTS; ++c )
    {
        const cnRowGroup* group = read.problem.groups + c;
        ck_assert_int_eq( group->kind, cn_groupContact );
        ck_assert_int_eq( group->model, cn_frictionPyramid );
        ck_assert_int_eq( group->firstRow, 3 * c );
        ck_assert( cntSameBits( &group->mu, &source.groups[c].mu, 1 ) );
    }
    // b, start and reference to the bit
    ck_assert( cntSameBits( read.problem.b, source.b, CNT_ROWS ) );
    ck_assert( cntSameBits( read.start, start, CNT_ROWS ) );
    ck_assert( cntSameBits( read.reference, lambda, CNT_ROWS ) );

    // A against J W J^T + diag(softness), computed here; entries between contacts that share no
    // body are not stored at all
    static double expected[CNT_ROWS * CNT_ROWS];
    cntExpectedMatrix( &source, expected );
    double* dense = cntDenseMatrix( &read.problem );
    double scale = 0.0;
    for ( int k = 0; k < CNT_ROWS * CNT_ROWS; ++k )
    {
        scale = fmax( scale, fabs( expected[k] ) );
    }
    double worst = 0.0;
    for ( int k = 0; k < CNT_ROWS * CNT_ROWS; ++k )
    {
        worst = fmax( worst, fabs( dense[k] - expected[k] ) );
    }
    ck_assert_msg( worst <= 1e-14 * scale, "A differs from J W J^T + S by %g (scale %g)", worst, scale );
    // contacts 0 and 2 share no body, nor 0 and 3: their blocks are absent
    for ( int i = 0; i < 3; ++i )
    {
        for ( int k = read.matrix.rowStart[i]; k < read.matrix.rowStart[i + 1]; ++k )
        {
            ck_assert_int_lt( read.matrix.column[k], 6 );
        }
    }
    // the softness reached the diagonal
    CNT_ASSERT_REL( dense[9 * CNT_ROWS + 9], expected[9 * CNT_ROWS + 9], 1e-14 );
    ck_assert( dense[9 * CNT_ROWS + 9] - 3.0 > 0.0 );

    // the header: FC3D of 4 contacts, sparse-block storage of 12 x 12, 3x3 blocks, one block for each
    // pair of contacts sharing a body (0-0 0-1 1-0 1-1 1-2 2-1 2-2 2-3 3-2 3-3: 10)
    char tokens[16][32];
    ck_assert_int_eq( cntTokens( path, tokens, 16 ), 16 );
    const char* header[] = { "3", "4", "1", "12", "12", "10", "4", "4",
                             "3", "6", "9", "12", "3",  "6",  "9", "12" };
    for ( int t = 0; t < 16; ++t )
    {
        ck_assert_str_eq( tokens[t], header[t] );
    }

    // the explicit problem read back writes the same file again, byte for byte
    const char* again = cntLcpWorkPath( 1, "free_fc3d_again.dat" );
    status =
        cnWriteProblemFile( again, &read.problem, read.start, read.reference, message, sizeof( message ) );
    ck_assert_msg( status == cn_statusOk, "%s", message );
    ck_assert_msg( cntSameFile( path, again ), "%s and %s differ", path, again );

    // the same problem solved from the file and from memory: 20 pgs sweeps, the same impulses (with a
    // tame b[10]: 1e300 was there for the bits only)
    const cnSolverVTable* pgs = cnFindSolver( "pgs" );
    if ( pgs != NULL && pgs->solve != NULL )
    {
        double params[CN_MAX_SOLVER_PARAMS];
        for ( int k = 0; k < pgs->paramCount; ++k )
        {
            params[k] = pgs->params[k].defaultValue;
        }
        params[cnFindSolverParam( pgs, "tolerance" )] = 0.0;
        params[cnFindSolverParam( pgs, "iterations" )] = 20.0;
        source.b[10] = 1.0;
        read.problem.b[10] = 1.0;
        double fromFile[CNT_ROWS] = { 0 };
        double fromMemory[CNT_ROWS] = { 0 };
        double velocity[6 * CNT_BODIES] = { 0 };
        cnSolverStats stats;
        cnSolverSolution solution = { .lambda = fromFile };
        ck_assert_int_eq( cnRunSolver( pgs, params, &read.problem, &solution, NULL, &stats ), cn_statusOk );
        ck_assert_int_eq( stats.iterations, 20 );
        solution = ( cnSolverSolution ){ .lambda = fromMemory, .deltaVelocity = velocity };
        ck_assert_int_eq( cnRunSolver( pgs, params, &source.problem, &solution, NULL, &stats ), cn_statusOk );
        ck_assert_int_eq( stats.iterations, 20 );
        for ( int i = 0; i < CNT_ROWS; ++i )
        {
            CNT_ASSERT_ABS( fromFile[i], fromMemory[i], 1e-10 * fmax( 1.0, fabs( fromMemory[i] ) ) );
        }
    }
    free( dense );
    cnDestroyFileProblem( &read );
}
END_TEST

// An explicit LCP with a softness, a row whose M has no diagonal (the softness alone makes it), a
// start block and no reference.
START_TEST( explicit_lcp_round_trip )
{
    const double m[16] = { 4.0, -1.0, 0.0, 0.5,    -1.0, 0.0, 2.0,    0.0,
                           0.0, 2.0,  5.0, 1e-300, 0.5,  0.0, 1e-300, 3.0 };
    const double q[4] = { -1.0, 1.0 / 7.0, -0.0, 123456.789 };
    cntDenseLcp lcp;
    cntMakeDenseLcp( &lcp, 4, m, q );
    double softness[4] = { 0.0, 0.375, 0.0, 1e-9 };
    lcp.problem.softness = softness;
    const double start[4] = { 1.0, 0.0, 1e-20, 0.1 };
    const char* path = cntLcpWorkPath( 0, "explicit_lcp.dat" );
    char message[CN_PROBLEM_MESSAGE_CAPACITY];
    ck_assert_int_eq( cnWriteProblemFile( path, &lcp.problem, start, NULL, message, sizeof( message ) ),
                      cn_statusOk );

    cnFileProblem read;
    cnStatus status = cnReadProblemFile( path, cn_problemAuto, NULL, &read, message, sizeof( message ) );
    ck_assert_msg( status == cn_statusOk, "%s", message );
    ck_assert_int_eq( read.format, cn_problemSiconosLcp );
    ck_assert_int_eq( read.problem.groupCount, 4 );
    for ( int g = 0; g < 4; ++g )
    {
        ck_assert_int_eq( read.problem.groups[g].kind, cn_groupNormal );
    }
    ck_assert( cntSameBits( read.problem.b, q, 4 ) );
    ck_assert( cntSameBits( read.start, start, 4 ) );
    ck_assert_ptr_null( read.reference );
    double* dense = cntDenseMatrix( &read.problem );
    for ( int i = 0; i < 4; ++i )
    {
        for ( int j = 0; j < 4; ++j )
        {
            double expected = m[4 * i + j] + ( i == j ? softness[i] : 0.0 );
            ck_assert_msg( dense[4 * i + j] == expected, "A[%d][%d] = %.17g, expected %.17g", i, j,
                           dense[4 * i + j], expected );
        }
    }
    // 1x1 blocks, only the nonzero ones: 12 of the 16 entries (row 1's diagonal from the softness)
    char tokens[8][32];
    ck_assert_int_eq( cntTokens( path, tokens, 8 ), 8 );
    ck_assert_str_eq( tokens[0], "4" ); // n
    ck_assert_str_eq( tokens[1], "1" ); // sparse block
    ck_assert_str_eq( tokens[4], "12" );
    ck_assert_str_eq( tokens[5], "4" );
    free( dense );
    cnDestroyFileProblem( &read );
    cntFreeDenseLcp( &lcp );
}
END_TEST

// A zero matrix keeps its diagonal blocks (Siconos' reader stops at a block count of 0); a problem
// without rows is written as an empty dense LCP. Both read back.
START_TEST( zero_and_empty_problems )
{
    const double m[4] = { 0.0, 0.0, 0.0, 0.0 };
    const double q[2] = { -1.0, 2.0 };
    cntDenseLcp lcp;
    cntMakeDenseLcp( &lcp, 2, m, q );
    const char* path = cntLcpWorkPath( 0, "zero_lcp.dat" );
    char message[CN_PROBLEM_MESSAGE_CAPACITY];
    ck_assert_int_eq( cnWriteProblemFile( path, &lcp.problem, NULL, NULL, message, sizeof( message ) ),
                      cn_statusOk );
    char tokens[6][32];
    ck_assert_int_eq( cntTokens( path, tokens, 6 ), 6 );
    ck_assert_str_eq( tokens[5], "2" ); // two (zero) diagonal blocks
    cnFileProblem read;
    ck_assert_int_eq( cnReadProblemFile( path, cn_problemAuto, NULL, &read, message, sizeof( message ) ),
                      cn_statusOk );
    ck_assert_int_eq( read.problem.rowCount, 2 );
    ck_assert_int_eq( read.matrix.rowStart[2], 0 );
    ck_assert( cntSameBits( read.problem.b, q, 2 ) );
    cnDestroyFileProblem( &read );
    cntFreeDenseLcp( &lcp );

    cntMakeDenseLcp( &lcp, 0, m, q );
    path = cntLcpWorkPath( 1, "empty_lcp.dat" );
    ck_assert_int_eq( cnWriteProblemFile( path, &lcp.problem, NULL, NULL, message, sizeof( message ) ),
                      cn_statusOk );
    cnStatus status = cnReadProblemFile( path, cn_problemAuto, NULL, &read, message, sizeof( message ) );
    ck_assert_msg( status == cn_statusOk, "%s", message );
    ck_assert_int_eq( read.problem.rowCount, 0 );
    cnDestroyFileProblem( &read );
    cntFreeDenseLcp( &lcp );
}
END_TEST

// Every shared Siconos LCP and local FC3D file: read, written, read again, the same problem to the
// bit (and the second write gives the same file).
START_TEST( siconos_files_survive_a_round_trip )
{
    const char* dirs[2] = { CNT_SICONOS_LCP_DIR, CNT_SICONOS_FC3D_DIR };
    int compared = 0;
    int failures = 0;
    for ( int d = 0; d < 2; ++d )
    {
        int count = 0;
        char** names = cntListFiles( dirs[d], ".dat", &count );
        if ( names == NULL )
        {
            printf( "skipped: %s not found\n", dirs[d] );
            continue;
        }
        for ( int f = 0; f < count; ++f )
        {
            cnFileProblem first;
            cnFileProblem second;
            char message[CN_PROBLEM_MESSAGE_CAPACITY];
            if ( cnReadProblemFile( cntJoinPath( 0, dirs[d], names[f] ), cn_problemAuto, NULL, &first, NULL,
                                    0 ) != cn_statusOk )
            {
                continue; // the global ones
            }
            const char* path = cntLcpWorkPath( 0, "round_trip.dat" );
            const char* again = cntLcpWorkPath( 1, "round_trip_again.dat" );
            cnStatus status =
                cnWriteProblemFile( path, &first.problem, NULL, NULL, message, sizeof( message ) );
            status = status == cn_statusOk ? cnReadProblemFile( path, cn_problemAuto, NULL, &second, message,
                                                                sizeof( message ) )
                                           : status;
            int n = first.problem.rowCount;
            bool same =
                status == cn_statusOk && second.format == first.format && second.problem.rowCount == n &&
                second.problem.groupCount == first.problem.groupCount &&
                second.matrix.rowStart[n] == first.matrix.rowStart[n] &&
                cntSameBits( second.problem.b, first.problem.b, n ) &&
                memcmp( second.matrix.rowStart, first.matrix.rowStart, ( (size_t)n + 1 ) * sizeof( int ) ) ==
                    0;
            int nonzeros = same ? first.matrix.rowStart[n] : 0;
            same =
                same &&
                memcmp( second.matrix.column, first.matrix.column, (size_t)nonzeros * sizeof( int ) ) == 0 &&
                cntSameBits( second.matrix.value, first.matrix.value, nonzeros );
            for ( int g = 0; same && g < first.problem.groupCount; ++g )
            {
                same = cntSameBits( &second.problem.groups[g].mu, &first.problem.groups[g].mu, 1 ) &&
                       second.problem.groups[g].kind == first.problem.groups[g].kind;
            }
            same = same && cnWriteProblemFile( again, &second.problem, NULL, NULL, NULL, 0 ) == cn_statusOk &&
                   cntSameFile( path, again );
            if ( same == false )
            {
                printf( "%s: the round trip changed the problem (%s)\n", names[f], message );
                failures += 1;
            }
            compared += 1;
            if ( status == cn_statusOk )
            {
                cnDestroyFileProblem( &second );
            }
            cnDestroyFileProblem( &first );
        }
        cntFreeNames( names, count );
    }
    printf( "writer: %d Siconos files written and read back\n", compared );
    ck_assert_msg( failures == 0, "%d of %d round trips changed the problem", failures, compared );
}
END_TEST

typedef struct cntRefusal
{
    const char* what;
    cnStatus status;
    const char* message;
} cntRefusal;

static const cntRefusal cnt_refusals[] = {
    { "mixed", cn_statusUnsupported, "mixes 3 contacts with 3 frictionless normal rows" },
    { "bounded", cn_statusUnsupported, "group 3 has bounded rows, which neither Siconos format" },
    { "bilateral", cn_statusUnsupported, "group 3 has bilateral rows" },
    { "cone", cn_statusUnsupported, "group 1 is a contact with the exact cone model" },
    { "nan_b", cn_statusNonFinite, "b[4] is nan" },
    { "inf_lambda", cn_statusNonFinite, "lambda[2] is inf" },
    { "invalid", cn_statusInvalidArgument, "not a valid problem: the groups do not" },
    { "no_folder", cn_statusIoError, "cannot open for writing: No such file or directory" },
};

// What the formats cannot hold, what would not read back and what cannot be written: a status and
// a reason naming the file, and no file left behind.
START_TEST( writer_refusals )
{
    const cntRefusal* refusal = cnt_refusals + _i;
    // four contacts' worth of rows as a base: three contacts, then one more group
    cntFreeProblem base;
    cntMakeFreeProblem( &base );
    cnSolverProblem problem = base.problem;
    cnRowGroup groups[6];
    memcpy( groups, base.groups, sizeof( base.groups ) );
    problem.groups = groups;
    double lambda[CNT_ROWS] = { 0 };
    double b[CNT_ROWS];
    memcpy( b, base.b, sizeof( b ) );
    problem.b = b;
    const char* path = cntLcpWorkPath( 0, "refused.dat" );
    remove( path );
    if ( strcmp( refusal->what, "mixed" ) == 0 || strcmp( refusal->what, "bounded" ) == 0 ||
         strcmp( refusal->what, "bilateral" ) == 0 )
    {
        // the last contact becomes three single rows of the same bodies
        uint8_t kind =
            strcmp( refusal->what, "mixed" ) == 0
                ? cn_groupNormal
                : ( strcmp( refusal->what, "bounded" ) == 0 ? cn_groupBounded : cn_groupBilateral );
        problem.groupCount = 6;
        problem.groupCapacity = 6;
        for ( int k = 0; k < 3; ++k )
        {
            groups[3 + k] = ( cnRowGroup ){ .firstRow = 9 + k, .rowCount = 1, .kind = kind };
            base.lower[9 + k] = -1.0;
            base.upper[9 + k] = 1.0;
        }
    }
    else if ( strcmp( refusal->what, "cone" ) == 0 )
    {
        groups[1].model = cn_frictionCone;
    }
    else if ( strcmp( refusal->what, "nan_b" ) == 0 )
    {
        b[4] = (double)NAN;
    }
    else if ( strcmp( refusal->what, "inf_lambda" ) == 0 )
    {
        lambda[2] = (double)INFINITY;
    }
    else if ( strcmp( refusal->what, "invalid" ) == 0 )
    {
        groups[2].firstRow = 7;
    }
    else
    {
        path = CNT_LCP_WORK_DIR "/no/such/folder/problem.dat";
    }
    char message[CN_PROBLEM_MESSAGE_CAPACITY];
    cnStatus status = cnWriteProblemFile( path, &problem, NULL, lambda, message, sizeof( message ) );
    ck_assert_msg( status == refusal->status, "%s: status %s (%s)", refusal->what, cnStatusName( status ),
                   message );
    ck_assert_msg( strstr( message, refusal->message ) != NULL, "%s: the message does not say \"%s\": %s",
                   refusal->what, refusal->message, message );
    ck_assert_msg( strncmp( message, path, strlen( path ) ) == 0,
                   "%s: the message does not name the file: %s", refusal->what, message );
    FILE* file = fopen( path, "r" );
    ck_assert_msg( file == NULL, "%s: a file was left behind", refusal->what );

    // NULL arguments
    ck_assert_int_eq( cnWriteProblemFile( NULL, &problem, NULL, NULL, message, sizeof( message ) ),
                      cn_statusInvalidArgument );
    ck_assert_int_eq( cnWriteProblemFile( path, NULL, NULL, NULL, NULL, 0 ), cn_statusInvalidArgument );
}
END_TEST

Suite* cntLcpWriterSuite( void )
{
    Suite* suite = suite_create( "lcp_writer" );
    TCase* own = tcase_create( "own_problems" );
    tcase_add_test( own, matrix_free_fc3d_round_trip );
    tcase_add_test( own, explicit_lcp_round_trip );
    tcase_add_test( own, zero_and_empty_problems );
    tcase_add_loop_test( own, writer_refusals, 0,
                         (int)( sizeof( cnt_refusals ) / sizeof( cnt_refusals[0] ) ) );
    suite_add_tcase( suite, own );
    TCase* shared = tcase_create( "shared_data" );
    tcase_set_timeout( shared, 120 );
    tcase_add_test( shared, siconos_files_survive_a_round_trip );
    suite_add_tcase( suite, shared );
    return suite;
}
