// SPDX-License-Identifier: MIT
// cairn-viewer's loop: load a scene, step it at a fixed 60 Hz (or the scene's dt) decoupled from
// drawing, take input, run scripts, draw, and write screenshots, reports and HUD logs.
#define _POSIX_C_SOURCE 200809L

#include "app.h"

#include "params.h"

#include "cairn/scene.h"

#include <glad/gl.h>
// glad first: GLFW must not pull in the system GL header
#include <GLFW/glfw3.h>
#include <cjson/cJSON.h>

#include <dirent.h>
#include <math.h>
#include <stb_image_write.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define VW_MAX_STEPS_PER_FRAME 4

// messages -----------------------------------------------------------------------------------------

void vwSetMessage( vwApp* app, const char* format, ... )
{
    va_list args;
    va_start( args, format );
    vsnprintf( app->message, sizeof( app->message ), format, args );
    va_end( args );
    app->messageTime = vwNowSeconds();
    if ( app->options.headless )
    {
        printf( "cairn-viewer: %s\n", app->message );
    }
}

static double vwThreadMilliseconds( void )
{
    struct timespec now;
    clock_gettime( CLOCK_THREAD_CPUTIME_ID, &now );
    return 1e3 * (double)now.tv_sec + 1e-6 * (double)now.tv_nsec;
}

// scenes -------------------------------------------------------------------------------------------

static int vwCompareStrings( const void* a, const void* b )
{
    return strcmp( (const char*)a, (const char*)b );
}

static void vwListScenes( vwApp* app )
{
    const char* directories[] = { CN_ASSETS_DIR "/scenes", "assets/scenes", "../assets/scenes" };
    app->sceneCount = 0;
    for ( size_t d = 0; d < sizeof( directories ) / sizeof( directories[0] ) && app->sceneCount == 0; ++d )
    {
        DIR* directory = opendir( directories[d] );
        if ( directory == NULL )
        {
            continue;
        }
        struct dirent* entry;
        while ( ( entry = readdir( directory ) ) != NULL && app->sceneCount < VW_MAX_SCENES )
        {
            size_t length = strlen( entry->d_name );
            if ( length > 5 && strcmp( entry->d_name + length - 5, ".json" ) == 0 &&
                 strlen( directories[d] ) + length + 2 < VW_PATH_CAPACITY )
            {
                snprintf( app->scenes[app->sceneCount++], VW_PATH_CAPACITY, "%s/%s", directories[d],
                          entry->d_name );
            }
        }
        closedir( directory );
    }
    qsort( app->scenes, (size_t)app->sceneCount, VW_PATH_CAPACITY, vwCompareStrings );
}

// the "description" of the scene under the picker's cursor, wrapped at about 60 characters
static void vwDescribeScene( vwApp* app )
{
    app->sceneDescription[0] = '\0';
    if ( app->sceneCursor < 0 || app->sceneCursor >= app->sceneCount )
    {
        return;
    }
    char error[256];
    char* text =
        vwReadTextFile( app->scenes[app->sceneCursor], (size_t)64 << 20, error, (int)sizeof( error ) );
    if ( text == NULL )
    {
        return;
    }
    cJSON* root = cJSON_Parse( text );
    free( text );
    const cJSON* description = cJSON_GetObjectItemCaseSensitive( root, "description" );
    if ( cJSON_IsString( description ) )
    {
        // wrap at spaces
        const char* p = description->valuestring;
        int column = 0, used = 0, capacity = (int)sizeof( app->sceneDescription ) - 4;
        for ( ; *p != '\0' && used < capacity; ++p )
        {
            char c = *p;
            if ( c == ' ' && column >= 60 )
            {
                c = '\n';
            }
            column = c == '\n' ? 0 : column + 1;
            app->sceneDescription[used++] = c;
        }
        if ( *p != '\0' )
        {
            memcpy( app->sceneDescription + used, "...", 3 );
            used += 3;
        }
        app->sceneDescription[used] = '\0';
    }
    cJSON_Delete( root );
}

static void vwResetClock( vwApp* app )
{
    app->accumulator = 0.0;
    app->stepCount = 0;
    app->stepTimeCount = 0;
    app->residualCount = 0;
    app->report = ( cnStepReport ){ 0 };
    app->pick.active = false;
    app->dropCount = 0;
}

void vwUnloadScene( vwApp* app )
{
    if ( cnWorld_IsValid( app->worldId ) )
    {
        cnDestroyWorld( app->worldId );
    }
    app->worldId = cn_nullWorldId;
    app->bodyCount = 0;
    app->shapeCount = 0;
    app->contactCount = 0;
    app->pick.active = false;
}

// The engine's errors and warnings: on the HUD's message line, and on stderr the first time a
// message comes and then once every 100 repeats (a solver that fails every step would flood it)
static void vwEngineLog( cnLogLevel level, int status, const char* message, void* context )
{
    (void)status;
    vwApp* app = context;
    app->engineMessages += 1;
    if ( app->engineMessages == 1 || app->engineMessages % 100 == 0 )
    {
        fprintf( stderr, "cairn: %s: %s%s\n", level == cn_logError ? "error" : "warning", message,
                 app->engineMessages > 1 ? " (and more like it: see the HUD)" : "" );
    }
    snprintf( app->message, sizeof( app->message ), "%s", message );
    snprintf( app->engineMessage, sizeof( app->engineMessage ), "%s", message );
    app->messageTime = vwNowSeconds();
}

// Whether a loader message is about a --set: the loader locates those by the override, as in
// "tower10.json:<--set world.solver.iteratoins=50>: world.solver.iteratoins: unknown key (ignored)".
static bool vwFromOverride( const char* text )
{
    return strstr( text, ":<--set " ) != NULL;
}

// The loader's warnings: one about a --set (an unknown key, a system nobody handles) fails the
// load, since the user asked for something that would not happen; the scene file's own go where
// the engine's go.
static void vwSceneWarning( const char* text, void* context )
{
    vwApp* app = context;
    if ( vwFromOverride( text ) )
    {
        if ( app->overrideWarning[0] == '\0' )
        {
            snprintf( app->overrideWarning, sizeof( app->overrideWarning ), "%s", text );
            // "(ignored)", "(skipped)": not true here, the load fails
            static const char* const endings[] = { " (ignored)", " (skipped)" };
            size_t length = strlen( app->overrideWarning );
            for ( int i = 0; i < 2; ++i )
            {
                size_t ending = strlen( endings[i] );
                if ( length > ending && strcmp( app->overrideWarning + length - ending, endings[i] ) == 0 )
                {
                    app->overrideWarning[length - ending] = '\0';
                }
            }
        }
        return;
    }
    vwEngineLog( cn_logWarning, cn_statusOk, text, app );
}

// A failure of the load or of an option: once on stderr and on the HUD's message line (not echoed
// to stdout as headless messages are).
static void vwLoadFailure( vwApp* app, const char* format, ... )
#if defined( __GNUC__ )
    __attribute__( ( format( printf, 2, 3 ) ) )
#endif
    ;
static void vwLoadFailure( vwApp* app, const char* format, ... )
{
    va_list args;
    va_start( args, format );
    vsnprintf( app->message, sizeof( app->message ), format, args );
    va_end( args );
    app->messageTime = vwNowSeconds();
    fprintf( stderr, "cairn-viewer: %s\n", app->message );
}

// --param NAME=VALUE on the current solver, each through cnParseSolverParam; all are tried
static vwLoadResult vwApplyParams( vwApp* app )
{
    vwLoadResult result = vw_loadOk;
    const cnSolverVTable* solver = cnWorld_GetSolver( app->worldId );
    for ( int i = 0; i < app->options.paramCount && solver != NULL; ++i )
    {
        const char* option = app->options.params[i];
        const char* equals = strchr( option, '=' );
        char name[64];
        size_t length = equals != NULL ? (size_t)( equals - option ) : 0;
        if ( length == 0 || length >= sizeof( name ) )
        {
            vwLoadFailure( app, "--param %s: expected NAME=VALUE", option );
            result = vw_loadBadOption;
            continue;
        }
        memcpy( name, option, length );
        name[length] = '\0';
        int index = cnFindSolverParam( solver, name );
        if ( index < 0 )
        {
            char names[512] = "";
            int used = 0;
            for ( int p = 0; p < solver->paramCount && used < (int)sizeof( names ); ++p )
            {
                used += snprintf( names + used, sizeof( names ) - (size_t)used, "%s%s", p > 0 ? ", " : "",
                                  solver->params[p].name );
            }
            vwLoadFailure( app, "--param %s: solver '%s' has no parameter '%s' (its parameters: %s)", option,
                           solver->name, name, names );
            result = vw_loadBadOption;
            continue;
        }
        double value = 0.0;
        char why[256];
        if ( cnParseSolverParam( solver->params + index, equals + 1, &value, why, (int)sizeof( why ) ) !=
             cn_statusOk )
        {
            vwLoadFailure( app, "--param %s: %s", option, why );
            result = vw_loadBadOption;
            continue;
        }
        if ( !vwSetParam( app, name, value ) )
        {
            char refusal[sizeof( app->message )];
            snprintf( refusal, sizeof( refusal ), "%s", app->message );
            vwLoadFailure( app, "--param %s: %s", option, refusal );
            result = vw_loadBadOption;
        }
    }
    return result;
}

