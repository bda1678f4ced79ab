// SPDX-License-Identifier: MIT
// clock_gettime is POSIX, hidden by -std=c17 without this
#define _POSIX_C_SOURCE 200809L

#include "world.h"

#include <time.h>

uint64_t cnGetTicks( void )
{
    struct timespec ts;
    clock_gettime( CLOCK_MONOTONIC, &ts );
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

double cnTicksToMilliseconds( uint64_t ticks )
{
    return (double)ticks * 1e-6;
}
