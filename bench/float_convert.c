/*
 * float_convert.c: conversions a second from f32 into each storage float,
 * with runtime/cairn_float.h, on one core, against the C compiler's own
 * conversions: gcc's (_Float16)x, and (__bf16)x where the compiler has
 * __bf16 (gcc 13 on x86; build with -DHAVE_BF16).
 *
 * Each converter runs over the same kind of input: N random f32 values
 * (seeded) whose magnitudes spread over the format's range, subnormals
 * included, and never past it (f8e4m3 would trap). Each is timed RUNS
 * times; the median is printed, in millions of conversions a second, with
 * a checksum of the outputs so that nothing is optimised away. Widening
 * and quantize are timed too, for scale.
 *
 *   bash bench/float_convert.sh
 */
#include "cairn_float.h"

#include <time.h>

enum { N = 1 << 22, RUNS = 9 };

static uint64_t seed = 0x2545f4914f6cdd1dull;
static uint64_t next(void)
{
    seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
    return seed;
}

/* Random values of magnitude in [2^lo, 2^hi), capped at max, either sign. */
static void fill(float *x, int lo, int hi, float max)
{
    for (size_t i = 0; i < N; i++) {
        uint64_t r = next();
        float v = ldexpf(1.0f + (float)(r & 0x7fffff) / 8388608.0f, lo + (int)((r >> 24) % (uint64_t)(hi - lo)));
        if (v > max)
            v = max;
        x[i] = (r >> 63) ? -v : v;
    }
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static uint16_t out16[N];
static uint8_t out8[N];
static uint32_t outf[N];   /* widened values, as their bits */
static int8_t outi8[N];

/* One converter: a loop the compiler can inline the conversion into. */
#define CONVERTER(NAME, OUT, EXPR)                                            \
    static uint64_t run_##NAME(const float *in)                               \
    {                                                                         \
        for (size_t i = 0; i < N; i++) {                                      \
            float x = in[i];                                                  \
            (void)x;                                                          \
            OUT[i] = (EXPR);                                                  \
        }                                                                     \
        uint64_t sum = 0;                                                     \
        for (size_t i = 0; i < N; i += 61)                                    \
            sum = sum * 31 + (uint64_t)OUT[i];                                \
        return sum;                                                           \
    }

CONVERTER(cn_f16, out16, cn_narrow_f16(x, "b", 1, 1))
CONVERTER(cn_bf16, out16, cn_narrow_bf16(x, "b", 1, 1))
CONVERTER(cn_f8e4m3, out8, cn_narrow_f8e4m3(x, "b", 1, 1))
CONVERTER(cn_f8e5m2, out8, cn_narrow_f8e5m2(x, "b", 1, 1))
CONVERTER(cn_widen_f16, outf, cn_float_f32_bits(cn_widen_f16((cn_f16)cn_float_f32_bits(x))))
CONVERTER(cn_quantize_i8, outi8, cn_quantize_i8(x, 0.37f, "b", 1, 1))
CONVERTER(cn_quantize_e4m3, out8, cn_quantize_f8e4m3(x, 0.37f, "b", 1, 1))
CONVERTER(cn_quantize_e4m3_pow2, out8, cn_quantize_f8e4m3(x, 0.25f, "b", 1, 1))

static uint16_t f16_bits(_Float16 h) { uint16_t u; memcpy(&u, &h, 2); return u; }
CONVERTER(gcc_f16, out16, f16_bits((_Float16)x))
#ifdef HAVE_BF16
static uint16_t bf16_bits(__bf16 h) { uint16_t u; memcpy(&u, &h, 2); return u; }
CONVERTER(gcc_bf16, out16, bf16_bits((__bf16)x))
#endif

static void bench(const char *name, uint64_t (*run)(const float *), const float *in)
{
    double t[RUNS];
    uint64_t sum = 0;
    run(in);   /* warm the caches and the page tables */
    for (int r = 0; r < RUNS; r++) {
        double t0 = now();
        sum = run(in);
        t[r] = now() - t0;
    }
    qsort(t, RUNS, sizeof t[0], cmp_double);
    printf("%-34s %8.1f M/s   %6.2f ns each   (checksum %016llx)\n", name, N / t[RUNS / 2] / 1e6,
           t[RUNS / 2] / N * 1e9, (unsigned long long)sum);
}

int main(void)
{
    static float in_f16[N], in_bf16[N], in_e4m3[N], in_e5m2[N];
    fill(in_f16, -26, 16, 65504.0f);
    fill(in_bf16, -135, 127, 3.0e38f);
    fill(in_e4m3, -11, 9, 448.0f);
    fill(in_e5m2, -18, 16, 57344.0f);
    printf("f32 -> storage float, %d random inputs in each format's range, median of %d runs, one core\n",
           N, RUNS);
    bench("cairn  f16    cn_narrow_f16", run_cn_f16, in_f16);
    bench("gcc    f16    (_Float16)x", run_gcc_f16, in_f16);
    bench("cairn  bf16   cn_narrow_bf16", run_cn_bf16, in_bf16);
#ifdef HAVE_BF16
    bench("gcc    bf16   (__bf16)x", run_gcc_bf16, in_bf16);
#else
    printf("gcc    bf16   (__bf16)x              -- this compiler has no __bf16 conversion\n");
#endif
    bench("cairn  f8e4m3 cn_narrow_f8e4m3", run_cn_f8e4m3, in_e4m3);
    bench("cairn  f8e5m2 cn_narrow_f8e5m2", run_cn_f8e5m2, in_e5m2);
    printf("for scale:\n");
    bench("cairn  f16 -> f32 cn_widen_f16", run_cn_widen_f16, in_f16);
    bench("cairn  quantize[i8](x, 0.37)", run_cn_quantize_i8, in_e4m3);
    bench("cairn  quantize[f8e4m3](x, 0.37)", run_cn_quantize_e4m3, in_e4m3);
    bench("cairn  quantize[f8e4m3](x, 0.25)", run_cn_quantize_e4m3_pow2, in_e4m3);
    return 0;
}
