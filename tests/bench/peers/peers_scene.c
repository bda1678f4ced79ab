// SPDX-License-Identifier: MIT
// The peer drivers' scene reader and run (peers_scene.h). Reads the Cairn scene format
// (docs/scene-format.md) with cJSON, as far as the peers can follow it: every key is either read,
// accepted and ignored (Cairn's own numerics: its solver, substeps, margins), or refused with the
// file, the JSON path and the reason. Nothing is silently dropped that would change the physics.

#define _POSIX_C_SOURCE 200809L // clock_gettime

#include "peers_scene.h"

#include <cjson/cJSON.h>

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PEER_PI         3.14159265358979323846
#define PEER_COUNT( a ) ( (int)( sizeof( a ) / sizeof( ( a )[0] ) ) )

// ---------------------------------------------------------------------------------------------
// Small vector and quaternion helpers ([w, x, y, z])

static void QuatMul( const double a[4], const double b[4], double out[4] )
{
    double r[4] = {
        a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
        a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
        a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
        a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0],
    };
    memcpy( out, r, sizeof( r ) );
}

static void QuatNormalize( double q[4] )
{
    double n = sqrt( q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3] );
    for ( int i = 0; i < 4; ++i )
    {
        q[i] /= n;
    }
}

// v rotated by the unit quaternion q
static void QuatRotate( const double q[4], const double v[3], double out[3] )
{
    // t = 2 (u x v), out = v + w t + u x t, u the vector part
    const double* u = q + 1;
    double t[3] = { 2.0 * ( u[1] * v[2] - u[2] * v[1] ), 2.0 * ( u[2] * v[0] - u[0] * v[2] ),
                    2.0 * ( u[0] * v[1] - u[1] * v[0] ) };
    double r[3] = { v[0] + q[0] * t[0] + u[1] * t[2] - u[2] * t[1],
                    v[1] + q[0] * t[1] + u[2] * t[0] - u[0] * t[2],
                    v[2] + q[0] * t[2] + u[0] * t[1] - u[1] * t[0] };
    memcpy( out, r, sizeof( r ) );
}

// v rotated by the inverse of the unit quaternion q
static void QuatRotateInverse( const double q[4], const double v[3], double out[3] )
{
    double conjugate[4] = { q[0], -q[1], -q[2], -q[3] };
    QuatRotate( conjugate, v, out );
}

// ---------------------------------------------------------------------------------------------
// The generators' random numbers: splitmix64, the same sequence as engine/src/scene_generate.c

static uint64_t SplitMix( uint64_t* state )
{
    uint64_t z = ( *state += UINT64_C( 0x9E3779B97F4A7C15 ) );
    z = ( z ^ ( z >> 30 ) ) * UINT64_C( 0xBF58476D1CE4E5B9 );
    z = ( z ^ ( z >> 27 ) ) * UINT64_C( 0x94D049BB133111EB );
    return z ^ ( z >> 31 );
}

// uniform in [0, 1)
static double Uniform( uint64_t* state )
{
    return (double)( SplitMix( state ) >> 11 ) * 0x1.0p-53;
}

static double Symmetric( uint64_t* state, double half )
{
    return half * ( 2.0 * Uniform( state ) - 1.0 );
}

// A jitter offset. The engine builds it as cnMakeVec3( cnSymmetric(), cnSymmetric(), cnSymmetric() ),
// whose argument order C leaves to the compiler; gcc on x86-64 evaluates them last to first, so z
// takes the first number (checked against `cairn run --steps 0` in tests/bench/README.md).
static void Jitter( uint64_t* state, double half, double out[3] )
{
    out[2] = Symmetric( state, half );
    out[1] = Symmetric( state, half );
    out[0] = Symmetric( state, half );
}

// A rotation uniform over SO(3) (Shoemake's subgroup method), as the engine draws it.
static void RandomRotation( uint64_t* state, double q[4] )
{
    double u1 = Uniform( state );
    double u2 = 2.0 * PEER_PI * Uniform( state );
    double u3 = 2.0 * PEER_PI * Uniform( state );
    double a = sqrt( 1.0 - u1 );
    double b = sqrt( u1 );
    q[0] = b * cos( u3 );
    q[1] = a * sin( u2 );
    q[2] = a * cos( u2 );
    q[3] = b * sin( u3 );
    QuatNormalize( q );
}

// ---------------------------------------------------------------------------------------------
// The loader: errors name the file and the JSON path

typedef struct Material
{
    double friction;
    double restitution;
    double density;
} Material;

typedef struct Loader
{
    const char* file;
    char* message;
    int messageSize;
    const cJSON* materials; // nullable
    Material defaultMaterial;
    PeerScene* scene;
    int bodyCapacity;
    int shapeCapacity;
} Loader;

static bool Fail( Loader* L, const char* path, const char* format, ... )
{
    char text[400];
    va_list args;
    va_start( args, format );
    vsnprintf( text, sizeof( text ), format, args );
    va_end( args );
    snprintf( L->message, (size_t)L->messageSize, "%s: %s: %s", L->file, path[0] != 0 ? path : "(root)",
              text );
    return false;
}

// Paths: PATH.KEY and PATH[INDEX], cut short if they ever outgrow the buffer
#define PEER_PATH 320

static void Key( char out[PEER_PATH], const char* path, const char* key )
{
    if ( snprintf( out, PEER_PATH, "%s.%s", path, key ) >= PEER_PATH )
    {
        out[PEER_PATH - 1] = 0;
    }
}

static void Index( char out[PEER_PATH], const char* path, const char* key, int index )
{
    if ( snprintf( out, PEER_PATH, "%s.%s[%d]", path, key, index ) >= PEER_PATH )
    {
        out[PEER_PATH - 1] = 0;
    }
}

static bool ReadNumber( Loader* L, const cJSON* item, const char* path, double* out )
{
    if ( cJSON_IsNumber( item ) == false || isfinite( item->valuedouble ) == false )
    {
        return Fail( L, path, "expected a finite number" );
    }
    *out = item->valuedouble;
    return true;
}

static bool ReadInteger( Loader* L, const cJSON* item, const char* path, int low, int* out )
{
    if ( cJSON_IsNumber( item ) == false || floor( item->valuedouble ) != item->valuedouble ||
         item->valuedouble < (double)low || item->valuedouble > 1.0e8 )
    {
        return Fail( L, path, "expected an integer >= %d", low );
    }
    *out = (int)item->valuedouble;
    return true;
}

static bool ReadNumbers( Loader* L, const cJSON* item, const char* path, int count, double* out )
{
    if ( cJSON_IsArray( item ) == false || cJSON_GetArraySize( item ) != count )
    {
        return Fail( L, path, "expected an array of %d numbers", count );
    }
    for ( int i = 0; i < count; ++i )
    {
        const cJSON* element = cJSON_GetArrayItem( item, i );
        if ( cJSON_IsNumber( element ) == false || isfinite( element->valuedouble ) == false )
        {
            return Fail( L, path, "expected an array of %d finite numbers", count );
        }
        out[i] = element->valuedouble;
    }
    return true;
}

static bool ReadQuat( Loader* L, const cJSON* item, const char* path, double q[4] )
{
    if ( ReadNumbers( L, item, path, 4, q ) == false )
    {
        return false;
    }
    if ( q[0] == 0.0 && q[1] == 0.0 && q[2] == 0.0 && q[3] == 0.0 )
    {
        return Fail( L, path, "a quaternion [w, x, y, z] must not be all zero" );
    }
    QuatNormalize( q );
    return true;
}

static bool InList( const char* key, const char* const* list, int count )
{
    for ( int i = 0; i < count; ++i )
    {
        if ( strcmp( key, list[i] ) == 0 )
        {
            return true;
        }
    }
    return false;
}

// Every key of `object` must be one the drivers read or one they may ignore.
static bool CheckKeys( Loader* L, const cJSON* object, const char* path, const char* const* read,
                       int readCount, const char* const* ignored, int ignoredCount )
{
    const cJSON* item = NULL;
    cJSON_ArrayForEach( item, object )
    {
        if ( InList( item->string, read, readCount ) == false &&
             InList( item->string, ignored, ignoredCount ) == false )
        {
            return Fail( L, path, "key \"%s\" is not supported by the peer drivers", item->string );
        }
    }
    return true;
}

