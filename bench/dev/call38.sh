#!/usr/bin/env bash
# Session 30's second device call: the defaults call37 chose (16-byte loads, one-bin f32 batches, mixed
# f64 batches, fills by teams) timed once more against CUB and cuBLAS, one new opt-in form (a one-bin
# f32 batch added in an integer, CN_DSUM32_SAME_INT=1) timed and profiled, then the whole device suite
# (but float_agree and math_agree) and the sanitizers on the new defaults, each with its own limit.
#   bash bench/dev/call38.sh build      here: .pre/mb, .pre/var/{base,sint} (carry .pre, bin/cairn, .devlib)
#   bash bench/dev/call38.sh run OUT    on the GPU machine (LIMIT s, default 500); OUT/all.tgz
#   (SUMVARS: the sums' builds, a line each; SUMS: their coll_bench arguments; ONLY, SAN_ONLY: the suite's and the sanitizers' choice, for a short call)
set -u
cd "$(dirname "$0")/../.."
VARS=("base" "sint -DCN_DSUM32_SAME_INT=1")
# SUMVARS (variants a line, "NAME FLAGS", at build and at run): other sum builds than these two
if [ -n "${SUMVARS:-}" ]; then mapfile -t VARS <<<"$SUMVARS"; fi
if [ "${1:-}" = build ]; then
    P=$PWD/.pre; rm -rf $P; mkdir -p $P
    . bench/dev/call35.sh lib || exit 1
    mb_build "$PWD" "$P/new" && mv "$P/new/mb" "$P/mb" || exit 1
    BUILD_ONLY=1 bash bench/dev/scan_variants.sh $P/var "${VARS[@]}" || exit 1
    rm -rf "$P/new" $P/var/*/k.o $P/var/*/*.a; du -sh $P; exit 0
fi
. bench/dev/call_run.sh call38 "${2:-}" 500
B=/tmp/c38
mkdir -p "$L/var"; cp -r $P/var/. "$L/var/"
ROWS='^sum_f' REPS=9 VARGS="${SUMS:---log2 24,26,28 --only sum_f32,sum_f32_wide,sum_f64,sum_f64_wide}" NOBUILD=1 \
    timeout ${SUM_TIME:-90} bash bench/dev/scan_variants.sh "$L/var" "${VARS[@]}" >"$L/variants.log" 2>&1
echo "1. sums: exit $? at ${SECONDS}s"; cat "$L/var/variants.txt"
M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active
for r in long_scoreboard short_scoreboard mio_throttle lg_throttle wait math_pipe_throttle barrier not_selected selected; do M=$M,smsp__warp_issue_stalled_${r}_per_warp_active.pct; done
for v in ${NCU_VARS:-sint}; do
    timeout 40 ncu -k regex:fold_kernel --launch-skip 2 --launch-count 1 --metrics "$M" "$L/var/$v/coll_bench" \
        --log2 26 --reps 1 --only sum_f32 >"$L/ncu.$v.sum_f32.txt" 2>&1
    echo "2b. ncu $v sum_f32: exit $? at ${SECONDS}s"
    grep -E 'gpu__time|dram__|inst_executed|warps_active' "$L/ncu.$v.sum_f32.txt" | awk '{print "   ", $1, $(NF)}'
    grep -E 'stalled' "$L/ncu.$v.sum_f32.txt" | awk '$NF + 0 >= 5 {print "   ", $1, $NF}'
done
ONLY="${ONLY:-}" SKIP="float_agree math_agree" timeout $(( $(left) - 110 > 30 ? $(left) - 110 : 30 )) bash tests/device/run.sh $B \
    >"$L/suite.txt" 2>&1
echo "4. suite: exit $? ($(grep -c '^PASS' "$L/suite.txt") PASS, $(grep -c '^FAIL' "$L/suite.txt") FAIL) at ${SECONDS}s"
grep '^FAIL' "$L/suite.txt" | head; tail -1 "$L/suite.txt"
SAN_ONLY="${SAN_ONLY:-pipeline|frag|tile|sum|scan|compact}" SAN_LIMIT=40 timeout $(( $(left) - 10 > 10 ? $(left) - 10 : 10 )) \
    bash tests/device/sanitize.sh $B >"$L/san.txt" 2>&1
echo "5. sanitizers: exit $? ($(grep -c '^PASS' "$L/san.txt") PASS, $(grep -c '^FAIL' "$L/san.txt") FAIL) at ${SECONDS}s"
grep -E '^FAIL' "$L/san.txt" | head; tail -1 "$L/san.txt"
# what time is left: the scans and the compaction against CUB, and the multiplies (call37 timed them)
[ $(left) -gt 80 ] && { timeout 70 "$L/var/base/coll_bench" --log2 24,26,28 --reps 9 --only scan_i32,scan_i64,scan_max,compact >"$L/coll.txt" 2>&1; echo "2. coll_bench: exit $? at ${SECONDS}s"; grep -vE '^#' "$L/coll.txt" | head -20; }
[ -z "${MB_SKIP:-}" ] && [ $(left) -gt 40 ] && { timeout 40 $P/mb --only tile64,tile32,tile128,mma_unordered --reps 5 >"$L/mb.log" 2>&1; echo "3. mb: exit $? at ${SECONDS}s"; grep -E 'cublas|tile|mma_unordered' "$L/mb.log"; }
rm -f "$L"/var/*/coll_bench
tar -czf "$OUT/all.tgz" -C "$OUT" l && rm -rf "$L"
exit 0
