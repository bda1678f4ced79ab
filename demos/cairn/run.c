// SPDX-License-Identifier: MIT
// cairn run SCENE.json: load a scene, step it headless, print a summary, write a report and a
// trace (docs/cli.md).
#include "cli.h"
#include "progress.h"
#include "report.h"
#include "systems.h"

#include "cairn/scene.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_STEPS 600
/// Step reports buffered between two trace writes; the stepping clocks stop while they are written.
#define STEP_BUFFER_CAPACITY 1024

typedef struct RunOptions
{
    const char* scenePath;
    int64_t steps;
    const char* solverName;
    /// "key=value" strings, owned, in command-line order (--dt S becomes "world.dt=S").
    char** overrides;
    int overrideCount;
    const char* reportPath;
    const char* tracePath;
    bool quiet;
    bool help;
} RunOptions;

void PrintRunUsage( FILE* stream )
{
    fprintf( stream,
             "usage: cairn run SCENE.json [options]\n"
             "\n"
             "Load a JSON scene, step it headless and print a one-line summary.\n"
             "\n"
             "options:\n"
             "  --steps N          number of steps (default %d)\n"
             "  --dt S             time step in seconds; the same as --set world.dt=S\n"
             "  --solver NAME      record NAME as the world's solver\n"
             "  --set KEY=VALUE    override a scene value before it is checked, e.g.\n"
             "                     --set world.gravity=[0,0,-1] (repeatable, applied in order)\n"
             "  --report FILE.json write a JSON report (counts, timings, final state of every body)\n"
             "  --trace FILE.csv   write one CSV row per step\n"
             "  --quiet            no progress line\n"
             "  -h, --help         this help\n"
             "\n"
             "exit codes: 0 success, 1 the scene did not load, a step failed or a file could not be\n"
             "written, 2 bad command line\n",
             DEFAULT_STEPS );
}

#if defined( __GNUC__ )
__attribute__( ( format( printf, 1, 2 ) ) )
#endif
static void
UsageError( const char* format, ... )
{
    va_list args;
    va_start( args, format );
    fprintf( stderr, "cairn run: " );
    vfprintf( stderr, format, args );
    fprintf( stderr, "\n(see cairn run --help)\n" );
    va_end( args );
}

static char* CopyString( const char* prefix, const char* text )
{
    size_t a = strlen( prefix );
    size_t b = strlen( text );
    char* copy = malloc( a + b + 1 );
    if ( copy != NULL )
    {
        memcpy( copy, prefix, a );
        memcpy( copy + a, text, b + 1 );
    }
    return copy;
}

static void FreeOptions( RunOptions* options )
{
    for ( int i = 0; i < options->overrideCount; ++i )
    {
        free( options->overrides[i] );
    }
    free( options->overrides );
    options->overrides = NULL;
    options->overrideCount = 0;
}

static bool ParseSteps( const char* text, int64_t* steps )
{
    if ( text[0] < '0' || text[0] > '9' )
    {
        return false; // no sign, no space, not empty
    }
    errno = 0;
    char* end = NULL;
    long long value = strtoll( text, &end, 10 );
    if ( errno != 0 || *end != '\0' || value < 0 )
    {
        return false;
    }
    *steps = (int64_t)value;
    return true;
}

static bool ParseTimeStep( const char* text )
{
    errno = 0;
    char* end = NULL;
    double value = strtod( text, &end );
    return end != text && *end == '\0' && errno == 0 && isfinite( value ) && value > 0.0;
}

