// SPDX-License-Identifier: MIT
// AMGS (solvers/solver_amgs.c): the acceptance tests of the digest ../shared/papers/amgs.md
// (section 6) on its Appendix A scenes, built as matrix-free problems (discs with 6 DOF, rows on
// linear x and y, b = J v; the shared builders of tests/pgs_sm/scenes.c) and solved through the
// layer. RES(lambda) = |min(lambda, A lambda + q)|_2 is computed here from the A those builders
// assemble from J and W. The paper's own x-form (Method 2.2, eq. 22, and Method 3.2 for boxes)
// and the digest's lambda-form (2.7) are test-only dense references. T11 (per-sweep cost) is a
// timing and is left to the benchmark.

#include "arena.h"
#include "scenes.h"
#include "solver_layer.h"
#include "solvers_suites.h"
#include "test_support.h"

#include "cairn/solver.h"

#include <check.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CNT_TARGET 1e-4 // RES of the digest's sweep counts
#define CNT_BIG    1e30 // the "infinite" upper bound of T5

// ---- the Appendix A scenes -----------------------------------------------------------------------------

enum
{
    cnt_stackEqual = 0,
    cnt_stackGraded,
    cnt_pyramidEqual,
    cnt_pyramidGraded,
    cnt_poolEqual,
    cnt_poolGraded,
    cnt_sceneCount,
};

static const char* const s_sceneNames[cnt_sceneCount] = {
    "stack30 equal",         "stack30 mass 1->3", "pyramid12 equal",
    "pyramid12 mass 1->100", "hexpool95 equal",   "hexpool95 mass 1->100",
};
static const int s_sceneRows[cnt_sceneCount] = { 30, 30, 144, 144, 267, 267 };

// A scene: the matrix-free problem (the shared builders of tests/pgs_sm/scenes.c) and A = J W J^T
// (CSR, from the scene's dense A, summed term by term) with its diagonal.
typedef struct cntScene
{
    cntSmScene* built;
    cntLcp* lcp;
    int m;
    const double* q; // b = J v
    int* start;
    int* column;
    double* value;
    double* diagonal;
} cntScene;

// bounded: every row a cn_groupBounded row in [0, 1e30]
static cntScene cntMakeScene( int scene, bool bounded )
{
    cntScene s = { 0 };
    bool graded = scene % 2 == 1;
    double upper = bounded ? CNT_BIG : 0.0;
    s.built = scene < cnt_pyramidEqual ? cntSmStack30Variant( graded, upper )
              : scene < cnt_poolEqual  ? cntSmPyramid12Variant( graded, upper )
                                       : cntSmHexpoolVariant( graded, upper );
    s.lcp = s.built->lcp;
    s.m = s.lcp->problem.rowCount;
    ck_assert_int_eq( s.m, s_sceneRows[scene] );
    s.q = s.lcp->b;
    int m = s.m;
    cntSmAssembleTermwise( s.built );
    const double* dense = s.built->dense;
    s.start = calloc( (size_t)m + 1, sizeof( int ) );
    s.column = calloc( (size_t)m * m, sizeof( int ) );
    s.value = calloc( (size_t)m * m, sizeof( double ) );
    s.diagonal = calloc( (size_t)m, sizeof( double ) );
    int at = 0;
    for ( int i = 0; i < m; ++i )
    {
        for ( int j = 0; j < m; ++j )
        {
            double a = dense[(size_t)i * m + j];
            if ( a != 0.0 )
            {
                s.column[at] = j;
                s.value[at] = a;
                ++at;
            }
        }
        s.start[i + 1] = at;
        s.diagonal[i] = dense[(size_t)i * m + i];
        ck_assert( s.diagonal[i] > 0.0 );
    }
    return s;
}

static void cntFreeScene( cntScene* s )
{
    cntSmSceneFree( s->built );
    free( s->start );
    free( s->column );
    free( s->value );
    free( s->diagonal );
}

// w = A lambda + q
static void cntW( const cntScene* s, const double* lambda, double* w )
{
    for ( int i = 0; i < s->m; ++i )
    {
        double sum = s->q[i];
        for ( int p = s->start[i]; p < s->start[i + 1]; ++p )
        {
            sum += s->value[p] * lambda[s->column[p]];
        }
        w[i] = sum;
    }
}

// RES(lambda) = |min(lambda, A lambda + q)|_2 (the digest's eq. 32)
static double cntRes( const cntScene* s, const double* lambda )
{
    double sum = 0.0;
    for ( int i = 0; i < s->m; ++i )
    {
        double w = s->q[i];
        for ( int p = s->start[i]; p < s->start[i + 1]; ++p )
        {
            w += s->value[p] * lambda[s->column[p]];
        }
        double v = fmin( lambda[i], w );
        sum += v * v;
    }
    return sqrt( sum );
}

static double cntMaxAbs( const double* a, int n )
{
    double m = 0.0;
    for ( int i = 0; i < n; ++i )
    {
        m = fmax( m, fabs( a[i] ) );
    }
    return m;
}

// max |a - b| / max(1, |a|_inf, |b|_inf)
static double cntRelDiff( const double* a, const double* b, int n )
{
    double d = 0.0;
    for ( int i = 0; i < n; ++i )
    {
        d = fmax( d, fabs( a[i] - b[i] ) );
    }
    return d / fmax( 1.0, fmax( cntMaxAbs( a, n ), cntMaxAbs( b, n ) ) );
}

// ---- the solvers through the layer ---------------------------------------------------------------------

typedef struct cntSetting
{
    const char* name;
    double value;
} cntSetting;

// `sweeps` sweeps from the lambda given (no tolerance, no divergence rule): the layer's stats
static cnSolverStats cntRun( const char* name, cntLcp* lcp, int sweeps, const cntSetting* settings, int count,
                             double* lambda )
{
    const cnSolverVTable* solver = cnFindSolver( name );
    ck_assert_ptr_nonnull( solver );
    double params[CN_MAX_SOLVER_PARAMS];
    for ( int k = 0; k < solver->paramCount; ++k )
    {
        params[k] = solver->params[k].defaultValue;
    }
    const cntSetting fixed[3] = {
        { "iterations", (double)sweeps }, { "tolerance", 0.0 }, { "divergence_factor", 0.0 } };
    for ( int k = 0; k < 3 + count; ++k )
    {
        const cntSetting* setting = k < 3 ? fixed + k : settings + ( k - 3 );
        int index = cntParamIndex( solver, setting->name );
        ck_assert_msg( index >= 0, "%s has no parameter %s", name, setting->name );
        params[index] = setting->value;
    }
    double* velocity = calloc( 6 * (size_t)lcp->problem.bodyCount + 1, sizeof( double ) );
    cnSolverStats stats = cntSolveWithParams( solver, &lcp->problem, lambda, velocity, params, NULL, 0 );
    free( velocity );
    return stats;
}

