// pipe_bench.cu: cairn's pipelines against hand CUDA on the GPU (issue 17).
//
// The page's strided sums (d17): row r of an rows x cols u64 matrix, one block of 256 threads a row,
// thread t adds x[r * cols + t], x[r * cols + t + 256], ... . Versions:
//   cairn_d1..d3   cq_sums1..3: the pipeline at depths 1, 2, 3 (cp.async, one group a fill)
//   cairn_plain    cq_plain: no pipeline, each thread loads its elements itself
//   hand_d1..d3    the same kernel by hand: __pipeline_memcpy_async of each thread's element into
//                  D stages of 256, __pipeline_commit, __pipeline_wait_prior(D - 1), __syncthreads
//   hand_plain     the plain loop by hand
// Timing: CUDA events around each call on one stream, 5 warm-up calls, REPS timed calls (argv[1],
// default 30), the median; GB/s of the bytes that must move (read rows * cols * 8, write rows * 256 * 8).
// Inputs: a hash of the index (never zeros). Checks: every version's output equals the host's plain
// loop over the same input, every element (outputs poisoned before each version's first call).
// Sizes: argv[2] = log2 of cols (default 16), argv[3] = rows (default 2048: 2^27 u64, 1 GiB).
#include "pipe_kernels.h"
#include "timing.h"

#include <cuda_pipeline.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

static __host__ __device__ uint64_t value(size_t i)
{
    uint64_t h = (uint64_t)i * 0x9e3779b97f4a7c15ull;
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ull;
    return h >> 20;   // under 2^44: sums of 2^16 of them fit
}

__global__ void fill(uint64_t *x, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        x[i] = value(i);
}

template <int D> __global__ void __launch_bounds__(256) hand_sums(size_t cols, const uint64_t *x, uint64_t *out)
{
    __shared__ uint64_t st[D][256];
    size_t r = blockIdx.x, t = threadIdx.x, steps = (cols + 255) / 256;
    const uint64_t *row = x + r * cols;
    for (int k = 0; k < D - 1; k++) {
        size_t c = (size_t)k * 256 + t;
        if (c < cols)
            __pipeline_memcpy_async(&st[k][t], row + c, 8);
        else
            st[k][t] = 0;
        __pipeline_commit();
    }
    uint64_t sum = 0;
    for (size_t k = 0; k < steps; k++) {
        size_t c = (k + D - 1) * 256 + t;
        int s = (int)((k + D - 1) % D);
        if (c < cols)
            __pipeline_memcpy_async(&st[s][t], row + c, 8);
        else
            st[s][t] = 0;
        __pipeline_commit();
        __pipeline_wait_prior(D - 1);
        __syncthreads();
        sum += st[k % D][t];
        __syncthreads();
    }
    out[r * 256 + t] = sum;
}

