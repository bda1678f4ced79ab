// SPDX-License-Identifier: MIT
// Lemke's complementary pivoting (Cottle, Pang and Stone, 4.4; Erleben's notes 3.3) for the LCP
//     w = A z + b,   0 <= z  complementary to  w >= 0,
// on the dense A, with covering vector d = 1 and the lexicographic ratio test (no cycling on
// degenerate problems). The tableau is kept as an explicit basis inverse: O(n^2) per pivot.
//
// Outcomes:
// - cn_solveConverged: the artificial variable z0 left the basis and the complementary basic
//   solution (refined by two steps of iterative refinement) solves the LCP to 1e-6 relative
//   (cnLemkeSolves; an ill-conditioned basis can fail that, and then counts as a ray). Also for
//   b >= 0 (lambda = 0, no pivot).
// - after ray termination (no positive entry in the entering column) with each of three covering
//   vectors in turn (1, then 1 + i/n, then 2 - i/n; a ray with one vector does not rule out a
//   solution the others reach, e.g. Siconos' lcp_tobenna needs the second), a problem of at most
//   CN_LEMKE_ENUMERATE_MAX rows is settled by trying every complementary basis (2^n linear solves):
//   cn_solveConverged with the first solution found, or cn_solveNoSolution, which is then a proof.
//   Siconos' lcp_CPS_3 (zero diagonal blocks: a ray at the second pivot for any covering vector)
//   is solved this way.
// - cn_solveNoSolution on a larger problem: the rays alone. For a copositive-plus A (e.g. positive
//   semi-definite) this proves that the LCP has no solution; for other matrices it only means that
//   Lemke could not reach one. lambda is the z part of the last almost-complementary basis.
// - cn_solveMaxIterations: the pivot limit ("iterations") came first; lambda as above.
// - cn_solveNonFinite: NaN or infinity in A or b (lambda = 0), or a pivot produced one.
// - cn_solveUnsupported, lambda untouched: friction or bounded rows (Lemke solves LCPs only; the
//   layer refuses them from its capabilities), more rows than the dense limit (4096), or out of
//   memory.
// "warm_start" is accepted and ignored: Lemke always starts cold from z = 0.

#include "solver_kit.h"

#include <math.h>
#include <string.h>

enum
{
    cn_lemkeParamIterations = 0,
    cn_lemkeParamPivotTolerance,
    cn_lemkeParamWarmStart,
    cn_lemkeParamRegularization,
    cn_lemkeParamCount,
};

static const cnSolverParam cn_lemkeParams[cn_lemkeParamCount] = {
    { "iterations", "pivot limit", 1000.0, 1.0, 10000000.0, cn_paramInteger, NULL, 0 },
    { "pivot_tolerance",
      "an entry of the entering column is a pivot candidate when it exceeds this times its round-off scale",
      1e-12, 0.0, 1e-3, cn_paramNumber, NULL, 0 },
    { "warm_start", "ignored: Lemke always starts cold from lambda = 0", 0.0, 0.0, 1.0, cn_paramToggle, NULL,
      0 },
    { "regularization",
      "a problem whose pivoting ends without a solution is solved again with A_ii (1 + this), the "
      "semi-definite A of redundant contacts made definite; its answer counts only where it solves "
      "the problem as given",
      1e-9, 0.0, 1e-3, cn_paramNumber, NULL, 0 },
};

// the dense matrix and the basis inverse are n x n each
#define CN_LEMKE_MAX_ROWS 4096
// covering vectors tried in turn after a ray termination: 1, then 1 + i/n, then 2 - i/n
#define CN_LEMKE_ATTEMPTS 3
// after the rays, problems up to this size are settled by enumerating the complementary bases
#define CN_LEMKE_ENUMERATE_MAX 12
// components of the lexicographic ratio test closer than this (relative) are ties
#define CN_LEMKE_TIE 1e-12

