// SPDX-License-Identifier: MIT
// The grading merits (cnSolverMerits): one scale for every solver, computed by the layer after each
// solve from the problem and the returned impulses, never by the solver. docs/solvers.md has the
// definitions with a worked example.
//
// Units. lambda is an impulse (N s) and w a velocity (m/s). A_ii (the row's diagonal with its
// softness, 1 / effective mass) turns one into the other, so the per-row natural map
// r_i = lambda_i - proj(lambda_i - w_i / A_ii) is an impulse, and A_ii r_i^2 an energy. The merit
// adds those energies (the energy norm: a light body's error counts as much as a heavy one's) and
// divides by the same norm of the problem's own impulses, |D^1/2 lambda| + |D^-1/2 b| (the second
// term is what each row alone would need to stop its free velocity): scaling masses, lengths or
// times, or repeating a problem twice, leaves the merit unchanged. Rows whose diagonal is not
// positive (explicit LCPs with zero diagonal entries) are weighted 1 and use w_i unscaled.
//
// The violations (after Le Lidec et al., "Contact models in robotics: a comparative analysis",
// arXiv 2304.06372: Signorini's condition, Coulomb's law and the maximum dissipation principle) are
// velocities, the worst over the contact points, so that they read as what a user would see:
// "a contact closes at 2 mm/s", "friction lets a point slide at 1 cm/s it should not".

#include "core.h"
#include "solver_kit.h"

#include <math.h>
#include <string.h>

// A weighted 2-norm, sqrt(sum weight x^2), summed plainly: NaN stays NaN, and sums past about
// 1e300 (impulses of 1e150 N s) overflow to infinity, where the merit is then NaN, a failure of
// its own kind.
typedef struct cnNorm
{
    double sumSquares;
} cnNorm;

// adds weight x^2 (weight >= 0)
static inline void cnNormAdd( cnNorm* norm, double x, double weight )
{
    norm->sumSquares += weight * x * x;
}

static double cnNormValue( const cnNorm* norm )
{
    return sqrt( norm->sumSquares );
}

// |(x, y)| without a libm call; for the velocities and impulses of a solve x^2 does not overflow
static inline double cnLength2( double x, double y )
{
    return sqrt( x * x + y * y );
}

// Projection on [low, high]; NaN when x or a bound is NaN.
static double cnProject( double x, double low, double high )
{
    if ( isnan( low ) || isnan( high ) || isnan( x ) )
    {
        return (double)NAN;
    }
    return x < low ? low : ( x > high ? high : x );
}

// the weight of row i and the factor that turns its w into an impulse
static double cnRowWeight( const cnPrepared* prepared, int i )
{
    return prepared->invDiagonal[i] > 0.0 ? prepared->diagonal[i] : 1.0;
}

static double cnRowStep( const cnPrepared* prepared, int i )
{
    return prepared->invDiagonal[i] > 0.0 ? prepared->invDiagonal[i] : 1.0;
}

double cnMeritScale( const cnSolverProblem* problem, const cnPrepared* prepared, const double* lambda )
{
    cnNorm impulses = { 0.0 };
    for ( int i = 0; i < problem->rowCount; ++i )
    {
        cnNormAdd( &impulses, lambda[i], cnRowWeight( prepared, i ) );
    }
    return cnNormValue( &impulses ) + sqrt( prepared->freeEnergy );
}

static double cnScaled( double residual, double scale )
{
    // a zero scale means lambda = 0 and b = 0, where w = 0 and the residual is 0 too
    return scale > 0.0 ? residual / scale : residual;
}

// Projection of (xn, x1, x2) on the cone |x_t| <= mu x_n (solver_kit.h; the sweep kernel's cone
// block uses it too).
void cnProjectCone( double mu, double xn, double x1, double x2, double* p )
{
    double xt = cnLength2( x1, x2 );
    // inside: xn >= 0 too, or mu = 0 would keep (xn < 0, 0, 0) where the polar cone takes it
    if ( xn >= 0.0 && xt <= mu * xn )
    {
        p[0] = xn;
        p[1] = x1;
        p[2] = x2;
    }
    else if ( mu * xt <= -xn )
    {
        // in the polar cone
        p[0] = 0.0;
        p[1] = 0.0;
        p[2] = 0.0;
    }
    else
    {
        // onto the surface (xt > 0 here)
        double n = ( xn + mu * xt ) / ( 1.0 + mu * mu );
        p[0] = n;
        p[1] = mu * n * x1 / xt;
        p[2] = mu * n * x2 / xt;
    }
    if ( isnan( xn ) || isnan( x1 ) || isnan( x2 ) )
    {
        p[0] = (double)NAN;
    }
}

