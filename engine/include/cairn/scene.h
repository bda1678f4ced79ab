// SPDX-License-Identifier: MIT
#pragma once

/// @defgroup scene Scenes
/// JSON scene files (docs/scene-format.md), loaded into a new world. Part of the cairn_scene
/// library, so the core engine has no JSON dependency.
///
/// Loading is all or nothing: the file is parsed and validated completely before the world is
/// created, so a failed load leaves no world and no memory behind.
/// @{

#include "cairn/base.h"
#include "cairn/id.h"
#include "cairn/status.h"
#include "cairn/types.h"

/// Longest error or warning text kept, including the terminating zero.
#define CN_SCENE_TEXT_CAPACITY 512

/// Where and why a load failed.
typedef struct cnSceneError
{
    /// cn_statusIoError, cn_statusParseError or cn_statusSchemaError.
    cnStatus status;
    /// 1-based position of the offending value in the file; 0 when there is none (e.g. I/O).
    int line;
    int column;
    /// Path of the offending value, e.g. "bodies[3].shapes[0].radius"; "" for the whole file.
    char path[256];
    /// What is wrong, e.g. "expected a positive number, got -1".
    char message[256];
    /// All of it on one line, e.g.
    /// "stack.json:12:7: bodies[3].shapes[0].radius: expected a positive number, got -1".
    char text[CN_SCENE_TEXT_CAPACITY];
} cnSceneError;

/// Receives each warning (unknown keys and the like) as one formatted line, same shape as
/// cnSceneError.text. Nullable in cnSceneOptions: then warnings go to the world def's log hook,
/// or stderr.
typedef void cnSceneWarningFcn( const char* text, void* context );

/// Sets up an application system that a scene names in its "systems" object (say "colony"),
/// once the world and all its bodies exist. `config` is the JSON text of the entry's value, after
/// overrides. Return cn_statusOk, or an error status with a one-line reason in `message`
/// (`messageSize` bytes), best starting with the offending key, e.g. "growth_rate: expected a
/// positive number, got -1". An error fails the load: the world is destroyed (so the handler's
/// systems get their finish calls) and the error names the entry's place in the file.
typedef cnStatus cnSceneSystemFcn( cnWorldId worldId, const char* config, void* context, char* message,
                                   int messageSize );

/// A handler for one name in a scene's "systems" object.
typedef struct cnSceneSystem
{
    const char* name;
    cnSceneSystemFcn* fcn;
    void* context;
} cnSceneSystem;

/// Load options. Must be initialized with cnDefaultSceneOptions().
typedef struct cnSceneOptions
{
    /// Overrides applied to the JSON before validation, each "key=value": the key is a path
    /// ("world.dt", "world.solver.iterations", "bodies[2].position"), the value JSON
    /// ("0.001", "[0,0,-1]", "\"pgs\"") or, when it is not JSON, a string.
    const char* const* overrides;
    int overrideCount;
    cnSceneWarningFcn* warningFcn;
    void* warningContext;
    /// Files larger than this are refused before they are read. Default 256 MiB.
    size_t maxBytes;
    /// Handlers for the entries of the scene's "systems" object, run in the file's order after
    /// the bodies are created. An entry with no handler is skipped with a warning.
    const cnSceneSystem* systems;
    int systemCount;
    /// Starting point for the world def (allocator, log hook, user data); the scene overrides
    /// gravity, dynamics, time step and solver. Default cnDefaultWorldDef().
    cnWorldDef worldDef;
    int internalValue;
} cnSceneOptions;

/// What a loaded scene is besides its world.
typedef struct cnScene
{
    cnWorldId worldId;
    /// Number of bodies created.
    int bodyCount;
    /// Warnings reported during the load.
    int warningCount;
} cnScene;

CN_API cnSceneOptions cnDefaultSceneOptions( void );

/// Load a scene file into a new world. On failure returns the status, fills `error` (nullable)
/// and creates nothing.
CN_API cnStatus cnLoadSceneFile( const char* path, const cnSceneOptions* options, cnScene* outScene,
                                 cnSceneError* error );

/// Load a scene from memory; `name` stands for the file name in messages.
CN_API cnStatus cnLoadSceneString( const char* json, size_t length, const char* name,
                                   const cnSceneOptions* options, cnScene* outScene, cnSceneError* error );

/// @}
