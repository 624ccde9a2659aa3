#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# release.sh - make the release files of the version in CMakeLists.txt
# (docs/release.md gives the whole procedure):
#   1. checks: a clean work tree, HEAD tagged vVERSION (an annotated tag),
#      CHANGELOG.md's entry for VERSION dated (## [VERSION] - YYYY-MM-DD);
#   2. the source tarball parray-VERSION.tar.gz (git archive of the tag);
#   3. the binary packages, built by CPack from that tarball unpacked (so the
#      tarball is known to build): parray-VERSION-Linux-ARCH.tar.gz and the
#      Debian packages parray, parray-mpi (and parray-cuda, parray-mpi-cuda
#      where CUDA is found; CMAKE_ARGS="-DPARRAY_WITH_CUDA=OFF" leaves it out);
#   4. SHA256SUMS of them all.
#   sh tools/release.sh [--check | --source] [OUTDIR]   (OUTDIR: dist)
# --check stops after the checks, --source after the source tarball.
set -eu
cd "$(dirname "$0")/.."
stop=""
case ${1:-} in
  --check | --source) stop=$1; shift ;;
  -*) echo "usage: sh tools/release.sh [--check | --source] [OUTDIR]" >&2; exit 2 ;;
esac
out=${1:-dist}
die() { echo "release.sh: $*" >&2; exit 1; }

version=$(sed -n 's/^project(pac VERSION \([0-9][0-9.]*\) .*/\1/p' CMakeLists.txt)
[ -n "$version" ] || die "no project(pac VERSION X.Y.Z ...) in CMakeLists.txt"
tag=v$version
git rev-parse --git-dir >/dev/null 2>&1 || die "not a git work tree: releases are made from the repository"

# 1. checks
[ -z "$(git status --porcelain --untracked-files=no)" ] || die "the work tree has uncommitted changes"
git rev-parse -q --verify "refs/tags/$tag" >/dev/null ||
  die "no tag $tag: tag the release commit first (git tag -a $tag -m 'pac $version')"
[ "$(git cat-file -t "$tag")" = tag ] || die "$tag is a lightweight tag: make it annotated (git tag -a)"
[ "$(git rev-parse "$tag^{commit}")" = "$(git rev-parse HEAD)" ] ||
  die "$tag is not HEAD: check out the tagged commit (git checkout $tag)"
grep -Eq "^## \[$version\] - [0-9]{4}-[0-9]{2}-[0-9]{2}\$" CHANGELOG.md ||
  die "CHANGELOG.md has no dated entry '## [$version] - YYYY-MM-DD'"
echo "release.sh: $tag at HEAD, clean tree, CHANGELOG.md entry dated"
[ "$stop" != --check ] || exit 0

# 2. the source tarball
mkdir -p "$out"
out=$(cd "$out" && pwd)
src=$out/parray-$version.tar.gz
git archive --format=tar.gz --prefix="parray-$version/" -o "$src" "$tag"
echo "release.sh: $src"
if [ "$stop" = --source ]; then
  (cd "$out" && sha256sum "$(basename "$src")" >SHA256SUMS)
  exit 0
fi

# 3. the packages, from the tarball
work=$out/work
rm -rf "$work"
mkdir -p "$work"
tar -xzf "$src" -C "$work"
# shellcheck disable=SC2086 # CMAKE_ARGS is several words or none
cmake -S "$work/parray-$version" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF \
  ${CMAKE_ARGS:-} >"$work/configure.log" || die "configuring failed (log: $work/configure.log)"
cmake --build "$work/build" >"$work/build.log" || die "building failed (log: $work/build.log)"
cpack --config "$work/build/CPackConfig.cmake" -B "$work/packages" >"$work/cpack.log" ||
  die "cpack failed (log: $work/cpack.log)"
cp "$work"/packages/parray-"$version"-*.tar.gz "$work"/packages/parray*_"$version"_*.deb "$out/"

# 4. checksums
(cd "$out" && sha256sum parray-"$version"*.tar.gz parray*_"$version"_*.deb >SHA256SUMS)
rm -rf "$work"
echo "release.sh: in $out:"
(cd "$out" && ls -1 parray-"$version"*.tar.gz parray*_"$version"_*.deb SHA256SUMS | sed 's|^|  |')
