// SPDX-License-Identifier: MIT
// cairn run SCENE.json: load a scene, step it headless, print a summary, write a report and a
// trace (docs/cli.md).
#include "cli.h"
#include "progress.h"
#include "report.h"
#include "systems.h"

#include "cairn/lcp_io.h"
#include "cairn/scene.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_STEPS 600
/// Step reports buffered between two trace writes; the stepping clocks stop while they are written.
#define STEP_BUFFER_CAPACITY 1024
/// Lines of one kind the world's log may print; further ones are counted.
#define LOG_REPEAT_LIMIT 5
/// Kinds of log line told apart; lines of further kinds share one last kind.
#define LOG_KIND_CAPACITY 64
#define LOG_KEY_CAPACITY  160

typedef struct RunOptions
{
    const char* scenePath;
    int64_t steps;
    const char* solverName;
    /// "key=value" strings, owned, in command-line order (--dt S becomes "world.dt=S").
    char** overrides;
    int overrideCount;
    /// "name=value" strings of --param, in command-line order (in argv).
    const char** params;
    int paramCount;
    /// --dump-problem STEP FILE (0: none).
    int64_t dumpStep;
    const char* dumpPath;
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
             "  --threads N        workers for the parallel stages (1 to 64; the same bits for\n"
             "                     any N); the same as --set world.threads=N\n"
             "  --solver NAME      swap the world's solver to NAME (cairn solvers lists them)\n"
             "  --param NAME=VALUE set a parameter of the world's solver after the load and\n"
             "                     --solver, e.g. --param iterations=20 --param kernel=reference\n"
             "                     (repeatable; a choice by name, a toggle as true/false or 1/0)\n"
             "  --set KEY=VALUE    override a scene value before it is checked, e.g.\n"
             "                     --set world.gravity=[0,0,-1] (repeatable, applied in order)\n"
             "  --report FILE.json write a JSON report (counts, timings, merits, final state)\n"
             "  --trace FILE.csv   write one CSV row per step\n"
             "  --dump-problem STEP FILE\n"
             "                     write the contact problem the world solved in step STEP\n"
             "                     (1-based; its last solve) in the Siconos format cairn lcp reads\n"
             "  --quiet            no progress line\n"
             "  -h, --help         this help\n"
             "\n"
             "exit codes: 0 success, 1 the scene did not load, a step failed or a file could not be\n"
             "written, 2 bad command line (including an unknown --param or a bad value)\n",
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
    free( (void*)options->params );
    options->params = NULL;
    options->paramCount = 0;
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
    options->params = calloc( (size_t)argc + 1, sizeof( char* ) );
    if ( options->overrides == NULL || options->params == NULL )
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
        else if ( match == 0 && ( match = MatchOption( argc, argv, &i, "--threads", &value ) ) == 1 )
        {
            char* end = NULL;
            long count = strtol( value, &end, 10 );
            if ( end == value || *end != '\0' || count < 1 || count > CN_MAX_WORKERS )
            {
                UsageError( "--threads expects an integer from 1 to %d, got '%s'", CN_MAX_WORKERS, value );
                return exitUsage;
            }
            char* override = CopyString( "world.threads=", value );
            if ( override == NULL )
            {
                fprintf( stderr, "cairn run: out of memory\n" );
                return exitFailure;
            }
            options->overrides[options->overrideCount++] = override;
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
        else if ( match == 0 && ( match = MatchOption( argc, argv, &i, "--param", &value ) ) == 1 )
        {
            const char* equals = strchr( value, '=' );
            if ( equals == NULL || equals == value )
            {
                UsageError( "--param expects NAME=VALUE, e.g. iterations=20, got '%s'", value );
                return exitUsage;
            }
            options->params[options->paramCount++] = value;
        }
        else if ( match == 0 && ( match = MatchOption( argc, argv, &i, "--dump-problem", &value ) ) == 1 )
        {
            if ( ParseSteps( value, &options->dumpStep ) == false || options->dumpStep < 1 )
            {
                UsageError(
                    "--dump-problem expects STEP FILE with STEP an integer >= 1 (the first step is 1), "
                    "got '%s'",
                    value );
                return exitUsage;
            }
            if ( i + 1 >= argc || argv[i + 1][0] == '\0' )
            {
                UsageError( "--dump-problem expects STEP FILE: no FILE after %s", value );
                return exitUsage;
            }
            if ( argv[i + 1][0] == '-' && argv[i + 1][1] != '\0' )
            {
                UsageError(
                    "--dump-problem expects STEP FILE: '%s' after %s looks like an option (write ./%s for "
                    "a file of that name)",
                    argv[i + 1], value, argv[i + 1] );
                return exitUsage;
            }
            i += 1;
            options->dumpPath = argv[i];
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
    if ( options->help == false && options->dumpStep > options->steps )
    {
        UsageError( "--dump-problem step %lld is beyond the run's %lld steps", (long long)options->dumpStep,
                    (long long)options->steps );
        return exitUsage;
    }
    return exitOk;
}

// ---------------------------------------------------------------------------------------------
// The world's log, rate-limited: a solver that fails every step would otherwise print a line per
// step. Lines are told apart by level, status and text with every number masked ("step #:
// solver 'lemke' ended ..."); each kind prints LOG_REPEAT_LIMIT times, then one line says that
// further ones are counted, and the run ends with the number not printed. Errors always print.

typedef struct LogKind
{
    cnLogLevel level;
    int status;
    char key[LOG_KEY_CAPACITY];
    int64_t count;
} LogKind;

typedef struct RunLog
{
    LogKind kinds[LOG_KIND_CAPACITY];
    int kindCount;
    int64_t lineCount;
    int64_t suppressedCount;
    /// Nullable: the progress line to clear before a log line.
    const Progress* progress;
} RunLog;

static const char* LogLevelName( cnLogLevel level )
{
    return level == cn_logError ? "error" : level == cn_logWarning ? "warning" : "info";
}

static bool IsDigit( char c )
{
    return c >= '0' && c <= '9';
}

// Length of the number that starts at `c` (an optional sign, digits, a fraction, an exponent:
// "12", "-0.0257", "2.22e-05"), 0 when none does.
static size_t NumberLength( const char* c )
{
    size_t n = ( c[0] == '-' || c[0] == '+' ) ? 1 : 0;
    if ( IsDigit( c[n] ) == false )
    {
        return 0;
    }
    while ( IsDigit( c[n] ) )
    {
        ++n;
    }
    if ( c[n] == '.' && IsDigit( c[n + 1] ) )
    {
        ++n;
        while ( IsDigit( c[n] ) )
        {
            ++n;
        }
    }
    if ( c[n] == 'e' || c[n] == 'E' )
    {
        size_t e = n + 1 + ( ( c[n + 1] == '-' || c[n + 1] == '+' ) ? 1 : 0 );
        if ( IsDigit( c[e] ) )
        {
            n = e;
            while ( IsDigit( c[n] ) )
            {
                ++n;
            }
        }
    }
    return n;
}

// The message with each number replaced by '#' (so that "0", "0.0257" and "2.22e-05" are one
// kind), cut to fit.
static void LogKindKey( const char* message, char* key, size_t size )
{
    size_t n = 0;
    const char* c = message;
    while ( *c != '\0' && n + 1 < size )
    {
        // a sign belongs to a number only where no word or number ends just before it
        bool signAllowed =
            c == message || ( IsDigit( c[-1] ) == false && c[-1] != '.' &&
                              !( ( c[-1] >= 'a' && c[-1] <= 'z' ) || ( c[-1] >= 'A' && c[-1] <= 'Z' ) ) );
        size_t length = ( *c == '-' || *c == '+' ) && signAllowed == false ? 0 : NumberLength( c );
        if ( length > 0 )
        {
            key[n++] = '#';
            c += length;
        }
        else
        {
            key[n++] = *c++;
        }
    }
    key[n] = '\0';
}

static void ClearProgressLine( const RunLog* log )
{
    if ( log->progress != NULL && log->progress->enabled )
    {
        fputs( "\r\x1b[K", stderr );
    }
}

static void RunLogFcn( cnLogLevel level, int status, const char* message, void* context )
{
    RunLog* log = context;
    log->lineCount += 1;

    LogKind* kind = NULL;
    if ( level != cn_logError )
    {
        char key[LOG_KEY_CAPACITY];
        LogKindKey( message, key, sizeof( key ) );
        for ( int i = 0; i < log->kindCount && kind == NULL; ++i )
        {
            LogKind* k = log->kinds + i;
            if ( k->level == level && k->status == status && strcmp( k->key, key ) == 0 )
            {
                kind = k;
            }
        }
        if ( kind == NULL && log->kindCount < LOG_KIND_CAPACITY )
        {
            kind = log->kinds + log->kindCount;
            log->kindCount += 1;
            *kind = ( LogKind ){ .level = level, .status = status };
            snprintf( kind->key, sizeof( kind->key ), "%s",
                      log->kindCount < LOG_KIND_CAPACITY ? key : "(lines of other kinds)" );
        }
        else if ( kind == NULL )
        {
            kind = log->kinds + LOG_KIND_CAPACITY - 1; // the shared last kind
        }
        kind->count += 1;
    }

    if ( kind == NULL || kind->count <= LOG_REPEAT_LIMIT )
    {
        ClearProgressLine( log );
        fprintf( stderr, "cairn: %s: %s\n", LogLevelName( level ), message );
        return;
    }
    if ( kind->count == LOG_REPEAT_LIMIT + 1 )
    {
        ClearProgressLine( log );
        fprintf( stderr, "cairn run: further log lines like \"%.100s\" are counted, not printed\n",
                 kind->key );
    }
    log->suppressedCount += 1;
}

// The closing line of the rate limit, when it held anything back.
static void FinishRunLog( const RunLog* log )
{
    if ( log->suppressedCount == 0 )
    {
        return;
    }
    int kinds = 0;
    for ( int i = 0; i < log->kindCount; ++i )
    {
        kinds += log->kinds[i].count > LOG_REPEAT_LIMIT ? 1 : 0;
    }
    fprintf( stderr,
             "cairn run: %lld repeated log line%s not printed (%d kind%s; at most %d of each kind are "
             "printed)\n",
             (long long)log->suppressedCount, log->suppressedCount == 1 ? "" : "s", kinds,
             kinds == 1 ? "" : "s", LOG_REPEAT_LIMIT );
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

// What the trace adds to the world's step report: the step's process CPU time, and for a scene with
// a colony its statistics after the step (measured outside the step's time).
typedef struct TraceExtra
{
    double cpuMs;
    double wallSeconds;
    cxColonyStats colony;
} TraceExtra;

static bool WriteTraceHeader( FILE* trace, bool colony )
{
    return fputs(
               "step,time,contacts,iterations,residual,kinetic_energy,max_penetration,systems_ms,predict_ms,"
               "collide_ms,integrate_ms,step_ms,relax_iterations,merit_natural_map,merit_cone,"
               "violation_signorini,violation_coulomb,violation_dissipation,solve_ms,solve_status,"
               "recursion_levels,recursion_rows,recursion_overlap,awake_bodies,sleeping_bodies,islands,"
               "island_ms,cpu_ms,energy_added,approach_energy,closing,approach,solve_outcome",
               trace ) >= 0 &&
           fputs( colony ? ",cells,generations,colony_radius,volume_fraction\n" : "\n", trace ) >= 0;
}

// The status of the step's last solve, "none" when the step solved nothing.
static const char* StepSolveStatus( const cnStepReport* report )
{
    bool solved = report->solverRows > 0 || report->solverIterations > 0 || report->relaxIterations > 0;
    return solved ? cnSolveStatusName( (cnSolveStatus)report->solverStatus ) : "none";
}

static bool WriteTraceRow( FILE* trace, const cnStepReport* report, const TraceExtra* extra, bool colony )
{
    bool ok =
        fprintf(
            trace,
            "%lld,%.17g,%d,%d,%.17g,%.17g,%.17g,%.6g,%.6g,%.6g,%.6g,%.6g,%d,%.17g,%.17g,%.17g,%.17g,%.17g,"
            "%.6g,%s,%d,%d,%.17g,%d,%d,%d,%.6g,%.6g,%.17g,%.17g,%.17g,%.17g,%s",
            (long long)report->stepIndex, report->time, report->contactCount, report->solverIterations,
            report->solverResidual, report->kineticEnergy, report->maxPenetration, report->systemsMs,
            report->predictMs, report->collideMs, report->integrateMs, report->stepMs,
            report->relaxIterations, report->meritNaturalMap, report->meritCone, report->violationSignorini,
            report->violationCoulomb, report->violationDissipation, report->solveMs,
            StepSolveStatus( report ), report->contactRecursions, report->recursionRows,
            report->recursionOverlap, report->awakeCount, report->sleepingCount, report->islandCount,
            report->islandMs, extra->cpuMs, report->solverEnergyAdded, report->solverApproachEnergy,
            report->solverClosing, report->solverApproach,
            cnSolveOutcomeName( (cnSolveOutcome)report->solverOutcome ) ) > 0;
    if ( colony )
    {
        ok = ok && fprintf( trace, ",%d,%d,%.17g,%.17g", extra->colony.cells, extra->colony.generations,
                            extra->colony.radius, extra->colony.volumeFraction ) > 0;
    }
    return ok && fputc( '\n', trace ) != EOF;
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
        result->relaxIterationsSum += report->relaxIterations;
        result->recursionLevelsSum += report->contactRecursions;
        result->recursionRowsSum += report->recursionRows;
        result->recursionRefusedSum += report->recursionRefused;
        result->recursionOverlapMax = fmax( result->recursionOverlapMax, report->recursionOverlap );
        result->substeps = report->substeps;
        result->awakeFinal = report->awakeCount;
        result->sleepingFinal = report->sleepingCount;
        result->islandsFinal = report->islandCount;
        result->sleepingIslandsFinal = report->sleepingIslandCount;
        result->islandMsSum += report->islandMs;
        result->residualFinal = report->solverResidual;
        result->simulatedTime = report->time;
        StepMerits( report, result->merits );
        for ( int k = 0; k < meritCount; ++k )
        {
            // fmax skips a NaN merit; the maximum starts as NaN (no step)
            result->meritsMax[k] = fmax( result->meritsMax[k], result->merits[k] );
        }
        for ( int bit = 0; bit < 32; ++bit )
        {
            result->warningBitCounts[bit] += ( report->warnings >> bit ) & 1u;
        }
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

// The problem callback of the --dump-problem step: write each solve's problem over the last, so
// that the file holds the step's last solve (the last substep's final pass).
static void DumpProblem( const cnSolverProblem* problem, const double* start, const double* lambda,
                         const cnSolverStats* stats, void* context )
{
    ProblemDump* dump = context;
    double wall0 = WallSeconds();
    double cpu0 = CpuSeconds();
    dump->solves += 1;
    dump->message[0] = '\0';
    dump->status =
        cnWriteProblemFile( dump->path, problem, start, lambda, dump->message, (int)sizeof( dump->message ) );
    dump->rows = problem->rowCount;
    dump->groups = problem->groupCount;
    dump->iterations = stats->iterations;
    dump->solveStatus = stats->status;
    dump->residual = stats->residual;
    dump->cpuSeconds += CpuSeconds() - cpu0;
    dump->wallSeconds += WallSeconds() - wall0;
}

// After the dump step: true when the file was written, else prints why.
static bool CheckDump( const RunOptions* options, const ProblemDump* dump )
{
    if ( dump->solves == 0 )
    {
        fprintf( stderr,
                 "cairn run: %s: --dump-problem: step %lld solved no contact problem (no contacts), nothing "
                 "written to %s\n",
                 options->scenePath, (long long)dump->step, dump->path );
        return false;
    }
    if ( dump->status != cn_statusOk )
    {
        fprintf( stderr,
                 "cairn run: %s: --dump-problem: cannot write the problem of step %lld to %s: %s (%s)\n",
                 options->scenePath, (long long)dump->step, dump->path,
                 dump->message[0] != '\0' ? dump->message : cnStatusString( dump->status ),
                 cnStatusName( dump->status ) );
        return false;
    }
    return true;
}

// Step the world; returns exitOk or exitFailure (after printing why).
static int StepWorld( cnWorldId worldId, const RunOptions* options, FILE* trace, const cxColony* colony,
                      RunResult* result, RunLog* log )
{
    cnStepReport* buffer = malloc( STEP_BUFFER_CAPACITY * sizeof( cnStepReport ) );
    // with a trace, each step is timed on its own (a clock read a step is no cost next to writing
    // a row) and the colony's statistics are taken between the steps, outside their times
    TraceExtra* extra = trace != NULL ? calloc( STEP_BUFFER_CAPACITY, sizeof( TraceExtra ) ) : NULL;
    if ( buffer == NULL || ( trace != NULL && extra == NULL ) )
    {
        fprintf( stderr, "cairn run: out of memory\n" );
        free( buffer );
        free( extra );
        return exitFailure;
    }

    Progress progress;
    Progress_Start( &progress, options->quiet == false, options->steps, WallSeconds() );
    log->progress = &progress;

    int64_t done = 0;
    cnStatus status = cn_statusOk;
    int exitCode = exitOk;
    bool dumpFailed = false;
    while ( done < options->steps && status == cn_statusOk && dumpFailed == false )
    {
        // one timed segment: until the buffer is full, the run is over or the progress line is due
        int64_t left = options->steps - done;
        int capacity = left < STEP_BUFFER_CAPACITY ? (int)left : STEP_BUFFER_CAPACITY;
        int count = 0;
        double wall0 = WallSeconds();
        double cpu0 = CpuSeconds();
        while ( count < capacity )
        {
            bool dumping = done + count + 1 == result->dump.step;
            if ( dumping )
            {
                cnWorld_SetProblemFcn( worldId, DumpProblem, &result->dump );
            }
            double stepCpu0 = extra != NULL ? CpuSeconds() : 0.0;
            double stepWall0 = extra != NULL ? WallSeconds() : 0.0;
            status = cnWorld_Step( worldId, result->timeStep );
            if ( extra != NULL )
            {
                extra[count].wallSeconds = WallSeconds() - stepWall0;
                extra[count].cpuMs = 1000.0 * ( CpuSeconds() - stepCpu0 );
            }
            if ( dumping )
            {
                cnWorld_SetProblemFcn( worldId, NULL, NULL );
            }
            if ( status != cn_statusOk )
            {
                break;
            }
            buffer[count] = cnWorld_GetStepReport( worldId );
            if ( extra != NULL && colony != NULL )
            {
                extra[count].colony = cxColony_GetStats( colony );
            }
            count += 1;
            if ( dumping )
            {
                result->dump.stepIterations = buffer[count - 1].solverIterations;
                result->dump.stepRelaxIterations = buffer[count - 1].relaxIterations;
                if ( CheckDump( options, &result->dump ) == false )
                {
                    dumpFailed = true;
                    break;
                }
            }
            if ( progress.enabled && Progress_Due( &progress, WallSeconds() ) )
            {
                break;
            }
        }
        double cpu1 = CpuSeconds();
        double wall1 = WallSeconds();
        if ( extra != NULL )
        {
            for ( int i = 0; i < count; ++i )
            {
                result->cpuSeconds += 0.001 * extra[i].cpuMs;
                result->wallSeconds += extra[i].wallSeconds;
            }
        }
        else
        {
            result->cpuSeconds += cpu1 - cpu0;
            result->wallSeconds += wall1 - wall0;
        }

        Accumulate( result, buffer, count, done + 1 );
        for ( int i = 0; trace != NULL && i < count; ++i )
        {
            if ( WriteTraceRow( trace, buffer + i, extra + i, colony != NULL ) == false )
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
    log->progress = NULL;
    free( buffer );
    free( extra );
    if ( colony != NULL )
    {
        cxColonyStats stats = cxColony_GetStats( colony );
        result->hasColony = true;
        result->colonyCells = stats.cells;
        result->colonyGenerations = stats.generations;
        result->colonyRadius = stats.radius;
        result->colonyVolumeFraction = stats.volumeFraction;
    }

    // writing the problem file is not stepping
    result->wallSeconds = fmax( result->wallSeconds - result->dump.wallSeconds, 0.0 );
    result->cpuSeconds = fmax( result->cpuSeconds - result->dump.cpuSeconds, 0.0 );

    if ( dumpFailed )
    {
        return exitFailure;
    }
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
    char warnings[512];
    FormatWarningSummary( result, warnings, (int)sizeof( warnings ) );
    printf(
        "%s: %lld steps x %g s, %d bodies, solver %s: %.3g ms/step (cpu %.3g), kinetic energy %.6g J, %s\n",
        BaseName( options->scenePath ), (long long)result->steps, result->timeStep, bodyCount, result->solver,
        wallMs, cpuMs, result->kineticEnergyFinal, warnings );
    fflush( stdout );
}

// "iterations, tolerance, ..." of `solver`.
static void ParamNames( const cnSolverVTable* solver, char* buffer, size_t size )
{
    size_t used = 0;
    buffer[0] = '\0';
    for ( int i = 0; i < solver->paramCount && used < size; ++i )
    {
        int n = snprintf( buffer + used, size - used, "%s%s", i > 0 ? ", " : "", solver->params[i].name );
        used += n > 0 ? (size_t)n : 0;
    }
}

// --param NAME=VALUE on the world's solver, in order. exitOk, or exitUsage after saying why.
static int ApplyParams( cnWorldId worldId, const RunOptions* options )
{
    const cnSolverVTable* solver = cnWorld_GetSolver( worldId );
    for ( int i = 0; solver != NULL && i < options->paramCount; ++i )
    {
        const char* text = options->params[i];
        const char* equals = strchr( text, '=' );
        char name[128];
        snprintf( name, sizeof( name ), "%.*s", (int)( equals - text ), text );
        char names[1024];
        ParamNames( solver, names, sizeof( names ) );

        int index = cnFindSolverParam( solver, name );
        if ( index < 0 )
        {
            UsageError( "--param %s: solver '%s' has no parameter '%s' (its parameters: %s)", text,
                        solver->name, name, names );
            return exitUsage;
        }
        double value = 0.0;
        char why[256] = "";
        if ( cnParseSolverParam( solver->params + index, equals + 1, &value, why, (int)sizeof( why ) ) !=
             cn_statusOk )
        {
            UsageError( "--param %s: %s (solver '%s'; its parameters: %s)", text, why, solver->name, names );
            return exitUsage;
        }
        cnStatus status = cnWorld_SetSolverParam( worldId, name, value );
        if ( status != cn_statusOk )
        {
            UsageError( "--param %s: solver '%s' refused it: %s", text, solver->name,
                        cnStatusString( status ) );
            return exitUsage;
        }
    }
    return exitOk;
}

static int RunLoaded( cnWorldId worldId, const RunOptions* options, const cxColony* colony, RunResult* result,
                      RunLog* log )
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
    int paramsExit = ApplyParams( worldId, options );
    if ( paramsExit != exitOk )
    {
        return paramsExit;
    }
    def = cnWorld_GetDef( worldId );

    result->scenePath = options->scenePath;
    result->steps = options->steps;
    result->timeStep = def.timeStep;
    snprintf( result->solver, sizeof( result->solver ), "%s", def.solver.name );
    result->residualFinal = NAN;
    for ( int k = 0; k < meritCount; ++k )
    {
        result->merits[k] = NAN;
        result->meritsMax[k] = NAN;
    }
    result->recursionOverlapMax = NAN;
    result->dump.step = options->dumpStep;
    result->dump.path = options->dumpPath;
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
        if ( trace == NULL || WriteTraceHeader( trace, colony != NULL ) == false )
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

    int exitCode = StepWorld( worldId, options, trace, colony, result, log );
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
    result->logLineCount = log->lineCount;
    result->logSuppressedCount = log->suppressedCount;
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

    // Under mpirun every rank runs this same world (the tao solver shares its solves across them,
    // docs/scale-out.md): rank 0 alone prints and writes; the others are silent and write nothing.
    if ( MpiRank() > 0 )
    {
        options.reportPath = NULL;
        options.tracePath = NULL;
        options.dumpStep = 0;
        options.dumpPath = NULL;
        options.quiet = true;
        if ( SilenceOutput() == false )
        {
            FreeOptions( &options );
            return exitFailure;
        }
    }

    // large (the kept warning texts, the log kinds): on the heap
    RunResult* result = calloc( 1, sizeof( RunResult ) );
    RunLog* log = calloc( 1, sizeof( RunLog ) );
    if ( result == NULL || log == NULL )
    {
        fprintf( stderr, "cairn run: out of memory\n" );
        free( result );
        free( log );
        FreeOptions( &options );
        return exitFailure;
    }

    cnSceneOptions sceneOptions = cnDefaultSceneOptions();
    sceneOptions.overrides = (const char* const*)options.overrides;
    sceneOptions.overrideCount = options.overrideCount;
    sceneOptions.warningFcn = CollectLoadWarning;
    sceneOptions.warningContext = result;
    // the world's own log lines (the engine's warnings), rate-limited
    sceneOptions.worldDef.logFcn = RunLogFcn;
    sceneOptions.worldDef.logContext = log;

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
        exitCode = RunLoaded( scene.worldId, &options, systems.colony, result, log );
        cnDestroyWorld( scene.worldId );
    }
    FinishRunLog( log );

    free( log );
    free( result );
    FreeOptions( &options );
    return exitCode;
}