static bool ReadMaterialObject( Loader* L, const cJSON* object, const char* path, Material* out )
{
    static const char* const keys[] = { "friction", "restitution", "density" };
    if ( cJSON_IsObject( object ) == false )
    {
        return Fail( L, path, "expected a material object" );
    }
    if ( CheckKeys( L, object, path, keys, PEER_COUNT( keys ), NULL, 0 ) == false )
    {
        return false;
    }
    // missing fields take the engine's default material, as in the engine
    out->friction = 0.6;
    out->restitution = 0.0;
    out->density = 1000.0;
    double* fields[] = { &out->friction, &out->restitution, &out->density };
    for ( int i = 0; i < PEER_COUNT( keys ); ++i )
    {
        const cJSON* item = cJSON_GetObjectItemCaseSensitive( object, keys[i] );
        char sub[PEER_PATH];
        Key( sub, path, keys[i] );
        if ( item != NULL && ReadNumber( L, item, sub, fields[i] ) == false )
        {
            return false;
        }
        if ( *fields[i] < 0.0 || ( i == 1 && *fields[i] > 1.0 ) )
        {
            return Fail( L, sub, "out of range" );
        }
    }
    return true;
}

static bool ReadShapeMaterial( Loader* L, const cJSON* item, const char* path, Material* out )
{
    if ( item == NULL )
    {
        *out = L->defaultMaterial;
        return true;
    }
    if ( cJSON_IsString( item ) )
    {
        const cJSON* named =
            L->materials != NULL ? cJSON_GetObjectItemCaseSensitive( L->materials, item->valuestring ) : NULL;
        if ( named == NULL )
        {
            return Fail( L, path, "no material named \"%s\"", item->valuestring );
        }
        char sub[PEER_PATH];
        snprintf( sub, sizeof( sub ), "materials.%s", item->valuestring );
        return ReadMaterialObject( L, named, sub, out );
    }
    return ReadMaterialObject( L, item, path, out );
}

static bool PushShape( Loader* L, const PeerShape* shape )
{
    PeerScene* s = L->scene;
    if ( s->shapeCount == L->shapeCapacity )
    {
        int capacity = L->shapeCapacity > 0 ? 2 * L->shapeCapacity : 64;
        PeerShape* grown = realloc( s->shapes, (size_t)capacity * sizeof( PeerShape ) );
        if ( grown == NULL )
        {
            return Fail( L, "", "out of memory" );
        }
        s->shapes = grown;
        L->shapeCapacity = capacity;
    }
    s->shapes[s->shapeCount++] = *shape;
    return true;
}

static bool PushBody( Loader* L, const PeerBody* body )
{
    PeerScene* s = L->scene;
    if ( s->bodyCount == L->bodyCapacity )
    {
        int capacity = L->bodyCapacity > 0 ? 2 * L->bodyCapacity : 64;
        PeerBody* grown = realloc( s->bodies, (size_t)capacity * sizeof( PeerBody ) );
        if ( grown == NULL )
        {
            return Fail( L, "", "out of memory" );
        }
        s->bodies = grown;
        L->bodyCapacity = capacity;
    }
    s->bodies[s->bodyCount++] = *body;
    return true;
}

// One shape, appended to the scene's shapes. The plane keeps its body-frame normal and offset
// here; FinishBody moves it to the world frame once the body's pose is known.
static bool ReadShape( Loader* L, const cJSON* object, const char* path, bool dynamic )
{
    static const char* const keys[] = { "type",        "material",     "position", "orientation", "radius",
                                        "half_length", "half_extents", "normal",   "offset",      "sensor" };
    static const char* const ignored[] = { "hit_events" };
    if ( cJSON_IsObject( object ) == false )
    {
        return Fail( L, path, "expected a shape object" );
    }
    char sub[PEER_PATH];
    const cJSON* type = cJSON_GetObjectItemCaseSensitive( object, "type" );
    Key( sub, path, "type" );
    if ( cJSON_IsString( type ) == false )
    {
        return Fail( L, sub, "expected a shape type (a string)" );
    }
    PeerShape shape;
    memset( &shape, 0, sizeof( shape ) );
    shape.orientation[0] = 1.0;
    // the keys each type reads
    const char* own[3] = { NULL, NULL, NULL };
    if ( strcmp( type->valuestring, "sphere" ) == 0 )
    {
        shape.type = peer_sphere;
        own[0] = "radius";
    }
    else if ( strcmp( type->valuestring, "box" ) == 0 )
    {
        shape.type = peer_box;
        own[0] = "half_extents";
    }
    else if ( strcmp( type->valuestring, "capsule" ) == 0 )
    {
        shape.type = peer_capsule;
        own[0] = "radius";
        own[1] = "half_length";
    }
    else if ( strcmp( type->valuestring, "plane" ) == 0 )
    {
        shape.type = peer_plane;
        own[0] = "normal";
        own[1] = "offset";
    }
    else
    {
        return Fail( L, sub,
                     "shape type \"%s\" is not supported by the peer drivers (they take sphere, box, "
                     "capsule and plane)",
                     type->valuestring );
    }
    if ( CheckKeys( L, object, path, keys, PEER_COUNT( keys ), ignored, PEER_COUNT( ignored ) ) == false )
    {
        return false;
    }
    for ( int i = 4; i < 9; ++i )
    {
        bool mine = ( own[0] != NULL && strcmp( keys[i], own[0] ) == 0 ) ||
                    ( own[1] != NULL && strcmp( keys[i], own[1] ) == 0 );
        if ( mine == false && cJSON_GetObjectItemCaseSensitive( object, keys[i] ) != NULL )
        {
            return Fail( L, path, "a %s has no \"%s\"", type->valuestring, keys[i] );
        }
    }

    const cJSON* item = cJSON_GetObjectItemCaseSensitive( object, "sensor" );
    if ( item != NULL && cJSON_IsFalse( item ) == false )
    {
        Key( sub, path, "sensor" );
        return Fail( L, sub, "sensors are not supported by the peer drivers" );
    }
    item = cJSON_GetObjectItemCaseSensitive( object, "position" );
    Key( sub, path, "position" );
    if ( item != NULL && ReadNumbers( L, item, sub, 3, shape.position ) == false )
    {
        return false;
    }
    item = cJSON_GetObjectItemCaseSensitive( object, "orientation" );
    Key( sub, path, "orientation" );
    if ( item != NULL && ReadQuat( L, item, sub, shape.orientation ) == false )
    {
        return false;
    }

    switch ( shape.type )
    {
        case peer_sphere:
        case peer_capsule:
        {
            Key( sub, path, "radius" );
            item = cJSON_GetObjectItemCaseSensitive( object, "radius" );
            if ( item == NULL )
            {
                return Fail( L, sub, "missing" );
            }
            if ( ReadNumber( L, item, sub, &shape.radius ) == false )
            {
                return false;
            }
            if ( shape.radius <= 0.0 )
            {
                return Fail( L, sub, "must be positive" );
            }
            if ( shape.type == peer_capsule )
            {
                Key( sub, path, "half_length" );
                item = cJSON_GetObjectItemCaseSensitive( object, "half_length" );
                if ( item == NULL )
                {
                    return Fail( L, sub, "missing" );
                }
                if ( ReadNumber( L, item, sub, &shape.halfLength ) == false )
                {
                    return false;
                }
                if ( shape.halfLength < 0.0 )
                {
                    return Fail( L, sub, "must not be negative" );
                }
            }
            break;
        }
        case peer_box:
        {
            Key( sub, path, "half_extents" );
            item = cJSON_GetObjectItemCaseSensitive( object, "half_extents" );
            if ( item == NULL )
            {
                return Fail( L, sub, "missing" );
            }
            if ( ReadNumbers( L, item, sub, 3, shape.halfExtents ) == false )
            {
                return false;
            }
            if ( shape.halfExtents[0] <= 0.0 || shape.halfExtents[1] <= 0.0 || shape.halfExtents[2] <= 0.0 )
            {
                return Fail( L, sub, "must be positive" );
            }
            break;
        }
        case peer_plane:
        {
            if ( dynamic )
            {
                return Fail( L, path, "a plane belongs to a static body" );
            }
            Key( sub, path, "normal" );
            item = cJSON_GetObjectItemCaseSensitive( object, "normal" );
            if ( item == NULL )
            {
                return Fail( L, sub, "missing" );
            }
            if ( ReadNumbers( L, item, sub, 3, shape.normal ) == false )
            {
                return false;
            }
            double length = sqrt( shape.normal[0] * shape.normal[0] + shape.normal[1] * shape.normal[1] +
                                  shape.normal[2] * shape.normal[2] );
            if ( length == 0.0 )
            {
                return Fail( L, sub, "must not be all zero" );
            }
            Key( sub, path, "offset" );
            item = cJSON_GetObjectItemCaseSensitive( object, "offset" );
            if ( item != NULL && ReadNumber( L, item, sub, &shape.offset ) == false )
            {
                return false;
            }
            // the engine stores a unit normal: [0, 0, 2] with offset 1 is the plane z = 0.5
            for ( int i = 0; i < 3; ++i )
            {
                shape.normal[i] /= length;
            }
            shape.offset /= length;
            break;
        }
    }

    Material material;
    Key( sub, path, "material" );
    if ( ReadShapeMaterial( L, cJSON_GetObjectItemCaseSensitive( object, "material" ), sub, &material ) ==
         false )
    {
        return false;
    }
    shape.friction = material.friction;
    shape.restitution = material.restitution;
    shape.density = material.density;
    return PushShape( L, &shape );
}

