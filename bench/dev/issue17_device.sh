#!/usr/bin/env bash
# One device call for issue 17 (pipelines, wide accesses) and what it needs checked on the GPU, run from
# the repository root on the GPU machine with bin/cairn built (carry bin/cairn and .devlib):
#   bash bench/dev/issue17_device.sh OUTDIR [PHASE]
# PHASE suite (default): the device suite (tests/device/run.sh, float/math agreement skipped: their code
#   did not change), then compute-sanitizer memcheck, racecheck and synccheck on the new programs
#   (SAN_ONLY: pipelines, wide accesses, guards) -- run_pipeline's SASS is checked inside run.sh;
# PHASE bench: bench/dev/pipe_run.sh (the strided sums at depths 1-3 against hand cp.async kernels and
#   plain loops), 3 runs; bench/dev/wide_bench.cu (d19's scaled copy against a hand float4 kernel, a
#   scalar one, cairn's plain lanes and the device copy, 2^28 f32), 3 runs.
# Everything under OUTDIR, and one tarball of it (OUTDIR/issue17-PHASE.tgz) to bring back.
set -u
ARCH=${ARCH:-sm_90a}
OUTDIR=$1
PHASE=${2:-suite}
mkdir -p "$OUTDIR"
case $PHASE in
suite)
    {
        nvidia-smi -L
        SKIP="float_agree math_agree" timeout 420 bash tests/device/run.sh "$OUTDIR/gpu"
        echo "run.sh exit $?"
        SAN_ONLY="${SAN_ONLY:-pipeline|wide|fill|scan_i32_overflow}" SAN_LIMIT=60 timeout 150 \
            bash tests/device/sanitize.sh "$OUTDIR/gpu"
        echo "sanitize.sh exit $?"
    } 2>&1 | tee "$OUTDIR/suite.txt"
    tar -C "$OUTDIR" -czf "$OUTDIR/issue17-suite.tgz" suite.txt gpu/machine.txt gpu/dev gpu/san 2>/dev/null ;;
bench)
    {
        nvidia-smi -L
        bash bench/dev/pipe_run.sh "$OUTDIR/pipe" 3; echo "pipe_run.sh exit $?"
        # the scaled copy (d19) against a hand float4 kernel and the device copy
        mkdir -p "$OUTDIR/wide/lib"
        if "${CAIRN:-bin/cairn}" build bench/dev/wide_kernels.cairn --header --device-target "${ARCH:-sm_90a}" \
                --out "$OUTDIR/wide/lib" >"$OUTDIR/wide/cairn-build.log" 2>&1 &&
            nvcc -std=c++17 -O3 "-gencode=arch=compute_${ARCH#sm_},code=${ARCH:-sm_90a}" -I"$OUTDIR/wide/lib" \
                -o "$OUTDIR/wide/wide_bench" bench/dev/wide_bench.cu "$OUTDIR/wide/lib/libwide_kernels.a" -lcudart \
                >"$OUTDIR/wide/bench-build.log" 2>&1; then
            for r in 1 2 3; do echo "== wide run $r"; "$OUTDIR/wide/wide_bench" 30 28; echo "exit $?"; done
        else
            echo "wide_bench does not build"; cat "$OUTDIR/wide/cairn-build.log" "$OUTDIR/wide/bench-build.log"
        fi
    } 2>&1 | tee "$OUTDIR/bench.txt"
    tar -C "$OUTDIR" -czf "$OUTDIR/issue17-bench.tgz" bench.txt pipe wide --exclude='*.a' --exclude='*_bench' ;;
*) echo "issue17_device.sh: PHASE is suite or bench" >&2; exit 2 ;;
esac
