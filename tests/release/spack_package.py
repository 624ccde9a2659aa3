"""spack_package.py - checks packaging/spack's package.py without Spack (which
is not installable from the package registries this project's machines reach):
it compiles, and loaded against small stand-ins for Spack's directives and
build systems it declares the variants +mpi +cuda +nccl and their dependencies,
names the project's version first, passes CMake only options the project has,
turns each variant into the right -D options, and fails an install that lacks
a part a variant asks for.
  python3 spack_package.py SOURCE_DIR VERSION
"""
import os
import py_compile
import re
import sys
import tempfile
import types

src, want_version = sys.argv[1], sys.argv[2]
pkg_file = os.path.join(src, "packaging/spack/spack_repo/parray/packages/parray/package.py")
failures = []


def check(cond, what):
    print(("ok:   " if cond else "FAIL: ") + what)
    if not cond:
        failures.append(what)


py_compile.compile(pkg_file, doraise=True, cfile=os.path.join(tempfile.mkdtemp(), "p.pyc"))
print("ok:   package.py compiles")

# --- stand-ins for Spack ------------------------------------------------------
directives = {"variant": [], "depends_on": [], "version": [], "license": [], "conflicts": []}


def directive(kind):
    def record(*args, **kw):
        directives[kind].append((args, kw))
    return record


class InstallError(Exception):
    pass


def run_after(_phase):
    return lambda f: f


class Variant:
    def __init__(self, value):
        self.value = value


class Spec:
    """variants: a dict name -> bool or tuple; satisfies('+a~b') on those alone"""

    def __init__(self, variants, deps=None):
        self.variants = {k: Variant(v) for k, v in variants.items()}
        self.deps = deps or {}

    def satisfies(self, s):
        for sign, name in re.findall(r"([+~])(\w+)", s):
            if bool(self.variants[name].value) != (sign == "+"):
                return False
        return True

    def __getitem__(self, name):
        return self.deps[name]


class Prefix(str):
    def __getattr__(self, part):
        return Prefix(os.path.join(self, part))


class CMakePackage:
    def __init__(self, spec, prefix="/nonexistent"):
        self.spec = spec
        self.prefix = Prefix(prefix)

    @staticmethod
    def define(name, value):
        if isinstance(value, bool):
            value = "ON" if value else "OFF"
        elif isinstance(value, (list, tuple)):
            value = ";".join(value)
        return "-D{0}={1}".format(name, value)

    def define_from_variant(self, name, variant):
        return self.define(name, bool(self.spec.variants[variant].value))


class CudaPackage:
    pass


directive("variant")("cuda", default=False, description="CudaPackage's")
directive("variant")("cuda_arch", values=("none",), description="CudaPackage's")

spack_package = types.ModuleType("spack.package")
for kind in directives:
    setattr(spack_package, kind, directive(kind))
spack_package.InstallError = InstallError
spack_package.run_after = run_after
spack_package.join_path = os.path.join
spack_package.__all__ = list(directives) + ["InstallError", "run_after", "join_path"]
modules = {
    "spack": types.ModuleType("spack"),
    "spack.package": spack_package,
    "spack_repo": types.ModuleType("spack_repo"),
    "spack_repo.builtin": types.ModuleType("spack_repo.builtin"),
    "spack_repo.builtin.build_systems": types.ModuleType("spack_repo.builtin.build_systems"),
    "spack_repo.builtin.build_systems.cmake": types.ModuleType("cmake"),
    "spack_repo.builtin.build_systems.cuda": types.ModuleType("cuda"),
}
modules["spack_repo.builtin.build_systems.cmake"].CMakePackage = CMakePackage
modules["spack_repo.builtin.build_systems.cuda"].CudaPackage = CudaPackage
sys.modules.update(modules)

ns = {"__name__": "spack_repo.parray.packages.parray.package"}
exec(compile(open(pkg_file).read(), pkg_file, "exec"), ns)
Parray = ns["Parray"]

