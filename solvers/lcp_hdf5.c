// SPDX-License-Identifier: MIT
// fclib HDF5 problems (cairn/lcp_io.h): `/fclib_local` (W, q, mu) read as an FC3D problem, and
// `/fclib_global` with a diagonal M (rigid bodies) reduced to local form, W = H^T M^-1 H and
// q = H^T M^-1 f + w. The layout, checked on every shared file: ../shared/external-data/README.md,
// "fclib HDF5". Matrices come as CSparse triplets (nz >= 0; `i` holds row indices, `p` column
// indices, whatever the comment in upstream fclib.h says), CSC (nz == -1) or CSR (nz == -2).
//
// The file is opened from memory (the core driver with a file image): cnReadProblemFile has read it
// already, and cnParseProblemText has nothing else. Safety rules as for the text readers: every
// dataset's size is checked against the file's before it is read (a chunked dataset can claim any
// extent without storing it), every index is range-checked, every size a scalar claims (m, n) is
// checked against vectors already read, and the reduced W is counted before it is allocated.
// Without HDF5 in the build (CN_HAS_HDF5 undefined) every HDF5 file is refused, saying so.
#include "core.h"
#include "lcp_file.h"

#include "cairn/lcp_io.h"

#if defined( CN_HAS_HDF5 )
#    include <hdf5.h>
#endif

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if !defined( CN_HAS_HDF5 )

cnStatus cnReadFclibImage( const char* name, const char* image, size_t length, cnProblemFormat format,
                           const cnAllocator* allocator, cnFileProblem* problem, char* message,
                           int messageSize )
{
    (void)image;
    (void)length;
    (void)format;
    (void)allocator;
    *problem = ( cnFileProblem ){ 0 };
    cnFormat( message, messageSize,
              "%s: an HDF5 file (fclib), but this build has no HDF5 support (configured without "
              "libhdf5-dev, or with CN_WITH_HDF5=OFF)",
              name );
    return cn_statusUnsupported;
}

#else

// A dataset may hold at most this many times the file's bytes (in memory, after conversion to
// int or double), and so may the reduced W: far above what an uncompressed fclib file needs,
// far below what a lying extent could ask for.
#    define CN_FCLIB_EXPANSION 16
// slack for tiny files, bytes
#    define CN_FCLIB_SLACK     4096
// rows of a problem, as for the text readers
#    define CN_FCLIB_MAX_ROWS  100000000

typedef struct cnH5
{
    const char* name;
    size_t fileSize;
    const cnAllocator* allocator;
    char* message;
    int messageSize;
    hid_t file;
} cnH5;

// HDF5's own description of the innermost error on its stack, or "" (then the stack is cleared).
static herr_t cnH5WalkError( unsigned depth, const H5E_error2_t* error, void* data )
{
    char* text = data;
    if ( depth == 0 && error != NULL && error->desc != NULL )
    {
        cnFormat( text, 160, "%s", error->desc );
    }
    return 0;
}

#    if defined( __GNUC__ )
__attribute__( ( format( printf, 3, 4 ) ) )
#    endif
static cnStatus
cnH5Error( cnH5* h, cnStatus status, const char* format, ... )
{
    if ( h->message != NULL && h->messageSize > 0 )
    {
        char detail[CN_PROBLEM_MESSAGE_CAPACITY];
        char library[160] = "";
        va_list args;
        va_start( args, format );
        vsnprintf( detail, sizeof( detail ), format, args );
        va_end( args );
        H5Ewalk2( H5E_DEFAULT, H5E_WALK_UPWARD, cnH5WalkError, library );
        if ( library[0] != '\0' )
        {
            cnFormat( h->message, h->messageSize, "%s: %s (HDF5: %s)", h->name, detail, library );
        }
        else
        {
            cnFormat( h->message, h->messageSize, "%s: %s", h->name, detail );
        }
    }
    H5Eclear2( H5E_DEFAULT );
    return status;
}

// True when every link of `path` exists (H5Lexists wants the parents to exist).
static bool cnH5Exists( cnH5* h, const char* path )
{
    char prefix[256];
    size_t length = strlen( path );
    if ( length >= sizeof( prefix ) )
    {
        return false;
    }
    for ( size_t end = 1; end <= length; ++end )
    {
        if ( end == length || path[end] == '/' )
        {
            memcpy( prefix, path, end );
            prefix[end] = '\0';
            if ( H5Lexists( h->file, prefix, H5P_DEFAULT ) <= 0 )
            {
                H5Eclear2( H5E_DEFAULT );
                return false;
            }
        }
    }
    return true;
}

static void* cnH5Alloc( cnH5* h, size_t count, size_t size )
{
    return cnAllocArray( h->allocator, count > 0 ? count : 1, size );
}

