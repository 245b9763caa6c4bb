#!/usr/bin/env bash
# The tensor cores in the SASS nvcc compiles for the H200 (sm_90a), read back with cuobjdump (issue 18):
#   examples/tensor/tile64 and tile128 (WMMA fragments) and tile32 (mma.sync fragments, a swizzled A stage)
#     compile to HMMA.16816.F32 fed by LDSM (ldmatrix) from their shared stages, with no load from
#     local memory, their stages filled by 16-byte cp.async (LDGSTS.E.BYPASS.128: tile32's A through
#     its swizzle); tile32's B comes transposed (LDSM.16.MT88);
#   tests/tensor/run_frag_wmma (bf16 WMMA fragments) and run_mma_device (mma_unordered's own tiling,
#     cairn_mma.h, f16 and bf16) compile to HMMA.16816.F32.BF16 as well as HMMA.16816.F32.
# Skipped without nvcc or cuobjdump (tools/setup.sh installs cuobjdump from PyPI).
# Prints `N passed, N failed, N skipped`.
set -u
cd "$(dirname "$0")/../.."
CAIRN=${CAIRN:-bin/cairn}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() { if [ "$2" = 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL tensor_sass: $1"; fi; }
. tests/sass_lib.sh
sass_tools tensor_sass nvcc cuobjdump
for f in examples/tensor/tile64 examples/tensor/tile32 examples/tensor/tile128 tests/tensor/run_frag_wmma tests/tensor/run_mma_device; do
    n=$(basename "$f")
    "$CAIRN" build --device-target sm_90a --out "$T/$n" "$f.cairn" >"$T/$n.log" 2>&1
    ok "$n builds for sm_90a ($(head -c 200 "$T/$n.log"))" $?
    cuobjdump -sass "$T/$n/$n" >"$T/$n.sass" 2>"$T/$n.dump.log"
    ok "cuobjdump reads $n ($(head -c 200 "$T/$n.dump.log"))" $?
done
for n in tile64 tile32 tile128; do
    ok "$n multiplies with HMMA.16816.F32 ($(grep -c 'HMMA.16816.F32 ' "$T/$n.sass") of them)" \
        "$(grep -q 'HMMA.16816.F32 ' "$T/$n.sass"; echo $?)"
    ok "$n feeds them with LDSM ($(grep -c 'LDSM' "$T/$n.sass") of them)" "$(grep -q 'LDSM.16.M88' "$T/$n.sass"; echo $?)"
    ok "$n loads nothing from local memory" "$(! grep -qE '\bLDL\b' "$T/$n.sass"; echo $?)"
    ok "$n's row fills copy 16 bytes at a time (LDGSTS.E.BYPASS.128)" \
        "$(grep -q 'LDGSTS.E.BYPASS.128' "$T/$n.sass"; echo $?)"
done
ok "tile32 reads B transposed (LDSM.16.MT88)" "$(grep -q 'LDSM.16.MT88' "$T/tile32.sass"; echo $?)"
# tile64's fragment loads carry no alignment guard (their tiles lie on 32 bytes by place and layout):
# a step's eight LDSM and sixteen HMMA, from its wait's barrier to the next, with no branch among them
step=$(grep -oE 'DEPBAR.LE SB0, 0x2|LDSM|HMMA|BAR.SYNC|BRA' "$T/tile64.sass" |
       awk '/DEPBAR/ { on = 1; next } on == 1 && /BAR.SYNC/ { on = 2; next } on == 2 && /BAR.SYNC/ { exit }
            on == 2 { n[$1]++ } END { printf "%d LDSM %d HMMA %d BRA", n["LDSM"], n["HMMA"], n["BRA"] }')
ok "tile64's step loads and multiplies with no guard between ($step)" \
    "$(echo "$step" | grep -qx '8 LDSM 16 HMMA 0 BRA'; echo $?)"
# tile128's too: its fragment coordinates (wr + 3 for wr = ty / 4 * 4) are checked against the stage's
# 8 fragment rows, which folds only because nvcc is told threadIdx.x < 256 (emit_coop.c); each check
# was a branch between the loads before
step=$(grep -oE 'DEPBAR.LE SB0, 0x2|LDSM|HMMA|BAR.SYNC|BRA' "$T/tile128.sass" |
       awk '/DEPBAR/ { on = 1; next } on == 1 && /BAR.SYNC/ { on = 2; next } on == 2 && /BAR.SYNC/ { exit }
            on == 2 { n[$1]++ } END { printf "%d LDSM %d HMMA %d BRA", n["LDSM"], n["HMMA"], n["BRA"] }')
ok "tile128's step loads and multiplies with no check between ($step)" \
    "$(echo "$step" | grep -qx '12 LDSM 32 HMMA 0 BRA'; echo $?)"
# tile64's sa.wait(); sb.wait(); meet the block once: the two cp.async waits, then one barrier
ops=$(grep -oE 'DEPBAR.LE SB0, 0x[0-9]|BAR.SYNC' "$T/tile64.sass" | tr '\n' ' ')
ok "tile64's two waits share one barrier (DEPBAR 0x3, DEPBAR 0x2, BAR.SYNC: $(echo "$ops" | head -c 120))" \
    "$(echo "$ops" | grep -q 'DEPBAR.LE SB0, 0x3 DEPBAR.LE SB0, 0x2 BAR.SYNC' &&
       ! echo "$ops" | grep -q 'DEPBAR.LE SB0, 0x3 BAR.SYNC'; echo $?)"
# the knob CN_COOPD_PAD16=1 (runtime/cairn_coopdev.h, opt-in until measured): fill_rows's pads past
# each row in 16-byte stores (STS.128, which tile64's default build has none of), no local memory
"$CAIRN" build examples/tensor/tile64.cairn --header --device-target sm_90a --out "$T/t64h" >"$T/t64h.log" 2>&1 &&
    nvcc -std=c++17 -O3 -x cu --fmad=false -gencode=arch=compute_90a,code=sm_90a -w -DCN_COOPD_PAD16=1 -Iruntime \
        -c "$T/t64h/tile64.c" -o "$T/t64p.o" >>"$T/t64h.log" 2>&1
ok "tile64 builds with CN_COOPD_PAD16=1 ($(head -c 200 "$T/t64h.log"))" $?
cuobjdump -sass "$T/t64p.o" >"$T/t64p.sass" 2>/dev/null
ok "tile64 with CN_COOPD_PAD16=1 stores its pads 16 bytes at a time (STS.128)" \
    "$(grep -q 'STS.128' "$T/t64p.sass" && ! grep -q 'STS.128' "$T/tile64.sass"; echo $?)"
ok "tile64 with CN_COOPD_PAD16=1 loads nothing from local memory" "$(! grep -qE '\bLDL\b' "$T/t64p.sass"; echo $?)"
# a row fill of whole 16-byte chunks whose row takes a power of two of them (4: 32 f16) gives each
# thread one column of chunks: the loop around its cp.async only moves two addresses (at most 12
# instructions with the branch, no IMAD.HI of a division by the row's chunks); tile128's fast kernel
# then keeps to 128 registers, two blocks of 256 a multiprocessor
for n in tile64 tile128; do
    loops=$(cuobjdump -sass "$T/$n/$n" 2>/dev/null | python3 -c '
import re, sys
short = 0
for fn in sys.stdin.read().split("Function :")[1:]:
    ins = [(int(m.group(1), 16), m.group(2)) for m in re.finditer(r"/\*([0-9a-f]{4,})\*/\s+([^;]*);", fn)]
    for a, t in ins:
        m = re.search(r"BRA (0x[0-9a-f]+)", t)
        if m and int(m.group(1), 16) < a:
            body = [x for b, x in ins if int(m.group(1), 16) <= b <= a]
            if any("LDGSTS.E.BYPASS.128" in x for x in body) and len(body) <= 12 and not any("IMAD.HI" in x for x in body):
                short += 1
print(short)')
    ok "$n's row fills copy a column of chunks a thread ($loops loops of at most 12 instructions)" \
        "$([ "${loops:-0}" -ge 2 ]; echo $?)"
done
"$CAIRN" build examples/tensor/tile128.cairn --header --device-target sm_90a --out "$T/t128h" >"$T/t128h.log" 2>&1 &&
    nvcc -std=c++17 -O3 -x cu --fmad=false -gencode=arch=compute_90a,code=sm_90a -w -Iruntime -Xptxas -v \
        -c "$T/t128h/tile128.c" -o "$T/t128.o" >>"$T/t128h.log" 2>&1
ok "tile128 builds with ptxas's report ($(head -c 200 "$T/t128h.log"))" $?
regs=$(awk '/Compiling entry.*ILb1E/ { on = 1 } on && /Used [0-9]+ registers/ { sub(/.*Used /, ""); print $1; exit }' "$T/t128h.log")
ok "tile128's fast kernel keeps to 128 registers (${regs:-none})" "$([ -n "$regs" ] && [ "$regs" -le 128 ]; echo $?)"
# fills by teams (cairn_coopdev.h, CN_COOPD_TEAMS): tile128's two pipelines each get half the block's
# warps, sharing one pad memo; tile32's A goes through a swizzle, so its fills keep the whole block
ok "tile128's pipelines have a team each (warps 0-3 fill sa, 4-7 sb)" \
    "$(grep -q 'cn_coopd_fill_rows<0u, 128u, 256u, [0-9]*u, [0-9]*u>(v_sa' "$T/t128h/tile128.c" &&
       grep -q 'cn_coopd_fill_rows<128u, 128u, 256u, [0-9]*u, [0-9]*u>(v_sb' "$T/t128h/tile128.c" &&
       grep -q 'struct cn_coopd_padmemo &cn_pm_v_sb_[0-9]* = cn_pm_v_sa_' "$T/t128h/tile128.c"; echo $?)"
"$CAIRN" build examples/tensor/tile32.cairn --header --device-target sm_90a --out "$T/t32h" >"$T/t32h.log" 2>&1
ok "tile32's fills (A through a swizzle) keep the whole block" \
    "$(grep -q 'cn_coopd_fill_rows<0u, 256u, 256u, ' "$T/t32h/tile32.c" && ! grep -q cn_coopd_in_team "$T/t32h/tile32.c"; echo $?)"
# teams are the default (the fast kernel above has them); every fill by the whole block instead:
nvcc -std=c++17 -O3 -x cu --fmad=false -gencode=arch=compute_90a,code=sm_90a -w -Iruntime -Xptxas -v -DCN_COOPD_TEAMS=0 \
    -c "$T/t128h/tile128.c" -o "$T/t128t.o" >"$T/t128t.log" 2>&1
ok "tile128 builds without teams ($(head -c 200 "$T/t128t.log"))" $?
spill=$(awk '/Compiling entry.*ILb1E/ { on = 1 } on && /spill stores/ { print $5; exit }' "$T/t128t.log")
ok "tile128's fast kernel without teams spills nothing (${spill:-none} bytes)" "$([ "${spill:-x}" = 0 ]; echo $?)"
# fills specialized to their bounds (CN_COOPD_CONST_ROWS=1): the emitter reads 128 and 32 off tile128's
# `ra = min(128, m - i0)` and `min(32, k)`; built so without teams, the fast kernel spills nothing
# (with teams it spills 16 bytes: ran at 191-208 TFLOP/s on an H100, evidence/2026-12-07-h100-call37.md)
ok "tile128's row fills carry their rows' and cols' bounds" \
    "$(grep -q 'cn_coopd_fill_rows<0u, 128u, 256u, 128u, 32u>(v_sa' "$T/t128h/tile128.c" &&
       grep -q 'cn_coopd_fill_rows<128u, 128u, 256u, 32u, 128u>(v_sb' "$T/t128h/tile128.c"; echo $?)"
nvcc -std=c++17 -O3 -x cu --fmad=false -gencode=arch=compute_90a,code=sm_90a -w -Iruntime -Xptxas -v \
    -DCN_COOPD_CONST_ROWS=1 -DCN_COOPD_TEAMS=0 -c "$T/t128h/tile128.c" -o "$T/t128c.o" >"$T/t128c.log" 2>&1
ok "tile128 builds with CN_COOPD_CONST_ROWS=1 ($(head -c 200 "$T/t128c.log"))" $?
spill=$(awk '/Compiling entry.*ILb1E/ { on = 1 } on && /spill stores/ { print $5; exit }' "$T/t128c.log")
ok "tile128's fast kernel with CN_COOPD_CONST_ROWS=1 and no teams spills nothing (${spill:-none} bytes)" "$([ "${spill:-x}" = 0 ]; echo $?)"
for n in run_frag_wmma run_mma_device; do
    ok "$n multiplies bf16 with HMMA.16816.F32.BF16" "$(grep -q 'HMMA.16816.F32.BF16' "$T/$n.sass"; echo $?)"
    ok "$n multiplies f16 with HMMA.16816.F32" "$(grep -q 'HMMA.16816.F32 ' "$T/$n.sass"; echo $?)"
done
# mma_unordered's TMA tiling (runtime/cairn_mma_tma.h, -DCN_MMA_WGMMA=2): Hopper's warpgroup multiply
# fed by the TMA, with the producer's registers given back, and nothing in local memory
nvcc -std=c++17 -O2 -x cu --fmad=false -gencode=arch=compute_90a,code=sm_90a -DCN_MMA_WGMMA=2 -Iruntime \
    -Itests/unit -o "$T/mc_wgt" tests/unit/test_mma.c -lgmp >"$T/wgt.log" 2>&1
ok "the TMA tiling builds for sm_90a ($(head -c 200 "$T/wgt.log"))" $?
cuobjdump -sass "$T/mc_wgt" 2>/dev/null | awk '/Function : .*cn_wgt_kernel/ { on = 1 } /Function : / && !/cn_wgt_kernel/ { on = 0 } on' \
    >"$T/wgt.sass"
for op in 'HGMMA.64x256x16.F32' 'UTMALDG.2D' 'SYNCS.ARRIVE.TRANS64' 'USETMAXREG.DEALLOC' 'USETMAXREG.TRY_ALLOC'; do
    ok "the TMA tiling's kernels hold $op" "$(grep -q "$op" "$T/wgt.sass"; echo $?)"
done
ok "the TMA tiling loads nothing from local memory" "$(! grep -qE '\b(LDL|STL)\b' "$T/wgt.sass"; echo $?)"
ok "the TMA tiling waits for all of a step's wgmma (DEPBAR.LE gsb0, 0x0)" "$(grep -q 'DEPBAR.LE gsb0, 0x0' "$T/wgt.sass"; echo $?)"
# c is written in pairs of columns (8 bytes: whole 32-byte sectors a warp)
ok "the TMA tiling writes c in 8-byte pairs (STG.E.64)" "$(grep -q 'STG.E.64' "$T/wgt.sass"; echo $?)"
# its knob CN_WGT_INFLIGHT=1: one step's wgmma left in flight (DEPBAR.LE gsb0, 0x1), still no local memory
nvcc -std=c++17 -O2 -x cu --fmad=false -gencode=arch=compute_90a,code=sm_90a -DCN_MMA_WGMMA=2 -DCN_WGT_INFLIGHT=1 \
    -Iruntime -Itests/unit -o "$T/mc_wgt3" tests/unit/test_mma.c -lgmp >"$T/wgt3.log" 2>&1
ok "the TMA tiling with a step in flight builds for sm_90a ($(head -c 200 "$T/wgt3.log"))" $?
cuobjdump -sass "$T/mc_wgt3" 2>/dev/null | awk '/Function : .*cn_wgt_kernel/ { on = 1 } /Function : / && !/cn_wgt_kernel/ { on = 0 } on' \
    >"$T/wgt3.sass"
ok "the TMA tiling with a step in flight leaves one (DEPBAR.LE gsb0, 0x1)" "$(grep -q 'DEPBAR.LE gsb0, 0x1' "$T/wgt3.sass"; echo $?)"
ok "the TMA tiling with a step in flight loads nothing from local memory" \
    "$(! grep -qE '\b(LDL|STL)\b' "$T/wgt3.sass"; echo $?)"
for b in wgt wgt3; do   # ptxas says C7515 where it serializes the wgmma (an accumulator defined mid-flight)
    ok "ptxas keeps the TMA tiling's wgmma asynchronous ($b: no C7515)" "$(! grep -q C7515 "$T/$b.log"; echo $?)"
done
echo "$pass passed, $fail failed, 0 skipped"
[ "$fail" = 0 ]