// A body object (or a generator's template, which has no name and no position) into `body`,
// its shapes appended to the scene's. Pose-dependent parts wait for FinishBody.
static bool ReadBody( Loader* L, const cJSON* object, const char* path, bool isTemplate, PeerBody* body )
{
    static const char* const keys[] = { "name",
                                        "type",
                                        "position",
                                        "orientation",
                                        "linear_velocity",
                                        "angular_velocity",
                                        "shapes",
                                        "linear_damping",
                                        "angular_damping",
                                        "gravity_scale",
                                        "force",
                                        "torque",
                                        "fixed_rotation" };
    // "bullet" asks the engine for continuous collision, "mobility" matters to overdamped worlds only
    static const char* const ignored[] = { "bullet", "mobility" };
    if ( cJSON_IsObject( object ) == false )
    {
        return Fail( L, path, "expected a body object" );
    }
    if ( CheckKeys( L, object, path, keys, PEER_COUNT( keys ), ignored, PEER_COUNT( ignored ) ) == false )
    {
        return false;
    }
    memset( body, 0, sizeof( *body ) );
    body->orientation[0] = 1.0;
    body->dynamic = true;
    char sub[PEER_PATH];

    const cJSON* item = cJSON_GetObjectItemCaseSensitive( object, "name" );
    if ( item != NULL )
    {
        Key( sub, path, "name" );
        if ( isTemplate )
        {
            return Fail( L, sub, "a template body has no name: the generator sets it" );
        }
        if ( cJSON_IsString( item ) == false || strlen( item->valuestring ) >= sizeof( body->name ) )
        {
            return Fail( L, sub, "expected a name of at most 63 bytes" );
        }
        snprintf( body->name, sizeof( body->name ), "%s", item->valuestring );
    }
    item = cJSON_GetObjectItemCaseSensitive( object, "type" );
    if ( item != NULL )
    {
        Key( sub, path, "type" );
        if ( cJSON_IsString( item ) && strcmp( item->valuestring, "static" ) == 0 )
        {
            body->dynamic = false;
        }
        else if ( cJSON_IsString( item ) && strcmp( item->valuestring, "kinematic" ) == 0 )
        {
            return Fail( L, sub, "kinematic bodies are not supported by the peer drivers" );
        }
        else if ( cJSON_IsString( item ) == false || strcmp( item->valuestring, "dynamic" ) != 0 )
        {
            return Fail( L, sub, "expected \"static\", \"kinematic\" or \"dynamic\"" );
        }
    }
    item = cJSON_GetObjectItemCaseSensitive( object, "position" );
    if ( item != NULL )
    {
        Key( sub, path, "position" );
        if ( isTemplate )
        {
            return Fail( L, sub, "a template body has no position: the generator sets it" );
        }
        if ( ReadNumbers( L, item, sub, 3, body->position ) == false )
        {
            return false;
        }
    }
    item = cJSON_GetObjectItemCaseSensitive( object, "orientation" );
    Key( sub, path, "orientation" );
    if ( item != NULL && ReadQuat( L, item, sub, body->orientation ) == false )
    {
        return false;
    }
    item = cJSON_GetObjectItemCaseSensitive( object, "linear_velocity" );
    Key( sub, path, "linear_velocity" );
    if ( item != NULL && ReadNumbers( L, item, sub, 3, body->linearVelocity ) == false )
    {
        return false;
    }
    item = cJSON_GetObjectItemCaseSensitive( object, "angular_velocity" );
    Key( sub, path, "angular_velocity" );
    if ( item != NULL && ReadNumbers( L, item, sub, 3, body->angularVelocity ) == false )
    {
        return false;
    }
    if ( body->dynamic == false )
    {
        // static bodies do not move
        memset( body->linearVelocity, 0, sizeof( body->linearVelocity ) );
        memset( body->angularVelocity, 0, sizeof( body->angularVelocity ) );
    }

    // keys the drivers take only at their neutral value
    static const char* const neutralScalars[] = { "linear_damping", "angular_damping", "gravity_scale" };
    static const double neutralValues[] = { 0.0, 0.0, 1.0 };
    for ( int i = 0; i < PEER_COUNT( neutralScalars ); ++i )
    {
        item = cJSON_GetObjectItemCaseSensitive( object, neutralScalars[i] );
        Key( sub, path, neutralScalars[i] );
        double value = neutralValues[i];
        if ( item != NULL && ReadNumber( L, item, sub, &value ) == false )
        {
            return false;
        }
        if ( value != neutralValues[i] )
        {
            return Fail( L, sub, "the peer drivers take only %g here", neutralValues[i] );
        }
    }
    static const char* const neutralVectors[] = { "force", "torque" };
    for ( int i = 0; i < PEER_COUNT( neutralVectors ); ++i )
    {
        item = cJSON_GetObjectItemCaseSensitive( object, neutralVectors[i] );
        Key( sub, path, neutralVectors[i] );
        double value[3] = { 0.0, 0.0, 0.0 };
        if ( item != NULL && ReadNumbers( L, item, sub, 3, value ) == false )
        {
            return false;
        }
        if ( value[0] != 0.0 || value[1] != 0.0 || value[2] != 0.0 )
        {
            return Fail( L, sub, "constant forces and torques are not supported by the peer drivers" );
        }
    }
    item = cJSON_GetObjectItemCaseSensitive( object, "fixed_rotation" );
    if ( item != NULL && cJSON_IsFalse( item ) == false )
    {
        Key( sub, path, "fixed_rotation" );
        return Fail( L, sub, "fixed_rotation is not supported by the peer drivers" );
    }

    const cJSON* shapes = cJSON_GetObjectItemCaseSensitive( object, "shapes" );
    Key( sub, path, "shapes" );
    if ( shapes != NULL && cJSON_IsArray( shapes ) == false )
    {
        return Fail( L, sub, "expected an array of shapes" );
    }
    body->firstShape = L->scene->shapeCount;
    int index = 0;
    const cJSON* shape = NULL;
    cJSON_ArrayForEach( shape, shapes )
    {
        char shapePath[PEER_PATH];
        Index( shapePath, path, "shapes", index );
        if ( ReadShape( L, shape, shapePath, body->dynamic ) == false )
        {
            return false;
        }
        index += 1;
    }
    body->shapeCount = index;

    if ( body->dynamic )
    {
        if ( body->shapeCount != 1 )
        {
            return Fail( L, sub,
                         "the peer drivers take dynamic bodies of exactly one shape (this one has %d)",
                         body->shapeCount );
        }
        const PeerShape* s = L->scene->shapes + body->firstShape;
        if ( s->position[0] != 0.0 || s->position[1] != 0.0 || s->position[2] != 0.0 ||
             s->orientation[0] != 1.0 )
        {
            return Fail( L, sub,
                         "the peer drivers take a dynamic body's shape only at the body origin, unturned" );
        }
        // mass and principal moments about the centre, density x volume
        double rho = s->density;
        double m = 0.0;
        switch ( s->type )
        {
            case peer_sphere:
                m = rho * 4.0 / 3.0 * PEER_PI * s->radius * s->radius * s->radius;
                body->inertia[0] = body->inertia[1] = body->inertia[2] = 0.4 * m * s->radius * s->radius;
                break;
            case peer_box:
            {
                const double* h = s->halfExtents;
                m = rho * 8.0 * h[0] * h[1] * h[2];
                body->inertia[0] = m / 3.0 * ( h[1] * h[1] + h[2] * h[2] );
                body->inertia[1] = m / 3.0 * ( h[0] * h[0] + h[2] * h[2] );
                body->inertia[2] = m / 3.0 * ( h[0] * h[0] + h[1] * h[1] );
                break;
            }
            case peer_capsule:
            {
                // a cylinder of length l and two hemispheres; each hemisphere's centroid is 3r/8 off
                // its flat face, so about the capsule's centre it adds m_h (2r^2/5 + l^2/4 + 3lr/8)
                double r = s->radius;
                double l = 2.0 * s->halfLength;
                double cylinder = rho * PEER_PI * r * r * l;
                double spheres = rho * 4.0 / 3.0 * PEER_PI * r * r * r;
                m = cylinder + spheres;
                double across = cylinder * ( l * l / 12.0 + r * r / 4.0 ) +
                                spheres * ( 0.4 * r * r + l * l / 4.0 + 3.0 * l * r / 8.0 );
                body->inertia[0] = body->inertia[1] = across;
                body->inertia[2] = cylinder * r * r / 2.0 + spheres * 0.4 * r * r;
                break;
            }
            case peer_plane:
                break;
        }
        body->mass = m;
        if ( !( m > 0.0 ) )
        {
            return Fail( L, sub, "a dynamic body needs a positive mass (its material's density is 0)" );
        }
    }
    return true;
}

