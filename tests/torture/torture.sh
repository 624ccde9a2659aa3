#!/bin/sh
# torture.sh - pac's pass-through on GCC's C torture suite
# (gcc.c-torture/execute: self-checking programs that call abort() on failure).
# Every program is compiled and run directly, and translated by pac, compiled
# with the same compiler and flags and run; a program that passes directly must
# pass through pac, and pac's output must be the source unchanged between its
# #line markers (sametext.awk). docs/torture.md describes the checks.
#   torture.sh extract TREE [TARBALL]   unpack the suite into TREE (fixture setup)
#   torture.sh shard TREE BIN INC CC K N [REL...]  check every N-th program
#                                       from the K-th (or the programs named)
#   torture.sh summary TREE             add up the shards' results
# Exit status 77 (skipped) when GCC's source is not installed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
sub=gcc/testsuite/gcc.c-torture/execute

missing() {
  echo "skipped: GCC's source tarball was not found under /usr/src/gcc-*/ --"
  echo "install Debian's gcc-12-source (tools/deps-test.sh does, as root)"
  exit 77
}

# extract TREE [TARBALL]: unpack only the execute directory, once per tarball.
extract() {
  tree=$1 tarball=${2:-}
  if [ -n "$tarball" ]; then
    [ -f "$tarball" ] || { echo "$tarball (PARRAY_GCC_SOURCE) does not exist"; exit 1; }
  else
    # shellcheck disable=SC2012
    tarball=$(ls /usr/src/gcc-*/gcc-[0-9]*.tar.* 2>/dev/null | tail -1)
  fi
  [ -n "$tarball" ] || missing
  rm -rf "$tree/results"
  mkdir -p "$tree/results" || exit 1
  if [ "$(cat "$tree/stamp" 2>/dev/null)" != "$tarball" ]; then
    rm -rf "$tree/src" "$tree/stamp"
    mkdir -p "$tree/src" || exit 1
    echo "extracting $sub from $tarball"
    tar -xf "$tarball" -C "$tree/src" --strip-components=1 --wildcards "*/$sub/*" ||
      { echo "cannot extract $sub from $tarball"; exit 1; }
    echo "$tarball" >"$tree/stamp"
  fi
  echo "$(programs "$tree/src/$sub" | wc -l) programs in $tree/src/$sub"
}

