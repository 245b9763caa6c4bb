#!/usr/bin/env bash
# variants of the preload kernels' launch bound and tanh's unroll
set -u
export PATH=/usr/local/cuda/bin:$PATH
S=$(date +%s); el() { echo "$(( $(date +%s) - S ))s"; }
make -j16 bin/cairn >$OUT/make.log 2>&1 || { tail -30 $OUT/make.log; exit 1; }
B=build/mv; mkdir -p $B/lib
bin/cairn build bench/dev/math_kernels.cairn --header --device-target sm_90a --out $B/lib >$B/b.log 2>&1 || { cat $B/b.log; exit 1; }
F="-std=c++17 -O3 -x cu --fmad=false -gencode=arch=compute_90a,code=sm_90a -Xcompiler -ffp-contract=off,-fno-fast-math,-fno-strict-aliasing -w -Iruntime"
for U in 4 2; do for M in 0 1536 2048; do
  v=U${U}_M$M; mkdir -p $B/$v
  sed "s/cn_dregion9_lane, 256, 4)/cn_dregion9_lane, 256, $U)/" $B/lib/math_kernels.c > $B/$v/k.c
  nvcc $F -DCN_DEV_PRE_THREADS_PER_SM=$M -c $B/$v/k.c -o $B/$v/k.o && ar rcs $B/$v/libk.a $B/$v/k.o &&
  nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -I$B/lib -o $B/$v/mb bench/dev/math_bench.cu $B/$v/libk.a -lcudart || { echo "build $v failed"; continue; }
  cuobjdump -res-usage $B/$v/mb 2>&1 | grep -A1 "dregion[159]_" | grep -o "REG:[0-9]*" | tr '\n' ' ' > $OUT/$v.regs
done; done
echo "built $(el)"
for r in 1 2; do for v in U4_M0 U4_M1536 U4_M2048 U2_M0 U2_M1536 U2_M2048; do
  echo "== $v run $r regs $(cat $OUT/$v.regs)"; $B/$v/mb 30 2>&1 | grep "map"
done; done > $OUT/variants.log
echo "end $(el)"
