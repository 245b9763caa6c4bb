// After a trapped cq_ call, the next CAIRN entry aborts (devices.md, "One wait, or none"): cq_g's
// lanes fail a guard, which traps and poisons the device context; the caller's synchronization
// reports it; then cq_h, the next CAIRN entry, must abort rather than return with its work skipped.
// Exit: the process must die of SIGABRT after printing "synchronize reported" and never "cq_h
// returned" (tests/device/run.sh checks). The library is tests/device/run.sh's tl.cairn.
#include "tl.h"
#include <cuda_runtime.h>
#include <stdio.h>

int main(void)
{
    const size_t n = 40;
    unsigned char h[40], *x;
    for (size_t i = 0; i < n; i++)
        h[i] = (unsigned char)(i % 20);          /* lanes 16..19 and 36..39 overflow 16 * x */
    if (cudaMalloc(&x, n) != cudaSuccess || cudaMemcpy(x, h, n, cudaMemcpyHostToDevice) != cudaSuccess)
        return 2;
    cudaStream_t s;
    if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess)
        return 2;
    cq_g(s, n, x);
    fprintf(stderr, "cq_g returned\n");
    cudaError_t e = cudaStreamSynchronize(s);
    fprintf(stderr, "synchronize reported: %s\n", cudaGetErrorName(e));
    cq_h(s, n, x);
    fprintf(stderr, "cq_h returned\n");
    return 0;
}
