#!/bin/sh
# install_test.sh - install pac and the runtime into a temporary prefix, move
# the prefix elsewhere (the tree must be relocatable), and, from an empty
# folder with only the prefix and the system on PATH, build and run what a
# user would:
#  - a CMake project with find_package(Parray) and the .pc helpers
#    (cmake_project): CPU-only, configured where MPI and CUDA cannot be
#    found; and with the mpi component (under mpirun -np 2), with Ninja and
#    Makefiles; dependencies checked by touching a header and a .pc library
#    (no configure step again); compile_commands.json entries for .pc files;
#    the build-time errors for a GPU or MPI program the project cannot take;
#    the components found (components_project) as the prefix holds them;
#  - a CUDA project (gpu_project, where nvcc is): examples/cpu_or_gpu.pc as C
#    and, by a target's compile definition, as CUDA; an SGEMM_TMA program at
#    CMake's default architectures (compiled for sm_90a); the MPI program with
#    distributed dmem arrays of docs/threads.md (mpi + cuda components);
#    compiled and linked here, run only where there is a GPU;
#  - the Makefiles of docs/build.md, as the installed doc prints them, with pkg-config:
#    C, MPI, CUDA (linked by nvcc and by cc) and MPI + CUDA, started without
#    LD_LIBRARY_PATH; the C one must refuse a GPU program;
#  - a program compiled file by file with pacc -c and linked, and an MPI
#    object linked by mpicc with pkg-config;
#  - the installed FFT example (pacc and FFTW3, under mpirun -np 2).
# No file the user's builds write may name the source or build tree.
#   install_test.sh BUILD_DIR SOURCE_DIR MPIEXEC SANITIZE(ON/OFF)
set -u
build=$(cd "$1" && pwd) src=$(cd "$2" && pwd) mpiexec=$3 sanitize=$4
cases=$src/tests/install
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }
die() { echo "FAIL: $*"; exit 1; }
ok() { echo "ok: $*"; }

# 1. install, then move: nothing may depend on the place it was installed to
cmake --install "$build" --prefix "$tmp/first" >"$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; die "cmake --install"; }
mv "$tmp/first" "$tmp/prefix"
P=$tmp/prefix
# the library folder (GNUInstallDirs: lib, lib64 or lib/<multiarch>), where
# the CMake package is
cfg=$(find "$P" -path '*/cmake/Parray/ParrayConfig.cmake' | head -n 1)
[ -n "$cfg" ] || die "the prefix has no cmake/Parray/ParrayConfig.cmake"
L=${cfg%/cmake/Parray/ParrayConfig.cmake}
l=${L#"$P"/}
doc=$P/share/doc/parray
for f in bin/pac bin/pacc "$l/libparray.a" "$l/libparray.so" "$l/cmake/Parray/ParrayConfigVersion.cmake" \
         "$l/pkgconfig/parray.pc" include/parray.h include/parray/version.h include/parray/sgemm.pc \
         share/doc/parray/README.md share/doc/parray/docs/build.md; do
  [ -e "$P/$f" ] || fail "the prefix has no $f"
done
empty=$(find "$P" -type d -empty)
[ -z "$empty" ] && ok "no empty folder installed" || fail "empty folders installed: $empty"
soname=$(readelf -d "$L/libparray.so" 2>/dev/null | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
case $soname in
  libparray.so.[0-9]*.[0-9]*) [ -e "$L/$soname" ] && ok "soname $soname" || fail "no $L/$soname" ;;
  *) fail "libparray.so has no versioned soname ('$soname')" ;;
esac
mpi=OFF cuda=OFF mpicuda=OFF gpu=no
[ -e "$L/libparray_mpi.a" ] && mpi=ON
[ -e "$L/libparray_cuda.a" ] && command -v nvcc >/dev/null && cuda=ON
[ -e "$L/libparray_mpi_cuda.a" ] && [ $cuda = ON ] && [ $mpi = ON ] && mpicuda=ON
nvidia-smi -L 2>/dev/null | grep -q '^GPU' && gpu=yes
for pc in parray-mpi:$mpi parray-cuda:$cuda parray-mpi-cuda:$mpicuda; do
  if [ "${pc#*:}" = ON ] && [ ! -e "$L/pkgconfig/${pc%:*}.pc" ]; then
    fail "the prefix has no $l/pkgconfig/${pc%:*}.pc"
  fi
done

