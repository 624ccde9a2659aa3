/* SPDX-License-Identifier: Apache-2.0 */
/* runtime_names.h - every name of the runtime library (include/parray.h,
 * the headers under include/parray) that generated code uses, and the conventions of the
 * names pac generates, each spelled once here. The emitters (and the one
 * lowering helper that puts a runtime body in the mpi body table) write
 * them through these macros, never as text of their own, so that grep for
 * a macro finds every place that prints a call of it. They are string
 * literals: "..." RT_X "(...)" pastes them into a format. */
#ifndef PAC_RUNTIME_NAMES_H
#define PAC_RUNTIME_NAMES_H

/* types and status values (parray.h) */
#define RT_INT64_T "parray_int64_t"
#define RT_SIZE_T "parray_size_t"
#define RT_LOC "parray_loc"
#define RT_OK "PARRAY_OK"
#define RT_TEAM "parray_team"
#define RT_MPI_SIDE "parray_mpi_side"
#define RT_PAGED "PARRAY_PAGED"
#define RT_PINNED "PARRAY_PINNED"
#define RT_DMEM "PARRAY_DMEM"
#define RT_SMEM "PARRAY_SMEM"
#define RT_RMEM "PARRAY_RMEM"

/* errors and sites */
#define RT_FATAL_AT "parray_fatal_at"
#define RT_LAST_ERROR "parray_last_error"
#define RT_SITE_ENTER "parray_site_enter"
#define RT_SITE_RESTORE "parray_site_restore"
#define RT_BYTES_AT "parray_bytes_at"
#define RT_BYTES_DIMS_AT "parray_bytes_dims_at"

/* the program */
#define RT_INIT "parray_init"
#define RT_FINISH "parray_finish"
#define RT_PTHD_SHUTDOWN "parray_pthd_shutdown"
#define RT_MPI_MAIN "parray_mpi_main"
#define RT_MPI_PROGRAM "parray_mpi_program"
#define RT_MPI_BODY "parray_mpi_body"

/* pthd and mpi detours */
#define RT_PTHD_RUN "parray_pthd_run"
#define RT_TEAM_SYNC "parray_team_sync"
#define RT_TEAM_SIZE "parray_team_size"
#define RT_MPI_DETOUR "parray_mpi_detour"
#define RT_MPI_SYNC "parray_mpi_sync"
#define RT_MPI_REDUCE_GATHER "parray_mpi_reduce_gather"
#define RT_MPI_SCAN_GATHER "parray_mpi_scan_gather"
#define RT_MPI_SCAN_FREE "parray_mpi_scan_free"

/* host memory and copies */
#define RT_CREATE_HOST "parray_create_host"
#define RT_DESTROY_HOST "parray_destroy_host"
#define RT_COPY_STRIDED_CPU "parray_copy_strided_cpu"

/* distributed arrays (mpi) */
#define RT_MPI_CREATE "parray_mpi_create"
#define RT_MPI_CREATE_DEV "parray_mpi_create_dev"
#define RT_MPI_DESTROY "parray_mpi_destroy"
#define RT_MPI_DESTROY_DEV "parray_mpi_destroy_dev"
#define RT_MPI_LOCAL "parray_mpi_local"
#define RT_MPI_DEV_LOCAL "parray_mpi_dev_local"
#define RT_MPI_COPY "parray_mpi_copy"
#define RT_MPI_COPY_DEV "parray_mpi_copy_dev"
#define RT_MPI_COPY_SPLIT "parray_mpi_copy_split"
#define RT_MPI_COPY_SPLIT_DEV "parray_mpi_copy_split_dev"

