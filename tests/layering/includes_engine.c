// SPDX-License-Identifier: MIT
// What collision/ and solvers/ must not include: a header of engine/src. Compiled with their
// include path, this file must fail with "world.h: No such file or directory".
#include "world.h"

int cntLayeringForbidden( void );
int cntLayeringForbidden( void )
{
    return 0;
}
