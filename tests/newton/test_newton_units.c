// SPDX-License-Identifier: MIT
// The building blocks of the Newton methods, white-box: solver_newton.c is included here (its two
// vtables renamed, a trace of theta per step switched on), so that the row functions, the
// Jacobian products, the line search and the inexact step can be checked one by one (the digest's
// tests U1-U5), and the copies of the solvers report theta per step to the problem-class tests.
// The Krylov solvers (krylov.h) against dense elimination.
#include "arena.h"
#include "solver_layer.h"
#include "test_support.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

double cntNtTheta[1024];
int cntNtTraceCount = 0;

static void cntNtTraceAdd( int iteration, double theta )
{
    if ( iteration >= 0 && iteration < 1024 )
    {
        cntNtTheta[iteration] = theta;
        cntNtTraceCount = iteration + 1;
    }
}

#define CN_NT_TRACE( iteration, theta ) cntNtTraceAdd( ( iteration ), ( theta ) )
#define cn_newtonMinmapSolver           cntNewtonMinmapVTable
#define cn_newtonFbSolver               cntNewtonFbVTable
#include "../../solvers/solver_newton.c"
#undef cn_newtonMinmapSolver
#undef cn_newtonFbSolver

#include "newton_suites.h"

const cnSolverVTable* cntNewtonMinmapCopy( void )
{
    return &cntNewtonMinmapVTable;
}

const cnSolverVTable* cntNewtonFbCopy( void )
{
    return &cntNewtonFbVTable;
}

void cntNtTraceReset( void )
{
    cntNtTraceCount = 0;
}

int cntNtFirstBelow( double epsilon )
{
    for ( int k = 0; k < cntNtTraceCount; ++k )
    {
        if ( cntNtTheta[k] < epsilon )
        {
            return k;
        }
    }
    return -1;
}

void cntNtParams( const cnSolverVTable* solver, double* params, ... )
{
    for ( int k = 0; k < solver->paramCount; ++k )
    {
        params[k] = solver->params[k].defaultValue;
    }
    va_list list;
    va_start( list, params );
    for ( const char* name = va_arg( list, const char* ); name != NULL; name = va_arg( list, const char* ) )
    {
        double value = va_arg( list, double );
        int index = cnFindSolverParam( solver, name );
        ck_assert_msg( index >= 0, "no parameter %s", name );
        params[index] = value;
    }
    va_end( list );
}

cnSolverStats cntNtSolve( const cnSolverVTable* solver, cntLcp* lcp, double* lambda, double* dv,
                          const double* params )
{
    cntNtTraceReset();
    return cntSolveWithParams( solver, &lcp->problem, lambda, dv, params, NULL, 0 );
}

// ---- a cnNewton on its own, for the products ------------------------------------------------------------

typedef struct cntNt
{
    cnNewton nt;
    cnArena arena;
    cnPrepared* prepared;
    double* memory;
    int* subset;
} cntNt;

static void cntNtCreate( cntNt* t, cntLcp* lcp, bool fb, int strategy, bool scaling )
{
    memset( t, 0, sizeof( *t ) );
    cnCreateArena( &t->arena, NULL, 1024 );
    const char* why = NULL;
    t->prepared = cnLayerPrepare( &lcp->problem, &t->arena, &why );
    ck_assert_msg( t->prepared != NULL, "%s", why != NULL ? why : "" );
    int n = lcp->problem.rowCount;
    t->memory = calloc( (size_t)( 20 * n + 6 * lcp->problem.bodyCount + 6 ), sizeof( double ) );
    t->subset = calloc( (size_t)n + 1, sizeof( int ) );
    double* at = t->memory;
    cnNewton* nt = &t->nt;
    nt->problem = &lcp->problem;
    nt->prepared = t->prepared;
    nt->n = n;
    nt->fb = fb;
    nt->strategy = strategy;
    nt->random = 12345;
    nt->subset = t->subset;
    double** fields[] = {
        &nt->scale,   &nt->point.x, &nt->point.w,   &nt->point.low,  &nt->point.high, &nt->point.h,
        &nt->trial.x, &nt->trial.w, &nt->trial.low, &nt->trial.high, &nt->trial.h,    &nt->ja,
        &nt->jc,      &nt->jg,      &nt->product,   &nt->padded,     &nt->padOut,     &nt->subsetDiagonal };
    for ( size_t k = 0; k < sizeof( fields ) / sizeof( fields[0] ); ++k )
    {
        *fields[k] = at;
        at += n;
    }
    nt->velocity = at;
    for ( int i = 0; i < n; ++i )
    {
        double d = t->prepared->diagonal[i];
        nt->scale[i] = scaling && d > 0.0 && isfinite( d ) ? d : 1.0;
    }
}

