#!/bin/sh
# tgz_test.sh - the relocatable archive: CPack's parray-VERSION-Linux-ARCH.tar.gz
# of this build (cmake/ParrayPack.cmake) holds the whole install tree in one
# top folder, and unpacked anywhere its pacc builds and runs a program and
# its pkg-config and CMake package files are there, with no path of this
# build written into them (text files; debug information names it).
#   tgz_test.sh BUILD_DIR SANITIZE(ON/OFF)
set -u
build=$(cd "$1" && pwd) sanitize=${2:-OFF}
san=""
if [ "$sanitize" = ON ]; then # an instrumented runtime needs instrumented programs
  san="-fsanitize=address,undefined"
  export ASAN_OPTIONS=detect_leaks=0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }
version=$("$build/bin/pac" --version | sed -n 's/^pac \([0-9.]*\).*/\1/p')
cpack --config "$build/CPackConfig.cmake" -G TGZ -B "$tmp/pkgs" >"$tmp/cpack.log" 2>&1 ||
  { cat "$tmp/cpack.log"; echo "FAIL: cpack -G TGZ"; exit 1; }
name=parray-$version-$(uname -s)-$(uname -m)
[ -e "$tmp/pkgs/$name.tar.gz" ] || { ls "$tmp/pkgs"; echo "FAIL: no $name.tar.gz"; exit 1; }
mkdir -p "$tmp/somewhere/else"
tar -xzf "$tmp/pkgs/$name.tar.gz" -C "$tmp/somewhere/else"
P=$tmp/somewhere/else/$name
for f in bin/pac bin/pacc lib/libparray.a lib/libparray.so lib/cmake/Parray/ParrayConfig.cmake \
         lib/pkgconfig/parray.pc include/parray.h share/doc/parray/LICENSE share/doc/parray/README.md; do
  [ -e "$P/$f" ] || fail "the archive has no $name/$f"
done
refs=$(grep -rIlF "$build" "$P" 2>/dev/null)
[ -z "$refs" ] || fail "files of the archive name the build tree: $refs"
printf '#include <stdio.h>\n#parray {pthd [2]} T\nint main(void) {\n  int s[2] = {0};\n  #detour T { s[$tid$] = $tid$ + 1; }\n  printf("%%s\\n", s[0] + s[1] == 3 ? "PASS" : "FAIL");\n  return 0;\n}\n' >"$tmp/t.pc"
if (cd "$tmp" && env -u PARRAY_HOME "$P/bin/pacc" $san t.pc -o t) >"$tmp/pacc.log" 2>&1; then
  got=$("$tmp/t")
  [ "$got" = PASS ] && echo "ok: pacc of the unpacked archive built a program that printed PASS" ||
    fail "the program printed '$got'"
else
  cat "$tmp/pacc.log"; fail "pacc of the unpacked archive"
fi
[ "$failed" = 1 ] || echo "ok: $name.tar.gz unpacked elsewhere: $(tar -tzf "$tmp/pkgs/$name.tar.gz" | wc -l) entries"
exit $failed
