// SPDX-License-Identifier: MIT
#pragma once

#include <check.h>

Suite* cntStatusSuite( void );
Suite* cntMathSuite( void );
Suite* cntArenaSuite( void );
Suite* cntWorldSuite( void );
Suite* cntBodySuite( void );
Suite* cntSystemsSuite( void );
Suite* cntMultisphereSuite( void );
Suite* cntSettersSuite( void );
