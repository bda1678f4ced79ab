// SPDX-License-Identifier: MIT
#include "broad_phase.h"

#include "core.h"
#include "ray.h"

#include <stdlib.h>
#include <string.h>

// Design note
//
// Boxes. A proxy stores a fat box: its tight box grown by the margin (and optionally stretched
// along a predicted displacement). Moving a proxy whose tight box stays inside its fat box costs a
// containment test and nothing else; only when the tight box leaves is the proxy re-inserted (or
// when the fat box has become far too large for it, after a fast or huge phase, as in Box2D v2.4).
// Pairs are defined on fat boxes, so they change only when a fat box changes.
//
// Trees. Static proxies live in one dynamic AABB tree, kinematic and dynamic ones in another
// (Box2D's split). The trees are binary bounding-volume hierarchies built incrementally after
// Box2D v3: a leaf goes in beside the node that the surface-area heuristic picks (new parent's
// area plus the growth of all ancestors, searched down one path with a lower bound), and on the
// way up each ancestor may swap a child with a grandchild when that lowers the summed area
// (tree rotations by cost). An earlier version balanced by height (AVL rotations, Box2D v2):
// the trees were shallower but a query visited eight times more nodes. Without a height bound the
// walks use parent links instead of a stack, so no depth can overflow anything. Removing a leaf
// frees its parent and refits the ancestors. Nodes come from a free list in one growable array.
// Boxes wider than CN_OUTSIZED_EXTENT (planes, CN_HUGE) stay out of the trees, in a short list
// that every moved proxy scans: inside a tree their surface area (1e36) would make every insertion
// cost look the same and the tree would lose its shape.
//
// Pairs. The broadphase keeps the current pair set, sorted by shape indices. A pair changes only
// when one of its two fat boxes changes, i.e. when one of its proxies was created, re-inserted or
// destroyed since the last update: those proxies are "moved" (a flag per proxy slot and a move
// buffer holding each flagged slot once). An update then
//  1. drops every pair that has a moved proxy,
//  2. queries the trees with the fat box of every live moved proxy: a dynamic proxy asks both
//     trees, a static or kinematic one only the moving tree (it can pair with dynamic proxies
//     only); a pair of two moved proxies is kept by the one with the smaller key, so each pair is
//     found once, and the new pairs are sorted,
//  3. merges the kept old pairs with the new ones (two sorted lists with no pair in common).
// The result is exactly the set a brute-force pass over all fat boxes would give, at a cost of
// O(m log n + k log k + p) for m moved proxies, k pairs they touch and p pairs in all. Static
// proxies that do not move cost nothing per update besides their pairs. Every allocation of an
// update happens before anything is changed, so running out of memory leaves the state as it was.
// Create reserves room for the proxy in every array (tree nodes, move buffer, outsized list), so
// move and destroy never allocate.
//
// Cost. With n = 100,000 the moving tree (16 MB of 64-byte nodes) no longer fits in the caches and
// a re-insertion costs about four times what it costs at 10,000 (see tests/bench/README.md and its
// results). Laying the nodes out again in depth-first order every few steps gained only 8% (it
// scatters the leaves that the moves read in proxy order) and was not kept.

enum
{
    cn_staticTree = 0,
    cn_movingTree = 1,
};

// ---------------------------------------------------------------------------------------------
// boxes

static cnAABB cnAABB_Union( cnAABB a, cnAABB b )
{
    cnAABB c;
    c.lower.x = a.lower.x < b.lower.x ? a.lower.x : b.lower.x;
    c.lower.y = a.lower.y < b.lower.y ? a.lower.y : b.lower.y;
    c.lower.z = a.lower.z < b.lower.z ? a.lower.z : b.lower.z;
    c.upper.x = a.upper.x > b.upper.x ? a.upper.x : b.upper.x;
    c.upper.y = a.upper.y > b.upper.y ? a.upper.y : b.upper.y;
    c.upper.z = a.upper.z > b.upper.z ? a.upper.z : b.upper.z;
    return c;
}

// half the surface area; finite for any finite box (CN_HUGE boxes give about 1e36)
static double cnAABB_Area( cnAABB a )
{
    double dx = a.upper.x - a.lower.x;
    double dy = a.upper.y - a.lower.y;
    double dz = a.upper.z - a.lower.z;
    return dx * dy + dy * dz + dz * dx;
}

// closed boxes: touching faces overlap
bool cnAABB_Overlaps( const cnAABB* a, const cnAABB* b )
{
    return a->lower.x <= b->upper.x && b->lower.x <= a->upper.x && a->lower.y <= b->upper.y &&
           b->lower.y <= a->upper.y && a->lower.z <= b->upper.z && b->lower.z <= a->upper.z;
}

// does `outer` contain `inner`?
bool cnAABB_Contains( const cnAABB* outer, const cnAABB* inner )
{
    return outer->lower.x <= inner->lower.x && outer->lower.y <= inner->lower.y &&
           outer->lower.z <= inner->lower.z && inner->upper.x <= outer->upper.x &&
           inner->upper.y <= outer->upper.y && inner->upper.z <= outer->upper.z;
}

bool cnAABB_IsValid( cnAABB a )
{
    return isfinite( a.lower.x ) && isfinite( a.lower.y ) && isfinite( a.lower.z ) && isfinite( a.upper.x ) &&
           isfinite( a.upper.y ) && isfinite( a.upper.z ) && a.lower.x <= a.upper.x &&
           a.lower.y <= a.upper.y && a.lower.z <= a.upper.z;
}

static bool cnAABB_IsOutsized( const cnAABB* a )
{
    return a->upper.x - a->lower.x > CN_OUTSIZED_EXTENT || a->upper.y - a->lower.y > CN_OUTSIZED_EXTENT ||
           a->upper.z - a->lower.z > CN_OUTSIZED_EXTENT;
}

// tight box grown by the margin and stretched along the displacement
static cnAABB cnMakeFatAABB( cnAABB tight, double margin, cnVec3 d )
{
    cnAABB fat;
    fat.lower.x = tight.lower.x - margin + ( d.x < 0.0 ? d.x : 0.0 );
    fat.lower.y = tight.lower.y - margin + ( d.y < 0.0 ? d.y : 0.0 );
    fat.lower.z = tight.lower.z - margin + ( d.z < 0.0 ? d.z : 0.0 );
    fat.upper.x = tight.upper.x + margin + ( d.x > 0.0 ? d.x : 0.0 );
    fat.upper.y = tight.upper.y + margin + ( d.y > 0.0 ? d.y : 0.0 );
    fat.upper.z = tight.upper.z + margin + ( d.z > 0.0 ? d.z : 0.0 );
    return fat;
}

