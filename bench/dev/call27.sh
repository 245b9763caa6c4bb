#!/usr/bin/env bash
# The next device call (prepared in session 25, not yet run): how many terms a thread of the exact
# sums keeps in flight, the TMA tiling on whatever card comes (an H200 is the issue's card), the last
# test of the device suite that call26 did not reach, and Nsight Compute on tile64.
#
# Why the loads: on the H200 the f32 fold kernel (the bins) ran at 62% of DRAM with 12.6 of every
# 24.2 cycles between a warp's instructions waiting on a global load (evidence/raw/2026-12-04-scan/
# call4-ncu.sum_f32.txt.gz); a thread keeps U = 8 terms (32 bytes) in flight and 5 blocks of 256 fit
# an SM, about 40 KB an SM where the memory wants more. U = 12 and 16 keep the kernel at 40
# registers (ptxas, sm_90a); the f64 kernel takes 63 registers at U = 8, 94 at 16, 156 at 32.
#   bash bench/dev/call27.sh build        here: binaries under .pre (carry it with bin/cairn, .devlib)
#   bash bench/dev/call27.sh run OUT      on the GPU machine (LIMIT s, default 400); OUT/all.tgz
#   1. sum variants (coll_bench checks every sum's bits): base, a12, a16 (CN_DSUM32_U), d8, d32
#      (CN_DSUM64_U) at 2^24, 2^26, 2^28 with --loop 10;
#   2. mma_bench of the default build (TMA tiling) with tile64, tile32; tile64 with CN_COOPD_PAD16=1;
#   3. grad_torch (tests/device/run.sh ONLY=grad_torch);
#   4. ncu on tile64 at 4096^3 and on base's sum_f32 fold kernel at 2^26.
set -u
cd "$(dirname "$0")/../.."
GC="-gencode=arch=compute_90a,code=sm_90a"
export LD_LIBRARY_PATH=$PWD/.devlib:${LD_LIBRARY_PATH:-}
export CPATH=$PWD/.devlib/include${CPATH:+:$CPATH} LIBRARY_PATH=$PWD/.devlib${LIBRARY_PATH:+:$LIBRARY_PATH}
VARIANTS=("base" "a12 -DCN_DSUM32_U=12" "a16 -DCN_DSUM32_U=16" "d8 -DCN_DSUM64_U=8" "d32 -DCN_DSUM64_U=32")
if [ "${1:-}" = build ]; then   # call26's binaries (mma_bench, mma_contract, the base sums), then the variants
    bash bench/dev/call26.sh build || exit 1
    BUILD_ONLY=1 bash bench/dev/scan_variants.sh .pre/var "${VARIANTS[@]:1}" || exit 1
    # tile64 with its pads in 16-byte stores (runtime/cairn_coopdev.h, CN_COOPD_PAD16; 168 registers
    # in place of 128 for the fast version, so three blocks an SM, not four: which wins?)
    nvcc -std=c++17 -O3 -x cu --fmad=false $GC -Xcompiler -ffp-contract=off,-fno-fast-math,-fno-strict-aliasing -w \
        -DCN_COOPD_PAD16=1 -Iruntime -c .pre/lib/tile64.c -o .pre/t64p.o &&
    nvcc -std=c++17 -O3 --fmad=false $GC -I.pre/lib -Iruntime -Ibench/dev -o .pre/mb_pad16 bench/dev/mma_bench.cu \
        .pre/t64p.o .pre/lib/libmma_kernels.a .pre/lib/libtile32.a -lcublas -lcudart || exit 1
    rm -f .pre/t64p.o
    rm -f .pre/var/*/k.o .pre/var/*/*.a; du -sh .pre; exit 0
fi
OUT=${2:?usage: bench/dev/call27.sh run OUT}; mkdir -p "$OUT/l"
LIMIT=${LIMIT:-400} P=.pre L=$OUT/l
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; nvcc --version | tail -1
mkdir -p "$L/var"; cp -r $P/var/. "$L/var/"
ROWS='^sum' REPS=9 VARGS="--log2 24,26,28 --only sum_f32,sum_f32_wide,sum_f64,sum_f64_wide --loop 10" NOBUILD=1 \
    timeout 170 bash bench/dev/scan_variants.sh "$L/var" "${VARIANTS[@]}" >"$L/variants.log" 2>&1
echo "variants: exit $? at ${SECONDS}s"; grep -vE '(\+sync|@10) ' "$L/var/variants.txt"
for v in base a12 a16 d8 d32; do grep -h "check FAIL" "$L/var/$v/run.log" 2>/dev/null | head -3; done
timeout 60 $P/mb --only tile64,tile32,mma_unordered --reps 7 >"$L/mma_bench.log" 2>&1
echo "mma_bench: exit $? at ${SECONDS}s"; grep -E 'cublas|mma_unordered|tile' "$L/mma_bench.log"
timeout 40 $P/mb_pad16 --only tile64 --reps 7 >"$L/mma_bench_pad16.log" 2>&1
echo "mma_bench tile64 with CN_COOPD_PAD16=1: exit $? at ${SECONDS}s"; grep -E 'cublas|tile' "$L/mma_bench_pad16.log"
ONLY=grad_torch timeout 90 bash tests/device/run.sh /tmp/c27suite >"$L/suite.txt" 2>&1
echo "grad_torch: exit $? at ${SECONDS}s"; grep -E '^(PASS|FAIL) grad_torch' "$L/suite.txt"
if [ $((LIMIT - SECONDS)) -gt 50 ] && command -v ncu >/dev/null; then
    timeout 40 ncu -k regex:cn_coop --launch-skip 1 --launch-count 1 --set full --import-source yes \
        $P/mb --only tile64 --sizes 4096 --reps 1 >"$L/ncu.tile64.txt" 2>&1
    echo "ncu tile64: exit $? at ${SECONDS}s"
    grep -E "Duration|Compute \(SM\) Throughput|Memory Throughput|Registers Per|Achieved Occupancy|Warp Cycles Per Issued|Bank Conflicts|stalled" "$L/ncu.tile64.txt" | head -16
fi
if [ $((LIMIT - SECONDS)) -gt 25 ] && command -v ncu >/dev/null; then
    timeout 25 ncu -k regex:fold_kernel --launch-skip 2 --launch-count 1 --section SpeedOfLight --section WarpStateStats \
        --section Occupancy --section MemoryWorkloadAnalysis "$L/var/base/coll_bench" --log2 26 --reps 1 --only sum_f32 \
        >"$L/ncu.sum_f32.txt" 2>&1
    echo "ncu sum_f32: exit $? at ${SECONDS}s"
    grep -E "Duration|DRAM Throughput|Achieved Occupancy|Warp Cycles Per Issued|stalled" "$L/ncu.sum_f32.txt" | head -8
fi
rm -f "$L"/var/*/coll_bench
tar -czf "$OUT/all.tgz" -C "$OUT" l && rm -rf "$L"
exit 0
