#!/usr/bin/env bash
# CAIRN-compiled parallel kernels against a plain loop and OpenMP, in one process per thread count.
#
#   bash bench/par/run.sh [ROUNDS] [LOG2_SUM] [LOG2_SAXPY]      (defaults 5 26 24)
#
# 1. bin/cairn build --out build/bench-par bench/par/kernels.cairn   (the emitted C: kernels.c)
# 2. gcc, with the flags `cairn build` uses (src/cli/build.c) plus -fopenmp, compiles
#    bench/par/harness.c, which #includes build/bench-par/kernels.c (its main renamed).
# 3. runs it with CAIRN_THREADS=1 and 2 (OpenMP gets the same thread count) and prints a table.
#
# Targets (the issue): exact sum <= 2x the plain ordered loop (one core, narrow and wide); aim:
# beat xsum (0.85 ns narrow / 0.52 ns wide on the reference machine); saxpy within 10% of
# OpenMP; empty region no slower than OpenMP's. Raw lines go to build/bench-par/run-W.txt.
# Environment: CC (default gcc: the OpenMP side needs -fopenmp and libgomp), THREADS ("1 2").
set -u
cd "$(dirname "$0")/../.."
CC=${CC:-gcc}
OUTDIR=build/bench-par
ROUNDS=${1:-5}
LSUM=${2:-26}
LSAX=${3:-24}
mkdir -p "$OUTDIR"
[ -x bin/cairn ] || make >/dev/null || exit 2
bin/cairn build --out "$OUTDIR" bench/par/kernels.cairn >/dev/null 2>&1 || exit 2
FLAGS="-std=c17 -O2 -ffp-contract=off -fno-fast-math -fno-strict-aliasing -w"
# shellcheck disable=SC2086
$CC $FLAGS -fopenmp -Iruntime -I"$OUTDIR" -o "$OUTDIR/harness" bench/par/harness.c -lm -pthread || exit 2

echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs online"
echo "compiler: $($CC --version | head -1)"
echo "flags: $FLAGS -fopenmp -pthread -lm"
status=0
for W in ${THREADS:-1 2}; do
    echo "load average before W=$W: $(cut -d' ' -f1-3 /proc/loadavg)"
    CAIRN_THREADS=$W "$OUTDIR/harness" "$ROUNDS" "$LSUM" "$LSAX" > "$OUTDIR/run-$W.txt" || status=1
    echo "load average after  W=$W: $(cut -d' ' -f1-3 /proc/loadavg)"
    grep -v '^R ' "$OUTDIR/run-$W.txt"
done

# The table: one column per thread count.
awk -v ws="${THREADS:-1 2}" -v lsum="$LSUM" '
function r(w, k) { return val[w, k] }
function ratio(a, b) { return (a == "" || b == "" || b == 0) ? "-" : sprintf("%.2f", a / b) }
FNR == 1 { w = FILENAME; sub(/.*run-/, "", w); sub(/\.txt$/, "", w) }
/^R / { val[w, $2] = $3 }
END {
    n = split(ws, W, " ")
    printf "\n%-44s", "figure"; for (i = 1; i <= n; i++) printf "  %12s", "W=" W[i]; printf "\n"
    line("saxpy 2^24 f32: CAIRN parallel (ms)", "saxpy.cairn.ms")
    line("saxpy: OpenMP parallel for (ms)", "saxpy.omp.ms")
    line("saxpy: plain serial loop (ms)", "saxpy.serial.ms")
    rline("saxpy ratio CAIRN/OpenMP (target <= 1.10)", "saxpy.cairn.ms", "saxpy.omp.ms")
    line("empty region: CAIRN (us)", "empty.cairn.us")
    line("empty region: OpenMP (us)", "empty.omp.us")
    rline("empty ratio CAIRN/OpenMP (target <= 1.00)", "empty.cairn.us", "empty.omp.us")
    split("f64narrow f64wide f32narrow f32wide f64narrow-l2 f64wide-l2 f32narrow-l2 f32wide-l2", K, " ")
    for (j = 1; j <= 8; j++) {
        k = K[j]
        printf "-- %s, %s terms, ns per term\n", k, (k ~ /-l2$/ ? "2^16 (in cache)" : "2^" lsum)
        line("  CAIRN reduce + parallel (exact)", k ".exact.ns")
        line("  CAIRN reduce + for (ordered)", k ".cairnfor.ns")
        line("  plain ordered C loop (one core)", k ".plain.ns")
        line("  OpenMP reduction(+:s)", k ".omp.ns")
        line("  runtime add_array on the pool (diag)", k ".rtarray.ns")
        line("  read-bandwidth probe (W threads)", k ".readbw.ns")
        rline("  exact / plain loop (target <= 2.00)", k ".exact.ns", k ".plain.ns")
        rline("  exact / OpenMP reduction", k ".exact.ns", k ".omp.ns")
        rline("  exact / read-bandwidth probe", k ".exact.ns", k ".readbw.ns")
        rline("  runtime add_array / plain loop", k ".rtarray.ns", k ".plain.ns")
    }
}
function line(label, key,   i) {
    printf "%-44s", label; for (i = 1; i <= n; i++) printf "  %12s", (r(W[i], key) == "" ? "-" : sprintf("%.4g", r(W[i], key)))
    printf "\n"
}
function rline(label, a, b,   i) {
    printf "%-44s", label; for (i = 1; i <= n; i++) printf "  %12s", ratio(r(W[i], a), r(W[i], b))
    printf "\n"
}' $(for W in ${THREADS:-1 2}; do echo "$OUTDIR/run-$W.txt"; done)
for W in ${THREADS:-1 2}; do
    grep -q '^R checks ok' "$OUTDIR/run-$W.txt" || { echo "W=$W: result checks FAILED"; status=1; }
done
exit $status
