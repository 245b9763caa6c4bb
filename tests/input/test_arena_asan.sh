#!/usr/bin/env bash
# The arena tells ASan where its allocations end (src/util.c): tests/input/arena_probe.c, built
# with src/util.c under -fsanitize=address, writes one byte past a buffer from arena_alloc, a
# vector, a string and a chunk of its own, and into a chunk's unused tail: each must be an ASan
# report (use-after-poison), and writing every byte it was given must run clean.
# Prints one line per failed check and `N passed, N failed, N skipped`.
set -u
cd "$(dirname "$0")/../.."
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0
skip=0
ok() {
    if [ "$2" = 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL arena-asan: $1"; fi
}

if ! ${CC:-cc} -std=c17 -D_DEFAULT_SOURCE -g -O1 -fsanitize=address -fno-omit-frame-pointer -Isrc \
    -o "$T/probe" tests/input/arena_probe.c src/util.c 2>"$T/build.err"; then
    echo "SKIP arena-asan: cannot build with -fsanitize=address: $(head -1 "$T/build.err")"
    echo "0 passed, 0 failed, 1 skipped"
    exit 0
fi
export ASAN_OPTIONS=detect_leaks=0

"$T/probe" inside >"$T/out" 2>&1
ok "writing every byte handed out runs clean" "$([ $? = 0 ] && ! grep -q AddressSanitizer "$T/out"; echo $?)"
for c in tail redzone vector string big unused; do
    "$T/probe" "$c" >"$T/out" 2>&1
    rc=$?
    ok "one byte past ($c) is reported" \
        "$([ $rc != 0 ] && grep -qE 'ERROR: AddressSanitizer: (use-after-poison|heap-buffer-overflow)' "$T/out" &&
           grep -q 'WRITE of size 1' "$T/out" && grep -q 'arena_probe.c' "$T/out"; echo $?)"
done

echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
