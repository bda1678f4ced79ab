// SPDX-License-Identifier: MIT
// Scene handlers: the JSON of a scene's "systems" entries ("colony", "extensile_field",
// "compacting_field") turned into the configs of colony.c and field.c. Strict: an unknown or
// repeated key, or a value of the wrong type or range, is an error whose message starts with the
// key.

#include "systems.h"
#include "systems_format.h"

#include <cjson/cJSON.h>

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void cxFormat( char* message, int messageSize, const char* format, ... )
{
    if ( message == NULL || messageSize <= 0 )
    {
        return;
    }
    va_list args;
    va_start( args, format );
    vsnprintf( message, (size_t)messageSize, format, args );
    va_end( args );
}

// what a JSON value is, for messages: the number itself, or its kind
static void cxDescribe( const cJSON* item, char* text, size_t size )
{
    if ( cJSON_IsNumber( item ) )
    {
        snprintf( text, size, "%.15g", item->valuedouble );
    }
    else if ( cJSON_IsString( item ) )
    {
        snprintf( text, size, "the string \"%.40s\"", item->valuestring );
    }
    else if ( cJSON_IsBool( item ) )
    {
        snprintf( text, size, "%s", cJSON_IsTrue( item ) ? "true" : "false" );
    }
    else if ( cJSON_IsNull( item ) )
    {
        snprintf( text, size, "null" );
    }
    else if ( cJSON_IsArray( item ) )
    {
        snprintf( text, size, "an array of %d", cJSON_GetArraySize( item ) );
    }
    else
    {
        snprintf( text, size, "an object" );
    }
}

static cnStatus cxBadValue( const cJSON* item, const char* expected, char* message, int messageSize )
{
    char got[96];
    cxDescribe( item, got, sizeof( got ) );
    cxFormat( message, messageSize, "%s: expected %s, got %s", item->string, expected, got );
    return cn_statusSchemaError;
}

// parse `config` into an object; NULL with the status and reason on failure. An empty or absent
// config (e.g. "colony": null) means all defaults.
static cJSON* cxParseObject( const char* config, const char* what, cnStatus* status, char* message,
                             int messageSize )
{
    *status = cn_statusOk;
    const char* text = config != NULL ? config : "{}";
    const char* end = NULL;
    cJSON* root = cJSON_ParseWithOpts( text, &end, true );
    if ( root == NULL )
    {
        const char* at = end != NULL ? end : text;
        long offset = (long)( at - text );
        cxFormat( message, messageSize, "%s: JSON syntax error at character %ld near \"%.20s\"", what,
                  offset + 1, at );
        *status = cn_statusParseError;
        return NULL;
    }
    if ( cJSON_IsNull( root ) )
    {
        cJSON_Delete( root );
        return cJSON_CreateObject();
    }
    if ( cJSON_IsObject( root ) == false )
    {
        char got[96];
        cxDescribe( root, got, sizeof( got ) );
        cxFormat( message, messageSize, "%s: expected an object of settings, got %s", what, got );
        cJSON_Delete( root );
        *status = cn_statusSchemaError;
        return NULL;
    }
    return root;
}

// the key must be one of `keys` and appear once
static cnStatus cxCheckKey( const cJSON* root, const cJSON* item, const char* const* keys, int keyCount,
                            char* message, int messageSize )
{
    bool known = false;
    for ( int i = 0; i < keyCount; ++i )
    {
        known = known || strcmp( item->string, keys[i] ) == 0;
    }
    if ( known == false )
    {
        char list[256] = "";
        for ( int i = 0; i < keyCount; ++i )
        {
            size_t used = strlen( list );
            snprintf( list + used, sizeof( list ) - used, "%s%s", i > 0 ? ", " : "", keys[i] );
        }
        cxFormat( message, messageSize, "%s: unknown key (known: %s)", item->string, list );
        return cn_statusSchemaError;
    }
    for ( const cJSON* other = root->child; other != item; other = other->next )
    {
        if ( strcmp( other->string, item->string ) == 0 )
        {
            cxFormat( message, messageSize, "%s: key given twice", item->string );
            return cn_statusSchemaError;
        }
    }
    return cn_statusOk;
}

