// SPDX-License-Identifier: MIT
// Scene queries: ray casts, shape casts and overlaps through the broadphase trees (cairn/query.h).
//
// The broadphase proxies hold fat boxes; a ray walks both trees (cnBroadPhase_RayCast) and every
// proxy it meets is tested exactly (collision/ray.c) at the shape's current pose. Planes sit on
// the broadphase's outsized list, which the walk scans after the trees. In a multisphere world a
// shape that collides as sub-spheres has no proxy of its own: the sub-spheres' proxies are skipped
// and such shapes are tested one by one after the walk (their exact geometry, not the spheres), so
// a query in a multisphere world costs a pass over the shape slots more (the baseline is for
// comparisons, not for games). Queries never write to the world.
//
// A shape cast asks the trees for the box that holds the cast shape's boxes at the start and at
// the end, checks each proxy's shape box grown by the cast shape's box against the sweep of the
// box's centre, and only then computes the exact time of impact (collision/shape_cast.c). A shape
// overlap asks the trees for the shape's box and decides each candidate exactly
// (cnShapesOverlap).

#include "cairn/query.h"

#include "ccd_support.h"
#include "contact.h"
#include "core.h"
#include "ray.h"
#include "shape_cast.h"
#include "world.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

cnQueryFilter cnDefaultQueryFilter( void )
{
    cnQueryFilter filter = { 1u, UINT32_MAX };
    return filter;
}

// a sensor is a volume that reports overlaps, not a solid: no query sees it
static bool cnFilterPasses( const cnShape* shape, cnQueryFilter filter )
{
    return shape->isSensor == false && ( shape->categoryBits & filter.maskBits ) != 0 &&
           ( shape->maskBits & filter.categoryBits ) != 0;
}

// What a cast's callback returned (cnRayHitFcn, cnShapeCastFcn), applied to the cast's maximum
// fraction: negative ignores the hit, 0 (or NaN) stops the cast, a value below the maximum clips it.
static double cnApplyCallbackValue( double value, double* maxFraction )
{
    if ( value < 0.0 )
    {
        return *maxFraction; // ignored
    }
    if ( !( value > 0.0 ) )
    {
        *maxFraction = 0.0; // stop (NaN too)
    }
    else if ( value < *maxFraction )
    {
        *maxFraction = value;
    }
    return *maxFraction;
}

static cnShapeId cnQueryShapeId( const cnWorld* world, int shapeIndex )
{
    cnShapeId id = { shapeIndex + 1, world->slot, world->shapes[shapeIndex].generation };
    return id;
}

static cnBodyId cnQueryBodyId( const cnWorld* world, int shapeIndex )
{
    int row = world->slots[world->shapes[shapeIndex].bodySlot].row;
    return world->bodies.id[row];
}

// the world of a query, or NULL with the status set
static const cnWorld* cnGetQueryWorld( cnWorldId worldId, const char* function, cnStatus* status )
{
    const cnWorld* world = cnGetWorld( worldId );
    if ( world == NULL )
    {
        *status = cn_statusInvalidId;
        return NULL;
    }
    if ( world->locked )
    {
        cnLogWorld( world, cn_logError, cn_statusWorldLocked, "%s: called from inside a step", function );
        *status = cn_statusWorldLocked;
        return NULL;
    }
    *status = cn_statusOk;
    return world;
}

// shapes that collide through sub-spheres (multisphere worlds): no proxy, tested one by one
static bool cnHasSubSpheres( const cnShape* shape )
{
    return shape->bodySlot != CN_NULL_INDEX && shape->firstChild != CN_NULL_INDEX;
}

// ---------------------------------------------------------------------------------------------
// rays

typedef struct cnRayQuery
{
    const cnWorld* world;
    cnVec3 origin;
    cnVec3 translation;
    cnQueryFilter filter;
    cnRayHitFcn* fcn;
    void* context;
    double maxFraction; // the ray's current end; 0 once a callback stopped the cast
} cnRayQuery;

