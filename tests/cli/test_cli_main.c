// SPDX-License-Identifier: MIT
// test_cli: the `cairn` command-line tool, run as a separate process (docs/cli.md).
#include "cli_suites.h"
#include "test_support.h"

int main( void )
{
    static cntSuiteFcn* const suites[] = {
        cntCliArgsSuite, cntCliRunSuite, cntCliProgressSuite, cntCliContactsSuite, cntCliLcpSuite,
    };
    return cntRunSuites( suites, (int)( sizeof( suites ) / sizeof( suites[0] ) ) );
}
