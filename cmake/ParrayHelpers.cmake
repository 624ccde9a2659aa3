# SPDX-License-Identifier: Apache-2.0
# ParrayHelpers.cmake - building .pc (Parray) sources in a CMake project,
# loaded by ParrayConfig.cmake:
#   parray_add_executable(NAME SOURCES... [LANGUAGE C|CUDA] [PAC_OPTIONS opt...])
#   parray_target_sources(TARGET [PRIVATE|PUBLIC|INTERFACE] SOURCES...
#                         [LANGUAGE C|CUDA] [PAC_OPTIONS opt...])
# Each .pc file is translated by pac at build time into the binary folder
# (parray_gen/TARGET/NAME.pc.c, and NAME.pc.cu), with the target's include
# folders, compile definitions and -D/-U/-I compile options, and with pac's
# dependency file (DEPFILE), so that editing the file, an included .pc
# library or a header translates it again; the configure step never runs
# pac, and editing a .pc file does not configure again.
#
# C or CUDA is decided by that translation (the GPU types the file uses
# with the target's definitions), at build time: where the project has the
# CUDA language enabled and the package its cuda component, the rule writes
# both NAME.pc.c and NAME.pc.cu, the translation into the one of its
# language and a stub without code into the other; elsewhere only
# NAME.pc.c, and a file that turns out to be CUDA stops the build with what
# to change. LANGUAGE fixes the language instead (pac --emit=c|cuda): one
# output, no stub.
#
# A target gets Parray::parray, and every runtime component the package
# loaded that it may need: Parray::mpi when the mpi component was asked
# for, Parray::cuda for CUDA translations, Parray::mpi_cuda with both. A
# translation that needs a part the target lacks (MPI, distributed device
# arrays) stops the build with the find_package line to use.
#
# A translation using the tensor memory accelerator (a tma #copy, SGEMM_TMA;
# pac's header says sm=90) is compiled for sm_90a as pacc does, unless the
# target's CUDA architectures are all 9.0 or later: the helpers put
# parray_nvcc_launcher.sh before the target's CUDA compiler launcher
# (CUDA_COMPILER_LAUNCHER), which changes the architecture flags of such
# files only.
#
# With CMAKE_EXPORT_COMPILE_COMMANDS on, each .pc file also gets an entry in
# compile_commands.json (as C, with the target's include folders and
# definitions) for clangd, through an object library TARGET_pc_index that is
# never built (EXCLUDE_FROM_ALL).
set(_PARRAY_HELPERS_DIR ${CMAKE_CURRENT_LIST_DIR})

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

# _parray_cuda_state(OUT_OK OUT_WHY): whether .pc files may become CUDA
# (the CUDA language enabled and Parray::cuda loaded), and if not, why
function(_parray_cuda_state out_ok out_why)
  get_property(langs GLOBAL PROPERTY ENABLED_LANGUAGES)
  set(why "")
  if(NOT TARGET Parray::cuda)
    if(Parray_HAVE_CUDA)
      set(why "find_package(Parray ... COMPONENTS cuda) (the cuda component was not loaded)")
    else()
      set(why "a Parray built with its CUDA runtime (this one has none)")
    endif()
  endif()
  if(NOT "CUDA" IN_LIST langs)
    if(why)
      string(APPEND why ", and ")
    endif()
    string(APPEND why "the CUDA language: project(... LANGUAGES C CUDA) or enable_language(CUDA) before the helper")
  endif()
  if(why)
    set(${out_ok} OFF PARENT_SCOPE)
  else()
    set(${out_ok} ON PARENT_SCOPE)
  endif()
  set(${out_why} "${why}" PARENT_SCOPE)
endfunction()

