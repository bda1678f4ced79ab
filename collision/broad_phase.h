// SPDX-License-Identifier: MIT
#pragma once

// The broadphase: which shapes might touch. Every shape has a proxy holding a fat box (its tight
// box grown by a margin); cnBroadPhase_UpdatePairs reports every pair of proxies whose fat boxes
// overlap and that pass the filter. Two dynamic AABB trees hold the proxies: one for static
// proxies, one for kinematic and dynamic ones. The design note is at the top of broad_phase.c.
//
// Keys: a proxy key is an index into the proxy table, stable for the proxy's life and reused after
// it is destroyed. Shape indices are the caller's; they must be unique among live proxies (pairs
// are named and sorted by them).
//
// Memory goes through the allocator given at creation; out of memory is an error return
// (CN_NULL_INDEX or -1) that leaves the broadphase as it was. Move and destroy never allocate.

#include "collide.h"

#include "cairn/base.h"
#include "cairn/math.h"

#include <stdbool.h>
#include <stdint.h>

// Default growth of a tight box into its fat box, m.
#define CN_AABB_MARGIN 0.1

// A fat box with an extent above this (m) is "outsized" (planes and other unbounded shapes, whose
// boxes reach CN_HUGE): it is kept in a short list beside the trees instead of inside them, where
// its enormous surface area would spoil the insertion cost of everything else.
#define CN_OUTSIZED_EXTENT 1.0e9

// What a proxy is attached to. Static proxies never move by themselves and are only queried by
// moved proxies; kinematic and dynamic proxies share the moving tree.
typedef enum cnProxyKind
{
    cn_proxyStatic,
    cn_proxyKinematic,
    cn_proxyDynamic,
} cnProxyKind;

// Everything a proxy needs at creation.
typedef struct cnProxyDef
{
    cnAABB aabb;           // tight box, world, m (finite, lower <= upper; use +-CN_HUGE for unbounded)
    cnProxyKind kind;      // chooses the tree and the pair rule
    int shapeIndex;        // the caller's shape, reported in pairs; unique among live proxies
    int bodyKey;           // proxies with the same body key never pair
    uint32_t categoryBits; // what this proxy is
    uint32_t maskBits;     // what it pairs with: (a.category & b.mask) && (b.category & a.mask)
} cnProxyDef;

// A pair of shapes whose fat boxes overlap; shapeA < shapeB.
typedef struct cnPair
{
    int shapeA;
    int shapeB;
} cnPair;

// One node of a dynamic AABB tree. Leaves have child1 == CN_NULL_INDEX and name their proxy.
typedef struct cnTreeNode
{
    cnAABB aabb; // fat box of a leaf, union of the children for an internal node
    int parent;  // CN_NULL_INDEX at the root; the next free node while on the free list
    int child1;  // CN_NULL_INDEX for a leaf
    union
    {
        int child2;   // internal nodes
        int proxyKey; // leaves
    };
    int height; // 0 for a leaf, 1 + max(children) above, -1 while free
} cnTreeNode;

// A dynamic AABB tree (insertion by surface-area heuristic, rotations that lower the area).
typedef struct cnDynamicTree
{
    cnTreeNode* nodes; // (capacity)
    int capacity;
    int nodeCount; // nodes in use (in the tree, or detached outsized leaves)
    int root;      // CN_NULL_INDEX when empty
    int freeList;  // first free node, chained through parent
} cnDynamicTree;

// One entry of the proxy table.
typedef struct cnProxy
{
    int node;          // its node in trees[tree], CN_NULL_INDEX while the slot is free
    int outsizedIndex; // index into cnBroadPhase.outsized, or CN_NULL_INDEX when inside its tree
    int shapeIndex;
    int bodyKey;
    uint32_t categoryBits;
    uint32_t maskBits;
    int kind;     // cnProxyKind
    int nextFree; // next free slot while free
} cnProxy;

// A pair with the proxies it came from (internal).
typedef struct cnPairEntry
{
    cnPair shapes;
    int proxyA; // proxy of shapes.shapeA
    int proxyB; // proxy of shapes.shapeB
} cnPairEntry;

