#!/usr/bin/env bash
# How long `cairn check` takes on cooperative regions (issue 13's cost requirement: "checking the
# page's transpose and finish examples takes milliseconds, and a 1024-thread region with a 10-phase
# loop under 100 ms"). A benchmark, not a test: it prints the figures and says which aims they meet.
#
#   bash bench/coop_check_speed.sh        (or: make bench-coop-check)
#
# The programs: the page's transpose and one-pass total with a finish (tests/spec/d15, d16) and its
# block sums (d09); bench/coop_check/phase10.cairn, the block sum's tree over 1024 threads (ten
# halvings, a barrier each); phase10_tiles.cairn, 32 x 32 threads moving a tile through shared memory
# in a 10-step loop of two phases (20 phases); phase10_while.cairn, the same tree as a while loop with
# a grid-stride and a block-stride loop before it; and phase10_worlds.cairn, the worst case the checker
# allows: the tree and six barriers under conditions it cannot decide, so it runs the block 64 ways.
# Each must be accepted (a refusal would time the wrong thing); each is checked RUNS times and the
# median wall and CPU time are printed, with the peak RSS. The checker's cost grows with the block's
# threads and the body, not with the grid: none of these names a grid size the checker sees.
#
# Environment: CAIRN (default bin/cairn), RUNS (default 9).
set -u
cd "$(dirname "$0")/.."
CAIRN=${CAIRN:-bin/cairn}
RUNS=${RUNS:-9}
DIR=build/bench
mkdir -p "$DIR"
[ -x "$CAIRN" ] || { echo "coop_check_speed.sh: $CAIRN is not built (run make)" >&2; exit 2; }

# One run of "$@": "WALL_NS CPU_NS MAXRSS_KB" on stderr (clock_gettime and getrusage of the child).
${CC:-cc} -O2 -o "$DIR/coop_measure" bench/measure.c || exit 2
median() { sort -n | sed -n "$(((RUNS + 1) / 2))p"; }

status=0
printf '%-22s %8s %8s %8s %8s  %s\n' program threads wall_ms cpu_ms rss_MiB aim
while read -r src threads aim_ms what; do
    if ! "$CAIRN" check "$src" >"$DIR/coop_check.out" 2>&1; then
        echo "coop_check_speed.sh: $CAIRN check refuses $src:" >&2
        head -5 "$DIR/coop_check.out" >&2
        status=1
        continue
    fi
    : >"$DIR/coop_check.times"
    for _ in $(seq "$RUNS"); do
        "$DIR/coop_measure" "$CAIRN" check "$src" 2>>"$DIR/coop_check.times" >/dev/null
    done
    wall=$(cut -d' ' -f1 "$DIR/coop_check.times" | median)
    cpu=$(cut -d' ' -f2 "$DIR/coop_check.times" | median)
    rss=$(cut -d' ' -f3 "$DIR/coop_check.times" | median)
    awk -v s="$(basename "$src" .cairn)" -v th="$threads" -v w="$wall" -v c="$cpu" -v kb="$rss" -v aim="$aim_ms" \
        -v what="$what" 'BEGIN {
        verdict = aim == "-" ? "(none: " what ")" : (w / 1e6 < aim ? "under " aim " ms: met" : "OVER " aim " ms")
        printf "%-22s %8s %8.1f %8.1f %8.1f  %s\n", s, th, w / 1e6, c / 1e6, kb / 1024, verdict }'
done <<'LIST'
tests/spec/d15-transpose.cairn 256 10 the page's transpose
tests/spec/d16-total-finish.cairn 256 10 the page's finish
tests/spec/d09-block-sums.cairn 256 10 the page's block sums
bench/coop_check/phase10.cairn 1024 100 1024 threads, 10 phases
bench/coop_check/phase10_tiles.cairn 1024 100 1024 threads, 20 phases
bench/coop_check/phase10_while.cairn 1024 100 1024 threads, 10 phases in a while loop
bench/coop_check/phase10_worlds.cairn 1024 - 64 runs of the block, the worst case
LIST
echo "(median of $RUNS runs each, the whole of \`cairn check\`: start, parse, types and every rule;"
echo " \"milliseconds\" for the page's examples is read as under 10 ms)"
exit $status
