# SPDX-License-Identifier: Apache-2.0
# pthd.cmake - the pthd thread-array runtime (thread pool, detours, #sync
# barrier) in the CPU library.  Included by runtime/CMakeLists.txt.
target_sources(parray PRIVATE ${CMAKE_CURRENT_LIST_DIR}/pthd.c)
