#!/usr/bin/env bash
# One device call (session 22, call 5): mma_unordered's wgmma tiling (runtime/cairn_mma_wgmma.h,
# built with -DCN_MMA_WGMMA=1), which has never run on a GPU. Each step's log under OUT; about six
# minutes with bin/cairn and .devlib carried:
#   1. mma_contract with wgmma (tests/unit/test_mma.c): every output within the contract's bound, the
#      same bits on a second run, and the mma.sync tiling still the page's bits
#   2. mma_unordered with wgmma against cuBLAS at 4096^3 and 8192^3, in one binary
#   3. Nsight Compute on the wgmma kernel at 4096^3
#   bash bench/dev/next_call.sh OUT
set -u
OUT=${1:?usage: bench/dev/next_call.sh OUT}
mkdir -p "$OUT"
W=/tmp/ncall; mkdir -p $W
cd "$(dirname "$0")/../.."
export LD_LIBRARY_PATH=$PWD/.devlib:${LD_LIBRARY_PATH:-}
export CPATH=$PWD/.devlib/include${CPATH:+:$CPATH} LIBRARY_PATH=$PWD/.devlib${LIBRARY_PATH:+:$LIBRARY_PATH}
GC="-gencode=arch=compute_90a,code=sm_90a"
( nvcc -std=c++17 -O2 -x cu --fmad=false $GC -DCN_MMA_WGMMA=1 -Iruntime -Itests/unit -o "$W/mc_wg" \
    tests/unit/test_mma.c -lgmp >"$W/mc.build.log" 2>&1 ) &
mkdir -p "$W/lib"
for f in bench/dev/mma_kernels examples/tensor/tile64 examples/tensor/tile32; do
    bin/cairn build "$f.cairn" --header --device-target sm_90a --out "$W/lib" >>"$W/lib.log" 2>&1 || echo "cairn build $f failed"
done
nvcc -std=c++17 -O3 -x cu --fmad=false $GC -Xcompiler -ffp-contract=off,-fno-fast-math,-fno-strict-aliasing -w \
    -DCN_MMA_WGMMA=1 -Iruntime -c "$W/lib/mma_kernels.c" -o "$W/wg.o" &&
nvcc -std=c++17 -O3 --fmad=false $GC -I"$W/lib" -Iruntime -Ibench/dev -o "$W/mb_wg" bench/dev/mma_bench.cu \
    "$W/wg.o" "$W/lib/libtile64.a" "$W/lib/libtile32.a" -lcublas -lcudart >"$W/mb.build.log" 2>&1 || { echo "bench build failed"; tail -5 "$W/mb.build.log"; }
wait
[ -x "$W/mc_wg" ] || { echo "mma_contract build failed"; tail -20 "$W/mc.build.log"; }
timeout 150 "$W/mc_wg" >"$OUT/contract_wg.log" 2>&1
echo "mma_contract (wgmma): exit $?"; grep -m 12 -E 'FAIL|passed' "$OUT/contract_wg.log"
timeout 60 "$W/mb_wg" --only mma_unordered --reps 7 >"$OUT/bench_wg.log" 2>&1
echo "bench (wgmma): exit $?"; cat "$OUT/bench_wg.log"
if command -v ncu >/dev/null; then
    timeout 60 ncu -k "regex:cn_wg" -c 1 --section SpeedOfLight --section Occupancy --section LaunchStats \
        --section WarpStateStats "$W/mb_wg" --sizes 4096 --reps 1 --only mma_unordered >"$OUT/ncu_wg.txt" 2>&1
    echo "ncu: exit $?"; grep -E 'cn_wg|Duration|Registers Per|Achieved Occ|Compute \(SM\)' "$OUT/ncu_wg.txt"
fi
