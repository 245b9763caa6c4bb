// ILP experiment: is the map of portable exp/log/tanh latency-bound (one load in flight per thread)?
#include "cairn_math.h"
#include <algorithm>
#include <cstdio>
#include <vector>
#define CK(c) do { cudaError_t e_ = (c); if (e_ != cudaSuccess) { printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(2); } } while (0)
__device__ __forceinline__ float F(int f, float v) { return f == 0 ? cn_math_exp_f32(v) : f == 1 ? cn_math_log_f32(v) : cn_math_tanh_f32(v); }
__device__ __forceinline__ float G(int f, float v) { return f == 0 ? expf(v) : f == 1 ? logf(v) : tanhf(v); }
template <int f, int cuda, int MB = 1> __global__ void __launch_bounds__(256, MB) plain(const float *x, float *y, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        y[i] = cuda ? G(f, x[i]) : F(f, x[i]);
}
template <int f, int U, int MB = 1> __global__ void __launch_bounds__(256, MB) hoist(const float *x, float *y, size_t n)
{
    size_t step = (size_t)gridDim.x * blockDim.x, i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    for (; i + (U - 1) * step < n; i += U * step) {
        float v[U];
#pragma unroll
        for (int u = 0; u < U; u++) v[u] = x[i + u * step];
#pragma unroll
        for (int u = 0; u < U; u++) y[i + u * step] = F(f, v[u]);
    }
    for (; i < n; i += step) y[i] = F(f, x[i]);
}
template <int f, int MB = 1> __global__ void __launch_bounds__(256, MB) plain32(const float *x, float *y, size_t n)
{
    unsigned step = gridDim.x * blockDim.x, m = (unsigned)n;
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < m; i += step)
        y[i] = F(f, x[i]);
}
__global__ void fill(float *x, size_t n, float lo, float hi)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        unsigned h = (unsigned)(i * 2654435761u) ^ (unsigned)(i >> 13);
        h ^= h >> 15; h *= 2246822519u; h ^= h >> 13;
        x[i] = lo + (hi - lo) * ((float)(h >> 8) * (1.0f / 16777216.0f));
    }
}
template <class Fn> static float med(cudaStream_t s, Fn fn)
{
    cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
    for (int i = 0; i < 5; i++) fn();
    std::vector<float> t;
    for (int i = 0; i < 30; i++) { CK(cudaEventRecord(a, s)); fn(); CK(cudaEventRecord(b, s)); CK(cudaEventSynchronize(b)); float ms; CK(cudaEventElapsedTime(&ms, a, b)); t.push_back(ms); }
    std::sort(t.begin(), t.end()); return t[15];
}
static int g_sms;
template <class K> static int gridfor(K k)
{
    int b = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b, k, 256, 0));
    return b * g_sms;
}
#define T(K, ...) med(s, [&] { K<<<gridfor(K), 256, 0, s>>>(__VA_ARGS__); })
template <int f> static void one(cudaStream_t s, float *x, float *y, float *z, size_t n, int grid, const char *name)
{
    float tc = T((plain<f, 1>), x, z, n);
    float ta = T((plain<f, 0>), x, y, n), t32 = T((plain32<f>), x, y, n);
    float t2 = T((hoist<f, 2>), x, y, n), t4 = T((hoist<f, 4>), x, y, n);
    float m8 = T((plain<f, 0, 8>), x, y, n), m8_32 = T((plain32<f, 8>), x, y, n);
    float h2m8 = T((hoist<f, 2, 8>), x, y, n), h4m8 = T((hoist<f, 4, 8>), x, y, n);
    float wrong = med(s, [&] { plain<f, 0><<<grid, 256, 0, s>>>(x, y, n); });
    printf("%s: CUDA %.4f ms | cairn (grid from occupancy) plain %.3fx, 32-bit %.3fx, hoist2 %.3fx, hoist4 %.3fx; "
           "8 blocks an SM forced: plain %.3fx, 32-bit %.3fx, hoist2 %.3fx, hoist4 %.3fx; plain with 8 blocks an SM assumed %.3fx; "
           "blocks an SM: plain %d, CUDA %d\n",
           name, tc, ta / tc, t32 / tc, t2 / tc, t4 / tc, m8 / tc, m8_32 / tc, h2m8 / tc, h4m8 / tc, wrong / tc,
           gridfor(plain<f, 0>) / g_sms, gridfor(plain<f, 1>) / g_sms);
}
int main()
{
    cudaStream_t s; CK(cudaStreamCreate(&s));
    int sms; CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0)); g_sms = sms;
    size_t n = (size_t)1 << 28; float *x, *y, *z;
    CK(cudaMalloc(&x, n * 4)); CK(cudaMalloc(&y, n * 4)); CK(cudaMalloc(&z, n * 4));
    int grid = sms * 8;
    fill<<<1024, 256, 0, s>>>(x, n, -87.0f, 88.0f); one<0>(s, x, y, z, n, grid, "exp");
    fill<<<1024, 256, 0, s>>>(x, n, 1e-30f, 1e30f); one<1>(s, x, y, z, n, grid, "log");
    fill<<<1024, 256, 0, s>>>(x, n, -9.0f, 9.0f); one<2>(s, x, y, z, n, grid, "tanh");
    CK(cudaDeviceSynchronize());
    return 0;
}
