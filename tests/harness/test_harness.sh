#!/usr/bin/env bash
# cairn export (docs/harness.md): each refusal of a mapping (E-HARNESS-MAPPING, -DTYPE, -SYMBOL,
# -FORMAT, E-TARGET-MISMATCH) with its code and line, each beside an accepted near miss; no package
# left behind by a refused export; each format's package, its record and `cairn export DIR` (intact,
# then broken once a file or an embedded line changes). Prints FAIL lines and `N passed, N failed,
# N skipped`.
set -u
cd "$(dirname "$0")/../.."
CAIRN=${CAIRN:-bin/cairn}
CAIRN=$(cd "$(dirname "$CAIRN")" && pwd)/$(basename "$CAIRN")
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0 skip=0
ok() { if [ "$2" = 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL harness: $1"; fi; }

# A project: vadd over host views (n = rows * cols), and extra functions for the SYMBOL/FORMAT cases.
P=$T/p; mkdir -p $P/src
printf '[build]\nname = "lib"\nkind = "lib"\nsource = "src/lib.cairn"\n' >$P/cairn.toml
cat >$P/src/lib.cairn <<'C'
fn vadd(n:usize, a:ro<f32>[n], b:ro<f32>[n], out:rw<f32>[n]) {
  parallel i in n { out[i] = a[i] + b[i]; }
}
fn scale(n:usize, k:i32, x:rw<f32>[n]) {
  parallel i in n { x[i] = x[i] * f32(k); }
}
fn total(n:usize, a:ro<f32>[n]) -> f32 {
  return reduce + for i in n yield a[i];
}
fn pick[W:nat](n:usize) -> usize = n + W;
C
VADD='[extents]
n = "rows * cols"

[[argument]]
name = "A"
parameter = "a"
dtype = "float32"
shape = ["rows", "cols"]

[[argument]]
name = "B"
parameter = "b"
dtype = "float32"
shape = ["rows", "cols"]

[[argument]]
name = "C"
parameter = "out"
dtype = "float32"
shape = ["rows", "cols"]
output = true
'
# expect NAME CODE LINE FORMAT SYMBOL: the mapping in $P/harness.toml is refused with CODE at LINE
# (or, with CODE "-", accepted), and a refused export leaves no package.
expect() {
    local name=$1 code=$2 line=$3 fmt=$4 sym=$5
    rm -rf "$T/out"
    "$CAIRN" export "$P" --harness "$fmt" --symbol "$sym" --out "$T/out" >"$T/o" 2>"$T/e"
    local rc=$?
    if [ "$code" = - ]; then
        ok "$name: accepted (rc $rc: $(head -c 300 "$T/e"))" "$([ $rc = 0 ] && [ -f "$T/out/harness.json" ]; echo $?)"
        return
    fi
    ok "$name: exit 1, got $rc" "$([ $rc = 1 ]; echo $?)"
    ok "$name: $code at line $line: $(head -c 300 "$T/e")" \
        "$(grep -q "harness.toml:$line:[0-9]*: error\[$code\]" "$T/e"; echo $?)"
    ok "$name: help line" "$(grep -q '^  help: ' "$T/e"; echo $?)"
    ok "$name: no package left" "$([ ! -e "$T/out" ] && ! ls -a "$T" | grep -q '^\.out\.cairn-tmp'; echo $?)"
}
map() { printf '%s' "$1" >$P/harness.toml; }

map "$VADD"; expect "vadd for gpumode" - 0 gpumode vadd
map "$VADD"; expect "vadd for sol-execbench with no definition" E-HARNESS-FORMAT 1 sol-execbench vadd
map "$VADD[benchmark]
definition = \"vadd\"
"; expect "vadd for sol-execbench" - 0 sol-execbench vadd
map "$VADD"; expect "an output for kernelbench" E-HARNESS-FORMAT 16 kernelbench vadd
map "$(printf '%s' "$VADD" | sed 's/^output = true$//; 16s/argument/result/')"; expect "a result for kernelbench" - 0 kernelbench vadd
map "$(printf '%s' "$VADD" | sed 's/^output = true$//; 16s/argument/result/')
[benchmark]
definition = \"vadd\"
"; expect "a result for sol-execbench" E-HARNESS-FORMAT 16 sol-execbench vadd
map "$(printf '%s' "$VADD" | sed 's/parameter = "b"/parameter = "a"/')"; expect "a parameter fed twice" E-HARNESS-MAPPING 10 gpumode vadd
map "$(printf '%s' "$VADD" | sed '1,3d')"; expect "a parameter fed by nothing" E-HARNESS-MAPPING 1 gpumode vadd
map "$(printf '%s' "$VADD" | sed 's/rows \* cols/rows * colz/')"; expect "an axis no shape names" E-HARNESS-MAPPING 2 gpumode vadd
map "$(printf '%s' "$VADD" | sed 's/rows \* cols/rows ** 2/')"; expect "an extent beyond + - * /" E-HARNESS-MAPPING 2 gpumode vadd
map "$(printf '%s' "$VADD" | sed 's/rows \* cols/rows * 99999999999999999999/')"; expect "an integer past 64 bits" E-HARNESS-MAPPING 2 gpumode vadd
grep -q 'holds an integer past 64 bits' "$T/e"; ok "an integer past 64 bits is named so" $?
map "$(printf '%s' "$VADD" | sed 's/rows \* cols/(rows + 0) * (cols - 0) \/ 1/')"; expect "an extent in + - * /" - 0 gpumode vadd
map "$(printf '%s' "$VADD" | sed 's/^output = true$//')"; expect "an input CAIRN writes" E-HARNESS-MAPPING 16 gpumode vadd
map "$(printf '%s' "$VADD" | sed '0,/float32/s//float64/')"; expect "a dtype other than the element type" E-HARNESS-DTYPE 7 gpumode vadd
map "$(printf '%s' "$VADD" | sed '0,/float32/s//f32/')"; expect "a dtype as CAIRN spells it" - 0 gpumode vadd
map "$(printf '%s' "$VADD" | sed '0,/float32/s//float4_e2m1fn_x2/')"; expect "a format CAIRN lacks" E-HARNESS-DTYPE 7 gpumode vadd
map '[[argument]]
name = "N"
parameter = "n"
dtype = "int64"

[[argument]]
name = "K"
parameter = "k"
dtype = "float32"

[[argument]]
name = "X"
parameter = "x"
dtype = "float32"
shape = ["n"]
output = true
'; expect "a float feeding an integer" E-HARNESS-DTYPE 9 gpumode scale
map "$(sed 's/dtype = "float32"/dtype = "int32"/; ' $P/harness.toml | sed '0,/int32/!s/int32/float32/')"; expect "an integer feeding an integer" - 0 gpumode scale
map "$VADD"; expect "a function with no C entry (generic)" E-HARNESS-SYMBOL 1 gpumode pick
map "$VADD"; expect "no such function" E-HARNESS-SYMBOL 1 gpumode vdd
map '[[argument]]
name = "A"
parameter = "a"
dtype = "float32"
shape = ["n"]
'; expect "a returned value" E-HARNESS-FORMAT 1 gpumode total
grep -q "total returns f32" "$T/e"; ok "a returned value names the type" $?

# the device target against the mapping's GPU (needs nvcc to build the device library)
if command -v nvcc >/dev/null 2>&1; then
    D=tests/harness/projects/vectoradd
    "$CAIRN" export $D --harness gpumode --symbol vectoradd --out "$T/va" >/dev/null 2>"$T/e"
    ok "vectoradd (sm_90a) for the H100: accepted: $(head -c 200 "$T/e")" "$([ -f "$T/va/submission.py" ]; echo $?)"
    sed 's/gpu = "H100"/gpu = "B200"/' $D/harness.toml >"$T/b200.toml"
    "$CAIRN" export $D --harness gpumode --symbol vectoradd --out "$T/vb" --mapping "$T/b200.toml" >/dev/null 2>"$T/e"
    ok "vectoradd (sm_90a) for the B200: E-TARGET-MISMATCH at line 26: $(head -c 300 "$T/e")" \
        "$(grep -q 'b200.toml:26:[0-9]*: error\[E-TARGET-MISMATCH\]' "$T/e" && [ ! -e "$T/vb" ]; echo $?)"
    grep -q '"-arch=sm_90a"' "$T/va/harness.json"; ok "the record's nvcc flags name the target" $?
else
    skip=$((skip + 3))
fi

# each format's package: the record and the integrity check
for f in sol-execbench:rmsnorm_host:rmsnorm:solution.json gpumode:vadd_host:vadd:submission.py \
         kernelbench:relu_host:relu:model_new.py; do
    IFS=: read -r fmt proj sym sub <<<"$f"
    O=$T/pkg-$fmt
    "$CAIRN" export tests/harness/projects/$proj --harness $fmt --symbol $sym --out $O >/dev/null 2>"$T/e"
    ok "$fmt: package written: $(head -c 200 "$T/e")" "$([ -f $O/$sub ] && [ -f $O/harness.json ]; echo $?)"
    python3 - "$O/harness.json" "$fmt" "$sym" >"$T/r" 2>&1 <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["format"] == "cairn.harness/1" and r["harness"] == sys.argv[2], r["harness"]
assert r["function"]["name"] == sys.argv[3] and len(r["upstream"]["commit"]) == 40
assert r["entry"]["calls"] == "cf_" + sys.argv[3], r["entry"]
assert "-ffp-contract=off" in r["flags"]["c++"] and r["flags"]["why"]
assert len(r["export"]["files"]) == 6 and all(len(f["sha256"]) == 64 for f in r["export"]["files"])
assert r["commands"] and r["score"] and len(r["validation"]) == 4
PY
    ok "$fmt: the record: $(tail -2 "$T/r")" $?
    "$CAIRN" export $O >"$T/c"; rc=$?
    ok "$fmt: cairn export DIR is intact (rc $rc): $(cat "$T/c")" "$([ $rc = 0 ] && grep -q '"status": "harness-intact"' "$T/c"; echo $?)"
    code=$(ls $O/export/*_cairn.*)
    cp "$code" "$T/keep"; printf '\n' >>"$code"
    "$CAIRN" export $O >"$T/c"; rc=$?
    ok "$fmt: a changed export file is broken (rc $rc): $(cat "$T/c")" \
        "$([ $rc = 1 ] && grep -q '"status": "harness-broken"' "$T/c" && grep -q "$(basename "$code")" "$T/c"; echo $?)"
    cp "$T/keep" "$code"
    cp $O/$sub "$T/keep"
    if [ $sub = solution.json ]; then sed -i '0,/\\n/s/\\n/\\n\/\/x\\n/' $O/$sub; else sed -i '0,/^        "/s/^        "/        "\/\/x /' $O/$sub; fi
    "$CAIRN" export $O >"$T/c"; rc=$?
    ok "$fmt: a changed submission is broken (rc $rc): $(cat "$T/c")" "$([ $rc = 1 ] && grep -q "$sub" "$T/c"; echo $?)"
    cp "$T/keep" $O/$sub
done

# the packages built with CPU torch and run over host views (a skip without torch and ninja)
TORCH_EXTENSIONS_DIR=$T/ext python3 tests/harness/check_harness_torch.py $T/pkg-sol-execbench $T/pkg-gpumode $T/pkg-kernelbench >"$T/t" 2>&1
case $? in
    0) pass=$((pass + 1)) ;;
    3) skip=$((skip + 1)) ;;
    *) fail=$((fail + 1)); grep FAIL "$T/t" || tail -5 "$T/t" ;;
esac

# cairn new --from-sol-execbench, on a definition of our own in SOL-ExecBench's schema
mkdir -p $T/prob
cat >$T/prob/definition.json <<'J'
{"name": "scale_rows_d8", "axes": {"n": {"type": "var"}, "d": {"type": "const", "value": 8}},
 "inputs": {"x": {"shape": ["n", "d"], "dtype": "float32"}, "k": {"shape": null, "dtype": "float32"}},
 "outputs": {"y": {"shape": ["n", "d"], "dtype": "float32"}},
 "reference": "import torch\ndef run(x, k):\n    return x * k", "description": "y = k x"}
J
printf '%s\n' '{"uuid": "a", "axes": {"n": 3}, "inputs": {"x": {"type": "random"}, "k": {"type": "scalar", "value": 2.0}}}' \
    '{"uuid": "b", "axes": {"n": 5}, "inputs": {"x": {"type": "random"}, "k": {"type": "scalar", "value": 0.5}}, "tolerance": {"max_atol": 0.001, "max_rtol": 0.002}}' \
    >$T/prob/workload.jsonl
"$CAIRN" new $T/scale --from-sol-execbench $T/prob/definition.json >"$T/o" 2>"$T/e"; rc=$?
ok "cairn new --from-sol-execbench: exit 0 (got $rc: $(cat "$T/e"))" "$([ $rc = 0 ]; echo $?)"
ok "the signature: a const per fixed axis, a usize per variable one, a view per tensor, a scalar per number" \
    "$(grep -q '^const D:usize = 8;$' $T/scale/src/scale.cairn &&
       grep -q '^fn scale(n:usize, x:ro<f32>\[n \* D\]@device, k:f32, y:rw<f32>\[n \* D\]@device) {$' $T/scale/src/scale.cairn &&
       grep -q '^//   def run(x, k):$' $T/scale/src/scale.cairn; echo $?)"
ok "the project: sm_100a, the problem's files, the tightest tolerances" \
    "$(grep -q 'device_target = "sm_100a"' $T/scale/cairn.toml && cmp -s $T/prob/workload.jsonl $T/scale/problem/workload.jsonl &&
       grep -q '"max_atol": 0.001,' $T/scale/policy.json && grep -q '"max_rtol": 0.002,' $T/scale/policy.json; echo $?)"
"$CAIRN" check $T/scale/src/scale.cairn --device-target sm_100a >/dev/null 2>&1
ok "the signature is accepted" $?
if command -v nvcc >/dev/null 2>&1; then
    "$CAIRN" export $T/scale --harness sol-execbench --symbol scale --out $T/scale-out >/dev/null 2>"$T/e"
    ok "its mapping exports (sm_100a for the B200): $(head -c 300 "$T/e")" "$("$CAIRN" export $T/scale-out | grep -q harness-intact; echo $?)"
else
    skip=$((skip + 1))
fi
sed 's/"shape": null, "dtype": "float32"/"shape": null, "dtype": "float4_e2m1fn_x2"/' $T/prob/definition.json >$T/prob/fp4.json
"$CAIRN" new $T/fp4 --from-sol-execbench $T/prob/fp4.json >/dev/null 2>"$T/e"; rc=$?
ok "a dtype CAIRN lacks: E-HARNESS-DTYPE, exit 1, nothing left (rc $rc: $(cat "$T/e"))" \
    "$([ $rc = 1 ] && grep -q 'error\[E-HARNESS-DTYPE\]: input k is float4_e2m1fn_x2' "$T/e" && [ ! -e $T/fp4 ]; echo $?)"
"$CAIRN" new $T/scale --from-sol-execbench $T/prob/definition.json >/dev/null 2>&1; rc=$?
ok "cairn new into a directory that is not empty: exit 2 (got $rc)" "$([ $rc = 2 ]; echo $?)"

# usage errors: exit 2, a message
"$CAIRN" export "$P" --harness nope --symbol vadd --out "$T/x" 2>"$T/e"; rc=$?
ok "an unknown --harness: exit 2 (got $rc)" "$([ $rc = 2 ] && grep -q 'sol-execbench, gpumode and kernelbench' "$T/e"; echo $?)"
printf '[axes]\nhidden = "big"\n' >$P/harness.toml
"$CAIRN" export "$P" --harness gpumode --symbol vadd --out "$T/x" 2>"$T/e"; rc=$?
ok "a malformed mapping: exit 2 with the line (got $rc: $(cat "$T/e"))" "$([ $rc = 2 ] && grep -q 'harness.toml:2:' "$T/e"; echo $?)"

echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
