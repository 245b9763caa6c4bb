#!/usr/bin/env bash
# The fast version of a device region (issue 13's speed; src/emit_fast.c, runtime/cairn_coopdev.h):
#   1. what the device C holds (built with nvcc for sm_90a): the page's transpose writes every index
#      and its arithmetic in the fast spellings, skips zeroing a tile no read can see zeroed, and
#      proves x's index below x's length at launch; a grid-stride sum runs its loop 8 copies at once
#      with the loads ahead; an index the pass cannot follow stays checked; shared memory ends on a
#      whole word (a sub-word atomic updates the word around its element);
#   2. which version launches pick, from the launch's values (an emulated build with
#      -DCN_COOP_FAST_TRACE, whose every operation is checked): fast where every marked operation is
#      proved, checked where a read would pass x's end, a product would pass usize or t - 1 would go
#      below zero without its guard, and then the checked version's guard reports it;
#   3. the judge (tests/coop/fast_judge.py): random regions with launch values in and out of bounds;
#      every launch that says "fast" runs with no failed guard.
# Prints FAIL lines and `N passed, N failed, N skipped`.
set -u
cd "$(dirname "$0")/../.."
CAIRN=${CAIRN:-bin/cairn}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0; skip=0
ok() { if [ "$2" = 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL coop_fast: $1"; fi; }
CC="${CC:-cc} -std=c17 -O1 -DCAIRN_EMULATE -DCN_COOP_FAST_TRACE -Iruntime"

# ---- 1. the device C
if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then
    export PATH="$PATH:/usr/local/cuda/bin"
    "$CAIRN" build bench/dev/coop_kernels.cairn --header --device-target sm_90a --out "$T/bk" >"$T/bk.log" 2>&1
    ok "the bench kernels build for sm_90a: $(head -3 "$T/bk.log" | tr '\n' ' ')" $?
    c="$T/bk/coop_kernels.c"
    tr=$(sed -n '/fn ctranspose/,$p' "$c" | sed -n '/CN_DEV_LANE void cn_coop[0-9]*_block/,/^}/p')
    ok "transpose: x, tile and out are read and written at fast indices" \
        "$([ "$(grep -c 'CN_FAST_IDX' <<<"$tr")" = 4 ] && ! grep -q 'cn_idx_u' <<<"$tr"; echo $?)"
    ok "transpose: its index arithmetic is in the fast spelling" \
        "$(grep -q 'CN_FAST_OP(mul, usize, v_by_[0-9]*, ((size_t)UINT64_C(32))' <<<"$tr" && ! grep -q 'cn_mul_usize\|cn_add_usize' <<<"$tr"; echo $?)"
    ok "transpose: no read can see the tile's zeroing, so it is not zeroed" \
        "$(grep -q 'tile: no read can see its zeroing' <<<"$tr" && ! grep -q 'cn_coopd_zero' <<<"$tr"; echo $?)"
    ok "transpose: the launch proves x's index below x's length" \
        "$(sed -n '/^static void fn_ctranspose/,/^}/p' "$c" | grep -q 'cn_iv_below(cn_iv[0-9]*, cn_rc[0-9]*\.v_x_[0-9]*\.n)'; echo $?)"
    cs=$(sed -n '/^CN_COOP_FAST_TEMPLATE CN_DEV_LANE void cn_coop1_block/,/^}/p' "$c")
    ok "csum: the grid-stride loop runs 8 copies at once, each copy's load first" \
        "$(grep -q '8 iterations at once' <<<"$cs" && [ "$(grep -c 'const float cn_ld[0-9]* = v_x_' <<<"$cs")" = 8 ]; echo $?)"
    ok "every kernel is instantiated for both versions" \
        "$(grep -q 'CN_COOP_KERNEL_FINISH(cn_coop1_k' "$c" && grep -q '^CN_COOP_FAST_TEMPLATE CN_DEV_LANE void cn_coop1_finish' "$c"; echo $?)"
    cat >"$T/unf.cairn" <<'CAIRN'
fn f(n:usize, x:ro<u32>[n]@device, g:usize, out:rw<u32>[g]@device) {
  blocks b in g threads t in 32 {
    let mut j = t;
    j = j * 3;
    if t == 0 { out[b] = x[j]; }
  }
}
CAIRN
    "$CAIRN" build --header --device-target sm_90a --out "$T/unf" "$T/unf.cairn" >"$T/unf.log" 2>&1
    ok "an index the pass cannot follow (a local assigned from itself) stays checked" \
        "$(grep -q 'v_x_[0-9]*\.p\[cn_idx_u' "$T/unf/unf.c" && grep -q 'v_out_[0-9]*\.p\[CN_FAST_IDX' "$T/unf/unf.c"; echo $?)"
    "$CAIRN" build --device-target sm_90a --out "$T/hist" tests/dev/run_coop_atomics_hist.cairn >"$T/hist.log" 2>&1
    ok "shared memory ends on a whole word: u8[2] after u32[64] takes 264 bytes, not 258" \
        "$(grep -q 'unsigned char cn_coop[0-9]*_shared\[264\]' "$T/hist/run_coop_atomics_hist.c"; echo $?)"
else
    echo "SKIP coop_fast: no nvcc (the device C checks)"; skip=$((skip + 1))
fi

# ---- 2. the version a launch picks
run_traced() {   # run_traced NAME FILE: builds emulated with the trace, runs; stderr in $T/NAME.err
    "$CAIRN" build --emulate --device-target sm_90a --out "$T/$1" "$2" >"$T/$1.blog" 2>&1 &&
        $CC -o "$T/$1/t" "$T/$1/$(basename "$2" .cairn).c" -lm -lpthread 2>"$T/$1.cclog" &&
        "$T/$1/t" >"$T/$1.out" 2>"$T/$1.err"
}
run_traced kernels tests/dev/run_coop_kernels.cairn
ok "block max, the transpose and a total with a finish: every launch runs the fast version" \
    "$([ $? = 0 ] && [ "$(grep -c 'the fast version' "$T/kernels.err")" = 4 ] && ! grep -q 'checked version' "$T/kernels.err"; echo $?)"
run_traced guard tests/dev/guard_coop_block.cairn
ok "a read one past x's end: the checked version runs, and its guard reports the read" \
    "$(grep -q 'in fn first: the checked version' "$T/guard.err" && grep -q 'guard_coop_block.cairn:15:12: guard failed: index 63 out of bounds for x of length 63' "$T/guard.err"; echo $?)"
cat >"$T/tr.cairn" <<'CAIRN'
fn transpose(gx:usize, gy:usize, n:usize, out:rw<f32>[n]@device, x:ro<f32>[n]@device) {
  let w = gx * 32;
  let h = gy * 32;
  blocks bx, by in gx, gy threads tx, ty in 32, 8 {
    shared tile:f32[1056] = zeroed;
    for k in 0..4 {
      let r = ty + k * 8;
      tile[r * 33 + tx] = x[(by * 32 + r) * w + bx * 32 + tx];
    }
    barrier;
    for k in 0..4 {
      let r = ty + k * 8;
      out[(bx * 32 + r) * h + by * 32 + tx] = tile[tx * 33 + r];
    }
  }
}
fn main() -> i32 {
  buffer x:f32[4096]@device = zeroed;
  buffer out:f32[4096]@device = zeroed;
  transpose(2, 2, 4096, out, x);
  buffer y:f32[4095]@device = zeroed;
  buffer o2:f32[4095]@device = zeroed;
  transpose(2, 2, 4095, o2, y);
  return 0;
}
CAIRN
run_traced tr "$T/tr.cairn"
ok "the transpose: fast where n is the matrix, checked where it is one short, whose guard reports x[4095]" \
    "$(sed -n 1p "$T/tr.err" | grep -q 'fast version' && sed -n 2p "$T/tr.err" | grep -q 'checked version' &&
       grep -q 'tr.cairn:8:27: guard failed: index 4095 out of bounds for x of length 4095' "$T/tr.err"; echo $?)"
cat >"$T/fact.cairn" <<'CAIRN'
fn f(m:usize, w:usize, n:usize, x:ro<u32>[n]@device, out:rw<u32>[64]@device) {
  blocks b in 2 threads t in 32 {
    let i0 = b * 32;
    if i0 + t / 4 < m && t % 4 + 1 < w { out[b * 32 + t] = x[(i0 + t / 4) * w + t % 4 + 1]; }
  }
}
fn main() -> i32 {
  buffer x:u32[40]@device = zeroed;
  buffer y:u32[39]@device = zeroed;
  buffer out:u32[64]@device = zeroed;
  f(8, 5, 40, x, out);
  f(8, 5, 39, y, out);
  return 0;
}
CAIRN
run_traced fact "$T/fact.cairn"
ok "a read guarded by facts of its row and its last terms: fast where x holds 8 x 5, checked one short, whose guard reports x[39]" \
    "$(sed -n 1p "$T/fact.err" | grep -q 'fast version' && sed -n 2p "$T/fact.err" | grep -q 'checked version' &&
       grep -q 'fact.cairn:4:60: guard failed: index 39 out of bounds for x of length 39' "$T/fact.err"; echo $?)"
