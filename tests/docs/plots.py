#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""plots.py - the test of bench/plot.py (ctest docs.plots):
  1. the charts committed in docs/img/bench are what plot.py draws from
     bench/RESULTS.md now, byte for byte (redraw: python3 bench/plot.py);
  2. every bar of every chart carries the number of its cell: the tables are
     read here again, by this file's own reader, and each chart must have
     one bar per row and series with that row's value;
  3. docs/performance.md shows every chart, and every chart it shows exists;
  4. a table without a column the chart needs is an error that names the
     column, and writes nothing.
    python3 tests/docs/plots.py REPO"""
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

repo = sys.argv[1]
plot = os.path.join(repo, "bench", "plot.py")
results = os.path.join(repo, "bench", "RESULTS.md")
committed = os.path.join(repo, "docs", "img", "bench")
sys.path.insert(0, os.path.join(repo, "bench"))
import plot as P  # noqa: E402 (for CHARTS: which tables and columns each chart draws)

fails = []


def fail(msg):
    fails.append(msg)
    print("FAIL:", msg)


def tables_of(text, section):
    """The tables of the one section whose heading starts with section: lists of dicts."""
    parts = re.split(r"^## ", text, flags=re.M)
    found = [p for p in parts if p.startswith(section)]
    if len(found) != 1:
        return None
    out, rows = [], None
    for line in found[0].splitlines():
        if not line.startswith("|"):
            rows = None
            continue
        cells = [c.strip() for c in line.strip()[1:-1].split("|")]
        if rows is None:
            rows = {"header": cells, "rows": []}
            out.append(rows)
        elif not set("".join(cells)) <= set("-: "):
            rows["rows"].append(dict(zip(rows["header"], cells)))
    return out


def cell_number(cell, part):
    pieces = cell.replace("*", "").split(" / ")
    if part >= len(pieces):
        return None
    m = re.search(r"\d+(\.\d+)?", pieces[part])
    return float(m.group(0)) if m else None


with tempfile.TemporaryDirectory() as tmp:
    r = subprocess.run([sys.executable, plot, "--results", results, "--out", tmp], capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"plot.py failed: {r.stderr}")
    text = open(results, encoding="utf-8").read()
    for c in P.CHARTS:
        name = c["name"] + ".svg"
        new = os.path.join(tmp, name)
        old = os.path.join(committed, name)
        if not os.path.exists(new):
            fail(f"{name} was not drawn")
            continue
        if not os.path.exists(old) or open(old, "rb").read() != open(new, "rb").read():
            fail(f"docs/img/bench/{name} is not what plot.py draws now (redraw: python3 bench/plot.py)")
        bars = {}
        for e in ET.parse(new).getroot().iter("{http://www.w3.org/2000/svg}rect"):
            if "data-value" in e.attrib:
                key = (e.get("data-label"), e.get("data-series"))
                if key in bars:
                    fail(f"{name}: two bars for {key}")
                bars[key] = float(e.get("data-value"))
        tabs = tables_of(text, c["section"])
        if not tabs or c["table"] >= len(tabs):
            fail(f"{name}: table {c['table']} of section {c['section']} not found by the test")
            continue
        want = {}
        for row in tabs[c["table"]]["rows"]:
            label = c.get("label_fmt", "{}").format(*(row[k].replace("*", "") for k in c["label"]))
            for sname, col, part in c["series"]:
                v = cell_number(row[col], part)
                if v is not None:
                    want[(label, sname)] = v
        if not want:
            fail(f"{name}: no numbers in its table")
        if set(bars) != set(want):
            fail(f"{name}: bars {sorted(set(bars) ^ set(want))} differ from the table's cells")
        for k, v in want.items():
            if k in bars and abs(bars[k] - v) > 1e-9 * max(1.0, abs(v)):
                fail(f"{name}: bar {k} is {bars[k]}, the table says {v}")
        print(f"{name}: {len(bars)} bars, each its cell's number")

    # 3. shown by docs/performance.md
    perf = open(os.path.join(repo, "docs", "performance.md"), encoding="utf-8").read()
    shown = set(re.findall(r"img/bench/([A-Za-z0-9_]+\.svg)", perf))
    drawn = {c["name"] + ".svg" for c in P.CHARTS}
    if shown != drawn:
        fail(f"docs/performance.md shows {sorted(shown)}, plot.py draws {sorted(drawn)}")
    extra = set(os.listdir(committed)) - drawn
    if extra:
        fail(f"docs/img/bench holds charts plot.py does not draw: {sorted(extra)}")

    # 4. a missing column: an error naming it, nothing written
    bad = os.path.join(tmp, "bad.md")
    col = P.CHARTS[0]["series"][0][1]
    with open(bad, "w", encoding="utf-8") as f:
        f.write(text.replace(f"| {col} |", "| renamed |", 1))
    out = os.path.join(tmp, "bad")
    r = subprocess.run([sys.executable, plot, "--results", bad, "--out", out], capture_output=True, text=True)
    if r.returncode == 0 or col not in r.stderr or os.path.exists(out):
        fail(f"a table without '{col}': exit {r.returncode}, message {r.stderr!r}, output written: {os.path.exists(out)}")

if fails:
    print(f"{len(fails)} failures")
    sys.exit(1)
print("PASS: the charts are current and carry their tables' numbers")
