/*
 * bench_dev: CAIRN's device entries against hand CUDA, on one GPU (written for the H200, sm_90a).
 *
 * Built by bench/dev/run.sh against the library `cairn build bench/dev/kernels.cairn --header`
 * makes (kernels.h, libkernels.a), or, to test this harness without the lowering, against the
 * hand-written stand-in bench/dev/fake_kernels.cu (its numbers are never evidence; the program
 * says so when it is linked in).
 *
 *   bench_dev [--reps R] [--call-reps C] [--log2 26,28] [--seed S]
 *
 * What it measures, for n = 2^26 and 2^28 f32 (each buffer 256 MiB or 1 GiB, several times the
 * 60 MB L2, so repeated passes over the same buffers measure HBM, not the cache):
 *
 *   copy_d2d        cudaMemcpyAsync device to device of n floats: the bandwidth ceiling (8 B/elem)
 *   hand_saxpy      a plain grid-stride kernel, out[i] = a*x[i] + y[i] (12 B/elem);
 *   hand_saxpy_b    the same kernel timed again as if it were another variant: the spread between
 *                   the two is the noise floor for any "A is faster than B" claim
 *   cairn_cq_saxpy  cq_saxpy on our stream (events around the enqueue, like hand_saxpy)
 *   cairn_cf_saxpy  cf_saxpy on CAIRN's own stream: host wall clock only (events on our stream
 *                   would not cover work on CAIRN's)
 *   cairn_cf_saxpy_bound   cf_saxpy with our stream bound by cairn_kernels_device_stream, so
 *                   events on our stream cover its work: events and wall clock
 *   cub_sum         cub::DeviceReduce::Sum (4 B/elem), temp storage allocated once
 *   cairn_cf_dsum, cairn_cf_dsum_bound   as for cf_saxpy
 *   cub_scan        cub::DeviceScan::InclusiveSum of n i32 (8 B/elem: read x, write the
 *                   prefixes), temp storage allocated once
 *   cairn_cf_dscan, cairn_cf_dscan_bound   `scan + out parallel` (kernels.cairn), as for cf_saxpy
 *   cub_select      cub::DeviceSelect::If keeping x[i] > 0 of n i32, count left on the device
 *                   (4 B/elem read + 4 B per kept element written: 5.88 B/elem here)
 *   cub_select_count   the same, then the count copied to pinned host memory on our stream:
 *                   what a caller pays to have the count on the host, as cf_dcompact returns it
 *   cairn_cf_dcompact, cairn_cf_dcompact_bound   `compact out parallel ... if x[i] > 0`, which
 *                   returns its count, as for cf_saxpy
 *   There is no cq_dscan or cq_dcompact: the generated header lists both under E-ENQUEUE (the
 *   scan takes scratch from CAIRN's arena; the compaction returns its count to the host).
 *
 * Every variant is timed both with CUDA events on our stream (rows without a suffix) and by the
 * host's steady clock around the call and its wait (rows ending _wall): for a queued operation the
 * wall time is enqueue + cudaStreamSynchronize, for a cf_ entry it is the call alone, since the
 * call returns only once its work has finished. The variants run round-robin, one sample each per
 * round, starting at a different variant each round, so drift in clocks or temperature lands on
 * all of them alike rather than on whichever ran last.
 *
 * Then, at n = 1024, the host cost of single calls (batches of 100, untimed wait between
 * batches so the queue never fills): an empty kernel launch, the same with cudaStreamSynchronize,
 * the hand saxpy launch with and without the wait, cq_saxpy with and without the wait, cf_saxpy.
 *
 * Checks (any failure: exit 1):
 *   the hand kernel equals a host reference bit for bit (a*x rounded, then +y rounded; the
 *     harness is only meaningful when the anchor itself is right);
 *   cq_saxpy, cf_saxpy and bound cf_saxpy outputs equal the hand kernel's bit for bit, with the
 *     output poisoned (all bits set, a NaN) before each call, so an unwritten element fails;
 *   a bound cf_ entry has finished all work on our stream when it returns (cudaStreamQuery);
 *   cf_dsum's total is within a relative 1e-5 of the host's double sum, unbound and bound, and
 *     again after the timing loop (a moving result is a race);
 *   CUB's inclusive sum equals a host prefix loop exactly, and cf_dscan's prefixes, unbound and
 *     bound, equal CUB's (memcmp) and so the host's, with the output poisoned before each call
 *     (0xab bytes: -1414812757, which no prefix of these inputs reaches); again after timing;
 *   CUB's select and cf_dcompact, unbound and bound, give the host loop's count and its kept
 *     values in index order, and leave the poison past the count alone; again after timing.
 * Reported, not failed: CUB's total, and whether CAIRN's total is the exact sum rounded once
 * (what reduce + parallel promises) and the same bits on every call.
 *
 * The scan and the compaction read their own i32 input: uniform integers in [-8, 8] from the same
 * generator (x[i] > 0 keeps 8 of the 17 values, 47.06%; the prefixes are a random walk that stays
 * within 10^5 of zero, 63447 at most at 2^28 with the default seed, far inside i32, so CAIRN's
 * checked + never traps; the harness checks that on the host and prints the largest |prefix|).
 *
 * The inputs are uniform multiples of 2^-23 in [-1, 1) from a counter-based generator with a fixed
 * seed: random signs and magnitudes (not zeros, which hide unwritten outputs and can run faster
 * than real data; a zero turns up about once in 2^24 elements), and exact in double: every partial sum of up to 2^29 of them is a multiple of 2^-23 below 2^29, which fits
 * in 53 bits, so the host's double sum is the exact sum and rounding it to f32 gives the one
 * correctly rounded answer.
 *
 * Output: lines starting with '#' are notes; every other line is one measurement,
 *
 *   name n median_ms p10_ms p90_ms GB_per_s ratio_vs_anchor frac_of_copy_bw
 *
 * GB_per_s = bytes moved per call / median (10^9 bytes); ratio_vs_anchor = this row's median over
 * its anchor's median, measured the same way (events against events, wall against wall; > 1 is
 * slower; '# anchor' lines name each pair); frac_of_copy_bw = GB_per_s over copy_d2d's
 * (event-timed) GB_per_s at the same n. '-' where a column does not apply.
 *
 * Exit: 0 checks passed; 1 a check failed; 2 a CUDA call failed or bad arguments; 3 no usable GPU
 * (none present, no code in this binary for it, or too little memory).
 */
#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include <cub/cub.cuh>
#include <cuda_runtime.h>

/* The generated header when its folder is on the include path (run.sh puts it first); otherwise
 * the stand-in's, so this file compiles with only -Ibench/dev. */
