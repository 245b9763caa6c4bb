/*
 * dsum_finish.cu: the last step of the device's exact sum (runtime/cairn_devsum.h,
 * cn_dsum_finish), where one warp carries and rounds the total the blocks left, held to the
 * host's rounding of the same total (cairn_sum.h: cn_sum_acc_carry and cn_sum_acc_round, which
 * tests/unit/test_sum.c holds to MPFR) on many totals, one block a total:
 *
 *   f64   68 digits of random size (up to 2^46, as many blocks' carried digits add up to),
 *         sparse ones, runs of full and empty digits that a carry must ripple through (both
 *         signs), magnitudes at a rounding tie, just above and below it, subnormal results,
 *         overflow, zeros with each zero's flags, and each special flag
 *   f32   the 17 limbs of the f32 sum (cn_dsum32_to_acc), the same families
 *
 * Every result must have the host's bits. With --time, also the finish's time: one block
 * launched alone, against an empty launch, medians of 200 (bench/dev/timing.h).
 *
 * Prints PASS/FAIL lines and `dsum_finish: N passed, N failed`; exits 1 on a failure.
 */
#include "cairn_rt.h"
#include "cairn_par.h"
#include "cairn_exec.h"

#include "../../bench/dev/timing.h"

#include <cstring>
#include <string>

static __global__ void finish_kernel(struct cn_dsum_total *tot, int wide, double *out)
{
    struct cn_dsum_total *t = &tot[blockIdx.x];
    double r = wide ? cn_dsum_finish(t, 1, 53, -1074, 1024) : cn_dsum_finish(t, 0, 24, -149, 128);
    if (threadIdx.x == 0)
        out[blockIdx.x] = r;
}

static __global__ void empty_kernel(double *out)
{
    if (threadIdx.x == 0)
        out[blockIdx.x] = 1.0;
}

static uint64_t rng_state = 88172645463325252ull;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}
static int64_t rnd_signed(int bits) { return (int64_t)(rnd() >> (64 - bits)) - ((int64_t)1 << (bits - 1)); }

/* The host's answer for a total (digits, or limbs when !wide), as the bits the device stores. */
static uint64_t host_bits(const struct cn_dsum_total &t, int wide)
{
    static cn_sum_acc a;
    cn_sum_acc_init(&a);
    if (wide)
        memcpy(a.digit, t.digit, sizeof a.digit);
    else
        cn_dsum32_to_acc(&a, t.digit);
    a.flags = t.flags;
    cn_sum_acc_carry(&a);
    double r = wide ? cn_sum_acc_round(&a, 53, -1074, 1024) : cn_sum_acc_round(&a, 24, -149, 128);
    if (wide) {
        uint64_t b;
        memcpy(&b, &r, 8);
        return b;
    }
    float f = r == r ? (float)r : cn_sum_f32_qnan();
    uint32_t b;
    memcpy(&b, &f, 4);
    return b;
}

