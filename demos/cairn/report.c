// SPDX-License-Identifier: MIT
#include "report.h"

#include <cjson/cJSON.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int StepWarningNames( uint32_t flags, const char** names, int capacity )
{
    // bits the library names, and "bit_N" for any it does not (a newer library)
    static const char* const unknown[32] = {
        "bit_0",  "bit_1",  "bit_2",  "bit_3",  "bit_4",  "bit_5",  "bit_6",  "bit_7",
        "bit_8",  "bit_9",  "bit_10", "bit_11", "bit_12", "bit_13", "bit_14", "bit_15",
        "bit_16", "bit_17", "bit_18", "bit_19", "bit_20", "bit_21", "bit_22", "bit_23",
        "bit_24", "bit_25", "bit_26", "bit_27", "bit_28", "bit_29", "bit_30", "bit_31",
    };
    int count = 0;
    for ( int bit = 0; bit < 32; ++bit )
    {
        if ( ( flags & ( 1u << bit ) ) != 0 )
        {
            const char* name = cnStepWarningName( 1u << bit );
            if ( count < capacity )
            {
                names[count] = name != NULL ? name : unknown[bit];
            }
            count += 1;
        }
    }
    return count;
}

// The shortest of %.15g, %.16g and %.17g that reads back to the same double: every finite
// number round-trips. (cJSON's own printer accepts 15 digits when they read back to within an
// epsilon, which loses the last bits.) NaN and infinity are not JSON: they become null.
static cJSON* MakeNumber( double value )
{
    if ( isfinite( value ) == false )
    {
        return cJSON_CreateNull();
    }

    char text[32];
    for ( int digits = 15; digits <= 17; ++digits )
    {
        snprintf( text, sizeof( text ), "%.*g", digits, value );
        if ( strtod( text, NULL ) == value )
        {
            break;
        }
    }
    return cJSON_CreateRaw( text );
}

bool AddNumber( cJSON* object, const char* key, double value )
{
    cJSON* item = MakeNumber( value );
    return item != NULL && cJSON_AddItemToObject( object, key, item );
}

static bool AddArray( cJSON* object, const char* key, const double* values, int count )
{
    cJSON* array = cJSON_AddArrayToObject( object, key );
    if ( array == NULL )
    {
        return false;
    }
    for ( int i = 0; i < count; ++i )
    {
        cJSON* item = MakeNumber( values[i] );
        if ( item == NULL || cJSON_AddItemToArray( array, item ) == false )
        {
            return false;
        }
    }
    return true;
}

bool AddVec3( cJSON* object, const char* key, cnVec3 v )
{
    double values[3] = { v.x, v.y, v.z };
    return AddArray( object, key, values, 3 );
}

static bool AddBody( cJSON* array, cnBodyId bodyId )
{
    cnBodyState state = { 0 };
    if ( cnBody_GetState( bodyId, &state ) != cn_statusOk )
    {
        return false;
    }

    cJSON* body = cJSON_CreateObject();
    if ( body == NULL || cJSON_AddItemToArray( array, body ) == false )
    {
        cJSON_Delete( body );
        return false;
    }

    const char* name = cnBody_GetName( bodyId );
    if ( name[0] != '\0' && cJSON_AddStringToObject( body, "name", name ) == NULL )
    {
        return false;
    }

    cnQuat q = state.transform.q;
    double orientation[4] = { q.w, q.x, q.y, q.z };
    return AddVec3( body, "position", state.transform.p ) &&
           AddArray( body, "orientation", orientation, 4 ) &&
           AddVec3( body, "linear_velocity", state.linearVelocity ) &&
           AddVec3( body, "angular_velocity", state.angularVelocity );
}