// Once the body's pose is set: planes to the world frame, and the body into the scene.
static bool FinishBody( Loader* L, PeerBody* body )
{
    for ( int k = 0; k < body->shapeCount; ++k )
    {
        PeerShape* s = L->scene->shapes + body->firstShape + k;
        if ( s->type != peer_plane )
        {
            continue;
        }
        double point[3] = { s->normal[0] * s->offset, s->normal[1] * s->offset, s->normal[2] * s->offset };
        double n[3];
        double p[3];
        QuatRotate( s->orientation, s->normal, n );
        QuatRotate( s->orientation, point, p );
        for ( int i = 0; i < 3; ++i )
        {
            p[i] += s->position[i];
        }
        QuatRotate( body->orientation, n, s->normal );
        QuatRotate( body->orientation, p, point );
        s->offset = 0.0;
        for ( int i = 0; i < 3; ++i )
        {
            s->offset += s->normal[i] * ( point[i] + body->position[i] );
        }
    }
    if ( body->dynamic )
    {
        L->scene->dynamicCount += 1;
    }
    return PushBody( L, body );
}

// ---------------------------------------------------------------------------------------------
// Generators: pyramid, grid and random_pile, placed exactly as engine/src/scene_generate.c does

static int CellsAlong( double low, double high, double spacing )
{
    double cells = floor( ( high - low ) / spacing ) + 1.0;
    return cells > 1.0e6 ? 1000000 : (int)cells;
}

static int GreatestCommonDivisor( int a, int b )
{
    while ( b != 0 )
    {
        int t = a % b;
        a = b;
        b = t;
    }
    return a;
}

typedef struct Pose
{
    double p[3];
    double q[4];
} Pose;

static bool ReadSeed( Loader* L, const cJSON* object, const char* path, uint64_t* seed )
{
    const cJSON* item = cJSON_GetObjectItemCaseSensitive( object, "seed" );
    *seed = 1;
    if ( item == NULL )
    {
        return true;
    }
    char sub[PEER_PATH];
    Key( sub, path, "seed" );
    if ( cJSON_IsNumber( item ) == false || item->valuedouble < 0.0 ||
         item->valuedouble > 9007199254740992.0 || floor( item->valuedouble ) != item->valuedouble )
    {
        return Fail( L, sub, "expected a non-negative integer seed" );
    }
    *seed = (uint64_t)item->valuedouble;
    return true;
}

static bool ReadOptionalVec3( Loader* L, const cJSON* object, const char* key, const char* path,
                              double out[3] )
{
    const cJSON* item = cJSON_GetObjectItemCaseSensitive( object, key );
    char sub[PEER_PATH];
    Key( sub, path, key );
    return item == NULL || ReadNumbers( L, item, sub, 3, out );
}

static const cJSON* Required( Loader* L, const cJSON* object, const char* key, const char* path )
{
    const cJSON* item = cJSON_GetObjectItemCaseSensitive( object, key );
    if ( item == NULL )
    {
        char sub[PEER_PATH];
        Key( sub, path, key );
        Fail( L, sub, "missing" );
    }
    return item;
}

// The generators' poses, each malloc'd into *poses, *count of them.
static bool PyramidPoses( Loader* L, const cJSON* object, const char* path, Pose** poses, int* count )
{
    char sub[PEER_PATH];
    double origin[3] = { 0.0, 0.0, 0.0 };
    static const char* const keys[] = { "type", "name", "body", "rows", "spacing", "origin" };
    int rows = 0;
    double pitch[2];
    const cJSON* item = NULL;
    if ( CheckKeys( L, object, path, keys, PEER_COUNT( keys ), NULL, 0 ) == false ||
         ( item = Required( L, object, "rows", path ) ) == NULL )
    {
        return false;
    }
    Key( sub, path, "rows" );
    if ( ReadInteger( L, item, sub, 1, &rows ) == false || rows > 20000 ||
         ( item = Required( L, object, "spacing", path ) ) == NULL )
    {
        return rows > 20000 ? Fail( L, sub, "at most 20000" ) : false;
    }
    Key( sub, path, "spacing" );
    if ( ReadNumbers( L, item, sub, 2, pitch ) == false ||
         ReadOptionalVec3( L, object, "origin", path, origin ) == false )
    {
        return false;
    }
    *count = rows * ( rows + 1 ) / 2;
    *poses = calloc( (size_t)*count, sizeof( Pose ) );
    if ( *poses == NULL )
    {
        return Fail( L, path, "out of memory" );
    }
    // row r (0 at the bottom) holds rows - r bodies, centred over the row below
    int k = 0;
    for ( int r = 0; r < rows; ++r )
    {
        int inRow = rows - r;
        for ( int i = 0; i < inRow; ++i )
        {
            Pose* pose = *poses + k++;
            pose->p[0] = origin[0] + ( (double)i - 0.5 * ( inRow - 1 ) ) * pitch[0];
            pose->p[1] = origin[1];
            pose->p[2] = origin[2] + r * pitch[1];
            pose->q[0] = 1.0;
        }
    }
    return true;
}

