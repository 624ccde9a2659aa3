# SPDX-License-Identifier: Apache-2.0
# sgemm.cmake - adds parray_sgemm (runtime/cuda/sgemm.cu, the kernel template
# in sgemm_kernel.cu) to the CUDA runtime library. With
# -DPARRAY_SGEMM_VARIANTS=ON the extra tile configurations of
# sgemm_variants.cu are built too, for the tuning benchmark
# (bench/sgemm/gpu_run.sh); the default build has only the used ones.
# The Hopper kernel (sgemm_hopper.cu) needs sm_90a, whatever
# CMAKE_CUDA_ARCHITECTURES says: it is an object library of its own compiled
# for that architecture alone (CUDA 12.0 and later; PARRAY_SGEMM_HOPPER=OFF
# leaves it out), whose objects go into parray_cuda and its shared twin.
option(PARRAY_SGEMM_VARIANTS "Build the extra SGEMM tile configurations for tuning" OFF)
option(PARRAY_SGEMM_HOPPER "Build parray_sgemm's sm_90a kernel (TMA, warp-specialised)" ON)
target_sources(parray_cuda PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/cuda/sgemm.cu)
set(_sgemm_defs "")
if(PARRAY_SGEMM_VARIANTS)
  target_sources(parray_cuda PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/cuda/sgemm_variants.cu)
  list(APPEND _sgemm_defs PARRAY_SGEMM_VARIANTS)
endif()
if(PARRAY_SGEMM_HOPPER AND CMAKE_CUDA_COMPILER_VERSION VERSION_GREATER_EQUAL 12.0)
  add_library(parray_sgemm_hopper OBJECT ${CMAKE_CURRENT_SOURCE_DIR}/cuda/sgemm_hopper.cu)
  set_target_properties(parray_sgemm_hopper PROPERTIES CUDA_ARCHITECTURES OFF POSITION_INDEPENDENT_CODE ON
                                                       CUDA_SEPARABLE_COMPILATION OFF)
  target_compile_options(parray_sgemm_hopper PRIVATE -gencode arch=compute_90a,code=sm_90a
                                                     -Xcompiler=-Wall,-Wextra)
  target_link_libraries(parray_sgemm_hopper PRIVATE CUDA::cudart)
  target_sources(parray_cuda PRIVATE $<TARGET_OBJECTS:parray_sgemm_hopper>)
  set_property(TARGET parray_cuda APPEND PROPERTY PARRAY_EXTRA_OBJECTS $<TARGET_OBJECTS:parray_sgemm_hopper>)
  list(APPEND _sgemm_defs PARRAY_SGEMM_HOPPER)
endif()
if(_sgemm_defs)
  set_source_files_properties(${CMAKE_CURRENT_SOURCE_DIR}/cuda/sgemm.cu
                              ${CMAKE_CURRENT_SOURCE_DIR}/cuda/sgemm_variants.cu
                              PROPERTIES COMPILE_DEFINITIONS "${_sgemm_defs}")
endif()
