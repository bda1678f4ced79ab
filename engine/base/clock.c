// SPDX-License-Identifier: MIT
// The one monotonic clock of the library and its tools (cairn/base.h): step timings, solver
// deadlines and statistics, the command-line tool's wall time.

// clock_gettime is POSIX, hidden by -std=c17 without this
#define _POSIX_C_SOURCE 200809L

#include "cairn/base.h"

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

double cnGetMilliseconds( uint64_t startTicks )
{
    return cnTicksToMilliseconds( cnGetTicks() - startTicks );
}
