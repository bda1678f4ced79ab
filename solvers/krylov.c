// SPDX-License-Identifier: MIT
// Preconditioned conjugate gradients, restarted GMRES and BiCGstab, matrix-free (krylov.h).
// Textbook forms (Saad, Iterative Methods for Sparse Linear Systems, 2003: algorithms 9.1, 6.11
// and 7.7 with right preconditioning), with the guards a physics step needs: no division by a zero
// norm, a stop on the first NaN, and a report of what happened instead of an assertion.

#include "krylov.h"

#include <math.h>
#include <string.h>

static double cnKrylovDot( const double* a, const double* b, int n )
{
    double sum = 0.0;
    for ( int i = 0; i < n; ++i )
    {
        sum += a[i] * b[i];
    }
    return sum;
}

static void cnKrylovZero( double* x, int n )
{
    if ( n > 0 )
    {
        memset( x, 0, (size_t)n * sizeof( double ) );
    }
}

static void cnKrylovCopy( double* to, const double* from, int n )
{
    if ( n > 0 )
    {
        memcpy( to, from, (size_t)n * sizeof( double ) );
    }
}

// z = M^-1 r, the identity without a preconditioner
static void cnKrylovPreconditionOrCopy( cnKrylovPrecondition* precondition, void* context, const double* r,
                                        double* z, int n )
{
    if ( precondition != NULL )
    {
        precondition( context, r, z );
    }
    else
    {
        cnKrylovCopy( z, r, n );
    }
}

// residual = rhs - K x; returns its norm
static double cnKrylovTrueResidual( cnKrylovApply* apply, void* context, const double* rhs, const double* x,
                                    double* residual, int n )
{
    apply( context, x, residual );
    double sum = 0.0;
    for ( int i = 0; i < n; ++i )
    {
        residual[i] = rhs[i] - residual[i];
        sum += residual[i] * residual[i];
    }
    return sqrt( sum );
}

// ---- conjugate gradients -----------------------------------------------------------------------------

int cnPcgWorkSize( int n )
{
    return 4 * ( n > 0 ? n : 1 );
}

cnKrylovResult cnPcg( cnKrylovApply* apply, void* context, const double* diagonal, const double* rhs,
                      double* x, int n, double tolerance, int maxIterations, double* work )
{
    cnKrylovResult result = { .iterations = 0, .residual = 0.0, .converged = false, .finite = true };
    double* r = work;
    double* z = work + n;
    double* p = work + 2 * n;
    double* q = work + 3 * n;
    double rhsNorm = sqrt( cnKrylovDot( rhs, rhs, n ) );
    if ( !isfinite( rhsNorm ) )
    {
        result.finite = false;
        return result;
    }
    if ( rhsNorm == 0.0 )
    {
        cnKrylovZero( x, n );
        result.converged = true;
        return result;
    }

    // r = rhs - K x
    apply( context, x, q );
    for ( int i = 0; i < n; ++i )
    {
        r[i] = rhs[i] - q[i];
    }
    double rz = 0.0;
    for ( int i = 0; i < n; ++i )
    {
        double d = diagonal != NULL ? diagonal[i] : 1.0;
        z[i] = ( d > 0.0 && isfinite( d ) ) ? r[i] / d : r[i];
        p[i] = z[i];
        rz += r[i] * z[i];
    }
    double residual = sqrt( cnKrylovDot( r, r, n ) ) / rhsNorm;
    while ( true )
    {
        if ( !isfinite( residual ) )
        {
            result.finite = false;
            break;
        }
        if ( residual <= tolerance )
        {
            result.converged = true;
            break;
        }
        if ( result.iterations >= maxIterations )
        {
            break;
        }
        apply( context, p, q );
        result.iterations += 1;
        double curvature = cnKrylovDot( p, q, n );
        if ( !isfinite( curvature ) )
        {
            result.finite = false;
            break;
        }
        if ( !( curvature > 0.0 ) )
        {
            result.breakdown = true; // K is not positive definite along p
            break;
        }
        double alpha = rz / curvature;
        double rzNext = 0.0;
        for ( int i = 0; i < n; ++i )
        {
            x[i] += alpha * p[i];
            r[i] -= alpha * q[i];
            double d = diagonal != NULL ? diagonal[i] : 1.0;
            z[i] = ( d > 0.0 && isfinite( d ) ) ? r[i] / d : r[i];
            rzNext += r[i] * z[i];
        }
        double beta = rz > 0.0 ? rzNext / rz : 0.0;
        rz = rzNext;
        for ( int i = 0; i < n; ++i )
        {
            p[i] = z[i] + beta * p[i];
        }
        residual = sqrt( cnKrylovDot( r, r, n ) ) / rhsNorm;
    }
    result.residual = residual;
    return result;
}

