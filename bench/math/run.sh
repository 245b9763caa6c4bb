#!/usr/bin/env bash
# The portable f32 math functions on the host against glibc's, and in a CAIRN region on the pool
# (bench/math/harness.c says what is timed).
#
#   bash bench/math/run.sh [ROUNDS]      (default 7)
#
# Builds bench/math/kernels.cairn with bin/cairn, compiles the harness around the emitted C with the
# flags `cairn build` uses (src/cli/build.c), and runs it with CAIRN_THREADS=1 and 2. Aim: cairn /
# glibc at most 1.5 for every function.
set -u
cd "$(dirname "$0")/../.."
CC=${CC:-gcc}
OUTDIR=build/bench-math
mkdir -p "$OUTDIR"
[ -x bin/cairn ] || make >/dev/null || exit 2
bin/cairn build --out "$OUTDIR" bench/math/kernels.cairn >"$OUTDIR/build.log" 2>&1 || { cat "$OUTDIR/build.log"; exit 2; }
FLAGS="-std=c17 -O2 -ffp-contract=off -fno-fast-math -fno-strict-aliasing -w"
# cairn build adds -mfma where the CPU has FMA (src/cli/build.c host_fma): the same here
if [ "${CAIRN_HOST_FMA:-1}" != 0 ] && grep -qw fma /proc/cpuinfo 2>/dev/null && [ "$(uname -m)" = x86_64 ]; then FLAGS="$FLAGS -mfma"; fi
# shellcheck disable=SC2086
$CC $FLAGS -Iruntime -I"$OUTDIR" -o "$OUTDIR/harness" bench/math/harness.c -lm -pthread || exit 2
echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs online; $($CC --version | head -1)"
echo "glibc: $(ldd --version | head -1)"
status=0
for W in ${THREADS:-1 2}; do
    echo "== CAIRN_THREADS=$W (load average $(cut -d' ' -f1-3 /proc/loadavg))"
    CAIRN_THREADS=$W "$OUTDIR/harness" "${1:-7}" || status=1
done
exit $status