typedef struct cnLemke
{
    int n;
    const double* a; // A, row major
    const double* b;
    const double* cover; // covering vector d > 0
    double* inverse;     // B^-1, row major
    double* x;           // basic values
    double* column;      // B^-1 times the entering column
    double* scale;       // round-off scale of each entry of `column`
    int* basis;          // variable in each row: w_i = i, z_j = n + j, z0 = 2n
    int* candidates;
} cnLemke;

// Entry k of the original column of `variable` in [I, -A, -d] x = b.
static double cnLemkeEntry( const cnLemke* lemke, int variable, int k )
{
    int n = lemke->n;
    if ( variable < n )
    {
        return variable == k ? 1.0 : 0.0;
    }
    if ( variable < 2 * n )
    {
        return -lemke->a[(size_t)k * (size_t)n + (size_t)( variable - n )];
    }
    return -lemke->cover[k];
}

// column = B^-1 (original column of `variable`), scale_i = sum_k |B^-1_ik| |column_k|.
static void cnLemkeColumn( cnLemke* lemke, int variable )
{
    int n = lemke->n;
    if ( variable < n )
    {
        for ( int i = 0; i < n; ++i )
        {
            double v = lemke->inverse[(size_t)i * (size_t)n + (size_t)variable];
            lemke->column[i] = v;
            lemke->scale[i] = fabs( v );
        }
        return;
    }
    for ( int i = 0; i < n; ++i )
    {
        const double* row = lemke->inverse + (size_t)i * (size_t)n;
        double sum = 0.0;
        double scale = 0.0;
        for ( int k = 0; k < n; ++k )
        {
            double entry = cnLemkeEntry( lemke, variable, k );
            sum += row[k] * entry;
            scale += fabs( row[k] * entry );
        }
        lemke->column[i] = sum;
        lemke->scale[i] = scale;
    }
}

static bool cnLemkeSame( double u, double v )
{
    return fabs( u - v ) <= CN_LEMKE_TIE * fmax( 1.0, fmax( fabs( u ), fabs( v ) ) );
}

// The leaving row by the lexicographic minimum ratio test over the rows with a positive pivot;
// -1 for a ray. The row of z0 wins a first-level tie (the method then ends).
static int cnLemkeRatioTest( cnLemke* lemke, double tolerance )
{
    int n = lemke->n;
    int count = 0;
    double best = (double)INFINITY;
    for ( int i = 0; i < n; ++i )
    {
        double pivot = lemke->column[i];
        if ( pivot > 0.0 && pivot > tolerance * lemke->scale[i] )
        {
            double ratio = fmax( lemke->x[i], 0.0 ) / pivot;
            best = fmin( best, ratio );
            lemke->candidates[count++] = i;
        }
    }
    if ( count == 0 )
    {
        return -1;
    }

    // first level: the ratio itself
    int kept = 0;
    for ( int c = 0; c < count; ++c )
    {
        int i = lemke->candidates[c];
        if ( cnLemkeSame( fmax( lemke->x[i], 0.0 ) / lemke->column[i], best ) )
        {
            if ( lemke->basis[i] == 2 * n )
            {
                return i;
            }
            lemke->candidates[kept++] = i;
        }
    }

    // then the columns of B^-1, divided by the pivot, one at a time
    for ( int k = 0; k < n && kept > 1; ++k )
    {
        double least = (double)INFINITY;
        for ( int c = 0; c < kept; ++c )
        {
            int i = lemke->candidates[c];
            least = fmin( least, lemke->inverse[(size_t)i * (size_t)n + (size_t)k] / lemke->column[i] );
        }
        int next = 0;
        for ( int c = 0; c < kept; ++c )
        {
            int i = lemke->candidates[c];
            double value = lemke->inverse[(size_t)i * (size_t)n + (size_t)k] / lemke->column[i];
            if ( fabs( value - least ) <= CN_LEMKE_TIE * fmax( fabs( value ), fabs( least ) ) )
            {
                lemke->candidates[next++] = i;
            }
        }
        kept = next;
    }
    return lemke->candidates[0];
}

