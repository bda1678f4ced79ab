// SPDX-License-Identifier: MIT
// The broadphase against brute force: random scenes of 10,000 proxies of every kind and size,
// a few plane boxes, random masks and multi-shape bodies, through rounds of small moves, big
// moves, destroys and creates. After every round the pair set must equal the O(n^2) set over
// the fat boxes exactly, and every internal invariant must hold.
#include "broad_phase.h"
#include "broadphase_suites.h"
#include "core.h"
#include "test_support.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define CNT_SHAPE_COUNT 10000
#define CNT_REGION      50.0

typedef struct cntShape
{
    bool alive;
    int key;
    cnProxyKind kind;
    int bodyKey;
    uint32_t categoryBits;
    uint32_t maskBits;
    cnAABB tight;
} cntShape;

typedef struct cntScene
{
    cnBroadPhase bp;
    cntCountingAllocator counter;
    cnAllocator allocator;
    cntShape shapes[CNT_SHAPE_COUNT + 64];
    int shapeCount; // indices used so far
    int freeShapes[CNT_SHAPE_COUNT + 64];
    int freeCount;
    int liveCount;
    int nextBody;
    cntRandom rng;
    cnPair* pairs; // broadphase output
    int pairCapacity;
    cnPair* expected; // brute force (malloc)
    int expectedCapacity;
} cntScene;

static cnAABB cntShift( cnAABB box, cnVec3 d )
{
    box.lower = cnAdd( box.lower, d );
    box.upper = cnAdd( box.upper, d );
    return box;
}

static cnVec3 cntRandomVector( cntScene* scene, double size )
{
    return cnMakeVec3( cntRange( &scene->rng, -size, size ), cntRange( &scene->rng, -size, size ),
                       cntRange( &scene->rng, -size, size ) );
}

static cnVec3 cntRandomPoint( cntScene* scene )
{
    return cnMakeVec3( cntRange( &scene->rng, 0.0, CNT_REGION ), cntRange( &scene->rng, 0.0, CNT_REGION ),
                       cntRange( &scene->rng, -5.0, CNT_REGION - 5.0 ) );
}

// a box of size 0.01 to 10 m (log-uniform), a little elongated
static cnAABB cntRandomBox( cntScene* scene, cnVec3 center )
{
    double size = 0.01 * pow( 1000.0, cntUniform( &scene->rng ) );
    cnVec3 half = cnMakeVec3( 0.5 * size * cntRange( &scene->rng, 0.5, 1.0 ),
                              0.5 * size * cntRange( &scene->rng, 0.5, 1.0 ),
                              0.5 * size * cntRange( &scene->rng, 0.5, 1.0 ) );
    cnAABB box = { cnSub( center, half ), cnAdd( center, half ) };
    return box;
}

static int cntAddShape( cntScene* scene, cnAABB box, cnProxyKind kind, int bodyKey, uint32_t category,
                        uint32_t mask )
{
    int index = scene->freeCount > 0 ? scene->freeShapes[--scene->freeCount] : scene->shapeCount++;
    ck_assert_int_lt( index, CNT_SHAPE_COUNT + 64 );
    cntShape* shape = scene->shapes + index;
    shape->alive = true;
    shape->kind = kind;
    shape->bodyKey = bodyKey;
    shape->categoryBits = category;
    shape->maskBits = mask;
    shape->tight = box;
    cnProxyDef def = { box, kind, index, bodyKey, category, mask };
    shape->key = cnBroadPhase_CreateProxy( &scene->bp, &def );
    ck_assert_int_ne( shape->key, CN_NULL_INDEX );
    scene->liveCount += 1;
    return index;
}

static void cntRemoveShape( cntScene* scene, int index )
{
    cntShape* shape = scene->shapes + index;
    cnBroadPhase_DestroyProxy( &scene->bp, shape->key );
    shape->alive = false;
    scene->freeShapes[scene->freeCount++] = index;
    scene->liveCount -= 1;
}

static void cntMoveShape( cntScene* scene, int index, cnAABB box )
{
    scene->shapes[index].tight = box;
    cnBroadPhase_MoveProxy( &scene->bp, scene->shapes[index].key, box );
}

