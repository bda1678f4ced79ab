// SPDX-License-Identifier: MIT
// Smooth-surface deepest-point queries: see smooth.h for what is computed and the conventions.
//
// Layout of this file:
// 1. placed shapes and the support function of a convex core as a maximum of smooth pieces;
// 2. the minimax Newton method on the sphere of normals (convex pairs);
// 3. signed distance from a point to every shape (what the torus queries are built on);
// 4. the torus queries (a function of the angle around the ring);
// 5. the query dispatcher, and the narrowphase pair functions.

#include "smooth.h"

#include "ccd_support.h"
#include "closed_form.h"

#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

_Thread_local cnSmoothStats cn_smoothStats;

// ---------------------------------------------------------------------------------------------
// 1. Placed shapes and support pieces
//
// Spheres, capsules and tori are a core (a point, a segment, a circle) swept by a ball. The ball
// adds its radius to the support function along every unit direction, so it shifts Phi(n) by a
// constant and leaves the maximiser alone: the convex queries work on the cores and put the radii
// back at the end.

#define CN_PLACED_VERTICES 128

typedef struct cnPlaced
{
    const cnCollisionShape* shape;
    cnShapeType type;
    cnMat3 r;        // shape axes in the world (columns)
    cnVec3 p;        // shape origin, world
    double radius;   // the ball the core is swept by: sphere, capsule, torus (minor); else 0
    double size;     // bounding radius about p (for tolerances)
    cnVec3 point[2]; // capsule core end points (world); sphere: point[0] = centre
    cnMat3 sigma;    // ellipsoid: R diag(r^2) R^T
    // box and hull: the vertices placed in the world, when there are at most CN_PLACED_VERTICES
    // (else vertexCount is 0 and they are placed on the way)
    int vertexCount;
    cnVec3 vertices[CN_PLACED_VERTICES];
    // hull: its triangles' planes in the world (unit normal, offset), cached on the same terms
    int planeCount;
    cnVec3 planeNormals[2 * CN_PLACED_VERTICES];
    double planeOffsets[2 * CN_PLACED_VERTICES];
} cnPlaced;

// Fills `out` (only the header is cleared: the vertex and plane caches are written as far as they
// are used)
static void cnPlace( const cnCollisionShape* shape, cnPlaced* out )
{
    memset( out, 0, offsetof( cnPlaced, vertices ) );
    out->planeCount = 0;
    out->shape = shape;
    out->type = shape->geometry->type;
    out->r = cnMat3FromQuat( cnNormalizeQuat( shape->transform.q ) );
    out->p = shape->transform.p;
    out->size = cnLocalBoundingRadius( shape->geometry, shape->hull ) +
                cnLength( cnLocalCenter( shape->geometry, shape->hull ) );
    const cnGeometry* g = shape->geometry;
    switch ( out->type )
    {
        case cn_sphereShape:
            out->radius = g->sphere.radius;
            out->point[0] = out->p;
            break;
        case cn_capsuleShape:
            out->radius = g->capsule.radius;
            out->point[0] = cnMulAdd( out->p, -g->capsule.halfLength, out->r.cz );
            out->point[1] = cnMulAdd( out->p, g->capsule.halfLength, out->r.cz );
            break;
        case cn_torusShape:
            out->radius = g->torus.minorRadius;
            break;
        case cn_ellipsoidShape:
        {
            cnVec3 e = g->ellipsoid.radii;
            cnMat3 d = cnMakeMat3Diagonal( e.x * e.x, e.y * e.y, e.z * e.z );
            out->sigma = cnMulMM( cnMulMM( out->r, d ), cnTranspose( out->r ) );
            break;
        }
        case cn_boxShape:
        {
            cnVec3 h = g->box.halfExtents;
            out->vertexCount = 8;
            for ( int k = 0; k < 8; ++k )
            {
                cnVec3 local =
                    cnMakeVec3( ( k & 1 ) ? h.x : -h.x, ( k & 2 ) ? h.y : -h.y, ( k & 4 ) ? h.z : -h.z );
                out->vertices[k] = cnAdd( cnMulMV( out->r, local ), out->p );
            }
            break;
        }
        case cn_hullShape:
        {
            const cnVec3* v =
                shape->hull != NULL && shape->hull->vertexCount > 0 ? shape->hull->vertices : g->hull.points;
            int count = shape->hull != NULL && shape->hull->vertexCount > 0
                            ? shape->hull->vertexCount
                            : ( v != NULL ? g->hull.pointCount : 0 );
            if ( count <= CN_PLACED_VERTICES )
            {
                out->vertexCount = count;
                for ( int k = 0; k < count; ++k )
                {
                    out->vertices[k] = cnAdd( cnMulMV( out->r, v[k] ), out->p );
                }
            }
            const cnHull* h = shape->hull;
            if ( h != NULL && h->triangleCount <= 2 * CN_PLACED_VERTICES )
            {
                for ( int t = 0; t < h->triangleCount; ++t )
                {
                    const int* tri = h->triangles + 3 * t;
                    cnVec3 normal = cnNormalizeOr(
                        cnMulMV( out->r, cnCross( cnSub( h->vertices[tri[1]], h->vertices[tri[0]] ),
                                                  cnSub( h->vertices[tri[2]], h->vertices[tri[0]] ) ) ),
                        cn_vec3Zero );
                    if ( cnLengthSquared( normal ) > 0.0 )
                    {
                        out->planeNormals[out->planeCount] = normal;
                        out->planeOffsets[out->planeCount] =
                            cnDot( normal, cnAdd( cnMulMV( out->r, h->vertices[tri[0]] ), out->p ) );
                        out->planeCount += 1;
                    }
                }
            }
            break;
        }
        default:
            break;
    }
}

static cnVec3 cnHullVertex( const cnPlaced* s, int k )
{
    const cnVec3* v = s->shape->hull != NULL && s->shape->hull->vertexCount > 0
                          ? s->shape->hull->vertices
                          : s->shape->geometry->hull.points;
    return cnAdd( cnMulMV( s->r, v[k] ), s->p );
}

static int cnHullVertexCount( const cnPlaced* s )
{
    if ( s->shape->hull != NULL && s->shape->hull->vertexCount > 0 )
    {
        return s->shape->hull->vertexCount;
    }
    return s->shape->geometry->hull.points != NULL ? s->shape->geometry->hull.pointCount : 0;
}

// How many smooth pieces the core's support function is the maximum of.
static int cnPieceCount( const cnPlaced* s )
{
    switch ( s->type )
    {
        case cn_sphereShape:
        case cn_ellipsoidShape:
            return 1;
        case cn_capsuleShape:
        case cn_cylinderShape:
            return 2;
        case cn_boxShape:
            return 8;
        case cn_hullShape:
            return cnHullVertexCount( s );
        default:
            return 0;
    }
}

// One piece: support value h = max over the piece of dot(n, x) for a unit n, its gradient (the
// support point, world) and, when hessian != NULL, its Euclidean Hessian (which maps n to 0).
static double cnPiece( const cnPlaced* s, int k, cnVec3 n, cnVec3* support, cnMat3* hessian )
{
    cnMat3 zero = { { 0, 0, 0 }, { 0, 0, 0 }, { 0, 0, 0 } };
    cnVec3 x;
    switch ( s->type )
    {
        case cn_sphereShape:
            x = s->point[0];
            break;
        case cn_capsuleShape:
            x = s->point[k];
            break;
        case cn_boxShape:
        case cn_hullShape:
            x = s->vertexCount > 0 ? s->vertices[k] : cnHullVertex( s, k );
            break;
        case cn_ellipsoidShape:
        {
            // h = c.n + sqrt(n^T S n), s = c + S n / sigma, H = S / sigma - (S n)(S n)^T / sigma^3
            cnVec3 sn = cnMulMV( s->sigma, n );
            double sigma = sqrt( fmax( cnDot( n, sn ), DBL_MIN ) );
            *support = cnMulAdd( s->p, 1.0 / sigma, sn );
            if ( hessian != NULL )
            {
                double i1 = 1.0 / sigma, i3 = 1.0 / ( sigma * sigma * sigma );
                cnMat3 h = cnScaleMat3( i1, s->sigma );
                cnVec3 c[3] = { cnScale( sn.x * i3, sn ), cnScale( sn.y * i3, sn ),
                                cnScale( sn.z * i3, sn ) };
                h.cx = cnSub( h.cx, c[0] );
                h.cy = cnSub( h.cy, c[1] );
                h.cz = cnSub( h.cz, c[2] );
                *hessian = h;
            }
            return cnDot( s->p, n ) + sigma;
        }
        case cn_cylinderShape:
        {
            // rim k: centre c +- l a, radius r in the plane normal to a. h = c'.n + r |P n|,
            // s = c' + r P n / |P n|, H = r (P - (P n)(P n)^T / |P n|^2) / |P n|. Straight along
            // the axis the support is the whole cap: its centre, and a Hessian capped at 1e12 r.
            double l = s->shape->geometry->cylinder.halfLength;
            double radius = s->shape->geometry->cylinder.radius;
            cnVec3 a = s->r.cz;
            cnVec3 c = cnMulAdd( s->p, k == 0 ? -l : l, a );
            cnVec3 pn = cnMulAdd( n, -cnDot( a, n ), a );
            double rho = cnLength( pn );
            double floorRho = 1e-12;
            *support = rho > floorRho ? cnMulAdd( c, radius / rho, pn ) : c;
            if ( hessian != NULL )
            {
                double q = fmax( rho, floorRho );
                cnMat3 h;
                cnVec3 e[3] = { { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 } };
                cnVec3 col[3];
                for ( int i = 0; i < 3; ++i )
                {
                    cnVec3 pe = cnMulAdd( e[i], -cnDot( a, e[i] ), a ); // P e_i
                    double pni = rho > floorRho ? cnDot( pn, e[i] ) / rho : 0.0;
                    cnVec3 u = rho > floorRho ? cnScale( 1.0 / rho, pn ) : cn_vec3Zero;
                    col[i] = cnScale( radius / q, cnMulAdd( pe, -pni, u ) );
                }
                h.cx = col[0];
                h.cy = col[1];
                h.cz = col[2];
                *hessian = h;
            }
            return cnDot( c, n ) + radius * rho;
        }
        default:
            x = s->p;
            break;
    }
    *support = x;
    if ( hessian != NULL )
    {
        *hessian = zero;
    }
    return cnDot( x, n );
}

// the core's support value along unit n: the largest piece (and which)
static double cnCoreSupport( const cnPlaced* s, cnVec3 n, int* which, cnVec3* support )
{
    int count = cnPieceCount( s );
    double best = -HUGE_VAL;
    int bestK = 0;
    cnVec3 bestS = s->p;
    for ( int k = 0; k < count; ++k )
    {
        cnVec3 x;
        double h = cnPiece( s, k, n, &x, NULL );
        if ( h > best )
        {
            best = h;
            bestK = k;
            bestS = x;
        }
    }
    if ( which != NULL )
    {
        *which = bestK;
    }
    if ( support != NULL )
    {
        *support = bestS;
    }
    return best;
}

// the cores' separation along unit n (A towards B): -h_A(n) - h_B(-n)
static double cnCorePhi( const cnPlaced* a, const cnPlaced* b, cnVec3 n )
{
    return -cnCoreSupport( a, n, NULL, NULL ) - cnCoreSupport( b, cnNeg( n ), NULL, NULL );
}

// unit normal <-> the surface parameters of a convex shape (smooth.h)
static cnSurfaceParams cnNormalParams( const cnPlaced* s, cnVec3 worldNormal )
{
    cnVec3 l = cnMulMV( cnTranspose( s->r ), worldNormal );
    cnSurfaceParams q;
    q.u = acos( fmax( -1.0, fmin( 1.0, l.z ) ) );
    q.v = atan2( l.y, l.x );
    return q;
}

static cnVec3 cnParamsNormal( const cnPlaced* s, cnSurfaceParams q )
{
    cnVec3 l = cnMakeVec3( sin( q.u ) * cos( q.v ), sin( q.u ) * sin( q.v ), cos( q.u ) );
    return cnMulMV( s->r, l );
}

// ---------------------------------------------------------------------------------------------
// 2. The minimax Newton method
//
// Minimise F(n) = h_A(n) + h_B(-n) = -Phi(n) over unit n, where each support is the maximum of
// smooth pieces, so F = max over piece pairs (i, j) of f_ij(n) = hA_i(n) + hB_j(-n). At the current
// n, in a tangent basis T of the sphere, each nearly active pair gives a value f, a gradient G =
// T^T (sA_i(n) - sB_j(-n)) and a Riemannian Hessian W = T^T (HA_i + HB_j) T - f I (every piece is
// positively homogeneous of degree one, so n . grad f = f). The step solves the quadratic program
//     minimise t + 1/2 xi^T W xi  subject to  f_k + G_k . xi <= t  for every candidate pair k,
// with W the multiplier-weighted sum of the active pairs' Hessians (shifted until positive
// definite), by enumerating the active sets of up to three pairs (there are 2 + 1 unknowns besides
// the multipliers). One active pair is plain Newton; two or three are Newton on the edge or vertex
// where the pieces tie. The step is taken along the great circle, with backtracking on F.

#define CN_PIECE_CANDIDATES  4 // per shape: the pieces nearest the maximum
#define CN_PAIR_CANDIDATES   ( CN_PIECE_CANDIDATES * CN_PIECE_CANDIDATES )
#define CN_NEWTON_ITERATIONS 60

typedef struct cnPairPiece
{
    int i, j;
    double f;    // hA_i(n) + hB_j(-n), minus the current F
    double g[2]; // tangent gradient
    double w[3]; // tangent Hessian (xx, xy, yy), the -f I term included
    cnVec3 sa, sb;
} cnPairPiece;

