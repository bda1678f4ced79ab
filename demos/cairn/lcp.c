// SPDX-License-Identifier: MIT
// cairn lcp FILE: read one solver problem (Siconos LCP or FC3D text), solve it from lambda = 0 with
// a registered solver, print a summary, write the solution as JSON. cairn solvers: list the
// registered solvers with their parameters (docs/cli.md).
#include "cli.h"
#include "report.h"

#include "cairn/lcp_io.h"
#include "cairn/solver.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

typedef struct LcpOptions
{
    const char* path;
    const char* solverName;
    const char* outPath;
    bool hasTolerance;
    double tolerance;
    bool hasMaxIterations;
    long maxIterations;
    bool help;
} LcpOptions;

void PrintLcpUsage( FILE* stream )
{
    fprintf( stream, "usage: cairn lcp FILE [options]\n"
                     "\n"
                     "Read one LCP or 3-D frictional-contact problem (Siconos text format), solve it from\n"
                     "lambda = 0 and print a one-line summary.\n"
                     "\n"
                     "options:\n"
                     "  --solver NAME      the solver (default: the first registered, see cairn solvers)\n"
                     "  --tol X            the solver's \"tolerance\" parameter (default: the solver's)\n"
                     "  --max-iter N       the solver's \"iterations\" parameter, an integer >= 1\n"
                     "  --out FILE.json    write the solution (lambda, w) and the statistics as JSON\n"
                     "  -h, --help         this help\n"
                     "\n"
                     "exit codes: 0 the solver ran (whatever its status), 1 the file could not be read, the\n"
                     "solver could not run or the output could not be written, 2 bad command line\n" );
}

