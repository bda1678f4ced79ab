// SPDX-License-Identifier: MIT
#include "newton_suites.h"
#include "test_support.h"

int main( void )
{
    static cntSuiteFcn* const suites[] = {
        cntNewtonUnitsSuite,
        cntNewtonLcpSuite,
        cntNewtonEngineSuite,
    };
    return cntRunSuites( suites, (int)( sizeof( suites ) / sizeof( suites[0] ) ) );
}
