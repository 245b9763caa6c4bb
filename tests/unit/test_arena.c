/*
 * test_arena.c: the arena's marks (arena_mark, arena_release in src/util.c).
 *
 * What it shows:
 *   - what was allocated before a mark is intact after its release, and
 *     arena_bytes is back to its value at the mark;
 *   - after a release of several chunks' worth (20 MiB through 64 KiB ..
 *     8 MiB chunks), the same allocations again get the same addresses (the
 *     memory is reused, nothing new is mapped) and read as zero, as fresh
 *     arena memory does;
 *   - a chunk of its own (an allocation bigger than the next chunk) is reused
 *     the same way, as are the own chunks linked in behind the mark's chunk;
 *   - marks nest; a mark of an empty arena gives everything back;
 *   - 2000 rounds of mark, 3 MiB of allocations, release use one set of
 *     addresses, not 2000;
 *   - releasing a mark twice is a compiler bug: die(), exit by SIGABRT.
 * `test_arena after-release` reads a byte allocated after a mark once the
 * mark is released: under ASan (tests/unit/test_arena_asan.sh) that read is
 * a report, since released memory is poisoned again.
 *
 * Prints FAIL lines and a last line `N passed, N failed, N skipped`.
 */
#include "cairn.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "expect.h"

#define check(ok, what) EXPECT(ok, "%s", what)

static bool all_bytes(const unsigned char *p, size_t n, unsigned char v)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != v)
            return false;
    return true;
}

enum { PIECE = 4096, PIECES = 5120 };   /* 20 MiB in 4 KiB pieces: chunks of 64 KiB up to 8 MiB */

/* Allocates PIECES pieces, checking each reads as zero, recording where each
 * landed, then filling it with `fill`. Returns whether all read as zero. */
static bool alloc_round(Arena *a, unsigned char **where, unsigned char fill)
{
    bool zero = true;
    for (int i = 0; i < PIECES; i++) {
        where[i] = arena_alloc(a, PIECE);
        zero = zero && all_bytes(where[i], PIECE, 0);
        memset(where[i], fill, PIECE);
    }
    return zero;
}

static void test_reuse(void)
{
    Arena *a = arena_new();
    char *before = arena_strdup(a, "allocated before the mark");
    unsigned char *early = arena_alloc(a, 1000);
    memset(early, 0x5A, 1000);
    size_t at_mark = arena_bytes(a);
    static unsigned char *first[PIECES], *second[PIECES];
    ArenaMark m = arena_mark(a);
    check(alloc_round(a, first, 0xAB), "first round reads as zero");
    check(arena_bytes(a) >= at_mark + (size_t)PIECES * PIECE, "arena_bytes counts the round");
    arena_release(a, m);
    check(arena_bytes(a) == at_mark, "arena_bytes is back to its value at the mark");
    check(strcmp(before, "allocated before the mark") == 0, "a string from before the mark is intact");
    check(all_bytes(early, 1000, 0x5A), "a buffer from before the mark is intact");
    check(alloc_round(a, second, 0xCD), "memory reused after the release reads as zero");
    check(memcmp(first, second, sizeof first) == 0, "the same allocations again land at the same addresses");
    check(all_bytes(early, 1000, 0x5A) && strcmp(before, "allocated before the mark") == 0,
          "what predates the mark survives its reuse");
    arena_free(a);
}

static void test_own_chunks(void)
{
    Arena *a = arena_new();
    unsigned char *small = arena_alloc(a, 64);
    memset(small, 7, 64);
    ArenaMark m = arena_mark(a);
    size_t big = (size_t)20 << 20;   /* bigger than any chunk: a chunk of its own, behind the head */
    unsigned char *p = arena_alloc(a, big);
    unsigned char *q = arena_alloc(a, 100);   /* from the mark's chunk, after the own chunk went in */
    memset(p, 0xEE, big);
    memset(q, 0xEE, 100);
    arena_release(a, m);
    unsigned char *q2 = arena_alloc(a, 100);
    unsigned char *p2 = arena_alloc(a, big);
    check(q2 == q && all_bytes(q2, 100, 0), "the mark's chunk's tail is reused, zeroed");
    check(p2 == p && all_bytes(p2, big, 0), "a chunk of its own is reused, zeroed");
    check(all_bytes(small, 64, 7), "the allocation before the mark is intact");
    arena_free(a);
}