// `sweeps` sweeps from lambda = 0, checked to have run them all
static void cntSweeps( const char* name, cntLcp* lcp, int sweeps, const cntSetting* settings, int count,
                       double* lambda )
{
    memset( lambda, 0, sizeof( double ) * (size_t)lcp->problem.rowCount );
    cnSolverStats stats = cntRun( name, lcp, sweeps, settings, count, lambda );
    ck_assert_msg( stats.status == cn_solveMaxIterations && stats.iterations == sweeps,
                   "%s: %s after %d of %d sweeps (%s)", name, cnSolveStatusName( stats.status ),
                   stats.iterations, sweeps, stats.reason != NULL ? stats.reason : "" );
}

// amgs's settings: Omega = alpha D (omega 0) or mean(D) / gamma E (omega 1), box symmetric (0) or paper (1)
static int cntAmgsSettings( double alpha, double gamma, int omega, int box, cntSetting* out )
{
    out[0] = ( cntSetting ){ "alpha", alpha };
    out[1] = ( cntSetting ){ "gamma", gamma };
    out[2] = ( cntSetting ){ "omega", (double)omega };
    out[3] = ( cntSetting ){ "box", (double)box };
    return 4;
}

static void cntAmgs( cntScene* s, int sweeps, double alpha, double gamma, int omega, int box, double* lambda )
{
    cntSetting settings[4];
    int count = cntAmgsSettings( alpha, gamma, omega, box, settings );
    cntSweeps( "amgs", s->lcp, sweeps, settings, count, lambda );
}

// ---- the test-only references --------------------------------------------------------------------------

// The paper's Method 2.2 (eq. 22) in its own variable x with the explicit A and any positive
// diagonal Omega, `sweeps` sweeps from x:
//     x_i <- x_i - gamma / (A_ii + gamma Omega_ii) (sum_j A_ij lambda_j + q_i - 2 Omega_ii (x_-)_i),
//     lambda_i <- (2 / gamma) max(0, x_i)    (row by row, Gauss-Seidel);
// with `upper` (nullable) Method 3.2 with l = 0: lambda_i <- (2 / gamma) p_BLCP(x_i) (read at
// gamma = 2). Returns the row updates that left x_i < 0 (the memory in use); `above` (nullable)
// counts those that left x_i above upper_i.
static int cntMethod22( const cntScene* s, const double* omega, double gamma, const double* upper, int sweeps,
                        double* x, double* lambda, int* above )
{
    int negatives = 0;
    for ( int i = 0; i < s->m; ++i )
    {
        double p = fmax( 0.0, x[i] );
        lambda[i] = ( 2.0 / gamma ) * ( upper != NULL ? fmin( p, upper[i] ) : p );
    }
    for ( int k = 0; k < sweeps; ++k )
    {
        for ( int i = 0; i < s->m; ++i )
        {
            double r = s->q[i];
            for ( int p = s->start[i]; p < s->start[i + 1]; ++p )
            {
                r += s->value[p] * lambda[s->column[p]];
            }
            double minus = fmax( 0.0, -x[i] );
            x[i] -= gamma / ( s->diagonal[i] + gamma * omega[i] ) * ( r - 2.0 * omega[i] * minus );
            double p = fmax( 0.0, x[i] );
            lambda[i] = ( 2.0 / gamma ) * ( upper != NULL ? fmin( p, upper[i] ) : p );
            negatives += x[i] < 0.0;
            if ( above != NULL && upper != NULL )
            {
                *above += x[i] > upper[i];
            }
        }
    }
    return negatives;
}

// The digest's lambda-form (2.7), symmetric in both bounds: with the signed overshoot d,
//     y = lambda_i + (w - 1) d_i - w r_i / A_ii,   lambda_i <- clamp(y, 0, upper_i),   d_i <- y - lambda_i
static void cntLambdaForm( const cntScene* s, double relaxation, const double* upper, int sweeps, double* d,
                           double* lambda )
{
    for ( int k = 0; k < sweeps; ++k )
    {
        for ( int i = 0; i < s->m; ++i )
        {
            double r = s->q[i];
            for ( int p = s->start[i]; p < s->start[i + 1]; ++p )
            {
                r += s->value[p] * lambda[s->column[p]];
            }
            double y = lambda[i] + ( relaxation - 1.0 ) * d[i] - relaxation * r / s->diagonal[i];
            double clamped = fmin( fmax( y, 0.0 ), upper[i] );
            d[i] = y - clamped;
            lambda[i] = clamped;
        }
    }
}

static double cntMean( const double* a, int n )
{
    double sum = 0.0;
    for ( int i = 0; i < n; ++i )
    {
        sum += a[i];
    }
    return sum / n;
}

static void cntOmegaAlphaD( const cntScene* s, double alpha, double* omega )
{
    for ( int i = 0; i < s->m; ++i )
    {
        omega[i] = alpha * s->diagonal[i];
    }
}

// ---- sweep counts to RES < 1e-4 from a cold start ------------------------------------------------------

typedef struct cntCounter
{
    cntScene* scene;
    const char* solver;
    cntSetting settings[4];
    int count;
    double* lambda;
} cntCounter;

static double cntResAt( cntCounter* c, int sweeps )
{
    if ( sweeps == 0 )
    {
        memset( c->lambda, 0, sizeof( double ) * (size_t)c->scene->m );
    }
    else
    {
        cntSweeps( c->solver, c->scene->lcp, sweeps, c->settings, c->count, c->lambda );
    }
    return cntRes( c->scene, c->lambda );
}

