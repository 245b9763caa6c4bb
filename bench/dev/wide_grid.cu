// wide_grid.cu: which grid and loop shape lets a wide lane kernel (runtime/cairn_dev.h,
// CN_DEV_KERNEL_WIDE) reach the device copy's bandwidth (issue 17). The scaled copy out = a * x over
// 2^28 f32, 16-byte accesses in every version:
//   oneshot        one float4 a thread, a block per 256 float4s (the hand kernel of wide_bench.cu,
//                  plain loads and stores)
//   persist_pf     the grid CAIRN launches (multiprocessors x blocks that fit, 256 threads) and the
//                  wide kernel's loop: the next group's load issued before this group's store
//   persist        the same grid, one group an iteration, no prefetch
//   persist_u2     the same grid, two groups an iteration (both loads, then both stores)
//   persist_u4     four groups an iteration
//   grid_x4        the prefetching loop on 4x CAIRN's grid
//   grid_x16       ... on 16x
//   oneshot_loop   the prefetching loop on the one-shot grid (each thread runs one group)
//   copy           cudaMemcpyAsync device to device
// Timing: median of REPS (argv[1], default 30) between events after 5 warm-ups. Every version's
// output is checked against a * x on the host. Prints one line a version and its share of the copy.
#include "timing.h"

#include <cstdio>
#include <vector>

static __host__ __device__ float value(size_t i)
{
    unsigned h = (unsigned)(i * 2654435761u) ^ (unsigned)(i >> 13);
    h ^= h >> 15;
    h *= 2246822519u;
    return (float)(h & 0xffffff) / 16777216.0f - 0.5f;
}

__global__ void fill(float *x, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        x[i] = value(i);
}

__device__ __forceinline__ float4 sc(float4 v, float a) { return make_float4(a * v.x, a * v.y, a * v.z, a * v.w); }

__global__ void __launch_bounds__(256) oneshot(float4 *out, const float4 *x, size_t m, float a)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < m)
        out[i] = sc(x[i], a);
}

__global__ void __launch_bounds__(256) persist_pf(float4 *out, const float4 *x, size_t m, float a)
{
    size_t step = (size_t)gridDim.x * blockDim.x, t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (t >= m)
        return;
    float4 p = x[t];
    for (;;) {
        size_t nx = t + step;
        bool more = nx < m;
        float4 q;
        if (more)
            q = x[nx];
        out[t] = sc(p, a);
        t = nx;
        if (!more)
            break;
        p = q;
    }
}

__global__ void __launch_bounds__(256) persist(float4 *out, const float4 *x, size_t m, float a)
{
    size_t step = (size_t)gridDim.x * blockDim.x;
    for (size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x; t < m; t += step)
        out[t] = sc(x[t], a);
}

template <int U> __global__ void __launch_bounds__(256) persist_u(float4 *out, const float4 *x, size_t m, float a)
{
    size_t step = (size_t)gridDim.x * blockDim.x, t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    for (; t + (U - 1) * step < m; t += U * step) {
        float4 v[U];
#pragma unroll
        for (int u = 0; u < U; u++)
            v[u] = x[t + u * step];
#pragma unroll
        for (int u = 0; u < U; u++)
            out[t + u * step] = sc(v[u], a);
    }
    for (; t < m; t += step)
        out[t] = sc(x[t], a);
}

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 30;
    size_t n = (size_t)1 << 28, m = n / 4;
    const float a = 1.75f;
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    float *x, *out;
    CK(cudaMalloc(&x, n * 4));
    CK(cudaMalloc(&out, n * 4));
    fill<<<1024, 256, 0, s>>>(x, n);
    int sms = 0, per = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, persist_pf, 256, 0));
    unsigned full = (unsigned)(sms * per), one = (unsigned)((m + 255) / 256);
    printf("# %d multiprocessors, %d blocks of 256 each: persistent grid %u, one-shot grid %u\n", sms, per, full, one);
    const char *names[] = {"oneshot", "persist_pf", "persist", "persist_u2", "persist_u4", "grid_x4", "grid_x16",
                           "oneshot_loop", "copy"};
    enum { V = 9 };
    auto run = [&](int v) {
        float4 *o = (float4 *)out;
        const float4 *i = (const float4 *)x;
        switch (v) {
        case 0: oneshot<<<one, 256, 0, s>>>(o, i, m, a); break;
        case 1: persist_pf<<<full, 256, 0, s>>>(o, i, m, a); break;
        case 2: persist<<<full, 256, 0, s>>>(o, i, m, a); break;
        case 3: persist_u<2><<<full, 256, 0, s>>>(o, i, m, a); break;
        case 4: persist_u<4><<<full, 256, 0, s>>>(o, i, m, a); break;
        case 5: persist_pf<<<4 * full, 256, 0, s>>>(o, i, m, a); break;
        case 6: persist_pf<<<16 * full, 256, 0, s>>>(o, i, m, a); break;
        case 7: persist_pf<<<one, 256, 0, s>>>(o, i, m, a); break;
        default: CK(cudaMemcpyAsync(out, x, n * 4, cudaMemcpyDeviceToDevice, s)); break;
        }
    };
    std::vector<float> got(n);
    float ms[V];
    int bad = 0;
    for (int v = 0; v < V; v++) {
        size_t wrong = wrong_f32(s, out, n, got, [&] { run(v); },
                                 [&](size_t i) { return v == V - 1 ? value(i) : a * value(i); });
        if (wrong) {
            printf("# check %s: %zu wrong\n", names[v], wrong);
            bad = 1;
        }
        ms[v] = median_ms(s, reps, [&] { run(v); });
    }
    for (int v = 0; v < V; v++)
        printf("%-13s %9.4f ms %8.1f GB/s %7.3f of copy\n", names[v], ms[v], 8.0 * n / ms[v] / 1e6, ms[V - 1] / ms[v]);
    return bad;
}
