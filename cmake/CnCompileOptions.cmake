# SPDX-License-Identifier: MIT
# cn_target_defaults(<target> [STRICT])
# C17 without GNU extensions, hidden symbols, our warning set.
# STRICT adds -Wconversion -Wdouble-promotion (library code only: Check's macros trip them).
function(cn_target_defaults target)
    cmake_parse_arguments(ARG "STRICT" "" "" ${ARGN})
    set_target_properties(${target} PROPERTIES
        C_STANDARD 17
        C_STANDARD_REQUIRED ON
        C_EXTENSIONS OFF
        C_VISIBILITY_PRESET hidden)

    if(CMAKE_C_COMPILER_ID MATCHES "GNU|Clang")
        target_compile_options(${target} PRIVATE
            -Wall -Wextra -Wpedantic -Wshadow -Wmissing-prototypes -Wstrict-prototypes -Wundef
            -ffp-contract=off
            $<$<BOOL:${ARG_STRICT}>:-Wconversion -Wdouble-promotion>
            $<$<BOOL:${CN_WARNINGS_AS_ERRORS}>:-Werror>)
    endif()

    # asserts stay on in optimised builds: they guard internal invariants only
    target_compile_definitions(${target} PRIVATE CN_ENABLE_ASSERT)
endfunction()
