/*
 * arena_probe.c: writes in and past arena allocations, for test_arena_asan.sh.
 *
 *   arena_probe CASE      built with src/util.c under -fsanitize=address
 *
 * Each CASE but "inside" writes one byte past what arena_alloc (or a
 * function over it) handed out; under ASan the arena poisons what it has
 * not handed out, so each must be reported. "inside" writes every byte it
 * was given and must run clean: the near miss.
 */
#include "cairn.h"

#include <string.h>

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    const char *c = argv[1];
    Arena *a = arena_new();
    volatile char *p = arena_alloc(a, 13);
    char *next = arena_alloc(a, 32);           /* an allocation right after it */
    if (!strcmp(c, "inside")) {
        for (int i = 0; i < 13; i++)
            p[i] = 1;
        memset(next, 1, 32);
        Vec v = {0};
        for (int i = 0; i < 100; i++)
            vec_push(a, &v, next);
        char *s = arena_strndup(a, "abc", 3);
        s[3] = '\0';
        char *big = arena_alloc(a, 1 << 20);   /* bigger than the first chunk */
        big[(1 << 20) - 1] = 1;
    } else if (!strcmp(c, "tail")) {
        p[13] = 1;                             /* in the alignment padding */
    } else if (!strcmp(c, "redzone")) {
        volatile char *q = arena_alloc(a, 16);
        arena_alloc(a, 16);
        q[16] = 1;                             /* a whole granule: the redzone */
    } else if (!strcmp(c, "vector")) {
        Vec v = {0};
        for (int i = 0; i < 5; i++)            /* capacity 8 */
            vec_push(a, &v, next);
        ((volatile char *)v.v)[8 * sizeof(void *)] = 1;
    } else if (!strcmp(c, "string")) {
        volatile char *s = arena_strndup(a, "abcdefgh", 8);
        s[9] = 'x';
    } else if (!strcmp(c, "big")) {
        volatile char *big = arena_alloc(a, 1 << 20);
        big[1 << 20] = 1;
    } else if (!strcmp(c, "unused")) {
        p[4096] = 1;                           /* the chunk's tail, never handed out */
    } else {
        return 2;
    }
    arena_free(a);
    return 0;
}
