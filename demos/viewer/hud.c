// SPDX-License-Identifier: MIT
// The 2-D overlay. Every primitive becomes triangles in one CPU vertex array, in call order, and
// vwHudEnd uploads that array and draws it with one call. Text comes from stb_easy_font one glyph
// at a time (each of its quads becomes two triangles), so we choose what happens to characters it
// cannot draw, scale the glyphs and keep them on whole pixels; a dark shadow under each string
// keeps it legible over a bright scene. Lines are quads one pixel wider on each side than asked,
// the fragment shader fading that pixel (antialiasing); plot lines are mitred polylines.
#include "hud.h"

#include "gl_program.h"
#include "vw_shaders.h"

#include <glad/gl.h>

#include <limits.h>
#include <math.h>
#include <stb/stb_easy_font.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/// stb_easy_font's line advance and glyph cell, unscaled pixels.
#define VW_FONT_LINE 12.0f
/// Half thickness given to rectangles and text: the fragment shader's coverage is then 1.
#define VW_NO_EDGE 1.0e6f

typedef struct vwHudVertex
{
    float position[2]; ///< pixels, origin top left
    float edge[2];     ///< distance across a line and its half thickness, pixels
    uint8_t color[4];  ///< RGBA, straight alpha
} vwHudVertex;

struct vwHud
{
    GLuint program;
    GLint screenLocation;
    GLuint vertexArray;
    GLuint vertexBuffer;

    vwHudVertex* vertices;
    int vertexCount;
    int vertexCapacity;

    float* points; ///< scratch for plot polylines: x, y pairs
    int pointCapacity;

    int width; ///< framebuffer pixels, from vwHudBegin
    int height;
    float scale; ///< text enlargement
};

static const float vw_white[4] = { 1.0f, 1.0f, 1.0f, 1.0f };

// plot colours: chosen to read over the app's dark panel and over a bright scene
static const float vw_plotBackground[4] = { 0.04f, 0.05f, 0.07f, 0.62f };
static const float vw_plotFrame[4] = { 1.0f, 1.0f, 1.0f, 0.28f };
static const float vw_plotGrid[4] = { 1.0f, 1.0f, 1.0f, 0.10f };
static const float vw_plotTitle[4] = { 0.95f, 0.95f, 0.95f, 1.0f };
static const float vw_plotLabel[4] = { 0.72f, 0.74f, 0.78f, 1.0f };
static const float vw_plotLegend[4] = { 0.0f, 0.0f, 0.0f, 0.55f };

vwHud* vwCreateHud( void )
{
    vwHud* hud = calloc( 1, sizeof( vwHud ) );
    if ( hud == NULL )
    {
        fprintf( stderr, "cairn-viewer: out of memory for the HUD\n" );
        return NULL;
    }

    hud->program = vwLinkProgram( "hud", vw_shader_hud_vs, vw_shader_hud_fs, NULL, NULL );
    if ( hud->program == 0 )
    {
        free( hud );
        return NULL;
    }
    hud->screenLocation = glGetUniformLocation( hud->program, "uScreen" );
    hud->scale = 1.0f;

    glGenVertexArrays( 1, &hud->vertexArray );
    glGenBuffers( 1, &hud->vertexBuffer );
    glBindVertexArray( hud->vertexArray );
    glBindBuffer( GL_ARRAY_BUFFER, hud->vertexBuffer );
    GLsizei stride = (GLsizei)sizeof( vwHudVertex );
    glEnableVertexAttribArray( 0 );
    glVertexAttribPointer( 0, 2, GL_FLOAT, GL_FALSE, stride, (const void*)offsetof( vwHudVertex, position ) );
    glEnableVertexAttribArray( 1 );
    glVertexAttribPointer( 1, 2, GL_FLOAT, GL_FALSE, stride, (const void*)offsetof( vwHudVertex, edge ) );
    glEnableVertexAttribArray( 2 );
    glVertexAttribPointer( 2, 4, GL_UNSIGNED_BYTE, GL_TRUE, stride,
                           (const void*)offsetof( vwHudVertex, color ) );
    glBindVertexArray( 0 );
    glBindBuffer( GL_ARRAY_BUFFER, 0 );
    return hud;
}

