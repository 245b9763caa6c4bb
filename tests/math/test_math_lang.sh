#!/usr/bin/env bash
# std.math in lanes (issue 14): the portable functions are accepted in every kind of lane (the pool,
# the device, a cooperative region, a helper a lane calls), the others refused with E-PARALLEL-CALL at
# the call, with a help line naming what works; the receipt names each call's implementation and
# accuracy; explain shows them; the emitted C includes cairn_math.h only when a portable function
# is called. Prints one line per failed check and `N passed, N failed, 0 skipped`.
set -u
cd "$(dirname "$0")/../.."
CAIRN=${CAIRN:-bin/cairn}
CAIRN=$(cd "$(dirname "$CAIRN")" && pwd)/$(basename "$CAIRN")
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0
ok() {   # ok NAME STATUS
    if [ "$2" = 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL math lang: $1"; fi
}
# What is portable is what the family headers claim, in their opening comments (`log f32: correctly
# rounded`): the compiler's table (src/check_call.c) must agree with them, call for call.
ALL="exp exp2 expm1 log log2 log1p sin cos tanh erf pow atan2 log10 tan asin acos atan sinh cosh cbrt hypot"
ARITY2="pow atan2 hypot"
claim() {   # claim NAME TYPE: the header's claim, empty when there is none
    sed -n "s/^ \* $1 $2: //p" runtime/cairn_math_*.h | head -1
}
PORTABLE=""; TWO=""; OTHERS=""; OTHERS2=""; HELPLIST=""
for f in $ALL; do
    if [ -n "$(claim "$f" f32)" ] && [ -n "$(claim "$f" f64)" ]; then
        case " $ARITY2 " in *" $f "*) TWO="$TWO $f" ;; *) PORTABLE="$PORTABLE $f" ;; esac
        HELPLIST="${HELPLIST:+$HELPLIST, }$f"
    else
        case " $ARITY2 " in *" $f "*) OTHERS2="$OTHERS2 $f" ;; *) OTHERS="$OTHERS $f" ;; esac
    fi
done
for f in log pow sin; do
    [ -n "$(claim $f f32)" ] || { echo "FAIL math lang: runtime/cairn_math_*.h claim nothing for $f"; echo "0 passed, 1 failed, 0 skipped"; exit 1; }
done

# Every portable function, both types, in a pool lane, a device lane, a region and a helper.
{
    echo 'fn helper(v:f32) -> f32 { return std.math.log(v) + std.math.pow(v, v); }'
    for t in f32 f64; do
        echo "fn pool_$t(n:usize, x:ro<$t>[n], y:rw<$t>[n]) {"
        echo "  parallel i in n {"
        echo "    let mut s:$t = 0.0;"
        for f in $PORTABLE; do echo "    s += std.math.$f(x[i]);"; done
        for f in $TWO; do echo "    s += std.math.$f(x[i], s);"; done
        echo "    y[i] = s;"
        echo "  }"
        echo "}"
        echo "fn dev_$t(n:usize, x:ro<$t>[n]@device, y:rw<$t>[n]@device) {"
        echo "  parallel i in n {"
        echo "    let mut s:$t = 0.0;"
        for f in $PORTABLE; do echo "    s += std.math.$f(x[i]);"; done
        for f in $TWO; do echo "    s += std.math.$f(x[i], s);"; done
        echo "    y[i] = s;"
        echo "  }"
        echo "}"
        echo "fn coop_$t(n:usize, x:ro<$t>[n]@device, y:rw<$t>[n]@device) {"
        echo "  blocks b in (n + 63) / 64 threads t in 64 {"
        echo "    let i:usize = b * 64 + t;"
        echo "    if i < n {"
        echo "      let mut s:$t = 0.0;"
        for f in $PORTABLE; do echo "      s += std.math.$f(x[i]);"; done
        for f in $TWO; do echo "      s += std.math.$f(x[i], s);"; done
        echo "      y[i] = s;"
        echo "    }"
        echo "  }"
        echo "}"
    done
    echo 'fn via(n:usize, x:ro<f32>[n], y:rw<f32>[n]) { parallel i in n { y[i] = helper(x[i]); } }'
} >"$T/all.cairn"
"$CAIRN" check --device-target sm_90a "$T/all.cairn" >"$T/out" 2>&1
ok "every portable function on f32 and f64, in pool and device lanes, a region and a helper: accepted ($(head -3 "$T/out" | tr '\n' ' '))" $?

# The others: refused in each kind of lane, at the call, with the help line.
for f in $OTHERS; do
    printf 'fn f(n:usize, x:ro<f64>[n], y:rw<f64>[n]) {\n  parallel i in n { y[i] = std.math.%s(x[i]); }\n}\n' "$f" >"$T/p.cairn"
    "$CAIRN" check "$T/p.cairn" >"$T/out" 2>&1
    [ $? = 1 ] && grep -q "p.cairn:2:28: error\[E-PARALLEL-CALL\]: std.math.$f has no portable implementation" "$T/out" &&
        grep -qF "help: a lane may call std.math's portable functions ($HELPLIST), on f32 and f64; compute $f before or after the region" "$T/out"
    ok "std.math.$f in a pool lane: E-PARALLEL-CALL at 2:28 with the help line" $?
