// SPDX-License-Identifier: MIT
// Readers for the Siconos text formats (LCP and FC3D files, dense and sparse-block matrices) and
// a runner that solves one problem outside a world (cairn/lcp_io.h). Format notes:
// ../shared/external-data/README.md, "Siconos text formats".
//
// Safety rules: every token is checked before it is used; a count read from the file is checked
// against the bytes that are left before anything is allocated for it (k numbers need at least
// 2k - 1 bytes), so a lying header cannot make us allocate more than a few times the file size.
#include "cairn/lcp_io.h"

#include "core.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// rows of a problem: far more than any dense solver takes, small enough that 3 * nc and the
// CSR offsets stay inside int
#define CN_MAX_PROBLEM_ROWS 100000000
// longest token we parse (numbers are about 32 characters)
#define CN_MAX_TOKEN 127

typedef struct cnReader
{
    const char* name;
    const char* text;
    size_t length;
    size_t position;
    int line;        // line of the last token read (1-based)
    long tokenIndex; // tokens read so far; the last one read is token tokenIndex (1-based)
    const cnAllocator* allocator;
    char* message;
    int messageSize;
} cnReader;

static bool cnIsSpace( char c )
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

// The next token, or false at the end of the text.
static bool cnNextToken( cnReader* reader, const char** start, size_t* length )
{
    size_t p = reader->position;
    while ( p < reader->length && cnIsSpace( reader->text[p] ) )
    {
        if ( reader->text[p] == '\n' )
        {
            reader->line += 1;
        }
        p += 1;
    }
    if ( p >= reader->length )
    {
        reader->position = p;
        return false;
    }
    size_t begin = p;
    while ( p < reader->length && cnIsSpace( reader->text[p] ) == false )
    {
        p += 1;
    }
    reader->position = p;
    reader->tokenIndex += 1;
    *start = reader->text + begin;
    *length = p - begin;
    return true;
}

#if defined( __GNUC__ )
__attribute__( ( format( printf, 3, 4 ) ) )
#endif
static cnStatus
cnReaderError( cnReader* reader, cnStatus status, const char* format, ... )
{
    if ( reader->message != NULL && reader->messageSize > 0 )
    {
        char detail[CN_PROBLEM_MESSAGE_CAPACITY];
        va_list args;
        va_start( args, format );
        vsnprintf( detail, sizeof( detail ), format, args );
        va_end( args );
        cnFormat( reader->message, reader->messageSize, "%s:%d: token %ld: %s", reader->name, reader->line,
                  reader->tokenIndex, detail );
    }
    return status;
}

// Copy a token into a terminated buffer; false when it is too long.
static bool cnCopyToken( const char* start, size_t length, char* buffer )
{
    if ( length > CN_MAX_TOKEN )
    {
        return false;
    }
    memcpy( buffer, start, length );
    buffer[length] = '\0';
    return true;
}

// A token quoted for a message, shortened when long.
static const char* cnQuote( const char* start, size_t length, char* buffer, size_t size )
{
    size_t shown = length < size - 4 ? length : size - 4;
    memcpy( buffer, start, shown );
    strcpy( buffer + shown, shown < length ? "..." : "" );
    return buffer;
}

static cnStatus cnReadInt( cnReader* reader, const char* what, long minimum, long maximum, long* value )
{
    const char* start = NULL;
    size_t length = 0;
    if ( cnNextToken( reader, &start, &length ) == false )
    {
        reader->tokenIndex += 1;
        return cnReaderError( reader, cn_statusParseError,
                              "expected %s (an integer), got the end of the file", what );
    }
    char buffer[CN_MAX_TOKEN + 1];
    char quoted[48];
    bool ok = cnCopyToken( start, length, buffer );
    char* end = NULL;
    errno = 0;
    long parsed = ok ? strtol( buffer, &end, 10 ) : 0;
    if ( ok == false || end == buffer || *end != '\0' )
    {
        return cnReaderError( reader, cn_statusParseError, "expected %s (an integer), got '%s'", what,
                              cnQuote( start, length, quoted, sizeof( quoted ) ) );
    }
    if ( errno == ERANGE || parsed < minimum || parsed > maximum )
    {
        return cnReaderError( reader, cn_statusParseError, "%s must be in [%ld, %ld], got '%s'", what,
                              minimum, maximum, cnQuote( start, length, quoted, sizeof( quoted ) ) );
    }
    *value = parsed;
    return cn_statusOk;
}

static cnStatus cnReadIntEqual( cnReader* reader, const char* what, long expected, const char* why )
{
    long value = 0;
    cnStatus status = cnReadInt( reader, what, LONG_MIN, LONG_MAX, &value );
    if ( status == cn_statusOk && value != expected )
    {
        status =
            cnReaderError( reader, cn_statusParseError, "%s is %ld but %s %ld", what, value, why, expected );
    }
    return status;
}

