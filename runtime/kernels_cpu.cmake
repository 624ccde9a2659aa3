# SPDX-License-Identifier: Apache-2.0
# CPU side of the kernel library (elementwise and reductions): the CPU twins
# of the GPU kernels, fp16/bf16 software conversions and workspace sizes.
target_sources(parray PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/cpu/elementwise_cpu.c
  ${CMAKE_CURRENT_LIST_DIR}/cpu/elementwise_half_cpu.c
  ${CMAKE_CURRENT_LIST_DIR}/cpu/reduce_cpu.c)
