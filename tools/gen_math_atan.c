/*
 * gen_math_atan.c: the constants of runtime/cairn_math_atan.h, derived with MPFR.
 *
 * Run:  cc -O2 tools/gen_math_atan.c -o /tmp/gen_math_atan -lmpfr -lgmp && /tmp/gen_math_atan
 * It prints C text, each line exactly as it stands in the header
 * (tests/math/test_math_atan.sh checks that every printed line is in the
 * header). Every number is a hex float computed at 400 bits and rounded once.
 *
 * What is derived:
 *  - the table atan(i/64), i = 0..64, as double-doubles (the reduction's
 *    centres c = i/64 are exact doubles);
 *  - pi and pi/2 as double-doubles, 3pi/4 rounded to double, and pi, pi/2,
 *    pi/4, 3pi/4 rounded once to f32 (printed as doubles holding the float:
 *    the f32 special cases must not round twice);
 *  - the Taylor coefficients (-1)^k/(2k+1) of atan, k = 1..8, as
 *    double-doubles. Taylor rather than minimax: on |u| <= 2^-7 the series
 *    falls by 2^-14 a term, and its coefficients need no fit to be checked.
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

/* pi * num / den rounded once to 24 bits (f32's range holds every one). */
static double pi_f32(int num, int den)
{
    mpfr_t v;
    mpfr_init2(v, PREC);
    mpfr_const_pi(v, MPFR_RNDN);
    mpfr_mul_si(v, v, num, MPFR_RNDN);
    mpfr_div_si(v, v, den, MPFR_RNDN);
    double d = take(v, 24);
    mpfr_clear(v);
    return d;
}

static void print_scalars(void)
{
    mpfr_t v;
    mpfr_init2(v, PREC);
    mpfr_const_pi(v, MPFR_RNDN);
    double hi = take(v, 53);
    printf("#define CN_MAT_PI_HI %a\n#define CN_MAT_PI_LO %a\n", hi, take(v, 53));
    mpfr_const_pi(v, MPFR_RNDN);
    mpfr_div_2ui(v, v, 1, MPFR_RNDN);
    hi = take(v, 53);
    printf("#define CN_MAT_PIO2_HI %a\n#define CN_MAT_PIO2_LO %a\n", hi, take(v, 53));
    mpfr_const_pi(v, MPFR_RNDN);
    mpfr_mul_ui(v, v, 3, MPFR_RNDN);
    mpfr_div_2ui(v, v, 2, MPFR_RNDN);
    printf("#define CN_MAT_3PIO4 %a\n", take(v, 53));
    printf("#define CN_MAT_PI_F32 %a\n#define CN_MAT_PIO2_F32 %a\n", pi_f32(1, 1), pi_f32(1, 2));
    printf("#define CN_MAT_PIO4_F32 %a\n#define CN_MAT_3PIO4_F32 %a\n", pi_f32(1, 4), pi_f32(3, 4));
    mpfr_clear(v);
}

static void print_series(void)
{
    mpfr_t v;
    mpfr_init2(v, PREC);
    printf("/* atan: (-1)^k/(2k+1) */\n");
    for (int k = 1; k <= 8; k++) {
        mpfr_set_si(v, (k & 1) ? -1 : 1, MPFR_RNDN);
        mpfr_div_ui(v, v, 2 * k + 1, MPFR_RNDN);
        double hi = take(v, 53), lo = take(v, 53);
        printf("#define CN_MAT_C%d %a\n#define CN_MAT_C%d_LO %a\n", 2 * k + 1, hi, 2 * k + 1, lo);
    }
    mpfr_clear(v);
}

static void print_table(void)
{
    mpfr_t v;
    mpfr_init2(v, PREC);
    printf("    static const double tab[65][2] = {\n");
    for (int i = 0; i <= 64; i++) {
        mpfr_set_d(v, i / 64.0, MPFR_RNDN);
        mpfr_atan(v, v, MPFR_RNDN);
        double hi = take(v, 53), lo = take(v, 53);
        printf("        {%a, %a},\n", hi, lo);
    }
    printf("    };\n");
    mpfr_clear(v);
}

int main(void)
{
    print_scalars();
    print_series();
    printf("/* atan table: atan(i/64) hi, lo */\n");
    print_table();
    return 0;
}
