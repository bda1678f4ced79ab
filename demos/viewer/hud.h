// SPDX-License-Identifier: MIT
// The 2-D overlay: text (stb_easy_font), filled rectangles and line plots, in pixels with the
// origin at the top left. Calls between vwHudBegin and vwHudEnd are queued and drawn in order by
// vwHudEnd, over whatever the frame holds. OpenGL 3.3 core.
#pragma once

#include <stdbool.h>

typedef struct vwHud vwHud;

/// NULL (and a message on stderr) when the shader fails to build.
vwHud* vwCreateHud( void );
void vwDestroyHud( vwHud* hud );

/// Start a frame of `width` x `height` pixels; `scale` enlarges text (1 = stb_easy_font's size).
void vwHudBegin( vwHud* hud, int width, int height, float scale );
void vwHudEnd( vwHud* hud );

/// Text at (x, y) (top left of the first line); '\n' starts a new line. Returns the width drawn.
float vwHudText( vwHud* hud, float x, float y, const float color[4], const char* text );
/// Width and height the text would take.
void vwHudTextSize( const vwHud* hud, const char* text, float* width, float* height );
void vwHudRect( vwHud* hud, float x, float y, float width, float height, const float color[4] );
void vwHudLine( vwHud* hud, float x0, float y0, float x1, float y1, float thickness, const float color[4] );

/// A plot of one or more series in a box: frame, a title, y-axis labels at the ends, optional
/// log10 y axis (non-positive values are skipped). x is the sample index.
typedef struct vwPlotSeries
{
    const float* values;
    int count;
    float color[4];
    const char* label; ///< nullable: drawn in the legend
} vwPlotSeries;

typedef struct vwPlot
{
    float x, y, width, height;
    const char* title;
    const char* xLabel; ///< nullable
    bool logY;
    /// y range; when yMin >= yMax the range is fitted to the data (in log space for logY)
    float yMin, yMax;
    const vwPlotSeries* series;
    int seriesCount;
    /// Faint vertical lines at these sample indices (where passes start); nullable.
    const float* marks;
    int markCount;
} vwPlot;

void vwHudPlot( vwHud* hud, const vwPlot* plot );
