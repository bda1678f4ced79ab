// SPDX-License-Identifier: MIT
#include "dynamics_suites.h"
#include "test_support.h"

int main( void )
{
    static cntSuiteFcn* const suites[] = { cntContactDynamicsSuite, cntSmoothDynamicsSuite };
    return cntRunSuites( suites, (int)( sizeof( suites ) / sizeof( suites[0] ) ) );
}
