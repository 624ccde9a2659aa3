# ParrayInstall.cmake - what `cmake --install` puts under the prefix, laid out
# as pacc and pac expect relative to their own folder (bin/../include,
# bin/../lib): programs, static and shared runtime libraries, public headers
# and .pc libraries, man pages, docs and examples, the CMake package
# (lib/cmake/Parray) and the pkg-config files (lib/pkgconfig). Every path
# written into the installed files is relative, so the tree can be moved.
include(CMakePackageConfigHelpers)
set(PARRAY_INSTALL_CMAKEDIR lib/cmake/Parray)

# libraries: Parray::parray (static), Parray::parray_shared, Parray::mpi, Parray::cuda,
# Parray::mpi_cuda. Each part is an install component of its own (mpi, cuda,
# mpi_cuda; the rest is the component parray), with its own targets file
# (Parray_PARTTargets.cmake), so that packages can carry the parts apart
# (cmake/ParrayPack.cmake).
set_target_properties(parray PROPERTIES EXPORT_NAME parray)
set_target_properties(parray_shared PROPERTIES EXPORT_NAME parray_shared)
if(PARRAY_SANITIZE)
  # an instrumented runtime needs instrumented programs: say so to users
  target_link_options(parray INTERFACE $<INSTALL_INTERFACE:-fsanitize=address,undefined>)
  target_link_options(parray_shared INTERFACE $<INSTALL_INTERFACE:-fsanitize=address,undefined>)
endif()
install(TARGETS parray parray_shared EXPORT ParrayTargets
        ARCHIVE DESTINATION lib LIBRARY DESTINATION lib
        INCLUDES DESTINATION include)
install(EXPORT ParrayTargets NAMESPACE Parray:: DESTINATION ${PARRAY_INSTALL_CMAKEDIR})
foreach(part mpi cuda mpi_cuda)
  if(TARGET parray_${part})
    set_target_properties(parray_${part} PROPERTIES EXPORT_NAME ${part})
    set_target_properties(parray_${part}_shared PROPERTIES EXPORT_NAME ${part}_shared)
    install(TARGETS parray_${part} parray_${part}_shared EXPORT Parray_${part}Targets COMPONENT ${part}
            ARCHIVE DESTINATION lib LIBRARY DESTINATION lib
            INCLUDES DESTINATION include)
    install(EXPORT Parray_${part}Targets NAMESPACE Parray:: DESTINATION ${PARRAY_INSTALL_CMAKEDIR}
            COMPONENT ${part})
  endif()
endforeach()

# headers and .pc libraries, and the generated version header
install(DIRECTORY include/ DESTINATION include
        FILES_MATCHING PATTERN "*.h" PATTERN "*.cuh" PATTERN "*.pc")
install(FILES ${PARRAY_GENERATED_INCLUDE}/parray/version.h DESTINATION include/parray)

# man pages and documentation (the man pages are optional: written elsewhere)
file(GLOB _parray_man1 ${PROJECT_SOURCE_DIR}/docs/man/*.1)
if(_parray_man1)
  install(FILES ${_parray_man1} DESTINATION share/man/man1)
endif()
# laid out under share/doc/parray as in the source, so that the links between
# them work there too (tests/docs/links.sh checks every one in an installed tree)
install(FILES README.md CHANGELOG.md LICENSE NOTICE DESTINATION share/doc/parray)
install(DIRECTORY docs/ DESTINATION share/doc/parray/docs FILES_MATCHING PATTERN "*.md" PATTERN "*.1")
install(FILES bench/RESULTS.md DESTINATION share/doc/parray/bench)
install(FILES editor/README.md DESTINATION share/doc/parray/editor)
# the example programs, which users build from here with the installed pacc
install(DIRECTORY examples/ DESTINATION share/doc/parray/examples)

# the CMake package
set(PARRAY_PKG_HAVE_NCCL ${PARRAY_HAVE_NCCL})
set(PARRAY_PKG_HAVE_MPI OFF)
set(PARRAY_PKG_HAVE_CUDA OFF)
if(TARGET parray_mpi)
  set(PARRAY_PKG_HAVE_MPI ON)
endif()
if(TARGET parray_cuda)
  set(PARRAY_PKG_HAVE_CUDA ON)
endif()
configure_package_config_file(cmake/ParrayConfig.cmake.in ${CMAKE_BINARY_DIR}/ParrayConfig.cmake
                              INSTALL_DESTINATION ${PARRAY_INSTALL_CMAKEDIR})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/ParrayConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/ParrayConfig.cmake ${CMAKE_BINARY_DIR}/ParrayConfigVersion.cmake
              cmake/ParrayHelpers.cmake
        DESTINATION ${PARRAY_INSTALL_CMAKEDIR})

# pkg-config: parray, and parray-mpi / parray-cuda where built
if(TARGET parray_cuda)
  set(PARRAY_CUDART_DIR ${CUDAToolkit_LIBRARY_DIR})
endif()
set(CMAKE_DL_LIBS_FLAG "")
if(CMAKE_DL_LIBS)
  set(CMAKE_DL_LIBS_FLAG -l${CMAKE_DL_LIBS})
endif()
set(PARRAY_PC_PARTS parray)
if(TARGET parray_mpi)
  list(APPEND PARRAY_PC_PARTS parray-mpi)
endif()
if(TARGET parray_cuda)
  list(APPEND PARRAY_PC_PARTS parray-cuda)
endif()
foreach(pc IN LISTS PARRAY_PC_PARTS)
  configure_file(cmake/${pc}.pc.in ${CMAKE_BINARY_DIR}/pkgconfig/${pc}.pc @ONLY)
  # the install component of the part: parray-mpi in mpi, parray-mpi-cuda in mpi_cuda
  string(REGEX REPLACE "^parray-?" "" _part "${pc}")
  string(REPLACE "-" "_" _part "${_part}")
  if(NOT _part)
    set(_part parray)
  endif()
  install(FILES ${CMAKE_BINARY_DIR}/pkgconfig/${pc}.pc DESTINATION lib/pkgconfig COMPONENT ${_part})
endforeach()
