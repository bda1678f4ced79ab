// SPDX-License-Identifier: MIT
// What every solver shares: row products, projections, merit functions, stopping rules, matrix
// builders and the projected sweep loop of PGS, PSOR and PGJ.

#include "lcp_common.h"

#include "core.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#define CN_DENSE_LIMIT 4096

// ---- scratch ------------------------------------------------------------------------------------

double* cnScratchDoubles( cnScratch* scratch, int count )
{
    if ( count < 0 )
    {
        return NULL;
    }
    size_t size = ( count > 0 ? (size_t)count : 1u ) * sizeof( double );
    if ( scratch->arena != NULL )
    {
        return cnArena_Alloc( scratch->arena, size, 16 );
    }
    if ( scratch->count >= CN_SCRATCH_MAX_BLOCKS )
    {
        return NULL;
    }
    double* memory = cnAlloc( NULL, size, 16 );
    if ( memory != NULL )
    {
        scratch->blocks[scratch->count] = memory;
        scratch->sizes[scratch->count] = size;
        scratch->count += 1;
    }
    return memory;
}

static int* cnScratchInts( cnScratch* scratch, int count )
{
    // doubles are at least as large and as aligned as ints
    return (int*)(void*)cnScratchDoubles( scratch, count );
}

void cnScratchRelease( cnScratch* scratch )
{
    for ( int i = 0; i < scratch->count; ++i )
    {
        cnFree( NULL, scratch->blocks[i], scratch->sizes[i] );
        scratch->blocks[i] = NULL;
    }
    scratch->count = 0;
}

// ---- validation ---------------------------------------------------------------------------------

static bool cnIsMatrixValid( const cnSparseMatrix* matrix, int rowCount )
{
    if ( matrix->rows != rowCount || matrix->columns != rowCount )
    {
        return false;
    }
    if ( rowCount == 0 )
    {
        return true;
    }
    if ( matrix->rowStart == NULL || matrix->rowStart[0] != 0 )
    {
        return false;
    }
    for ( int i = 0; i < rowCount; ++i )
    {
        if ( matrix->rowStart[i + 1] < matrix->rowStart[i] )
        {
            return false;
        }
    }
    if ( matrix->rowStart[rowCount] > 0 && ( matrix->column == NULL || matrix->value == NULL ) )
    {
        return false;
    }
    for ( int k = 0; k < matrix->rowStart[rowCount]; ++k )
    {
        if ( matrix->column[k] < 0 || matrix->column[k] >= rowCount )
        {
            return false;
        }
    }
    return true;
}

bool cnIsProblemValid( const cnSolverProblem* problem )
{
    if ( problem == NULL || problem->rowCount < 0 || problem->bodyCount < 0 )
    {
        return false;
    }
    int n = problem->rowCount;
    if ( n == 0 )
    {
        return problem->matrix == NULL || cnIsMatrixValid( problem->matrix, 0 );
    }
    if ( problem->kind == NULL || problem->b == NULL )
    {
        return false;
    }

    if ( problem->matrix != NULL )
    {
        if ( !cnIsMatrixValid( problem->matrix, n ) )
        {
            return false;
        }
    }
    else
    {
        if ( problem->bodyA == NULL || problem->bodyB == NULL || problem->jacobianA == NULL ||
             problem->jacobianB == NULL )
        {
            return false;
        }
        if ( problem->bodyCount > 0 && ( problem->wLinear == NULL || problem->wAngular == NULL ) )
        {
            return false;
        }
        if ( problem->bodyCount > INT32_MAX / 6 )
        {
            return false;
        }
        for ( int i = 0; i < n; ++i )
        {
            if ( problem->bodyA[i] < -1 || problem->bodyA[i] >= problem->bodyCount ||
                 problem->bodyB[i] < -1 || problem->bodyB[i] >= problem->bodyCount )
            {
                return false;
            }
        }
    }

    for ( int i = 0; problem->softness != NULL && i < n; ++i )
    {
        // also rejects NaN
        if ( !( problem->softness[i] >= 0.0 ) || isinf( problem->softness[i] ) )
        {
            return false;
        }
    }

    for ( int i = 0; i < n; ++i )
    {
        switch ( problem->kind[i] )
        {
            case cn_rowNormal:
                break;
            case cn_rowFriction:
            {
                if ( problem->normalOf == NULL || problem->mu == NULL )
                {
                    return false;
                }
                int normal = problem->normalOf[i];
                if ( normal < 0 || normal >= n || problem->kind[normal] != cn_rowNormal )
                {
                    return false;
                }
                // also rejects NaN
                if ( !( problem->mu[i] >= 0.0 ) )
                {
                    return false;
                }
                break;
            }
            case cn_rowBounded:
                if ( problem->lower == NULL || problem->upper == NULL )
                {
                    return false;
                }
                if ( !( problem->lower[i] <= problem->upper[i] ) )
                {
                    return false;
                }
                break;
            default:
                return false;
        }
    }
    return true;
}

// ---- row products -------------------------------------------------------------------------------

