# SPDX-License-Identifier: Apache-2.0
# stages_runtime.py - the "runtime" check of tools/stages.sh (run that): the
# layers of the runtime include one way, as tools/stages-runtime.rules (or
# --runtime-rules FILE) lists them: "FROM-GLOB... -> TO-GLOB..." a line, no
# file of FROM includes a file of TO. An #include "x" is looked for beside
# the including file, then under include/; #include <x> under include/ only
# (system headers are nobody's layer).
import glob
import os
import re

SOURCES = (".c", ".h", ".cu", ".cuh", ".cpp", ".hpp")
INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*([<"])([^>"]+)[>"]', re.M)


def read_rules(path):
    """[(line number, from globs, to globs)]"""
    rules = []
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            left, sep, right = line.partition("->")
            if not sep or not left.split() or not right.split():
                raise ValueError(f"{path}:{n}: not of the form FROM-GLOB... -> TO-GLOB...")
            rules.append((n, left.split(), right.split()))
    return rules


def matched(src, globs):
    out = set()
    for g in globs:
        for p in glob.glob(os.path.join(src, g), recursive=True):
            if os.path.isfile(p) and p.endswith(SOURCES):
                out.add(os.path.relpath(p, src))
    return out


def resolve(src, rel, quote, name):
    here = [os.path.dirname(rel)] if quote == '"' else []
    for d in here + ["include"]:
        p = os.path.normpath(os.path.join(d, name))
        if os.path.isfile(os.path.join(src, p)):
            return p
    return None


def check_runtime(args, errors, read, mask):
    try:
        rules = read_rules(args.runtime_rules)
    except (OSError, ValueError) as e:
        errors.append(f"runtime rules: {e}")
        return
    for n, froms, tos in rules:
        banned = matched(args.src, tos)
        files = matched(args.src, froms) - banned
        if not files:
            errors.append(f"{args.runtime_rules}:{n}: no file matches {' '.join(froms)} (update the rule)")
            continue
        for rel in sorted(files):
            text = mask(read(os.path.join(args.src, rel)), keep_strings=True)
            for m in INCLUDE.finditer(text):
                target = resolve(args.src, rel, m.group(1), m.group(2))
                if target in banned:
                    line = text.count("\n", 0, m.start()) + 1
                    errors.append(f"{rel}:{line}: includes {target}, which the rule of line {n} of "
                                  f"{os.path.basename(args.runtime_rules)} keeps from it "
                                  f"({' '.join(froms)} -> {' '.join(tos)})")