vwLoadResult vwLoadScene( vwApp* app, const char* path )
{
    cnSceneOptions options = cnDefaultSceneOptions();
    options.worldDef.logFcn = vwEngineLog;
    options.worldDef.logContext = app;
    options.overrides = app->options.overrides;
    options.overrideCount = app->options.overrideCount;
    options.warningFcn = vwSceneWarning;
    options.warningContext = app;
    cnSceneSystem handlers[CX_SCENE_SYSTEM_COUNT];
    options.systems = handlers;
    options.systemCount = cxGetSceneSystems( &app->systems, handlers, CX_SCENE_SYSTEM_COUNT );
    cnScene scene = { 0 };
    cnSceneError error = { 0 };
    app->overrideWarning[0] = '\0';
    cnStatus status = cnLoadSceneFile( path, &options, &scene, &error );
    vwLoadResult result = vw_loadOk;
    if ( status != cn_statusOk )
    {
        if ( error.text[0] != '\0' )
        {
            snprintf( app->loadError, sizeof( app->loadError ), "%s", error.text );
        }
        else
        {
            snprintf( app->loadError, sizeof( app->loadError ), "%s: cannot load the scene: %s", path,
                      cnStatusString( status ) );
        }
        result = vwFromOverride( app->loadError ) ? vw_loadBadOption : vw_loadFailed;
    }
    else if ( app->overrideWarning[0] != '\0' )
    {
        // a --set the scene would ignore: refused like a bad value
        cnDestroyWorld( scene.worldId );
        snprintf( app->loadError, sizeof( app->loadError ), "%s", app->overrideWarning );
        result = vw_loadBadOption;
    }
    if ( result != vw_loadOk )
    {
        // the scene that was running (if any) stays
        vwLoadFailure( app, "%s", app->loadError );
        return result;
    }
    vwUnloadScene( app );
    app->loadError[0] = '\0';
    app->worldId = scene.worldId;
    if ( path != app->scenePath )
    {
        snprintf( app->scenePath, sizeof( app->scenePath ), "%s", path );
    }
    const char* name = strrchr( path, '/' );
    snprintf( app->sceneName, sizeof( app->sceneName ), "%s", name != NULL ? name + 1 : path );
    app->timeStep = cnWorld_GetDef( app->worldId ).timeStep;
    if ( !( app->timeStep > 0.0 ) )
    {
        app->timeStep = 1.0 / 60.0;
    }
    cnWorld_SetResidualHistory( app->worldId, VW_HISTORY_CAPACITY );
    // --solver, unless the scene has it already (a swap would put its parameters back to defaults)
    const char* solverName = app->options.solver;
    if ( solverName != NULL && strcmp( cnWorld_GetSolver( app->worldId )->name, solverName ) != 0 )
    {
        if ( cnFindSolver( solverName ) == NULL )
        {
            vwLoadFailure( app, "--solver %s: no such solver (cairn solvers lists them)", solverName );
            result = vw_loadFailed;
        }
        else if ( !vwSelectSolver( app, solverName ) )
        {
            char why[sizeof( app->message )];
            snprintf( why, sizeof( why ), "%s", app->message );
            vwLoadFailure( app, "--solver %s: %.400s", solverName, why );
            result = vw_loadFailed;
        }
    }
    if ( result == vw_loadOk )
    {
        result = vwApplyParams( app );
    }
    // a colony shows its cells' orientations unless the user chose a colouring
    if ( app->colorModeSet == false )
    {
        app->colorMode = app->systems.colony != NULL ? vw_colorOrientation : app->options.colorMode;
    }

    // coarser meshes for big scenes: software renderers draw every vertex
    int bodies = cnWorld_GetBodyCount( app->worldId );
    int segments = bodies > 3000 ? 16 : ( bodies > 800 ? 24 : 40 );
    if ( segments != app->meshSegments )
    {
        // meshes are per tessellation: drop the CPU copies (the renderer keeps its uploads)
        for ( int i = 0; i < app->meshCount; ++i )
        {
            vwFreeMesh( &app->meshes[i].mesh );
        }
        app->meshCount = 0;
        app->meshSegments = segments;
    }
    app->picking = false;
    app->bodiesDirty = true;
    vwResetClock( app );
    vwSyncBodies( app );
    vwFrameCamera( app );
    vwUpdateColors( app );
    return result;
}

// the camera looks at the dynamic bodies from above and aside, up against gravity
void vwFrameCamera( vwApp* app )
{
    vwCamera* camera = &app->camera;
    cnVec3 gravity = cnWorld_GetGravity( app->worldId );
    cnVec3 up = cnNormalizeOr( cnNeg( gravity ), ( cnVec3 ){ 0.0, 0.0, 1.0 } );
    camera->up[0] = up.x;
    camera->up[1] = up.y;
    camera->up[2] = up.z;

    // frame every body but the planes (the walls of a bin belong in the picture)
    cnBodyArrays arrays = cnWorld_GetBodyArrays( app->worldId );
    cnVec3 lo = { INFINITY, INFINITY, INFINITY }, hi = { -INFINITY, -INFINITY, -INFINITY };
    for ( int s = 0; s < app->shapeCount && arrays.count == app->bodyCount; ++s )
    {
        const vwShapeView* view = app->shapes + s;
        if ( view->plane )
        {
            continue;
        }
        cnVec3 c = cnTransformPoint( arrays.transforms[view->bodyIndex], view->localPose.p );
        double r = view->boundRadius;
        lo = ( cnVec3 ){ fmin( lo.x, c.x - r ), fmin( lo.y, c.y - r ), fmin( lo.z, c.z - r ) };
        hi = ( cnVec3 ){ fmax( hi.x, c.x + r ), fmax( hi.y, c.y + r ), fmax( hi.z, c.z + r ) };
    }
    if ( !( lo.x <= hi.x ) )
    {
        lo = ( cnVec3 ){ -2.0, -2.0, -2.0 };
        hi = ( cnVec3 ){ 2.0, 2.0, 2.0 };
    }
    cnVec3 center = cnScale( 0.5, cnAdd( lo, hi ) );
    double radius = fmax( 0.5, 0.5 * cnLength( cnSub( hi, lo ) ) );
    camera->target[0] = center.x;
    camera->target[1] = center.y;
    camera->target[2] = center.z;
    camera->fovY = 45.0 * 3.14159265358979 / 180.0;
    // the bounding sphere of a box of bodies is loose: 0.8 of it fills the view, unless the
    // bodies stand tall (a hanging chain), when their height decides
    cnVec3 size = cnSub( hi, lo );
    double height = fabs( size.x * up.x ) + fabs( size.y * up.y ) + fabs( size.z * up.z );
    camera->distance = fmax( 0.8 * radius, 0.6 * height ) / sin( 0.5 * camera->fovY );

    // look across the scene's broad side: a wall of bodies (a 2-D pyramid) is seen face on, a
    // square pile from a corner
    cnVec3 extent = size;
    cnVec3 reference = fabs( up.x ) > 0.9 ? ( cnVec3 ){ 0.0, 1.0, 0.0 } : ( cnVec3 ){ 1.0, 0.0, 0.0 };
    cnVec3 side = cnNormalize( cnCross( up, reference ) );
    cnVec3 front = cnCross( side, up );
    double alongFront = fabs( extent.x * front.x ) + fabs( extent.y * front.y ) + fabs( extent.z * front.z );
    double alongSide = fabs( extent.x * side.x ) + fabs( extent.y * side.y ) + fabs( extent.z * side.z );
    camera->yaw = 0.65;
    if ( alongFront < 0.5 * alongSide )
    {
        camera->yaw = 0.25;
    }
    else if ( alongSide < 0.5 * alongFront )
    {
        camera->yaw = 0.5 * 3.14159265358979 + 0.25;
    }
    // from above enough to see into a bin
    camera->pitch = 0.55;
}

