#!/usr/bin/env bash
# The manifest (cairn.toml) as build, run and test read it (issue 11, items 6 and 8):
#   - "[build] device_target names the device target when --device-target is not given", for
#     `cairn test DIR --emulate` as for `cairn run DIR --emulate`;
#   - vendored CUDA in the manifest's [foreign] table is refused with E-EMULATE under --emulate
#     ("only nvcc builds it and only a device runs it"), and E-UNSUPPORTED without it (not built yet);
#   - an unknown table ([bogus]) or key is refused by name (exit 2), never silently ignored.
# Prints `FAIL ...` lines and `N passed, N failed, 0 skipped`.
set -u
cd "$(dirname "$0")/../.."
CAIRN=${CAIRN:-bin/cairn}
case "$CAIRN" in /*) ;; *) CAIRN=$PWD/$CAIRN ;; esac
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok() { if [ "$2" = 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL manifest: $1"; fi; }
status() { "$@" >"$T/out" 2>"$T/err"; echo $?; }

mkdir -p "$T/p"
cat >"$T/p/prog.cairn" <<'SRC'
fn scale(n:usize, x:rw<u32>[n]@device) { parallel i in n { x[i] = x[i] * 3 + u32(i); } }
fn main() -> i32 { return 0; }
test fn device_scale() {
  let n:usize = 37;
  buffer h:u32[n] = zeroed;
  for i in 0..n { h[i] = u32(i) * 7 + 1; }
  buffer d:u32[n]@device = zeroed;
  transfer(d, h);
  scale(n, d);
  transfer(h, d);
  for i in 0..n { assert(h[i] == (u32(i) * 7 + 1) * 3 + u32(i)); }
}
SRC
cd "$T"
printf '[build]\nsource = "prog.cairn"\ndevice_target = "sm_90a"\n' >p/cairn.toml
ok "test DIR --emulate takes [build] device_target (it gave E-TARGET)" "$([ "$(status "$CAIRN" test --emulate p)" = 0 ] &&
    grep -q 'device_scale ... ok' out && grep -q '^1 passed, 0 failed' out; echo $?)"
ok "run DIR --emulate takes it too" "$([ "$(status "$CAIRN" run --emulate p)" = 0 ]; echo $?)"
ok "without a manifest target, test --emulate of the file is E-TARGET" "$([ "$(status "$CAIRN" test --emulate p/prog.cairn)" = 1 ] &&
    grep -q 'E-TARGET' err; echo $?)"

printf '[build]\nsource = "prog.cairn"\ndevice_target = "sm_90a"\n\n[foreign]\nsources = ["k.cu"]\n' >p/cairn.toml
for cmd in build run test; do
    ok "$cmd --emulate with [foreign] is E-EMULATE at its line" "$([ "$(status "$CAIRN" $cmd --emulate p)" = 1 ] &&
        grep -q '^p/cairn.toml:5:1: error\[E-EMULATE\]: .*\[foreign\]' err && grep -q '^  help: ' err; echo $?)"
done
rm -rf build
ok "build with [foreign], no --emulate: E-UNSUPPORTED (not built yet), never ignored" "$([ "$(status "$CAIRN" build p)" = 1 ] &&
    grep -q 'E-UNSUPPORTED' err && [ ! -e build/prog/prog ]; echo $?)"

printf '[build]\nsource = "prog.cairn"\n[bogus]\n' >p/cairn.toml
for cmd in build run; do
    ok "$cmd: an empty unknown table is refused by name" "$([ "$(status "$CAIRN" $cmd --emulate --device-target sm_90a p)" = 2 ] &&
        grep -q '^p/cairn.toml:3:1: error: unknown table \[bogus\]' err; echo $?)"
done
ok "test DIR: the unknown table too" "$([ "$(status "$CAIRN" test --emulate p)" = 2 ] && grep -q 'unknown table \[bogus\]' err; echo $?)"
printf '[build]\nsource = "prog.cairn"\ndevice_targt = "sm_90a"\n' >p/cairn.toml
ok "an unknown key in [build] is refused by name" "$([ "$(status "$CAIRN" build p)" = 2 ] &&
    grep -q '^p/cairn.toml:3:1: error: unknown key device_targt in \[build\]' err; echo $?)"
printf 'source = "prog.cairn"\n[build]\n' >p/cairn.toml
ok "a key before any table is refused" "$([ "$(status "$CAIRN" build p)" = 2 ] && grep -q 'cairn.toml:1:1: .*before any table' err; echo $?)"
printf '[build]\nname = "x"\nkind = "exe"\nsource = "prog.cairn"\ndevice_target = "sm_90a"\n' >p/cairn.toml
ok "near miss: every [build] key is accepted" "$([ "$(status "$CAIRN" build --emulate p)" = 0 ] && [ -x build/x/x ]; echo $?)"
echo "$pass passed, $fail failed, 0 skipped"
[ "$fail" -eq 0 ]
