// SPDX-License-Identifier: MIT
// Viewer scripts: parse `FRAME COMMAND [ARGUMENTS]` lines into commands sorted by frame.
#include "script.h"

#include "cairn/solver.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char* const vw_dropNames[6] = { "sphere", "box", "capsule", "cylinder", "ellipsoid", "torus" };
const char* const vw_colorNames[VW_COLOR_NAME_COUNT] = { "body",  "island",      "rest",
                                                         "force", "orientation", "age" };

static const char* const s_showNames[4] = { "contacts", "normals", "aabbs", "help" };

static int vwFindName( const char* const* names, int count, const char* name )
{
    for ( int i = 0; i < count; ++i )
    {
        if ( strcmp( names[i], name ) == 0 )
        {
            return i;
        }
    }
    return -1;
}

static bool vwParseOnOff( const char* word, double* value )
{
    if ( strcmp( word, "on" ) == 0 || strcmp( word, "1" ) == 0 )
    {
        *value = 1.0;
        return true;
    }
    if ( strcmp( word, "off" ) == 0 || strcmp( word, "0" ) == 0 )
    {
        *value = 0.0;
        return true;
    }
    return false;
}

static bool vwParseNumber( const char* word, double* value )
{
    char* end = NULL;
    errno = 0;
    double parsed = strtod( word, &end );
    if ( end == word || *end != '\0' || errno != 0 || !isfinite( parsed ) )
    {
        return false;
    }
    *value = parsed;
    return true;
}

// split a line into at most `capacity` words in place; returns the count, or capacity + 1 when
// there are more
static int vwSplitWords( char* line, char** words, int capacity )
{
    int count = 0;
    char* p = line;
    while ( *p != '\0' )
    {
        while ( *p != '\0' && isspace( (unsigned char)*p ) )
        {
            ++p;
        }
        if ( *p == '\0' || *p == '#' )
        {
            break;
        }
        if ( count == capacity )
        {
            return capacity + 1;
        }
        words[count++] = p;
        while ( *p != '\0' && !isspace( (unsigned char)*p ) )
        {
            ++p;
        }
        if ( *p != '\0' )
        {
            *p++ = '\0';
        }
    }
    return count;
}

// `param NAME VALUE`: the solver that runs then is not known yet, so some registered solver
// must have the parameter and take the value (a number, a choice's name, true/false); the
// first refusal says why
static bool vwCheckParamCommand( const char* name, const char* value, char* why, int whySize )
{
    bool named = false;
    char refusal[192] = "";
    for ( int i = 0; i < cnGetSolverCount(); ++i )
    {
        const cnSolverVTable* solver = cnGetSolverAt( i );
        int index = cnFindSolverParam( solver, name );
        if ( index < 0 )
        {
            continue;
        }
        double parsed;
        char message[192];
        if ( cnParseSolverParam( solver->params + index, value, &parsed, message, (int)sizeof( message ) ) ==
             cn_statusOk )
        {
            return true;
        }
        if ( !named )
        {
            snprintf( refusal, sizeof( refusal ), "%s", message );
        }
        named = true;
    }
    if ( named )
    {
        snprintf( why, (size_t)whySize, "bad argument: param NAME VALUE (%s)", refusal );
    }
    else
    {
        snprintf( why, (size_t)whySize, "no solver has a parameter '%s' (cairn solvers lists them)", name );
    }
    return false;
}

typedef struct vwCommandSpec
{
    const char* name;
    vwCommandKind kind;
    int arguments;
    const char* usage;
} vwCommandSpec;

static const vwCommandSpec s_specs[] = {
    { "solver", vw_commandSolver, 1, "solver NAME" },
    { "param", vw_commandParam, 2, "param NAME VALUE" },
    { "pause", vw_commandPause, 0, "pause" },
    { "resume", vw_commandResume, 0, "resume" },
    { "step", vw_commandStep, 0, "step" },
    { "slow", vw_commandSlow, 1, "slow on|off" },
    { "color", vw_commandColor, 1, "color body|island|rest|force|orientation|age" },
    { "show", vw_commandShow, 2, "show contacts|normals|aabbs|help on|off" },
    { "shadows", vw_commandShadows, 1, "shadows on|off" },
    { "drop", vw_commandDrop, 1, "drop sphere|box|capsule|cylinder|ellipsoid|torus" },
    { "camera", vw_commandCamera, 3, "camera YAW PITCH DISTANCE" },
    { "reset", vw_commandReset, 0, "reset" },
    { "screenshot", vw_commandScreenshot, 1, "screenshot FILE.png" },
    { "quit", vw_commandQuit, 0, "quit" },
    { "grab", vw_commandGrab, 2, "grab X Y" },
    { "move", vw_commandMove, 2, "move X Y" },
    { "release", vw_commandRelease, 0, "release" },
};

