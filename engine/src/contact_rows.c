// SPDX-License-Identifier: MIT
// Contact rows (contact_rows.h): one substep's problem as the passes solve it. The stages of Box2D
// v3's contact solver that are not the solve itself:
//   prepare     the dynamic bodies' solver indices and W blocks; a group per contact point, the
//               contacts in colour order, their rows written on the world's workers
//   warm start  the cached impulses, the tangent ones projected on this step's tangents
//   store       impulses back into the contact cache for the next step's warm start; hit events
//   apply       velocity change, the impulse's angular momentum, the push as a one-step
//               pseudo-velocity

#include "contact_rows.h"

#include "core.h"
#include "world.h"

#include "cairn/solver.h"

#include <math.h>
#include <string.h>

// restitution acts on impacts faster than this, m/s
#define CN_RESTITUTION_THRESHOLD 1.0
// below this tangential speed, m/s, the friction basis is a fixed function of the normal
#define CN_SLIDE_THRESHOLD 1.0e-3

// ---- prepare ----------------------------------------------------------------------------------------

// 3x3 block, row major, of a tensor
static void cnStoreBlock( double* out, cnMat3 m )
{
    cnMat3 t = cnTranspose( m );
    memcpy( out, &t, 9 * sizeof( double ) );
}

bool cnAllocRows( cnArena* arena, cnContactRows* rows, int bodyRows, int rowCapacity, int groupCapacity )
{
    memset( rows, 0, sizeof( *rows ) );
    size_t n = (size_t)( rowCapacity > 0 ? rowCapacity : 1 );
    size_t g = (size_t)( groupCapacity > 0 ? groupCapacity : 1 );
    size_t bodies = (size_t)( bodyRows > 0 ? bodyRows : 1 );
    cnSolverProblem* p = &rows->problem;
    p->rowCapacity = rowCapacity;
    p->groupCapacity = groupCapacity;
    p->groups = cnArenaAlloc( arena, g * sizeof( cnRowGroup ), 16 );
    p->lower = cnArenaAlloc( arena, n * sizeof( double ), 16 );
    p->upper = cnArenaAlloc( arena, n * sizeof( double ), 16 );
    p->b = cnArenaAlloc( arena, n * sizeof( double ), 16 );
    p->bodyA = cnArenaAlloc( arena, n * sizeof( int32_t ), 16 );
    p->bodyB = cnArenaAlloc( arena, n * sizeof( int32_t ), 16 );
    p->jacobianA = cnArenaAlloc( arena, 6 * n * sizeof( double ), 16 );
    p->jacobianB = cnArenaAlloc( arena, 6 * n * sizeof( double ), 16 );
    rows->lambda = cnArenaAlloc( arena, n * sizeof( double ), 16 );
    rows->contact = cnArenaAlloc( arena, n * sizeof( int32_t ), 16 );
    rows->point = cnArenaAlloc( arena, n, 16 );
    rows->slot = cnArenaAlloc( arena, n, 16 );
    rows->direction = cnArenaAlloc( arena, n * sizeof( cnVec3 ), 16 );
    rows->push = cnArenaAlloc( arena, n * sizeof( double ), 16 );
    rows->velocity = cnArenaAlloc( arena, n * sizeof( double ), 16 );
    p->velocity = rows->velocity;
    rows->solverIndex = cnArenaAlloc( arena, bodies * sizeof( int ), 16 );
    rows->rowOf = cnArenaAlloc( arena, bodies * sizeof( int ), 16 );
    rows->wLinear = cnArenaAlloc( arena, 9 * bodies * sizeof( double ), 16 );
    rows->wAngular = cnArenaAlloc( arena, 9 * bodies * sizeof( double ), 16 );
    return p->groups != NULL && p->lower != NULL && p->upper != NULL && p->b != NULL && p->bodyA != NULL &&
           p->bodyB != NULL && p->jacobianA != NULL && p->jacobianB != NULL && rows->lambda != NULL &&
           rows->contact != NULL && rows->point != NULL && rows->slot != NULL && rows->direction != NULL &&
           rows->push != NULL && rows->velocity != NULL && rows->solverIndex != NULL && rows->rowOf != NULL &&
           rows->wLinear != NULL && rows->wAngular != NULL;
}

