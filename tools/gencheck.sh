#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# gencheck.sh - translate every .pc file of the repository with one pac into
# a folder (FILE.pc -> OUT/FILE.pc.out, pac's exit status and messages in
# OUT/FILE.pc.msg; the checkout's path written ROOT), so that two pacs can be compared file by file: a change
# meant to keep the generated code the same shows no difference.
#   sh tools/gencheck.sh PAC OUT            (from the repository root)
#   sh tools/gencheck.sh PAC OUT BASELINE   (also compare with an earlier OUT;
#                                            exit 1 and list what differs)
set -u
pac=$1 out=$2 base=${3:-}
mkdir -p "$out"
root=$(pwd)
git ls-files '*.pc' | while read -r f; do
  o=$out/$f.out
  mkdir -p "$(dirname "$o")"
  "$pac" -I "$(dirname "$f")" "$f" -o "$o" >"$out/$f.msg" 2>&1
  echo "exit $?" >>"$out/$f.msg"
  [ -f "$o" ] || : >"$o"
  sed -i "s|$root|ROOT|g" "$o" "$out/$f.msg" # the same text from any checkout
done
[ -n "$base" ] || exit 0
if diff -r -q "$base" "$out" >"$out.diff"; then
  echo "gencheck: no difference from $base"
else
  echo "gencheck: these differ from $base:"
  cat "$out.diff"
  exit 1
fi