// out = M x for a row-major 3x3 block
static void cnMul33( const double* m, const double* x, double* out )
{
    out[0] = m[0] * x[0] + m[1] * x[1] + m[2] * x[2];
    out[1] = m[3] * x[0] + m[4] * x[1] + m[5] * x[2];
    out[2] = m[6] * x[0] + m[7] * x[1] + m[8] * x[2];
}

static double cnDot6( const double* a, const double* b )
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] + a[4] * b[4] + a[5] * b[5];
}

// out = W_body j (6 numbers: linear block on j[0..2], angular block on j[3..5])
static void cnApplyW( const cnSolverProblem* problem, int body, const double* j, double* out )
{
    cnMul33( problem->wLinear + 9 * body, j, out );
    cnMul33( problem->wAngular + 9 * body, j + 3, out + 3 );
}

// The row's Jacobian acting on `body` (JA, JB, or their sum when both sides are that body).
static void cnRowJacobianOn( const cnSolverProblem* problem, int row, int body, double* j )
{
    const double* ja = problem->jacobianA + 6 * row;
    const double* jb = problem->jacobianB + 6 * row;
    for ( int k = 0; k < 6; ++k )
    {
        j[k] = ( problem->bodyA[row] == body ? ja[k] : 0.0 ) + ( problem->bodyB[row] == body ? jb[k] : 0.0 );
    }
}

// the distinct bodies a matrix-free row acts on (0, 1 or 2 of them), in `bodies`
static int cnRowBodies( const cnSolverProblem* problem, int row, int bodies[2] )
{
    int count = 0;
    if ( problem->bodyA[row] >= 0 )
    {
        bodies[count++] = problem->bodyA[row];
    }
    if ( problem->bodyB[row] >= 0 && problem->bodyB[row] != problem->bodyA[row] )
    {
        bodies[count++] = problem->bodyB[row];
    }
    return count;
}

static double cnExplicitEntry( const cnSparseMatrix* matrix, int row, int column )
{
    double sum = 0.0;
    for ( int k = matrix->rowStart[row]; k < matrix->rowStart[row + 1]; ++k )
    {
        if ( matrix->column[k] == column )
        {
            sum += matrix->value[k];
        }
    }
    return sum;
}

void cnComputeDiagonal( const cnSolverProblem* problem, double* diagonal )
{
    for ( int i = 0; i < problem->rowCount; ++i )
    {
        double soft = problem->softness != NULL ? problem->softness[i] : 0.0;
        if ( problem->matrix != NULL )
        {
            diagonal[i] = cnExplicitEntry( problem->matrix, i, i ) + soft;
            continue;
        }
        double sum = 0.0;
        int bodies[2];
        int count = cnRowBodies( problem, i, bodies );
        for ( int s = 0; s < count; ++s )
        {
            double j[6];
            double wj[6];
            cnRowJacobianOn( problem, i, bodies[s], j );
            cnApplyW( problem, bodies[s], j, wj );
            sum += cnDot6( j, wj );
        }
        diagonal[i] = sum + soft;
    }
}

void cnApplyRowDelta( const cnSolverProblem* problem, double* velocity, int row, double delta )
{
    if ( problem->matrix != NULL )
    {
        return;
    }
    int body = problem->bodyA[row];
    if ( body >= 0 )
    {
        const double* j = problem->jacobianA + 6 * row;
        double force[6];
        for ( int k = 0; k < 6; ++k )
        {
            force[k] = j[k] * delta;
        }
        double dv[6];
        cnApplyW( problem, body, force, dv );
        for ( int k = 0; k < 6; ++k )
        {
            velocity[6 * body + k] += dv[k];
        }
    }
    body = problem->bodyB[row];
    if ( body >= 0 )
    {
        const double* j = problem->jacobianB + 6 * row;
        double force[6];
        for ( int k = 0; k < 6; ++k )
        {
            force[k] = j[k] * delta;
        }
        double dv[6];
        cnApplyW( problem, body, force, dv );
        for ( int k = 0; k < 6; ++k )
        {
            velocity[6 * body + k] += dv[k];
        }
    }
}

void cnComputeVelocity( const cnSolverProblem* problem, const double* lambda, double* velocity )
{
    if ( problem->matrix != NULL )
    {
        return;
    }
    for ( int k = 0; k < 6 * problem->bodyCount; ++k )
    {
        velocity[k] = 0.0;
    }
    for ( int i = 0; i < problem->rowCount; ++i )
    {
        cnApplyRowDelta( problem, velocity, i, lambda[i] );
    }
}

