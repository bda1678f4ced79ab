// SPDX-License-Identifier: MIT
#include "systems_suites.h"
#include "test_support.h"

int main( void )
{
    static cntSuiteFcn* const suites[] = { cntColonySuite, cntFieldSuite };
    return cntRunSuites( suites, (int)( sizeof( suites ) / sizeof( suites[0] ) ) );
}
