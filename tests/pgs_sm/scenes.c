// SPDX-License-Identifier: MIT
// The Appendix A scenes of the PGS-SM digest (amgs.md Appendix A has the exact construction and
// row order) and the dense references the tests compare the solver with.
#include "scenes.h"

#include "test_support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static cntSmScene* cntSmSceneCreate( int rowCapacity, int bodyCapacity, const char* name )
{
    cntSmScene* scene = calloc( 1, sizeof( cntSmScene ) );
    scene->lcp = cntCreateLcp( rowCapacity, bodyCapacity );
    snprintf( scene->name, sizeof( scene->name ), "%s", name );
    return scene;
}

void cntSmSceneFree( cntSmScene* scene )
{
    if ( scene == NULL )
    {
        return;
    }
    cntDestroyLcp( scene->lcp );
    free( scene->softness );
    free( scene->dense );
    free( scene );
}

// a disc of mass m and radius r as a 3-D body moving in the plane
static int cntSmDisc( cntSmScene* scene, double mass, double radius, double vx, double vy )
{
    double inverseInertia = 1.0 / ( 0.5 * mass * radius * radius );
    return cntAddBody( scene->lcp, mass, inverseInertia, inverseInertia, inverseInertia, vx, vy, 0.0 );
}

// a row and its group: a normal group, or with upper > 0 a bounded one in [0, upper]
static int cntSmRow( cntSmScene* scene, double upper, int a, int b, const double* ja, const double* jb )
{
    int row = cntAddRow( scene->lcp, upper > 0.0 ? cn_rowBounded : cn_rowNormal, a, b, ja, jb );
    if ( upper > 0.0 )
    {
        scene->lcp->lower[row] = 0.0;
        scene->lcp->upper[row] = upper;
    }
    return row;
}

// a frictionless normal row (a, b) with n = (p_b - p_a) / |p_b - p_a|: J_b = +n, J_a = -n
static void cntSmDiscRow( cntSmScene* scene, double upper, int a, int b, const double* pa, const double* pb )
{
    double dx = pb[0] - pa[0];
    double dy = pb[1] - pa[1];
    double length = sqrt( dx * dx + dy * dy );
    double nx = dx / length, ny = dy / length;
    double ja[6] = { -nx, -ny, 0, 0, 0, 0 };
    double jb[6] = { nx, ny, 0, 0, 0, 0 };
    cntSmRow( scene, upper, a, b, ja, jb );
}

// a row between the static world and body a: J[a] = (jx, jy)
static int cntSmWorldRow( cntSmScene* scene, double upper, int a, double jx, double jy )
{
    double j[6] = { jx, jy, 0, 0, 0, 0 };
    return cntSmRow( scene, upper, -1, a, NULL, j );
}

// turn row `row` (the last group's) into a free bilateral row
static void cntSmMakeBilateral( cntSmScene* scene, int row )
{
    cntLcp* lcp = scene->lcp;
    ck_assert_int_eq( lcp->groups[lcp->problem.groupCount - 1].firstRow, row );
    lcp->groups[lcp->problem.groupCount - 1].kind = cn_groupBilateral;
    lcp->lower[row] = -INFINITY;
    lcp->upper[row] = INFINITY;
}

// the rows of body `body`: its index in the row's sides and J there (up to two sides)
static int cntSmRowSides( const cnSolverProblem* p, int row, int bodies[2], const double* j[2] )
{
    int count = 0;
    if ( p->bodyA[row] >= 0 )
    {
        bodies[count] = p->bodyA[row];
        j[count++] = p->jacobianA + 6 * row;
    }
    if ( p->bodyB[row] >= 0 )
    {
        bodies[count] = p->bodyB[row];
        j[count++] = p->jacobianB + 6 * row;
    }
    return count;
}

