#!/bin/sh
# emulated_paths.sh - runs a program with distributed device arrays on the
# emulated CUDA runtime and NCCL (tests/gpu_mpi/emulated/) under mpirun and
# checks, besides its own element-by-element check (PASS on stdout, no
# FAIL), the path each pair of processes took in every distributed #copy,
# from the lines PARRAY_MPI_TRACE=1 prints on stderr
#   FILE:LINE: note: #copy on process R: direct with 1; nccl with 2,3; own part
# and from the emulated NCCL's log of its groups (EMULATED_NCCL_LOG=1),
# which must name exactly the peers the trace line after them names "nccl".
#   emulated_paths.sh MPIEXEC NPFLAG NP PROG EXPECT [--nodes=K] [--reach=div:K|mod:K] [--no-nccl]
#                     [--some-pairs] [--message=ERE]
# EXPECT:
#   nccl, direct, staged  every pair of processes took that path (the
#                         transport forced with PARRAY_MPI_TRANSPORT), and
#                         each process took it with every other one
#   auto                  processes that reach each other's blocks (same
#                         group) went direct in every copy where any pair
#                         went direct, and each such pair did at least once;
#                         others never went direct, and took NCCL (with
#                         --no-nccl, NCCL cannot be loaded: staged, and a
#                         copy that needs it goes staged as a whole)
#   fails                 the job ends with a non-zero status (no hang),
#                         naming a .pc line in an error matching ERE
# --nodes=K: K simulated nodes of NP/K consecutive processes (NCCL_HOSTID).
# --reach: the groups of processes that reach each other: div:K (processes
# R/K) or mod:K (R%K: EMULATED_GPUS=K without peer access); by default the
# nodes. --some-pairs: the program's copies do not join every pair of
# processes (no check that each pair took its path at least once). The
# environment (PARRAY_MPI_TRANSPORT, PARRAY_NCCL_LIBRARY, ...) comes from the
# caller (ctest).
set -u
mpiexec=$1 npflag=$2 np=$3 prog=$4 expect=$5
shift 5
nodes=1 reach='' nonccl=0 message=. cover=1
for a in "$@"; do
  case $a in
  --nodes=*) nodes=${a#--nodes=} ;;
  --reach=*) reach=${a#--reach=} ;;
  --no-nccl) nonccl=1 ;;
  --some-pairs) cover=0 ;;
  --message=*) message=${a#--message=} ;;
  *) echo "emulated_paths.sh: unknown option $a"; exit 2 ;;
  esac
done
per=$(( (np + nodes - 1) / nodes ))
[ -n "$reach" ] || reach=div:$per
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export PARRAY_MPI_TRACE=1 EMULATED_NCCL_LOG=1
limit=
command -v timeout >/dev/null 2>&1 && limit="timeout 240"
if [ "$nodes" -gt 1 ]; then
  # shellcheck disable=SC2016 # expanded by the shell of each process
  $limit "$mpiexec" --allow-run-as-root --oversubscribe "$npflag" "$np" \
    sh -c 'NCCL_HOSTID=node$((${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-0}} / '"$per"')) exec "$0"' "$prog" \
    >"$tmp/out" 2>"$tmp/err"
else
  $limit "$mpiexec" --allow-run-as-root --oversubscribe "$npflag" "$np" "$prog" >"$tmp/out" 2>"$tmp/err"
fi
rc=$?
echo "--- stdout"
cat "$tmp/out"
echo "--- stderr"
cat "$tmp/err"
echo "---"
if [ "$expect" = fails ]; then
  [ "$rc" -eq 124 ] && { echo "emulated_paths: WRONG: the job did not end (a hang)"; exit 1; }
  [ "$rc" -ne 0 ] || { echo "emulated_paths: WRONG: the job succeeded; it should have failed"; exit 1; }
  grep -E "\.pc:[0-9]+: error: .*($message)" "$tmp/err" >/dev/null ||
    { echo "emulated_paths: WRONG: no error naming a .pc line and matching /$message/"; exit 1; }
  echo "emulated_paths: ok (the job failed as expected, status $rc)"
  exit 0
fi
[ "$rc" -eq 0 ] || { echo "emulated_paths: WRONG: the job ended with status $rc"; exit 1; }
if ! grep -q PASS "$tmp/out" || grep -q FAIL "$tmp/out"; then
  echo "emulated_paths: WRONG: no PASS from the program"
  exit 1
