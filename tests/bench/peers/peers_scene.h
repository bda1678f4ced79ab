// SPDX-License-Identifier: MIT
// What the peer drivers (peer_bullet.cpp, peer_ode.c) share: a Cairn JSON scene read into plain
// arrays (the subset the benchmark scenes use: box, sphere, capsule along local z and plane shapes
// on static and dynamic bodies, per-shape materials, the pyramid, grid and random_pile generators),
// and the run itself: command line, the timed stepping loop, the stability figures and the JSON
// report. An engine is four callbacks (PeerEngine); everything else is here, so both drivers time,
// measure and report the same way. No Cairn code: the drivers link cJSON and their engine only.
#pragma once

#include <stdbool.h>

#ifdef __cplusplus
extern "C"
{
#endif

    typedef enum PeerShapeType
    {
        peer_sphere,
        peer_box,
        peer_capsule,
        peer_plane,
    } PeerShapeType;

    typedef struct PeerShape
    {
        PeerShapeType type;
        double radius;         // sphere, capsule (m)
        double halfLength;     // capsule: the segment z in [-halfLength, halfLength] (m)
        double halfExtents[3]; // box (m)
        // plane, in the world frame (the body's and shape's poses applied): the half-space
        // normal . x <= offset is solid; normal is a unit vector
        double normal[3];
        double offset;
        // pose relative to the body; identity on dynamic bodies (the only case they accept)
        double position[3];
        double orientation[4]; // w, x, y, z
        double friction;
        double restitution;
        double density; // kg/m^3
    } PeerShape;

    typedef struct PeerBody
    {
        char name[64]; // "" when the scene gave none
        bool dynamic;  // else static
        double position[3];
        double orientation[4]; // w, x, y, z, normalised
        double linearVelocity[3];
        double angularVelocity[3]; // world frame
        int firstShape;            // into PeerScene.shapes
        int shapeCount;
        // dynamic bodies: mass (kg) and the principal moments about the centre of mass, which is the
        // body origin (body frame axes), from density x volume, exact for each shape type
        double mass;
        double inertia[3];
    } PeerBody;

    typedef struct PeerScene
    {
        char path[512];
        double gravity[3];
        double dt;
        int runSteps; // the scene's run.steps, 0 when absent
        PeerBody* bodies;
        int bodyCount;
        int dynamicCount;
        PeerShape* shapes;
        int shapeCount;
    } PeerScene;

    // Reads a scene file. On failure returns false and writes "FILE: JSON.PATH: what" into message.
    bool PeerLoadScene( const char* path, PeerScene* scene, char* message, int messageSize );
    void PeerFreeScene( PeerScene* scene );

    // The world pose of a (static) body's shape: the body's pose after the shape's local one.
    void PeerShapeWorldPose( const PeerBody* body, const PeerShape* shape, double position[3],
                             double orientation[4] );

    // A body's state as an engine reports it after the run.
    typedef struct PeerBodyState
    {
        double position[3];
        double orientation[4]; // w, x, y, z
        double linearVelocity[3];
        double angularVelocity[3]; // world frame
    } PeerBodyState;

    // One engine. `create` builds the world from the scene (NULL and a message on failure), `step`
    // advances it by dt, `contacts` counts the contact points of the last step, `read` writes
    // every scene body's state in scene order, `destroy` frees it.
    typedef struct PeerEngine
    {
        const char* name;      // "bullet", "ode"
        const char* version;   // the library's
        const char* solver;    // what steps it, e.g. "btSequentialImpulseConstraintSolver"
        int defaultIterations; // solver sweeps per step unless --iterations says otherwise
        void* ( *create )( const PeerScene* scene, int iterations, char* message, int messageSize );
        void ( *step )( void* world, double dt );
        int ( *contacts )( void* world );
        void ( *read )( void* world, const PeerScene* scene, PeerBodyState* states );
        void ( *destroy )( void* world );
    } PeerEngine;

    // The whole program: parses the command line (`PROGRAM SCENE.json [--steps N] [--iterations K]
    // [--report FILE.json] [--quiet]`), loads the scene, builds the world, times the stepping loop and
    // writes the summary line and the report. Returns the exit code: 0 done, 1 the scene could not be
    // loaded or built or the report written, 2 a bad command line.
    int PeerMain( int argc, char** argv, const PeerEngine* engine );

#ifdef __cplusplus
}
#endif
