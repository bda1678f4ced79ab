// SPDX-License-Identifier: MIT
#pragma once

/// @defgroup systems User systems
/// Systems for the flagship demos, written against the public API only, the way a user of the
/// engine writes them: bacterial colony growth (ReLCP paper, section 7.3) and the force fields
/// (extensile, section 7.4; compacting, section 7.2), plus the scene handlers that set them up
/// from a scene file's "systems" object. Library cairn_systems, prefix cx.
///
/// Each system is registered with cnWorld_AddSystem and owned by its world: its memory is freed
/// when the world is destroyed or the system removed (by its name, CX_COLONY_SYSTEM_NAME or
/// CX_FIELD_SYSTEM_NAME). Pointers returned here are valid until then.
/// @{

#include "cairn/cairn.h"
#include "cairn/scene.h"

#include <stdbool.h>
#include <stdint.h>

/// @name Colony growth
/// @{

/// Name under which a colony registers its system (at most one colony per world).
#define CX_COLONY_SYSTEM_NAME "colony"

/// A growing colony of rod-shaped cells. Opaque; owned by its world.
typedef struct cxColony cxColony;

/// Colony settings. Start from cxDefaultColonyConfig(). The scene handler reads the same
/// settings under the keys named below.
typedef struct cxColonyConfig
{
    /// `growth_rate`: exponential elongation rate, 1/s: dl/dt = rate l. > 0. Default 1.
    double growthRate;
    /// `division_length`: tip-to-tip length at which a cell divides into two of half the length,
    /// m. > 0, and at least twice the cell diameter (so that a daughter is still a capsule).
    /// Default 4 (twice the paper's initial length 2).
    double divisionLength;
    /// `noise_degrees`: each daughter turns by an angle drawn uniformly from +-noise about the
    /// plane normal (monolayer) or a random axis perpendicular to the cell (3-D colony),
    /// degrees. >= 0. Default 0.01.
    double noiseDegrees;
    /// `seed`: seed of the colony's random sequence (splitmix64); the same seed gives the same
    /// colony. An integer in [0, 2^53] in scene files. Default 1.
    uint64_t seed;
    /// `max_cells`: the colony grows until it holds this many cells, then stops: a cell that
    /// reaches the division length in the step the colony fills stops there, and from then on
    /// no cell lengthens or divides (the contacts relax what growth left). >= 1. Default 4096.
    int maxCells;
    /// `monolayer`: keep every cell centre in the plane z = z0 (the first cell's z when the colony
    /// was added) and every cell axis in that plane, projecting them back at the start of each
    /// step. Default true.
    bool monolayer;
} cxColonyConfig;

CN_API cxColonyConfig cxDefaultColonyConfig( void );

/// Check a config. On failure writes a one-line reason starting with the offending key, e.g.
/// "growth_rate: expected a positive number, got -1", to `message` (nullable, `messageSize` bytes).
CN_API cnStatus cxValidateColonyConfig( const cxColonyConfig* config, char* message, int messageSize );

/// Add a colony to a world: every dynamic body that has exactly one capsule shape at this moment
/// becomes a cell (age 0, generation 0; the capsule's axis is the cell's axis). The colony's
/// system runs at cn_stageBegin: each step it projects the cells back onto the monolayer, grows
/// every cell about its centre (l *= exp(rate dt), cnShape_SetGeometry) and divides the cells
/// that reached the division length. A daughter keeps the mother's body, the other gets a new
/// dynamic body with a capsule of the same material and local pose (and the mother's
/// velocities); the new body has default damping, gravity scale, filtering and user data, and
/// no name. Returns the colony, owned by the world, or NULL with the reason logged through the
/// world's log hook (invalid world or config, no cell to adopt, a division length below twice
/// a cell's diameter, a second colony in the same world, out of memory).
CN_API cxColony* cxAddColony( cnWorldId worldId, const cxColonyConfig* config );

/// cxAddColony that hands the reason for a failure back instead of logging it: writes one line
/// starting with the offending key where there is one to `message` (nullable).
CN_API cnStatus cxTryAddColony( cnWorldId worldId, const cxColonyConfig* config, cxColony** outColony,
                                char* message, int messageSize );

/// The settings the colony runs with. Defaults for NULL.
CN_API cxColonyConfig cxColony_GetConfig( const cxColony* colony );