// The natural map of row i of the pyramid model (an impulse)
static inline double cnNaturalRow( const cnSolverProblem* problem, const cnPrepared* prepared,
                                   const double* lambda, const double* w, int i )
{
    double low, high;
    cnRowBounds( problem, prepared, lambda, i, &low, &high );
    return lambda[i] - cnProject( lambda[i] - cnRowStep( prepared, i ) * w[i], low, high );
}

// the natural map of row i of the pyramid model, added to `norm`
static void cnAddNaturalRow( const cnSolverProblem* problem, const cnPrepared* prepared, const double* lambda,
                             const double* w, int i, cnNorm* norm )
{
    cnNormAdd( norm, cnNaturalRow( problem, prepared, lambda, w, i ), cnRowWeight( prepared, i ) );
}

// the cone natural map of contact group g (De Saxce: the normal velocity shifted by mu |w_t|, one
// step for the three rows), added to `norm`
static void cnAddConeGroup( const cnSolverProblem* problem, const cnPrepared* prepared, const double* lambda,
                            const double* w, int g, cnNorm* norm )
{
    const cnRowGroup* group = problem->groups + g;
    int i = group->firstRow;
    double mu = group->mu;
    double step = 3.0 / ( cnRowWeight( prepared, i ) + cnRowWeight( prepared, i + 1 ) +
                          cnRowWeight( prepared, i + 2 ) );
    double shifted = w[i] + mu * cnLength2( w[i + 1], w[i + 2] );
    double p[3];
    cnProjectCone( mu, lambda[i] - step * shifted, lambda[i + 1] - step * w[i + 1],
                   lambda[i + 2] - step * w[i + 2], p );
    for ( int k = 0; k < 3; ++k )
    {
        cnNormAdd( norm, lambda[i + k] - p[k], cnRowWeight( prepared, i + k ) );
    }
}

// How the contact groups are graded: all by the pyramid, all by the cone, or each by its own model.
typedef enum cnContactGrade
{
    cn_gradePyramid,
    cn_gradeCone,
    cn_gradeOwnModel,
} cnContactGrade;

static double cnGradeFromW( const cnSolverProblem* problem, const cnPrepared* prepared, cnContactGrade grade,
                            const double* lambda, const double* w )
{
    cnNorm norm = { 0.0 };
    for ( int g = 0; g < problem->groupCount; ++g )
    {
        const cnRowGroup* group = problem->groups + g;
        bool cone = grade == cn_gradeCone || ( grade == cn_gradeOwnModel && group->model == cn_frictionCone );
        if ( cone && group->kind == cn_groupContact )
        {
            cnAddConeGroup( problem, prepared, lambda, w, g, &norm );
            continue;
        }
        for ( int i = group->firstRow; i < group->firstRow + group->rowCount; ++i )
        {
            cnAddNaturalRow( problem, prepared, lambda, w, i, &norm );
        }
    }
    return cnScaled( cnNormValue( &norm ), cnMeritScale( problem, prepared, lambda ) );
}

double cnModelMeritFromW( const cnSolverProblem* problem, const cnPrepared* prepared, cnSolverModel model,
                          const double* lambda, const double* w )
{
    return cnGradeFromW( problem, prepared, model == cn_modelCone ? cn_gradeCone : cn_gradePyramid, lambda,
                         w );
}

double cnProblemMeritFromW( const cnSolverProblem* problem, const cnPrepared* prepared, const double* lambda,
                            const double* w )
{
    return cnGradeFromW( problem, prepared, cn_gradeOwnModel, lambda, w );
}

// max that keeps NaN
static double cnWorst( double worst, double value )
{
    return isnan( value ) || isnan( worst ) ? (double)NAN : ( value > worst ? value : worst );
}

