// SPDX-License-Identifier: MIT
// The JSON scene loader (docs/scene-format.md).
//
// A load runs in stages, and the first failure stops it:
//   1. read the file (size checked before reading), skip a UTF-8 byte order mark;
//   2. parse with cJSON; on failure a strict scanner of our own finds the first syntax error and
//      says what it is (cJSON only says where it stopped, through return_parse_end);
//   3. reject duplicate keys anywhere (cJSON keeps both);
//   4. apply the overrides ("world.dt=0.001") to the tree;
//   5. pass 1: read and check every value into defs, without creating anything;
//   6. pass 2: read the (now known good) tree again and create the world, bodies and shapes; a
//      refusal by the engine destroys the world, so a failed load leaves nothing behind.
//
// cJSON does not record positions. Errors and warnings carry a path (a list of keys and indices),
// and the locator walks the original text along that path to find where the value starts. Values
// that came from an override are located by the override instead ("<--set world.dt=abc>").

// fstat, to tell a directory or a pipe from a regular file before reading it
#if defined( __unix__ ) || defined( __APPLE__ )
#    define _POSIX_C_SOURCE 200809L
#    include <sys/stat.h>
#    define CN_HAVE_FSTAT 1
#else
#    define CN_HAVE_FSTAT 0
#endif

#include "core.h"
#include "scene_generate.h"

#include "cairn/cairn.h"
#include "cairn/joint.h"
#include "cairn/scene.h"
#include "cairn/solver.h"

#include <cjson/cJSON.h>

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CN_SCENE_VERSION     1
#define CN_DEFAULT_MAX_BYTES ( (size_t)256 * 1024 * 1024 )
// cJSON refuses deeper nesting; our scanner reports the same limit
#define CN_NESTING_LIMIT      CJSON_NESTING_LIMIT
#define CN_MAX_OVERRIDE_STEPS 32
#define CN_MAX_PATH           ( CN_NESTING_LIMIT + CN_MAX_OVERRIDE_STEPS + 8 )
// strings quoted in messages are cut after this many bytes
#define CN_QUOTE_LIMIT 40
// override texts quoted in locations are cut after this many bytes
#define CN_OVERRIDE_QUOTE_LIMIT 80
// paths longer than this are cut in the one-line text (not in cnSceneError.path)
#define CN_PATH_IN_TEXT_LIMIT 160
// objects with more members than this are checked for duplicate keys by sorting
#define CN_SMALL_OBJECT 16

// ---------------------------------------------------------------------------------------------
// Bounded text building

typedef struct cnText
{
    char* buffer;
    size_t size;
    size_t length;
    bool truncated;
} cnText;

static cnText cnMakeText( char* buffer, size_t size )
{
    cnText text = { buffer, size, 0, false };
    if ( size > 0 )
    {
        buffer[0] = 0;
    }
    return text;
}

static void cnAppendBytes( cnText* text, const char* bytes, size_t count )
{
    if ( text->size == 0 )
    {
        return;
    }
    size_t room = text->size - 1 - text->length;
    if ( count > room )
    {
        count = room;
        text->truncated = true;
    }
    memcpy( text->buffer + text->length, bytes, count );
    text->length += count;
    text->buffer[text->length] = 0;
}

static void cnAppend( cnText* text, const char* string )
{
    cnAppendBytes( text, string, strlen( string ) );
}

#if defined( __GNUC__ )
__attribute__( ( format( printf, 2, 3 ) ) )
#endif
static void
cnAppendFormat( cnText* text, const char* format, ... )
{
    char line[512];
    va_list args;
    va_start( args, format );
    int count = vsnprintf( line, sizeof( line ), format, args );
    va_end( args );
    if ( count < 0 )
    {
        return;
    }
    if ( (size_t)count >= sizeof( line ) )
    {
        text->truncated = true;
        count = (int)sizeof( line ) - 1;
    }
    cnAppendBytes( text, line, (size_t)count );
}

// A cut text ends in "..." so that the cut shows.
static void cnFinishText( cnText* text )
{
    if ( text->truncated && text->size >= 4 )
    {
        size_t end = text->length < text->size - 4 ? text->length : text->size - 4;
        // do not leave half a UTF-8 sequence before the dots
        while ( end > 0 && ( (unsigned char)text->buffer[end] & 0xC0 ) == 0x80 )
        {
            end -= 1;
        }
        memcpy( text->buffer + end, "...", 4 );
        text->length = end + 3;
    }
}

static bool cnIsDigit( char c )
{
    return c >= '0' && c <= '9';
}

static bool cnIsLower( char c )
{
    return c >= 'a' && c <= 'z';
}

static bool cnIsNameChar( char c )
{
    return cnIsDigit( c ) || cnIsLower( c ) || ( c >= 'A' && c <= 'Z' ) || c == '_' || c == '-';
}

static bool cnIsSpace( char c )
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

// A key that prints without quotes in a path: letters, digits, '_' and '-'.
static bool cnIsPlainKey( const char* key, size_t length )
{
    if ( length == 0 )
    {
        return false;
    }
    for ( size_t i = 0; i < length; ++i )
    {
        if ( cnIsNameChar( key[i] ) == false )
        {
            return false;
        }
    }
    return true;
}

// Append `bytes` quoted as a JSON string, cut after `limit` bytes (0: no limit).
static void cnAppendQuoted( cnText* text, const char* bytes, size_t count, size_t limit )
{
    bool cut = false;
    if ( limit > 0 && count > limit )
    {
        count = limit;
        // whole UTF-8 sequences only
        while ( count > 0 && ( (unsigned char)bytes[count] & 0xC0 ) == 0x80 )
        {
            count -= 1;
        }
        cut = true;
    }
    cnAppend( text, "\"" );
    for ( size_t i = 0; i < count; ++i )
    {
        unsigned char c = (unsigned char)bytes[i];
        if ( c == '"' || c == '\\' )
        {
            char escaped[2] = { '\\', (char)c };
            cnAppendBytes( text, escaped, 2 );
        }
        else if ( c == '\n' )
        {
            cnAppend( text, "\\n" );
        }
        else if ( c == '\t' )
        {
            cnAppend( text, "\\t" );
        }
        else if ( c < 0x20 || c == 0x7F )
        {
            cnAppendFormat( text, "\\u%04x", (unsigned)c );
        }
        else
        {
            cnAppendBytes( text, bytes + i, 1 );
        }
    }
    cnAppend( text, cut ? "...\"" : "\"" );
}

// ---------------------------------------------------------------------------------------------
// Paths: "bodies[3].shapes[0].radius"

typedef struct cnPathStep
{
    // NULL for an array index
    const char* key;
    // the array index, or which occurrence of `key` in its object (1 = the first)
    int index;
} cnPathStep;

static bool cnStepEquals( const cnPathStep* a, const cnPathStep* b )
{
    if ( a->key == NULL || b->key == NULL )
    {
        return a->key == b->key && a->index == b->index;
    }
    return a->index == b->index && strcmp( a->key, b->key ) == 0;
}

// Append one step of a path whole; when it does not fit with room for "...", end with "...".
static void cnAppendPathPiece( cnText* text, const char* piece, size_t length, bool* cut )
{
    if ( *cut || text->size < 4 )
    {
        return;
    }
    if ( text->length + length + 3 > text->size - 1 )
    {
        cnAppend( text, "..." );
        *cut = true;
        return;
    }
    cnAppendBytes( text, piece, length );
}

// ".key", "[3]" or "[\"odd key\"]"
static void cnAppendStep( cnText* text, const char* key, size_t keyLength, int index, bool first, bool quote,
                          bool* cut )
{
    char piece[320];
    cnText step = cnMakeText( piece, sizeof( piece ) );
    if ( key == NULL )
    {
        cnAppendFormat( &step, "[%d]", index );
    }
    else if ( cnIsPlainKey( key, keyLength ) )
    {
        cnAppend( &step, first ? "" : "." );
        cnAppendBytes( &step, key, keyLength );
    }
    else if ( quote )
    {
        cnAppend( &step, "[" );
        cnAppendQuoted( &step, key, keyLength, CN_QUOTE_LIMIT );
        cnAppend( &step, "]" );
    }
    else
    {
        // a key as the text wrote it, escapes and all
        cnAppend( &step, "[\"" );
        cnAppendBytes( &step, key, keyLength < CN_QUOTE_LIMIT ? keyLength : CN_QUOTE_LIMIT );
        cnAppend( &step, "\"]" );
    }
    cnAppendPathPiece( text, piece, step.length, cut );
}

static void cnRenderPath( const cnPathStep* steps, int count, char* buffer, size_t size )
{
    cnText text = cnMakeText( buffer, size );
    bool cut = false;
    for ( int i = 0; i < count && cut == false; ++i )
    {
        const char* key = steps[i].key;
        cnAppendStep( &text, key, key != NULL ? strlen( key ) : 0, steps[i].index, i == 0, true, &cut );
    }
}

// ---------------------------------------------------------------------------------------------
// Describing values in messages: "got -1", "got string \"NaN\"", "got an array of 2"

static void cnAppendValue( cnText* text, const cJSON* item )
{
    if ( item == NULL )
    {
        cnAppend( text, "nothing" );
    }
    else if ( cJSON_IsNumber( item ) )
    {
        char number[64];
        cnFormatNumber( number, (int)sizeof( number ), item->valuedouble );
        cnAppend( text, number );
    }
    else if ( cJSON_IsString( item ) )
    {
        cnAppend( text, "string " );
        cnAppendQuoted( text, item->valuestring, strlen( item->valuestring ), CN_QUOTE_LIMIT );
    }
    else if ( cJSON_IsTrue( item ) )
    {
        cnAppend( text, "true" );
    }
    else if ( cJSON_IsFalse( item ) )
    {
        cnAppend( text, "false" );
    }
    else if ( cJSON_IsNull( item ) )
    {
        cnAppend( text, "null" );
    }
    else if ( cJSON_IsArray( item ) )
    {
        int count = cJSON_GetArraySize( item );
        if ( count == 0 )
        {
            cnAppend( text, "an empty array" );
        }
        else
        {
            cnAppendFormat( text, "an array of %d", count );
        }
    }
    else if ( cJSON_IsObject( item ) )
    {
        cnAppend( text, item->child == NULL ? "an empty object" : "an object" );
    }
    else
    {
        cnAppend( text, "an invalid value" );
    }
}

// ---------------------------------------------------------------------------------------------
// The loader's state

typedef struct cnOverride
{
    // "key=value" as the caller gave it
    const char* text;
    // the key's names, each terminated (owned)
    char* names;
    size_t namesSize;
    cnPathStep steps[CN_MAX_OVERRIDE_STEPS];
    int stepCount;
    // the first `originDepth` steps name the node this override put into the tree: the value,
    // or the first object it had to create on the way
    int originDepth;
} cnOverride;

typedef struct cnNameEntry
{
    const char* name;
    int body;
} cnNameEntry;

typedef struct cnLoader
{
    const char* name;
    const char* text;
    size_t length;
    const cnSceneOptions* options;
    cnAllocator allocator;

    cnSceneError error;
    bool failed;
    int warningCount;
    // 1 while checking (warnings are reported), 2 while creating
    int pass;

    cJSON* root;
    const cJSON* materials;
    cnMaterial defaultMaterial;

    // where the value being read is
    cnPathStep path[CN_MAX_PATH];
    int depth;

    // The locator keeps the last path it resolved with the text offset of each step's value,
    // so that requests in document order (bodies[7], then bodies[8]) cost a short walk each.
    size_t rootOffset;
    cnPathStep cachedSteps[CN_MAX_PATH];
    size_t cachedOffsets[CN_MAX_PATH];
    int cachedDepth;
    // line counting resumes from the last offset converted
    size_t countedOffset;
    size_t countedLineStart;
    int countedLine;

    cnOverride* overrides;
    int overrideCount;
    int appliedCount;
    // the override being applied: errors are located there
    const cnOverride* activeOverride;

    // scratch for hull points
    cnVec3* points;
    int pointCapacity;

    // body names seen so far (open addressing)
    cnNameEntry* names;
    size_t nameCapacity;
} cnLoader;

static void cnPushKey( cnLoader* L, const char* key )
{
    CN_ASSERT( L->depth < CN_MAX_PATH );
    L->path[L->depth].key = key;
    L->path[L->depth].index = 1;
    L->depth += 1;
}

static void cnPushIndex( cnLoader* L, int index )
{
    CN_ASSERT( L->depth < CN_MAX_PATH );
    L->path[L->depth].key = NULL;
    L->path[L->depth].index = index;
    L->depth += 1;
}

static void cnPop( cnLoader* L )
{
    CN_ASSERT( L->depth > 0 );
    L->depth -= 1;
}

// ---------------------------------------------------------------------------------------------
// The locator: from a path to the offset of its value in the text. The text is valid JSON by
// the time it runs (cJSON accepted it), so skipping is enough; no checks.

static size_t cnSkipSpace( const char* s, size_t n, size_t i )
{
    while ( i < n && cnIsSpace( s[i] ) )
    {
        i += 1;
    }
    return i;
}

// `i` at an opening quote; returns the offset just past the closing quote.
static size_t cnSkipString( const char* s, size_t n, size_t i )
{
    i += 1;
    while ( i < n && s[i] != '"' )
    {
        i += s[i] == '\\' ? 2 : 1;
    }
    return i < n ? i + 1 : n;
}

// `i` at the start of a value; returns the offset just past it.
static size_t cnSkipValue( const char* s, size_t n, size_t i )
{
    if ( i >= n )
    {
        return n;
    }
    if ( s[i] == '"' )
    {
        return cnSkipString( s, n, i );
    }
    if ( s[i] == '{' || s[i] == '[' )
    {
        int depth = 0;
        while ( i < n )
        {
            char c = s[i];
            if ( c == '"' )
            {
                i = cnSkipString( s, n, i );
                continue;
            }
            if ( c == '{' || c == '[' )
            {
                depth += 1;
            }
            else if ( c == '}' || c == ']' )
            {
                depth -= 1;
                if ( depth == 0 )
                {
                    return i + 1;
                }
            }
            i += 1;
        }
        return n;
    }
    // number or literal
    while ( i < n && cnIsSpace( s[i] ) == false && s[i] != ',' && s[i] != ']' && s[i] != '}' )
    {
        i += 1;
    }
    return i;
}

static int cnHexValue( char c )
{
    if ( cnIsDigit( c ) )
    {
        return c - '0';
    }
    if ( c >= 'a' && c <= 'f' )
    {
        return c - 'a' + 10;
    }
    if ( c >= 'A' && c <= 'F' )
    {
        return c - 'A' + 10;
    }
    return -1;
}

// Four hex digits at s[i]; -1 when they are not.
static long cnReadHex4( const char* s, size_t n, size_t i )
{
    if ( i + 4 > n )
    {
        return -1;
    }
    long value = 0;
    for ( size_t k = 0; k < 4; ++k )
    {
        int digit = cnHexValue( s[i + k] );
        if ( digit < 0 )
        {
            return -1;
        }
        value = value * 16 + digit;
    }
    return value;
}

// Does the JSON string at s[i] (its opening quote) decode to `key`? *end: just past the string.
// Decodes escapes as cJSON does, so that keys written with escapes are found too.
static bool cnKeyMatches( const char* s, size_t n, size_t i, const char* key, size_t* end )
{
    const unsigned char* k = (const unsigned char*)key;
    bool match = true;
    // cJSON's key ends at a decoded zero byte
    bool ended = false;
    i += 1;
    while ( i < n && s[i] != '"' )
    {
        unsigned char bytes[4];
        int count = 0;
        if ( s[i] == '\\' && i + 1 < n )
        {
            char e = s[i + 1];
            i += 2;
            if ( e == 'u' )
            {
                long code = cnReadHex4( s, n, i );
                i += 4;
                if ( code >= 0xD800 && code <= 0xDBFF && i + 6 <= n && s[i] == '\\' && s[i + 1] == 'u' )
                {
                    long low = cnReadHex4( s, n, i + 2 );
                    code = 0x10000 + ( ( code - 0xD800 ) << 10 ) + ( low - 0xDC00 );
                    i += 6;
                }
                if ( code < 0x80 )
                {
                    bytes[count++] = (unsigned char)code;
                }
                else if ( code < 0x800 )
                {
                    bytes[count++] = (unsigned char)( 0xC0 | ( code >> 6 ) );
                    bytes[count++] = (unsigned char)( 0x80 | ( code & 0x3F ) );
                }
                else if ( code < 0x10000 )
                {
                    bytes[count++] = (unsigned char)( 0xE0 | ( code >> 12 ) );
                    bytes[count++] = (unsigned char)( 0x80 | ( ( code >> 6 ) & 0x3F ) );
                    bytes[count++] = (unsigned char)( 0x80 | ( code & 0x3F ) );
                }
                else
                {
                    bytes[count++] = (unsigned char)( 0xF0 | ( code >> 18 ) );
                    bytes[count++] = (unsigned char)( 0x80 | ( ( code >> 12 ) & 0x3F ) );
                    bytes[count++] = (unsigned char)( 0x80 | ( ( code >> 6 ) & 0x3F ) );
                    bytes[count++] = (unsigned char)( 0x80 | ( code & 0x3F ) );
                }
            }
            else
            {
                const char* from = "bfnrt";
                const char* to = "\b\f\n\r\t";
                const char* found = strchr( from, e );
                bytes[count++] = (unsigned char)( found != NULL && e != 0 ? to[found - from] : e );
            }
        }
        else
        {
            bytes[count++] = (unsigned char)s[i];
            i += 1;
        }
        for ( int b = 0; b < count && ended == false; ++b )
        {
            if ( bytes[b] == 0 )
            {
                ended = true;
            }
            else if ( match && *k == bytes[b] )
            {
                k += 1;
            }
            else
            {
                match = false;
            }
        }
    }
    *end = i < n ? i + 1 : n;
    return match && *k == 0;
}

// From the value at `i` (an object), the value of the `occurrence`-th member named `key`.
static bool cnFindMember( const char* s, size_t n, size_t i, const char* key, int occurrence, size_t* value )
{
    if ( i >= n || s[i] != '{' )
    {
        return false;
    }
    i = cnSkipSpace( s, n, i + 1 );
    int seen = 0;
    while ( i < n && s[i] == '"' )
    {
        size_t end = 0;
        bool match = cnKeyMatches( s, n, i, key, &end );
        i = cnSkipSpace( s, n, end );
        // the colon
        i = cnSkipSpace( s, n, i + 1 );
        if ( match )
        {
            seen += 1;
            if ( seen == occurrence )
            {
                *value = i;
                return true;
            }
        }
        i = cnSkipSpace( s, n, cnSkipValue( s, n, i ) );
        if ( i < n && s[i] == ',' )
        {
            i = cnSkipSpace( s, n, i + 1 );
        }
    }
    return false;
}

// From the element at `i` of an array, the element `count` places further on.
static bool cnSkipElements( const char* s, size_t n, size_t i, int count, size_t* value )
{
    for ( int k = 0; k < count; ++k )
    {
        i = cnSkipSpace( s, n, cnSkipValue( s, n, i ) );
        if ( i >= n || s[i] != ',' )
        {
            return false;
        }
        i = cnSkipSpace( s, n, i + 1 );
    }
    if ( i >= n || s[i] == ']' )
    {
        return false;
    }
    *value = i;
    return true;
}

static bool cnFindElement( const char* s, size_t n, size_t i, int index, size_t* value )
{
    if ( i >= n || s[i] != '[' )
    {
        return false;
    }
    return cnSkipElements( s, n, cnSkipSpace( s, n, i + 1 ), index, value );
}

// Offset of the value at `steps` in the text. When a step is not in the text, the deepest value
// found stands for it.
static size_t cnLocate( cnLoader* L, const cnPathStep* steps, int count )
{
    const char* s = L->text;
    size_t n = L->length;

    int common = 0;
    while ( common < count && common < L->cachedDepth &&
            cnStepEquals( steps + common, L->cachedSteps + common ) )
    {
        common += 1;
    }

    size_t offset = common == 0 ? L->rootOffset : L->cachedOffsets[common - 1];
    int depth = common;
    for ( ; depth < count; ++depth )
    {
        const cnPathStep* step = steps + depth;
        size_t next = 0;
        bool found = false;
        if ( step->key != NULL )
        {
            found = cnFindMember( s, n, offset, step->key, step->index, &next );
        }
        else if ( depth == common && depth < L->cachedDepth && L->cachedSteps[depth].key == NULL &&
                  L->cachedSteps[depth].index <= step->index )
        {
            // a later element of the array the last request went into: continue from there
            found = cnSkipElements( s, n, L->cachedOffsets[depth], step->index - L->cachedSteps[depth].index,
                                    &next );
        }
        else
        {
            found = cnFindElement( s, n, offset, step->index, &next );
        }
        if ( found == false )
        {
            break;
        }
        L->cachedSteps[depth] = *step;
        L->cachedOffsets[depth] = next;
        offset = next;
    }
    L->cachedDepth = depth;
    return offset;
}

