// SPDX-License-Identifier: MIT
// The sweep kernel and the sweep solver that PGS, PSOR, PGJ and AMGS are (and PGS-SM's sweep phase
// uses).
//
// One row update, with the hooks of cnSweepHooks:
//     w_i    = J_i v + softness_i lambda_i + b_i            (v = W J^T lambda, kept current)
//     y_i    = (lambda_i + c_i d_i) - relaxation_i w_i / A_ii   (c_i = relaxation_i - 1, or 1 for
//                                                                an overshoot above the upper bound
//                                                                when upperMemoryFull)
//     lambda_i <- clamp(y_i, low_i, high_i),   d_i <- y_i - lambda_i  (memory, when kept)
//     v     += W J_i^T (lambda_i_new - lambda_i_old)
//
// The fast Gauss-Seidel kernel walks the problem group by group (a contact point's three rows, a
// joint's rows) with both bodies' velocities held in locals for the whole group, reads J and
// W J^T from the prepared row records (cnSweepRow: 24 doubles side by side), multiplies by the
// prepared 1 / A_ii, and has no calls, divisions or libm in its loop. Its dot products add the
// even and the odd terms separately and then the two sums, an order a compiler can pair into
// 128-bit registers without changing a bit of the result. The reference kernel is the textbook
// one: row by row, the dot product in row order, a division by A_ii, W applied as its 3x3 blocks.
// It reproduces Siconos' lcp_pgs iterates on their explicit problems; the fast kernel agrees with
// it to round-off (tests/solvers).
//
// A contact group with the exact cone model is one block in all three kernels (cnConeStep, and
// solver_kit.h at cnSweepHooks): its three w at the current velocities, one step of De Saxce's
// shifted velocity (or the unshifted one of the relaxed cone problem), the projection on the cone.
// The branch is taken per group, so the pyramid rows keep their arithmetic bit for bit.
//
// A problem with colours (cnSolverProblem.colorCount, the world's world.coloring) is swept colour by
// colour, each colour's groups in blocks on the problem's workers (cnSweepColored): the same iterate
// as the sweep in group order, the same bits for any number of workers.
//
// With the parameter joints = exact (the default), the joints' free rows (bilateral.h) are not
// swept: after each sweep of the other rows they are solved exactly, all at once, on their tree
// of bodies, from the velocities the sweep left (block Gauss-Seidel with the joints as one block).
// Problems without such rows sweep as before, bit for bit.

#include "bilateral.h"
#include "core.h"
#include "solver_kit.h"
#include "task.h"

#include <math.h>
#include <string.h>

const char* const cn_kernelChoices[2] = { "fast", "reference" };
const char* const cn_jointsChoices[2] = { "sweep", "exact" };
const char* const cn_simdChoices[2] = { "auto", "off" };

// ---- the fast Gauss-Seidel kernel ---------------------------------------------------------------

// Force the kernel's pieces inline: each call site passes constant flags, and only an inlined copy
// folds them into a loop of its own with the body velocities in registers.
#if defined( __GNUC__ )
#    define CN_KERNEL static inline __attribute__( ( always_inline ) )
#else
#    define CN_KERNEL static inline
#endif

// Two doubles side by side: a 128-bit register where SSE2 is there (every x86-64), a struct
// elsewhere. Both do the same operations in the same order, so they give the same bits.
#if defined( __SSE2__ )
#    include <emmintrin.h>
typedef __m128d cnPair;
CN_KERNEL cnPair cnPairLoad( const double* p )
{
    return _mm_loadu_pd( p );
}
CN_KERNEL void cnPairStore( double* p, cnPair a )
{
    _mm_storeu_pd( p, a );
}
CN_KERNEL cnPair cnPairSplat( double x )
{
    return _mm_set1_pd( x );
}
CN_KERNEL cnPair cnPairAdd( cnPair a, cnPair b )
{
    return _mm_add_pd( a, b );
}
CN_KERNEL cnPair cnPairMul( cnPair a, cnPair b )
{
    return _mm_mul_pd( a, b );
}
// low + high
CN_KERNEL double cnPairSum( cnPair a )
{
    return _mm_cvtsd_f64( a ) + _mm_cvtsd_f64( _mm_unpackhi_pd( a, a ) );
}
#else
typedef struct cnPair
{
    double lo, hi;
} cnPair;
CN_KERNEL cnPair cnPairLoad( const double* p )
{
    return ( cnPair ){ p[0], p[1] };
}
CN_KERNEL void cnPairStore( double* p, cnPair a )
{
    p[0] = a.lo;
    p[1] = a.hi;
}
CN_KERNEL cnPair cnPairSplat( double x )
{
    return ( cnPair ){ x, x };
}
CN_KERNEL cnPair cnPairAdd( cnPair a, cnPair b )
{
    return ( cnPair ){ a.lo + b.lo, a.hi + b.hi };
}
CN_KERNEL cnPair cnPairMul( cnPair a, cnPair b )
{
    return ( cnPair ){ a.lo * b.lo, a.hi * b.hi };
}
CN_KERNEL double cnPairSum( cnPair a )
{
    return a.lo + a.hi;
}
#endif

// A body's velocity (linear xyz, angular xyz) as three pairs.
typedef struct cnBodyVelocity
{
    cnPair v01, v23, v45;
} cnBodyVelocity;

CN_KERNEL cnBodyVelocity cnLoadVelocity( const double* v )
{
    return ( cnBodyVelocity ){ cnPairLoad( v ), cnPairLoad( v + 2 ), cnPairLoad( v + 4 ) };
}

CN_KERNEL void cnStoreVelocity( double* v, cnBodyVelocity b )
{
    cnPairStore( v, b.v01 );
    cnPairStore( v + 2, b.v23 );
    cnPairStore( v + 4, b.v45 );
}

// acc + J . v, pairwise: lane 0 gathers the even terms, lane 1 the odd ones
CN_KERNEL cnPair cnDotSide( cnPair acc, const double* j, const cnBodyVelocity* v )
{
    acc = cnPairAdd( acc, cnPairMul( cnPairLoad( j ), v->v01 ) );
    acc = cnPairAdd( acc, cnPairMul( cnPairLoad( j + 2 ), v->v23 ) );
    return cnPairAdd( acc, cnPairMul( cnPairLoad( j + 4 ), v->v45 ) );
}

// v += wj delta
CN_KERNEL void cnAddScaled( cnBodyVelocity* v, const double* wj, cnPair delta )
{
    v->v01 = cnPairAdd( v->v01, cnPairMul( cnPairLoad( wj ), delta ) );
    v->v23 = cnPairAdd( v->v23, cnPairMul( cnPairLoad( wj + 2 ), delta ) );
    v->v45 = cnPairAdd( v->v45, cnPairMul( cnPairLoad( wj + 4 ), delta ) );
}

// bounds of row k of a group whose normal impulse (contacts) is `normal`
static inline void cnGroupBounds( const cnSolverProblem* problem, const cnRowGroup* group, int i, int k,
                                  double normal, double* low, double* high )
{
    if ( group->kind == cn_groupContact && k > 0 )
    {
        double limit = group->mu * normal;
        limit = limit > 0.0 ? limit : 0.0;
        *low = -limit;
        *high = limit;
    }
    else if ( group->kind == cn_groupContact || group->kind == cn_groupNormal )
    {
        *low = 0.0;
        *high = (double)INFINITY;
    }
    else
    {
        *low = problem->lower[i];
        *high = problem->upper[i];
    }
}

static inline double cnClamp( double x, double low, double high )
{
    x = x < low ? low : x;
    return x > high ? high : x;
}

