# SPDX-License-Identifier: Apache-2.0
# GPU side of the kernel library (elementwise and reductions). One file per
# kernel family so a parallel build compiles them side by side.
target_sources(parray_cuda PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/elementwise_common.cu
  ${CMAKE_CURRENT_LIST_DIR}/elementwise_binary.cu
  ${CMAKE_CURRENT_LIST_DIR}/elementwise_unary.cu
  ${CMAKE_CURRENT_LIST_DIR}/elementwise_cast.cu
  ${CMAKE_CURRENT_LIST_DIR}/reduce_common.cu
  ${CMAKE_CURRENT_LIST_DIR}/reduce_all.cu
  ${CMAKE_CURRENT_LIST_DIR}/reduce_rows.cu
  ${CMAKE_CURRENT_LIST_DIR}/reduce_cols.cu)
