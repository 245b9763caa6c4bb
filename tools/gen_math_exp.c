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
 *    (Taylor, as in gen_math_log.c: on |x| < 2^-5 it converges fast enough);
 *  - for the GPU's first try of f32 exp (CN_MB_FIRST_FMA): 128/log(2),
 *    log(2)/128, 1/6 and 1/24 rounded to 21 bits (a double whose low 32 bits
 *    are zero is an immediate operand of the GPU's double instructions, so it
 *    costs no instruction to load), and log(2)/128 less its 21-bit part as a
 *    double; for f32 tanh's (degree 5), 1/120 to 21 bits.
 */
#include <mpfr.h>
#include <stdio.h>

enum { PREC = 400 };

/* v rounded to 21 bits, as a double. */
static double short21(mpfr_t v)
{
    mpfr_t s;
    mpfr_init2(s, 21);
    mpfr_set(s, v, MPFR_RNDN);
    double d = mpfr_get_d(s, MPFR_RNDN);
    mpfr_clear(s);
    return d;
}

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
    mpfr_const_log2(v, MPFR_RNDN);
    mpfr_ui_div(f, 128, v, MPFR_RNDN);
    printf("#define CN_ME_INVL21 %a\n", short21(f));
    mpfr_div_ui(v, v, 128, MPFR_RNDN);
    double l1 = short21(v);
    mpfr_sub_d(v, v, l1, MPFR_RNDN);
    printf("#define CN_ME_L1_21 %a\n#define CN_ME_L2_21 %a\n", l1, mpfr_get_d(v, MPFR_RNDN));
    mpfr_set_ui(v, 1, MPFR_RNDN);
    mpfr_div_ui(v, v, 6, MPFR_RNDN);
    printf("#define CN_ME_C3_21 %a\n", short21(v));
    mpfr_set_ui(v, 1, MPFR_RNDN);
    mpfr_div_ui(v, v, 24, MPFR_RNDN);
    printf("#define CN_ME_C4_21 %a\n", short21(v));
    mpfr_set_ui(v, 1, MPFR_RNDN);
    mpfr_div_ui(v, v, 120, MPFR_RNDN);
    printf("#define CN_ME_C5_21 %a\n", short21(v));
    mpfr_clears(v, f, (mpfr_ptr)0);
    return 0;
}
