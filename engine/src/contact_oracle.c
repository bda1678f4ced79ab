// SPDX-License-Identifier: MIT
// The oracle of the ReLCP recursion (contact_oracle.h): given a pass's impulses, move the bodies to
// their trial poses, collide the pairs that can touch there, and append a row for every point that
// overlaps (digest 3.5 and 3.8; docs/relcp.md). The solver layer calls it through the problem
// (cairn/solver.h, cnSolverOracle) on the passes of contact_solver.c that run the recursion.

#include "contact_oracle.h"

#include "ccd_support.h"
#include "contact_rows.h"
#include "core.h"
#include "joint.h"
#include "narrow_phase.h"
#include "task.h"
#include "world.h"

#include "cairn/solver.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

// pairs outside the contact cache whose start-pose rows one step's oracle remembers (past it, such a
// pair gets rows at its trial poses only)
#define CN_ORACLE_NEW_PAIRS 256

// a candidate pair of the trial poses: shapes, and the contact it has in the cache (-1: none yet)
typedef struct cnTrialPair
{
    int shapeA;
    int shapeB;
    int contact;
} cnTrialPair;

// the broadphase's pair rule: different bodies, one of them dynamic, categories in masks; and the
// contact update's: no sensor
static bool cnShapesMayPair( const cnWorld* world, int a, int b )
{
    const cnShape* sa = world->shapes + a;
    const cnShape* sb = world->shapes + b;
    if ( sa->bodySlot == sb->bodySlot || sa->isSensor || sb->isSensor ||
         ( sa->categoryBits & sb->maskBits ) == 0 || ( sb->categoryBits & sa->maskBits ) == 0 ||
         cnJointsFilterPair( (cnWorld*)world, sa->bodySlot, sb->bodySlot ) )
    {
        return false;
    }
    const cnBodyStore* bodies = &world->bodies;
    return bodies->type[world->slots[sa->bodySlot].row] == cn_dynamicBody ||
           bodies->type[world->slots[sb->bodySlot].row] == cn_dynamicBody;
}

// the contact of a shape pair in the cache (sorted by shape pair), or -1
static int cnFindContact( const cnContactSet* set, int shapeA, int shapeB )
{
    int low = 0;
    int high = set->count - 1;
    while ( low <= high )
    {
        int mid = ( low + high ) / 2;
        const cnContact* c = set->contacts + mid;
        if ( c->shapeA == shapeA && c->shapeB == shapeB )
        {
            return mid;
        }
        if ( c->shapeA < shapeA || ( c->shapeA == shapeA && c->shapeB < shapeB ) )
        {
            low = mid + 1;
        }
        else
        {
            high = mid - 1;
        }
    }
    return -1;
}

static int cnCompareTrialPairs( const void* a, const void* b )
{
    const cnTrialPair* p = a;
    const cnTrialPair* q = b;
    if ( p->shapeA != q->shapeA )
    {
        return p->shapeA < q->shapeA ? -1 : 1;
    }
    return p->shapeB < q->shapeB ? -1 : p->shapeB > q->shapeB ? 1 : 0;
}

// shapes whose trial boxes left their fat boxes, and the pairs the broadphase query gives them
typedef struct cnEscapes
{
    const cnWorld* world;
    const bool* escaped; // per shape index
    int shape;           // the escaped shape being queried
    cnTrialPair* pairs;
    int count;
    int capacity;
    bool full;
} cnEscapes;

static void cnPushTrialPair( cnEscapes* e, int a, int b )
{
    if ( e->count == e->capacity )
    {
        e->full = true;
        return;
    }
    e->pairs[e->count++] = ( cnTrialPair ){ a < b ? a : b, a < b ? b : a, -1 };
}

static bool cnEscapeQuery( int proxyKey, int shapeIndex, void* context )
{
    (void)proxyKey;
    cnEscapes* e = context;
    // escaped shapes meet each other in the pass over their trial boxes
    if ( e->escaped[shapeIndex] == false && cnShapesMayPair( e->world, e->shape, shapeIndex ) &&
         cnFindContact( &e->world->contacts, e->shape < shapeIndex ? e->shape : shapeIndex,
                        e->shape < shapeIndex ? shapeIndex : e->shape ) < 0 )
    {
        cnPushTrialPair( e, e->shape, shapeIndex );
    }
    return e->full == false;
}

