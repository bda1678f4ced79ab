// SPDX-License-Identifier: MIT
// The extensile force field of the ReLCP paper (section 7.4), through the public API only:
// F(x) = strength x (|x| - sin|x|) / |x|^2, x = centre of mass - centre, on every dynamic body.
// With a negative strength it is the compacting field of section 7.2.

#include "systems.h"
#include "systems_format.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cxField
{
    cnWorldId worldId;
    cxFieldConfig config;
    cxField** trackedPointer;
};

// (r - sin r) / r^2, without the cancellation of r - sin r for small r: below r = 1/2 the series
// r/6 - r^3/120 + r^5/5040 - ..., whose first omitted term is below 1e-19 relative there
static double cxExtensileProfile( double r )
{
    if ( r < 0.5 )
    {
        double r2 = r * r;
        // sum over k >= 1 of (-1)^(k+1) r^(2k-1) / (2k+1)!
        double series =
            1.0 / 6.0 -
            r2 * ( 1.0 / 120.0 -
                   r2 * ( 1.0 / 5040.0 -
                          r2 * ( 1.0 / 362880.0 -
                                 r2 * ( 1.0 / 39916800.0 -
                                        r2 * ( 1.0 / 6227020800.0 - r2 * ( 1.0 / 1307674368000.0 -
                                                                           r2 / 355687428096000.0 ) ) ) ) ) );
        return r * series;
    }
    return ( r - sin( r ) ) / ( r * r );
}

cnVec3 cxExtensileForce( const cxFieldConfig* config, cnVec3 point )
{
    cxFieldConfig fallback = cxDefaultFieldConfig();
    const cxFieldConfig* c = config != NULL ? config : &fallback;
    cnVec3 x = cnSub( point, c->center );
    double r = cnLength( x );
    if ( !( r > 0.0 ) )
    {
        return cn_vec3Zero;
    }
    // F = strength (x / r) (r - sin r) / r
    return cnScale( c->strength * cxExtensileProfile( r ), x );
}

static void cxFieldStep( cnWorldId worldId, cnBodyArrays* bodies, double timeStep, void* context )
{
    (void)worldId;
    (void)timeStep;
    const cxField* field = context;
    for ( int row = 0; row < bodies->count; ++row )
    {
        if ( bodies->types[row] == cn_dynamicBody )
        {
            bodies->forces[row] =
                cnAdd( bodies->forces[row], cxExtensileForce( &field->config, bodies->centers[row] ) );
        }
    }
}

static void cxFieldFinish( cnWorldId worldId, void* context )
{
    (void)worldId;
    cxField* field = context;
    if ( field->trackedPointer != NULL && *field->trackedPointer == field )
    {
        *field->trackedPointer = NULL;
    }
    free( field );
}

cxFieldConfig cxDefaultFieldConfig( void )
{
    cxFieldConfig config;
    memset( &config, 0, sizeof( config ) );
    config.center = cn_vec3Zero;
    config.strength = 1.0;
    return config;
}

cnStatus cxValidateFieldConfig( const cxFieldConfig* config, char* message, int messageSize )
{
    if ( config == NULL )
    {
        cxFormat( message, messageSize, "config: NULL" );
        return cn_statusInvalidArgument;
    }
    if ( cnIsFiniteVec3( config->center ) == false )
    {
        cxFormat( message, messageSize, "center: expected 3 finite numbers, got [%g, %g, %g]",
                  config->center.x, config->center.y, config->center.z );
        return cn_statusInvalidArgument;
    }
    if ( isfinite( config->strength ) == false )
    {
        cxFormat( message, messageSize, "strength: expected a finite number, got %g", config->strength );
        return cn_statusInvalidArgument;
    }
    return cn_statusOk;
}

cnStatus cxTryAddExtensileField( cnWorldId worldId, const cxFieldConfig* config, cxField** outField,
                                 char* message, int messageSize )
{
    if ( outField != NULL )
    {
        *outField = NULL;
    }
    cxFormat( message, messageSize, "%s", "" );
    if ( cnWorld_IsValid( worldId ) == false )
    {
        cxFormat( message, messageSize, "extensile_field: null, stale or forged world id" );
        return cn_statusInvalidId;
    }
    cnStatus status = cxValidateFieldConfig( config, message, messageSize );
    if ( status != cn_statusOk )
    {
        return status;
    }
    cxField* field = calloc( 1, sizeof( cxField ) );
    if ( field == NULL )
    {
        cxFormat( message, messageSize, "extensile_field: out of memory" );
        return cn_statusOutOfMemory;
    }
    field->worldId = worldId;
    field->config = *config;

    cnSystemDef def = cnDefaultSystemDef();
    def.name = CX_FIELD_SYSTEM_NAME;
    def.stage = cn_stageForces;
    def.fcn = cxFieldStep;
    def.finishFcn = cxFieldFinish;
    def.context = field;
    status = cnWorld_AddSystem( worldId, &def );
    if ( status != cn_statusOk )
    {
        free( field );
        cxFormat( message, messageSize,
                  "extensile_field: cannot register the system '%s' (%s; one field per world)",
                  CX_FIELD_SYSTEM_NAME, cnStatusString( status ) );
        return status;
    }
    if ( outField != NULL )
    {
        *outField = field;
    }
    return cn_statusOk;
}

cxField* cxAddExtensileField( cnWorldId worldId, const cxFieldConfig* config )
{
    char message[256];
    cxField* field = NULL;
    cnStatus status = cxTryAddExtensileField( worldId, config, &field, message, (int)sizeof( message ) );
    if ( status != cn_statusOk )
    {
        char line[300];
        snprintf( line, sizeof( line ), "cxAddExtensileField: %s", message );
        cnWorldDef def = cnWorld_GetDef( worldId );
        if ( cnWorld_IsValid( worldId ) && def.logFcn != NULL )
        {
            def.logFcn( cn_logError, (int)status, line, def.logContext );
        }
        else
        {
            fprintf( stderr, "cairn: error: %s\n", line );
        }
        return NULL;
    }
    return field;
}

cxFieldConfig cxField_GetConfig( const cxField* field )
{
    return field != NULL ? field->config : cxDefaultFieldConfig();
}

void cxField_TrackPointer( cxField* field, cxField** pointer )
{
    if ( field != NULL )
    {
        field->trackedPointer = pointer;
    }
}
