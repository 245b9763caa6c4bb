#!/usr/bin/env bash
# A CAIRN loop that never ends never ends: C11 lets a compiler assume that a loop whose controlling
# expression is not a constant terminates, and clang deleted `while k > 0 { k = k * 1; }`, so the
# program ran on past it (issue 10's review). While loops are emitted as for (;;) with the test
# inside. Under each compiler found: the program prints its first line and is still looping after
# 2 s (then stopped); it never prints the line after the loop.
# Prints `FAIL ...` lines and `N passed, N failed, N skipped`.
set -u
cd "$(dirname "$0")/../.."
CAIRN=${CAIRN:-bin/cairn}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0; skip=0
cat >"$T/lf.cairn" <<'SRC'
fn main() -> i32 {
  let mut k:u64 = 5;
  println("looping");
  while k > 0 { k = k * 1; }
  println("ended", k);
  return 0;
}
SRC
for cc in gcc clang; do
    if ! command -v "$cc" >/dev/null; then skip=$((skip + 1)); continue; fi
    CC=$cc timeout --preserve-status -s INT 2 "$CAIRN" run --out "$T/b-$cc" "$T/lf.cairn" >"$T/out" 2>"$T/err"
    rc=$?
    if [ $rc = 130 ] && [ "$(cat "$T/out")" = looping ]; then pass=$((pass + 1)); else
        fail=$((fail + 1)); echo "FAIL endless loop under $cc: exit $rc, printed: $(head -c 200 "$T/out" | tr '\n' ' ')"; fi
done
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
