#!/usr/bin/env bash
# How fast `cairn check` is on sequential code: lines a second and peak memory.
#
#   bash bench/check_speed.sh            (or: make bench-check)
#
# Builds bench/gen_sequential, writes programs of 1k, 10k, 100k and 1M lines (build/bench/) of two
# shapes -- seq: sequential code as people write it; chains: the same with a long operator chain
# (10 to 2,000 terms, one a line) in every function, as generated code has -- makes sure
# `bin/cairn check` accepts each (exit 0: a refused program would time the wrong thing), then times
# 5 checks of each and prints the median wall and CPU time, lines/s at each, and the peak resident
# set size. The aim is over 1,000,000 lines/s at every size: the time a line flat from 10^3 to
# 10^6 lines (bench/emit_speed.sh does the same for the emitter).
#
# Environment: CAIRN (default bin/cairn), RUNS (default 5), SIZES (default "1000 10000 100000
# 1000000"), SHAPES (default "seq chains").
set -u
cd "$(dirname "$0")/.."
CAIRN=${CAIRN:-bin/cairn}
RUNS=${RUNS:-5}
SIZES=${SIZES:-1000 10000 100000 1000000}
SHAPES=${SHAPES:-seq chains}
DIR=build/bench
mkdir -p "$DIR"

[ -x "$CAIRN" ] || { echo "check_speed.sh: $CAIRN is not built (run make)" >&2; exit 2; }
${CC:-cc} -std=c17 -O2 -Wall -Wextra -Werror -o "$DIR/gen_sequential" bench/gen_sequential.c ||
    exit 2

# One run of "$@", measured by a tiny wrapper (bench/measure.c, built here): it prints
# "WALL_NS CPU_NS MAXRSS_KB" from clock_gettime and getrusage of the child. CPU time is printed as
# well as wall time because on a busy machine (a shared CI box, a fuzzer alongside) the wall time
# of a 0.1 s run mostly measures the neighbours.
${CC:-cc} -O2 -o "$DIR/measure" bench/measure.c || exit 2
measure() { "$DIR/measure" "$@" 2>&1 >/dev/null | tail -1; }

# Peak RSS in KiB: /usr/bin/time -v's "Maximum resident set size" when there is one, else the
# wrapper's getrusage figure.
if [ -x /usr/bin/time ]; then
    peak_rss() {
        /usr/bin/time -v "$@" 2>&1 >/dev/null | sed -n 's/.*Maximum resident set size (kbytes): //p'
    }
else
    peak_rss() { measure "$@" | cut -d' ' -f3; }
fi

median() { sort -n | sed -n "$(((RUNS + 1) / 2))p"; }

status=0
printf '%-7s %-9s %10s %10s %12s %10s %12s %10s\n' shape lines bytes wall_s lines/s cpu_s lines/s_cpu rss_MiB
for shape in $SHAPES; do
for want in $SIZES; do
    src="$DIR/$shape-$want.cairn"
    case $shape in
    seq) "$DIR/gen_sequential" "$want" >"$src" 2>/dev/null || exit 2 ;;
    chains) "$DIR/gen_sequential" "$want" 7 chains >"$src" 2>/dev/null || exit 2 ;;
    *) echo "check_speed.sh: no shape $shape (seq, chains)" >&2; exit 2 ;;
    esac
    lines=$(wc -l <"$src")
    if ! "$CAIRN" check "$src" >"$DIR/$shape-$want.out" 2>&1; then
        echo "check_speed.sh: $CAIRN check refuses $src:" >&2
        head -5 "$DIR/$shape-$want.out" >&2
        status=1
        continue
    fi
    : >"$DIR/$shape-$want.times"
    for _ in $(seq "$RUNS"); do
        measure "$CAIRN" check "$src" >>"$DIR/$shape-$want.times"
    done
    wall=$(cut -d' ' -f1 "$DIR/$shape-$want.times" | median)
    cpu=$(cut -d' ' -f2 "$DIR/$shape-$want.times" | median)
    rss=$(peak_rss "$CAIRN" check "$src")
    awk -v s="$shape" -v l="$lines" -v b="$(wc -c <"$src")" -v w="$wall" -v c="$cpu" -v kb="${rss:-0}" 'BEGIN {
        printf "%-7s %-9d %10d %10.4f %12.0f %10.4f %12.0f %10.1f\n", s, l, b, w / 1e9, l / (w / 1e9),
               c / 1e9, l / (c / 1e9), kb / 1024 }'
done
done
echo "(median of $RUNS runs each; wall and CPU (user+sys) time; peak RSS from one more run)"
exit $status
