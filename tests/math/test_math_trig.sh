#!/bin/bash
# test_math_trig.sh: sin and cos (runtime/cairn_math_trig.h) against MPFR, and
# the header's constants against their generator (tools/gen_math_trig.c).
set -u
cd "$(dirname "$0")/../.."
mkdir -p build/math
CFLAGS="-std=c17 -O2 -ffp-contract=off -fno-fast-math -Wall -Wextra -Werror -Iruntime -Itests/math"
fail=0
cc $CFLAGS -o build/math/gen_math_trig tools/gen_math_trig.c -lmpfr -lgmp || { echo "0 passed, 1 failed, 0 skipped"; exit 1; }
cc $CFLAGS -o build/math/check_trig tests/math/check_trig.c -lmpfr -lgmp -lm -lpthread || { echo "0 passed, 1 failed, 0 skipped"; exit 1; }
# every line the generator prints must occur verbatim in the header
missing=0
while IFS= read -r line; do
    grep -qxF -- "$line" runtime/cairn_math_trig.h || { echo "FAIL header lacks generated line: $line"; missing=$((missing + 1)); }
done < <(build/math/gen_math_trig)
out=$(build/math/check_trig) || fail=1
echo "$out" | sed '$d'
last=$(echo "$out" | tail -n 1)
read -r p _ f _ s _ <<<"$last"
if [ "$missing" -eq 0 ]; then p=$((p + 1)); else f=$((f + 1)); fi
echo "$p passed, $f failed, $s skipped"
[ "$fail" -eq 0 ] && [ "$f" -eq 0 ]