// Is a fat box much larger than the one a re-insertion would give? (More than twice as wide plus
// four margins along some axis: a proxy that was fast, or huge, and is now slow or small.)
static bool cnAABB_IsTooLarge( const cnAABB* fat, const cnAABB* fresh, double margin )
{
    double slack = 4.0 * margin;
    return fat->upper.x - fat->lower.x > 2.0 * ( fresh->upper.x - fresh->lower.x ) + slack ||
           fat->upper.y - fat->lower.y > 2.0 * ( fresh->upper.y - fresh->lower.y ) + slack ||
           fat->upper.z - fat->lower.z > 2.0 * ( fresh->upper.z - fresh->lower.z ) + slack;
}

// ---------------------------------------------------------------------------------------------
// dynamic tree

static void cnTree_Create( cnDynamicTree* tree )
{
    memset( tree, 0, sizeof( *tree ) );
    tree->root = CN_NULL_INDEX;
    tree->freeList = CN_NULL_INDEX;
}

static void cnTree_Destroy( cnDynamicTree* tree, const cnAllocator* allocator )
{
    cnFree( allocator, tree->nodes, (size_t)tree->capacity * sizeof( cnTreeNode ) );
    cnTree_Create( tree );
}

// make room for `needed` nodes in all (doubling); new nodes go on the free list. Nodes are 64
// bytes, aligned to 64, so that a node is one cache line.
static bool cnTree_Reserve( cnDynamicTree* tree, const cnAllocator* allocator, int needed )
{
    _Static_assert( sizeof( cnTreeNode ) == 64, "a tree node is one cache line" );
    int oldCapacity = tree->capacity;
    if ( needed <= oldCapacity )
    {
        return true;
    }
    int capacity = oldCapacity > 0 ? oldCapacity : 16;
    while ( capacity < needed )
    {
        if ( capacity > INT32_MAX / 2 )
        {
            return false;
        }
        capacity *= 2;
    }
    cnTreeNode* nodes = cnRealloc( allocator, tree->nodes, (size_t)oldCapacity * sizeof( cnTreeNode ),
                                   (size_t)capacity * sizeof( cnTreeNode ), 64 );
    if ( nodes == NULL )
    {
        return false;
    }
    tree->nodes = nodes;
    tree->capacity = capacity;

    // chain the new nodes in front of the free list
    for ( int i = tree->capacity - 1; i >= oldCapacity; --i )
    {
        cnTreeNode* node = tree->nodes + i;
        memset( node, 0, sizeof( *node ) );
        node->parent = tree->freeList;
        node->child1 = CN_NULL_INDEX;
        node->child2 = CN_NULL_INDEX;
        node->height = -1;
        tree->freeList = i;
    }
    return true;
}

// take a node from the free list (the caller reserved it)
static int cnTree_AllocateNode( cnDynamicTree* tree )
{
    CN_ASSERT( tree->freeList != CN_NULL_INDEX );
    int index = tree->freeList;
    cnTreeNode* node = tree->nodes + index;
    tree->freeList = node->parent;
    node->parent = CN_NULL_INDEX;
    node->child1 = CN_NULL_INDEX;
    node->child2 = CN_NULL_INDEX;
    node->height = 0;
    tree->nodeCount += 1;
    return index;
}

static void cnTree_FreeNode( cnDynamicTree* tree, int index )
{
    CN_ASSERT( 0 <= index && index < tree->capacity && tree->nodeCount > 0 );
    cnTreeNode* node = tree->nodes + index;
    node->parent = tree->freeList;
    node->child1 = CN_NULL_INDEX;
    node->child2 = CN_NULL_INDEX;
    node->height = -1;
    tree->freeList = index;
    tree->nodeCount -= 1;
}

static bool cnTree_IsLeaf( const cnTreeNode* node )
{
    return node->child1 == CN_NULL_INDEX;
}

static int cnMaxInt( int a, int b )
{
    return a > b ? a : b;
}

static cnVec3 cnAABB_Center( const cnAABB* a )
{
    return cnMakeVec3( 0.5 * ( a->lower.x + a->upper.x ), 0.5 * ( a->lower.y + a->upper.y ),
                       0.5 * ( a->lower.z + a->upper.z ) );
}

// The sibling for a new leaf of box `boxD` that costs least by the surface-area heuristic: the
// cost of a choice is the area of the new parent plus the growth of every ancestor. One path is
// followed from the root, into the child with the lower bound of cost, and the best node seen on
// the way is kept; the walk stops when no child can beat it (Box2D v3's search).
static int cnTree_FindBestSibling( const cnDynamicTree* tree, cnAABB boxD )
{
    const cnTreeNode* nodes = tree->nodes;
    double areaD = cnAABB_Area( boxD );
    cnVec3 centerD = cnAABB_Center( &boxD );

    int index = tree->root;
    double directCost = cnAABB_Area( cnAABB_Union( nodes[index].aabb, boxD ) );
    double inheritedCost = 0.0;
    int bestSibling = index;
    double bestCost = directCost;

    while ( cnTree_IsLeaf( nodes + index ) == false )
    {
        const cnTreeNode* node = nodes + index;

        // this node as the sibling
        double cost = directCost + inheritedCost;
        if ( cost < bestCost )
        {
            bestSibling = index;
            bestCost = cost;
        }

        // going below, this node grows by this much
        inheritedCost += directCost - cnAABB_Area( node->aabb );

        // each child: exact cost for a leaf, a lower bound for a subtree
        int children[2] = { node->child1, node->child2 };
        double childDirect[2];
        double lowerCost[2] = { HUGE_VAL, HUGE_VAL };
        for ( int k = 0; k < 2; ++k )
        {
            const cnTreeNode* child = nodes + children[k];
            childDirect[k] = cnAABB_Area( cnAABB_Union( child->aabb, boxD ) );
            if ( cnTree_IsLeaf( child ) )
            {
                double childCost = childDirect[k] + inheritedCost;
                if ( childCost < bestCost )
                {
                    bestSibling = children[k];
                    bestCost = childCost;
                }
            }
            else
            {
                double areaChild = cnAABB_Area( child->aabb );
                double shrink = areaD - areaChild < 0.0 ? areaD - areaChild : 0.0;
                lowerCost[k] = inheritedCost + childDirect[k] + shrink;
            }
        }

        // no subtree can beat the best so far
        if ( bestCost <= lowerCost[0] && bestCost <= lowerCost[1] )
        {
            break;
        }

        // descend into the cheaper subtree; on a tie, the one whose centre is nearer
        int pick;
        if ( lowerCost[0] == lowerCost[1] )
        {
            cnVec3 d1 = cnSub( cnAABB_Center( &nodes[children[0]].aabb ), centerD );
            cnVec3 d2 = cnSub( cnAABB_Center( &nodes[children[1]].aabb ), centerD );
            pick = cnDot( d1, d1 ) <= cnDot( d2, d2 ) ? 0 : 1;
        }
        else
        {
            pick = lowerCost[0] < lowerCost[1] ? 0 : 1;
        }
        index = children[pick];
        directCost = childDirect[pick];
    }
    return bestSibling;
}