// 1-based line and byte column of an offset.
static void cnLineColumn( cnLoader* L, size_t offset, int* line, int* column )
{
    if ( offset < L->countedOffset )
    {
        L->countedOffset = 0;
        L->countedLineStart = 0;
        L->countedLine = 1;
    }
    const char* s = L->text;
    size_t i = L->countedOffset;
    while ( i < offset )
    {
        const char* newline = memchr( s + i, '\n', offset - i );
        if ( newline == NULL )
        {
            break;
        }
        i = (size_t)( newline - s ) + 1;
        L->countedLine += 1;
        L->countedLineStart = i;
    }
    L->countedOffset = offset;
    *line = L->countedLine;
    *column = (int)( offset - L->countedLineStart ) + 1;
}

// Did the value at `steps` come from an override? The latest override that covers it.
static const cnOverride* cnOverrideOrigin( const cnLoader* L, const cnPathStep* steps, int count )
{
    if ( L->activeOverride != NULL )
    {
        return L->activeOverride;
    }
    for ( int i = L->appliedCount - 1; i >= 0; --i )
    {
        const cnOverride* o = L->overrides + i;
        if ( o->originDepth > count )
        {
            continue;
        }
        bool prefix = true;
        for ( int k = 0; k < o->originDepth && prefix; ++k )
        {
            prefix = cnStepEquals( o->steps + k, steps + k );
        }
        if ( prefix )
        {
            return o;
        }
    }
    return NULL;
}

static void cnAppendOverrideLocation( cnText* text, const cnOverride* o )
{
    cnAppend( text, "<--set " );
    size_t length = strlen( o->text );
    if ( length > CN_OVERRIDE_QUOTE_LIMIT )
    {
        cnAppendBytes( text, o->text, CN_OVERRIDE_QUOTE_LIMIT );
        cnAppend( text, "..." );
    }
    else
    {
        cnAppend( text, o->text );
    }
    cnAppend( text, ">" );
}

// Where the value at `steps` is: line and column in the text, or the override it came from.
static void cnFindLocation( cnLoader* L, const cnPathStep* steps, int count, int* line, int* column,
                            const cnOverride** origin )
{
    *line = 0;
    *column = 0;
    *origin = cnOverrideOrigin( L, steps, count );
    if ( *origin == NULL && L->text != NULL )
    {
        cnLineColumn( L, cnLocate( L, steps, count ), line, column );
    }
}

// "12:7" or "<--set world.dt=abc>", for messages that mention a second place.
static void cnAppendPlace( cnLoader* L, cnText* text, const cnPathStep* steps, int count )
{
    int line = 0;
    int column = 0;
    const cnOverride* origin = NULL;
    cnFindLocation( L, steps, count, &line, &column, &origin );
    if ( origin != NULL )
    {
        cnAppendOverrideLocation( text, origin );
    }
    else
    {
        cnAppendFormat( text, "%d:%d", line, column );
    }
}

// "FILE:LINE:COL: PATH: MESSAGE", or "FILE:<--set K=V>: PATH: MESSAGE", or "FILE: MESSAGE".
static void cnComposeText( const char* name, int line, int column, const cnOverride* origin, const char* path,
                           const char* message, char* buffer, size_t size )
{
    cnText text = cnMakeText( buffer, size );
    cnAppend( &text, name );
    if ( origin != NULL )
    {
        cnAppend( &text, ":" );
        cnAppendOverrideLocation( &text, origin );
    }
    else if ( line > 0 )
    {
        cnAppendFormat( &text, ":%d:%d", line, column );
    }
    if ( path[0] != 0 )
    {
        // a very deep path is cut, so that the message still fits
        cnAppend( &text, ": " );
        size_t length = strlen( path );
        if ( length > CN_PATH_IN_TEXT_LIMIT )
        {
            // at the start of a step
            size_t end = CN_PATH_IN_TEXT_LIMIT - 3;
            while ( end > 0 && path[end] != '[' && path[end] != '.' )
            {
                end -= 1;
            }
            cnAppendBytes( &text, path, end );
            cnAppend( &text, "..." );
        }
        else
        {
            cnAppend( &text, path );
        }
    }
    cnAppend( &text, ": " );
    cnAppend( &text, message );
    cnFinishText( &text );
}

static void cnSetErrorAt( cnLoader* L, cnStatus status, int line, int column, const cnOverride* origin,
                          const char* path, const char* message )
{
    if ( L->failed )
    {
        return;
    }
    L->failed = true;
    cnSceneError* e = &L->error;
    e->status = status;
    e->line = line;
    e->column = column;
    cnFormat( e->path, (int)sizeof( e->path ), "%s", path );
    cnFormat( e->message, (int)sizeof( e->message ), "%s", message );
    cnComposeText( L->name, line, column, origin, e->path, e->message, e->text, sizeof( e->text ) );
}

static void cnSetErrorAtPath( cnLoader* L, cnStatus status, const cnPathStep* steps, int count,
                              const char* message )
{
    if ( L->failed )
    {
        return;
    }
    int line = 0;
    int column = 0;
    const cnOverride* origin = NULL;
    cnFindLocation( L, steps, count, &line, &column, &origin );
    char path[256];
    cnRenderPath( steps, count, path, sizeof( path ) );
    cnSetErrorAt( L, status, line, column, origin, path, message );
}

// Report an error at the current path. Returns false, so that readers can `return cnFail(...)`.
#if defined( __GNUC__ )
__attribute__( ( format( printf, 3, 4 ) ) )
#endif
static bool
cnFail( cnLoader* L, cnStatus status, const char* format, ... )
{
    if ( L->failed )
    {
        return false;
    }
    char message[256];
    va_list args;
    va_start( args, format );
    vsnprintf( message, sizeof( message ), format, args );
    va_end( args );
    cnSetErrorAtPath( L, status, L->path, L->depth, message );
    return false;
}

// "expected WHAT, got VALUE" at the current path.
static bool cnFailExpected( cnLoader* L, const char* what, const cJSON* item )
{
    char got[160];
    cnText text = cnMakeText( got, sizeof( got ) );
    cnAppendValue( &text, item );
    cnFinishText( &text );
    return cnFail( L, cn_statusSchemaError, "expected %s, got %s", what, got );
}

static bool cnFailOutOfMemory( cnLoader* L )
{
    return cnFail( L, cn_statusOutOfMemory, "out of memory" );
}

static void cnDeliverWarning( cnLoader* L, const char* text )
{
    const cnSceneOptions* options = L->options;
    if ( options->warningFcn != NULL )
    {
        options->warningFcn( text, options->warningContext );
    }
    else if ( options->worldDef.logFcn != NULL )
    {
        options->worldDef.logFcn( cn_logWarning, (int)cn_statusSchemaError, text,
                                  options->worldDef.logContext );
    }
    else
    {
        cnDefaultLog( cn_logWarning, (int)cn_statusSchemaError, text, NULL );
    }
}

// A warning at the current path, in pass 1 only (pass 2 reads the same values again).
#if defined( __GNUC__ )
__attribute__( ( format( printf, 2, 3 ) ) )
#endif
static void
cnWarn( cnLoader* L, const char* format, ... )
{
    if ( L->pass != 1 || L->failed )
    {
        return;
    }
    char message[256];
    va_list args;
    va_start( args, format );
    vsnprintf( message, sizeof( message ), format, args );
    va_end( args );

    int line = 0;
    int column = 0;
    const cnOverride* origin = NULL;
    cnFindLocation( L, L->path, L->depth, &line, &column, &origin );
    char path[256];
    cnRenderPath( L->path, L->depth, path, sizeof( path ) );
    char text[CN_SCENE_TEXT_CAPACITY];
    cnComposeText( L->name, line, column, origin, path, message, text, sizeof( text ) );
    L->warningCount += 1;
    cnDeliverWarning( L, text );
}

// ---------------------------------------------------------------------------------------------
// Syntax errors. cJSON says where it stopped but not why, and accepts a few things JSON does not;
// when it fails, this strict scanner finds the first error in the text and names it.

typedef struct cnSyntaxFrame
{
    size_t open;
    size_t keyStart;
    size_t keyLength;
    int index;
    bool isObject;
    bool hasKey;
} cnSyntaxFrame;

typedef struct cnSyntaxScan
{
    const char* s;
    size_t n;
    cnSyntaxFrame* frames;
    int depth;
    // the error
    bool failed;
    size_t offset;
    bool inMember;
    char message[256];
} cnSyntaxScan;

#if defined( __GNUC__ )
__attribute__( ( format( printf, 4, 5 ) ) )
#endif
static bool
cnSyntaxFail( cnSyntaxScan* scan, size_t offset, bool inMember, const char* format, ... )
{
    scan->failed = true;
    scan->offset = offset;
    scan->inMember = inMember;
    va_list args;
    va_start( args, format );
    vsnprintf( scan->message, sizeof( scan->message ), format, args );
    va_end( args );
    return false;
}

// "'x'", "end of file", "a line break", "byte 0xC3", or a string ("\"bodies\"") where one starts
static void cnDescribeChar( const cnSyntaxScan* scan, size_t i, char* buffer, int size )
{
    if ( i >= scan->n )
    {
        cnFormat( buffer, size, "end of file" );
        return;
    }
    unsigned char c = (unsigned char)scan->s[i];
    size_t end = i + 1;
    while ( c == '"' && end < scan->n && end - i <= 32 && scan->s[end] != '"' && scan->s[end] != '\\' &&
            (unsigned char)scan->s[end] >= 0x20 )
    {
        end += 1;
    }
    if ( c == '"' && end < scan->n && scan->s[end] == '"' )
    {
        cnFormat( buffer, size, "%.*s", (int)( end - i + 1 ), scan->s + i );
    }
    else if ( c == '\n' || c == '\r' )
    {
        cnFormat( buffer, size, "a line break" );
    }
    else if ( c >= 0x20 && c < 0x7F )
    {
        cnFormat( buffer, size, "'%c'", (char)c );
    }
    else
    {
        cnFormat( buffer, size, "byte 0x%02X", (unsigned)c );
    }
}

static size_t cnLineColumnOf( const char* s, size_t offset, int* column )
{
    size_t line = 1;
    size_t lineStart = 0;
    for ( size_t i = 0; i < offset; ++i )
    {
        if ( s[i] == '\n' )
        {
            line += 1;
            lineStart = i + 1;
        }
    }
    *column = (int)( offset - lineStart ) + 1;
    return line;
}

// A string at s[i] (the opening quote), strictly: valid escapes, no raw control characters.
static bool cnScanString( cnSyntaxScan* scan, size_t* io, bool isKey )
{
    const char* s = scan->s;
    size_t n = scan->n;
    size_t start = *io;
    size_t i = start + 1;
    const char* what = isKey ? "key" : "string";
    while ( i < n )
    {
        unsigned char c = (unsigned char)s[i];
        if ( c == '"' )
        {
            *io = i + 1;
            return true;
        }
        if ( c == '\\' )
        {
            if ( i + 1 >= n )
            {
                break;
            }
            char e = s[i + 1];
            if ( e == 'u' )
            {
                long code = cnReadHex4( s, n, i + 2 );
                if ( code < 0 )
                {
                    return cnSyntaxFail( scan, i, true, "invalid \\u escape in a %s: expected 4 hex digits",
                                         what );
                }
                if ( code >= 0xDC00 && code <= 0xDFFF )
                {
                    return cnSyntaxFail( scan, i, true, "invalid \\u escape in a %s: a lone low surrogate",
                                         what );
                }
                if ( code >= 0xD800 && code <= 0xDBFF )
                {
                    long low =
                        i + 8 <= n && s[i + 6] == '\\' && s[i + 7] == 'u' ? cnReadHex4( s, n, i + 8 ) : -1;
                    if ( low < 0xDC00 || low > 0xDFFF )
                    {
                        return cnSyntaxFail(
                            scan, i, true,
                            "invalid \\u escape in a %s: a high surrogate without its low half", what );
                    }
                    i += 6;
                }
                i += 6;
                continue;
            }
            if ( e == 0 || strchr( "\"\\/bfnrt", e ) == NULL )
            {
                char shown[24];
                cnDescribeChar( scan, i + 1, shown, (int)sizeof( shown ) );
                return cnSyntaxFail( scan, i, true, "invalid escape in a %s: '\\' followed by %s", what,
                                     shown );
            }
            i += 2;
            continue;
        }
        if ( c == '\n' || c == '\r' )
        {
            return cnSyntaxFail( scan, start, true, "unterminated %s: a line break before the closing quote",
                                 what );
        }
        if ( c < 0x20 )
        {
            return cnSyntaxFail( scan, i, true, "control character 0x%02X in a %s: write it as \\u%04x",
                                 (unsigned)c, what, (unsigned)c );
        }
        i += 1;
    }
    return cnSyntaxFail( scan, start, true, "unterminated %s: the file ends before the closing quote", what );
}

static bool cnStartsWith( const cnSyntaxScan* scan, size_t i, const char* word )
{
    size_t length = strlen( word );
    return i + length <= scan->n && memcmp( scan->s + i, word, length ) == 0;
}

// A number, strictly (no leading zeros, digits on both sides of '.', digits in the exponent).
static bool cnScanNumber( cnSyntaxScan* scan, size_t* io )
{
    const char* s = scan->s;
    size_t n = scan->n;
    size_t start = *io;
    size_t i = start;
    if ( s[i] == '-' )
    {
        i += 1;
    }
    if ( i >= n || cnIsDigit( s[i] ) == false )
    {
        return cnSyntaxFail( scan, start, true, "invalid number: '-' must be followed by a digit" );
    }
    if ( s[i] == '0' && i + 1 < n && cnIsDigit( s[i + 1] ) )
    {
        return cnSyntaxFail( scan, start, true, "invalid number: JSON numbers have no leading zeros" );
    }
    while ( i < n && cnIsDigit( s[i] ) )
    {
        i += 1;
    }
    if ( i < n && s[i] == '.' )
    {
        i += 1;
        if ( i >= n || cnIsDigit( s[i] ) == false )
        {
            return cnSyntaxFail( scan, start, true,
                                 "invalid number: expected a digit after the decimal point" );
        }
        while ( i < n && cnIsDigit( s[i] ) )
        {
            i += 1;
        }
    }
    if ( i < n && ( s[i] == 'e' || s[i] == 'E' ) )
    {
        i += 1;
        if ( i < n && ( s[i] == '+' || s[i] == '-' ) )
        {
            i += 1;
        }
        if ( i >= n || cnIsDigit( s[i] ) == false )
        {
            return cnSyntaxFail( scan, start, true, "invalid number: expected a digit in the exponent" );
        }
        while ( i < n && cnIsDigit( s[i] ) )
        {
            i += 1;
        }
    }
    if ( i < n && ( cnIsNameChar( s[i] ) || s[i] == '.' || s[i] == '+' ) )
    {
        size_t end = i;
        while ( end < n && ( cnIsNameChar( s[end] ) || s[end] == '.' || s[end] == '+' ) )
        {
            end += 1;
        }
        int length = (int)( end - start < 32 ? end - start : 32 );
        return cnSyntaxFail( scan, start, true, "invalid number '%.*s'", length, s + start );
    }
    *io = i;
    return true;
}

// A scalar or the opening of a container at s[i].
static bool cnScanValueStart( cnSyntaxScan* scan, size_t* io )
{
    const char* s = scan->s;
    size_t n = scan->n;
    size_t i = *io;
    if ( i >= n )
    {
        return cnSyntaxFail( scan, i, true, "unexpected end of file, expected a value" );
    }
    char c = s[i];
    if ( c == '"' )
    {
        return cnScanString( scan, io, false );
    }
    const char* const nonFinite[] = { "NaN", "-NaN", "nan", "Infinity", "-Infinity", "inf", "-inf" };
    for ( int k = 0; k < (int)( sizeof( nonFinite ) / sizeof( nonFinite[0] ) ); ++k )
    {
        size_t length = strlen( nonFinite[k] );
        if ( cnStartsWith( scan, i, nonFinite[k] ) &&
             ( i + length >= n || cnIsNameChar( s[i + length] ) == false ) )
        {
            return cnSyntaxFail( scan, i, true, "%s is not a JSON value (JSON has no NaN or infinity)",
                                 nonFinite[k] );
        }
    }
    if ( c == '-' || cnIsDigit( c ) )
    {
        return cnScanNumber( scan, io );
    }
    if ( cnIsNameChar( c ) )
    {
        size_t end = i;
        while ( end < n && cnIsNameChar( s[end] ) )
        {
            end += 1;
        }
        const char* const literals[] = { "true", "false", "null" };
        for ( int k = 0; k < 3; ++k )
        {
            if ( end - i == strlen( literals[k] ) && memcmp( s + i, literals[k], end - i ) == 0 )
            {
                *io = end;
                return true;
            }
        }
        int length = (int)( end - i < 32 ? end - i : 32 );
        return cnSyntaxFail( scan, i, true, "invalid value '%.*s' (strings need double quotes)", length,
                             s + i );
    }
    if ( c == '\'' )
    {
        return cnSyntaxFail( scan, i, true, "strings need double quotes, not single quotes" );
    }
    if ( c == '/' )
    {
        return cnSyntaxFail( scan, i, true, "comments are not allowed in JSON" );
    }
    if ( c == '+' || c == '.' )
    {
        return cnSyntaxFail( scan, i, true, "invalid number: JSON numbers start with '-' or a digit" );
    }
    char shown[24];
    cnDescribeChar( scan, i, shown, (int)sizeof( shown ) );
    return cnSyntaxFail( scan, i, true, "unexpected %s, expected a value", shown );
}

// A key and its colon at s[i], inside the innermost frame (an object).
static bool cnScanKey( cnSyntaxScan* scan, size_t* io )
{
    const char* s = scan->s;
    size_t n = scan->n;
    size_t i = *io;
    cnSyntaxFrame* frame = scan->frames + scan->depth - 1;
    if ( i >= n )
    {
        int column = 0;
        size_t line = cnLineColumnOf( s, frame->open, &column );
        return cnSyntaxFail( scan, i, false,
                             "unexpected end of file, expected a key (the object opened at %zu:%d)", line,
                             column );
    }
    if ( s[i] != '"' )
    {
        if ( s[i] == '\'' )
        {
            return cnSyntaxFail( scan, i, false, "keys need double quotes, not single quotes" );
        }
        if ( s[i] == '/' )
        {
            return cnSyntaxFail( scan, i, false, "comments are not allowed in JSON" );
        }
        char shown[24];
        cnDescribeChar( scan, i, shown, (int)sizeof( shown ) );
        if ( cnIsNameChar( s[i] ) )
        {
            size_t end = i;
            while ( end < n && cnIsNameChar( s[end] ) )
            {
                end += 1;
            }
            int length = (int)( end - i < 32 ? end - i : 32 );
            return cnSyntaxFail( scan, i, false, "expected a key in double quotes, got '%.*s'", length,
                                 s + i );
        }
        return cnSyntaxFail( scan, i, false, "expected a key in double quotes, got %s", shown );
    }
    size_t start = i;
    if ( cnScanString( scan, &i, true ) == false )
    {
        scan->inMember = false;
        return false;
    }
    frame->keyStart = start + 1;
    frame->keyLength = i - start - 2;
    frame->hasKey = true;
    i = cnSkipSpace( s, n, i );
    if ( i >= n || s[i] != ':' )
    {
        char shown[24];
        cnDescribeChar( scan, i, shown, (int)sizeof( shown ) );
        int length = (int)( frame->keyLength < 32 ? frame->keyLength : 32 );
        return cnSyntaxFail( scan, i, false, "expected ':' after the key \"%.*s\", got %s", length,
                             s + frame->keyStart, shown );
    }
    *io = cnSkipSpace( s, n, i + 1 );
    return true;
}

// Finds the first syntax error. False when there is none (then cJSON failed for another reason).
static bool cnScanSyntax( cnSyntaxScan* scan )
{
    const char* s = scan->s;
    size_t n = scan->n;
    size_t i = cnSkipSpace( s, n, 0 );
    bool expectValue = true;
    for ( ;; )
    {
        if ( expectValue )
        {
            if ( i < n && ( s[i] == '{' || s[i] == '[' ) )
            {
                if ( scan->depth >= CN_NESTING_LIMIT )
                {
                    cnSyntaxFail( scan, i, true, "nesting deeper than %d levels", CN_NESTING_LIMIT );
                    return true;
                }
                cnSyntaxFrame* frame = scan->frames + scan->depth;
                memset( frame, 0, sizeof( *frame ) );
                frame->open = i;
                frame->isObject = s[i] == '{';
                scan->depth += 1;
                char close = frame->isObject ? '}' : ']';
                i = cnSkipSpace( s, n, i + 1 );
                if ( i < n && s[i] == close )
                {
                    scan->depth -= 1;
                    i += 1;
                    expectValue = false;
                }
                else if ( frame->isObject && cnScanKey( scan, &i ) == false )
                {
                    return true;
                }
                continue;
            }
            if ( cnScanValueStart( scan, &i ) == false )
            {
                return true;
            }
            expectValue = false;
            continue;
        }

        i = cnSkipSpace( s, n, i );
        if ( scan->depth == 0 )
        {
            if ( i < n )
            {
                char shown[24];
                cnDescribeChar( scan, i, shown, (int)sizeof( shown ) );
                cnSyntaxFail( scan, i, false, "unexpected %s after the end of the JSON value", shown );
                return true;
            }
            return false;
        }
        cnSyntaxFrame* frame = scan->frames + scan->depth - 1;
        char close = frame->isObject ? '}' : ']';
        if ( i >= n )
        {
            int column = 0;
            size_t line = cnLineColumnOf( s, frame->open, &column );
            cnSyntaxFail( scan, i, false, "unexpected end of file: the %s opened at %zu:%d is not closed",
                          frame->isObject ? "object" : "array", line, column );
            return true;
        }
        if ( s[i] == ',' )
        {
            size_t comma = i;
            i = cnSkipSpace( s, n, i + 1 );
            if ( i < n && s[i] == close )
            {
                cnSyntaxFail( scan, comma, false, "trailing comma before '%c'", close );
                return true;
            }
            if ( frame->isObject )
            {
                frame->hasKey = false;
                if ( cnScanKey( scan, &i ) == false )
                {
                    return true;
                }
            }
            else
            {
                frame->index += 1;
            }
            expectValue = true;
            continue;
        }
        if ( s[i] == close )
        {
            scan->depth -= 1;
            i += 1;
            continue;
        }
        char shown[24];
        cnDescribeChar( scan, i, shown, (int)sizeof( shown ) );
        if ( frame->isObject )
        {
            cnSyntaxFail( scan, i, false, "expected ',' or '}' after a member, got %s", shown );
        }
        else
        {
            cnSyntaxFail( scan, i, false, "expected ',' or ']' after an element, got %s", shown );
        }
        return true;
    }
}

