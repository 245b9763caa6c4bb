#!/usr/bin/env bash
# The tensor-core multiplies against cuBLAS (issue 18), on a machine with an NVIDIA GPU: builds
# bench/dev/mma_kernels.cairn, examples/tensor/tile64.cairn, tile32.cairn and tile128.cairn with
# `cairn build --header`, links bench/dev/mma_bench.cu against the four and cuBLAS, runs it RUNS times, and dumps
# the kernels' SASS where cuobjdump exists. What is measured and checked: the top of mma_bench.cu.
#
#   bash bench/dev/mma_run.sh OUTDIR
#
# Environment: ARCH=sm_90a, RUNS=2, BENCH_ARGS (e.g. "--sizes 4096 --reps 5"), CAIRN=bin/cairn.
# Exit: 0 every run kept the bound; 1 a build or a check failed; 3 no usable GPU.
set -u
ARCH=${ARCH:-sm_90a}
RUNS=${RUNS:-2}
BENCH_ARGS=${BENCH_ARGS:-}
CAIRN=${CAIRN:-bin/cairn}
[ $# -eq 1 ] || { echo "usage: bash bench/dev/mma_run.sh OUTDIR" >&2; exit 2; }
mkdir -p "$1" || exit 2
OUTDIR=$(cd "$1" && pwd)
cd "$(dirname "$0")/../.." || exit 2
{
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv 2>&1
    nvcc --version | tail -2
    echo "commit: $(git rev-parse HEAD 2>/dev/null)"
    echo "target: $ARCH"
} >"$OUTDIR/machine.txt"
mkdir -p "$OUTDIR/lib"
for f in bench/dev/mma_kernels examples/tensor/tile64 examples/tensor/tile32 examples/tensor/tile128; do
    if ! "$CAIRN" build "$f.cairn" --header --device-target "$ARCH" --out "$OUTDIR/lib" >"$OUTDIR/build.log" 2>&1; then
        echo "mma_run.sh: cairn build of $f failed:"; cat "$OUTDIR/build.log"; exit 1
    fi
done
if ! nvcc -std=c++17 -O3 --fmad=false "-gencode=arch=compute_${ARCH#sm_},code=$ARCH" -I"$OUTDIR/lib" -Iruntime \
        -Ibench/dev -o "$OUTDIR/mma_bench" bench/dev/mma_bench.cu "$OUTDIR/lib/libmma_kernels.a" \
        "$OUTDIR/lib/libtile64.a" "$OUTDIR/lib/libtile32.a" "$OUTDIR/lib/libtile128.a" -lcublas -lcudart >"$OUTDIR/bench-build.log" 2>&1; then
    echo "mma_run.sh: mma_bench does not build:"; cat "$OUTDIR/bench-build.log"; exit 1
fi
command -v cuobjdump >/dev/null 2>&1 && for l in mma_kernels tile64 tile32 tile128; do
    cuobjdump --dump-sass --dump-resource-usage "$OUTDIR/lib/lib$l.a" >"$OUTDIR/$l.sass" 2>&1; done
status=0
for i in $(seq 1 "$RUNS"); do
    # shellcheck disable=SC2086
    "$OUTDIR/mma_bench" $BENCH_ARGS >"$OUTDIR/mma_bench.$i.log" 2>&1
    rc=$?
    echo "run $i: exit $rc"
    cat "$OUTDIR/mma_bench.$i.log"
    [ $rc = 3 ] && exit 3
    [ $rc = 0 ] || status=1
done
exit $status
