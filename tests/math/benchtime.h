/*
 * benchtime.h: the timing loop of the portable math benches (tests/math/bench_*.c): ns per call over
 * N seeded inputs, the median of RUNS passes, the results summed into a volatile so that no call is
 * optimised away. Include after the function's header and mathcheck.h.
 */
#ifndef CAIRN_BENCHTIME_H
#define CAIRN_BENCHTIME_H

#include <time.h>

enum { N = 1 << 24, RUNS = 5 };

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static volatile double sink;

#define TIME_LOOP(T, arr, call)                                                                                \
    do {                                                                                                       \
        double t[RUNS];                                                                                        \
        for (int r = 0; r < RUNS; r++) {                                                                       \
            double t0 = now(), acc = 0;                                                                        \
            for (int i = 0; i < N; i++)                                                                        \
                acc += (double)call(arr[i]);                                                                   \
            t[r] = (now() - t0) * 1e9 / N;                                                                     \
            sink = acc;                                                                                        \
        }                                                                                                      \
        qsort(t, RUNS, sizeof t[0], cmp);                                                                      \
        T = t[RUNS / 2];                                                                                       \
    } while (0)

#define TIME_LOOP2(T, ax, ay, call)                                                                            \
    do {                                                                                                       \
        double t[RUNS];                                                                                        \
        for (int r = 0; r < RUNS; r++) {                                                                       \
            double t0 = now(), acc = 0;                                                                        \
            for (int i = 0; i < N; i++)                                                                        \
                acc += (double)call(ax[i], ay[i]);                                                             \
            t[r] = (now() - t0) * 1e9 / N;                                                                     \
            sink = acc;                                                                                        \
        }                                                                                                      \
        qsort(t, RUNS, sizeof t[0], cmp);                                                                      \
        T = t[RUNS / 2];                                                                                       \
    } while (0)

#endif