static bool cxIsKey( const cJSON* item, const char* key )
{
    return strcmp( item->string, key ) == 0;
}

// A system's settings, the JSON object `json`, into `config` by `read`; errors start with the key.
typedef cnStatus cxReadFcn( const cJSON* root, void* config, char* message, int messageSize );

static cnStatus cxReadSettings( const char* json, const char* what, cxReadFcn* read, void* config,
                                char* message, int messageSize )
{
    cxFormat( message, messageSize, "%s", "" );
    cnStatus status;
    cJSON* root = cxParseObject( json, what, &status, message, messageSize );
    if ( root == NULL )
    {
        return status == cn_statusOk ? cn_statusOutOfMemory : status;
    }
    status = read( root, config, message, messageSize );
    cJSON_Delete( root );
    return status;
}

// colony -----------------------------------------------------------------------------------------

static cnStatus cxReadColonyConfig( const cJSON* root, void* out, char* message, int messageSize )
{
    cxColonyConfig* config = out;
    static const char* const keys[] = { "growth_rate", "division_length", "noise_degrees",
                                        "seed",        "max_cells",       "monolayer" };
    for ( const cJSON* item = root->child; item != NULL; item = item->next )
    {
        cnStatus status =
            cxCheckKey( root, item, keys, (int)( sizeof( keys ) / sizeof( keys[0] ) ), message, messageSize );
        if ( status != cn_statusOk )
        {
            return status;
        }
        double value = cJSON_IsNumber( item ) ? item->valuedouble : (double)NAN;
        if ( cxIsKey( item, "growth_rate" ) )
        {
            if ( !( isfinite( value ) && value > 0.0 ) )
            {
                return cxBadValue( item, "a positive number", message, messageSize );
            }
            config->growthRate = value;
        }
        else if ( cxIsKey( item, "division_length" ) )
        {
            if ( !( isfinite( value ) && value > 0.0 ) )
            {
                return cxBadValue( item, "a positive number", message, messageSize );
            }
            config->divisionLength = value;
        }
        else if ( cxIsKey( item, "noise_degrees" ) )
        {
            if ( !( isfinite( value ) && value >= 0.0 ) )
            {
                return cxBadValue( item, "a number >= 0", message, messageSize );
            }
            config->noiseDegrees = value;
        }
        else if ( cxIsKey( item, "seed" ) )
        {
            // integers up to 2^53 are exact in JSON's doubles
            if ( !( isfinite( value ) && value >= 0.0 && value <= 9007199254740992.0 &&
                    floor( value ) == value ) )
            {
                return cxBadValue( item, "an integer in [0, 2^53]", message, messageSize );
            }
            config->seed = (uint64_t)value;
        }
        else if ( cxIsKey( item, "max_cells" ) )
        {
            if ( !( isfinite( value ) && value >= 1.0 && value <= 2147483647.0 && floor( value ) == value ) )
            {
                return cxBadValue( item, "an integer >= 1", message, messageSize );
            }
            config->maxCells = (int)value;
        }
        else if ( cxIsKey( item, "monolayer" ) )
        {
            if ( cJSON_IsBool( item ) == false )
            {
                return cxBadValue( item, "true or false", message, messageSize );
            }
            config->monolayer = cJSON_IsTrue( item );
        }
    }
    return cn_statusOk;
}

cnStatus cxColonySceneHandler( cnWorldId worldId, const char* config, void* context, char* message,
                               int messageSize )
{
    cxColonyConfig colonyConfig = cxDefaultColonyConfig();
    cnStatus status =
        cxReadSettings( config, "colony", cxReadColonyConfig, &colonyConfig, message, messageSize );
    if ( status != cn_statusOk )
    {
        return status;
    }
    cxColony* colony = NULL;
    status = cxTryAddColony( worldId, &colonyConfig, &colony, message, messageSize );
    if ( status != cn_statusOk )
    {
        return status;
    }
    cxSceneSystems* systems = context;
    if ( systems != NULL )
    {
        systems->colony = colony;
        cxColony_TrackPointer( colony, &systems->colony );
    }
    return cn_statusOk;
}

// force fields: extensile and compacting ---------------------------------------------------------