// a contact group solved with the exact cone
static inline bool cnIsConeGroup( const cnRowGroup* group )
{
    return group->kind == cn_groupContact && group->model == cn_frictionCone;
}

// The new impulses p of a cone group from its impulses `old` and velocities `w` (three each), and
// its rows' diagonals with softness: y = old - relaxation eta (w_n + s mu |w_t|, w_t1, w_t2) with
// eta = 3 / (D_n + D_t1 + D_t2) and s = 1 (deSaxce) or 0, then p = Proj_{K_mu}(y). At relaxation 1
// and s = 1 this is the cone merit's map (merit.c), so its fixed points are the merit's zeros.
static inline void cnConeStep( const double* diagonal, double mu, double relaxation, bool deSaxce,
                               const double* old, const double* w, double* p )
{
    double eta = 3.0 / ( diagonal[0] + diagonal[1] + diagonal[2] );
    double step = relaxation * eta;
    double normal = deSaxce ? w[0] + mu * sqrt( w[1] * w[1] + w[2] * w[2] ) : w[0];
    cnProjectCone( mu, old[0] - step * normal, old[1] - step * w[1], old[2] - step * w[2], p );
}

// The flags a kernel copy is compiled for.
enum
{
    cn_kernelBodyA = 1,  // body A is dynamic (its velocity in va)
    cn_kernelBodyB = 2,  // body B is dynamic (in vb)
    cn_kernelSoft = 4,   // rows may have softness
    cn_kernelHooked = 8, // memory or frozen bounds
};

// One row: w from the velocities, the relaxed step, the clamp, the velocity update. Returns the
// row's new impulse.
CN_KERNEL double cnSweepRowUpdate( const cnSweepRow* row, double b, double softness, double invDiagonal,
                                   double diagonal, double omega, double low, double high, double* lambda,
                                   double* memory, bool upperFull, cnBodyVelocity* va, cnBodyVelocity* vb,
                                   int flags, cnSweepResult* result )
{
    cnPair acc = cnPairSplat( 0.0 );
    if ( flags & cn_kernelBodyA )
    {
        acc = cnDotSide( acc, row->jA, va );
    }
    if ( flags & cn_kernelBodyB )
    {
        acc = cnDotSide( acc, row->jB, vb );
    }
    double old = *lambda;
    // the memory's share first: it does not wait for the velocities (off the dependency chain)
    double start = old;
    if ( ( flags & cn_kernelHooked ) && memory != NULL )
    {
        double d = *memory;
        start = old + ( upperFull && d > 0.0 ? 1.0 : omega - 1.0 ) * d;
    }
    double w = b + cnPairSum( acc );
    if ( flags & cn_kernelSoft )
    {
        w += softness * old;
    }
    double y = start - omega * w * invDiagonal;
    double updated = cnClamp( y, low, high );
    if ( ( flags & cn_kernelHooked ) && memory != NULL )
    {
        *memory = y - updated;
    }
    double delta = updated - old;
    *lambda = updated;
    cnPair spread = cnPairSplat( delta );
    if ( flags & cn_kernelBodyA )
    {
        cnAddScaled( va, row->wjA, spread );
    }
    if ( flags & cn_kernelBodyB )
    {
        cnAddScaled( vb, row->wjB, spread );
    }
    result->updateEnergy += diagonal * delta * delta;
    result->lambdaEnergy += diagonal * updated * updated;
    return updated;
}

// A cone group as one block with the body velocities in va and vb: the three w from the same
// velocities, the cone step, then the velocity update of the three changes, row by row.
CN_KERNEL void cnSweepConeGroup( const cnSolverProblem* problem, const cnPrepared* prepared,
                                 const cnRowGroup* group, const cnSweepHooks* hooks, double* lambda,
                                 cnBodyVelocity* va, cnBodyVelocity* vb, int flags, cnSweepResult* result )
{
    int i = group->firstRow;
    const cnSweepRow* rows = prepared->sweepRows + i;
    double w[3];
    for ( int k = 0; k < 3; ++k )
    {
        cnPair acc = cnPairSplat( 0.0 );
        if ( flags & cn_kernelBodyA )
        {
            acc = cnDotSide( acc, rows[k].jA, va );
        }
        if ( flags & cn_kernelBodyB )
        {
            acc = cnDotSide( acc, rows[k].jB, vb );
        }
        w[k] = problem->b[i + k] + cnPairSum( acc );
        if ( flags & cn_kernelSoft )
        {
            w[k] += problem->softness[i + k] * lambda[i + k];
        }
    }
    double p[3];
    cnConeStep( prepared->diagonal + i, group->mu, hooks->relaxation, hooks->relaxedCone == false, lambda + i,
                w, p );
    for ( int k = 0; k < 3; ++k )
    {
        double delta = p[k] - lambda[i + k];
        lambda[i + k] = p[k];
        cnPair spread = cnPairSplat( delta );
        if ( flags & cn_kernelBodyA )
        {
            cnAddScaled( va, rows[k].wjA, spread );
        }
        if ( flags & cn_kernelBodyB )
        {
            cnAddScaled( vb, rows[k].wjB, spread );
        }
        result->updateEnergy += prepared->diagonal[i + k] * delta * delta;
        result->lambdaEnergy += prepared->diagonal[i + k] * p[k] * p[k];
    }
}

// The rows of one group with the body velocities in va and vb. A contact's three rows are unrolled:
// the normal in [0, inf), the tangents in +-mu lambda_n of the normal just updated. A cone contact
// is one block (cnSweepConeGroup), whatever the hooks.
CN_KERNEL void cnSweepGroup( const cnSolverProblem* problem, const cnPrepared* prepared,
                             const cnRowGroup* group, const cnSweepHooks* hooks, double* lambda,
                             cnBodyVelocity* va, cnBodyVelocity* vb, int flags, cnSweepResult* result )
{
    const double* omegas = ( flags & cn_kernelHooked ) ? hooks->rowRelaxation : NULL;
    const double omega = hooks->relaxation;
    const bool upperFull = ( flags & cn_kernelHooked ) && hooks->upperMemoryFull;
    const double* softness = problem->softness;
    const double* b = problem->b;
    const double* invDiagonal = prepared->invDiagonal;
    const double* diagonal = prepared->diagonal;
    const cnSweepRow* rows = prepared->sweepRows;
    double* memory = ( flags & cn_kernelHooked ) ? hooks->memory : NULL;
    bool frozen = ( flags & cn_kernelHooked ) && hooks->frozenLow != NULL;
    int i = group->firstRow;
    if ( group->kind == cn_groupContact && group->model == cn_frictionCone )
    {
        cnSweepConeGroup( problem, prepared, group, hooks, lambda, va, vb, flags, result );
        return;
    }
    if ( group->kind == cn_groupContact && frozen == false )
    {
        double normal = cnSweepRowUpdate(
            rows + i, b[i], ( flags & cn_kernelSoft ) ? softness[i] : 0.0, invDiagonal[i], diagonal[i],
            omegas != NULL ? omegas[i] : omega, 0.0, (double)INFINITY, lambda + i,
            memory != NULL ? memory + i : NULL, upperFull, va, vb, flags, result );
        double limit = group->mu * normal;
        limit = limit > 0.0 ? limit : 0.0;
        cnSweepRowUpdate( rows + i + 1, b[i + 1], ( flags & cn_kernelSoft ) ? softness[i + 1] : 0.0,
                          invDiagonal[i + 1], diagonal[i + 1], omegas != NULL ? omegas[i + 1] : omega, -limit,
                          limit, lambda + i + 1, memory != NULL ? memory + i + 1 : NULL, upperFull, va, vb,
                          flags, result );
        cnSweepRowUpdate( rows + i + 2, b[i + 2], ( flags & cn_kernelSoft ) ? softness[i + 2] : 0.0,
                          invDiagonal[i + 2], diagonal[i + 2], omegas != NULL ? omegas[i + 2] : omega, -limit,
                          limit, lambda + i + 2, memory != NULL ? memory + i + 2 : NULL, upperFull, va, vb,
                          flags, result );
        return;
    }
    for ( int k = 0; k < group->rowCount; ++k, ++i )
    {
        double low, high;
        if ( frozen )
        {
            low = hooks->frozenLow[i];
            high = hooks->frozenHigh[i];
        }
        else
        {
            cnGroupBounds( problem, group, i, k, lambda[group->firstRow], &low, &high );
        }
        cnSweepRowUpdate( rows + i, b[i], ( flags & cn_kernelSoft ) ? softness[i] : 0.0, invDiagonal[i],
                          diagonal[i], omegas != NULL ? omegas[i] : omega, low, high, lambda + i,
                          memory != NULL ? memory + i : NULL, upperFull, va, vb, flags, result );
    }
}