# 2. the user's files; from here on only the prefix and the system
cp -R "$cases/cmake_project" "$cases/components_project" "$cases/gpu_project" "$cases/make_project" "$cases/separate" "$tmp/"
mkdir "$tmp/home"
cd "$tmp" || exit 1
unset PARRAY_HOME CMAKE_PREFIX_PATH CPATH C_INCLUDE_PATH LIBRARY_PATH LD_LIBRARY_PATH MAKEFLAGS
# the folders of the tools a user has (wherever this system keeps them), never
# the build tree's: pac and pacc come from the prefix alone
tooldirs=""
for t in nvcc cmake ninja make pkg-config cc mpicc mpirun; do
  d=$(dirname "$(command -v "$t" 2>/dev/null || echo /nonexistent/x)")
  case ":$tooldirs:$build/bin:" in *":$d:"*) ;; *) tooldirs="$tooldirs:$d" ;; esac
done
export HOME="$tmp/home" PATH="$P/bin:/usr/local/bin:/usr/bin:/bin$tooldirs" PKG_CONFIG_PATH="$L/pkgconfig"
# the same without nvcc's folder (where that is a folder of its own)
nvccdir=$(dirname "$(command -v nvcc 2>/dev/null || echo /nonexistent/x)")
nocuda_path=$(printf '%s\n' "$PATH" | tr ':' '\n' | grep -vxF "$nvccdir" | paste -sd: -)
[ "$(command -v pac)" = "$P/bin/pac" ] && [ "$(command -v pacc)" = "$P/bin/pacc" ] ||
  fail "pac and pacc on PATH are not the installed ones: $(command -v pac) $(command -v pacc)"
if [ "$sanitize" = ON ]; then # the installed runtime is instrumented: so must its users be
  # (the CMake package says so itself; the Makefiles need it in LDFLAGS)
  export LDFLAGS="-fsanitize=address,undefined" ASAN_OPTIONS=detect_leaks=0
fi
version=$(pac --version | sed -n 's/^pac \([0-9.]*\).*/\1/p')
[ -n "$version" ] || fail "pac --version printed no version"
mm=${version%.*} # MAJOR.MINOR

# the installed pac finds the shipped .pc libraries beside itself
printf '#include <parray/sgemm.pc>\n#parray {dmem float [128][128]} M\nvoid mul(float *a, float *b, float *c) {\n  #insert SGEMM(a, b, c, M)\n}\n' >sg.pc
if pac sg.pc -o sg.cu 2>"$tmp/err" && grep -q '__global__' sg.cu; then
  ok "pac finds parray/sgemm.pc"
else
  cat "$tmp/err"; fail "pac cannot translate a file including <parray/sgemm.pc>"
fi
# PARRAY_HOME overrides the place beside pac: an empty one hides the library
mkdir -p "$tmp/nohome/include"
if PARRAY_HOME="$tmp/nohome" pac sg.pc -o sg2.cu 2>"$tmp/err"; then
  fail "pac ignored PARRAY_HOME"
else
  grep -q "cannot find the Parray file 'parray/sgemm.pc'" "$tmp/err" && ok "PARRAY_HOME overrides" ||
    { cat "$tmp/err"; fail "pac's message without the library"; }
fi

# run NAME EXPECTED CMD...: CMD's output must be EXPECTED
run() {
  name=$1 want_out=$2
  shift 2
  got=$("$@" 2>"$tmp/err")
  [ "$got" = "$want_out" ] && ok "$name" || { fail "$name printed '$got', not '$want_out'"; cat "$tmp/err"; }
}
# mpirun2 CMD...: CMD on 2 processes
mpirun2() { timeout 120 "$mpiexec" --allow-run-as-root --oversubscribe -np 2 "$@"; }
# starts PROGRAM: every library it needs is found without LD_LIBRARY_PATH
starts() {
  if ldd "$1" 2>&1 | grep -q 'not found'; then
    fail "$1 does not find its libraries:"; ldd "$1"
  else
    ok "$1 finds its libraries (no LD_LIBRARY_PATH)"
  fi
}