static void cnH5Free( cnH5* h, void* memory, size_t count, size_t size )
{
    if ( memory != NULL )
    {
        cnFree( h->allocator, memory, ( count > 0 ? count : 1 ) * size );
    }
}

// Read a whole 0-D or 1-D dataset as `memoryType` (H5T_NATIVE_INT or H5T_NATIVE_DOUBLE) into a new
// array of *count elements; the size is checked against the file's before anything is allocated.
static cnStatus cnH5ReadArray( cnH5* h, const char* path, bool integer, void** values, size_t* count )
{
    *values = NULL;
    *count = 0;
    if ( cnH5Exists( h, path ) == false )
    {
        return cnH5Error( h, cn_statusParseError, "%s is missing", path );
    }
    hid_t dataset = H5Dopen2( h->file, path, H5P_DEFAULT );
    if ( dataset < 0 )
    {
        return cnH5Error( h, cn_statusParseError, "%s: not a dataset", path );
    }
    hid_t space = H5Dget_space( dataset );
    hid_t type = H5Dget_type( dataset );
    int rank = space >= 0 ? H5Sget_simple_extent_ndims( space ) : -1;
    hssize_t points = space >= 0 ? H5Sget_simple_extent_npoints( space ) : -1;
    H5T_class_t typeClass = type >= 0 ? H5Tget_class( type ) : H5T_NO_CLASS;
    if ( type >= 0 )
    {
        H5Tclose( type );
    }
    if ( space >= 0 )
    {
        H5Sclose( space );
    }
    cnStatus status = cn_statusOk;
    size_t size = integer ? sizeof( int ) : sizeof( double );
    if ( rank < 0 || rank > 1 || points < 0 )
    {
        status = cnH5Error( h, cn_statusParseError, "%s: expected a scalar or a 1-D dataset", path );
    }
    else if ( typeClass != H5T_INTEGER && ( integer || typeClass != H5T_FLOAT ) )
    {
        status = cnH5Error( h, cn_statusParseError, "%s: expected %s", path,
                            integer ? "integers" : "numbers (floating point or integer)" );
    }
    else if ( (uint64_t)points > ( CN_FCLIB_EXPANSION * (uint64_t)h->fileSize + CN_FCLIB_SLACK ) / size )
    {
        status = cnH5Error( h, cn_statusParseError,
                            "%s claims %lld values, more than a file of %zu bytes can hold (at most %d times "
                            "its size is read)",
                            path, (long long)points, h->fileSize, CN_FCLIB_EXPANSION );
    }
    void* memory = NULL;
    if ( status == cn_statusOk )
    {
        memory = cnH5Alloc( h, (size_t)points, size );
        if ( memory == NULL )
        {
            status = cnH5Error( h, cn_statusOutOfMemory, "out of memory for %s", path );
        }
    }
    if ( status == cn_statusOk && points > 0 &&
         H5Dread( dataset, integer ? H5T_NATIVE_INT : H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                  memory ) < 0 )
    {
        status = cnH5Error( h, cn_statusParseError, "%s: cannot read", path );
    }
    H5Dclose( dataset );
    if ( status != cn_statusOk )
    {
        cnH5Free( h, memory, (size_t)( points > 0 ? points : 0 ), size );
        return status;
    }
    *values = memory;
    *count = (size_t)points;
    return cn_statusOk;
}

// One integer (a scalar or the first of a 1-D dataset).
static cnStatus cnH5ReadInt( cnH5* h, const char* path, int* value )
{
    void* values = NULL;
    size_t count = 0;
    cnStatus status = cnH5ReadArray( h, path, true, &values, &count );
    if ( status == cn_statusOk && count == 0 )
    {
        status = cnH5Error( h, cn_statusParseError, "%s is empty, expected an integer", path );
    }
    if ( status == cn_statusOk )
    {
        *value = ( (const int*)values )[0];
    }
    cnH5Free( h, values, count, sizeof( int ) );
    return status;
}

// A vector of finite numbers; `expected` its length (SIZE_MAX: any).
static cnStatus cnH5ReadVector( cnH5* h, const char* path, size_t expected, double** values, size_t* count )
{
    void* memory = NULL;
    cnStatus status = cnH5ReadArray( h, path, false, &memory, count );
    *values = memory;
    if ( status != cn_statusOk )
    {
        return status;
    }
    if ( expected != SIZE_MAX && *count != expected )
    {
        status =
            cnH5Error( h, cn_statusParseError, "%s has %zu values, expected %zu", path, *count, expected );
    }
    for ( size_t k = 0; status == cn_statusOk && k < *count; ++k )
    {
        if ( isfinite( ( *values )[k] ) == false )
        {
            status = cnH5Error( h, cn_statusNonFinite, "%s[%zu] is not finite: %g", path, k, ( *values )[k] );
        }
    }
    if ( status != cn_statusOk )
    {
        cnH5Free( h, *values, *count, sizeof( double ) );
        *values = NULL;
        *count = 0;
    }
    return status;
}

