#!/usr/bin/env bash
# The build receipt's numerics list names each storage-float rounding a program performs
# (docs/numerics.md): conversions with their overflow (infinity, or trap for f8e4m3), quantize and
# quantize_stochastic with saturate; widening is exact and not listed.
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
    if [ "$2" = 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL receipt: $1"; fi
}

cat >"$T/rounds.cairn" <<'CAIRN'
fn main() -> i32 {
  let x:f32 = 1.5;
  let d:f64 = 2.5;
  let a = bf16(x);
  let b = f8e4m3(x);
  let c = f16(d);
  let e = f8e5m2(x);
  let q = quantize[i8](x, 0.5);
  let r = quantize_stochastic[u16](x, 0.5, 7);
  let s = quantize[f8e4m3](x, 2.0);
  let w = f32(a) + f32(b) + f32(e) + f32(s);
  let v = f64(c);
  if w > 0.0 && v > 0.0 && q > 0 && r > 0 { return 0; }
  return 1;
}
CAIRN
cat >"$T/widens.cairn" <<'CAIRN'
fn wide(h:f16, g:bf16) -> f64 = f64(h) + f64(f32(g));
fn main() -> i32 {
  buffer hs:f16[2] = zeroed;
  buffer gs:bf16[2] = zeroed;
  hs[1] = from_bits[f16](to_bits(hs[0]));
  return i32(wide(hs[1], gs[0]));
}
CAIRN

has() {   # has RECEIPT 'JSON fragment'
    grep -qF -- "$2" "$1"
}
( cd "$T" && "$CAIRN" build rounds.cairn >/dev/null 2>&1 && "$CAIRN" build widens.cairn >/dev/null 2>&1 )
ok "both programs build" "$?"
R="$T/build/rounds/rounds.receipt.json"
W="$T/build/widens/widens.receipt.json"
ok "rounds runs" "$("$T/build/rounds/rounds" >/dev/null 2>&1; echo $?)"
ok "receipt is JSON" "$(python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$R" 2>/dev/null; echo $?)"
ok "f32 -> bf16, to infinity" "$(has "$R" '{"op": "convert", "from": "f32", "to": "bf16", "rounding": "nearest-even", "overflow": "infinity"}'; echo $?)"
ok "f32 -> f8e4m3, trap" "$(has "$R" '{"op": "convert", "from": "f32", "to": "f8e4m3", "rounding": "nearest-even", "overflow": "trap"}'; echo $?)"
ok "f32 -> f8e5m2, to infinity" "$(has "$R" '{"op": "convert", "from": "f32", "to": "f8e5m2", "rounding": "nearest-even", "overflow": "infinity"}'; echo $?)"
ok "f64 -> f16, to infinity" "$(has "$R" '{"op": "convert", "from": "f64", "to": "f16", "rounding": "nearest-even", "overflow": "infinity"}'; echo $?)"
ok "quantize into i8, saturate" "$(has "$R" '{"op": "quantize", "from": "f32", "to": "i8", "rounding": "nearest-even", "overflow": "saturate"}'; echo $?)"
ok "quantize into f8e4m3, saturate" "$(has "$R" '{"op": "quantize", "from": "f32", "to": "f8e4m3", "rounding": "nearest-even", "overflow": "saturate"}'; echo $?)"
ok "quantize_stochastic into u16" "$(has "$R" '{"op": "quantize_stochastic", "from": "f32", "to": "u16", "rounding": "stochastic", "overflow": "saturate"}'; echo $?)"
ok "each listed once" "$([ "$(grep -o '"op": "convert", "from": "f32", "to": "bf16"' "$R" | wc -l)" = 1 ]; echo $?)"
ok "widening is not listed" "$(! grep -qE '"from": "(f16|bf16|f8e4m3|f8e5m2)"' "$R" "$W"; echo $?)"
ok "bits are not listed" "$(! grep -qE '"to": "(f16|bf16|f8e4m3|f8e5m2)"' "$W"; echo $?)"