// sum + J_i W J_j^T on one body (added term by term to the running sum)
static double cntSmCouple( const cnSolverProblem* p, int body, const double* ji, const double* jj,
                           double sum )
{
    const double* wl = p->wLinear + 9 * body;
    const double* wa = p->wAngular + 9 * body;
    for ( int r = 0; r < 3; ++r )
    {
        for ( int c = 0; c < 3; ++c )
        {
            sum += ji[r] * wl[3 * r + c] * jj[c] + ji[3 + r] * wa[3 * r + c] * jj[3 + c];
        }
    }
    return sum;
}

// termwise: every term of J_i W J_j^T added to the entry's running sum (tests/amgs's order), else
// one sum per body shared, added to the entry (the order of the PGS-SM tests' numbers)
static void cntSmAssembleIn( cntSmScene* scene, bool termwise )
{
    const cnSolverProblem* p = &scene->lcp->problem;
    int n = p->rowCount;
    scene->n = n;
    free( scene->dense );
    scene->dense = calloc( (size_t)n * (size_t)n, sizeof( double ) );
    for ( int i = 0; i < n; ++i )
    {
        int bi[2], bj[2];
        const double *ji[2], *jj[2];
        int ci = cntSmRowSides( p, i, bi, ji );
        for ( int j = 0; j < n; ++j )
        {
            int cj = cntSmRowSides( p, j, bj, jj );
            double sum = 0.0;
            for ( int s = 0; s < ci; ++s )
            {
                for ( int t = 0; t < cj; ++t )
                {
                    if ( bi[s] == bj[t] )
                    {
                        sum = termwise ? cntSmCouple( p, bi[s], ji[s], jj[t], sum )
                                       : sum + cntSmCouple( p, bi[s], ji[s], jj[t], 0.0 );
                    }
                }
            }
            scene->dense[(size_t)i * n + j] = sum;
        }
        scene->dense[(size_t)i * n + i] += p->softness != NULL ? p->softness[i] : 0.0;
    }
}

void cntSmAssemble( cntSmScene* scene )
{
    cntSmAssembleIn( scene, false );
}

void cntSmAssembleTermwise( cntSmScene* scene )
{
    cntSmAssembleIn( scene, true );
}

// softness c mean(diag A) on every row (c = 0: none), then the dense matrix
static void cntSmFinish( cntSmScene* scene, double cfm )
{
    cntFinishB( scene->lcp );
    cnSolverProblem* p = &scene->lcp->problem;
    p->softness = NULL;
    cntSmAssemble( scene );
    if ( cfm > 0.0 )
    {
        int n = scene->n;
        double mean = 0.0;
        for ( int i = 0; i < n; ++i )
        {
            mean += scene->dense[(size_t)i * n + i];
        }
        mean /= n;
        scene->softness = calloc( (size_t)scene->lcp->rowCapacity + 1, sizeof( double ) );
        for ( int i = 0; i < n; ++i )
        {
            scene->softness[i] = cfm * mean;
        }
        p->softness = scene->softness;
        cntSmAssemble( scene );
    }
}

