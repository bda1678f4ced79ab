// SPDX-License-Identifier: MIT
// The exact solve of the joints' free bilateral rows (solvers/bilateral.c, through
// cnLayerSolveBilateral and through its build, factor and step) against a dense reference built
// here from J, W and the softness alone: random trees of joints with pendants to static, joints
// merged on one pair of bodies, rows it must leave alone and a shuffled group order; loops closed
// by block Gauss-Seidel passes; redundant rows; an empty problem; one step by hand.
#include "arena.h"
#include "bilateral.h"
#include "solver_layer.h"
#include "solvers_suites.h"
#include "test_support.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CNT_MAX_BODIES 48
#define CNT_MAX_ROWS   1024
#define CNT_MAX_GROUPS 512
// free rows charged to one body at most (of its 6 DOF): one to spare keeps the problems well posed
#define CNT_BODY_ROWS 5

// ---- problems ------------------------------------------------------------------------------------

// A matrix-free problem with storage of its own; softness NULL until cntUseSoftness.
typedef struct cntJoints
{
    cnSolverProblem problem;
    cnRowGroup groups[CNT_MAX_GROUPS];
    double lower[CNT_MAX_ROWS];
    double upper[CNT_MAX_ROWS];
    double b[CNT_MAX_ROWS];
    double softness[CNT_MAX_ROWS];
    int32_t bodyA[CNT_MAX_ROWS];
    int32_t bodyB[CNT_MAX_ROWS];
    double jacobianA[6 * CNT_MAX_ROWS];
    double jacobianB[6 * CNT_MAX_ROWS];
    double wLinear[9 * CNT_MAX_BODIES];
    double wAngular[9 * CNT_MAX_BODIES];
} cntJoints;

static cntJoints* cntCreateJoints( int bodies )
{
    ck_assert_int_le( bodies, CNT_MAX_BODIES );
    cntJoints* j = calloc( 1, sizeof( cntJoints ) );
    ck_assert_ptr_nonnull( j );
    cnSolverProblem* p = &j->problem;
    p->rowCapacity = CNT_MAX_ROWS;
    p->groupCapacity = CNT_MAX_GROUPS;
    p->bodyCount = bodies;
    p->timeStep = 1.0 / 60.0;
    p->groups = j->groups;
    p->lower = j->lower;
    p->upper = j->upper;
    p->b = j->b;
    p->bodyA = j->bodyA;
    p->bodyB = j->bodyB;
    p->jacobianA = j->jacobianA;
    p->jacobianB = j->jacobianB;
    p->wLinear = j->wLinear;
    p->wAngular = j->wAngular;
    return j;
}

static void cntUseSoftness( cntJoints* j )
{
    j->problem.softness = j->softness;
}

// a uniformly random rotation (row major), from a random unit quaternion
static void cntRandomRotation( cntRandom* random, double* r )
{
    double q[4];
    double norm = 0.0;
    do
    {
        norm = 0.0;
        for ( int k = 0; k < 4; ++k )
        {
            q[k] = cntRange( random, -1.0, 1.0 );
            norm += q[k] * q[k];
        }
    } while ( norm > 1.0 || norm < 1e-4 );
    norm = sqrt( norm );
    double w = q[0] / norm;
    double x = q[1] / norm;
    double y = q[2] / norm;
    double z = q[3] / norm;
    r[0] = 1.0 - 2.0 * ( y * y + z * z );
    r[1] = 2.0 * ( x * y - w * z );
    r[2] = 2.0 * ( x * z + w * y );
    r[3] = 2.0 * ( x * y + w * z );
    r[4] = 1.0 - 2.0 * ( x * x + z * z );
    r[5] = 2.0 * ( y * z - w * x );
    r[6] = 2.0 * ( x * z - w * y );
    r[7] = 2.0 * ( y * z + w * x );
    r[8] = 1.0 - 2.0 * ( x * x + y * y );
}

// R diag(e) R^T with eigenvalues e = 10^u, u uniform in [lowExponent, highExponent]
static void cntRandomSpd( cntRandom* random, double lowExponent, double highExponent, double* out )
{
    double r[9];
    double e[3];
    cntRandomRotation( random, r );
    for ( int k = 0; k < 3; ++k )
    {
        e[k] = pow( 10.0, cntRange( random, lowExponent, highExponent ) );
    }
    for ( int a = 0; a < 3; ++a )
    {
        for ( int c = 0; c < 3; ++c )
        {
            double s = 0.0;
            for ( int k = 0; k < 3; ++k )
            {
                s += r[3 * a + k] * e[k] * r[3 * c + k];
            }
            out[3 * a + c] = s;
        }
    }
    // exactly symmetric
    for ( int a = 0; a < 3; ++a )
    {
        for ( int c = 0; c < a; ++c )
        {
            out[3 * c + a] = out[3 * a + c];
        }
    }
}

// every body's W: the linear block a diagonal inverse mass or a random SPD, the angular block a
// random SPD with eigenvalues in [10^lowExponent, 10^highExponent]
static void cntRandomBodies( cntJoints* j, cntRandom* random, double lowExponent, double highExponent )
{
    for ( int body = 0; body < j->problem.bodyCount; ++body )
    {
        double* wl = j->wLinear + 9 * body;
        if ( cntUniform( random ) < 0.5 )
        {
            memset( wl, 0, 9 * sizeof( double ) );
            wl[0] = wl[4] = wl[8] = pow( 10.0, cntRange( random, -1.0, 1.0 ) );
        }
        else
        {
            cntRandomSpd( random, lowExponent, highExponent, wl );
        }
        cntRandomSpd( random, lowExponent, highExponent, j->wAngular + 9 * body );
    }
}

// A group of `rows` free rows between bodies a and b (-1: static) with random Jacobians (an
// absent side's Jacobian random too: it must be ignored), random b and no softness. Returns the
// first row.
static int cntAddGroup( cntJoints* j, cntRandom* random, cnGroupKind kind, int a, int b, int rows )
{
    cnSolverProblem* p = &j->problem;
    int first = p->rowCount;
    ck_assert_int_le( first + rows, CNT_MAX_ROWS );
    ck_assert_int_lt( p->groupCount, CNT_MAX_GROUPS );
    p->groups[p->groupCount++] = ( cnRowGroup ){
        .firstRow = first,
        .rowCount = rows,
        .kind = (uint8_t)kind,
        .model = 0,
        .mu = kind == cn_groupContact ? 0.5 : 0.0,
    };
    for ( int i = first; i < first + rows; ++i )
    {
        j->bodyA[i] = a;
        j->bodyB[i] = b;
        for ( int k = 0; k < 6; ++k )
        {
            j->jacobianA[6 * i + k] = cntRange( random, -1.0, 1.0 );
            j->jacobianB[6 * i + k] = cntRange( random, -1.0, 1.0 );
        }
        j->b[i] = cntRange( random, -1.0, 1.0 );
        j->lower[i] = -(double)INFINITY;
        j->upper[i] = (double)INFINITY;
        j->softness[i] = 0.0;
    }
    p->rowCount += rows;
    return first;
}

// bounds that make a bilateral row not free: finite, or infinite on one side only
static void cntLimitRow( cntJoints* j, cntRandom* random, int row )
{
    switch ( (int)( cntUniform( random ) * 4.0 ) )
    {
        case 0:
            j->lower[row] = 0.0;
            break;
        case 1:
            j->upper[row] = 0.0;
            break;
        case 2:
            j->lower[row] = -1.0;
            j->upper[row] = 1.0;
            break;
        default:
            j->lower[row] = j->upper[row] = 0.0;
            break;
    }
}

static int cntRandomInt( cntRandom* random, int count )
{
    return (int)( cntNext( random ) % (uint64_t)count );
}

// ---- the dense reference ------------------------------------------------------------------------------

static bool cntIsFree( const cnSolverProblem* p, int row )
{
    return isinf( p->lower[row] ) && p->lower[row] < 0.0 && isinf( p->upper[row] ) && p->upper[row] > 0.0;
}

// The problem's free bilateral rows in row order, by their definition (not the module's): the rows
// of cn_groupBilateral groups with bounds -inf and inf.
static int cntFreeRows( const cnSolverProblem* p, int* rows )
{
    int count = 0;
    for ( int g = 0; g < p->groupCount; ++g )
    {
        const cnRowGroup* group = p->groups + g;
        for ( int i = group->firstRow;
              group->kind == cn_groupBilateral && i < group->firstRow + group->rowCount; ++i )
        {
            if ( cntIsFree( p, i ) )
            {
                rows[count++] = i;
            }
        }
    }
    return count;
}

// row i of J as a dense row of 6 * bodyCount entries
static void cntDenseRow( const cnSolverProblem* p, int i, double* out )
{
    memset( out, 0, 6 * (size_t)p->bodyCount * sizeof( double ) );
    for ( int k = 0; k < 6; ++k )
    {
        if ( p->bodyA[i] >= 0 )
        {
            out[6 * p->bodyA[i] + k] += p->jacobianA[6 * i + k];
        }
        if ( p->bodyB[i] >= 0 )
        {
            out[6 * p->bodyB[i] + k] += p->jacobianB[6 * i + k];
        }
    }
}