# reduce + parallel over floats is the exact sum on every placement (issue 16: the device's too);
# any other float reduction on the device adds in an order the language leaves open; an integer
# one adds nothing of the kind. Built emulated and, where nvcc is here, for the device.
cat >"$T/dsum.cairn" <<'CAIRN'
fn dsum(n:usize, x:ro<f32>[n]@device, total:rw<f32>[1]@device) {
  reduce + total[0] parallel i in n yield x[i];
}
fn dsum64(n:usize, x:ro<f64>[n]@device) -> f64 = reduce + parallel i in n yield x[i];
fn dfor(n:usize, x:ro<f32>[n]@device) -> f32 = reduce + for i in n yield x[i];
fn dmax(n:usize, x:ro<f64>[n]@device) -> f64 = reduce max for i in n yield x[i];
fn isum(n:usize, x:ro<i64>[n]@device) -> i64 = reduce + for i in n yield x[i];
fn main() -> i32 { return 0; }
CAIRN
( cd "$T" && "$CAIRN" build dsum.cairn --emulate --device-target sm_90a >/dev/null 2>&1 )
ok "device sums build" "$?"
D="$T/build/dsum/dsum.receipt.json"
receipt_dsum() {   # receipt_dsum FILE WHERE
    ok "$2: device f32 reduce + parallel: the exact sum" "$(has "$1" '{"op": "sum", "from": "f32", "to": "f32", "rounding": "nearest-even", "sum": "exact"}'; echo $?)"
    ok "$2: device f64 reduce + parallel: the exact sum" "$(has "$1" '{"op": "sum", "from": "f64", "to": "f64", "rounding": "nearest-even", "sum": "exact"}'; echo $?)"
    ok "$2: device f32 reduce + for: order unspecified" "$(has "$1" '{"op": "add", "from": "f32", "to": "f32", "rounding": "nearest-even", "order": "unspecified", "where": "device"}'; echo $?)"
    ok "$2: listed once, and nothing else unordered" "$([ "$(grep -c '"order": "unspecified"' "$1")" = 1 ]; echo $?)"
}
receipt_dsum "$D" emulated
if command -v nvcc >/dev/null 2>&1; then
    ( cd "$T" && "$CAIRN" build dsum.cairn --device-target sm_90a --out dev >/dev/null 2>&1 )
    ok "device sums build for sm_90a" "$?"
    receipt_dsum "$T/dev/dsum.receipt.json" "sm_90a"
fi

# numerics.md: the device combines a float product in an unspecified order too, and the receipt
# lists it (issue 11: a device product was refused with "on the pool").
cat >"$T/dprod.cairn" <<'CAIRN'
fn dprod(n:usize, x:ro<f64>[n]@device) -> f64 = reduce * parallel i in n yield x[i];
fn main() -> i32 { return 0; }
CAIRN
( cd "$T" && "$CAIRN" build dprod.cairn --emulate --device-target sm_90a >/dev/null 2>&1 )
ok "device products build" "$?"
ok "device f64 product: order unspecified" "$(has "$T/build/dprod/dprod.receipt.json" '{"op": "mul", "from": "f64", "to": "f64", "rounding": "nearest-even", "order": "unspecified", "where": "device"}'; echo $?)"

# numerics.md: the host's exact sum is listed as {"op": "sum", ..., "sum": "exact"}, and "the receipt
# lists the contract" of atomic float addition (issue 11: neither was in the receipt).
cat >"$T/exact.cairn" <<'CAIRN'
fn hsum(n:usize, x:ro<f64>[n]) -> f64 = reduce + parallel i in n yield x[i];
fn hsum32(n:usize, x:ro<f32>[n]) -> f32 = reduce + parallel i in n yield x[i];
fn fsum(n:usize, x:ro<f64>[n]) -> f64 = reduce + for i in n yield x[i];
fn hadd(n:usize, x:ro<f32>[n], t:rw<f32>[1]) { parallel i in n { atomic_add_unordered(t[0], x[i]); } }
fn dadd(n:usize, x:ro<f32>[n]@device, t:rw<f32>[1]@device) { parallel i in n { atomic_add_unordered(t[0], x[i]); } }
fn dadd64(n:usize, x:ro<f64>[n]@device, t:rw<f64>[1]@device) { parallel i in n { atomic_add_unordered(t[0], x[i]); } }
fn main() -> i32 { return 0; }
CAIRN
( cd "$T" && "$CAIRN" build exact.cairn --out ex --device-target sm_90a >/dev/null 2>&1 ||
  "$CAIRN" build exact.cairn --out ex --emulate --device-target sm_90a >/dev/null 2>&1 )
