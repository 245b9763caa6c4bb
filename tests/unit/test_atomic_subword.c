/*
 * test_atomic_subword.c: the update a device compare-and-swap loop applies
 * to an 8- or 16-bit element inside its 32-bit word (runtime/cairn_atomic.h,
 * cn_subword_update), on the host, against C's own arithmetic on the
 * element's type.
 *
 * Every op (add, min, max, and, or, xor, cas) on i8 and u8 for every pair
 * of old and new values at each of the four byte positions, and on i16 and
 * u16 for every old value against 64 new values (and every new value
 * against 64 old ones) at both half-word positions; the bytes around the
 * element (zeros, then a pattern) must come back unchanged, and the old
 * value must be the element's. The device loop itself runs only on a GPU
 * (tests/dev/run_coop_atomics_*.cairn).
 */
#include "cairn_atomic.h"

#include "expect.h"

static const int OPS[] = {CN_SUB_ADD, CN_SUB_MIN, CN_SUB_MAX, CN_SUB_AND, CN_SUB_OR, CN_SUB_XOR, CN_SUB_CAS};
static const char *OP_NAMES[] = {"add", "min", "max", "and", "or", "xor", "cas"};

/* The model: the op on the element's own type, as C computes it. The
 * expected value of a cas is e; its new value v. */
static int64_t model(int op, int64_t f, int64_t v, int64_t e)
{
    switch (op) {
    case CN_SUB_ADD: return f + v;
    case CN_SUB_MIN: return v < f ? v : f;
    case CN_SUB_MAX: return v > f ? v : f;
    case CN_SUB_AND: return f & v;
    case CN_SUB_OR: return f | v;
    case CN_SUB_XOR: return f ^ v;
    default: return f == e ? v : f;
    }
}

/* A typed value's bits in a field of `bits` bits, and back. */
static uint32_t field_of(int64_t x, unsigned bits) { return (uint32_t)x & ((1u << bits) - 1); }
static int64_t value_of(uint32_t f, unsigned bits, bool sgn)
{
    if (sgn && (f >> (bits - 1)))
        return (int64_t)f - ((int64_t)1 << bits);
    return f;
}

/* One update checked, with the bytes around the element all zeros and then
 * a pattern (a carry or a stray bit shows in one or the other): the
 * element's new bits, the other bytes kept, the old value returned.
 * Returns 0 when all three hold both times. */
static int one(int op, unsigned bits, bool sgn, unsigned sh, uint32_t fbits, uint32_t vbits, uint32_t ebits)
{
    uint32_t m = ((1u << bits) - 1) << sh;
    int64_t want = model(op, value_of(fbits, bits, sgn), value_of(vbits, bits, sgn), value_of(ebits, bits, sgn));
    int bad = 0;
    for (int p = 0; p < 2; p++) {
        uint32_t around = (p ? 0xA5C3E187u : 0u) & ~m;
        uint32_t w = around | (fbits << sh), old = 0xDEADBEEFu;
        uint32_t next = cn_subword_update(w, sh, bits, sgn, op, vbits, ebits, &old);
        bad |= (next & ~m) != around || ((next & m) >> sh) != field_of(want, bits) || old != fbits;
    }
    return bad;
}

static void width(unsigned bits, bool sgn)
{
    for (size_t o = 0; o < sizeof OPS / sizeof OPS[0]; o++) {
        for (unsigned sh = 0; sh + bits <= 32; sh += 8) {
            if (bits == 16 && sh % 16)
                continue;   /* a 16-bit element is 2-byte aligned */
            long bad = 0, n = 0;
            uint32_t lim = 1u << bits;
            for (uint32_t f = 0; f < lim; f++)
                for (uint32_t k = 0; k < (bits == 8 ? lim : 64u); k++) {
                    uint32_t v = bits == 8 ? k : (k * 1031u + 7u) & 0xFFFFu;
                    uint32_t e = (f + (k % 3 == 0 ? 0 : k)) & (lim - 1);   /* a third of the cases: e == f */
                    bad += one(OPS[o], bits, sgn, sh, f, v, e);
                    if (bits == 16)   /* and every new value against a spread of old ones */
                        bad += one(OPS[o], bits, sgn, sh, (k * 2053u + 11u) & 0xFFFFu, f, f), n++;
                    n++;
                }
            EXPECT(bad == 0, "%s on %s%u at bit %u: %ld of %ld updates wrong", OP_NAMES[o], sgn ? "i" : "u", bits, sh,
                   bad, n);
        }
    }
}

int main(void)
{
    width(8, true);
    width(8, false);
    width(16, true);
    width(16, false);
    /* the values the sign extension turns on: -128 is below 127, 0x80 above 0x7f */
    uint32_t old;
    EXPECT(cn_subword_update(0x7Fu << 8, 8, 8, true, CN_SUB_MIN, 0x80, 0, &old) == 0x80u << 8 && old == 0x7F,
           "i8 min(127, -128) at byte 1 is -128");
    EXPECT(cn_subword_update(0x7Fu << 8, 8, 8, false, CN_SUB_MIN, 0x80, 0, &old) == 0x7Fu << 8,
           "u8 min(127, 128) is 127");
    EXPECT(cn_subword_update(0xFFFFu << 16, 16, 16, true, CN_SUB_MAX, 0x0001, 0, &old) == 0x0001u << 16,
           "i16 max(-1, 1) at the high half is 1");
    EXPECT(cn_subword_update(0x00FFFFFFu, 24, 8, false, CN_SUB_ADD, 0xFF, 0, &old) == 0xFFFFFFFFu && old == 0,
           "u8 add at the top byte wraps in the byte, leaving the rest");
    return expect_summary();
}
