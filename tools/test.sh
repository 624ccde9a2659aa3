#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# test.sh - build everything and run the whole test suite with ctest.
#   BUILD=dir CMAKE_ARGS="..." sh tools/test.sh
set -eu
cd "$(dirname "$0")/.."
B=${BUILD:-build}
cmake -S . -B "$B" -G Ninja ${CMAKE_ARGS:-}
cmake --build "$B"
ctest --test-dir "$B" --output-on-failure -j "$(nproc)" ${CTEST_ARGS:-}
