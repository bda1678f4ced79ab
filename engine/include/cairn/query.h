// SPDX-License-Identifier: MIT
#pragma once

/// @defgroup query Scene queries
/// Ray casts, shape casts and overlaps (by box and by exact shape) against the shapes of a world,
/// through its broadphase trees.
///
/// Rules, the same for every query:
/// - a ray is the segment origin + t translation, t (the fraction) in [0, 1];
/// - a ray hits a shape where it ENTERS the solid: a ray that starts inside a convex shape does not
///   hit it (one that starts inside a torus's tube can hit the ring where it enters it again);
///   a ray that only touches a surface tangentially may or may not hit it;
/// - the hit is exact for every shape type (closed forms; the torus's quartic to round-off);
/// - a filter selects shapes by their collision filter (cnShapeDef.categoryBits / maskBits);
/// - sensors (cnShapeDef.isSensor) are volumes that report overlaps, not solids: no query sees them;
/// - a null, stale or forged world id gives cn_statusInvalidId, NaN or infinity in the input
///   cn_statusNonFinite, a NULL callback or result pointer cn_statusInvalidArgument (each logged
///   through the world's hook when there is a world), with no hit reported;
/// - queries read the world and never change it. They may run from user systems (the world is
///   unlocked there) and from several threads at once while nothing changes the world; not while
///   cnWorld_Step runs outside a system (cn_statusWorldLocked when that is detected).
/// @{

#include "cairn/base.h"
#include "cairn/id.h"
#include "cairn/math.h"
#include "cairn/status.h"
#include "cairn/types.h"

#include <stdbool.h>
#include <stdint.h>

/// Which shapes a query sees: those with (shape.categoryBits & maskBits) != 0 and
/// (shape.maskBits & categoryBits) != 0, the rule two shapes collide by (Box2D's query rule). A
/// shape whose maskBits leave out the filter's category is not seen: one with maskBits 0 is
/// invisible to every query.
typedef struct cnQueryFilter
{
    /// What the query is, tested against each shape's maskBits. Default 1 (cnShapeDef's default
    /// category).
    uint32_t categoryBits;
    /// What the query sees, tested against each shape's categoryBits. Default all bits.
    uint32_t maskBits;
} cnQueryFilter;

/// The default filter: category 1, every mask bit (sees every shape made with the default def).
CN_API cnQueryFilter cnDefaultQueryFilter( void );

/// Axis-aligned box of a world query, m.
typedef struct cnBounds
{
    cnVec3 lower;
    cnVec3 upper;
} cnBounds;

/// One ray hit.
typedef struct cnRayHit
{
    /// The shape hit and its body.
    cnShapeId shapeId;
    cnBodyId bodyId;
    /// World point where the ray enters the shape: origin + fraction * translation, m.
    cnVec3 point;
    /// Outward unit normal of the surface at the point, world frame.
    cnVec3 normal;
    /// In [0, 1]; the distance along the ray is fraction * |translation|.
    double fraction;
    /// False when the ray hit nothing (cnWorld_CastRayClosest); the other fields are then zero.
    bool hit;
} cnRayHit;

/// Called by cnWorld_CastRay for every shape the ray enters (its entry point only), in no
/// particular order. The return value steers the cast, as in Box2D:
/// - -1 (any negative value): ignore this hit, continue;
/// - 0: stop the cast;
/// - the hit's fraction: clip the ray there (only hits at or before it are reported from now on;
///   the way to find the closest hit);
/// - 1: continue without clipping.
/// The hit is valid during the call only. The callback must not change the world.
typedef double cnRayHitFcn( const cnRayHit* hit, void* context );

/// Called by cnWorld_OverlapAABB for every shape found; return false to stop the query.
typedef bool cnOverlapFcn( cnShapeId shapeId, cnBodyId bodyId, void* context );

/// The closest shape the ray from `origin` along `translation` (m, world) enters, among the shapes
/// the filter passes. `outHit->hit` is false when there is none (a zero translation hits nothing).
/// cn_statusOk whenever the query ran, hit or not.
CN_API cnStatus cnWorld_CastRayClosest( cnWorldId worldId, cnVec3 origin, cnVec3 translation,
                                        cnQueryFilter filter, cnRayHit* outHit );

