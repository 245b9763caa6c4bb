// tests/device/math_agree.cu: the portable std.math functions (runtime/cairn_math.h) give the same
// bits on the device as on the host. Built by tests/device/run.sh with nvcc --fmad=false, as cairn
// builds device code.
//
//   f32, one argument: every one of the 2^32 inputs, per function, hashed on the device and on host
//       threads (an order-free sum of 64-bit mixes of (input, result)); the two sums must be equal.
//   f32, two arguments (pow, atan2): 2^26 seeded pairs, hashed the same way.
//   f64: 2^22 seeded inputs per function (random bits, and a uniform spread over the useful range),
//       results compared bit for bit (NaNs too: every NaN result is the one quiet NaN), element by
//       element; the first differences are printed. Where an f32 hash differs, every input is
//       compared to name the first differing ones.
//   rcp.approx.ftz.f64, the GPU division's seed: its error on every high word, against the bound
//       cn_mb_div_first's analysis assumes.
// Prints one line per function and the usual `N passed, N failed, 0 skipped`.
#include "cairn_math.h"
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

__host__ __device__ static inline uint64_t mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

// The two-argument inputs: pair k, from its index alone (the same on both sides).
__host__ __device__ static inline void pair(uint64_t k, float *x, float *y)
{
    uint64_t r = mix(k * 0x9e3779b97f4a7c15ull + 1);
    uint32_t a = (uint32_t)r, b = (uint32_t)(r >> 32);
    // half the pairs: random bits; half: x in [2^-8, 2^8], y in [-64, 64] (finite, moderate results)
    if (k & 1) {
        *x = cn_mb_f32(a);
        *y = cn_mb_f32(b);
    } else {
        *x = cn_mb_f32(0x3b800000u + a % (0x43800000u - 0x3b800000u));
        *y = (float)((int32_t)(b % 4096u) - 2048) / 32.0f;
    }
}

#define F32_ONE(X) X(exp) X(exp2) X(expm1) X(log) X(log2) X(log1p) X(sin) X(cos) X(tanh) X(erf) X(atan)
#define F32_TWO(X) X(pow) X(atan2)
#define F64_ONE(X) F32_ONE(X)
#define F64_TWO(X) F32_TWO(X)

enum { NPAIRS = 1 << 26, N64 = 1 << 22 };

