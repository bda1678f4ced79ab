// SPDX-License-Identifier: MIT
#include "cairn/types.h"

#include "core.h"

#include <string.h>

cnWorldDef cnDefaultWorldDef( void )
{
    cnWorldDef def;
    memset( &def, 0, sizeof( def ) );
    def.gravity = cnMakeVec3( 0.0, 0.0, -9.81 );
    def.dynamics = cn_dynamicsInertial;
    def.frictionModel = cn_frictionPyramid;
    def.viscosity = 1.0;
    def.timeStep = 1.0 / 60.0;
    def.substeps = 0;
    def.contactHertz = 70.0;
    def.relaxIterations = 3;
    def.maxLinearSpeed = 400.0;
    def.contactOverlapTolerance = 1e-5;
    def.contactMargin = 0.02;
    def.aabbMargin = 0.1;
    def.enableSleep = false;
    def.enableContinuous = true;
    def.enableJointProjection = true;
    def.hitEventThreshold = 1.0;
    memcpy( def.solver.name, "pgs", 4 );
    def.solver.iterations = 10;
    def.solver.tolerance = 1e-6;
    def.workerCount = 1;
    def.bodyCapacity = 16;
    def.internalValue = CN_SECRET_COOKIE;
    return def;
}

cnBodyDef cnDefaultBodyDef( void )
{
    cnBodyDef def;
    memset( &def, 0, sizeof( def ) );
    def.type = cn_dynamicBody;
    def.orientation = cn_quatIdentity;
    def.gravityScale = 1.0;
    def.constantForce = cn_vec3Zero;
    def.constantTorque = cn_vec3Zero;
    def.linearMobility = cn_mat3Identity;
    def.angularMobility = cn_mat3Identity;
    def.internalValue = CN_SECRET_COOKIE;
    return def;
}

cnMaterial cnDefaultMaterial( void )
{
    cnMaterial material = { 0.6, 0.0, 1000.0 };
    return material;
}

cnShapeDef cnDefaultShapeDef( void )
{
    cnShapeDef def;
    memset( &def, 0, sizeof( def ) );
    def.localPose = cn_transformIdentity;
    def.material = cnDefaultMaterial();
    def.categoryBits = 1;
    def.maskBits = UINT32_MAX;
    def.isSensor = false;
    def.enableHitEvents = false;
    def.internalValue = CN_SECRET_COOKIE;
    return def;
}

cnSystemDef cnDefaultSystemDef( void )
{
    cnSystemDef def;
    memset( &def, 0, sizeof( def ) );
    def.stage = cn_stageForces;
    def.internalValue = CN_SECRET_COOKIE;
    return def;
}

const char* cnShapeTypeName( cnShapeType type )
{
    static const char* const names[cn_shapeTypeCount] = {
        "sphere", "box", "capsule", "cylinder", "ellipsoid", "torus", "convex", "plane",
    };
    return (int)type >= 0 && type < cn_shapeTypeCount ? names[type] : "unknown";
}