// test one shape against the current end of the ray; returns it, updated (0: stop)
static double cnRayTestShape( cnRayQuery* query, int shapeIndex )
{
    const cnWorld* world = query->world;
    const cnShape* shape = world->shapes + shapeIndex;
    if ( cnFilterPasses( shape, query->filter ) == false )
    {
        return query->maxFraction;
    }
    cnCollisionShape placed = cnPlaceShape( world, shapeIndex );
    cnRayHitLocal local;
    if ( cnRayCastShape( &placed, query->origin, query->translation, query->maxFraction, &local ) == false )
    {
        return query->maxFraction;
    }
    cnRayHit hit;
    hit.shapeId = cnQueryShapeId( world, shapeIndex );
    hit.bodyId = cnQueryBodyId( world, shapeIndex );
    hit.point = cnMulAdd( query->origin, local.fraction, query->translation );
    hit.normal = local.normal;
    hit.fraction = local.fraction;
    hit.hit = true;
    return cnApplyCallbackValue( query->fcn( &hit, query->context ), &query->maxFraction );
}

static double cnRayProxyFcn( int proxyKey, int shapeIndex, double maxFraction, void* context )
{
    (void)proxyKey;
    (void)maxFraction; // the same as query->maxFraction
    cnRayQuery* query = context;
    if ( query->world->shapes[shapeIndex].parent != CN_NULL_INDEX )
    {
        return query->maxFraction; // a sub-sphere: its shape is tested on its own
    }
    return cnRayTestShape( query, shapeIndex );
}

cnStatus cnWorld_CastRay( cnWorldId worldId, cnVec3 origin, cnVec3 translation, cnQueryFilter filter,
                          cnRayHitFcn* fcn, void* context )
{
    cnStatus status;
    const cnWorld* world = cnGetQueryWorld( worldId, "cnWorld_CastRay", &status );
    if ( world == NULL )
    {
        return status;
    }
    if ( fcn == NULL )
    {
        cnLogWorld( world, cn_logError, cn_statusInvalidArgument, "cnWorld_CastRay: callback is NULL" );
        return cn_statusInvalidArgument;
    }
    if ( cnIsFiniteVec3( origin ) == false || cnIsFiniteVec3( translation ) == false )
    {
        cnLogWorld( world, cn_logError, cn_statusNonFinite,
                    "cnWorld_CastRay: origin (%g, %g, %g) or translation (%g, %g, %g) is not finite",
                    origin.x, origin.y, origin.z, translation.x, translation.y, translation.z );
        return cn_statusNonFinite;
    }
    if ( cnLengthSquared( translation ) == 0.0 )
    {
        return cn_statusOk;
    }

    cnRayQuery query = { world, origin, translation, filter, fcn, context, 1.0 };
    cnBroadPhase_RayCast( &world->contacts.broadPhase, origin, translation, 1.0, cnRayProxyFcn, &query );
    int scanCount = world->def.multisphere > 0 ? world->shapeSlotCount : 0;
    for ( int i = 0; i < scanCount && query.maxFraction > 0.0; ++i )
    {
        const cnShape* shape = world->shapes + i;
        if ( cnHasSubSpheres( shape ) )
        {
            cnCollisionShape placed = cnPlaceShape( world, i );
            if ( cnRayOverlapsAABB( cnComputeAABB( &placed ), origin, translation, query.maxFraction ) )
            {
                cnRayTestShape( &query, i );
            }
        }
    }
    return cn_statusOk;
}

static double cnClosestFcn( const cnRayHit* hit, void* context )
{
    cnRayHit* best = context;
    if ( best->hit == false || hit->fraction < best->fraction )
    {
        *best = *hit;
    }
    return hit->fraction;
}

cnStatus cnWorld_CastRayClosest( cnWorldId worldId, cnVec3 origin, cnVec3 translation, cnQueryFilter filter,
                                 cnRayHit* outHit )
{
    if ( outHit == NULL )
    {
        const cnWorld* world = cnGetWorld( worldId );
        if ( world != NULL )
        {
            cnLogWorld( world, cn_logError, cn_statusInvalidArgument,
                        "cnWorld_CastRayClosest: result is NULL" );
        }
        return world != NULL ? cn_statusInvalidArgument : cn_statusInvalidId;
    }
    cnRayHit best = { 0 };
    cnStatus status = cnWorld_CastRay( worldId, origin, translation, filter, cnClosestFcn, &best );
    *outHit = best;
    return status;
}

