// SPDX-License-Identifier: MIT
#include "relcp_suites.h"
#include "test_support.h"

int main( void )
{
    static cntSuiteFcn* const suites[] = { cntRelcpDriverSuite, cntRelcpPairSuite };
    return cntRunSuites( suites, (int)( sizeof( suites ) / sizeof( suites[0] ) ) );
}