static void cnRenderSyntaxPath( const cnSyntaxScan* scan, char* buffer, size_t size )
{
    cnText text = cnMakeText( buffer, size );
    bool cut = false;
    for ( int d = 0; d < scan->depth && cut == false; ++d )
    {
        const cnSyntaxFrame* frame = scan->frames + d;
        bool innermost = d == scan->depth - 1;
        if ( innermost && scan->inMember == false )
        {
            break;
        }
        if ( frame->isObject == false )
        {
            cnAppendStep( &text, NULL, 0, frame->index, d == 0, false, &cut );
        }
        else if ( frame->hasKey )
        {
            cnAppendStep( &text, scan->s + frame->keyStart, frame->keyLength, 0, d == 0, false, &cut );
        }
    }
}

// cJSON failed at `end` (nullable): report the first syntax error.
static void cnReportSyntaxError( cnLoader* L, const char* end )
{
    cnSyntaxScan scan;
    memset( &scan, 0, sizeof( scan ) );
    scan.s = L->text;
    scan.n = L->length;
    scan.frames = cnAllocArray( &L->allocator, CN_NESTING_LIMIT, sizeof( cnSyntaxFrame ) );
    if ( scan.frames == NULL )
    {
        cnSetErrorAt( L, cn_statusOutOfMemory, 0, 0, NULL, "", "out of memory" );
        return;
    }

    char path[256] = "";
    size_t offset = 0;
    const char* message = NULL;
    if ( cnScanSyntax( &scan ) )
    {
        offset = scan.offset;
        message = scan.message;
        cnRenderSyntaxPath( &scan, path, sizeof( path ) );
    }
    else
    {
        // the text is well formed as far as we can tell: cJSON ran out of memory, or it refuses
        // something we accept
        offset = end != NULL && end >= L->text && end <= L->text + L->length ? (size_t)( end - L->text ) : 0;
        message = "JSON syntax error (cJSON could not parse the text)";
    }
    cnFree( &L->allocator, scan.frames, CN_NESTING_LIMIT * sizeof( cnSyntaxFrame ) );

    int line = 0;
    int column = 0;
    cnLineColumn( L, offset, &line, &column );
    cnSetErrorAt( L, cn_statusParseError, line, column, NULL, path, message );
}

// ---------------------------------------------------------------------------------------------
// Duplicate keys (cJSON keeps every member; JSON leaves the meaning to the reader; we refuse)

typedef struct cnKeyRef
{
    const char* key;
    int ordinal;
} cnKeyRef;

static int cnCompareKeyRefs( const void* a, const void* b )
{
    const cnKeyRef* x = a;
    const cnKeyRef* y = b;
    int order = strcmp( x->key, y->key );
    if ( order != 0 )
    {
        return order;
    }
    return x->ordinal < y->ordinal ? -1 : x->ordinal > y->ordinal ? 1 : 0;
}

// The first member (in document order) whose key an earlier member already has; NULL if none.
static const cJSON* cnFindDuplicateKey( cnLoader* L, const cJSON* object, bool* outOfMemory )
{
    *outOfMemory = false;
    int count = 0;
    const cJSON* child = NULL;
    cJSON_ArrayForEach( child, object )
    {
        count += 1;
    }
    if ( count <= CN_SMALL_OBJECT )
    {
        cJSON_ArrayForEach( child, object )
        {
            for ( const cJSON* earlier = object->child; earlier != child; earlier = earlier->next )
            {
                if ( strcmp( earlier->string, child->string ) == 0 )
                {
                    return child;
                }
            }
        }
        return NULL;
    }

    cnKeyRef* refs = cnAllocArray( &L->allocator, (size_t)count, sizeof( cnKeyRef ) );
    if ( refs == NULL )
    {
        *outOfMemory = true;
        return NULL;
    }
    int ordinal = 0;
    cJSON_ArrayForEach( child, object )
    {
        refs[ordinal].key = child->string;
        refs[ordinal].ordinal = ordinal;
        ordinal += 1;
    }
    qsort( refs, (size_t)count, sizeof( cnKeyRef ), cnCompareKeyRefs );
    // in each run of equal keys the second entry is the first repeat; keep the earliest one
    int first = INT_MAX;
    for ( int i = 1; i < count; ++i )
    {
        bool runStart = i == 1 || strcmp( refs[i - 2].key, refs[i - 1].key ) != 0;
        if ( runStart && strcmp( refs[i - 1].key, refs[i].key ) == 0 && refs[i].ordinal < first )
        {
            first = refs[i].ordinal;
        }
    }
    cnFree( &L->allocator, refs, (size_t)count * sizeof( cnKeyRef ) );
    if ( first == INT_MAX )
    {
        return NULL;
    }
    child = object->child;
    for ( int i = 0; i < first; ++i )
    {
        child = child->next;
    }
    return child;
}

static bool cnCheckDuplicateKeys( cnLoader* L, const cJSON* item )
{
    const cJSON* child = NULL;
    if ( cJSON_IsObject( item ) )
    {
        bool outOfMemory = false;
        const cJSON* repeat = cnFindDuplicateKey( L, item, &outOfMemory );
        if ( outOfMemory )
        {
            return cnFailOutOfMemory( L );
        }
        if ( repeat != NULL )
        {
            // the first occurrence, to name its place
            cnPushKey( L, repeat->string );
            char first[160];
            cnText text = cnMakeText( first, sizeof( first ) );
            cnAppendPlace( L, &text, L->path, L->depth );
            cnFinishText( &text );
            L->path[L->depth - 1].index = 2;

            char key[96];
            cnText quoted = cnMakeText( key, sizeof( key ) );
            cnAppendQuoted( &quoted, repeat->string, strlen( repeat->string ), CN_QUOTE_LIMIT );
            cnFinishText( &quoted );
            return cnFail( L, cn_statusSchemaError, "duplicate key %s (first at %s)", key, first );
        }
        cJSON_ArrayForEach( child, item )
        {
            cnPushKey( L, child->string );
            if ( cnCheckDuplicateKeys( L, child ) == false )
            {
                return false;
            }
            cnPop( L );
        }
    }
    else if ( cJSON_IsArray( item ) )
    {
        int index = 0;
        cJSON_ArrayForEach( child, item )
        {
            cnPushIndex( L, index );
            if ( cnCheckDuplicateKeys( L, child ) == false )
            {
                return false;
            }
            cnPop( L );
            index += 1;
        }
    }
    return true;
}

// ---------------------------------------------------------------------------------------------
// Overrides: "world.dt=0.001", "bodies[2].position=[0,0,1]", "world.solver.name=pgs"

static bool cnParseOverrideKey( cnLoader* L, cnOverride* o, const char* key, size_t length )
{
    // names, each followed by its terminating zero, fit in twice the key's length
    o->namesSize = 2 * length + 2;
    o->names = cnAlloc( &L->allocator, o->namesSize, 16 );
    if ( o->names == NULL )
    {
        return cnFailOutOfMemory( L );
    }

    char* out = o->names;
    size_t i = 0;
    bool expectName = true;
    bool malformed = length == 0;
    while ( i < length && malformed == false )
    {
        if ( o->stepCount == CN_MAX_OVERRIDE_STEPS )
        {
            return cnFail( L, cn_statusSchemaError, "the key has more than %d parts", CN_MAX_OVERRIDE_STEPS );
        }
        cnPathStep* step = o->steps + o->stepCount;
        if ( key[i] == '[' )
        {
            i += 1;
            long index = 0;
            size_t digits = 0;
            while ( i < length && cnIsDigit( key[i] ) && index <= INT_MAX )
            {
                index = index * 10 + ( key[i] - '0' );
                digits += 1;
                i += 1;
            }
            if ( digits == 0 || i >= length || key[i] != ']' || index > INT_MAX || o->stepCount == 0 )
            {
                malformed = true;
                break;
            }
            i += 1;
            step->key = NULL;
            step->index = (int)index;
            o->stepCount += 1;
            expectName = false;
            continue;
        }
        if ( expectName == false )
        {
            if ( key[i] != '.' )
            {
                malformed = true;
                break;
            }
            i += 1;
        }
        size_t start = i;
        while ( i < length && key[i] != '.' && key[i] != '[' )
        {
            if ( cnIsNameChar( key[i] ) == false )
            {
                malformed = true;
            }
            i += 1;
        }
        if ( i == start )
        {
            malformed = true;
            break;
        }
        memcpy( out, key + start, i - start );
        out[i - start] = 0;
        step->key = out;
        step->index = 1;
        out += i - start + 1;
        o->stepCount += 1;
        expectName = false;
    }
    if ( malformed || ( i < length ) || expectName )
    {
        char shown[160];
        cnText text = cnMakeText( shown, sizeof( shown ) );
        cnAppendQuoted( &text, key, length, CN_QUOTE_LIMIT );
        cnFinishText( &text );
        return cnFail(
            L, cn_statusSchemaError,
            "malformed key %s: expected names (letters, digits, '_', '-') joined by '.', each with "
            "optional [index], e.g. bodies[2].position",
            shown );
    }
    return true;
}

// The override's value: JSON when it parses as JSON, else the text as a string.
static cJSON* cnParseOverrideValue( const char* value )
{
    size_t length = strlen( value );
    const char* end = NULL;
    cJSON* item = cJSON_ParseWithLengthOpts( value, length, &end, false );
    if ( item != NULL )
    {
        size_t rest = end != NULL ? (size_t)( end - value ) : length;
        if ( cnSkipSpace( value, length, rest ) == length )
        {
            return item;
        }
        cJSON_Delete( item );
    }
    return cJSON_CreateString( value );
}

static bool cnApplyOverride( cnLoader* L, cnOverride* o )
{
    L->activeOverride = o;
    L->depth = 0;

    const char* equals = strchr( o->text, '=' );
    if ( equals == NULL )
    {
        return cnFail( L, cn_statusSchemaError, "expected KEY=VALUE, e.g. world.dt=0.001" );
    }
    if ( cnParseOverrideKey( L, o, o->text, (size_t)( equals - o->text ) ) == false )
    {
        return false;
    }

    cJSON* value = cnParseOverrideValue( equals + 1 );
    if ( value == NULL )
    {
        return cnFailOutOfMemory( L );
    }
    // the value's own keys, with the key's path in messages
    for ( int i = 0; i < o->stepCount; ++i )
    {
        L->path[i] = o->steps[i];
    }
    L->depth = o->stepCount;
    if ( cnCheckDuplicateKeys( L, value ) == false )
    {
        cJSON_Delete( value );
        return false;
    }
    L->depth = 0;

    cJSON* node = L->root;
    o->originDepth = o->stepCount;
    for ( int i = 0; i < o->stepCount; ++i )
    {
        const cnPathStep* step = o->steps + i;
        bool last = i == o->stepCount - 1;
        if ( step->key != NULL )
        {
            if ( cJSON_IsObject( node ) == false )
            {
                char what[160];
                cnFormat( what, (int)sizeof( what ), "an object (to hold \"%s\")", step->key );
                cnFailExpected( L, what, node );
                cJSON_Delete( value );
                return false;
            }
            cJSON* child = cJSON_GetObjectItemCaseSensitive( node, step->key );
            L->path[L->depth++] = *step;
            if ( last )
            {
                // both copy the key into the new item
                bool done = child != NULL ? cJSON_ReplaceItemInObjectCaseSensitive( node, step->key, value )
                                          : cJSON_AddItemToObject( node, step->key, value );
                if ( done == false )
                {
                    cJSON_Delete( value );
                    return cnFailOutOfMemory( L );
                }
                break;
            }
            if ( child == NULL )
            {
                child = cJSON_AddObjectToObject( node, step->key );
                if ( child == NULL )
                {
                    cJSON_Delete( value );
                    return cnFailOutOfMemory( L );
                }
                if ( o->originDepth == o->stepCount )
                {
                    o->originDepth = i + 1;
                }
            }
            node = child;
        }
        else
        {
            if ( cJSON_IsArray( node ) == false )
            {
                char what[64];
                cnFormat( what, (int)sizeof( what ), "an array (to take [%d])", step->index );
                cnFailExpected( L, what, node );
                cJSON_Delete( value );
                return false;
            }
            int size = cJSON_GetArraySize( node );
            L->path[L->depth++] = *step;
            if ( step->index >= size )
            {
                cJSON_Delete( value );
                return cnFail( L, cn_statusSchemaError, "index out of range: the array has %d element%s",
                               size, size == 1 ? "" : "s" );
            }
            cJSON* child = cJSON_GetArrayItem( node, step->index );
            if ( last )
            {
                if ( cJSON_ReplaceItemViaPointer( node, child, value ) == false )
                {
                    cJSON_Delete( value );
                    return cnFailOutOfMemory( L );
                }
                break;
            }
            node = child;
        }
    }
    L->depth = 0;
    L->activeOverride = NULL;
    return true;
}

static bool cnApplyOverrides( cnLoader* L )
{
    const cnSceneOptions* options = L->options;
    if ( options->overrideCount == 0 )
    {
        return true;
    }
    L->overrides = cnAllocArray( &L->allocator, (size_t)options->overrideCount, sizeof( cnOverride ) );
    if ( L->overrides == NULL )
    {
        return cnFailOutOfMemory( L );
    }
    L->overrideCount = options->overrideCount;
    for ( int i = 0; i < options->overrideCount; ++i )
    {
        cnOverride* o = L->overrides + i;
        o->text = options->overrides[i] != NULL ? options->overrides[i] : "";
        if ( cnApplyOverride( L, o ) == false )
        {
            return false;
        }
        L->appliedCount = i + 1;
    }
    // the tree changed: nothing cached may point into freed nodes
    L->cachedDepth = 0;
    return true;
}

// ---------------------------------------------------------------------------------------------
// Readers. Each checks one JSON value at the current path into a C value. An absent optional
// member keeps the default; a present but wrong one is an error.

typedef enum cnNumberRule
{
    cn_anyNumber,
    cn_positiveNumber,
    cn_nonNegativeNumber,
    cn_unitNumber,
} cnNumberRule;

static const char* cnRuleNoun( cnNumberRule rule )
{
    switch ( rule )
    {
        case cn_positiveNumber:
            return "a positive number";
        case cn_nonNegativeNumber:
            return "a non-negative number";
        case cn_unitNumber:
            return "a number in [0, 1]";
        case cn_anyNumber:
        default:
            return "a number";
    }
}

// The number as the file wrote it (for 1e999, which cJSON turns into infinity).
static void cnWrittenNumber( cnLoader* L, const cJSON* item, char* buffer, int size )
{
    cnFormatNumber( buffer, size, item->valuedouble );
    if ( cnOverrideOrigin( L, L->path, L->depth ) != NULL || L->text == NULL )
    {
        return;
    }
    size_t start = cnLocate( L, L->path, L->depth );
    size_t end = start;
    while ( end < L->length && end - start < 40 &&
            ( cnIsDigit( L->text[end] ) || strchr( "+-.eE", L->text[end] ) != NULL ) && L->text[end] != 0 )
    {
        end += 1;
    }
    if ( end > start )
    {
        cnFormat( buffer, size, "%.*s", (int)( end - start ), L->text + start );
    }
}

static bool cnCheckNumber( cnLoader* L, const cJSON* item, cnNumberRule rule, double* out )
{
    if ( cJSON_IsNumber( item ) == false )
    {
        return cnFailExpected( L, cnRuleNoun( rule ), item );
    }
    double value = item->valuedouble;
    if ( isfinite( value ) == false )
    {
        char written[64];
        cnWrittenNumber( L, item, written, (int)sizeof( written ) );
        return cnFail( L, cn_statusSchemaError, "expected a finite number, got %s (too large for a double)",
                       written );
    }
    bool ok = rule == cn_anyNumber || ( rule == cn_positiveNumber && value > 0.0 ) ||
              ( rule == cn_nonNegativeNumber && value >= 0.0 ) ||
              ( rule == cn_unitNumber && value >= 0.0 && value <= 1.0 );
    if ( ok == false )
    {
        return cnFailExpected( L, cnRuleNoun( rule ), item );
    }
    *out = value;
    return true;
}

// A positive integer up to INT_MAX.
static bool cnCheckPositiveInteger( cnLoader* L, const cJSON* item, int* out )
{
    if ( cJSON_IsNumber( item ) == false || item->valuedouble < 1.0 || item->valuedouble > (double)INT_MAX ||
         floor( item->valuedouble ) != item->valuedouble )
    {
        return cnFailExpected( L, "a positive integer", item );
    }
    *out = (int)item->valuedouble;
    return true;
}

static bool cnCheckBool( cnLoader* L, const cJSON* item, bool* out )
{
    if ( cJSON_IsBool( item ) == false )
    {
        return cnFailExpected( L, "true or false", item );
    }
    *out = cJSON_IsTrue( item );
    return true;
}

static bool cnCheckString( cnLoader* L, const cJSON* item, const char** out )
{
    if ( cJSON_IsString( item ) == false )
    {
        return cnFailExpected( L, "a string", item );
    }
    *out = item->valuestring;
    return true;
}

// "static, kinematic or dynamic"
static void cnAppendChoices( cnText* text, const char* const* names, int count )
{
    for ( int i = 0; i < count; ++i )
    {
        if ( i > 0 )
        {
            cnAppend( text, i == count - 1 ? " or " : ", " );
        }
        cnAppend( text, names[i] );
    }
}

// One of `names`; `what` names the kind in messages ("body type").
static bool cnCheckChoice( cnLoader* L, const cJSON* item, const char* const* names, int count,
                           const char* what, int* out )
{
    char choices[200];
    cnText text = cnMakeText( choices, sizeof( choices ) );
    cnAppendChoices( &text, names, count );
    cnFinishText( &text );
    if ( cJSON_IsString( item ) == false )
    {
        char expected[240];
        cnFormat( expected, (int)sizeof( expected ), "a %s (%s)", what, choices );
        return cnFailExpected( L, expected, item );
    }
    for ( int i = 0; i < count; ++i )
    {
        if ( strcmp( item->valuestring, names[i] ) == 0 )
        {
            *out = i;
            return true;
        }
    }
    char shown[96];
    cnText quoted = cnMakeText( shown, sizeof( shown ) );
    cnAppendQuoted( &quoted, item->valuestring, strlen( item->valuestring ), CN_QUOTE_LIMIT );
    cnFinishText( &quoted );
    return cnFail( L, cn_statusSchemaError, "unknown %s %s (expected %s)", what, shown, choices );
}

// An array of `count` numbers under `rule`; element errors name the element.
static bool cnCheckNumbers( cnLoader* L, const cJSON* item, int count, cnNumberRule rule, const char* what,
                            double* out )
{
    if ( cJSON_IsArray( item ) == false || cJSON_GetArraySize( item ) != count )
    {
        return cnFailExpected( L, what, item );
    }
    int index = 0;
    const cJSON* element = NULL;
    cJSON_ArrayForEach( element, item )
    {
        cnPushIndex( L, index );
        if ( cnCheckNumber( L, element, rule, out + index ) == false )
        {
            return false;
        }
        cnPop( L );
        index += 1;
    }
    return true;
}

static bool cnCheckVec3( cnLoader* L, const cJSON* item, cnNumberRule rule, cnVec3* out )
{
    const char* what = rule == cn_positiveNumber ? "an array of 3 positive numbers" : "an array of 3 numbers";
    double values[3] = { 0.0, 0.0, 0.0 };
    if ( cnCheckNumbers( L, item, 3, rule, what, values ) == false )
    {
        return false;
    }
    *out = cnMakeVec3( values[0], values[1], values[2] );
    return true;
}