// ---------------------------------------------------------------------------------------------
// boxes

typedef struct cnOverlapQuery
{
    const cnWorld* world;
    cnAABB box;
    const cnCollisionShape* shape; // NULL: the box test alone (cnWorld_OverlapAABB)
    cnQueryFilter filter;
    cnOverlapFcn* fcn;
    void* context;
    bool stopped;
} cnOverlapQuery;

// false: stop
static bool cnOverlapTestShape( cnOverlapQuery* query, int shapeIndex )
{
    const cnWorld* world = query->world;
    if ( cnFilterPasses( world->shapes + shapeIndex, query->filter ) == false )
    {
        return true;
    }
    cnCollisionShape placed = cnPlaceShape( world, shapeIndex );
    if ( cnAABBOverlaps( cnComputeAABB( &placed ), query->box ) == false ||
         ( query->shape != NULL && cnShapesOverlap( query->shape, &placed ) == false ) )
    {
        return true;
    }
    if ( query->fcn( cnQueryShapeId( world, shapeIndex ), cnQueryBodyId( world, shapeIndex ),
                     query->context ) == false )
    {
        query->stopped = true;
        return false;
    }
    return true;
}

static bool cnOverlapProxyFcn( int proxyKey, int shapeIndex, void* context )
{
    (void)proxyKey;
    cnOverlapQuery* query = context;
    if ( query->world->shapes[shapeIndex].parent != CN_NULL_INDEX )
    {
        return true; // a sub-sphere: its shape is tested on its own
    }
    return cnOverlapTestShape( query, shapeIndex );
}

// the broadphase's candidates, then the shapes with sub-spheres (which the tree holds as spheres)
static void cnRunOverlapQuery( cnOverlapQuery* query )
{
    const cnWorld* world = query->world;
    cnBroadPhase_Query( &world->contacts.broadPhase, query->box, cnOverlapProxyFcn, query );
    int scanCount = world->def.multisphere > 0 ? world->shapeSlotCount : 0;
    for ( int i = 0; i < scanCount && query->stopped == false; ++i )
    {
        if ( cnHasSubSpheres( world->shapes + i ) )
        {
            cnOverlapTestShape( query, i );
        }
    }
}

cnStatus cnWorld_OverlapAABB( cnWorldId worldId, cnBounds box, cnQueryFilter filter, cnOverlapFcn* fcn,
                              void* context )
{
    cnStatus status;
    const cnWorld* world = cnGetQueryWorld( worldId, "cnWorld_OverlapAABB", &status );
    if ( world == NULL )
    {
        return status;
    }
    if ( fcn == NULL )
    {
        cnLogWorld( world, cn_logError, cn_statusInvalidArgument, "cnWorld_OverlapAABB: callback is NULL" );
        return cn_statusInvalidArgument;
    }
    if ( cnIsFiniteVec3( box.lower ) == false || cnIsFiniteVec3( box.upper ) == false )
    {
        cnLogWorld( world, cn_logError, cn_statusNonFinite, "cnWorld_OverlapAABB: box is not finite" );
        return cn_statusNonFinite;
    }
    if ( box.lower.x > box.upper.x || box.lower.y > box.upper.y || box.lower.z > box.upper.z )
    {
        cnLogWorld( world, cn_logError, cn_statusInvalidArgument,
                    "cnWorld_OverlapAABB: box is inverted (lower above upper)" );
        return cn_statusInvalidArgument;
    }

    cnOverlapQuery query = { world, { box.lower, box.upper }, NULL, filter, fcn, context, false };
    cnRunOverlapQuery( &query );
    return cn_statusOk;
}

// ---------------------------------------------------------------------------------------------
// shape casts and shape overlaps

