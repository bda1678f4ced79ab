// SPDX-License-Identifier: MIT
// The embedding tutorial's program (docs/tutorial-embed.md): Cairn inside a game loop.
//
// A world, a ground plane, a crate and a ball, made with the C API (no JSON). The loop runs at
// a fixed physics rate of 60 Hz fed by a frame clock through an accumulator, reads the bodies'
// transforms every frame as a renderer would, reacts to contact events, and shows what the
// engine does with a stale id and with NaN. The frame times are simulated (a fixed sequence with
// jitter and hitches), so the output is the same on every run and every machine.
//
// It checks the physics as it goes and exits with 1 when a check fails, so it runs as a test
// (ctest -R tutorial_game_loop):
//   - before it touches anything, the ball falls exactly as semi-implicit Euler says, lands
//     when the closed form says and comes to rest at z = its radius;
//   - the crate, dropped tilted, comes to rest flat on the ground at z = half its size;
//   - a destroyed body's id is stale, and the engine refuses it and NaN without harm.

#include <cairn/cairn.h>

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

// ---------------------------------------------------------------------------------------------
// Checks: print each one, count the failures

static int g_failures = 0;

static void Check( bool ok, const char* what )
{
    printf( "  [%s] %s\n", ok ? "ok" : "FAILED", what );
    if ( ok == false )
    {
        g_failures += 1;
    }
}

// ---------------------------------------------------------------------------------------------
// The engine's log hook: every error the engine reports comes through here, with its status

typedef struct LogBook
{
    int count;
    int lastStatus;
} LogBook;

static void OnEngineLog( cnLogLevel level, int status, const char* message, void* context )
{
    LogBook* book = context;
    book->count += 1;
    book->lastStatus = status;
    printf( "  engine %s (%s): %s\n", level == cn_logError ? "error" : "warning", cnStatusName( (cnStatus)status ),
            message );
}

// ---------------------------------------------------------------------------------------------
// A frame clock. A real game reads a monotonic clock here (clock_gettime, glfwGetTime,
// QueryPerformanceCounter) and subtracts the last reading. We simulate it: a 60 Hz display
// with +-4 ms of jitter, a 50 ms hitch every 97th frame and one 0.4 s stall (a level loading),
// from a fixed random sequence, so that every run prints the same thing.

typedef struct FrameClock
{
    uint32_t random; // xorshift32 state
    int frame;
} FrameClock;

static double NextFrameTime( FrameClock* clock )
{
    uint32_t x = clock->random;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    clock->random = x;
    clock->frame += 1;
    double jitter = ( (double)x / 4294967296.0 - 0.5 ) * 0.008; // +-4 ms
    double seconds = 1.0 / 60.0 + jitter;
    if ( clock->frame % 97 == 0 )
    {
        seconds = 0.050;
    }
    if ( clock->frame == 150 )
    {
        seconds = 0.400;
    }
    return seconds;
}

// ---------------------------------------------------------------------------------------------
// The renderer's side. It keeps the transforms of the last two physics steps and draws the
// blend of the two that matches the frame's time (alpha in [0, 1)): the picture moves smoothly
// even when a frame takes 0, 1 or 3 steps.

#define MAX_BODIES 16

typedef struct Renderer
{
    int count;
    cnBodyId ids[MAX_BODIES];
    cnTransform previous[MAX_BODIES];
    cnTransform current[MAX_BODIES];
} Renderer;

// before each step: the current transforms become the previous ones
static void SnapshotBeforeStep( Renderer* renderer, cnWorldId world )
{
    int n = cnWorld_CopyTransforms( world, renderer->previous, renderer->ids, MAX_BODIES );
    renderer->count = n < MAX_BODIES ? n : MAX_BODIES;
}

// after each step: read the component arrays (no copy needed; the view is valid until the next
// step or body creation). Rows are the engine's dense arrays: a row may hold another body after
// one was destroyed, so match by id and do not blend across a change.
static void ReadAfterStep( Renderer* renderer, cnWorldId world )
{
    cnBodyArrays arrays = cnWorld_GetBodyArrays( world );
    int n = arrays.count < MAX_BODIES ? arrays.count : MAX_BODIES;
    for ( int row = 0; row < n; ++row )
    {
        renderer->current[row] = arrays.transforms[row];
        bool sameBody = row < renderer->count && CN_ID_EQUALS( renderer->ids[row], arrays.ids[row] );
        if ( sameBody == false )
        {
            renderer->ids[row] = arrays.ids[row];
            renderer->previous[row] = arrays.transforms[row];
        }
    }
    renderer->count = n;
}

