/*
 * test_sum.c: runtime/cairn_sum.h, and the device sum's steps in runtime/cairn_dsumstep.h, against MPFR.
 *
 * The oracle is mpfr_sum (exact, then rounded once to nearest-even) at 53 or
 * 24 bits in the format's exponent range with mpfr_subnormalize, plus the
 * special-value table (the one quiet NaN, the signed zeros); MPFR's own
 * rules give the same answer there, and the NaN's bits are the spec's.
 *
 * Every case is summed many ways, and every way must give the oracle's bits:
 *   - one state, add_array; one state, one add per term; add_array on each
 *     vector kind this build and CPU have (SSE2, AVX2, AVX-512 on x86-64);
 *     the lanes below also take the kinds in turn. (-DCN_SUM_SCALAR builds the
 *     scalar kind nvcc gets; tests/unit/sum_sanitizers.sh runs that too.)
 *   - for every lane count 1..16: the terms cut into that many contiguous
 *     chunks (add_array) and into interleaved ones (add per term), each
 *     chunk summed by its own state on its own pthread; the states merged
 *     front to back, back to front, and as a pairwise tree.
 *   - the device's exact sum (runtime/cairn_devsum.h) modelled step by step
 *     with its own steps: parts of threads, f32 bins moved to limbs, f64
 *     windows of two doubles and each thread's digits.
 * Families: ties to even, an ulp around powers of two, the largest finite
 * value and overflow, subnormals and cancellation, signed zeros, no terms,
 * NaN and infinity mixes, random terms of narrow and of wide range, chunks
 * that load the levels to the proof's limit, huge counts of huge terms, a
 * carry pass forced mid-sum; for f64 and f32.
 * One pass or one failure per family. Prints `N passed, N failed, 0 skipped`
 * and exits 1 on a failure. SUM_QUICK=1 (the sanitizer runs) runs fewer
 * random cases with threads.
 */
#include "cairn_dsumstep.h"

#include <mpfr.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

enum { MAX_LANES = 16 };

/* ------------------------------------------------------------- utilities */

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static uint64_t rng(void) /* splitmix64 */
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static int rng_int(int lo, int hi) /* [lo, hi] */
{
    return lo + (int)(rng() % (uint64_t)(hi - lo + 1));
}

static double rng_sign(double x) { return (rng() & 1) ? -x : x; }

static uint64_t bits64(double x)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    return b;
}

static uint32_t bits32(float x)
{
    uint32_t b;
    memcpy(&b, &x, sizeof b);
    return b;
}

static void shuffle64(double *x, size_t n)
{
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)(rng() % i);
        double t = x[i - 1];
        x[i - 1] = x[j];
        x[j] = t;
    }
}

static void shuffle32(float *x, size_t n)
{
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)(rng() % i);
        float t = x[i - 1];
        x[i - 1] = x[j];
        x[j] = t;
    }
}

/* --------------------------------------------------------------- oracles */

/* mpfr_sum at prec bits in [emin, emax] (MPFR's exponents: x = m * 2^e with
 * m in [0.5, 1)), subnormalised; NaN in the spec's one encoding. */
static void oracle_sum(mpfr_t r, const double *x, size_t n, int emin, int emax)
{
    mpfr_exp_t old_min = mpfr_get_emin(), old_max = mpfr_get_emax();
    mpfr_t *v = malloc((n ? n : 1) * sizeof *v);
    mpfr_ptr *p = malloc((n ? n : 1) * sizeof *p);
    for (size_t i = 0; i < n; i++) {
        mpfr_init2(v[i], 53);
        mpfr_set_d(v[i], x[i], MPFR_RNDN); /* exact */
        p[i] = v[i];
    }
    mpfr_set_emin(emin);
    mpfr_set_emax(emax);
    mpfr_clear_flags();
    int t = mpfr_sum(r, p, (unsigned long)n, MPFR_RNDN);
    t = mpfr_check_range(r, t, MPFR_RNDN);
    mpfr_subnormalize(r, t, MPFR_RNDN);
    mpfr_set_emin(old_min);
    mpfr_set_emax(old_max);
    for (size_t i = 0; i < n; i++)
        mpfr_clear(v[i]);
    free(v);
    free(p);
}

static uint64_t oracle64(const double *x, size_t n)
{
    mpfr_t r;
    mpfr_init2(r, 53);
    oracle_sum(r, x, n, -1073, 1024);
    double d = mpfr_get_d(r, MPFR_RNDN);
    mpfr_clear(r);
    return d != d ? 0x7ff8000000000000u : bits64(d);
}

static uint32_t oracle32(const float *x, size_t n)
{
    double *w = malloc((n ? n : 1) * sizeof *w);
    for (size_t i = 0; i < n; i++)
        w[i] = x[i];
    mpfr_t r;
    mpfr_init2(r, 24);
    oracle_sum(r, w, n, -148, 128);
    float f = mpfr_get_flt(r, MPFR_RNDN);
    mpfr_clear(r);
    free(w);
    return f != f ? 0x7fc00000u : bits32(f);
}

/* ------------------------------------------------------ lanes on threads */

/* Vector kinds 0 .. cn_sum_cpu_wide() in turn (see cairn_sum.h). */
static uint32_t kind_for(size_t k)
{
    return (uint32_t)(k % (cn_sum_cpu_wide() + 1));
}

typedef struct {
    int is32, contiguous;
    const double *x64;
    const float *x32;
    size_t first, step, count; /* terms first + k * step, k < count */
    cn_sum64 s64;
    cn_sum32 s32;
} Lane;

static void *lane_run(void *arg)
{
    Lane *l = arg;
    if (l->is32) {
        cn_sum32_init(&l->s32);
        l->s32.wide = kind_for(l->first); /* lanes on different vector kinds */
        if (l->contiguous)
            cn_sum32_add_array(&l->s32, l->x32 + l->first, l->count);
        else
            for (size_t k = 0; k < l->count; k++)
                cn_sum32_add(&l->s32, l->x32[l->first + k * l->step]);
    } else {
        cn_sum64_init(&l->s64);
        l->s64.wide = kind_for(l->first);
        if (l->contiguous)
            cn_sum64_add_array(&l->s64, l->x64 + l->first, l->count);
        else
            for (size_t k = 0; k < l->count; k++)
                cn_sum64_add(&l->s64, l->x64[l->first + k * l->step]);
    }
    return NULL;
}

static Lane lanes[MAX_LANES];

/* MAX_LANES workers started once and handed a generation of lanes at a
 * time: one thread per lane per case made 77k threads in a run, and their
 * creation was most of the test's time (system time, worse under TSan).
 * The lanes still run on distinct threads, concurrently, and the handoff
 * under the mutex is what TSan sees ordering their states' reads. */
typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t go, done;
    unsigned long gen;  /* bumped for each run of lanes */
    int active;         /* workers 0 .. active-1 run a lane this generation */
    int pending;        /* workers of this generation not finished */
    bool started;
} Workers;

static Workers workers = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0, false};