static void cntNtDestroy( cntNt* t )
{
    free( t->memory );
    free( t->subset );
    cnDestroyArena( &t->arena );
}

static const double s_n[3] = { 0, 0, 1 };
static const double s_t1[3] = { 1, 0, 0 };
static const double s_t2[3] = { 0, 1, 0 };

// Two free bodies over static ground: two contacts with friction (mu 0.6), one between the
// bodies, a bounded row [-0.3, 0.4], a lower-only row [-0.2, inf), an upper-only row (-inf, 0.5], a
// free row: every kind of row the box functions distinguish (13 rows).
static cntLcp* cntNtMixedProblem( cntRandom* random )
{
    cntLcp* lcp = cntCreateLcp( 16, 2 );
    int a = cntAddBody( lcp, 1.3, 4.0, 5.0, 6.0, 0.1, -0.2, -1.0 );
    int b = cntAddBody( lcp, 0.7, 3.0, 2.0, 7.0, -0.3, 0.2, -0.5 );
    double rA[3] = { 0.2, -0.1, -0.5 };
    double rB[3] = { -0.3, 0.25, -0.4 };
    double zero[3] = { 0, 0, 0 };
    cntAddContact( lcp, -1, a, zero, rA, s_n, s_t1, s_t2, 0.6, true );
    cntAddContact( lcp, -1, b, zero, rB, s_n, s_t1, s_t2, 0.6, true );
    double rAB[3] = { 0.1, 0.3, 0.5 };
    cntAddContact( lcp, a, b, rAB, rB, s_n, s_t1, s_t2, 0.6, true );
    double bounds[4][2] = { { -0.3, 0.4 }, { -0.2, INFINITY }, { -INFINITY, 0.5 }, { -INFINITY, INFINITY } };
    for ( int k = 0; k < 4; ++k )
    {
        double ja[6], jb[6];
        for ( int j = 0; j < 6; ++j )
        {
            ja[j] = cntRange( random, -1.0, 1.0 );
            jb[j] = cntRange( random, -1.0, 1.0 );
        }
        int row = cntAddRow( lcp, cn_rowBounded, a, b, ja, jb );
        lcp->lower[row] = bounds[k][0];
        lcp->upper[row] = bounds[k][1];
    }
    cntFinishB( lcp );
    for ( int i = 0; i < lcp->problem.rowCount; ++i )
    {
        lcp->b[i] += cntRange( random, -1.0, 1.0 );
    }
    return lcp;
}

// A random point: normals in [0.2, 1.5], other rows anywhere in [-2, 2] (in and out of bounds)
static void cntNtRandomPoint( cntRandom* random, const cnPrepared* prepared, double* x, int n )
{
    for ( int i = 0; i < n; ++i )
    {
        x[i] = prepared->rowKind[i] == cn_rowNormal ? cntRange( random, 0.2, 1.5 )
                                                    : cntRange( random, -2.0, 2.0 );
    }
}

// ---- U1: truth tables
// ----------------------------------------------------------------------------------------

