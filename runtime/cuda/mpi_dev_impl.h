/* SPDX-License-Identifier: Apache-2.0 */
/* mpi_dev_impl.h - what the files of parray_mpi_cuda share: mpi_dev.c
 * (distributed device arrays, the GPU's memory for the copy engine, the
 * service every process runs), mpi_nccl.c (NCCL as the transport between
 * processes) and mpi_peers.c (the direct path: the peers' blocks mapped
 * through CUDA IPC). Private to runtime/cuda; nothing here is public API. */
#ifndef PARRAY_MPI_DEV_IMPL_H
#define PARRAY_MPI_DEV_IMPL_H

#include <cuda_runtime_api.h>
#include <mpi.h>
#include <stdbool.h>

#include "parray/mpi.h"

#if defined(__GNUC__)
#define PDEV_HIDDEN __attribute__((visibility("hidden")))
#else
#define PDEV_HIDDEN
#endif

/* The communicator of this library's own collective steps: a duplicate of
 * MPI_COMM_WORLD, made inside the first service that every process of the
 * job runs. MPI_COMM_NULL with the error text set when it cannot be made. */
PDEV_HIDDEN MPI_Comm pdev_comm(void);

/* mpi_nccl.c. NCCL is loaded at the first use (PARRAY_NCCL_LIBRARY, else the
 * library found when the runtime was built, else libnccl.so.2 on the
 * loader's path); false, with the reason in pdev_nccl_why, when it cannot
 * be (or the runtime was built without NCCL's header). */
PDEV_HIDDEN bool pdev_nccl_available(void);
PDEV_HIDDEN const char *pdev_nccl_why(void);
/* NCCL is not to be used in this job (why: the reason pdev_nccl_why gives). */
PDEV_HIDDEN void pdev_nccl_forbid(const char *why);
/* Collective: whether two processes of the job use one GPU (the same PCI
 * bus id on the same node), with the first such pair in why. */
PDEV_HIDDEN bool pdev_gpus_shared(int gpu, char *why, size_t n);
/* Send and receive the messages in one NCCL group on stream s; the job's
 * communicator is made at the first call, which every process of the job
 * makes together (the current GPU must be this process's). */
PDEV_HIDDEN parray_status pdev_nccl_exchange(cudaStream_t s, const parray_mpi_message *msgs, int n);

/* mpi_peers.c. Per process q of the job, q's block of the distributed dmem
 * array `handle` as this process reaches it: its own block `mine` for
 * itself, a CUDA IPC mapping for a process of the same node (same
 * NCCL_HOSTID, else the same processor name) whose GPU this one can reach,
 * NULL otherwise. Made at the first call for the array, which every process
 * of the job makes together; NULL with the error text set on failure. */
PDEV_HIDDEN void *const *pdev_peers(int handle, void *mine, int gpu);
/* Every process of the job together, before the blocks of `handle` are
 * freed: close this process's mappings of them. */
PDEV_HIDDEN void pdev_peers_forget(int handle);

#endif