cat >"$T/kill.cairn" <<'CAIRN'
fn f(n:usize, x:ro<u32>[n]@device, p:usize, out:rw<u32>[32]@device) {
  blocks b in 1 threads t in 32 {
    let mut v:usize = p;
    if v < n {
      if v + t < n {
        v = v + p;
        out[t] = x[v + t];
      }
    }
  }
}
fn main() -> i32 {
  buffer x:u32[64]@device = zeroed;
  buffer out:u32[32]@device = zeroed;
  f(64, x, 20, out);
  return 0;
}
CAIRN
run_traced kill "$T/kill.cairn"
ok "a fact dies when a name in it is assigned: x[v + t] after v = v + p stays checked, and its guard reports a read past x (x[64] .. x[71], whichever lane comes first)" \
    "$(grep -q 'v_x_[0-9]*\.p\[cn_idx_u' "$T/kill/kill.c" && ! grep -q 'v_x_[0-9]*\.p\[CN_FAST_IDX' "$T/kill/kill.c" &&
       grep -qE 'kill.cairn:7:18: guard failed: index (6[4-9]|7[01]) out of bounds for x of length 64' "$T/kill.err"; echo $?)"
cat >"$T/ov.cairn" <<'CAIRN'
fn f(n:usize, x:ro<u32>[n]@device, p:usize, g:usize, out:rw<u32>[g]@device) {
  blocks b in g threads t in 32 {
    if t == 0 { out[b] = x[b * p % n]; }
  }
}
fn main() -> i32 {
  buffer x:u32[64]@device = zeroed;
  buffer out:u32[3]@device = zeroed;
  f(64, x, 5, 3, out);
  f(64, x, 9223372036854775808, 3, out);
  return 0;
}
CAIRN
run_traced ov "$T/ov.cairn"
ok "b * p: fast for p = 5; checked for p = 2^63, where block 2's product passes usize and its guard says so" \
    "$(sed -n 1p "$T/ov.err" | grep -q 'fast version' && sed -n 2p "$T/ov.err" | grep -q 'checked version' &&
       grep -q 'ov.cairn:3:28: guard failed: integer overflow: 2 \* 9223372036854775808 does not fit in usize' "$T/ov.err"; echo $?)"