// parse the words after the frame; false with a message
static bool vwParseCommand( char** words, int count, vwCommand* command, char* why, int whySize )
{
    const vwCommandSpec* spec = NULL;
    for ( size_t i = 0; i < sizeof( s_specs ) / sizeof( s_specs[0] ); ++i )
    {
        if ( strcmp( s_specs[i].name, words[0] ) == 0 )
        {
            spec = s_specs + i;
        }
    }
    if ( spec == NULL )
    {
        snprintf( why, (size_t)whySize, "unknown command '%s'", words[0] );
        return false;
    }
    if ( count - 1 != spec->arguments )
    {
        snprintf( why, (size_t)whySize, "'%s' takes %d argument%s: %s", spec->name, spec->arguments,
                  spec->arguments == 1 ? "" : "s", spec->usage );
        return false;
    }
    command->kind = spec->kind;
    if ( count > 1 && strlen( words[1] ) >= VW_SCRIPT_ARGUMENT_CAPACITY )
    {
        snprintf( why, (size_t)whySize, "argument of '%s' is too long", spec->name );
        return false;
    }
    if ( count > 1 )
    {
        snprintf( command->text, sizeof( command->text ), "%s", words[1] );
    }

    bool ok = true;
    switch ( spec->kind )
    {
        case vw_commandParam:
            if ( strlen( words[2] ) >= VW_SCRIPT_ARGUMENT_CAPACITY )
            {
                snprintf( why, (size_t)whySize, "argument of '%s' is too long", spec->name );
                return false;
            }
            snprintf( command->value, sizeof( command->value ), "%s", words[2] );
            if ( !vwParseNumber( words[2], command->values ) )
            {
                command->values[0] = NAN;
            }
            return vwCheckParamCommand( words[1], words[2], why, whySize );
        case vw_commandSlow:
        case vw_commandShadows:
            ok = vwParseOnOff( words[1], command->values );
            break;
        case vw_commandColor:
            command->values[0] = vwFindName( vw_colorNames, VW_COLOR_NAME_COUNT, words[1] );
            ok = command->values[0] >= 0.0;
            break;
        case vw_commandShow:
            command->values[0] = vwFindName( s_showNames, 4, words[1] );
            ok = command->values[0] >= 0.0 && vwParseOnOff( words[2], command->values + 1 );
            break;
        case vw_commandDrop:
            command->values[0] = vwFindName( vw_dropNames, 6, words[1] );
            ok = command->values[0] >= 0.0;
            break;
        case vw_commandGrab:
        case vw_commandMove:
            ok = vwParseNumber( words[1], command->values ) && vwParseNumber( words[2], command->values + 1 );
            break;
        case vw_commandCamera:
            ok = vwParseNumber( words[1], command->values ) &&
                 vwParseNumber( words[2], command->values + 1 ) &&
                 vwParseNumber( words[3], command->values + 2 ) && command->values[2] > 0.0;
            break;
        default:
            break;
    }
    if ( ok == false )
    {
        snprintf( why, (size_t)whySize, "bad argument: %s", spec->usage );
    }
    return ok;
}

static int vwCompareCommands( const void* a, const void* b )
{
    const vwCommand* ca = a;
    const vwCommand* cb = b;
    if ( ca->frame != cb->frame )
    {
        return ca->frame < cb->frame ? -1 : 1;
    }
    // stable: file order within a frame
    return ( ca->line > cb->line ) - ( ca->line < cb->line );
}

