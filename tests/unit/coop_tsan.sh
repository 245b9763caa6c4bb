#!/usr/bin/env bash
# Cooperative regions under ThreadSanitizer: builds tests/unit/test_coop.c with -fsanitize=thread and
#   1. runs it (every test: barriers, warp operations, finish, traps); any TSan report fails the run;
#   2. runs `test_coop --racy` (two threads write one shared element with no barrier between) and
#      expects a TSan report naming a data race: that shows the sanitizer sees what the barriers
#      order. Its report is expected, not counted as a failure; its absence is one.
#
#   bash tests/unit/coop_tsan.sh        prints the test's FAIL lines, every unexpected TSan report, and
#                                       a last line `N passed, N failed, N skipped`; exits 1 on failure
#
# Environment: CC (default cc). Some kernels place mappings where TSan's shadow memory must go
# ("unexpected memory mapping"); a run is then retried with address randomisation off (setarch -R).
set -u
cd "$(dirname "$0")/../.."
CC=${CC:-cc}
DIR=build/tsan
mkdir -p "$DIR"
exe=$DIR/test_coop
log=$DIR/test_coop.log
racy_log=$DIR/test_coop_racy.log
if ! $CC -std=c17 -D_DEFAULT_SOURCE -D_POSIX_C_SOURCE=200809L -O1 -g -fsanitize=thread \
        -fno-omit-frame-pointer -Isrc -Iruntime -o "$exe" tests/unit/test_coop.c \
        -lm -lpthread 2>"$exe.build.log"; then
    cat "$exe.build.log"
    echo "FAIL coop_tsan: does not build under -fsanitize=thread"
    echo "0 passed, 1 failed, 0 skipped"
    exit 1
fi
export TSAN_OPTIONS="exitcode=66 halt_on_error=0 second_deadlock_stack=1 ${TSAN_OPTIONS:-}"

run() {   # run LOG ARGS...: the test under TSan, retried without ASLR where TSan needs it
    "$exe" "${@:2}" >"$1" 2>&1
    local rc=$?
    if grep -q 'unexpected memory mapping' "$1" && command -v setarch >/dev/null; then
        setarch "$(uname -m)" -R "$exe" "${@:2}" >"$1" 2>&1
        rc=$?
    fi
    return $rc
}

# 1. every test, no report
run "$log"
rc=$?
reports=$(grep -c '^WARNING: ThreadSanitizer' "$log")
grep -E '^FAIL' "$log"
[ "$reports" -gt 0 ] && sed -n '/^WARNING: ThreadSanitizer/,/^SUMMARY/p' "$log"
last=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -1)
p=$(echo "$last" | sed -n 's/^\([0-9]*\) passed.*/\1/p')
f=$(echo "$last" | sed -n 's/.* \([0-9]*\) failed.*/\1/p')
p=${p:-0}
f=${f:-1}
echo "coop_tsan: exit $rc, $reports ThreadSanitizer report(s) (log: $log)"
[ "$reports" -gt 0 ] && f=$((f + reports))
[ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && f=1

# 2. the racy region: a report is the expected outcome
run "$racy_log" --racy
racy_rc=$?
if grep -q '^WARNING: ThreadSanitizer: data race' "$racy_log" && grep -q 'racy_body' "$racy_log" &&
        [ "$racy_rc" -eq 66 ]; then
    p=$((p + 1))
    echo "coop_tsan: the racy region is reported, as it must be (log: $racy_log)"
else
    f=$((f + 1))
    echo "FAIL coop_tsan: two threads wrote one shared element without a barrier and TSan said nothing (exit $racy_rc, log: $racy_log)"
fi
echo "$p passed, $f failed, 0 skipped"
[ "$f" -eq 0 ]
