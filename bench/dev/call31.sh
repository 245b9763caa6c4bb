#!/usr/bin/env bash
# Session 27's one device call, for when one call is all the device time allows: the essentials of
# call28 and call30 in order of need, each with its own time limit.
#   bash bench/dev/call31.sh run OUT      on the GPU machine (LIMIT s, default 480); OUT/all.tgz
# Needs call28's .pre (bash bench/dev/call28.sh build), carried with bin/cairn and .devlib.
#   1. the device suite's pipeline and tensor programs (the new defaults: merged waits, no alignment
#      guard where proved, a column of chunks a thread) and the pad skip's test (padmemo);
#   2. mma_bench: tile64, tile32, tile128 and mma_unordered against cuBLAS;
#   3. tile64 with the pad skip, and with a barrier a wait (the knobs of session 26);
#   4. the exact sums: session 26's default, and twice the terms in flight (a16: f32, d32: f64);
#   5. those programs under memcheck, racecheck and synccheck.
set -u
cd "$(dirname "$0")/../.."
export LD_LIBRARY_PATH=$PWD/.devlib:${LD_LIBRARY_PATH:-}
export CPATH=$PWD/.devlib/include${CPATH:+:$CPATH} LIBRARY_PATH=$PWD/.devlib${LIBRARY_PATH:+:$LIBRARY_PATH}
OUT=${2:?usage: bench/dev/call31.sh run OUT}; mkdir -p "$OUT/l"
LIMIT=${LIMIT:-480} P=.pre L=$OUT/l B=/tmp/c31
left() { echo $((LIMIT - SECONDS)); }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; nvcc --version | tail -1
RE='pipeline|fill|tile64|tile32|tile128|frag|tensor|padmemo'
ONLY="$RE" timeout 120 bash tests/device/run.sh $B >"$L/suite.txt" 2>&1
echo "1. suite: exit $? ($(grep -c '^PASS' "$L/suite.txt") PASS, $(grep -c '^FAIL' "$L/suite.txt") FAIL) at ${SECONDS}s"
grep -E '^FAIL' "$L/suite.txt" | head -20; tail -1 "$L/suite.txt"
timeout 50 $P/mb --only tile64,tile32,tile128,mma_unordered --reps 5 >"$L/mma_bench.log" 2>&1
echo "2. mma_bench: exit $? at ${SECONDS}s"; grep -E 'cublas|mma_unordered|tile' "$L/mma_bench.log"
for v in memo nomerge; do
    timeout 20 $P/mb_$v --only tile64 --reps 5 >"$L/mma_bench_$v.log" 2>&1
    echo "3. tile64 $v: exit $? at ${SECONDS}s"; grep -E 'tile' "$L/mma_bench_$v.log"
done
mkdir -p "$L/var"; cp -r $P/var/. "$L/var/"
ROWS='^sum' REPS=7 VARGS="--log2 26,28 --only sum_f32,sum_f32_wide,sum_f64,sum_f64_wide" NOBUILD=1 \
    timeout 110 bash bench/dev/scan_variants.sh "$L/var" "base" "a16 -DCN_DSUM32_U=16" "d32 -DCN_DSUM64_U=32" \
    >"$L/variants.log" 2>&1
echo "4. sums: exit $? at ${SECONDS}s"; cat "$L/var/variants.txt"
rm -f "$L"/var/*/coll_bench
SAN_ONLY="$RE" SAN_LIMIT=30 timeout $(( $(left) - 15 > 10 ? $(left) - 15 : 10 )) bash tests/device/sanitize.sh $B >"$L/san.txt" 2>&1
echo "5. sanitizers: exit $? ($(grep -c '^PASS' "$L/san.txt") PASS, $(grep -c '^FAIL' "$L/san.txt") FAIL, $(grep -c '^SKIP' "$L/san.txt") SKIP) at ${SECONDS}s"
grep -E '^(FAIL|SKIP)' "$L/san.txt" | head; tail -1 "$L/san.txt"
tar -czf "$OUT/all.tgz" -C "$OUT" l && rm -rf "$L"
exit 0