// Returns exitOk, or exitUsage (exitFailure when out of memory) after printing why.
static int ParseRunOptions( int argc, char** argv, RunOptions* options )
{
    *options = ( RunOptions ){ .steps = DEFAULT_STEPS };
    options->overrides = calloc( (size_t)argc + 1, sizeof( char* ) );
    if ( options->overrides == NULL )
    {
        fprintf( stderr, "cairn run: out of memory\n" );
        return exitFailure;
    }

    bool optionsEnded = false;
    for ( int i = 1; i < argc; ++i )
    {
        const char* arg = argv[i];
        const char* value = NULL;
        int match = 0;

        if ( optionsEnded || arg[0] != '-' || arg[1] == '\0' )
        {
            if ( options->scenePath != NULL )
            {
                UsageError( "more than one scene file: '%s' and '%s'", options->scenePath, arg );
                return exitUsage;
            }
            options->scenePath = arg;
            continue;
        }

        if ( strcmp( arg, "--" ) == 0 )
        {
            optionsEnded = true;
        }
        else if ( strcmp( arg, "-h" ) == 0 || strcmp( arg, "--help" ) == 0 )
        {
            options->help = true;
        }
        else if ( strcmp( arg, "--quiet" ) == 0 )
        {
            options->quiet = true;
        }
        else if ( ( match = MatchOption( argc, argv, &i, "--steps", &value ) ) == 1 )
        {
            if ( ParseSteps( value, &options->steps ) == false )
            {
                UsageError( "--steps expects a non-negative integer, got '%s'", value );
                return exitUsage;
            }
        }
        else if ( match == 0 && ( match = MatchOption( argc, argv, &i, "--dt", &value ) ) == 1 )
        {
            if ( ParseTimeStep( value ) == false )
            {
                UsageError( "--dt expects a positive number of seconds, got '%s'", value );
                return exitUsage;
            }
            char* override = CopyString( "world.dt=", value );
            if ( override == NULL )
            {
                fprintf( stderr, "cairn run: out of memory\n" );
                return exitFailure;
            }
            options->overrides[options->overrideCount++] = override;
        }
        else if ( match == 0 && ( match = MatchOption( argc, argv, &i, "--set", &value ) ) == 1 )
        {
            const char* equals = strchr( value, '=' );
            if ( equals == NULL || equals == value )
            {
                UsageError( "--set expects KEY=VALUE, e.g. world.gravity=[0,0,-1], got '%s'", value );
                return exitUsage;
            }
            char* override = CopyString( "", value );
            if ( override == NULL )
            {
                fprintf( stderr, "cairn run: out of memory\n" );
                return exitFailure;
            }
            options->overrides[options->overrideCount++] = override;
        }
        else if ( match == 0 && ( match = MatchOption( argc, argv, &i, "--solver", &value ) ) == 1 )
        {
            if ( value[0] == '\0' || strlen( value ) >= sizeof( ( (cnSolverSettings*)NULL )->name ) )
            {
                UsageError( "--solver expects a name of 1 to 31 characters, got '%s'", value );
                return exitUsage;
            }
            options->solverName = value;
        }
        else if ( match == 0 && ( match = MatchOption( argc, argv, &i, "--report", &value ) ) == 1 )
        {
            options->reportPath = value;
        }
        else if ( match == 0 && ( match = MatchOption( argc, argv, &i, "--trace", &value ) ) == 1 )
        {
            options->tracePath = value;
        }
        else if ( match == -1 )
        {
            UsageError( "option %s needs a value", arg );
            return exitUsage;
        }
        else
        {
            UsageError( "unknown option '%s'", arg );
            return exitUsage;
        }

        if ( match == 1 && value[0] == '\0' )
        {
            UsageError( "option %s needs a non-empty value", arg );
            return exitUsage;
        }
    }

    if ( options->help == false && options->scenePath == NULL )
    {
        UsageError( "no scene file given" );
        return exitUsage;
    }
    return exitOk;
}

static void CollectLoadWarning( const char* text, void* context )
{
    RunResult* result = context;
    fprintf( stderr, "%s\n", text );
    if ( result->loadWarningsKept < MAX_REPORTED_LOAD_WARNINGS )
    {
        snprintf( result->loadWarnings[result->loadWarningsKept], CN_SCENE_TEXT_CAPACITY, "%s", text );
        result->loadWarningsKept += 1;
    }
    result->loadWarningCount += 1;
}

static double TotalKineticEnergy( cnWorldId worldId )
{
    cnBodyArrays bodies = cnWorld_GetBodyArrays( worldId );
    double energy = 0.0;
    for ( int row = 0; row < bodies.count; ++row )
    {
        energy += cnBody_GetKineticEnergy( bodies.ids[row] );
    }
    return energy;
}

static bool WriteTraceHeader( FILE* trace )
{
    return fputs(
               "step,time,contacts,iterations,residual,kinetic_energy,max_penetration,systems_ms,predict_ms,"
               "collide_ms,integrate_ms,step_ms\n",
               trace ) >= 0;
}

static bool WriteTraceRow( FILE* trace, const cnStepReport* report )
{
    return fprintf( trace, "%lld,%.17g,%d,%d,%.17g,%.17g,%.17g,%.6g,%.6g,%.6g,%.6g,%.6g\n",
                    (long long)report->stepIndex, report->time, report->contactCount,
                    report->solverIterations, report->solverResidual, report->kineticEnergy,
                    report->maxPenetration, report->systemsMs, report->predictMs, report->collideMs,
                    report->integrateMs, report->stepMs ) > 0;
}