# programs DIR: the programs under the execute directory DIR, sorted (the
# NAME-lib.c files of builtins/ are parts of their programs).
programs() {
  # shellcheck disable=SC2010
  (cd "$1" && ls -- *.c ieee/*.c builtins/*.c | grep -v -- '-lib\.c$')
}

# skip_reason FILE: why FILE is not checked, or nothing. '$' in identifiers
# clashes with Parray's $...$ offset expressions by design (comments and
# string literals are removed before looking).
skip_reason() {
  grep -q '\$' "$1" || return 0
  if "$CC" -fpreprocessed -E -P -w "$1" 2>/dev/null |
     sed -e 's/"\([^"\\]\|\\.\)*"//g' -e "s/'\([^'\\\\]\|\\\\.\)*'//g" |
     grep -q '[A-Za-z0-9_]\$\|\$[A-Za-z_]'; then
    echo "dollar-identifier"
  fi
}

# dg_flags FILE: the options of its dg-options and dg-additional-options
# lines, except those for a target selector that does not name x86_64 (or
# names ia32); the flags the directory's .exp file gives (ieee/, builtins/);
# and those of the unindented 'set/lappend additional_flags' lines of its .x
# file (the rest of those files concerns other targets).
dg_flags() {
  sed -n 's/.*{ *dg-\(additional-\)\{0,1\}options *{\{0,1\} *"\([^"]*\)" *}\{0,1\}\(.*\)/\2|\3/p' "$1" |
  while IFS='|' read -r opts sel; do
    case $sel in
    *target*ia32*) ;;
    *target*x86_64*) printf ' %s' "$opts" ;;
    *target*) ;;
    *) printf ' %s' "$opts" ;;
    esac
  done
  case $1 in
  */ieee/*) printf ' -fno-inline' ;;
  */builtins/*) printf ' -fno-tree-dse -fno-tree-loop-distribute-patterns -fno-tracer -fno-ipa-ra -fno-inline-functions' ;;
  esac
  x=${1%.c}.x
  [ ! -f "$x" ] || sed -n 's/^\(set\|lappend\) additional_flags //p' "$x" | tr -d '"' | tr '\n' ' ' | sed 's/^/ /'
}

# files REL: the files of the program REL, its own first: a builtins/ program
# is linked with its NAME-lib.c and lib/main.c (as builtins.exp does).
files() {
  case $1 in
  builtins/*) echo "$1 ${1%.c}-lib.c builtins/lib/main.c" ;;
  *) echo "$1" ;;
  esac
}

# note STATUS NAME DETAIL: one result line: the status (pass, fail, skip,
# uncounted), the name, how the program did without pac ($ok), the detail.
note() {
  echo "$1 $2 $ok $3" >>"$results"
  [ "$1" != fail ] || { echo "FAIL $2: $3"; [ -s "$tmp/why" ] && sed 's/^/    /' "$tmp/why" | head -8; }
  return 0
}

# direct FILES: pass, or why the program does not pass when compiled (with
# $flags) and run without pac.
direct() {
  # shellcheck disable=SC2086
  if ! "$CC" $flags -I "$sdir" "$@" -o "$tmp/direct" -lm >/dev/null 2>&1; then echo "does-not-compile"
  elif ! (cd "$tmp" && timeout 10 ./direct) >/dev/null 2>&1; then echo "fails-when-run"
  else echo pass
  fi
}

# translate FILES: pac on each file (to $tmp/tI.c), each output checked by
# sametext.awk; notes a failure (or an uncounted program) and returns 1.
translate() {
  i=0
  for f in "$@"; do
    "$BIN/pac" "$f" -o "$tmp/t$i.c" >/dev/null 2>"$tmp/why"; rc=$?
    if [ $rc -ge 128 ] || grep -q 'Sanitizer\|runtime error' "$tmp/why"; then
      note fail "$name" "pac crashed on ${f#"$dir"/} (exit status $rc)"; return 1
    fi
    if [ $rc -ne 0 ]; then
      if [ "$ok" = pass ]; then note fail "$name" "pac rejected ${f#"$dir"/}"; else note uncounted "$name" ""; fi
      return 1
    fi
    if ! LC_ALL=C awk -v src="$f" -v name="$f" -f "$here/sametext.awk" "$tmp/t$i.c" >"$tmp/why" 2>&1; then
      note fail "$name" "the text of ${f#"$dir"/} changed"; return 1
    fi
    i=$((i + 1))
  done
}

# check REL: one program (REL is its path under the execute directory).
check() {
  src=$dir/$1 name=$(echo "$1" | tr / _) sdir=$(dirname "$dir/$1")
  : >"$tmp/why"
  rm -f "$tmp"/t*.c
  ok=-
  reason=$(skip_reason "$src")
  [ -z "$reason" ] || { note skip "$name" "$reason"; return; }
  flags="-O1 -w $(dg_flags "$src")"
  # shellcheck disable=SC2046
  set -- $(files "$1" | sed "s|[^ ]*|$dir/&|g")
  ok=$(direct "$@")
  translate "$@" || return
  [ "$ok" = pass ] || { note uncounted "$name" ""; return; }
  # shellcheck disable=SC2086
  if ! "$CC" $flags -I "$sdir" -I "$INC" "$tmp"/t*.c -o "$tmp/gen" -lm >"$tmp/why" 2>&1; then
    note fail "$name" "the translation does not compile"; return
  fi
  (cd "$tmp" && timeout 30 ./gen) >"$tmp/why" 2>&1; rc=$?
  [ $rc -eq 0 ] || { note fail "$name" "the translation fails when run (exit status $rc)"; return; }
  note pass "$name" ""
}

# counts FILE...: the totals of result files.
counts() {
  cat "$@" | awk '{ n[$1]++; t++; d += $3 == "pass" }
    $1 == "skip" { r["skipped, " $4]++ }
    $1 == "uncounted" || ($1 == "fail" && $3 != "pass") { r["not counted, " $3]++ }
    END {
      printf "%d programs: %d pass directly, %d pass through pac, %d failures; %d skipped\n",
        t, d, n["pass"] + 0, n["fail"] + 0, n["skip"] + 0
      for (k in r) printf "  %s: %d\n", k, r[k]
    }'
}

# shard TREE BIN INC CC K N [REL...]: programs K, K+N, K+2N, ... of the
# sorted list, or the programs named (paths under the execute directory).
shard() {
  tree=$1 BIN=$2 INC=$3 CC=$4 k=$5 n=$6
  shift 6
  [ -f "$tree/stamp" ] || missing
  dir=$tree/src/$sub results=$tree/results/shard$k
  tmp=$(mktemp -d) || exit 1
  trap 'rm -rf "$tmp"' EXIT
  : >"$results"
  start=$(date +%s)
  if [ $# -gt 0 ]; then
    printf '%s\n' "$@" >"$tmp/list"
  else
    programs "$dir" | awk -v k="$k" -v n="$n" '(NR - 1) % n == k' >"$tmp/list"
  fi
  while read -r rel; do check "$rel"; done <"$tmp/list"
  echo "shard $k of $n, $(($(date +%s) - start)) s: $(counts "$results")"
  ! grep -q '^fail ' "$results"
}

# summary TREE: the totals of all shards; fails when any shard had a failure.
summary() {
  set -- "$1"/results/shard*
  [ -f "$1" ] || { echo "no results (the shards did not run)"; exit 77; }
  echo "GCC torture suite through pac: $(counts "$@")"
  cat "$@" | sed -n 's/^fail \([^ ]*\) [^ ]* /FAIL \1: /p' | sort
  ! cat "$@" | grep -q '^fail '
}

mode=$1
shift
case $mode in
extract) extract "$@" ;;
shard) shard "$@" ;;
summary) summary "$@" ;;
*) echo "usage: torture.sh extract|shard|summary ..."; exit 2 ;;
esac
