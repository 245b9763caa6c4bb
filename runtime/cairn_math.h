/*
 * cairn_math.h: std.math's portable functions, the same bits on the host, the pool, --emulate and
 * the GPU (docs/numerics.md, "Math functions"). The emitted C includes it when a program calls one;
 * the compiler's table (src/check_call.c, math_fns) says which functions are here and what each
 * claims, and must agree with the families' own opening comments:
 *
 *   cairn_math_log.h    log log2 log1p pow
 *   cairn_math_exp.h    exp exp2 expm1 tanh
 *   cairn_math_trig.h   sin cos
 *   cairn_math_erf.h    erf
 *   cairn_math_atan.h   atan atan2
 *
 * Each defines cn_math_NAME_f32 and cn_math_NAME_f64. The rest of std.math stays the host's C
 * library (cairn_rt.h), for sequential host code only.
 */
#ifndef CAIRN_MATH_H
#define CAIRN_MATH_H

#include "cairn_math_base.h"
#include "cairn_math_log.h"
#include "cairn_math_exp.h"
#include "cairn_math_trig.h"
#include "cairn_math_erf.h"
#include "cairn_math_atan.h"

#endif
