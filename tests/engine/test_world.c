// SPDX-License-Identifier: MIT
#include "engine_suites.h"
#include "test_support.h"

#include <math.h>
#include <string.h>

// create a world, fill it, destroy it: every byte goes back to the user's allocator
START_TEST( destroy_returns_every_byte )
{
    cntCountingAllocator counter;
    cnAllocator allocator = cntMakeCountingAllocator( &counter );
    cnWorldDef def = cntWorldDef( NULL, &allocator );
    cnWorldId world = cnCreateWorld( &def );
    ck_assert( cnWorld_IsValid( world ) );

    cnShapeDef shapeDef = cnDefaultShapeDef();
    cnVec3 points[8];
    for ( int i = 0; i < 8; ++i )
    {
        points[i] = cnMakeVec3( i & 1 ? 1.0 : -1.0, i & 2 ? 1.0 : -1.0, i & 4 ? 1.0 : -1.0 );
    }
    for ( int i = 0; i < 300; ++i )
    {
        cnBodyDef bodyDef = cnDefaultBodyDef();
        char name[32];
        snprintf( name, sizeof( name ), "body%d", i );
        bodyDef.name = name;
        bodyDef.position = cnMakeVec3( i, 0.0, 0.0 );
        cnBodyId body = cnCreateBody( world, &bodyDef );
        ck_assert( cnBody_IsValid( body ) );
        cnSphere sphere = { 0.5 };
        ck_assert( CN_IS_NON_NULL( cnCreateSphereShape( body, &shapeDef, &sphere ) ) );
        ck_assert( CN_IS_NON_NULL( cnCreateHullShape( body, &shapeDef, points, 8 ) ) );
        if ( i % 3 == 0 )
        {
            ck_assert_int_eq( cnDestroyBody( body ), cn_statusOk );
        }
    }
    for ( int i = 0; i < 10; ++i )
    {
        ck_assert_int_eq( cnWorld_Step( world, 1.0 / 60.0 ), cn_statusOk );
    }
    ck_assert_uint_eq( cnWorld_GetByteCount( world ), counter.liveBytes );
    ck_assert_uint_gt( counter.liveBytes, 0 );

    ck_assert_int_eq( cnDestroyWorld( world ), cn_statusOk );
    ck_assert_uint_eq( counter.liveBytes, 0 );
    ck_assert_int_eq( counter.liveBlocks, 0 );
    ck_assert( cnWorld_IsValid( world ) == false );
}
END_TEST

// a destroyed world's id is stale even after its slot is reused; forged ids are refused
START_TEST( stale_and_forged_world_ids )
{
    cnWorldDef def = cnDefaultWorldDef();
    cnWorldId first = cnCreateWorld( &def );
    ck_assert_int_eq( cnDestroyWorld( first ), cn_statusOk );
    cnWorldId second = cnCreateWorld( &def );
    ck_assert_int_eq( first.index1, second.index1 );
    ck_assert( cnWorld_IsValid( first ) == false );
    ck_assert( cnWorld_IsValid( second ) );

    ck_assert_int_eq( cnDestroyWorld( first ), cn_statusInvalidId );
    ck_assert_int_eq( cnWorld_Step( first, 0.01 ), cn_statusInvalidId );
    ck_assert( cnWorld_IsValid( cn_nullWorldId ) == false );

    cnWorldId forged = { 60000, 1 };
    ck_assert( cnWorld_IsValid( forged ) == false );
    ck_assert_int_eq( cnWorld_Step( forged, 0.01 ), cn_statusInvalidId );
    ck_assert_int_eq( cnWorld_GetBodyCount( forged ), 0 );
    cnBodyDef bodyDef = cnDefaultBodyDef();
    ck_assert( CN_IS_NULL( cnCreateBody( forged, &bodyDef ) ) );

    ck_assert_int_eq( cnDestroyWorld( second ), cn_statusOk );
}
END_TEST

// the world table is finite: the next create fails cleanly, and a slot frees up again
START_TEST( world_table_full )
{
    cntLogCapture log;
    cnWorldDef def = cntWorldDef( &log, NULL );
    cnWorldId worlds[CN_MAX_WORLDS];
    for ( int i = 0; i < CN_MAX_WORLDS; ++i )
    {
        worlds[i] = cnCreateWorld( &def );
        ck_assert( cnWorld_IsValid( worlds[i] ) );
    }
    cnWorldId extra = cnCreateWorld( &def );
    ck_assert( CN_IS_NULL( extra ) );
    ck_assert_int_eq( log.lastStatus, cn_statusCapacityExceeded );

    ck_assert_int_eq( cnDestroyWorld( worlds[5] ), cn_statusOk );
    extra = cnCreateWorld( &def );
    ck_assert( cnWorld_IsValid( extra ) );
    worlds[5] = extra;
    for ( int i = 0; i < CN_MAX_WORLDS; ++i )
    {
        ck_assert_int_eq( cnDestroyWorld( worlds[i] ), cn_statusOk );
    }
}
END_TEST