double cnRowValue( const cnSolverProblem* problem, const double* velocity, const double* lambda, int row )
{
    double soft = problem->softness != NULL ? problem->softness[row] * lambda[row] : 0.0;
    if ( problem->matrix != NULL )
    {
        const cnSparseMatrix* matrix = problem->matrix;
        double sum = 0.0;
        for ( int k = matrix->rowStart[row]; k < matrix->rowStart[row + 1]; ++k )
        {
            sum += matrix->value[k] * lambda[matrix->column[k]];
        }
        return sum + soft + problem->b[row];
    }
    double sum = soft;
    int body = problem->bodyA[row];
    if ( body >= 0 )
    {
        sum += cnDot6( problem->jacobianA + 6 * row, velocity + 6 * body );
    }
    body = problem->bodyB[row];
    if ( body >= 0 )
    {
        sum += cnDot6( problem->jacobianB + 6 * row, velocity + 6 * body );
    }
    return sum + problem->b[row];
}

void cnRowBounds( const cnSolverProblem* problem, const double* lambda, int row, double* low, double* high )
{
    switch ( problem->kind[row] )
    {
        case cn_rowNormal:
            *low = 0.0;
            *high = (double)INFINITY;
            return;
        case cn_rowFriction:
        {
            int normal = problem->normalOf != NULL ? problem->normalOf[row] : -1;
            if ( normal < 0 || normal >= problem->rowCount || problem->mu == NULL )
            {
                // no normal row to scale by: no friction
                *low = 0.0;
                *high = 0.0;
                return;
            }
            double limit = problem->mu[row] * lambda[normal];
            // a negative normal impulse (a bad guess) allows no friction; NaN stays NaN
            if ( limit < 0.0 )
            {
                limit = 0.0;
            }
            *low = -limit;
            *high = limit;
            return;
        }
        case cn_rowBounded:
            *low = problem->lower != NULL ? problem->lower[row] : -(double)INFINITY;
            *high = problem->upper != NULL ? problem->upper[row] : (double)INFINITY;
            return;
        default:
            *low = -(double)INFINITY;
            *high = (double)INFINITY;
            return;
    }
}

// Projection on [low, high]; NaN when x or a bound is NaN.
static double cnProject( double x, double low, double high )
{
    if ( isnan( low ) || isnan( high ) )
    {
        return (double)NAN;
    }
    return x < low ? low : ( x > high ? high : x );
}

// ---- merit functions ----------------------------------------------------------------------------

// A 2-norm that neither overflows nor underflows on the way (scaled sum of squares) and gives NaN
// when any entry is NaN.
typedef struct cnNormAccumulator
{
    double scale;
    double sumSquares;
    bool sawNan;
} cnNormAccumulator;

static void cnNormAdd( cnNormAccumulator* acc, double x )
{
    if ( isnan( x ) )
    {
        acc->sawNan = true;
        return;
    }
    double a = fabs( x );
    if ( a == 0.0 )
    {
        return;
    }
    if ( isinf( a ) )
    {
        acc->scale = a;
        acc->sumSquares = 1.0;
        return;
    }
    if ( isinf( acc->scale ) )
    {
        return;
    }
    if ( a > acc->scale )
    {
        double ratio = acc->scale / a;
        acc->sumSquares = 1.0 + acc->sumSquares * ratio * ratio;
        acc->scale = a;
    }
    else
    {
        double ratio = a / acc->scale;
        acc->sumSquares += ratio * ratio;
    }
}

static double cnNormValue( const cnNormAccumulator* acc )
{
    if ( acc->sawNan )
    {
        return (double)NAN;
    }
    return acc->scale * sqrt( acc->sumSquares );
}

// w = A lambda + b from a velocity that is W J^T lambda already.
static void cnComputeW( const cnSolverProblem* problem, const double* lambda, const double* velocity,
                        double* w )
{
    for ( int i = 0; i < problem->rowCount; ++i )
    {
        w[i] = cnRowValue( problem, velocity, lambda, i );
    }
}

// natural residual given w
static double cnNaturalFromW( const cnSolverProblem* problem, const double* lambda, const double* w )
{
    cnNormAccumulator acc = { 0.0, 0.0, false };
    for ( int i = 0; i < problem->rowCount; ++i )
    {
        double low, high;
        cnRowBounds( problem, lambda, i, &low, &high );
        cnNormAdd( &acc, lambda[i] - cnProject( lambda[i] - w[i], low, high ) );
    }
    return cnNormValue( &acc );
}

double cnNaturalResidual( const cnSolverProblem* problem, const double* lambda, double* velocity, double* w )
{
    if ( problem->rowCount == 0 )
    {
        return 0.0;
    }
    cnComputeVelocity( problem, lambda, velocity );
    cnComputeW( problem, lambda, velocity, w );
    return cnNaturalFromW( problem, lambda, w );
}

// is row `row` the normal row of a 3-row contact group (normal, friction, friction)?
static bool cnIsConeGroup( const cnSolverProblem* problem, int row )
{
    int n = problem->rowCount;
    if ( row + 2 >= n || problem->kind[row] != cn_rowNormal || problem->normalOf == NULL ||
         problem->mu == NULL )
    {
        return false;
    }
    for ( int k = 1; k <= 2; ++k )
    {
        if ( problem->kind[row + k] != cn_rowFriction || problem->normalOf[row + k] != row )
        {
            return false;
        }
    }
    return problem->mu[row + 1] == problem->mu[row + 2];
}

