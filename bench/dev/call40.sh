#!/usr/bin/env bash
# Session 31's second device call: the exact sum's new f32 defaults (batches of 16 with a hot bin,
# CN_DSUM32_U=16 and CN_DSUM32_HOT=1, chosen from call39) against the old ones and CUB once more, with
# f64 batches of 32 beside them; then the device programs that sum floats (run.sh with ONLY) and the
# same under compute-sanitizer.
#   bash bench/dev/call40.sh build     here: .pre/var/{base,old,f64u32} (carry .pre, bin/cairn, .devlib)
#   bash bench/dev/call40.sh run OUT   on the GPU machine (LIMIT s, default 400); OUT/all.tgz
#   (VARS2=1: the second set of variants, at build and at run; SKIP_SUMS=1: no timing, the programs only)
set -u
cd "$(dirname "$0")/../.."
VARS=("base" "old -DCN_DSUM32_U=8 -DCN_DSUM32_HOT=0" "f64u32 -DCN_DSUM64_U=32")
# VARS2=1: the second call's (f64 batches of 32 the default; f32 batches of 32 with the hot bin)
[ -n "${VARS2:-}" ] && VARS=("base" "f64u16 -DCN_DSUM64_U=16" "f32u32 -DCN_DSUM32_U=32")
if [ "${1:-}" = build ]; then
    P=$PWD/.pre; rm -rf "$P"; mkdir -p "$P"
    BUILD_ONLY=1 bash bench/dev/scan_variants.sh "$P/var" "${VARS[@]}" || exit 1
    rm -rf "$P"/var/*/k.o "$P"/var/*/*.a; du -sh "$P"; exit 0
fi
. bench/dev/call_run.sh call40 "${2:-}" 400
B=/tmp/c40
mkdir -p "$L/var"; cp -r $P/var/. "$L/var/"
[ -z "${SKIP_SUMS:-}" ] && ROWS='^sum_f' REPS=9 VARGS="--log2 24,26,28 --only sum_f32,sum_f32_wide,sum_f64,sum_f64_wide" NOBUILD=1 \
    timeout "${SUM_TIME:-120}" bash bench/dev/scan_variants.sh "$L/var" "${VARS[@]}" >"$L/variants.log" 2>&1
echo "1. sums: exit $? at ${SECONDS}s"; cat "$L/var/variants.txt" 2>/dev/null
SUMS='exact_sum|reduce|coop_sums|coop_warp|run_empty|run_helper|run_large|normalize|pinned_unified|run_sizes|d08|d09|total_host'
ONLY="$SUMS" SKIP="float_agree math_agree" timeout $(( $(left) - 100 > 30 ? $(left) - 100 : 30 )) \
    bash tests/device/run.sh $B >"$L/suite.txt" 2>&1
echo "2. suite: exit $? ($(grep -c '^PASS' "$L/suite.txt") PASS, $(grep -c '^FAIL' "$L/suite.txt") FAIL) at ${SECONDS}s"
grep '^FAIL' "$L/suite.txt" | head; tail -1 "$L/suite.txt"
SAN_ONLY="${SAN_ONLY:-exact_sum|reduce_partials|coop_sums|normalize|run_sizes}" SAN_LIMIT=40 \
    timeout $(( $(left) - 5 > 10 ? $(left) - 5 : 10 )) bash tests/device/sanitize.sh $B >"$L/san.txt" 2>&1
echo "3. sanitizers: exit $? ($(grep -c '^PASS' "$L/san.txt") PASS, $(grep -c '^FAIL' "$L/san.txt") FAIL) at ${SECONDS}s"
grep -E '^(FAIL|SKIP)' "$L/san.txt" | head; tail -1 "$L/san.txt"
rm -f "$L"/var/*/coll_bench
tar -czf "$OUT/all.tgz" -C "$OUT" l && rm -rf "$L"
exit 0