done
for f in $OTHERS2; do
    printf 'fn f(n:usize, x:ro<f32>[n], y:rw<f32>[n]) {\n  parallel i in n { y[i] = std.math.%s(x[i], x[i]); }\n}\n' "$f" >"$T/p.cairn"
    "$CAIRN" check "$T/p.cairn" >"$T/out" 2>&1
    [ $? = 1 ] && grep -q "p.cairn:2:28: error\[E-PARALLEL-CALL\]: std.math.$f has no portable implementation" "$T/out"
    ok "std.math.$f (two arguments) in a pool lane: E-PARALLEL-CALL at 2:28" $?
done
printf 'fn f(n:usize, x:ro<f32>[n]@device, y:rw<f32>[n]@device) {\n  blocks b in (n + 63) / 64 threads t in 64 {\n    let i:usize = b * 64 + t;\n    if i < n { y[i] = std.math.hypot(x[i], x[i]); }\n  }\n}\n' >"$T/c.cairn"
"$CAIRN" check --device-target sm_90a "$T/c.cairn" >"$T/out" 2>&1
[ $? = 1 ] && grep -q "c.cairn:4:23: error\[E-PARALLEL-CALL\]: std.math.hypot has no portable implementation" "$T/out"
ok "std.math.hypot in a cooperative region: E-PARALLEL-CALL at 4:23" $?
printf 'fn g(v:f64) -> f64 { return std.math.cbrt(v); }\nfn f(n:usize, x:ro<f64>[n]@device, y:rw<f64>[n]@device) {\n  parallel i in n { y[i] = g(x[i]); }\n}\n' >"$T/h.cairn"
"$CAIRN" check --device-target sm_90a "$T/h.cairn" >"$T/out" 2>&1
[ $? = 1 ] && grep -q "h.cairn:3:28: error\[E-PARALLEL-CALL\]: a call of g, which reaches std.math" "$T/out"
ok "a device lane calling a helper that calls std.math.cbrt: E-PARALLEL-CALL at the call, with the chain" $?

# The receipt: each call's implementation and accuracy; sequential code too.
cat >"$T/r.cairn" <<'SRC'
fn main() -> i32 {
  let x:f32 = 0.5;
  let d:f64 = 0.25;
  let a = std.math.sin(x) + std.math.pow(x, x);
  let b = std.math.log(d) + std.math.cbrt(d);
  if a > 0.0 && b < 0.0 { return 0; }
  return 1;
}
SRC
"$CAIRN" build --out "$T/br" "$T/r.cairn" >/dev/null 2>&1
ok "the receipt's program builds and the receipt exists" $([ -f "$T/br/r.receipt.json" ]; echo $?)
for want in "{\"op\": \"sin\", \"from\": \"f32\", \"impl\": \"cairn\", \"error\": \"$(claim sin f32)\"}" \
            "{\"op\": \"pow\", \"from\": \"f32\", \"impl\": \"cairn\", \"error\": \"$(claim pow f32)\"}" \
            "{\"op\": \"log\", \"from\": \"f64\", \"impl\": \"cairn\", \"error\": \"$(claim log f64)\"}" \
            '{"op": "cbrt", "from": "f64", "impl": "libm", "error": "unstated"}'; do
    grep -qF "$want" "$T/br/r.receipt.json" 2>/dev/null
    ok "receipt lists $want" $?
done
"$CAIRN" run "$T/r.cairn" >/dev/null 2>&1
ok "the program runs (sequential code calls the portable functions, and libm for cbrt)" $?

# explain: a line per call, and no libm in the row for portable calls.
"$CAIRN" explain "$T/r.cairn" >"$T/out" 2>&1
grep -q '^fn main: \[libm\]$' "$T/out" && grep -qF "line 4: std.math.sin on f32: cairn's portable implementation, $(claim sin f32)" "$T/out" &&
    grep -q "line 5: std.math.cbrt on f64: the host's C library (libm), error unstated" "$T/out"
ok "explain: main's row is [libm] (for cbrt alone), and a line per call ($(tr '\n' '|' <"$T/out"))" $?
printf 'fn f(n:usize, x:ro<f32>[n], y:rw<f32>[n]) {\n  parallel i in n { y[i] = std.math.log1p(x[i]); }\n}\nfn main() -> i32 { return 0; }\n' >"$T/e.cairn"
"$CAIRN" explain "$T/e.cairn" >"$T/out" 2>&1
grep -q '^fn f: \[par:host, read:x, trap, write:y\]$' "$T/out" && grep -q '^fn main: \[\]$' "$T/out" &&
    grep -qF "line 2: std.math.log1p on f32: cairn's portable implementation, $(claim log1p f32)" "$T/out"
ok "explain: a region calling log1p is pure (no libm), and the call is listed ($(tr '\n' '|' <"$T/out"))" $?

# The emitted C: cairn_math.h only when a portable function is called.
"$CAIRN" build --emit-c --out "$T/be" "$T/e.cairn" >"$T/e.c" 2>/dev/null
grep -q '#include "cairn_math.h"' "$T/e.c"
ok "the emitted C includes cairn_math.h for log1p" $?
printf 'fn f(n:usize, x:ro<f32>[n], y:rw<f32>[n]) {\n  parallel i in n { y[i] = x[i] * 2.0; }\n}\nfn main() -> i32 { return 0; }\n' >"$T/n.cairn"
"$CAIRN" build --emit-c --out "$T/bn" "$T/n.cairn" >"$T/n.c" 2>/dev/null
grep -q 'cairn_rt.h' "$T/n.c" && ! grep -q 'cairn_math.h' "$T/n.c"
ok "the emitted C of a program without std.math leaves cairn_math.h out" $?

echo "$pass passed, $fail failed, 0 skipped"
[ "$fail" -eq 0 ]
