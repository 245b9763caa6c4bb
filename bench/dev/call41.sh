#!/usr/bin/env bash
# Session 31's third device call, short: tile128w (examples/tensor/tile128w.cairn: four warps of
# 64 x 64 where tile128 has eight of 64 x 32) against tile128 and cuBLAS, its stall reasons; then the
# programs that sum floats and tile128w on the device (run.sh with ONLY), built with f64 batches of
# 32 (SUM_FLAGS, default -DCN_DSUM64_U=32, the default-to-be: runtime/cairn_devsum.h), and
# run_exact_sum under the sanitizers. Before those, the exact sums' fixed cost: the f32 sum takes 16 us
# more than CUB at 2^24 and at 2^26, 26 at 2^28 (evidence/2026-12-08-h100-call39.md), much of it the
# same at every size, so the sums at 2^16 and 2^20, alone (host time between the events included) and
# 20 in one call (--loop 20: the device's time alone), and Nsight Compute's kernel times at 2^16 (the
# memset of the total, the fold with its finish).
#   bash bench/dev/call41.sh build     here: .pre/mb, .pre/var/{base,f64u32}/coll_bench (carry .pre, bin/cairn, .devlib)
#   bash bench/dev/call41.sh run OUT   on the GPU machine (LIMIT s, default 260); OUT/all.tgz
set -u
cd "$(dirname "$0")/../.."
if [ "${1:-}" = build ]; then
    P=$PWD/.pre; rm -rf "$P"; mkdir -p "$P"
    . bench/dev/call35.sh lib || exit 1
    mb_build "$PWD" "$P/new" && mv "$P/new/mb" "$P/mb" || exit 1
    BUILD_ONLY=1 bash bench/dev/scan_variants.sh "$P/var" "base" "f64u32 -DCN_DSUM64_U=32" || exit 1
    rm -rf "$P/new" "$P"/var/*/k.o "$P"/var/*/*.a; du -sh "$P"; exit 0
fi
. bench/dev/call_run.sh call41 "${2:-}" 260
B=/tmp/c41
timeout 40 $P/mb --only tile128,tile128w --reps 5 >"$L/mb.log" 2>&1
echo "1. mb: exit $? at ${SECONDS}s"; grep -E 'cublas|tile' "$L/mb.log"
M=gpu__time_duration.sum,smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active
for r in long_scoreboard short_scoreboard mio_throttle wait math_pipe_throttle barrier not_selected selected; do
    M=$M,smsp__warp_issue_stalled_${r}_per_warp_active.pct
done
timeout 30 ncu -k regex:cn_coop --launch-skip 1 --launch-count 1 --metrics "$M" $P/mb --only tile128w --sizes 4096 \
    --reps 1 >"$L/ncu.tile128w.txt" 2>&1
echo "2. ncu tile128w: exit $? at ${SECONDS}s"
grep -E 'gpu__time|inst_executed|warps_active|hmma|stalled' "$L/ncu.tile128w.txt" | awk '{print "   ", $1, $(NF)}'
for v in base f64u32; do
    timeout 40 $P/var/$v/coll_bench --log2 16,20,24 --reps 9 --loop 20 --only sum_f32,sum_f64 >"$L/sums.$v.txt" 2>&1
    echo "2b. sums $v at 2^16 to 2^24: exit $? at ${SECONDS}s"; grep -v "^#" "$L/sums.$v.txt" | head -18
done
timeout 30 ncu --metrics gpu__time_duration.sum $P/var/base/coll_bench --log2 16 --reps 1 --only sum_f32,sum_f64 \
    >"$L/ncu.sums16.txt" 2>&1
echo "2c. ncu kernel times at 2^16: exit $? at ${SECONDS}s"
awk '/^  [A-Za-z_]/ { k = $1 } /gpu__time_duration/ { print "   ", k, $NF }' "$L/ncu.sums16.txt" | head -24
ONLY='run_exact_sum|run_reduce_partials|run_large|run_coop_sums|run_normalize|run_sizes|tile128w' SKIP="float_agree math_agree" \
    NVCC_APPEND_FLAGS="${SUM_FLAGS--DCN_DSUM64_U=32}" \
    timeout $(( $(left) - 45 > 30 ? $(left) - 45 : 30 )) bash tests/device/run.sh $B >"$L/suite.txt" 2>&1
echo "3. suite: exit $? ($(grep -c '^PASS' "$L/suite.txt") PASS, $(grep -c '^FAIL' "$L/suite.txt") FAIL) at ${SECONDS}s"
grep -E '^(PASS|FAIL)' "$L/suite.txt" | head -20
SAN_ONLY='exact_sum$' SAN_LIMIT=30 timeout $(( $(left) - 3 > 10 ? $(left) - 3 : 10 )) \
    bash tests/device/sanitize.sh $B >"$L/san.txt" 2>&1
echo "4. sanitizers: exit $? ($(grep -c '^PASS' "$L/san.txt") PASS, $(grep -c '^FAIL' "$L/san.txt") FAIL) at ${SECONDS}s"
grep -E '^(PASS|FAIL|SKIP)' "$L/san.txt" | cut -c1-150
tar -czf "$OUT/all.tgz" -C "$OUT" l && rm -f "$L"/var/*/coll_bench; rm -rf "$L"
exit 0
