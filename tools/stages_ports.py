# SPDX-License-Identifier: Apache-2.0
# stages_ports.py - the checks of tools/stages.sh about the ways one stage
# reaches a later one other than by a plain call (run tools/stages.sh):
#
#   interfaces  a header of an earlier stage may declare functions that a
#               later stage implements, when it says so in a line
#                   stages: interface implemented in FOLDER/FILE.c
#               (compiler/sema/program.h: what sema asks of the program).
#               The graph check then counts the calls into those functions
#               apart: every one must be declared in the interface and
#               defined in that one file, or it is an edge like any other.
#   fnptrs      no function pointer crosses the stages: a function of a later
#               stage stored into a function-pointer member of an earlier
#               stage's header (.m = f, ->m = f) or passed to an earlier
#               stage's function that takes a function pointer (g(.., f, ..))
#               is a call against the order that nm cannot see. Exceptions:
#               --allow-callback FUNC (the later stage's function).
import os
import re

IFACE_MARK = re.compile(r"stages:\s*interface implemented in\s+([\w/.-]+\.c)")
FNPTR = re.compile(r"\(\s*\*\s*([A-Za-z_]\w*)\s*\)\s*\(")
PROTO = re.compile(r"([A-Za-z_]\w*)\s*\(([^;{}]*)\)\s*;")
IDENT = re.compile(r"[A-Za-z_]\w*")


def stage_files(src, order, exts):
    """(folder, name, path) of every file of the stage folders ending in exts."""
    comp = os.path.join(src, "compiler")
    out = []
    for f in order:
        d = os.path.join(comp, f)
        for name in sorted(os.listdir(d)) if os.path.isdir(d) else []:
            if name.endswith(exts):
                out.append((f, name, os.path.join(d, name)))
    return out


# ---- interfaces ------------------------------------------------------------

def interfaces(src, order, read, mask):
    """[(header folder, header, implementing file 'FOLDER/FILE.c', {functions})]"""
    out = []
    for folder, name, path in stage_files(src, order, (".h",)):
        text = read(path)
        m = IFACE_MARK.search(text)
        if not m:
            continue
        code = mask(text)
        funcs = {p.group(1) for p in PROTO.finditer(code) if not FNPTR.search(p.group(0))}
        out.append((folder, name, m.group(1), funcs))
    return out


def split_interface_refs(refs, fol, ifaces, rank, errors):
    """The references that go through a declared interface (and are sound)
    taken out of refs: returns (other refs, {(from, to, header): count})."""
    rest, through = [], {}
    for caller_obj, sym, def_obj in refs:
        hit = None
        for folder, header, impl, funcs in ifaces:
            if sym in funcs and fol[caller_obj] == folder:
                hit = (folder, header, impl)
        if not hit:
            rest.append((caller_obj, sym, def_obj))
            continue
        folder, header, impl = hit
        impl_obj = impl + ".o"
        if def_obj != impl_obj:
            errors.append(f"{sym}, of the interface compiler/{folder}/{header}, is defined in "
                          f"{def_obj[:-2]}, not in {impl} where the header says it is implemented")
            rest.append((caller_obj, sym, def_obj))
            continue
        if rank[fol[def_obj]] <= rank[folder]:
            errors.append(f"compiler/{folder}/{header}: an interface implemented in {impl}, "
                          f"which is not a later stage than {folder}")
        key = (folder, fol[def_obj], header)
        through[key] = through.get(key, 0) + 1
    return rest, through


def print_interfaces(through):
    for (a, b, header), n in sorted(through.items()):
        print(f"  {a} -> {b} ({n})   through the interface {a}/{header}")


# ---- function pointers -------------------------------------------------------

def fnptr_ports(src, order, read, mask):
    """The function-pointer members and the functions taking a function
    pointer that each stage's headers declare: {folder: (members, takers)}."""
    ports = {}
    for folder, _name, path in stage_files(src, order, (".h",)):
        code = mask(read(path))
        members, takers = ports.setdefault(folder, (set(), set()))
        typedefs = {m.group(1) for m in FNPTR.finditer(code) if "typedef" in statement_before(code, m.start())}
        for m in FNPTR.finditer(code):
            if m.group(1) not in typedefs and not inside_parens(code, m.start()):
                members.add(m.group(1))
        for t in typedefs:  # members of a function-pointer type: ppc_loader load;
            for m in re.finditer(r"\b" + t + r"\s+([A-Za-z_]\w*)\s*;", code):
                members.add(m.group(1))
        for p in PROTO.finditer(code):
            params = p.group(2)
            if FNPTR.search(params) or any(t in typedefs for t in IDENT.findall(params)):
                takers.add(p.group(1))
    return ports


def statement_before(code, pos):
    start = max(code.rfind(";", 0, pos), code.rfind("{", 0, pos), code.rfind("}", 0, pos))
    return code[start + 1:pos]


def inside_parens(code, pos):
    """Whether pos is inside an unclosed '(' of its statement (a parameter)."""
    depth = 0
    for c in reversed(statement_before(code, pos)):
        depth += (c == "(") - (c == ")")
        if depth > 0:
            return True
    return False


def call_args(code, open_paren):
    depth = 0
    for i in range(open_paren, len(code)):
        depth += (code[i] == "(") - (code[i] == ")")
        if depth == 0:
            return code[open_paren + 1:i]
    return code[open_paren + 1:]


def crossings(code, later, ports):
    """(position, function, its folder, what) for each function of a later
    stage than a port's that this file hands to that port. later(folder,
    name) gives the folder of function name when it is later than folder."""
    out = []
    for folder, (members, takers) in ports:
        for m in members:
            # the function's name itself, not a call of it (".wait = f(x)" stores a value)
            for a in re.finditer(r"(?:\.|->)\s*" + m + r"\s*=\s*&?\s*([A-Za-z_]\w*)\b(?!\s*\()", code):
                if later(folder, a.group(1)):
                    out.append((a.start(), a.group(1), later(folder, a.group(1)),
                                f"stored into {folder}'s function pointer {m}"))
        for t in takers:
            for c in re.finditer(r"\b" + t + r"\s*\(", code):
                for name in sorted(set(IDENT.findall(call_args(code, c.end() - 1)))):
                    if later(folder, name):
                        out.append((c.start(), name, later(folder, name), f"passed to {folder}'s {t}"))
    return out


def check_fnptrs(args, order, errors, read, mask, functions):
    ports = fnptr_ports(args.src, order, read, mask)
    rank = {f: i for i, f in enumerate(order)}
    home = {}  # function -> the folder defining it
    files = stage_files(args.src, order, (".c",))
    for folder, _name, path in files:
        try:
            for f in functions(mask(read(path))):
                home.setdefault(f[0], folder)
        except ValueError:
            pass

    def later(folder, name):
        g = home.get(name)
        return g if g and rank[g] > rank[folder] else None

    allowed, used = set(args.allow_callback), set()
    for folder, name, path in files:
        code = mask(read(path))
        for pos, func, g, what in crossings(code, later, sorted(ports.items())):
            if func in allowed:
                used.add(func)
                continue
            line = code.count("\n", 0, pos) + 1
            errors.append(f"compiler/{folder}/{name}:{line}: {func} ({g}) is {what}: a call "
                          f"against the order that nm cannot see (declare an interface instead)")
    for a in sorted(allowed - used):
        errors.append(f"--allow-callback {a}: no such function is handed to an earlier stage (drop the exception)")