cat >"$T/sub.cairn" <<'CAIRN'
fn f(x:ro<u32>[32]@device, out:rw<u32>[32]@device, guarded:bool) {
  blocks b in 1 threads t in 32 {
    if guarded {
      if t >= 1 { out[t] = x[t - 1]; }
    } else {
      out[t] = x[t - 1];
    }
  }
}
fn main() -> i32 {
  buffer x:u32[32]@device = zeroed;
  buffer out:u32[32]@device = zeroed;
  f(x, out, true);
  return 0;
}
CAIRN
run_traced sub "$T/sub.cairn"
ok "t - 1: the region runs checked, since one path subtracts without t >= 1 (and the guarded path runs clean)" \
    "$(grep -q 'checked version' "$T/sub.err" && ! grep -q 'guard failed' "$T/sub.err"; echo $?)"
sed 's/      out\[t\] = x\[t - 1\];/      out[t] = x[t];/' "$T/sub.cairn" >"$T/sub2.cairn"
run_traced sub2 "$T/sub2.cairn"
ok "t - 1 under t >= 1 alone: the condition narrows t, and the launch is fast" \
    "$(grep -q 'fast version' "$T/sub2.err"; echo $?)"

# d17's pipelined sums at depth 2 (a generic's D, min): the fast version where the counts fit, the
# checked one where r * cols passes usize; the index arithmetic of the fill in the fast spelling
cat >"$T/pp.cairn" <<'CAIRN'
fn sums[D:nat](rows:usize, cols:usize, n:usize, x:ro<u64>[n]@device, m:usize, out:rw<u64>[m]@device) {
  let steps = (cols + 255) / 256;
  blocks r in rows threads t in 256 {
    pipeline tiles:u64[256] depth D;
    for k in 0..D - 1 {
      let start = min(k * 256, cols);
      tiles.fill(x, r * cols + start, min(256, cols - start));
    }
    let mut sum:u64 = 0;
    for k in 0..steps {
      let ahead = min((k + D - 1) * 256, cols);
      tiles.fill(x, r * cols + ahead, min(256, cols - ahead));
      tiles.wait();
      sum += tiles[t];
      tiles.release();
      barrier;
    }
    out[r * 256 + t] = sum;
  }
}
fn main() -> i32 {
  buffer x:u64[3000]@device = zeroed;
  buffer out:u64[768]@device = zeroed;
  sums[2](3, 1000, 3000, x, 768, out);
  sums[2](3, 6148914691236517206, 3000, x, 768, out);
  return 0;
}
CAIRN
run_traced pp "$T/pp.cairn"
ok "pipelined sums: the fast version where r * cols fits, the checked one where it passes usize" \
    "$([ "$(grep -c 'the fast version' "$T/pp.err")" = 1 ] && [ "$(grep -c 'the checked version' "$T/pp.err")" = 1 ]; echo $?)"
ok "pipelined sums: (k + D - 1) * 256, r * cols + ahead and cols - ahead in the fast spelling" \
    "$(grep -q 'CN_FAST_OP(mul, usize, CN_FAST_OP(sub, usize, CN_FAST_OP(add, usize, v_k_[0-9]*, ((size_t)UINT64_C(2))' "$T/pp/pp.c" &&
       grep -q 'CN_FAST_OP(add, usize, CN_FAST_OP(mul, usize, v_r_[0-9]*, v_cols_[0-9]*' "$T/pp/pp.c" &&
       grep -q 'CN_FAST_OP(sub, usize, v_cols_[0-9]*, v_ahead_' "$T/pp/pp.c"; echo $?)"

# ---- 3. the judge
mkdir -p "$T/judge"
python3 tests/coop/fast_judge.py "$CAIRN" "${FAST_SEED:-1}" "${FAST_COUNT:-40}" "$T/judge" >"$T/judge.log" 2>&1
ok "the fast judge: $(grep -m3 FAIL "$T/judge.log" | tr '\n' ' ')" $?
grep '^fast judge' "$T/judge.log"

echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