# _parray_link(TARGET CUDA): the runtime parts of the loaded components
function(_parray_link target cuda)
  target_link_libraries(${target} PRIVATE Parray::parray)
  if(TARGET Parray::mpi)
    target_link_libraries(${target} PRIVATE Parray::mpi)
  endif()
  if(cuda)
    target_link_libraries(${target} PRIVATE Parray::cuda)
    if(TARGET Parray::mpi_cuda)
      target_link_libraries(${target} PRIVATE Parray::mpi_cuda)
    endif()
    # once per target: the CUDA runtime that Parray::cuda links (shared,
    # CUDA::cudart) rather than CMake's default static one beside it, unless
    # the project chose; and sm_90a for tma translations
    # (parray_nvcc_launcher.sh)
    get_target_property(done ${target} PARRAY_TMA_LAUNCHER)
    if(NOT done)
      get_target_property(rt ${target} CUDA_RUNTIME_LIBRARY)
      if(NOT rt)
        set_target_properties(${target} PROPERTIES CUDA_RUNTIME_LIBRARY Shared)
      endif()
      set(launcher sh ${_PARRAY_HELPERS_DIR}/parray_nvcc_launcher.sh)
      get_target_property(other ${target} CUDA_COMPILER_LAUNCHER)
      if(other)
        list(APPEND launcher ${other}) # ccache, say: run by ours
      endif()
      set_target_properties(${target} PROPERTIES PARRAY_TMA_LAUNCHER ON CUDA_COMPILER_LAUNCHER "${launcher}")
    endif()
  endif()
endfunction()

# _parray_index(TARGET FILE): FILE's compile_commands.json entry, for clangd
function(_parray_index target file)
  get_target_property(exported ${target} EXPORT_COMPILE_COMMANDS)
  if(NOT exported)
    return()
  endif()
  set(index ${target}_pc_index)
  if(NOT TARGET ${index})
    add_library(${index} OBJECT EXCLUDE_FROM_ALL)
    target_include_directories(${index} PRIVATE ${Parray_INCLUDE_DIR}
                               "$<TARGET_PROPERTY:${target},INCLUDE_DIRECTORIES>")
    target_compile_definitions(${index} PRIVATE "$<TARGET_PROPERTY:${target},COMPILE_DEFINITIONS>")
  endif()
  target_sources(${index} PRIVATE ${file})
  set_source_files_properties(${file} PROPERTIES LANGUAGE C)
endfunction()

