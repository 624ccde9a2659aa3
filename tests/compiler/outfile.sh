#!/bin/sh
# outfile.sh - where pac may write its output, run by ctest:
#   outfile.sh BIN_DIR CASE.pc
# -o naming the input file (by any spelling, a symbolic or a hard link) is
# refused and the input left as it was; /dev/null stays a character device;
# a FIFO and '-' get the output straight; a directory that cannot be written,
# a full device or a write that fails half-way leave nothing behind (and a
# file that was there before stays as it was); an output name is never made
# from /dev/stdin; a replaced output keeps its mode and hard links; a dangling
# symbolic link is followed; a signal during the write leaves nothing; -MD never writes its rule over the translation, nor
# leaves a translation behind when the rule cannot be written; a layout
# report that cannot be written is an error.
set -u
bin=$1 case=$2
pac="$bin/pac"
. "$(dirname "$0")/../common/shtest.sh"
cp "$case" x.pc
no_temp() { ls "$1".tmp* >/dev/null 2>&1 && fail "a temporary file $1.tmp* was left"; }

"$pac" x.pc -o ref.c 2>err || { cat err; fail "pac x.pc -o ref.c"; }
[ -s ref.c ] || fail "ref.c is empty"

# the input file as the output, however it is named
ln -s x.pc sym.pc
ln x.pc hard.pc
mkdir sub
for o in x.pc ./x.pc "$t/x.pc" sub/../x.pc sym.pc hard.pc; do
  if "$pac" x.pc -o "$o" 2>err; then fail "-o $o (the input) was accepted"; fi
  grep -q "^pac: error: output file '$o' is the input file$" err || { cat err; fail "-o $o: no message"; }
  cmp -s "$case" x.pc || fail "-o $o changed the input"
  no_temp "$o"
done
[ -L sym.pc ] || fail "sym.pc is no longer a symbolic link"

# a symbolic link to another file: the file is replaced, the link stays
echo old >target.c
ln -s target.c link.c
"$pac" x.pc -o link.c 2>err || { cat err; fail "-o link.c"; }
[ -L link.c ] && cmp -s ref.c target.c || fail "-o link.c did not write through the link"

# /dev/null stays a device (only where it can be written)
if [ -w /dev/null ] && [ -c /dev/null ]; then
  "$pac" x.pc -o /dev/null 2>err || { cat err; fail "-o /dev/null"; }
  [ -c /dev/null ] || fail "/dev/null is no longer a character device"
fi

# a FIFO is written straight
mkfifo fifo
cat fifo >fifo.out &
reader=$!
if "$pac" x.pc -o fifo 2>err; then :; else
  cat err; fail "-o fifo"
  [ -p fifo ] && : >fifo # let the reader finish
fi
if [ -p fifo ]; then wait "$reader"; else
  fail "the FIFO was replaced"
  kill "$reader"
fi
cmp -s ref.c fifo.out || fail "what came through the FIFO differs from ref.c"

# '-' is stdout
"$pac" x.pc -o - >stdout.c 2>err || { cat err; fail "-o -"; }
cmp -s ref.c stdout.c || fail "-o - differs from ref.c"

# a folder that does not exist, one that cannot be written, a folder as the output
if "$pac" x.pc -o nodir/x.c 2>err; then fail "-o nodir/x.c was accepted"; fi
grep -q "^pac: error: cannot write 'nodir/x.c': " err || { cat err; fail "-o nodir/x.c: no message"; }
[ -e nodir ] && fail "nodir was created"
mkdir ro && chmod 555 ro
if touch ro/probe 2>/dev/null; then
  rm -f ro/probe # root writes anyway: nothing to check here
else
  if "$pac" x.pc -o ro/x.c 2>err; then fail "-o ro/x.c was accepted"; fi
  grep -q "^pac: error: cannot write 'ro/x.c': " err || { cat err; fail "-o ro/x.c: no message"; }
  [ -z "$(ls -A ro)" ] || fail "something was left in ro: $(ls -A ro)"
fi
if "$pac" x.pc -o sub 2>err; then fail "-o sub (a folder) was accepted"; fi
grep -q "^pac: error: cannot write 'sub': " err || { cat err; fail "-o sub: no message"; }

# a device that fails every write
if [ -c /dev/full ] && [ -w /dev/full ]; then
  if "$pac" x.pc -o /dev/full 2>err; then fail "-o /dev/full was accepted"; fi
  grep -q "^pac: error: cannot write '/dev/full': " err || { cat err; fail "-o /dev/full: no message"; }
  [ -c /dev/full ] || fail "/dev/full is no longer a character device"
fi