// v = W g for a dense vector g of 6 * bodyCount entries (with `absolute`: |W| g)
static void cntApplyW( const cnSolverProblem* p, const double* g, double* v, bool absolute )
{
    for ( int body = 0; body < p->bodyCount; ++body )
    {
        const double* wl = p->wLinear + 9 * body;
        const double* wa = p->wAngular + 9 * body;
        for ( int r = 0; r < 3; ++r )
        {
            double sl = 0.0;
            double sa = 0.0;
            for ( int c = 0; c < 3; ++c )
            {
                sl += ( absolute ? fabs( wl[3 * r + c] ) : wl[3 * r + c] ) * g[6 * body + c];
                sa += ( absolute ? fabs( wa[3 * r + c] ) : wa[3 * r + c] ) * g[6 * body + 3 + c];
            }
            v[6 * body + r] = sl;
            v[6 * body + 3 + r] = sa;
        }
    }
}

// v = W J^T lambda over every row (rows with skip[i] left out; skip nullable), and scale =
// |W| |J|^T |lambda| (nullable), the size of its terms
static void cntVelocity( const cnSolverProblem* p, const double* lambda, const bool* skip, double* v,
                         double* scale )
{
    size_t n = 6 * (size_t)p->bodyCount;
    double* g = calloc( n + 1, sizeof( double ) );
    double* gAbs = calloc( n + 1, sizeof( double ) );
    double* row = calloc( n + 1, sizeof( double ) );
    for ( int i = 0; i < p->rowCount; ++i )
    {
        if ( skip != NULL && skip[i] )
        {
            continue;
        }
        cntDenseRow( p, i, row );
        for ( size_t k = 0; k < n; ++k )
        {
            g[k] += row[k] * lambda[i];
            gAbs[k] += fabs( row[k] * lambda[i] );
        }
    }
    cntApplyW( p, g, v, false );
    if ( scale != NULL )
    {
        cntApplyW( p, gAbs, scale, true );
    }
    free( g );
    free( gAbs );
    free( row );
}

// A = J_F W J_F^T + S_F on the rows F (count x count, row major)
static double* cntBuildMatrix( const cnSolverProblem* p, const int* rows, int count )
{
    size_t n = 6 * (size_t)p->bodyCount;
    size_t m = (size_t)count;
    double* a = calloc( m * m + 1, sizeof( double ) );
    double* jd = calloc( m * n + 1, sizeof( double ) );
    double* wjd = calloc( m * n + 1, sizeof( double ) );
    for ( size_t r = 0; r < m; ++r )
    {
        cntDenseRow( p, rows[r], jd + r * n );
        cntApplyW( p, jd + r * n, wjd + r * n, false );
    }
    for ( size_t r = 0; r < m; ++r )
    {
        for ( size_t c = 0; c < m; ++c )
        {
            double s = 0.0;
            for ( size_t k = 0; k < n; ++k )
            {
                s += jd[r * n + k] * wjd[c * n + k];
            }
            a[r * m + c] = s;
        }
        a[r * m + r] += p->softness != NULL ? p->softness[rows[r]] : 0.0;
    }
    free( jd );
    free( wjd );
    return a;
}

// In-place dense Cholesky (the lower triangle); false when a pivot is not positive
static bool cntCholesky( double* a, int n )
{
    for ( int j = 0; j < n; ++j )
    {
        double d = a[j * n + j];
        for ( int k = 0; k < j; ++k )
        {
            d -= a[j * n + k] * a[j * n + k];
        }
        if ( !( d > 0.0 ) )
        {
            return false;
        }
        double pivot = sqrt( d );
        a[j * n + j] = pivot;
        for ( int i = j + 1; i < n; ++i )
        {
            double s = a[i * n + j];
            for ( int k = 0; k < j; ++k )
            {
                s -= a[i * n + k] * a[j * n + k];
            }
            a[i * n + j] = s / pivot;
        }
    }
    return true;
}

// x <- L^-1 x
static void cntForward( const double* l, int n, double* x )
{
    for ( int j = 0; j < n; ++j )
    {
        double s = x[j];
        for ( int k = 0; k < j; ++k )
        {
            s -= l[j * n + k] * x[k];
        }
        x[j] = s / l[j * n + j];
    }
}

// x <- L^-T x
static void cntBackward( const double* l, int n, double* x )
{
    for ( int j = n - 1; j >= 0; --j )
    {
        double s = x[j];
        for ( int k = j + 1; k < n; ++k )
        {
            s -= l[k * n + j] * x[k];
        }
        x[j] = s / l[j * n + j];
    }
}

// x = -(A_F)^-1 rhs by a dense Cholesky of J_F W J_F^T + S_F (rhs nullable: b_F); false when it is
// not positive definite. *worst (nullable): min_i 1 / (A_ii (A^-1)_ii), the smallest pivot over its
// row's diagonal any elimination order can meet.
static bool cntDenseSolve( const cnSolverProblem* p, const int* rows, int count, const double* rhs, double* x,
                           double* worst )
{
    double* a = cntBuildMatrix( p, rows, count );
    double* diagonal = calloc( (size_t)count + 1, sizeof( double ) );
    for ( int r = 0; r < count; ++r )
    {
        diagonal[r] = a[r * count + r];
    }
    bool ok = cntCholesky( a, count );
    for ( int r = 0; r < count; ++r )
    {
        x[r] = -( rhs != NULL ? rhs[r] : p->b[rows[r]] );
    }
    if ( ok )
    {
        cntForward( a, count, x );
        cntBackward( a, count, x );
    }
    if ( ok && worst != NULL )
    {
        double* y = calloc( (size_t)count + 1, sizeof( double ) );
        *worst = INFINITY;
        for ( int i = 0; i < count; ++i )
        {
            memset( y, 0, (size_t)count * sizeof( double ) );
            y[i] = 1.0;
            cntForward( a, count, y );
            double inverse = 0.0;
            for ( int k = i; k < count; ++k )
            {
                inverse += y[k] * y[k];
            }
            *worst = fmin( *worst, 1.0 / ( diagonal[i] * inverse ) );
        }
        free( y );
    }
    free( a );
    free( diagonal );
    return ok;
}

// w = J (W J^T lambda) + S lambda + b on the rows F (lambda over every row) into w (count)
static void cntResidual( const cnSolverProblem* p, const int* rows, int count, const double* lambda,
                         double* w )
{
    size_t n = 6 * (size_t)p->bodyCount;
    double* v = calloc( n + 1, sizeof( double ) );
    double* row = calloc( n + 1, sizeof( double ) );
    cntVelocity( p, lambda, NULL, v, NULL );
    for ( int r = 0; r < count; ++r )
    {
        int i = rows[r];
        cntDenseRow( p, i, row );
        double s = p->b[i] + ( p->softness != NULL ? p->softness[i] * lambda[i] : 0.0 );
        for ( size_t k = 0; k < n; ++k )
        {
            s += row[k] * v[k];
        }
        w[r] = s;
    }
    free( v );
    free( row );
}

// |w_F| / |b_F|
static double cntRelativeResidual( const cnSolverProblem* p, const int* rows, int count,
                                   const double* lambda )
{
    double* w = calloc( (size_t)count + 1, sizeof( double ) );
    cntResidual( p, rows, count, lambda, w );
    double residual = 0.0;
    double scale = 0.0;
    for ( int r = 0; r < count; ++r )
    {
        residual += w[r] * w[r];
        scale += p->b[rows[r]] * p->b[rows[r]];
    }
    free( w );
    return scale > 0.0 ? sqrt( residual / scale ) : sqrt( residual );
}

// |w_F| in the norm of (A_F)^-1, the one every exact block step lowers (|b_F| at lambda = 0)
static double cntEnergyResidual( const cnSolverProblem* p, const int* rows, int count, const double* lambda )
{
    double* w = calloc( (size_t)count + 1, sizeof( double ) );
    cntResidual( p, rows, count, lambda, w );
    double* a = cntBuildMatrix( p, rows, count );
    double norm = NAN;
    if ( cntCholesky( a, count ) )
    {
        cntForward( a, count, w );
        norm = 0.0;
        for ( int r = 0; r < count; ++r )
        {
            norm += w[r] * w[r];
        }
        norm = sqrt( norm );
    }
    free( a );
    free( w );
    return norm;
}

// the worst |deltaVelocity - W J^T lambda| over the size of its terms (every component)
static double cntVelocityError( const cnSolverProblem* p, const double* lambda, const double* deltaVelocity )
{
    size_t n = 6 * (size_t)p->bodyCount;
    double* v = calloc( n + 1, sizeof( double ) );
    double* scale = calloc( n + 1, sizeof( double ) );
    cntVelocity( p, lambda, NULL, v, scale );
    double worst = 0.0;
    for ( size_t k = 0; k < n; ++k )
    {
        double error = fabs( deltaVelocity[k] - v[k] );
        worst = fmax( worst, scale[k] > 0.0 ? error / scale[k] : ( error > 0.0 ? INFINITY : 0.0 ) );
    }
    free( v );
    free( scale );
    return worst;
}

// |x_F - y| / |y| (x over every row, y over F)
static double cntRelativeGap( const int* rows, int count, const double* x, const double* y )
{
    double gap = 0.0;
    double size = 0.0;
    for ( int r = 0; r < count; ++r )
    {
        gap += ( x[rows[r]] - y[r] ) * ( x[rows[r]] - y[r] );
        size += y[r] * y[r];
    }
    return size > 0.0 ? sqrt( gap / size ) : sqrt( gap );
}