# _parray_translate(TARGET FILE LANGUAGE PAC_OPTIONS...): the build rule for
# one .pc file (LANGUAGE: AUTO, C or CUDA)
function(_parray_translate target file lang)
  if(NOT EXISTS "${Parray_PAC_EXECUTABLE}")
    message(FATAL_ERROR "Parray: ${file} needs pac, but this Parray was installed without it "
                        "(no ${Parray_PAC_EXECUTABLE})")
  endif()
  _parray_cuda_state(cuda_ok cuda_why)
  if(lang STREQUAL "CUDA" AND NOT cuda_ok)
    message(FATAL_ERROR "Parray: ${file} is to be CUDA (LANGUAGE CUDA), which needs ${cuda_why}")
  endif()
  file(RELATIVE_PATH rel ${CMAKE_CURRENT_SOURCE_DIR} ${file})
  if(rel MATCHES "^\\.\\./")
    get_filename_component(rel ${file} NAME) # outside the source folder
  endif()
  set(base ${CMAKE_CURRENT_BINARY_DIR}/parray_gen/${target}/${rel})
  get_filename_component(outdir ${base} DIRECTORY)
  get_filename_component(srcdir ${file} DIRECTORY)
  set(out_c "")
  set(out_cu "")
  set(emit "")
  if(lang STREQUAL "C")
    set(out_c ${base}.c)
    set(emit --emit=c)
  elseif(lang STREQUAL "CUDA")
    set(out_cu ${base}.cu)
    set(emit --emit=cuda)
  else()
    set(out_c ${base}.c)
    if(cuda_ok)
      set(out_cu ${base}.cu)
    endif()
  endif()
  set(outs ${out_c} ${out_cu})
  list(GET outs 0 primary)
  set(mpi_linked OFF)
  if(TARGET Parray::mpi)
    set(mpi_linked ON)
  endif()
  set(mpi_cuda_linked OFF)
  if(out_cu AND TARGET Parray::mpi_cuda)
    set(mpi_cuda_linked ON)
  endif()
  set(restat OFF) # Ninja skips what depends on an output left unchanged
  if(CMAKE_GENERATOR MATCHES "Ninja")
    set(restat ON)
  endif()
  # the target's include folders, definitions and -D/-U/-I options, as its
  # compiler gets them (evaluated at build time)
  set(incs "$<TARGET_PROPERTY:${target},INCLUDE_DIRECTORIES>")
  set(defs "$<TARGET_PROPERTY:${target},COMPILE_DEFINITIONS>")
  set(opts "$<FILTER:$<TARGET_PROPERTY:${target},COMPILE_OPTIONS>,INCLUDE,^-[DUI].>")
  set(depargs "")
  set(depopts "")
  if(Parray_PAC_HAS_DEPFILE)
    set(depargs DEPFILE ${base}.d)
    set(depopts -MD -MF ${base}.d -MT ${primary})
  endif()
  add_custom_command(OUTPUT ${outs}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${outdir}
    COMMAND ${Parray_PAC_EXECUTABLE} ${emit} ${ARGN} -I${srcdir}
            "$<$<BOOL:${incs}>:-I$<JOIN:${incs},;-I>>" "$<$<BOOL:${defs}>:-D$<JOIN:${defs},;-D>>" "${opts}"
            ${file} -o ${base}.pac ${depopts}
    COMMAND ${CMAKE_COMMAND} -DIN=${base}.pac -DSOURCE=${file} -DTARGET=${target} -DOUT_C=${out_c}
            -DOUT_CU=${out_cu} -DCUDA_WHY=${cuda_why} -DMPI_LINKED=${mpi_linked}
            -DMPI_CUDA_LINKED=${mpi_cuda_linked} -DRESTAT=${restat} -P ${_PARRAY_HELPERS_DIR}/ParrayTranslate.cmake
    DEPENDS ${file} ${Parray_PAC_EXECUTABLE} ${_PARRAY_HELPERS_DIR}/ParrayTranslate.cmake
    ${depargs}
    COMMAND_EXPAND_LISTS VERBATIM
    COMMENT "Translating ${rel} with pac")
  target_sources(${target} PRIVATE ${outs})
  # the translation includes headers from beside the .pc file
  set_property(SOURCE ${outs} APPEND PROPERTY INCLUDE_DIRECTORIES ${srcdir})
  if(out_cu)
    _parray_link(${target} ON)
  else()
    _parray_link(${target} OFF)
  endif()
  _parray_index(${target} ${file})
endfunction()

function(parray_target_sources target)
  cmake_parse_arguments(PARSE_ARGV 1 A "" "LANGUAGE" "PRIVATE;PUBLIC;INTERFACE;PAC_OPTIONS")
  if(NOT TARGET ${target})
    message(FATAL_ERROR "parray_target_sources: no target named '${target}'")
  endif()
  if(NOT A_LANGUAGE)
    set(A_LANGUAGE AUTO)
  endif()
  if(NOT A_LANGUAGE MATCHES "^(C|CUDA|AUTO)$")
    message(FATAL_ERROR "parray_target_sources(${target}): LANGUAGE is C or CUDA, not '${A_LANGUAGE}'")
  endif()
  foreach(f IN LISTS A_UNPARSED_ARGUMENTS A_PRIVATE A_PUBLIC A_INTERFACE)
    get_filename_component(abs ${f} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
    if(abs MATCHES "\\.pc$")
      _parray_translate(${target} ${abs} ${A_LANGUAGE} ${A_PAC_OPTIONS})
    else()
      target_sources(${target} PRIVATE ${abs})
    endif()
  endforeach()
endfunction()

function(parray_add_executable name)
  add_executable(${name})
  parray_target_sources(${name} PRIVATE ${ARGN})
endfunction()
