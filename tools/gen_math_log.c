/*
 * gen_math_log.c: the constants of runtime/cairn_math_log.h, derived with MPFR.
 *
 * Run:  cc -O2 tools/gen_math_log.c -o /tmp/gen_math_log -lmpfr -lgmp && /tmp/gen_math_log
 * It prints C text: the tables and scalar constants, each line exactly as it
 * stands in the header (tests/math/test_math_log.sh checks that every printed
 * line is in the header). Every number is printed as a hex float, so the
 * header's doubles are the rounded values computed here at 400 bits.
 *
 * What is derived:
 *  - the log table (128 rows): for m in [1 + i/128, 1 + (i+1)/128) the
 *    reduction uses invc = 1/c rounded to 24 bits (c the middle of the
 *    interval; c = 1 for i = 0 and c = 2 for i = 127, so that x near 1 is
 *    reduced by nothing and log(x) keeps its relative accuracy), and
 *    T = -log(invc) - s*log(2) with s = 1 for i >= 64 (those m are taken
 *    as m/2 with the exponent one higher), as a double-double;
 *  - log(2) in three parts (42 + 42 + 53 bits: a multiple k*part of the first
 *    two is exact for |k| < 2^11), 1/log(2) as a double-double;
 *  - the 2^(j/128) table as double-doubles, 128/log(2), log(2)/128 in three
 *    parts (35 + 35 + 53 bits: k*part exact for |k| < 2^18);
 *  - the Taylor coefficients (-1)^(n+1)/n of log1p and 1/n! of exp, as
 *    double-doubles where the accurate paths need more than 53 bits. Taylor
 *    rather than minimax: on these small intervals (|r| < 2^-7 and
 *    |r| < 2^-8.4) the series converges fast enough, and its coefficients
 *    need no fit to be checked.
 */
#include <mpfr.h>
#include <stdio.h>

enum { PREC = 400 };

/* v rounded to `bits` bits (then to double: exact), and v -= that. */
static double take(mpfr_t v, int bits)
{
    mpfr_t t;
    mpfr_init2(t, bits);
    mpfr_set(t, v, MPFR_RNDN);
    double d = mpfr_get_d(t, MPFR_RNDN);
    mpfr_sub_d(v, v, d, MPFR_RNDN);
    mpfr_clear(t);
    return d;
}

static void print_log_table(void)
{
    mpfr_t c, invc, t, ln2;
    mpfr_inits2(PREC, c, t, ln2, (mpfr_ptr)0);
    mpfr_init2(invc, 24);
    mpfr_const_log2(ln2, MPFR_RNDN);
    printf("    static const double tab[128][3] = {\n");
    for (int i = 0; i < 128; i++) {
        if (i == 0)
            mpfr_set_d(c, 1.0, MPFR_RNDN);
        else if (i == 127)
            mpfr_set_d(c, 2.0, MPFR_RNDN);
        else
            mpfr_set_d(c, 1.0 + (i + 0.5) / 128.0, MPFR_RNDN);
        mpfr_ui_div(invc, 1, c, MPFR_RNDN);
        mpfr_log(t, invc, MPFR_RNDN);
        mpfr_neg(t, t, MPFR_RNDN);
        if (i >= 64)
            mpfr_sub(t, t, ln2, MPFR_RNDN);
        if (mpfr_zero_p(t))
            mpfr_set_zero(t, 1); /* -log(1) is +0 here: log(1) = +0 */
        double hi = take(t, 53), lo = take(t, 53);
        printf("        {%a, %a, %a},\n", mpfr_get_d(invc, MPFR_RNDN), hi, lo);
    }
    printf("    };\n");
    mpfr_clears(c, invc, t, ln2, (mpfr_ptr)0);
}

static void print_exp_table(void)
{
    mpfr_t t;
    mpfr_init2(t, PREC);
    printf("    static const double tab[128][2] = {\n");
    for (int j = 0; j < 128; j++) {
        mpfr_set_d(t, j / 128.0, MPFR_RNDN);
        mpfr_exp2(t, t, MPFR_RNDN);
        double hi = take(t, 53), lo = take(t, 53);
        printf("        {%a, %a},\n", hi, lo);
    }
    printf("    };\n");
    mpfr_clear(t);
}

