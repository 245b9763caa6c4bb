#!/usr/bin/env bash
# Every f32 input (all 2^32 bit patterns) through each storage float's narrowing (f16, bf16,
# f8e4m3, f8e5m2) against MPFR: tests/unit/test_storage_floats.c --exhaustive, on as many threads
# as there are cores (two at least; THREADS=N to choose). Prints the time it took and the usual
#   N passed, N failed, N skipped
# line (one property per format); exits 1 when any input rounds wrong.
#
#   bash tests/unit/exhaustive_floats.sh          (or, once the Makefile has it: make test-exhaustive)
#
# About 2^34 MPFR roundings: some 20 minutes of CPU, so about 10 minutes on two idle cores.
set -u
cd "$(dirname "$0")/../.."
OUT=build/exhaustive
mkdir -p "$OUT"
${CC:-cc} -std=c17 -D_DEFAULT_SOURCE -D_POSIX_C_SOURCE=200809L -O2 -g -Wall -Wextra -Werror \
    -Isrc -Iruntime -o "$OUT/test_storage_floats" tests/unit/test_storage_floats.c \
    -lmpfr -lgmp -lm -lpthread || exit 2
exec "$OUT/test_storage_floats" --exhaustive ${THREADS:-}
