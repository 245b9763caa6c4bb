#!/usr/bin/env bash
# One device call for issue 17 (pipelines, wide accesses) and what it needs checked on the GPU, run from
# the repository root on the GPU machine with bin/cairn built (carry bin/cairn and .devlib):
#   bash bench/dev/issue17_device.sh OUTDIR [PHASE]
# PHASE suite (default): the device suite (tests/device/run.sh, float/math agreement skipped: their code
#   did not change), then compute-sanitizer memcheck, racecheck and synccheck on the new programs
#   (SAN_ONLY: pipelines, wide accesses, guards) -- run_pipeline's SASS is checked inside run.sh;
# PHASE bench: bench/dev/pipe_run.sh (the strided sums at depths 1-3 against hand cp.async kernels and
#   plain loops), 3 runs.
# Everything under OUTDIR, and one tarball of it (OUTDIR/issue17-PHASE.tgz) to bring back.
set -u
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
    { nvidia-smi -L; bash bench/dev/pipe_run.sh "$OUTDIR/pipe" 3; echo "pipe_run.sh exit $?"; } 2>&1 | tee "$OUTDIR/bench.txt"
    tar -C "$OUTDIR" -czf "$OUTDIR/issue17-bench.tgz" bench.txt pipe --exclude='*.a' --exclude='pipe_bench' ;;
*) echo "issue17_device.sh: PHASE is suite or bench" >&2; exit 2 ;;
esac