// A sparse matrix in CSR with sorted columns and duplicates summed.
typedef struct cnCsr
{
    int rows;
    int columns;
    int* rowStart; // rows + 1
    int* column;   // capacity
    double* value; // capacity
    size_t capacity;
} cnCsr;

static void cnFreeCsr( cnH5* h, cnCsr* matrix )
{
    cnH5Free( h, matrix->rowStart, (size_t)matrix->rows + 1, sizeof( int ) );
    cnH5Free( h, matrix->column, matrix->capacity, sizeof( int ) );
    cnH5Free( h, matrix->value, matrix->capacity, sizeof( double ) );
    *matrix = ( cnCsr ){ 0 };
}

// Entries (row, column, value) of a matrix as the file stores them, indices checked.
typedef struct cnEntries
{
    int rows;
    int columns;
    size_t count;
    int* row;
    int* column;
    double* value;
} cnEntries;

static void cnFreeEntries( cnH5* h, cnEntries* entries )
{
    cnH5Free( h, entries->row, entries->count, sizeof( int ) );
    cnH5Free( h, entries->column, entries->count, sizeof( int ) );
    cnH5Free( h, entries->value, entries->count, sizeof( double ) );
    *entries = ( cnEntries ){ 0 };
}

// A matrix group (m, n, nz, p, i, x) that must be `rows` x `columns` (sizes known from vectors
// already read, so that nothing of a claimed size is allocated).
static cnStatus cnH5ReadEntries( cnH5* h, const char* group, int rows, int columns, cnEntries* out )
{
    *out = ( cnEntries ){ .rows = rows, .columns = columns };
    char path[192];
    int m = 0;
    int n = 0;
    int nz = 0;
    cnFormat( path, sizeof( path ), "%s/m", group );
    cnStatus status = cnH5ReadInt( h, path, &m );
    cnFormat( path, sizeof( path ), "%s/n", group );
    status = status == cn_statusOk ? cnH5ReadInt( h, path, &n ) : status;
    cnFormat( path, sizeof( path ), "%s/nz", group );
    status = status == cn_statusOk ? cnH5ReadInt( h, path, &nz ) : status;
    if ( status != cn_statusOk )
    {
        return status;
    }
    if ( m != rows || n != columns )
    {
        return cnH5Error( h, cn_statusParseError, "%s is %d x %d, but the vectors make it %d x %d", group, m,
                          n, rows, columns );
    }
    if ( nz < -2 )
    {
        return cnH5Error( h, cn_statusParseError,
                          "%s/nz must be -2 (CSR), -1 (CSC) or a triplet count >= 0, got %d", group, nz );
    }

    void* p = NULL;
    void* i = NULL;
    void* x = NULL;
    size_t pCount = 0;
    size_t iCount = 0;
    size_t xCount = 0;
    cnFormat( path, sizeof( path ), "%s/p", group );
    status = cnH5ReadArray( h, path, true, &p, &pCount );
    cnFormat( path, sizeof( path ), "%s/i", group );
    status = status == cn_statusOk ? cnH5ReadArray( h, path, true, &i, &iCount ) : status;
    cnFormat( path, sizeof( path ), "%s/x", group );
    status = status == cn_statusOk ? cnH5ReadArray( h, path, false, &x, &xCount ) : status;
    const int* pointers = p;
    const int* indices = i;
    const double* values = x;

    // compressed forms: p has one more entry than the major dimension, from 0, non-decreasing
    size_t entries = nz >= 0 ? (size_t)nz : 0;
    int major = nz == -1 ? columns : rows;
    if ( status == cn_statusOk && nz < 0 )
    {
        if ( pCount < (size_t)major + 1 )
        {
            status = cnH5Error( h, cn_statusParseError, "%s/p has %zu entries, a %s matrix needs %d", group,
                                pCount, nz == -1 ? "CSC" : "CSR", major + 1 );
        }
        for ( int k = 0; status == cn_statusOk && k < major; ++k )
        {
            if ( pointers[0] != 0 || pointers[k + 1] < pointers[k] )
            {
                status =
                    cnH5Error( h, cn_statusParseError,
                               "%s/p must start at 0 and never decrease (entry %d is %d, entry %d is %d)",
                               group, k, pointers[k], k + 1, pointers[k + 1] );
            }
        }
        entries = status == cn_statusOk ? (size_t)pointers[major] : 0;
    }
    if ( status == cn_statusOk && entries > INT_MAX )
    {
        status = cnH5Error( h, cn_statusParseError, "%s holds %zu entries: too many", group, entries );
    }
    if ( status == cn_statusOk &&
         ( iCount < entries || xCount < entries || ( nz >= 0 && pCount < entries ) ) )
    {
        status = cnH5Error( h, cn_statusParseError, "%s holds %zu entries but i, p or x is shorter", group,
                            entries );
    }
    if ( status == cn_statusOk )
    {
        out->count = entries;
        out->row = cnH5Alloc( h, entries, sizeof( int ) );
        out->column = cnH5Alloc( h, entries, sizeof( int ) );
        out->value = cnH5Alloc( h, entries, sizeof( double ) );
        if ( out->row == NULL || out->column == NULL || out->value == NULL )
        {
            status = cnH5Error( h, cn_statusOutOfMemory, "out of memory for %s", group );
        }
    }
    int line = 0; // the major index of entry k in compressed forms
    for ( size_t k = 0; status == cn_statusOk && k < entries; ++k )
    {
        while ( nz < 0 && (size_t)pointers[line + 1] <= k )
        {
            line += 1;
        }
        int r = nz >= 0 ? indices[k] : ( nz == -1 ? indices[k] : line );
        int c = nz >= 0 ? pointers[k] : ( nz == -1 ? line : indices[k] );
        if ( r < 0 || r >= rows || c < 0 || c >= columns )
        {
            status =
                cnH5Error( h, cn_statusParseError, "%s: entry %zu at row %d, column %d is outside %d x %d",
                           group, k, r, c, rows, columns );
        }
        else if ( isfinite( values[k] ) == false )
        {
            status = cnH5Error( h, cn_statusNonFinite, "%s/x[%zu] is not finite: %g", group, k, values[k] );
        }
        else
        {
            out->row[k] = r;
            out->column[k] = c;
            out->value[k] = values[k];
        }
    }
    cnH5Free( h, p, pCount, sizeof( int ) );
    cnH5Free( h, i, iCount, sizeof( int ) );
    cnH5Free( h, x, xCount, sizeof( double ) );
    if ( status != cn_statusOk )
    {
        cnFreeEntries( h, out );
    }
    return status;
}