// solver -------------------------------------------------------------------------------------------

// The engine's last message if it logged one since `before` (its count then), without the
// function's name it starts with ("cnWorld_SetSolver: ..."); else `fallback`.
static const char* vwEngineReason( const vwApp* app, long long before, const char* fallback )
{
    if ( app->engineMessages == before )
    {
        return fallback;
    }
    const char* text = app->engineMessage;
    const char* colon = strstr( text, ": " );
    bool prefixed = strncmp( text, "cnWorld_", 8 ) == 0 && colon != NULL;
    return prefixed ? colon + 2 : text;
}

// The friction model a solver needs: the cone for one that solves only the exact cone (ipm), the
// pyramid for one that solves only the pyramid (pgs_sm, lemke, ...); the world's own otherwise.
static cnFrictionModel vwModelFor( const cnSolverVTable* solver, cnFrictionModel current )
{
    bool cone = ( solver->caps & cn_solverCone ) != 0;
    bool pyramid = ( solver->caps & cn_solverFriction ) != 0;
    if ( cone && !pyramid )
    {
        return cn_frictionCone;
    }
    if ( pyramid && !cone )
    {
        return cn_frictionPyramid;
    }
    return current;
}

bool vwSelectSolver( vwApp* app, const char* name )
{
    long long before = app->engineMessages;
    // a solver of the other friction model takes the world to its model: before the swap when
    // leaving the cone (the world refuses a pyramid-only solver while it is on the cone), after it
    // when going to the cone (the world refuses the cone with a solver that lacks it)
    const cnSolverVTable* wanted = cnFindSolver( name );
    cnFrictionModel current = cnWorld_GetFrictionModel( app->worldId );
    cnFrictionModel model = wanted != NULL ? vwModelFor( wanted, current ) : current;
    if ( model != current && model == cn_frictionPyramid )
    {
        cnWorld_SetFrictionModel( app->worldId, model );
    }
    cnStatus status = cnWorld_SetSolver( app->worldId, name );
    if ( status == cn_statusOk && model != current && model == cn_frictionCone )
    {
        cnWorld_SetFrictionModel( app->worldId, model );
    }
    if ( status != cn_statusOk && model != current )
    {
        cnWorld_SetFrictionModel( app->worldId, current );
    }
    if ( status != cn_statusOk )
    {
        // the engine logged why (unknown, or cannot run in this world): say it on the message line
        vwSetMessage( app, "solver '%s' refused: %s", name,
                      vwEngineReason( app, before, cnStatusString( status ) ) );
        return false;
    }
    const cnSolverVTable* solver = cnWorld_GetSolver( app->worldId );
    if ( app->selectedParam >= solver->paramCount )
    {
        app->selectedParam = 0;
    }
    // a solver accepted with a warning (lemke drops friction) says so on a second line
    const char* warning = model != current ? NULL : vwEngineReason( app, before, NULL );
    vwSetMessage( app, "solver: %s (%s)%s%s%s", solver->name, solver->description,
                  model != current
                      ? ( model == cn_frictionCone ? "\nfriction: the exact cone (this solver's model)"
                                                   : "\nfriction: the pyramid (this solver's model)" )
                      : "",
                  warning != NULL ? "\n" : "", warning != NULL ? warning : "" );
    return true;
}

void vwToggleFriction( vwApp* app )
{
    cnFrictionModel current = cnWorld_GetFrictionModel( app->worldId );
    cnFrictionModel next = current == cn_frictionCone ? cn_frictionPyramid : cn_frictionCone;
    long long before = app->engineMessages;
    cnStatus status = cnWorld_SetFrictionModel( app->worldId, next );
    if ( status != cn_statusOk )
    {
        vwSetMessage( app, "friction %s refused: %s", next == cn_frictionCone ? "cone" : "pyramid",
                      vwEngineReason( app, before, cnStatusString( status ) ) );
        return;
    }
    vwSetMessage( app, "friction: %s",
                  next == cn_frictionCone ? "the exact cone (the same in every direction)"
                                          : "the pyramid (box friction along two axes)" );
}

bool vwSetParam( vwApp* app, const char* name, double value )
{
    const cnSolverVTable* solver = cnWorld_GetSolver( app->worldId );
    int index = solver != NULL ? cnFindSolverParam( solver, name ) : -1;
    long long before = app->engineMessages;
    cnStatus status = cnWorld_SetSolverParam( app->worldId, name, value );
    if ( status != cn_statusOk || index < 0 )
    {
        vwSetMessage( app, "%s.%s = %g refused: %s", solver != NULL ? solver->name : "?", name, value,
                      vwEngineReason( app, before, cnStatusString( status ) ) );
        return false;
    }
    char text[64];
    vwSetMessage( app, "%s.%s = %s", solver->name, name,
                  cnFormatSolverParam( solver->params + index, value, text, (int)sizeof( text ) ) );
    return true;
}

bool vwSetParamText( vwApp* app, const char* name, const char* text )
{
    const cnSolverVTable* solver = cnWorld_GetSolver( app->worldId );
    int index = solver != NULL ? cnFindSolverParam( solver, name ) : -1;
    if ( index < 0 )
    {
        vwSetMessage( app, "%s has no parameter '%s'", solver != NULL ? solver->name : "no solver", name );
        return false;
    }
    double value = 0.0;
    char why[256];
    if ( cnParseSolverParam( solver->params + index, text, &value, why, (int)sizeof( why ) ) != cn_statusOk )
    {
        vwSetMessage( app, "%s.%s refused: %s", solver->name, name, why );
        return false;
    }
    return vwSetParam( app, name, value );
}

// Left/Right on the selected parameter, by its type (vwNudgeParamValue); refused values say why
static void vwNudgeParam( vwApp* app, int direction )
{
    const cnSolverVTable* solver = cnWorld_GetSolver( app->worldId );
    if ( solver == NULL || app->selectedParam >= solver->paramCount )
    {
        return;
    }
    const cnSolverParam* param = solver->params + app->selectedParam;
    double value = 0.0;
    cnWorld_GetSolverParam( app->worldId, param->name, &value );
    value = vwNudgeParamValue( param, value, direction );
    char why[256];
    if ( cnCheckSolverParam( param, value, why, (int)sizeof( why ) ) != cn_statusOk )
    {
        vwSetMessage( app, "%s.%s refused: %s", solver->name, param->name, why );
        return;
    }
    vwSetParam( app, param->name, value );
}

// stepping -----------------------------------------------------------------------------------------

