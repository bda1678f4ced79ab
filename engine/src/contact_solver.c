// SPDX-License-Identifier: MIT
// Contact constraints (the model is in contact_solver.h), in the stages of Box2D v3's contact
// solver:
//   prepare     the dynamic bodies' solver indices and W blocks; a group per contact point
//   warm start  the cached impulses, the tangent ones projected on this step's tangents
//   solve       the main pass: the soft problem of an inertial world, or the hard one
//   relax       the hard problem from the soft impulses, with the world's small relax budget (the
//               joints' rows from their warm start, with the full budget)
//   recursion   the final pass with the oracle: rows added at the trial poses, solved again (the
//               relcp solver, or the world's contactRecursions around its solver)
//   store       impulses back into the contact cache for the next step's warm start
//   apply       velocity change, the impulse's angular momentum, the push as a one-step
//               pseudo-velocity
// Every pass goes through the solver layer (cnLayerSolve), which checks the problem against the
// solver, prepares it and grades the result with the merits the step report carries.

#include "contact_solver.h"

#include "ccd_support.h"
#include "core.h"
#include "joint.h"
#include "narrow_phase.h"
#include "solver_layer.h"
#include "world.h"

#include "cairn/solver.h"

#include <stdlib.h>
#include <string.h>

// restitution acts on impacts faster than this, m/s
#define CN_RESTITUTION_THRESHOLD 1.0
// below this tangential speed, m/s, the friction basis is a fixed function of the normal
#define CN_SLIDE_THRESHOLD 1.0e-3
// soft contact of the soft step: damping ratio of the push-out spring, and the fastest push-out, m/s
#define CN_CONTACT_DAMPING 10.0
#define CN_MAX_PUSH_SPEED  3.0
// the hard problem's touching tolerance, m: a point this close counts as touching (b = J v), not as
// a speculative gap (b = J v + separation / dt). The position pass of the split impulse leaves the
// points of a resting face at separations of +-1e-8 to 1e-7 m (its solve's tolerance and the
// rotation's second-order terms); as gaps their biases differ from point to point in a way no rigid
// motion meets, so a face's equations in the velocity problem are inconsistent and an exact solver
// has to let go of some point every step (pyramid20 under pgs_sm: its solves stalled at a merit of
// 5e-6 and the pyramid rocked; with 1e-7 it still does; with 1e-6 or 1e-5 every solve converges).
#define CN_TOUCH_TOLERANCE 1e-5
// solver_inaccurate: a usable final solve after which a contact closes (Signorini violation) faster
// than the fastest approach of the problem with no impulse, plus this slack, m/s
#define CN_INACCURATE_SLACK  1e-3
#define CN_INACCURATE_FACTOR 4.0
// a row the oracle added: no manifold point to warm-start
#define CN_RECURSION_SLOT 255
// a joint's row: its impulse goes back to the joint (joint.c)
#define CN_JOINT_SLOT 254
// pairs outside the contact cache whose start-pose rows one step's oracle remembers (past it, such a
// pair gets rows at its trial poses only)
#define CN_ORACLE_NEW_PAIRS 256

// One substep's problem and the maps from its rows back to the contact cache, all from the step
// arena.
typedef struct cnContactRows
{
    cnSolverProblem problem; // points at the arrays below
    double* lambda;          // (rowCapacity)
    // where each row's impulse goes back to: contact, point and slot (0 normal, 1-2 tangents)
    int32_t* contact;
    uint8_t* point;
    uint8_t* slot;
    cnVec3* direction; // the row's world direction (normal or tangent)
    double* push;      // separation a penetrating normal row pushes out in the soft pass, else 0
    // bodies: solver index of each body row (-1 unless dynamic), and back
    int bodyCount;
    int* solverIndex;
    int* rowOf;
    double* wLinear;
    double* wAngular;
} cnContactRows;

// ---- prepare ----------------------------------------------------------------------------------------

// 3x3 block, row major, of a tensor
static void cnStoreBlock( double* out, cnMat3 m )
{
    cnMat3 t = cnTranspose( m );
    memcpy( out, &t, 9 * sizeof( double ) );
}

static bool cnAllocRows( cnArena* arena, cnContactRows* rows, int bodyRows, int rowCapacity,
                         int groupCapacity )
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
    rows->solverIndex = cnArenaAlloc( arena, bodies * sizeof( int ), 16 );
    rows->rowOf = cnArenaAlloc( arena, bodies * sizeof( int ), 16 );
    rows->wLinear = cnArenaAlloc( arena, 9 * bodies * sizeof( double ), 16 );
    rows->wAngular = cnArenaAlloc( arena, 9 * bodies * sizeof( double ), 16 );
    return p->groups != NULL && p->lower != NULL && p->upper != NULL && p->b != NULL && p->bodyA != NULL &&
           p->bodyB != NULL && p->jacobianA != NULL && p->jacobianB != NULL && rows->lambda != NULL &&
           rows->contact != NULL && rows->point != NULL && rows->slot != NULL && rows->direction != NULL &&
           rows->push != NULL && rows->solverIndex != NULL && rows->rowOf != NULL && rows->wLinear != NULL &&
           rows->wAngular != NULL;
}

// solver indices of the dynamic bodies, and their W blocks
static void cnPrepareBodies( const cnWorld* world, cnContactRows* rows )
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

