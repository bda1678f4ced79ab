// SPDX-License-Identifier: MIT
#pragma once

// The progress line of `cairn run`: one line on stderr, rewritten with \r about four times a
// second, cleared at the end. Only when stderr is a terminal; nothing at all otherwise.

#include <stdbool.h>
#include <stdint.h>

typedef struct Progress
{
    bool enabled;
    int64_t total;
    double startWall;
    double nextWall;
} Progress;

/// Seconds between two updates of the line.
#define PROGRESS_INTERVAL 0.25

/// `wanted` is false under --quiet; the line is shown only when stderr is also a terminal.
void Progress_Start( Progress* progress, bool wanted, int64_t total, double now );

/// True when the line should be redrawn at wall time `now`.
bool Progress_Due( const Progress* progress, double now );

void Progress_Update( Progress* progress, int64_t done, double now );

/// Erase the line (no-op when disabled).
void Progress_Finish( Progress* progress );