// The mouse spring as a soft constraint on the grabbed point (Box2D's mouse joint): stiffness and
// damping of a 5 Hz, critically damped spring on the point's effective mass, solved implicitly over
// the step, so it is stable however light the body or far the anchor from its centre. The body's
// weight is held as well, so that it hangs at the cursor rather than below it, and its spin is
// damped, so that it does not swing about the grabbed point.
static void vwApplyPickSpring( vwApp* app )
{
    vwPick* pick = &app->pick;
    if ( !pick->active || !cnBody_IsValid( pick->bodyId ) ||
         cnBody_GetType( pick->bodyId ) != cn_dynamicBody )
    {
        pick->active = false;
        return;
    }
    double h = app->timeStep;
    cnTransform transform = cnBody_GetTransform( pick->bodyId );
    cnVec3 anchor = cnTransformPoint( transform, pick->localAnchor );
    cnMassData mass = cnBody_GetMassData( pick->bodyId );
    if ( !( mass.mass > 0.0 ) )
    {
        return;
    }
    cnVec3 center = cnBody_GetWorldCenter( pick->bodyId );
    cnVec3 r = cnSub( anchor, center );
    cnMat3 inverseInertia = cnInvertMat3( cnRotateTensor( transform.q, mass.inertia ) );

    // K = I / m + [r]^T I^-1 [r]: velocity change of the point per unit impulse at it
    cnMat3 k = cnMakeMat3Diagonal( 1.0 / mass.mass, 1.0 / mass.mass, 1.0 / mass.mass );
    cnVec3 axes[3] = { { 1.0, 0.0, 0.0 }, { 0.0, 1.0, 0.0 }, { 0.0, 0.0, 1.0 } };
    cnVec3 columns[3];
    for ( int j = 0; j < 3; ++j )
    {
        columns[j] = cnCross( cnMulMV( inverseInertia, cnCross( r, axes[j] ) ), r );
    }
    k = cnAddMat3( k, ( cnMat3 ){ columns[0], columns[1], columns[2] } );

    double omega = 2.0 * 3.14159265358979 * 5.0;
    double zeta = 1.0;
    double effectiveMass = mass.mass; // per unit mass; the coupling comes through K
    double stiffness = effectiveMass * omega * omega;
    double damping = 2.0 * effectiveMass * zeta * omega;
    double softness = 1.0 / ( h * ( damping + h * stiffness ) ); // gamma
    double bias = h * stiffness / ( damping + h * stiffness );   // beta

    cnVec3 v = cnBody_GetLinearVelocity( pick->bodyId );
    cnVec3 w = cnBody_GetAngularVelocity( pick->bodyId );
    cnVec3 pointVelocity = cnAdd( v, cnCross( w, r ) );
    cnVec3 error = cnSub( anchor, pick->target );
    cnVec3 rhs = cnAdd( pointVelocity, cnScale( bias / h, error ) );
    cnMat3 soft = cnAddMat3( k, cnMakeMat3Diagonal( softness, softness, softness ) );
    cnVec3 impulse = cnNeg( cnMulMV( cnInvertMat3( soft ), rhs ) );

    // cap the pull at 50 times the weight, so that a far cursor cannot fling the body
    double g = fmax( 1.0, cnLength( cnWorld_GetGravity( app->worldId ) ) );
    double cap = 50.0 * mass.mass * g * h;
    double length = cnLength( impulse );
    if ( length > cap )
    {
        impulse = cnScale( cap / length, impulse );
    }
    cnVec3 force =
        cnSub( cnScale( 1.0 / h, impulse ), cnScale( mass.mass, cnWorld_GetGravity( app->worldId ) ) );
    cnBody_ApplyForce( pick->bodyId, force, anchor );

    // a held body would swing about the grabbed point for ever: damp its spin at 4 / s
    cnMat3 inertia = cnRotateTensor( transform.q, mass.inertia );
    cnBody_ApplyTorque( pick->bodyId, cnScale( -4.0, cnMulMV( inertia, w ) ) );
}

static void vwStep( vwApp* app )
{
    vwApplyPickSpring( app );
    double start = vwThreadMilliseconds();
    cnStatus status = cnWorld_Step( app->worldId, app->timeStep );
    app->stepCpuMsSum += vwThreadMilliseconds() - start;
    app->stepsTimed += 1;
    if ( status != cn_statusOk )
    {
        vwSetMessage( app, "step %lld: %s", app->stepCount + 1, cnStatusString( status ) );
    }
    app->stepCount += 1;
    app->report = cnWorld_GetStepReport( app->worldId );
    app->residualCount =
        cnWorld_GetResidualHistory( app->worldId, app->residualHistory, VW_HISTORY_CAPACITY );
    app->residualCount = app->residualCount < VW_HISTORY_CAPACITY ? app->residualCount : VW_HISTORY_CAPACITY;

    // the step-time plot scrolls: shift when full
    if ( app->stepTimeCount == VW_STEP_TIMES )
    {
        for ( int k = 0; k < 5; ++k )
        {
            memmove( app->stepTimes[k], app->stepTimes[k] + 1, ( VW_STEP_TIMES - 1 ) * sizeof( float ) );
        }
        app->stepTimeCount -= 1;
    }
    const cnStepReport* r = &app->report;
    float values[5] = { (float)r->stepMs, (float)r->collideMs, (float)r->solveMs, (float)r->integrateMs,
                        (float)( r->predictMs + r->systemsMs ) };
    for ( int k = 0; k < 5; ++k )
    {
        app->stepTimes[k][app->stepTimeCount] = values[k];
    }
    app->stepTimeCount += 1;
}

void vwDropBody( vwApp* app, int kind )
{
    cnBodyDef def = cnDefaultBodyDef();
    double up[3] = { app->camera.up[0], app->camera.up[1], app->camera.up[2] };
    double height = 0.6 * app->camera.distance * sin( 0.5 * app->camera.fovY ) + 1.0;
    double jitter = 0.3 * (double)( app->dropCount % 5 ) - 0.6;
    def.position = ( cnVec3 ){ app->camera.target[0] + height * up[0] + jitter,
                               app->camera.target[1] + height * up[1] + 0.5 * jitter,
                               app->camera.target[2] + height * up[2] };
    def.orientation = cnQuatFromAxisAngle( cnNormalize( ( cnVec3 ){ 1.0, 2.0, 3.0 } ), 0.7 * app->dropCount );
    def.name = NULL;
    cnBodyId body = cnCreateBody( app->worldId, &def );
    cnShapeDef shapeDef = cnDefaultShapeDef();
    cnGeometry geometry = { .type = cn_sphereShape };
    switch ( kind % 6 )
    {
        case 0:
            geometry = ( cnGeometry ){ .type = cn_sphereShape, .sphere = { 0.5 } };
            break;
        case 1:
            geometry = ( cnGeometry ){ .type = cn_boxShape, .box = { { 0.5, 0.4, 0.3 } } };
            break;
        case 2:
            geometry = ( cnGeometry ){ .type = cn_capsuleShape, .capsule = { 0.3, 0.5 } };
            break;
        case 3:
            geometry = ( cnGeometry ){ .type = cn_cylinderShape, .cylinder = { 0.4, 0.4 } };
            break;
        case 4:
            geometry = ( cnGeometry ){ .type = cn_ellipsoidShape, .ellipsoid = { { 0.7, 0.45, 0.3 } } };
            break;
        default:
            geometry = ( cnGeometry ){ .type = cn_torusShape, .torus = { 0.6, 0.15 } };
            break;
    }
    cnShapeId shape = cnCreateShape( body, &shapeDef, &geometry );
    if ( CN_IS_NULL( body ) || CN_IS_NULL( shape ) )
    {
        vwSetMessage( app, "could not drop a %s", vw_dropNames[kind % 6] );
        if ( CN_IS_NON_NULL( body ) )
        {
            cnDestroyBody( body );
        }
        return;
    }
    app->dropCount += 1;
    app->bodiesDirty = true;
    vwSetMessage( app, "dropped a %s", vw_dropNames[kind % 6] );
}

// screenshots and reports ------------------------------------------------------------------------

bool vwTakeScreenshot( vwApp* app, const char* path )
{
    int w = app->width, h = app->height;
    unsigned char* pixels = malloc( (size_t)w * (size_t)h * 3 );
    if ( pixels == NULL )
    {
        vwSetMessage( app, "screenshot: out of memory" );
        return false;
    }
    if ( app->resolveFramebuffer != 0 )
    {
        // headless: resolve the multisampled target first
        glBindFramebuffer( GL_READ_FRAMEBUFFER, app->msFramebuffer );
        glBindFramebuffer( GL_DRAW_FRAMEBUFFER, app->resolveFramebuffer );
        glBlitFramebuffer( 0, 0, w, h, 0, 0, w, h, GL_COLOR_BUFFER_BIT, GL_NEAREST );
        glBindFramebuffer( GL_READ_FRAMEBUFFER, app->resolveFramebuffer );
    }
    else
    {
        glBindFramebuffer( GL_READ_FRAMEBUFFER, 0 );
        glReadBuffer( GL_BACK );
    }
    glPixelStorei( GL_PACK_ALIGNMENT, 1 );
    glReadPixels( 0, 0, w, h, GL_RGB, GL_UNSIGNED_BYTE, pixels );
    glBindFramebuffer( GL_FRAMEBUFFER, app->msFramebuffer );
    // OpenGL's rows start at the bottom
    stbi_flip_vertically_on_write( 1 );
    bool ok = stbi_write_png( path, w, h, 3, pixels, w * 3 ) != 0;
    free( pixels );
    if ( ok )
    {
        vwSetMessage( app, "screenshot: %s", path );
    }
    else
    {
        vwSetMessage( app, "screenshot: cannot write %s", path );
    }
    return ok;
}

// A CSV text field: quoted, with quotes doubled (reasons hold commas), on one line.
static void vwWriteCsvText( FILE* file, const char* text )
{
    fputc( '"', file );
    for ( const char* p = text != NULL ? text : ""; *p != '\0'; ++p )
    {
        if ( *p == '"' )
        {
            fputc( '"', file );
        }
        fputc( *p == '\n' ? ' ' : *p, file );
    }
    fputc( '"', file );
}

