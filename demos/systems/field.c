// SPDX-License-Identifier: MIT
// The force fields of the ReLCP paper, through the public API only: the extensile field of
// section 7.4, F(x) = strength x (|x| - sin|x|) / |x|^2 with x = centre of mass - centre, on every
// dynamic body, and the compacting field of section 7.2, the same field with the sign of the
// strength flipped (a positive strength pulls in). One implementation serves both: a compacting
// field is an extensile one whose strength is negated once, when it is added.

#include "systems.h"
#include "systems_format.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cxField
{
    cnWorldId worldId;
    cxFieldKind kind;
    cxFieldConfig config;    // as given (for a compacting field, a positive strength pulls in)
    cxFieldConfig extensile; // the same field as an extensile one: what each step evaluates
    cxField** trackedPointer;
};

static const char* cxFieldKindName( cxFieldKind kind )
{
    return kind == cx_compactingField ? "compacting_field" : "extensile_field";
}

// the extensile config that gives the field of `kind` with settings `config`
static cxFieldConfig cxAsExtensile( cxFieldKind kind, const cxFieldConfig* config )
{
    cxFieldConfig extensile = *config;
    if ( kind == cx_compactingField )
    {
        extensile.strength = -config->strength;
    }
    return extensile;
}

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

cnVec3 cxCompactingForce( const cxFieldConfig* config, cnVec3 point )
{
    cxFieldConfig fallback = cxDefaultFieldConfig();
    cxFieldConfig extensile = cxAsExtensile( cx_compactingField, config != NULL ? config : &fallback );
    return cxExtensileForce( &extensile, point );
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
                cnAdd( bodies->forces[row], cxExtensileForce( &field->extensile, bodies->centers[row] ) );
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

static cnStatus cxTryAddField( cnWorldId worldId, cxFieldKind kind, const cxFieldConfig* config,
                               cxField** outField, char* message, int messageSize )
{
    if ( outField != NULL )
    {
        *outField = NULL;
    }
    cxFormat( message, messageSize, "%s", "" );
    const char* name = cxFieldKindName( kind );
    if ( cnWorld_IsValid( worldId ) == false )
    {
        cxFormat( message, messageSize, "%s: null, stale or forged world id", name );
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
        cxFormat( message, messageSize, "%s: out of memory", name );
        return cn_statusOutOfMemory;
    }
    field->worldId = worldId;
    field->kind = kind;
    field->config = *config;
    field->extensile = cxAsExtensile( kind, config );

    // both kinds register under one name: a world has at most one field
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
        // with a valid def, an invalid argument is the name: the world has its field already
        if ( status == cn_statusInvalidArgument )
        {
            cxFormat( message, messageSize,
                      "%s: the world has a force field already (system '%s'): one field per world, "
                      "extensile or compacting",
                      name, CX_FIELD_SYSTEM_NAME );
        }
        else
        {
            cxFormat( message, messageSize, "%s: cannot register the system '%s' (%s)", name,
                      CX_FIELD_SYSTEM_NAME, cnStatusString( status ) );
        }
        return status;
    }
    if ( outField != NULL )
    {
        *outField = field;
    }
    return cn_statusOk;
}

cnStatus cxTryAddExtensileField( cnWorldId worldId, const cxFieldConfig* config, cxField** outField,
                                 char* message, int messageSize )
{
    return cxTryAddField( worldId, cx_extensileField, config, outField, message, messageSize );
}

cnStatus cxTryAddCompactingField( cnWorldId worldId, const cxFieldConfig* config, cxField** outField,
                                  char* message, int messageSize )
{
    return cxTryAddField( worldId, cx_compactingField, config, outField, message, messageSize );
}

// cxTryAddField with the reason logged through the world's log hook (stderr without one)
static cxField* cxAddField( cnWorldId worldId, cxFieldKind kind, const cxFieldConfig* config,
                            const char* function )
{
    char message[256];
    cxField* field = NULL;
    cnStatus status = cxTryAddField( worldId, kind, config, &field, message, (int)sizeof( message ) );
    if ( status != cn_statusOk )
    {
        char line[300];
        snprintf( line, sizeof( line ), "%s: %s", function, message );
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

cxField* cxAddExtensileField( cnWorldId worldId, const cxFieldConfig* config )
{
    return cxAddField( worldId, cx_extensileField, config, "cxAddExtensileField" );
}

cxField* cxAddCompactingField( cnWorldId worldId, const cxFieldConfig* config )
{
    return cxAddField( worldId, cx_compactingField, config, "cxAddCompactingField" );
}

cxFieldConfig cxField_GetConfig( const cxField* field )
{
    return field != NULL ? field->config : cxDefaultFieldConfig();
}

cxFieldKind cxField_GetKind( const cxField* field )
{
    return field != NULL ? field->kind : cx_extensileField;
}

void cxField_TrackPointer( cxField* field, cxField** pointer )
{
    if ( field != NULL )
    {
        field->trackedPointer = pointer;
    }
}