/* cuda */
#define RT_CUDA_CREATE "parray_cuda_create"
#define RT_CUDA_DESTROY "parray_cuda_destroy"
#define RT_CUDA_COPY "parray_cuda_copy"
#define RT_CUDA_MEMCPY "parray_cuda_memcpy"
#define RT_CUDA_WAIT "parray_cuda_wait"
#define RT_CUDA_WAIT_PENDING "parray_cuda_wait_pending"
#define RT_CUDA_LAUNCHED "parray_cuda_launched"
#define RT_CUDA_CHECK_LAUNCH "parray_cuda_check_launch"
#define RT_CUDA_CHECK_HOME "parray_cuda_check_home"
#define RT_CUDA_LAUNCH_COOPERATIVE "parray_cuda_launch_cooperative"
#define RT_CUDA_SHARED_SIZE "parray_cuda_shared_size"
#define RT_CUDA_TENSOR_MAP "parray_cuda_tensor_map"
#define RT_CUDA_REDUCE_SCRATCH "parray_cuda_reduce_scratch"
#define RT_CUDA_REDUCE_RESULT "parray_cuda_reduce_result"
#define RT_CUDA_REDUCE_FILL "parray_cuda_reduce_fill"
#define RT_CUDA_REDUCE_STAGE "parray_cuda_reduce_stage"
/* reduce clauses in kernels (parray/reduce.cuh): a block's reduction, the second pass, the operators */
#define RT_RED_BLOCK "parray_red_block"
#define RT_RED_FINISH "parray_red_finish"
#define RT_RED_UNORDERED "parray_red_unordered"
#define RT_RED_OP "parray_red_"
#define RT_RED_FN "parray_red_fn"
/* scan(...) in kernels (parray/reduce.cuh) */
#define RT_SCAN_STATE "parray_scan_state"
#define RT_SCAN_TICKET "parray_scan_ticket"
#define RT_CUDA_SCAN_TOTALS "parray_cuda_scan_totals"
#define RT_CUDA_SCAN_WAIT "parray_cuda_scan_wait"
/* a folded kernel (plan_detour.fold): its grid of about one wave, and a block's place in the detour's grid */
#define RT_CUDA_FOLD_GRID "parray_cuda_fold_grid"
#define RT_FOLD_BLOCK "parray_fold_block"
#define RT_SCAN_BLOCK "parray_scan_block"
#define RT_SCAN_POINT "parray_scan_point"
#define RT_CUDA_SCAN_SCRATCH "parray_cuda_scan_scratch"
#define RT_VALUE_BYTES "parray_value_bytes"
#define RT_TO_BYTES "parray_to_bytes"
#define RT_PRIM "parray_prim"

/* profiler ranges (NVTX) of directives */
#define RT_RANGE "parray_range"
#define RT_RANGE_PUSH "parray_range_push"
#define RT_RANGE_POP "parray_range_pop"

/* the checked arithmetic of run-time sizes: RT_CK_PREFIX + add, sub, mul,
 * div, mod (parray_ck_add, ...; sema's ex_print_calls appends the operation) */
#define RT_CK_PREFIX "parray_ck_"
/* the mpi body of the runtime that serves the processes' GPUs (distributed dmem arrays) */
#define RT_MPI_DEV_SERVICE "parray_mpi_dev_service"

/* ---- names pac generates (all begin with parray__, which programs must not use) ---- */
/* the runtime handle of the distributed array in variable V: GEN_HANDLE "V" */
#define GEN_HANDLE "parray__h_"
/* in an outlined mpi body: this process's block of the distributed array captured as field F */
#define GEN_LOCAL "parray__l_"
/* a reduction variable's partials array and initial value (emit_reduce.c) */
#define GEN_RED_PARTS "parray__rp_"
#define GEN_RED_INIT "parray__ri_"
#define GEN_RED_START "parray__rv_" /* a scan variable's value, where the prefixes start */
#define GEN_RED_TOTAL "parray__rt_" /* a scan variable's total, written by the last block (pinned host memory) */
#define GEN_SCAN_EPOCH "parray__ep" /* a kernel's scan epoch (parray/reduce.cuh) */
#define GEN_SCAN_TICKET "parray__vb" /* a kernel's block in the order blocks started; +"s": the counter */
#define GEN_FOLD_GRID "parray__vgrid" /* a folded kernel: the detour's grid (a parameter) */
#define GEN_FOLD_INDEX "parray__fv"   /* ... and the linear index of the block it stands for */
#define GEN_LAUNCH_ARG "parray__a" /* + k: a launch's local holding its k-th argument (plan_detour.bind_args) */
/* the static parray_range of a directive's profiler range (GEN_RANGE "_V": of the #create that declares V) */
#define GEN_RANGE "parray__range"
/* a file-scope function or table for a construct: printf pattern of (what, type, line) (lw_fresh_name) */
#define GEN_FRESH_FMT "parray__%s_%s_L%d"

#endif