// The roots of every row function are exactly the complementarity set of the row's box: lambda = l
// with y >= 0, l < lambda < u with y = 0, lambda = u with y <= 0 (an LCP row: lambda >= 0, y >= 0,
// lambda y = 0). On a grid including zeros and +-1e-12 and +-1e-150 (phi's value underflows to 0
// where the product of its arguments is below the smallest double, ~1e-308: not tested).
START_TEST( u1_truth_tables )
{
    static const double values[] = { -2.0,   -1.0,  -0.5, -1e-12, -1e-150, 0.0,
                                     1e-150, 1e-12, 0.5,  1.0,    2.0,     3.0 };
    const int count = (int)( sizeof( values ) / sizeof( values[0] ) );
    static const double boxes[][2] = { { 0.0, INFINITY },       { -1.0, 2.0 }, { -INFINITY, 1.0 },
                                       { -INFINITY, INFINITY }, { 0.5, 0.5 },  { -0.5, INFINITY } };
    int wrong = 0, checked = 0;
    for ( size_t box = 0; box < sizeof( boxes ) / sizeof( boxes[0] ); ++box )
    {
        double l = boxes[box][0], u = boxes[box][1];
        for ( int p = 0; p < count; ++p )
        {
            for ( int q = 0; q < count; ++q )
            {
                double x = values[p], y = values[q];
                bool solution =
                    ( x == l && y >= 0.0 ) || ( x > l && x < u && y == 0.0 ) || ( x == u && y <= 0.0 );
                // a row with l == u: any y
                solution = solution || ( l == u && x == l );
                double h = cnNtMinMapRow( x, y, l, u ).value;
                double f = cnNtFbRow( x, y, l, u, cn_strategyZero, NULL ).value;
                wrong += ( h == 0.0 ) != solution;
                wrong += ( f == 0.0 ) != solution;
                wrong += !isfinite( h ) || !isfinite( f );
                checked += 2;
            }
        }
    }
    ck_assert_msg( wrong == 0, "%d of %d row values disagree with the complementarity set", wrong, checked );

    // the LCP row: min-map is min(x, y); phi's sign table (the negative of the notes' table)
    for ( int p = 0; p < count; ++p )
    {
        for ( int q = 0; q < count; ++q )
        {
            double x = values[p], y = values[q];
            ck_assert( cnNtMinMapRow( x, y, 0.0, INFINITY ).value == fmin( x, y ) );
            double f = cnNtPhi( x, y );
            if ( x < 0.0 || y < 0.0 )
            {
                ck_assert_msg( f < 0.0, "phi(%g, %g) = %g", x, y, f );
            }
            else if ( x > 0.0 && y > 0.0 )
            {
                ck_assert_msg( f > 0.0, "phi(%g, %g) = %g", x, y, f );
            }
            else
            {
                ck_assert_msg( f == 0.0, "phi(%g, %g) = %g", x, y, f );
            }
        }
    }
}
END_TEST

// ---- U2: Jacobian rows against central differences --------------------------------------------------------

// d H / d lambda_j by central differences (unprojected points), column j
static void cntNtCentral( cntNt* t, const double* x, int j, double step, double* column )
{
    cnNewton* nt = &t->nt;
    int n = nt->n;
    double* plus = malloc( (size_t)n * sizeof( double ) );
    memcpy( nt->trial.x, x, (size_t)n * sizeof( double ) );
    nt->trial.x[j] += step;
    cnNtEvaluate( nt, &nt->trial );
    memcpy( plus, nt->trial.h, (size_t)n * sizeof( double ) );
    memcpy( nt->trial.x, x, (size_t)n * sizeof( double ) );
    nt->trial.x[j] -= step;
    cnNtEvaluate( nt, &nt->trial );
    for ( int i = 0; i < n; ++i )
    {
        column[i] = ( plus[i] - nt->trial.h[i] ) / ( 2.0 * step );
    }
    free( plus );
}