/// Number of cells. 0 for NULL.
CN_API int cxColony_GetCellCount( const cxColony* colony );

/// Simulated time since the colony was added, s (the sum of the time steps it has seen).
CN_API double cxColony_GetTime( const cxColony* colony );

/// z of the monolayer plane, m.
CN_API double cxColony_GetPlaneZ( const cxColony* colony );

/// Seconds since the cell of this body was born (adopted, or its mother reached the division
/// length, interpolated within the step), -1 when the body is not a cell of this colony or
/// the colony is NULL. Constant time (a hash of the body id): cheap enough for every body of
/// every frame.
CN_API double cxColony_GetCellAge( const cxColony* colony, cnBodyId bodyId );

/// Divisions since the cell's adopted ancestor (0 for adopted cells), -1 when not a cell.
CN_API int cxColony_GetGeneration( const cxColony* colony, cnBodyId bodyId );

/// Tip-to-tip length of the cell, m; -1 when not a cell.
CN_API double cxColony_GetCellLength( const cxColony* colony, cnBodyId bodyId );

/// Copy up to `capacity` cell body ids, in the colony's order. Returns the cell count.
CN_API int cxColony_GetCells( const cxColony* colony, cnBodyId* bodyIds, int capacity );

/// What the ReLCP paper plots of a colony (section 7.3), at the current state.
typedef struct cxColonyStats
{
    /// cells in the colony
    int cells;
    /// the most divisions any cell is from its adopted ancestor (a colony grown from one cell with
    /// synchronised divisions has 2^generations cells)
    int generations;
    /// the mean of the cell centres
    cnVec3 center;
    /// the radius about `center` of the smallest sphere that holds every cell (in a monolayer: the
    /// disc in the plane), m: the farthest tip plus its radius
    double radius;
    /// the cells' share of that sphere: their volume over its volume, or in a monolayer their
    /// area in the plane over the disc's (a capsule's footprint is a rectangle and two half discs)
    double volumeFraction;
} cxColonyStats;

/// The colony's statistics now; all zero for NULL or a colony with no cells. Cells whose body was
/// destroyed since the last step are left out. O(cells).
CN_API cxColonyStats cxColony_GetStats( const cxColony* colony );

/// Have the colony set `*pointer` to NULL when it leaves its world (world destroyed or system
/// removed), if it still points at the colony then: for callers that keep the colony pointer
/// beside a world they do not destroy themselves. One pointer per colony; NULL forgets it.
CN_API void cxColony_TrackPointer( cxColony* colony, cxColony** pointer );

/// @}

/// @name Force fields: extensile and compacting
/// @{

/// Name under which a field, extensile or compacting, registers its system: at most one field
/// per world.
#define CX_FIELD_SYSTEM_NAME "extensile_field"

/// A force field acting on every dynamic body. Opaque; owned by its world.
typedef struct cxField cxField;

/// The two fields of the ReLCP paper: one force law, opposite signs.
typedef enum cxFieldKind
{
    /// F(x) = strength x (|x| - sin|x|) / |x|^2: a positive strength pushes out (section 7.4).
    cx_extensileField,
    /// F(x) = -strength x (|x| - sin|x|) / |x|^2: a positive strength pulls in (section 7.2).
    cx_compactingField,
} cxFieldKind;

/// Field settings. Start from cxDefaultFieldConfig().
typedef struct cxFieldConfig
{
    /// `center`: centre of the field, m. Default the origin.
    cnVec3 center;
    /// `strength`: the magnitude of the force far from the centre, N. Finite. Positive pushes
    /// out for the extensile field and pulls in for the compacting one; a negative strength
    /// reverses either. Default 1.
    double strength;
} cxFieldConfig;

CN_API cxFieldConfig cxDefaultFieldConfig( void );

/// Check a config (finite centre and strength); the reason starts with the offending key.
CN_API cnStatus cxValidateFieldConfig( const cxFieldConfig* config, char* message, int messageSize );

/// The extensile field's force at a point: F(x) = strength x (|x| - sin|x|) / |x|^2 with
/// x = point - center (defaults for a NULL config). Its magnitude |strength| (1 - sin r / r), with
/// r = |x|, grows as |strength| r^2 / 6 near the centre (evaluated there by its series, free of
/// cancellation) and tends to |strength| far away; zero at the centre.
CN_API cnVec3 cxExtensileForce( const cxFieldConfig* config, cnVec3 point );

