/*
 * gen_math_first_fma.c: the new constants of the FMA first tries of f32 log2, pow, exp2, sin and
 * cos (runtime/cairn_math_log.h, cairn_math_exp.h, cairn_math_trig.h, under CN_MB_FIRST_FMA), and
 * the numbers their error analyses use, derived with MPFR at 400 bits.
 *
 * Run (from the repository root):
 *   cc -std=c17 -O2 -Wall -Wextra -o build/math/gen_math_first_fma tools/gen_math_first_fma.c -lmpfr -lgmp -lm
 *   build/math/gen_math_first_fma
 *
 * It reads the constants and tables from the headers themselves (it includes them with the FMA
 * forms compiled in), prints the `#define` lines of the new constants exactly as the header spells
 * them (and says whether the header holds those values), then one line per bound: what it is, its
 * value as a power of two (its exponent rounded up in the second decimal; ratios in the fifth) and, where the analysis in the header
 * assumes a value, whether the computed one is within it (`ok`) or not (`FAIL`). The exit status
 * is 1 on any FAIL.
 *
 * The bounds are exact computations at 400 bits over finite sets (the log table's 128 rows, the
 * ends of each row's interval: everything there is monotone in r) or closed forms (a series'
 * remainder, a coefficient's rounding); none comes from sampling.
 */
#define CN_MATH_FIRST_FMA 1
#include "../runtime/cairn_math_log.h"
#include "../runtime/cairn_math_trig.h"
#include <math.h>
#include <mpfr.h>
#include <stdio.h>

enum { PREC = 400 };

static int failures;

/* log2 of a positive mpfr value, as a double rounded up. */
static double lg(mpfr_t v)
{
    mpfr_t t;
    mpfr_init2(t, PREC);
    mpfr_log2(t, v, MPFR_RNDU);
    double d = mpfr_get_d(t, MPFR_RNDU);
    mpfr_clear(t);
    return d;
}

/* Prints a bound as 2^e and checks it against the analysis' claim 2^claim (claim 0: none). */
static void bound(const char *what, mpfr_t v, double claim)
{
    double e = ceil(lg(v) * 100.0) / 100.0;
    if (claim == 0) {
        printf("%-66s 2^%.2f\n", what, e);
        return;
    }
    int ok = e <= claim;
    failures += !ok;
    printf("%-66s 2^%.2f  (used 2^%.2f) %s\n", what, e, claim, ok ? "ok" : "FAIL");
}

/* Prints a plain ratio and checks it against the claim (claim 0: none). */
static void ratio(const char *what, mpfr_t v, double claim)
{
    double d = ceil(mpfr_get_d(v, MPFR_RNDU) * 1e5) / 1e5;
    if (claim == 0) {
        printf("%-66s %.5f\n", what, d);
        return;
    }
    int ok = d <= claim;
    failures += !ok;
    printf("%-66s %.5f  (used %.4f) %s\n", what, d, claim, ok ? "ok" : "FAIL");
}

/* ------------------------------------------------------------ constants */

/* (log 2)^n / n! for n = 2..4: 2^r - 1 = sum (r log 2)^n / n!. */
static void print_x2c(void)
{
    mpfr_t l, t;
    mpfr_inits2(PREC, l, t, (mpfr_ptr)0);
    mpfr_const_log2(l, MPFR_RNDN);
    const double have[5] = {0, CN_ML_LN2, CN_ML_X2C2, CN_ML_X2C3, CN_ML_X2C4};
    mpfr_set_ui(t, 1, MPFR_RNDN);
    for (int n = 1; n <= 4; n++) {
        mpfr_mul(t, t, l, MPFR_RNDN);
        mpfr_div_ui(t, t, (unsigned long)n, MPFR_RNDN);
        double d = mpfr_get_d(t, MPFR_RNDN);
        if (n >= 2)
            printf("#define CN_ML_X2C%d %a\n", n, d);
        if (d != have[n]) {
            failures++;
            printf("FAIL: the header's (log 2)^%d/%d! is %a\n", n, n, have[n]);
        }
    }
    mpfr_clears(l, t, (mpfr_ptr)0);
}

/* ------------------------------------------------------------ log: the rows */

/* For the rows 1..126 (T != 0): the largest of |r| / |rest|, |T| / |rest| and |log1p r| / |rest|
 * over the row's m (rest = T + log1p(r), r = m invc - 1, m from 1 + i/128 to the last f32 below
 * 1 + (i+1)/128); each is largest at an end of the interval, since rest is monotone in r and does
 * not change sign there (checked). Rows 0 and 127 have T = 0: rest = log1p(r). Also max |r| per
 * kind of row. */