// bad world defs are refused with a reason
START_TEST( bad_world_defs )
{
    cntLogCapture log;
    cnWorldDef def = cntWorldDef( &log, NULL );
    def.gravity.z = NAN;
    ck_assert( CN_IS_NULL( cnCreateWorld( &def ) ) );
    ck_assert_int_eq( log.errorCount, 1 );
    ck_assert_ptr_nonnull( strstr( log.lastMessage, "gravity" ) );

    def = cntWorldDef( &log, NULL );
    def.timeStep = -1.0;
    ck_assert( CN_IS_NULL( cnCreateWorld( &def ) ) );
    ck_assert_ptr_nonnull( strstr( log.lastMessage, "timeStep" ) );

    def = cntWorldDef( &log, NULL );
    def.internalValue = 0;
    ck_assert( CN_IS_NULL( cnCreateWorld( &def ) ) );
    ck_assert_ptr_nonnull( strstr( log.lastMessage, "cnDefaultWorldDef" ) );

    def = cntWorldDef( &log, NULL );
    def.substeps = -1;
    ck_assert( CN_IS_NULL( cnCreateWorld( &def ) ) );
    ck_assert_ptr_nonnull( strstr( log.lastMessage, "substeps" ) );

    def = cntWorldDef( &log, NULL );
    def.contactRecursions = 65;
    ck_assert( CN_IS_NULL( cnCreateWorld( &def ) ) );
    ck_assert_ptr_nonnull( strstr( log.lastMessage, "contactRecursions" ) );

    ck_assert( CN_IS_NULL( cnCreateWorld( NULL ) ) );
}
END_TEST

// a step with a bad time step is refused and changes nothing
START_TEST( bad_time_step_changes_nothing )
{
    cntLogCapture log;
    cnWorldDef def = cntWorldDef( &log, NULL );
    cnWorldId world = cnCreateWorld( &def );
    cnBodyDef bodyDef = cnDefaultBodyDef();
    bodyDef.linearVelocity = cnMakeVec3( 1.0, 2.0, 3.0 );
    cnBodyId body = cnCreateBody( world, &bodyDef );

    ck_assert_int_eq( cnWorld_Step( world, NAN ), cn_statusInvalidArgument );
    ck_assert_int_eq( cnWorld_Step( world, 0.0 ), cn_statusInvalidArgument );
    ck_assert_int_eq( cnWorld_Step( world, -0.1 ), cn_statusInvalidArgument );
    ck_assert_int_eq( cnWorld_Step( world, INFINITY ), cn_statusInvalidArgument );
    ck_assert_int_eq( log.errorCount, 4 );
    cnVec3 p = cnBody_GetPosition( body );
    ck_assert( p.x == 0.0 && p.y == 0.0 && p.z == 0.0 );
    ck_assert_int_eq( (int)cnWorld_GetStepReport( world ).stepIndex, 0 );

    ck_assert_int_eq( cnWorld_Step( world, 0.5 ), cn_statusOk );
    ck_assert_int_eq( (int)cnWorld_GetStepReport( world ).stepIndex, 1 );
    cnDestroyWorld( world );
}
END_TEST

