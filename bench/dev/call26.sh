#!/usr/bin/env bash
# Session 25's last device call: the TMA tiling as built by default (pairs of c written at once; the L2
# prefetch and the wgmma left in flight measured no gain in call25 and are out or off) against cuBLAS,
# under mma_contract, and the whole device suite at this commit; Nsight Compute on the exact f32 sum;
# racecheck on run_exact_sum with a longer limit than call25 gave it.
#   bash bench/dev/call26.sh build        here: binaries under .pre (carry it with bin/cairn, .devlib)
#   bash bench/dev/call26.sh run OUT      on the GPU machine (LIMIT s, default 440); OUT/all.tgz holds
#                                         every log (the tool brings back only a few files)
set -u
cd "$(dirname "$0")/../.."
GC="-gencode=arch=compute_90a,code=sm_90a"
export LD_LIBRARY_PATH=$PWD/.devlib:${LD_LIBRARY_PATH:-}
export CPATH=$PWD/.devlib/include${CPATH:+:$CPATH} LIBRARY_PATH=$PWD/.devlib${LIBRARY_PATH:+:$LIBRARY_PATH}
if [ "${1:-}" = build ]; then
    P=.pre; rm -rf $P; mkdir -p $P/lib
    nvcc -std=c++17 -O2 -x cu --fmad=false $GC -Iruntime -Itests/unit -o $P/mc_wgt tests/unit/test_mma.c -lgmp || exit 1
    for f in bench/dev/mma_kernels examples/tensor/tile64 examples/tensor/tile32 examples/tensor/tile128; do
        bin/cairn build "$f.cairn" --header --device-target sm_90a --out $P/lib || exit 1
    done
    nvcc -std=c++17 -O3 -x cu --fmad=false $GC -Xcompiler -ffp-contract=off,-fno-fast-math,-fno-strict-aliasing -w \
        -Iruntime -c $P/lib/mma_kernels.c -o $P/k.o &&
    nvcc -std=c++17 -O3 --fmad=false $GC -I$P/lib -Iruntime -Ibench/dev -o $P/mb bench/dev/mma_bench.cu \
        $P/k.o $P/lib/libtile64.a $P/lib/libtile32.a $P/lib/libtile128.a -lcublas -lcudart || exit 1
    BUILD_ONLY=1 bash bench/dev/scan_variants.sh $P/var "base" || exit 1
    rm -f $P/*.o $P/var/*/k.o $P/var/*/*.a; du -sh $P; exit 0
fi
OUT=${2:?usage: bench/dev/call26.sh run OUT}; mkdir -p "$OUT/l"
LIMIT=${LIMIT:-440} P=.pre L=$OUT/l
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; nvcc --version | tail -1
timeout 60 $P/mb --only tile64,tile32,mma_unordered --reps 7 >"$L/mma_bench.log" 2>&1
echo "mma_bench: exit $? at ${SECONDS}s"; grep -E 'cublas|mma_unordered|tile' "$L/mma_bench.log"
timeout 170 $P/mc_wgt >"$L/contract_wgt.log" 2>&1 &
c1=$!
SKIP="float_agree math_agree" timeout $((LIMIT - 150)) bash tests/device/run.sh /tmp/c26suite >"$L/suite.txt" 2>&1
echo "suite: exit $? ($(grep -c '^PASS' "$L/suite.txt") PASS, $(grep -c '^FAIL' "$L/suite.txt") FAIL) at ${SECONDS}s"
grep '^FAIL' "$L/suite.txt" | head; tail -2 "$L/suite.txt"
wait $c1; echo "mma_contract (default): exit $? at ${SECONDS}s"; grep -m 8 FAIL "$L/contract_wgt.log"; tail -1 "$L/contract_wgt.log"
if command -v ncu >/dev/null; then
    timeout 25 ncu --launch-skip 4 --launch-count 2 --section SpeedOfLight --section MemoryWorkloadAnalysis \
        --section Occupancy --section WarpStateStats --section LaunchStats --section ComputeWorkloadAnalysis \
        "$P/var/base/coll_bench" --log2 26 --reps 1 --only sum_f32 >"$L/ncu.sum_f32.txt" 2>&1
    echo "ncu sum_f32: exit $? at ${SECONDS}s"
    grep -A200 'cn_dxsum' "$L/ncu.sum_f32.txt" | grep -E "Duration|DRAM Throughput|Achieved Occupancy|Registers Per|Issue Slots Busy|Block Limit|Executed Ipc|Memory Throughput" | head -14
fi
left=$((LIMIT - SECONDS - 10))
if [ $left -gt 30 ]; then
    SAN_ONLY='run_exact_sum' SAN_LIMIT=$left timeout $((left + 5)) bash tests/device/sanitize.sh /tmp/c26suite >"$L/sanitize.txt" 2>&1
    echo "sanitize run_exact_sum: exit $? at ${SECONDS}s"; grep -E '^(PASS|FAIL|SKIP)|passed' "$L/sanitize.txt" | head
fi
(cd /tmp/c26suite && find . -name '*.log' -path '*san*' | tar -czf "$L/san_logs.tgz" -T - 2>/dev/null)
tar -czf "$OUT/all.tgz" -C "$OUT" l && rm -rf "$L"
exit 0