static void log_rows(void)
{
    mpfr_t r, l, rest, T, a, worst_r, worst_t, worst_s, maxr0, maxr;
    mpfr_inits2(PREC, r, l, rest, T, a, worst_r, worst_t, worst_s, maxr0, maxr, (mpfr_ptr)0);
    mpfr_set_zero(worst_r, 1);
    mpfr_set_zero(worst_t, 1);
    mpfr_set_zero(worst_s, 1);
    mpfr_set_zero(maxr0, 1);
    mpfr_set_zero(maxr, 1);
    for (int i = 0; i < 128; i++) {
        double invc;
        cn_dd t;
        cn_ml_log_row(i, &invc, &t);
        /* the exact T of the row: -log(invc) - s log 2 (the table holds it to 2^-106) */
        mpfr_set_d(T, invc, MPFR_RNDN);
        mpfr_log(T, T, MPFR_RNDN);
        mpfr_neg(T, T, MPFR_RNDN);
        if (i >= 64) {
            mpfr_const_log2(a, MPFR_RNDN);
            mpfr_sub(T, T, a, MPFR_RNDN);
        }
        double ends[2] = {1.0 + i / 128.0, 1.0 + (i + 1) / 128.0 - 0x1p-23};
        double rest_at[2][2]; /* sign checks */
        mpfr_t rmax, restmin, smax;
        mpfr_inits2(PREC, rmax, restmin, smax, (mpfr_ptr)0);
        mpfr_set_zero(rmax, 1);
        mpfr_set_inf(restmin, 1);
        mpfr_set_zero(smax, 1);
        for (int e = 0; e < 2; e++) {
            mpfr_set_d(r, ends[e], MPFR_RNDN);
            mpfr_mul_d(r, r, invc, MPFR_RNDN); /* exact: 24 x 24 bits */
            mpfr_sub_ui(r, r, 1, MPFR_RNDN);
            mpfr_log1p(l, r, MPFR_RNDN);
            mpfr_add(rest, T, l, MPFR_RNDN);
            rest_at[e][0] = mpfr_get_d(rest, MPFR_RNDN);
            rest_at[e][1] = mpfr_get_d(r, MPFR_RNDN);
            mpfr_abs(a, r, MPFR_RNDN);
            if (mpfr_cmp(a, rmax) > 0)
                mpfr_set(rmax, a, MPFR_RNDN);
            mpfr_abs(a, l, MPFR_RNDN);
            if (mpfr_cmp(a, smax) > 0)
                mpfr_set(smax, a, MPFR_RNDN);
            mpfr_abs(a, rest, MPFR_RNDN);
            if (mpfr_cmp(a, restmin) < 0)
                mpfr_set(restmin, a, MPFR_RNDN);
        }
        if (i == 0 || i == 127) {
            if (mpfr_cmp(rmax, maxr0) > 0)
                mpfr_set(maxr0, rmax, MPFR_RNDN);
        } else {
            if (!(rest_at[0][0] * rest_at[1][0] > 0)) {
                failures++;
                printf("FAIL: row %d: rest changes sign\n", i);
            }
            if (mpfr_cmp(rmax, maxr) > 0)
                mpfr_set(maxr, rmax, MPFR_RNDN);
            mpfr_div(a, rmax, restmin, MPFR_RNDU);
            if (mpfr_cmp(a, worst_r) > 0)
                mpfr_set(worst_r, a, MPFR_RNDN);
            mpfr_abs(a, T, MPFR_RNDN);
            mpfr_div(a, a, restmin, MPFR_RNDU);
            if (mpfr_cmp(a, worst_t) > 0)
                mpfr_set(worst_t, a, MPFR_RNDN);
            mpfr_div(a, smax, restmin, MPFR_RNDU);
            if (mpfr_cmp(a, worst_s) > 0)
                mpfr_set(worst_s, a, MPFR_RNDN);
        }
        mpfr_clears(rmax, restmin, smax, (mpfr_ptr)0);
    }
    bound("log rows 0, 127 (T = 0): max |r|", maxr0, -7.0);
    bound("log rows 1..126: max |r|", maxr, -8.0);
    ratio("log rows 1..126: rho_r = max |r| / |rest|", worst_r, 0.52);
    ratio("log rows 1..126: rho_T = max |T| / |rest|", worst_t, 1.52);
    ratio("log rows 1..126: rho_s = max |log1p r| / |rest|", worst_s, 0.52);
    mpfr_clears(r, l, rest, T, a, worst_r, worst_t, worst_s, maxr0, maxr, (mpfr_ptr)0);
}

