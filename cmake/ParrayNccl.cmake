# SPDX-License-Identifier: Apache-2.0
# ParrayNccl.cmake - finds NCCL, the transport of distributed device arrays
# between processes (runtime/cuda/mpi_nccl.c). Its header is needed at build
# time; its library is loaded when a program first moves data between GPUs,
# so a program built here runs where NCCL is missing too (on the staged
# path). Searched in order: -DNCCL_ROOT= (or the NCCL_ROOT environment
# variable), the CUDA toolkit, the system, and the PyPI wheel
# nvidia-nccl-cu13 (its nvidia/nccl folder, as tools/deps.sh installs it).
# Sets PARRAY_HAVE_NCCL, NCCL_INCLUDE_DIR, NCCL_LIBRARY (the library loaded
# by default) and PARRAY_NCCL_VERSION.
option(PARRAY_WITH_NCCL "Use NCCL for distributed device arrays when it is found" ON)
set(PARRAY_HAVE_NCCL OFF)
if(NOT PARRAY_WITH_NCCL OR NOT PARRAY_HAVE_CUDA OR NOT PARRAY_HAVE_MPI)
  return()
endif()
set(_nccl_roots ${NCCL_ROOT} $ENV{NCCL_ROOT})
set(_nccl_late "")
find_program(PARRAY_PYTHON3 python3)
if(PARRAY_PYTHON3)
  execute_process(COMMAND ${PARRAY_PYTHON3} -c "import nvidia.nccl as n; print(list(n.__path__)[0])"
                  OUTPUT_VARIABLE _nccl_wheel OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE _rc)
  if(_rc EQUAL 0 AND _nccl_wheel)
    list(APPEND _nccl_late ${_nccl_wheel})
  endif()
endif()
find_path(NCCL_INCLUDE_DIR nccl.h HINTS ${_nccl_roots} PATH_SUFFIXES include
          PATHS ${CUDAToolkit_INCLUDE_DIRS} /usr/include ${_nccl_late}/include)
find_library(NCCL_LIBRARY NAMES nccl libnccl.so.2 HINTS ${_nccl_roots} PATH_SUFFIXES lib lib64
             PATHS ${CUDAToolkit_LIBRARY_DIR} ${_nccl_late}/lib)
if(NCCL_INCLUDE_DIR)
  file(STRINGS ${NCCL_INCLUDE_DIR}/nccl.h _v REGEX "^#define NCCL_(MAJOR|MINOR|PATCH) ")
  string(REGEX REPLACE ".*NCCL_MAJOR ([0-9]+).*NCCL_MINOR ([0-9]+).*NCCL_PATCH ([0-9]+).*" "\\1.\\2.\\3"
         PARRAY_NCCL_VERSION "${_v}")
  set(PARRAY_HAVE_NCCL ON)
  if(NCCL_LIBRARY)
    get_filename_component(NCCL_LIBRARY_REAL ${NCCL_LIBRARY} REALPATH)
  endif()
  message(STATUS "pac: NCCL ${PARRAY_NCCL_VERSION} (${NCCL_INCLUDE_DIR}; library ${NCCL_LIBRARY_REAL})")
else()
  message(STATUS "pac: NCCL not found (set NCCL_ROOT, or pip install nvidia-nccl-cu13); distributed device arrays "
                 "move through host memory")
endif()