// Fold the buffered step reports into the totals. `firstStep` is the 1-based number of buffer[0].
static void Accumulate( RunResult* result, const cnStepReport* buffer, int count, int64_t firstStep )
{
    for ( int i = 0; i < count; ++i )
    {
        const cnStepReport* report = buffer + i;
        if ( report->contactCount > result->contactsMax )
        {
            result->contactsMax = report->contactCount;
        }
        // fmax ignores a NaN penetration; the residual is kept as it is
        result->maxPenetration = fmax( result->maxPenetration, report->maxPenetration );
        result->iterationsSum += report->solverIterations;
        result->residualFinal = report->solverResidual;
        result->simulatedTime = report->time;
        if ( report->warnings != 0 )
        {
            if ( result->stepWarningsKept < MAX_REPORTED_STEP_WARNINGS )
            {
                result->stepWarnings[result->stepWarningsKept] =
                    ( StepWarningRecord ){ .step = firstStep + i, .flags = report->warnings };
                result->stepWarningsKept += 1;
            }
            result->warningCount += 1;
        }
    }
}

// Step the world; returns exitOk or exitFailure (after printing why).
static int StepWorld( cnWorldId worldId, const RunOptions* options, FILE* trace, RunResult* result )
{
    cnStepReport* buffer = malloc( STEP_BUFFER_CAPACITY * sizeof( cnStepReport ) );
    if ( buffer == NULL )
    {
        fprintf( stderr, "cairn run: out of memory\n" );
        return exitFailure;
    }

    Progress progress;
    Progress_Start( &progress, options->quiet == false, options->steps, WallSeconds() );

    int64_t done = 0;
    cnStatus status = cn_statusOk;
    int exitCode = exitOk;
    while ( done < options->steps && status == cn_statusOk )
    {
        // one timed segment: until the buffer is full, the run is over or the progress line is due
        int64_t left = options->steps - done;
        int capacity = left < STEP_BUFFER_CAPACITY ? (int)left : STEP_BUFFER_CAPACITY;
        int count = 0;
        double wall0 = WallSeconds();
        double cpu0 = CpuSeconds();
        while ( count < capacity )
        {
            status = cnWorld_Step( worldId, result->timeStep );
            if ( status != cn_statusOk )
            {
                break;
            }
            buffer[count] = cnWorld_GetStepReport( worldId );
            count += 1;
            if ( progress.enabled && Progress_Due( &progress, WallSeconds() ) )
            {
                break;
            }
        }
        double cpu1 = CpuSeconds();
        double wall1 = WallSeconds();
        result->cpuSeconds += cpu1 - cpu0;
        result->wallSeconds += wall1 - wall0;

        Accumulate( result, buffer, count, done + 1 );
        for ( int i = 0; trace != NULL && i < count; ++i )
        {
            if ( WriteTraceRow( trace, buffer + i ) == false )
            {
                fprintf( stderr, "cairn run: cannot write the trace %s\n", options->tracePath );
                exitCode = exitFailure;
                break;
            }
        }
        done += count;
        if ( exitCode != exitOk )
        {
            break;
        }
        if ( Progress_Due( &progress, wall1 ) )
        {
            Progress_Update( &progress, done, wall1 );
        }
    }
    Progress_Finish( &progress );
    free( buffer );

    if ( status != cn_statusOk )
    {
        fprintf( stderr, "cairn run: %s: step %lld of %lld failed: %s (%s)\n", options->scenePath,
                 (long long)( done + 1 ), (long long)options->steps, cnStatusString( status ),
                 cnStatusName( status ) );
        return exitFailure;
    }
    return exitCode;
}

static void PrintSummary( const RunOptions* options, const RunResult* result, int bodyCount )
{
    double steps = (double)result->steps;
    double wallMs = result->steps > 0 ? 1000.0 * result->wallSeconds / steps : 0.0;
    double cpuMs = result->steps > 0 ? 1000.0 * result->cpuSeconds / steps : 0.0;
    printf(
        "%s: %lld steps x %g s, %d bodies, solver %s: %.3g ms/step (cpu %.3g), kinetic energy %.6g J, %lld "
        "warnings\n",
        BaseName( options->scenePath ), (long long)result->steps, result->timeStep, bodyCount, result->solver,
        wallMs, cpuMs, result->kineticEnergyFinal,
        (long long)( result->warningCount + result->loadWarningCount ) );
    fflush( stdout );
}

