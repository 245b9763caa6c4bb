#!/usr/bin/env bash
# Wide loads and stores as the device runs them, on a machine without a GPU: the spec's d19
# (tests/spec/d19-scaled-wide.cairn, with a main) and tests/dev/run_wide.cairn built by cairn for
# sm_90a with nvcc, then read back with cuobjdump -sass:
#   1. d19's lane loads x and stores out in one 128-bit access each with the streaming operator
#      (.cs: LDG.E.EF.128 and STG.E.EF.128), and no other global access;
#   2. its Arrays stay in registers: no LDL anywhere, ptxas spills nothing, and every STL lies past
#      the lane loop's EXIT, in the guards' failure paths (the printf argument buffer a failing
#      guard reports from, which every lane with a guard in it has);
#   3. each hint's instruction (run_wide.cairn): Cache.all LDG.E.128 / STG.E.128, Cache.l2 (.cg)
#      LDG.E.128.STRONG.GPU / STG.E.128.STRONG.GPU, Cache.last_use (.lu) LDG.E.LU.128,
#      Cache.read_only (.nc) LDG.E.128.CONSTANT, a shared array LDS.128 / STS.128, and the narrower
#      widths LDG.E.64 and LDG.E;
#   4. the emitted C has the hint's constant at each access (CN_CACHE_STREAMING, ...).
# Prints FAIL lines and `N passed, N failed, N skipped`. Without nvcc or cuobjdump (and nvdisasm,
# which cuobjdump runs) everything is skipped; tools/setup.sh installs cuobjdump and nvdisasm from
# their PyPI packages where nvcc is present and they are not.
set -u
cd "$(dirname "$0")/../.."
CAIRN=${CAIRN:-bin/cairn}
CAIRN=$(cd "$(dirname "$CAIRN")" && pwd)/$(basename "$CAIRN")
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() {   # ok NAME CONDITION-STATUS
    if [ "$2" = 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL wide_sass: $1"; fi
}
. tests/sass_lib.sh
sass_tools wide_sass nvcc cuobjdump nvdisasm

# 1, 2: d19 as the spec prints it, with a main
{ sed -n '/^fn scaled/,/^}/p' tests/spec/d19-scaled-wide.cairn; echo 'fn main() -> i32 { return 0; }'; } >"$T/d19.cairn"
if "$CAIRN" build --device-target sm_90a --out "$T/d19" "$T/d19.cairn" >"$T/d19.log" 2>&1; then
    ok "d19 builds for sm_90a" 0
    s=$(sass_of "$T/d19/d19" cn_dregion1_lane)
    echo "$s" >"$T/d19.sass"
    ok "d19: the load is LDG.E.EF.128 ($(grep -o 'LDG[.A-Z0-9]*' "$T/d19.sass" | tr '\n' ' '))" \
        "$([ "$(grep -o 'LDG[.A-Z0-9]*' "$T/d19.sass")" = LDG.E.EF.128 ]; echo $?)"
    ok "d19: the store is STG.E.EF.128 ($(grep -o 'STG[.A-Z0-9]*' "$T/d19.sass" | tr '\n' ' '))" \
        "$([ "$(grep -o 'STG[.A-Z0-9]*' "$T/d19.sass")" = STG.E.EF.128 ]; echo $?)"
    ok "d19: no load from local memory (LDL)" "$(! grep -q 'LDL' "$T/d19.sass"; echo $?)"
    exit_line=$(grep -n 'EXIT$' "$T/d19.sass" | grep -v '@' | head -1 | cut -d: -f1)
    first_stl=$(grep -n 'STL' "$T/d19.sass" | head -1 | cut -d: -f1)
    wide_line=$(grep -n 'STG.E.EF.128' "$T/d19.sass" | head -1 | cut -d: -f1)
    ok "d19: the accesses come before the lane loop's EXIT (line ${exit_line:-none}), every STL after it (first ${first_stl:-none})" \
        "$([ -n "$exit_line" ] && [ -n "$wide_line" ] && [ "$wide_line" -lt "$exit_line" ] &&
           { [ -z "$first_stl" ] || [ "$first_stl" -gt "$exit_line" ]; }; echo $?)"
    ok "d19: the hint reaches the emitted C" \
        "$([ "$(grep -c 'CN_CACHE_STREAMING, 1, ' "$T/d19/d19.c")" = 2 ]; echo $?)"
    nvcc -std=c++17 -O3 -x cu --fmad=false -gencode=arch=compute_90a,code=sm_90a -Iruntime -w -c \
        -Xptxas -v -o "$T/d19.o" "$T/d19/d19.c" >"$T/ptxas.log" 2>&1
    ok "d19: ptxas spills nothing ($(grep -o '[0-9]* bytes spill stores, [0-9]* bytes spill loads' "$T/ptxas.log" | sort -u | tr '\n' ' '))" \
        "$(grep -q 'spill' "$T/ptxas.log" && ! grep -E '[1-9][0-9]* bytes spill' "$T/ptxas.log" >/dev/null; echo $?)"
else
    ok "d19 builds for sm_90a: $(head -c 300 "$T/d19.log")" 1
fi

# 3: every hint's instruction
if "$CAIRN" build --device-target sm_90a --out "$T/rw" tests/dev/run_wide.cairn >"$T/rw.log" 2>&1; then
    ok "run_wide builds for sm_90a" 0
    cuobjdump -sass "$T/rw/run_wide" | grep -oE '\b(LDG|STG|LDS|STS|LDL|STL)[.A-Z0-9]*' | sort -u >"$T/rw.ops"
    for want in LDG.E.EF.128 STG.E.EF.128 LDG.E.128.STRONG.GPU STG.E.128.STRONG.GPU LDG.E.LU.128 \
                LDG.E.128.CONSTANT LDG.E.128 STG.E.128 LDS.128 STS.128 LDG.E.64 STG.E.64 LDG.E; do
        ok "run_wide: $want ($(tr '\n' ' ' <"$T/rw.ops"))" "$(grep -qx "$want" "$T/rw.ops"; echo $?)"
    done
    ok "run_wide: no LDL" "$(! grep -q '^LDL' "$T/rw.ops"; echo $?)"
    ok "run_wide: no explicitly ordered access (__ldca / __stwb would give .STRONG.SM)" \
        "$(! grep -q 'STRONG.SM' "$T/rw.ops"; echo $?)"
else
    ok "run_wide builds for sm_90a: $(head -c 300 "$T/rw.log")" 1
fi
echo "$pass passed, $fail failed, 0 skipped"
[ "$fail" = 0 ]