// a group the sweep leaves to the exact joint block: its impulses count in the sweep's size
static inline void cnSkippedGroup( const cnPrepared* prepared, const cnRowGroup* group, const double* lambda,
                                   cnSweepResult* result )
{
    for ( int i = group->firstRow; i < group->firstRow + group->rowCount; ++i )
    {
        result->lambdaEnergy += prepared->diagonal[i] * lambda[i] * lambda[i];
    }
}

// The groups [first, end), with `flags` telling softness and hooks apart (constant in each
// caller's copy).
CN_KERNEL void cnSweepGroups( const cnSolverProblem* problem, const cnPrepared* prepared,
                              const cnSweepHooks* hooks, double* lambda, double* velocity, int flags,
                              int first, int end, cnSweepResult* result )
{
    cnBodyVelocity none = { cnPairSplat( 0.0 ), cnPairSplat( 0.0 ), cnPairSplat( 0.0 ) };
    for ( int g = first; g < end; ++g )
    {
        const cnRowGroup* group = problem->groups + g;
        if ( hooks->skipGroups != NULL && hooks->skipGroups[g] )
        {
            cnSkippedGroup( prepared, group, lambda, result );
            continue;
        }
        int a = problem->bodyA[group->firstRow];
        int b = problem->bodyB[group->firstRow];
        if ( a >= 0 && b >= 0 && a != b )
        {
            cnBodyVelocity va = cnLoadVelocity( velocity + 6 * a );
            cnBodyVelocity vb = cnLoadVelocity( velocity + 6 * b );
            cnSweepGroup( problem, prepared, group, hooks, lambda, &va, &vb,
                          flags | cn_kernelBodyA | cn_kernelBodyB, result );
            cnStoreVelocity( velocity + 6 * a, va );
            cnStoreVelocity( velocity + 6 * b, vb );
        }
        else if ( a >= 0 && b < 0 )
        {
            cnBodyVelocity va = cnLoadVelocity( velocity + 6 * a );
            cnSweepGroup( problem, prepared, group, hooks, lambda, &va, &none, flags | cn_kernelBodyA,
                          result );
            cnStoreVelocity( velocity + 6 * a, va );
        }
        else if ( b >= 0 && a < 0 )
        {
            cnBodyVelocity vb = cnLoadVelocity( velocity + 6 * b );
            cnSweepGroup( problem, prepared, group, hooks, lambda, &none, &vb, flags | cn_kernelBodyB,
                          result );
            cnStoreVelocity( velocity + 6 * b, vb );
        }
        else if ( a >= 0 )
        {
            // both sides on one body: J_A + J_B act on it, both through the one velocity
            cnBodyVelocity v = cnLoadVelocity( velocity + 6 * a );
            cnSweepGroup( problem, prepared, group, hooks, lambda, &v, &v,
                          flags | cn_kernelBodyA | cn_kernelBodyB, result );
            cnStoreVelocity( velocity + 6 * a, v );
        }
        else
        {
            // no body at all: w is b alone
            cnSweepGroup( problem, prepared, group, hooks, lambda, &none, &none, flags, result );
        }
    }
}

// The kernel's four copies, by flags, over the groups [first, end)
static void cnSweepRange( const cnSolverProblem* problem, const cnPrepared* prepared,
                          const cnSweepHooks* hooks, double* lambda, double* velocity, int first, int end,
                          cnSweepResult* result )
{
    bool hooked = hooks->memory != NULL || hooks->frozenLow != NULL || hooks->rowRelaxation != NULL;
    bool soft = problem->softness != NULL;
    if ( hooked && soft )
    {
        cnSweepGroups( problem, prepared, hooks, lambda, velocity, cn_kernelHooked | cn_kernelSoft, first,
                       end, result );
    }
    else if ( hooked )
    {
        cnSweepGroups( problem, prepared, hooks, lambda, velocity, cn_kernelHooked, first, end, result );
    }
    else if ( soft )
    {
        cnSweepGroups( problem, prepared, hooks, lambda, velocity, cn_kernelSoft, first, end, result );
    }
    else
    {
        cnSweepGroups( problem, prepared, hooks, lambda, velocity, 0, first, end, result );
    }
}

// ---- the coloured sweep four contact points at a time -----------------------------------------------
//
// Within a colour only the groups of one run share a body (a run: groups in a row that each share a
// body with the one before, a contact's points), so the runs of a block are independent and the
// block is swept on four lanes: each lane takes the block's next run when its own ends, and walks
// its groups in order, one group a step, the four lanes in step. A run of contact groups with the
// pyramid model on one pair of bodies (two dynamic ones, or one and the world) is a lane's; any other
// run (a cone, a joint, a skipped group, a group on one body twice or on none, a run whose groups
// change pair) goes to the group kernel as it is met. Since the runs share no body, lambda and the
// velocities come out as the sweep in group order gives them; the sums are each lane's own, added
// in a fixed order at the end of the block, ((lane 0 + lane 1) + (lane 2 + lane 3)) + the other
// runs'. The AVX2 kernel does each lane's arithmetic in the order cnSweepRowUpdate does it (the
// even and the odd terms of a dot product apart, then the two sums; the world's side of a contact
// on the world as zero terms, which change no bit of a sum that is never -0), without FMA (the
// library is built with -ffp-contract=off and the kernel's target has none), so the scalar path,
// the same lanes through the group kernel, gives the same bits. Sweeps with hooks (AMGS's memory,
// PGS-SM's frozen bounds) stay in group order.

#define CN_LANES 4

typedef struct cnLanes
{
    const cnSolverProblem* problem;
    const cnPrepared* prepared;
    const cnSweepHooks* hooks;
    double* lambda;
    double* velocity;
    int next;                     // the block's first group not yet given out
    int end;                      // past the block's last group
    cnSweepResult sums[CN_LANES]; // each lane's sums
    cnSweepResult others;         // the runs the group kernel took
} cnLanes;

// The block's next run that a lane can take: its first group in *first and its length (0: the
// block has no more). The other runs met on the way are swept by the group kernel.
static int cnLaneTake( cnLanes* lanes, int* first )
{
    const int32_t* runs = lanes->prepared->colorRuns;
    const bool* skip = lanes->hooks->skipGroups;
    while ( lanes->next < lanes->end )
    {
        int g = lanes->next;
        int length = runs[g] > 0 ? runs[g] : -runs[g];
        lanes->next = g + length;
        bool lane = runs[g] > 0;
        for ( int h = g; h < g + length && lane && skip != NULL; ++h )
        {
            lane = skip[h] == false;
        }
        if ( lane )
        {
            *first = g;
            return length;
        }
        cnSweepRange( lanes->problem, lanes->prepared, lanes->hooks, lanes->lambda, lanes->velocity, g,
                      g + length, &lanes->others );
    }
    return 0;
}

