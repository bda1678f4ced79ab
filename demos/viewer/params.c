// SPDX-License-Identifier: MIT
// The HUD's parameter editor: Left/Right by parameter type (params.h).
#include "params.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

// 12 significant digits: what repeated 0.1 steps and decades leave of round-off goes
static double vwRoundDigits( double value )
{
    char text[32];
    snprintf( text, sizeof( text ), "%.12g", value );
    return strtod( text, NULL );
}

static double vwClampParam( const cnSolverParam* param, double value )
{
    return fmin( param->maxValue, fmax( param->minValue, value ) );
}

double vwNudgeParamValue( const cnSolverParam* param, double value, int direction )
{
    direction = direction > 0 ? 1 : -1;
    switch ( param->type )
    {
        case cn_paramChoice:
        {
            int count = param->choiceCount > 0 ? param->choiceCount : 1;
            int index = isfinite( value ) ? (int)value : 0;
            return (double)( ( ( index + direction ) % count + count ) % count );
        }
        case cn_paramToggle:
            return value >= 0.5 ? 0.0 : 1.0;
        case cn_paramInteger:
            value = direction > 0 ? fmax( 1.0, value * 2.0 ) : floor( value / 2.0 );
            return vwClampParam( param, value );
        case cn_paramNumber:
        default:
            break;
    }
    bool count = param->defaultValue >= 1.0 && param->defaultValue == floor( param->defaultValue ) &&
                 param->maxValue >= 100.0;
    bool decades = param->defaultValue > 0.0 && param->defaultValue < 0.01;
    if ( count )
    {
        value = direction > 0 ? fmax( 1.0, value * 2.0 ) : floor( value / 2.0 );
    }
    else if ( decades )
    {
        value = value <= 0.0 ? ( direction > 0 ? param->defaultValue : 0.0 )
                             : value * ( direction > 0 ? 10.0 : 0.1 );
    }
    else
    {
        value = value + 0.1 * direction;
    }
    return vwClampParam( param, vwRoundDigits( value ) );
}