void cnPrepareBodies( const cnWorld* world, cnContactRows* rows )
{
    const cnBodyStore* bodies = &world->bodies;
    bool overdamped = world->def.dynamics == cn_dynamicsOverdamped;
    int count = 0;
    for ( int row = 0; row < bodies->count; ++row )
    {
        rows->solverIndex[row] = -1;
        // a sleeping body is not solved: it stands still like a static one (island.c)
        if ( bodies->type[row] != cn_dynamicBody || cnIsBodyAsleep( bodies, row ) )
        {
            continue;
        }
        int k = count++;
        rows->solverIndex[row] = k;
        rows->rowOf[k] = row;
        cnQuat q = bodies->transform[row].q;
        if ( overdamped )
        {
            cnStoreBlock( rows->wLinear + 9 * k, cnRotateTensor( q, bodies->linearMobility[row] ) );
            // a body with fixed rotation: no angular mobility
            cnStoreBlock( rows->wAngular + 9 * k, cnIsRotationFixed( bodies, row )
                                                      ? cn_mat3Zero
                                                      : cnRotateTensor( q, bodies->angularMobility[row] ) );
        }
        else
        {
            double m = bodies->invMass[row];
            cnStoreBlock( rows->wLinear + 9 * k, cnMakeMat3Diagonal( m, m, m ) );
            cnStoreBlock( rows->wAngular + 9 * k, cnRotateTensor( q, bodies->invInertia[row] ) );
        }
    }
    rows->bodyCount = count;
    rows->problem.bodyCount = count;
    rows->problem.wLinear = rows->wLinear;
    rows->problem.wAngular = rows->wAngular;
}

// velocity of a body's material point at `r` from its centre
static cnVec3 cnPointVelocity( const cnVec3* linear, const cnVec3* angular, int row, cnVec3 r )
{
    return row >= 0 ? cnAdd( linear[row], cnCross( angular[row], r ) ) : cn_vec3Zero;
}

// row i along d at the points rA, rB from the bodies' centres, with the points' relative velocity
// vB - vA at the start of the solve
static int cnWriteRow( cnContactRows* rows, int i, int ra, int rb, cnVec3 rA, cnVec3 rB, cnVec3 d,
                       cnVec3 relative, double bias )
{
    cnSolverProblem* p = &rows->problem;
    cnVec3 angularA = cnNeg( cnCross( rA, d ) );
    cnVec3 angularB = cnCross( rB, d );
    double* ja = p->jacobianA + 6 * i;
    double* jb = p->jacobianB + 6 * i;
    ja[0] = -d.x, ja[1] = -d.y, ja[2] = -d.z, ja[3] = angularA.x, ja[4] = angularA.y, ja[5] = angularA.z;
    jb[0] = d.x, jb[1] = d.y, jb[2] = d.z, jb[3] = angularB.x, jb[4] = angularB.y, jb[5] = angularB.z;
    p->lower[i] = 0.0;
    p->upper[i] = (double)INFINITY;
    p->bodyA[i] = ra >= 0 ? rows->solverIndex[ra] : -1;
    p->bodyB[i] = rb >= 0 ? rows->solverIndex[rb] : -1;
    rows->direction[i] = d;
    rows->velocity[i] = cnDot( d, relative );
    p->b[i] = rows->velocity[i] + bias;
    rows->lambda[i] = 0.0;
    rows->push[i] = 0.0;
    return i;
}