static void vwWriteHudLogRow( vwApp* app )
{
    if ( app->hudLog == NULL )
    {
        return;
    }
    const cnSolverVTable* solver = cnWorld_GetSolver( app->worldId );
    const cnStepReport* r = &app->report;
    double iterations = 0.0;
    cnWorld_GetSolverParam( app->worldId, "iterations", &iterations );
    cnWorldDef def = cnWorld_GetDef( app->worldId );
    fprintf( app->hudLog,
             "%lld,%lld,%.6f,%s,%g,%d,%.9e,%s,%d,%d,%.9e,%.4f,%.4f,%d,%.4f,%d,%d,%d,%d,%.9e,%.9e,%.9e,%.9e,"
             "%.9e,%.9e,",
             app->frameCount, (long long)r->stepIndex, r->time, solver != NULL ? solver->name : "",
             iterations, r->solverIterations, r->solverResidual,
             cnSolveStatusName( (cnSolveStatus)r->solverStatus ), r->bodyCount, r->contactCount,
             r->maxPenetration, r->stepMs, r->solveMs, app->residualCount, app->frameMsLast,
             r->relaxIterations, def.relaxIterations, r->substeps, r->solverPasses, r->meritNaturalMap,
             r->meritCone, r->violationSignorini, r->violationCoulomb, r->violationDissipation,
             r->solverOwnMeasure );
    char text[1024];
    vwWriteCsvText( app->hudLog, vwWarningNames( r->warnings, text, (int)sizeof( text ) ) );
    fputc( ',', app->hudLog );
    vwWriteCsvText( app->hudLog, r->solverReason );
    fputc( ',', app->hudLog );
    // the parameters as the HUD prints them: NAME=VALUE, choices by name
    int used = 0;
    text[0] = '\0';
    for ( int p = 0; solver != NULL && p < solver->paramCount && used < (int)sizeof( text ); ++p )
    {
        double value = 0.0;
        char shown[64];
        cnWorld_GetSolverParam( app->worldId, solver->params[p].name, &value );
        used += snprintf( text + used, sizeof( text ) - (size_t)used, "%s%s=%s", p > 0 ? " " : "",
                          solver->params[p].name,
                          cnFormatSolverParam( solver->params + p, value, shown, (int)sizeof( shown ) ) );
    }
    vwWriteCsvText( app->hudLog, text );
    fputc( ',', app->hudLog );
    // the message line, while the HUD shows it
    vwWriteCsvText( app->hudLog, vwNowSeconds() - app->messageTime < VW_MESSAGE_SECONDS ? app->message : "" );
    fputc( '\n', app->hudLog );
}

static cJSON* vwFloatArray( const float* values, int count )
{
    cJSON* array = cJSON_CreateArray();
    for ( int i = 0; i < count; ++i )
    {
        cJSON_AddItemToArray( array, cJSON_CreateNumber( values[i] ) );
    }
    return array;
}

static void vwWriteReport( vwApp* app, const char* path )
{
    cJSON* root = cJSON_CreateObject();
    cJSON_AddStringToObject( root, "scene", app->scenePath );
    const cnSolverVTable* solver = cnWorld_GetSolver( app->worldId );
    cJSON_AddStringToObject( root, "solver", solver != NULL ? solver->name : "" );
    cJSON_AddNumberToObject( root, "frames", (double)app->frameCount );
    cJSON_AddNumberToObject( root, "steps", (double)app->stepCount );
    cJSON_AddNumberToObject( root, "bodies", app->bodyCount );
    cJSON_AddNumberToObject( root, "width", app->width );
    cJSON_AddNumberToObject( root, "height", app->height );
    double frames = app->frameCount > 0 ? (double)app->frameCount : 1.0;
    cJSON_AddNumberToObject( root, "frame_ms_mean", app->frameMsSum / frames );
    cJSON_AddNumberToObject( root, "render_ms_mean", app->renderMsSum / frames );
    cJSON_AddNumberToObject( root, "step_cpu_ms_mean",
                             app->stepsTimed > 0 ? app->stepCpuMsSum / (double)app->stepsTimed : 0.0 );
    cJSON_AddNumberToObject( root, "max_penetration", app->report.maxPenetration );
    cJSON_AddNumberToObject( root, "contacts", app->report.contactCount );
    cJSON_AddItemToObject( root, "view", vwFloatArray( app->view, 16 ) );
    cJSON_AddItemToObject( root, "projection", vwFloatArray( app->projection, 16 ) );
    cJSON* bodies = cJSON_AddArrayToObject( root, "final_state" );
    cnBodyArrays arrays = cnWorld_GetBodyArrays( app->worldId );
    for ( int i = 0; i < arrays.count && i < app->bodyCount; ++i )
    {
        cJSON* body = cJSON_CreateObject();
        const char* name = cnBody_GetName( arrays.ids[i] );
        if ( name != NULL )
        {
            cJSON_AddStringToObject( body, "name", name );
        }
        static const char* const typeNames[] = { "static", "kinematic", "dynamic" };
        int type = (int)arrays.types[i];
        cJSON_AddStringToObject( body, "type", type >= 0 && type < 3 ? typeNames[type] : "?" );
        float position[3] = { (float)arrays.transforms[i].p.x, (float)arrays.transforms[i].p.y,
                              (float)arrays.transforms[i].p.z };
        cJSON_AddItemToObject( body, "position", vwFloatArray( position, 3 ) );
        cJSON_AddItemToObject( body, "color", vwFloatArray( app->bodyColors + 3 * i, 3 ) );
        double radius = 0.0;
        bool plane = false;
        for ( int s = 0; s < app->shapeCount; ++s )
        {
            if ( app->shapes[s].bodyIndex == i )
            {
                radius = fmax( radius, app->shapes[s].boundRadius + cnLength( app->shapes[s].localPose.p ) );
                plane = plane || app->shapes[s].plane;
            }
        }
        cJSON_AddNumberToObject( body, "bound_radius", radius );
        cJSON_AddBoolToObject( body, "plane", plane );
        cJSON_AddItemToArray( bodies, body );
    }
    char* text = cJSON_Print( root );
    FILE* file = text != NULL ? fopen( path, "wb" ) : NULL;
    if ( file == NULL || fputs( text, file ) < 0 )
    {
        fprintf( stderr, "cairn-viewer: cannot write the report %s\n", path );
    }
    if ( file != NULL )
    {
        fclose( file );
    }
    cJSON_free( text );
    cJSON_Delete( root );
}

// script -------------------------------------------------------------------------------------------

static void vwPress( vwApp* app, double x, double y );
static void vwRelease( vwApp* app );
static void vwMove( vwApp* app, double x, double y, double dx, double dy );

static bool vwRunCommand( vwApp* app, const vwCommand* command )
{
    switch ( command->kind )
    {
        case vw_commandSolver:
            vwSelectSolver( app, command->text );
            break;
        case vw_commandParam:
            vwSetParamText( app, command->text, command->value );
            break;
        case vw_commandPause:
            app->paused = true;
            break;
        case vw_commandResume:
            app->paused = false;
            break;
        case vw_commandStep:
            app->singleStep = true;
            break;
        case vw_commandSlow:
            app->slowMotion = command->values[0] != 0.0;
            break;
        case vw_commandColor:
            app->colorMode = (vwColorMode)(int)command->values[0];
            app->colorModeSet = true;
            break;
        case vw_commandShow:
        {
            bool on = command->values[1] != 0.0;
            bool* flags[4] = { &app->showContacts, &app->showNormals, &app->showAabbs, &app->showHelp };
            *flags[(int)command->values[0]] = on;
            break;
        }
        case vw_commandShadows:
            app->shadows = command->values[0] != 0.0;
            break;
        case vw_commandDrop:
            vwDropBody( app, (int)command->values[0] );
            break;
        case vw_commandCamera:
            app->camera.yaw = command->values[0] * 3.14159265358979 / 180.0;
            app->camera.pitch = command->values[1] * 3.14159265358979 / 180.0;
            app->camera.distance = command->values[2];
            break;
        case vw_commandReset:
            vwLoadScene( app, app->scenePath );
            break;
        case vw_commandScreenshot:
            // taken after this frame is drawn
            break;
        case vw_commandQuit:
            return false;
        case vw_commandGrab:
        case vw_commandMove:
            // the camera of this frame, as the mouse would see it
            vwCameraMatrices( app, app->view, app->projection, NULL );
            if ( command->kind == vw_commandGrab )
            {
                vwPress( app, command->values[0], command->values[1] );
            }
            else
            {
                vwMove( app, command->values[0], command->values[1], command->values[0] - app->lastMouseX,
                        command->values[1] - app->lastMouseY );
            }
            app->lastMouseX = command->values[0];
            app->lastMouseY = command->values[1];
            break;
        case vw_commandRelease:
            vwRelease( app );
            break;
    }
    return true;
}

