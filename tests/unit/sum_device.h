/*
 * sum_device.h: the device's exact sum (runtime/cairn_devsum.h) modelled
 * on the host, pass by pass, with the steps it runs (cairn_dsumstep.h),
 * and check_dev32 / check_dev64, which hold every model to the oracle's
 * bits. Part of tests/unit/test_sum.c, split off by concern: it is
 * included there after the utilities (rng, bits32, bits64) and the
 * tally (Tally, mismatch), which it uses, and is not a header of its own.
 */
#ifndef TEST_SUM_DEVICE_H
#define TEST_SUM_DEVICE_H

#include <stdarg.h>

/* The CUDA machine's pass (runtime/cairn_devsum.h) step by step, with
 * the steps it runs (cairn_dsumstep.h): P
 * parts folded by G blocks of T threads; thread t of a block takes lo + t,
 * lo + t + T, ... of each part its block folds. The device gives each
 * block one part (G = P, the shapes with equal counts below); the shapes
 * with fewer blocks give a block several parts in an order the model
 * draws, its threads keeping their state across them, which asks more of
 * the steps than the device does (a thread's bins or window meet terms of
 * several parts) and keeps the model honest should blocks take parts
 * again (claiming was measured slower on the H200,
 * evidence/2026-12-05-exact-sum.md). An f32 thread moves its bins to its block's limbs
 * every FLUSH terms (the device's 2^14, or fewer, to run that path often);
 * an f64 thread keeps its digits a column apart. The blocks' limbs or
 * digits are added as integers and rounded as the device's last block
 * does. */
enum { DEV_MAX_T = 8, DEV_MAX_G = 8 };

/* The block that folds the next part. */
static size_t dev_claimer(uint64_t *s, size_t G)
{
    *s = *s * 6364136223846793005u + 1442695040888963407u;
    return (size_t)((*s >> 33) % G);
}

/* Every block's bins back to -0.0, as a fold block starts them. */
static void dev32_clear(double (*bins)[CN_DSUM32_BINS * DEV_MAX_T], size_t G)
{
    for (size_t g = 0; g < G; g++)
        for (int b = 0; b < CN_DSUM32_BINS * DEV_MAX_T; b++)
            bins[g][b] = -0.0;
}

/* A thread's bins (a stride of T) into its block's limbs, as
 * CN_DSUM32_SPILL does. */
static void dev32_move(double *bt, size_t T, int64_t *limb, uint32_t *flags)
{
    for (int b = 0; b < CN_DSUM32_BINS; b++)
        limb[b] += cn_dsum32_take(bt, T, b, flags);
}

/* The blocks' limbs carried, added into one total and put in a with the
 * flags, as the device's blocks and its last block do. */
static void dev32_total(int64_t (*limb)[CN_DSUM32_LIMBS], size_t G, uint32_t flags, cn_sum_acc *a)
{
    int64_t total[CN_DSUM32_LIMBS] = {0};
    for (size_t g = 0; g < G; g++) {
        cn_dsum32_carry(limb[g]);
        for (int b = 0; b < CN_DSUM32_LIMBS; b++)
            total[b] += limb[g][b];
    }
    cn_sum_acc_init(a);
    cn_dsum32_to_acc(a, total);
    a->flags = flags;
    cn_sum_acc_carry(a);
}

/* Every thread's bins into its block's limbs (the fold's end), then the total. */
static void dev32_bins_total(double (*bins)[CN_DSUM32_BINS * DEV_MAX_T], int64_t (*limb)[CN_DSUM32_LIMBS], size_t G,
                             size_t T, uint32_t flags, cn_sum_acc *a)
{
    for (size_t g = 0; g < G; g++)
        for (size_t t = 0; t < T; t++)
            dev32_move(bins[g] + t, T, limb[g], &flags);
    dev32_total(limb, G, flags, a);
}

/* The total rounded to f32 as the device's last block rounds it. */
static uint32_t dev32_round(cn_sum_acc *a)
{
    double r = cn_sum_acc_round(a, 24, -149, 128);
    return r != r ? 0x7fc00000u : bits32((float)r);
}

/* f32: each thread adds its terms into its bins and moves them to its
 * block's limbs every `flush` terms, and at the end. With u > 0, as the
 * fold with CN_DSUM32_SAME does: a thread's terms u at a time while it has
 * u left (cn_dsum32_batch), its bins moved when the terms since the last
 * move pass flush - 2u, and the last few one at a time. */
static uint32_t devsum32u(const float *x, size_t n, size_t P, size_t G, size_t T, unsigned flush, unsigned u);

