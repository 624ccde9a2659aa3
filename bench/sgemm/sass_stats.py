#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""sass_stats.py - summarise `cuobjdump --dump-sass` output of the SGEMM
kernels: per kernel, the instruction mix of its hottest loop (the largest
region closed by a backward branch) -- FFMA share, shared-memory load width,
local-memory traffic (LDL/STL = spills). Usage: sass_stats.py dump.sass [func-regex out.txt] (matching loops are appended to out.txt)"""
import re
import sys
from collections import Counter

text = open(sys.argv[1]).read()
want, dump_to = (sys.argv[2], sys.argv[3]) if len(sys.argv) > 3 else (None, None)
for chunk in re.split(r'\n\s*Function : ', text)[1:]:
    name = chunk.split('\n')[0].strip()
    ins = []
    for line in chunk.split('\n'):
        m = re.search(r'/\*([0-9a-f]{4,})\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)(.*?);', line)
        if m:
            ins.append((int(m.group(1), 16), m.group(3), line.strip()))
    best = None
    for addr, op, line in ins:
        if op.startswith('BRA'):
            t = re.search(r'0x([0-9a-f]+)', line.split('BRA', 1)[1])
            if t and int(t.group(1), 16) < addr:
                lo = int(t.group(1), 16)
                if best is None or addr - lo > best[1] - best[0]:
                    best = (lo, addr)
    allc = Counter(op.split('.')[0] for _, op, _ in ins)
    print(f'{name}\n  whole kernel: {len(ins)} instr, LDL {allc["LDL"]} STL {allc["STL"]}')
    if best:
        loop = [(a, op, l) for a, op, l in ins if best[0] <= a <= best[1]]
        c = Counter(op for _, op, _ in loop)
        ffma = sum(v for k, v in c.items() if k.startswith('FFMA'))
        lds = {k: v for k, v in c.items() if k.startswith('LDS')}
        print(f'  main loop 0x{best[0]:x}-0x{best[1]:x}: {len(loop)} instr, FFMA {ffma} ({100.0 * ffma / len(loop):.1f}%), '
              f'LDS {lds}, LDG {sum(v for k, v in c.items() if k.startswith("LDG"))}, '
              f'STS {sum(v for k, v in c.items() if k.startswith("STS"))}, BAR {sum(v for k, v in c.items() if k.startswith("BAR"))}')
        if want and re.search(want, name):
            with open(dump_to, 'a') as f:
                f.write(name + '\n' + '\n'.join(l for _, _, l in loop) + '\n')
