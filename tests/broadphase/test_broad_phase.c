// SPDX-License-Identifier: MIT
// The broadphase on small hand-made scenes: fat boxes, re-insertion, the pair filter, planes,
// queries, memory.
#include "broad_phase.h"
#include "broadphase_suites.h"
#include "core.h"
#include "test_support.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

static cnAABB cntBox( double x, double y, double z, double halfExtent )
{
    cnAABB box = { { x - halfExtent, y - halfExtent, z - halfExtent },
                   { x + halfExtent, y + halfExtent, z + halfExtent } };
    return box;
}

static cnProxyDef cntDef( cnAABB aabb, cnProxyKind kind, int shapeIndex, int bodyKey )
{
    cnProxyDef def;
    memset( &def, 0, sizeof( def ) );
    def.aabb = aabb;
    def.kind = kind;
    def.shapeIndex = shapeIndex;
    def.bodyKey = bodyKey;
    def.categoryBits = 1;
    def.maskBits = UINT32_MAX;
    return def;
}

static int cntCreate( cnBroadPhase* bp, cnAABB aabb, cnProxyKind kind, int shapeIndex, int bodyKey )
{
    cnProxyDef def = cntDef( aabb, kind, shapeIndex, bodyKey );
    int key = cnBroadPhase_CreateProxy( bp, &def );
    ck_assert_int_ne( key, CN_NULL_INDEX );
    return key;
}

static void cntAssertValid( const cnBroadPhase* bp )
{
    char message[256];
    bool valid = cnBroadPhase_Validate( bp, message, (int)sizeof( message ) );
    ck_assert_msg( valid, "invalid broadphase: %s", message );
}

static int cntHasPair( const cnPair* pairs, int count, int a, int b )
{
    for ( int i = 0; i < count; ++i )
    {
        if ( pairs[i].shapeA == a && pairs[i].shapeB == b )
        {
            return 1;
        }
    }
    return 0;
}

// the fat box is the tight box grown by the margin on every side, and contains it
START_TEST( fat_box_contains_tight_box )
{
    cnBroadPhase bp;
    cnCreateBroadPhase( &bp, NULL );
    cnAABB tight = { { -1.0, 2.0, 3.0 }, { 1.5, 2.25, 7.0 } };
    int key = cntCreate( &bp, tight, cn_proxyDynamic, 0, 0 );
    cnAABB fat = cnBroadPhase_GetFatAABB( &bp, key );
    ck_assert_double_eq( fat.lower.x, -1.0 - CN_AABB_MARGIN );
    ck_assert_double_eq( fat.lower.y, 2.0 - CN_AABB_MARGIN );
    ck_assert_double_eq( fat.lower.z, 3.0 - CN_AABB_MARGIN );
    ck_assert_double_eq( fat.upper.x, 1.5 + CN_AABB_MARGIN );
    ck_assert_double_eq( fat.upper.y, 2.25 + CN_AABB_MARGIN );
    ck_assert_double_eq( fat.upper.z, 7.0 + CN_AABB_MARGIN );
    ck_assert_int_eq( cnBroadPhase_GetShapeIndex( &bp, key ), 0 );

    // another margin applies to later proxies
    cnBroadPhase_SetMargin( &bp, 0.5 );
    int other = cntCreate( &bp, tight, cn_proxyStatic, 1, 1 );
    ck_assert_double_eq( cnBroadPhase_GetFatAABB( &bp, other ).upper.z, 7.5 );
    cntAssertValid( &bp );
    cnDestroyBroadPhase( &bp );
}
END_TEST