// At 20 random points of the mixed problem (friction, box, one-sided and free rows), every column
// J e_j of the exact product matches central differences (step 1e-6) to 1e-6, for min-map and FB,
// with and without the diagonal scaling. The kink strategies give (p, q) in the unit disc.
START_TEST( u2_jacobian_rows_match_central_differences )
{
    cntRandom random = { 21 };
    double worst = 0.0;
    int columns = 0;
    for ( int variant = 0; variant < 4; ++variant )
    {
        bool fb = variant % 2 == 1;
        bool scaling = variant < 2;
        cntLcp* lcp = cntNtMixedProblem( &random );
        cntNt t;
        cntNtCreate( &t, lcp, fb, cn_strategyPerturbation, scaling );
        int n = t.nt.n;
        double* e = calloc( (size_t)n, sizeof( double ) );
        double* exact = calloc( (size_t)n, sizeof( double ) );
        double* central = calloc( (size_t)n, sizeof( double ) );
        for ( int point = 0; point < 20; ++point )
        {
            cntNtRandomPoint( &random, t.prepared, t.nt.point.x, n );
            cnNtEvaluate( &t.nt, &t.nt.point );
            cnNtJacobian( &t.nt );
            for ( int j = 0; j < n; ++j )
            {
                memset( e, 0, (size_t)n * sizeof( double ) );
                e[j] = 1.0;
                cnNtJv( &t.nt, e, exact );
                cntNtCentral( &t, t.nt.point.x, j, 1e-6, central );
                for ( int i = 0; i < n; ++i )
                {
                    double error = fabs( exact[i] - central[i] ) / fmax( 1.0, fabs( exact[i] ) );
                    worst = fmax( worst, error );
                }
                columns += 1;
            }
        }
        free( e );
        free( exact );
        free( central );
        cntNtDestroy( &t );
        cntDestroyLcp( lcp );
    }
    ck_assert_msg( worst <= 1e-6, "largest relative difference %g over %d columns", worst, columns );

    for ( int strategy = 0; strategy < cn_strategyApproximation; ++strategy )
    {
        uint64_t state = 99;
        for ( int k = 0; k < 100; ++k )
        {
            double da, db;
            cnNtPhiPartials( 0.0, 0.0, strategy, &state, &da, &db );
            ck_assert_msg( hypot( 1.0 - da, 1.0 - db ) <= 1.0 + 1e-15, "strategy %d: (%g, %g)", strategy, da,
                           db );
        }
    }
}
END_TEST

// ---- U3: matrix-free products against the assembled Jacobian ---------------------------------------------

// J v and J^T u from the products against J assembled from the dense A and the coefficients
// (J_ij = a_i d_ij + c_i A_ij / s_i + g_i d_j,normal(i)): agreement to 1e-14 relative; the
// finite-difference product (approximation strategy) to 1e-6.
START_TEST( u3_matrix_free_products_match_the_assembled_jacobian )
{
    cntRandom random = { 33 };
    double worstExact = 0.0, worstTranspose = 0.0, worstFd = 0.0;
    for ( int variant = 0; variant < 2; ++variant )
    {
        cntLcp* lcp = cntNtMixedProblem( &random );
        cntNt t;
        cntNtCreate( &t, lcp, variant == 1, cn_strategyPerturbation, true );
        int n = t.nt.n;
        double* dense = cnBuildDenseMatrix( &lcp->problem, &t.arena );
        ck_assert_ptr_nonnull( dense );
        double* jm = calloc( (size_t)( n * n ), sizeof( double ) );
        double* v = calloc( (size_t)n, sizeof( double ) );
        double* out = calloc( (size_t)n, sizeof( double ) );
        for ( int point = 0; point < 10; ++point )
        {
            cntNtRandomPoint( &random, t.prepared, t.nt.point.x, n );
            cnNtEvaluate( &t.nt, &t.nt.point );
            cnNtJacobian( &t.nt );
            for ( int i = 0; i < n; ++i )
            {
                for ( int j = 0; j < n; ++j )
                {
                    jm[i * n + j] = t.nt.jc[i] * dense[i * n + j] / t.nt.scale[i];
                }
                jm[i * n + i] += t.nt.ja[i];
                if ( t.prepared->normalRow[i] >= 0 )
                {
                    jm[i * n + t.prepared->normalRow[i]] += t.nt.jg[i];
                }
            }
            for ( int i = 0; i < n; ++i )
            {
                v[i] = cntRange( &random, -1.0, 1.0 );
            }
            double scale = 0.0;
            cnNtJv( &t.nt, v, out );
            for ( int i = 0; i < n; ++i )
            {
                double sum = 0.0, size = 0.0;
                for ( int j = 0; j < n; ++j )
                {
                    sum += jm[i * n + j] * v[j];
                    size += fabs( jm[i * n + j] * v[j] );
                }
                scale = fmax( scale, size );
                worstExact = fmax( worstExact, fabs( out[i] - sum ) / fmax( size, 1e-300 ) );
            }
            cnNtJtv( &t.nt, v, out );
            for ( int j = 0; j < n; ++j )
            {
                double sum = 0.0, size = 0.0;
                for ( int i = 0; i < n; ++i )
                {
                    sum += jm[i * n + j] * v[i];
                    size += fabs( jm[i * n + j] * v[i] );
                }
                worstTranspose = fmax( worstTranspose, fabs( out[j] - sum ) / fmax( size, 1e-300 ) );
            }
            cnNtJvFiniteDifference( &t.nt, v, out );
            for ( int i = 0; i < n; ++i )
            {
                double sum = 0.0;
                for ( int j = 0; j < n; ++j )
                {
                    sum += jm[i * n + j] * v[j];
                }
                worstFd = fmax( worstFd, fabs( out[i] - sum ) / fmax( scale, 1.0 ) );
            }
        }
        free( jm );
        free( v );
        free( out );
        cntNtDestroy( &t );
        cntDestroyLcp( lcp );
    }
    ck_assert_msg( worstExact <= 1e-14, "J v: %g", worstExact );
    ck_assert_msg( worstTranspose <= 1e-14, "J^T u: %g", worstTranspose );
    ck_assert_msg( worstFd <= 1e-6, "finite-difference J v: %g", worstFd );
}
END_TEST