// Signorini at a normal row: a penetrating velocity, a separating one with an impulse pushing, or
// an impulse that pulls (lambda_n < 0), as velocities
static double cnSignorini( const cnPrepared* prepared, double lambda, double w, int row )
{
    double d = prepared->diagonal[row];
    if ( lambda < 0.0 )
    {
        return d * -lambda;
    }
    return fabs( fmin( d * lambda, w ) );
}

void cnMeritsFromW( const cnSolverProblem* problem, const cnPrepared* prepared, const double* lambda,
                    const double* w, cnSolverMerits* merits )
{
    // one pass over the groups for every figure: the pyramid's and the cone's natural maps (each
    // summed in group order, as cnModelMeritFromW sums them) and the worst violations
    cnNorm pyramid = { 0.0 };
    cnNorm cone = { 0.0 };
    merits->signorini = 0.0;
    merits->coulomb = 0.0;
    merits->dissipation = 0.0;
    for ( int g = 0; g < problem->groupCount; ++g )
    {
        const cnRowGroup* group = problem->groups + g;
        int i = group->firstRow;
        if ( group->kind == cn_groupContact )
        {
            cnAddConeGroup( problem, prepared, lambda, w, g, &cone );
            for ( int k = i; k < i + group->rowCount; ++k )
            {
                cnNormAdd( &pyramid, cnNaturalRow( problem, prepared, lambda, w, k ),
                           cnRowWeight( prepared, k ) );
            }
        }
        else
        {
            for ( int k = i; k < i + group->rowCount; ++k )
            {
                double r = cnNaturalRow( problem, prepared, lambda, w, k );
                cnNormAdd( &pyramid, r, cnRowWeight( prepared, k ) );
                cnNormAdd( &cone, r, cnRowWeight( prepared, k ) );
            }
        }
        if ( group->kind == cn_groupNormal )
        {
            merits->signorini = cnWorst( merits->signorini, cnSignorini( prepared, lambda[i], w[i], i ) );
            continue;
        }
        if ( group->kind != cn_groupContact )
        {
            continue;
        }
        merits->signorini = cnWorst( merits->signorini, cnSignorini( prepared, lambda[i], w[i], i ) );

        // Coulomb: the friction impulse outside the circular cone, as the velocity it makes
        double friction = cnLength2( lambda[i + 1], lambda[i + 2] );
        double limit = group->mu * fmax( lambda[i], 0.0 );
        double tangentStiffness = 0.5 * ( prepared->diagonal[i + 1] + prepared->diagonal[i + 2] );
        merits->coulomb = cnWorst( merits->coulomb, fmax( friction - limit, 0.0 ) * tangentStiffness );

        // maximum dissipation: friction opposes the slide with all it has, lambda_t = -mu lambda_n
        // w_t / |w_t|; what it leaves unopposed is |w_t| + lambda_t . w_t / (mu lambda_n)
        double slide = cnLength2( w[i + 1], w[i + 2] );
        double unopposed = 0.0;
        if ( limit > 0.0 && slide > 0.0 )
        {
            unopposed = fmax( slide + ( lambda[i + 1] * w[i + 1] + lambda[i + 2] * w[i + 2] ) / limit, 0.0 );
        }
        else if ( isnan( limit ) || isnan( slide ) )
        {
            unopposed = (double)NAN;
        }
        merits->dissipation = cnWorst( merits->dissipation, unopposed );
    }
    double scale = cnMeritScale( problem, prepared, lambda );
    merits->naturalMap = cnScaled( cnNormValue( &pyramid ), scale );
    merits->cone = cnScaled( cnNormValue( &cone ), scale );
}

