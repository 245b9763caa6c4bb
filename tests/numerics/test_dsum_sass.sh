#!/usr/bin/env bash
# The device's exact f32 and f64 sums (runtime/cairn_devsum.h) in the SASS nvcc compiles for sm_90a,
# read back with cuobjdump: tests/dev/run_exact_sum.cairn built with --header, its C compiled with
# each f32 fold (CN_DSUM32_WINDOW=0, the bins; 1, the window; 2, the pair in front of the bins, not
# yet timed on a GPU, which no other test compiles): each builds, no fold kernel spills a register
# (the 17 limbs thread 0 carries at the end live in local memory, as they always have), and the
# pair's fold adds in f32 (FADD, four a term: a batch of 8 makes 32) where the bins'
# fold has none; the f64 fold's whole batches; the bins with CN_DSUM32_SAME=1; and 16-byte loads
# with CN_DSUM_VEC=1. Skipped without nvcc or cuobjdump. Prints `N passed, N failed, N skipped`.
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
for w in 0 1 2; do
    folds "w$w" "-DCN_DSUM32_WINDOW=$w"
    fadd=$(grep -c 'FADD' "$T/w$w.sass")
    case $w in
        0) ok "the bins' folds add no f32 ($fadd FADD)" "$([ "$fadd" = 0 ]; echo $?)" ;;
        2) ok "the pair's f32 fold adds in f32 ($fadd FADD, 32 a batch of 8 at least)" "$([ "$fadd" -ge 32 ]; echo $?)" ;;
    esac
done
# The f64 fold adds a batch its window takes whole with no branch between its terms (CN_DSUM64_WHOLE,
# the default): a run of at least 64 DADD (16 terms, four each) with no branch or convergence barrier
# in it, where term by term each term's four sit between branches.
run=$(awk '/BRA|BSSY|BSYNC|EXIT|RET/ { n = 0 } /DADD/ { if (++n > m) m = n } END { print m + 0 }' "$T/w0.sass")
ok "the f64 fold's whole batch: $run DADD without a branch between (64 at least)" "$([ "$run" -ge 64 ]; echo $?)"
# CN_DSUM32_SAME=1 (a batch whose terms share a bin goes in with one add, not yet timed): compiles,
# spills nothing, and its fold holds fewer shared-memory stores than the bins' (one a batch where it can)
folds s1 -DCN_DSUM32_SAME=1
ok "CN_DSUM32_SAME=1's fold has a one-add path (DADD in a chain without STS between: $(grep -c 'DADD' "$T/s1.sass") DADD)" \
    "$([ "$(grep -c 'DADD' "$T/s1.sass")" -gt "$(grep -c 'DADD' "$T/w0.sass")" ]; echo $?)"
# CN_DSUM_VEC=1 (16-byte loads where the term reads a view as it is, not yet timed): compiles, spills
# nothing, and its folds read 16 bytes at a time (LDG.E.128) where the default's read 4 or 8.
folds v1 -DCN_DSUM_VEC=1
v1=$(grep -c 'LDG.E.*\.128' "$T/v1.sass"); v0=$(grep -c 'LDG.E.*\.128' "$T/w0.sass")
ok "CN_DSUM_VEC=1's folds load 16 bytes at a time ($v1 LDG.128; the default's $v0)" \
    "$([ "$v1" -ge 4 ] && [ "$v0" = 0 ]; echo $?)"
echo "$pass passed, $fail failed, 0 skipped"
[ "$fail" = 0 ]