void vwDestroyHud( vwHud* hud )
{
    if ( hud == NULL )
    {
        return;
    }
    glDeleteBuffers( 1, &hud->vertexBuffer );
    glDeleteVertexArrays( 1, &hud->vertexArray );
    glDeleteProgram( hud->program );
    free( hud->vertices );
    free( hud->points );
    free( hud );
}

// --- frame --------------------------------------------------------------------------------------

void vwHudBegin( vwHud* hud, int width, int height, float scale )
{
    if ( hud == NULL )
    {
        return;
    }
    hud->width = width > 0 ? width : 0;
    hud->height = height > 0 ? height : 0;
    hud->scale = isfinite( scale ) && scale > 0.0f ? scale : 1.0f;
    hud->vertexCount = 0;
}

void vwHudEnd( vwHud* hud )
{
    if ( hud == NULL )
    {
        return;
    }
    if ( hud->vertexCount > 0 && hud->width > 0 && hud->height > 0 )
    {
        glViewport( 0, 0, hud->width, hud->height );
        glDisable( GL_DEPTH_TEST );
        glDisable( GL_CULL_FACE );
        glEnable( GL_BLEND );
        glBlendEquation( GL_FUNC_ADD );
        // colour: straight alpha over; destination alpha: accumulates coverage (screenshots stay opaque)
        glBlendFuncSeparate( GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, GL_ONE_MINUS_SRC_ALPHA );

        glUseProgram( hud->program );
        glUniform2f( hud->screenLocation, (float)hud->width, (float)hud->height );
        glBindVertexArray( hud->vertexArray );
        glBindBuffer( GL_ARRAY_BUFFER, hud->vertexBuffer );
        glBufferData( GL_ARRAY_BUFFER, (GLsizeiptr)( (size_t)hud->vertexCount * sizeof( vwHudVertex ) ),
                      hud->vertices, GL_STREAM_DRAW );
        glDrawArrays( GL_TRIANGLES, 0, hud->vertexCount );
        glBindVertexArray( 0 );
        glBindBuffer( GL_ARRAY_BUFFER, 0 );
        glUseProgram( 0 );
    }
    hud->vertexCount = 0;
}

// --- primitives ---------------------------------------------------------------------------------

/// Room for `count` more vertices at the end of the queue; NULL when out of memory (the primitive
/// is then dropped).
static vwHudVertex* vwHudReserve( vwHud* hud, int count )
{
    if ( count > hud->vertexCapacity - hud->vertexCount )
    {
        if ( hud->vertexCount > INT_MAX / 2 - count )
        {
            return NULL;
        }
        int capacity = hud->vertexCapacity > 0 ? hud->vertexCapacity : 4096;
        while ( capacity < hud->vertexCount + count )
        {
            capacity *= 2;
        }
        vwHudVertex* grown = realloc( hud->vertices, (size_t)capacity * sizeof( vwHudVertex ) );
        if ( grown == NULL )
        {
            return NULL;
        }
        hud->vertices = grown;
        hud->vertexCapacity = capacity;
    }
    vwHudVertex* vertices = hud->vertices + hud->vertexCount;
    hud->vertexCount += count;
    return vertices;
}

/// RGBA bytes of a colour (NULL: white) with its alpha multiplied by `alpha`.
static void vwPackColor( const float color[4], float alpha, uint8_t out[4] )
{
    const float* c = color != NULL ? color : vw_white;
    for ( int i = 0; i < 4; ++i )
    {
        float value = i == 3 ? c[i] * alpha : c[i];
        value = value > 0.0f ? ( value < 1.0f ? value : 1.0f ) : 0.0f; // NaN goes to 0 too
        out[i] = (uint8_t)( value * 255.0f + 0.5f );
    }
}