// the `limit` pieces of s with the largest support along n, within `window` of the largest
static int cnTopPieces( const cnPlaced* s, cnVec3 n, double window, int* out, double* values, int limit )
{
    // one pass: the `limit` largest, sorted; then those below the largest less the window go
    int count = cnPieceCount( s );
    int kept = 0;
    for ( int k = 0; k < count; ++k )
    {
        cnVec3 x;
        double h = cnPiece( s, k, n, &x, NULL );
        // insertion into a short sorted list
        int at = kept < limit ? kept : limit;
        while ( at > 0 && values[at - 1] < h )
        {
            if ( at < limit )
            {
                values[at] = values[at - 1];
                out[at] = out[at - 1];
            }
            at -= 1;
        }
        if ( at < limit )
        {
            values[at] = h;
            out[at] = k;
            kept = kept < limit ? kept + 1 : limit;
        }
    }
    while ( kept > 1 && values[kept - 1] < values[0] - window )
    {
        kept -= 1;
    }
    return kept;
}

static void cnTangentBasis( cnVec3 n, cnVec3* t1, cnVec3* t2 )
{
    *t1 = cnPerpendicular( n );
    *t2 = cnCross( n, *t1 );
}

static double cnQuadForm( const cnMat3* h, cnVec3 a, cnVec3 b )
{
    return cnDot( a, cnMulMV( *h, b ) );
}

// The KKT point of the quadratic program with the pairs idx[0..size) active (size 1 to 3), in
// closed form: x = (xi0, xi1, t, mu_0 .. mu_{size-1}) with
//     W xi + sum mu_k G_k = 0,   sum mu_k = 1,   f_k + G_k . xi = t for the active k.
// One pair: Newton, xi = -W^-1 G. Two: xi on the tie line d . xi = c (d = G_0 - G_1,
// c = f_1 - f_0), where stationarity along the line fixes it and across it gives mu_0. Three: the two
// ties fix xi, then the multipliers solve a 3 x 3 system. false when the system is singular.
static bool cnSolveActiveSet( const cnPairPiece* pairs, const int* idx, int size, const double w[3],
                              double* x )
{
    const cnPairPiece* p0 = pairs + idx[0];
    if ( size == 3 )
    {
        const cnPairPiece* p1 = pairs + idx[1];
        const cnPairPiece* p2 = pairs + idx[2];
        double a00 = p0->g[0] - p1->g[0], a01 = p0->g[1] - p1->g[1], b0 = p1->f - p0->f;
        double a10 = p0->g[0] - p2->g[0], a11 = p0->g[1] - p2->g[1], b1 = p2->f - p0->f;
        double det = a00 * a11 - a01 * a10;
        if ( !( fabs( det ) > 0.0 ) )
        {
            return false;
        }
        x[0] = ( b0 * a11 - a01 * b1 ) / det;
        x[1] = ( a00 * b1 - b0 * a10 ) / det;
        x[2] = p0->f + p0->g[0] * x[0] + p0->g[1] * x[1];
        // [G_0 G_1 G_2; 1 1 1] mu = (-W xi, 1), by Cramer's rule
        double r0 = -( w[0] * x[0] + w[1] * x[1] ), r1 = -( w[1] * x[0] + w[2] * x[1] );
        double m[3][3] = {
            { p0->g[0], p1->g[0], p2->g[0] }, { p0->g[1], p1->g[1], p2->g[1] }, { 1.0, 1.0, 1.0 } };
        double rhs[3] = { r0, r1, 1.0 };
        double d3 = m[0][0] * ( m[1][1] * m[2][2] - m[1][2] * m[2][1] ) -
                    m[0][1] * ( m[1][0] * m[2][2] - m[1][2] * m[2][0] ) +
                    m[0][2] * ( m[1][0] * m[2][1] - m[1][1] * m[2][0] );
        if ( !( fabs( d3 ) > 0.0 ) )
        {
            return false;
        }
        for ( int c = 0; c < 3; ++c )
        {
            double n[3][3];
            for ( int r = 0; r < 3; ++r )
            {
                for ( int k = 0; k < 3; ++k )
                {
                    n[r][k] = k == c ? rhs[r] : m[r][k];
                }
            }
            double dc = n[0][0] * ( n[1][1] * n[2][2] - n[1][2] * n[2][1] ) -
                        n[0][1] * ( n[1][0] * n[2][2] - n[1][2] * n[2][0] ) +
                        n[0][2] * ( n[1][0] * n[2][1] - n[1][1] * n[2][0] );
            x[3 + c] = dc / d3;
        }
    }
    else if ( size == 2 )
    {
        // xi = xi0 + s z on the tie line, z normal to d; the z part of stationarity gives s, the d
        // part the multiplier (only the curvature along z must not vanish)
        const cnPairPiece* p1 = pairs + idx[1];
        double d[2] = { p0->g[0] - p1->g[0], p0->g[1] - p1->g[1] };
        double dd = d[0] * d[0] + d[1] * d[1];
        if ( !( dd > 0.0 ) )
        {
            return false;
        }
        double c = p1->f - p0->f;
        double base[2] = { c * d[0] / dd, c * d[1] / dd };
        double z[2] = { -d[1], d[0] };
        double wz[2] = { w[0] * z[0] + w[1] * z[1], w[1] * z[0] + w[2] * z[1] };
        double zwz = z[0] * wz[0] + z[1] * wz[1];
        if ( !( fabs( zwz ) > 0.0 ) )
        {
            return false;
        }
        double step = -( wz[0] * base[0] + wz[1] * base[1] + z[0] * p1->g[0] + z[1] * p1->g[1] ) / zwz;
        x[0] = base[0] + step * z[0];
        x[1] = base[1] + step * z[1];
        double r0 = w[0] * x[0] + w[1] * x[1] + p1->g[0], r1 = w[1] * x[0] + w[2] * x[1] + p1->g[1];
        double mu0 = -( d[0] * r0 + d[1] * r1 ) / dd;
        x[2] = p0->f + p0->g[0] * x[0] + p0->g[1] * x[1];
        x[3] = mu0;
        x[4] = 1.0 - mu0;
    }
    else
    {
        double det = w[0] * w[2] - w[1] * w[1];
        if ( !( fabs( det ) > 0.0 ) )
        {
            return false;
        }
        x[0] = -( w[2] * p0->g[0] - w[1] * p0->g[1] ) / det;
        x[1] = -( w[0] * p0->g[1] - w[1] * p0->g[0] ) / det;
        x[2] = p0->f + p0->g[0] * x[0] + p0->g[1] * x[1];
        x[3] = 1.0;
    }
    for ( int k = 0; k < 3 + size; ++k )
    {
        if ( !isfinite( x[k] ) )
        {
            return false;
        }
    }
    return true;
}

// The QP step for the candidate pairs. `raw` is the weighted Hessian (2x2: xx, xy, yy) and `shifted`
// the same made positive definite. One active pair needs a positive definite model (shifted); two
// need positive curvature only along their tie (raw when it has it, so Newton stays Newton along an
// edge of the pieces); three fix the step by themselves (raw). Writes the step, the model value t
// (<= 0: F is 0 at xi = 0) and the multipliers (per candidate).
static bool cnQpStep( const cnPairPiece* pairs, int count, const double raw[3], const double shifted[3],
                      double curvatureFloor, double tolerance, double xi[2], double* outT, double* mu )
{
    double bestObjective = HUGE_VAL;
    bool found = false;
    // every active set of 1, 2 or 3 candidates; when none is consistent (an indefinite raw model
    // on a face, where several pieces tie), again with the positive definite model everywhere,
    // a convex program that has a solution
    for ( int size = 1, pass = 0; pass < 2; size = size < 3 ? size + 1 : ( pass++, 1 ) )
    {
        if ( pass == 1 && found )
        {
            break;
        }
        int idx[3] = { 0, 1, 2 };
        if ( size > count )
        {
            continue;
        }
        for ( ;; )
        {
            // unknowns: xi0, xi1, t, mu_0..mu_{size-1}
            const double* w = size == 1 || pass == 1 ? shifted : raw;
            if ( size == 2 && pass == 0 )
            {
                // curvature along the tie of the two pairs: z normal to G_1 - G_2
                double dx = pairs[idx[0]].g[0] - pairs[idx[1]].g[0];
                double dy = pairs[idx[0]].g[1] - pairs[idx[1]].g[1];
                double curvature = raw[0] * dy * dy - 2.0 * raw[1] * dx * dy + raw[2] * dx * dx;
                w = curvature > curvatureFloor * ( dx * dx + dy * dy ) ? raw : shifted;
            }
            double x[6];
            if ( cnSolveActiveSet( pairs, idx, size, w, x ) )
            {
                bool ok = true;
                for ( int k = 0; k < size && ok; ++k )
                {
                    ok = x[3 + k] >= -1e-12;
                }
                for ( int k = 0; k < count && ok; ++k )
                {
                    ok = pairs[k].f + pairs[k].g[0] * x[0] + pairs[k].g[1] * x[1] <= x[2] + tolerance;
                }
                double objective =
                    x[2] + 0.5 * ( w[0] * x[0] * x[0] + 2.0 * w[1] * x[0] * x[1] + w[2] * x[1] * x[1] );
                if ( ok && objective < bestObjective )
                {
                    bestObjective = objective;
                    found = true;
                    xi[0] = x[0];
                    xi[1] = x[1];
                    *outT = x[2];
                    for ( int k = 0; k < count; ++k )
                    {
                        mu[k] = 0.0;
                    }
                    for ( int k = 0; k < size; ++k )
                    {
                        mu[idx[k]] = fmax( 0.0, x[3 + k] );
                    }
                }
            }
            // next combination
            int k = size - 1;
            while ( k >= 0 && idx[k] == count - size + k )
            {
                k -= 1;
            }
            if ( k < 0 )
            {
                break;
            }
            idx[k] += 1;
            for ( int j = k + 1; j < size; ++j )
            {
                idx[j] = idx[j - 1] + 1;
            }
        }
    }
    return found;
}

// A model of F around a cylinder's axis, in the tangent plane there:
//     m(xi) = max_k ( v_k + g_k . xi ) + 1/2 xi^T W xi + r |xi|
// (the other shape's pieces, the cap's cone, a common curvature W, positive definite).
typedef struct cnCapModel
{
    cnVec3 t1, t2;
    int count;
    double v[CN_PIECE_CANDIDATES];
    double g[CN_PIECE_CANDIDATES][2];
    double w[3];
    double radius;
} cnCapModel;

static double cnCapModelValue( const cnCapModel* m, const double xi[2] )
{
    double best = -HUGE_VAL;
    for ( int k = 0; k < m->count; ++k )
    {
        best = fmax( best, m->v[k] + m->g[k][0] * xi[0] + m->g[k][1] * xi[1] );
    }
    double quadratic =
        0.5 * ( m->w[0] * xi[0] * xi[0] + 2.0 * m->w[1] * xi[0] * xi[1] + m->w[2] * xi[1] * xi[1] );
    return best + quadratic + m->radius * sqrt( xi[0] * xi[0] + xi[1] * xi[1] );
}

// xi = -(W + (r / rho) I)^-1 g; returns |xi|
static double cnConeSolve( const cnCapModel* m, const double g[2], double rho, double xi[2] )
{
    double a00 = m->w[0] + m->radius / rho, a01 = m->w[1], a11 = m->w[2] + m->radius / rho;
    double det = a00 * a11 - a01 * a01;
    xi[0] = -( a11 * g[0] - a01 * g[1] ) / det;
    xi[1] = -( a00 * g[1] - a01 * g[0] ) / det;
    return sqrt( xi[0] * xi[0] + xi[1] * xi[1] );
}

// the minimiser of g . xi + 1/2 xi^T W xi + r |xi| (one piece): 0 when |g| <= r, else
// xi = -(W + (r / rho) I)^-1 g with rho = |xi|, a root in rho found by bisection
static void cnConeStep( const cnCapModel* m, const double g[2], double xi[2] )
{
    xi[0] = xi[1] = 0.0;
    double gNorm = sqrt( g[0] * g[0] + g[1] * g[1] );
    if ( !( gNorm > m->radius ) )
    {
        return;
    }
    // |xi(rho)| - rho is positive near 0 and negative for large rho
    double lo = 0.0, hi = 1.0;
    for ( int grow = 0; grow < 60 && cnConeSolve( m, g, hi, xi ) > hi; ++grow )
    {
        lo = hi;
        hi *= 2.0;
    }
    for ( int iteration = 0; iteration < 200 && hi - lo > 1e-15 * hi; ++iteration )
    {
        double rho = 0.5 * ( lo + hi );
        if ( cnConeSolve( m, g, rho, xi ) > rho )
        {
            lo = rho;
        }
        else
        {
            hi = rho;
        }
    }
    cnConeSolve( m, g, 0.5 * ( lo + hi ), xi );
}

