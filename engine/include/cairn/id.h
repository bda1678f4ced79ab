// SPDX-License-Identifier: MIT
#pragma once

/// @defgroup id Ids
/// Handles to worlds, bodies and shapes: an index plus a generation. Pass them by value.
/// A zero-initialized id is null. Destroying an object bumps the generation of its slot, so an
/// old id that still points at the slot is detected as stale instead of reaching a new object.
/// Stand-alone: include this when you only need to store ids.
/// @{

#include <stdint.h>

/// World id. Opaque; pass by value; zero-initialized means null.
typedef struct cnWorldId
{
    uint16_t index1;     ///< slot + 1, so that 0 is null
    uint16_t generation; ///< bumped when the world is destroyed
} cnWorldId;

/// Body id. Opaque; pass by value; zero-initialized means null.
typedef struct cnBodyId
{
    int32_t index1;      ///< slot + 1, so that 0 is null
    uint16_t world0;     ///< world slot
    uint16_t generation; ///< bumped when the body is destroyed
} cnBodyId;

/// Shape id. Same layout as cnBodyId, a separate type so that the two cannot be mixed up.
typedef struct cnShapeId
{
    int32_t index1;
    uint16_t world0;
    uint16_t generation;
} cnShapeId;

/// Joint id. Same layout as cnBodyId, a separate type (cairn/joint.h).
typedef struct cnJointId
{
    int32_t index1;
    uint16_t world0;
    uint16_t generation;
} cnJointId;

#ifdef __cplusplus
#    define CN_NULL_ID                                                                                       \
        {                                                                                                    \
        }
#else
#    define CN_NULL_ID                                                                                       \
        {                                                                                                    \
            0                                                                                                \
        }
#endif

static const cnWorldId cn_nullWorldId = CN_NULL_ID;
static const cnBodyId cn_nullBodyId = CN_NULL_ID;
static const cnShapeId cn_nullShapeId = CN_NULL_ID;
static const cnJointId cn_nullJointId = CN_NULL_ID;

/// True for a null id of any kind.
#define CN_IS_NULL( id ) ( ( id ).index1 == 0 )
/// True for a non-null id of any kind (it may still be stale: use cn*_IsValid).
#define CN_IS_NON_NULL( id ) ( ( id ).index1 != 0 )
/// Equality for body, shape and joint ids. Do not mix id types.
#define CN_ID_EQUALS( a, b )                                                                                 \
    ( ( a ).index1 == ( b ).index1 && ( a ).world0 == ( b ).world0 && ( a ).generation == ( b ).generation )

/// @}