static void *worker_main(void *arg)
{
    int k = (int)(intptr_t)arg;
    unsigned long seen = 0;
    for (;;) {
        pthread_mutex_lock(&workers.mu);
        while (workers.gen == seen || k >= workers.active) {
            if (workers.gen != seen)
                seen = workers.gen;      /* a generation without this worker */
            pthread_cond_wait(&workers.go, &workers.mu);
        }
        seen = workers.gen;
        pthread_mutex_unlock(&workers.mu);
        lane_run(&lanes[k]);
        pthread_mutex_lock(&workers.mu);
        if (--workers.pending == 0)
            pthread_cond_signal(&workers.done);
        pthread_mutex_unlock(&workers.mu);
    }
    return NULL;
}

static void workers_start(void)
{
    for (int k = 0; k < MAX_LANES; k++) {
        pthread_t th;
        if (pthread_create(&th, NULL, worker_main, (void *)(intptr_t)k) != 0) {
            fprintf(stderr, "pthread_create failed\n");
            exit(2);
        }
        pthread_detach(th);
    }
    workers.started = true;
}

/* Runs n terms as `nl` lanes on threads; lanes[] then hold the states. */
static void run_lanes(int is32, const double *x64, const float *x32, size_t n, int nl,
                      int contiguous)
{
    if (!workers.started)
        workers_start();
    pthread_mutex_lock(&workers.mu);
    for (int k = 0; k < nl; k++) {
        Lane *l = &lanes[k];
        l->is32 = is32;
        l->contiguous = contiguous;
        l->x64 = x64;
        l->x32 = x32;
        if (contiguous) { /* uneven cuts: lane k gets [n*k/nl, n*(k+1)/nl) */
            size_t lo = n * (size_t)k / (size_t)nl, hi = n * (size_t)(k + 1) / (size_t)nl;
            l->first = lo;
            l->step = 1;
            l->count = hi - lo;
        } else {
            l->first = (size_t)k;
            l->step = (size_t)nl;
            l->count = (size_t)k < n ? (n - (size_t)k + (size_t)nl - 1) / (size_t)nl : 0;
        }
    }
    workers.active = nl;
    workers.pending = nl;
    workers.gen++;
    pthread_cond_broadcast(&workers.go);
    while (workers.pending)
        pthread_cond_wait(&workers.done, &workers.mu);
    pthread_mutex_unlock(&workers.mu);
}

/* The three merge orders' results, as bits. */
static cn_sum64 tree64[MAX_LANES];
static cn_sum32 tree32[MAX_LANES];

static void merged64(int nl, uint64_t out[3])
{
    cn_sum64 acc = lanes[0].s64;
    for (int k = 1; k < nl; k++)
        cn_sum64_merge(&acc, &lanes[k].s64);
    out[0] = bits64(cn_sum64_round(&acc));
    acc = lanes[nl - 1].s64;
    for (int k = nl - 2; k >= 0; k--)
        cn_sum64_merge(&acc, &lanes[k].s64);
    out[1] = bits64(cn_sum64_round(&acc));
    for (int k = 0; k < nl; k++)
        tree64[k] = lanes[k].s64;
    for (int w = 1; w < nl; w *= 2)
        for (int k = 0; k + w < nl; k += 2 * w)
            cn_sum64_merge(&tree64[k], &tree64[k + w]);
    out[2] = bits64(cn_sum64_round(&tree64[0]));
}

static void merged32(int nl, uint32_t out[3])
{
    cn_sum32 acc = lanes[0].s32;
    for (int k = 1; k < nl; k++)
        cn_sum32_merge(&acc, &lanes[k].s32);
    out[0] = bits32(cn_sum32_round(&acc));
    acc = lanes[nl - 1].s32;
    for (int k = nl - 2; k >= 0; k--)
        cn_sum32_merge(&acc, &lanes[k].s32);
    out[1] = bits32(cn_sum32_round(&acc));
    for (int k = 0; k < nl; k++)
        tree32[k] = lanes[k].s32;
    for (int w = 1; w < nl; w *= 2)
        for (int k = 0; k + w < nl; k += 2 * w)
            cn_sum32_merge(&tree32[k], &tree32[k + w]);
    out[2] = bits32(cn_sum32_round(&tree32[0]));
}

/* ------------------------------------------------------------ the checks */


typedef struct {
    long passed, failed;
    bool family_ok;
    const char *family;
    long cases;
} Tally;

static void family_begin(Tally *t, const char *name)
{
    t->family = name;
    t->family_ok = true;
    t->cases = 0;
}

static void family_end(Tally *t)
{
    if (t->family_ok) {
        t->passed++;
        printf("ok   %s (%ld cases)\n", t->family, t->cases);
    } else {
        t->failed++;
    }
}

static void mismatch(Tally *t, const char *how, size_t n, uint64_t want, uint64_t got)
{
    if (t->family_ok) /* the first mismatch of a family is enough to read */
        printf("FAIL %s: %s, n=%zu: want %016llx got %016llx\n", t->family, how, n,
               (unsigned long long)want, (unsigned long long)got);
    t->family_ok = false;
}

/* ------------------------------------- the device's exact sum, on the host */

#include "sum_device.h"

/* Every way of summing x[0..n) against the oracle. lanes: sweep 1..16 on
 * threads, or only the single-state ways. */
static void check64(Tally *t, const double *x, size_t n, bool sweep)
{
    uint64_t want = oracle64(x, n);
    t->cases++;
    uint64_t got = bits64(cn_sum_f64(x, n));
    if (got != want)
        mismatch(t, "add_array", n, want, got);
    cn_sum64 s;
    cn_sum64_init(&s);
    for (size_t i = 0; i < n; i++)
        cn_sum64_add(&s, x[i]);
    got = bits64(cn_sum64_round(&s));
    if (got != want)
        mismatch(t, "add per term", n, want, got);
    for (uint32_t kind = 0; kind <= cn_sum_cpu_wide(); kind++) {
        cn_sum64_init(&s);
        s.wide = kind;
        cn_sum64_add_array(&s, x, n);
        got = bits64(cn_sum64_round(&s));
        if (got != want)
            mismatch(t, kind == 0 ? "add_array, kind 0" : kind == 1 ? "add_array, kind 1" : "add_array, kind 2", n, want, got);
    }
    check_dev64(t, x, n, want);
    if (!sweep)
        return;
    for (int nl = 1; nl <= MAX_LANES; nl++)
        for (int contiguous = 0; contiguous <= 1; contiguous++) {
            uint64_t r[3];
            run_lanes(0, x, NULL, n, nl, contiguous);
            merged64(nl, r);
            for (int o = 0; o < 3; o++)
                if (r[o] != want) {
                    char how[96];
                    snprintf(how, sizeof how, "%d lanes, %s, merge order %d", nl,
                             contiguous ? "contiguous" : "interleaved", o);
                    mismatch(t, how, n, want, r[o]);
                }
        }
}