/* M = max |rest / log 2| / |log2 x| over x = 2^k m with k != 0: k = -1 and m just below 1.5
 * (rest = log m, log2 x = -1 + log2 m), the rows below 64; k = 1 with rows from 64 gives less. */
static void log2_magnification(void)
{
    mpfr_t a, b;
    mpfr_inits2(PREC, a, b, (mpfr_ptr)0);
    mpfr_set_d(a, 1.5, MPFR_RNDN);
    mpfr_log2(a, a, MPFR_RNDU);
    mpfr_ui_sub(b, 1, a, MPFR_RNDD);
    mpfr_div(a, a, b, MPFR_RNDU);
    ratio("M = max |rest/log 2| / |log2 x| (k = -1, m -> 1.5)", a, 1.41);
    mpfr_set_d(a, 0.75, MPFR_RNDN);
    mpfr_log2(a, a, MPFR_RNDD);
    mpfr_neg(a, a, MPFR_RNDU);
    mpfr_ui_sub(b, 1, a, MPFR_RNDD);
    mpfr_div(a, a, b, MPFR_RNDU);
    ratio("   the same for k = 1, m/2 -> 0.75", a, 1.41);
    mpfr_clears(a, b, (mpfr_ptr)0);
}

/* |INVLN2_HI - 1/log 2| relative. */
static void invln2_error(void)
{
    mpfr_t a, b;
    mpfr_inits2(PREC, a, b, (mpfr_ptr)0);
    mpfr_const_log2(a, MPFR_RNDN);
    mpfr_ui_div(a, 1, a, MPFR_RNDN);
    mpfr_set_d(b, CN_ML_INVLN2_HI, MPFR_RNDN);
    mpfr_sub(b, b, a, MPFR_RNDN);
    mpfr_div(b, b, a, MPFR_RNDN);
    mpfr_abs(b, b, MPFR_RNDU);
    bound("|INVLN2_HI log 2 - 1|", b, -55.9);
    mpfr_const_log2(a, MPFR_RNDN);
    mpfr_set_d(b, CN_ML_LN2, MPFR_RNDN);
    mpfr_sub(b, b, a, MPFR_RNDN);
    mpfr_div(b, b, a, MPFR_RNDN);
    mpfr_abs(b, b, MPFR_RNDU);
    bound("|CN_ML_LN2 / log 2 - 1|", b, -54.0);
    mpfr_clears(a, b, (mpfr_ptr)0);
}

/* log1p's series to r^7 (cn_ml_log1p_estrin): the remainder sum_{n>=8} |r|^n/n <= |r|^8 / (8 (1 -
 * |r|)), and the coefficients' errors sum_n |c_n - (-1)^(n+1)/n| |r|^n, both relative to |r|. */
static void log1p_series(double rmax, double claim_trunc, double claim_coef)
{
    const double c[8] = {0, 1, CN_ML_LC2, CN_ML_LC3, CN_ML_LC4, CN_ML_LC5_21, CN_ML_LC6_21, CN_ML_LC7_21};
    mpfr_t rr, t, e, s;
    mpfr_inits2(PREC, rr, t, e, s, (mpfr_ptr)0);
    mpfr_set_d(rr, rmax, MPFR_RNDN);
    mpfr_pow_ui(t, rr, 7, MPFR_RNDU);
    mpfr_ui_sub(e, 1, rr, MPFR_RNDD);
    mpfr_div(t, t, e, MPFR_RNDU);
    mpfr_div_ui(t, t, 8, MPFR_RNDU);
    char what[100];
    snprintf(what, sizeof what, "log1p series to r^7, |r| <= %a: remainder / |r|", rmax);
    bound(what, t, claim_trunc);
    mpfr_set_zero(s, 1);
    for (int n = 2; n <= 7; n++) {
        mpfr_set_si(e, n % 2 ? 1 : -1, MPFR_RNDN);
        mpfr_div_ui(e, e, (unsigned long)n, MPFR_RNDN);
        mpfr_sub_d(e, e, c[n], MPFR_RNDN);
        mpfr_abs(e, e, MPFR_RNDN);
        mpfr_pow_ui(t, rr, (unsigned long)(n - 1), MPFR_RNDU);
        mpfr_mul(e, e, t, MPFR_RNDU);
        mpfr_add(s, s, e, MPFR_RNDU);
    }
    snprintf(what, sizeof what, "log1p coefficients' errors, |r| <= %a, / |r|", rmax);
    bound(what, s, claim_coef);
    mpfr_clears(rr, t, e, s, (mpfr_ptr)0);
}

