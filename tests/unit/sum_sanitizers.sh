#!/usr/bin/env bash
# tests/unit/test_sum.c under the sanitizers: AddressSanitizer with UndefinedBehaviorSanitizer,
# and, separately, ThreadSanitizer (the test sums on up to 16 pthreads and merges their states).
#
#   bash tests/unit/sum_sanitizers.sh          (CCS="cc clang" by default: each compiler found)
#
# Each build also runs with -DCN_SUM_SCALAR, the scalar kind nvcc compiles, besides the vector
# kinds of the host build. Any sanitizer report aborts the run (-fno-sanitize-recover=all,
# halt_on_error), so a build passes only if the test prints `N passed, 0 failed` and exits 0.
# SUM_QUICK=1 is set: fewer random cases run their 1..16-lane sweep (each kind of case still does).
# Prints one line per build and a last line `N passed, N failed, 0 skipped`.
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-build/sum-sanitizers}
mkdir -p "$OUT"
CCS=${CCS:-cc clang}
FLAGS="-std=c17 -D_DEFAULT_SOURCE -D_POSIX_C_SOURCE=200809L -O1 -g -fno-omit-frame-pointer
       -ffp-contract=off -fno-fast-math -Wall -Wextra -Werror -Isrc -Iruntime"
LIBS="-lmpfr -lgmp -lm -lpthread"
export ASAN_OPTIONS=halt_on_error=1:detect_leaks=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export TSAN_OPTIONS=halt_on_error=1
export SUM_QUICK=1
passed=0; failed=0
for cc in $CCS; do
    command -v "$cc" >/dev/null || { echo "skip $cc: not found"; continue; }
    for san in address,undefined thread; do
        for kind in ${KINDS:-vector scalar}; do
            name="$cc-${san%%,*}-$kind"
            extra=""
            [ "$kind" = scalar ] && extra=-DCN_SUM_SCALAR
            exe="$OUT/test_sum-$name"
            # shellcheck disable=SC2086
            if ! "$cc" $FLAGS $extra -fsanitize=$san -fno-sanitize-recover=all -o "$exe" \
                    tests/unit/test_sum.c $LIBS 2>"$exe.build.log"; then
                echo "FAIL $name: does not build (see $exe.build.log)"
                failed=$((failed + 1)); continue
            fi
            start=$(date +%s)
            "$exe" >"$exe.log" 2>&1
            rc=$?
            secs=$(( $(date +%s) - start ))
            last=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$exe.log" | tail -1)
            if [ $rc -eq 0 ] && echo "$last" | grep -q ' 0 failed' &&
                    ! grep -qE 'ERROR: (Address|Thread)Sanitizer|WARNING: ThreadSanitizer|runtime error:' "$exe.log"; then
                echo "ok   $name: $last (${secs}s)"
                passed=$((passed + 1))
            else
                echo "FAIL $name: exit $rc, ${last:-no summary} (see $exe.log)"
                grep -E 'FAIL|Sanitizer|runtime error' "$exe.log" | head -5 | sed 's/^/    /'
                failed=$((failed + 1))
            fi
        done
    done
done
echo "$passed passed, $failed failed, 0 skipped"
[ "$failed" -eq 0 ]