// ---- GMRES ------------------------------------------------------------------------------------------

int cnGmresWorkSize( int n, int restart )
{
    int m = restart > 0 ? restart : 1;
    int rows = n > 0 ? n : 1;
    // basis (m + 1) x n, Hessenberg (m + 1) x m, rotations 2m, right-hand side m + 1, solution m
    return ( m + 1 ) * rows + ( m + 1 ) * m + 2 * m + ( m + 1 ) + m;
}

cnKrylovResult cnGmres( cnKrylovApply* apply, void* context, const double* rhs, double* x, int n, int restart,
                        double tolerance, int maxIterations, double* work )
{
    cnKrylovResult result = { .iterations = 0, .residual = 0.0, .converged = false, .finite = true };
    int m = restart > 0 ? restart : 1;
    double* basis = work;                       // (m + 1) vectors of n
    double* hessenberg = basis + ( m + 1 ) * n; // column j at hessenberg + j (m + 1), entries 0 .. j + 1
    double* cosines = hessenberg + ( m + 1 ) * m;
    double* sines = cosines + m;
    double* g = sines + m;
    double* y = g + m + 1;

    double rhsNorm = sqrt( cnKrylovDot( rhs, rhs, n ) );
    if ( !isfinite( rhsNorm ) )
    {
        result.finite = false;
        return result;
    }
    if ( rhsNorm == 0.0 )
    {
        cnKrylovZero( x, n );
        result.converged = true;
        return result;
    }

    double residual = 1.0;
    while ( true )
    {
        // the true residual r = rhs - K x starts each cycle
        double* r = basis;
        apply( context, x, r );
        for ( int i = 0; i < n; ++i )
        {
            r[i] = rhs[i] - r[i];
        }
        double beta = sqrt( cnKrylovDot( r, r, n ) );
        residual = beta / rhsNorm;
        if ( !isfinite( residual ) )
        {
            result.finite = false;
            break;
        }
        if ( residual <= tolerance )
        {
            result.converged = true;
            break;
        }
        if ( result.iterations >= maxIterations )
        {
            break;
        }
        for ( int i = 0; i < n; ++i )
        {
            r[i] /= beta;
        }
        g[0] = beta;
        int columns = 0;
        bool stop = false; // breakdown or a singular projection: a further cycle would not help
        for ( int j = 0; j < m && result.iterations < maxIterations; ++j )
        {
            double* v = basis + j * n;
            double* next = basis + ( j + 1 ) * n;
            double* h = hessenberg + j * ( m + 1 );
            apply( context, v, next );
            result.iterations += 1;
            // modified Gram-Schmidt against the basis so far
            for ( int i = 0; i <= j; ++i )
            {
                h[i] = cnKrylovDot( next, basis + i * n, n );
                for ( int k = 0; k < n; ++k )
                {
                    next[k] -= h[i] * basis[i * n + k];
                }
            }
            double height = sqrt( cnKrylovDot( next, next, n ) );
            if ( !isfinite( height ) )
            {
                result.finite = false;
                stop = true;
                break;
            }
            h[j + 1] = height;
            if ( height > 0.0 )
            {
                for ( int k = 0; k < n; ++k )
                {
                    next[k] /= height;
                }
            }
            // the earlier rotations on the new column, then the one that zeroes h[j + 1]
            for ( int i = 0; i < j; ++i )
            {
                double top = cosines[i] * h[i] + sines[i] * h[i + 1];
                h[i + 1] = -sines[i] * h[i] + cosines[i] * h[i + 1];
                h[i] = top;
            }
            double denominator = hypot( h[j], h[j + 1] );
            if ( !( denominator > 0.0 ) )
            {
                stop = true; // K is singular on the Krylov space: keep the columns before this one
                break;
            }
            cosines[j] = h[j] / denominator;
            sines[j] = h[j + 1] / denominator;
            h[j] = denominator;
            h[j + 1] = 0.0;
            g[j + 1] = -sines[j] * g[j];
            g[j] = cosines[j] * g[j];
            columns = j + 1;
            if ( fabs( g[j + 1] ) <= tolerance * rhsNorm || height == 0.0 )
            {
                break; // converged (confirmed by the next cycle's true residual) or a lucky breakdown
            }
        }
        // y = R^-1 g on the columns kept, then x += V y
        for ( int i = columns - 1; i >= 0; --i )
        {
            double sum = g[i];
            for ( int k = i + 1; k < columns; ++k )
            {
                sum -= hessenberg[k * ( m + 1 ) + i] * y[k];
            }
            y[i] = sum / hessenberg[i * ( m + 1 ) + i];
        }
        for ( int i = 0; i < columns; ++i )
        {
            for ( int k = 0; k < n; ++k )
            {
                x[k] += y[i] * basis[i * n + k];
            }
        }
        if ( stop && columns == 0 )
        {
            break;
        }
        if ( stop )
        {
            // one last true residual for the report
            double* last = basis;
            apply( context, x, last );
            double sum = 0.0;
            for ( int i = 0; i < n; ++i )
            {
                double d = rhs[i] - last[i];
                sum += d * d;
            }
            residual = sqrt( sum ) / rhsNorm;
            result.converged = residual <= tolerance;
            result.finite = result.finite && isfinite( residual );
            break;
        }
    }
    result.residual = residual;
    return result;
}

