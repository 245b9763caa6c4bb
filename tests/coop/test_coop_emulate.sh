#!/usr/bin/env bash
# Cooperative regions on the emulated machine (issue 13; runtime/cairn_coopdev.h's CN_DEV_EMULATED
# section on runtime/cairn_coop.h's teams; src/emit_coop.c writes each device region's body a second
# time, in the host's lowering, under `#if CN_DEV_EMULATED`):
#   1. the spec's cooperative examples d09-d16 (tests/spec/, as they are): each refused one is refused
#      under --emulate with the spec's code at the spec's line, its views on the host and on the
#      device; each accepted one runs with its views @device under --emulate (a driver fills inputs
#      that expose wrong indexing, runs it, compares with plain loops) and as it is on host threads
#      (the same driver without @device), and the two print the same lines, bit for bit;
#   2. the emulated build's C holds a region twice: CN_COOP_TEAMS (host threads) under
#      CN_DEV_EMULATED, the CUDA kernel otherwise; the launch is device work (cn_exec_coop_launch);
#   3. a guard that fails in a region's block or finish traps as an emulated lane's does: the same
#      words as tests/dev/guard_lane_index.cairn's ("a lane of the ... trapped; the wait on its stream
#      reports it"), exit 134, and nothing queued after it runs (the program's next line is not
#      printed); a region with a finish over an empty grid runs the finish once;
#   4. an emulated library's cf_ and cq_ entries run regions (a finish, an empty grid), and a region's
#      trap under cq_ is reported by the next entry, as other emulated device work's is.
# Prints FAIL lines and `N passed, N failed, N skipped`.
set -u
cd "$(dirname "$0")/../.."
CAIRN=${CAIRN:-bin/cairn}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() {   # ok NAME STATUS
    if [ "$2" = 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL coop_emulate: $1"; fi
}
EMU="--emulate --device-target sm_90a"

# The spec's function with every view parameter on the device.
on_device() { sed '/^fn /s/\(r[ow]<[a-z0-9]*>\[[^]]*\]\)/\1@device/g' "$1"; }
# A driver: lines ending in //D belong to the device form, //H to the host form.
dev_form() { sed -e '/\/\/H$/d' -e 's| *//D$||'; }
host_form() { sed -e '/\/\/D$/d' -e 's| *//H$||' -e 's/@device//g'; }

# ---- 1. the refused examples: the spec's code and line, host and device views, under --emulate
for f in tests/spec/d1[0-6]-*.cairn tests/spec/d09-*.cairn; do
    expect=$(sed -n 's|^// expect: *||p' "$f" | head -1)
    case "$expect" in refuse*) ;; *) continue ;; esac
    code=$(echo "$expect" | awk '{print $2}')
    n=$(basename "$f" .cairn)
    # the spec's line: as the plain check reports it
    "$CAIRN" check --json "$f" >/dev/null 2>"$T/$n.plain"
    line=$(grep -o "\"code\": \"$code\", \"file\": \"[^\"]*\", \"line\": [0-9]*" "$T/$n.plain" | head -1 | sed 's/.*"line": //')
    ok "$n: refused with $code without --emulate (line ${line:-none})" "$([ -n "$line" ]; echo $?)"
    cp "$f" "$T/$n.cairn"
    on_device "$f" >"$T/${n}_dev.cairn"
    for v in "$n" "${n}_dev"; do
        "$CAIRN" check --json $EMU "$T/$v.cairn" >/dev/null 2>"$T/$v.err"
        rc=$?
        ok "$v: --emulate refuses with $code at line $line (exit $rc)" \
            "$([ $rc = 1 ] && grep -q "\"code\": \"$code\", \"file\": \"[^\"]*\", \"line\": $line," "$T/$v.err"; echo $?)"
    done
done