// The overlapping points of a pair at the trial poses: the narrowphase with no margin (only points
// that overlap compete for the manifold's places), warm from the pair's manifold at the start of
// the step. A pair with a torus is asked again cold and the points of both are kept: linked rings
// touch in several places and either search alone can miss one (on the taut chainmail the warm one
// missed 1.6 mm, the cold one 5.6e-5 m, against a brute-force scan of the core circle; warm from
// the previous level's points instead missed 1.5e-4 m).
static bool cnCollideAtTrial( const cnContactSet* set, int contact, const cnCollisionShape placed[2],
                              cnManifold* manifold )
{
    const cnManifold* hint = contact >= 0 && set->contacts[contact].manifold.pointCount > 0
                                 ? &set->contacts[contact].manifold
                                 : NULL;
    if ( cnCollide( placed + 0, placed + 1, 0.0, hint, manifold ) != cn_statusOk )
    {
        return false;
    }
    if ( hint == NULL ||
         ( placed[0].geometry->type != cn_torusShape && placed[1].geometry->type != cn_torusShape ) )
    {
        return true;
    }
    cnManifold cold;
    if ( cnCollide( placed + 0, placed + 1, 0.0, NULL, &cold ) != cn_statusOk )
    {
        return true;
    }
    for ( int k = 0; k < cold.pointCount && manifold->pointCount < CN_MAX_MANIFOLD_POINTS; ++k )
    {
        bool known = false;
        for ( int j = 0; j < manifold->pointCount && known == false; ++j )
        {
            known = cnLengthSquared( cnSub( cold.points[k].point, manifold->points[j].point ) ) < 1e-14;
        }
        if ( known == false )
        {
            manifold->points[manifold->pointCount++] = cold.points[k];
        }
    }
    return true;
}

// Candidates whose trial collisions are held at once (their manifolds in the step arena), and how
// many a worker takes at a time.
#define CN_TRIAL_CHUNK 1024
#define CN_TRIAL_RANGE 8

// One chunk of the trial collisions: candidates [first, first + count) of the cache's contacts
// followed by the escaped pairs. Each candidate's collision reads the world and the trial poses
// and writes only its own manifold, so the chunk runs on any number of workers with the same bits.
typedef struct cnTrialCollide
{
    const cnWorld* world;
    const cnContactRows* rows;
    const cnTransform* pose;
    const cnTrialPair* pairs; // the escaped pairs, after the cache's contacts
    int first;
    cnManifold* manifolds; // (chunk) the candidates' manifolds at the trial poses
    uint8_t* touched;      // (chunk) 1 where the manifold is to be read
} cnTrialCollide;

// the shapes of candidate k
static void cnTrialShapes( const cnTrialCollide* trial, int k, int shapeIndex[2] )
{
    const cnContactSet* set = &trial->world->contacts;
    if ( k < set->count )
    {
        shapeIndex[0] = set->contacts[k].shapeA;
        shapeIndex[1] = set->contacts[k].shapeB;
        return;
    }
    shapeIndex[0] = trial->pairs[k - set->count].shapeA;
    shapeIndex[1] = trial->pairs[k - set->count].shapeB;
}

static void cnTrialCollideRange( int start, int end, int worker, void* context )
{
    (void)worker;
    const cnTrialCollide* trial = context;
    const cnWorld* world = trial->world;
    const cnBodyStore* bodies = &world->bodies;
    for ( int n = start; n < end; ++n )
    {
        int k = trial->first + n;
        trial->touched[n] = 0;
        int shapeIndex[2];
        cnTrialShapes( trial, k, shapeIndex );
        cnCollisionShape placed[2];
        bool moving = false;
        bool solved = false;
        for ( int side = 0; side < 2; ++side )
        {
            const cnShape* shape = world->shapes + shapeIndex[side];
            int row = world->slots[shape->bodySlot].row;
            solved = solved || trial->rows->solverIndex[row] >= 0;
            moving = moving || bodies->type[row] != cn_staticBody;
            placed[side] = ( cnCollisionShape ){ &shape->geometry, shape->hull,
                                                 cnMulTransforms( trial->pose[row], shape->localPose ) };
        }
        if ( moving == false || solved == false )
        {
            continue;
        }
        int contact = k < world->contacts.count ? k : -1;
        trial->touched[n] =
            cnCollideAtTrial( &world->contacts, contact, placed, trial->manifolds + n ) ? 1 : 0;
    }
}

