# SPDX-License-Identifier: MIT
# cmake -DOUT=header.h -DDIR=shader/dir -P embed_shaders.cmake
# Writes each DIR/name.glsl as `static const char vw_shader_name[]`, one C string literal per line.
file(GLOB files ${DIR}/*.glsl)
list(SORT files)
set(text "// generated from assets/shaders by embed_shaders.cmake; do not edit\n#pragma once\n")
foreach(file IN LISTS files)
    get_filename_component(name ${file} NAME_WE)
    file(READ ${file} content)
    string(REPLACE "\\" "\\\\" content "${content}")
    string(REPLACE "\"" "\\\"" content "${content}")
    string(REPLACE "\n" "\\n\"\n    \"" content "${content}")
    string(APPEND text "\nstatic const char vw_shader_${name}[] =\n    \"${content}\";\n")
endforeach()
file(WRITE ${OUT}.tmp "${text}")
file(COPY_FILE ${OUT}.tmp ${OUT} ONLY_IF_DIFFERENT)
