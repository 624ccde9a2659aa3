#!/bin/sh
# doc_examples.sh - the examples of docs/*.md that are complete programs are
# translated, compiled and run, so the documentation cannot drift from pac.
#   ```c run       a complete program; it must build, exit 0 and print what
#                  the next ```output block holds (```output sorted: the lines
#                  in any order, for thread arrays)
#   ```c mpi=N     a complete program with mpi thread arrays, run on N
#                  processes with mpirun (translated only without mpirun)
#   ```c gpu       a complete CUDA program: always translated by pac; compiled
#                  when nvcc and the CUDA runtime are built; run (and its
#                  ```output compared) only on a machine with a GPU
#   ```c gpu-mpi=N a CUDA program with mpi thread arrays (distributed device
#                  arrays): as gpu, compiled when the MPI runtime is built
#                  too, and run on N processes with mpirun
#   ```layout T    the exact output of `pac --layout T` on the program before
#   ```generated   lines that must appear, together and in this order, in what
#                  pac writes for the program before (--emit=cuda for a gpu one)
# A program block may name its file: ```c gpu file=fig13.pc (default prog.pc);
# pac runs in the program's folder, so the generated code names that file.
# Usage: doc_examples.sh BINDIR DOCSDIR   (BINDIR holds pac and pacc)
set -u
bin=$(cd "$1" && pwd)
docs=$(cd "$2" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
progs=0

# extract: one manifest line per block: "prog N KIND MD LINE FILE", "out N
# SORTED", "layout N TYPE M", "gen N M"; the program goes to $tmp/N/FILE, the
# other blocks to $tmp/N.out, N.M.lay, N.M.gen
extract() {
  awk -v dir="$tmp" -v md="$1" -v base="$2" '
    function start(f) { file = f; inblock = 1 }
    function prog(kind,   f) {
      f = "prog.pc"; if ($3 ~ /^file=[A-Za-z0-9_.-]+[.]pc$/) f = substr($3, 6)
      n++; print "prog " base n " " kind " " md " " FNR " " f
      system("mkdir -p \"" dir "/" base n "\""); start(dir "/" base n "/" f)
    }
    !inblock && /^```c (run|gpu|mpi=[0-9]+|gpu-mpi=[0-9]+)( file=[^ ]*)?[ \t]*$/ { prog($2); next }
    !inblock && /^```output( sorted)?[ \t]*$/ {
      if (n == 0) { print "orphan output " md " " FNR; start("/dev/null"); next }
      print "out " base n " " ($2 == "sorted"); start(dir "/" base n ".out"); next }
    !inblock && /^```layout [A-Za-z_][A-Za-z0-9_]*[ \t]*$/ {
      if (n == 0) { print "orphan layout " md " " FNR; start("/dev/null"); next }
      m++; print "layout " base n " " $2 " " m; start(dir "/" base n "." m ".lay"); next }
    !inblock && /^```generated[ \t]*$/ {
      if (n == 0) { print "orphan generated " md " " FNR; start("/dev/null"); next }
      m++; print "gen " base n " " m; start(dir "/" base n "." m ".gen"); next }
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

run_prog() { # N KIND WHERE FILE
  n=$1; kind=$2; where=$3; file=$4
  progs=$((progs + 1)) launch=
  emit=c; gpu=0
  case $kind in gpu | gpu-mpi=*) emit=cuda gpu=1 ;; esac
  if ! (cd "$tmp/$n" && "$bin/pac" --emit=$emit "$file" -o "$tmp/$n.gen") 2>"$tmp/err"; then
    echo "FAIL $where: pac rejects the example:"; cat "$tmp/err"; fail=$((fail + 1)); return
  fi
  if [ "$gpu" = 1 ] && ! have_gpu_build; then
    echo "ok   $where (translated; no CUDA build: not compiled)"; return
  fi
  case $kind in gpu-mpi=*)
    if ! [ -e "$bin/../lib/libparray_mpi_cuda.a" ] || ! command -v mpirun >/dev/null 2>&1; then
      echo "ok   $where (translated; no MPI with CUDA build: not compiled)"; return
    fi
    launch="mpirun --allow-run-as-root --oversubscribe -np ${kind#gpu-mpi=}" ;;
  esac
  case $kind in mpi=*)
    if ! command -v mpirun >/dev/null 2>&1; then echo "ok   $where (translated; no mpirun)"; return; fi
    if ! [ -e "$bin/../lib/libparray_mpi.a" ]; then echo "ok   $where (translated; built without MPI: not compiled)"; return; fi
    launch="mpirun --allow-run-as-root --oversubscribe -np ${kind#mpi=}" ;;
  esac
  if ! (cd "$tmp/$n" && "$bin/pacc" "$file" -o "$tmp/$n.exe") 2>"$tmp/err"; then
    echo "FAIL $where: pacc cannot build the example:"; cat "$tmp/err"; fail=$((fail + 1)); return
  fi
  if [ "$gpu" = 1 ] && ! have_gpu; then echo "ok   $where (compiled; no GPU: not run)"; return; fi
  if ! [ -e "$tmp/$n.out" ]; then
    echo "FAIL $where: no \`\`\`output block follows the program"; fail=$((fail + 1)); return
  fi
  # shellcheck disable=SC2086 # $launch is a command with arguments
  # stdin is the manifest being read: mpirun would swallow the rest of it
  if ! (cd "$tmp" && timeout 120 $launch "./$n.exe") </dev/null >"$tmp/$n.got" 2>"$tmp/err"; then
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
while read -r what a b c d e; do
  case $what in
    orphan) echo "FAIL $b:$c: a \`\`\`$a block with no program before it"; fail=$((fail + 1)) ;;
    prog) run_prog "$a" "$b" "$(basename "$c"):$d" "$e"; eval "where_$a=\$(basename \"\$c\"):\$d file_$a=\$e" ;;
    gen)
      w=""; eval "w=\$where_$a"
      if awk 'FNR == 1 { k++ } k == 1 { want = want $0 "\n"; next } { got = got $0 "\n" }
              END { exit !(index(got, want) > 0) }' "$tmp/$a.$b.gen" "$tmp/$a.gen"; then
        echo "ok   $w (generated code)"
      else
        echo "FAIL $w: these lines are not in what pac generates:"; cat "$tmp/$a.$b.gen"
        echo "--- pac generates:"; cat "$tmp/$a.gen"; fail=$((fail + 1))
      fi ;;
    layout)
      w=""; f=""; eval "w=\$where_$a f=\$file_$a"
      if (cd "$tmp/$a" && "$bin/pac" --layout "$b" "$f") >"$tmp/$a.$c.got" 2>"$tmp/err"; then
        compare "$tmp/$a.$c.lay" "$tmp/$a.$c.got" 0 "$w (layout $b)" && echo "ok   $w (layout $b)"
      else
        echo "FAIL $w: pac --layout $b fails:"; cat "$tmp/err"; fail=$((fail + 1))
      fi ;;
  esac
done <"$tmp/manifest"
if [ "$progs" -eq 0 ]; then echo "FAIL: no example program found in $docs"; exit 1; fi
echo "$progs example programs, $fail failures"
[ "$fail" -eq 0 ]
