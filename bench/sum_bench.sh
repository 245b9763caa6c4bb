#!/usr/bin/env bash
# The exact float sum against a plain ordered loop: ns per term, 2^26 terms, median of 5 runs.
#
#   bash bench/sum_bench.sh            (LOG2=26 by default; CC=cc)
#
# Builds bench/sum_bench.c with the flags emitted CAIRN programs get (-std=c17 -O2
# -ffp-contract=off -fno-fast-math, x86-64 baseline: the header picks AVX2 at run time where the
# CPU has it), then once more with -DCN_SUM_NO_DISPATCH (SSE2 only) and with -march=native, and
# runs each. See the top of bench/sum_bench.c for what is timed. The aim: the exact sum at most
# twice the plain loop's time, on narrow and on wide data.
set -u
cd "$(dirname "$0")/.."
CC=${CC:-cc}
LOG2=${LOG2:-26}
DIR=build/bench
mkdir -p "$DIR"
FLAGS="-std=c17 -O2 -ffp-contract=off -fno-fast-math -Wall -Wextra -Werror -Iruntime"
status=0
for variant in "baseline (dispatch)|" "SSE2 only|-DCN_SUM_NO_DISPATCH" "-march=native|-march=native"; do
    name=${variant%%|*}
    extra=${variant#*|}
    exe="$DIR/sum_bench-$(echo "$name" | tr -c 'a-zA-Z0-9\n' '_')"
    # shellcheck disable=SC2086
    $CC $FLAGS $extra -o "$exe" bench/sum_bench.c -lm -lpthread || exit 2
    echo "== $name"
    "$exe" "$LOG2" || status=1
done
exit $status