static void print_scalars(void)
{
    mpfr_t v;
    mpfr_init2(v, PREC);
    mpfr_const_log2(v, MPFR_RNDN);
    double a = take(v, 42), b = take(v, 42), c = take(v, 53);
    printf("#define CN_ML_LN2_A %a\n#define CN_ML_LN2_B %a\n#define CN_ML_LN2_C %a\n", a, b, c);
    mpfr_const_log2(v, MPFR_RNDN);
    a = take(v, 42);
    printf("#define CN_ML_LN2_LO %a\n", take(v, 53));
    mpfr_const_log2(v, MPFR_RNDN);
    printf("#define CN_ML_LN2 %a\n", take(v, 53));
    mpfr_const_log2(v, MPFR_RNDN);
    mpfr_ui_div(v, 1, v, MPFR_RNDN);
    a = take(v, 53);
    printf("#define CN_ML_INVLN2_HI %a\n#define CN_ML_INVLN2_LO %a\n", a, take(v, 53));
    mpfr_const_log2(v, MPFR_RNDN);
    mpfr_ui_div(v, 128, v, MPFR_RNDN);
    printf("#define CN_ML_EXP_INVL %a\n", take(v, 53));
    mpfr_const_log2(v, MPFR_RNDN);
    mpfr_div_ui(v, v, 128, MPFR_RNDN);
    a = take(v, 35), b = take(v, 35), c = take(v, 53);
    printf("#define CN_ML_EXP_L1 %a\n#define CN_ML_EXP_L2 %a\n#define CN_ML_EXP_L3 %a\n", a, b, c);
    mpfr_clear(v);
}

/* (-1)^(n+1)/n for n = 1..16 and 1/n! for n = 0..10, each as hi, lo. */
static void print_series(void)
{
    mpfr_t v;
    mpfr_init2(v, PREC);
    printf("/* log1p: (-1)^(n+1)/n */\n");
    for (int n = 1; n <= 16; n++) {
        mpfr_set_si(v, (n & 1) ? 1 : -1, MPFR_RNDN);
        mpfr_div_ui(v, v, n, MPFR_RNDN);
        double hi = take(v, 53), lo = take(v, 53);
        printf("#define CN_ML_LC%d %a\n#define CN_ML_LC%d_LO %a\n", n, hi, n, lo);
    }
    /* The GPU's first try of f32 log (CN_MB_FIRST_FMA) takes the coefficients whose error the
     * series can bear rounded to 21 bits: a double with its low 32 bits zero is an immediate
     * operand there, one that costs no instruction to load. */
    for (int n = 5; n <= 7; n++) {
        mpfr_t s;
        mpfr_init2(s, 21);
        mpfr_set_si(s, (n & 1) ? 1 : -1, MPFR_RNDN);
        mpfr_div_ui(s, s, n, MPFR_RNDN);
        printf("#define CN_ML_LC%d_21 %a\n", n, mpfr_get_d(s, MPFR_RNDN));
        mpfr_clear(s);
    }
    printf("/* exp: 1/n! */\n");
    mpfr_set_ui(v, 1, MPFR_RNDN);
    for (int n = 0; n <= 10; n++) {
        mpfr_t f;
        mpfr_init2(f, PREC);
        mpfr_fac_ui(f, n, MPFR_RNDN);
        mpfr_ui_div(v, 1, f, MPFR_RNDN);
        double hi = take(v, 53), lo = take(v, 53);
        printf("#define CN_ML_EC%d %a\n#define CN_ML_EC%d_LO %a\n", n, hi, n, lo);
        mpfr_clear(f);
    }
    mpfr_clear(v);
}

int main(void)
{
    print_scalars();
    print_series();
    printf("/* log table: invc, T hi, T lo */\n");
    print_log_table();
    printf("/* exp table: 2^(j/128) hi, lo */\n");
    print_exp_table();
    return 0;
}
