#!/bin/sh
# links.sh - the documentation stands installed: `cmake --install` of this
# build (its component parray, which holds the docs) into a temporary
# prefix, then every relative link of the Markdown files under
# share/doc/parray must lead to a file, folder or heading there (links.py).
#   links.sh BUILD_DIR DIR_OF_LINKS_PY   (exits 77, skipped, without python3)
set -u
build=$1 here=$2
command -v python3 >/dev/null 2>&1 || { echo "skipped: no python3"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" --component parray >"$tmp/install.log" 2>&1 ||
  { cat "$tmp/install.log"; echo "FAIL: cmake --install"; exit 1; }
doc=$tmp/prefix/share/doc/parray
[ -e "$doc/README.md" ] || { echo "FAIL: no share/doc/parray/README.md installed"; exit 1; }
# the README's table of documents alone has more than 20 links
python3 "$here/links.py" "$doc" 20
