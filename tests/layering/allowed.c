// SPDX-License-Identifier: MIT
// What collision/ and solvers/ may include: the base layer and the public headers.
#include "arena.h"
#include "core.h"

#include "cairn/solver.h"

int cntLayeringAllowed( void );
int cntLayeringAllowed( void )
{
    return CN_NULL_INDEX;
}