/* 2^r0 - 1 to degree 4 (pow, exp2) for |r0| <= 2^-8: the remainder sum_{n>=5} (|r0| log 2)^n/n!
 * <= (|r0| log 2)^5/5! * e^(|r0| log 2), and the coefficients' errors, relative to 2^r0 >= 2^-2^-8. */
static void exp2_series(void)
{
    const double c[5] = {0, CN_ML_LN2, CN_ML_X2C2, CN_ML_X2C3, CN_ML_X2C4};
    mpfr_t u, t, e, s, l, lo;
    mpfr_inits2(PREC, u, t, e, s, l, lo, (mpfr_ptr)0);
    mpfr_const_log2(l, MPFR_RNDN);
    mpfr_mul_d(u, l, 0x1p-8, MPFR_RNDU); /* |r0| log 2 */
    mpfr_set_d(lo, -0x1p-8, MPFR_RNDN);
    mpfr_exp2(lo, lo, MPFR_RNDD); /* the least 2^r0 */
    mpfr_pow_ui(t, u, 5, MPFR_RNDU);
    mpfr_div_ui(t, t, 120, MPFR_RNDU);
    mpfr_exp(e, u, MPFR_RNDU);
    mpfr_mul(t, t, e, MPFR_RNDU);
    mpfr_div(t, t, lo, MPFR_RNDU);
    bound("2^r0 series to degree 4, |r0| <= 2^-8: remainder / 2^r0", t, -49.5);
    mpfr_set_zero(s, 1);
    mpfr_set_ui(e, 1, MPFR_RNDN);
    for (int n = 1; n <= 4; n++) {
        mpfr_mul(e, e, l, MPFR_RNDN);
        mpfr_div_ui(e, e, (unsigned long)n, MPFR_RNDN); /* (log 2)^n / n! */
        mpfr_sub_d(t, e, c[n], MPFR_RNDN);
        mpfr_abs(t, t, MPFR_RNDN);
        mpfr_set_d(u, 0x1p-8, MPFR_RNDN);
        mpfr_pow_ui(u, u, (unsigned long)n, MPFR_RNDU);
        mpfr_mul(t, t, u, MPFR_RNDU);
        mpfr_add(s, s, t, MPFR_RNDU);
    }
    mpfr_div(s, s, lo, MPFR_RNDU);
    bound("2^r0 coefficients' errors, |r0| <= 2^-8, / 2^r0", s, -63.2);
    mpfr_clears(u, t, e, s, l, lo, (mpfr_ptr)0);
}

/* ------------------------------------------------------------ sin and cos */

/* Cody-Waite for |x| < 2^20: |k| <= K = 2^20 2/pi + 1; the dropped k (pi/2 - P1 - P2 - P3) and
 * k P3 (how far t2 is from r). The series with cn_mt_first_coefs' seven coefficients on |r| <= R =
 * pi/4 + 2^-30: sin's first dropped term R^17/17! relative to sin r >= r sin(R)/R, cos's R^16/16!
 * relative to cos R; the coefficients' errors (each row against the exact Taylor terms). */