/// A quad a-b-c-d (either winding) as two triangles; `edge` per corner as in vwHudVertex.
static void vwPushQuad( vwHud* hud, const float corners[4][2], const float edge[4][2],
                        const uint8_t color[4] )
{
    vwHudVertex* vertices = vwHudReserve( hud, 6 );
    if ( vertices == NULL )
    {
        return;
    }
    static const int order[6] = { 0, 1, 2, 0, 2, 3 };
    for ( int i = 0; i < 6; ++i )
    {
        vwHudVertex* vertex = vertices + i;
        int k = order[i];
        vertex->position[0] = corners[k][0];
        vertex->position[1] = corners[k][1];
        vertex->edge[0] = edge[k][0];
        vertex->edge[1] = edge[k][1];
        for ( int j = 0; j < 4; ++j )
        {
            vertex->color[j] = color[j];
        }
    }
}

static void vwPushRect( vwHud* hud, float x, float y, float width, float height, const uint8_t color[4] )
{
    const float corners[4][2] = { { x, y }, { x + width, y }, { x + width, y + height }, { x, y + height } };
    const float edge[4][2] = {
        { 0.0f, VW_NO_EDGE }, { 0.0f, VW_NO_EDGE }, { 0.0f, VW_NO_EDGE }, { 0.0f, VW_NO_EDGE } };
    vwPushQuad( hud, corners, edge, color );
}

/// Unit direction of segment k of a polyline (points k and k + 1, which differ).
static void vwSegmentDirection( const float* points, int k, float out[2] )
{
    float dx = points[2 * k + 2] - points[2 * k];
    float dy = points[2 * k + 3] - points[2 * k + 1];
    float length = sqrtf( dx * dx + dy * dy );
    out[0] = dx / length;
    out[1] = dy / length;
}

/// Whether the polyline turns gently enough at inner point `i` for the segments there to share a
/// mitred end; if so `out` is the offset from the point to the outline on the left, `outer` from
/// the centre line. Sharper turns (spikes) would pinch the quads there.
static bool vwMitre( const float* points, int i, float outer, float out[2] )
{
    float d0[2], d1[2];
    vwSegmentDirection( points, i - 1, d0 );
    vwSegmentDirection( points, i, d1 );
    float mx = -( d0[1] + d1[1] );
    float my = d0[0] + d1[0];
    float length = sqrtf( mx * mx + my * my );
    if ( length < 1.0e-3f )
    {
        return false;
    }
    mx /= length;
    my /= length;
    float cosine = -mx * d1[1] + my * d1[0]; // of half the turn
    if ( cosine < 0.75f )
    {
        return false;
    }
    out[0] = mx * outer / cosine;
    out[1] = my * outer / cosine;
    return true;
}

