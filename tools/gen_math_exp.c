/*
 * gen_math_exp.c: the constants runtime/cairn_math_exp.h adds to those of
 * cairn_math_log.h (which it reuses: 2^(j/128), log(2)/128 in three parts,
 * 1/n! to n = 10), derived with MPFR at 400 bits.
 *
 * Run:  cc -O2 tools/gen_math_exp.c -o /tmp/gen_math_exp -lmpfr -lgmp && /tmp/gen_math_exp
 * Every printed line stands verbatim in the header (tests/math/test_math_exp.sh
 * checks it):
 *  - log(2) as a double-double (53 + 53 bits), for exp2's r*log(2);
 *  - 1/n! for n = 11..15 as doubles, the top of expm1's accurate series
 *    (Taylor, as in gen_math_log.c: on |x| < 2^-5 it converges fast enough).
 */
#include <mpfr.h>
#include <stdio.h>

enum { PREC = 400 };

static double take(mpfr_t v)
{
    double d = mpfr_get_d(v, MPFR_RNDN);
    mpfr_sub_d(v, v, d, MPFR_RNDN);
    return d;
}

int main(void)
{
    mpfr_t v, f;
    mpfr_inits2(PREC, v, f, (mpfr_ptr)0);
    mpfr_const_log2(v, MPFR_RNDN);
    double hi = take(v);
    printf("#define CN_ME_LN2_HI %a\n#define CN_ME_LN2_LO %a\n", hi, take(v));
    for (int n = 11; n <= 15; n++) {
        mpfr_fac_ui(f, n, MPFR_RNDN);
        mpfr_ui_div(v, 1, f, MPFR_RNDN);
        printf("#define CN_ME_EC%d %a\n", n, mpfr_get_d(v, MPFR_RNDN));
    }
    mpfr_clears(v, f, (mpfr_ptr)0);
    return 0;
}
