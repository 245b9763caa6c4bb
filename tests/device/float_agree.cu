// tests/device/float_agree.cu: the storage-float rounding of runtime/cairn_float.h, on the device and
// on the host, over every f32 bit pattern. Built by tests/device/run.sh with nvcc for sm_90a.
//
// Host vs device, bit for bit: every f32 input through each narrowing, and quantize /
// quantize_stochastic into f8e4m3, f16, i8 and u16 (scale 0.37, noise from the input), hashed
// (an order-free sum of 64-bit mixes of (input, result, which)); the host computes the same sums.
#include "cairn_float.h"
#include <thread>
#include <vector>
#include <chrono>

__host__ __device__ static inline uint64_t mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

__host__ __device__ static inline uint64_t one(uint32_t u)
{
    float x = cn_float_f32_from_bits(u);
    uint64_t h = 0;
    cn_float_num n = cn_float_num_f32(u);
    h += mix(((uint64_t)u << 32) ^ cn_float_encode(cn_fmt_f16(), cn_float_round(cn_fmt_f16(), n, CN_PAST_INF, false, 0)));
    h += mix(((uint64_t)u << 32) ^ 0x10000 ^ cn_float_encode(cn_fmt_bf16(), cn_float_round(cn_fmt_bf16(), n, CN_PAST_INF, false, 0)));
    cn_float_rounded r = cn_float_round(cn_fmt_f8e4m3(), n, CN_PAST_TRAP, false, 0);
    h += mix(((uint64_t)u << 32) ^ 0x20000 ^ cn_float_encode(cn_fmt_f8e4m3(), r) ^ ((uint64_t)r.status << 20));
    h += mix(((uint64_t)u << 32) ^ 0x30000 ^ cn_float_encode(cn_fmt_f8e5m2(), cn_float_round(cn_fmt_f8e5m2(), n, CN_PAST_INF, false, 0)));
    h += mix(((uint64_t)u << 32) ^ 0x40000 ^ cn_float_f32_bits(cn_widen_f16((cn_f16)u)));
    h += mix(((uint64_t)u << 32) ^ 0xa0000 ^ cn_float_f32_bits(cn_widen_bf16((cn_bf16)u)) ^ ((uint64_t)cn_float_f32_bits(cn_widen_f8e4m3((cn_f8e4m3)u)) << 1));
    if (x == x) {
        uint32_t noise = (uint32_t)mix(u);
        h += mix(((uint64_t)u << 32) ^ 0x50000 ^ cn_quantize_f8e4m3(x, 0.37f, "d", 1, 1));
        h += mix(((uint64_t)u << 32) ^ 0x60000 ^ cn_quantize_f16(x, 0.37f, "d", 1, 1));
        h += mix(((uint64_t)u << 32) ^ 0x70000 ^ (uint8_t)cn_quantize_i8(x, 0.37f, "d", 1, 1));
        h += mix(((uint64_t)u << 32) ^ 0x80000 ^ cn_quantize_stochastic_u16(x, 3.3f, noise, "d", 1, 1));
        h += mix(((uint64_t)u << 32) ^ 0x90000 ^ cn_quantize_stochastic_f8e5m2(x, 1e-3f, noise, "d", 1, 1));
    }
    return h;
}

__global__ void kernel(unsigned long long *sum, uint64_t base)
{
    uint64_t h = 0;
    uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    for (uint64_t w = base + blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; w < base + (1ull << 32) / 1; w += stride)
        h += one((uint32_t)w);
    atomicAdd(sum, (unsigned long long)h);
}

int main()
{
    auto t0 = std::chrono::steady_clock::now();
    unsigned long long *d, dev = 0;
    cudaMalloc(&d, 8);
    cudaMemset(d, 0, 8);
    kernel<<<4096, 256>>>(d, 0);
    cudaMemcpy(&dev, d, 8, cudaMemcpyDeviceToHost);
    cudaError_t e = cudaGetLastError();
    auto t1 = std::chrono::steady_clock::now();
    unsigned nt = std::thread::hardware_concurrency();
    std::vector<uint64_t> part(nt);
    std::vector<std::thread> th;
    for (unsigned t = 0; t < nt; t++)
        th.emplace_back([&, t] {
            uint64_t h = 0;
            for (uint64_t w = t; w < (1ull << 32); w += nt) h += one((uint32_t)w);
            part[t] = h;
        });
    uint64_t host = 0;
    for (unsigned t = 0; t < nt; t++) th[t].join(), host += part[t];
    auto t2 = std::chrono::steady_clock::now();
    printf("cuda: %s\ndevice sum %016llx in %.1f s\nhost   sum %016llx in %.1f s on %u threads\n%s\n",
           cudaGetErrorString(e), dev, std::chrono::duration<double>(t1 - t0).count(),
           (unsigned long long)host, std::chrono::duration<double>(t2 - t1).count(), nt,
           dev == host ? "AGREE bit for bit over all 2^32 inputs" : "DIFFER");
    return dev == host ? 0 : 1;
}