static void check32(Tally *t, const float *x, size_t n, bool sweep)
{
    uint32_t want = oracle32(x, n);
    t->cases++;
    uint32_t got = bits32(cn_sum_f32(x, n));
    if (got != want)
        mismatch(t, "add_array", n, want, got);
    cn_sum32 s;
    cn_sum32_init(&s);
    for (size_t i = 0; i < n; i++)
        cn_sum32_add(&s, x[i]);
    got = bits32(cn_sum32_round(&s));
    if (got != want)
        mismatch(t, "add per term", n, want, got);
    for (uint32_t kind = 0; kind <= cn_sum_cpu_wide(); kind++) {
        cn_sum32_init(&s);
        s.wide = kind;
        cn_sum32_add_array(&s, x, n);
        got = bits32(cn_sum32_round(&s));
        if (got != want)
            mismatch(t, kind == 0 ? "add_array, kind 0" : kind == 1 ? "add_array, kind 1" : "add_array, kind 2", n, want, got);
    }
    check_dev32(t, x, n, want);
    if (!sweep)
        return;
    for (int nl = 1; nl <= MAX_LANES; nl++)
        for (int contiguous = 0; contiguous <= 1; contiguous++) {
            uint32_t r[3];
            run_lanes(1, NULL, x, n, nl, contiguous);
            merged32(nl, r);
            for (int o = 0; o < 3; o++)
                if (r[o] != want) {
                    char how[96];
                    snprintf(how, sizeof how, "%d lanes, %s, merge order %d", nl,
                             contiguous ? "contiguous" : "interleaved", o);
                    mismatch(t, how, n, want, r[o]);
                }
        }
}

/* A case must also equal a known answer (the oracle could be wrong too). */
static void expect64(Tally *t, const double *x, size_t n, double want)
{
    uint64_t w = want != want ? 0x7ff8000000000000u : bits64(want);
    uint64_t o = oracle64(x, n);
    if (o != w)
        mismatch(t, "oracle vs known answer", n, w, o);
    check64(t, x, n, true);
}

static void expect32(Tally *t, const float *x, size_t n, float want)
{
    uint32_t w = want != want ? 0x7fc00000u : bits32(want);
    uint32_t o = oracle32(x, n);
    if (o != w)
        mismatch(t, "oracle vs known answer", n, w, o);
    check32(t, x, n, true);
}

/* Pads a case with cancelling pairs and zeros, shuffled, so that the
 * interesting terms land in different chunks, lanes and passes. */
static size_t pad64(double *x, size_t n, size_t cap)
{
    int pairs = rng_int(0, 40);
    for (int k = 0; k < pairs && n + 2 <= cap; k++) {
        double v = ldexp((double)(rng() >> 11), rng_int(-1100, 970));
        x[n++] = v;
        x[n++] = -v;
    }
    int zeros = rng_int(0, 300);
    for (int k = 0; k < zeros && n < cap; k++)
        x[n++] = rng_sign(0.0);
    shuffle64(x, n);
    return n;
}

static size_t pad32(float *x, size_t n, size_t cap)
{
    int pairs = rng_int(0, 40);
    for (int k = 0; k < pairs && n + 2 <= cap; k++) {
        float v = ldexpf((float)(rng() >> 40), rng_int(-172, 103));
        x[n++] = v;
        x[n++] = -v;
    }
    int zeros = rng_int(0, 300);
    for (int k = 0; k < zeros && n < cap; k++)
        x[n++] = (float)rng_sign(0.0);
    shuffle32(x, n);
    return n;
}

enum { CAP = 1 << 14 };
static double X[CAP];
static float XF[CAP];

/* -------------------------------------------------------- f64 families */

static void f64_ties(Tally *t)
{
    family_begin(t, "f64 ties to even");
    /* 1 + 2^-53 is a tie: even is 1; (1 + 2^-52) + 2^-53 rounds up. */
    double a[] = {1.0, 0x1p-53};
    expect64(t, a, 2, 1.0);
    double b[] = {1.0 + 0x1p-52, 0x1p-53};
    expect64(t, b, 2, 1.0 + 0x1p-51);
    double c[] = {1.0, 0x1p-54, 0x1p-54, 0x1p-1074};
    expect64(t, c, 4, 1.0 + 0x1p-52);
    double d[] = {1.0, 0x1p-53, -0x1p-1074};
    expect64(t, d, 3, 1.0);
    double e[] = {1e300, 1.0, 0x1p-53, -1e300};
    expect64(t, e, 4, 1.0);
    for (int k = 0; k < 60; k++) { /* m * 2^s plus half its ulp, in pieces */
        size_t n = 0;
        int pieces = rng_int(1, 6);
        int s = rng_int(-1074 + pieces, 960);
        double m = (double)((rng() >> 11) | ((uint64_t)1 << 52));
        X[n++] = ldexp(m, s);
        for (int p = 1; p < pieces; p++) /* 2^(s-1) = 2^(s-2) + ... + 2 * 2^(s-pieces) */
            X[n++] = ldexp(1.0, s - 1 - p);
        X[n++] = ldexp(1.0, s - pieces);
        if (k % 3 == 1)
            X[n++] = 0x1p-1074; /* off the tie */
        n = pad64(X, n, CAP);
        check64(t, X, n, k < 20);
    }
    family_end(t);
}

static void f64_powers_of_two(Tally *t)
{
    family_begin(t, "f64 an ulp around powers of two");
    double a[] = {1.0, -0x1p-54}; /* tie between 1 - 2^-53 and 1: even is 1 */
    expect64(t, a, 2, 1.0);
    double b[] = {1.0, -0x1p-54, -0x1p-1074}; /* below the tie */
    expect64(t, b, 3, 1.0 - 0x1p-53);
    double c[] = {1.0, -0x1p-53}; /* exact */
    expect64(t, c, 2, 1.0 - 0x1p-53);
    double d[] = {1.0 - 0x1p-53, 0x1p-54}; /* tie up to 1 */
    expect64(t, d, 2, 1.0);
    double e[] = {2.0, -0x1p-53, 0x1p-200}; /* above the tie below 2 */
    expect64(t, e, 3, 2.0);
    for (int k = 0; k < 80; k++) {
        size_t n = 0;
        int s = rng_int(-1000, 1000);
        X[n++] = ldexp(1.0, s);
        int off = rng_int(-56, -51);
        X[n++] = rng_sign(ldexp(1.0, s + off));
        if (rng() & 1)
            X[n++] = rng_sign(ldexp(1.0, s + rng_int(-120, -54)));
        n = pad64(X, n, CAP);
        check64(t, X, n, k < 20);
    }
    family_end(t);
}

static void f64_largest(Tally *t)
{
    family_begin(t, "f64 largest finite value and overflow");
    const double inf = HUGE_VAL;
    double a[] = {DBL_MAX, DBL_MAX, -DBL_MAX};
    expect64(t, a, 3, DBL_MAX);
    double b[] = {DBL_MAX, 0x1p970}; /* DBL_MAX + ulp/2: a tie, to 2^1024 */
    expect64(t, b, 2, inf);
    double c[] = {DBL_MAX, 0x1p970, -0x1p-1074};
    expect64(t, c, 3, DBL_MAX);
    double d[] = {-DBL_MAX, -0x1p970};
    expect64(t, d, 2, -inf);
    double e[] = {DBL_MAX, 0x1p969, 0x1p968};
    expect64(t, e, 3, DBL_MAX);
    double f[] = {DBL_MAX, DBL_MAX, DBL_MAX, -DBL_MAX, -DBL_MAX, -DBL_MAX, 1.0};
    expect64(t, f, 7, 1.0);
    double g[] = {0x1p1023, 0x1p1023, -0x1p1023, 0x1p-1074};
    expect64(t, g, 4, 0x1p1023);
    for (int k = 0; k < 40; k++) {
        size_t n = 0;
        int big = rng_int(1, 6);
        for (int p = 0; p < big; p++)
            X[n++] = rng_sign(ldexp((double)((rng() >> 11) | ((uint64_t)1 << 52)), 971));
        X[n++] = rng_sign(ldexp(1.0, rng_int(960, 1023)));
        n = pad64(X, n, CAP);
        check64(t, X, n, k < 12);
    }
    family_end(t);
}