// [w, x, y, z], not zero; normalized.
static bool cnCheckQuat( cnLoader* L, const cJSON* item, cnQuat* out )
{
    double v[4] = { 0.0, 0.0, 0.0, 0.0 };
    if ( cnCheckNumbers( L, item, 4, cn_anyNumber, "a quaternion [w, x, y, z]", v ) == false )
    {
        return false;
    }
    // scale first, so that huge or tiny components do not overflow or underflow
    double largest = fmax( fmax( fabs( v[0] ), fabs( v[1] ) ), fmax( fabs( v[2] ), fabs( v[3] ) ) );
    if ( largest == 0.0 )
    {
        return cnFail( L, cn_statusSchemaError,
                       "expected a non-zero quaternion [w, x, y, z], got [0, 0, 0, 0]" );
    }
    cnQuat q = cnMakeQuat( v[0] / largest, v[1] / largest, v[2] / largest, v[3] / largest );
    *out = cnNormalizeQuat( q );
    return true;
}

// Member `key` of `object`: NULL when absent (an error when `required`; see L->failed).
static const cJSON* cnMember( cnLoader* L, const cJSON* object, const char* key, bool required )
{
    const cJSON* item = cJSON_GetObjectItemCaseSensitive( object, key );
    if ( item == NULL && required )
    {
        cnFail( L, cn_statusSchemaError, "missing \"%s\"", key );
    }
    return item;
}

static bool cnReadNumberMember( cnLoader* L, const cJSON* object, const char* key, bool required,
                                cnNumberRule rule, double* out )
{
    const cJSON* item = cnMember( L, object, key, required );
    if ( item == NULL )
    {
        return L->failed == false;
    }
    cnPushKey( L, key );
    bool ok = cnCheckNumber( L, item, rule, out );
    cnPop( L );
    return ok;
}

static bool cnReadVec3Member( cnLoader* L, const cJSON* object, const char* key, bool required,
                              cnNumberRule rule, cnVec3* out )
{
    const cJSON* item = cnMember( L, object, key, required );
    if ( item == NULL )
    {
        return L->failed == false;
    }
    cnPushKey( L, key );
    bool ok = cnCheckVec3( L, item, rule, out );
    cnPop( L );
    return ok;
}

static bool cnReadQuatMember( cnLoader* L, const cJSON* object, const char* key, cnQuat* out )
{
    const cJSON* item = cnMember( L, object, key, false );
    if ( item == NULL )
    {
        return L->failed == false;
    }
    cnPushKey( L, key );
    bool ok = cnCheckQuat( L, item, out );
    cnPop( L );
    return ok;
}

static bool cnReadIntegerMember( cnLoader* L, const cJSON* object, const char* key, bool required, int* out )
{
    const cJSON* item = cnMember( L, object, key, required );
    if ( item == NULL )
    {
        return L->failed == false;
    }
    cnPushKey( L, key );
    bool ok = cnCheckPositiveInteger( L, item, out );
    cnPop( L );
    return ok;
}

// Member `key` of `object`: one of `names` (`what` names the kind in messages, "body type"), its
// index into `out`; `out` is left as it was when the member is absent.
static bool cnReadChoiceMember( cnLoader* L, const cJSON* object, const char* key, bool required,
                                const char* const* names, int count, const char* what, int* out )
{
    const cJSON* item = cnMember( L, object, key, required );
    if ( item == NULL )
    {
        return L->failed == false;
    }
    cnPushKey( L, key );
    bool ok = cnCheckChoice( L, item, names, count, what, out );
    cnPop( L );
    return ok;
}

static bool cnExpectObject( cnLoader* L, const cJSON* item )
{
    if ( cJSON_IsObject( item ) == false )
    {
        return cnFailExpected( L, "an object", item );
    }
    return true;
}

// Warn about each member of `object` that is not in `known` (pass 1 only).
static void cnWarnUnknownKeys( cnLoader* L, const cJSON* object, const char* const* known, int count,
                               const char* context )
{
    if ( L->pass != 1 )
    {
        return;
    }
    const cJSON* child = NULL;
    cJSON_ArrayForEach( child, object )
    {
        bool found = false;
        for ( int i = 0; i < count && found == false; ++i )
        {
            found = strcmp( child->string, known[i] ) == 0;
        }
        if ( found == false )
        {
            cnPushKey( L, child->string );
            if ( context != NULL )
            {
                cnWarn( L, "unknown key for %s (ignored)", context );
            }
            else
            {
                cnWarn( L, "unknown key (ignored)" );
            }
            cnPop( L );
        }
    }
}

#define CN_COUNT( a ) ( (int)( sizeof( a ) / sizeof( ( a )[0] ) ) )

// ---------------------------------------------------------------------------------------------
// The scene's parts

static const char* const cn_topKeys[] = { "version", "description", "world",   "materials",
                                          "bodies",  "generators",  "systems", "joints" };
static const char* const cn_worldKeys[] = { "gravity",
                                            "dt",
                                            "dynamics",
                                            "friction_model",
                                            "sleeping",
                                            "viscosity",
                                            "solver",
                                            "substeps",
                                            "contact_hertz",
                                            "contact_margin",
                                            "aabb_margin",
                                            "contact_recursions",
                                            "relax_iterations",
                                            "max_linear_speed",
                                            "contact_overlap_tolerance",
                                            "multisphere",
                                            "hit_event_threshold",
                                            "continuous",
                                            "joint_projection",
                                            "threads",
                                            "coloring" };
static const char* const cn_solverKeys[] = { "name", "iterations", "tolerance", "params" };
static const char* const cn_materialKeys[] = { "friction", "restitution", "density" };
static const char* const cn_bodyKeys[] = { "name",
                                           "type",
                                           "position",
                                           "orientation",
                                           "linear_velocity",
                                           "angular_velocity",
                                           "linear_damping",
                                           "angular_damping",
                                           "gravity_scale",
                                           "force",
                                           "torque",
                                           "fixed_rotation",
                                           "mobility",
                                           "shapes" };
static const char* const cn_mobilityKeys[] = { "linear", "angular" };
static const char* const cn_dynamicsNames[] = { "inertial", "overdamped" };
// in cnFrictionModel order
static const char* const cn_frictionModelNames[] = { "pyramid", "cone" };
static const char* const cn_bodyTypeNames[] = { "static", "kinematic", "dynamic" };
// in cnShapeType order
static const char* const cn_shapeTypeNames[] = { "sphere",    "box",   "capsule", "cylinder",
                                                 "ellipsoid", "torus", "convex",  "plane" };

// keys every shape may have, then the keys of each type (at most 8 in all per type)
#define CN_SHAPE_COMMON_KEYS "type", "material", "position", "orientation", "sensor", "hit_events"
static const char* const cn_shapeKeys[cn_shapeTypeCount][8] = {
    { CN_SHAPE_COMMON_KEYS, "radius" },
    { CN_SHAPE_COMMON_KEYS, "half_extents" },
    { CN_SHAPE_COMMON_KEYS, "radius", "half_length" },
    { CN_SHAPE_COMMON_KEYS, "radius", "half_length" },
    { CN_SHAPE_COMMON_KEYS, "radii" },
    { CN_SHAPE_COMMON_KEYS, "major_radius", "minor_radius" },
    { CN_SHAPE_COMMON_KEYS, "points" },
    { CN_SHAPE_COMMON_KEYS, "normal", "offset" },
};
static const int cn_shapeKeyCounts[cn_shapeTypeCount] = { 7, 7, 8, 8, 7, 8, 7, 8 };

// "iterations, tolerance, ..." (cut with "..." when long)
static void cnSolverParamNames( const cnSolverVTable* solver, char* buffer, size_t size )
{
    cnText text = cnMakeText( buffer, size );
    for ( int i = 0; i < solver->paramCount; ++i )
    {
        cnAppend( &text, i > 0 ? ", " : "" );
        cnAppend( &text, solver->params[i].name );
    }
    cnFinishText( &text );
}

// One member of "world.solver.params" (the path is at it): its parameter's index and value. A
// number for any parameter, true or false for a toggle, a choice's name for a choice; the value
// is checked against the parameter's type and range (cnCheckSolverParam).
static bool cnReadSolverParam( cnLoader* L, const cnSolverVTable* solver, const cJSON* item, int* outIndex,
                               double* outValue )
{
    int index = cnFindSolverParam( solver, item->string );
    if ( index < 0 )
    {
        char names[200];
        cnSolverParamNames( solver, names, sizeof( names ) );
        char shown[96];
        cnText quoted = cnMakeText( shown, sizeof( shown ) );
        cnAppendQuoted( &quoted, item->string, strlen( item->string ), CN_QUOTE_LIMIT );
        cnFinishText( &quoted );
        return cnFail( L, cn_statusSchemaError, "solver \"%s\" has no parameter %s (its parameters: %s)",
                       solver->name, shown, names );
    }

    const cnSolverParam* param = solver->params + index;
    char why[192] = "";
    double value = 0.0;
    cnStatus status = cn_statusOk;
    if ( cJSON_IsNumber( item ) )
    {
        value = item->valuedouble;
        status = cnCheckSolverParam( param, value, why, (int)sizeof( why ) );
    }
    else if ( cJSON_IsBool( item ) && param->type == cn_paramToggle )
    {
        value = cJSON_IsTrue( item ) ? 1.0 : 0.0;
    }
    else if ( cJSON_IsString( item ) && param->type == cn_paramChoice )
    {
        status = cn_statusInvalidArgument;
        for ( int k = 0; k < param->choiceCount && status != cn_statusOk; ++k )
        {
            if ( strcmp( item->valuestring, param->choices[k] ) == 0 )
            {
                value = (double)k;
                status = cn_statusOk;
            }
        }
        if ( status != cn_statusOk )
        {
            char choices[160];
            cnText text = cnMakeText( choices, sizeof( choices ) );
            cnAppendChoices( &text, param->choices, param->choiceCount );
            cnFinishText( &text );
            char shown[96];
            cnText quoted = cnMakeText( shown, sizeof( shown ) );
            cnAppendQuoted( &quoted, item->valuestring, strlen( item->valuestring ), CN_QUOTE_LIMIT );
            cnFinishText( &quoted );
            return cnFail( L, cn_statusSchemaError,
                           "unknown choice %s for \"%s\" of solver \"%s\" (expected %s)", shown, param->name,
                           solver->name, choices );
        }
    }
    else
    {
        char low[32];
        char high[32];
        cnFormatNumber( low, (int)sizeof( low ), param->minValue );
        cnFormatNumber( high, (int)sizeof( high ), param->maxValue );
        char what[240];
        switch ( param->type )
        {
            case cn_paramToggle:
                cnFormat( what, (int)sizeof( what ), "true or false (a toggle)" );
                break;
            case cn_paramChoice:
            {
                char choices[160];
                cnText text = cnMakeText( choices, sizeof( choices ) );
                cnAppendChoices( &text, param->choices, param->choiceCount );
                cnFinishText( &text );
                cnFormat( what, (int)sizeof( what ), "a choice: %s", choices );
                break;
            }
            case cn_paramInteger:
                cnFormat( what, (int)sizeof( what ), "an integer in [%s, %s]", low, high );
                break;
            case cn_paramNumber:
            default:
                cnFormat( what, (int)sizeof( what ), "a number in [%s, %s]", low, high );
                break;
        }
        return cnFailExpected( L, what, item );
    }
    if ( status != cn_statusOk )
    {
        if ( isfinite( value ) == false )
        {
            char written[64];
            cnWrittenNumber( L, item, written, (int)sizeof( written ) );
            return cnFail( L, cn_statusSchemaError,
                           "expected a finite number, got %s (too large for a double)", written );
        }
        // why: "iterations: 0 is outside [1, 1e+06]"; the path names the parameter already
        const char* reason = why;
        size_t nameLength = strlen( param->name );
        if ( strncmp( why, param->name, nameLength ) == 0 && strncmp( why + nameLength, ": ", 2 ) == 0 )
        {
            reason = why + nameLength + 2;
        }
        return cnFail( L, cn_statusSchemaError, "%s (a parameter of solver \"%s\")", reason, solver->name );
    }
    *outIndex = index;
    *outValue = value;
    return true;
}

// "world.solver.params" (the path is at it), each read against `solver`; set on `world` too when it
// is given (pass 2, in the file's order), only checked when it is not (pass 1).
static bool cnReadSolverParams( cnLoader* L, const cJSON* params, const cnSolverVTable* solver,
                                const cnWorldId* world )
{
    const cJSON* member = NULL;
    cJSON_ArrayForEach( member, params )
    {
        cnPushKey( L, member->string );
        int index = -1;
        double value = 0.0;
        if ( cnReadSolverParam( L, solver, member, &index, &value ) == false )
        {
            return false;
        }
        cnStatus status =
            world != NULL ? cnWorld_SetSolverParam( *world, member->string, value ) : cn_statusOk;
        if ( status != cn_statusOk )
        {
            return cnFail( L, status == cn_statusOutOfMemory ? cn_statusOutOfMemory : cn_statusSchemaError,
                           "solver \"%s\" refused this value: %s (see the world's log)", solver->name,
                           cnStatusString( status ) );
        }
        cnPop( L );
    }
    return true;
}

// Pass 1: "world.solver.params" (the path is at it) against `solver`, the one named `name`.
static bool cnCheckSolverParams( cnLoader* L, const cJSON* params, const cnSolverVTable* solver,
                                 const char* name )
{
    if ( cJSON_IsObject( params ) == false )
    {
        return cnFailExpected( L, "an object from parameter names to values", params );
    }
    if ( solver == NULL )
    {
        // a def's name the caller set; cnCreateWorld would refuse it too
        return cnFail( L, cn_statusSchemaError, "solver \"%s\" is not registered: its parameters are unknown",
                       name );
    }
    return cnReadSolverParams( L, params, solver, NULL );
}

static bool cnReadSolver( cnLoader* L, const cJSON* item, cnSolverSettings* solver )
{
    if ( cnExpectObject( L, item ) == false )
    {
        return false;
    }
    cnWarnUnknownKeys( L, item, cn_solverKeys, CN_COUNT( cn_solverKeys ), NULL );

    const cJSON* name = cnMember( L, item, "name", false );
    if ( name != NULL )
    {
        cnPushKey( L, "name" );
        bool ok = cJSON_IsString( name ) && cnIsLower( name->valuestring[0] ) &&
                  strlen( name->valuestring ) < sizeof( solver->name );
        for ( const char* c = ok ? name->valuestring : ""; *c != 0 && ok; ++c )
        {
            ok = cnIsLower( *c ) || cnIsDigit( *c ) || *c == '_';
        }
        if ( ok == false )
        {
            return cnFailExpected(
                L,
                "a solver name: a lower-case letter, then lower-case letters, digits or '_', "
                "at most 31 in all",
                name );
        }
        if ( cnFindSolver( name->valuestring ) == NULL )
        {
            char names[160] = "";
            for ( int i = 0; i < cnGetSolverCount(); ++i )
            {
                size_t used = strlen( names );
                cnFormat( names + used, (int)( sizeof( names ) - used ), "%s%s", i > 0 ? ", " : "",
                          cnGetSolverAt( i )->name );
            }
            return cnFail( L, cn_statusSchemaError, "unknown solver \"%s\" (registered: %s)",
                           name->valuestring, names );
        }
        cnFormat( solver->name, (int)sizeof( solver->name ), "%s", name->valuestring );
        cnPop( L );
    }

    const cJSON* iterations = cnMember( L, item, "iterations", false );
    if ( iterations != NULL )
    {
        cnPushKey( L, "iterations" );
        if ( cnCheckPositiveInteger( L, iterations, &solver->iterations ) == false )
        {
            return false;
        }
        cnPop( L );
    }
    if ( cnReadNumberMember( L, item, "tolerance", false, cn_nonNegativeNumber, &solver->tolerance ) ==
         false )
    {
        return false;
    }

    // checked against the solver the world gets (the name read above, or the def's); set on the
    // world after it is created (cnApplySolverParams)
    const cJSON* params = cnMember( L, item, "params", false );
    if ( params != NULL )
    {
        cnPushKey( L, "params" );
        if ( cnCheckSolverParams( L, params, cnFindSolver( solver->name ), solver->name ) == false )
        {
            return false;
        }
        cnPop( L );
    }
    return true;
}

// The exact cone needs a solver that has it: the error is at "friction_model" (or, when the
// cone came from the caller's def, at the solver's name or the world).
static bool cnCheckFrictionSolver( cnLoader* L, const cJSON* item, const cnWorldDef* def )
{
    const cnSolverVTable* solver = cnFindSolver( def->solver.name );
    if ( def->frictionModel != cn_frictionCone || solver == NULL || ( solver->caps & cn_solverCone ) != 0 )
    {
        return true;
    }
    char names[200];
    cnText text = cnMakeText( names, sizeof( names ) );
    for ( int i = 0; i < cnGetSolverCount(); ++i )
    {
        const cnSolverVTable* other = cnGetSolverAt( i );
        if ( ( other->caps & cn_solverCone ) != 0 && ( other->caps & cn_solverMatrixFree ) != 0 )
        {
            cnAppend( &text, text.length > 0 ? ", " : "" );
            cnAppend( &text, other->name );
        }
    }
    cnFinishText( &text );
    const cJSON* solverItem = cJSON_GetObjectItemCaseSensitive( item, "solver" );
    if ( cJSON_GetObjectItemCaseSensitive( item, "friction_model" ) != NULL )
    {
        cnPushKey( L, "friction_model" );
    }
    else if ( cJSON_GetObjectItemCaseSensitive( solverItem, "name" ) != NULL )
    {
        cnPushKey( L, "solver" );
        cnPushKey( L, "name" );
    }
    if ( names[0] == 0 )
    {
        return cnFail(
            L, cn_statusSchemaError,
            "friction_model \"cone\" needs a solver with the exact friction cone, and solver \"%s\" "
            "has none (no registered solver has it)",
            solver->name );
    }
    return cnFail( L, cn_statusSchemaError,
                   "friction_model \"cone\" needs a solver with the exact friction cone, and solver \"%s\" "
                   "has none (solvers with it: %s)",
                   solver->name, names );
}

static bool cnReadWorld( cnLoader* L, const cJSON* item, cnWorldDef* def )
{
    if ( cnExpectObject( L, item ) == false )
    {
        return false;
    }
    cnWarnUnknownKeys( L, item, cn_worldKeys, CN_COUNT( cn_worldKeys ), NULL );

    if ( cnReadVec3Member( L, item, "gravity", false, cn_anyNumber, &def->gravity ) == false ||
         cnReadNumberMember( L, item, "dt", false, cn_positiveNumber, &def->timeStep ) == false ||
         cnReadNumberMember( L, item, "viscosity", false, cn_positiveNumber, &def->viscosity ) == false ||
         cnReadIntegerMember( L, item, "substeps", false, &def->substeps ) == false ||
         cnReadNumberMember( L, item, "contact_hertz", false, cn_positiveNumber, &def->contactHertz ) ==
             false ||
         cnReadNumberMember( L, item, "contact_margin", false, cn_nonNegativeNumber, &def->contactMargin ) ==
             false ||
         cnReadNumberMember( L, item, "aabb_margin", false, cn_nonNegativeNumber, &def->aabbMargin ) ==
             false ||
         cnReadIntegerMember( L, item, "relax_iterations", false, &def->relaxIterations ) == false ||
         cnReadNumberMember( L, item, "max_linear_speed", false, cn_positiveNumber, &def->maxLinearSpeed ) ==
             false ||
         cnReadNumberMember( L, item, "contact_overlap_tolerance", false, cn_positiveNumber,
                             &def->contactOverlapTolerance ) == false ||
         cnReadNumberMember( L, item, "hit_event_threshold", false, cn_nonNegativeNumber,
                             &def->hitEventThreshold ) == false )
    {
        return false;
    }
    if ( def->relaxIterations > 1000 )
    {
        cnPushKey( L, "relax_iterations" );
        return cnFailExpected( L, "an integer from 1 to 1000",
                               cJSON_GetObjectItemCaseSensitive( item, "relax_iterations" ) );
    }
    const cJSON* recursions = cnMember( L, item, "contact_recursions", false );
    if ( recursions != NULL )
    {
        cnPushKey( L, "contact_recursions" );
        if ( cJSON_IsNumber( recursions ) == false || recursions->valuedouble < 0.0 ||
             recursions->valuedouble > 64.0 || floor( recursions->valuedouble ) != recursions->valuedouble )
        {
            return cnFailExpected( L, "an integer from 0 to 64", recursions );
        }
        def->contactRecursions = (int)recursions->valuedouble;
        cnPop( L );
    }
    // 0 is off, so not a positive integer
    const cJSON* multisphere = cnMember( L, item, "multisphere", false );
    if ( multisphere != NULL )
    {
        cnPushKey( L, "multisphere" );
        double count = cJSON_IsNumber( multisphere ) ? multisphere->valuedouble : -1.0;
        if ( floor( count ) != count || ( count != 0.0 && ( count < 2.0 || count > 256.0 ) ) )
        {
            return cnFailExpected( L, "0 (off) or an integer from 2 to 256", multisphere );
        }
        def->multisphere = (int)count;
        cnPop( L );
    }
    const cJSON* coloring = cnMember( L, item, "coloring", false );
    if ( coloring != NULL )
    {
        cnPushKey( L, "coloring" );
        if ( cnCheckBool( L, coloring, &def->enableColoring ) == false )
        {
            return false;
        }
        cnPop( L );
    }
    // workers of the parallel stages; the results do not depend on it
    const cJSON* threads = cnMember( L, item, "threads", false );
    if ( threads != NULL )
    {
        cnPushKey( L, "threads" );
        double count = cJSON_IsNumber( threads ) ? threads->valuedouble : -1.0;
        if ( floor( count ) != count || count < 1.0 || count > (double)CN_MAX_WORKERS )
        {
            return cnFailExpected( L, "an integer from 1 to 64", threads );
        }
        def->workerCount = (int)count;
        cnPop( L );
    }
    if ( def->substeps > 64 )
    {
        cnPushKey( L, "substeps" );
        return cnFailExpected( L, "an integer from 1 to 64",
                               cJSON_GetObjectItemCaseSensitive( item, "substeps" ) );
    }

    int mode = (int)def->dynamics;
    if ( cnReadChoiceMember( L, item, "dynamics", false, cn_dynamicsNames, CN_COUNT( cn_dynamicsNames ),
                             "dynamics mode", &mode ) == false )
    {
        return false;
    }
    def->dynamics = (cnDynamicsMode)mode;

    const cJSON* sleeping = cnMember( L, item, "sleeping", false );
    if ( sleeping != NULL )
    {
        cnPushKey( L, "sleeping" );
        if ( cnCheckBool( L, sleeping, &def->enableSleep ) == false )
        {
            return false;
        }
        cnPop( L );
    }
    const cJSON* continuous = cnMember( L, item, "continuous", false );
    if ( continuous != NULL )
    {
        cnPushKey( L, "continuous" );
        if ( cnCheckBool( L, continuous, &def->enableContinuous ) == false )
        {
            return false;
        }
        cnPop( L );
    }
    const cJSON* projection = cnMember( L, item, "joint_projection", false );
    if ( projection != NULL )
    {
        cnPushKey( L, "joint_projection" );
        if ( cnCheckBool( L, projection, &def->enableJointProjection ) == false )
        {
            return false;
        }
        cnPop( L );
    }

    const cJSON* solver = cnMember( L, item, "solver", false );
    if ( solver != NULL )
    {
        cnPushKey( L, "solver" );
        if ( cnReadSolver( L, solver, &def->solver ) == false )
        {
            return false;
        }
        cnPop( L );
    }

    int model = (int)def->frictionModel;
    if ( cnReadChoiceMember( L, item, "friction_model", false, cn_frictionModelNames,
                             CN_COUNT( cn_frictionModelNames ), "friction model", &model ) == false )
    {
        return false;
    }
    def->frictionModel = (cnFrictionModel)model;
    return cnCheckFrictionSolver( L, item, def );
}

