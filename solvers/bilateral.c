// SPDX-License-Identifier: MIT
// Exact solves of the free bilateral rows on their tree (bilateral.h).

#include "bilateral.h"

#include "core.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

// a pivot below this fraction of its row's own diagonal is a dependent row (dropped)
#define CN_BILATERAL_PIVOT 1e-9

static bool cnIsFreeRow( const cnSolverProblem* problem, int i )
{
    return problem->lower[i] == -(double)INFINITY && problem->upper[i] == (double)INFINITY;
}

// A unit before ordering: its rows are [first, first + count) of the gathered rows.
typedef struct cnCandidate
{
    int a, b;  // bodies, a <= b when both are dynamic; a pendant has b = -1
    int order; // the first group's index: units keep the problem's order
    int first, count;
} cnCandidate;

static int cnCompareCandidates( const void* x, const void* y )
{
    const cnCandidate* p = x;
    const cnCandidate* q = y;
    if ( p->a != q->a )
    {
        return p->a < q->a ? -1 : 1;
    }
    if ( p->b != q->b )
    {
        return p->b < q->b ? -1 : 1;
    }
    return p->order < q->order ? -1 : p->order > q->order;
}

static int cnCompareOrder( const void* x, const void* y )
{
    const cnCandidate* p = x;
    const cnCandidate* q = y;
    return p->order < q->order ? -1 : p->order > q->order;
}

// the body of a unit other than `body` (-1 for a pendant's missing side)
static int cnOtherBody( const cnCandidate* c, int body )
{
    return c->a == body ? c->b : c->a;
}

// the group of row i (groups tile the rows in order: a binary search)
static int cnGroupOfRow( const cnSolverProblem* problem, int i )
{
    int low = 0, high = problem->groupCount - 1;
    while ( low < high )
    {
        int mid = ( low + high + 1 ) / 2;
        if ( problem->groups[mid].firstRow <= i )
        {
            low = mid;
        }
        else
        {
            high = mid - 1;
        }
    }
    return low;
}

// a bump allocator over one scratch block
typedef struct cnBump
{
    char* next;
} cnBump;

static void* cnTake( cnBump* bump, size_t size )
{
    void* p = bump->next;
    bump->next += ( size + 15 ) & ~(size_t)15;
    return p;
}

static size_t cnRound( size_t size )
{
    return ( size + 15 ) & ~(size_t)15;
}

// Gather the candidates (a group's free rows on one pair of bodies) and merge those of one dynamic
// pair into units, in the problem's order. Returns the unit count; `units` and `unitRows` filled.
static int cnGatherUnits( const cnSolverProblem* problem, cnCandidate* candidates, int* gathered,
                          cnCandidate* units, int* unitRows )
{
    int candidateCount = 0;
    int gatheredCount = 0;
    for ( int g = 0; g < problem->groupCount; ++g )
    {
        const cnRowGroup* group = problem->groups + g;
        if ( group->kind != cn_groupBilateral )
        {
            continue;
        }
        int first = group->firstRow;
        int a = problem->bodyA[first];
        int b = problem->bodyB[first];
        bool same = true;
        for ( int i = first; i < first + group->rowCount; ++i )
        {
            same = same && problem->bodyA[i] == a && problem->bodyB[i] == b;
        }
        if ( same == false || ( a < 0 && b < 0 ) || a == b )
        {
            continue; // left to the sweeps
        }
        cnCandidate c = { .a = a >= 0 ? a : b, .b = -1, .order = g, .first = gatheredCount, .count = 0 };
        if ( a >= 0 && b >= 0 )
        {
            c.a = a < b ? a : b;
            c.b = a < b ? b : a;
        }
        for ( int i = first; i < first + group->rowCount; ++i )
        {
            if ( cnIsFreeRow( problem, i ) )
            {
                gathered[gatheredCount++] = i;
                c.count += 1;
            }
        }
        if ( c.count > 0 )
        {
            candidates[candidateCount++] = c;
        }
    }

    qsort( candidates, (size_t)candidateCount, sizeof( cnCandidate ), cnCompareCandidates );
    int unitCount = 0;
    int rowCount = 0;
    for ( int k = 0; k < candidateCount; ++k )
    {
        const cnCandidate* c = candidates + k;
        cnCandidate* last = unitCount > 0 ? units + unitCount - 1 : NULL;
        bool merge = last != NULL && c->b >= 0 && last->a == c->a && last->b == c->b &&
                     last->count + c->count <= CN_BILATERAL_MAX_ROWS;
        if ( merge == false )
        {
            units[unitCount++] = ( cnCandidate ){ c->a, c->b, c->order, rowCount, 0 };
            last = units + unitCount - 1;
        }
        for ( int r = 0; r < c->count; ++r )
        {
            unitRows[rowCount++] = gathered[c->first + r];
        }
        last->count += c->count;
    }
    qsort( units, (size_t)unitCount, sizeof( cnCandidate ), cnCompareOrder );
    return unitCount;
}

