// SPDX-License-Identifier: MIT
// clock_gettime is POSIX, not C17: ask for it before any include.
#define _POSIX_C_SOURCE 200809L

#include "cli.h"

#include <time.h>

static double ToSeconds( struct timespec t )
{
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

// the library's monotonic clock, in seconds
double WallSeconds( void )
{
    return 1e-3 * cnTicksToMilliseconds( cnGetTicks() );
}

double CpuSeconds( void )
{
    struct timespec t = { 0 };
    clock_gettime( CLOCK_PROCESS_CPUTIME_ID, &t );
    return ToSeconds( t );
}
