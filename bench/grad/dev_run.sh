#!/usr/bin/env bash
# derive grad's cost on a GPU (issue 19): bench/grad/grad_dev_kernels.cairn built for the device target
# (ARCH, default sm_90a) as a library, bench/grad/grad_dev_bench.cu against it; runs it.
#   bash bench/grad/dev_run.sh [LOG2 ...]
set -eu
cd "$(dirname "$0")/../.."
CAIRN=${CAIRN:-bin/cairn}
ARCH=${ARCH:-sm_90a}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$CAIRN" build bench/grad/grad_dev_kernels.cairn --header --device-target "$ARCH" --out "$T" --quiet
nvcc -std=c++17 -O3 "-gencode=arch=compute_${ARCH#sm_},code=$ARCH" -I"$T" -Ibench/dev -o "$T/grad_dev_bench" \
    bench/grad/grad_dev_bench.cu "$T/libgrad_dev_kernels.a" -lcudart
echo "# n  dloss_ms  dloss_grad_ms  ratio ($(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1))"
"$T/grad_dev_bench" "$@"