#define KERNEL1(F)                                                                             \
    __global__ void k32_##F(unsigned long long *sum)                                           \
    {                                                                                          \
        uint64_t h = 0, stride = (uint64_t)gridDim.x * blockDim.x;                              \
        for (uint64_t w = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; w < (1ull << 32); w += stride) \
            h += mix((w << 32) ^ cn_mb_bits32(cn_math_##F##_f32(cn_mb_f32((uint32_t)w))));     \
        atomicAdd(sum, (unsigned long long)h);                                                 \
    }                                                                                          \
    static uint64_t h32_##F(uint64_t lo, uint64_t hi)                                           \
    {                                                                                          \
        uint64_t h = 0;                                                                        \
        for (uint64_t w = lo; w < hi; w++)                                                     \
            h += mix((w << 32) ^ cn_mb_bits32(cn_math_##F##_f32(cn_mb_f32((uint32_t)w))));     \
        return h;                                                                              \
    }
#define KERNEL2(F)                                                                             \
    __global__ void k32_##F(unsigned long long *sum)                                           \
    {                                                                                          \
        uint64_t h = 0, stride = (uint64_t)gridDim.x * blockDim.x;                              \
        for (uint64_t w = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; w < NPAIRS; w += stride) { \
            float x, y;                                                                        \
            pair(w, &x, &y);                                                                   \
            h += mix((w << 32) ^ cn_mb_bits32(cn_math_##F##_f32(x, y)));                        \
        }                                                                                      \
        atomicAdd(sum, (unsigned long long)h);                                                 \
    }                                                                                          \
    static uint64_t h32_##F(uint64_t lo, uint64_t hi)                                           \
    {                                                                                          \
        uint64_t h = 0;                                                                        \
        for (uint64_t w = lo; w < hi; w++) {                                                   \
            float x, y;                                                                        \
            pair(w, &x, &y);                                                                   \
            h += mix((w << 32) ^ cn_mb_bits32(cn_math_##F##_f32(x, y)));                        \
        }                                                                                      \
        return h;                                                                              \
    }
F32_ONE(KERNEL1)

// Where two hashes differ: every input's result from the device, chunk by chunk, against the host's.
#define KDUMP(F)                                                                               \
    __global__ void kd_##F(uint64_t lo, uint32_t *out, uint64_t n)                              \
    {                                                                                          \
        for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x) \
            out[i] = cn_mb_bits32(cn_math_##F##_f32(cn_mb_f32((uint32_t)(lo + i))));           \
    }                                                                                          \
    static uint32_t hd_##F(uint32_t w) { return cn_mb_bits32(cn_math_##F##_f32(cn_mb_f32(w))); }
F32_ONE(KDUMP)
F32_TWO(KERNEL2)

#define K64_1(F)                                                                               \
    __global__ void k64_##F(const double *x, const double *, double *out, int n)               \
    {                                                                                          \
        int i = blockIdx.x * blockDim.x + threadIdx.x;                                          \
        if (i < n)                                                                             \
            out[i] = cn_math_##F##_f64(x[i]);                                                  \
    }                                                                                          \
    static double h64_##F(double x, double) { return cn_math_##F##_f64(x); }
#define K64_2(F)                                                                               \
    __global__ void k64_##F(const double *x, const double *y, double *out, int n)              \
    {                                                                                          \
        int i = blockIdx.x * blockDim.x + threadIdx.x;                                          \
        if (i < n)                                                                             \
            out[i] = cn_math_##F##_f64(x[i], y[i]);                                            \
    }                                                                                          \
    static double h64_##F(double x, double y) { return cn_math_##F##_f64(x, y); }
F64_ONE(K64_1)
F64_TWO(K64_2)

static int passed, failed;

// The seed of cn_mb_div_first and cn_mb_div_short on the GPU, rcp.approx.ftz.f64, reads only b's
// high word (sign, exponent, 20 fraction bits). Its error bound is the analyses' assumption (2^-14
// of 1/b for the first, 2^-17 for the second: the tighter is held here), so it is
// measured here for every high word of a b in [1, 2^100]: for each, both ends of the b's that share
// it, |y b - 1| with one rounding (fma), and the largest over all as an ordered 64-bit pattern.
__global__ void k_rcp64(unsigned long long *worst)
{
    uint64_t stride = (uint64_t)gridDim.x * blockDim.x, n = 100ull << 20;
    unsigned long long m = 0;
    for (uint64_t w = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; w < n; w += stride) {
        uint64_t hw = (1023ull << 20) + w;  // exponents 0 to 99, every 20-bit fraction
        double b = cn_mb_f64(hw << 32), b1 = cn_mb_f64((hw + 1) << 32), y;
        asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(y) : "d"(b));
        double e = fmax(fabs(__fma_rn(y, b, -1.0)), fabs(__fma_rn(y, b1, -1.0)));
        unsigned long long u = (unsigned long long)cn_mb_bits64(e);
        m = u > m ? u : m;
    }
    atomicMax(worst, m);
}

static void rcp64_bound(void)
{
    unsigned long long *d, worst = 0;
    cudaMalloc(&d, 8);
    cudaMemset(d, 0, 8);
    k_rcp64<<<132 * 8, 256>>>(d);
    cudaError_t e = cudaMemcpy(&worst, d, 8, cudaMemcpyDeviceToHost);
    cudaFree(d);
    double w = cn_mb_f64(worst);
    bool ok = e == cudaSuccess && w <= 0x1p-17;
    printf("%s rcp64: rcp.approx.ftz.f64 on every high word of b in [1, 2^100): |y b - 1| <= %a "
           "(2^%.2f), the bound assumed 2^-17%s%s\n", ok ? "PASS" : "FAIL", w, log2(w),
           e == cudaSuccess ? "" : ": ", e == cudaSuccess ? "" : cudaGetErrorString(e));
    ok ? passed++ : failed++;
}

// Each differing input: how many, how many of them NaN on both sides, and the first few.
static void diff32(const char *name, void (*kernel)(uint64_t, uint32_t *, uint64_t), uint32_t (*h)(uint32_t))
{
    const uint64_t chunk = 1ull << 28;
    uint32_t *d;
    cudaMalloc(&d, chunk * 4);
    std::vector<uint32_t> got(chunk);
    long total = 0, nans = 0;
    int shown = 0;
    for (uint64_t lo = 0; lo < (1ull << 32); lo += chunk) {
        kernel<<<132 * 16, 256>>>(lo, d, chunk);
        cudaMemcpy(got.data(), d, chunk * 4, cudaMemcpyDeviceToHost);
        unsigned nt = std::thread::hardware_concurrency();
        std::vector<std::thread> ts;
        std::vector<long> cnt(nt, 0), cn(nt, 0);
        std::vector<uint64_t> first(nt, ~0ull);
        for (unsigned k = 0; k < nt; k++)
            ts.emplace_back([&, k] {
                for (uint64_t i = chunk * k / nt; i < chunk * (k + 1) / nt; i++) {
                    uint32_t w = h((uint32_t)(lo + i));
                    if (w != got[i]) {
                        cnt[k]++;
                        if ((w & 0x7fffffffu) > 0x7f800000u && (got[i] & 0x7fffffffu) > 0x7f800000u)
                            cn[k]++;
                        else if (first[k] == ~0ull)
                            first[k] = i;
                    }
                }
            });
        for (unsigned k = 0; k < nt; k++) {
            ts[k].join();
            total += cnt[k];
            nans += cn[k];
            if (first[k] != ~0ull && shown < 6) {
                uint32_t in = (uint32_t)(lo + first[k]);
                printf("    %s(%08x = %a): device %08x, host %08x\n", name, in, (double)cn_mb_f32(in),
                       got[first[k]], h(in));
                shown++;
            }
        }
    }
    cudaFree(d);
    printf("    %s: %ld inputs differ, %ld of them NaN on both sides (other bits)\n", name, total, nans);
}

// The host's sum over [0, total) on every core, in chunks.
static uint64_t host_hash(uint64_t (*h)(uint64_t, uint64_t), uint64_t total)
{
    unsigned nt = std::thread::hardware_concurrency();
    if (nt < 2)
        nt = 2;
    std::vector<std::thread> ts;
    std::vector<uint64_t> part(nt, 0);
    for (unsigned k = 0; k < nt; k++)
        ts.emplace_back([&, k] { part[k] = h(total * k / nt, total * (k + 1) / nt); });
    uint64_t s = 0;
    for (unsigned k = 0; k < nt; k++) {
        ts[k].join();
        s += part[k];
    }
    return s;
}

static void agree32(const char *name, void (*kernel)(unsigned long long *), uint64_t (*h)(uint64_t, uint64_t),
                    uint64_t total)
{
    unsigned long long *d, dev = 0;
    cudaMalloc(&d, 8);
    cudaMemset(d, 0, 8);
    auto t0 = std::chrono::steady_clock::now();
    kernel<<<132 * 16, 256>>>(d);
    cudaMemcpy(&dev, d, 8, cudaMemcpyDeviceToHost);
    cudaError_t e = cudaGetLastError();
    auto t1 = std::chrono::steady_clock::now();
    uint64_t host = host_hash(h, total);
    auto t2 = std::chrono::steady_clock::now();
    cudaFree(d);
    bool ok = e == cudaSuccess && dev == host;
    printf("%s f32 %s: %llu inputs, device %016llx host %016llx (device %.2f s, host %.1f s)%s%s\n",
           ok ? "PASS" : "FAIL", name, (unsigned long long)total, dev, (unsigned long long)host,
           std::chrono::duration<double>(t1 - t0).count(), std::chrono::duration<double>(t2 - t1).count(),
           e == cudaSuccess ? "" : ": ", e == cudaSuccess ? "" : cudaGetErrorString(e));
    ok ? passed++ : failed++;
}

static void agree64(const char *name, void (*kernel)(const double *, const double *, double *, int),
                    double (*h)(double, double), const std::vector<double> &x, const std::vector<double> &y)
{
    int n = (int)x.size();
    double *dx, *dy, *dout;
    cudaMalloc(&dx, n * 8);
    cudaMalloc(&dy, n * 8);
    cudaMalloc(&dout, n * 8);
    cudaMemcpy(dx, x.data(), n * 8, cudaMemcpyHostToDevice);
    cudaMemcpy(dy, y.data(), n * 8, cudaMemcpyHostToDevice);
    kernel<<<(n + 255) / 256, 256>>>(dx, dy, dout, n);
    std::vector<double> got(n);
    cudaMemcpy(got.data(), dout, n * 8, cudaMemcpyDeviceToHost);
    cudaError_t e = cudaGetLastError();
    cudaFree(dx);
    cudaFree(dy);
    cudaFree(dout);
    long bad = 0;
    for (int i = 0; i < n; i++) {
        double w = h(x[i], y[i]);
        uint64_t a, b;
        memcpy(&a, &got[i], 8);
        memcpy(&b, &w, 8);
        if (a != b) {   // bits: a NaN is the one quiet NaN on both sides
            if (bad < 3)
                printf("    %s(%a, %a): device %a, host %a\n", name, x[i], y[i], got[i], w);
            bad++;
        }
    }
    bool ok = e == cudaSuccess && bad == 0;
    printf("%s f64 %s: %d inputs, %ld differ%s%s\n", ok ? "PASS" : "FAIL", name, n, bad,
           e == cudaSuccess ? "" : ": ", e == cudaSuccess ? "" : cudaGetErrorString(e));
    ok ? passed++ : failed++;
}

int main(int argc, char **argv)
{
    const char *only = argc > 1 ? argv[1] : NULL;   // one function's name: run only it
    rcp64_bound();
#define RUN1(F) if (!only || !strcmp(only, #F)) { int f0 = failed; agree32(#F, k32_##F, h32_##F, 1ull << 32); \
        if (failed > f0) diff32(#F, kd_##F, hd_##F); }
#define RUN2(F) if (!only || !strcmp(only, #F)) agree32(#F, k32_##F, h32_##F, NPAIRS);
    F32_ONE(RUN1)
    F32_TWO(RUN2)
    std::vector<double> x(N64), y(N64);
    uint64_t s = 12345;
    for (int i = 0; i < N64; i++) {
        uint64_t a = mix(s += 0x9e3779b97f4a7c15ull), b = mix(s += 0x9e3779b97f4a7c15ull);
        double u = (double)(a >> 11) * 0x1p-53;
        if (i % 2) {
            memcpy(&x[i], &a, 8);
            memcpy(&y[i], &b, 8);
        } else {
            x[i] = (u - 0.5) * 1400.0;                       // exp's range and beyond, trig's first turns
            y[i] = (double)((int64_t)(b % 8192) - 4096) / 64.0;
        }
    }
#define RUN64(F) if (!only || !strcmp(only, #F)) agree64(#F, k64_##F, h64_##F, x, y);
    F64_ONE(RUN64)
    F64_TWO(RUN64)
    printf("%d passed, %d failed, 0 skipped\n", passed, failed);
    return failed != 0;
}
