/*
 * grad_bench.c: f against f_grad (issue 19, "Cost"): bench/grad/grad_kernels.cairn's loss, a pooled
 * sum over n terms, and loss_grad, which runs it and then its backward region, on the host pool, at
 * n = 2^20 and 2^24 (or the sizes given). Median of REPS calls each after two to warm up
 * (clock_gettime, CLOCK_MONOTONIC). Checks loss_grad's d_w against the formula 2 (w x - y) x before
 * timing. Prints `n  f_ms  f_grad_ms  ratio` a size.
 *
 *   cc -O2 -I OUT -o grad_bench bench/grad/grad_bench.c OUT/libgrad_kernels.a -lm -lpthread
 */
#include "grad_kernels.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    int reps = 9;
    size_t sizes[8] = {(size_t)1 << 20, (size_t)1 << 24};
    int ns = 2;
    if (argc > 1) {
        ns = 0;
        for (int i = 1; i < argc && ns < 8; i++)
            sizes[ns++] = (size_t)1 << atoi(argv[i]);
    }
    int status = 0;
    for (int s = 0; s < ns; s++) {
        size_t n = sizes[s];
        double *w = malloc(n * 8), *x = malloc(n * 8), *y = malloc(n * 8), *dw = malloc(n * 8);
        if (!w || !x || !y || !dw)
            return 2;
        unsigned long long r = 88172645463325252ull;
        for (size_t i = 0; i < n; i++) {
            r ^= r << 13, r ^= r >> 7, r ^= r << 17;
            w[i] = (double)(r % 2001) / 1000.0 - 1.0;
            x[i] = (double)(r >> 20 & 1023) / 512.0 - 1.0;
            y[i] = (double)(r >> 40 & 255) / 128.0 - 1.0;
        }
        memset(dw, 0, n * 8);
        double fv = cf_loss(n, w, x, y), gv = cf_loss_grad(n, w, x, y, 1.0, dw);
        size_t bad = fv != gv;
        for (size_t i = 0; i < n; i++) {
            double want = 2.0 * (w[i] * x[i] - y[i]) * x[i];
            bad += fabs(dw[i] - want) > 1e-12 * (fabs(want) + 1.0);
        }
        if (bad) {
            printf("grad_bench: n %zu: %zu wrong\n", n, bad);
            status = 1;
        }
        double tf[64], tg[64];
        for (int k = 0; k < reps + 2; k++) {
            double t0 = now();
            volatile double v = cf_loss(n, w, x, y);
            double t1 = now();
            v = cf_loss_grad(n, w, x, y, 1.0, dw);
            double t2 = now();
            (void)v;
            if (k >= 2) {
                tf[k - 2] = t1 - t0;
                tg[k - 2] = t2 - t1;
            }
        }
        qsort(tf, reps, sizeof *tf, cmp);
        qsort(tg, reps, sizeof *tg, cmp);
        printf("%zu %.3f %.3f %.2f\n", n, tf[reps / 2], tg[reps / 2], tg[reps / 2] / tf[reps / 2]);
        free(w), free(x), free(y), free(dw);
    }
    return status;
}
