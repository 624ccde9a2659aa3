#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""plot.py - charts of the current benchmark figures: reads the Markdown tables
of bench/RESULTS.md and draws one SVG bar chart per entry of CHARTS (Parray
beside its peer, in the units of the table), for docs/performance.md.

    python3 bench/plot.py [--results bench/RESULTS.md] [--out docs/img/bench]

Python's standard library only, so that any user and CI can redraw them;
the output depends on the tables alone (the same tables give the same bytes),
so tests/docs/plots.py can check that the committed charts are current. A
chart whose table cannot be found or read is an error naming the chart, the
section and the column, and nothing is written.

Each bar is an SVG <rect> with data-label (its row), data-series (its
column) and data-value (the number read from the cell), and a <title>
saying the same for readers who hover over it."""
import argparse
import os
import re
import sys
import tempfile

# What is drawn. section: the start of the "## " heading; table: which table
# of the section (0: the first); label: the columns naming a row (joined by a
# space, or as label_fmt says); series: (legend, column, part) with part the index of the number
# in a cell such as "1.64 / 1.70" (0: the first); ref: a dashed line (the
# peer's level when the bars are ratios), or None.
CHARTS = [
    dict(name="kernels", section="kernels:", table=0, label=["kernel"],
         series=[("events", "% copy", 0), ("CUDA graph", "graph % copy", 0)],
         unit="% of a device copy", ref=100.0,
         title="Row and whole-array sums, % of cudaMemcpy's bandwidth (H200)"),
    dict(name="kernels_torch", section="kernels:", table=0, label=["kernel"],
         series=[("events", "x PyTorch", 0), ("CUDA graph", "graph x PyTorch", 0)],
         unit="x PyTorch (above 1: faster)", ref=1.0,
         title="Row and whole-array sums against PyTorch (H200)"),
    dict(name="permute", section="permute:", table=0, label=["permutation", "dtype", "shape"],
         label_fmt="{} {} {}",
         series=[("% of copy", "ours / copy", 0)],
         unit="% of a device copy", ref=100.0,
         title="Permute and transpose, % of cudaMemcpy's bandwidth"),
    dict(name="sgemm", section="sgemm: parray_sgemm", table=1, label=["n", "layout"], label_fmt="{} {}",
         series=[("cuBLAS", "cuBLAS", 0), ("parray_sgemm", "parray_sgemm", 0)],
         unit="TFLOP/s (FP32, TF32 off)", ref=None,
         title="SGEMM against cuBLAS (H200)"),
    dict(name="mpi_dev_2gpus", section="mpi_dev:", table=0, label=["total"],
         series=[("pac", "pac auto", 0), ("NCCL pack+all_to_all+unpack", "(a)", 0),
                 ("NCCL all_to_all alone", "(b)", 0), ("CUDA IPC", "(c)", 0)],
         unit="GB/s", ref=None, title="Redistribution of device arrays, 2 GPUs (H100)"),
    dict(name="mpi_dev_4gpus", section="mpi_dev:", table=1, label=["total"],
         series=[("pac", "pac auto", 0), ("NCCL pack+all_to_all+unpack", "(a)", 0),
                 ("NCCL all_to_all alone", "(b)", 0), ("CUDA IPC", "(c)", 0)],
         unit="GB/s", ref=None, title="Redistribution of device arrays, 4 GPUs (H100)"),
    dict(name="fft_4gpus", section="fft: the distributed FFT on GPUs", table=0, label=["size", "pieces"],
         label_fmt="{}, {} pc.",
         series=[("vs one GPU's cuFFT", "vs 1 GPU cuFFT (nat. / tr.)", 1),
                 ("vs cuFFTMp on 4 GPUs", "vs cuFFTMp (nat. / tr.)", 1)],
         unit="speed-up (above 1: Parray faster)", ref=1.0,
         title="Distributed FFT on 4 H200s, transposed order: ratio to the peers"),
]

NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


class ChartError(Exception):
    pass


def sections(text):
    """{heading: [table, ...]}, a table being [header, row, ...] of cells."""
    out, head, tables, cur = {}, None, [], None
    for line in text.splitlines():
        if line.startswith("## "):
            if head is not None:
                out[head] = tables
            head, tables, cur = line[3:].strip(), [], None
            continue
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if cur is None:
                cur = [cells]
                tables.append(cur)
            elif not all(re.fullmatch(r":?-+:?", c) for c in cells):
                cur.append(cells)
        else:
            cur = None
    if head is not None:
        out[head] = tables
    return out


def number(cell, part):
    """The part-th number of a cell ("1.143 (0.526 + 0.613)": 1.143; "1.64 / **1.70**", 1: 1.70)."""
    pieces = cell.replace("*", "").split("/") if "/" in cell else [cell.replace("*", "")]
    if part >= len(pieces):
        return None
    m = NUMBER.search(pieces[part].replace(",", ""))
    return float(m.group(0)) if m else None


def chart_data(secs, c):
    """[(label, [value per series])] of chart c, or ChartError."""
    heads = [h for h in secs if h.startswith(c["section"])]
    if len(heads) != 1:
        raise ChartError(f"chart {c['name']}: {len(heads)} sections start with '## {c['section']}'")
    tables = secs[heads[0]]
    if c["table"] >= len(tables):
        raise ChartError(f"chart {c['name']}: section '{heads[0]}' has {len(tables)} tables, not {c['table'] + 1}")
    header, rows = tables[c["table"]][0], tables[c["table"]][1:]
    want = c["label"] + [s[1] for s in c["series"]]
    for col in want:
        if col not in header:
            raise ChartError(f"chart {c['name']}: no column '{col}' in table {c['table']} of '{heads[0]}'")
    data = []
    for r in rows:
        if len(r) != len(header):
            raise ChartError(f"chart {c['name']}: a row of '{heads[0]}' has {len(r)} cells, the header {len(header)}")
        values = [number(r[header.index(col)], part) for _, col, part in c["series"]]
        if all(v is None for v in values):
            continue  # a row of notes, no numbers to draw
        label = c.get("label_fmt", "{}").format(*(r[header.index(col)].replace("*", "") for col in c["label"]))
        if any(label == d[0] for d in data):
            raise ChartError(f"chart {c['name']}: two rows of '{heads[0]}' are both '{label}'")
        data.append((label, values))
    if not data:
        raise ChartError(f"chart {c['name']}: no numbers in table {c['table']} of '{heads[0]}'")
    return data


COLORS = ["#1f6fb4", "#e0812a", "#3a9a48", "#c23b3b"]


def nice_top(v):
    """The smallest 1, 1.5, 2, 2.5, 3, 4, 5, 6 or 8 x 10^k at least v."""
    k = 1.0
    while k * 10 < v:
        k *= 10
    while k > v * 10:
        k /= 10
    for m in (1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10):
        if m * k >= v:
            return m * k
    return 10 * k


def fmt(v):
    return f"{v:g}"


def esc(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def svg(c, data):
    """The chart as SVG text: grouped bars, y axis from 0, labels under the groups."""
    # room under the plot for the labels, written at 35 degrees (about 6.2 px a character)
    B = max(60, int(24 + 3.6 * max(len(label) for label, _ in data)))
    L, T, pw, ph = 70, 56, 640, 230
    R = max(30, int(5.1 * len(data[-1][0]) - pw / len(data) / 2 + 10))  # the last label's run to the right
    W, H = L + pw + R, T + ph + B
    nser = len(c["series"])
    vals = [v for _, vs in data for v in vs if v is not None] + ([c["ref"]] if c["ref"] else [])
    top = nice_top(max(vals) * 1.05)
    gw = pw / len(data)
    bw = min(28.0, gw * 0.8 / nser)
    y = lambda v: T + ph - ph * v / top
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" '
           f'font-family="sans-serif" font-size="11">',
           f'<rect width="{W}" height="{H}" fill="white"/>',
           f'<text x="{W / 2:.1f}" y="20" text-anchor="middle" font-size="14">{esc(c["title"])}</text>']
    x = L
    for i, (name, _, _) in enumerate(c["series"]):  # legend, about 6.5 px a character
        out.append(f'<rect x="{x}" y="30" width="10" height="10" fill="{COLORS[i % len(COLORS)]}"/>')
        out.append(f'<text x="{x + 14}" y="39">{esc(name)}</text>')
        x += 14 + 6.5 * len(name) + 24
    for k in range(6):  # y axis, 5 steps
        v = top * k / 5
        out.append(f'<line x1="{L}" x2="{W - R}" y1="{y(v):.1f}" y2="{y(v):.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{L - 6}" y="{y(v) + 4:.1f}" text-anchor="end">{fmt(round(v, 6))}</text>')
    out.append(f'<text transform="translate(16 {T + ph / 2:.1f}) rotate(-90)" text-anchor="middle">'
               f'{esc(c["unit"])}</text>')
    for g, (label, vs) in enumerate(data):
        x0 = L + g * gw + (gw - bw * nser) / 2
        for i, v in enumerate(vs):
            if v is None:
                continue
            sname = c["series"][i][0]
            out.append(f'<rect x="{x0 + i * bw:.1f}" y="{y(v):.1f}" width="{bw - 2:.1f}" '
                       f'height="{T + ph - y(v):.1f}" fill="{COLORS[i % len(COLORS)]}" '
                       f'data-label="{esc(label)}" data-series="{esc(sname)}" data-value="{fmt(v)}">'
                       f'<title>{esc(label)}, {esc(sname)}: {fmt(v)}</title></rect>')
        cx = L + g * gw + gw / 2
        out.append(f'<text transform="translate({cx:.1f} {T + ph + 12}) rotate(35)">{esc(label)}</text>')
    if c["ref"]:
        out.append(f'<line x1="{L}" x2="{W - R}" y1="{y(c["ref"]):.1f}" y2="{y(c["ref"]):.1f}" '
                   f'stroke="black" stroke-dasharray="5 4"/>')
    out.append(f'<line x1="{L}" x2="{W - R}" y1="{T + ph}" y2="{T + ph}" stroke="black"/>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main(argv):
    ap = argparse.ArgumentParser(description="Draw the benchmark charts of bench/RESULTS.md as SVG.")
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--results", default=os.path.join(here, "RESULTS.md"))
    ap.add_argument("--out", default=os.path.join(here, "..", "docs", "img", "bench"))
    a = ap.parse_args(argv)
    a.out = os.path.normpath(a.out)
    try:
        with open(a.results, encoding="utf-8") as f:
            secs = sections(f.read())
        charts = [(c["name"], svg(c, chart_data(secs, c))) for c in CHARTS]
    except (OSError, ChartError) as e:
        print(f"plot.py: {e}", file=sys.stderr)
        return 1
    os.makedirs(a.out, exist_ok=True)
    for name, text in charts:  # each file whole or not at all
        fd, tmp = tempfile.mkstemp(dir=a.out, prefix=f".{name}.")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, os.path.join(a.out, name + ".svg"))
    print(f"plot.py: {len(charts)} charts in {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
