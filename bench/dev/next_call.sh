#!/usr/bin/env bash
# One device call (session 22, call 4): issue 16's one-read compaction (runtime/cairn_devcoll.h,
# CN_DEV_COMPACT_ONE_READ), which has never run on a GPU. Each step's log under OUT; under 10 minutes
# with bin/cairn and .devlib carried:
#   1. the compaction's device programs (run_compact, guard_compact_overflow) with the one-read
#      compaction made the default in this machine's copy of the runtime, and run_compact under
#      memcheck (leak check), racecheck and synccheck; the copy restored after
#   2. bench/dev/scan_variants.sh: coll_kernels emitted once, compiled as `base` and as `one`
#      (-DCN_DEV_COMPACT_ONE_READ=1), each against cub::DeviceSelect::If at 2^24, 2^26, 2^28 (every
#      check of coll_bench applies: count and values equal CUB's and a host loop's), twice
#   bash bench/dev/next_call.sh OUT
set -u
OUT=${1:?usage: bench/dev/next_call.sh OUT}
mkdir -p "$OUT"
W=/tmp/ncall; mkdir -p $W
cd "$(dirname "$0")/../.."
export LD_LIBRARY_PATH=$PWD/.devlib:${LD_LIBRARY_PATH:-}
cp runtime/cairn_devcoll.h "$W/devcoll.saved"
sed -i 's/^#define CN_DEV_COMPACT_ONE_READ 0$/#define CN_DEV_COMPACT_ONE_READ 1/' runtime/cairn_devcoll.h
grep -c '^#define CN_DEV_COMPACT_ONE_READ 1$' runtime/cairn_devcoll.h
SKIP="float_agree math_agree" ONLY='compact' timeout 150 bash tests/device/run.sh "$W/suite" >"$OUT/suite_one.log" 2>&1
echo "suite (one read): exit $? ($(grep -c '^PASS' "$OUT/suite_one.log") PASS, $(grep -c '^FAIL' "$OUT/suite_one.log") FAIL)"
grep -E '^(PASS|FAIL)' "$OUT/suite_one.log"
SAN_ONLY='compact' SAN_LIMIT=60 timeout 150 bash tests/device/sanitize.sh "$W/suite" >"$OUT/sanitize_one.log" 2>&1
echo "sanitize (one read): exit $?"; grep -E '^(PASS|FAIL)|passed' "$OUT/sanitize_one.log"
cp "$W/devcoll.saved" runtime/cairn_devcoll.h
for r in 1 2; do
    VARGS="--log2 24,26,28 --only compact" REPS=15 ROWS='^compact' timeout 120 \
        bash bench/dev/scan_variants.sh "$W/var$r" "base" "one -DCN_DEV_COMPACT_ONE_READ=1" >"$OUT/variants$r.log" 2>&1
    echo "variants run $r: exit $?"; cat "$W/var$r/variants.txt"
done
grep -h "Used\|registers" "$W/var1/one/build.log" | grep -i compact | head -4 >"$OUT/ptxas_one.txt"
ls -la "$OUT"
