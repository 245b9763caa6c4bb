#!/usr/bin/env bash
# A device compaction counts in 32 bits below 2^32 indices and in 64 past it (runtime/cairn_devcoll.h,
# CN_DEV_COUNT32_MAX). The 64-bit counts are otherwise reached only past 16 GB of i32, so this builds
# run_scan_tiles.cairn's emitted C with the threshold at 0, emulated under cc, and holds its output
# to the file's expectations; tests/device/run.sh does the same under nvcc on the GPU. Then the
# emitted code's shape: one CN_DEV_SCAN a scan, two CN_DEV_COMPACT a compaction (its 32- and 64-bit
# counts), partials of the value's own type for an i32 and an i64 scan + with each stored prefix's
# step checked (ACC_WRAP, cn_par_step_T), and the exact sum's macros for reduce + parallel over floats
# (the ..V forms where the term reads a view as it is).
# Prints `FAIL ...` lines and `N passed, N failed, 0 skipped`.
set -u
cd "$(dirname "$0")/../.."
CAIRN=${CAIRN:-bin/cairn}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok() { if [ "$2" = 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL collectors wide: $1"; fi; }
F=tests/dev/run_scan_tiles.cairn
"$CAIRN" build --emulate --device-target sm_90a --out "$T/b" "$F" >/dev/null 2>"$T/err"
ok "run_scan_tiles builds emulated" "$?"
C="$T/b/run_scan_tiles.c"
cc -std=c17 -O2 -ffp-contract=off -fno-fast-math -fno-strict-aliasing -w -DCAIRN_EMULATE -DCN_DEV_COUNT32_MAX=0 \
    -Iruntime -o "$T/wide" "$C" -lm -pthread 2>"$T/cc.err"
ok "its C builds with CN_DEV_COUNT32_MAX=0" "$?"
awk '!/^\/\//{exit} {print}' "$F" | sed -n 's|^// stdout: \{0,1\}||p' >"$T/want"
"$T/wide" >"$T/got" 2>"$T/run.err"
ok "with 64-bit counts it exits 0" "$?"
ok "with 64-bit counts it prints what the file expects" "$(cmp -s "$T/want" "$T/got"; echo $?)"
ok "64-bit counts were taken (the 32-bit run is a branch on the extent)" \
    "$(grep -q 'CN_DEV_COUNT32_MAX' "$C"; echo $?)"
ok "a scan is one CN_DEV_SCAN; three compactions six CN_DEV_COMPACT (32- and 64-bit counts)" \
    "$([ "$(grep -c '^CN_DEV_SCAN(cn_dscan' "$C")" = 5 ] && [ "$(grep -c '^CN_DEV_COMPACT(cn_dcompact' "$C")" = 6 ]; echo $?)"
ok "an i32 scan + keeps 32-bit partials" "$(grep -q '^CN_DEV_SCAN(cn_dscan[0-9]*_k, struct cn_dscan[0-9]*, int32_t,' "$C"; echo $?)"
ok "an i64 scan + keeps 64-bit partials" "$(grep -q '^CN_DEV_SCAN(cn_dscan[0-9]*_k, struct cn_dscan[0-9]*, int64_t,' "$C"; echo $?)"
ok "no scan keeps 128-bit partials" "$(! grep -q '^CN_DEV_SCAN(cn_dscan[0-9]*_k, struct cn_dscan[0-9]*, cn_i128,' "$C"; echo $?)"
ok "each stored prefix of a + scan checks its step (i32 and i64)" \
    "$(grep -q 'cn_par_step_i32(\*cn_before, \*cn_after' "$C" && grep -q 'cn_par_step_i64(\*cn_before, \*cn_after' "$C"; echo $?)"
cat >"$T/s.cairn" <<'SRC'
fn s32(n:usize, x:ro<f32>[n]@device, t:rw<f32>[1]@device) { reduce + t[0] parallel i in n yield x[i]; }
fn s64(n:usize, x:ro<f64>[n]@device) -> f64 { return reduce + parallel i in n yield x[i] * 2.0; }
fn p64(n:usize, x:ro<f64>[n]@device) -> f64 { return reduce + parallel i in n yield x[i]; }
fn r32(n:usize, x:ro<f32>[n]@device) -> f32 { return reduce + parallel i in n yield x[n - 1 - i]; }
fn o32(n:usize, x:ro<f32>[n]@device, t:rw<f32>[1]@device) { reduce + t[0] for i in n yield x[i]; }
SRC
"$CAIRN" build --emulate --device-target sm_90a --header --out "$T/s" "$T/s.cairn" >/dev/null 2>"$T/err"
ok "a library of device float sums builds" "$?"
ok "reduce + parallel over f32 and f64 is the exact sum" \
    "$(grep -q '^CN_DEV_EXACT_SUM32' "$T/s/s.c" && grep -q '^CN_DEV_EXACT_SUM64' "$T/s/s.c"; echo $?)"
# A term that reads a view as it is (x[i] at the parallel's own index) names the view's data for the
# 16-byte stream (CN_DSUM_VEC): s32 and p64; x[i] * 2.0 and x[n - 1 - i] do not.
ok "plain reads of f32 and f64 views give the ..V forms with a _base, and only they" \
    "$([ "$(grep -c '^CN_DEV_EXACT_SUM32V(.*_base)$' "$T/s/s.c")" = 1 ] && [ "$(grep -c '^CN_DEV_EXACT_SUM64V(.*_base)$' "$T/s/s.c")" = 1 ] &&
       [ "$(grep -c '^CN_DEV_EXACT_SUM32(' "$T/s/s.c")" = 1 ] && [ "$(grep -c '^CN_DEV_EXACT_SUM64(' "$T/s/s.c")" = 1 ] &&
       [ "$(grep -c '^CN_DEV_LANE void cn_dxsum[0-9]*_base(' "$T/s/s.c")" = 2 ]; echo $?)"
ok "reduce + for over f32 keeps its tree of f32 partials" \
    "$(grep -q '^CN_DEV_FOLD_PASS(cn_dreduce[0-9]*_l1_k, struct cn_dreduce[0-9]*, float,' "$T/s/s.c"; echo $?)"
echo "$pass passed, $fail failed, 0 skipped"
[ "$fail" = 0 ]
