/*
 * cairn_rt.h: the runtime every emitted CAIRN program includes.
 *
 * Header-only, in the common subset of C17 and C++17 (the same emitted file
 * is compiled by cc for the host, by nvcc for the device and by cc under
 * CAIRN_EMULATE). Everything is `static inline`; the only mutable global
 * state is the process's (cairn_proc.h: stack floors, the interrupt watcher).
 *
 * What is here:
 *   - guards: a failing check prints `FILE:LINE:COL: guard failed: MESSAGE`
 *     on stderr (stdout flushed first, so the order on a terminal is right)
 *     and aborts with SIGABRT. The failing path is a cold, out-of-line
 *     function, so the inlined fast path is one compare and a branch;
 *   - the stack check at the start of every CAIRN function (CN_STACK_CHECK):
 *     past its thread's floor (cairn_proc.h) it fails as a guard does,
 *     "stack overflow in fn f (FILE:LINE)", before the stack is used up;
 *   - views (a pointer and a length) for every element type, with bounds
 *     checked element access, slices and zeroed allocation;
 *   - checked integer arithmetic for every integer type (overflow, division
 *     by zero, shift counts, narrowing and float-to-integer conversions) and
 *     the wrapping operations, done in unsigned arithmetic so nothing is
 *     undefined behaviour;
 *   - min/max (IEEE 754-2019 minimum/maximum for floats), abs, rounding,
 *     sqrt, std.math;
 *   - printing: integers in decimal, bools as true/false, floats as the
 *     shortest decimal that reads back to the same bits.
 *
 * Names: cn_OP_T, with T the CAIRN type name (i8 .. u64, usize, f32, f64).
 */
#ifndef CAIRN_RT_H
#define CAIRN_RT_H

#include "cairn_proc.h"   /* first: it asks for POSIX before any system header */

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifndef __cplusplus
#include <stdbool.h>
#endif

/* The failing path of a guard: never inlined, never returns, and marked cold
 * so the compiler lays it out of the hot path. */
#define CN_COLD __attribute__((cold, noinline, noreturn))
#define CN_UNLIKELY(c) __builtin_expect(!!(c), 0)

/* Under nvcc, what a device lane may call is also device code: the checked
 * arithmetic, views, bounds and the failures below. Printing, allocation and
 * closures stay host code (a lane cannot reach them: check_par.c). */
#ifndef CN_HD
#ifdef __CUDACC__
#define CN_HD __host__ __device__
#else
#define CN_HD
#endif
#endif

/* Overflow checks: GCC's and Clang's builtins compute in infinite precision;
 * device code has no such builtin, so there the sum, difference or product
 * is computed in 128 bits (exact for any two 64-bit operands) and checked
 * to survive the conversion back. */
#ifdef __CUDA_ARCH__
template <typename T, typename W> __device__ inline bool cn_dev_fits(W w, T *r)
{
    *r = (T)w;
    return w == (W)*r;
}
template <typename T> __device__ inline bool cn_dev_add_ovf(T a, T b, T *r)
{
    return (T)-1 < (T)0 ? !cn_dev_fits((__int128)a + (__int128)b, r)
                        : !cn_dev_fits((unsigned __int128)a + (unsigned __int128)b, r);
}
template <typename T> __device__ inline bool cn_dev_sub_ovf(T a, T b, T *r)
{
    return (T)-1 < (T)0 ? !cn_dev_fits((__int128)a - (__int128)b, r) : (*r = (T)(a - b), a < b);
}
template <typename T> __device__ inline bool cn_dev_mul_ovf(T a, T b, T *r)
{
    return (T)-1 < (T)0 ? !cn_dev_fits((__int128)a * (__int128)b, r)
                        : !cn_dev_fits((unsigned __int128)a * (unsigned __int128)b, r);
}
#define CN_ADD_OVF(a, b, r) cn_dev_add_ovf(a, b, r)
#define CN_SUB_OVF(a, b, r) cn_dev_sub_ovf(a, b, r)
#define CN_MUL_OVF(a, b, r) cn_dev_mul_ovf(a, b, r)
#else
#define CN_ADD_OVF(a, b, r) __builtin_add_overflow(a, b, r)
#define CN_SUB_OVF(a, b, r) __builtin_sub_overflow(a, b, r)
#define CN_MUL_OVF(a, b, r) __builtin_mul_overflow(a, b, r)
#endif

/* A failed guard in device code prints the host's line from the device and
 * traps its kernel: the seam aborts at the next wait (cairn_dev.h). */
#ifdef __CUDA_ARCH__
#define CN_GUARD(file, line, col, fmt, ...)                                   \
    do {                                                                      \
        printf("%s:%d:%d: guard failed: " fmt "\n", file, line, col, __VA_ARGS__); \
        __trap();                                                             \
        __builtin_unreachable();                                              \
    } while (0)
#else
#define CN_GUARD(file, line, col, fmt, ...) cn_guard_fail(file, line, col, fmt, __VA_ARGS__)
#endif

/* An emulated device program routes every guard through its machine, so a
 * guard that fails in an emulated lane surfaces at the next wait as it
 * would on the device (cairn_dev.h, included at the end of this file). */
#if defined(CAIRN_EMULATE) || defined(CAIRN_COUNT)
static void cn_emu_trap_text(const char *text);
#endif

/* ------------------------------------------------------------------ guards */