// Pivot on row r with the entering column in lemke->column. False when a value is not finite.
static bool cnLemkePivot( cnLemke* lemke, int r, int entering )
{
    int n = lemke->n;
    double* pivotRow = lemke->inverse + (size_t)r * (size_t)n;
    double pivot = lemke->column[r];
    for ( int k = 0; k < n; ++k )
    {
        pivotRow[k] /= pivot;
    }
    lemke->x[r] /= pivot;
    for ( int i = 0; i < n; ++i )
    {
        double factor = lemke->column[i];
        if ( i == r || factor == 0.0 )
        {
            continue;
        }
        double* row = lemke->inverse + (size_t)i * (size_t)n;
        for ( int k = 0; k < n; ++k )
        {
            row[k] -= factor * pivotRow[k];
        }
        lemke->x[i] -= factor * lemke->x[r];
    }
    lemke->basis[r] = entering;
    bool finite = isfinite( lemke->x[r] );
    for ( int i = 0; i < n && finite; ++i )
    {
        finite = isfinite( lemke->x[i] );
    }
    return finite;
}

// |B x - b|^2 with the current basis, the residual in `residual`.
static double cnLemkeBasisResidual( const cnLemke* lemke, const double* x, double* residual )
{
    int n = lemke->n;
    for ( int k = 0; k < n; ++k )
    {
        residual[k] = lemke->b[k];
    }
    for ( int r = 0; r < n; ++r )
    {
        int variable = lemke->basis[r];
        if ( variable < n )
        {
            residual[variable] -= x[r];
        }
        else if ( variable < 2 * n )
        {
            int j = variable - n;
            for ( int k = 0; k < n; ++k )
            {
                residual[k] += lemke->a[(size_t)k * (size_t)n + (size_t)j] * x[r];
            }
        }
        else
        {
            for ( int k = 0; k < n; ++k )
            {
                residual[k] += lemke->cover[k] * x[r];
            }
        }
    }
    double sum = 0.0;
    for ( int k = 0; k < n; ++k )
    {
        sum += residual[k] * residual[k];
    }
    return sum;
}

// Two steps of iterative refinement of the basic solution: x += B^-1 (b - B x), kept while
// the basis residual falls. `work` holds 2n doubles.
static void cnLemkeRefine( cnLemke* lemke, double* work )
{
    int n = lemke->n;
    double* residual = work;
    double* trial = work + n;
    double current = cnLemkeBasisResidual( lemke, lemke->x, residual );
    for ( int step = 0; step < 2 && current > 0.0; ++step )
    {
        for ( int i = 0; i < n; ++i )
        {
            const double* row = lemke->inverse + (size_t)i * (size_t)n;
            double sum = 0.0;
            for ( int k = 0; k < n; ++k )
            {
                sum += row[k] * residual[k];
            }
            trial[i] = lemke->x[i] + sum;
        }
        double next = cnLemkeBasisResidual( lemke, trial, residual );
        if ( !( next < current ) )
        {
            break;
        }
        memcpy( lemke->x, trial, (size_t)n * sizeof( double ) );
        current = next;
    }
}

// lambda_j = the basic value of z_j (at least 0), else 0.
static void cnLemkeExtract( const cnLemke* lemke, double* lambda )
{
    int n = lemke->n;
    for ( int j = 0; j < n; ++j )
    {
        lambda[j] = 0.0;
    }
    for ( int r = 0; r < n; ++r )
    {
        int variable = lemke->basis[r];
        if ( variable >= n && variable < 2 * n )
        {
            lambda[variable - n] = fmax( lemke->x[r], 0.0 );
        }
    }
}

