// SPDX-License-Identifier: MIT
// Shape geometry checks and volumes. Messages name the field with the scene file's key
// ("radius", "half_extents", ...) so that the scene loader can pass them on unchanged.

#include "core.h"
#include "hull.h"

#include "cairn/cairn.h"

#include <math.h>
#include <stddef.h>

// longest text of cnFormatNumber ("-2.2250738585072014e-308") plus room
#define CN_NUMBER_TEXT 32

// status for a number that failed a check: non-finite numbers have their own code
static cnStatus cnBadNumberStatus( double value )
{
    return isfinite( value ) ? cn_statusInvalidArgument : cn_statusNonFinite;
}

// "field: expected a positive number, got -1"
static cnStatus cnCheckPositive( const char* field, double value, char* message, int size )
{
    if ( value > 0.0 && isfinite( value ) )
    {
        return cn_statusOk;
    }
    char text[CN_NUMBER_TEXT];
    cnFormatNumber( text, (int)sizeof( text ), value );
    cnFormat( message, size, "%s: expected a positive number, got %s", field, text );
    return cnBadNumberStatus( value );
}

// "field: expected a non-negative number, got -1"
static cnStatus cnCheckNonNegative( const char* field, double value, char* message, int size )
{
    if ( value >= 0.0 && isfinite( value ) )
    {
        return cn_statusOk;
    }
    char text[CN_NUMBER_TEXT];
    cnFormatNumber( text, (int)sizeof( text ), value );
    cnFormat( message, size, "%s: expected a non-negative number, got %s", field, text );
    return cnBadNumberStatus( value );
}

// "[1, 0, 1]"
static void cnFormatVec3( char* buffer, int size, cnVec3 v )
{
    char x[CN_NUMBER_TEXT];
    char y[CN_NUMBER_TEXT];
    char z[CN_NUMBER_TEXT];
    cnFormatNumber( x, (int)sizeof( x ), v.x );
    cnFormatNumber( y, (int)sizeof( y ), v.y );
    cnFormatNumber( z, (int)sizeof( z ), v.z );
    cnFormat( buffer, size, "[%s, %s, %s]", x, y, z );
}

// "field: expected three positive numbers, got [1, 0, 1]"
static cnStatus cnCheckPositiveVec3( const char* field, cnVec3 value, char* message, int size )
{
    if ( value.x > 0.0 && value.y > 0.0 && value.z > 0.0 && cnIsFiniteVec3( value ) )
    {
        return cn_statusOk;
    }
    char text[3 * CN_NUMBER_TEXT + 8];
    cnFormatVec3( text, (int)sizeof( text ), value );
    cnFormat( message, size, "%s: expected three positive numbers, got %s", field, text );
    return cnIsFiniteVec3( value ) ? cn_statusInvalidArgument : cn_statusNonFinite;
}

// a torus must be a ring torus: the tube may not reach the axis
static cnStatus cnCheckTorus( const cnTorus* torus, char* message, int size )
{
    cnStatus status = cnCheckPositive( "major_radius", torus->majorRadius, message, size );
    if ( status == cn_statusOk )
    {
        status = cnCheckPositive( "minor_radius", torus->minorRadius, message, size );
    }
    if ( status == cn_statusOk && torus->minorRadius >= torus->majorRadius )
    {
        char minor[CN_NUMBER_TEXT];
        char major[CN_NUMBER_TEXT];
        cnFormatNumber( minor, (int)sizeof( minor ), torus->minorRadius );
        cnFormatNumber( major, (int)sizeof( major ), torus->majorRadius );
        cnFormat( message, size,
                  "minor_radius: must be smaller than major_radius (a ring torus), got %s >= %s", minor,
                  major );
        status = cn_statusInvalidArgument;
    }
    return status;
}

// a plane needs a finite normal that can be normalized and a finite offset
static cnStatus cnCheckPlane( const cnPlane* plane, char* message, int size )
{
    if ( cnIsFiniteVec3( plane->normal ) == false )
    {
        char text[3 * CN_NUMBER_TEXT + 8];
        cnFormatVec3( text, (int)sizeof( text ), plane->normal );
        cnFormat( message, size, "normal: expected three finite numbers, got %s", text );
        return cn_statusNonFinite;
    }
    double length = cnLength( plane->normal );
    if ( length == 0.0 )
    {
        cnFormat( message, size, "normal: must not be the zero vector" );
        return cn_statusInvalidArgument;
    }
    if ( isfinite( length ) == false )
    {
        // the squared length overflows: normalizing would give zero
        char text[3 * CN_NUMBER_TEXT + 8];
        cnFormatVec3( text, (int)sizeof( text ), plane->normal );
        cnFormat( message, size, "normal: too long to normalize, got %s", text );
        return cn_statusInvalidArgument;
    }
    if ( isfinite( plane->offset ) == false )
    {
        char text[CN_NUMBER_TEXT];
        cnFormatNumber( text, (int)sizeof( text ), plane->offset );
        cnFormat( message, size, "offset: expected a finite number, got %s", text );
        return cn_statusNonFinite;
    }
    return cn_statusOk;
}

cnStatus cnValidateGeometry( const cnGeometry* geometry, char* message, int size )
{
    cnFormat( message, size, "%s", "" );
    if ( geometry == NULL )
    {
        cnFormat( message, size, "geometry: expected a geometry, got NULL" );
        return cn_statusInvalidArgument;
    }

    switch ( geometry->type )
    {
        case cn_sphereShape:
            return cnCheckPositive( "radius", geometry->sphere.radius, message, size );

        case cn_boxShape:
            return cnCheckPositiveVec3( "half_extents", geometry->box.halfExtents, message, size );

        case cn_capsuleShape:
        {
            // half_length 0 is a sphere
            cnStatus status = cnCheckPositive( "radius", geometry->capsule.radius, message, size );
            if ( status == cn_statusOk )
            {
                status = cnCheckNonNegative( "half_length", geometry->capsule.halfLength, message, size );
            }
            return status;
        }

        case cn_cylinderShape:
        {
            cnStatus status = cnCheckPositive( "radius", geometry->cylinder.radius, message, size );
            if ( status == cn_statusOk )
            {
                status = cnCheckPositive( "half_length", geometry->cylinder.halfLength, message, size );
            }
            return status;
        }

        case cn_ellipsoidShape:
            return cnCheckPositiveVec3( "radii", geometry->ellipsoid.radii, message, size );

        case cn_torusShape:
            return cnCheckTorus( &geometry->torus, message, size );

        case cn_hullShape:
        {
            // at least 4 finite points with a volume: computing the hull is the check
            cnHull hull;
            cnStatus status =
                cnComputeHull( geometry->hull.points, geometry->hull.pointCount, NULL, &hull, message, size );
            cnDestroyHull( &hull, NULL );
            return status;
        }

        case cn_planeShape:
            return cnCheckPlane( &geometry->plane, message, size );

        default:
            break;
    }

    cnFormat( message, size, "type: unknown shape type %d", (int)geometry->type );
    return cn_statusInvalidArgument;
}

double cnComputeVolume( const cnGeometry* geometry )
{
    // a plane bounds a half-space
    if ( geometry != NULL && geometry->type == cn_planeShape )
    {
        return cnValidateGeometry( geometry, NULL, 0 ) == cn_statusOk ? (double)INFINITY : (double)NAN;
    }

    // the volume is the mass at unit density: one set of closed forms, in mass.c
    cnMassData mass;
    if ( cnComputeMass( geometry, 1.0, cn_transformIdentity, &mass ) != cn_statusOk )
    {
        return (double)NAN;
    }
    return mass.mass;
}