// out of memory at any allocation leaves the world consistent and every byte accounted for
START_TEST( out_of_memory_anywhere )
{
    for ( long failAt = 0; failAt < 40; ++failAt )
    {
        cntCountingAllocator counter;
        cnAllocator allocator = cntMakeCountingAllocator( &counter );
        cntLogCapture log;
        cnWorldDef def = cntWorldDef( &log, &allocator );
        def.bodyCapacity = 0;
        counter.failAfter = failAt;
        cnWorldId world = cnCreateWorld( &def );
        ck_assert( cnWorld_IsValid( world ) );
        int created = 0;
        for ( int i = 0; i < 40; ++i )
        {
            cnBodyDef bodyDef = cnDefaultBodyDef();
            bodyDef.name = i % 2 ? "odd" : NULL;
            if ( i % 2 )
            {
                char name[16];
                snprintf( name, sizeof( name ), "b%d", i );
                bodyDef.name = name;
                cnBodyId body = cnCreateBody( world, &bodyDef );
                created += CN_IS_NON_NULL( body ) ? 1 : 0;
            }
            else
            {
                cnBodyId body = cnCreateBody( world, &bodyDef );
                created += CN_IS_NON_NULL( body ) ? 1 : 0;
                cnShapeDef shapeDef = cnDefaultShapeDef();
                cnBox box = { { 1.0, 1.0, 1.0 } };
                cnCreateBoxShape( body, &shapeDef, &box );
            }
        }
        ck_assert_int_eq( cnWorld_GetBodyCount( world ), created );
        cnWorld_Step( world, 0.01 );
        ck_assert_uint_eq( cnWorld_GetByteCount( world ), counter.liveBytes );
        ck_assert_int_eq( cnDestroyWorld( world ), cn_statusOk );
        ck_assert_uint_eq( counter.liveBytes, 0 );
    }
}
END_TEST

// ---- the friction model of a world --------------------------------------------------------------

// the first registered solver that takes matrix-free problems with (or without) the exact cone
static const cnSolverVTable* cntSolverWithCone( bool cone )
{
    for ( int i = 0; i < cnGetSolverCount(); ++i )
    {
        const cnSolverVTable* solver = cnGetSolverAt( i );
        bool hasCone = ( solver->caps & cn_solverCone ) != 0;
        if ( ( solver->caps & cn_solverMatrixFree ) != 0 && hasCone == cone )
        {
            return solver;
        }
    }
    return NULL;
}

// "pgs, psor, pgj": the registered solvers with the cone, as the refusals list them
static void cntConeSolverNames( char* buffer, size_t size )
{
    buffer[0] = 0;
    for ( int i = 0; i < cnGetSolverCount(); ++i )
    {
        const cnSolverVTable* solver = cnGetSolverAt( i );
        if ( ( solver->caps & cn_solverCone ) != 0 && ( solver->caps & cn_solverMatrixFree ) != 0 )
        {
            size_t used = strlen( buffer );
            snprintf( buffer + used, size - used, "%s%s", used > 0 ? ", " : "", solver->name );
        }
    }
}

