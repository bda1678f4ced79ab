# SPDX-License-Identifier: MIT
# Every dependency is a Debian package: find_package first, pkg-config as the fallback.
# The cn:: aliases hide which branch won and what the upstream targets are called.
find_package(PkgConfig REQUIRED)

# the C math library, where it is separate
find_library(CN_LIBM m)

# libccd (GJK, EPA, MPR): a CMake package with target `ccd`; ccd.pc as fallback.
# Debian's build is double precision (CCD_DOUBLE), which the engine relies on.
find_package(ccd CONFIG QUIET)
if(TARGET ccd)
    add_library(cn::ccd INTERFACE IMPORTED)
    target_link_libraries(cn::ccd INTERFACE ccd)
else()
    pkg_check_modules(CCD REQUIRED IMPORTED_TARGET ccd)
    add_library(cn::ccd ALIAS PkgConfig::CCD)
endif()

if(CN_BUILD_SCENE)
    # cJSON: a CMake package with target `cjson`; libcjson.pc as fallback
    find_package(cJSON CONFIG QUIET)
    if(TARGET cjson)
        add_library(cn::cjson INTERFACE IMPORTED)
        target_link_libraries(cn::cjson INTERFACE cjson)
    else()
        pkg_check_modules(CJSON REQUIRED IMPORTED_TARGET libcjson)
        add_library(cn::cjson ALIAS PkgConfig::CJSON)
    endif()
endif()

if(CN_BUILD_TESTS)
    # Check: pkg-config only (check.pc pulls in libsubunit)
    pkg_check_modules(CHECK REQUIRED IMPORTED_TARGET check)
    add_library(cn::check ALIAS PkgConfig::CHECK)
endif()

# The viewer's dependencies (all optional: without them the viewer is skipped, the rest builds).
# GLFW (window, input), OpenGL, cglm (matrices), stb (stb_easy_font for text, stb_image_write for
# screenshots; header-only, /usr/include/stb on Debian) and glad 2, the loader generator, run at
# build time with --reproducible so it reads the specifications it ships with and needs no network.
set(CN_VIEWER_FOUND OFF)
if(CN_BUILD_VIEWER)
    find_package(glfw3 CONFIG QUIET)
    if(TARGET glfw)
        add_library(cn::glfw INTERFACE IMPORTED)
        target_link_libraries(cn::glfw INTERFACE glfw)
    else()
        pkg_check_modules(GLFW QUIET IMPORTED_TARGET glfw3)
        if(GLFW_FOUND)
            add_library(cn::glfw ALIAS PkgConfig::GLFW)
        endif()
    endif()

    find_package(cglm CONFIG QUIET)
    if(TARGET cglm::cglm)
        add_library(cn::cglm INTERFACE IMPORTED)
        target_link_libraries(cn::cglm INTERFACE cglm::cglm)
    else()
        pkg_check_modules(CGLM QUIET IMPORTED_TARGET cglm)
        if(CGLM_FOUND)
            add_library(cn::cglm ALIAS PkgConfig::CGLM)
        endif()
    endif()

    set(OpenGL_GL_PREFERENCE GLVND)
    find_package(OpenGL QUIET)
    find_path(CN_STB_INCLUDE_DIR stb_easy_font.h PATH_SUFFIXES stb)
    find_program(CN_GLAD_EXECUTABLE glad)

    set(_missing "")
    foreach(_dep IN ITEMS cn::glfw cn::cglm OpenGL::GL)
        if(NOT TARGET ${_dep})
            list(APPEND _missing ${_dep})
        endif()
    endforeach()
    if(NOT CN_STB_INCLUDE_DIR)
        list(APPEND _missing "stb (libstb-dev)")
    endif()
    if(NOT CN_GLAD_EXECUTABLE)
        list(APPEND _missing "glad (python3-glad)")
    endif()
    if(_missing)
        message(STATUS "cairn-viewer: skipped, missing ${_missing} (scripts/deps.sh installs them)")
    else()
        set(CN_VIEWER_FOUND ON)
    endif()
endif()