# ---- 1. the accepted examples, with drivers
cat >"$T/d09.main" <<'EOF'
fn main() -> i32 {
  let n:usize = 1000;
  let g:usize = 4;
  buffer hx:u64[1000] = zeroed;
  for i in 0..n { hx[i] = u64(i * 7919 % 1009 + 3 * i); }
  buffer hout:u64[4] = zeroed;
  buffer x:u64[1000]@device = zeroed;   //D
  buffer out:u64[4]@device = zeroed;    //D
  transfer(x, hx);                      //D
  block_sums(n, x, g, out);             //D
  transfer(hout, out);                  //D
  block_sums(n, hx, g, hout);           //H
  let mut bad:i32 = 0;
  for b in 0..g {
    let mut s:u64 = 0;
    for t in 0..256 { let i = b * 256 + t; if i < n { s = s + hx[i]; } }
    if s != hout[b] { bad = bad + 1; }
  }
  println("block sums", hout[0], hout[1], hout[2], hout[3]);
  if bad == 0 { println("plain loops agree"); }
  return bad;
}
EOF
cat >"$T/d13.main" <<'EOF'
fn main() -> i32 {
  let n:usize = 1000;
  let g:usize = 4;
  buffer hx:u32[1000] = zeroed;
  for i in 0..n { hx[i] = u32((i * 7919 + 13) % 100003); }
  buffer hout:u32[4] = zeroed;
  buffer x:u32[1000]@device = zeroed;   //D
  buffer out:u32[4]@device = zeroed;    //D
  transfer(x, hx);                      //D
  block_max(n, x, g, out);              //D
  transfer(hout, out);                  //D
  block_max(n, hx, g, hout);            //H
  let mut bad:i32 = 0;
  for b in 0..g {
    let mut m:u32 = 0;
    for t in 0..256 { let i = b * 256 + t; if i < n && hx[i] > m { m = hx[i]; } }
    if m != hout[b] { bad = bad + 1; }
  }
  println("block max", hout[0], hout[1], hout[2], hout[3]);
  if bad == 0 { println("plain loops agree"); }
  return bad;
}
EOF
cat >"$T/d15.main" <<'EOF'
fn main() -> i32 {
  let gx:usize = 3;
  let gy:usize = 2;
  let w = gx * 32;
  let h = gy * 32;
  let n = w * h;
  buffer hx:f32[6144] = zeroed;
  for i in 0..n { hx[i] = f32(i % 251) * 0.5 + 0.25; }
  buffer hout:f32[6144] = zeroed;
  buffer x:f32[6144]@device = zeroed;   //D
  buffer out:f32[6144]@device = zeroed; //D
  transfer(x, hx);                      //D
  transpose(gx, gy, n, out, x);         //D
  transfer(hout, out);                  //D
  transpose(gx, gy, n, hout, hx);       //H
  let mut bad:i32 = 0;
  let mut sum:u64 = 0;
  for r in 0..h {
    for c in 0..w {
      if to_bits(hout[c * h + r]) != to_bits(hx[r * w + c]) { bad = bad + 1; }
      sum = add_wrap(sum, u64(to_bits(hout[c * h + r])) * u64(r * w + c + 1));
    }
  }
  println("transpose", to_bits(hout[1]), to_bits(hout[n - 1]), sum);
  if bad == 0 { println("plain loops agree"); }
  return bad;
}
EOF
cat >"$T/d16.main" <<'EOF'
fn main() -> i32 {
  let n:usize = 5000;
  buffer hx:u64[5000] = zeroed;
  for i in 0..n { hx[i] = u64(i * i % 9973) * 1000003 + u64(i); }
  buffer hpart:u64[3] = zeroed;
  buffer hout:u64[1] = zeroed;
  buffer hnone:u64[0] = zeroed;
  buffer hempty:u64[1] = zeroed;
  hempty[0] = 77;
  buffer x:u64[5000]@device = zeroed;   //D
  buffer part:u64[3]@device = zeroed;   //D
  buffer out:u64[1]@device = zeroed;    //D
  buffer none:u64[0]@device = zeroed;   //D
  buffer empty:u64[1]@device = zeroed;  //D
  transfer(x, hx);                      //D
  transfer(empty, hempty);              //D
  total(n, x, 3, part, out);            //D
  total(n, x, 0, none, empty);          //D
  transfer(hout, out);                  //D
  transfer(hpart, part);                //D
  transfer(hempty, empty);              //D
  total(n, hx, 3, hpart, hout);         //H
  total(n, hx, 0, hnone, hempty);       //H
  let mut s:u64 = 0;
  for i in 0..n { s = add_wrap(s, hx[i]); }
  let mut p:u64 = 0;
  for k in 0..3 { p = add_wrap(p, hpart[k]); }
  println("total", hout[0], "partials", hpart[0], hpart[1], hpart[2], "empty grid", hempty[0]);
  if s == hout[0] && p == s && hempty[0] == 0 { println("plain loops agree"); }
  return 0;
}
EOF
for f in tests/spec/d09-*.cairn tests/spec/d1[0-6]-*.cairn; do
    sed -n 's|^// expect: *||p' "$f" | head -1 | grep -q '^accept' || continue
    n=$(basename "$f" .cairn)
    k=${n%%-*}
    if [ ! -f "$T/$k.main" ]; then ok "$n: accepted, but this script has no driver for it" 1; continue; fi
    { on_device "$f"; dev_form <"$T/$k.main"; } >"$T/${n}_emu.cairn"
    { cat "$f"; host_form <"$T/$k.main"; } >"$T/${n}_host.cairn"
    "$CAIRN" run $EMU --out "$T/${n}_emu.build" "$T/${n}_emu.cairn" >"$T/$n.emu.out" 2>"$T/$n.emu.err"
    rc=$?
    ok "$n emulated: exit 0 (got $rc: $(grep -v '^cairn' "$T/$n.emu.err" | head -2 | tr '\n' ' '))" "$([ $rc = 0 ]; echo $?)"
    "$CAIRN" run --out "$T/${n}_host.build" "$T/${n}_host.cairn" >"$T/$n.host.out" 2>"$T/$n.host.err"
    rc=$?
    ok "$n on host threads: exit 0 (got $rc: $(grep -v '^cairn' "$T/$n.host.err" | head -2 | tr '\n' ' '))" \
        "$([ $rc = 0 ]; echo $?)"
    ok "$n emulated: agrees with plain loops" "$(grep -qx 'plain loops agree' "$T/$n.emu.out"; echo $?)"
    ok "$n emulated and on host threads print the same ($(diff "$T/$n.host.out" "$T/$n.emu.out" | head -3 | tr '\n' ' '))" \
        "$(cmp -s "$T/$n.host.out" "$T/$n.emu.out"; echo $?)"
    # ---- 2. which lowering ran: teams under CN_DEV_EMULATED launched as device work; the host's cn_coop_run
    ce="$T/${n}_emu.build/${n}_emu.c"
    regions=$(grep -c '^ *blocks ' "$f")
    ok "$n emulated: one CN_COOP_TEAMS per region under CN_DEV_EMULATED, launched on the execution context" \
        "$([ "$(grep -c '^CN_COOP_TEAMS' "$ce")" = "$regions" ] &&
           [ "$(grep -c 'cn_exec_coop_launch(cn_exec_get(), ' "$ce")" = "$regions" ] &&
           grep -q '"machine": "emulated"' "$T/${n}_emu.build/${n}_emu.receipt.json" &&
           ! grep -q 'cn_coop_run(' "$ce"; echo $?)"
    ok "$n on host threads: cn_coop_run, no device work" \
        "$(grep -q 'cn_coop_run(' "$T/${n}_host.build/${n}_host.c" && ! grep -q 'cn_exec_coop_launch' "$T/${n}_host.build/${n}_host.c"; echo $?)"