// `index` is the 0-based place of the value in its vector or matrix, for the message.
static cnStatus cnReadDouble( cnReader* reader, const char* what, long index, double* value )
{
    const char* start = NULL;
    size_t length = 0;
    if ( cnNextToken( reader, &start, &length ) == false )
    {
        reader->tokenIndex += 1;
        return cnReaderError( reader, cn_statusParseError,
                              "expected %s[%ld] (a number), got the end of the file", what, index );
    }
    char buffer[CN_MAX_TOKEN + 1];
    char quoted[48];
    bool ok = cnCopyToken( start, length, buffer );
    char* end = NULL;
    double parsed = ok ? strtod( buffer, &end ) : 0.0;
    if ( ok == false || end == buffer || *end != '\0' )
    {
        return cnReaderError( reader, cn_statusParseError, "expected %s[%ld] (a number), got '%s'", what,
                              index, cnQuote( start, length, quoted, sizeof( quoted ) ) );
    }
    if ( isfinite( parsed ) == false )
    {
        return cnReaderError( reader, cn_statusNonFinite, "%s[%ld] is not finite: '%s'", what, index,
                              cnQuote( start, length, quoted, sizeof( quoted ) ) );
    }
    *value = parsed;
    return cn_statusOk;
}

// Refuse a count of numbers that the rest of the file cannot hold.
static cnStatus cnCheckRoom( cnReader* reader, const char* what, uint64_t count )
{
    uint64_t left = (uint64_t)( reader->length - reader->position );
    if ( count > left / 2 + 1 )
    {
        return cnReaderError(
            reader, cn_statusParseError,
            "%s needs %llu numbers but only %llu bytes are left (truncated file or wrong size)", what,
            (unsigned long long)count, (unsigned long long)left );
    }
    return cn_statusOk;
}

static void* cnTempAlloc( cnReader* reader, size_t count, size_t size )
{
    return count == 0 ? NULL : cnAllocArray( reader->allocator, count, size );
}

static void cnTempFree( cnReader* reader, void* memory, size_t count, size_t size )
{
    if ( memory != NULL )
    {
        cnFree( reader->allocator, memory, count * size );
    }
}

// A matrix in CSR form, owned by the reader while it parses (temporary arrays).
typedef struct cnTempMatrix
{
    int rows;
    int* rowStart; // rows + 1
    int* column;   // capacity
    double* value; // capacity
    size_t capacity;
    int nonzeros;
} cnTempMatrix;

static void cnFreeTempMatrix( cnReader* reader, cnTempMatrix* matrix )
{
    cnTempFree( reader, matrix->rowStart, (size_t)matrix->rows + 1, sizeof( int ) );
    cnTempFree( reader, matrix->column, matrix->capacity, sizeof( int ) );
    cnTempFree( reader, matrix->value, matrix->capacity, sizeof( double ) );
    *matrix = ( cnTempMatrix ){ 0 };
}

static cnStatus cnAllocTempMatrix( cnReader* reader, cnTempMatrix* matrix, int rows, size_t capacity )
{
    matrix->rows = rows;
    matrix->capacity = capacity;
    matrix->rowStart = cnTempAlloc( reader, (size_t)rows + 1, sizeof( int ) );
    matrix->column = cnTempAlloc( reader, capacity, sizeof( int ) );
    matrix->value = cnTempAlloc( reader, capacity, sizeof( double ) );
    if ( matrix->rowStart == NULL || ( capacity > 0 && ( matrix->column == NULL || matrix->value == NULL ) ) )
    {
        return cnReaderError( reader, cn_statusOutOfMemory, "out of memory for a %d x %d matrix", rows,
                              rows );
    }
    return cn_statusOk;
}

