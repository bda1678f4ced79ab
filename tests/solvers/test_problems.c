// SPDX-License-Identifier: MIT
// Hand-built solver problems shared by the test files.
#include "arena.h"
#include "solver_layer.h"
#include "solvers_suites.h"

#include <stdlib.h>
#include <string.h>

cntLcp* cntCreateLcp( int rowCapacity, int bodyCapacity )
{
    cntLcp* lcp = calloc( 1, sizeof( cntLcp ) );
    size_t rows = (size_t)rowCapacity + 1;
    size_t bodies = (size_t)bodyCapacity + 1;
    lcp->rowCapacity = rowCapacity;
    lcp->bodyCapacity = bodyCapacity;
    lcp->groups = calloc( rows, sizeof( cnRowGroup ) );
    lcp->lower = calloc( rows, sizeof( double ) );
    lcp->upper = calloc( rows, sizeof( double ) );
    lcp->b = calloc( rows, sizeof( double ) );
    lcp->bodyA = calloc( rows, sizeof( int32_t ) );
    lcp->bodyB = calloc( rows, sizeof( int32_t ) );
    lcp->jacobianA = calloc( 6 * rows, sizeof( double ) );
    lcp->jacobianB = calloc( 6 * rows, sizeof( double ) );
    lcp->wLinear = calloc( 9 * bodies, sizeof( double ) );
    lcp->wAngular = calloc( 9 * bodies, sizeof( double ) );
    lcp->freeVelocity = calloc( 6 * bodies, sizeof( double ) );
    lcp->rowStart = calloc( rows, sizeof( int ) );
    lcp->column = calloc( rows * rows, sizeof( int ) );
    lcp->value = calloc( rows * rows, sizeof( double ) );

    cnSolverProblem* p = &lcp->problem;
    p->rowCapacity = rowCapacity;
    p->groupCapacity = rowCapacity;
    p->groups = lcp->groups;
    p->lower = lcp->lower;
    p->upper = lcp->upper;
    p->b = lcp->b;
    p->bodyA = lcp->bodyA;
    p->bodyB = lcp->bodyB;
    p->jacobianA = lcp->jacobianA;
    p->jacobianB = lcp->jacobianB;
    p->wLinear = lcp->wLinear;
    p->wAngular = lcp->wAngular;
    return lcp;
}

void cntDestroyLcp( cntLcp* lcp )
{
    if ( lcp == NULL )
    {
        return;
    }
    free( lcp->groups );
    free( lcp->lower );
    free( lcp->upper );
    free( lcp->b );
    free( lcp->bodyA );
    free( lcp->bodyB );
    free( lcp->jacobianA );
    free( lcp->jacobianB );
    free( lcp->wLinear );
    free( lcp->wAngular );
    free( lcp->freeVelocity );
    free( lcp->rowStart );
    free( lcp->column );
    free( lcp->value );
    free( lcp );
}

int cntAddBody( cntLcp* lcp, double mass, double invInertiaX, double invInertiaY, double invInertiaZ,
                double vx, double vy, double vz )
{
    int body = lcp->problem.bodyCount++;
    ck_assert_int_le( lcp->problem.bodyCount, lcp->bodyCapacity );
    double* wl = lcp->wLinear + 9 * body;
    double* wa = lcp->wAngular + 9 * body;
    memset( wl, 0, 9 * sizeof( double ) );
    memset( wa, 0, 9 * sizeof( double ) );
    wl[0] = wl[4] = wl[8] = 1.0 / mass;
    wa[0] = invInertiaX;
    wa[4] = invInertiaY;
    wa[8] = invInertiaZ;
    double* v = lcp->freeVelocity + 6 * body;
    memset( v, 0, 6 * sizeof( double ) );
    v[0] = vx;
    v[1] = vy;
    v[2] = vz;
    return body;
}

void cntSetBodyW( cntLcp* lcp, int body, const double* wLinear, const double* wAngular )
{
    memcpy( lcp->wLinear + 9 * body, wLinear, 9 * sizeof( double ) );
    memcpy( lcp->wAngular + 9 * body, wAngular, 9 * sizeof( double ) );
}