bool cnBilateralBuild( const cnSolverProblem* problem, cnScratch* scratch, cnBilateral* out )
{
    memset( out, 0, sizeof( *out ) );
    if ( problem->matrix != NULL || problem->bodyCount == 0 )
    {
        return true;
    }
    int groups = problem->groupCount;
    int bodies = problem->bodyCount;
    int freeRows = 0;
    for ( int g = 0; g < groups; ++g )
    {
        const cnRowGroup* group = problem->groups + g;
        for ( int i = group->firstRow;
              group->kind == cn_groupBilateral && i < group->firstRow + group->rowCount; ++i )
        {
            freeRows += cnIsFreeRow( problem, i ) ? 1 : 0;
        }
    }
    if ( freeRows == 0 )
    {
        return true;
    }

    size_t g = (size_t)groups;
    size_t n = (size_t)bodies;
    size_t r = (size_t)freeRows;
    size_t tempSize = 2 * cnRound( g * sizeof( cnCandidate ) ) + 2 * cnRound( r * sizeof( int ) ) +
                      5 * cnRound( n * sizeof( int ) ) + cnRound( ( n + 1 ) * sizeof( int ) ) +
                      3 * cnRound( g * sizeof( int ) );
    cnBump bump = { cnScratchBytes( scratch, tempSize ) };
    if ( bump.next == NULL )
    {
        return false;
    }
    cnCandidate* candidates = cnTake( &bump, g * sizeof( cnCandidate ) );
    cnCandidate* units = cnTake( &bump, g * sizeof( cnCandidate ) );
    int* gathered = cnTake( &bump, r * sizeof( int ) );
    int* unitRows = cnTake( &bump, r * sizeof( int ) );
    int* parent = cnTake( &bump, n * sizeof( int ) );
    int* stackBody = cnTake( &bump, n * sizeof( int ) );
    int* stackNext = cnTake( &bump, n * sizeof( int ) );
    int* parentUnit = cnTake( &bump, n * sizeof( int ) );
    int* cursor = cnTake( &bump, n * sizeof( int ) );
    int* incidenceStart = cnTake( &bump, ( n + 1 ) * sizeof( int ) );
    int* incidence = cnTake( &bump, 2 * g * sizeof( int ) ); // two rounded blocks of g
    int* place = cnTake( &bump, g * sizeof( int ) );
    int unitCount = cnGatherUnits( problem, candidates, gathered, units, unitRows );
    if ( unitCount == 0 )
    {
        return true;
    }

    // the forest: a pendant is always a tree unit; a pair joins two trees or closes a loop
    for ( int i = 0; i < bodies; ++i )
    {
        parent[i] = i;
    }
    int treeCount = 0;
    memset( incidenceStart, 0, ( n + 1 ) * sizeof( int ) );
    for ( int u = 0; u < unitCount; ++u )
    {
        const cnCandidate* c = units + u;
        bool tree = true;
        if ( c->b >= 0 )
        {
            int ra = cnUnionFindRoot( parent, c->a );
            int rb = cnUnionFindRoot( parent, c->b );
            tree = ra != rb;
            parent[ra] = rb;
        }
        place[u] = tree ? -1 : -2; // -1: a tree unit not placed yet; -2: a loop unit
        if ( tree )
        {
            treeCount += 1;
            incidenceStart[c->a + 1] += 1;
            incidenceStart[c->b + 1] += c->b >= 0 ? 1 : 0;
        }
    }
    for ( int i = 0; i < bodies; ++i )
    {
        incidenceStart[i + 1] += incidenceStart[i];
        cursor[i] = incidenceStart[i];
    }
    for ( int u = 0; u < unitCount; ++u )
    {
        if ( place[u] == -1 )
        {
            incidence[cursor[units[u].a]++] = u;
            if ( units[u].b >= 0 )
            {
                incidence[cursor[units[u].b]++] = u;
            }
        }
    }

    // elimination order: a post-order of each tree; finishing a body places its pendants, then the
    // edge to its parent
    int next = 0;
    for ( int i = 0; i < bodies; ++i )
    {
        parentUnit[i] = -2; // not visited
    }
    for ( int root = 0; root < bodies; ++root )
    {
        if ( parentUnit[root] != -2 || incidenceStart[root] == incidenceStart[root + 1] )
        {
            continue;
        }
        int depth = 0;
        stackBody[0] = root;
        stackNext[0] = incidenceStart[root];
        parentUnit[root] = -1;
        while ( depth >= 0 )
        {
            int body = stackBody[depth];
            if ( stackNext[depth] < incidenceStart[body + 1] )
            {
                int u = incidence[stackNext[depth]++];
                int other = cnOtherBody( units + u, body );
                if ( other >= 0 && parentUnit[other] == -2 )
                {
                    parentUnit[other] = u;
                    depth += 1;
                    stackBody[depth] = other;
                    stackNext[depth] = incidenceStart[other];
                }
                continue;
            }
            for ( int k = incidenceStart[body]; k < incidenceStart[body + 1]; ++k )
            {
                int u = incidence[k];
                place[u] = units[u].b < 0 ? next++ : place[u];
            }
            if ( parentUnit[body] >= 0 )
            {
                place[parentUnit[body]] = next++;
            }
            depth -= 1;
        }
    }
    // loop units after the tree, in the problem's order
    for ( int u = 0; u < unitCount; ++u )
    {
        place[u] = place[u] == -2 ? next++ : place[u];
    }

    // the later neighbours of each tree unit: the tree units at its bodies placed after it
    size_t neighbourTotal = 0;
    size_t blockTotal = 0;
    size_t diagonalTotal = 0;
    for ( int u = 0; u < unitCount; ++u )
    {
        const cnCandidate* c = units + u;
        diagonalTotal += (size_t)c->count * (size_t)c->count;
        int sides[2] = { c->a, place[u] < treeCount ? c->b : -1 };
        for ( int s = 0; s < 2 && place[u] < treeCount; ++s )
        {
            for ( int k = sides[s] >= 0 ? incidenceStart[sides[s]] : 0;
                  sides[s] >= 0 && k < incidenceStart[sides[s] + 1]; ++k )
            {
                int v = incidence[k];
                if ( place[v] > place[u] )
                {
                    neighbourTotal += 1;
                    blockTotal += (size_t)c->count * (size_t)units[v].count;
                }
            }
        }
    }

    size_t rows = (size_t)freeRows;
    size_t unitSize = (size_t)unitCount;
    // one piece each, as taken below
    size_t size = cnRound( blockTotal * sizeof( double ) ) + cnRound( diagonalTotal * sizeof( double ) ) +
                  2 * cnRound( rows * sizeof( double ) ) + 2 * cnRound( 12 * rows * sizeof( double ) ) +
                  cnRound( unitSize * sizeof( cnBilateralUnit ) ) + cnRound( rows * sizeof( int ) ) +
                  2 * cnRound( neighbourTotal * sizeof( int ) ) + cnRound( rows * sizeof( bool ) ) +
                  cnRound( unitSize * sizeof( int ) ) + cnRound( g );
    cnBump final = { cnScratchBytes( scratch, size ) };
    if ( final.next == NULL )
    {
        return false;
    }
    out->blocks = cnTake( &final, blockTotal * sizeof( double ) );
    out->diagonal = cnTake( &final, diagonalTotal * sizeof( double ) );
    out->rowDiagonal = cnTake( &final, rows * sizeof( double ) );
    out->wj = cnTake( &final, 12 * rows * sizeof( double ) );
    out->jacobian = cnTake( &final, 12 * rows * sizeof( double ) );
    out->work = cnTake( &final, rows * sizeof( double ) );
    out->units = cnTake( &final, unitSize * sizeof( cnBilateralUnit ) );
    out->rows = cnTake( &final, rows * sizeof( int ) );
    out->neighbour = cnTake( &final, neighbourTotal * sizeof( int ) );
    out->blockOffset = cnTake( &final, neighbourTotal * sizeof( int ) );
    out->dropped = cnTake( &final, rows * sizeof( bool ) );
    int* reverse = cnTake( &final, unitSize * sizeof( int ) );
    out->wholeGroup = cnTake( &final, g );
    out->unitCount = unitCount;
    out->treeCount = treeCount;

    for ( int u = 0; u < unitCount; ++u )
    {
        reverse[place[u]] = u;
    }
    int rowNext = 0;
    int neighbourNext = 0;
    size_t diagonalNext = 0;
    size_t blockNext = 0;
    for ( int at = 0; at < unitCount; ++at )
    {
        const cnCandidate* c = units + reverse[at];
        cnBilateralUnit* unit = out->units + at;
        *unit = ( cnBilateralUnit ){
            .firstRow = rowNext,
            .rowCount = c->count,
            .body = { c->a, c->b },
            .firstNeighbour = neighbourNext,
            .neighbourCount = 0,
            .diagonalOffset = (int)diagonalNext,
        };
        diagonalNext += (size_t)c->count * (size_t)c->count;
        for ( int k = 0; k < c->count; ++k )
        {
            out->rows[rowNext++] = unitRows[c->first + k];
        }
        for ( int s = 0; s < 2 && at < treeCount; ++s )
        {
            int body = s == 0 ? c->a : c->b;
            for ( int k = body >= 0 ? incidenceStart[body] : 0; body >= 0 && k < incidenceStart[body + 1];
                  ++k )
            {
                int v = incidence[k];
                if ( place[v] > at )
                {
                    out->neighbour[neighbourNext] = place[v];
                    out->blockOffset[neighbourNext] = (int)blockNext;
                    blockNext += (size_t)c->count * (size_t)units[v].count;
                    neighbourNext += 1;
                    unit->neighbourCount += 1;
                }
            }
        }
    }
    out->rowCount = rowNext; // the free rows of groups left out (no dynamic body) are in no unit
    // the groups in units with all their rows (a group's rows are in at most one unit)
    memset( out->wholeGroup, 0, g );
    for ( int u = 0; u < unitCount; ++u )
    {
        const cnBilateralUnit* unit = out->units + u;
        for ( int at = unit->firstRow; at < unit->firstRow + unit->rowCount; )
        {
            int group = cnGroupOfRow( problem, out->rows[at] );
            int count = problem->groups[group].rowCount;
            bool whole = at + count <= unit->firstRow + unit->rowCount;
            for ( int k = 0; whole && k < count; ++k )
            {
                whole = out->rows[at + k] == problem->groups[group].firstRow + k;
            }
            out->wholeGroup[group] = whole;
            at += whole ? count : 1;
        }
    }
    return true;
}

