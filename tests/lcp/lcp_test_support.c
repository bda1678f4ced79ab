// SPDX-License-Identifier: MIT
// opendir and readdir are POSIX.
#define _POSIX_C_SOURCE 200809L

#include "lcp_test_support.h"

#include "test_support.h"

#include <dirent.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

cJSON* cntLoadJson( const char* path )
{
    FILE* file = fopen( path, "rb" );
    if ( file == NULL )
    {
        return NULL;
    }
    size_t size = 0;
    size_t capacity = 1 << 16;
    char* text = malloc( capacity );
    while ( text != NULL )
    {
        size += fread( text + size, 1, capacity - size - 1, file );
        if ( size + 1 < capacity )
        {
            break;
        }
        capacity *= 2;
        char* bigger = realloc( text, capacity );
        if ( bigger == NULL )
        {
            free( text );
        }
        text = bigger;
    }
    fclose( file );
    if ( text == NULL )
    {
        return NULL;
    }
    text[size] = '\0';
    cJSON* root = cJSON_Parse( text );
    free( text );
    return root;
}

static int cntCompareNames( const void* a, const void* b )
{
    return strcmp( *(char* const*)a, *(char* const*)b );
}

char** cntListFiles( const char* dir, const char* suffix, int* count )
{
    *count = 0;
    DIR* folder = opendir( dir );
    if ( folder == NULL )
    {
        return NULL;
    }
    int capacity = 64;
    char** names = malloc( (size_t)capacity * sizeof( char* ) );
    size_t suffixLength = strlen( suffix );
    struct dirent* entry = NULL;
    while ( names != NULL && ( entry = readdir( folder ) ) != NULL )
    {
        size_t length = strlen( entry->d_name );
        if ( length < suffixLength || strcmp( entry->d_name + length - suffixLength, suffix ) != 0 )
        {
            continue;
        }
        if ( *count == capacity )
        {
            capacity *= 2;
            char** bigger = realloc( names, (size_t)capacity * sizeof( char* ) );
            if ( bigger == NULL )
            {
                break;
            }
            names = bigger;
        }
        names[*count] = malloc( length + 1 );
        if ( names[*count] != NULL )
        {
            memcpy( names[*count], entry->d_name, length + 1 );
            *count += 1;
        }
    }
    closedir( folder );
    if ( names != NULL )
    {
        qsort( names, (size_t)*count, sizeof( char* ), cntCompareNames );
    }
    return names;
}

void cntFreeNames( char** names, int count )
{
    for ( int i = 0; names != NULL && i < count; ++i )
    {
        free( names[i] );
    }
    free( names );
}

const char* cntJoinPath( int slot, const char* dir, const char* name )
{
    static char paths[4][1024];
    snprintf( paths[slot & 3], sizeof( paths[0] ), "%s/%s", dir, name );
    return paths[slot & 3];
}

const char* cntLcpDataPath( int slot, const char* name )
{
    static char paths[4][1024];
    snprintf( paths[slot & 3], sizeof( paths[0] ), "%s/%s", CN_TEST_DATA_DIR, name );
    return paths[slot & 3];
}

const char* cntLcpWorkPath( int slot, const char* name )
{
    static char paths[4][1024];
    snprintf( paths[slot & 3], sizeof( paths[0] ), "%s/%s", CNT_LCP_WORK_DIR, name );
    return paths[slot & 3];
}

size_t cntFileSize( const char* path )
{
    FILE* file = fopen( path, "rb" );
    if ( file == NULL )
    {
        return 0;
    }
    size_t size = 0;
    char buffer[4096];
    size_t got = 0;
    while ( ( got = fread( buffer, 1, sizeof( buffer ), file ) ) > 0 )
    {
        size += got;
    }
    fclose( file );
    return size;
}

bool cntSameBits( const double* a, const double* b, int count )
{
    if ( count > 0 && ( a == NULL || b == NULL ) )
    {
        return false;
    }
    return count <= 0 || memcmp( a, b, (size_t)count * sizeof( double ) ) == 0;
}

double* cntDenseMatrix( const cnSolverProblem* problem )
{
    int n = problem->rowCount;
    double* dense = calloc( (size_t)n * (size_t)n + 1, sizeof( double ) );
    const cnSparseMatrix* matrix = problem->matrix;
    for ( int i = 0; dense != NULL && i < n; ++i )
    {
        for ( int k = matrix->rowStart[i]; k < matrix->rowStart[i + 1]; ++k )
        {
            dense[(size_t)i * (size_t)n + (size_t)matrix->column[k]] += matrix->value[k];
        }
    }
    return dense;
}

int cntJsonNumbers( const cJSON* array, double* values, int capacity )
{
    if ( cJSON_IsArray( array ) == false )
    {
        return -1;
    }
    int count = 0;
    const cJSON* item = NULL;
    cJSON_ArrayForEach( item, array )
    {
        if ( cJSON_IsNumber( item ) == false )
        {
            return -1;
        }
        if ( count < capacity )
        {
            values[count] = item->valuedouble;
        }
        count += 1;
    }
    return count;
}

