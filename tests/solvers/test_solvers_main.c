// SPDX-License-Identifier: MIT
#include "solvers_suites.h"
#include "test_support.h"

int main( void )
{
    static cntSuiteFcn* const suites[] = {
        cntKitSuite,   cntSweepsSuite,    cntReferenceSuite, cntSolverContractSuite,
        cntBbpgdSuite, cntBilateralSuite,
    };
    return cntRunSuites( suites, (int)( sizeof( suites ) / sizeof( suites[0] ) ) );
}
