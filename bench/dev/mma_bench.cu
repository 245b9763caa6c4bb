/*
 * mma_bench.cu: the tensor-core multiplies against cuBLAS (issue 18), in one binary, one run:
 *
 *   mma_unordered   runtime/cairn_mma.h's tiling (cq_mmu16, cq_mmub16: bench/dev/mma_kernels.cairn)
 *   tile64          examples/tensor/tile64.cairn, WMMA fragments
 *   tile32          examples/tensor/tile32.cairn, mma.sync fragments
 *   tile128         examples/tensor/tile128.cairn, WMMA fragments in 128 x 128 tiles
 *   tile128d        examples/tensor/tile128d.cairn, tile128 with k in steps of 16 through four stages
 *   tile128w        examples/tensor/tile128w.cairn, tile128 made by four warps of 64 x 64
 *   cublas          cublasGemmEx, f16 (or bf16) operands, f32 accumulation and output, beta = 1
 *
 * each computing c += a b for row-major m x k and k x n operands at n^3 for n in --sizes (default
 * 4096, 8192), random operands in [-1, 1). Before timing, each version runs once from the same c and
 * 2000 of its outputs, drawn at random, are held to the contract's bound, (k + 1) 2^-22 (|c| +
 * sum |a b|), around a sum in long double on the host (f16 and bf16 products are exact there);
 * cuBLAS's too. Timing (device/METHOD.md): CUDA events around each call on one stream, five calls to
 * warm up, then the median of --reps; TFLOP/s = 2 n^3 / time. A line a version and size:
 *
 *   NAME TYPE N  median_ms  TFLOP/s  ratio-to-cublas  outside-bound
 *
 * Exit 0 when every version kept the bound, 1 otherwise, 2 on a CUDA error, 3 without a GPU.
 */
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "mma_kernels.h"
#include "tile128.h"
#include "tile128d.h"
#include "tile128w.h"
#include "tile32.h"
#include "tile64.h"
#include "timing.h"

#define CB(call)                                                                                  \
    do {                                                                                          \
        cublasStatus_t s_ = (call);                                                               \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                                        \
            fprintf(stderr, "%s:%d: cuBLAS status %d\n", __FILE__, __LINE__, (int)s_);           \
            exit(2);                                                                              \
        }                                                                                         \
    } while (0)

static float widen(uint16_t h, bool bf)
{
    uint32_t u;
    if (bf) {
        u = (uint32_t)h << 16;
        float f;
        memcpy(&f, &u, 4);
        return f;
    }
    return __half2float(__ushort_as_half(h));
}

static uint16_t narrow(float x, bool bf)
{
    return bf ? __bfloat16_as_ushort(__float2bfloat16(x)) : __half_as_ushort(__float2half(x));
}

struct Mats {
    size_t n;
    bool bf;
    std::vector<uint16_t> a, b;
    std::vector<float> c;
    uint16_t *da, *db;
    float *dc;
};

/* Outputs outside the bound among `samples` drawn at random. */
static int outside(const Mats &M, const std::vector<float> &got, int samples, std::mt19937_64 &rng)
{
    size_t n = M.n;
    int bad = 0;
    for (int s = 0; s < samples; s++) {
        size_t i = rng() % n, j = rng() % n;
        long double exact = M.c[i * n + j], mag = fabsl(exact);
        for (size_t p = 0; p < n; p++) {
            long double t = (long double)widen(M.a[i * n + p], M.bf) * widen(M.b[p * n + j], M.bf);
            exact += t;
            mag += fabsl(t);
        }
        long double bound = (long double)(n + 1) * mag / 4194304.0L;
        if (!(fabsl((long double)got[i * n + j] - exact) <= bound))
            bad++;
    }
    return bad;
}

