# SPDX-License-Identifier: MIT
# Every dependency is a Debian package: find_package first, pkg-config as the fallback.
# The cn:: aliases hide which branch won and what the upstream targets are called.
find_package(PkgConfig REQUIRED)

# cn_find_dependency(<alias> <package> <target> <pkg-config module> [REQUIRED])
# Defines cn::<alias> from the CMake package's <target> when find_package finds one, else from the
# pkg-config module. Without REQUIRED a missing dependency leaves cn::<alias> undefined.
function(cn_find_dependency alias package target module)
    cmake_parse_arguments(ARG "REQUIRED" "" "" ${ARGN})
    find_package(${package} CONFIG QUIET)
    if(TARGET ${target})
        add_library(cn::${alias} INTERFACE IMPORTED GLOBAL)
        target_link_libraries(cn::${alias} INTERFACE ${target})
        return()
    endif()
    string(TOUPPER "CN_PC_${alias}" prefix)
    if(ARG_REQUIRED)
        pkg_check_modules(${prefix} REQUIRED IMPORTED_TARGET GLOBAL ${module})
    else()
        pkg_check_modules(${prefix} QUIET IMPORTED_TARGET GLOBAL ${module})
    endif()
    if(${prefix}_FOUND)
        add_library(cn::${alias} ALIAS PkgConfig::${prefix})
    endif()
endfunction()

# the C math library, where it is separate
find_library(CN_LIBM m)

# libccd (GJK, EPA, MPR). Debian's build is double precision (CCD_DOUBLE), which the engine relies on.
cn_find_dependency(ccd ccd ccd ccd REQUIRED)

if(CN_BUILD_SCENE)
    cn_find_dependency(cjson cJSON cjson libcjson REQUIRED)
endif()

# HDF5 (optional): `cairn lcp` and cnReadProblemFile read fclib problem files with it; without it
# they refuse HDF5 files, saying so. FindHDF5's C component first, pkg-config (hdf5) as the
# fallback; CN_WITH_HDF5=OFF builds without it even where it is installed.
option(CN_WITH_HDF5 "Read fclib HDF5 problem files (libhdf5-dev)" ON)
if(CN_WITH_HDF5)
    find_package(HDF5 QUIET COMPONENTS C)
    if(HDF5_FOUND AND TARGET hdf5::hdf5)
        add_library(cn::hdf5 INTERFACE IMPORTED GLOBAL)
        target_link_libraries(cn::hdf5 INTERFACE hdf5::hdf5)
    elseif(HDF5_FOUND)
        add_library(cn::hdf5 INTERFACE IMPORTED GLOBAL)
        target_include_directories(cn::hdf5 INTERFACE ${HDF5_C_INCLUDE_DIRS})
        target_compile_definitions(cn::hdf5 INTERFACE ${HDF5_C_DEFINITIONS})
        target_link_libraries(cn::hdf5 INTERFACE ${HDF5_C_LIBRARIES})
    else()
        pkg_check_modules(CN_PC_HDF5 QUIET IMPORTED_TARGET GLOBAL hdf5)
        if(CN_PC_HDF5_FOUND)
            add_library(cn::hdf5 ALIAS PkgConfig::CN_PC_HDF5)
        endif()
    endif()
endif()
if(TARGET cn::hdf5)
    message(STATUS "HDF5: found, fclib problem files are read")
else()
    message(STATUS "HDF5: not used (CN_WITH_HDF5=${CN_WITH_HDF5}; scripts/deps.sh installs libhdf5-dev): fclib files are refused")
endif()

# CHOLMOD with AMD (optional): the sparse factorisation of PGS-SM and the Newton methods' direct
# solves (solvers/factor.c). Debian's libsuitesparse-dev has no CMake package or pkg-config module
# in bookworm, so the headers and libraries are found by name. CHOLMOD's supernodal module is
# GPL-2.0+, and Debian's libcholmod has it built in: a binary linked with it is GPL. CN_WITH_CHOLMOD
# =OFF builds without it (the MIT-only engine): the dense LDL^T then takes systems up to 2,500 rows,
# and larger ones are reported unavailable.
option(CN_WITH_CHOLMOD "Sparse factorisations with CHOLMOD (libsuitesparse-dev; GPL-2.0+ parts)" ON)
if(CN_WITH_CHOLMOD)
    find_path(CN_CHOLMOD_INCLUDE_DIR cholmod.h PATH_SUFFIXES suitesparse)
    find_library(CN_CHOLMOD_LIBRARY cholmod)
    find_library(CN_AMD_LIBRARY amd)
    find_library(CN_COLAMD_LIBRARY colamd)
    find_library(CN_SUITESPARSECONFIG_LIBRARY suitesparseconfig)
    if(CN_CHOLMOD_INCLUDE_DIR AND CN_CHOLMOD_LIBRARY AND CN_AMD_LIBRARY AND CN_COLAMD_LIBRARY
       AND CN_SUITESPARSECONFIG_LIBRARY)
        add_library(cn::cholmod INTERFACE IMPORTED GLOBAL)
        target_include_directories(cn::cholmod INTERFACE ${CN_CHOLMOD_INCLUDE_DIR})
        target_link_libraries(cn::cholmod INTERFACE ${CN_CHOLMOD_LIBRARY} ${CN_AMD_LIBRARY}
            ${CN_COLAMD_LIBRARY} ${CN_SUITESPARSECONFIG_LIBRARY})
    endif()
endif()
if(TARGET cn::cholmod)
    message(STATUS "CHOLMOD: found, sparse factorisations with AMD (GPL-2.0+ supernodal module linked)")
else()
    message(STATUS "CHOLMOD: not used (CN_WITH_CHOLMOD=${CN_WITH_CHOLMOD}; scripts/deps.sh installs libsuitesparse-dev): dense LDL^T only, up to 2,500 rows")
endif()

# PETSc/TAO with MPI (optional, off by default): the solver `tao` (solvers/solver_tao.c), serial or
# across MPI ranks. Debian's petsc-dev; found by pkg-config (PETSc, and the MPI it was built with).
option(CN_WITH_PETSC "The tao solver on PETSc/TAO and MPI (petsc-dev)" OFF)
if(CN_WITH_PETSC)
    pkg_check_modules(CN_PC_PETSC QUIET IMPORTED_TARGET GLOBAL PETSc)
    set(CN_MPI_PC_MODULE ompi-c)
    pkg_check_modules(CN_PC_MPI QUIET IMPORTED_TARGET GLOBAL ompi-c)
    if(NOT CN_PC_MPI_FOUND)
        set(CN_MPI_PC_MODULE mpi-c)
        pkg_check_modules(CN_PC_MPI QUIET IMPORTED_TARGET GLOBAL mpi-c)
    endif()
    if(CN_PC_PETSC_FOUND AND CN_PC_MPI_FOUND)
        add_library(cn::petsc INTERFACE IMPORTED GLOBAL)
        target_link_libraries(cn::petsc INTERFACE PkgConfig::CN_PC_PETSC PkgConfig::CN_PC_MPI)
    endif()
endif()
if(TARGET cn::petsc)
    message(STATUS "PETSc: found (${CN_PC_PETSC_VERSION}), the tao solver is built")
else()
    message(STATUS "PETSc: not used (CN_WITH_PETSC=${CN_WITH_PETSC}; petsc-dev): no tao solver")
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
    cn_find_dependency(glfw glfw3 glfw glfw3)
    cn_find_dependency(cglm cglm cglm::cglm cglm)

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