// Dense storage (type 0): `size0 size1` again, then size0 * size1 values, column-major.
static cnStatus cnReadDenseMatrix( cnReader* reader, const char* name, int n, cnTempMatrix* matrix )
{
    char what[64];
    cnFormat( what, sizeof( what ), "%s rows (repeated)", name );
    cnStatus status = cnReadIntEqual( reader, what, n, "the matrix header said" );
    cnFormat( what, sizeof( what ), "%s columns (repeated)", name );
    status = status == cn_statusOk ? cnReadIntEqual( reader, what, n, "the matrix header said" ) : status;
    uint64_t count = (uint64_t)n * (uint64_t)n;
    status = status == cn_statusOk ? cnCheckRoom( reader, name, count ) : status;
    if ( status != cn_statusOk )
    {
        return status;
    }

    double* dense = cnTempAlloc( reader, (size_t)count, sizeof( double ) );
    if ( count > 0 && dense == NULL )
    {
        return cnReaderError( reader, cn_statusOutOfMemory, "out of memory for a %d x %d matrix", n, n );
    }
    size_t nonzeros = 0;
    for ( uint64_t k = 0; k < count && status == cn_statusOk; ++k )
    {
        status = cnReadDouble( reader, name, (long)k, dense + k );
        nonzeros += status == cn_statusOk && dense[k] != 0.0 ? 1u : 0u;
    }
    if ( status == cn_statusOk )
    {
        status = cnAllocTempMatrix( reader, matrix, n, nonzeros );
    }
    if ( status == cn_statusOk )
    {
        int entry = 0;
        for ( int i = 0; i < n; ++i )
        {
            matrix->rowStart[i] = entry;
            for ( int j = 0; j < n; ++j )
            {
                double v = dense[(size_t)j * (size_t)n + (size_t)i]; // column-major
                if ( v != 0.0 )
                {
                    matrix->column[entry] = j;
                    matrix->value[entry] = v;
                    entry += 1;
                }
            }
        }
        matrix->rowStart[n] = entry;
        matrix->nonzeros = entry;
    }
    cnTempFree( reader, dense, (size_t)count, sizeof( double ) );
    return status;
}

// Cumulative block sizes: `count` strictly increasing positive ints ending at `total`.
static cnStatus cnReadBlockSizes( cnReader* reader, const char* what, int count, int total, int* sizes )
{
    cnStatus status = cnCheckRoom( reader, what, (uint64_t)count );
    int previous = 0;
    for ( int k = 0; k < count && status == cn_statusOk; ++k )
    {
        long value = 0;
        status = cnReadInt( reader, what, previous + 1, total, &value );
        sizes[k] = (int)value;
        previous = (int)value;
    }
    if ( status == cn_statusOk && previous != total )
    {
        status = cnReaderError( reader, cn_statusParseError, "%s end at %d but the matrix has %d", what,
                                previous, total );
    }
    return status;
}

typedef struct cnBlockLayout
{
    int blockRows;
    int blockColumns;
    int blockCount;
    int* rowEnd;      // blockRows cumulative sizes
    int* columnEnd;   // blockColumns
    int* rowPointer;  // blockRows + 1
    int* blockColumn; // blockCount
    size_t* offset;   // blockCount + 1: start of each block's values
    double* values;
} cnBlockLayout;

static void cnFreeBlockLayout( cnReader* reader, cnBlockLayout* layout )
{
    cnTempFree( reader, layout->rowEnd, (size_t)layout->blockRows, sizeof( int ) );
    cnTempFree( reader, layout->columnEnd, (size_t)layout->blockColumns, sizeof( int ) );
    cnTempFree( reader, layout->rowPointer, (size_t)layout->blockRows + 1, sizeof( int ) );
    cnTempFree( reader, layout->blockColumn, (size_t)layout->blockCount, sizeof( int ) );
    if ( layout->offset != NULL )
    {
        cnTempFree( reader, layout->values, layout->offset[layout->blockCount], sizeof( double ) );
    }
    cnTempFree( reader, layout->offset, (size_t)layout->blockCount + 1, sizeof( size_t ) );
}

static int cnBlockSize( const int* ends, int k )
{
    return ends[k] - ( k > 0 ? ends[k - 1] : 0 );
}