# 3. the CMake project
# rebuilt WHAT LOG PATTERN...: after touching a file, the build LOG must
# match each +PATTERN and no -PATTERN
rebuilt() {
  what=$1 log=$2
  shift 2
  for p in "$@"; do
    case $p in
      +*) grep -q -- "${p#+}" "$log" || fail "$what: '${p#+}' was not rebuilt" ;;
      -*) ! grep -q -- "${p#-}" "$log" || fail "$what: '${p#-}' was rebuilt" ;;
    esac
  done
}
depcheck() { # depcheck GEN BUILD: touch files, build, see what was rebuilt
  gen=$1 b=$2
  if ! pac --help 2>&1 | grep -q -- -MF; then
    echo "note: this pac writes no dependency files (-MF): dependency checks skipped"
    return
  fi
  sleep 1
  touch cmake_project/shape.h
  cmake --build "$b" >"$tmp/dep1.log" 2>&1 || { cat "$tmp/dep1.log"; fail "$gen: rebuild"; return; }
  rebuilt "$gen, shape.h touched" "$tmp/dep1.log" +"main.pc.c.o" -"scale.c.o" -"mpi_app.pc" -"Re-running CMake"
  sleep 1
  touch cmake_project/scale.h
  cmake --build "$b" >"$tmp/dep2.log" 2>&1 || { cat "$tmp/dep2.log"; fail "$gen: rebuild"; return; }
  rebuilt "$gen, scale.h touched" "$tmp/dep2.log" +"scale.c.o" -"main.pc"
  sleep 1
  touch cmake_project/fill.pc cmake_project/main.pc
  cmake --build "$b" >"$tmp/dep3.log" 2>&1 || { cat "$tmp/dep3.log"; fail "$gen: rebuild"; return; }
  # translated again (Ninja compiles only what changed: not main.pc.c here)
  rebuilt "$gen, fill.pc and main.pc touched" "$tmp/dep3.log" +"Translating main.pc" -"scale.c.o" -"mpi_app.pc" \
    -"Re-running CMake" -"Configuring done"
  ok "$gen: dependencies (no configure step for a .pc edit)"
}
# fails_with WHAT LOG MESSAGE CMD...: CMD must fail, LOG holding MESSAGE
fails_with() {
  what=$1 log=$2 msg=$3
  shift 3
  if "$@" >"$log" 2>&1; then
    fail "$what: built"
  elif tr -s ' \n' '  ' <"$log" | grep -qF -- "$msg"; then
    ok "$what: refused, saying '$msg'"
  else
    cat "$log"; fail "$what: no '$msg'"
  fi
}
cmake_project() { # cmake_project GENERATOR DIR MPI [CMAKE ARGS]
  gen=$1 b=$2 withmpi=$3
  shift 3
  if ! LDFLAGS= cmake -S cmake_project -B "$b" -G "$gen" -DWITH_MPI=$withmpi \
       "$@" >"$tmp/cfg.log" 2>&1; then
    cat "$tmp/cfg.log"; fail "$gen: configuring the CMake project"; return 1
  fi
  if ! cmake --build "$b" >"$tmp/build.log" 2>&1; then
    cat "$tmp/build.log"; fail "$gen: building the CMake project"; return 1
  fi
  run "$gen: cpu_app" "PASS version=$version" "$b/cpu_app"
  if [ "$withmpi" = ON ]; then
    run "$gen: mpi_app (mpirun -np 2)" "PASS" mpirun2 "$b/mpi_app"
  fi
  depcheck "$gen" "$b"
  run "$gen: cpu_app after the rebuilds" "PASS version=$version" "$b/cpu_app"
}
gen1="Unix Makefiles"
command -v ninja >/dev/null && gen1=Ninja
# 3a. CPU only, where neither MPI nor CUDA can be found (nvcc off PATH, and
# find_package(MPI) and find_package(CUDAToolkit) disabled): the package
# must not look for them; the errors for what this project cannot build
userpath=$PATH
PATH=$nocuda_path
if cmake_project "$gen1" build-cpu OFF -DCMAKE_DISABLE_FIND_PACKAGE_MPI=ON \
     -DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=ON -DCMAKE_EXPORT_COMPILE_COMMANDS=ON; then
  # CMake lists the variables nothing read: no find_package(MPI / CUDAToolkit) ran
  if grep -q CMAKE_DISABLE_FIND_PACKAGE_MPI "$tmp/cfg.log" && grep -q CMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit "$tmp/cfg.log"; then
    ok "a CPU-only project looks for neither MPI nor CUDA"
  else
    cat "$tmp/cfg.log"; fail "a CPU-only project looked for MPI or CUDA"
  fi
  # clangd: an entry for the .pc source (not for the .pc library it includes)
  grep -q "\"file\": \"$tmp/cmake_project/main.pc\"" build-cpu/compile_commands.json &&
    ! grep -q "\"file\": \"$tmp/cmake_project/fill.pc\"" build-cpu/compile_commands.json &&
    ok "compile_commands.json has an entry for main.pc (clangd)" ||
    fail "compile_commands.json has no entry for main.pc, or one for fill.pc"
  fails_with "a GPU program in a C-only project" "$tmp/nc.log" "is a CUDA program" \
    cmake --build build-cpu --target needs_cuda
  grep -q "enable_language(CUDA)" "$tmp/nc.log" || fail "the GPU program's error does not say to enable CUDA"
  fails_with "an MPI program without the mpi component" "$tmp/nm.log" "COMPONENTS mpi" \
    cmake --build build-cpu --target needs_mpi
