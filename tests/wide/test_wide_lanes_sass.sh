#!/usr/bin/env bash
# Wide lanes as the device runs them (analyze.c, "Wide lanes"), on a machine without a GPU:
# tests/dev/run_wide_lanes.cairn built by cairn for sm_90a with nvcc, each function's kernel read back
# with cuobjdump -sass:
#   saxpy (f32): x and y loaded, out stored, in 128-bit accesses (LDG.E.128, STG.E.128);
#   widen (f16 in, f64 out, 8 lanes a thread): one LDG.E.128 and four STG.E.128 a group;
#   bytes (u8, 16 lanes a thread): LDG.E.128 and STG.E.128;
#   iota (stores only): STG.E.128;
#   one (`plan one { vector 1; }`): no 128-bit access;
#   three (`vector 3`: 12 bytes a group, 4 at a time): no 128-bit access;
#   every one of them: no local memory (LDL, STL) before the kernel's first EXIT.
# Each kernel keeps its one-lane path for misaligned views and the tail (a 32-bit LDG.E / STG.E).
# Prints FAIL lines and `N passed, N failed, N skipped`; skipped without nvcc, cuobjdump or nvdisasm.
set -u
cd "$(dirname "$0")/../.."
CAIRN=${CAIRN:-bin/cairn}
CAIRN=$(cd "$(dirname "$CAIRN")" && pwd)/$(basename "$CAIRN")
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() {   # ok NAME CONDITION-STATUS
    if [ "$2" = 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL wide_lanes_sass: $1"; fi
}
. tests/sass_lib.sh
sass_tools wide_lanes_sass nvcc cuobjdump nvdisasm
if ! "$CAIRN" build --device-target sm_90a --out "$T/b" tests/dev/run_wide_lanes.cairn >"$T/build.log" 2>&1; then
    ok "run_wide_lanes builds for sm_90a: $(head -c 300 "$T/build.log")" 1
    echo "$pass passed, $fail failed, 0 skipped"
    exit 1
fi
# kernel_of FN: the region kernel whose name says it is in fn FN (the emitted C's _what string)
kernel_of() {
    grep -oE "cn_dregion[0-9]+_lane_k_what\[\] = \"parallel region at \" CN_FILE \":[0-9]+:[0-9]+ in fn $1\"" \
        "$T/b/run_wide_lanes.c" | grep -oE '^cn_dregion[0-9]+_lane_k'
}
# ops FN: the memory instructions of FN's kernel, up to its first unconditional EXIT, one a line
ops() {
    local k; k=$(kernel_of "$1")
    [ -n "$k" ] || return
    sass_of "$T/b/run_wide_lanes" "${k}_kernel" | awk '/EXIT$/ && !/@/ {exit} {print}' |
        grep -oE '\b(LDG|STG|LDL|STL)[.A-Z0-9]*'
}
count() { ops "$1" | grep -cx "$2"; }
for fn in saxpy widen bytes iota one three two readback guarded; do
    ok "$fn has a kernel" "$([ -n "$(kernel_of $fn)" ]; echo $?)"
done
ok "saxpy: 2 LDG.E.128 ($(ops saxpy | tr '\n' ' '))" "$([ "$(count saxpy LDG.E.128)" -ge 2 ]; echo $?)"
ok "saxpy: STG.E.128" "$([ "$(count saxpy STG.E.128)" -ge 1 ]; echo $?)"
ok "widen: LDG.E.128 and 4 STG.E.128 ($(ops widen | tr '\n' ' '))" \
    "$([ "$(count widen LDG.E.128)" -ge 1 ] && [ "$(count widen STG.E.128)" -ge 4 ]; echo $?)"
ok "bytes: LDG.E.128 and STG.E.128 ($(ops bytes | tr '\n' ' '))" \
    "$([ "$(count bytes LDG.E.128)" -ge 1 ] && [ "$(count bytes STG.E.128)" -ge 1 ]; echo $?)"
ok "iota: STG.E.128 ($(ops iota | tr '\n' ' '))" "$([ "$(count iota STG.E.128)" -ge 1 ]; echo $?)"
ok "two: STG.E.128 for a and b ($(ops two | tr '\n' ' '))" "$([ "$(count two STG.E.128)" -ge 3 ]; echo $?)"
ok "one (vector 1): no 128-bit access ($(ops one | tr '\n' ' '))" "$(! ops one | grep -q '128'; echo $?)"
ok "three (vector 3): no 128-bit access ($(ops three | tr '\n' ' '))" "$(! ops three | grep -q '128'; echo $?)"
ok "readback: x loaded wide, out stored in place ($(ops readback | tr '\n' ' '))" \
    "$([ "$(count readback LDG.E.128)" -ge 1 ] && [ "$(count readback STG.E.128)" = 0 ]; echo $?)"
for fn in saxpy widen bytes iota one three two readback guarded; do
    ok "$fn: no local memory before EXIT" "$(! ops $fn | grep -qE '^(LDL|STL)'; echo $?)"
done
echo "$pass passed, $fail failed, 0 skipped"
[ "$fail" = 0 ]
