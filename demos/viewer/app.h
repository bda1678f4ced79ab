// SPDX-License-Identifier: MIT
// cairn-viewer's application state, shared by the loop (app.c), the body and HUD drawing
// (view.c) and picking (pick.c). Public engine API only.
#pragma once

#include "hud.h"
#include "mesh.h"
#include "render.h"
#include "script.h"
#include "systems.h"

#include "cairn/cairn.h"
#include "cairn/scene.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define VW_PATH_CAPACITY    1024
#define VW_MAX_SCENES       64
#define VW_STEP_TIMES       600 // step-time plot: the last 10 s at 60 Hz
#define VW_HISTORY_CAPACITY 512 // residual history kept per step
#define VW_MAX_OPTIONS      64  // --set and --param options, each
#define VW_MESSAGE_SECONDS  4.0 // the HUD's message line stays this long

typedef struct GLFWwindow GLFWwindow;

/// How bodies are coloured (the C key cycles).
typedef enum vwColorMode
{
    vw_colorBody = 0,    ///< a colour per body
    vw_colorIsland,      ///< bodies joined by contacts share a colour
    vw_colorRest,        ///< at rest (would sleep) blue, moving orange
    vw_colorForce,       ///< contact force on the body against its weight, a heat ramp
    vw_colorOrientation, ///< the direction of the body's z axis (a capsule's axis), as a hue
    vw_colorAge,         ///< a colony cell's age, young light to old dark (others: by body)
    vw_colorModeCount
} vwColorMode;

/// What the command line asked for.
typedef struct vwOptions
{
    const char* scenePath; ///< NULL: the scene picker
    const char* solver;    ///< NULL: the scene's
    const char* scriptPath;
    const char* screenshotPath;
    const char* reportPath; ///< --report: frame statistics, the camera and the final bodies
    const char* hudLogPath; ///< --hud-log: the HUD's values, one CSV row per frame
    /// --set KEY=VALUE: scene keys by JSON path ("world.solver.iterations=50"), passed to the
    /// scene loader's overrides on every load
    const char* overrides[VW_MAX_OPTIONS];
    int overrideCount;
    /// --param NAME=VALUE: parameters of the solver, set after every load (cnParseSolverParam)
    const char* params[VW_MAX_OPTIONS];
    int paramCount;
    bool headless;
    int frames; ///< headless frames (default 120)
    int width;
    int height;
    int samples; ///< multisampling: 0 (off), 2, 4 (default) or 8
    bool shadows;
    bool noHud;      ///< --no-hud: the scene alone (tests compare pictures)
    bool hideBodies; ///< --hide-bodies: planes only (tests compare pictures)
    vwColorMode colorMode;
    bool colorModeSet; ///< --color given: a scene's own choice does not override it
} vwOptions;

/// One shape ready to draw: its mesh, scale, local pose and bounding radius.
typedef struct vwShapeView
{
    cnShapeId shapeId;
    int bodyIndex; ///< into vwApp.bodies
    int mesh;      ///< into vwApp.meshes; -1 for planes
    float scale[3];
    cnTransform localPose;
    double boundRadius; ///< of the shape about its local origin, m
    bool plane;
    bool sensor; ///< drawn see-through
    cnPlane planeGeometry;
} vwShapeView;

/// A mesh: the renderer's handle, the CPU copy (picking, bounds) and its key.
typedef struct vwMeshEntry
{
    vwMeshKey key;
    vwMesh mesh;
    int handle;
} vwMeshEntry;

/// The dragging spring of a picked body.
typedef struct vwPick
{
    bool active;
    cnBodyId bodyId;
    cnVec3 localAnchor; ///< body frame
    double depth;       ///< view depth of the grabbed point (along the viewing direction), m
    cnVec3 target;      ///< world
} vwPick;

typedef struct vwCamera
{
    double target[3];
    double yaw;   ///< rad, about up
    double pitch; ///< rad, above the horizon
    double distance;
    double fovY; ///< rad
    double up[3];
} vwCamera;