// the minimiser of the convex model m: the best of the candidates with no piece, one piece, or
// two pieces tied (the minimiser along their tie line, by golden section) active
static void cnCapModelMinimiser( const cnCapModel* m, double out[2] )
{
    out[0] = out[1] = 0.0;
    double best = cnCapModelValue( m, out );
    for ( int k = 0; k < m->count; ++k )
    {
        double xi[2];
        cnConeStep( m, m->g[k], xi );
        double value = cnCapModelValue( m, xi );
        if ( value < best )
        {
            best = value;
            out[0] = xi[0];
            out[1] = xi[1];
        }
        for ( int j = k + 1; j < m->count; ++j )
        {
            // the tie line (v_k - v_j) + (g_k - g_j) . xi = 0: xi = base + s d
            double e[2] = { m->g[k][0] - m->g[j][0], m->g[k][1] - m->g[j][1] };
            double ee = e[0] * e[0] + e[1] * e[1];
            if ( !( ee > 0.0 ) )
            {
                continue;
            }
            double base[2] = { -( m->v[k] - m->v[j] ) * e[0] / ee, -( m->v[k] - m->v[j] ) * e[1] / ee };
            double d[2] = { -e[1] / sqrt( ee ), e[0] / sqrt( ee ) };
            double lo = -1.0, hi = 1.0;
            const double golden = 0.5 * ( sqrt( 5.0 ) - 1.0 );
            for ( int iteration = 0; iteration < 80; ++iteration )
            {
                double s1 = hi - golden * ( hi - lo ), s2 = lo + golden * ( hi - lo );
                double x1[2] = { base[0] + s1 * d[0], base[1] + s1 * d[1] };
                double x2[2] = { base[0] + s2 * d[0], base[1] + s2 * d[1] };
                if ( cnCapModelValue( m, x1 ) < cnCapModelValue( m, x2 ) )
                {
                    hi = s2;
                }
                else
                {
                    lo = s1;
                }
            }
            double sMid = 0.5 * ( lo + hi );
            double xi2[2] = { base[0] + sMid * d[0], base[1] + sMid * d[1] };
            double value2 = cnCapModelValue( m, xi2 );
            if ( value2 < best )
            {
                best = value2;
                out[0] = xi2[0];
                out[1] = xi2[1];
            }
        }
    }
}

// Near a cylinder's axis its rim pieces have a cone point: along the axis the whole cap supports,
// and r |P n| has slope r in every direction away from it, which Newton's quadratic model cannot
// see. When n is within 0.05 rad of a cylinder's axis (either shape, either sense):
// - the axis is optimal when 0 is in the subdifferential of F there, i.e. the cap centre lies
//   within r of the other shape's support points (in the plane normal to the axis); then n moves
//   onto the axis and the function returns true (converged);
// - otherwise n moves to the minimiser of the cone-plus-quadratic model around the axis, when that
//   lowers F (the function returns false and Newton goes on from the smooth side).
static bool cnSnapToCap( const cnPlaced* a, const cnPlaced* b, cnVec3* n, double* F )
{
    const cnPlaced* shapes[2] = { a, b };
    for ( int s = 0; s < 2; ++s )
    {
        if ( shapes[s]->type != cn_cylinderShape )
        {
            continue;
        }
        cnVec3 axis = shapes[s]->r.cz;
        double c = cnDot( axis, *n );
        if ( fabs( c ) < 1.0 - 1.25e-3 )
        {
            continue;
        }
        cnVec3 candidate = c > 0.0 ? axis : cnNeg( axis );
        double candidateF = -cnCorePhi( a, b, candidate );
        // The cap centre facing the other shape, and the other shape's support points along the
        // axis (several when its pieces tie there: a capsule lying across the cap). The axis is
        // optimal when the cap centre lies within r of the hull of those support points, in the
        // plane normal to the axis (then 0 is in the subdifferential of F there).
        const cnPlaced* other = s == 0 ? b : a;
        cnVec3 otherDirection = s == 0 ? cnNeg( candidate ) : candidate;
        cnVec3 cap;
        cnPiece( shapes[s], s == 0 ? ( c > 0.0 ? 1 : 0 ) : ( c > 0.0 ? 0 : 1 ),
                 s == 0 ? candidate : cnNeg( candidate ), &cap, NULL );
        int tied[CN_PIECE_CANDIDATES];
        double values[CN_PIECE_CANDIDATES];
        double tie = 1e-12 * ( a->size + b->size + cnLength( a->p ) + cnLength( b->p ) );
        int tiedCount = cnTopPieces( other, otherDirection, tie, tied, values, CN_PIECE_CANDIDATES );
        cnVec3 supports[CN_PIECE_CANDIDATES];
        for ( int k = 0; k < tiedCount; ++k )
        {
            cnPiece( other, tied[k], otherDirection, supports + k, NULL );
            supports[k] = cnMulAdd( supports[k], -cnDot( supports[k], candidate ), candidate );
        }
        cnVec3 capT = cnMulAdd( cap, -cnDot( cap, candidate ), candidate );
        double tangential = HUGE_VAL;
        for ( int k = 0; k < tiedCount; ++k )
        {
            cnVec3 d = cnSub( capT, supports[k] );
            tangential = fmin( tangential, cnLength( d ) );
            for ( int j = k + 1; j < tiedCount; ++j )
            {
                // the nearest point of the segment between two tied supports
                cnVec3 e = cnSub( supports[j], supports[k] );
                double ee = cnDot( e, e );
                double w =
                    ee > 0.0 ? fmax( 0.0, fmin( 1.0, cnDot( cnSub( capT, supports[k] ), e ) / ee ) ) : 0.0;
                tangential = fmin( tangential, cnLength( cnSub( capT, cnMulAdd( supports[k], w, e ) ) ) );
            }
        }
        if ( candidateF <= *F && tangential < shapes[s]->shape->geometry->cylinder.radius )
        {
            *n = candidate;
            *F = candidateF;
            return true;
        }
        // Not optimal on the axis: the step off it, from a model of F around the axis (in the
        // tangent plane there): the cone r |xi| plus the other shape's nearly tied pieces,
        // linear, plus a common curvature W. The model is convex, so its minimiser is the best of
        // the minimisers with no piece, one piece, two tied pieces or three tied pieces active.
        // Newton from near the axis cannot see the cone and zigzags across it; from the model's
        // minimiser it is in the smooth region.
        cnCapModel model;
        cnTangentBasis( candidate, &model.t1, &model.t2 );
        model.radius = shapes[s]->shape->geometry->cylinder.radius;
        model.count =
            cnTopPieces( other, otherDirection, 0.4 * other->size, tied, values, CN_PIECE_CANDIDATES );
        cnMat3 h;
        for ( int k = 0; k < model.count; ++k )
        {
            cnVec3 support;
            cnPiece( other, tied[k], otherDirection, &support, k == 0 ? &h : NULL );
            cnVec3 g3 = s == 0 ? cnSub( cap, support ) : cnSub( support, cap );
            model.v[k] = values[k] - values[0];
            model.g[k][0] = cnDot( g3, model.t1 );
            model.g[k][1] = cnDot( g3, model.t2 );
        }
        // the sphere's Hessian of the rest at the axis: the top piece's, less F I (F at the axis is
        // candidateF: the cone term is 0 there), made positive definite
        double w[3] = { cnQuadForm( &h, model.t1, model.t1 ) - candidateF,
                        cnQuadForm( &h, model.t1, model.t2 ),
                        cnQuadForm( &h, model.t2, model.t2 ) - candidateF };
        double mean = 0.5 * ( w[0] + w[2] );
        double spread = sqrt( 0.25 * ( w[0] - w[2] ) * ( w[0] - w[2] ) + w[1] * w[1] );
        double floorW = 1e-2 * ( a->size + b->size );
        double shift = fmax( 0.0, floorW - ( mean - spread ) );
        model.w[0] = w[0] + shift;
        model.w[1] = w[1];
        model.w[2] = w[2] + shift;
        double xi[2];
        cnCapModelMinimiser( &model, xi );
        double length = sqrt( xi[0] * xi[0] + xi[1] * xi[1] );
        if ( !( length > 0.0 ) )
        {
            continue;
        }
        if ( length > 0.5 )
        {
            xi[0] *= 0.5 / length;
            xi[1] *= 0.5 / length;
        }
        cnVec3 moved = cnNormalize(
            cnAdd( candidate, cnAdd( cnScale( xi[0], model.t1 ), cnScale( xi[1], model.t2 ) ) ) );
        double movedF = -cnCorePhi( a, b, moved );
        if ( movedF < *F )
        {
            *n = moved;
            *F = movedF;
        }
    }
    return false;
}

typedef struct cnNewtonResult
{
    cnVec3 n;
    double phi; // the cores' separation along n
    cnVec3 sa;  // weighted support point of A's core along n
    cnVec3 sb;  // and of B's core along -n
    bool converged;
} cnNewtonResult;

static cnNewtonResult cnMinimaxNewton( const cnPlaced* a, const cnPlaced* b, cnVec3 start )
{
    cnNewtonResult result;
    cnVec3 n = cnNormalizeOr( start, cnMakeVec3( 0, 0, 1 ) );
    double scale = a->size + b->size + 1e-300;
    double coordinates = cnLength( a->p ) + cnLength( b->p );
    double tolerance = 1e-15 * ( scale + coordinates );
    double F = -cnCorePhi( a, b, n );
    double muPrev[CN_PAIR_CANDIDATES];
    int prevI[CN_PAIR_CANDIDATES], prevJ[CN_PAIR_CANDIDATES];
    int prevCount = 0;
    double lastStep = 0.2;  // radians: how far the pieces' values may move in one step
    double trust = 0.5;     // radians: the longest step the line search starts from
    double lastSmall = 0.0; // the last step taken in Newton's own regime (below 1e-5 rad)
    double roundoff = 1e-13 * ( scale + coordinates );
    bool converged = false;
    cnPairPiece pairs[CN_PAIR_CANDIDATES];
    double mu[CN_PAIR_CANDIDATES];
    int count = 0;

    for ( int iteration = 0; iteration < CN_NEWTON_ITERATIONS; ++iteration )
    {
        cn_smoothStats.newtonSteps += 1;
        // candidate pieces: within what one step (at least 0.05 rad) can change of each maximum
        int ia[CN_PIECE_CANDIDATES], ib[CN_PIECE_CANDIDATES];
        double va[CN_PIECE_CANDIDATES], vb[CN_PIECE_CANDIDATES];
        double reach = fmax( lastStep, 0.05 );
        double windowA = 4.0 * a->size * reach + tolerance;
        double windowB = 4.0 * b->size * reach + tolerance;
        int na = cnTopPieces( a, n, windowA, ia, va, CN_PIECE_CANDIDATES );
        int nb = cnTopPieces( b, cnNeg( n ), windowB, ib, vb, CN_PIECE_CANDIDATES );
        cnVec3 t1, t2;
        cnTangentBasis( n, &t1, &t2 );
        count = 0;
        double wsum[3] = { 0.0, 0.0, 0.0 };
        double muTotal = 0.0;
        for ( int x = 0; x < na; ++x )
        {
            for ( int y = 0; y < nb; ++y )
            {
                cnPairPiece* p = pairs + count++;
                cnMat3 ha, hb;
                p->i = ia[x];
                p->j = ib[y];
                double hA = cnPiece( a, ia[x], n, &p->sa, &ha );
                double hB = cnPiece( b, ib[y], cnNeg( n ), &p->sb, &hb );
                double f = hA + hB;
                cnVec3 grad = cnSub( p->sa, p->sb );
                cnMat3 h = cnAddMat3( ha, hb );
                p->f = f - F;
                p->g[0] = cnDot( t1, grad );
                p->g[1] = cnDot( t2, grad );
                p->w[0] = cnQuadForm( &h, t1, t1 ) - f;
                p->w[1] = cnQuadForm( &h, t1, t2 );
                p->w[2] = cnQuadForm( &h, t2, t2 ) - f;
                // the multiplier this pair had in the last step (new pairs: none)
                double weight = 0.0;
                for ( int k = 0; k < prevCount; ++k )
                {
                    if ( prevI[k] == p->i && prevJ[k] == p->j )
                    {
                        weight = muPrev[k];
                    }
                }
                if ( prevCount == 0 && x == 0 && y == 0 )
                {
                    weight = 1.0;
                }
                for ( int k = 0; k < 3; ++k )
                {
                    wsum[k] += weight * p->w[k];
                }
                muTotal += weight;
            }
        }
        if ( !( muTotal > 0.0 ) )
        {
            for ( int k = 0; k < 3; ++k )
            {
                wsum[k] = pairs[0].w[k];
            }
        }
        else
        {
            for ( int k = 0; k < 3; ++k )
            {
                wsum[k] /= muTotal;
            }
        }
        // a positive definite copy: its smallest eigenvalue at least 1e-6 of the size, so a flat
        // model (polytope pieces touching) still takes bounded steps
        double trace = 0.5 * ( wsum[0] + wsum[2] );
        double radius = sqrt( 0.25 * ( wsum[0] - wsum[2] ) * ( wsum[0] - wsum[2] ) + wsum[1] * wsum[1] );
        double lowest = trace - radius;
        double floorW = 1e-6 * scale;
        double raw[3] = { wsum[0], wsum[1], wsum[2] };
        if ( lowest < floorW )
        {
            wsum[0] += floorW - lowest;
            wsum[2] += floorW - lowest;
        }

        double xi[2] = { 0.0, 0.0 }, t = 0.0;
        if ( !cnQpStep( pairs, count, raw, wsum, floorW, 1e-13 * scale, xi, &t, mu ) )
        {
            // no consistent active set (round-off): plain Newton on the largest pair
            double det = wsum[0] * wsum[2] - wsum[1] * wsum[1];
            xi[0] = -( wsum[2] * pairs[0].g[0] - wsum[1] * pairs[0].g[1] ) / det;
            xi[1] = -( -wsum[1] * pairs[0].g[0] + wsum[0] * pairs[0].g[1] ) / det;
            t = pairs[0].f + pairs[0].g[0] * xi[0] + pairs[0].g[1] * xi[1];
            for ( int k = 0; k < count; ++k )
            {
                mu[k] = k == 0 ? 1.0 : 0.0;
            }
        }
        prevCount = count;
        for ( int k = 0; k < count; ++k )
        {
            prevI[k] = pairs[k].i;
            prevJ[k] = pairs[k].j;
            muPrev[k] = mu[k];
        }

        double stepLength = sqrt( xi[0] * xi[0] + xi[1] * xi[1] );
        if ( !( stepLength > 1e-13 ) )
        {
            converged = true;
            break;
        }
        if ( stepLength < 1e-5 )
        {
            // Newton's own regime: F changes by the square of the step, soon below its round-off,
            // so it cannot judge the step any more. Take full steps while they keep shrinking (they
            // shrink quadratically); stop at the noise floor when they do not.
            cnVec3 trial = cnNormalize( cnAdd( n, cnAdd( cnScale( xi[0], t1 ), cnScale( xi[1], t2 ) ) ) );
            double trialF = -cnCorePhi( a, b, trial );
            bool shrinking = lastSmall == 0.0 || stepLength < 0.5 * lastSmall;
            if ( trialF <= F + roundoff && shrinking )
            {
                n = trial;
                F = trialF;
                lastSmall = stepLength;
                lastStep = fmax( stepLength, 1e-9 );
                continue;
            }
            if ( stepLength < 1e-9 )
            {
                converged = true; // the noise floor
                break;
            }
            // not Newton's regime after all (a kink nearby): the line search below
        }
        if ( !( t < -tolerance ) )
        {
            converged = true; // the model promises no decrease (a kink at round-off)
            break;
        }
        // never farther than the trust radius (a quarter turn at most)
        double alpha = stepLength > trust ? trust / stepLength : 1.0;
        double first = alpha;
        bool accepted = false;
        for ( int tries = 0; tries < 40; ++tries )
        {
            cnVec3 trial = cnNormalize(
                cnAdd( n, cnAdd( cnScale( alpha * xi[0], t1 ), cnScale( alpha * xi[1], t2 ) ) ) );
            double trialF = -cnCorePhi( a, b, trial );
            if ( trialF <= F + 1e-4 * alpha * t )
            {
                n = trial;
                F = trialF;
                accepted = true;
                break;
            }
            alpha *= 0.5;
        }
        lastStep = fmax( alpha * stepLength, 1e-9 );
        lastSmall = 0.0; // Newton's regime starts afresh after a searched step
        double beforeCap = F;
        if ( !accepted && cnSnapToCap( a, b, &n, &F ) )
        {
            converged = true;
            break;
        }
        if ( !accepted && F < beforeCap )
        {
            continue; // stepped off a cylinder's axis: Newton goes on from there
        }
        if ( !accepted )
        {
            // The model's direction does not descend: a piece outside the candidates rises along
            // it (polytope pairs, whose model is flat). Retry from here inside a much smaller trust
            // region, where the candidates are the pieces that really tie.
            trust = 1e-3 * first * stepLength;
            lastStep = trust;
            if ( trust < 1e-12 )
            {
                converged = true; // no descent left at round-off level
                break;
            }
            continue;
        }
        // the trust region grows after a full step that reached it, shrinks to a shortened one
        trust = alpha == first ? ( first < 1.0 ? fmin( 2.0 * trust, 0.5 * CN_PI ) : trust )
                               : fmax( alpha * stepLength, 1e-12 );
        // Near a cylinder's axis its rim piece has a cone point (the whole cap supports there),
        // which Newton approaches only linearly: try the axis itself.
        if ( cnSnapToCap( a, b, &n, &F ) )
        {
            converged = true;
            break;
        }
    }
    if ( !converged )
    {
        cn_smoothStats.notConverged += 1;
    }

    // the support points: weighted by the last step's multipliers over the pairs that are still
    // active at the final n (ties on a face or an edge), else the largest pieces
    cnVec3 sa, sb;
    double ha = cnCoreSupport( a, n, NULL, &sa );
    double hb = cnCoreSupport( b, cnNeg( n ), NULL, &sb );
    double total = 0.0;
    cnVec3 wa = cn_vec3Zero, wb = cn_vec3Zero;
    double tie = 1e-11 * ( scale + coordinates );
    for ( int k = 0; k < prevCount; ++k )
    {
        if ( !( muPrev[k] > 0.0 ) )
        {
            continue;
        }
        cnVec3 xa, xb;
        double va = cnPiece( a, prevI[k], n, &xa, NULL );
        double vb = cnPiece( b, prevJ[k], cnNeg( n ), &xb, NULL );
        if ( va < ha - tie || vb < hb - tie )
        {
            continue;
        }
        wa = cnMulAdd( wa, muPrev[k], xa );
        wb = cnMulAdd( wb, muPrev[k], xb );
        total += muPrev[k];
    }
    if ( total > 0.0 )
    {
        sa = cnScale( 1.0 / total, wa );
        sb = cnScale( 1.0 / total, wb );
    }
    result.n = n;
    result.sa = sa;
    result.sb = sb;
    result.phi = -ha - hb;
    result.converged = converged;
    return result;
}

