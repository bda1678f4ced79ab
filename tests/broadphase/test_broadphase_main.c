// SPDX-License-Identifier: MIT
#include "broadphase_suites.h"
#include "test_support.h"

int main( void )
{
    static cntSuiteFcn* const suites[] = {
        cntBroadPhaseSuite,
        cntBroadPhaseRandomSuite,
    };
    return cntRunSuites( suites, (int)( sizeof( suites ) / sizeof( suites[0] ) ) );
}
