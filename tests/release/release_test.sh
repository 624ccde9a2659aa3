#!/bin/sh
# release_test.sh - tools/release.sh's checks and source tarball, in a clone
# of this repository (with this work tree's release.sh): it refuses a HEAD
# without the tag vVERSION, a lightweight tag, an undated CHANGELOG.md entry,
# uncommitted changes and a tag that is not HEAD; once all is in order
# --check passes and --source writes parray-VERSION.tar.gz, the tagged tree
# under parray-VERSION/, with its checksum. (The package build that follows in
# a full run is cpack's, tested by install.deb.)
#   release_test.sh SOURCE_DIR VERSION   (exits 77, skipped, outside a git repository)
set -u
src=$(cd "$1" && pwd) v=$2
command -v git >/dev/null 2>&1 && git -C "$src" rev-parse --git-dir >/dev/null 2>&1 ||
  { echo "skipped: $src is not a git work tree"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }
git clone -q "$src" "$tmp/r" || { echo "FAIL: git clone"; exit 1; }
cd "$tmp/r" || exit 1
git config user.name "release test" && git config user.email "release-test@localhost"
git config tag.gpgSign false && git config commit.gpgSign false
cp "$src/tools/release.sh" tools/release.sh
# the entry of VERSION undated, whatever the source says
sed -i "s/^## \[$v\].*/## [$v] - Unreleased/" CHANGELOG.md
grep -q "^## \[$v\] - Unreleased" CHANGELOG.md || fail "CHANGELOG.md has no entry for $v"
git add tools/release.sh CHANGELOG.md && git commit -qm "the release script under test" --allow-empty
# expect WORDS ARGS...: release.sh ARGS fails with a message containing WORDS
expect() {
  words=$1
  shift
  if sh tools/release.sh "$@" >"$tmp/out" 2>&1; then
    fail "release.sh $* passed; expected: $words"
  elif grep -qF -- "$words" "$tmp/out"; then
    echo "ok: refused: $(cat "$tmp/out")"
  else
    fail "release.sh $* said '$(cat "$tmp/out")', not '$words'"
  fi
}
expect "no tag v$v" --check
git tag "v$v"
expect "lightweight tag" --check
git tag -d "v$v" >/dev/null && git tag -a "v$v" -m "pac $v"
expect "no dated entry" --check
sed -i "s/^## \[$v\] - Unreleased/## [$v] - 2030-01-31/" CHANGELOG.md
expect "uncommitted changes" --check
git commit -qam "date the release"
expect "is not HEAD" --check
git tag -f -a "v$v" -m "pac $v" >/dev/null
if sh tools/release.sh --check >"$tmp/out" 2>&1; then echo "ok: --check: $(cat "$tmp/out")"; else
  cat "$tmp/out"; fail "release.sh --check refused a tagged, dated, clean release"; fi
echo "not in the release" >untracked.txt
if sh tools/release.sh --source "$tmp/dist" >"$tmp/out" 2>&1; then
  tarball=$tmp/dist/parray-$v.tar.gz
  tar -tzf "$tarball" >"$tmp/list" 2>/dev/null || fail "no readable $tarball"
  for f in CMakeLists.txt LICENSE NOTICE CHANGELOG.md README.md tools/release.sh cmake/ParrayPack.cmake; do
    grep -qx "parray-$v/$f" "$tmp/list" || fail "the tarball has no parray-$v/$f"
  done
  ! grep -q 'untracked.txt' "$tmp/list" || fail "the tarball has an untracked file"
  mkdir "$tmp/x" && tar -xzf "$tarball" -C "$tmp/x"
  grep -q "^project(pac VERSION $v " "$tmp/x/parray-$v/CMakeLists.txt" || fail "the tarball's CMakeLists.txt is not $v"
  grep -q "^## \[$v\] - 2030-01-31" "$tmp/x/parray-$v/CHANGELOG.md" || fail "the tarball is not the tagged commit"
  (cd "$tmp/dist" && sha256sum -c SHA256SUMS >/dev/null) || fail "SHA256SUMS does not match the tarball"
  [ "$failed" = 1 ] || echo "ok: --source wrote parray-$v.tar.gz ($(wc -l <"$tmp/list") entries) and SHA256SUMS"
else
  cat "$tmp/out"; fail "release.sh --source"
fi
exit $failed
