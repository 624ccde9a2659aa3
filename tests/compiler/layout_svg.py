#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""layout_svg.py - checks `pac --layout TYPE --svg FILE` against offsets,
processes and threads computed here from each type's shape and strides
(tests/compiler/layout/svg_types.pc), and against the text grid of
`pac --layout TYPE`: every drawn cell's label is its offset (or thread
index), cells of one tile / process / block / thread share a colour and
different ones differ, the legend names the right colours, 3-D and 4-D
types are rows of slices, large types are summarised (leading indices, the
last one and ellipsis bands, said in the caption), and errors leave FILE
alone with a non-zero exit. The text report of `pac --layout` is checked
for the processes of distributed types and the threads of thread arrays.

usage: layout_svg.py PAC SVG_TYPES.pc
"""
import itertools
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"

# type: (shape, offset of an index, colour group of an index, legend word, cuda digits)
CASES = {
    "RM": ((5, 7), lambda r, c: 7 * r + c, lambda r, c: 0, None),
    "TR": ((7, 5), lambda r, c: 7 * c + r, lambda r, c: 0, None),
    "TILE": ((12, 10), lambda r, c: 10 * r + c, lambda r, c: (r // 4, c // 5), None),
    "TILE_0": ((3, 4), lambda r, c: 10 * (4 * r + c), lambda r, c: 0, None),
    "DIST": ((6, 5), lambda r, c: (r % 2) * 5 + c, lambda r, c: r // 2, "process"),
    "DIST2": ((6, 6), lambda r, c: (r % 3) * 3 + c % 3, lambda r, c: 2 * (r // 3) + c // 3, "process"),
    "DISTV": ((6, 6), lambda r, c: (c % 3) * 3 + r % 3, lambda r, c: 2 * (c // 3) + r // 3, "process"),
    "K": ((6, 8), lambda r, c: 8 * r + c, lambda r, c: r, "block"),
    "PT": ((3, 4), lambda r, c: 4 * r + c, lambda r, c: 4 * r + c, None),
    "C3": ((3, 4, 5), lambda s, r, c: 20 * s + 5 * r + c, lambda s, r, c: s, None),
    "C4": ((2, 3, 4, 5), lambda a, b, r, c: ((a * 3 + b) * 4 + r) * 5 + c, lambda a, b, r, c: (a, b), None),
    "C3T": ((3, 8, 10), lambda s, r, c: 80 * s + 10 * r + c, lambda s, r, c: (s, r // 4, c // 5), None),
    "BIG": ((1000, 2000), lambda r, c: 2000 * r + c, lambda r, c: 0, None),
    "BIG3": ((100, 300, 400), lambda s, r, c: (s * 300 + r) * 400 + c, lambda s, r, c: s, None),
    "LINE": ((10,), lambda i: i, lambda i: 0, None),
}

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL " + msg)


def run(pac, *args):
    return subprocess.run([pac, *args], capture_output=True, text=True)


def drawn_axis(n, nslices, slice_axis):
    """The indices of an axis of extent n that the picture shows (docs/cli.md)."""
    if slice_axis:
        big, head = 6, 4
    elif nslices > 1:
        big, head = 10, 8
    else:
        big, head = 16, 12
    return list(range(n)) if n <= big else list(range(head)) + [n - 1]


def expected_indices(shape):
    nd = len(shape)
    nslices = 1
    for e in shape[:-2]:
        nslices *= e
    slices = drawn_axis(nslices, 1, True) if nd > 2 else [0]
    rows = drawn_axis(shape[-2], nslices, False) if nd >= 2 else [None]
    cols = drawn_axis(shape[-1], nslices, False)
    out = set()
    for s in slices:
        lead = []
        for e in reversed(shape[:-2]):
            lead.insert(0, s % e)
            s //= e
        for r in rows:
            for c in cols:
                out.add(tuple(lead + ([r] if r is not None else []) + [c]))
    return out


def cells_of(root):
    cells = {}
    for g in root.iter(NS + "g"):
        if g.get("class") != "cell":
            continue
        idx = tuple(int(v) for v in g.get("data-index").split(","))
        rect = g.find(NS + "rect")
        texts = {t.get("class"): t.text for t in g.findall(NS + "text")}
        if idx in cells:
            fail("cell %s drawn twice" % (idx,))
        cells[idx] = (rect.get("fill"), texts.get("off"), texts.get("sub"))
    return cells


def text_grid(pac, src, ty):
    """The grid of `pac --layout TYPE` (2-D data types): {(r, c): offset}."""
    out = run(pac, "--layout", ty, src).stdout.split("\n\nprocesses holding")[0].splitlines()
    grid, cols = {}, None
    for line in out:
        if line.startswith("offsets of"):
            cols = []
            continue
        if cols == [] and line.strip():
            cols = [int(v) for v in line.split() if v.isdigit()]
            continue
        m = re.match(r"^\s*(\d+) \|(.*)$", line)
        if cols and m:
            for c, v in zip(cols, m.group(2).split()):
                grid[(int(m.group(1)), c)] = int(v)
    return grid


def check_colours(ty, cells, group):
    fill_of = {}
    for idx, (fill, _, _) in cells.items():
        g = group(*idx)
        if fill_of.setdefault(g, fill) != fill:
            fail("%s: cells of group %s have colours %s and %s" % (ty, g, fill_of[g], fill))
    fills = list(fill_of.values())
    if len(set(fills)) != len(fills):
        fail("%s: different groups share a colour: %s" % (ty, fill_of))
    return fill_of


def check_legend(ty, root, word, fill_of):
    seen = 0
    for g in root.iter(NS + "g"):
        if g.get("class") != "legend":
            continue
        seen += 1
        m = re.match(r"^%s (\d+)$" % word, g.find(NS + "text").text or "")
        if not m:
            fail("%s: legend entry '%s' does not name a %s" % (ty, g.find(NS + "text").text, word))
            continue
        key = int(m.group(1))
        if fill_of.get(key) != g.find(NS + "rect").get("fill"):
            fail("%s: legend's colour of %s %d is not its cells' colour" % (ty, word, key))
    if seen != len(fill_of):
        fail("%s: the legend has %d entries for %d groups" % (ty, seen, len(fill_of)))


def check_type(pac, src, tmp, ty):
    shape, off, group, word = CASES[ty]
    path = os.path.join(tmp, ty + ".svg")
    p = run(pac, "--layout", ty, "--svg", path, src)
    if p.returncode != 0:
        fail("%s: pac exits %d: %s" % (ty, p.returncode, p.stderr))
        return
    if p.stdout:
        fail("%s: --svg printed on stdout" % ty)
    root = ET.parse(path).getroot()
    cells = cells_of(root)
    want = expected_indices(shape)
    if set(cells) != want:
        fail("%s: drawn cells differ: %d drawn, %d expected, e.g. %s" %
             (ty, len(cells), len(want), sorted(set(cells) ^ want)[:4]))
    for idx, (_, label, _) in cells.items():
        if label is None or int(label) != off(*idx):
            fail("%s%s: label %s, offset %d" % (ty, list(idx), label, off(*idx)))
    fill_of = check_colours(ty, cells, group)
    if word:
        check_legend(ty, root, word, fill_of)
    if ty == "K":  # block digits (y, x) and thread digits (y, x)
        for (r, c), (_, _, sub) in cells.items():
            if sub != "b%d,%d t%d,%d" % (r // 3, r % 3, c // 4, c % 4):
                fail("K[%d][%d]: block and thread label '%s'" % (r, c, sub))
    if len(shape) == 2 and ty not in ("K", "PT"):
        grid = text_grid(pac, src, ty)
        if not grid:
            fail("%s: no text grid to compare with" % ty)
        for rc, v in grid.items():
            if rc in cells and int(cells[rc][1]) != v:
                fail("%s%s: picture %s, text report %d" % (ty, list(rc), cells[rc][1], v))
    nslices = len([g for g in root.iter(NS + "g") if g.get("class") == "slice"])
    cut = any(e > 16 for e in shape)
    caption = " ".join(t.text or "" for t in root.iter(NS + "text") if (t.get("class") or "").startswith("caption"))
    bands = [r for r in root.iter(NS + "rect") if r.get("class") == "band"]
    if cut != ("summarised" in caption) or cut != bool(bands):
        fail("%s: summarised %s, caption '%s', %d bands" % (ty, cut, caption, len(bands)))
    if len(shape) > 2 and nslices != len({i[:-2] for i in want}):
        fail("%s: %d slices drawn" % (ty, nslices))
    if os.path.getsize(path) > 100000:
        fail("%s: the picture has %d bytes" % (ty, os.path.getsize(path)))
    again = os.path.join(tmp, ty + ".again.svg")
    run(pac, "--layout", ty, "--svg", again, src)
    if open(path, "rb").read() != open(again, "rb").read():
        fail("%s: two drawings differ" % ty)
    print("ok   %s: %d cells, %d colours" % (ty, len(cells), len(fill_of)))


def check_text(pac, src):
    """The text report: which process holds each element of a distributed
    type, the threads of a thread array and a cuda array's hardware indices."""
    for ty in ("DIST", "DIST2", "DISTV"):
        shape, _, group, _ = CASES[ty]
        out = run(pac, "--layout", ty, src).stdout
        part = out.split("processes holding %s[r][c]:" % ty)
        if len(part) != 2:
            fail("%s: the text report names no processes" % ty)
            continue
        rows = [l for l in part[1].splitlines() if re.match(r"^\s*\d+ \|", l)]
        got = {(r, c): int(v) for r, l in enumerate(rows) for c, v in enumerate(l.split("|")[1].split())}
        want = {(r, c): group(r, c) for r in range(shape[0]) for c in range(shape[1])}
        if got != want:
            fail("%s: processes in the text report %s, expected %s" % (ty, got, want))
    out = run(pac, "--layout", "K", src).stdout
    for line in ("threads ($tid$) of K[r][c] (rows: K_0, the blocks of the grid; "
                 "columns: K_1, the threads of a block):",
                 "$tid_0_0$ = (int)blockIdx.y", "$tid_0_1$ = (int)blockIdx.x",
                 "$tid_1_0$ = (int)threadIdx.y", "$tid_1_1$ = (int)threadIdx.x",
                 "    5 |   40   41   42   43   44   45   46   47"):
        if line not in out:
            fail("K: the text report lacks '%s'" % line)
    if "processes holding" in run(pac, "--layout", "RM", src).stdout:
        fail("RM: processes named for a type that is not distributed")
    print("ok   text reports")


