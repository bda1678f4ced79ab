// SPDX-License-Identifier: MIT
// Viewer scripts (--script FILE): commands to run at given frames, for demos and tests. One
// command a line: `FRAME COMMAND [ARGUMENTS]`, `#` starts a comment. Commands:
//   solver NAME            switch the solver (as the number keys do)
//   param NAME VALUE       set a parameter of the current solver: a number, a choice's name
//                          or true/false (cnParseSolverParam); some registered solver must have
//                          the parameter and take the value
//   pause | resume | step  the simulation clock (step: one step while paused)
//   slow on|off            slow motion (a quarter of real time)
//   color body|island|rest|force|orientation|age
//   show contacts|normals|aabbs|help on|off
//   shadows on|off
//   drop sphere|box|capsule|cylinder|ellipsoid|torus
//   camera YAW PITCH DISTANCE   degrees, degrees, m (about the current target)
//   grab X Y | move X Y | release  the left mouse button pressed at, moved to, released (pixels
//                          from the top left): a body under the cursor is dragged with the spring
//   reset                  reload the scene
//   screenshot FILE.png
//   quit
#pragma once

#include <stdbool.h>
#include <stddef.h>

#define VW_SCRIPT_ARGUMENT_CAPACITY 256

typedef enum vwCommandKind
{
    vw_commandSolver,
    vw_commandParam,
    vw_commandPause,
    vw_commandResume,
    vw_commandStep,
    vw_commandSlow,
    vw_commandColor,
    vw_commandShow,
    vw_commandShadows,
    vw_commandDrop,
    vw_commandCamera,
    vw_commandReset,
    vw_commandScreenshot,
    vw_commandQuit,
    vw_commandGrab,
    vw_commandMove,
    vw_commandRelease,
} vwCommandKind;

typedef struct vwCommand
{
    int frame;
    vwCommandKind kind;
    char text[VW_SCRIPT_ARGUMENT_CAPACITY];  ///< the name or file argument
    char value[VW_SCRIPT_ARGUMENT_CAPACITY]; ///< param: the value as written (a number or a name)
    double values[3];                        ///< numeric arguments; on/off as 1/0; param: NaN for a name
    int line;                                ///< in the script file, for messages
} vwCommand;

typedef struct vwScript
{
    vwCommand* commands; ///< sorted by frame, stable
    int count;
    int next; ///< first command not yet run
} vwScript;

/// Parse a script. On error returns false and writes "FILE:LINE: what" to `error`; nothing is
/// kept then.
bool vwParseScript( const char* text, const char* fileName, vwScript* script, char* error, int errorSize );
bool vwLoadScript( const char* path, vwScript* script, char* error, int errorSize );
void vwFreeScript( vwScript* script );

/// A whole text file, malloc'ed and zero-terminated (scripts, and the scene picker's
/// descriptions). NULL with "PATH: what" in `error` when it cannot be read or is larger than
/// `maxBytes`.
char* vwReadTextFile( const char* path, size_t maxBytes, char* error, int errorSize );

/// Names of the drop shapes and colour modes, for parsing and the HUD.
extern const char* const vw_dropNames[6];
/// The colour modes' names, in vwColorMode order (app.h).
#define VW_COLOR_NAME_COUNT 6
extern const char* const vw_colorNames[VW_COLOR_NAME_COUNT];
