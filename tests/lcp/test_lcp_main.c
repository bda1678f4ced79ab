// SPDX-License-Identifier: MIT
// test_lcp: problem-file readers and writer, fclib HDF5 files, and Lemke's method.
#include "lcp_suites.h"
#include "test_support.h"

int main( void )
{
    static cntSuiteFcn* const suites[] = {
        cntLcpReaderSuite,
        cntLcpWriterSuite,
        cntLcpFclibSuite,
        cntLcpLemkeSuite,
    };
    return cntRunSuites( suites, (int)( sizeof( suites ) / sizeof( suites[0] ) ) );
}