void cnPhysicsFromW( const cnSolverProblem* problem, const cnPrepared* prepared, const double* lambda,
                     const double* w, cnSolvePhysics* physics )
{
    // per row: u the velocity before (b without its bias when the problem gives it), u+ = u + (A
    // lambda)_i after, A lambda = w - b - softness lambda; the work of the impulse lambda (u + u+) / 2
    // sums to the change of kinetic energy (v+ - v)^T M (v+ + v) / 2 = lambda^T J (v + v+) / 2
    double added = 0.0;
    double allowed = 0.0;
    double approachEnergy = 0.0;
    double closing = 0.0;
    double approach = 0.0;
    for ( int g = 0; g < problem->groupCount; ++g )
    {
        const cnRowGroup* group = problem->groups + g;
        // contacts only: a NaN velocity marks rows of the same kinds that are not (a joint's limit)
        bool contact = group->kind == cn_groupContact || group->kind == cn_groupNormal;
        if ( contact == false ||
             ( problem->velocity != NULL && isnan( problem->velocity[group->firstRow] ) ) )
        {
            continue;
        }
        for ( int i = group->firstRow; i < group->firstRow + group->rowCount; ++i )
        {
            double b = problem->b[i];
            double u = problem->velocity != NULL ? problem->velocity[i] : b;
            double softness = problem->softness != NULL ? problem->softness[i] : 0.0;
            double after = u + ( w[i] - b - softness * lambda[i] );
            added += 0.5 * lambda[i] * ( u + after );
            if ( i != group->firstRow )
            {
                continue;
            }
            // the normal row: its bias b - u asks for a separating speed u - b (a bounce, the push out),
            // or lets it close by up to b - u (a speculative gap over the step)
            double bias = b - u;
            double closingBefore = fmax( -u, 0.0 );
            // what the row's own answer (u+ = -bias) adds, when it adds: the push out; a bounce with
            // restitution <= 1 adds nothing
            allowed += fmax( lambda[i], 0.0 ) * fmax( u - bias, 0.0 ) * 0.5;
            // the energy of its approach, and of the physics test's slack, in its effective mass
            // 1 / A_ii (without the softness)
            double stiffness = prepared->diagonal[i] - softness;
            double speed = closingBefore + CN_PHYSICS_SLACK;
            approachEnergy += stiffness > 0.0 ? 0.5 * speed * speed / stiffness : 0.0;
            approach = cnWorst( approach, closingBefore );
            closing = cnWorst( closing, -after - fmax( bias, 0.0 ) - closingBefore );
        }
    }
    // an overdamped problem's lambda are forces and its bodies carry no kinetic energy
    bool inertial = problem->dynamics == cn_dynamicsInertial;
    physics->energyAdded = inertial ? added - allowed : (double)NAN;
    physics->approachEnergy = inertial ? approachEnergy : (double)NAN;
    physics->closing = closing;
    physics->approach = approach;
}

bool cnComputeSolverMerits( const cnSolverProblem* problem, const double* lambda, cnArena* arena,
                            cnSolverMerits* merits )
{
    cnSolverMerits nan = { (double)NAN, (double)NAN, (double)NAN, (double)NAN, (double)NAN };
    if ( merits == NULL )
    {
        return false;
    }
    *merits = nan;
    if ( !cnValidateProblem( problem, NULL ) || ( problem->rowCount > 0 && lambda == NULL ) )
    {
        return false;
    }
    cnScratch scratch = { .arena = arena };
    cnPrepared prepared;
    double* velocity = NULL;
    double* w = NULL;
    bool ok = cnPrepareProblem( problem, &scratch, &prepared );
    if ( ok )
    {
        velocity = cnScratchDoubles( &scratch, 6 * problem->bodyCount );
        w = cnScratchDoubles( &scratch, problem->rowCount );
        ok = velocity != NULL && w != NULL;
    }
    if ( ok )
    {
        cnComputeVelocity( problem, &prepared, lambda, velocity );
        cnComputeW( problem, &prepared, lambda, velocity, w );
        cnMeritsFromW( problem, &prepared, lambda, w, merits );
    }
    cnScratchRelease( &scratch );
    return ok;
}

void cnRecordHistory( const cnSolverSolution* solution, cnSolverStats* stats, double merit )
{
    if ( solution->residualHistory != NULL && stats->historyCount < solution->residualHistoryCapacity )
    {
        solution->residualHistory[stats->historyCount] = merit;
    }
    stats->historyCount += 1;
}

void cnCopyDoubles( double* to, const double* from, int count )
{
    if ( count > 0 )
    {
        memcpy( to, from, (size_t)count * sizeof( double ) );
    }
}
