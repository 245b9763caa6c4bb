/*
 * test_runtime.c: runtime/cairn_rt.h against independent oracles.
 *
 *   - checked + - * / % of every integer type against __int128 arithmetic:
 *     every pair of i8 and of u8, edge values and random values for the rest;
 *   - narrowing and float-to-integer conversions against wide comparisons;
 *   - shifts against 64-bit shifts;
 *   - float printing: random bit patterns of f32 and f64 read back to the
 *     same bits, and known values print short;
 *   - min/max on NaN and signed zeros (IEEE 754-2019 minimum/maximum);
 *   - storage floats: every bit pattern round-trips, and f16 rounding agrees
 *     with the C compiler's _Float16 where it has one;
 *   - a failing guard, in a child process: SIGABRT and the exact message.
 *
 * A guard that fails inside this process is caught: SIGABRT's handler jumps
 * back (abort() lets a handler that does not return take over), with stderr
 * sent to /dev/null meanwhile.
 * Prints `N passed, N failed, 0 skipped`; exits 1 on a failure.
 */
#include "child_guard.h"
#include "cairn_rt.h"

#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

typedef __int128 i128;
typedef unsigned __int128 u128;

/* The variables live across sigsetjmp are never written after it, so
 * longjmp cannot clobber them; gcc's warning is conservative here. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wclobbered"
#endif

/* a * b fits [lo, hi]? In unsigned 128 bits when both are non-negative (two
 * u64 multiply past i128's range), in signed 128 bits otherwise. */
static bool mul_fits(i128 a, i128 b, i128 lo, i128 hi)
{
    if (a >= 0 && b >= 0)
        return (u128)a * (u128)b <= (u128)hi;
    i128 p = a * b;
    return p >= lo && p <= hi;
}

/* A property is one `what` label (e.g. "i8 +"): it passes when every input
 * checked under it passed. The summary counts properties, not inputs, so the
 * suite's total stays readable; `checks` counts the inputs. */
enum { MAX_PROPS = 1024 };
typedef struct {
    long passed, failed, checks;
    int nprops;
    char names[MAX_PROPS][96];
    bool bad[MAX_PROPS];
} Tally;

static int prop_index(Tally *t, const char *what)
{
    for (int i = t->nprops - 1; i >= 0; i--)
        if (!strcmp(t->names[i], what))
            return i;
    if (t->nprops == MAX_PROPS)
        return MAX_PROPS - 1;
    snprintf(t->names[t->nprops], sizeof t->names[0], "%s", what);
    return t->nprops++;
}

static sigjmp_buf trap_jump;

static void on_abort(int sig)
{
    (void)sig;
    siglongjmp(trap_jump, 1);
}

static void check(Tally *t, bool ok, const char *what, long long a, long long b)
{
    t->checks++;
    int p = prop_index(t, what);
    if (ok)
        return;
    t->bad[p] = true;
    if (t->failed++ < 30)
        printf("FAIL %s (a=%lld b=%lld)\n", what, a, b);
}

/* Runs stmt; true when a guard failed in it. */
#define TRAPS(trapped, stmt)                                                  \
    do {                                                                      \
        if (sigsetjmp(trap_jump, 1) == 0) {                                   \
            stmt;                                                             \
            trapped = false;                                                  \
        } else {                                                              \
            trapped = true;                                                   \
        }                                                                     \
    } while (0)

#define AT "t.cairn", 1, 1

/* ------------------------------------------------------------ integers */

