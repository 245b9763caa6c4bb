// math_bench.cu: std.math in cairn's device lanes against CUDA's expf, logf and tanhf (issue 14).
//
//   map   y[i] = f(x[i]) over 2^28 f32: cq_mexp / cq_mlog / cq_mtanh (cairn, the portable
//         functions) against a hand grid-stride kernel calling CUDA's expf / logf / tanhf (as nvcc
//         compiles them by default, no fast math). Memory-bound: 2 GiB moved per call.
//   loop  K = 64 dependent calls per element over 2^24 f32 (cq_lexp / cq_llog / cq_ltanh against the
//         same loops by hand): what each call costs when it is not hidden behind memory.
// Timing: CUDA events around each call on one stream, 5 warm-ups, then REPS timed calls, the median.
// Inputs are pseudo-random (a hash of the index) over each function's useful range. Checks: cairn's
// results are within 2 ulp of CUDA's on the maps (CUDA's are within 2 ulp of the exact value; ours
// are correctly rounded), and the loops agree within a relative 1e-3.
#include "math_kernels.h"
#include "timing.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

// x[i] uniform-ish in [lo, hi) from a hash of i.
__global__ void fill(float *x, size_t n, float lo, float hi)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        unsigned h = (unsigned)(i * 2654435761u) ^ (unsigned)(i >> 13);
        h ^= h >> 15;
        h *= 2246822519u;
        h ^= h >> 13;
        x[i] = lo + (hi - lo) * ((float)(h >> 8) * (1.0f / 16777216.0f));
    }
}

enum { F_EXP, F_LOG, F_TANH };

template <int F> __device__ __forceinline__ float cuda_f(float v)
{
    return F == F_EXP ? expf(v) : F == F_LOG ? logf(v) : tanhf(v);
}

template <int F> __global__ void hand_map(const float *x, float *y, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        y[i] = cuda_f<F>(x[i]);
}

// The loops as math_kernels.cairn writes them.
template <int F> __global__ void hand_loop(const float *x, float *y, size_t n, size_t k)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        float v = x[i];
        for (size_t j = 0; j < k; j++)
            v = F == F_EXP ? expf(v) * 0.25f - 0.5f : F == F_LOG ? logf(v) + 3.0f : tanhf(v) * 1.5f + 0.25f;
        y[i] = v;
    }
}

static long ulps(float a, float b)
{
    int32_t ia, ib;
    memcpy(&ia, &a, 4);
    memcpy(&ib, &b, 4);
    if (ia < 0)
        ia = INT32_MIN - ia;
    if (ib < 0)
        ib = INT32_MIN - ib;
    return labs((long)ia - (long)ib);
}

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 30;
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    int sms;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    int failed = 0;
    size_t n = (size_t)1 << 28, nl = (size_t)1 << 24, k = 64;
    float *x, *y, *z;
    CK(cudaMalloc(&x, n * 4));
    CK(cudaMalloc(&y, n * 4));
    CK(cudaMalloc(&z, n * 4));
    const char *names[] = {"exp", "log", "tanh"};
    const float lo[] = {-87.0f, 1e-30f, -9.0f}, hi[] = {88.0f, 1e30f, 9.0f};
    const float llo[] = {-1.0f, 1.0f, -1.0f}, lhi[] = {1.0f, 20.0f, 1.0f};
    int grid = sms * 8;
    for (int f = 0; f < 3; f++) {
        fill<<<1024, 256, 0, s>>>(x, n, lo[f], hi[f]);
        float tc = median_ms(s, reps, [&] {
            f == F_EXP ? cq_mexp((void *)s, n, x, y) : f == F_LOG ? cq_mlog((void *)s, n, x, y) : cq_mtanh((void *)s, n, x, y);
        });
        float th = median_ms(s, reps, [&] {
            if (f == F_EXP) hand_map<F_EXP><<<grid, 256, 0, s>>>(x, z, n);
            else if (f == F_LOG) hand_map<F_LOG><<<grid, 256, 0, s>>>(x, z, n);
            else hand_map<F_TANH><<<grid, 256, 0, s>>>(x, z, n);
        });
        CK(cudaStreamSynchronize(s));
        std::vector<float> Y(n), Z(n);
        CK(cudaMemcpy(Y.data(), y, n * 4, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(Z.data(), z, n * 4, cudaMemcpyDeviceToHost));
        long worst = 0;
        for (size_t i = 0; i < n; i += 97)
            worst = std::max(worst, ulps(Y[i], Z[i]));
        bool ok = worst <= 2;
        failed += !ok;
        printf("%s map %s over 2^28 f32: cairn %.4f ms (%.0f GB/s), CUDA %sf %.4f ms (%.0f GB/s), ratio %.3f, "
               "largest difference %ld ulp\n", ok ? "PASS" : "FAIL", names[f], tc, n * 8.0 / tc / 1e6, names[f], th,
               n * 8.0 / th / 1e6, tc / th, worst);

        fill<<<1024, 256, 0, s>>>(x, nl, llo[f], lhi[f]);
        float lc = median_ms(s, reps, [&] {
            f == F_EXP ? cq_lexp((void *)s, nl, k, x, y) : f == F_LOG ? cq_llog((void *)s, nl, k, x, y) : cq_ltanh((void *)s, nl, k, x, y);
        });
        float lh = median_ms(s, reps, [&] {
            if (f == F_EXP) hand_loop<F_EXP><<<grid, 256, 0, s>>>(x, z, nl, k);
            else if (f == F_LOG) hand_loop<F_LOG><<<grid, 256, 0, s>>>(x, z, nl, k);
            else hand_loop<F_TANH><<<grid, 256, 0, s>>>(x, z, nl, k);
        });
        CK(cudaStreamSynchronize(s));
        CK(cudaMemcpy(Y.data(), y, nl * 4, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(Z.data(), z, nl * 4, cudaMemcpyDeviceToHost));
        double wrel = 0;
        for (size_t i = 0; i < nl; i += 31)
            wrel = std::max(wrel, fabs((double)Y[i] - (double)Z[i]) / std::max(1e-6, fabs((double)Z[i])));
        ok = wrel < 1e-3;
        failed += !ok;
        printf("%s loop %s, %zu calls per element over 2^24: cairn %.4f ms (%.2f Gcalls/s), CUDA %.4f ms "
               "(%.2f Gcalls/s), ratio %.3f\n", ok ? "PASS" : "FAIL", names[f], k, lc, nl * (double)k / lc / 1e6,
               lh, nl * (double)k / lh / 1e6, lc / lh);
    }
    CK(cudaFree(x));
    CK(cudaFree(y));
    CK(cudaFree(z));
    printf("%d failed\n", failed);
    return failed != 0;
}
