// SPDX-License-Identifier: MIT
// The symmetric factorisation behind PGS-SM and the Newton methods (factor.h): a dense LDL^T in
// tree, and CHOLMOD with AMD when the build has it. Both judge positive definiteness the same way,
// on the ratio of the smallest pivot to the largest (CHOLMOD: cholmod_rcond, the same ratio on the
// diagonal of its factor), and regularise the same way.

#include "factor.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifdef CN_HAS_CHOLMOD
#    include <cholmod.h>
#endif

const char* const cn_factorChoices[cn_factorBackendCount] = { "auto", "dense", "cholmod" };

struct cnFactor
{
    int size;
    int analyses;      // CHOLMOD orderings and symbolic analyses made (cnFactorAnalyses)
    bool ready;        // a successful factorisation is held
    double pivotRatio; // CN_FACTOR_PIVOT_RATIO unless cnFactorSetPivotRatio changed it
    const char* backend;
    const char* reason;
    // dense: L (unit lower, strict part below the diagonal, row major n x n) and D
    double* dense;
    double* pivots;
    int denseCapacity; // rows the dense arrays have room for
#ifdef CN_HAS_CHOLMOD
    bool started;
    cholmod_common common;
    cholmod_factor* factor;
    cholmod_dense* rhs;
    // the pattern the held analysis is of: a matrix with the same one is factorised again without
    // a new ordering and symbolic analysis (the IPM's Newton systems, a retry with more cfm)
    int* patternStart;
    int* patternColumn;
    int patternRows; // -1: none held
    int patternEntries;
#endif
};

bool cnFactorHasCholmod( void )
{
#ifdef CN_HAS_CHOLMOD
    return true;
#else
    return false;
#endif
}

cnFactor* cnFactorCreate( void )
{
    cnFactor* factor = calloc( 1, sizeof( cnFactor ) );
    if ( factor != NULL )
    {
        factor->backend = "none";
        factor->pivotRatio = CN_FACTOR_PIVOT_RATIO;
#ifdef CN_HAS_CHOLMOD
        factor->patternRows = -1;
#endif
    }
    return factor;
}

int cnFactorAnalyses( const cnFactor* factor )
{
    return factor->analyses;
}

void cnFactorSetPivotRatio( cnFactor* factor, double ratio )
{
    factor->pivotRatio = ratio >= 0.0 ? ratio : CN_FACTOR_PIVOT_RATIO;
}

#ifdef CN_HAS_CHOLMOD
static void cnCholmodRelease( cnFactor* factor )
{
    if ( factor->started )
    {
        cholmod_free_factor( &factor->factor, &factor->common );
        cholmod_free_dense( &factor->rhs, &factor->common );
    }
    factor->patternRows = -1;
}

// the analysis held is of this matrix's pattern
static bool cnCholmodSamePattern( const cnFactor* factor, const cnSparseMatrix* matrix )
{
    int rows = matrix->rows;
    int entries = matrix->rowStart[rows];
    return factor->factor != NULL && factor->patternRows == rows && factor->patternEntries == entries &&
           memcmp( factor->patternStart, matrix->rowStart, (size_t)( rows + 1 ) * sizeof( int ) ) == 0 &&
           memcmp( factor->patternColumn, matrix->column, (size_t)entries * sizeof( int ) ) == 0;
}

// remember the pattern of the analysis just made (no reuse when memory runs out)
static void cnCholmodKeepPattern( cnFactor* factor, const cnSparseMatrix* matrix )
{
    int rows = matrix->rows;
    int entries = matrix->rowStart[rows];
    free( factor->patternStart );
    free( factor->patternColumn );
    factor->patternStart = malloc( (size_t)( rows + 1 ) * sizeof( int ) );
    factor->patternColumn = malloc( (size_t)( entries > 0 ? entries : 1 ) * sizeof( int ) );
    if ( factor->patternStart == NULL || factor->patternColumn == NULL )
    {
        factor->patternRows = -1;
        return;
    }
    memcpy( factor->patternStart, matrix->rowStart, (size_t)( rows + 1 ) * sizeof( int ) );
    memcpy( factor->patternColumn, matrix->column, (size_t)entries * sizeof( int ) );
    factor->patternRows = rows;
    factor->patternEntries = entries;
}
#endif