// Where the oracle keeps whether a pair has rows at the start pose: the contact's flag, or the
// entry of a pair the cache does not have (added when first asked; NULL when the list is full).
static bool* cnFindStarted( cnOracleContext* context, int contact, const int shapeIndex[2] )
{
    if ( contact >= 0 )
    {
        return context->started + contact;
    }
    for ( int k = 0; k < context->startedCount; ++k )
    {
        if ( context->startedPairs[2 * k] == shapeIndex[0] &&
             context->startedPairs[2 * k + 1] == shapeIndex[1] )
        {
            return context->started + context->world->contacts.count + k;
        }
    }
    if ( context->startedCount == context->startedCapacity )
    {
        return NULL;
    }
    int k = context->startedCount++;
    context->startedPairs[2 * k] = shapeIndex[0];
    context->startedPairs[2 * k + 1] = shapeIndex[1];
    context->started[context->world->contacts.count + k] = false;
    return context->started + context->world->contacts.count + k;
}

// The rows of a pair at the start pose, as the assembly makes them for a pair within the contact
// margin (b = J v* + separation / dt, frictionless): what a pair that was further apart at the start
// gets when the oracle finds it overlapping at a trial pose. `overlap` (m) is how deep it went
// there; the narrowphase looks that far, plus the bodies' motion, for the start's separation.
static int cnAddStartRows( cnOracleContext* context, const int shapeIndex[2], const int bodyRow[2],
                           double overlap, const double* delta, cnOracleResult* result )
{
    cnWorld* world = context->world;
    cnContactRows* rows = context->rows;
    cnSolverProblem* problem = &rows->problem;
    const cnBodyStore* bodies = &world->bodies;
    cnCollisionShape placed[2] = { cnPlaceShape( world, shapeIndex[0] ),
                                   cnPlaceShape( world, shapeIndex[1] ) };
    double reach = overlap;
    for ( int side = 0; side < 2; ++side )
    {
        cnAABB box = cnComputeAABB( placed + side );
        double radius = 0.5 * cnLength( cnSub( box.upper, box.lower ) );
        int row = bodyRow[side];
        if ( bodies->type[row] != cn_staticBody )
        {
            // the trial motion: the velocities and the pass's change of them (a position pass's
            // pseudo-velocity, which joints' position corrections can make large)
            cnVec3 v = bodies->linearVelocity[row];
            cnVec3 w = bodies->angularVelocity[row];
            int k = context->rows->solverIndex[row];
            if ( k >= 0 )
            {
                const double* d = delta + 6 * k;
                v = cnAdd( v, cnMakeVec3( d[0], d[1], d[2] ) );
                w = cnAdd( w, cnMakeVec3( d[3], d[4], d[5] ) );
            }
            double speed = cnLength( v ) + radius * cnLength( w );
            reach += 2.0 * context->timeStep * speed + radius;
        }
    }
    cnManifold manifold;
    if ( cnCollide( placed + 0, placed + 1, reach, NULL, &manifold ) != cn_statusOk )
    {
        return 0;
    }
    int added = 0;
    for ( int p = 0; p < manifold.pointCount; ++p )
    {
        const cnManifoldPoint* mp = manifold.points + p;
        if ( problem->rowCount >= problem->rowCapacity || problem->groupCount >= problem->groupCapacity )
        {
            result->rowsRefused += 1;
            continue;
        }
        cnVec3 rA = cnSub( mp->point, bodies->center[bodyRow[0]] );
        cnVec3 rB = cnSub( mp->point, bodies->center[bodyRow[1]] );
        // static bodies are the ground (-1); a kinematic one's velocity is in b, as in the assembly
        int ra = bodies->type[bodyRow[0]] == cn_staticBody ? -1 : bodyRow[0];
        int rb = bodies->type[bodyRow[1]] == cn_staticBody ? -1 : bodyRow[1];
        int i = cnAddRow( rows, world, rows->problem.rowCount++, ra, rb, rA, rB, mp->normal,
                          mp->separation / context->timeStep );
        cnAddGroup( rows, rows->problem.groupCount++, i, 1, cn_groupNormal, 0.0, cn_frictionPyramid );
        rows->contact[i] = -1;
        rows->point[i] = 0;
        rows->slot[i] = CN_RECURSION_SLOT;
        added += 1;
    }
    return added;
}

