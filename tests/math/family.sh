# family.sh: what each portable math family's suite script does, written once (sourced by
# tests/math/test_math_FAMILY.sh). math_family FAMILY LINES builds tests/math/check_FAMILY.c and
# tools/gen_math_FAMILY.c (both against MPFR), checks that the header runtime/cairn_math_FAMILY.h
# holds the generator's constants verbatim (LINES=all: every line it prints; LINES=defs: its
# `#define` and table-row lines), runs the checker's suite sample and prints its failures and a last
# line `N passed, N failed, 0 skipped` (the constants count as one check more). The sample runs
# twice: with the host's first tries and with the GPU's (CN_MATH_FIRST_FMA). Returns 1 on any failure.
math_family() {   # math_family FAMILY all|defs
    local fam=$1 lines=$2 flags gen_fail=0 out rc line passed failed
    cd "$(dirname "${BASH_SOURCE[0]}")/../.." || return 1
    mkdir -p build/math
    flags="-std=c17 -O2 -ffp-contract=off -fno-fast-math -Wall -Wextra -Werror -Iruntime -Itests/math"
    # shellcheck disable=SC2086
    if ! cc $flags "tests/math/check_$fam.c" -o "build/math/check_$fam" -lmpfr -lgmp -lm -lpthread; then
        echo "0 passed, 1 failed, 0 skipped"
        return 1
    fi
    if cc -O2 "tools/gen_math_$fam.c" -o "build/math/gen_math_$fam" -lmpfr -lgmp -lm; then
        while IFS= read -r line; do
            case "$lines:$line" in
            all:* | defs:"#define "* | defs:"        {"*)
                grep -qxF -- "$line" "runtime/cairn_math_$fam.h" ||
                    { echo "FAIL constant not in header: $line"; gen_fail=1; } ;;
            esac
        done < <("build/math/gen_math_$fam")
    else
        gen_fail=1
    fi
    # The GPU's first tries (one rounding per multiply-add, the refined reciprocal: CN_MATH_FIRST_FMA,
    # cairn_math_base.h) compiled on the host: the same sample must pass with them too.
    # shellcheck disable=SC2086
    cc $flags -DCN_MATH_FIRST_FMA "tests/math/check_$fam.c" -o "build/math/check_${fam}_fma" -lmpfr -lgmp -lm -lpthread ||
        gen_fail=1
    passed=0 failed=0 rc=0
    for bin in "build/math/check_$fam" "build/math/check_${fam}_fma"; do
        [ -x "$bin" ] || continue
        out=$("$bin") || rc=1
        echo "$out" | grep -v '^[0-9]* passed' | sed "s|^FAIL|FAIL (${bin##*/})|"
        line=$(echo "$out" | grep '^[0-9]* passed, [0-9]* failed, [0-9]* skipped$')
        p=$(echo "$line" | cut -d' ' -f1)
        f=$(echo "$line" | cut -d' ' -f3)
        passed=$((passed + ${p:-0}))
        failed=$((failed + ${f:-1}))
    done
    passed=$((passed + 1 - gen_fail))
    failed=$((failed + gen_fail))
    echo "$passed passed, $failed failed, 0 skipped"
    [ "$rc" -eq 0 ] && [ "$gen_fail" -eq 0 ] && [ "$failed" -eq 0 ]
}