fi
PATH=$userpath
# 3b. with the mpi component when there is MPI, with Makefiles
cmake_project "Unix Makefiles" build-make $mpi

# 3c. the package's components: found as the prefix holds them, a missing
# one reported, and fatal when required
tf() { [ "$1" = ON ] && echo TRUE || echo FALSE; }
targets=parray
[ $mpi = ON ] && targets="$targets;mpi"
[ $cuda = ON ] && targets="$targets;cuda"
[ $mpicuda = ON ] && targets="$targets;mpi_cuda"
if [ $cuda = ON ] || [ ! -e "$L/libparray_cuda.a" ]; then
  if LDFLAGS= cmake -S components_project -B build-comp >"$tmp/cfg.log" 2>&1; then
    expect="components: mpi=$(tf $mpi) cuda=$(tf $cuda) mpi_cuda=$(tf $mpicuda) nosuch=FALSE targets: $targets"
    grep -qxF -- "-- $expect" "$tmp/cfg.log" && ok "find_package(Parray OPTIONAL_COMPONENTS ...): $expect" ||
      { cat "$tmp/cfg.log"; fail "find_package(Parray OPTIONAL_COMPONENTS ...) did not give '$expect'"; }
  else
    cat "$tmp/cfg.log"; fail "find_package(Parray OPTIONAL_COMPONENTS ...)"
  fi
  missing=nosuch
  [ $cuda = OFF ] && missing=cuda
  fails_with "find_package(Parray REQUIRED COMPONENTS $missing)" "$tmp/comp.log" "components not found: $missing" \
    cmake -S components_project -B build-comp-$missing -DREQUIRE=$missing
fi

# 3d. the CUDA project (compiled, and run on a GPU)
if [ $cuda = ON ]; then
  cp "$doc/examples/cpu_or_gpu.pc" gpu_project/
  g=build-gpu
  if LDFLAGS= cmake -S gpu_project -B $g -G "$gen1" -DWITH_MPI=$mpicuda \
       >"$tmp/cfg.log" 2>&1 && cmake --build $g >"$tmp/build.log" 2>&1; then
    ok "CUDA project built (cpu_or_gpu.pc twice, SGEMM_TMA, MPI + CUDA: $mpicuda)"
    # the language of each translation: the target's definitions decided it
    head -n 3 $g/parray_gen/on_gpu/cpu_or_gpu.pc.cu | grep -q 'pac: target=cuda' &&
      grep -q 'is CUDA for target on_gpu' $g/parray_gen/on_gpu/cpu_or_gpu.pc.c &&
      head -n 3 $g/parray_gen/on_cpu/cpu_or_gpu.pc.c | grep -q 'pac: target=c ' &&
      grep -q 'is C for target on_cpu' $g/parray_gen/on_cpu/cpu_or_gpu.pc.cu &&
      ok "cpu_or_gpu.pc: C for on_cpu, CUDA for on_gpu (USE_GPU)" ||
      fail "cpu_or_gpu.pc was not translated by each target's definitions"
    run "on_cpu (cpu_or_gpu.pc)" "$(cat "$doc/examples/cpu_or_gpu.expected")" $g/on_cpu
    # the TMA file: CMake's default architectures, which the launcher turns
    # into sm_90a for it alone
    arch=$(sed -n 's/^CMAKE_CUDA_ARCHITECTURES:[A-Z]*=//p' $g/CMakeCache.txt)
    launched=$(sh "$L/cmake/Parray/parray_nvcc_launcher.sh" echo nvcc "--generate-code=arch=compute_75,code=[compute_75,sm_75]" \
               -c $g/parray_gen/tma_app/tma.pc.cu -o x.o)
    case $launched in
      *compute_75*) fail "the launcher kept sm_75 for SGEMM_TMA: $launched" ;;
      *-arch=sm_90a*) ok "SGEMM_TMA program built at the architectures '$arch' (its file for sm_90a)" ;;
      *) fail "the launcher gave '$launched' for SGEMM_TMA" ;;
    esac
    launched=$(sh "$L/cmake/Parray/parray_nvcc_launcher.sh" echo nvcc -arch=sm_75 -c $g/parray_gen/on_gpu/cpu_or_gpu.pc.cu)
    [ "$launched" = "nvcc -arch=sm_75 -c $g/parray_gen/on_gpu/cpu_or_gpu.pc.cu" ] ||
      fail "the launcher changed a compile without TMA: $launched"
    if [ $gpu = yes ]; then
      run "on_gpu (cpu_or_gpu.pc with USE_GPU) on the GPU" "$(cat "$doc/examples/cpu_or_gpu.gpu.expected")" $g/on_gpu
      if nvidia-smi --query-gpu=compute_cap --format=csv,noheader | grep -q '^9\.0'; then
        run "SGEMM_TMA program on the GPU" "PASS" $g/tma_app
      fi
      [ $mpicuda = ON ] && run "MPI + CUDA program with distributed dmem arrays (mpirun -np 2)" "PASS" mpirun2 $g/dmem_app
    else
      echo "note: no GPU here: the CUDA project was compiled and linked, not run"
    fi
  else
    cat "$tmp/cfg.log" "$tmp/build.log"; fail "building the CUDA project"
  fi
