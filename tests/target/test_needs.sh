#!/usr/bin/env bash
# What a program needs of its device target comes from its typed tree (src/needs.c), not from the
# words of its text: names that look like fragments (WmmaTile, MmaA) need nothing; bf16 is needed
# where device code computes with it -- a device lane, a helper a lane reaches, a kernel --
# and refused on sm_75 at that place (E-TARGET-FEATURE, line and column), and never for host code.
# The receipt's "needed" lists exactly that. Fragment types' needs are tested in tests/unit/test_frag.c.
# Prints one line per failed check and `N passed, N failed, 0 skipped`.
set -u
cd "$(dirname "$0")/../.."
CAIRN=${CAIRN:-bin/cairn}
CAIRN=$(cd "$(dirname "$CAIRN")" && pwd)/$(basename "$CAIRN")
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0
ok() {   # ok NAME CONDITION-STATUS
    if [ "$2" = 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL needs: $1"; fi
}
status() { "$@" >"$T/out" 2>"$T/err"; echo $?; }
at() { grep -q "\"code\": \"$1\", \"file\": \"[^\"]*\", \"line\": $2, \"column\": $3," "$T/err"; }
needed() { python3 - "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))["device_target"]
sys.exit(0 if d["needed"] == json.loads(sys.argv[2]) else 1)
PY
}
# nvcc answers every target (no real toolkit needed); ptxas absent, so the table gives the features.
mkdir -p "$T/bin"
cat >"$T/bin/nvcc" <<'EOF2'
#!/bin/sh
case "$1" in
--version) echo "Cuda compilation tools, release 13.9, V13.9.1" ;;
--list-gpu-code) for c in 75 80 90; do echo sm_$c; done ;;
esac
exit 0
EOF2
chmod +x "$T/bin/nvcc"
P="$T/bin:/usr/bin:/bin"
cd "$T"

cat >names.cairn <<'EOF2'
fn WmmaTile(x:f32) -> f32 { let MmaA:f32 = x * 2.0; return MmaA; }
fn TmemAcc_like(n:usize, y:rw<f32>[n]@device) { parallel i in n { y[i] = 1.0; } }
fn main() -> i32 { println(WmmaTile(1.5)); return 0; }
EOF2
ok "names like WmmaTile, MmaA, TmemAcc_like need nothing (the text scan said wmma, mma_sync)" "$([ "$(PATH=$P status "$CAIRN" build --emulate --device-target sm_80 --out b1 names.cairn)" = 0 ] &&
    needed b1/names.receipt.json '[]'; echo $?)"

cat >helper.cairn <<'EOF2'
fn half(x:f32) -> f32 {
    let h:bf16 = bf16(x / 2.0);
    return f32(h);
}
fn halve(n:usize, x:rw<f32>[n]@device) { parallel i in n { x[i] = half(x[i]); } }
fn main() -> i32 { return 0; }
EOF2
ok "bf16 in a helper a device lane reaches: E-TARGET-FEATURE on sm_75 at the helper's line" "$([ "$(PATH=$P status "$CAIRN" check --json --device-target sm_75 helper.cairn)" = 1 ] &&
    at E-TARGET-FEATURE 2 18 && [ "$(grep -c E-TARGET-FEATURE "$T/err")" = 1 ]; echo $?)"
ok "... and on sm_80 the receipt needs bf16" "$([ "$(PATH=$P status "$CAIRN" build --emulate --device-target sm_80 --out b2 helper.cairn)" = 0 ] &&
    needed b2/helper.receipt.json '["bf16"]'; echo $?)"

cat >kparam.cairn <<'EOF2'
kernel fn widen(n:usize, x:ro<bf16>[n]@device, y:rw<f32>[n]@device) { parallel i in n { y[i] = f32(x[i]); } }
fn main() -> i32 { return 0; }
EOF2
ok "a kernel reading its bf16 view: E-TARGET-FEATURE on sm_75 at the read" "$([ "$(PATH=$P status "$CAIRN" check --json --device-target sm_75 kparam.cairn)" = 1 ] &&
    at E-TARGET-FEATURE 1 100; echo $?)"

cat >host.cairn <<'EOF2'
fn main() -> i32 {
    let b:bf16 = bf16(1.5);
    println(f32(b));
    return 0;
}
EOF2
ok "bf16 in host code needs nothing of sm_75 (near miss)" "$([ "$(PATH=$P status "$CAIRN" build --device-target sm_75 --out b3 host.cairn)" = 0 ] &&
    needed b3/host.receipt.json '[]'; echo $?)"

echo "$pass passed, $fail failed, 0 skipped"
[ "$fail" = 0 ]
