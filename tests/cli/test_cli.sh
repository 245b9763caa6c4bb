#!/usr/bin/env bash
# The command line's contract (docs/cli.md): exit statuses, --help, --json, run's exit status and
# signals, build from a file and from a manifest, the receipt, cairn test, expand, no partial output.
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
    if [ "$2" = 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL cli: $1"; fi
}
status() { "$@" >"$T/out" 2>"$T/err"; echo $?; }

cat >"$T/good.cairn" <<'EOF'
fn twice(x:f64) -> f64 = 2.0 * x;
fn main() -> i32 {
    println("twice:", twice(1.5), u32(7) + 1);
    return 3;
}
EOF
cat >"$T/bad.cairn" <<'EOF'
fn main() -> i32 {
    let a:u64 = 1;
    let b:u32 = 2;
    let c = a + b;
    return 0;
}
EOF
cat >"$T/guard.cairn" <<'EOF'
fn main() -> i32 {
    buffer x:u64[4] = zeroed;
    for i in 0..5 { x[i] = 1; }
    return 0;
}
EOF
cat >"$T/unit.cairn" <<'EOF'
fn sq(x:u64) -> u64 = x * x;
test fn squares() { assert(sq(3) == 9); }
test fn wrong() { assert(sq(3) == 10); }
test fn overflow() { assert(sq(4294967296) > 0); }
EOF

# check
ok "check accepts" "$([ "$(status "$CAIRN" check "$T/good.cairn")" = 0 ] && grep -q accepted "$T/out"; echo $?)"
ok "check refuses with 1" "$([ "$(status "$CAIRN" check "$T/bad.cairn")" = 1 ]; echo $?)"
ok "refusal has code, place, caret, help" "$(grep -q 'bad.cairn:4:13: error\[E-TYPE-MISMATCH\]' "$T/err" &&
    grep -q '\^' "$T/err" && grep -q 'help:' "$T/err"; echo $?)"
ok "check --json" "$(status "$CAIRN" check --json "$T/bad.cairn" >/dev/null;
    grep -q '"code": "E-TYPE-MISMATCH", "file": "[^"]*bad.cairn", "line": 4, "column": 13' "$T/err" &&
    grep -q '"status": "refused"' "$T/out"; echo $?)"
ok "missing file is 2" "$([ "$(status "$CAIRN" check "$T/nope.cairn")" = 2 ] && grep -q 'cannot read' "$T/err"; echo $?)"
ok "unknown option is 2" "$([ "$(status "$CAIRN" check --frobnicate "$T/good.cairn")" = 2 ]; echo $?)"
ok "no command is 2" "$([ "$(status "$CAIRN")" = 2 ]; echo $?)"
ok "unknown command is 2" "$([ "$(status "$CAIRN" frob)" = 2 ]; echo $?)"
for c in check run build test expand explain export new; do
    ok "$c --help" "$([ "$(status "$CAIRN" "$c" --help)" = 0 ] && grep -q "usage: cairn $c" "$T/out"; echo $?)"
done
for c in predict tune validate verify foreign; do
    ok "$c says it is not available" "$([ "$(status "$CAIRN" "$c")" = 2 ] && grep -q 'not available yet' "$T/err"; echo $?)"
done
cp tests/cli/emulated_test.cairn.txt "$T/devtest.cairn"
ok "cairn test --emulate runs a test fn's device work on host threads" "$([ "$(status "$CAIRN" test --emulate --device-target sm_90a "$T/devtest.cairn")" = 0 ]; echo $?)"
ok "--emulate is taken: a program judged against the target" "$([ "$(status "$CAIRN" check --emulate --device-target sm_90a "$T/good.cairn")" = 0 ]; echo $?)"
ok "--device-target is taken (tests/target/test_targets.sh has the rest)" "$([ "$(cd "$T" && status "$CAIRN" build --device-target sm_90a good.cairn)" = 0 ] &&
    grep -q '"resolved_by": "flag"' "$T/build/good/good.receipt.json"; echo $?)"

# run
ok "run exits with main's result" "$([ "$(cd "$T" && status "$CAIRN" run good.cairn)" = 3 ]; echo $?)"
ok "run prints" "$(grep -qx 'twice: 3 8' "$T/out"; echo $?)"
ok "run: guard is 134 with its message" "$([ "$(cd "$T" && status "$CAIRN" run guard.cairn)" = 134 ] &&
    grep -q 'guard.cairn:3:21: guard failed: index 4 out of bounds for x of length 4' "$T/err"; echo $?)"