// Counters for tests, tools and benchmarks.
typedef struct cnBroadPhaseStats
{
    int proxyCount;         // live proxies, all kinds
    int staticCount;        // live static proxies
    int outsizedCount;      // proxies on the outsized list
    int pairCount;          // pairs reported by the last cnBroadPhase_UpdatePairs
    int moveCount;          // proxies waiting for the next update (created, re-inserted, destroyed)
    int staticHeight;       // height of the static tree (-1 when empty)
    int movingHeight;       // height of the moving tree (-1 when empty)
    int64_t reinsertCount;  // re-insertions by move since creation (small moves do not count)
    int64_t queryNodeCount; // tree nodes visited by cnBroadPhase_UpdatePairs since creation
} cnBroadPhaseStats;

// The broadphase. Embed it anywhere; all fields are private to broad_phase.c.
typedef struct cnBroadPhase
{
    cnAllocator allocator; // copy of the one given at creation (zero: the C library)
    double margin;         // tight box -> fat box growth, m

    cnDynamicTree trees[2]; // [0] static proxies, [1] kinematic and dynamic proxies

    cnProxy* proxies; // (proxyCapacity)
    int proxyCapacity;
    int proxySlotCount; // slots ever used: [0, proxySlotCount)
    int proxyCount;     // live proxies
    int staticCount;
    int freeProxy; // first free slot, chained through nextFree

    uint8_t* moved; // (movedCapacity) per slot: 1 while the slot waits in moveBuffer
    int movedCapacity;
    int* moveBuffer; // (moveCapacity) slots to look at in the next update, each once
    int moveCount;
    int moveCapacity;

    int* outsized; // (outsizedCapacity) keys of outsized proxies, both trees
    int outsizedCount;
    int outsizedCapacity;

    cnPairEntry* pairs; // (pairCapacity) the current pair set, sorted by shapes
    int pairCount;
    int pairCapacity;
    cnPairEntry* nextPairs; // (nextPairCapacity) scratch: the merged set being built
    int nextPairCapacity;
    cnPairEntry* candidates; // (candidateCapacity) scratch: pairs found by moved proxies
    int candidateCount;
    int candidateCapacity;

    int64_t reinsertCount;
    int64_t queryNodeCount;
} cnBroadPhase;

// Called for every proxy found by cnBroadPhase_Query; return false to stop the query.
typedef bool cnBroadPhaseQueryFcn( int proxyKey, int shapeIndex, void* context );

// Make an empty broadphase with margin CN_AABB_MARGIN. `allocator` (nullable: the C library) is
// copied; its context must outlive the broadphase. Allocates nothing until the first proxy.
void cnCreateBroadPhase( cnBroadPhase* bp, const cnAllocator* allocator );

// Free every byte the broadphase holds and zero it. A zeroed broadphase may be destroyed again.
void cnDestroyBroadPhase( cnBroadPhase* bp );

// Set the margin (m, >= 0) used from now on when a proxy is created or re-inserted.
void cnBroadPhase_SetMargin( cnBroadPhase* bp, double margin );

// Add a proxy for def->aabb grown by the margin. It pairs from the next update on. Returns the
// proxy key, or CN_NULL_INDEX when out of memory (nothing changed).
int cnBroadPhase_CreateProxy( cnBroadPhase* bp, const cnProxyDef* def );

// Remove a proxy; its pairs disappear at the next update. The key may be reused by a later
// create. Never allocates.
void cnBroadPhase_DestroyProxy( cnBroadPhase* bp, int proxyKey );

// Tell the proxy its new tight box. When the box still lies inside the fat box nothing happens;
// otherwise the proxy gets a new fat box (tight + margin) and is re-inserted, and its pairs are
// looked at in the next update. A fat box that has become far too large (along some axis wider
// than twice the new fat box plus four margins, e.g. after a fast or unbounded phase) is replaced
// the same way. Never allocates.
void cnBroadPhase_MoveProxy( cnBroadPhase* bp, int proxyKey, cnAABB aabb );