CN_COLD __attribute__((format(printf, 4, 5))) static void
cn_guard_fail(const char *file, int line, int col, const char *fmt, ...)
{
    va_list ap;
#if defined(CAIRN_EMULATE) || defined(CAIRN_COUNT)
    char text[512];
    int k = snprintf(text, sizeof text, "%s:%d:%d: guard failed: ", file, line, col);
    va_start(ap, fmt);
    if (k > 0 && (size_t)k < sizeof text)
        vsnprintf(text + k, sizeof text - (size_t)k, fmt, ap);
    va_end(ap);
    cn_emu_trap_text(text);
#else
    /* one report at a time, so two threads failing together (lanes, a
     * block's threads) print whole lines; released before abort, since a
     * test may catch the abort and fail a guard again */
    static int printing;
    while (__atomic_exchange_n(&printing, 1, __ATOMIC_ACQUIRE)) {
        volatile int spin = 0;
        (void)spin;
    }
    fflush(stdout);
    fprintf(stderr, "%s:%d:%d: guard failed: ", file, line, col);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    fflush(stderr);
    __atomic_store_n(&printing, 0, __ATOMIC_RELEASE);
    abort();
#endif
}

/* ------------------------------------------------------ the stack check */

/* The slow path of CN_STACK_CHECK: the first check on a thread finds its
 * floor; a later one that fires is a stack overflow, reported as a guard
 * at the function's own line while the margin below the floor lasts. */
__attribute__((cold, noinline, unused)) static void cn_stack_slow(uintptr_t sp, const char *fn, const char *file,
                                                                  int line, int col)
{
    if (cn_stack_here.floor == UINTPTR_MAX) {
        cn_stack_find();
        if (sp >= cn_stack_here.floor)
            return;
    }
    cn_guard_fail(file, line, col,
                  "stack overflow in fn %s (%s:%d): the calls in progress used up its thread's stack of %zu KiB; "
                  "recursion without a bound, or deeper than the stack holds",
                  fn, file, line, cn_stack_here.size / 1024);
}

/* At the start of every CAIRN function: one compare of the stack pointer
 * with the thread's floor. Absent from device code (nvcc's device pass): a
 * device lane's stack is the CUDA runtime's to police. */
#ifdef __CUDA_ARCH__
#define CN_STACK_CHECK(fn, at) ((void)0)
#else
#define CN_STACK_CHECK(fn, at) CN_STACK_CHECK_AT(fn, at)   /* at: CN_AT(line, col), expanded first */
#define CN_STACK_CHECK_AT(fn, file, line, col)                                 \
    do {                                                                       \
        uintptr_t cn_sp_ = cn_stack_pointer();                                 \
        if (CN_UNLIKELY(cn_sp_ < cn_stack_here.floor))                         \
            cn_stack_slow(cn_sp_, fn, file, line, col);                        \
    } while (0)
#endif

/* ------------------------------------------------------- float formatting */

/* The digits of [-]d.ddde+XX written out in place: 0.000123, 1500, 2.5.
 * Zeros pad between the point and the digits, or after the digits. */
static inline void cn_fmt_positional(char *buf, size_t size, const char *sci, int exp10)
{
    char digits[24], out[48];
    size_t n = 0, o = 0;
    for (const char *p = sci; *p && *p != 'e' && n + 1 < sizeof digits; p++)
        if (*p >= '0' && *p <= '9')
            digits[n++] = *p;
    if (sci[0] == '-')
        out[o++] = '-';
    if (exp10 < 0) {
        out[o++] = '0';
        out[o++] = '.';
        for (int z = 1; z < -exp10; z++)
            out[o++] = '0';
    }
    for (size_t k = 0; k < n; k++) {
        out[o++] = digits[k];
        if (exp10 >= 0 && k == (size_t)exp10 && k + 1 < n)
            out[o++] = '.';
    }
    for (int z = (int)n; z <= exp10; z++)
        out[o++] = '0';
    out[o] = 0;
    snprintf(buf, size, "%s", out);
}

/* The shortest decimal that reads back to the same bits: the fewest digits
 * p whose %.*e rounding round-trips (the least f32 subnormal is 1e-45, not
 * %.6g's 1.4013e-45). Written out positionally when the decimal exponent is
 * from -4 to 15, as Python's repr does (0.0001, 16777220, 1e+16, 1e-05).
 * NaN prints as nan whatever its sign or payload, so the output does not
 * depend on how the C library spells it. */
static inline const char *cn_fmt_shortest(char *buf, size_t size, double x, bool is_f32)
{
    if (x != x || isinf(x)) {
        snprintf(buf, size, x != x ? "nan" : x > 0 ? "inf" : "-inf");
        return buf;
    }
    int most = is_f32 ? 9 : 17, p = 1;
    char sci[40];
    for (; p < most; p++) {
        snprintf(sci, sizeof sci, "%.*e", p - 1, x);
        if (is_f32 ? strtof(sci, NULL) == (float)x : strtod(sci, NULL) == x)
            break;
    }
    snprintf(sci, sizeof sci, "%.*e", p - 1, x);
    int exp10 = atoi(strchr(sci, 'e') + 1);
    if (exp10 >= -4 && exp10 < 16)
        cn_fmt_positional(buf, size, sci, exp10);
    else
        snprintf(buf, size, "%s", sci);
    return buf;
}

static inline const char *cn_fmt_f32(char *buf, size_t size, float x)
{
    return cn_fmt_shortest(buf, size, (double)x, true);
}

static inline const char *cn_fmt_f64(char *buf, size_t size, double x)
{
    return cn_fmt_shortest(buf, size, x, false);
}

/* ------------------------------------------------------------- printing */