// input --------------------------------------------------------------------------------------------

static vwApp* vwFromWindow( GLFWwindow* window )
{
    return (vwApp*)glfwGetWindowUserPointer( window );
}

static void vwCycleSolver( vwApp* app, int index )
{
    int count = cnGetSolverCount();
    if ( index < 0 )
    {
        const cnSolverVTable* current = cnWorld_GetSolver( app->worldId );
        for ( int i = 0; i < count; ++i )
        {
            index = cnGetSolverAt( i ) == current ? ( i + 1 ) % count : index;
        }
    }
    if ( index >= 0 && index < count )
    {
        vwSelectSolver( app, cnGetSolverAt( index )->name );
    }
}

static void vwKeyPicker( vwApp* app, int key )
{
    if ( key == GLFW_KEY_UP || key == GLFW_KEY_DOWN )
    {
        int count = app->sceneCount > 0 ? app->sceneCount : 1;
        app->sceneCursor = ( app->sceneCursor + ( key == GLFW_KEY_UP ? count - 1 : 1 ) ) % count;
        vwDescribeScene( app );
    }
    else if ( ( key == GLFW_KEY_ENTER || key == GLFW_KEY_KP_ENTER ) && app->sceneCount > 0 )
    {
        vwLoadScene( app, app->scenes[app->sceneCursor] );
    }
    else if ( key == GLFW_KEY_ESCAPE )
    {
        glfwSetWindowShouldClose( app->window, GLFW_TRUE );
    }
}

static void vwKeyCallback( GLFWwindow* window, int key, int scancode, int action, int mods )
{
    (void)scancode;
    (void)mods;
    vwApp* app = vwFromWindow( window );
    if ( action != GLFW_PRESS && action != GLFW_REPEAT )
    {
        return;
    }
    if ( app->picking )
    {
        vwKeyPicker( app, key );
        return;
    }
    const cnSolverVTable* solver = cnWorld_GetSolver( app->worldId );
    switch ( key )
    {
        case GLFW_KEY_ESCAPE:
            if ( app->showHelp )
            {
                app->showHelp = false;
            }
            else
            {
                glfwSetWindowShouldClose( window, GLFW_TRUE );
            }
            break;
        case GLFW_KEY_SPACE:
            app->paused = !app->paused;
            break;
        case GLFW_KEY_N:
            app->paused = true;
            app->singleStep = true;
            break;
        case GLFW_KEY_R:
            vwLoadScene( app, app->scenePath );
            break;
        case GLFW_KEY_T:
            app->slowMotion = !app->slowMotion;
            break;
        case GLFW_KEY_W:
        {
            // workers 1, 2, 4, 1, ...: the same bits, another speed
            int workers = cnWorld_GetWorkerCount( app->worldId );
            workers = workers >= 4 ? 1 : workers * 2;
            if ( cnWorld_SetWorkerCount( app->worldId, workers ) == cn_statusOk )
            {
                vwSetMessage( app, "%d worker%s", workers, workers > 1 ? "s" : "" );
            }
            break;
        }
        case GLFW_KEY_B:
            vwDropBody( app, app->dropCount );
            break;
        case GLFW_KEY_C:
            app->colorMode = (vwColorMode)( ( app->colorMode + 1 ) % vw_colorModeCount );
            app->colorModeSet = true;
            vwSetMessage( app, "colour by %s", vw_colorNames[app->colorMode] );
            break;
        case GLFW_KEY_L:
            app->shadows = !app->shadows;
            break;
        case GLFW_KEY_G:
            app->hideHud = !app->hideHud;
            break;
        case GLFW_KEY_K:
            app->showContacts = !app->showContacts;
            break;
        case GLFW_KEY_J:
            app->showNormals = !app->showNormals;
            break;
        case GLFW_KEY_Y:
            app->showAabbs = !app->showAabbs;
            break;
        case GLFW_KEY_H:
        case GLFW_KEY_F1:
            app->showHelp = !app->showHelp;
            break;
        case GLFW_KEY_P:
        case GLFW_KEY_F12:
        {
            char path[64];
            snprintf( path, sizeof( path ), "cairn-screenshot-%03d.png", app->screenshotCount++ );
            vwTakeScreenshot( app, path );
            break;
        }
        case GLFW_KEY_TAB:
            vwCycleSolver( app, -1 );
            break;
        case GLFW_KEY_UP:
        case GLFW_KEY_DOWN:
            if ( solver != NULL && solver->paramCount > 0 )
            {
                int count = solver->paramCount;
                app->selectedParam = ( app->selectedParam + ( key == GLFW_KEY_UP ? count - 1 : 1 ) ) % count;
            }
            break;
        case GLFW_KEY_LEFT:
        case GLFW_KEY_RIGHT:
            vwNudgeParam( app, key == GLFW_KEY_RIGHT ? 1 : -1 );
            break;
        case GLFW_KEY_F:
            vwToggleFriction( app );
            break;
        case GLFW_KEY_0:
            vwCycleSolver( app, 9 );
            break;
        case GLFW_KEY_MINUS:
            vwCycleSolver( app, 10 );
            break;
        default:
            if ( key >= GLFW_KEY_1 && key <= GLFW_KEY_9 )
            {
                vwCycleSolver( app, key - GLFW_KEY_1 );
            }
            break;
    }
}

// window coordinates to framebuffer pixels (they differ on high-density displays)
static void vwCursorPixels( vwApp* app, double* x, double* y )
{
    int windowWidth, windowHeight;
    glfwGetWindowSize( app->window, &windowWidth, &windowHeight );
    double cx, cy;
    glfwGetCursorPos( app->window, &cx, &cy );
    *x = windowWidth > 0 ? cx * app->width / windowWidth : cx;
    *y = windowHeight > 0 ? cy * app->height / windowHeight : cy;
}

// the camera's position and viewing direction from the last frame's view matrix
static void vwViewFrame( const vwApp* app, cnVec3* eye, cnVec3* forward )
{
    const float* v = app->view;
    // the rows of the rotation are the camera's axes; the eye is -R^T t
    double e[3];
    for ( int i = 0; i < 3; ++i )
    {
        e[i] = -( v[4 * i] * v[12] + v[4 * i + 1] * v[13] + v[4 * i + 2] * v[14] );
    }
    *eye = ( cnVec3 ){ e[0], e[1], e[2] };
    *forward = ( cnVec3 ){ -v[2], -v[6], -v[10] };
}

// the point under pixel (x, y) at a view depth (distance along the viewing direction)
static cnVec3 vwPointAtDepth( const vwApp* app, double x, double y, double depth )
{
    cnVec3 origin, direction, eye, forward;
    vwPixelRay( app, x, y, &origin, &direction );
    vwViewFrame( app, &eye, &forward );
    double along = cnDot( direction, forward );
    double s = along > 1e-9 ? ( depth - cnDot( cnSub( origin, eye ), forward ) ) / along : 0.0;
    return cnMulAdd( origin, s, direction );
}

// the left button: a body under the cursor is picked and dragged in the plane parallel to the
// screen through the grabbed point; otherwise the camera orbits
static void vwPress( vwApp* app, double x, double y )
{
    cnBodyId body;
    cnVec3 hit;
    double distance;
    if ( vwPickBody( app, x, y, &body, &hit, &distance ) )
    {
        cnVec3 eye, forward;
        vwViewFrame( app, &eye, &forward );
        app->pick = ( vwPick ){ .active = true,
                                .bodyId = body,
                                .localAnchor = cnInvTransformPoint( cnBody_GetTransform( body ), hit ),
                                .depth = cnDot( cnSub( hit, eye ), forward ),
                                .target = hit };
    }
    else
    {
        app->orbiting = true;
    }
}

static void vwRelease( vwApp* app )
{
    app->pick.active = false;
    app->orbiting = false;
}