fi

# 4. the Makefiles of docs/build.md, as installed, with pkg-config
pkg-config --exact-version="$version" parray || fail "pkg-config: parray is not version $version"
# recipe NAME: the ```make recipe=NAME block of build.md
recipe() { awk -v r="$1" '$0 == "```make recipe=" r { on = 1; next } on && /^```/ { exit } on { print }' "$doc/docs/build.md"; }
# make_dir DIR RECIPE MAIN.PC: a folder with the recipe as its Makefile
make_dir() {
  mkdir "$1" && recipe "$2" >"$1/Makefile" && cp "$3" "$1/main.pc" && cp make_project/util.c "$1/"
  [ -s "$1/Makefile" ] || fail "build.md has no 'make recipe=$2' block"
}
make_dir make-c c make_project/main.pc
if make -C make-c >"$tmp/make.log" 2>&1; then
  run "make + pkg-config (build.md): C" "PASS sum=8128 version=$mm" make-c/app
  starts make-c/app
else
  cat "$tmp/make.log"; fail "make + pkg-config (build.md): C"
fi
make_dir make-gpu-as-c c cmake_project/cuda_app.pc
fails_with "the C Makefile on a GPU program" "$tmp/make.log" "needs the CUDA target" make -C make-gpu-as-c
[ ! -e make-gpu-as-c/main.o ] || fail "the C Makefile compiled a GPU program"
if [ $mpi = ON ]; then
  make_dir make-mpi c cmake_project/mpi_app.pc
  if make -C make-mpi PKG=parray-mpi >"$tmp/make.log" 2>&1; then
    run "make + pkg-config (build.md): MPI (mpirun -np 2)" "PASS" mpirun2 make-mpi/app
    starts make-mpi/app
  else
    cat "$tmp/make.log"; fail "make + pkg-config (build.md): MPI"
  fi
fi
if [ $cuda = ON ]; then
  make_dir make-cuda cuda cmake_project/cuda_app.pc
  if make -C make-cuda >"$tmp/make.log" 2>&1; then
    starts make-cuda/app
    # the same objects linked by cc, with what pkg-config names
    # shellcheck disable=SC2046 # pkg-config prints several words
    if cc make-cuda/main.o -Xlinker -rpath -Xlinker "$(pkg-config --variable=libdir parray-cuda)" \
         $(pkg-config --libs parray-cuda) -o make-cuda/app_cc >"$tmp/cc.log" 2>&1; then
      starts make-cuda/app_cc
    else
      cat "$tmp/cc.log"; fail "cc link of a CUDA object with pkg-config --libs parray-cuda"
    fi
    if [ $gpu = yes ]; then
      run "make + pkg-config (build.md): CUDA, on the GPU" "PASS" make-cuda/app
      run "cc + pkg-config: CUDA, on the GPU" "PASS" make-cuda/app_cc
    fi
    ok "make + pkg-config (build.md): CUDA (nvcc and cc links)"
  else
    cat "$tmp/make.log"; fail "make + pkg-config (build.md): CUDA"
  fi
