// A cq_ entry captured in a CUDA graph and replayed (devices.md, "One wait, or none"): the caller
// owns the stream; cq_smooth queues its two kernels there without waiting, making no stream, event
// or allocation, so stream capture records them. The graph is replayed three times on fresh input and
// each result checked against a plain loop; then cf_smooth with the stream bound by
// cairn_smoothlib_device_stream, and cf_total, are checked the same way.
#include "smoothlib.h"
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); return 2; } } while (0)

int main(void)
{
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
        fprintf(stderr, "graph_cq: no CUDA device\n");
        return 2;
    }
    const size_t n = (1u << 20) + 3;
    float *hx = (float *)malloc(n * sizeof(float)), *ho = (float *)malloc(n * sizeof(float));
    float *x, *out, *tmp, *tot;
    CK(cudaMalloc(&x, n * sizeof(float)));
    CK(cudaMalloc(&out, n * sizeof(float)));
    CK(cudaMalloc(&tmp, n * sizeof(float)));
    CK(cudaMalloc(&tot, sizeof(float)));
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    cudaGraph_t g;
    cudaGraphExec_t ge;
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    cq_smooth(s, n, out, x, tmp);
    CK(cudaStreamEndCapture(s, &g));
    size_t nodes = 0;
    CK(cudaGraphGetNodes(g, NULL, &nodes));
    CK(cudaGraphInstantiate(&ge, g, 0));
    int bad = 0;
    for (int rep = 0; rep < 3; rep++) {
        for (size_t i = 0; i < n; i++) hx[i] = (float)((i * 7 + rep) % 13) - 3.0f + 0.25f * rep;
        CK(cudaMemcpyAsync(x, hx, n * sizeof(float), cudaMemcpyHostToDevice, s));
        CK(cudaGraphLaunch(ge, s));
        CK(cudaMemcpyAsync(ho, out, n * sizeof(float), cudaMemcpyDeviceToHost, s));
        CK(cudaStreamSynchronize(s));
        for (size_t i = 0; i < n; i++) bad += ho[i] != 2.0f * hx[i] + 1.0f;
    }
    printf("graph: %zu nodes, 3 replays, %d wrong elements\n", nodes, bad);
    cairn_smoothlib_device_stream(s);
    cf_smooth(n, out, x, tmp);
    CK(cudaMemcpy(ho, out, n * sizeof(float), cudaMemcpyDeviceToHost));
    int bad2 = 0;
    for (size_t i = 0; i < n; i++) bad2 += ho[i] != 2.0f * hx[i] + 1.0f;
    cf_total(n, x, tot);
    float t;
    CK(cudaMemcpy(&t, tot, sizeof t, cudaMemcpyDeviceToHost));
    double exact = 0;
    for (size_t i = 0; i < n; i++) exact += hx[i];
    cairn_smoothlib_device_stream(NULL);
    int bad3 = fabs(t - exact) > 1e-5 * fabs(exact) + 1e-3;
    printf("cf_smooth on a bound stream: %d wrong; cf_total %.9g, exact %.9g\n", bad2, t, exact);
    return (nodes == 2 && !bad && !bad2 && !bad3) ? 0 : 1;
}
