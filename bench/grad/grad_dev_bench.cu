/*
 * grad_dev_bench.cu: f against f_grad on the GPU (issue 19, "Cost"): bench/grad/grad_dev_kernels.cairn's
 * dloss, a least-squares loss over @device views (its sum the device's exact one), and dloss_grad
 * (the loss again, then its backward region adding into d_w), at n = 2^20 and 2^24 (or the sizes
 * given as log2). Each called through its cf_ entry, which returns when its work is done; timed with
 * CUDA events around the call on the library's stream (bound first), median of 11 after 3 to warm up
 * (device/METHOD.md). Checks d_w against 2 (w x - y) x first. Prints `n  f_ms  f_grad_ms  ratio`.
 */
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "grad_dev_kernels.h"
#include "timing.h"

int main(int argc, char **argv)
{
    int dev = 0;
    if (cudaGetDeviceCount(&dev) != cudaSuccess || dev == 0) {
        fprintf(stderr, "grad_dev_bench: no GPU\n");
        return 3;
    }
    std::vector<int> logs = {20, 24};
    if (argc > 1) {
        logs.clear();
        for (int i = 1; i < argc; i++)
            logs.push_back(atoi(argv[i]));
    }
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    cairn_grad_dev_kernels_device_stream(s);
    int status = 0;
    for (int lg : logs) {
        size_t n = (size_t)1 << lg;
        std::vector<double> w(n), x(n), y(n), got(n);
        unsigned long long r = 88172645463325252ull;
        for (size_t i = 0; i < n; i++) {
            r ^= r << 13, r ^= r >> 7, r ^= r << 17;
            w[i] = (double)(r % 2001) / 1000.0 - 1.0;
            x[i] = (double)(r >> 20 & 1023) / 512.0 - 1.0;
            y[i] = (double)(r >> 40 & 255) / 128.0 - 1.0;
        }
        double *dw, *dx, *dy, *ddw;
        CK(cudaMalloc(&dw, n * 8));
        CK(cudaMalloc(&dx, n * 8));
        CK(cudaMalloc(&dy, n * 8));
        CK(cudaMalloc(&ddw, n * 8));
        CK(cudaMemcpy(dw, w.data(), n * 8, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(dx, x.data(), n * 8, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(dy, y.data(), n * 8, cudaMemcpyHostToDevice));
        CK(cudaMemset(ddw, 0, n * 8));
        double fv = cf_dloss(n, dw, dx, dy), gv = cf_dloss_grad(n, dw, dx, dy, 1.0, ddw);
        CK(cudaMemcpy(got.data(), ddw, n * 8, cudaMemcpyDeviceToHost));
        size_t bad = fv != gv;
        for (size_t i = 0; i < n; i++) {
            double want = 2.0 * (w[i] * x[i] - y[i]) * x[i];
            bad += std::fabs(got[i] - want) > 1e-12 * (std::fabs(want) + 1.0);
        }
        if (bad) {
            printf("grad_dev_bench: n %zu: %zu wrong\n", n, bad);
            status = 1;
        }
        float tf = median_ms(s, 11, [&] { (void)cf_dloss(n, dw, dx, dy); });
        float tg = median_ms(s, 11, [&] { (void)cf_dloss_grad(n, dw, dx, dy, 1.0, ddw); });
        printf("%zu %.4f %.4f %.2f\n", n, tf, tg, tg / tf);
        CK(cudaFree(dw));
        CK(cudaFree(dx));
        CK(cudaFree(dy));
        CK(cudaFree(ddw));
    }
    return status;
}
