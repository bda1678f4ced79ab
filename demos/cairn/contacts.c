// SPDX-License-Identifier: MIT
// cairn contacts SCENE.json: load a scene, run the broadphase and the narrowphase once at the
// poses as loaded (no step), and list every contact (docs/cli.md).
#include "cli.h"
#include "report.h"
#include "systems.h"

#include "cairn/scene.h"

#include <stdlib.h>
#include <string.h>

void PrintContactsUsage( FILE* stream )
{
    fprintf( stream,
             "usage: cairn contacts SCENE.json [--set KEY=VALUE ...] [--report FILE.json]\n"
             "\n"
             "Load a scene and list the contacts of its shapes as loaded, without stepping: for each\n"
             "pair of bodies in contact, the normal (from the first body to the second) and every\n"
             "contact point with its separation (negative is penetration).\n"
             "\n"
             "options:\n"
             "  --set KEY=VALUE    override a scene value, as for cairn run (repeatable)\n"
             "  --report FILE.json write the contacts as JSON\n"
             "  -h, --help         this help\n" );
}

// "name" of a body, or "#row" (its place in the scene's bodies array) when it has none
static void BodyLabel( cnWorldId worldId, cnBodyId bodyId, char* label, int size )
{
    const char* name = cnBody_GetName( bodyId );
    if ( name[0] != '\0' )
    {
        snprintf( label, (size_t)size, "%s", name );
        return;
    }
    cnBodyArrays bodies = cnWorld_GetBodyArrays( worldId );
    for ( int row = 0; row < bodies.count; ++row )
    {
        if ( CN_ID_EQUALS( bodies.ids[row], bodyId ) )
        {
            snprintf( label, (size_t)size, "#%d", row );
            return;
        }
    }
    snprintf( label, (size_t)size, "?" );
}

static cJSON* BuildContactsReport( const char* scenePath, cnWorldId worldId, const cnContactData* contacts,
                                   int count )
{
    cJSON* root = cJSON_CreateObject();
    bool ok = root != NULL && cJSON_AddStringToObject( root, "scene", scenePath ) != NULL &&
              AddNumber( root, "bodies", (double)cnWorld_GetBodyCount( worldId ) ) &&
              AddNumber( root, "contact_count", (double)count );
    int points = 0;
    cJSON* list = ok ? cJSON_AddArrayToObject( root, "contacts" ) : NULL;
    ok = list != NULL;
    for ( int i = 0; ok && i < count; ++i )
    {
        const cnContactData* c = contacts + i;
        char labelA[CN_NAME_CAPACITY + 8];
        char labelB[CN_NAME_CAPACITY + 8];
        BodyLabel( worldId, c->bodyA, labelA, sizeof( labelA ) );
        BodyLabel( worldId, c->bodyB, labelB, sizeof( labelB ) );
        cJSON* entry = cJSON_CreateObject();
        ok = entry != NULL && cJSON_AddItemToArray( list, entry ) &&
             cJSON_AddStringToObject( entry, "body_a", labelA ) &&
             cJSON_AddStringToObject( entry, "body_b", labelB ) &&
             cJSON_AddStringToObject( entry, "shape_a", cnShapeTypeName( cnShape_GetType( c->shapeA ) ) ) &&
             cJSON_AddStringToObject( entry, "shape_b", cnShapeTypeName( cnShape_GetType( c->shapeB ) ) ) &&
             AddVec3( entry, "normal", c->normal );
        cJSON* pointList = ok ? cJSON_AddArrayToObject( entry, "points" ) : NULL;
        ok = pointList != NULL;
        for ( int k = 0; ok && k < c->pointCount; ++k )
        {
            cJSON* point = cJSON_CreateObject();
            ok = point != NULL && cJSON_AddItemToArray( pointList, point ) &&
                 AddVec3( point, "position", c->points[k].point ) &&
                 AddNumber( point, "separation", c->points[k].separation ) &&
                 AddVec3( point, "normal", c->points[k].normal ) &&
                 AddNumber( point, "id", (double)c->points[k].id );
        }
        points += c->pointCount;
    }
    ok = ok && AddNumber( root, "point_count", (double)points );
    if ( ok == false )
    {
        cJSON_Delete( root );
        return NULL;
    }
    return root;
}