static uint32_t devsum32(const float *x, size_t n, size_t P, size_t G, size_t T, unsigned flush)
{
    return devsum32u(x, n, P, G, T, flush, 0);
}

static uint32_t devsum32u(const float *x, size_t n, size_t P, size_t G, size_t T, unsigned flush, unsigned u)
{
    static double bins[DEV_MAX_G][CN_DSUM32_BINS * DEV_MAX_T];
    int64_t limb[DEV_MAX_G][CN_DSUM32_LIMBS] = {{0}};
    unsigned cnt[DEV_MAX_G][DEV_MAX_T] = {{0}};
    uint32_t flags = 0;
    uint64_t seed = n * 31 + P * 7 + G;
    dev32_clear(bins, G);
    for (size_t p = 0; p < P; p++) {
        size_t lo = n * p / P, hi = n * (p + 1) / P, g = dev_claimer(&seed, G);
        for (size_t t = 0; t < T; t++) {
            if (lo + t < hi)
                flags |= CN_SUM_SAW_TERM;
            size_t j = lo + t;
            cn_dsum32_hot h; /* the thread's hot bin (CN_DSUM32_HOT), moved in before its bins move */
            cn_dsum32_hot_init(&h);
            for (; u && j < hi && hi - j > (size_t)(u - 1) * T; j += (size_t)u * T) {
                float y[CN_DSUM32_BATCH_MAX];
                for (unsigned i = 0; i < u; i++)
                    y[i] = x[j + i * T];
                cn_dsum32_batch(bins[g] + t, T, y, u, &h);
                if ((cnt[g][t] += u) + 2 * u > flush) {
                    cn_dsum32_hot_spill(&h, bins[g] + t, T);
                    dev32_move(bins[g] + t, T, limb[g], &flags);
                    cnt[g][t] = 0;
                }
            }
            for (; j < hi; j += T) {
                cn_dsum32_put(bins[g] + t, T, x[j]);
                if (++cnt[g][t] == flush) {
                    cn_dsum32_hot_spill(&h, bins[g] + t, T);
                    dev32_move(bins[g] + t, T, limb[g], &flags);
                    cnt[g][t] = 0;
                }
            }
            cn_dsum32_hot_spill(&h, bins[g] + t, T);
        }
    }
    cn_sum_acc a;
    dev32_bins_total(bins, limb, G, T, flags, &a);
    return dev32_round(&a);
}

/* f32 with the window, as cairn_devsum.h's windowed fold does it: a
 * thread with at least u terms in a part places its window from its first
 * u (cn_dsum32_win_place), adds them u at a time (cn_dsum32_win_batch),
 * moves its window into its limbs when the terms it met since the last
 * move pass `spill` - u, and adds its last terms one at a time; its limbs
 * are added into its block's, carried, and into the total. The window
 * starts afresh with each part, as a device block's threads start. */
static void devsum32w_acc(const float *x, size_t n, size_t P, size_t G, size_t T, size_t u, unsigned spill,
                          cn_sum_acc *a)
{
    static int64_t lb[DEV_MAX_G][DEV_MAX_T][CN_DSUM32_LIMBS];
    int64_t limb[DEV_MAX_G][CN_DSUM32_LIMBS] = {{0}};
    uint32_t flags = 0;
    uint64_t seed = n * 37 + P * 11 + G;
    memset(lb, 0, sizeof lb);
    for (size_t p = 0; p < P; p++) {
        size_t lo = n * p / P, hi = n * (p + 1) / P, g = dev_claimer(&seed, G);
        for (size_t t = 0; t < T; t++) {
            cn_dsum32_win w;
            cn_dsum32_win_init(&w);
            unsigned cnt = 0;
            size_t j = lo + t;
            if (j < hi)
                flags |= CN_SUM_SAW_TERM;
            if (j < hi && hi - j > (u - 1) * T) {
                float y[CN_DSUM32_BATCH_MAX];
                for (size_t k = 0; k < u; k++)
                    y[k] = x[j + k * T];
                cn_dsum32_win_place(&w, y, (int)u, &flags);
            }
            for (; j < hi && hi - j > (u - 1) * T; j += u * T) {
                float y[CN_DSUM32_BATCH_MAX];
                for (size_t k = 0; k < u; k++)
                    y[k] = x[j + k * T];
                cn_dsum32_win_batch(&w, y, (int)u, &flags, lb[g][t], 1);
                if ((cnt += (unsigned)u) > spill - u) {
                    cn_dsum32_win_flush(&w, lb[g][t], 1);
                    cnt = 0;
                }
            }
            for (; j < hi; j += T)
                cn_dsum32_win_batch(&w, &x[j], 1, &flags, lb[g][t], 1);
            cn_dsum32_win_flush(&w, lb[g][t], 1);
        }
    }
    for (size_t g = 0; g < G; g++)
        for (size_t t = 0; t < T; t++)
            for (int b = 0; b < CN_DSUM32_LIMBS; b++)
                limb[g][b] += lb[g][t][b];
    dev32_total(limb, G, flags, a);
}

