#!/usr/bin/env bash
# The cooperative rules matter, shown on real runs (issue 13): an accepted region's emitted C runs clean
# under the thread sanitizer, and with its barriers taken out the sanitizer reports the race the phase
# rule refused; a thread's index guard stops an out-of-bounds read, and with the guards taken out the
# address sanitizer reports the overflow. Host threads (runtime/cairn_coop.h), gcc's sanitizers.
set -u
cd "$(dirname "$0")/../.."
CAIRN=${CAIRN:-bin/cairn}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL $*"; fail=$((fail + 1)); }
CC="${CC:-cc} -std=c17 -O1 -g -Iruntime"

# 1. the page's block sums: clean under TSan; without its barriers, a data race
"$CAIRN" build tests/coop/run_block_sums.cairn --out "$T/sums" >"$T/b1.log" 2>&1 || bad "block sums does not build: $(head -3 "$T/b1.log")"
c="$T/sums/run_block_sums.c"
if [ -f "$c" ]; then
    [ "$(grep -c 'cn_coop_barrier(cn_th);' "$c")" -ge 2 ] && ok || bad "block sums: no barrier in its emitted C"
    $CC -fsanitize=thread -o "$T/sums_tsan" "$c" -lm -lpthread 2>"$T/cc1.log" || bad "block sums: TSan build: $(head -3 "$T/cc1.log")"
    if [ -x "$T/sums_tsan" ]; then
        (cd "$T" && timeout 300 ./sums_tsan >"$T/run1.log" 2>&1); rc=$?
        { [ $rc -eq 0 ] && ! grep -q "ThreadSanitizer" "$T/run1.log"; } && ok ||
            bad "block sums under TSan: exit $rc, $(grep -m1 ThreadSanitizer "$T/run1.log")"
    fi
    sed '/cn_coop_barrier(cn_th);/d' "$c" >"$T/nobar.c"
    $CC -fsanitize=thread -o "$T/nobar" "$T/nobar.c" -lm -lpthread 2>"$T/cc2.log" || bad "no barriers: TSan build"
    if [ -x "$T/nobar" ]; then
        (cd "$T" && timeout 300 ./nobar >"$T/run2.log" 2>&1)
        grep -q "WARNING: ThreadSanitizer: data race" "$T/run2.log" && ok ||
            bad "block sums without barriers: TSan reported no data race"
    fi
fi

# 2. a read past x's end: the guard stops it; with the guards out, ASan reports the overflow
"$CAIRN" build tests/coop/run_guard_read.cairn --out "$T/guard" >"$T/b2.log" 2>&1 || bad "guard read does not build: $(head -3 "$T/b2.log")"
c="$T/guard/run_guard_read.c"
if [ -f "$c" ]; then
    $CC -fsanitize=address -o "$T/guarded" "$c" -lm -lpthread 2>"$T/cc3.log" || bad "guarded: ASan build"
    if [ -x "$T/guarded" ]; then
        (cd "$T" && timeout 120 ./guarded >"$T/run3.log" 2>&1) 2>/dev/null; rc=$?
        { [ $rc -ne 0 ] && grep -q "guard failed: index .* out of bounds for x of length 40" "$T/run3.log" &&
          ! grep -q "AddressSanitizer" "$T/run3.log"; } && ok || bad "guarded read: exit $rc, $(head -2 "$T/run3.log")"
    fi
    # every index check made a plain index (the macro comes after the runtime, so only the emitted code sees it)
    awk '{print} /^#define CN_AT\(line, col\)/{print "#define cn_idx_u(i, n, ...) ((size_t)(i))"}' "$c" >"$T/unguarded.c"
    grep -q '^#define cn_idx_u' "$T/unguarded.c" && ok || bad "could not take the guards out"
    $CC -fsanitize=address -o "$T/unguarded" "$T/unguarded.c" -lm -lpthread 2>"$T/cc4.log" || bad "unguarded: ASan build"
    if [ -x "$T/unguarded" ]; then
        (cd "$T" && timeout 120 ./unguarded >"$T/run4.log" 2>&1)
        grep -q "AddressSanitizer: heap-buffer-overflow" "$T/run4.log" && ok ||
            bad "read past x without its guard: ASan reported no overflow: $(head -3 "$T/run4.log")"
    fi
fi
# 3. pipelines (check_stage.c): the strided sums and the rest of run_pipeline.cairn run clean under TSan;
# with the barrier after each release taken out, the next fill's copy races with the reads of the
# stage it refills (what E-STAGE-BUSY refuses, d18), and TSan reports it
"$CAIRN" build tests/coop/run_pipeline.cairn --out "$T/pipe" >"$T/b5.log" 2>&1 || bad "pipelines do not build: $(head -3 "$T/b5.log")"
c="$T/pipe/run_pipeline.c"
if [ -f "$c" ]; then
    $CC -fsanitize=thread -o "$T/pipe_tsan" "$c" -lm -lpthread 2>"$T/cc5.log" || bad "pipelines: TSan build: $(head -3 "$T/cc5.log")"
    if [ -x "$T/pipe_tsan" ]; then
        (cd "$T" && timeout 300 ./pipe_tsan >"$T/run5.log" 2>&1); rc=$?
        { [ $rc -eq 0 ] && ! grep -q "ThreadSanitizer" "$T/run5.log"; } && ok ||
            bad "pipelines under TSan: exit $rc, $(grep -m1 ThreadSanitizer "$T/run5.log")"
    fi
    # the barrier that follows each release (the wait's own barrier stays)
    awk '/\.release\(\): its stage is free/ {drop = 1} drop && /cn_coop_barrier\(cn_th\);/ {drop = 0; next} {print}' \
        "$c" >"$T/pipe_nobar.c"
    [ "$(grep -c 'cn_coop_barrier(cn_th);' "$T/pipe_nobar.c")" -lt "$(grep -c 'cn_coop_barrier(cn_th);' "$c")" ] && ok ||
        bad "could not take the barriers after the releases out"
    $CC -fsanitize=thread -o "$T/pipe_nobar" "$T/pipe_nobar.c" -lm -lpthread 2>"$T/cc6.log" || bad "pipelines without barriers: TSan build"
    if [ -x "$T/pipe_nobar" ]; then
        (cd "$T" && timeout 300 ./pipe_nobar >"$T/run6.log" 2>&1)
        grep -q "WARNING: ThreadSanitizer: data race" "$T/run6.log" && ok ||
            bad "pipelines without the barrier after a release: TSan reported no data race"
    fi
fi
echo "$pass passed, $fail failed, 0 skipped"
[ "$fail" -eq 0 ]