static bool AddWarnings( cJSON* report, const RunResult* result )
{
    cJSON* warnings = cJSON_AddArrayToObject( report, "warnings" );
    if ( warnings == NULL )
    {
        return false;
    }
    for ( int i = 0; i < result->stepWarningsKept; ++i )
    {
        cJSON* entry = cJSON_CreateObject();
        if ( entry == NULL || cJSON_AddItemToArray( warnings, entry ) == false )
        {
            cJSON_Delete( entry );
            return false;
        }
        if ( AddNumber( entry, "step", (double)result->stepWarnings[i].step ) == false )
        {
            return false;
        }

        const char* names[32];
        int count = StepWarningNames( result->stepWarnings[i].flags, names, 32 );
        cJSON* flags = cJSON_CreateStringArray( names, count );
        if ( flags == NULL || cJSON_AddItemToObject( entry, "flags", flags ) == false )
        {
            cJSON_Delete( flags );
            return false;
        }
    }

    cJSON* loadWarnings = cJSON_AddArrayToObject( report, "load_warnings" );
    if ( loadWarnings == NULL )
    {
        return false;
    }
    for ( int i = 0; i < result->loadWarningsKept; ++i )
    {
        cJSON* text = cJSON_CreateString( result->loadWarnings[i] );
        if ( text == NULL || cJSON_AddItemToArray( loadWarnings, text ) == false )
        {
            cJSON_Delete( text );
            return false;
        }
    }

    return AddNumber( report, "warning_count", (double)result->warningCount ) &&
           cJSON_AddBoolToObject( report, "warnings_truncated",
                                  result->warningCount > result->stepWarningsKept ) != NULL &&
           AddNumber( report, "load_warning_count", (double)result->loadWarningCount );
}

static cJSON* BuildReport( const RunResult* result, cnWorldId worldId )
{
    cJSON* report = cJSON_CreateObject();
    if ( report == NULL )
    {
        return NULL;
    }

    double steps = (double)result->steps;
    double perStep = result->steps > 0 ? 1000.0 / steps : 0.0;
    cnBodyArrays bodies = cnWorld_GetBodyArrays( worldId );

    bool ok =
        cJSON_AddStringToObject( report, "scene", result->scenePath ) != NULL &&
        cJSON_AddStringToObject( report, "cairn_version", cnVersionString() ) != NULL &&
        AddNumber( report, "steps", steps ) && AddNumber( report, "bodies", (double)bodies.count ) &&
        cJSON_AddStringToObject( report, "solver", result->solver ) != NULL &&
        AddNumber( report, "dt", result->timeStep ) &&
        AddNumber( report, "simulated_time", result->simulatedTime ) &&
        AddNumber( report, "wall_ms_per_step", result->wallSeconds * perStep ) &&
        AddNumber( report, "cpu_ms_per_step", result->cpuSeconds * perStep ) &&
        AddNumber( report, "contacts_max", (double)result->contactsMax ) &&
        AddNumber( report, "max_penetration", result->maxPenetration ) &&
        AddNumber( report, "iterations_mean", result->steps > 0 ? result->iterationsSum / steps : 0.0 ) &&
        AddNumber( report, "residual_final", result->residualFinal ) &&
        AddNumber( report, "kinetic_energy_initial", result->kineticEnergyInitial ) &&
        AddNumber( report, "kinetic_energy_final", result->kineticEnergyFinal ) &&
        AddWarnings( report, result );

    cJSON* finalState = ok ? cJSON_AddArrayToObject( report, "final_state" ) : NULL;
    ok = finalState != NULL;
    // rows are in creation order: the CLI never destroys a body
    for ( int row = 0; ok && row < bodies.count; ++row )
    {
        ok = AddBody( finalState, bodies.ids[row] );
    }

    if ( ok == false )
    {
        cJSON_Delete( report );
        return NULL;
    }
    return report;
}

bool WriteJson( const char* path, cJSON* root, char* message, int size )
{
    char* text = root != NULL ? cJSON_Print( root ) : NULL;
    if ( text == NULL )
    {
        snprintf( message, (size_t)size, "out of memory while building the report" );
        return false;
    }

    FILE* file = fopen( path, "w" );
    if ( file == NULL )
    {
        snprintf( message, (size_t)size, "cannot open %s for writing: %s", path, strerror( errno ) );
        cJSON_free( text );
        return false;
    }

    bool ok = fputs( text, file ) >= 0 && fputc( '\n', file ) != EOF;
    ok = ( fclose( file ) == 0 ) && ok;
    cJSON_free( text );
    if ( ok == false )
    {
        snprintf( message, (size_t)size, "cannot write %s", path );
    }
    return ok;
}

bool WriteReport( const char* path, const RunResult* result, cnWorldId worldId, char* message, int size )
{
    cJSON* report = BuildReport( result, worldId );
    bool ok = WriteJson( path, report, message, size );
    cJSON_Delete( report );
    return ok;
}