/* f32 with the pair in front of the bins, as cairn_devsum.h's
 * CN_DSUM32_WINDOW=2 fold does it: a thread with at least u terms in a
 * part places its pair from its first u (cn_dsum32_pair_place), adds them
 * u at a time (cn_dsum32_pair_batch: the window's terms in the pair, the
 * others to its bins), its last terms one at a time, and its pair's d to
 * its bins at the end of the part (cn_dsum32_pair_spill); every `every`
 * terms (the device's 2^14 - 2u - 2, or fewer), d to the bins and the
 * bins to its block's limbs. The pair starts afresh with each part, the
 * bins and their count carry over, as in devsum32. */
static void devsum32p_acc(const float *x, size_t n, size_t P, size_t G, size_t T, size_t u, unsigned every,
                          cn_sum_acc *a)
{
    static double bins[DEV_MAX_G][CN_DSUM32_BINS * DEV_MAX_T];
    int64_t limb[DEV_MAX_G][CN_DSUM32_LIMBS] = {{0}};
    unsigned cnt[DEV_MAX_G][DEV_MAX_T] = {{0}};
    uint32_t flags = 0;
    uint64_t seed = n * 41 + P * 13 + G;
    dev32_clear(bins, G);
    for (size_t p = 0; p < P; p++) {
        size_t lo = n * p / P, hi = n * (p + 1) / P, g = dev_claimer(&seed, G);
        for (size_t t = 0; t < T; t++) {
            double *bt = bins[g] + t;
            cn_dsum32_pair w;
            cn_dsum32_pair_init(&w);
            size_t j = lo + t;
            if (j < hi)
                flags |= CN_SUM_SAW_TERM;
            float y[CN_DSUM32_PAIR_TERMS];
            if (j < hi && hi - j > (u - 1) * T) {
                for (size_t k = 0; k < u; k++)
                    y[k] = x[j + k * T];
                cn_dsum32_pair_place(&w, y, (int)u, &flags);
            }
            for (; j < hi && hi - j > (u - 1) * T; j += u * T) {
                for (size_t k = 0; k < u; k++)
                    y[k] = x[j + k * T];
                cn_dsum32_pair_batch(&w, y, (int)u, bt, T);
                if ((cnt[g][t] += (unsigned)u) >= every) {
                    cn_dsum32_pair_spill(&w, bt, T);
                    dev32_move(bt, T, limb[g], &flags);
                    cnt[g][t] = 0;
                }
            }
            for (; j < hi; j += T)
                cn_dsum32_pair_batch(&w, &x[j], 1, bt, T);
            cn_dsum32_pair_spill(&w, bt, T);
        }
    }
    dev32_bins_total(bins, limb, G, T, flags, a);
}

static uint32_t devsum32p(const float *x, size_t n, size_t P, size_t G, size_t T, size_t u, unsigned every)
{
    cn_sum_acc a;
    devsum32p_acc(x, n, P, G, T, u, every, &a);
    return dev32_round(&a);
}

static uint32_t devsum32w(const float *x, size_t n, size_t P, size_t G, size_t T, size_t u, unsigned spill)
{
    cn_sum_acc a;
    devsum32w_acc(x, n, P, G, T, u, spill, &a);
    return dev32_round(&a);
}

/* Batches of the f64 model the window took whole, and batches that went
 * to the window and the digits at once (the branch-free paths ran; main
 * checks that they did); the model's way, as CN_DSUM64_WHOLE (1 or 2). */
static size_t dev64_whole, dev64_mixed;
static int dev64_way = 1;

/* f64: a thread with at least `grp` terms in a part it meets before its
 * window is placed places it from those first grp (cn_dsum64_win_place);
 * a batch of grp terms the window takes whole goes in at once
 * (cn_dsum64_win_all, cn_dsum64_win_adds), as on the device, and in way 2
 * one with no infinity or NaN too (cn_dsum64_win_mixed); any other
 * term goes to the window (cn_dsum64_win_take, then
 * cn_dsum64_win_miss) or the thread's digits; a window moves into the
 * digits every `spill` terms the thread met, and at the end; a thread's
 * digits are carried at each of those moves, as the device's are
 * (cn_dsum64_carry after cn_dsum64_win_flush). */
