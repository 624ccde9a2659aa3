# sgemm.cmake - adds parray_sgemm (runtime/cuda/sgemm.cu, the kernel template
# in sgemm_kernel.cu) to the CUDA runtime library. With
# -DPARRAY_SGEMM_VARIANTS=ON the extra tile configurations of
# sgemm_variants.cu are built too, for the tuning benchmark
# (bench/sgemm/gpu_run.sh); the default build has only the two used ones.
option(PARRAY_SGEMM_VARIANTS "Build the extra SGEMM tile configurations for tuning" OFF)
target_sources(parray_cuda PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/cuda/sgemm.cu)
if(PARRAY_SGEMM_VARIANTS)
  target_sources(parray_cuda PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/cuda/sgemm_variants.cu)
  set_source_files_properties(${CMAKE_CURRENT_SOURCE_DIR}/cuda/sgemm.cu
                              ${CMAKE_CURRENT_SOURCE_DIR}/cuda/sgemm_variants.cu
                              PROPERTIES COMPILE_DEFINITIONS PARRAY_SGEMM_VARIANTS)
endif()
