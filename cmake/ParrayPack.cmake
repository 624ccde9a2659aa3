# SPDX-License-Identifier: Apache-2.0
# ParrayPack.cmake - the binary packages CPack builds from the install rules
# (`cpack --config BUILD/CPackConfig.cmake`, or tools/release.sh; the files
# land in BUILD/packages):
#   TGZ  parray-VERSION-Linux-ARCH.tar.gz: the whole install tree, relocatable
#        (pac, pacc and the CMake and pkg-config packages find everything
#        relative to their own place)
#   DEB  one Debian package per install component, installing into /usr:
#          parray           pac, pacc, libparray, headers, CMake and pkg-config
#                           packages, docs, examples, editor files
#          parray-mpi       libparray_mpi (MPI process arrays); Depends on
#                           Open MPI's development files and mpirun
#          parray-cuda      libparray_cuda (device arrays, GPU kernels)
#          parray-mpi-cuda  libparray_mpi_cuda (distributed device arrays)
#        The CUDA packages only recommend the CUDA toolkit (NVIDIA's
#        cuda-nvcc-X-Y and cuda-cudart-dev-X-Y of the version built with, or
#        Debian's nvidia-cuda-toolkit): it is often installed outside dpkg
#        (NVIDIA's runfile, a container image), where a Depends could not be
#        met. docs/release.md says more.
# Included last from the top CMakeLists.txt, once every install() rule is
# known (CPack takes the list of components from them).
set(CPACK_PACKAGE_NAME parray)
set(CPACK_PACKAGE_VENDOR "The pac authors")
set(CPACK_PACKAGE_CONTACT "The pac authors") # the Maintainer field of the .deb files
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION
    "pac translates Parray, C with array types whose dimensions form a tree and thread arrays of POSIX threads, MPI processes or CUDA grids, to C or CUDA; pacc compiles and links it with libparray.")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_RESOURCE_FILE_README ${PROJECT_SOURCE_DIR}/README.md)
set(CPACK_PACKAGE_DIRECTORY ${CMAKE_BINARY_DIR}/packages)
set(CPACK_PACKAGE_FILE_NAME parray-${PROJECT_VERSION}-${CMAKE_SYSTEM_NAME}-${CMAKE_SYSTEM_PROCESSOR})
set(CPACK_GENERATOR TGZ DEB)
set(CPACK_SOURCE_GENERATOR "") # the source tarball is `git archive` (tools/release.sh)

# the archive: everything in one relocatable tree
set(CPACK_ARCHIVE_COMPONENT_INSTALL OFF)

# Debian: a package per component, named parray_VERSION_ARCH.deb and so on
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_ENABLE_COMPONENT_DEPENDS ON) # a part Depends on parray (= VERSION)
find_program(PARRAY_DPKG_SHLIBDEPS dpkg-shlibdeps)
mark_as_advanced(PARRAY_DPKG_SHLIBDEPS)
if(PARRAY_DPKG_SHLIBDEPS)
  # libc6 and libopenmpi from the libraries' own links
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
  # libparray.so, which the parts link, is in the package parray: found in
  # the build tree, it adds no dependency of its own (the parts Depends on
  # parray already)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${CMAKE_BINARY_DIR}/lib/shared)
endif()
set(CPACK_DEBIAN_PARRAY_PACKAGE_NAME parray)
# pacc runs the C compiler, and readelf to see what objects need
set(CPACK_DEBIAN_PARRAY_PACKAGE_DEPENDS "gcc | c-compiler, binutils")
set(CPACK_DEBIAN_PARRAY_PACKAGE_RECOMMENDS "cmake, pkgconf | pkg-config, make")
set(CPACK_DEBIAN_MPI_PACKAGE_NAME parray-mpi)
# pacc compiles MPI programs with mpicc and the docs run them with mpirun
set(CPACK_DEBIAN_MPI_PACKAGE_DEPENDS "libopenmpi-dev, openmpi-bin")
if(PARRAY_HAVE_CUDA)
  string(REGEX MATCH "^([0-9]+)\\.([0-9]+)" _cuda_mm "${CMAKE_CUDA_COMPILER_VERSION}")
  set(_cuda "${CMAKE_MATCH_1}-${CMAKE_MATCH_2}")
  set(_cuda_recommends "cuda-nvcc-${_cuda} | nvidia-cuda-toolkit, cuda-cudart-dev-${_cuda} | nvidia-cuda-toolkit")
  foreach(part CUDA MPI_CUDA)
    # libcudart belongs to no Debian package where CUDA came from NVIDIA's
    # installer: dpkg-shlibdeps would fail on it
    set(CPACK_DEBIAN_${part}_PACKAGE_SHLIBDEPS OFF)
    set(CPACK_DEBIAN_${part}_PACKAGE_RECOMMENDS "${_cuda_recommends}")
  endforeach()
  set(CPACK_DEBIAN_CUDA_PACKAGE_NAME parray-cuda)
  set(CPACK_DEBIAN_MPI_CUDA_PACKAGE_NAME parray-mpi-cuda)
endif()

# each package's synopsis, then its long description (no summary is set for
# the whole: CPack would put it first in each)
set(CPACK_DEBIAN_PARRAY_DESCRIPTION "Parray compiler (C with array types) to C or CUDA, and its runtime
pac translates Parray, C with array types whose dimensions form a tree and
thread arrays of POSIX threads, MPI processes or CUDA grids, to C or CUDA;
pacc compiles and links it with libparray. This package has pac, pacc, the
CPU runtime, the headers, the CMake and pkg-config packages, the docs and
the examples.")
set(CPACK_DEBIAN_MPI_DESCRIPTION "Parray MPI runtime (process arrays)
libparray_mpi: the runtime of pac's mpi thread arrays, distributed arrays and
their collective copies, over Open MPI.")
set(CPACK_DEBIAN_CUDA_DESCRIPTION "Parray CUDA runtime (device arrays, GPU kernels)
libparray_cuda: device arrays, copies and the GPU kernel library for programs
generated by pac. Needs the CUDA toolkit it was built with.")
set(CPACK_DEBIAN_MPI_CUDA_DESCRIPTION "Parray MPI + CUDA runtime (distributed device arrays)
libparray_mpi_cuda: arrays distributed over the GPUs of MPI processes, moved
through NCCL (loaded when present) or pinned host memory.")
include(CPack)
cpack_add_component(parray DISPLAY_NAME "pac and libparray" REQUIRED
  DESCRIPTION "pac, pacc, the CPU runtime libparray, headers, CMake and pkg-config packages, docs and examples")
if(TARGET parray_mpi)
  cpack_add_component(mpi DISPLAY_NAME "MPI runtime" DEPENDS parray
    DESCRIPTION "libparray_mpi: the runtime of mpi thread arrays (process arrays, distributed arrays) for pac")
endif()
if(TARGET parray_cuda)
  cpack_add_component(cuda DISPLAY_NAME "CUDA runtime" DEPENDS parray
    DESCRIPTION "libparray_cuda: device arrays, copies and GPU kernels for programs generated by pac")
endif()
if(TARGET parray_mpi_cuda)
  cpack_add_component(mpi_cuda DISPLAY_NAME "MPI + CUDA runtime" DEPENDS mpi cuda
    DESCRIPTION "libparray_mpi_cuda: distributed device arrays (MPI processes with GPUs) for pac")
endif()
