// SPDX-License-Identifier: MIT
// IC(0) with Manteuffel's diagonal shift (ic0.h). Row-oriented: row i of L is computed from the
// rows above it,
//
//     L[i][k] = ( A[i][k] - sum_{j < k} L[i][j] L[k][j] ) / L[k][k]    for k < i in row i's pattern
//     L[i][i] = sqrt( A[i][i] (1 + shift) - sum_{j < i} L[i][j]^2 )
//
// where the sums run only over the pattern (fill-in is dropped). A dense marker array maps a column
// to its place in the current row, so each sparse dot product walks row k once: the cost is the
// sum over the entries (i, k) of the lower triangle of the length of row k, about n (nnz/2n)^2
// multiply-adds, never O(n^2).

#include "ic0.h"

#include <math.h>
#include <stdlib.h>

static const double cn_ic0Shifts[CN_IC0_SHIFT_COUNT] = { 1e-3, 1e-2, 1e-1, 1.0 };

// grows the arrays to n rows and `entries` entries of L; false when memory runs out (the arrays
// kept are still valid and released by cnIc0Release)
static bool cnIc0Reserve( cnIc0* ic, int n, int entries )
{
    if ( n > ic->rowCapacity || ic->rowStart == NULL )
    {
        int* rowStart = realloc( ic->rowStart, ( (size_t)n + 1 ) * sizeof( int ) );
        if ( rowStart == NULL )
        {
            return false;
        }
        ic->rowStart = rowStart;
        int* position = realloc( ic->position, ( (size_t)n + 1 ) * sizeof( int ) );
        if ( position == NULL )
        {
            return false;
        }
        ic->position = position;
        ic->rowCapacity = n;
    }
    if ( entries > ic->valueCapacity || ic->column == NULL || ic->value == NULL )
    {
        size_t count = (size_t)entries + 1;
        int* column = realloc( ic->column, count * sizeof( int ) );
        if ( column == NULL )
        {
            return false;
        }
        ic->column = column;
        double* value = realloc( ic->value, count * sizeof( double ) );
        if ( value == NULL )
        {
            return false;
        }
        ic->value = value;
        ic->valueCapacity = entries;
    }
    return true;
}

// A's structure and entries: square, columns increasing and in range, finite, a positive diagonal
// in every row. Counts the entries of the lower triangle. Returns the reason it is refused, or NULL.
static const char* cnIc0Check( const cnSparseMatrix* a, int* lowerCount )
{
    if ( a == NULL || a->rows < 0 || a->rows != a->columns )
    {
        return "the matrix is not square";
    }
    int n = a->rows;
    if ( n > 0 && ( a->rowStart == NULL || a->column == NULL || a->value == NULL ) )
    {
        return "the matrix has no arrays";
    }
    int lower = 0;
    for ( int i = 0; i < n; ++i )
    {
        int start = a->rowStart[i];
        int end = a->rowStart[i + 1];
        if ( start < 0 || end < start )
        {
            return "the row starts are not increasing";
        }
        bool hasDiagonal = false;
        for ( int e = start; e < end; ++e )
        {
            int j = a->column[e];
            if ( j < 0 || j >= n || ( e > start && j <= a->column[e - 1] ) )
            {
                return "a column index is out of range or not increasing within its row";
            }
            if ( !isfinite( a->value[e] ) )
            {
                return "an entry is not finite";
            }
            if ( j < i )
            {
                lower += 1;
            }
            else if ( j == i )
            {
                if ( !( a->value[e] > 0.0 ) )
                {
                    return "a diagonal entry is not positive: the matrix is not positive definite";
                }
                hasDiagonal = true;
                lower += 1;
            }
        }
        if ( !hasDiagonal )
        {
            return "a row has no diagonal entry in the pattern";
        }
    }
    *lowerCount = lower;
    return NULL;
}