// The recursion's rows (ReLCP, digest 3.5 and 3.8): move every moving body to its trial pose (a
// dynamic one by its predicted velocity plus the solve's change, a kinematic one by its own),
// find the pairs that can touch there (the cache's pairs, and the broadphase asked again for the
// shapes that left their fat boxes), collide them, and for each point whose separation is below
// zero by more than `tolerance` append a frictionless normal row at the trial pose:
//     separation + dt J (v - v_trial) >= 0,   b = separation / dt - J_dyn delta,
// with v the velocities of the pass (in an inertial world the position pass's: the solved
// velocities, the pseudo-velocity its unknowns). Rows of earlier calls are never touched.
static cnStatus cnAddOracleRows( cnOracleContext* context, const double* delta, double tolerance,
                                 cnOracleResult* result )
{
    cnWorld* world = context->world;
    cnContactRows* rows = context->rows;
    double timeStep = context->timeStep;
    const cnBodyStore* bodies = &world->bodies;
    const cnContactSet* set = &world->contacts;
    cnSolverProblem* problem = &rows->problem;
    cnArena* arena = &world->arena;

    // the trial poses
    size_t bodyRows = (size_t)( bodies->count > 0 ? bodies->count : 1 );
    cnTransform* pose = cnArenaAlloc( arena, bodyRows * sizeof( cnTransform ), 16 );
    cnVec3* center = cnArenaAlloc( arena, bodyRows * sizeof( cnVec3 ), 16 );
    size_t shapeSlots = (size_t)( world->shapeCapacity > 0 ? world->shapeCapacity : 1 );
    bool* escaped = cnArenaAlloc( arena, shapeSlots, 16 );
    cnAABB* trialBox = cnArenaAlloc( arena, shapeSlots * sizeof( cnAABB ), 16 );
    int* escapedList = cnArenaAlloc( arena, shapeSlots * sizeof( int ), 16 );
    if ( pose == NULL || center == NULL || escaped == NULL || trialBox == NULL || escapedList == NULL )
    {
        return cn_statusOutOfMemory;
    }
    memset( escaped, 0, shapeSlots );
    int escapedCount = 0;
    for ( int row = 0; row < bodies->count; ++row )
    {
        pose[row] = bodies->transform[row];
        center[row] = bodies->center[row];
        if ( bodies->type[row] == cn_staticBody )
        {
            continue;
        }
        cnVec3 v = bodies->linearVelocity[row];
        cnVec3 w = bodies->angularVelocity[row];
        if ( rows->solverIndex[row] >= 0 )
        {
            const double* d = delta + 6 * rows->solverIndex[row];
            v = cnAdd( v, cnMakeVec3( d[0], d[1], d[2] ) );
            w = cnAdd( w, cnMakeVec3( d[3], d[4], d[5] ) );
        }
        pose[row] = cnAdvanceBody( bodies, row, v, w, timeStep, center + row );
        // the shapes that collide: a multisphere shape's spheres instead of it
        for ( int index = cnFirstCollider( world, row ); index != CN_NULL_INDEX;
              index = cnNextCollider( world, index ) )
        {
            const cnShape* shape = world->shapes + index;
            cnCollisionShape placed = { &shape->geometry, shape->hull,
                                        cnMulTransforms( pose[row], shape->localPose ) };
            trialBox[index] = cnComputeAABB( &placed );
            cnAABB fat = cnBroadPhase_GetFatAABB( &set->broadPhase, shape->proxyKey );
            if ( cnAABB_IsValid( trialBox[index] ) && cnAABB_Contains( &fat, trialBox + index ) == false )
            {
                escaped[index] = true;
                escapedList[escapedCount++] = index;
            }
        }
    }

    // pairs the cache does not have: escaped shapes against the others' fat boxes, and against each
    // other's trial boxes; sorted, each once
    cnEscapes e = { .world = world, .escaped = escaped };
    if ( escapedCount > 0 )
    {
        e.capacity = 64 * escapedCount + 64;
        e.pairs = cnArenaAlloc( arena, (size_t)e.capacity * sizeof( cnTrialPair ), 16 );
        if ( e.pairs == NULL )
        {
            return cn_statusOutOfMemory;
        }
        for ( int k = 0; k < escapedCount && e.full == false; ++k )
        {
            e.shape = escapedList[k];
            cnBroadPhase_Query( &set->broadPhase, trialBox[e.shape], cnEscapeQuery, &e );
            for ( int m = k + 1; m < escapedCount && e.full == false; ++m )
            {
                int other = escapedList[m];
                int a = e.shape < other ? e.shape : other;
                int b = e.shape < other ? other : e.shape;
                if ( cnAABB_Overlaps( trialBox + e.shape, trialBox + other ) &&
                     cnShapesMayPair( world, a, b ) && cnFindContact( set, a, b ) < 0 )
                {
                    cnPushTrialPair( &e, a, b );
                }
            }
        }
        qsort( e.pairs, (size_t)e.count, sizeof( cnTrialPair ), cnCompareTrialPairs );
        int unique = 0;
        for ( int k = 0; k < e.count; ++k )
        {
            if ( unique == 0 || cnCompareTrialPairs( e.pairs + unique - 1, e.pairs + k ) != 0 )
            {
                e.pairs[unique++] = e.pairs[k];
            }
        }
        e.count = unique;
        // a pair with no room to be listed may overlap unseen: said as refused
        result->rowsRefused += e.full ? 1 : 0;
    }

    // collide every candidate at the trial poses, the cache's pairs first, in their order: a chunk
    // of candidates at a time on the workers (cnTrialCollideRange), then their points into rows on
    // this thread, in candidate order
    int candidateCount = set->count + e.count;
    int chunk = candidateCount < CN_TRIAL_CHUNK ? candidateCount : CN_TRIAL_CHUNK;
    if ( context->trialCapacity < chunk )
    {
        // once per step at most, to the largest chunk (the step arena does not free)
        context->trialManifolds = cnArenaAlloc( arena, (size_t)chunk * sizeof( cnManifold ), 16 );
        context->trialTouched = cnArenaAlloc( arena, (size_t)chunk, 16 );
        if ( context->trialManifolds == NULL || context->trialTouched == NULL )
        {
            context->trialCapacity = 0;
            return cn_statusOutOfMemory;
        }
        context->trialCapacity = chunk;
    }
    cnTrialCollide trial = { .world = world,
                             .rows = rows,
                             .pose = pose,
                             .pairs = e.pairs,
                             .manifolds = context->trialManifolds,
                             .touched = context->trialTouched };
    int added = 0;
    for ( trial.first = 0; trial.first < candidateCount; trial.first += chunk )
    {
        int count = candidateCount - trial.first < chunk ? candidateCount - trial.first : chunk;
        cnParallelFor( &world->tasks, cnTrialCollideRange, count, CN_TRIAL_RANGE, &trial );
        for ( int n = 0; n < count; ++n )
        {
            if ( trial.touched[n] == 0 )
            {
                continue;
            }
            int k = trial.first + n;
            int c = k < set->count ? k : -1;
            int shapeIndex[2];
            cnTrialShapes( &trial, k, shapeIndex );
            int bodyRow[2];
            int solverRow[2];
            for ( int side = 0; side < 2; ++side )
            {
                int row = world->slots[world->shapes[shapeIndex[side]].bodySlot].row;
                bodyRow[side] = row;
                solverRow[side] = rows->solverIndex[row] >= 0 ? row : -1;
            }
            const cnManifold* manifold = trial.manifolds + n;
            bool* started = cnFindStarted( context, c, shapeIndex );
            for ( int p = 0; p < manifold->pointCount; ++p )
            {
                const cnManifoldPoint* mp = manifold->points + p;
                result->maxOverlap = fmax( result->maxOverlap, -mp->separation );
                if ( mp->separation >= -tolerance )
                {
                    continue;
                }
                if ( problem->rowCount >= problem->rowCapacity ||
                     problem->groupCount >= problem->groupCapacity )
                {
                    result->rowsRefused += 1;
                    continue;
                }
                if ( started != NULL && *started == false )
                {
                    // a pair with no row yet (it was beyond the contact margin at the start): its
                    // rows at the start pose first, as the assembly makes them (the paper's level 0
                    // for every nearby pair), then rows at trial poses if it still overlaps
                    *started = true;
                    added += cnAddStartRows( context, shapeIndex, bodyRow, -mp->separation, delta, result );
                    break;
                }
                cnVec3 rA = cnSub( mp->point, center[bodyRow[0]] );
                cnVec3 rB = cnSub( mp->point, center[bodyRow[1]] );
                // b = J_dyn v + separation / dt from cnAddRow, then J_dyn (v + delta) off
                int i = cnAddRow( rows, world, rows->problem.rowCount++, solverRow[0], solverRow[1], rA, rB,
                                  mp->normal, mp->separation / timeStep );
                const double* jacobians[2] = { problem->jacobianA + 6 * i, problem->jacobianB + 6 * i };
                for ( int side = 0; side < 2; ++side )
                {
                    int row = solverRow[side];
                    if ( row < 0 )
                    {
                        continue;
                    }
                    const double* d = delta + 6 * rows->solverIndex[row];
                    cnVec3 v = bodies->linearVelocity[row];
                    cnVec3 w = bodies->angularVelocity[row];
                    double velocity[6] = { v.x, v.y, v.z, w.x, w.y, w.z };
                    for ( int j = 0; j < 6; ++j )
                    {
                        problem->b[i] -= jacobians[side][j] * ( d[j] + velocity[j] );
                    }
                }
                cnAddGroup( rows, rows->problem.groupCount++, i, 1, cn_groupNormal, 0.0, cn_frictionPyramid );
                rows->contact[i] = c;
                rows->point[i] = 0;
                rows->slot[i] = CN_RECURSION_SLOT;
                added += 1;
            }
        }
    }
    result->rowsAdded += added;
    result->groupsAdded += added;
    return cn_statusOk;
}