// |u - v| / |v| over n entries
static double cntVectorGap( const double* u, const double* v, int n )
{
    double gap = 0.0;
    double size = 0.0;
    for ( int k = 0; k < n; ++k )
    {
        gap += ( u[k] - v[k] ) * ( u[k] - v[k] );
        size += v[k] * v[k];
    }
    return size > 0.0 ? sqrt( gap / size ) : sqrt( gap );
}

// ---- units and block Gauss-Seidel, independently ------------------------------------------------------

// The units as bilateral.h describes them, found here from the groups: a group's free rows; the
// groups of one pair of dynamic bodies merged in group order while the unit has at most
// CN_BILATERAL_MAX_ROWS rows; units in the order of their first group; a unit joining two
// dynamic bodies already connected by earlier units is a loop unit.
typedef struct cntUnits
{
    int count;
    int loops;
    int unitOf[CNT_MAX_ROWS]; // per free row (index into F)
    int rows[CNT_MAX_GROUPS];
    int a[CNT_MAX_GROUPS];
    int b[CNT_MAX_GROUPS]; // -1 for a pendant
    bool loop[CNT_MAX_GROUPS];
} cntUnits;

static int cntRoot( int* parent, int i )
{
    while ( parent[i] != i )
    {
        i = parent[i];
    }
    return i;
}

static void cntFindUnits( const cnSolverProblem* p, const int* rows, int count, cntUnits* units )
{
    memset( units, 0, sizeof( *units ) );
    int next = 0;
    for ( int g = 0; g < p->groupCount; ++g )
    {
        const cnRowGroup* group = p->groups + g;
        int first = group->firstRow;
        int freeCount = 0;
        for ( int i = first; group->kind == cn_groupBilateral && i < first + group->rowCount; ++i )
        {
            freeCount += cntIsFree( p, i ) ? 1 : 0;
        }
        if ( freeCount == 0 )
        {
            continue;
        }
        int a = p->bodyA[first];
        int b = p->bodyB[first];
        int lo = a < 0 ? b : b < 0 ? a : ( a < b ? a : b );
        int hi = a < 0 || b < 0 ? -1 : ( a < b ? b : a );
        int unit = -1;
        for ( int u = units->count - 1; u >= 0 && hi >= 0 && unit < 0; --u )
        {
            if ( units->a[u] == lo && units->b[u] == hi )
            {
                unit = u; // the pair's latest unit
            }
        }
        if ( unit < 0 || units->rows[unit] + freeCount > CN_BILATERAL_MAX_ROWS )
        {
            unit = units->count++;
            units->a[unit] = lo;
            units->b[unit] = hi;
        }
        units->rows[unit] += freeCount;
        for ( int i = first; i < first + group->rowCount; ++i )
        {
            if ( cntIsFree( p, i ) )
            {
                ck_assert_int_eq( rows[next], i );
                units->unitOf[next++] = unit;
            }
        }
    }
    ck_assert_int_eq( next, count );
    int parent[CNT_MAX_BODIES];
    for ( int i = 0; i < p->bodyCount; ++i )
    {
        parent[i] = i;
    }
    for ( int u = 0; u < units->count; ++u )
    {
        if ( units->b[u] >= 0 )
        {
            int ra = cntRoot( parent, units->a[u] );
            int rb = cntRoot( parent, units->b[u] );
            units->loop[u] = ra == rb;
            parent[ra] = rb;
            units->loops += ra == rb ? 1 : 0;
        }
    }
}

// x = -(A_SS)^-1 (b_S + A_S,notS x_notS) on the rows of F with pick[r] (A the dense A_F + S_F)
static void cntSolveBlock( const double* a, const double* b, int count, const bool* pick, double* x )
{
    int* index = calloc( (size_t)count + 1, sizeof( int ) );
    int n = 0;
    for ( int r = 0; r < count; ++r )
    {
        if ( pick[r] )
        {
            index[n++] = r;
        }
    }
    double* block = calloc( (size_t)n * (size_t)n + 1, sizeof( double ) );
    double* y = calloc( (size_t)n + 1, sizeof( double ) );
    for ( int r = 0; r < n; ++r )
    {
        double s = b[index[r]];
        for ( int c = 0; c < count; ++c )
        {
            s += pick[c] ? 0.0 : a[index[r] * count + c] * x[c];
        }
        y[r] = -s;
        for ( int c = 0; c < n; ++c )
        {
            block[r * n + c] = a[index[r] * count + index[c]];
        }
    }
    ck_assert( cntCholesky( block, n ) );
    cntForward( block, n, y );
    cntBackward( block, n, y );
    for ( int r = 0; r < n; ++r )
    {
        x[index[r]] = y[r];
    }
    free( index );
    free( block );
    free( y );
}

// `rounds` passes of block Gauss-Seidel from x = 0: the tree units' rows together, exactly, then
// each loop unit in order (one pass when there is no loop unit)
static void cntDenseGaussSeidel( const cnSolverProblem* p, const int* rows, int count, const cntUnits* units,
                                 int rounds, double* x )
{
    double* a = cntBuildMatrix( p, rows, count );
    double* b = calloc( (size_t)count + 1, sizeof( double ) );
    bool* pick = calloc( (size_t)count + 1, sizeof( bool ) );
    for ( int r = 0; r < count; ++r )
    {
        b[r] = p->b[rows[r]];
        x[r] = 0.0;
    }
    int passes = units->loops > 0 ? rounds : 1;
    for ( int pass = 0; pass < passes; ++pass )
    {
        for ( int r = 0; r < count; ++r )
        {
            pick[r] = !units->loop[units->unitOf[r]];
        }
        cntSolveBlock( a, b, count, pick, x );
        for ( int u = 0; u < units->count; ++u )
        {
            if ( units->loop[u] )
            {
                for ( int r = 0; r < count; ++r )
                {
                    pick[r] = units->unitOf[r] == u;
                }
                cntSolveBlock( a, b, count, pick, x );
            }
        }
    }
    free( a );
    free( b );
    free( pick );
}

// ---- random problems -----------------------------------------------------------------------------------

// One group to lay out: its kind, bodies, free rows and other rows (limited bilateral rows, or the
// rows of a contact, normal or bounded group, all left with infinite bounds: only the kind says
// they are not free bilateral rows).
typedef struct cntSpec
{
    cnGroupKind kind;
    int a;
    int b;
    int freeRows;
    int otherRows;
} cntSpec;

typedef struct cntTree
{
    cntJoints* joints;
    int units;    // units the module should find: dynamic pairs with free rows, pendant groups
    int attempts; // problems drawn to find a well-posed one
} cntTree;

// charge `rows` free rows to body a, what does not fit to b (b < 0: none); the rows that fit
static int cntCharge( int* budget, int a, int b, int rows )
{
    int first = rows < budget[a] ? rows : budget[a];
    int second = b >= 0 ? ( rows - first < budget[b] ? rows - first : budget[b] ) : 0;
    budget[a] -= first;
    if ( b >= 0 )
    {
        budget[b] -= second;
    }
    return first + second;
}