// The sweeps (full solves from lambda = 0 through the layer) after which RES < 1e-4 first holds,
// searched outward from `guess` and then bisected (RES crossing the target once); -1 when it does
// not by `cap` sweeps.
static int cntFirstCount( cntCounter* c, int guess, int cap )
{
    int hi = guess + guess / 50 + 2;
    hi = hi < cap ? hi : cap;
    int lo;
    if ( cntResAt( c, hi ) >= CNT_TARGET )
    {
        do
        {
            if ( hi >= cap )
            {
                return -1;
            }
            lo = hi;
            hi = 2 * hi < cap ? 2 * hi : cap;
        } while ( cntResAt( c, hi ) >= CNT_TARGET );
    }
    else
    {
        lo = guess - guess / 50 - 2;
        lo = lo > 0 ? lo : 0;
        while ( cntResAt( c, lo ) < CNT_TARGET )
        {
            if ( lo == 0 )
            {
                return 0;
            }
            hi = lo;
            lo /= 2;
        }
    }
    while ( hi - lo > 1 )
    {
        int mid = lo + ( hi - lo ) / 2;
        if ( cntResAt( c, mid ) < CNT_TARGET )
        {
            hi = mid;
        }
        else
        {
            lo = mid;
        }
    }
    return hi;
}

// PGS (alpha 0 here), amgs with Omega = alpha D (gamma 2), or amgs with Omega = mean(D) / gamma E (alpha < 0)
static int cntCount( cntScene* s, double alpha, int guess, int cap, double* lambda )
{
    cntCounter c = { .scene = s, .solver = alpha == 0.0 ? "pgs" : "amgs", .lambda = lambda };
    if ( alpha != 0.0 )
    {
        c.count = cntAmgsSettings( alpha > 0.0 ? alpha : 0.2, 2.0, alpha > 0.0 ? 0 : 1, 0, c.settings );
    }
    return cntFirstCount( &c, guess, cap );
}

// the digest's tolerance on its counts: +-2% or +-2 sweeps, whichever is larger
static bool cntCountMatches( int measured, int digest )
{
    double allowed = fmax( 2.0, 0.02 * digest );
    return measured >= 0 && fabs( (double)( measured - digest ) ) <= allowed;
}

// ---- T1-T6: equivalences -------------------------------------------------------------------------------

// T1: Omega = D / gamma is PGS for every gamma, PSD pile included: 1e-12 max(1, |lambda|_inf)
START_TEST( t1_alpha_one_over_gamma_is_pgs )
{
    cntScene s = cntMakeScene( _i, false );
    double* pgs = calloc( (size_t)s.m, sizeof( double ) );
    double* amgs = calloc( (size_t)s.m, sizeof( double ) );
    static const double gammas[3] = { 1.0, 2.0, 5.0 };
    static const int sweeps[4] = { 1, 10, 100, 400 };
    double worst = 0.0;
    for ( int k = 0; k < 4; ++k )
    {
        cntSweeps( "pgs", s.lcp, sweeps[k], NULL, 0, pgs );
        ck_assert( cntMaxAbs( pgs, s.m ) > 0.0 );
        for ( int g = 0; g < 3; ++g )
        {
            cntAmgs( &s, sweeps[k], 1.0 / gammas[g], gammas[g], 0, 0, amgs );
            double d = cntRelDiff( pgs, amgs, s.m );
            worst = fmax( worst, d );
            ck_assert_msg( d <= 1e-12, "%s, gamma %g, %d sweeps: amgs differs from pgs by %g",
                           s_sceneNames[_i], gammas[g], sweeps[k], d );
        }
    }
    printf( "T1 %-22s amgs(alpha = 1/gamma) vs pgs, 400 sweeps: max relative difference %.2e\n",
            s_sceneNames[_i], worst );
    free( pgs );
    free( amgs );
    cntFreeScene( &s );
}
END_TEST

// T2: the paper's x-form Method 2.2 (dense, test-only) and the matrix-free solver give the same
// iterates, where the memory is in use (the pyramid and the pile) as where it is not (the stack),
// for Omega = alpha D and for Omega = mean(D) / gamma E (omega = mean_e)
START_TEST( t2_x_form_method_2_2_matches )
{
    cntScene s = cntMakeScene( _i, false );
    double* x = calloc( (size_t)s.m, sizeof( double ) );
    double* reference = calloc( (size_t)s.m, sizeof( double ) );
    double* omega = calloc( (size_t)s.m, sizeof( double ) );
    double* amgs = calloc( (size_t)s.m, sizeof( double ) );
    static const double alphas[2] = { 0.2, 0.5 };
    static const int checkpoints[4] = { 1, 10, 50, 200 };
    double worst = 0.0;
    int negatives = 0;
    // alpha 0.2 and 0.5 (Omega = alpha D), then omega = mean_e (Omega = mean(D) / gamma E)
    for ( int a = 0; a < 3; ++a )
    {
        cntOmegaAlphaD( &s, a < 2 ? alphas[a] : 0.0, omega );
        for ( int i = 0; a == 2 && i < s.m; ++i )
        {
            omega[i] = cntMean( s.diagonal, s.m ) / 2.0;
        }
        memset( x, 0, sizeof( double ) * (size_t)s.m );
        int done = 0;
        for ( int k = 0; k < 4; ++k )
        {
            negatives += cntMethod22( &s, omega, 2.0, NULL, checkpoints[k] - done, x, reference, NULL );
            done = checkpoints[k];
            cntAmgs( &s, done, a < 2 ? alphas[a] : 0.2, 2.0, a < 2 ? 0 : 1, 0, amgs );
            double d = cntRelDiff( reference, amgs, s.m );
            worst = fmax( worst, d );
            ck_assert_msg( d <= 1e-12, "%s, %s %g, %d sweeps: amgs differs from Method 2.2 by %g",
                           s_sceneNames[_i], a < 2 ? "alpha" : "mean_e", a < 2 ? alphas[a] : 0.0, done, d );
        }
    }
    // the memory term (x < 0) is exercised where rows separate
    if ( _i >= cnt_pyramidEqual )
    {
        ck_assert_int_gt( negatives, 0 );
    }
    printf( "T2 %-22s amgs vs x-form Method 2.2 (alpha 0.2, 0.5, mean_e), 200 sweeps: max relative "
            "difference %.2e (%d updates with x "
            "< 0)\n",
            s_sceneNames[_i], worst, negatives );
    free( x );
    free( reference );
    free( omega );
    free( amgs );
    cntFreeScene( &s );
}
END_TEST