// ---- CG with a preconditioner callback --------------------------------------------------------------

int cnPcgPreWorkSize( int n )
{
    return 4 * ( n > 0 ? n : 1 );
}

cnKrylovResult cnPcgPre( cnKrylovApply* apply, void* context, cnKrylovPrecondition* precondition,
                         void* preconditionContext, const double* rhs, double* x, int n, double tolerance,
                         int maxIterations, double* work )
{
    cnKrylovResult result = { .iterations = 0, .residual = 0.0, .converged = false, .finite = true };
    double* r = work;
    double* z = work + n;
    double* p = work + 2 * n;
    double* q = work + 3 * n;
    double rhsNorm = sqrt( cnKrylovDot( rhs, rhs, n ) );
    if ( !isfinite( rhsNorm ) )
    {
        result.finite = false;
        return result;
    }
    if ( rhsNorm == 0.0 )
    {
        cnKrylovZero( x, n );
        result.converged = true;
        return result;
    }
    double goal = tolerance * rhsNorm;

    double rNorm = cnKrylovTrueResidual( apply, context, rhs, x, r, n );
    bool rIsTrue = true; // r is rhs - K x exactly as computed, not by recursion
    bool restart = true;
    double rz = 0.0;
    while ( true )
    {
        if ( !isfinite( rNorm ) )
        {
            result.finite = false;
            break;
        }
        if ( rNorm <= goal )
        {
            if ( rIsTrue )
            {
                break;
            }
            // the recursion drifts from the true residual: confirm, or restart from the true one
            rNorm = cnKrylovTrueResidual( apply, context, rhs, x, r, n );
            rIsTrue = true;
            restart = true;
            continue;
        }
        if ( result.iterations >= maxIterations )
        {
            break;
        }
        if ( restart )
        {
            cnKrylovPreconditionOrCopy( precondition, preconditionContext, r, z, n );
            cnKrylovCopy( p, z, n );
            rz = cnKrylovDot( r, z, n );
            restart = false;
        }
        if ( !isfinite( rz ) )
        {
            result.finite = false;
            break;
        }
        if ( !( rz > 0.0 ) )
        {
            result.breakdown = true; // M is not positive definite at r
            break;
        }
        apply( context, p, q );
        result.iterations += 1;
        double curvature = cnKrylovDot( p, q, n );
        if ( !isfinite( curvature ) )
        {
            result.finite = false;
            break;
        }
        if ( !( curvature > 0.0 ) )
        {
            result.breakdown = true; // K is not positive definite along p
            break;
        }
        double alpha = rz / curvature;
        if ( !isfinite( alpha ) )
        {
            result.finite = false;
            break;
        }
        for ( int i = 0; i < n; ++i )
        {
            x[i] += alpha * p[i];
            r[i] -= alpha * q[i];
        }
        rIsTrue = false;
        rNorm = sqrt( cnKrylovDot( r, r, n ) );
        cnKrylovPreconditionOrCopy( precondition, preconditionContext, r, z, n );
        double rzNext = cnKrylovDot( r, z, n );
        double beta = rzNext / rz;
        rz = rzNext;
        for ( int i = 0; i < n; ++i )
        {
            p[i] = z[i] + beta * p[i];
        }
    }
    if ( !rIsTrue )
    {
        rNorm = cnKrylovTrueResidual( apply, context, rhs, x, r, n );
    }
    result.residual = rNorm / rhsNorm;
    result.converged = rNorm <= goal;
    result.finite = result.finite && isfinite( result.residual );
    return result;
}