// the block's sums, in the fixed order
static void cnLanesAdd( const cnLanes* lanes, cnSweepResult* result )
{
    const cnSweepResult* s = lanes->sums;
    result->updateEnergy +=
        ( ( s[0].updateEnergy + s[1].updateEnergy ) + ( s[2].updateEnergy + s[3].updateEnergy ) ) +
        lanes->others.updateEnergy;
    result->lambdaEnergy +=
        ( ( s[0].lambdaEnergy + s[1].lambdaEnergy ) + ( s[2].lambdaEnergy + s[3].lambdaEnergy ) ) +
        lanes->others.lambdaEnergy;
}

// The lanes with the group kernel: at each step each lane's group in lane order, its sums its own.
static void cnSweepLanesScalar( cnLanes* lanes )
{
    int group[CN_LANES] = { 0 };
    int left[CN_LANES] = { 0 };
    for ( ;; )
    {
        int active = 0;
        for ( int k = 0; k < CN_LANES; ++k )
        {
            if ( left[k] == 0 )
            {
                left[k] = cnLaneTake( lanes, group + k );
            }
            active += left[k] > 0;
        }
        if ( active == 0 )
        {
            return;
        }
        for ( int k = 0; k < CN_LANES; ++k )
        {
            if ( left[k] > 0 )
            {
                cnSweepRange( lanes->problem, lanes->prepared, lanes->hooks, lanes->lambda, lanes->velocity,
                              group[k], group[k] + 1, lanes->sums + k );
                group[k] += 1;
                left[k] -= 1;
            }
        }
    }
}

#if defined( __x86_64__ ) && ( defined( __GNUC__ ) || defined( __clang__ ) )
#    define CN_SWEEP_AVX2 1
#    include <immintrin.h>

#    define CN_AVX2 static inline __attribute__( ( always_inline, target( "avx2" ) ) )

// Components c and c + 1 of four records (p[k] + c: lane k) as two vectors, lane k in element k.
CN_AVX2 void cnLoadLanes( const double* const* p, int c, __m256d* x, __m256d* y )
{
    __m256d even = _mm256_insertf128_pd( _mm256_castpd128_pd256( _mm_loadu_pd( p[0] + c ) ),
                                         _mm_loadu_pd( p[2] + c ), 1 );
    __m256d odd = _mm256_insertf128_pd( _mm256_castpd128_pd256( _mm_loadu_pd( p[1] + c ) ),
                                        _mm_loadu_pd( p[3] + c ), 1 );
    *x = _mm256_unpacklo_pd( even, odd );
    *y = _mm256_unpackhi_pd( even, odd );
}

CN_AVX2 __m256d cnGatherLanes( const double* values, const int* row, int r )
{
    return _mm256_set_pd( values[row[3] + r], values[row[2] + r], values[row[1] + r], values[row[0] + r] );
}

// One row of the four lanes' groups (r: 0 the normal, 1 and 2 the tangents), as cnSweepRowUpdate
// does it lane by lane: v holds body A's velocity (components 0 to 5) and body B's (6 to 11), lane
// k in element k; `on` is all ones in the lanes that have a group. The normal row sets *limit
// (mu lambda_n, at least 0) for the tangents. Returns the new impulses.
CN_AVX2 __m256d cnLanesRow( const cnLanes* lanes, const double* const* record, const int* row, int r,
                            __m256d on, __m256d omega, bool soft, __m256d* v, __m256d* limit,
                            __m256d* updateSum, __m256d* lambdaSum )
{
    const cnSolverProblem* problem = lanes->problem;
    const cnPrepared* prepared = lanes->prepared;
    // J on side A at offset 0 of the record, on side B at 12; W J^T at 6 and 18 (cnSweepRow)
    __m256d even = _mm256_setzero_pd();
    __m256d odd = _mm256_setzero_pd();
#    pragma GCC unroll 6
    for ( int c = 0; c < 12; c += 2 )
    {
        __m256d j0, j1;
        cnLoadLanes( record, 24 * r + ( c < 6 ? c : c + 6 ), &j0, &j1 );
        even = _mm256_add_pd( even, _mm256_mul_pd( j0, v[c] ) );
        odd = _mm256_add_pd( odd, _mm256_mul_pd( j1, v[c + 1] ) );
    }
    __m256d old = cnGatherLanes( lanes->lambda, row, r );
    __m256d w = _mm256_add_pd( cnGatherLanes( problem->b, row, r ), _mm256_add_pd( even, odd ) );
    if ( soft )
    {
        w = _mm256_add_pd( w, _mm256_mul_pd( cnGatherLanes( problem->softness, row, r ), old ) );
    }
    __m256d y = _mm256_sub_pd(
        old, _mm256_mul_pd( _mm256_mul_pd( omega, w ), cnGatherLanes( prepared->invDiagonal, row, r ) ) );
    __m256d updated;
    if ( r == 0 )
    {
        __m256d zero = _mm256_setzero_pd();
        updated = _mm256_blendv_pd( y, zero, _mm256_cmp_pd( y, zero, _CMP_LT_OQ ) );
    }
    else
    {
        __m256d low = _mm256_xor_pd( *limit, _mm256_set1_pd( -0.0 ) );
        updated = _mm256_blendv_pd( y, low, _mm256_cmp_pd( y, low, _CMP_LT_OQ ) );
        updated = _mm256_blendv_pd( updated, *limit, _mm256_cmp_pd( updated, *limit, _CMP_GT_OQ ) );
    }
    __m256d delta = _mm256_and_pd( _mm256_sub_pd( updated, old ), on );
#    pragma GCC unroll 6
    for ( int c = 0; c < 12; c += 2 )
    {
        __m256d wj0, wj1;
        cnLoadLanes( record, 24 * r + ( c < 6 ? c + 6 : c + 12 ), &wj0, &wj1 );
        v[c] = _mm256_add_pd( v[c], _mm256_mul_pd( wj0, delta ) );
        v[c + 1] = _mm256_add_pd( v[c + 1], _mm256_mul_pd( wj1, delta ) );
    }
    __m256d diagonal = cnGatherLanes( prepared->diagonal, row, r );
    *updateSum = _mm256_add_pd( *updateSum, _mm256_mul_pd( _mm256_mul_pd( diagonal, delta ), delta ) );
    *lambdaSum = _mm256_add_pd(
        *lambdaSum, _mm256_and_pd( _mm256_mul_pd( _mm256_mul_pd( diagonal, updated ), updated ), on ) );
    return updated;
}

