#!/usr/bin/env bash
# Session 23's device call for issue 16's exact sums (and, with the time left, issue 18's wgmma contract):
#   1. the device programs of sums (run_exact_sum, run_exact_sum_top, ...) and dsum_finish on the GPU,
#      with the windowed f32 fold and the two-piece f64 digits now the defaults;
#   2. bench/dev/scan_variants.sh over the sums: base (the tree), old (the kernels measured until
#      session 22: -DCN_DSUM32_WINDOW=0 -DCN_DSUM64_PIECES=3) and tuning variants, each at 2^24, 2^26,
#      2^28, with coll_bench --loop (the +sync and @R rows);
#   3. Nsight Compute on base's sum_f32, sum_f32_wide and sum_f64 at 2^26;
#   4. examples/tensor's tile64 (now pipelined with row fills), tile32 and mma_unordered (wgmma built in)
#      against cuBLAS; then mma_contract with -DCN_MMA_WGMMA=1 in whatever time is left (LIMIT s for
#      the whole call). The suite's ONLY also runs tile64 and the pipelines' device programs.
#   bash bench/dev/call23.sh OUT
set -u
OUT=${1:?usage: bench/dev/call23.sh OUT}; mkdir -p "$OUT"
cd "$(dirname "$0")/../.."
LIMIT=${LIMIT:-560}
export LD_LIBRARY_PATH=$PWD/.devlib:${LD_LIBRARY_PATH:-}
export CPATH=$PWD/.devlib/include${CPATH:+:$CPATH} LIBRARY_PATH=$PWD/.devlib${LIBRARY_PATH:+:$LIBRARY_PATH}
GC="-gencode=arch=compute_90a,code=sm_90a"
W=/tmp/c23; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; nvcc --version | tail -1
( nvcc -std=c++17 -O2 -x cu --fmad=false $GC -DCN_MMA_WGMMA=1 -Iruntime -Itests/unit -o "$W/mc_wg" \
    tests/unit/test_mma.c -lgmp >"$OUT/mc.build.log" 2>&1 ) &
( mkdir -p "$W/lib"
  for f in bench/dev/mma_kernels examples/tensor/tile64 examples/tensor/tile32; do
      bin/cairn build "$f.cairn" --header --device-target sm_90a --out "$W/lib" >>"$OUT/lib.log" 2>&1 || echo "cairn build $f failed"
  done
  nvcc -std=c++17 -O3 -x cu --fmad=false $GC -Xcompiler -ffp-contract=off,-fno-fast-math,-fno-strict-aliasing -w \
      -DCN_MMA_WGMMA=1 -Iruntime -c "$W/lib/mma_kernels.c" -o "$W/wg.o" &&
  nvcc -std=c++17 -O3 --fmad=false $GC -I"$W/lib" -Iruntime -Ibench/dev -o "$W/mb_wg" bench/dev/mma_bench.cu \
      "$W/wg.o" "$W/lib/libtile64.a" "$W/lib/libtile32.a" -lcublas -lcudart >"$OUT/mb.build.log" 2>&1 ) &
ONLY='sum|reduce|dsum|tile64|pipeline' SKIP="float_agree math_agree" timeout 150 bash tests/device/run.sh "$W/suite" >"$OUT/suite.txt" 2>&1
echo "suite: exit $? ($(grep -c '^PASS' "$OUT/suite.txt") PASS, $(grep -c '^FAIL' "$OUT/suite.txt") FAIL) at ${SECONDS}s"
grep '^FAIL' "$OUT/suite.txt" | head
ROWS='^sum' REPS=9 VARGS="--log2 24,26,28 --only sum_f32,sum_f32_wide,sum_f64,sum_f64_wide --loop 10" \
    timeout 260 bash bench/dev/scan_variants.sh "$OUT/var" "base" "old -DCN_DSUM32_WINDOW=0 -DCN_DSUM64_PIECES=3" \
    "m4 -DCN_DSUM32_MIN_BLOCKS=4" "u16 -DCN_DSUM32_U=16 -DCN_DSUM32_MIN_BLOCKS=4 -DCN_DSUM64_U=32" >"$OUT/variants.log" 2>&1
echo "variants: exit $? at ${SECONDS}s"; cat "$OUT/var/variants.txt"
for v in base old m4 u16; do grep -h "check FAIL" "$OUT/var/$v/run.log" 2>/dev/null | head -3; done
if command -v ncu >/dev/null && [ -x "$OUT/var/base/coll_bench" ]; then
    for name in sum_f32 sum_f32_wide sum_f64; do
        timeout 60 ncu --launch-skip 4 --launch-count 6 --section SpeedOfLight --section MemoryWorkloadAnalysis \
            --section Occupancy --section WarpStateStats --section LaunchStats --section SchedulerStats \
            "$OUT/var/base/coll_bench" --log2 26 --reps 1 --only "$name" >"$OUT/ncu.$name.txt" 2>&1
        echo "ncu $name: exit $? at ${SECONDS}s"
        grep -E "^  [a-zA-Z_].*\(|Duration|DRAM Throughput|Achieved Occupancy|Registers Per|Warp Cycles Per Issued" "$OUT/ncu.$name.txt" | head -24
    done
fi
rm -f "$OUT"/var/*/coll_bench "$OUT"/var/*/k.o "$OUT"/var/*/*.a
wait
if [ -x "$W/mb_wg" ] && [ $((LIMIT - SECONDS)) -gt 90 ]; then
    timeout 60 "$W/mb_wg" --only tile64,tile32,mma_unordered --reps 5 >"$OUT/mma_bench.log" 2>&1
    echo "mma_bench: exit $? at ${SECONDS}s"; cat "$OUT/mma_bench.log"
else
    echo "mma_bench: not run"; tail -5 "$OUT/mb.build.log" 2>/dev/null
fi
left=$((LIMIT - SECONDS))
if [ -x "$W/mc_wg" ] && [ $left -gt 40 ]; then
    timeout $((left - 10)) "$W/mc_wg" >"$OUT/contract_wg.log" 2>&1
    echo "mma_contract (wgmma): exit $? at ${SECONDS}s"; grep -m 12 -E 'FAIL|passed' "$OUT/contract_wg.log"; tail -2 "$OUT/contract_wg.log"
else
    echo "mma_contract: not run ($left s left)"
fi
