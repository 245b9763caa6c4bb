#!/usr/bin/env bash
# Pipelines in the SASS nvcc compiles for the H200 (sm_90a), read back with cuobjdump (issue 17):
# tests/dev/run_pipeline.cairn (the strided sums at depths 1, 2 and 3 over u64, an f32 pipeline fed from
# odd offsets, an i32 one at depth 3) built for sm_90a must copy with LDGSTS in all three widths (16
# bytes through L2 where the source and the stage are aligned, 8 and 4 bytes per element otherwise),
# commit each fill with LDGDEPBAR, and wait with DEPBAR.LE SB0 leaving 0, 1 and 2 groups in flight
# (cp.async.wait_group at depths 1, 2 and 3), with no load from local memory. Each kernel that copies
# also waits. Skipped without nvcc or cuobjdump (tools/setup.sh installs cuobjdump from PyPI).
# Prints `N passed, N failed, N skipped`.
set -u
cd "$(dirname "$0")/../.."
CAIRN=${CAIRN:-bin/cairn}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() { if [ "$2" = 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL pipeline_sass: $1"; fi; }
. tests/sass_lib.sh
sass_tools pipeline_sass nvcc cuobjdump
"$CAIRN" build --device-target sm_90a --out "$T/b" tests/dev/run_pipeline.cairn >"$T/build.log" 2>&1
ok "run_pipeline builds for sm_90a ($(head -c 200 "$T/build.log"))" $?
cuobjdump -sass "$T/b/run_pipeline" >"$T/all.sass" 2>"$T/dump.log"
ok "cuobjdump reads it ($(head -c 200 "$T/dump.log"))" $?
for ins in 'LDGSTS.E.BYPASS.128' 'LDGSTS.E.64' 'LDGSTS.E ' 'LDGDEPBAR' 'DEPBAR.LE SB0, 0x0' 'DEPBAR.LE SB0, 0x1' 'DEPBAR.LE SB0, 0x2'; do
    ok "the pipelines compile to $ins ($(grep -c "$ins" "$T/all.sass") of them)" "$(grep -q "$ins" "$T/all.sass"; echo $?)"
done
ok "no load from local memory" "$(! grep -qE '\bLDL\b' "$T/all.sass"; echo $?)"
# kernel by kernel: one that copies also commits and waits
awk '/Function :/ {if (k) print k, c, d, w; k = $3; c = d = w = 0} /LDGSTS/ {c++} /LDGDEPBAR/ {d++} /DEPBAR.LE/ {w++}
     END {if (k) print k, c, d, w}' "$T/all.sass" >"$T/kernels.txt"
n=$(awk '$2 > 0' "$T/kernels.txt" | wc -l)
bad=$(awk '$2 > 0 && ($3 == 0 || $4 == 0) {print $1}' "$T/kernels.txt")
ok "each of the $n kernels that copies with LDGSTS commits and waits (${bad:-all do})" "$([ "$n" -ge 3 ] && [ -z "$bad" ]; echo $?)"
# row fills of 2-byte elements (tests/dev/run_pipeline_rows.cairn): the f16 kernel, whose tiles are
# whole 16-byte runs, copies with LDGSTS.E.BYPASS.128; the u16 one (odd rows) with none (2 bytes: plain
# loads and stores); both wait, and neither loads from local memory
"$CAIRN" build --device-target sm_90a --out "$T/r" tests/dev/run_pipeline_rows.cairn >"$T/rbuild.log" 2>&1
ok "run_pipeline_rows builds for sm_90a ($(head -c 200 "$T/rbuild.log"))" $?
cuobjdump -sass "$T/r/run_pipeline_rows" >"$T/rows.sass" 2>"$T/rdump.log"
awk '/Function :/ {if (k) print k, c, w, l; k = $3; c = w = l = 0} /LDGSTS.E.BYPASS.128/ {c++} /DEPBAR.LE/ {w++}
     /\<LDL\>/ {l++} END {if (k) print k, c, w, l}' "$T/rows.sass" >"$T/rkernels.txt"
ok "a row-fill kernel copies with LDGSTS.E.BYPASS.128 and waits ($(tr '\n' ';' <"$T/rkernels.txt"))" \
    "$(awk '$2 > 0 && $3 > 0' "$T/rkernels.txt" | grep -q .; echo $?)"
ok "no row-fill kernel loads from local memory" "$(awk '$4 > 0' "$T/rkernels.txt" | grep -q .; [ $? = 1 ]; echo $?)"
echo "$pass passed, $fail failed, 0 skipped"
[ "$fail" = 0 ]