// a body of 1 to 4 shapes close together (they often overlap: the same-body rule matters)
static void cntAddBody( cntScene* scene )
{
    double r = cntUniform( &scene->rng );
    cnProxyKind kind = r < 0.3 ? cn_proxyStatic : ( r < 0.4 ? cn_proxyKinematic : cn_proxyDynamic );
    int bodyKey = scene->nextBody++;
    int count = 1 + (int)( cntNext( &scene->rng ) % 4 );
    cnVec3 center = cntRandomPoint( scene );
    for ( int i = 0; i < count && scene->liveCount < CNT_SHAPE_COUNT; ++i )
    {
        // four categories; most masks take everything, some a random subset
        uint32_t category = 1u << ( cntNext( &scene->rng ) % 4 );
        uint32_t mask =
            cntUniform( &scene->rng ) < 0.8 ? UINT32_MAX : (uint32_t)( cntNext( &scene->rng ) % 16 );
        cnAABB box = cntRandomBox( scene, cnAdd( center, cntRandomVector( scene, 0.5 ) ) );
        cntAddShape( scene, box, kind, bodyKey, category, mask );
    }
}

// Brute force over the fat boxes, in shape order, so the result comes out sorted.
static int cntBruteForcePairs( cntScene* scene )
{
    typedef struct
    {
        cnAABB fat;
        int shape;
    } cntEntry;
    cntEntry* entries = malloc( sizeof( cntEntry ) * (size_t)scene->shapeCount );
    ck_assert_ptr_nonnull( entries );
    int n = 0;
    for ( int i = 0; i < scene->shapeCount; ++i )
    {
        if ( scene->shapes[i].alive )
        {
            entries[n].fat = cnBroadPhase_GetFatAABB( &scene->bp, scene->shapes[i].key );
            entries[n].shape = i;
            n += 1;
        }
    }

    int count = 0;
    for ( int i = 0; i < n; ++i )
    {
        const cnAABB a = entries[i].fat;
        const cntShape* sa = scene->shapes + entries[i].shape;
        for ( int j = i + 1; j < n; ++j )
        {
            const cnAABB* b = &entries[j].fat;
            if ( a.lower.x > b->upper.x || b->lower.x > a.upper.x || a.lower.y > b->upper.y ||
                 b->lower.y > a.upper.y || a.lower.z > b->upper.z || b->lower.z > a.upper.z )
            {
                continue;
            }
            const cntShape* sb = scene->shapes + entries[j].shape;
            if ( sa->bodyKey == sb->bodyKey ||
                 ( sa->kind != cn_proxyDynamic && sb->kind != cn_proxyDynamic ) ||
                 ( sa->categoryBits & sb->maskBits ) == 0 || ( sb->categoryBits & sa->maskBits ) == 0 )
            {
                continue;
            }
            if ( count == scene->expectedCapacity )
            {
                scene->expectedCapacity = scene->expectedCapacity > 0 ? 2 * scene->expectedCapacity : 1024;
                scene->expected =
                    realloc( scene->expected, sizeof( cnPair ) * (size_t)scene->expectedCapacity );
                ck_assert_ptr_nonnull( scene->expected );
            }
            scene->expected[count].shapeA = entries[i].shape;
            scene->expected[count].shapeB = entries[j].shape;
            count += 1;
        }
    }
    free( entries );
    return count;
}

static int cntComparePair( cnPair a, cnPair b )
{
    if ( a.shapeA != b.shapeA )
    {
        return a.shapeA < b.shapeA ? -1 : 1;
    }
    return a.shapeB < b.shapeB ? -1 : ( a.shapeB > b.shapeB ? 1 : 0 );
}

