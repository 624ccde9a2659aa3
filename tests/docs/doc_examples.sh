#!/bin/sh
# doc_examples.sh - the examples of docs/*.md that are complete programs are
# translated, compiled and run, so the documentation cannot drift from pac.
#   ```c run       a complete program; it must build, exit 0 and print what
#                  the next ```output block holds (```output sorted: the lines
#                  in any order, for thread arrays)
#   ```c gpu       a complete CUDA program: always translated by pac; compiled
#                  when nvcc and the CUDA runtime are built; run (and its
#                  ```output compared) only on a machine with a GPU
#   ```layout T    the exact output of `pac --layout T` on the program before
# Usage: doc_examples.sh BINDIR DOCSDIR   (BINDIR holds pac and pacc)
set -u
bin=$1
docs=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
progs=0

# extract: one manifest line per block: "prog N KIND MD LINE", "out N SORTED",
# "layout N TYPE M"; the block text goes to $tmp/N.pc, N.out, N.M.lay
extract() {
  awk -v dir="$tmp" -v md="$1" -v base="$2" '
    function start(f) { file = f; inblock = 1 }
    !inblock && /^```c run[ \t]*$/ { n++; print "prog " base n " run " md " " FNR; start(dir "/" base n ".pc"); next }
    !inblock && /^```c gpu[ \t]*$/ { n++; print "prog " base n " gpu " md " " FNR; start(dir "/" base n ".pc"); next }
    !inblock && /^```output( sorted)?[ \t]*$/ {
      if (n == 0) { print "orphan output " md " " FNR; start("/dev/null"); next }
      print "out " base n " " ($2 == "sorted"); start(dir "/" base n ".out"); next }
    !inblock && /^```layout [A-Za-z_][A-Za-z0-9_]*[ \t]*$/ {
      if (n == 0) { print "orphan layout " md " " FNR; start("/dev/null"); next }
      m++; print "layout " base n " " $2 " " m; start(dir "/" base n "." m ".lay"); next }
    !inblock && /^```/ { inblock = 1; file = ""; next }
    inblock && /^```[ \t]*$/ { inblock = 0; if (file != "" && file != "/dev/null") close(file); next }
    inblock && file != "" { print > file }
  ' "$1"
}

have_gpu_build() { [ -e "$bin/../lib/libparray_cuda.a" ] && command -v "${NVCC:-nvcc}" >/dev/null 2>&1; }
have_gpu() { nvidia-smi -L 2>/dev/null | grep -q '^GPU'; }

# compare FILE_EXPECTED FILE_GOT SORTED WHERE
compare() {
  if [ "$3" = 1 ]; then sort "$1" >"$1.s"; sort "$2" >"$2.s"; set -- "$1.s" "$2.s" "$3" "$4"; fi
  if ! diff -u "$1" "$2" >"$tmp/diff"; then
    echo "FAIL $4: output differs from the documented one:"; cat "$tmp/diff"; fail=$((fail + 1))
    return 1
  fi
}

run_prog() { # N KIND WHERE
  n=$1; kind=$2; where=$3
  progs=$((progs + 1))
  if [ "$kind" = gpu ]; then
    if ! "$bin/pac" --emit=cuda "$tmp/$n.pc" -o "$tmp/$n.cu" 2>"$tmp/err"; then
      echo "FAIL $where: pac rejects the example:"; cat "$tmp/err"; fail=$((fail + 1)); return
    fi
    if ! have_gpu_build; then echo "ok   $where (translated; no CUDA build: not compiled)"; return; fi
  fi
  if ! "$bin/pacc" "$tmp/$n.pc" -o "$tmp/$n.exe" 2>"$tmp/err"; then
    echo "FAIL $where: pacc cannot build the example:"; cat "$tmp/err"; fail=$((fail + 1)); return
  fi
  if [ "$kind" = gpu ] && ! have_gpu; then echo "ok   $where (compiled; no GPU: not run)"; return; fi
  if ! [ -e "$tmp/$n.out" ]; then
    echo "FAIL $where: no \`\`\`output block follows the program"; fail=$((fail + 1)); return
  fi
  if ! (cd "$tmp" && timeout 60 "./$n.exe") >"$tmp/$n.got" 2>"$tmp/err"; then
    echo "FAIL $where: the program failed:"; cat "$tmp/err"; fail=$((fail + 1)); return
  fi
  compare "$tmp/$n.out" "$tmp/$n.got" "$(cat "$tmp/$n.sorted" 2>/dev/null || echo 0)" "$where" &&
    echo "ok   $where"
}

for md in "$docs"/*.md; do
  base=$(basename "$md" .md)_
  extract "$md" "$base" >>"$tmp/manifest"
done
# the sorted flag of each output block
grep '^out ' "$tmp/manifest" | while read -r _ n s; do echo "$s" >"$tmp/$n.sorted"; done
while read -r what a b c d; do
  case $what in
    orphan) echo "FAIL $b:$c: a \`\`\`$a block with no program before it"; fail=$((fail + 1)) ;;
    prog) run_prog "$a" "$b" "$(basename "$c"):$d"; eval "where_$a=\$(basename \"\$c\"):\$d" ;;
    layout)
      w=""; eval "w=\$where_$a"
      if "$bin/pac" --layout "$b" "$tmp/$a.pc" >"$tmp/$a.$c.got" 2>"$tmp/err"; then
        compare "$tmp/$a.$c.lay" "$tmp/$a.$c.got" 0 "$w (layout $b)" && echo "ok   $w (layout $b)"
      else
        echo "FAIL $w: pac --layout $b fails:"; cat "$tmp/err"; fail=$((fail + 1))
      fi ;;
  esac
done <"$tmp/manifest"
if [ "$progs" -eq 0 ]; then echo "FAIL: no example program found in $docs"; exit 1; fi
echo "$progs example programs, $fail failures"
[ "$fail" -eq 0 ]
