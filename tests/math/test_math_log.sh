#!/bin/bash
# test_math_log.sh: the portable log family (runtime/cairn_math_log.h) against
# MPFR: special values, exact cases, boundaries and a seeded sample of log,
# log2, log1p in f32 (correctly rounded) and f64 (<= 0.501 ulp); and the
# header's constants are the generator's (tools/gen_math_log.c).
set -u
source "$(dirname "$0")/family.sh"
math_family log defs
