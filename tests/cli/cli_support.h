// SPDX-License-Identifier: MIT
#pragma once

// Helpers for the tests of the `cairn` tool: run it, read what it wrote.

#include <cjson/cJSON.h>

#include <stdbool.h>

#ifndef CN_CLI_PATH
#    error "CN_CLI_PATH (the built cairn executable) must be defined by tests/cli/CMakeLists.txt"
#endif

/// What one run of the tool gave. Both texts are complete files, zero-terminated, owned.
typedef struct cntCliRun
{
    int exitCode; ///< -1 when the tool did not exit normally
    char* out;
    char* err;
} cntCliRun;

/// Run `cairn ARGS` through the shell with stdin from /dev/null and stdout and stderr captured
/// in files (so stderr is not a terminal). `args` is shell text: quote paths.
cntCliRun cntRunCli( const char* format, ... )
#if defined( __GNUC__ )
    __attribute__( ( format( printf, 1, 2 ) ) )
#endif
    ;

void cntFreeCliRun( cntCliRun* run );

/// A scratch file path in the test work folder, e.g. cntWorkPath( "report.json" ). Static buffer
/// per call slot: `slot` 0..7 so that a test can hold several paths at once.
const char* cntWorkPath( int slot, const char* name );

/// A file from tests/cli/data.
const char* cntDataPath( int slot, const char* name );

/// Whole file, zero-terminated, or NULL. Free with free().
char* cntReadFile( const char* path );

/// Parse a JSON file; NULL when it cannot be read or parsed.
cJSON* cntReadJson( const char* path );

/// Number of lines (ending in '\n') in a text.
int cntCountLines( const char* text );

/// True when `text` contains `part`.
bool cntContains( const char* text, const char* part );
