#!/usr/bin/env bash
# `cairn explain FILE`: each function's effect row (sorted, through calls, to a fixpoint for
# recursion) and one line per region and collector. Compares whole expected output.
# Prints one line per failed check and `N passed, N failed, 0 skipped`.
set -u
cd "$(dirname "$0")/../.."
CAIRN=${CAIRN:-bin/cairn}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0
check() {   # check NAME: compares $T/got with $T/want
    if cmp -s "$T/want" "$T/got"; then pass=$((pass + 1)); else
        fail=$((fail + 1)); echo "FAIL explain: $1: $(diff "$T/want" "$T/got" | head -6 | tr '\n' ' ')"; fi
}
cat >"$T/a.cairn" <<'SRC'
fn saxpy(n:usize, a:f32, x:ro<f32>[n], y:ro<f32>[n], out:rw<f32>[n]) {
  parallel i in n { out[i] = a * x[i] + y[i]; }
}
fn dot(n:usize, x:ro<f64>[n], y:ro<f64>[n]) -> f64 {
  return reduce + parallel i in n yield x[i] * y[i];
}
fn hist(n:usize, x:ro<u64>[n], h:rw<u64>[8]) {
  parallel i in n { atomic_add_wrap(h[x[i] % 8], 1); }
}
fn show(n:usize, x:ro<f64>[n]) { println(dot(n, x, x)); }
fn ping(k:u64) -> u64 { if k == 0 { return 0; } return pong(k - 1); }
fn pong(k:u64) -> u64 { if k == 0 { println(k); } return ping(k); }
fn logs(n:usize, x:rw<f64>[n]) {
  buffer t:f64[n] = zeroed;
  for i in 0..n { t[i] = std.math.log10(x[i]); }
  let s = scan + x for i in n yield t[i];
}
plan saxpy { vector 4; }
SRC
cat >"$T/want" <<'OUT'
fn saxpy: [par:host, read:x, read:y, trap, write:out]
  line 2: parallel i in n (par:host; writes out[i]; reads x[i], y[i]; plan vector 4)
fn dot: [par:host, read:x, read:y, trap]
  line 5: reduce + parallel i in n (par:host; reads x[i], y[i])
fn hist: [atomic, par:host, read:h, read:x, trap, write:h]
  line 8: parallel i in n (par:host; reads x[i]; atomic h[x[i] % 8])
fn show: [io, par:host, read:x, trap]
fn ping: [io, trap]
fn pong: [io, trap]
fn logs: [alloc, libm, read:t, read:x, trap, write:t, write:x]
  line 15: std.math.log10 on f64: the host's C library (libm), error unstated
  line 16: scan + x for i in n (writes x; reads t[i])
OUT
"$CAIRN" explain "$T/a.cairn" >"$T/got" 2>"$T/err"
check "rows and regions"
"$CAIRN" explain "$T/missing.cairn" >/dev/null 2>&1
[ $? = 2 ] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL explain: a missing file exits 2"; }
printf 'fn f(n:usize, o:rw<f64>[n]) { parallel i in n { o[0] = 1.0; } }\n' >"$T/bad.cairn"
"$CAIRN" explain "$T/bad.cairn" >/dev/null 2>"$T/err"
[ $? = 1 ] && grep -q 'E-PARALLEL-RACE' "$T/err" && pass=$((pass + 1)) ||
    { fail=$((fail + 1)); echo "FAIL explain: a refused program exits 1 with its diagnostics"; }
# A device region and a device collector say par:device (issue 10: they said par:host), and explain
# takes --device-target as check does; with device work and no target it refuses as check does.
cat >"$T/d.cairn" <<'SRC'
fn main() -> i32 {
  let n:usize = 40;
  buffer h:u32[n] = zeroed;
  for i in 0..n { h[i] = u32(i) * 3 + 1; }
  buffer x:u32[n]@device = zeroed;
  transfer(x, h);
  parallel i in n { x[i] = x[i] * 2; }
  let t = reduce + parallel i in n yield u64(x[i]);
  let s = reduce + parallel i in n yield u64(h[i]);
  transfer(h, x);
  println(t, s, h[5]);
  return 0;
}
SRC
cat >"$T/want" <<'OUT'
fn main: [alloc, copy:host, gpu_alloc, gpu_free, io, par:device, par:host, read:h, read:x, trap, write:h, write:x]
  line 7: parallel i in n (par:device; writes x[i]; reads x[i])
  line 8: reduce + parallel i in n (par:device; reads x[i])
  line 9: reduce + parallel i in n (par:host; reads h[i])
OUT
"$CAIRN" explain --device-target sm_90a "$T/d.cairn" >"$T/got" 2>"$T/err"
check "device regions say par:device"
"$CAIRN" explain --emulate --device-target sm_90a "$T/d.cairn" >"$T/got" 2>"$T/err"
check "device regions say par:device under --emulate"
"$CAIRN" explain "$T/d.cairn" >/dev/null 2>"$T/err"
[ $? = 1 ] && grep -q 'E-TARGET' "$T/err" && pass=$((pass + 1)) ||
    { fail=$((fail + 1)); echo "FAIL explain: device work without a target is E-TARGET, as in check"; }
# transfer(dst, src) writes dst, reads src and checks its extents (issue 10's review: the row had
# only copy:host).
printf 'fn up(n:usize, d:rw<f32>[n]@device, h:ro<f32>[n]) { transfer(d, h); }\nfn down(n:usize, d:ro<f32>[n]@device, h:rw<f32>[n]) { transfer(h, d); }\n' >"$T/tr.cairn"
printf 'fn up: [copy:host, read:h, trap, write:d]\nfn down: [copy:host, read:d, trap, write:h]\n' >"$T/want"
"$CAIRN" explain --device-target sm_90a "$T/tr.cairn" >"$T/got" 2>"$T/err"
check "a transfer's row reads its source and writes its destination"
echo "$pass passed, $fail failed, 0 skipped"
[ "$fail" -eq 0 ]