static inline void cn_print_i64(long long v) { printf("%lld", v); }
static inline void cn_print_u64(unsigned long long v) { printf("%llu", v); }
static inline void cn_print_bool(bool v) { fputs(v ? "true" : "false", stdout); }
static inline void cn_print_str(const char *s) { fputs(s, stdout); }
static inline void cn_print_sep(void) { fputc(' ', stdout); }
static inline void cn_print_nl(void) { fputc('\n', stdout); }

static inline void cn_print_f32(float v)
{
    char buf[48];
    fputs(cn_fmt_f32(buf, sizeof buf, v), stdout);
}

static inline void cn_print_f64(double v)
{
    char buf[48];
    fputs(cn_fmt_f64(buf, sizeof buf, v), stdout);
}

/* ------------------------------------------------------- the type tables */

/* Signed integers: CAIRN name, C type, its unsigned twin, bits, min, max. */
#define CN_SIGNED_TYPES(X)                                                    \
    X(i8, int8_t, uint8_t, 8, INT8_MIN, INT8_MAX)                             \
    X(i16, int16_t, uint16_t, 16, INT16_MIN, INT16_MAX)                       \
    X(i32, int32_t, uint32_t, 32, INT32_MIN, INT32_MAX)                       \
    X(i64, int64_t, uint64_t, 64, INT64_MIN, INT64_MAX)

/* Unsigned integers: CAIRN name, C type, bits, max. */
#define CN_UNSIGNED_TYPES(X)                                                  \
    X(u8, uint8_t, 8, UINT8_MAX)                                              \
    X(u16, uint16_t, 16, UINT16_MAX)                                          \
    X(u32, uint32_t, 32, UINT32_MAX)                                          \
    X(u64, uint64_t, 64, UINT64_MAX)                                          \
    X(usize, size_t, 64, SIZE_MAX)

/* Element types of views: CAIRN name, C storage type. Storage floats are
 * their bits (f16 and bf16 in 16, the f8 formats in 8). */
#define CN_ELEM_TYPES(X)                                                      \
    X(bool, bool) X(i8, int8_t) X(i16, int16_t) X(i32, int32_t)               \
    X(i64, int64_t) X(u8, uint8_t) X(u16, uint16_t) X(u32, uint32_t)          \
    X(u64, uint64_t) X(usize, size_t) X(f32, float) X(f64, double)            \
    X(f16, uint16_t) X(bf16, uint16_t) X(f8e4m3, uint8_t) X(f8e5m2, uint8_t)

/* ------------------------------------------------- failures, out of line */

CN_COLD static CN_HD void cn_fail_binop_s(const char *file, int line, int col, long long a,
                                    const char *op, long long b, const char *ty)
{
    CN_GUARD(file, line, col, "integer overflow: %lld %s %lld does not fit in %s", a, op, b, ty);
}

CN_COLD static CN_HD void cn_fail_binop_u(const char *file, int line, int col, unsigned long long a,
                                    const char *op, unsigned long long b, const char *ty)
{
    CN_GUARD(file, line, col, "integer overflow: %llu %s %llu does not fit in %s", a, op, b, ty);
}

CN_COLD static CN_HD void cn_fail_assert(const char *file, int line, int col, const char *text)
{
    CN_GUARD(file, line, col, "assertion failed: %s", text);
}

CN_COLD static CN_HD void cn_fail_div_zero(const char *file, int line, int col, const char *op)
{
    CN_GUARD(file, line, col, "division by zero (%s)", op);
}

CN_COLD static CN_HD void cn_fail_unop_s(const char *file, int line, int col, const char *op,
                                   long long a, const char *ty)
{
    CN_GUARD(file, line, col, "integer overflow: %s(%lld) does not fit in %s", op, a, ty);
}

CN_COLD static CN_HD void cn_fail_unop_u(const char *file, int line, int col, const char *op,
                                   unsigned long long a, const char *ty)
{
    CN_GUARD(file, line, col, "integer overflow: %s(%llu) does not fit in %s", op, a, ty);
}

CN_COLD static CN_HD void cn_fail_shift(const char *file, int line, int col, long long k, const char *ty)
{
    CN_GUARD(file, line, col, "shift count %lld out of range for %s", k, ty);
}

CN_COLD static CN_HD void cn_fail_narrow_s(const char *file, int line, int col, long long v, const char *ty)
{
    CN_GUARD(file, line, col, "narrowing conversion: %lld does not fit in %s", v, ty);
}

CN_COLD static CN_HD void cn_fail_narrow_u(const char *file, int line, int col, unsigned long long v,
                                     const char *ty)
{
    CN_GUARD(file, line, col, "narrowing conversion: %llu does not fit in %s", v, ty);
}

CN_COLD static CN_HD void cn_fail_f2i(const char *file, int line, int col, double v, const char *ty)
{
#ifdef __CUDA_ARCH__
    CN_GUARD(file, line, col, "float-to-integer conversion: %.17g does not fit in %s", v, ty);
#else
    char buf[48];
    CN_GUARD(file, line, col, "float-to-integer conversion: %s does not fit in %s",
                  cn_fmt_f64(buf, sizeof buf, v), ty);
#endif
}

CN_COLD static CN_HD void cn_fail_index_s(const char *file, int line, int col, long long i,
                                    const char *name, size_t n)
{
    CN_GUARD(file, line, col, "index %lld out of bounds for %s of length %llu", i, name, (unsigned long long)n);
}

CN_COLD static CN_HD void cn_fail_index_u(const char *file, int line, int col, unsigned long long i,
                                    const char *name, size_t n)
{
    CN_GUARD(file, line, col, "index %llu out of bounds for %s of length %llu", i, name, (unsigned long long)n);
}

