#!/usr/bin/env bash
# One device call (session 22, call 3), each step's log under OUT; under 10 minutes on an H100/H200
# with bin/cairn and .devlib carried (.devlib: libcjson, and GMP's header and static library):
#   1. mma_contract for three variants of the wide tiling (runtime/cairn_mma_wide.h: 128 x 256 tiles
#      with 3 or 4 stages, 128 x 128 with 4), each held bit for bit to the page's tiling, built in
#      the background while
#   2. the multiplies against cuBLAS at 4096^3 and 8192^3 (bench/dev/mma_run.sh, one run): the default
#      wide tiling, and tile64 / tile32 now that their launches prove the fast version; then each
#      variant's mma_unordered against cuBLAS
#   3. the tensor and grad device programs again, under compute-sanitizer
#   4. Nsight Compute on tile64's kernel (its fast version)
#   bash bench/dev/next_call.sh OUT
set -u
OUT=${1:?usage: bench/dev/next_call.sh OUT}
mkdir -p "$OUT"
W=/tmp/ncall; mkdir -p $W   # work folders stay on the device machine: at most 8 files come back
cd "$(dirname "$0")/../.."
export LD_LIBRARY_PATH=$PWD/.devlib:${LD_LIBRARY_PATH:-}
export CPATH=$PWD/.devlib/include${CPATH:+:$CPATH} LIBRARY_PATH=$PWD/.devlib${LIBRARY_PATH:+:$LIBRARY_PATH}
NV="nvcc -std=c++17 -O3 -x cu --fmad=false -gencode=arch=compute_90a,code=sm_90a -Xcompiler -ffp-contract=off,-fno-fast-math,-fno-strict-aliasing -w -Iruntime"
VARIANTS="n256s3:-DCN_MMAW_TN=256_-DCN_MMAW_STAGES=3 n256s4:-DCN_MMAW_TN=256_-DCN_MMAW_STAGES=4 n128s4:-DCN_MMAW_STAGES=4"
for v in $VARIANTS; do
    name=${v%%:*}; defs=${v#*:}; defs=${defs//_-/ -}
    ( nvcc -std=c++17 -O2 -x cu --fmad=false -gencode=arch=compute_90a,code=sm_90a -Iruntime -Itests/unit $defs \
        -o "$W/mc_$name" tests/unit/test_mma.c -lgmp >"$W/mc_$name.build.log" 2>&1 ) &
done
RUNS=1 BENCH_ARGS="--reps 7" timeout 150 bash bench/dev/mma_run.sh "$W/mma" >"$OUT/mma.log" 2>&1
echo "mma: exit $?"; grep -vE '^#|^run' "$OUT/mma.log" | head -20
wait
for v in $VARIANTS; do
    name=${v%%:*}; defs=${v#*:}; defs=${defs//_-/ -}
    { echo "# variant $name: $defs"
      timeout 60 "$W/mc_$name" 2>&1 | tail -3
      $NV $defs -c "$W/mma/lib/mma_kernels.c" -o "$W/v_$name.o" &&
      nvcc -std=c++17 -O3 --fmad=false -gencode=arch=compute_90a,code=sm_90a -I"$W/mma/lib" -Iruntime -Ibench/dev \
          -o "$W/mb_$name" bench/dev/mma_bench.cu "$W/v_$name.o" "$W/mma/lib/libtile64.a" "$W/mma/lib/libtile32.a" \
          -lcublas -lcudart &&
      timeout 60 "$W/mb_$name" --only mma_unordered --reps 7; } >>"$OUT/variants.log" 2>&1
done
grep -vE '^ *$' "$OUT/variants.log" | head -40
SKIP="float_agree math_agree" ONLY='tensor/run_|grad/run_grad_(device|turns)' \
    timeout 150 bash tests/device/run.sh "$W/suite" >"$OUT/suite.log" 2>&1
echo "suite: exit $? ($(grep -c '^PASS' "$OUT/suite.log") PASS, $(grep -c '^FAIL' "$OUT/suite.log") FAIL)"
SAN_ONLY='^run_' SAN_LIMIT=60 timeout 150 bash tests/device/sanitize.sh "$W/suite" >"$OUT/sanitize.log" 2>&1
echo "sanitize: exit $?"; grep -E '^FAIL|passed' "$OUT/sanitize.log" | head -12
if command -v ncu >/dev/null; then
    timeout 60 ncu -k "regex:coop1" -c 1 --section SpeedOfLight --section Occupancy --section LaunchStats \
        --section WarpStateStats --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis \
        "$W/mma/mma_bench" --sizes 4096 --reps 1 --only tile64 >"$OUT/ncu_tile64.txt" 2>&1
    echo "ncu tile64: exit $?"; grep -E 'cn_coop1|Duration|Registers Per|Achieved Occ' "$OUT/ncu_tile64.txt"
fi
ls -la "$OUT"