#if __has_include("kernels.h")
#include "kernels.h"
#else
#include "fake/kernels.h"
#endif
#if defined(BENCH_DEV_WANT_REAL_HEADER) && defined(CAIRN_BENCH_FAKE_HEADER)
#error "bench_dev: built against the stand-in header bench/dev/fake/kernels.h, but the generated kernels.h was asked for: put its folder first on the include path"
#endif
/* The entries must have exactly the types this harness was written for: a header that drifted
 * (a cudaStream_t for the void *, another integer for size_t) must not compile into quietly
 * converted calls. */
static_assert(std::is_same<decltype(&cf_saxpy), void (*)(size_t, float *, const float *, const float *, float)>::value,
              "cf_saxpy's signature is not the one bench_dev expects");
static_assert(std::is_same<decltype(&cq_saxpy), void (*)(void *, size_t, float *, const float *, const float *, float)>::value,
              "cq_saxpy's signature is not the one bench_dev expects");
static_assert(std::is_same<decltype(&cf_dsum), void (*)(size_t, const float *, float *)>::value,
              "cf_dsum's signature is not the one bench_dev expects");
static_assert(std::is_same<decltype(&cf_dscan), void (*)(size_t, const int32_t *, int32_t *)>::value,
              "cf_dscan's signature is not the one bench_dev expects");
static_assert(std::is_same<decltype(&cf_dcompact), size_t (*)(size_t, const int32_t *, int32_t *)>::value,
              "cf_dcompact's signature is not the one bench_dev expects");
static_assert(std::is_same<decltype(&cairn_kernels_device_stream), void (*)(void *)>::value,
              "cairn_kernels_device_stream's signature is not the one bench_dev expects");

/* Defined only by the stand-in (fake_kernels.cu). Weak, so a real build links without it and
 * sees a null address. */
extern "C" __attribute__((weak)) int cairn_bench_stand_in_kernels(void);

/* ------------------------------------------------------------------ errors */

static void check_cuda(cudaError_t e, const char *call, int line) {
    if (e == cudaSuccess) return;
    std::fprintf(stderr, "bench_dev: line %d: %s: %s (%s)\n", line, call, cudaGetErrorString(e), cudaGetErrorName(e));
    std::exit(2);
}
#define CK(call) check_cuda((call), #call, __LINE__)

static int g_failures = 0;

static void report_check(bool ok, const char *what, size_t n) {
    std::printf("# check %-44s n=%-10zu %s\n", what, n, ok ? "PASS" : "FAIL");
    if (!ok) g_failures++;
}

/* ------------------------------------------------------------------ hand CUDA */

static __global__ void empty_kernel() {}

/* The anchor: plain, one element per iteration, no __restrict__ and no vector loads. Built with
 * --fmad=false, so a*x[i] + y[i] rounds the product and then the sum, as CAIRN's does. */
static __global__ void hand_saxpy_kernel(size_t n, float *out, const float *x, const float *y, float a) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        out[i] = a * x[i] + y[i];
}

static const int kThreads = 256;
static int g_full_grid = 0; /* blocks of kThreads that fill every multiprocessor once */

static void hand_saxpy(cudaStream_t s, size_t n, float *out, const float *x, const float *y, float a) {
    size_t need = (n + kThreads - 1) / kThreads;
    int blocks = (int)std::max<size_t>(1, std::min<size_t>(need, (size_t)g_full_grid));
    hand_saxpy_kernel<<<blocks, kThreads, 0, s>>>(n, out, x, y, a);
    /* Checked on every launch, timed or not: CAIRN's entries check theirs too. */
    CK(cudaGetLastError());
}

/* ------------------------------------------------------------------ inputs */

/* splitmix64's output function over a counter: element i depends only on (seed, i), so the
 * data does not depend on how it is generated or on the size. */
static uint64_t mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* A multiple of 2^-23 in [-1, 1): the top 24 bits, centred. Exact as a float. */
static float random_unit(uint64_t seed, uint64_t i) {
    uint64_t r = mix64(seed + (i + 1) * 0x9e3779b97f4a7c15ULL);
    int32_t k = (int32_t)(r >> 40) - (1 << 23);
    return (float)k * (1.0f / 8388608.0f);
}

static void fill_random(float *v, size_t n, uint64_t seed) {
    for (size_t i = 0; i < n; i++) v[i] = random_unit(seed, i);
}

/* An integer in [-8, 8] for the scan and the compaction: small, so no prefix of up to 2^29 of them
 * comes near i32's range in practice (checked on the host), and x > 0 keeps 8 of the 17 values. */
static int32_t random_small(uint64_t seed, uint64_t i) {
    uint64_t r = mix64(seed + (i + 1) * 0x9e3779b97f4a7c15ULL);
    return (int32_t)((r >> 32) % 17) - 8;
}

static void fill_small(int32_t *v, size_t n, uint64_t seed) {
    for (size_t i = 0; i < n; i++) v[i] = random_small(seed, i);
}

/* The compaction's keep condition, the same for CUB, the host loop and kernels.cairn's dcompact. */
struct KeepPositive {
    __host__ __device__ bool operator()(const int32_t &v) const { return v > 0; }
};

/* Not a power of two, so a*x rounds in most elements and a fused multiply-add would show. */
static const float kA = 0.78539816f;

/* ------------------------------------------------------------------ statistics */

struct Stats {
    double median, p10, p90;
};

static double quantile_sorted(const std::vector<double> &v, double q) {
    double pos = q * (double)(v.size() - 1);
    size_t lo = (size_t)pos;
    size_t hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (pos - (double)lo) * (v[hi] - v[lo]);
}

static Stats summarize(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return Stats{quantile_sorted(v, 0.5), quantile_sorted(v, 0.1), quantile_sorted(v, 0.9)};
}

