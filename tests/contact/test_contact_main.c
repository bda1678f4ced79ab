// SPDX-License-Identifier: MIT
#include "contact_suites.h"
#include "test_support.h"

int main( void )
{
    static cntSuiteFcn* const suites[] = { cntContactsSuite };
    return cntRunSuites( suites, (int)( sizeof( suites ) / sizeof( suites[0] ) ) );
}
