#!/bin/sh
# check.sh - one translator test case, run by ctest.
#   check.sh golden BIN_DIR CASE.pc [pac options]  generated code equals CASE.expected
#   check.sh diag   BIN_DIR CASE.pc                 pac fails, stderr equals CASE.expected, no output left
#   check.sh run    BIN_DIR CASE.pc [pacc options]  the program's stdout equals CASE.expected
#   check.sh fail   BIN_DIR CASE.pc [pacc options]  the program stops with status 1, stderr equals CASE.expected
#   check.sh fault  BIN_DIR CASE.pc [pacc options]  the program dies of a signal, each line of CASE.expected
#                                                   on its stderr (the runtime's fault message)
# Cases run from their own directory with relative names, so that expected
# texts carry no absolute paths.
set -u
mode=$1 bin=$2 case=$3
shift 3
dir=$(cd "$(dirname "$case")" && pwd)
name=$(basename "$case")
expected="$dir/${name%.pc}.expected"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$dir" || exit 1
case $mode in
golden)
  "$bin/pac" --no-line "$@" "$name" -o "$tmp/out" 2>"$tmp/err" || { cat "$tmp/err"; exit 1; }
  diff -u "$expected" "$tmp/out" ;;
diag)
  cp "$name" "$tmp/" && cd "$tmp" || exit 1
  [ -d "$dir/lib" ] && cp -r "$dir/lib" "$tmp/"
  if "$bin/pac" "$@" "$name" -o "$tmp/out.c" 2>"$tmp/err"; then
    echo "pac accepted $name, expected errors"; exit 1
  fi
  if [ -e "$tmp/out.c" ] || ls "$tmp"/out.c.tmp* >/dev/null 2>&1; then
    echo "pac left an output file behind"; exit 1
  fi
  diff -u "$expected" "$tmp/err" ;;
run)
  "$bin/pacc" "$@" "$name" -o "$tmp/prog" || exit 1
  "$tmp/prog" >"$tmp/out" || { echo "exit status $?"; exit 1; }
  diff -u "$expected" "$tmp/out" ;;
fail)
  "$bin/pacc" "$@" "$name" -o "$tmp/prog" || exit 1
  "$tmp/prog" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  [ "$rc" -eq 1 ] || { echo "exit status $rc, expected 1"; cat "$tmp/err"; exit 1; }
  diff -u "$expected" "$tmp/err" ;;
fault)
  "$bin/pacc" "$@" "$name" -o "$tmp/prog" || exit 1
  "$tmp/prog" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  [ "$rc" -gt 128 ] || { echo "exit status $rc, expected the death by a signal"; cat "$tmp/err"; exit 1; }
  sh "$dir/../../expect_failure.sh" "$rc" "$tmp/err" "$expected" ;;
*)
  echo "unknown mode $mode"; exit 2 ;;
esac