double cnConeResidual( const cnSolverProblem* problem, const double* lambda, double* velocity, double* w )
{
    int n = problem->rowCount;
    if ( n == 0 )
    {
        return 0.0;
    }
    cnComputeVelocity( problem, lambda, velocity );
    cnComputeW( problem, lambda, velocity, w );

    cnNormAccumulator acc = { 0.0, 0.0, false };
    int i = 0;
    while ( i < n )
    {
        if ( !cnIsConeGroup( problem, i ) )
        {
            double low, high;
            cnRowBounds( problem, lambda, i, &low, &high );
            cnNormAdd( &acc, lambda[i] - cnProject( lambda[i] - w[i], low, high ) );
            i += 1;
            continue;
        }

        double mu = problem->mu[i + 1];
        double wt = hypot( w[i + 1], w[i + 2] );
        // z = r - w~ with the De Saxce change of variable on the normal part
        double zn = lambda[i] - ( w[i] + mu * wt );
        double z1 = lambda[i + 1] - w[i + 1];
        double z2 = lambda[i + 2] - w[i + 2];
        double zt = hypot( z1, z2 );
        double pn, p1, p2;
        if ( mu * zt <= -zn )
        {
            // in the polar cone
            pn = 0.0;
            p1 = 0.0;
            p2 = 0.0;
        }
        else if ( zt <= mu * zn )
        {
            pn = zn;
            p1 = z1;
            p2 = z2;
        }
        else
        {
            // onto the cone's surface (zt > 0 here)
            pn = ( zn + mu * zt ) / ( 1.0 + mu * mu );
            p1 = mu * pn * z1 / zt;
            p2 = mu * pn * z2 / zt;
        }
        if ( isnan( zn ) || isnan( z1 ) || isnan( z2 ) || isnan( mu ) )
        {
            pn = (double)NAN;
        }
        cnNormAdd( &acc, lambda[i] - pn );
        cnNormAdd( &acc, lambda[i + 1] - p1 );
        cnNormAdd( &acc, lambda[i + 2] - p2 );
        i += 3;
    }
    return cnNormValue( &acc );
}

double cnSolverResidual( const cnSolverProblem* problem, const double* lambda, cnArena* arena )
{
    if ( !cnIsProblemValid( problem ) )
    {
        return (double)NAN;
    }
    if ( problem->rowCount == 0 )
    {
        return 0.0;
    }
    if ( lambda == NULL )
    {
        return (double)NAN;
    }
    cnScratch scratch = { .arena = arena };
    double* velocity = cnScratchDoubles( &scratch, 6 * problem->bodyCount );
    double* w = cnScratchDoubles( &scratch, problem->rowCount );
    double residual = (double)NAN;
    if ( velocity != NULL && w != NULL )
    {
        residual = cnNaturalResidual( problem, lambda, velocity, w );
    }
    cnScratchRelease( &scratch );
    return residual;
}

// ---- stopping rules -----------------------------------------------------------------------------

cnStopDecision cnCheckStop( const cnStopRules* rules, double residual, double previousResidual,
                            double initialResidual, double maxStep )
{
    if ( !isfinite( residual ) )
    {
        return cn_stopNonFinite;
    }
    if ( residual <= rules->tolerance )
    {
        return cn_stopConverged;
    }
    if ( rules->divergenceFactor > 0.0 && isfinite( initialResidual ) && initialResidual > 0.0 &&
         residual > rules->divergenceFactor * initialResidual )
    {
        return cn_stopDiverged;
    }
    if ( rules->relativeTolerance > 0.0 && isfinite( previousResidual ) &&
         fabs( residual - previousResidual ) <= rules->relativeTolerance * previousResidual )
    {
        return cn_stopConverged;
    }
    if ( rules->stagnationTolerance > 0.0 && maxStep <= rules->stagnationTolerance )
    {
        return cn_stopConverged;
    }
    return cn_continue;
}

// ---- matrix builders ----------------------------------------------------------------------------

// Rows bucketed by body: for body k, entries bucketStart[k] .. bucketStart[k + 1] - 1 of
// bucketRow are the (local) rows acting on k, each once even when both sides are body k.
typedef struct cnBodyBuckets
{
    int* bucketStart; // (bodyCount + 1)
    int* bucketRow;
} cnBodyBuckets;

