// SPDX-License-Identifier: MIT
#pragma once

// The `cairn` command-line tool: shared declarations of its parts (docs/cli.md).

#include "cairn/cairn.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/// Exit codes: the same for every subcommand.
enum
{
    exitOk = 0,
    /// the scene did not load, a step failed, an output file could not be written
    exitFailure = 1,
    /// bad command line
    exitUsage = 2,
};

/// `cairn run`: argv[0] is "run".
int RunCommand( int argc, char** argv );
void PrintRunUsage( FILE* stream );

/// `cairn contacts`: argv[0] is "contacts".
int ContactsCommand( int argc, char** argv );
void PrintContactsUsage( FILE* stream );

/// `cairn lcp` and `cairn solvers` (lcp.c): argv[0] is "lcp" or "solvers".
int LcpCommand( int argc, char** argv );
void PrintLcpUsage( FILE* stream );
int SolversCommand( int argc, char** argv );
void PrintSolversUsage( FILE* stream );

/// Matches "--name VALUE" and "--name=VALUE" at argv[*index]: 0 when it is another option, 1 with
/// *value set (and *index advanced past a separate value), -1 when the value is missing.
int MatchOption( int argc, char** argv, int* index, const char* name, const char** value );

/// This process's rank when an MPI launcher started it (Open MPI's, MPICH's or PMIx's rank
/// variable), else 0. From the environment: the tool itself does not link MPI.
int MpiRank( void );

/// stdout and stderr to /dev/null (what ranks above 0 do under mpirun); false when that fails.
bool SilenceOutput( void );

/// The file name part of a path.
const char* BaseName( const char* path );

/// Seconds on the monotonic clock, and process CPU seconds (all threads).
double WallSeconds( void );
double CpuSeconds( void );