// T3: only alpha gamma matters: (gamma 2, alpha) and (gamma 4, alpha / 2) give the same lambda,
// through the solver and against the x-form at gamma 4 (where x is scaled differently)
START_TEST( t3_gamma_invariance )
{
    cntScene s = cntMakeScene( _i, false );
    double* two = calloc( (size_t)s.m, sizeof( double ) );
    double* four = calloc( (size_t)s.m, sizeof( double ) );
    double* x = calloc( (size_t)s.m, sizeof( double ) );
    double* reference = calloc( (size_t)s.m, sizeof( double ) );
    double* omega = calloc( (size_t)s.m, sizeof( double ) );
    static const double alphas[4] = { 0.05, 0.1, 0.2, 0.3 };
    static const int sweeps[3] = { 1, 50, 200 };
    for ( int a = 0; a < 4; ++a )
    {
        cntOmegaAlphaD( &s, alphas[a] / 2.0, omega );
        memset( x, 0, sizeof( double ) * (size_t)s.m );
        int done = 0;
        for ( int k = 0; k < 3; ++k )
        {
            cntAmgs( &s, sweeps[k], alphas[a], 2.0, 0, 0, two );
            cntAmgs( &s, sweeps[k], alphas[a] / 2.0, 4.0, 0, 0, four );
            double d = cntRelDiff( two, four, s.m );
            ck_assert_msg( d <= 1e-12, "%s, alpha %g, %d sweeps: gamma 2 and 4 differ by %g",
                           s_sceneNames[_i], alphas[a], sweeps[k], d );
            cntMethod22( &s, omega, 4.0, NULL, sweeps[k] - done, x, reference, NULL );
            done = sweeps[k];
            d = cntRelDiff( two, reference, s.m );
            ck_assert_msg( d <= 1e-12, "%s, alpha %g, %d sweeps: x-form at gamma 4 differs by %g",
                           s_sceneNames[_i], alphas[a], sweeps[k], d );
        }
    }
    free( two );
    free( four );
    free( x );
    free( reference );
    free( omega );
    cntFreeScene( &s );
}
END_TEST

// T4: on the stacks no projection activates (every lambda_i stays positive), and AMGS(alpha) is
// PSOR with relaxation 2 / (1 + 2 alpha)
START_TEST( t4_stack_is_psor )
{
    cntScene s = cntMakeScene( _i, false );
    double* psor = calloc( (size_t)s.m, sizeof( double ) );
    double* amgs = calloc( (size_t)s.m, sizeof( double ) );
    static const double alphas[3] = { 0.1, 0.2, 0.3 };
    static const int sweeps[4] = { 1, 10, 100, 1000 };
    double worst = 0.0;
    for ( int a = 0; a < 3; ++a )
    {
        cntSetting relaxation = { "relaxation", 2.0 / ( 1.0 + 2.0 * alphas[a] ) };
        for ( int k = 0; k < 4; ++k )
        {
            cntSweeps( "psor", s.lcp, sweeps[k], &relaxation, 1, psor );
            cntAmgs( &s, sweeps[k], alphas[a], 2.0, 0, 0, amgs );
            for ( int i = 0; i < s.m; ++i )
            {
                ck_assert_msg( amgs[i] > 0.0, "%s, alpha %g, %d sweeps: lambda_%d = %g", s_sceneNames[_i],
                               alphas[a], sweeps[k], i, amgs[i] );
            }
            double d = cntRelDiff( psor, amgs, s.m );
            worst = fmax( worst, d );
            ck_assert_msg( d <= 1e-14, "%s, alpha %g, %d sweeps: amgs differs from psor by %g",
                           s_sceneNames[_i], alphas[a], sweeps[k], d );
        }
    }
    printf( "T4 %-22s amgs(alpha) vs psor(2 / (1 + 2 alpha)), 1000 sweeps: max relative difference %.2e\n",
            s_sceneNames[_i], worst );
    free( psor );
    free( amgs );
    cntFreeScene( &s );
}
END_TEST

