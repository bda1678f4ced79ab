// SPDX-License-Identifier: MIT
#include "report.h"

#include <cjson/cJSON.h>

#include <errno.h>
#include <inttypes.h>
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

const char* const meritKeys[meritCount] = { "merit_natural_map", "merit_cone", "violation_signorini",
                                            "violation_coulomb", "violation_dissipation" };

void StepMerits( const cnStepReport* report, double merits[meritCount] )
{
    merits[meritNaturalMap] = report->meritNaturalMap;
    merits[meritCone] = report->meritCone;
    merits[violationSignorini] = report->violationSignorini;
    merits[violationCoulomb] = report->violationCoulomb;
    merits[violationDissipation] = report->violationDissipation;
}

// The name of warning bit `bit` (0..31): the library's, or "bit_N".
static const char* WarningBitName( int bit )
{
    const char* names[1] = { NULL };
    StepWarningNames( 1u << bit, names, 1 );
    return names[0];
}

void FormatWarningSummary( const RunResult* result, char* buffer, int size )
{
    size_t capacity = (size_t)size;
    int used = snprintf( buffer, capacity, "%lld step%s with warnings", (long long)result->warningCount,
                         result->warningCount == 1 ? "" : "s" );
    const char* separator = " (";
    for ( int bit = 0; bit < 32 && used >= 0 && (size_t)used < capacity; ++bit )
    {
        if ( result->warningBitCounts[bit] > 0 )
        {
            used += snprintf( buffer + used, capacity - (size_t)used, "%s%s %lld", separator,
                              WarningBitName( bit ), (long long)result->warningBitCounts[bit] );
            separator = ", ";
        }
    }
    if ( separator[0] == ',' && used >= 0 && (size_t)used < capacity )
    {
        used += snprintf( buffer + used, capacity - (size_t)used, ")" );
    }
    if ( result->loadWarningCount > 0 && used >= 0 && (size_t)used < capacity )
    {
        snprintf( buffer + used, capacity - (size_t)used, ", %d load warning%s", result->loadWarningCount,
                  result->loadWarningCount == 1 ? "" : "s" );
    }
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

    // every warning the library knows, with 0 for those that never came; unknown bits that came
    cJSON* counts = cJSON_AddObjectToObject( report, "warning_counts" );
    for ( int bit = 0; counts != NULL && bit < 32; ++bit )
    {
        if ( ( cnStepWarningName( 1u << bit ) != NULL || result->warningBitCounts[bit] > 0 ) &&
             AddNumber( counts, WarningBitName( bit ), (double)result->warningBitCounts[bit] ) == false )
        {
            return false;
        }
    }

    return counts != NULL && AddNumber( report, "warning_count", (double)result->warningCount ) &&
           cJSON_AddBoolToObject( report, "warnings_truncated",
                                  result->warningCount > result->stepWarningsKept ) != NULL &&
           AddNumber( report, "load_warning_count", (double)result->loadWarningCount );
}

// "solver_params": every parameter of the world's solver as it ran, by name: a number, true or
// false for a toggle, the name of a choice (the forms world.solver.params takes).
static bool AddSolverParams( cJSON* report, cnWorldId worldId )
{
    cJSON* object = cJSON_AddObjectToObject( report, "solver_params" );
    const cnSolverVTable* solver = cnWorld_GetSolver( worldId );
    for ( int i = 0; object != NULL && solver != NULL && i < solver->paramCount; ++i )
    {
        const cnSolverParam* param = solver->params + i;
        double value = NAN;
        if ( cnWorld_GetSolverParam( worldId, param->name, &value ) != cn_statusOk )
        {
            value = NAN;
        }
        bool ok = false;
        if ( param->type == cn_paramToggle && ( value == 0.0 || value == 1.0 ) )
        {
            ok = cJSON_AddBoolToObject( object, param->name, value == 1.0 ) != NULL;
        }
        else if ( param->type == cn_paramChoice && value >= 0.0 && value < (double)param->choiceCount &&
                  value == floor( value ) )
        {
            char text[64];
            ok = cJSON_AddStringToObject( object, param->name,
                                          cnFormatSolverParam( param, value, text, (int)sizeof( text ) ) ) !=
                 NULL;
        }
        else
        {
            ok = AddNumber( object, param->name, value );
        }
        if ( ok == false )
        {
            return false;
        }
    }
    return object != NULL;
}

