#!/bin/bash
# test_math_erf.sh: the portable erf (runtime/cairn_math_erf.h) against MPFR:
# special values, tiny and subnormal inputs, row boundaries, saturation and a
# seeded sample, f32 (correctly rounded) and f64 (<= 0.501 ulp); and the
# header's constants are the generator's (tools/gen_math_erf.c).
set -u
cd "$(dirname "$0")/../.."
mkdir -p build/math
FLAGS="-std=c17 -O2 -ffp-contract=off -fno-fast-math -Wall -Wextra -Werror -Iruntime -Itests/math"
if ! cc $FLAGS tests/math/check_erf.c -o build/math/check_erf -lmpfr -lgmp -lm -lpthread; then
    echo "0 passed, 1 failed, 0 skipped"
    exit 1
fi
gen_fail=0
if cc -O2 tools/gen_math_erf.c -o build/math/gen_math_erf -lmpfr -lgmp -lm; then
    # every line the generator prints that the header uses must be in the header
    while IFS= read -r line; do
        case "$line" in
        "#define "* | "        {"*)
            grep -qxF -- "$line" runtime/cairn_math_erf.h || { echo "FAIL constant not in header: $line"; gen_fail=1; } ;;
        esac
    done < <(build/math/gen_math_erf)
else
    gen_fail=1
fi
out=$(build/math/check_erf)
rc=$?
echo "$out" | grep -v '^[0-9]* passed'
line=$(echo "$out" | grep '^[0-9]* passed, [0-9]* failed, [0-9]* skipped$')
passed=$(echo "$line" | cut -d' ' -f1)
failed=$(echo "$line" | cut -d' ' -f3)
passed=$((${passed:-0} + 1 - gen_fail))
failed=$((${failed:-1} + gen_fail))
echo "$passed passed, $failed failed, 0 skipped"
[ "$rc" -eq 0 ] && [ "$gen_fail" -eq 0 ] && [ "$failed" -eq 0 ] || exit 1
