#!/usr/bin/env bash
# The device suite: runs on a machine with an NVIDIA GPU (make gpu). Builds each test with nvcc for
# the target (default sm_90a, the H200) and writes what it printed, with the GPU, the driver and
# nvcc's version, under OUTDIR (default build/gpu). Exits non-zero when a test fails.
#
#   float_agree   every f32 input through each storage-float narrowing, widening, quantize and
#                 quantize_stochastic: a hash of the results computed by a kernel and by host
#                 threads must agree bit for bit (one rounding routine, integer operations only)
set -u
cd "$(dirname "$0")/../.."
OUTDIR=${1:-build/gpu}
ARCH=${ARCH:-sm_90a}
mkdir -p "$OUTDIR"
{
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1
    nvcc --version | tail -2
    echo "target: $ARCH"
} >"$OUTDIR/machine.txt"
cat "$OUTDIR/machine.txt"
fail=0
for t in float_agree; do
    cc=${ARCH#sm_}
    if ! nvcc -std=c++17 -O2 --fmad=false -gencode=arch=compute_$cc,code=$ARCH -Iruntime \
            -o "$OUTDIR/$t" "tests/device/$t.cu" >"$OUTDIR/$t.build.log" 2>&1; then
        echo "FAIL $t: does not build"; cat "$OUTDIR/$t.build.log"; fail=1; continue
    fi
    if "$OUTDIR/$t" >"$OUTDIR/$t.log" 2>&1; then echo "PASS $t"; else echo "FAIL $t"; fail=1; fi
    cat "$OUTDIR/$t.log"
done
exit $fail
