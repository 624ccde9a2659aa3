#!/bin/sh
# version.sh - the version is set once, in the top CMakeLists.txt; the few
# texts that must repeat it agree with it: pac --version and pacc --version,
# the man pages' title lines (MAJOR.MINOR), the VS Code manifest, the Spack
# package's newest version, CHANGELOG.md's newest release, and every
# find_package(Parray X.Y ...) in the docs and the test projects (X.Y must be
# MAJOR.MINOR: the package accepts the same minor version only).
#   version.sh VERSION SOURCE_DIR BIN_DIR
set -u
v=$1 src=$2 bin=$3
mm=${v%.*}
failed=0
fail() { echo "FAIL: $*"; failed=1; }
check() { # check WHAT GOT: GOT must be the version
  [ "$2" = "$v" ] && echo "ok: $1 says $v" || fail "$1 says '$2', not $v"
}
check "pac --version" "$("$bin/pac" --version | sed -n '1s/^pac \([0-9.]*\).*/\1/p')"
check "pacc --version" "$("$bin/pacc" --version | sed -n '1s/^pacc \([0-9.]*\).*/\1/p')"
for m in "$src"/docs/man/*.1; do
  got=$(sed -n 's/^\.TH .* "pac \([0-9.]*\)".*/\1/p' "$m")
  [ "$got" = "$mm" ] && echo "ok: $(basename "$m") says pac $mm" || fail "$m: .TH says pac '$got', not $mm"
done
check "editor/textmate/package.json" \
  "$(sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' "$src/editor/textmate/package.json")"
check "CHANGELOG.md's newest release" \
  "$(sed -n 's/^## \[\([0-9][0-9.]*\)\].*/\1/p' "$src/CHANGELOG.md" | head -n 1)"
spack=$src/packaging/spack/spack_repo/parray/packages/parray/package.py
check "the Spack package's newest version" \
  "$(sed -n 's/^ *version("\([0-9][0-9.]*\)".*/\1/p' "$spack" | head -n 1)"
# find_package(Parray X.Y ...) wherever users or tests copy it from
refs=$(mktemp)
trap 'rm -f "$refs"' EXIT
grep -rnoE 'find_package\(Parray [0-9][0-9.]*' "$src/README.md" "$src/docs" "$src/cmake" "$src/tests" \
  "$src/examples" >"$refs" 2>/dev/null
n=0
while IFS= read -r r; do
  n=$((n + 1))
  case $r in
    *"find_package(Parray $mm") ;;
    *) fail "${r#"$src"/} asks for another version than $mm" ;;
  esac
done <"$refs"
[ "$n" -gt 0 ] || fail "no find_package(Parray X.Y) found in the docs or tests (the search is broken)"
echo "$n find_package(Parray ...) lines looked at"
exit $failed
