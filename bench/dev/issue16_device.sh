#!/usr/bin/env bash
# One device call for issue 16's figures (device tool): the collectors against CUB with this tree's
# cairn, and with an earlier build's (BEFORE=DIR holding bin/cairn and runtime/, e.g. a build of
# the commit before the single-pass scan), each profiled with Nsight Compute; everything under
# OUTDIR, and a tarball of it. Run from the repository root on the GPU machine:
#   bash bench/dev/issue16_device.sh OUTDIR
set -u
OUTDIR=$1
mkdir -p "$OUTDIR"
export NCU_FLAGS="--clock-control none"
{
    nvidia-smi -L
    LABEL=new RUNS=${RUNS:-2} NCU=1 NCU_ONLY=scan_i32 bash bench/dev/coll_run.sh "$OUTDIR/b"
    if [ -n "${BEFORE:-}" ] && [ -x "$BEFORE/bin/cairn" ]; then
        CAIRN=$BEFORE/bin/cairn LABEL=old RUNS=1 NCU=1 NCU_ONLY=scan_i32 BENCH_ARGS="--log2 24,26,28 --reps 10" \
            bash bench/dev/coll_run.sh "$OUTDIR/b"
    fi
} 2>&1 | tee "$OUTDIR/issue16.txt"
tar -C "$OUTDIR" -czf "$OUTDIR/issue16.tgz" b issue16.txt
