# SPDX-License-Identifier: Apache-2.0
# mpi.cmake - the mpi thread-array runtime (dispatcher, detours, distributed
# arrays, collective #copy) as the static library parray_mpi. Included by
# runtime/CMakeLists.txt when Open MPI is found.
add_library(parray_mpi STATIC ${CMAKE_CURRENT_LIST_DIR}/mpi.c ${CMAKE_CURRENT_LIST_DIR}/mpi_copy.c
            ${CMAKE_CURRENT_LIST_DIR}/mpi_copy_split.c ${CMAKE_CURRENT_LIST_DIR}/mpi_copy_staged.c
            ${CMAKE_CURRENT_LIST_DIR}/mpi_copy_grouped.c)
target_link_libraries(parray_mpi PUBLIC parray MPI::MPI_C)
target_compile_definitions(parray_mpi PRIVATE _GNU_SOURCE)
