#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# stages.py - the checks of tools/stages.sh (run that): the compiler's stage
# folders call and include one way only, and no function is too long.
#
#   graph     nm over the objects of paccore (BUILD_DIR/compiler/CMakeFiles/
#             paccore.dir/FOLDER/*.o; the generated lexer and parser objects
#             at its top count as front): an object's undefined symbols
#             resolved against the others' definitions give the calls between
#             folders. The folders are ordered (--order, default
#             front,sema,emit,lower,driver): a folder may call only folders to
#             its left. Prints the folder graph; an edge against the order or
#             a cycle is an error naming the functions (from objdump -r).
#   includes  a file of compiler/FOLDER includes only headers of its own
#             folder or of folders to its left (so compiler/emit includes no
#             header of compiler/lower).
#   fnptrs    no function of a stage is handed to a function pointer of an
#             earlier stage (stages_ports.py); the graph check counts calls
#             through a declared interface apart (stages_ports.py).
#   runtime   the runtime's layers include one way, as tools/stages-runtime.rules
#             lists them (stages_runtime.py): the language runtime includes
#             no private header of the kernel library, and so on.
#   lengths   every function in compiler/**/*.[ch] and in the C sections of
#             grammar/*.l and grammar/*.y longer than --max-lines lines (from
#             the line of its opening brace to that of its closing brace).
#
# Known exceptions: --allow-edge FROM:TO, --allow-include FILE:HEADER (FILE
# relative to compiler/), --allow-long [FILE:]FUNC, --allow-callback FUNC. An exception that
# matches nothing is an error too, so that the list stays exact.
# Exit status: 0 clean, 1 a violation, 2 a usage error or nothing to check.
import argparse
import bisect
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stages_ports  # noqa: E402
import stages_runtime  # noqa: E402

PROG = "stages.sh"
DEFAULT_ORDER = "front,sema,emit,lower,driver"


class Usage(Exception):
    pass


def run_tool(argv):
    try:
        return subprocess.run(argv, check=True, capture_output=True, text=True).stdout
    except FileNotFoundError:
        raise Usage(f"'{argv[0]}' not found (binutils)")
    except subprocess.CalledProcessError as e:
        raise Usage(f"{' '.join(argv)} failed: {e.stderr.strip()}")


# ---- the call graph between folders ----------------------------------------

def find_objects(build, src, order):
    """(folder, path relative to paccore.dir) of each object of paccore whose
    source still exists (an object left by a file that moved is skipped)."""
    top = os.path.join(build, "compiler", "CMakeFiles", "paccore.dir")
    if not os.path.isdir(top):
        raise Usage(f"no {top}: build paccore in {build} first")
    objs = []
    for root, _dirs, files in os.walk(top):
        rel_dir = os.path.relpath(root, top)
        for f in sorted(files):
            if not f.endswith(".o"):
                continue
            rel = os.path.normpath(os.path.join(rel_dir, f))
            if rel_dir == ".":
                objs.append(("front", rel))  # generated: lexer.c, parser.c
                continue
            folder = rel.split(os.sep)[0]
            if not os.path.exists(os.path.join(src, "compiler", rel[:-2])):
                print(f"{PROG}: note: skipping {rel}: its source is gone (a stale object)")
                continue
            if folder not in order:
                raise Usage(f"{rel}: folder '{folder}' is not in the order {','.join(order)} (--order)")
            objs.append((folder, rel))
    if not objs:
        raise Usage(f"no objects under {top}: build paccore first")
    return top, sorted(objs)


def nm_symbols(path):
    """The global symbols an object defines and those it leaves undefined."""
    defined, undefined = set(), set()
    for line in run_tool(["nm", "-P", path]).splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        name, kind = parts[0], parts[1]
        if kind == "U":
            undefined.add(name)
        elif (kind.isupper() and kind != "U") or kind == "u":
            defined.add(name)
    return defined, undefined