static bool AddDump( cJSON* report, const ProblemDump* dump )
{
    if ( dump->step <= 0 )
    {
        return true;
    }
    cJSON* object = cJSON_AddObjectToObject( report, "dump_problem" );
    return object != NULL && AddNumber( object, "step", (double)dump->step ) &&
           cJSON_AddStringToObject( object, "file", dump->path ) != NULL &&
           AddNumber( object, "rows", (double)dump->rows ) &&
           AddNumber( object, "groups", (double)dump->groups ) &&
           AddNumber( object, "solves", (double)dump->solves ) &&
           AddNumber( object, "final_pass_iterations", (double)dump->iterations ) &&
           cJSON_AddStringToObject( object, "final_pass_status", cnSolveStatusName( dump->solveStatus ) ) !=
               NULL &&
           AddNumber( object, "final_pass_residual", dump->residual ) &&
           AddNumber( object, "step_iterations", (double)dump->stepIterations ) &&
           AddNumber( object, "step_relax_iterations", (double)dump->stepRelaxIterations );
}

// the world's state hash as 16 hex digits (a string: JSON numbers cannot hold 64 bits)
static bool AddStateHash( cJSON* report, cnWorldId worldId )
{
    char hex[17];
    snprintf( hex, sizeof( hex ), "%016" PRIx64, cnWorld_GetStateHash( worldId ) );
    return cJSON_AddStringToObject( report, "state_hash", hex ) != NULL;
}

// "colony": the colony's cells, generations, radius and volume fraction after the last step, for a
// scene with one
static bool AddColony( cJSON* report, const RunResult* result )
{
    if ( result->hasColony == false )
    {
        return true;
    }
    cJSON* colony = cJSON_AddObjectToObject( report, "colony" );
    return colony != NULL && AddNumber( colony, "cells", (double)result->colonyCells ) &&
           AddNumber( colony, "generations", (double)result->colonyGenerations ) &&
           AddNumber( colony, "radius", result->colonyRadius ) &&
           AddNumber( colony, "volume_fraction", result->colonyVolumeFraction );
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
        AddNumber( report, "substeps", (double)result->substeps ) &&
        AddNumber( report, "threads", (double)cnWorld_GetDef( worldId ).workerCount ) &&
        AddStateHash( report, worldId ) && AddNumber( report, "awake_bodies", (double)result->awakeFinal ) &&
        AddNumber( report, "sleeping_bodies", (double)result->sleepingFinal ) &&
        AddNumber( report, "islands", (double)result->islandsFinal ) &&
        AddNumber( report, "sleeping_islands", (double)result->sleepingIslandsFinal ) &&
        AddNumber( report, "island_ms_mean", result->steps > 0 ? result->islandMsSum / steps : 0.0 ) &&
        AddNumber( report, "iterations_mean", result->steps > 0 ? result->iterationsSum / steps : 0.0 ) &&
        AddNumber( report, "relax_iterations_mean",
                   result->steps > 0 ? result->relaxIterationsSum / steps : 0.0 ) &&
        AddNumber( report, "recursion_levels_mean",
                   result->steps > 0 ? result->recursionLevelsSum / steps : 0.0 ) &&
        AddNumber( report, "recursion_rows_mean",
                   result->steps > 0 ? result->recursionRowsSum / steps : 0.0 ) &&
        AddNumber( report, "recursion_refused", result->recursionRefusedSum ) &&
        AddNumber( report, "recursion_overlap_max", result->recursionOverlapMax ) &&
        AddNumber( report, "residual_final", result->residualFinal ) &&
        AddNumber( report, "kinetic_energy_initial", result->kineticEnergyInitial ) &&
        AddNumber( report, "kinetic_energy_final", result->kineticEnergyFinal ) &&
        AddSolverParams( report, worldId );

    // the last step's merits, then the largest of each over the run
    for ( int k = 0; ok && k < meritCount; ++k )
    {
        ok = AddNumber( report, meritKeys[k], result->merits[k] );
    }
    for ( int k = 0; ok && k < meritCount; ++k )
    {
        char key[64];
        snprintf( key, sizeof( key ), "%s_max", meritKeys[k] );
        ok = AddNumber( report, key, result->meritsMax[k] );
    }
    ok = ok && AddWarnings( report, result ) &&
         AddNumber( report, "log_line_count", (double)result->logLineCount ) &&
         AddNumber( report, "log_lines_suppressed", (double)result->logSuppressedCount ) &&
         AddDump( report, &result->dump ) && AddColony( report, result );

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
