// SPDX-License-Identifier: MIT
#include "test_support.h"

// one suite per collision module (no shared header: each test file declares its own)
Suite* cntMassSuite( void );
Suite* cntHullSuite( void );

int main( void )
{
    static cntSuiteFcn* const suites[] = {
        cntMassSuite,
        cntHullSuite,
    };
    return cntRunSuites( suites, (int)( sizeof( suites ) / sizeof( suites[0] ) ) );
}