/* One total of family fam (the words the blocks left: digits when wide, limbs when not). */
static struct cn_dsum_total make_total(int fam, int wide)
{
    struct cn_dsum_total t;
    memset(&t, 0, sizeof t);
    int count = wide ? (int)CN_SUM_DIGITS : (int)CN_DSUM32_LIMBS;
    t.flags = CN_SUM_SAW_TERM | CN_SUM_SAW_NOT_NEGZERO;
    switch (fam) {
    case 0: /* every word random, up to 2^46 */
        for (int i = 0; i < count; i++)
            t.digit[i] = rnd_signed(1 + (int)(rnd() % 46));
        if (wide)
            t.digit[count - 1] = rnd_signed(4) / 4; /* past 2^1024 overflows: keep the top small */
        break;
    case 1: /* a few words, anywhere */
        for (int k = 0; k < 3; k++)
            t.digit[rnd() % (unsigned)count] = rnd_signed(1 + (int)(rnd() % 40));
        break;
    case 2: { /* a run of full words, and a carry into it from below (or a borrow through zeros) */
        int lo = (int)(rnd() % (unsigned)(count - 2)), hi = lo + 1 + (int)(rnd() % (unsigned)(count - 1 - lo));
        int64_t full = wide ? 0xffffffffll : 0xffffll, sign = rnd() & 1 ? 1 : -1;
        for (int i = lo + 1; i < hi; i++)
            t.digit[i] = sign > 0 ? full : 0;
        t.digit[lo] = sign > 0 ? full + 1 : -1;
        t.digit[hi] = sign > 0 ? (int64_t)(rnd() % 3) : 1 + (int64_t)(rnd() % 3);
        break;
    }
    case 3: { /* one word near a power of two's rounding tie: the digits of 2^k +- a few */
        int i = (int)(rnd() % (unsigned)(count - 1));
        t.digit[i] = (int64_t)1 << (wide ? 31 : 15);
        t.digit[i + 1] = rnd_signed(20);
        if (i > 0)
            t.digit[i - 1] = (int64_t)(rnd() % 5) - 2;
        break;
    }
    case 4: /* cancels to zero, or to -0.0's case */
        t.flags = rnd() & 1 ? CN_SUM_SAW_TERM : (rnd() & 1 ? 0u : CN_SUM_SAW_TERM | CN_SUM_SAW_NOT_NEGZERO);
        if (rnd() & 1) {
            int i = (int)(rnd() % (unsigned)(count - 1));
            t.digit[i] = (int64_t)1 << 32;
            t.digit[i + 1] = -1;
        }
        break;
    case 5: { /* a special flag over random words */
        static const uint32_t sp[] = {CN_SUM_SAW_NAN, CN_SUM_SAW_PINF, CN_SUM_SAW_NINF, CN_SUM_SAW_PINF | CN_SUM_SAW_NINF};
        for (int i = 0; i < count; i++)
            t.digit[i] = rnd_signed(30);
        t.flags |= sp[rnd() % 4];
        break;
    }
    case 6: /* near the top: overflow, or just short of it */
        if (wide) {
            t.digit[65] = rnd_signed(32);
            t.digit[64] = rnd_signed(40);
            t.digit[63] = rnd_signed(40);
        } else {
            t.digit[16] = rnd_signed(4);
            t.digit[15] = rnd_signed(40);
            t.digit[14] = rnd_signed(30);
        }
        break;
    default: /* the bottom: subnormal results */
        for (int i = 0; i < 3; i++)
            t.digit[i] = rnd_signed(1 + (int)(rnd() % 40));
        break;
    }
    return t;
}

int main(int argc, char **argv)
{
    bool timing = argc > 1 && !strcmp(argv[1], "--time");
    enum { FAMS = 8, EACH = 4000 };
    const size_t N = FAMS * EACH;
    struct cn_dsum_total *dt;
    double *dout;
    CK(cudaMalloc(&dt, N * sizeof *dt));
    CK(cudaMalloc(&dout, N * sizeof *dout));
    std::vector<struct cn_dsum_total> h(N);
    std::vector<double> got(N);
    int passed = 0, failed = 0;
    for (int wide = 0; wide <= 1; wide++) {
        for (size_t c = 0; c < N; c++)
            h[c] = make_total((int)(c / EACH), wide);
        CK(cudaMemcpy(dt, h.data(), N * sizeof *dt, cudaMemcpyHostToDevice));
        finish_kernel<<<(unsigned)N, 32>>>(dt, wide, dout);
        CK(cudaGetLastError());
        CK(cudaMemcpy(got.data(), dout, N * sizeof *dout, cudaMemcpyDeviceToHost));
        for (int fam = 0; fam < FAMS; fam++) {
            size_t bad = 0, first = 0;
            for (size_t c = (size_t)fam * EACH; c < (size_t)(fam + 1) * EACH; c++) {
                uint64_t want = host_bits(h[c], wide), gb;
                if (wide) {
                    memcpy(&gb, &got[c], 8);
                } else {
                    float f = got[c] == got[c] ? (float)got[c] : cn_sum_f32_qnan();
                    uint32_t b;
                    memcpy(&b, &f, 4);
                    gb = b;
                }
                if (gb != want && bad++ == 0)
                    first = c;
            }
            if (bad) {
                printf("FAIL %s family %d: %zu of %d totals differ from the host's (first: case %zu)\n", wide ? "f64" : "f32",
                       fam, bad, EACH, first);
                failed++;
            } else {
                printf("PASS %s family %d: %d totals, the host's bits\n", wide ? "f64" : "f32", fam, EACH);
                passed++;
            }
        }
        if (timing) {
            cudaStream_t s;
            CK(cudaStreamCreate(&s));
            float fin = median_ms(s, 200, [&] { finish_kernel<<<1, 32, 0, s>>>(dt, wide, dout); });
            float emp = median_ms(s, 200, [&] { empty_kernel<<<1, 32, 0, s>>>(dout); });
            printf("# time %s: finish %.2f us, empty launch %.2f us\n", wide ? "f64" : "f32", fin * 1000, emp * 1000);
            CK(cudaStreamDestroy(s));
        }
    }
    printf("dsum_finish: %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
