#!/bin/sh
# layout_pictures.sh - the layout pictures of the documentation stay what pac
# draws: every docs/img/PROG-TYPE.svg is redrawn with
# `pac --layout TYPE --svg FILE PROG.pc` (in docs/img) and must be the same,
# byte for byte; every picture is shown by some docs/*.md, and every picture a
# document shows exists.
#   layout_pictures.sh BINDIR DOCSDIR            check
#   layout_pictures.sh BINDIR DOCSDIR --update   redraw them in place
set -u
bin=$(cd "$1" && pwd)
docs=$(cd "$2" && pwd)
update=${3:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
n=0
cd "$docs/img" || exit 1
for f in *-*.svg; do
  [ -e "$f" ] || continue
  base=${f%.svg}
  prog=${base%-*}.pc
  type=${base##*-}
  n=$((n + 1))
  if ! "$bin/pac" --layout "$type" --svg "$tmp/$f" "$prog" 2>"$tmp/err"; then
    echo "FAIL $f: pac --layout $type --svg of $prog fails:"; cat "$tmp/err"; fail=$((fail + 1)); continue
  fi
  if [ "$update" = --update ]; then
    cp "$tmp/$f" "$f" && echo "drew $f"
  elif ! cmp -s "$tmp/$f" "$f"; then
    echo "FAIL $f: differs from what pac draws now (redraw: $0 BINDIR DOCSDIR --update)"; fail=$((fail + 1))
  else
    echo "ok   $f"
  fi
  grep -q "img/$f" "$docs"/*.md || { echo "FAIL $f: no document shows it"; fail=$((fail + 1)); }
done
[ "$n" -gt 0 ] || { echo "FAIL: no pictures in $docs/img"; exit 1; }
for f in $(grep -oh 'img/[A-Za-z0-9_]*-[A-Za-z0-9_]*\.svg' "$docs"/*.md | sort -u); do
  [ -e "$docs/$f" ] || { echo "FAIL $f: shown by the docs but not there"; fail=$((fail + 1)); }
done
[ "$fail" = 0 ] || { echo "$fail failure(s)"; exit 1; }
echo "$n pictures as pac draws them"
