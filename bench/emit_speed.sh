#!/usr/bin/env bash
# How fast the compiler checks and emits C, apart from the C compiler: lines a second, and whether
# the time a line stays flat from 10^3 to 10^6 lines (a stage that is not linear shows as a
# lines/s that falls with the size).
#
#   bash bench/emit_speed.sh             (or: make bench-emit)
#
# Builds bench/emit_speed.c against the compiler's library (build/obj-cc/libcairn.a: run make
# first) and bench/gen_sequential, writes programs of each shape and size (build/bench/; the shapes
# of bench/check_speed.sh: seq, and chains -- a long operator chain in every function), and runs
# parse + check + emit RUNS times in one process each, writing the C to a sink that counts it
# (`cairn build` would time cc too, and cc on a million-line file is cc's time, not ours).
# Prints, per shape and size, the median CPU seconds and lines/s of the check (parse included)
# and of the emit, ns a line for each, and the bytes of C. The aim is over 1,000,000 lines/s for
# each, at every size.
#
# Environment: RUNS (default 5), SIZES (default "1000 10000 100000 1000000"), SHAPES (default
# "seq chains"), LIB (default build/obj-cc/libcairn.a).
set -u
cd "$(dirname "$0")/.."
RUNS=${RUNS:-5}
SIZES=${SIZES:-1000 10000 100000 1000000}
SHAPES=${SHAPES:-seq chains}
LIB=${LIB:-build/obj-cc/libcairn.a}
DIR=build/bench
mkdir -p "$DIR"

[ -f "$LIB" ] || { echo "emit_speed.sh: $LIB is not built (run make)" >&2; exit 2; }
${CC:-cc} -std=c17 -O2 -Wall -Wextra -Werror -o "$DIR/gen_sequential" bench/gen_sequential.c || exit 2
${CC:-cc} -std=c17 -O2 -Wall -Wextra -Werror -Isrc -o "$DIR/emit_speed" bench/emit_speed.c "$LIB" -lm || exit 2

median() { sort -n | sed -n "$(((RUNS + 1) / 2))p"; }

# What one compilation costs whatever its size (the arena's first block, the universe of names,
# the runtime's prologue): a one-line program's times. ns/line is measured net of it, so a flat
# column means a linear stage; the lines/s columns are the plain ratio.
printf 'fn main() -> i32 { return 0; }\n' >"$DIR/one-line.cairn"
"$DIR/emit_speed" "$DIR/one-line.cairn" "$RUNS" >"$DIR/one-line.emit" || exit 2
check0=$(cut -d' ' -f1 "$DIR/one-line.emit" | median)
emit0=$(cut -d' ' -f2 "$DIR/one-line.emit" | median)

status=0
printf '%-7s %-9s %9s %12s %8s %9s %12s %8s %11s\n' shape lines check_s check_l/s ns/line \
    emit_s emit_l/s ns/line C_bytes
for shape in $SHAPES; do
    for want in $SIZES; do
        src="$DIR/$shape-$want.cairn"
        case $shape in
        seq) "$DIR/gen_sequential" "$want" >"$src" 2>/dev/null || exit 2 ;;
        chains) "$DIR/gen_sequential" "$want" 7 chains >"$src" 2>/dev/null || exit 2 ;;
        *) echo "emit_speed.sh: no shape $shape (seq, chains)" >&2; exit 2 ;;
        esac
        lines=$(wc -l <"$src")
        if ! "$DIR/emit_speed" "$src" "$RUNS" >"$DIR/$shape-$want.emit" 2>"$DIR/$shape-$want.err"; then
            echo "emit_speed.sh: $src is refused or fails:" >&2
            head -5 "$DIR/$shape-$want.err" >&2
            status=1
            continue
        fi
        check=$(cut -d' ' -f1 "$DIR/$shape-$want.emit" | median)
        emit=$(cut -d' ' -f2 "$DIR/$shape-$want.emit" | median)
        bytes=$(cut -d' ' -f3 "$DIR/$shape-$want.emit" | head -1)
        awk -v s="$shape" -v l="$lines" -v c="$check" -v e="$emit" -v b="$bytes" -v c0="$check0" -v e0="$emit0" 'BEGIN {
            printf "%-7s %-9d %9.4f %12.0f %8.0f %9.4f %12.0f %8.0f %11d\n", s, l, c / 1e9, l / (c / 1e9),
                   (c - c0) / l, e / 1e9, l / (e / 1e9), (e - e0) / l, b }'
    done
done
awk -v c0="$check0" -v e0="$emit0" 'BEGIN { printf "(median of each of the runs, CPU time in one process: parse and check, then emit to a counting sink;\n ns/line net of a one-line program: %.4f s check, %.4f s emit)\n", c0 / 1e9, e0 / 1e9 }'
exit $status
