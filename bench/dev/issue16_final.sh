#!/usr/bin/env bash
# The last device call of a session on issue 16: the whole device suite (tests/device/run.sh, the
# float and math agreement skipped when SKIP says so), compute-sanitizer on the collectors' programs
# (memcheck with leak check, racecheck, synccheck), then the collectors against CUB
# (bench/dev/coll_run.sh, RUNS runs). Run from the repository root on the GPU machine:
#   bash bench/dev/issue16_final.sh OUTDIR
# OUTDIR/final.txt, and OUTDIR/final.tgz with every log.
set -u
OUTDIR=$1
mkdir -p "$OUTDIR"
{
    nvidia-smi -L
    SKIP=${SKIP-"float_agree math_agree"} timeout ${SUITE_S:-300} bash tests/device/run.sh "$OUTDIR/gpu"
    echo "run.sh exit $?"
    SAN_ONLY=${SAN_ONLY:-'scan|compact|sum|reduce|large|sizes|empty'} SAN_LIMIT=40 timeout ${SAN_S:-120} \
        bash tests/device/sanitize.sh "$OUTDIR/gpu"
    echo "sanitize.sh exit $?"
    RUNS=${RUNS:-2} NCU=0 LABEL=new timeout ${BENCH_S:-120} bash bench/dev/coll_run.sh "$OUTDIR/b"
    echo "coll_run.sh exit $?"
} 2>&1 | tee "$OUTDIR/final.txt"
(cd "$OUTDIR" && find gpu b -type f \( -name '*.log' -o -name '*.txt' -o -name '*.stdout' -o -name '*.stderr' \
    -o -name '*.rc' -o -name '*.want' \) | tar -czf final.tgz final.txt -T -)
