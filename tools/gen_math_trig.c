/*
 * gen_math_trig.c: the constants of runtime/cairn_math_trig.h, from MPFR.
 *
 * Build and run (from the repository root):
 *   cc -std=c17 -O2 -Wall -Wextra -o build/math/gen_math_trig tools/gen_math_trig.c -lmpfr -lgmp
 *   build/math/gen_math_trig
 *
 * It prints C text, one constant or one table row per line, exactly as the
 * header spells it; tests/math/test_math_trig.sh checks that every line
 * printed here occurs verbatim in the header, so the header cannot drift
 * from this derivation. What it prints:
 *   - pi/2 cut into three 33-bit pieces and a double (Cody-Waite): k * piece
 *     is exact for any integer k < 2^20, so x - k * P1 is exact (Sterbenz);
 *   - pi/2 and 2/pi as double-doubles;
 *   - the Taylor coefficients (-1)^j / (2j+1)! of sin and (-1)^j / (2j)! of
 *     cos, as doubles (the fast paths) and as double-doubles (the accurate
 *     path). Taylor's series, not a minimax fit: the series alternates with
 *     terms decreasing on |r| <= pi/4, so the truncation error is below the
 *     first dropped term, a bound that needs no fitting to trust;
 *   - the bits of 2/pi, 32 at a time, for the Payne-Hanek reduction:
 *     2/pi = sum_i W[i] * 2^(-32 (i + 1)). 38 words (1216 bits) reach the
 *     bits that the largest double (exponent 1023) needs, plus the 7 words
 *     of the window the reduction multiplies by.
 */
#include <mpfr.h>
#include <stdio.h>

enum { PREC = 2000, TWO_OVER_PI_WORDS = 38, SIN_DD_TERMS = 11, COS_DD_TERMS = 12 };

/* v to a double, and what is left of v, rounded to nearest. */
static double take_double(mpfr_t v)
{
    double d = mpfr_get_d(v, MPFR_RNDN);
    mpfr_sub_d(v, v, d, MPFR_RNDN);
    return d;
}

/* The leading `bits` bits of v (v > 0), truncated; v keeps the rest. */
static double take_bits(mpfr_t v, int bits)
{
    mpfr_t t;
    mpfr_init2(t, bits);
    mpfr_set(t, v, MPFR_RNDZ);
    double d = mpfr_get_d(t, MPFR_RNDN); /* exact: t has `bits` <= 53 bits */
    mpfr_sub(v, v, t, MPFR_RNDN);
    mpfr_clear(t);
    return d;
}

static void print_pio2_pieces(void)
{
    mpfr_t v;
    mpfr_init2(v, PREC);
    mpfr_const_pi(v, MPFR_RNDN);
    mpfr_div_2ui(v, v, 1, MPFR_RNDN);
    printf("#define CN_MT_PIO2_1 %a\n", take_bits(v, 33));
    printf("#define CN_MT_PIO2_2 %a\n", take_bits(v, 33));
    printf("#define CN_MT_PIO2_3 %a\n", take_bits(v, 33));
    printf("#define CN_MT_PIO2_4 %a\n", take_double(v));
    mpfr_const_pi(v, MPFR_RNDN);
    mpfr_div_2ui(v, v, 1, MPFR_RNDN);
    printf("#define CN_MT_PIO2_HI %a\n", take_double(v));
    printf("#define CN_MT_PIO2_LO %a\n", take_double(v));
    mpfr_const_pi(v, MPFR_RNDN);
    mpfr_ui_div(v, 2, v, MPFR_RNDN);
    printf("#define CN_MT_INV_PIO2 %a\n", take_double(v));
    mpfr_clear(v);
}

/* (-1)^j / n! for n = 2j + first, j = 1 .. terms; as doubles or double-doubles. */
static void print_taylor(const char *name, int first, int terms, int dd)
{
    mpfr_t v;
    mpfr_init2(v, PREC);
    printf("        /* %s */\n", name);
    for (int j = 1; j <= terms; j++) {
        int n = 2 * j + first;
        mpfr_fac_ui(v, (unsigned long)n, MPFR_RNDN);
        mpfr_ui_div(v, 1, v, MPFR_RNDN);
        if (j % 2)
            mpfr_neg(v, v, MPFR_RNDN);
        double hi = take_double(v);
        if (dd)
            printf("        {%a, %a}, /* %s1/%d! */\n", hi, take_double(v), j % 2 ? "-" : "", n);
        else
            printf("        %a, /* %s1/%d! */\n", hi, j % 2 ? "-" : "", n);
    }
    mpfr_clear(v);
}

static void print_two_over_pi_words(void)
{
    mpfr_t v;
    mpfr_init2(v, PREC);
    mpfr_const_pi(v, MPFR_RNDN);
    mpfr_ui_div(v, 2, v, MPFR_RNDN);
    printf("        /* 2/pi, 32 bits a word */\n");
    for (int i = 0; i < TWO_OVER_PI_WORDS; i++) {
        mpfr_mul_2ui(v, v, 32, MPFR_RNDN);
        unsigned long w = mpfr_get_ui(v, MPFR_RNDZ);
        mpfr_sub_ui(v, v, w, MPFR_RNDN);
        printf("%s0x%08lx,%s", i % 6 == 0 ? "        " : " ", w, i % 6 == 5 || i == TWO_OVER_PI_WORDS - 1 ? "\n" : "");
    }
    mpfr_clear(v);
}

int main(void)
{
    print_pio2_pieces();
    print_taylor("sin: (-1)^j / (2j+1)!", 1, 8, 0);
    print_taylor("cos: (-1)^j / (2j)!", 0, 9, 0);
    print_taylor("sin, double-double: (-1)^j / (2j+1)!", 1, SIN_DD_TERMS, 1);
    print_taylor("cos, double-double: (-1)^j / (2j)!", 0, COS_DD_TERMS, 1);
    print_two_over_pi_words();
    return 0;
}