static void f64_subnormals(Tally *t)
{
    family_begin(t, "f64 subnormals and cancellation");
    double a[] = {0x1p-1074, -0x1p-1074};
    expect64(t, a, 2, 0.0);
    double b[] = {0x1p-1074, 0x1p-1074, 0x1p-1074};
    expect64(t, b, 3, 0x1p-1072 - 0x1p-1074);
    double c[] = {0x1p-1022, -0x1p-1074};
    expect64(t, c, 2, 0x1p-1022 - 0x1p-1074);
    double d[] = {1.0, 0x1p-1074, -1.0};
    expect64(t, d, 3, 0x1p-1074);
    for (int k = 0; k < 60; k++) {
        size_t n = (size_t)rng_int(1, 2000);
        for (size_t i = 0; i < n; i++)
            X[i] = rng_sign(ldexp((double)(rng() >> rng_int(11, 63)), -1074));
        if (k % 2) { /* cancel all but a few */
            for (size_t i = 0; i < n && 2 * n < CAP; i++)
                X[n + i] = -X[i];
            n *= 2;
            X[n++] = ldexp(1.0, rng_int(-1074, -1000));
        }
        shuffle64(X, n);
        check64(t, X, n, k < 12);
    }
    family_end(t);
}

static void f64_zeros(Tally *t)
{
    family_begin(t, "f64 signed zeros and no terms");
    expect64(t, X, 0, 0.0);
    for (size_t n = 1; n <= 1100; n += (n < 20 ? 1 : 97)) {
        for (size_t i = 0; i < n; i++)
            X[i] = -0.0;
        expect64(t, X, n, -0.0);
        X[rng() % n] = 0.0;
        expect64(t, X, n, 0.0);
    }
    double a[] = {-0.0, 1.0, -1.0};
    expect64(t, a, 3, 0.0);
    double b[] = {-1.5, 1.5, -0.0};
    expect64(t, b, 3, 0.0);
    family_end(t);
}

static void f64_specials(Tally *t)
{
    family_begin(t, "f64 NaN and infinity mixes");
    const double inf = HUGE_VAL, nan = cn_sum_from_bits64(0x7ff8000000000000u);
    double pay = cn_sum_from_bits64(0xfff0000000000123u); /* negative signalling payload */
    double a[] = {1.0, nan, 2.0};
    expect64(t, a, 3, nan);
    double b[] = {inf, -inf};
    expect64(t, b, 2, nan);
    double c[] = {inf, 1.0, -DBL_MAX, -DBL_MAX};
    expect64(t, c, 4, inf);
    double d[] = {-inf, DBL_MAX, DBL_MAX};
    expect64(t, d, 3, -inf);
    double e[] = {pay, inf};
    expect64(t, e, 2, nan);
    double f[] = {inf, inf, 0.0};
    expect64(t, f, 3, inf);
    for (int k = 0; k < 60; k++) {
        size_t n = (size_t)rng_int(1, 1500);
        for (size_t i = 0; i < n; i++)
            X[i] = rng_sign(ldexp((double)(rng() >> 11), rng_int(-1100, 971)));
        int kinds = rng_int(1, 7);
        double put[3] = {nan, inf, -inf};
        for (int j = 0; j < 3; j++)
            if (kinds & (1 << j))
                X[rng() % n] = j == 0 && (rng() & 1) ? pay : put[j];
        check64(t, X, n, k < 12);
    }
    family_end(t);
}

static void f64_random(Tally *t, const char *name, int lo, int hi, bool narrow, int cases)
{
    family_begin(t, name);
    int sweeps = getenv("SUM_QUICK") ? 3 : 16;
    for (int k = 0; k < cases; k++) {
        size_t n = (size_t)(k % 5 == 0 ? rng_int(0, 20) : rng_int(1, 6000));
        for (size_t i = 0; i < n; i++) {
            if (narrow)
                X[i] = 1.0 + (double)(rng() >> 11) * 0x1p-53;
            else
                X[i] = rng_sign(ldexp((double)((rng() >> 11) | ((uint64_t)1 << 52)),
                                      rng_int(lo, hi) - 52));
        }
        if (!narrow && k % 3 == 0 && 2 * n + 1 < CAP) { /* heavy cancellation */
            for (size_t i = 0; i < n; i++)
                X[n + i] = -X[i];
            n *= 2;
            X[n++] = ldexp(1.0, rng_int(lo, hi));
            shuffle64(X, n);
        }
        check64(t, X, n, k < sweeps);
    }
    family_end(t);
}

/* Many huge terms: the fast path refuses them, the digits hold them all. */
static void f64_huge_counts(Tally *t)
{
    family_begin(t, "f64 many huge terms");
    static double big[1 << 18];
    size_t n = 0;
    for (int i = 0; i < (1 << 16); i++)
        big[n++] = DBL_MAX;
    for (int i = 0; i < (1 << 16); i++)
        big[n++] = -DBL_MAX;
    big[n++] = 0x1p-1074;
    shuffle64(big, n);
    expect64(t, big, n, 0x1p-1074);
    for (size_t i = 0; i < n; i++)
        big[i] = 0x1p1022 * 1.5;
    check64(t, big, 1000, true); /* overflows to inf */
    family_end(t);
}

/* The bound the level gap rests on, at its worst: a chunk of one big term
 * 2^s and 255 terms just under (or at) half of level 1's ulp g = 2^(s-49),
 * so level 1 keeps nothing of them and level 2 receives the most the proof
 * allows (255 * g/2), all of one sign, with bits further down for levels 3
 * and 4. Chunks start at index 0 (add_array) and at each buffer fill. */
static void f64_worst_remainders(Tally *t)
{
    family_begin(t, "f64 level budgets at their worst");
    for (int k = 0; k < 24; k++) {
        int s = rng_int(-960, 960);
        double half = ldexp(1.0, s - 50);
        size_t n = 0;
        X[n++] = ldexp(1.0, s);
        double sign = (k & 1) ? -1.0 : 1.0;
        for (int i = 0; i < 255; i++) {
            double below = half - ldexp(half, -rng_int(20, 52)); /* rounds to 0 at level 1 */
            X[n++] = sign * (k % 4 < 2 ? below : half);
        }
        if (k % 3 == 0) /* and a second such chunk after it */
            for (size_t i = 0; i < 256; i++)
                X[n + i] = X[i];
        n += k % 3 == 0 ? 256 : 0;
        check64(t, X, n, k < 8);
    }
    family_end(t);
}

static void f32_worst_remainders(Tally *t)
{
    family_begin(t, "f32 level budgets at their worst");
    for (int k = 0; k < 24; k++) {
        int s = rng_int(-60, 100);
        float half = ldexpf(1.0f, s - 50);
        size_t n = 0;
        XF[n++] = ldexpf(1.0f, s);
        float sign = (k & 1) ? -1.0f : 1.0f;
        for (int i = 0; i < 255; i++) {
            float below = half - ldexpf(half, -rng_int(2, 23));
            XF[n++] = sign * (k % 4 < 2 ? below : half);
        }
        check32(t, XF, n, k < 8);
    }
    family_end(t);
}