// amgs.md Appendix A, pyramid12: r = 0.2, gap 0.01, h = r (1 + gap), dy = sqrt((2r)^2 - h^2); level
// L = 0..11 has 12 - L discs at x = r + L h + 2 h c, y = r + L dy; body i moves at
// (0.5 sin(1.3 i), -g dt + 0.5 cos(0.7 i)). Rows: the floor of each level-0 disc in index order,
// then for each disc a in index order each disc b of level L(a) + 1 (index order) closer than
// 2r (1 + 1e-9). mixed: the floor rows free bilateral rows; upper > 0: bounded rows in [0, upper].
static cntSmScene* cntSmPyramidBuild( bool graded, bool mixed, double upper )
{
    const double r = 0.2, gap = 0.01;
    const double h = r * ( 1.0 + gap );
    const double dy = sqrt( 4.0 * r * r - h * h );
    char name[48];
    snprintf( name, sizeof( name ), "pyramid12%s%s", mixed ? " mixed" : ( graded ? " graded" : " equal" ),
              upper > 0.0 ? " bounded" : "" );
    cntSmScene* scene = cntSmSceneCreate( 144, 78, name );
    double position[78][2];
    int level[78];
    int count = 0;
    for ( int l = 0; l < 12; ++l )
    {
        for ( int c = 0; c < 12 - l; ++c )
        {
            double mass = graded ? 1.0 + 99.0 * l / 11.0 : 1.0;
            position[count][0] = r + l * h + 2.0 * h * c;
            position[count][1] = r + l * dy;
            level[count] = l;
            int i = count;
            cntSmDisc( scene, mass, r, 0.5 * sin( 1.3 * i ), -CNT_SM_G * CNT_SM_DT + 0.5 * cos( 0.7 * i ) );
            ++count;
        }
    }
    for ( int a = 0; a < count; ++a )
    {
        if ( level[a] == 0 )
        {
            int row = cntSmWorldRow( scene, upper, a, 0.0, 1.0 );
            if ( mixed )
            {
                cntSmMakeBilateral( scene, row );
            }
        }
    }
    for ( int a = 0; a < count; ++a )
    {
        for ( int b = 0; b < count; ++b )
        {
            if ( level[b] != level[a] + 1 )
            {
                continue;
            }
            double dx = position[b][0] - position[a][0];
            double dyab = position[b][1] - position[a][1];
            if ( sqrt( dx * dx + dyab * dyab ) < 2.0 * r * ( 1.0 + 1e-9 ) )
            {
                cntSmDiscRow( scene, upper, a, b, position[a], position[b] );
            }
        }
    }
    cntSmFinish( scene, 0.0 );
    return scene;
}

cntSmScene* cntSmPyramid12( bool graded )
{
    return cntSmPyramidBuild( graded, false, 0.0 );
}

cntSmScene* cntSmPyramid12Mixed( void )
{
    return cntSmPyramidBuild( false, true, 0.0 );
}

cntSmScene* cntSmPyramid12Variant( bool graded, double upper )
{
    return cntSmPyramidBuild( graded, false, upper );
}

// amgs.md Appendix A, hexpool: r = 0.21, 10 layers; layer L has 10 - (L mod 2) discs at
// x = r + (r if L odd) + 2 r c, y = r + L r sqrt(3); box width W = 20 r; body i moves at
// (0.3 sin(1.3 i), -g dt + 0.3 cos(0.7 i)). Rows, for each disc a in index order: disc-disc rows
// (a, b) for b > a closer than 2 r 1.001, then the floor (y_a - r < 1e-9), the left wall
// (x_a - r < 1e-9), the right wall (x_a + r > W - 1e-9). upper > 0: bounded rows in [0, upper].
static cntSmScene* cntSmHexpoolBuild( bool graded, double cfm, double upper )
{
    const double r = 0.21;
    const double width = 20.0 * r;
    char name[48];
    if ( cfm > 0.0 )
    {
        snprintf( name, sizeof( name ), "hexpool %s cfm %g", graded ? "graded" : "equal", cfm );
    }
    else
    {
        snprintf( name, sizeof( name ), "hexpool %s no cfm%s", graded ? "graded" : "equal",
                  upper > 0.0 ? " bounded" : "" );
    }
    cntSmScene* scene = cntSmSceneCreate( 300, 95, name );
    double position[95][2];
    int count = 0;
    for ( int l = 0; l < 10; ++l )
    {
        for ( int c = 0; c < 10 - ( l % 2 ); ++c )
        {
            double x = r + ( l % 2 == 1 ? r : 0.0 ) + 2.0 * r * c;
            double y = r + l * r * sqrt( 3.0 );
            double mass = graded ? 1.0 + 99.0 * fmin( 1.0, y / 3.3 ) : 2.0;
            position[count][0] = x;
            position[count][1] = y;
            int i = count;
            cntSmDisc( scene, mass, r, 0.3 * sin( 1.3 * i ), -CNT_SM_G * CNT_SM_DT + 0.3 * cos( 0.7 * i ) );
            ++count;
        }
    }
    for ( int a = 0; a < count; ++a )
    {
        for ( int b = a + 1; b < count; ++b )
        {
            double dx = position[b][0] - position[a][0];
            double dy = position[b][1] - position[a][1];
            if ( sqrt( dx * dx + dy * dy ) < 2.0 * r * 1.001 )
            {
                cntSmDiscRow( scene, upper, a, b, position[a], position[b] );
            }
        }
        if ( position[a][1] - r < 1e-9 )
        {
            cntSmWorldRow( scene, upper, a, 0.0, 1.0 );
        }
        if ( position[a][0] - r < 1e-9 )
        {
            cntSmWorldRow( scene, upper, a, 1.0, 0.0 );
        }
        if ( position[a][0] + r > width - 1e-9 )
        {
            cntSmWorldRow( scene, upper, a, -1.0, 0.0 );
        }
    }
    cntSmFinish( scene, cfm );
    return scene;
}