// a move that stays inside the fat box changes nothing; one that leaves it re-inserts once
START_TEST( small_move_does_not_reinsert )
{
    cnBroadPhase bp;
    cnCreateBroadPhase( &bp, NULL );
    int key = cntCreate( &bp, cntBox( 0.0, 0.0, 0.0, 0.5 ), cn_proxyDynamic, 0, 0 );
    cnPair* pairs = NULL;
    int capacity = 0;
    ck_assert_int_eq( cnBroadPhase_UpdatePairs( &bp, &pairs, &capacity ), 0 );
    cnAABB fat = cnBroadPhase_GetFatAABB( &bp, key );

    // 50 small moves inside the margin
    for ( int i = 0; i < 50; ++i )
    {
        double offset = 0.09 * sin( 0.3 * i );
        cnBroadPhase_MoveProxy( &bp, key, cntBox( offset, -offset, 0.5 * offset, 0.5 ) );
    }
    cnBroadPhaseStats stats = cnBroadPhase_GetStats( &bp );
    ck_assert_int_eq( stats.reinsertCount, 0 );
    ck_assert_int_eq( stats.moveCount, 0 );
    cnAABB same = cnBroadPhase_GetFatAABB( &bp, key );
    ck_assert_int_eq( memcmp( &fat, &same, sizeof( fat ) ), 0 );

    // one move out of the box
    cnBroadPhase_MoveProxy( &bp, key, cntBox( 0.2, 0.0, 0.0, 0.5 ) );
    stats = cnBroadPhase_GetStats( &bp );
    ck_assert_int_eq( stats.reinsertCount, 1 );
    ck_assert_int_eq( stats.moveCount, 1 );
    cnAABB moved = cnBroadPhase_GetFatAABB( &bp, key );
    CNT_ASSERT_ABS( moved.lower.x, -0.3 - CN_AABB_MARGIN, 1e-15 );
    CNT_ASSERT_ABS( moved.upper.x, 0.7 + CN_AABB_MARGIN, 1e-15 );
    ck_assert_int_eq( cnBroadPhase_UpdatePairs( &bp, &pairs, &capacity ), 0 );
    ck_assert_int_eq( cnBroadPhase_GetStats( &bp ).moveCount, 0 );
    cntAssertValid( &bp );
    cnBroadPhase_FreePairArray( &bp, &pairs, &capacity );
    ck_assert_ptr_null( pairs );
    cnDestroyBroadPhase( &bp );
}
END_TEST

// a predicted displacement stretches the fat box in its direction only
START_TEST( predicted_move_stretches_fat_box )
{
    cnBroadPhase bp;
    cnCreateBroadPhase( &bp, NULL );
    int key = cntCreate( &bp, cntBox( 0.0, 0.0, 0.0, 0.5 ), cn_proxyDynamic, 0, 0 );
    cnBroadPhase_MoveProxyPredicted( &bp, key, cntBox( 1.0, 0.0, 0.0, 0.5 ), cnMakeVec3( 2.0, 0.0, -1.0 ) );
    cnAABB fat = cnBroadPhase_GetFatAABB( &bp, key );
    CNT_ASSERT_ABS( fat.lower.x, 0.5 - CN_AABB_MARGIN, 1e-15 );
    CNT_ASSERT_ABS( fat.upper.x, 1.5 + CN_AABB_MARGIN + 2.0, 1e-15 );
    CNT_ASSERT_ABS( fat.lower.z, -0.5 - CN_AABB_MARGIN - 1.0, 1e-15 );
    CNT_ASSERT_ABS( fat.upper.z, 0.5 + CN_AABB_MARGIN, 1e-15 );

    // the next two steps of that motion stay inside
    cnBroadPhase_MoveProxyPredicted( &bp, key, cntBox( 2.0, 0.0, -0.5, 0.5 ), cnMakeVec3( 2.0, 0.0, -1.0 ) );
    cnBroadPhase_MoveProxyPredicted( &bp, key, cntBox( 3.0, 0.0, -1.0, 0.5 ), cnMakeVec3( 2.0, 0.0, -1.0 ) );
    ck_assert_int_eq( cnBroadPhase_GetStats( &bp ).reinsertCount, 1 );

    // the proxy stops: its stretched box is too large for it now, and is replaced
    cnBroadPhase_MoveProxy( &bp, key, cntBox( 3.0, 0.0, -1.0, 0.5 ) );
    ck_assert_int_eq( cnBroadPhase_GetStats( &bp ).reinsertCount, 2 );
    fat = cnBroadPhase_GetFatAABB( &bp, key );
    CNT_ASSERT_ABS( fat.upper.x - fat.lower.x, 1.0 + 2.0 * CN_AABB_MARGIN, 1e-14 );
    cntAssertValid( &bp );
    cnDestroyBroadPhase( &bp );
}
END_TEST

