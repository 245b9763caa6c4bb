#!/usr/bin/env bash
# The next session's device call (prepared in session 27, not run): the speed aims first, then the
# whole device suite and the sanitizers, each with its own time limit, in order of need.
#   bash bench/dev/call34.sh build        here: call26's binaries under .pre, and the f32 sum's pair
#                                         (CN_DSUM32_WINDOW=2) as .pre/var/p2 (carry .pre, bin/cairn, .devlib)
#   bash bench/dev/call34.sh run OUT      on the GPU machine (LIMIT s, default 560); OUT/all.tgz
#   1. mma_bench: tile64, tile32, tile128 and mma_unordered against cuBLAS (the defaults of 7b24bf8:
#      the pad skip, tile128 held to two blocks an SM);
#   2. the exact sums, bins (base) against the pair in front of them (p2), at 2^24, 2^26, 2^28, then
#      Nsight Compute on p2's f32 fold at 2^26 (is the shared-memory chain gone?);
#   3. coll_bench's scans and compaction against CUB (issue 16's first aim, on this GPU);
#   4. the whole device suite but float_agree and math_agree;
#   5. the pipeline, fragment and sum programs under memcheck, racecheck and synccheck.
set -u
cd "$(dirname "$0")/../.."
export LD_LIBRARY_PATH=$PWD/.devlib:${LD_LIBRARY_PATH:-}
export CPATH=$PWD/.devlib/include${CPATH:+:$CPATH} LIBRARY_PATH=$PWD/.devlib${LIBRARY_PATH:+:$LIBRARY_PATH}
if [ "${1:-}" = build ]; then
    bash bench/dev/call26.sh build || exit 1
    BUILD_ONLY=1 bash bench/dev/scan_variants.sh .pre/var "p2 -DCN_DSUM32_WINDOW=2" || exit 1
    rm -f .pre/var/*/k.o .pre/var/*/*.a; du -sh .pre; exit 0
fi
OUT=${2:?usage: bench/dev/call34.sh run OUT}; mkdir -p "$OUT/l"
LIMIT=${LIMIT:-560} P=.pre L=$OUT/l B=/tmp/c34
left() { echo $((LIMIT - SECONDS)); }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; nvcc --version | tail -1
timeout 60 $P/mb --only tile64,tile32,tile128,mma_unordered --reps 7 >"$L/mma_bench.log" 2>&1
echo "1. mma_bench: exit $? at ${SECONDS}s"; grep -E 'cublas|mma_unordered|tile' "$L/mma_bench.log"
# each SASS instruction's executed count in tile128's fast kernel (where a step's ~550 instructions go)
timeout 60 ncu -k regex:cn_coop --launch-skip 1 --launch-count 1 --section SourceCounters --page source \
    --print-source sass --csv $P/mb --only tile128 --sizes 4096 --reps 1 >"$L/ncu.t128src.csv" 2>&1
echo "   ncu tile128 source: exit $? at ${SECONDS}s ($(wc -l <"$L/ncu.t128src.csv") lines)"
mkdir -p "$L/var"; cp -r $P/var/. "$L/var/"
ROWS='^sum' REPS=9 VARGS="--log2 24,26,28 --only sum_f32,sum_f32_wide,sum_f64,sum_f64_wide" NOBUILD=1 \
    timeout 120 bash bench/dev/scan_variants.sh "$L/var" "base" "p2 -DCN_DSUM32_WINDOW=2" >"$L/variants.log" 2>&1
echo "2. sums: exit $? at ${SECONDS}s"; cat "$L/var/variants.txt"
timeout 30 ncu -k regex:fold_kernel --launch-skip 2 --launch-count 1 --section SpeedOfLight --section WarpStateStats \
    --section Occupancy "$L/var/p2/coll_bench" --log2 26 --reps 1 --only sum_f32 >"$L/ncu.p2_f32.txt" 2>&1
echo "   ncu p2: exit $? at ${SECONDS}s"
grep -E "Duration|DRAM Throughput|Achieved Occupancy|Warp Cycles Per Issued|Est. Local Speedup" "$L/ncu.p2_f32.txt" | head -8
timeout 70 "$L/var/base/coll_bench" --log2 24,26,28 --reps 9 --only scan_i32,scan_i64,scan_max,compact \
    >"$L/coll.txt" 2>&1
echo "3. coll_bench: exit $? at ${SECONDS}s"; grep -vE '^#' "$L/coll.txt" | head -30
rm -f "$L"/var/*/coll_bench
SKIP="float_agree math_agree" timeout $(( $(left) - 100 > 30 ? $(left) - 100 : 30 )) bash tests/device/run.sh $B \
    >"$L/suite.txt" 2>&1
echo "4. suite: exit $? ($(grep -c '^PASS' "$L/suite.txt") PASS, $(grep -c '^FAIL' "$L/suite.txt") FAIL) at ${SECONDS}s"
grep '^FAIL' "$L/suite.txt" | head; tail -1 "$L/suite.txt"
SAN_ONLY='pipeline|frag|tile|sum|scan|compact' SAN_LIMIT=30 timeout $(( $(left) - 10 > 10 ? $(left) - 10 : 10 )) \
    bash tests/device/sanitize.sh $B >"$L/san.txt" 2>&1
echo "5. sanitizers: exit $? ($(grep -c '^PASS' "$L/san.txt") PASS, $(grep -c '^FAIL' "$L/san.txt") FAIL) at ${SECONDS}s"
grep -E '^FAIL' "$L/san.txt" | head; tail -1 "$L/san.txt"
tar -czf "$OUT/all.tgz" -C "$OUT" l && rm -rf "$L"
exit 0