// The lanes in AVX2: the bodies' velocities of lane k in element k of v (A's 0 to 5, B's 6 to 11,
// zeros for the world), put in when the lane takes a run and written back when it ends. A lane
// without a group computes on another lane's rows and keeps nothing: its change is masked to zero,
// its impulses go to a dummy, its velocities are not written back.
__attribute__( ( target( "avx2" ) ) ) static void cnSweepLanesAvx2( cnLanes* lanes )
{
    const cnSolverProblem* problem = lanes->problem;
    const cnRowGroup* groups = problem->groups;
    const cnSweepRow* sweepRows = lanes->prepared->sweepRows;
    const bool soft = problem->softness != NULL;
    const __m256d omega = _mm256_set1_pd( lanes->hooks->relaxation );
    double* velocity = lanes->velocity;
    double* lambda = lanes->lambda;
    static const double zero[6] = { 0.0 };
    double dummy[3];
    _Alignas( 32 ) double out[CN_LANES];
    int group[CN_LANES] = { 0 };
    int left[CN_LANES] = { 0 };
    double* bodyA[CN_LANES] = { NULL };
    double* bodyB[CN_LANES] = { NULL };
    __m256d v[12];
#    pragma GCC unroll 12
    for ( int c = 0; c < 12; ++c )
    {
        v[c] = _mm256_setzero_pd();
    }
    __m256d updateSum = _mm256_setzero_pd();
    __m256d lambdaSum = _mm256_setzero_pd();
    for ( ;; )
    {
        for ( int k = 0; k < CN_LANES; ++k )
        {
            if ( left[k] > 0 )
            {
                continue;
            }
            __m256d lane = _mm256_castsi256_pd(
                _mm256_cmpeq_epi64( _mm256_set_epi64x( 3, 2, 1, 0 ), _mm256_set1_epi64x( k ) ) );
            if ( bodyA[k] != NULL || bodyB[k] != NULL )
            {
                // its run ended: its velocities back
                _Alignas( 32 ) double held[12][CN_LANES];
#    pragma GCC unroll 12
                for ( int c = 0; c < 12; ++c )
                {
                    _mm256_store_pd( held[c], v[c] );
                }
                for ( int c = 0; c < 6; ++c )
                {
                    if ( bodyA[k] != NULL )
                    {
                        bodyA[k][c] = held[c][k];
                    }
                    if ( bodyB[k] != NULL )
                    {
                        bodyB[k][c] = held[6 + c][k];
                    }
                }
                bodyA[k] = NULL;
                bodyB[k] = NULL;
            }
            left[k] = cnLaneTake( lanes, group + k );
            if ( left[k] > 0 )
            {
                int row = groups[group[k]].firstRow;
                bodyA[k] = problem->bodyA[row] >= 0 ? velocity + 6 * problem->bodyA[row] : NULL;
                bodyB[k] = problem->bodyB[row] >= 0 ? velocity + 6 * problem->bodyB[row] : NULL;
                const double* a = bodyA[k] != NULL ? bodyA[k] : zero;
                const double* b = bodyB[k] != NULL ? bodyB[k] : zero;
#    pragma GCC unroll 6
                for ( int c = 0; c < 6; ++c )
                {
                    v[c] = _mm256_blendv_pd( v[c], _mm256_broadcast_sd( a + c ), lane );
                    v[6 + c] = _mm256_blendv_pd( v[6 + c], _mm256_broadcast_sd( b + c ), lane );
                }
            }
        }
        int active = left[0] > 0 ? 0 : left[1] > 0 ? 1 : left[2] > 0 ? 2 : left[3] > 0 ? 3 : -1;
        if ( active < 0 )
        {
            break;
        }
        // the idle lanes borrow the first active lane's rows
        int row[CN_LANES];
        const double* record[CN_LANES];
        double* to[CN_LANES];
        double mu[CN_LANES];
        int64_t mask[CN_LANES];
        for ( int k = 0; k < CN_LANES; ++k )
        {
            const cnRowGroup* g = groups + ( left[k] > 0 ? group[k] : group[active] );
            row[k] = g->firstRow;
            mu[k] = g->mu;
            mask[k] = left[k] > 0 ? -1 : 0;
            record[k] = sweepRows[row[k]].jA;
            to[k] = left[k] > 0 ? lambda + row[k] : dummy;
        }
        __m256d on = _mm256_castsi256_pd( _mm256_set_epi64x( mask[3], mask[2], mask[1], mask[0] ) );
        __m256d limit = _mm256_setzero_pd();
#    pragma GCC unroll 3
        for ( int r = 0; r < 3; ++r )
        {
            __m256d updated =
                cnLanesRow( lanes, record, row, r, on, omega, soft, v, &limit, &updateSum, &lambdaSum );
            if ( r == 0 )
            {
                limit = _mm256_mul_pd( _mm256_loadu_pd( mu ), updated );
                limit = _mm256_and_pd( limit, _mm256_cmp_pd( limit, _mm256_setzero_pd(), _CMP_GT_OQ ) );
            }
            _mm256_store_pd( out, updated );
            to[0][r] = out[0];
            to[1][r] = out[1];
            to[2][r] = out[2];
            to[3][r] = out[3];
        }
        for ( int k = 0; k < CN_LANES; ++k )
        {
            group[k] += left[k] > 0 ? 1 : 0;
            left[k] -= left[k] > 0 ? 1 : 0;
        }
    }
    _Alignas( 32 ) double sums[2][CN_LANES];
    _mm256_store_pd( sums[0], updateSum );
    _mm256_store_pd( sums[1], lambdaSum );
    for ( int k = 0; k < CN_LANES; ++k )
    {
        lanes->sums[k].updateEnergy = sums[0][k];
        lanes->sums[k].lambdaEnergy = sums[1][k];
    }
}

// whether this CPU runs AVX2 (and its operating system keeps the registers)
static bool cnHaveAvx2( void )
{
    return __builtin_cpu_supports( "avx2" );
}
#else
#    define CN_SWEEP_AVX2 0
static bool cnHaveAvx2( void )
{
    return false;
}
#endif

// A block of a colour's groups [first, end) on the lanes, in AVX2 when `simd`; the block's sums
// added to *result.
static void cnSweepLanes( const cnSolverProblem* problem, const cnPrepared* prepared,
                          const cnSweepHooks* hooks, double* lambda, double* velocity, int first, int end,
                          bool simd, cnSweepResult* result )
{
    cnLanes lanes = { .problem = problem,
                      .prepared = prepared,
                      .hooks = hooks,
                      .lambda = lambda,
                      .velocity = velocity,
                      .next = first,
                      .end = end };
#if CN_SWEEP_AVX2
    if ( simd )
    {
        cnSweepLanesAvx2( &lanes );
    }
    else
    {
        cnSweepLanesScalar( &lanes );
    }
#else
    (void)simd;
    cnSweepLanesScalar( &lanes );
#endif
    cnLanesAdd( &lanes, result );
}

// A coloured sweep: within a colour only neighbouring groups share a body (a contact's points),
// so the colour is updated in blocks of about CN_SWEEP_BLOCK groups, cut between groups that share
// none, on the problem's workers, each block's sums kept apart and added in block order afterwards.
// The result is the same bits for any number of workers, and the same iterate as sweeping the
// groups in order.
#define CN_SWEEP_BLOCK  32
#define CN_SWEEP_BLOCKS 256 // blocks per round of a colour

typedef struct cnColorSweep
{
    const cnSolverProblem* problem;
    const cnPrepared* prepared;
    const cnSweepHooks* hooks;
    double* lambda;
    double* velocity;
    int colorFirst; // the colour's first group
    int first;      // the round's first group
    int end;        // past the colour's last group
    bool lanes;     // the blocks on four lanes (no hooks)
    bool simd;      // the lanes in AVX2
    cnSweepResult blocks[CN_SWEEP_BLOCKS];
} cnColorSweep;

static void cnColorSweepTask( int start, int end, int worker, void* context )
{
    (void)worker;
    cnColorSweep* sweep = context;
    for ( int k = start; k < end; ++k )
    {
        int first = cnColorBlockStart( sweep->problem, sweep->colorFirst, sweep->end,
                                       sweep->first + k * CN_SWEEP_BLOCK );
        int last = cnColorBlockStart( sweep->problem, sweep->colorFirst, sweep->end,
                                      sweep->first + ( k + 1 ) * CN_SWEEP_BLOCK );
        sweep->blocks[k] = ( cnSweepResult ){ 0.0, 0.0, true };
        if ( sweep->lanes )
        {
            cnSweepLanes( sweep->problem, sweep->prepared, sweep->hooks, sweep->lambda, sweep->velocity,
                          first, last, sweep->simd, sweep->blocks + k );
        }
        else
        {
            cnSweepRange( sweep->problem, sweep->prepared, sweep->hooks, sweep->lambda, sweep->velocity,
                          first, last, sweep->blocks + k );
        }
    }
}