// rows[local] (NULL: local == global) for local in [0, count)
static bool cnBuildBuckets( const cnSolverProblem* problem, const int* rows, int count, cnScratch* scratch,
                            cnBodyBuckets* buckets )
{
    int bodyCount = problem->bodyCount;
    buckets->bucketStart = cnScratchInts( scratch, bodyCount + 1 );
    buckets->bucketRow = cnScratchInts( scratch, 2 * count );
    int* fill = cnScratchInts( scratch, bodyCount );
    if ( buckets->bucketStart == NULL || buckets->bucketRow == NULL || fill == NULL )
    {
        return false;
    }
    for ( int k = 0; k <= bodyCount; ++k )
    {
        buckets->bucketStart[k] = 0;
    }
    for ( int local = 0; local < count; ++local )
    {
        int row = rows != NULL ? rows[local] : local;
        int a = problem->bodyA[row];
        int b = problem->bodyB[row];
        if ( a >= 0 )
        {
            buckets->bucketStart[a + 1] += 1;
        }
        if ( b >= 0 && b != a )
        {
            buckets->bucketStart[b + 1] += 1;
        }
    }
    for ( int k = 0; k < bodyCount; ++k )
    {
        buckets->bucketStart[k + 1] += buckets->bucketStart[k];
        fill[k] = buckets->bucketStart[k];
    }
    for ( int local = 0; local < count; ++local )
    {
        int row = rows != NULL ? rows[local] : local;
        int a = problem->bodyA[row];
        int b = problem->bodyB[row];
        if ( a >= 0 )
        {
            buckets->bucketRow[fill[a]++] = local;
        }
        if ( b >= 0 && b != a )
        {
            buckets->bucketRow[fill[b]++] = local;
        }
    }
    return true;
}

// Accumulates row `row`'s entries A_{row, j} = sum over shared bodies of J_j,body W J_row,body^T
// into `accumulator` (indexed by local column), calling `touch` bookkeeping through `marked`.
// Returns the number of newly touched columns appended to `touched`.
static int cnAccumulateRow( const cnSolverProblem* problem, const int* rows, const cnBodyBuckets* buckets,
                            int row, double* accumulator, bool* marked, int* touched )
{
    int touchedCount = 0;
    int bodies[2];
    int count = cnRowBodies( problem, row, bodies );
    for ( int s = 0; s < count; ++s )
    {
        int body = bodies[s];
        double j[6];
        double wj[6];
        cnRowJacobianOn( problem, row, body, j );
        cnApplyW( problem, body, j, wj );
        for ( int e = buckets->bucketStart[body]; e < buckets->bucketStart[body + 1]; ++e )
        {
            int local = buckets->bucketRow[e];
            int other = rows != NULL ? rows[local] : local;
            double jo[6];
            cnRowJacobianOn( problem, other, body, jo );
            if ( !marked[local] )
            {
                marked[local] = true;
                accumulator[local] = 0.0;
                touched[touchedCount++] = local;
            }
            accumulator[local] += cnDot6( jo, wj );
        }
    }
    return touchedCount;
}

// A + diag(softness) on a dense matrix
static void cnAddDenseSoftness( const cnSolverProblem* problem, double* dense )
{
    int n = problem->rowCount;
    for ( int i = 0; problem->softness != NULL && i < n; ++i )
    {
        dense[(size_t)i * (size_t)n + (size_t)i] += problem->softness[i];
    }
}

double* cnBuildDenseMatrix( const cnSolverProblem* problem, cnArena* arena )
{
    if ( arena == NULL || !cnIsProblemValid( problem ) || problem->rowCount > CN_DENSE_LIMIT )
    {
        return NULL;
    }
    int n = problem->rowCount;
    cnScratch scratch = { .arena = arena };
    double* dense = cnScratchDoubles( &scratch, n * n );
    if ( dense == NULL )
    {
        return NULL;
    }
    for ( int k = 0; k < n * n; ++k )
    {
        dense[k] = 0.0;
    }
    if ( problem->matrix != NULL )
    {
        const cnSparseMatrix* matrix = problem->matrix;
        for ( int i = 0; i < n; ++i )
        {
            for ( int k = matrix->rowStart[i]; k < matrix->rowStart[i + 1]; ++k )
            {
                dense[i * n + matrix->column[k]] += matrix->value[k];
            }
        }
        cnAddDenseSoftness( problem, dense );
        return dense;
    }

    cnBodyBuckets buckets;
    int* touched = cnScratchInts( &scratch, n );
    bool* marked = (bool*)(void*)cnScratchDoubles( &scratch, n );
    if ( touched == NULL || marked == NULL || !cnBuildBuckets( problem, NULL, n, &scratch, &buckets ) )
    {
        return NULL;
    }
    for ( int k = 0; k < n; ++k )
    {
        marked[k] = false;
    }
    for ( int i = 0; i < n; ++i )
    {
        double* rowValues = dense + (size_t)i * (size_t)n;
        int count = cnAccumulateRow( problem, NULL, &buckets, i, rowValues, marked, touched );
        for ( int t = 0; t < count; ++t )
        {
            marked[touched[t]] = false;
        }
    }
    cnAddDenseSoftness( problem, dense );
    return dense;
}

static void cnSortInts( int* values, int count )
{
    // insertion sort: a row touches few columns
    for ( int i = 1; i < count; ++i )
    {
        int v = values[i];
        int j = i - 1;
        while ( j >= 0 && values[j] > v )
        {
            values[j + 1] = values[j];
            --j;
        }
        values[j + 1] = v;
    }
}

