#!/usr/bin/env bash
# Session 24's device call: what session 23 prepared (bench/dev/call23.sh) with its binaries built on
# this machine first, so the device's time goes to running them, and the TMA tiling of mma_unordered.
#   bash bench/dev/call24.sh build        here: binaries under .pre (carry it with bin/cairn, .devlib)
#   bash bench/dev/call24.sh run OUT      on the GPU machine (LIMIT s in all, default 400), logs under OUT:
#   1. the exact sums' variants (bench/dev/scan_variants.sh, prebuilt): base, old (the kernels until
#      session 22) and m4, at 2^24, 2^26, 2^28 with --loop 10; coll_bench checks every sum's bits;
#   2. mma_contract with the TMA tiling built in (-DCN_MMA_WGMMA=2): every output within the bound, a
#      second run's bits the same, the mma.sync tiling still the page's bits;
#   3. mma_bench built with CN_MMA_WGMMA=2 (TMA) and =1 (cp.async wgmma), each against cuBLAS, and
#      (not SHORT) the TMA tiling with one step's wgmma in flight (CN_WGT_INFLIGHT=1): contract, bench;
#   4. the device suite's sums, tile64, tile32 and pipelines (built there: cairn and nvcc);
#   5. Nsight Compute on base's sum_f32 and sum_f64 at 2^26 and on the TMA tiling, with the time left.
set -u
cd "$(dirname "$0")/../.."
GC="-gencode=arch=compute_90a,code=sm_90a"
export LD_LIBRARY_PATH=$PWD/.devlib:${LD_LIBRARY_PATH:-}
export CPATH=$PWD/.devlib/include${CPATH:+:$CPATH} LIBRARY_PATH=$PWD/.devlib${LIBRARY_PATH:+:$LIBRARY_PATH}
VARIANTS=("base" "old -DCN_DSUM32_WINDOW=0 -DCN_DSUM64_PIECES=3" "m4 -DCN_DSUM32_MIN_BLOCKS=4")
if [ "${1:-}" = build ]; then
    P=.pre; rm -rf $P; mkdir -p $P/lib
    nvcc -std=c++17 -O2 -x cu --fmad=false $GC -DCN_MMA_WGMMA=2 -Iruntime -Itests/unit -o $P/mc_wgt \
        tests/unit/test_mma.c -lgmp || exit 1
    for f in bench/dev/mma_kernels examples/tensor/tile64 examples/tensor/tile32; do
        bin/cairn build "$f.cairn" --header --device-target sm_90a --out $P/lib || exit 1
    done
    nvcc -std=c++17 -O2 -x cu --fmad=false $GC -DCN_MMA_WGMMA=2 -DCN_WGT_INFLIGHT=1 -Iruntime -Itests/unit \
        -o $P/mc_wgt3 tests/unit/test_mma.c -lgmp || exit 1
    for w in 1 2 3; do   # 3: the TMA tiling with a step's wgmma left in flight
        nvcc -std=c++17 -O3 -x cu --fmad=false $GC -Xcompiler -ffp-contract=off,-fno-fast-math,-fno-strict-aliasing -w \
            -DCN_MMA_WGMMA=$((w > 2 ? 2 : w)) -DCN_WGT_INFLIGHT=$((w > 2)) -Iruntime -c $P/lib/mma_kernels.c -o $P/wg$w.o &&
        nvcc -std=c++17 -O3 --fmad=false $GC -I$P/lib -Iruntime -Ibench/dev -o $P/mb_wg$w bench/dev/mma_bench.cu \
            $P/wg$w.o $P/lib/libtile64.a $P/lib/libtile32.a -lcublas -lcudart || exit 1
    done
    BUILD_ONLY=1 bash bench/dev/scan_variants.sh $P/var "${VARIANTS[@]}" || exit 1
    rm -f $P/*.o $P/var/*/k.o $P/var/*/*.a; du -sh $P; exit 0
fi
OUT=${2:?usage: bench/dev/call24.sh run OUT}; mkdir -p "$OUT"
LIMIT=${LIMIT:-400} P=.pre
# SHORT=1 (a call with little device time left): base and old at 2^26 and 2^28, the TMA tiling's
# contract and benchmark, nothing else
if [ -n "${SHORT:-}" ]; then
    VARIANTS=("base" "old -DCN_DSUM32_WINDOW=0 -DCN_DSUM64_PIECES=3")
    LOGS=26,28
fi
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; nvcc --version | tail -1
mkdir -p "$OUT/var"; cp -r $P/var/. "$OUT/var/"
ROWS='^sum' REPS=9 VARGS="--log2 ${LOGS:-24,26,28} --only sum_f32,sum_f32_wide,sum_f64,sum_f64_wide --loop 10" NOBUILD=1 \
    timeout $((${SHORT:-0} ? 70 : 130)) bash bench/dev/scan_variants.sh "$OUT/var" "${VARIANTS[@]}" >"$OUT/variants.log" 2>&1
echo "variants: exit $? at ${SECONDS}s"; cat "$OUT/var/variants.txt"
for v in base old m4; do grep -h "check FAIL" "$OUT/var/$v/run.log" 2>/dev/null | head -3; done
timeout $((${SHORT:-0} ? 45 : 70)) $P/mc_wgt >"$OUT/contract_wgt.log" 2>&1
echo "mma_contract (TMA): exit $? at ${SECONDS}s"; grep -m 12 -E 'FAIL' "$OUT/contract_wgt.log"; tail -2 "$OUT/contract_wgt.log"
for w in 2 ${SHORT:+-}1 ${SHORT:+-}3; do
    [ "${w#-}" = "$w" ] || continue
    if [ "$w" = 3 ]; then
        timeout 45 $P/mc_wgt3 >"$OUT/contract_wgt3.log" 2>&1
        echo "mma_contract (TMA, in flight): exit $? at ${SECONDS}s"; grep -m 6 FAIL "$OUT/contract_wgt3.log"; tail -1 "$OUT/contract_wgt3.log"
    fi
    timeout 45 $P/mb_wg$w --only tile64,tile32,mma_unordered --reps 5 >"$OUT/mma_bench$w.log" 2>&1
    echo "mma_bench (CN_MMA_WGMMA=$w): exit $? at ${SECONDS}s"; cat "$OUT/mma_bench$w.log"
done
[ -z "${SHORT:-}" ] || { rm -f "$OUT"/var/*/coll_bench; exit 0; }
left=$((LIMIT - SECONDS - 20))
ONLY='sum|reduce|dsum|tile64|tile32|pipeline' SKIP="float_agree math_agree" timeout $((left > 30 ? left : 30)) \
    bash tests/device/run.sh /tmp/c24suite >"$OUT/suite.txt" 2>&1
