// SPDX-License-Identifier: MIT
#include "sim_suites.h"
#include "test_support.h"

int main( void )
{
    static cntSuiteFcn* const suites[] = { cntInertialSuite, cntOverdampedSuite, cntBadValuesSuite,
                                           cntOracleSuite, cntConstantForceSuite };
    return cntRunSuites( suites, (int)( sizeof( suites ) / sizeof( suites[0] ) ) );
}
