// SPDX-License-Identifier: MIT
#pragma once

// Chainmail geometry: the poses of the rings of a European 4-in-1 sheet of rigid tori.
//
// Layout. Column `column` sits at x = column * columnSpacing, and its rings are stacked along y,
// rowSpacing apart. Odd columns are shifted by +rowSpacing / 2 in y. Each ring's axis (the torus's
// local z) leans from +z by `tilt` about the x axis, so that x stays in the ring's plane. In even
// columns the axis leans toward -y, in odd columns toward +y. The rings of one column overlap like
// fallen dominoes and do not link. Ring (row, column) links the rings of columns column - 1 and
// column + 1 that are half a row spacing above and below it. Those are rows row - 1 and row of the
// neighbouring columns when `column` is even, and rows row and row + 1 when it is odd. The mean
// of the ring centres is the origin, and every centre has z = 0.
//
// Spacing. A torus's tube is the set of points within r of its core circle, so the gap between two
// tubes is the distance between their core circles minus 2 r. The weave below (all lengths in
// units of R) maximises the smallest core-circle distance over all ring pairs, which is D = 0.50239 R.
// That optimum does not depend on r, so one geometry serves every ratio and r only sets the
// clearance D - 2 r. It was found numerically as a max-min over (columnSpacing, rowSpacing, tilt, and
// the lean's azimuth, which comes out as pure y). Three pair families are tight at the optimum: the
// 4 linked neighbours, the next rings of the neighbouring columns (rows 2 apart), and the same row
// two columns over (2 columnSpacing - 2 R = D).
//     columnSpacing = 1.251198 R,  rowSpacing = 1.2470 R,  tilt = 34.112 degrees
// The largest supported ratio r / R is CN_WEAVE_MAX_RATIO = 0.22. There the clearance is
// 0.0624 R = 0.28 r. Geometrically the rings stay apart up to r / R = 0.2512, but the gap is
// then too thin to rely on.

#include "cairn/math.h"

#include <stdbool.h>

// Largest minor / major radius ratio the weave accepts.
#define CN_WEAVE_MAX_RATIO 0.22

// Spacings and extent of a sheet (see the layout above).
typedef struct cnWeaveLayout
{
    // x distance between adjacent columns, m
    double columnSpacing;
    // y distance between adjacent rings of one column, m
    double rowSpacing;
    // angle between each ring's axis and +z, rad
    double tilt;
    // smallest distance between the two core circles of any pair of rings, m
    double coreGap;
    // coreGap - 2 minorRadius: the smallest gap between two tubes, m
    double clearance;
    // box around every torus of the sheet (tubes included), in the sheet's frame
    cnVec3 lower;
    cnVec3 upper;
} cnWeaveLayout;

// The layout of a `rows` x `columns` sheet of tori with radii `majorRadius` and `minorRadius`.
// Returns false and writes a one-line reason to `message` (`messageSize` bytes, nullable) if the
// radii are not finite and positive, if minor / major is above CN_WEAVE_MAX_RATIO, if rows or
// columns is below 1, or if rows * columns overflows an int.
bool cnWeaveEuropean4in1Layout( double majorRadius, double minorRadius, int rows, int columns,
                                cnWeaveLayout* layout, char* message, int messageSize );

// The poses of the rings of a European 4-in-1 sheet, out[row * columns + column] (rows * columns
// entries): the torus's frame (axis = local z) for each ring. The sheet lies in the xy plane,
// centred on the origin. Every ring links its 4 diagonal neighbours (fewer at the edges), links
// no other ring, and touches none. False, with `message`, as cnWeaveEuropean4in1Layout.
bool cnWeaveEuropean4in1( double majorRadius, double minorRadius, int rows, int columns, cnTransform* out,
                          char* message, int messageSize );
