// SPDX-License-Identifier: MIT
// Private to the problem-file readers: what lcp_io.c (Siconos text, the dispatcher) and
// lcp_hdf5.c (fclib) share.
#pragma once

#include "cairn/lcp_io.h"

#include <stddef.h>

// An owned cnFileProblem in one block from CSR arrays: an LCP (format cn_problemSiconosLcp) gets a
// frictionless normal group per row, every other format a pyramid contact group per three rows
// with mu[c]. start and reference are nullable (rows). cn_statusOk or cn_statusOutOfMemory.
cnStatus cnAssembleFileProblem( cnProblemFormat format, int rows, int contacts, const int* rowStart,
                                const int* column, const double* value, const double* b, const double* mu,
                                const double* start, const double* reference, const cnAllocator* allocator,
                                cnFileProblem* problem );

// Read an fclib HDF5 file held in memory (lcp_hdf5.c); `name` labels messages. Without HDF5 in the
// build every file is refused (cn_statusUnsupported), saying so.
cnStatus cnReadFclibImage( const char* name, const char* image, size_t length, cnProblemFormat format,
                           const cnAllocator* allocator, cnFileProblem* problem, char* message,
                           int messageSize );