def references(top, objs):
    """Every (caller object, callee symbol, defining object) across objects."""
    syms = {rel: nm_symbols(os.path.join(top, rel)) for _f, rel in objs}
    owner = {}
    for _f, rel in objs:
        for s in syms[rel][0]:
            owner.setdefault(s, rel)
    refs = []
    for _f, rel in objs:
        for s in sorted(syms[rel][1]):
            if s in owner and owner[s] != rel:
                refs.append((rel, s, owner[s]))
    return refs


SYMLINE = re.compile(r"^([0-9a-fA-F]+) (.{7}) (\S+)\s+([0-9a-fA-F]+) (.*)$")
RELOC_SECTION = re.compile(r"^RELOCATION RECORDS FOR \[(.*)\]:")


def callers(path):
    """symbol -> the functions (or data) of an object that refer to it, from
    its relocations placed against the symbols that contain them."""
    by_section = {}
    for line in run_tool(["objdump", "-t", path]).splitlines():
        m = SYMLINE.match(line)
        if m and ("F" in m.group(2) or "O" in m.group(2)):
            by_section.setdefault(m.group(3), []).append((int(m.group(1), 16), m.group(5)))
    for v in by_section.values():
        v.sort()
    users, section = {}, None
    for line in run_tool(["objdump", "-r", path]).splitlines():
        m = RELOC_SECTION.match(line)
        if m:
            section = m.group(1)
            continue
        parts = line.split()
        if section is None or len(parts) != 3 or section.startswith((".debug", ".eh_frame")):
            continue
        try:
            off = int(parts[0], 16)
        except ValueError:
            continue
        target = re.sub(r"[+-]0x[0-9a-fA-F]+$", "", parts[2])
        syms = by_section.get(section, [])
        i = bisect.bisect_right(syms, (off, "\uffff")) - 1
        users.setdefault(target, set()).add(syms[i][1] if i >= 0 else section)
    return users


def folder_of(objs):
    return {rel: f for f, rel in objs}


