// SPDX-License-Identifier: MIT
#pragma once

#include <check.h>

Suite* cntColonySuite( void );
Suite* cntFieldSuite( void );
