// SPDX-License-Identifier: MIT
// Scene generators: pyramid, grid, random pile, ring lattice (chainmail) and colony seed.
// Random numbers come from splitmix64 seeded by the file, so a scene is the same everywhere.

#include "scene_generate.h"

#include "core.h"
#include "weave.h"

#include <math.h>

#define CN_PI 3.14159265358979323846

static uint64_t cnSplitMix( uint64_t* state )
{
    uint64_t z = ( *state += UINT64_C( 0x9E3779B97F4A7C15 ) );
    z = ( z ^ ( z >> 30 ) ) * UINT64_C( 0xBF58476D1CE4E5B9 );
    z = ( z ^ ( z >> 27 ) ) * UINT64_C( 0x94D049BB133111EB );
    return z ^ ( z >> 31 );
}

// uniform in [0, 1)
static double cnUniform( uint64_t* state )
{
    return (double)( cnSplitMix( state ) >> 11 ) * 0x1.0p-53;
}

static double cnSymmetric( uint64_t* state, double half )
{
    return half * ( 2.0 * cnUniform( state ) - 1.0 );
}

// A rotation uniform over SO(3) (Shoemake's subgroup algorithm).
static cnQuat cnRandomRotation( uint64_t* state )
{
    double u1 = cnUniform( state );
    double u2 = 2.0 * CN_PI * cnUniform( state );
    double u3 = 2.0 * CN_PI * cnUniform( state );
    double a = sqrt( 1.0 - u1 );
    double b = sqrt( u1 );
    return cnNormalizeQuat( cnMakeQuat( b * cos( u3 ), a * sin( u2 ), a * cos( u2 ), b * sin( u3 ) ) );
}

// Cells of the random pile's lattice along one axis of the region.
static int cnCellsAlong( double low, double high, double spacing )
{
    double cells = floor( ( high - low ) / spacing ) + 1.0;
    return cells > 1.0e6 ? 1000000 : (int)cells;
}

static int cnGreatestCommonDivisor( int a, int b )
{
    while ( b != 0 )
    {
        int t = a % b;
        a = b;
        b = t;
    }
    return a;
}

static int cnColonySide( int count )
{
    int side = (int)ceil( sqrt( (double)count ) );
    while ( side * side < count )
    {
        side += 1;
    }
    return side;
}

int cnGeneratorCount( const cnGeneratorParams* p, char* message, int messageSize )
{
    switch ( p->type )
    {
        case cn_generatePyramid:
            if ( p->rows > 20000 )
            {
                cnFormat( message, messageSize, "rows: at most 20000" );
                return -1;
            }
            return p->rows * ( p->rows + 1 ) / 2;
        case cn_generateGrid:
        {
            double total = (double)p->count[0] * p->count[1] * p->count[2];
            if ( total > 1.0e8 )
            {
                cnFormat( message, messageSize, "count: at most 1e8 bodies" );
                return -1;
            }
            return (int)total;
        }
        case cn_generateRandomPile:
        {
            double cells = (double)cnCellsAlong( p->regionMin.x, p->regionMax.x, p->spacing.x ) *
                           cnCellsAlong( p->regionMin.y, p->regionMax.y, p->spacing.x ) *
                           cnCellsAlong( p->regionMin.z, p->regionMax.z, p->spacing.x );
            if ( cells < (double)p->count[0] )
            {
                cnFormat( message, messageSize,
                          "count: the region holds %.0f cells of %g m, fewer than the %d bodies asked for",
                          cells, p->spacing.x, p->count[0] );
                return -1;
            }
            return p->count[0];
        }
        case cn_generateRingLattice:
        {
            if ( (double)p->rows * p->columns > 1.0e7 )
            {
                cnFormat( message, messageSize, "rows x columns: at most 1e7 rings" );
                return -1;
            }
            cnTransform probe;
            if ( cnWeaveEuropean4in1( p->majorRadius, p->minorRadius, 1, 1, &probe, message, messageSize ) ==
                 false )
            {
                return -1;
            }
            return p->rows * p->columns;
        }
        case cn_generateColonySeed:
            return p->count[0];
        default:
            cnFormat( message, messageSize, "unknown generator" );
            return -1;
    }
}

