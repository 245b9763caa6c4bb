/*
 * coll_bench: CAIRN's device collectors against CUB, in one binary, on one GPU (issue 16; written
 * for the H200, sm_90a). Built by bench/dev/coll_run.sh against `cairn build
 * bench/dev/coll_kernels.cairn --header` (coll_kernels.h, libcoll_kernels.a).
 *
 *   coll_bench [--reps R] [--log2 24,26,28] [--seed S] [--only NAME[,NAME...]] [--loop R]
 *
 * Pairs, each CAIRN's cf_ entry bound to our stream (cairn_coll_kernels_device_stream) against
 * the CUB call that does the same work, with temp storage allocated once:
 *
 *   scan_i32     scan + over i32, uniform in [-8, 8]        cub::DeviceScan::InclusiveSum
 *   scan_i64     scan + over i64, uniform in [-2^40, 2^40]  cub::DeviceScan::InclusiveSum
 *   scan_max     scan max over i32, any value               cub::DeviceScan::InclusiveScan, max
 *   compact      compact x[i] > 0 of i32 in [-8, 8]         cub::DeviceSelect::If, then the count
 *                (47% kept; the count comes to the host)    copied to pinned host memory
 *   sum_f32      reduce + parallel over f32 (exact), terms   cub::DeviceReduce::Sum
 *                uniform in [-1, 1) ("moderate")
 *   sum_f32_wide the same, terms of any sign, mantissa and exponent but the top 40 binades
 *                (adversarial: the whole range, and no overflow at 2^28 terms)
 *   sum_f64      reduce + parallel over f64, uniform [-1,1)  cub::DeviceReduce::Sum
 *   sum_f64_wide the same, any exponent but the top 64 binades
 *
 * Timing (device/METHOD.md): CUDA events on our stream around each call (a cf_ call returns when
 * its work is done; the events bracket the same GPU timeline for both), warm-up first, R samples
 * each, the pair's two variants alternating sample by sample, the median reported; the inputs are
 * 64 MiB to 2 GiB, past the 60 MB L2.
 *
 * Checks (any failure: exit 1): each CAIRN scan equals CUB's, element for element, with the
 * output poisoned before the call; the compaction's count and values equal CUB's; each exact sum
 * equals the host's exact sum (runtime/cairn_sum.h, held to MPFR by tests/unit/test_sum.c) bit for
 * bit, and is the same bits on every call. CUB's sums are reported with their distance from it.
 *
 * Output: '#' lines are notes; each measurement is one line
 *   name n cairn_ms cub_ms ratio GBps_cairn GBps_cub
 * with ratio = cairn / cub (below 1: CAIRN faster).
 */
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <cub/cub.cuh>
#include <cuda/functional>
#include <cuda/std/functional>
#include <cuda_runtime.h>

#include "cairn_sum.h"
#include "coll_kernels.h"

#define CK(call)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "coll_bench: %s failed: %s (%s:%d)\n", #call, cudaGetErrorString(e_), \
                    __FILE__, __LINE__);                                                           \
            exit(2);                                                                               \
        }                                                                                          \
    } while (0)

static int failures = 0;

static void fail(const char *what, size_t n, const char *detail)
{
    printf("# check FAIL %s n=%zu: %s\n", what, n, detail);
    failures++;
}

/* splitmix64 on a counter: the same inputs for every run with one seed */
static uint64_t mix(uint64_t z)
{
    z += 0x9e3779b97f4a7c15u;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

struct Timer {
    cudaEvent_t a, b;
    Timer() { CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b)); }
};

static double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

/* Times two variants, alternating, R samples each after W warm-ups: medians in ms. */
template <class A, class B>
static void time_pair(cudaStream_t s, int reps, A cairn, B cub, double *ms_cairn, double *ms_cub)
{
    Timer t;
    std::vector<double> va, vb;
    for (int w = 0; w < 3; w++) {
        cairn();
        cub();
    }
    CK(cudaStreamSynchronize(s));
    for (int r = 0; r < reps; r++) {
        for (int k = 0; k < 2; k++) {
            bool first = ((r + k) & 1) == 0;
            CK(cudaEventRecord(t.a, s));
            if (first)
                cairn();
            else
                cub();
            CK(cudaEventRecord(t.b, s));
            CK(cudaEventSynchronize(t.b));
            float ms;
            CK(cudaEventElapsedTime(&ms, t.a, t.b));
            (first ? va : vb).push_back(ms);
        }
    }
    *ms_cairn = median(va);
    *ms_cub = median(vb);
}