/// A polyline through `count` points (x, y pairs; the array is compacted in place) as quads
/// `thickness` wide plus a faded pixel on each side. Where the line turns gently, neighbouring quads
/// share a mitred end, so no pixel is covered twice and the joint stays even; at sharp turns each
/// quad keeps its square end, lengthened by half the thickness to close the corner. Butt ends; a
/// polyline of one point (or of coincident ones) is a square dot.
static void vwPushPolyline( vwHud* hud, float* points, int count, float thickness, const float color[4] )
{
    if ( count <= 0 || !( thickness > 0.0f ) || !isfinite( thickness ) )
    {
        return;
    }

    // drop points that repeat the previous one: their segments have no direction
    int kept = 1;
    for ( int i = 1; i < count; ++i )
    {
        float dx = points[2 * i] - points[2 * kept - 2];
        float dy = points[2 * i + 1] - points[2 * kept - 1];
        if ( dx * dx + dy * dy > 1.0e-8f )
        {
            points[2 * kept] = points[2 * i];
            points[2 * kept + 1] = points[2 * i + 1];
            kept += 1;
        }
    }
    count = kept;

    // thinner than a pixel: a pixel wide, fainter
    float alpha = 1.0f;
    if ( thickness < 1.0f )
    {
        alpha = thickness;
        thickness = 1.0f;
    }
    uint8_t packed[4];
    vwPackColor( color, alpha, packed );
    float half = 0.5f * thickness;
    float outer = half + 1.0f;
    const float edge[4][2] = { { outer, half }, { outer, half }, { -outer, half }, { -outer, half } };

    if ( count == 1 )
    {
        float x = points[0];
        float y = points[1];
        const float corners[4][2] = { { x - half, y + outer },
                                      { x + half, y + outer },
                                      { x + half, y - outer },
                                      { x - half, y - outer } };
        vwPushQuad( hud, corners, edge, packed );
        return;
    }

    // the start of segment k: its point and the offset to its left outline
    float start[2] = { points[0], points[1] };
    float startOffset[2];
    bool startShared = false;
    for ( int k = 0; k + 1 < count; ++k )
    {
        float d[2];
        vwSegmentDirection( points, k, d );
        float normal[2] = { -d[1] * outer, d[0] * outer };
        if ( !startShared )
        {
            startOffset[0] = normal[0];
            startOffset[1] = normal[1];
        }

        float end[2] = { points[2 * k + 2], points[2 * k + 3] };
        float endOffset[2] = { normal[0], normal[1] };
        bool endShared = k + 2 < count && vwMitre( points, k + 1, outer, endOffset );
        if ( !endShared && k + 2 < count )
        {
            end[0] += d[0] * half;
            end[1] += d[1] * half;
        }

        const float corners[4][2] = { { start[0] + startOffset[0], start[1] + startOffset[1] },
                                      { end[0] + endOffset[0], end[1] + endOffset[1] },
                                      { end[0] - endOffset[0], end[1] - endOffset[1] },
                                      { start[0] - startOffset[0], start[1] - startOffset[1] } };
        vwPushQuad( hud, corners, edge, packed );

        // the next segment starts where this one ended, or a half thickness back at a sharp turn
        start[0] = points[2 * k + 2];
        start[1] = points[2 * k + 3];
        startShared = endShared;
        if ( endShared )
        {
            startOffset[0] = endOffset[0];
            startOffset[1] = endOffset[1];
        }
        else if ( k + 2 < count )
        {
            float next[2];
            vwSegmentDirection( points, k + 1, next );
            start[0] -= next[0] * half;
            start[1] -= next[1] * half;
        }
    }
}

/// A segment: see vwPushPolyline.
static void vwPushLine( vwHud* hud, float x0, float y0, float x1, float y1, float thickness,
                        const float color[4] )
{
    if ( !isfinite( x0 ) || !isfinite( y0 ) || !isfinite( x1 ) || !isfinite( y1 ) )
    {
        return;
    }
    float points[4] = { x0, y0, x1, y1 };
    vwPushPolyline( hud, points, 2, thickness, color );
}

/// Room for `count` points in hud->points; false when out of memory.
static bool vwReservePoints( vwHud* hud, int count )
{
    if ( count <= hud->pointCapacity )
    {
        return true;
    }
    float* grown = realloc( hud->points, (size_t)count * 2 * sizeof( float ) );
    if ( grown == NULL )
    {
        return false;
    }
    hud->points = grown;
    hud->pointCapacity = count;
    return true;
}

void vwHudRect( vwHud* hud, float x, float y, float width, float height, const float color[4] )
{
    if ( hud == NULL || !isfinite( x ) || !isfinite( y ) || !( width > 0.0f ) || !( height > 0.0f ) ||
         !isfinite( width ) || !isfinite( height ) )
    {
        return;
    }
    uint8_t packed[4];
    vwPackColor( color, 1.0f, packed );
    vwPushRect( hud, x, y, width, height, packed );
}

void vwHudLine( vwHud* hud, float x0, float y0, float x1, float y1, float thickness, const float color[4] )
{
    if ( hud == NULL )
    {
        return;
    }
    vwPushLine( hud, x0, y0, x1, y1, thickness, color );
}

// --- text ---------------------------------------------------------------------------------------

/// What stb_easy_font draws for byte `c` (it knows ' ' to '~' only): tabs become spaces, other
/// control bytes and UTF-8 continuation bytes vanish, other bytes (a code point's lead) become '?'.
/// 0 means skip.
static char vwFontChar( unsigned char c )
{
    if ( c >= 32 && c < 127 )
    {
        return (char)c;
    }
    if ( c == '\t' )
    {
        return ' ';
    }
    if ( c < 32 || ( c >= 0x80 && c < 0xC0 ) )
    {
        return 0;
    }
    return '?';
}