static int RunLoaded( cnWorldId worldId, const RunOptions* options, RunResult* result )
{
    cnWorldDef def = cnWorld_GetDef( worldId );
    if ( options->solverName != NULL )
    {
        cnSolverSettings settings = def.solver;
        snprintf( settings.name, sizeof( settings.name ), "%s", options->solverName );
        cnStatus status = cnWorld_SetSolverSettings( worldId, &settings );
        if ( status != cn_statusOk )
        {
            fprintf( stderr, "cairn run: cannot set solver '%s': %s\n", options->solverName,
                     cnStatusString( status ) );
            return exitFailure;
        }
        def = cnWorld_GetDef( worldId );
    }

    result->scenePath = options->scenePath;
    result->steps = options->steps;
    result->timeStep = def.timeStep;
    snprintf( result->solver, sizeof( result->solver ), "%s", def.solver.name );
    result->residualFinal = NAN;
    result->kineticEnergyInitial = TotalKineticEnergy( worldId );

    if ( !( isfinite( def.timeStep ) && def.timeStep > 0.0 ) )
    {
        fprintf( stderr, "cairn run: %s: the time step must be positive, got %g s\n", options->scenePath,
                 def.timeStep );
        return exitFailure;
    }

    FILE* trace = NULL;
    if ( options->tracePath != NULL )
    {
        trace = fopen( options->tracePath, "w" );
        if ( trace == NULL || WriteTraceHeader( trace ) == false )
        {
            fprintf( stderr, "cairn run: cannot write the trace %s: %s\n", options->tracePath,
                     strerror( errno ) );
            if ( trace != NULL )
            {
                fclose( trace );
            }
            return exitFailure;
        }
    }

    int exitCode = StepWorld( worldId, options, trace, result );
    if ( trace != NULL && fclose( trace ) != 0 && exitCode == exitOk )
    {
        fprintf( stderr, "cairn run: cannot write the trace %s\n", options->tracePath );
        exitCode = exitFailure;
    }
    if ( exitCode != exitOk )
    {
        return exitCode;
    }

    result->kineticEnergyFinal = TotalKineticEnergy( worldId );
    PrintSummary( options, result, cnWorld_GetBodyCount( worldId ) );

    if ( options->reportPath != NULL )
    {
        char message[512];
        if ( WriteReport( options->reportPath, result, worldId, message, (int)sizeof( message ) ) == false )
        {
            fprintf( stderr, "cairn run: %s\n", message );
            return exitFailure;
        }
    }
    return exitOk;
}

int RunCommand( int argc, char** argv )
{
    RunOptions options;
    int exitCode = ParseRunOptions( argc, argv, &options );
    if ( exitCode != exitOk || options.help )
    {
        if ( exitCode == exitOk )
        {
            PrintRunUsage( stdout );
        }
        FreeOptions( &options );
        return exitCode;
    }

    // large (the kept warning texts): on the heap
    RunResult* result = calloc( 1, sizeof( RunResult ) );
    if ( result == NULL )
    {
        fprintf( stderr, "cairn run: out of memory\n" );
        FreeOptions( &options );
        return exitFailure;
    }

    cnSceneOptions sceneOptions = cnDefaultSceneOptions();
    sceneOptions.overrides = (const char* const*)options.overrides;
    sceneOptions.overrideCount = options.overrideCount;
    sceneOptions.warningFcn = CollectLoadWarning;
    sceneOptions.warningContext = result;

    // the application systems a scene may name (colony growth, force fields)
    cxSceneSystems systems = { 0 };
    cnSceneSystem handlers[CX_SCENE_SYSTEM_COUNT];
    sceneOptions.systems = handlers;
    sceneOptions.systemCount = cxGetSceneSystems( &systems, handlers, CX_SCENE_SYSTEM_COUNT );
    cnScene scene = { 0 };
    cnSceneError error = { 0 };
    cnStatus status = cnLoadSceneFile( options.scenePath, &sceneOptions, &scene, &error );
    if ( status != cn_statusOk )
    {
        if ( error.text[0] != '\0' )
        {
            fprintf( stderr, "%s\n", error.text );
        }
        else
        {
            fprintf( stderr, "%s: cannot load the scene: %s\n", options.scenePath, cnStatusString( status ) );
        }
        exitCode = exitFailure;
    }
    else
    {
        exitCode = RunLoaded( scene.worldId, &options, result );
        cnDestroyWorld( scene.worldId );
    }

    free( result );
    FreeOptions( &options );
    return exitCode;
}