// the pose to draw: position interpolated linearly, orientation by normalized lerp (the short way)
static cnTransform Blend( cnTransform a, cnTransform b, double alpha )
{
    double sign = a.q.x * b.q.x + a.q.y * b.q.y + a.q.z * b.q.z + a.q.w * b.q.w < 0.0 ? -1.0 : 1.0;
    cnTransform t;
    t.p = cnAdd( cnScale( 1.0 - alpha, a.p ), cnScale( alpha, b.p ) );
    t.q = cnNormalizeQuat( cnMakeQuat( ( 1.0 - alpha ) * a.q.w + alpha * sign * b.q.w,
                                       ( 1.0 - alpha ) * a.q.x + alpha * sign * b.q.x,
                                       ( 1.0 - alpha ) * a.q.y + alpha * sign * b.q.y,
                                       ( 1.0 - alpha ) * a.q.z + alpha * sign * b.q.z ) );
    return t;
}

// "draw": a real renderer would upload every pose; we write the blended height of one body
static void DrawnHeight( const Renderer* renderer, cnBodyId body, double alpha, char* text, size_t size )
{
    for ( int row = 0; row < renderer->count; ++row )
    {
        if ( CN_ID_EQUALS( renderer->ids[row], body ) )
        {
            snprintf( text, size, "%.4f", Blend( renderer->previous[row], renderer->current[row], alpha ).p.z );
            return;
        }
    }
    snprintf( text, size, "-" ); // not drawn: destroyed
}

// ---------------------------------------------------------------------------------------------
// Contact events: a game plays sounds, spawns dust or scores here

static const char* BodyNameOfShape( cnShapeId shape )
{
    if ( cnShape_IsValid( shape ) == false )
    {
        return "(destroyed)"; // end events can name shapes that no longer exist
    }
    const char* name = cnBody_GetName( cnShape_GetBody( shape ) );
    return name[0] != '\0' ? name : "(unnamed)";
}

static bool Involves( const cnContactEvent* event, cnBodyId body )
{
    return CN_ID_EQUALS( cnShape_GetBody( event->shapeA ), body ) ||
           CN_ID_EQUALS( cnShape_GetBody( event->shapeB ), body );
}

// ---------------------------------------------------------------------------------------------

