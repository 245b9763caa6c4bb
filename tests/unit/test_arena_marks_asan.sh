#!/usr/bin/env bash
# The arena's marks under ASan and UBSan (src/util.c, tests/unit/test_arena.c): every check of
# test_arena passes with the arena poisoning what it has not handed out, and a read of memory
# allocated after a mark, once the mark is released, is an ASan report (use-after-poison) naming
# the line of the read.
# Prints one line per failed check and `N passed, N failed, N skipped`.
set -u
cd "$(dirname "$0")/../.."
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0
ok() {
    if [ "$2" = 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL arena-marks-asan: $1"; fi
}

if ! ${CC:-cc} -std=c17 -D_DEFAULT_SOURCE -D_POSIX_C_SOURCE=200809L -g -O1 -fsanitize=address,undefined \
    -fno-omit-frame-pointer -fno-sanitize-recover=all -Isrc -o "$T/test_arena" tests/unit/test_arena.c src/util.c \
    2>"$T/build.err"; then
    echo "SKIP arena-marks-asan: cannot build with -fsanitize=address: $(head -1 "$T/build.err")"
    echo "0 passed, 0 failed, 1 skipped"
    exit 0
fi
export ASAN_OPTIONS=detect_leaks=0

"$T/test_arena" >"$T/out" 2>&1
rc=$?
ok "test_arena passes under ASan and UBSan" "$([ $rc = 0 ] && grep -q '^[0-9]* passed, 0 failed' "$T/out" &&
    ! grep -q 'Sanitizer' "$T/out"; echo $?)"
grep '^FAIL' "$T/out"
"$T/test_arena" after-release >"$T/out" 2>&1
rc=$?
ok "a read after the release is reported" "$([ $rc != 0 ] &&
    grep -q 'ERROR: AddressSanitizer: use-after-poison' "$T/out" && grep -q 'READ of size 1' "$T/out" &&
    grep -q 'in after_release .*test_arena.c' "$T/out"; echo $?)"

echo "$pass passed, $fail failed, 0 skipped"
[ "$fail" = 0 ]
