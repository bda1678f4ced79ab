// SPDX-License-Identifier: MIT
// cairn-viewer [SCENE.json] [--solver NAME] [--set KEY=VALUE] [--param NAME=VALUE] [--headless ...]
// (docs/viewer.md). Parses the command line; the loop is in app.c.
#include "app.h"

#include "cairn/solver.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void vwUsage( FILE* out )
{
    fprintf(
        out,
        "usage: cairn-viewer [SCENE.json] [options]\n"
        "  with no scene, a picker over assets/scenes opens\n"
        "  --solver NAME          start with this solver (cairn solvers lists them)\n"
        "  --set KEY=VALUE        override a scene value before it is checked, as cairn run does, e.g.\n"
        "                         --set world.solver.iterations=50 (repeatable, applied in order)\n"
        "  --param NAME=VALUE     a parameter of the solver, e.g. --param kernel=reference (repeatable)\n"
        "  --threads N            workers for the step (1 to 64; W cycles 1, 2, 4 while it runs)\n"
        "  --headless             draw off-screen, one step per frame, no window shown\n"
        "  --frames N             headless: frames to draw (default 120)\n"
        "  --screenshot FILE.png  headless: write the last frame\n"
        "  --script FILE          run commands at given frames (docs/viewer.md)\n"
        "  --report FILE.json     frame and step times, the camera and the final bodies\n"
        "  --hud-log FILE.csv     the HUD's solver values, one row per frame\n"
        "  --size WxH             window or image size (default 1280x720)\n"
        "  --samples N            multisampling, 0 to 8 (default 4; 0 is about twice as fast in software)\n"
        "  --color MODE           body, island, rest, force, orientation or age\n"
        "  --no-shadows           draw without the shadow map\n"
        "  --no-hud, --hide-bodies  leave out the HUD, or every body but planes (for tests)\n" );
}

static bool vwParseInt( const char* text, int low, int high, int* value )
{
    char* end = NULL;
    long parsed = strtol( text, &end, 10 );
    if ( end == text || *end != '\0' || parsed < low || parsed > high )
    {
        return false;
    }
    *value = (int)parsed;
    return true;
}

// Whether some registered solver has a parameter of this name (`length` bytes of `name`).
static bool vwIsParamName( const char* name, size_t length )
{
    char copy[64];
    if ( length == 0 || length >= sizeof( copy ) )
    {
        return false;
    }
    memcpy( copy, name, length );
    copy[length] = '\0';
    for ( int i = 0; i < cnGetSolverCount(); ++i )
    {
        if ( cnFindSolverParam( cnGetSolverAt( i ), copy ) >= 0 )
        {
            return true;
        }
    }
    return false;
}

// --set KEY=VALUE: a key before the '='; the scene loader checks the rest. A bare parameter name
// was the old --set's meaning: point at --param.
static bool vwCheckSet( const char* value )
{
    const char* equals = strchr( value, '=' );
    if ( equals == NULL || equals == value )
    {
        fprintf( stderr, "cairn-viewer: --set expects KEY=VALUE, e.g. world.solver.iterations=50, got '%s'\n",
                 value );
        return false;
    }
    if ( vwIsParamName( value, (size_t)( equals - value ) ) )
    {
        fprintf( stderr,
                 "cairn-viewer: --set %s: '%.*s' is a solver parameter, not a scene key: write --param %s\n",
                 value, (int)( equals - value ), value, value );
        return false;
    }
    return true;
}

// --param NAME=VALUE: a name some solver has (the current solver is known after the load)
static bool vwCheckParam( const char* value )
{
    const char* equals = strchr( value, '=' );
    if ( equals == NULL || equals == value || equals[1] == '\0' )
    {
        fprintf( stderr, "cairn-viewer: --param expects NAME=VALUE, e.g. kernel=reference, got '%s'\n",
                 value );
        return false;
    }
    if ( !vwIsParamName( value, (size_t)( equals - value ) ) )
    {
        fprintf( stderr,
                 "cairn-viewer: --param %s: no solver has a parameter '%.*s' (cairn solvers lists them)\n",
                 value, (int)( equals - value ), value );
        return false;
    }
    return true;
}

