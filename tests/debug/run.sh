#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# run.sh - debugging a pac program by its own names (docs/debugging.md):
# built with pacc -g -O0, run under the debugger in batch mode, stopped at a
# line of a #detour body, the captured variables and the thread's position
# printed and checked.
#   sh run.sh cpu BUILD_DIR   gdb on pthd.pc: at the body's line in the thread
#                             whose $tid$ is 4, *part, *scale, pos[4] after
#                             the line ran, parray__tid, parray__tid_0/_1
#   sh run.sh gpu BUILD_DIR   cuda-gdb on cuda.pc (built with -G): at the
#                             body's line in the thread whose $tid$ is 133
#                             (block 2, thread 5), part and parray__tid,
#                             parray__tid_0/_1
# Exit 77 (skipped): no gdb (cpu); no cuda-gdb or no GPU (gpu); a debugger
# that may not trace processes here (ptrace refused).
set -u
export LC_ALL=C
mode=${1:?usage: run.sh cpu|gpu BUILD_DIR} build=$(cd "${2:?usage: run.sh cpu|gpu BUILD_DIR}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
fail() { echo "FAIL: $*" >&2; exit 1; }
if [ "$mode" = cpu ]; then
  dbg=${GDB:-gdb} src=pthd.pc opts="-g -O0"
else
  dbg=${CUDA_GDB:-cuda-gdb} src=cuda.pc opts="-g -G -O0"
  nvidia-smi -L 2>/dev/null | grep -q '^GPU' || { echo "SKIP: no CUDA device on this machine"; exit 77; }
fi
command -v "$dbg" >/dev/null 2>&1 || { echo "SKIP: $dbg is not installed (the debugger this test drives)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$here/$src" "$tmp/" && cd "$tmp" || exit 1
# shellcheck disable=SC2086 # opts are several options
"$build/bin/pacc" $opts "$src" -o prog || fail "pacc $opts $src does not build"
./prog >out || fail "$src does not run: $(cat out)"
grep -qx PASS out || fail "$src computed wrong values: $(cat out)"
# the body's line: the one that assigns through \$tid\$
line=$(grep -n '\[\$tid\$\] =' "$src" | cut -d: -f1)
[ -n "$line" ] || fail "no body line in $src"
# each value as NAME=VALUE on a line of its own
show() { printf -- "-ex\necho %s=\n-ex\noutput %s\n-ex\necho \\\\n\n" "$1" "$2"; }
if [ "$mode" = cpu ]; then
  {
    printf -- "-ex\nbreak %s:%s if parray__tid == 4\n-ex\nrun\n" "$src" "$line"
    show part '*part'; show scale '*scale'; show size_part 'sizeof(*part)'
    show tid parray__tid; show tid_0 parray__tid_0; show tid_1 parray__tid_1
    printf -- "-ex\nnext\n"
    show pos4 'pos[4]'
    printf -- "-ex\nkill\n"
  } >cmds
  expected='part=42
scale=0.5
size_part=4
tid=4
tid_0=1
tid_1=1
pos4=54'
else
  {
    # stopped as the kernel starts (every thread at the body's first line),
    # the focus on the thread whose $tid$ is 133 (block 2, thread 5), one
    # step of its warp through the body's line
    printf -- "-ex\nset cuda break_on_launch application\n-ex\nrun\n-ex\nset cuda break_on_launch none\n"
    printf -- "-ex\ncuda block (2,0,0) thread (5,0,0)\n-ex\nnext\n"
    show part part; show tid parray__tid; show tid_0 parray__tid_0; show tid_1 parray__tid_1
    printf -- "-ex\nkill\n"
  } >cmds
  expected='part=42
tid=133
tid_0=2
tid_1=5'
fi
# the commands as arguments, one per line of cmds
set --
while IFS= read -r a; do set -- "$@" "$a"; done <cmds
env -u DEBUGINFOD_URLS "$dbg" -batch -nx "$@" ./prog >log 2>&1
if grep -q 'ptrace: Operation not permitted\|Could not attach\|could not run under the debugger' log; then
  echo "SKIP: $dbg may not trace processes on this machine: $(grep -m1 'ptrace\|attach' log)"; exit 77
fi
# the body's line is in the body only, not also in the code that starts the threads
[ "$mode" = gpu ] || grep -q "^Breakpoint 1 at .*line $line\.\$" log || fail "break $src:$line is not one location in the body: $(grep -m1 '^Breakpoint 1' log)"
grep '^[a-z_0-9]*=' log >got
printf '%s\n' "$expected" >want
diff -u want got || fail "$dbg printed other values than expected (the session: $(cat log))"
echo "PASS: $dbg read the captures and the thread's position of $src by their names"
