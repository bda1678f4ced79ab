// SPDX-License-Identifier: MIT
#pragma once

// Inside cairn_systems only: one formatter for the messages of colony.c, field.c and
// scene_systems.c.

#if defined( __GNUC__ )
__attribute__( ( format( printf, 3, 4 ) ) )
#endif
void cxFormat( char* message, int messageSize, const char* format, ... );
