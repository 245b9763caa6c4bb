/*
 * forms_agree.c: the host's two forms of the f32 math on all 2^32 inputs (make test-exhaustive).
 *
 * runtime/cairn_math_base.h compiles each f32 function's first try in one of two forms: the plain
 * one (every operation rounded once, no fused multiply-add) and, on a host with FMA (cairn build
 * passes -mfma there) or on the GPU, the FMA one. The MPFR checkers prove the plain forms correctly
 * rounded on every input (check_FAMILY --exhaustive); math_agree.cu shows the GPU's equal to them.
 * This program closes the third side: built once plain and once with -mfma, it prints a hash of
 * every chunk of 2^24 inputs, and tests/math/exhaustive_math.sh requires the two outputs to be
 * identical. Equal hashes mean equal results: a chunk's hash folds each result's bits in turn,
 * h = (h ^ bits) * P modulo 2^64 with P odd (FNV-1a's step on 32-bit words), and each step is a
 * bijection of h, so a single difference always changes the hash; several would have to collide
 * in 64 bits. (A weighted sum would not do: a constant offset of the bits over a chunk, as log2
 * makes from one binade to the next, can cancel in it.)
 *
 * The two-argument functions take x over all 2^32 bit patterns and y from the input's index:
 * a list of ordinary exponents and arguments (integers, halves, negatives, extremes) for even
 * chunks, a scrambled bit pattern for odd ones.
 *
 *   forms_agree FUNCTION [THREADS [STRIDE]]   prints "FUNCTION CHUNK HASH" for every STRIDE-th
 *                                             of the 256 chunks (default 1: all of them)
 */
#include "../../runtime/cairn_math.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef float (*Fn1)(float);
typedef float (*Fn2)(float, float);

static const struct {
    const char *name;
    Fn1 f1;
    Fn2 f2;
} fns[] = {
    {"exp", cn_math_exp_f32, 0},   {"exp2", cn_math_exp2_f32, 0}, {"expm1", cn_math_expm1_f32, 0},
    {"tanh", cn_math_tanh_f32, 0}, {"log", cn_math_log_f32, 0},   {"log2", cn_math_log2_f32, 0},
    {"log1p", cn_math_log1p_f32, 0}, {"sin", cn_math_sin_f32, 0}, {"cos", cn_math_cos_f32, 0},
    {"erf", cn_math_erf_f32, 0},   {"atan", cn_math_atan_f32, 0}, {"pow", 0, cn_math_pow_f32},
    {"atan2", 0, cn_math_atan2_f32},
};

enum { CHUNKS = 256, CHUNK = 1 << 24 };

static const float ys[16] = {2.0f, 0.5f, -1.0f, 3.0f, 1.75f, -2.5f, 0.1f, 7.0f,
                             -0.333f, 24.0f, 1e-3f, -100.0f, 1.5f, 0.0f, -0.5f, 65.5f};

typedef struct {
    int fn;
    int next, stride; /* the next chunk to take (under the lock), the step between chunks */
    pthread_mutex_t lock;
    uint64_t hash[CHUNKS];
} Job;

static uint32_t bits32(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static float f32(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

/* The second argument for input u in chunk c. */
static float second(uint32_t u, int c)
{
    if (!(c & 1))
        return ys[u & 15];
    uint32_t h = u * 0x9e3779b1u;
    return f32(h ^ (h >> 15));
}

static uint64_t chunk_hash(int fn, int c)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (uint32_t i = 0; i < CHUNK; i++) {
        uint32_t u = (uint32_t)c * CHUNK + i;
        float x = f32(u);
        float r = fns[fn].f1 ? fns[fn].f1(x) : fns[fn].f2(x, second(u, c));
        h = (h ^ bits32(r)) * 0x100000001b3ull;
    }
    return h;
}

static void *worker(void *p)
{
    Job *j = p;
    for (;;) {
        pthread_mutex_lock(&j->lock);
        int c = j->next;
        j->next += j->stride;
        pthread_mutex_unlock(&j->lock);
        if (c >= CHUNKS)
            return 0;
        j->hash[c] = chunk_hash(j->fn, c);
    }
}

int main(int argc, char **argv)
{
    int n = (int)(sizeof fns / sizeof fns[0]), fn = -1;
    for (int i = 0; argc > 1 && i < n; i++)
        if (!strcmp(argv[1], fns[i].name))
            fn = i;
    int threads = argc > 2 ? atoi(argv[2]) : 1, stride = argc > 3 ? atoi(argv[3]) : 1;
    if (fn < 0 || threads < 1 || threads > 1024 || stride < 1 || stride > CHUNKS) {
        fprintf(stderr, "usage: forms_agree FUNCTION [THREADS [STRIDE]] (FUNCTION: exp exp2 expm1 tanh log log2 log1p sin "
                        "cos erf atan pow atan2)\n");
        return 2;
    }
    static Job j;
    j.fn = fn;
    j.stride = stride;
    pthread_mutex_init(&j.lock, 0);
    pthread_t t[1024];
    for (int i = 0; i < threads; i++)
        if (pthread_create(&t[i], 0, worker, &j)) {
            fprintf(stderr, "forms_agree: cannot start a thread\n");
            return 2;
        }
    for (int i = 0; i < threads; i++)
        pthread_join(t[i], 0);
    for (int c = 0; c < CHUNKS; c += stride)
        printf("%s %d %016llx\n", fns[fn].name, c, (unsigned long long)j.hash[c]);
    return 0;
}
