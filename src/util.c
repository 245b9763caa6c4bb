/*
 * util.c: the arena, growable vectors, and die().
 *
 * The arena hands out memory in large chunks and frees them all at once, so
 * a compilation never frees anything one by one. Every allocation of the
 * compiler comes through arena_alloc, which is also the one place where a
 * test can make allocation fail (CAIRN_FAIL_ALLOC_AFTER=N: the N+1th
 * allocation dies like an out-of-memory would), so we can show that running
 * out of memory is a clean error and never a crash.
 */
#include "cairn.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* Under ASan (gcc says so one way, clang another) a node's unused tail is
 * poisoned: see node_new. */
#if defined(__SANITIZE_ADDRESS__)
#define NODE_POISON 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NODE_POISON 1
#endif
#endif
#ifdef NODE_POISON
#include <sanitizer/asan_interface.h>
#endif

typedef struct Chunk Chunk;
struct Chunk {
    Chunk *next;
    size_t used, cap;
    size_t mapped;        /* bytes mapped for the whole chunk */
    max_align_t data[];   /* keeps every allocation aligned for any type */
};

struct Arena {
    Chunk *head;
    size_t bytes;
    long fail_after;      /* -1: never fail */
    long count;
};

/* Big enough that a 100k-line program needs few chunks; small enough that a
 * one-line program does not touch much memory. */
enum { CHUNK_MIN = 8 << 20 };

/* Chunks are mapped straight from the kernel: the pages come zeroed, so
 * arena_alloc never clears what it hands out, and populated at once
 * (MAP_POPULATE), since faulting 4 KiB pages in one by one cost more than
 * the kernel filling the whole chunk. Huge pages (MADV_HUGEPAGE) measured
 * slower on our machines: the kernel's compaction ate the gain. */
static Chunk *chunk_map(size_t cap)
{
    size_t bytes = sizeof(Chunk) + cap;
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
#if 0 /* MADV_HUGEPAGE: measured slower here (kernel compaction) */
    madvise(p, bytes, MADV_HUGEPAGE);
#endif
    Chunk *c = p;
    c->mapped = bytes;
    return c;
}

Arena *arena_new(void)
{
    Arena *a = calloc(1, sizeof *a);
    if (!a) {
        fprintf(stderr, "cairn: out of memory\n");
        exit(2);
    }
    const char *f = getenv("CAIRN_FAIL_ALLOC_AFTER");
    a->fail_after = f ? atol(f) : -1;
    return a;
}

void arena_free(Arena *a)
{
    if (!a)
        return;
    for (Chunk *c = a->head, *next; c; c = next) {
        next = c->next;
#ifdef NODE_POISON
        ASAN_UNPOISON_MEMORY_REGION(c, c->mapped);   /* node tails (node_new): the next mapping may land here */
#endif
        munmap(c, c->mapped);
    }
    free(a);
}

static _Noreturn void out_of_memory(void)
{
    fprintf(stderr, "cairn: out of memory\n");
    exit(2);
}

void *arena_alloc(Arena *a, size_t size)
{
    if (a->fail_after >= 0 && a->count++ >= a->fail_after)
        out_of_memory();
    size = (size + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
    Chunk *c = a->head;
    if (!c || c->cap - c->used < size) {
        size_t cap = size > CHUNK_MIN ? size : CHUNK_MIN;
        c = chunk_map(cap);
        if (!c)
            out_of_memory();
        c->next = a->head;
        c->used = 0;
        c->cap = cap;
        a->head = c;
    }
    void *p = (char *)c->data + c->used;
    c->used += size;
    a->bytes += size;
    return p;                             /* zero: chunks are fresh pages, never reused */
}

size_t arena_bytes(const Arena *a) { return a->bytes; }

char *arena_strndup(Arena *a, const char *s, size_t n)
{
    char *p = arena_alloc(a, n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *arena_strdup(Arena *a, const char *s) { return arena_strndup(a, s, strlen(s)); }

char *arena_printf(Arena *a, const char *fmt, ...)
{
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *p = arena_alloc(a, (size_t)n + 1);
    vsnprintf(p, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    return p;
}

void vec_push(Arena *a, Vec *v, void *item)
{
    if (v->n == v->cap) {
        int cap = v->cap ? v->cap * 2 : 4;
        void **nv = arena_alloc(a, (size_t)cap * sizeof *nv);
        if (v->n)
            memcpy(nv, v->v, (size_t)v->n * sizeof *nv);
        v->v = nv;
        v->cap = cap;
    }
    v->v[v->n++] = item;
}

_Noreturn void die_at(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "cairn: internal error at %s:%d: ", file, line);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    abort();
}

/* The bytes of a node of each kind: the header and the union member the
 * kind uses (see NODE_KINDS). */
static const unsigned short node_sizes[N_NKINDS] = {
#define X(id, m) [id] = offsetof(Node, m) + sizeof(((Node *)0)->m),
    NODE_KINDS(X)
#undef X
};

size_t node_size(NodeKind k)
{
    if ((int)k < 0 || k >= N_NKINDS)
        die("bad node kind %d", (int)k);
    return node_sizes[k];
}

/* Under ASan a node gets the whole sizeof(Node), and the part beyond its
 * kind's member is poisoned: a read of a member the kind does not have is
 * then a report, not a silent read of the next node. */
Node *node_new(Arena *a, NodeKind k, Span at)
{
#ifdef NODE_POISON
    Node *n = arena_alloc(a, sizeof *n);
    ASAN_POISON_MEMORY_REGION((char *)n + node_size(k), sizeof *n - node_size(k));
#else
    Node *n = arena_alloc(a, node_size(k));
#endif
    n->kind = k;
    n->span = at;
    return n;
}
