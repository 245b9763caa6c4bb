#!/bin/bash
# test_math_atan.sh: portable atan and atan2 (runtime/cairn_math_atan.h)
# against MPFR: Annex F's special cases, exact and near-exact cases, tiny and
# huge ratios, subnormals and a seeded sample, in f32 (correctly rounded) and
# f64 (<= 0.501 ulp); and the header's constants are the generator's
# (tools/gen_math_atan.c).
set -u
source "$(dirname "$0")/family.sh"
math_family atan defs