// the seeds of a cold query: both senses of both shapes' axes (a box's face normals, an
// ellipsoid's principal directions, a capsule's or cylinder's axis)
static int cnAxisSeeds( const cnPlaced* a, const cnPlaced* b, cnVec3* seeds )
{
    int count = 0;
    const cnMat3* r[2] = { &a->r, &b->r };
    for ( int s = 0; s < 2; ++s )
    {
        cnVec3 axes[3] = { r[s]->cx, r[s]->cy, r[s]->cz };
        for ( int i = 0; i < 3; ++i )
        {
            seeds[count++] = axes[i];
            seeds[count++] = cnNeg( axes[i] );
        }
    }
    return count;
}

// the best face normal of a hull (outward, for A; inward, for B) as a seed
static bool cnHullFaceSeed( const cnPlaced* a, const cnPlaced* b, const cnPlaced* hull, cnVec3* seed )
{
    const cnHull* h = hull->shape->hull;
    if ( hull->type != cn_hullShape || h == NULL || h->triangleCount <= 0 )
    {
        return false;
    }
    double best = -HUGE_VAL;
    for ( int t = 0; t < h->triangleCount; ++t )
    {
        const int* tri = h->triangles + 3 * t;
        cnVec3 normal = cnCross( cnSub( h->vertices[tri[1]], h->vertices[tri[0]] ),
                                 cnSub( h->vertices[tri[2]], h->vertices[tri[0]] ) );
        cnVec3 n = cnNormalizeOr( cnMulMV( hull->r, normal ), cn_vec3Zero );
        if ( cnLengthSquared( n ) == 0.0 )
        {
            continue;
        }
        n = hull == a ? n : cnNeg( n );
        double phi = cnCorePhi( a, b, n );
        if ( phi > best )
        {
            best = phi;
            *seed = n;
        }
    }
    return best > -HUGE_VAL;
}

typedef struct cnConvexAnswer
{
    cnNewtonResult best;
    bool have;
} cnConvexAnswer;

static void cnConsider( cnConvexAnswer* answer, cnNewtonResult r )
{
    if ( !answer->have || r.phi > answer->best.phi )
    {
        answer->best = r;
        answer->have = true;
    }
}

// Newton from the best few of `seeds` (by Phi), at least 20 degrees apart
static void cnMultistart( const cnPlaced* a, const cnPlaced* b, const cnVec3* seeds, int seedCount,
                          int starts, cnConvexAnswer* answer )
{
    double phi[40];
    bool used[40] = { false };
    seedCount = seedCount > 40 ? 40 : seedCount;
    for ( int k = 0; k < seedCount; ++k )
    {
        phi[k] = cnCorePhi( a, b, seeds[k] );
    }
    cnVec3 chosen[8];
    int chosenCount = 0;
    for ( int s = 0; s < starts && chosenCount < 8; ++s )
    {
        int best = -1;
        for ( int k = 0; k < seedCount; ++k )
        {
            if ( used[k] )
            {
                continue;
            }
            bool near = false;
            for ( int c = 0; c < chosenCount; ++c )
            {
                near = near || cnDot( chosen[c], seeds[k] ) > 0.94;
            }
            if ( near )
            {
                used[k] = true;
                continue;
            }
            if ( best < 0 || phi[k] > phi[best] )
            {
                best = k;
            }
        }
        if ( best < 0 )
        {
            break;
        }
        used[best] = true;
        chosen[chosenCount++] = seeds[best];
        cnConsider( answer, cnMinimaxNewton( a, b, seeds[best] ) );
    }
}

static bool cnIsPolyhedralCore( const cnPlaced* s )
{
    return s->type == cn_sphereShape || s->type == cn_capsuleShape || s->type == cn_boxShape ||
           s->type == cn_hullShape;
}

static void cnSatConsider( const cnPlaced* a, const cnPlaced* b, cnVec3 axis, double* best, cnVec3* bestAxis )
{
    cnVec3 n = cnNormalizeOr( axis, cn_vec3Zero );
    if ( cnLengthSquared( n ) == 0.0 )
    {
        return;
    }
    for ( int sense = 0; sense < 2; ++sense )
    {
        cnVec3 d = sense == 0 ? n : cnNeg( n );
        double phi = cnCorePhi( a, b, d );
        if ( phi > *best )
        {
            *best = phi;
            *bestAxis = d;
        }
    }
}

// the edge directions of a polytope core (box: its axes; hull: its triangles' edges, each once)
static int cnPolytopeEdges( const cnPlaced* s, cnVec3* edges, int capacity )
{
    int count = 0;
    if ( s->type == cn_boxShape )
    {
        edges[count++] = s->r.cx;
        edges[count++] = s->r.cy;
        edges[count++] = s->r.cz;
    }
    else if ( s->type == cn_hullShape && s->shape->hull != NULL )
    {
        const cnHull* h = s->shape->hull;
        for ( int t = 0; t < h->triangleCount; ++t )
        {
            const int* tri = h->triangles + 3 * t;
            for ( int k = 0; k < 3 && count < capacity; ++k )
            {
                int i = tri[k], j = tri[( k + 1 ) % 3];
                if ( i < j )
                {
                    edges[count++] = cnMulMV( s->r, cnSub( h->vertices[j], h->vertices[i] ) );
                }
            }
        }
    }
    return count;
}

// Separating axes for two polyhedral cores (points, segments, boxes, hulls): the faces of the
// Minkowski difference have the polytopes' face normals and the cross products of a segment with
// the other's edges, so when the cores overlap the best of these axes is exactly the maximiser of
// Phi (the minimum translation leaves through a face of the difference). Returns Phi there.
static double cnPolytopeAxes( const cnPlaced* a, const cnPlaced* b, cnVec3* bestAxis )
{
    double best = -HUGE_VAL;
    *bestAxis = cnMakeVec3( 0, 0, 1 );
    const cnPlaced* shapes[2] = { a, b };
    for ( int s = 0; s < 2; ++s )
    {
        const cnPlaced* p = shapes[s];
        if ( p->type == cn_boxShape )
        {
            cnSatConsider( a, b, p->r.cx, &best, bestAxis );
            cnSatConsider( a, b, p->r.cy, &best, bestAxis );
            cnSatConsider( a, b, p->r.cz, &best, bestAxis );
        }
        else if ( p->type == cn_hullShape && p->shape->hull != NULL )
        {
            const cnHull* h = p->shape->hull;
            for ( int t = 0; t < h->triangleCount; ++t )
            {
                const int* tri = h->triangles + 3 * t;
                cnSatConsider( a, b,
                               cnMulMV( p->r, cnCross( cnSub( h->vertices[tri[1]], h->vertices[tri[0]] ),
                                                       cnSub( h->vertices[tri[2]], h->vertices[tri[0]] ) ) ),
                               &best, bestAxis );
            }
        }
    }
    // a segment against the other's edges (and against another segment)
    for ( int s = 0; s < 2; ++s )
    {
        const cnPlaced* segment = shapes[s];
        const cnPlaced* other = shapes[1 - s];
        if ( segment->type != cn_capsuleShape )
        {
            continue;
        }
        cnVec3 d = segment->r.cz;
        cnVec3 edges[256];
        int count = cnPolytopeEdges( other, edges, 256 );
        if ( other->type == cn_capsuleShape )
        {
            edges[count++] = other->r.cz;
        }
        for ( int k = 0; k < count; ++k )
        {
            cnSatConsider( a, b, cnCross( d, edges[k] ), &best, bestAxis );
        }
    }
    return best;
}

