// SPDX-License-Identifier: MIT
#include "engine_suites.h"
#include "test_support.h"

// the series branch of the exponential map agrees with sin and cos to rounding, on both sides
// of the switch, and the result is a unit quaternion
START_TEST( quaternion_exponential_matches_sin_cos )
{
    cnVec3 axis = cnNormalize( cnMakeVec3( 0.3, -0.5, 0.8 ) );
    double worst = 0.0;
    for ( int i = 0; i <= 2000; ++i )
    {
        double angle = 1.2 * i / 2000.0; // through the switch at 0.5
        cnQuat q = cnQuatExp( cnScale( angle, axis ) );
        cnQuat reference = cnQuatFromAxisAngle( axis, angle );
        worst = fmax( worst, fabs( q.w - reference.w ) );
        worst = fmax( worst, fabs( q.x - reference.x ) );
        worst = fmax( worst, fabs( q.y - reference.y ) );
        worst = fmax( worst, fabs( q.z - reference.z ) );
        CNT_ASSERT_ABS( cnQuatLength( q ), 1.0, 4e-16 );
    }
    ck_assert_msg( worst <= 4e-16, "largest difference %g", worst );
    cnQuat identity = cnQuatExp( cn_vec3Zero );
    ck_assert( identity.w == 1.0 && identity.x == 0.0 );
}
END_TEST

// rotations compose, invert and match their matrices
START_TEST( rotation_identities )
{
    cnQuat a = cnQuatFromAxisAngle( cnNormalize( cnMakeVec3( 1.0, 2.0, 3.0 ) ), 0.7 );
    cnQuat b = cnQuatFromAxisAngle( cnNormalize( cnMakeVec3( -2.0, 0.5, 1.0 ) ), 2.1 );
    cnVec3 v = cnMakeVec3( 0.4, -1.3, 2.2 );
    cnVec3 composed = cnRotate( cnMulQuat( a, b ), v );
    cnVec3 stepwise = cnRotate( a, cnRotate( b, v ) );
    CNT_ASSERT_ABS( cnLength( cnSub( composed, stepwise ) ), 0.0, 1e-15 );
    CNT_ASSERT_ABS( cnLength( cnSub( cnInvRotate( a, cnRotate( a, v ) ), v ) ), 0.0, 1e-15 );
    cnVec3 byMatrix = cnMulMV( cnMat3FromQuat( a ), v );
    CNT_ASSERT_ABS( cnLength( cnSub( byMatrix, cnRotate( a, v ) ) ), 0.0, 1e-15 );

    // R I R^T then its inverse gives the identity
    cnMat3 inertia = { { 2.0, 0.1, 0.0 }, { 0.1, 3.0, 0.2 }, { 0.0, 0.2, 4.0 } };
    cnMat3 world = cnRotateTensor( b, inertia );
    cnMat3 product = cnMulMM( world, cnInvertMat3( world ) );
    CNT_ASSERT_ABS( product.cx.x, 1.0, 1e-14 );
    CNT_ASSERT_ABS( product.cy.x, 0.0, 1e-14 );
    CNT_ASSERT_ABS( product.cz.z, 1.0, 1e-14 );
    cnMat3 singular = { { 1.0, 2.0, 3.0 }, { 2.0, 4.0, 6.0 }, { 0.0, 0.0, 1.0 } };
    ck_assert( cnInvertMat3( singular ).cx.x == 0.0 );
}
END_TEST

// the shortcut rotation of the unit axes (collision's box frames, rotation matrices) gives
// cnRotate's bits, zero signs aside: the engine's trajectories do not depend on which one ran
START_TEST( axis_rotation_matches_general_rotation_bit_for_bit )
{
    cntRandom random = { 20261129u };
    int differing = 0;
    for ( int n = 0; n < 100000; ++n )
    {
        cnQuat q = cnQuatFromAxisAngle( cntDirection( &random ), cntRange( &random, -4.0, 4.0 ) );
        if ( n % 10 == 0 )
        {
            // unnormalised too: the identities hold for any q
            q = ( cnQuat ){ cntRange( &random, -2.0, 2.0 ), cntRange( &random, -2.0, 2.0 ),
                            cntRange( &random, -2.0, 2.0 ), cntRange( &random, -2.0, 2.0 ) };
        }
        const cnVec3 axes[3] = { { 1.0, 0.0, 0.0 }, { 0.0, 1.0, 0.0 }, { 0.0, 0.0, 1.0 } };
        cnMat3 matrix = cnMat3FromQuat( q );
        const cnVec3 columns[3] = { matrix.cx, matrix.cy, matrix.cz };
        for ( int k = 0; k < 3; ++k )
        {
            cnVec3 general = cnRotate( q, axes[k] );
            cnVec3 shortcut = cnRotateAxis( q, k );
            // == treats -0 and +0 alike and fails on any other difference (NaN included)
            differing += !( general.x == shortcut.x && general.y == shortcut.y && general.z == shortcut.z );
            differing +=
                !( columns[k].x == general.x && columns[k].y == general.y && columns[k].z == general.z );
        }
    }
    ck_assert_msg( differing == 0, "%d rotated axes differ from cnRotate's", differing );
}
END_TEST

Suite* cntMathSuite( void )
{
    Suite* suite = suite_create( "math" );
    TCase* tc = tcase_create( "quaternions" );
    tcase_add_test( tc, quaternion_exponential_matches_sin_cos );
    tcase_add_test( tc, rotation_identities );
    tcase_add_test( tc, axis_rotation_matches_general_rotation_bit_for_bit );
    suite_add_tcase( suite, tc );
    return suite;
}
