#!/usr/bin/env bash
# The first guard to fail is the one the written order reaches first, whatever C compiler builds the
# program: C leaves the order of a call's arguments and of an assignment's sides open, and gcc and
# clang pick differently. Runs tests/lang/guard_order_*.cairn under each compiler found.
# Prints `FAIL ...` lines and `N passed, N failed, N skipped`.
set -u
cd "$(dirname "$0")/../.."
CAIRN=${CAIRN:-bin/cairn}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0; skip=0
for cc in gcc clang; do
    if ! command -v "$cc" >/dev/null; then skip=$((skip + 1)); continue; fi
    for f in tests/lang/guard_order_*.cairn; do
        want=$(sed -n 's|^// stderr: ||p' "$f")
        CC=$cc "$CAIRN" run --out "$T/$cc-$(basename "$f" .cairn)" "$f" >/dev/null 2>"$T/err"
        if [ $? = 134 ] && grep -qF -- "$want" "$T/err"; then pass=$((pass + 1)); else
            fail=$((fail + 1)); echo "FAIL guard order: $f under $cc: $(grep 'guard failed' "$T/err")"; fi
    done
done
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