// Convex pair (no plane, no torus): the deepest point of the cores, as a contact of the shapes.
static void cnConvexSmoothQuery( const cnPlaced* a, const cnPlaced* b, const cnSmoothContact* warm,
                                 int warmCount, cnSmoothContact* out )
{
    cnConvexAnswer answer;
    memset( &answer, 0, sizeof( answer ) );
    double scale = a->size + b->size;
    double tie = 1e-12 * ( scale + cnLength( a->p ) + cnLength( b->p ) );
    cnVec3 centres = cnSub( b->p, a->p );
    cnVec3 centreSeed = cnNormalizeOr( centres, cnMakeVec3( 0, 0, 1 ) );
    bool done = false;

    if ( cnIsPolyhedralCore( a ) && cnIsPolyhedralCore( b ) )
    {
        // Polytope cores (a capsule against a box or a hull): the separating axes are exact when
        // the cores overlap, and when they are apart their best axis already has Phi > 0, from
        // which Newton reaches the unique maximum. Newton also places the points (ties on faces
        // and edges are weighted by its multipliers).
        if ( warm != NULL && warmCount > 0 )
        {
            // warm: Newton from the last normal; apart, its answer is the unique maximum
            cn_smoothStats.warmStarts += 1;
            cnConsider( &answer, cnMinimaxNewton( a, b, cnParamsNormal( a, warm[0].paramA ) ) );
            done = answer.best.phi > tie;
            cn_smoothStats.warmFallbacks += done ? 0 : 1;
        }
        if ( !done )
        {
            cnVec3 axis;
            cnPolytopeAxes( a, b, &axis );
            cnConsider( &answer, cnMinimaxNewton( a, b, axis ) );
            done = true;
        }
    }
    if ( !done && warm != NULL && warmCount > 0 )
    {
        // warm: Newton from the last answer's normal as it sits on A now, then (overlapping) a
        // check against cheap probes
        cn_smoothStats.warmStarts += 1;
        cnConsider( &answer, cnMinimaxNewton( a, b, cnParamsNormal( a, warm[0].paramA ) ) );
        done = answer.best.phi > tie; // apart: the maximiser is unique (see below)
        if ( !done )
        {
            cnVec3 probes[14];
            int count = cnAxisSeeds( a, b, probes );
            probes[count++] = centreSeed;
            probes[count++] = cnNeg( answer.best.n );
            bool beaten = false;
            for ( int k = 0; k < count && !beaten; ++k )
            {
                beaten = cnCorePhi( a, b, probes[k] ) > answer.best.phi + tie;
            }
            done = !beaten;
            if ( beaten )
            {
                cn_smoothStats.warmFallbacks += 1;
            }
        }
    }
    if ( !done )
    {
        // Apart, {n : Phi(n) >= t} is spherically convex for every t > 0 (the set of x with
        // h_{A-B}(x) + t|x| <= 0 is a convex cone), so a local maximum with Phi > 0 is the
        // global one: one start that ends apart settles it.
        cnConsider( &answer, cnMinimaxNewton( a, b, centreSeed ) );
        cnDistanceResult gjk;
        memset( &gjk, 0, sizeof( gjk ) );
        if ( !( answer.best.phi > tie ) )
        {
            gjk = cnConvexDistance( a->shape, b->shape );
            if ( !gjk.overlap && gjk.distance > 0.0 && cnLengthSquared( gjk.normal ) > 0.0 )
            {
                cnConsider( &answer, cnMinimaxNewton( a, b, gjk.normal ) );
            }
        }
        if ( !( answer.best.phi > tie ) )
        {
            // overlapping: several local maxima are possible; start from the best few of the
            // axes and hull faces of both shapes
            cnVec3 seeds[17];
            int count = cnAxisSeeds( a, b, seeds );
            cnVec3 face;
            if ( cnHullFaceSeed( a, b, a, &face ) )
            {
                seeds[count++] = face;
            }
            if ( cnHullFaceSeed( a, b, b, &face ) )
            {
                seeds[count++] = face;
            }
            seeds[count++] = answer.best.n;
            if ( cnLengthSquared( gjk.normal ) > 0.0 )
            {
                // GJK's last direction: close to the answer when the shapes barely overlap
                seeds[count++] = cnNormalize( gjk.normal );
            }
            cnMultistart( a, b, seeds, count, 4, &answer );
            // nearly symmetric overlaps (centres close together): the opposite of the best local
            // maximum is often the better one
            cnVec3 opposite = cnNeg( answer.best.n );
            if ( cnCorePhi( a, b, opposite ) > answer.best.phi - 1e-2 * scale )
            {
                cnConsider( &answer, cnMinimaxNewton( a, b, opposite ) );
            }
        }
    }

    cnNewtonResult r = answer.best;
    cnVec3 n = r.n;
    out->normal = n;
    out->pointA = cnMulAdd( r.sa, a->radius, n );
    out->pointB = cnMulAdd( r.sb, -b->radius, n );
    out->separation = cnDot( cnSub( out->pointB, out->pointA ), n );
    out->paramA = cnNormalParams( a, n );
    out->paramB = cnNormalParams( b, cnNeg( n ) );
}

// ---------------------------------------------------------------------------------------------
// 3. Signed distance from a point

// nearest point of the ellipsoid sum (x_i / e_i)^2 = 1 to the local point x (shape frame), and
// the signed distance. The nearest point is y_i = e_i^2 x_i / (e_i^2 + t) at the root t of
// F(t) = sum (e_i x_i / (e_i^2 + t))^2 - 1 on t > -e_min^2 (F falls monotonically there: one root,
// outside t > 0, inside t < 0). In s = t + e_min^2 the denominators have no cancellation. When the
// point lies in the plane of the smallest axis and F stays negative, the nearest point leaves that
// plane (s = 0, the degenerate case).
static double cnPointEllipsoid( cnVec3 radii, cnVec3 x, cnVec3* nearest, cnVec3* outward )
{
    double e[3] = { radii.x, radii.y, radii.z };
    double p[3] = { x.x, x.y, x.z };
    int k = 0;
    for ( int i = 1; i < 3; ++i )
    {
        k = e[i] < e[k] ? i : k;
    }
    double ek2 = e[k] * e[k];
    double gap[3]; // e_i^2 - e_min^2 >= 0
    for ( int i = 0; i < 3; ++i )
    {
        gap[i] = e[i] * e[i] - ek2;
    }
    double y[3];
    // F(s) = sum (e_i p_i / (gap_i + s))^2 - 1
    double big = 0.0;
    for ( int i = 0; i < 3; ++i )
    {
        big += e[i] * e[i] * p[i] * p[i];
    }
    big = sqrt( big );
    double lo = 0.0, hi = ek2 + big + e[k]; // F(hi) < 0: every denominator exceeds sqrt(sum)
    // is the root at s > 0 at all? F(0+) is +inf unless the smallest-axis components vanish
    double f0 = -1.0;
    bool degenerate = true;
    for ( int i = 0; i < 3; ++i )
    {
        if ( gap[i] <= 1e-14 * ek2 )
        {
            if ( p[i] != 0.0 )
            {
                degenerate = false;
            }
        }
        else
        {
            double q = e[i] * p[i] / gap[i];
            f0 += q * q;
        }
    }
    if ( degenerate && f0 <= 0.0 )
    {
        // y_i = e_i^2 p_i / gap_i off the smallest axes; the first smallest axis takes what is left
        // of the norm (p lies in their plane, so either side of it is as near)
        double rest = 1.0;
        for ( int i = 0; i < 3; ++i )
        {
            if ( gap[i] > 1e-14 * ek2 )
            {
                y[i] = e[i] * e[i] * p[i] / gap[i];
                rest -= ( y[i] / e[i] ) * ( y[i] / e[i] );
            }
            else
            {
                y[i] = 0.0;
            }
        }
        rest = sqrt( fmax( rest, 0.0 ) );
        bool first = true;
        for ( int i = 0; i < 3; ++i )
        {
            if ( gap[i] <= 1e-14 * ek2 && first )
            {
                y[i] = e[i] * rest;
                first = false;
            }
        }
    }
    else
    {
        // Newton on psi(s) = H(s)^(-1/2) - 1 with H = F + 1, which rises through its root and is
        // exactly linear when one term dominates (one step then), kept inside the bracket
        // [lo, hi] by bisection. Each term alone puts the root at or beyond e_i |p_i| - gap_i, so
        // the largest of those starts it.
        double s = 0.0;
        for ( int i = 0; i < 3; ++i )
        {
            s = fmax( s, e[i] * fabs( p[i] ) - gap[i] );
        }
        if ( !( s > lo && s < hi ) )
        {
            s = 0.5 * ( lo + hi );
        }
        for ( int iteration = 0; iteration < 200; ++iteration )
        {
            double h = 0.0, dh = 0.0;
            for ( int i = 0; i < 3; ++i )
            {
                double d = gap[i] + s;
                double q = e[i] * p[i] / d;
                h += q * q;
                dh -= 2.0 * q * q / d;
            }
            if ( h > 1.0 )
            {
                lo = s;
            }
            else if ( h < 1.0 )
            {
                hi = s;
            }
            else
            {
                break;
            }
            double root = 1.0 / sqrt( h );
            double psi = root - 1.0;
            double dpsi = -0.5 * root / h * dh;
            double step = psi / dpsi;
            if ( fabs( step ) <= 4.0 * DBL_EPSILON * s )
            {
                break; // converged (the step may cross the bracket by round-off)
            }
            double next = s - step;
            if ( !( next > lo && next < hi ) || !isfinite( next ) )
            {
                next = 0.5 * ( lo + hi );
            }
            bool done = hi - lo <= 4.0 * DBL_EPSILON * hi;
            s = next;
            if ( done )
            {
                break;
            }
        }
        for ( int i = 0; i < 3; ++i )
        {
            y[i] = e[i] * e[i] * p[i] / ( gap[i] + s );
        }
    }
    cnVec3 near = cnMakeVec3( y[0], y[1], y[2] );
    cnVec3 grad = cnMakeVec3( y[0] / ( e[0] * e[0] ), y[1] / ( e[1] * e[1] ), y[2] / ( e[2] * e[2] ) );
    cnVec3 normal = cnNormalizeOr( grad, cnMakeVec3( 1, 0, 0 ) );
    double inside = ( p[0] / e[0] ) * ( p[0] / e[0] ) + ( p[1] / e[1] ) * ( p[1] / e[1] ) +
                    ( p[2] / e[2] ) * ( p[2] / e[2] );
    double distance = cnLength( cnSub( x, near ) );
    *nearest = near;
    *outward = normal;
    return inside < 1.0 ? -distance : distance;
}

// the nearest point of a hull's surface: inside, the nearest face plane (its projection lies on
// that face); outside, GJK against the point
static double cnPointHull( const cnPlaced* s, cnVec3 p, cnVec3* nearest, cnVec3* outward )
{
    const cnHull* h = s->shape->hull;
    double best = -HUGE_VAL;
    cnVec3 bestNormal = cnMakeVec3( 0, 0, 1 );
    for ( int t = 0; t < s->planeCount; ++t )
    {
        double d = cnDot( s->planeNormals[t], p ) - s->planeOffsets[t];
        if ( d > best )
        {
            best = d;
            bestNormal = s->planeNormals[t];
        }
    }
    if ( h != NULL && s->planeCount == 0 )
    {
        for ( int t = 0; t < h->triangleCount; ++t )
        {
            const int* tri = h->triangles + 3 * t;
            cnVec3 v0 = cnAdd( cnMulMV( s->r, h->vertices[tri[0]] ), s->p );
            cnVec3 normal = cnCross( cnMulMV( s->r, cnSub( h->vertices[tri[1]], h->vertices[tri[0]] ) ),
                                     cnMulMV( s->r, cnSub( h->vertices[tri[2]], h->vertices[tri[0]] ) ) );
            normal = cnNormalizeOr( normal, cn_vec3Zero );
            if ( cnLengthSquared( normal ) == 0.0 )
            {
                continue;
            }
            double d = cnDot( normal, cnSub( p, v0 ) );
            if ( d > best )
            {
                best = d;
                bestNormal = normal;
            }
        }
    }
    if ( best <= 0.0 )
    {
        *nearest = cnMulAdd( p, -best, bestNormal );
        *outward = bestNormal;
        return best;
    }
    cnGeometry point;
    memset( &point, 0, sizeof( point ) );
    point.type = cn_sphereShape;
    point.sphere.radius = 0.0;
    cnCollisionShape probe = { &point, NULL, { p, { 0.0, 0.0, 0.0, 1.0 } } };
    cnDistanceResult r = cnConvexDistance( s->shape, &probe );
    *nearest = r.pointA;
    cnVec3 d = cnSub( p, r.pointA );
    double distance = cnLength( d );
    *outward = cnNormalizeOr( d, bestNormal );
    return distance;
}

static double cnPointDistancePlaced( const cnPlaced* s, cnVec3 p, cnVec3* nearestOut, cnVec3* normalOut )
{
    const cnGeometry* g = s->shape->geometry;
    cnMat3 rt = cnTranspose( s->r );
    cnVec3 x = cnMulMV( rt, cnSub( p, s->p ) ); // shape frame
    cnVec3 q = x, n = cnMakeVec3( 0, 0, 1 );
    double d = 0.0;
    switch ( s->type )
    {
        case cn_sphereShape:
        {
            double length = cnLength( x );
            n = cnNormalizeOr( x, cnMakeVec3( 0, 0, 1 ) );
            q = cnScale( g->sphere.radius, n );
            d = length - g->sphere.radius;
            break;
        }
        case cn_capsuleShape:
        {
            double l = g->capsule.halfLength;
            cnVec3 c = cnMakeVec3( 0, 0, fmax( -l, fmin( l, x.z ) ) );
            cnVec3 w = cnSub( x, c );
            n = cnNormalizeOr( w, cnMakeVec3( 1, 0, 0 ) );
            q = cnMulAdd( c, g->capsule.radius, n );
            d = cnLength( w ) - g->capsule.radius;
            break;
        }
        case cn_boxShape:
        {
            double h[3] = { g->box.halfExtents.x, g->box.halfExtents.y, g->box.halfExtents.z };
            double v[3] = { x.x, x.y, x.z };
            double c[3];
            bool outside = false;
            for ( int i = 0; i < 3; ++i )
            {
                c[i] = fmax( -h[i], fmin( h[i], v[i] ) );
                outside = outside || c[i] != v[i];
            }
            if ( outside )
            {
                q = cnMakeVec3( c[0], c[1], c[2] );
                cnVec3 w = cnSub( x, q );
                d = cnLength( w );
                n = cnNormalizeOr( w, cnMakeVec3( 1, 0, 0 ) );
            }
            else
            {
                int best = 0;
                for ( int i = 1; i < 3; ++i )
                {
                    best = fabs( v[i] ) - h[i] > fabs( v[best] ) - h[best] ? i : best;
                }
                d = fabs( v[best] ) - h[best];
                double sign = v[best] >= 0.0 ? 1.0 : -1.0;
                c[best] = sign * h[best];
                q = cnMakeVec3( c[0], c[1], c[2] );
                double e[3] = { 0, 0, 0 };
                e[best] = sign;
                n = cnMakeVec3( e[0], e[1], e[2] );
            }
            break;
        }
        case cn_cylinderShape:
        {
            double radius = g->cylinder.radius, l = g->cylinder.halfLength;
            double rho = sqrt( x.x * x.x + x.y * x.y );
            cnVec3 radial = rho > 0.0 ? cnMakeVec3( x.x / rho, x.y / rho, 0.0 ) : cnMakeVec3( 1, 0, 0 );
            double dr = rho - radius, dz = fabs( x.z ) - l;
            double sz = x.z >= 0.0 ? 1.0 : -1.0;
            if ( dr <= 0.0 && dz <= 0.0 )
            {
                if ( dr > dz )
                {
                    d = dr;
                    q = cnMakeVec3( radius * radial.x, radius * radial.y, x.z );
                    n = radial;
                }
                else
                {
                    d = dz;
                    q = cnMakeVec3( x.x, x.y, sz * l );
                    n = cnMakeVec3( 0, 0, sz );
                }
            }
            else
            {
                double qr = fmin( rho, radius );
                q = cnMakeVec3( qr * radial.x, qr * radial.y, fmax( -l, fmin( l, x.z ) ) );
                cnVec3 w = cnSub( x, q );
                d = cnLength( w );
                n = cnNormalizeOr( w, radial );
            }
            break;
        }
        case cn_ellipsoidShape:
            d = cnPointEllipsoid( g->ellipsoid.radii, x, &q, &n );
            break;
        case cn_torusShape:
        {
            double big = g->torus.majorRadius, small = g->torus.minorRadius;
            double rho = sqrt( x.x * x.x + x.y * x.y );
            cnVec3 radial = rho > 0.0 ? cnMakeVec3( x.x / rho, x.y / rho, 0.0 ) : cnMakeVec3( 1, 0, 0 );
            cnVec3 core = cnScale( big, radial );
            cnVec3 w = cnSub( x, core );
            n = cnNormalizeOr( w, radial );
            q = cnMulAdd( core, small, n );
            d = cnLength( w ) - small;
            break;
        }
        case cn_hullShape:
        {
            cnVec3 nearWorld, normalWorld;
            double dist = cnPointHull( s, p, &nearWorld, &normalWorld );
            if ( nearestOut != NULL )
            {
                *nearestOut = nearWorld;
            }
            if ( normalOut != NULL )
            {
                *normalOut = normalWorld;
            }
            return dist;
        }
        case cn_planeShape:
        {
            cnVec3 m = cnNormalizeOr( g->plane.normal, cnMakeVec3( 0, 0, 1 ) );
            double length = cnLength( g->plane.normal );
            double offset = length > 0.0 && isfinite( length ) ? g->plane.offset / length : g->plane.offset;
            d = cnDot( m, x ) - offset;
            q = cnMulAdd( x, -d, m );
            n = m;
            break;
        }
        default:
            break;
    }
    if ( nearestOut != NULL )
    {
        *nearestOut = cnAdd( cnMulMV( s->r, q ), s->p );
    }
    if ( normalOut != NULL )
    {
        *normalOut = cnMulMV( s->r, n );
    }
    return d;
}

