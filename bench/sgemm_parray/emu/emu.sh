#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# emu.sh - checks the Parray SGEMM (include/parray/sgemm.pc) on the CPU: pac
# translates emu.pc (every layout of the GPU test plus alpha/beta), the
# kernel launches become calls of shim.h's emulator, g++ builds it (with
# SAN=thread, ThreadSanitizer reports any race in the shared-memory
# protocol, i.e. a missing barrier), and every element is compared with a
# float64 product. No GPU needed; a few seconds at N = 256. The translation
# has no profiler ranges (--no-nvtx): shim.h stands in for the whole runtime.
#   sh bench/sgemm_parray/emu/emu.sh BUILD_DIR [N] [SAN]
# EMU_DEFS adds -D options to pac and g++ (e.g. -DPARRAY_SGEMM_WIDE_MIN_TILES=1
# for the 256-thread shape at a small N, -DPARRAY_SGEMM_LOAD_AHEAD=0).
# shellcheck disable=SC2086 # EMU_DEFS and san are several words or none
set -eu
bin=$(cd "${1:?usage: emu.sh BUILD_DIR [N] [thread|address]}" && pwd)/bin
n=${2:-256}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$bin/pac" -I"$here/../../../include" --emit=cuda --no-line --no-nvtx -DN="$n" ${EMU_DEFS:-} "$here/emu.pc" -o "$tmp/gen.cu"
python3 - "$tmp/gen.cu" "$tmp/gen.cpp" <<'PY'
import re, sys
s = open(sys.argv[1]).read().replace('#include "parray.h"', '#include "shim.h"')
s = re.sub(r'(\w+)<<<(dim3\([^)]*\)), (dim3\([^)]*\))>>>\(', r'emu(\2, \3, \1, ', s)
open(sys.argv[2], 'w').write(s)
PY
san=""
[ -n "${3:-}" ] && san="-fsanitize=$3 -g"
g++ -std=c++20 -O1 $san -pthread -DN="$n" ${EMU_DEFS:-} -w -I"$here" "$tmp/gen.cpp" -o "$tmp/emu"
"$tmp/emu"