__global__ void __launch_bounds__(256) hand_plain(size_t cols, const uint64_t *x, uint64_t *out)
{
    size_t r = blockIdx.x, t = threadIdx.x;
    uint64_t sum = 0;
    for (size_t c = t; c < cols; c += 256)
        sum += x[r * cols + c];
    out[r * 256 + t] = sum;
}

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 30;
    int lg = argc > 2 ? atoi(argv[2]) : 16;
    size_t rows = argc > 3 ? strtoull(argv[3], NULL, 10) : 2048;
    size_t cols = (size_t)1 << lg, n = rows * cols, m = rows * 256;
    int dev_count = 0;
    if (cudaGetDeviceCount(&dev_count) != cudaSuccess || dev_count == 0) {
        fprintf(stderr, "pipe_bench: no usable GPU\n");
        return 3;
    }
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    uint64_t *x, *out;
    CK(cudaMalloc(&x, n * 8));
    CK(cudaMalloc(&out, m * 8));
    fill<<<1024, 256, 0, s>>>(x, n);
    CK(cudaGetLastError());
    std::vector<uint64_t> want(m, 0), got(m);
    for (size_t r = 0; r < rows; r++)
        for (size_t c = 0; c < cols; c++)
            want[r * 256 + c % 256] += value(r * cols + c);
    double bytes = (double)n * 8 + (double)m * 8;
    struct V { const char *name; void (*run)(cudaStream_t, size_t, size_t, size_t, const uint64_t *, size_t, uint64_t *); };
    auto cq1 = [](cudaStream_t st, size_t rr, size_t cc, size_t nn, const uint64_t *xx, size_t mm, uint64_t *oo) { cq_sums1((void *)st, rr, cc, nn, xx, mm, oo); };
    auto cq2 = [](cudaStream_t st, size_t rr, size_t cc, size_t nn, const uint64_t *xx, size_t mm, uint64_t *oo) { cq_sums2((void *)st, rr, cc, nn, xx, mm, oo); };
    auto cq3 = [](cudaStream_t st, size_t rr, size_t cc, size_t nn, const uint64_t *xx, size_t mm, uint64_t *oo) { cq_sums3((void *)st, rr, cc, nn, xx, mm, oo); };
    auto cqp = [](cudaStream_t st, size_t rr, size_t cc, size_t nn, const uint64_t *xx, size_t mm, uint64_t *oo) { cq_plain((void *)st, rr, cc, nn, xx, mm, oo); };
    auto h1 = [](cudaStream_t st, size_t rr, size_t cc, size_t, const uint64_t *xx, size_t, uint64_t *oo) { hand_sums<1><<<(unsigned)rr, 256, 0, st>>>(cc, xx, oo); };
    auto h2 = [](cudaStream_t st, size_t rr, size_t cc, size_t, const uint64_t *xx, size_t, uint64_t *oo) { hand_sums<2><<<(unsigned)rr, 256, 0, st>>>(cc, xx, oo); };
    auto h3 = [](cudaStream_t st, size_t rr, size_t cc, size_t, const uint64_t *xx, size_t, uint64_t *oo) { hand_sums<3><<<(unsigned)rr, 256, 0, st>>>(cc, xx, oo); };
    auto hp = [](cudaStream_t st, size_t rr, size_t cc, size_t, const uint64_t *xx, size_t, uint64_t *oo) { hand_plain<<<(unsigned)rr, 256, 0, st>>>(cc, xx, oo); };
    V vs[] = {{"cairn_d1", cq1}, {"cairn_d2", cq2}, {"cairn_d3", cq3}, {"cairn_plain", cqp},
              {"hand_d1", h1},   {"hand_d2", h2},   {"hand_d3", h3},   {"hand_plain", hp}};
    float ms[8];
    int bad = 0;
    printf("# rows %zu cols %zu: %.0f MB read\n", rows, cols, n * 8 / 1e6);
    for (int v = 0; v < 8; v++) {
        CK(cudaMemsetAsync(out, 0xa5, m * 8, s));
        vs[v].run(s, rows, cols, n, x, m, out);
        CK(cudaGetLastError());
        CK(cudaMemcpyAsync(got.data(), out, m * 8, cudaMemcpyDeviceToHost, s));
        CK(cudaStreamSynchronize(s));
        size_t wrong = 0;
        for (size_t i = 0; i < m; i++)
            wrong += got[i] != want[i];
        if (wrong) {
            printf("# check %s: %zu of %zu sums wrong\n", vs[v].name, wrong, m);
            bad = 1;
        }
        ms[v] = median_ms(s, reps, [&] { vs[v].run(s, rows, cols, n, x, m, out); });
    }
    printf("%-12s %10s %10s %14s\n", "version", "ms", "GB/s", "vs hand same D");
    for (int v = 0; v < 8; v++)
        printf("%-12s %10.4f %10.1f %14.3f\n", vs[v].name, ms[v], bytes / ms[v] / 1e6, ms[v] / ms[v < 4 ? v + 4 : v]);
    printf("RESULT cairn_d2/cairn_plain %.3f cairn_d3/cairn_plain %.3f cairn_d2/hand_d2 %.3f\n", ms[1] / ms[3],
           ms[2] / ms[3], ms[1] / ms[5]);
    CK(cudaFree(x));
    CK(cudaFree(out));
    return bad;
}
