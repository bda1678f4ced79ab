// SPDX-License-Identifier: MIT
// The problem: validation, the data the layer prepares once per solve (cnPrepared), row products,
// and the dense and sparse builders for the solvers that want A itself.

#include "core.h"
#include "solver_kit.h"
#include "task.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

// ---- scratch ------------------------------------------------------------------------------------

void* cnScratchBytes( cnScratch* scratch, size_t size )
{
    size = size > 0 ? size : 1u;
    if ( scratch->arena != NULL )
    {
        return cnArena_Alloc( scratch->arena, size, 64 );
    }
    if ( scratch->count >= CN_SCRATCH_MAX_BLOCKS )
    {
        return NULL;
    }
    void* memory = cnAlloc( NULL, size, 64 );
    if ( memory != NULL )
    {
        scratch->blocks[scratch->count] = memory;
        scratch->sizes[scratch->count] = size;
        scratch->count += 1;
    }
    return memory;
}

double* cnScratchDoubles( cnScratch* scratch, int count )
{
    if ( count < 0 )
    {
        return NULL;
    }
    return cnScratchBytes( scratch, (size_t)count * sizeof( double ) );
}

static int* cnScratchInts( cnScratch* scratch, int count )
{
    if ( count < 0 )
    {
        return NULL;
    }
    return cnScratchBytes( scratch, (size_t)count * sizeof( int ) );
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

static bool cnFail( const char** why, const char* reason )
{
    if ( why != NULL )
    {
        *why = reason;
    }
    return false;
}

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

// the row count a group of this kind must have (0: 1 to CN_MAX_GROUP_ROWS)
static int cnGroupRowCount( int kind )
{
    switch ( kind )
    {
        case cn_groupContact:
            return 3;
        case cn_groupNormal:
        case cn_groupBounded:
            return 1;
        default:
            return 0;
    }
}

bool cnValidateProblem( const cnSolverProblem* problem, const char** why )
{
    if ( problem == NULL )
    {
        return cnFail( why, "no problem" );
    }
    int n = problem->rowCount;
    if ( n < 0 || problem->bodyCount < 0 || problem->groupCount < 0 || n > problem->rowCapacity ||
         problem->groupCount > problem->groupCapacity || problem->bodyCount > INT32_MAX / 6 )
    {
        return cnFail( why, "counts are negative or above their capacities" );
    }
    if ( n > 0 && ( problem->groups == NULL || problem->b == NULL ) )
    {
        return cnFail( why, "rows without groups or right-hand side" );
    }
    if ( problem->colorCount < 0 || ( problem->colorCount > 0 && problem->colorStart == NULL ) )
    {
        return cnFail( why, "a colouring without its colour starts" );
    }
    for ( int c = 0; c < problem->colorCount; ++c )
    {
        if ( problem->colorStart[c] < 0 || problem->colorStart[c] > problem->colorStart[c + 1] ||
             problem->colorStart[c + 1] > problem->groupCount )
        {
            return cnFail( why, "colour starts that decrease or leave the groups" );
        }
    }
    if ( problem->matrix != NULL )
    {
        if ( !cnIsMatrixValid( problem->matrix, n ) )
        {
            return cnFail( why,
                           "the explicit matrix is not square with increasing rows and columns in range" );
        }
    }
    else if ( n > 0 )
    {
        if ( problem->bodyA == NULL || problem->bodyB == NULL || problem->jacobianA == NULL ||
             problem->jacobianB == NULL ||
             ( problem->bodyCount > 0 && ( problem->wLinear == NULL || problem->wAngular == NULL ) ) )
        {
            return cnFail( why, "a matrix-free problem without Jacobians or W blocks" );
        }
        for ( int i = 0; i < n; ++i )
        {
            if ( problem->bodyA[i] < -1 || problem->bodyA[i] >= problem->bodyCount ||
                 problem->bodyB[i] < -1 || problem->bodyB[i] >= problem->bodyCount )
            {
                return cnFail( why, "a row names a body outside [-1, bodyCount)" );
            }
        }
    }

    int next = 0;
    for ( int g = 0; g < problem->groupCount; ++g )
    {
        const cnRowGroup* group = problem->groups + g;
        int expected = (int)group->kind < cn_groupKindCount ? cnGroupRowCount( group->kind ) : -1;
        if ( expected < 0 )
        {
            return cnFail( why, "a group of an unknown kind" );
        }
        if ( group->firstRow != next || group->rowCount < 1 || group->rowCount > CN_MAX_GROUP_ROWS ||
             ( expected > 0 && group->rowCount != expected ) || group->firstRow + group->rowCount > n )
        {
            return cnFail( why, "the groups do not tile the rows in order with their row counts" );
        }
        next = group->firstRow + group->rowCount;
        if ( group->kind == cn_groupContact &&
             ( !( group->mu >= 0.0 ) || isinf( group->mu ) || group->model >= cn_frictionModelCount ) )
        {
            return cnFail( why, "a contact with a friction coefficient that is not a number >= 0" );
        }
        if ( group->kind == cn_groupBounded || group->kind == cn_groupBilateral )
        {
            if ( problem->lower == NULL || problem->upper == NULL )
            {
                return cnFail( why, "bounded rows without bounds" );
            }
            for ( int i = group->firstRow; i < next; ++i )
            {
                // also rejects NaN
                if ( !( problem->lower[i] <= problem->upper[i] ) )
                {
                    return cnFail( why, "a bounded row with lower > upper or NaN" );
                }
            }
        }
        if ( problem->matrix == NULL )
        {
            for ( int i = group->firstRow + 1; i < next; ++i )
            {
                if ( problem->bodyA[i] != problem->bodyA[group->firstRow] ||
                     problem->bodyB[i] != problem->bodyB[group->firstRow] )
                {
                    return cnFail( why, "the rows of a group act on different bodies" );
                }
            }
        }
    }
    if ( next != n )
    {
        return cnFail( why, "the groups do not cover every row" );
    }
    for ( int i = 0; problem->softness != NULL && i < n; ++i )
    {
        // also rejects NaN
        if ( !( problem->softness[i] >= 0.0 ) || isinf( problem->softness[i] ) )
        {
            return cnFail( why, "a softness that is not a finite number >= 0" );
        }
    }
    return true;
}

// ---- row products -------------------------------------------------------------------------------

// out = M x for a row-major 3x3 block
// out = W_body^T j
static void cnApplyWTranspose( const cnSolverProblem* problem, int body, const double* j, double* out )
{
    const double* l = problem->wLinear + 9 * body;
    const double* a = problem->wAngular + 9 * body;
    for ( int r = 0; r < 3; ++r )
    {
        out[r] = l[r] * j[0] + l[3 + r] * j[1] + l[6 + r] * j[2];
        out[3 + r] = a[r] * j[3] + a[3 + r] * j[4] + a[6 + r] * j[5];
    }
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

double cnRowVelocity( const cnSolverProblem* problem, int row, const double* velocity )
{
    double sum = 0.0;
    if ( problem->bodyA[row] >= 0 )
    {
        sum += cnDot6( problem->jacobianA + 6 * row, velocity + 6 * problem->bodyA[row] );
    }
    if ( problem->bodyB[row] >= 0 )
    {
        sum += cnDot6( problem->jacobianB + 6 * row, velocity + 6 * problem->bodyB[row] );
    }
    return sum;
}

void cnApplyRowImpulse( const cnSolverProblem* problem, int row, double delta, double* velocity )
{
    const int bodies[2] = { problem->bodyA[row], problem->bodyB[row] };
    const double* jacobians[2] = { problem->jacobianA + 6 * row, problem->jacobianB + 6 * row };
    for ( int side = 0; side < 2; ++side )
    {
        if ( bodies[side] < 0 )
        {
            continue;
        }
        double force[6];
        double dv[6];
        for ( int k = 0; k < 6; ++k )
        {
            force[k] = jacobians[side][k] * delta;
        }
        cnApplyW( problem, bodies[side], force, dv );
        for ( int k = 0; k < 6; ++k )
        {
            velocity[6 * bodies[side] + k] += dv[k];
        }
    }
}

// ---- preparation --------------------------------------------------------------------------------

// kind, group and normal row of the rows of group g
static void cnPrepareGroup( const cnSolverProblem* problem, cnPrepared* prepared, int g )
{
    const cnRowGroup* group = problem->groups + g;
    for ( int k = 0; k < group->rowCount; ++k )
    {
        int i = group->firstRow + k;
        prepared->rowGroup[i] = g;
        prepared->normalRow[i] = -1;
        switch ( group->kind )
        {
            case cn_groupContact:
                prepared->rowKind[i] = (uint8_t)( k == 0 ? cn_rowNormal : cn_rowTangent );
                prepared->normalRow[i] = k == 0 ? -1 : group->firstRow;
                break;
            case cn_groupNormal:
                prepared->rowKind[i] = cn_rowNormal;
                break;
            default:
                prepared->rowKind[i] = cn_rowBounded;
                break;
        }
    }
    if ( group->kind == cn_groupContact && group->model == cn_frictionCone )
    {
        prepared->hasCone = true;
    }
}

// The part of row i that J and W fix: the sweep record (matrix-free) and A_ii without softness.
// A NaN or infinity anywhere in J or in the W blocks of its bodies reaches A_ii (a NaN times zero
// is NaN), so a finite A_ii says the row's data are finite.
static void cnPrepareRowStructure( const cnSolverProblem* problem, cnPrepared* prepared, int i )
{
    double diagonal;
    if ( problem->matrix != NULL )
    {
        diagonal = cnExplicitEntry( problem->matrix, i, i );
        const cnSparseMatrix* matrix = problem->matrix;
        double poison = 0.0;
        for ( int k = matrix->rowStart[i]; k < matrix->rowStart[i + 1]; ++k )
        {
            poison += 0.0 * matrix->value[k];
        }
        diagonal += poison;
    }
    else
    {
        cnSweepRow* row = prepared->sweepRows + i;
        int a = problem->bodyA[i];
        int b = problem->bodyB[i];
        if ( a >= 0 )
        {
            memcpy( row->jA, problem->jacobianA + 6 * i, sizeof( row->jA ) );
            cnApplyW( problem, a, row->jA, row->wjA );
        }
        else
        {
            memset( row->jA, 0, sizeof( row->jA ) );
            memset( row->wjA, 0, sizeof( row->wjA ) );
        }
        if ( b >= 0 )
        {
            memcpy( row->jB, problem->jacobianB + 6 * i, sizeof( row->jB ) );
            cnApplyW( problem, b, row->jB, row->wjB );
        }
        else
        {
            memset( row->jB, 0, sizeof( row->jB ) );
            memset( row->wjB, 0, sizeof( row->wjB ) );
        }
        // J W J^T: both sides, and the cross terms when both sides are one body
        diagonal = cnDot6( row->jA, row->wjA ) + cnDot6( row->jB, row->wjB );
        if ( a >= 0 && a == b )
        {
            diagonal += cnDot6( row->jA, row->wjB ) + cnDot6( row->jB, row->wjA );
        }
    }
    prepared->baseDiagonal[i] = diagonal;
}

typedef struct cnRowStructureTask
{
    const cnSolverProblem* problem;
    cnPrepared* prepared;
    int first;
} cnRowStructureTask;

static void cnRowStructureRange( int start, int end, int worker, void* context )
{
    (void)worker;
    cnRowStructureTask* task = context;
    for ( int i = task->first + start; i < task->first + end; ++i )
    {
        cnPrepareRowStructure( task->problem, task->prepared, i );
    }
}

// The part of rows [first, end) that b and the softness fix: the diagonal with softness, its
// inverse, the counts of singular and non-finite rows, |D^-1/2 b|^2.
static void cnPrepareRightHandSide( const cnSolverProblem* problem, cnPrepared* prepared, int first, int end )
{
    const double* softness = problem->softness;
    for ( int i = first; i < end; ++i )
    {
        double soft = softness != NULL ? softness[i] : 0.0;
        double diagonal = prepared->baseDiagonal[i] + soft;
        prepared->diagonal[i] = diagonal;
        double free = problem->b[i];
        bool finite = isfinite( free ) && isfinite( diagonal ) && soft >= 0.0;
        bool regular = diagonal > 0.0 && isfinite( diagonal );
        prepared->nonFiniteRows += finite ? 0 : 1;
        prepared->singularRows += regular ? 0 : 1;
        prepared->invDiagonal[i] = regular ? 1.0 / diagonal : 0.0;
        prepared->freeEnergy += regular ? free * free * prepared->invDiagonal[i] : free * free;
    }
}

void cnRefreshPrepared( const cnSolverProblem* problem, cnPrepared* prepared )
{
    prepared->nonFiniteRows = 0;
    prepared->singularRows = 0;
    prepared->freeEnergy = 0.0;
    cnPrepareRightHandSide( problem, prepared, 0, prepared->rowCount );
}

// whether group g is a contact of the pyramid model on bodies a and b (what the sweep's lanes take)
static bool cnLaneGroup( const cnSolverProblem* problem, int g, int a, int b )
{
    const cnRowGroup* group = problem->groups + g;
    int row = group->firstRow;
    return group->kind == cn_groupContact && group->model != cn_frictionCone && group->rowCount == 3 &&
           problem->bodyA[row] == a && problem->bodyB[row] == b;
}

// The runs of each colour into runs[0 .. colorStart[colorCount]) (cnPrepared.colorRuns).
static void cnColorRuns( const cnSolverProblem* problem, int32_t* runs )
{
    for ( int c = 0; c < problem->colorCount; ++c )
    {
        int end = problem->colorStart[c + 1];
        for ( int first = problem->colorStart[c]; first < end; )
        {
            int last = first + 1;
            while ( last < end && cnGroupsShareBody( problem, last - 1, last ) )
            {
                last += 1;
            }
            int row = problem->groups[first].firstRow;
            int a = problem->bodyA[row];
            int b = problem->bodyB[row];
            bool lane = ( a >= 0 || b >= 0 ) && a != b;
            for ( int g = first; g < last; ++g )
            {
                lane = lane && cnLaneGroup( problem, g, a, b );
                runs[g] = 0;
            }
            runs[first] = lane ? last - first : first - last;
            first = last;
        }
    }
}

// Whether the colouring holds: within a colour, groups that act on a common body follow one
// another (each body is stamped with the colour and the last group that used it); and where it
// does, the colours' runs in prepared->colorRuns. False without colours, for an explicit problem,
// or without memory.
static bool cnColoringHolds( const cnSolverProblem* problem, cnScratch* scratch, cnPrepared* prepared )
{
    prepared->colorRuns = NULL;
    if ( problem->colorCount <= 0 || problem->matrix != NULL || problem->bodyCount <= 0 )
    {
        return false;
    }
    // the stamps, then the runs
    int colored = problem->colorStart[problem->colorCount];
    int32_t* stamp = cnScratchBytes( scratch, ( 2 * (size_t)problem->bodyCount + (size_t)colored + 1 ) *
                                                  sizeof( int32_t ) );
    if ( stamp == NULL )
    {
        return false;
    }
    for ( int k = 0; k < 2 * problem->bodyCount; ++k )
    {
        stamp[k] = -1;
    }
    for ( int c = 0; c < problem->colorCount; ++c )
    {
        for ( int g = problem->colorStart[c]; g < problem->colorStart[c + 1]; ++g )
        {
            const cnRowGroup* group = problem->groups + g;
            int bodies[2] = { problem->bodyA[group->firstRow], problem->bodyB[group->firstRow] };
            for ( int side = 0; side < 2; ++side )
            {
                int body = bodies[side];
                if ( body < 0 || ( side == 1 && body == bodies[0] ) )
                {
                    continue;
                }
                if ( stamp[2 * body] == c && stamp[2 * body + 1] != g - 1 )
                {
                    return false;
                }
                stamp[2 * body] = c;
                stamp[2 * body + 1] = g;
            }
        }
    }
    prepared->colorRuns = stamp + 2 * problem->bodyCount;
    cnColorRuns( problem, prepared->colorRuns );
    return true;
}

bool cnPrepareProblem( const cnSolverProblem* problem, cnScratch* scratch, cnPrepared* prepared )
{
    memset( prepared, 0, sizeof( *prepared ) );
    size_t rows = (size_t)( problem->rowCapacity > 0 ? problem->rowCapacity : 1 );
    prepared->explicitForm = problem->matrix != NULL;
    prepared->rowKind = cnScratchBytes( scratch, rows );
    prepared->rowGroup = cnScratchBytes( scratch, rows * sizeof( int32_t ) );
    prepared->normalRow = cnScratchBytes( scratch, rows * sizeof( int32_t ) );
    // the three diagonals in one block
    prepared->baseDiagonal = cnScratchBytes( scratch, 3 * rows * sizeof( double ) );
    if ( prepared->explicitForm == false )
    {
        prepared->sweepRows = cnScratchBytes( scratch, rows * sizeof( cnSweepRow ) );
    }
    if ( prepared->rowKind == NULL || prepared->rowGroup == NULL || prepared->normalRow == NULL ||
         prepared->baseDiagonal == NULL ||
         ( prepared->explicitForm == false && prepared->sweepRows == NULL ) )
    {
        return false;
    }
    prepared->diagonal = prepared->baseDiagonal + rows;
    prepared->invDiagonal = prepared->baseDiagonal + 2 * rows;
    cnPrepareRows( problem, prepared );
    prepared->colored = cnColoringHolds( problem, scratch, prepared );
    return true;
}

void cnPrepareRows( const cnSolverProblem* problem, cnPrepared* prepared )
{
    // rows taken back since (a failed recursion level) are prepared again when they come back
    prepared->rowCount = prepared->rowCount < problem->rowCount ? prepared->rowCount : problem->rowCount;
    prepared->groupCount =
        prepared->groupCount < problem->groupCount ? prepared->groupCount : problem->groupCount;
    for ( int g = prepared->groupCount; g < problem->groupCount; ++g )
    {
        cnPrepareGroup( problem, prepared, g );
    }
    // each row on its own: on the problem's workers
    cnRowStructureTask task = { problem, prepared, prepared->rowCount };
    cnParallelFor( problem->tasks, cnRowStructureRange, problem->rowCount - prepared->rowCount, 64, &task );
    cnPrepareRightHandSide( problem, prepared, prepared->rowCount, problem->rowCount );
    prepared->groupCount = problem->groupCount;
    prepared->rowCount = problem->rowCount;
}

// ---- products -----------------------------------------------------------------------------------

bool cnGroupsShareBody( const cnSolverProblem* problem, int g, int h )
{
    int ga = problem->bodyA[problem->groups[g].firstRow], gb = problem->bodyB[problem->groups[g].firstRow];
    int ha = problem->bodyA[problem->groups[h].firstRow], hb = problem->bodyB[problem->groups[h].firstRow];
    return ( ga >= 0 && ( ga == ha || ga == hb ) ) || ( gb >= 0 && ( gb == ha || gb == hb ) );
}

int cnColorBlockStart( const cnSolverProblem* problem, int colorFirst, int colorEnd, int nominal )
{
    int g = nominal;
    if ( g >= colorEnd )
    {
        return colorEnd;
    }
    while ( g > colorFirst && g < colorEnd && cnGroupsShareBody( problem, g - 1, g ) )
    {
        g += 1;
    }
    return g;
}

// W J^T lambda of rows [first, end), added to the bodies' velocities in row order
static void cnAddRowVelocities( const cnSolverProblem* problem, const cnPrepared* prepared,
                                const double* lambda, int first, int end, double* velocity )
{
    for ( int i = first; i < end; ++i )
    {
        const cnSweepRow* row = prepared->sweepRows + i;
        double l = lambda[i];
        int a = problem->bodyA[i];
        int b = problem->bodyB[i];
        if ( a >= 0 )
        {
            double* v = velocity + 6 * a;
            v[0] += row->wjA[0] * l;
            v[1] += row->wjA[1] * l;
            v[2] += row->wjA[2] * l;
            v[3] += row->wjA[3] * l;
            v[4] += row->wjA[4] * l;
            v[5] += row->wjA[5] * l;
        }
        if ( b >= 0 )
        {
            double* v = velocity + 6 * b;
            v[0] += row->wjB[0] * l;
            v[1] += row->wjB[1] * l;
            v[2] += row->wjB[2] * l;
            v[3] += row->wjB[3] * l;
            v[4] += row->wjB[4] * l;
            v[5] += row->wjB[5] * l;
        }
    }
}

// a colour of a coloured problem, one contiguous run of its groups a worker: a body's rows in a
// colour are one run, so each body's velocity gets its rows in row order, as in the serial loop
typedef struct cnColorVelocity
{
    const cnSolverProblem* problem;
    const cnPrepared* prepared;
    const double* lambda;
    double* velocity;
    int colorFirst;
    int colorEnd;
    int share; // groups a worker takes
} cnColorVelocity;

static void cnColorVelocityTask( int start, int end, int worker, void* context )
{
    (void)worker;
    cnColorVelocity* task = context;
    const cnSolverProblem* problem = task->problem;
    for ( int k = start; k < end; ++k )
    {
        int first = cnColorBlockStart( problem, task->colorFirst, task->colorEnd,
                                       task->colorFirst + k * task->share );
        int last = cnColorBlockStart( problem, task->colorFirst, task->colorEnd,
                                      task->colorFirst + ( k + 1 ) * task->share );
        if ( first < last )
        {
            const cnRowGroup* tail = problem->groups + last - 1;
            cnAddRowVelocities( problem, task->prepared, task->lambda, problem->groups[first].firstRow,
                                tail->firstRow + tail->rowCount, task->velocity );
        }
    }
}

void cnComputeVelocity( const cnSolverProblem* problem, const cnPrepared* prepared, const double* lambda,
                        double* velocity )
{
    if ( problem->matrix != NULL )
    {
        return;
    }
    memset( velocity, 0, 6 * (size_t)problem->bodyCount * sizeof( double ) );
    int workers = cnWorkerCount( problem->tasks );
    if ( prepared->colored == false || workers <= 1 )
    {
        cnAddRowVelocities( problem, prepared, lambda, 0, problem->rowCount, velocity );
        return;
    }
    for ( int c = 0; c < problem->colorCount; ++c )
    {
        cnColorVelocity task = { problem,
                                 prepared,
                                 lambda,
                                 velocity,
                                 problem->colorStart[c],
                                 problem->colorStart[c + 1],
                                 ( problem->colorStart[c + 1] - problem->colorStart[c] + workers - 1 ) /
                                     workers };
        if ( task.share > 0 )
        {
            cnParallelFor( problem->tasks, cnColorVelocityTask, workers, 1, &task );
        }
    }
    // the overflow, the joints and the oracle's rows, in order
    int rest = problem->colorStart[problem->colorCount];
    int firstRow = rest < problem->groupCount ? problem->groups[rest].firstRow
                   : rest > 0 ? problem->groups[rest - 1].firstRow + problem->groups[rest - 1].rowCount
                              : 0;
    cnAddRowVelocities( problem, prepared, lambda, firstRow, problem->rowCount, velocity );
}

typedef struct cnRowValues
{
    const cnSolverProblem* problem;
    const cnPrepared* prepared;
    const double* lambda;
    const double* velocity;
    double* w;
} cnRowValues;

static void cnRowValuesRange( int start, int end, int worker, void* context );

void cnComputeW( const cnSolverProblem* problem, const cnPrepared* prepared, const double* lambda,
                 const double* velocity, double* w )
{
    // each row on its own: on the problem's workers
    cnRowValues task = { problem, prepared, lambda, velocity, w };
    cnParallelFor( problem->tasks, cnRowValuesRange, problem->rowCount, 256, &task );
}

static void cnRowValuesRange( int start, int end, int worker, void* context )
{
    (void)worker;
    const cnRowValues* task = context;
    const cnSolverProblem* problem = task->problem;
    const cnPrepared* prepared = task->prepared;
    const double* lambda = task->lambda;
    const double* velocity = task->velocity;
    double* w = task->w;
    for ( int i = start; i < end; ++i )
    {
        double soft = problem->softness != NULL ? problem->softness[i] * lambda[i] : 0.0;
        double sum = 0.0;
        if ( problem->matrix != NULL )
        {
            const cnSparseMatrix* matrix = problem->matrix;
            for ( int k = matrix->rowStart[i]; k < matrix->rowStart[i + 1]; ++k )
            {
                sum += matrix->value[k] * lambda[matrix->column[k]];
            }
        }
        else
        {
            const cnSweepRow* row = prepared->sweepRows + i;
            int a = problem->bodyA[i];
            int b = problem->bodyB[i];
            if ( a >= 0 )
            {
                sum += cnDot6( row->jA, velocity + 6 * a );
            }
            if ( b >= 0 )
            {
                sum += cnDot6( row->jB, velocity + 6 * b );
            }
        }
        w[i] = sum + soft + problem->b[i];
    }
}

void cnRowBounds( const cnSolverProblem* problem, const cnPrepared* prepared, const double* lambda, int row,
                  double* low, double* high )
{
    switch ( prepared->rowKind[row] )
    {
        case cn_rowNormal:
            *low = 0.0;
            *high = (double)INFINITY;
            return;
        case cn_rowTangent:
        {
            int normal = prepared->normalRow[row];
            double limit = problem->groups[prepared->rowGroup[row]].mu * lambda[normal];
            // a negative normal impulse (a bad guess) allows no friction; NaN stays NaN
            limit = limit < 0.0 ? 0.0 : limit;
            *low = -limit;
            *high = limit;
            return;
        }
        default:
            *low = problem->lower[row];
            *high = problem->upper[row];
            return;
    }
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

// Accumulates row `row`'s entries A_{row, j} = sum over shared bodies of J_row,body W J_j,body^T
// into `accumulator` (indexed by local column), calling `touch` bookkeeping through `marked`:
// J_j . (W^T J_row^T), so that a W block that is not symmetric gives A, not its transpose.
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
        cnApplyWTranspose( problem, body, j, wj );
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
    if ( arena == NULL || !cnValidateProblem( problem, NULL ) || problem->rowCount > CN_DENSE_LIMIT )
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

// Row `local` of a sparse matrix being written, entry (c, x) in column order: the softness goes on
// the diagonal once, and a diagonal entry is made for it where the row has none before column c.
static void cnPlaceEntry( int* column, double* value, int* at, int local, double soft, bool* placed, int c,
                          double x )
{
    if ( *placed == false && c > local && soft != 0.0 )
    {
        column[*at] = local;
        value[*at] = soft;
        *at += 1;
        *placed = true;
    }
    column[*at] = c;
    value[*at] = x + ( c == local && *placed == false ? soft : 0.0 );
    *placed = *placed || c == local;
    *at += 1;
}

// the diagonal entry of a softness on a row whose entries all lie left of it (or that has none)
static void cnFinishRow( int* column, double* value, int* at, int local, double soft, bool placed )
{
    if ( placed == false && soft != 0.0 )
    {
        column[*at] = local;
        value[*at] = soft;
        *at += 1;
    }
}

bool cnBuildSparseMatrix( const cnSolverProblem* problem, const int* rows, int count, cnArena* arena,
                          cnSparseMatrix* matrix )
{
    if ( arena == NULL )
    {
        return false;
    }
    cnScratch scratch = { .arena = arena };
    return cnBuildSparseMatrixIn( problem, rows, count, &scratch, matrix );
}

bool cnBuildSparseMatrixIn( const cnSolverProblem* problem, const int* rows, int count, cnScratch* scratch,
                            cnSparseMatrix* matrix )
{
    if ( matrix == NULL || scratch == NULL || !cnValidateProblem( problem, NULL ) )
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

    int* rowStart = cnScratchInts( scratch, count + 1 );
    if ( rowStart == NULL )
    {
        return false;
    }
    rowStart[0] = 0;

    if ( problem->matrix != NULL )
    {
        const cnSparseMatrix* source = problem->matrix;
        // global row -> local index, -1 when not selected
        int* localOf = cnScratchInts( scratch, n );
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
        // room for every selected entry, and a diagonal entry per row for a softness with none
        int nonzeros = 0;
        for ( int local = 0; local < count; ++local )
        {
            int row = rows != NULL ? rows[local] : local;
            for ( int e = source->rowStart[row]; e < source->rowStart[row + 1]; ++e )
            {
                nonzeros += localOf[source->column[e]] >= 0 ? 1 : 0;
            }
            nonzeros += 1;
        }
        int* column = cnScratchInts( scratch, nonzeros );
        double* value = cnScratchDoubles( scratch, nonzeros );
        if ( column == NULL || value == NULL )
        {
            return false;
        }
        int at = 0;
        for ( int local = 0; local < count; ++local )
        {
            int row = rows != NULL ? rows[local] : local;
            double soft = problem->softness != NULL ? problem->softness[row] : 0.0;
            bool placed = false;
            for ( int e = source->rowStart[row]; e < source->rowStart[row + 1]; ++e )
            {
                int c = localOf[source->column[e]];
                if ( c >= 0 )
                {
                    cnPlaceEntry( column, value, &at, local, soft, &placed, c, source->value[e] );
                }
            }
            cnFinishRow( column, value, &at, local, soft, placed );
            rowStart[local + 1] = at;
        }
        *matrix = ( cnSparseMatrix ){ count, count, rowStart, column, value };
        return true;
    }

    // matrix-free: rows couple only through shared bodies
    cnBodyBuckets buckets;
    if ( !cnBuildBuckets( problem, rows, count, scratch, &buckets ) )
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
        bound += ( rowBound < (size_t)count ? rowBound : (size_t)count ) + 1; // + a diagonal for a softness
    }
    if ( bound > (size_t)INT32_MAX )
    {
        return false;
    }
    int* column = cnScratchInts( scratch, (int)bound );
    double* value = cnScratchDoubles( scratch, (int)bound );
    double* accumulator = cnScratchDoubles( scratch, count );
    int* touched = cnScratchInts( scratch, count );
    bool* marked = (bool*)(void*)cnScratchDoubles( scratch, count );
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
        double soft = problem->softness != NULL ? problem->softness[row] : 0.0;
        bool placed = false;
        for ( int t = 0; t < touchedCount; ++t )
        {
            int c = touched[t];
            cnPlaceEntry( column, value, &at, local, soft, &placed, c, accumulator[c] );
            marked[c] = false;
        }
        cnFinishRow( column, value, &at, local, soft, placed );
        rowStart[local + 1] = at;
    }
    *matrix = ( cnSparseMatrix ){ count, count, rowStart, column, value };
    return true;
}

void cnSparseMultiply( const cnSparseMatrix* k, const double* x, double* y )
{
    for ( int r = 0; r < k->rows; ++r )
    {
        double sum = 0.0;
        for ( int e = k->rowStart[r]; e < k->rowStart[r + 1]; ++e )
        {
            sum += k->value[e] * x[k->column[e]];
        }
        y[r] = sum;
    }
}