// A random tree of joints on `bodies` bodies: each body i > 0 joined to an earlier one by a group
// of 1 to 6 free rows, pendant groups to static, more groups on the tree's pairs (merged into one
// unit each, at most 12 rows), `loops` groups that close loops, groups the solve must ignore,
// random b and softness, the groups shuffled. Every free row is charged to one of its bodies and
// no body takes more than CNT_BODY_ROWS, so J has full row rank.
static cntTree cntDrawTree( uint64_t seed, int bodies, int loops )
{
    cntRandom random = { seed * 0x9e3779b97f4a7c15u + 17u };
    cntJoints* j = cntCreateJoints( bodies );
    cntRandomBodies( j, &random, -2.0, 2.0 );
    int parent[CNT_MAX_BODIES];
    int budget[CNT_MAX_BODIES];
    int pairRows[CNT_MAX_BODIES]; // free rows between i and parent[i]
    static cntSpec specs[CNT_MAX_GROUPS];
    int specCount = 0;
    int units = 0;
    for ( int i = 0; i < bodies; ++i )
    {
        parent[i] = i > 0 ? cntRandomInt( &random, i ) : -1;
        budget[i] = CNT_BODY_ROWS;
        pairRows[i] = 0;
    }
    // the tree's edges, either way round
    for ( int i = 1; i < bodies; ++i )
    {
        int rows = cntCharge( budget, i, parent[i], 1 + cntRandomInt( &random, 6 ) );
        ck_assert_int_gt( rows, 0 );
        pairRows[i] = rows;
        bool flip = cntUniform( &random ) < 0.5;
        int other = cntUniform( &random ) < 0.3 ? cntRandomInt( &random, 7 - rows ) : 0;
        specs[specCount++] =
            ( cntSpec ){ cn_groupBilateral, flip ? parent[i] : i, flip ? i : parent[i], rows, other };
        units += 1;
    }
    // pendants to static, on either side
    int pendants = cntRandomInt( &random, bodies + 2 );
    for ( int k = 0; k < pendants; ++k )
    {
        int body = cntRandomInt( &random, bodies );
        int rows =
            budget[body] > 0 ? cntCharge( budget, body, -1, 1 + cntRandomInt( &random, budget[body] ) ) : 0;
        if ( rows == 0 )
        {
            continue;
        }
        bool flip = cntUniform( &random ) < 0.5;
        int other = cntUniform( &random ) < 0.3 ? cntRandomInt( &random, 7 - rows ) : 0;
        specs[specCount++] =
            ( cntSpec ){ cn_groupBilateral, flip ? -1 : body, flip ? body : -1, rows, other };
        units += 1;
    }
    // more joints on the tree's pairs: one unit with the edge's
    int merges = bodies > 1 ? cntRandomInt( &random, bodies / 2 + 2 ) : 0;
    for ( int k = 0; k < merges; ++k )
    {
        int i = 1 + cntRandomInt( &random, bodies - 1 );
        int room = 12 - pairRows[i] < 6 ? 12 - pairRows[i] : 6;
        int rows = room > 0 ? cntCharge( budget, i, parent[i], 1 + cntRandomInt( &random, room ) ) : 0;
        if ( rows == 0 )
        {
            continue;
        }
        pairRows[i] += rows;
        bool flip = cntUniform( &random ) < 0.5;
        specs[specCount++] =
            ( cntSpec ){ cn_groupBilateral, flip ? parent[i] : i, flip ? i : parent[i], rows, 0 };
    }
    // joints that close loops: between two bodies not joined yet
    int joined[2 * CNT_MAX_BODIES][2];
    int joinedCount = 0;
    for ( int k = 0; k < loops * 8 && joinedCount < loops && bodies > 2; ++k )
    {
        int a = cntRandomInt( &random, bodies );
        int b = cntRandomInt( &random, bodies );
        bool taken = a == b || parent[a] == b || parent[b] == a;
        for ( int m = 0; m < joinedCount && !taken; ++m )
        {
            taken = ( joined[m][0] == a && joined[m][1] == b ) || ( joined[m][0] == b && joined[m][1] == a );
        }
        int rows = taken ? 0 : cntCharge( budget, a, b, 1 + cntRandomInt( &random, 6 ) );
        if ( rows == 0 )
        {
            continue;
        }
        joined[joinedCount][0] = a;
        joined[joinedCount][1] = b;
        joinedCount += 1;
        specs[specCount++] = ( cntSpec ){ cn_groupBilateral, a, b, rows, 0 };
        units += 1;
    }
    // groups to ignore, on any pair (closing loops too, or on static)
    int ignored = cntRandomInt( &random, bodies + 3 );
    for ( int k = 0; k < ignored; ++k )
    {
        int a = cntRandomInt( &random, bodies + 1 ) - 1;
        int b = cntRandomInt( &random, bodies + 1 ) - 1;
        if ( a == b )
        {
            a = -1;
            b = cntRandomInt( &random, bodies );
        }
        static const cnGroupKind kinds[4] = { cn_groupContact, cn_groupNormal, cn_groupBounded,
                                              cn_groupBilateral };
        cnGroupKind kind = kinds[cntRandomInt( &random, 4 )];
        int rows = kind == cn_groupContact     ? 3
                   : kind == cn_groupBilateral ? 1 + cntRandomInt( &random, 6 )
                                               : 1;
        specs[specCount++] = ( cntSpec ){ kind, a, b, 0, rows };
    }
    // shuffled
    for ( int k = specCount - 1; k > 0; --k )
    {
        int m = cntRandomInt( &random, k + 1 );
        cntSpec swap = specs[k];
        specs[k] = specs[m];
        specs[m] = swap;
    }
    // the softness: none, zeros, or random (zero on some rows)
    int softness = cntRandomInt( &random, 3 );
    if ( softness > 0 )
    {
        cntUseSoftness( j );
    }
    for ( int k = 0; k < specCount; ++k )
    {
        const cntSpec* spec = specs + k;
        int rows = spec->freeRows + spec->otherRows;
        int first = cntAddGroup( j, &random, spec->kind, spec->a, spec->b, rows );
        // which rows are not free: `otherRows` of them at random places
        bool limited[CN_MAX_GROUP_ROWS] = { false };
        for ( int m = 0; m < spec->otherRows; ++m )
        {
            int at = cntRandomInt( &random, rows );
            while ( limited[at] )
            {
                at = ( at + 1 ) % rows;
            }
            limited[at] = true;
        }
        for ( int m = 0; m < rows; ++m )
        {
            if ( limited[m] && spec->kind == cn_groupBilateral )
            {
                cntLimitRow( j, &random, first + m );
            }
            if ( softness == 2 && cntUniform( &random ) < 0.8 )
            {
                j->softness[first + m] = pow( 10.0, cntRange( &random, -3.0, 0.0 ) );
            }
        }
    }
    const char* why = NULL;
    ck_assert_msg( cnValidateProblem( &j->problem, &why ), "seed %llu: %s", (unsigned long long)seed,
                   why != NULL ? why : "" );
    return ( cntTree ){ j, units, 1 };
}

// A well-posed random tree: drawn again (from the next seed of its stream) while some row's pivot
// could fall below 1e-4 of its diagonal in some elimination order (the module drops a row below
// 1e-6: such a problem would test its threshold, not its solve).
static cntTree cntCreateTree( uint64_t seed, int bodies, int loops )
{
    for ( int attempt = 0; attempt < 50; ++attempt )
    {
        cntTree tree = cntDrawTree( seed + 100003u * (uint64_t)attempt, bodies, loops );
        const cnSolverProblem* p = &tree.joints->problem;
        int* rows = calloc( (size_t)p->rowCount + 1, sizeof( int ) );
        double* x = calloc( (size_t)p->rowCount + 1, sizeof( double ) );
        int count = cntFreeRows( p, rows );
        double worst = 0.0;
        bool ok = cntDenseSolve( p, rows, count, NULL, x, &worst ) && worst >= 1e-4;
        free( rows );
        free( x );
        if ( ok )
        {
            tree.attempts = attempt + 1;
            return tree;
        }
        free( tree.joints );
    }
    ck_abort_msg( "no well-posed problem for seed %llu", (unsigned long long)seed );
    return ( cntTree ){ NULL, 0, 0 };
}

// A ring of `bodies` bodies, each joined to the next by a group of `rows` free rows, with a pendant
// of 2 rows to static on body 0 and a contact beside each joint; the groups in a random order.
// Without softness (3 rows a joint on 6 DOF a body: J has full row rank).
static cntJoints* cntCreateRing( uint64_t seed, int bodies, int rows )
{
    cntRandom random = { seed };
    cntJoints* j = cntCreateJoints( bodies );
    cntRandomBodies( j, &random, -1.0, 1.0 );
    int order[2 * CNT_MAX_BODIES + 1];
    int count = 2 * bodies + 1;
    for ( int k = 0; k < count; ++k )
    {
        order[k] = k;
    }
    for ( int k = count - 1; k > 0; --k )
    {
        int m = cntRandomInt( &random, k + 1 );
        int swap = order[k];
        order[k] = order[m];
        order[m] = swap;
    }
    for ( int k = 0; k < count; ++k )
    {
        int e = order[k];
        if ( e == 2 * bodies )
        {
            cntAddGroup( j, &random, cn_groupBilateral, -1, 0, 2 );
        }
        else if ( e < bodies )
        {
            cntAddGroup( j, &random, cn_groupBilateral, e, ( e + 1 ) % bodies, rows );
        }
        else
        {
            cntAddGroup( j, &random, cn_groupContact, e - bodies, ( e - bodies + 1 ) % bodies, 3 );
        }
    }
    return j;
}

static cnArena s_arena;

static void setup( void )
{
    cnCreateArena( &s_arena, NULL, 4096 );
}

static void teardown( void )
{
    cnDestroyArena( &s_arena );
}

// the number of bodies of tree `seed`: 1 to 40 for the first 40, then random in 1 .. 40
static int cntTreeBodies( int seed )
{
    cntRandom sizes = { 1000u + (uint64_t)seed };
    return seed < 40 ? 1 + seed : 1 + cntRandomInt( &sizes, 40 );
}

// ---- random trees through the layer --------------------------------------------------------------

#define CNT_TREES 160

