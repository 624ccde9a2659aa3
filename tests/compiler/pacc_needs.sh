#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# pacc_needs.sh - the record of what a translation needs (docs/cli.md, "What
# a translation needs"), run by ctest:  pacc_needs.sh BIN_DIR TESTS_DIR
# pac --needs=FILE writes "parray-needs 1 target=... [pthd] [mpi] [sm=N]"
# (nothing when the translation fails, or with --layout); pacc -c keeps the
# same record in the object's .parray.needs section; when objects are linked
# later pacc reads their records, an older pacc's "pacc-needs: ..." too, and
# warns about a newer version while still reading the words it knows.
set -u
bin=$1 tests=$(cd "$2" && pwd)
pac="$bin/pac" pacc="$bin/pacc"
. "$(dirname "$0")/../common/shtest.sh"
# needs FILE.pc WANT [PAC OPTIONS]: pac --needs writes exactly WANT
needs() {
  f=$1 want=$2
  shift 2
  rm -f rec
  "$pac" "$@" "$f" -o out.c --needs=rec 2>err || { cat err; fail "pac $f"; return; }
  [ "$(cat rec 2>/dev/null)" = "$want" ] || fail "pac --needs=rec $f: '$(cat rec 2>/dev/null)', not '$want'"
}

printf '#include <stdio.h>\n#parray {paged int [3]} P\nint main(void) { printf("%%d\\n", $P[2]$); return 0; }\n' >plain.pc
needs plain.pc 'parray-needs 1 target=c'
needs "$tests/../examples/matmul_2_pthd.pc" 'parray-needs 1 target=c pthd'
needs "$tests/mpi/scatter_gather.pc" 'parray-needs 1 target=c mpi' --no-cpp
needs "$tests/compiler/golden/cuda_copy_tma.pc" 'parray-needs 1 target=cuda sm=90' --no-cpp --emit=cuda
head -n 2 out.c | grep -q '^/\* pac: target=cuda pthd=0 mpi=0 sm=90 \*/' || fail "the generated code's second line changed"

# no record when nothing is translated
printf 'int main(void) { return undeclared; #create }\n' >bad.pc
rm -f rec
"$pac" bad.pc -o out.c --needs=rec 2>err && fail "bad.pc was accepted"
[ -e rec ] && fail "a record written for a failed translation"
"$pac" plain.pc --layout P --needs=rec >out 2>err || { cat err; fail "pac --layout"; }
[ -e rec ] && fail "a record written with --layout"
"$pac" plain.pc -o out.c --needs=/nonexistent/dir/rec 2>err && fail "an unwritable record is no error"
grep -q "cannot write '/nonexistent/dir/rec'" err || fail "no message for an unwritable record: $(cat err)"

# pacc -c: the object carries the same record
"$pacc" -c plain.pc -o plain.o 2>err || { cat err; fail "pacc -c plain.pc"; }
readelf -p .parray.needs plain.o | grep -q '  parray-needs 1 target=c$' || fail "plain.o: $(readelf -p .parray.needs plain.o)"

# objects that link later: records of this pacc, of an older one, of a newer one
obj() { # obj NAME RECORD: NAME.o whose .parray.needs section holds RECORD
  printf 'static const char r_[] __attribute__((used, section(".parray.needs"))) = "%s";\nint %s_f(void) { return 1; }\n' \
    "$2" "$1" >"$1.c"
  cc -c "$1.c" -o "$1.o" || fail "cc $1.c"
}
printf 'int main(void) { return 0; }\n' >main.c
cc -c main.c -o main.o || fail "cc main.c"
printf '#!/bin/sh\necho "fake-mpicc $*" >>mpicc.log\nexec cc "$@"\n' >fake-mpicc
chmod +x fake-mpicc
# link OBJ...: pacc -v links them (MPICC a fake that runs cc); err holds its messages
link() { rm -f prog mpicc.log; MPICC="$t/fake-mpicc" "$pacc" -v main.o "$@" -o prog 2>err; }
obj old_mpi 'pacc-needs: pthd mpi'
link old_mpi.o
grep -q -- '-lparray_mpi\|uses MPI' err || fail "an older pacc's mpi object not linked for MPI: $(cat err)"
obj new_plain 'parray-needs 1 target=c pthd'
link new_plain.o || fail "a plain object: $(cat err)"
grep -q -- '-lparray_mpi\|-lparray_cuda\|uses MPI\|uses CUDA' err && fail "a plain object linked for MPI or CUDA: $(cat err)"
[ -e mpicc.log ] && fail "a plain object linked with mpicc"
obj new_mpi 'parray-needs 1 target=c mpi'
link new_plain.o new_mpi.o
grep -q -- '-lparray_mpi\|uses MPI' err || fail "an mpi object not linked for MPI: $(cat err)"
obj future 'parray-needs 2 target=c mpi quantum=1'
link future.o
grep -q "future.o' says what it needs in a newer record" err || fail "no warning for a newer record: $(cat err)"
grep -q -- '-lparray_mpi\|uses MPI' err || fail "a newer record's mpi not read: $(cat err)"
obj noise 'parray-needsless mpi'
link noise.o || fail "an object with a look-alike string: $(cat err)"
grep -q -- '-lparray_mpi\|uses MPI' err && fail "a look-alike string read as a record"

finish "all passed"
