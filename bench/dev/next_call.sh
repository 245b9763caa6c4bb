#!/usr/bin/env bash
# One device call for what session 22 built (issues 18 and 19), each step's log under OUT; under 10
# minutes on an H100/H200 with bin/cairn and .devlib carried (.devlib: libcjson, and GMP's header and
# static library for mma_contract, which the device machine lacks):
#   1. the tensor and grad device programs, mma_contract (now also the wide tiling against the page's,
#      bit for bit) and grad_torch (derive grad against torch.autograd on CUDA tensors too)
#   2. those programs under compute-sanitizer (memcheck with leak check, racecheck, synccheck)
#   3. the multiplies against cuBLAS at 4096^3 and 8192^3 (bench/dev/mma_run.sh, one run)
#   4. Nsight Compute on tile64's kernel and the wide mma_unordered kernel (4096^3)
#   bash bench/dev/next_call.sh OUT
set -u
OUT=${1:?usage: bench/dev/next_call.sh OUT}
mkdir -p "$OUT"
W=/tmp/ncall; mkdir -p $W   # work folders stay on the device machine: at most 8 files come back
cd "$(dirname "$0")/../.."
export LD_LIBRARY_PATH=$PWD/.devlib:${LD_LIBRARY_PATH:-}
export CPATH=$PWD/.devlib/include${CPATH:+:$CPATH} LIBRARY_PATH=$PWD/.devlib${LIBRARY_PATH:+:$LIBRARY_PATH}
SKIP="float_agree math_agree" ONLY='tensor|grad|mma_contract|grad_torch' \
    timeout 240 bash tests/device/run.sh "$W/suite" >"$OUT/suite.log" 2>&1
echo "suite: exit $? ($(grep -c '^PASS' "$OUT/suite.log") PASS, $(grep -c '^FAIL' "$OUT/suite.log") FAIL)"
grep -E '^(FAIL|SKIP grad|SKIP mma)' "$OUT/suite.log" | head -20
grep -E 'mma_contract|passed|wide tiling' "$OUT/suite.log" | head -8
SAN_ONLY='^(run_|d)' SAN_LIMIT=40 timeout 170 bash tests/device/sanitize.sh "$W/suite" >"$OUT/sanitize.log" 2>&1
echo "sanitize: exit $?"; grep -E '^FAIL|passed' "$OUT/sanitize.log" | head -12
RUNS=1 BENCH_ARGS="--reps 7" timeout 150 bash bench/dev/mma_run.sh "$W/mma" >"$OUT/mma.log" 2>&1
echo "mma: exit $?"; grep -vE '^#|^run' "$OUT/mma.log" | head -20
if command -v ncu >/dev/null; then
    for k in coop1 mmaw; do
        timeout 60 ncu -k "regex:$k" -c 1 --section SpeedOfLight --section Occupancy --section LaunchStats \
            --section WarpStateStats --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis \
            "$W/mma/mma_bench" --sizes 4096 --reps 1 >"$OUT/ncu_$k.txt" 2>&1
        echo "ncu $k: exit $?"
    done
fi
ls -la "$OUT"
