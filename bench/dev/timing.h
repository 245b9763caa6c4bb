// timing.h: what the device benchmarks share (bench/dev/*_bench.cu, included by the file's folder).
//   CK(call)                a CUDA call whose error ends the benchmark (exit 2), with its line
//   median_ms(s, reps, f)   f() 5 times to warm up, then reps times between CUDA events on stream s:
//                           the median in milliseconds (device/METHOD.md: events, warm-up, medians)
//   wrong_f32(s, out, n, got, run, want)   out (n f32) poisoned, run() once, out copied into got and
//                           held to want(i) bit for bit: how many elements differ
#ifndef BENCH_DEV_TIMING_H
#define BENCH_DEV_TIMING_H

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(call)                                                                          \
    do {                                                                                  \
        cudaError_t e_ = (call);                                                          \
        if (e_ != cudaSuccess) {                                                          \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));   \
            exit(2);                                                                      \
        }                                                                                 \
    } while (0)

template <class F> static float median_ms(cudaStream_t s, int reps, F f)
{
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    for (int i = 0; i < 5; i++)
        f();
    CK(cudaStreamSynchronize(s));
    std::vector<float> t;
    for (int i = 0; i < reps; i++) {
        CK(cudaEventRecord(a, s));
        f();
        CK(cudaEventRecord(b, s));
        CK(cudaEventSynchronize(b));
        float ms;
        CK(cudaEventElapsedTime(&ms, a, b));
        t.push_back(ms);
    }
    std::sort(t.begin(), t.end());
    CK(cudaEventDestroy(a));
    CK(cudaEventDestroy(b));
    return t[t.size() / 2];
}

/* A version's output checked before it is timed: poisoned first, so an element it never writes shows. */
template <class Run, class Want>
static size_t wrong_f32(cudaStream_t s, float *out, size_t n, std::vector<float> &got, Run run, Want want)
{
    CK(cudaMemsetAsync(out, 0xa5, n * 4, s));
    run();
    CK(cudaGetLastError());
    CK(cudaMemcpyAsync(got.data(), out, n * 4, cudaMemcpyDeviceToHost, s));
    CK(cudaStreamSynchronize(s));
    size_t wrong = 0;
    for (size_t i = 0; i < n; i++)
        wrong += got[i] != want(i);
    return wrong;
}

#endif
