#!/bin/bash
# test_math_trig.sh: sin and cos (runtime/cairn_math_trig.h) against MPFR, and
# the header's constants against their generator (tools/gen_math_trig.c).
set -u
source "$(dirname "$0")/family.sh"
math_family trig all
