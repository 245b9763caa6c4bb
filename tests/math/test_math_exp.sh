#!/bin/bash
# test_math_exp.sh: the portable exp family (runtime/cairn_math_exp.h) against
# MPFR: special values, exact cases, the overflow, underflow and subnormal
# edges, tiny arguments and a seeded sample of exp, exp2, expm1 and tanh in f32
# (correctly rounded) and f64 (<= 0.501 ulp); and the header's constants are
# the generator's (tools/gen_math_exp.c).
set -u
source "$(dirname "$0")/family.sh"
math_family exp all
