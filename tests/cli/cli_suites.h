// SPDX-License-Identifier: MIT
#pragma once

// The suites of test_cli, one per file.

#include <check.h>

Suite* cntCliArgsSuite( void );
Suite* cntCliRunSuite( void );
Suite* cntCliProgressSuite( void );
Suite* cntCliContactsSuite( void );
Suite* cntCliLcpSuite( void );
