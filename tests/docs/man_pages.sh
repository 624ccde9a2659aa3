#!/bin/sh
# man_pages.sh - docs/man/pac.1 and pacc.1 render without warnings, and each
# lists every option and environment variable that `pac --help` and
# `pacc --help` name, so the pages cannot fall behind the programs.
# Usage: man_pages.sh BINDIR MANDIR   (exits 77, skipped, without groff)
set -u
bin=$1
man=$2
command -v groff >/dev/null 2>&1 || { echo "skipped: groff is not installed"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
for prog in pac pacc; do
  page=$man/$prog.1
  # render as plain ASCII (\- stays '-'); any warning is a failure
  if ! LC_ALL=C groff -man -Tascii -ww -z "$page" 2>"$tmp/warn" || [ -s "$tmp/warn" ]; then
    echo "FAIL $page: groff warns:"; cat "$tmp/warn"; fail=$((fail + 1))
  fi
  LC_ALL=C groff -man -Tascii -P-cbou "$page" 2>/dev/null >"$tmp/$prog.txt"
  [ -s "$tmp/$prog.txt" ] || { echo "FAIL $page renders empty"; fail=$((fail + 1)); continue; }
  "$bin/$prog" --help >"$tmp/$prog.help" 2>&1
  # options: words that start with - or -- after a blank, '(' or ','
  opts=$(grep -oE '(^|[ (,])--?[A-Za-z#][-A-Za-z0-9_#]*' "$tmp/$prog.help" | sed 's/^[ (,]//' | sort -u)
  # environment variables: the upper-case words of the environment lines
  envs=$(sed -n '/^environment:/,$p' "$tmp/$prog.help" | sed 's/"[^"]*"//g' |
         grep -oE '\b[A-Z][A-Z_]+[A-Z]\b' | sort -u)
  [ -n "$opts" ] || { echo "FAIL: no option found in $prog --help"; fail=$((fail + 1)); }
  n=0
  for o in $opts $envs; do
    n=$((n + 1))
    grep -qF -e "$o" "$tmp/$prog.txt" || { echo "FAIL $page does not mention $o"; fail=$((fail + 1)); }
  done
  echo "$page: $n options and variables of $prog --help checked"
done
[ "$fail" -eq 0 ]