/* A carry pass forced in the middle of a sum changes nothing. */
static void f64_carry(Tally *t)
{
    family_begin(t, "f64 carry pass mid-sum");
    for (int k = 0; k < 20; k++) {
        size_t n = (size_t)rng_int(1, 3000);
        for (size_t i = 0; i < n; i++)
            X[i] = rng_sign(ldexp((double)(rng() >> 11), rng_int(-1126, 971)));
        uint64_t want = oracle64(X, n);
        cn_sum64 s;
        cn_sum64_init(&s);
        for (size_t i = 0; i < n; i++) {
            if (i % 7 == 0)
                s.acc.pending = CN_SUM_CARRY_EVERY - 1;
            cn_sum_acc_term(&s.acc, X[i]);
        }
        uint64_t got = bits64(cn_sum64_round(&s));
        t->cases++;
        if (got != want)
            mismatch(t, "carry forced", n, want, got);
    }
    family_end(t);
}

/* -------------------------------------------------------- f32 families */

static void f32_rounding(Tally *t)
{
    family_begin(t, "f32 ties, powers of two, never through a double");
    float a[] = {1.0f, 0x1p-24f};
    expect32(t, a, 2, 1.0f);
    float b[] = {1.0f + 0x1p-23f, 0x1p-24f};
    expect32(t, b, 2, 1.0f + 0x1p-22f);
    /* As doubles 1 + 2^-24 + 2^-60 is 1 + 2^-24, a tie that goes down;
     * exactly it is above the tie. */
    float c[] = {1.0f, 0x1p-24f, 0x1p-60f};
    expect32(t, c, 3, 1.0f + 0x1p-23f);
    float d[] = {1.0f, -0x1p-25f};
    expect32(t, d, 2, 1.0f);
    float e[] = {1.0f, -0x1p-25f, -0x1p-149f};
    expect32(t, e, 3, 1.0f - 0x1p-24f);
    for (int k = 0; k < 80; k++) {
        size_t n = 0;
        int pieces = rng_int(1, 5);
        int s = rng_int(-149 + pieces, 100);
        XF[n++] = ldexpf((float)((rng() >> 41) | (1u << 23)), s);
        for (int p = 1; p < pieces; p++) /* 2^(s-1) in pieces */
            XF[n++] = ldexpf(1.0f, s - 1 - p);
        XF[n++] = ldexpf(1.0f, s - pieces);
        if (k % 3 == 1)
            XF[n++] = (float)rng_sign(0x1p-149);
        n = pad32(XF, n, CAP);
        check32(t, XF, n, k < 20);
    }
    family_end(t);
}

static void f32_largest(Tally *t)
{
    family_begin(t, "f32 largest finite value, subnormals, zeros, specials");
    const float inf = HUGE_VALF, nan = cn_sum_f32_qnan();
    float a[] = {FLT_MAX, FLT_MAX, -FLT_MAX};
    expect32(t, a, 3, FLT_MAX);
    float b[] = {FLT_MAX, 0x1p103f};
    expect32(t, b, 2, inf);
    float c[] = {FLT_MAX, 0x1p103f, -0x1p-149f};
    expect32(t, c, 3, FLT_MAX);
    float d[] = {-FLT_MAX, -0x1p103f};
    expect32(t, d, 2, -inf);
    float e[] = {0x1p-149f, -0x1p-149f};
    expect32(t, e, 2, 0.0f);
    float f[] = {0x1p-149f, 0x1p-149f, 0x1p-149f};
    expect32(t, f, 3, 0x1p-147f - 0x1p-149f);
    float g[] = {-0.0f, -0.0f, -0.0f, -0.0f, -0.0f};
    expect32(t, g, 5, -0.0f);
    float h[] = {-0.0f, 0.0f};
    expect32(t, h, 2, 0.0f);
    expect32(t, XF, 0, 0.0f);
    float i[] = {inf, -inf, 1.0f};
    expect32(t, i, 3, nan);
    float j[] = {inf, FLT_MAX, FLT_MAX};
    expect32(t, j, 3, inf);
    float k2[] = {1.0f, nan};
    expect32(t, k2, 2, nan);
    for (size_t n = 1; n <= 1100; n += (n < 20 ? 1 : 97)) {
        for (size_t q = 0; q < n; q++)
            XF[q] = -0.0f;
        expect32(t, XF, n, -0.0f);
    }
    for (int k = 0; k < 60; k++) {
        size_t n = (size_t)rng_int(1, 2000);
        for (size_t q = 0; q < n; q++)
            XF[q] = k % 2 ? (float)rng_sign(ldexp((double)(rng() >> 41), -149))
                          : (float)rng_sign(ldexp((double)(rng() >> 40), rng_int(80, 104)));
        check32(t, XF, n, k < 12);
    }
    family_end(t);
}

static void f32_random(Tally *t, const char *name, int lo, int hi, bool narrow, int cases)
{
    family_begin(t, name);
    int sweeps = getenv("SUM_QUICK") ? 3 : 16;
    for (int k = 0; k < cases; k++) {
        size_t n = (size_t)(k % 5 == 0 ? rng_int(0, 20) : rng_int(1, 6000));
        for (size_t i = 0; i < n; i++) {
            if (narrow)
                XF[i] = 1.0f + (float)(rng() >> 41) * 0x1p-23f;
            else
                XF[i] = (float)rng_sign(ldexp((double)((rng() >> 40) | (1u << 23)), rng_int(lo, hi) - 23));
        }
        if (!narrow && k % 3 == 0 && 2 * n + 1 < CAP) {
            for (size_t i = 0; i < n; i++)
                XF[n + i] = -XF[i];
            n *= 2;
            XF[n++] = ldexpf(1.0f, rng_int(lo, hi));
            shuffle32(XF, n);
        }
        check32(t, XF, n, k < sweeps);
    }
    family_end(t);
}

/* The device's f32 bins at their bound: 2^14 terms of one bin's largest
 * magnitude, one sign, in one thread between two moves to the limbs (the
 * double's sum reaches 2^53 units), then a term that tips the rounding;
 * for every bin, and with the top bin's overflow. */
static void f32_bins_bound(Tally *t)
{
    family_begin(t, "f32 the device's bins at their bound");
    enum { N = CN_DSUM32_FLUSH };
    static float x[N + 2];
    for (int b = 0; b < CN_DSUM32_BINS; b++) {
        int e = 16 * b + 15 < 254 ? 16 * b + 15 : 254;   /* the bin's largest finite exponent */
        uint32_t top = ((uint32_t)e << 23) | 0x7fffffu;
        float v;
        memcpy(&v, &top, sizeof v);
        for (int s = 0; s < 2; s++) {
            for (size_t i = 0; i < N; i++)
                x[i] = s ? -v : v;
            uint32_t tiny = 1;                            /* the least subnormal */
            memcpy(&x[N], &tiny, sizeof tiny);
            x[N + 1] = s ? v : -v;
            uint32_t want = oracle32(x, N + 2);
            t->cases++;
            check_dev32(t, x, N + 2, want);
            uint32_t got = bits32(cn_sum_f32(x, N + 2));
            if (got != want)
                mismatch(t, "add_array", N + 2, want, got);
        }
    }
    family_end(t);
}