/// Unscaled size as stb_easy_font measures it: the widest line, 12 pixels per line.
static void vwMeasureText( const char* text, float* width, float* height )
{
    float line = 0.0f;
    float widest = 0.0f;
    float y = 0.0f;
    bool lineHasText = false;
    for ( const char* p = text; *p != '\0'; ++p )
    {
        if ( *p == '\n' )
        {
            widest = line > widest ? line : widest;
            line = 0.0f;
            y += VW_FONT_LINE;
            lineHasText = false;
            continue;
        }
        lineHasText = true;
        char glyph[2] = { vwFontChar( (unsigned char)*p ), '\0' };
        if ( glyph[0] != '\0' )
        {
            line += (float)stb_easy_font_width( glyph );
        }
    }
    widest = line > widest ? line : widest;
    *width = widest;
    *height = y + ( lineHasText ? VW_FONT_LINE : 0.0f );
}

/// Queue the glyphs of `text` with their top left at (x, y), enlarged `scale` times, each stroke
/// widened by `grow` pixels to the right and down (a shadow).
static void vwPushText( vwHud* hud, float x, float y, float scale, float grow, const uint8_t color[4],
                        const char* text )
{
    // one glyph is a dozen quads at most; stb_easy_font stops at the end of the buffer
    float buffer[64 * 4 * 4];
    float penX = 0.0f;
    float penY = 0.0f;
    for ( const char* p = text; *p != '\0'; ++p )
    {
        if ( *p == '\n' )
        {
            penX = 0.0f;
            penY += VW_FONT_LINE;
            continue;
        }
        char glyph[2] = { vwFontChar( (unsigned char)*p ), '\0' };
        if ( glyph[0] == '\0' )
        {
            continue;
        }
        int quads = stb_easy_font_print( 0.0f, 0.0f, glyph, NULL, buffer, (int)sizeof( buffer ) );
        for ( int q = 0; q < quads; ++q )
        {
            // vertices of 4 floats: x, y, z, colour bytes; corners 0 and 2 are opposite
            const float* v = buffer + 16 * q;
            float x0 = x + ( penX + v[0] ) * scale;
            float y0 = y + ( penY + v[1] ) * scale;
            float x1 = x + ( penX + v[8] ) * scale;
            float y1 = y + ( penY + v[9] ) * scale;
            vwPushRect( hud, x0, y0, x1 - x0 + grow, y1 - y0 + grow, color );
        }
        penX += (float)stb_easy_font_width( glyph );
    }
}

float vwHudText( vwHud* hud, float x, float y, const float color[4], const char* text )
{
    if ( hud == NULL || text == NULL || !isfinite( x ) || !isfinite( y ) )
    {
        return 0.0f;
    }

    // whole pixels keep the glyphs' strokes sharp
    float scale = hud->scale;
    x = floorf( x + 0.5f );
    y = floorf( y + 0.5f );

    // a dark copy under the text, its strokes widened one (scaled) pixel right and down: a shadow
    // on two sides keeps the text legible over a bright scene
    const float* c = color != NULL ? color : vw_white;
    const float shadow[4] = { 0.0f, 0.0f, 0.0f, 0.7f * c[3] };
    uint8_t packed[4];
    vwPackColor( shadow, 1.0f, packed );
    if ( packed[3] > 0 )
    {
        float grow = floorf( scale + 0.5f );
        vwPushText( hud, x, y, scale, grow > 1.0f ? grow : 1.0f, packed, text );
    }
    vwPackColor( c, 1.0f, packed );
    vwPushText( hud, x, y, scale, 0.0f, packed, text );

    float width, height;
    vwMeasureText( text, &width, &height );
    return width * scale;
}

void vwHudTextSize( const vwHud* hud, const char* text, float* width, float* height )
{
    float w = 0.0f;
    float h = 0.0f;
    if ( text != NULL )
    {
        float scale = hud != NULL ? hud->scale : 1.0f;
        vwMeasureText( text, &w, &h );
        w *= scale;
        h *= scale;
    }
    if ( width != NULL )
    {
        *width = w;
    }
    if ( height != NULL )
    {
        *height = h;
    }
}

// --- plots --------------------------------------------------------------------------------------

