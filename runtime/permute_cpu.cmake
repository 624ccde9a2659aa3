# SPDX-License-Identifier: Apache-2.0
# Permute/transpose library, host side: the shared dimension normaliser and
# parray_permute_cpu (on top of the CPU copy engine in copy_cpu.c).
target_sources(parray PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/cpu/permute_cpu.c)
