#!/usr/bin/env bash
# The device's exact f32 and f64 sums (runtime/cairn_devsum.h) in the SASS nvcc compiles for sm_90a,
# read back with cuobjdump: tests/dev/run_exact_sum.cairn built with --header, its C compiled with
# each f32 fold (CN_DSUM32_WINDOW=0, the bins; 1, the window; 2, the pair in front of the bins, not
# yet timed on a GPU, which no other test compiles): each builds, no fold kernel spills a register
# (the 17 limbs thread 0 carries at the end live in local memory, as they always have), and the
# pair's fold adds in f32 (FADD, four a term: a batch of 8 makes 32) where the bins'
# fold has none; the f64 fold's whole batches; one-bin batches (CN_DSUM32_SAME, and in an integer,
# CN_DSUM32_SAME_INT=1); 16-byte loads (CN_DSUM_VEC); batches of 16 f32 terms with a hot bin
# (CN_DSUM32_U, CN_DSUM32_HOT). Skipped without nvcc or cuobjdump. Prints `N passed, N failed, N skipped`.
set -u
cd "$(dirname "$0")/../.."
CAIRN=${CAIRN:-bin/cairn}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() { if [ "$2" = 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL dsum_sass: $1"; fi; }
. tests/sass_lib.sh
sass_tools dsum_sass nvcc cuobjdump
"$CAIRN" build tests/dev/run_exact_sum.cairn --header --device-target sm_90a --out "$T/h" >"$T/h.log" 2>&1
ok "run_exact_sum builds with --header ($(head -c 200 "$T/h.log"))" $?
# folds NAME FLAGS: run_exact_sum's C compiled for sm_90a with FLAGS, its fold kernels' SASS in
# $T/NAME.sass; two checks: it compiles, and no fold kernel spills.
folds() {
    nvcc -std=c++17 -O3 -x cu --fmad=false -gencode=arch=compute_90a,code=sm_90a -w $2 -Iruntime \
        -Xptxas -v -c "$T/h/run_exact_sum.c" -o "$T/$1.o" >"$T/$1.log" 2>&1
    ok "the folds with $2 compile for sm_90a ($(grep -v 'ptxas info' "$T/$1.log" | head -c 200))" $?
    sass_of "$T/$1.o" fold_kernel >"$T/$1.sass" 2>/dev/null
    local spills
    spills=$(awk '/Function properties for .*fold_kernel/ { on = 1; next } on && /spill stores/ { s += $5; on = 0 } END { print s + 0 }' "$T/$1.log")
    ok "the folds with $2 spill nothing ($spills bytes)" "$([ "$spills" = 0 ]; echo $?)"
}
# (the window, which holds six blocks an SM, with the batches of 8 it was timed with: 16 spill there)
for w in 0 1 2; do
    folds "w$w" "-DCN_DSUM32_WINDOW=$w$([ $w = 1 ] && echo ' -DCN_DSUM32_U=8')"
    fadd=$(grep -c 'FADD' "$T/w$w.sass")
    case $w in
        0) ok "the bins' folds add no f32 ($fadd FADD)" "$([ "$fadd" = 0 ]; echo $?)" ;;
        2) ok "the pair's f32 fold adds in f32 ($fadd FADD, 32 a batch of 8 at least)" "$([ "$fadd" -ge 32 ]; echo $?)" ;;
    esac
done
# The f64 fold adds a batch its window takes whole with no branch between its terms (CN_DSUM64_WHOLE=2,
# the default, and 1): a run of at least 64 DADD (16 terms, four each) with no branch or convergence
# barrier in it, where term by term (0) each term's four sit between branches.
run=$(awk '/BRA|BSSY|BSYNC|EXIT|RET/ { n = 0 } /DADD/ { if (++n > m) m = n } END { print m + 0 }' "$T/w0.sass")
ok "the f64 fold's whole batch: $run DADD without a branch between (64 at least)" "$([ "$run" -ge 64 ]; echo $?)"
folds h1 -DCN_DSUM64_WHOLE=1
# CN_DSUM32_SAME (the default): a batch whose terms share a bin goes in with one add: more DADD than
# a term at a time (=0), each term's load, add and store of its bin.
folds s0 -DCN_DSUM32_SAME=0
ok "the one-bin batch's adds: $(grep -c 'DADD' "$T/w0.sass") DADD where CN_DSUM32_SAME=0 has $(grep -c 'DADD' "$T/s0.sass")" \
    "$([ "$(grep -c 'DADD' "$T/w0.sass")" -gt "$(grep -c 'DADD' "$T/s0.sass")" ]; echo $?)"
# CN_DSUM32_SAME_INT=1 (opt-in): a one-bin batch of normal terms adds in a 64-bit integer, converted
# once a batch (I2F.F64.S64), where the default converts each term (F2F.F64.F32).
folds i1 -DCN_DSUM32_SAME_INT=1
i1=$(grep -c 'I2F.F64.S64' "$T/i1.sass"); i0=$(grep -c 'I2F.F64.S64' "$T/w0.sass")
ok "CN_DSUM32_SAME_INT=1 converts a batch's integer sum ($i1 I2F.F64.S64; the default's $i0)" \
    "$([ "$i1" -gt "$i0" ]; echo $?)"
# CN_DSUM_VEC (the default): 16-byte loads where the term reads a view as it is; =0 reads 4 or 8.
folds v0 -DCN_DSUM_VEC=0
v1=$(grep -c 'LDG.E.*\.128' "$T/w0.sass"); v0=$(grep -c 'LDG.E.*\.128' "$T/v0.sass")
ok "the folds load 16 bytes at a time ($v1 LDG.128; CN_DSUM_VEC=0's $v0)" \
    "$([ "$v1" -ge 4 ] && [ "$v0" = 0 ]; echo $?)"
# CN_DSUM32_U=16 with the hot bin (CN_DSUM32_HOT=1, the defaults): a batch is four 16-byte loads where
# the old default's (8, no hot bin) is two, and the hot bin's adds are DADDs the shared bins' lack.
folds u8 "-DCN_DSUM32_U=8 -DCN_DSUM32_HOT=0"
u8=$(grep -c 'LDG.E.*\.128' "$T/u8.sass")
ok "the f32 fold's batch of 16: $v1 LDG.128 where batches of 8 have $u8" "$([ "$v1" -gt "$u8" ]; echo $?)"
folds hot0 "-DCN_DSUM32_HOT=0"
ok "the hot bin's adds: $(grep -c 'DADD' "$T/w0.sass") DADD where CN_DSUM32_HOT=0 has $(grep -c 'DADD' "$T/hot0.sass")" \
    "$([ "$(grep -c 'DADD' "$T/w0.sass")" -gt "$(grep -c 'DADD' "$T/hot0.sass")" ]; echo $?)"
echo "$pass passed, $fail failed, 0 skipped"
[ "$fail" = 0 ]
