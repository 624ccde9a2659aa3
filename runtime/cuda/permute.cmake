# SPDX-License-Identifier: Apache-2.0
# Permute/transpose library, device side: parray_permute_cuda and the device
# copy engine parray_copy_strided_cuda (planner) plus their kernels, and the
# copies by a list of offsets that distributed copies planned at run time use.
target_sources(parray_cuda PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/cuda/copy_strided.cu
                                   ${CMAKE_CURRENT_SOURCE_DIR}/cuda/copy_indexed.cu
                                   ${CMAKE_CURRENT_SOURCE_DIR}/cuda/permute_kernels.cu)
