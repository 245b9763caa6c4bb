#!/usr/bin/env bash
# Device lanes' preloads (analyze.c, emit_dev.c; runtime/cairn_dev.h CN_DEV_KERNEL_PRE): which
# regions read their ro elements before the body, and how many lanes a thread runs. The values are
# tests/dev/run_preload.cairn's (emulated here, on the GPU in tests/device/run.sh); this checks
# the emitted C decides as analyze.c says: preloaded only where the element is read by every lane,
# (in the leading statements or an if's condition after them), at a plain name equal to the lane
# index, from an ro parameter, in a region alone with no loop.
# Prints `FAIL ...` lines and `N passed, N failed, 0 skipped`.
set -u
cd "$(dirname "$0")/../.."
CAIRN=${CAIRN:-bin/cairn}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
kernel_of() {   # kernel_of FILE REGION: the kernel line of the region whose lane is cn_dregionREGION
    grep -E "^CN_DEV_KERNEL(_PRE)?\(cn_dregion$2_lane_k," "$1"
}
want() {   # want WHAT FILE REGION EXPECTED-PREFIX
    local got
    got=$(kernel_of "$2" "$3")
    case "$got" in
    "$4"*) pass=$((pass + 1)) ;;
    *) fail=$((fail + 1)); echo "FAIL preload: $1: got '${got:-no kernel}'" ;;
    esac
}
"$CAIRN" build tests/dev/run_preload.cairn --emulate --device-target sm_90a --emit-c --out "$T/rp" >"$T/rp.c" 2>"$T/rp.err" ||
    { echo "FAIL preload: run_preload.cairn does not build"; cat "$T/rp.err"; }
want "one ro f32: 4 lanes a thread" "$T/rp.c" 1 "CN_DEV_KERNEL_PRE(cn_dregion1_lane_k, struct cn_dregion1, struct cn_dregion1_pre, cn_dregion1_load, cn_dregion1_lane, 256, 4)"
want "f32 and i32: 2 lanes" "$T/rp.c" 5 "CN_DEV_KERNEL_PRE(cn_dregion5_lane_k, struct cn_dregion5, struct cn_dregion5_pre, cn_dregion5_load, cn_dregion5_lane, 256, 2)"
want "f64, i32 and f32: 1 lane" "$T/rp.c" 10 "CN_DEV_KERNEL_PRE(cn_dregion10_lane_k, struct cn_dregion10, struct cn_dregion10_pre, cn_dregion10_load, cn_dregion10_lane, 256, 1)"
# the if's condition c[i] is read by every lane: preloaded; x[i] in a branch is read where it stands
want "an if's condition is preloaded" "$T/rp.c" 26 "CN_DEV_KERNEL_PRE(cn_dregion26_lane_k, struct cn_dregion26, struct cn_dregion26_pre, cn_dregion26_load, cn_dregion26_lane, 256, 4)"
n=$(sed -n '/^struct cn_dregion26_pre {/,/^};/p' "$T/rp.c" | grep -c ' p[0-9]*;')
body=$(sed -n '/cn_dregion26_lane(/,/^}/p' "$T/rp.c")
if [ "$n" = 1 ] && echo "$body" | grep -q 'cn_p->p0 > ' && echo "$body" | grep -q 'v_x_[0-9]*\.p\['; then
    pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL preload: a read only under a condition is read in its branch"; fi
# x[j] after let j = i and x[i] share one slot: the load reads one element
n=$(sed -n '/^struct cn_dregion21_pre {/,/^};/p' "$T/rp.c" | grep -c ' p[0-9]*;')
[ "$n" = 1 ] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL preload: x[j] and x[i] should share one slot, got $n"; }
# the rw element read in place is the body's own read, the ro one the load's
body=$(sed -n '/cn_dregion16_lane(/,/^}/p' "$T/rp.c")
if echo "$body" | grep -q '= v_y_[0-9]*\.p\[v_i_[0-9]*\];' && echo "$body" | grep -q '+ cn_p->p0)'; then
    pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL preload: in place: y[i] read in the body, x[i] from the load"; fi

cat >"$T/no.cairn" <<'SRC'
fn looped(n:usize, k:usize, x:ro<f32>[n]@device, y:rw<f32>[n]@device) {
  parallel i in n {
    let mut v:f32 = x[i];
    for j in 0..k { v = v * 0.5; }
    y[i] = v;
  }
}
fn rwonly(n:usize, y:rw<f32>[n]@device) {
  parallel i in n { y[i] = y[i] * 3.0; }
}
fn shifted(n:usize, x:ro<f32>[n]@device, y:rw<f32>[n]@device) {
  parallel i in n { y[i] = x[i + 1 - 1]; }
}
fn local(n:usize, x:ro<f32>[n]@device, y:rw<f32>[n]@device) {
  parallel i in n {
    let v = x[0..n];
    y[i] = v[i];
  }
}
plan fused { fuse; }
fn fused(n:usize, x:ro<f32>[n]@device, y:rw<f32>[n]@device, z:rw<f32>[n]@device) {
  parallel i in n { y[i] = x[i] + 1.0; }
  parallel i in n { z[i] = x[i] * 2.0; }
}
fn main() -> i32 {
  let n:usize = 10;
  buffer x:f32[n]@device = zeroed;
  buffer y:f32[n]@device = zeroed;
  buffer z:f32[n]@device = zeroed;
  looped(n, 3, x, y);
  rwonly(n, y);
  shifted(n, x, y);
  local(n, x, y);
  fused(n, x, y, z);
  return 0;
}
SRC
"$CAIRN" build "$T/no.cairn" --emulate --device-target sm_90a --emit-c --out "$T/no" >"$T/no.c" 2>"$T/no.err" ||
    { echo "FAIL preload: no.cairn does not build"; cat "$T/no.err"; }
plain=$(grep -c '^CN_DEV_KERNEL(cn_dregion' "$T/no.c")
pre=$(grep -c '^CN_DEV_KERNEL_PRE(' "$T/no.c")
# looped, rwonly, shifted, local: plain; fused: one plain kernel for the run
[ "$plain" = 5 ] && [ "$pre" = 0 ] && pass=$((pass + 1)) ||
    { fail=$((fail + 1)); echo "FAIL preload: a loop, an rw element, x[i + 1 - 1], a local view and a fused run stay plain: $plain plain, $pre preloaded"; grep -E '^CN_DEV_KERNEL' "$T/no.c" | sed 's/^/    /'; }
"$T/no/no" >/dev/null 2>&1 && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL preload: no.cairn does not run"; }
echo "$pass passed, $fail failed, 0 skipped"
[ "$fail" -eq 0 ]
