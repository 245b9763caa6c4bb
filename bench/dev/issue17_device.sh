#!/usr/bin/env bash
# One device call for issue 17 (pipelines, wide accesses) and what it needs checked on the GPU, run from
# the repository root on the GPU machine with bin/cairn built (carry bin/cairn and .devlib):
#   bash bench/dev/issue17_device.sh OUTDIR [PHASE]
# PHASE suite (default): the device suite (tests/device/run.sh, float/math agreement skipped: their code
#   did not change), then compute-sanitizer memcheck, racecheck and synccheck on the new programs
#   (SAN_ONLY: pipelines, wide accesses, guards) -- run_pipeline's SASS is checked inside run.sh;
# PHASE bench: bench/dev/pipe_run.sh (the strided sums at depths 1-3 against hand cp.async kernels and
#   plain loops), 3 runs; bench/dev/wide_bench.cu (d19's scaled copy and saxpy against hand float4
#   and scalar kernels, cairn's plain lanes wide and `vector 1`, and the device copy, 2^28 f32), 3
#   runs; bench/dev/math_run.sh, 2 runs; tests/python/check_examples.py on CUDA tensors.
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
        SKIP="float_agree math_agree" timeout 330 bash tests/device/run.sh "$OUTDIR/gpu"
        echo "run.sh exit $?"
        # the new programs first, then every other one while the call's time lasts
        first="${SAN_ONLY:-pipeline|wide|fill|atomics|scan_i32_overflow|guard}"
        SAN_ONLY="$first" SAN_LIMIT=60 timeout 110 bash tests/device/sanitize.sh "$OUTDIR/gpu"
        echo "sanitize.sh (new programs) exit $?"
        SAN_SKIP="$first" SAN_LIMIT=40 timeout "${SAN_REST:-140}" bash tests/device/sanitize.sh "$OUTDIR/gpu"
        echo "sanitize.sh (the rest) exit $?"
    } 2>&1 | tee "$OUTDIR/suite.txt"
    # the logs, not the binaries (what comes back is limited to 16 MiB a file)
    (cd "$OUTDIR" && find gpu -type f \( -name '*.log' -o -name '*.txt' -o -name '*.stdout' -o -name '*.stderr' \
        -o -name '*.sass' -o -name '*.rc' -o -name '*.want' \) | tar -czf issue17-suite.tgz suite.txt -T -) ;;
bench)
    {
        nvidia-smi -L
        [ "${PIPE_RUNS:-3}" = 0 ] || { timeout 120 bash bench/dev/pipe_run.sh "$OUTDIR/pipe" "${PIPE_RUNS:-3}"; echo "pipe_run.sh exit $?"; }
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
        # wide lanes change every plain device map: std.math maps against CUDA's (issue 14's figures)
        timeout 100 bash bench/dev/math_run.sh "$OUTDIR/math" 2; echo "math_run.sh exit $?"
        # the examples through the Python package on CUDA tensors (their plain lanes are wide now)
        CAIRN=$PWD/bin/cairn CAIRN_CACHE="$OUTDIR/pycache" PYTHONPATH=$PWD/python timeout 150 \
            python3 tests/python/check_examples.py "$ARCH"; echo "check_examples exit $?"
    } 2>&1 | tee "$OUTDIR/bench.txt"
    mkdir -p "$OUTDIR/pipe"
    tar -C "$OUTDIR" -czf "$OUTDIR/issue17-bench.tgz" bench.txt pipe wide math --exclude='*.a' --exclude='*_bench' \
        --exclude='*.so' --exclude='*.c' ;;
*) echo "issue17_device.sh: PHASE is suite or bench" >&2; exit 2 ;;
esac
