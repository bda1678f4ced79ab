// SPDX-License-Identifier: MIT
// Continuous collision for fast bodies against static shapes. The design is at the top of
// continuous.h.

#include "continuous.h"

#include "ccd_support.h"
#include "core.h"
#include "joint.h"
#include "shape_cast.h"
#include "world.h"

#include <float.h>
#include <string.h>

// The smallest extent of one placed geometry (its inner radius about `center`, shape frame), and
// that centre: where the core sphere goes.
static double cnGeometryMinExtent( const cnGeometry* geometry, cnVec3* center )
{
    *center = cn_vec3Zero;
    switch ( geometry->type )
    {
        case cn_sphereShape:
            return geometry->sphere.radius;
        case cn_boxShape:
        {
            cnVec3 h = geometry->box.halfExtents;
            return fmin( h.x, fmin( h.y, h.z ) );
        }
        case cn_capsuleShape:
            return geometry->capsule.radius;
        case cn_cylinderShape:
            return fmin( geometry->cylinder.radius, geometry->cylinder.halfLength );
        case cn_ellipsoidShape:
        {
            cnVec3 r = geometry->ellipsoid.radii;
            return fmin( r.x, fmin( r.y, r.z ) );
        }
        case cn_torusShape:
            // the tube: the core sphere sits on the core circle, not in the hole
            *center = cnMakeVec3( geometry->torus.majorRadius, 0.0, 0.0 );
            return geometry->torus.minorRadius;
        case cn_hullShape:
        {
            // the inradius about the vertex mean: the distance to the nearest face plane
            const cnHullPoints* hull = &geometry->hull;
            if ( hull->pointCount <= 0 )
            {
                return 0.0;
            }
            cnVec3 mean = cn_vec3Zero;
            for ( int i = 0; i < hull->pointCount; ++i )
            {
                mean = cnAdd( mean, hull->points[i] );
            }
            mean = cnScale( 1.0 / (double)hull->pointCount, mean );
            *center = mean;
            return -1.0; // the caller measures the faces (it has the triangles)
        }
        case cn_planeShape:
        default:
            return CN_HUGE;
    }
}

double cnShapeCore( const cnShape* shape, cnVec3* center )
{
    double extent = cnGeometryMinExtent( &shape->geometry, center );
    if ( extent >= 0.0 )
    {
        return extent;
    }
    extent = CN_HUGE;
    const cnHull* hull = shape->hull;
    for ( int t = 0; hull != NULL && t < hull->triangleCount; ++t )
    {
        cnVec3 a = hull->vertices[hull->triangles[3 * t]];
        cnVec3 b = hull->vertices[hull->triangles[3 * t + 1]];
        cnVec3 c = hull->vertices[hull->triangles[3 * t + 2]];
        cnVec3 n = cnCross( cnSub( b, a ), cnSub( c, a ) );
        double length = cnLength( n );
        if ( length > 0.0 )
        {
            extent = fmin( extent, cnDot( n, cnSub( a, *center ) ) / length );
        }
    }
    return fmax( extent, 0.0 );
}

double cnBodyMinExtent( const cnWorld* world, int row )
{
    double extent = CN_HUGE;
    for ( int index = cnFirstCollider( world, row ); index != CN_NULL_INDEX;
          index = cnNextCollider( world, index ) )
    {
        const cnShape* shape = world->shapes + index;
        if ( shape->isSensor == false )
        {
            extent = fmin( extent, shape->coreRadius );
        }
    }
    return extent;
}

// One fast shape's sweep against the static shapes the broadphase finds.
typedef struct cnSweepQuery
{
    cnWorld* world;
    const cnShape* shape; // the fast shape
    cnCollisionShape start;
    cnCollisionShape core; // the core sphere at the start
    cnVec3 translation;
    double gapFloor; // a touch of the whole shape counts from a start gap above this, m
    double fraction; // earliest counted touch so far (1: none)
    bool hit;
    int sweeps;
} cnSweepQuery;

static bool cnSweepProxyFcn( int proxyKey, int shapeIndex, void* context )
{
    (void)proxyKey;
    cnSweepQuery* query = context;
    cnWorld* world = query->world;
    const cnShape* other = world->shapes + shapeIndex;
    int otherRow = world->slots[other->bodySlot].row;
    if ( world->bodies.type[otherRow] != cn_staticBody || other->isSensor ||
         ( query->shape->categoryBits & other->maskBits ) == 0 ||
         ( other->categoryBits & query->shape->maskBits ) == 0 )
    {
        return true;
    }
    if ( world->jointCount > 0 && cnJointsFilterPair( world, query->shape->bodySlot, other->bodySlot ) )
    {
        return true;
    }
    cnCollisionShape placed = cnPlaceShape( world, shapeIndex );
    cnToiResult toi;
    query->sweeps += 1;
    if ( cnTimeOfImpact( &query->start, query->translation, &placed, query->fraction, &toi ) == false )
    {
        return true; // the whole shape does not touch: neither does its core
    }
    double gap = toi.initialOverlap ? 0.0 : toi.fraction * cnDot( query->translation, toi.normal );
    if ( gap > query->gapFloor )
    {
        query->fraction = toi.fraction;
        query->hit = true;
        return true;
    }
    // it started within the contact margin, where this substep's contact was trusted: only the
    // core's touch counts
    query->sweeps += 1;
    if ( cnTimeOfImpact( &query->core, query->translation, &placed, query->fraction, &toi ) &&
         toi.initialOverlap == false && toi.fraction > 0.0 )
    {
        query->fraction = toi.fraction;
        query->hit = true;
    }
    return true;
}

