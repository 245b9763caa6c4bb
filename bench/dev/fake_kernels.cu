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
 *   to f32, which is what CAIRN's reduce + parallel promises;
 *   dscan writes the inclusive prefixes of x into out (each prefix kept in 64 bits and stored as
 *   i32: the harness's inputs keep every prefix far inside i32, so CAIRN's overflow trap is not
 *   modelled);
 *   dcompact writes the x[i] > 0, in index order, to out[0..count), leaves out[count..n) as it
 *   was, and returns count (the host has it, so the call waits, as CAIRN's does).
 * Failures print the CUDA error and abort, as CAIRN's runtime does.
 */
#include <cstdint>
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

/* Scan and compaction, in three passes over P contiguous parts (P blocks): each block counts or
 * sums its part; one thread turns the P partials into exclusive prefixes (and stores their total
 * at [P]); each block walks its part a tile of kThreads at a time, scans the tile in shared memory
 * and writes from its part's prefix. Plain and slow on purpose: it is a stand-in. */
constexpr int kParts = 1024;

__device__ size_t part_lo(size_t n, size_t P, size_t p) {
    size_t q = n / P, r = n % P;
    return p * q + (p < r ? p : r);
}

__device__ long long block_sum(long long v) {
    __shared__ long long s[kThreads];
    s[threadIdx.x] = v;
    __syncthreads();
    for (int w = kThreads / 2; w > 0; w /= 2) {
        if ((int)threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];
        __syncthreads();
    }
    long long t = s[0];
    __syncthreads();
    return t;
}

/* Inclusive scan of one value per thread across the block; *total gets the block's sum. */
__device__ long long block_inclusive(long long v, long long *total) {
    __shared__ long long s[kThreads];
    s[threadIdx.x] = v;
    __syncthreads();
    for (int w = 1; w < kThreads; w *= 2) {
        long long add = (int)threadIdx.x >= w ? s[threadIdx.x - w] : 0;
        __syncthreads();
        s[threadIdx.x] += add;
        __syncthreads();
    }
    long long r = s[threadIdx.x];
    *total = s[kThreads - 1];
    __syncthreads();
    return r;
}

/* keep == 0: the terms are x[i]; keep == 1: the terms are (x[i] > 0). */
__global__ void part_sums(size_t n, const int32_t *x, int keep, long long *partial) {
    size_t lo = part_lo(n, gridDim.x, blockIdx.x), hi = part_lo(n, gridDim.x, blockIdx.x + 1);
    long long acc = 0;
    for (size_t i = lo + threadIdx.x; i < hi; i += kThreads) acc += keep ? (x[i] > 0) : x[i];
    long long t = block_sum(acc);
    if (threadIdx.x == 0) partial[blockIdx.x] = t;
}

__global__ void exclusive_partials(int parts, long long *partial) {
    if (threadIdx.x != 0 || blockIdx.x != 0) return;
    long long run = 0;
    for (int p = 0; p < parts; p++) {
        long long v = partial[p];
        partial[p] = run;
        run += v;
    }
    partial[parts] = run;
}

__global__ void scan_put(size_t n, const int32_t *x, int32_t *out, const long long *partial) {
    size_t lo = part_lo(n, gridDim.x, blockIdx.x), hi = part_lo(n, gridDim.x, blockIdx.x + 1);
    long long carry = partial[blockIdx.x];
    for (size_t base = lo; base < hi; base += kThreads) {
        size_t i = base + threadIdx.x;
        long long tile;
        long long v = block_inclusive(i < hi ? x[i] : 0, &tile);
        if (i < hi) out[i] = (int32_t)(carry + v);
        carry += tile;
    }
}

__global__ void compact_put(size_t n, const int32_t *x, int32_t *out, const long long *partial) {
    size_t lo = part_lo(n, gridDim.x, blockIdx.x), hi = part_lo(n, gridDim.x, blockIdx.x + 1);
    long long carry = partial[blockIdx.x];
    for (size_t base = lo; base < hi; base += kThreads) {
        size_t i = base + threadIdx.x;
        int32_t v = i < hi ? x[i] : 0;
        bool kept = i < hi && v > 0;
        long long tile;
        long long upto = block_inclusive(kept ? 1 : 0, &tile);
        if (kept) out[carry + upto - 1] = v;
        carry += tile;
    }
}

int parts_for(size_t n) {
    size_t p = (n + kThreads - 1) / kThreads;
    return (int)(p < 1 ? 1 : p > kParts ? kParts : p);
}

/* The three-pass scratch: kParts partials and their total, made once and kept. */
long long *part_scratch() {
    static thread_local long long *partial = nullptr;
    if (!partial) check(cudaMalloc(&partial, (kParts + 1) * sizeof(long long)), "scan/compact scratch");
    return partial;
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

extern "C" void cf_dscan(size_t n, const int32_t *x, int32_t *out) {
    if (n == 0) return;
    cudaStream_t s = run_stream();
    long long *partial = part_scratch();
    int parts = parts_for(n);
    part_sums<<<parts, kThreads, 0, s>>>(n, x, 0, partial);
    check(cudaGetLastError(), "cf_dscan launch");
    exclusive_partials<<<1, 32, 0, s>>>(parts, partial);
    check(cudaGetLastError(), "cf_dscan partials launch");
    scan_put<<<parts, kThreads, 0, s>>>(n, x, out, partial);
    check(cudaGetLastError(), "cf_dscan put launch");
    check(cudaStreamSynchronize(s), "cf_dscan wait");
}

extern "C" size_t cf_dcompact(size_t n, const int32_t *x, int32_t *out) {
    if (n == 0) return 0;
    cudaStream_t s = run_stream();
    long long *partial = part_scratch();
    int parts = parts_for(n);
    part_sums<<<parts, kThreads, 0, s>>>(n, x, 1, partial);
    check(cudaGetLastError(), "cf_dcompact launch");
    exclusive_partials<<<1, 32, 0, s>>>(parts, partial);
    check(cudaGetLastError(), "cf_dcompact partials launch");
    compact_put<<<parts, kThreads, 0, s>>>(n, x, out, partial);
    check(cudaGetLastError(), "cf_dcompact put launch");
    long long count = 0;
    check(cudaMemcpyAsync(&count, partial + parts, sizeof count, cudaMemcpyDeviceToHost, s), "cf_dcompact count");
    check(cudaStreamSynchronize(s), "cf_dcompact wait");
    return (size_t)count;
}
