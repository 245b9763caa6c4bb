#!/usr/bin/env bash
# Conversions a second, f32 into each storage float, runtime/cairn_float.h against gcc's own
# (_Float16)x (and (__bf16)x where the compiler has it), on one core: see bench/float_convert.c.
#
#   bash bench/float_convert.sh
#
# Builds twice: for the baseline x86-64 (where gcc converts to _Float16 in software, libgcc's
# __truncsfhf2) and with -march=native (where it uses F16C's vcvtps2ph, when the CPU has it).
# The process is pinned to one core when taskset is there. CC chooses the compiler (default cc).
set -u
cd "$(dirname "$0")/.."
DIR=build/bench
mkdir -p "$DIR"
CC=${CC:-cc}
BF16=
echo '__bf16 f(float x) { return (__bf16)x; }' >"$DIR/probe_bf16.c"
$CC -std=c17 -O2 -c -o "$DIR/probe_bf16.o" "$DIR/probe_bf16.c" 2>/dev/null && BF16=-DHAVE_BF16
PIN=
command -v taskset >/dev/null && PIN="taskset -c 0"
for arch in x86-64 native; do
    $CC -std=c17 -D_DEFAULT_SOURCE -O2 -march=$arch -Wall -Wextra -Werror $BF16 -Iruntime \
        -o "$DIR/float_convert-$arch" bench/float_convert.c -lm || exit 2
    echo "== $($CC --version | head -1), -O2 -march=$arch"
    $PIN "$DIR/float_convert-$arch"
done
