#!/bin/sh
# pacc_include.sh - pacc finds `#include "..."` headers next to the .pc file
# whatever the working directory, and before a same-named header in a -I
# folder, as the C compiler does when it compiles a source where it lies.
#   pacc_include.sh BIN_DIR RUN_DIR   (RUN_DIR: tests/compiler/run)
set -u
bin=$1 run=$(cd "$2" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/decoy/lib" "$tmp/elsewhere"
echo '#error "the -I folder was searched before the source folder"' >"$tmp/decoy/lib/local_sum.h"
fail=0
build() { # build() LABEL DIR PACC-ARGS...: build in DIR, run, check the output
  label=$1 dir=$2
  shift 2
  rm -f "$tmp/prog"
  if ! (cd "$dir" && "$bin/pacc" "$@" -o "$tmp/prog"); then
    echo "FAIL ($label): pacc failed"; fail=1; return
  fi
  out=$("$tmp/prog")
  if [ "$out" != "PASS sum=51" ]; then
    echo "FAIL ($label): the program printed '$out'"; fail=1; return
  fi
  echo "ok ($label)"
}
build "absolute path, other folder" "$tmp/elsewhere" "$run/include_local.pc"
build "relative path, parent folder" "$run/.." run/include_local.pc
build "relative path through ..," "$tmp/elsewhere" "$(realpath --relative-to="$tmp/elsewhere" "$run")/include_local.pc"
build "-I folder with the same header" "$tmp/elsewhere" -I "$tmp/decoy" "$run/include_local.pc"
exit $fail