done

# ---- 3. a guard in an emulated region traps as an emulated lane does
"$CAIRN" run $EMU --out "$T/lane" tests/dev/guard_lane_index.cairn >"$T/lane.out" 2>"$T/lane.err"
lane_rc=$?
for g in guard_coop_block guard_coop_finish guard_coop_finish_empty; do
    "$CAIRN" run $EMU --out "$T/$g" "tests/dev/$g.cairn" >"$T/$g.out" 2>"$T/$g.err"
    rc=$?
    ok "$g: exit 134 as an emulated lane's trap ($lane_rc) (got $rc)" "$([ $rc = 134 ] && [ $lane_rc = 134 ]; echo $?)"
    ok "$g: the guard's line, then the emulated machine's words for a trapped lane" \
        "$(grep -A1 "^tests/dev/$g.cairn:[0-9]*:[0-9]*: guard failed: index " "$T/$g.err" |
           grep -q "^cairn: device (emulated machine): a lane of the cooperative region at tests/dev/$g.cairn:12:3 in fn [a-z]* trapped; the wait on its stream reports it$" &&
           grep -q "^cairn: device (emulated machine): a lane of the parallel region at .* trapped; the wait on its stream reports it$" "$T/lane.err"; echo $?)"
    ok "$g: the trap poisons the machine: only the line before the region is printed" \
        "$([ "$(cat "$T/$g.out")" = before ]; echo $?)"