// update, then compare with brute force and check the invariants; one assert per kind of check
static int cntCheckRound( cntScene* scene, int round )
{
    int count = cnBroadPhase_UpdatePairs( &scene->bp, &scene->pairs, &scene->pairCapacity );
    ck_assert_int_ge( count, 0 );
    int expectedCount = cntBruteForcePairs( scene );

    // walk both sorted lists, counting what is missing and what is extra
    int missing = 0;
    int extra = 0;
    cnPair firstMissing = { -1, -1 };
    cnPair firstExtra = { -1, -1 };
    int i = 0;
    int j = 0;
    while ( i < count || j < expectedCount )
    {
        int order = i == count
                        ? 1
                        : ( j == expectedCount ? -1 : cntComparePair( scene->pairs[i], scene->expected[j] ) );
        if ( order == 0 )
        {
            i += 1;
            j += 1;
        }
        else if ( order < 0 )
        {
            firstExtra = extra == 0 ? scene->pairs[i] : firstExtra;
            extra += 1;
            i += 1;
        }
        else
        {
            firstMissing = missing == 0 ? scene->expected[j] : firstMissing;
            missing += 1;
            j += 1;
        }
    }
    ck_assert_msg( missing == 0 && extra == 0 && count == expectedCount,
                   "round %d: %d pairs, brute force %d; %d missing (first %d-%d), %d extra (first %d-%d)",
                   round, count, expectedCount, missing, firstMissing.shapeA, firstMissing.shapeB, extra,
                   firstExtra.shapeA, firstExtra.shapeB );

    // fat boxes contain the tight boxes
    int notContained = 0;
    for ( int k = 0; k < scene->shapeCount; ++k )
    {
        const cntShape* shape = scene->shapes + k;
        if ( shape->alive == false )
        {
            continue;
        }
        cnAABB fat = cnBroadPhase_GetFatAABB( &scene->bp, shape->key );
        if ( !( fat.lower.x <= shape->tight.lower.x && fat.lower.y <= shape->tight.lower.y &&
                fat.lower.z <= shape->tight.lower.z && shape->tight.upper.x <= fat.upper.x &&
                shape->tight.upper.y <= fat.upper.y && shape->tight.upper.z <= fat.upper.z ) )
        {
            notContained += 1;
        }
    }
    ck_assert_msg( notContained == 0, "round %d: %d fat boxes miss their tight box", round, notContained );

    // the invariants, and trees of logarithmic height (no hard bound: rotations go by area)
    char message[256];
    bool valid = cnBroadPhase_Validate( &scene->bp, message, (int)sizeof( message ) );
    ck_assert_msg( valid, "round %d: %s", round, message );
    cnBroadPhaseStats stats = cnBroadPhase_GetStats( &scene->bp );
    ck_assert_int_eq( stats.proxyCount, scene->liveCount );
    ck_assert_int_eq( stats.moveCount, 0 );
    int heightBound = (int)( 2.5 * log2( (double)scene->liveCount + 2.0 ) );
    ck_assert_int_le( stats.staticHeight, heightBound );
    ck_assert_int_le( stats.movingHeight, heightBound );
    return count;
}

static void cntCreateScene( cntScene* scene, uint64_t seed )
{
    memset( scene, 0, sizeof( *scene ) );
    scene->rng = ( cntRandom ){ seed };
    scene->allocator = cntMakeCountingAllocator( &scene->counter );
    cnCreateBroadPhase( &scene->bp, &scene->allocator );

    // plane-like boxes: a static floor and wall, a kinematic half-space, a dynamic endless rod
    cnAABB floor = { { -CN_HUGE, -CN_HUGE, -CN_HUGE }, { CN_HUGE, CN_HUGE, 0.0 } };
    cnAABB wall = { { -CN_HUGE, -CN_HUGE, -CN_HUGE }, { 2.0, CN_HUGE, CN_HUGE } };
    cnAABB slab = { { -CN_HUGE, 30.0, -CN_HUGE }, { CN_HUGE, 31.0, CN_HUGE } };
    cnAABB rod = { { -CN_HUGE, 10.0, 10.0 }, { CN_HUGE, 10.5, 10.5 } };
    cntAddShape( scene, floor, cn_proxyStatic, scene->nextBody++, 1, UINT32_MAX );
    cntAddShape( scene, wall, cn_proxyStatic, scene->nextBody++, UINT32_MAX, UINT32_MAX );
    cntAddShape( scene, slab, cn_proxyKinematic, scene->nextBody++, 2, UINT32_MAX );
    cntAddShape( scene, rod, cn_proxyDynamic, scene->nextBody++, 4, 0xd );

    while ( scene->liveCount < CNT_SHAPE_COUNT )
    {
        cntAddBody( scene );
    }
}

static void cntDestroyScene( cntScene* scene )
{
    cnBroadPhase_FreePairArray( &scene->bp, &scene->pairs, &scene->pairCapacity );
    cnDestroyBroadPhase( &scene->bp );
    free( scene->expected );
    ck_assert_uint_eq( scene->counter.liveBytes, 0 );
    ck_assert_int_eq( scene->counter.liveBlocks, 0 );
}

