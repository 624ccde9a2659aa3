#!/bin/sh
# install_test.sh - install pac and the runtime into a temporary prefix, move
# the prefix elsewhere (the tree must be relocatable), and, from an empty
# folder with only the prefix and the system on PATH, build and run what a
# user would: a CMake project with find_package(Parray) and the .pc helpers
# (Ninja and Makefiles; CPU, MPI under mpirun -np 2, CUDA compiled only), a
# Makefile project using pkg-config, a program compiled file by file with
# pacc -c and linked, and the installed FFT example (pacc and FFTW3, under
# mpirun -np 2). Dependencies are checked by touching a header and a .pc
# library and looking at what the build does again. No file the user's
# builds write may name the source or build tree.
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
for f in bin/pac bin/pacc lib/libparray.a lib/libparray.so lib/cmake/Parray/ParrayConfig.cmake \
         lib/cmake/Parray/ParrayConfigVersion.cmake lib/pkgconfig/parray.pc include/parray.h \
         include/parray/version.h include/parray/sgemm.pc share/doc/parray/README.md; do
  [ -e "$P/$f" ] || fail "the prefix has no $f"
done
soname=$(readelf -d "$P/lib/libparray.so" 2>/dev/null | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
case $soname in
  libparray.so.[0-9]*.[0-9]*) [ -e "$P/lib/$soname" ] && ok "soname $soname" || fail "no $P/lib/$soname" ;;
  *) fail "libparray.so has no versioned soname ('$soname')" ;;
esac
mpi=OFF cuda=OFF
[ -e "$P/lib/libparray_mpi.a" ] && mpi=ON
[ -e "$P/lib/libparray_cuda.a" ] && command -v nvcc >/dev/null && cuda=ON

# 2. the user's files; from here on only the prefix and the system
cp -R "$cases/cmake_project" "$cases/make_project" "$cases/separate" "$tmp/"
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
export HOME="$tmp/home" PATH="$P/bin:/usr/local/bin:/usr/bin:/bin$tooldirs" PKG_CONFIG_PATH="$P/lib/pkgconfig"
[ "$(command -v pac)" = "$P/bin/pac" ] && [ "$(command -v pacc)" = "$P/bin/pacc" ] ||
  fail "pac and pacc on PATH are not the installed ones: $(command -v pac) $(command -v pacc)"
if [ "$sanitize" = ON ]; then # the installed runtime is instrumented: so must its users be
  # (the CMake package says so itself; the Makefile needs it in LDFLAGS)
  export LDFLAGS="-fsanitize=address,undefined" ASAN_OPTIONS=detect_leaks=0
fi
version=$(pac --version | sed -n 's/^pac \([0-9.]*\).*/\1/p')
[ -n "$version" ] || fail "pac --version printed no version"

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
  name=$1 want=$2
  shift 2
  got=$("$@" 2>"$tmp/err")
  [ "$got" = "$want" ] && ok "$name" || { fail "$name printed '$got', not '$want'"; cat "$tmp/err"; }
}