// The default is the pyramid; a cone world with a solver that lacks the cone is refused where the
// user sets it (creation, cnWorld_SetSolver, cnWorld_SetSolverSettings, cnWorld_SetFrictionModel),
// with a message naming the solver and the solvers that have the cone; the world keeps its solver
// and its model.
START_TEST( cone_world_refuses_a_solver_without_the_cone )
{
    cntLogCapture log;
    cnWorldDef def = cntWorldDef( &log, NULL );
    ck_assert_int_eq( def.frictionModel, cn_frictionPyramid );
    const cnSolverVTable* without = cntSolverWithCone( false );
    const cnSolverVTable* with = cntSolverWithCone( true );
    ck_assert_ptr_nonnull( without );
    char names[256];
    cntConeSolverNames( names, sizeof( names ) );
    char expected[512];
    if ( names[0] != 0 )
    {
        snprintf(
            expected, sizeof( expected ),
            "friction model \"cone\" needs a solver with the exact friction cone, and solver '%s' has none "
            "(solvers with it: %s)",
            without->name, names );
    }
    else
    {
        snprintf(
            expected, sizeof( expected ),
            "friction model \"cone\" needs a solver with the exact friction cone, and solver '%s' has none "
            "(no registered solver has it)",
            without->name );
    }

    // creation: a null id, the reason logged
    def.frictionModel = cn_frictionCone;
    snprintf( def.solver.name, sizeof( def.solver.name ), "%s", without->name );
    ck_assert( CN_IS_NULL( cnCreateWorld( &def ) ) );
    ck_assert_int_eq( log.lastStatus, cn_statusUnsupported );
    ck_assert_msg( strstr( log.lastMessage, expected ) != NULL, "%s", log.lastMessage );

    // an unknown model in a def
    def = cntWorldDef( &log, NULL );
    def.frictionModel = (cnFrictionModel)7;
    ck_assert( CN_IS_NULL( cnCreateWorld( &def ) ) );
    ck_assert_msg( strstr( log.lastMessage, "unknown friction model 7" ) != NULL, "%s", log.lastMessage );

    // a pyramid world with the solver that lacks the cone: the cone is refused, the model stays
    def = cntWorldDef( &log, NULL );
    snprintf( def.solver.name, sizeof( def.solver.name ), "%s", without->name );
    cnWorldId world = cnCreateWorld( &def );
    ck_assert( cnWorld_IsValid( world ) );
    ck_assert_int_eq( cnWorld_GetFrictionModel( world ), cn_frictionPyramid );
    ck_assert_int_eq( cnWorld_SetFrictionModel( world, cn_frictionCone ), cn_statusUnsupported );
    ck_assert_msg( strstr( log.lastMessage, "cnWorld_SetFrictionModel: " ) != NULL &&
                       strstr( log.lastMessage, expected ) != NULL,
                   "%s", log.lastMessage );
    ck_assert_int_eq( cnWorld_GetFrictionModel( world ), cn_frictionPyramid );
    ck_assert_int_eq( cnWorld_GetDef( world ).frictionModel, cn_frictionPyramid );
    ck_assert_int_eq( cnWorld_SetFrictionModel( world, (cnFrictionModel)-1 ), cn_statusInvalidArgument );
    ck_assert_int_eq( cnWorld_SetFrictionModel( cn_nullWorldId, cn_frictionPyramid ), cn_statusInvalidId );
    ck_assert_int_eq( cnWorld_GetFrictionModel( cn_nullWorldId ), cn_frictionPyramid );
    cnDestroyWorld( world );

    if ( with == NULL )
    {
        return; // no solver has the cone yet: nothing can run a cone world
    }

    // a cone world with a solver that has it; swapping to one without is refused and keeps the solver
    def = cntWorldDef( &log, NULL );
    def.frictionModel = cn_frictionCone;
    snprintf( def.solver.name, sizeof( def.solver.name ), "%s", with->name );
    world = cnCreateWorld( &def );
    ck_assert( cnWorld_IsValid( world ) );
    ck_assert_int_eq( cnWorld_GetFrictionModel( world ), cn_frictionCone );
    ck_assert_int_eq( cnWorld_GetDef( world ).frictionModel, cn_frictionCone );
    ck_assert_int_eq( cnWorld_SetSolver( world, without->name ), cn_statusUnsupported );
    ck_assert_msg( strstr( log.lastMessage, "cnWorld_SetSolver: " ) != NULL &&
                       strstr( log.lastMessage, expected ) != NULL,
                   "%s", log.lastMessage );
    ck_assert_ptr_eq( cnWorld_GetSolver( world ), with );
    ck_assert_str_eq( cnWorld_GetDef( world ).solver.name, with->name );
    cnSolverSettings settings = def.solver;
    snprintf( settings.name, sizeof( settings.name ), "%s", without->name );
    ck_assert_int_eq( cnWorld_SetSolverSettings( world, &settings ), cn_statusUnsupported );
    ck_assert_ptr_eq( cnWorld_GetSolver( world ), with );

    // back to the pyramid: now the swap is allowed, and the cone is refused again
    ck_assert_int_eq( cnWorld_SetFrictionModel( world, cn_frictionPyramid ), cn_statusOk );
    ck_assert_int_eq( cnWorld_SetSolver( world, without->name ), cn_statusOk );
    ck_assert_ptr_eq( cnWorld_GetSolver( world ), without );
    ck_assert_int_eq( cnWorld_SetFrictionModel( world, cn_frictionCone ), cn_statusUnsupported );
    ck_assert_int_eq( cnWorld_GetFrictionModel( world ), cn_frictionPyramid );
    cnDestroyWorld( world );
}
END_TEST

typedef struct cntGroupCount
{
    int solves;
    int contacts[cn_frictionModelCount];
} cntGroupCount;

static void cntCountGroups( const cnSolverProblem* problem, const double* start, const double* lambda,
                            const cnSolverStats* stats, void* context )
{
    (void)start;
    (void)lambda;
    (void)stats;
    cntGroupCount* count = context;
    count->solves += 1;
    for ( int g = 0; g < problem->groupCount; ++g )
    {
        const cnRowGroup* group = problem->groups + g;
        if ( group->kind == cn_groupContact && group->model < cn_frictionModelCount )
        {
            count->contacts[group->model] += 1;
        }
    }
}