static void test_nesting(void)
{
    Arena *a = arena_new();
    ArenaMark outer = arena_mark(a);   /* an empty arena: no chunk yet */
    char *s1 = arena_strdup(a, "outer");
    ArenaMark inner = arena_mark(a);
    for (int i = 0; i < 100; i++)
        arena_alloc(a, 100000);
    char *s2 = arena_strdup(a, "inner");
    size_t mid = arena_bytes(a);
    arena_release(a, inner);
    check(strcmp(s1, "outer") == 0, "the inner release keeps what the outer scope allocated");
    check(arena_bytes(a) < mid, "the inner release gives back its bytes");
    arena_release(a, outer);
    check(arena_bytes(a) == 0, "the outer release of an empty arena's mark gives back everything");
    char *s3 = arena_strdup(a, "again");
    check(s3 == s1 && strcmp(s3, "again") == 0, "the arena starts over in its first chunk");
    (void)s2;
    arena_free(a);
}

static int by_address(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t) * (void *const *)a, y = (uintptr_t) * (void *const *)b;
    return x < y ? -1 : x > y;
}

/* The rounds may take the spare chunks in another order than the first
 * round mapped them (own chunks sit behind the head), so the addresses are
 * compared as a set. */
static void test_rounds(void)
{
    enum { ROUND = 48 };   /* 48 x 64 KiB = 3 MiB a round */
    Arena *a = arena_new();
    ArenaMark m = arena_mark(a);
    void *first[ROUND], *now[ROUND];
    bool same = true, zero = true;
    for (int round = 0; round < 2000; round++) {
        for (int i = 0; i < ROUND; i++) {
            unsigned char *p = arena_alloc(a, 65536);
            zero = zero && p[0] == 0 && p[65535] == 0;
            p[0] = p[65535] = 1;
            now[i] = p;
        }
        qsort(now, ROUND, sizeof *now, by_address);
        if (round == 0)
            memcpy(first, now, sizeof now);
        same = same && memcmp(first, now, sizeof now) == 0;
        arena_release(a, m);
    }
    check(same, "2000 rounds of mark, allocate 3 MiB, release reuse one set of addresses");
    check(zero, "each round's memory reads as zero");
    arena_free(a);
}

/* Releasing a spent mark is our bug, not the user's: die(), which aborts. */
static void test_double_release(void)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        freopen("/dev/null", "w", stderr);
        Arena *a = arena_new();
        arena_alloc(a, 10);
        ArenaMark m = arena_mark(a);
        arena_alloc(a, 1 << 20);
        arena_release(a, m);
        arena_release(a, m);   /* again, with nothing allocated since: gives back nothing */
        arena_alloc(a, 100);
        ArenaMark inner = arena_mark(a);
        arena_alloc(a, 100);
        arena_release(a, m);
        arena_release(a, inner);   /* an inner mark after its outer one: die */
        _exit(0);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    check(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT, "releasing an inner mark after its outer one dies");
}

/* Under ASan: a read of memory handed out after a mark, once it is
 * released, is a report (the memory is poisoned again). */
static int after_release(void)
{
    Arena *a = arena_new();
    arena_alloc(a, 16);
    ArenaMark m = arena_mark(a);
    char *p = arena_alloc(a, 32);
    memset(p, 1, 32);
    arena_release(a, m);
    return ((volatile char *)p)[5];
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "after-release") == 0)
        return after_release();
    test_reuse();
    test_own_chunks();
    test_nesting();
    test_rounds();
    test_double_release();
    printf("%d passed, %d failed, 0 skipped\n", passed, failed);
    return failed != 0;
}
