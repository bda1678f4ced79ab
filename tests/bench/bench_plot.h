// SPDX-License-Identifier: MIT
// bench_plot: a tiny, dependency-free SVG line-plot writer for the benchmarks (C17, libc + libm).
//
// A figure is one or more panels stacked vertically; each panel has a title, axis labels, a linear
// or logarithmic y axis, and any number of named series (polylines) listed in a legend. Series data
// is COPIED when added, so the caller's arrays may be freed or reused at once.
//
//     cnPlot* plot = cnPlot_Create( "max overlap per step", "time (s)", "overlap (m)", true );
//     cnPlot_AddSeries( plot, "relcp", t, overlapRelcp, n );    // x[], y[], n points
//     cnPlot_AddSeries( plot, "LCP", t, overlapLcp, n );
//     cnPlot_SetYRange( plot, 1.0e-8, 1.0 );                   // optional; default: from the data
//     cnPlot_WriteSvg( plot, "docs/images/relcp_chainmail.svg" ); // true on success
//     cnPlot_Destroy( plot );
//
//     cnPlot* panels[3] = { px, py, pa };                        // several panels in one file
//     cnPlot_WriteSvgPanels( (const cnPlot* const*)panels, 3, "docs/images/x.svg" );
//
// Rules: on a log axis, points with y <= 0 or non-finite y are not drawn (the line breaks there);
// on a linear axis non-finite points break the line. Colours cycle through a fixed palette of 10.
// Long lines are thinned when written: per half-pixel column of x only the first, lowest, highest
// and last points are kept (in order), so spikes stay visible and a 10^5-point series stays small.
// At most CN_PLOT_MAX_SERIES series per panel (extra ones are refused: AddSeries returns false).
// Functions never print; WriteSvg returns false when the file cannot be written.
#pragma once

#include <stdbool.h>

#define CN_PLOT_MAX_SERIES 16

typedef struct cnPlot cnPlot;

// A new empty panel; strings are copied (NULL means empty). logY: logarithmic y axis (base 10).
cnPlot* cnPlot_Create( const char* title, const char* xLabel, const char* yLabel, bool logY );

// Frees the panel and its copied data; NULL is allowed.
void cnPlot_Destroy( cnPlot* plot );

// Adds a series of count points (x[i], y[i]); the data and name are copied. Returns false when the
// panel is full or memory runs out.
bool cnPlot_AddSeries( cnPlot* plot, const char* name, const double* x, const double* y, int count );

// Like cnPlot_AddSeries, but drawn as markers only (no line), e.g. for reference points.
bool cnPlot_AddMarkers( cnPlot* plot, const char* name, const double* x, const double* y, int count );

// Fixes the y range (on a log axis both must be > 0); by default the range fits the data.
void cnPlot_SetYRange( cnPlot* plot, double yMin, double yMax );

// Fixes the x range; by default it fits the data.
void cnPlot_SetXRange( cnPlot* plot, double xMin, double xMax );

// Draws a dashed horizontal line at y with a short label (e.g. a tolerance); up to 4 per panel.
void cnPlot_AddHLine( cnPlot* plot, double y, const char* label );

// Writes the panel as an SVG file (800 x 450 px). Returns false on an I/O error.
bool cnPlot_WriteSvg( const cnPlot* plot, const char* path );

// Writes count panels stacked vertically into one SVG file (800 px wide, 450 px per panel).
bool cnPlot_WriteSvgPanels( const cnPlot* const* plots, int count, const char* path );
