#!/usr/bin/env bash
# How fast `cairn check` is on sequential code: lines a second and peak memory.
#
#   bash bench/check_speed.sh            (or: make bench-check)
#
# Builds bench/gen_sequential, writes programs of 10k, 100k and 1M lines (build/bench/), makes
# sure `bin/cairn check` accepts each (exit 0: a refused program would time the wrong thing),
# then times 5 checks of each and prints the median wall time, lines/s at the median, and the
# largest peak resident set size of the runs. The aim is over 1,000,000 lines/s.
#
# Environment: CAIRN (default bin/cairn), RUNS (default 5), SIZES (default "10000 100000 1000000").
set -u
cd "$(dirname "$0")/.."
CAIRN=${CAIRN:-bin/cairn}
RUNS=${RUNS:-5}
SIZES=${SIZES:-10000 100000 1000000}
DIR=build/bench
mkdir -p "$DIR"

[ -x "$CAIRN" ] || { echo "check_speed.sh: $CAIRN is not built (run make)" >&2; exit 2; }
${CC:-cc} -std=c17 -O2 -Wall -Wextra -Werror -o "$DIR/gen_sequential" bench/gen_sequential.c ||
    exit 2

# Peak RSS in KiB of one run of "$@": /usr/bin/time -v when there is one, else a tiny getrusage
# wrapper built here.
if [ -x /usr/bin/time ]; then
    peak_rss() {
        /usr/bin/time -v "$@" 2>&1 >/dev/null | sed -n 's/.*Maximum resident set size (kbytes): //p'
    }
else
    cat >"$DIR/maxrss.c" <<'C'
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
int main(int argc, char **argv)
{
    (void)argc;
    pid_t p = fork();
    if (p == 0) {
        execvp(argv[1], argv + 1);
        _exit(127);
    }
    int st;
    waitpid(p, &st, 0);
    struct rusage ru;
    getrusage(RUSAGE_CHILDREN, &ru);
    fprintf(stderr, "%ld\n", ru.ru_maxrss);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
C
    ${CC:-cc} -O2 -o "$DIR/maxrss" "$DIR/maxrss.c" || exit 2
    peak_rss() { "$DIR/maxrss" "$@" 2>&1 >/dev/null | tail -1; }
fi

now_ns() { date +%s%N; }

status=0
printf '%-9s %10s %12s %14s %12s\n' lines bytes median_s lines_per_s peak_rss_MiB
for want in $SIZES; do
    src="$DIR/seq-$want.cairn"
    "$DIR/gen_sequential" "$want" >"$src" 2>/dev/null || exit 2
    lines=$(wc -l <"$src")
    if ! "$CAIRN" check "$src" >"$DIR/seq-$want.out" 2>&1; then
        echo "check_speed.sh: $CAIRN check refuses $src:" >&2
        head -5 "$DIR/seq-$want.out" >&2
        status=1
        continue
    fi
    times=()
    for _ in $(seq "$RUNS"); do
        t0=$(now_ns)
        "$CAIRN" check "$src" >/dev/null 2>&1
        t1=$(now_ns)
        times+=($((t1 - t0)))
    done
    median=$(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(((RUNS + 1) / 2))p")
    rss=0
    for _ in 1 2; do
        r=$(peak_rss "$CAIRN" check "$src")
        [ "${r:-0}" -gt "$rss" ] && rss=$r
    done
    awk -v l="$lines" -v b="$(wc -c <"$src")" -v ns="$median" -v kb="$rss" 'BEGIN {
        s = ns / 1e9
        printf "%-9d %10d %12.4f %14.0f %12.1f\n", l, b, s, l / s, kb / 1024 }'
done
exit $status
