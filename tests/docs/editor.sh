#!/bin/sh
# editor.sh - the editor support of editor/ highlights what it claims: Vim
# detects *.pc as parray (not a pkg-config file) and gives directives, kinds,
# nested $...$ and #T references their groups; the TextMate grammar is valid
# JSON whose patterns compile and whose $...$ rule nests as pac's does.
# Usage: editor.sh EDITORDIR   (exits 77, skipped, without vim and python3)
set -u
ed=$(cd "$1" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0 ran=0
cat >"$tmp/hl.pc" <<'PC'
#parray {dmem float [#A_1][[#A_0][#A_2]]} M
#parray {cuda(float *a) [N][N]} T
  x[$M[[$tid_0$][i]][0]$] = 1;
#copy A(a) to B(b)
int paged_count;
#copy A(a) to R(r) bound(n)
#detour T(a) nowait {
#copy A(at) at(i, j) to S(s) tma(bar)
PC
printf 'prefix=/usr\nName: x\n' >"$tmp/pkg.pc"
if command -v vim >/dev/null 2>&1; then
  ran=1
  # line column expected-group ("" : no Parray group)
  cat >"$tmp/want" <<'W'
parray
1 2 parrayDirective
1 10 parrayMemKind
1 22 parrayRef
2 10 parrayThreadKind
3 6 parrayDollar
3 12 parrayTid
3 21 parrayDollar
3 24 parrayDollarDelim
3 25
4 12 parrayCopyTo
5 5
6 20 parrayCopyTo
7 14 parrayDetourClause
7 10
8 9 parrayCopyLine
8 13 parrayCopyTo
8 30 parrayCopyTo
W
  vim -Nu NONE -i NONE -es -c "set rtp^=$ed/vim" -c 'filetype on' -c 'syntax on' -c "e $tmp/hl.pc" \
    -c "redir! > $tmp/got" -c 'silent echo &ft' \
    -c 'for [l,c] in [[1,2],[1,10],[1,22],[2,10],[3,6],[3,12],[3,21],[3,24],[3,25],[4,12],[5,5],[6,20],[7,14],[7,10],[8,9],[8,13],[8,30]] | let g = synIDattr(synID(l,c,1),"name") | silent echo l .. " " .. c .. " " .. (g =~# "^parray" ? g : "") | endfor' \
    -c 'redir END' -c 'qa!' </dev/null >/dev/null 2>&1
  { cat "$tmp/got"; echo; } | sed '/^$/d; s/ *$//' >"$tmp/got2"
  if ! diff -u "$tmp/want" "$tmp/got2"; then echo "FAIL vim: groups differ (above)"; fail=$((fail + 1)); fi
  vim -Nu NONE -i NONE -es -c "set rtp^=$ed/vim" -c 'filetype on' -c "e $tmp/pkg.pc" \
    -c "redir! > $tmp/ft" -c 'silent echo &ft' -c 'redir END' -c 'qa!' </dev/null >/dev/null 2>&1
  if grep -q parray "$tmp/ft"; then echo "FAIL vim: a pkg-config .pc file is taken as parray"; fail=$((fail + 1)); fi
  [ "$fail" -eq 0 ] && echo "ok   vim syntax and detection"
fi
if command -v python3 >/dev/null 2>&1; then
  ran=1
  python3 - "$ed/textmate" <<'PY' || fail=$((fail + 1))
import json, re, sys
d = sys.argv[1]
for f in ("parray.tmLanguage.json", "package.json", "language-configuration.json"):
    json.load(open(f"{d}/{f}"))
g = json.load(open(f"{d}/parray.tmLanguage.json"))
pats = []
def walk(x):
    if isinstance(x, dict):
        for k in ("match", "begin", "end"):
            if k in x: pats.append(x[k])
        for v in x.values(): walk(v)
    elif isinstance(x, list):
        for v in x: walk(v)
walk(g)
for p in pats: re.compile(p)
# the $...$ rule: a begin opens, an end closes; count the nesting over a line
dol = g["repository"]["dollar"]
b, e = re.compile(dol["begin"]), re.compile(dol["end"])
def spans(s):
    depth, i, out, start = 0, 0, [], []
    while i < len(s):
        if b.match(s, i): depth += 1; start.append(i)
        elif depth and e.match(s, i): depth -= 1; out.append(s[start.pop():i + 1])
        i += 1
    return out, depth
got, depth = spans("x[$M[[$tid_0$][i]][0]$] = y[$dim(A)$];")
want = ["$tid_0$", "$M[[$tid_0$][i]][0]$", "$dim(A)$"]
assert depth == 0 and got == want, (got, want)
kinds = re.compile(g["repository"]["memory-kind"]["match"])
assert kinds.search("{dmem float [4]}") and not kinds.search("paged_count"), "memory kinds"
dc = re.compile(g["repository"]["detour-clause"]["match"])
m = dc.match("#detour T(a, b) nowait {")
assert m and m.group(2) == "nowait" and not dc.match("#detour T(wait_flag) {") and not dc.match("#detour T(wait) {"), "detour clause"
cp = [re.compile(x["match"]) for x in g["repository"]["copy"]["patterns"] if "match" in x]
words = [m.group(0) for p in cp for m in p.finditer("#copy A(at) at(i, j) to S(s) tma(bar)")]
assert sorted(words) == ["at", "tma", "to"], ("copy clauses", words)
print("ok   TextMate grammar:", len(pats), "patterns")
PY
fi
[ "$ran" = 1 ] || { echo "skipped: neither vim nor python3"; exit 77; }
[ "$fail" -eq 0 ]
