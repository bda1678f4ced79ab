// SPDX-License-Identifier: MIT
// test_lcp: problem-file readers and Lemke's method.
#include "lcp_suites.h"
#include "test_support.h"

int main( void )
{
    static cntSuiteFcn* const suites[] = {
        cntLcpReaderSuite,
        cntLcpLemkeSuite,
    };
    return cntRunSuites( suites, (int)( sizeof( suites ) / sizeof( suites[0] ) ) );
}