// Swap a child of A with a grandchild on the other side when that lowers the summed area of A's
// children (Box2D v3's tree rotations). Four swaps are possible when both children are internal,
// two when one is a leaf. A's own box does not change.
static void cnTree_RotateNodes( cnDynamicTree* tree, int iA )
{
    cnTreeNode* nodes = tree->nodes;
    cnTreeNode* a = nodes + iA;
    if ( a->height < 2 )
    {
        return;
    }
    int iB = a->child1;
    int iC = a->child2;
    cnTreeNode* b = nodes + iB;
    cnTreeNode* c = nodes + iC;

    // the candidate swaps: `moveUp` (a grandchild) trades places with `moveDown` (the uncle),
    // and `parent` (the grandchild's parent) gets the box `box`; `gain` is the area saved
    typedef struct
    {
        int moveUp;
        int moveDown;
        int parent;
        cnAABB box;
        double gain;
    } cnRotation;
    cnRotation options[4];
    int optionCount = 0;

    if ( cnTree_IsLeaf( c ) == false )
    {
        // B down into C, in place of F (C keeps G) or of G (C keeps F)
        double areaC = cnAABB_Area( c->aabb );
        int grand[2] = { c->child1, c->child2 };
        for ( int k = 0; k < 2; ++k )
        {
            cnAABB box = cnAABB_Union( b->aabb, nodes[grand[1 - k]].aabb );
            options[optionCount++] = ( cnRotation ){ grand[k], iB, iC, box, areaC - cnAABB_Area( box ) };
        }
    }
    if ( cnTree_IsLeaf( b ) == false )
    {
        // C down into B, in place of D (B keeps E) or of E (B keeps D)
        double areaB = cnAABB_Area( b->aabb );
        int grand[2] = { b->child1, b->child2 };
        for ( int k = 0; k < 2; ++k )
        {
            cnAABB box = cnAABB_Union( c->aabb, nodes[grand[1 - k]].aabb );
            options[optionCount++] = ( cnRotation ){ grand[k], iC, iB, box, areaB - cnAABB_Area( box ) };
        }
    }

    int best = -1;
    double bestGain = 0.0;
    for ( int k = 0; k < optionCount; ++k )
    {
        if ( options[k].gain > bestGain )
        {
            best = k;
            bestGain = options[k].gain;
        }
    }
    if ( best < 0 )
    {
        return;
    }

    // apply: the grandchild goes up into A, the uncle down into the grandchild's old parent
    const cnRotation* r = options + best;
    cnTreeNode* parent = nodes + r->parent;
    if ( a->child1 == r->moveDown )
    {
        a->child1 = r->moveUp;
    }
    else
    {
        a->child2 = r->moveUp;
    }
    if ( parent->child1 == r->moveUp )
    {
        parent->child1 = r->moveDown;
    }
    else
    {
        parent->child2 = r->moveDown;
    }
    nodes[r->moveUp].parent = iA;
    nodes[r->moveDown].parent = r->parent;
    parent->aabb = r->box;
    parent->height = 1 + cnMaxInt( nodes[parent->child1].height, nodes[parent->child2].height );
    a->height = 1 + cnMaxInt( nodes[a->child1].height, nodes[a->child2].height );
}

// Insert a leaf whose box is set. Needs one free node for the new parent (reserved by the caller).
static void cnTree_InsertLeaf( cnDynamicTree* tree, int leaf )
{
    cnTreeNode* nodes = tree->nodes;
    if ( tree->root == CN_NULL_INDEX )
    {
        tree->root = leaf;
        nodes[leaf].parent = CN_NULL_INDEX;
        return;
    }

    // a new parent takes the best sibling's place
    cnAABB leafBox = nodes[leaf].aabb;
    int sibling = cnTree_FindBestSibling( tree, leafBox );
    int oldParent = nodes[sibling].parent;
    int newParent = cnTree_AllocateNode( tree );
    cnTreeNode* parent = nodes + newParent;
    parent->parent = oldParent;
    parent->aabb = cnAABB_Union( leafBox, nodes[sibling].aabb );
    parent->height = nodes[sibling].height + 1;
    parent->child1 = sibling;
    parent->child2 = leaf;
    nodes[sibling].parent = newParent;
    nodes[leaf].parent = newParent;
    if ( oldParent != CN_NULL_INDEX )
    {
        if ( nodes[oldParent].child1 == sibling )
        {
            nodes[oldParent].child1 = newParent;
        }
        else
        {
            nodes[oldParent].child2 = newParent;
        }
    }
    else
    {
        tree->root = newParent;
    }

    // refit the ancestors, rotating where it lowers the area
    for ( int index = newParent; index != CN_NULL_INDEX; index = nodes[index].parent )
    {
        cnTreeNode* node = nodes + index;
        node->aabb = cnAABB_Union( nodes[node->child1].aabb, nodes[node->child2].aabb );
        node->height = 1 + cnMaxInt( nodes[node->child1].height, nodes[node->child2].height );
        cnTree_RotateNodes( tree, index );
    }
}

// Unlink a leaf (it stays allocated); its parent is freed and the sibling takes the parent's place.
static void cnTree_RemoveLeaf( cnDynamicTree* tree, int leaf )
{
    cnTreeNode* nodes = tree->nodes;
    if ( leaf == tree->root )
    {
        tree->root = CN_NULL_INDEX;
        return;
    }

    int parent = nodes[leaf].parent;
    int grandParent = nodes[parent].parent;
    int sibling = nodes[parent].child1 == leaf ? nodes[parent].child2 : nodes[parent].child1;
    nodes[leaf].parent = CN_NULL_INDEX;
    cnTree_FreeNode( tree, parent );
    nodes[sibling].parent = grandParent;
    if ( grandParent == CN_NULL_INDEX )
    {
        tree->root = sibling;
        return;
    }
    if ( nodes[grandParent].child1 == parent )
    {
        nodes[grandParent].child1 = sibling;
    }
    else
    {
        nodes[grandParent].child2 = sibling;
    }

    // refit the ancestors
    for ( int index = grandParent; index != CN_NULL_INDEX; index = nodes[index].parent )
    {
        cnTreeNode* node = nodes + index;
        node->aabb = cnAABB_Union( nodes[node->child1].aabb, nodes[node->child2].aabb );
        node->height = 1 + cnMaxInt( nodes[node->child1].height, nodes[node->child2].height );
    }
}

// The next node of a depth-first walk after `index`: its first child when `descend` (and it has
// children), else the second child of the nearest ancestor reached from its first child.
// CN_NULL_INDEX at the end. Needs no stack, so no depth limit.
static int cnTree_Next( const cnTreeNode* nodes, int index, bool descend )
{
    if ( descend && cnTree_IsLeaf( nodes + index ) == false )
    {
        return nodes[index].child1;
    }
    for ( ;; )
    {
        int parent = nodes[index].parent;
        if ( parent == CN_NULL_INDEX )
        {
            return CN_NULL_INDEX;
        }
        if ( nodes[parent].child1 == index )
        {
            return nodes[parent].child2;
        }
        index = parent;
    }
}