static bool GridPoses( Loader* L, const cJSON* object, const char* path, Pose** poses, int* count )
{
    char sub[PEER_PATH];
    double origin[3] = { 0.0, 0.0, 0.0 };
    uint64_t state = 1;
    static const char* const keys[] = { "type",    "name",   "body",   "count",
                                        "spacing", "origin", "jitter", "seed" };
    double counts[3];
    double spacing[3];
    double jitter = 0.0;
    const cJSON* item = NULL;
    if ( CheckKeys( L, object, path, keys, PEER_COUNT( keys ), NULL, 0 ) == false ||
         ( item = Required( L, object, "count", path ) ) == NULL )
    {
        return false;
    }
    Key( sub, path, "count" );
    if ( ReadNumbers( L, item, sub, 3, counts ) == false )
    {
        return false;
    }
    for ( int i = 0; i < 3; ++i )
    {
        if ( counts[i] < 1.0 || floor( counts[i] ) != counts[i] )
        {
            return Fail( L, sub, "expected [nx, ny, nz] (3 positive integers)" );
        }
    }
    if ( counts[0] * counts[1] * counts[2] > 1.0e7 )
    {
        return Fail( L, sub, "too many bodies for the peer drivers" );
    }
    if ( ( item = Required( L, object, "spacing", path ) ) == NULL )
    {
        return false;
    }
    Key( sub, path, "spacing" );
    if ( ReadNumbers( L, item, sub, 3, spacing ) == false ||
         ReadOptionalVec3( L, object, "origin", path, origin ) == false ||
         ReadSeed( L, object, path, &state ) == false )
    {
        return false;
    }
    item = cJSON_GetObjectItemCaseSensitive( object, "jitter" );
    Key( sub, path, "jitter" );
    if ( item != NULL && ReadNumber( L, item, sub, &jitter ) == false )
    {
        return false;
    }
    int n[3] = { (int)counts[0], (int)counts[1], (int)counts[2] };
    *count = n[0] * n[1] * n[2];
    *poses = calloc( (size_t)*count, sizeof( Pose ) );
    if ( *poses == NULL )
    {
        return Fail( L, path, "out of memory" );
    }
    // x fastest, then y, then z: the bottom layer first
    int k = 0;
    for ( int z = 0; z < n[2]; ++z )
    {
        for ( int y = 0; y < n[1]; ++y )
        {
            for ( int x = 0; x < n[0]; ++x )
            {
                Pose* pose = *poses + k++;
                double offset[3] = { x * spacing[0], y * spacing[1], z * spacing[2] };
                if ( jitter > 0.0 )
                {
                    double j[3];
                    Jitter( &state, jitter, j );
                    for ( int i = 0; i < 3; ++i )
                    {
                        offset[i] += j[i];
                    }
                }
                for ( int i = 0; i < 3; ++i )
                {
                    pose->p[i] = origin[i] + offset[i];
                }
                pose->q[0] = 1.0;
            }
        }
    }
    return true;
}

static bool RandomPilePoses( Loader* L, const cJSON* object, const char* path, Pose** poses, int* count )
{
    char sub[PEER_PATH];
    uint64_t state = 1;
    static const char* const keys[] = { "type",   "name",    "body",   "bodies", "count",
                                        "region", "spacing", "jitter", "seed",   "random_orientation" };
    int total = 0;
    double s = 0.0;
    double jitter = 0.0;
    double low[3];
    double high[3];
    const cJSON* item = NULL;
    if ( CheckKeys( L, object, path, keys, PEER_COUNT( keys ), NULL, 0 ) == false ||
         ( item = Required( L, object, "count", path ) ) == NULL )
    {
        return false;
    }
    Key( sub, path, "count" );
    if ( ReadInteger( L, item, sub, 1, &total ) == false )
    {
        return false;
    }
    const cJSON* region = Required( L, object, "region", path );
    if ( region == NULL )
    {
        return false;
    }
    Key( sub, path, "region" );
    const cJSON* min = Required( L, region, "min", sub );
    const cJSON* max = min != NULL ? Required( L, region, "max", sub ) : NULL;
    if ( max == NULL )
    {
        return false;
    }
    char part[PEER_PATH];
    Key( part, sub, "min" );
    if ( ReadNumbers( L, min, part, 3, low ) == false )
    {
        return false;
    }
    Key( part, sub, "max" );
    if ( ReadNumbers( L, max, part, 3, high ) == false )
    {
        return false;
    }
    if ( ( item = Required( L, object, "spacing", path ) ) == NULL )
    {
        return false;
    }
    Key( sub, path, "spacing" );
    if ( ReadNumber( L, item, sub, &s ) == false )
    {
        return false;
    }
    if ( s <= 0.0 )
    {
        return Fail( L, sub, "must be positive" );
    }
    item = cJSON_GetObjectItemCaseSensitive( object, "jitter" );
    Key( sub, path, "jitter" );
    if ( ( item != NULL && ReadNumber( L, item, sub, &jitter ) == false ) ||
         ReadSeed( L, object, path, &state ) == false )
    {
        return false;
    }
    bool randomOrientation = true;
    item = cJSON_GetObjectItemCaseSensitive( object, "random_orientation" );
    if ( item != NULL )
    {
        if ( cJSON_IsBool( item ) == false )
        {
            Key( sub, path, "random_orientation" );
            return Fail( L, sub, "expected true or false" );
        }
        randomOrientation = cJSON_IsTrue( item );
    }
    int nx = CellsAlong( low[0], high[0], s );
    int ny = CellsAlong( low[1], high[1], s );
    int nz = CellsAlong( low[2], high[2], s );
    if ( (double)nx * ny * nz < (double)total )
    {
        Key( sub, path, "count" );
        return Fail( L, sub, "the region holds fewer cells than the %d bodies asked for", total );
    }
    *count = total;
    *poses = calloc( (size_t)total, sizeof( Pose ) );
    if ( *poses == NULL )
    {
        return Fail( L, path, "out of memory" );
    }
    double x0 = 0.5 * ( low[0] + high[0] ) - 0.5 * ( nx - 1 ) * s;
    double y0 = 0.5 * ( low[1] + high[1] ) - 0.5 * ( ny - 1 ) * s;
    int perLayer = nx * ny;
    int k = 0;
    for ( int layer = 0; k < total; ++layer )
    {
        int take = total - k < perLayer ? total - k : perLayer;
        int start = (int)( Uniform( &state ) * perLayer );
        int stride = 1;
        for ( int tries = 0; perLayer > 2 && tries < 64; ++tries )
        {
            int candidate = 1 + (int)( Uniform( &state ) * ( perLayer - 1 ) );
            if ( GreatestCommonDivisor( candidate, perLayer ) == 1 )
            {
                stride = candidate;
                break;
            }
        }
        for ( int j = 0; j < take; ++j )
        {
            int cell = (int)( ( (int64_t)start + (int64_t)j * stride ) % perLayer );
            Pose* pose = *poses + k++;
            pose->p[0] = x0 + ( cell % nx ) * s;
            pose->p[1] = y0 + ( cell / nx ) * s;
            pose->p[2] = low[2] + layer * s;
            if ( jitter > 0.0 )
            {
                double d[3];
                Jitter( &state, jitter, d );
                for ( int i = 0; i < 3; ++i )
                {
                    pose->p[i] += d[i];
                }
            }
            if ( randomOrientation )
            {
                RandomRotation( &state, pose->q );
            }
            else
            {
                pose->q[0] = 1.0;
            }
        }
    }
    return true;
}

static bool GeneratePoses( Loader* L, const cJSON* object, const char* path, const char* type, Pose** poses,
                           int* count )
{
    *poses = NULL;
    *count = 0;
    if ( strcmp( type, "pyramid" ) == 0 )
    {
        return PyramidPoses( L, object, path, poses, count );
    }
    if ( strcmp( type, "grid" ) == 0 )
    {
        return GridPoses( L, object, path, poses, count );
    }
    if ( strcmp( type, "random_pile" ) == 0 )
    {
        return RandomPilePoses( L, object, path, poses, count );
    }
    char sub[PEER_PATH];
    Key( sub, path, "type" );
    if ( strcmp( type, "ring_lattice" ) == 0 || strcmp( type, "colony_seed" ) == 0 )
    {
        return Fail( L, sub,
                     "the %s generator is not supported by the peer drivers (they take pyramid, grid and "
                     "random_pile)",
                     type );
    }
    return Fail( L, sub, "unknown generator \"%s\"", type );
}

