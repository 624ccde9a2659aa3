#!/bin/sh
# run.sh - the runtime's record of detours launched without a wait, its
# limits of dynamic shared memory and its homes of distributed dmem blocks,
# checked without a GPU: runtime/cuda/cuda_core.cu compiled by g++ as C++
# against fake_cudart.cpp, each scenario of check.cpp run, its output,
# errors and exit status compared with check.expected. Needs the CUDA headers only
# (exit 77, skipped, where they are not).
#   sh run.sh BUILD_DIR [SAN]    (SAN: -fsanitize's list, e.g. address,undefined)
set -u
build=$(cd "${1:?usage: run.sh BUILD_DIR [SAN]}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
root=$here/../../..
cudainc=""
for d in ${CUDA_HOME:-/usr/local/cuda}/include /usr/local/cuda/include /usr/include; do
  [ -f "$d/cuda_runtime_api.h" ] && { cudainc=$d; break; }
done
[ -n "$cudainc" ] || { echo "SKIP: no CUDA headers (cuda_runtime_api.h)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
san=""
[ -n "${2:-}" ] && san="-fsanitize=$2 -fno-sanitize-recover=all -g"
# shellcheck disable=SC2086 # san holds several words
g++ -std=c++17 -O1 -Wall -Wextra $san -I"$build/include" -I"$root/include" -I"$cudainc" -x c++ \
  "$root/runtime/cuda/cuda_core.cu" -x none "$here/check.cpp" "$here/fake_cudart.cpp" "$build/lib/libparray.a" \
  -o "$tmp/check" || exit 1
for m in many one each seen_at_launch bad_launch exit syncs check_launch smem homes; do
  echo "== $m"
  if [ "$m" = each ]; then
    PARRAY_CUDA_WAIT=1 "$tmp/check" "$m" 2>&1
  else
    env -u PARRAY_CUDA_WAIT "$tmp/check" "$m" 2>&1
  fi
  echo "exit status $?"
done >"$tmp/out"
diff -u "$here/check.expected" "$tmp/out"
