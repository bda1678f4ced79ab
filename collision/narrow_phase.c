// SPDX-License-Identifier: MIT
// Narrowphase dispatch by shape-type pair (see narrow_phase.h).

#include "narrow_phase.h"

#include "ccd_support.h"
#include "closed_form.h"
#include "smooth.h"

#include <math.h>
#include <stddef.h>

// clang-format off
// Upper triangle only: the dispatcher swaps so that the row type <= the column type. NULL: no
// function (plane-plane never moves). Pairs with an ellipsoid, a capsule (except the capsule closed
// forms) or a torus go through the smooth-surface queries of smooth.c.
static cnCollideFcn* const cn_collideTable[cn_shapeTypeCount][cn_shapeTypeCount] = {
    /*              sphere            box                 capsule                 cylinder               ellipsoid              torus           hull                   plane                   */
    /* sphere    */ { cnCollideSpheres, cnCollideSphereBox, cnCollideSphereCapsule, cnCollideConvex,       cnCollideSmoothConvex, cnCollideTorus, cnCollideConvex,       cnCollideSpherePlane },
    /* box       */ { NULL,             cnCollideBoxes,     cnCollideBoxCapsule,    cnCollideConvex,       cnCollideSmoothConvex, cnCollideTorus, cnCollideConvex,       cnCollideBoxPlane },
    /* capsule   */ { NULL,             NULL,               cnCollideCapsules,      cnCollideSmoothConvex, cnCollideSmoothConvex, cnCollideTorus, cnCollideSmoothConvex, cnCollideCapsulePlane },
    /* cylinder  */ { NULL,             NULL,               NULL,                   cnCollideConvex,       cnCollideSmoothConvex, cnCollideTorus, cnCollideConvex,       cnCollideCylinderPlane },
    /* ellipsoid */ { NULL,             NULL,               NULL,                   NULL,                  cnCollideSmoothConvex, cnCollideTorus, cnCollideSmoothConvex, cnCollideEllipsoidPlane },
    /* torus     */ { NULL,             NULL,               NULL,                   NULL,                  NULL,                  cnCollideTorus, cnCollideTorus,        cnCollideTorus },
    /* hull      */ { NULL,             NULL,               NULL,                   NULL,                  NULL,                  NULL,           cnCollideConvex,       cnCollideHullPlane },
    /* plane     */ { NULL,             NULL,               NULL,                   NULL,                  NULL,                  NULL,           NULL,                  NULL },
};
// clang-format on

static cnCollideFcn* cnLookup( cnShapeType a, cnShapeType b )
{
    if ( (int)a < 0 || a >= cn_shapeTypeCount || (int)b < 0 || b >= cn_shapeTypeCount )
    {
        return NULL;
    }
    return a <= b ? cn_collideTable[a][b] : cn_collideTable[b][a];
}

bool cnIsCollisionSupported( cnShapeType a, cnShapeType b )
{
    return cnLookup( a, b ) != NULL;
}

// the same manifold seen from the other shape: normal reversed, surface points exchanged
static cnManifold cnFlipManifold( const cnManifold* m )
{
    cnManifold flipped = *m;
    flipped.normal = cnNeg( m->normal );
    for ( int i = 0; i < m->pointCount; ++i )
    {
        flipped.points[i].normal = cnNeg( m->points[i].normal );
        flipped.points[i].localA = m->points[i].localB;
        flipped.points[i].localB = m->points[i].localA;
        flipped.points[i].paramA = m->points[i].paramB;
        flipped.points[i].paramB = m->points[i].paramA;
    }
    return flipped;
}

static bool cnIsSaneManifold( const cnManifold* m )
{
    if ( m->pointCount < 0 || m->pointCount > CN_MAX_MANIFOLD_POINTS )
    {
        return false;
    }
    if ( m->pointCount == 0 )
    {
        return true;
    }
    if ( cnIsFiniteVec3( m->normal ) == false || fabs( cnLength( m->normal ) - 1.0 ) > 1e-6 )
    {
        return false;
    }
    for ( int i = 0; i < m->pointCount; ++i )
    {
        const cnManifoldPoint* p = m->points + i;
        if ( cnIsFiniteVec3( p->point ) == false || cnIsFiniteVec3( p->localA ) == false ||
             cnIsFiniteVec3( p->normal ) == false || fabs( cnLength( p->normal ) - 1.0 ) > 1e-6 ||
             cnIsFiniteVec3( p->localB ) == false || isfinite( p->separation ) == false )
        {
            return false;
        }
    }
    return true;
}

cnStatus cnCollide( const cnCollisionShape* a, const cnCollisionShape* b, double margin,
                    const cnManifold* previous, cnManifold* out )
{
    out->pointCount = 0;
    out->normal = cn_vec3Zero;
    out->perPointNormals = false;
    cnShapeType typeA = a->geometry->type;
    cnShapeType typeB = b->geometry->type;
    cnCollideFcn* collide = cnLookup( typeA, typeB );
    if ( collide == NULL )
    {
        return cn_statusUnsupported;
    }

    // call with the lower type first, and turn the answer back to the caller's order
    if ( typeA <= typeB )
    {
        collide( a, b, margin, previous, out );
    }
    else
    {
        cnManifold swappedPrevious;
        if ( previous != NULL )
        {
            swappedPrevious = cnFlipManifold( previous );
        }
        cnManifold swapped;
        swapped.pointCount = 0;
        swapped.perPointNormals = false;
        collide( b, a, margin, previous != NULL ? &swappedPrevious : NULL, &swapped );
        *out = cnFlipManifold( &swapped );
    }

    if ( out->perPointNormals == false )
    {
        for ( int i = 0; i < out->pointCount; ++i )
        {
            out->points[i].normal = out->normal;
        }
    }

    // a pair function that produced NaN or nonsense: no contact, and say so
    if ( cnIsSaneManifold( out ) == false )
    {
        out->pointCount = 0;
        out->normal = cn_vec3Zero;
        return cn_statusNonFinite;
    }
    return cn_statusOk;
}