// Random trees through the layer: the free rows solved exactly in one pass (the dense residual and
// the dense solution), every other row's impulse 0, deltaVelocity W J^T lambda; more rounds change
// nothing on a tree, nor does scratch from the C library.
START_TEST( random_trees_match_a_dense_solve )
{
    int failures = 0;
    int firstFailure = -1;
    double worstResidual = 0.0;
    double worstGap = 0.0;
    double worstVelocity = 0.0;
    int largest = 0;
    int attempts = 0;
    for ( int seed = 0; seed < CNT_TREES; ++seed )
    {
        int bodies = cntTreeBodies( seed );
        cntTree tree = cntCreateTree( (uint64_t)seed, bodies, 0 );
        attempts += tree.attempts;
        const cnSolverProblem* p = &tree.joints->problem;
        int n = p->rowCount;
        int* rows = calloc( (size_t)n + 1, sizeof( int ) );
        int count = cntFreeRows( p, rows );
        largest = count > largest ? count : largest;
        double* lambda = calloc( (size_t)n + 1, sizeof( double ) );
        double* again = calloc( (size_t)n + 1, sizeof( double ) );
        double* dv = calloc( 6 * (size_t)bodies, sizeof( double ) );
        double* dvAgain = calloc( 6 * (size_t)bodies, sizeof( double ) );
        double* x = calloc( (size_t)count + 1, sizeof( double ) );
        // garbage in: every entry is written
        for ( int i = 0; i < n; ++i )
        {
            lambda[i] = 3.0;
        }
        for ( int k = 0; k < 6 * bodies; ++k )
        {
            dv[k] = -5.0;
        }
        cnArenaReset( &s_arena );
        int solved = cnLayerSolveBilateral( p, &s_arena, 1, lambda, dv );
        bool dense = cntDenseSolve( p, rows, count, NULL, x, NULL );
        double residual = cntRelativeResidual( p, rows, count, lambda );
        double gap = cntRelativeGap( rows, count, lambda, x );
        double velocity = cntVelocityError( p, lambda, dv );
        worstResidual = fmax( worstResidual, residual );
        worstGap = fmax( worstGap, gap );
        worstVelocity = fmax( worstVelocity, velocity );
        bool bad =
            solved != count || !dense || !( residual <= 1e-9 ) || !( gap <= 1e-8 ) || !( velocity <= 1e-12 );
        // the other rows' impulses zero
        int next = 0;
        for ( int i = 0; i < n; ++i )
        {
            bool isFree = next < count && rows[next] == i;
            next += isFree ? 1 : 0;
            bad = bad || ( !isFree && lambda[i] != 0.0 ) || !isfinite( lambda[i] );
        }
        // more rounds change nothing on a tree; nor does scratch from the C library
        for ( int variant = 0; variant < 2; ++variant )
        {
            cnArenaReset( &s_arena );
            int solvedAgain = variant == 0 ? cnLayerSolveBilateral( p, &s_arena, 7, again, dvAgain )
                                           : cnLayerSolveBilateral( p, NULL, 1, again, dvAgain );
            bad = bad || solvedAgain != count || memcmp( again, lambda, (size_t)n * sizeof( double ) ) != 0 ||
                  memcmp( dvAgain, dv, 6 * (size_t)bodies * sizeof( double ) ) != 0;
        }
        if ( bad )
        {
            failures += 1;
            firstFailure = firstFailure < 0 ? seed : firstFailure;
        }
        free( rows );
        free( lambda );
        free( again );
        free( dv );
        free( dvAgain );
        free( x );
        free( tree.joints );
    }
    ck_assert_msg(
        failures == 0,
        "%d of %d trees failed (first: seed %d); worst residual %.3g, gap to the dense solve %.3g, "
        "velocity error %.3g",
        failures, CNT_TREES, firstFailure, worstResidual, worstGap, worstVelocity );
    // the test's own problems: large enough, and few drawn again
    ck_assert_int_ge( largest, 100 );
    ck_assert_int_le( attempts, CNT_TREES + CNT_TREES / 2 );
}
END_TEST

// ---- loops ------------------------------------------------------------------------------------------

// the module's units against the ones found here: the same rows in each, the loop units last
static bool cntSameUnits( const cnBilateral* bl, const int* rows, int count, const cntUnits* units )
{
    if ( bl->unitCount != units->count || bl->treeCount != units->count - units->loops ||
         bl->rowCount != count )
    {
        return false;
    }
    bool same = true;
    for ( int u = 0; u < bl->unitCount && same; ++u )
    {
        const cnBilateralUnit* unit = bl->units + u;
        // the unit here holding its first row
        int at = -1;
        for ( int r = 0; r < count; ++r )
        {
            at = rows[r] == bl->rows[unit->firstRow] ? r : at;
        }
        int mine = at >= 0 ? units->unitOf[at] : -1;
        same =
            mine >= 0 && units->rows[mine] == unit->rowCount && units->loop[mine] == ( u >= bl->treeCount );
        for ( int k = unit->firstRow; k < unit->firstRow + unit->rowCount && same; ++k )
        {
            int r = 0;
            while ( r < count && rows[r] != bl->rows[k] )
            {
                ++r;
            }
            same = r < count && units->unitOf[r] == mine && !bl->dropped[k];
        }
    }
    return same;
}

// One problem with loops: the module's units; lambda after 1, 2, 5 and 200 rounds against a dense
// block Gauss-Seidel of the same blocks in the same order; deltaVelocity W J^T lambda; one round
// lowers the residual (in the norm of A^-1, which every exact block step lowers) and the energy
// 1/2 lambda^T (A + S) lambda + b^T lambda never rises from round to round. `loops`: the loop
// units found; `converged`: the residual after 200 rounds (NaN when the dense passes do not reach
// 1e-10 in 200 rounds: then nothing is asked of it). Returns the first failure, or NULL.
static const char* cntCheckLoops( const cnSolverProblem* p, double* converged, int* loops )
{
    int n = p->rowCount;
    int bodies = p->bodyCount;
    int* rows = calloc( (size_t)n + 1, sizeof( int ) );
    int count = cntFreeRows( p, rows );
    cntUnits* units = calloc( 1, sizeof( cntUnits ) );
    cntFindUnits( p, rows, count, units );
    *loops = units->loops;
    double* lambda = calloc( (size_t)n + 1, sizeof( double ) );
    double* dv = calloc( 6 * (size_t)bodies, sizeof( double ) );
    double* x = calloc( (size_t)count + 1, sizeof( double ) );
    const char* failure = NULL;
    *converged = NAN;

    cnArenaReset( &s_arena );
    cnScratch scratch = { .arena = &s_arena };
    cnBilateral bl;
    ck_assert( cnBilateralBuild( p, &scratch, &bl ) );
    cnBilateralFactor( &bl, p );
    if ( !cntSameUnits( &bl, rows, count, units ) || !bl.factored )
    {
        failure = "units";
    }

    static const int rounds[4] = { 1, 2, 5, 200 };
    for ( int k = 0; k < 4 && failure == NULL; ++k )
    {
        cnArenaReset( &s_arena );
        int solved = cnLayerSolveBilateral( p, &s_arena, rounds[k], lambda, dv );
        cntDenseGaussSeidel( p, rows, count, units, rounds[k], x );
        double gap = cntRelativeGap( rows, count, lambda, x );
        if ( solved != count || !( gap <= 1e-8 ) )
        {
            failure = "lambda against the dense passes";
        }
        else if ( !( cntVelocityError( p, lambda, dv ) <= 1e-12 ) )
        {
            failure = "deltaVelocity";
        }
        else if ( rounds[k] == 1 )
        {
            double* zero = calloc( (size_t)n + 1, sizeof( double ) );
            double start = cntEnergyResidual( p, rows, count, zero );
            free( zero );
            double one = cntEnergyResidual( p, rows, count, lambda );
            failure = isfinite( cntRelativeResidual( p, rows, count, lambda ) ) && one < start
                          ? NULL
                          : "one round did not lower the residual";
        }
        else if ( rounds[k] == 200 )
        {
            double* lambdaDense = calloc( (size_t)n + 1, sizeof( double ) );
            for ( int r = 0; r < count; ++r )
            {
                lambdaDense[rows[r]] = x[r];
            }
            double reached = cntRelativeResidual( p, rows, count, lambdaDense );
            free( lambdaDense );
            if ( reached <= 1e-10 )
            {
                *converged = cntRelativeResidual( p, rows, count, lambda );
                failure = *converged <= 1e-8 ? NULL : "200 rounds did not converge";
            }
        }
    }
    // the energy falls with the first round and never rises after (block Gauss-Seidel on a positive
    // definite matrix)
    double previous = 0.0;
    double* a = cntBuildMatrix( p, rows, count );
    for ( int k = 1; k <= 6 && failure == NULL; ++k )
    {
        cnArenaReset( &s_arena );
        cnLayerSolveBilateral( p, &s_arena, k, lambda, dv );
        double f = 0.0;
        for ( int r = 0; r < count; ++r )
        {
            double s = 0.0;
            for ( int c = 0; c < count; ++c )
            {
                s += a[r * count + c] * lambda[rows[c]];
            }
            f += 0.5 * lambda[rows[r]] * s + p->b[rows[r]] * lambda[rows[r]];
        }
        bool falls = k == 1 ? f < 0.0 : f <= previous + 1e-12 * fabs( previous );
        failure = falls ? NULL : "the energy rose";
        previous = f;
    }
    free( a );
    free( rows );
    free( units );
    free( lambda );
    free( dv );
    free( x );
    return failure;
}