// ---- factor -----------------------------------------------------------------------------------------

// the index (0, 1) of `body` among a unit's bodies
static inline int cnSideOf( const cnBilateralUnit* unit, int body )
{
    return unit->body[0] == body ? 0 : 1;
}

// In-place Cholesky of an n x n block (lower triangle used); a pivot below CN_BILATERAL_PIVOT of
// its row's diagonal drops the row (its column zeroed, its pivot 1).
static void cnCholesky( double* a, int n, const double* rowDiagonal, bool* dropped )
{
    for ( int j = 0; j < n; ++j )
    {
        double d = a[j * n + j];
        for ( int k = 0; k < j; ++k )
        {
            d -= a[j * n + k] * a[j * n + k];
        }
        dropped[j] = !( d > CN_BILATERAL_PIVOT * rowDiagonal[j] );
        if ( dropped[j] )
        {
            a[j * n + j] = 1.0;
            for ( int i = j + 1; i < n; ++i )
            {
                a[i * n + j] = 0.0;
            }
            continue;
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
}

// the block L_kl (n_k x n_l) of tree unit l's neighbour k, NULL when l has no such neighbour
static double* cnNeighbourBlock( cnBilateral* bl, int l, int k )
{
    const cnBilateralUnit* unit = bl->units + l;
    for ( int m = unit->firstNeighbour; m < unit->firstNeighbour + unit->neighbourCount; ++m )
    {
        if ( bl->neighbour[m] == k )
        {
            return bl->blocks + bl->blockOffset[m];
        }
    }
    return NULL;
}

void cnBilateralFactor( cnBilateral* bl, const cnSolverProblem* problem )
{
    bl->factored = true;
    // each row's J and W J^T on its unit's bodies, in the unit's order (merged groups may have
    // their sides the other way round); zeros for a missing body
    for ( int e = 0; e < bl->unitCount; ++e )
    {
        const cnBilateralUnit* unit = bl->units + e;
        for ( int r = unit->firstRow; r < unit->firstRow + unit->rowCount; ++r )
        {
            int i = bl->rows[r];
            double* j = bl->jacobian + 12 * (size_t)r;
            double* w = bl->wj + 12 * (size_t)r;
            memset( j, 0, 12 * sizeof( double ) );
            memset( w, 0, 12 * sizeof( double ) );
            for ( int k = 0; k < 2; ++k )
            {
                int body = unit->body[k];
                if ( body < 0 )
                {
                    continue;
                }
                const double* source = problem->bodyA[i] == body ? problem->jacobianA + 6 * (size_t)i
                                                                 : problem->jacobianB + 6 * (size_t)i;
                memcpy( j + 6 * k, source, 6 * sizeof( double ) );
                cnApplyW( problem, body, source, w + 6 * k );
            }
        }
    }
    // the blocks of A + S
    for ( int e = 0; e < bl->unitCount; ++e )
    {
        const cnBilateralUnit* unit = bl->units + e;
        int n = unit->rowCount;
        double* d = bl->diagonal + unit->diagonalOffset;
        for ( int a = 0; a < n; ++a )
        {
            const double* ja = bl->jacobian + 12 * (size_t)( unit->firstRow + a );
            for ( int b = 0; b <= a; ++b )
            {
                const double* wb = bl->wj + 12 * (size_t)( unit->firstRow + b );
                d[a * n + b] = cnDot6( ja, wb ) + cnDot6( ja + 6, wb + 6 );
                d[b * n + a] = d[a * n + b];
            }
            int i = bl->rows[unit->firstRow + a];
            d[a * n + a] += problem->softness != NULL ? problem->softness[i] : 0.0;
            bl->rowDiagonal[unit->firstRow + a] = d[a * n + a];
        }
        for ( int m = unit->firstNeighbour; m < unit->firstNeighbour + unit->neighbourCount; ++m )
        {
            // the neighbour shares one body with this unit
            const cnBilateralUnit* other = bl->units + bl->neighbour[m];
            int shared = other->body[0] == unit->body[0] || other->body[1] == unit->body[0] ? unit->body[0]
                                                                                            : unit->body[1];
            int ke = cnSideOf( unit, shared );
            int kn = cnSideOf( other, shared );
            double* block = bl->blocks + bl->blockOffset[m];
            for ( int a = 0; a < other->rowCount; ++a )
            {
                const double* ja = bl->jacobian + 12 * (size_t)( other->firstRow + a ) + 6 * kn;
                for ( int b = 0; b < n; ++b )
                {
                    block[a * n + b] = cnDot6( ja, bl->wj + 12 * (size_t)( unit->firstRow + b ) + 6 * ke );
                }
            }
        }
    }
    // loop units: their own blocks
    for ( int e = bl->treeCount; e < bl->unitCount; ++e )
    {
        const cnBilateralUnit* unit = bl->units + e;
        cnCholesky( bl->diagonal + unit->diagonalOffset, unit->rowCount, bl->rowDiagonal + unit->firstRow,
                    bl->dropped + unit->firstRow );
    }
    // the tree, in order: factor the pivot block, then the neighbours' blocks, then the Schur
    // complement on the pairs of neighbours (which share a body, so their block exists)
    for ( int e = 0; e < bl->treeCount; ++e )
    {
        const cnBilateralUnit* unit = bl->units + e;
        int n = unit->rowCount;
        double* l = bl->diagonal + unit->diagonalOffset;
        cnCholesky( l, n, bl->rowDiagonal + unit->firstRow, bl->dropped + unit->firstRow );
        const bool* dropped = bl->dropped + unit->firstRow;
        for ( int m = unit->firstNeighbour; m < unit->firstNeighbour + unit->neighbourCount; ++m )
        {
            // L_ke = A_ke L_ee^-T: each row x solves x L_ee^T = row
            double* block = bl->blocks + bl->blockOffset[m];
            int rows = bl->units[bl->neighbour[m]].rowCount;
            for ( int a = 0; a < rows; ++a )
            {
                double* x = block + a * n;
                for ( int j = 0; j < n; ++j )
                {
                    if ( dropped[j] )
                    {
                        x[j] = 0.0;
                        continue;
                    }
                    double s = x[j];
                    for ( int k = 0; k < j; ++k )
                    {
                        s -= x[k] * l[j * n + k];
                    }
                    x[j] = s / l[j * n + j];
                }
            }
        }
        for ( int m = unit->firstNeighbour; m < unit->firstNeighbour + unit->neighbourCount; ++m )
        {
            int k = bl->neighbour[m];
            const double* lk = bl->blocks + bl->blockOffset[m];
            int nk = bl->units[k].rowCount;
            for ( int q = unit->firstNeighbour; q < unit->firstNeighbour + unit->neighbourCount; ++q )
            {
                int j = bl->neighbour[q];
                if ( j > k )
                {
                    continue;
                }
                // T_kj -= L_ke L_je^T, T the diagonal block of k or k's block in j's neighbours
                const double* lj = bl->blocks + bl->blockOffset[q];
                int nj = bl->units[j].rowCount;
                double* target =
                    j == k ? bl->diagonal + bl->units[k].diagonalOffset : cnNeighbourBlock( bl, j, k );
                if ( target == NULL )
                {
                    bl->factored = false; // fill outside the pattern: the order was not perfect
                    return;
                }
                for ( int a = 0; a < nk; ++a )
                {
                    for ( int b = 0; b < nj; ++b )
                    {
                        double s = 0.0;
                        for ( int c = 0; c < n; ++c )
                        {
                            s += lk[a * n + c] * lj[b * n + c];
                        }
                        target[a * nj + b] -= s;
                    }
                }
            }
        }
    }
}

// ---- step -------------------------------------------------------------------------------------------

// w = J v + softness lambda + b of the unit's row r
static inline double cnRowResidual( const cnBilateral* bl, const cnSolverProblem* problem,
                                    const cnBilateralUnit* unit, int r, const double* lambda,
                                    const double* velocity )
{
    int i = bl->rows[r];
    double w = problem->b[i];
    if ( problem->softness != NULL )
    {
        w += problem->softness[i] * lambda[i];
    }
    const double* j = bl->jacobian + 12 * (size_t)r;
    for ( int k = 0; k < 2; ++k )
    {
        if ( unit->body[k] >= 0 )
        {
            w += cnDot6( j + 6 * k, velocity + 6 * (size_t)unit->body[k] );
        }
    }
    return w;
}

// lambda += delta, v += W J^T delta of the unit's row r; returns A_rr delta^2
static inline double cnApplyDelta( const cnBilateral* bl, const cnBilateralUnit* unit, int r, double delta,
                                   double* lambda, double* velocity )
{
    lambda[bl->rows[r]] += delta;
    const double* w = bl->wj + 12 * (size_t)r;
    for ( int k = 0; k < 2; ++k )
    {
        if ( unit->body[k] >= 0 )
        {
            double* v = velocity + 6 * (size_t)unit->body[k];
            for ( int c = 0; c < 6; ++c )
            {
                v[c] += w[6 * k + c] * delta;
            }
        }
    }
    return bl->rowDiagonal[r] * delta * delta;
}

// x <- L^-1 x, then (transpose) L^-T x, over one unit's factored block; dropped rows give 0
static void cnForward( const double* l, int n, const bool* dropped, double* x )
{
    for ( int j = 0; j < n; ++j )
    {
        double s = x[j];
        for ( int k = 0; k < j; ++k )
        {
            s -= l[j * n + k] * x[k];
        }
        x[j] = dropped[j] ? 0.0 : s / l[j * n + j];
    }
}

static void cnBackward( const double* l, int n, const bool* dropped, double* x )
{
    for ( int j = n - 1; j >= 0; --j )
    {
        double s = x[j];
        for ( int k = j + 1; k < n; ++k )
        {
            s -= l[k * n + j] * x[k];
        }
        x[j] = dropped[j] ? 0.0 : s / l[j * n + j];
    }
}

double cnBilateralStep( const cnBilateral* bl, const cnSolverProblem* problem, double* lambda,
                        double* velocity, double* lambdaEnergy )
{
    double energy = 0.0;
    double* x = bl->work;
    if ( bl->factored )
    {
        // the tree: right-hand side -w, forward through L in order, back through L^T
        for ( int e = 0; e < bl->treeCount; ++e )
        {
            const cnBilateralUnit* unit = bl->units + e;
            for ( int r = unit->firstRow; r < unit->firstRow + unit->rowCount; ++r )
            {
                x[r] = -cnRowResidual( bl, problem, unit, r, lambda, velocity );
            }
        }
        for ( int e = 0; e < bl->treeCount; ++e )
        {
            const cnBilateralUnit* unit = bl->units + e;
            int n = unit->rowCount;
            double* xe = x + unit->firstRow;
            cnForward( bl->diagonal + unit->diagonalOffset, n, bl->dropped + unit->firstRow, xe );
            for ( int m = unit->firstNeighbour; m < unit->firstNeighbour + unit->neighbourCount; ++m )
            {
                const cnBilateralUnit* other = bl->units + bl->neighbour[m];
                const double* block = bl->blocks + bl->blockOffset[m];
                double* xk = x + other->firstRow;
                for ( int a = 0; a < other->rowCount; ++a )
                {
                    for ( int c = 0; c < n; ++c )
                    {
                        xk[a] -= block[a * n + c] * xe[c];
                    }
                }
            }
        }
        for ( int e = bl->treeCount - 1; e >= 0; --e )
        {
            const cnBilateralUnit* unit = bl->units + e;
            int n = unit->rowCount;
            double* xe = x + unit->firstRow;
            for ( int m = unit->firstNeighbour; m < unit->firstNeighbour + unit->neighbourCount; ++m )
            {
                const cnBilateralUnit* other = bl->units + bl->neighbour[m];
                const double* block = bl->blocks + bl->blockOffset[m];
                const double* xk = x + other->firstRow;
                for ( int a = 0; a < other->rowCount; ++a )
                {
                    for ( int c = 0; c < n; ++c )
                    {
                        xe[c] -= block[a * n + c] * xk[a];
                    }
                }
            }
            cnBackward( bl->diagonal + unit->diagonalOffset, n, bl->dropped + unit->firstRow, xe );
        }
        for ( int e = 0; e < bl->treeCount; ++e )
        {
            const cnBilateralUnit* unit = bl->units + e;
            for ( int r = unit->firstRow; r < unit->firstRow + unit->rowCount; ++r )
            {
                energy += cnApplyDelta( bl, unit, r, x[r], lambda, velocity );
            }
        }
    }
    // the loop units one after another, each on its own block
    for ( int e = bl->factored ? bl->treeCount : bl->unitCount; e < bl->unitCount; ++e )
    {
        const cnBilateralUnit* unit = bl->units + e;
        double* xe = x + unit->firstRow;
        for ( int a = 0; a < unit->rowCount; ++a )
        {
            xe[a] = -cnRowResidual( bl, problem, unit, unit->firstRow + a, lambda, velocity );
        }
        cnForward( bl->diagonal + unit->diagonalOffset, unit->rowCount, bl->dropped + unit->firstRow, xe );
        cnBackward( bl->diagonal + unit->diagonalOffset, unit->rowCount, bl->dropped + unit->firstRow, xe );
        for ( int a = 0; a < unit->rowCount; ++a )
        {
            energy += cnApplyDelta( bl, unit, unit->firstRow + a, xe[a], lambda, velocity );
        }
    }
    if ( lambdaEnergy != NULL )
    {
        for ( int r = 0; r < bl->rowCount; ++r )
        {
            double value = lambda[bl->rows[r]];
            *lambdaEnergy += bl->rowDiagonal[r] * value * value;
        }
    }
    return energy;
}
