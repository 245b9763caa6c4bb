#!/usr/bin/env bash
# Session 27's second device call: what the emitter changed in session 26 (merged waits, the WMMA
# alignment guard elided where proved) under the sanitizers, then issue 16's rows on this GPU.
#   bash bench/dev/call30.sh run OUT     on the GPU machine (LIMIT s, default 400); OUT/all.tgz
# Needs call28's .pre (bash bench/dev/call28.sh build), carried with bin/cairn and .devlib.
#   1. the device suite's cooperative, pipeline and tensor programs, built here (tests/device/run.sh);
#   2. those programs under memcheck (leaks too), racecheck and synccheck (tests/device/sanitize.sh);
#   3. coll_bench (session 26's default build): every scan, the compaction and the sums at 2^24, 2^26
#      and 2^28, each against its CUB call in one run.
set -u
cd "$(dirname "$0")/../.."
export LD_LIBRARY_PATH=$PWD/.devlib:${LD_LIBRARY_PATH:-}
export CPATH=$PWD/.devlib/include${CPATH:+:$CPATH} LIBRARY_PATH=$PWD/.devlib${LIBRARY_PATH:+:$LIBRARY_PATH}
OUT=${2:?usage: bench/dev/call30.sh run OUT}; mkdir -p "$OUT/l"
LIMIT=${LIMIT:-400} P=.pre L=$OUT/l B=/tmp/c30
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; nvcc --version | tail -1
RE="${C30_ONLY:-coop|pipeline|stage|fill|tile|frag|tensor|padmemo|mma}"
ONLY="$RE" timeout 150 bash tests/device/run.sh $B >"$L/suite.txt" 2>&1
echo "suite ($RE): exit $? ($(grep -c '^PASS' "$L/suite.txt") PASS, $(grep -c '^FAIL' "$L/suite.txt") FAIL) at ${SECONDS}s"
grep '^FAIL' "$L/suite.txt" | head; tail -1 "$L/suite.txt"
SAN_ONLY="$RE" SAN_LIMIT=40 timeout $((LIMIT - SECONDS - 90)) bash tests/device/sanitize.sh $B >"$L/san.txt" 2>&1
echo "sanitizers: exit $? ($(grep -c '^PASS' "$L/san.txt") PASS, $(grep -c '^FAIL' "$L/san.txt") FAIL, $(grep -c '^SKIP' "$L/san.txt") SKIP) at ${SECONDS}s"
grep -E '^(FAIL|SKIP)' "$L/san.txt" | head; tail -1 "$L/san.txt"
timeout $((LIMIT - SECONDS - 10 > 10 ? LIMIT - SECONDS - 10 : 10)) $P/var/base/coll_bench --log2 24,26,28 --reps 9 \
    >"$L/coll.txt" 2>&1
echo "coll_bench: exit $? at ${SECONDS}s"; grep -vE '(\+sync|@[0-9]+) ' "$L/coll.txt" | head -60
tar -czf "$OUT/all.tgz" -C "$OUT" l && rm -rf "$L"
exit 0
