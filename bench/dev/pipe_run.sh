#!/usr/bin/env bash
# Pipelines against hand CUDA with cp.async (issue 17), on a machine with an NVIDIA GPU: builds
# bench/dev/pipe_kernels.cairn with `cairn build --header` and bench/dev/pipe_bench.cu against it,
# runs it RUNS times, and keeps the kernels' SASS. What is measured and checked: the top of
# pipe_bench.cu.
#
#   bash bench/dev/pipe_run.sh OUTDIR [RUNS]
#
# Environment: ARCH=sm_90a, CAIRN=bin/cairn, BENCH_ARGS (reps, log2 cols, rows: "30 16 2048").
# Exit: 0 every run passed its checks; 1 a build or a check failed; 3 no usable GPU.
set -u
OUT=${1:?usage: bash bench/dev/pipe_run.sh OUTDIR [RUNS]}
RUNS=${2:-3}
ARCH=${ARCH:-sm_90a}
CAIRN=${CAIRN:-bin/cairn}
cd "$(dirname "$0")/../.." || exit 2
mkdir -p "$OUT/lib"
"$CAIRN" build bench/dev/pipe_kernels.cairn --header --device-target "$ARCH" --out "$OUT/lib" >"$OUT/cairn-build.log" 2>&1 ||
    { cat "$OUT/cairn-build.log"; exit 1; }
nvcc -std=c++17 -O3 "-gencode=arch=compute_${ARCH#sm_},code=$ARCH" -Xptxas -v -I"$OUT/lib" -o "$OUT/pipe_bench" \
    bench/dev/pipe_bench.cu "$OUT/lib/libpipe_kernels.a" -lcudart >"$OUT/bench-build.log" 2>&1 ||
    { cat "$OUT/bench-build.log"; exit 1; }
command -v cuobjdump >/dev/null 2>&1 && cuobjdump -sass "$OUT/pipe_bench" >"$OUT/pipe_bench.sass" 2>&1
rc=0
for r in $(seq 1 "$RUNS"); do
    # shellcheck disable=SC2086
    "$OUT/pipe_bench" ${BENCH_ARGS:-} >"$OUT/run$r.log" 2>&1
    e=$?
    [ $e = 3 ] && { cat "$OUT/run$r.log"; exit 3; }
    [ $e = 0 ] || rc=1
    echo "== run $r (exit $e)"; cat "$OUT/run$r.log"
done
exit $rc
