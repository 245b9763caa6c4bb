#!/usr/bin/env bash
# The device benchmark: CAIRN's saxpy and device sum against hand CUDA, CUB and a device copy, on
# a machine with an NVIDIA GPU (written for the H200, sm_90a). See the top of bench/dev/bench_dev.cu
# for what is measured and checked, and how to read the table.
#
#   bash bench/dev/run.sh OUTDIR
#
# Builds bench/dev/kernels.cairn with `cairn build --header` into OUTDIR/lib (kernels.h,
# libkernels.a), links bench/dev/bench_dev.cu against it with nvcc, runs it RUNS times (each run
# re-measures everything, so their spread is the noise to judge any difference by) and writes:
#
#   OUTDIR/machine.txt        GPU, driver, clocks before and after each run, nvcc, cairn, source state
#   OUTDIR/cairn-build.log    what cairn build said;  OUTDIR/lib/  its outputs
#   OUTDIR/bench-build.log    what nvcc said (with ptxas's resource report for the hand kernels)
#   OUTDIR/*.sass             cuobjdump's SASS of the CAIRN library and of bench_dev, where cuobjdump exists
#   OUTDIR/bench_dev.N.log    run N's full output
#   OUTDIR/summary.txt        each measurement's medians across the runs, printed last
#
# Environment:
#   ARCH=sm_90a      the device target for both cairn and nvcc (nvcc gets compute_XX,code=sm_XX)
#   FAKE=1           skip cairn; link the hand-written stand-in bench/dev/fake_kernels.cu instead
#                    (to test this script and the harness; its numbers are NEVER evidence)
#   RUNS=3           how many times to run bench_dev
#   BENCH_ARGS=...   passed to bench_dev (e.g. "--reps 200 --log2 26,28")
#   CAIRN=bin/cairn  the compiler; built with `make bin/cairn` if missing or not runnable
#   BENCH_LDLIBS=... extra libraries for the link, should the generated library need any
#
# Exit: 0 every run passed its checks; 1 cairn build or the bench build failed, or a check failed;
# 2 a CUDA call failed; 3 no usable GPU (stops after the first run).
set -u

