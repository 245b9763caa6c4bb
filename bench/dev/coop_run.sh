#!/usr/bin/env bash
# cairn's cooperative regions against CUB and a hand transpose (bench/dev/coop_bench.cu), on a machine
# with an NVIDIA GPU: bash bench/dev/coop_run.sh OUTDIR [RUNS] (PER_SM=8: csum's blocks per SM). Builds bench/dev/coop_kernels.cairn as a
# library with its header, links the driver with nvcc, runs it RUNS times (default 3) into OUTDIR.
set -u
OUT=${1:?usage: bash bench/dev/coop_run.sh OUTDIR [RUNS]}
RUNS=${2:-3}
ARCH=${ARCH:-sm_90a}
CAIRN=${CAIRN:-bin/cairn}
cd "$(dirname "$0")/../.." || exit 2
mkdir -p "$OUT/lib"
"$CAIRN" build bench/dev/coop_kernels.cairn --header --device-target "$ARCH" --out "$OUT/lib" >"$OUT/cairn-build.log" 2>&1 ||
    { cat "$OUT/cairn-build.log"; exit 1; }
nvcc -std=c++17 -O3 "-gencode=arch=compute_${ARCH#sm_},code=$ARCH" -I"$OUT/lib" -o "$OUT/coop_bench" \
    bench/dev/coop_bench.cu "$OUT/lib/libcoop_kernels.a" -lcudart >"$OUT/bench-build.log" 2>&1 ||
    { cat "$OUT/bench-build.log"; exit 1; }
rc=0
for r in $(seq 1 "$RUNS"); do
    "$OUT/coop_bench" 50 "${PER_SM:-4}" >"$OUT/run$r.log" 2>&1 || rc=1
    echo "== run $r"; cat "$OUT/run$r.log"
done
exit $rc
