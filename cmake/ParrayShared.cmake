# ParrayShared.cmake - parray_add_shared_twin(NAME): a shared library NAME_shared
# built from the same sources, include folders, definitions and options as
# the static library NAME, installed as libNAME.so.0.2 (soname
# libNAME.so.MAJOR.MINOR: before 1.0 each minor version may change the ABI).
# In the build tree it lies in lib/shared, so that pacc run from the build
# tree (which links with -L lib -lparray) keeps linking the static library.
function(parray_add_shared_twin name)
  get_target_property(srcs ${name} SOURCES)
  get_target_property(defs ${name} COMPILE_DEFINITIONS)
  get_target_property(opts ${name} COMPILE_OPTIONS)
  get_target_property(links ${name} LINK_LIBRARIES)
  get_target_property(srcdir ${name} SOURCE_DIR)
  set(abs "")
  foreach(s IN LISTS srcs)
    if(NOT IS_ABSOLUTE "${s}")
      set(s "${srcdir}/${s}")
    endif()
    list(APPEND abs "${s}")
  endforeach()
  add_library(${name}_shared SHARED ${abs})
  if(defs)
    target_compile_definitions(${name}_shared PRIVATE ${defs})
  endif()
  if(opts)
    target_compile_options(${name}_shared PRIVATE ${opts})
  endif()
  # parray_mpi links parray: its twin links the twin
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
    VERSION ${PROJECT_VERSION}
    SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR}
    LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/lib/shared
    POSITION_INDEPENDENT_CODE ON
    C_VISIBILITY_PRESET default)
endfunction()
