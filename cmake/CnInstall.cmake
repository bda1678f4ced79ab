# SPDX-License-Identifier: MIT
# cmake --install gives the headers, the libraries, a CMake package (find_package(cairn) ->
# cairn::cairn and cairn::scene) and a pkg-config file.
include(CMakePackageConfigHelpers)

set(cn_install_targets cairn)
# the fclib reader's HDF5 reaches the consumer's link too (cairnConfig.cmake, cairn.pc)
if(TARGET cn::hdf5)
    set(CN_HAS_HDF5 ON)
else()
    set(CN_HAS_HDF5 OFF)
endif()
if(CN_BUILD_SCENE)
    list(APPEND cn_install_targets cairn_scene)
endif()

install(TARGETS ${cn_install_targets}
    EXPORT cairnTargets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
    RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
    INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/engine/include/cairn DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT cairnTargets NAMESPACE cairn:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/cairn)

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/cairnConfig.cmake.in
    ${PROJECT_BINARY_DIR}/cairnConfig.cmake
    INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/cairn)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/cairnConfigVersion.cmake
    COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cairnConfig.cmake ${PROJECT_BINARY_DIR}/cairnConfigVersion.cmake
    DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/cairn)

# the libraries are static, so what they link privately goes into Libs and Requires
if(CN_BUILD_SCENE)
    set(CN_PC_LIBS "-lcairn_scene -lcairn")
    set(CN_PC_REQUIRES "ccd libcjson")
else()
    set(CN_PC_LIBS "-lcairn")
    set(CN_PC_REQUIRES "ccd")
endif()
if(CN_HAS_HDF5)
    string(APPEND CN_PC_REQUIRES " hdf5")
endif()
if(TARGET cn::petsc)
    # the tao solver's PETSc and MPI (-DCN_WITH_PETSC=ON)
    string(APPEND CN_PC_REQUIRES " PETSc ${CN_MPI_PC_MODULE}")
endif()
# CHOLMOD has no pkg-config module on Debian 12: its libraries by name (CN_PC_LIBS_PRIVATE goes
# after -lcairn)
set(CN_PC_LIBS_PRIVATE "")
if(TARGET cn::cholmod)
    set(CN_PC_LIBS_PRIVATE " -lcholmod -lamd -lcolamd -lsuitesparseconfig")
endif()

# relocatable: the prefix is found from where the .pc file lies (LIBDIR/pkgconfig)
set(CN_PC_UP "..")
string(REPLACE "/" ";" cn_libdir_parts "${CMAKE_INSTALL_LIBDIR}")
foreach(part IN LISTS cn_libdir_parts)
    string(APPEND CN_PC_UP "/..")
endforeach()
configure_file(${PROJECT_SOURCE_DIR}/cmake/cairn.pc.in ${PROJECT_BINARY_DIR}/cairn.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/cairn.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
