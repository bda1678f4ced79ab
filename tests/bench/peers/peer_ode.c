// SPDX-License-Identifier: MIT
// ODE (Debian's libode-dev, double precision) on a Cairn scene: dWorldQuickStep (PGS/SOR) at 20
// iterations by default, a hash space, contact joints with the friction pyramid (dContactApprox1),
// the world's default ERP (0.2) and CFM (1e-5), no auto-disable, single-threaded. Materials
// combine as Cairn combines them: friction sqrt(mu_a mu_b), restitution the larger.
//
//     cairn_peer_ode SCENE.json [--steps N] [--iterations K] [--report FILE.json] [--quiet]
//
// Scene reading, timing and the report: peers_scene.c.

#include "peers_scene.h"

#include <math.h>
#include <ode/ode.h>
#include <stdio.h>
#include <stdlib.h>

// contact points asked of dCollide per pair of geoms
#define ODE_MAX_CONTACTS 8

typedef struct OdeWorld
{
    dWorldID world;
    dSpaceID space;
    dJointGroupID contactGroup;
    // per scene body: its ODE body (0 for static ones)
    dBodyID* bodies;
    int contacts; // contact points made in the last step
} OdeWorld;

static void NearCallback( void* data, dGeomID a, dGeomID b )
{
    OdeWorld* w = data;
    dBodyID bodyA = dGeomGetBody( a );
    dBodyID bodyB = dGeomGetBody( b );
    if ( bodyA == 0 && bodyB == 0 )
    {
        return;
    }
    dContact contacts[ODE_MAX_CONTACTS];
    int count = dCollide( a, b, ODE_MAX_CONTACTS, &contacts[0].geom, (int)sizeof( dContact ) );
    if ( count <= 0 )
    {
        return;
    }
    const PeerShape* shapeA = dGeomGetData( a );
    const PeerShape* shapeB = dGeomGetData( b );
    double mu = sqrt( shapeA->friction * shapeB->friction );
    double restitution = fmax( shapeA->restitution, shapeB->restitution );
    for ( int i = 0; i < count; ++i )
    {
        dContact* c = contacts + i;
        c->surface.mode = dContactApprox1;
        c->surface.mu = mu;
        if ( restitution > 0.0 )
        {
            c->surface.mode |= dContactBounce;
            c->surface.bounce = restitution;
            c->surface.bounce_vel = 0.0;
        }
        dJointID joint = dJointCreateContact( w->world, w->contactGroup, c );
        dJointAttach( joint, bodyA, bodyB );
    }
    w->contacts += count;
}

static void OdeDestroy( void* world )
{
    OdeWorld* w = world;
    if ( w->contactGroup != 0 )
    {
        dJointGroupDestroy( w->contactGroup );
    }
    if ( w->space != 0 )
    {
        // the space destroys its geoms (cleanup mode is on by default)
        dSpaceDestroy( w->space );
    }
    if ( w->world != 0 )
    {
        dWorldDestroy( w->world );
    }
    free( w->bodies );
    free( w );
    dCloseODE();
}