/* The device's total past its top bin's limb: G blocks, each of the most
 * terms a block takes (2^23) of f32's largest magnitude, one sign. A
 * block's limb 15 then holds (2^24 - 1) 2^37 units of 2^90; sixteen and
 * more blocks pass 2^63 there, and the carry into limb 16 must keep the
 * total, which rounds to an infinity of the terms' sign. Also one block
 * less than overflow in bin 14's limb with bin 15's cancelled. */
static void f32_total_top(Tally *t)
{
    family_begin(t, "f32 the device's total past its top limb");
    static const int blocks[] = {1, 15, 16, 17, 1024, 65536};
    const int64_t per = ((((int64_t)1 << 24) - 1) << 14) << 23; /* 2^23 terms of FLT_MAX, in units of 2^90 */
    for (size_t k = 0; k < sizeof blocks / sizeof *blocks; k++)
        for (int s = 0; s < 2; s++) {
            int64_t total[CN_DSUM32_LIMBS] = {0};
            for (int g = 0; g < blocks[k]; g++) {
                int64_t limb[CN_DSUM32_LIMBS] = {0};
                limb[15] = s ? -per : per;
                cn_dsum32_carry(limb);
                for (int b = 0; b < CN_DSUM32_LIMBS; b++)
                    total[b] = (int64_t)((uint64_t)total[b] + (uint64_t)limb[b]); /* the device's atomics wrap */
            }
            cn_sum_acc a;
            cn_sum_acc_init(&a);
            cn_dsum32_to_acc(&a, total);
            a.flags = CN_SUM_SAW_TERM | CN_SUM_SAW_NOT_NEGZERO;
            cn_sum_acc_carry(&a);
            double r = cn_sum_acc_round(&a, 24, -149, 128);
            uint32_t want = s ? 0xff800000u : 0x7f800000u, got = bits32((float)r);
            t->cases++;
            if (got != want)
                mismatch(t, blocks[k] == 1 ? "one block" : "many blocks", (size_t)blocks[k], want, got);
        }
    family_end(t);
}

/* One case of a window's bound (f32_window_bound, f32_pair_bound): x[0]
 * of field `first` and sign s places the window, `zeros` zeros follow so
 * that it alone places it, then n - zeros - 2 terms of field `top` with
 * odd low bits but every 64th of field `lo`, sign s, then the least
 * subnormal of the other sign. Checked against the oracle by every device
 * model, and the model's exact total against the exact one (the rounded
 * total hides an error far below its last bit). */
static void f32_bound_case(Tally *t, float *x, size_t n, int first, int lo, int top, size_t zeros, int s,
                           void (*model)(const float *, size_t, cn_sum_acc *), const char *what)
{
    uint32_t b0 = (uint32_t)first << 23 | (s ? 0x80000000u : 0);
    memcpy(&x[0], &b0, sizeof b0);
    for (size_t i = 1; i + 1 < n; i++) {
        uint32_t e = i <= zeros ? 0 : i % 64 ? (uint32_t)top : (uint32_t)lo;
        uint32_t b = e ? (e << 23) | (0x7fffffu - 2 * (uint32_t)(i % 977)) | (s ? 0x80000000u : 0) : 0;
        memcpy(&x[i], &b, sizeof b);
    }
    uint32_t tiny = s ? 1u : 0x80000001u;
    memcpy(&x[n - 1], &tiny, sizeof tiny);
    uint32_t want = oracle32(x, n);
    t->cases++;
    check_dev32(t, x, n, want);
    cn_sum_acc exact, got;
    cn_sum_acc_init(&exact);
    for (size_t i = 0; i < n; i++)
        cn_sum_acc_add(&exact, (double)x[i]);
    cn_sum_acc_carry(&exact);
    model(x, n, &got);
    if (memcmp(exact.digit, got.digit, sizeof exact.digit) != 0)
        mismatch(t, what, n, want, 0xdeadu);
}

static void window_model(const float *x, size_t n, cn_sum_acc *a)
{
    devsum32w_acc(x, n, 1, 1, 1, 8, CN_DSUM32_WIN_TERMS, a);
}

/* The device's f32 window at its bound: a first term places the window
 * (its lowest field 15 below the term's, kept in [1, 220]), then more
 * terms than a window takes between two moves to the limbs, each of the
 * largest field it takes (lo + 17) with odd low bits but every 64th of
 * its lowest (lo), one sign, then the least subnormal of the other sign:
 * the double must keep its binade, or the lowest terms would round. Then
 * the same with terms one and three binades above the window, which are
 * the limbs'. For first terms across the exponent range, including those
 * whose window is clamped. */
static void f32_window_bound(Tally *t)
{
    family_begin(t, "f32 the device's window at its bound");
    enum { N = CN_DSUM32_WIN_TERMS + 2 };
    static float x[N + 2];
    static const int firsts[] = {1, 2, 15, 16, 17, 100, 127, 200, 235, 236, 237, 250, 254};
    for (size_t f = 0; f < sizeof firsts / sizeof *firsts; f++) {
        int lo = firsts[f] - CN_DSUM32_WIN_BELOW;
        lo = lo < 1 ? 1 : lo > CN_DSUM32_WIN_LO_MAX ? CN_DSUM32_WIN_LO_MAX : lo;
        for (int above = 0; above < 4; above += 1 + (above > 0))
            for (int s = 0; s < 2; s++) {
                /* 17: the exactness bound (numerics.md), written here, not taken from the header */
                int top = lo + 17 + above > 254 ? 254 : lo + 17 + above;
                f32_bound_case(t, x, N + 2, firsts[f], lo, top, 16, s, window_model,
                               "windowed device model, its exact total");
            }
    }
    family_end(t);
}

static void pair_model(const float *x, size_t n, cn_sum_acc *a)
{
    devsum32p_acc(x, n, 1, 1, 1, 16, (unsigned)n + 6, a); /* d to the bins at the end only */
}

/* The device's f32 pair at its bound (cairn_dsumstep.h, cn_dsum32_pair): as
 * above, fifteen zeros completing the first batch of 16, with as many
 * terms as a thread meets between two moves of d to the bins, at the
 * window's top (lo + 11) and bottom: d then holds its most (below
 * 2^(lo-101)) to its last bit (2^(lo-150)), 49 bits, two f32 pieces. */
static void f32_pair_bound(Tally *t)
{
    family_begin(t, "f32 the device's pair at its bound");
    enum { N = CN_DSUM32_FLUSH - 2 * 16 - 2 };
    static float x[N + 2];
    static const int firsts[] = {1, 2, 11, 12, 13, 100, 127, 200, 227, 238, 239, 240, 250, 254};
    for (size_t f = 0; f < sizeof firsts / sizeof *firsts; f++) {
        /* 11 fields above lo, lo at most 227: the bound (numerics.md), written here, not taken from the header */
        int lo = firsts[f] - 11;
        lo = lo < 1 ? 1 : lo > 227 ? 227 : lo;
        for (int above = 0; above < 4; above += 1 + (above > 0))
            for (int s = 0; s < 2; s++) {
                int top = lo + 11 + above > 254 ? 254 : lo + 11 + above;
                f32_bound_case(t, x, N + 2, firsts[f], lo, top, 15, s, pair_model,
                               "paired device model, its exact total");
            }
    }
    family_end(t);
}

