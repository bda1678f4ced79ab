// SPDX-License-Identifier: MIT
// European 4-in-1 chainmail: ring poses from the max-min spacing described in weave.h.

#include "weave.h"

#include "core.h"

#include <limits.h>
#include <math.h>
#include <stddef.h>

// In units of the major radius. These are the optimum of the max-min search over the smallest
// core-circle distance, rounded. At these values the smallest distance is 0.5023946 R, and the
// unrounded optimum gives 0.5023955 R.
#define CN_WEAVE_COLUMN_SPACING 1.251198
#define CN_WEAVE_ROW_SPACING    1.2470
#define CN_WEAVE_TILT_DEGREES   34.112
// smallest core-circle distance over all ring pairs, rounded down
#define CN_WEAVE_CORE_GAP 0.502394

bool cnWeaveEuropean4in1Layout( double majorRadius, double minorRadius, int rows, int columns,
                                cnWeaveLayout* layout, char* message, int messageSize )
{
    if ( !( majorRadius > 0.0 ) || !isfinite( majorRadius ) )
    {
        cnFormat( message, messageSize, "weave: major radius %g is not a positive number", majorRadius );
        return false;
    }
    if ( !( minorRadius > 0.0 ) || !isfinite( minorRadius ) )
    {
        cnFormat( message, messageSize, "weave: minor radius %g is not a positive number", minorRadius );
        return false;
    }
    double ratio = minorRadius / majorRadius;
    if ( ratio > CN_WEAVE_MAX_RATIO )
    {
        cnFormat( message, messageSize,
                  "weave: minor / major radius %g is above %g, the most the European 4-in-1 weave allows "
                  "(its rings would touch or nearly touch)",
                  ratio, CN_WEAVE_MAX_RATIO );
        return false;
    }
    if ( rows < 1 || columns < 1 )
    {
        cnFormat( message, messageSize, "weave: %d rows x %d columns, need at least 1 x 1", rows, columns );
        return false;
    }
    if ( rows > INT_MAX / columns )
    {
        cnFormat( message, messageSize, "weave: %d rows x %d columns is too many rings", rows, columns );
        return false;
    }

    double a = CN_WEAVE_COLUMN_SPACING * majorRadius;
    double b = CN_WEAVE_ROW_SPACING * majorRadius;
    double tilt = CN_WEAVE_TILT_DEGREES * ( CN_PI / 180.0 );

    // Centre x on the middle column. Centre y on the mean centre: the mean of the stacked rows
    // plus the half-spacing shift of the columns / 2 odd columns.
    int oddColumns = columns / 2;
    double meanY = 0.5 * ( rows - 1 ) * b + 0.5 * b * (double)oddColumns / (double)columns;
    double halfWidth = 0.5 * ( columns - 1 ) * a;
    double lowY = -meanY;
    double highY = ( rows - 1 ) * b + ( columns > 1 ? 0.5 * b : 0.0 ) - meanY;

    // a torus with unit axis n reaches R sqrt(1 - n_i^2) + r along axis i; here n = (0, -+sin, cos)
    cnVec3 reach = cnMakeVec3( majorRadius + minorRadius, majorRadius * cos( tilt ) + minorRadius,
                               majorRadius * sin( tilt ) + minorRadius );

    layout->columnSpacing = a;
    layout->rowSpacing = b;
    layout->tilt = tilt;
    layout->coreGap = CN_WEAVE_CORE_GAP * majorRadius;
    layout->clearance = layout->coreGap - 2.0 * minorRadius;
    layout->lower = cnMakeVec3( -halfWidth - reach.x, lowY - reach.y, -reach.z );
    layout->upper = cnMakeVec3( halfWidth + reach.x, highY + reach.y, reach.z );
    return true;
}

bool cnWeaveEuropean4in1( double majorRadius, double minorRadius, int rows, int columns, cnTransform* out,
                          char* message, int messageSize )
{
    cnWeaveLayout layout;
    if ( cnWeaveEuropean4in1Layout( majorRadius, minorRadius, rows, columns, &layout, message,
                                    messageSize ) == false )
    {
        return false;
    }

    double a = layout.columnSpacing;
    double b = layout.rowSpacing;
    int oddColumns = columns / 2;
    double meanY = 0.5 * ( rows - 1 ) * b + 0.5 * b * (double)oddColumns / (double)columns;
    double halfWidth = 0.5 * ( columns - 1 ) * a;

    // a turn by +tilt about x takes the axis z to (0, -sin, cos): even columns lean toward -y
    cnVec3 xAxis = cnMakeVec3( 1.0, 0.0, 0.0 );
    cnQuat evenLean = cnQuatFromAxisAngle( xAxis, layout.tilt );
    cnQuat oddLean = cnQuatFromAxisAngle( xAxis, -layout.tilt );

    for ( int row = 0; row < rows; ++row )
    {
        for ( int column = 0; column < columns; ++column )
        {
            bool odd = ( column & 1 ) != 0;
            cnTransform* ring = out + (ptrdiff_t)row * columns + column;
            ring->p = cnMakeVec3( column * a - halfWidth, row * b + ( odd ? 0.5 * b : 0.0 ) - meanY, 0.0 );
            ring->q = odd ? oddLean : evenLean;
        }
    }
    return true;
}