def strongly_connected(nodes, edges):
    """The components of more than one folder (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for (a, b) in edges:
            if a != v:
                continue
            if b not in index:
                visit(b)
                low[v] = min(low[v], low[b])
            elif b in on:
                low[v] = min(low[v], index[b])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp, key=nodes.index))

    for v in nodes:
        if v not in index:
            visit(v)
    return out


def edge_details(top, refs, fol, a, b, cache):
    lines = []
    for caller_obj, sym, def_obj in refs:
        if fol[caller_obj] != a or fol[def_obj] != b:
            continue
        if caller_obj not in cache:
            cache[caller_obj] = callers(os.path.join(top, caller_obj))
        who = ", ".join(sorted(cache[caller_obj].get(sym, {"?"})))
        lines.append(f"    {who} ({src_name(caller_obj)}) calls {sym} ({src_name(def_obj)})")
    return lines


def src_name(rel):
    return rel[:-2] if rel.endswith(".c.o") else rel


def check_graph(args, order, errors):
    top, objs = find_objects(args.build, args.src, order)
    refs = references(top, objs)
    fol = folder_of(objs)
    rank = {f: i for i, f in enumerate(order)}
    ifaces = stages_ports.interfaces(args.src, order, read, mask)
    refs, through = stages_ports.split_interface_refs(refs, fol, ifaces, rank, errors)
    counts = {}
    for caller_obj, _sym, def_obj in refs:
        e = (fol[caller_obj], fol[def_obj])
        if e[0] != e[1]:
            counts[e] = counts.get(e, 0) + 1
    allowed = set(args.allow_edge)
    print(f"stage graph ({' <- '.join(order)}: a folder calls only folders to its left), "
          f"caller -> callee (references):")
    for e in sorted(counts, key=lambda e: (rank[e[0]], rank[e[1]])):
        mark = ""
        if rank[e[1]] > rank[e[0]]:
            mark = "   allowed (--allow-edge)" if e in allowed else "   AGAINST THE ORDER"
        print(f"  {e[0]} -> {e[1]} ({counts[e]}){mark}")
    stages_ports.print_interfaces(through)
    cache = {}
    for e in sorted(counts, key=lambda e: (rank[e[0]], rank[e[1]])):
        if rank[e[1]] > rank[e[0]] and e not in allowed:
            errors.append(f"{e[0]} -> {e[1]} goes against the order {' <- '.join(order)}:\n"
                          + "\n".join(edge_details(top, refs, fol, e[0], e[1], cache)))
    for e in sorted(allowed - set(counts)):
        errors.append(f"--allow-edge {e[0]}:{e[1]}: there is no such edge any more (drop the exception)")
    report_cycles(order, counts, allowed, errors)


def report_cycles(order, counts, allowed, errors):
    def names(comp, edges):
        return ", ".join(f"{a} -> {b} ({counts[(a, b)]})" for (a, b) in sorted(edges)
                         if a in comp and b in comp)
    strict = [e for e in counts if e not in allowed]
    for comp in strongly_connected(order, strict):
        errors.append(f"cycle between the stages {', '.join(comp)}: {names(comp, strict)}")
    for comp in strongly_connected(order, list(counts)):
        if not any(set(comp) <= set(c) for c in strongly_connected(order, strict)):
            print(f"{PROG}: note: cycle between {', '.join(comp)} ({names(comp, counts)}) "
                  f"tolerated by --allow-edge")


# ---- includes --------------------------------------------------------------

INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([^"]+)"', re.M)


def check_includes(args, order, errors):
    comp = os.path.join(args.src, "compiler")
    home = {}  # header name -> its folder
    for f in order:
        for name in list_dir(os.path.join(comp, f)):
            if name.endswith(".h"):
                home[name] = f
    rank = {f: i for i, f in enumerate(order)}
    used = set()
    for f in order:
        for name in list_dir(os.path.join(comp, f)):
            if not name.endswith((".c", ".h")):
                continue
            rel = f"{f}/{name}"
            text = mask(read(os.path.join(comp, f, name)), keep_strings=True)
            for m in INCLUDE.finditer(text):
                h = os.path.basename(m.group(1))
                if h not in home or rank[home[h]] <= rank[f]:
                    continue
                if (rel, h) in args.allow_include:
                    used.add((rel, h))
                    continue
                line = text.count("\n", 0, m.start()) + 1
                errors.append(f"compiler/{rel}:{line}: includes \"{m.group(1)}\" of compiler/{home[h]}, "
                              f"a later stage than {f}")
    for rel, h in sorted(set(args.allow_include) - used):
        errors.append(f"--allow-include {rel}:{h}: compiler/{rel} no longer includes {h} (drop the exception)")


def list_dir(d):
    return sorted(os.listdir(d)) if os.path.isdir(d) else []


def read(path):
    with open(path, encoding="utf-8", errors="replace") as fh:
        return fh.read()


# ---- function lengths ------------------------------------------------------

def mask(text, keep_strings=False):
    """The text with comments (and string and character literals, and unless
    keep_strings preprocessor lines) blanked, newlines kept, so that braces
    and parentheses are code."""
    out = list(text)
    i, n, state, pp, bol = 0, len(text), "code", False, True
    while i < n:
        c = text[i]
        nxt = text[i + 1] if i + 1 < n else ""
        if state == "code":
            if c == "/" and nxt == "*":
                state = "block"
                out[i] = out[i + 1] = " "
                i += 2
                continue
            if c == "/" and nxt == "/":
                state = "line"
            elif c in "\"'" and not (keep_strings and pp):
                state = c
            elif c == "#" and bol:
                pp = True
            if c == "\n":
                pp = pp and i > 0 and text[i - 1] == "\\"
                bol = True
            elif not c.isspace():
                bol = False
            if (pp and not keep_strings and c != "\n") or state != "code":
                out[i] = " "
        elif state == "block":
            if c == "*" and nxt == "/":
                out[i] = out[i + 1] = " "
                state = "code"
                i += 2
                continue
            if c != "\n":
                out[i] = " "
        elif state == "line":
            if c == "\n" and text[i - 1] != "\\":
                state, bol = "code", True
                pp = False
            else:
                out[i] = " "
        else:  # in a string or character literal (ends at its line's end)
            if c == "\\" and nxt:
                out[i] = " "
                if nxt != "\n":
                    out[i + 1] = " "
                i += 2
                continue
            if c == "\n":
                state, bol, pp = "code", True, False
            else:
                state = "code" if c == state else state
                out[i] = " "
        i += 1
    return "".join(out)


def grammar_c(text, is_bison):
    """The C code of a flex or bison file: %{ %} blocks, bison's %code
    blocks and everything after the second %%; the rest blanked, lines kept."""
    keep = [False] * len(text)
    lines = text.splitlines(keepends=True)
    pos, section, in_block = 0, 0, False
    for ln in lines:
        s = ln.strip()
        if section < 2 and s == "%%":
            section += 1
        elif section == 0 and s == "%{":
            in_block = True
        elif in_block and s == "%}":
            in_block = False
        elif section == 2 or in_block:
            keep[pos:pos + len(ln)] = [True] * len(ln)
        elif section == 0 and is_bison and s.startswith("%code") and "{" in ln:
            start = pos + ln.index("{") + 1
            end = matching_brace(text, start)
            keep[start:end] = [True] * (end - start)
        pos += len(ln)
    return "".join(c if k or c == "\n" else " " for c, k in zip(text, keep))


def matching_brace(text, start):
    m = mask(text[start:])
    depth = 1
    for i, c in enumerate(m):
        depth += (c == "{") - (c == "}")
        if depth == 0:
            return start + i
    return len(text)


IDENT_END = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*$")


def open_paren(m, close):
    depth = 0
    for i in range(close, -1, -1):
        depth += (m[i] == ")") - (m[i] == "(")
        if depth == 0:
            return i
    return -1


def function_name(m, close):
    """(name, position) of the function whose parameter list closes at
    m[close], or None when the ')' closes something else (a cast before an
    initializer, a condition)."""
    op = open_paren(m, close)
    if op < 0:
        return None
    k = len(m[:op].rstrip()) - 1
    if k >= 0 and m[k] == ")":  # int (*f(void))(int): the name is inside
        inner = open_paren(m, k)
        found = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*\(").search(m, inner + 1, k)
        return (found.group(1), found.start()) if found else None
    found = IDENT_END.search(m, max(0, op - 200), op)
    if not found or found.group(1) in ("if", "while", "for", "switch", "sizeof", "return"):
        return None
    return (found.group(1), found.start(1))


def functions(m):
    """(name, line of the name, first line, last line) of every function
    definition in masked text m; raises ValueError when braces do not match."""
    starts = [0] + [i + 1 for i, c in enumerate(m) if c == "\n"]
    line = lambda p: bisect.bisect_right(starts, p)  # noqa: E731
    out, depth, cur = [], 0, None
    for i, c in enumerate(m):
        if c == "{":
            if depth == 0:
                j = len(m[:i].rstrip()) - 1
                named = function_name(m, j) if j >= 0 and m[j] == ")" else None
                if named:
                    cur = (named[0], line(named[1]), line(i))
            depth += 1
        elif c == "}":
            depth -= 1
            if depth < 0:
                raise ValueError(f"line {line(i)}: a '}}' closes nothing")
            if depth == 0 and cur:
                out.append((cur[0], cur[1], cur[2], line(i)))
                cur = None
    if depth != 0:
        raise ValueError("a '{' is never closed")
    return out


def length_sources(src):
    comp = os.path.join(src, "compiler")
    files = []
    for root, _dirs, names in os.walk(comp):
        files += [os.path.join(root, n) for n in names if n.endswith((".c", ".h"))]
    gram = os.path.join(src, "grammar")
    files += [os.path.join(gram, n) for n in list_dir(gram) if n.endswith((".l", ".y"))]
    return sorted(files)


def check_lengths(args, errors):
    allowed, used, found = set(args.allow_long), set(), []
    files = length_sources(args.src)
    if not files:
        raise Usage(f"no C files under {args.src}/compiler")
    for path in files:
        rel = os.path.relpath(path, args.src)
        text = read(path)
        if path.endswith((".l", ".y")):
            text = grammar_c(text, path.endswith(".y"))
        try:
            funcs = functions(mask(text))
        except ValueError as e:
            errors.append(f"{rel}: cannot find its functions: {e}")
            continue
        short = os.path.relpath(path, os.path.join(args.src, "compiler"))
        for name, at, first, last in funcs:
            n = last - first + 1
            if n <= args.max_lines:
                continue
            keys = {name, f"{short}:{name}"} & allowed
            if keys:
                used |= keys
                continue
            found.append(f"{rel}:{at}: {name}: {n} lines")
    if found:
        errors.append(f"functions longer than {args.max_lines} lines (opening to closing brace):\n  "
                      + "\n  ".join(found))
    for a in sorted(allowed - used):
        errors.append(f"--allow-long {a}: no function of that name is longer than {args.max_lines} lines "
                      f"(drop the exception)")


# ---- command line ----------------------------------------------------------

def pair(s):
    a, sep, b = s.rpartition(":")
    if not sep or not a or not b:
        raise argparse.ArgumentTypeError(f"'{s}' is not of the form A:B")
    return (a, b)


def parse_args(argv):
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    p = argparse.ArgumentParser(prog=PROG, description="Check that the compiler's stages call and include "
                                "one way only and that no function is too long.")
    p.add_argument("build", nargs="?", metavar="BUILD_DIR",
                   help="a build folder in which paccore was built (for the call graph)")
    p.add_argument("--src", default=here, help="the source tree (default: the one this script is in)")
    p.add_argument("--only", choices=["graph", "includes", "fnptrs", "runtime", "lengths"], action="append",
                   help="run only this check (repeatable)")
    p.add_argument("--order", default=DEFAULT_ORDER,
                   help=f"the stage folders, each calling only those before it (default {DEFAULT_ORDER})")
    p.add_argument("--max-lines", type=int, default=80, metavar="N",
                   help="the longest function allowed, in lines from its opening brace to its closing brace (80)")
    p.add_argument("--allow-edge", type=pair, action="append", default=[], metavar="FROM:TO",
                   help="tolerate calls from folder FROM to folder TO (repeatable)")
    p.add_argument("--allow-include", type=pair, action="append", default=[], metavar="FILE:HEADER",
                   help="tolerate compiler/FILE including HEADER of a later folder (repeatable)")
    p.add_argument("--allow-long", action="append", default=[], metavar="[FILE:]FUNC",
                   help="tolerate the function FUNC (of compiler/FILE) being too long (repeatable)")
    p.add_argument("--allow-callback", action="append", default=[], metavar="FUNC",
                   help="tolerate the function FUNC being handed to a function pointer of an earlier stage "
                   "(repeatable)")
    p.add_argument("--runtime-rules", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                           "stages-runtime.rules"), metavar="FILE",
                   help="the runtime's layers (default: tools/stages-runtime.rules)")
    args = p.parse_args(argv)
    if args.max_lines < 1:
        p.error("--max-lines must be at least 1")
    checks = args.only or ["graph", "includes", "fnptrs", "runtime", "lengths"]
    if "graph" in checks and not args.build:
        if args.only:
            p.error("the graph check needs BUILD_DIR")
        print(f"{PROG}: note: no BUILD_DIR, so the calls between stages are not checked")
        checks.remove("graph")
    return args, checks


def main(argv):
    args, checks = parse_args(argv)
    order = [f for f in args.order.split(",") if f]
    errors = []
    try:
        if "graph" in checks:
            check_graph(args, order, errors)
        if "includes" in checks:
            check_includes(args, order, errors)
        if "fnptrs" in checks:
            stages_ports.check_fnptrs(args, order, errors, read, mask, functions)
        if "runtime" in checks:
            stages_runtime.check_runtime(args, errors, read, mask)
        if "lengths" in checks:
            check_lengths(args, errors)
    except Usage as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return 2
    for e in errors:
        print(f"{PROG}: error: {e}", file=sys.stderr)
    if not errors:
        print(f"{PROG}: ok ({', '.join(checks)})")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
