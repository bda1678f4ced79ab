// SPDX-License-Identifier: MIT
// Mouse picking: the ray through a pixel against the drawn meshes (exactly what is on screen),
// after a bounding-sphere test per shape. Dynamic bodies only: the others cannot be dragged.
#include "app.h"

#include <cglm/cglm.h>

#include <math.h>
#include <string.h>

void vwPixelRay( const vwApp* app, double x, double y, cnVec3* origin, cnVec3* direction )
{
    mat4 view, projection, viewProjection, inverse;
    memcpy( view, app->view, sizeof( view ) );
    memcpy( projection, app->projection, sizeof( projection ) );
    glm_mat4_mul( projection, view, viewProjection );
    glm_mat4_inv( viewProjection, inverse );
    float ndcX = (float)( 2.0 * x / ( app->width > 0 ? app->width : 1 ) - 1.0 );
    float ndcY = (float)( 1.0 - 2.0 * y / ( app->height > 0 ? app->height : 1 ) );
    vec4 nearPoint = { ndcX, ndcY, -1.0f, 1.0f }, farPoint = { ndcX, ndcY, 1.0f, 1.0f };
    vec4 a, b;
    glm_mat4_mulv( inverse, nearPoint, a );
    glm_mat4_mulv( inverse, farPoint, b );
    cnVec3 p0 = { a[0] / a[3], a[1] / a[3], a[2] / a[3] };
    cnVec3 p1 = { b[0] / b[3], b[1] / b[3], b[2] / b[3] };
    *origin = p0;
    *direction = cnNormalizeOr( cnSub( p1, p0 ), ( cnVec3 ){ 0.0, 0.0, -1.0 } );
}

// ray parameter of the first hit with a triangle (Moller-Trumbore), INFINITY when none
static double vwRayTriangle( cnVec3 origin, cnVec3 direction, cnVec3 a, cnVec3 b, cnVec3 c )
{
    cnVec3 e1 = cnSub( b, a ), e2 = cnSub( c, a );
    cnVec3 p = cnCross( direction, e2 );
    double det = cnDot( e1, p );
    if ( fabs( det ) < 1e-14 )
    {
        return INFINITY;
    }
    double inv = 1.0 / det;
    cnVec3 s = cnSub( origin, a );
    double u = cnDot( s, p ) * inv;
    if ( u < 0.0 || u > 1.0 )
    {
        return INFINITY;
    }
    cnVec3 q = cnCross( s, e1 );
    double v = cnDot( direction, q ) * inv;
    if ( v < 0.0 || u + v > 1.0 )
    {
        return INFINITY;
    }
    double t = cnDot( e2, q ) * inv;
    return t > 0.0 ? t : INFINITY;
}

bool vwPickBody( const vwApp* app, double x, double y, cnBodyId* bodyId, cnVec3* hit, double* depth )
{
    cnVec3 origin, direction;
    vwPixelRay( app, x, y, &origin, &direction );
    cnBodyArrays arrays = cnWorld_GetBodyArrays( app->worldId );
    if ( arrays.count != app->bodyCount )
    {
        return false;
    }
    double best = INFINITY;
    int bestBody = -1;
    for ( int s = 0; s < app->shapeCount; ++s )
    {
        const vwShapeView* view = app->shapes + s;
        if ( view->plane || view->mesh < 0 || arrays.types[view->bodyIndex] != cn_dynamicBody )
        {
            continue;
        }
        cnTransform world = cnMulTransforms( arrays.transforms[view->bodyIndex], view->localPose );
        // bounding sphere first
        cnVec3 toCenter = cnSub( world.p, origin );
        double along = cnDot( toCenter, direction );
        double miss = cnLengthSquared( toCenter ) - along * along;
        if ( miss > view->boundRadius * view->boundRadius || along + view->boundRadius < 0.0 )
        {
            continue;
        }
        // then the triangles, in the shape frame with the scale taken out (the ray parameter is the
        // same in both frames because the direction is mapped, not normalised)
        cnVec3 localOrigin = cnInvTransformPoint( world, origin );
        cnVec3 localDirection = cnInvRotate( world.q, direction );
        cnVec3 scale = { view->scale[0], view->scale[1], view->scale[2] };
        localOrigin = ( cnVec3 ){ localOrigin.x / scale.x, localOrigin.y / scale.y, localOrigin.z / scale.z };
        localDirection =
            ( cnVec3 ){ localDirection.x / scale.x, localDirection.y / scale.y, localDirection.z / scale.z };
        const vwMesh* mesh = &app->meshes[view->mesh].mesh;
        for ( int i = 0; i + 2 < mesh->indexCount; i += 3 )
        {
            cnVec3 corner[3];
            for ( int k = 0; k < 3; ++k )
            {
                const float* p = mesh->vertices[mesh->indices[i + k]].position;
                corner[k] = ( cnVec3 ){ p[0], p[1], p[2] };
            }
            double t = vwRayTriangle( localOrigin, localDirection, corner[0], corner[1], corner[2] );
            if ( t < best )
            {
                best = t;
                bestBody = view->bodyIndex;
            }
        }
    }
    if ( bestBody < 0 )
    {
        return false;
    }
    *bodyId = app->bodies[bestBody];
    *hit = cnMulAdd( origin, best, direction );
    *depth = best;
    return true;
}