void cnSolveContinuous( cnWorld* world, const cnStepScratch* scratch )
{
    uint64_t ticks = cnGetTicks();
    cnBodyStore* b = &world->bodies;
    cnStepReport* report = &world->report;
    double margin = world->def.contactMargin;
    double gapFloor = fmax( margin, CN_CONTINUOUS_MIN_GAP );
    double safety = CN_CONTINUOUS_SAFETY_FRACTION * margin;

    // bodies held by a joint are left to the solver: putting one link of a ragdoll back on its own
    // pulls its joints apart (joint_ragdoll's landing opened them 23.6 mm with the pass, 15.1 mm
    // without); out of memory, every body is swept
    uint8_t* jointed = NULL;
    if ( world->jointCount > 0 )
    {
        jointed = cnArenaAlloc( &world->arena, (size_t)( b->count > 0 ? b->count : 1 ), 16 );
        if ( jointed != NULL )
        {
            memset( jointed, 0, (size_t)b->count );
            for ( int j = 0; j < world->jointSlotCount; ++j )
            {
                const cnJoint* joint = world->joints + j;
                if ( joint->bodySlotA != CN_NULL_INDEX )
                {
                    jointed[world->slots[joint->bodySlotA].row] = 1;
                    jointed[world->slots[joint->bodySlotB].row] = 1;
                }
            }
        }
    }

    for ( int row = 0; row < b->count; ++row )
    {
        if ( b->type[row] != cn_dynamicBody || cnIsBodyAsleep( b, row ) ||
             ( jointed != NULL && jointed[row] ) )
        {
            continue;
        }
        cnVec3 translation = cnSub( b->center[row], scratch->savedCenter[row] );
        double distanceSquared = cnLengthSquared( translation );
        if ( distanceSquared == 0.0 )
        {
            continue;
        }
        double threshold = CN_CONTINUOUS_FAST_FRACTION * cnBodyMinExtent( world, row );
        if ( !( distanceSquared > threshold * threshold ) )
        {
            continue; // slow (or not finite: the guards deal with that)
        }
        report->continuousBodies += 1;

        cnSweepQuery query;
        memset( &query, 0, sizeof( query ) );
        query.world = world;
        query.translation = translation;
        query.gapFloor = gapFloor;
        query.fraction = 1.0;
        for ( int index = cnFirstCollider( world, row ); index != CN_NULL_INDEX;
              index = cnNextCollider( world, index ) )
        {
            const cnShape* shape = world->shapes + index;
            if ( shape->isSensor )
            {
                continue; // a sensor stops nothing, and nothing stops it
            }
            // the shape at the end pose, moved back to where the centre started
            cnCollisionShape end = cnPlaceShape( world, index );
            query.shape = shape;
            query.start = end;
            query.start.transform.p = cnSub( end.transform.p, translation );

            cnGeometry coreGeometry;
            memset( &coreGeometry, 0, sizeof( coreGeometry ) );
            coreGeometry.type = cn_sphereShape;
            coreGeometry.sphere.radius = CN_CONTINUOUS_CORE_FRACTION * shape->coreRadius;
            query.core.geometry = &coreGeometry;
            query.core.hull = NULL;
            query.core.transform.q = query.start.transform.q;
            query.core.transform.p = cnTransformPoint( query.start.transform, shape->coreCenter );

            cnAABB endBox = cnComputeAABB( &end );
            cnAABB startBox = cnComputeAABB( &query.start );
            cnAABB swept = cnAABBUnion( startBox, endBox );
            if ( cnAABB_IsValid( swept ) == false || coreGeometry.sphere.radius <= 0.0 )
            {
                continue;
            }
            cnBroadPhase_QueryStatic( &world->contacts.broadPhase, swept, cnSweepProxyFcn, &query );
        }
        report->continuousSweeps += query.sweeps;
        if ( query.hit == false )
        {
            continue;
        }

        // back along the motion to the safety distance short of the touch; orientation and
        // velocities kept
        double fraction = fmax( 0.0, query.fraction - safety / sqrt( distanceSquared ) );
        cnVec3 center = cnMulAdd( scratch->savedCenter[row], fraction, translation );
        b->center[row] = center;
        b->transform[row].p = cnSub( center, cnRotate( b->transform[row].q, b->localCenter[row] ) );
        report->continuousHits += 1;
    }
    report->continuousMs += cnGetMilliseconds( ticks );
}

cnStatus cnWorld_EnableContinuous( cnWorldId worldId, bool enable )
{
    cnWorld* world = cnGetWorld( worldId );
    if ( world == NULL )
    {
        return cn_statusInvalidId;
    }
    if ( world->locked )
    {
        cnLogWorld( world, cn_logError, cn_statusWorldLocked,
                    "cnWorld_EnableContinuous: called from inside cnWorld_Step" );
        return cn_statusWorldLocked;
    }
    world->def.enableContinuous = enable;
    return cn_statusOk;
}

bool cnWorld_IsContinuousEnabled( cnWorldId worldId )
{
    cnWorld* world = cnGetWorld( worldId );
    return world != NULL && world->def.enableContinuous;
}
