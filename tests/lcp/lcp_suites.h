// SPDX-License-Identifier: MIT
#pragma once

// The suites of test_lcp, one per file.

#include <check.h>

Suite* cntLcpReaderSuite( void );
Suite* cntLcpWriterSuite( void );
Suite* cntLcpFclibSuite( void );
Suite* cntLcpLemkeSuite( void );