// Rings of 5 bodies (and 3 to 8) with 3-row joints, four tree units and one loop unit; then random
// trees with 1 to 4 joints closing loops. Where the dense passes converge in 200 rounds the
// module's do; half the rings at least (the rate of the passes is the problem's, not the module's).
START_TEST( loops_match_dense_block_gauss_seidel )
{
    int failures = 0;
    char what[200] = "";
    int rings = 0;
    int ringsConverged = 0;
    int withLoops = 0;
    for ( int seed = 0; seed < 24; ++seed )
    {
        int bodies = seed < 12 ? 5 : 3 + seed % 6;
        cntJoints* j = cntCreateRing( 4242u + (uint64_t)seed, bodies, 3 );
        double converged = NAN;
        int loops = 0;
        const char* failure = cntCheckLoops( &j->problem, &converged, &loops );
        failure = failure == NULL && loops != 1 ? "a ring is not one loop unit" : failure;
        rings += 1;
        ringsConverged += converged <= 1e-8 ? 1 : 0;
        if ( failure != NULL && failures++ == 0 )
        {
            snprintf( what, sizeof( what ), "ring %d of %d bodies: %s", seed, bodies, failure );
        }
        free( j );
    }
    for ( int seed = 0; seed < 40; ++seed )
    {
        int bodies = 3 + seed % 28;
        cntTree tree = cntCreateTree( 5000u + (uint64_t)seed, bodies, 1 + seed % 4 );
        double converged = NAN;
        int loops = 0;
        const char* failure = cntCheckLoops( &tree.joints->problem, &converged, &loops );
        withLoops += loops > 0 ? 1 : 0;
        if ( failure != NULL && failures++ == 0 )
        {
            snprintf( what, sizeof( what ), "tree with loops %d of %d bodies: %s", seed, bodies, failure );
        }
        free( tree.joints );
    }
    ck_assert_msg( failures == 0, "%d problems failed; first: %s", failures, what );
    ck_assert_int_ge( 2 * ringsConverged, rings );
    ck_assert_int_ge( withLoops, 30 );
}
END_TEST

// ---- redundant rows ---------------------------------------------------------------------------------

// A new group of `rows` rows, each a combination of group g's rows through m (rows x g's rows, row
// major; NULL: the identity): J and b alike, so the new rows are dependent and consistent. With
// `swap` the bodies and their Jacobians change sides. Returns its first row.
static int cntAddCombination( cntJoints* j, int g, int rows, const double* m, bool swap )
{
    cnSolverProblem* p = &j->problem;
    const cnRowGroup source = p->groups[g];
    int first = p->rowCount;
    ck_assert_int_le( first + rows, CNT_MAX_ROWS );
    p->groups[p->groupCount++] =
        ( cnRowGroup ){ .firstRow = first, .rowCount = rows, .kind = cn_groupBilateral };
    for ( int r = 0; r < rows; ++r )
    {
        int i = first + r;
        j->bodyA[i] = swap ? j->bodyB[source.firstRow] : j->bodyA[source.firstRow];
        j->bodyB[i] = swap ? j->bodyA[source.firstRow] : j->bodyB[source.firstRow];
        j->lower[i] = -(double)INFINITY;
        j->upper[i] = (double)INFINITY;
        j->softness[i] = 0.0;
        j->b[i] = 0.0;
        double ja[6] = { 0 };
        double jb[6] = { 0 };
        for ( int k = 0; k < source.rowCount; ++k )
        {
            int s = source.firstRow + k;
            double c = m != NULL ? m[r * source.rowCount + k] : ( r == k ? 1.0 : 0.0 );
            j->b[i] += c * j->b[s];
            for ( int e = 0; e < 6; ++e )
            {
                ja[e] += c * j->jacobianA[6 * s + e];
                jb[e] += c * j->jacobianB[6 * s + e];
            }
        }
        memcpy( j->jacobianA + 6 * i, swap ? jb : ja, sizeof( ja ) );
        memcpy( j->jacobianB + 6 * i, swap ? ja : jb, sizeof( jb ) );
    }
    p->rowCount += rows;
    return first;
}

// the free rows with redundant[i] false (the reduced, positive definite problem)
static int cntIndependentRows( const cnSolverProblem* p, const bool* redundant, int* rows )
{
    int all[CNT_MAX_ROWS];
    int count = cntFreeRows( p, all );
    int kept = 0;
    for ( int r = 0; r < count; ++r )
    {
        if ( !redundant[all[r]] )
        {
            rows[kept++] = all[r];
        }
    }
    return kept;
}

// The solve of a problem with redundant rows (flagged; `consistent` when their b agrees with the
// rows they repeat) against the reduced problem without them: finite impulses, at most ten times
// the reduced problem's; the velocity W J^T lambda, which is unique, the reduced problem's; the
// free rows' residual 0 (the independent rows' only, when inconsistent); `dropped` rows dropped by
// the factor, their impulses 0. Returns the first failure, or NULL.
static const char* cntCheckRedundant( const cnSolverProblem* p, const bool* redundant, bool consistent,
                                      int dropped, int rounds )
{
    int n = p->rowCount;
    int bodies = p->bodyCount;
    int all[CNT_MAX_ROWS];
    int kept[CNT_MAX_ROWS];
    int count = cntFreeRows( p, all );
    int keptCount = cntIndependentRows( p, redundant, kept );
    double x[CNT_MAX_ROWS];
    double worst = 0.0;
    ck_assert( cntDenseSolve( p, kept, keptCount, NULL, x, &worst ) );
    ck_assert_msg( worst > 1e-4, "the reduced problem is ill-posed: %g", worst );
    double reduced[CNT_MAX_ROWS] = { 0 };
    double biggest = 0.0;
    for ( int r = 0; r < keptCount; ++r )
    {
        reduced[kept[r]] = x[r];
        biggest = fmax( biggest, fabs( x[r] ) );
    }
    double vReference[6 * CNT_MAX_BODIES];
    cntVelocity( p, reduced, NULL, vReference, NULL );

    double lambda[CNT_MAX_ROWS];
    double dv[6 * CNT_MAX_BODIES];
    cnArenaReset( &s_arena );
    if ( cnLayerSolveBilateral( p, &s_arena, rounds, lambda, dv ) != count )
    {
        return "rows solved";
    }
    for ( int i = 0; i < n; ++i )
    {
        if ( !isfinite( lambda[i] ) || !( fabs( lambda[i] ) <= 10.0 * biggest + 1.0 ) )
        {
            return "impulses not finite or exploding";
        }
    }
    if ( !( cntVectorGap( dv, vReference, 6 * bodies ) <= 1e-8 ) ||
         !( cntVelocityError( p, lambda, dv ) <= 1e-12 ) )
    {
        return "velocity against the reduced problem's";
    }
    double residual = consistent ? cntRelativeResidual( p, all, count, lambda )
                                 : cntRelativeResidual( p, kept, keptCount, lambda );
    if ( !( residual <= 1e-9 ) )
    {
        return "residual";
    }
    // the rows the factor dropped: as many as asked, their impulses 0
    cnArenaReset( &s_arena );
    cnScratch scratch = { .arena = &s_arena };
    cnBilateral bl;
    ck_assert( cnBilateralBuild( p, &scratch, &bl ) );
    cnBilateralFactor( &bl, p );
    int found = 0;
    for ( int r = 0; r < bl.rowCount; ++r )
    {
        found += bl.dropped[r] ? 1 : 0;
        if ( bl.dropped[r] && lambda[bl.rows[r]] != 0.0 )
        {
            return "a dropped row's impulse is not 0";
        }
    }
    return found == dropped ? NULL : "rows dropped";
}