def check_errors(pac, src, tmp):
    keep = os.path.join(tmp, "keep.svg")
    with open(keep, "w") as f:
        f.write("keep")
    p = run(pac, "--layout", "NOPE", "--svg", keep, src)
    if p.returncode == 0 or "no array type 'NOPE'" not in p.stderr or open(keep).read() != "keep":
        fail("unknown type: exit %d, '%s', file %s" % (p.returncode, p.stderr.strip(), open(keep).read()))
    p = run(pac, "--layout", "RM", "--svg", os.path.join(tmp, "no", "such", "dir.svg"), src)
    if p.returncode == 0 or "cannot write" not in p.stderr:
        fail("unwritable file: exit %d, '%s'" % (p.returncode, p.stderr.strip()))
    p = run(pac, "--svg", keep, src)
    if p.returncode == 0 or "--layout" not in p.stderr:
        fail("--svg without --layout: exit %d, '%s'" % (p.returncode, p.stderr.strip()))
    var = os.path.join(tmp, "var.pc")
    with open(var, "w") as f:
        f.write("int n;\n#parray {paged float [n][4]} V\nint main(void) { return 0; }\n")
    p = run(pac, "--layout", "V", "--svg", keep, var)
    if p.returncode == 0 or "compile-time constant" not in p.stderr or open(keep).read() != "keep":
        fail("size not constant: exit %d, '%s'" % (p.returncode, p.stderr.strip()))
    # written by rename: nothing but the pictures is left in the folder
    left = [f for f in os.listdir(tmp) if not f.endswith((".svg", ".pc"))]
    if left:
        fail("files left behind: %s" % left)


def main():
    pac, src = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        for ty in CASES:
            check_type(pac, src, tmp, ty)
        check_errors(pac, src, tmp)
    check_text(pac, src)
    if failures:
        print("%d failure(s)" % len(failures))
        return 1
    print("all pictures agree with the layouts")
    return 0


if __name__ == "__main__":
    sys.exit(main())