int ContactsCommand( int argc, char** argv )
{
    const char* scenePath = NULL;
    const char* reportPath = NULL;
    const char** overrides = calloc( (size_t)argc + 1, sizeof( const char* ) );
    int overrideCount = 0;
    int exitCode = exitOk;
    if ( overrides == NULL )
    {
        fprintf( stderr, "cairn contacts: out of memory\n" );
        return exitFailure;
    }

    // options
    for ( int i = 1; i < argc && exitCode == exitOk; ++i )
    {
        const char* arg = argv[i];
        if ( strcmp( arg, "-h" ) == 0 || strcmp( arg, "--help" ) == 0 )
        {
            PrintContactsUsage( stdout );
            free( overrides );
            return exitOk;
        }
        if ( strcmp( arg, "--set" ) == 0 || strcmp( arg, "--report" ) == 0 )
        {
            if ( i + 1 >= argc )
            {
                fprintf( stderr, "cairn contacts: %s needs a value\n(see cairn contacts --help)\n", arg );
                exitCode = exitUsage;
                break;
            }
            if ( strcmp( arg, "--set" ) == 0 )
            {
                overrides[overrideCount++] = argv[++i];
            }
            else
            {
                reportPath = argv[++i];
            }
        }
        else if ( strncmp( arg, "--set=", 6 ) == 0 )
        {
            overrides[overrideCount++] = arg + 6;
        }
        else if ( strncmp( arg, "--report=", 9 ) == 0 )
        {
            reportPath = arg + 9;
        }
        else if ( arg[0] == '-' && arg[1] != '\0' )
        {
            fprintf( stderr, "cairn contacts: unknown option '%s'\n(see cairn contacts --help)\n", arg );
            exitCode = exitUsage;
        }
        else if ( scenePath != NULL )
        {
            fprintf( stderr, "cairn contacts: one scene at a time, got '%s' and '%s'\n", scenePath, arg );
            exitCode = exitUsage;
        }
        else
        {
            scenePath = arg;
        }
    }
    if ( exitCode == exitOk && scenePath == NULL )
    {
        fprintf( stderr, "cairn contacts: which scene? (see cairn contacts --help)\n" );
        exitCode = exitUsage;
    }
    if ( exitCode != exitOk )
    {
        free( overrides );
        return exitCode;
    }

    // load, collide once, list
    cnSceneOptions sceneOptions = cnDefaultSceneOptions();
    sceneOptions.overrides = overrides;
    sceneOptions.overrideCount = overrideCount;
    // the application systems a scene may name (colony growth, force fields)
    cxSceneSystems systems = { 0 };
    cnSceneSystem handlers[CX_SCENE_SYSTEM_COUNT];
    sceneOptions.systems = handlers;
    sceneOptions.systemCount = cxGetSceneSystems( &systems, handlers, CX_SCENE_SYSTEM_COUNT );
    cnScene scene = { 0 };
    cnSceneError error = { 0 };
    cnStatus status = cnLoadSceneFile( scenePath, &sceneOptions, &scene, &error );
    free( overrides );
    if ( status != cn_statusOk )
    {
        fprintf( stderr, "%s\n", error.text[0] != '\0' ? error.text : cnStatusString( status ) );
        return exitFailure;
    }

    cnWorldId worldId = scene.worldId;
    status = cnWorld_UpdateContacts( worldId );
    int count = status == cn_statusOk ? cnWorld_GetContactCount( worldId ) : 0;
    cnContactData* contacts = calloc( (size_t)( count > 0 ? count : 1 ), sizeof( cnContactData ) );
    if ( status != cn_statusOk || contacts == NULL )
    {
        fprintf( stderr, "cairn contacts: %s\n",
                 status != cn_statusOk ? cnStatusString( status ) : "out of memory" );
        free( contacts );
        cnDestroyWorld( worldId );
        return exitFailure;
    }
    cnWorld_GetContacts( worldId, contacts, count );

    int points = 0;
    for ( int i = 0; i < count; ++i )
    {
        const cnContactData* c = contacts + i;
        char labelA[CN_NAME_CAPACITY + 8];
        char labelB[CN_NAME_CAPACITY + 8];
        BodyLabel( worldId, c->bodyA, labelA, sizeof( labelA ) );
        BodyLabel( worldId, c->bodyB, labelB, sizeof( labelB ) );
        printf( "%s (%s) - %s (%s): normal [%.6g, %.6g, %.6g], %d point%s\n", labelA,
                cnShapeTypeName( cnShape_GetType( c->shapeA ) ), labelB,
                cnShapeTypeName( cnShape_GetType( c->shapeB ) ), c->normal.x, c->normal.y, c->normal.z,
                c->pointCount, c->pointCount == 1 ? "" : "s" );
        for ( int k = 0; k < c->pointCount; ++k )
        {
            cnVec3 p = c->points[k].point;
            cnVec3 n = c->points[k].normal;
            printf( "    [%.6g, %.6g, %.6g] separation %.6g", p.x, p.y, p.z, c->points[k].separation );
            if ( cnDot( n, c->normal ) < 1.0 - 1e-12 )
            {
                // a point with a normal of its own (a torus touching in separate places)
                printf( " normal [%.6g, %.6g, %.6g]", n.x, n.y, n.z );
            }
            printf( "\n" );
        }
        points += c->pointCount;
    }
    cnStepReport report = cnWorld_GetStepReport( worldId );
    printf( "%d contact%s, %d point%s, deepest penetration %.6g m\n", count, count == 1 ? "" : "s", points,
            points == 1 ? "" : "s", report.maxPenetration );
    if ( report.warnings & cn_warnUnsupportedPair )
    {
        printf( "some overlapping shapes have no collision function: they are not listed\n" );
    }

    if ( reportPath != NULL )
    {
        char message[512];
        cJSON* root = BuildContactsReport( scenePath, worldId, contacts, count );
        if ( WriteJson( reportPath, root, message, sizeof( message ) ) == false )
        {
            fprintf( stderr, "cairn contacts: %s\n", message );
            exitCode = exitFailure;
        }
        cJSON_Delete( root );
    }

    free( contacts );
    cnDestroyWorld( worldId );
    return exitCode;
}
