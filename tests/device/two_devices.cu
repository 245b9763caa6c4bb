/*
 * two_devices.cu: the execution context per device on real GPUs (issue 20; runtime/cairn_exec.h), as
 * tests/unit/test_exec_devices.c shows it on the counting machine. Where two or more GPUs are
 * present:
 *   - one thread moving between devices 0 and 1 with cudaSetDevice gets each device's context, its
 *     stream made on that device (cudaStreamGetDevice), and its work lands in that device's memory;
 *   - two threads, one a device, each run a kernel through cn_exec_get on its own device at once;
 *   - each thread's contexts go when it ends.
 * With fewer GPUs it prints a SKIP line and `0 passed, 0 failed, 1 skipped`.
 */
#include "cairn_rt.h"
#include "cairn_exec.h"

#include <pthread.h>

#include <cstdio>
#include <vector>

static int passed, failed;
#define EXPECT(c, ...) do { if (c) passed++; else { failed++; printf("FAIL "); printf(__VA_ARGS__); printf("\n"); } } while (0)

struct k_add {
    unsigned long long *out;
    unsigned long long add;
};
CN_DEV_LANE void k_add_lane(const struct k_add *a, size_t i) { a->out[i] += a->add + i; }
static const char k_add_what[] = "k_add";
CN_DEV_KERNEL(k_add, struct k_add, k_add_lane, 256)

enum { N = 1 << 16 };

/* On device d: a buffer there, the kernel through the thread's context, the result back. */
static bool run_on(int d, unsigned long long add)
{
    cn_dev_select(d);
    struct cn_exec *x = cn_exec_get();
    int sd = -1;
    cudaStreamGetDevice(x->run->cu, &sd);
    unsigned long long *out = NULL;
    if (cudaMalloc(&out, N * 8) != cudaSuccess || cudaMemset(out, 0, N * 8) != cudaSuccess)
        return false;
    struct k_add a = {out, add};
    cn_exec_launch(x, &k_add, N, &a);
    cn_exec_leave();
    std::vector<unsigned long long> h(N);
    cudaMemcpy(h.data(), out, N * 8, cudaMemcpyDeviceToHost);
    cudaPointerAttributes pa;
    cudaPointerGetAttributes(&pa, out);
    cudaFree(out);
    size_t bad = 0;
    for (size_t i = 0; i < N; i++)
        bad += h[i] != add + i;
    EXPECT(x->device == d && sd == d && pa.device == d, "device %d: context %d, stream %d, memory %d", d, x->device,
           sd, pa.device);
    EXPECT(bad == 0, "device %d: %zu wrong", d, bad);
    return true;
}

static void *thread_main(void *p)
{
    int d = *(int *)p;
    run_on(d, 100 * (unsigned long long)d);
    return NULL;
}

int main()
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n < 2) {
        printf("SKIP two_devices: %d GPU(s) here, two needed\n0 passed, 0 failed, 1 skipped\n", n);
        return 0;
    }
    for (int round = 0; round < 3; round++)
        for (int d = 0; d < 2; d++)
            run_on(d, 7 + (unsigned long long)round);
    cn_dev_select(0);
    struct cn_exec *x0 = cn_exec_get();
    cn_dev_select(1);
    struct cn_exec *x1 = cn_exec_get();
    EXPECT(x0 != x1, "one thread, two devices, two contexts");
    cn_exec_release_thread();
    pthread_t t[2];
    int ds[2] = {0, 1};
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, thread_main, &ds[i]);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    printf("two_devices: %d passed, %d failed\n%d passed, %d failed, 0 skipped\n", passed, failed, passed, failed);
    return failed != 0;
}