void cnFactorDestroy( cnFactor* factor )
{
    if ( factor == NULL )
    {
        return;
    }
#ifdef CN_HAS_CHOLMOD
    if ( factor->started )
    {
        cnCholmodRelease( factor );
        cholmod_finish( &factor->common );
    }
    free( factor->patternStart );
    free( factor->patternColumn );
#endif
    free( factor->dense );
    free( factor->pivots );
    free( factor );
}

// mean and largest diagonal entry of K (entries absent: 0); false when an entry is not finite
static bool cnDiagonalScale( const cnSparseMatrix* matrix, double* mean, double* largest )
{
    double sum = 0.0;
    double most = 0.0;
    for ( int r = 0; r < matrix->rows; ++r )
    {
        for ( int k = matrix->rowStart[r]; k < matrix->rowStart[r + 1]; ++k )
        {
            if ( isfinite( matrix->value[k] ) == false )
            {
                return false;
            }
            if ( matrix->column[k] == r )
            {
                sum += matrix->value[k];
                most = fmax( most, matrix->value[k] );
            }
        }
    }
    *mean = matrix->rows > 0 ? sum / matrix->rows : 0.0;
    *largest = most;
    return true;
}

// ---- dense LDL^T ----------------------------------------------------------------------------------

static bool cnDenseReserve( cnFactor* factor, int n )
{
    if ( n <= factor->denseCapacity )
    {
        return true;
    }
    free( factor->dense );
    free( factor->pivots );
    factor->dense = malloc( (size_t)n * (size_t)n * sizeof( double ) );
    factor->pivots = malloc( (size_t)n * sizeof( double ) );
    if ( factor->dense == NULL || factor->pivots == NULL )
    {
        free( factor->dense );
        free( factor->pivots );
        factor->dense = NULL;
        factor->pivots = NULL;
        factor->denseCapacity = 0;
        return false;
    }
    factor->denseCapacity = n;
    return true;
}

// LDL^T of K + cfm I in factor->dense (lower triangle) and factor->pivots; false at the first
// pivot at or below `floor`
static bool cnDenseFactor( cnFactor* factor, const cnSparseMatrix* matrix, double cfm, double floor )
{
    int n = matrix->rows;
    double* a = factor->dense;
    double* d = factor->pivots;
    memset( a, 0, (size_t)n * (size_t)n * sizeof( double ) );
    for ( int r = 0; r < n; ++r )
    {
        for ( int k = matrix->rowStart[r]; k < matrix->rowStart[r + 1]; ++k )
        {
            int c = matrix->column[k];
            if ( c <= r )
            {
                a[(size_t)r * (size_t)n + (size_t)c] =
                    matrix->value[k]; // the lower triangle (K is symmetric)
            }
        }
        a[(size_t)r * (size_t)n + (size_t)r] += cfm;
    }
    // column by column: d_j = a_jj - sum_k l_jk^2 d_k, l_ij = (a_ij - sum_k l_ik l_jk d_k) / d_j
    double* scaled = malloc( (size_t)( n > 0 ? n : 1 ) * sizeof( double ) );
    if ( scaled == NULL )
    {
        return false;
    }
    bool ok = true;
    for ( int j = 0; j < n && ok; ++j )
    {
        double* rowJ = a + (size_t)j * (size_t)n;
        double pivot = rowJ[j];
        for ( int k = 0; k < j; ++k )
        {
            scaled[k] = rowJ[k] * d[k];
            pivot -= rowJ[k] * scaled[k];
        }
        if ( !( pivot > floor ) )
        {
            ok = false;
            break;
        }
        d[j] = pivot;
        double inverse = 1.0 / pivot;
        for ( int i = j + 1; i < n; ++i )
        {
            double* rowI = a + (size_t)i * (size_t)n;
            double sum = rowI[j];
            for ( int k = 0; k < j; ++k )
            {
                sum -= rowI[k] * scaled[k];
            }
            rowI[j] = sum * inverse;
        }
    }
    free( scaled );
    return ok;
}