// The members of a material object over `out` (which holds the defaults).
static bool cnReadMaterialObject( cnLoader* L, const cJSON* item, cnMaterial* out )
{
    if ( cnExpectObject( L, item ) == false )
    {
        return false;
    }
    cnWarnUnknownKeys( L, item, cn_materialKeys, CN_COUNT( cn_materialKeys ), NULL );
    return cnReadNumberMember( L, item, "friction", false, cn_nonNegativeNumber, &out->friction ) &&
           cnReadNumberMember( L, item, "restitution", false, cn_unitNumber, &out->restitution ) &&
           cnReadNumberMember( L, item, "density", false, cn_nonNegativeNumber, &out->density );
}

static bool cnReadMaterials( cnLoader* L, const cJSON* item )
{
    if ( cnExpectObject( L, item ) == false )
    {
        return false;
    }
    const cJSON* material = NULL;
    cJSON_ArrayForEach( material, item )
    {
        cnPushKey( L, material->string );
        cnMaterial value = cnDefaultMaterial();
        if ( cnReadMaterialObject( L, material, &value ) == false )
        {
            return false;
        }
        if ( strcmp( material->string, "default" ) == 0 )
        {
            L->defaultMaterial = value;
        }
        cnPop( L );
    }
    L->materials = item;
    return true;
}

// A shape's "material": a name from "materials" or an inline object.
static bool cnReadShapeMaterial( cnLoader* L, const cJSON* item, cnMaterial* out )
{
    if ( cJSON_IsObject( item ) )
    {
        *out = cnDefaultMaterial();
        return cnReadMaterialObject( L, item, out );
    }
    if ( cJSON_IsString( item ) == false )
    {
        return cnFailExpected( L, "a material name or a material object", item );
    }
    const cJSON* named =
        L->materials != NULL ? cJSON_GetObjectItemCaseSensitive( L->materials, item->valuestring ) : NULL;
    if ( named == NULL )
    {
        char message[256];
        cnText text = cnMakeText( message, sizeof( message ) );
        cnAppend( &text, "unknown material " );
        cnAppendQuoted( &text, item->valuestring, strlen( item->valuestring ), CN_QUOTE_LIMIT );
        if ( L->materials == NULL || L->materials->child == NULL )
        {
            cnAppend( &text, " (the file defines no materials)" );
        }
        else
        {
            cnAppend( &text, " (defined: " );
            const cJSON* material = NULL;
            int shown = 0;
            cJSON_ArrayForEach( material, L->materials )
            {
                if ( shown == 8 )
                {
                    cnAppend( &text, ", ..." );
                    break;
                }
                cnAppend( &text, shown > 0 ? ", " : "" );
                cnAppendQuoted( &text, material->string, strlen( material->string ), CN_QUOTE_LIMIT );
                shown += 1;
            }
            cnAppend( &text, ")" );
        }
        cnFinishText( &text );
        return cnFail( L, cn_statusSchemaError, "%s", message );
    }
    // checked in cnReadMaterials: read it again, quietly
    int pass = L->pass;
    L->pass = 2;
    *out = cnDefaultMaterial();
    bool ok = cnReadMaterialObject( L, named, out );
    L->pass = pass;
    return ok;
}

static bool cnReadHullPoints( cnLoader* L, const cJSON* item, cnHullPoints* hull )
{
    if ( cJSON_IsArray( item ) == false )
    {
        return cnFailExpected( L, "an array of points [x, y, z]", item );
    }
    int count = cJSON_GetArraySize( item );
    if ( count < 4 )
    {
        return cnFail( L, cn_statusSchemaError, "expected at least 4 points, got %d", count );
    }
    if ( count > L->pointCapacity )
    {
        cnVec3* grown = cnRealloc( &L->allocator, L->points, (size_t)L->pointCapacity * sizeof( cnVec3 ),
                                   (size_t)count * sizeof( cnVec3 ), 16 );
        if ( grown == NULL )
        {
            return cnFailOutOfMemory( L );
        }
        L->points = grown;
        L->pointCapacity = count;
    }
    int index = 0;
    const cJSON* point = NULL;
    cJSON_ArrayForEach( point, item )
    {
        cnPushIndex( L, index );
        if ( cnCheckVec3( L, point, cn_anyNumber, L->points + index ) == false )
        {
            return false;
        }
        cnPop( L );
        index += 1;
    }
    hull->points = L->points;
    hull->pointCount = count;
    return true;
}

// The type-specific members of a shape into `geometry` (whose type is set).
static bool cnReadGeometry( cnLoader* L, const cJSON* item, cnGeometry* geometry )
{
    switch ( geometry->type )
    {
        case cn_sphereShape:
            return cnReadNumberMember( L, item, "radius", true, cn_positiveNumber, &geometry->sphere.radius );
        case cn_boxShape:
            return cnReadVec3Member( L, item, "half_extents", true, cn_positiveNumber,
                                     &geometry->box.halfExtents );
        case cn_capsuleShape:
            return cnReadNumberMember( L, item, "radius", true, cn_positiveNumber,
                                       &geometry->capsule.radius ) &&
                   cnReadNumberMember( L, item, "half_length", true, cn_nonNegativeNumber,
                                       &geometry->capsule.halfLength );
        case cn_cylinderShape:
            return cnReadNumberMember( L, item, "radius", true, cn_positiveNumber,
                                       &geometry->cylinder.radius ) &&
                   cnReadNumberMember( L, item, "half_length", true, cn_positiveNumber,
                                       &geometry->cylinder.halfLength );
        case cn_ellipsoidShape:
            return cnReadVec3Member( L, item, "radii", true, cn_positiveNumber, &geometry->ellipsoid.radii );
        case cn_torusShape:
            if ( cnReadNumberMember( L, item, "major_radius", true, cn_positiveNumber,
                                     &geometry->torus.majorRadius ) == false ||
                 cnReadNumberMember( L, item, "minor_radius", true, cn_positiveNumber,
                                     &geometry->torus.minorRadius ) == false )
            {
                return false;
            }
            if ( geometry->torus.minorRadius >= geometry->torus.majorRadius )
            {
                char major[64];
                char minor[64];
                cnFormatNumber( major, (int)sizeof( major ), geometry->torus.majorRadius );
                cnFormatNumber( minor, (int)sizeof( minor ), geometry->torus.minorRadius );
                cnPushKey( L, "minor_radius" );
                return cnFail( L, cn_statusSchemaError, "expected less than major_radius (%s), got %s", major,
                               minor );
            }
            return true;
        case cn_hullShape:
        {
            const cJSON* points = cnMember( L, item, "points", true );
            if ( points == NULL )
            {
                return false;
            }
            cnPushKey( L, "points" );
            if ( cnReadHullPoints( L, points, &geometry->hull ) == false )
            {
                return false;
            }
            cnPop( L );
            return true;
        }
        case cn_planeShape:
        {
            geometry->plane.offset = 0.0;
            if ( cnReadVec3Member( L, item, "normal", true, cn_anyNumber, &geometry->plane.normal ) ==
                     false ||
                 cnReadNumberMember( L, item, "offset", false, cn_anyNumber, &geometry->plane.offset ) ==
                     false )
            {
                return false;
            }
            if ( cnLengthSquared( geometry->plane.normal ) == 0.0 )
            {
                cnPushKey( L, "normal" );
                return cnFail( L, cn_statusSchemaError, "expected a non-zero vector, got [0, 0, 0]" );
            }
            return true;
        }
        case cn_shapeTypeCount:
        default:
            break;
    }
    return cnFail( L, cn_statusSchemaError, "unknown shape type" );
}

// Shape `item` of a body of `bodyType` into `def` and `geometry` (hull points in L->points).
static bool cnReadShape( cnLoader* L, const cJSON* item, cnBodyType bodyType, cnShapeDef* def,
                         cnGeometry* geometry )
{
    if ( cnExpectObject( L, item ) == false )
    {
        return false;
    }
    int type = 0;
    if ( cnReadChoiceMember( L, item, "type", true, cn_shapeTypeNames, CN_COUNT( cn_shapeTypeNames ),
                             "shape type", &type ) == false )
    {
        return false;
    }
    if ( type == cn_planeShape && bodyType != cn_staticBody )
    {
        cnPushKey( L, "type" );
        return cnFail( L, cn_statusSchemaError, "a plane must be on a static body, and this body is %s",
                       cn_bodyTypeNames[bodyType] );
    }

    char context[32];
    cnFormat( context, (int)sizeof( context ), "a %s shape", cn_shapeTypeNames[type] );
    cnWarnUnknownKeys( L, item, cn_shapeKeys[type], cn_shapeKeyCounts[type], context );

    memset( geometry, 0, sizeof( *geometry ) );
    geometry->type = (cnShapeType)type;
    if ( cnReadGeometry( L, item, geometry ) == false )
    {
        return false;
    }

    *def = cnDefaultShapeDef();
    def->material = L->defaultMaterial;
    const cJSON* material = cnMember( L, item, "material", false );
    if ( material != NULL )
    {
        cnPushKey( L, "material" );
        if ( cnReadShapeMaterial( L, material, &def->material ) == false )
        {
            return false;
        }
        cnPop( L );
    }
    if ( cnReadVec3Member( L, item, "position", false, cn_anyNumber, &def->localPose.p ) == false ||
         cnReadQuatMember( L, item, "orientation", &def->localPose.q ) == false )
    {
        return false;
    }
    const char* const flagKeys[2] = { "sensor", "hit_events" };
    bool* flags[2] = { &def->isSensor, &def->enableHitEvents };
    for ( int k = 0; k < 2; ++k )
    {
        const cJSON* flag = cnMember( L, item, flagKeys[k], false );
        if ( flag != NULL )
        {
            cnPushKey( L, flagKeys[k] );
            if ( cnCheckBool( L, flag, flags[k] ) == false )
            {
                return false;
            }
            cnPop( L );
        }
    }

    // the engine's own checks: they know what ours do not (a hull without volume, by the hull
    // code's tolerance). "points: all points lie in one plane" names a key of this shape: the key
    // goes into the path, so that the location points at its value.
    if ( L->pass == 1 )
    {
        char message[256] = "";
        if ( cnValidateGeometry( geometry, message, (int)sizeof( message ) ) != cn_statusOk )
        {
            const char* colon = strstr( message, ": " );
            for ( int k = 0; colon != NULL && k < cn_shapeKeyCounts[type]; ++k )
            {
                const char* key = cn_shapeKeys[type][k];
                if ( strlen( key ) == (size_t)( colon - message ) &&
                     strncmp( message, key, strlen( key ) ) == 0 &&
                     cJSON_GetObjectItemCaseSensitive( item, key ) != NULL )
                {
                    cnPushKey( L, key );
                    return cnFail( L, cn_statusSchemaError, "%s", colon + 2 );
                }
            }
            return cnFail( L, cn_statusSchemaError, "%s", message[0] != 0 ? message : "invalid geometry" );
        }
    }
    return true;
}

// A mobility tensor: a positive number, 3 positive numbers (the diagonal) or 3 rows of 3 numbers
// (symmetric positive definite).
// Pass 1: every shape of a body's "shapes" array (nullable) read and checked, at its place.
static bool cnCheckShapes( cnLoader* L, const cJSON* shapes, cnBodyType bodyType )
{
    cnPushKey( L, "shapes" );
    int index = 0;
    const cJSON* shape = NULL;
    cJSON_ArrayForEach( shape, shapes )
    {
        cnPushIndex( L, index );
        cnShapeDef shapeDef;
        cnGeometry geometry;
        if ( cnReadShape( L, shape, bodyType, &shapeDef, &geometry ) == false )
        {
            return false;
        }
        cnPop( L );
        index += 1;
    }
    cnPop( L );
    return true;
}

// Pass 2: the shapes of body `item` on `bodyId`, in order. False when one is refused: by the
// reader (L->failed), or by the engine (not failed); the path is left at that shape.
static bool cnCreateShapes( cnLoader* L, cnBodyId bodyId, const cJSON* item, cnBodyType bodyType )
{
    cnPushKey( L, "shapes" );
    int index = 0;
    const cJSON* shape = NULL;
    cJSON_ArrayForEach( shape, cJSON_GetObjectItemCaseSensitive( item, "shapes" ) )
    {
        cnPushIndex( L, index );
        cnShapeDef shapeDef;
        cnGeometry geometry;
        if ( cnReadShape( L, shape, bodyType, &shapeDef, &geometry ) == false ||
             CN_IS_NULL( cnCreateShape( bodyId, &shapeDef, &geometry ) ) )
        {
            return false;
        }
        cnPop( L );
        index += 1;
    }
    cnPop( L );
    return true;
}

static bool cnCheckMobility( cnLoader* L, const cJSON* item, cnMat3* out )
{
    const char* what = "a positive number, an array of 3 positive numbers or 3 rows of 3 numbers";
    if ( cJSON_IsNumber( item ) )
    {
        double value = 0.0;
        if ( cnCheckNumber( L, item, cn_positiveNumber, &value ) == false )
        {
            return false;
        }
        *out = cnMakeMat3Diagonal( value, value, value );
        return true;
    }
    if ( cJSON_IsArray( item ) == false || cJSON_GetArraySize( item ) != 3 )
    {
        return cnFailExpected( L, what, item );
    }
    if ( cJSON_IsArray( item->child ) == false )
    {
        cnVec3 diagonal = cn_vec3Zero;
        if ( cnCheckVec3( L, item, cn_positiveNumber, &diagonal ) == false )
        {
            return false;
        }
        *out = cnMakeMat3Diagonal( diagonal.x, diagonal.y, diagonal.z );
        return true;
    }

    double m[3][3];
    int row = 0;
    const cJSON* rowItem = NULL;
    cJSON_ArrayForEach( rowItem, item )
    {
        cnPushIndex( L, row );
        if ( cnCheckNumbers( L, rowItem, 3, cn_anyNumber, "a row of 3 numbers", m[row] ) == false )
        {
            return false;
        }
        cnPop( L );
        row += 1;
    }
    double largest = 0.0;
    for ( int i = 0; i < 3; ++i )
    {
        for ( int j = 0; j < 3; ++j )
        {
            largest = fmax( largest, fabs( m[i][j] ) );
        }
    }
    bool symmetric = true;
    for ( int i = 0; i < 3; ++i )
    {
        for ( int j = 0; j < i; ++j )
        {
            symmetric = symmetric && fabs( m[i][j] - m[j][i] ) <= 1e-12 * largest;
        }
    }
    // Sylvester's criterion
    double minor2 = m[0][0] * m[1][1] - m[0][1] * m[1][0];
    double det = m[0][0] * ( m[1][1] * m[2][2] - m[1][2] * m[2][1] ) -
                 m[0][1] * ( m[1][0] * m[2][2] - m[1][2] * m[2][0] ) +
                 m[0][2] * ( m[1][0] * m[2][1] - m[1][1] * m[2][0] );
    if ( symmetric == false || m[0][0] <= 0.0 || minor2 <= 0.0 || det <= 0.0 )
    {
        return cnFail( L, cn_statusSchemaError, "expected a symmetric positive-definite matrix" );
    }
    // rows in the file, columns in cnMat3 (the same matrix, as it is symmetric)
    out->cx = cnMakeVec3( m[0][0], m[1][0], m[2][0] );
    out->cy = cnMakeVec3( m[0][1], m[1][1], m[2][1] );
    out->cz = cnMakeVec3( m[0][2], m[1][2], m[2][2] );
    return true;
}

static bool cnReadMobility( cnLoader* L, const cJSON* item, cnBodyDef* def )
{
    if ( cnExpectObject( L, item ) == false )
    {
        return false;
    }
    cnWarnUnknownKeys( L, item, cn_mobilityKeys, CN_COUNT( cn_mobilityKeys ), NULL );
    const cJSON* linear = cnMember( L, item, "linear", true );
    const cJSON* angular = linear != NULL ? cnMember( L, item, "angular", true ) : NULL;
    if ( linear == NULL || angular == NULL )
    {
        return false;
    }
    cnPushKey( L, "linear" );
    if ( cnCheckMobility( L, linear, &def->linearMobility ) == false )
    {
        return false;
    }
    cnPop( L );
    cnPushKey( L, "angular" );
    if ( cnCheckMobility( L, angular, &def->angularMobility ) == false )
    {
        return false;
    }
    cnPop( L );
    def->customMobility = true;
    return true;
}

// Body `item` into `def`, without its shapes. `def->name` points into the tree.
static bool cnReadBody( cnLoader* L, const cJSON* item, cnBodyDef* def )
{
    if ( cnExpectObject( L, item ) == false )
    {
        return false;
    }
    cnWarnUnknownKeys( L, item, cn_bodyKeys, CN_COUNT( cn_bodyKeys ), NULL );

    const cJSON* name = cnMember( L, item, "name", false );
    if ( name != NULL )
    {
        cnPushKey( L, "name" );
        if ( cnCheckString( L, name, &def->name ) == false )
        {
            return false;
        }
        size_t length = strlen( def->name );
        if ( length == 0 || length >= CN_NAME_CAPACITY )
        {
            char expected[64];
            cnFormat( expected, (int)sizeof( expected ), "a name of 1 to %d bytes", CN_NAME_CAPACITY - 1 );
            return cnFailExpected( L, expected, name );
        }
        cnPop( L );
    }

    int type = (int)def->type;
    if ( cnReadChoiceMember( L, item, "type", false, cn_bodyTypeNames, CN_COUNT( cn_bodyTypeNames ),
                             "body type", &type ) == false )
    {
        return false;
    }
    def->type = (cnBodyType)type;

    if ( cnReadVec3Member( L, item, "position", false, cn_anyNumber, &def->position ) == false ||
         cnReadQuatMember( L, item, "orientation", &def->orientation ) == false ||
         cnReadVec3Member( L, item, "linear_velocity", false, cn_anyNumber, &def->linearVelocity ) == false ||
         cnReadVec3Member( L, item, "angular_velocity", false, cn_anyNumber, &def->angularVelocity ) ==
             false ||
         cnReadNumberMember( L, item, "linear_damping", false, cn_nonNegativeNumber, &def->linearDamping ) ==
             false ||
         cnReadNumberMember( L, item, "angular_damping", false, cn_nonNegativeNumber,
                             &def->angularDamping ) == false ||
         cnReadNumberMember( L, item, "gravity_scale", false, cn_anyNumber, &def->gravityScale ) == false ||
         cnReadVec3Member( L, item, "force", false, cn_anyNumber, &def->constantForce ) == false ||
         cnReadVec3Member( L, item, "torque", false, cn_anyNumber, &def->constantTorque ) == false )
    {
        return false;
    }

    const cJSON* fixedRotation = cnMember( L, item, "fixed_rotation", false );
    if ( fixedRotation != NULL )
    {
        cnPushKey( L, "fixed_rotation" );
        if ( cnCheckBool( L, fixedRotation, &def->fixedRotation ) == false )
        {
            return false;
        }
        cnPop( L );
    }
    cnVec3 spin = def->angularVelocity;
    if ( def->fixedRotation && def->type == cn_dynamicBody &&
         ( spin.x != 0.0 || spin.y != 0.0 || spin.z != 0.0 ) )
    {
        char x[32];
        char y[32];
        char z[32];
        cnFormatNumber( x, (int)sizeof( x ), spin.x );
        cnFormatNumber( y, (int)sizeof( y ), spin.y );
        cnFormatNumber( z, (int)sizeof( z ), spin.z );
        cnPushKey( L, "angular_velocity" );
        return cnFail( L, cn_statusSchemaError,
                       "a body with fixed_rotation cannot spin: expected [0, 0, 0], got [%s, %s, %s]", x, y,
                       z );
    }

    const cJSON* mobility = cnMember( L, item, "mobility", false );
    if ( mobility != NULL )
    {
        cnPushKey( L, "mobility" );
        if ( cnReadMobility( L, mobility, def ) == false )
        {
            return false;
        }
        cnPop( L );
    }

    const cJSON* shapes = cnMember( L, item, "shapes", false );
    if ( shapes != NULL && cJSON_IsArray( shapes ) == false )
    {
        cnPushKey( L, "shapes" );
        return cnFailExpected( L, "an array of shapes", shapes );
    }
    return true;
}