int cnAddRow( cnContactRows* rows, const cnWorld* world, int i, int ra, int rb, cnVec3 rA, cnVec3 rB,
              cnVec3 d, double bias )
{
    const cnBodyStore* bodies = &world->bodies;
    cnVec3 vA = cnPointVelocity( bodies->linearVelocity, bodies->angularVelocity, ra, rA );
    cnVec3 vB = cnPointVelocity( bodies->linearVelocity, bodies->angularVelocity, rb, rB );
    return cnWriteRow( rows, i, ra, rb, rA, rB, d, cnSub( vB, vA ), bias );
}

double cnProblemRowDiagonal( const cnSolverProblem* p, int i )
{
    double diagonal = 0.0;
    for ( int side = 0; side < 2; ++side )
    {
        int body = side == 0 ? p->bodyA[i] : p->bodyB[i];
        if ( body < 0 )
        {
            continue;
        }
        const double* j = ( side == 0 ? p->jacobianA : p->jacobianB ) + 6 * i;
        const double* wl = p->wLinear + 9 * body;
        const double* wa = p->wAngular + 9 * body;
        for ( int r = 0; r < 3; ++r )
        {
            diagonal += j[r] * ( wl[3 * r] * j[0] + wl[3 * r + 1] * j[1] + wl[3 * r + 2] * j[2] );
            diagonal += j[3 + r] * ( wa[3 * r] * j[3] + wa[3 * r + 1] * j[4] + wa[3 * r + 2] * j[5] );
        }
    }
    return diagonal;
}

void cnAddGroup( cnContactRows* rows, int index, int firstRow, int rowCount, cnGroupKind kind, double mu,
                 cnFrictionModel model )
{
    cnSolverProblem* p = &rows->problem;
    p->groups[index] = ( cnRowGroup ){
        .firstRow = firstRow,
        .rowCount = rowCount,
        .kind = (uint8_t)kind,
        .model = (uint8_t)( kind == cn_groupContact ? model : cn_frictionPyramid ),
        .mu = mu,
    };
}

// The body rows a contact's rows act on (-1: static, sleeping, or none), false when it has no
// point or no solved body (a sleeping one against a still kinematic one)
static bool cnContactBodies( const cnWorld* world, const cnContactRows* rows, const cnContact* contact,
                             int* ra, int* rb )
{
    const cnBodyStore* bodies = &world->bodies;
    if ( contact->manifold.pointCount == 0 )
    {
        return false;
    }
    int a = world->slots[world->shapes[contact->shapeA].bodySlot].row;
    int b = world->slots[world->shapes[contact->shapeB].bodySlot].row;
    *ra = bodies->type[a] == cn_staticBody || cnIsBodyAsleep( bodies, a ) ? -1 : a;
    *rb = bodies->type[b] == cn_staticBody || cnIsBodyAsleep( bodies, b ) ? -1 : b;
    return ( *ra >= 0 && rows->solverIndex[*ra] >= 0 ) || ( *rb >= 0 && rows->solverIndex[*rb] >= 0 );
}