// Sparse-block storage (type 1): `nbblocks blocknumber0 blocknumber1`, cumulative row and column
// block sizes, `filled1 filled2`, block-row pointers, block columns, then every block: its index
// and its values, column-major.
static cnStatus cnReadBlockMatrix( cnReader* reader, const char* name, int n, cnTempMatrix* matrix )
{
    cnBlockLayout layout = { 0 };
    long blockCount = 0;
    long blockRows = 0;
    long blockColumns = 0;
    cnStatus status = cnReadInt( reader, "the number of blocks", 0, INT_MAX - 1, &blockCount );
    status = status == cn_statusOk
                 ? cnReadInt( reader, "the number of block rows", n > 0 ? 1 : 0, n, &blockRows )
                 : status;
    status = status == cn_statusOk
                 ? cnReadInt( reader, "the number of block columns", n > 0 ? 1 : 0, n, &blockColumns )
                 : status;
    status = status == cn_statusOk
                 ? cnCheckRoom( reader, "the block structure",
                                (uint64_t)blockRows + (uint64_t)blockColumns + 2 * (uint64_t)blockCount + 3 )
                 : status;
    if ( status != cn_statusOk )
    {
        return status;
    }

    layout.blockRows = (int)blockRows;
    layout.blockColumns = (int)blockColumns;
    layout.blockCount = (int)blockCount;
    layout.rowEnd = cnTempAlloc( reader, (size_t)blockRows, sizeof( int ) );
    layout.columnEnd = cnTempAlloc( reader, (size_t)blockColumns, sizeof( int ) );
    layout.rowPointer = cnTempAlloc( reader, (size_t)blockRows + 1, sizeof( int ) );
    layout.blockColumn = cnTempAlloc( reader, (size_t)blockCount, sizeof( int ) );
    layout.offset = cnTempAlloc( reader, (size_t)blockCount + 1, sizeof( size_t ) );
    if ( ( blockRows > 0 && layout.rowEnd == NULL ) || ( blockColumns > 0 && layout.columnEnd == NULL ) ||
         layout.rowPointer == NULL || ( blockCount > 0 && layout.blockColumn == NULL ) ||
         layout.offset == NULL )
    {
        cnFreeBlockLayout( reader, &layout );
        return cnReaderError( reader, cn_statusOutOfMemory, "out of memory for the block structure" );
    }

    status = cnReadBlockSizes( reader, "the row block sizes", layout.blockRows, n, layout.rowEnd );
    status = status == cn_statusOk ? cnReadBlockSizes( reader, "the column block sizes", layout.blockColumns,
                                                       n, layout.columnEnd )
                                   : status;
    status = status == cn_statusOk ? cnReadIntEqual( reader, "filled1 (block-row pointers)", blockRows + 1,
                                                     "block rows + 1 is" )
                                   : status;
    status = status == cn_statusOk
                 ? cnReadIntEqual( reader, "filled2 (block columns)", blockCount, "the number of blocks is" )
                 : status;
    // block-row pointers: from 0, non-decreasing, ending at the block count
    long previous = 0;
    for ( int r = 0; r <= layout.blockRows && status == cn_statusOk; ++r )
    {
        long value = 0;
        status = cnReadInt( reader, "a block-row pointer", r == 0 ? 0 : previous, blockCount, &value );
        if ( status == cn_statusOk && r == 0 && value != 0 )
        {
            status = cnReaderError( reader, cn_statusParseError, "the first block-row pointer must be 0" );
        }
        layout.rowPointer[r] = (int)value;
        previous = value;
    }
    if ( status == cn_statusOk && previous != blockCount )
    {
        status =
            cnReaderError( reader, cn_statusParseError,
                           "the block-row pointers end at %ld, not at %ld blocks", previous, blockCount );
    }
    // block columns: strictly increasing inside a block row
    for ( int r = 0; r < layout.blockRows && status == cn_statusOk; ++r )
    {
        for ( int k = layout.rowPointer[r]; k < layout.rowPointer[r + 1] && status == cn_statusOk; ++k )
        {
            long value = 0;
            long lowest = k > layout.rowPointer[r] ? layout.blockColumn[k - 1] + 1 : 0;
            status = cnReadInt( reader, "a block column (increasing within a block row)", lowest,
                                blockColumns - 1, &value );
            layout.blockColumn[k] = (int)value;
        }
    }

    // the values: sizes from the layout, room checked before allocating
    // (stops adding once past the bytes left, so the sum cannot overflow)
    uint64_t total = 0;
    uint64_t left = (uint64_t)( reader->length - reader->position );
    for ( int r = 0; r < layout.blockRows && status == cn_statusOk && total <= left; ++r )
    {
        for ( int k = layout.rowPointer[r]; k < layout.rowPointer[r + 1] && total <= left; ++k )
        {
            layout.offset[k] = (size_t)total;
            total += (uint64_t)cnBlockSize( layout.rowEnd, r ) *
                     (uint64_t)cnBlockSize( layout.columnEnd, layout.blockColumn[k] );
        }
    }
    if ( status == cn_statusOk )
    {
        layout.offset[layout.blockCount] = (size_t)total;
        status = cnCheckRoom( reader, "the blocks", total + (uint64_t)blockCount );
    }
    if ( status == cn_statusOk && total > 0 )
    {
        layout.values = cnTempAlloc( reader, (size_t)total, sizeof( double ) );
        if ( layout.values == NULL )
        {
            status = cnReaderError( reader, cn_statusOutOfMemory, "out of memory for the blocks" );
        }
    }
    size_t nonzeros = 0;
    for ( int r = 0; r < layout.blockRows && status == cn_statusOk; ++r )
    {
        for ( int k = layout.rowPointer[r]; k < layout.rowPointer[r + 1] && status == cn_statusOk; ++k )
        {
            status = cnReadIntEqual( reader, "a block index", k, "blocks come in order, this one is" );
            size_t size = layout.offset[k + 1] - layout.offset[k];
            for ( size_t e = 0; e < size && status == cn_statusOk; ++e )
            {
                double* v = layout.values + layout.offset[k] + e;
                status = cnReadDouble( reader, name, (long)( layout.offset[k] + e ), v );
                nonzeros += status == cn_statusOk && *v != 0.0 ? 1u : 0u;
            }
        }
    }

    // CSR, row by row; blocks of a block row are in increasing column order
    if ( status == cn_statusOk )
    {
        status = cnAllocTempMatrix( reader, matrix, n, nonzeros );
    }
    if ( status == cn_statusOk )
    {
        int entry = 0;
        for ( int r = 0; r < layout.blockRows; ++r )
        {
            int rowBegin = r > 0 ? layout.rowEnd[r - 1] : 0;
            int height = cnBlockSize( layout.rowEnd, r );
            for ( int i = 0; i < height; ++i )
            {
                matrix->rowStart[rowBegin + i] = entry;
                for ( int k = layout.rowPointer[r]; k < layout.rowPointer[r + 1]; ++k )
                {
                    int c = layout.blockColumn[k];
                    int columnBegin = c > 0 ? layout.columnEnd[c - 1] : 0;
                    int width = cnBlockSize( layout.columnEnd, c );
                    const double* block = layout.values + layout.offset[k];
                    for ( int j = 0; j < width; ++j )
                    {
                        double v = block[(size_t)j * (size_t)height + (size_t)i];
                        if ( v != 0.0 )
                        {
                            matrix->column[entry] = columnBegin + j;
                            matrix->value[entry] = v;
                            entry += 1;
                        }
                    }
                }
            }
        }
        matrix->rowStart[n] = entry;
        matrix->nonzeros = entry;
    }
    cnFreeBlockLayout( reader, &layout );
    return status;
}