// T5: bounded rows. [0, 1e30] is the plain LCP (both box modes); with finite upper bounds that
// activate, alpha = 1 / gamma (symmetric) is PGS on the box and alpha 0.2 the digest's lambda-form
// (2.7); box = paper is the paper's Method 3.2 (x-form, gamma 2), stays in [0, u], and differs
// from the symmetric form where an upper bound is active.
START_TEST( t5_bounded_rows )
{
    int scene = _i == 0 ? cnt_pyramidEqual : cnt_poolEqual;
    cntScene plain = cntMakeScene( scene, false );
    cntScene boxed = cntMakeScene( scene, true );
    int m = plain.m;
    double* a = calloc( (size_t)m, sizeof( double ) );
    double* b = calloc( (size_t)m, sizeof( double ) );
    double* x = calloc( (size_t)m, sizeof( double ) );
    double* omega = calloc( (size_t)m, sizeof( double ) );
    double* upper = calloc( (size_t)m, sizeof( double ) );
    static const int sweeps[4] = { 1, 10, 100, 400 };

    // [0, 1e30]: the plain LCP
    for ( int alpha = 0; alpha < 2; ++alpha )
    {
        for ( int box = 0; box < 2; ++box )
        {
            for ( int k = 1; k < 4; k += 2 )
            {
                cntAmgs( &plain, sweeps[k], alpha == 0 ? 0.2 : 0.5, 2.0, 0, box, a );
                cntAmgs( &boxed, sweeps[k], alpha == 0 ? 0.2 : 0.5, 2.0, 0, box, b );
                double d = cntRelDiff( a, b, m );
                ck_assert_msg( d <= 1e-12, "%s, alpha %s, box %d, %d sweeps: [0, 1e30] differs by %g",
                               s_sceneNames[scene], alpha == 0 ? "0.2" : "0.5", box, sweeps[k], d );
            }
        }
    }

    // upper bounds at half the LCP's answer on every third row that carries an impulse
    memset( a, 0, sizeof( double ) * (size_t)m );
    cnSolverStats stats = cntRun( "pgs", plain.lcp, 100000, &( cntSetting ){ "tolerance", 1e-10 }, 1, a );
    ck_assert_int_eq( stats.status, cn_solveConverged );
    int capped = 0;
    for ( int i = 0; i < m; ++i )
    {
        bool cap = i % 3 == 0 && a[i] > 0.0;
        upper[i] = cap ? 0.5 * a[i] : CNT_BIG;
        boxed.lcp->upper[i] = upper[i];
        capped += cap;
    }
    ck_assert_int_gt( capped, 0 );

    // symmetric at relaxation 1 is PGS on the box, at gamma 2 and 1
    int active = 0;
    for ( int k = 0; k < 4; ++k )
    {
        cntSweeps( "pgs", boxed.lcp, sweeps[k], NULL, 0, a );
        for ( int g = 1; g <= 2; ++g )
        {
            cntAmgs( &boxed, sweeps[k], 1.0 / g, (double)g, 0, 0, b );
            double d = cntRelDiff( a, b, m );
            ck_assert_msg( d <= 1e-12, "%s, gamma %d, %d sweeps: symmetric box differs from pgs by %g",
                           s_sceneNames[scene], g, sweeps[k], d );
        }
    }
    for ( int i = 0; i < m; ++i )
    {
        active += upper[i] < CNT_BIG && a[i] == upper[i];
    }
    ck_assert_int_gt( active, 0 );

    // symmetric at alpha 0.2 is the lambda-form with the signed overshoot memory
    memset( x, 0, sizeof( double ) * (size_t)m );
    memset( a, 0, sizeof( double ) * (size_t)m );
    int done = 0;
    for ( int k = 0; k < 4; ++k )
    {
        cntLambdaForm( &boxed, 2.0 / ( 1.0 + 0.4 ), upper, sweeps[k] - done, x, a );
        done = sweeps[k];
        cntAmgs( &boxed, done, 0.2, 2.0, 0, 0, b );
        double d = cntRelDiff( a, b, m );
        ck_assert_msg( d <= 1e-12, "%s, %d sweeps: symmetric box differs from the lambda-form by %g",
                       s_sceneNames[scene], done, d );
    }

    // paper: Method 3.2 at gamma 2, in [0, u] after every sweep checked; not the symmetric form once
    // an iterate has gone above an upper bound
    for ( int alpha = 0; alpha < 2; ++alpha )
    {
        double value = alpha == 0 ? 0.2 : 0.5;
        cntOmegaAlphaD( &boxed, value, omega );
        memset( x, 0, sizeof( double ) * (size_t)m );
        done = 0;
        int above = 0;
        double apart = 0.0;
        for ( int k = 1; k <= 400; k = k < 10 ? k + 1 : 2 * k )
        {
            cntMethod22( &boxed, omega, 2.0, upper, k - done, x, a, &above );
            done = k;
            cntAmgs( &boxed, k, value, 2.0, 0, 1, b );
            double d = cntRelDiff( a, b, m );
            ck_assert_msg( d <= 1e-12, "%s, alpha %g, %d sweeps: box = paper differs from Method 3.2 by %g",
                           s_sceneNames[scene], value, k, d );
            for ( int i = 0; i < m; ++i )
            {
                ck_assert_msg( b[i] >= 0.0 && b[i] <= upper[i],
                               "%s, alpha %g, %d sweeps: lambda_%d = %g outside [0, %g]", s_sceneNames[scene],
                               value, k, i, b[i], upper[i] );
            }
            cntAmgs( &boxed, k, value, 2.0, 0, 0, a );
            apart = fmax( apart, cntRelDiff( a, b, m ) );
        }
        printf( "T5 %-22s alpha %g: box = paper vs symmetric differ by up to %.2e over 400 sweeps (%d "
                "updates above "
                "u; %d of %d bounds at u under pgs)\n",
                s_sceneNames[scene], value, apart, above, active, capped );
        ck_assert_int_gt( above, 0 );
        ck_assert_msg( apart > 1e-8, "%s, alpha %g: box = paper and symmetric agree (%g)",
                       s_sceneNames[scene], value, apart );
    }

    free( a );
    free( b );
    free( x );
    free( omega );
    free( upper );
    cntFreeScene( &plain );
    cntFreeScene( &boxed );
}
END_TEST

