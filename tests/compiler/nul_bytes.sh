#!/bin/sh
# nul_bytes.sh - runs of NUL bytes in a comment, a string, a character
# constant and a #define (1 MiB each) are scanned in time linear in their
# length and come out unchanged, run by ctest:
#   nul_bytes.sh BIN_DIR
# (the scanner's copy has them as 0x01: flex took every NUL for the end of
# its buffer and rescanned the token, quadratic in the run's length; a
# 128 KiB run took 16 s). Each translation gets 60 s, far above what it
# needs, so that a runaway scanner fails the test instead of hanging it.
set -u
bin=$1
. "$(dirname "$0")/../common/shtest.sh"
python3 - <<'PY'
run = b'\0' * (1 << 20)
cases = {
    'comment': b'/* ' + run + b' */\nint main(void) { return 0; }\n',
    'string': b'const char s[] = "' + run + b'";\nint main(void) { return (int)(sizeof s != 1048577); }\n',
    'char': b"int c = '" + run + b"';\nint main(void) { return 0; }\n",
    'define': b'#define X "' + run + b'"\nint main(void) { return 0; }\n',
}
for name, text in cases.items():
    open(name + '.pc', 'wb').write(text)
PY
for c in comment string char define; do
  timeout 60 "$bin/pac" "$c.pc" -o "$c.c" 2>err
  rc=$?
  [ $rc -eq 0 ] || { head -c 300 err; fail "$c: pac exited $rc (124: still scanning after 60 s)"; continue; }
  n=$(python3 -c "import sys; print(open(sys.argv[1], 'rb').read().count(b'\0'))" "$c.c")
  [ "$n" = 1048576 ] || fail "$c: $n NUL bytes in the translation, not 1048576"
done
finish