// boxes on a 10 m grid, 1 m wide: no pair at all
START_TEST( far_apart_proxies_have_no_pairs )
{
    cnBroadPhase bp;
    cnCreateBroadPhase( &bp, NULL );
    int shape = 0;
    for ( int i = 0; i < 10; ++i )
    {
        for ( int j = 0; j < 10; ++j )
        {
            for ( int k = 0; k < 10; ++k )
            {
                cnProxyKind kind = ( i + j + k ) % 3 == 0 ? cn_proxyStatic : cn_proxyDynamic;
                cntCreate( &bp, cntBox( 10.0 * i, 10.0 * j, 10.0 * k, 0.5 ), kind, shape, shape );
                shape += 1;
            }
        }
    }
    cnPair* pairs = NULL;
    int capacity = 0;
    ck_assert_int_eq( cnBroadPhase_UpdatePairs( &bp, &pairs, &capacity ), 0 );
    cntAssertValid( &bp );

    // sorted insertion must not make a tall tree (a list would be 600 high)
    cnBroadPhaseStats stats = cnBroadPhase_GetStats( &bp );
    ck_assert_int_le( stats.movingHeight, (int)( 2.5 * log2( 1000.0 ) ) );
    ck_assert_int_le( stats.staticHeight, (int)( 2.5 * log2( 1000.0 ) ) );
    cnBroadPhase_FreePairArray( &bp, &pairs, &capacity );
    cnDestroyBroadPhase( &bp );
}
END_TEST

// the filter: same body, kinds, masks; touching fat boxes pair
START_TEST( pair_filter_rules )
{
    cnBroadPhase bp;
    cnCreateBroadPhase( &bp, NULL );
    cnBroadPhase_SetMargin( &bp, 0.25 ); // exact in binary, so faces can touch exactly
    cnAABB box = cntBox( 0.0, 0.0, 0.0, 1.0 );

    // every kind against every kind, all overlapping, each on its own body
    cntCreate( &bp, box, cn_proxyStatic, 0, 0 );
    cntCreate( &bp, box, cn_proxyStatic, 1, 1 );
    cntCreate( &bp, box, cn_proxyKinematic, 2, 2 );
    cntCreate( &bp, box, cn_proxyKinematic, 3, 3 );
    cntCreate( &bp, box, cn_proxyDynamic, 4, 4 );
    cntCreate( &bp, box, cn_proxyDynamic, 5, 5 );

    // a second shape on dynamic body 4
    cntCreate( &bp, box, cn_proxyDynamic, 6, 4 );

    // a dynamic proxy of category 2 that only wants category 4
    cnProxyDef def = cntDef( box, cn_proxyDynamic, 7, 7 );
    def.categoryBits = 2;
    def.maskBits = 4;
    ck_assert_int_ne( cnBroadPhase_CreateProxy( &bp, &def ), CN_NULL_INDEX );

    // a dynamic proxy of category 4 whose mask leaves out category 1
    def = cntDef( box, cn_proxyDynamic, 8, 8 );
    def.categoryBits = 4;
    def.maskBits = ~(uint32_t)1;
    ck_assert_int_ne( cnBroadPhase_CreateProxy( &bp, &def ), CN_NULL_INDEX );

    // a dynamic proxy whose fat box touches the others' at the face x = 1.25
    cntCreate( &bp, cntBox( 2.5, 0.0, 0.0, 1.0 ), cn_proxyDynamic, 9, 9 );

    // no static-static, static-kinematic, kinematic-kinematic pair; not (4, 6) (one body); 7 and
    // 8 only with each other
    static const cnPair expected[] = {
        { 0, 4 }, { 0, 5 }, { 0, 6 }, { 0, 9 }, { 1, 4 }, { 1, 5 }, { 1, 6 }, { 1, 9 },
        { 2, 4 }, { 2, 5 }, { 2, 6 }, { 2, 9 }, { 3, 4 }, { 3, 5 }, { 3, 6 }, { 3, 9 },
        { 4, 5 }, { 4, 9 }, { 5, 6 }, { 5, 9 }, { 6, 9 }, { 7, 8 },
    };
    int expectedCount = (int)( sizeof( expected ) / sizeof( expected[0] ) );
    cnPair* pairs = NULL;
    int capacity = 0;
    int count = cnBroadPhase_UpdatePairs( &bp, &pairs, &capacity );
    ck_assert_int_eq( count, expectedCount );
    for ( int i = 0; i < count; ++i )
    {
        ck_assert_msg( pairs[i].shapeA == expected[i].shapeA && pairs[i].shapeB == expected[i].shapeB,
                       "pair %d: (%d, %d), expected (%d, %d)", i, pairs[i].shapeA, pairs[i].shapeB,
                       expected[i].shapeA, expected[i].shapeB );
    }
    cntAssertValid( &bp );
    cnBroadPhase_FreePairArray( &bp, &pairs, &capacity );
    cnDestroyBroadPhase( &bp );
}
END_TEST