bool cntMatchesReferenceEntry( const cnFileProblem* problem, const cJSON* entry, double tolerance,
                               double* normQ )
{
    int contacts = problem->contactCount;
    bool ok =
        cJSON_GetObjectItemCaseSensitive( entry, "number_of_contacts" )->valuedouble == (double)contacts;
    double sum = 0.0;
    for ( int i = 0; i < problem->problem.rowCount; ++i )
    {
        sum += problem->problem.b[i] * problem->problem.b[i];
    }
    if ( normQ != NULL )
    {
        *normQ = sqrt( sum );
    }
    double reference = cJSON_GetObjectItemCaseSensitive( entry, "norm_q" )->valuedouble;
    ok = ok && cntClose( sqrt( sum ), reference, tolerance, 1e-300 );
    double mus[64];
    int muCount = cntJsonNumbers( cJSON_GetObjectItemCaseSensitive( entry, "mu_values" ), mus, 64 );
    for ( int c = 0; ok && c < contacts; ++c )
    {
        bool found = false;
        for ( int k = 0; k < muCount && k < 64; ++k )
        {
            found = found || problem->problem.groups[c].mu == mus[k];
        }
        ok = found;
    }
    return ok;
}

static void* cntPeakAlloc( size_t size, size_t alignment, void* context )
{
    cntPeakAllocator* peak = context;
    size_t rounded = ( size + alignment - 1 ) / alignment * alignment;
    void* memory = aligned_alloc( alignment < sizeof( void* ) ? sizeof( void* ) : alignment,
                                  rounded < sizeof( void* ) ? sizeof( void* ) : rounded );
    if ( memory != NULL )
    {
        peak->liveBytes += size;
        peak->liveBlocks += 1;
        peak->largest = size > peak->largest ? size : peak->largest;
    }
    return memory;
}

static void cntPeakFree( void* memory, size_t size, void* context )
{
    cntPeakAllocator* peak = context;
    if ( memory != NULL )
    {
        peak->liveBytes -= size;
        peak->liveBlocks -= 1;
        free( memory );
    }
}

cnAllocator cntMakePeakAllocator( cntPeakAllocator* peak )
{
    *peak = ( cntPeakAllocator ){ 0 };
    return ( cnAllocator ){ .allocFcn = cntPeakAlloc, .freeFcn = cntPeakFree, .context = peak };
}

void cntMakeDenseLcp( cntDenseLcp* lcp, int n, const double* rowMajor, const double* q )
{
    *lcp = ( cntDenseLcp ){ 0 };
    size_t rows = (size_t)n + 1;
    lcp->rowStart = calloc( rows, sizeof( int ) );
    lcp->column = calloc( rows * rows, sizeof( int ) );
    lcp->value = calloc( rows * rows, sizeof( double ) );
    lcp->groups = calloc( rows, sizeof( cnRowGroup ) );
    lcp->lower = calloc( rows, sizeof( double ) );
    lcp->upper = calloc( rows, sizeof( double ) );
    lcp->b = calloc( rows, sizeof( double ) );
    int entry = 0;
    for ( int i = 0; i < n; ++i )
    {
        lcp->rowStart[i] = entry;
        for ( int j = 0; j < n; ++j )
        {
            double v = rowMajor[(size_t)i * (size_t)n + (size_t)j];
            if ( v != 0.0 )
            {
                lcp->column[entry] = j;
                lcp->value[entry] = v;
                entry += 1;
            }
        }
        lcp->groups[i] = ( cnRowGroup ){ .firstRow = i, .rowCount = 1, .kind = cn_groupNormal };
        lcp->upper[i] = (double)INFINITY;
        lcp->b[i] = q[i];
    }
    lcp->rowStart[n] = entry;
    lcp->matrix = ( cnSparseMatrix ){
        .rows = n, .columns = n, .rowStart = lcp->rowStart, .column = lcp->column, .value = lcp->value };
    lcp->problem = ( cnSolverProblem ){ .rowCount = n,
                                        .rowCapacity = n,
                                        .groupCount = n,
                                        .groupCapacity = n,
                                        .groups = lcp->groups,
                                        .lower = lcp->lower,
                                        .upper = lcp->upper,
                                        .b = lcp->b,
                                        .matrix = &lcp->matrix };
}

void cntFreeDenseLcp( cntDenseLcp* lcp )
{
    free( lcp->rowStart );
    free( lcp->column );
    free( lcp->value );
    free( lcp->groups );
    free( lcp->lower );
    free( lcp->upper );
    free( lcp->b );
    *lcp = ( cntDenseLcp ){ 0 };
}

double cntRawNaturalMap( int n, const double* rowMajor, const double* q, const double* z )
{
    double sum = 0.0;
    for ( int i = 0; i < n; ++i )
    {
        double w = q[i];
        for ( int j = 0; j < n; ++j )
        {
            w += rowMajor[(size_t)i * (size_t)n + (size_t)j] * z[j];
        }
        double r = z[i] - fmax( 0.0, z[i] - w );
        sum += r * r;
    }
    return sqrt( sum );
}