// ---- BiCGstab --------------------------------------------------------------------------------------

int cnBicgstabWorkSize( int n )
{
    return 7 * ( n > 0 ? n : 1 );
}

cnKrylovResult cnBicgstab( cnKrylovApply* apply, void* context, cnKrylovPrecondition* precondition,
                           void* preconditionContext, const double* rhs, double* x, int n, double tolerance,
                           int maxIterations, double* work )
{
    cnKrylovResult result = { .iterations = 0, .residual = 0.0, .converged = false, .finite = true };
    double* r = work;            // the residual rhs - K x (s half way through an iteration)
    double* shadow = work + n;   // r0hat, the fixed shadow residual
    double* p = work + 2 * n;    // the search direction
    double* v = work + 3 * n;    // K M^-1 p
    double* y = work + 4 * n;    // M^-1 p, then M^-1 s
    double* t = work + 5 * n;    // K M^-1 s
    double* best = work + 6 * n; // the iterate of smallest residual so far
    double rhsNorm = sqrt( cnKrylovDot( rhs, rhs, n ) );
    if ( !isfinite( rhsNorm ) )
    {
        result.finite = false;
        return result;
    }
    if ( rhsNorm == 0.0 )
    {
        cnKrylovZero( x, n );
        result.converged = true;
        return result;
    }
    double goal = tolerance * rhsNorm;

    double rNorm = cnKrylovTrueResidual( apply, context, rhs, x, r, n );
    if ( !isfinite( rNorm ) )
    {
        result.finite = false;
        result.residual = rNorm;
        return result;
    }
    cnKrylovCopy( best, x, n );
    double bestNorm = rNorm;
    bool bestIsX = true; // best holds x as it is now
    bool rIsTrue = true; // r is rhs - K x exactly as computed, not by recursion
    bool restart = true; // start the recursion afresh from r
    double rho = 1.0, rhoPrevious = 1.0, alpha = 1.0, omega = 1.0;
    while ( true )
    {
        if ( rNorm <= goal )
        {
            if ( rIsTrue )
            {
                break;
            }
            // the recursion drifts from the true residual: confirm, or restart from the true one
            rNorm = cnKrylovTrueResidual( apply, context, rhs, x, r, n );
            rIsTrue = true;
            restart = true;
            if ( !isfinite( rNorm ) )
            {
                result.finite = false;
                break;
            }
            if ( bestIsX )
            {
                bestNorm = rNorm;
            }
            continue;
        }
        if ( result.iterations >= maxIterations )
        {
            break;
        }
        if ( restart )
        {
            cnKrylovCopy( shadow, r, n );
            cnKrylovZero( p, n );
            cnKrylovZero( v, n );
            rhoPrevious = alpha = omega = 1.0;
            restart = false;
        }
        rho = cnKrylovDot( shadow, r, n );
        if ( !isfinite( rho ) )
        {
            result.finite = false;
            break;
        }
        if ( rho == 0.0 )
        {
            result.breakdown = true; // r is orthogonal to the shadow residual
            break;
        }
        double beta = ( rho / rhoPrevious ) * ( alpha / omega );
        for ( int i = 0; i < n; ++i )
        {
            p[i] = r[i] + beta * ( p[i] - omega * v[i] );
        }
        cnKrylovPreconditionOrCopy( precondition, preconditionContext, p, y, n );
        apply( context, y, v );
        result.iterations += 1;
        double sigma = cnKrylovDot( shadow, v, n );
        if ( !isfinite( sigma ) )
        {
            result.finite = false;
            break;
        }
        if ( sigma == 0.0 )
        {
            result.breakdown = true; // the Lanczos recursion has no next vector
            break;
        }
        alpha = rho / sigma;
        if ( !isfinite( alpha ) )
        {
            result.finite = false;
            break;
        }

        // the half step: x + alpha M^-1 p, whose residual is s = r - alpha v
        for ( int i = 0; i < n; ++i )
        {
            x[i] += alpha * y[i];
            r[i] -= alpha * v[i];
        }
        rNorm = sqrt( cnKrylovDot( r, r, n ) );
        rIsTrue = false;
        bestIsX = false;
        if ( !isfinite( rNorm ) )
        {
            result.finite = false;
            break;
        }
        if ( rNorm < bestNorm )
        {
            cnKrylovCopy( best, x, n );
            bestNorm = rNorm;
            bestIsX = true;
        }
        if ( rNorm <= goal )
        {
            continue; // confirmed at the top
        }

        // the stabilising step: omega minimises |s - omega K M^-1 s|
        cnKrylovPreconditionOrCopy( precondition, preconditionContext, r, y, n );
        apply( context, y, t );
        double tt = cnKrylovDot( t, t, n );
        double ts = cnKrylovDot( t, r, n );
        if ( !isfinite( tt ) || !isfinite( ts ) )
        {
            result.finite = false;
            break;
        }
        if ( tt == 0.0 || ts == 0.0 )
        {
            result.breakdown = true; // omega = 0: the next beta would divide by it
            break;
        }
        omega = ts / tt;
        if ( !isfinite( omega ) )
        {
            result.finite = false;
            break;
        }
        for ( int i = 0; i < n; ++i )
        {
            x[i] += omega * y[i];
            r[i] -= omega * t[i];
        }
        rNorm = sqrt( cnKrylovDot( r, r, n ) );
        bestIsX = false;
        if ( !isfinite( rNorm ) )
        {
            result.finite = false;
            break;
        }
        if ( rNorm < bestNorm )
        {
            cnKrylovCopy( best, x, n );
            bestNorm = rNorm;
            bestIsX = true;
        }
        rhoPrevious = rho;
    }

    // the true residual of the last iterate, then of the best one when it may be smaller
    double lastNorm = rIsTrue ? rNorm : cnKrylovTrueResidual( apply, context, rhs, x, t, n );
    if ( !bestIsX && !( lastNorm <= bestNorm ) )
    {
        double bestTrueNorm = cnKrylovTrueResidual( apply, context, rhs, best, y, n );
        if ( !( lastNorm <= bestTrueNorm ) )
        {
            cnKrylovCopy( x, best, n );
            lastNorm = bestTrueNorm;
        }
    }
    result.residual = lastNorm / rhsNorm;
    result.converged = lastNorm <= goal;
    result.finite = result.finite && isfinite( lastNorm );
    return result;
}
