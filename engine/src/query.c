// SPDX-License-Identifier: MIT
// Scene queries: ray casts and box overlaps through the broadphase trees (cairn/query.h).
//
// The broadphase proxies hold fat boxes; a ray walks both trees (cnBroadPhase_RayCast) and every
// proxy it meets is tested exactly (collision/ray.c) at the shape's current pose. Planes sit on
// the broadphase's outsized list, which the walk scans after the trees. In a multisphere world a
// shape that collides as sub-spheres has no proxy of its own: the sub-spheres' proxies are skipped
// and such shapes are tested one by one after the walk (their exact geometry, not the spheres), so
// a query in a multisphere world costs a pass over the shape slots more (the baseline is for
// comparisons, not for games). Queries never write to the world.

#include "cairn/query.h"

#include "ccd_support.h"
#include "contact.h"
#include "core.h"
#include "ray.h"
#include "world.h"

#include <math.h>
#include <stddef.h>

cnQueryFilter cnDefaultQueryFilter( void )
{
    cnQueryFilter filter = { 1u, UINT32_MAX };
    return filter;
}

static bool cnFilterPasses( const cnShape* shape, cnQueryFilter filter )
{
    return ( shape->categoryBits & filter.maskBits ) != 0 && ( shape->maskBits & filter.categoryBits ) != 0;
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
    double value = query->fcn( &hit, query->context );
    if ( value < 0.0 )
    {
        return query->maxFraction; // ignored
    }
    if ( !( value > 0.0 ) )
    {
        query->maxFraction = 0.0; // stop (NaN too)
    }
    else if ( value < query->maxFraction )
    {
        query->maxFraction = value;
    }
    return query->maxFraction;
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
    if ( cnAABBOverlaps( cnComputeAABB( &placed ), query->box ) == false )
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

    cnOverlapQuery query = { world, { box.lower, box.upper }, filter, fcn, context, false };
    cnBroadPhase_Query( &world->contacts.broadPhase, query.box, cnOverlapProxyFcn, &query );
    int scanCount = world->def.multisphere > 0 ? world->shapeSlotCount : 0;
    for ( int i = 0; i < scanCount && query.stopped == false; ++i )
    {
        if ( cnHasSubSpheres( world->shapes + i ) )
        {
            cnOverlapTestShape( &query, i );
        }
    }
    return cn_statusOk;
}