// T6: Theorem 2.1 (Gamma = E / gamma) from a converged lambda (pgs to a merit of 1e-13; the defects
// below scale with it), for gamma 1, 2, 5 and Omega = D / gamma, 0.2 D, mean(D) / gamma E:
// x = (gamma lambda - Omega^-1 w) / 2 gives (|x| + x) / gamma = lambda, Omega (|x| - x) = w and
// (Omega + A / gamma) x = (Omega - A / gamma)|x| - q, each to 1e-10 of the largest term in it, and x
// is a fixed point of a Method 2.2 sweep.
START_TEST( t6_theorem_2_1_round_trip )
{
    cntScene s = cntMakeScene( _i, false );
    int m = s.m;
    double* lambda = calloc( (size_t)m, sizeof( double ) );
    double* w = calloc( (size_t)m, sizeof( double ) );
    double* x = calloc( (size_t)m, sizeof( double ) );
    double* ax = calloc( (size_t)m, sizeof( double ) );
    double* absx = calloc( (size_t)m, sizeof( double ) );
    double* aabs = calloc( (size_t)m, sizeof( double ) );
    double* omega = calloc( (size_t)m, sizeof( double ) );
    double* zero = calloc( (size_t)m, sizeof( double ) );
    double* next = calloc( (size_t)m, sizeof( double ) );
    double* scratch = calloc( (size_t)m, sizeof( double ) );
    cnSolverStats stats = cntRun( "pgs", s.lcp, 1000000, &( cntSetting ){ "tolerance", 1e-13 }, 1, lambda );
    ck_assert_int_eq( stats.status, cn_solveConverged );
    cntW( &s, lambda, w );
    // A x without q
    memset( zero, 0, sizeof( double ) * (size_t)m );
    const double* q = s.q;
    static const double gammas[3] = { 1.0, 2.0, 5.0 };
    double worst = 0.0;
    for ( int g = 0; g < 3; ++g )
    {
        double gamma = gammas[g];
        for ( int choice = 0; choice < 3; ++choice )
        {
            double mean = 0.0;
            for ( int i = 0; i < m; ++i )
            {
                mean += s.diagonal[i] / m;
            }
            for ( int i = 0; i < m; ++i )
            {
                omega[i] = choice == 0   ? s.diagonal[i] / gamma
                           : choice == 1 ? 0.2 * s.diagonal[i]
                                         : mean / gamma;
            }
            for ( int i = 0; i < m; ++i )
            {
                x[i] = 0.5 * ( gamma * lambda[i] - w[i] / omega[i] );
                absx[i] = fabs( x[i] );
            }
            s.q = zero;
            cntW( &s, x, ax );
            cntW( &s, absx, aabs );
            s.q = q;
            double e1 = 0.0, s1 = 0.0, e2 = 0.0, s2 = 0.0, e3 = 0.0, s3 = 0.0;
            for ( int i = 0; i < m; ++i )
            {
                e1 = fmax( e1, fabs( ( absx[i] + x[i] ) / gamma - lambda[i] ) );
                s1 = fmax( s1, fmax( absx[i] / gamma, fabs( lambda[i] ) ) );
                e2 = fmax( e2, fabs( omega[i] * ( absx[i] - x[i] ) - w[i] ) );
                s2 = fmax( s2, fmax( omega[i] * absx[i], fabs( w[i] ) ) );
                double left = omega[i] * x[i] + ax[i] / gamma;
                double right = omega[i] * absx[i] - aabs[i] / gamma - q[i];
                e3 = fmax( e3, fabs( left - right ) );
                s3 = fmax( s3, fmax( fmax( omega[i] * absx[i], fabs( ax[i] / gamma ) ),
                                     fmax( fabs( aabs[i] / gamma ), fabs( q[i] ) ) ) );
            }
            worst = fmax( worst, fmax( e1 / s1, fmax( e2 / s2, e3 / s3 ) ) );
            ck_assert_msg( e1 <= 1e-10 * s1,
                           "%s, gamma %g, Omega %d: (|x| + x) / gamma - lambda = %g (scale %g)",
                           s_sceneNames[_i], gamma, choice, e1, s1 );
            ck_assert_msg( e2 <= 1e-10 * s2, "%s, gamma %g, Omega %d: Omega (|x| - x) - w = %g (scale %g)",
                           s_sceneNames[_i], gamma, choice, e2, s2 );
            ck_assert_msg( e3 <= 1e-10 * s3, "%s, gamma %g, Omega %d: identity (15) off by %g (scale %g)",
                           s_sceneNames[_i], gamma, choice, e3, s3 );
            // a fixed point of the x-form iteration
            memcpy( next, x, sizeof( double ) * (size_t)m );
            cntMethod22( &s, omega, gamma, NULL, 1, next, scratch, NULL );
            double d = 0.0;
            for ( int i = 0; i < m; ++i )
            {
                d = fmax( d, fabs( next[i] - x[i] ) );
            }
            ck_assert_msg( d <= 1e-10 * cntMaxAbs( x, m ),
                           "%s, gamma %g, Omega %d: a Method 2.2 sweep moves x by %g", s_sceneNames[_i],
                           gamma, choice, d );
        }
    }
    printf( "T6 %-22s Theorem 2.1 round trip from pgs (%d sweeps): worst relative defect %.2e\n",
            s_sceneNames[_i], stats.iterations, worst );
    free( lambda );
    free( w );
    free( x );
    free( ax );
    free( absx );
    free( aabs );
    free( omega );
    free( zero );
    free( next );
    free( scratch );
    cntFreeScene( &s );
}
END_TEST

// ---- T7, T9, T10: sweep counts -------------------------------------------------------------------------

// the digest's T7 table: PGS, then alpha 0.6, 0.5, 0.3, 0.2, 0.1, 0.05 (0: not given)
static const double s_alphas[7] = { 0.0, 0.6, 0.5, 0.3, 0.2, 0.1, 0.05 };
static const int s_table[cnt_sceneCount][7] = {
    { 2195, 0, 2195, 1315, 877, 442, 0 }, { 3529, 0, 3529, 2124, 1425, 733, 0 },
    { 170, 203, 170, 103, 69, 39, 69 },   { 2071, 2455, 2071, 1297, 898, 473, 226 },
    { 380, 448, 380, 242, 170, 98, 58 },  { 966, 1150, 966, 596, 424, 244, 152 },
};

// T7: cold-start sweeps to RES < 1e-4, gamma 2, Omega = alpha D, against the digest's table
START_TEST( t7_sweep_counts )
{
    cntScene s = cntMakeScene( _i, false );
    double* lambda = calloc( (size_t)s.m, sizeof( double ) );
    int failures = 0;
    char line[512];
    int at = snprintf( line, sizeof( line ), "T7 %-22s", s_sceneNames[_i] );
    for ( int c = 0; c < 7; ++c )
    {
        int digest = s_table[_i][c];
        if ( digest == 0 )
        {
            at += snprintf( line + at, sizeof( line ) - (size_t)at, " | %s -", c == 0 ? "pgs" : "a" );
            continue;
        }
        int measured = cntCount( &s, s_alphas[c], digest, 20000, lambda );
        bool ok = cntCountMatches( measured, digest );
        failures += !ok;
        if ( c == 0 )
        {
            at += snprintf( line + at, sizeof( line ) - (size_t)at, " | pgs %d (%d)%s", measured, digest,
                            ok ? "" : " !!" );
        }
        else
        {
            at += snprintf( line + at, sizeof( line ) - (size_t)at, " | a%g %d (%d)%s", s_alphas[c], measured,
                            digest, ok ? "" : " !!" );
        }
    }
    printf( "%s   [measured (digest)]\n", line );
    ck_assert_msg( failures == 0, "%s: %d counts off the digest's by more than 2%% or 2 sweeps: %s",
                   s_sceneNames[_i], failures, line );
    free( lambda );
    cntFreeScene( &s );
}
END_TEST