static void cnDenseSolve( const cnFactor* factor, double* x )
{
    int n = factor->size;
    const double* a = factor->dense;
    for ( int i = 0; i < n; ++i )
    {
        const double* row = a + (size_t)i * (size_t)n;
        double sum = x[i];
        for ( int k = 0; k < i; ++k )
        {
            sum -= row[k] * x[k];
        }
        x[i] = sum;
    }
    for ( int i = 0; i < n; ++i )
    {
        x[i] /= factor->pivots[i];
    }
    for ( int i = n - 1; i >= 0; --i )
    {
        double sum = x[i];
        for ( int k = i + 1; k < n; ++k )
        {
            sum -= a[(size_t)k * (size_t)n + (size_t)i] * x[k];
        }
        x[i] = sum;
    }
}

// ---- CHOLMOD ---------------------------------------------------------------------------------------

// CHOLMOD factorises supernodally (dense blocks through the BLAS, in OpenMP threads) when the
// analysis predicts at least this many flops per entry of L, simplicially (column by column, no
// BLAS) below it; CHOLMOD's own switch is 40. Measured here with Debian's default (reference) BLAS:
// simplicial is 2x faster on the colony's 2-D systems (41 to 59 flops per entry, 4,000 to 10,000
// rows: the ipm inside relcp) and 1.7x on pgs_sm's pyramid20 systems (93 to 151); the two are even
// near 290 (the ipm on a 288-sphere pile's 3,500 rows) and supernodal is ahead on the 1,000-sphere
// pile's 12,000 rows (640 to 710). Most of the supernodal time on the sparse systems was OpenMP's
// synchronisation (futex calls) around small supernodes, not arithmetic.
#define CN_FACTOR_SUPERNODAL_SWITCH 200.0

#ifdef CN_HAS_CHOLMOD
static bool cnCholmodStart( cnFactor* factor )
{
    if ( factor->started )
    {
        return true;
    }
    if ( cholmod_start( &factor->common ) == 0 )
    {
        return false;
    }
    factor->started = true;
    factor->common.print = 0; // statuses are read, not printed
    factor->common.error_handler = NULL;
    factor->common.nmethods = 1; // AMD only, no METIS, no second try
    factor->common.method[0].ordering = CHOLMOD_AMD;
    factor->common.postorder = 1;
    factor->common.supernodal = CHOLMOD_AUTO;
    // simplicial below CN_FACTOR_SUPERNODAL_SWITCH flops per entry of L, supernodal above it
    factor->common.supernodal_switch = CN_FACTOR_SUPERNODAL_SWITCH;
    factor->common.final_ll = 0;
    return true;
}

