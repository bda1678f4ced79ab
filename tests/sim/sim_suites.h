// SPDX-License-Identifier: MIT
#pragma once

#include <check.h>

Suite* cntInertialSuite( void );
Suite* cntOverdampedSuite( void );
Suite* cntBadValuesSuite( void );
Suite* cntOracleSuite( void );
Suite* cntConstantForceSuite( void );
