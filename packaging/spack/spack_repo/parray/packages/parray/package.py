# SPDX-License-Identifier: Apache-2.0
# package.py - the Spack package of pac (the Parray compiler) and libparray,
# in a Spack package repository of its own (packaging/spack; docs/release.md
# says how to use it and how far it was tested).

import os

from spack_repo.builtin.build_systems.cmake import CMakePackage
from spack_repo.builtin.build_systems.cuda import CudaPackage

from spack.package import *


class Parray(CMakePackage, CudaPackage):
    """pac translates Parray (C with array types whose dimensions form a tree, and
    thread arrays of POSIX threads, MPI processes or CUDA grids) to C or CUDA;
    libparray is the runtime its programs link: thread pool, MPI process arrays,
    copy engines and GPU kernels."""

    # The project has no public download address yet: build from a source tree
    # or an unpacked release tarball with `spack develop` (docs/release.md).
    license("Apache-2.0")

    version("0.3.0")

    variant("mpi", default=True, description="Build the MPI runtime (process arrays)")
    variant(
        "nccl",
        default=False,
        when="+cuda+mpi",
        description="Move distributed device arrays through NCCL (loaded at run time)",
    )

    depends_on("c", type="build")
    depends_on("cxx", type="build")
    depends_on("cmake@3.25:", type="build")
    depends_on("flex@2.6:", type="build")
    depends_on("bison@3.8:", type="build")
    depends_on("mpi", when="+mpi")
    depends_on("cuda@12:", when="+cuda")
    depends_on("nccl", when="+nccl")

    def cmake_args(self):
        spec = self.spec
        args = [
            self.define("BUILD_TESTING", False),
            self.define_from_variant("PARRAY_WITH_MPI", "mpi"),
            self.define_from_variant("PARRAY_WITH_CUDA", "cuda"),
            self.define("PARRAY_WITH_NCCL", spec.satisfies("+nccl")),
        ]
        if spec.satisfies("+mpi"):
            args.append(self.define("MPI_C_COMPILER", spec["mpi"].mpicc))
        if spec.satisfies("+cuda"):
            args.append(self.define("CMAKE_CUDA_COMPILER", spec["cuda"].prefix.bin.nvcc))
            archs = spec.variants["cuda_arch"].value
            if archs and "none" not in archs:
                args.append(self.define("CMAKE_CUDA_ARCHITECTURES", ";".join(archs)))
        if spec.satisfies("+nccl"):
            args.append(self.define("NCCL_ROOT", spec["nccl"].prefix))
        return args

    @run_after("install")
    def check_parts(self):
        """The build leaves out a part whose toolchain it does not find: fail then."""
        for part, wanted in (("mpi", "+mpi"), ("cuda", "+cuda"), ("mpi_cuda", "+cuda+mpi")):
            name = "libparray_{0}.a".format(part)
            found = [d for d in ("lib", "lib64") if os.path.exists(join_path(self.prefix, d, name))]
            if self.spec.satisfies(wanted) and not found:
                raise InstallError("parray{0}: {1} was not built".format(wanted, name))