// ---------------------------------------------------------------------------------------------
// proxies

static cnDynamicTree* cnGetTree( cnBroadPhase* bp, const cnProxy* proxy )
{
    return bp->trees + ( proxy->kind == cn_proxyStatic ? cn_staticTree : cn_movingTree );
}

static const cnDynamicTree* cnGetTreeConst( const cnBroadPhase* bp, const cnProxy* proxy )
{
    return bp->trees + ( proxy->kind == cn_proxyStatic ? cn_staticTree : cn_movingTree );
}

static bool cnIsLiveProxy( const cnBroadPhase* bp, int proxyKey )
{
    return 0 <= proxyKey && proxyKey < bp->proxySlotCount && bp->proxies[proxyKey].node != CN_NULL_INDEX;
}

// the pair rule: different bodies, at least one dynamic, categories in each other's masks
static bool cnShouldPair( const cnProxy* a, const cnProxy* b )
{
    if ( a->bodyKey == b->bodyKey )
    {
        return false;
    }
    if ( a->kind != cn_proxyDynamic && b->kind != cn_proxyDynamic )
    {
        return false;
    }
    return ( a->categoryBits & b->maskBits ) != 0 && ( b->categoryBits & a->maskBits ) != 0;
}

// flag a slot for the next update, once
static void cnMarkMoved( cnBroadPhase* bp, int proxyKey )
{
    if ( bp->moved[proxyKey] == 0 )
    {
        CN_ASSERT( bp->moveCount < bp->moveCapacity );
        bp->moved[proxyKey] = 1;
        bp->moveBuffer[bp->moveCount] = proxyKey;
        bp->moveCount += 1;
    }
}

static void cnAddOutsized( cnBroadPhase* bp, int proxyKey )
{
    CN_ASSERT( bp->outsizedCount < bp->outsizedCapacity );
    bp->proxies[proxyKey].outsizedIndex = bp->outsizedCount;
    bp->outsized[bp->outsizedCount] = proxyKey;
    bp->outsizedCount += 1;
}

// swap-remove from the outsized list
static void cnRemoveOutsized( cnBroadPhase* bp, int proxyKey )
{
    int index = bp->proxies[proxyKey].outsizedIndex;
    CN_ASSERT( 0 <= index && index < bp->outsizedCount && bp->outsized[index] == proxyKey );
    int last = bp->outsized[bp->outsizedCount - 1];
    bp->outsized[index] = last;
    bp->proxies[last].outsizedIndex = index;
    bp->outsizedCount -= 1;
    bp->proxies[proxyKey].outsizedIndex = CN_NULL_INDEX;
}

// Grow an array through cnReserve; returns the (maybe moved) array. Does nothing once `*ok` is
// false, and sets it to false when out of memory (the array is then unchanged).
static void* cnGrow( cnBroadPhase* bp, void* array, int* capacity, int needed, size_t elementSize, bool* ok )
{
    void* block = array;
    if ( *ok && cnReserve( &bp->allocator, &block, capacity, needed, 16, elementSize ) == false )
    {
        *ok = false;
    }
    return block;
}

void cnCreateBroadPhase( cnBroadPhase* bp, const cnAllocator* allocator )
{
    memset( bp, 0, sizeof( *bp ) );
    if ( allocator != NULL )
    {
        bp->allocator = *allocator;
    }
    bp->margin = CN_AABB_MARGIN;
    cnTree_Create( bp->trees + cn_staticTree );
    cnTree_Create( bp->trees + cn_movingTree );
    bp->freeProxy = CN_NULL_INDEX;
}

void cnDestroyBroadPhase( cnBroadPhase* bp )
{
    const cnAllocator* allocator = &bp->allocator;
    cnTree_Destroy( bp->trees + cn_staticTree, allocator );
    cnTree_Destroy( bp->trees + cn_movingTree, allocator );
    cnFree( allocator, bp->proxies, (size_t)bp->proxyCapacity * sizeof( cnProxy ) );
    cnFree( allocator, bp->moved, (size_t)bp->movedCapacity * sizeof( uint8_t ) );
    cnFree( allocator, bp->moveBuffer, (size_t)bp->moveCapacity * sizeof( int ) );
    cnFree( allocator, bp->outsized, (size_t)bp->outsizedCapacity * sizeof( int ) );
    cnFree( allocator, bp->pairs, (size_t)bp->pairCapacity * sizeof( cnPairEntry ) );
    cnFree( allocator, bp->nextPairs, (size_t)bp->nextPairCapacity * sizeof( cnPairEntry ) );
    cnFree( allocator, bp->candidates, (size_t)bp->candidateCapacity * sizeof( cnPairEntry ) );
    cnAllocator saved = bp->allocator;
    cnCreateBroadPhase( bp, &saved );
}

void cnBroadPhase_SetMargin( cnBroadPhase* bp, double margin )
{
    CN_ASSERT( margin >= 0.0 && isfinite( margin ) );
    bp->margin = margin;
}

int cnBroadPhase_CreateProxy( cnBroadPhase* bp, const cnProxyDef* def )
{
    CN_ASSERT( cnAABB_IsValid( def->aabb ) );
    CN_ASSERT( def->kind == cn_proxyStatic || def->kind == cn_proxyKinematic ||
               def->kind == cn_proxyDynamic );

    // reserve everything first: a failure changes nothing
    int slotCount = bp->freeProxy != CN_NULL_INDEX ? bp->proxySlotCount : bp->proxySlotCount + 1;
    int treeIndex = def->kind == cn_proxyStatic ? cn_staticTree : cn_movingTree;
    int treeLeaves = treeIndex == cn_staticTree ? bp->staticCount : bp->proxyCount - bp->staticCount;
    if ( slotCount < 0 || treeLeaves > INT32_MAX / 2 - 2 )
    {
        return CN_NULL_INDEX;
    }
    bool ok = true;
    bp->proxies = cnGrow( bp, bp->proxies, &bp->proxyCapacity, slotCount, sizeof( cnProxy ), &ok );
    int oldMovedCapacity = bp->movedCapacity;
    bp->moved = cnGrow( bp, bp->moved, &bp->movedCapacity, slotCount, sizeof( uint8_t ), &ok );
    if ( bp->movedCapacity > oldMovedCapacity )
    {
        // new slots read "not moved"
        memset( bp->moved + oldMovedCapacity, 0, (size_t)( bp->movedCapacity - oldMovedCapacity ) );
    }
    bp->moveBuffer = cnGrow( bp, bp->moveBuffer, &bp->moveCapacity, slotCount, sizeof( int ), &ok );
    bp->outsized = cnGrow( bp, bp->outsized, &bp->outsizedCapacity, bp->proxyCount + 1, sizeof( int ), &ok );
    if ( ok == false ||
         cnTree_Reserve( bp->trees + treeIndex, &bp->allocator, 2 * ( treeLeaves + 1 ) ) == false )
    {
        return CN_NULL_INDEX;
    }

    // take a slot
    int key;
    if ( bp->freeProxy != CN_NULL_INDEX )
    {
        key = bp->freeProxy;
        bp->freeProxy = bp->proxies[key].nextFree;
    }
    else
    {
        key = bp->proxySlotCount;
        bp->proxySlotCount += 1;
    }

    // fill it
    cnDynamicTree* tree = bp->trees + treeIndex;
    cnProxy* proxy = bp->proxies + key;
    proxy->node = cnTree_AllocateNode( tree );
    proxy->outsizedIndex = CN_NULL_INDEX;
    proxy->shapeIndex = def->shapeIndex;
    proxy->bodyKey = def->bodyKey;
    proxy->categoryBits = def->categoryBits;
    proxy->maskBits = def->maskBits;
    proxy->kind = (int)def->kind;
    proxy->nextFree = CN_NULL_INDEX;
    bp->proxyCount += 1;
    bp->staticCount += def->kind == cn_proxyStatic ? 1 : 0;

    // the leaf goes into its tree, or onto the outsized list
    cnTreeNode* node = tree->nodes + proxy->node;
    node->aabb = cnMakeFatAABB( def->aabb, bp->margin, cn_vec3Zero );
    node->proxyKey = key;
    if ( cnAABB_IsOutsized( &node->aabb ) )
    {
        cnAddOutsized( bp, key );
    }
    else
    {
        cnTree_InsertLeaf( tree, proxy->node );
    }

    cnMarkMoved( bp, key );
    return key;
}