# --- what the package declares -----------------------------------------------
variants = {a[0]: kw for a, kw in directives["variant"]}
check({"mpi", "cuda", "nccl"} <= set(variants), "variants mpi, cuda, nccl: " + ", ".join(sorted(variants)))
check(variants.get("nccl", {}).get("when") == "+cuda+mpi", "nccl exists only with +cuda+mpi")
versions = [a[0] for a, _ in directives["version"]]
check(versions[:1] == [want_version], "the newest version is {0} (got {1})".format(want_version, versions))
check(("Apache-2.0",) in [a for a, _ in directives["license"]], "licence Apache-2.0")
deps = {(a[0].split("@")[0], kw.get("when")) for a, kw in directives["depends_on"]}
for dep in [("mpi", "+mpi"), ("cuda", "+cuda"), ("nccl", "+nccl"), ("flex", None), ("bison", None), ("cmake", None)]:
    check(dep in deps, "depends on {0}{1}".format(dep[0], " when " + dep[1] if dep[1] else ""))

# every CMake cache option the package sets exists in the project
cmake_text = ""
for root, _dirs, files in os.walk(src):
    if "/." in root or root.startswith(os.path.join(src, "build")):
        continue
    for f in files:
        if f == "CMakeLists.txt" or f.endswith(".cmake"):
            cmake_text += open(os.path.join(root, f), errors="replace").read()
for name in re.findall(r'define(?:_from_variant)?\(\s*"(\w+)"', open(pkg_file).read()):
    if name.startswith("CMAKE_") or name.startswith("MPI_") or name == "BUILD_TESTING":
        continue
    check(re.search(r"\b" + name + r"\b", cmake_text) is not None, "the project knows the option " + name)

# --- cmake_args for a few specs ------------------------------------------------
mpi = types.SimpleNamespace(mpicc="/m/bin/mpicc")
cuda = types.SimpleNamespace(prefix=Prefix("/c"))
nccl = types.SimpleNamespace(prefix=Prefix("/n"))
cpu = Parray(Spec({"mpi": False, "cuda": False, "nccl": False, "cuda_arch": ("none",)})).cmake_args()
check("-DPARRAY_WITH_MPI=OFF" in cpu and "-DPARRAY_WITH_CUDA=OFF" in cpu and "-DPARRAY_WITH_NCCL=OFF" in cpu,
      "~mpi~cuda: MPI, CUDA and NCCL off: " + " ".join(cpu))
full = Parray(Spec({"mpi": True, "cuda": True, "nccl": True, "cuda_arch": ("80", "90")},
                   {"mpi": mpi, "cuda": cuda, "nccl": nccl})).cmake_args()
for d in ["-DPARRAY_WITH_MPI=ON", "-DPARRAY_WITH_CUDA=ON", "-DPARRAY_WITH_NCCL=ON", "-DNCCL_ROOT=/n",
          "-DCMAKE_CUDA_ARCHITECTURES=80;90", "-DMPI_C_COMPILER=/m/bin/mpicc", "-DCMAKE_CUDA_COMPILER=/c/bin/nvcc"]:
    check(d in full, "+mpi+cuda+nccl cuda_arch=80,90 gives " + d)

# --- the check after install -------------------------------------------------
prefix = tempfile.mkdtemp()
os.makedirs(os.path.join(prefix, "lib"))
open(os.path.join(prefix, "lib", "libparray.a"), "w").close()
spec = Spec({"mpi": True, "cuda": False, "nccl": False, "cuda_arch": ("none",)}, {"mpi": mpi})
try:
    Parray(spec, prefix).check_parts()
    check(False, "+mpi without libparray_mpi.a fails the install")
except InstallError as e:
    check("libparray_mpi.a" in str(e), "+mpi without libparray_mpi.a fails the install: " + str(e))
open(os.path.join(prefix, "lib", "libparray_mpi.a"), "w").close()
try:
    Parray(spec, prefix).check_parts()
    check(True, "+mpi with libparray_mpi.a installs")
except InstallError as e:
    check(False, "+mpi with libparray_mpi.a installs: " + str(e))

sys.exit(1 if failures else 0)
