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