void cnBroadPhase_DestroyProxy( cnBroadPhase* bp, int proxyKey )
{
    CN_ASSERT( cnIsLiveProxy( bp, proxyKey ) );
    cnProxy* proxy = bp->proxies + proxyKey;
    cnDynamicTree* tree = cnGetTree( bp, proxy );

    // out of its tree or list, and the node back to the free list
    if ( proxy->outsizedIndex != CN_NULL_INDEX )
    {
        cnRemoveOutsized( bp, proxyKey );
    }
    else
    {
        cnTree_RemoveLeaf( tree, proxy->node );
    }
    cnTree_FreeNode( tree, proxy->node );

    // its pairs go at the next update
    cnMarkMoved( bp, proxyKey );

    // the slot goes on the free list
    bp->proxyCount -= 1;
    bp->staticCount -= proxy->kind == cn_proxyStatic ? 1 : 0;
    proxy->node = CN_NULL_INDEX;
    proxy->nextFree = bp->freeProxy;
    bp->freeProxy = proxyKey;
}

void cnBroadPhase_MoveProxyPredicted( cnBroadPhase* bp, int proxyKey, cnAABB aabb, cnVec3 displacement )
{
    CN_ASSERT( cnIsLiveProxy( bp, proxyKey ) );
    CN_ASSERT( cnAABB_IsValid( aabb ) );
    CN_ASSERT( isfinite( displacement.x ) && isfinite( displacement.y ) && isfinite( displacement.z ) );
    cnProxy* proxy = bp->proxies + proxyKey;
    cnDynamicTree* tree = cnGetTree( bp, proxy );
    cnTreeNode* node = tree->nodes + proxy->node;

    // still inside the fat box, and the fat box not too large for it: nothing changes
    cnAABB fat = cnMakeFatAABB( aabb, bp->margin, displacement );
    if ( cnAABB_Contains( &node->aabb, &aabb ) &&
         cnAABB_IsTooLarge( &node->aabb, &fat, bp->margin ) == false )
    {
        return;
    }

    // out of the tree (or list), new fat box, back in: the node count does not change
    bool wasOutsized = proxy->outsizedIndex != CN_NULL_INDEX;
    if ( wasOutsized == false )
    {
        cnTree_RemoveLeaf( tree, proxy->node );
    }
    node->aabb = fat;
    bool isOutsized = cnAABB_IsOutsized( &node->aabb );
    if ( isOutsized )
    {
        if ( wasOutsized == false )
        {
            cnAddOutsized( bp, proxyKey );
        }
    }
    else
    {
        if ( wasOutsized )
        {
            cnRemoveOutsized( bp, proxyKey );
        }
        cnTree_InsertLeaf( tree, proxy->node );
    }

    cnMarkMoved( bp, proxyKey );
    bp->reinsertCount += 1;
}

void cnBroadPhase_MoveProxy( cnBroadPhase* bp, int proxyKey, cnAABB aabb )
{
    cnBroadPhase_MoveProxyPredicted( bp, proxyKey, aabb, cn_vec3Zero );
}

cnAABB cnBroadPhase_GetFatAABB( const cnBroadPhase* bp, int proxyKey )
{
    CN_ASSERT( cnIsLiveProxy( bp, proxyKey ) );
    const cnProxy* proxy = bp->proxies + proxyKey;
    return cnGetTreeConst( bp, proxy )->nodes[proxy->node].aabb;
}

int cnBroadPhase_GetShapeIndex( const cnBroadPhase* bp, int proxyKey )
{
    CN_ASSERT( cnIsLiveProxy( bp, proxyKey ) );
    return bp->proxies[proxyKey].shapeIndex;
}

// ---------------------------------------------------------------------------------------------
// pairs

// (shapeA, shapeB) order, signed
static int cnComparePairs( const cnPair* a, const cnPair* b )
{
    if ( a->shapeA != b->shapeA )
    {
        return a->shapeA < b->shapeA ? -1 : 1;
    }
    if ( a->shapeB != b->shapeB )
    {
        return a->shapeB < b->shapeB ? -1 : 1;
    }
    return 0;
}

static int cnComparePairEntries( const void* a, const void* b )
{
    return cnComparePairs( &( (const cnPairEntry*)a )->shapes, &( (const cnPairEntry*)b )->shapes );
}

// Record the pair of moved proxy `key` with proxy `other` if it is new and passes the filter.
// False when out of memory.
static bool cnAddCandidate( cnBroadPhase* bp, int key, int other )
{
    if ( other == key || ( bp->moved[other] != 0 && other < key ) )
    {
        // itself, or a moved proxy that finds this pair by itself
        return true;
    }
    const cnProxy* a = bp->proxies + key;
    const cnProxy* b = bp->proxies + other;
    if ( cnShouldPair( a, b ) == false )
    {
        return true;
    }
    if ( bp->candidateCount == bp->candidateCapacity )
    {
        bool ok = true;
        bp->candidates = cnGrow( bp, bp->candidates, &bp->candidateCapacity, bp->candidateCount + 1,
                                 sizeof( cnPairEntry ), &ok );
        if ( ok == false )
        {
            return false;
        }
    }
    cnPairEntry* entry = bp->candidates + bp->candidateCount;
    bp->candidateCount += 1;
    if ( a->shapeIndex < b->shapeIndex )
    {
        entry->shapes.shapeA = a->shapeIndex;
        entry->shapes.shapeB = b->shapeIndex;
        entry->proxyA = key;
        entry->proxyB = other;
    }
    else
    {
        entry->shapes.shapeA = b->shapeIndex;
        entry->shapes.shapeB = a->shapeIndex;
        entry->proxyA = other;
        entry->proxyB = key;
    }
    return true;
}

