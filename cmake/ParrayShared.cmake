# SPDX-License-Identifier: Apache-2.0
# ParrayShared.cmake - parray_add_shared_twin(NAME): a shared library
# NAME_shared made of the object files of the static library NAME (compiled
# once, position-independent), installed as libNAME.so.MAJOR.MINOR.PATCH with soname
# libNAME.so.MAJOR.MINOR (before 1.0 each minor version may change the ABI).
# In the build tree it lies in lib/shared, so that pacc run from the build
# tree (which links with -L lib -lparray) keeps linking the static library.
# Objects of other (object) libraries that NAME lists among its sources are
# not in $<TARGET_OBJECTS:NAME>: a fragment names them in NAME's property
# PARRAY_EXTRA_OBJECTS so that the twin gets them too.
function(parray_add_shared_twin name)
  set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  get_target_property(extra ${name} PARRAY_EXTRA_OBJECTS)
  if(NOT extra)
    set(extra "")
  endif()
  add_library(${name}_shared SHARED $<TARGET_OBJECTS:${name}> ${extra})
  # the objects alone do not say how to link: as CUDA when any source is CUDA
  get_target_property(srcs ${name} SOURCES)
  set(lang C)
  foreach(s IN LISTS srcs)
    if(s MATCHES "\\.cu$")
      set(lang CUDA)
    endif()
  endforeach()
  # parray_mpi links parray: its twin links the twin
  get_target_property(links ${name} LINK_LIBRARIES)
  set(shared_links "")
  foreach(l IN LISTS links)
    if(l MATCHES "^parray(_mpi|_cuda)?$")
      set(l ${l}_shared)
    endif()
    list(APPEND shared_links ${l})
  endforeach()
  target_link_libraries(${name}_shared PUBLIC ${shared_links})
  if(name STREQUAL "parray")
    get_target_property(incs ${name} INTERFACE_INCLUDE_DIRECTORIES)
    target_include_directories(${name}_shared PUBLIC ${incs})
  endif()
  set_target_properties(${name}_shared PROPERTIES
    OUTPUT_NAME ${name}
    LINKER_LANGUAGE ${lang}
    VERSION ${PROJECT_VERSION}
    SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR}
    LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/lib/shared)
endfunction()
