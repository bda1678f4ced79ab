// SPDX-License-Identifier: MIT
// The sweep kernel and the sweep solver that PGS, PSOR and PGJ are (and AMGS and PGS-SM's sweep
// phase will be).
//
// One row update, with the hooks of cnSweepHooks:
//     w_i    = J_i v + softness_i lambda_i + b_i            (v = W J^T lambda, kept current)
//     y_i    = lambda_i + (relaxation - 1) d_i - relaxation w_i / A_ii
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

#include "solver_kit.h"

#include "core.h"

#include <math.h>
#include <string.h>

const char* const cn_kernelChoices[2] = { "fast", "reference" };

// ---- the fast Gauss-Seidel kernel ---------------------------------------------------------------

// J . v for one side, even terms and odd terms apart
static inline void cnDotSide( const double* j, const double* v, double* even, double* odd )
{
    *even += j[0] * v[0] + j[2] * v[2] + j[4] * v[4];
    *odd += j[1] * v[1] + j[3] * v[3] + j[5] * v[5];
}

static inline void cnAddScaled( double* v, const double* wj, double delta )
{
    for ( int k = 0; k < 6; ++k )
    {
        v[k] += wj[k] * delta;
    }
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

// The rows of one group, bodies a and b (-1 when absent, never equal), velocities in va and vb.
// `sides`: 1 body A only, 2 body B only, 3 both; constant at each call site, so each case compiles
// to its own loop.
static inline void cnSweepGroup( const cnSolverProblem* problem, const cnPrepared* prepared,
                                 const cnRowGroup* group, const cnSweepHooks* hooks, int sides, double* lambda,
                                 double* va, double* vb, cnSweepResult* result )
{
    const double omega = hooks->relaxation;
    const double* softness = problem->softness;
    int first = group->firstRow;
    for ( int k = 0; k < group->rowCount; ++k )
    {
        int i = first + k;
        const cnSweepRow* row = prepared->sweepRows + i;
        double even = 0.0;
        double odd = 0.0;
        if ( sides & 1 )
        {
            cnDotSide( row->jA, va, &even, &odd );
        }
        if ( sides & 2 )
        {
            cnDotSide( row->jB, vb, &even, &odd );
        }
        double old = lambda[i];
        double w = problem->b[i] + ( even + odd );
        if ( softness != NULL )
        {
            w += softness[i] * old;
        }
        double low, high;
        if ( hooks->frozenLow != NULL )
        {
            low = hooks->frozenLow[i];
            high = hooks->frozenHigh[i];
        }
        else
        {
            cnGroupBounds( problem, group, i, k, lambda[first], &low, &high );
        }
        double y = old - omega * w * prepared->invDiagonal[i];
        if ( hooks->memory != NULL )
        {
            y += ( omega - 1.0 ) * hooks->memory[i];
        }
        double updated = cnClamp( y, low, high );
        if ( hooks->memory != NULL )
        {
            hooks->memory[i] = y - updated;
        }
        double delta = updated - old;
        lambda[i] = updated;
        if ( sides & 1 )
        {
            cnAddScaled( va, row->wjA, delta );
        }
        if ( sides & 2 )
        {
            cnAddScaled( vb, row->wjB, delta );
        }
        double d = prepared->diagonal[i];
        result->updateEnergy += d * delta * delta;
        result->lambdaEnergy += d * updated * updated;
    }
}

static void cnSweepFast( const cnSolverProblem* problem, const cnPrepared* prepared, const cnSweepHooks* hooks,
                         double* lambda, double* velocity, cnSweepResult* result )
{
    for ( int g = 0; g < problem->groupCount; ++g )
    {
        const cnRowGroup* group = problem->groups + g;
        int a = problem->bodyA[group->firstRow];
        int b = problem->bodyB[group->firstRow];
        double va[6];
        double vb[6];
        if ( a >= 0 && b >= 0 && a != b )
        {
            memcpy( va, velocity + 6 * a, sizeof( va ) );
            memcpy( vb, velocity + 6 * b, sizeof( vb ) );
            cnSweepGroup( problem, prepared, group, hooks, 3, lambda, va, vb, result );
            memcpy( velocity + 6 * a, va, sizeof( va ) );
            memcpy( velocity + 6 * b, vb, sizeof( vb ) );
        }
        else if ( a >= 0 && b < 0 )
        {
            memcpy( va, velocity + 6 * a, sizeof( va ) );
            cnSweepGroup( problem, prepared, group, hooks, 1, lambda, va, vb, result );
            memcpy( velocity + 6 * a, va, sizeof( va ) );
        }
        else if ( b >= 0 && a < 0 )
        {
            memcpy( vb, velocity + 6 * b, sizeof( vb ) );
            cnSweepGroup( problem, prepared, group, hooks, 2, lambda, va, vb, result );
            memcpy( velocity + 6 * b, vb, sizeof( vb ) );
        }
        else if ( a >= 0 )
        {
            // both sides on one body: J_A + J_B acts on it, through memory
            cnSweepGroup( problem, prepared, group, hooks, 3, lambda, velocity + 6 * a, velocity + 6 * a, result );
        }
        else
        {
            // no body at all: w is b alone
            cnSweepGroup( problem, prepared, group, hooks, 0, lambda, va, vb, result );
        }
    }
}

// ---- the reference kernel and Jacobi ----------------------------------------------------------------

// w_i by the textbook products: the explicit matrix row, or J_i . v in row order
static double cnReferenceRowValue( const cnSolverProblem* problem, const double* lambda, const double* velocity,
                                   int i )
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

// one row of the reference update: the new value (not stored)
static double cnReferenceUpdate( const cnPrepared* prepared, const cnSweepHooks* hooks, double old, double w,
                                 double low, double high, int i )
{
    double y = hooks->memory != NULL
                   ? old + ( hooks->relaxation - 1.0 ) * hooks->memory[i] -
                         hooks->relaxation * ( w / prepared->diagonal[i] )
                   : old - hooks->relaxation * ( w / prepared->diagonal[i] );
    double updated = cnClamp( y, low, high );
    if ( hooks->memory != NULL )
    {
        hooks->memory[i] = y - updated;
    }
    return updated;
}

static void cnSweepReference( const cnSolverProblem* problem, const cnPrepared* prepared,
                              const cnSweepHooks* hooks, double* lambda, double* velocity, cnSweepResult* result )
{
    for ( int i = 0; i < problem->rowCount; ++i )
    {
        double w = cnReferenceRowValue( problem, lambda, velocity, i );
        double low, high;
        if ( hooks->frozenLow != NULL )
        {
            low = hooks->frozenLow[i];
            high = hooks->frozenHigh[i];
        }
        else
        {
            cnRowBounds( problem, prepared, lambda, i, &low, &high );
        }
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

static void cnSweepJacobi( const cnSolverProblem* problem, const cnPrepared* prepared, const cnSweepHooks* hooks,
                           double* lambda, double* velocity, const double* previous, cnSweepResult* result )
{
    for ( int i = 0; i < problem->rowCount; ++i )
    {
        double w = cnReferenceRowValue( problem, previous, velocity, i );
        double low, high;
        if ( hooks->frozenLow != NULL )
        {
            low = hooks->frozenLow[i];
            high = hooks->frozenHigh[i];
        }
        else
        {
            cnRowBounds( problem, prepared, previous, i, &low, &high );
        }
        double updated = cnReferenceUpdate( prepared, hooks, previous[i], w, low, high, i );
        double delta = updated - previous[i];
        lambda[i] = updated;
        result->updateEnergy += prepared->diagonal[i] * delta * delta;
        result->lambdaEnergy += prepared->diagonal[i] * updated * updated;
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

static void cnCopy( double* to, const double* from, int count )
{
    if ( count > 0 )
    {
        memcpy( to, from, (size_t)count * sizeof( double ) );
    }
}

// the grading merit of the solver's model (pyramid) of the current iterate
static double cnCurrentMerit( const cnSolverProblem* problem, const cnPrepared* prepared, const double* lambda,
                              const double* velocity, double* w )
{
    cnComputeW( problem, prepared, lambda, velocity, w );
    return cnModelMeritFromW( problem, prepared, cn_modelPyramid, lambda, w );
}

static void cnRecord( const cnSolverSolution* solution, cnSolverStats* stats, double merit )
{
    if ( solution->residualHistory != NULL && stats->historyCount < solution->residualHistoryCapacity )
    {
        solution->residualHistory[stats->historyCount] = merit;
    }
    stats->historyCount += 1;
}

void cnSweepSolve( const cnSolverParam* table, int paramCount, const double* params, cnSweepKind kind,
                   const cnSolverBudget* budget, const cnSolverProblem* problem, const cnPrepared* prepared,
                   cnSolverSolution* solution, cnArena* arena, cnSolverStats* stats, double* memory )
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

    cnSweepHooks hooks = {
        .relaxation = cnSolverParamValue( table, paramCount, params, cn_sweepParamRelaxation ),
        .memory = memory,
        .reference = (int)cnSolverParamValue( table, paramCount, params, cn_sweepParamKernel ) == cn_kernelReference,
    };
    double relativeTolerance = cnSolverParamValue( table, paramCount, params, cn_sweepParamRelativeTolerance );
    double stagnationTolerance = cnSolverParamValue( table, paramCount, params, cn_sweepParamStagnationTolerance );
    double divergenceFactor = cnSolverParamValue( table, paramCount, params, cn_sweepParamDivergenceFactor );
    bool history = solution->residualHistory != NULL && solution->residualHistoryCapacity > 0;

    cnScratch scratch = { .arena = arena };
    double* lambda = solution->lambda;
    double* velocity = cnScratchDoubles( &scratch, 6 * problem->bodyCount );
    double* initial = cnScratchDoubles( &scratch, n );
    double* w = cnScratchDoubles( &scratch, n );
    double* previous = kind == cn_sweepJacobi ? cnScratchDoubles( &scratch, n ) : NULL;
    if ( velocity == NULL || initial == NULL || w == NULL || ( kind == cn_sweepJacobi && previous == NULL ) )
    {
        cnScratchRelease( &scratch );
        return;
    }
    cnCopy( initial, lambda, n );
    cnComputeVelocity( problem, prepared, lambda, velocity );
    if ( history )
    {
        cnRecord( solution, stats, cnCurrentMerit( problem, prepared, lambda, velocity, w ) );
    }

    double freeScale = sqrt( prepared->freeEnergy );
    double firstEnergy = 0.0;
    double measure = (double)NAN;
    cnSolveStatus status = cn_solveMaxIterations;
    int iteration = 0;
    while ( iteration < budget->maxIterations )
    {
        if ( previous != NULL )
        {
            cnCopy( previous, lambda, n );
        }
        cnSweepResult sweep = cnSweep( problem, prepared, kind, &hooks, lambda, velocity, previous );
        if ( sweep.finite == false )
        {
            // overflow: back to where the solve started
            cnCopy( lambda, initial, n );
            cnComputeVelocity( problem, prepared, lambda, velocity );
            status = cn_solveNonFinite;
            break;
        }
        iteration += 1;

        double scale = sqrt( sweep.lambdaEnergy ) + freeScale;
        double previousMeasure = measure;
        measure = scale > 0.0 ? sqrt( sweep.updateEnergy ) / scale : sqrt( sweep.updateEnergy );
        if ( iteration == 1 )
        {
            firstEnergy = sweep.updateEnergy;
        }
        if ( history )
        {
            cnRecord( solution, stats, cnCurrentMerit( problem, prepared, lambda, velocity, w ) );
        }

        // a sweep that moves lambda by a tenth of its own size and by far more than the first
        // sweep did is not converging
        if ( divergenceFactor > 0.0 && measure > 0.1 && sweep.updateEnergy > divergenceFactor * firstEnergy )
        {
            cnCopy( lambda, initial, n );
            cnComputeVelocity( problem, prepared, lambda, velocity );
            status = cn_solveDiverged;
            break;
        }
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
    if ( history && ( status == cn_solveDiverged || status == cn_solveNonFinite ) )
    {
        // the start was put back: it is one more point on the curve
        cnRecord( solution, stats, cnCurrentMerit( problem, prepared, lambda, velocity, w ) );
    }

    if ( solution->deltaVelocity != NULL && problem->matrix == NULL )
    {
        cnCopy( solution->deltaVelocity, velocity, 6 * problem->bodyCount );
    }
    stats->status = status;
    stats->iterations = iteration;
    stats->ownMeasure = measure;
    cnScratchRelease( &scratch );
}