// a row without its group (the contact builder groups three of them)
static int cntAddRawRow( cntLcp* lcp, int bodyA, int bodyB, const double* jacobianA, const double* jacobianB )
{
    int row = lcp->problem.rowCount++;
    ck_assert_int_le( lcp->problem.rowCount, lcp->rowCapacity );
    lcp->lower[row] = 0.0;
    lcp->upper[row] = 0.0;
    lcp->b[row] = 0.0;
    lcp->bodyA[row] = bodyA;
    lcp->bodyB[row] = bodyB;
    for ( int k = 0; k < 6; ++k )
    {
        lcp->jacobianA[6 * row + k] = jacobianA != NULL ? jacobianA[k] : 0.0;
        lcp->jacobianB[6 * row + k] = jacobianB != NULL ? jacobianB[k] : 0.0;
    }
    return row;
}

int cntAddRow( cntLcp* lcp, cnRowKind kind, int bodyA, int bodyB, const double* jacobianA,
               const double* jacobianB )
{
    int row = cntAddRawRow( lcp, bodyA, bodyB, jacobianA, jacobianB );
    ck_assert( kind == cn_rowNormal || kind == cn_rowBounded );
    lcp->groups[lcp->problem.groupCount++] =
        ( cnRowGroup ){ .firstRow = row,
                        .rowCount = 1,
                        .kind = (uint8_t)( kind == cn_rowNormal ? cn_groupNormal : cn_groupBounded ) };
    return row;
}

static void cntCross( const double* a, const double* b, double* out )
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

// J_B = [d, rB x d], J_A = -[d, rA x d]
static int cntAddDirectionRow( cntLcp* lcp, int bodyA, int bodyB, const double* rA, const double* rB,
                               const double* d )
{
    double ja[6] = { -d[0], -d[1], -d[2], 0, 0, 0 };
    double jb[6] = { d[0], d[1], d[2], 0, 0, 0 };
    double c[3];
    cntCross( rA, d, c );
    ja[3] = -c[0];
    ja[4] = -c[1];
    ja[5] = -c[2];
    cntCross( rB, d, c );
    jb[3] = c[0];
    jb[4] = c[1];
    jb[5] = c[2];
    return cntAddRawRow( lcp, bodyA, bodyB, bodyA >= 0 ? ja : NULL, bodyB >= 0 ? jb : NULL );
}

int cntAddContact( cntLcp* lcp, int bodyA, int bodyB, const double* rA, const double* rB, const double* n,
                   const double* t1, const double* t2, double mu, bool withFriction )
{
    int normal = cntAddDirectionRow( lcp, bodyA, bodyB, rA, rB, n );
    if ( withFriction )
    {
        cntAddDirectionRow( lcp, bodyA, bodyB, rA, rB, t1 );
        cntAddDirectionRow( lcp, bodyA, bodyB, rA, rB, t2 );
    }
    lcp->groups[lcp->problem.groupCount++] =
        ( cnRowGroup ){ .firstRow = normal,
                        .rowCount = withFriction ? 3 : 1,
                        .kind = (uint8_t)( withFriction ? cn_groupContact : cn_groupNormal ),
                        .model = cn_frictionPyramid,
                        .mu = withFriction ? mu : 0.0 };
    return normal;
}

void cntFinishB( cntLcp* lcp )
{
    for ( int i = 0; i < lcp->problem.rowCount; ++i )
    {
        double sum = 0.0;
        if ( lcp->bodyA[i] >= 0 )
        {
            for ( int k = 0; k < 6; ++k )
            {
                sum += lcp->jacobianA[6 * i + k] * lcp->freeVelocity[6 * lcp->bodyA[i] + k];
            }
        }
        if ( lcp->bodyB[i] >= 0 )
        {
            for ( int k = 0; k < 6; ++k )
            {
                sum += lcp->jacobianB[6 * i + k] * lcp->freeVelocity[6 * lcp->bodyB[i] + k];
            }
        }
        lcp->b[i] = sum;
    }
}