// unbounded boxes: a static floor plane and a kinematic half-space pair with the dynamic boxes
// they reach, and every number stays finite
START_TEST( plane_boxes_pair_and_stay_finite )
{
    cnBroadPhase bp;
    cnCreateBroadPhase( &bp, NULL );
    cnAABB floor = { { -CN_HUGE, -CN_HUGE, -CN_HUGE }, { CN_HUGE, CN_HUGE, 0.0 } };
    cnAABB wall = { { -CN_HUGE, -CN_HUGE, -CN_HUGE }, { -20.0, CN_HUGE, CN_HUGE } };
    int floorKey = cntCreate( &bp, floor, cn_proxyStatic, 100, 100 );
    cntCreate( &bp, wall, cn_proxyKinematic, 101, 101 );

    // a column of dynamic boxes: z = 0.5, 1.5, ... with half extent 0.45; plus static boxes
    for ( int i = 0; i < 20; ++i )
    {
        cntCreate( &bp, cntBox( 0.0, 0.0, 0.5 + i, 0.45 ), cn_proxyDynamic, i, i );
        cntCreate( &bp, cntBox( 5.0 + i, 0.0, -0.5, 0.45 ), cn_proxyStatic, 200 + i, 200 + i );
    }
    // one dynamic box through the wall
    cntCreate( &bp, cntBox( -20.0, 0.0, 5.0, 0.45 ), cn_proxyDynamic, 50, 50 );

    cnPair* pairs = NULL;
    int capacity = 0;
    int count = cnBroadPhase_UpdatePairs( &bp, &pairs, &capacity );
    ck_assert_int_eq( cnBroadPhase_GetStats( &bp ).outsizedCount, 2 );

    // floor: the lowest box (fat lower z = -0.05) and the box in the wall (lower z 4.45: no);
    // wall: the box at x = -20; the column: neighbours' fat boxes overlap (gap 0.1, margins 0.2)
    ck_assert( cntHasPair( pairs, count, 0, 100 ) );
    ck_assert( cntHasPair( pairs, count, 1, 100 ) == 0 );
    ck_assert( cntHasPair( pairs, count, 50, 101 ) );
    ck_assert( cntHasPair( pairs, count, 0, 101 ) == 0 );
    ck_assert( cntHasPair( pairs, count, 50, 100 ) == 0 );
    ck_assert_int_eq( count, 2 + 19 );

    // the fat boxes of the planes are finite and the trees' boxes too
    cnAABB fat = cnBroadPhase_GetFatAABB( &bp, floorKey );
    ck_assert( isfinite( fat.lower.x ) && isfinite( fat.upper.x ) && isfinite( fat.lower.z ) );
    CNT_ASSERT_ABS( fat.upper.z, CN_AABB_MARGIN, 1e-15 );
    cntAssertValid( &bp );

    // drop a dynamic box into the far half of the floor: one more pair, found through the list
    cntCreate( &bp, cntBox( 1.0e6, -3.0e6, -1.0e5, 1.0 ), cn_proxyDynamic, 60, 60 );
    count = cnBroadPhase_UpdatePairs( &bp, &pairs, &capacity );
    ck_assert( cntHasPair( pairs, count, 60, 100 ) );
    ck_assert( cntHasPair( pairs, count, 60, 101 ) == 0 );
    ck_assert_int_eq( count, 22 );

    // lift the floor plane (a moved static outsized proxy) to z = 2: it reaches boxes 0, 1, 2
    cnAABB raised = floor;
    raised.upper.z = 2.0;
    cnBroadPhase_MoveProxy( &bp, floorKey, raised );
    count = cnBroadPhase_UpdatePairs( &bp, &pairs, &capacity );
    ck_assert( cntHasPair( pairs, count, 2, 100 ) );
    ck_assert( cntHasPair( pairs, count, 3, 100 ) == 0 );
    ck_assert_int_eq( count, 24 );
    cntAssertValid( &bp );
    cnBroadPhase_FreePairArray( &bp, &pairs, &capacity );
    cnDestroyBroadPhase( &bp );
}
END_TEST