bool cnBuildSparseMatrix( const cnSolverProblem* problem, const int* rows, int count, cnArena* arena,
                          cnSparseMatrix* matrix )
{
    if ( matrix == NULL || arena == NULL || !cnIsProblemValid( problem ) )
    {
        return false;
    }
    int n = problem->rowCount;
    if ( rows == NULL )
    {
        count = n;
    }
    if ( count < 0 || count > n )
    {
        return false;
    }
    if ( rows != NULL )
    {
        for ( int k = 0; k < count; ++k )
        {
            if ( rows[k] < 0 || rows[k] >= n || ( k > 0 && rows[k] <= rows[k - 1] ) )
            {
                return false;
            }
        }
    }

    cnScratch scratch = { .arena = arena };
    int* rowStart = cnScratchInts( &scratch, count + 1 );
    if ( rowStart == NULL )
    {
        return false;
    }
    rowStart[0] = 0;

    if ( problem->matrix != NULL )
    {
        const cnSparseMatrix* source = problem->matrix;
        // global row -> local index, -1 when not selected
        int* localOf = cnScratchInts( &scratch, n );
        if ( localOf == NULL )
        {
            return false;
        }
        for ( int k = 0; k < n; ++k )
        {
            localOf[k] = rows != NULL ? -1 : k;
        }
        if ( rows != NULL )
        {
            for ( int k = 0; k < count; ++k )
            {
                localOf[rows[k]] = k;
            }
        }
        int nonzeros = 0;
        for ( int local = 0; local < count; ++local )
        {
            int row = rows != NULL ? rows[local] : local;
            for ( int e = source->rowStart[row]; e < source->rowStart[row + 1]; ++e )
            {
                nonzeros += localOf[source->column[e]] >= 0 ? 1 : 0;
            }
            rowStart[local + 1] = nonzeros;
        }
        int* column = cnScratchInts( &scratch, nonzeros );
        double* value = cnScratchDoubles( &scratch, nonzeros );
        if ( column == NULL || value == NULL )
        {
            return false;
        }
        int at = 0;
        for ( int local = 0; local < count; ++local )
        {
            int row = rows != NULL ? rows[local] : local;
            for ( int e = source->rowStart[row]; e < source->rowStart[row + 1]; ++e )
            {
                int c = localOf[source->column[e]];
                if ( c >= 0 )
                {
                    column[at] = c;
                    value[at] = source->value[e] +
                                ( c == local && problem->softness != NULL ? problem->softness[row] : 0.0 );
                    ++at;
                }
            }
        }
        *matrix = ( cnSparseMatrix ){ count, count, rowStart, column, value };
        return true;
    }

    // matrix-free: rows couple only through shared bodies
    cnBodyBuckets buckets;
    if ( !cnBuildBuckets( problem, rows, count, &scratch, &buckets ) )
    {
        return false;
    }
    // an upper bound on the entries: every row touches at most the rows of its two bodies
    size_t bound = 0;
    for ( int local = 0; local < count; ++local )
    {
        int row = rows != NULL ? rows[local] : local;
        int a = problem->bodyA[row];
        int b = problem->bodyB[row];
        size_t rowBound = 0;
        if ( a >= 0 )
        {
            rowBound += (size_t)( buckets.bucketStart[a + 1] - buckets.bucketStart[a] );
        }
        if ( b >= 0 && b != a )
        {
            rowBound += (size_t)( buckets.bucketStart[b + 1] - buckets.bucketStart[b] );
        }
        bound += rowBound < (size_t)count ? rowBound : (size_t)count;
    }
    if ( bound > (size_t)INT32_MAX )
    {
        return false;
    }
    int* column = cnScratchInts( &scratch, (int)bound );
    double* value = cnScratchDoubles( &scratch, (int)bound );
    double* accumulator = cnScratchDoubles( &scratch, count );
    int* touched = cnScratchInts( &scratch, count );
    bool* marked = (bool*)(void*)cnScratchDoubles( &scratch, count );
    if ( column == NULL || value == NULL || accumulator == NULL || touched == NULL || marked == NULL )
    {
        return false;
    }
    for ( int k = 0; k < count; ++k )
    {
        marked[k] = false;
    }
    int at = 0;
    for ( int local = 0; local < count; ++local )
    {
        int row = rows != NULL ? rows[local] : local;
        int touchedCount = cnAccumulateRow( problem, rows, &buckets, row, accumulator, marked, touched );
        cnSortInts( touched, touchedCount );
        for ( int t = 0; t < touchedCount; ++t )
        {
            int c = touched[t];
            column[at] = c;
            value[at] =
                accumulator[c] + ( c == local && problem->softness != NULL ? problem->softness[row] : 0.0 );
            ++at;
            marked[c] = false;
        }
        rowStart[local + 1] = at;
    }
    *matrix = ( cnSparseMatrix ){ count, count, rowStart, column, value };
    return true;
}

// ---- parameters ---------------------------------------------------------------------------------

double cnSolverParamValue( const cnSolverParam* table, int count, const double* params, int index )
{
    if ( table == NULL || index < 0 || index >= count )
    {
        return 0.0;
    }
    const cnSolverParam* param = table + index;
    if ( params == NULL || isnan( params[index] ) )
    {
        return param->defaultValue;
    }
    double value = params[index];
    return value < param->minValue ? param->minValue : ( value > param->maxValue ? param->maxValue : value );
}