// FNV-1a
static size_t cnHashName( const char* name )
{
    uint64_t hash = UINT64_C( 14695981039346656037 );
    for ( const unsigned char* c = (const unsigned char*)name; *c != 0; ++c )
    {
        hash ^= *c;
        hash *= UINT64_C( 1099511628211 );
    }
    return (size_t)hash;
}

// Remember body `body`'s name; the index of an earlier body with the same name, or -1.
static int cnAddName( cnLoader* L, const char* name, int body )
{
    size_t mask = L->nameCapacity - 1;
    size_t slot = cnHashName( name ) & mask;
    while ( L->names[slot].name != NULL )
    {
        if ( strcmp( L->names[slot].name, name ) == 0 )
        {
            return L->names[slot].body;
        }
        slot = ( slot + 1 ) & mask;
    }
    L->names[slot].name = name;
    L->names[slot].body = body;
    return -1;
}

// The index of the body named `name`, or -1.
static int cnFindName( const cnLoader* L, const char* name )
{
    size_t mask = L->nameCapacity - 1;
    size_t slot = cnHashName( name ) & mask;
    while ( L->names[slot].name != NULL )
    {
        if ( strcmp( L->names[slot].name, name ) == 0 )
        {
            return L->names[slot].body;
        }
        slot = ( slot + 1 ) & mask;
    }
    return -1;
}

// ---------------------------------------------------------------------------------------------
// Generators: one entry of "generators" stands for many bodies, all copies of a template body
// placed by scene_generate.c. Read the same way in both passes, so pass 2 makes exactly the
// bodies pass 1 checked and counted.

// in cnGeneratorType order
static const char* const cn_generatorNames[] = { "pyramid", "grid", "random_pile", "ring_lattice",
                                                 "colony_seed" };
static const char* const cn_generatorKeys[cn_generatorTypeCount][10] = {
    { "type", "name", "body", "rows", "spacing", "origin" },
    { "type", "name", "body", "count", "spacing", "origin", "jitter", "seed" },
    { "type", "name", "body", "bodies", "count", "region", "spacing", "jitter", "seed",
      "random_orientation" },
    { "type", "name", "body", "rows", "columns", "origin", "orientation", "pinned" },
    { "type", "name", "body", "count", "origin", "spacing", "seed" },
};
static const int cn_generatorKeyCounts[cn_generatorTypeCount] = { 6, 8, 10, 8, 7 };
static const char* const cn_regionKeys[] = { "min", "max" };

// The longest generated name: the prefix, "_" and up to 9 digits.
#define CN_GENERATED_SUFFIX 10

typedef struct cnGenerator
{
    cnGeneratorParams params;
    const char* prefix;
    // the template bodies ("body", or the pile's "bodies"), used in turn
    const cJSON* templates[CN_SMALL_OBJECT];
    const char* templateKey;
    // "bodies": the templates are an array (paths get an index)
    bool templateArray;
    int templateCount;
    // ring lattice: rings made static, as (row, column) pairs
    const cJSON* pinned;
    int count;
} cnGenerator;

// A seed: an integer in [0, 2^53].
static bool cnCheckSeed( cnLoader* L, const cJSON* item, uint64_t* out )
{
    if ( cJSON_IsNumber( item ) == false || item->valuedouble < 0.0 ||
         item->valuedouble > 9007199254740992.0 || floor( item->valuedouble ) != item->valuedouble )
    {
        return cnFailExpected( L, "a non-negative integer seed", item );
    }
    *out = (uint64_t)item->valuedouble;
    return true;
}

// A template body: a body without name or position (the generator sets them), with its shapes.
static bool cnCheckTemplate( cnLoader* L, const cJSON* item, cnBodyDef* def )
{
    if ( cnReadBody( L, item, def ) == false )
    {
        return false;
    }
    static const char* const placed[] = { "name", "position" };
    for ( int i = 0; i < CN_COUNT( placed ); ++i )
    {
        if ( cJSON_GetObjectItemCaseSensitive( item, placed[i] ) != NULL )
        {
            cnPushKey( L, placed[i] );
            return cnFail( L, cn_statusSchemaError,
                           "a template body has no %s: the generator sets it (see \"name\" and \"origin\")",
                           placed[i] );
        }
    }
    const cJSON* shapes = cnMember( L, item, "shapes", true );
    if ( shapes == NULL )
    {
        return false;
    }
    if ( cJSON_GetArraySize( shapes ) == 0 )
    {
        cnPushKey( L, "shapes" );
        return cnFail( L, cn_statusSchemaError, "a template body needs at least one shape" );
    }
    return cnCheckShapes( L, shapes, def->type );
}

// The first shape of the (checked) template must be of type `type`; its geometry.
static bool cnTemplateShape( cnLoader* L, cnGenerator* g, cnShapeType type, cnGeometry* geometry )
{
    const cJSON* shape =
        cJSON_GetArrayItem( cJSON_GetObjectItemCaseSensitive( g->templates[0], "shapes" ), 0 );
    cnBodyDef def = cnDefaultBodyDef();
    cnShapeDef shapeDef;
    cnPushKey( L, g->templateKey );
    cnPushKey( L, "shapes" );
    cnPushIndex( L, 0 );
    if ( cnReadBody( L, g->templates[0], &def ) == false ||
         cnReadShape( L, shape, def.type, &shapeDef, geometry ) == false )
    {
        return false;
    }
    if ( geometry->type != type )
    {
        return cnFail(
            L, cn_statusSchemaError, "a %s generator's body must have a %s as its first shape, not a %s",
            cn_generatorNames[g->params.type], cn_shapeTypeNames[type], cn_shapeTypeNames[geometry->type] );
    }
    cnPop( L );
    cnPop( L );
    cnPop( L );
    return true;
}

static bool cnReadRegion( cnLoader* L, const cJSON* object, cnGeneratorParams* params )
{
    const cJSON* region = cnMember( L, object, "region", true );
    if ( region == NULL )
    {
        return false;
    }
    cnPushKey( L, "region" );
    if ( cnExpectObject( L, region ) == false )
    {
        return false;
    }
    cnWarnUnknownKeys( L, region, cn_regionKeys, CN_COUNT( cn_regionKeys ), "a region" );
    if ( cnReadVec3Member( L, region, "min", true, cn_anyNumber, &params->regionMin ) == false ||
         cnReadVec3Member( L, region, "max", true, cn_anyNumber, &params->regionMax ) == false )
    {
        return false;
    }
    if ( params->regionMax.x < params->regionMin.x || params->regionMax.y < params->regionMin.y ||
         params->regionMax.z < params->regionMin.z )
    {
        cnPushKey( L, "max" );
        return cnFail( L, cn_statusSchemaError, "expected max >= min on every axis" );
    }
    cnPop( L );
    return true;
}

// "pinned": [[row, column], ...] inside the lattice.
static bool cnCheckPinned( cnLoader* L, const cJSON* pinned, int rows, int columns )
{
    cnPushKey( L, "pinned" );
    if ( cJSON_IsArray( pinned ) == false )
    {
        return cnFailExpected( L, "an array of [row, column] pairs", pinned );
    }
    int index = 0;
    const cJSON* pair = NULL;
    cJSON_ArrayForEach( pair, pinned )
    {
        cnPushIndex( L, index );
        double rc[2] = { 0.0, 0.0 };
        if ( cnCheckNumbers( L, pair, 2, cn_nonNegativeNumber, "a [row, column] pair", rc ) == false )
        {
            return false;
        }
        if ( floor( rc[0] ) != rc[0] || floor( rc[1] ) != rc[1] || rc[0] >= rows || rc[1] >= columns )
        {
            char expected[96];
            cnFormat( expected, (int)sizeof( expected ), "a [row, column] pair in [0, %d) x [0, %d)", rows,
                      columns );
            return cnFailExpected( L, expected, pair );
        }
        cnPop( L );
        index += 1;
    }
    cnPop( L );
    return true;
}

// Read (and in pass 1 check) generator `item` into `g`.
static bool cnReadGenerator( cnLoader* L, const cJSON* item, cnGenerator* g )
{
    memset( g, 0, sizeof( *g ) );
    if ( cnExpectObject( L, item ) == false )
    {
        return false;
    }
    int type = 0;
    if ( cnReadChoiceMember( L, item, "type", true, cn_generatorNames, CN_COUNT( cn_generatorNames ),
                             "generator", &type ) == false )
    {
        return false;
    }
    cnWarnUnknownKeys( L, item, cn_generatorKeys[type], cn_generatorKeyCounts[type],
                       cn_generatorNames[type] );

    cnGeneratorParams* p = &g->params;
    p->type = (cnGeneratorType)type;
    p->orientation = cnMakeQuat( 1.0, 0.0, 0.0, 0.0 );
    p->seed = 1;
    p->randomOrientation = true;
    p->count[0] = p->count[1] = p->count[2] = 1;

    const cJSON* name = cnMember( L, item, "name", false );
    if ( name != NULL )
    {
        cnPushKey( L, "name" );
        if ( cnCheckString( L, name, &g->prefix ) == false )
        {
            return false;
        }
        size_t length = strlen( g->prefix );
        if ( length == 0 || length + CN_GENERATED_SUFFIX >= CN_NAME_CAPACITY )
        {
            char expected[64];
            cnFormat( expected, (int)sizeof( expected ), "a name prefix of 1 to %d bytes",
                      CN_NAME_CAPACITY - 1 - CN_GENERATED_SUFFIX );
            return cnFailExpected( L, expected, name );
        }
        cnPop( L );
    }

    // the template(s)
    const cJSON* bodies = p->type == cn_generateRandomPile ? cnMember( L, item, "bodies", false ) : NULL;
    if ( bodies != NULL )
    {
        cnPushKey( L, "bodies" );
        if ( cJSON_IsArray( bodies ) == false || cJSON_GetArraySize( bodies ) < 1 ||
             cJSON_GetArraySize( bodies ) > CN_SMALL_OBJECT ||
             cJSON_GetObjectItemCaseSensitive( item, "body" ) != NULL )
        {
            return cnFailExpected( L, "an array of 1 to 16 template bodies (and no \"body\")", bodies );
        }
        cnPop( L );
        g->templateKey = "bodies";
        g->templateArray = true;
    }
    else
    {
        const cJSON* body = cnMember( L, item, "body", true );
        if ( body == NULL )
        {
            return false;
        }
        g->templates[0] = body;
        g->templateCount = 1;
        g->templateKey = "body";
    }
    if ( L->pass == 1 )
    {
        cnPushKey( L, g->templateKey );
        int index = 0;
        const cJSON* body = NULL;
        cJSON_ArrayForEach( body, bodies )
        {
            cnPushIndex( L, index );
            cnBodyDef def = cnDefaultBodyDef();
            if ( cnCheckTemplate( L, body, &def ) == false )
            {
                return false;
            }
            cnPop( L );
            index += 1;
        }
        if ( bodies == NULL )
        {
            cnBodyDef def = cnDefaultBodyDef();
            if ( cnCheckTemplate( L, g->templates[0], &def ) == false )
            {
                return false;
            }
        }
        cnPop( L );
    }
    if ( bodies != NULL )
    {
        const cJSON* body = NULL;
        cJSON_ArrayForEach( body, bodies )
        {
            g->templates[g->templateCount++] = body;
        }
    }

    bool ok = true;
    switch ( p->type )
    {
        case cn_generatePyramid:
        {
            double pitch[2] = { 1.0, 1.0 };
            const cJSON* spacing = cnMember( L, item, "spacing", true );
            ok = cnReadIntegerMember( L, item, "rows", true, &p->rows ) && spacing != NULL;
            if ( ok )
            {
                cnPushKey( L, "spacing" );
                ok = cnCheckNumbers( L, spacing, 2, cn_positiveNumber,
                                     "[x pitch, z pitch] (2 positive numbers)", pitch );
                cnPop( L );
            }
            p->spacing = cnMakeVec3( pitch[0], 0.0, pitch[1] );
            ok = ok && cnReadVec3Member( L, item, "origin", false, cn_anyNumber, &p->origin );
            break;
        }
        case cn_generateGrid:
        {
            double counts[3] = { 1.0, 1.0, 1.0 };
            const cJSON* countItem = cnMember( L, item, "count", true );
            ok = countItem != NULL;
            if ( ok )
            {
                cnPushKey( L, "count" );
                ok = cnCheckNumbers( L, countItem, 3, cn_positiveNumber, "[nx, ny, nz] (3 positive integers)",
                                     counts );
                for ( int i = 0; ok && i < 3; ++i )
                {
                    if ( floor( counts[i] ) != counts[i] || counts[i] > (double)INT_MAX )
                    {
                        ok = cnFailExpected( L, "[nx, ny, nz] (3 positive integers)", countItem );
                    }
                    p->count[i] = ok ? (int)counts[i] : 1;
                }
                cnPop( L );
            }
            const cJSON* seed = ok ? cnMember( L, item, "seed", false ) : NULL;
            if ( seed != NULL )
            {
                cnPushKey( L, "seed" );
                ok = cnCheckSeed( L, seed, &p->seed );
                cnPop( L );
            }
            ok = ok && cnReadVec3Member( L, item, "spacing", true, cn_positiveNumber, &p->spacing ) &&
                 cnReadVec3Member( L, item, "origin", false, cn_anyNumber, &p->origin ) &&
                 cnReadNumberMember( L, item, "jitter", false, cn_nonNegativeNumber, &p->jitter );
            break;
        }
        case cn_generateRandomPile:
        {
            ok = cnReadIntegerMember( L, item, "count", true, &p->count[0] ) && cnReadRegion( L, item, p ) &&
                 cnReadNumberMember( L, item, "spacing", true, cn_positiveNumber, &p->spacing.x ) &&
                 cnReadNumberMember( L, item, "jitter", false, cn_nonNegativeNumber, &p->jitter );
            const cJSON* seed = ok ? cnMember( L, item, "seed", false ) : NULL;
            if ( seed != NULL )
            {
                cnPushKey( L, "seed" );
                ok = cnCheckSeed( L, seed, &p->seed );
                cnPop( L );
            }
            const cJSON* random = ok ? cnMember( L, item, "random_orientation", false ) : NULL;
            if ( random != NULL )
            {
                cnPushKey( L, "random_orientation" );
                ok = cnCheckBool( L, random, &p->randomOrientation );
                cnPop( L );
            }
            break;
        }
        case cn_generateRingLattice:
        {
            cnGeometry torus;
            ok = cnReadIntegerMember( L, item, "rows", true, &p->rows ) &&
                 cnReadIntegerMember( L, item, "columns", true, &p->columns ) &&
                 cnReadVec3Member( L, item, "origin", false, cn_anyNumber, &p->origin ) &&
                 cnReadQuatMember( L, item, "orientation", &p->orientation ) &&
                 cnTemplateShape( L, g, cn_torusShape, &torus );
            if ( ok )
            {
                p->majorRadius = torus.torus.majorRadius;
                p->minorRadius = torus.torus.minorRadius;
            }
            g->pinned = ok ? cnMember( L, item, "pinned", false ) : NULL;
            if ( g->pinned != NULL )
            {
                ok = cnCheckPinned( L, g->pinned, p->rows, p->columns );
            }
            break;
        }
        case cn_generateColonySeed:
        {
            cnGeometry capsule;
            ok = cnTemplateShape( L, g, cn_capsuleShape, &capsule ) &&
                 cnReadVec3Member( L, item, "origin", false, cn_anyNumber, &p->origin );
            const cJSON* count = ok ? cnMember( L, item, "count", false ) : NULL;
            if ( count != NULL )
            {
                ok = cnReadIntegerMember( L, item, "count", true, &p->count[0] );
            }
            // default pitch: a cell's length and a diameter of gap
            p->spacing.x = ok ? 2.0 * capsule.capsule.halfLength + 4.0 * capsule.capsule.radius : 1.0;
            ok = ok && cnReadNumberMember( L, item, "spacing", false, cn_positiveNumber, &p->spacing.x );
            const cJSON* seed = ok ? cnMember( L, item, "seed", false ) : NULL;
            if ( seed != NULL )
            {
                cnPushKey( L, "seed" );
                ok = cnCheckSeed( L, seed, &p->seed );
                cnPop( L );
            }
            break;
        }
        default:
            break;
    }
    if ( ok == false )
    {
        return false;
    }

    char message[200];
    g->count = cnGeneratorCount( p, message, (int)sizeof( message ) );
    if ( g->count < 0 )
    {
        return cnFail( L, cn_statusSchemaError, "%s", message );
    }
    return true;
}

// Is ring `index` of generator `g` pinned?
static bool cnIsPinned( const cnGenerator* g, int index )
{
    const cJSON* pair = NULL;
    cJSON_ArrayForEach( pair, g->pinned )
    {
        int row = (int)cJSON_GetArrayItem( pair, 0 )->valuedouble;
        int column = (int)cJSON_GetArrayItem( pair, 1 )->valuedouble;
        if ( row * g->params.columns + column == index )
        {
            return true;
        }
    }
    return false;
}

// The name of generated body `index` ("" when the generator has no name).
static void cnGeneratedName( const cnGenerator* g, int index, char* buffer, int size )
{
    buffer[0] = 0;
    if ( g->prefix != NULL )
    {
        cnFormat( buffer, size, "%s_%d", g->prefix, index );
    }
}

// Pass 1 for "generators": check each, count its bodies, and keep generated names apart from
// the bodies' names and from each other (a prefix used twice would repeat names).
static bool cnCheckGenerators( cnLoader* L, const cJSON* generators, int* bodyCount )
{
    cnPushKey( L, "generators" );
    if ( cJSON_IsArray( generators ) == false )
    {
        return cnFailExpected( L, "an array of generators", generators );
    }
    int index = 0;
    const cJSON* item = NULL;
    cJSON_ArrayForEach( item, generators )
    {
        cnPushIndex( L, index );
        cnGenerator g;
        if ( cnReadGenerator( L, item, &g ) == false )
        {
            return false;
        }
        if ( (double)*bodyCount + g.count > (double)INT_MAX / 2 )
        {
            return cnFail( L, cn_statusSchemaError, "too many bodies" );
        }
        *bodyCount += g.count;
        if ( g.prefix != NULL )
        {
            cnPushKey( L, "name" );
            // earlier generators' prefixes
            int other = 0;
            const cJSON* earlier = NULL;
            cJSON_ArrayForEach( earlier, generators )
            {
                if ( other == index )
                {
                    break;
                }
                const cJSON* name = cJSON_GetObjectItemCaseSensitive( earlier, "name" );
                if ( cJSON_IsString( name ) && strcmp( name->valuestring, g.prefix ) == 0 )
                {
                    return cnFail( L, cn_statusSchemaError, "generators[%d] has the same name prefix",
                                   other );
                }
                other += 1;
            }
            // the bodies' names: a generated name must not be one of them
            for ( int k = 0; k < g.count; ++k )
            {
                char generated[CN_NAME_CAPACITY];
                cnGeneratedName( &g, k, generated, (int)sizeof( generated ) );
                int body = cnFindName( L, generated );
                if ( body >= 0 )
                {
                    return cnFail( L, cn_statusSchemaError, "generated name \"%s\" is also bodies[%d].name",
                                   generated, body );
                }
            }
            cnPop( L );
        }
        cnPop( L );
        index += 1;
    }
    cnPop( L );
    return true;
}