static bool ReadGenerator( Loader* L, const cJSON* object, const char* path )
{
    if ( cJSON_IsObject( object ) == false )
    {
        return Fail( L, path, "expected a generator object" );
    }
    char sub[PEER_PATH];
    const cJSON* type = cJSON_GetObjectItemCaseSensitive( object, "type" );
    if ( cJSON_IsString( type ) == false )
    {
        Key( sub, path, "type" );
        return Fail( L, sub, "expected a generator type (a string)" );
    }
    const cJSON* prefix = cJSON_GetObjectItemCaseSensitive( object, "name" );
    if ( prefix != NULL && ( cJSON_IsString( prefix ) == false || strlen( prefix->valuestring ) > 53 ) )
    {
        Key( sub, path, "name" );
        return Fail( L, sub, "expected a name prefix of at most 53 bytes" );
    }
    Pose* poses = NULL;
    int count = 0;
    if ( GeneratePoses( L, object, path, type->valuestring, &poses, &count ) == false )
    {
        free( poses );
        return false;
    }

    // the template(s): "body", or the random pile's "bodies", used in turn
    const cJSON* templates[16];
    int templateCount = 0;
    const cJSON* many = strcmp( type->valuestring, "random_pile" ) == 0
                            ? cJSON_GetObjectItemCaseSensitive( object, "bodies" )
                            : NULL;
    if ( many != NULL )
    {
        if ( cJSON_IsArray( many ) == false || cJSON_GetArraySize( many ) < 1 ||
             cJSON_GetArraySize( many ) > 16 || cJSON_GetObjectItemCaseSensitive( object, "body" ) != NULL )
        {
            free( poses );
            Key( sub, path, "bodies" );
            return Fail( L, sub, "expected an array of 1 to 16 template bodies (and no \"body\")" );
        }
        const cJSON* item = NULL;
        cJSON_ArrayForEach( item, many )
        {
            templates[templateCount++] = item;
        }
    }
    else
    {
        templates[0] = Required( L, object, "body", path );
        if ( templates[0] == NULL )
        {
            free( poses );
            return false;
        }
        templateCount = 1;
    }

    // read each template once (its shapes land in the scene's array; copies are appended after)
    PeerBody bodies[16];
    for ( int t = 0; t < templateCount; ++t )
    {
        if ( many != NULL )
        {
            Index( sub, path, "bodies", t );
        }
        else
        {
            Key( sub, path, "body" );
        }
        if ( ReadBody( L, templates[t], sub, true, bodies + t ) == false )
        {
            free( poses );
            return false;
        }
        if ( bodies[t].shapeCount == 0 )
        {
            free( poses );
            return Fail( L, sub, "a template body needs at least one shape" );
        }
    }

    for ( int k = 0; k < count; ++k )
    {
        const PeerBody* model = bodies + k % templateCount;
        PeerBody body = *model;
        if ( prefix != NULL )
        {
            snprintf( body.name, sizeof( body.name ), "%s_%d", prefix->valuestring, k );
        }
        memcpy( body.position, poses[k].p, sizeof( body.position ) );
        // the template's own orientation first, then the generator's
        QuatMul( poses[k].q, model->orientation, body.orientation );
        QuatNormalize( body.orientation );
        body.firstShape = L->scene->shapeCount;
        for ( int i = 0; i < model->shapeCount; ++i )
        {
            PeerShape copy = L->scene->shapes[model->firstShape + i];
            if ( PushShape( L, &copy ) == false )
            {
                free( poses );
                return false;
            }
        }
        if ( FinishBody( L, &body ) == false )
        {
            free( poses );
            return false;
        }
    }
    free( poses );
    return true;
}

// ---------------------------------------------------------------------------------------------
// The file

static char* ReadFile( const char* path, long* length )
{
    FILE* file = fopen( path, "rb" );
    if ( file == NULL )
    {
        return NULL;
    }
    char* text = NULL;
    if ( fseek( file, 0, SEEK_END ) == 0 )
    {
        long size = ftell( file );
        if ( size >= 0 && fseek( file, 0, SEEK_SET ) == 0 )
        {
            text = malloc( (size_t)size + 1 );
            if ( text != NULL && fread( text, 1, (size_t)size, file ) == (size_t)size )
            {
                text[size] = 0;
                *length = size;
            }
            else
            {
                free( text );
                text = NULL;
            }
        }
    }
    fclose( file );
    return text;
}

static bool ReadWorld( Loader* L, const cJSON* world )
{
    static const char* const keys[] = { "gravity", "dt", "dynamics", "sleeping" };
    // Cairn's own numerics and options: each peer uses its own solver, friction model, margins and
    // continuous collision; viscosity matters to overdamped worlds only
    static const char* const ignored[] = {
        "solver",      "substeps",         "contact_hertz",      "contact_margin",
        "aabb_margin", "relax_iterations", "max_linear_speed",   "hit_event_threshold",
        "continuous",  "joint_projection", "friction_model",     "threads",
        "viscosity",   "multisphere",      "contact_recursions", "contact_overlap_tolerance" };
    PeerScene* s = L->scene;
    if ( cJSON_IsObject( world ) == false )
    {
        return Fail( L, "world", "expected an object" );
    }
    if ( CheckKeys( L, world, "world", keys, PEER_COUNT( keys ), ignored, PEER_COUNT( ignored ) ) == false )
    {
        return false;
    }
    const cJSON* item = cJSON_GetObjectItemCaseSensitive( world, "gravity" );
    if ( item != NULL && ReadNumbers( L, item, "world.gravity", 3, s->gravity ) == false )
    {
        return false;
    }
    item = cJSON_GetObjectItemCaseSensitive( world, "dt" );
    if ( item != NULL && ReadNumber( L, item, "world.dt", &s->dt ) == false )
    {
        return false;
    }
    if ( !( s->dt > 0.0 ) )
    {
        return Fail( L, "world.dt", "must be positive" );
    }
    item = cJSON_GetObjectItemCaseSensitive( world, "dynamics" );
    if ( item != NULL && ( cJSON_IsString( item ) == false || strcmp( item->valuestring, "inertial" ) != 0 ) )
    {
        return Fail( L, "world.dynamics", "the peer drivers run inertial worlds only" );
    }
    item = cJSON_GetObjectItemCaseSensitive( world, "sleeping" );
    if ( item != NULL && cJSON_IsFalse( item ) == false )
    {
        return Fail( L, "world.sleeping",
                     "the peer drivers never let bodies sleep; the scene asks for sleeping" );
    }
    return true;
}