// one round of random changes
static void cntShakeScene( cntScene* scene, int round )
{
    int64_t before = cnBroadPhase_GetStats( &scene->bp ).reinsertCount;
    int bigMoves = 0;
    for ( int i = 0; i < scene->shapeCount; ++i )
    {
        cntShape* shape = scene->shapes + i;
        if ( shape->alive == false || cnBroadPhase_GetFatAABB( &scene->bp, shape->key ).upper.x > 1.0e9 )
        {
            continue;
        }
        double r = cntUniform( &scene->rng );
        bool isStatic = shape->kind == cn_proxyStatic;
        if ( isStatic && r > 0.01 )
        {
            // static proxies mostly stay put
            continue;
        }
        if ( r < 0.4 )
        {
            // small: stays inside the fat box unless earlier small moves drifted
            cntMoveShape( scene, i, cntShift( shape->tight, cntRandomVector( scene, 0.03 ) ) );
        }
        else if ( r < 0.5 )
        {
            cntMoveShape( scene, i, cntShift( shape->tight, cntRandomVector( scene, 3.0 ) ) );
            bigMoves += 1;
        }
        else if ( r < 0.51 )
        {
            // teleport, new size
            cntMoveShape( scene, i, cntRandomBox( scene, cntRandomPoint( scene ) ) );
            bigMoves += 1;
        }
    }

    // the kinematic slab moves along y (a moved outsized proxy); a shape turns outsized and back
    cntMoveShape(
        scene, 2,
        cntShift( scene->shapes[2].tight, cnMakeVec3( 0.0, 0.5 * ( 1 - 2 * ( round % 2 ) ), 0.0 ) ) );
    int grower = 4 + round;
    if ( scene->shapes[grower].alive )
    {
        cnAABB tall = scene->shapes[grower].tight;
        tall.upper.z = CN_HUGE;
        cntMoveShape( scene, grower, round % 2 == 0 ? tall : cntRandomBox( scene, cntRandomPoint( scene ) ) );
    }

    // destroy about 4% of the ordinary shapes, then refill with new bodies
    for ( int i = 4; i < scene->shapeCount; ++i )
    {
        if ( scene->shapes[i].alive && cntUniform( &scene->rng ) < 0.04 )
        {
            cntRemoveShape( scene, i );
        }
    }
    while ( scene->liveCount < CNT_SHAPE_COUNT )
    {
        cntAddBody( scene );
    }

    // every big move left its fat box, so it was re-inserted
    int64_t reinserted = cnBroadPhase_GetStats( &scene->bp ).reinsertCount - before;
    ck_assert_int_ge( reinserted, bigMoves );
}

// _i: seed
START_TEST( random_scene_matches_brute_force )
{
    static cntScene scene; // large: keep it off the stack
    cntCreateScene( &scene, 0x5eed0000u + (uint64_t)_i );
    int count = cntCheckRound( &scene, 0 );
    ck_assert_int_gt( count, 10000 );
    ck_assert_int_eq( cnBroadPhase_GetStats( &scene.bp ).outsizedCount, 4 );

    for ( int round = 1; round <= 4; ++round )
    {
        cntShakeScene( &scene, round );
        cntCheckRound( &scene, round );
    }

    // a round with nothing moved: the same set again
    int again = cnBroadPhase_UpdatePairs( &scene.bp, &scene.pairs, &scene.pairCapacity );
    ck_assert_int_eq( again, cntBruteForcePairs( &scene ) );
    cntDestroyScene( &scene );
}
END_TEST

// small jitters of a settled scene re-insert nothing and change no pair
START_TEST( jitter_inside_margin_changes_nothing )
{
    static cntScene scene;
    cntCreateScene( &scene, 0xabcdefu );
    int count = cnBroadPhase_UpdatePairs( &scene.bp, &scene.pairs, &scene.pairCapacity );
    ck_assert_int_gt( count, 0 );
    int64_t before = cnBroadPhase_GetStats( &scene.bp ).reinsertCount;

    // move every dynamic shape back and forth by less than the margin
    for ( int step = 0; step < 3; ++step )
    {
        for ( int i = 0; i < scene.shapeCount; ++i )
        {
            cntShape* shape = scene.shapes + i;
            if ( shape->alive && shape->kind == cn_proxyDynamic )
            {
                cnVec3 d = cntRandomVector( &scene, 0.099 );
                cnBroadPhase_MoveProxy( &scene.bp, shape->key, cntShift( shape->tight, d ) );
            }
        }
        ck_assert_int_eq( cnBroadPhase_UpdatePairs( &scene.bp, &scene.pairs, &scene.pairCapacity ), count );
    }
    ck_assert_int_eq( cnBroadPhase_GetStats( &scene.bp ).reinsertCount, before );
    cntDestroyScene( &scene );
}
END_TEST

Suite* cntBroadPhaseRandomSuite( void )
{
    Suite* suite = suite_create( "broad_phase_random" );
    TCase* tc = tcase_create( "brute_force" );
    tcase_set_timeout( tc, 120 );
    tcase_add_loop_test( tc, random_scene_matches_brute_force, 0, 2 );
    tcase_add_test( tc, jitter_inside_margin_changes_nothing );
    suite_add_tcase( suite, tc );
    return suite;
}
