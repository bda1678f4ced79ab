// SPDX-License-Identifier: MIT
// Bullet (Debian's libbullet-dev, single precision: pkg-config `bullet`) on a Cairn scene:
// btDiscreteDynamicsWorld with btSequentialImpulseConstraintSolver at 10 iterations by default,
// the dynamic AABB tree broadphase, Bullet's other defaults (split impulse, warm starting, ERP
// 0.2), deactivation off, single-threaded. Materials combine as Cairn combines them (friction
// sqrt(mu_a mu_b), restitution the larger) instead of Bullet's products. Masses and inertias are
// the scene's exact ones (peers_scene.c), not Bullet's box approximations.
//
//     cairn_peer_bullet SCENE.json [--steps N] [--iterations K] [--report FILE.json] [--quiet]
//
// Scene reading, timing and the report: peers_scene.c.

#include "peers_scene.h"

#include <btBulletDynamicsCommon.h>
#include <cmath>
#include <cstdio>
#include <memory>
#include <new>
#include <vector>

namespace
{

struct BulletWorld
{
    btDefaultCollisionConfiguration configuration;
    btCollisionDispatcher dispatcher{ &configuration };
    btDbvtBroadphase broadphase;
    btSequentialImpulseConstraintSolver solver;
    btDiscreteDynamicsWorld world{ &dispatcher, &broadphase, &solver, &configuration };
    std::vector<std::unique_ptr<btCollisionShape>> shapes;
    std::vector<std::unique_ptr<btRigidBody>> objects;
    // per scene body: its rigid body (nullptr for static ones, which may be several objects)
    std::vector<btRigidBody*> bodies;
};

btScalar CombinedFriction( const btCollisionObject* a, const btCollisionObject* b )
{
    return std::sqrt( a->getFriction() * b->getFriction() );
}

btScalar CombinedRestitution( const btCollisionObject* a, const btCollisionObject* b )
{
    return std::fmax( a->getRestitution(), b->getRestitution() );
}

btQuaternion ToBullet( const double q[4] )
{
    // Cairn's [w, x, y, z] to Bullet's (x, y, z, w)
    return btQuaternion( btScalar( q[1] ), btScalar( q[2] ), btScalar( q[3] ), btScalar( q[0] ) );
}

btVector3 ToBullet3( const double v[3] )
{
    return btVector3( btScalar( v[0] ), btScalar( v[1] ), btScalar( v[2] ) );
}

std::unique_ptr<btCollisionShape> MakeShape( const PeerShape& shape )
{
    switch ( shape.type )
    {
        case peer_sphere:
            return std::make_unique<btSphereShape>( btScalar( shape.radius ) );
        case peer_box:
            // Bullet keeps its collision margin inside the given half extents
            return std::make_unique<btBoxShape>( ToBullet3( shape.halfExtents ) );
        case peer_capsule:
            // btCapsuleShapeZ lies along local z as Cairn's capsule does; its height is the segment's
            return std::make_unique<btCapsuleShapeZ>( btScalar( shape.radius ),
                                                      btScalar( 2.0 * shape.halfLength ) );
        case peer_plane:
            return std::make_unique<btStaticPlaneShape>( ToBullet3( shape.normal ),
                                                         btScalar( shape.offset ) );
    }
    return nullptr;
}

void* BulletCreate( const PeerScene* scene, int iterations, char* message, int messageSize )
{
    gCalculateCombinedFrictionCallback = CombinedFriction;
    gCalculateCombinedRestitutionCallback = CombinedRestitution;
    BulletWorld* w = new ( std::nothrow ) BulletWorld;
    if ( w == nullptr )
    {
        std::snprintf( message, size_t( messageSize ), "out of memory" );
        return nullptr;
    }
    w->world.setGravity( ToBullet3( scene->gravity ) );
    w->world.getSolverInfo().m_numIterations = iterations;
    w->bodies.assign( size_t( scene->bodyCount ), nullptr );

    for ( int b = 0; b < scene->bodyCount; ++b )
    {
        const PeerBody& body = scene->bodies[b];
        for ( int k = 0; k < body.shapeCount; ++k )
        {
            const PeerShape& shape = scene->shapes[body.firstShape + k];
            w->shapes.push_back( MakeShape( shape ) );
            btCollisionShape* collisionShape = w->shapes.back().get();
            btTransform transform;
            transform.setIdentity();
            btScalar mass( 0 );
            btVector3 inertia( 0, 0, 0 );
            if ( body.dynamic )
            {
                // one shape at the body origin (peers_scene.c checks it)
                transform.setOrigin( ToBullet3( body.position ) );
                transform.setRotation( ToBullet( body.orientation ) );
                mass = btScalar( body.mass );
                inertia = ToBullet3( body.inertia );
            }
            else if ( shape.type != peer_plane )
            {
                // a static shape at its world pose; planes are already in world coordinates
                double p[3];
                double q[4];
                PeerShapeWorldPose( &body, &shape, p, q );
                transform.setOrigin( ToBullet3( p ) );
                transform.setRotation( ToBullet( q ) );
            }
            btRigidBody::btRigidBodyConstructionInfo info( mass, nullptr, collisionShape, inertia );
            info.m_startWorldTransform = transform;
            info.m_friction = btScalar( shape.friction );
            info.m_restitution = btScalar( shape.restitution );
            info.m_linearDamping = 0;
            info.m_angularDamping = 0;
            w->objects.push_back( std::make_unique<btRigidBody>( info ) );
            btRigidBody* object = w->objects.back().get();
            if ( body.dynamic )
            {
                object->setLinearVelocity( ToBullet3( body.linearVelocity ) );
                object->setAngularVelocity( ToBullet3( body.angularVelocity ) );
                object->setActivationState( DISABLE_DEACTIVATION );
                w->bodies[size_t( b )] = object;
            }
            w->world.addRigidBody( object );
        }
    }
    return w;
}

void BulletStep( void* world, double dt )
{
    // maxSubSteps 0: exactly one internal step of dt, no interpolation
    static_cast<BulletWorld*>( world )->world.stepSimulation( btScalar( dt ), 0 );
}

int BulletContacts( void* world )
{
    btCollisionDispatcher& dispatcher = static_cast<BulletWorld*>( world )->dispatcher;
    int points = 0;
    for ( int i = 0; i < dispatcher.getNumManifolds(); ++i )
    {
        points += dispatcher.getManifoldByIndexInternal( i )->getNumContacts();
    }
    return points;
}

void BulletRead( void* world, const PeerScene* scene, PeerBodyState* states )
{
    BulletWorld* w = static_cast<BulletWorld*>( world );
    for ( int b = 0; b < scene->bodyCount; ++b )
    {
        PeerBodyState& s = states[b];
        const btRigidBody* object = w->bodies[size_t( b )];
        if ( object == nullptr )
        {
            const PeerBody& body = scene->bodies[b];
            for ( int i = 0; i < 3; ++i )
            {
                s.position[i] = body.position[i];
                s.linearVelocity[i] = s.angularVelocity[i] = 0.0;
            }
            for ( int i = 0; i < 4; ++i )
            {
                s.orientation[i] = body.orientation[i];
            }
            continue;
        }
        const btTransform& transform = object->getWorldTransform();
        btQuaternion q = transform.getRotation();
        s.orientation[0] = double( q.w() );
        s.orientation[1] = double( q.x() );
        s.orientation[2] = double( q.y() );
        s.orientation[3] = double( q.z() );
        for ( int i = 0; i < 3; ++i )
        {
            s.position[i] = double( transform.getOrigin()[i] );
            s.linearVelocity[i] = double( object->getLinearVelocity()[i] );
            s.angularVelocity[i] = double( object->getAngularVelocity()[i] );
        }
    }
}

void BulletDestroy( void* world )
{
    BulletWorld* w = static_cast<BulletWorld*>( world );
    for ( auto& object : w->objects )
    {
        w->world.removeRigidBody( object.get() );
    }
    delete w;
}

} // namespace

int main( int argc, char** argv )
{
    PeerEngine engine = {};
    engine.name = "bullet";
    engine.version = PEER_LIBRARY_VERSION;
    engine.solver = "btSequentialImpulseConstraintSolver";
    engine.defaultIterations = 10;
    engine.create = BulletCreate;
    engine.step = BulletStep;
    engine.contacts = BulletContacts;
    engine.read = BulletRead;
    engine.destroy = BulletDestroy;
    return PeerMain( argc, argv, &engine );
}