bool vwParseScript( const char* text, const char* fileName, vwScript* script, char* error, int errorSize )
{
    *script = ( vwScript ){ 0 };
    if ( text == NULL )
    {
        snprintf( error, (size_t)errorSize, "%s: no text", fileName );
        return false;
    }
    size_t length = strlen( text );
    char* copy = malloc( length + 1 );
    if ( copy == NULL )
    {
        snprintf( error, (size_t)errorSize, "%s: out of memory", fileName );
        return false;
    }
    memcpy( copy, text, length + 1 );

    int capacity = 0;
    int lineNumber = 0;
    bool ok = true;
    char* line = copy;
    while ( ok && line != NULL )
    {
        char* end = strchr( line, '\n' );
        if ( end != NULL )
        {
            *end = '\0';
        }
        lineNumber += 1;

        char* words[8];
        int count = vwSplitWords( line, words, 6 );
        if ( count > 0 )
        {
            char why[192] = "";
            vwCommand command = { .line = lineNumber };
            double frame = 0.0;
            if ( count > 6 )
            {
                snprintf( why, sizeof( why ), "too many words" );
            }
            else if ( !vwParseNumber( words[0], &frame ) || frame < 0.0 || frame > 1e9 ||
                      frame != floor( frame ) )
            {
                snprintf( why, sizeof( why ), "a line starts with its frame number, not '%s'", words[0] );
            }
            else if ( count < 2 )
            {
                snprintf( why, sizeof( why ), "frame %d has no command", (int)frame );
            }
            else
            {
                command.frame = (int)frame;
                vwParseCommand( words + 1, count - 1, &command, why, (int)sizeof( why ) );
            }

            if ( why[0] != '\0' )
            {
                snprintf( error, (size_t)errorSize, "%s:%d: %s", fileName, lineNumber, why );
                ok = false;
            }
            else
            {
                if ( script->count == capacity )
                {
                    int grown = capacity > 0 ? 2 * capacity : 16;
                    vwCommand* commands = realloc( script->commands, (size_t)grown * sizeof( vwCommand ) );
                    if ( commands == NULL )
                    {
                        snprintf( error, (size_t)errorSize, "%s: out of memory", fileName );
                        ok = false;
                        break;
                    }
                    script->commands = commands;
                    capacity = grown;
                }
                script->commands[script->count++] = command;
            }
        }
        line = end != NULL ? end + 1 : NULL;
    }
    free( copy );

    if ( ok == false )
    {
        vwFreeScript( script );
        return false;
    }
    if ( script->count > 1 )
    {
        qsort( script->commands, (size_t)script->count, sizeof( vwCommand ), vwCompareCommands );
    }
    return true;
}

char* vwReadTextFile( const char* path, size_t maxBytes, char* error, int errorSize )
{
    FILE* file = fopen( path, "rb" );
    if ( file == NULL )
    {
        snprintf( error, (size_t)errorSize, "%s: cannot open: %s", path, strerror( errno ) );
        return NULL;
    }
    char* text = NULL;
    size_t size = 0;
    size_t capacity = 0;
    for ( ;; )
    {
        if ( size + 4096 + 1 > capacity )
        {
            capacity = capacity > 0 ? 2 * capacity : 8192;
            char* grown = capacity <= maxBytes + 4096 + 1 ? realloc( text, capacity ) : NULL;
            if ( grown == NULL )
            {
                free( text );
                fclose( file );
                snprintf( error, (size_t)errorSize, "%s: larger than %zu bytes, or out of memory", path,
                          maxBytes );
                return NULL;
            }
            text = grown;
        }
        size_t got = fread( text + size, 1, 4096, file );
        size += got;
        if ( got < 4096 )
        {
            break;
        }
    }
    fclose( file );
    text[size] = '\0';
    return text;
}

bool vwLoadScript( const char* path, vwScript* script, char* error, int errorSize )
{
    *script = ( vwScript ){ 0 };
    char* text = vwReadTextFile( path, (size_t)16 << 20, error, errorSize );
    if ( text == NULL )
    {
        return false;
    }
    bool ok = vwParseScript( text, path, script, error, errorSize );
    free( text );
    return ok;
}

void vwFreeScript( vwScript* script )
{
    free( script->commands );
    *script = ( vwScript ){ 0 };
}
