// SPDX-License-Identifier: MIT
#pragma once

#include <check.h>

Suite* cntBroadPhaseSuite( void );
Suite* cntBroadPhaseRandomSuite( void );
