/*
 * gen_math_erf.c: the constants of runtime/cairn_math_erf.h, derived with MPFR.
 *
 * Run:  cc -O2 tools/gen_math_erf.c -o /tmp/gen_math_erf -lmpfr -lgmp && /tmp/gen_math_erf
 * It prints C text, each line exactly as it stands in the header
 * (tests/math/test_math_erf.sh checks that every printed line is in the
 * header); every number is a hex float, the double nearest the value
 * computed at 400 bits. With --bounds it prints the error analysis instead.
 *
 * What is derived:
 *  - near 0: erf(x) = x * sum b_k x^(2k), b_k = (2/sqrt(pi)) (-1)^k / (k! (2k+1)),
 *    b_0 as a double-double;
 *  - the table: for c = i/16 (i = 1..95) the Taylor coefficients of erf at c,
 *    a_0 = erf(c) and a_n = (2/sqrt(pi)) (-1)^(n-1) H_(n-1)(c) exp(-c^2) / n!
 *    (H the physicists' Hermite polynomials: the n-th derivative of exp(-x^2)
 *    is (-1)^n H_n(x) exp(-x^2)), a_0, a_1, a_2 as double-doubles.
 *    Taylor rather than minimax: on |x - c| <= 1/32 the series converges fast
 *    enough, and its coefficients need no fit to be checked; the truncation
 *    bound is the series' own tail, summed here (--bounds).
 */
#include <mpfr.h>
#include <stdio.h>
#include <string.h>
#include <math.h>

enum { PREC = 400, ROWS = 96, NA = 14, NB = 8, NTAIL = 80 };

/* v rounded to double, and v -= that. */
static double take(mpfr_t v)
{
    double d = mpfr_get_d(v, MPFR_RNDN);
    mpfr_sub_d(v, v, d, MPFR_RNDN);
    return d;
}

/* a[0..n) = the Taylor coefficients of erf at c. */
static void taylor(double c, int n, mpfr_t *a)
{
    mpfr_t h0, h1, h2, k, e, f;
    mpfr_inits2(PREC, h0, h1, h2, k, e, f, (mpfr_ptr)0);
    mpfr_set_d(e, c, MPFR_RNDN);
    mpfr_erf(a[0], e, MPFR_RNDN);
    mpfr_sqr(e, e, MPFR_RNDN);
    mpfr_neg(e, e, MPFR_RNDN);
    mpfr_exp(e, e, MPFR_RNDN); /* exp(-c^2) */
    mpfr_const_pi(k, MPFR_RNDN);
    mpfr_sqrt(k, k, MPFR_RNDN);
    mpfr_ui_div(k, 2, k, MPFR_RNDN);
    mpfr_mul(e, e, k, MPFR_RNDN); /* 2/sqrt(pi) exp(-c^2) */
    mpfr_set_ui(h0, 1, MPFR_RNDN);     /* H_0 */
    mpfr_set_d(h1, 2 * c, MPFR_RNDN);  /* H_1 */
    mpfr_set_ui(f, 1, MPFR_RNDN);      /* n! */
    for (int m = 1; m < n; m++) {      /* a_m uses H_(m-1) = h0 */
        mpfr_mul_ui(f, f, m, MPFR_RNDN);
        mpfr_mul(a[m], e, h0, MPFR_RNDN);
        mpfr_div(a[m], a[m], f, MPFR_RNDN);
        if (!(m & 1))
            mpfr_neg(a[m], a[m], MPFR_RNDN);
        /* H_m = 2c H_(m-1) - 2(m-1) H_(m-2) */
        mpfr_mul_d(h2, h1, 2 * c, MPFR_RNDN);
        mpfr_mul_ui(k, h0, 2 * m, MPFR_RNDN);
        mpfr_sub(h2, h2, k, MPFR_RNDN);
        mpfr_swap(h0, h1);
        mpfr_swap(h1, h2);
    }
    mpfr_clears(h0, h1, h2, k, e, f, (mpfr_ptr)0);
}

static void print_row(int i)
{
    mpfr_t a[NA];
    for (int n = 0; n < NA; n++)
        mpfr_init2(a[n], PREC);
    taylor(i / 16.0, NA, a);
    printf("        {");
    for (int n = 0; n < NA; n++) {
        double hi = take(a[n]);
        printf(n ? ", %a" : "%a", hi);
        if (n < 3)
            printf(", %a", take(a[n]));
    }
    printf("},\n");
    for (int n = 0; n < NA; n++)
        mpfr_clear(a[n]);
}