// True when the box is finite and not inverted: what the trees take (they assert it).
bool cnAABB_IsValid( cnAABB a );

// Closed boxes: do `a` and `b` touch or overlap? Does `outer` contain `inner`?
bool cnAABB_Overlaps( const cnAABB* a, const cnAABB* b );
bool cnAABB_Contains( const cnAABB* outer, const cnAABB* inner );

// As cnBroadPhase_MoveProxy, but a re-inserted fat box is also stretched along `displacement`
// (m, world; the motion the caller predicts before the next move, e.g. v dt times a factor), so
// that a fast proxy is re-inserted less often. Pass the prediction on every move: the "too
// large" test compares with the stretched box.
void cnBroadPhase_MoveProxyPredicted( cnBroadPhase* bp, int proxyKey, cnAABB aabb, cnVec3 displacement );

// The fat box of a live proxy.
cnAABB cnBroadPhase_GetFatAABB( const cnBroadPhase* bp, int proxyKey );

// The shape index of a live proxy.
int cnBroadPhase_GetShapeIndex( const cnBroadPhase* bp, int proxyKey );

// Bring the pair set up to date and copy it out: every pair of live proxies whose FAT boxes
// overlap (closed boxes: touching faces count) and that pass the filter, sorted by (shapeA,
// shapeB) ascending, each once. Filter: proxies of the same body key never pair; at least one of
// the two is dynamic; each one's category is in the other's mask.
// `*pairs` is a growable array of `*capacity` elements allocated with the broadphase's allocator
// (start with NULL and 0); it is grown as needed and stays the caller's, to be released with
// cnBroadPhase_FreePairArray. Returns the number of pairs, or -1 when out of memory: then the
// broadphase is unchanged (a later call does the work) and `*pairs` / `*capacity` stay valid.
int cnBroadPhase_UpdatePairs( cnBroadPhase* bp, cnPair** pairs, int* capacity );

// Release an array grown by cnBroadPhase_UpdatePairs and set it to NULL / 0.
void cnBroadPhase_FreePairArray( cnBroadPhase* bp, cnPair** pairs, int* capacity );

// Call `fcn` for every live proxy whose fat box overlaps `aabb` (closed boxes), in no particular
// order, until it returns false. The broadphase must not be changed during the query.
void cnBroadPhase_Query( const cnBroadPhase* bp, cnAABB aabb, cnBroadPhaseQueryFcn* fcn, void* context );

// As cnBroadPhase_Query, for the static proxies only (the static tree and the static outsized
// proxies): what a fast body's sweep against static shapes needs, without walking the moving tree.
void cnBroadPhase_QueryStatic( const cnBroadPhase* bp, cnAABB aabb, cnBroadPhaseQueryFcn* fcn,
                               void* context );

// Called for every proxy whose fat box the ray meets within the current maximum fraction, with
// that maximum. Returns the new maximum: a value <= 0 stops the cast, a value below the current
// maximum clips the ray there (later boxes are tested against it), anything else keeps it.
typedef double cnBroadPhaseRayFcn( int proxyKey, int shapeIndex, double maxFraction, void* context );

// Walk both trees and the outsized list along the segment origin + t translation, t in
// [0, maxFraction], calling `fcn` for every live proxy whose fat box the (clipped) segment meets,
// in no particular order. Read only: several casts may run at once on an unchanging broadphase.
void cnBroadPhase_RayCast( const cnBroadPhase* bp, cnVec3 origin, cnVec3 translation, double maxFraction,
                           cnBroadPhaseRayFcn* fcn, void* context );

// Counters: proxies, tree heights, re-insertions.
cnBroadPhaseStats cnBroadPhase_GetStats( const cnBroadPhase* bp );

// Check every internal invariant (tree links, boxes containing children, heights,
// proxy table, free lists, move buffer, sorted pair set). O(n). Returns true when all hold;
// otherwise writes the first problem into `message` (nullable, `messageSize` bytes).
bool cnBroadPhase_Validate( const cnBroadPhase* bp, char* message, int messageSize );