// analyse and factorise K + cfm I; false when it is not positive definite by the ratio rule
static bool cnCholmodFactor( cnFactor* factor, const cnSparseMatrix* matrix, double cfm, double ratio,
                             bool* noMemory )
{
    cholmod_common* common = &factor->common;
    bool same = cnCholmodSamePattern( factor, matrix );
    if ( !same )
    {
        cnCholmodRelease( factor );
    }
    // CSR with both triangles is the CSC of the same symmetric matrix; stype 1 reads the upper one
    cholmod_sparse view = {
        .nrow = (size_t)matrix->rows,
        .ncol = (size_t)matrix->rows,
        .nzmax = (size_t)matrix->rowStart[matrix->rows],
        .p = (void*)matrix->rowStart,
        .i = (void*)matrix->column,
        .x = (void*)matrix->value,
        .stype = 1,
        .itype = CHOLMOD_INT,
        .xtype = CHOLMOD_REAL,
        .dtype = CHOLMOD_DOUBLE,
        .sorted = 1,
        .packed = 1,
    };
    if ( !same )
    {
        factor->factor = cholmod_analyze( &view, common );
        if ( factor->factor == NULL )
        {
            *noMemory = common->status == CHOLMOD_OUT_OF_MEMORY;
            return false;
        }
        factor->analyses += 1;
        cnCholmodKeepPattern( factor, matrix );
    }
    double beta[2] = { cfm, 0.0 };
    cholmod_factorize_p( &view, beta, NULL, 0, factor->factor, common );
    if ( common->status == CHOLMOD_OUT_OF_MEMORY )
    {
        *noMemory = true;
        return false;
    }
    if ( common->status != CHOLMOD_OK || factor->factor->minor < factor->factor->n )
    {
        return false;
    }
    // the pivots' ratio: rcond is min/max of diag(L) for LL^T (its square is the pivots' ratio)
    // and of |D| for LDL^T
    double rcond = cholmod_rcond( factor->factor, common );
    double pivotRatio = factor->factor->is_ll ? rcond * rcond : rcond;
    if ( !( pivotRatio > ratio ) )
    {
        return false;
    }
    if ( factor->factor->is_ll == 0 && factor->factor->is_super == 0 )
    {
        // a simplicial LDL^T takes an indefinite matrix too (D with negative entries); D is the
        // first entry of each column
        const int* columnStart = factor->factor->p;
        const double* entries = factor->factor->x;
        for ( size_t j = 0; j < factor->factor->n; ++j )
        {
            if ( !( entries[columnStart[j]] > 0.0 ) )
            {
                return false;
            }
        }
    }
    if ( factor->rhs == NULL )
    {
        factor->rhs =
            cholmod_allocate_dense( (size_t)matrix->rows, 1, (size_t)matrix->rows, CHOLMOD_REAL, common );
    }
    if ( factor->rhs == NULL )
    {
        *noMemory = true;
        return false;
    }
    return true;
}

static double cnCholmodNonzeros( const cnFactor* factor )
{
    const cholmod_factor* L = factor->factor;
    if ( L->is_super )
    {
        // every supernode stores its columns as a dense block of its row count
        const int* super = L->super;
        const int* pi = L->pi;
        double count = 0.0;
        for ( size_t s = 0; s < L->nsuper; ++s )
        {
            double columns = super[s + 1] - super[s];
            double rows = pi[s + 1] - pi[s];
            count += columns * rows - columns * ( columns - 1.0 ) / 2.0;
        }
        return count;
    }
    const int* colCount = L->nz;
    double count = 0.0;
    for ( size_t j = 0; j < L->n; ++j )
    {
        count += colCount[j];
    }
    return count;
}
#endif

// ---- the interface ------------------------------------------------------------------------------------