// CSR of the entries (or of their transpose), columns sorted and duplicates summed: a stable
// counting sort by column, then one by row.
static cnStatus cnEntriesToCsr( cnH5* h, const cnEntries* entries, bool transpose, cnCsr* out )
{
    int rows = transpose ? entries->columns : entries->rows;
    int columns = transpose ? entries->rows : entries->columns;
    const int* row = transpose ? entries->column : entries->row;
    const int* column = transpose ? entries->row : entries->column;
    size_t count = entries->count;
    *out = ( cnCsr ){ .rows = rows, .columns = columns, .capacity = count };
    int* byColumn = cnH5Alloc( h, (size_t)columns + 1, sizeof( int ) );
    int* next = cnH5Alloc( h, (size_t)rows + 1, sizeof( int ) );
    int* order = cnH5Alloc( h, count, sizeof( int ) );
    out->rowStart = cnH5Alloc( h, (size_t)rows + 1, sizeof( int ) );
    out->column = cnH5Alloc( h, count, sizeof( int ) );
    out->value = cnH5Alloc( h, count, sizeof( double ) );
    cnStatus status = cn_statusOk;
    if ( byColumn == NULL || next == NULL || order == NULL || out->rowStart == NULL || out->column == NULL ||
         out->value == NULL )
    {
        status = cn_statusOutOfMemory;
    }
    if ( status == cn_statusOk )
    {
        // entries in column order (stable)
        for ( size_t k = 0; k < count; ++k )
        {
            byColumn[column[k] + 1] += 1;
        }
        for ( int c = 0; c < columns; ++c )
        {
            byColumn[c + 1] += byColumn[c];
        }
        for ( size_t k = 0; k < count; ++k )
        {
            order[byColumn[column[k]]++] = (int)k;
        }
        // then by row (stable): columns increase within each row
        for ( size_t k = 0; k < count; ++k )
        {
            out->rowStart[row[k] + 1] += 1;
        }
        for ( int r = 0; r < rows; ++r )
        {
            out->rowStart[r + 1] += out->rowStart[r];
            next[r] = out->rowStart[r];
        }
        for ( size_t t = 0; t < count; ++t )
        {
            int k = order[t];
            int at = next[row[k]]++;
            out->column[at] = column[k];
            out->value[at] = entries->value[k];
        }
    }
    cnH5Free( h, byColumn, (size_t)columns + 1, sizeof( int ) );
    cnH5Free( h, next, (size_t)rows + 1, sizeof( int ) );
    cnH5Free( h, order, count, sizeof( int ) );
    if ( status != cn_statusOk )
    {
        cnFreeCsr( h, out );
        return cnH5Error( h, status, "out of memory for a %d x %d matrix", rows, columns );
    }
    // duplicates summed, in place
    int entry = 0;
    for ( int r = 0; r < rows; ++r )
    {
        int begin = out->rowStart[r];
        int end = out->rowStart[r + 1];
        out->rowStart[r] = entry;
        for ( int k = begin; k < end; ++k )
        {
            if ( entry > out->rowStart[r] && out->column[entry - 1] == out->column[k] )
            {
                out->value[entry - 1] += out->value[k];
            }
            else
            {
                out->column[entry] = out->column[k];
                out->value[entry] = out->value[k];
                entry += 1;
            }
        }
    }
    out->rowStart[rows] = entry;
    return cn_statusOk;
}