// Two ball joints on one pair of bodies (one unit): the second a copy of the first, the copy with
// its sides swapped, combinations of the first's rows, a part of a 4-row joint; a tree with a copy
// of one joint and of one pendant; 12 rows on a pair and 2 more dependent ones (a second unit on
// the pair: a loop unit); and a copy whose b disagrees (no solution: the dependent rows are left).
START_TEST( redundant_rows_are_dropped )
{
    int failures = 0;
    char what[160] = "";
    for ( int c = 0; c < 7; ++c )
    {
        for ( int seed = 0; seed < 8; ++seed )
        {
            cntRandom random = { 900u + 31u * (uint64_t)c + (uint64_t)seed };
            cntJoints* j = NULL;
            bool redundant[CNT_MAX_ROWS] = { false };
            int dropped = 0;
            int rounds = 1;
            bool consistent = true;
            if ( c <= 3 || c == 6 )
            {
                j = cntCreateJoints( 2 );
                cntRandomBodies( j, &random, -1.0, 1.0 );
                int rows = c == 3 ? 4 : 3;
                bool flip = seed % 2 == 1;
                cntAddGroup( j, &random, cn_groupBilateral, flip ? 1 : 0, flip ? 0 : 1, rows );
                double m[12];
                for ( int k = 0; k < 12; ++k )
                {
                    m[k] = cntRange( &random, -1.0, 1.0 );
                }
                static const double pick[8] = { 0, 1, 0, 0, 0, 0, 0, 1 };
                int copy = c == 3 ? 2 : 3;
                int first = cntAddCombination( j, 0, copy,
                                               c == 2   ? m
                                               : c == 3 ? pick
                                                        : NULL,
                                               c == 1 || c == 3 );
                for ( int r = first; r < first + copy; ++r )
                {
                    redundant[r] = true;
                    j->b[r] += c == 6 ? 0.5 : 0.0;
                }
                dropped = copy;
                consistent = c != 6;
            }
            else if ( c == 4 )
            {
                // a well-posed tree without softness, then copies of an edge and of a pendant
                for ( int attempt = 0; j == NULL; ++attempt )
                {
                    ck_assert_int_lt( attempt, 40 );
                    cntTree tree =
                        cntCreateTree( 7000u + 97u * (uint64_t)seed + (uint64_t)attempt, 6 + seed, 0 );
                    j = tree.joints;
                    cnSolverProblem* p = &j->problem;
                    p->softness = NULL;
                    int edge = -1;
                    int pendant = -1;
                    for ( int g = 0; g < p->groupCount; ++g )
                    {
                        const cnRowGroup* group = p->groups + g;
                        int a = p->bodyA[group->firstRow];
                        int b = p->bodyB[group->firstRow];
                        bool allFree = group->kind == cn_groupBilateral;
                        for ( int i = group->firstRow; i < group->firstRow + group->rowCount; ++i )
                        {
                            allFree = allFree && cntIsFree( p, i );
                        }
                        // the pair's free rows
                        int pairRows = 0;
                        for ( int h = 0; h < p->groupCount; ++h )
                        {
                            const cnRowGroup* other = p->groups + h;
                            int oa = p->bodyA[other->firstRow];
                            int ob = p->bodyB[other->firstRow];
                            bool samePair = ( oa == a && ob == b ) || ( oa == b && ob == a );
                            for ( int i = other->firstRow; samePair && other->kind == cn_groupBilateral &&
                                                           i < other->firstRow + other->rowCount;
                                  ++i )
                            {
                                pairRows += cntIsFree( p, i ) ? 1 : 0;
                            }
                        }
                        if ( allFree && a >= 0 && b >= 0 && pairRows + group->rowCount <= 12 && edge < 0 )
                        {
                            edge = g;
                        }
                        if ( allFree && ( a < 0 || b < 0 ) && pendant < 0 )
                        {
                            pendant = g;
                        }
                    }
                    if ( edge < 0 || pendant < 0 )
                    {
                        free( j );
                        j = NULL;
                        continue;
                    }
                    int edgeRows = p->groups[edge].rowCount;
                    int pendantRows = p->groups[pendant].rowCount;
                    int first = cntAddCombination( j, edge, edgeRows, NULL, seed % 2 == 1 );
                    for ( int r = first; r < first + edgeRows; ++r )
                    {
                        redundant[r] = true;
                    }
                    first = cntAddCombination( j, pendant, pendantRows, NULL, false );
                    for ( int r = first; r < first + pendantRows; ++r )
                    {
                        redundant[r] = true;
                    }
                    dropped = edgeRows + pendantRows;
                    // the reduced problem well posed without the softness
                    int kept[CNT_MAX_ROWS];
                    int keptCount = cntIndependentRows( p, redundant, kept );
                    double x[CNT_MAX_ROWS];
                    double worst = 0.0;
                    if ( !cntDenseSolve( p, kept, keptCount, NULL, x, &worst ) || worst < 1e-4 )
                    {
                        free( j );
                        j = NULL;
                        memset( redundant, 0, sizeof( redundant ) );
                    }
                }
            }
            else
            {
                // 12 rows on a pair (one unit), 2 more combinations of the first 6: a loop unit
                j = cntCreateJoints( 2 );
                cntRandomBodies( j, &random, -0.5, 0.5 );
                cntAddGroup( j, &random, cn_groupBilateral, 0, 1, 6 );
                cntAddGroup( j, &random, cn_groupBilateral, 1, 0, 6 );
                double m[12];
                for ( int k = 0; k < 12; ++k )
                {
                    m[k] = cntRange( &random, -1.0, 1.0 );
                }
                int first = cntAddCombination( j, 0, 2, m, false );
                redundant[first] = redundant[first + 1] = true;
                dropped = 0; // a loop unit of its own: nothing vanishes in its block
                rounds = 3;
            }
            const char* failure = cntCheckRedundant( &j->problem, redundant, consistent, dropped, rounds );
            if ( failure != NULL && failures++ == 0 )
            {
                snprintf( what, sizeof( what ), "case %d, seed %d: %s", c, seed, failure );
            }
            free( j );
        }
    }
    ck_assert_msg( failures == 0, "%d problems failed; first: %s", failures, what );
}
END_TEST

// ---- no free bilateral rows ----------------------------------------------------------------------

// Problems without free bilateral rows (contacts, normal and bounded rows with infinite bounds,
// bilateral rows with finite or one-sided bounds; no rows; no bodies): 0 rows solved, zeros
// written; the module finds no unit and its step does nothing.
START_TEST( no_free_bilateral_rows_give_zeros )
{
    cntRandom random = { 31337u };
    for ( int c = 0; c < 3; ++c )
    {
        cntJoints* j = cntCreateJoints( c == 2 ? 0 : 3 );
        if ( c == 0 )
        {
            cntRandomBodies( j, &random, -1.0, 1.0 );
            cntUseSoftness( j );
            cntAddGroup( j, &random, cn_groupContact, 0, 1, 3 );
            cntAddGroup( j, &random, cn_groupNormal, -1, 2, 1 );
            cntAddGroup( j, &random, cn_groupBounded, 1, 2, 1 );
            int first = cntAddGroup( j, &random, cn_groupBilateral, 0, 2, 4 );
            for ( int i = first; i < first + 4; ++i )
            {
                cntLimitRow( j, &random, i );
            }
            j->lower[first] = -1.0; // one of each kind of limit
            j->upper[first] = (double)INFINITY;
            j->lower[first + 1] = -(double)INFINITY;
            j->upper[first + 1] = 2.0;
            j->lower[first + 2] = j->upper[first + 2] = 0.0;
            j->lower[first + 3] = -1.0;
            j->upper[first + 3] = 1.0;
            for ( int i = 0; i < j->problem.rowCount; ++i )
            {
                j->softness[i] = 0.1;
            }
        }
        const cnSolverProblem* p = &j->problem;
        const char* why = NULL;
        ck_assert_msg( cnValidateProblem( p, &why ), "%s", why != NULL ? why : "" );
        double lambda[16];
        double dv[24];
        for ( int k = 0; k < 16; ++k )
        {
            lambda[k] = 7.0;
        }
        for ( int k = 0; k < 24; ++k )
        {
            dv[k] = -7.0;
        }
        cnArenaReset( &s_arena );
        ck_assert_int_eq( cnLayerSolveBilateral( p, &s_arena, 5, lambda, dv ), 0 );
        for ( int i = 0; i < p->rowCount; ++i )
        {
            ck_assert( lambda[i] == 0.0 );
        }
        for ( int k = 0; k < 6 * p->bodyCount; ++k )
        {
            ck_assert( dv[k] == 0.0 );
        }
        ck_assert( lambda[p->rowCount] == 7.0 ); // nothing past the rows
        ck_assert( dv[6 * p->bodyCount] == -7.0 );
        ck_assert_int_eq( cnLayerSolveBilateral( p, NULL, 1, lambda, dv ), 0 );

        cnScratch scratch = { .arena = &s_arena };
        cnBilateral bl;
        ck_assert( cnBilateralBuild( p, &scratch, &bl ) );
        ck_assert_int_eq( bl.unitCount, 0 );
        ck_assert_int_eq( bl.rowCount, 0 );
        for ( int i = 0; i < p->rowCount; ++i )
        {
            lambda[i] = 1.0 + i;
        }
        double lambdaEnergy = 2.5;
        ck_assert( cnBilateralStep( &bl, p, lambda, dv, &lambdaEnergy ) == 0.0 );
        ck_assert( lambdaEnergy == 2.5 );
        for ( int i = 0; i < p->rowCount; ++i )
        {
            ck_assert( lambda[i] == 1.0 + i );
        }
        free( j );
    }
}
END_TEST

// ---- groups outside any unit ------------------------------------------------------------------------

// Free bilateral groups the module leaves to the sweeps (both sides on one body; no dynamic body,
// a soft row) beside a tree: valid problems. The units hold the tree's rows; rowCount is "rows in
// units", the layer returns the rows it solved, the tree's rows are solved exactly (the others keep
// 0) and the step's lambda energy sums the units' rows.
START_TEST( groups_outside_the_units_are_left_alone )
{
    cntRandom random = { 2718u };
    cntJoints* j = cntCreateJoints( 3 );
    cntRandomBodies( j, &random, -1.0, 1.0 );
    cntUseSoftness( j );
    cntAddGroup( j, &random, cn_groupBilateral, 0, 1, 3 );
    int self = cntAddGroup( j, &random, cn_groupBilateral, 1, 1, 2 );
    int none = cntAddGroup( j, &random, cn_groupBilateral, -1, -1, 1 );
    j->softness[none] = 0.5;
    cntAddGroup( j, &random, cn_groupBilateral, -1, 2, 2 );
    cntAddGroup( j, &random, cn_groupBilateral, 1, 2, 3 );
    const cnSolverProblem* p = &j->problem;
    const char* why = NULL;
    ck_assert_msg( cnValidateProblem( p, &why ), "%s", why != NULL ? why : "" );
    bool outside[CNT_MAX_ROWS] = { false };
    outside[self] = outside[self + 1] = outside[none] = true;
    int tree[CNT_MAX_ROWS];
    int treeCount = cntIndependentRows( p, outside, tree );
    ck_assert_int_eq( treeCount, 8 );

    cnScratch scratch = { .arena = NULL }; // the C library's: kept across the layer's solve below
    cnBilateral bl;
    ck_assert( cnBilateralBuild( p, &scratch, &bl ) );
    cnBilateralFactor( &bl, p );
    int inUnits = 0;
    for ( int u = 0; u < bl.unitCount; ++u )
    {
        inUnits += bl.units[u].rowCount;
    }
    ck_assert_int_eq( inUnits, treeCount );
    ck_assert_int_eq( bl.rowCount, inUnits );

    double lambda[CNT_MAX_ROWS];
    double dv[18];
    cnArenaReset( &s_arena );
    int solved = cnLayerSolveBilateral( p, &s_arena, 1, lambda, dv );
    CNT_ASSERT_ABS( cntRelativeResidual( p, tree, treeCount, lambda ), 0.0, 1e-9 );
    ck_assert( lambda[self] == 0.0 && lambda[self + 1] == 0.0 && lambda[none] == 0.0 );
    ck_assert_int_eq( solved, treeCount );

    // the step's lambda energy: the units' rows only
    double* a = cntBuildMatrix( p, tree, treeCount );
    double expected = 0.0;
    for ( int r = 0; r < treeCount; ++r )
    {
        expected += a[r * treeCount + r] * lambda[tree[r]] * lambda[tree[r]];
    }
    free( a );
    double lambdaEnergy = 0.0;
    cntVelocity( p, lambda, NULL, dv, NULL );
    cnBilateralStep( &bl, p, lambda, dv, &lambdaEnergy );
    CNT_ASSERT_REL( lambdaEnergy, expected, 1e-9 );
    cnScratchRelease( &scratch );
    free( j );
}
END_TEST

