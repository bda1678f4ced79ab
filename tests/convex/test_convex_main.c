// SPDX-License-Identifier: MIT
#include "test_convex_suites.h"
#include "test_support.h"

int main( void )
{
    static cntSuiteFcn* const suites[] = {
        cntSupportSuite,
        cntConvexPairSuite,
        cntManifoldSuite,
        cntFuzzSuite,
    };
    return cntRunSuites( suites, (int)( sizeof( suites ) / sizeof( suites[0] ) ) );
}