static uint64_t devsum64(const double *x, size_t n, size_t P, size_t G, size_t T, size_t grp, uint32_t spill)
{
    static cn_sum_acc total;
    static int64_t d[DEV_MAX_G][DEV_MAX_T][CN_SUM_DIGITS];
    static cn_dsum64_win w[DEV_MAX_G][DEV_MAX_T];
    uint32_t cnt[DEV_MAX_G][DEV_MAX_T] = {{0}};
    uint64_t seed = n * 17 + P * 5 + G;
    cn_sum_acc_init(&total);
    memset(d, 0, sizeof d);
    for (size_t g = 0; g < G; g++)
        for (size_t t = 0; t < T; t++)
            cn_dsum64_win_init(&w[g][t]);
    for (size_t p = 0; p < P; p++) {
        size_t lo = n * p / P, hi = n * (p + 1) / P, g = dev_claimer(&seed, G);
        for (size_t t = 0; t < T; t++) {
            if (lo + t < hi)
                total.flags |= CN_SUM_SAW_TERM;
            if (lo + t < hi && hi - (lo + t) > (grp - 1) * T) {
                double first[64];
                for (size_t u = 0; u < grp; u++)
                    first[u] = x[lo + t + u * T];
                cn_dsum64_win_place(&w[g][t], first, (int)grp, &total.flags);
            }
            for (size_t j = lo + t; j < hi; j += T) {
                double y[64];   /* a batch of grp the window takes whole, where no move splits it */
                size_t k = 0;
                if (grp > 1 && cnt[g][t] + grp < spill)
                    for (; k < grp && j + k * T < hi; k++)
                        y[k] = x[j + k * T];
                if (k == grp && cn_dsum64_win_all(&w[g][t], y, (unsigned)k)) {
                    cn_dsum64_win_adds(&w[g][t], y, (unsigned)k);
                    cnt[g][t] += (uint32_t)k;
                    j += (k - 1) * T;
                    dev64_whole++;
                    continue;
                }
                if (k == grp && dev64_way == 2 && cn_dsum64_win_finite(&w[g][t], y, (unsigned)k)) {
                    cn_dsum64_win_mixed(&w[g][t], y, (unsigned)k, d[g][t], 1);
                    cnt[g][t] += (uint32_t)k;
                    j += (k - 1) * T;
                    dev64_mixed++;
                    continue;
                }
                uint64_t b = bits64(x[j]);
                if (!cn_dsum64_win_take(&w[g][t], b) && !cn_dsum64_win_miss(&w[g][t], b, &total.flags))
                    cn_dsum64_put(d[g][t], 1, x[j], &total.flags);
                if (++cnt[g][t] >= spill) { /* the device carries its two-piece digits here too */
                    cn_dsum64_win_flush(&w[g][t], d[g][t], 1);
                    cn_dsum64_carry(d[g][t], 1);
                    cnt[g][t] = 0;
                }
            }
        }
    }
    for (size_t g = 0; g < G; g++)
        for (size_t t = 0; t < T; t++) {
            cn_dsum64_win_flush(&w[g][t], d[g][t], 1);
            cn_dsum64_carry(d[g][t], 1);
            for (int i = 0; i < CN_SUM_DIGITS; i++)
                total.digit[i] += d[g][t][i];
        }
    cn_sum_acc_carry(&total);
    return bits64(cn_sum_acc_round(&total, 53, -1074, 1024));
}

/* A model's bits against the oracle's; how (a printf format) says which
 * model and shape, written only on a mismatch. */
static void dev_expect(Tally *t, size_t n, uint64_t want, uint64_t got, const char *how, ...)
    __attribute__((format(printf, 5, 6)));
static void dev_expect(Tally *t, size_t n, uint64_t want, uint64_t got, const char *how, ...)
{
    if (got == want)
        return;
    char text[256];
    va_list ap;
    va_start(ap, how);
    vsnprintf(text, sizeof text, how, ap);
    va_end(ap);
    mismatch(t, text, n, want, got);
}

/* The device's ways: one part of one thread, a part a block, and several
 * parts taken by fewer blocks. */
