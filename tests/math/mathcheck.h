/*
 * mathcheck.h: the shared harness of the portable math tests (tests/math/).
 *
 * The oracle is MPFR, always:
 *   - an f32 result is compared with f(x) rounded once to f32 by MPFR
 *     (precision 24, f32's exponent range, mpfr_subnormalize), so a
 *     difference of one bit is a failure: the f32 functions are correctly
 *     rounded;
 *   - an f64 result's error is measured in ulps against f(x) at 160 bits:
 *     |got - exact| / ulp, where ulp is the spacing of doubles at the
 *     exact value (2^-1074 below the normals). The bound each function
 *     claims (runtime/cairn_math.h) is checked against it.
 * Special values (NaN, infinities, zeros of both signs) are compared by
 * class and sign; every NaN is one class.
 *
 * The drivers count checks and failures in a Tally the caller owns; a
 * failure prints the function, the input's bits, what came back and what
 * was expected (the first few per function only). Every driver is safe to
 * run on several threads at once: MPFR's exponent range is per thread
 * (Debian builds MPFR thread-safe), and each thread has its own variables.
 */
#ifndef CAIRN_MATHCHECK_H
#define CAIRN_MATHCHECK_H

#include <math.h>
#include <mpfr.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int (*cm_mpfr1)(mpfr_ptr, mpfr_srcptr, mpfr_rnd_t);
typedef int (*cm_mpfr2)(mpfr_ptr, mpfr_srcptr, mpfr_srcptr, mpfr_rnd_t);

typedef struct {
    long checks, failed;
    int shown;          /* failures printed so far (at most CM_SHOW) */
    double worst_ulp;   /* f64: the largest error seen, in ulps */
    uint64_t worst_in;  /* ... and its input's bits (the first argument's) */
    pthread_mutex_t lock;
} CmTally;

enum { CM_SHOW = 8 };

#define CM_TALLY_INIT {0, 0, 0, 0.0, 0, PTHREAD_MUTEX_INITIALIZER}

