#!/usr/bin/env bash
# derive grad's cost on the host pool (issue 19): builds bench/grad/grad_kernels.cairn as a library and
# bench/grad/grad_bench.c against it, then runs it (sizes as log2, default 20 and 24).
#   bash bench/grad/run.sh [LOG2 ...]
set -eu
cd "$(dirname "$0")/../.."
CAIRN=${CAIRN:-bin/cairn}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$CAIRN" build bench/grad/grad_kernels.cairn --header --out "$T" --quiet
cc -O2 -I"$T" -o "$T/grad_bench" bench/grad/grad_bench.c "$T/libgrad_kernels.a" -lm -lpthread
echo "# n  loss_ms  loss_grad_ms  ratio ($(nproc) cores)"
"$T/grad_bench" "$@"
