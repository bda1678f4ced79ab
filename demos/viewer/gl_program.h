// SPDX-License-Identifier: MIT
// Building the viewer's GLSL programs (the renderer's and the HUD's), with their logs on failure.
#pragma once

#include <glad/gl.h>

/// Compile a vertex and a fragment shader and link them. In each source, `defines` and then
/// `common` (both nullable) go in right after the first line, its #version; `common`'s lines are
/// numbered from 1001 so that a log tells them apart. `name` (e.g. "mesh") labels the messages:
/// "name_vs", "name_fs". Returns the program, or 0 after printing what failed and its log to
/// stderr.
GLuint vwLinkProgram( const char* name, const char* vertexSource, const char* fragmentSource,
                      const char* defines, const char* common );