// a box that grows past CN_OUTSIZED_EXTENT leaves its tree for the list, and comes back when it
// is small again (its fat box is then far too large, so it is re-inserted though it contains it)
START_TEST( proxy_moves_between_tree_and_outsized_list )
{
    cnBroadPhase bp;
    cnCreateBroadPhase( &bp, NULL );
    int a = cntCreate( &bp, cntBox( 0.0, 0.0, 0.0, 1.0 ), cn_proxyDynamic, 0, 0 );
    cntCreate( &bp, cntBox( 50.0, 0.0, 0.0, 1.0 ), cn_proxyDynamic, 1, 1 );
    cnPair* pairs = NULL;
    int capacity = 0;
    ck_assert_int_eq( cnBroadPhase_UpdatePairs( &bp, &pairs, &capacity ), 0 );

    cnAABB rod = { { -CN_HUGE, -1.0, -1.0 }, { CN_HUGE, 1.0, 1.0 } };
    cnBroadPhase_MoveProxy( &bp, a, rod );
    ck_assert_int_eq( cnBroadPhase_GetStats( &bp ).outsizedCount, 1 );
    cntAssertValid( &bp );
    ck_assert_int_eq( cnBroadPhase_UpdatePairs( &bp, &pairs, &capacity ), 1 );
    ck_assert( cntHasPair( pairs, 1, 0, 1 ) );

    cnBroadPhase_MoveProxy( &bp, a, cntBox( 0.0, 0.0, 0.0, 1.0 ) );
    ck_assert_int_eq( cnBroadPhase_GetStats( &bp ).outsizedCount, 0 );
    cntAssertValid( &bp );
    ck_assert_int_eq( cnBroadPhase_UpdatePairs( &bp, &pairs, &capacity ), 0 );
    cntAssertValid( &bp );
    cnBroadPhase_FreePairArray( &bp, &pairs, &capacity );
    cnDestroyBroadPhase( &bp );
}
END_TEST

// destroy removes pairs; a key reused in the same update names the new proxy only
START_TEST( destroy_and_reuse_between_updates )
{
    cnBroadPhase bp;
    cnCreateBroadPhase( &bp, NULL );
    int a = cntCreate( &bp, cntBox( 0.0, 0.0, 0.0, 1.0 ), cn_proxyDynamic, 0, 0 );
    cntCreate( &bp, cntBox( 1.0, 0.0, 0.0, 1.0 ), cn_proxyDynamic, 1, 1 );
    cntCreate( &bp, cntBox( 30.0, 0.0, 0.0, 1.0 ), cn_proxyDynamic, 2, 2 );
    cnPair* pairs = NULL;
    int capacity = 0;
    ck_assert_int_eq( cnBroadPhase_UpdatePairs( &bp, &pairs, &capacity ), 1 );

    // destroy shape 0, create shape 3 far away (same key), then shape 4 beside shape 2
    cnBroadPhase_DestroyProxy( &bp, a );
    int reused = cntCreate( &bp, cntBox( -30.0, 0.0, 0.0, 1.0 ), cn_proxyDynamic, 3, 3 );
    ck_assert_int_eq( reused, a );
    cntCreate( &bp, cntBox( 31.0, 0.0, 0.0, 1.0 ), cn_proxyDynamic, 4, 4 );
    cntAssertValid( &bp );
    ck_assert_int_eq( cnBroadPhase_UpdatePairs( &bp, &pairs, &capacity ), 1 );
    ck_assert_int_eq( pairs[0].shapeA, 2 );
    ck_assert_int_eq( pairs[0].shapeB, 4 );

    // create and destroy within one update: nothing
    int gone = cntCreate( &bp, cntBox( 30.5, 0.0, 0.0, 1.0 ), cn_proxyDynamic, 5, 5 );
    cnBroadPhase_DestroyProxy( &bp, gone );
    ck_assert_int_eq( cnBroadPhase_UpdatePairs( &bp, &pairs, &capacity ), 1 );

    // an update with nothing moved returns the same set
    ck_assert_int_eq( cnBroadPhase_UpdatePairs( &bp, &pairs, &capacity ), 1 );
    ck_assert_int_eq( pairs[0].shapeB, 4 );
    cntAssertValid( &bp );
    cnBroadPhase_FreePairArray( &bp, &pairs, &capacity );
    cnDestroyBroadPhase( &bp );
}
END_TEST