static cnStatus cxReadFieldConfig( const cJSON* root, void* out, char* message, int messageSize )
{
    cxFieldConfig* config = out;
    static const char* const keys[] = { "center", "strength" };
    for ( const cJSON* item = root->child; item != NULL; item = item->next )
    {
        cnStatus status =
            cxCheckKey( root, item, keys, (int)( sizeof( keys ) / sizeof( keys[0] ) ), message, messageSize );
        if ( status != cn_statusOk )
        {
            return status;
        }
        if ( cxIsKey( item, "center" ) )
        {
            double xyz[3] = { 0.0, 0.0, 0.0 };
            bool ok = cJSON_IsArray( item ) && cJSON_GetArraySize( item ) == 3;
            for ( int i = 0; ok && i < 3; ++i )
            {
                const cJSON* component = cJSON_GetArrayItem( item, i );
                ok = cJSON_IsNumber( component ) && isfinite( component->valuedouble );
                xyz[i] = ok ? component->valuedouble : (double)NAN;
            }
            if ( ok == false )
            {
                return cxBadValue( item, "an array of 3 finite numbers", message, messageSize );
            }
            config->center = cnMakeVec3( xyz[0], xyz[1], xyz[2] );
        }
        else if ( cxIsKey( item, "strength" ) )
        {
            if ( !( cJSON_IsNumber( item ) && isfinite( item->valuedouble ) ) )
            {
                return cxBadValue( item, "a finite number", message, messageSize );
            }
            config->strength = item->valuedouble;
        }
    }
    return cn_statusOk;
}

static const char* cxFieldName( cxFieldKind kind )
{
    return kind == cx_compactingField ? "compacting_field" : "extensile_field";
}

// "extensile_field" and "compacting_field": the same settings, one field per world
static cnStatus cxStartField( cnWorldId worldId, cxFieldKind kind, const char* config, void* context,
                              char* message, int messageSize )
{
    const char* name = cxFieldName( kind );
    cxFieldConfig fieldConfig = cxDefaultFieldConfig();
    cnStatus status = cxReadSettings( config, name, cxReadFieldConfig, &fieldConfig, message, messageSize );
    if ( status != cn_statusOk )
    {
        return status;
    }
    cxSceneSystems* systems = context;
    cxField* field = NULL;
    status = kind == cx_compactingField
                 ? cxTryAddCompactingField( worldId, &fieldConfig, &field, message, messageSize )
                 : cxTryAddExtensileField( worldId, &fieldConfig, &field, message, messageSize );
    if ( status == cn_statusInvalidArgument && systems != NULL && systems->field != NULL )
    {
        // the scene set up a field before this one: say which
        const char* other = cxFieldName( cxField_GetKind( systems->field ) );
        cxFormat( message, messageSize,
                  "%s: the scene has %s as well: one field per world, so give extensile_field or "
                  "compacting_field, not both",
                  name, other );
    }
    if ( status != cn_statusOk )
    {
        return status;
    }
    if ( systems != NULL )
    {
        systems->field = field;
        cxField_TrackPointer( field, &systems->field );
    }
    return cn_statusOk;
}

cnStatus cxFieldSceneHandler( cnWorldId worldId, const char* config, void* context, char* message,
                              int messageSize )
{
    return cxStartField( worldId, cx_extensileField, config, context, message, messageSize );
}

cnStatus cxCompactingFieldSceneHandler( cnWorldId worldId, const char* config, void* context, char* message,
                                        int messageSize )
{
    return cxStartField( worldId, cx_compactingField, config, context, message, messageSize );
}

// glue -------------------------------------------------------------------------------------------

int cxGetSceneSystems( cxSceneSystems* systems, cnSceneSystem* handlers, int capacity )
{
    const cnSceneSystem all[CX_SCENE_SYSTEM_COUNT] = {
        { "colony", cxColonySceneHandler, systems },
        { "extensile_field", cxFieldSceneHandler, systems },
        { "compacting_field", cxCompactingFieldSceneHandler, systems },
    };
    int count = 0;
    for ( ; handlers != NULL && count < capacity && count < CX_SCENE_SYSTEM_COUNT; ++count )
    {
        handlers[count] = all[count];
    }
    return count;
}