fi
awk -v np="$np" -v cover="$cover" -v expect="$expect" -v reach="$reach" -v nonccl="$nonccl" '
function wrong(msg) { if (nwrong++ < 20) print "emulated_paths: WRONG: " msg; }
function grp(q) { return rmode == "mod" ? q % rk : int(q / rk); }
BEGIN { split(reach, rr, ":"); rmode = rr[1]; rk = rr[2] + 0; ngroups = 0; npath = 0; }
/^emulated NCCL: process [0-9]+: group [0-9]+:/ {
  r = $4 + 0; ngroups++;
  for (i = 7; i <= NF; i++) {
    t = $i; sub(/;$/, "", t);
    if (t ~ /^[0-9]+:[0-9]+$/) { split(t, pq, ":"); pend[r, pq[1] + 0] = 1; }
  }
  next;
}
/: note: #copy on process [0-9]+: / {
  tag = ": note: #copy on process ";
  i = index($0, tag); site = substr($0, 1, i - 1); rest = substr($0, i + length(tag));
  r = rest + 0; body = substr(rest, index(rest, ": ") + 2);
  nlines[r]++; order[r] = order[r] " " site;
  site = site " (copy " (++runs[r, site]) ")"; # a .pc line may run more than once
  if (!(site in sitenum)) { sitenum[site] = ++nsites; sitename[nsites] = site; }
  split("", here);
  if (body != "nothing") {
    n = split(body, parts, "; ");
    for (j = 1; j <= n; j++) {
      p = parts[j];
      if (p == "own part") continue;
      if (p !~ /^(staged|nccl|direct) with [0-9]+(,[0-9]+)*$/) { wrong("unreadable part \"" p "\" in: " $0); continue; }
      kind = substr(p, 1, index(p, " ") - 1);
      m = split(substr(p, index(p, " with ") + 6), qs, ",");
      for (k = 1; k <= m; k++) {
        q = qs[k] + 0;
        if ((site, r, q) in path) wrong("process " q " named twice in: " $0);
        path[site, r, q] = kind; here[q] = kind; npath++; used[kind]++; with[kind, r, q] = 1;
        if (kind == "direct") sitedirect[site] = 1;
      }
    }
  }
  # what went over NCCL since the last line of this process: the nccl peers
  for (q = 0; q < np; q++) {
    over = (r, q) in pend; said = (q in here) && here[q] == "nccl";
    if (over != said)
      wrong(over ? "process " r " exchanged with " q " over NCCL, but its trace does not say nccl: " $0 \
                 : "the trace says nccl with " q ", but process " r " exchanged nothing with it over NCCL: " $0);
    delete pend[r, q];
  }
  next;
}
END {
  for (r = 0; r < np; r++) {
    if (!nlines[r]) wrong("process " r " printed no trace line");
    else if (order[r] != order[0]) wrong("processes 0 and " r " traced different copies");
  }
  if (!nsites) wrong("no trace line at all");
  for (key in path) {
    split(key, kk, SUBSEP); site = kk[1]; r = kk[2] + 0; q = kk[3] + 0; kind = path[key];
    where = site " (process " r " with " q "): " kind;
    if (expect != "auto") {
      if (kind != expect) wrong("not " expect " at " where);
      continue;
    }
    if (q == r) { if (kind == "direct") wrong("direct with itself at " where); continue; }
    same = grp(q) == grp(r);
    if (kind == "direct" && !same) wrong("direct between processes that do not reach each other at " where);
    if (kind == "nccl" && nonccl) wrong("nccl without NCCL at " where);
    if (kind == "staged" && !nonccl) wrong("staged though NCCL is there at " where);
    if ((site in sitedirect) && same && kind != "direct") wrong("not direct in a copy that went direct at " where);
    # without NCCL, a copy that needs it goes staged as a whole
    if ((site in sitedirect) && kind == "staged") wrong("staged in a copy that went direct at " where);
  }
  if (np > 1 && (expect == "direct" || expect == "staged") && ngroups)
    wrong(ngroups " NCCL groups with the " expect " path");
  for (r = 0; r < np && cover; r++)
    for (q = 0; q < np; q++) {
      if (q == r) continue;
      want = expect;
      if (expect == "auto") want = grp(q) == grp(r) ? "direct" : nonccl ? "staged" : "nccl";
      # without NCCL, pairs that reach each other go staged in copies that cross groups
      if (expect == "auto" && nonccl && want == "direct" && (("staged", r, q) in with)) continue;
      if (!((want, r, q) in with)) wrong("process " r " never went " want " with " q);
    }
  printf "emulated_paths: %d paths of %d copies checked; %d NCCL groups\n", npath, nsites, ngroups;
  exit nwrong != 0;
}' "$tmp/err" || exit 1
echo "emulated_paths: ok"