typedef struct cntQueryHits
{
    int count;
    int shapes[64];
} cntQueryHits;

static bool cntRecordHit( int proxyKey, int shapeIndex, void* context )
{
    (void)proxyKey;
    cntQueryHits* hits = context;
    if ( hits->count < 64 )
    {
        hits->shapes[hits->count] = shapeIndex;
    }
    hits->count += 1;
    return true;
}

static bool cntStopAtFirst( int proxyKey, int shapeIndex, void* context )
{
    (void)proxyKey;
    (void)shapeIndex;
    *(int*)context += 1;
    return false;
}

// the query finds every proxy whose fat box overlaps, static, moving and outsized alike
START_TEST( query_finds_overlapping_fat_boxes )
{
    cnBroadPhase bp;
    cnCreateBroadPhase( &bp, NULL );
    for ( int i = 0; i < 40; ++i )
    {
        cntCreate( &bp, cntBox( 3.0 * i, 0.0, 0.0, 1.0 ), (cnProxyKind)( i % 3 ), i, i );
    }
    cnAABB plane = { { -CN_HUGE, -CN_HUGE, -CN_HUGE }, { CN_HUGE, CN_HUGE, -5.0 } };
    cntCreate( &bp, plane, cn_proxyStatic, 99, 99 );

    // x in [10, 20]: boxes 3..7 (centres 9..21, fat half extent 1.1)
    cntQueryHits hits = { 0 };
    cnAABB box = { { 10.0, -1.0, -1.0 }, { 20.0, 1.0, 1.0 } };
    cnBroadPhase_Query( &bp, box, cntRecordHit, &hits );
    ck_assert_int_eq( hits.count, 5 );
    int mask = 0;
    for ( int i = 0; i < hits.count; ++i )
    {
        ck_assert_int_ge( hits.shapes[i], 3 );
        ck_assert_int_le( hits.shapes[i], 7 );
        mask |= 1 << hits.shapes[i];
    }
    ck_assert_int_eq( mask, 0xf8 );

    // deep down: the plane only
    hits.count = 0;
    cnBroadPhase_Query( &bp, cntBox( 0.0, 0.0, -100.0, 1.0 ), cntRecordHit, &hits );
    ck_assert_int_eq( hits.count, 1 );
    ck_assert_int_eq( hits.shapes[0], 99 );

    // stopping early
    int calls = 0;
    cnBroadPhase_Query( &bp, cntBox( 0.0, 0.0, 0.0, 1000.0 ), cntStopAtFirst, &calls );
    ck_assert_int_eq( calls, 1 );
    cnDestroyBroadPhase( &bp );
}
END_TEST

// every byte comes back; a destroyed broadphase can be destroyed again
START_TEST( counting_allocator_gets_every_byte_back )
{
    cntCountingAllocator counter;
    cnAllocator allocator = cntMakeCountingAllocator( &counter );
    cnBroadPhase bp;
    cnCreateBroadPhase( &bp, &allocator );
    ck_assert_int_eq( counter.totalAllocations, 0 );
    cnPair* pairs = NULL;
    int capacity = 0;
    int keys[500];
    for ( int i = 0; i < 500; ++i )
    {
        keys[i] = cntCreate( &bp, cntBox( 0.7 * ( i % 25 ), 0.7 * ( i / 25 ), 0.0, 0.5 ),
                             (cnProxyKind)( i % 3 ), i, i );
    }
    ck_assert_int_gt( cnBroadPhase_UpdatePairs( &bp, &pairs, &capacity ), 0 );
    for ( int i = 0; i < 500; i += 2 )
    {
        cnBroadPhase_DestroyProxy( &bp, keys[i] );
    }
    ck_assert_int_ge( cnBroadPhase_UpdatePairs( &bp, &pairs, &capacity ), 0 );
    ck_assert_uint_gt( counter.liveBytes, 0 );
    cnBroadPhase_FreePairArray( &bp, &pairs, &capacity );
    cnDestroyBroadPhase( &bp );
    ck_assert_uint_eq( counter.liveBytes, 0 );
    ck_assert_int_eq( counter.liveBlocks, 0 );
    cnDestroyBroadPhase( &bp );
    ck_assert_uint_eq( counter.liveBytes, 0 );
}
END_TEST

