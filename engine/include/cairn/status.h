// SPDX-License-Identifier: MIT
#pragma once

/// @defgroup status Status codes
/// One list, three uses: the enum, the strings, and the tests that loop over every code.
/// @{

#include "cairn/base.h"

// clang-format off
#define CN_STATUS_LIST( X )                                                                  \
    X( cn_statusOk,               "ok" )                                                     \
    X( cn_statusInvalidArgument,  "invalid argument" )                                       \
    X( cn_statusInvalidId,        "null, stale or forged id" )                               \
    X( cn_statusOutOfMemory,      "out of memory" )                                          \
    X( cn_statusWorldLocked,      "world is locked: called from inside cnWorld_Step" )       \
    X( cn_statusCapacityExceeded, "fixed capacity exceeded" )                                \
    X( cn_statusUnsupported,      "not supported" )                                          \
    X( cn_statusNotConverged,     "a solve gave no usable answer" )                          \
    X( cn_statusNonFinite,        "NaN or infinity" )                                        \
    X( cn_statusIoError,          "file could not be read or written" )                      \
    X( cn_statusParseError,       "JSON syntax error" )                                      \
    X( cn_statusSchemaError,      "JSON is valid but not a valid scene" )
// clang-format on

/// Result of an operation that can fail for reasons the caller cannot always prevent.
typedef enum cnStatus
{
#define CN_STATUS_ENUM( name, text ) name,
    CN_STATUS_LIST( CN_STATUS_ENUM )
#undef CN_STATUS_ENUM
        cn_statusCount
} cnStatus;

/// Static description of a status code. Never NULL (unknown codes give "unknown status").
CN_API const char* cnStatusString( cnStatus status );

/// Static name of a status code, e.g. "cn_statusInvalidId". Never NULL.
CN_API const char* cnStatusName( cnStatus status );

/// @}