cnFactorResult cnFactorize( cnFactor* factor, const cnSparseMatrix* matrix, double cfm,
                            cnFactorBackend backend, cnFactorStats* stats )
{
    factor->ready = false;
    factor->reason = NULL;
    int n = matrix->rows;
    factor->size = n;
    if ( backend == cn_factorAuto )
    {
        backend =
            n <= CN_FACTOR_DENSE_AUTO || cnFactorHasCholmod() == false ? cn_factorDense : cn_factorCholmod;
    }
    if ( backend == cn_factorCholmod && cnFactorHasCholmod() == false )
    {
        factor->reason =
            "the sparse factorisation needs CHOLMOD, and this build has none (-DCN_WITH_CHOLMOD=OFF)";
        return cn_factorUnavailable;
    }
    if ( backend == cn_factorDense && n > CN_FACTOR_DENSE_MAX )
    {
        factor->reason = cnFactorHasCholmod()
                             ? "the system is too large for the dense factorisation (choose cholmod or auto)"
                             : "the system is too large for the dense factorisation, and this build has no "
                               "CHOLMOD for it (-DCN_WITH_CHOLMOD=OFF)";
        return cn_factorUnavailable;
    }
    factor->backend = backend == cn_factorDense ? "dense" : "cholmod";

    double mean = 0.0;
    double largest = 0.0;
    if ( !( cfm >= 0.0 ) || isfinite( cfm ) == false || cnDiagonalScale( matrix, &mean, &largest ) == false )
    {
        factor->reason = "the system or its regularisation is not finite";
        stats->failures += 1;
        return cn_factorFailed;
    }
    if ( n == 0 )
    {
        factor->ready = true;
        stats->regularization = cfm;
        stats->factorNonzeros = 0.0;
        return cn_factorOk;
    }
    if ( backend == cn_factorDense && cnDenseReserve( factor, n ) == false )
    {
        factor->reason = "out of memory";
        return cn_factorNoMemory;
    }
#ifdef CN_HAS_CHOLMOD
    if ( backend == cn_factorCholmod && cnCholmodStart( factor ) == false )
    {
        factor->reason = "out of memory";
        return cn_factorNoMemory;
    }
#endif

    // cfm as asked, then raised: 1e-8, 1e-6, 1e-4, 1e-2 of the mean diagonal (at least). Not less:
    // a semi-definite system's null directions then hold rounding errors divided by the cfm
    double tried = cfm;
    double step = 1e-8 * ( mean > 0.0 ? mean : 1.0 );
    for ( int attempt = 0; attempt <= CN_FACTOR_RETRIES; ++attempt )
    {
        stats->factorizations += 1;
        bool done = false;
        bool noMemory = false;
        if ( backend == cn_factorDense )
        {
            done = cnDenseFactor( factor, matrix, tried, factor->pivotRatio * ( largest + tried ) );
            if ( done )
            {
                stats->factorNonzeros = (double)n * ( n + 1 ) / 2.0;
            }
        }
#ifdef CN_HAS_CHOLMOD
        else
        {
            done = cnCholmodFactor( factor, matrix, tried, factor->pivotRatio, &noMemory );
            if ( done )
            {
                stats->factorNonzeros = cnCholmodNonzeros( factor );
            }
        }
#endif
        if ( noMemory )
        {
            factor->reason = "out of memory";
            return cn_factorNoMemory;
        }
        if ( done )
        {
            factor->ready = true;
            stats->regularization = tried;
            stats->peakFactorNonzeros = fmax( stats->peakFactorNonzeros, stats->factorNonzeros );
            if ( attempt > 0 )
            {
                stats->regularized += 1;
                return cn_factorRegularized;
            }
            return cn_factorOk;
        }
        tried = fmax( tried, step );
        step *= 100.0;
    }
    stats->failures += 1;
    factor->reason = "the system is not positive definite even with 1e-2 of its mean diagonal added";
    return cn_factorFailed;
}

bool cnFactorSolve( cnFactor* factor, const double* rhs, double* x )
{
    if ( factor->ready == false )
    {
        return false;
    }
    int n = factor->size;
    if ( x != rhs && n > 0 )
    {
        memmove( x, rhs, (size_t)n * sizeof( double ) );
    }
    if ( strcmp( factor->backend, "dense" ) == 0 )
    {
        cnDenseSolve( factor, x );
    }
#ifdef CN_HAS_CHOLMOD
    else if ( n > 0 )
    {
        cholmod_common* common = &factor->common;
        memcpy( factor->rhs->x, x, (size_t)n * sizeof( double ) );
        cholmod_dense* solved = cholmod_solve( CHOLMOD_A, factor->factor, factor->rhs, common );
        if ( solved == NULL )
        {
            return false;
        }
        memcpy( x, solved->x, (size_t)n * sizeof( double ) );
        cholmod_free_dense( &solved, common );
    }
#endif
    for ( int i = 0; i < n; ++i )
    {
        if ( isfinite( x[i] ) == false )
        {
            return false;
        }
    }
    return true;
}

const char* cnFactorBackendName( const cnFactor* factor )
{
    return factor->backend;
}

const char* cnFactorReason( const cnFactor* factor )
{
    return factor->reason;
}