static void report(const char *name, size_t n, double bytes, double a, double b)
{
    printf("%s %zu %.4f %.4f %.3f %.0f %.0f\n", name, n, a, b, a / b, bytes / a / 1e6, bytes / b / 1e6);
    fflush(stdout);
}

template <class T>
static T *dev_alloc(size_t n)
{
    T *p;
    CK(cudaMalloc(&p, n * sizeof(T) + 16));
    return p;
}

struct Temp {
    void *p = nullptr;
    size_t bytes = 0;
    void need(size_t b)
    {
        if (b > bytes) {
            if (p)
                CK(cudaFree(p));
            CK(cudaMalloc(&p, b));
            bytes = b;
        }
    }
};

/* ------------------------------------------------------------ scans */

template <class T, class Op, class Cairn>
static void bench_scan(const char *name, cudaStream_t s, size_t n, int reps, const std::vector<T> &h, Op op,
                       Cairn cairn, Temp &tmp)
{
    T *x = dev_alloc<T>(n), *o1 = dev_alloc<T>(n), *o2 = dev_alloc<T>(n);
    CK(cudaMemcpy(x, h.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    size_t tb = 0;
    CK(cub::DeviceScan::InclusiveScan(nullptr, tb, x, o2, op, (int64_t)n, s));
    tmp.need(tb);
    auto run_cub = [&] { CK(cub::DeviceScan::InclusiveScan(tmp.p, tb, x, o2, op, (int64_t)n, s)); };
    auto run_cairn = [&] { cairn(n, x, o1); };
    /* correctness: poisoned outputs, one call each, compared whole */
    CK(cudaMemsetAsync(o1, 0xab, n * sizeof(T), s));
    CK(cudaMemsetAsync(o2, 0xcd, n * sizeof(T), s));
    run_cairn();
    run_cub();
    CK(cudaStreamSynchronize(s));
    std::vector<T> g1(n), g2(n);
    CK(cudaMemcpy(g1.data(), o1, n * sizeof(T), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(g2.data(), o2, n * sizeof(T), cudaMemcpyDeviceToHost));
    T run = h[0];
    size_t bad = 0, bad_cub = 0, first = n;
    for (size_t i = 0; i < n; i++) {
        if (i)
            run = op(run, h[i]);
        if (g2[i] != run)
            bad_cub++;
        if (g1[i] != g2[i]) {
            if (first == n)
                first = i;
            bad++;
        }
    }
    if (bad_cub) {
        char d[96];
        snprintf(d, sizeof d, "CUB differs from the host loop at %zu indices", bad_cub);
        fail(name, n, d);
    }
    if (bad) {
        char d[128];
        snprintf(d, sizeof d, "%zu prefixes differ from CUB's, the first at %zu", bad, first);
        fail(name, n, d);
    }
    double a, b;
    time_pair(s, reps, run_cairn, run_cub, &a, &b);
    report(name, n, 2.0 * n * sizeof(T), a, b);
    /* the same prefixes after the timing loop (a race moves them) */
    CK(cudaMemsetAsync(o1, 0xab, n * sizeof(T), s));
    run_cairn();
    CK(cudaStreamSynchronize(s));
    CK(cudaMemcpy(g1.data(), o1, n * sizeof(T), cudaMemcpyDeviceToHost));
    if (memcmp(g1.data(), g2.data(), n * sizeof(T)) != 0)
        fail(name, n, "the prefixes moved after the timing loop");
    CK(cudaFree(x));
    CK(cudaFree(o1));
    CK(cudaFree(o2));
}

/* ------------------------------------------------------------ compaction */

struct Positive {
    __host__ __device__ bool operator()(int32_t v) const { return v > 0; }
};

static void bench_compact(cudaStream_t s, size_t n, int reps, const std::vector<int32_t> &h, Temp &tmp)
{
    int32_t *x = dev_alloc<int32_t>(n), *o1 = dev_alloc<int32_t>(n), *o2 = dev_alloc<int32_t>(n);
    int64_t *dcount = dev_alloc<int64_t>(1), *hcount;
    CK(cudaMallocHost(&hcount, sizeof(int64_t)));
    CK(cudaMemcpy(x, h.data(), n * sizeof(int32_t), cudaMemcpyHostToDevice));
    size_t tb = 0;
    CK(cub::DeviceSelect::If(nullptr, tb, x, o2, dcount, (int64_t)n, Positive(), s));
    tmp.need(tb);
    size_t got = 0;
    auto run_cairn = [&] { got = cf_compact32(n, x, o1); };
    auto run_cub = [&] {
        CK(cub::DeviceSelect::If(tmp.p, tb, x, o2, dcount, (int64_t)n, Positive(), s));
        CK(cudaMemcpyAsync(hcount, dcount, sizeof(int64_t), cudaMemcpyDeviceToHost, s));
        CK(cudaStreamSynchronize(s));
    };
    CK(cudaMemsetAsync(o1, 0xab, n * sizeof(int32_t), s));
    CK(cudaMemsetAsync(o2, 0xcd, n * sizeof(int32_t), s));
    run_cairn();
    run_cub();
    size_t want = 0;
    for (size_t i = 0; i < n; i++)
        want += h[i] > 0;
    if (got != want || (size_t)*hcount != want) {
        char d[128];
        snprintf(d, sizeof d, "counts: cairn %zu, CUB %lld, host %zu", got, (long long)*hcount, want);
        fail("compact", n, d);
    } else {
        std::vector<int32_t> g1(n), g2(n);
        CK(cudaMemcpy(g1.data(), o1, n * sizeof(int32_t), cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(g2.data(), o2, n * sizeof(int32_t), cudaMemcpyDeviceToHost));
        if (memcmp(g1.data(), g2.data(), want * sizeof(int32_t)) != 0)
            fail("compact", n, "the kept values differ from CUB's");
        size_t m = 0, bad = 0;
        for (size_t i = 0; i < n; i++)
            if (h[i] > 0 && g1[m++] != h[i])
                bad++;
        for (size_t i = want; i < n; i++)
            if ((uint32_t)g1[i] != 0xababababu)
                bad++;
        if (bad)
            fail("compact", n, "kept values out of index order, or a write past the count");
    }
    double a, b;
    time_pair(s, reps, run_cairn, run_cub, &a, &b);
    report("compact", n, (4.0 + 4.0 * (double)want / (double)n) * n, a, b);
    CK(cudaFree(x));
    CK(cudaFree(o1));
    CK(cudaFree(o2));
    CK(cudaFree(dcount));
    CK(cudaFreeHost(hcount));
}

/* ------------------------------------------------------------ exact sums */

template <class T>
static uint64_t bits_of(T v)
{
    uint64_t b = 0;
    memcpy(&b, &v, sizeof v);
    return b;
}

/* --loop R: each sum is also timed (1) against CUB followed by a wait on the stream, as a cf_ call
 * ends ("NAME+sync": the same work seen from the host), and (2) R sums queued in one call against R
 * CUB calls and one wait ("NAME@R", per sum: the device work, each CAIRN sum with its zeroing and
 * launch, without the host's wait on each). */
static int loop_reps = 0;

template <class T, class Cairn, class Loop>
static void bench_sum(const char *name, cudaStream_t s, size_t n, int reps, const std::vector<T> &h, Cairn cairn,
                      Loop cairn_loop, Temp &tmp)
{
    T *x = dev_alloc<T>(n), *t1 = dev_alloc<T>(1), *t2 = dev_alloc<T>(1);
    CK(cudaMemcpy(x, h.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    size_t tb = 0;
    CK(cub::DeviceReduce::Sum(nullptr, tb, x, t2, (int64_t)n, s));
    tmp.need(tb);
    auto run_cub = [&] { CK(cub::DeviceReduce::Sum(tmp.p, tb, x, t2, (int64_t)n, s)); };
    auto run_cairn = [&] { cairn(n, x, t1); };
    T want;
    if (sizeof(T) == 4)
        want = (T)cn_sum_f32((const float *)h.data(), n);
    else
        want = (T)cn_sum_f64((const double *)h.data(), n);
    T g1, g2;
    run_cairn();
    run_cub();
    CK(cudaStreamSynchronize(s));
    CK(cudaMemcpy(&g1, t1, sizeof(T), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(&g2, t2, sizeof(T), cudaMemcpyDeviceToHost));
    if (bits_of(g1) != bits_of(want)) {
        char d[160];
        snprintf(d, sizeof d, "cairn %.17g (bits %llx), the exact sum rounded %.17g (bits %llx)", (double)g1,
                 (unsigned long long)bits_of(g1), (double)want, (unsigned long long)bits_of(want));
        fail(name, n, d);
    }
    printf("# %s n=%zu: exact %.17g, cairn %s, CUB %.17g (relative distance %.3g)\n", name, n, (double)want,
           bits_of(g1) == bits_of(want) ? "the same bits" : "DIFFERENT", (double)g2,
           want != 0 ? std::fabs(((double)g2 - (double)want) / (double)want) : std::fabs((double)g2));
    double a, b;
    time_pair(s, reps, run_cairn, run_cub, &a, &b);
    report(name, n, (double)n * sizeof(T), a, b);
    if (loop_reps > 0) {
        char row[64];
        auto run_cub_sync = [&] {
            run_cub();
            CK(cudaStreamSynchronize(s));
        };
        time_pair(s, reps, run_cairn, run_cub_sync, &a, &b);
        snprintf(row, sizeof row, "%s+sync", name);
        report(row, n, (double)n * sizeof(T), a, b);
        auto loop_cairn = [&] { cairn_loop(n, x, t1, (size_t)loop_reps); };
        auto loop_cub = [&] {
            for (int r = 0; r < loop_reps; r++)
                run_cub();
            CK(cudaStreamSynchronize(s));
        };
        time_pair(s, reps, loop_cairn, loop_cub, &a, &b);
        snprintf(row, sizeof row, "%s@%d", name, loop_reps);
        report(row, n, (double)n * sizeof(T), a / loop_reps, b / loop_reps);
    }
    run_cairn();
    CK(cudaStreamSynchronize(s));
    CK(cudaMemcpy(&g1, t1, sizeof(T), cudaMemcpyDeviceToHost));
    if (bits_of(g1) != bits_of(want))
        fail(name, n, "the sum moved after the timing loop");
    if (loop_reps > 0) {
        CK(cudaMemset(t1, 0, sizeof(T)));
        cairn_loop(n, x, t1, 3);
        CK(cudaMemcpy(&g1, t1, sizeof(T), cudaMemcpyDeviceToHost));
        if (bits_of(g1) != bits_of(want))
            fail(name, n, "the queued sums differ from the exact sum");
    }
    CK(cudaFree(x));
    CK(cudaFree(t1));
    CK(cudaFree(t2));
}

/* ------------------------------------------------------------ inputs */

static float f32_moderate(uint64_t h) { return (float)((int64_t)(h >> 40) - (1ll << 23)) * 0x1p-23f; }

/* any sign, mantissa and biased exponent 0..214: all but the top 40 binades, so that 2^28 terms
 * cannot overflow */
static float f32_wide(uint64_t h)
{
    uint32_t e = (uint32_t)(h >> 40) % 215;
    uint32_t b = ((uint32_t)h & 0x807fffffu) | (e << 23);
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

static double f64_moderate(uint64_t h) { return (double)((int64_t)(h >> 11) - (1ll << 52)) * 0x1p-52; }

/* any sign, mantissa and biased exponent 0..1982 */
static double f64_wide(uint64_t h)
{
    uint64_t e = mix(h) % 1983;
    uint64_t b = (h & 0x800fffffffffffffull) | (e << 52);
    double f;
    memcpy(&f, &b, sizeof f);
    return f;
}

int main(int argc, char **argv)
{
    int reps = 20;
    uint64_t seed = 1;
    std::vector<int> logs = {24, 26, 28};
    std::string only;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = strtoull(argv[++i], nullptr, 10);
        else if (!strcmp(argv[i], "--only") && i + 1 < argc)
            only = argv[++i];
        else if (!strcmp(argv[i], "--loop") && i + 1 < argc)
            loop_reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--log2") && i + 1 < argc) {
            logs.clear();
            for (char *p = strtok(argv[++i], ","); p; p = strtok(nullptr, ","))
                logs.push_back(atoi(p));
        } else {
            fprintf(stderr, "usage: coll_bench [--reps R] [--log2 24,26,28] [--seed S] [--only NAME[,NAME...]] [--loop R]\n");
            return 2;
        }
    }
    int dev = 0;
    cudaDeviceProp prop;
    if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&prop, dev) != cudaSuccess) {
        fprintf(stderr, "coll_bench: no usable GPU\n");
        return 3;
    }
    printf("# %s, %d SMs, CUB %d.%d.%d, reps %d, seed %llu\n", prop.name, prop.multiProcessorCount,
           CUB_VERSION / 100000, CUB_VERSION / 100 % 1000, CUB_VERSION % 100, reps, (unsigned long long)seed);
    printf("# name n cairn_ms cub_ms ratio GBps_cairn GBps_cub\n");
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    cairn_coll_kernels_device_stream(s);
    Temp tmp;
    /* --only takes one name or several, comma-separated */
    auto want = [&](const char *name) {
        return only.empty() || ("," + only + ",").find("," + std::string(name) + ",") != std::string::npos;
    };
    for (int lg : logs) {
        size_t n = (size_t)1 << lg;
        uint64_t base = mix(seed * 1000003u + (uint64_t)lg);
        if (want("scan_i32") || want("compact")) {
            std::vector<int32_t> h(n);
            for (size_t i = 0; i < n; i++)
                h[i] = (int32_t)(mix(base + i) % 17) - 8;
            if (want("scan_i32"))
                bench_scan<int32_t>("scan_i32", s, n, reps, h, cuda::std::plus<int32_t>(),
                                    [](size_t m, const int32_t *x, int32_t *o) { cf_scan32(m, x, o); }, tmp);
            if (want("compact"))
                bench_compact(s, n, reps, h, tmp);
        }
        if (want("scan_i64")) {
            std::vector<int64_t> h(n);
            for (size_t i = 0; i < n; i++)
                h[i] = (int64_t)(mix(base + 7 * i) % (2ull << 40)) - (1ll << 40);
            bench_scan<int64_t>("scan_i64", s, n, reps, h, cuda::std::plus<int64_t>(),
                                [](size_t m, const int64_t *x, int64_t *o) { cf_scan64(m, x, o); }, tmp);
        }
        if (want("scan_max")) {
            std::vector<int32_t> h(n);
            for (size_t i = 0; i < n; i++)
                h[i] = (int32_t)(uint32_t)mix(base + 3 * i);
            bench_scan<int32_t>("scan_max", s, n, reps, h, cuda::maximum<int32_t>(),
                                [](size_t m, const int32_t *x, int32_t *o) { cf_scanmax(m, x, o); }, tmp);
        }
        if (want("sum_f32") || want("sum_f32_wide")) {
            std::vector<float> h(n);
            for (int wide = 0; wide <= 1; wide++) {
                const char *name = wide ? "sum_f32_wide" : "sum_f32";
                if (!want(name))
                    continue;
                for (size_t i = 0; i < n; i++)
                    h[i] = wide ? f32_wide(mix(base + 5 * i)) : f32_moderate(mix(base + 5 * i));
                bench_sum<float>(name, s, n, reps, h, [](size_t m, const float *x, float *t) { cf_sum32(m, x, t); },
                                 [](size_t m, const float *x, float *t, size_t r) { cf_sum32r(m, x, t, r); }, tmp);
            }
        }
        if (want("sum_f64") || want("sum_f64_wide")) {
            std::vector<double> h(n);
            for (int wide = 0; wide <= 1; wide++) {
                const char *name = wide ? "sum_f64_wide" : "sum_f64";
                if (!want(name))
                    continue;
                for (size_t i = 0; i < n; i++)
                    h[i] = wide ? f64_wide(mix(base + 11 * i)) : f64_moderate(mix(base + 11 * i));
                bench_sum<double>(name, s, n, reps, h,
                                  [](size_t m, const double *x, double *t) { cf_sum64(m, x, t); },
                                  [](size_t m, const double *x, double *t, size_t r) { cf_sum64r(m, x, t, r); }, tmp);
            }
        }
    }
    cairn_coll_kernels_device_stream(nullptr);
    printf("# RESULT %s: %d check(s) failed\n", failures ? "FAIL" : "PASS", failures);
    return failures ? 1 : 0;
}