static void trig_bounds(void)
{
    mpfr_t pi2, t, a, kmax, R, s, e, f;
    mpfr_inits2(PREC, pi2, t, a, kmax, R, s, e, f, (mpfr_ptr)0);
    mpfr_const_pi(pi2, MPFR_RNDN);
    mpfr_div_ui(pi2, pi2, 2, MPFR_RNDN);
    mpfr_set_d(kmax, 0x1p20, MPFR_RNDN);
    mpfr_div(kmax, kmax, pi2, MPFR_RNDU);
    mpfr_add_ui(kmax, kmax, 1, MPFR_RNDU);
    bound("Cody-Waite: K = max |k| for |x| < 2^20", kmax, 19.36);
    mpfr_sub_d(t, pi2, CN_MT_PIO2_1, MPFR_RNDN);
    mpfr_sub_d(t, t, CN_MT_PIO2_2, MPFR_RNDN);
    mpfr_sub_d(t, t, CN_MT_PIO2_3, MPFR_RNDN);
    mpfr_abs(t, t, MPFR_RNDN);
    mpfr_mul(t, t, kmax, MPFR_RNDU);
    bound("Cody-Waite: K |pi/2 - P1 - P2 - P3| (the dropped part)", t, -83.85);
    mpfr_set_d(t, CN_MT_PIO2_3, MPFR_RNDN);
    mpfr_mul(t, t, kmax, MPFR_RNDU);
    bound("Cody-Waite: K P3", t, -49.39);
    mpfr_set_d(t, CN_MT_INV_PIO2, MPFR_RNDN);
    mpfr_ui_div(a, 1, pi2, MPFR_RNDN);
    mpfr_sub(t, t, a, MPFR_RNDN);
    mpfr_abs(t, t, MPFR_RNDN);
    mpfr_mul_d(t, t, 0x1p20, MPFR_RNDU);
    bound("Cody-Waite: 2^20 |INV_PIO2 - 2/pi| (moves k's rounding point)", t, -34.49);

    mpfr_const_pi(R, MPFR_RNDU);
    mpfr_div_ui(R, R, 4, MPFR_RNDU);
    mpfr_add_d(R, R, 0x1p-30, MPFR_RNDU);
    mpfr_sin(s, R, MPFR_RNDD);
    mpfr_div(s, s, R, MPFR_RNDD); /* sin r / r >= sin R / R */
    mpfr_ui_div(a, 1, s, MPFR_RNDU);
    ratio("|r| / |sin r| for |r| <= R = pi/4 + 2^-30", a, 1.111);
    mpfr_pow_ui(t, R, 16, MPFR_RNDU);
    mpfr_fac_ui(f, 17, MPFR_RNDN);
    mpfr_div(t, t, f, MPFR_RNDU);
    mpfr_div(t, t, s, MPFR_RNDU);
    bound("sin: R^17/17! / sin R (the first dropped term, relative)", t, -53.75);
    mpfr_cos(a, R, MPFR_RNDD);
    mpfr_pow_ui(t, R, 16, MPFR_RNDU);
    mpfr_fac_ui(f, 16, MPFR_RNDN);
    mpfr_div(t, t, f, MPFR_RNDU);
    bound("cos: R^16/16! (absolute)", t, -49.8);
    mpfr_div(t, t, a, MPFR_RNDU);
    bound("cos: R^16/16! / cos R (relative)", t, -49.3);
    ratio("cos R", a, 0);
    for (int row = 0; row < 2; row++) {
        const double *c = cn_mt_first_coefs(row);
        mpfr_set_zero(s, 1);
        mpfr_mul(a, R, R, MPFR_RNDU); /* z <= R^2 */
        for (int j = 0; j < 7; j++) {
            int n = row == 0 ? 2 * j + 3 : 2 * j + 2;
            mpfr_fac_ui(f, (unsigned long)n, MPFR_RNDN);
            mpfr_ui_div(e, 1, f, MPFR_RNDN);
            if (j % 2 == 0)
                mpfr_neg(e, e, MPFR_RNDN);
            mpfr_sub_d(e, e, c[j], MPFR_RNDN);
            mpfr_abs(e, e, MPFR_RNDN);
            mpfr_pow_ui(t, a, (unsigned long)j, MPFR_RNDU);
            mpfr_mul(e, e, t, MPFR_RNDU);
            mpfr_add(s, s, e, MPFR_RNDU);
        }
        if (c[7] != 0.0) {
            failures++;
            printf("FAIL: the padding of row %d is not 0\n", row);
        }
        bound(row == 0 ? "sin: coefficients' errors in P (absolute, z <= R^2)"
                       : "cos: coefficients' errors in P (absolute, z <= R^2)",
              s, row == 0 ? -56.5 : -59.2);
    }
    mpfr_clears(pi2, t, a, kmax, R, s, e, f, (mpfr_ptr)0);
}

int main(void)
{
    print_x2c();
    log_rows();
    log2_magnification();
    invln2_error();
    log1p_series(0x1p-7, -51.98, -52.3);
    log1p_series(0x1p-8, -58.98, -56.3);
    exp2_series();
    trig_bounds();
    if (failures)
        printf("%d FAIL\n", failures);
    return failures != 0;
}