// find the pairs of moved proxy `key` in one tree; false when out of memory
static bool cnQueryTreeForPairs( cnBroadPhase* bp, const cnDynamicTree* tree, int key, const cnAABB* box )
{
    const cnTreeNode* nodes = tree->nodes;
    int64_t visited = 0;
    int index = tree->root;
    while ( index != CN_NULL_INDEX )
    {
        const cnTreeNode* node = nodes + index;
        visited += 1;
        bool overlaps = cnAABB_Overlaps( &node->aabb, box );
        if ( overlaps && cnTree_IsLeaf( node ) && cnAddCandidate( bp, key, node->proxyKey ) == false )
        {
            return false;
        }
        index = cnTree_Next( nodes, index, overlaps );
    }
    bp->queryNodeCount += visited;
    return true;
}

// all pairs of the live moved proxies into bp->candidates; false when out of memory
static bool cnFindNewPairs( cnBroadPhase* bp )
{
    bp->candidateCount = 0;
    for ( int i = 0; i < bp->moveCount; ++i )
    {
        int key = bp->moveBuffer[i];
        const cnProxy* proxy = bp->proxies + key;
        if ( proxy->node == CN_NULL_INDEX )
        {
            // destroyed
            continue;
        }
        cnAABB box = cnGetTree( bp, proxy )->nodes[proxy->node].aabb;

        // dynamic proxies pair with everything, the others with dynamic proxies only
        if ( proxy->kind == cn_proxyDynamic &&
             cnQueryTreeForPairs( bp, bp->trees + cn_staticTree, key, &box ) == false )
        {
            return false;
        }
        if ( cnQueryTreeForPairs( bp, bp->trees + cn_movingTree, key, &box ) == false )
        {
            return false;
        }

        // the outsized list, both trees
        for ( int j = 0; j < bp->outsizedCount; ++j )
        {
            int other = bp->outsized[j];
            const cnProxy* otherProxy = bp->proxies + other;
            const cnAABB* otherBox = &cnGetTree( bp, otherProxy )->nodes[otherProxy->node].aabb;
            if ( cnAABB_Overlaps( &box, otherBox ) && cnAddCandidate( bp, key, other ) == false )
            {
                return false;
            }
        }
    }
    return true;
}

int cnBroadPhase_UpdatePairs( cnBroadPhase* bp, cnPair** pairs, int* capacity )
{
    if ( bp->moveCount > 0 )
    {
        // 1. pairs of the moved proxies, sorted
        if ( cnFindNewPairs( bp ) == false )
        {
            return -1;
        }
        if ( bp->candidateCount > 1 )
        {
            qsort( bp->candidates, (size_t)bp->candidateCount, sizeof( cnPairEntry ), cnComparePairEntries );
        }

        // 2. room for the merged set and the caller's copy, before anything changes
        if ( bp->pairCount > INT32_MAX - bp->candidateCount )
        {
            return -1;
        }
        int bound = bp->pairCount + bp->candidateCount;
        bool ok = true;
        bp->nextPairs = cnGrow( bp, bp->nextPairs, &bp->nextPairCapacity, bound, sizeof( cnPairEntry ), &ok );
        *pairs = cnGrow( bp, *pairs, capacity, bound, sizeof( cnPair ), &ok );
        if ( ok == false )
        {
            return -1;
        }

        // 3. merge the old pairs that no moved proxy touches with the new ones
        const cnPairEntry* old = bp->pairs;
        const cnPairEntry* found = bp->candidates;
        const uint8_t* moved = bp->moved;
        cnPairEntry* merged = bp->nextPairs;
        int oldCount = bp->pairCount;
        int foundCount = bp->candidateCount;
        int i = 0;
        int j = 0;
        int count = 0;
        while ( i < oldCount )
        {
            const cnPairEntry* entry = old + i;
            if ( moved[entry->proxyA] != 0 || moved[entry->proxyB] != 0 )
            {
                i += 1;
                continue;
            }
            while ( j < foundCount && cnComparePairs( &found[j].shapes, &entry->shapes ) < 0 )
            {
                merged[count++] = found[j++];
            }
            merged[count++] = *entry;
            i += 1;
        }
        while ( j < foundCount )
        {
            merged[count++] = found[j++];
        }

        // 4. swap the sets and clear the move buffer
        cnPairEntry* swapPairs = bp->pairs;
        int swapCapacity = bp->pairCapacity;
        bp->pairs = bp->nextPairs;
        bp->pairCapacity = bp->nextPairCapacity;
        bp->nextPairs = swapPairs;
        bp->nextPairCapacity = swapCapacity;
        bp->pairCount = count;
        bp->candidateCount = 0;
        for ( int k = 0; k < bp->moveCount; ++k )
        {
            bp->moved[bp->moveBuffer[k]] = 0;
        }
        bp->moveCount = 0;
    }
    else
    {
        bool ok = true;
        *pairs = cnGrow( bp, *pairs, capacity, bp->pairCount, sizeof( cnPair ), &ok );
        if ( ok == false )
        {
            return -1;
        }
    }

    // the caller's copy
    cnPair* out = *pairs;
    const cnPairEntry* entries = bp->pairs;
    for ( int i = 0; i < bp->pairCount; ++i )
    {
        out[i] = entries[i].shapes;
    }
    return bp->pairCount;
}

void cnBroadPhase_FreePairArray( cnBroadPhase* bp, cnPair** pairs, int* capacity )
{
    cnFree( &bp->allocator, *pairs, (size_t)*capacity * sizeof( cnPair ) );
    *pairs = NULL;
    *capacity = 0;
}

// ---------------------------------------------------------------------------------------------
// queries and checks

// false when `fcn` asked to stop
static bool cnQueryTree( const cnDynamicTree* tree, const cnProxy* proxies, cnAABB box,
                         cnBroadPhaseQueryFcn* fcn, void* context )
{
    const cnTreeNode* nodes = tree->nodes;
    int index = tree->root;
    while ( index != CN_NULL_INDEX )
    {
        const cnTreeNode* node = nodes + index;
        bool overlaps = cnAABB_Overlaps( &node->aabb, &box );
        if ( overlaps && cnTree_IsLeaf( node ) &&
             fcn( node->proxyKey, proxies[node->proxyKey].shapeIndex, context ) == false )
        {
            return false;
        }
        index = cnTree_Next( nodes, index, overlaps );
    }
    return true;
}