/* One binary operation of one type against the wide oracle. */
#define TEST_BINOP(T, C, MINV, MAXV)                                          \
    static void test_binop_##T(Tally *t, C a, C b)                            \
    {                                                                         \
        i128 wa = a, wb = b, lo = MINV, hi = MAXV;                            \
        volatile C r = 0;                                                     \
        bool trapped;                                                         \
        TRAPS(trapped, r = cn_add_##T(a, b, AT));                             \
        check(t, trapped == (wa + wb < lo || wa + wb > hi) && (trapped || r == (C)(wa + wb)), \
              #T " +", (long long)a, (long long)b);                           \
        TRAPS(trapped, r = cn_sub_##T(a, b, AT));                             \
        check(t, trapped == (wa - wb < lo || wa - wb > hi) && (trapped || r == (C)(wa - wb)), \
              #T " -", (long long)a, (long long)b);                           \
        TRAPS(trapped, r = cn_mul_##T(a, b, AT));                             \
        check(t, trapped == !mul_fits(wa, wb, lo, hi) && (trapped || r == (C)(uint64_t)((u128)wa * (u128)wb)), \
              #T " *", (long long)a, (long long)b);                           \
        bool bad = wb == 0 || (wb != 0 && (wa / wb < lo || wa / wb > hi));    \
        TRAPS(trapped, r = cn_div_##T(a, b, AT));                             \
        check(t, trapped == bad && (trapped || r == (C)(wa / wb)), #T " /", (long long)a, (long long)b); \
        TRAPS(trapped, r = cn_rem_##T(a, b, AT));                             \
        check(t, trapped == bad && (trapped || r == (C)(wa % wb)), #T " %", (long long)a, (long long)b); \
        check(t, cn_add_wrap_##T(a, b) == (C)(uint64_t)(wa + wb), #T " add_wrap", (long long)a, (long long)b); \
        check(t, cn_sub_wrap_##T(a, b) == (C)(uint64_t)(wa - wb), #T " sub_wrap", (long long)a, (long long)b); \
        check(t, cn_mul_wrap_##T(a, b) == (C)(uint64_t)((u128)wa * (u128)wb), #T " mul_wrap", (long long)a, (long long)b); \
        check(t, cn_min_##T(a, b) == (a < b ? a : b) && cn_max_##T(a, b) == (a < b ? b : a), \
              #T " min/max", (long long)a, (long long)b);                     \
    }                                                                         \
    static void test_unop_##T(Tally *t, C a)                                  \
    {                                                                         \
        i128 wa = a, lo = MINV, hi = MAXV;                                    \
        volatile C r = 0;                                                     \
        bool trapped;                                                         \
        TRAPS(trapped, r = cn_neg_##T(a, AT));                                \
        check(t, trapped == (-wa < lo || -wa > hi) && (trapped || r == (C)-wa), #T " neg", (long long)a, 0); \
        i128 aa = wa < 0 ? -wa : wa;                                          \
        TRAPS(trapped, r = cn_abs_##T(a, AT));                                \
        check(t, trapped == (aa > hi) && (trapped || r == (C)aa), #T " abs", (long long)a, 0); \
        check(t, cn_neg_wrap_##T(a) == (C)(uint64_t)(-wa), #T " neg_wrap", (long long)a, 0); \
        int bits = (int)sizeof(C) * 8;                                        \
        for (long long k = -1; k <= bits; k++) {                              \
            TRAPS(trapped, r = cn_shl_##T(a, k, AT));                         \
            bool out = k < 0 || k >= bits;                                    \
            check(t, trapped == out && (trapped || r == (C)((uint64_t)wa << k)), #T " shl", (long long)a, k); \
            TRAPS(trapped, r = cn_shr_##T(a, k, AT));                         \
            i128 want = out ? 0 : (wa < 0 ? -((-wa - 1) >> k) - 1 : wa >> k); \
            check(t, trapped == out && (trapped || r == (C)want), #T " shr", (long long)a, k); \
        }                                                                     \
    }                                                                         \
    static void test_conv_##T(Tally *t, i128 v)                               \
    {                                                                         \
        i128 lo = MINV, hi = MAXV;                                            \
        volatile C r = 0;                                                     \
        bool trapped, fits = v >= lo && v <= hi;                              \
        if (v >= INT64_MIN && v <= INT64_MAX) {                               \
            TRAPS(trapped, r = cn_to_##T##_s((long long)v, AT));              \
            check(t, trapped == !fits && (trapped || r == (C)v), #T " narrow from signed", (long long)v, 0); \
        }                                                                     \
        if (v >= 0 && v <= (i128)UINT64_MAX) {                                \
            TRAPS(trapped, r = cn_to_##T##_u((unsigned long long)v, AT));     \
            check(t, trapped == !fits && (trapped || r == (C)v), #T " narrow from unsigned", (long long)v, 0); \
        }                                                                     \
    }                                                                         \
    static void test_f2i_##T(Tally *t, double v)                              \
    {                                                                         \
        long double lo = (long double)(i128)MINV, hi = (long double)(i128)MAXV; \
        long double tv = truncl((long double)v);                              \
        bool fits = v == v && tv >= lo && tv <= hi;                           \
        volatile C r = 0;                                                     \
        bool trapped;                                                         \
        TRAPS(trapped, r = cn_f2i_##T(v, AT));                                \
        check(t, trapped == !fits && (trapped || (long double)r == tv), #T " f2i", (long long)v, 0); \
    }

TEST_BINOP(i8, int8_t, INT8_MIN, INT8_MAX)
TEST_BINOP(i16, int16_t, INT16_MIN, INT16_MAX)
TEST_BINOP(i32, int32_t, INT32_MIN, INT32_MAX)
TEST_BINOP(i64, int64_t, INT64_MIN, INT64_MAX)
TEST_BINOP(u8, uint8_t, 0, UINT8_MAX)
TEST_BINOP(u16, uint16_t, 0, UINT16_MAX)
TEST_BINOP(u32, uint32_t, 0, UINT32_MAX)
TEST_BINOP(u64, uint64_t, 0, UINT64_MAX)
TEST_BINOP(usize, size_t, 0, SIZE_MAX)

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* Edge values of a width: 0, +-1, +-2, the extremes and their neighbours
 * (as bit patterns, so each type reads them as its own). */
static uint64_t edge(int i, int bits)
{
    uint64_t mask = bits == 64 ? ~0ull : (1ull << bits) - 1;
    uint64_t top = 1ull << (bits - 1);
    uint64_t v[] = {0, 1, 2, 3, mask, mask - 1, top, top - 1, top + 1, top - 2, 7, 100, top >> 1};
    return i < (int)(sizeof v / sizeof v[0]) ? v[i] & mask : rnd() & mask;
}

#define EDGE_PAIRS(T, C, BITS)                                                \
    for (int i = 0; i < 40; i++)                                              \
        for (int j = 0; j < 40; j++)                                          \
            test_binop_##T(t, (C)edge(i, BITS), (C)edge(j, BITS));            \
    for (int i = 0; i < 40; i++)                                              \
        test_unop_##T(t, (C)edge(i, BITS));

static void test_integers(Tally *t)
{
    for (int a = -128; a < 128; a++)
        for (int b = -128; b < 128; b++)
            test_binop_i8(t, (int8_t)a, (int8_t)b);
    for (int a = 0; a < 256; a++)
        for (int b = 0; b < 256; b++)
            test_binop_u8(t, (uint8_t)a, (uint8_t)b);
    for (int a = -128; a < 128; a++)
        test_unop_i8(t, (int8_t)a);
    for (int a = 0; a < 256; a++)
        test_unop_u8(t, (uint8_t)a);
    EDGE_PAIRS(i16, int16_t, 16)
    EDGE_PAIRS(i32, int32_t, 32)
    EDGE_PAIRS(i64, int64_t, 64)
    EDGE_PAIRS(u16, uint16_t, 16)
    EDGE_PAIRS(u32, uint32_t, 32)
    EDGE_PAIRS(u64, uint64_t, 64)
    EDGE_PAIRS(usize, size_t, 64)
}

static void test_conversions(Tally *t)
{
    i128 vals[] = {0, 1, -1, 127, 128, -128, -129, 255, 256, 32767, 32768, -32768, -32769, 65535,
                   65536, INT32_MAX, (i128)INT32_MAX + 1, INT32_MIN, (i128)INT32_MIN - 1,
                   UINT32_MAX, (i128)UINT32_MAX + 1, INT64_MAX, (i128)INT64_MAX + 1, INT64_MIN,
                   UINT64_MAX};
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        test_conv_i8(t, vals[i]), test_conv_i16(t, vals[i]), test_conv_i32(t, vals[i]);
        test_conv_i64(t, vals[i]), test_conv_u8(t, vals[i]), test_conv_u16(t, vals[i]);
        test_conv_u32(t, vals[i]), test_conv_u64(t, vals[i]), test_conv_usize(t, vals[i]);
    }
    double fv[] = {0.0, -0.0, 0.5, -0.5, -0.99, -1.0, 127.9, 128.0, -128.9, -129.0, 255.5, 256.0,
                   2147483647.9, 2147483648.0, -2147483648.9, -2147483649.0, 4294967295.5,
                   4294967296.0, 9223372036854775807.0, -9223372036854775808.0,
                   -9223372036854777856.0, 18446744073709549568.0, 18446744073709551616.0,
                   HUGE_VAL, -HUGE_VAL, NAN, 1e300, -1e-300, 65535.99, 32767.5, -32768.5};
    for (size_t i = 0; i < sizeof fv / sizeof fv[0]; i++) {
        test_f2i_i8(t, fv[i]), test_f2i_i16(t, fv[i]), test_f2i_i32(t, fv[i]);
        test_f2i_i64(t, fv[i]), test_f2i_u8(t, fv[i]), test_f2i_u16(t, fv[i]);
        test_f2i_u32(t, fv[i]), test_f2i_u64(t, fv[i]), test_f2i_usize(t, fv[i]);
    }
}

/* -------------------------------------------------------------- floats */

static void test_float_printing(Tally *t)
{
    char buf[64];
    for (int i = 0; i < 200000; i++) {
        uint32_t u = (uint32_t)rnd();
        float f;
        memcpy(&f, &u, sizeof f);
        cn_fmt_f32(buf, sizeof buf, f);
        float back = strtof(buf, NULL);
        check(t, f != f ? !strcmp(buf, "nan") : !memcmp(&back, &f, sizeof f), "f32 round trip", u, 0);
        uint64_t w = rnd();
        double d;
        memcpy(&d, &w, sizeof d);
        cn_fmt_f64(buf, sizeof buf, d);
        double dback = strtod(buf, NULL);
        check(t, d != d ? !strcmp(buf, "nan") : !memcmp(&dback, &d, sizeof d), "f64 round trip",
              (long long)w, 0);
    }
    struct { float f; const char *s; } f32s[] = {{0.1f, "0.1"}, {1.0f, "1"}, {-0.0f, "-0"},
        {3.5f, "3.5"}, {16777216.0f, "16777216"}, {1.0f / 3.0f, "0.33333334"},
        {HUGE_VALF, "inf"}, {-HUGE_VALF, "-inf"}, {1e-45f, "1e-45"}, {100.0f, "100"}, {1e-5f, "1e-05"}};
    for (size_t i = 0; i < sizeof f32s / sizeof f32s[0]; i++)
        check(t, !strcmp(cn_fmt_f32(buf, sizeof buf, f32s[i].f), f32s[i].s), f32s[i].s, (long long)i, 0);
    struct { double d; const char *s; } f64s[] = {{0.1, "0.1"}, {1e16, "1e+16"}, {0.1 + 0.2, "0.30000000000000004"},
        {1.0 / 3.0, "0.3333333333333333"}, {2.5, "2.5"}, {NAN, "nan"}, {5e-324, "5e-324"}, {100.0, "100"}};
    for (size_t i = 0; i < sizeof f64s / sizeof f64s[0]; i++)
        check(t, !strcmp(cn_fmt_f64(buf, sizeof buf, f64s[i].d), f64s[i].s), f64s[i].s, (long long)i, 0);
}

static bool same_f32(float a, float b) { return !memcmp(&a, &b, sizeof a); }
static bool same_f64(double a, double b) { return !memcmp(&a, &b, sizeof a); }

static void test_min_max(Tally *t)
{
    float nan = NAN;
    check(t, isnan(cn_min_f32(nan, 1.0f)) && isnan(cn_min_f32(1.0f, nan)), "min f32 NaN", 0, 0);
    check(t, isnan(cn_max_f32(nan, 1.0f)) && isnan(cn_max_f32(1.0f, nan)), "max f32 NaN", 0, 0);
    check(t, same_f32(cn_min_f32(0.0f, -0.0f), -0.0f) && same_f32(cn_min_f32(-0.0f, 0.0f), -0.0f),
          "min f32 signed zeros", 0, 0);
    check(t, same_f32(cn_max_f32(0.0f, -0.0f), 0.0f) && same_f32(cn_max_f32(-0.0f, 0.0f), 0.0f),
          "max f32 signed zeros", 0, 0);
    check(t, isnan(cn_min_f64(NAN, -HUGE_VAL)) && isnan(cn_max_f64(HUGE_VAL, NAN)), "min/max f64 NaN", 0, 0);
    check(t, same_f64(cn_min_f64(0.0, -0.0), -0.0) && same_f64(cn_max_f64(-0.0, 0.0), 0.0),
          "min/max f64 signed zeros", 0, 0);
    check(t, cn_min_f64(-1.0, 2.0) == -1.0 && cn_max_f64(-1.0, 2.0) == 2.0, "min/max f64", 0, 0);
    check(t, cn_min_f32(-HUGE_VALF, 3.0f) == -HUGE_VALF && cn_max_f32(-HUGE_VALF, 3.0f) == 3.0f,
          "min/max f32 inf", 0, 0);
    check(t, cn_rem_f64(7.5, 2.0) == 1.5 && cn_rem_f32(-7.5f, 2.0f) == -1.5f, "float %", 0, 0);
    check(t, cn_sqrt_f32(2.0f) == sqrtf(2.0f) && cn_sqrt_f64(2.0) == sqrt(2.0), "sqrt", 0, 0);
}

/* cn_rows_inside against the end computed in 128 bits, over every
 * combination of values at and around the edges that matter: 0, 1, the
 * 32-bit boundary (where its product leaves 64 bits for 128), 2^63 and
 * the top of size_t, and each of them one either side. */
static void test_rows_inside(Tally *t)
{
    const uint64_t base[] = {0, 1, 2, 3, 7, 40, 128, 4096, UINT64_C(1) << 31, UINT64_C(1) << 32,
                             UINT64_C(1) << 33, UINT64_C(1) << 48, UINT64_C(1) << 63, UINT64_MAX};
    uint64_t v[3 * sizeof base / sizeof *base];
    size_t nv = 0;
    for (size_t i = 0; i < sizeof base / sizeof *base; i++)
        for (int d = -1; d <= 1; d++)
            if (!(base[i] == 0 && d < 0) && !(base[i] == UINT64_MAX && d > 0))
                v[nv++] = base[i] + (uint64_t)(int64_t)d;
    long long wrong = 0, inside = 0, cases = 0;
    for (size_t a = 0; a < nv; a++)          /* start */
        for (size_t b = 0; b < nv; b++)      /* stride */
            for (size_t r = 0; r < nv; r++) { /* rows */
                if (v[r] == 0)
                    continue;
                for (size_t c = 0; c < nv; c++)     /* cols */
                    for (size_t n = 0; n < nv; n++) { /* length */
                        unsigned __int128 end = (unsigned __int128)(v[r] - 1) * v[b] + v[a] + v[c];
                        bool want = end <= v[n], got = cn_rows_inside(v[a], v[b], v[r], v[c], v[n]);
                        wrong += want != got, inside += want, cases++;
                    }
            }
    check(t, wrong == 0 && inside > 1000 && inside < cases - 1000, "cn_rows_inside matches the 128-bit end",
          wrong, inside);
}

/* The storage floats (runtime/cairn_float.h) are held to independent
 * oracles, every bit pattern and every tie, in test_storage_floats.c. */

/* -------------------------------------------------------------- guards */

/* child_guard(): tests/unit/child_guard.h */

static void bad_index(void)
{
    int32_t data[4] = {1, 2, 3, 4};
    cn_view_i32 x = cn_view_i32_make(data, 4);
    printf("%d", *cn_at_i32_u(x, 4, "x", "t.cairn", 4, 12));
}
static void bad_neg_index(void) { (void)cn_idx_s(-1, 4, "x", "t.cairn", 2, 3); }
static void bad_add(void) { (void)cn_add_i32(INT32_MAX, 1, "t.cairn", 5, 7); }
static void bad_sub_u(void) { (void)cn_sub_u8(0, 1, "t.cairn", 5, 7); }
static void bad_div(void) { (void)cn_div_i64(7, 0, "t.cairn", 6, 1); }
static void bad_shift(void) { (void)cn_shl_u32(1, 32, "t.cairn", 6, 1); }
static void bad_narrow(void) { (void)cn_to_u8_s(300, "t.cairn", 6, 1); }
static void bad_f2i(void) { (void)cn_f2i_i32(3e9, "t.cairn", 6, 1); }
static void bad_extent(void) { cn_extent_check(5, 4, false, "f", "x", "n", "t.cairn", 9, 3); }
static void bad_assert(void) { cn_assert(false, "x > 0", "t.cairn", 9, 3); }
static void bad_slice(void) { (void)cn_slice_check(3, false, 2, false, 4, "x", "t.cairn", 1, 2); }

static void test_guards(Tally *t)
{
    struct { void (*fn)(void); const char *want; } g[] = {
        {bad_index, "t.cairn:4:12: guard failed: index 4 out of bounds for x of length 4"},
        {bad_neg_index, "t.cairn:2:3: guard failed: index -1 out of bounds for x of length 4"},
        {bad_add, "t.cairn:5:7: guard failed: integer overflow: 2147483647 + 1 does not fit in i32"},
        {bad_sub_u, "t.cairn:5:7: guard failed: integer overflow: 0 - 1 does not fit in u8"},
        {bad_div, "t.cairn:6:1: guard failed: division by zero (/)"},
        {bad_shift, "t.cairn:6:1: guard failed: shift count 32 out of range for u32"},
        {bad_narrow, "t.cairn:6:1: guard failed: narrowing conversion: 300 does not fit in u8"},
        {bad_f2i, "t.cairn:6:1: guard failed: float-to-integer conversion: 3000000000 does not fit in i32"},
        {bad_extent, "t.cairn:9:3: guard failed: extent of x is 5 but f expects n = 4"},
        {bad_assert, "t.cairn:9:3: guard failed: assertion failed: x > 0"},
        {bad_slice, "t.cairn:1:2: guard failed: slice 3..2 out of bounds for x of length 4"},
    };
    for (size_t i = 0; i < sizeof g / sizeof g[0]; i++)
        check(t, child_guard(g[i].fn, g[i].want), g[i].want, (long long)i, 0);
}

int main(void)
{
    static Tally t;
    test_guards(&t);   /* first: before stderr goes to /dev/null */
    signal(SIGABRT, on_abort);
    fflush(stderr);
    int saved = dup(2), null = open("/dev/null", O_WRONLY);
    dup2(null, 2);
    test_integers(&t);
    test_conversions(&t);
    dup2(saved, 2);
    test_float_printing(&t);
    test_min_max(&t);
    test_rows_inside(&t);
    long bad = 0;
    for (int i = 0; i < t.nprops; i++)
        bad += t.bad[i];
    printf("%ld inputs checked, %ld failed\n", t.checks, t.failed);
    printf("%ld passed, %ld failed, 0 skipped\n", t.nprops - bad, bad);
    return t.failed ? 1 : 0;
}