static double now_ms() {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/* One line of the table, printed at the end. */
struct Row {
    std::string name;
    size_t n;
    double bytes;        /* bytes one call moves through device memory; 0: no bandwidth column */
    std::string anchor;  /* row whose median is the ratio's denominator; empty: none */
    std::vector<double> ms;
};
static std::vector<Row> g_rows;

static const Row *find_row(const std::string &name, size_t n) {
    for (const Row &r : g_rows)
        if (r.name == name && r.n == n) return &r;
    return nullptr;
}

/* ------------------------------------------------------------------ comparing outputs */

/* Bit-for-bit comparison; on a mismatch, says how many elements differ and shows the first. */
static bool same_bits(const float *got, const float *want, size_t n, const char *what) {
    if (std::memcmp(got, want, n * sizeof(float)) == 0) return true;
    size_t count = 0, first = n;
    for (size_t i = 0; i < n; i++) {
        uint32_t g, w;
        std::memcpy(&g, &got[i], 4);
        std::memcpy(&w, &want[i], 4);
        if (g != w) {
            if (first == n) first = i;
            count++;
        }
    }
    uint32_t g, w;
    std::memcpy(&g, &got[first], 4);
    std::memcpy(&w, &want[first], 4);
    std::printf("# %s: %zu of %zu elements differ; first at %zu: got %.9g (0x%08x), want %.9g (0x%08x)%s\n", what,
                count, n, first, (double)got[first], g, (double)want[first], w,
                g == 0xffffffffu ? " (the poison: never written)" : "");
    return false;
}

/* Distance in units in the last place between two finite floats of one sign or across zero. */
static long long ulps_apart(float a, float b) {
    int32_t ia, ib;
    std::memcpy(&ia, &a, 4);
    std::memcpy(&ib, &b, 4);
    long long la = ia < 0 ? (long long)INT32_MIN - ia : ia; /* monotone ordering of the bits */
    long long lb = ib < 0 ? (long long)INT32_MIN - ib : ib;
    return la > lb ? la - lb : lb - la;
}

static bool within_rel(float got, double want, double tol) {
    return std::isfinite(got) && std::fabs((double)got - want) <= tol * std::fabs(want);
}

/* Poison for the i32 outputs: every byte 0xab. No prefix of the inputs reaches it and it is not
 * positive, so neither a scan nor a compaction can legitimately leave it where it checks. */
static const int kPoisonByte = 0xab;
static const int32_t kPoisonI32 = (int32_t)0xabababab;

/* Exact comparison of i32 outputs; on a mismatch, says how many differ and shows the first. */
static bool same_i32(const int32_t *got, const int32_t *want, size_t n, const char *what) {
    if (n == 0 || std::memcmp(got, want, n * sizeof(int32_t)) == 0) return true;
    size_t count = 0, first = n;
    for (size_t i = 0; i < n; i++)
        if (got[i] != want[i]) {
            if (first == n) first = i;
            count++;
        }
    std::printf("# %s: %zu of %zu elements differ; first at %zu: got %d, want %d%s\n", what, count, n, first,
                (int)got[first], (int)want[first], got[first] == kPoisonI32 ? " (the poison: never written)" : "");
    return false;
}

/* The elements [from, n) still hold the poison: a compaction must not write past its count. */
static bool poison_intact(const int32_t *got, size_t from, size_t n, const char *what) {
    for (size_t i = from; i < n; i++)
        if (got[i] != kPoisonI32) {
            std::printf("# %s: element %zu, past the count %zu, was written (%d)\n", what, i, from, (int)got[i]);
            return false;
        }
    return true;
}

/* ------------------------------------------------------------------ one size */

struct Bufs {
    cudaStream_t s;
    size_t n;
    float *x, *y, *out_hand, *out_cairn, *copy_dst, *total, *cub_total;
    void *cub_temp;
    size_t cub_temp_bytes;
    /* The scan and the compaction: their i32 input, CUB's and CAIRN's outputs, CUB's count (on the
     * device, and its pinned host copy for cub_select_count), and CUB's temp storage for each. */
    int32_t *xi, *scan_cub, *scan_cairn, *sel_cub, *sel_cairn;
    int *sel_cub_count, *sel_cub_count_host;
    void *scan_temp, *sel_temp;
    size_t scan_temp_bytes, sel_temp_bytes;
    size_t kept;                  /* the host loop's count: the compaction rows' bytes */
    mutable size_t cairn_kept;    /* what the last cf_dcompact call returned */
};

/* The variants timed at large n, in one table so the round-robin loop stays one loop. */
enum Op {
    OP_COPY, OP_HAND_SAXPY, OP_HAND_SAXPY_B, OP_CQ_SAXPY, OP_CF_SAXPY, OP_CF_SAXPY_BOUND,
    OP_CUB_SUM, OP_CF_DSUM, OP_CF_DSUM_BOUND,
    OP_CUB_SCAN, OP_CF_DSCAN, OP_CF_DSCAN_BOUND,
    OP_CUB_SELECT, OP_CUB_SELECT_COUNT, OP_CF_DCOMPACT, OP_CF_DCOMPACT_BOUND, OP_COUNT
};
struct OpInfo {
    const char *name;
    int bytes_per_elem;
    int bytes_per_kept; /* a compaction's writes: 4 bytes for each element it keeps */
    bool cf_entry;      /* returns after its work: the wall time is the call alone */
    bool bound;         /* our stream bound with cairn_kernels_device_stream for the call */
    const char *anchor;
};
static const OpInfo kOps[OP_COUNT] = {
    {"copy_d2d", 8, 0, false, false, nullptr},
    {"hand_saxpy", 12, 0, false, false, nullptr},
    {"hand_saxpy_b", 12, 0, false, false, "hand_saxpy"},
    {"cairn_cq_saxpy", 12, 0, false, false, "hand_saxpy"},
    {"cairn_cf_saxpy", 12, 0, true, false, "hand_saxpy"},
    {"cairn_cf_saxpy_bound", 12, 0, true, true, "hand_saxpy"},
    {"cub_sum", 4, 0, false, false, nullptr},
    {"cairn_cf_dsum", 4, 0, true, false, "cub_sum"},
    {"cairn_cf_dsum_bound", 4, 0, true, true, "cub_sum"},
    {"cub_scan", 8, 0, false, false, nullptr},
    {"cairn_cf_dscan", 8, 0, true, false, "cub_scan"},
    {"cairn_cf_dscan_bound", 8, 0, true, true, "cub_scan"},
    {"cub_select", 4, 4, false, false, nullptr},
    {"cub_select_count", 4, 4, false, false, "cub_select"},
    {"cairn_cf_dcompact", 4, 4, true, false, "cub_select"},
    {"cairn_cf_dcompact_bound", 4, 4, true, true, "cub_select"},
};

/* Events on our stream cover the work unless it ran on CAIRN's own stream. */
static bool has_events(const OpInfo &o) { return !o.cf_entry || o.bound; }

static void run_op(const Bufs &b, int op) {
    switch (op) {
    case OP_COPY:
        CK(cudaMemcpyAsync(b.copy_dst, b.x, b.n * sizeof(float), cudaMemcpyDeviceToDevice, b.s));
        break;
    case OP_HAND_SAXPY:
    case OP_HAND_SAXPY_B: hand_saxpy(b.s, b.n, b.out_hand, b.x, b.y, kA); break;
    case OP_CQ_SAXPY: cq_saxpy((void *)b.s, b.n, b.out_cairn, b.x, b.y, kA); break;
    case OP_CF_SAXPY:
    case OP_CF_SAXPY_BOUND: cf_saxpy(b.n, b.out_cairn, b.x, b.y, kA); break;
    case OP_CUB_SUM: {
        size_t temp_bytes = b.cub_temp_bytes; /* CUB takes it by reference; only reads it here */
        CK(cub::DeviceReduce::Sum(b.cub_temp, temp_bytes, b.x, b.cub_total, (int)b.n, b.s));
        break;
    }
    case OP_CF_DSUM:
    case OP_CF_DSUM_BOUND: cf_dsum(b.n, b.x, b.total); break;
    case OP_CUB_SCAN: {
        size_t temp_bytes = b.scan_temp_bytes;
        CK(cub::DeviceScan::InclusiveSum(b.scan_temp, temp_bytes, b.xi, b.scan_cub, (int)b.n, b.s));
        break;
    }
    case OP_CF_DSCAN:
    case OP_CF_DSCAN_BOUND: cf_dscan(b.n, b.xi, b.scan_cairn); break;
    case OP_CUB_SELECT:
    case OP_CUB_SELECT_COUNT: {
        size_t temp_bytes = b.sel_temp_bytes;
        CK(cub::DeviceSelect::If(b.sel_temp, temp_bytes, b.xi, b.sel_cub, b.sel_cub_count, (int)b.n, KeepPositive(), b.s));
        if (op == OP_CUB_SELECT_COUNT)
            CK(cudaMemcpyAsync(b.sel_cub_count_host, b.sel_cub_count, sizeof(int), cudaMemcpyDeviceToHost, b.s));
        break;
    }
    case OP_CF_DCOMPACT:
    case OP_CF_DCOMPACT_BOUND: b.cairn_kept = cf_dcompact(b.n, b.xi, b.sel_cairn); break;
    }
}

/* Binds or unbinds our stream only when the next variant needs the other state, outside any
 * timed region. */
static void set_binding(cudaStream_t s, bool bound) {
    static int current = -1;
    if (current == (int)bound) return;
    cairn_kernels_device_stream(bound ? (void *)s : nullptr);
    current = (int)bound;
}

static void poison(const Bufs &b, float *p, size_t count) {
    CK(cudaMemsetAsync(p, 0xff, count * sizeof(float), b.s));
}

static float read_total(const Bufs &b, const float *d) {
    float v;
    CK(cudaMemcpyAsync(&v, d, sizeof v, cudaMemcpyDeviceToHost, b.s));
    CK(cudaStreamSynchronize(b.s));
    return v;
}

static void copy_out(const Bufs &b, float *host, const float *dev) {
    CK(cudaMemcpyAsync(host, dev, b.n * sizeof(float), cudaMemcpyDeviceToHost, b.s));
    CK(cudaStreamSynchronize(b.s));
}

static void poison_i32(const Bufs &b, int32_t *p, size_t count) {
    CK(cudaMemsetAsync(p, kPoisonByte, count * sizeof(int32_t), b.s));
}

static void copy_out_i32(const Bufs &b, int32_t *host, const int32_t *dev) {
    CK(cudaMemcpyAsync(host, dev, b.n * sizeof(int32_t), cudaMemcpyDeviceToHost, b.s));
    CK(cudaStreamSynchronize(b.s));
}

static int read_count(const Bufs &b, const int *d) {
    int v;
    CK(cudaMemcpyAsync(&v, d, sizeof v, cudaMemcpyDeviceToHost, b.s));
    CK(cudaStreamSynchronize(b.s));
    return v;
}

/* A cf_ entry bound to our stream must have finished everything on it when it returns. */
static void check_bound_finished(const Bufs &b, const char *what) {
    cudaError_t q = cudaStreamQuery(b.s);
    if (q != cudaErrorNotReady) CK(q);
    report_check(q == cudaSuccess, what, b.n);
}

struct DsumReference {
    double exact;       /* the host's double sum: exact for these inputs */
    float first_cairn;  /* cf_dsum's first total, to see whether later calls give the same bits */
};

static void check_dsum(const Bufs &b, float got, const DsumReference &ref, const char *what) {
    float rounded = (float)ref.exact;
    std::printf("# %s: cairn %.9g  exact %.17g  exact rounded to f32 %.9g  rel.err %.3g  ulps from rounded %lld\n",
                what, (double)got, ref.exact, (double)rounded, std::fabs((double)got - ref.exact) / std::fabs(ref.exact),
                std::isfinite(got) ? ulps_apart(got, rounded) : -1LL);
    report_check(within_rel(got, ref.exact, 1e-5), what, b.n);
}

static void correctness(Bufs &b, const float *hx, const float *hy, float *href, float *hgot, float *hhand,
                        DsumReference &dref) {
    const size_t n = b.n;

    /* The host reference: the product rounded to f32 before the add, whatever the host compiler
     * would contract (the volatile forces the rounding). */
    for (size_t i = 0; i < n; i++) {
        volatile float p = kA * hx[i];
        href[i] = p + hy[i];
    }
    /* Shows that the bit-for-bit checks below can see a fused multiply-add. */
    size_t sample = std::min<size_t>(n, 1u << 20), fused_differs = 0;
    for (size_t i = 0; i < sample; i++)
        if (std::fma(kA, hx[i], hy[i]) != href[i]) fused_differs++;
    std::printf("# a fused multiply-add would change %zu of the first %zu outputs\n", fused_differs, sample);

    poison(b, b.out_hand, n);
    hand_saxpy(b.s, n, b.out_hand, b.x, b.y, kA);
    copy_out(b, hhand, b.out_hand);
    report_check(same_bits(hhand, href, n, "hand_saxpy vs host"), "hand_saxpy == host reference (bits)", n);

    poison(b, b.out_cairn, n);
    cq_saxpy((void *)b.s, n, b.out_cairn, b.x, b.y, kA);
    CK(cudaGetLastError());
    copy_out(b, hgot, b.out_cairn);
    report_check(same_bits(hgot, hhand, n, "cq_saxpy vs hand"), "cq_saxpy == hand_saxpy (memcmp)", n);

    /* Unbound: cf_saxpy runs on CAIRN's own stream, so the poison must be done before the call. */
    poison(b, b.out_cairn, n);
    CK(cudaStreamSynchronize(b.s));
    set_binding(b.s, false);
    cf_saxpy(n, b.out_cairn, b.x, b.y, kA);
    copy_out(b, hgot, b.out_cairn);
    report_check(same_bits(hgot, hhand, n, "cf_saxpy vs hand"), "cf_saxpy == hand_saxpy (memcmp)", n);

    /* Bound: the poison is queued on our stream and not waited for, so the output is right only if
     * cf_saxpy's work is ordered after what we queued there. */
    poison(b, b.out_cairn, n);
    set_binding(b.s, true);
    cf_saxpy(n, b.out_cairn, b.x, b.y, kA);
    check_bound_finished(b, "bound cf_saxpy finished on return");
    set_binding(b.s, false);
    copy_out(b, hgot, b.out_cairn);
    report_check(same_bits(hgot, hhand, n, "bound cf_saxpy vs hand"), "bound cf_saxpy == hand_saxpy (memcmp)", n);

    /* The sum. Exact in double for these inputs (see the top of the file). */
    double exact = 0.0, abs_sum = 0.0;
    for (size_t i = 0; i < n; i++) {
        exact += (double)hx[i];
        abs_sum += std::fabs((double)hx[i]);
    }
    dref.exact = exact;
    std::printf("# sum condition number sum|x|/|sum x| = %.3g (how much cancellation the inputs hold)\n",
                abs_sum / std::fabs(exact));

    poison(b, b.total, 1);
    CK(cudaStreamSynchronize(b.s));
    set_binding(b.s, false);
    cf_dsum(n, b.x, b.total);
    float cairn = read_total(b, b.total);
    dref.first_cairn = cairn;
    check_dsum(b, cairn, dref, "cf_dsum within 1e-5 of double sum");

    poison(b, b.total, 1);
    set_binding(b.s, true);
    cf_dsum(n, b.x, b.total);
    check_bound_finished(b, "bound cf_dsum finished on return");
    set_binding(b.s, false);
    float bound = read_total(b, b.total);
    check_dsum(b, bound, dref, "bound cf_dsum within 1e-5 of double sum");

    poison(b, b.cub_total, 1);
    CK(cub::DeviceReduce::Sum(b.cub_temp, b.cub_temp_bytes, b.x, b.cub_total, (int)n, b.s));
    float cub = read_total(b, b.cub_total);
    std::printf("# sums n=%zu: host double %.17g | cairn %.9g (rel %.3g) | cub %.9g (rel %.3g) | cairn bits %s on the bound call\n",
                n, exact, (double)cairn, std::fabs((double)cairn - exact) / std::fabs(exact), (double)cub,
                std::fabs((double)cub - exact) / std::fabs(exact), std::memcmp(&cairn, &bound, 4) == 0 ? "same" : "DIFFERENT");
}

/* The scan and the compaction's host references, and the host copies their checks read into. */
struct IntHost {
    std::vector<int32_t> x;    /* the i32 input */
    std::vector<int32_t> scan; /* the host prefix loop */
    std::vector<int32_t> kept; /* the host loop's x[i] > 0, in index order */
    std::vector<int32_t> cub;  /* CUB's scan, copied back */
    std::vector<int32_t> got;  /* an output under check */
};

/* CAIRN's scan output against CUB's and the host loop's, exactly. */
static void check_scan(const Bufs &b, IntHost &h, const char *what) {
    copy_out_i32(b, h.got.data(), b.scan_cairn);
    bool vs_cub = same_i32(h.got.data(), h.cub.data(), b.n, what);
    bool vs_host = same_i32(h.got.data(), h.scan.data(), b.n, what);
    report_check(vs_cub && vs_host, what, b.n);
}

/* A compaction's count and kept values against the host loop's, exactly, and the poison past
 * the count untouched. */
static void check_compact(const Bufs &b, IntHost &h, size_t count, const int32_t *dev_out, const char *what) {
    copy_out_i32(b, h.got.data(), dev_out);
    bool ok = count == b.kept;
    if (!ok) std::printf("# %s: count %zu, the host loop's %zu\n", what, count, b.kept);
    ok = same_i32(h.got.data(), h.kept.data(), std::min(count, b.kept), what) && ok;
    ok = poison_intact(h.got.data(), b.kept, b.n, what) && ok;
    report_check(ok, what, b.n);
}

static void correctness_int(Bufs &b, IntHost &h) {
    const size_t n = b.n;

    /* The host prefix loop, in 64 bits: every prefix must fit i32, or CAIRN's checked + would trap
     * (and the comparison with CUB's wrapping sum would mean nothing). */
    int64_t run = 0, widest = 0;
    bool fits = true;
    h.kept.clear();
    for (size_t i = 0; i < n; i++) {
        run += h.x[i];
        if (run > INT32_MAX || run < INT32_MIN) fits = false;
        widest = std::max<int64_t>(widest, run < 0 ? -run : run);
        h.scan[i] = (int32_t)run;
        if (KeepPositive()(h.x[i])) h.kept.push_back(h.x[i]);
    }
    b.kept = h.kept.size();
    std::printf("# scan n=%zu: total %lld, largest |prefix| %lld | compact: %zu of %zu kept (%.4f)\n", n,
                (long long)run, (long long)widest, b.kept, n, (double)b.kept / (double)n);
    report_check(fits, "scan input: every prefix fits i32", n);

    /* CUB: the anchors must be right themselves. */
    poison_i32(b, b.scan_cub, n);
    CK(cub::DeviceScan::InclusiveSum(b.scan_temp, b.scan_temp_bytes, b.xi, b.scan_cub, (int)n, b.s));
    copy_out_i32(b, h.cub.data(), b.scan_cub);
    report_check(same_i32(h.cub.data(), h.scan.data(), n, "cub scan vs host"), "cub scan == host prefix loop", n);

    poison_i32(b, b.sel_cub, n);
    CK(cudaMemsetAsync(b.sel_cub_count, kPoisonByte, sizeof(int), b.s));
    CK(cub::DeviceSelect::If(b.sel_temp, b.sel_temp_bytes, b.xi, b.sel_cub, b.sel_cub_count, (int)n, KeepPositive(), b.s));
    int cub_count = read_count(b, b.sel_cub_count);
    check_compact(b, h, cub_count < 0 ? SIZE_MAX : (size_t)cub_count, b.sel_cub, "cub select == host loop");

    /* Unbound: CAIRN's own stream, so the poison is done before the call. */
    poison_i32(b, b.scan_cairn, n);
    CK(cudaStreamSynchronize(b.s));
    set_binding(b.s, false);
    cf_dscan(n, b.xi, b.scan_cairn);
    check_scan(b, h, "cf_dscan == cub scan == host (exact)");

    /* Bound: the poison is queued on our stream and not waited for. */
    poison_i32(b, b.scan_cairn, n);
    set_binding(b.s, true);
    cf_dscan(n, b.xi, b.scan_cairn);
    check_bound_finished(b, "bound cf_dscan finished on return");
    set_binding(b.s, false);
    check_scan(b, h, "bound cf_dscan == cub scan == host (exact)");

    poison_i32(b, b.sel_cairn, n);
    CK(cudaStreamSynchronize(b.s));
    set_binding(b.s, false);
    size_t k = cf_dcompact(n, b.xi, b.sel_cairn);
    check_compact(b, h, k, b.sel_cairn, "cf_dcompact == host loop");

    poison_i32(b, b.sel_cairn, n);
    set_binding(b.s, true);
    k = cf_dcompact(n, b.xi, b.sel_cairn);
    check_bound_finished(b, "bound cf_dcompact finished on return");
    set_binding(b.s, false);
    check_compact(b, h, k, b.sel_cairn, "bound cf_dcompact == host loop");
    b.cairn_kept = k;
}

static void time_large(const Bufs &b, int reps, int min_warmup) {
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    std::vector<double> ev[OP_COUNT], wall[OP_COUNT];

    /* Warm-up rounds are the same rounds, not recorded: module loads, CUB's first call, CAIRN's
     * context and arena, and the clocks rising from idle all happen here. At least min_warmup
     * rounds and a quarter of a second. */
    double warm_until = now_ms() + 250.0;
    int warm = 0, timed = 0;
    for (int round = 0;; round++) {
        bool record = warm >= min_warmup && now_ms() >= warm_until;
        if (record && timed == reps) break;
        for (int k = 0; k < OP_COUNT; k++) {
            int op = (k + round) % OP_COUNT; /* rotate the starting variant every round */
            const OpInfo &o = kOps[op];
            set_binding(b.s, o.bound);
            if (has_events(o)) {
                CK(cudaEventRecord(e0, b.s));
                run_op(b, op);
                CK(cudaEventRecord(e1, b.s));
                CK(cudaEventSynchronize(e1));
                CK(cudaGetLastError());
                float ms;
                CK(cudaEventElapsedTime(&ms, e0, e1));
                if (record) ev[op].push_back(ms);
            }
            double t0 = now_ms();
            run_op(b, op);
            if (!o.cf_entry) CK(cudaStreamSynchronize(b.s));
            double t1 = now_ms();
            CK(cudaGetLastError());
            if (record) wall[op].push_back(t1 - t0);
        }
        if (record) timed++;
        else warm++;
    }
    set_binding(b.s, false);

    for (int op = 0; op < OP_COUNT; op++) {
        const OpInfo &o = kOps[op];
        double bytes = (double)o.bytes_per_elem * (double)b.n + (double)o.bytes_per_kept * (double)b.kept;
        std::string anchor = o.anchor ? o.anchor : "";
        if (has_events(o)) g_rows.push_back(Row{o.name, b.n, bytes, anchor, ev[op]});
        g_rows.push_back(Row{std::string(o.name) + "_wall", b.n, bytes, anchor.empty() ? "" : anchor + "_wall", wall[op]});
    }
    std::printf("# n=%zu: %d warm-up rounds, %d timed rounds of %d variants\n", b.n, warm, reps, (int)OP_COUNT);
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
}

/* Runs checks and timings at one size. Returns false when the GPU lacks the memory for it. */
static bool run_size(cudaStream_t s, int log2n, uint64_t seed, int reps, int warmup) {
    const size_t n = (size_t)1 << log2n;
    if (n > (size_t)INT_MAX) {
        std::fprintf(stderr, "bench_dev: 2^%d elements is past CUB's int item count here\n", log2n);
        std::exit(2);
    }
    Bufs b{};
    b.s = s;
    b.n = n;
    CK(cub::DeviceReduce::Sum(nullptr, b.cub_temp_bytes, (const float *)nullptr, (float *)nullptr, (int)n, s));
    CK(cub::DeviceScan::InclusiveSum(nullptr, b.scan_temp_bytes, (const int32_t *)nullptr, (int32_t *)nullptr, (int)n, s));
    CK(cub::DeviceSelect::If(nullptr, b.sel_temp_bytes, (const int32_t *)nullptr, (int32_t *)nullptr, (int *)nullptr,
                             (int)n, KeepPositive(), s));

    /* Five f32 arrays (x, y, two saxpy outputs, the copy's destination) and five i32 (the scan and
     * compaction input, CUB's and CAIRN's scan and compaction outputs): 40 bytes an element, 10 GiB
     * at 2^28. The 64 MiB margin covers CAIRN's arena, whose partials are a few KiB. */
    size_t need = 5 * n * sizeof(float) + 5 * n * sizeof(int32_t) + b.cub_temp_bytes + b.scan_temp_bytes +
                  b.sel_temp_bytes + (64u << 20),
           free_b, total_b;
    CK(cudaMemGetInfo(&free_b, &total_b));
    if (need > free_b) {
        std::printf("# n=2^%d needs %.2f GiB of device memory, %.2f GiB free: skipped\n", log2n, need / 1073741824.0,
                    free_b / 1073741824.0);
        return false;
    }
    CK(cudaMalloc(&b.x, n * sizeof(float)));
    CK(cudaMalloc(&b.y, n * sizeof(float)));
    CK(cudaMalloc(&b.out_hand, n * sizeof(float)));
    CK(cudaMalloc(&b.out_cairn, n * sizeof(float)));
    CK(cudaMalloc(&b.copy_dst, n * sizeof(float)));
    CK(cudaMalloc(&b.total, sizeof(float)));
    CK(cudaMalloc(&b.cub_total, sizeof(float)));
    CK(cudaMalloc(&b.cub_temp, std::max<size_t>(b.cub_temp_bytes, 1)));
    CK(cudaMalloc(&b.xi, n * sizeof(int32_t)));
    CK(cudaMalloc(&b.scan_cub, n * sizeof(int32_t)));
    CK(cudaMalloc(&b.scan_cairn, n * sizeof(int32_t)));
    CK(cudaMalloc(&b.sel_cub, n * sizeof(int32_t)));
    CK(cudaMalloc(&b.sel_cairn, n * sizeof(int32_t)));
    CK(cudaMalloc(&b.sel_cub_count, sizeof(int)));
    CK(cudaMallocHost(&b.sel_cub_count_host, sizeof(int)));
    *b.sel_cub_count_host = -1;
    CK(cudaMalloc(&b.scan_temp, std::max<size_t>(b.scan_temp_bytes, 1)));
    CK(cudaMalloc(&b.sel_temp, std::max<size_t>(b.sel_temp_bytes, 1)));

    std::vector<float> hx(n), hy(n), href(n), hgot(n), hhand(n);
    uint64_t sx = seed ^ (0x100ULL + (uint64_t)log2n), sy = seed ^ (0x200ULL + (uint64_t)log2n);
    fill_random(hx.data(), n, sx);
    fill_random(hy.data(), n, sy);
    CK(cudaMemcpy(b.x, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(b.y, hy.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    std::printf("# n=2^%d=%zu: a=%.9g, x seed 0x%llx, y seed 0x%llx, cub temp %zu bytes\n", log2n, n, (double)kA,
                (unsigned long long)sx, (unsigned long long)sy, b.cub_temp_bytes);

    IntHost ih;
    ih.x.resize(n);
    ih.scan.resize(n);
    ih.cub.resize(n);
    ih.got.resize(n);
    ih.kept.reserve(n / 2 + n / 16);
    uint64_t si = seed ^ (0x500ULL + (uint64_t)log2n);
    fill_small(ih.x.data(), n, si);
    CK(cudaMemcpy(b.xi, ih.x.data(), n * sizeof(int32_t), cudaMemcpyHostToDevice));
    std::printf("# n=2^%d: i32 input in [-8, 8], seed 0x%llx, cub scan temp %zu bytes, cub select temp %zu bytes\n",
                log2n, (unsigned long long)si, b.scan_temp_bytes, b.sel_temp_bytes);

    DsumReference dref{};
    std::printf("# n=%zu: checking\n", n);
    correctness(b, hx.data(), hy.data(), href.data(), hgot.data(), hhand.data(), dref);
    correctness_int(b, ih);

    std::printf("# n=%zu: timing\n", n);
    time_large(b, reps, warmup);

    /* After hundreds of calls: the last outputs must still be right, and the same. */
    copy_out(b, hgot.data(), b.out_cairn);
    report_check(same_bits(hgot.data(), hhand.data(), n, "saxpy after timing"), "cairn saxpy == hand after timing", n);
    float last = read_total(b, b.total);
    check_dsum(b, last, dref, "cf_dsum after timing");
    std::printf("# cf_dsum n=%zu: the last timed call's total has %s bits as the first call's\n", n,
                std::memcmp(&last, &dref.first_cairn, 4) == 0 ? "the same" : "DIFFERENT");
    check_scan(b, ih, "cf_dscan == cub == host after timing");
    copy_out_i32(b, ih.got.data(), b.scan_cub);
    report_check(same_i32(ih.got.data(), ih.scan.data(), n, "cub scan after timing"), "cub scan == host after timing", n);
    check_compact(b, ih, b.cairn_kept, b.sel_cairn, "cf_dcompact == host after timing");
    int cub_count = read_count(b, b.sel_cub_count);
    check_compact(b, ih, cub_count < 0 ? SIZE_MAX : (size_t)cub_count, b.sel_cub, "cub select == host after timing");
    report_check(*b.sel_cub_count_host == cub_count, "cub select count copied to the host", n);

    CK(cudaFree(b.x));
    CK(cudaFree(b.y));
    CK(cudaFree(b.out_hand));
    CK(cudaFree(b.out_cairn));
    CK(cudaFree(b.copy_dst));
    CK(cudaFree(b.total));
    CK(cudaFree(b.cub_total));
    CK(cudaFree(b.cub_temp));
    CK(cudaFree(b.xi));
    CK(cudaFree(b.scan_cub));
    CK(cudaFree(b.scan_cairn));
    CK(cudaFree(b.sel_cub));
    CK(cudaFree(b.sel_cairn));
    CK(cudaFree(b.sel_cub_count));
    CK(cudaFreeHost(b.sel_cub_count_host));
    CK(cudaFree(b.scan_temp));
    CK(cudaFree(b.sel_temp));
    return true;
}

/* ------------------------------------------------------------------ call costs */

enum CallOp {
    CALL_EMPTY, CALL_EMPTY_SYNC, CALL_HAND, CALL_HAND_SYNC, CALL_CQ, CALL_CQ_SYNC, CALL_CF, CALL_COUNT
};
struct CallInfo {
    const char *name;
    size_t n;
    const char *anchor;
};
static const CallInfo kCalls[CALL_COUNT] = {
    {"empty_launch", 0, nullptr},
    {"empty_launch_sync", 0, nullptr},
    {"hand_saxpy_call", 1024, nullptr},
    {"hand_saxpy_call_sync", 1024, nullptr},
    {"cairn_cq_saxpy_call", 1024, "hand_saxpy_call"},
    {"cairn_cq_saxpy_call_sync", 1024, "hand_saxpy_call_sync"},
    {"cairn_cf_saxpy_call", 1024, "hand_saxpy_call_sync"},
};

/* Host time of single calls: each call timed alone, in batches of 100 with an untimed wait
 * after each batch so the launch queue never fills (a full queue makes launches block, which
 * would be measured as launch cost). Batches of the variants alternate, for the same reason the
 * large variants run round-robin. */
static void time_calls(cudaStream_t s, int call_reps, uint64_t seed) {
    const size_t n = 1024;
    float *x, *y, *out;
    CK(cudaMalloc(&x, n * sizeof(float)));
    CK(cudaMalloc(&y, n * sizeof(float)));
    CK(cudaMalloc(&out, n * sizeof(float)));
    std::vector<float> h(n);
    fill_random(h.data(), n, seed ^ 0x300ULL);
    CK(cudaMemcpy(x, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    fill_random(h.data(), n, seed ^ 0x400ULL);
    CK(cudaMemcpy(y, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    set_binding(s, false);
    std::printf("# call costs at n=%zu: timing\n", n);

    const int batch = 100;
    const int warm_batches = 3;
    int batches = (call_reps + batch - 1) / batch;
    std::vector<double> t[CALL_COUNT];
    for (int bi = 0; bi < warm_batches + batches; bi++) {
        for (int c = 0; c < CALL_COUNT; c++) {
            for (int k = 0; k < batch; k++) {
                double t0 = now_ms();
                switch (c) {
                case CALL_EMPTY: empty_kernel<<<1, 32, 0, s>>>(); CK(cudaGetLastError()); break;
                case CALL_EMPTY_SYNC:
                    empty_kernel<<<1, 32, 0, s>>>();
                    CK(cudaGetLastError());
                    CK(cudaStreamSynchronize(s));
                    break;
                case CALL_HAND: hand_saxpy(s, n, out, x, y, kA); break;
                case CALL_HAND_SYNC:
                    hand_saxpy(s, n, out, x, y, kA);
                    CK(cudaStreamSynchronize(s));
                    break;
                case CALL_CQ: cq_saxpy((void *)s, n, out, x, y, kA); break;
                case CALL_CQ_SYNC:
                    cq_saxpy((void *)s, n, out, x, y, kA);
                    CK(cudaStreamSynchronize(s));
                    break;
                case CALL_CF: cf_saxpy(n, out, x, y, kA); break;
                }
                double t1 = now_ms();
                if (bi >= warm_batches) t[c].push_back(t1 - t0);
            }
            CK(cudaStreamSynchronize(s));
            CK(cudaGetLastError());
        }
    }
    for (int c = 0; c < CALL_COUNT; c++)
        g_rows.push_back(Row{kCalls[c].name, kCalls[c].n, 0.0, kCalls[c].anchor ? kCalls[c].anchor : "", t[c]});
    std::printf("# call costs: %d warm-up batches, %d timed batches of %d calls per variant (host time per call)\n",
                warm_batches, batches, batch);
    CK(cudaFree(x));
    CK(cudaFree(y));
    CK(cudaFree(out));
}

/* ------------------------------------------------------------------ output */

static void print_table() {
    std::printf("# anchors (ratio_vs_anchor = median / the anchor's median at the same n):\n");
    std::vector<std::string> said;
    for (const Row &r : g_rows)
        if (!r.anchor.empty() && std::find(said.begin(), said.end(), r.name) == said.end()) {
            std::printf("# anchor %s = %s\n", r.name.c_str(), r.anchor.c_str());
            said.push_back(r.name);
        }
    std::printf("# name n median_ms p10_ms p90_ms GB_per_s ratio_vs_anchor frac_of_copy_bw\n");
    for (const Row &r : g_rows) {
        Stats st = summarize(r.ms);
        char gbs[32] = "-", ratio[32] = "-", frac[32] = "-";
        double gb = r.bytes > 0 ? r.bytes / (st.median * 1e-3) / 1e9 : 0.0;
        if (r.bytes > 0) std::snprintf(gbs, sizeof gbs, "%.1f", gb);
        if (const Row *a = r.anchor.empty() ? nullptr : find_row(r.anchor, r.n))
            std::snprintf(ratio, sizeof ratio, "%.4f", st.median / summarize(a->ms).median);
        const Row *copy = find_row("copy_d2d", r.n);
        if (r.bytes > 0 && copy) {
            double copy_gb = copy->bytes / (summarize(copy->ms).median * 1e-3) / 1e9;
            std::snprintf(frac, sizeof frac, "%.4f", gb / copy_gb);
        }
        std::printf("%s %zu %.6f %.6f %.6f %s %s %s\n", r.name.c_str(), r.n, st.median, st.p10, st.p90, gbs, ratio, frac);
    }
}

/* ------------------------------------------------------------------ main */

static void usage(const char *argv0) {
    std::fprintf(stderr,
                 "usage: %s [--reps R] [--call-reps C] [--log2 A,B,...] [--seed S]\n"
                 "  --reps R       timed rounds per large size (default 100; each variant once a round)\n"
                 "  --call-reps C  timed calls per call-cost variant (default 2000)\n"
                 "  --log2 A,B     sizes as powers of two, 10 to 29 (default 26,28)\n"
                 "  --seed S       input seed (default fixed, 0x5eedcafe)\n",
                 argv0);
    std::exit(2);
}

int main(int argc, char **argv) {
    int reps = 100, call_reps = 2000, warmup = 5;
    uint64_t seed = 0x5eedcafeULL;
    std::vector<int> sizes = {26, 28};
    /* Line-buffered even into a log file: if a CAIRN guard aborts the process, every line printed
     * before it must already be out. */
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        if (i + 1 >= argc) usage(argv[0]);
        const char *v = argv[++i];
        if (a == "--reps") reps = std::atoi(v);
        else if (a == "--call-reps") call_reps = std::atoi(v);
        else if (a == "--seed") seed = std::strtoull(v, nullptr, 0);
        else if (a == "--log2") {
            sizes.clear();
            for (const char *p = v; *p;) {
                char *end;
                long k = std::strtol(p, &end, 10);
                if (end == p || k < 10 || k > 29) usage(argv[0]); /* 2^29: the host sum stays exact */
                sizes.push_back((int)k);
                p = *end == ',' ? end + 1 : end;
            }
        } else usage(argv[0]);
    }
    if (reps < 1 || call_reps < 1 || sizes.empty()) usage(argv[0]);

    bool stand_in = &cairn_bench_stand_in_kernels != nullptr && cairn_bench_stand_in_kernels();
    if (stand_in)
        std::printf("# STAND-IN: linked with bench/dev/fake_kernels.cu, hand CUDA posing as CAIRN: NOT EVIDENCE\n");
#ifdef CAIRN_BENCH_FAKE_HEADER
    std::printf("# header: the stand-in's (bench/dev/fake/kernels.h)\n");
#else
    std::printf("# header: generated kernels.h\n");
#endif

    /* Before anything else touches the runtime: with no GPU (or no driver) every later call
     * would fail with a less helpful message. */
    int devices = 0;
    cudaError_t e = cudaGetDeviceCount(&devices);
    if (e != cudaSuccess || devices == 0) {
        std::fprintf(stderr, "bench_dev: no CUDA GPU present (cudaGetDeviceCount: %s): nothing to measure\n",
                     e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
        return 3;
    }
    CK(cudaSetDevice(0));
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, 0));
    int driver = 0, runtime = 0;
    CK(cudaDriverGetVersion(&driver));
    CK(cudaRuntimeGetVersion(&runtime));
    std::printf("# device 0 of %d: %s, compute capability %d.%d, %d SMs, L2 %.1f MB, %.1f GiB, driver %d, runtime %d\n",
                devices, p.name, p.major, p.minor, p.multiProcessorCount, p.l2CacheSize / 1e6,
                p.totalGlobalMem / 1073741824.0, driver, runtime);

    /* A binary without code for this GPU fails at the first launch; say so plainly instead. */
    cudaFuncAttributes fa;
    e = cudaFuncGetAttributes(&fa, hand_saxpy_kernel);
    if (e != cudaSuccess) {
        std::fprintf(stderr, "bench_dev: no code for this GPU (compute capability %d.%d) in this binary: %s; "
                             "rebuild for its target (ARCH=sm_%d%d bash bench/dev/run.sh)\n",
                     p.major, p.minor, cudaGetErrorString(e), p.major, p.minor);
        return 3;
    }
    int per_sm = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, hand_saxpy_kernel, kThreads, 0));
    g_full_grid = per_sm * p.multiProcessorCount;
    std::printf("# hand_saxpy: %d registers, %d blocks of %d threads per SM, grid up to %d blocks\n", fa.numRegs, per_sm,
                kThreads, g_full_grid);
    std::printf("# reps %d rounds, call reps %d, seed 0x%llx\n", reps, call_reps, (unsigned long long)seed);

    /* Non-blocking, so the legacy default stream (which cudaMemcpy and friends use) never
     * serializes against it behind our back. */
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    int measured = 0;
    for (int log2n : sizes)
        if (run_size(s, log2n, seed, reps, warmup)) measured++;
    if (measured == 0) {
        std::fprintf(stderr, "bench_dev: the GPU has too little free memory for any size asked\n");
        return 3;
    }
    time_calls(s, call_reps, seed);

    print_table();
    CK(cudaStreamDestroy(s));
    if (g_failures)
        std::printf("# RESULT: FAIL (%d checks failed)%s\n", g_failures, stand_in ? " [STAND-IN]" : "");
    else
        std::printf("# RESULT: PASS%s\n", stand_in ? " [STAND-IN: not evidence]" : "");
    return g_failures ? 1 : 0;
}
