#!/usr/bin/env bash
# Device lanes' preloads and wide lanes (analyze.c, emit_dev.c; runtime/cairn_dev.h CN_DEV_KERNEL_PRE,
# CN_DEV_KERNEL_WIDE): which regions read their ro elements before the body, which stores are held
# as posts, and how many lanes a thread runs (wide: 16 bytes of the narrowest view; `vector K` where
# planned; the strided preloads of CN_DEV_KERNEL_PRE under `vector 1`). The values are
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
    grep -E "^CN_DEV_KERNEL(_PRE|_WIDE)?\(cn_dregion$2_lane_k," "$1"
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
want "one ro f32: wide, 4 lanes a thread" "$T/rp.c" 1 "CN_DEV_KERNEL_WIDE(cn_dregion1_lane_k, struct cn_dregion1, struct cn_dregion1_pre, struct cn_dregion1_post, cn_dregion1_load, cn_dregion1_loadw, cn_dregion1_lane, cn_dregion1_storew, cn_dregion1_aligned, 256, 4, 4)"
want "f32 and i32: wide, 4 lanes (16 bytes of the narrowest)" "$T/rp.c" 5 "CN_DEV_KERNEL_WIDE(cn_dregion5_lane_k, struct cn_dregion5, struct cn_dregion5_pre, struct cn_dregion5_post, cn_dregion5_load, cn_dregion5_loadw, cn_dregion5_lane, cn_dregion5_storew, cn_dregion5_aligned, 256, 4, 4)"
want "f64, i32 and f32: wide, 4 lanes (f64 in two 16-byte accesses)" "$T/rp.c" 10 "CN_DEV_KERNEL_WIDE(cn_dregion10_lane_k, struct cn_dregion10, struct cn_dregion10_pre, struct cn_dregion10_post, cn_dregion10_load, cn_dregion10_loadw, cn_dregion10_lane, cn_dregion10_storew, cn_dregion10_aligned, 256, 4, 4)"
# the if's condition c[i] is read by every lane: preloaded; x[i] in a branch is read where it stands
want "an if's condition is preloaded" "$T/rp.c" 26 "CN_DEV_KERNEL_WIDE(cn_dregion26_lane_k, struct cn_dregion26, struct cn_dregion26_pre, struct cn_dregion26_post, cn_dregion26_load, cn_dregion26_loadw, cn_dregion26_lane, cn_dregion26_storew, cn_dregion26_aligned, 256, 4, 4)"
n=$(sed -n '/^struct cn_dregion26_pre {/,/^};/p' "$T/rp.c" | grep -c ' p[0-9]*;')
body=$(sed -n '/cn_dregion26_lane(/,/^}/p' "$T/rp.c")
if [ "$n" = 1 ] && echo "$body" | grep -q 'cn_p->p0 > ' && echo "$body" | grep -q 'v_x_[0-9]*\.p\['; then
    pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL preload: a read only under a condition is read in its branch"; fi
# x[j] after let j = i and x[i] share one slot: the load reads one element
n=$(sed -n '/^struct cn_dregion21_pre {/,/^};/p' "$T/rp.c" | grep -c ' p[0-9]*;')
[ "$n" = 1 ] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL preload: x[j] and x[i] should share one slot, got $n"; }
# the rw element read in place is the body's own read, the ro one the load's; y[i] is read, so its
# store is no post (the struct has none) and stays in place
body=$(sed -n '/cn_dregion16_lane(/,/^}/p' "$T/rp.c")
if echo "$body" | grep -q '= v_y_[0-9]*\.p\[v_i_[0-9]*\];' && echo "$body" | grep -q '+ cn_p->p0)' &&
        ! echo "$body" | grep -q 'cn_o->' && sed -n '/^struct cn_dregion16_post {/,/^};/p' "$T/rp.c" | grep -q 'cn_none'; then
    pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL preload: in place: y[i] read in the body, x[i] from the load, no post"; fi