// spacedim: 3 is read, 2 is refused as unsupported, anything else is an error.
static cnStatus cnH5CheckDimension( cnH5* h, const char* root )
{
    char path[96];
    cnFormat( path, sizeof( path ), "%s/spacedim", root );
    int dimension = 0;
    cnStatus status = cnH5ReadInt( h, path, &dimension );
    if ( status == cn_statusOk && dimension == 2 )
    {
        return cnH5Error( h, cn_statusUnsupported, "a 2-D problem (%s is 2): not supported", path );
    }
    if ( status == cn_statusOk && dimension != 3 )
    {
        return cnH5Error( h, cn_statusParseError, "%s must be 3, got %d", path, dimension );
    }
    return status;
}

// The contact rows: a multiple of 3, and mu (one per contact, >= 0).
static cnStatus cnH5CheckContacts( cnH5* h, const char* qName, size_t rows, const char* muPath,
                                   const double* mu, size_t muCount )
{
    if ( rows % 3 != 0 || rows > CN_FCLIB_MAX_ROWS )
    {
        return cnH5Error( h, cn_statusParseError, "%s has %zu values: expected 3 per contact", qName, rows );
    }
    if ( muCount != rows / 3 )
    {
        return cnH5Error( h, cn_statusParseError, "%s has %zu values, but %s makes %zu contacts", muPath,
                          muCount, qName, rows / 3 );
    }
    for ( size_t c = 0; c < muCount; ++c )
    {
        if ( mu[c] < 0.0 )
        {
            return cnH5Error( h, cn_statusParseError, "%s[%zu] is negative: %g", muPath, c, mu[c] );
        }
    }
    return cn_statusOk;
}

// A group with a non-empty matrix that we cannot take (bilateral rows): refused.
static cnStatus cnH5RefuseIfPresent( cnH5* h, const char* group, const char* what )
{
    char path[96];
    cnFormat( path, sizeof( path ), "%s/n", group );
    if ( cnH5Exists( h, group ) == false )
    {
        return cn_statusOk;
    }
    int columns = 0;
    int rows = 0;
    cnStatus status = cnH5Exists( h, path ) ? cnH5ReadInt( h, path, &columns ) : cn_statusOk;
    cnFormat( path, sizeof( path ), "%s/m", group );
    status = status == cn_statusOk && cnH5Exists( h, path ) ? cnH5ReadInt( h, path, &rows ) : status;
    if ( status == cn_statusOk && rows > 0 && columns > 0 )
    {
        return cnH5Error( h, cn_statusUnsupported, "%s (%s, %d x %d): not supported", what, group, rows,
                          columns );
    }
    return status;
}

static cnStatus cnReadLocal( cnH5* h, cnFileProblem* problem )
{
    cnStatus status = cnH5CheckDimension( h, "/fclib_local" );
    status = status == cn_statusOk
                 ? cnH5RefuseIfPresent( h, "/fclib_local/R", "equality (bilateral) constraints" )
                 : status;
    double* q = NULL;
    double* mu = NULL;
    size_t rows = 0;
    size_t contacts = 0;
    status =
        status == cn_statusOk ? cnH5ReadVector( h, "/fclib_local/vectors/q", SIZE_MAX, &q, &rows ) : status;
    status = status == cn_statusOk ? cnH5ReadVector( h, "/fclib_local/vectors/mu", SIZE_MAX, &mu, &contacts )
                                   : status;
    status = status == cn_statusOk ? cnH5CheckContacts( h, "/fclib_local/vectors/q", rows,
                                                        "/fclib_local/vectors/mu", mu, contacts )
                                   : status;
    cnEntries entries = { 0 };
    cnCsr w = { 0 };
    status = status == cn_statusOk ? cnH5ReadEntries( h, "/fclib_local/W", (int)rows, (int)rows, &entries )
                                   : status;
    status = status == cn_statusOk ? cnEntriesToCsr( h, &entries, false, &w ) : status;
    if ( status == cn_statusOk )
    {
        status = cnAssembleFileProblem( cn_problemFclibLocal, (int)rows, (int)contacts, w.rowStart, w.column,
                                        w.value, q, mu, NULL, NULL, h->allocator, problem );
        if ( status != cn_statusOk )
        {
            status = cnH5Error( h, status, "out of memory for a problem of %zu rows", rows );
        }
    }
    cnFreeCsr( h, &w );
    cnFreeEntries( h, &entries );
    cnH5Free( h, q, rows, sizeof( double ) );
    cnH5Free( h, mu, contacts, sizeof( double ) );
    return status;
}