/// A sample drawn at all: finite, and positive on a log axis.
static bool vwPlotValid( float value, bool logY )
{
    return isfinite( value ) && ( !logY || value > 0.0f );
}

/// The y range in axis units (log10 for logY). Given ranges are in data units; a log range needs
/// yMin > 0 or it is fitted. Fitted log ranges snap outwards to whole decades; fitted linear ones
/// get 5 % margins (not below zero for data that is not). Always lo < hi, both finite.
static void vwPlotRange( const vwPlot* plot, double* lo, double* hi )
{
    bool logY = plot->logY;
    double a = plot->yMin;
    double b = plot->yMax;
    if ( isfinite( a ) && isfinite( b ) && a < b && ( !logY || a > 0.0 ) )
    {
        *lo = logY ? log10( a ) : a;
        *hi = logY ? log10( b ) : b;
        return;
    }

    double least = INFINITY;
    double most = -INFINITY;
    for ( int s = 0; plot->series != NULL && s < plot->seriesCount; ++s )
    {
        const vwPlotSeries* series = plot->series + s;
        for ( int i = 0; series->values != NULL && i < series->count; ++i )
        {
            float value = series->values[i];
            if ( vwPlotValid( value, logY ) )
            {
                double u = logY ? log10( (double)value ) : (double)value;
                least = u < least ? u : least;
                most = u > most ? u : most;
            }
        }
    }

    if ( !( least <= most ) )
    {
        // nothing to draw: a neutral range
        *lo = logY ? -6.0 : 0.0;
        *hi = logY ? 0.0 : 1.0;
    }
    else if ( logY )
    {
        // float samples of exact decades land a hair off them (log10(1e-6f) < -6)
        *lo = floor( least + 1.0e-5 );
        *hi = ceil( most - 1.0e-5 );
        if ( *hi <= *lo )
        {
            // one exact decade: put it in the middle
            *lo -= 1.0;
            *hi += 1.0;
        }
    }
    else
    {
        double span = most - least;
        double size = fabs( least ) > fabs( most ) ? fabs( least ) : fabs( most );
        if ( span <= 1.0e-6 * size || span == 0.0 )
        {
            // constant: a band around it
            double pad = size > 0.0 ? 0.1 * size : 1.0;
            *lo = least - pad;
            *hi = most + pad;
        }
        else
        {
            *lo = least - 0.05 * span;
            *hi = most + 0.05 * span;
        }
        if ( least >= 0.0 && *lo < 0.0 )
        {
            *lo = 0.0;
        }
    }
    if ( !isfinite( *lo ) || !isfinite( *hi ) || !( *hi > *lo ) )
    {
        *lo = 0.0;
        *hi = 1.0;
    }
}

static void vwPlotLabel( char* out, size_t size, double value, bool logY )
{
    if ( logY )
    {
        snprintf( out, size, "%.0e", pow( 10.0, value ) );
    }
    else
    {
        snprintf( out, size, "%.3g", value );
    }
}

/// A rectangle's outline drawn inside it, `thickness` pixels.
static void vwFrameRect( vwHud* hud, float x, float y, float width, float height, float thickness,
                         const float color[4] )
{
    float t = thickness;
    vwHudRect( hud, x, y, width, t, color );
    vwHudRect( hud, x, y + height - t, width, t, color );
    vwHudRect( hud, x, y + t, t, height - 2.0f * t, color );
    vwHudRect( hud, x + width - t, y + t, t, height - 2.0f * t, color );
}

