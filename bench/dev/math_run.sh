#!/usr/bin/env bash
# std.math in device lanes against CUDA's own expf, logf and tanhf (bench/dev/math_bench.cu), on a
# machine with an NVIDIA GPU: bash bench/dev/math_run.sh OUTDIR [RUNS]. Builds
# bench/dev/math_kernels.cairn as a library with its header, links the driver with nvcc (CUDA's
# functions compiled as CUDA compiles them by default: no --use_fast_math), runs it RUNS times
# (default 3) into OUTDIR.
set -u
OUT=${1:?usage: bash bench/dev/math_run.sh OUTDIR [RUNS]}
RUNS=${2:-3}
ARCH=${ARCH:-sm_90a}
CAIRN=${CAIRN:-bin/cairn}
cd "$(dirname "$0")/../.." || exit 2
mkdir -p "$OUT/lib"
"$CAIRN" build bench/dev/math_kernels.cairn --header --device-target "$ARCH" --out "$OUT/lib" >"$OUT/cairn-build.log" 2>&1 ||
    { cat "$OUT/cairn-build.log"; exit 1; }
nvcc -std=c++17 -O3 "-gencode=arch=compute_${ARCH#sm_},code=$ARCH" -I"$OUT/lib" -o "$OUT/math_bench" \
    bench/dev/math_bench.cu "$OUT/lib/libmath_kernels.a" -lcudart >"$OUT/bench-build.log" 2>&1 ||
    { cat "$OUT/bench-build.log"; exit 1; }
rc=0
for r in $(seq 1 "$RUNS"); do
    "$OUT/math_bench" 30 >"$OUT/run$r.log" 2>&1 || rc=1
    echo "== run $r"; cat "$OUT/run$r.log"
done
exit $rc
