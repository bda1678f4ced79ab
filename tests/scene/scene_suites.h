// SPDX-License-Identifier: MIT
#pragma once

#include <check.h>

Suite* cntSceneErrorSuite( void );
Suite* cntSceneGoodSuite( void );
Suite* cntSceneOverrideSuite( void );
Suite* cntSceneLargeSuite( void );
Suite* cntSceneGeneratorSuite( void );