// ---- the projected sweep solver -----------------------------------------------------------------

static void cnCopy( double* to, const double* from, int count )
{
    if ( count > 0 )
    {
        memcpy( to, from, (size_t)count * sizeof( double ) );
    }
}

// one Gauss-Seidel sweep in place; returns false when a value became non-finite
static bool cnGaussSeidelSweep( const cnSolverProblem* problem, const double* diagonal, double relaxation,
                                double* lambda, double* velocity, double* maxStep )
{
    double step = 0.0;
    for ( int i = 0; i < problem->rowCount; ++i )
    {
        double w = cnRowValue( problem, velocity, lambda, i );
        double low, high;
        cnRowBounds( problem, lambda, i, &low, &high );
        double old = lambda[i];
        double updated = cnProject( old - relaxation * ( w / diagonal[i] ), low, high );
        if ( !isfinite( updated ) )
        {
            return false;
        }
        double delta = updated - old;
        lambda[i] = updated;
        cnApplyRowDelta( problem, velocity, i, delta );
        double change = fabs( delta ) / fmax( 1.0, fabs( updated ) );
        step = change > step ? change : step;
    }
    *maxStep = step;
    return true;
}

// one Jacobi sweep: every row from `previous` (and the velocity of `previous`) into lambda
static bool cnJacobiSweep( const cnSolverProblem* problem, const double* diagonal, double relaxation,
                           const double* previous, double* lambda, double* velocity, double* maxStep )
{
    double step = 0.0;
    for ( int i = 0; i < problem->rowCount; ++i )
    {
        double w = cnRowValue( problem, velocity, previous, i );
        double low, high;
        cnRowBounds( problem, previous, i, &low, &high );
        double updated = cnProject( previous[i] - relaxation * ( w / diagonal[i] ), low, high );
        if ( !isfinite( updated ) )
        {
            return false;
        }
        lambda[i] = updated;
        double change = fabs( updated - previous[i] ) / fmax( 1.0, fabs( updated ) );
        step = change > step ? change : step;
    }
    cnComputeVelocity( problem, lambda, velocity );
    *maxStep = step;
    return true;
}

void cnRecordResidual( const cnSolverSolution* solution, cnSolverStats* stats, double residual )
{
    if ( solution != NULL && solution->residualHistory != NULL &&
         stats->historyCount < solution->residualHistoryCapacity )
    {
        solution->residualHistory[stats->historyCount++] = residual;
    }
}

static void cnFinishSolve( const cnSolverProblem* problem, cnSolverSolution* solution, const double* velocity,
                           cnSolverStats* stats, cnSolveStatus status, int iterations, double residual,
                           uint64_t startTicks )
{
    if ( solution != NULL && solution->deltaVelocity != NULL && problem->matrix == NULL && velocity != NULL )
    {
        cnCopy( solution->deltaVelocity, velocity, 6 * problem->bodyCount );
    }
    stats->status = status;
    stats->iterations = iterations;
    stats->residual = residual;
    stats->milliseconds = cnGetMilliseconds( startTicks );
}

