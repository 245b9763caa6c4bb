#!/usr/bin/env bash
# One device call between full runs, for issue 16's collectors: the device programs of scans,
# compactions and sums on the GPU (tests/device/run.sh with ONLY, run_scan_tiles again SCAN_AGAIN
# times), then the collectors against CUB (bench/dev/coll_run.sh, RUNS runs) with Nsight Compute on
# NCU_ONLY's benchmarks. Run from the repository root on the GPU machine:
#   bash bench/dev/issue16_iter.sh OUTDIR
# OUTDIR gets suite.txt, bench.txt and iter.tgz (every log); exit 1 when a check failed.
set -u
OUTDIR=$1
mkdir -p "$OUTDIR"
st=0
ONLY=${ONLY:-'scan|compact|sum|reduce|run_large|run_sizes|run_empty'} SCAN_AGAIN=${SCAN_AGAIN:-20} \
    SKIP="float_agree math_agree" bash tests/device/run.sh "$OUTDIR/suite" >"$OUTDIR/suite.txt" 2>&1 || st=1
grep -E '^(PASS|FAIL|SKIP)|device programs' "$OUTDIR/suite.txt" | grep -v '^PASS' | head -40
echo "suite: exit $st, $(grep -c '^PASS' "$OUTDIR/suite.txt") PASS lines"
NCU_FLAGS="--clock-control none" LABEL=new RUNS=${RUNS:-2} NCU=${NCU:-1} \
    NCU_ONLY=${NCU_ONLY:-"scan_i32 compact sum_f64"} bash bench/dev/coll_run.sh "$OUTDIR/b" >"$OUTDIR/bench.txt" 2>&1 || st=1
cat "$OUTDIR/bench.txt"
tar -C "$OUTDIR" -czf "$OUTDIR/iter.tgz" suite b --exclude='*.coll_bench' --exclude='*/dev/*/*' 2>/dev/null
exit $st