static void vwMouseButtonCallback( GLFWwindow* window, int button, int action, int mods )
{
    (void)mods;
    vwApp* app = vwFromWindow( window );
    double x, y;
    vwCursorPixels( app, &x, &y );
    app->lastMouseX = x;
    app->lastMouseY = y;
    if ( app->picking )
    {
        if ( button == GLFW_MOUSE_BUTTON_LEFT && action == GLFW_PRESS )
        {
            float s = app->hudScale;
            int row = (int)floor( ( y - 64.0 * s + 3.0 * s ) / ( 18.0 * s ) );
            if ( row >= 0 && row < app->sceneCount )
            {
                app->sceneCursor = row;
                vwLoadScene( app, app->scenes[row] );
            }
        }
        return;
    }
    if ( button == GLFW_MOUSE_BUTTON_LEFT )
    {
        if ( action == GLFW_PRESS )
        {
            vwPress( app, x, y );
        }
        else
        {
            vwRelease( app );
        }
    }
    else if ( button == GLFW_MOUSE_BUTTON_RIGHT || button == GLFW_MOUSE_BUTTON_MIDDLE )
    {
        app->panning = action == GLFW_PRESS;
    }
}

// the cursor moved by (dx, dy) pixels to (x, y): drag, orbit or pan
static void vwMove( vwApp* app, double x, double y, double dx, double dy )
{
    vwCamera* camera = &app->camera;
    if ( app->pick.active )
    {
        app->pick.target = vwPointAtDepth( app, x, y, app->pick.depth );
    }
    else if ( app->orbiting )
    {
        camera->yaw -= 0.006 * dx;
        camera->pitch = fmin( 1.55, fmax( -1.55, camera->pitch + 0.006 * dy ) );
    }
    else if ( app->panning )
    {
        // move the target in the view plane, by the distance a pixel covers at the target
        double perPixel =
            2.0 * camera->distance * tan( 0.5 * camera->fovY ) / ( app->height > 0 ? app->height : 1 );
        const float* v = app->view;
        cnVec3 right = { v[0], v[4], v[8] };
        cnVec3 upward = { v[1], v[5], v[9] };
        cnVec3 move = cnAdd( cnScale( -dx * perPixel, right ), cnScale( dy * perPixel, upward ) );
        camera->target[0] += move.x;
        camera->target[1] += move.y;
        camera->target[2] += move.z;
    }
}

static void vwCursorCallback( GLFWwindow* window, double windowX, double windowY )
{
    (void)windowX;
    (void)windowY;
    vwApp* app = vwFromWindow( window );
    double x, y;
    vwCursorPixels( app, &x, &y );
    double dx = x - app->lastMouseX, dy = y - app->lastMouseY;
    app->lastMouseX = x;
    app->lastMouseY = y;
    vwMove( app, x, y, dx, dy );
}

static void vwScrollCallback( GLFWwindow* window, double dx, double dy )
{
    (void)dx;
    vwApp* app = vwFromWindow( window );
    app->camera.distance = fmax( 0.05, app->camera.distance * pow( 0.88, dy ) );
}

// the window ---------------------------------------------------------------------------------------

static void vwGlfwError( int code, const char* description )
{
    fprintf( stderr, "cairn-viewer: GLFW error %d: %s\n", code, description );
}

static bool vwCreateOffscreenTarget( vwApp* app )
{
    int w = app->width, h = app->height;
    int samples = app->options.samples > 1 ? app->options.samples : 0;
    glGenFramebuffers( 1, &app->msFramebuffer );
    glGenRenderbuffers( 1, &app->msColor );
    glGenRenderbuffers( 1, &app->msDepth );
    glBindRenderbuffer( GL_RENDERBUFFER, app->msColor );
    glRenderbufferStorageMultisample( GL_RENDERBUFFER, samples, GL_RGBA8, w, h );
    glBindRenderbuffer( GL_RENDERBUFFER, app->msDepth );
    glRenderbufferStorageMultisample( GL_RENDERBUFFER, samples, GL_DEPTH24_STENCIL8, w, h );
    glBindFramebuffer( GL_FRAMEBUFFER, app->msFramebuffer );
    glFramebufferRenderbuffer( GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, app->msColor );
    glFramebufferRenderbuffer( GL_FRAMEBUFFER, GL_DEPTH_STENCIL_ATTACHMENT, GL_RENDERBUFFER, app->msDepth );
    bool ok = glCheckFramebufferStatus( GL_FRAMEBUFFER ) == GL_FRAMEBUFFER_COMPLETE;

    glGenFramebuffers( 1, &app->resolveFramebuffer );
    glGenRenderbuffers( 1, &app->resolveColor );
    glBindRenderbuffer( GL_RENDERBUFFER, app->resolveColor );
    glRenderbufferStorage( GL_RENDERBUFFER, GL_RGBA8, w, h );
    glBindFramebuffer( GL_FRAMEBUFFER, app->resolveFramebuffer );
    glFramebufferRenderbuffer( GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, app->resolveColor );
    ok = ok && glCheckFramebufferStatus( GL_FRAMEBUFFER ) == GL_FRAMEBUFFER_COMPLETE;
    glBindFramebuffer( GL_FRAMEBUFFER, app->msFramebuffer );
    return ok;
}

static bool vwOpenWindow( vwApp* app )
{
    glfwSetErrorCallback( vwGlfwError );
    if ( !glfwInit() )
    {
        fprintf( stderr, "cairn-viewer: cannot open a display%s\n",
                 getenv( "DISPLAY" ) == NULL
                     ? " (DISPLAY is not set: run it under xvfb-run, as scripts/demo.sh does)"
                     : "" );
        return false;
    }
    glfwWindowHint( GLFW_CONTEXT_VERSION_MAJOR, 3 );
    glfwWindowHint( GLFW_CONTEXT_VERSION_MINOR, 3 );
    glfwWindowHint( GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE );
    glfwWindowHint( GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE );
    glfwWindowHint( GLFW_VISIBLE, app->options.headless ? GLFW_FALSE : GLFW_TRUE );
    glfwWindowHint( GLFW_SAMPLES, app->options.headless ? 0 : app->options.samples );
    app->window = glfwCreateWindow( app->options.width, app->options.height, "Cairn", NULL, NULL );
    if ( app->window == NULL )
    {
        fprintf( stderr, "cairn-viewer: cannot create an OpenGL 3.3 core window\n" );
        glfwTerminate();
        return false;
    }
    glfwMakeContextCurrent( app->window );
    if ( gladLoadGL( glfwGetProcAddress ) == 0 )
    {
        fprintf( stderr, "cairn-viewer: cannot load OpenGL 3.3 core functions\n" );
        glfwDestroyWindow( app->window );
        glfwTerminate();
        return false;
    }
    glfwSwapInterval( app->options.headless ? 0 : 1 );
    glfwSetWindowUserPointer( app->window, app );
    glfwSetKeyCallback( app->window, vwKeyCallback );
    glfwSetMouseButtonCallback( app->window, vwMouseButtonCallback );
    glfwSetCursorPosCallback( app->window, vwCursorCallback );
    glfwSetScrollCallback( app->window, vwScrollCallback );
    if ( app->options.headless )
    {
        app->width = app->options.width;
        app->height = app->options.height;
        if ( !vwCreateOffscreenTarget( app ) )
        {
            fprintf( stderr, "cairn-viewer: cannot create the off-screen framebuffer\n" );
            return false;
        }
    }
    else
    {
        glfwGetFramebufferSize( app->window, &app->width, &app->height );
    }
    return true;
}

static void vwCloseWindow( vwApp* app )
{
    if ( app->msFramebuffer != 0 )
    {
        glDeleteFramebuffers( 1, &app->msFramebuffer );
        glDeleteFramebuffers( 1, &app->resolveFramebuffer );
        glDeleteRenderbuffers( 1, &app->msColor );
        glDeleteRenderbuffers( 1, &app->msDepth );
        glDeleteRenderbuffers( 1, &app->resolveColor );
    }
    if ( app->window != NULL )
    {
        glfwDestroyWindow( app->window );
    }
    glfwTerminate();
}

// the loop -----------------------------------------------------------------------------------------

