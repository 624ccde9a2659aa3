# SPDX-License-Identifier: Apache-2.0
# ParrayTranslate.cmake - the second half of the build rule that
# ParrayHelpers.cmake gives a .pc file (cmake -P, after pac wrote its
# translation to IN): reads pac's header line (/* pac: target=c|cuda pthd=N
# mpi=N [sm=90] */), checks that the target links what the translation
# needs, and moves the translation to OUT_C or OUT_CU by its language; the
# other output, when the rule has two, gets a stub without code.
# Variables (-D): IN, SOURCE, TARGET, OUT_C, OUT_CU (empty: no such output),
# CUDA_WHY (what a CUDA translation would need, empty when the target can
# take one), MPI_LINKED, MPI_CUDA_LINKED (ON when the target links
# Parray::mpi, Parray::mpi_cuda), RESTAT
# (ON: an output whose text is unchanged is left untouched, for Ninja's
# restat; otherwise every output is written, as make expects).
cmake_minimum_required(VERSION 3.25)

file(STRINGS "${IN}" head LIMIT_COUNT 3)
if(NOT head MATCHES "/\\* pac: target=([a-z]+) pthd=[0-9]+ mpi=([0-9]+)")
  message(FATAL_ERROR "Parray: pac's translation of ${SOURCE} does not say its target (${head})")
endif()
set(target ${CMAKE_MATCH_1})
set(mpi ${CMAKE_MATCH_2})

if(target STREQUAL "cuda" AND NOT OUT_CU)
  message(FATAL_ERROR "Parray: ${SOURCE} is a CUDA program (GPU types, with the definitions of target "
                      "${TARGET}), but ${TARGET} compiles .pc files as C: this needs ${CUDA_WHY}.")
endif()
if(mpi STREQUAL "1" AND NOT MPI_LINKED)
  message(FATAL_ERROR "Parray: ${SOURCE} uses MPI (an mpi thread array), but ${TARGET} does not link the MPI "
                      "runtime: find_package(Parray ... COMPONENTS mpi) before parray_add_executable or "
                      "parray_target_sources.")
endif()
if(mpi STREQUAL "1" AND target STREQUAL "cuda" AND NOT MPI_CUDA_LINKED)
  message(FATAL_ERROR "Parray: ${SOURCE} uses MPI and CUDA (distributed device arrays), but ${TARGET} does not link "
                      "Parray::mpi_cuda: find_package(Parray ... COMPONENTS mpi cuda) (this Parray needs to be "
                      "built with both).")
endif()

# put(FILE TEXT): write FILE (when RESTAT, only if its text changes)
function(put file text)
  if(RESTAT AND EXISTS "${file}")
    file(READ "${file}" old)
    if(old STREQUAL text)
      return()
    endif()
  endif()
  file(WRITE "${file}" "${text}")
endfunction()

# move(FILE): the translation to FILE
function(move file)
  if(RESTAT)
    file(COPY_FILE "${IN}" "${file}" ONLY_IF_DIFFERENT)
    file(REMOVE "${IN}")
  else()
    file(RENAME "${IN}" "${file}")
  endif()
endfunction()

get_filename_component(name "${SOURCE}" NAME)
if(target STREQUAL "cuda")
  move("${OUT_CU}")
  if(OUT_C)
    # (ISO C wants a declaration in every file)
    put("${OUT_C}" "/* pac: ${name} is CUDA for target ${TARGET}: its translation is ${name}.cu */
typedef int parray_translated_as_cuda;
")
  endif()
else()
  move("${OUT_C}")
  if(OUT_CU)
    put("${OUT_CU}" "/* pac: ${name} is C for target ${TARGET}: its translation is ${name}.c */\n")
  endif()
endif()