// ---- U4: the projected line search ----------------------------------------------------------------------

// From 50 random points, along the Newton direction (gmres) or a random direction: the search
// either accepts a tau with theta(x_tau) <= theta + alpha tau slope, or reports tau below 1e-12;
// x_tau lies within its bounds (normals >= 0, tangents within +-mu of their projected normal, the
// box rows in their boxes).
START_TEST( u4_line_search_is_armijo_and_stays_in_bounds )
{
    cntRandom random = { 44 };
    int accepted = 0, refused = 0, outside = 0, notArmijo = 0;
    for ( int variant = 0; variant < 2; ++variant )
    {
        cntLcp* lcp = cntNtMixedProblem( &random );
        cntNt t;
        cntNtCreate( &t, lcp, variant == 1, cn_strategyPerturbation, true );
        int n = t.nt.n;
        double* dx = calloc( (size_t)n, sizeof( double ) );
        double* jdx = calloc( (size_t)n, sizeof( double ) );
        for ( int point = 0; point < 50; ++point )
        {
            cntNtRandomPoint( &random, t.prepared, t.nt.point.x, n );
            cnNtProject( &t.nt, t.nt.point.x );
            double theta = cnNtEvaluate( &t.nt, &t.nt.point );
            cnNtJacobian( &t.nt );
            for ( int i = 0; i < n; ++i )
            {
                dx[i] = cntRange( &random, -1.0, 1.0 );
            }
            cnNtJv( &t.nt, dx, jdx );
            double slope = 0.0;
            for ( int i = 0; i < n; ++i )
            {
                slope += t.nt.point.h[i] * jdx[i];
            }
            if ( slope > 0.0 )
            {
                for ( int i = 0; i < n; ++i )
                {
                    dx[i] = -dx[i];
                }
                slope = -slope;
            }
            double tau = 0.0;
            bool ok = cnNtLineSearch( &t.nt, dx, slope, 1e-4, 0.5, &tau );
            double trial = t.nt.trial.theta;
            if ( ok && tau >= CN_NT_TAU_MIN )
            {
                accepted += 1;
                notArmijo += !( trial <= theta + 1e-4 * tau * slope );
            }
            else
            {
                refused += 1;
                notArmijo += !( tau < CN_NT_TAU_MIN );
            }
            for ( int i = 0; i < n; ++i )
            {
                double low, high;
                cnRowBounds( &lcp->problem, t.prepared, t.nt.trial.x, i, &low, &high );
                outside += t.nt.trial.x[i] < low || t.nt.trial.x[i] > high;
            }
        }
        free( dx );
        free( jdx );
        cntNtDestroy( &t );
        cntDestroyLcp( lcp );
    }
    ck_assert_int_eq( notArmijo, 0 );
    ck_assert_int_eq( outside, 0 );
    ck_assert_int_gt( accepted, 80 );
    (void)refused;
}
END_TEST

