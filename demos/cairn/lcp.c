// SPDX-License-Identifier: MIT
// cairn lcp FILE: read one solver problem (Siconos LCP or FC3D text, fclib HDF5), solve it with a
// registered solver from the file's start block or from zero, print a summary, write the solution,
// the grading merits and (--history) the merit after every iteration as JSON. cairn solvers: list
// the registered solvers with their parameters (docs/cli.md).
#include "cli.h"
#include "report.h"

#include "cairn/lcp_io.h"
#include "cairn/solver.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

// Entries of --history at most (the solver's iteration budget + 1 below this).
#define MAX_HISTORY 1000001

// One parameter value from the command line, applied in command-line order once the solver is
// known: --tol and --max-iter name theirs, --param gives name=value.
typedef struct LcpSetting
{
    const char* option; // "--tol", "--max-iter" or "--param"
    const char* name;   // the parameter's name (for --param, a copy cut at '=')
    const char* text;   // the value as given
    double number;      // --tol, --max-iter: the value already read
} LcpSetting;

typedef struct LcpOptions
{
    const char* path;
    const char* solverName;
    const char* outPath;
    LcpSetting* settings; // argc entries at most
    int settingCount;
    char* names; // storage for the --param names
    bool history;
    bool cold;
    bool cone; // --friction cone: every contact group of the problem read takes the cone model
    bool help;
} LcpOptions;

void PrintLcpUsage( FILE* stream )
{
    fprintf(
        stream,
        "usage: cairn lcp FILE [options]\n"
        "\n"
        "Read one LCP or 3-D frictional-contact problem (Siconos text, fclib HDF5), solve it from\n"
        "the file's start block (or lambda = 0) and print a one-line summary.\n"
        "\n"
        "options:\n"
        "  --solver NAME         the solver (default: the first registered, see cairn solvers)\n"
        "  --param NAME=VALUE    set any parameter of the solver (repeatable; cairn solvers lists them)\n"
        "  --tol X               the solver's \"tolerance\" parameter (default: the solver's)\n"
        "  --max-iter N          the solver's \"iterations\" parameter, an integer >= 1\n"
        "  --friction MODEL      pyramid (default: the file's box friction) or cone (the exact Coulomb\n"
        "                        cone for every contact; solvers with the cone capability only)\n"
        "  --history             record the grading merit after every iteration (into --out)\n"
        "  --cold                start from lambda = 0 even when the file has a start block\n"
        "  --out FILE.json       write the solution (lambda, w), the merits and the statistics as JSON\n"
        "  -h, --help            this help\n"
        "\n"
        "exit codes: 0 the solver ran (whatever its status), 1 the file could not be read, the\n"
        "solver could not run or the output could not be written, 2 bad command line\n" );
}

void PrintSolversUsage( FILE* stream )
{
    fprintf( stream, "usage: cairn solvers [--json]\n"
                     "\n"
                     "List the registered solvers: name, description, capabilities and parameters with\n"
                     "their types, defaults, ranges and (for choices) the names they take.\n"
                     "\n"
                     "options:\n"
                     "  --json             the list as JSON on stdout\n"
                     "  -h, --help         this help\n" );
}

#if defined( __GNUC__ )
__attribute__( ( format( printf, 2, 3 ) ) )
#endif
static void
UsageError( const char* command, const char* format, ... )
{
    va_list args;
    va_start( args, format );
    fprintf( stderr, "cairn %s: ", command );
    vfprintf( stderr, format, args );
    fprintf( stderr, "\n(see cairn %s --help)\n", command );
    va_end( args );
}

static void FreeLcpOptions( LcpOptions* options )
{
    free( options->settings );
    free( options->names );
    options->settings = NULL;
    options->names = NULL;
}