static void check_dev64(Tally *t, const double *x, size_t n, uint64_t want)
{
    /* (batches of 32: the device's CN_DSUM64_U) */
    static const size_t shapes[][5] = {{1, 1, 1, 16, CN_DSUM64_WIN_TERMS}, {1, 1, 8, 4, 3}, {3, 3, 5, 1, CN_DSUM64_WIN_TERMS},
                                       {7, 2, 2, 2, 1},  {2, 1, 8, 16, 5}, {9, 4, 3, 2, 7},
                                       {1, 1, 1, 32, CN_DSUM64_WIN_TERMS}, {3, 2, 4, 32, 40}};
    for (dev64_way = 1; dev64_way <= 2; dev64_way++)
        for (size_t k = 0; k < sizeof shapes / sizeof *shapes; k++) {
            dev_expect(t, n, want,
                       devsum64(x, n, shapes[k][0], shapes[k][1], shapes[k][2], shapes[k][3], (uint32_t)shapes[k][4]),
                       "device model (way %d), %zu parts over %zu blocks of %zu threads placing from %zu terms, "
                       "windows moved every %zu terms",
                       dev64_way, shapes[k][0], shapes[k][1], shapes[k][2], shapes[k][3], shapes[k][4]);
        }
}

static void check_dev32(Tally *t, const float *x, size_t n, uint32_t want)
{
    static const size_t shapes[][4] = {
        {1, 1, 1, CN_DSUM32_FLUSH}, {1, 1, 8, 3}, {3, 3, 5, CN_DSUM32_FLUSH}, {7, 2, 2, 1}, {9, 4, 3, 5}};
    for (size_t k = 0; k < sizeof shapes / sizeof *shapes; k++) {
        dev_expect(t, n, want, devsum32(x, n, shapes[k][0], shapes[k][1], shapes[k][2], (unsigned)shapes[k][3]),
                   "device model, %zu parts over %zu blocks of %zu threads, bins moved every %zu terms", shapes[k][0],
                   shapes[k][1], shapes[k][2], shapes[k][3]);
    }
    static const size_t sshapes[][5] = {{1, 1, 1, CN_DSUM32_FLUSH, 8}, {1, 1, 8, 40, 8}, {3, 3, 5, CN_DSUM32_FLUSH, 16},
                                        {7, 2, 2, 3, 2}, {9, 4, 3, 5, 3}, {2, 1, 1, CN_DSUM32_FLUSH, 16},
                                        {2, 1, 3, CN_DSUM32_FLUSH, 32}};
    for (size_t k = 0; k < sizeof sshapes / sizeof *sshapes; k++) {
        dev_expect(t, n, want,
                   devsum32u(x, n, sshapes[k][0], sshapes[k][1], sshapes[k][2], (unsigned)sshapes[k][3],
                             (unsigned)sshapes[k][4]),
                   "device model, %zu parts over %zu blocks of %zu threads, batches of %zu into one bin where they "
                   "share it, bins moved every %zu terms",
                   sshapes[k][0], sshapes[k][1], sshapes[k][2], sshapes[k][4], sshapes[k][3]);
    }
    static const size_t pshapes[][5] = {{1, 1, 1, 8, CN_DSUM32_FLUSH - 2 * 8 - 2}, {1, 1, 8, 4, 1}, {3, 3, 5, 1, 600},
                                        {7, 2, 2, 2, 3}, {2, 1, 8, 16, 40}, {9, 4, 3, 2, 7}, {1, 1, 2, 16, CN_DSUM32_FLUSH - 34}};
    for (size_t k = 0; k < sizeof pshapes / sizeof *pshapes; k++) {
        dev_expect(t, n, want,
                   devsum32p(x, n, pshapes[k][0], pshapes[k][1], pshapes[k][2], pshapes[k][3], (unsigned)pshapes[k][4]),
                   "paired device model, %zu parts over %zu blocks of %zu threads, batches of %zu, d to the bins "
                   "every %zu terms",
                   pshapes[k][0], pshapes[k][1], pshapes[k][2], pshapes[k][3], pshapes[k][4]);
    }
    static const size_t wshapes[][5] = {{1, 1, 1, 8, CN_DSUM32_WIN_TERMS}, {1, 1, 8, 4, 9}, {3, 3, 5, 1, CN_DSUM32_WIN_TERMS},
                                        {7, 2, 2, 2, 3},  {2, 1, 8, 16, 40}, {9, 4, 3, 2, 7}};
    for (size_t k = 0; k < sizeof wshapes / sizeof *wshapes; k++) {
        dev_expect(t, n, want,
                   devsum32w(x, n, wshapes[k][0], wshapes[k][1], wshapes[k][2], wshapes[k][3], (unsigned)wshapes[k][4]),
                   "windowed device model, %zu parts over %zu blocks of %zu threads, batches of %zu, windows moved "
                   "every %zu terms",
                   wshapes[k][0], wshapes[k][1], wshapes[k][2], wshapes[k][3], wshapes[k][4]);
    }
}

#endif /* TEST_SUM_DEVICE_H */