// ---- U5: the inexact step descends --------------------------------------------------------------------

// GMRES stopped at |J dx + H| <= 0.5 |H| on the exact Jacobian (non-symmetric with friction) at 50
// random points of each method: H^T J dx < 0 every time (Erleben's theorem 5.2).
START_TEST( u5_inexact_step_with_gamma_half_descends )
{
    cntRandom random = { 55 };
    int notDescent = 0, unconverged = 0, total = 0;
    for ( int variant = 0; variant < 2; ++variant )
    {
        cntLcp* lcp = cntNtMixedProblem( &random );
        cntNt t;
        cntNtCreate( &t, lcp, variant == 1, cn_strategyPerturbation, true );
        int n = t.nt.n;
        double* dx = calloc( (size_t)n, sizeof( double ) );
        double* rhs = calloc( (size_t)n, sizeof( double ) );
        double* jdx = calloc( (size_t)n, sizeof( double ) );
        double* work = calloc( (size_t)cnGmresWorkSize( n, n ), sizeof( double ) );
        for ( int point = 0; point < 50; ++point )
        {
            cntNtRandomPoint( &random, t.prepared, t.nt.point.x, n );
            cnNtProject( &t.nt, t.nt.point.x );
            cnNtEvaluate( &t.nt, &t.nt.point );
            cnNtJacobian( &t.nt );
            for ( int i = 0; i < n; ++i )
            {
                rhs[i] = -t.nt.point.h[i];
                dx[i] = 0.0;
            }
            cnKrylovResult kr = cnGmres( cnNtApplyJacobian, &t.nt, rhs, dx, n, n, 0.5, 4 * n, work );
            unconverged += !kr.converged;
            cnNtJv( &t.nt, dx, jdx );
            double slope = 0.0, residual = 0.0, size = 0.0;
            for ( int i = 0; i < n; ++i )
            {
                slope += t.nt.point.h[i] * jdx[i];
                residual += ( jdx[i] + t.nt.point.h[i] ) * ( jdx[i] + t.nt.point.h[i] );
                size += t.nt.point.h[i] * t.nt.point.h[i];
            }
            if ( kr.converged )
            {
                ck_assert( sqrt( residual ) <= 0.5 * sqrt( size ) * ( 1.0 + 1e-12 ) );
                notDescent += !( slope < 0.0 );
            }
            total += 1;
        }
        free( dx );
        free( rhs );
        free( jdx );
        free( work );
        cntNtDestroy( &t );
        cntDestroyLcp( lcp );
    }
    ck_assert_msg( notDescent == 0, "%d of %d inexact steps do not descend", notDescent, total );
    ck_assert_msg( unconverged <= total / 10, "GMRES missed gamma = 0.5 on %d of %d", unconverged, total );
}
END_TEST

// ---- the Krylov solvers -----------------------------------------------------------------------------------

typedef struct cntDenseOp
{
    const double* m;
    int n;
} cntDenseOp;

static void cntDenseApply( void* context, const double* x, double* y )
{
    const cntDenseOp* op = context;
    for ( int i = 0; i < op->n; ++i )
    {
        double sum = 0.0;
        for ( int j = 0; j < op->n; ++j )
        {
            sum += op->m[i * op->n + j] * x[j];
        }
        y[i] = sum;
    }
}

