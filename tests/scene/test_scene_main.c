// SPDX-License-Identifier: MIT
#include "scene_suites.h"
#include "test_support.h"

int main( void )
{
    static cntSuiteFcn* const suites[] = {
        cntSceneErrorSuite,
        cntSceneGoodSuite,
        cntSceneOverrideSuite,
        cntSceneLargeSuite,
        cntSceneGeneratorSuite,
    };
    return cntRunSuites( suites, (int)( sizeof( suites ) / sizeof( suites[0] ) ) );
}