// row i along `d` between body rows ra and rb (-1: the ground) at lever arms rA, rB, with
// b = J v (every moving body, kinematic ones included) + bias
static int cnAddRow( cnContactRows* rows, const cnWorld* world, int i, int ra, int rb, cnVec3 rA, cnVec3 rB,
                     cnVec3 d, double bias )
{
    cnSolverProblem* p = &rows->problem;
    const cnBodyStore* bodies = &world->bodies;
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
    cnVec3 vA = cnPointVelocity( bodies->linearVelocity, bodies->angularVelocity, ra, rA );
    cnVec3 vB = cnPointVelocity( bodies->linearVelocity, bodies->angularVelocity, rb, rB );
    p->b[i] = cnDot( d, cnSub( vB, vA ) ) + bias;
    rows->lambda[i] = 0.0;
    rows->push[i] = 0.0;
    return i;
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

// `model`: the friction model of a contact group (the world's), cn_frictionPyramid for the others
static void cnAddGroup( cnContactRows* rows, int index, int firstRow, int rowCount, cnGroupKind kind,
                        double mu, cnFrictionModel model )
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

// The contacts in colour order (Box2D v3's graph colouring): each contact, in cache order, takes the
// first of CN_COLOR_COUNT colours that neither of its solved bodies has yet, or the overflow after
// them. No two contacts of one colour move a common body, so a colour's groups can be swept in any
// order, on any number of workers, with the same result. Writes the order of the contacts to solve
// (`order`, returns how many) and each colour's first contact in it (colorFirst, CN_COLOR_COUNT + 2
// entries: the overflow is the last colour). Without memory the cache order, one overflow colour.
#define CN_COLOR_COUNT 24
// contacts a worker prepares at a time
#define CN_CONTACT_RANGE 32
static int cnColorContacts( const cnWorld* world, const cnContactRows* rows, cnArena* arena, int* order,
                            int* colorFirst )
{
    const cnContactSet* set = &world->contacts;
    int bodyCount = rows->bodyCount > 0 ? rows->bodyCount : 1;
    uint32_t* used = cnArenaAlloc( arena, (size_t)bodyCount * sizeof( uint32_t ), 16 );
    uint8_t* color = cnArenaAlloc( arena, (size_t)( set->count > 0 ? set->count : 1 ), 16 );
    int counts[CN_COLOR_COUNT + 1] = { 0 };
    if ( used != NULL )
    {
        memset( used, 0, (size_t)bodyCount * sizeof( uint32_t ) );
    }
    for ( int c = 0; c < set->count; ++c )
    {
        int ra, rb;
        if ( cnContactBodies( world, rows, set->contacts + c, &ra, &rb ) == false )
        {
            if ( color != NULL )
            {
                color[c] = UINT8_MAX;
            }
            continue;
        }
        int sa = ra >= 0 ? rows->solverIndex[ra] : -1;
        int sb = rb >= 0 ? rows->solverIndex[rb] : -1;
        int k = CN_COLOR_COUNT;
        if ( used != NULL && color != NULL )
        {
            uint32_t taken = ( sa >= 0 ? used[sa] : 0u ) | ( sb >= 0 ? used[sb] : 0u );
            for ( k = 0; k < CN_COLOR_COUNT && ( taken >> k ) & 1u; ++k )
            {
            }
            if ( k < CN_COLOR_COUNT )
            {
                used[sa >= 0 ? sa : sb] |= 1u << k;
                if ( sa >= 0 && sb >= 0 )
                {
                    used[sb] |= 1u << k;
                }
            }
            color[c] = (uint8_t)k;
        }
        counts[k] += 1;
    }
    colorFirst[0] = 0;
    for ( int k = 0; k <= CN_COLOR_COUNT; ++k )
    {
        colorFirst[k + 1] = colorFirst[k] + counts[k];
    }
    int next[CN_COLOR_COUNT + 1];
    memcpy( next, colorFirst, sizeof( next ) );
    for ( int c = 0; c < set->count; ++c )
    {
        int k = color != NULL ? color[c] : CN_COLOR_COUNT;
        if ( color == NULL )
        {
            int ra, rb;
            k = cnContactBodies( world, rows, set->contacts + c, &ra, &rb ) ? CN_COLOR_COUNT : UINT8_MAX;
        }
        if ( k != UINT8_MAX )
        {
            order[next[k]++] = c;
        }
    }
    return colorFirst[CN_COLOR_COUNT + 1];
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

        int normalRow = cnAddRow( rows, world, row++, ra, rb, rA, rB, normal, bias );
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
        cnVec3 vA = cnPointVelocity( bodies->linearVelocity, bodies->angularVelocity, ra, rA );
        cnVec3 vB = cnPointVelocity( bodies->linearVelocity, bodies->angularVelocity, rb, rB );
        cnVec3 slide = cnSub( vB, vA );
        slide = cnMulAdd( slide, -cnDot( slide, normal ), normal );
        double speed = cnLength( slide );
        cnVec3 t1 = speed > CN_SLIDE_THRESHOLD ? cnScale( 1.0 / speed, slide ) : cnPerpendicular( normal );
        cnVec3 t2 = cnCross( normal, t1 );
        cnVec3 tangents[2] = { t1, t2 };
        for ( int j = 0; j < 2; ++j )
        {
            int i = cnAddRow( rows, world, row++, ra, rb, rA, rB, tangents[j], 0.0 );
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

// The contacts' rows: a group per manifold point, a contact (normal and two tangents) or a
// frictionless normal for a solver without friction rows; the warm start from the cache. The
// contacts come in colour order (cnColorContacts); where each one's rows start is laid out first,
// then the rows are written on the world's workers. `positional`: every point ends the step just
// touching (b = J v + separation / dt), as in an overdamped world. `touching`: otherwise a point
// with a separation up to this has no speculative bias (CN_TOUCH_TOLERANCE for the hard problem, 0
// for the soft one). Returns true when some point had friction the solver cannot take; false with
// *outOfMemory set when the arena ran out.
static bool cnPrepareContacts( const cnWorld* world, cnContactRows* rows, double timeStep,
                               const cnStepScratch* scratch, bool friction, bool warmStart, bool positional,
                               double touching, cnArena* arena, bool* outOfMemory )
{
    const cnContactSet* set = &world->contacts;
    size_t count = (size_t)( set->count > 0 ? set->count : 1 );
    int* order = cnArenaAlloc( arena, count * sizeof( int ), 16 );
    int* rowStart = cnArenaAlloc( arena, count * sizeof( int ), 16 );
    int* groupStart = cnArenaAlloc( arena, count * sizeof( int ), 16 );
    int32_t* colorStart = cnArenaAlloc( arena, ( CN_COLOR_COUNT + 1 ) * sizeof( int32_t ), 16 );
    if ( order == NULL || rowStart == NULL || groupStart == NULL || colorStart == NULL )
    {
        *outOfMemory = true;
        return false;
    }
    int colorFirst[CN_COLOR_COUNT + 2];
    int solved = 0;
    if ( world->def.enableColoring )
    {
        solved = cnColorContacts( world, rows, arena, order, colorFirst );
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
        for ( int k = 0; k <= CN_COLOR_COUNT; ++k )
        {
            colorFirst[k] = 0;
        }
        colorFirst[CN_COLOR_COUNT + 1] = solved;
    }

    // the layout: each contact's first row and group, each colour's first group
    cnSolverProblem* p = &rows->problem;
    bool dropped = false;
    int color = 0;
    for ( int n = 0; n < solved; ++n )
    {
        for ( ; color <= CN_COLOR_COUNT && colorFirst[color] == n; ++color )
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
    for ( ; color <= CN_COLOR_COUNT; ++color )
    {
        colorStart[color] = p->groupCount;
    }
    // the colours in use; the overflow's groups, and any added after (joints, the oracle's), follow
    // colorStart[colorCount] and are swept in order
    int used = CN_COLOR_COUNT;
    while ( used > 0 && colorStart[used - 1] == colorStart[used] )
    {
        used -= 1;
    }
    p->colorCount = used;
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
    return dropped;
}

// ---- solve ------------------------------------------------------------------------------------------

// a usable status and a finite velocity change
static bool cnPassUsable( const cnWorld* world, const cnContactRows* rows, const cnSolverStats* stats,
                          const double* delta )
{
    bool usable = cnSolveStatusIsUsable( stats->status, world->solver->caps );
    for ( int i = 0; usable && i < 6 * rows->bodyCount; ++i )
    {
        usable = isfinite( delta[i] );
    }
    return usable;
}

// One pass of the layer on the rows with right-hand side b and softness (nullable), through the
// data prepared once for the substep (`prepared`, NULL when preparing failed: the layer then
// prepares itself); lambda in and out, the velocity change in delta; graded when `grade`; with the
// recursion around the solver for `recursions` levels when the problem has the oracle. When
// `record`, the pass counts in solverPasses and its history goes after what earlier passes of this
// step recorded (the position pass keeps none: the history ends with the velocity problem's
// residual, as the report does). True when the result is usable.
static bool cnSolvePass( cnWorld* world, cnContactRows* rows, cnPrepared* prepared, bool grade, bool record,
                         double* b, double* softness, const cnSolverBudget* budget, int recursions,
                         double* lambda, double* delta, cnSolverStats* stats )
{
    cnSolverProblem* problem = &rows->problem;
    problem->b = b;
    problem->softness = softness;
    int recorded = world->residualHistoryCount;
    cnSolverSolution solution = {
        .lambda = lambda,
        .deltaVelocity = delta,
        .residualHistory =
            world->residualHistory != NULL && record ? world->residualHistory + recorded : NULL,
        .residualHistoryCapacity = record ? world->residualHistoryCapacity - recorded : 0,
    };
    memset( delta, 0, 6 * (size_t)rows->bodyCount * sizeof( double ) );
    cnLayerOptions options = {
        .prepared = prepared,
        .grade = grade,
        .recursionLevels = recursions,
        .overlapTolerance = world->def.contactOverlapTolerance,
    };
    cnLayerSolve( world->solver, world->solverState, world->solverParams, budget, problem, &solution,
                  &world->arena, &options, stats );
    if ( record == false )
    {
        return cnPassUsable( world, rows, stats, delta );
    }
    world->report.solverPasses += 1;
    world->residualHistoryCount += stats->historyCount;
    if ( stats->historyCount == 0 && world->residualHistoryCount < world->residualHistoryCapacity )
    {
        // a solver that keeps no history (a pivoting one) still has an end
        world->residualHistory[world->residualHistoryCount++] = stats->residual;
    }
    return cnPassUsable( world, rows, stats, delta );
}

// ---- the oracle ----------------------------------------------------------------------------------------

// What one oracle call reads: the world, the rows, the step, and the step's contacts as they were
// assembled.
typedef struct cnOracleContext
{
    cnWorld* world;
    cnContactRows* rows;
    double timeStep;
    // pairs that have rows at the start pose: per contact of the cache (those with manifold points
    // from the assembly, the others once the oracle gave them theirs), and the pairs the cache does
    // not have, by shapes
    bool* started;
    int* startedPairs; // (2 x startedCapacity) shape indices
    int startedCount;
    int startedCapacity;
} cnOracleContext;

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

    // collide every candidate at the trial poses, the cache's pairs first, in their order
    int added = 0;
    for ( int k = 0; k < set->count + e.count; ++k )
    {
        int c = k < set->count ? k : -1;
        int shapeIndex[2];
        if ( c >= 0 )
        {
            shapeIndex[0] = set->contacts[c].shapeA;
            shapeIndex[1] = set->contacts[c].shapeB;
        }
        else
        {
            shapeIndex[0] = e.pairs[k - set->count].shapeA;
            shapeIndex[1] = e.pairs[k - set->count].shapeB;
        }
        int bodyRow[2];
        int solverRow[2];
        cnCollisionShape placed[2];
        bool moving = false;
        for ( int side = 0; side < 2; ++side )
        {
            const cnShape* shape = world->shapes + shapeIndex[side];
            int row = world->slots[shape->bodySlot].row;
            bodyRow[side] = row;
            solverRow[side] = rows->solverIndex[row] >= 0 ? row : -1;
            moving = moving || bodies->type[row] != cn_staticBody;
            placed[side] = ( cnCollisionShape ){ &shape->geometry, shape->hull,
                                                 cnMulTransforms( pose[row], shape->localPose ) };
        }
        if ( moving == false || ( solverRow[0] < 0 && solverRow[1] < 0 ) )
        {
            continue;
        }
        cnManifold manifold;
        if ( cnCollideAtTrial( set, c, placed, &manifold ) == false )
        {
            continue;
        }
        bool* started = cnFindStarted( context, c, shapeIndex );
        for ( int p = 0; p < manifold.pointCount; ++p )
        {
            const cnManifoldPoint* mp = manifold.points + p;
            result->maxOverlap = fmax( result->maxOverlap, -mp->separation );
            if ( mp->separation >= -tolerance )
            {
                continue;
            }
            if ( problem->rowCount >= problem->rowCapacity || problem->groupCount >= problem->groupCapacity )
            {
                result->rowsRefused += 1;
                continue;
            }
            if ( started != NULL && *started == false )
            {
                // a pair with no row yet (it was beyond the contact margin at the start): its rows
                // at the start pose first, as the assembly makes them (the paper's level 0 for every
                // nearby pair), then rows at trial poses if it still overlaps
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

// ---- store and apply ----------------------------------------------------------------------------------

// Hit events (cnContactHitEvent): a contact of a shape that asks for them that had no normal impulse
// after its last solve (new, speculative, or resting without pressing) and has one now raises one
// when the fastest approaching of its points with an impulse came in faster than the world's
// threshold. Called before the impulses are stored (the cache still holds the last solve's, carried
// to this update's points) and before the velocities change (the bodies still have the predicted
// ones: the approach speed is the relative normal velocity before the solve).
static void cnRaiseHitEvents( cnWorld* world, const cnContactRows* rows, const double* lambda )
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

// impulses back into the contact cache (the recursion's rows have no manifold point)
static void cnStoreImpulses( cnWorld* world, const cnContactRows* rows, const double* lambda )
{
    cnContactSet* set = &world->contacts;
    for ( int c = 0; c < set->count; ++c )
    {
        cnContact* contact = set->contacts + c;
        // a contact with no solved body (sleeping) keeps its impulses for the warm start
        int rowA = world->slots[world->shapes[contact->shapeA].bodySlot].row;
        int rowB = world->slots[world->shapes[contact->shapeB].bodySlot].row;
        if ( rows->solverIndex[rowA] < 0 && rows->solverIndex[rowB] < 0 )
        {
            continue;
        }
        for ( int k = 0; k < CN_MAX_MANIFOLD_POINTS; ++k )
        {
            contact->normalImpulse[k] = 0.0;
            contact->tangentImpulse[k] = cn_vec3Zero;
        }
    }
    for ( int i = 0; i < rows->problem.rowCount; ++i )
    {
        if ( rows->slot[i] == CN_RECURSION_SLOT || rows->slot[i] == CN_JOINT_SLOT )
        {
            continue;
        }
        cnContact* contact = set->contacts + rows->contact[i];
        int k = rows->point[i];
        if ( rows->slot[i] == 0 )
        {
            contact->normalImpulse[k] = lambda[i];
        }
        else
        {
            contact->tangentImpulse[k] =
                cnMulAdd( contact->tangentImpulse[k], lambda[i], rows->direction[i] );
        }
    }
}

// velocities += delta; the impulse's angular momentum; the push (soft - relaxed) when there is one
static void cnApplyVelocities( cnWorld* world, const cnContactRows* rows, const double* delta,
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

// A solve that gave nothing usable: the bodies it acts on keep the velocities they had before this
// substep (and the momentum that goes with them); the others keep their predicted motion.
static void cnKeepPreviousVelocities( cnWorld* world, const cnContactRows* rows, cnStepScratch* scratch )
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

// the step report's record of the final pass
static void cnReportSolve( cnStepReport* report, const cnSolverStats* stats )
{
    report->solverStatus = (int)stats->status;
    report->solverReason = stats->reason;
    report->solverResidual = stats->residual;
    report->solverOwnMeasure = stats->ownMeasure;
    report->meritNaturalMap = stats->merits.naturalMap;
    report->meritCone = stats->merits.cone;
    report->violationSignorini = stats->merits.signorini;
    report->violationCoulomb = stats->merits.coulomb;
    report->violationDissipation = stats->merits.dissipation;
}

static void cnCopyDoubles( double* to, const double* from, int count )
{
    if ( count > 0 )
    {
        memcpy( to, from, (size_t)count * sizeof( double ) );
    }
}

// The oracle for the rows of one pass: which pairs have rows at the start pose (the cache's with
// points; room for CN_ORACLE_NEW_PAIRS others), all from the step arena.
static cnStatus cnMakeOracle( cnWorld* world, cnContactRows* rows, double timeStep, cnOracleContext* context,
                              cnSolverOracle* hook )
{
    const cnContactSet* set = &world->contacts;
    *context = ( cnOracleContext ){ world, rows, timeStep, NULL, NULL, 0, CN_ORACLE_NEW_PAIRS };
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

// the step report's record of what the recursion did, and its warning when a pair still overlaps;
// and the factorising solvers' counters (every pass that reports the recursion)
static void cnReportRecursion( cnWorld* world, const cnSolverStats* stats )
{
    cnStepReport* report = &world->report;
    const cnSolverVTable* solver = world->solver;
    report->solverFactorizations += stats->factorizations;
    report->solverKrylovIterations += stats->krylovIterations;
    report->solverFallbacks += stats->fallbacks;
    report->solverFreeRows = stats->freeRows > 0 ? stats->freeRows : report->solverFreeRows;
    report->contactRecursions += stats->levels;
    report->recursionRows += stats->rowsAdded;
    report->recursionRefused += stats->rowsRefused;
    if ( stats->oracleCalls == 0 )
    {
        return;
    }
    report->recursionOverlap = stats->overlap;
    double tolerance = world->def.contactOverlapTolerance;
    int index = cnFindSolverParam( solver, "overlap_tolerance" );
    if ( ( solver->caps & cn_solverUsesOracle ) != 0 && index >= 0 )
    {
        tolerance = world->solverParams[index];
    }
    if ( !( stats->overlap <= tolerance ) || stats->rowsRefused > 0 )
    {
        report->warnings |= cn_warnOverlapLeft;
        cnLogWorld(
            world, cn_logWarning, cn_statusNotConverged,
            "step %lld: after %d recursion levels a pair still overlaps by %.3g m (tolerance %.3g m; %d "
            "rows had no room, %d levels failed)",
            (long long)world->stepIndex + 1, stats->levels, stats->overlap, tolerance, stats->rowsRefused,
            stats->fallbacks );
    }
}

// The velocity problem of the substep: assemble, solve (soft and relax passes, or one), grade, apply.
// `withOracle`: the final pass runs the recursion (overdamped worlds: the poses it checks are where
// these velocities take the bodies). `hard`: an inertial world's problem without the soft push, in
// one pass (the position pass pushes out instead).
static cnStatus cnSolveVelocities( cnWorld* world, double timeStep, cnStepScratch* scratch, bool withOracle,
                                   bool hard )
{
    const cnBodyStore* bodies = &world->bodies;
    const cnContactSet* set = &world->contacts;
    cnStepReport* report = &world->report;
    cnArena* arena = &world->arena;
    const cnSolverVTable* solver = world->solver;
    bool overdamped = world->def.dynamics == cn_dynamicsOverdamped;
    // contact groups of the world's friction model, when the solver takes them (a cone world's
    // solver always does: the world refuses others); else frictionless normals
    bool friction =
        ( solver->caps &
          ( world->def.frictionModel == cn_frictionCone ? cn_solverCone : cn_solverFriction ) ) != 0;
    int warmIndex = cnFindSolverParam( solver, "warm_start" );
    bool warmStart = warmIndex < 0 || world->solverParams[warmIndex] >= 0.5;

    // prepare: room for one group per manifold point, three rows each, and for the recursion's
    // rows: one per manifold point of every pair at every level
    int points = 0;
    for ( int i = 0; i < set->count; ++i )
    {
        points += set->contacts[i].manifold.pointCount;
    }
    // the oracle on the final pass: for a solver that calls it (relcp), or around the world's solver
    // when contactRecursions asks for the recursion; room for CN_ORACLE_LEVELS calls' worth of rows
    bool oracle = withOracle;
    int recursions = oracle ? world->def.contactRecursions : 0;
    int extra = oracle ? CN_ORACLE_LEVELS * ( points + set->count + 16 ) : 0;
    int jointRows = cnJointRowBound( world );
    cnContactRows rows;
    int bodyRows = bodies->count;
    double* delta = cnArenaAlloc( arena, 6 * (size_t)( bodyRows > 0 ? bodyRows : 1 ) * sizeof( double ), 16 );
    if ( delta == NULL || cnAllocRows( arena, &rows, bodyRows, 3 * points + extra + jointRows,
                                       points + extra + jointRows ) == false )
    {
        return cn_statusOutOfMemory;
    }
    rows.problem.timeStep = timeStep;
    rows.problem.dynamics = world->def.dynamics;
    rows.problem.tasks = &world->tasks;
    cnPrepareBodies( world, &rows );
    // joints under load turn their bodies more slowly than the bare inertia says (joint.c)
    if ( overdamped == false && world->jointCount > 0 )
    {
        cnAddJointGeometricInertia( world, rows.solverIndex, rows.wAngular, timeStep );
    }
    bool outOfMemory = false;
    if ( cnPrepareContacts( world, &rows, timeStep, scratch, friction, warmStart, false,
                            hard ? CN_TOUCH_TOLERANCE : 0.0, arena, &outOfMemory ) )
    {
        report->warnings |= cn_warnFrictionDropped;
    }
    if ( outOfMemory )
    {
        return cn_statusOutOfMemory;
    }
    cnSolverProblem* problem = &rows.problem;
    // the joints' rows after the contacts': an inertial world corrects their position error in the
    // soft pass (joint.c), an overdamped one in b
    cnJointSoft jointSoft = { 0 };
    int jointFirst = problem->rowCount;
    if ( world->jointCount > 0 )
    {
        size_t capacity = (size_t)problem->rowCapacity;
        jointSoft.softBias = cnArenaAlloc( arena, capacity * sizeof( double ), 16 );
        jointSoft.softSoftness = cnArenaAlloc( arena, capacity * sizeof( double ), 16 );
        jointSoft.springSoftness = cnArenaAlloc( arena, capacity * sizeof( double ), 16 );
        if ( jointSoft.softBias == NULL || jointSoft.softSoftness == NULL ||
             jointSoft.springSoftness == NULL )
        {
            return cn_statusOutOfMemory;
        }
        memset( jointSoft.springSoftness, 0, capacity * sizeof( double ) );
        cnAppendJointRows( world, problem, rows.solverIndex, rows.lambda, timeStep,
                           overdamped ? cn_jointPassPositional : cn_jointPassSoft, warmStart,
                           overdamped ? NULL : &jointSoft, NULL );
        for ( int i = jointFirst; i < problem->rowCount; ++i )
        {
            rows.contact[i] = -1;
            rows.point[i] = 0;
            rows.slot[i] = CN_JOINT_SLOT;
            rows.direction[i] = cn_vec3Zero;
            rows.push[i] = 0.0;
        }
    }
    // rows that are soft in every pass (springs), NULL when none
    double* springSoftness = jointSoft.springs ? jointSoft.springSoftness : NULL;
    report->solverRows = problem->rowCount;
    report->solverFrictionless = friction == false && problem->rowCount > 0;
    int assembledGroups = problem->groupCount; // an oracle may append more; their hard b is not set
    // nothing to solve, unless the oracle may find pairs that the motion brings into overlap
    if ( problem->rowCount == 0 && ( oracle == false || rows.bodyCount == 0 ) )
    {
        return cn_statusOk;
    }

    // the soft pass's right-hand side and softness: penetrating points push out as a stiff damped
    // spring (bias rate and constraint-force mixing from the world's contactHertz)
    size_t count = (size_t)problem->rowCount;
    double* hardB = problem->b;
    double* softB = NULL;
    double* softness = NULL;
    bool soft = false;
    if ( overdamped == false && hard == false )
    {
        // room for the rows an oracle appends (their softness is 0: they are hard)
        size_t capacity = (size_t)problem->rowCapacity;
        softB = cnArenaAlloc( arena, capacity * sizeof( double ), 16 );
        softness = cnArenaAlloc( arena, capacity * sizeof( double ), 16 );
        if ( softB == NULL || softness == NULL )
        {
            return cn_statusOutOfMemory;
        }
        memset( softness, 0, capacity * sizeof( double ) );
        double omega = 2.0 * CN_PI * world->def.contactHertz;
        double a1 = 2.0 * CN_CONTACT_DAMPING + timeStep * omega;
        double a2 = timeStep * omega * a1;
        double biasRate = omega / a1;
        for ( size_t i = 0; i < count; ++i )
        {
            softB[i] = hardB[i];
            if ( rows.slot[i] == CN_JOINT_SLOT )
            {
                softB[i] += jointSoft.softBias[i];
                softness[i] = jointSoft.softSoftness[i];
                soft = soft || jointSoft.softSoftness[i] > 0.0 || jointSoft.softBias[i] != 0.0;
                continue;
            }
            if ( rows.push[i] < 0.0 )
            {
                softB[i] += fmax( biasRate * rows.push[i], -CN_MAX_PUSH_SPEED );
                // softness = A_ii / a2: Box2D's mass scale a2 / (1 + a2) and impulse scale 1 / (1 + a2)
                softness[i] = cnProblemRowDiagonal( &rows.problem, (int)i ) / a2;
                soft = true;
            }
        }
    }

    // the layer's data for these rows, prepared once for every pass (J and W do not change between
    // them); an invalid problem leaves it NULL and each pass reports why
    cnPrepared* prepared = cnLayerPrepare( problem, arena, NULL );

    cnSolverBudget budget = cnBudgetFromParams( solver, world->solverParams );
    bool direct = ( solver->caps & cn_solverDirect ) != 0;
    bool singlePass = ( solver->caps & cn_solverSinglePass ) != 0;
    double* start = NULL; // what the final pass started from, for the problem callback
    if ( world->problemFcn != NULL )
    {
        start = cnArenaAlloc( arena, (size_t)problem->rowCapacity * sizeof( double ), 16 );
        if ( start == NULL )
        {
            return cn_statusOutOfMemory;
        }
        memset( start, 0, (size_t)problem->rowCapacity * sizeof( double ) ); // rows an oracle adds start at 0
    }

    // the oracle, for the solvers that call it, on the final pass only
    cnOracleContext oracleContext;
    cnSolverOracle oracleHook = { 0 };
    if ( oracle && cnMakeOracle( world, &rows, timeStep, &oracleContext, &oracleHook ) != cn_statusOk )
    {
        return cn_statusOutOfMemory;
    }

    // solve: the main pass (soft when something pushes), then relax from its impulses
    cnSolverStats stats;
    double* softDelta = NULL;
    bool usable;
    if ( soft && singlePass == false )
    {
        softDelta = cnArenaAlloc(
            arena, 6 * (size_t)( rows.bodyCount > 0 ? rows.bodyCount : 1 ) * sizeof( double ), 16 );
        double* softLambda = cnArenaAlloc( arena, count * sizeof( double ), 16 );
        if ( softDelta == NULL || softLambda == NULL )
        {
            return cn_statusOutOfMemory;
        }
        cnCopyDoubles( softLambda, rows.lambda, problem->rowCount );
        bool softUsable = cnSolvePass( world, &rows, prepared, false, true, softB, softness, &budget, 0,
                                       softLambda, softDelta, &stats );
        report->solverIterations += stats.iterations;
        cnSolverBudget relax = budget;
        // the joints' rows are rigid, with their position error as a bias in the soft pass only: with
        // the warm start they relax from it, not from the soft impulses, so that neither the
        // velocities they leave nor the impulses kept for the next warm start carry the bias, however
        // far a sweep solver is from converged (from the soft impulses, the few relax sweeps left the
        // bias of a long chain's slow modes in both, and the next substep's warm start applied it
        // again: a hanging chain of 10 links blew up under pgs). That relax is then the joints'
        // velocity solve, so it has the full budget. Without the warm start they relax from the soft
        // impulses, as the contacts (from zero, the velocity solve of a long chain falls short).
        int relaxFirst = warmStart ? jointFirst : problem->rowCount;
        bool joints = relaxFirst < problem->rowCount;
        if ( softUsable )
        {
            cnCopyDoubles( rows.lambda, softLambda, relaxFirst );
            if ( direct == false && joints == false )
            {
                relax.maxIterations = world->def.relaxIterations < budget.maxIterations
                                          ? world->def.relaxIterations
                                          : budget.maxIterations;
            }
        }
        else
        {
            // relax from the warm start with the full budget, and no push: a fallback, said
            softDelta = NULL;
            report->warnings |=
                stats.status == cn_solveDiverged ? cn_warnSolverDiverged : cn_warnSolverFailed;
            cnLogWorld( world, cn_logWarning, cn_statusNotConverged,
                        "step %lld: solver '%s' ended '%s'%s%s on the soft pass; the hard problem was solved "
                        "from the warm start instead (no push-out this substep)",
                        (long long)world->stepIndex + 1, solver->name, cnSolveStatusName( stats.status ),
                        stats.reason != NULL ? ": " : "", stats.reason != NULL ? stats.reason : "" );
        }
        if ( start != NULL )
        {
            cnCopyDoubles( start, rows.lambda, problem->rowCount );
        }
        problem->oracle = oracleHook;
        usable = cnSolvePass( world, &rows, prepared, true, true, hardB, springSoftness, &relax, recursions,
                              rows.lambda, delta, &stats );
        problem->oracle = ( cnSolverOracle ){ 0 };
        if ( softUsable )
        {
            report->relaxIterations += stats.iterations;
        }
        else
        {
            report->solverIterations += stats.iterations;
        }
    }
    else
    {
        if ( start != NULL )
        {
            cnCopyDoubles( start, rows.lambda, problem->rowCount );
        }
        problem->oracle = oracleHook;
        usable =
            cnSolvePass( world, &rows, prepared, true, true, soft ? softB : hardB,
                         soft ? softness : springSoftness, &budget, recursions, rows.lambda, delta, &stats );
        problem->oracle = ( cnSolverOracle ){ 0 };
        report->solverIterations += stats.iterations;
    }

    cnReportSolve( report, &stats );
    cnReportRecursion( world, &stats );
    if ( world->problemFcn != NULL )
    {
        world->problemFcn( problem, start, rows.lambda, &stats, world->problemContext );
    }
    if ( usable == false )
    {
        // NaN, divergence or no answer: the bodies of this problem keep their velocities
        report->warnings |= stats.status == cn_solveDiverged ? cn_warnSolverDiverged : cn_warnSolverFailed;
        cnLogWorld( world, cn_logWarning, cn_statusNotConverged,
                    "step %lld: solver '%s' ended '%s'%s%s; its %d bodies kept their velocities this step",
                    (long long)world->stepIndex + 1, solver->name, cnSolveStatusName( stats.status ),
                    stats.reason != NULL ? ": " : "", stats.reason != NULL ? stats.reason : "",
                    rows.bodyCount );
        cnKeepPreviousVelocities( world, &rows, scratch );
        return cn_statusOk;
    }
    // worse than no impulse at all: a contact closing faster after the solve than any row would with
    // lambda = 0 (the largest approach speed of the hard problem as assembled)
    double approach = 0.0;
    for ( int g = 0; g < assembledGroups; ++g )
    {
        const cnRowGroup* group = problem->groups + g;
        if ( group->kind == cn_groupContact || group->kind == cn_groupNormal )
        {
            approach = fmax( approach, -hardB[group->firstRow] );
        }
    }
    if ( stats.merits.signorini > CN_INACCURATE_FACTOR * approach + CN_INACCURATE_SLACK )
    {
        report->warnings |= cn_warnSolverInaccurate;
        cnLogWorld(
            world, cn_logWarning, cn_statusNotConverged,
            "step %lld: after solver '%s' a contact closes at %.3g m/s, faster than the %.3g m/s of no "
            "impulse at all",
            (long long)world->stepIndex + 1, solver->name, stats.merits.signorini, approach );
    }
    cnRaiseHitEvents( world, &rows, rows.lambda );
    cnStoreImpulses( world, &rows, rows.lambda );
    cnStoreJointImpulses( world, rows.lambda, timeStep );
    cnApplyVelocities( world, &rows, delta, singlePass ? NULL : softDelta, scratch );
    return cn_statusOk;
}

// The position pass of an inertial world with the recursion (a split impulse), on the step's last
// substep: with the solved velocities v, the pseudo-velocity u that leaves every pair touching or
// apart at the poses x + dt (v + u): a frictionless normal row per manifold point,
// b = J v + separation / dt, from zero impulses, solved by the world's solver with the recursion
// (the oracle's trial poses are the ones the step ends at). u moves the bodies on this substep only,
// so the push-out adds no kinetic energy. When the pass gives nothing usable the bodies move with
// their velocities alone (no push-out this step), and the step says so.
static cnStatus cnCorrectPositions( cnWorld* world, double timeStep, cnStepScratch* scratch )
{
    const cnContactSet* set = &world->contacts;
    cnArena* arena = &world->arena;
    const cnSolverVTable* solver = world->solver;
    int points = 0;
    for ( int i = 0; i < set->count; ++i )
    {
        points += set->contacts[i].manifold.pointCount;
    }
    int capacity = points + CN_ORACLE_LEVELS * ( points + set->count + 16 ) + cnJointRowBound( world );
    int bodyRows = world->bodies.count;
    cnContactRows rows;
    double* delta = cnArenaAlloc( arena, 6 * (size_t)( bodyRows > 0 ? bodyRows : 1 ) * sizeof( double ), 16 );
    if ( delta == NULL || cnAllocRows( arena, &rows, bodyRows, capacity, capacity ) == false )
    {
        return cn_statusOutOfMemory;
    }
    rows.problem.timeStep = timeStep;
    rows.problem.dynamics = world->def.dynamics;
    rows.problem.tasks = &world->tasks;
    cnPrepareBodies( world, &rows );
    if ( rows.bodyCount == 0 )
    {
        return cn_statusOk;
    }
    bool outOfMemory = false;
    cnPrepareContacts( world, &rows, timeStep, scratch, false, false, true, 0.0, arena, &outOfMemory );
    if ( outOfMemory )
    {
        return cn_statusOutOfMemory;
    }
    int jointFirst = rows.problem.rowCount;
    cnAppendJointRows( world, &rows.problem, rows.solverIndex, rows.lambda, timeStep, cn_jointPassPosition,
                       false, NULL, NULL );
    for ( int i = jointFirst; i < rows.problem.rowCount; ++i )
    {
        rows.contact[i] = -1;
        rows.slot[i] = CN_JOINT_SLOT;
        rows.push[i] = 0.0;
    }
    cnOracleContext oracleContext;
    cnSolverOracle oracleHook;
    if ( cnMakeOracle( world, &rows, timeStep, &oracleContext, &oracleHook ) != cn_statusOk )
    {
        return cn_statusOutOfMemory;
    }
    cnPrepared* prepared = cnLayerPrepare( &rows.problem, arena, NULL );
    cnSolverBudget budget = cnBudgetFromParams( solver, world->solverParams );
    cnSolverStats stats;
    rows.problem.oracle = oracleHook;
    bool usable = cnSolvePass( world, &rows, prepared, false, false, rows.problem.b, NULL, &budget,
                               world->def.contactRecursions, rows.lambda, delta, &stats );
    rows.problem.oracle = ( cnSolverOracle ){ 0 };
    world->report.positionIterations += stats.iterations;
    cnReportRecursion( world, &stats );
    if ( usable == false )
    {
        world->report.warnings |=
            stats.status == cn_solveDiverged ? cn_warnSolverDiverged : cn_warnSolverFailed;
        cnLogWorld( world, cn_logWarning, cn_statusNotConverged,
                    "step %lld: solver '%s' ended '%s'%s%s on the position pass; no push-out this step",
                    (long long)world->stepIndex + 1, solver->name, cnSolveStatusName( stats.status ),
                    stats.reason != NULL ? ": " : "", stats.reason != NULL ? stats.reason : "" );
        return cn_statusOk;
    }
    for ( int k = 0; k < rows.bodyCount; ++k )
    {
        int row = rows.rowOf[k];
        const double* u = delta + 6 * k;
        scratch->pseudoLinear[row] = cnMakeVec3( u[0], u[1], u[2] );
        scratch->pseudoAngular[row] = cnMakeVec3( u[3], u[4], u[5] );
    }
    return cn_statusOk;
}

// Joint projection: at most this many Newton steps a substep, until every equality row's error is
// at most the tolerance (m, or rad for angular rows); a row's error is taken as at most the largest
// correction (m or rad) in one Newton step, so that a joint created far apart closes over several
// steps.
#define CN_PROJECTION_ITERATIONS 4
#define CN_PROJECTION_TOLERANCE  1e-8
#define CN_PROJECTION_MAX        0.05
// passes over the units that close loops (bilateral.h) within one Newton step
#define CN_PROJECTION_LOOP_ROUNDS 8

// a row the projection holds at C = 0: an equality row, or a limit it made one (motors and springs
// are not built in this pass)
static bool cnIsEqualityRow( const cnSolverProblem* p, int i )
{
    return p->lower[i] == -(double)INFINITY && p->upper[i] == (double)INFINITY;
}

// Hold the limit rows (one-sided normal groups of one row, marked in `limit`) at C = 0 like
// equality rows where `value` (their position error C, or their J v) is below zero: a limit the move
// carried past, or one at its bound that the velocities push further. The others stay one-sided,
// outside the projection.
static void cnActivateLimits( cnSolverProblem* p, const bool* limit, const double* value )
{
    for ( int g = 0; g < p->groupCount; ++g )
    {
        cnRowGroup* group = p->groups + g;
        int i = group->firstRow;
        if ( limit[i] )
        {
            bool active = value[i] < 0.0;
            group->kind = (uint8_t)( active ? cn_groupBilateral : cn_groupNormal );
            p->lower[i] = active ? -(double)INFINITY : 0.0;
            p->upper[i] = (double)INFINITY;
        }
    }
}

// The joints' rows at the current poses (cn_jointPassProjection: b = C / dt) in `rows`, their J v
// in `rowVelocity` (room for cnJointRowBound), with room for `delta`; false when out of memory.
// rows->bodyCount 0: nothing to project.
static bool cnProjectionRows( cnWorld* world, double timeStep, cnContactRows* rows, double** delta,
                              double* rowVelocity )
{
    cnBodyStore* bodies = &world->bodies;
    int capacity = cnJointRowBound( world );
    *delta = cnArenaAlloc( &world->arena,
                           6 * (size_t)( bodies->count > 0 ? bodies->count : 1 ) * sizeof( double ), 16 );
    if ( *delta == NULL || cnAllocRows( &world->arena, rows, bodies->count, capacity, capacity ) == false )
    {
        return false;
    }
    rows->problem.timeStep = timeStep;
    rows->problem.dynamics = world->def.dynamics;
    cnPrepareBodies( world, rows );
    if ( rows->bodyCount > 0 )
    {
        cnAppendJointRows( world, &rows->problem, rows->solverIndex, rows->lambda, timeStep,
                           cn_jointPassProjection, false, NULL, rowVelocity );
    }
    return true;
}

cnStatus cnProjectJoints( cnWorld* world, double timeStep )
{
    if ( world->jointCount == 0 || world->def.dynamics != cn_dynamicsInertial ||
         world->def.enableJointProjection == false )
    {
        return cn_statusOk;
    }
    cnArena* arena = &world->arena;
    cnBodyStore* bodies = &world->bodies;
    cnContactRows rows;
    double* delta;
    // each row's C / h at the final poses (before the cap)
    size_t rowBound = (size_t)cnJointRowBound( world ) + 1;
    double* position = cnArenaAlloc( arena, rowBound * sizeof( double ), 16 );
    double* velocity = cnArenaAlloc( arena, rowBound * sizeof( double ), 16 ); // each row's J v
    bool* limit = cnArenaAlloc( arena, rowBound * sizeof( bool ), 16 );        // the limit rows
    if ( position == NULL || velocity == NULL || limit == NULL )
    {
        return cn_statusOutOfMemory;
    }
    for ( int iteration = 0; iteration <= CN_PROJECTION_ITERATIONS; ++iteration )
    {
        if ( cnProjectionRows( world, timeStep, &rows, &delta, velocity ) == false )
        {
            return cn_statusOutOfMemory;
        }
        if ( rows.bodyCount == 0 )
        {
            return cn_statusOk;
        }
        // limits carried past their bound join the equality rows; the worst error of those rows,
        // each capped at the largest correction
        cnSolverProblem* p = &rows.problem;
        cnCopyDoubles( position, p->b, p->rowCount );
        for ( int g = 0; g < p->groupCount; ++g )
        {
            limit[p->groups[g].firstRow] = p->groups[g].kind == cn_groupNormal;
            for ( int i = p->groups[g].firstRow + 1; i < p->groups[g].firstRow + p->groups[g].rowCount; ++i )
            {
                limit[i] = false;
            }
        }
        cnActivateLimits( p, limit, p->b );
        double worst = 0.0;
        double cap = CN_PROJECTION_MAX / timeStep;
        for ( int i = 0; i < p->rowCount; ++i )
        {
            if ( cnIsEqualityRow( p, i ) )
            {
                worst = fmax( worst, fabs( p->b[i] ) * timeStep );
                p->b[i] = fmin( fmax( p->b[i], -cap ), cap );
            }
        }
        if ( worst <= CN_PROJECTION_TOLERANCE || iteration == CN_PROJECTION_ITERATIONS )
        {
            break;
        }
        int solved =
            cnLayerSolveBilateral( &rows.problem, arena, CN_PROJECTION_LOOP_ROUNDS, rows.lambda, delta );
        if ( solved < 0 )
        {
            return cn_statusOutOfMemory;
        }
        if ( solved == 0 )
        {
            break;
        }
        // move each body by the pseudo-velocity for one substep (its velocity is not changed here)
        for ( int k = 0; k < rows.bodyCount; ++k )
        {
            int row = rows.rowOf[k];
            const double* u = delta + 6 * k;
            cnVec3 center;
            cnTransform pose = cnAdvanceBody( bodies, row, cnMakeVec3( u[0], u[1], u[2] ),
                                              cnMakeVec3( u[3], u[4], u[5] ), timeStep, &center );
            if ( cnIsFiniteVec3( center ) && cnIsFiniteQuat( pose.q ) )
            {
                bodies->center[row] = center;
                bodies->transform[row] = pose;
            }
        }
        world->report.projectionIterations += 1;
    }

    // the velocities: the mass-weighted least change that makes every equality row's J v zero
    // (never adds kinetic energy), at the rows of the final poses; with them the limits at their
    // bound (C within the tolerance) that the velocities would carry past it
    cnSolverProblem* p = &rows.problem;
    double fastest = 0.0; // the largest |J v| of an equality row
    for ( int i = 0; i < p->rowCount; ++i )
    {
        // (a kinematic body's velocity counts: a joint to a moving platform follows it)
        p->b[i] = velocity[i];
        // a limit away from its bound stays out (a positive value)
        position[i] = position[i] * timeStep <= CN_PROJECTION_TOLERANCE ? velocity[i] : 1.0;
    }
    cnActivateLimits( p, limit, position );
    for ( int i = 0; i < p->rowCount; ++i )
    {
        fastest = cnIsEqualityRow( p, i ) ? fmax( fastest, fabs( p->b[i] ) ) : fastest;
    }
    // rows that would drift less than the tolerance in a substep are left as they are
    if ( fastest * timeStep <= CN_PROJECTION_TOLERANCE )
    {
        return cn_statusOk;
    }
    int solved = cnLayerSolveBilateral( p, arena, CN_PROJECTION_LOOP_ROUNDS, rows.lambda, delta );
    if ( solved < 0 )
    {
        return cn_statusOutOfMemory;
    }
    for ( int k = 0; k < rows.bodyCount && solved > 0; ++k )
    {
        int row = rows.rowOf[k];
        const double* u = delta + 6 * k;
        cnVec3 linear = cnAdd( bodies->linearVelocity[row], cnMakeVec3( u[0], u[1], u[2] ) );
        cnVec3 angular = cnAdd( bodies->angularVelocity[row], cnMakeVec3( u[3], u[4], u[5] ) );
        if ( cnIsFiniteVec3( linear ) && cnIsFiniteVec3( angular ) )
        {
            bodies->linearVelocity[row] = linear;
            bodies->angularVelocity[row] = angular;
        }
    }
    return cn_statusOk;
}

cnStatus cnSolveContacts( cnWorld* world, double timeStep, cnStepScratch* scratch )
{
    world->report.recursionOverlap = (double)NAN;
    // the recursion: a solver that calls the oracle (relcp), or the world's around its solver
    bool recursion = ( world->solver->caps & cn_solverUsesOracle ) != 0 || world->def.contactRecursions > 0;
    // a solver accurate enough for hard contact takes the same split impulse, with or without levels
    bool split = recursion || ( world->solver->caps & cn_solverHardContact ) != 0;
    if ( world->def.dynamics == cn_dynamicsOverdamped || split == false )
    {
        return cnSolveVelocities( world, timeStep, scratch, recursion, false );
    }
    // inertial, with the recursion or a hard-contact solver: hard velocities every substep, and on
    // the step's last substep the positions, with the recursion when it is on (a split impulse)
    cnStatus status = cnSolveVelocities( world, timeStep, scratch, false, true );
    if ( status != cn_statusOk || scratch->finalSubstep == false )
    {
        return status;
    }
    return cnCorrectPositions( world, timeStep, scratch );
}