// the query shape placed at its pose, or a status (logged) for a bad shape or pose
static cnStatus cnPlaceQueryShape( const cnWorld* world, const char* function, const cnGeometry* shape,
                                   cnTransform pose, cnCollisionShape* placed )
{
    if ( shape == NULL )
    {
        cnLogWorld( world, cn_logError, cn_statusInvalidArgument, "%s: shape is NULL", function );
        return cn_statusInvalidArgument;
    }
    if ( shape->type != cn_sphereShape && shape->type != cn_capsuleShape && shape->type != cn_boxShape )
    {
        cnLogWorld( world, cn_logError, cn_statusUnsupported,
                    "%s: shape type %d: a query shape is a sphere, a capsule or a box", function,
                    (int)shape->type );
        return cn_statusUnsupported;
    }
    char message[128];
    cnStatus status = cnValidateGeometry( shape, message, (int)sizeof( message ) );
    if ( status != cn_statusOk )
    {
        cnLogWorld( world, cn_logError, status, "%s: shape: %s", function, message );
        return status;
    }
    if ( cnIsFiniteVec3( pose.p ) == false || cnIsFiniteQuat( pose.q ) == false )
    {
        cnLogWorld( world, cn_logError, cn_statusNonFinite, "%s: pose is not finite", function );
        return cn_statusNonFinite;
    }
    if ( cnQuatLength( pose.q ) < 1e-12 )
    {
        cnLogWorld( world, cn_logError, cn_statusInvalidArgument,
                    "%s: pose: the zero quaternion is not a rotation", function );
        return cn_statusInvalidArgument;
    }
    placed->geometry = shape;
    placed->hull = NULL;
    placed->transform.p = pose.p;
    placed->transform.q = cnNormalizeQuat( pose.q );
    return cn_statusOk;
}

typedef struct cnShapeCastQuery
{
    const cnWorld* world;
    cnCollisionShape shape; // the cast shape at its start
    cnVec3 center;          // of its box
    cnVec3 extent;          // half the size of its box
    cnVec3 translation;
    cnQueryFilter filter;
    cnShapeCastFcn* fcn;
    void* context;
    double maxFraction; // the cast's current end; 0 once a callback stopped the cast
} cnShapeCastQuery;

static double cnShapeCastTestShape( cnShapeCastQuery* query, int shapeIndex )
{
    const cnWorld* world = query->world;
    const cnShape* shape = world->shapes + shapeIndex;
    if ( cnFilterPasses( shape, query->filter ) == false )
    {
        return query->maxFraction;
    }
    cnCollisionShape placed = cnPlaceShape( world, shapeIndex );
    // the box's centre swept against the shape's box grown by the cast shape's box
    cnAABB box = cnComputeAABB( &placed );
    box.lower = cnSub( box.lower, query->extent );
    box.upper = cnAdd( box.upper, query->extent );
    if ( cnRayOverlapsAABB( box, query->center, query->translation, query->maxFraction ) == false )
    {
        return query->maxFraction;
    }
    cnToiResult toi;
    if ( cnTimeOfImpact( &query->shape, query->translation, &placed, query->maxFraction, &toi ) == false )
    {
        return query->maxFraction;
    }
    cnShapeCastHit hit;
    hit.shapeId = cnQueryShapeId( world, shapeIndex );
    hit.bodyId = cnQueryBodyId( world, shapeIndex );
    hit.point = toi.point;
    hit.normal = cnNeg( toi.normal );
    hit.fraction = toi.fraction;
    hit.hit = true;
    return cnApplyCallbackValue( query->fcn( &hit, query->context ), &query->maxFraction );
}

static bool cnShapeCastProxyFcn( int proxyKey, int shapeIndex, void* context )
{
    (void)proxyKey;
    cnShapeCastQuery* query = context;
    if ( query->world->shapes[shapeIndex].parent != CN_NULL_INDEX )
    {
        return true; // a sub-sphere: its shape is tested on its own
    }
    return cnShapeCastTestShape( query, shapeIndex ) > 0.0;
}