/// Every shape the ray enters, each once, through `fcn` (see cnRayHitFcn for the clipping).
CN_API cnStatus cnWorld_CastRay( cnWorldId worldId, cnVec3 origin, cnVec3 translation, cnQueryFilter filter,
                                 cnRayHitFcn* fcn, void* context );

/// Every shape whose bounding box (at its current pose) overlaps `box` (closed boxes: touching
/// counts), through `fcn`, each once, in no particular order. A box test: the shape itself may
/// not reach into `box`. Planes are reported when `box` reaches their half-space's bounding box.
/// cn_statusInvalidArgument for an inverted box (lower above upper on some axis).
CN_API cnStatus cnWorld_OverlapAABB( cnWorldId worldId, cnBounds box, cnQueryFilter filter, cnOverlapFcn* fcn,
                                     void* context );

/// One shape-cast hit: where the swept shape first touches a shape of the world.
typedef struct cnShapeCastHit
{
    /// The shape hit and its body.
    cnShapeId shapeId;
    cnBodyId bodyId;
    /// World point where the cast shape, moved by fraction * translation, touches the shape hit (on
    /// its surface), m. For a cast that starts overlapping: a deepest point of the overlap.
    cnVec3 point;
    /// Unit normal of the surface hit at the point, pointing out of it towards the cast shape. For a
    /// cast that starts overlapping: the direction that separates the two fastest (out of the shape
    /// hit, towards the cast shape).
    cnVec3 normal;
    /// Time of impact, in [0, 1]: the first fraction of the translation at which the cast shape
    /// touches the shape hit. 0 when they overlap (or touch) at the start.
    double fraction;
    /// False when the cast hit nothing (cnWorld_CastShapeClosest); the other fields are then zero.
    bool hit;
} cnShapeCastHit;

/// Called by cnWorld_CastShape for every shape the swept shape touches (at its first touch only),
/// in no particular order. The return value steers the cast as cnRayHitFcn's does: -1 ignores the
/// hit, 0 stops the cast, the hit's fraction clips the cast there, 1 continues without clipping.
/// The hit is valid during the call only. The callback must not change the world.
typedef double cnShapeCastFcn( const cnShapeCastHit* hit, void* context );

/// Shape casts and shape overlaps take a sphere, a capsule (along the pose's local z) or a box,
/// centred on a pose: `shape` is a cnGeometry of type cn_sphereShape, cn_capsuleShape or
/// cn_boxShape, checked as cnValidateGeometry checks it (cn_statusInvalidArgument for a bad size or
/// a NULL shape, cn_statusNonFinite for a NaN, cn_statusUnsupported for another type). The pose's
/// quaternion need not be unit (it is normalized); the zero quaternion is cn_statusInvalidArgument.
///
/// The closest shape the swept shape touches, among the shapes the filter passes: `shape` at
/// `pose`, moved by t `translation` (m, world; no rotation), t in [0, 1]. The time of impact is
/// exact for every shape type (to 1e-11 of the shapes' sizes in distance, never late). Unlike a
/// ray, a cast that starts overlapping a shape (convex or not) hits it at fraction 0 (Box2D's
/// rule), so a zero translation reports the shapes the cast shape overlaps at its pose.
/// `outHit->hit` is false when there is none. cn_statusOk whenever the query ran, hit or not.
CN_API cnStatus cnWorld_CastShapeClosest( cnWorldId worldId, const cnGeometry* shape, cnTransform pose,
                                          cnVec3 translation, cnQueryFilter filter, cnShapeCastHit* outHit );

/// Every shape the swept shape touches, each once, through `fcn` (see cnShapeCastFcn for the
/// clipping). The rules of cnWorld_CastShapeClosest apply.
CN_API cnStatus cnWorld_CastShape( cnWorldId worldId, const cnGeometry* shape, cnTransform pose,
                                   cnVec3 translation, cnQueryFilter filter, cnShapeCastFcn* fcn,
                                   void* context );

/// Every shape that `shape` at `pose` overlaps or touches, decided exactly on the two shapes (not
/// their bounding boxes; touching within 1e-11 of their sizes counts), through `fcn`, each once, in
/// no particular order. The shape rules of cnWorld_CastShapeClosest apply.
CN_API cnStatus cnWorld_OverlapShape( cnWorldId worldId, const cnGeometry* shape, cnTransform pose,
                                      cnQueryFilter filter, cnOverlapFcn* fcn, void* context );

/// @}