/* The device's f64 window at its bound: a first term places the window
 * (E 20 binades above it), then the most terms a window takes between two
 * moves to the digits, each of the largest exponent it takes (E - 13) with
 * odd low bits, one sign, then a term below the window that tips the
 * rounding: s1 must keep its binade for all of them. Then the same with
 * terms one and three binades above the window, which are the digits'
 * (a window that took them would leave its binade). For first terms across
 * the exponent range, including those whose window is clamped. */
static void f64_window_bound(Tally *t)
{
    family_begin(t, "f64 the device's window at its bound");
    enum { N = CN_DSUM64_WIN_TERMS + 2 };
    static double x[N + 2];
    static const int firsts[] = {-1074 + 60, -1010, -1003, -200, -1, 0, 7, 300, 990, 1001};
    for (size_t f = 0; f < sizeof firsts / sizeof *firsts; f++) {
        int e0 = firsts[f], e = e0 + CN_DSUM64_WIN_ABOVE;
        e = e < -1022 + 41 ? -1022 + 41 : e > 1022 ? 1022 : e;
        for (int above = 0; above < 4; above += 1 + (above > 0))
        for (int s = 0; s < 2; s++) {
            int top = e - 13 + above > 1023 ? 1023 : e - 13 + above;
            x[0] = s ? -ldexp(1.0, e0) : ldexp(1.0, e0);
            for (size_t i = 1; i <= N; i++) {
                uint64_t b = ((uint64_t)(top + 1023) << 52) | (((uint64_t)1 << 52) - 1 - 2 * (uint64_t)(i % 977));
                double v;
                memcpy(&v, &b, sizeof v);
                x[i] = s ? -v : v;
            }
            x[N + 1] = s ? ldexp(1.0, e - 120) : -ldexp(1.0, e - 120);
            uint64_t want = oracle64(x, N + 2);
            t->cases++;
            check_dev64(t, x, N + 2, want);
        }
    }
    family_end(t);
}

/* The device's f64 digits at their bound: a first term far below places
 * the window, then three times the terms the digits take between two carries,
 * each splitting into the largest high piece (p mod 32 = 31, every
 * mantissa bit set), one sign, then a term that tips the rounding: the
 * two-piece adds must stay below 2^63 between carries. */
static void f64_digits_bound(Tally *t)
{
    family_begin(t, "f64 the device's digits at their bound");
    enum { N = 3 * CN_DSUM64_WIN_TERMS };
    static double x[N + 2];
    static const int digits[] = {1, 20, 33, 60};
    for (size_t k = 0; k < sizeof digits / sizeof *digits; k++)
        for (int s = 0; s < 2; s++) {
            int ef = 32 * digits[k] + 31 + 1; /* p = ef - 1 */
            x[0] = s ? -0x1p-1000 : 0x1p-1000;
            for (size_t i = 1; i <= N; i++) { /* zeros first, so that x[0] places the window */
                uint64_t b = ((uint64_t)ef << 52) | (((uint64_t)1 << 52) - 1) | (s ? (uint64_t)1 << 63 : 0);
                if (i <= 16)
                    b = 0;
                memcpy(&x[i], &b, sizeof b);
            }
            x[N + 1] = s ? 0x1p-1070 : -0x1p-1070;
            uint64_t want = oracle64(x, N + 2);
            t->cases++;
            check_dev64(t, x, N + 2, want);
        }
    family_end(t);
}

/* A batch the window takes whole (cn_dsum64_win_all, cn_dsum64_win_adds),
 * and one with no infinity or NaN to the window and the digits at once
 * (cn_dsum64_win_finite, cn_dsum64_win_mixed), against the same terms
 * one by one (cn_dsum64_win_take, cn_dsum64_win_miss, the digits), on
 * windows across the range and terms at and just past both edges of the
 * window's fields, with zeros, subnormals, infinities and NaNs among them:
 * whole exactly when every term is taken, and then to the same bits;
 * mixed to the same window and digits. */
static void f64_window_batch(Tally *t)
{
    family_begin(t, "f64 the device's whole batches against term by term");
    static const int tops[] = {1, 2, 30, 500, 1023, 1500, 2000, 2046};
    size_t whole = 0, parts = 0, mixed = 0;
    for (int c = 0; c < 20000; c++) {
        cn_dsum64_win a, b;
        cn_dsum64_win_init(&a);
        if (c % 97)
            cn_dsum64_win_at(&a, tops[c % 8]);
        if (a.lo != CN_DSUM64_NO_WIN) /* s1 somewhere in [2^E, 2^(E+1)), E = lo - 1023 + 41 */
            a.s1 += (c & 1 ? -1 : 1) * ldexp((double)(rng() >> 13), (int)a.lo - 1023 + 41 - 53);
        b = a;
        unsigned u = 1 + (unsigned)(rng() % 32);   /* the device's batches hold 32 (CN_DSUM64_U) */
        double y[32];
        int takes = 1;
        for (unsigned i = 0; i < u; i++) {
            int k = rng_int(0, 99);
            int ef = k < 90 ? rng_int((int)a.lo, (int)a.lo + CN_DSUM64_WIN_FIELDS)
                   : k < 93 ? (int)a.lo - 1 : k < 96 ? (int)a.lo + CN_DSUM64_WIN_FIELDS + 1 : k < 98 ? 0 : 0x7ff;
            ef = ef < 0 ? 0 : ef > 0x7ff ? 0x7ff : ef;
            uint64_t m = k == 98 ? 0 : rng() & (((uint64_t)1 << 52) - 1);
            uint64_t bits = ((uint64_t)(rng() & 1) << 63) | ((uint64_t)ef << 52) | m;
            memcpy(&y[i], &bits, sizeof bits);
        }
        for (unsigned i = 0; i < u; i++)
            takes &= ((((unsigned)(bits64(y[i]) >> 52) & 0x7ffu) - b.lo) <= (unsigned)CN_DSUM64_WIN_FIELDS);
        int all = cn_dsum64_win_all(&a, y, u);
        int ok = all == takes;
        if (all) {
            cn_dsum64_win_adds(&a, y, u);
            for (unsigned i = 0; i < u; i++)
                ok &= cn_dsum64_win_take(&b, bits64(y[i]));
            ok &= bits64(a.s1) == bits64(b.s1) && bits64(a.s2) == bits64(b.s2) && a.lo == b.lo;
            whole++;
        } else {
            parts++;
        }
        int finite = b.lo != CN_DSUM64_NO_WIN;
        for (unsigned i = 0; i < u; i++)
            finite &= ((bits64(y[i]) >> 52) & 0x7ff) != 0x7ff;
        ok &= cn_dsum64_win_finite(&a, y, u) == finite;
        if (finite && !all) {   /* to the window and the digits at once, and term by term */
            int64_t da[CN_SUM_DIGITS] = {0}, db[CN_SUM_DIGITS] = {0};
            uint32_t fl = CN_SUM_SAW_NOT_NEGZERO, fb = CN_SUM_SAW_NOT_NEGZERO;
            cn_dsum64_win_mixed(&a, y, u, da, 1);
            for (unsigned i = 0; i < u; i++)
                if (!cn_dsum64_win_take(&b, bits64(y[i])) && !cn_dsum64_win_miss(&b, bits64(y[i]), &fb))
                    cn_dsum64_put(db, 1, y[i], &fb);
            ok &= bits64(a.s1) == bits64(b.s1) && bits64(a.s2) == bits64(b.s2) && fl == fb &&
                  memcmp(da, db, sizeof da) == 0;
            mixed++;
        }
        t->cases++;
        if (!ok) {
            mismatch(t, "a whole batch and the same terms one by one", u, bits64(b.s1), bits64(a.s1));
            break;
        }
    }
    if (whole < 1000 || parts < 1000 || mixed < 1000)
        mismatch(t, "the batches cover every way (whole, in parts, mixed)", whole, mixed, parts);
    family_end(t);
}

