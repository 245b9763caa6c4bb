#!/usr/bin/env bash
# Libraries linked from C (docs/cli.md, "Libraries and C headers"): a library with no device work
# builds with --header into NAME.h and libNAME.a that plain C links with the documented line and no
# device machine; its entries check their arguments and return the right values; a failed guard in
# one aborts with its message. A device library (where nvcc is installed) links with its documented
# line too. Prints one line per failed check and `N passed, N failed, 0 skipped`.
set -u
cd "$(dirname "$0")/../.."
CAIRN=${CAIRN:-bin/cairn}
CAIRN=$(cd "$(dirname "$CAIRN")" && pwd)/$(basename "$CAIRN")
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0
skip=0
ok() {   # ok NAME CONDITION-STATUS
    if [ "$2" = 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL libs: $1"; fi
}

cat >"$T/stats.cairn" <<'EOF'
fn add3(a:i32, b:i32, c:i32) -> i32 = a + b + c;
fn scale(n:usize, x:rw<f64>[n], k:f64) {
    for i in 0..n { x[i] = x[i] * k; }
}
fn total(n:usize, x:ro<f64>[n]) -> f64 {
    let mut s:f64 = 0.0;
    for i in 0..n { s += x[i]; }
    return s;
}
fn squares(n:usize, out:rw<u64>[n]) {
    parallel i in n { out[i] = u64(i) * u64(i); }
}
EOF
cat >"$T/main.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include "stats.h"

int main(int argc, char **argv)
{
    if (argc > 1) {                       /* the guard of a checked entry */
        printf("%d\n", cf_add3(2147483647, 1, 0));
        return 0;
    }
    double x[5] = {1, 2, 3, 4, 5.5};
    cf_scale(5, x, 2.0);
    unsigned long long sq[1000];
    cf_squares(1000, (uint64_t *)sq);
    printf("%d %g %g %llu %llu\n", cf_add3(1, 2, 39), cf_total(5, x), x[4], sq[999], sq[7]);
    return 0;
}
EOF
(cd "$T" && "$CAIRN" build --header stats.cairn >"$T/out" 2>"$T/err")
rc=$?
ok "a host-only library builds with --header (exit 0)" "$([ $rc = 0 ]; echo $?)"
ok "... into stats.h and libstats.a, its receipt and C" "$([ -f "$T/build/stats/stats.h" ] && [ -f "$T/build/stats/libstats.a" ] &&
    [ -f "$T/build/stats/stats.receipt.json" ] && [ -f "$T/build/stats/stats.c" ]; echo $?)"
ok "... with no device stream entry, no execution context and no internal error" \
    "$(! grep -q device_stream "$T/build/stats/stats.h" && ! grep -q cairn_exec.h "$T/build/stats/stats.c" &&
        ! grep -q 'internal error' "$T/err"; echo $?)"
# The line docs/cli.md gives for a library without device work.
if cc -std=c17 -o "$T/main" "$T/main.c" -I"$T/build/stats" -L"$T/build/stats" -lstats -lm -lpthread 2>"$T/cc.err"; then
    ok "a C program links it with: cc main.c -IDIR -LDIR -lstats -lm -lpthread" 0
    ok "its entries give the right values" "$([ "$("$T/main")" = "42 31 11 998001 49" ]; echo $?)"
    "$T/main" guard >/dev/null 2>"$T/err"
    rc=$?
    ok "a failed guard in an entry aborts (134) with its message" "$([ $rc = 134 ] &&
        grep -q 'stats.cairn:1:.*guard failed: integer overflow: 2147483647 + 1 does not fit in i32' "$T/err"; echo $?)"
else
    ok "a C program links it: $(head -5 "$T/cc.err" | tr '\n' ' ')" 1
fi

