#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""lsp_test.py - speaks the Language Server Protocol to `pac --lsp` as an
editor would, and checks its answers: pac's diagnostics for a document with
an error (line, column, range, message) and none once it is fixed, a hover
on a type name (its dimension tree and layout), a hover inside a dollar
expression (the C offset pac writes there), go-to-definition of a type and of
a subprogram, a column past a non-ASCII character counted in UTF-16 units,
malformed messages answered without a crash, and shutdown/exit status.
    python3 lsp_test.py PAC
"""
import json
import os
import subprocess
import sys
import tempfile

PAC = sys.argv[1]
failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


class Client:
    def __init__(self):
        self.p = subprocess.Popen([PAC, "--lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.next_id = 1
        self.pending = []  # notifications read while waiting for a response

    def send_raw(self, data):
        self.p.stdin.write(data)
        self.p.stdin.flush()

    def send(self, msg):
        body = json.dumps(msg).encode()
        self.send_raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def read(self):
        length = None
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise EOFError("pac --lsp closed its output")
            if line in (b"\r\n", b"\n"):
                break
            k, _, v = line.decode().partition(":")
            if k.lower() == "content-length":
                length = int(v)
        return json.loads(self.p.stdout.read(length))

    def request(self, method, params):
        i = self.next_id
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": i, "method": method, "params": params})
        while True:
            m = self.read()
            if m.get("id") == i:
                return m
            self.pending.append(m)

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def diagnostics(self, uri):
        while True:
            m = self.pending.pop(0) if self.pending else self.read()
            if m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri:
                return m["params"]["diagnostics"]


GOOD = """#include <stdio.h>
#parray {paged float [[3][2]][4]} A
#parray {paged float [#A_1][#A_0]} B
#subprog FILL(x)
  for (int i = 0; i < 24; i++) x[$B[i]$] = i;
#end
int main(void) {
  float *a; /* é */ #create A(a)
  #insert FILL(a)
  printf("%g %g\\n", a[$A[5]$], a[$B[5]$]);
  #destroy A(a)
  return 0;
}
"""
BAD = GOOD.replace("#destroy A(a)", "#destroy Q(a)")

with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "my doc.pc")
    uri = "file://" + path.replace(" ", "%20")
    c = Client()
    init = c.request("initialize", {"processId": None, "rootUri": None, "capabilities": {}})
    caps = init.get("result", {}).get("capabilities", {})
    check(caps.get("hoverProvider") is True and caps.get("definitionProvider") is True, "initialize: hover and definition")
    c.notify("initialized", {})

    c.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "parray", "version": 1, "text": BAD}})
    diags = c.diagnostics(uri)
    check(len(diags) >= 1, "an unknown type gives a diagnostic: %s" % diags)
    if diags:
        d0 = diags[0]
        check(d0["severity"] == 1 and "Q" in d0["message"], "it is an error naming Q: %s" % d0["message"])
        check(d0["range"]["start"]["line"] == 10, "on line 11 (10 from 0): %s" % d0["range"])
        col = BAD.splitlines()[10].index("Q")
        check(d0["range"]["start"]["character"] == col and d0["range"]["end"]["character"] == col + 1,
              "its range is the name Q (column %d): %s" % (col, d0["range"]))

    c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": GOOD}]})
    check(c.diagnostics(uri) == [], "no diagnostic once fixed")

    h = c.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 2, "character": 36}})
    v = (h.get("result") or {}).get("contents", {}).get("value", "")
    check("layout (4,6):(1,4)" in v and "B_0" in v, "hover on B shows its tree and layout: %r" % v[:200])

    h = c.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 4, "character": 35}})
    v = (h.get("result") or {}).get("contents", {}).get("value", "")
    check("i / 6 + i % 6 * 4" in v and "$B[i]$" in v, "hover in $B[i]$ shows its offset: %r" % v)

    line9 = GOOD.splitlines()[9]
    h = c.request("textDocument/hover", {"textDocument": {"uri": uri},
                                          "position": {"line": 9, "character": line9.index("B[5]")}})
    v = (h.get("result") or {}).get("contents", {}).get("value", "")
    check("$B[5]$" in v and "\n20\n" in v, "hover in the second dollar of a line shows its offset (20): %r" % v)

    # the é before #create: UTF-16 columns; line 8's A is after it
    line8 = GOOD.splitlines()[7]
    ch = len(line8[: line8.index("A(a)")].encode("utf-16-le")) // 2
    r = c.request("textDocument/definition", {"textDocument": {"uri": uri}, "position": {"line": 7, "character": ch}})
    loc = r.get("result") or {}
    check(loc.get("uri") == uri and loc.get("range", {}).get("start") == {"line": 1, "character": 34},
          "definition of A (after a non-ASCII character) is line 2's name: %s" % loc)
    r = c.request("textDocument/definition", {"textDocument": {"uri": uri}, "position": {"line": 8, "character": 12}})
    loc = r.get("result") or {}
    check(loc.get("range", {}).get("start") == {"line": 3, "character": 9}, "definition of FILL is its #subprog: %s" % loc)
    r = c.request("textDocument/definition", {"textDocument": {"uri": uri}, "position": {"line": 11, "character": 3}})
    check(r.get("result") is None, "no definition for 'return'")

    r = c.request("textDocument/completion", {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}})
    check(r.get("error", {}).get("code") == -32601, "an unknown request gets MethodNotFound")
    c.send_raw(b"Content-Length: 9\r\n\r\n{not json")
    m = c.read()
    check(m.get("error", {}).get("code") == -32700 and m.get("id") is None, "a malformed body gets a ParseError")
    deep = b"[" * 100000
    c.send_raw(b"Content-Length: %d\r\n\r\n" % len(deep) + deep)
    m = c.read()
    check(m.get("error", {}).get("code") == -32700, "a body nested 100000 deep gets a ParseError, not a crash")

    c.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    check(c.diagnostics(uri) == [], "closing clears the diagnostics")
    check(c.request("shutdown", None).get("result", 0) is None, "shutdown answers null")
    c.notify("exit", None)
    check(c.p.wait(timeout=30) == 0, "exit after shutdown: status 0")
    check(not os.path.exists(os.path.join(d, "my doc.c")), "nothing was written beside the document")

    c = Client()  # exit without shutdown: status 1
    c.notify("exit", None)
    check(c.p.wait(timeout=30) == 1, "exit without shutdown: status 1")

sys.exit(1 if failures else 0)
