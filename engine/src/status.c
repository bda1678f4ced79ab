// SPDX-License-Identifier: MIT
#include "cairn/status.h"

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
