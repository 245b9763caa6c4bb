#!/usr/bin/env bash
# The host lane pool against OpenMP: builds bench/pool_bench.c with gcc -fopenmp and runs it.
#
#   bash bench/pool_bench.sh [ROUNDS]    (default 10 rounds of each side)
#
# Prints the median time of a saxpy over 2^24 floats and of an empty region, for the pool and for
# `#pragma omp parallel for`, and the ratios pool/OpenMP. Targets: saxpy ratio <= 1.10, empty
# region ratio <= 1.00. Both sides use every online CPU unless CAIRN_THREADS / OMP_NUM_THREADS say
# otherwise; on a shared machine, run it a few times and read the medians with the load in mind.
#
# Environment: CC (default gcc: the OpenMP side needs -fopenmp and libgomp).
set -u
cd "$(dirname "$0")/.."
CC=${CC:-gcc}
DIR=build/bench
mkdir -p "$DIR"
$CC -std=c17 -D_POSIX_C_SOURCE=200809L -O2 -ffp-contract=off -fno-fast-math -fopenmp -Wall \
    -Wextra -Iruntime -o "$DIR/pool_bench" bench/pool_bench.c -lpthread || exit 2
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
"$DIR/pool_bench" "${1:-10}"