int main( void )
{
    const double g = 9.81;
    const double dt = 1.0 / 60.0; // the physics step: fixed, whatever the frame rate
    const double crateHalf = 0.25; // a 0.5 m crate
    const double ballRadius = 0.5;
    const double ballStart = 20.0;

    // --- the world ---------------------------------------------------------------------------
    LogBook log = { 0, 0 };
    cnWorldDef worldDef = cnDefaultWorldDef(); // gravity (0, 0, -9.81), pgs, 10 iterations
    worldDef.logFcn = OnEngineLog;             // engine errors come to us, not to stderr
    worldDef.logContext = &log;
    // Contacts are found for shapes closer than contactMargin (default 0.02 m). The ball below
    // lands at 19.6 m/s, 0.33 m per step: with the default it is found 28 cm inside the ground
    // and pushed back out over about half a second. A margin larger than the distance a body
    // covers in one step catches it the step before it would hit.
    worldDef.contactMargin = 0.4;
    cnWorldId world = cnCreateWorld( &worldDef );
    if ( CN_IS_NULL( world ) )
    {
        fprintf( stderr, "cannot create the world\n" );
        return 1;
    }

    // the ground: a static body holding a plane (planes must be on static bodies)
    cnBodyDef groundDef = cnDefaultBodyDef();
    groundDef.type = cn_staticBody;
    groundDef.name = "ground";
    cnBodyId ground = cnCreateBody( world, &groundDef );
    cnShapeDef groundShape = cnDefaultShapeDef();
    cnPlane plane = { { 0.0, 0.0, 1.0 }, 0.0 }; // the half-space z <= 0
    cnCreatePlaneShape( ground, &groundShape, &plane );

    // a wooden crate dropped from 1.5 m, tilted 0.3 rad about x so that it lands on an edge
    cnBodyDef crateDef = cnDefaultBodyDef();
    crateDef.name = "crate";
    crateDef.position = cnMakeVec3( 0.0, 0.0, 1.5 );
    crateDef.orientation = cnQuatFromAxisAngle( cnMakeVec3( 1.0, 0.0, 0.0 ), 0.3 );
    cnBodyId crate = cnCreateBody( world, &crateDef );
    cnShapeDef wood = cnDefaultShapeDef();
    wood.material.density = 700.0;
    wood.material.friction = 0.5;
    cnBox crateBox = { { crateHalf, crateHalf, crateHalf } };
    cnCreateBoxShape( crate, &wood, &crateBox );

    // a stone ball dropped from 20 m, 3 m to the side (restitution 0: it does not bounce)
    cnBodyDef ballDef = cnDefaultBodyDef();
    ballDef.name = "ball";
    ballDef.position = cnMakeVec3( 3.0, 0.0, ballStart );
    cnBodyId ball = cnCreateBody( world, &ballDef );
    cnShapeDef stone = cnDefaultShapeDef();
    stone.material.density = 2500.0;
    cnSphere ballSphere = { ballRadius };
    cnShapeId ballShape = cnCreateSphereShape( ball, &stone, &ballSphere );

    // every create function returns a null id on failure (and logs why through the hook)
    if ( CN_IS_NULL( ground ) || CN_IS_NULL( crate ) || CN_IS_NULL( ball ) || CN_IS_NULL( ballShape ) ||
         log.count > 0 )
    {
        fprintf( stderr, "could not build the scene\n" );
        return 1;
    }

    printf( "world: %d bodies; crate %.1f kg, ball %.1f kg\n", cnWorld_GetBodyCount( world ),
            cnBody_GetMassData( crate ).mass, cnBody_GetMassData( ball ).mass );

    // --- the loop ----------------------------------------------------------------------------
    FrameClock clock = { 2463534242u, 0 };
    Renderer renderer;
    memset( &renderer, 0, sizeof( renderer ) );
    SnapshotBeforeStep( &renderer, world );
    ReadAfterStep( &renderer, world );

    double accumulator = 0.0;
    double simulatedTime = 0.0;
    int steps = 0, maxStepsInFrame = 0;
    bool ballFalling = true; // until its first contact
    int freeFallSteps = 0;
    double freeFallError = 0.0; // largest |z - z_euler| while falling
    double lastFreeFallGap = 0.0; // z_euler - (z0 - g t^2 / 2) at the last free-fall step
    double lastFreeFallTime = 0.0;
    double ballLandedAt = -1.0;
    double ballRestZ = 0.0;       // the ball's height just before it is removed
    double maxPenetration = 0.0;  // deepest contact of any step
    bool ballRemoved = false;
    cnBodyId spare = cn_nullBodyId;

    while ( simulatedTime < 5.0 )
    {
        double frameTime = NextFrameTime( &clock );
        // never try to catch up more than 0.25 s: after a long stall the game slows down
        // instead of spending the next frames stepping (the "spiral of death")
        if ( frameTime > 0.25 )
        {
            printf( "frame %d: %.3f s frame clamped to 0.25 s\n", clock.frame, frameTime );
            frameTime = 0.25;
        }
        accumulator += frameTime;

        int stepsThisFrame = 0;
        while ( accumulator >= dt )
        {
            SnapshotBeforeStep( &renderer, world );
            cnStatus status = cnWorld_Step( world, dt );
            if ( status != cn_statusOk )
            {
                fprintf( stderr, "step failed: %s\n", cnStatusString( status ) );
                return 1;
            }
            accumulator -= dt;
            simulatedTime += dt;
            steps += 1;
            stepsThisFrame += 1;
            maxPenetration = fmax( maxPenetration, cnWorld_GetStepReport( world ).maxPenetration );

            // contact events of this step
            cnContactEvents events = cnWorld_GetContactEvents( world );
            for ( int i = 0; i < events.beginCount; ++i )
            {
                const cnContactEvent* e = events.beginEvents + i;
                printf( "step %3d  t = %.4f s  begin: %s - %s\n", steps, simulatedTime,
                        BodyNameOfShape( e->shapeA ), BodyNameOfShape( e->shapeB ) );
                if ( ballFalling && Involves( e, ball ) )
                {
                    ballFalling = false;
                    ballLandedAt = simulatedTime;
                }
            }
            for ( int i = 0; i < events.endCount; ++i )
            {
                const cnContactEvent* e = events.endEvents + i;
                // the step after a body is destroyed, its contacts end: its shape ids are stale
                printf( "step %3d  t = %.4f s  end:   %s - %s\n", steps, simulatedTime,
                        BodyNameOfShape( e->shapeA ), BodyNameOfShape( e->shapeB ) );
            }

            // free fall, until the ball's first contact: semi-implicit Euler (v += g h, then
            // z += v h) over the substeps, h = dt / substeps (2 by default), gives
            // z_N = z0 - g h^2 N (N + 1) / 2 exactly after N = steps x substeps of them
            if ( ballFalling )
            {
                double substeps = (double)cnWorld_GetStepReport( world ).substeps;
                double h = dt / substeps;
                double n = (double)steps * substeps;
                double euler = ballStart - g * h * h * n * ( n + 1.0 ) / 2.0;
                double exact = ballStart - 0.5 * g * simulatedTime * simulatedTime;
                double z = cnBody_GetPosition( ball ).z;
                freeFallError = fmax( freeFallError, fabs( z - euler ) );
                lastFreeFallGap = euler - exact;
                lastFreeFallTime = simulatedTime;
                freeFallSteps += 1;
            }

            // game logic: the ball disappears 1 s after it landed, and a spare crate drops in
            if ( ballRemoved == false && ballLandedAt > 0.0 && simulatedTime >= ballLandedAt + 1.0 )
            {
                ballRestZ = cnBody_GetPosition( ball ).z;
                printf( "step %3d  t = %.4f s  destroying the ball (at rest at z = %.5f m)\n", steps, simulatedTime,
                        ballRestZ );
                cnDestroyBody( ball );
                ballRemoved = true;
                cnBodyDef spareDef = cnDefaultBodyDef();
                spareDef.name = "spare";
                spareDef.position = cnMakeVec3( -2.0, 0.0, 0.5 );
                spare = cnCreateBody( world, &spareDef );
                cnCreateBoxShape( spare, &wood, &crateBox );
            }

            // last, after the game logic has made and destroyed bodies: what the renderer draws
            ReadAfterStep( &renderer, world );
        }
        maxStepsInFrame = stepsThisFrame > maxStepsInFrame ? stepsThisFrame : maxStepsInFrame;

        // draw: how far the frame's time is between the last two steps
        double alpha = accumulator / dt;
        if ( clock.frame % 40 == 0 )
        {
            char crateZ[32], ballZ[32];
            DrawnHeight( &renderer, crate, alpha, crateZ, sizeof( crateZ ) );
            DrawnHeight( &renderer, ball, alpha, ballZ, sizeof( ballZ ) );
            printf( "frame %3d  %5.1f ms  %d steps  alpha %.2f  crate z %s  ball z %s\n", clock.frame,
                    1000.0 * frameTime, stepsThisFrame, alpha, crateZ, ballZ );
        }
    }
    printf( "%d frames, %d steps (%.4f s simulated), at most %d steps in one frame\n", clock.frame, steps,
            simulatedTime, maxStepsInFrame );

    // --- the physics checks --------------------------------------------------------------------
    printf( "checks:\n" );

    // 1. free fall
    printf( "  ball: %d steps of free fall, largest |z - z_euler| = %.3g m; at t = %.4f s Euler is %.4f m\n"
            "        below z0 - g t^2 / 2 (that gap is g h t / 2 = %.4f m, h = dt / substeps: first order)\n",
            freeFallSteps, freeFallError, lastFreeFallTime, -lastFreeFallGap,
            0.5 * g * dt / cnWorld_GetStepReport( world ).substeps * lastFreeFallTime );
    Check( freeFallSteps >= 100, "the ball fell freely for at least 100 steps before its first contact" );
    Check( freeFallError < 1e-9, "the falling ball follows z0 - g h^2 N (N + 1) / 2 to 1e-9 m" );
    Check( fabs( -lastFreeFallGap - 0.5 * g * dt / cnWorld_GetStepReport( world ).substeps * lastFreeFallTime ) < 1e-9,
           "and lies g h t / 2 below the closed form z0 - g t^2 / 2" );
    double landing = sqrt( 2.0 * ( ballStart - ballRadius ) / g );
    printf( "  ball: first contact at t = %.4f s; it touches the ground at t = %.4f s in closed form\n",
            ballLandedAt, landing );
    Check( fabs( ballLandedAt - landing ) < 2.0 * dt, "the ball's first contact comes within 2 steps of that time" );
    Check( fabs( ballRestZ - ballRadius ) < 0.003, "the ball came to rest at z = its radius, within 3 mm" );
    printf( "  deepest contact of the run: %.2g m\n", maxPenetration );
    Check( maxPenetration < 0.005, "no contact went deeper than 5 mm, landing at 19.6 m/s included" );

    // 2. the crate at rest on a face
    cnBodyState crateState;
    cnBody_GetState( crate, &crateState );
    cnVec3 up = cnRotate( crateState.transform.q, cnMakeVec3( 0.0, 0.0, 1.0 ) );
    cnVec3 side = cnRotate( crateState.transform.q, cnMakeVec3( 0.0, 1.0, 0.0 ) );
    double flat = fmax( fabs( up.z ), fabs( side.z ) ); // 1 when a face lies on the ground
    double speed = cnLength( crateState.linearVelocity );
    double spin = cnLength( crateState.angularVelocity );
    printf( "  crate: z = %.5f m (half size %.2f m), speed %.2g m/s, spin %.2g rad/s, tilt %.2g rad\n",
            crateState.transform.p.z, crateHalf, speed, spin, acos( fmin( 1.0, flat ) ) );
    Check( fabs( crateState.transform.p.z - crateHalf ) < 0.003, "the crate rests at z = half its size, within 3 mm" );
    Check( flat > 1.0 - 1e-6, "the crate lies flat on a face (tilt below 1.5 mrad)" );
    Check( speed < 1e-3 && spin < 1e-3, "the crate is at rest (below 1 mm/s and 1 mrad/s)" );

    // 3. the destroyed ball: its id is stale
    printf( "errors:\n" );
    Check( ballRemoved, "the ball was destroyed by the game logic" );
    Check( cnBody_IsValid( ball ) == false, "cnBody_IsValid( ball ) is false after cnDestroyBody" );
    Check( cnBody_IsValid( spare ), "the spare crate made after it is valid" );
    printf( "  the ball's slot %s reused by the spare crate (index %d, generation %d -> %d)\n",
            ball.index1 == spare.index1 ? "was" : "was not", (int)ball.index1, (int)ball.generation,
            (int)spare.generation );
    cnStatus status = cnBody_SetLinearVelocity( ball, cnMakeVec3( 0.0, 0.0, 5.0 ) );
    printf( "  cnBody_SetLinearVelocity( ball ) -> %s\n", cnStatusName( status ) );
    Check( status == cn_statusInvalidId, "a setter on the stale id gives cn_statusInvalidId" );
    cnVec3 ghost = cnBody_GetPosition( ball );
    Check( ghost.x == 0.0 && ghost.y == 0.0 && ghost.z == 0.0, "a getter on the stale id gives zero" );
    status = cnDestroyBody( ball );
    printf( "  cnDestroyBody( ball ) again -> %s\n", cnStatusName( status ) );
    Check( status == cn_statusInvalidId, "destroying it twice gives cn_statusInvalidId" );
    Check( cnBody_GetLinearVelocity( spare ).z < 1.0, "and the spare crate in its slot was not touched" );

    // 4. NaN in a def: refused, logged through the hook, the world keeps running
    int logged = log.count;
    cnBodyDef badDef = cnDefaultBodyDef();
    badDef.position = cnMakeVec3( 0.0, 0.0, NAN );
    cnBodyId bad = cnCreateBody( world, &badDef );
    Check( CN_IS_NULL( bad ), "cnCreateBody with a NaN position gives a null id" );
    Check( log.count == logged + 1 && log.lastStatus == cn_statusNonFinite,
           "and logs one error with cn_statusNonFinite" );

    // 5. NaN in a setter: refused, the body unchanged
    cnVec3 before = cnBody_GetLinearVelocity( crate );
    status = cnBody_SetLinearVelocity( crate, cnMakeVec3( INFINITY, 0.0, 0.0 ) );
    printf( "  cnBody_SetLinearVelocity( crate, inf ) -> %s\n", cnStatusName( status ) );
    Check( status == cn_statusNonFinite, "an infinite velocity gives cn_statusNonFinite" );
    cnVec3 after = cnBody_GetLinearVelocity( crate );
    Check( before.x == after.x && before.y == after.y && before.z == after.z, "and leaves the crate's velocity as it was" );

    // 6. the world still steps
    status = cnWorld_Step( world, dt );
    Check( status == cn_statusOk && cnWorld_GetBodyCount( world ) == 3, "the world still steps, with 3 bodies" );

    cnDestroyWorld( world );
    Check( cnWorld_IsValid( world ) == false && cnBody_IsValid( crate ) == false,
           "after cnDestroyWorld the world and body ids are stale" );

    printf( "%s: %d check%s failed\n", g_failures == 0 ? "PASS" : "FAIL", g_failures, g_failures == 1 ? "" : "s" );
    return g_failures == 0 ? 0 : 1;
}