// The contacts in colour order, the colours being the levels of the sequential sweep: each contact,
// in cache order, takes the level after the last level of either of its solved bodies. Within a
// level no two contacts move a common body, so a level's groups can be swept in any order, on any
// number of workers; and every body meets its contacts in cache order, level after level, so the
// levels swept one after another give the sweep in cache order itself, bit for bit (each update
// reads and writes only its own bodies' velocities and its own impulses). A chain of contacts (a
// tower) is as many levels of one contact, swept on one thread; a pile settles into a dozen wide
// ones. Writes the order of the contacts to solve (`order`, returns how many), the number of
// levels (`levelCount`) and each level's first contact in the order (colorFirst, levelCount + 2
// entries: the last two are the solved count, an empty overflow). -1 when the arena is out of
// memory.
// contacts a worker prepares at a time
#define CN_CONTACT_RANGE 32
static int cnColorContacts( const cnWorld* world, const cnContactRows* rows, cnArena* arena, int* order,
                            int* colorFirst, int* levelCount )
{
    const cnContactSet* set = &world->contacts;
    int bodyCount = rows->bodyCount > 0 ? rows->bodyCount : 1;
    size_t contacts = (size_t)( set->count > 0 ? set->count : 1 );
    int* after = cnArenaAlloc( arena, (size_t)bodyCount * sizeof( int ), 16 ); // 1 + its last level
    int* level = cnArenaAlloc( arena, contacts * sizeof( int ), 16 );
    int* next = cnArenaAlloc( arena, ( contacts + 1 ) * sizeof( int ), 16 );
    if ( after == NULL || level == NULL || next == NULL )
    {
        return -1;
    }
    memset( after, 0, (size_t)bodyCount * sizeof( int ) );
    memset( colorFirst, 0, ( contacts + 2 ) * sizeof( int ) );
    int levels = 0;
    for ( int c = 0; c < set->count; ++c )
    {
        int ra, rb;
        if ( cnContactBodies( world, rows, set->contacts + c, &ra, &rb ) == false )
        {
            level[c] = -1;
            continue;
        }
        int sa = ra >= 0 ? rows->solverIndex[ra] : -1;
        int sb = rb >= 0 ? rows->solverIndex[rb] : -1;
        int l = sa >= 0 ? after[sa] : 0;
        l = sb >= 0 && after[sb] > l ? after[sb] : l;
        if ( sa >= 0 )
        {
            after[sa] = l + 1;
        }
        if ( sb >= 0 )
        {
            after[sb] = l + 1;
        }
        level[c] = l;
        colorFirst[l + 1] += 1; // counts, shifted by one for the prefix sum
        levels = l + 1 > levels ? l + 1 : levels;
    }
    for ( int k = 0; k < levels; ++k )
    {
        colorFirst[k + 1] += colorFirst[k];
    }
    colorFirst[levels + 1] = colorFirst[levels]; // the overflow: empty
    memcpy( next, colorFirst, (size_t)( levels + 1 ) * sizeof( int ) );
    for ( int c = 0; c < set->count; ++c )
    {
        if ( level[c] >= 0 )
        {
            order[next[level[c]]++] = c;
        }
    }
    *levelCount = levels;
    return colorFirst[levels];
}

// How one contact solve lays out its rows: the settings of cnPrepareContacts, the contacts in the
// order they are solved (colour order) and where each one's rows and groups start.
typedef struct cnContactLayout
{
    const cnWorld* world;
    cnContactRows* rows;
    const cnStepScratch* scratch;
    double timeStep;
    double touching;
    bool friction;
    bool warmStart;
    bool positional;
    const int* order;      // (count) contact-cache indices
    const int* rowStart;   // (count) first row of each
    const int* groupStart; // (count) first group of each
} cnContactLayout;

