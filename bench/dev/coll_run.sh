#!/usr/bin/env bash
# Device collectors against CUB (issue 16), on a machine with an NVIDIA GPU (written for the H200):
# builds bench/dev/coll_kernels.cairn with `cairn build --header` and bench/dev/coll_bench.cu
# against it, runs the benchmark RUNS times, and profiles the scan and the compaction with Nsight
# Compute where ncu exists. What is measured and checked: the top of coll_bench.cu.
#
#   bash bench/dev/coll_run.sh OUTDIR
#
# Writes OUTDIR/machine.txt (GPU, clocks, nvcc, commit), OUTDIR/coll_bench.N.log, OUTDIR/summary.txt
# (each row's ratios across the runs), OUTDIR/ncu.NAME.txt (with NCU=1), OUTDIR/kernels.sass.
#
# Environment: ARCH=sm_90a, RUNS=2, BENCH_ARGS (e.g. "--log2 26 --only scan_i32"), CAIRN=bin/cairn,
# NCU=1 to profile NCU_ONLY's benchmarks (one call of each CAIRN and CUB kernel at 2^26: SpeedOfLight, memory workload,
# occupancy, warp state), LABEL (a name for this build in the files).
# Exit: 0 every run passed its checks; 1 a build or a check failed; 3 no usable GPU.
set -u
ARCH=${ARCH:-sm_90a}
RUNS=${RUNS:-2}
BENCH_ARGS=${BENCH_ARGS:-}
CAIRN=${CAIRN:-bin/cairn}
LABEL=${LABEL:-cairn}
[ $# -eq 1 ] || { echo "usage: bash bench/dev/coll_run.sh OUTDIR" >&2; exit 2; }
mkdir -p "$1" || exit 2
OUTDIR=$(cd "$1" && pwd)
SRC=$(cd "$(dirname "$0")/../.." && pwd)
cd "$SRC" || exit 2
GENCODE="-gencode=arch=compute_${ARCH#sm_},code=$ARCH"
{
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,clocks.max.sm,temperature.gpu,power.draw \
        --format=csv 2>&1
    nvcc --version | tail -2
    echo "commit: $(git rev-parse HEAD 2>/dev/null) $(git --no-optional-locks status --short 2>/dev/null | wc -l) changed files"
    echo "cairn: $("$CAIRN" --version 2>&1) ($CAIRN)"
    echo "target: $ARCH"
} >"$OUTDIR/$LABEL.machine.txt"
mkdir -p "$OUTDIR/$LABEL.lib"
if ! "$CAIRN" build bench/dev/coll_kernels.cairn --header --device-target "$ARCH" --out "$OUTDIR/$LABEL.lib" \
        >"$OUTDIR/$LABEL.cairn-build.log" 2>&1; then
    echo "coll_run.sh: cairn build failed:"; cat "$OUTDIR/$LABEL.cairn-build.log"; exit 1
fi
if ! nvcc -std=c++17 -O3 --fmad=false "$GENCODE" -Xptxas -v -I"$OUTDIR/$LABEL.lib" -I"$SRC/runtime" \
        -o "$OUTDIR/$LABEL.coll_bench" bench/dev/coll_bench.cu "$OUTDIR/$LABEL.lib/libcoll_kernels.a" -lcudart \
        >"$OUTDIR/$LABEL.bench-build.log" 2>&1; then
    echo "coll_run.sh: coll_bench does not build:"; cat "$OUTDIR/$LABEL.bench-build.log"; exit 1
fi
command -v cuobjdump >/dev/null 2>&1 &&
    cuobjdump --dump-sass --dump-resource-usage "$OUTDIR/$LABEL.lib/libcoll_kernels.a" >"$OUTDIR/$LABEL.kernels.sass" 2>&1
status=0
for i in $(seq 1 "$RUNS"); do
    # shellcheck disable=SC2086
    "$OUTDIR/$LABEL.coll_bench" $BENCH_ARGS >"$OUTDIR/$LABEL.coll_bench.$i.log" 2>&1
    rc=$?
    echo "$LABEL run $i: exit $rc"
    [ $rc = 3 ] && { tail -3 "$OUTDIR/$LABEL.coll_bench.$i.log"; exit 3; }
    [ $rc = 0 ] || { grep -E '^# check|RESULT|coll_bench:' "$OUTDIR/$LABEL.coll_bench.$i.log"; status=1; }
done
# One line a measurement: name n, then each run's ratio and the cairn and CUB medians.
awk '/^#/ || NF != 7 { next }
     { k = $1 " " $2; if (!(k in r)) o[++m] = k; r[k] = r[k] (r[k] ? "/" : "") $5;
       c[k] = c[k] (c[k] ? "/" : "") $3; u[k] = u[k] (u[k] ? "/" : "") $4 }
     END { print "# name n ratio_per_run cairn_ms_per_run cub_ms_per_run";
           for (i = 1; i <= m; i++) print o[i], r[o[i]], c[o[i]], u[o[i]] }' \
    "$OUTDIR/$LABEL".coll_bench.*.log >"$OUTDIR/$LABEL.summary.txt"
grep -h '^# RESULT\|^# check\|^# sum' "$OUTDIR/$LABEL".coll_bench.*.log | sort | uniq -c >>"$OUTDIR/$LABEL.summary.txt"
cat "$OUTDIR/$LABEL.summary.txt"
if [ "${NCU:-0}" = 1 ] && command -v ncu >/dev/null 2>&1; then
    # one launch of each kernel of each benchmark NCU_ONLY names (default the scan of i32) at 2^26,
    # CAIRN's and CUB's: OUTDIR/LABEL.ncu.NAME.txt
    for name in ${NCU_ONLY:-scan_i32}; do
        # shellcheck disable=SC2086
        timeout 300 ncu ${NCU_FLAGS:-} --target-processes all --launch-skip 6 --launch-count 12 \
            --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section WarpStateStats \
            --section LaunchStats \
            "$OUTDIR/$LABEL.coll_bench" --log2 26 --reps 1 --only "$name" >"$OUTDIR/$LABEL.ncu.$name.txt" 2>&1
        echo "$LABEL ncu $name: exit $? ($(grep -c '^  [A-Za-z_].*(' "$OUTDIR/$LABEL.ncu.$name.txt") kernels)"
    done
fi
exit $status