// Pass 2 for one generator: its bodies, each from its template at its generated pose.
static bool cnCreateGenerated( cnLoader* L, cnWorldId world, const cJSON* item )
{
    cnGenerator g;
    if ( cnReadGenerator( L, item, &g ) == false )
    {
        return false;
    }
    cnTransform* poses =
        cnAllocArray( &L->allocator, (size_t)( g.count > 0 ? g.count : 1 ), sizeof( cnTransform ) );
    if ( poses == NULL )
    {
        return cnFailOutOfMemory( L );
    }
    char message[200];
    bool ok = cnGeneratePoses( &g.params, poses, message, (int)sizeof( message ) );
    if ( ok == false )
    {
        cnFail( L, cn_statusSchemaError, "%s", message );
    }
    for ( int k = 0; ok && k < g.count; ++k )
    {
        int which = k % g.templateCount;
        const cJSON* body = g.templates[which];
        cnPushKey( L, g.templateKey );
        if ( g.templateArray )
        {
            cnPushIndex( L, which );
        }
        cnBodyDef def = cnDefaultBodyDef();
        char name[CN_NAME_CAPACITY];
        cnGeneratedName( &g, k, name, (int)sizeof( name ) );
        ok = cnReadBody( L, body, &def );
        def.name = name[0] != 0 ? name : NULL;
        def.position = poses[k].p;
        def.orientation = cnNormalizeQuat( cnMulQuat( poses[k].q, def.orientation ) );
        if ( g.pinned != NULL && cnIsPinned( &g, k ) )
        {
            def.type = cn_staticBody;
        }
        cnBodyId bodyId = ok ? cnCreateBody( world, &def ) : cn_nullBodyId;
        ok = ok && CN_IS_NON_NULL( bodyId );
        ok = ok && cnCreateShapes( L, bodyId, body, def.type );
        if ( ok == false && L->failed == false )
        {
            cnFail( L, cn_statusSchemaError, "the engine refused generated body %d (see its log)", k );
        }
        if ( ok )
        {
            L->depth -= g.templateArray ? 2 : 1;
        }
    }
    cnFree( &L->allocator, poses, (size_t)( g.count > 0 ? g.count : 1 ) * sizeof( cnTransform ) );
    return ok;
}

// ---------------------------------------------------------------------------------------------
// Systems: the application's, named in "systems" and set up by handlers from the options.

static const cnSceneSystem* cnFindSystemHandler( const cnLoader* L, const char* name )
{
    for ( int i = 0; i < L->options->systemCount; ++i )
    {
        const cnSceneSystem* handler = L->options->systems + i;
        if ( handler->name != NULL && handler->fcn != NULL && strcmp( handler->name, name ) == 0 )
        {
            return handler;
        }
    }
    return NULL;
}

static bool cnCheckSystems( cnLoader* L, const cJSON* systems )
{
    cnPushKey( L, "systems" );
    if ( cJSON_IsObject( systems ) == false )
    {
        return cnFailExpected( L, "an object from system names to their settings", systems );
    }
    const cJSON* entry = NULL;
    cJSON_ArrayForEach( entry, systems )
    {
        if ( cnFindSystemHandler( L, entry->string ) == NULL )
        {
            cnPushKey( L, entry->string );
            cnWarn( L, "this program has no handler for system \"%s\" (skipped)", entry->string );
            cnPop( L );
        }
    }
    cnPop( L );
    return true;
}

static bool cnStartSystems( cnLoader* L, cnWorldId world, const cJSON* systems )
{
    cnPushKey( L, "systems" );
    const cJSON* entry = NULL;
    cJSON_ArrayForEach( entry, systems )
    {
        const cnSceneSystem* handler = cnFindSystemHandler( L, entry->string );
        if ( handler == NULL )
        {
            continue;
        }
        cnPushKey( L, entry->string );
        char* config = cJSON_PrintUnformatted( entry );
        if ( config == NULL )
        {
            return cnFailOutOfMemory( L );
        }
        char message[256] = "";
        cnStatus status = handler->fcn( world, config, handler->context, message, (int)sizeof( message ) );
        cJSON_free( config );
        if ( status != cn_statusOk )
        {
            return cnFail( L, status == cn_statusOutOfMemory ? cn_statusOutOfMemory : cn_statusSchemaError,
                           "%s", message[0] != 0 ? message : "the system's handler refused these settings" );
        }
        cnPop( L );
    }
    cnPop( L );
    return true;
}

// Pass 1: everything checked, nothing created. Fills the world def and counts the bodies.
// ---------------------------------------------------------------------------------------------
// Joints: the "joints" array, each joining two bodies of "bodies" by name (cairn/joint.h). Read
// the same way in both passes; pass 1 checks, pass 2 creates them once every body exists.

// in cnJointType order
static const char* const cn_jointTypeNames[] = { "ball", "hinge", "fixed", "distance", "prismatic" };
static const char* const cn_jointKeys[cn_jointTypeCount][11] = {
    { "type", "body_a", "body_b", "local_anchor_a", "local_anchor_b", "collide_connected" },
    { "type", "body_a", "body_b", "local_anchor_a", "local_anchor_b", "collide_connected", "local_axis_a",
      "limit", "motor" },
    { "type", "body_a", "body_b", "local_anchor_a", "local_anchor_b", "collide_connected" },
    { "type", "body_a", "body_b", "local_anchor_a", "local_anchor_b", "collide_connected", "length", "limit",
      "spring" },
    { "type", "body_a", "body_b", "local_anchor_a", "local_anchor_b", "collide_connected", "local_axis_a",
      "limit", "motor" },
};
static const int cn_jointKeyCounts[cn_jointTypeCount] = { 6, 9, 6, 9, 9 };
static const char* const cn_hingeLimitKeys[] = { "lower", "upper" };
static const char* const cn_distanceLimitKeys[] = { "min", "max" };
static const char* const cn_motorKeys[] = { "speed", "max_torque" };
static const char* const cn_prismaticMotorKeys[] = { "speed", "max_force" };
static const char* const cn_springKeys[] = { "hertz", "damping_ratio" };

// One joint as the file gives it: the bodies by their index in "bodies".
typedef struct cnJointSpec
{
    int type; // cnJointType
    int bodyA;
    int bodyB;
    cnVec3 anchorA;
    cnVec3 anchorB;
    cnVec3 axis;
    bool collideConnected;
    bool limit;
    double lower; // hinge: angles; distance: lengths
    double upper;
    bool motor;
    double speed;
    double torque;
    double length;
    bool spring;
    double hertz;
    double dampingRatio;
} cnJointSpec;

// A body by name ("body_a" or "body_b"): its index in "bodies".
static bool cnReadJointBody( cnLoader* L, const cJSON* item, const char* key, int* out )
{
    const cJSON* member = cnMember( L, item, key, true );
    if ( member == NULL )
    {
        return false;
    }
    cnPushKey( L, key );
    const char* name = NULL;
    if ( cnCheckString( L, member, &name ) == false )
    {
        return false;
    }
    int body = cnFindName( L, name );
    if ( body < 0 )
    {
        char shown[96];
        cnText quoted = cnMakeText( shown, sizeof( shown ) );
        cnAppendQuoted( &quoted, name, strlen( name ), CN_QUOTE_LIMIT );
        cnFinishText( &quoted );
        return cnFail( L, cn_statusSchemaError, "no body is named %s", shown );
    }
    cnPop( L );
    *out = body;
    return true;
}

// the type a body of "bodies" is given ("dynamic" when none)
static bool cnBodyIsDynamic( const cJSON* bodies, int index )
{
    const cJSON* type = cJSON_GetObjectItemCaseSensitive( cJSON_GetArrayItem( bodies, index ), "type" );
    return cJSON_IsString( type ) == false || strcmp( type->valuestring, "dynamic" ) == 0;
}

// An optional object member of a joint (limit, motor, spring): its two numbers.
static bool cnReadJointPair( cnLoader* L, const cJSON* item, const char* key, const char* const* keys,
                             cnNumberRule rules[2], const char* context, bool* present, double* first,
                             double* second )
{
    const cJSON* member = cnMember( L, item, key, false );
    *present = member != NULL;
    if ( member == NULL )
    {
        return true;
    }
    cnPushKey( L, key );
    if ( cnExpectObject( L, member ) == false )
    {
        return false;
    }
    cnWarnUnknownKeys( L, member, keys, 2, context );
    if ( cnReadNumberMember( L, member, keys[0], false, rules[0], first ) == false ||
         cnReadNumberMember( L, member, keys[1], false, rules[1], second ) == false )
    {
        return false;
    }
    cnPop( L );
    return true;
}

static bool cnReadJoint( cnLoader* L, const cJSON* item, const cJSON* bodies, cnJointSpec* spec )
{
    if ( cnExpectObject( L, item ) == false )
    {
        return false;
    }
    memset( spec, 0, sizeof( *spec ) );
    spec->type = -1;
    if ( cnReadChoiceMember( L, item, "type", true, cn_jointTypeNames, cn_jointTypeCount, "joint type",
                             &spec->type ) == false )
    {
        return false;
    }
    static const char* const contexts[cn_jointTypeCount] = { "a ball joint", "a hinge joint", "a fixed joint",
                                                             "a distance joint", "a prismatic joint" };
    cnWarnUnknownKeys( L, item, cn_jointKeys[spec->type], cn_jointKeyCounts[spec->type],
                       contexts[spec->type] );
    if ( cnReadJointBody( L, item, "body_a", &spec->bodyA ) == false ||
         cnReadJointBody( L, item, "body_b", &spec->bodyB ) == false )
    {
        return false;
    }
    if ( spec->bodyA == spec->bodyB )
    {
        cnPushKey( L, "body_b" );
        return cnFail( L, cn_statusSchemaError, "the same body as body_a" );
    }
    if ( cnBodyIsDynamic( bodies, spec->bodyA ) == false && cnBodyIsDynamic( bodies, spec->bodyB ) == false )
    {
        cnPushKey( L, "body_b" );
        return cnFail( L, cn_statusSchemaError,
                       "neither body_a nor body_b is dynamic: the joint would hold nothing" );
    }
    spec->axis = cnMakeVec3( 0.0, 0.0, 1.0 );
    spec->length = 1.0;
    spec->upper = spec->type == cn_hingeJoint ? 0.25 * CN_PI : spec->type == cn_prismaticJoint ? 1.0 : 1e9;
    spec->lower = spec->type == cn_hingeJoint ? -0.25 * CN_PI : spec->type == cn_prismaticJoint ? -1.0 : 0.0;
    if ( spec->type == cn_prismaticJoint )
    {
        spec->axis = cnMakeVec3( 1.0, 0.0, 0.0 );
        if ( cnReadVec3Member( L, item, "local_axis_a", false, cn_anyNumber, &spec->axis ) == false )
        {
            return false;
        }
        if ( !( cnLength( spec->axis ) > 1e-9 ) )
        {
            cnPushKey( L, "local_axis_a" );
            return cnFail( L, cn_statusSchemaError, "expected a non-zero axis, got [0, 0, 0]" );
        }
        cnNumberRule lengths[2] = { cn_anyNumber, cn_anyNumber };
        cnNumberRule motor[2] = { cn_anyNumber, cn_nonNegativeNumber };
        if ( cnReadJointPair( L, item, "limit", cn_hingeLimitKeys, lengths, "a prismatic limit", &spec->limit,
                              &spec->lower, &spec->upper ) == false ||
             cnReadJointPair( L, item, "motor", cn_prismaticMotorKeys, motor, "a prismatic motor",
                              &spec->motor, &spec->speed, &spec->torque ) == false )
        {
            return false;
        }
        if ( spec->limit && !( spec->lower <= spec->upper ) )
        {
            char lower[64];
            char upper[64];
            cnFormatNumber( lower, (int)sizeof( lower ), spec->lower );
            cnFormatNumber( upper, (int)sizeof( upper ), spec->upper );
            cnPushKey( L, "limit" );
            return cnFail( L, cn_statusSchemaError, "expected lower <= upper, got [%s, %s]", lower, upper );
        }
    }
    const cJSON* collide = cnMember( L, item, "collide_connected", false );
    if ( collide != NULL )
    {
        cnPushKey( L, "collide_connected" );
        if ( cnCheckBool( L, collide, &spec->collideConnected ) == false )
        {
            return false;
        }
        cnPop( L );
    }
    if ( cnReadVec3Member( L, item, "local_anchor_a", false, cn_anyNumber, &spec->anchorA ) == false ||
         cnReadVec3Member( L, item, "local_anchor_b", false, cn_anyNumber, &spec->anchorB ) == false )
    {
        return false;
    }
    if ( spec->type == cn_hingeJoint )
    {
        if ( cnReadVec3Member( L, item, "local_axis_a", false, cn_anyNumber, &spec->axis ) == false )
        {
            return false;
        }
        if ( !( cnLength( spec->axis ) > 1e-9 ) )
        {
            cnPushKey( L, "local_axis_a" );
            return cnFail( L, cn_statusSchemaError, "expected a non-zero axis, got [0, 0, 0]" );
        }
        cnNumberRule angles[2] = { cn_anyNumber, cn_anyNumber };
        cnNumberRule motor[2] = { cn_anyNumber, cn_nonNegativeNumber };
        if ( cnReadJointPair( L, item, "limit", cn_hingeLimitKeys, angles, "a hinge limit", &spec->limit,
                              &spec->lower, &spec->upper ) == false ||
             cnReadJointPair( L, item, "motor", cn_motorKeys, motor, "a hinge motor", &spec->motor,
                              &spec->speed, &spec->torque ) == false )
        {
            return false;
        }
        if ( spec->limit && !( -CN_PI <= spec->lower && spec->lower <= spec->upper && spec->upper <= CN_PI ) )
        {
            char lower[64];
            char upper[64];
            cnFormatNumber( lower, (int)sizeof( lower ), spec->lower );
            cnFormatNumber( upper, (int)sizeof( upper ), spec->upper );
            cnPushKey( L, "limit" );
            return cnFail( L, cn_statusSchemaError, "expected -pi <= lower <= upper <= pi, got [%s, %s]",
                           lower, upper );
        }
    }
    if ( spec->type == cn_distanceJoint )
    {
        cnNumberRule lengths[2] = { cn_nonNegativeNumber, cn_nonNegativeNumber };
        cnNumberRule spring[2] = { cn_nonNegativeNumber, cn_nonNegativeNumber };
        if ( cnReadNumberMember( L, item, "length", false, cn_positiveNumber, &spec->length ) == false ||
             cnReadJointPair( L, item, "limit", cn_distanceLimitKeys, lengths, "a distance limit",
                              &spec->limit, &spec->lower, &spec->upper ) == false ||
             cnReadJointPair( L, item, "spring", cn_springKeys, spring, "a distance spring", &spec->spring,
                              &spec->hertz, &spec->dampingRatio ) == false )
        {
            return false;
        }
        if ( spec->limit && !( spec->lower <= spec->upper ) )
        {
            char lower[64];
            char upper[64];
            cnFormatNumber( lower, (int)sizeof( lower ), spec->lower );
            cnFormatNumber( upper, (int)sizeof( upper ), spec->upper );
            cnPushKey( L, "limit" );
            return cnFail( L, cn_statusSchemaError, "expected min <= max, got [%s, %s]", lower, upper );
        }
    }
    return true;
}

// Pass 1: every entry of "joints".
static bool cnCheckJoints( cnLoader* L, const cJSON* joints )
{
    cnPushKey( L, "joints" );
    if ( cJSON_IsArray( joints ) == false )
    {
        return cnFailExpected( L, "an array of joints", joints );
    }
    const cJSON* bodies = cJSON_GetObjectItemCaseSensitive( L->root, "bodies" );
    int index = 0;
    const cJSON* item = NULL;
    cJSON_ArrayForEach( item, joints )
    {
        cnPushIndex( L, index );
        cnJointSpec spec;
        if ( cnReadJoint( L, item, bodies, &spec ) == false )
        {
            return false;
        }
        cnPop( L );
        index += 1;
    }
    cnPop( L );
    return true;
}

// Pass 2: the joint of a checked entry, between bodies `ids` (in "bodies" order).
static cnJointId cnCreateSpecJoint( cnWorldId world, const cnJointSpec* spec, const cnBodyId* ids )
{
    cnBodyId a = ids[spec->bodyA];
    cnBodyId b = ids[spec->bodyB];
    switch ( (cnJointType)spec->type )
    {
        case cn_ballJoint:
        {
            cnBallJointDef def = cnDefaultBallJointDef();
            def.bodyA = a, def.bodyB = b, def.localAnchorA = spec->anchorA, def.localAnchorB = spec->anchorB;
            def.collideConnected = spec->collideConnected;
            return cnCreateBallJoint( world, &def );
        }
        case cn_hingeJoint:
        {
            cnHingeJointDef def = cnDefaultHingeJointDef();
            def.bodyA = a, def.bodyB = b, def.localAnchorA = spec->anchorA, def.localAnchorB = spec->anchorB;
            def.collideConnected = spec->collideConnected;
            def.localAxisA = spec->axis;
            def.enableLimit = spec->limit;
            def.lowerAngle = spec->lower;
            def.upperAngle = spec->upper;
            def.enableMotor = spec->motor;
            def.motorSpeed = spec->speed;
            def.maxMotorTorque = spec->torque;
            return cnCreateHingeJoint( world, &def );
        }
        case cn_fixedJoint:
        {
            cnFixedJointDef def = cnDefaultFixedJointDef();
            def.bodyA = a, def.bodyB = b, def.localAnchorA = spec->anchorA, def.localAnchorB = spec->anchorB;
            def.collideConnected = spec->collideConnected;
            return cnCreateFixedJoint( world, &def );
        }
        case cn_prismaticJoint:
        {
            cnPrismaticJointDef def = cnDefaultPrismaticJointDef();
            def.bodyA = a, def.bodyB = b, def.localAnchorA = spec->anchorA, def.localAnchorB = spec->anchorB;
            def.collideConnected = spec->collideConnected;
            def.localAxisA = spec->axis;
            def.enableLimit = spec->limit;
            def.lowerTranslation = spec->lower;
            def.upperTranslation = spec->upper;
            def.enableMotor = spec->motor;
            def.motorSpeed = spec->speed;
            def.maxMotorForce = spec->torque;
            return cnCreatePrismaticJoint( world, &def );
        }
        case cn_distanceJoint:
        default:
        {
            cnDistanceJointDef def = cnDefaultDistanceJointDef();
            def.bodyA = a, def.bodyB = b, def.localAnchorA = spec->anchorA, def.localAnchorB = spec->anchorB;
            def.collideConnected = spec->collideConnected;
            def.length = spec->length;
            def.enableLimit = spec->limit;
            def.minLength = spec->limit ? spec->lower : 0.0;
            def.maxLength = spec->limit ? spec->upper : 1e9;
            def.enableSpring = spec->spring;
            def.hertz = spec->hertz;
            def.dampingRatio = spec->dampingRatio;
            return cnCreateDistanceJoint( world, &def );
        }
    }
}

static bool cnCreateJoints( cnLoader* L, cnWorldId world, const cnBodyId* ids )
{
    const cJSON* joints = cJSON_GetObjectItemCaseSensitive( L->root, "joints" );
    const cJSON* bodies = cJSON_GetObjectItemCaseSensitive( L->root, "bodies" );
    cnPushKey( L, "joints" );
    int index = 0;
    const cJSON* item = NULL;
    cJSON_ArrayForEach( item, joints )
    {
        cnPushIndex( L, index );
        cnJointSpec spec;
        if ( cnReadJoint( L, item, bodies, &spec ) == false )
        {
            return false;
        }
        if ( CN_IS_NULL( cnCreateSpecJoint( world, &spec, ids ) ) )
        {
            return cnFail( L, cn_statusSchemaError, "the engine refused this joint (see its log)" );
        }
        cnPop( L );
        index += 1;
    }
    cnPop( L );
    return true;
}