// A NumericsMatrix that must be n x n. For FC3D (`fc3d`), a square matrix of another size is
// reported as a global frictional-contact problem (unsupported).
static cnStatus cnReadMatrix( cnReader* reader, const char* name, int n, bool fc3d, cnTempMatrix* matrix )
{
    long storage = 0;
    char what[64];
    cnFormat( what, sizeof( what ), "the storage type of %s", name );
    cnStatus status = cnReadInt( reader, what, LONG_MIN, LONG_MAX, &storage );
    if ( status != cn_statusOk )
    {
        return status;
    }
    if ( storage == 2 )
    {
        return cnReaderError(
            reader, cn_statusUnsupported,
            "%s has storage type 2 (sparse CSparse): not supported, only 0 (dense) and 1 (sparse "
            "block)",
            name );
    }
    if ( storage != 0 && storage != 1 )
    {
        return cnReaderError( reader, cn_statusParseError,
                              "the storage type of %s must be 0 (dense) or 1 (sparse block), got %ld", name,
                              storage );
    }
    long size0 = 0;
    long size1 = 0;
    cnFormat( what, sizeof( what ), "the rows of %s", name );
    status = cnReadInt( reader, what, 0, LONG_MAX, &size0 );
    cnFormat( what, sizeof( what ), "the columns of %s", name );
    status = status == cn_statusOk ? cnReadInt( reader, what, 0, LONG_MAX, &size1 ) : status;
    if ( status != cn_statusOk )
    {
        return status;
    }
    if ( size0 != n || size1 != n )
    {
        if ( fc3d && size0 == size1 && size0 > 0 )
        {
            return cnReaderError( reader, cn_statusUnsupported,
                                  "%s is %ld x %ld but %d contacts need %d x %d: this looks like a global "
                                  "frictional-contact problem (GFC3D), which is not supported",
                                  name, size0, size1, n / 3, n, n );
        }
        return cnReaderError( reader, cn_statusParseError, "%s is %ld x %ld but the problem has %d rows",
                              name, size0, size1, n );
    }
    return storage == 0 ? cnReadDenseMatrix( reader, name, n, matrix )
                        : cnReadBlockMatrix( reader, name, n, matrix );
}

static cnStatus cnReadVector( cnReader* reader, const char* name, int count, double* values )
{
    cnStatus status = cnCheckRoom( reader, name, (uint64_t)count );
    for ( int i = 0; i < count && status == cn_statusOk; ++i )
    {
        status = cnReadDouble( reader, name, i, values + i );
    }
    return status;
}

// Size of a block for `count` elements of `size`, rounded up to 16 bytes.
static size_t cnPadded( size_t count, size_t size )
{
    return ( count * size + 15 ) & ~(size_t)15;
}