// Runs the pivots; returns the status and the pivot count.
static cnSolveStatus cnLemkeRun( cnLemke* lemke, int maxPivots, double tolerance, int* pivots )
{
    int n = lemke->n;
    *pivots = 0;

    // B = I: x = b; nothing to do when b >= 0
    int r = 0;
    for ( int i = 0; i < n; ++i )
    {
        lemke->x[i] = lemke->b[i];
        lemke->basis[i] = i;
        double* row = lemke->inverse + (size_t)i * (size_t)n;
        memset( row, 0, (size_t)n * sizeof( double ) );
        row[i] = 1.0;
        // the most negative b_i / d_i; among ties the last row, which keeps the tableau
        // lexico-positive
        if ( lemke->b[i] / lemke->cover[i] <= lemke->b[r] / lemke->cover[r] )
        {
            r = i;
        }
    }
    if ( n == 0 || lemke->b[r] >= 0.0 )
    {
        return cn_solveConverged;
    }

    // z0 enters at row r: afterwards x >= 0
    int entering = 2 * n;
    while ( *pivots < maxPivots )
    {
        cnLemkeColumn( lemke, entering );
        if ( *pivots > 0 )
        {
            r = cnLemkeRatioTest( lemke, tolerance );
            if ( r < 0 )
            {
                return cn_solveNoSolution;
            }
        }
        int leaving = lemke->basis[r];
        *pivots += 1;
        if ( cnLemkePivot( lemke, r, entering ) == false )
        {
            return cn_solveNonFinite;
        }
        if ( leaving == 2 * n )
        {
            return cn_solveConverged;
        }
        // the complement of the variable that left
        entering = leaving < n ? leaving + n : leaving - n;
    }
    return cn_solveMaxIterations;
}

// Solve the k x k system m x = r in place by Gaussian elimination with partial pivoting (m row
// major, overwritten; r becomes x). False when a pivot is zero.
static bool cnSolveSmall( double* m, double* r, int k )
{
    for ( int c = 0; c < k; ++c )
    {
        int best = c;
        for ( int i = c + 1; i < k; ++i )
        {
            best = fabs( m[i * k + c] ) > fabs( m[best * k + c] ) ? i : best;
        }
        if ( m[best * k + c] == 0.0 )
        {
            return false;
        }
        for ( int j = 0; j < k && best != c; ++j )
        {
            double t = m[c * k + j];
            m[c * k + j] = m[best * k + j];
            m[best * k + j] = t;
        }
        double t = r[c];
        r[c] = r[best];
        r[best] = t;
        for ( int i = c + 1; i < k; ++i )
        {
            double f = m[i * k + c] / m[c * k + c];
            for ( int j = c; j < k; ++j )
            {
                m[i * k + j] -= f * m[c * k + j];
            }
            r[i] -= f * r[c];
        }
    }
    for ( int c = k - 1; c >= 0; --c )
    {
        double sum = r[c];
        for ( int j = c + 1; j < k; ++j )
        {
            sum -= m[c * k + j] * r[j];
        }
        r[c] = sum / m[c * k + c];
    }
    return true;
}

// Every complementary basis of a small LCP: for each set S of basic z, solve A_SS z_S = -b_S and
// keep z when z >= 0 and w = A z + b >= 0 (to round-off of the data's size). True with z set when
// one is a solution.
static bool cnLemkeEnumerate( int n, const double* a, const double* b, double* z )
{
    double scale = 0.0;
    for ( int i = 0; i < n; ++i )
    {
        scale = fmax( scale, fabs( b[i] ) );
        for ( int j = 0; j < n; ++j )
        {
            scale = fmax( scale, fabs( a[i * n + j] ) );
        }
    }
    double tolerance = 1e-10 * fmax( scale, 1.0 );
    double m[CN_LEMKE_ENUMERATE_MAX * CN_LEMKE_ENUMERATE_MAX];
    double r[CN_LEMKE_ENUMERATE_MAX];
    int set[CN_LEMKE_ENUMERATE_MAX];
    for ( unsigned mask = 0; mask < ( 1u << n ); ++mask )
    {
        int k = 0;
        for ( int i = 0; i < n; ++i )
        {
            if ( mask & ( 1u << i ) )
            {
                set[k++] = i;
            }
        }
        for ( int p = 0; p < k; ++p )
        {
            r[p] = -b[set[p]];
            for ( int q = 0; q < k; ++q )
            {
                m[p * k + q] = a[set[p] * n + set[q]];
            }
        }
        if ( k > 0 && cnSolveSmall( m, r, k ) == false )
        {
            continue;
        }
        bool feasible = true;
        for ( int i = 0; i < n; ++i )
        {
            z[i] = 0.0;
        }
        for ( int p = 0; p < k && feasible; ++p )
        {
            feasible = r[p] >= -tolerance && isfinite( r[p] );
            z[set[p]] = fmax( r[p], 0.0 );
        }
        for ( int i = 0; i < n && feasible; ++i )
        {
            double w = b[i];
            for ( int j = 0; j < n; ++j )
            {
                w += a[i * n + j] * z[j];
            }
            feasible = w >= -tolerance;
        }
        if ( feasible )
        {
            return true;
        }
    }
    return false;
}