CN_COLD static CN_HD void cn_fail_slice(const char *file, int line, int col, long long lo_s,
                                  unsigned long long lo_u, bool lo_neg, long long hi_s,
                                  unsigned long long hi_u, bool hi_neg, const char *name, size_t n)
{
#ifdef __CUDA_ARCH__
    (void)lo_s; (void)hi_s; (void)lo_neg; (void)hi_neg;
    CN_GUARD(file, line, col, "slice %lld..%lld out of bounds for %s of length %llu", lo_neg ? lo_s : (long long)lo_u,
             hi_neg ? hi_s : (long long)hi_u, name, (unsigned long long)n);
#else
    char lo[32], hi[32];
    if (lo_neg) snprintf(lo, sizeof lo, "%lld", lo_s); else snprintf(lo, sizeof lo, "%llu", lo_u);
    if (hi_neg) snprintf(hi, sizeof hi, "%lld", hi_s); else snprintf(hi, sizeof hi, "%llu", hi_u);
    CN_GUARD(file, line, col, "slice %s..%s out of bounds for %s of length %zu", lo, hi, name, n);
#endif
}

static inline CN_HD void cn_assert(bool ok, const char *text, const char *file, int line, int col)
{
    if (CN_UNLIKELY(!ok))
        cn_fail_assert(file, line, col, text);
}

/* ------------------------------------------------ checked signed integers */

/* __builtin_*_overflow computes in infinite precision and says whether the
 * result fits the destination's type, for every width. Division checks the
 * two cases C leaves undefined: a zero divisor, and MIN / -1 (MIN % -1 is
 * refused too, as its quotient does not fit). */