static void* OdeCreate( const PeerScene* scene, int iterations, char* message, int messageSize )
{
    if ( dInitODE2( 0 ) == 0 )
    {
        snprintf( message, (size_t)messageSize, "dInitODE2 failed" );
        return NULL;
    }
    OdeWorld* w = calloc( 1, sizeof( OdeWorld ) );
    if ( w == NULL || ( w->bodies = calloc( (size_t)scene->bodyCount + 1, sizeof( dBodyID ) ) ) == NULL )
    {
        free( w );
        snprintf( message, (size_t)messageSize, "out of memory" );
        return NULL;
    }
    w->world = dWorldCreate();
    w->space = dHashSpaceCreate( 0 );
    w->contactGroup = dJointGroupCreate( 0 );
    dWorldSetGravity( w->world, scene->gravity[0], scene->gravity[1], scene->gravity[2] );
    dWorldSetQuickStepNumIterations( w->world, iterations );
    dWorldSetAutoDisableFlag( w->world, 0 );

    for ( int b = 0; b < scene->bodyCount; ++b )
    {
        const PeerBody* body = scene->bodies + b;
        dBodyID id = 0;
        if ( body->dynamic )
        {
            id = dBodyCreate( w->world );
            dMass mass;
            dMassSetZero( &mass );
            dMassSetParameters( &mass, body->mass, 0.0, 0.0, 0.0, body->inertia[0], body->inertia[1],
                                body->inertia[2], 0.0, 0.0, 0.0 );
            dBodySetMass( id, &mass );
            dBodySetPosition( id, body->position[0], body->position[1], body->position[2] );
            dQuaternion q = { body->orientation[0], body->orientation[1], body->orientation[2],
                              body->orientation[3] };
            dBodySetQuaternion( id, q );
            dBodySetLinearVel( id, body->linearVelocity[0], body->linearVelocity[1],
                               body->linearVelocity[2] );
            dBodySetAngularVel( id, body->angularVelocity[0], body->angularVelocity[1],
                                body->angularVelocity[2] );
        }
        w->bodies[b] = id;

        for ( int k = 0; k < body->shapeCount; ++k )
        {
            const PeerShape* shape = scene->shapes + body->firstShape + k;
            dGeomID geom = 0;
            switch ( shape->type )
            {
                case peer_sphere:
                    geom = dCreateSphere( w->space, shape->radius );
                    break;
                case peer_box:
                    geom = dCreateBox( w->space, 2.0 * shape->halfExtents[0], 2.0 * shape->halfExtents[1],
                                       2.0 * shape->halfExtents[2] );
                    break;
                case peer_capsule:
                    // ODE's capsule lies along its local z, as Cairn's; its length is the segment's
                    geom = dCreateCapsule( w->space, shape->radius, 2.0 * shape->halfLength );
                    break;
                case peer_plane:
                    // a static plane in world coordinates: n . x = d
                    geom = dCreatePlane( w->space, shape->normal[0], shape->normal[1], shape->normal[2],
                                         shape->offset );
                    break;
            }
            dGeomSetData( geom, (void*)shape );
            if ( shape->type == peer_plane )
            {
                continue;
            }
            if ( body->dynamic )
            {
                // dynamic bodies have one shape at their origin (peers_scene.c checks it)
                dGeomSetBody( geom, id );
                continue;
            }
            // a static shape: the body's pose after the shape's
            double p[3];
            double q[4];
            PeerShapeWorldPose( body, shape, p, q );
            dQuaternion dq = { q[0], q[1], q[2], q[3] };
            dGeomSetPosition( geom, p[0], p[1], p[2] );
            dGeomSetQuaternion( geom, dq );
        }
    }
    return w;
}

static void OdeStep( void* world, double dt )
{
    OdeWorld* w = world;
    w->contacts = 0;
    dSpaceCollide( w->space, w, NearCallback );
    dWorldQuickStep( w->world, dt );
    dJointGroupEmpty( w->contactGroup );
}

static int OdeContacts( void* world )
{
    return ( (OdeWorld*)world )->contacts;
}

static void OdeRead( void* world, const PeerScene* scene, PeerBodyState* states )
{
    OdeWorld* w = world;
    for ( int b = 0; b < scene->bodyCount; ++b )
    {
        PeerBodyState* s = states + b;
        dBodyID id = w->bodies[b];
        if ( id == 0 )
        {
            const PeerBody* body = scene->bodies + b;
            for ( int i = 0; i < 3; ++i )
            {
                s->position[i] = body->position[i];
                s->linearVelocity[i] = s->angularVelocity[i] = 0.0;
            }
            for ( int i = 0; i < 4; ++i )
            {
                s->orientation[i] = body->orientation[i];
            }
            continue;
        }
        const dReal* p = dBodyGetPosition( id );
        const dReal* q = dBodyGetQuaternion( id );
        const dReal* v = dBodyGetLinearVel( id );
        const dReal* omega = dBodyGetAngularVel( id );
        for ( int i = 0; i < 3; ++i )
        {
            s->position[i] = p[i];
            s->linearVelocity[i] = v[i];
            s->angularVelocity[i] = omega[i];
        }
        for ( int i = 0; i < 4; ++i )
        {
            s->orientation[i] = q[i];
        }
    }
}

int main( int argc, char** argv )
{
    PeerEngine engine = {
        .name = "ode",
        .version = PEER_LIBRARY_VERSION,
        .solver = "dWorldQuickStep",
        .defaultIterations = 20,
        .create = OdeCreate,
        .step = OdeStep,
        .contacts = OdeContacts,
        .read = OdeRead,
        .destroy = OdeDestroy,
    };
    return PeerMain( argc, argv, &engine );
}
