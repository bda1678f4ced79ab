// SPDX-License-Identifier: MIT
#pragma once

#include <check.h>

Suite* cntRelcpPairSuite( void );
Suite* cntRelcpDriverSuite( void );
