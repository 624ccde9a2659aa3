#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# lowergraph.py - the arrows between the files of one compiler folder
# (default compiler/lower), and a check that they form no circle.
#
#   python3 tools/lowergraph.py [--build BUILD] [--folder lower] [--quiet]
#
# An arrow A -> B: A.c calls a function or reads data that B.c defines (nm
# over the objects of paccore: BUILD/compiler/CMakeFiles/paccore.dir/FOLDER/
# *.o), or A.c (or A.h) includes B.h, the header of B.c. Prints the arrows,
# their count and each circle (a strongly connected set of more than one
# file). With --printer FILE (compiler/lower: lower_print), also that no
# other file of the folder calls the printer (pr_*) or the emitter's
# printing functions (emit_* but those --emit-ok names): the planners
# return records and the print pass alone prints them. Exit 1 when there is
# a circle or such a call, 2 when there is nothing to check.
import argparse
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stages  # noqa: E402


def nm(path):
    defined, undefined = set(), set()
    out = subprocess.run(["nm", "-P", path], check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        if parts[1] == "U":
            undefined.add(parts[0])
        elif parts[1].isupper() or parts[1] == "u":
            defined.add(parts[0])
    return defined, undefined


def printing_calls(objdir, printer, allowed):
    """{file: [printing functions it calls]} for the files but printer."""
    bad = {}
    for f in sorted(os.listdir(objdir)):
        if not f.endswith(".c.o") or f[:-4] == printer:
            continue
        _d, u = nm(os.path.join(objdir, f))
        calls = sorted(s for s in u if (s.startswith("pr_") or s.startswith("emit_")) and s not in allowed)
        if calls:
            bad[f[:-4]] = calls
    return bad


def call_arrows(objdir):
    syms = {}
    for f in sorted(os.listdir(objdir)):
        if f.endswith(".c.o"):
            syms[f[:-4]] = nm(os.path.join(objdir, f))
    owner = {s: f for f, (d, _u) in syms.items() for s in d}
    arrows = {}
    for f, (_d, u) in syms.items():
        for s in sorted(u):
            if s in owner and owner[s] != f:
                arrows.setdefault((f, owner[s]), []).append(s)
    return set(syms), arrows


INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)\.h"', re.M)


def include_arrows(srcdir, files):
    arrows = {}
    for f in os.listdir(srcdir):
        stem, ext = os.path.splitext(f)
        if ext not in (".c", ".h"):
            continue
        with open(os.path.join(srcdir, f), encoding="utf-8") as fh:
            for h in INCLUDE.findall(fh.read()):
                if h != stem and h in files:  # the header of another file of the folder
                    arrows.setdefault((stem, h), []).append(f"#include \"{h}.h\"")
    return arrows


def circles(nodes, edges):
    """The strongly connected sets of more than one node (stages.py's Tarjan)."""
    return stages.strongly_connected(sorted(nodes), list(edges))


def main():
    ap = argparse.ArgumentParser(description="the arrows between the files of a compiler folder; fails on a circle")
    ap.add_argument("--build", default="build")
    ap.add_argument("--folder", default="lower")
    ap.add_argument("--src", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--printer", help="the one file that may call the printer and the emitter's printing functions")
    ap.add_argument("--emit-ok", action="append", default=[], help="an emit_ function any file may call")
    a = ap.parse_args()
    objdir = os.path.join(a.build, "compiler", "CMakeFiles", "paccore.dir", a.folder)
    srcdir = os.path.join(a.src, "compiler", a.folder)
    if not os.path.isdir(objdir):
        print(f"lowergraph: no {objdir}: build paccore first", file=sys.stderr)
        return 2
    files, arrows = call_arrows(objdir)
    files = {f for f in files if os.path.exists(os.path.join(srcdir, f + ".c"))}
    arrows = {k: v for k, v in arrows.items() if k[0] in files and k[1] in files}
    for k, v in include_arrows(srcdir, files).items():
        if k[0] in files:
            arrows.setdefault(k, []).extend(v)
    if not a.quiet:
        for (f, t), why in sorted(arrows.items()):
            print(f"{f} -> {t}: {', '.join(why[:4])}{' ...' if len(why) > 4 else ''}")
    n = len(files)
    print(f"lowergraph: {a.folder}: {n} files, {len(arrows)} arrows of {n * (n - 1)} possible")
    bad = circles(files, arrows)
    for c in bad:
        print(f"lowergraph: error: a circle among {', '.join(c)}")
    printing = printing_calls(objdir, a.printer, set(a.emit_ok)) if a.printer else {}
    for f, calls in printing.items():
        print(f"lowergraph: error: {f}.c prints ({', '.join(calls)}): only {a.printer}.c hands records to the printer")
    return 1 if bad or printing else 0


if __name__ == "__main__":
    sys.exit(main())