// PCG on a random SPD system (n = 40, condition ~100) and GMRES(10) on a random non-symmetric one
// meet 1e-10 relative residual, and the true residual agrees; a zero right-hand side returns x = 0
// at once; PCG on an indefinite matrix reports the breakdown instead of a NaN.
START_TEST( krylov_solvers_reach_their_tolerance )
{
    enum
    {
        n = 40
    };
    cntRandom random = { 66 };
    static double m[n * n], g[n * n], x[n], rhs[n], y[n];
    for ( int i = 0; i < n * n; ++i )
    {
        g[i] = cntRange( &random, -1.0, 1.0 );
    }
    for ( int i = 0; i < n; ++i )
    {
        for ( int j = 0; j < n; ++j )
        {
            double sum = 0.0;
            for ( int k = 0; k < n; ++k )
            {
                sum += g[i * n + k] * g[j * n + k];
            }
            m[i * n + j] = sum / n + ( i == j ? 0.05 * ( 1 + i ) : 0.0 );
        }
        rhs[i] = cntRange( &random, -1.0, 1.0 );
    }
    cntDenseOp op = { m, n };
    double diagonal[n];
    for ( int i = 0; i < n; ++i )
    {
        diagonal[i] = m[i * n + i];
        x[i] = 0.0;
    }
    double* work = calloc( (size_t)cnGmresWorkSize( n, 10 ), sizeof( double ) );
    cnKrylovResult r = cnPcg( cntDenseApply, &op, diagonal, rhs, x, n, 1e-10, 1000, work );
    ck_assert( r.converged && r.finite && !r.breakdown );
    cntDenseApply( &op, x, y );
    double res = 0.0, size = 0.0;
    for ( int i = 0; i < n; ++i )
    {
        res += ( y[i] - rhs[i] ) * ( y[i] - rhs[i] );
        size += rhs[i] * rhs[i];
    }
    ck_assert_msg( sqrt( res / size ) <= 1e-10, "PCG residual %g", sqrt( res / size ) );

    // non-symmetric: I + g / 4
    for ( int i = 0; i < n * n; ++i )
    {
        m[i] = g[i] / 4.0 + ( i % ( n + 1 ) == 0 ? 1.0 : 0.0 );
    }
    memset( x, 0, sizeof( x ) );
    r = cnGmres( cntDenseApply, &op, rhs, x, n, 10, 1e-10, 2000, work );
    ck_assert( r.converged && r.finite );
    cntDenseApply( &op, x, y );
    res = 0.0;
    for ( int i = 0; i < n; ++i )
    {
        res += ( y[i] - rhs[i] ) * ( y[i] - rhs[i] );
    }
    ck_assert_msg( sqrt( res / size ) <= 1e-10, "GMRES residual %g after %d", sqrt( res / size ),
                   r.iterations );

    double zero[n] = { 0 };
    for ( int i = 0; i < n; ++i )
    {
        x[i] = 1.0;
    }
    r = cnGmres( cntDenseApply, &op, zero, x, n, 10, 1e-10, 100, work );
    ck_assert( r.converged && r.iterations == 0 && x[0] == 0.0 );

    // -I: PCG stops at the first direction
    memset( m, 0, sizeof( m ) );
    for ( int i = 0; i < n; ++i )
    {
        m[i * n + i] = -1.0;
        x[i] = 0.0;
    }
    r = cnPcg( cntDenseApply, &op, NULL, rhs, x, n, 1e-10, 100, work );
    ck_assert( r.breakdown && !r.converged );
    for ( int i = 0; i < n; ++i )
    {
        ck_assert( isfinite( x[i] ) );
    }
    free( work );
}
END_TEST

Suite* cntNewtonUnitsSuite( void )
{
    Suite* suite = suite_create( "newton_units" );
    TCase* tc = tcase_create( "units" );
    tcase_set_timeout( tc, 60 );
    tcase_add_test( tc, u1_truth_tables );
    tcase_add_test( tc, u2_jacobian_rows_match_central_differences );
    tcase_add_test( tc, u3_matrix_free_products_match_the_assembled_jacobian );
    tcase_add_test( tc, u4_line_search_is_armijo_and_stays_in_bounds );
    tcase_add_test( tc, u5_inexact_step_with_gamma_half_descends );
    tcase_add_test( tc, krylov_solvers_reach_their_tolerance );
    suite_add_tcase( suite, tc );
    return suite;
}