void cntSetDense( cntLcp* lcp, int n, const double* dense, const double* q )
{
    ck_assert_int_le( n, lcp->rowCapacity );
    cnSolverProblem* p = &lcp->problem;
    p->rowCount = n;
    p->groupCount = n;
    p->bodyCount = 0;
    int at = 0;
    lcp->rowStart[0] = 0;
    for ( int i = 0; i < n; ++i )
    {
        lcp->groups[i] = ( cnRowGroup ){ .firstRow = i, .rowCount = 1, .kind = cn_groupNormal };
        lcp->b[i] = q[i];
        for ( int j = 0; j < n; ++j )
        {
            if ( dense[i * n + j] != 0.0 )
            {
                lcp->column[at] = j;
                lcp->value[at] = dense[i * n + j];
                ++at;
            }
        }
        lcp->rowStart[i + 1] = at;
    }
    lcp->matrix = ( cnSparseMatrix ){ n, n, lcp->rowStart, lcp->column, lcp->value };
    p->matrix = &lcp->matrix;
}

cntLcp* cntCreateStack( int boxes, double speed, double mu )
{
    cntLcp* lcp = cntCreateLcp( 12 * boxes, boxes );
    static const double n[3] = { 0, 0, 1 };
    static const double t1[3] = { 1, 0, 0 };
    static const double t2[3] = { 0, 1, 0 };
    // unit cube, mass 1: I = 1/6 about each axis
    for ( int k = 0; k < boxes; ++k )
    {
        cntAddBody( lcp, 1.0, 6.0, 6.0, 6.0, 0.0, 0.0, -speed );
    }
    for ( int k = 0; k < boxes; ++k )
    {
        for ( int c = 0; c < 4; ++c )
        {
            double x = ( c & 1 ) ? 0.5 : -0.5;
            double y = ( c & 2 ) ? 0.5 : -0.5;
            double rB[3] = { x, y, -0.5 };
            double rA[3] = { x, y, 0.5 };
            cntAddContact( lcp, k - 1, k, rA, rB, n, t1, t2, mu, true );
        }
    }
    cntFinishB( lcp );
    return lcp;
}

int cntParamIndex( const cnSolverVTable* solver, const char* name )
{
    for ( int k = 0; k < solver->paramCount; ++k )
    {
        if ( strcmp( solver->params[k].name, name ) == 0 )
        {
            return k;
        }
    }
    return -1;
}

cnSolverStats cntSolve( const cnSolverVTable* solver, cnSolverProblem* problem, double* lambda,
                        double* deltaVelocity, int iterations, double tolerance, double relaxation )
{
    return cntSolveWithHistory( solver, problem, lambda, deltaVelocity, iterations, tolerance, relaxation,
                                NULL, 0 );
}

cnSolverStats cntSolveWithHistory( const cnSolverVTable* solver, cnSolverProblem* problem, double* lambda,
                                   double* deltaVelocity, int iterations, double tolerance, double relaxation,
                                   double* history, int historyCapacity )
{
    double params[CN_MAX_SOLVER_PARAMS];
    for ( int k = 0; k < solver->paramCount; ++k )
    {
        params[k] = solver->params[k].defaultValue;
    }
    int index = cntParamIndex( solver, "iterations" );
    if ( iterations >= 0 && index >= 0 )
    {
        params[index] = (double)iterations;
    }
    index = cntParamIndex( solver, "tolerance" );
    if ( tolerance >= 0.0 && index >= 0 )
    {
        params[index] = tolerance;
    }
    index = cntParamIndex( solver, "relaxation" );
    if ( relaxation >= 0.0 && index >= 0 )
    {
        params[index] = relaxation;
    }
    return cntSolveWithParams( solver, problem, lambda, deltaVelocity, params, history, historyCapacity );
}

cnSolverStats cntSolveWithParams( const cnSolverVTable* solver, cnSolverProblem* problem, double* lambda,
                                  double* deltaVelocity, const double* params, double* history,
                                  int historyCapacity )
{
    void* state = NULL;
    if ( solver->create != NULL )
    {
        ck_assert_int_eq( solver->create( params, NULL, &state ), cn_statusOk );
    }
    cnArena arena;
    cnCreateArena( &arena, NULL, 1024 );
    cnSolverSolution solution = { .lambda = lambda,
                                  .deltaVelocity = deltaVelocity,
                                  .residualHistory = history,
                                  .residualHistoryCapacity = historyCapacity };
    cnSolverStats stats;
    cnSolverBudget budget = cnBudgetFromParams( solver, params );
    cnLayerSolve( solver, state, params, &budget, problem, &solution, &arena, NULL, &stats );
    cnDestroyArena( &arena );
    if ( solver->destroy != NULL )
    {
        solver->destroy( state, NULL );
    }
    return stats;
}