static bool ReadRoot( Loader* L, const cJSON* root )
{
    static const char* const keys[] = { "version", "description", "world", "materials",
                                        "bodies",  "generators",  "run" };
    if ( cJSON_IsObject( root ) == false )
    {
        return Fail( L, "", "expected a JSON object" );
    }
    const cJSON* item = NULL;
    cJSON_ArrayForEach( item, root )
    {
        if ( strcmp( item->string, "joints" ) == 0 || strcmp( item->string, "systems" ) == 0 )
        {
            return Fail( L, item->string, "%s are not supported by the peer drivers", item->string );
        }
    }
    if ( CheckKeys( L, root, "", keys, PEER_COUNT( keys ), NULL, 0 ) == false )
    {
        return false;
    }
    item = cJSON_GetObjectItemCaseSensitive( root, "version" );
    if ( item != NULL && ( cJSON_IsNumber( item ) == false || item->valuedouble != 1.0 ) )
    {
        return Fail( L, "version", "must be 1" );
    }
    item = cJSON_GetObjectItemCaseSensitive( root, "world" );
    if ( item != NULL && ReadWorld( L, item ) == false )
    {
        return false;
    }
    item = cJSON_GetObjectItemCaseSensitive( root, "run" );
    if ( item != NULL )
    {
        static const char* const runKeys[] = { "steps" };
        if ( cJSON_IsObject( item ) == false )
        {
            return Fail( L, "run", "expected an object" );
        }
        const cJSON* steps = cJSON_GetObjectItemCaseSensitive( item, "steps" );
        if ( CheckKeys( L, item, "run", runKeys, PEER_COUNT( runKeys ), NULL, 0 ) == false ||
             ( steps != NULL && ReadInteger( L, steps, "run.steps", 0, &L->scene->runSteps ) == false ) )
        {
            return false;
        }
    }
    L->materials = cJSON_GetObjectItemCaseSensitive( root, "materials" );
    if ( L->materials != NULL )
    {
        if ( cJSON_IsObject( L->materials ) == false )
        {
            return Fail( L, "materials", "expected an object of named materials" );
        }
        // every material is checked, used or not
        const cJSON* material = NULL;
        cJSON_ArrayForEach( material, L->materials )
        {
            char sub[PEER_PATH];
            snprintf( sub, sizeof( sub ), "materials.%s", material->string );
            Material m;
            if ( ReadMaterialObject( L, material, sub, &m ) == false )
            {
                return false;
            }
            if ( strcmp( material->string, "default" ) == 0 )
            {
                L->defaultMaterial = m;
            }
        }
    }

    const cJSON* bodies = cJSON_GetObjectItemCaseSensitive( root, "bodies" );
    if ( cJSON_IsArray( bodies ) == false )
    {
        return Fail( L, "bodies", bodies == NULL ? "missing" : "expected an array of bodies" );
    }
    int index = 0;
    cJSON_ArrayForEach( item, bodies )
    {
        char path[64];
        snprintf( path, sizeof( path ), "bodies[%d]", index++ );
        PeerBody body;
        if ( ReadBody( L, item, path, false, &body ) == false || FinishBody( L, &body ) == false )
        {
            return false;
        }
    }
    const cJSON* generators = cJSON_GetObjectItemCaseSensitive( root, "generators" );
    if ( generators != NULL && cJSON_IsArray( generators ) == false )
    {
        return Fail( L, "generators", "expected an array of generators" );
    }
    index = 0;
    cJSON_ArrayForEach( item, generators )
    {
        char path[64];
        snprintf( path, sizeof( path ), "generators[%d]", index++ );
        if ( ReadGenerator( L, item, path ) == false )
        {
            return false;
        }
    }
    return true;
}

bool PeerLoadScene( const char* path, PeerScene* scene, char* message, int messageSize )
{
    memset( scene, 0, sizeof( *scene ) );
    snprintf( scene->path, sizeof( scene->path ), "%s", path );
    scene->gravity[2] = -9.81;
    scene->dt = 1.0 / 60.0;
    Loader L = { .file = path,
                 .message = message,
                 .messageSize = messageSize,
                 .defaultMaterial = { 0.6, 0.0, 1000.0 },
                 .scene = scene };
    long length = 0;
    char* text = ReadFile( path, &length );
    if ( text == NULL )
    {
        snprintf( message, (size_t)messageSize, "%s: cannot read the file", path );
        return false;
    }
    const char* end = NULL;
    cJSON* root = cJSON_ParseWithLengthOpts( text, (size_t)length, &end, false );
    if ( root == NULL )
    {
        long offset = end != NULL ? (long)( end - text ) : 0;
        int line = 1;
        for ( long i = 0; i < offset && i < length; ++i )
        {
            line += text[i] == '\n';
        }
        snprintf( message, (size_t)messageSize, "%s:%d: not valid JSON", path, line );
        free( text );
        return false;
    }
    bool ok = ReadRoot( &L, root );
    cJSON_Delete( root );
    free( text );
    if ( ok == false )
    {
        PeerFreeScene( scene );
    }
    return ok;
}

void PeerFreeScene( PeerScene* scene )
{
    free( scene->bodies );
    free( scene->shapes );
    scene->bodies = NULL;
    scene->shapes = NULL;
    scene->bodyCount = scene->shapeCount = scene->dynamicCount = 0;
}

void PeerShapeWorldPose( const PeerBody* body, const PeerShape* shape, double position[3],
                         double orientation[4] )
{
    QuatRotate( body->orientation, shape->position, position );
    for ( int i = 0; i < 3; ++i )
    {
        position[i] += body->position[i];
    }
    QuatMul( body->orientation, shape->orientation, orientation );
    QuatNormalize( orientation );
}

// ---------------------------------------------------------------------------------------------
// The run