#define CN_DEF_SIGNED(T, C, U, BITS, MIN, MAX)                                \
    static inline CN_HD C cn_add_##T(C a, C b, const char *f, int l, int c)         \
    {                                                                         \
        C r;                                                                  \
        if (CN_UNLIKELY(CN_ADD_OVF(a, b, &r)))                    \
            cn_fail_binop_s(f, l, c, a, "+", b, #T);                          \
        return r;                                                             \
    }                                                                         \
    static inline CN_HD C cn_sub_##T(C a, C b, const char *f, int l, int c)         \
    {                                                                         \
        C r;                                                                  \
        if (CN_UNLIKELY(CN_SUB_OVF(a, b, &r)))                    \
            cn_fail_binop_s(f, l, c, a, "-", b, #T);                          \
        return r;                                                             \
    }                                                                         \
    static inline CN_HD C cn_mul_##T(C a, C b, const char *f, int l, int c)         \
    {                                                                         \
        C r;                                                                  \
        if (CN_UNLIKELY(CN_MUL_OVF(a, b, &r)))                    \
            cn_fail_binop_s(f, l, c, a, "*", b, #T);                          \
        return r;                                                             \
    }                                                                         \
    static inline CN_HD C cn_div_##T(C a, C b, const char *f, int l, int c)         \
    {                                                                         \
        if (CN_UNLIKELY(b == 0)) cn_fail_div_zero(f, l, c, "/");              \
        if (CN_UNLIKELY(a == MIN && b == -1))                                 \
            cn_fail_binop_s(f, l, c, a, "/", b, #T);                          \
        return (C)(a / b);                                                    \
    }                                                                         \
    static inline CN_HD C cn_rem_##T(C a, C b, const char *f, int l, int c)         \
    {                                                                         \
        if (CN_UNLIKELY(b == 0)) cn_fail_div_zero(f, l, c, "%");              \
        if (CN_UNLIKELY(a == MIN && b == -1))                                 \
            cn_fail_binop_s(f, l, c, a, "%", b, #T);                          \
        return (C)(a % b);                                                    \
    }                                                                         \
    static inline CN_HD C cn_neg_##T(C a, const char *f, int l, int c)              \
    {                                                                         \
        if (CN_UNLIKELY(a == MIN)) cn_fail_unop_s(f, l, c, "-", a, #T);       \
        return (C)-a;                                                         \
    }                                                                         \
    static inline CN_HD C cn_abs_##T(C a, const char *f, int l, int c)              \
    {                                                                         \
        if (CN_UNLIKELY(a == MIN)) cn_fail_unop_s(f, l, c, "abs", a, #T);     \
        return (C)(a < 0 ? -a : a);                                           \
    }                                                                         \
    /* Shifts go through the unsigned twin: bits shifted out are lost, and */ \
    /* shr of a negative value is arithmetic (sign-filling). */               \
    static inline CN_HD C cn_shl_##T(C a, long long k, const char *f, int l, int c) \
    {                                                                         \
        if (CN_UNLIKELY(k < 0 || k >= BITS)) cn_fail_shift(f, l, c, k, #T);   \
        return (C)(U)((uint64_t)(U)a << k);                                   \
    }                                                                         \
    static inline CN_HD C cn_shr_##T(C a, long long k, const char *f, int l, int c) \
    {                                                                         \
        if (CN_UNLIKELY(k < 0 || k >= BITS)) cn_fail_shift(f, l, c, k, #T);   \
        return a < 0 ? (C) ~(C)((U)~(U)a >> k) : (C)((U)a >> k);              \
    }                                                                         \
    static inline CN_HD C cn_add_wrap_##T(C a, C b) { return (C)(U)((uint64_t)a + (uint64_t)b); } \
    static inline CN_HD C cn_sub_wrap_##T(C a, C b) { return (C)(U)((uint64_t)a - (uint64_t)b); } \
    static inline CN_HD C cn_mul_wrap_##T(C a, C b) { return (C)(U)((uint64_t)a * (uint64_t)b); } \
    static inline CN_HD C cn_neg_wrap_##T(C a) { return (C)(U)(0u - (uint64_t)a); }  \
    static inline CN_HD C cn_min_##T(C a, C b) { return a < b ? a : b; }            \
    static inline CN_HD C cn_max_##T(C a, C b) { return a > b ? a : b; }            \
    /* Narrowing into T from a signed or an unsigned source. */               \
    static inline CN_HD C cn_to_##T##_s(long long v, const char *f, int l, int c)   \
    {                                                                         \
        if (CN_UNLIKELY(v < (long long)MIN || v > (long long)MAX))            \
            cn_fail_narrow_s(f, l, c, v, #T);                                 \
        return (C)v;                                                          \
    }                                                                         \
    static inline CN_HD C cn_to_##T##_u(unsigned long long v, const char *f, int l, int c) \
    {                                                                         \
        if (CN_UNLIKELY(v > (unsigned long long)MAX))                         \
            cn_fail_narrow_u(f, l, c, v, #T);                                 \
        return (C)v;                                                          \
    }                                                                         \
    /* Truncation toward zero; in range when -2^(B-1) - 1 < v < 2^(B-1). */   \
    static inline CN_HD C cn_f2i_##T(double v, const char *f, int l, int c)         \
    {                                                                         \
        const double hi = ldexp(1.0, BITS - 1);                               \
        const double lo = BITS < 53 ? -hi - 1.0 : -hi;                        \
        bool ok = BITS < 53 ? (v > lo && v < hi) : (v >= lo && v < hi);       \
        if (CN_UNLIKELY(!ok)) cn_fail_f2i(f, l, c, v, #T);                    \
        return (C)v;                                                          \
    }
CN_SIGNED_TYPES(CN_DEF_SIGNED)
#undef CN_DEF_SIGNED

/* ---------------------------------------------- checked unsigned integers */

#define CN_DEF_UNSIGNED(T, C, BITS, MAX)                                      \
    static inline CN_HD C cn_add_##T(C a, C b, const char *f, int l, int c)         \
    {                                                                         \
        C r;                                                                  \
        if (CN_UNLIKELY(CN_ADD_OVF(a, b, &r)))                    \
            cn_fail_binop_u(f, l, c, a, "+", b, #T);                          \
        return r;                                                             \
    }                                                                         \
    static inline CN_HD C cn_sub_##T(C a, C b, const char *f, int l, int c)         \
    {                                                                         \
        C r;                                                                  \
        if (CN_UNLIKELY(CN_SUB_OVF(a, b, &r)))                    \
            cn_fail_binop_u(f, l, c, a, "-", b, #T);                          \
        return r;                                                             \
    }                                                                         \
    static inline CN_HD C cn_mul_##T(C a, C b, const char *f, int l, int c)         \
    {                                                                         \
        C r;                                                                  \
        if (CN_UNLIKELY(CN_MUL_OVF(a, b, &r)))                    \
            cn_fail_binop_u(f, l, c, a, "*", b, #T);                          \
        return r;                                                             \
    }                                                                         \
    static inline CN_HD C cn_div_##T(C a, C b, const char *f, int l, int c)         \
    {                                                                         \
        if (CN_UNLIKELY(b == 0)) cn_fail_div_zero(f, l, c, "/");              \
        return (C)(a / b);                                                    \
    }                                                                         \
    static inline CN_HD C cn_rem_##T(C a, C b, const char *f, int l, int c)         \
    {                                                                         \
        if (CN_UNLIKELY(b == 0)) cn_fail_div_zero(f, l, c, "%");              \
        return (C)(a % b);                                                    \
    }                                                                         \
    /* -x fits an unsigned type only for x = 0. */                            \
    static inline CN_HD C cn_neg_##T(C a, const char *f, int l, int c)              \
    {                                                                         \
        if (CN_UNLIKELY(a != 0)) cn_fail_unop_u(f, l, c, "-", a, #T);         \
        return a;                                                             \
    }                                                                         \
    static inline CN_HD C cn_abs_##T(C a, const char *f, int l, int c)              \
    {                                                                         \
        (void)f, (void)l, (void)c;                                            \
        return a;                                                             \
    }                                                                         \
    static inline CN_HD C cn_shl_##T(C a, long long k, const char *f, int l, int c) \
    {                                                                         \
        if (CN_UNLIKELY(k < 0 || k >= BITS)) cn_fail_shift(f, l, c, k, #T);   \
        return (C)((uint64_t)a << k);                                         \
    }                                                                         \
    static inline CN_HD C cn_shr_##T(C a, long long k, const char *f, int l, int c) \
    {                                                                         \
        if (CN_UNLIKELY(k < 0 || k >= BITS)) cn_fail_shift(f, l, c, k, #T);   \
        return (C)((uint64_t)a >> k);                                         \
    }                                                                         \
    static inline CN_HD C cn_add_wrap_##T(C a, C b) { return (C)((uint64_t)a + (uint64_t)b); } \
    static inline CN_HD C cn_sub_wrap_##T(C a, C b) { return (C)((uint64_t)a - (uint64_t)b); } \
    static inline CN_HD C cn_mul_wrap_##T(C a, C b) { return (C)((uint64_t)a * (uint64_t)b); } \
    static inline CN_HD C cn_neg_wrap_##T(C a) { return (C)(0u - (uint64_t)a); }     \
    static inline CN_HD C cn_min_##T(C a, C b) { return a < b ? a : b; }            \
    static inline CN_HD C cn_max_##T(C a, C b) { return a > b ? a : b; }            \
    static inline CN_HD C cn_to_##T##_s(long long v, const char *f, int l, int c)   \
    {                                                                         \
        if (CN_UNLIKELY(v < 0 || (unsigned long long)v > (unsigned long long)MAX)) \
            cn_fail_narrow_s(f, l, c, v, #T);                                 \
        return (C)v;                                                          \
    }                                                                         \
    static inline CN_HD C cn_to_##T##_u(unsigned long long v, const char *f, int l, int c) \
    {                                                                         \
        if (CN_UNLIKELY(v > (unsigned long long)MAX))                         \
            cn_fail_narrow_u(f, l, c, v, #T);                                 \
        return (C)v;                                                          \
    }                                                                         \
    /* In range when -1 < v < 2^B (truncation toward zero). */                \
    static inline CN_HD C cn_f2i_##T(double v, const char *f, int l, int c)         \
    {                                                                         \
        if (CN_UNLIKELY(!(v > -1.0 && v < ldexp(1.0, BITS))))                 \
            cn_fail_f2i(f, l, c, v, #T);                                      \
        return (C)v;                                                          \
    }
CN_UNSIGNED_TYPES(CN_DEF_UNSIGNED)
#undef CN_DEF_UNSIGNED

/* A shift count of an unsigned 64-bit type, as the long long the shifts
 * take: anything past LLONG_MAX is out of range anyway. */
static inline CN_HD long long cn_count_u64(unsigned long long k)
{
    return k > (unsigned long long)LLONG_MAX ? LLONG_MAX : (long long)k;
}

/* ------------------------------------------------------------- floats */

/* IEEE 754-2019 minimum and maximum: NaN when either operand is NaN, and
 * -0.0 below +0.0 (C's fmin/fmax return the other operand for a NaN). */
static inline CN_HD float cn_min_f32(float a, float b)
{
    if (a != a || b != b) return a + b;
    if (a == b) return signbit(a) ? a : b;
    return a < b ? a : b;
}
static inline CN_HD float cn_max_f32(float a, float b)
{
    if (a != a || b != b) return a + b;
    if (a == b) return signbit(a) ? b : a;
    return a > b ? a : b;
}
static inline CN_HD double cn_min_f64(double a, double b)
{
    if (a != a || b != b) return a + b;
    if (a == b) return signbit(a) ? a : b;
    return a < b ? a : b;
}
static inline CN_HD double cn_max_f64(double a, double b)
{
    if (a != a || b != b) return a + b;
    if (a == b) return signbit(a) ? b : a;
    return a > b ? a : b;
}

static inline CN_HD float cn_abs_f32(float a) { return fabsf(a); }
static inline CN_HD double cn_abs_f64(double a) { return fabs(a); }
static inline CN_HD float cn_floor_f32(float a) { return floorf(a); }
static inline CN_HD double cn_floor_f64(double a) { return floor(a); }
static inline CN_HD float cn_ceil_f32(float a) { return ceilf(a); }
static inline CN_HD double cn_ceil_f64(double a) { return ceil(a); }
static inline CN_HD float cn_trunc_f32(float a) { return truncf(a); }
static inline CN_HD double cn_trunc_f64(double a) { return trunc(a); }
/* Correctly rounded by IEEE 754 (and by every libm we build with). */
static inline CN_HD float cn_sqrt_f32(float a) { return sqrtf(a); }
static inline CN_HD double cn_sqrt_f64(double a) { return sqrt(a); }
/* Float %: the remainder of truncated division, exact (fmod never rounds). */
static inline CN_HD float cn_rem_f32(float a, float b) { return fmodf(a, b); }
static inline CN_HD double cn_rem_f64(double a, double b) { return fmod(a, b); }

/* std.math's functions that are the host's C library: one-argument ones, then two-argument ones.
 * Sequential host code only (a lane may not call them: E-PARALLEL-CALL). The portable ones (log, sin,
 * pow, ...) are in cairn_math.h. */
#define CN_MATH1(X)                                                           \
    X(log10) X(tan) X(asin) X(acos) X(sinh) X(cosh) X(cbrt)
#define CN_MATH2(X) X(hypot)
#define CN_DEF_MATH1(F)                                                       \
    static inline CN_HD float cn_math_##F##_f32(float x) { return F##f(x); }        \
    static inline CN_HD double cn_math_##F##_f64(double x) { return F(x); }
#define CN_DEF_MATH2(F)                                                       \
    static inline CN_HD float cn_math_##F##_f32(float x, float y) { return F##f(x, y); } \
    static inline CN_HD double cn_math_##F##_f64(double x, double y) { return F(x, y); }
CN_MATH1(CN_DEF_MATH1)
CN_MATH2(CN_DEF_MATH2)
#undef CN_DEF_MATH1
#undef CN_DEF_MATH2

/* --------------------------------------------------------- storage floats */

/* Storage floats (f16, bf16, f8e4m3, f8e5m2) are their bits here; their
 * conversions, quantize and bits functions are runtime/cairn_float.h, which
 * a program that uses them includes. This is its failure for a value past
 * a format's range (an f32's text is cairn_float.h's own); marked unused
 * so that a program without storage floats does not warn of it. */
CN_COLD __attribute__((unused)) static CN_HD void cn_fail_storage(const char *file, int line, int col, double v,
                                                                  const char *ty)
{
#ifdef __CUDA_ARCH__
    CN_GUARD(file, line, col, "%.17g is past the range of %s", v, ty);
#else
    char buf[48];
    cn_guard_fail(file, line, col, "%s is past the range of %s", cn_fmt_f64(buf, sizeof buf, v), ty);
#endif
}

/* to_bits / from_bits of the computing floats. */
static inline CN_HD uint32_t cn_bits_f32(float v) { uint32_t u; memcpy(&u, &v, sizeof u); return u; }
static inline CN_HD uint64_t cn_bits_f64(double v) { uint64_t u; memcpy(&u, &v, sizeof u); return u; }
static inline CN_HD float cn_from_bits_f32(uint32_t u) { float v; memcpy(&v, &u, sizeof v); return v; }
static inline CN_HD double cn_from_bits_f64(uint64_t u) { double v; memcpy(&v, &u, sizeof v); return v; }

/* --------------------------------------------------------- bounds checks */

/* An index of a signed type (negative is out of bounds) or an unsigned one,
 * checked against a length; returns it as size_t. */
static inline CN_HD size_t cn_idx_s(long long i, size_t n, const char *name, const char *f, int l, int c)
{
    if (CN_UNLIKELY(i < 0 || (unsigned long long)i >= n)) cn_fail_index_s(f, l, c, i, name, n);
    return (size_t)i;
}

static inline CN_HD size_t cn_idx_u(unsigned long long i, size_t n, const char *name, const char *f,
                              int l, int c)
{
    if (CN_UNLIKELY(i >= n)) cn_fail_index_u(f, l, c, i, name, n);
    return (size_t)i;
}

/* The bounds of a slice lo..hi of a view of length n: 0 <= lo <= hi <= n.
 * Each bound comes as its bits in a long long and whether its CAIRN type is
 * signed (so a u64 past LLONG_MAX is not taken for a negative number). */
/* A pipeline's fill, p.fill(x, start, count): its guards, in every thread
 * alike before any copy (devices.md, "Pipeline stages"). */
static inline CN_HD void cn_fill_check(size_t start, size_t count, size_t src_n, size_t stage_n, const char *pipe,
                                       const char *src, const char *f, int l, int c)
{
    if (CN_UNLIKELY(count > stage_n))
        CN_GUARD(f, l, c, "%s.fill of %llu elements into a stage of %llu", pipe, (unsigned long long)count,
                 (unsigned long long)stage_n);
    if (CN_UNLIKELY(start > src_n || count > src_n - start))
        CN_GUARD(f, l, c, "%s.fill copies %llu elements from %s[%llu], past the end of %s (length %llu)", pipe,
                 (unsigned long long)count, src, (unsigned long long)start, src, (unsigned long long)src_n);
}

/* p.fill_rows(x, start, stride, rows, cols, pitch, pad): the rows must fit
 * the stage (cols <= pitch, rows * pitch <= its length) and every copied
 * element lie inside x (the last row ends at start + (rows - 1) * stride +
 * cols); nothing is read when rows or cols is 0. The failure is out of
 * line: in a kernel, three inline messages of seven numbers each held
 * registers across their printf calls and sent them to local memory. */
CN_COLD static CN_HD void cn_fail_fill_rows(int why, size_t start, size_t stride, size_t rows, size_t cols,
                                            size_t pitch, size_t src_n, size_t stage_n, const char *pipe,
                                            const char *src, const char *f, int l, int c)
{
    if (why == 1)
        CN_GUARD(f, l, c, "%s.fill_rows of rows of %llu elements at a pitch of %llu: a row must fit its pitch", pipe,
                 (unsigned long long)cols, (unsigned long long)pitch);
    if (why == 2)
        CN_GUARD(f, l, c, "%s.fill_rows of %llu rows at a pitch of %llu into a stage of %llu", pipe,
                 (unsigned long long)rows, (unsigned long long)pitch, (unsigned long long)stage_n);
    CN_GUARD(f, l, c, "%s.fill_rows copies %llu rows of %llu from %s[%llu] every %llu elements, past the end of %s "
             "(length %llu)", pipe, (unsigned long long)rows, (unsigned long long)cols, src,
             (unsigned long long)start, (unsigned long long)stride, src, (unsigned long long)src_n);
}

/* Whether rows >= 1 rows of cols elements, every stride from start, end
 * inside n elements: start + (rows - 1) * stride + cols <= n, with nothing
 * wrapping. The room past the first row's end is taken first, so only the
 * product remains; it is 64 bits where both factors fit in 32 (a fill's
 * rows always do), 128 otherwise. The 128-bit sum it replaced was a third
 * of a tile128 step's fill in the sm_90a SASS (evidence/2026-12-07-h100-call34.md). */
static inline CN_HD bool cn_rows_inside(size_t start, size_t stride, size_t rows, size_t cols, size_t n)
{
    if (cols > n || start > n - cols)
        return false;
    const size_t room = n - cols - start, r = rows - 1;
    if (((uint64_t)r | (uint64_t)stride) >> 32 == 0)
        return (uint64_t)r * stride <= room;
    return (unsigned __int128)r * stride <= room;
}

static inline CN_HD void cn_fill_rows_check(size_t start, size_t stride, size_t rows, size_t cols, size_t pitch,
                                            size_t src_n, size_t stage_n, const char *pipe, const char *src,
                                            const char *f, int l, int c)
{
    if (rows == 0)
        return;
    /* where every number fits in 32 bits (a pipelined loop's fills, nearly
     * always) the end is one 32 x 32-bit product and two adds in 64 bits,
     * which cannot wrap */
    bool past;
    if ((((uint64_t)start | stride | rows | cols | src_n) >> 32) == 0)
        past = (uint64_t)(uint32_t)(rows - 1) * (uint32_t)stride + (uint32_t)start + (uint32_t)cols > src_n;
    else
        past = !cn_rows_inside(start, stride, rows, cols, src_n);
    int why = cols > pitch ? 1 : pitch != 0 && rows > stage_n / pitch ? 2 : cols != 0 && past ? 3 : 0;
    if (CN_UNLIKELY(why))
        cn_fail_fill_rows(why, start, stride, rows, cols, pitch, src_n, stage_n, pipe, src, f, l, c);
}

static inline CN_HD void cn_slice_check(long long lo_s, bool lo_signed, long long hi_s, bool hi_signed,
                                  size_t n, const char *name, const char *f, int l, int c)
{
    bool lo_neg = lo_signed && lo_s < 0, hi_neg = hi_signed && hi_s < 0;
    unsigned long long lo = (unsigned long long)lo_s, hi = (unsigned long long)hi_s;
    if (CN_UNLIKELY(lo_neg || hi_neg || lo > hi || hi > n))
        cn_fail_slice(f, l, c, lo_s, lo, lo_neg, hi_s, hi, hi_neg, name, n);
}

/* At a call: a view argument's length against the extent the callee's
 * parameter type asks for (computed from the call's own arguments). */
static inline CN_HD void cn_extent_check(size_t got, long long want, bool want_signed, const char *fn,
                                   const char *param, const char *extent, const char *f, int l,
                                   int c)
{
    bool want_neg = want_signed && want < 0;
    if (CN_UNLIKELY(want_neg || (unsigned long long)want != got)) {
        if (want_neg)
            CN_GUARD(f, l, c, "extent of %s is %llu but %s expects %s = %lld", param, (unsigned long long)got, fn,
                     extent, want);
        CN_GUARD(f, l, c, "extent of %s is %llu but %s expects %s = %llu", param, (unsigned long long)got, fn,
                 extent, (unsigned long long)want);
    }
}

/* ------------------------------------------------------ views and buffers */

/* One view struct per element type: a pointer and a length, passed by
 * value. A buffer is a view whose memory its block owns. */
#define CN_DEF_VIEW(T, C)                                                     \
    typedef struct {                                                          \
        C *p;                                                                 \
        size_t n;                                                             \
    } cn_view_##T;                                                            \
    static inline CN_HD cn_view_##T cn_view_##T##_make(C *p, size_t n)              \
    {                                                                         \
        cn_view_##T v;                                                        \
        v.p = p;                                                              \
        v.n = n;                                                              \
        return v;                                                             \
    }                                                                         \
    /* Element i, bounds checked: a pointer, so it serves as an lvalue. */    \
    static inline CN_HD C *cn_at_##T##_s(cn_view_##T v, long long i, const char *name, \
                                   const char *f, int l, int c)               \
    {                                                                         \
        return v.p + cn_idx_s(i, v.n, name, f, l, c);                         \
    }                                                                         \
    static inline CN_HD C *cn_at_##T##_u(cn_view_##T v, unsigned long long i, const char *name, \
                                   const char *f, int l, int c)               \
    {                                                                         \
        return v.p + cn_idx_u(i, v.n, name, f, l, c);                         \
    }                                                                         \
    static inline CN_HD cn_view_##T cn_slice_##T(cn_view_##T v, long long lo, bool lo_signed, \
                                           long long hi, bool hi_signed, const char *name, \
                                           const char *f, int l, int c)       \
    {                                                                         \
        cn_slice_check(lo, lo_signed, hi, hi_signed, v.n, name, f, l, c);     \
        return cn_view_##T##_make(v.p + (size_t)lo, (size_t)(hi - lo));       \
    }                                                                         \
    static inline cn_view_##T cn_alloc_##T(size_t n, const char *name, const char *f, int l, \
                                           int c)                             \
    {                                                                         \
        return cn_view_##T##_make((C *)cn_alloc_zeroed(n, sizeof(C), name, f, l, c), n); \
    }                                                                         \
    static inline void cn_release_##T(cn_view_##T v) { free(v.p); }

/* Zeroed host memory for n elements; a failed allocation is reported like a
 * guard. calloc checks n * size for overflow; one byte is asked for at
 * least, so an empty buffer still has a unique pointer. */
static inline void *cn_alloc_zeroed(size_t n, size_t size, const char *name, const char *f,
                                    int l, int c)
{
    void *p = calloc(n ? n : 1, size);
    if (CN_UNLIKELY(!p))
        cn_guard_fail(f, l, c, "out of memory: buffer %s of %zu elements of %zu bytes", name, n,
                      size);
    return p;
}

CN_ELEM_TYPES(CN_DEF_VIEW)
#undef CN_DEF_VIEW

/* --------------------------------------------------- closure environments */

/* A closure's environment is allocated when the closure expression runs and
 * linked into its function's list, which the function frees at every exit
 * (when no function value can leave it). The header is padded to the
 * strictest alignment so the environment behind it is aligned too. */
typedef union cn_env_head {
    union cn_env_head *next;
    max_align_t align;
} cn_env_head;

static inline void *cn_env_alloc(cn_env_head **list, size_t size, const char *f, int l, int c)
{
    cn_env_head *h = (cn_env_head *)calloc(1, sizeof(cn_env_head) + size);
    if (CN_UNLIKELY(!h))
        cn_guard_fail(f, l, c, "out of memory: closure environment of %zu bytes", size);
    if (list) {
        h->next = *list;
        *list = h;
    }
    return h + 1;
}

static inline void cn_env_free_all(cn_env_head **list)
{
    while (*list) {
        cn_env_head *next = (*list)->next;
        free(*list);
        *list = next;
    }
}

/* The emulated device machine: the guards above route through it. */
#if defined(CAIRN_EMULATE) || defined(CAIRN_COUNT)
#include "cairn_dev.h"
#endif

#endif