double cnPointSignedDistance( const cnCollisionShape* shape, cnVec3 p, cnVec3* closest, cnVec3* normal )
{
    cnPlaced s;
    cnPlace( shape, &s );
    return cnPointDistancePlaced( &s, p, closest, normal );
}

// ---------------------------------------------------------------------------------------------
// 4. Tori
//
// The torus T has core circle P(u) = c + R (cos u e1 + sin u e2). For the other shape X, with
// d(x) its signed distance, the separation of the tube ball at u is f(u) - r with f(u) = d(P(u)),
// and f'(u) = grad d . P'(u) = nX . P'(u) (nX: X's outward normal at the nearest point). Where f
// is smallest along the ring, the contact normal -nX is perpendicular to the circle, so the tube
// point along the normal shares it: these are the shared-normal pairs.
//
// The ring is scanned on a grid of 256 angles, every bracket where f' goes from negative to
// non-negative is refined to round-off (Brent's root finder on f'), and flat stretches within the
// margin get points spread along them. With 64 angles, linked rings pulled taut
// (chainmail_taut.json) had their deepest place missed in 4 of 600 steps by up to 4.7e-5 m against
// a 4096-angle scan refined by golden section; with 256, in none.
//
// The grid is not sampled everywhere: 8 of its angles first (32 where only the first bound below
// holds), then every arc between two sampled angles is halved down to the grid's spacing unless
// bounds show that it holds no contact: f >= r + margin all along it and above the lowest sample
// (which the global minimum cannot exceed), or f falls or rises all along it. The bounds, all
// rigorous:
// - f is R-Lipschitz in u (a signed distance is 1-Lipschitz, and P moves at speed R), so over an
//   arc of length h between samples fa and fb, f >= (fa + fb - R h) / 2;
// - against a convex X with an exact signed distance d (every type but hull and torus), d is
//   convex and |P''| = R, so f + R u^2 / 2 is convex: f lies above its tangents less R t^2 / 2, and
//   f'(t) >= f'(a) - R (t - a);
// - against a torus X (core circle of radius R_X, in X's frame x(u) = P(u) - c_X), the squared
//   distance to X's core circle, g = |x|^2 - 2 R_X rho + R_X^2 (rho = |x| in X's plane), has
//   g'' <= U = 2 R (|c_perp| + R_X) everywhere: |x|^2'' = -2 R (c_perp . (cos u, sin u)) with c_perp
//   the offset of the centres in T's plane, and rho'' >= -R (rho is the distance from X's axis of a
//   point moving on an ellipse of X's plane; its kink on the axis is convex). So g - U u^2 / 2 is
//   concave and lies above its chord: over the arc, g >= the chord minus U (u - a)(b - u) / 2,
//   and g'(t) <= g'(a) + U (t - a).
// The brackets found are those of the full grid scan (a monotone arc holds none, an arc above the
// margin and the lowest sample none that is kept), and every grid angle within the margin is
// sampled when their count decides whether the ring lies flat. The narrowphase keeps only contacts
// within the margin and asks for nothing else: a ring that stays out of the margin is then settled
// by the first samples and a few halvings.

#define CN_RING_SCAN           256
#define CN_RING_COARSE         8  // grid steps between the first samples (32 of them)
#define CN_RING_COARSE_BOUNDED 32 // the same where the curvature bounds hold (8 first samples)
#define CN_RING_MINIMA         ( CN_RING_SCAN + 16 )

// f and f' at one angle (the scan and the root finder need no more)
typedef struct cnRingProbe
{
    double u;
    double f;     // signed distance of the core point to X
    double slope; // f'(u)
} cnRingProbe;

typedef struct cnRingSample
{
    double u;
    double f;      // signed distance of the core point to X
    double slope;  // f'(u)
    cnVec3 core;   // P(u)
    cnVec3 near;   // nearest point of X
    cnVec3 normal; // X's outward normal there
} cnRingSample;

typedef struct cnRing
{
    const cnPlaced* torus;
    const cnPlaced* other;
    cnVec3 c, e1, e2;
    double big;
    // X a torus: P(u) in X's frame is oc + cos u oe1 + sin u oe2; X's radii; U of the bound above
    bool otherTorus;
    cnVec3 oc, oe1, oe2;
    double otherBig, otherSmall;
    double curvature;
    // X convex with an exact signed distance: f'' >= -R (the bound and the test below)
    bool convex;
} cnRing;

// cos and sin of the grid angles -pi + 2 pi (i + 1/2) / CN_RING_SCAN, once per thread
static _Thread_local double cn_ringAngle[CN_RING_SCAN], cn_ringCos[CN_RING_SCAN], cn_ringSin[CN_RING_SCAN];
static _Thread_local bool cn_ringTrigReady;

static double cnRingGridAngle( int i )
{
    return -CN_PI + 2.0 * CN_PI * ( (double)i + 0.5 ) / (double)CN_RING_SCAN;
}

static void cnRingTrig( void )
{
    if ( cn_ringTrigReady )
    {
        return;
    }
    for ( int i = 0; i < CN_RING_SCAN; ++i )
    {
        double u = cnRingGridAngle( i );
        cn_ringAngle[i] = u;
        cn_ringCos[i] = cos( u );
        cn_ringSin[i] = sin( u );
    }
    cn_ringTrigReady = true;
}

static void cnMakeRing( const cnPlaced* torus, const cnPlaced* other, cnRing* ring )
{
    memset( ring, 0, sizeof( *ring ) );
    ring->torus = torus;
    ring->other = other;
    ring->c = torus->p;
    ring->e1 = torus->r.cx;
    ring->e2 = torus->r.cy;
    ring->big = torus->shape->geometry->torus.majorRadius;
    if ( other->type == cn_torusShape )
    {
        cnMat3 rt = cnTranspose( other->r );
        ring->otherTorus = true;
        ring->oc = cnMulMV( rt, cnSub( ring->c, other->p ) );
        ring->oe1 = cnScale( ring->big, cnMulMV( rt, ring->e1 ) );
        ring->oe2 = cnScale( ring->big, cnMulMV( rt, ring->e2 ) );
        ring->otherBig = other->shape->geometry->torus.majorRadius;
        ring->otherSmall = other->shape->geometry->torus.minorRadius;
        double cPerp = hypot( cnDot( ring->c, ring->e1 ) - cnDot( other->p, ring->e1 ),
                              cnDot( ring->c, ring->e2 ) - cnDot( other->p, ring->e2 ) );
        ring->curvature = 2.0 * ring->big * ( cPerp + ring->otherBig );
    }
    // the hull's distance outside is GJK's, and its normal a converged one, not exact
    ring->convex = other->type != cn_torusShape && other->type != cn_hullShape;
}

static cnRingProbe cnRingProbeTrig( const cnRing* ring, double u, double cu, double su )
{
    cnRingProbe s;
    s.u = u;
    if ( ring->otherTorus )
    {
        // the distance to X's core circle, in X's frame (cnPointDistancePlaced's torus case)
        cnVec3 x = cnAdd( ring->oc, cnAdd( cnScale( cu, ring->oe1 ), cnScale( su, ring->oe2 ) ) );
        cnVec3 dx = cnAdd( cnScale( -su, ring->oe1 ), cnScale( cu, ring->oe2 ) );
        double rho = sqrt( x.x * x.x + x.y * x.y );
        double scale = rho > 0.0 ? 1.0 - ring->otherBig / rho : 0.0;
        cnVec3 w =
            rho > 0.0 ? cnMakeVec3( scale * x.x, scale * x.y, x.z ) : cnMakeVec3( -ring->otherBig, 0.0, x.z );
        double length = cnLength( w );
        s.f = length - ring->otherSmall;
        s.slope =
            length > 0.0 ? cnDot( w, dx ) / length : ( rho > 0.0 ? ( x.x * dx.x + x.y * dx.y ) / rho : dx.x );
        return s;
    }
    cnVec3 core =
        cnAdd( ring->c, cnAdd( cnScale( ring->big * cu, ring->e1 ), cnScale( ring->big * su, ring->e2 ) ) );
    cnVec3 tangent = cnAdd( cnScale( -ring->big * su, ring->e1 ), cnScale( ring->big * cu, ring->e2 ) );
    cnVec3 normal;
    s.f = cnPointDistancePlaced( ring->other, core, NULL, &normal );
    s.slope = cnDot( normal, tangent );
    return s;
}

static cnRingProbe cnRingProbeAt( const cnRing* ring, double u )
{
    return cnRingProbeTrig( ring, u, cos( u ), sin( u ) );
}

// the grid angle i (0 <= i <= CN_RING_SCAN; the last is the first one turn on)
static cnRingProbe cnRingProbeGrid( const cnRing* ring, int i )
{
    int k = i % CN_RING_SCAN;
    cnRingProbe s = cnRingProbeTrig( ring, cn_ringAngle[k], cn_ringCos[k], cn_ringSin[k] );
    s.u += i == k ? 0.0 : 2.0 * CN_PI;
    return s;
}

// every output of cnPointDistancePlaced at u, for a contact
static cnRingSample cnRingAt( const cnRing* ring, double u )
{
    cnRingSample s;
    double cu = cos( u ), su = sin( u );
    s.u = u;
    s.core =
        cnAdd( ring->c, cnAdd( cnScale( ring->big * cu, ring->e1 ), cnScale( ring->big * su, ring->e2 ) ) );
    cnVec3 tangent = cnAdd( cnScale( -ring->big * su, ring->e1 ), cnScale( ring->big * cu, ring->e2 ) );
    s.f = cnPointDistancePlaced( ring->other, s.core, &s.near, &s.normal );
    s.slope = cnDot( s.normal, tangent );
    return s;
}

// A lower bound of f over the arc from a to b (b.u > a.u), from the bounds at the top of the
// section, less a round-off allowance
static double cnRingLowerBound( const cnRing* ring, cnRingProbe a, cnRingProbe b )
{
    double h = b.u - a.u;
    double bound = 0.5 * ( a.f + b.f - ring->big * h );
    if ( ring->otherTorus )
    {
        // q(s) = ga + (gb - ga) s - w s (1 - s) on s in [0, 1]: the chord less U h^2 s (1 - s) / 2
        double da = a.f + ring->otherSmall, db = b.f + ring->otherSmall;
        double ga = da * da, gb = db * db;
        double w = 0.5 * ring->curvature * h * h;
        double low = ga < gb ? ga : gb;
        if ( fabs( gb - ga ) < w )
        {
            double s = 0.5 - ( gb - ga ) / ( 2.0 * w );
            low = ga + ( gb - ga ) * s - w * s * ( 1.0 - s );
        }
        double chord = low > 0.0 ? sqrt( low ) - ring->otherSmall : -ring->otherSmall;
        bound = chord > bound ? chord : bound;
    }
    else if ( ring->convex )
    {
        // f lies above ta(t) = fa + f'a (t - a) - R (t - a)^2 / 2 and tb(t) = fb - f'b (b - t) - R (b - t)^2
        // / 2, whose difference is linear: the lowest of max(ta, tb) is at an end or where they cross
        double atA = fmax( a.f, b.f - b.slope * h - 0.5 * ring->big * h * h );
        double atB = fmax( b.f, a.f + a.slope * h - 0.5 * ring->big * h * h );
        double low = fmin( atA, atB );
        double offset = a.f - b.f + b.slope * h + 0.5 * ring->big * h * h,
               rate = a.slope - b.slope - ring->big * h;
        double t = rate != 0.0 ? -offset / rate : -1.0;
        if ( t > 0.0 && t < h )
        {
            low = fmin( low, a.f + a.slope * t - 0.5 * ring->big * t * t );
        }
        bound = fmax( bound, low );
    }
    return bound - 1e-12 * ( ring->big + fabs( a.f ) + fabs( b.f ) );
}

