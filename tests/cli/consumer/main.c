// SPDX-License-Identifier: MIT
// Uses an installed Cairn: a world made by hand and one loaded from a scene string.
#include <cairn/cairn.h>
#include <cairn/lcp_io.h>
#include <cairn/scene.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static const char scene[] =
    "{ \"world\": { \"gravity\": [0, 0, -10], \"dt\": 0.01 },\n"
    "  \"bodies\": [ { \"name\": \"ball\", \"position\": [0, 0, 1],\n"
    "                \"shapes\": [ { \"type\": \"sphere\", \"radius\": 0.1 } ] } ] }\n";

int main( void )
{
    cnWorldDef worldDef = cnDefaultWorldDef();
    cnWorldId world = cnCreateWorld( &worldDef );
    if ( cnWorld_IsValid( world ) == false )
    {
        fprintf( stderr, "cnCreateWorld failed\n" );
        return 1;
    }
    cnDestroyWorld( world );

    // the problem-file reader links (with HDF5, where the build found it) and reads
    static const char lcp[] = "1\n0\n1 1\n1 1\n2\n-1\n"; // n, dense M: its size twice, M, q
    cnFileProblem file = { 0 };
    char message[CN_PROBLEM_MESSAGE_CAPACITY];
    if ( cnParseProblemText( "consumer.dat", lcp, strlen( lcp ), cn_problemAuto, NULL, &file, message,
                             (int)sizeof( message ) ) != cn_statusOk ||
         file.problem.rowCount != 1 )
    {
        fprintf( stderr, "cnParseProblemText: %s\n", message );
        return 1;
    }
    cnDestroyFileProblem( &file );

    cnSceneOptions options = cnDefaultSceneOptions();
    cnScene loaded = { 0 };
    cnSceneError error = { 0 };
    cnStatus status = cnLoadSceneString( scene, strlen( scene ), "consumer.json", &options, &loaded, &error );
    if ( status != cn_statusOk )
    {
        fprintf( stderr, "cnLoadSceneString: %s\n", error.text );
        return 1;
    }

    double dt = cnWorld_GetDef( loaded.worldId ).timeStep;
    for ( int i = 0; i < 10; ++i )
    {
        cnWorld_Step( loaded.worldId, dt );
    }
    cnBodyId ball = cnWorld_FindBody( loaded.worldId, "ball" );
    double z = cnBody_GetPosition( ball ).z;
    int substeps = cnWorld_GetStepReport( loaded.worldId ).substeps;
    cnDestroyWorld( loaded.worldId );

    // semi-implicit Euler over the N = 10 substeps substeps of h = dt / substeps:
    // z = 1 - 10 h^2 N (N + 1) / 2 (0.9475 with the default 2 substeps)
    double h = dt / substeps;
    double count = 10.0 * substeps;
    double expected = 1.0 - 10.0 * h * h * count * ( count + 1.0 ) / 2.0;
    printf( "cairn %s: %d body, z after 10 steps %.6f m (expected %.6f)\n", cnVersionString(),
            loaded.bodyCount, z, expected );
    return loaded.bodyCount == 1 && fabs( z - expected ) < 1e-12 ? 0 : 1;
}