static int cnCompareInts( const void* a, const void* b )
{
    int x = *(const int*)a;
    int y = *(const int*)b;
    return ( x > y ) - ( x < y );
}

// W = H^T M^-1 H with M diagonal, in CSR (rows = columns = H's columns), counted before it is
// allocated: row i gathers, over the dofs k of column i of H, row k of H scaled by H_ki / M_kk.
static cnStatus cnReduce( cnH5* h, const cnCsr* hByDof, const cnCsr* hByRow, const double* inverseMass,
                          cnCsr* w )
{
    int rows = hByRow->rows;
    // the work (and a bound on the entries before merging): sum over dofs of (entries of its row)^2
    uint64_t work = 0;
    for ( int k = 0; k < hByDof->rows; ++k )
    {
        uint64_t length = (uint64_t)( hByDof->rowStart[k + 1] - hByDof->rowStart[k] );
        work += length * length;
    }
    uint64_t budget = CN_FCLIB_EXPANSION * (uint64_t)h->fileSize + CN_FCLIB_SLACK;
    if ( work > budget )
    {
        return cnH5Error(
            h, cn_statusUnsupported,
            "reducing the global problem takes %llu products, more than %d times the file's %zu "
            "bytes: not reduced",
            (unsigned long long)work, CN_FCLIB_EXPANSION, h->fileSize );
    }
    *w = ( cnCsr ){ .rows = rows, .columns = rows };
    int* mark = cnH5Alloc( h, (size_t)rows, sizeof( int ) );
    int* touched = cnH5Alloc( h, (size_t)rows, sizeof( int ) );
    double* accumulator = cnH5Alloc( h, (size_t)rows, sizeof( double ) );
    w->rowStart = cnH5Alloc( h, (size_t)rows + 1, sizeof( int ) );
    cnStatus status = cn_statusOk;
    if ( mark == NULL || touched == NULL || accumulator == NULL || w->rowStart == NULL )
    {
        status = cnH5Error( h, cn_statusOutOfMemory, "out of memory reducing the global problem" );
    }
    // pass 0 counts the entries of W, pass 1 fills them
    for ( int pass = 0; status == cn_statusOk && pass < 2; ++pass )
    {
        for ( int j = 0; j < rows; ++j )
        {
            mark[j] = -1;
        }
        size_t entry = 0;
        for ( int i = 0; i < rows; ++i )
        {
            w->rowStart[i] = (int)entry;
            int touchedCount = 0;
            for ( int e = hByRow->rowStart[i]; e < hByRow->rowStart[i + 1]; ++e )
            {
                int k = hByRow->column[e];
                double scale = hByRow->value[e] * inverseMass[k];
                for ( int f = hByDof->rowStart[k]; f < hByDof->rowStart[k + 1]; ++f )
                {
                    int j = hByDof->column[f];
                    if ( mark[j] != i )
                    {
                        mark[j] = i;
                        touched[touchedCount++] = j;
                        accumulator[j] = 0.0;
                    }
                    accumulator[j] += scale * hByDof->value[f];
                }
            }
            if ( pass == 1 )
            {
                qsort( touched, (size_t)touchedCount, sizeof( int ), cnCompareInts ); // columns increasing
                for ( int t = 0; t < touchedCount; ++t )
                {
                    w->column[entry + (size_t)t] = touched[t];
                    w->value[entry + (size_t)t] = accumulator[touched[t]];
                }
            }
            entry += (size_t)touchedCount;
        }
        w->rowStart[rows] = (int)entry;
        if ( pass == 0 )
        {
            if ( entry * ( sizeof( int ) + sizeof( double ) ) > budget || entry > INT_MAX )
            {
                status =
                    cnH5Error( h, cn_statusUnsupported,
                               "the reduced W = H^T M^-1 H has %zu entries, more than %d times the file's "
                               "%zu bytes: not reduced",
                               entry, CN_FCLIB_EXPANSION, h->fileSize );
                break;
            }
            w->capacity = entry;
            w->column = cnH5Alloc( h, entry, sizeof( int ) );
            w->value = cnH5Alloc( h, entry, sizeof( double ) );
            if ( w->column == NULL || w->value == NULL )
            {
                status = cnH5Error( h, cn_statusOutOfMemory, "out of memory for the reduced W" );
            }
        }
    }
    cnH5Free( h, mark, (size_t)rows, sizeof( int ) );
    cnH5Free( h, touched, (size_t)rows, sizeof( int ) );
    cnH5Free( h, accumulator, (size_t)rows, sizeof( double ) );
    if ( status != cn_statusOk )
    {
        cnFreeCsr( h, w );
    }
    return status;
}

