// SPDX-License-Identifier: MIT
// bench_plot: SVG line plots for the benchmarks; the API is described in bench_plot.h.
#include "bench_plot.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PLOT_WIDTH        800.0
#define PLOT_PANEL_HEIGHT 450.0
// the frame inside a panel: margins for the tick labels, axis labels and title
#define PLOT_LEFT       80.0
#define PLOT_RIGHT      20.0
#define PLOT_TOP        40.0
#define PLOT_BOTTOM     60.0
#define PLOT_MAX_HLINES 4

typedef struct PlotSeries
{
    char* name;
    double* x;
    double* y;
    int count;
    bool markers;
} PlotSeries;

typedef struct PlotHLine
{
    double y;
    char* label;
} PlotHLine;

struct cnPlot
{
    char* title;
    char* xLabel;
    char* yLabel;
    bool logY;
    bool fixedY, fixedX;
    double yMin, yMax, xMin, xMax;
    PlotSeries series[CN_PLOT_MAX_SERIES];
    int seriesCount;
    PlotHLine hlines[PLOT_MAX_HLINES];
    int hlineCount;
};

static const char* const s_palette[10] = { "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                           "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf" };

static char* PlotCopyString( const char* s )
{
    const char* src = s != NULL ? s : "";
    size_t n = strlen( src ) + 1;
    char* copy = malloc( n );
    if ( copy != NULL )
    {
        memcpy( copy, src, n );
    }
    return copy;
}

cnPlot* cnPlot_Create( const char* title, const char* xLabel, const char* yLabel, bool logY )
{
    cnPlot* plot = calloc( 1, sizeof( cnPlot ) );
    if ( plot == NULL )
    {
        return NULL;
    }
    plot->title = PlotCopyString( title );
    plot->xLabel = PlotCopyString( xLabel );
    plot->yLabel = PlotCopyString( yLabel );
    plot->logY = logY;
    return plot;
}

void cnPlot_Destroy( cnPlot* plot )
{
    if ( plot == NULL )
    {
        return;
    }
    for ( int i = 0; i < plot->seriesCount; ++i )
    {
        free( plot->series[i].name );
        free( plot->series[i].x );
        free( plot->series[i].y );
    }
    for ( int i = 0; i < plot->hlineCount; ++i )
    {
        free( plot->hlines[i].label );
    }
    free( plot->title );
    free( plot->xLabel );
    free( plot->yLabel );
    free( plot );
}

static bool PlotAdd( cnPlot* plot, const char* name, const double* x, const double* y, int count,
                     bool markers )
{
    if ( plot == NULL || plot->seriesCount >= CN_PLOT_MAX_SERIES || count < 0 )
    {
        return false;
    }
    PlotSeries* s = &plot->series[plot->seriesCount];
    size_t bytes = (size_t)( count > 0 ? count : 1 ) * sizeof( double );
    s->name = PlotCopyString( name );
    s->x = malloc( bytes );
    s->y = malloc( bytes );
    if ( s->name == NULL || s->x == NULL || s->y == NULL )
    {
        free( s->name );
        free( s->x );
        free( s->y );
        memset( s, 0, sizeof( *s ) );
        return false;
    }
    if ( count > 0 )
    {
        memcpy( s->x, x, (size_t)count * sizeof( double ) );
        memcpy( s->y, y, (size_t)count * sizeof( double ) );
    }
    s->count = count;
    s->markers = markers;
    plot->seriesCount += 1;
    return true;
}

bool cnPlot_AddSeries( cnPlot* plot, const char* name, const double* x, const double* y, int count )
{
    return PlotAdd( plot, name, x, y, count, false );
}

bool cnPlot_AddMarkers( cnPlot* plot, const char* name, const double* x, const double* y, int count )
{
    return PlotAdd( plot, name, x, y, count, true );
}

void cnPlot_SetYRange( cnPlot* plot, double yMin, double yMax )
{
    if ( plot != NULL && yMax > yMin && ( !plot->logY || yMin > 0.0 ) )
    {
        plot->fixedY = true;
        plot->yMin = yMin;
        plot->yMax = yMax;
    }
}

void cnPlot_SetXRange( cnPlot* plot, double xMin, double xMax )
{
    if ( plot != NULL && xMax > xMin )
    {
        plot->fixedX = true;
        plot->xMin = xMin;
        plot->xMax = xMax;
    }
}

void cnPlot_AddHLine( cnPlot* plot, double y, const char* label )
{
    if ( plot != NULL && plot->hlineCount < PLOT_MAX_HLINES )
    {
        plot->hlines[plot->hlineCount].y = y;
        plot->hlines[plot->hlineCount].label = PlotCopyString( label );
        plot->hlineCount += 1;
    }
}

// a point is drawable when both coordinates are finite and, on a log axis, y > 0
static bool PlotUsable( const cnPlot* plot, double x, double y )
{
    return isfinite( x ) && isfinite( y ) && ( !plot->logY || y > 0.0 );
}

// the data ranges, widened so that a flat series still gets a frame
static void PlotRanges( const cnPlot* plot, double* x0, double* x1, double* y0, double* y1 )
{
    double xl = INFINITY, xh = -INFINITY, yl = INFINITY, yh = -INFINITY;
    for ( int i = 0; i < plot->seriesCount; ++i )
    {
        const PlotSeries* s = &plot->series[i];
        for ( int k = 0; k < s->count; ++k )
        {
            if ( PlotUsable( plot, s->x[k], s->y[k] ) )
            {
                xl = fmin( xl, s->x[k] );
                xh = fmax( xh, s->x[k] );
                yl = fmin( yl, s->y[k] );
                yh = fmax( yh, s->y[k] );
            }
        }
    }
    for ( int i = 0; i < plot->hlineCount; ++i )
    {
        double y = plot->hlines[i].y;
        if ( isfinite( y ) && ( !plot->logY || y > 0.0 ) )
        {
            yl = fmin( yl, y );
            yh = fmax( yh, y );
        }
    }
    if ( !( xl <= xh ) )
    {
        xl = 0.0;
        xh = 1.0;
    }
    if ( !( yl <= yh ) )
    {
        yl = plot->logY ? 1.0e-3 : 0.0;
        yh = 1.0;
    }
    if ( xh == xl )
    {
        xl -= 0.5;
        xh += 0.5;
    }
    if ( plot->logY )
    {
        // whole decades
        yl = pow( 10.0, floor( log10( yl ) ) );
        yh = pow( 10.0, ceil( log10( yh ) ) );
        if ( yh <= yl )
        {
            yh = yl * 10.0;
        }
    }
    else
    {
        if ( yh == yl )
        {
            double pad = yl != 0.0 ? 0.1 * fabs( yl ) : 1.0;
            yl -= pad;
            yh += pad;
        }
        else
        {
            double pad = 0.05 * ( yh - yl );
            yl -= pad;
            yh += pad;
        }
    }
    *x0 = plot->fixedX ? plot->xMin : xl;
    *x1 = plot->fixedX ? plot->xMax : xh;
    *y0 = plot->fixedY ? plot->yMin : yl;
    *y1 = plot->fixedY ? plot->yMax : yh;
}

// writes s with the five XML specials escaped
static void PlotText( FILE* f, const char* s )
{
    for ( ; *s != '\0'; ++s )
    {
        switch ( *s )
        {
            case '<':
                fputs( "&lt;", f );
                break;
            case '>':
                fputs( "&gt;", f );
                break;
            case '&':
                fputs( "&amp;", f );
                break;
            case '"':
                fputs( "&quot;", f );
                break;
            case '\'':
                fputs( "&apos;", f );
                break;
            default:
                fputc( *s, f );
                break;
        }
    }
}

// a "nice" tick step (1, 2 or 5 times a power of ten) giving about target ticks over span
static double PlotNiceStep( double span, int target )
{
    double raw = span / (double)target;
    double mag = pow( 10.0, floor( log10( raw ) ) );
    double f = raw / mag;
    double nice = f < 1.5 ? 1.0 : ( f < 3.5 ? 2.0 : ( f < 7.5 ? 5.0 : 10.0 ) );
    return nice * mag;
}

static void PlotFormatTick( char* buf, size_t size, double v, double step )
{
    if ( fabs( v ) < 1.0e-12 * step )
    {
        v = 0.0;
    }
    double a = fabs( v );
    if ( v != 0.0 && ( a >= 1.0e5 || a < 1.0e-3 ) )
    {
        snprintf( buf, size, "%.3g", v );
    }
    else
    {
        int decimals = step >= 1.0 ? 0 : (int)ceil( -log10( step ) - 1.0e-9 );
        snprintf( buf, size, "%.*f", decimals, v );
    }
}

typedef struct PlotFrame
{
    double left, right, top, bottom; // pixel box of the data area
    double x0, x1, y0, y1;           // data ranges
    bool logY;
} PlotFrame;

static double PlotPx( const PlotFrame* fr, double x )
{
    return fr->left + ( x - fr->x0 ) / ( fr->x1 - fr->x0 ) * ( fr->right - fr->left );
}

static double PlotPy( const PlotFrame* fr, double y )
{
    double t;
    if ( fr->logY )
    {
        t = ( log10( y ) - log10( fr->y0 ) ) / ( log10( fr->y1 ) - log10( fr->y0 ) );
    }
    else
    {
        t = ( y - fr->y0 ) / ( fr->y1 - fr->y0 );
    }
    return fr->bottom - t * ( fr->bottom - fr->top );
}

// A polyline being written, thinned per half-pixel column (see PlotPanel).
typedef struct PlotLine
{
    FILE* f;
    bool open;
    long column; // -1: none pending
    // the pending column's first, lowest (largest py), highest (smallest py) and last points
    double firstX, firstY, lastX, lastY;
    double lowX, lowY, highX, highY;
    int firstK, lastK, lowK, highK;
} PlotLine;

static void PlotLinePoint( PlotLine* line, double px, double py )
{
    fprintf( line->f, "%.2f,%.2f ", px, py );
}

// writes the pending column's kept points in their original order
static void PlotLineFlush( PlotLine* line )
{
    if ( line->column < 0 )
    {
        return;
    }
    int ks[4] = { line->firstK, line->lowK, line->highK, line->lastK };
    double xs[4] = { line->firstX, line->lowX, line->highX, line->lastX };
    double ys[4] = { line->firstY, line->lowY, line->highY, line->lastY };
    // sort the four by index (insertion sort), then skip repeats
    for ( int i = 1; i < 4; ++i )
    {
        for ( int j = i; j > 0 && ks[j] < ks[j - 1]; --j )
        {
            int tk = ks[j];
            ks[j] = ks[j - 1];
            ks[j - 1] = tk;
            double tx = xs[j];
            xs[j] = xs[j - 1];
            xs[j - 1] = tx;
            double ty = ys[j];
            ys[j] = ys[j - 1];
            ys[j - 1] = ty;
        }
    }
    for ( int i = 0; i < 4; ++i )
    {
        if ( i == 0 || ks[i] != ks[i - 1] )
        {
            PlotLinePoint( line, xs[i], ys[i] );
        }
    }
    line->column = -1;
}

static void PlotLineClose( PlotLine* line )
{
    if ( line->open )
    {
        fputs( "\"/>\n", line->f );
        line->open = false;
    }
}

static void PlotLineAdd( PlotLine* line, const char* colour, double px, double py, int k )
{
    if ( !line->open )
    {
        fprintf( line->f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"", colour );
        line->open = true;
    }
    long column = (long)floor( 2.0 * px );
    if ( column != line->column )
    {
        PlotLineFlush( line );
        line->column = column;
        line->firstX = line->lastX = line->lowX = line->highX = px;
        line->firstY = line->lastY = line->lowY = line->highY = py;
        line->firstK = line->lastK = line->lowK = line->highK = k;
        return;
    }
    line->lastX = px;
    line->lastY = py;
    line->lastK = k;
    if ( py > line->lowY )
    {
        line->lowX = px;
        line->lowY = py;
        line->lowK = k;
    }
    if ( py < line->highY )
    {
        line->highX = px;
        line->highY = py;
        line->highK = k;
    }
}

static void PlotPanel( FILE* f, const cnPlot* plot, double yOffset )
{
    PlotFrame fr;
    fr.left = PLOT_LEFT;
    fr.right = PLOT_WIDTH - PLOT_RIGHT;
    fr.top = yOffset + PLOT_TOP;
    fr.bottom = yOffset + PLOT_PANEL_HEIGHT - PLOT_BOTTOM;
    fr.logY = plot->logY;
    PlotRanges( plot, &fr.x0, &fr.x1, &fr.y0, &fr.y1 );

    fprintf(
        f,
        "<g>\n<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"white\" stroke=\"black\"/>\n",
        fr.left, fr.top, fr.right - fr.left, fr.bottom - fr.top );

    // x ticks and grid
    double xs = PlotNiceStep( fr.x1 - fr.x0, 8 );
    for ( double v = ceil( fr.x0 / xs - 1.0e-9 ) * xs; v <= fr.x1 + 1.0e-9 * xs; v += xs )
    {
        char buf[32];
        double px = PlotPx( &fr, v );
        PlotFormatTick( buf, sizeof( buf ), v, xs );
        fprintf( f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#dddddd\"/>\n", px,
                 fr.top, px, fr.bottom );
        fprintf( f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" text-anchor=\"middle\">%s</text>\n", px,
                 fr.bottom + 16.0, buf );
    }
    // y ticks and grid
    if ( plot->logY )
    {
        int d0 = (int)ceil( log10( fr.y0 ) - 1.0e-9 );
        int d1 = (int)floor( log10( fr.y1 ) + 1.0e-9 );
        int every = ( d1 - d0 ) > 10 ? ( d1 - d0 + 9 ) / 10 : 1;
        for ( int d = d0; d <= d1; ++d )
        {
            double py = PlotPy( &fr, pow( 10.0, d ) );
            fprintf( f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#dddddd\"/>\n",
                     fr.left, py, fr.right, py );
            if ( ( d - d0 ) % every == 0 )
            {
                fprintf( f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" text-anchor=\"end\">1e%d</text>\n",
                         fr.left - 6.0, py + 4.0, d );
            }
        }
    }
    else
    {
        double ys = PlotNiceStep( fr.y1 - fr.y0, 6 );
        for ( double v = ceil( fr.y0 / ys - 1.0e-9 ) * ys; v <= fr.y1 + 1.0e-9 * ys; v += ys )
        {
            char buf[32];
            double py = PlotPy( &fr, v );
            PlotFormatTick( buf, sizeof( buf ), v, ys );
            fprintf( f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#dddddd\"/>\n",
                     fr.left, py, fr.right, py );
            fprintf( f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" text-anchor=\"end\">%s</text>\n",
                     fr.left - 6.0, py + 4.0, buf );
        }
    }

    // title and axis labels
    fprintf( f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"15\" text-anchor=\"middle\">",
             0.5 * ( fr.left + fr.right ), yOffset + 24.0 );
    PlotText( f, plot->title );
    fputs( "</text>\n", f );
    fprintf( f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"13\" text-anchor=\"middle\">",
             0.5 * ( fr.left + fr.right ), fr.bottom + 40.0 );
    PlotText( f, plot->xLabel );
    fputs( "</text>\n", f );
    double cy = 0.5 * ( fr.top + fr.bottom );
    fprintf( f,
             "<text x=\"18\" y=\"%.1f\" font-size=\"13\" text-anchor=\"middle\" transform=\"rotate(-90 18 "
             "%.1f)\">",
             cy, cy );
    PlotText( f, plot->yLabel );
    fputs( "</text>\n", f );

    // the data, clipped to the frame
    static int s_clipId = 0;
    int clip = ++s_clipId;
    fprintf(
        f,
        "<clipPath id=\"clip%d\"><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/></clipPath>\n",
        clip, fr.left, fr.top, fr.right - fr.left, fr.bottom - fr.top );
    fprintf( f, "<g clip-path=\"url(#clip%d)\">\n", clip );
    for ( int i = 0; i < plot->hlineCount; ++i )
    {
        const PlotHLine* h = &plot->hlines[i];
        if ( !isfinite( h->y ) || ( plot->logY && h->y <= 0.0 ) )
        {
            continue;
        }
        double py = PlotPy( &fr, h->y );
        fprintf( f,
                 "<line x1=\"%.1f\" y1=\"%.2f\" x2=\"%.1f\" y2=\"%.2f\" stroke=\"black\" "
                 "stroke-dasharray=\"6,4\"/>\n",
                 fr.left, py, fr.right, py );
        fprintf( f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\">", fr.left + 6.0, py - 4.0 );
        PlotText( f, h->label );
        fputs( "</text>\n", f );
    }
    for ( int i = 0; i < plot->seriesCount; ++i )
    {
        const PlotSeries* s = &plot->series[i];
        const char* colour = s_palette[i % 10];
        if ( s->markers )
        {
            for ( int k = 0; k < s->count; ++k )
            {
                if ( PlotUsable( plot, s->x[k], s->y[k] ) )
                {
                    fprintf( f, "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"3\" fill=\"%s\"/>\n",
                             PlotPx( &fr, s->x[k] ), PlotPy( &fr, s->y[k] ), colour );
                }
            }
            continue;
        }
        // long series are thinned per half-pixel column of x: the first, lowest, highest and last
        // points of each column are kept, in their order, so spikes survive and files stay small
        PlotLine line = { 0 };
        line.f = f;
        line.column = -1;
        for ( int k = 0; k < s->count; ++k )
        {
            if ( !PlotUsable( plot, s->x[k], s->y[k] ) )
            {
                PlotLineFlush( &line );
                PlotLineClose( &line );
                continue;
            }
            PlotLineAdd( &line, colour, PlotPx( &fr, s->x[k] ), PlotPy( &fr, s->y[k] ), k );
        }
        PlotLineFlush( &line );
        PlotLineClose( &line );
    }
    fputs( "</g>\n", f );

    // the legend, top right inside the frame
    // its width from the longest name (about 6.8 px per character at 12 px)
    size_t longest = 0;
    for ( int i = 0; i < plot->seriesCount; ++i )
    {
        size_t len = strlen( plot->series[i].name );
        longest = len > longest ? len : longest;
    }
    double width = fmin( 44.0 + 6.8 * (double)longest, fr.right - fr.left - 20.0 );
    double lx = fr.right - 10.0 - width;
    double ly = fr.top + 10.0;
    if ( plot->seriesCount > 0 )
    {
        fprintf( f,
                 "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"white\" "
                 "fill-opacity=\"0.85\" stroke=\"#999999\"/>\n",
                 lx, ly, width, 8.0 + 16.0 * (double)plot->seriesCount );
    }
    for ( int i = 0; i < plot->seriesCount; ++i )
    {
        double y = ly + 14.0 + 16.0 * (double)i;
        const char* colour = s_palette[i % 10];
        if ( plot->series[i].markers )
        {
            fprintf( f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n", lx + 18.0, y - 4.0,
                     colour );
        }
        else
        {
            fprintf(
                f,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\"/>\n",
                lx + 6.0, y - 4.0, lx + 30.0, y - 4.0, colour );
        }
        fprintf( f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\">", lx + 36.0, y );
        PlotText( f, plot->series[i].name );
        fputs( "</text>\n", f );
    }
    fputs( "</g>\n", f );
}

bool cnPlot_WriteSvgPanels( const cnPlot* const* plots, int count, const char* path )
{
    FILE* f = fopen( path, "w" );
    if ( f == NULL )
    {
        return false;
    }
    double height = PLOT_PANEL_HEIGHT * (double)( count > 0 ? count : 1 );
    fprintf(
        f,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
        "font-family=\"sans-serif\">\n",
        PLOT_WIDTH, height, PLOT_WIDTH, height );
    fprintf( f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n" );
    for ( int i = 0; i < count; ++i )
    {
        if ( plots[i] != NULL )
        {
            PlotPanel( f, plots[i], PLOT_PANEL_HEIGHT * (double)i );
        }
    }
    fputs( "</svg>\n", f );
    bool ok = ferror( f ) == 0;
    if ( fclose( f ) != 0 )
    {
        ok = false;
    }
    return ok;
}

bool cnPlot_WriteSvg( const cnPlot* plot, const char* path )
{
    const cnPlot* one[1] = { plot };
    return cnPlot_WriteSvgPanels( one, 1, path );
}