int main(int argc, char **argv)
{
    std::vector<size_t> sizes = {4096, 8192};
    int reps = 10;
    std::string only;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--sizes") && i + 1 < argc) {
            sizes.clear();
            for (char *p = strtok(argv[++i], ","); p; p = strtok(NULL, ","))
                sizes.push_back(strtoull(p, NULL, 10));
        } else if (!strcmp(argv[i], "--only") && i + 1 < argc)
            only = std::string(",") + argv[++i] + ",";   /* whole names: tile128 is not tile128w */
    }
    int dev = 0;
    if (cudaGetDeviceCount(&dev) != cudaSuccess || dev == 0) {
        fprintf(stderr, "mma_bench: no GPU\n");
        return 3;
    }
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("# %s, %d SMs; reps %d\n", prop.name, prop.multiProcessorCount, reps);
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    cairn_mma_kernels_device_stream(s);
    cairn_tile64_device_stream(s);
    cairn_tile32_device_stream(s);
    cairn_tile128_device_stream(s);
    cairn_tile128d_device_stream(s);
    cairn_tile128w_device_stream(s);
    cublasHandle_t h;
    CB(cublasCreate(&h));
    CB(cublasSetStream(h, s));
    std::mt19937_64 rng(12345);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    int status = 0;
    for (size_t n : sizes) {
        for (int bf = 0; bf < 2; bf++) {
            Mats M;
            M.n = n;
            M.bf = bf;
            size_t nn = n * n;
            M.a.resize(nn), M.b.resize(nn), M.c.resize(nn);
            for (size_t i = 0; i < nn; i++) {
                M.a[i] = narrow(u(rng), bf);
                M.b[i] = narrow(u(rng), bf);
                M.c[i] = u(rng);
            }
            CK(cudaMalloc(&M.da, nn * 2));
            CK(cudaMalloc(&M.db, nn * 2));
            CK(cudaMalloc(&M.dc, nn * 4));
            CK(cudaMemcpy(M.da, M.a.data(), nn * 2, cudaMemcpyHostToDevice));
            CK(cudaMemcpy(M.db, M.b.data(), nn * 2, cudaMemcpyHostToDevice));
            const float one = 1.0f;
            cudaDataType_t t = bf ? CUDA_R_16BF : CUDA_R_16F;
            struct Version {
                const char *name;
                bool f16_only;
                std::function<void()> run;
            };
            std::vector<Version> vs = {
                {"cublas", false,
                 [&] {   /* row-major c = a b is column-major c^T = b^T a^T */
                     CB(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, (int)n, (int)n, (int)n, &one, M.db, t, (int)n,
                                     M.da, t, (int)n, &one, M.dc, CUDA_R_32F, (int)n, CUBLAS_COMPUTE_32F,
                                     CUBLAS_GEMM_DEFAULT));
                 }},
                {"mma_unordered", false,
                 [&] {
                     if (bf)
                         cq_mmub16(s, n, n, n, nn, M.dc, nn, M.da, nn, M.db);
                     else
                         cq_mmu16(s, n, n, n, nn, M.dc, nn, M.da, nn, M.db);
                 }},
                {"tile64", true, [&] { cq_tile64(s, n, n, n, nn, M.dc, nn, M.da, nn, M.db); }},
                {"tile32", true, [&] { cq_tile32(s, n, n, n, nn, M.dc, nn, M.da, nn, M.db); }},
                {"tile128", true, [&] { cq_tile128(s, n, n, n, nn, M.dc, nn, M.da, nn, M.db); }},
                {"tile128d", true, [&] { cq_tile128d(s, n, n, n, nn, M.dc, nn, M.da, nn, M.db); }},
                {"tile128w", true, [&] { cq_tile128w(s, n, n, n, nn, M.dc, nn, M.da, nn, M.db); }},
            };
            float base = 0;
            std::vector<float> got(nn);
            for (auto &v : vs) {
                if ((v.f16_only && bf) || (!only.empty() && only.find(std::string(",") + v.name + ",") == std::string::npos &&
                                           strcmp(v.name, "cublas")))
                    continue;
                CK(cudaMemcpy(M.dc, M.c.data(), nn * 4, cudaMemcpyHostToDevice));
                v.run();
                CK(cudaStreamSynchronize(s));
                CK(cudaMemcpy(got.data(), M.dc, nn * 4, cudaMemcpyDeviceToHost));
                int bad = outside(M, got, 2000, rng);
                status |= bad != 0;
                float ms = median_ms(s, reps, v.run);
                if (!strcmp(v.name, "cublas"))
                    base = ms;
                double tf = 2.0 * (double)n * n * n / (ms * 1e-3) / 1e12;
                printf("%-14s %-4s %6zu %10.4f %8.1f %7.3f %d\n", v.name, bf ? "bf16" : "f16", n, ms, tf,
                       base > 0 ? ms / base : 0.0, bad);
                fflush(stdout);
            }
            CK(cudaFree(M.da));
            CK(cudaFree(M.db));
            CK(cudaFree(M.dc));
        }
    }
    CB(cublasDestroy(h));
    return status;
}
