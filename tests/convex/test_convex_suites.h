// SPDX-License-Identifier: MIT
#pragma once

// The suites of test_convex, one per file.

#include <check.h>

Suite* cntSupportSuite( void );
Suite* cntConvexPairSuite( void );
Suite* cntManifoldSuite( void );
Suite* cntFuzzSuite( void );