echo "suite: exit $? ($(grep -c '^PASS' "$OUT/suite.txt") PASS, $(grep -c '^FAIL' "$OUT/suite.txt") FAIL) at ${SECONDS}s"
grep '^FAIL' "$OUT/suite.txt" | head
for name in sum_f32 sum_f64; do
    [ $((LIMIT - SECONDS)) -gt 40 ] && command -v ncu >/dev/null || break
    timeout 35 ncu --launch-skip 4 --launch-count 3 --section SpeedOfLight --section MemoryWorkloadAnalysis \
        --section Occupancy --section WarpStateStats --section LaunchStats \
        "$OUT/var/base/coll_bench" --log2 26 --reps 1 --only "$name" >"$OUT/ncu.$name.txt" 2>&1
    echo "ncu $name: exit $? at ${SECONDS}s"
    grep -E "^  [a-zA-Z_].*\(|Duration|DRAM Throughput|Achieved Occupancy|Registers Per" "$OUT/ncu.$name.txt" | head -16
done
if [ $((LIMIT - SECONDS)) -gt 40 ] && command -v ncu >/dev/null; then   # the TMA tiling at 8192^3
    timeout 35 ncu -k regex:cn_wgt_kernel --launch-skip 1 --launch-count 1 --section SpeedOfLight \
        --section WarpStateStats --section Occupancy --section LaunchStats \
        $P/mb_wg2 --only mma_unordered --sizes 8192 --reps 1 >"$OUT/ncu.wgt.txt" 2>&1
    echo "ncu wgt: exit $? at ${SECONDS}s"; grep -E "Duration|Compute \(SM\)|Memory Throughput|Registers Per" "$OUT/ncu.wgt.txt" | head
fi
rm -f "$OUT"/var/*/coll_bench