cntSmScene* cntSmHexpool( bool graded, double cfm )
{
    return cntSmHexpoolBuild( graded, cfm, 0.0 );
}

cntSmScene* cntSmHexpoolVariant( bool graded, double upper )
{
    return cntSmHexpoolBuild( graded, 0.0, upper );
}

// amgs.md Appendix A, stack30: 30 discs (r = 0.5) one above the other, mass 1 (graded: 1 + 2 i / 29);
// rows ground-body 0 (J[0.vy] = 1), then J[(i-1).vy] = -1, J[i.vy] = +1. bilateral: free bilateral
// rows and velocities (0, 0.5 cos(0.7 i)); upper > 0: bounded rows in [0, upper].
static cntSmScene* cntSmStackBuild( bool graded, bool bilateral, double upper )
{
    char name[48];
    snprintf( name, sizeof( name ), "stack30%s%s%s", graded ? " graded" : "", bilateral ? " bilateral" : "",
              upper > 0.0 ? " bounded" : "" );
    cntSmScene* scene = cntSmSceneCreate( 30, 30, name );
    for ( int i = 0; i < 30; ++i )
    {
        double vy = bilateral ? 0.5 * cos( 0.7 * i ) : -CNT_SM_G * CNT_SM_DT;
        cntSmDisc( scene, graded ? 1.0 + 2.0 * i / 29.0 : 1.0, 0.5, 0.0, vy );
    }
    for ( int i = 0; i < 30; ++i )
    {
        int row;
        if ( i == 0 )
        {
            row = cntSmWorldRow( scene, upper, 0, 0.0, 1.0 );
        }
        else
        {
            double ja[6] = { 0, -1, 0, 0, 0, 0 };
            double jb[6] = { 0, 1, 0, 0, 0, 0 };
            row = cntSmRow( scene, upper, i - 1, i, ja, jb );
        }
        if ( bilateral )
        {
            cntSmMakeBilateral( scene, row );
        }
    }
    cntSmFinish( scene, 0.0 );
    return scene;
}

cntSmScene* cntSmStack30( bool bilateral )
{
    return cntSmStackBuild( false, bilateral, 0.0 );
}

cntSmScene* cntSmStack30Variant( bool graded, double upper )
{
    return cntSmStackBuild( graded, false, upper );
}

// ---- dense references ---------------------------------------------------------------------------------

static bool cntSmIsFree( const cntSmScene* scene, int row )
{
    const cntLcp* lcp = scene->lcp;
    for ( int g = 0; g < lcp->problem.groupCount; ++g )
    {
        const cnRowGroup* group = lcp->groups + g;
        if ( row >= group->firstRow && row < group->firstRow + group->rowCount )
        {
            return group->kind == cn_groupBilateral && isinf( lcp->lower[row] ) && isinf( lcp->upper[row] );
        }
    }
    return false;
}