// T9: alpha 0.6 (> 1 / gamma, under-relaxed) takes more sweeps than PGS, about 15-20% more on the
// scenes of the table (the stacks: more, printed)
START_TEST( t9_alpha_0_6_slower_than_pgs )
{
    cntScene s = cntMakeScene( _i, false );
    double* lambda = calloc( (size_t)s.m, sizeof( double ) );
    int pgs = cntCount( &s, 0.0, s_table[_i][0], 20000, lambda );
    int guess = s_table[_i][1] > 0 ? s_table[_i][1] : (int)( 1.19 * s_table[_i][0] );
    int slow = cntCount( &s, 0.6, guess, 40000, lambda );
    double ratio = (double)slow / pgs;
    printf( "T9 %-22s pgs %d, alpha 0.6 %d (x%.3f)\n", s_sceneNames[_i], pgs, slow, ratio );
    ck_assert_int_gt( pgs, 0 );
    ck_assert_msg( slow > pgs, "%s: alpha 0.6 took %d sweeps, pgs %d", s_sceneNames[_i], slow, pgs );
    if ( s_table[_i][1] > 0 )
    {
        ck_assert_msg( ratio >= 1.15 && ratio <= 1.20,
                       "%s: alpha 0.6 / pgs = %d / %d = %.3f, not 15-20%% more", s_sceneNames[_i], slow, pgs,
                       ratio );
    }
    free( lambda );
    cntFreeScene( &s );
}
END_TEST

// T9: Omega = mean(D) / gamma E (omega = mean_e) against PGS. The digest says it is no better than
// PGS (within 10%). That holds on the equal-mass scenes (measured: x1.02, x1.09, x1.09); on the
// graded ones it does not: the per-row relaxation 2 / (1 + mean(D) / A_ii) over-relaxes the rows of
// light bodies and there mean_e beats PGS (measured: x0.85, x0.57, x0.94; docs/amgs.md). The test
// holds both: equal masses within 10% of PGS, graded masses fewer sweeps than PGS.
START_TEST( t9_mean_e_against_pgs )
{
    cntScene s = cntMakeScene( _i, false );
    double* lambda = calloc( (size_t)s.m, sizeof( double ) );
    int pgs = cntCount( &s, 0.0, s_table[_i][0], 20000, lambda );
    int mean = cntCount( &s, -1.0, s_table[_i][0], 40000, lambda );
    double ratio = (double)mean / pgs;
    printf( "T9 %-22s pgs %d, mean_e %d (x%.3f)\n", s_sceneNames[_i], pgs, mean, ratio );
    ck_assert_int_gt( pgs, 0 );
    ck_assert_int_gt( mean, 0 );
    bool graded = _i == cnt_stackGraded || _i == cnt_pyramidGraded || _i == cnt_poolGraded;
    if ( graded )
    {
        ck_assert_msg( mean < pgs, "%s: mean_e took %d sweeps, pgs %d (x%.3f)", s_sceneNames[_i], mean, pgs,
                       ratio );
    }
    else
    {
        ck_assert_msg( ratio >= 0.9 && ratio <= 1.1, "%s: mean_e took %d sweeps, pgs %d (x%.3f)",
                       s_sceneNames[_i], mean, pgs, ratio );
    }
    free( lambda );
    cntFreeScene( &s );
}
END_TEST

// The kernel itself (cnSweep with the memory hook) at relaxation 2 / (1 + 2 alpha), sweep by sweep:
// the first sweep with RES < 1e-4 (-1: none in `sweeps`), the smallest RES and the last.
static int cntKernelCount( cntScene* s, double relaxation, int sweeps, double* smallest, double* last )
{
    cnScratch scratch = { .arena = NULL };
    cnPrepared prepared;
    ck_assert( cnPrepareProblem( &s->lcp->problem, &scratch, &prepared ) );
    double* lambda = calloc( (size_t)s->m, sizeof( double ) );
    double* memory = calloc( (size_t)s->m, sizeof( double ) );
    double* velocity = calloc( 6 * (size_t)s->lcp->problem.bodyCount, sizeof( double ) );
    cnSweepHooks hooks = { .relaxation = relaxation, .memory = memory };
    int first = -1;
    *smallest = (double)INFINITY;
    for ( int k = 1; k <= sweeps; ++k )
    {
        cnSweepResult result =
            cnSweep( &s->lcp->problem, &prepared, cn_sweepGaussSeidel, &hooks, lambda, velocity, NULL );
        ck_assert( result.finite );
        *last = cntRes( s, lambda );
        *smallest = fmin( *smallest, *last );
        if ( first < 0 && *last < CNT_TARGET )
        {
            first = k;
        }
    }
    free( lambda );
    free( memory );
    free( velocity );
    cnScratchRelease( &scratch );
    return first;
}