done
# ---- 4. cf_ and cq_ entries of an emulated library: a region is device work like any other
{ sed -n '/^fn total/,$p' tests/spec/d16-total-finish.cairn | on_device /dev/stdin
  cat <<'EOF'
fn bad(g:usize, out:rw<u8>[g]@device) {
  blocks b in g threads t in 32 {
    if t == 0 { out[b] = u8(b) * 16; }
  }
}
EOF
} >"$T/rl.cairn"
"$CAIRN" build --header $EMU --out "$T/rl" "$T/rl.cairn" >/dev/null 2>"$T/rl.err"
ok "an emulated library with regions builds ($(head -c 200 "$T/rl.err"))" "$?"
cat >"$T/rl_main.c" <<'EOF'
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "rl.h"
int main(int argc, char **argv)
{
    enum { N = 5000, G = 3 };
    uint64_t *x = malloc(N * sizeof *x), part[G], out[1] = {77}, want = 0;
    unsigned char small[20] = {0};
    (void)argv;
    for (int i = 0; i < N; i++) {
        x[i] = (uint64_t)i * 2654435761u + 7;
        want += x[i];
    }
    cf_total(N, x, G, part, out);
    printf("cf total %s\n", out[0] == want && part[0] + part[1] + part[2] == want ? "ok" : "WRONG");
    out[0] = 77;
    cq_total(NULL, N, x, 0, NULL, out);                /* an empty grid: the finish writes 0 */
    printf("cq empty grid %s\n", out[0] == 0 ? "ok" : "WRONG");
    fflush(stdout);
    if (argc > 1) {
        cq_bad(NULL, 17, small);                       /* only block 16 traps (17 would race it) */
        fprintf(stderr, "cq_bad returned\n");
        cf_total(N, x, G, part, out);                  /* the next entry aborts */
        fprintf(stderr, "cf_total returned\n");
    }
    free(x);
    return 0;
}
EOF
${CC:-cc} -std=c17 -I"$T/rl" -o "$T/rl_main" "$T/rl_main.c" "$T/rl/librl.a" -lm -pthread 2>"$T/rl_cc.err"
ok "a C caller links ($(head -c 200 "$T/rl_cc.err"))" "$?"
"$T/rl_main" >"$T/rl1.out" 2>"$T/rl1.err"; rc=$?
ok "cf_ runs a region with a finish, cq_ one over an empty grid (exit $rc: $(tr '\n' ' ' <"$T/rl1.out"))" \
    "$([ $rc = 0 ] && [ "$(cat "$T/rl1.out")" = "$(printf 'cf total ok\ncq empty grid ok')" ]; echo $?)"
("$T/rl_main" trap >"$T/rl2.out" 2>"$T/rl2.err"; exit $?) 2>/dev/null; rc=$?
ok "a region's trap under cq_ returns, and the next entry aborts naming it (exit $rc)" \
    "$([ $rc = 134 ] && grep -q '^cq_bad returned' "$T/rl2.err" && ! grep -q 'cf_total returned' "$T/rl2.err" &&
       grep -q 'rl.cairn:[0-9]*:[0-9]*: guard failed: integer overflow: 16 \* 16 does not fit in u8' "$T/rl2.err" &&
       grep -q 'a lane of the cooperative region at .*rl.cairn:[0-9]*:3 in fn bad trapped in work an earlier call queued.*this CAIRN entry reports it' "$T/rl2.err"; echo $?)"

echo "$pass passed, $fail failed, 0 skipped"
[ "$fail" = 0 ]