# 3. the CMake project, with either generator
# rebuilt BUILD LOG PATTERN...: after touching a file, the build LOG must
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
  rebuilt "$gen, shape.h touched" "$tmp/dep1.log" +"main.pc.c.o" -"scale.c.o" -"mpi_app.pc"
  sleep 1
  touch cmake_project/scale.h
  cmake --build "$b" >"$tmp/dep2.log" 2>&1 || { cat "$tmp/dep2.log"; fail "$gen: rebuild"; return; }
  rebuilt "$gen, scale.h touched" "$tmp/dep2.log" +"scale.c.o" -"main.pc"
  sleep 1
  touch cmake_project/fill.pc
  cmake --build "$b" >"$tmp/dep3.log" 2>&1 || { cat "$tmp/dep3.log"; fail "$gen: rebuild"; return; }
  rebuilt "$gen, fill.pc touched" "$tmp/dep3.log" +"main.pc.c.o" -"scale.c.o" -"mpi_app.pc"
  ok "$gen: dependencies"
}
cmake_project() { # cmake_project GENERATOR DIR [CMAKE ARGS]
  gen=$1 b=$2
  shift 2
  if ! LDFLAGS= cmake -S cmake_project -B "$b" -G "$gen" "$@" >"$tmp/cfg.log" 2>&1; then
    cat "$tmp/cfg.log"; fail "$gen: configuring the CMake project"; return
  fi
  if ! cmake --build "$b" >"$tmp/build.log" 2>&1; then
    cat "$tmp/build.log"; fail "$gen: building the CMake project"; return
  fi
  run "$gen: cpu_app" "PASS version=$version" "$b/cpu_app"
  if [ $mpi = ON ]; then
    run "$gen: mpi_app (mpirun -np 2)" "PASS" timeout 120 "$mpiexec" --allow-run-as-root --oversubscribe -np 2 "$b/mpi_app"
  fi
  depcheck "$gen" "$b"
  run "$gen: cpu_app after the rebuilds" "PASS version=$version" "$b/cpu_app"
}
if command -v ninja >/dev/null; then
  cmake_project Ninja build-ninja
fi
cmake_project "Unix Makefiles" build-make
if [ $cuda = ON ]; then
  if cmake -S cmake_project -B build-cuda -G "Unix Makefiles" -DWITH_CUDA=ON >"$tmp/cfg.log" 2>&1 &&
     cmake --build build-cuda --target cuda_app >"$tmp/build.log" 2>&1; then
    [ -x build-cuda/cuda_app ] && grep -q 'cuda_app.pc.cu' "$tmp/build.log" && ok "CUDA program compiled" ||
      fail "cuda_app was not built from a .cu translation"
    if nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
      run "CUDA program run on the GPU" "PASS" build-cuda/cuda_app
    else
      echo "note: no GPU here: the CUDA program was compiled, not run"
    fi
  else
    cat "$tmp/cfg.log" "$tmp/build.log"; fail "building the CUDA program"
  fi
fi

# 4. the Makefile project with pkg-config
pkg-config --exact-version="$version" parray || fail "pkg-config: parray is not version $version"
if make -C make_project >"$tmp/make.log" 2>&1; then
  run "make + pkg-config: app" "PASS sum=8128 version=${version%.*}" make_project/app
else
  cat "$tmp/make.log"; fail "make with pkg-config"
fi

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
    run "mpicc + pkg-config link of a pacc -c object (mpirun -np 2)" "PASS" \
      timeout 120 "$mpiexec" --allow-run-as-root --oversubscribe -np 2 ./sepmpi
  else
    cat "$tmp/sepmpi.log"; fail "linking a pacc -c MPI object with mpicc and pkg-config"
  fi
fi

# 5c. the FFT example, from the installed tree as a user builds it: copied
# out of share/doc/parray/examples, pacc with FFTW3, mpirun -np 2 (it checks
# itself against FFTW and prints PASS)
ex=$P/share/doc/parray/examples/fft
[ -e "$ex/fft.pc" ] && [ -e "$ex/fft_local.h" ] || fail "the prefix has no examples/fft"
printf '#include <fftw3.h>\nint main(void) { return fftwf_alignment_of(0) + fftw_alignment_of(0); }\n' >fftw_probe.c
if [ $mpi = ON ] && [ -e "$ex/fft.pc" ] && cc fftw_probe.c -lfftw3f -lfftw3 -o fftw_probe >/dev/null 2>&1; then
  cp -R "$ex" fft
  # shellcheck disable=SC2086 # LDFLAGS is several words or none
  if (cd fft && pacc -O2 -DNP=2 -DN0=32 -DN1=48 fft.pc ${LDFLAGS:-} -lfftw3f -lfftw3 -lm -o fft) >"$tmp/fft.log" 2>&1; then
    got=$(timeout 120 "$mpiexec" --allow-run-as-root --oversubscribe -np 2 fft/fft -e 2>"$tmp/err")
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