// T10: alpha = 0 is refused by the parameter checks; alpha 0.02 converges (the digest's counts);
// alpha gamma below 0.04 ends unsupported with lambda untouched; and the kernel at alpha = 0
// (relaxation 2) stalls, while at alpha 0.02 and 0.01 it converges in the digest's counts.
START_TEST( t10_alpha_zero_and_small_alpha )
{
    const cnSolverVTable* amgs = cnFindSolver( "amgs" );
    ck_assert_ptr_nonnull( amgs );
    int alphaIndex = cntParamIndex( amgs, "alpha" );
    ck_assert_int_ge( alphaIndex, 0 );
    const cnSolverParam* alpha = amgs->params + alphaIndex;
    char message[256] = "";
    ck_assert_int_ne( cnCheckSolverParam( alpha, 0.0, message, sizeof( message ) ), cn_statusOk );
    ck_assert_msg( strstr( message, "alpha" ) != NULL && strstr( message, "0.02" ) != NULL, "message: %s",
                   message );
    printf( "T10 alpha = 0: \"%s\"\n", message );
    double value = -1.0;
    message[0] = '\0';
    ck_assert_int_ne( cnParseSolverParam( alpha, "0", &value, message, sizeof( message ) ), cn_statusOk );
    ck_assert_msg( strstr( message, "alpha" ) != NULL && strstr( message, "0.02" ) != NULL, "message: %s",
                   message );
    ck_assert_int_eq( cnCheckSolverParam( alpha, 0.02, NULL, 0 ), cn_statusOk );
    ck_assert_int_eq( cnParseSolverParam( alpha, "0.02", &value, NULL, 0 ), cn_statusOk );
    ck_assert( value == 0.02 );

    cntScene pool = cntMakeScene( cnt_poolEqual, false );
    cntScene pyramid = cntMakeScene( cnt_pyramidGraded, false );
    double* lambda = calloc( (size_t)pool.m, sizeof( double ) );

    // alpha 0.02 through the layer
    int poolCount = cntCount( &pool, 0.02, 115, 20000, lambda );
    int pyramidCount = cntCount( &pyramid, 0.02, 222, 20000, lambda );
    printf( "T10 alpha 0.02: %s %d sweeps (digest 115), %s %d (digest 222)\n", s_sceneNames[cnt_poolEqual],
            poolCount, s_sceneNames[cnt_pyramidGraded], pyramidCount );
    ck_assert_msg( cntCountMatches( poolCount, 115 ), "alpha 0.02 on the pile: %d sweeps", poolCount );
    ck_assert_msg( cntCountMatches( pyramidCount, 222 ), "alpha 0.02 on the graded pyramid: %d sweeps",
                   pyramidCount );

    // alpha gamma = 0.02: refused, lambda untouched; 0.04 is taken
    for ( int i = 0; i < pool.m; ++i )
    {
        lambda[i] = 0.25 + 1e-3 * i;
    }
    cntSetting settings[4];
    int count = cntAmgsSettings( 0.02, 1.0, 0, 0, settings );
    cnSolverStats stats = cntRun( "amgs", pool.lcp, 10, settings, count, lambda );
    ck_assert_int_eq( stats.status, cn_solveUnsupported );
    ck_assert_ptr_nonnull( stats.reason );
    ck_assert_msg( strstr( stats.reason, "0.04" ) != NULL, "reason: %s", stats.reason );
    printf( "T10 alpha 0.02, gamma 1: %s, \"%s\"\n", cnSolveStatusName( stats.status ), stats.reason );
    for ( int i = 0; i < pool.m; ++i )
    {
        ck_assert( lambda[i] == 0.25 + 1e-3 * i );
    }
    count = cntAmgsSettings( 0.04, 1.0, 0, 0, settings );
    stats = cntRun( "amgs", pool.lcp, 10, settings, count, lambda );
    ck_assert_int_eq( stats.status, cn_solveMaxIterations );

    // the kernel: alpha 0 stalls; alpha 0.02 as the layer, 0.01 as the digest
    double smallest = 0.0;
    double last = 0.0;
    int first = cntKernelCount( &pool, 2.0, 1500, &smallest, &last );
    printf( "T10 kernel alpha 0, %s: RES after 1500 sweeps %.3g (digest 1.0e-1), smallest %.3g\n",
            s_sceneNames[cnt_poolEqual], last, smallest );
    ck_assert_msg( first < 0 && smallest >= CNT_TARGET, "alpha 0 on the pile reached RES %g", smallest );
    first = cntKernelCount( &pyramid, 2.0, 1500, &smallest, &last );
    printf( "T10 kernel alpha 0, %s: RES after 1500 sweeps %.3g (digest 3.5), smallest %.3g\n",
            s_sceneNames[cnt_pyramidGraded], last, smallest );
    ck_assert_msg( first < 0 && smallest >= CNT_TARGET, "alpha 0 on the graded pyramid reached RES %g",
                   smallest );

    int kernelPool = cntKernelCount( &pool, 2.0 / ( 1.0 + 2.0 * 0.02 ), 400, &smallest, &last );
    int kernelPyramid = cntKernelCount( &pyramid, 2.0 / ( 1.0 + 2.0 * 0.02 ), 800, &smallest, &last );
    ck_assert_int_eq( kernelPool, poolCount );
    ck_assert_int_eq( kernelPyramid, pyramidCount );
    kernelPool = cntKernelCount( &pool, 2.0 / ( 1.0 + 2.0 * 0.01 ), 800, &smallest, &last );
    kernelPyramid = cntKernelCount( &pyramid, 2.0 / ( 1.0 + 2.0 * 0.01 ), 1600, &smallest, &last );
    printf( "T10 kernel alpha 0.01: %s %d sweeps (digest 209), %s %d (digest 436)\n",
            s_sceneNames[cnt_poolEqual], kernelPool, s_sceneNames[cnt_pyramidGraded], kernelPyramid );
    ck_assert_msg( cntCountMatches( kernelPool, 209 ), "alpha 0.01 on the pile: %d sweeps", kernelPool );
    ck_assert_msg( cntCountMatches( kernelPyramid, 436 ), "alpha 0.01 on the graded pyramid: %d sweeps",
                   kernelPyramid );

    free( lambda );
    cntFreeScene( &pool );
    cntFreeScene( &pyramid );
}
END_TEST

Suite* cntAmgsSuite( void );

Suite* cntAmgsSuite( void )
{
    Suite* suite = suite_create( "amgs" );
    TCase* equivalence = tcase_create( "equivalence" );
    tcase_add_loop_test( equivalence, t1_alpha_one_over_gamma_is_pgs, 0, cnt_sceneCount );
    tcase_add_loop_test( equivalence, t2_x_form_method_2_2_matches, 0, cnt_sceneCount );
    tcase_add_loop_test( equivalence, t3_gamma_invariance, 0, cnt_sceneCount );
    tcase_add_loop_test( equivalence, t4_stack_is_psor, cnt_stackEqual, cnt_stackGraded + 1 );
    tcase_add_loop_test( equivalence, t5_bounded_rows, 0, 2 );
    tcase_add_loop_test( equivalence, t6_theorem_2_1_round_trip, 0, cnt_sceneCount );
    suite_add_tcase( suite, equivalence );
    TCase* counts = tcase_create( "counts" );
    tcase_add_loop_test( counts, t7_sweep_counts, 0, cnt_sceneCount );
    tcase_add_loop_test( counts, t9_alpha_0_6_slower_than_pgs, 0, cnt_sceneCount );
    tcase_add_loop_test( counts, t9_mean_e_against_pgs, 0, cnt_sceneCount );
    tcase_add_test( counts, t10_alpha_zero_and_small_alpha );
    suite_add_tcase( suite, counts );
    return suite;
}

int main( void )
{
    setvbuf( stdout, NULL, _IOLBF, 0 ); // the measured numbers survive a failing test's exit
    cntSuiteFcn* suites[] = { cntAmgsSuite };
    return cntRunSuites( suites, 1 );
}