bool cnGeneratePoses( const cnGeneratorParams* p, cnTransform* out, char* message, int messageSize )
{
    int count = cnGeneratorCount( p, message, messageSize );
    if ( count < 0 )
    {
        return false;
    }
    uint64_t state = p->seed;
    cnQuat identity = cnMakeQuat( 1.0, 0.0, 0.0, 0.0 );
    switch ( p->type )
    {
        case cn_generatePyramid:
        {
            // row r (0 at the bottom) holds rows - r bodies, centred over the row below
            int k = 0;
            for ( int r = 0; r < p->rows; ++r )
            {
                int inRow = p->rows - r;
                for ( int i = 0; i < inRow; ++i )
                {
                    double x = ( (double)i - 0.5 * ( inRow - 1 ) ) * p->spacing.x;
                    out[k].p = cnAdd( p->origin, cnMakeVec3( x, 0.0, r * p->spacing.z ) );
                    out[k].q = identity;
                    k += 1;
                }
            }
            return true;
        }
        case cn_generateGrid:
        {
            // x fastest, then y, then z: the bottom layer first
            int k = 0;
            for ( int z = 0; z < p->count[2]; ++z )
            {
                for ( int y = 0; y < p->count[1]; ++y )
                {
                    for ( int x = 0; x < p->count[0]; ++x )
                    {
                        cnVec3 offset = cnMakeVec3( x * p->spacing.x, y * p->spacing.y, z * p->spacing.z );
                        if ( p->jitter > 0.0 )
                        {
                            offset = cnAdd( offset, cnMakeVec3( cnSymmetric( &state, p->jitter ),
                                                                cnSymmetric( &state, p->jitter ),
                                                                cnSymmetric( &state, p->jitter ) ) );
                        }
                        out[k].p = cnAdd( p->origin, offset );
                        out[k].q = identity;
                        k += 1;
                    }
                }
            }
            return true;
        }
        case cn_generateRandomPile:
        {
            // the cells of a cubic lattice filling the region, bottom layer first, each layer
            // in random order, so the pile's top layer is not a neat row
            double s = p->spacing.x;
            int nx = cnCellsAlong( p->regionMin.x, p->regionMax.x, s );
            int ny = cnCellsAlong( p->regionMin.y, p->regionMax.y, s );
            // centre the lattice in the region across; start at the bottom
            double x0 = 0.5 * ( p->regionMin.x + p->regionMax.x ) - 0.5 * ( nx - 1 ) * s;
            double y0 = 0.5 * ( p->regionMin.y + p->regionMax.y ) - 0.5 * ( ny - 1 ) * s;
            int perLayer = nx * ny;
            int k = 0;
            for ( int layer = 0; k < count; ++layer )
            {
                int take = count - k < perLayer ? count - k : perLayer;
                // walk the layer from a random cell with a random stride coprime to its size:
                // every cell once, and a partial top layer comes out scattered, not in rows
                int start = (int)( cnUniform( &state ) * perLayer );
                int stride = 1;
                for ( int tries = 0; perLayer > 2 && tries < 64; ++tries )
                {
                    int candidate = 1 + (int)( cnUniform( &state ) * ( perLayer - 1 ) );
                    if ( cnGreatestCommonDivisor( candidate, perLayer ) == 1 )
                    {
                        stride = candidate;
                        break;
                    }
                }
                for ( int j = 0; j < take; ++j )
                {
                    int cell = (int)( ( (int64_t)start + (int64_t)j * stride ) % perLayer );
                    int cx = cell % nx;
                    int cy = cell / nx;
                    cnVec3 position = cnMakeVec3( x0 + cx * s, y0 + cy * s, p->regionMin.z + layer * s );
                    if ( p->jitter > 0.0 )
                    {
                        position = cnAdd( position, cnMakeVec3( cnSymmetric( &state, p->jitter ),
                                                                cnSymmetric( &state, p->jitter ),
                                                                cnSymmetric( &state, p->jitter ) ) );
                    }
                    out[k].p = position;
                    out[k].q = p->randomOrientation ? cnRandomRotation( &state ) : identity;
                    k += 1;
                }
            }
            return true;
        }
        case cn_generateRingLattice:
        {
            if ( cnWeaveEuropean4in1( p->majorRadius, p->minorRadius, p->rows, p->columns, out, message,
                                      messageSize ) == false )
            {
                return false;
            }
            for ( int k = 0; k < count; ++k )
            {
                out[k].p = cnAdd( p->origin, cnRotate( p->orientation, out[k].p ) );
                out[k].q = cnNormalizeQuat( cnMulQuat( p->orientation, out[k].q ) );
            }
            return true;
        }
        case cn_generateColonySeed:
        {
            // cells on a square lattice in the plane z = origin.z, axes (the capsule's z) laid
            // flat and turned by a random angle
            int side = cnColonySide( count );
            cnQuat flat = cnQuatFromAxisAngle( cnMakeVec3( 0.0, 1.0, 0.0 ), 0.5 * CN_PI );
            for ( int k = 0; k < count; ++k )
            {
                int cx = k % side;
                int cy = k / side;
                double x = ( cx - 0.5 * ( side - 1 ) ) * p->spacing.x;
                double y = ( cy - 0.5 * ( side - 1 ) ) * p->spacing.x;
                double angle = 2.0 * CN_PI * cnUniform( &state );
                cnQuat turn = cnQuatFromAxisAngle( cnMakeVec3( 0.0, 0.0, 1.0 ), angle );
                out[k].p = cnAdd( p->origin, cnMakeVec3( x, y, 0.0 ) );
                out[k].q = cnNormalizeQuat( cnMulQuat( turn, flat ) );
            }
            return true;
        }
        default:
            cnFormat( message, messageSize, "unknown generator" );
            return false;
    }
}