static void cnSweepColored( const cnSolverProblem* problem, const cnPrepared* prepared,
                            const cnSweepHooks* hooks, double* lambda, double* velocity,
                            cnSweepResult* result )
{
    bool hooked = hooks->memory != NULL || hooks->frozenLow != NULL || hooks->rowRelaxation != NULL;
    cnColorSweep sweep = { .problem = problem,
                           .prepared = prepared,
                           .hooks = hooks,
                           .lambda = lambda,
                           .velocity = velocity,
                           .lanes = hooked == false,
                           .simd = hooked == false && hooks->scalar == false && cnHaveAvx2() };
    for ( int c = 0; c < problem->colorCount; ++c )
    {
        sweep.colorFirst = problem->colorStart[c];
        sweep.end = problem->colorStart[c + 1];
        for ( sweep.first = problem->colorStart[c]; sweep.first < sweep.end;
              sweep.first += CN_SWEEP_BLOCK * CN_SWEEP_BLOCKS )
        {
            int groups = sweep.end - sweep.first;
            int blocks = ( groups + CN_SWEEP_BLOCK - 1 ) / CN_SWEEP_BLOCK;
            blocks = blocks < CN_SWEEP_BLOCKS ? blocks : CN_SWEEP_BLOCKS;
            // one contiguous run of blocks a worker: a colour's groups come in contact-cache order,
            // which follows the bodies, so each worker keeps meeting the same bodies colour after
            // colour, and their velocities stay in its cache
            int workers = cnWorkerCount( problem->tasks );
            cnParallelFor( problem->tasks, cnColorSweepTask, blocks, ( blocks + workers - 1 ) / workers,
                           &sweep );
            for ( int k = 0; k < blocks; ++k )
            {
                result->updateEnergy += sweep.blocks[k].updateEnergy;
                result->lambdaEnergy += sweep.blocks[k].lambdaEnergy;
            }
        }
    }
    // the overflow, the joints and what the oracle added: in order
    cnSweepRange( problem, prepared, hooks, lambda, velocity, problem->colorStart[problem->colorCount],
                  problem->groupCount, result );
}

static void cnSweepFast( const cnSolverProblem* problem, const cnPrepared* prepared,
                         const cnSweepHooks* hooks, double* lambda, double* velocity, cnSweepResult* result )
{
    if ( prepared->colored )
    {
        cnSweepColored( problem, prepared, hooks, lambda, velocity, result );
        return;
    }
    cnSweepRange( problem, prepared, hooks, lambda, velocity, 0, problem->groupCount, result );
}

// ---- the reference kernel and Jacobi ----------------------------------------------------------------

// w_i by the textbook products: the explicit matrix row, or J_i . v in row order
static double cnReferenceRowValue( const cnSolverProblem* problem, const double* lambda,
                                   const double* velocity, int i )
{
    double soft = problem->softness != NULL ? problem->softness[i] * lambda[i] : 0.0;
    if ( problem->matrix != NULL )
    {
        const cnSparseMatrix* matrix = problem->matrix;
        double sum = 0.0;
        for ( int k = matrix->rowStart[i]; k < matrix->rowStart[i + 1]; ++k )
        {
            sum += matrix->value[k] * lambda[matrix->column[k]];
        }
        return sum + soft + problem->b[i];
    }
    return soft + cnRowVelocity( problem, i, velocity ) + problem->b[i];
}

// row i's bounds: the frozen ones when the hooks hold them, else from the current normal impulse
static inline void cnHookedBounds( const cnSolverProblem* problem, const cnPrepared* prepared,
                                   const cnSweepHooks* hooks, const double* lambda, int i, double* low,
                                   double* high )
{
    if ( hooks->frozenLow != NULL )
    {
        *low = hooks->frozenLow[i];
        *high = hooks->frozenHigh[i];
        return;
    }
    cnRowBounds( problem, prepared, lambda, i, low, high );
}

// one row of the reference update: the new value (not stored)
static double cnReferenceUpdate( const cnPrepared* prepared, const cnSweepHooks* hooks, double old, double w,
                                 double low, double high, int i )
{
    double omega = hooks->rowRelaxation != NULL ? hooks->rowRelaxation[i] : hooks->relaxation;
    double start = old;
    if ( hooks->memory != NULL )
    {
        double d = hooks->memory[i];
        start = old + ( hooks->upperMemoryFull && d > 0.0 ? 1.0 : omega - 1.0 ) * d;
    }
    double y = start - omega * ( w / prepared->diagonal[i] );
    double updated = cnClamp( y, low, high );
    if ( hooks->memory != NULL )
    {
        hooks->memory[i] = y - updated;
    }
    return updated;
}

// A cone group of the reference and Jacobi kernels: w of its three rows by the textbook products
// from `from` (Gauss-Seidel: lambda itself; Jacobi: the previous iterate) and `velocity` (W J^T
// of it), the cone step, the new impulses into lambda; `moveVelocity` (Gauss-Seidel) applies
// W J_i^T dlambda_i row by row (Jacobi recomputes the velocity after the sweep)
static void cnReferenceConeGroup( const cnSolverProblem* problem, const cnPrepared* prepared,
                                  const cnSweepHooks* hooks, const cnRowGroup* group, const double* from,
                                  double* lambda, double* velocity, bool moveVelocity, cnSweepResult* result )
{
    int i = group->firstRow;
    double old[3];
    double w[3];
    for ( int k = 0; k < 3; ++k )
    {
        old[k] = from[i + k];
        w[k] = cnReferenceRowValue( problem, from, velocity, i + k );
    }
    double p[3];
    cnConeStep( prepared->diagonal + i, group->mu, hooks->relaxation, hooks->relaxedCone == false, old, w,
                p );
    for ( int k = 0; k < 3; ++k )
    {
        double delta = p[k] - old[k];
        lambda[i + k] = p[k];
        if ( moveVelocity && problem->matrix == NULL )
        {
            cnApplyRowImpulse( problem, i + k, delta, velocity );
        }
        result->updateEnergy += prepared->diagonal[i + k] * delta * delta;
        result->lambdaEnergy += prepared->diagonal[i + k] * p[k] * p[k];
    }
}

// group by group, row by row within a group: the row order of the textbook sweep (the groups tile
// the rows in order)
static void cnSweepReference( const cnSolverProblem* problem, const cnPrepared* prepared,
                              const cnSweepHooks* hooks, double* lambda, double* velocity,
                              cnSweepResult* result )
{
    for ( int g = 0; g < problem->groupCount; ++g )
    {
        const cnRowGroup* group = problem->groups + g;
        if ( hooks->skipGroups != NULL && hooks->skipGroups[g] )
        {
            cnSkippedGroup( prepared, group, lambda, result );
            continue;
        }
        if ( cnIsConeGroup( group ) )
        {
            cnReferenceConeGroup( problem, prepared, hooks, group, lambda, lambda, velocity, true, result );
            continue;
        }
        for ( int i = group->firstRow; i < group->firstRow + group->rowCount; ++i )
        {
            double w = cnReferenceRowValue( problem, lambda, velocity, i );
            double low, high;
            cnHookedBounds( problem, prepared, hooks, lambda, i, &low, &high );
            double old = lambda[i];
            double updated = cnReferenceUpdate( prepared, hooks, old, w, low, high, i );
            double delta = updated - old;
            lambda[i] = updated;
            if ( problem->matrix == NULL )
            {
                cnApplyRowImpulse( problem, i, delta, velocity );
            }
            result->updateEnergy += prepared->diagonal[i] * delta * delta;
            result->lambdaEnergy += prepared->diagonal[i] * updated * updated;
        }
    }
}

