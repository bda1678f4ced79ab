// SPDX-License-Identifier: MIT
#pragma once

#include <check.h>

Suite* cntContactDynamicsSuite( void );
Suite* cntSmoothDynamicsSuite( void );
