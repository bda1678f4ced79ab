// SPDX-License-Identifier: MIT
// What the ReLCP benchmarks (bench_relcp.c, bench_relcp_dense.c) share: failures said on stderr and
// counted, CPU time, allocation that exits on failure, the markdown report (stdout and a results
// file), SVG plots, the worlds' log hook and scene loading with the demo systems.
#pragma once

#include "bench_plot.h"
#include "systems.h"

#include "cairn/cairn.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

// The program's name, the prefix of every failure line; the log hook prints the first `printLimit`
// lines of each world and never those containing `quiet` (nullable).
void BenchSetup( const char* program, int printLimit, const char* quiet );
// failures said so far (Fail)
int BenchFailures( void );

double CpuSeconds( void );
void Fail( const char* format, ... );
void* Calloc( size_t count, size_t size );
void* Realloc( void* p, size_t bytes );
// creates a directory when it is missing (one level)
void MakeDir( const char* dir );
const char* BaseName( const char* path );

// The markdown output: every line goes to stdout and to the results file DIR/relcp_NAME.md.
typedef struct Report
{
    FILE* file;
} Report;

bool OpenReport( Report* report, const char* dir, const char* name );
void Say( Report* report, const char* format, ... );
void CloseReport( Report* report );

// the panels into DIR/relcp_NAME.svg
void WritePlot( const cnPlot* const* panels, int count, const char* dir, const char* name );

// A world's log: the first lines go to stderr, all are counted.
typedef struct LogCounter
{
    int lines;
    int printed;
} LogCounter;

// Loads a scene from a file (text NULL) or from memory, with overrides and the demo systems'
// handlers; `systems` (nullable) receives the colony and the fields. Null id on failure (said).
cnWorldId LoadScene( const char* path, const char* text, size_t length, const char* const* overrides,
                     int overrideCount, LogCounter* log, cxSceneSystems* systems );
