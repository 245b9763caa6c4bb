#!/usr/bin/env bash
# tests/unit/test_sum.c built with the device sum's other forms (runtime/cairn_dsumstep.h,
# cairn_devsum.h), so that its device models hold each to MPFR as they hold the defaults (which
# tests/run.sh's own build of test_sum runs): CN_DSUM32_SAME_INT=1, a one-bin f32 batch of normal
# terms added in a 64-bit integer (opt-in); CN_DSUM32_SAME=0, each f32 term into its bin alone;
# CN_DSUM32_HOT=0, every one-bin batch into its shared bin (the default keeps the last one's bin in a
# register).
# A build passes when it compiles and the test prints `N passed, 0 failed` and exits 0.
# Prints one line a build and a last line `N passed, N failed, 0 skipped`.
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-build/sum-forms}
mkdir -p "$OUT"
LIB=$(ls build/obj-cc/libcairn.a 2>/dev/null || ls build/obj-*/libcairn.a 2>/dev/null | head -1)
[ -n "$LIB" ] || { echo "FAIL sum_forms: no build/obj-*/libcairn.a (run make first)"; echo "0 passed, 1 failed, 0 skipped"; exit 1; }
pass=0 fail=0
for form in "same_int -DCN_DSUM32_SAME_INT=1" "no_same -DCN_DSUM32_SAME=0" "no_hot -DCN_DSUM32_HOT=0"; do
    read -r name defs <<<"$form"
    exe=$OUT/test_sum_$name
    if ! cc -std=c17 -D_DEFAULT_SOURCE -D_POSIX_C_SOURCE=200809L -O2 -g -Wall -Wextra -Werror $defs -Isrc -Iruntime \
            -o "$exe" tests/unit/test_sum.c "$LIB" -lmpfr -lgmp -lm -lpthread >"$exe.build.log" 2>&1; then
        echo "FAIL sum_forms $name: does not build"; head -5 "$exe.build.log"; fail=$((fail + 1)); continue
    fi
    SUM_QUICK=1 "$exe" >"$exe.log" 2>&1
    rc=$?
    last=$(tail -1 "$exe.log")
    if [ $rc = 0 ] && [[ "$last" =~ ^[0-9]+\ passed,\ 0\ failed ]]; then
        echo "ok   sum_forms $name: $last"; pass=$((pass + 1))
    else
        echo "FAIL sum_forms $name: exit $rc: $last"; grep -m5 FAIL "$exe.log"; fail=$((fail + 1))
    fi
done
echo "$pass passed, $fail failed, 0 skipped"
[ "$fail" = 0 ]