// The rows and groups of one contact from its first row and group: a group per manifold point
static void cnWriteContactRows( const cnContactLayout* layout, int c, int row, int group )
{
    const cnWorld* world = layout->world;
    cnContactRows* rows = layout->rows;
    const cnStepScratch* scratch = layout->scratch;
    const cnBodyStore* bodies = &world->bodies;
    const cnContact* contact = world->contacts.contacts + c;
    double timeStep = layout->timeStep;
    double touching = layout->touching;
    bool friction = layout->friction;
    bool warmStart = layout->warmStart;
    bool positional = layout->positional;
    bool overdamped = world->def.dynamics == cn_dynamicsOverdamped;
    int ra, rb;
    cnContactBodies( world, rows, contact, &ra, &rb );
    const cnShape* shapeA = world->shapes + contact->shapeA;
    const cnShape* shapeB = world->shapes + contact->shapeB;
    double mu = sqrt( shapeA->material.friction * shapeB->material.friction );
    double restitution = fmax( shapeA->material.restitution, shapeB->material.restitution );
    for ( int k = 0; k < contact->manifold.pointCount; ++k )
    {
        const cnManifoldPoint* mp = contact->manifold.points + k;
        cnVec3 normal = mp->normal; // the manifold's, or the point's own (tori)
        cnVec3 rA = ra >= 0 ? cnSub( mp->point, bodies->center[ra] ) : cn_vec3Zero;
        cnVec3 rB = rb >= 0 ? cnSub( mp->point, bodies->center[rb] ) : cn_vec3Zero;
        double separation = mp->separation;

        double bias = 0.0;
        double push = 0.0;
        if ( overdamped || positional )
        {
            // end the step just touching
            bias = separation / timeStep;
        }
        else
        {
            // relative normal velocity at the start of the step, for restitution
            cnVec3 vA = cnPointVelocity( scratch->savedLinear, scratch->savedAngular, ra, rA );
            cnVec3 vB = cnPointVelocity( scratch->savedLinear, scratch->savedAngular, rb, rB );
            double approach = cnDot( normal, cnSub( vB, vA ) );
            if ( restitution > 0.0 && approach < -CN_RESTITUTION_THRESHOLD &&
                 separation + approach * timeStep <= 0.0 )
            {
                bias = restitution * approach;
            }
            else if ( separation > touching )
            {
                bias = separation / timeStep;
            }
            else
            {
                push = separation;
            }
        }

        // the points' relative velocity now: each row's free velocity, and the slide
        cnVec3 relative = cnSub( cnPointVelocity( bodies->linearVelocity, bodies->angularVelocity, rb, rB ),
                                 cnPointVelocity( bodies->linearVelocity, bodies->angularVelocity, ra, rA ) );
        int normalRow = cnWriteRow( rows, row++, ra, rb, rA, rB, normal, relative, bias );
        rows->push[normalRow] = push;
        rows->contact[normalRow] = c;
        rows->point[normalRow] = (uint8_t)k;
        rows->slot[normalRow] = 0;
        if ( warmStart )
        {
            rows->lambda[normalRow] = contact->normalImpulse[k];
        }
        if ( friction == false )
        {
            cnAddGroup( rows, group++, normalRow, 1, cn_groupNormal, 0.0, cn_frictionPyramid );
            continue;
        }

        // friction basis: along the sliding direction when the point slides
        cnVec3 slide = cnMulAdd( relative, -cnDot( relative, normal ), normal );
        double speed = cnLength( slide );
        cnVec3 t1 = speed > CN_SLIDE_THRESHOLD ? cnScale( 1.0 / speed, slide ) : cnPerpendicular( normal );
        cnVec3 t2 = cnCross( normal, t1 );
        cnVec3 tangents[2] = { t1, t2 };
        for ( int j = 0; j < 2; ++j )
        {
            int i = cnWriteRow( rows, row++, ra, rb, rA, rB, tangents[j], relative, 0.0 );
            rows->contact[i] = c;
            rows->point[i] = (uint8_t)k;
            rows->slot[i] = (uint8_t)( 1 + j );
            if ( warmStart )
            {
                rows->lambda[i] = cnDot( contact->tangentImpulse[k], tangents[j] );
            }
        }
        cnAddGroup( rows, group++, normalRow, 3, cn_groupContact, mu, world->def.frictionModel );
    }
}

static void cnContactRowsTask( int start, int end, int worker, void* context )
{
    (void)worker;
    const cnContactLayout* layout = context;
    for ( int n = start; n < end; ++n )
    {
        cnWriteContactRows( layout, layout->order[n], layout->rowStart[n], layout->groupStart[n] );
    }
}