/* The device's 16-byte stream (cairn_dsumstep.h, CN_DSUM_STREAM_VEC),
 * expanded here on the host with recording steps: for every alignment of
 * the view's data, parts [lo, hi) at every offset and length up to 300,
 * and blocks of 1 to 33 threads, every index of the part is read exactly
 * once, every vector is read at a multiple of 16 bytes, FIRST sees a
 * thread's first batch only, and with at least W
 * threads (the device has 64 or 256) a thread puts at most U - W + 2
 * terms after its last EVERY. The terms are their own indices. */
typedef struct { float v[4]; } vt_f4;
typedef struct { double v[2]; } vt_d2;
struct vt_args { const void *p; };
static void vt_base32(const struct vt_args *a, const float **p) { *p = (const float *)a->p; }
static void vt_base64(const struct vt_args *a, const double **p) { *p = (const double *)a->p; }
static void vt_term32(const struct vt_args *a, size_t j, float *r) { *r = ((const float *)a->p)[j]; }
static void vt_term64(const struct vt_args *a, size_t j, double *r) { *r = ((const double *)a->p)[j]; }
static size_t vt_misaligned; /* vectors read from an address not a multiple of 16 (a fault on the device) */
#define VT_VLOAD(Q_, Y_) (vt_misaligned += ((uintptr_t)(Q_) & 15) != 0, memcpy((Y_), (Q_), 16))
#define VT_SEE(v) (seen[(size_t)(v)]++, since++)
#define VT_BATCH(y) do { for (unsigned i = 0; i < U; i++) seen[(size_t)(y)[i]]++; batches++; } while (0)
#define VT_EVERY (since = 0)
#define VT_FIRST(y) (firsts++)

#define VT_CHECK(T_, VT_, W, U_, BASE, TERM, NAME)                                                     \
    static int NAME(const T_ *p, size_t lo, size_t hi, unsigned T, unsigned char *seen, size_t *most)  \
    {                                                                                                  \
        enum { U = U_ };                                                                               \
        struct vt_args a = {p};                                                                        \
        for (unsigned t = 0; t < T; t++) {                                                             \
            size_t since = 0, batches = 0, firsts = 0;                                                 \
            CN_DSUM_STREAM_VEC(T_, VT_, W, BASE, VT_VLOAD, TERM, VT_BATCH, VT_SEE, VT_EVERY, VT_FIRST) \
            if (T >= W && since > *most)                                                               \
                *most = since;                                                                         \
            if (firsts > 1 || (batches && !firsts))                                                    \
                return 0;                                                                              \
        }                                                                                              \
        for (size_t j = 0; j < 400; j++)                                                               \
            if (seen[j] != (j >= lo && j < hi))                                                        \
                return 0;                                                                              \
        return 1;                                                                                      \
    }
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunknown-pragmas" /* the stream's unroll hints are nvcc's */
VT_CHECK(float, vt_f4, 4, 8, vt_base32, vt_term32, vt_stream32)
VT_CHECK(double, vt_d2, 2, 16, vt_base64, vt_term64, vt_stream64)
#pragma GCC diagnostic pop

static void device_vec_stream(Tally *t)
{
    family_begin(t, "the device's 16-byte stream reads every index of a part once");
    static _Alignas(16) float f[420];
    static _Alignas(16) double d[420];
    static unsigned char seen[400];
    static const unsigned threads[] = {1, 2, 3, 4, 5, 8, 32, 33};
    size_t most32 = 0, most64 = 0;
    for (size_t off = 0; off < 4; off++) {
        for (size_t i = 0; i + off < 420; i++)
            f[off + i] = (float)i, d[off + i] = (double)i;
        for (size_t lo = 0; lo < 24; lo++)
            for (size_t hi = lo; hi <= lo + 300; hi += 1 + (hi > lo + 40) * 7)
                for (size_t k = 0; k < sizeof threads / sizeof *threads; k++) {
                    t->cases++;
                    memset(seen, 0, sizeof seen);
                    if (!vt_stream32(f + off, lo, hi, threads[k], seen, &most32))
                        mismatch(t, "f32 (W 4, U 8): an index read other than once", hi - lo, lo, off);
                    memset(seen, 0, sizeof seen);
                    if (off < 2 && !vt_stream64(d + off, lo, hi, threads[k], seen, &most64))
                        mismatch(t, "f64 (W 2, U 16): an index read other than once", hi - lo, lo, off);
                }
    }
    if (most32 > 8 - 4 + 2 || most64 > 16 - 2 + 2)
        mismatch(t, "terms put after the last EVERY", 0, most32, most64);
    if (vt_misaligned)
        mismatch(t, "vectors read at an address not a multiple of 16", vt_misaligned, 0, vt_misaligned);
    family_end(t);
}

int main(void)
{
    Tally t = {0};
    f32_window_bound(&t);
    f32_pair_bound(&t);
    f64_window_bound(&t);
    f64_window_batch(&t);
    device_vec_stream(&t);
    f64_digits_bound(&t);
    f64_ties(&t);
    f64_powers_of_two(&t);
    f64_largest(&t);
    f64_subnormals(&t);
    f64_zeros(&t);
    f64_specials(&t);
    f64_random(&t, "f64 random narrow [1,2)", 0, 0, true, 200);
    f64_random(&t, "f64 random 2^-60..2^60", -60, 60, false, 200);
    f64_random(&t, "f64 random 2^-1074..2^1023", -1080, 1023, false, 200);
    f64_worst_remainders(&t);
    f64_huge_counts(&t);
    f64_carry(&t);
    f32_rounding(&t);
    f32_largest(&t);
    f32_worst_remainders(&t);
    f32_random(&t, "f32 random narrow [1,2)", 0, 0, true, 200);
    f32_random(&t, "f32 random 2^-60..2^60", -60, 60, false, 200);
    f32_random(&t, "f32 random 2^-149..2^127", -152, 127, false, 200);
    f32_bins_bound(&t);
    f32_total_top(&t);
    family_begin(&t, "f64 the device model took whole and mixed batches");
    t.cases++;
    if (dev64_whole == 0 || dev64_mixed == 0)
        mismatch(&t, "whole and mixed batches in the f64 device model", dev64_whole, 1, dev64_mixed);
    family_end(&t);
    printf("%ld passed, %ld failed, 0 skipped\n", t.passed, t.failed);
    return t.failed ? 1 : 0;
}
