#!/usr/bin/env bash
# Session 25's device call, after the TMA tiling's first run (evidence/2026-12-06-h100-tma.md): which of
# its new knobs pay, and the tiling as mma_unordered's default under the contract, the device suite
# and the sanitizers.
#   bash bench/dev/call25.sh build        here: binaries under .pre (carry it with bin/cairn, .devlib)
#   bash bench/dev/call25.sh run OUT      on the GPU machine (LIMIT s in all, default 480), logs under OUT:
#   1. mma_bench (mma_unordered against cuBLAS, 4096^3 and 8192^3) for t0 (the tiling as first run:
#      single accesses of c, no prefetch), t1 (pairs), t2 (pairs and the L2 prefetch of the next tile's
#      c: the default), t3 (t2 with a step's wgmma in flight), t4 (t3, prefetch 16 steps ahead);
#      tile64/tile32 once (t2);
#   2. at once (the contracts are host-bound): mma_contract as built by default (mc_wgt) and with a step
#      in flight (mc_wgt3), and the device suite (float and math agreement skipped);
#   3. compute-sanitizer on the tensor, pipeline and sum programs with the time left;
#   4. Nsight Compute on the exact f32 sum (the kernel of session 22, the default again).
set -u
cd "$(dirname "$0")/../.."
GC="-gencode=arch=compute_90a,code=sm_90a"
export LD_LIBRARY_PATH=$PWD/.devlib:${LD_LIBRARY_PATH:-}
export CPATH=$PWD/.devlib/include${CPATH:+:$CPATH} LIBRARY_PATH=$PWD/.devlib${LIBRARY_PATH:+:$LIBRARY_PATH}
VARIANTS=("t0 -DCN_WGT_PAIR=0 -DCN_WGT_PREFETCH=0" "t1 -DCN_WGT_PREFETCH=0" "t2" "t3 -DCN_WGT_INFLIGHT=1"
          "t4 -DCN_WGT_INFLIGHT=1 -DCN_WGT_PREFETCH=16")
if [ "${1:-}" = build ]; then
    P=.pre; rm -rf $P; mkdir -p $P/lib
    nvcc -std=c++17 -O2 -x cu --fmad=false $GC -Iruntime -Itests/unit -o $P/mc_wgt tests/unit/test_mma.c -lgmp || exit 1
    nvcc -std=c++17 -O2 -x cu --fmad=false $GC -DCN_WGT_INFLIGHT=1 -Iruntime -Itests/unit -o $P/mc_wgt3 \
        tests/unit/test_mma.c -lgmp || exit 1
    for f in bench/dev/mma_kernels examples/tensor/tile64 examples/tensor/tile32; do
        bin/cairn build "$f.cairn" --header --device-target sm_90a --out $P/lib || exit 1
    done
    for v in "${VARIANTS[@]}"; do
        name=${v%% *}; flags=${v#"$name"}
        # shellcheck disable=SC2086
        nvcc -std=c++17 -O3 -x cu --fmad=false $GC -Xcompiler -ffp-contract=off,-fno-fast-math,-fno-strict-aliasing -w \
            $flags -Iruntime -c $P/lib/mma_kernels.c -o $P/$name.o &&
        nvcc -std=c++17 -O3 --fmad=false $GC -I$P/lib -Iruntime -Ibench/dev -o $P/mb_$name bench/dev/mma_bench.cu \
            $P/$name.o $P/lib/libtile64.a $P/lib/libtile32.a -lcublas -lcudart || exit 1
    done
    BUILD_ONLY=1 bash bench/dev/scan_variants.sh $P/var "base" || exit 1
    rm -f $P/*.o $P/var/*/k.o $P/var/*/*.a; du -sh $P; exit 0
fi
OUT=${2:?usage: bench/dev/call25.sh run OUT}; mkdir -p "$OUT"
LIMIT=${LIMIT:-480} P=.pre
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; nvcc --version | tail -1
for v in "${VARIANTS[@]}"; do
    name=${v%% *}; only=mma_unordered
    [ "$name" = t2 ] && only=tile64,tile32,mma_unordered
    timeout 60 $P/mb_$name --only $only --reps 7 >"$OUT/mma_bench.$name.log" 2>&1
    echo "mma_bench $v: exit $? at ${SECONDS}s"; grep -E 'cublas|mma_unordered|tile' "$OUT/mma_bench.$name.log"
done
timeout 170 $P/mc_wgt >"$OUT/contract_wgt.log" 2>&1 &
c1=$!
timeout 170 $P/mc_wgt3 >"$OUT/contract_wgt3.log" 2>&1 &
c3=$!
SKIP="float_agree math_agree" timeout 230 bash tests/device/run.sh /tmp/c25suite >"$OUT/suite.txt" 2>&1
echo "suite: exit $? ($(grep -c '^PASS' "$OUT/suite.txt") PASS, $(grep -c '^FAIL' "$OUT/suite.txt") FAIL) at ${SECONDS}s"
grep '^FAIL' "$OUT/suite.txt" | head
wait $c1; echo "mma_contract (default: TMA, pairs, prefetch): exit $? at ${SECONDS}s"
grep -m 8 FAIL "$OUT/contract_wgt.log"; tail -1 "$OUT/contract_wgt.log"
wait $c3; echo "mma_contract (a step in flight): exit $? at ${SECONDS}s"
grep -m 8 FAIL "$OUT/contract_wgt3.log"; tail -1 "$OUT/contract_wgt3.log"
left=$((LIMIT - SECONDS - 35))
if [ $left -gt 30 ]; then
    SAN_ONLY='tensor|tile|mma|pipeline|sum|reduce|grad' SAN_LIMIT=40 timeout $left \
        bash tests/device/sanitize.sh /tmp/c25suite >"$OUT/sanitize.txt" 2>&1
    echo "sanitize: exit $? at ${SECONDS}s"; grep -E '^FAIL|passed' "$OUT/sanitize.txt" | head -12
    grep -E '^SKIP' "$OUT/sanitize.txt" | head -5
fi
if [ $((LIMIT - SECONDS)) -gt 20 ] && command -v ncu >/dev/null; then
    timeout 20 ncu --launch-skip 4 --launch-count 2 --section SpeedOfLight --section MemoryWorkloadAnalysis \
        --section Occupancy --section WarpStateStats --section LaunchStats --section ComputeWorkloadAnalysis \
        "$P/var/base/coll_bench" --log2 26 --reps 1 --only sum_f32 >"$OUT/ncu.sum_f32.txt" 2>&1
    echo "ncu sum_f32: exit $? at ${SECONDS}s"
    grep -E "^  [a-zA-Z_].*\(|Duration|DRAM Throughput|Achieved Occupancy|Registers Per|Issue Slots Busy|Stall" \
        "$OUT/ncu.sum_f32.txt" | head -16
fi
(cd /tmp/c25suite && find . -name '*.log' -path '*san*' | head -400 | tar -czf "$OUT/san_logs.tgz" -T - 2>/dev/null)
exit 0
