#!/usr/bin/env bash
# Session 26's device call (never started: no machine came): the sum variants and ncu of session 25's
# call27, tile64/tile32/tile128 against cuBLAS, and tile64 built with session 26's knobs in turn:
#   mb          the default build (waits merged; pads every fill: CN_COOPD_PADMEMO is opt-in)
#   mb_memo     -DCN_COOPD_PADMEMO=1 (pads held)
#   mb_minb4    -DCN_COOPD_PADMEMO=1 -DCN_COOPD_MIN_BLOCKS=4 (pads held, registers capped at 128)
#   mb_nomerge  -DCN_COOPD_WAIT_MERGE=0 (a barrier per wait)
#   mb_pad16    -DCN_COOPD_PADMEMO=0 -DCN_COOPD_PAD16=1 (pads every fill, 16 bytes a store)
# and first the device suite's pipeline and tensor programs with the new default. (The device suite's
# padmemo test builds run_pipeline_pads and tile64 with the skip on.)
#   bash bench/dev/call28.sh build        here: binaries under .pre (carry it with bin/cairn, .devlib)
#   bash bench/dev/call28.sh run OUT      on the GPU machine (LIMIT s, default 420); OUT/all.tgz
set -u
cd "$(dirname "$0")/../.."
GC="-gencode=arch=compute_90a,code=sm_90a"
export LD_LIBRARY_PATH=$PWD/.devlib:${LD_LIBRARY_PATH:-}
export CPATH=$PWD/.devlib/include${CPATH:+:$CPATH} LIBRARY_PATH=$PWD/.devlib${LIBRARY_PATH:+:$LIBRARY_PATH}
VARIANTS=("base" "a12 -DCN_DSUM32_U=12" "a16 -DCN_DSUM32_U=16" "d8 -DCN_DSUM64_U=8" "d32 -DCN_DSUM64_U=32")
TVARS=("memo -DCN_COOPD_PADMEMO=1" "minb4 -DCN_COOPD_PADMEMO=1 -DCN_COOPD_MIN_BLOCKS=4" "nomerge -DCN_COOPD_WAIT_MERGE=0"
       "pad16 -DCN_COOPD_PADMEMO=0 -DCN_COOPD_PAD16=1")
if [ "${1:-}" = build ]; then
    bash bench/dev/call26.sh build || exit 1
    BUILD_ONLY=1 bash bench/dev/scan_variants.sh .pre/var "${VARIANTS[@]:1}" || exit 1
    for tv in "${TVARS[@]}"; do
        read -r name defs <<<"$tv"
        nvcc -std=c++17 -O3 -x cu --fmad=false $GC -Xcompiler -ffp-contract=off,-fno-fast-math,-fno-strict-aliasing -w \
            $defs -Iruntime -c .pre/lib/tile64.c -o .pre/t64v.o -Xptxas -v 2>.pre/ptxas_$name.txt &&
        nvcc -std=c++17 -O3 --fmad=false $GC -I.pre/lib -Iruntime -Ibench/dev -o .pre/mb_$name bench/dev/mma_bench.cu \
            .pre/t64v.o .pre/lib/libmma_kernels.a .pre/lib/libtile32.a .pre/lib/libtile128.a -lcublas -lcudart || exit 1
        echo "$name: $(grep -o 'Used [0-9]* registers' .pre/ptxas_$name.txt | tr '\n' ' ')"
    done
    rm -f .pre/t64v.o .pre/var/*/k.o .pre/var/*/*.a; du -sh .pre; exit 0
fi
OUT=${2:?usage: bench/dev/call28.sh run OUT}; mkdir -p "$OUT/l"
LIMIT=${LIMIT:-420} P=.pre L=$OUT/l
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; nvcc --version | tail -1
cp $P/ptxas_*.txt "$L/" 2>/dev/null
timeout 60 $P/mb --only tile64,tile32,tile128,mma_unordered --reps 7 >"$L/mma_bench.log" 2>&1
echo "mma_bench: exit $? at ${SECONDS}s"; grep -E 'cublas|mma_unordered|tile' "$L/mma_bench.log"
ONLY='pipeline|fill|tile64|tile32|tile128|frag|tensor|padmemo' timeout 120 bash tests/device/run.sh /tmp/c28suite >"$L/suite.txt" 2>&1
echo "suite (pipelines, tensor): exit $? ($(grep -c '^PASS' "$L/suite.txt") PASS, $(grep -c '^FAIL' "$L/suite.txt") FAIL) at ${SECONDS}s"
grep '^FAIL' "$L/suite.txt" | head
for tv in "${TVARS[@]}"; do
    read -r name defs <<<"$tv"
    timeout 40 $P/mb_$name --only tile64 --reps 7 >"$L/mma_bench_$name.log" 2>&1
    echo "tile64 $name ($defs): exit $? at ${SECONDS}s"; grep -E 'tile' "$L/mma_bench_$name.log"
done
timeout 30 $P/mb --only tile64 --reps 7 >"$L/mma_bench_again.log" 2>&1
echo "tile64 default again: exit $? at ${SECONDS}s"; grep -E 'tile' "$L/mma_bench_again.log"
mkdir -p "$L/var"; cp -r $P/var/. "$L/var/"
ROWS='^sum' REPS=9 VARGS="--log2 24,26,28 --only sum_f32,sum_f32_wide,sum_f64,sum_f64_wide --loop 10" NOBUILD=1 \
    timeout $((LIMIT - SECONDS - 20 > 170 ? 170 : LIMIT - SECONDS - 20)) bash bench/dev/scan_variants.sh "$L/var" \
    "${VARIANTS[0]}" "${VARIANTS[2]}" "${VARIANTS[4]}" >"$L/variants.log" 2>&1   # base, a16, d32 first
echo "variants: exit $? at ${SECONDS}s"; grep -vE '(\+sync|@10) ' "$L/var/variants.txt"
for v in base a16 d32; do grep -h "check FAIL" "$L/var/$v/run.log" 2>/dev/null | head -3; done
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
