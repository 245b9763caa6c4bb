#!/usr/bin/env bash
# The lane pool under ThreadSanitizer: builds tests/unit/test_pool.c with -fsanitize=thread and runs
# it (the in-process tests, then the same in children with CAIRN_THREADS = 1, 3, 7 and with
# CAIRN_SPIN_US=0, every one instrumented). Any TSan report fails the run.
#
#   bash tests/unit/pool_tsan.sh        prints the test's FAIL lines, every TSan report, and a last
#                                       line `N passed, N failed, N skipped`; exits 1 on failure
#
# Environment: CC (default cc). Some kernels place mappings where TSan's shadow memory must go
# ("unexpected memory mapping"); the run is then retried with address randomisation off (setarch -R).
set -u
cd "$(dirname "$0")/../.."
CC=${CC:-cc}
DIR=build/tsan
mkdir -p "$DIR"
exe=$DIR/test_pool
log=$DIR/test_pool.log
if ! $CC -std=c17 -D_DEFAULT_SOURCE -D_POSIX_C_SOURCE=200809L -O1 -g -fsanitize=thread \
        -fno-omit-frame-pointer -Isrc -Iruntime -o "$exe" tests/unit/test_pool.c \
        -lmpfr -lgmp -lm -lpthread 2>"$exe.build.log"; then
    cat "$exe.build.log"
    echo "FAIL pool_tsan: does not build under -fsanitize=thread"
    echo "0 passed, 1 failed, 0 skipped"
    exit 1
fi
# exitcode=66: a report makes the process fail even if the test's own checks pass; the children's
# reports reach $log through the parent's 2>&1 pipes.
export TSAN_OPTIONS="exitcode=66 halt_on_error=0 second_deadlock_stack=1 ${TSAN_OPTIONS:-}"
"$exe" >"$log" 2>&1
rc=$?
if grep -q 'unexpected memory mapping' "$log" && command -v setarch >/dev/null; then
    setarch "$(uname -m)" -R "$exe" >"$log" 2>&1
    rc=$?
fi
reports=$(grep -c '^WARNING: ThreadSanitizer' "$log")
grep -E '^FAIL' "$log"
if [ "$reports" -gt 0 ]; then
    sed -n '/^WARNING: ThreadSanitizer/,/^SUMMARY/p' "$log"
fi
last=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -1)
p=$(echo "$last" | sed -n 's/^\([0-9]*\) passed.*/\1/p')
f=$(echo "$last" | sed -n 's/.* \([0-9]*\) failed.*/\1/p')
p=${p:-0}
f=${f:-1}
echo "pool_tsan: exit $rc, $reports ThreadSanitizer report(s) (log: $log)"
[ "$reports" -gt 0 ] && f=$((f + reports))
[ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && f=1
echo "$p passed, $f failed, 0 skipped"
[ "$f" -eq 0 ]