ok "exact sums and atomic adds build" "$?"
E="$T/ex/exact.receipt.json"
ok "host exact sum of f64, as numerics.md spells it" "$(has "$E" '{"op": "sum", "from": "f64", "to": "f64", "rounding": "nearest-even", "sum": "exact"}'; echo $?)"
ok "host exact sum of f32" "$(has "$E" '{"op": "sum", "from": "f32", "to": "f32", "rounding": "nearest-even", "sum": "exact"}'; echo $?)"
ok "a sum in written order is no exact sum (listed once: the two pooled ones)" "$([ "$(grep -c '"sum": "exact"' "$E")" = 2 ]; echo $?)"
ok "atomic f32 add on the host: order unspecified, subnormals kept" "$(has "$E" '{"op": "atomic_add", "from": "f32", "to": "f32", "rounding": "nearest-even", "order": "unspecified", "where": "host", "subnormals": "kept", "bound": "k * 2^-23 * (|old| + sum |v|) + k * 2^-125, k < 2^22"}'; echo $?)"
ok "atomic f64 add on the device keeps subnormals" "$(has "$E" '{"op": "atomic_add", "from": "f64", "to": "f64", "rounding": "nearest-even", "order": "unspecified", "where": "device", "subnormals": "kept", "bound": "k * 2^-52 * (|old| + sum |v|), k < 2^51"}'; echo $?)"
if command -v nvcc >/dev/null; then
    ok "atomic f32 add on the device (nvcc build) flushes subnormals, as atom.add.f32 does" "$(has "$E" '{"op": "atomic_add", "from": "f32", "to": "f32", "rounding": "nearest-even", "order": "unspecified", "where": "device", "subnormals": "flushed", "bound": "k * 2^-23 * (|old| + sum |v|) + k * 2^-125, k < 2^22"}'; echo $?)"
fi
( cd "$T" && "$CAIRN" build exact.cairn --out exe --emulate --device-target sm_90a >/dev/null 2>&1 )
ok "emulated, the device f32 add is a host add, which keeps subnormals" "$(! grep -q '"flushed"' "$T/exe/exact.receipt.json" &&
    has "$T/exe/exact.receipt.json" '{"op": "atomic_add", "from": "f32", "to": "f32", "rounding": "nearest-even", "order": "unspecified", "where": "device", "subnormals": "kept", "bound": "k * 2^-23 * (|old| + sum |v|) + k * 2^-125, k < 2^22"}'; echo $?)"

# The receipt names the compiler that built the emitted file (issue 11: it named cc when nvcc had).
if command -v nvcc >/dev/null; then
    ok "an nvcc build's receipt names nvcc, its release and its flags" "$(python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))["compilers"]
sys.exit(not (list(c) == ["nvcc"] and c["nvcc"]["command"] == "nvcc" and c["nvcc"]["version"][:3] in ("12.", "13.")
              and "--fmad=false" in c["nvcc"]["flags"] and "-gencode=arch=compute_90a,code=sm_90a" in c["nvcc"]["flags"]))' "$E"; echo $?)"
fi
ok "an emulated build's receipt names cc with -DCAIRN_EMULATE" "$(python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))["compilers"]
sys.exit(not (list(c) == ["cc"] and "-DCAIRN_EMULATE" in c["cc"]["flags"] and "-ffp-contract=off" in c["cc"]["flags"]))' "$T/exe/exact.receipt.json"; echo $?)"

# mma_unordered's contract (numerics.md, "The tensor-core multiply"): on the host, and emulated, in
# increasing k; on a device in the hardware's order; the bound either way.
cat >"$T/mma.cairn" <<'CAIRN'
fn hmul(m:usize, n:usize, k:usize, c:rw<f32>[m * n], a:ro<f16>[m * k], b:ro<f16>[k * n]) {
  mma_unordered(m, n, k, c, a, b);
}
fn dmul(m:usize, n:usize, k:usize, c:rw<f32>[m * n]@device, a:ro<bf16>[m * k]@device, b:ro<bf16>[k * n]@device) {
  mma_unordered(m, n, k, c, a, b);
}
fn main() -> i32 { return 0; }
CAIRN
MB='"bound": "(k + 1) * 2^-22 * (|c| + sum |a b|)"}'
( cd "$T" && "$CAIRN" build mma.cairn --out mmae --emulate --device-target sm_90a >/dev/null 2>&1 )
ok "mma_unordered builds emulated" "$?"
ok "host mma: increasing k, and the bound" "$(has "$T/mmae/mma.receipt.json" '{"op": "mma", "from": "f16", "to": "f32", "rounding": "nearest-even", "order": "increasing k", "where": "host", '"$MB"; echo $?)"
ok "emulated device mma: increasing k" "$(has "$T/mmae/mma.receipt.json" '{"op": "mma", "from": "bf16", "to": "f32", "rounding": "nearest-even", "order": "increasing k", "where": "device", '"$MB"; echo $?)"
if command -v nvcc >/dev/null; then
    ( cd "$T" && "$CAIRN" build mma.cairn --out mmad --device-target sm_90a >/dev/null 2>&1 )
    ok "mma_unordered builds for sm_90a" "$?"
    ok "device mma: the hardware's order" "$(has "$T/mmad/mma.receipt.json" '{"op": "mma", "from": "bf16", "to": "f32", "rounding": "nearest-even", "order": "unspecified", "where": "device", '"$MB"; echo $?)"
fi

echo "$pass passed, $fail failed, 0 skipped"
[ "$fail" = 0 ]