// One factorisation of A + shift diag(A) on the pattern already in ic; false at a pivot that is not
// positive (or not finite).
static bool cnIc0Attempt( cnIc0* ic, const cnSparseMatrix* a, double shift )
{
    int n = ic->n;
    const int* rowStart = ic->rowStart;
    const int* column = ic->column;
    double* value = ic->value;
    int* position = ic->position;
    for ( int i = 0; i < n; ++i )
    {
        position[i] = -1;
    }
    for ( int i = 0; i < n; ++i )
    {
        int start = rowStart[i];
        int diagonal = rowStart[i + 1] - 1;

        // row i of A's lower triangle into L, and the marker of its columns
        int from = a->rowStart[i];
        for ( int e = start; e <= diagonal; ++e, ++from )
        {
            value[e] = a->value[from];
            position[column[e]] = e;
        }

        // the off-diagonal entries, left to right: each needs the entries left of it in row i
        for ( int e = start; e < diagonal; ++e )
        {
            int k = column[e];
            double sum = value[e];
            int kDiagonal = rowStart[k + 1] - 1;
            for ( int f = rowStart[k]; f < kDiagonal; ++f )
            {
                int at = position[column[f]];
                if ( at >= 0 )
                {
                    sum -= value[at] * value[f];
                }
            }
            value[e] = sum / value[kDiagonal];
        }

        // the pivot
        double shifted = value[diagonal] * ( 1.0 + shift );
        double pivot = shifted;
        for ( int e = start; e < diagonal; ++e )
        {
            pivot -= value[e] * value[e];
        }
        for ( int e = start; e <= diagonal; ++e )
        {
            position[column[e]] = -1;
        }
        if ( !isfinite( pivot ) || !( pivot > CN_IC0_PIVOT_RATIO * shifted ) )
        {
            return false;
        }
        value[diagonal] = sqrt( pivot );
    }
    return true;
}

bool cnIc0Factor( cnIc0* ic, const cnSparseMatrix* a, const char** why )
{
    ic->factored = false;
    // the size the identity of a failed factor applies to (cnIc0Apply)
    ic->n = a != NULL && a->rows == a->columns && a->rows > 0 ? a->rows : 0;
    ic->shift = 0.0;
    ic->attempts = 0;
    const char* reason = NULL;
    int lower = 0;
    reason = cnIc0Check( a, &lower );
    if ( reason == NULL && !cnIc0Reserve( ic, a->rows, lower ) )
    {
        reason = "out of memory";
    }
    if ( reason != NULL )
    {
        if ( why != NULL )
        {
            *why = reason;
        }
        return false;
    }

    // L's pattern: A's lower triangle, whose diagonal comes last in each row as columns increase
    int n = a->rows;
    int at = 0;
    ic->rowStart[0] = 0;
    for ( int i = 0; i < n; ++i )
    {
        for ( int e = a->rowStart[i]; e < a->rowStart[i + 1] && a->column[e] <= i; ++e )
        {
            ic->column[at++] = a->column[e];
        }
        ic->rowStart[i + 1] = at;
    }

    // unshifted first, then the shifts in turn
    for ( int attempt = 0; attempt <= CN_IC0_SHIFT_COUNT; ++attempt )
    {
        double shift = attempt == 0 ? 0.0 : cn_ic0Shifts[attempt - 1];
        ic->attempts = attempt + 1;
        if ( cnIc0Attempt( ic, a, shift ) )
        {
            ic->shift = shift;
            ic->factored = true;
            return true;
        }
    }
    if ( why != NULL )
    {
        *why = "a pivot is not positive even on A + diag(A): the matrix is far from positive definite";
    }
    return false;
}

void cnIc0Apply( void* context, const double* r, double* z )
{
    const cnIc0* ic = context;
    int n = ic->n;
    if ( !ic->factored )
    {
        for ( int i = 0; i < n; ++i )
        {
            z[i] = r[i];
        }
        return;
    }
    const int* rowStart = ic->rowStart;
    const int* column = ic->column;
    const double* value = ic->value;

    // L y = r, row by row
    for ( int i = 0; i < n; ++i )
    {
        int diagonal = rowStart[i + 1] - 1;
        double sum = r[i];
        for ( int e = rowStart[i]; e < diagonal; ++e )
        {
            sum -= value[e] * z[column[e]];
        }
        z[i] = sum / value[diagonal];
    }
    // L^T z = y in place: row i of L is column i of L^T, so z[i] done scatters into the rows above
    for ( int i = n - 1; i >= 0; --i )
    {
        int diagonal = rowStart[i + 1] - 1;
        double zi = z[i] / value[diagonal];
        z[i] = zi;
        for ( int e = rowStart[i]; e < diagonal; ++e )
        {
            z[column[e]] -= value[e] * zi;
        }
    }
}

void cnIc0Release( cnIc0* ic )
{
    free( ic->rowStart );
    free( ic->column );
    free( ic->value );
    free( ic->position );
    *ic = ( cnIc0 ){ 0 };
}