void cnBroadPhase_Query( const cnBroadPhase* bp, cnAABB aabb, cnBroadPhaseQueryFcn* fcn, void* context )
{
    if ( cnQueryTree( bp->trees + cn_staticTree, bp->proxies, aabb, fcn, context ) == false ||
         cnQueryTree( bp->trees + cn_movingTree, bp->proxies, aabb, fcn, context ) == false )
    {
        return;
    }
    for ( int i = 0; i < bp->outsizedCount; ++i )
    {
        int key = bp->outsized[i];
        const cnProxy* proxy = bp->proxies + key;
        if ( cnAABB_Overlaps( &cnGetTreeConst( bp, proxy )->nodes[proxy->node].aabb, &aabb ) &&
             fcn( key, proxy->shapeIndex, context ) == false )
        {
            return;
        }
    }
}

void cnBroadPhase_QueryStatic( const cnBroadPhase* bp, cnAABB aabb, cnBroadPhaseQueryFcn* fcn, void* context )
{
    if ( cnQueryTree( bp->trees + cn_staticTree, bp->proxies, aabb, fcn, context ) == false )
    {
        return;
    }
    for ( int i = 0; i < bp->outsizedCount; ++i )
    {
        int key = bp->outsized[i];
        const cnProxy* proxy = bp->proxies + key;
        if ( proxy->kind == cn_proxyStatic &&
             cnAABB_Overlaps( &cnGetTreeConst( bp, proxy )->nodes[proxy->node].aabb, &aabb ) &&
             fcn( key, proxy->shapeIndex, context ) == false )
        {
            return;
        }
    }
}

// false when the cast was stopped; `*maxFraction` follows the clipping
static bool cnRayCastTree( const cnDynamicTree* tree, const cnProxy* proxies, cnVec3 origin,
                           cnVec3 translation, double* maxFraction, cnBroadPhaseRayFcn* fcn, void* context )
{
    const cnTreeNode* nodes = tree->nodes;
    int index = tree->root;
    while ( index != CN_NULL_INDEX )
    {
        const cnTreeNode* node = nodes + index;
        bool overlaps = cnRayOverlapsAABB( node->aabb, origin, translation, *maxFraction );
        if ( overlaps && cnTree_IsLeaf( node ) )
        {
            double value = fcn( node->proxyKey, proxies[node->proxyKey].shapeIndex, *maxFraction, context );
            if ( !( value > 0.0 ) )
            {
                *maxFraction = 0.0;
                return false;
            }
            *maxFraction = value < *maxFraction ? value : *maxFraction;
        }
        index = cnTree_Next( nodes, index, overlaps );
    }
    return true;
}

void cnBroadPhase_RayCast( const cnBroadPhase* bp, cnVec3 origin, cnVec3 translation, double maxFraction,
                           cnBroadPhaseRayFcn* fcn, void* context )
{
    if ( !( maxFraction > 0.0 ) ||
         cnRayCastTree( bp->trees + cn_staticTree, bp->proxies, origin, translation, &maxFraction, fcn,
                        context ) == false ||
         cnRayCastTree( bp->trees + cn_movingTree, bp->proxies, origin, translation, &maxFraction, fcn,
                        context ) == false )
    {
        return;
    }
    for ( int i = 0; i < bp->outsizedCount; ++i )
    {
        int key = bp->outsized[i];
        const cnProxy* proxy = bp->proxies + key;
        if ( cnRayOverlapsAABB( cnGetTreeConst( bp, proxy )->nodes[proxy->node].aabb, origin, translation,
                                maxFraction ) )
        {
            double value = fcn( key, proxy->shapeIndex, maxFraction, context );
            if ( !( value > 0.0 ) )
            {
                return;
            }
            maxFraction = value < maxFraction ? value : maxFraction;
        }
    }
}

cnBroadPhaseStats cnBroadPhase_GetStats( const cnBroadPhase* bp )
{
    cnBroadPhaseStats stats;
    memset( &stats, 0, sizeof( stats ) );
    stats.proxyCount = bp->proxyCount;
    stats.staticCount = bp->staticCount;
    stats.outsizedCount = bp->outsizedCount;
    stats.pairCount = bp->pairCount;
    stats.moveCount = bp->moveCount;
    const cnDynamicTree* s = bp->trees + cn_staticTree;
    const cnDynamicTree* m = bp->trees + cn_movingTree;
    stats.staticHeight = s->root != CN_NULL_INDEX ? s->nodes[s->root].height : -1;
    stats.movingHeight = m->root != CN_NULL_INDEX ? m->nodes[m->root].height : -1;
    stats.reinsertCount = bp->reinsertCount;
    stats.queryNodeCount = bp->queryNodeCount;
    return stats;
}

// fails validation with a message
#define CN_CHECK( condition, ... )                                                                           \
    do                                                                                                       \
    {                                                                                                        \
        if ( !( condition ) )                                                                                \
        {                                                                                                    \
            cnFormat( message, messageSize, __VA_ARGS__ );                                                   \
            return false;                                                                                    \
        }                                                                                                    \
    } while ( 0 )

static bool cnValidateTree( const cnBroadPhase* bp, int treeIndex, char* message, int messageSize )
{
    const cnDynamicTree* tree = bp->trees + treeIndex;
    const cnTreeNode* nodes = tree->nodes;

    // the free list: free nodes only, no cycle
    int freeCount = 0;
    for ( int i = tree->freeList; i != CN_NULL_INDEX; i = nodes[i].parent )
    {
        CN_CHECK( 0 <= i && i < tree->capacity, "tree %d: free list index %d out of range", treeIndex, i );
        CN_CHECK( nodes[i].height == -1, "tree %d: free node %d has height %d", treeIndex, i,
                  nodes[i].height );
        freeCount += 1;
        CN_CHECK( freeCount <= tree->capacity, "tree %d: free list cycles", treeIndex );
    }
    CN_CHECK( freeCount + tree->nodeCount == tree->capacity, "tree %d: %d free + %d used != capacity %d",
              treeIndex, freeCount, tree->nodeCount, tree->capacity );

    // walk the tree from the root
    int reached = 0;
    if ( tree->root != CN_NULL_INDEX )
    {
        CN_CHECK( nodes[tree->root].parent == CN_NULL_INDEX, "tree %d: root has a parent", treeIndex );
        int index = tree->root;
        while ( index != CN_NULL_INDEX )
        {
            const cnTreeNode* node = nodes + index;
            reached += 1;
            CN_CHECK( reached <= tree->nodeCount, "tree %d: more nodes reached than used", treeIndex );
            CN_CHECK( node->height >= 0, "tree %d: node %d in the tree is free", treeIndex, index );
            CN_CHECK( cnAABB_IsOutsized( &node->aabb ) == false || cnTree_IsLeaf( node ) == false,
                      "tree %d: outsized leaf %d in the tree", treeIndex, index );
            if ( cnTree_IsLeaf( node ) )
            {
                CN_CHECK( node->height == 0, "tree %d: leaf %d has height %d", treeIndex, index,
                          node->height );
                int key = node->proxyKey;
                CN_CHECK( cnIsLiveProxy( bp, key ), "tree %d: leaf %d names dead proxy %d", treeIndex, index,
                          key );
                const cnProxy* proxy = bp->proxies + key;
                CN_CHECK( proxy->node == index && cnGetTreeConst( bp, proxy ) == tree &&
                              proxy->outsizedIndex == CN_NULL_INDEX,
                          "tree %d: leaf %d and proxy %d disagree", treeIndex, index, key );
            }
            else
            {
                int c1 = node->child1;
                int c2 = node->child2;
                CN_CHECK( 0 <= c1 && c1 < tree->capacity && 0 <= c2 && c2 < tree->capacity && c1 != c2,
                          "tree %d: node %d has bad children", treeIndex, index );
                CN_CHECK( nodes[c1].parent == index && nodes[c2].parent == index,
                          "tree %d: children of node %d do not point back", treeIndex, index );
                CN_CHECK( cnAABB_Contains( &node->aabb, &nodes[c1].aabb ) &&
                              cnAABB_Contains( &node->aabb, &nodes[c2].aabb ),
                          "tree %d: node %d does not contain its children", treeIndex, index );
                int h1 = nodes[c1].height;
                int h2 = nodes[c2].height;
                CN_CHECK( node->height == 1 + cnMaxInt( h1, h2 ),
                          "tree %d: node %d has height %d, children %d and %d", treeIndex, index,
                          node->height, h1, h2 );
            }
            index = cnTree_Next( nodes, index, true );
        }
    }

    // the used nodes are the tree plus the detached outsized leaves of this tree
    int detached = 0;
    for ( int i = 0; i < bp->outsizedCount; ++i )
    {
        const cnProxy* proxy = bp->proxies + bp->outsized[i];
        detached += cnGetTreeConst( bp, proxy ) == tree ? 1 : 0;
    }
    CN_CHECK( reached + detached == tree->nodeCount, "tree %d: %d reached + %d outsized != %d used",
              treeIndex, reached, detached, tree->nodeCount );
    return true;
}

