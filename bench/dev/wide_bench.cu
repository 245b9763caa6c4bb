// wide_bench.cu: cairn's wide accesses against hand CUDA and the device copy on the GPU (issue 17).
//
// The page's scaled copy (d19), out[i] = a * x[i] over n f32:
//   cairn_wide    cq_scaled: load_wide[4] / store_wide with Cache.streaming (LDG.E.EF.128, STG.E.EF.128)
//   cairn_plain   cq_scaled_plain: `parallel i in n { out[i] = a * x[i]; }`
//   hand_float4   a hand kernel, one float4 a thread through __ldcs / __stcs, grid of n / 4 / 256 blocks
//   hand_scalar   a hand kernel, one float a thread
//   copy          cudaMemcpyAsync device to device of the same bytes
// Timing: CUDA events around each call on one stream, 5 warm-up calls, REPS timed calls (argv[1],
// default 30), the median; GB/s counts the bytes read and written (8 n). Input: a hash of the index,
// never zeros. Checks: every version's output equals a * x bit for bit (computed on the host from the
// same hash), outputs poisoned before each check. Size: argv[2] = log2 n (default 28).
#include "wide_kernels.h"
#include "timing.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

static __host__ __device__ float value(size_t i)
{
    unsigned h = (unsigned)(i * 2654435761u) ^ (unsigned)(i >> 13);
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    return (float)(h & 0xffffff) / 16777216.0f - 0.5f;
}

__global__ void fill(float *x, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        x[i] = value(i);
}

__global__ void hand_float4(float4 *out, const float4 *x, size_t m, float a)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < m) {
        float4 v = __ldcs(x + i);
        __stcs(out + i, make_float4(a * v.x, a * v.y, a * v.z, a * v.w));
    }
}

__global__ void hand_scalar(float *out, const float *x, size_t n, float a)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = a * x[i];
}

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 30;
    int lg = argc > 2 ? atoi(argv[2]) : 28;
    size_t n = (size_t)1 << lg, m = n / 4;
    const float a = 1.75f;
    int dev_count = 0;
    if (cudaGetDeviceCount(&dev_count) != cudaSuccess || dev_count == 0) {
        fprintf(stderr, "wide_bench: no usable GPU\n");
        return 3;
    }
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    float *x, *out;
    CK(cudaMalloc(&x, n * 4));
    CK(cudaMalloc(&out, n * 4));
    fill<<<1024, 256, 0, s>>>(x, n);
    CK(cudaGetLastError());
    std::vector<float> got(n);
    unsigned blocks4 = (unsigned)((m + 255) / 256), blocks1 = (unsigned)((n + 255) / 256);
    const char *names[] = {"cairn_wide", "cairn_plain", "hand_float4", "hand_scalar", "copy"};
    auto run = [&](int v) {
        switch (v) {
        case 0: cq_scaled((void *)s, m, n, out, x, a); break;
        case 1: cq_scaled_plain((void *)s, n, out, x, a); break;
        case 2: hand_float4<<<blocks4, 256, 0, s>>>((float4 *)out, (const float4 *)x, m, a); break;
        case 3: hand_scalar<<<blocks1, 256, 0, s>>>(out, x, n, a); break;
        default: CK(cudaMemcpyAsync(out, x, n * 4, cudaMemcpyDeviceToDevice, s)); break;
        }
    };
    float ms[5];
    int bad = 0;
    for (int v = 0; v < 5; v++) {
        CK(cudaMemsetAsync(out, 0xa5, n * 4, s));
        run(v);
        CK(cudaGetLastError());
        CK(cudaMemcpyAsync(got.data(), out, n * 4, cudaMemcpyDeviceToHost, s));
        CK(cudaStreamSynchronize(s));
        size_t wrong = 0;
        for (size_t i = 0; i < n; i++)
            wrong += got[i] != (v == 4 ? value(i) : a * value(i));
        if (wrong) {
            printf("# check %s: %zu of %zu wrong\n", names[v], wrong, n);
            bad = 1;
        }
        ms[v] = median_ms(s, reps, [&] { run(v); });
    }
    printf("# n = 2^%d f32\n%-12s %10s %10s %10s %10s\n", lg, "version", "ms", "GB/s", "vs copy", "vs float4");
    for (int v = 0; v < 5; v++)
        printf("%-12s %10.4f %10.1f %10.3f %10.3f\n", names[v], ms[v], 8.0 * n / ms[v] / 1e6, ms[4] / ms[v], ms[v] / ms[2]);
    printf("RESULT cairn_wide/hand_float4 %.3f copy_bandwidth_share %.3f plain_share %.3f\n", ms[0] / ms[2],
           ms[4] / ms[0], ms[4] / ms[1]);
    CK(cudaFree(x));
    CK(cudaFree(out));
    return bad;
}
