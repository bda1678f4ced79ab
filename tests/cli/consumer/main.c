// SPDX-License-Identifier: MIT
// Uses an installed Cairn: a world made by hand and one loaded from a scene string.
#include <cairn/cairn.h>
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
    cnDestroyWorld( loaded.worldId );

    // semi-implicit Euler: z_10 = 1 - 10 dt^2 * 10 * 11 / 2 = 0.945
    double expected = 1.0 - 10.0 * dt * dt * 55.0;
    printf( "cairn %s: %d body, z after 10 steps %.6f m (expected %.6f)\n", cnVersionString(),
            loaded.bodyCount, z, expected );
    return loaded.bodyCount == 1 && fabs( z - expected ) < 1e-12 ? 0 : 1;
}
