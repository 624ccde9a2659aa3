# ParrayHelpers.cmake - building .pc (Parray) sources in a CMake project,
# loaded by ParrayConfig.cmake:
#   parray_add_executable(NAME main.pc util.c ... [PAC_OPTIONS opt...])
#   parray_target_sources(TARGET [PRIVATE] a.pc b.c ... [PAC_OPTIONS opt...])
# Each .pc file is translated by pac at build time into the binary folder
# (NAME.pc.c, or NAME.pc.cu for a CUDA program), with the target's include
# folders and definitions, and with pac's dependency file (DEPFILE) so that
# editing an included .pc library or header translates it again. Whether a
# file is C or CUDA and whether it uses MPI is asked of pac when the project
# is configured (the second line of its output: /* pac: target=... mpi=... */);
# the target is then linked with the runtime pieces it needs.

# pac writes make-style dependency files when its --help names -MF
if(NOT DEFINED Parray_PAC_HAS_DEPFILE AND EXISTS "${Parray_PAC_EXECUTABLE}")
  execute_process(COMMAND ${Parray_PAC_EXECUTABLE} --help OUTPUT_VARIABLE _parray_help
                  ERROR_VARIABLE _parray_help RESULT_VARIABLE _parray_rc)
  if(_parray_help MATCHES "-MF")
    set(Parray_PAC_HAS_DEPFILE ON)
  else()
    set(Parray_PAC_HAS_DEPFILE OFF)
  endif()
endif()

# _parray_probe(FILE TARGET OUT_CUDA OUT_MPI): translate FILE once at
# configure time and read which target and runtime pieces it needs.
function(_parray_probe file target out_cuda out_mpi)
  if(NOT EXISTS "${Parray_PAC_EXECUTABLE}")
    message(FATAL_ERROR "Parray: ${file} needs pac, but this Parray was installed without it "
                        "(no ${Parray_PAC_EXECUTABLE})")
  endif()
  get_target_property(incs ${target} INCLUDE_DIRECTORIES)
  get_filename_component(dir "${file}" DIRECTORY)
  set(args -I${dir} -I${Parray_INCLUDE_DIR})
  foreach(i IN LISTS incs)
    if(i AND NOT i MATCHES "\\$<")
      list(APPEND args -I${i})
    endif()
  endforeach()
  set(probe ${CMAKE_CURRENT_BINARY_DIR}/CMakeFiles/parray_probe.txt)
  execute_process(COMMAND ${Parray_PAC_EXECUTABLE} ${ARGN} ${args} --no-line ${file} -o ${probe}
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "Parray: pac cannot translate ${file} (to learn whether it is C or CUDA):\n${err}")
  endif()
  file(STRINGS ${probe} head LIMIT_COUNT 2)
  file(REMOVE ${probe})
  if(NOT head MATCHES "/\\* pac: target=([a-z]+) pthd=[0-9]+ mpi=([0-9]+)")
    message(FATAL_ERROR "Parray: pac's translation of ${file} does not say its target (${head})")
  endif()
  if(CMAKE_MATCH_1 STREQUAL "cuda")
    set(${out_cuda} ON PARENT_SCOPE)
  else()
    set(${out_cuda} OFF PARENT_SCOPE)
  endif()
  if(CMAKE_MATCH_2 STREQUAL "1")
    set(${out_mpi} ON PARENT_SCOPE)
  else()
    set(${out_mpi} OFF PARENT_SCOPE)
  endif()
  # the answer changes with the file: configure again when it is edited
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${file})
endfunction()

# _parray_link(TARGET CUDA MPI FILE): the runtime pieces a translated file needs
function(_parray_link target cuda mpi file)
  target_link_libraries(${target} PRIVATE Parray::parray)
  if(mpi)
    if(NOT TARGET Parray::mpi)
      message(FATAL_ERROR "Parray: ${file} uses MPI but this Parray was installed without its MPI runtime")
    endif()
    target_link_libraries(${target} PRIVATE Parray::mpi)
  endif()
  if(cuda)
    if(NOT TARGET Parray::cuda)
      message(FATAL_ERROR "Parray: ${file} uses CUDA but this Parray was installed without its CUDA runtime")
    endif()
    get_property(langs GLOBAL PROPERTY ENABLED_LANGUAGES)
    if(NOT "CUDA" IN_LIST langs)
      message(FATAL_ERROR "Parray: ${file} is a CUDA program: enable the CUDA language first "
                          "(project(... LANGUAGES C CUDA) or enable_language(CUDA))")
    endif()
    target_link_libraries(${target} PRIVATE Parray::cuda)
  endif()
endfunction()

# _parray_translate(TARGET FILE PAC_OPTIONS...): the build rule for one .pc file
function(_parray_translate target file)
  _parray_probe(${file} ${target} cuda mpi ${ARGN})
  file(RELATIVE_PATH rel ${CMAKE_CURRENT_SOURCE_DIR} ${file})
  if(rel MATCHES "^\\.\\./")
    get_filename_component(rel ${file} NAME) # outside the source folder
  endif()
  set(ext c)
  if(cuda)
    set(ext cu)
  endif()
  set(out ${CMAKE_CURRENT_BINARY_DIR}/parray_gen/${target}/${rel}.${ext})
  get_filename_component(outdir ${out} DIRECTORY)
  get_filename_component(srcdir ${file} DIRECTORY)
  set(incs "$<TARGET_PROPERTY:${target},INCLUDE_DIRECTORIES>")
  set(defs "$<TARGET_PROPERTY:${target},COMPILE_DEFINITIONS>")
  set(depargs "")
  if(Parray_PAC_HAS_DEPFILE)
    set(depargs DEPFILE ${out}.d)
    set(depopts -MD -MF ${out}.d -MT ${out})
  endif()
  add_custom_command(OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${outdir}
    COMMAND ${Parray_PAC_EXECUTABLE} ${ARGN} -I${srcdir} -I${Parray_INCLUDE_DIR}
            "$<$<BOOL:${incs}>:-I$<JOIN:${incs},;-I>>" "$<$<BOOL:${defs}>:-D$<JOIN:${defs},;-D>>"
            ${file} -o ${out} ${depopts}
    DEPENDS ${file} ${Parray_PAC_EXECUTABLE}
    ${depargs}
    COMMAND_EXPAND_LISTS VERBATIM
    COMMENT "Translating ${rel} with pac")
  target_sources(${target} PRIVATE ${out})
  # the translation includes headers from beside the .pc file
  set_property(SOURCE ${out} APPEND PROPERTY INCLUDE_DIRECTORIES ${srcdir})
  _parray_link(${target} ${cuda} ${mpi} ${file})
endfunction()

function(parray_target_sources target)
  cmake_parse_arguments(PARSE_ARGV 1 A "" "" "PRIVATE;PUBLIC;INTERFACE;PAC_OPTIONS")
  if(NOT TARGET ${target})
    message(FATAL_ERROR "parray_target_sources: no target named '${target}'")
  endif()
  foreach(f IN LISTS A_UNPARSED_ARGUMENTS A_PRIVATE A_PUBLIC A_INTERFACE)
    get_filename_component(abs ${f} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
    if(abs MATCHES "\\.pc$")
      _parray_translate(${target} ${abs} ${A_PAC_OPTIONS})
    else()
      target_sources(${target} PRIVATE ${abs})
    endif()
  endforeach()
endfunction()

function(parray_add_executable name)
  add_executable(${name})
  parray_target_sources(${name} PRIVATE ${ARGN})
endfunction()