int main( int argc, char** argv )
{
    vwOptions options = { .frames = 120, .width = 1280, .height = 720, .samples = 4, .shadows = true };
    for ( int i = 1; i < argc; ++i )
    {
        const char* arg = argv[i];
        const char* value = i + 1 < argc ? argv[i + 1] : NULL;
        bool takesValue = strcmp( arg, "--solver" ) == 0 || strcmp( arg, "--frames" ) == 0 ||
                          strcmp( arg, "--screenshot" ) == 0 || strcmp( arg, "--script" ) == 0 ||
                          strcmp( arg, "--report" ) == 0 || strcmp( arg, "--hud-log" ) == 0 ||
                          strcmp( arg, "--size" ) == 0 || strcmp( arg, "--color" ) == 0 ||
                          strcmp( arg, "--set" ) == 0 || strcmp( arg, "--param" ) == 0 ||
                          strcmp( arg, "--samples" ) == 0 || strcmp( arg, "--threads" ) == 0;
        if ( takesValue && value == NULL )
        {
            fprintf( stderr, "cairn-viewer: %s needs a value\n", arg );
            return 2;
        }
        if ( strcmp( arg, "--help" ) == 0 || strcmp( arg, "-h" ) == 0 )
        {
            vwUsage( stdout );
            return 0;
        }
        else if ( strcmp( arg, "--headless" ) == 0 )
        {
            options.headless = true;
        }
        else if ( strcmp( arg, "--no-shadows" ) == 0 )
        {
            options.shadows = false;
        }
        else if ( strcmp( arg, "--no-hud" ) == 0 )
        {
            options.noHud = true;
        }
        else if ( strcmp( arg, "--hide-bodies" ) == 0 )
        {
            options.hideBodies = true;
        }
        else if ( strcmp( arg, "--solver" ) == 0 )
        {
            options.solver = value;
        }
        else if ( strcmp( arg, "--frames" ) == 0 )
        {
            if ( !vwParseInt( value, 1, 100000000, &options.frames ) )
            {
                fprintf( stderr, "cairn-viewer: --frames %s: expected a positive whole number\n", value );
                return 2;
            }
        }
        else if ( strcmp( arg, "--threads" ) == 0 )
        {
            // the same as --set world.threads=N, as in cairn run
            static char threadsOverride[64];
            int threads = 0;
            if ( !vwParseInt( value, 1, 64, &threads ) )
            {
                fprintf( stderr, "cairn-viewer: --threads %s: expected a whole number from 1 to 64\n",
                         value );
                return 2;
            }
            if ( options.overrideCount == VW_MAX_OPTIONS )
            {
                fprintf( stderr, "cairn-viewer: more than %d --set options\n", VW_MAX_OPTIONS );
                return 2;
            }
            snprintf( threadsOverride, sizeof( threadsOverride ), "world.threads=%d", threads );
            options.overrides[options.overrideCount++] = threadsOverride;
        }
        else if ( strcmp( arg, "--samples" ) == 0 )
        {
            if ( !vwParseInt( value, 0, 8, &options.samples ) ||
                 ( options.samples & ( options.samples - 1 ) ) != 0 )
            {
                fprintf( stderr, "cairn-viewer: --samples %s: expected 0, 1, 2, 4 or 8\n", value );
                return 2;
            }
        }
        else if ( strcmp( arg, "--screenshot" ) == 0 )
        {
            options.screenshotPath = value;
        }
        else if ( strcmp( arg, "--script" ) == 0 )
        {
            options.scriptPath = value;
        }
        else if ( strcmp( arg, "--report" ) == 0 )
        {
            options.reportPath = value;
        }
        else if ( strcmp( arg, "--hud-log" ) == 0 )
        {
            options.hudLogPath = value;
        }
        else if ( strcmp( arg, "--set" ) == 0 || strcmp( arg, "--param" ) == 0 )
        {
            bool set = arg[2] == 's';
            int* count = set ? &options.overrideCount : &options.paramCount;
            if ( *count == VW_MAX_OPTIONS )
            {
                fprintf( stderr, "cairn-viewer: more than %d %s options\n", VW_MAX_OPTIONS, arg );
                return 2;
            }
            if ( !( set ? vwCheckSet( value ) : vwCheckParam( value ) ) )
            {
                return 2;
            }
            ( set ? options.overrides : options.params )[( *count )++] = value;
        }
        else if ( strcmp( arg, "--size" ) == 0 )
        {
            char width[16], height[16];
            const char* x = strchr( value, 'x' );
            size_t length = x != NULL ? (size_t)( x - value ) : 0;
            bool ok =
                x != NULL && length > 0 && length < sizeof( width ) && strlen( x + 1 ) < sizeof( height );
            if ( ok )
            {
                memcpy( width, value, length );
                width[length] = '\0';
                snprintf( height, sizeof( height ), "%s", x + 1 );
                ok = vwParseInt( width, 64, 8192, &options.width ) &&
                     vwParseInt( height, 64, 8192, &options.height );
            }
            if ( !ok )
            {
                fprintf( stderr, "cairn-viewer: --size %s: expected WIDTHxHEIGHT, each 64 to 8192\n", value );
                return 2;
            }
        }
        else if ( strcmp( arg, "--color" ) == 0 )
        {
            int mode = -1;
            for ( int k = 0; k < vw_colorModeCount; ++k )
            {
                mode = strcmp( value, vw_colorNames[k] ) == 0 ? k : mode;
            }
            if ( mode < 0 )
            {
                fprintf( stderr,
                         "cairn-viewer: --color %s: expected body, island, rest, force, orientation or age\n",
                         value );
                return 2;
            }
            options.colorMode = (vwColorMode)mode;
            options.colorModeSet = true;
        }
        else if ( arg[0] == '-' )
        {
            fprintf( stderr, "cairn-viewer: unknown option %s\n", arg );
            vwUsage( stderr );
            return 2;
        }
        else if ( options.scenePath == NULL )
        {
            options.scenePath = arg;
        }
        else
        {
            fprintf( stderr, "cairn-viewer: one scene at a time (%s, then %s)\n", options.scenePath, arg );
            return 2;
        }
        i += takesValue ? 1 : 0;
    }
    if ( options.screenshotPath != NULL && !options.headless )
    {
        fprintf( stderr, "cairn-viewer: --screenshot goes with --headless (press P in a window)\n" );
        return 2;
    }
    return vwRunApp( &options );
}