void cnProjectedSweepSolve( const cnSolverParam* table, int paramCount, const double* params,
                            cnSweepKind kind, const cnSolverProblem* problem, cnSolverSolution* solution,
                            cnArena* arena, cnSolverStats* stats )
{
    uint64_t startTicks = cnGetTicks();
    cnSolverStats localStats;
    if ( stats == NULL )
    {
        stats = &localStats;
    }
    *stats = ( cnSolverStats ){ .status = cn_solveUnsupported, .residual = (double)NAN };

    if ( !cnIsProblemValid( problem ) || solution == NULL ||
         ( problem->rowCount > 0 && solution->lambda == NULL ) )
    {
        cnFinishSolve( problem, NULL, NULL, stats, cn_solveUnsupported, 0, (double)NAN, startTicks );
        return;
    }

    int iterationLimit = (int)cnSolverParamValue( table, paramCount, params, cn_sweepParamIterations );
    double relaxation = cnSolverParamValue( table, paramCount, params, cn_sweepParamRelaxation );
    cnStopRules rules = {
        .tolerance = cnSolverParamValue( table, paramCount, params, cn_sweepParamTolerance ),
        .relativeTolerance = cnSolverParamValue( table, paramCount, params, cn_sweepParamRelativeTolerance ),
        .stagnationTolerance =
            cnSolverParamValue( table, paramCount, params, cn_sweepParamStagnationTolerance ),
        .divergenceFactor = cnSolverParamValue( table, paramCount, params, cn_sweepParamDivergenceFactor ),
    };
    bool wantsHistory =
        solution != NULL && solution->residualHistory != NULL && solution->residualHistoryCapacity > 0;
    bool residualEverySweep = rules.tolerance > 0.0 || rules.relativeTolerance > 0.0 ||
                              rules.divergenceFactor > 0.0 || wantsHistory;

    int n = problem->rowCount;
    double* lambda = solution->lambda;
    cnScratch scratch = { .arena = arena };
    double* diagonal = cnScratchDoubles( &scratch, n );
    double* velocity = cnScratchDoubles( &scratch, 6 * problem->bodyCount );
    double* w = cnScratchDoubles( &scratch, n );
    double* previous = cnScratchDoubles( &scratch, n );
    double* best = cnScratchDoubles( &scratch, n );
    if ( diagonal == NULL || velocity == NULL || w == NULL || previous == NULL || best == NULL )
    {
        cnFinishSolve( problem, NULL, NULL, stats, cn_solveUnsupported, 0, (double)NAN, startTicks );
        cnScratchRelease( &scratch );
        return;
    }

    cnComputeDiagonal( problem, diagonal );
    for ( int i = 0; i < n; ++i )
    {
        // the sweep is defined only where A_ii > 0
        if ( !( diagonal[i] > 0.0 ) || isinf( diagonal[i] ) )
        {
            cnFinishSolve( problem, NULL, NULL, stats, cn_solveUnsupported, 0, (double)NAN, startTicks );
            cnScratchRelease( &scratch );
            return;
        }
    }

    // a guess is only a guess: non-finite entries start from zero
    for ( int i = 0; i < n; ++i )
    {
        if ( !isfinite( lambda[i] ) )
        {
            lambda[i] = 0.0;
        }
    }

    cnComputeVelocity( problem, lambda, velocity );
    cnComputeW( problem, lambda, velocity, w );
    double initialResidual = cnNaturalFromW( problem, lambda, w );
    cnRecordResidual( solution, stats, initialResidual );
    if ( !isfinite( initialResidual ) )
    {
        cnFinishSolve( problem, solution, velocity, stats, cn_solveNonFinite, 0, initialResidual, startTicks );
        cnScratchRelease( &scratch );
        return;
    }
    if ( initialResidual <= rules.tolerance )
    {
        cnFinishSolve( problem, solution, velocity, stats, cn_solveConverged, 0, initialResidual, startTicks );
        cnScratchRelease( &scratch );
        return;
    }

    double residual = initialResidual;
    double bestResidual = initialResidual;
    cnCopy( best, lambda, n );
    cnSolveStatus status = cn_solveMaxIterations;
    int iteration = 0;
    while ( iteration < iterationLimit )
    {
        cnCopy( previous, lambda, n );
        double maxStep = 0.0;
        bool finite =
            kind == cn_sweepJacobi
                ? cnJacobiSweep( problem, diagonal, relaxation, previous, lambda, velocity, &maxStep )
                : cnGaussSeidelSweep( problem, diagonal, relaxation, lambda, velocity, &maxStep );
        if ( !finite )
        {
            // back to the last finite iterate
            cnCopy( lambda, previous, n );
            cnComputeVelocity( problem, lambda, velocity );
            status = cn_solveNonFinite;
            break;
        }
        iteration += 1;

        if ( !residualEverySweep )
        {
            if ( rules.stagnationTolerance > 0.0 && maxStep <= rules.stagnationTolerance )
            {
                status = cn_solveConverged;
                break;
            }
            continue;
        }

        double previousResidual = residual;
        cnComputeW( problem, lambda, velocity, w );
        residual = cnNaturalFromW( problem, lambda, w );
        cnRecordResidual( solution, stats, residual );
        if ( residual < bestResidual )
        {
            bestResidual = residual;
            cnCopy( best, lambda, n );
        }
        cnStopDecision decision = cnCheckStop( &rules, residual, previousResidual, initialResidual, maxStep );
        if ( decision == cn_stopConverged )
        {
            status = cn_solveConverged;
            break;
        }
        if ( decision == cn_stopDiverged || decision == cn_stopNonFinite )
        {
            // the iterate is finite (checked in the sweep) but its merit is not, or has grown
            // without bound: return the best iterate
            cnCopy( lambda, best, n );
            cnComputeVelocity( problem, lambda, velocity );
            status = decision == cn_stopDiverged ? cn_solveDiverged : cn_solveNonFinite;
            break;
        }
    }

    double finalResidual = cnNaturalResidual( problem, lambda, velocity, w );
    if ( stats->historyCount > 0 )
    {
        if ( status == cn_solveDiverged || status == cn_solveNonFinite )
        {
            // an earlier iterate was put back: it is one more point on the curve
            cnRecordResidual( solution, stats, finalResidual );
        }
        else if ( stats->historyCount == iteration + 1 )
        {
            // the same iterate, its merit recomputed from the velocities: keep the reported value
            solution->residualHistory[stats->historyCount - 1] = finalResidual;
        }
    }
    if ( status == cn_solveMaxIterations && finalResidual <= rules.tolerance )
    {
        status = cn_solveConverged;
    }
    cnFinishSolve( problem, solution, velocity, stats, status, iteration, finalResidual, startTicks );
    cnScratchRelease( &scratch );
}