# a write that fails half-way (file size limit): the old file stays, no temporary file
cp x.pc big.pc
i=0
while [ $i -lt 12 ]; do cat big.pc big.pc >big2.pc && mv big2.pc big.pc; i=$((i + 1)); done
echo old >big.c
if (trap '' XFSZ; ulimit -f 64 && exec "$pac" big.pc -o big.c) 2>err; then
  fail "a write past the file size limit was accepted"
fi
grep -q "^pac: error: cannot write 'big.c': " err || { cat err; fail "big.c: no message"; }
[ "$(cat big.c)" = old ] || fail "big.c was changed by a failed write"
no_temp big.c
rm -f big.c
if (trap '' XFSZ; ulimit -f 64 && exec "$pac" big.pc -o big.c) 2>/dev/null; then fail "second big write accepted"; fi
[ -e big.c ] && fail "a failed write left big.c"
no_temp big.c

# an output replaced keeps its mode; a hard link to it stays one (both names
# see the new text); a dangling symbolic link creates the file it names and
# stays a link
"$pac" x.pc -o m.c && chmod 640 m.c && "$pac" x.pc -o m.c 2>err || { cat err; fail "-o m.c twice"; }
[ "$(stat -c %a m.c)" = 640 ] || fail "m.c's mode 640 became $(stat -c %a m.c)"
echo old >h.c && ln h.c h2.c
"$pac" x.pc -o h.c 2>err || { cat err; fail "-o h.c (hard-linked)"; }
[ "$(stat -c %h h.c)" = 2 ] && cmp -s h.c ref.c && cmp -s h2.c ref.c || fail "the hard link h2.c to h.c was broken"
no_temp h.c
ln -s made.c dangling.c
"$pac" x.pc -o dangling.c 2>err || { cat err; fail "-o dangling.c (a dangling link)"; }
[ -L dangling.c ] && cmp -s made.c ref.c || fail "the dangling link was replaced, or made.c not written"
# a signal that ends pac while the output is written (here: SIGTERM just
# before the temporary file is renamed into place, through a preloaded
# rename) leaves neither the temporary file nor the output
if command -v cc >/dev/null 2>&1; then
  cat >sig.c <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
int rename(const char *from, const char *to) {
  int (*real)(const char *, const char *);
  *(void **)&real = dlsym(RTLD_NEXT, "rename");
  raise(SIGTERM);
  return real(from, to);
}
C
  if cc -shared -fPIC sig.c -o sig.so -ldl 2>err; then
    ASAN_OPTIONS=verify_asan_link_order=0 LD_PRELOAD=$t/sig.so "$pac" x.pc -o sig_out.c 2>err
    rc=$?
    [ $rc -eq 143 ] || { cat err; fail "pac ended by SIGTERM exited $rc, not by the signal"; }
    [ -e sig_out.c ] && fail "SIGTERM during the write left sig_out.c"
    no_temp sig_out.c
  else
    cat err; fail "the preloaded rename did not build"
  fi
fi
# an output name made from an input that is not a regular file: refused
# (it would land in /dev); with -o it is fine
if "$pac" /dev/stdin <x.pc 2>err; then fail "pac /dev/stdin without -o was accepted"; fi
grep -q "is not a regular file, so no output name can be made from it" err || { cat err; fail "/dev/stdin: no message"; }
"$pac" /dev/stdin -o stdin.c <x.pc 2>err && [ -s stdin.c ] || { cat err; fail "pac /dev/stdin -o stdin.c"; }
# the dependency rule never written over the translation, and a rule that
# cannot be written (a folder) leaves no translation behind
if "$pac" x.pc -MD -o x.d 2>err; then fail "-MD -o x.d (the rule over the translation) was accepted"; fi
grep -q "would be written over the translation 'x.d'" err || { cat err; fail "-MD -o x.d: no message"; }
[ -e x.d ] && fail "-MD -o x.d wrote x.d"
mkdir y.d
if "$pac" x.pc -MD -o y.c 2>err; then fail "-MD with y.d a folder was accepted"; fi
grep -q "'y.d' is a folder" err || { cat err; fail "-MD, y.d a folder: no message"; }
[ -e y.c ] && fail "-MD with y.d a folder left y.c written"
# the layout report on a full device: an error, not a lost report
if [ -w /dev/full ]; then
  if "$pac" x.pc --layout "$(sed -n 's/^#parray {[^}]*} *\([A-Za-z_][A-Za-z0-9_]*\).*/\1/p' x.pc | head -n 1)" >/dev/full 2>err; then
    fail "--layout >/dev/full exited 0"
  fi
  grep -q "cannot write the layout" err || { cat err; fail "--layout >/dev/full: no message"; }
fi

finish