static void vwRender( vwApp* app, double fps )
{
    double start = vwNowSeconds();
    if ( !app->options.headless )
    {
        glfwGetFramebufferSize( app->window, &app->width, &app->height );
    }
    glBindFramebuffer( GL_FRAMEBUFFER, app->msFramebuffer );
    // whole-number scales keep the bitmap font's strokes even
    app->hudScale = fminf( 3.0f, fmaxf( 1.0f, floorf( (float)app->height / 700.0f ) ) );

    float eye[3];
    vwCameraMatrices( app, app->view, app->projection, eye );
    vwFrameParams params = { .width = app->width, .height = app->height, .shadows = app->shadows };
    memcpy( params.view, app->view, sizeof( params.view ) );
    memcpy( params.projection, app->projection, sizeof( params.projection ) );
    memcpy( params.eye, eye, sizeof( eye ) );
    for ( int k = 0; k < 3; ++k )
    {
        params.upAxis[k] = (float)app->camera.up[k];
        params.sceneCenter[k] = (float)app->camera.target[k];
    }
    // light from above, a little from the camera's side, so that faces facing us are lit
    cnVec3 up = { app->camera.up[0], app->camera.up[1], app->camera.up[2] };
    cnVec3 side = cnPerpendicular( up );
    cnVec3 light = cnNormalize(
        cnAdd( cnScale( -1.0, up ), cnAdd( cnScale( 0.45, side ), cnScale( 0.3, cnCross( up, side ) ) ) ) );
    params.lightDirection[0] = (float)light.x;
    params.lightDirection[1] = (float)light.y;
    params.lightDirection[2] = (float)light.z;
    params.sceneRadius = (float)fmax( 1.0, app->camera.distance * sin( 0.5 * app->camera.fovY ) * 1.3 );

    if ( !app->picking && cnWorld_IsValid( app->worldId ) )
    {
        vwDrawScene( app );
    }
    vwRenderFrame( app->renderer, &params );
    if ( !app->options.noHud && ( !app->hideHud || app->picking ) )
    {
        vwDrawHud( app, fps );
    }
    if ( app->options.headless )
    {
        // the frame's time includes the drawing, which a software renderer does here
        glFinish();
    }
    app->renderMsLast = 1e3 * ( vwNowSeconds() - start );
    app->renderMsSum += app->renderMsLast;
}

int vwRunApp( const vwOptions* options )
{
    vwApp* app = calloc( 1, sizeof( vwApp ) );
    if ( app == NULL )
    {
        fprintf( stderr, "cairn-viewer: out of memory\n" );
        return 1;
    }
    app->options = *options;
    app->camera = ( vwCamera ){ .up = { 0.0, 0.0, 1.0 }, .distance = 10.0, .fovY = 0.785, .pitch = 0.3 };
    app->shadows = options->shadows;
    app->colorMode = options->colorMode;
    app->colorModeSet = options->colorModeSet;
    int exitCode = 0;

    if ( options->scriptPath != NULL )
    {
        char error[512];
        if ( !vwLoadScript( options->scriptPath, &app->script, error, (int)sizeof( error ) ) )
        {
            fprintf( stderr, "cairn-viewer: %s\n", error );
            free( app );
            return 2;
        }
    }
    if ( options->hudLogPath != NULL )
    {
        app->hudLog = fopen( options->hudLogPath, "w" );
        if ( app->hudLog == NULL )
        {
            fprintf( stderr, "cairn-viewer: cannot write %s\n", options->hudLogPath );
            vwFreeScript( &app->script );
            free( app );
            return 2;
        }
        fprintf( app->hudLog,
                 "frame,step,time,solver,iteration_limit,iterations,residual,status,bodies,contacts,"
                 "max_penetration,step_ms,solve_ms,history_count,frame_ms,relax_iterations,relax_limit,"
                 "substeps,solver_passes,merit_natural_map,merit_cone,violation_signorini,violation_coulomb,"
                 "violation_dissipation,own_measure,warnings,reason,params,message\n" );
    }

    if ( !vwOpenWindow( app ) )
    {
        exitCode = 1;
        goto done;
    }
    app->renderer = vwCreateRenderer();
    app->hud = vwCreateHud();
    if ( app->renderer == NULL || app->hud == NULL )
    {
        exitCode = 1;
        goto done;
    }

    vwListScenes( app );
    if ( options->scenePath != NULL )
    {
        // a scene that does not load or an unknown solver: 1; a --set or --param refused: 2
        exitCode = (int)vwLoadScene( app, options->scenePath );
        if ( exitCode != 0 )
        {
            goto done;
        }
    }
    else
    {
        app->picking = true;
        vwDescribeScene( app );
    }

    double last = vwNowSeconds();
    double fps = 0.0;
    bool running = true;
    while ( running && !glfwWindowShouldClose( app->window ) )
    {
        double now = vwNowSeconds();
        double elapsed = now - last;
        last = now;
        if ( app->frameMsLast > 0.0 )
        {
            // smoothed over about 20 frames
            double rate = 1000.0 / app->frameMsLast;
            fps = fps > 0.0 ? 0.95 * fps + 0.05 * rate : rate;
        }

        // script commands of this frame
        const char* screenshot = NULL;
        while ( app->script.next < app->script.count &&
                app->script.commands[app->script.next].frame <= app->frameCount )
        {
            const vwCommand* command = app->script.commands + app->script.next++;
            screenshot = command->kind == vw_commandScreenshot ? command->text : screenshot;
            running = vwRunCommand( app, command ) && running;
        }

        if ( !app->picking && cnWorld_IsValid( app->worldId ) )
        {
            int steps = 0;
            if ( app->paused )
            {
                steps = app->singleStep ? 1 : 0;
                app->accumulator = 0.0;
            }
            else if ( options->headless )
            {
                // one step a frame: the same frames give the same pictures
                steps = 1;
            }
            else
            {
                // real time (or a quarter of it); a slow solver slows the simulation, not the camera
                app->accumulator += fmin( elapsed, 0.25 ) * ( app->slowMotion ? 0.25 : 1.0 );
                steps = (int)floor( app->accumulator / app->timeStep );
                if ( steps > VW_MAX_STEPS_PER_FRAME )
                {
                    steps = VW_MAX_STEPS_PER_FRAME;
                    app->accumulator = 0.0;
                }
                else
                {
                    app->accumulator -= steps * app->timeStep;
                }
            }
            app->singleStep = false;
            for ( int i = 0; i < steps; ++i )
            {
                vwStep( app );
            }
            vwSyncBodies( app );
            vwUpdateColors( app );
        }

        vwRender( app, fps );
        vwWriteHudLogRow( app );
        if ( screenshot != NULL )
        {
            vwTakeScreenshot( app, screenshot );
        }
        bool lastFrame = options->headless && app->frameCount + 1 >= options->frames;
        if ( lastFrame && options->screenshotPath != NULL &&
             !vwTakeScreenshot( app, options->screenshotPath ) )
        {
            exitCode = 1;
        }
        if ( !options->headless )
        {
            glfwSwapBuffers( app->window );
        }
        glfwPollEvents();
        app->frameMsLast = 1e3 * ( vwNowSeconds() - now );
        app->frameMsSum += app->frameMsLast;
        app->frameCount += 1;
        running = running && !lastFrame;
    }

    if ( options->reportPath != NULL )
    {
        vwWriteReport( app, options->reportPath );
    }
    {
        double frames = app->frameCount > 0 ? (double)app->frameCount : 1.0;
        printf( "cairn-viewer: %s, %lld frames, %lld steps, %d bodies, solver %s: frame %.2f ms (render %.2f "
                "ms), "
                "step %.3f ms CPU, max penetration %.2f mm\n",
                app->picking ? "scene picker" : app->sceneName, app->frameCount, app->stepCount,
                app->bodyCount,
                cnWorld_IsValid( app->worldId ) ? cnWorld_GetSolver( app->worldId )->name : "-",
                app->frameMsSum / frames, app->renderMsSum / frames,
                app->stepsTimed > 0 ? app->stepCpuMsSum / (double)app->stepsTimed : 0.0,
                1000.0 * app->report.maxPenetration );
    }

done:
    vwUnloadScene( app );
    for ( int i = 0; i < app->meshCount; ++i )
    {
        vwFreeMesh( &app->meshes[i].mesh );
    }
    vwDestroyHud( app->hud );
    vwDestroyRenderer( app->renderer );
    vwCloseWindow( app );
    if ( app->hudLog != NULL )
    {
        fclose( app->hudLog );
    }
    vwFreeScript( &app->script );
    free( app->bodies );
    free( app->slotToBody );
    free( app->shapes );
    free( app->meshes );
    free( app->instances );
    free( app->bodyColors );
    free( app->bodyForces );
    free( app->islandOf );
    free( app->contacts );
    free( app );
    return exitCode;
}