# a store at the lane's own index is a post, in place when the lane runs alone
body=$(sed -n '/cn_dregion1_lane(/,/^}/p' "$T/rp.c")
if echo "$body" | grep -qE 'if \(cn_o\) cn_o->o0 = cn_v[0-9]+; else v_y_[0-9]+\.p\[v_i_[0-9]+\] = cn_v[0-9]+;'; then
    pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL preload: y[i] = ... is held as post o0"; fi

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
plan one { vector 1; }
fn one(n:usize, x:ro<f32>[n]@device, y:rw<f32>[n]@device) {
  parallel i in n { y[i] = x[i] * 2.0; }
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
  one(n, x, y);
  return 0;
}
SRC
"$CAIRN" build "$T/no.cairn" --emulate --device-target sm_90a --emit-c --out "$T/no" >"$T/no.c" 2>"$T/no.err" ||
    { echo "FAIL preload: no.cairn does not build"; cat "$T/no.err"; }
plain=$(grep -c '^CN_DEV_KERNEL(cn_dregion' "$T/no.c")
pre=$(grep -c '^CN_DEV_KERNEL_PRE(' "$T/no.c")
wide=$(grep -c '^CN_DEV_KERNEL_WIDE(' "$T/no.c")
empty=$(grep -c '^    char cn_none;' "$T/no.c")
# looped, rwonly: plain; fused: one plain kernel for the run; shifted and local preload nothing
# (x[i + 1 - 1] is no plain name, v is the lane's own view) but hold their y[i] store as a post;
# one (`vector 1`): its x[i] preloaded, 4 lanes a thread strided, no post
[ "$plain" = 3 ] && [ "$pre" = 1 ] && [ "$wide" = 2 ] && [ "$empty" = 2 ] && pass=$((pass + 1)) ||
    { fail=$((fail + 1)); echo "FAIL preload: a loop, an rw element and a fused run stay plain, x[i + 1 - 1] and a local view store wide, vector 1 preloads: $plain plain, $pre preloaded, $wide wide, $empty empty preloads"; grep -E '^CN_DEV_KERNEL' "$T/no.c" | sed 's/^/    /'; }
"$T/no/no" >/dev/null 2>&1 && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL preload: no.cairn does not run"; }
# the wide kernel's grid: a block for each 256 groups where the lanes only move data and do
# arithmetic, the full wave (0) where they call a function (std.math, the program's own)
cat >"$T/grid.cairn" <<'SRC'
fn helper(v:f32) -> f32 { return v * 0.5; }
fn moves(n:usize, x:ro<f32>[n]@device, y:rw<f32>[n]@device) { parallel i in n { y[i] = x[i] * 2.0 + 1.0; } }
fn maths(n:usize, x:ro<f32>[n]@device, y:rw<f32>[n]@device) { parallel i in n { y[i] = std.math.exp(x[i]); } }
fn calls(n:usize, x:ro<f32>[n]@device, y:rw<f32>[n]@device) { parallel i in n { y[i] = helper(x[i]); } }
fn main() -> i32 { return 0; }
SRC
"$CAIRN" build "$T/grid.cairn" --emulate --device-target sm_90a --emit-c --out "$T/grid" >"$T/grid.c" 2>"$T/grid.err" ||
    { echo "FAIL preload: grid.cairn does not build"; cat "$T/grid.err"; }
grids=$(grep -oE '^CN_DEV_KERNEL_WIDE\(.*, 256, [0-9]+, [0-9]+\)' "$T/grid.c" | sed -E 's/.*, 256, ([0-9]+), ([0-9]+)\)/\1:\2/' | tr '\n' ' ')
[ "$grids" = "4:4 4:0 4:0 " ] && pass=$((pass + 1)) ||
    { fail=$((fail + 1)); echo "FAIL preload: wide grids (moves, maths, calls) should be 4:4 4:0 4:0, got '$grids'"; }
echo "$pass passed, $fail failed, 0 skipped"
[ "$fail" -eq 0 ]
