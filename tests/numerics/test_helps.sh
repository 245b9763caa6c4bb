#!/usr/bin/env bash
# The help lines of the storage-float refusals show the way through f32: the widening (`f32(x)`)
# and the rounding back (`bf16(y)`), the conversion through f32, the argument's conversion.
# Prints one line per failed check and `N passed, N failed, 0 skipped`.
set -u
cd "$(dirname "$0")/../.."
CAIRN=${CAIRN:-bin/cairn}
pass=0
fail=0
help_of() {   # help_of FILE 'HELP TEXT'
    if "$CAIRN" check "$1" 2>&1 | grep -qF -- "help: $2"; then pass=$((pass + 1)); else
        fail=$((fail + 1)); echo "FAIL help: $1 lacks 'help: $2'"; fi
}
O=tests/numerics/refuse_operator.cairn
help_of $O 'widen, compute in f32, round back once: `bf16(f32(a) + f32(b))`'
help_of $O 'widen, negate, round back: `bf16(-f32(a))`'
help_of $O 'widen first: sqrt(f32(a))'
help_of $O 'compare them widened: `f32(a) < f32(b)`'
help_of $O 'write bf16(0.5)'
help_of $O 'widen, compute in f32, round back once: `bf16(f32(a) * x)`'
help_of tests/spec/n02-bf16-arithmetic.cairn 'widen, compute in f32, round back once: `bf16(f32(a) + f32(b))`'
C=tests/numerics/refuse_cast.cairn
help_of $C 'convert through f32: f16(f32(i))'
help_of $C 'convert through f32: bf16(f32(h))'
help_of $C 'convert through f32: i32(f32(h))'
help_of $C 'write a float literal: f8e4m3(3.0)'
M=tests/numerics/refuse_type_mismatch.cairn
help_of $M 'convert it: quantize[i8](f32(x), s)'
help_of $M 'convert it: quantize_stochastic[i8](s, s, u32(n))'
help_of $M 'convert it: from_bits[f16](u16(w))'
help_of tests/numerics/refuse_print.cairn 'widen it: f32(h)'
echo "$pass passed, $fail failed, 0 skipped"
[ "$fail" = 0 ]