/// The compacting field's force at a point: -cxExtensileForce, exactly (the strength negated).
CN_API cnVec3 cxCompactingForce( const cxFieldConfig* config, cnVec3 point );

/// Add the field to a world: a system at cn_stageForces adds cxExtensileForce at the centre of
/// mass of every dynamic body, each step. NULL with the reason logged on failure (invalid world
/// or config, a second field in the world, extensile or compacting, out of memory).
CN_API cxField* cxAddExtensileField( cnWorldId worldId, const cxFieldConfig* config );

/// cxAddExtensileField that hands the reason for a failure back instead of logging it.
CN_API cnStatus cxTryAddExtensileField( cnWorldId worldId, const cxFieldConfig* config, cxField** outField,
                                        char* message, int messageSize );

/// As cxAddExtensileField, with cxCompactingForce: the field of the ReLCP paper's compacting
/// suspension (section 7.2). It takes the world's one field slot (CX_FIELD_SYSTEM_NAME).
CN_API cxField* cxAddCompactingField( cnWorldId worldId, const cxFieldConfig* config );

/// cxAddCompactingField that hands the reason for a failure back instead of logging it.
CN_API cnStatus cxTryAddCompactingField( cnWorldId worldId, const cxFieldConfig* config, cxField** outField,
                                         char* message, int messageSize );

/// The settings as given when the field was added (a compacting field's strength is not negated).
/// Defaults for NULL.
CN_API cxFieldConfig cxField_GetConfig( const cxField* field );

/// Which field it is. cx_extensileField for NULL.
CN_API cxFieldKind cxField_GetKind( const cxField* field );

/// As cxColony_TrackPointer: `*pointer` becomes NULL when the field leaves its world.
CN_API void cxField_TrackPointer( cxField* field, cxField** pointer );

/// @}

/// @name Scene handlers
/// @{

/// What the scene handlers set up, for the caller of the loader (the cairn tool, the viewer):
/// after a successful load, the colony and the field (extensile or compacting: see
/// cxField_GetKind) of the scene's "systems" object, or NULL
/// for those it did not name. A pointer is reset to NULL when its system leaves the world (the
/// world destroyed, also by a failed load), so keep this struct alive as long as the world.
typedef struct cxSceneSystems
{
    cxColony* colony;
    cxField* field;
} cxSceneSystems;

/// Number of handlers cxGetSceneSystems fills.
#define CX_SCENE_SYSTEM_COUNT 3

/// Fill `handlers` (room for `capacity`) with the handlers of this library, in this order:
/// "colony" (cxColonySceneHandler), "extensile_field" (cxFieldSceneHandler) and
/// "compacting_field" (cxCompactingFieldSceneHandler), their contexts pointing
/// at `systems` (nullable: then the pointers are not reported). Returns how many it wrote, at
/// most CX_SCENE_SYSTEM_COUNT. Pass them to cnSceneOptions.systems / systemCount.
CN_API int cxGetSceneSystems( cxSceneSystems* systems, cnSceneSystem* handlers, int capacity );

/// cnSceneSystemFcn for "colony": `config` is a JSON object of the cxColonyConfig keys (all
/// optional), `context` a cxSceneSystems* (nullable). Unknown keys, duplicate keys and bad values
/// are errors whose message starts with the key: "growth_rate: expected a positive number,
/// got -1". cn_statusParseError for JSON that does not parse, cn_statusSchemaError for a
/// bad key or value, the cxTryAddColony status otherwise.
CN_API cnStatus cxColonySceneHandler( cnWorldId worldId, const char* config, void* context, char* message,
                                      int messageSize );

/// cnSceneSystemFcn for "extensile_field": keys `center` ([x, y, z]) and `strength`.
CN_API cnStatus cxFieldSceneHandler( cnWorldId worldId, const char* config, void* context, char* message,
                                     int messageSize );

/// cnSceneSystemFcn for "compacting_field": the same keys; a positive `strength` pulls in. A world
/// has one field, so a scene that gives both "extensile_field" and "compacting_field" fails to
/// load at the second one, with a message that says so.
CN_API cnStatus cxCompactingFieldSceneHandler( cnWorldId worldId, const char* config, void* context,
                                               char* message, int messageSize );

/// @}

/// @}