// Contact groups get the world's model: every contact group of every solve has it. A non-rotating
// ball (mu = 0.5) slides along x at 2 m/s on flat ground while a constant side force of a quarter
// of its weight pushes it along y: Coulomb friction of mu m g against the sliding direction,
// dv/dt = (0, g / 4) - mu g v / |v|, integrated here finely. The engine turns its tangent basis to
// the sliding direction, so the pyramid slides the same way; it differs from the cone where a
// contact sticks.
START_TEST( contact_groups_take_the_world_friction_model )
{
    const cnSolverVTable* with = cntSolverWithCone( true );
    if ( with == NULL )
    {
        return; // no solver has the cone yet (cone_world_refuses_a_solver_without_the_cone covers it)
    }
    double mu = 0.5;
    double g = 9.81;
    cnVec3 velocities[cn_frictionModelCount];
    for ( int model = 0; model < cn_frictionModelCount; ++model )
    {
        cntLogCapture log;
        cnWorldDef def = cntWorldDef( &log, NULL );
        snprintf( def.solver.name, sizeof( def.solver.name ), "%s", with->name );
        def.solver.iterations = 50;
        def.frictionModel = (cnFrictionModel)model;
        cnWorldId world = cnCreateWorld( &def );
        ck_assert( cnWorld_IsValid( world ) );
        cnShapeDef shapeDef = cnDefaultShapeDef();
        shapeDef.material.friction = mu;
        cnBodyDef groundDef = cnDefaultBodyDef();
        groundDef.type = cn_staticBody;
        cnBodyId ground = cnCreateBody( world, &groundDef );
        cnGeometry plane = cntPlaneGeometry( cnMakeVec3( 0.0, 0.0, 1.0 ), 0.0 );
        ck_assert( CN_IS_NON_NULL( cnCreateShape( ground, &shapeDef, &plane ) ) );
        cnBodyDef ballDef = cnDefaultBodyDef();
        ballDef.position = cnMakeVec3( 0.0, 0.0, 0.5 );
        ballDef.linearVelocity = cnMakeVec3( 2.0, 0.0, 0.0 );
        ballDef.fixedRotation = true;
        cnBodyId ball = cnCreateBody( world, &ballDef );
        cnGeometry sphere = cntSphereGeometry( 0.5 );
        ck_assert( CN_IS_NON_NULL( cnCreateShape( ball, &shapeDef, &sphere ) ) );
        double mass = cnBody_GetMassData( ball ).mass;
        ck_assert_int_eq( cnBody_SetConstantForce( ball, cnMakeVec3( 0.0, 0.5 * mu * mass * g, 0.0 ) ),
                          cn_statusOk );

        cntGroupCount count;
        memset( &count, 0, sizeof( count ) );
        ck_assert_int_eq( cnWorld_SetProblemFcn( world, cntCountGroups, &count ), cn_statusOk );
        for ( int i = 0; i < 18; ++i ) // 0.3 s: it would stop after 0.41 s at mu g
        {
            ck_assert_int_eq( cnWorld_Step( world, 1.0 / 60.0 ), cn_statusOk );
        }
        ck_assert_int_gt( count.solves, 0 );
        ck_assert_int_gt( count.contacts[model], 0 );
        ck_assert_int_eq( count.contacts[1 - model], 0 );
        velocities[model] = cnBody_GetLinearVelocity( ball );
        cnDestroyWorld( world );
    }
    double vx = 2.0;
    double vy = 0.0;
    double h = 1e-5;
    for ( int i = 0; i < 30000; ++i ) // 0.3 s
    {
        double speed = sqrt( vx * vx + vy * vy );
        vx -= h * mu * g * vx / speed;
        vy += h * ( 0.25 * g - mu * g * vy / speed );
    }
    ck_assert( vy > 0.3 ); // the side force moves it
    for ( int model = 0; model < cn_frictionModelCount; ++model )
    {
        CNT_ASSERT_REL( velocities[model].x, vx, 0.02 );
        CNT_ASSERT_REL( velocities[model].y, vy, 0.03 );
    }
}
END_TEST

Suite* cntWorldSuite( void )
{
    Suite* suite = suite_create( "world" );
    TCase* tc = tcase_create( "lifecycle" );
    tcase_add_test( tc, destroy_returns_every_byte );
    tcase_add_test( tc, stale_and_forged_world_ids );
    tcase_add_test( tc, world_table_full );
    tcase_add_test( tc, bad_world_defs );
    tcase_add_test( tc, bad_time_step_changes_nothing );
    tcase_add_test( tc, out_of_memory_anywhere );
    tcase_add_test( tc, cone_world_refuses_a_solver_without_the_cone );
    tcase_add_test( tc, contact_groups_take_the_world_friction_model );
    suite_add_tcase( suite, tc );
    return suite;
}
