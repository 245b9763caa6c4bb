#!/usr/bin/env bash
# Session 27's second call (H100, after call31): tile64 and tile128 with the pad skip, and Nsight
# Compute on the exact sums (f32, f64 at 2^26) and tile128.   bash bench/dev/call32.sh OUT
set -u
cd "$(dirname "$0")/../.."
export LD_LIBRARY_PATH=$PWD/.devlib:${LD_LIBRARY_PATH:-} CPATH=$PWD/.devlib/include LIBRARY_PATH=$PWD/.devlib
P=.pre L=${1:?usage: call32.sh OUT}/l GC="-gencode=arch=compute_90a,code=sm_90a"
F="-std=c++17 -O3 -x cu --fmad=false $GC -Xcompiler -ffp-contract=off,-fno-fast-math,-fno-strict-aliasing -w -DCN_COOPD_PADMEMO=1 -Iruntime"
mkdir -p "$L"
( nvcc $F -c $P/lib/tile128.c -o /tmp/t128m.o -Xptxas -v 2>"$L/ptxas_t128memo.txt" && nvcc $F -c $P/lib/tile64.c -o /tmp/t64m.o &&
  nvcc -std=c++17 -O3 --fmad=false $GC -I$P/lib -Iruntime -Ibench/dev -o /tmp/mbm bench/dev/mma_bench.cu /tmp/t64m.o /tmp/t128m.o \
      $P/lib/libmma_kernels.a $P/lib/libtile32.a -lcublas -lcudart ) >"$L/build.log" 2>&1 &
BP=$!
S="--section SpeedOfLight --section WarpStateStats --section Occupancy --section MemoryWorkloadAnalysis --section LaunchStats"
for w in f32 f64; do
    timeout 30 ncu -k regex:fold_kernel --launch-skip 2 --launch-count 1 $S $P/var/base/coll_bench --log2 26 --reps 1 \
        --only sum_$w >"$L/ncu.sum_$w.txt" 2>&1
    echo "ncu sum_$w: $? at ${SECONDS}s"
done
wait $BP; echo "build: $? at ${SECONDS}s $(grep -o 'Used [0-9]* registers' "$L/ptxas_t128memo.txt" | tr '\n' ' ')"
timeout 60 /tmp/mbm --only tile64,tile128 --reps 5 >"$L/mb_memo.log" 2>&1
echo "mma_bench with the pad skip: $? at ${SECONDS}s"; grep -E 'cublas|tile' "$L/mb_memo.log"
timeout 60 ncu -k regex:cn_coop --launch-skip 1 --launch-count 1 --set full $P/mb --only tile128 --sizes 4096 --reps 1 \
    >"$L/ncu.tile128.txt" 2>&1
echo "ncu tile128: $? at ${SECONDS}s"
for f in "$L"/ncu.*.txt; do
    echo "== $f"
    grep -E "Duration|DRAM Throughput|Memory Throughput|Compute \(SM\)|Achieved Occupancy|Theoretical Occupancy|Registers Per|Warp Cycles Per Issued|Issue Slots Busy|Executed Ipc A|Block Limit|No Eligible" "$f" | head -18
done
tar -czf "${1}/c32.tgz" -C "$1" l
