# SPDX-License-Identifier: Apache-2.0
# ParrayInstall.cmake - what `cmake --install` puts under the prefix, in the
# GNUInstallDirs folders (CMAKE_INSTALL_BINDIR, _LIBDIR, _INCLUDEDIR, ...,
# included by the top CMakeLists.txt): programs, static and shared runtime
# libraries, public headers and .pc libraries, man pages, docs and examples,
# the CMake package (LIBDIR/cmake/Parray) and the pkg-config files
# (LIBDIR/pkgconfig). Every path written into the installed files is
# relative, so the tree can be moved; pac and pacc find the headers and the
# runtime relative to their own folder through the paths set below.
include(CMakePackageConfigHelpers)
set(PARRAY_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/Parray)
set(PARRAY_INSTALL_PKGCONFIGDIR ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# pac and pacc find the headers and the runtime in the tree they are
# installed in: PARRAY_BIN_TO_PREFIX is the prefix seen from the bin folder,
# PARRAY_INCLUDEDIR and PARRAY_LIBDIR the folders under it (or absolute);
# they fall back to bin/../include and bin/../lib (the build tree's layout)
set(_parray_root ${CMAKE_INSTALL_PREFIX})
if(NOT IS_ABSOLUTE "${_parray_root}")
  set(_parray_root /${_parray_root})
endif()
# out: the prefix as seen from the install folder dir (relative to the prefix, or absolute)
function(_parray_to_prefix out dir)
  if(NOT IS_ABSOLUTE "${dir}")
    set(dir ${_parray_root}/${dir})
  endif()
  file(RELATIVE_PATH rel ${dir} ${_parray_root})
  string(REGEX REPLACE "/$" "" rel "${rel}")
  set(${out} "${rel}" PARENT_SCOPE)
endfunction()
_parray_to_prefix(_parray_bin_to_prefix ${CMAKE_INSTALL_BINDIR})
foreach(tool pac pacc)
  if(TARGET ${tool})
    target_compile_definitions(${tool} PRIVATE PARRAY_BIN_TO_PREFIX="${_parray_bin_to_prefix}"
                               PARRAY_INCLUDEDIR="${CMAKE_INSTALL_INCLUDEDIR}" PARRAY_LIBDIR="${CMAKE_INSTALL_LIBDIR}")
  endif()
endforeach()

# libraries: Parray::parray (static), Parray::parray_shared, and per
# component Parray::mpi, Parray::cuda, Parray::mpi_cuda (and _shared twins).
# Each part is an install component of its own (mpi, cuda, mpi_cuda; the
# rest is the component parray) with its own targets file
# (Parray_PARTTargets.cmake), so that packages can carry the parts apart
# (cmake/ParrayPack.cmake) and a consumer loads (and finds MPI or CUDA for)
# only the components it asks for.
set_target_properties(parray PROPERTIES EXPORT_NAME parray)
set_target_properties(parray_shared PROPERTIES EXPORT_NAME parray_shared)
if(PARRAY_SANITIZE)
  # an instrumented runtime needs instrumented programs: say so to users
  target_link_options(parray INTERFACE $<INSTALL_INTERFACE:-fsanitize=address,undefined>)
  target_link_options(parray_shared INTERFACE $<INSTALL_INTERFACE:-fsanitize=address,undefined>)
endif()
install(TARGETS parray parray_shared EXPORT ParrayTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT ParrayTargets NAMESPACE Parray:: DESTINATION ${PARRAY_INSTALL_CMAKEDIR})
set(PARRAY_PKG_COMPONENTS "")
foreach(part mpi cuda mpi_cuda)
  if(TARGET parray_${part})
    list(APPEND PARRAY_PKG_COMPONENTS ${part})
    set_target_properties(parray_${part} PROPERTIES EXPORT_NAME ${part})
    set_target_properties(parray_${part}_shared PROPERTIES EXPORT_NAME ${part}_shared)
    install(TARGETS parray_${part} parray_${part}_shared EXPORT Parray_${part}Targets COMPONENT ${part}
            ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
            INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
    install(EXPORT Parray_${part}Targets NAMESPACE Parray:: DESTINATION ${PARRAY_INSTALL_CMAKEDIR}
            COMPONENT ${part})
  endif()
endforeach()

# headers and .pc libraries, and the generated version header
install(DIRECTORY include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h" PATTERN "*.cuh" PATTERN "*.pc")
install(FILES ${PARRAY_GENERATED_INCLUDE}/parray/version.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/parray)

# man pages and documentation (the man pages are optional: written elsewhere);
# the docs go to DATAROOTDIR/doc/parray unless CMAKE_INSTALL_DOCDIR is given
if(NOT "$CACHE{CMAKE_INSTALL_DOCDIR}")
  set(CMAKE_INSTALL_DOCDIR ${CMAKE_INSTALL_DATAROOTDIR}/doc/parray)
endif()
file(GLOB _parray_man1 ${PROJECT_SOURCE_DIR}/docs/man/*.1)
if(_parray_man1)
  install(FILES ${_parray_man1} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
endif()
# laid out under DOCDIR as in the source, so that the links between them
# work there too (tests/docs/links.sh checks every one in an installed tree)
install(FILES README.md CHANGELOG.md LICENSE NOTICE DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs FILES_MATCHING PATTERN "*.md" PATTERN "*.1" PATTERN "*.svg")
install(FILES bench/RESULTS.md DESTINATION ${CMAKE_INSTALL_DOCDIR}/bench)
install(FILES editor/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR}/editor)
# the example programs, which users build from here with the installed pacc
install(DIRECTORY examples/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples)

# the CMake package
set(PARRAY_PKG_HAVE_NCCL ${PARRAY_HAVE_NCCL})
set(PARRAY_PKG_BINDIR ${CMAKE_INSTALL_BINDIR})
set(PARRAY_PKG_INCLUDEDIR ${CMAKE_INSTALL_INCLUDEDIR})
configure_package_config_file(cmake/ParrayConfig.cmake.in ${CMAKE_BINARY_DIR}/ParrayConfig.cmake
                              INSTALL_DESTINATION ${PARRAY_INSTALL_CMAKEDIR}
                              PATH_VARS PARRAY_PKG_BINDIR PARRAY_PKG_INCLUDEDIR)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/ParrayConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/ParrayConfig.cmake ${CMAKE_BINARY_DIR}/ParrayConfigVersion.cmake
              cmake/ParrayHelpers.cmake cmake/ParrayTranslate.cmake cmake/parray_nvcc_launcher.sh
        DESTINATION ${PARRAY_INSTALL_CMAKEDIR})

# pkg-config: parray, and parray-mpi, parray-cuda, parray-mpi-cuda where
# built. Each finds the prefix from its own folder (${pcfiledir}).
function(_parray_pc_path out dir)
  if(IS_ABSOLUTE "${dir}")
    set(${out} "${dir}" PARENT_SCOPE)
  else()
    set(${out} "\${prefix}/${dir}" PARENT_SCOPE)
  endif()
endfunction()
_parray_to_prefix(PARRAY_PC_TO_PREFIX ${PARRAY_INSTALL_PKGCONFIGDIR})
_parray_pc_path(PARRAY_PC_LIBDIR ${CMAKE_INSTALL_LIBDIR})
_parray_pc_path(PARRAY_PC_INCLUDEDIR ${CMAKE_INSTALL_INCLUDEDIR})
_parray_pc_path(PARRAY_PC_BINDIR ${CMAKE_INSTALL_BINDIR})
set(CMAKE_DL_LIBS_FLAG "")
if(CMAKE_DL_LIBS)
  set(CMAKE_DL_LIBS_FLAG -l${CMAKE_DL_LIBS})
endif()
if(TARGET parray_cuda)
  set(PARRAY_CUDART_DIR ${CUDAToolkit_LIBRARY_DIR})
endif()
if(TARGET parray_mpi)
  # the MPI the runtime was built with, as flags any compiler takes (cc, nvcc,
  # mpicc): its include folders and libraries (-pthread left out: nvcc
  # refuses it; -lpthread is in parray.pc)
  set(PARRAY_PC_MPI_CFLAGS "")
  foreach(d IN LISTS MPI_C_INCLUDE_DIRS)
    string(APPEND PARRAY_PC_MPI_CFLAGS " -I${d}")
  endforeach()
  set(PARRAY_PC_MPI_LIBS "")
  foreach(l IN LISTS MPI_C_LIBRARIES)
    if(l MATCHES "^(.*)/lib([^/]+)\\.(so|a)(\\.[0-9.]*)?$")
      string(APPEND PARRAY_PC_MPI_LIBS " -L${CMAKE_MATCH_1} -l${CMAKE_MATCH_2}")
    elseif(NOT l MATCHES "pthread")
      string(APPEND PARRAY_PC_MPI_LIBS " ${l}")
    endif()
  endforeach()
  string(STRIP "${PARRAY_PC_MPI_CFLAGS}" PARRAY_PC_MPI_CFLAGS)
  string(STRIP "${PARRAY_PC_MPI_LIBS}" PARRAY_PC_MPI_LIBS)
endif()
set(PARRAY_PC_PARTS parray)
if(TARGET parray_mpi)
  list(APPEND PARRAY_PC_PARTS parray-mpi)
endif()
if(TARGET parray_cuda)
  list(APPEND PARRAY_PC_PARTS parray-cuda)
endif()
if(TARGET parray_mpi_cuda)
  list(APPEND PARRAY_PC_PARTS parray-mpi-cuda)
endif()
foreach(pc IN LISTS PARRAY_PC_PARTS)
  configure_file(cmake/${pc}.pc.in ${CMAKE_BINARY_DIR}/pkgconfig/${pc}.pc @ONLY)
  # the install component of the part: parray-mpi in mpi, parray-mpi-cuda in mpi_cuda
  string(REGEX REPLACE "^parray-?" "" _part "${pc}")
  string(REPLACE "-" "_" _part "${_part}")
  if(NOT _part)
    set(_part parray)
  endif()
  install(FILES ${CMAKE_BINARY_DIR}/pkgconfig/${pc}.pc DESTINATION ${PARRAY_INSTALL_PKGCONFIGDIR} COMPONENT ${_part})
endforeach()
