#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# stages.sh - check the compiler's layering after a build (for CI):
#   sh tools/stages.sh [options] BUILD_DIR
#   sh tools/stages.sh --only lengths [--max-lines N]     (no build needed)
# 1. the calls between the stage folders of compiler/ (nm over the objects of
#    paccore in BUILD_DIR) go one way, front <- sema <- emit <- lower <- driver:
#    prints the folder graph, fails on a cycle or an edge against the order;
#    calls into functions that a header of an earlier folder declares as an
#    interface ("stages: interface implemented in FOLDER/FILE.c", e.g.
#    compiler/sema/program.h) are listed apart, and must be defined there;
# 2. no file of a folder includes a header of a later folder (compiler/emit
#    includes no lowering header);
# 2b. no function of a later folder is handed to a function pointer declared
#    by an earlier folder's header (a member set to it, or a parameter given
#    it): a call nm cannot see (--allow-callback FUNC for known ones);
# 2c. the runtime's layers include one way (tools/stages-runtime.rules: the
#    language runtime includes no private header of the kernel library...);
# 3. no function of compiler/ or of grammar/'s C code is longer than N lines
#    (80 by default), counted from its opening brace to its closing brace.
# Known exceptions: --allow-edge FROM:TO, --allow-include FILE:HEADER,
# --allow-long [FILE:]FUNC (each must match something). --help lists all.
# Exit status 0 when clean, 1 on a violation, 2 on a usage error.
# Needs python3 and binutils (nm, objdump): tools/deps-test.sh installs them.
set -eu
command -v python3 >/dev/null 2>&1 || { echo "stages.sh: error: python3 is needed (tools/deps-test.sh installs it)" >&2; exit 2; }
exec python3 "$(dirname "$0")/stages.py" "$@"
