// SPDX-License-Identifier: MIT
// Readers for the Siconos text formats (LCP and FC3D files, dense and sparse-block matrices), the
// writer of the same formats (cnWriteProblemFile), and the dispatch to the fclib HDF5 reader
// (lcp_hdf5.c) when a file starts with the HDF5 signature. Format notes:
// ../shared/external-data/README.md, "Siconos text formats"; cairn's own trailing blocks: docs/cli.md.
//
// Safety rules: every token is checked before it is used; every size the file claims (n, the
// number of contacts, block counts, block sizes) is checked against the bytes that are left
// before anything is allocated for it (k numbers need at least 2k - 1 bytes), so a lying header
// cannot make us allocate more than a few times the file size.
#include "cairn/lcp_io.h"

#include "arena.h"
#include "core.h"
#include "lcp_file.h"
#include "solver_kit.h"

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

// A size the file claims, checked as soon as it is read and before anything of that size is
// allocated: the rest of the file must hold the `count` numbers it implies (`which` says what they
// are). Without this a 66-byte file claiming 10^8 rows made the reader allocate 400 MB before it
// found the file truncated.
static cnStatus cnCheckClaim( cnReader* reader, const char* what, long value, uint64_t count,
                              const char* which )
{
    uint64_t left = (uint64_t)( reader->length - reader->position );
    if ( count > left / 2 + 1 )
    {
        return cnReaderError( reader, cn_statusParseError,
                              "%s is %ld, which needs at least %llu more numbers (%s), but only %llu bytes "
                              "are left (truncated file or wrong size)",
                              what, value, (unsigned long long)count, which, (unsigned long long)left );
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
        status = cnCheckRoom( reader, "the block data", total + (uint64_t)blockCount );
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

// Copy the arrays into the problem's one block and set up the view: an LCP gets one frictionless
// normal group per row, every contact format one contact group (pyramid model, its mu) per three
// rows. Exact zeros of the matrix are not copied.
cnStatus cnAssembleFileProblem( cnProblemFormat format, int rows, int contacts, const int* rowStart,
                                const int* column, const double* value, const double* b, const double* mu,
                                const double* start, const double* reference, const cnAllocator* allocator,
                                cnFileProblem* problem )
{
    int n = rows;
    bool lcp = format == cn_problemSiconosLcp;
    int groupCount = lcp ? n : contacts;
    size_t count = (size_t)n;
    size_t nonzeros = 0;
    for ( int k = 0; k < rowStart[n]; ++k )
    {
        nonzeros += value[k] != 0.0 ? 1u : 0u;
    }
    size_t size = cnPadded( count + 1, sizeof( int ) ) + cnPadded( nonzeros, sizeof( int ) ) +
                  cnPadded( nonzeros, sizeof( double ) ) + 3 * cnPadded( count, sizeof( double ) ) +
                  cnPadded( (size_t)groupCount, sizeof( cnRowGroup ) ) +
                  ( start != NULL ? cnPadded( count, sizeof( double ) ) : 0 ) +
                  ( reference != NULL ? cnPadded( count, sizeof( double ) ) : 0 );
    char* memory = cnAlloc( allocator, size, 64 );
    if ( memory == NULL )
    {
        return cn_statusOutOfMemory;
    }

    char* p = memory;
    int* ownRowStart = (int*)p;
    p += cnPadded( count + 1, sizeof( int ) );
    int* ownColumn = (int*)p;
    p += cnPadded( nonzeros, sizeof( int ) );
    double* ownValue = (double*)p;
    p += cnPadded( nonzeros, sizeof( double ) );
    double* lower = (double*)p;
    p += cnPadded( count, sizeof( double ) );
    double* upper = (double*)p;
    p += cnPadded( count, sizeof( double ) );
    double* rowB = (double*)p;
    p += cnPadded( count, sizeof( double ) );
    cnRowGroup* groups = (cnRowGroup*)(void*)p;
    p += cnPadded( (size_t)groupCount, sizeof( cnRowGroup ) );
    double* ownStart = NULL;
    if ( start != NULL )
    {
        ownStart = (double*)(void*)p;
        p += cnPadded( count, sizeof( double ) );
    }
    double* ownReference = reference != NULL ? (double*)(void*)p : NULL;

    int entry = 0;
    for ( int i = 0; i < n; ++i )
    {
        ownRowStart[i] = entry;
        for ( int k = rowStart[i]; k < rowStart[i + 1]; ++k )
        {
            if ( value[k] != 0.0 )
            {
                ownColumn[entry] = column[k];
                ownValue[entry] = value[k];
                entry += 1;
            }
        }
        lower[i] = 0.0;
        upper[i] = (double)INFINITY;
        rowB[i] = b[i];
        if ( ownStart != NULL )
        {
            ownStart[i] = start[i];
        }
        if ( ownReference != NULL )
        {
            ownReference[i] = reference[i];
        }
    }
    ownRowStart[n] = entry;
    for ( int g = 0; g < groupCount; ++g )
    {
        groups[g] = ( cnRowGroup ){
            .firstRow = lcp ? g : 3 * g,
            .rowCount = lcp ? 1 : 3,
            .kind = (uint8_t)( lcp ? cn_groupNormal : cn_groupContact ),
            .model = cn_frictionPyramid,
            .mu = lcp ? 0.0 : mu[g],
        };
    }

    *problem = ( cnFileProblem ){ 0 };
    problem->memory = memory;
    problem->memorySize = size;
    problem->allocator = allocator != NULL ? *allocator : ( cnAllocator ){ 0 };
    problem->format = format;
    problem->contactCount = lcp ? 0 : contacts;
    problem->start = ownStart;
    problem->reference = ownReference;
    problem->matrix = ( cnSparseMatrix ){
        .rows = n, .columns = n, .rowStart = ownRowStart, .column = ownColumn, .value = ownValue };
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

static bool cnTokenIs( const char* start, size_t length, const char* word )
{
    return length == strlen( word ) && memcmp( start, word, length ) == 0;
}

// cairn's own blocks after a problem, in this order, each a marker line and then one number per row
// (cnWriteProblemFile writes them; Siconos' readers stop before them).
#define CN_START_MARKER     "# cairn start"
#define CN_REFERENCE_MARKER "# cairn reference"

// The numbers of the start or reference block (marker already read), into a temporary array.
static cnStatus cnReadRowBlock( cnReader* reader, const char* name, int n, double** values )
{
    cnStatus status = cnCheckRoom( reader, name, (uint64_t)n );
    if ( status == cn_statusOk && n > 0 )
    {
        *values = cnTempAlloc( reader, (size_t)n, sizeof( double ) );
        if ( *values == NULL )
        {
            status = cnReaderError( reader, cn_statusOutOfMemory, "out of memory for %s", name );
        }
    }
    for ( int i = 0; i < n && status == cn_statusOk; ++i )
    {
        status = cnReadDouble( reader, name, i, *values + i );
    }
    return status;
}

// What follows the problem: the "isComplete" flag (0 or 1) that older Siconos versions write after
// an FC3D problem, then cairn's start and reference blocks (each optional, start first), then at
// most a comment (LCP files may end with text, never with more numbers). `start` and `reference`
// (rows) are set only for the blocks present; `hasStart` and `hasReference` say which were.
static cnStatus cnReadTrailing( cnReader* reader, cnProblemFormat format, int n, double** start,
                                bool* hasStart, double** reference, bool* hasReference )
{
    const char* token = NULL;
    size_t length = 0;
    cnReader peek = *reader;
    if ( cnNextToken( &peek, &token, &length ) == false )
    {
        return cn_statusOk;
    }
    if ( format == cn_problemSiconosFc3d && length == 1 && ( token[0] == '0' || token[0] == '1' ) )
    {
        *reader = peek;
        if ( cnNextToken( &peek, &token, &length ) == false )
        {
            return cn_statusOk;
        }
    }
    const char* after = format == cn_problemSiconosFc3d ? "mu" : "q";
    while ( cnTokenIs( token, length, "#" ) )
    {
        // "# cairn NAME": one of our blocks; any other '#' starts a comment
        cnReader marker = peek;
        const char* word = NULL;
        size_t wordLength = 0;
        if ( cnNextToken( &marker, &word, &wordLength ) == false ||
             cnTokenIs( word, wordLength, "cairn" ) == false )
        {
            return cn_statusOk;
        }
        bool found = cnNextToken( &marker, &word, &wordLength );
        *reader = marker;
        if ( found && cnTokenIs( word, wordLength, "start" ) && *hasStart == false && *hasReference == false )
        {
            cnStatus status = cnReadRowBlock( reader, "the start block", n, start );
            *hasStart = true;
            after = "the start block";
            if ( status != cn_statusOk )
            {
                return status;
            }
        }
        else if ( found && cnTokenIs( word, wordLength, "reference" ) && *hasReference == false )
        {
            cnStatus status = cnReadRowBlock( reader, "the reference block", n, reference );
            *hasReference = true;
            after = "the reference block";
            if ( status != cn_statusOk )
            {
                return status;
            }
        }
        else
        {
            char quoted[48];
            return cnReaderError( reader, cn_statusParseError,
                                  "'# cairn %s': expected '" CN_START_MARKER "' or '" CN_REFERENCE_MARKER
                                  "', once each and in that order",
                                  found ? cnQuote( word, wordLength, quoted, sizeof( quoted ) ) : "" );
        }
        peek = *reader;
        if ( cnNextToken( &peek, &token, &length ) == false )
        {
            return cn_statusOk;
        }
    }
    if ( cnIsNumberToken( token, length ) == false )
    {
        return cn_statusOk; // a comment
    }
    *reader = peek;
    if ( format == cn_problemSiconosFc3d && *hasStart == false && *hasReference == false )
    {
        return cnReaderError( reader, cn_statusUnsupported,
                              "more numbers after mu: this looks like a global frictional-contact problem "
                              "(GFC3D), which is not supported" );
    }
    return cnReaderError( reader, cn_statusParseError, "more numbers after %s: is n right?", after );
}

// What every parser hands over: the arrays it read (temporary), released by cnFreeParsed.
typedef struct cnParsed
{
    cnTempMatrix matrix;
    int rows;
    int contacts;
    double* q;     // rows
    double* mu;    // contacts
    double* start; // rows, when the file has a start block
    double* reference;
    bool hasStart;
    bool hasReference;
} cnParsed;

static void cnFreeParsed( cnReader* reader, cnParsed* parsed )
{
    size_t rows = (size_t)parsed->rows;
    cnTempFree( reader, parsed->q, rows, sizeof( double ) );
    cnTempFree( reader, parsed->mu, (size_t)parsed->contacts, sizeof( double ) );
    cnTempFree( reader, parsed->start, rows, sizeof( double ) );
    cnTempFree( reader, parsed->reference, rows, sizeof( double ) );
    cnFreeTempMatrix( reader, &parsed->matrix );
}

// The trailing blocks, then the problem's one block.
static cnStatus cnFinishParse( cnReader* reader, cnProblemFormat format, cnParsed* parsed,
                               cnFileProblem* problem )
{
    cnStatus status = cnReadTrailing( reader, format, parsed->rows, &parsed->start, &parsed->hasStart,
                                      &parsed->reference, &parsed->hasReference );
    if ( status != cn_statusOk )
    {
        return status;
    }
    // zero rows: an empty block still says the file had it
    static const double none[1] = { 0.0 };
    const double* start = parsed->hasStart ? ( parsed->start != NULL ? parsed->start : none ) : NULL;
    const double* reference =
        parsed->hasReference ? ( parsed->reference != NULL ? parsed->reference : none ) : NULL;
    status = cnAssembleFileProblem( format, parsed->rows, parsed->contacts, parsed->matrix.rowStart,
                                    parsed->matrix.column, parsed->matrix.value, parsed->q, parsed->mu, start,
                                    reference, reader->allocator, problem );
    if ( status != cn_statusOk )
    {
        return cnReaderError( reader, status, "out of memory for a problem of %d rows", parsed->rows );
    }
    return cn_statusOk;
}

static cnStatus cnParseLcp( cnReader* reader, cnFileProblem* problem )
{
    long n = 0;
    cnParsed parsed = { 0 };
    cnStatus status = cnReadInt( reader, "n (the size of the LCP)", 0, CN_MAX_PROBLEM_ROWS, &n );
    status = status == cn_statusOk ? cnCheckClaim( reader, "n (the size of the LCP)", n, (uint64_t)n + 3,
                                                   "the matrix header and q" )
                                   : status;
    if ( status != cn_statusOk )
    {
        return status;
    }
    parsed.rows = (int)n;
    status = cnReadMatrix( reader, "M", (int)n, false, &parsed.matrix );
    if ( status == cn_statusOk && n > 0 )
    {
        status = cnCheckRoom( reader, "q", (uint64_t)n );
        parsed.q = status == cn_statusOk ? cnTempAlloc( reader, (size_t)n, sizeof( double ) ) : NULL;
        if ( status == cn_statusOk && parsed.q == NULL )
        {
            status = cnReaderError( reader, cn_statusOutOfMemory, "out of memory for q" );
        }
    }
    status = status == cn_statusOk ? cnReadVector( reader, "q", (int)n, parsed.q ) : status;
    status = status == cn_statusOk ? cnFinishParse( reader, cn_problemSiconosLcp, &parsed, problem ) : status;
    cnFreeParsed( reader, &parsed );
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
    status = status == cn_statusOk ? cnCheckClaim( reader, "the number of contacts", contacts,
                                                   4 * (uint64_t)contacts + 3, "the matrix header, q and mu" )
                                   : status;
    if ( status != cn_statusOk )
    {
        return status;
    }

    int n = 3 * (int)contacts;
    cnParsed parsed = { .rows = n, .contacts = (int)contacts };
    status = cnReadMatrix( reader, "W", n, true, &parsed.matrix );
    if ( status == cn_statusOk && n > 0 )
    {
        status = cnCheckRoom( reader, "q and mu", (uint64_t)n + (uint64_t)contacts );
        parsed.q = status == cn_statusOk ? cnTempAlloc( reader, (size_t)n, sizeof( double ) ) : NULL;
        parsed.mu = status == cn_statusOk ? cnTempAlloc( reader, (size_t)contacts, sizeof( double ) ) : NULL;
        if ( status == cn_statusOk && ( parsed.q == NULL || parsed.mu == NULL ) )
        {
            status = cnReaderError( reader, cn_statusOutOfMemory, "out of memory for q and mu" );
        }
    }
    status = status == cn_statusOk ? cnReadVector( reader, "q", n, parsed.q ) : status;
    for ( int c = 0; c < (int)contacts && status == cn_statusOk; ++c )
    {
        status = cnReadDouble( reader, "mu", c, parsed.mu + c );
        if ( status == cn_statusOk && parsed.mu[c] < 0.0 )
        {
            status = cnReaderError( reader, cn_statusParseError, "mu[%d] is negative: %g", c, parsed.mu[c] );
        }
    }
    status =
        status == cn_statusOk ? cnFinishParse( reader, cn_problemSiconosFc3d, &parsed, problem ) : status;
    cnFreeParsed( reader, &parsed );
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

// The HDF5 signature, at offset 0 or, after a user block, at 512, 1024, 2048, ...
static bool cnIsHdf5Image( const char* text, size_t length )
{
    static const char signature[8] = { '\211', 'H', 'D', 'F', '\r', '\n', '\032', '\n' };
    for ( size_t offset = 0; text != NULL && offset + sizeof( signature ) <= length;
          offset = offset == 0 ? 512 : 2 * offset )
    {
        if ( memcmp( text + offset, signature, sizeof( signature ) ) == 0 )
        {
            return true;
        }
    }
    return false;
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
    if ( format < cn_problemAuto || format > cn_problemFclibGlobal )
    {
        cnFormat( message, messageSize, "%s: unknown problem format %d", reader.name, (int)format );
        return cn_statusInvalidArgument;
    }
    // binary first: the HDF5 signature decides before any text is parsed
    bool hdf5 = cnIsHdf5Image( reader.text, reader.length );
    bool fclib = format == cn_problemFclibLocal || format == cn_problemFclibGlobal;
    if ( hdf5 && ( format == cn_problemAuto || fclib ) )
    {
        return cnReadFclibImage( reader.name, reader.text, reader.length, format, allocator, problem, message,
                                 messageSize );
    }
    if ( hdf5 || fclib )
    {
        cnFormat( message, messageSize, "%s: %s, but the format %s was asked for", reader.name,
                  hdf5 ? "an HDF5 file" : "not an HDF5 file (no HDF5 signature)",
                  cnProblemFormatName( format ) );
        return cn_statusParseError;
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
    // the whole file, in a block that doubles (no fseek: works for pipes, fails cleanly for folders);
    // it starts small so that it stays within twice the size of a small file
    size_t capacity = 256;
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
        case cn_problemFclibLocal:
            return "fclib_local";
        case cn_problemFclibGlobal:
            return "fclib_global";
        default:
            return "unknown";
    }
}

// ---- the writer -------------------------------------------------------------------------------------

#if defined( __GNUC__ )
__attribute__( ( format( printf, 5, 6 ) ) )
#endif
static cnStatus
cnWriteError( char* message, int messageSize, cnStatus status, const char* path, const char* format, ... )
{
    if ( message != NULL && messageSize > 0 )
    {
        char detail[CN_PROBLEM_MESSAGE_CAPACITY];
        va_list args;
        va_start( args, format );
        vsnprintf( detail, sizeof( detail ), format, args );
        va_end( args );
        cnFormat( message, messageSize, "%s: %s", path, detail );
    }
    return status;
}

static int cnCompareInts( const void* a, const void* b )
{
    int x = *(const int*)a;
    int y = *(const int*)b;
    return ( x > y ) - ( x < y );
}

// The first entry of `values` (count) that is not finite, -1 when all are.
static int cnFirstNonFinite( const double* values, int count )
{
    for ( int i = 0; values != NULL && i < count; ++i )
    {
        if ( isfinite( values[i] ) == false )
        {
            return i;
        }
    }
    return -1;
}

// A + diag(softness) in CSR with the exact zeros left out: the kit builds A (explicitly, or from J
// and W), the softness is added here so that a row whose A has no stored diagonal keeps it.
typedef struct cnWrittenMatrix
{
    int* rowStart;
    int* column;
    double* value;
} cnWrittenMatrix;

static bool cnBuildWrittenMatrix( const cnSolverProblem* problem, cnArena* arena, cnWrittenMatrix* out )
{
    int n = problem->rowCount;
    cnSolverProblem hard = *problem;
    hard.softness = NULL;
    cnSparseMatrix a;
    if ( cnBuildSparseMatrix( &hard, NULL, 0, arena, &a ) == false )
    {
        return false;
    }
    size_t capacity = (size_t)a.rowStart[n] + (size_t)n;
    out->rowStart = cnArenaAlloc( arena, ( (size_t)n + 1 ) * sizeof( int ), 16 );
    out->column = cnArenaAlloc( arena, capacity * sizeof( int ) + 1, 16 );
    out->value = cnArenaAlloc( arena, capacity * sizeof( double ) + 1, 16 );
    if ( out->rowStart == NULL || out->column == NULL || out->value == NULL )
    {
        return false;
    }
    int entry = 0;
    for ( int i = 0; i < n; ++i )
    {
        out->rowStart[i] = entry;
        double softness = problem->softness != NULL ? problem->softness[i] : 0.0;
        bool diagonalDone = softness == 0.0;
        for ( int k = a.rowStart[i]; k <= a.rowStart[i + 1]; ++k )
        {
            int column = k < a.rowStart[i + 1] ? a.column[k] : n;
            double value = k < a.rowStart[i + 1] ? a.value[k] : 0.0;
            if ( diagonalDone == false && column >= i )
            {
                // the diagonal: the stored entry plus the softness, or the softness alone
                double diagonal = softness + ( column == i ? value : 0.0 );
                if ( diagonal != 0.0 )
                {
                    out->column[entry] = i;
                    out->value[entry] = diagonal;
                    entry += 1;
                }
                diagonalDone = true;
                if ( column == i )
                {
                    continue;
                }
            }
            if ( column < n && value != 0.0 )
            {
                out->column[entry] = column;
                out->value[entry] = value;
                entry += 1;
            }
        }
    }
    out->rowStart[n] = entry;
    return true;
}

cnStatus cnWriteProblemFile( const char* path, const cnSolverProblem* problem, const double* start,
                             const double* lambda, char* message, int messageSize )
{
    if ( message != NULL && messageSize > 0 )
    {
        message[0] = '\0';
    }
    if ( path == NULL || problem == NULL )
    {
        cnFormat( message, messageSize, "%s", path == NULL ? "no file name given" : "no problem given" );
        return cn_statusInvalidArgument;
    }
    const char* why = NULL;
    if ( cnValidateProblem( problem, &why ) == false )
    {
        return cnWriteError( message, messageSize, cn_statusInvalidArgument, path, "not a valid problem: %s",
                             why );
    }

    // the kind: all contacts (pyramid) is FC3D, all frictionless normals is LCP
    int n = problem->rowCount;
    int contacts = 0;
    int normals = 0;
    for ( int g = 0; g < problem->groupCount; ++g )
    {
        const cnRowGroup* group = problem->groups + g;
        if ( group->kind == cn_groupContact && group->model != cn_frictionPyramid )
        {
            return cnWriteError( message, messageSize, cn_statusUnsupported, path,
                                 "group %d is a contact with the exact cone model: the reader gives FC3D "
                                 "contacts the pyramid model, so it would not read back as it was",
                                 g );
        }
        if ( group->kind == cn_groupBounded || group->kind == cn_groupBilateral )
        {
            return cnWriteError( message, messageSize, cn_statusUnsupported, path,
                                 "group %d has %s rows, which neither Siconos format (LCP, FC3D) holds", g,
                                 group->kind == cn_groupBounded ? "bounded" : "bilateral" );
        }
        contacts += group->kind == cn_groupContact ? 1 : 0;
        normals += group->kind == cn_groupNormal ? 1 : 0;
    }
    if ( contacts > 0 && normals > 0 )
    {
        return cnWriteError(
            message, messageSize, cn_statusUnsupported, path,
            "the problem mixes %d contacts with %d frictionless normal rows: FC3D holds only "
            "contacts, LCP only normal rows",
            contacts, normals );
    }
    bool fc3d = contacts > 0;

    // every number must read back: no NaN or infinity anywhere
    const double* vectors[3] = { problem->b, start, lambda };
    const char* vectorNames[3] = { "b", "start", "lambda" };
    for ( int v = 0; v < 3; ++v )
    {
        int bad = cnFirstNonFinite( vectors[v], n );
        if ( bad >= 0 )
        {
            return cnWriteError( message, messageSize, cn_statusNonFinite, path,
                                 "%s[%d] is %g: a file must hold finite numbers only", vectorNames[v], bad,
                                 vectors[v][bad] );
        }
    }

    cnArena arena;
    cnCreateArena( &arena, NULL, 0 );
    cnWrittenMatrix a = { 0 };
    int blockSize = fc3d ? 3 : 1;
    int blockRows = n / blockSize;
    int* rowPointer = NULL;
    int* blockColumn = NULL;
    double* dense = NULL;
    int blockCount = 0;
    int widest = 0;
    cnStatus status = cn_statusOk;
    if ( n > 0 )
    {
        int* mark = cnArenaAlloc( &arena, (size_t)blockRows * sizeof( int ), 16 );
        rowPointer = cnArenaAlloc( &arena, ( (size_t)blockRows + 1 ) * sizeof( int ), 16 );
        if ( cnBuildWrittenMatrix( problem, &arena, &a ) == false || mark == NULL || rowPointer == NULL )
        {
            status = cn_statusOutOfMemory;
        }
        for ( int k = 0; status == cn_statusOk && k < a.rowStart[n]; ++k )
        {
            if ( isfinite( a.value[k] ) == false )
            {
                int row = 0;
                while ( a.rowStart[row + 1] <= k )
                {
                    row += 1;
                }
                cnDestroyArena( &arena );
                return cnWriteError( message, messageSize, cn_statusNonFinite, path,
                                     "A + diag(softness) at row %d, column %d is %g: a file must hold finite "
                                     "numbers only",
                                     row, a.column[k], a.value[k] );
            }
        }
        // the blocks with a nonzero, block row by block row, columns increasing
        for ( int pass = 0; status == cn_statusOk && pass < 2; ++pass )
        {
            for ( int c = 0; c < blockRows; ++c )
            {
                mark[c] = -1;
            }
            int total = 0;
            for ( int r = 0; r < blockRows; ++r )
            {
                rowPointer[r] = total;
                for ( int k = a.rowStart[r * blockSize]; k < a.rowStart[( r + 1 ) * blockSize]; ++k )
                {
                    int c = a.column[k] / blockSize;
                    if ( mark[c] != r )
                    {
                        mark[c] = r;
                        if ( pass == 1 )
                        {
                            blockColumn[total] = c;
                        }
                        total += 1;
                    }
                }
                // Siconos' reader stops at a block count of 0: a zero matrix keeps its diagonal
                if ( blockCount == 0 && pass == 1 )
                {
                    blockColumn[total] = r;
                    total += 1;
                }
                if ( pass == 1 )
                {
                    qsort( blockColumn + rowPointer[r], (size_t)( total - rowPointer[r] ), sizeof( int ),
                           cnCompareInts );
                }
                widest = total - rowPointer[r] > widest ? total - rowPointer[r] : widest;
            }
            rowPointer[blockRows] = total;
            if ( pass == 0 )
            {
                blockCount = total;
                size_t count = total > 0 ? (size_t)total : (size_t)blockRows;
                blockColumn = cnArenaAlloc( &arena, count * sizeof( int ), 16 );
                status = blockColumn == NULL ? cn_statusOutOfMemory : status;
            }
            else
            {
                blockCount = total;
            }
        }
        if ( status == cn_statusOk )
        {
            size_t size = (size_t)( widest > 0 ? widest : 1 ) * (size_t)( blockSize * blockSize );
            dense = cnArenaAlloc( &arena, size * sizeof( double ), 16 );
            status = dense == NULL ? cn_statusOutOfMemory : status;
        }
    }
    if ( status != cn_statusOk )
    {
        cnDestroyArena( &arena );
        return cnWriteError( message, messageSize, status, path, "out of memory for a problem of %d rows",
                             n );
    }

    FILE* file = fopen( path, "w" );
    if ( file == NULL )
    {
        int error = errno;
        cnDestroyArena( &arena );
        return cnWriteError( message, messageSize, cn_statusIoError, path, "cannot open for writing: %s",
                             strerror( error ) );
    }
    if ( fc3d )
    {
        fprintf( file, "3\n%d\n", contacts );
    }
    else
    {
        fprintf( file, "%d\n", n );
    }
    if ( n == 0 )
    {
        // an empty matrix, dense: both readers take it
        fprintf( file, "0\n0 0\n0 0\n" );
    }
    else
    {
        // a sparse-block NumericsMatrix (storage type 1)
        fprintf( file, "1\n%d %d\n%d\n%d\n%d\n", n, n, blockCount, blockRows, blockRows );
        for ( int side = 0; side < 2; ++side )
        {
            for ( int r = 0; r < blockRows; ++r )
            {
                fprintf( file, "%d%c", ( r + 1 ) * blockSize, r + 1 < blockRows ? '\t' : '\n' );
            }
        }
        fprintf( file, "%d\n%d\n", blockRows + 1, blockCount );
        for ( int r = 0; r <= blockRows; ++r )
        {
            fprintf( file, "%d%c", rowPointer[r], r < blockRows ? '\t' : '\n' );
        }
        for ( int k = 0; k < blockCount; ++k )
        {
            fprintf( file, "%d%c", blockColumn[k], k + 1 < blockCount ? '\t' : '\n' );
        }
        // each block: its index, then its values column-major
        for ( int r = 0; r < blockRows; ++r )
        {
            int first = rowPointer[r];
            int width = rowPointer[r + 1] - first;
            size_t blockValues = (size_t)( blockSize * blockSize );
            memset( dense, 0, (size_t)width * blockValues * sizeof( double ) );
            for ( int i = 0; i < blockSize; ++i )
            {
                int row = r * blockSize + i;
                int at = first;
                for ( int k = a.rowStart[row]; k < a.rowStart[row + 1]; ++k )
                {
                    int c = a.column[k] / blockSize;
                    while ( blockColumn[at] < c )
                    {
                        at += 1; // both increase: one walk per row
                    }
                    int j = a.column[k] - c * blockSize;
                    dense[(size_t)( at - first ) * blockValues + (size_t)( j * blockSize + i )] = a.value[k];
                }
            }
            for ( int b = 0; b < width; ++b )
            {
                fprintf( file, "%d\n", first + b );
                for ( size_t e = 0; e < blockValues; ++e )
                {
                    fprintf( file, "%.17g\n", dense[(size_t)b * blockValues + e] );
                }
            }
        }
    }
    for ( int i = 0; i < n; ++i )
    {
        fprintf( file, "%.17g\n", problem->b[i] );
    }
    for ( int g = 0; fc3d && g < problem->groupCount; ++g )
    {
        fprintf( file, "%.17g\n", problem->groups[g].mu );
    }
    const double* blocks[2] = { start, lambda };
    const char* markers[2] = { CN_START_MARKER, CN_REFERENCE_MARKER };
    for ( int k = 0; k < 2; ++k )
    {
        if ( blocks[k] != NULL )
        {
            fprintf( file, "%s\n", markers[k] );
            for ( int i = 0; i < n; ++i )
            {
                fprintf( file, "%.17g\n", blocks[k][i] );
            }
        }
    }
    cnDestroyArena( &arena );
    bool failed = ferror( file ) != 0;
    int error = errno;
    if ( fclose( file ) != 0 && failed == false )
    {
        failed = true;
        error = errno;
    }
    if ( failed )
    {
        return cnWriteError( message, messageSize, cn_statusIoError, path, "cannot write: %s",
                             strerror( error ) );
    }
    return cn_statusOk;
}