typedef struct vwApp
{
    vwOptions options;
    GLFWwindow* window;
    vwRenderer* renderer;
    vwHud* hud;
    int width;
    int height;
    float hudScale;

    // the offscreen target of headless runs (multisampled, then resolved for glReadPixels)
    unsigned int msFramebuffer, msColor, msDepth;
    unsigned int resolveFramebuffer, resolveColor;

    // scene
    char scenePath[VW_PATH_CAPACITY];
    char sceneName[128];
    cnWorldId worldId;
    double timeStep;
    char loadError[768];

    // scene picker (no scene given)
    bool picking;
    char scenes[VW_MAX_SCENES][VW_PATH_CAPACITY];
    int sceneCount;
    int sceneCursor;
    char sceneDescription[1024]; ///< of the scene under the cursor, wrapped into lines

    // per body and shape views, rebuilt when bodies come or go
    cnBodyId* bodies;
    int bodyCount;
    int bodyCapacity;
    vwShapeView* shapes;
    int shapeCount;
    int shapeCapacity;
    vwMeshEntry* meshes;
    int meshCount;
    int meshCapacity;
    vwInstance* instances; // scratch, per mesh per frame
    int instanceCapacity;
    int* slotToBody; // body id index1 -> index into bodies, -1 when none
    int slotCapacity;
    bool bodiesDirty;   // rebuild the views (a body was dropped or the scene reloaded)
    int meshSegments;   // tessellation of curved shapes, chosen from the body count
    float* bodyColors;  // (bodyCount x 3)
    double* bodyForces; // (bodyCount) contact force, N
    int* islandOf;      // (bodyCount)
    cnContactData* contacts;
    int contactCount;
    int contactCapacity;

    // simulation clock
    bool paused;
    bool singleStep;
    bool slowMotion;
    double accumulator;
    long long stepCount;
    long long frameCount;
    int dropCount;

    // solver view
    int selectedParam;
    double residualHistory[VW_HISTORY_CAPACITY];
    int residualCount;
    float stepTimes[5][VW_STEP_TIMES]; // total, collide, solve, integrate, predict + systems
    int stepTimeCount;
    cnStepReport report;

    // the application systems the scene set up (the colony, for colouring cells by age)
    cxSceneSystems systems;

    // viewer
    vwCamera camera;
    vwColorMode colorMode;
    bool colorModeSet; // by --color or the C key: kept across scene loads
    bool showContacts;
    bool showNormals;
    bool showAabbs;
    bool showHelp;
    bool hideHud; ///< G: the scene alone
    bool shadows;
    vwPick pick;
    double mouseX, mouseY;
    bool orbiting, panning;
    double lastMouseX, lastMouseY;
    char message[512]; ///< a line for the HUD (last action or error), shown for a few seconds
    double messageTime;
    long long engineMessages;                     ///< errors and warnings the engine logged
    char engineMessage[256];                      ///< the last of them (a refused solver swap says why there)
    char overrideWarning[CN_SCENE_TEXT_CAPACITY]; ///< the load's first warning about a --set

    // matrices of the last frame (column major), for picking and the report
    float view[16];
    float projection[16];

    // statistics
    double frameMsSum, stepCpuMsSum, renderMsSum;
    double frameMsLast, renderMsLast;
    long long stepsTimed;
    int screenshotCount;

    vwScript script;
    FILE* hudLog;
} vwApp;

// app.c
/// Open the window, run the loop until it closes (or the headless frames are done); the exit code.
int vwRunApp( const vwOptions* options );
/// Seconds on the library's monotonic clock (cnGetTicks), for frame and message timing.
CN_INLINE double vwNowSeconds( void )
{
    return 1e-3 * cnTicksToMilliseconds( cnGetTicks() );
}

/// How a load went; the values are the command line's exit codes.
typedef enum vwLoadResult
{
    vw_loadOk = 0,
    vw_loadFailed = 1,    ///< the scene did not load, or the --solver is unknown or refused
    vw_loadBadOption = 2, ///< a --set the scene refuses or ignores, or a --param the solver refuses
} vwLoadResult;

/// Load a scene with the command line's --set, --solver and --param. A scene that fails to load
/// leaves the running one alone. What went wrong goes to stderr and the HUD's message line.
vwLoadResult vwLoadScene( vwApp* app, const char* path );
void vwUnloadScene( vwApp* app );
void vwSetMessage( vwApp* app, const char* format, ... )
#if defined( __GNUC__ )
    __attribute__( ( format( printf, 2, 3 ) ) )
#endif
    ;
bool vwSelectSolver( vwApp* app, const char* name );
// Switch the world between the friction pyramid and the exact cone (refused, with the message
// saying why, when the solver cannot take the other model).
void vwToggleFriction( vwApp* app );
bool vwSetParam( vwApp* app, const char* name, double value );
/// A parameter from text (a number, a choice's name, true/false: cnParseSolverParam).
bool vwSetParamText( vwApp* app, const char* name, const char* text );
bool vwTakeScreenshot( vwApp* app, const char* path );
void vwDropBody( vwApp* app, int kind );
void vwFrameCamera( vwApp* app );

// view.c
void vwSyncBodies( vwApp* app );
void vwDrawScene( vwApp* app );
void vwDrawHud( vwApp* app, double fps );
/// The names of a step's warning bits, space separated ("" for none), in `buffer`.
const char* vwWarningNames( uint32_t warnings, char* buffer, int size );
void vwUpdateColors( vwApp* app );
void vwCameraMatrices( const vwApp* app, float view[16], float projection[16], float eye[3] );

// pick.c
/// The body under the pixel (x, y), its world hit point and ray depth; false when none.
bool vwPickBody( const vwApp* app, double x, double y, cnBodyId* bodyId, cnVec3* hit, double* depth );
/// World ray through pixel (x, y).
void vwPixelRay( const vwApp* app, double x, double y, cnVec3* origin, cnVec3* direction );