// Relative tolerance of the check on a basic solution, the sweep solvers' default tolerance:
// w = A z + b must be >= -this x scale, and min(A_ii z_i, w_i) <= this x scale, where scale is the
// largest |b_i| + sum_j |A_ij z_j|.
#define CN_LEMKE_CHECK 1e-6

// True when z solves the LCP (A with `diagonal` on its diagonal, b) to CN_LEMKE_CHECK: the pivoting
// can end "complementary" on a basis so ill-conditioned (an engine problem has four points a face,
// a semi-definite A) that its solution is not one (measured on a tower of 10: w = -0.08 m/s on
// four rows after 5 pivots).
static bool cnLemkeSolves( int n, const double* a, const double* diagonal, const double* b, const double* z )
{
    double scale = 0.0;
    double worst = 0.0;
    for ( int i = 0; i < n; ++i )
    {
        double w = b[i];
        double size = fabs( b[i] );
        for ( int j = 0; j < n; ++j )
        {
            double entry = j == i ? diagonal[i] : a[(size_t)i * (size_t)n + (size_t)j];
            w += entry * z[j];
            size += fabs( entry * z[j] );
        }
        if ( isfinite( w ) == false || isfinite( z[i] ) == false || z[i] < 0.0 )
        {
            return false;
        }
        scale = fmax( scale, size );
        worst = fmax( worst, fmax( -w, fmin( diagonal[i] * z[i], w ) ) );
    }
    return worst <= CN_LEMKE_CHECK * fmax( scale, 1e-300 );
}