// Whether f has no minimum inside the arc from a to b (b.u > a.u) because it falls or rises along
// all of it. Against a torus, g = (f + r_X)^2 has g'' <= U, so g'(t) <= g'(a) + U (t - a) and
// g'(t) >= g'(b) - U (b - t); against a convex X, f'' >= -R, so f'(t) >= f'(a) - R (t - a) and
// f'(t) <= f'(b) + R (b - t).
static bool cnRingMonotone( const cnRing* ring, cnRingProbe a, cnRingProbe b )
{
    double h = b.u - a.u;
    if ( ring->otherTorus )
    {
        double ga = 2.0 * ( a.f + ring->otherSmall ) * a.slope,
               gb = 2.0 * ( b.f + ring->otherSmall ) * b.slope;
        double rise = ring->curvature * h * ( 1.0 + 1e-12 );
        return ga < -rise || gb > rise;
    }
    if ( ring->convex )
    {
        double rise = ring->big * h * ( 1.0 + 1e-12 );
        return a.slope > rise || b.slope < -rise;
    }
    return false;
}

// Brent's root finder (Dekker's bisection-secant-inverse quadratic) on f' in [a, b] with
// f'(a) < 0 <= f'(b)
static cnRingProbe cnRingRefine( const cnRing* ring, cnRingProbe sa, cnRingProbe sb )
{
    cnRingProbe a = sa, b = sb, c = sa;
    double d = b.u - a.u, e = d;
    for ( int iteration = 0; iteration < 100; ++iteration )
    {
        if ( ( b.slope > 0.0 && c.slope > 0.0 ) || ( b.slope < 0.0 && c.slope < 0.0 ) )
        {
            c = a;
            d = b.u - a.u;
            e = d;
        }
        if ( fabs( c.slope ) < fabs( b.slope ) )
        {
            a = b;
            b = c;
            c = a;
        }
        double tol = 2.0 * DBL_EPSILON * fabs( b.u ) + 1e-15;
        double m = 0.5 * ( c.u - b.u );
        if ( fabs( m ) <= tol || b.slope == 0.0 )
        {
            break;
        }
        if ( fabs( e ) >= tol && fabs( a.slope ) > fabs( b.slope ) )
        {
            double s = b.slope / a.slope, p, q;
            if ( a.u == c.u )
            {
                p = 2.0 * m * s;
                q = 1.0 - s;
            }
            else
            {
                double qa = a.slope / c.slope, r = b.slope / c.slope;
                p = s * ( 2.0 * m * qa * ( qa - r ) - ( b.u - a.u ) * ( r - 1.0 ) );
                q = ( qa - 1.0 ) * ( r - 1.0 ) * ( s - 1.0 );
            }
            if ( p > 0.0 )
            {
                q = -q;
            }
            else
            {
                p = -p;
            }
            if ( 2.0 * p < fmin( 3.0 * m * q - fabs( tol * q ), fabs( e * q ) ) )
            {
                e = d;
                d = p / q;
            }
            else
            {
                d = m;
                e = m;
            }
        }
        else
        {
            d = m;
            e = m;
        }
        a = b;
        double next = b.u + ( fabs( d ) > tol ? d : ( m > 0.0 ? tol : -tol ) );
        b = cnRingProbeAt( ring, next );
    }
    // the end nearer the root of f' (at a kink of f, where f' jumps, either end of the final
    // bracket, a round-off apart); not the lower f, which is flat at round-off there
    return fabs( b.slope ) <= fabs( c.slope ) ? b : c;
}

// Refine the bracket [a, b] (f'(a) < 0 <= f'(b)) to its minimum m, then look for a second
// minimum hiding in the same bracket (two dips closer than the scan's spacing): f' at the middle
// of [a, m] turning positive, or at the middle of [m, b] negative, brackets another one. Appends
// to `minima` (at most `capacity`), returns the new count.
static int cnRingBracket( const cnRing* ring, cnRingProbe a, cnRingProbe b, cnRingProbe* minima, int count,
                          int capacity )
{
    if ( count >= capacity )
    {
        return count;
    }
    cnRingProbe m = cnRingRefine( ring, a, b );
    minima[count++] = m;
    cnRingProbe left = cnRingProbeAt( ring, 0.5 * ( a.u + m.u ) );
    if ( left.slope >= 0.0 && left.u - a.u > 1e-9 && count < capacity )
    {
        minima[count++] = cnRingRefine( ring, a, left );
    }
    cnRingProbe right = cnRingProbeAt( ring, 0.5 * ( m.u + b.u ) );
    if ( right.slope < 0.0 && b.u - right.u > 1e-9 && count < capacity )
    {
        minima[count++] = cnRingRefine( ring, right, b );
    }
    return count;
}

static void cnRingContact( const cnRing* ring, const cnRingSample* s, bool torusFirst, cnSmoothContact* out )
{
    const cnPlaced* t = ring->torus;
    cnVec3 n = cnNeg( s->normal ); // from the torus towards X
    cnVec3 onTorus = cnMulAdd( s->core, t->radius, n );
    cnVec3 onOther = s->near;
    // tube angle: the direction from the core point, in the frame of the ring at u
    cnVec3 radial = cnNormalize( cnSub( s->core, ring->c ) );
    cnVec3 axis = t->r.cz;
    cnSurfaceParams pt;
    cnVec3 local = cnMulMV( cnTranspose( t->r ), cnSub( s->core, ring->c ) );
    pt.u = atan2( local.y, local.x );
    pt.v = atan2( cnDot( n, axis ), cnDot( n, radial ) );
    cnSurfaceParams po;
    memset( &po, 0, sizeof( po ) );
    if ( ring->other->type == cn_torusShape )
    {
        const cnPlaced* o = ring->other;
        cnVec3 l = cnMulMV( cnTranspose( o->r ), cnSub( onOther, o->p ) );
        double rho = sqrt( l.x * l.x + l.y * l.y );
        po.u = atan2( l.y, l.x );
        cnVec3 lnormal = cnMulMV( cnTranspose( o->r ), s->normal );
        cnVec3 rad = rho > 0.0 ? cnMakeVec3( l.x / rho, l.y / rho, 0 ) : cnMakeVec3( 1, 0, 0 );
        po.v = atan2( lnormal.z, cnDot( lnormal, rad ) );
    }
    else if ( ring->other->type != cn_planeShape )
    {
        po = cnNormalParams( ring->other, s->normal );
    }
    double separation = s->f - t->radius;
    if ( torusFirst )
    {
        out->normal = n;
        out->pointA = onTorus;
        out->pointB = onOther;
        out->paramA = pt;
        out->paramB = po;
    }
    else
    {
        out->normal = s->normal;
        out->pointA = onOther;
        out->pointB = onTorus;
        out->paramA = po;
        out->paramB = pt;
    }
    out->separation = separation;
}

static double cnWrapAngle( double u )
{
    u = fmod( u, 2.0 * CN_PI );
    if ( u <= -CN_PI )
    {
        u += 2.0 * CN_PI;
    }
    else if ( u > CN_PI )
    {
        u -= 2.0 * CN_PI;
    }
    return u;
}

static double cnAngleBetween( double a, double b )
{
    return fabs( cnWrapAngle( a - b ) );
}

static int cnCompareRingProbes( const void* a, const void* b )
{
    double fa = ( (const cnRingProbe*)a )->f, fb = ( (const cnRingProbe*)b )->f;
    return fa < fb ? -1 : ( fa > fb ? 1 : 0 );
}

static int cnCompareContacts( const void* a, const void* b )
{
    double sa = ( (const cnSmoothContact*)a )->separation, sb = ( (const cnSmoothContact*)b )->separation;
    return sa < sb ? -1 : ( sa > sb ? 1 : 0 );
}

// Every local minimum along the ring (refined), and spread points on flat stretches within the
// margin, deepest first, at most `capacity`: the global minimum first unless `withinMargin`, when
// only minima with f - r < margin are wanted (none may be written). The warm angles are probed
// first: a low value there lets the scan set aside more of the ring.
static int cnRingMinima( const cnRing* ring, double margin, bool withinMargin, const double* warmU,
                         int warmCount, cnRingProbe* out, int capacity )
{
    cnRingTrig();
    double tube = ring->torus->radius;
    double reach = tube + margin; // f below this: within the margin
    cnRingProbe samples[CN_RING_SCAN + 1];
    bool sampled[CN_RING_SCAN + 1];
    memset( sampled, 0, sizeof( sampled ) );
    int within = 0; // sampled grid angles within the margin
    cnRingProbe best;
    best.u = 0.0;
    best.f = HUGE_VAL;
    best.slope = 0.0;
    for ( int w = 0; w < warmCount && !withinMargin; ++w )
    {
        cnRingProbe s = cnRingProbeAt( ring, warmU[w] );
        best = s.f < best.f ? s : best;
    }
    int step = ring->otherTorus || ring->convex ? CN_RING_COARSE_BOUNDED : CN_RING_COARSE;
    for ( int i = 0; i <= CN_RING_SCAN; i += step )
    {
        samples[i] = cnRingProbeGrid( ring, i );
        sampled[i] = true;
        within += i < CN_RING_SCAN && samples[i].f < reach ? 1 : 0;
        best = samples[i].f < best.f ? samples[i] : best;
    }

    // Halve every arc that may hold a contact down to the grid's spacing, depth first and in order
    // of angle. An arc set aside as monotone may still hold grid angles within the margin: those
    // are counted, and sampled below when they decide whether the ring lies flat.
    int stackStart[CN_RING_SCAN], stackSpan[CN_RING_SCAN], top = 0;
    int brackets[CN_RING_SCAN], bracketCount = 0;
    int unsampledStart[CN_RING_SCAN], unsampledSpan[CN_RING_SCAN], unsampledCount = 0, unsampled = 0;
    for ( int i = CN_RING_SCAN - step; i >= 0; i -= step )
    {
        stackStart[top] = i;
        stackSpan[top++] = step;
    }
    while ( top > 0 )
    {
        top -= 1;
        int i = stackStart[top], span = stackSpan[top];
        double bound = cnRingLowerBound( ring, samples[i], samples[i + span] );
        if ( bound >= reach && ( withinMargin || bound > best.f ) )
        {
            continue;
        }
        if ( span == 1 )
        {
            brackets[bracketCount++] = i;
            continue;
        }
        if ( cnRingMonotone( ring, samples[i], samples[i + span] ) )
        {
            if ( bound < reach )
            {
                unsampledStart[unsampledCount] = i;
                unsampledSpan[unsampledCount++] = span;
                unsampled += span - 1;
            }
            continue;
        }
        int half = i + span / 2;
        samples[half] = cnRingProbeGrid( ring, half );
        sampled[half] = true;
        within += samples[half].f < reach ? 1 : 0;
        best = samples[half].f < best.f ? samples[half] : best;
        stackStart[top] = half;
        stackSpan[top++] = span / 2;
        stackStart[top] = i;
        stackSpan[top++] = span / 2;
    }

    cnRingProbe minima[CN_RING_MINIMA];
    int count = 0;
    for ( int k = 0; k < bracketCount; ++k )
    {
        cnRingProbe a = samples[brackets[k]], b = samples[brackets[k] + 1];
        if ( a.slope < 0.0 && b.slope >= 0.0 )
        {
            count = cnRingBracket( ring, a, b, minima, count, CN_RING_MINIMA );
        }
    }
    // flat stretches within the margin (more than an eighth of the grid): the samples there, spread
    // out (the deepest point first)
    if ( ( within + unsampled ) * 8 > CN_RING_SCAN )
    {
        for ( int k = 0; k < unsampledCount; ++k )
        {
            for ( int i = unsampledStart[k] + 1; i < unsampledStart[k] + unsampledSpan[k]; ++i )
            {
                samples[i] = cnRingProbeGrid( ring, i );
                sampled[i] = true;
                within += samples[i].f < reach ? 1 : 0;
            }
        }
    }
    if ( within * 8 > CN_RING_SCAN )
    {
        for ( int add = 0; add < 4 && count < CN_RING_MINIMA; ++add )
        {
            // the sample within the margin farthest (in angle) from every chosen point
            int farthest = -1;
            double farthestGap = 0.0;
            for ( int i = 0; i < CN_RING_SCAN; ++i )
            {
                if ( !sampled[i] || !( samples[i].f < reach ) )
                {
                    continue;
                }
                double gap = HUGE_VAL;
                for ( int k = 0; k < count; ++k )
                {
                    gap = fmin( gap, cnAngleBetween( samples[i].u, minima[k].u ) );
                }
                if ( gap > farthestGap )
                {
                    farthestGap = gap;
                    farthest = i;
                }
            }
            if ( farthest < 0 || farthestGap < 0.25 * CN_PI )
            {
                break;
            }
            minima[count++] = samples[farthest];
        }
    }
    if ( count == 0 )
    {
        // no bracket (f' of one sign everywhere, at round-off): the lowest value seen
        minima[count++] = best;
    }

    // sort by f, drop duplicates (same angle), keep the global minimum and those within the margin
    qsort( minima, (size_t)count, sizeof( minima[0] ), cnCompareRingProbes );
    int written = 0;
    for ( int i = 0; i < count && written < capacity; ++i )
    {
        if ( ( i > 0 || withinMargin ) && !( minima[i].f < reach ) )
        {
            break;
        }
        bool duplicate = false;
        for ( int k = 0; k < written && !duplicate; ++k )
        {
            duplicate = cnAngleBetween( out[k].u, minima[i].u ) < 1e-6;
        }
        if ( !duplicate )
        {
            out[written++] = minima[i];
        }
    }
    return written;
}

