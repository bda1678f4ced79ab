// SPDX-License-Identifier: MIT
#include "cairn/status.h"

#include "cairn/types.h"

#include <stddef.h>

static const char* const cn_statusStrings[] = {
#define CN_STATUS_STRING( name, text ) text,
    CN_STATUS_LIST( CN_STATUS_STRING )
#undef CN_STATUS_STRING
};

static const char* const cn_statusNames[] = {
#define CN_STATUS_NAME( name, text ) #name,
    CN_STATUS_LIST( CN_STATUS_NAME )
#undef CN_STATUS_NAME
};

_Static_assert( sizeof( cn_statusStrings ) / sizeof( cn_statusStrings[0] ) == cn_statusCount,
                "status table out of sync" );

const char* cnStatusString( cnStatus status )
{
    if ( (int)status < 0 || status >= cn_statusCount )
    {
        return "unknown status";
    }
    return cn_statusStrings[status];
}

const char* cnStatusName( cnStatus status )
{
    if ( (int)status < 0 || status >= cn_statusCount )
    {
        return "unknown status";
    }
    return cn_statusNames[status];
}

const char* cnStepWarningName( uint32_t bit )
{
    switch ( bit )
    {
#define CN_STEP_WARNING_CASE( name, index, text )                                                            \
    case 1u << ( index ):                                                                                    \
        return text;
        CN_STEP_WARNING_LIST( CN_STEP_WARNING_CASE )
#undef CN_STEP_WARNING_CASE
        default:
            return NULL;
    }
}
