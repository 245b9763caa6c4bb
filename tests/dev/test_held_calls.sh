#!/usr/bin/env bash
# devices.md, "One wait, or none": a call of a function that ran device work is a device operation
# of its caller. An unheld caller (its row has another way to observe: I/O here) waits as soon as
# the call returns (tests/dev/guard_held_return.cairn runs it); a held caller does not, and its own
# observation or return covers the callee's work; a cq_ entry never waits.
# Prints `FAIL ...` lines and `N passed, N failed, 0 skipped`.
set -u
cd "$(dirname "$0")/../.."
CAIRN=${CAIRN:-bin/cairn}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok() { if [ "$2" = 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL held calls: $1"; fi; }
cat >"$T/hc.cairn" <<'SRC'
fn g(n:usize, x:rw<f32>[n]@device) {
  parallel i in n { x[i] = x[i] * 2.0; }
  parallel i in n { x[i] = x[i] + 1.0; }
}
fn held(n:usize, x:rw<f32>[n]@device) {
  g(n, x);
  parallel i in n { x[i] = x[i] - 1.0; }
}
fn loud(n:usize, x:rw<f32>[n]@device) {
  g(n, x);
  println("called g");
}
fn twice(x:f32) -> f32 = 2.0 * x;
fn loud_host(n:usize, x:rw<f32>[n]@device) -> f32 {
  let y = twice(3.0);
  println(y);
  return y;
}
SRC
"$CAIRN" build --header --emulate --device-target sm_90a --out "$T/b" "$T/hc.cairn" >/dev/null 2>"$T/err"
ok "library builds" "$?"
C="$T/b/hc.c"
body() { sed -n "/^static [a-z_0-9]* fn_$1(/,/^}/p" "$C"; }
ok "an unheld caller waits right after the call of g" "$(body loud | grep -A1 'fn_g' | grep -q 'cn_exec_observe(cn_exec_get());'; echo $?)"
ok "a held caller does not wait after it" "$(body held | grep -q cn_exec_observe; [ $? = 1 ]; echo $?)"
ok "held keeps its cq_ entry" "$(grep -q '^void cq_held(' "$T/b/hc.h"; echo $?)"
ok "a call that runs no device work adds no wait" "$(body loud_host | grep -q cn_exec_observe; [ $? = 1 ]; echo $?)"
echo "$pass passed, $fail failed, 0 skipped"
[ "$fail" -eq 0 ]