# The receipt's `exports` (docs/cli.md): every exported function's entries and parameters, and each
# view's extent as a tree over the integer parameters that a binding evaluates before it passes a
# pointer; an extent it could not evaluate (a cast here) is null, never a guess. The emulated device
# library shows the cq_ entries and the E-ENQUEUE reason. Checked by evaluating the trees at
# sample values against the extents written in the source.
cat >"$T/sig.cairn" <<'EOF'
fn add3(a:i32, b:i32, c:i32) -> i32 = a + b + c;
fn mat(rows:usize, cols:usize, m:ro<f32>[rows * cols + 1], out:rw<f32>[rows - 1], w:ro<u8>[(rows + 7) / 8 % cols]) {
    for i in 0..rows - 1 { out[i] = m[i * cols] + f32(w[0]); }
}
fn bump(r:rw<i64>) { r = r + 1; }
fn first(n:usize, p:ro<f32>[n]@pinned) -> f32 { return p[0]; }
EOF
cat >"$T/sigdev.cairn" <<'EOF'
fn saxpy(n:usize, a:f32, x:ro<f32>[n]@device, y:rw<f32>[n]@device) {
  parallel i in n { y[i] = a * x[i] + y[i]; }
}
fn total(n:usize, x:ro<f32>[n]@device) -> f32 {
  let s = reduce + for i in n yield x[i];
  return s;
}
fn half(n:usize, k:usize, x:ro<f32>[n / 2 + usize(k)]@device, y:rw<f32>[n]@device) {
  parallel i in n { y[i] = 1.0; }
}
EOF
cat >"$T/sig.py" <<'EOF'
import json, sys
def ev(t, env):
    if "int" in t: return t["int"]
    if "param" in t: return env[t["param"]]
    a, b = (ev(x, env) for x in t["args"])
    return {"+": a + b, "-": a - b, "*": a * b, "/": a // b, "%": a % b}[t["op"]]
bad = []
def want(c, what):
    if not c: bad.append(what)
h = json.load(open(sys.argv[1]))["exports"]
want(h["library"] == "sig" and h["device"] is False, "host library header fields: %r" % h)
f = {x["name"]: x for x in h["functions"]}
want(sorted(f) == ["add3", "bump", "first", "mat"], "host library functions: %r" % sorted(f))
want(f["first"]["params"][1]["placement"] == "pinned" and f["first"]["returns"] == "f32", "first: %r" % f["first"])
want([p["c"] for p in f["add3"]["params"]] == ["int32_t"] * 3 and f["add3"]["returns"] == "i32", "add3: %r" % f["add3"])
want(f["add3"]["cq"] is None and "no device work" in f["add3"]["no_cq"], "add3 has no cq_")
m = {p["name"]: p for p in f["mat"]["params"]}
want(m["m"]["kind"] == "view" and m["m"]["access"] == "ro" and m["m"]["elem"] == "f32" and m["m"]["placement"] == "host",
     "mat.m: %r" % m["m"])
for rows, cols in [(5, 3), (17, 4), (1, 9)]:
    env = {"rows": rows, "cols": cols}
    want(ev(m["m"]["extent"], env) == rows * cols + 1, "m's extent at %r" % env)
    want(ev(m["out"]["extent"], env) == rows - 1, "out's extent at %r" % env)
    want(ev(m["w"]["extent"], env) == (rows + 7) // 8 % cols, "w's extent at %r" % env)
want(m["out"]["access"] == "rw" and m["w"]["c"] == "uint8_t", "mat.out/w: %r %r" % (m["out"], m["w"]))
b = f["bump"]["params"][0]
want(b["kind"] == "ref" and b["access"] == "rw" and b["elem"] == "i64" and "extent" not in b, "bump.r: %r" % b)
d = json.load(open(sys.argv[2]))["exports"]
want(d["device"] is True, "device library: device")
g = {x["name"]: x for x in d["functions"]}
want(g["saxpy"]["cq"] == "cq_saxpy" and g["half"]["cq"] == "cq_half", "cq_ entries: %r" % g)
want(g["total"]["cq"] is None and "returns a value" in g["total"]["no_cq"], "total's E-ENQUEUE reason: %r" % g["total"])
s = {p["name"]: p for p in g["saxpy"]["params"]}
want(s["x"]["placement"] == "device" and s["x"]["extent"] == {"param": "n"} and s["a"]["kind"] == "scalar", "saxpy: %r" % s)
hp = {p["name"]: p for p in g["half"]["params"]}
want(hp["x"]["extent"] is None, "a cast in an extent must give null, got %r" % hp["x"]["extent"])
want(hp["y"]["placement"] == "device", "half.y placement: %r" % hp["y"])
for x in bad: print("FAIL libs: exports: " + x)
sys.exit(1 if bad else 0)
EOF
if (cd "$T" && "$CAIRN" build --header sig.cairn >/dev/null 2>"$T/err" &&
    "$CAIRN" build --header --emulate --device-target sm_90a sigdev.cairn >/dev/null 2>>"$T/err"); then
    ok "a library build writes NAME.so beside libNAME.a" \
        "$([ -f "$T/build/sig/sig.so" ] && [ -f "$T/build/sig/libsig.a" ] && [ -f "$T/build/sigdev/sigdev.so" ]; echo $?)"
    ok "the receipt's exports describe each entry (sig.py)" \
        "$(python3 "$T/sig.py" "$T/build/sig/sig.receipt.json" "$T/build/sigdev/sigdev.receipt.json"; echo $?)"
else
    ok "the exports libraries build: $(head -3 "$T/err")" 1
fi

# The shared library: Python's ctypes loads it and its entries compute (the host library), and the
# emulated device library's has its cq_ entry.
cat >"$T/so.py" <<'EOF'
import ctypes, sys
bad = []
lib = ctypes.CDLL(sys.argv[1])
lib.cf_add3.restype = ctypes.c_int32
lib.cf_add3.argtypes = [ctypes.c_int32] * 3
if lib.cf_add3(7, -2, 40) != 45: bad.append("cf_add3(7, -2, 40) = %d" % lib.cf_add3(7, -2, 40))
rows, cols = 4, 3
m = (ctypes.c_float * (rows * cols + 1))(*[float(i * i) for i in range(rows * cols + 1)])
out = (ctypes.c_float * (rows - 1))()
w = (ctypes.c_uint8 * 1)(5)
lib.cf_mat.argtypes = [ctypes.c_size_t, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
lib.cf_mat(rows, cols, m, out, w)
want = [float((i * cols) ** 2 + 5) for i in range(rows - 1)]
if list(out) != want: bad.append("cf_mat: %r, expected %r" % (list(out), want))
dev = ctypes.CDLL(sys.argv[2])
if not hasattr(dev, "cq_saxpy") or not hasattr(dev, "cairn_sigdev_device_stream"): bad.append("sigdev: no cq_saxpy")
for x in bad: print("FAIL libs: shared: " + x)
sys.exit(1 if bad else 0)
EOF
ok "NAME.so loads with ctypes and computes" \
    "$(python3 "$T/so.py" "$T/build/sig/sig.so" "$T/build/sigdev/sigdev.so"; echo $?)"

# A device library: the line docs/cli.md gives, with the CUDA runtime and the C++ runtime nvcc's
# object needs. It links here; it runs only on a machine with a GPU (tests/device/run.sh).
NVCC=$(command -v nvcc || true)
if [ -n "$NVCC" ]; then
    CUDA=$(dirname "$(dirname "$NVCC")")
    cat >"$T/dev.cairn" <<'EOF'
fn twice(n:usize, out:rw<f32>[n]@device, x:ro<f32>[n]@device) {
  parallel i in n { out[i] = 2.0 * x[i]; }
}
EOF
    printf '#include "dev.h"\nint main(void) { cairn_dev_device_stream(0); return 0; }\n' >"$T/dmain.c"
    if (cd "$T" && "$CAIRN" build --header --device-target sm_90a dev.cairn >/dev/null 2>"$T/err"); then
        ok "a device library links with: cc main.c -IDIR -LDIR -ldev -L\$CUDA/lib64 -lcudart -lstdc++ -lm -lpthread" \
            "$(cc -std=c17 -o "$T/dmain" "$T/dmain.c" -I"$T/build/dev" -L"$T/build/dev" -ldev -L"$CUDA/lib64" -lcudart \
                -lstdc++ -lm -lpthread 2>"$T/cc.err"; echo $?)"
    else
        ok "a device library builds: $(head -3 "$T/err")" 1
    fi
else
    echo "SKIP libs: no nvcc, so no device library to link"
    skip=$((skip + 1))
fi

echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
