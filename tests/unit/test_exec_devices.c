/*
 * test_exec_devices.c: the execution context per device (issue 20; runtime/cairn_exec.h), on the
 * counting machine with two emulated devices (cn_dev_emu_devices), as tests/device/two_devices.cu
 * shows it on two GPUs:
 *
 *   - a thread's context is the current device's: device 0's and device 1's are two, each with its
 *     own stream made while its device was current, its own arena and its own open run; moving back
 *     to a device finds its context again, making nothing;
 *   - work queued while device 1 is current goes on device 1's run, and leaving (a return to a C
 *     caller) waits for the current device's run;
 *   - waiting for a ticket while another device is current is refused with its message;
 *   - two threads on two devices have four contexts between them, and a thread that ends gives its
 *     own back; cn_exec_release_thread gives back every context of the caller's;
 *   - a cq_ entry's stack context stands in for the current device's only, and puts it back.
 *
 * Prints FAIL lines and `N passed, N failed, 0 skipped`.
 */
#define CAIRN_COUNT 1
#include "cairn_exec.h"

#include "child_guard.h"
#include "expect.h"

#include <pthread.h>

struct k_add {
    uint64_t *out;
    uint64_t add;
};
CN_DEV_LANE void k_add_lane(const struct k_add *a, size_t i) { a->out[i] += a->add + i; }
static const char k_add_what[] = "k_add";
CN_DEV_KERNEL(k_add, struct k_add, k_add_lane, 256)

static void add_on_current(uint64_t *out, size_t n, uint64_t add)
{
    struct k_add a = {out, add};
    cn_exec_launch(cn_exec_get(), &k_add, n, &a);
}

static struct cn_exec *ctx_on(int d)
{
    cn_dev_select(d);
    return cn_exec_get();
}

/* ------------------------------------------------------------ one thread, two devices */

static void one_thread(void)
{
    struct cn_dev_counts c0 = cn_dev_count_snapshot();
    struct cn_exec *x0 = ctx_on(0), *x1 = ctx_on(1);
    struct cn_dev_counts c1 = cn_dev_count_snapshot();
    EXPECT(x0 && x1 && x0 != x1, "two devices, two contexts");
    EXPECT(x0->device == 0 && x1->device == 1, "each context names its device: %d %d", x0->device, x1->device);
    EXPECT(x0->own.device == 0 && x1->own.device == 1, "each context's stream was made on its device: %d %d",
           x0->own.device, x1->own.device);
    EXPECT(c1.stream_create - c0.stream_create == 2, "two streams made, one a device: %lu",
           c1.stream_create - c0.stream_create);
    EXPECT(ctx_on(0) == x0 && ctx_on(1) == x1, "moving back finds the same context");
    EXPECT(cn_dev_count_snapshot().stream_create == c1.stream_create, "and makes nothing");

    /* scratch: device 1's arena only */
    cn_dev_select(1);
    void *s1 = cn_exec_scratch(x1, 4096, "t.cairn", 1, 1);
    EXPECT(s1 && x1->arena == s1 && !x0->arena, "device 1's scratch is device 1's arena alone");

    /* work on device 1's run; leaving waits for the current device's run */
    uint64_t out[300] = {0};
    add_on_current(out, 300, 7);
    EXPECT(x1->open_run && !x0->open_run, "device 1's work opens device 1's run only");
    unsigned long w1 = x1->run->waits;
    cn_dev_select(0);
    cn_exec_leave();
    EXPECT(x1->open_run && x1->run->waits == w1, "leaving on device 0 does not wait for device 1's run");
    cn_dev_select(1);
    cn_exec_leave();
    EXPECT(!x1->open_run && x1->run->waits == w1 + 1, "leaving on device 1 waits once for its run");
    size_t bad = 0;
    for (size_t i = 0; i < 300; i++)
        bad += out[i] != 7 + i;
    EXPECT(bad == 0, "the work ran: %zu wrong", bad);

    /* a cq_ entry's context stands in for the current device's alone */
    cn_dev_select(0);
    struct cn_exec q;
    struct cn_exec *saved = cn_exec_enqueue_begin(&q, NULL);
    EXPECT(saved == x0 && cn_exec_get() == &q && q.device == 0, "an entry's context stands in for device 0's");
    cn_dev_select(1);
    EXPECT(cn_exec_get() == x1, "and not for device 1's");
    cn_dev_select(0);
    cn_exec_enqueue_end(&q, saved);
    EXPECT(cn_exec_get() == x0, "and puts device 0's back");

    /* release: both contexts go */
    struct cn_dev_counts r0 = cn_dev_count_snapshot();
    cn_exec_release_thread();
    struct cn_dev_counts r1 = cn_dev_count_snapshot();
    EXPECT(r1.stream_destroy - r0.stream_destroy == 2, "releasing the thread destroys both contexts' streams: %lu",
           r1.stream_destroy - r0.stream_destroy);
    EXPECT(cn_exec_current() == NULL, "and leaves none");
    EXPECT(cn_dev_current() == 0, "the current device is the thread's own again: %d", cn_dev_current());
}

/* ------------------------------------------------------------ a ticket on another device */

static void wait_elsewhere(void)
{
    cn_dev_emu_devices(2);
    cn_dev_select(1);
    uint64_t out[64] = {0};
    struct k_add a = {out, 1};
    struct cn_ticket t = cn_exec_spawn_launch(cn_exec_get(), &k_add, 64, &a, NULL, 0, "t.cairn", 3, 5);
    cn_dev_select(0);
    cn_exec_wait(&t, "t.cairn", 4, 5);
}

/* ------------------------------------------------------------ two threads */

struct job {
    int device;
    int served;           /* the device its context served */
    uint64_t out[100];
};

static void *thread_main(void *p)
{
    struct job *j = p;
    cn_dev_select(j->device);
    j->served = cn_exec_get()->device;
    add_on_current(j->out, 100, (uint64_t)j->device * 1000);
    cn_exec_leave();
    return NULL;   /* the thread's end gives its context back */
}

static void two_threads(void)
{
    struct cn_dev_counts c0 = cn_dev_count_snapshot();
    struct job a = {0, -1, {0}}, b = {1, -1, {0}};
    pthread_t ta, tb;
    pthread_create(&ta, NULL, thread_main, &a);
    pthread_create(&tb, NULL, thread_main, &b);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    struct cn_dev_counts c1 = cn_dev_count_snapshot();
    EXPECT(a.served == 0 && b.served == 1, "each thread's context serves its device: %d %d", a.served, b.served);
    size_t bad = 0;
    for (size_t i = 0; i < 100; i++)
        bad += a.out[i] != i || b.out[i] != 1000 + i;
    EXPECT(bad == 0, "each thread's work ran on its device: %zu wrong", bad);
    EXPECT(c1.stream_create - c0.stream_create == 2 && c1.stream_destroy - c0.stream_destroy == 2,
           "each thread made one context and gave it back when it ended: %lu made, %lu destroyed",
           c1.stream_create - c0.stream_create, c1.stream_destroy - c0.stream_destroy);
}

int main(void)
{
    cn_dev_emu_devices(2);
    one_thread();
    two_threads();
    EXPECT(child_guard(wait_elsewhere, "t.cairn:4:5: guard failed: queued work: a ticket of work on another device "
                                       "than the current one: make its device current before the wait"),
           "a wait while another device is current is refused");
    return expect_summary();
}