ok "run of a refused program is 1" "$([ "$(cd "$T" && status "$CAIRN" run bad.cairn)" = 1 ]; echo $?)"
cat >"$T/args.cairn" <<'EOF'
fn main() -> i32 { return 0; }
EOF
ok "run -- args" "$([ "$(cd "$T" && status "$CAIRN" run args.cairn -- a b c)" = 0 ]; echo $?)"
cat >"$T/nomain.cairn" <<'EOF'
fn f() -> i32 = 1;
EOF
ok "run without main is E-MAIN" "$([ "$(cd "$T" && status "$CAIRN" run nomain.cairn)" = 1 ] && grep -q 'E-MAIN' "$T/err"; echo $?)"

# build, receipt, --emit-c
ok "build from a file" "$([ "$(cd "$T" && status "$CAIRN" build good.cairn)" = 0 ] &&
    [ -x "$T/build/good/good" ] && [ -f "$T/build/good/good.c" ] && [ -f "$T/build/good/good.receipt.json" ]; echo $?)"
R="$T/build/good/good.receipt.json"
ok "receipt names the mul rounding" "$(grep -q '"op": "mul", "from": "f64", "to": "f64", "rounding": "nearest-even"' "$R"; echo $?)"
ok "receipt has compiler version and flags" "$(grep -q '"version": "' "$R" && grep -q -- '-ffp-contract=off' "$R"; echo $?)"
ok "receipt is JSON" "$(python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$R" 2>/dev/null; echo $?)"
ok "emit-c prints readable C with #line" "$(cd "$T" && "$CAIRN" build --emit-c good.cairn 2>/dev/null | grep -q '#line 3 "good.cairn"'; echo $?)"
mkdir -p "$T/proj/src"
cp "$T/good.cairn" "$T/proj/src/prog.cairn"
printf '[build]\nname = "hello"\nkind = "exe"   # the kind\nsource = "src/prog.cairn"\n' >"$T/proj/cairn.toml"
ok "build from a manifest dir" "$([ "$(cd "$T" && status "$CAIRN" build proj)" = 0 ] && [ -x "$T/build/hello/hello" ]; echo $?)"
ok "run a manifest" "$([ "$(cd "$T" && status "$CAIRN" run proj/cairn.toml)" = 3 ]; echo $?)"
printf '[build]\nkind = "exe"\nsource = "src/prog.cairn"\ndevice_target = "sm_120a"\n' >"$T/proj/cairn.toml"
ok "manifest device_target is taken" "$([ "$(cd "$T" && status "$CAIRN" build proj)" = 0 ] &&
    grep -q '"resolved_by": "manifest"' "$T/build/prog/prog.receipt.json"; echo $?)"
printf '[build]\nsource = \n' >"$T/proj/cairn.toml"
ok "bad manifest names its line" "$([ "$(cd "$T" && status "$CAIRN" build proj)" = 2 ] && grep -q 'cairn.toml:2' "$T/err"; echo $?)"
rm -rf "$T/build"
ok "refused build leaves no output" "$( (cd "$T" && "$CAIRN" build bad.cairn >/dev/null 2>&1); [ ! -e "$T/build/bad/bad" ] && [ ! -e "$T/build/bad/bad.c" ]; echo $?)"

# test
ok "cairn test reports pass and fail" "$([ "$(cd "$T" && status "$CAIRN" test unit.cairn)" = 1 ] &&
    grep -q 'squares ... ok' "$T/out" && grep -q 'wrong ... FAILED' "$T/out" && grep -q 'overflow ... FAILED' "$T/out" &&
    grep -q '^1 passed, 2 failed' "$T/out"; echo $?)"
printf 'fn sq(x:u64) -> u64 = x * x;\ntest fn fine() { assert(sq(2) == 4); }\n' >"$T/fine.cairn"
ok "cairn test passes" "$([ "$(cd "$T" && status "$CAIRN" test fine.cairn)" = 0 ]; echo $?)"

# expand
ok "expand round trip" "$("$CAIRN" expand "$T/good.cairn" >"$T/e1.cairn" && "$CAIRN" expand "$T/e1.cairn" >"$T/e2.cairn" &&
    cmp -s "$T/e1.cairn" "$T/e2.cairn"; echo $?)"

# out of memory is an error, never a crash
ok "allocation failure is a clean error" "$([ "$(CAIRN_FAIL_ALLOC_AFTER=5 status "$CAIRN" check "$T/good.cairn")" = 2 ] &&
    grep -q 'out of memory' "$T/err"; echo $?)"

echo "$pass passed, $fail failed, 0 skipped"
[ "$fail" = 0 ]