static int cnTorusQuery( const cnPlaced* torus, const cnPlaced* other, bool torusFirst, double margin,
                         bool withinMargin, const cnSmoothContact* warm, int warmCount,
                         cnSmoothContact* contacts, int capacity )
{
    cnRing ring;
    cnMakeRing( torus, other, &ring );
    double warmU[CN_MAX_SMOOTH_CONTACTS];
    int wc = 0;
    for ( int i = 0; warm != NULL && i < warmCount && wc < CN_MAX_SMOOTH_CONTACTS; ++i )
    {
        double u = torusFirst ? warm[i].paramA.u : warm[i].paramB.u;
        if ( isfinite( u ) )
        {
            warmU[wc++] = u;
        }
    }
    if ( wc > 0 && !withinMargin )
    {
        cn_smoothStats.warmStarts += 1;
    }
    cnRingProbe minima[CN_MAX_SMOOTH_CONTACTS];
    int limit = capacity < CN_MAX_SMOOTH_CONTACTS ? capacity : CN_MAX_SMOOTH_CONTACTS;
    int count = cnRingMinima( &ring, margin, withinMargin, warmU, wc, minima, limit );
    // the contacts from every output of the signed distance, deepest first
    cnRingSample found[CN_MAX_SMOOTH_CONTACTS];
    for ( int k = 0; k < count; ++k )
    {
        found[k] = cnRingAt( &ring, minima[k].u );
        for ( int j = k; j > 0 && found[j].f < found[j - 1].f; --j )
        {
            cnRingSample t = found[j];
            found[j] = found[j - 1];
            found[j - 1] = t;
        }
    }
    for ( int k = 0; k < count; ++k )
    {
        cnRingContact( &ring, found + k, torusFirst, contacts + k );
    }
    return count;
}

// ---------------------------------------------------------------------------------------------
// 5. The dispatcher and the pair functions

static bool cnIsSmoothType( cnShapeType t )
{
    return t == cn_ellipsoidShape || t == cn_capsuleShape || t == cn_torusShape;
}

bool cnIsSmoothPair( cnShapeType a, cnShapeType b )
{
    if ( (int)a < 0 || a >= cn_shapeTypeCount || (int)b < 0 || b >= cn_shapeTypeCount )
    {
        return false;
    }
    return ( cnIsSmoothType( a ) || cnIsSmoothType( b ) ) && !( a == cn_planeShape && b == cn_planeShape );
}

static cnSmoothContact cnFlipContact( cnSmoothContact c )
{
    cnSmoothContact f = c;
    f.normal = cnNeg( c.normal );
    f.pointA = c.pointB;
    f.pointB = c.pointA;
    f.paramA = c.paramB;
    f.paramB = c.paramA;
    return f;
}

// a convex shape (A) against a plane (B): the support of A along the plane's inward normal
static void cnPlaneQuery( const cnPlaced* a, const cnPlaced* plane, cnSmoothContact* out )
{
    // the plane in the world, dot(m, x) <= offset: the foot of its origin and its normal there
    cnVec3 m, onPlane;
    cnPointDistancePlaced( plane, plane->p, &onPlane, &m );
    double offset = cnDot( m, onPlane );
    cnVec3 n = cnNeg( m );
    cnVec3 sa = cnWorldSupport( a->shape, n ); // includes the swept radius
    out->normal = n;
    out->pointA = sa;
    out->separation = cnDot( m, sa ) - offset;
    out->pointB = cnMulAdd( sa, -out->separation, m );
    out->paramA = cnNormalParams( a, n );
    memset( &out->paramB, 0, sizeof( out->paramB ) );
}

// capsule or sphere cores against each other: the closest points of the segments, exact while the
// cores are apart
static bool cnRoundCoresQuery( const cnPlaced* a, const cnPlaced* b, cnSmoothContact* out )
{
    cnVec3 a0 = a->point[0], a1 = a->type == cn_capsuleShape ? a->point[1] : a->point[0];
    cnVec3 b0 = b->point[0], b1 = b->type == cn_capsuleShape ? b->point[1] : b->point[0];
    double s, t;
    cnClosestSegmentSegment( a0, cnSub( a1, a0 ), b0, cnSub( b1, b0 ), &s, &t );
    cnVec3 pa = cnMulAdd( a0, s, cnSub( a1, a0 ) );
    cnVec3 pb = cnMulAdd( b0, t, cnSub( b1, b0 ) );
    cnVec3 d = cnSub( pb, pa );
    double distance = cnLength( d );
    double scale = a->size + b->size + cnLength( a->p ) + cnLength( b->p );
    if ( !( distance > 1e-9 * scale ) )
    {
        return false;
    }
    cnVec3 n = cnScale( 1.0 / distance, d );
    out->normal = n;
    out->pointA = cnMulAdd( pa, a->radius, n );
    out->pointB = cnMulAdd( pb, -b->radius, n );
    out->separation = cnDot( cnSub( out->pointB, out->pointA ), n );
    out->paramA = cnNormalParams( a, n );
    out->paramB = cnNormalParams( b, cnNeg( n ) );
    return true;
}

static bool cnIsFinitePlacement( const cnCollisionShape* s )
{
    return cnIsFiniteVec3( s->transform.p ) && cnIsFiniteQuat( s->transform.q ) &&
           cnQuatLength( s->transform.q ) > 0.0;
}

// cnSmoothQuery; with `withinMargin`, a pair with a torus reports only the contacts with separation
// < margin (perhaps none), which is all the narrowphase keeps, and is cheaper when there are none
static int cnSmoothQueryFor( const cnCollisionShape* a, const cnCollisionShape* b, double margin,
                             bool withinMargin, const cnSmoothContact* warm, int warmCount,
                             cnSmoothContact* contacts, int capacity )
{
    if ( capacity < 1 || a == NULL || b == NULL || contacts == NULL ||
         !cnIsSmoothPair( a->geometry->type, b->geometry->type ) || !cnIsFinitePlacement( a ) ||
         !cnIsFinitePlacement( b ) )
    {
        return 0;
    }
    cn_smoothStats.queries += 1;
    if ( isnan( margin ) )
    {
        margin = 0.0;
    }
    warmCount =
        warm != NULL ? ( warmCount < CN_MAX_SMOOTH_CONTACTS ? warmCount : CN_MAX_SMOOTH_CONTACTS ) : 0;
    cnPlaced pa, pb;
    cnPlace( a, &pa );
    cnPlace( b, &pb );

    // tori: the torus scans its ring (both tori: A's ring against B)
    if ( pa.type == cn_torusShape || pb.type == cn_torusShape )
    {
        bool torusFirst = pa.type == cn_torusShape;
        return torusFirst
                   ? cnTorusQuery( &pa, &pb, true, margin, withinMargin, warm, warmCount, contacts, capacity )
                   : cnTorusQuery( &pb, &pa, false, margin, withinMargin, warm, warmCount, contacts,
                                   capacity );
    }
    if ( pa.type == cn_planeShape || pb.type == cn_planeShape )
    {
        if ( pb.type == cn_planeShape )
        {
            cnPlaneQuery( &pa, &pb, contacts );
        }
        else
        {
            cnSmoothContact c;
            cnPlaneQuery( &pb, &pa, &c );
            *contacts = cnFlipContact( c );
        }
        return 1;
    }
    bool round = ( pa.type == cn_sphereShape || pa.type == cn_capsuleShape ) &&
                 ( pb.type == cn_sphereShape || pb.type == cn_capsuleShape );
    if ( round && cnRoundCoresQuery( &pa, &pb, contacts ) )
    {
        return 1;
    }
    const cnSmoothContact* w = warmCount > 0 ? warm : NULL;
    cnConvexSmoothQuery( &pa, &pb, w, w != NULL ? 1 : 0, contacts );
    return 1;
}

int cnSmoothQuery( const cnCollisionShape* a, const cnCollisionShape* b, double margin,
                   const cnSmoothContact* warm, int warmCount, cnSmoothContact* contacts, int capacity )
{
    return cnSmoothQueryFor( a, b, margin, false, warm, warmCount, contacts, capacity );
}

// ---- pair functions

// the warm contacts of a previous manifold: its points, deepest first
static int cnWarmFromManifold( const cnManifold* previous, cnSmoothContact* warm )
{
    if ( previous == NULL || previous->pointCount <= 0 )
    {
        return 0;
    }
    int count = previous->pointCount > CN_MAX_MANIFOLD_POINTS ? CN_MAX_MANIFOLD_POINTS : previous->pointCount;
    for ( int i = 0; i < count; ++i )
    {
        const cnManifoldPoint* p = previous->points + i;
        memset( warm + i, 0, sizeof( warm[i] ) );
        warm[i].separation = p->separation;
        warm[i].normal = previous->normal;
        warm[i].paramA = p->paramA;
        warm[i].paramB = p->paramB;
    }
    qsort( warm, (size_t)count, sizeof( warm[0] ), cnCompareContacts ); // deepest first
    return count;
}

void cnCollideSmoothConvex( const cnCollisionShape* a, const cnCollisionShape* b, double margin,
                            const cnManifold* previous, cnManifold* manifold )
{
    cnManifold old;
    if ( !cnBeginPersistentPair( a, b, &margin, previous, &old, manifold ) )
    {
        return;
    }
    cnSmoothContact warm[CN_MAX_MANIFOLD_POINTS];
    int warmCount = cnWarmFromManifold( &old, warm );
    cnSmoothContact contact;
    if ( cnSmoothQuery( a, b, margin, warmCount > 0 ? warm : NULL, warmCount, &contact, 1 ) < 1 ||
         !( contact.separation < margin ) )
    {
        return;
    }
    cnMergePersistentPoint( a, b, margin, &old, contact.normal, contact.pointA, contact.pointB,
                            contact.separation, contact.paramA, contact.paramB, manifold );
}

void cnCollideTorus( const cnCollisionShape* a, const cnCollisionShape* b, double margin,
                     const cnManifold* previous, cnManifold* manifold )
{
    cnManifold old;
    if ( !cnBeginPersistentPair( a, b, &margin, previous, &old, manifold ) )
    {
        return;
    }
    cnSmoothContact warm[CN_MAX_MANIFOLD_POINTS];
    int warmCount = cnWarmFromManifold( &old, warm );
    cnSmoothContact found[CN_MAX_SMOOTH_CONTACTS];
    int count = cnSmoothQueryFor( a, b, margin, true, warmCount > 0 ? warm : NULL, warmCount, found,
                                  CN_MAX_SMOOTH_CONTACTS );
    int kept = 0;
    for ( int i = 0; i < count; ++i )
    {
        if ( found[i].separation < margin )
        {
            found[kept++] = found[i];
        }
    }
    if ( kept == 0 )
    {
        return;
    }
    // at most 4: the deepest, then greedily the point farthest from those chosen
    int chosen[CN_MAX_MANIFOLD_POINTS];
    int chosenCount = 1;
    chosen[0] = 0;
    while ( chosenCount < CN_MAX_MANIFOLD_POINTS && chosenCount < kept )
    {
        int best = -1;
        double bestGap = -1.0;
        for ( int i = 0; i < kept; ++i )
        {
            double gap = HUGE_VAL;
            for ( int k = 0; k < chosenCount; ++k )
            {
                gap = fmin( gap, cnLengthSquared( cnSub( found[i].pointA, found[chosen[k]].pointA ) ) );
            }
            if ( gap > bestGap )
            {
                bestGap = gap;
                best = i;
            }
        }
        if ( best < 0 || bestGap <= 0.0 )
        {
            break;
        }
        chosen[chosenCount++] = best;
    }

    // feature ids: a point keeps the id of the previous point nearest it (within the drift limit)
    double smaller =
        fmin( cnLocalBoundingRadius( a->geometry, a->hull ), cnLocalBoundingRadius( b->geometry, b->hull ) );
    double drift = fmin( CN_MANIFOLD_DRIFT_MAX, CN_MANIFOLD_DRIFT_SIZE * smaller );
    uint32_t maxId = 0;
    for ( int i = 0; i < old.pointCount; ++i )
    {
        maxId = old.points[i].id > maxId ? old.points[i].id : maxId;
    }
    bool claimed[CN_MAX_MANIFOLD_POINTS] = { false };
    cnTransform ta = a->transform, tb = b->transform;
    ta.q = cnNormalizeQuat( ta.q );
    tb.q = cnNormalizeQuat( tb.q );
    manifold->normal = found[0].normal;
    manifold->perPointNormals = true;
    for ( int k = 0; k < chosenCount; ++k )
    {
        const cnSmoothContact* c = found + chosen[k];
        cnManifoldPoint* p = manifold->points + k;
        p->point = cnScale( 0.5, cnAdd( c->pointA, c->pointB ) );
        p->localA = cnInvTransformPoint( ta, c->pointA );
        p->localB = cnInvTransformPoint( tb, c->pointB );
        p->separation = c->separation;
        p->normal = c->normal;
        p->paramA = c->paramA;
        p->paramB = c->paramB;
        int nearest = -1;
        double nearestDistance = drift;
        for ( int i = 0; i < old.pointCount && i < CN_MAX_MANIFOLD_POINTS; ++i )
        {
            double d = cnLength( cnSub( old.points[i].point, p->point ) );
            if ( !claimed[i] && d <= nearestDistance )
            {
                nearestDistance = d;
                nearest = i;
            }
        }
        if ( nearest >= 0 )
        {
            claimed[nearest] = true;
            p->id = old.points[nearest].id;
        }
        else
        {
            maxId += 1u;
            p->id = maxId;
        }
    }
    manifold->pointCount = chosenCount;
}