fi
if [ $mpicuda = ON ]; then
  make_dir make-mpi-cuda cuda gpu_project/dmem.pc
  if make -C make-mpi-cuda PKG=parray-mpi-cuda >"$tmp/make.log" 2>&1; then
    starts make-mpi-cuda/app
    ok "make + pkg-config (build.md): MPI + CUDA"
    [ $gpu = yes ] && run "make + pkg-config: MPI + CUDA on the GPU (mpirun -np 2)" "PASS" mpirun2 make-mpi-cuda/app
  else
    cat "$tmp/make.log"; fail "make + pkg-config (build.md): MPI + CUDA"
  fi
fi
[ $gpu = yes ] || [ $cuda = OFF ] || echo "note: no GPU here: the CUDA Makefiles' programs were built, not run"

# 5. separate compilation: two .pc files and a C file, then a link
(cd separate && pacc -c part_a.pc -o part_a.o && pacc -c part_b.pc -o part_b.o && cc -c check.c -o check.o &&
  pacc part_a.o part_b.o check.o -o app) >"$tmp/sep.log" 2>&1
if [ $? -eq 0 ]; then
  run "pacc -c, then a link" "PASS" separate/app
else
  cat "$tmp/sep.log"; fail "separate compilation"
fi

# 5b. an MPI object from pacc -c linked by the user's own mpicc, with the
# libraries pkg-config names (no pacc at the link)
if [ $mpi = ON ]; then
  cp cmake_project/mpi_app.pc sepmpi.pc
  # shellcheck disable=SC2046 # pkg-config prints several words
  if pacc -c sepmpi.pc -o sepmpi.o >"$tmp/sepmpi.log" 2>&1 &&
     mpicc sepmpi.o ${LDFLAGS:-} -Wl,-rpath,"$(pkg-config --variable=libdir parray)" $(pkg-config --libs parray-mpi) \
       -o sepmpi >>"$tmp/sepmpi.log" 2>&1; then
    run "mpicc + pkg-config link of a pacc -c object (mpirun -np 2)" "PASS" mpirun2 ./sepmpi
  else
    cat "$tmp/sepmpi.log"; fail "linking a pacc -c MPI object with mpicc and pkg-config"
  fi
fi

# 5c. the FFT example, from the installed tree as a user builds it: copied
# out of share/doc/parray/examples, pacc with FFTW3, mpirun -np 2 (it checks
# itself against FFTW and prints PASS)
ex=$doc/examples/fft
[ -e "$ex/fft.pc" ] && [ -e "$ex/fft_local.h" ] || fail "the prefix has no examples/fft"
printf '#include <fftw3.h>\nint main(void) { return fftwf_alignment_of(0) + fftw_alignment_of(0); }\n' >fftw_probe.c
if [ $mpi = ON ] && [ -e "$ex/fft.pc" ] && cc fftw_probe.c -lfftw3f -lfftw3 -o fftw_probe >/dev/null 2>&1; then
  cp -R "$ex" fft
  # shellcheck disable=SC2086 # LDFLAGS is several words or none
  if (cd fft && pacc -O2 -DNP=2 -DN0=32 -DN1=48 fft.pc ${LDFLAGS:-} -lfftw3f -lfftw3 -lm -o fft) >"$tmp/fft.log" 2>&1; then
    got=$(mpirun2 fft/fft -e 2>"$tmp/err")
    case $got in
      *" PASS") ok "the FFT example built from the prefix (mpirun -np 2): $got" ;;
      *) fail "the FFT example printed '$got'"; cat "$tmp/err" ;;
    esac
  else
    cat "$tmp/fft.log"; fail "building the installed FFT example with pacc"
  fi
  if [ $cuda = ON ]; then # its GPU form (cuFFT): compiled only
    # shellcheck disable=SC2086 # LDFLAGS is several words or none
    (cd fft && pacc -O2 -DFFT_GPU -DNP=2 -DN0=32 -DN1=48 fft.pc ${LDFLAGS:-} -lfftw3f -lfftw3 -lcufft -lm -o fft_gpu) \
      >"$tmp/fft.log" 2>&1 && ok "the FFT example's GPU form compiled from the prefix" ||
      { cat "$tmp/fft.log"; fail "compiling the installed FFT example with -DFFT_GPU"; }
  fi
else
  echo "note: no MPI or no FFTW3 here: the FFT example was not built from the prefix"
fi

# 6. nothing the user's builds wrote names the source or build tree
refs=$(grep -rIlF -e "$src" -e "$build" "$tmp" 2>/dev/null)
[ -z "$refs" ] && ok "no file names the source or build tree" || fail "files naming the source or build tree: $refs"
exit $failed
