// SPDX-License-Identifier: MIT
#include "engine_suites.h"
#include "test_support.h"

int main( void )
{
    static cntSuiteFcn* const suites[] = {
        cntStatusSuite, cntMathSuite,    cntArenaSuite,       cntWorldSuite,
        cntBodySuite,   cntSystemsSuite, cntMultisphereSuite, cntSettersSuite,
    };
    return cntRunSuites( suites, (int)( sizeof( suites ) / sizeof( suites[0] ) ) );
}