static void cnSweepJacobi( const cnSolverProblem* problem, const cnPrepared* prepared,
                           const cnSweepHooks* hooks, double* lambda, double* velocity,
                           const double* previous, cnSweepResult* result )
{
    for ( int g = 0; g < problem->groupCount; ++g )
    {
        const cnRowGroup* group = problem->groups + g;
        if ( hooks->skipGroups != NULL && hooks->skipGroups[g] )
        {
            // Jacobi writes every row: the skipped ones keep their previous impulses
            for ( int i = group->firstRow; i < group->firstRow + group->rowCount; ++i )
            {
                lambda[i] = previous[i];
            }
            cnSkippedGroup( prepared, group, lambda, result );
            continue;
        }
        if ( cnIsConeGroup( group ) )
        {
            cnReferenceConeGroup( problem, prepared, hooks, group, previous, lambda, velocity, false,
                                  result );
            continue;
        }
        for ( int i = group->firstRow; i < group->firstRow + group->rowCount; ++i )
        {
            double w = cnReferenceRowValue( problem, previous, velocity, i );
            double low, high;
            cnHookedBounds( problem, prepared, hooks, previous, i, &low, &high );
            double updated = cnReferenceUpdate( prepared, hooks, previous[i], w, low, high, i );
            double delta = updated - previous[i];
            lambda[i] = updated;
            result->updateEnergy += prepared->diagonal[i] * delta * delta;
            result->lambdaEnergy += prepared->diagonal[i] * updated * updated;
        }
    }
    cnComputeVelocity( problem, prepared, lambda, velocity );
}

cnSweepResult cnSweep( const cnSolverProblem* problem, const cnPrepared* prepared, cnSweepKind kind,
                       const cnSweepHooks* hooks, double* lambda, double* velocity, const double* previous )
{
    cnSweepResult result = { 0.0, 0.0, true };
    if ( kind == cn_sweepJacobi )
    {
        cnSweepJacobi( problem, prepared, hooks, lambda, velocity, previous, &result );
    }
    else if ( hooks->reference || problem->matrix != NULL )
    {
        cnSweepReference( problem, prepared, hooks, lambda, velocity, &result );
    }
    else
    {
        cnSweepFast( problem, prepared, hooks, lambda, velocity, &result );
    }
    result.finite = isfinite( result.updateEnergy ) && isfinite( result.lambdaEnergy );
    return result;
}

// ---- the sweep solver ---------------------------------------------------------------------------------

// The divergence rules (divergence_factor F > 0), on the size of a sweep's update,
// sqrt(sum A_ii dlambda^2). A solve that ends (budget or deadline) with its last update above F
// times the smallest of the solve was growing; it diverged when its impulses also grade worse (the
// merit of its model) than those it started from. The update test is the cheap trigger (pgs and
// psor end at most 1.43 times their smallest update on the shipped scenes, pgj's growing solves on
// box walls up to 3.9 times, and pgs on a knocked ring chain 2.9 times while its merit still fell:
// docs/solvers.md, "Statuses"); the merit decides. While the relative measure is below the floor
// the updates are rounding, never a divergence. A sweep that moves lambda by more than a tenth of
// its size and a thousand times the smallest update ends the solve at once.
#define CN_DIVERGENCE_FLOOR 1e-9
#define CN_RUNAWAY_MEASURE  0.1
#define CN_RUNAWAY_FACTOR   1e3

// the grading merit of the current iterate: the pyramid's natural map, or with cone contacts the
// merit of each contact's own model (the cone merit when all are cones), what the layer grades
// stats->residual by for these solvers. With de_saxce 0 it is still the exact law's merit: the
// relaxed problem's answer is graded by what it departs from, and a sliding contact's answer does
// not confirm (the solve ends on its budget, or on relative or stagnation tolerance).
static double cnCurrentMerit( const cnSolverProblem* problem, const cnPrepared* prepared,
                              const double* lambda, const double* velocity, double* w )
{
    cnComputeW( problem, prepared, lambda, velocity, w );
    if ( prepared->hasCone )
    {
        return cnProblemMeritFromW( problem, prepared, lambda, w );
    }
    return cnModelMeritFromW( problem, prepared, cn_modelPyramid, lambda, w );
}

// One sweep and then the joints' exact block (block Gauss-Seidel): the solve's step, and its replay.
static cnSweepResult cnSweepOnce( const cnSolverProblem* problem, const cnPrepared* prepared,
                                  cnSweepKind kind, const cnSweepHooks* hooks, cnBilateral* bilateral,
                                  double* lambda, double* velocity, double* previous )
{
    if ( previous != NULL )
    {
        cnCopyDoubles( previous, lambda, problem->rowCount );
    }
    cnSweepResult sweep = cnSweep( problem, prepared, kind, hooks, lambda, velocity, previous );
    if ( bilateral->unitCount > 0 && sweep.finite )
    {
        sweep.updateEnergy += cnBilateralStep( bilateral, problem, lambda, velocity, NULL );
        sweep.finite = isfinite( sweep.updateEnergy );
    }
    return sweep;
}

cnSweepHooks cnSweepHooksFromParams( const cnSolverParam* table, int paramCount, const double* params )
{
    return ( cnSweepHooks ){
        .relaxation = cnSolverParamValue( table, paramCount, params, cn_sweepParamRelaxation ),
        .reference =
            (int)cnSolverParamValue( table, paramCount, params, cn_sweepParamKernel ) == cn_kernelReference,
        .relaxedCone = paramCount > cn_sweepParamDeSaxce &&
                       cnSolverParamValue( table, paramCount, params, cn_sweepParamDeSaxce ) == 0.0,
        .scalar = paramCount > cn_sweepParamSimd &&
                  (int)cnSolverParamValue( table, paramCount, params, cn_sweepParamSimd ) == cn_simdOff,
    };
}