// Move the parsed arrays into the problem's one block and set up the view: an LCP gets one
// frictionless normal group per row, an FC3D problem one contact group (pyramid model, its mu) per
// three rows.
static cnStatus cnBuildProblem( cnReader* reader, cnProblemFormat format, int contacts,
                                const cnTempMatrix* matrix, const double* b, const double* mu,
                                cnFileProblem* problem )
{
    int n = matrix->rows;
    int groupCount = format == cn_problemSiconosFc3d ? contacts : n;
    size_t rows = (size_t)n;
    size_t nonzeros = (size_t)matrix->nonzeros;
    size_t size = cnPadded( rows + 1, sizeof( int ) ) + cnPadded( nonzeros, sizeof( int ) ) +
                  cnPadded( nonzeros, sizeof( double ) ) + 3 * cnPadded( rows, sizeof( double ) ) +
                  cnPadded( (size_t)groupCount, sizeof( cnRowGroup ) );
    char* memory = cnAlloc( reader->allocator, size, 64 );
    if ( memory == NULL )
    {
        return cnReaderError( reader, cn_statusOutOfMemory, "out of memory for a problem of %d rows", n );
    }

    char* p = memory;
    int* rowStart = (int*)p;
    p += cnPadded( rows + 1, sizeof( int ) );
    int* column = (int*)p;
    p += cnPadded( nonzeros, sizeof( int ) );
    double* value = (double*)p;
    p += cnPadded( nonzeros, sizeof( double ) );
    double* lower = (double*)p;
    p += cnPadded( rows, sizeof( double ) );
    double* upper = (double*)p;
    p += cnPadded( rows, sizeof( double ) );
    double* rowB = (double*)p;
    p += cnPadded( rows, sizeof( double ) );
    cnRowGroup* groups = (cnRowGroup*)(void*)p;

    memcpy( rowStart, matrix->rowStart, ( rows + 1 ) * sizeof( int ) );
    if ( nonzeros > 0 )
    {
        memcpy( column, matrix->column, nonzeros * sizeof( int ) );
        memcpy( value, matrix->value, nonzeros * sizeof( double ) );
    }
    for ( int i = 0; i < n; ++i )
    {
        lower[i] = 0.0;
        upper[i] = (double)INFINITY;
        rowB[i] = b[i];
    }
    for ( int g = 0; g < groupCount; ++g )
    {
        bool contact = format == cn_problemSiconosFc3d;
        groups[g] = ( cnRowGroup ){
            .firstRow = contact ? 3 * g : g,
            .rowCount = contact ? 3 : 1,
            .kind = (uint8_t)( contact ? cn_groupContact : cn_groupNormal ),
            .model = cn_frictionPyramid,
            .mu = contact ? mu[g] : 0.0,
        };
    }

    *problem = ( cnFileProblem ){ 0 };
    problem->memory = memory;
    problem->memorySize = size;
    problem->allocator = reader->allocator != NULL ? *reader->allocator : ( cnAllocator ){ 0 };
    problem->format = format;
    problem->contactCount = contacts;
    problem->matrix =
        ( cnSparseMatrix ){ .rows = n, .columns = n, .rowStart = rowStart, .column = column, .value = value };
    problem->problem = ( cnSolverProblem ){
        .rowCount = n,
        .rowCapacity = n,
        .groupCount = groupCount,
        .groupCapacity = groupCount,
        .groups = groups,
        .lower = lower,
        .upper = upper,
        .b = rowB,
        .matrix = &problem->matrix,
    };
    return cn_statusOk;
}

static bool cnIsNumberToken( const char* start, size_t length )
{
    char buffer[CN_MAX_TOKEN + 1];
    char* end = buffer;
    if ( cnCopyToken( start, length, buffer ) )
    {
        (void)strtod( buffer, &end );
    }
    return end != buffer && *end == '\0';
}

// What is left after the problem: LCP files may end with comment text, never with more numbers.
// FC3D files written by older Siconos end with an "isComplete" flag (0 or 1), which is skipped.
static cnStatus cnCheckTrailing( cnReader* reader, cnProblemFormat format )
{
    const char* start = NULL;
    size_t length = 0;
    if ( cnNextToken( reader, &start, &length ) == false )
    {
        return cn_statusOk;
    }
    if ( format == cn_problemSiconosFc3d && length == 1 && ( start[0] == '0' || start[0] == '1' ) )
    {
        if ( cnNextToken( reader, &start, &length ) == false )
        {
            return cn_statusOk;
        }
    }
    if ( cnIsNumberToken( start, length ) == false )
    {
        return cn_statusOk; // a comment
    }
    if ( format == cn_problemSiconosFc3d )
    {
        return cnReaderError( reader, cn_statusUnsupported,
                              "more numbers after mu: this looks like a global frictional-contact problem "
                              "(GFC3D), which is not supported" );
    }
    return cnReaderError( reader, cn_statusParseError, "more numbers after q: is n right?" );
}