static cnStatus cnReadGlobal( cnH5* h, cnFileProblem* problem )
{
    cnStatus status = cnH5CheckDimension( h, "/fclib_global" );
    status =
        status == cn_statusOk ? cnH5RefuseIfPresent( h, "/fclib_global/G", "bilateral constraints" ) : status;
    double* f = NULL;
    double* wFree = NULL;
    double* mu = NULL;
    size_t dofs = 0;
    size_t rows = 0;
    size_t contacts = 0;
    status =
        status == cn_statusOk ? cnH5ReadVector( h, "/fclib_global/vectors/f", SIZE_MAX, &f, &dofs ) : status;
    status = status == cn_statusOk ? cnH5ReadVector( h, "/fclib_global/vectors/w", SIZE_MAX, &wFree, &rows )
                                   : status;
    status = status == cn_statusOk ? cnH5ReadVector( h, "/fclib_global/vectors/mu", SIZE_MAX, &mu, &contacts )
                                   : status;
    status = status == cn_statusOk ? cnH5CheckContacts( h, "/fclib_global/vectors/w", rows,
                                                        "/fclib_global/vectors/mu", mu, contacts )
                                   : status;
    if ( status == cn_statusOk && dofs > CN_FCLIB_MAX_ROWS )
    {
        status =
            cnH5Error( h, cn_statusParseError, "/fclib_global/vectors/f has %zu values: too many", dofs );
    }

    // M: diagonal (rigid bodies in principal axes) with positive entries, else not reduced
    cnEntries entries = { 0 };
    double* inverseMass = NULL;
    status = status == cn_statusOk ? cnH5ReadEntries( h, "/fclib_global/M", (int)dofs, (int)dofs, &entries )
                                   : status;
    if ( status == cn_statusOk )
    {
        inverseMass = cnH5Alloc( h, dofs, sizeof( double ) );
        if ( inverseMass == NULL )
        {
            status = cnH5Error( h, cn_statusOutOfMemory, "out of memory for M" );
        }
    }
    for ( size_t k = 0; status == cn_statusOk && k < entries.count; ++k )
    {
        if ( entries.row[k] != entries.column[k] && entries.value[k] != 0.0 )
        {
            status =
                cnH5Error( h, cn_statusUnsupported,
                           "a global problem whose M is not diagonal (FEM): not reduced (M at row %d, column "
                           "%d is %g)",
                           entries.row[k], entries.column[k], entries.value[k] );
        }
        else if ( entries.row[k] == entries.column[k] )
        {
            inverseMass[entries.row[k]] += entries.value[k]; // the diagonal, duplicates summed
        }
    }
    for ( size_t k = 0; status == cn_statusOk && k < dofs; ++k )
    {
        if ( !( inverseMass[k] > 0.0 ) )
        {
            status = cnH5Error(
                h, cn_statusUnsupported,
                "M[%zu][%zu] is %g: a global problem with a zero or negative mass cannot be reduced", k, k,
                inverseMass[k] );
        }
        else
        {
            inverseMass[k] = 1.0 / inverseMass[k];
        }
    }
    cnFreeEntries( h, &entries );

    // H (dofs x contact rows), by dof and by contact row
    cnCsr hByDof = { 0 };
    cnCsr hByRow = { 0 };
    cnCsr w = { 0 };
    double* q = NULL;
    status = status == cn_statusOk ? cnH5ReadEntries( h, "/fclib_global/H", (int)dofs, (int)rows, &entries )
                                   : status;
    status = status == cn_statusOk ? cnEntriesToCsr( h, &entries, false, &hByDof ) : status;
    status = status == cn_statusOk ? cnEntriesToCsr( h, &entries, true, &hByRow ) : status;
    cnFreeEntries( h, &entries );
    status = status == cn_statusOk ? cnReduce( h, &hByDof, &hByRow, inverseMass, &w ) : status;
    if ( status == cn_statusOk )
    {
        // q = H^T M^-1 f + w
        q = cnH5Alloc( h, rows, sizeof( double ) );
        if ( q == NULL )
        {
            status = cnH5Error( h, cn_statusOutOfMemory, "out of memory for q" );
        }
        for ( size_t i = 0; status == cn_statusOk && i < rows; ++i )
        {
            double sum = 0.0;
            for ( int e = hByRow.rowStart[i]; e < hByRow.rowStart[i + 1]; ++e )
            {
                int k = hByRow.column[e];
                sum += hByRow.value[e] * inverseMass[k] * f[k];
            }
            q[i] = sum + wFree[i];
        }
    }
    if ( status == cn_statusOk )
    {
        status = cnAssembleFileProblem( cn_problemFclibGlobal, (int)rows, (int)contacts, w.rowStart, w.column,
                                        w.value, q, mu, NULL, NULL, h->allocator, problem );
        if ( status != cn_statusOk )
        {
            status = cnH5Error( h, status, "out of memory for a problem of %zu rows", rows );
        }
    }
    cnFreeCsr( h, &hByDof );
    cnFreeCsr( h, &hByRow );
    cnFreeCsr( h, &w );
    cnH5Free( h, q, rows, sizeof( double ) );
    cnH5Free( h, inverseMass, dofs, sizeof( double ) );
    cnH5Free( h, f, dofs, sizeof( double ) );
    cnH5Free( h, wFree, rows, sizeof( double ) );
    cnH5Free( h, mu, contacts, sizeof( double ) );
    return status;
}

