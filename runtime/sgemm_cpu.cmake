# SPDX-License-Identifier: Apache-2.0
# sgemm_cpu.cmake - adds the CPU single-precision matrix product
# (parray_sgemm_cpu, include/parray/sgemm.h) to the C runtime library.
target_sources(parray PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/cpu/sgemm_cpu.c)