ARCH=${ARCH:-sm_90a}
FAKE=${FAKE:-0}
RUNS=${RUNS:-3}
BENCH_ARGS=${BENCH_ARGS:-}
CAIRN=${CAIRN:-bin/cairn}
BENCH_LDLIBS=${BENCH_LDLIBS:-}
if [ $# -ne 1 ]; then
    echo "usage: bash bench/dev/run.sh OUTDIR" >&2
    exit 2
fi
if ! [[ $ARCH =~ ^sm_[0-9]+[af]?$ ]]; then
    echo "bench/dev/run.sh: ARCH=$ARCH is not a device target like sm_90a" >&2
    exit 2
fi
if ! [[ $RUNS =~ ^[1-9][0-9]*$ ]]; then
    echo "bench/dev/run.sh: RUNS=$RUNS is not a positive count" >&2
    exit 2
fi
mkdir -p "$1" || exit 2
OUTDIR=$(cd "$1" && pwd)          # absolute before we leave the caller's directory
cd "$(dirname "$0")/../.." || exit 2
# The same target for the library and the harness: nvcc's -gencode spells it twice.
GENCODE="-gencode=arch=compute_${ARCH#sm_},code=$ARCH"
NVFLAGS=(-std=c++17 -O3 --fmad=false "$GENCODE")

gpu_state() {
    nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,temperature.gpu,power.draw,power.limit,utilization.gpu,memory.used \
        --format=csv 2>&1
}

{
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "host: $(uname -srm)"
    echo "mode: $([ "$FAKE" = 1 ] && echo 'FAKE=1: stand-in kernels (bench/dev/fake_kernels.cu), NOT EVIDENCE' || echo 'cairn')"
    echo "target: $ARCH ($GENCODE)"
    echo "bench args: ${BENCH_ARGS:-(defaults)}"
    echo "--- nvidia-smi"
    nvidia-smi 2>&1
    nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total,pstate,persistence_mode,compute_mode,ecc.mode.current \
        --format=csv 2>&1
    echo "--- GPU state before the runs"
    gpu_state
    echo "--- nvcc"
    nvcc --version 2>&1
    echo "--- source"
    if git rev-parse --git-dir >/dev/null 2>&1; then
        echo "commit: $(git rev-parse HEAD)"
        # --no-optional-locks: reading the state must not rewrite the index.
        git --no-optional-locks status --short 2>&1 | sed 's/^/changed: /'
    else
        echo "not a git checkout"
    fi
    for f in bench/dev/kernels.cairn bench/dev/bench_dev.cu bench/dev/fake_kernels.cu; do
        sha256sum "$f" 2>&1
    done
} >"$OUTDIR/machine.txt"

# ------------------------------------------------------------------ build

if [ "$FAKE" = 1 ]; then
    echo "bench/dev/run.sh: FAKE=1: linking the stand-in bench/dev/fake_kernels.cu: these numbers are NOT evidence"
    LIBS=(bench/dev/fake_kernels.cu)
    INCLUDE=(-Ibench/dev/fake)
else
    if ! "$CAIRN" --version >/dev/null 2>&1; then
        echo "bench/dev/run.sh: $CAIRN is missing or does not run here: make bin/cairn"
        if [ "$CAIRN" != bin/cairn ] || ! make bin/cairn >"$OUTDIR/cairn-make.log" 2>&1; then
            echo "bench/dev/run.sh: could not build the cairn compiler; see $OUTDIR/cairn-make.log"
            exit 1
        fi
    fi
    echo "cairn: $("$CAIRN" --version 2>&1)" >>"$OUTDIR/machine.txt"
    mkdir -p "$OUTDIR/lib"
    if ! "$CAIRN" build bench/dev/kernels.cairn --header --device-target "$ARCH" --out "$OUTDIR/lib" \
            >"$OUTDIR/cairn-build.log" 2>&1; then
        echo "bench/dev/run.sh: cairn build failed for bench/dev/kernels.cairn ($OUTDIR/cairn-build.log):"
        cat "$OUTDIR/cairn-build.log"
        exit 1
    fi
    for f in kernels.h libkernels.a; do
        if [ ! -f "$OUTDIR/lib/$f" ]; then
            echo "bench/dev/run.sh: cairn build succeeded but wrote no $OUTDIR/lib/$f; it wrote:"
            ls -la "$OUTDIR/lib"
            exit 1
        fi
    done
    LIBS=("$OUTDIR/lib/libkernels.a")
    # The generated header's folder first; BENCH_DEV_WANT_REAL_HEADER makes bench_dev.cu refuse to
    # compile if the stand-in's header were picked up instead.
    INCLUDE=(-I"$OUTDIR/lib" -DBENCH_DEV_WANT_REAL_HEADER)
fi

# shellcheck disable=SC2086
if ! nvcc "${NVFLAGS[@]}" -Xptxas -v "${INCLUDE[@]}" -o "$OUTDIR/bench_dev" bench/dev/bench_dev.cu "${LIBS[@]}" \
        -lcudart $BENCH_LDLIBS >"$OUTDIR/bench-build.log" 2>&1; then
    echo "bench/dev/run.sh: bench_dev does not build ($OUTDIR/bench-build.log):"
    cat "$OUTDIR/bench-build.log"
    exit 1
fi

# The SASS answers, without device time, whether the loads are 16 bytes wide and whether a fused
# multiply-add crept in.
if command -v cuobjdump >/dev/null 2>&1; then
    [ "$FAKE" = 1 ] || cuobjdump --dump-sass --dump-resource-usage "$OUTDIR/lib/libkernels.a" >"$OUTDIR/kernels.sass" 2>&1
    cuobjdump --dump-sass --dump-resource-usage "$OUTDIR/bench_dev" >"$OUTDIR/bench_dev.sass" 2>&1
fi

# ------------------------------------------------------------------ runs

status=0
for i in $(seq 1 "$RUNS"); do
    # shellcheck disable=SC2086
    "$OUTDIR/bench_dev" $BENCH_ARGS >"$OUTDIR/bench_dev.$i.log" 2>&1
    rc=$?
    { echo "--- GPU state after run $i (exit $rc)"; gpu_state; } >>"$OUTDIR/machine.txt"
    echo "run $i: exit $rc ($OUTDIR/bench_dev.$i.log)"
    if [ $rc -eq 3 ]; then
        echo "bench/dev/run.sh: no usable GPU:"
        tail -n 5 "$OUTDIR/bench_dev.$i.log"
        exit 3
    fi
    if [ $rc -ne 0 ]; then
        grep -E '^# check .*FAIL|^bench_dev:|^# RESULT' "$OUTDIR/bench_dev.$i.log"
        status=$rc
    fi
done

# ------------------------------------------------------------------ summary

LOGS=()
for i in $(seq 1 "$RUNS"); do LOGS+=("$OUTDIR/bench_dev.$i.log"); done
# One line per measurement: its median in each run, the spread of those medians, and the runs'
# bandwidth, ratio to its anchor and fraction of the copy's bandwidth (slash-separated, run order).
awk '
    FNR == 1 { run++ }
    /^#/ || NF != 8 { next }
    {
        key = $1 " " $2
        if (!(key in seen)) { seen[key] = 0; order[++nkeys] = key }
        sep = seen[key]++ ? "/" : ""
        ms[key] = ms[key] sep $3
        gb[key] = gb[key] sep $6
        ra[key] = ra[key] sep $7
        fr[key] = fr[key] sep $8
        if (sep == "" || $3 + 0 < lo[key]) lo[key] = $3 + 0
        if (sep == "" || $3 + 0 > hi[key]) hi[key] = $3 + 0
    }
    END {
        printf "# %d runs. name n median_ms_per_run spread_pct GB_per_s ratio_vs_anchor frac_of_copy_bw\n", run
        for (k = 1; k <= nkeys; k++) {
            key = order[k]
            spread = lo[key] > 0 ? 100 * (hi[key] - lo[key]) / lo[key] : 0   # in printf, ">" would redirect
            printf "%s %s %.1f %s %s %s\n", key, ms[key], spread, gb[key], ra[key], fr[key]
        }
    }' "${LOGS[@]}" >"$OUTDIR/summary.txt"

{
    [ "$FAKE" = 1 ] && echo "# FAKE=1: stand-in kernels: NOT EVIDENCE"
    for i in $(seq 1 "$RUNS"); do
        echo "# run $i: $(grep -E '^# RESULT' "$OUTDIR/bench_dev.$i.log" || echo 'no RESULT line')"
        grep -E '^# sums ' "$OUTDIR/bench_dev.$i.log"
    done
} >>"$OUTDIR/summary.txt"
cat "$OUTDIR/summary.txt"
exit $status
