# SPDX-License-Identifier: MIT
# ctest's test_install: install the build into a scratch prefix, then build and run the consumer
# project (tests/cli/consumer) against it twice: with find_package(cairn) and with pkg-config.
#
# cmake -DBUILD_DIR=... -DWORK_DIR=... -DCONSUMER_DIR=... -DC_COMPILER=... [-DC_FLAGS=...]
#       -DHAS_SCENE=ON|OFF -DHAS_CLI=0|1 -P install_test.cmake
foreach(var BUILD_DIR WORK_DIR CONSUMER_DIR C_COMPILER)
    if(NOT DEFINED ${var})
        message(FATAL_ERROR "install_test.cmake: -D${var}=... is required")
    endif()
endforeach()

# run a command; stop the test with its output when it fails
function(cn_run what)
    execute_process(COMMAND ${ARGN}
        RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
    if(NOT result EQUAL 0)
        list(JOIN ARGN " " command)
        message(FATAL_ERROR "${what} failed (${result}):\n  ${command}\n${output}")
    endif()
    message(STATUS "${what}: ok")
    set(cn_last_output "${output}" PARENT_SCOPE)
endfunction()

set(prefix ${WORK_DIR}/prefix)
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})

cn_run("cmake --install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})

foreach(header cairn.h base.h id.h math.h status.h types.h)
    if(NOT EXISTS ${prefix}/include/cairn/${header})
        message(FATAL_ERROR "the install has no include/cairn/${header}")
    endif()
endforeach()

if(HAS_CLI)
    cn_run("installed cairn --version" ${prefix}/bin/cairn --version)
    if(NOT cn_last_output MATCHES "^cairn [0-9]+\\.[0-9]+\\.[0-9]+")
        message(FATAL_ERROR "installed cairn --version printed: ${cn_last_output}")
    endif()
endif()

if(NOT HAS_SCENE)
    message(STATUS "no scene loader in this build: the consumer needs cairn::scene, skipped")
    return()
endif()

# 1. CMake package
cn_run("configure the consumer"
    ${CMAKE_COMMAND} -S ${CONSUMER_DIR} -B ${WORK_DIR}/consumer-build
    -DCMAKE_PREFIX_PATH=${prefix}
    -DCMAKE_C_COMPILER=${C_COMPILER}
    "-DCMAKE_C_FLAGS=${C_FLAGS}"
    "-DCMAKE_EXE_LINKER_FLAGS=${C_FLAGS}"
    -DCMAKE_BUILD_TYPE=Debug)
cn_run("build the consumer" ${CMAKE_COMMAND} --build ${WORK_DIR}/consumer-build)
cn_run("run the consumer (find_package)" ${WORK_DIR}/consumer-build/cairn_consumer)

# 2. pkg-config, as the README tells users: `pkg-config --cflags --libs cairn`, without --static
#    (cairn is a static library, so its .pc must name what the archives need, -lm and cJSON)
find_program(PKG_CONFIG_EXECUTABLE NAMES pkg-config pkgconf REQUIRED)
file(GLOB pc_dirs LIST_DIRECTORIES true
    ${prefix}/lib*/pkgconfig ${prefix}/lib/*/pkgconfig ${prefix}/share/pkgconfig)
if(NOT pc_dirs)
    message(FATAL_ERROR "the install has no pkgconfig folder")
endif()
string(JOIN ":" pc_path ${pc_dirs})
set(ENV{PKG_CONFIG_PATH} "${pc_path}")
cn_run("pkg-config --cflags --libs cairn" ${PKG_CONFIG_EXECUTABLE} --cflags --libs cairn)
string(STRIP "${cn_last_output}" pc_flags)
string(FIND "${pc_flags}" "-I${prefix}/" pc_include_at)
if(pc_include_at EQUAL -1)
    message(FATAL_ERROR "pkg-config does not point into the install prefix ${prefix}: ${pc_flags}\n"
        "(cairn.pc must be relocatable, e.g. prefix=\${pcfiledir}/../.., for cmake --install --prefix)")
endif()
separate_arguments(pc_flags UNIX_COMMAND "${pc_flags}")
separate_arguments(extra_flags UNIX_COMMAND "${C_FLAGS}")
cn_run("compile the consumer with pkg-config"
    ${C_COMPILER} -std=c17 ${extra_flags} ${CONSUMER_DIR}/main.c -o ${WORK_DIR}/consumer_pkgconfig ${pc_flags})
cn_run("run the consumer (pkg-config)" ${WORK_DIR}/consumer_pkgconfig)