cnStatus cnWorld_CastShape( cnWorldId worldId, const cnGeometry* shape, cnTransform pose, cnVec3 translation,
                            cnQueryFilter filter, cnShapeCastFcn* fcn, void* context )
{
    cnStatus status;
    const cnWorld* world = cnGetQueryWorld( worldId, "cnWorld_CastShape", &status );
    if ( world == NULL )
    {
        return status;
    }
    if ( fcn == NULL )
    {
        cnLogWorld( world, cn_logError, cn_statusInvalidArgument, "cnWorld_CastShape: callback is NULL" );
        return cn_statusInvalidArgument;
    }
    cnShapeCastQuery query;
    memset( &query, 0, sizeof( query ) );
    status = cnPlaceQueryShape( world, "cnWorld_CastShape", shape, pose, &query.shape );
    if ( status != cn_statusOk )
    {
        return status;
    }
    if ( cnIsFiniteVec3( translation ) == false )
    {
        cnLogWorld( world, cn_logError, cn_statusNonFinite,
                    "cnWorld_CastShape: translation (%g, %g, %g) is not finite", translation.x, translation.y,
                    translation.z );
        return cn_statusNonFinite;
    }

    query.world = world;
    query.translation = translation;
    query.filter = filter;
    query.fcn = fcn;
    query.context = context;
    query.maxFraction = 1.0;
    cnAABB start = cnComputeAABB( &query.shape );
    query.center = cnScale( 0.5, cnAdd( start.lower, start.upper ) );
    query.extent = cnScale( 0.5, cnSub( start.upper, start.lower ) );
    cnAABB end = { cnAdd( start.lower, translation ), cnAdd( start.upper, translation ) };
    cnAABB swept = cnAABBUnion( start, end );
    if ( cnAABB_IsValid( swept ) == false )
    {
        cnLogWorld( world, cn_logError, cn_statusNonFinite, "cnWorld_CastShape: the sweep overflows" );
        return cn_statusNonFinite;
    }
    cnBroadPhase_Query( &world->contacts.broadPhase, swept, cnShapeCastProxyFcn, &query );
    int scanCount = world->def.multisphere > 0 ? world->shapeSlotCount : 0;
    for ( int i = 0; i < scanCount && query.maxFraction > 0.0; ++i )
    {
        if ( cnHasSubSpheres( world->shapes + i ) )
        {
            cnShapeCastTestShape( &query, i );
        }
    }
    return cn_statusOk;
}

static double cnShapeCastClosestFcn( const cnShapeCastHit* hit, void* context )
{
    cnShapeCastHit* best = context;
    if ( best->hit == false || hit->fraction < best->fraction )
    {
        *best = *hit;
    }
    return hit->fraction;
}

cnStatus cnWorld_CastShapeClosest( cnWorldId worldId, const cnGeometry* shape, cnTransform pose,
                                   cnVec3 translation, cnQueryFilter filter, cnShapeCastHit* outHit )
{
    if ( outHit == NULL )
    {
        const cnWorld* world = cnGetWorld( worldId );
        if ( world != NULL )
        {
            cnLogWorld( world, cn_logError, cn_statusInvalidArgument,
                        "cnWorld_CastShapeClosest: result is NULL" );
        }
        return world != NULL ? cn_statusInvalidArgument : cn_statusInvalidId;
    }
    cnShapeCastHit best;
    memset( &best, 0, sizeof( best ) );
    cnStatus status =
        cnWorld_CastShape( worldId, shape, pose, translation, filter, cnShapeCastClosestFcn, &best );
    *outHit = best;
    return status;
}

cnStatus cnWorld_OverlapShape( cnWorldId worldId, const cnGeometry* shape, cnTransform pose,
                               cnQueryFilter filter, cnOverlapFcn* fcn, void* context )
{
    cnStatus status;
    const cnWorld* world = cnGetQueryWorld( worldId, "cnWorld_OverlapShape", &status );
    if ( world == NULL )
    {
        return status;
    }
    if ( fcn == NULL )
    {
        cnLogWorld( world, cn_logError, cn_statusInvalidArgument, "cnWorld_OverlapShape: callback is NULL" );
        return cn_statusInvalidArgument;
    }
    cnCollisionShape placed;
    status = cnPlaceQueryShape( world, "cnWorld_OverlapShape", shape, pose, &placed );
    if ( status != cn_statusOk )
    {
        return status;
    }
    cnOverlapQuery query = { world, cnComputeAABB( &placed ), &placed, filter, fcn, context, false };
    cnRunOverlapQuery( &query );
    return cn_statusOk;
}