cnStatus cnReadFclibImage( const char* name, const char* image, size_t length, cnProblemFormat format,
                           const cnAllocator* allocator, cnFileProblem* problem, char* message,
                           int messageSize )
{
    *problem = ( cnFileProblem ){ 0 };
    cnH5 h = { .name = name,
               .fileSize = length,
               .allocator = allocator,
               .message = message,
               .messageSize = messageSize,
               .file = -1 };
    // HDF5 prints its error stack by default: silenced here, and its innermost message goes into ours
    H5E_auto2_t oldHandler = NULL;
    void* oldData = NULL;
    H5Eget_auto2( H5E_DEFAULT, &oldHandler, &oldData );
    H5Eset_auto2( H5E_DEFAULT, NULL, NULL );

    // opened from memory; the name must not exist on disk (the core driver refuses to shadow a file)
    static long opened = 0;
    char imageName[64];
    opened += 1;
    cnFormat( imageName, sizeof( imageName ), "/dev/null/cairn-fclib-image-%ld", opened );
    hid_t access = H5Pcreate( H5P_FILE_ACCESS );
    cnStatus status = cn_statusOk;
    if ( access < 0 || H5Pset_fapl_core( access, 1 << 16, 0 ) < 0 ||
         H5Pset_file_image( access, (void*)(uintptr_t)image, length ) < 0 )
    {
        status = cnH5Error( &h, cn_statusOutOfMemory, "cannot set up HDF5 to read the file from memory" );
    }
    if ( status == cn_statusOk )
    {
        h.file = H5Fopen( imageName, H5F_ACC_RDONLY, access );
        if ( h.file < 0 )
        {
            status = cnH5Error( &h, cn_statusParseError,
                                "an HDF5 file that HDF5 cannot open (truncated or damaged?)" );
        }
    }
    if ( access >= 0 )
    {
        H5Pclose( access );
    }

    if ( status == cn_statusOk )
    {
        bool local = cnH5Exists( &h, "/fclib_local" );
        bool global = cnH5Exists( &h, "/fclib_global" );
        bool rolling = cnH5Exists( &h, "/fclib_global_rolling" ) || cnH5Exists( &h, "/fclib_local_rolling" );
        if ( format == cn_problemFclibLocal && local == false )
        {
            status = cnH5Error( &h, cn_statusParseError,
                                "the format fclib_local was asked for, but there is no /fclib_local" );
        }
        else if ( format == cn_problemFclibGlobal && global == false )
        {
            status = cnH5Error( &h, cn_statusParseError,
                                "the format fclib_global was asked for, but there is no /fclib_global" );
        }
        else if ( local && format != cn_problemFclibGlobal )
        {
            status = cnReadLocal( &h, problem );
        }
        else if ( global )
        {
            status = cnReadGlobal( &h, problem );
        }
        else if ( rolling )
        {
            status =
                cnH5Error( &h, cn_statusUnsupported,
                           "a rolling-friction problem (/fclib_global_rolling: 5-D cones with mu_r): not "
                           "supported" );
        }
        else
        {
            status = cnH5Error( &h, cn_statusParseError,
                                "an HDF5 file without /fclib_local or /fclib_global: not an fclib problem" );
        }
    }
    if ( h.file >= 0 )
    {
        H5Fclose( h.file );
    }
    H5Eclear2( H5E_DEFAULT );
    H5Eset_auto2( H5E_DEFAULT, oldHandler, oldData );
    if ( status != cn_statusOk )
    {
        cnDestroyFileProblem( problem );
    }
    return status;
}

#endif