/// The legend: a swatch and the label of each series that has one. Right-aligned on the title row
/// when it fits there (`rowLeft` .. `right`), else stacked in the top right of the data area.
static void vwPlotLegend( vwHud* hud, const vwPlot* plot, float rowLeft, float rowY, float right,
                          float dataTop )
{
    float s = hud->scale;
    float swatch = 7.0f * s;
    float gap = 4.0f * s;
    float spacing = 10.0f * s;

    float total = 0.0f;
    float widest = 0.0f;
    int entries = 0;
    for ( int i = 0; i < plot->seriesCount; ++i )
    {
        const char* label = plot->series[i].label;
        if ( label != NULL && label[0] != '\0' )
        {
            float width;
            vwHudTextSize( hud, label, &width, NULL );
            float entry = swatch + gap + width;
            total += ( entries > 0 ? spacing : 0.0f ) + entry;
            widest = entry > widest ? entry : widest;
            entries += 1;
        }
    }
    if ( entries == 0 )
    {
        return;
    }

    float line = VW_FONT_LINE * s;
    bool onTitleRow = right - total >= rowLeft;
    float x = onTitleRow ? right - total : right - widest - gap;
    float y = onTitleRow ? rowY : dataTop + gap;
    if ( !onTitleRow )
    {
        vwHudRect( hud, x - gap, y - gap, widest + 2.0f * gap, (float)entries * line + gap, vw_plotLegend );
    }
    for ( int i = 0; i < plot->seriesCount; ++i )
    {
        const vwPlotSeries* series = plot->series + i;
        if ( series->label == NULL || series->label[0] == '\0' )
        {
            continue;
        }
        vwHudRect( hud, floorf( x + 0.5f ), floorf( y + 0.5f ) + 1.0f * s, swatch, swatch, series->color );
        float width = vwHudText( hud, x + swatch + gap, y, vw_plotTitle, series->label );
        if ( onTitleRow )
        {
            x += swatch + gap + width + spacing;
        }
        else
        {
            y += line;
        }
    }
}

