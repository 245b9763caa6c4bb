// wide_bench.cu: cairn's wide accesses against hand CUDA and the device copy on the GPU (issue 17).
//
// The page's scaled copy (d19), out[i] = a * x[i] over n f32:
//   cairn_wide    cq_scaled: load_wide[4] / store_wide with Cache.streaming (LDG.E.EF.128, STG.E.EF.128)
//   cairn_plain   cq_scaled_plain: `parallel i in n { out[i] = a * x[i]; }`
//   hand_float4   a hand kernel, one float4 a thread through __ldcs / __stcs, grid of n / 4 / 256 blocks
//   hand_scalar   a hand kernel, one float a thread
//   cairn_one     cq_scaled_one: the same plain lanes with `plan { vector 1; }`, one lane a thread (the
//                 lowering before wide lanes)
//   copy          cudaMemcpyAsync device to device of the same bytes
// and saxpy, out[i] = a * x[i] + y[i] (12 bytes an element):
//   saxpy_cairn   cq_saxpy, plain lanes (wide by default)
//   saxpy_one     cq_saxpy_one, `vector 1`
//   saxpy_float4  a hand kernel, one float4 of each view a thread
//   saxpy_scalar  a hand kernel, one element a thread
// A view one element past an aligned pointer (cq_scaled_plain and cq_saxpy on x + 1, y + 1, out + 1)
// must take the lanes-one-at-a-time path and still be right: checked, not timed.
// Timing: CUDA events around each call on one stream, 5 warm-up calls, REPS timed calls (argv[1],
// default 30), the median; GB/s counts the bytes read and written (8 n). Input: a hash of the index,
// never zeros. Checks: every version's output equals a * x bit for bit (computed on the host from the
// same hash), outputs poisoned before each check. Size: argv[2] = log2 n (default 28).
#include "wide_kernels.h"
#include "timing.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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

__global__ void saxpy_float4(float4 *out, const float4 *x, const float4 *y, size_t m, float a)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < m) {
        float4 v = x[i], w = y[i];
        /* rounded twice, as CAIRN's a * x + y is (nvcc would contract a * v + w into one fma) */
        out[i] = make_float4(__fadd_rn(__fmul_rn(a, v.x), w.x), __fadd_rn(__fmul_rn(a, v.y), w.y),
                             __fadd_rn(__fmul_rn(a, v.z), w.z), __fadd_rn(__fmul_rn(a, v.w), w.w));
    }
}

__global__ void saxpy_scalar(float *out, const float *x, const float *y, size_t n, float a)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = __fadd_rn(__fmul_rn(a, x[i]), y[i]);
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
    float *x, *y, *out;
    CK(cudaMalloc(&x, n * 4));
    CK(cudaMalloc(&y, n * 4));
    CK(cudaMalloc(&out, n * 4));
    fill<<<1024, 256, 0, s>>>(x, n);
    fill<<<1024, 256, 0, s>>>(y, n);   /* y[i] = value(i) too: a * x + y is still exact to check */
    CK(cudaGetLastError());
    std::vector<float> got(n);
    unsigned blocks4 = (unsigned)((m + 255) / 256), blocks1 = (unsigned)((n + 255) / 256);
    enum { V = 10 };
    const char *names[V] = {"cairn_wide", "cairn_plain", "cairn_one", "hand_float4", "hand_scalar", "copy",
                            "saxpy_cairn", "saxpy_one", "saxpy_float4", "saxpy_scalar"};
    auto run = [&](int v) {
        switch (v) {
        case 0: cq_scaled((void *)s, m, n, out, x, a); break;
        case 1: cq_scaled_plain((void *)s, n, out, x, a); break;
        case 2: cq_scaled_one((void *)s, n, out, x, a); break;
        case 3: hand_float4<<<blocks4, 256, 0, s>>>((float4 *)out, (const float4 *)x, m, a); break;
        case 4: hand_scalar<<<blocks1, 256, 0, s>>>(out, x, n, a); break;
        case 5: CK(cudaMemcpyAsync(out, x, n * 4, cudaMemcpyDeviceToDevice, s)); break;
        case 6: cq_saxpy((void *)s, n, out, x, y, a); break;
        case 7: cq_saxpy_one((void *)s, n, out, x, y, a); break;
        case 8: saxpy_float4<<<blocks4, 256, 0, s>>>((float4 *)out, (const float4 *)x, (const float4 *)y, m, a); break;
        default: saxpy_scalar<<<blocks1, 256, 0, s>>>(out, x, y, n, a); break;
        }
    };
    auto want = [&](int v, size_t i) {
        float t = value(i);
        return v == 5 ? t : v >= 6 ? a * t + t : a * t;
    };
    float ms[V];
    int bad = 0;
    for (int v = 0; v < V; v++) {
        size_t wrong = wrong_f32(s, out, n, got, [&] { run(v); }, [&](size_t i) { return want(v, i); });
        if (wrong) {
            printf("# check %s: %zu of %zu wrong\n", names[v], wrong, n);
            bad = 1;
        }
        ms[v] = median_ms(s, reps, [&] { run(v); });
    }
    /* views one element off an aligned pointer: the lanes one at a time, and the same values */
    for (int v = 0; v < 2; v++) {
        size_t wrong = wrong_f32(
            s, out, n, got,
            [&] {
                if (v == 0)
                    cq_scaled_plain((void *)s, n - 1, out + 1, x + 1, a);
                else
                    cq_saxpy((void *)s, n - 1, out + 1, x + 1, y + 1, a);
            },
            [&](size_t i) {   /* element 0 is not written: it keeps the poison */
                float p;
                memset(&p, 0xa5, 4);
                return i == 0 ? p : v ? a * value(i) + value(i) : a * value(i);
            });
        printf("# offset view (%s on x + 1): %zu of %zu wrong\n", v ? "cq_saxpy" : "cq_scaled_plain", wrong, n - 1);
        bad |= wrong != 0;
    }
    printf("# n = 2^%d f32\n%-13s %10s %10s %10s\n", lg, "version", "ms", "GB/s", "vs copy");
    for (int v = 0; v < V; v++) {
        double bytes = (v >= 6 ? 12.0 : 8.0) * n;
        printf("%-13s %10.4f %10.1f %10.3f\n", names[v], ms[v], bytes / ms[v] / 1e6, bytes / ms[v] / (8.0 * n / ms[5]));
    }
    printf("RESULT cairn_wide/hand_float4 %.3f copy_bandwidth_share %.3f plain_share %.3f one_share %.3f "
           "saxpy_share %.3f saxpy_one_share %.3f saxpy/float4 %.3f\n",
           ms[0] / ms[3], ms[5] / ms[0], ms[5] / ms[1], ms[5] / ms[2], 1.5 * ms[5] / ms[6], 1.5 * ms[5] / ms[7],
           ms[6] / ms[8]);
    CK(cudaFree(x));
    CK(cudaFree(y));
    CK(cudaFree(out));
    return bad;
}
