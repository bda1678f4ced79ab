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

Suite* cntMathSuite( void )
{
    Suite* suite = suite_create( "math" );
    TCase* tc = tcase_create( "quaternions" );
    tcase_add_test( tc, quaternion_exponential_matches_sin_cos );
    tcase_add_test( tc, rotation_identities );
    suite_add_tcase( suite, tc );
    return suite;
}