void vwHudPlot( vwHud* hud, const vwPlot* plot )
{
    if ( hud == NULL || plot == NULL || !isfinite( plot->x ) || !isfinite( plot->y ) ||
         !( plot->width > 0.0f ) || !( plot->height > 0.0f ) || !isfinite( plot->width ) ||
         !isfinite( plot->height ) )
    {
        return;
    }

    float s = hud->scale;
    float x = floorf( plot->x + 0.5f );
    float y = floorf( plot->y + 0.5f );
    float w = floorf( plot->width + 0.5f );
    float h = floorf( plot->height + 0.5f );
    float pad = floorf( 4.0f * s + 0.5f );
    float line = VW_FONT_LINE * s;
    float hairline = floorf( s + 0.5f ) > 1.0f ? floorf( s + 0.5f ) : 1.0f;
    vwPlot safe = *plot;
    if ( safe.series == NULL || safe.seriesCount < 0 )
    {
        safe.seriesCount = 0;
    }

    vwHudRect( hud, x, y, w, h, vw_plotBackground );
    vwFrameRect( hud, x, y, w, h, hairline, vw_plotFrame );

    float titleWidth = 0.0f;
    if ( safe.title != NULL )
    {
        titleWidth = vwHudText( hud, x + pad, y + pad, vw_plotTitle, safe.title );
    }

    // y labels sit left of the data area, centred on its top and bottom edges (glyphs ~ 8 px tall)
    double lo, hi;
    vwPlotRange( &safe, &lo, &hi );
    char top[32], bottom[32];
    vwPlotLabel( top, sizeof( top ), hi, safe.logY );
    vwPlotLabel( bottom, sizeof( bottom ), lo, safe.logY );
    float topWidth, bottomWidth;
    vwHudTextSize( hud, top, &topWidth, NULL );
    vwHudTextSize( hud, bottom, &bottomWidth, NULL );
    float labelWidth = topWidth > bottomWidth ? topWidth : bottomWidth;

    float left = x + pad + labelWidth + pad;
    float right = x + w - pad;
    float dataTop = y + pad + line + 6.0f * s;
    float dataBottom = y + h - pad - 5.0f * s;
    if ( safe.xLabel != NULL && safe.xLabel[0] != '\0' )
    {
        float labelWidthX;
        vwHudTextSize( hud, safe.xLabel, &labelWidthX, NULL );
        float labelY = y + h - pad - 9.0f * s;
        vwHudText( hud, 0.5f * ( left + right - labelWidthX ), labelY, vw_plotLabel, safe.xLabel );
        dataBottom = labelY - 5.0f * s;
    }
    right = right > left + 1.0f ? right : left + 1.0f;
    dataBottom = dataBottom > dataTop + 1.0f ? dataBottom : dataTop + 1.0f;
    float dataWidth = right - left;
    float dataHeight = dataBottom - dataTop;

    vwHudText( hud, left - pad - topWidth, dataTop - 4.0f * s, vw_plotLabel, top );
    vwHudText( hud, left - pad - bottomWidth, dataBottom - 4.0f * s, vw_plotLabel, bottom );

    // gridlines: each decade of a log axis (thinned to at most ~12), the ends of a linear one;
    // on pixel centres so that hairlines stay sharp
    double span = hi - lo;
    if ( safe.logY )
    {
        double step = ceil( span / 12.0 );
        step = step > 1.0 ? step : 1.0;
        for ( double decade = ceil( lo / step ) * step; decade <= hi + 1.0e-9; decade += step )
        {
            float gy = dataBottom - (float)( ( decade - lo ) / span ) * dataHeight;
            gy = floorf( gy ) + 0.5f;
            vwPushLine( hud, left, gy, right, gy, 1.0f, vw_plotGrid );
        }
    }
    else
    {
        vwPushLine( hud, left, floorf( dataTop ) + 0.5f, right, floorf( dataTop ) + 0.5f, 1.0f, vw_plotGrid );
        vwPushLine( hud, left, floorf( dataBottom ) + 0.5f, right, floorf( dataBottom ) + 0.5f, 1.0f,
                    vw_plotGrid );
        if ( lo < 0.0 && hi > 0.0 )
        {
            float zy = floorf( dataBottom - (float)( -lo / span ) * dataHeight ) + 0.5f;
            vwPushLine( hud, left, zy, right, zy, 1.0f, vw_plotFrame );
        }
    }

    // the marks, under the series: x as the samples' (of the longest series)
    int longest = 0;
    for ( int k = 0; k < safe.seriesCount; ++k )
    {
        longest =
            safe.series[k].values != NULL && safe.series[k].count > longest ? safe.series[k].count : longest;
    }
    for ( int k = 0; safe.marks != NULL && k < safe.markCount && longest > 1; ++k )
    {
        float at = safe.marks[k];
        if ( isfinite( at ) && at >= 0.0f && at <= (float)( longest - 1 ) )
        {
            float mx = floorf( left + dataWidth * at / (float)( longest - 1 ) ) + 0.5f;
            vwPushLine( hud, mx, dataTop, mx, dataBottom, 1.0f, vw_plotFrame );
        }
    }

    // series: x is the sample index across the data area; invalid samples break the line, and a
    // sample alone between breaks is a dot
    float thickness = 1.5f * s;
    float dot = 3.0f * s > 3.0f ? 3.0f * s : 3.0f;
    for ( int k = 0; k < safe.seriesCount; ++k )
    {
        const vwPlotSeries* series = safe.series + k;
        if ( series->values == NULL || series->count <= 0 || !vwReservePoints( hud, series->count ) )
        {
            continue;
        }
        float step = series->count > 1 ? dataWidth / (float)( series->count - 1 ) : 0.0f;
        int run = 0; // valid samples in a row so far, in hud->points
        for ( int i = 0; i <= series->count; ++i )
        {
            bool valid = i < series->count && vwPlotValid( series->values[i], safe.logY );
            if ( !valid )
            {
                if ( run == 1 )
                {
                    vwHudRect( hud, hud->points[0] - 0.5f * dot, hud->points[1] - 0.5f * dot, dot, dot,
                               series->color );
                }
                else if ( run > 1 )
                {
                    vwPushPolyline( hud, hud->points, run, thickness, series->color );
                }
                run = 0;
                continue;
            }
            double value = series->values[i];
            double u = safe.logY ? log10( value ) : value;
            double t = ( u - lo ) / span;
            t = t > 0.0 ? ( t < 1.0 ? t : 1.0 ) : 0.0;
            hud->points[2 * run] = left + step * (float)i;
            hud->points[2 * run + 1] = dataBottom - (float)t * dataHeight;
            run += 1;
        }
    }

    if ( safe.seriesCount > 0 )
    {
        vwPlotLegend( hud, &safe, x + pad + titleWidth + 12.0f * s, y + pad, x + w - pad, dataTop );
    }
}