static cnStatus cnParseLcp( cnReader* reader, cnFileProblem* problem )
{
    long n = 0;
    cnStatus status = cnReadInt( reader, "n (the size of the LCP)", 0, CN_MAX_PROBLEM_ROWS, &n );
    cnTempMatrix matrix = { 0 };
    double* q = NULL;
    status = status == cn_statusOk ? cnReadMatrix( reader, "M", (int)n, false, &matrix ) : status;
    if ( status == cn_statusOk && n > 0 )
    {
        status = cnCheckRoom( reader, "q", (uint64_t)n );
        q = status == cn_statusOk ? cnTempAlloc( reader, (size_t)n, sizeof( double ) ) : NULL;
        if ( status == cn_statusOk && q == NULL )
        {
            status = cnReaderError( reader, cn_statusOutOfMemory, "out of memory for q" );
        }
    }
    status = status == cn_statusOk ? cnReadVector( reader, "q", (int)n, q ) : status;
    status = status == cn_statusOk ? cnCheckTrailing( reader, cn_problemSiconosLcp ) : status;
    status = status == cn_statusOk
                 ? cnBuildProblem( reader, cn_problemSiconosLcp, 0, &matrix, q, NULL, problem )
                 : status;
    cnTempFree( reader, q, (size_t)n, sizeof( double ) );
    cnFreeTempMatrix( reader, &matrix );
    return status;
}

static cnStatus cnParseFc3d( cnReader* reader, cnFileProblem* problem )
{
    long dimension = 0;
    long contacts = 0;
    cnStatus status = cnReadInt( reader, "the dimension", LONG_MIN, LONG_MAX, &dimension );
    if ( status == cn_statusOk && dimension == 2 )
    {
        return cnReaderError( reader, cn_statusUnsupported, "2-D frictional contact is not supported" );
    }
    if ( status == cn_statusOk && dimension != 3 )
    {
        return cnReaderError( reader, cn_statusParseError, "the dimension must be 3, got %ld", dimension );
    }
    status = status == cn_statusOk
                 ? cnReadInt( reader, "the number of contacts", 0, CN_MAX_PROBLEM_ROWS / 3, &contacts )
                 : status;
    if ( status != cn_statusOk )
    {
        return status;
    }

    int n = 3 * (int)contacts;
    cnTempMatrix matrix = { 0 };
    double* q = NULL;
    double* mu = NULL;
    status = cnReadMatrix( reader, "W", n, true, &matrix );
    if ( status == cn_statusOk && n > 0 )
    {
        status = cnCheckRoom( reader, "q and mu", (uint64_t)n + (uint64_t)contacts );
        q = status == cn_statusOk ? cnTempAlloc( reader, (size_t)n, sizeof( double ) ) : NULL;
        mu = status == cn_statusOk ? cnTempAlloc( reader, (size_t)contacts, sizeof( double ) ) : NULL;
        if ( status == cn_statusOk && ( q == NULL || mu == NULL ) )
        {
            status = cnReaderError( reader, cn_statusOutOfMemory, "out of memory for q and mu" );
        }
    }
    status = status == cn_statusOk ? cnReadVector( reader, "q", n, q ) : status;
    for ( int c = 0; c < (int)contacts && status == cn_statusOk; ++c )
    {
        status = cnReadDouble( reader, "mu", c, mu + c );
        if ( status == cn_statusOk && mu[c] < 0.0 )
        {
            status = cnReaderError( reader, cn_statusParseError, "mu[%d] is negative: %g", c, mu[c] );
        }
    }
    status = status == cn_statusOk ? cnCheckTrailing( reader, cn_problemSiconosFc3d ) : status;
    status = status == cn_statusOk
                 ? cnBuildProblem( reader, cn_problemSiconosFc3d, (int)contacts, &matrix, q, mu, problem )
                 : status;
    cnTempFree( reader, q, (size_t)n, sizeof( double ) );
    cnTempFree( reader, mu, (size_t)contacts, sizeof( double ) );
    cnFreeTempMatrix( reader, &matrix );
    return status;
}

// LCP files start `n type n n`; FC3D files `3 nc type 3nc 3nc`. The two cannot be confused: an
// FC3D file's third token is a storage type (0, 1 or 2), never its first token 3.
static cnProblemFormat cnDetectFormat( const cnReader* reader )
{
    cnReader peek = *reader;
    peek.message = NULL;
    long t[3] = { 0, 0, 0 };
    for ( int k = 0; k < 3; ++k )
    {
        if ( cnReadInt( &peek, "a header number", LONG_MIN, LONG_MAX, t + k ) != cn_statusOk )
        {
            return cn_problemSiconosLcp; // the LCP reader explains what is wrong
        }
    }
    if ( t[2] == t[0] )
    {
        return cn_problemSiconosLcp;
    }
    if ( t[0] == 2 || t[0] == 3 )
    {
        return cn_problemSiconosFc3d;
    }
    return cn_problemSiconosLcp;
}

