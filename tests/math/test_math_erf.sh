#!/bin/bash
# test_math_erf.sh: the portable erf (runtime/cairn_math_erf.h) against MPFR:
# special values, tiny and subnormal inputs, row boundaries, saturation and a
# seeded sample, f32 (correctly rounded) and f64 (<= 0.501 ulp); and the
# header's constants are the generator's (tools/gen_math_erf.c).
set -u
source "$(dirname "$0")/family.sh"
math_family erf defs