static void cnLemkeSolve( void* state, const double* params, const cnSolverBudget* budget,
                          cnSolverProblem* problem, const cnPrepared* prepared, cnSolverSolution* solution,
                          cnArena* arena, cnSolverStats* stats )
{
    (void)state;
    int n = problem->rowCount;
    stats->status = cn_solveUnsupported;
    stats->ownMeasure = (double)NAN;
    for ( int g = 0; g < problem->groupCount; ++g )
    {
        if ( problem->groups[g].kind != cn_groupNormal )
        {
            return; // the layer refuses these from the caps; a guard all the same
        }
    }
    if ( n > CN_LEMKE_MAX_ROWS )
    {
        return;
    }

    int maxPivots = budget->maxIterations;
    double tolerance =
        cnSolverParamValue( cn_lemkeParams, cn_lemkeParamCount, params, cn_lemkeParamPivotTolerance );

    cnSolveStatus status = cn_solveConverged;
    int pivots = 0;
    double* lambda = solution->lambda;
    if ( n > 0 )
    {
        double* a = cnBuildDenseMatrix( problem, arena );
        cnScratch scratch = { .arena = arena };
        double* inverse = cnScratchDoubles( &scratch, n * n );
        double* vectors = cnScratchDoubles( &scratch, 6 * n );
        // ints in double-sized slots (always enough room and alignment)
        int* indices = (int*)(void*)cnScratchDoubles( &scratch, 2 * n );
        if ( a == NULL || inverse == NULL || vectors == NULL || indices == NULL )
        {
            return; // out of memory: unsupported, lambda untouched
        }

        bool finite = true;
        for ( int i = 0; i < n && finite; ++i )
        {
            finite = isfinite( problem->b[i] );
        }
        for ( size_t k = 0; k < (size_t)n * (size_t)n && finite; ++k )
        {
            finite = isfinite( a[k] );
        }

        cnLemke lemke = {
            .n = n,
            .a = a,
            .b = problem->b,
            .inverse = inverse,
            .x = vectors,
            .column = vectors + n,
            .scale = vectors + 2 * n,
            .basis = indices,
            .candidates = indices + n,
        };
        lemke.cover = vectors + 5 * n;
        status = finite ? cn_solveNoSolution : cn_solveNonFinite;
        // An engine problem with four points per face (a box on a box) has a semi-definite A; in
        // floating point the ratio test can then end on a ray where a solution exists (measured on
        // a tower of 10 boxes: no_solution on every step). Such a problem gets a second round with
        // A_ii (1 + regularization), definite, which reaches a complementary basis at a change in
        // the impulses of the regularization's order; the statistics count it as a fallback.
        // Every basis the pivoting ends on is checked against the problem as given
        // (cnLemkeSolves), so a regularized answer stands only where it solves the original.
        double regularization =
            cnSolverParamValue( cn_lemkeParams, cn_lemkeParamCount, params, cn_lemkeParamRegularization );
        int rounds = regularization > 0.0 ? 2 : 1;
        double* diagonal = cnScratchDoubles( &scratch, n );
        if ( diagonal == NULL )
        {
            return;
        }
        for ( int i = 0; i < n; ++i )
        {
            diagonal[i] = a[(size_t)i * (size_t)n + (size_t)i];
        }
        for ( int round = 0; round < rounds && status == cn_solveNoSolution; ++round )
        {
            if ( round == 1 )
            {
                for ( int i = 0; i < n; ++i )
                {
                    a[(size_t)i * (size_t)n + (size_t)i] *= 1.0 + regularization;
                }
                stats->fallbacks += 1;
            }
            for ( int attempt = 0;
                  attempt < CN_LEMKE_ATTEMPTS && status == cn_solveNoSolution && pivots < maxPivots;
                  ++attempt )
            {
                for ( int i = 0; i < n; ++i )
                {
                    double t = (double)i / (double)n;
                    vectors[5 * n + i] = attempt == 0 ? 1.0 : attempt == 1 ? 1.0 + t : 2.0 - t;
                }
                int used = 0;
                status = cnLemkeRun( &lemke, maxPivots - pivots, tolerance, &used );
                pivots += used;
                if ( status == cn_solveConverged )
                {
                    // a complementary basis is an answer only if its solution solves the problem
                    // as given (the regularized round's too)
                    cnLemkeRefine( &lemke, vectors + 3 * n );
                    cnLemkeExtract( &lemke, lambda );
                    status = cnLemkeSolves( n, a, diagonal, problem->b, lambda ) ? cn_solveConverged
                                                                                 : cn_solveNoSolution;
                }
            }
        }
        if ( status == cn_solveNonFinite )
        {
            memset( lambda, 0, (size_t)n * sizeof( double ) );
        }
        else if ( status == cn_solveNoSolution && n <= CN_LEMKE_ENUMERATE_MAX )
        {
            // the rays leave the question open on small problems: settle it
            if ( cnLemkeEnumerate( n, a, problem->b, lambda ) )
            {
                status = cn_solveConverged;
            }
        }
        else if ( status != cn_solveConverged )
        {
            cnLemkeExtract( &lemke, lambda );
        }
    }

    if ( problem->matrix == NULL && problem->bodyCount > 0 && solution->deltaVelocity != NULL )
    {
        cnComputeVelocity( problem, prepared, lambda, solution->deltaVelocity );
    }
    stats->status = status;
    stats->iterations = pivots;
}

const cnSolverVTable cn_lemkeSolver = {
    .name = "lemke",
    .description =
        "Lemke's complementary pivoting on the dense matrix (LCPs without friction, up to 4096 rows)",
    .apiVersion = CN_SOLVER_API_VERSION,
    .caps = cn_solverExplicit | cn_solverMatrixFree | cn_solverDirect,
    .model = cn_modelPyramid,
    .iterationUnit = "pivot",
    .params = cn_lemkeParams,
    .paramCount = cn_lemkeParamCount,
    .solve = cnLemkeSolve,
};