// The oracle the world gives the final pass (cairn/solver.h, cnSolverOracle).
static cnStatus cnContactOracle( void* context, cnSolverProblem* problem, const double* lambda,
                                 const double* deltaVelocity, double overlapTolerance,
                                 cnOracleResult* result )
{
    (void)lambda;
    cnOracleContext* oracle = context;
    *result = ( cnOracleResult ){ 0 };
    if ( problem != &oracle->rows->problem || deltaVelocity == NULL || !( overlapTolerance > 0.0 ) )
    {
        return cn_statusInvalidArgument;
    }
    return cnAddOracleRows( oracle, deltaVelocity, overlapTolerance, result );
}

cnStatus cnMakeOracle( cnWorld* world, cnContactRows* rows, double timeStep, cnOracleContext* context,
                       cnSolverOracle* hook )
{
    const cnContactSet* set = &world->contacts;
    *context =
        ( cnOracleContext ){ world, rows, timeStep, NULL, NULL, 0, CN_ORACLE_NEW_PAIRS, NULL, NULL, 0 };
    context->started =
        cnArenaAlloc( &world->arena, (size_t)( set->count + CN_ORACLE_NEW_PAIRS ) * sizeof( bool ), 16 );
    context->startedPairs = cnArenaAlloc( &world->arena, 2 * CN_ORACLE_NEW_PAIRS * sizeof( int ), 16 );
    if ( context->started == NULL || context->startedPairs == NULL )
    {
        return cn_statusOutOfMemory;
    }
    for ( int c = 0; c < set->count; ++c )
    {
        context->started[c] = set->contacts[c].manifold.pointCount > 0;
    }
    *hook = ( cnSolverOracle ){ .context = context, .fcn = cnContactOracle };
    return cn_statusOk;
}