// Fail the allocator at every allocation of a small scenario: each failure is an error return
// that changes nothing, and the same call succeeds once memory is back.
START_TEST( out_of_memory_is_an_error_return )
{
    cntCountingAllocator counter;
    cnAllocator allocator = cntMakeCountingAllocator( &counter );
    int failures = 0;
    for ( long failAt = 0; failAt < 200; ++failAt )
    {
        cnBroadPhase bp;
        cnCreateBroadPhase( &bp, &allocator );
        counter.failAfter = counter.totalAllocations + failAt;
        cnPair* pairs = NULL;
        int capacity = 0;
        int created = 0;
        int lastCount = -2;
        for ( int i = 0; i < 60; ++i )
        {
            cnProxyDef def = cntDef( cntBox( 0.3 * i, 0.0, 0.0, 0.5 ), (cnProxyKind)( i % 3 ), i, i );
            int key = cnBroadPhase_CreateProxy( &bp, &def );
            if ( key == CN_NULL_INDEX )
            {
                // nothing changed: the same create works with memory
                failures += 1;
                ck_assert_int_eq( cnBroadPhase_GetStats( &bp ).proxyCount, created );
                cntAssertValid( &bp );
                long saved = counter.failAfter;
                counter.failAfter = -1;
                key = cnBroadPhase_CreateProxy( &bp, &def );
                counter.failAfter = saved;
                ck_assert_int_ne( key, CN_NULL_INDEX );
            }
            created += 1;
            if ( i % 20 == 19 )
            {
                int count = cnBroadPhase_UpdatePairs( &bp, &pairs, &capacity );
                if ( count < 0 )
                {
                    failures += 1;
                    cntAssertValid( &bp );
                    long saved = counter.failAfter;
                    counter.failAfter = -1;
                    count = cnBroadPhase_UpdatePairs( &bp, &pairs, &capacity );
                    counter.failAfter = saved;
                }
                ck_assert_int_gt( count, lastCount );
                lastCount = count;
            }
        }
        cntAssertValid( &bp );
        counter.failAfter = -1;
        cnBroadPhase_FreePairArray( &bp, &pairs, &capacity );
        cnDestroyBroadPhase( &bp );
        ck_assert_uint_eq( counter.liveBytes, 0 );
        ck_assert_int_eq( counter.liveBlocks, 0 );
    }
    ck_assert_int_gt( failures, 10 );
}
END_TEST

Suite* cntBroadPhaseSuite( void )
{
    Suite* suite = suite_create( "broad_phase" );
    TCase* tc = tcase_create( "basics" );
    tcase_add_test( tc, fat_box_contains_tight_box );
    tcase_add_test( tc, small_move_does_not_reinsert );
    tcase_add_test( tc, predicted_move_stretches_fat_box );
    tcase_add_test( tc, far_apart_proxies_have_no_pairs );
    tcase_add_test( tc, pair_filter_rules );
    tcase_add_test( tc, plane_boxes_pair_and_stay_finite );
    tcase_add_test( tc, proxy_moves_between_tree_and_outsized_list );
    tcase_add_test( tc, destroy_and_reuse_between_updates );
    tcase_add_test( tc, query_finds_overlapping_fat_boxes );
    suite_add_tcase( suite, tc );

    TCase* memory = tcase_create( "memory" );
    tcase_add_test( memory, counting_allocator_gets_every_byte_back );
    tcase_add_test( memory, out_of_memory_is_an_error_return );
    suite_add_tcase( suite, memory );
    return suite;
}