cnStatus cnParseProblemText( const char* name, const char* text, size_t length, cnProblemFormat format,
                             const cnAllocator* allocator, cnFileProblem* problem, char* message,
                             int messageSize )
{
    if ( message != NULL && messageSize > 0 )
    {
        message[0] = '\0';
    }
    if ( problem == NULL )
    {
        return cn_statusInvalidArgument;
    }
    *problem = ( cnFileProblem ){ 0 };
    cnReader reader = {
        .name = name != NULL ? name : "(text)",
        .text = text,
        .length = text != NULL ? length : 0,
        .line = 1,
        .allocator = allocator,
        .message = message,
        .messageSize = messageSize,
    };
    if ( format != cn_problemAuto && format != cn_problemSiconosLcp && format != cn_problemSiconosFc3d )
    {
        cnFormat( message, messageSize, "%s: unknown problem format %d", reader.name, (int)format );
        return cn_statusInvalidArgument;
    }
    if ( format == cn_problemAuto )
    {
        format = cnDetectFormat( &reader );
    }
    cnStatus status =
        format == cn_problemSiconosLcp ? cnParseLcp( &reader, problem ) : cnParseFc3d( &reader, problem );
    if ( status != cn_statusOk )
    {
        *problem = ( cnFileProblem ){ 0 };
    }
    return status;
}

cnStatus cnReadProblemFile( const char* path, cnProblemFormat format, const cnAllocator* allocator,
                            cnFileProblem* problem, char* message, int messageSize )
{
    if ( message != NULL && messageSize > 0 )
    {
        message[0] = '\0';
    }
    if ( problem == NULL )
    {
        return cn_statusInvalidArgument;
    }
    *problem = ( cnFileProblem ){ 0 };
    if ( path == NULL )
    {
        cnFormat( message, messageSize, "no file name given" );
        return cn_statusInvalidArgument;
    }

    FILE* file = fopen( path, "rb" );
    if ( file == NULL )
    {
        cnFormat( message, messageSize, "%s: cannot open: %s", path, strerror( errno ) );
        return cn_statusIoError;
    }
    // the whole file, in a block that doubles (no fseek: works for pipes, fails cleanly for folders)
    size_t capacity = 4096;
    size_t read = 0;
    char* text = cnAlloc( allocator, capacity, 16 );
    bool failed = text == NULL;
    while ( failed == false )
    {
        read += fread( text + read, 1, capacity - 1 - read, file );
        if ( ferror( file ) != 0 || feof( file ) != 0 )
        {
            failed = ferror( file ) != 0;
            break;
        }
        char* bigger =
            capacity <= SIZE_MAX / 2 ? cnRealloc( allocator, text, capacity, 2 * capacity, 16 ) : NULL;
        if ( bigger == NULL )
        {
            cnFormat( message, messageSize, "%s: out of memory after %zu bytes", path, read );
            cnFree( allocator, text, capacity );
            fclose( file );
            return cn_statusOutOfMemory;
        }
        text = bigger;
        capacity *= 2;
    }
    int error = errno;
    fclose( file );
    if ( text == NULL )
    {
        cnFormat( message, messageSize, "%s: out of memory", path );
        return cn_statusOutOfMemory;
    }
    if ( failed )
    {
        cnFormat( message, messageSize, "%s: cannot read: %s", path, strerror( error ) );
        cnFree( allocator, text, capacity );
        return cn_statusIoError;
    }
    text[read] = '\0';

    cnStatus status =
        cnParseProblemText( path, text, read, format, allocator, problem, message, messageSize );
    cnFree( allocator, text, capacity );
    return status;
}

void cnDestroyFileProblem( cnFileProblem* problem )
{
    if ( problem == NULL )
    {
        return;
    }
    if ( problem->memory != NULL )
    {
        cnAllocator allocator = problem->allocator;
        cnFree( &allocator, problem->memory, problem->memorySize );
    }
    *problem = ( cnFileProblem ){ 0 };
}

const char* cnProblemFormatName( cnProblemFormat format )
{
    switch ( format )
    {
        case cn_problemAuto:
            return "auto";
        case cn_problemSiconosLcp:
            return "siconos_lcp";
        case cn_problemSiconosFc3d:
            return "siconos_fc3d";
        default:
            return "unknown";
    }
}

cnStatus cnWriteProblemFile( const char* path, const cnSolverProblem* problem, const double* start,
                             const double* lambda, char* message, int messageSize )
{
    (void)path;
    (void)problem;
    (void)start;
    (void)lambda;
    cnFormat( message, messageSize, "cnWriteProblemFile: not implemented yet" );
    return cn_statusUnsupported;
}
