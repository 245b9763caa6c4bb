/*
 * STAND-IN for the CAIRN library built from bench/dev/kernels.cairn. NEVER EVIDENCE.
 *
 * It exists only so bench/dev/bench_dev.cu can be compiled, linked and run (FAKE=1 bash
 * bench/dev/run.sh OUTDIR) before the CAIRN device lowering exists. It is plain CUDA written by
 * hand; any number measured with it says nothing about CAIRN. bench_dev detects it through
 * cairn_bench_stand_in_kernels() below and prints a STAND-IN banner on every run.
 *
 * It keeps the contracts the harness relies on, so the harness's checks pass against it:
 *   cf_ entries return after their work has finished, on the bound stream if one is bound;
 *   cq_saxpy queues on the caller's stream and does not wait;
 *   saxpy rounds a*x and then +y, each once (build with --fmad=false);
 *   dsum accumulates in double. The harness's inputs are multiples of 2^-23 in [-1, 1), so for
 *   n <= 2^29 every partial sum is exact in double and the total is the exact sum rounded once
 *   to f32, which is what CAIRN's reduce + parallel promises.
 * Failures print the CUDA error and abort, as CAIRN's runtime does.
 */
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "fake/kernels.h"

extern "C" int cairn_bench_stand_in_kernels(void) { return 1; }

namespace {

void check(cudaError_t e, const char *what) {
    if (e != cudaSuccess) {
        std::fprintf(stderr, "fake_kernels (stand-in): %s: %s\n", what, cudaGetErrorString(e));
        std::abort();
    }
}

/* The thread's own stream, made by its first synchronous call, and the stream a caller bound. */
thread_local cudaStream_t own_stream = nullptr;
thread_local cudaStream_t bound_stream = nullptr;

cudaStream_t run_stream() {
    if (bound_stream) return bound_stream;
    if (!own_stream) check(cudaStreamCreateWithFlags(&own_stream, cudaStreamNonBlocking), "stream create");
    return own_stream;
}

__global__ void saxpy_kernel(size_t n, float *out, const float *x, const float *y, float a) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        out[i] = a * x[i] + y[i];
}

constexpr int kThreads = 256;
constexpr int kMaxBlocks = 1024;

/* One pass: each block adds its grid-stride share in double and leaves one partial. */
__global__ void sum_partials(size_t n, const float *x, double *partial) {
    __shared__ double s[kThreads];
    double acc = 0.0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        acc += x[i];
    s[threadIdx.x] = acc;
    __syncthreads();
    for (int w = kThreads / 2; w > 0; w /= 2) {
        if ((int)threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = s[0];
}

/* Second pass: one block adds the partials and rounds once to f32. */
__global__ void sum_finish(int blocks, const double *partial, float *total) {
    __shared__ double s[kThreads];
    double acc = 0.0;
    for (int i = threadIdx.x; i < blocks; i += kThreads) acc += partial[i];
    s[threadIdx.x] = acc;
    __syncthreads();
    for (int w = kThreads / 2; w > 0; w /= 2) {
        if ((int)threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0) total[0] = (float)s[0];
}

int saxpy_blocks(size_t n) {
    size_t b = (n + kThreads - 1) / kThreads;
    return (int)(b < 1 ? 1 : b > kMaxBlocks ? kMaxBlocks : b);
}

}  // namespace

extern "C" void cairn_kernels_device_stream(void *stream) { bound_stream = (cudaStream_t)stream; }

extern "C" void cq_saxpy(void *stream, size_t n, float *out, const float *x, const float *y, float a) {
    saxpy_kernel<<<saxpy_blocks(n), kThreads, 0, (cudaStream_t)stream>>>(n, out, x, y, a);
    check(cudaGetLastError(), "cq_saxpy launch");
}

extern "C" void cf_saxpy(size_t n, float *out, const float *x, const float *y, float a) {
    cudaStream_t s = run_stream();
    saxpy_kernel<<<saxpy_blocks(n), kThreads, 0, s>>>(n, out, x, y, a);
    check(cudaGetLastError(), "cf_saxpy launch");
    check(cudaStreamSynchronize(s), "cf_saxpy wait");
}

extern "C" void cf_dsum(size_t n, const float *x, float *total) {
    /* Scratch made once and kept, like CAIRN's arena after its first growth. */
    static thread_local double *partial = nullptr;
    cudaStream_t s = run_stream();
    if (!partial) check(cudaMalloc(&partial, kMaxBlocks * sizeof(double)), "cf_dsum scratch");
    int blocks = saxpy_blocks(n);
    sum_partials<<<blocks, kThreads, 0, s>>>(n, x, partial);
    check(cudaGetLastError(), "cf_dsum launch");
    sum_finish<<<1, kThreads, 0, s>>>(blocks, partial, total);
    check(cudaGetLastError(), "cf_dsum finish launch");
    check(cudaStreamSynchronize(s), "cf_dsum wait");
}