static bool cnCheckScene( cnLoader* L, cnWorldDef* worldDef, int* bodyCount )
{
    const cJSON* root = L->root;
    cnWarnUnknownKeys( L, root, cn_topKeys, CN_COUNT( cn_topKeys ), NULL );

    const cJSON* version = cnMember( L, root, "version", false );
    if ( version != NULL )
    {
        cnPushKey( L, "version" );
        if ( cJSON_IsNumber( version ) == false || floor( version->valuedouble ) != version->valuedouble )
        {
            return cnFailExpected( L, "1 (the format version)", version );
        }
        if ( version->valuedouble != (double)CN_SCENE_VERSION )
        {
            char number[64];
            cnFormatNumber( number, (int)sizeof( number ), version->valuedouble );
            return cnFail( L, cn_statusSchemaError, "unsupported version %s (this loader reads version %d)",
                           number, CN_SCENE_VERSION );
        }
        cnPop( L );
    }

    const cJSON* description = cnMember( L, root, "description", false );
    if ( description != NULL )
    {
        cnPushKey( L, "description" );
        const char* text = NULL;
        if ( cnCheckString( L, description, &text ) == false )
        {
            return false;
        }
        cnPop( L );
    }

    const cJSON* world = cnMember( L, root, "world", false );
    if ( world != NULL )
    {
        cnPushKey( L, "world" );
        if ( cnReadWorld( L, world, worldDef ) == false )
        {
            return false;
        }
        cnPop( L );
    }

    const cJSON* materials = cnMember( L, root, "materials", false );
    if ( materials != NULL )
    {
        cnPushKey( L, "materials" );
        if ( cnReadMaterials( L, materials ) == false )
        {
            return false;
        }
        cnPop( L );
    }

    const cJSON* bodies = cnMember( L, root, "bodies", true );
    if ( bodies == NULL )
    {
        return false;
    }
    cnPushKey( L, "bodies" );
    if ( cJSON_IsArray( bodies ) == false )
    {
        return cnFailExpected( L, "an array of bodies", bodies );
    }

    int count = cJSON_GetArraySize( bodies );
    L->nameCapacity = 16;
    while ( L->nameCapacity < 2 * (size_t)count )
    {
        L->nameCapacity *= 2;
    }
    L->names = cnAllocArray( &L->allocator, L->nameCapacity, sizeof( cnNameEntry ) );
    if ( L->names == NULL )
    {
        return cnFailOutOfMemory( L );
    }

    int index = 0;
    const cJSON* body = NULL;
    cJSON_ArrayForEach( body, bodies )
    {
        cnPushIndex( L, index );
        cnBodyDef def = cnDefaultBodyDef();
        if ( cnReadBody( L, body, &def ) == false )
        {
            return false;
        }
        if ( def.name != NULL )
        {
            int earlier = cnAddName( L, def.name, index );
            if ( earlier >= 0 )
            {
                cnPathStep first[3] = { { "bodies", 1 }, { NULL, earlier }, { "name", 1 } };
                char place[160];
                cnText text = cnMakeText( place, sizeof( place ) );
                cnAppendPlace( L, &text, first, 3 );
                cnFinishText( &text );
                char shown[96];
                cnText quoted = cnMakeText( shown, sizeof( shown ) );
                cnAppendQuoted( &quoted, def.name, strlen( def.name ), CN_QUOTE_LIMIT );
                cnFinishText( &quoted );
                cnPushKey( L, "name" );
                return cnFail( L, cn_statusSchemaError,
                               "duplicate body name %s (also bodies[%d].name, at %s)", shown, earlier,
                               place );
            }
        }

        if ( cnCheckShapes( L, cJSON_GetObjectItemCaseSensitive( body, "shapes" ), def.type ) == false )
        {
            return false;
        }
        cnPop( L );
        index += 1;
    }
    cnPop( L );
    *bodyCount = count;

    const cJSON* generators = cnMember( L, root, "generators", false );
    if ( generators != NULL && cnCheckGenerators( L, generators, bodyCount ) == false )
    {
        return false;
    }
    const cJSON* joints = cnMember( L, root, "joints", false );
    if ( joints != NULL && cnCheckJoints( L, joints ) == false )
    {
        return false;
    }
    const cJSON* systems = cnMember( L, root, "systems", false );
    return systems == NULL || cnCheckSystems( L, systems );
}

// ---------------------------------------------------------------------------------------------
// Pass 2: create. The values were all checked; what can still fail is the engine refusing
// something our checks let through. Then the world is destroyed, and the refused body is built
// again in a scratch world whose log we read, to report the engine's reason.

typedef struct cnCapturedLog
{
    int status;
    char message[256];
} cnCapturedLog;

static void cnCaptureLog( cnLogLevel level, int status, const char* message, void* context )
{
    cnCapturedLog* capture = context;
    if ( level == cn_logError && capture->message[0] == 0 )
    {
        capture->status = status;
        cnFormat( capture->message, (int)sizeof( capture->message ), "%s", message );
    }
}

// Build body `item` (all of it) in a scratch world and return what the engine said.
static void cnProbeBody( cnLoader* L, const cnWorldDef* worldDef, const cJSON* item, cnCapturedLog* capture )
{
    cnWorldDef def = *worldDef;
    def.logFcn = cnCaptureLog;
    def.logContext = capture;
    def.bodyCapacity = 1;
    cnWorldId world = cnCreateWorld( &def );
    if ( CN_IS_NULL( world ) )
    {
        return;
    }
    cnBodyDef bodyDef = cnDefaultBodyDef();
    if ( cnReadBody( L, item, &bodyDef ) )
    {
        cnBodyId body = cnCreateBody( world, &bodyDef );
        const cJSON* shape = NULL;
        const cJSON* shapes = cJSON_GetObjectItemCaseSensitive( item, "shapes" );
        cJSON_ArrayForEach( shape, shapes )
        {
            cnShapeDef shapeDef;
            cnGeometry geometry;
            if ( CN_IS_NULL( body ) || cnReadShape( L, shape, bodyDef.type, &shapeDef, &geometry ) == false ||
                 CN_IS_NULL( cnCreateShape( body, &shapeDef, &geometry ) ) )
            {
                break;
            }
        }
    }
    cnDestroyWorld( world );
}

// Pass 2: "world.solver.params" (checked in pass 1) set on the new world's solver, in file order.
static bool cnApplySolverParams( cnLoader* L, cnWorldId world )
{
    const cJSON* worldItem = cJSON_GetObjectItemCaseSensitive( L->root, "world" );
    const cJSON* solverItem = cJSON_GetObjectItemCaseSensitive( worldItem, "solver" );
    const cJSON* params = cJSON_GetObjectItemCaseSensitive( solverItem, "params" );
    const cnSolverVTable* solver = cnWorld_GetSolver( world );
    if ( params == NULL || solver == NULL )
    {
        return true;
    }
    cnPushKey( L, "world" );
    cnPushKey( L, "solver" );
    cnPushKey( L, "params" );
    if ( cnReadSolverParams( L, params, solver, &world ) == false )
    {
        return false;
    }
    cnPop( L );
    cnPop( L );
    cnPop( L );
    return true;
}

static bool cnCreateScene( cnLoader* L, const cnWorldDef* worldDef, int bodyCount, cnScene* outScene )
{
    cnWorldDef def = *worldDef;
    if ( def.bodyCapacity < bodyCount )
    {
        def.bodyCapacity = bodyCount;
    }
    cnWorldId world = cnCreateWorld( &def );
    if ( CN_IS_NULL( world ) )
    {
        // again, to hear why
        cnCapturedLog capture = { 0, "" };
        cnWorldDef probe = def;
        probe.logFcn = cnCaptureLog;
        probe.logContext = &capture;
        cnWorldId retry = cnCreateWorld( &probe );
        if ( CN_IS_NON_NULL( retry ) )
        {
            cnDestroyWorld( retry );
        }
        cnStatus status = capture.status > 0 && capture.status < (int)cn_statusCount
                              ? (cnStatus)capture.status
                              : cn_statusInvalidArgument;
        // not a problem of the file: no place in it
        cnSetErrorAt( L, status, 0, 0, NULL, "",
                      capture.message[0] != 0
                          ? capture.message
                          : "cnCreateWorld failed: too many worlds, or an invalid world def" );
        return false;
    }

    if ( cnApplySolverParams( L, world ) == false )
    {
        cnDestroyWorld( world );
        return false;
    }

    const cJSON* bodies = cJSON_GetObjectItemCaseSensitive( L->root, "bodies" );
    // the bodies' ids in file order, for the joints
    size_t idCount = (size_t)cJSON_GetArraySize( bodies ) + 1;
    cnBodyId* ids = cnAllocArray( &L->allocator, idCount, sizeof( cnBodyId ) );
    if ( ids == NULL )
    {
        cnDestroyWorld( world );
        return cnFailOutOfMemory( L );
    }
    cnPushKey( L, "bodies" );
    int index = 0;
    const cJSON* body = NULL;
    cJSON_ArrayForEach( body, bodies )
    {
        cnPushIndex( L, index );
        cnBodyDef bodyDef = cnDefaultBodyDef();
        if ( cnReadBody( L, body, &bodyDef ) == false )
        {
            cnFree( &L->allocator, ids, idCount * sizeof( cnBodyId ) );
            cnDestroyWorld( world );
            return false;
        }
        cnBodyId bodyId = cnCreateBody( world, &bodyDef );
        ids[index] = bodyId;
        bool refused = CN_IS_NULL( bodyId );
        if ( refused == false && cnCreateShapes( L, bodyId, body, bodyDef.type ) == false )
        {
            if ( L->failed )
            {
                cnFree( &L->allocator, ids, idCount * sizeof( cnBodyId ) );
                cnDestroyWorld( world );
                return false;
            }
            refused = true;
        }
        if ( refused )
        {
            cnFree( &L->allocator, ids, idCount * sizeof( cnBodyId ) );
            cnDestroyWorld( world );
            cnCapturedLog capture = { 0, "" };
            cnProbeBody( L, worldDef, body, &capture );
            // out of memory, the probe fails wherever the allocator gives out: say only that
            if ( capture.status == (int)cn_statusOutOfMemory )
            {
                return cnFailOutOfMemory( L );
            }
            return cnFail( L, cn_statusSchemaError, "%s",
                           capture.message[0] != 0 ? capture.message
                                                   : "the engine refused this (see its log)" );
        }
        cnPop( L );
        index += 1;
    }
    cnPop( L );

    bool jointsMade =
        cJSON_GetObjectItemCaseSensitive( L->root, "joints" ) == NULL || cnCreateJoints( L, world, ids );
    cnFree( &L->allocator, ids, idCount * sizeof( cnBodyId ) );
    if ( jointsMade == false )
    {
        cnDestroyWorld( world );
        return false;
    }

    const cJSON* generators = cJSON_GetObjectItemCaseSensitive( L->root, "generators" );
    cnPushKey( L, "generators" );
    index = 0;
    const cJSON* generator = NULL;
    cJSON_ArrayForEach( generator, generators )
    {
        cnPushIndex( L, index );
        if ( cnCreateGenerated( L, world, generator ) == false )
        {
            cnDestroyWorld( world );
            return false;
        }
        cnPop( L );
        index += 1;
    }
    cnPop( L );

    const cJSON* systems = cJSON_GetObjectItemCaseSensitive( L->root, "systems" );
    if ( systems != NULL && cnStartSystems( L, world, systems ) == false )
    {
        cnDestroyWorld( world );
        return false;
    }

    outScene->worldId = world;
    outScene->bodyCount = bodyCount;
    return true;
}

// ---------------------------------------------------------------------------------------------
// Loading

static void cnLoadText( cnLoader* L, cnScene* outScene )
{
    // a byte order mark is not JSON, but editors write it
    if ( L->length >= 3 && memcmp( L->text, "\xEF\xBB\xBF", 3 ) == 0 )
    {
        L->text += 3;
        L->length -= 3;
    }
    L->countedLine = 1;
    L->rootOffset = cnSkipSpace( L->text, L->length, 0 );
    if ( L->rootOffset == L->length )
    {
        cnSetErrorAt( L, cn_statusParseError, 1, 1, NULL, "",
                      L->length == 0 ? "the file is empty, expected a JSON object"
                                     : "the file holds only white space, expected a JSON object" );
        return;
    }

    // thread-safe error position: return_parse_end, never cJSON_GetErrorPtr()
    const char* end = NULL;
    L->root = cJSON_ParseWithLengthOpts( L->text, L->length, &end, false );
    if ( L->root == NULL ||
         ( end != NULL && cnSkipSpace( L->text, L->length, (size_t)( end - L->text ) ) != L->length ) )
    {
        cnReportSyntaxError( L, end );
        return;
    }

    if ( cJSON_IsObject( L->root ) == false )
    {
        cnFailExpected( L, "a JSON object holding the scene", L->root );
        return;
    }
    if ( cnCheckDuplicateKeys( L, L->root ) == false || cnApplyOverrides( L ) == false )
    {
        return;
    }

    cnWorldDef worldDef = L->options->worldDef;
    int bodyCount = 0;
    L->materials = NULL;
    L->defaultMaterial = cnDefaultMaterial();
    L->pass = 1;
    if ( cnCheckScene( L, &worldDef, &bodyCount ) == false )
    {
        return;
    }
    L->pass = 2;
    L->depth = 0;
    cnCreateScene( L, &worldDef, bodyCount, outScene );
}

static bool cnCheckArguments( const cnSceneOptions* options, cnScene* outScene, const char** problem )
{
    if ( outScene == NULL )
    {
        *problem = "outScene is NULL";
    }
    else if ( options->internalValue != CN_SECRET_COOKIE )
    {
        *problem = "the options were not initialized with cnDefaultSceneOptions()";
    }
    else if ( options->overrideCount < 0 || ( options->overrideCount > 0 && options->overrides == NULL ) )
    {
        *problem = "options->overrides is NULL or options->overrideCount is negative";
    }
    else
    {
        return true;
    }
    return false;
}

// Hand the result out; with no error struct, the error goes to the log.
static cnStatus cnFinishLoad( const cnLoader* L, const cnSceneOptions* options, cnSceneError* error )
{
    if ( error != NULL )
    {
        *error = L->error;
    }
    else if ( L->failed )
    {
        if ( options->worldDef.logFcn != NULL )
        {
            options->worldDef.logFcn( cn_logError, (int)L->error.status, L->error.text,
                                      options->worldDef.logContext );
        }
        else
        {
            cnDefaultLog( cn_logError, (int)L->error.status, L->error.text, NULL );
        }
    }
    return L->failed ? L->error.status : cn_statusOk;
}

// Load `text`, which stands for `name` in messages.
static cnStatus cnLoadScene( const char* text, size_t length, const char* name, const cnSceneOptions* options,
                             cnScene* outScene, cnSceneError* error, cnStatus readStatus,
                             const char* readProblem )
{
    const cnAllocator* allocator = &options->worldDef.allocator;
    cnLoader* L = cnAlloc( allocator, sizeof( cnLoader ), 16 );
    if ( L == NULL )
    {
        if ( error != NULL )
        {
            memset( error, 0, sizeof( *error ) );
            error->status = cn_statusOutOfMemory;
            cnFormat( error->message, (int)sizeof( error->message ), "out of memory" );
            cnFormat( error->text, (int)sizeof( error->text ), "%s: out of memory", name );
        }
        return cn_statusOutOfMemory;
    }
    memset( L, 0, sizeof( *L ) );
    L->name = name;
    L->text = text;
    L->length = length;
    L->options = options;
    L->allocator = *allocator;
    L->countedLine = 1;
    L->error.path[0] = 0;

    if ( readProblem != NULL )
    {
        cnSetErrorAt( L, readStatus, 0, 0, NULL, "", readProblem );
    }
    else
    {
        cnLoadText( L, outScene );
    }
    if ( L->failed )
    {
        outScene->worldId = cn_nullWorldId;
        outScene->bodyCount = 0;
    }
    outScene->warningCount = L->warningCount;

    cnStatus status = cnFinishLoad( L, options, error );

    cJSON_Delete( L->root );
    for ( int i = 0; i < L->overrideCount; ++i )
    {
        cnFree( &L->allocator, L->overrides[i].names, L->overrides[i].namesSize );
    }
    cnFree( &L->allocator, L->overrides, (size_t)L->overrideCount * sizeof( cnOverride ) );
    cnFree( &L->allocator, L->points, (size_t)L->pointCapacity * sizeof( cnVec3 ) );
    cnFree( &L->allocator, L->names, L->nameCapacity * sizeof( cnNameEntry ) );
    cnFree( allocator, L, sizeof( cnLoader ) );
    return status;
}

cnSceneOptions cnDefaultSceneOptions( void )
{
    cnSceneOptions options;
    memset( &options, 0, sizeof( options ) );
    options.maxBytes = CN_DEFAULT_MAX_BYTES;
    options.worldDef = cnDefaultWorldDef();
    options.internalValue = CN_SECRET_COOKIE;
    return options;
}

// An argument error, before there is a loader.
static cnStatus cnArgumentError( const char* name, const char* problem, cnScene* outScene,
                                 cnSceneError* error )
{
    if ( outScene != NULL )
    {
        memset( outScene, 0, sizeof( *outScene ) );
    }
    if ( error != NULL )
    {
        memset( error, 0, sizeof( *error ) );
        error->status = cn_statusInvalidArgument;
        cnFormat( error->message, (int)sizeof( error->message ), "%s", problem );
        cnFormat( error->text, (int)sizeof( error->text ), "%s: %s", name, problem );
    }
    return cn_statusInvalidArgument;
}

// Read a whole file into memory from `allocator`, refusing files over `maxBytes` before reading.
// On failure returns NULL and writes the reason to `problem`.
static char* cnReadFile( const char* path, size_t maxBytes, const cnAllocator* allocator, size_t* outLength,
                         size_t* outCapacity, cnStatus* status, char* problem, int problemSize )
{
    *status = cn_statusIoError;
    FILE* file = fopen( path, "rb" );
    if ( file == NULL )
    {
        cnFormat( problem, problemSize, "cannot open the file: %s", strerror( errno ) );
        return NULL;
    }

    // the size, when the file has one (a pipe does not)
    long long size = -1;
#if CN_HAVE_FSTAT
    struct stat info;
    if ( fstat( fileno( file ), &info ) == 0 )
    {
        if ( S_ISDIR( info.st_mode ) )
        {
            cnFormat( problem, problemSize, "cannot read the file: it is a directory" );
            fclose( file );
            return NULL;
        }
        if ( S_ISREG( info.st_mode ) )
        {
            size = (long long)info.st_size;
        }
    }
#else
    if ( fseek( file, 0, SEEK_END ) == 0 )
    {
        size = (long long)ftell( file );
        if ( fseek( file, 0, SEEK_SET ) != 0 )
        {
            size = -1;
        }
    }
#endif
    if ( size >= 0 && (unsigned long long)size > (unsigned long long)maxBytes )
    {
        cnFormat( problem, problemSize,
                  "the file is too large: %lld bytes, the limit is %zu (cnSceneOptions.maxBytes)", size,
                  maxBytes );
        fclose( file );
        return NULL;
    }

    size_t capacity = size >= 0 ? (size_t)size + 1 : 65536;
    size_t length = 0;
    char* buffer = cnAlloc( allocator, capacity, 16 );
    for ( ;; )
    {
        if ( buffer == NULL )
        {
            *status = cn_statusOutOfMemory;
            cnFormat( problem, problemSize, "out of memory reading %zu bytes", capacity );
            fclose( file );
            return NULL;
        }
        length += fread( buffer + length, 1, capacity - length, file );
        if ( ferror( file ) )
        {
            cnFormat( problem, problemSize, "cannot read the file: %s", strerror( errno ) );
            cnFree( allocator, buffer, capacity );
            fclose( file );
            return NULL;
        }
        if ( length > maxBytes )
        {
            cnFormat( problem, problemSize,
                      "the file is too large: more than %zu bytes (cnSceneOptions.maxBytes)", maxBytes );
            cnFree( allocator, buffer, capacity );
            fclose( file );
            return NULL;
        }
        if ( length < capacity )
        {
            break;
        }
        // still more: the file grew, or it has no size
        size_t grown = capacity * 2;
        char* moved = cnRealloc( allocator, buffer, capacity, grown, 16 );
        if ( moved == NULL )
        {
            cnFree( allocator, buffer, capacity );
        }
        buffer = moved;
        capacity = grown;
    }
    fclose( file );
    *outLength = length;
    *outCapacity = capacity;
    *status = cn_statusOk;
    return buffer;
}

cnStatus cnLoadSceneFile( const char* path, const cnSceneOptions* options, cnScene* outScene,
                          cnSceneError* error )
{
    cnSceneOptions defaults = cnDefaultSceneOptions();
    if ( options == NULL )
    {
        options = &defaults;
    }
    const char* name = path != NULL ? path : "(null)";
    const char* problem = NULL;
    if ( path == NULL )
    {
        return cnArgumentError( name, "the path is NULL", outScene, error );
    }
    if ( cnCheckArguments( options, outScene, &problem ) == false )
    {
        return cnArgumentError( name, problem, outScene, error );
    }
    memset( outScene, 0, sizeof( *outScene ) );

    size_t length = 0;
    size_t capacity = 0;
    cnStatus readStatus = cn_statusOk;
    char readProblem[256] = "";
    char* text = cnReadFile( path, options->maxBytes, &options->worldDef.allocator, &length, &capacity,
                             &readStatus, readProblem, (int)sizeof( readProblem ) );
    cnStatus status = cnLoadScene( text != NULL ? text : "", length, name, options, outScene, error,
                                   readStatus, text != NULL ? NULL : readProblem );
    cnFree( &options->worldDef.allocator, text, capacity );
    return status;
}

cnStatus cnLoadSceneString( const char* json, size_t length, const char* name, const cnSceneOptions* options,
                            cnScene* outScene, cnSceneError* error )
{
    cnSceneOptions defaults = cnDefaultSceneOptions();
    if ( options == NULL )
    {
        options = &defaults;
    }
    if ( name == NULL )
    {
        name = "<string>";
    }
    const char* problem = NULL;
    if ( json == NULL && length > 0 )
    {
        return cnArgumentError( name, "json is NULL", outScene, error );
    }
    if ( cnCheckArguments( options, outScene, &problem ) == false )
    {
        return cnArgumentError( name, problem, outScene, error );
    }
    memset( outScene, 0, sizeof( *outScene ) );
    if ( length > options->maxBytes )
    {
        char tooLarge[160];
        cnFormat( tooLarge, (int)sizeof( tooLarge ),
                  "the text is too large: %zu bytes, the limit is %zu (cnSceneOptions.maxBytes)", length,
                  options->maxBytes );
        return cnLoadScene( "", 0, name, options, outScene, error, cn_statusIoError, tooLarge );
    }
    return cnLoadScene( json != NULL ? json : "", length, name, options, outScene, error, cn_statusOk, NULL );
}