bool cnBroadPhase_Validate( const cnBroadPhase* bp, char* message, int messageSize )
{
    if ( message != NULL && messageSize > 0 )
    {
        message[0] = '\0';
    }

    // the proxy table
    int live = 0;
    int statics = 0;
    for ( int key = 0; key < bp->proxySlotCount; ++key )
    {
        const cnProxy* proxy = bp->proxies + key;
        if ( proxy->node == CN_NULL_INDEX )
        {
            continue;
        }
        live += 1;
        statics += proxy->kind == cn_proxyStatic ? 1 : 0;
        const cnDynamicTree* tree = cnGetTreeConst( bp, proxy );
        CN_CHECK( 0 <= proxy->node && proxy->node < tree->capacity, "proxy %d: node out of range", key );
        const cnTreeNode* node = tree->nodes + proxy->node;
        CN_CHECK( node->height == 0 && node->child1 == CN_NULL_INDEX && node->proxyKey == key,
                  "proxy %d: node %d is not its leaf", key, proxy->node );
        bool outsized = cnAABB_IsOutsized( &node->aabb );
        CN_CHECK( outsized == ( proxy->outsizedIndex != CN_NULL_INDEX ), "proxy %d: outsized flag is wrong",
                  key );
        if ( outsized )
        {
            CN_CHECK( proxy->outsizedIndex < bp->outsizedCount && bp->outsized[proxy->outsizedIndex] == key &&
                          node->parent == CN_NULL_INDEX && tree->root != proxy->node,
                      "proxy %d: not where the outsized list says", key );
        }
    }
    CN_CHECK( live == bp->proxyCount && statics == bp->staticCount, "proxy counts %d/%d, found %d/%d",
              bp->proxyCount, bp->staticCount, live, statics );
    int freeSlots = 0;
    for ( int key = bp->freeProxy; key != CN_NULL_INDEX; key = bp->proxies[key].nextFree )
    {
        CN_CHECK( 0 <= key && key < bp->proxySlotCount && bp->proxies[key].node == CN_NULL_INDEX,
                  "free slot %d is live or out of range", key );
        freeSlots += 1;
        CN_CHECK( freeSlots <= bp->proxySlotCount, "free slot list cycles" );
    }
    CN_CHECK( freeSlots + live == bp->proxySlotCount, "%d free + %d live slots != %d", freeSlots, live,
              bp->proxySlotCount );

    // the trees
    if ( cnValidateTree( bp, cn_staticTree, message, messageSize ) == false ||
         cnValidateTree( bp, cn_movingTree, message, messageSize ) == false )
    {
        return false;
    }

    // the move buffer: each flagged slot once
    int flagged = 0;
    for ( int key = 0; key < bp->proxySlotCount; ++key )
    {
        CN_CHECK( bp->moved[key] <= 1, "slot %d: moved flag %d", key, bp->moved[key] );
        flagged += bp->moved[key];
    }
    CN_CHECK( flagged == bp->moveCount, "%d slots flagged, %d in the move buffer", flagged, bp->moveCount );
    for ( int i = 0; i < bp->moveCount; ++i )
    {
        int key = bp->moveBuffer[i];
        CN_CHECK( 0 <= key && key < bp->proxySlotCount && bp->moved[key] == 1, "move buffer entry %d", i );
    }

    // the pair set: sorted, unique, and true for the proxies that did not change
    for ( int i = 0; i < bp->pairCount; ++i )
    {
        const cnPairEntry* entry = bp->pairs + i;
        CN_CHECK( entry->shapes.shapeA < entry->shapes.shapeB, "pair %d: shapes out of order", i );
        CN_CHECK( i == 0 || cnComparePairs( &bp->pairs[i - 1].shapes, &entry->shapes ) < 0,
                  "pair %d: set not sorted", i );
        CN_CHECK( 0 <= entry->proxyA && entry->proxyA < bp->proxySlotCount && 0 <= entry->proxyB &&
                      entry->proxyB < bp->proxySlotCount,
                  "pair %d: proxy out of range", i );
        if ( bp->moved[entry->proxyA] != 0 || bp->moved[entry->proxyB] != 0 )
        {
            continue;
        }
        const cnProxy* a = bp->proxies + entry->proxyA;
        const cnProxy* b = bp->proxies + entry->proxyB;
        CN_CHECK( a->node != CN_NULL_INDEX && b->node != CN_NULL_INDEX, "pair %d: dead proxy", i );
        CN_CHECK( a->shapeIndex == entry->shapes.shapeA && b->shapeIndex == entry->shapes.shapeB,
                  "pair %d: shapes do not match the proxies", i );
        CN_CHECK( cnShouldPair( a, b ), "pair %d: filtered pair", i );
        CN_CHECK( cnAABB_Overlaps( &cnGetTreeConst( bp, a )->nodes[a->node].aabb,
                                   &cnGetTreeConst( bp, b )->nodes[b->node].aabb ),
                  "pair %d: fat boxes apart", i );
    }
    return true;
}

#undef CN_CHECK