// ---- one step by hand ----------------------------------------------------------------------------

// The module directly on the trees of random_trees_match_a_dense_solve: the units found (pairs merged,
// pendants alone, the rows exactly the free rows, all of them tree units, none dropped), then one step from
// random impulses on every row with the velocity W J^T lambda: the free rows' w is 0 afterwards (their
// impulses the dense solution with the other rows' held), the other rows' impulses untouched, the
// velocity kept current, and the energies returned sum (A_ii + s_i) dlambda_i^2 and sum
// (A_ii + s_i) lambda_i^2. A second step moves (almost) nothing.
START_TEST( one_step_solves_the_tree_from_any_start )
{
    int failures = 0;
    int firstFailure = -1;
    char what[200] = "";
    for ( int seed = 0; seed < CNT_TREES; seed += 2 )
    {
        int bodies = cntTreeBodies( seed );
        cntTree tree = cntCreateTree( (uint64_t)seed, bodies, 0 );
        const cnSolverProblem* p = &tree.joints->problem;
        int n = p->rowCount;
        int* rows = calloc( (size_t)n + 1, sizeof( int ) );
        int count = cntFreeRows( p, rows );
        cnArenaReset( &s_arena );
        cnScratch scratch = { .arena = &s_arena };
        cnBilateral bl;
        ck_assert( cnBilateralBuild( p, &scratch, &bl ) );
        cnBilateralFactor( &bl, p );

        const char* reason = NULL;
        if ( bl.rowCount != count || bl.unitCount != tree.units || bl.treeCount != bl.unitCount ||
             !bl.factored )
        {
            reason = "units";
        }
        char* seen = calloc( (size_t)n + 1, 1 );
        for ( int u = 0; u < bl.unitCount && reason == NULL; ++u )
        {
            const cnBilateralUnit* unit = bl.units + u;
            if ( unit->rowCount < 1 || unit->rowCount > CN_BILATERAL_MAX_ROWS )
            {
                reason = "unit size";
            }
            for ( int r = unit->firstRow; r < unit->firstRow + unit->rowCount && reason == NULL; ++r )
            {
                int i = bl.rows[r];
                if ( i < 0 || i >= n || seen[i] || !cntIsFree( p, i ) || bl.dropped[r] )
                {
                    reason = "unit rows";
                    break;
                }
                seen[i] = 1;
                // the unit's bodies are the row's, either way round, -1 for static
                int a = p->bodyA[i];
                int b = p->bodyB[i];
                bool pair = ( unit->body[0] == a && unit->body[1] == b ) ||
                            ( unit->body[0] == b && unit->body[1] == a );
                bool pendant =
                    unit->body[1] == -1 && ( a == unit->body[0] || b == unit->body[0] ) && ( a < 0 || b < 0 );
                reason = pair || pendant ? NULL : "unit bodies";
            }
        }
        free( seen );

        // one step from random impulses on every row
        cntRandom random = { 77u + (uint64_t)seed };
        double* lambda = calloc( (size_t)n + 1, sizeof( double ) );
        double* start = calloc( (size_t)n + 1, sizeof( double ) );
        bool* isFree = calloc( (size_t)n + 1, sizeof( bool ) );
        double* velocity = calloc( 6 * (size_t)bodies, sizeof( double ) );
        double* held = calloc( 6 * (size_t)bodies, sizeof( double ) );
        double* rhs = calloc( (size_t)count + 1, sizeof( double ) );
        double* x = calloc( (size_t)count + 1, sizeof( double ) );
        double* row = calloc( 6 * (size_t)bodies, sizeof( double ) );
        for ( int i = 0; i < n; ++i )
        {
            lambda[i] = start[i] = cntRange( &random, -2.0, 2.0 );
        }
        for ( int r = 0; r < count; ++r )
        {
            isFree[rows[r]] = true;
        }
        cntVelocity( p, lambda, NULL, velocity, NULL );
        // the solution: (A_F + S_F) x = -(b_F + J_F W J_O^T lambda_O), the other rows O held
        cntVelocity( p, lambda, isFree, held, NULL );
        for ( int r = 0; r < count; ++r )
        {
            cntDenseRow( p, rows[r], row );
            rhs[r] = p->b[rows[r]];
            for ( int k = 0; k < 6 * bodies; ++k )
            {
                rhs[r] += row[k] * held[k];
            }
        }
        ck_assert( cntDenseSolve( p, rows, count, rhs, x, NULL ) );

        double before = cntRelativeResidual( p, rows, count, lambda );
        double lambdaEnergy = 1.5;
        double energy = cnBilateralStep( &bl, p, lambda, velocity, &lambdaEnergy );
        double after = cntRelativeResidual( p, rows, count, lambda );
        double gap = cntRelativeGap( rows, count, lambda, x );
        if ( reason == NULL && !( after <= 1e-9 * fmax( before, 1.0 ) ) )
        {
            reason = "w after the step";
        }
        if ( reason == NULL && !( gap <= 1e-8 ) )
        {
            reason = "lambda against the dense solve";
        }
        if ( reason == NULL && !( cntVelocityError( p, lambda, velocity ) <= 1e-12 ) )
        {
            reason = "velocity kept";
        }
        double expectedEnergy = 0.0;
        double expectedLambdaEnergy = 1.5;
        double* a = cntBuildMatrix( p, rows, count );
        for ( int r = 0; r < count; ++r )
        {
            int i = rows[r];
            double diagonal = a[r * count + r];
            double delta = lambda[i] - start[i];
            expectedEnergy += diagonal * delta * delta;
            expectedLambdaEnergy += diagonal * lambda[i] * lambda[i];
        }
        free( a );
        for ( int i = 0; i < n && reason == NULL; ++i )
        {
            reason = !isFree[i] && lambda[i] != start[i] ? "a row that is not free moved" : NULL;
        }
        if ( reason == NULL && !( fabs( energy - expectedEnergy ) <= 1e-9 * expectedEnergy ) )
        {
            reason = "update energy";
        }
        if ( reason == NULL &&
             !( fabs( lambdaEnergy - expectedLambdaEnergy ) <= 1e-12 * expectedLambdaEnergy ) )
        {
            reason = "lambda energy";
        }
        // at the solution: a second step moves (almost) nothing and adds nothing without a pointer
        double second = cnBilateralStep( &bl, p, lambda, velocity, NULL );
        if ( reason == NULL && !( second <= 1e-16 * ( expectedEnergy + expectedLambdaEnergy ) ) )
        {
            reason = "second step";
        }
        if ( reason == NULL && count > 0 && !( energy > 0.0 ) )
        {
            reason = "no update";
        }
        if ( reason != NULL )
        {
            failures += 1;
            if ( firstFailure < 0 )
            {
                firstFailure = seed;
                snprintf( what, sizeof( what ),
                          "%s (energy %.17g, expected %.17g; w %.3g from %.3g; gap %.3g)", reason, energy,
                          expectedEnergy, after, before, gap );
            }
        }
        free( rows );
        free( lambda );
        free( start );
        free( isFree );
        free( velocity );
        free( held );
        free( rhs );
        free( x );
        free( row );
        free( tree.joints );
    }
    ck_assert_msg( failures == 0, "%d trees failed; first seed %d: %s", failures, firstFailure, what );
}
END_TEST

Suite* cntBilateralSuite( void )
{
    Suite* suite = suite_create( "bilateral" );
    TCase* tc = tcase_create( "bilateral" );
    tcase_add_checked_fixture( tc, setup, teardown );
    tcase_add_test( tc, random_trees_match_a_dense_solve );
    tcase_add_test( tc, loops_match_dense_block_gauss_seidel );
    tcase_add_test( tc, redundant_rows_are_dropped );
    tcase_add_test( tc, no_free_bilateral_rows_give_zeros );
    tcase_add_test( tc, groups_outside_the_units_are_left_alone );
    tcase_add_test( tc, one_step_solves_the_tree_from_any_start );
    suite_add_tcase( suite, tc );
    return suite;
}
