#!/usr/bin/env bash
# Session 27's third call: tile128 with the pad skip held to two blocks a multiprocessor (128
# registers, CN_COOPD_MIN_BLOCKS=2), beside the default and the pad skip alone.   bash call33.sh OUT
set -u
cd "$(dirname "$0")/../.."
export LD_LIBRARY_PATH=$PWD/.devlib:${LD_LIBRARY_PATH:-} CPATH=$PWD/.devlib/include LIBRARY_PATH=$PWD/.devlib
P=.pre L=${1:?usage: call33.sh OUT}/l GC="-gencode=arch=compute_90a,code=sm_90a"
F="-std=c++17 -O3 -x cu --fmad=false $GC -Xcompiler -ffp-contract=off,-fno-fast-math,-fno-strict-aliasing -w -Iruntime"
mkdir -p "$L"
for v in "memo -DCN_COOPD_PADMEMO=1" "memo2 -DCN_COOPD_PADMEMO=1 -DCN_COOPD_MIN_BLOCKS=2"; do
    read -r n d <<<"$v"
    ( nvcc $F $d -c $P/lib/tile128.c -o /tmp/t128_$n.o -Xptxas -v 2>"$L/ptxas_$n.txt" && nvcc $F $d -c $P/lib/tile64.c -o /tmp/t64_$n.o &&
      nvcc -std=c++17 -O3 --fmad=false $GC -I$P/lib -Iruntime -Ibench/dev -o /tmp/mb_$n bench/dev/mma_bench.cu /tmp/t64_$n.o \
          /tmp/t128_$n.o $P/lib/libmma_kernels.a $P/lib/libtile32.a -lcublas -lcudart ) >"$L/build_$n.log" 2>&1 &
done
wait; echo "built at ${SECONDS}s"
for n in memo memo2; do echo "$n: $(grep -o 'Used [0-9]* registers\|[0-9]* bytes spill stores' "$L/ptxas_$n.txt" | tr '\n' ' ')"; done
for b in "default $P/mb" "memo /tmp/mb_memo" "memo2 /tmp/mb_memo2" "default-again $P/mb"; do
    read -r n e <<<"$b"
    timeout 40 $e --only tile64,tile128 --reps 5 >"$L/mb_$n.log" 2>&1
    echo "$n: $? at ${SECONDS}s"; grep -E 'tile' "$L/mb_$n.log"
done