bool cnPrepareContacts( const cnWorld* world, cnContactRows* rows, double timeStep,
                        const cnStepScratch* scratch, bool friction, bool warmStart, bool positional,
                        double touching, cnArena* arena, bool* outOfMemory )
{
    const cnContactSet* set = &world->contacts;
    size_t count = (size_t)( set->count > 0 ? set->count : 1 );
    int* order = cnArenaAlloc( arena, count * sizeof( int ), 16 );
    int* rowStart = cnArenaAlloc( arena, count * sizeof( int ), 16 );
    int* groupStart = cnArenaAlloc( arena, count * sizeof( int ), 16 );
    int* colorFirst = cnArenaAlloc( arena, ( count + 2 ) * sizeof( int ), 16 );
    int32_t* colorStart = cnArenaAlloc( arena, ( count + 1 ) * sizeof( int32_t ), 16 );
    if ( order == NULL || rowStart == NULL || groupStart == NULL || colorFirst == NULL || colorStart == NULL )
    {
        *outOfMemory = true;
        return false;
    }
    int levels = 0;
    int solved = 0;
    if ( world->def.enableColoring )
    {
        solved = cnColorContacts( world, rows, arena, order, colorFirst, &levels );
        if ( solved < 0 )
        {
            *outOfMemory = true;
            return false;
        }
    }
    else
    {
        // the cache's order, all in the overflow: no colours
        for ( int c = 0; c < set->count; ++c )
        {
            int ra, rb;
            if ( cnContactBodies( world, rows, set->contacts + c, &ra, &rb ) )
            {
                order[solved++] = c;
            }
        }
        colorFirst[0] = 0;
        colorFirst[1] = solved;
    }

    // the layout: each contact's first row and group, each colour's first group
    cnSolverProblem* p = &rows->problem;
    bool dropped = false;
    int color = 0;
    for ( int n = 0; n < solved; ++n )
    {
        for ( ; color <= levels && colorFirst[color] == n; ++color )
        {
            colorStart[color] = p->groupCount;
        }
        const cnContact* contact = set->contacts + order[n];
        const cnShape* shapeA = world->shapes + contact->shapeA;
        const cnShape* shapeB = world->shapes + contact->shapeB;
        dropped =
            dropped || ( friction == false && shapeA->material.friction * shapeB->material.friction > 0.0 );
        rowStart[n] = p->rowCount;
        groupStart[n] = p->groupCount;
        p->rowCount += ( friction ? 3 : 1 ) * contact->manifold.pointCount;
        p->groupCount += contact->manifold.pointCount;
    }
    for ( ; color <= levels; ++color )
    {
        colorStart[color] = p->groupCount;
    }
    // the levels; the groups added after them (joints, the oracle's) follow colorStart[colorCount]
    // and are swept in order
    p->colorCount = levels;
    p->colorStart = colorStart;

    cnContactLayout layout = { .world = world,
                               .rows = rows,
                               .scratch = scratch,
                               .timeStep = timeStep,
                               .touching = touching,
                               .friction = friction,
                               .warmStart = warmStart,
                               .positional = positional,
                               .order = order,
                               .rowStart = rowStart,
                               .groupStart = groupStart };
    cnParallelFor( &world->tasks, cnContactRowsTask, solved, CN_CONTACT_RANGE, &layout );
    rows->contactCount = solved;
    rows->contactOrder = order;
    rows->contactRowStart = rowStart;
    return dropped;
}

// ---- store and apply ----------------------------------------------------------------------------------