static void print_near0(void)
{
    mpfr_t v, k;
    mpfr_inits2(PREC, v, k, (mpfr_ptr)0);
    for (int j = 0; j < NB; j++) {
        mpfr_const_pi(k, MPFR_RNDN);
        mpfr_sqrt(k, k, MPFR_RNDN);
        mpfr_ui_div(v, 2, k, MPFR_RNDN);
        mpfr_fac_ui(k, j, MPFR_RNDN);
        mpfr_div(v, v, k, MPFR_RNDN);
        mpfr_div_ui(v, v, 2 * j + 1, MPFR_RNDN);
        if (j & 1)
            mpfr_neg(v, v, MPFR_RNDN);
        double hi = take(v);
        printf("#define CN_ME_B%d %a\n", 2 * j + 1, hi);
        if (j == 0)
            printf("#define CN_ME_B1_LO %a\n", take(v));
    }
    mpfr_clears(v, k, (mpfr_ptr)0);
}

/* The smallest double (prec 53) or float (24) whose erf rounds to 1:
 * bisection on [3, 7] (erf is increasing). */
static double saturation(int prec)
{
    mpfr_t y, m;
    mpfr_init2(y, prec);
    mpfr_init2(m, prec);
    double lo = 3.0, hi = 7.0;
    for (int it = 0; it < 200; it++) {
        double mid = lo + (hi - lo) / 2;
        mpfr_set_d(m, mid, MPFR_RNDN);
        mid = mpfr_get_d(m, MPFR_RNDN);
        if (mid == lo || mid == hi)
            break;
        mpfr_erf(y, m, MPFR_RNDN);
        if (mpfr_cmp_ui(y, 1) == 0)
            hi = mid;
        else
            lo = mid;
    }
    mpfr_clears(y, m, (mpfr_ptr)0);
    return hi;
}

/* --bounds: for each degree D, the largest over rows of the series' tail
 * sum_(n>D) |a_n| (1/32)^n divided by erf(c - 1/32) (a relative bound), and
 * the same for the odd series near 0 on |x| < 1/32; and the rounding error of
 * the coefficients stored as doubles. */
static void bounds(void)
{
    mpfr_t a[NTAIL], s, lo;
    for (int n = 0; n < NTAIL; n++)
        mpfr_init2(a[n], PREC);
    mpfr_inits2(PREC, s, lo, (mpfr_ptr)0);
    double worst[NA + 1] = {0}, worst_round = 0;
    for (int i = 1; i < ROWS; i++) {
        taylor(i / 16.0, NTAIL, a);
        mpfr_set_d(lo, i / 16.0 - 1 / 32.0, MPFR_RNDN);
        mpfr_erf(lo, lo, MPFR_RNDN);
        double elo = mpfr_get_d(lo, MPFR_RNDN);
        for (int d = 6; d < NA; d++) {
            double tail = 0;
            for (int n = d + 1; n < NTAIL; n++)
                tail += fabs(mpfr_get_d(a[n], MPFR_RNDN)) * ldexp(1.0, -5 * n);
            if (tail / elo > worst[d])
                worst[d] = tail / elo;
        }
        /* coefficients a_3.. as doubles, and Horner's roundings in double: (n-2) roundings of 2^-53 each */
        double r = 0;
        for (int n = 3; n < NA; n++)
            r += fabs(mpfr_get_d(a[n], MPFR_RNDN)) * ldexp(1.0, -5 * n) * ldexp(1.0, -53) * (n - 1);
        if (r / elo > worst_round)
            worst_round = r / elo;
    }
    for (int d = 6; d < NA; d++)
        printf("table degree %d: truncation <= 2^%.1f relative\n", d, log2(worst[d]));
    printf("table, degree %d, f64 path: coefficient and Horner rounding <= 2^%.1f relative\n", NA - 1,
           log2(worst_round));
    printf("near 0, %d odd terms: truncation <= 2^%.1f relative\n", NB, log2(pow(2.0, -10.0 * NB) / (NB * 2 + 1) / tgamma(NB + 1)));
    printf("saturation f32: %a (%.9g)\n", saturation(24), saturation(24));
    printf("saturation f64: %a (%.17g)\n", saturation(53), saturation(53));
    for (int n = 0; n < NTAIL; n++)
        mpfr_clear(a[n]);
    mpfr_clears(s, lo, (mpfr_ptr)0);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--bounds") == 0) {
        bounds();
        return 0;
    }
    printf("/* near 0: (2/sqrt(pi)) (-1)^k / (k! (2k+1)) */\n");
    print_near0();
    printf("/* table: Taylor coefficients at c = i/16, a0 a0lo a1 a1lo a2 a2lo a3 .. a%d */\n", NA - 1);
    printf("    static const double tab[%d][%d] = {\n", ROWS, NA + 3);
    printf("        {0},\n");
    for (int i = 1; i < ROWS; i++)
        print_row(i);
    printf("    };\n");
    return 0;
}