static inline uint32_t cm_bits32(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static inline uint64_t cm_bits64(double d) { uint64_t u; memcpy(&u, &d, 8); return u; }
static inline float cm_f32(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static inline double cm_f64(uint64_t u) { double d; memcpy(&d, &u, 8); return d; }

/* The same value for IEEE's purposes: equal bits, or both NaN. */
static inline bool cm_same32(float a, float b) { return (a != a && b != b) || cm_bits32(a) == cm_bits32(b); }
static inline bool cm_same64(double a, double b) { return (a != a && b != b) || cm_bits64(a) == cm_bits64(b); }

/* ------------------------------------------------------------ f32: correctly rounded */

/* f(x) (or f(x, y)) rounded once to f32, to nearest with ties to even. */
static float cm_ref32(cm_mpfr1 f, cm_mpfr2 f2, float x, float y)
{
    mpfr_exp_t emin = mpfr_get_emin(), emax = mpfr_get_emax();
    mpfr_t a, b, r;
    mpfr_inits2(24, a, b, r, (mpfr_ptr)0);
    mpfr_set_flt(a, x, MPFR_RNDN);
    mpfr_set_flt(b, y, MPFR_RNDN);
    mpfr_set_emin(-148); /* f32: the smallest subnormal is 2^-149 = 0.1b * 2^-148 */
    mpfr_set_emax(128);
    mpfr_clear_flags();
    int t = f ? f(r, a, MPFR_RNDN) : f2(r, a, b, MPFR_RNDN);
    t = mpfr_check_range(r, t, MPFR_RNDN);
    mpfr_subnormalize(r, t, MPFR_RNDN);
    float out = mpfr_get_flt(r, MPFR_RNDN);
    mpfr_set_emin(emin);
    mpfr_set_emax(emax);
    mpfr_clears(a, b, r, (mpfr_ptr)0);
    return out;
}

static void cm_fail(CmTally *t, const char *name, uint64_t in, uint64_t in2, uint64_t got, uint64_t want,
                    double ulps)
{
    pthread_mutex_lock(&t->lock);
    t->failed++;
    if (t->shown++ < CM_SHOW)
        printf("FAIL %s(0x%llx%s%.0llx): got 0x%llx, want 0x%llx (%.3g ulp)\n", name, (unsigned long long)in,
               in2 != (uint64_t)-1 ? ", 0x" : "", in2 != (uint64_t)-1 ? (unsigned long long)in2 : 0ULL,
               (unsigned long long)got, (unsigned long long)want, ulps);
    pthread_mutex_unlock(&t->lock);
}

/* One f32 input of a one-argument function: true when it is correctly rounded. */
static inline bool cm_check32(CmTally *t, const char *name, float (*ours)(float), cm_mpfr1 f, float x)
{
    float got = ours(x), want = cm_ref32(f, NULL, x, 0.0f);
    if (cm_same32(got, want))
        return true;
    cm_fail(t, name, cm_bits32(x), (uint64_t)-1, cm_bits32(got), cm_bits32(want), 0.0);
    return false;
}

static inline bool cm_check32_2(CmTally *t, const char *name, float (*ours)(float, float), cm_mpfr2 f, float x,
                                float y)
{
    float got = ours(x, y), want = cm_ref32(NULL, f, x, y);
    if (cm_same32(got, want))
        return true;
    cm_fail(t, name, cm_bits32(x), cm_bits32(y), cm_bits32(got), cm_bits32(want), 0.0);
    return false;
}

/* ------------------------------------------------------------ f64: error in ulps */

/* f(x) (or f(x, y)) rounded once to f64: what a failure message shows as wanted. */
static double cm_ref64(cm_mpfr1 f, cm_mpfr2 f2, double x, double y)
{
    mpfr_exp_t emin = mpfr_get_emin(), emax = mpfr_get_emax();
    mpfr_t a, b, r;
    mpfr_inits2(53, a, b, r, (mpfr_ptr)0);
    mpfr_set_d(a, x, MPFR_RNDN);
    mpfr_set_d(b, y, MPFR_RNDN);
    mpfr_set_emin(-1073);
    mpfr_set_emax(1024);
    int t = f ? f(r, a, MPFR_RNDN) : f2(r, a, b, MPFR_RNDN);
    t = mpfr_check_range(r, t, MPFR_RNDN);
    mpfr_subnormalize(r, t, MPFR_RNDN);
    double out = mpfr_get_d(r, MPFR_RNDN);
    mpfr_set_emin(emin);
    mpfr_set_emax(emax);
    mpfr_clears(a, b, r, (mpfr_ptr)0);
    return out;
}

/* |got - f(x)| in ulps of f(x). Infinite when got is a different special or
 * has the wrong sign of zero; 0 when both are the same special. An exact
 * result that overflows double counts the distance from DBL_MAX's next
 * would-be value (2^1024) as usual. */
static double cm_ulps64(cm_mpfr1 f, cm_mpfr2 f2, double x, double y, double got)
{
    mpfr_t a, b, r, g;
    mpfr_inits2(160, a, b, r, g, (mpfr_ptr)0);
    mpfr_set_d(a, x, MPFR_RNDN);
    mpfr_set_d(b, y, MPFR_RNDN);
    if (f)
        f(r, a, MPFR_RNDN);
    else
        f2(r, a, b, MPFR_RNDN);
    double e;
    if (mpfr_nan_p(r)) {
        e = got != got ? 0.0 : INFINITY;
    } else if (got != got) {
        e = INFINITY;
    } else if (mpfr_inf_p(r) || isinf(got)) {
        /* both infinite with one sign, or a finite exact value past the range that rounds to inf */
        double rd = mpfr_get_d(r, MPFR_RNDN);
        e = (isinf(rd) && rd == got) ? 0.0 : INFINITY;
    } else if (mpfr_zero_p(r)) {
        e = got == 0.0 && signbit(got) == (mpfr_signbit(r) != 0) ? 0.0 : INFINITY;
        if (got != 0.0)
            e = fabs(got) / 0x1p-1074;
    } else {
        /* ulp at the exact value: 2^(exponent - 53), never below 2^-1074 */
        long ex = mpfr_get_exp(r); /* r = 0.1xxx * 2^ex */
        long uexp = ex - 53;
        if (uexp < -1074)
            uexp = -1074;
        mpfr_set_d(g, got, MPFR_RNDN);
        mpfr_sub(g, g, r, MPFR_RNDN);
        mpfr_abs(g, g, MPFR_RNDN);
        mpfr_mul_2si(g, g, -uexp, MPFR_RNDN);
        e = mpfr_get_d(g, MPFR_RNDU);
    }
    mpfr_clears(a, b, r, g, (mpfr_ptr)0);
    return e;
}

/* One f64 input: true when the error is within `bound` ulps. Records the worst. */
static inline bool cm_check64(CmTally *t, const char *name, double (*ours)(double), cm_mpfr1 f, double x,
                              double bound)
{
    double got = ours(x), e = cm_ulps64(f, NULL, x, 0.0, got);
    pthread_mutex_lock(&t->lock);
    t->checks++;
    if (e > t->worst_ulp && e <= bound) {
        t->worst_ulp = e;
        t->worst_in = cm_bits64(x);
    }
    pthread_mutex_unlock(&t->lock);
    if (e <= bound)
        return true;
    cm_fail(t, name, cm_bits64(x), (uint64_t)-1, cm_bits64(got), cm_bits64(cm_ref64(f, NULL, x, 0.0)), e);
    return false;
}

static inline bool cm_check64_2(CmTally *t, const char *name, double (*ours)(double, double), cm_mpfr2 f,
                                double x, double y, double bound)
{
    double got = ours(x, y), e = cm_ulps64(NULL, f, x, y, got);
    pthread_mutex_lock(&t->lock);
    t->checks++;
    if (e > t->worst_ulp && e <= bound) {
        t->worst_ulp = e;
        t->worst_in = cm_bits64(x);
    }
    pthread_mutex_unlock(&t->lock);
    if (e <= bound)
        return true;
    cm_fail(t, name, cm_bits64(x), cm_bits64(y), cm_bits64(got), cm_bits64(cm_ref64(NULL, f, x, y)), e);
    return false;
}

/* ------------------------------------------------------------ inputs */

/* A small, seeded generator (splitmix64): the same inputs on every run. */
static inline uint64_t cm_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* A double spread over every binade (random bits), or one uniform in [lo, hi). */
static inline double cm_any64(uint64_t *s) { return cm_f64(cm_next(s)); }
static inline double cm_in64(uint64_t *s, double lo, double hi)
{
    return lo + (hi - lo) * ((double)(cm_next(s) >> 11) * 0x1p-53);
}

/* ------------------------------------------------------------ every f32 input */

/* Every f32 bit pattern in [lo, hi) of a one-argument function, on `threads`
 * threads, each taking interleaved chunks of 2^16 patterns. Adds to t->checks
 * and t->failed. */
typedef struct {
    CmTally *t;
    const char *name;
    float (*ours)(float);
    cm_mpfr1 f;
    uint64_t lo, hi;
    int k, n;
} CmJob;

static void *cm_worker(void *p)
{
    CmJob *j = p;
    long checks = 0;
    for (uint64_t c = j->lo + ((uint64_t)j->k << 16); c < j->hi; c += (uint64_t)j->n << 16) {
        uint64_t e = c + (1u << 16) < j->hi ? c + (1u << 16) : j->hi;
        for (uint64_t u = c; u < e; u++) {
            cm_check32(j->t, j->name, j->ours, j->f, cm_f32((uint32_t)u));
            checks++;
        }
    }
    pthread_mutex_lock(&j->t->lock);
    j->t->checks += checks;
    pthread_mutex_unlock(&j->t->lock);
    return NULL;
}

static inline void cm_every32(CmTally *t, const char *name, float (*ours)(float), cm_mpfr1 f, uint64_t lo,
                              uint64_t hi, int threads)
{
    if (threads < 1)
        threads = 1;
    if (threads > 256)
        threads = 256;
    pthread_t tid[256];
    CmJob job[256];
    for (int k = 0; k < threads; k++) {
        job[k] = (CmJob){t, name, ours, f, lo, hi, k, threads};
        pthread_create(&tid[k], NULL, cm_worker, &job[k]);
    }
    for (int k = 0; k < threads; k++)
        pthread_join(tid[k], NULL);
}

/* A checker's `--exhaustive NAME [THREADS [LO HI]]`, from its argv: every f32
 * bit pattern in [LO, HI) (all 2^32 by default) of ours against f, one line
 * of result; exits 1 when an input is not correctly rounded. */
static inline int cm_exhaustive32(const char *name, float (*ours)(float), cm_mpfr1 f, int argc, char **argv)
{
    int threads = argc >= 4 ? atoi(argv[3]) : 1;
    uint64_t lo = argc >= 6 ? strtoull(argv[4], NULL, 0) : 0, hi = argc >= 6 ? strtoull(argv[5], NULL, 0) : 1ULL << 32;
    CmTally t = CM_TALLY_INIT;
    cm_every32(&t, name, ours, f, lo, hi, threads);
    printf("%s f32 exhaustive: %ld inputs (patterns 0x%llx to 0x%llx), %ld not correctly rounded\n", name, t.checks,
           (unsigned long long)lo, (unsigned long long)hi - 1, t.failed);
    return t.failed ? 1 : 0;
}

#endif