void cnRaiseHitEvents( cnWorld* world, const cnContactRows* rows, const double* lambda )
{
    const cnContactSet* set = &world->contacts;
    if ( set->hitShapeCount == 0 )
    {
        return;
    }
    const cnBodyStore* bodies = &world->bodies;
    double threshold = world->def.hitEventThreshold;
    for ( int i = 0; i < rows->problem.rowCount; ++i )
    {
        if ( rows->slot[i] != 0 || !( lambda[i] > 0.0 ) )
        {
            continue; // a tangent, joint or recursion row, or a normal one without impulse
        }
        int c = rows->contact[i];
        const cnContact* contact = set->contacts + c;
        if ( world->shapes[contact->ownerA].enableHitEvents == false &&
             world->shapes[contact->ownerB].enableHitEvents == false )
        {
            continue;
        }
        bool pressed = false;
        for ( int k = 0; k < contact->manifold.pointCount; ++k )
        {
            pressed = pressed || contact->normalImpulse[k] > 0.0;
        }
        if ( pressed )
        {
            continue;
        }
        const cnManifoldPoint* mp = contact->manifold.points + rows->point[i];
        int ra = world->slots[world->shapes[contact->shapeA].bodySlot].row;
        int rb = world->slots[world->shapes[contact->shapeB].bodySlot].row;
        ra = bodies->type[ra] == cn_staticBody || cnIsBodyAsleep( bodies, ra ) ? -1 : ra;
        rb = bodies->type[rb] == cn_staticBody || cnIsBodyAsleep( bodies, rb ) ? -1 : rb;
        cnVec3 vA = ra >= 0 ? cnPointVelocity( bodies->linearVelocity, bodies->angularVelocity, ra,
                                               cnSub( mp->point, bodies->center[ra] ) )
                            : cn_vec3Zero;
        cnVec3 vB = rb >= 0 ? cnPointVelocity( bodies->linearVelocity, bodies->angularVelocity, rb,
                                               cnSub( mp->point, bodies->center[rb] ) )
                            : cn_vec3Zero;
        double approach = -cnDot( mp->normal, cnSub( vB, vA ) );
        if ( !( approach > threshold ) )
        {
            continue;
        }
        // shape A before shape B, as in every contact (sub-sphere contacts may name them the other way)
        bool swap = contact->ownerA > contact->ownerB;
        cnShapeId idA = { contact->ownerA + 1, world->slot, contact->ownerGenerationA };
        cnShapeId idB = { contact->ownerB + 1, world->slot, contact->ownerGenerationB };
        cnContactHitEvent event = {
            .shapeA = swap ? idB : idA,
            .shapeB = swap ? idA : idB,
            .point = mp->point,
            .normal = swap ? cnNeg( mp->normal ) : mp->normal,
            .approachSpeed = approach,
        };
        // one event per pair of shapes and step: a multisphere world's sub-sphere contacts name the
        // shapes they belong to, and may start pressing one substep apart
        cnContactHitEvent* same = NULL;
        for ( int e = 0; e < set->hitCount && same == NULL; ++e )
        {
            cnContactHitEvent* other = set->hitEvents + e;
            bool match = other->shapeA.index1 == event.shapeA.index1 &&
                         other->shapeA.generation == event.shapeA.generation &&
                         other->shapeB.index1 == event.shapeB.index1 &&
                         other->shapeB.generation == event.shapeB.generation;
            same = match ? other : NULL;
        }
        if ( same == NULL )
        {
            cnPushHitEvent( world, &event ); // lost when out of memory
        }
        else if ( approach > same->approachSpeed )
        {
            *same = event; // the fastest point of the pair
        }
    }
}

typedef struct cnImpulseStore
{
    cnContact* contacts;
    const cnContactRows* rows;
    const double* lambda;
} cnImpulseStore;

// the impulses of the contacts [start, end) of the layout: each contact's own rows, in row order
static void cnStoreImpulsesTask( int start, int end, int worker, void* context )
{
    (void)worker;
    const cnImpulseStore* store = context;
    const cnContactRows* rows = store->rows;
    int rowCount = rows->problem.rowCount;
    for ( int n = start; n < end; ++n )
    {
        cnContact* contact = store->contacts + rows->contactOrder[n];
        for ( int k = 0; k < CN_MAX_MANIFOLD_POINTS; ++k )
        {
            contact->normalImpulse[k] = 0.0;
            contact->tangentImpulse[k] = cn_vec3Zero;
        }
        for ( int i = rows->contactRowStart[n];
              i < rowCount && rows->contact[i] == rows->contactOrder[n] &&
              rows->slot[i] != CN_RECURSION_SLOT && rows->slot[i] != CN_JOINT_SLOT;
              ++i )
        {
            int k = rows->point[i];
            if ( rows->slot[i] == 0 )
            {
                contact->normalImpulse[k] = store->lambda[i];
            }
            else
            {
                contact->tangentImpulse[k] =
                    cnMulAdd( contact->tangentImpulse[k], store->lambda[i], rows->direction[i] );
            }
        }
    }
}