void PrintSolversUsage( FILE* stream )
{
    fprintf( stream, "usage: cairn solvers [--json]\n"
                     "\n"
                     "List the registered solvers: name, description, capabilities and parameters with\n"
                     "their defaults and ranges.\n"
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

static int ParseLcpOptions( int argc, char** argv, LcpOptions* options )
{
    *options = ( LcpOptions ){ 0 };
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
        else if ( ( match = MatchOption( argc, argv, &i, "--solver", &value ) ) == 1 )
        {
            options->solverName = value;
        }
        else if ( match == 0 && ( match = MatchOption( argc, argv, &i, "--tol", &value ) ) == 1 &&
                  value[0] != '\0' )
        {
            char* end = NULL;
            errno = 0;
            options->tolerance = strtod( value, &end );
            options->hasTolerance = true;
            if ( *end != '\0' || errno != 0 || !isfinite( options->tolerance ) || options->tolerance < 0.0 )
            {
                UsageError( "lcp", "--tol expects a non-negative number, got '%s'", value );
                return exitUsage;
            }
        }
        else if ( match == 0 && ( match = MatchOption( argc, argv, &i, "--max-iter", &value ) ) == 1 &&
                  value[0] != '\0' )
        {
            char* end = NULL;
            errno = 0;
            options->maxIterations = strtol( value, &end, 10 );
            options->hasMaxIterations = true;
            if ( value[0] < '0' || value[0] > '9' || *end != '\0' || errno != 0 ||
                 options->maxIterations < 1 )
            {
                UsageError( "lcp", "--max-iter expects an integer >= 1, got '%s'", value );
                return exitUsage;
            }
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
            // --tol= or --max-iter= with nothing after it; reported below
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

static int FindParam( const cnSolverVTable* solver, const char* name )
{
    for ( int i = 0; i < solver->paramCount; ++i )
    {
        if ( strcmp( solver->params[i].name, name ) == 0 )
        {
            return i;
        }
    }
    return -1;
}

// Set a parameter from the command line; false (after printing why) when the solver has no such
// parameter or the value is outside its range.
static bool SetParam( const cnSolverVTable* solver, double* params, const char* name, const char* option,
                      double value )
{
    int index = FindParam( solver, name );
    if ( index < 0 )
    {
        UsageError( "lcp", "solver '%s' has no \"%s\" parameter for %s", solver->name, name, option );
        return false;
    }
    const cnSolverParam* param = solver->params + index;
    if ( value < param->minValue || value > param->maxValue )
    {
        UsageError( "lcp", "%s %g is outside the range of %s's \"%s\", [%g, %g]", option, value, solver->name,
                    name, param->minValue, param->maxValue );
        return false;
    }
    params[index] = value;
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

static cJSON* BuildLcpReport( const char* path, const cnFileProblem* file, const cnSolverVTable* solver,
                              const double* params, const cnSolverStats* stats, double residual,
                              const double* lambda, const double* w )
{
    int n = file->problem.rowCount;
    cJSON* root = cJSON_CreateObject();
    bool ok = root != NULL && cJSON_AddStringToObject( root, "file", path ) != NULL &&
              cJSON_AddStringToObject( root, "format", cnProblemFormatName( file->format ) ) != NULL &&
              cJSON_AddStringToObject( root, "solver", solver->name ) != NULL &&
              AddNumber( root, "rows", (double)n );
    if ( ok && file->format == cn_problemSiconosFc3d )
    {
        ok = AddNumber( root, "contacts", (double)file->contactCount );
    }
    cJSON* paramObject = ok ? cJSON_AddObjectToObject( root, "params" ) : NULL;
    ok = paramObject != NULL;
    for ( int i = 0; ok && i < solver->paramCount; ++i )
    {
        ok = AddNumber( paramObject, solver->params[i].name, params[i] );
    }
    ok = ok && cJSON_AddStringToObject( root, "status", cnSolveStatusName( stats->status ) ) != NULL &&
         AddNumber( root, "iterations", (double)stats->iterations ) &&
         AddNumber( root, "residual", residual ) && AddNumber( root, "milliseconds", stats->milliseconds ) &&
         AddNumberArray( root, "lambda", lambda, n ) && AddNumberArray( root, "w", w, n );
    if ( ok == false )
    {
        cJSON_Delete( root );
        return NULL;
    }
    return root;
}

int LcpCommand( int argc, char** argv )
{
    LcpOptions options;
    int exitCode = ParseLcpOptions( argc, argv, &options );
    if ( exitCode != exitOk )
    {
        return exitCode;
    }
    if ( options.help )
    {
        PrintLcpUsage( stdout );
        return exitOk;
    }

    const cnSolverVTable* solver =
        options.solverName != NULL ? cnFindSolver( options.solverName ) : cnGetSolverAt( 0 );
    if ( solver == NULL )
    {
        UsageError( "lcp", "unknown solver '%s' (cairn solvers lists them)", options.solverName );
        return exitUsage;
    }
    double* params = calloc( (size_t)solver->paramCount + 1, sizeof( double ) );
    if ( params == NULL )
    {
        fprintf( stderr, "cairn lcp: out of memory\n" );
        return exitFailure;
    }
    for ( int i = 0; i < solver->paramCount; ++i )
    {
        params[i] = solver->params[i].defaultValue;
    }
    if ( ( options.hasTolerance && !SetParam( solver, params, "tolerance", "--tol", options.tolerance ) ) ||
         ( options.hasMaxIterations &&
           !SetParam( solver, params, "iterations", "--max-iter", (double)options.maxIterations ) ) )
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

    // solve from zero
    int n = file.problem.rowCount;
    double* lambda = calloc( (size_t)n + 1, sizeof( double ) );
    double* w = calloc( (size_t)n + 1, sizeof( double ) );
    cnSolverStats stats = { 0 };
    if ( lambda == NULL || w == NULL )
    {
        fprintf( stderr, "cairn lcp: out of memory\n" );
        exitCode = exitFailure;
    }
    if ( exitCode == exitOk )
    {
        cnSolverSolution solution = { .lambda = lambda, .deltaVelocity = NULL };
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
        // w = A lambda + b, and the merit every solver is graded by
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
        // the grading merit of the solver's model, computed by the layer
        double residual = stats.residual;

        char contacts[48] = "";
        if ( file.format == cn_problemSiconosFc3d )
        {
            snprintf( contacts, sizeof( contacts ), " (%d contacts)", file.contactCount );
        }
        printf( "%s: %d rows%s, solver %s: %s, %d iterations, residual %.6g, %.3g ms\n",
                BaseName( options.path ), n, contacts, solver->name, cnSolveStatusName( stats.status ),
                stats.iterations, residual, stats.milliseconds );
        fflush( stdout );

        if ( options.outPath != NULL )
        {
            char reason[512];
            cJSON* root = BuildLcpReport( options.path, &file, solver, params, &stats, residual, lambda, w );
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
    { cn_solverFriction, "friction" }, { cn_solverBounded, "bounded" },
    { cn_solverExplicit, "explicit" }, { cn_solverMatrixFree, "matrix_free" },
    { cn_solverCone, "cone" },         { cn_solverUsesOracle, "oracle" },
    { cn_solverDirect, "direct" },     { cn_solverBilateral, "bilateral" },
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
                 AddNumber( item, "default", param->defaultValue ) &&
                 AddNumber( item, "min", param->minValue ) && AddNumber( item, "max", param->maxValue );
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
            printf( "  %-22s default %-8g range [%g, %g]  %s\n", param->name, param->defaultValue,
                    param->minValue, param->maxValue, param->description != NULL ? param->description : "" );
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