void cntSmW( const cntSmScene* scene, const double* lambda, double* w )
{
    int n = scene->n;
    for ( int i = 0; i < n; ++i )
    {
        double sum = 0.0;
        for ( int j = 0; j < n; ++j )
        {
            sum += scene->dense[(size_t)i * n + j] * lambda[j];
        }
        w[i] = sum + scene->lcp->b[i];
    }
}

double cntSmPhi( const cntSmScene* scene, const double* lambda )
{
    int n = scene->n;
    double* w = calloc( (size_t)n, sizeof( double ) );
    cntSmW( scene, lambda, w );
    double phi = 0.0;
    for ( int i = 0; i < n; ++i )
    {
        phi += 0.5 * lambda[i] * ( w[i] + scene->lcp->b[i] );
    }
    free( w );
    return phi;
}

double cntSmR1( const cntSmScene* scene, const double* lambda )
{
    int n = scene->n;
    double* w = calloc( (size_t)n, sizeof( double ) );
    cntSmW( scene, lambda, w );
    double rhoA = 0.0, rhoB = 0.0, rhoC = 0.0, normA = 0.0, normB = 0.0;
    for ( int i = 0; i < n; ++i )
    {
        double b = fabs( scene->lcp->b[i] );
        if ( cntSmIsFree( scene, i ) )
        {
            rhoA = fmax( rhoA, fabs( w[i] ) );
            normA = fmax( normA, b );
        }
        else
        {
            rhoB = fmax( rhoB, fabs( fmin( lambda[i], w[i] ) ) );
            rhoC = fmax( rhoC, -w[i] );
            normB = fmax( normB, b );
        }
    }
    free( w );
    return fmax( rhoA / ( 1.0 + normA ), fmax( rhoB, rhoC ) / ( 1.0 + normB ) );
}

void cntSmTextbookSweep( const cntSmScene* scene, double* lambda )
{
    int n = scene->n;
    for ( int i = 0; i < n; ++i )
    {
        const double* row = scene->dense + (size_t)i * n;
        double residual = scene->lcp->b[i];
        for ( int j = 0; j < n; ++j )
        {
            residual += row[j] * lambda[j];
        }
        double next = lambda[i] - residual / row[i];
        lambda[i] = cntSmIsFree( scene, i ) ? next : fmax( 0.0, next );
    }
}

bool cntSmDenseSolve( const cntSmScene* scene, const int* rows, int count, const double* rhs, double* x )
{
    int n = scene->n;
    double* l = calloc( (size_t)count * (size_t)count + 1, sizeof( double ) );
    bool ok = true;
    for ( int j = 0; j < count && ok; ++j )
    {
        double d = scene->dense[(size_t)rows[j] * n + rows[j]];
        for ( int k = 0; k < j; ++k )
        {
            d -= l[j * count + k] * l[j * count + k];
        }
        ok = d > 0.0;
        d = ok ? sqrt( d ) : 1.0;
        l[j * count + j] = d;
        for ( int i = j + 1; i < count; ++i )
        {
            double s = scene->dense[(size_t)rows[i] * n + rows[j]];
            for ( int k = 0; k < j; ++k )
            {
                s -= l[i * count + k] * l[j * count + k];
            }
            l[i * count + j] = s / d;
        }
    }
    if ( ok )
    {
        for ( int i = 0; i < count; ++i )
        {
            double s = rhs[i];
            for ( int k = 0; k < i; ++k )
            {
                s -= l[i * count + k] * x[k];
            }
            x[i] = s / l[i * count + i];
        }
        for ( int i = count - 1; i >= 0; --i )
        {
            double s = x[i];
            for ( int k = i + 1; k < count; ++k )
            {
                s -= l[k * count + i] * x[k];
            }
            x[i] = s / l[i * count + i];
        }
    }
    free( l );
    return ok;
}