// Every contact with rows takes its rows' impulses (the warm start of the next step). Contacts
// without rows keep theirs: a sleeping pair's stay for its waking, and a manifold without points
// has none that are read. On the workers, each contact by one of them.
void cnStoreImpulses( cnWorld* world, const cnContactRows* rows, const double* lambda )
{
    cnImpulseStore store = { world->contacts.contacts, rows, lambda };
    cnParallelFor( &world->tasks, cnStoreImpulsesTask, rows->contactCount, CN_CONTACT_RANGE, &store );
}

void cnApplyVelocities( cnWorld* world, const cnContactRows* rows, const double* delta,
                        const double* softDelta, cnStepScratch* scratch )
{
    cnBodyStore* bodies = &world->bodies;
    bool overdamped = world->def.dynamics == cn_dynamicsOverdamped;
    for ( int k = 0; k < rows->bodyCount; ++k )
    {
        int row = rows->rowOf[k];
        const double* d = delta + 6 * k;
        cnVec3 dv = cnMakeVec3( d[0], d[1], d[2] );
        cnVec3 dw = cnMakeVec3( d[3], d[4], d[5] );
        bodies->linearVelocity[row] = cnAdd( bodies->linearVelocity[row], dv );
        bodies->angularVelocity[row] = cnAdd( bodies->angularVelocity[row], dw );
        if ( overdamped == false )
        {
            // the impulse's angular momentum, carried to the new pose with the rest (integrate.c)
            cnMat3 inertia = cnRotateTensor( bodies->transform[row].q, bodies->inertia[row] );
            scratch->angularMomentum[row] = cnAdd( scratch->angularMomentum[row], cnMulMV( inertia, dw ) );
        }
        if ( softDelta != NULL )
        {
            // the push: what the soft pass moved by beyond the relaxed velocities, this step only
            const double* s = softDelta + 6 * k;
            scratch->pseudoLinear[row] = cnMakeVec3( s[0] - d[0], s[1] - d[1], s[2] - d[2] );
            scratch->pseudoAngular[row] = cnMakeVec3( s[3] - d[3], s[4] - d[4], s[5] - d[5] );
        }
    }
}

void cnKeepPreviousVelocities( cnWorld* world, const cnContactRows* rows, cnStepScratch* scratch )
{
    cnBodyStore* bodies = &world->bodies;
    bool overdamped = world->def.dynamics == cn_dynamicsOverdamped;
    bool* touched = cnArenaAlloc( &world->arena, (size_t)( rows->bodyCount > 0 ? rows->bodyCount : 1 ), 16 );
    if ( touched == NULL )
    {
        return;
    }
    memset( touched, 0, (size_t)rows->bodyCount );
    for ( int i = 0; i < rows->problem.rowCount; ++i )
    {
        if ( rows->problem.bodyA[i] >= 0 )
        {
            touched[rows->problem.bodyA[i]] = true;
        }
        if ( rows->problem.bodyB[i] >= 0 )
        {
            touched[rows->problem.bodyB[i]] = true;
        }
    }
    for ( int k = 0; k < rows->bodyCount; ++k )
    {
        if ( touched[k] == false )
        {
            continue;
        }
        int row = rows->rowOf[k];
        bodies->linearVelocity[row] = scratch->savedLinear[row];
        bodies->angularVelocity[row] = scratch->savedAngular[row];
        if ( overdamped == false )
        {
            cnMat3 inertia = cnRotateTensor( bodies->transform[row].q, bodies->inertia[row] );
            scratch->angularMomentum[row] = cnMulMV( inertia, scratch->savedAngular[row] );
        }
    }
}
