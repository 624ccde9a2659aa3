# SPDX-License-Identifier: Apache-2.0
# device_env.sh - sourced by the bench scripts that build the project on the
# GPU machine (`. bench/device_env.sh` with ROOT set to the repository root):
# puts a cmake on PATH where the system has none (the PyTorch venv's), and
# sets GEN (the Ninja generator when ninja is there) and FE (the scanner and
# parser generated elsewhere, .carry/frontend or $PAC_FRONTEND, where flex or
# bison is missing), both to be passed unquoted to cmake.
command -v cmake >/dev/null || PATH=/opt/torch/.venv/bin:$PATH
GEN=""
command -v ninja >/dev/null && GEN="-G Ninja"
FE=""
command -v bison >/dev/null && command -v flex >/dev/null || FE="-DPAC_FRONTEND_DIR=${PAC_FRONTEND:-$ROOT/.carry/frontend}"