static int ParseLcpOptions( int argc, char** argv, LcpOptions* options )
{
    *options = ( LcpOptions ){ 0 };
    size_t namesSize = 1;
    for ( int i = 1; i < argc; ++i )
    {
        namesSize += strlen( argv[i] ) + 1;
    }
    options->settings = calloc( (size_t)argc + 1, sizeof( LcpSetting ) );
    options->names = malloc( namesSize );
    if ( options->settings == NULL || options->names == NULL )
    {
        fprintf( stderr, "cairn lcp: out of memory\n" );
        return exitFailure;
    }
    size_t namesUsed = 0;
    bool optionsEnded = false;
    for ( int i = 1; i < argc; ++i )
    {
        const char* arg = argv[i];
        const char* value = NULL;
        int match = 0;
        if ( optionsEnded || arg[0] != '-' || arg[1] == '\0' )
        {
            if ( options->path != NULL )
            {
                UsageError( "lcp", "more than one problem file: '%s' and '%s'", options->path, arg );
                return exitUsage;
            }
            options->path = arg;
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
        else if ( strcmp( arg, "--history" ) == 0 )
        {
            options->history = true;
        }
        else if ( strcmp( arg, "--cold" ) == 0 )
        {
            options->cold = true;
        }
        else if ( ( match = MatchOption( argc, argv, &i, "--solver", &value ) ) == 1 )
        {
            options->solverName = value;
        }
        else if ( match == 0 && ( match = MatchOption( argc, argv, &i, "--tol", &value ) ) == 1 &&
                  value[0] != '\0' )
        {
            char* end = NULL;
            errno = 0;
            double tolerance = strtod( value, &end );
            if ( *end != '\0' || errno != 0 || !isfinite( tolerance ) || tolerance < 0.0 )
            {
                UsageError( "lcp", "--tol expects a non-negative number, got '%s'", value );
                return exitUsage;
            }
            options->settings[options->settingCount++] =
                ( LcpSetting ){ .option = "--tol", .name = "tolerance", .text = value, .number = tolerance };
        }
        else if ( match == 0 && ( match = MatchOption( argc, argv, &i, "--max-iter", &value ) ) == 1 &&
                  value[0] != '\0' )
        {
            char* end = NULL;
            errno = 0;
            long iterations = strtol( value, &end, 10 );
            if ( value[0] < '0' || value[0] > '9' || *end != '\0' || errno != 0 || iterations < 1 )
            {
                UsageError( "lcp", "--max-iter expects an integer >= 1, got '%s'", value );
                return exitUsage;
            }
            options->settings[options->settingCount++] = ( LcpSetting ){
                .option = "--max-iter", .name = "iterations", .text = value, .number = (double)iterations };
        }
        else if ( match == 0 && ( match = MatchOption( argc, argv, &i, "--param", &value ) ) == 1 &&
                  value[0] != '\0' )
        {
            const char* equals = strchr( value, '=' );
            if ( equals == NULL || equals == value || equals[1] == '\0' )
            {
                UsageError( "lcp", "--param expects NAME=VALUE, got '%s'", value );
                return exitUsage;
            }
            size_t length = (size_t)( equals - value );
            char* name = options->names + namesUsed;
            memcpy( name, value, length );
            name[length] = '\0';
            namesUsed += length + 1;
            options->settings[options->settingCount++] = ( LcpSetting ){
                .option = "--param", .name = name, .text = equals + 1, .number = (double)NAN };
        }
        else if ( match == 0 && ( match = MatchOption( argc, argv, &i, "--friction", &value ) ) == 1 &&
                  value[0] != '\0' )
        {
            if ( strcmp( value, "cone" ) != 0 && strcmp( value, "pyramid" ) != 0 )
            {
                UsageError( "lcp", "--friction expects cone or pyramid, got '%s'", value );
                return exitUsage;
            }
            options->cone = value[0] == 'c';
        }
        else if ( match == 0 && ( match = MatchOption( argc, argv, &i, "--out", &value ) ) == 1 )
        {
            options->outPath = value;
        }
        else if ( match == -1 )
        {
            UsageError( "lcp", "%s needs a value", arg );
            return exitUsage;
        }
        else if ( match == 1 )
        {
            // --tol=, --max-iter=, --param= or --friction= with nothing after it; reported below
        }
        else
        {
            UsageError( "lcp", "unknown option '%s'", arg );
            return exitUsage;
        }
        if ( match == 1 && value[0] == '\0' )
        {
            UsageError( "lcp", "%s needs a non-empty value", arg );
            return exitUsage;
        }
    }
    if ( options->help == false && options->path == NULL )
    {
        UsageError( "lcp", "no problem file given" );
        return exitUsage;
    }
    return exitOk;
}

static const char* ParamTypeName( cnParamType type )
{
    switch ( type )
    {
        case cn_paramNumber:
            return "number";
        case cn_paramInteger:
            return "integer";
        case cn_paramToggle:
            return "toggle";
        case cn_paramChoice:
            return "choice";
        default:
            return "unknown";
    }
}

// The solver's parameters for a message: "iterations (integer), kernel (fast|reference), ...".
static const char* ListParams( const cnSolverVTable* solver, char* buffer, size_t size )
{
    size_t used = 0;
    buffer[0] = '\0';
    for ( int p = 0; p < solver->paramCount && used + 1 < size; ++p )
    {
        const cnSolverParam* param = solver->params + p;
        int written = snprintf( buffer + used, size - used, "%s%s (", p > 0 ? ", " : "", param->name );
        used += written > 0 ? (size_t)written : 0;
        if ( param->type == cn_paramChoice )
        {
            for ( int c = 0; c < param->choiceCount && used + 1 < size; ++c )
            {
                written = snprintf( buffer + used, size - used, "%s%s", c > 0 ? "|" : "", param->choices[c] );
                used += written > 0 ? (size_t)written : 0;
            }
        }
        else if ( used + 1 < size )
        {
            written = snprintf( buffer + used, size - used, "%s", ParamTypeName( param->type ) );
            used += written > 0 ? (size_t)written : 0;
        }
        if ( used + 1 < size )
        {
            written = snprintf( buffer + used, size - used, ")" );
            used += written > 0 ? (size_t)written : 0;
        }
    }
    return buffer;
}

// Apply the command line's parameter values in order; false (after printing why, with the list of
// the solver's parameters) for an unknown name or a bad value.
static bool ApplySettings( const cnSolverVTable* solver, const LcpOptions* options, double* params )
{
    char list[2048];
    for ( int k = 0; k < options->settingCount; ++k )
    {
        const LcpSetting* setting = options->settings + k;
        int index = cnFindSolverParam( solver, setting->name );
        bool named = strcmp( setting->option, "--param" ) != 0; // --tol and --max-iter
        if ( index < 0 )
        {
            if ( named )
            {
                UsageError( "lcp",
                            "solver '%s' has no \"%s\" parameter for %s; its parameters: %s (set one with "
                            "--param NAME=VALUE)",
                            solver->name, setting->name, setting->option,
                            ListParams( solver, list, sizeof( list ) ) );
            }
            else
            {
                UsageError( "lcp", "--param %s=%s: solver '%s' has no parameter \"%s\"; its parameters: %s",
                            setting->name, setting->text, solver->name, setting->name,
                            ListParams( solver, list, sizeof( list ) ) );
            }
            return false;
        }
        const cnSolverParam* param = solver->params + index;
        char why[256];
        double value = setting->number;
        if ( named )
        {
            if ( value < param->minValue || value > param->maxValue )
            {
                UsageError( "lcp", "%s %g is outside the range of %s's \"%s\", [%g, %g]", setting->option,
                            value, solver->name, param->name, param->minValue, param->maxValue );
                return false;
            }
            if ( cnCheckSolverParam( param, value, why, (int)sizeof( why ) ) != cn_statusOk )
            {
                UsageError( "lcp", "%s %s: %s", setting->option, setting->text, why );
                return false;
            }
        }
        else if ( cnParseSolverParam( param, setting->text, &value, why, (int)sizeof( why ) ) != cn_statusOk )
        {
            UsageError( "lcp", "--param %s=%s: %s; %s's parameters: %s", setting->name, setting->text, why,
                        solver->name, ListParams( solver, list, sizeof( list ) ) );
            return false;
        }
        params[index] = value;
    }
    return true;
}

// Add an array of numbers that read back exactly (AddNumber's format), through a scratch object.
static bool AddNumberArray( cJSON* object, const char* key, const double* values, int count )
{
    cJSON* array = cJSON_AddArrayToObject( object, key );
    cJSON* scratch = cJSON_CreateObject();
    bool ok = array != NULL && scratch != NULL;
    for ( int i = 0; ok && i < count; ++i )
    {
        ok = AddNumber( scratch, "v", values[i] );
        cJSON* item = ok ? cJSON_DetachItemFromObject( scratch, "v" ) : NULL;
        ok = item != NULL && cJSON_AddItemToArray( array, item );
    }
    cJSON_Delete( scratch );
    return ok;
}

// What one run gave, for the summary line and the JSON.
typedef struct LcpResult
{
    const cnSolverStats* stats;
    const double* lambda;
    const double* w;
    bool cone;                  // --friction cone
    bool fromFile;              // started from the file's start block
    const double* history;      // NULL without --history
    bool hasReference;          // the file has a reference block
    double referenceDifference; // max_i |lambda_i - ref_i| / max(1, |ref_i|)
} LcpResult;

static cJSON* BuildLcpReport( const char* path, const cnFileProblem* file, const cnSolverVTable* solver,
                              const double* params, const LcpResult* result )
{
    int n = file->problem.rowCount;
    const cnSolverStats* stats = result->stats;
    cJSON* root = cJSON_CreateObject();
    bool ok = root != NULL && cJSON_AddStringToObject( root, "file", path ) != NULL &&
              cJSON_AddStringToObject( root, "format", cnProblemFormatName( file->format ) ) != NULL &&
              cJSON_AddStringToObject( root, "solver", solver->name ) != NULL &&
              AddNumber( root, "rows", (double)n );
    if ( ok && file->format != cn_problemSiconosLcp )
    {
        ok = AddNumber( root, "contacts", (double)file->contactCount ) &&
             cJSON_AddStringToObject( root, "friction", result->cone ? "cone" : "pyramid" ) != NULL;
    }
    cJSON* paramObject = ok ? cJSON_AddObjectToObject( root, "params" ) : NULL;
    ok = paramObject != NULL;
    for ( int i = 0; ok && i < solver->paramCount; ++i )
    {
        ok = AddNumber( paramObject, solver->params[i].name, params[i] );
    }
    ok = ok && cJSON_AddStringToObject( root, "start", result->fromFile ? "file" : "zero" ) != NULL &&
         cJSON_AddStringToObject( root, "status", cnSolveStatusName( stats->status ) ) != NULL;
    if ( ok && stats->reason != NULL )
    {
        ok = cJSON_AddStringToObject( root, "reason", stats->reason ) != NULL;
    }
    const double merits[meritCount] = { stats->merits.naturalMap, stats->merits.cone, stats->merits.signorini,
                                        stats->merits.coulomb, stats->merits.dissipation };
    ok = ok && AddNumber( root, "iterations", (double)stats->iterations ) &&
         AddNumber( root, "residual", stats->residual );
    for ( int k = 0; ok && k < meritCount; ++k )
    {
        ok = AddNumber( root, meritKeys[k], merits[k] );
    }
    ok = ok && AddNumber( root, "milliseconds", stats->milliseconds ) &&
         AddNumber( root, "factorizations", (double)stats->factorizations ) &&
         AddNumber( root, "krylov_iterations", (double)stats->krylovIterations ) &&
         AddNumber( root, "fallbacks", (double)stats->fallbacks ) &&
         AddNumber( root, "free_rows", (double)stats->freeRows ) &&
         AddNumber( root, "own_measure", stats->ownMeasure );
    if ( ok && result->hasReference )
    {
        ok = AddNumber( root, "reference_max_difference", result->referenceDifference );
    }
    if ( ok && result->history != NULL )
    {
        ok = AddNumberArray( root, "history", result->history, stats->historyCount );
    }
    ok = ok && AddNumberArray( root, "lambda", result->lambda, n ) &&
         AddNumberArray( root, "w", result->w, n );
    if ( ok == false )
    {
        cJSON_Delete( root );
        return NULL;
    }
    return root;
}

// The summary line: file, size, solver, status (and why, when it did not solve), iterations, merit,
// time, the start, and what the options added.
static void PrintSummary( const char* path, const cnFileProblem* file, const cnSolverVTable* solver,
                          const LcpResult* result )
{
    const cnSolverStats* stats = result->stats;
    char contacts[48] = "";
    if ( file->format != cn_problemSiconosLcp )
    {
        snprintf( contacts, sizeof( contacts ), " (%d contacts)", file->contactCount );
    }
    char reason[300] = "";
    if ( stats->reason != NULL )
    {
        snprintf( reason, sizeof( reason ), " (%s)", stats->reason );
    }
    printf( "%s: %d rows%s, solver %s: %s%s, %d iterations, residual %.6g, %.3g ms, %s", BaseName( path ),
            file->problem.rowCount, contacts, solver->name, cnSolveStatusName( stats->status ), reason,
            stats->iterations, stats->residual, stats->milliseconds,
            result->fromFile ? "from the file's start" : "from zero" );
    if ( file->start != NULL && result->fromFile == false )
    {
        printf( " (--cold)" );
    }
    if ( result->hasReference )
    {
        printf( ", reference max difference %.3g", result->referenceDifference );
    }
    if ( result->history != NULL )
    {
        printf( ", history %d", stats->historyCount );
    }
    printf( "\n" );
    fflush( stdout );
}

int LcpCommand( int argc, char** argv )
{
    LcpOptions options;
    int exitCode = ParseLcpOptions( argc, argv, &options );
    if ( exitCode != exitOk || options.help )
    {
        if ( options.help && exitCode == exitOk )
        {
            PrintLcpUsage( stdout );
        }
        FreeLcpOptions( &options );
        return exitCode;
    }

    // under mpirun (the tao solver shares the solve across the ranks): rank 0 alone prints and writes
    if ( MpiRank() > 0 )
    {
        options.outPath = NULL;
        if ( SilenceOutput() == false )
        {
            FreeLcpOptions( &options );
            return exitFailure;
        }
    }

    const cnSolverVTable* solver =
        options.solverName != NULL ? cnFindSolver( options.solverName ) : cnGetSolverAt( 0 );
    if ( solver == NULL )
    {
        UsageError( "lcp", "unknown solver '%s' (cairn solvers lists them)", options.solverName );
        FreeLcpOptions( &options );
        return exitUsage;
    }
    double* params = calloc( (size_t)solver->paramCount + 1, sizeof( double ) );
    if ( params == NULL )
    {
        fprintf( stderr, "cairn lcp: out of memory\n" );
        FreeLcpOptions( &options );
        return exitFailure;
    }
    for ( int i = 0; i < solver->paramCount; ++i )
    {
        params[i] = solver->params[i].defaultValue;
    }
    bool applied = ApplySettings( solver, &options, params );
    FreeLcpOptions( &options );
    if ( applied == false )
    {
        free( params );
        return exitUsage;
    }

    // read
    cnFileProblem file;
    char message[CN_PROBLEM_MESSAGE_CAPACITY];
    cnStatus status =
        cnReadProblemFile( options.path, cn_problemAuto, NULL, &file, message, sizeof( message ) );
    if ( status != cn_statusOk )
    {
        fprintf( stderr, "cairn lcp: %s (%s)\n", message, cnStatusName( status ) );
        free( params );
        return exitFailure;
    }

    // --friction cone: the exact cone for every contact (the readers give the pyramid)
    for ( int g = 0; options.cone && g < file.problem.groupCount; ++g )
    {
        if ( file.problem.groups[g].kind == cn_groupContact )
        {
            file.problem.groups[g].model = cn_frictionCone;
        }
    }

    // the history: the merit at the start and after each iteration of the budget
    int n = file.problem.rowCount;
    int historyCapacity = 0;
    if ( options.history )
    {
        int iterations = cnFindSolverParam( solver, "iterations" );
        double budget = iterations >= 0 ? params[iterations] : 1000.0;
        historyCapacity = budget + 2.0 < (double)MAX_HISTORY ? (int)budget + 2 : MAX_HISTORY;
    }
    double* lambda = calloc( (size_t)n + 1, sizeof( double ) );
    double* w = calloc( (size_t)n + 1, sizeof( double ) );
    double* history = options.history ? calloc( (size_t)historyCapacity, sizeof( double ) ) : NULL;
    cnSolverStats stats = { 0 };
    LcpResult result = {
        .stats = &stats, .lambda = lambda, .w = w, .history = history, .cone = options.cone };
    if ( lambda == NULL || w == NULL || ( options.history && history == NULL ) )
    {
        fprintf( stderr, "cairn lcp: out of memory\n" );
        exitCode = exitFailure;
    }
    if ( exitCode == exitOk )
    {
        // from the file's start block unless --cold
        result.fromFile = file.start != NULL && options.cold == false;
        for ( int i = 0; result.fromFile && i < n; ++i )
        {
            lambda[i] = file.start[i];
        }
        cnSolverSolution solution = { .lambda = lambda,
                                      .deltaVelocity = NULL,
                                      .residualHistory = history,
                                      .residualHistoryCapacity = historyCapacity };
        status = cnRunSolver( solver, params, &file.problem, &solution, NULL, &stats );
        if ( status == cn_statusUnsupported && solver->solve == NULL )
        {
            fprintf( stderr, "cairn lcp: solver '%s' has no solve function in this build\n", solver->name );
            exitCode = exitFailure;
        }
        else if ( status != cn_statusOk )
        {
            fprintf( stderr, "cairn lcp: solver '%s' could not run: %s (%s)\n", solver->name,
                     cnStatusString( status ), cnStatusName( status ) );
            exitCode = exitFailure;
        }
    }

    if ( exitCode == exitOk )
    {
        // w = A lambda + b
        const cnSparseMatrix* a = file.problem.matrix;
        for ( int i = 0; i < n; ++i )
        {
            double sum = file.problem.b[i];
            for ( int k = a->rowStart[i]; k < a->rowStart[i + 1]; ++k )
            {
                sum += a->value[k] * lambda[a->column[k]];
            }
            w[i] = sum;
        }
        // how far the solution is from the one the file carries
        result.hasReference = file.reference != NULL;
        for ( int i = 0; result.hasReference && i < n; ++i )
        {
            double gap = fabs( lambda[i] - file.reference[i] ) / fmax( 1.0, fabs( file.reference[i] ) );
            result.referenceDifference =
                gap > result.referenceDifference || isnan( gap ) ? gap : result.referenceDifference;
        }

        PrintSummary( options.path, &file, solver, &result );
        if ( options.outPath != NULL )
        {
            char reason[512];
            cJSON* root = BuildLcpReport( options.path, &file, solver, params, &result );
            if ( WriteJson( options.outPath, root, reason, sizeof( reason ) ) == false )
            {
                fprintf( stderr, "cairn lcp: %s\n", reason );
                exitCode = exitFailure;
            }
            cJSON_Delete( root );
        }
    }

    free( lambda );
    free( w );
    free( history );
    free( params );
    cnDestroyFileProblem( &file );
    return exitCode;
}

// ---- cairn solvers ------------------------------------------------------------------------------

static const struct
{
    uint32_t bit;
    const char* name;
} capNames[] = {
    { cn_solverFriction, "friction" },
    { cn_solverBounded, "bounded" },
    { cn_solverExplicit, "explicit" },
    { cn_solverMatrixFree, "matrix_free" },
    { cn_solverCone, "cone" },
    { cn_solverUsesOracle, "oracle" },
    { cn_solverDirect, "direct" },
    { cn_solverBilateral, "bilateral" },
    { cn_solverSinglePass, "single_pass" },
};
#define CAP_NAME_COUNT ( (int)( sizeof( capNames ) / sizeof( capNames[0] ) ) )

static cJSON* BuildSolversJson( void )
{
    cJSON* root = cJSON_CreateObject();
    cJSON* list = root != NULL ? cJSON_AddArrayToObject( root, "solvers" ) : NULL;
    bool ok = list != NULL;
    for ( int s = 0; ok && s < cnGetSolverCount(); ++s )
    {
        const cnSolverVTable* solver = cnGetSolverAt( s );
        cJSON* entry = cJSON_CreateObject();
        ok = entry != NULL && cJSON_AddItemToArray( list, entry ) &&
             cJSON_AddStringToObject( entry, "name", solver->name ) != NULL &&
             cJSON_AddStringToObject( entry, "description",
                                      solver->description != NULL ? solver->description : "" ) != NULL &&
             cJSON_AddBoolToObject( entry, "available", solver->solve != NULL ) != NULL;
        cJSON* caps = ok ? cJSON_AddArrayToObject( entry, "caps" ) : NULL;
        ok = caps != NULL;
        for ( int c = 0; ok && c < CAP_NAME_COUNT; ++c )
        {
            if ( ( solver->caps & capNames[c].bit ) != 0 )
            {
                cJSON* name = cJSON_CreateString( capNames[c].name );
                ok = name != NULL && cJSON_AddItemToArray( caps, name );
            }
        }
        cJSON* params = ok ? cJSON_AddArrayToObject( entry, "params" ) : NULL;
        ok = params != NULL;
        for ( int p = 0; ok && p < solver->paramCount; ++p )
        {
            const cnSolverParam* param = solver->params + p;
            cJSON* item = cJSON_CreateObject();
            ok = item != NULL && cJSON_AddItemToArray( params, item ) &&
                 cJSON_AddStringToObject( item, "name", param->name ) != NULL &&
                 cJSON_AddStringToObject( item, "description",
                                          param->description != NULL ? param->description : "" ) != NULL &&
                 cJSON_AddStringToObject( item, "type", ParamTypeName( param->type ) ) != NULL &&
                 AddNumber( item, "default", param->defaultValue ) &&
                 AddNumber( item, "min", param->minValue ) && AddNumber( item, "max", param->maxValue );
            cJSON* choices =
                ok && param->type == cn_paramChoice ? cJSON_AddArrayToObject( item, "choices" ) : NULL;
            ok = ok && ( param->type != cn_paramChoice || choices != NULL );
            for ( int c = 0; ok && choices != NULL && c < param->choiceCount; ++c )
            {
                cJSON* name = cJSON_CreateString( param->choices[c] );
                ok = name != NULL && cJSON_AddItemToArray( choices, name );
            }
        }
    }
    if ( ok == false )
    {
        cJSON_Delete( root );
        return NULL;
    }
    return root;
}

static void PrintSolvers( void )
{
    for ( int s = 0; s < cnGetSolverCount(); ++s )
    {
        const cnSolverVTable* solver = cnGetSolverAt( s );
        printf( "%s%s: %s\n", solver->name, s == 0 ? " (default)" : "",
                solver->description != NULL ? solver->description : "" );
        if ( solver->solve == NULL )
        {
            printf( "  (not available in this build: no solve function)\n" );
        }
        printf( "  caps:" );
        for ( int c = 0; c < CAP_NAME_COUNT; ++c )
        {
            if ( ( solver->caps & capNames[c].bit ) != 0 )
            {
                printf( " %s", capNames[c].name );
            }
        }
        printf( "\n" );
        for ( int p = 0; p < solver->paramCount; ++p )
        {
            const cnSolverParam* param = solver->params + p;
            char value[64];
            char range[256];
            cnFormatSolverParam( param, param->defaultValue, value, (int)sizeof( value ) );
            if ( param->type == cn_paramChoice )
            {
                size_t used = (size_t)snprintf( range, sizeof( range ), "one of" );
                for ( int c = 0; c < param->choiceCount && used < sizeof( range ); ++c )
                {
                    used += (size_t)snprintf( range + used, sizeof( range ) - used, "%s %s", c > 0 ? "," : "",
                                              param->choices[c] );
                }
            }
            else if ( param->type == cn_paramToggle )
            {
                snprintf( range, sizeof( range ), "true or false" );
            }
            else
            {
                snprintf( range, sizeof( range ), "range [%g, %g]", param->minValue, param->maxValue );
            }
            printf( "  %-22s %-8s default %-10s %s  %s\n", param->name, ParamTypeName( param->type ), value,
                    range, param->description != NULL ? param->description : "" );
        }
    }
}

int SolversCommand( int argc, char** argv )
{
    bool json = false;
    for ( int i = 1; i < argc; ++i )
    {
        if ( strcmp( argv[i], "-h" ) == 0 || strcmp( argv[i], "--help" ) == 0 )
        {
            PrintSolversUsage( stdout );
            return exitOk;
        }
        if ( strcmp( argv[i], "--json" ) == 0 )
        {
            json = true;
        }
        else if ( argv[i][0] == '-' )
        {
            UsageError( "solvers", "unknown option '%s'", argv[i] );
            return exitUsage;
        }
        else
        {
            UsageError( "solvers", "unexpected argument '%s'", argv[i] );
            return exitUsage;
        }
    }

    if ( json == false )
    {
        PrintSolvers();
        return exitOk;
    }
    cJSON* root = BuildSolversJson();
    char* text = root != NULL ? cJSON_Print( root ) : NULL;
    cJSON_Delete( root );
    if ( text == NULL )
    {
        fprintf( stderr, "cairn solvers: out of memory\n" );
        return exitFailure;
    }
    printf( "%s\n", text );
    cJSON_free( text );
    return exitOk;
}
