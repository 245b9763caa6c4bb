#!/usr/bin/env bash
# What a cooperative region adds to a function's effect row and to the build's receipt (issue 13):
# par:host, zero_init for the shared arrays declared `= zeroed` (none for a region whose arrays are all
# written before read), trap for the guards; the receipt's local_storage lists each body's shared arrays
# (bytes, 128-byte offsets, how each starts) and the block's total.
set -u
cd "$(dirname "$0")/../.."
CAIRN=${CAIRN:-bin/cairn}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
expect_row() {   # FILE FN ROW
    local got
    got=$("$CAIRN" explain "$1" 2>&1 | sed -n "s/^fn $2: //p" | head -1)
    [ "$got" = "$3" ] && pass=$((pass + 1)) || { echo "FAIL $1: fn $2's row is '$got', expected '$3'"; fail=$((fail + 1)); }
}
expect_row tests/coop/run_block_sums.cairn block_sums "[par:host, read:x, trap, write:out, zero_init]"
expect_row tests/coop/run_block_max.cairn block_max "[par:host, read:x, trap, write:out]"
expect_row tests/coop/run_total_finish.cairn total "[par:host, read:partial, read:x, trap, write:out, write:partial, zero_init]"

cat >"$T/two.cairn" <<'SRC'
fn two(g:usize, out:rw<u32>[g]) {
  blocks b in g threads t in 64 {
    shared a:u8[3] = zeroed;
    shared w:f64[5];
    shared c:u32[64] = zeroed;
    if t < 3 { a[t] = u8(t); }
    if t < 5 { w[t] = f64(t); }
    c[t] = u32(t);
    barrier;
    if t == 0 { out[b] = u32(a[2]) + u32(w[4]) + c[63]; }
  }
}
fn main() -> i32 {
  buffer out:u32[2] = zeroed;
  two(2, out);
  if out[0] != 2 + 4 + 63 { return 1; }
  return 0;
}
SRC
if "$CAIRN" build "$T/two.cairn" --out "$T/b" >"$T/build.log" 2>&1; then
    python3 - "$T/b/two.receipt.json" >"$T/py.log" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ls = d["local_storage"]
assert len(ls) == 1, ls
r = ls[0]
assert r["fn"] == "two" and r["body"] == "blocks", r
want = [("a", 3, 0, "zeroed"), ("w", 40, 128, "written before read"), ("c", 256, 256, "zeroed")]
got = [(a["name"], a["bytes"], a["offset"], a["starts"]) for a in r["arrays"]]
assert got == want, got
assert r["block_bytes"] == 512, r["block_bytes"]
PY
    [ $? -eq 0 ] && pass=$((pass + 1)) || { echo "FAIL receipt local_storage: $(cat "$T/py.log")"; fail=$((fail + 1)); }
    (cd "$T" && ./b/two) && pass=$((pass + 1)) || { echo "FAIL the region with three arrays gives a wrong value"; fail=$((fail + 1)); }
else
    echo "FAIL two.cairn does not build: $(head -3 "$T/build.log")"; fail=$((fail + 1))
fi
echo "$pass passed, $fail failed, 0 skipped"
[ "$fail" -eq 0 ]