static double Seconds( clockid_t clock )
{
    struct timespec t = { 0 };
    clock_gettime( clock, &t );
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double KineticEnergy( const PeerBody* body, const PeerBodyState* state )
{
    if ( body->dynamic == false )
    {
        return 0.0;
    }
    const double* v = state->linearVelocity;
    double w[3];
    QuatRotateInverse( state->orientation, state->angularVelocity, w );
    return 0.5 * body->mass * ( v[0] * v[0] + v[1] * v[1] + v[2] * v[2] ) +
           0.5 * ( body->inertia[0] * w[0] * w[0] + body->inertia[1] * w[1] * w[1] +
                   body->inertia[2] * w[2] * w[2] );
}

static cJSON* Vector( const double* v, int count )
{
    cJSON* array = cJSON_CreateArray();
    for ( int i = 0; array != NULL && i < count; ++i )
    {
        cJSON_AddItemToArray( array, cJSON_CreateNumber( v[i] ) );
    }
    return array;
}

typedef struct RunResult
{
    int steps;
    int iterations;
    double cpuSeconds;
    double wallSeconds;
    double setupMs;
    int contacts;
    double keInitial;
    double keFinal;
    double maxDisplacement;
    int maxDisplacementBody;
    double meanDisplacement;
    double minHeight;
    bool finite;
} RunResult;

static bool WriteReport( const char* path, const PeerEngine* engine, const PeerScene* scene,
                         const RunResult* r, const PeerBodyState* states )
{
    cJSON* report = cJSON_CreateObject();
    double perStep = r->steps > 0 ? 1000.0 / r->steps : 0.0;
    const char* worst = r->maxDisplacementBody >= 0 ? scene->bodies[r->maxDisplacementBody].name : "";
    bool ok = report != NULL && cJSON_AddStringToObject( report, "engine", engine->name ) != NULL &&
              cJSON_AddStringToObject( report, "engine_version", engine->version ) != NULL &&
              cJSON_AddStringToObject( report, "solver", engine->solver ) != NULL &&
              cJSON_AddNumberToObject( report, "iterations", r->iterations ) != NULL &&
              cJSON_AddStringToObject( report, "scene", scene->path ) != NULL &&
              cJSON_AddNumberToObject( report, "steps", r->steps ) != NULL &&
              cJSON_AddNumberToObject( report, "bodies", scene->bodyCount ) != NULL &&
              cJSON_AddNumberToObject( report, "dynamic_bodies", scene->dynamicCount ) != NULL &&
              cJSON_AddNumberToObject( report, "dt", scene->dt ) != NULL &&
              cJSON_AddNumberToObject( report, "threads", 1 ) != NULL &&
              cJSON_AddNumberToObject( report, "cpu_ms_per_step", r->cpuSeconds * perStep ) != NULL &&
              cJSON_AddNumberToObject( report, "wall_ms_per_step", r->wallSeconds * perStep ) != NULL &&
              cJSON_AddNumberToObject( report, "setup_ms", r->setupMs ) != NULL &&
              cJSON_AddNumberToObject( report, "contacts_final", r->contacts ) != NULL &&
              cJSON_AddBoolToObject( report, "finite", r->finite ) != NULL &&
              cJSON_AddNumberToObject( report, "max_displacement", r->maxDisplacement ) != NULL &&
              cJSON_AddStringToObject( report, "max_displacement_body", worst ) != NULL &&
              cJSON_AddNumberToObject( report, "mean_displacement", r->meanDisplacement ) != NULL &&
              cJSON_AddNumberToObject( report, "min_height", r->minHeight ) != NULL &&
              cJSON_AddNumberToObject( report, "kinetic_energy_initial", r->keInitial ) != NULL &&
              cJSON_AddNumberToObject( report, "kinetic_energy_final", r->keFinal ) != NULL;
    cJSON* final = ok ? cJSON_AddArrayToObject( report, "final_state" ) : NULL;
    ok = final != NULL;
    for ( int b = 0; ok && b < scene->bodyCount; ++b )
    {
        cJSON* body = cJSON_CreateObject();
        ok = body != NULL && cJSON_AddItemToArray( final, body );
        if ( ok && scene->bodies[b].name[0] != 0 )
        {
            ok = cJSON_AddStringToObject( body, "name", scene->bodies[b].name ) != NULL;
        }
        ok = ok &&
             cJSON_AddStringToObject( body, "type", scene->bodies[b].dynamic ? "dynamic" : "static" ) !=
                 NULL &&
             cJSON_AddItemToObject( body, "position", Vector( states[b].position, 3 ) ) &&
             cJSON_AddItemToObject( body, "orientation", Vector( states[b].orientation, 4 ) ) &&
             cJSON_AddItemToObject( body, "linear_velocity", Vector( states[b].linearVelocity, 3 ) ) &&
             cJSON_AddItemToObject( body, "angular_velocity", Vector( states[b].angularVelocity, 3 ) );
    }
    char* text = ok ? cJSON_Print( report ) : NULL;
    cJSON_Delete( report );
    if ( text == NULL )
    {
        return false;
    }
    FILE* file = fopen( path, "w" );
    ok = file != NULL && fputs( text, file ) >= 0 && fputc( '\n', file ) != EOF;
    ok = ( file != NULL && fclose( file ) == 0 ) && ok;
    cJSON_free( text );
    return ok;
}

static void Usage( const char* program, FILE* out )
{
    fprintf( out,
             "usage: %s SCENE.json [--steps N] [--iterations K] [--report FILE.json] [--quiet]\n"
             "  runs a Cairn scene for N steps (default: the scene's run.steps, else 600) at its dt\n",
             program );
}

int PeerMain( int argc, char** argv, const PeerEngine* engine )
{
    const char* program = argv[0];
    const char* scenePath = NULL;
    const char* reportPath = NULL;
    long steps = -1;
    long iterations = engine->defaultIterations;
    bool quiet = false;
    for ( int i = 1; i < argc; ++i )
    {
        const char* arg = argv[i];
        bool takesValue = strcmp( arg, "--steps" ) == 0 || strcmp( arg, "--iterations" ) == 0 ||
                          strcmp( arg, "--report" ) == 0;
        if ( takesValue && i + 1 >= argc )
        {
            fprintf( stderr, "%s: %s needs a value\n", program, arg );
            return 2;
        }
        if ( strcmp( arg, "-h" ) == 0 || strcmp( arg, "--help" ) == 0 )
        {
            Usage( program, stdout );
            return 0;
        }
        else if ( strcmp( arg, "--quiet" ) == 0 )
        {
            quiet = true;
        }
        else if ( takesValue && strcmp( arg, "--report" ) == 0 )
        {
            reportPath = argv[++i];
        }
        else if ( takesValue )
        {
            char* end = NULL;
            const char* value = argv[++i];
            long number = strtol( value, &end, 10 );
            bool isSteps = strcmp( arg, "--steps" ) == 0;
            if ( end == value || *end != 0 || number < ( isSteps ? 0 : 1 ) || number > 100000000 )
            {
                fprintf( stderr, "%s: %s expects an integer >= %d, got '%s'\n", program, arg, isSteps ? 0 : 1,
                         value );
                return 2;
            }
            *( isSteps ? &steps : &iterations ) = number;
        }
        else if ( arg[0] == '-' )
        {
            fprintf( stderr, "%s: unknown option '%s'\n", program, arg );
            Usage( program, stderr );
            return 2;
        }
        else if ( scenePath == NULL )
        {
            scenePath = arg;
        }
        else
        {
            fprintf( stderr, "%s: one scene only ('%s' and '%s')\n", program, scenePath, arg );
            return 2;
        }
    }
    if ( scenePath == NULL )
    {
        Usage( program, stderr );
        return 2;
    }

    PeerScene scene;
    char message[600];
    if ( PeerLoadScene( scenePath, &scene, message, (int)sizeof( message ) ) == false )
    {
        fprintf( stderr, "%s: %s\n", program, message );
        return 1;
    }
    if ( steps < 0 )
    {
        steps = scene.runSteps > 0 ? scene.runSteps : 600;
    }

    RunResult r = {
        .steps = (int)steps, .iterations = (int)iterations, .maxDisplacementBody = -1, .finite = true };
    double setupStart = Seconds( CLOCK_MONOTONIC );
    void* world = engine->create( &scene, (int)iterations, message, (int)sizeof( message ) );
    if ( world == NULL )
    {
        fprintf( stderr, "%s: %s: %s\n", program, scenePath, message );
        PeerFreeScene( &scene );
        return 1;
    }
    r.setupMs = 1000.0 * ( Seconds( CLOCK_MONOTONIC ) - setupStart );
    PeerBodyState* start =
        calloc( (size_t)( scene.bodyCount > 0 ? scene.bodyCount : 1 ), sizeof( PeerBodyState ) );
    PeerBodyState* end =
        calloc( (size_t)( scene.bodyCount > 0 ? scene.bodyCount : 1 ), sizeof( PeerBodyState ) );
    if ( start == NULL || end == NULL )
    {
        fprintf( stderr, "%s: out of memory\n", program );
        return 1;
    }
    engine->read( world, &scene, start );

    // the stepping loop alone is timed
    double cpu0 = Seconds( CLOCK_PROCESS_CPUTIME_ID );
    double wall0 = Seconds( CLOCK_MONOTONIC );
    for ( long k = 0; k < steps; ++k )
    {
        engine->step( world, scene.dt );
    }
    r.cpuSeconds = Seconds( CLOCK_PROCESS_CPUTIME_ID ) - cpu0;
    r.wallSeconds = Seconds( CLOCK_MONOTONIC ) - wall0;

    r.contacts = engine->contacts( world );
    engine->read( world, &scene, end );
    r.minHeight = INFINITY;
    double displacementSum = 0.0;
    for ( int b = 0; b < scene.bodyCount; ++b )
    {
        r.keInitial += KineticEnergy( scene.bodies + b, start + b );
        r.keFinal += KineticEnergy( scene.bodies + b, end + b );
        for ( int i = 0; i < 3; ++i )
        {
            r.finite = r.finite && isfinite( end[b].position[i] ) && isfinite( end[b].linearVelocity[i] );
        }
        if ( scene.bodies[b].dynamic == false )
        {
            continue;
        }
        double d[3] = { end[b].position[0] - start[b].position[0], end[b].position[1] - start[b].position[1],
                        end[b].position[2] - start[b].position[2] };
        double distance = sqrt( d[0] * d[0] + d[1] * d[1] + d[2] * d[2] );
        displacementSum += distance;
        if ( r.maxDisplacementBody < 0 || distance > r.maxDisplacement || isnan( distance ) )
        {
            r.maxDisplacement = distance;
            r.maxDisplacementBody = b;
        }
        r.minHeight = fmin( r.minHeight, end[b].position[2] );
    }
    r.meanDisplacement = scene.dynamicCount > 0 ? displacementSum / scene.dynamicCount : 0.0;
    if ( scene.dynamicCount == 0 )
    {
        r.minHeight = 0.0;
    }

    int code = 0;
    if ( quiet == false )
    {
        printf( "%s: %s: %ld steps x %g s, %d bodies, %s %d iterations: %.3g ms/step (cpu %.3g), %d contact "
                "points, "
                "max displacement %.4g m, kinetic energy %.6g J%s\n",
                engine->name, scenePath, steps, scene.dt, scene.bodyCount, engine->solver, r.iterations,
                steps > 0 ? 1000.0 * r.wallSeconds / (double)steps : 0.0,
                steps > 0 ? 1000.0 * r.cpuSeconds / (double)steps : 0.0, r.contacts, r.maxDisplacement,
                r.keFinal, r.finite ? "" : ", NOT FINITE" );
    }
    if ( reportPath != NULL && WriteReport( reportPath, engine, &scene, &r, end ) == false )
    {
        fprintf( stderr, "%s: cannot write the report %s\n", program, reportPath );
        code = 1;
    }
    engine->destroy( world );
    free( start );
    free( end );
    PeerFreeScene( &scene );
    return code;
}