void cnSweepSolve( const cnSolverParam* table, int paramCount, const double* params, cnSweepKind kind,
                   const cnSolverBudget* budget, const cnSolverProblem* problem, const cnPrepared* prepared,
                   cnSolverSolution* solution, cnArena* arena, cnSolverStats* stats, const cnSweepHooks* own )
{
    uint64_t start = cnGetTicks();
    int n = problem->rowCount;
    stats->status = cn_solveUnsupported;
    stats->ownMeasure = (double)NAN;
    if ( prepared->singularRows > 0 )
    {
        return; // the sweep is defined only where A_ii > 0; lambda untouched
    }
    if ( prepared->nonFiniteRows > 0 )
    {
        stats->status = cn_solveNonFinite;
        return;
    }

    cnSweepHooks hooks = own != NULL ? *own : cnSweepHooksFromParams( table, paramCount, params );
    hooks.scalar = cnSweepHooksFromParams( table, paramCount, params ).scalar;
    double relativeTolerance =
        cnSolverParamValue( table, paramCount, params, cn_sweepParamRelativeTolerance );
    double stagnationTolerance =
        cnSolverParamValue( table, paramCount, params, cn_sweepParamStagnationTolerance );
    double divergenceFactor = cnSolverParamValue( table, paramCount, params, cn_sweepParamDivergenceFactor );
    bool history = solution->residualHistory != NULL && solution->residualHistoryCapacity > 0;

    cnScratch scratch = { .arena = arena };
    double* lambda = solution->lambda;
    double* velocity = cnScratchDoubles( &scratch, 6 * problem->bodyCount );
    double* initial = cnScratchDoubles( &scratch, n );
    double* w = cnScratchDoubles( &scratch, n );
    double* previous = kind == cn_sweepJacobi ? cnScratchDoubles( &scratch, n ) : NULL;
    // the iterate the solve's smallest update ended on (the best candidate when the sweeps grow):
    // kept as the solve goes only when a hook carries state from sweep to sweep (AMGS's memory);
    // otherwise it is swept again from the start when it is needed (rarely), bit for bit the same
    bool keepSettled = divergenceFactor > 0.0 && hooks.memory != NULL;
    double* settled = keepSettled ? cnScratchDoubles( &scratch, n ) : NULL;
    if ( velocity == NULL || initial == NULL || w == NULL || ( kind == cn_sweepJacobi && previous == NULL ) ||
         ( keepSettled && settled == NULL ) )
    {
        cnScratchRelease( &scratch );
        return;
    }
    // the joints' free rows solved exactly after every sweep (bilateral.h)
    cnBilateral bilateral = { 0 };
    bool exactJoints =
        paramCount > cn_sweepParamJoints &&
        (int)cnSolverParamValue( table, paramCount, params, cn_sweepParamJoints ) == cn_jointsExact;
    if ( exactJoints && cnBilateralBuild( problem, &scratch, &bilateral ) == false )
    {
        cnScratchRelease( &scratch );
        return;
    }
    if ( bilateral.unitCount > 0 )
    {
        cnBilateralFactor( &bilateral, problem );
        // the sweeps leave the groups the block solves alone (block Gauss-Seidel: the other rows
        // swept, then the joints' free rows in one exact solve)
        hooks.skipGroups = bilateral.factored ? bilateral.wholeGroup : NULL;
    }
    cnCopyDoubles( initial, lambda, n );
    cnComputeVelocity( problem, prepared, lambda, velocity );
    if ( history )
    {
        cnRecordHistory( solution, stats, cnCurrentMerit( problem, prepared, lambda, velocity, w ) );
    }

    double freeScale = sqrt( prepared->freeEnergy );
    // the size of each sweep's update, sqrt(sum A_ii dlambda^2): the smallest so far and the last
    double smallest = (double)INFINITY;
    double lastUpdate = 0.0;
    double measure = (double)NAN;
    cnSolveStatus status = cn_solveMaxIterations;
    int iteration = 0;
    int smallestAt = 0; // the sweep the smallest update ended
    while ( iteration < budget->maxIterations )
    {
        cnSweepResult sweep =
            cnSweepOnce( problem, prepared, kind, &hooks, &bilateral, lambda, velocity, previous );
        if ( sweep.finite == false )
        {
            // overflow: back to where the solve started
            cnCopyDoubles( lambda, initial, n );
            cnComputeVelocity( problem, prepared, lambda, velocity );
            status = cn_solveNonFinite;
            break;
        }
        iteration += 1;

        double scale = sqrt( sweep.lambdaEnergy ) + freeScale;
        double previousMeasure = measure;
        measure = scale > 0.0 ? sqrt( sweep.updateEnergy ) / scale : sqrt( sweep.updateEnergy );
        if ( history )
        {
            cnRecordHistory( solution, stats, cnCurrentMerit( problem, prepared, lambda, velocity, w ) );
        }

        // runaway: sweeps that move lambda by a tenth of its own size and by a thousand times more
        // than the smallest sweep of the solve
        double update = sqrt( sweep.updateEnergy );
        if ( divergenceFactor > 0.0 && measure > CN_RUNAWAY_MEASURE && update > CN_RUNAWAY_FACTOR * smallest )
        {
            status = cn_solveDiverged;
            break;
        }
        if ( update < smallest )
        {
            smallestAt = iteration;
            if ( settled != NULL )
            {
                cnCopyDoubles( settled, lambda, n );
            }
        }
        smallest = fmin( smallest, update );
        lastUpdate = update;
        if ( budget->tolerance > 0.0 && measure <= budget->tolerance &&
             cnCurrentMerit( problem, prepared, lambda, velocity, w ) <= budget->tolerance )
        {
            status = cn_solveConverged;
            break;
        }
        if ( stagnationTolerance > 0.0 && measure <= stagnationTolerance )
        {
            status = cn_solveConverged;
            break;
        }
        if ( relativeTolerance > 0.0 && iteration > 1 &&
             fabs( measure - previousMeasure ) <= relativeTolerance * previousMeasure )
        {
            status = cn_solveConverged;
            break;
        }
        if ( budget->deadlineMs > 0.0 && cnGetMilliseconds( start ) >= budget->deadlineMs )
        {
            status = iteration < budget->maxIterations ? cn_solveDeadline : cn_solveMaxIterations;
            break;
        }
    }
    // ended moving lambda by more than divergence_factor times the least it moved in the solve (and
    // by more than rounding): the sweeps were growing. Three iterates are graded then (the grading
    // merit): the end, the one the smallest update ended on, and the start. The best is returned;
    // when that is the start, the solve diverged.
    if ( ( status == cn_solveMaxIterations || status == cn_solveDeadline ) && divergenceFactor > 0.0 &&
         measure > CN_DIVERGENCE_FLOOR && lastUpdate > divergenceFactor * smallest )
    {
        double* otherVelocity = cnScratchDoubles( &scratch, 6 * problem->bodyCount );
        double* other = settled == NULL ? cnScratchDoubles( &scratch, n ) : settled;
        if ( otherVelocity != NULL && other != NULL )
        {
            double end = cnCurrentMerit( problem, prepared, lambda, velocity, w );
            if ( settled == NULL )
            {
                // the settled iterate again: the same sweeps from the same start (no hook keeps state)
                cnCopyDoubles( other, initial, n );
                cnComputeVelocity( problem, prepared, other, otherVelocity );
                for ( int k = 0; k < smallestAt; ++k )
                {
                    cnSweepOnce( problem, prepared, kind, &hooks, &bilateral, other, otherVelocity,
                                 previous );
                }
            }
            cnComputeVelocity( problem, prepared, other, otherVelocity );
            double middle = cnCurrentMerit( problem, prepared, other, otherVelocity, w );
            cnComputeVelocity( problem, prepared, initial, otherVelocity );
            double begin = cnCurrentMerit( problem, prepared, initial, otherVelocity, w );
            if ( middle < end && middle < begin )
            {
                // the sweeps grew past a better iterate than either end: that one is the answer
                cnCopyDoubles( lambda, other, n );
                cnComputeVelocity( problem, prepared, lambda, velocity );
                stats->fallbacks += 1;
            }
            else
            {
                status = end > begin ? cn_solveDiverged : status;
            }
        }
    }
    if ( status == cn_solveDiverged )
    {
        cnCopyDoubles( lambda, initial, n );
        cnComputeVelocity( problem, prepared, lambda, velocity );
    }
    if ( history && ( status == cn_solveDiverged || status == cn_solveNonFinite ) )
    {
        // the start was put back: it is one more point on the curve
        cnRecordHistory( solution, stats, cnCurrentMerit( problem, prepared, lambda, velocity, w ) );
    }

    if ( solution->deltaVelocity != NULL && problem->matrix == NULL )
    {
        cnCopyDoubles( solution->deltaVelocity, velocity, 6 * problem->bodyCount );
    }
    stats->status = status;
    stats->iterations = iteration;
    stats->ownMeasure = measure;
    cnScratchRelease( &scratch );
}
