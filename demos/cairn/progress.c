// SPDX-License-Identifier: MIT
// isatty and STDERR_FILENO are POSIX.
#define _POSIX_C_SOURCE 200809L

#include "progress.h"

#include <stdio.h>
#include <unistd.h>

void Progress_Start( Progress* progress, bool wanted, int64_t total, double now )
{
    progress->enabled = wanted && isatty( STDERR_FILENO ) == 1;
    progress->total = total;
    progress->startWall = now;
    progress->nextWall = now;
    if ( progress->enabled )
    {
        Progress_Update( progress, 0, now );
    }
}

bool Progress_Due( const Progress* progress, double now )
{
    return progress->enabled && now >= progress->nextWall;
}

static void FormatDuration( double seconds, char* buffer, size_t size )
{
    if ( !( seconds >= 0.0 ) || seconds > 1e8 )
    {
        snprintf( buffer, size, "?" );
    }
    else if ( seconds < 10.0 )
    {
        snprintf( buffer, size, "%.1f s", seconds );
    }
    else if ( seconds < 60.0 )
    {
        snprintf( buffer, size, "%.0f s", seconds );
    }
    else if ( seconds < 3600.0 )
    {
        snprintf( buffer, size, "%d min %02d s", (int)( seconds / 60.0 ), (int)seconds % 60 );
    }
    else
    {
        snprintf( buffer, size, "%d h %02d min", (int)( seconds / 3600.0 ), (int)( seconds / 60.0 ) % 60 );
    }
}

void Progress_Update( Progress* progress, int64_t done, double now )
{
    if ( progress->enabled == false )
    {
        return;
    }

    double elapsed = now - progress->startWall;
    double rate = elapsed > 0.0 ? (double)done / elapsed : 0.0;
    char left[32];
    if ( done == 0 || rate <= 0.0 )
    {
        snprintf( left, sizeof( left ), "?" );
    }
    else
    {
        FormatDuration( (double)( progress->total - done ) / rate, left, sizeof( left ) );
    }

    // \r back to the start of the line, ESC[K erases what a longer previous line left behind
    fprintf( stderr, "\rstep %lld/%lld  %.0f steps/s  %s left\x1b[K", (long long)done,
             (long long)progress->total, rate, left );
    fflush( stderr );
    progress->nextWall = now + PROGRESS_INTERVAL;
}

void Progress_Finish( Progress* progress )
{
    if ( progress->enabled )
    {
        fprintf( stderr, "\r\x1b[K" );
        fflush( stderr );
        progress->enabled = false;
    }
}
