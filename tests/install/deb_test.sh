#!/bin/sh
# deb_test.sh - the Debian packages as a user gets them: CPack builds them
# from this build (cmake/ParrayPack.cmake), `apt-get install ./parray_*.deb
# ...` installs them into /usr, and from an empty folder, with only the system
# on PATH, a CMake project (find_package(Parray), the .pc helpers; a CPU
# program, and an MPI program under mpirun -np 2 with the mpi component when
# parray-mpi is installed; with parray-cuda, the CUDA project's GPU program,
# compiled only) and the C Makefile of the installed docs/build.md with
# pkg-config are built and run (the projects of the install test,
# tests/install/cmake_project, gpu_project and make_project).
# Then, with every package but parray removed, the CMake project must still
# configure and build its CPU program without looking for MPI or CUDA. Every package installed here
# is purged at the end (and the machine checked clean), whatever happened.
# Needs root, apt-get and dpkg (skipped otherwise, exit 77), and a machine
# where the packages are not installed already (skipped if they are).
#   deb_test.sh BUILD_DIR SOURCE_DIR MPIEXEC SANITIZE(ON/OFF)
set -u
build=$(cd "$1" && pwd) src=$(cd "$2" && pwd) mpiexec=$3 sanitize=$4
skip() { echo "skipped: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "installing a .deb needs root"
command -v apt-get >/dev/null 2>&1 && command -v dpkg >/dev/null 2>&1 || skip "no apt-get and dpkg here (not Debian)"
[ "$sanitize" != ON ] || skip "the packages of a sanitizer build are not for installing"
[ -e "$build/CPackConfig.cmake" ] || skip "$build has no CPackConfig.cmake"
for p in parray parray-mpi parray-cuda parray-mpi-cuda; do
  if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok'; then
    skip "the package $p is installed on this machine already; this test installs and removes its own"
  fi
done
tmp=$(mktemp -d)
chmod 755 "$tmp" # apt's sandbox user reads the .deb files
installed=""
failed=0
fail() { echo "FAIL: $*"; failed=1; }
ok() { echo "ok: $*"; }
purge() { # purge PACKAGE...: remove what this test installed
  [ $# -gt 0 ] || return 0
  apt-get purge -y -q -o DPkg::Lock::Timeout=300 "$@" >"$tmp/purge.log" 2>&1 || { cat "$tmp/purge.log"; fail "apt-get purge $*"; }
}
cleanup() {
  # shellcheck disable=SC2086 # a list of package names
  purge $installed
  for p in parray parray-mpi parray-cuda parray-mpi-cuda; do
    ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok' || fail "$p is still installed"
  done
  for f in /usr/bin/pac /usr/bin/pacc /usr/lib/cmake/Parray /usr/include/parray.h; do
    [ ! -e "$f" ] || fail "$f is left on the machine"
  done
  rm -rf "$tmp"
}
trap 'cleanup; exit $failed' EXIT
trap 'exit 1' INT TERM

# 1. the packages
version=$("$build/bin/pac" --version | sed -n 's/^pac \([0-9.]*\).*/\1/p')
cpack --config "$build/CPackConfig.cmake" -G DEB -B "$tmp/pkgs" >"$tmp/cpack.log" 2>&1 ||
  { cat "$tmp/cpack.log"; fail "cpack -G DEB"; exit 1; }
debs=$(cd "$tmp/pkgs" && ls ./*.deb 2>/dev/null | tr "\n" " ")
main=./parray_${version}_$(dpkg --print-architecture).deb
case " $(echo $debs) " in *" $main "*) ok "cpack made$(echo " $debs" | sed 's| \./| |g')" ;;
  *) fail "cpack made no $main (only: $debs)"; exit 1 ;; esac
chmod 644 "$tmp"/pkgs/*.deb
# the .deb files as they are: their names, and apt resolving their Depends
# (on this CI machine those are installed already: nothing is downloaded)
names=""
for d in $debs; do names="$names $(dpkg-deb -f "$tmp/pkgs/$d" Package)"; done
installed=$names
# shellcheck disable=SC2086 # a list of files
if (cd "$tmp/pkgs" && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
      -o DPkg::Lock::Timeout=300 $debs) >"$tmp/apt.log" 2>&1; then
  ok "apt-get install$names"
else
  cat "$tmp/apt.log"; fail "apt-get install ./*.deb"; exit 1
fi
for f in /usr/bin/pac /usr/bin/pacc /usr/lib/cmake/Parray/ParrayConfig.cmake /usr/lib/pkgconfig/parray.pc \
         /usr/include/parray.h /usr/share/doc/parray/LICENSE /usr/share/doc/parray/README.md; do
  [ -e "$f" ] || fail "the package installed no $f"
done
mpi=OFF cuda=OFF
case " $names " in *" parray-mpi "*) mpi=ON ;; esac
case " $names " in *" parray-cuda "*) command -v nvcc >/dev/null 2>&1 && cuda=ON ;; esac

# 2. the user's projects, with only the system on PATH
cp -R "$src/tests/install/cmake_project" "$src/tests/install/gpu_project" "$src/tests/install/make_project" "$tmp/"
mkdir "$tmp/home"
cd "$tmp" || exit 1
unset PARRAY_HOME CMAKE_PREFIX_PATH CPATH C_INCLUDE_PATH LIBRARY_PATH LD_LIBRARY_PATH MAKEFLAGS PKG_CONFIG_PATH
tooldirs=""
for t in cmake ninja make pkg-config cc mpicc mpirun nvcc; do
  d=$(dirname "$(command -v "$t" 2>/dev/null || echo /nonexistent/x)")
  case ":/usr/bin:/bin:$tooldirs:$build/bin:" in *":$d:"*) ;; *) tooldirs="$tooldirs:$d" ;; esac
done
export HOME="$tmp/home" PATH="/usr/bin:/bin$tooldirs"
[ "$(command -v pac)" = /usr/bin/pac ] && [ "$(command -v pacc)" = /usr/bin/pacc ] ||
  fail "pac and pacc on PATH are not the packaged ones: $(command -v pac) $(command -v pacc)"
[ "$(pac --version | sed -n 's/^pac \([0-9.]*\).*/\1/p')" = "$version" ] || fail "the installed pac is not $version"
gen="Unix Makefiles"
command -v ninja >/dev/null 2>&1 && gen=Ninja
# run NAME EXPECTED CMD...: CMD's output must be EXPECTED
run() {
  name=$1 want=$2
  shift 2
  got=$("$@" 2>"$tmp/err")
  [ "$got" = "$want" ] && ok "$name" || { fail "$name printed '$got', not '$want'"; cat "$tmp/err"; }
}
# project DIR MPI: configure (-DWITH_MPI=MPI) and build the CMake project into DIR
project() {
  rm -f "$tmp/cfg.log" "$tmp/build.log"
  if cmake -S cmake_project -B "$1" -G "$gen" -DWITH_MPI="$2" >"$tmp/cfg.log" 2>&1 &&
     cmake --build "$1" >"$tmp/build.log" 2>&1; then
    return 0
  fi
  cat "$tmp/cfg.log" "$tmp/build.log" 2>/dev/null; return 1
}
if project build1 $mpi; then
  run "CMake project ($gen): cpu_app" "PASS version=$version" build1/cpu_app
  if [ $mpi = ON ]; then
    [ -x build1/mpi_app ] || fail "no mpi_app although parray-mpi is installed"
    run "CMake project: mpi_app (mpirun -np 2)" "PASS" \
      timeout 120 "$mpiexec" --allow-run-as-root --oversubscribe -np 2 build1/mpi_app
  fi
else
  fail "the CMake project against the installed packages"
fi
if [ $cuda = ON ]; then # the CUDA package's targets: a GPU program compiled (not run)
  cp /usr/share/doc/parray/examples/cpu_or_gpu.pc gpu_project/
  if cmake -S gpu_project -B build-cuda -G "$gen" >"$tmp/cfg.log" 2>&1 &&
     cmake --build build-cuda --target on_gpu >"$tmp/build.log" 2>&1 && [ -x build-cuda/on_gpu ]; then
    ok "CMake project: the GPU program compiled against parray-cuda"
  else
    cat "$tmp/cfg.log" "$tmp/build.log"; fail "the GPU program against parray-cuda"
  fi
fi
# the C Makefile of the installed build.md, as printed there
mkdir make-c && cp make_project/main.pc make_project/util.c make-c/
awk '$0 == "```make recipe=c" { on = 1; next } on && /^```/ { exit } on { print }' \
  /usr/share/doc/parray/docs/build.md >make-c/Makefile
if [ -s make-c/Makefile ] && make -C make-c >"$tmp/make.log" 2>&1; then
  run "make + pkg-config (build.md): app" "PASS sum=8128 version=${version%.*}" make-c/app
else
  cat "$tmp/make.log"; fail "the Makefile of build.md with pkg-config"
fi

# 3. the main package alone: the CMake package must not look for MPI or CUDA
if echo " $names" | grep -q " parray-"; then # parts besides parray were installed
  rest=""
  for p in $installed; do [ "$p" = parray ] || rest="$rest $p"; done
  # shellcheck disable=SC2086 # a list of package names
  purge $rest
  installed=parray
  if project build2 OFF; then
    run "CMake project with parray alone: cpu_app" "PASS version=$version" build2/cpu_app
    [ ! -e build2/mpi_app ] || fail "mpi_app was built without parray-mpi"
    ! grep -Eq 'MPI|CUDA' "$tmp/cfg.log" || { grep -E 'MPI|CUDA' "$tmp/cfg.log"; fail "CMake looked for MPI or CUDA with parray alone"; }
  else
    fail "the CMake project against the package parray alone"
  fi
fi
