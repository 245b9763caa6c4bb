/*
 * util.c: the arena, growable vectors, UTF-8 decoding, and die().
 *
 * The arena hands out memory in chunks and frees them all at once, so
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

/* Under ASan (gcc says so one way, clang another) the arena tells ASan
 * where each allocation ends: a chunk's unused tail is poisoned when it is
 * mapped, each allocation unpoisons exactly the bytes asked for, and a
 * redzone after it stays poisoned, so a write one byte past a string or a
 * vector is a report (use-after-poison), as it would be with malloc. A
 * node's unused tail is poisoned too: see node_new. */
#if defined(__SANITIZE_ADDRESS__)
#define ARENA_POISON 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ARENA_POISON 1
#endif
#endif
#ifdef ARENA_POISON
#include <sanitizer/asan_interface.h>
enum { REDZONE = 16 };    /* poisoned bytes after each allocation */
#else
enum { REDZONE = 0 };
#define ASAN_POISON_MEMORY_REGION(p, n) ((void)(p), (void)(n))
#define ASAN_UNPOISON_MEMORY_REGION(p, n) ((void)(p), (void)(n))
#endif

typedef struct ArenaChunk Chunk;
struct ArenaChunk {
    Chunk *next;
    size_t used, cap;
    size_t mapped;        /* bytes mapped for the whole chunk */
    max_align_t data[];   /* keeps every allocation aligned for any type */
};

struct Arena {
    Chunk *head;          /* the chunk small allocations come from */
    Chunk *spare;         /* chunks given back by arena_release, empty and zeroed, oldest first */
    size_t next_cap;      /* the size of the next chunk: doubles each time */
    size_t bytes;
    long fail_after;      /* -1: never fail */
    long count;
};

/* A one-line program (and each of the fuzzer's inputs) should touch little
 * memory, and a million-line one should need few chunks: the first chunk is
 * small and each next one twice the last, up to CHUNK_MAX. Past 8 MiB the
 * last chunk, populated and mostly unused, cost more than the fewer mmap
 * calls saved (64 MiB chunks: 132 MiB resident for a 100k-line check that
 * needs 74). */
enum { CHUNK_FIRST = 64 << 10, CHUNK_MAX = 8 << 20 };

/* Chunks of at least this size are populated when mapped (MAP_POPULATE):
 * for a big input, the kernel filling a chunk at once is cheaper than
 * faulting its pages in one by one, and a chunk this size is mostly used
 * (the one before it was full). A small chunk is faulted in as it is used.
 * bench/check_speed.sh measured the choice (docs/internals.md). */
enum { POPULATE_MIN = 1 << 20 };

/* Chunks are mapped straight from the kernel: the pages come zeroed, so
 * arena_alloc never clears what it hands out. Huge pages (MADV_HUGEPAGE)
 * measured slower on our machines: the kernel's compaction ate the gain. */
static Chunk *chunk_map(size_t cap)
{
    size_t bytes = sizeof(Chunk) + cap;
    int flags = MAP_PRIVATE | MAP_ANONYMOUS | (cap >= POPULATE_MIN ? MAP_POPULATE : 0);
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, flags, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    Chunk *c = p;
    c->mapped = bytes;
    c->cap = cap;
    ASAN_POISON_MEMORY_REGION(c->data, cap);
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
    a->next_cap = CHUNK_FIRST;
    return a;
}

static void chunk_unmap_list(Chunk *c)
{
    for (Chunk *next; c; c = next) {
        next = c->next;
        ASAN_UNPOISON_MEMORY_REGION(c, c->mapped);   /* the next mapping may land here */
        munmap(c, c->mapped);
    }
}

void arena_free(Arena *a)
{
    if (!a)
        return;
    chunk_unmap_list(a->head);
    chunk_unmap_list(a->spare);
    free(a);
}

static _Noreturn void out_of_memory(void)
{
    fprintf(stderr, "cairn: out of memory\n");
    exit(2);
}

/* The first spare chunk (given back by arena_release) that holds `need`
 * bytes, unlinked; NULL when none does. */
static Chunk *spare_take(Arena *a, size_t need)
{
    for (Chunk **p = &a->spare; *p; p = &(*p)->next)
        if ((*p)->cap >= need) {
            Chunk *c = *p;
            *p = c->next;
            c->next = NULL;
            return c;
        }
    return NULL;
}

/* A chunk for an allocation of `need` bytes that the head cannot hold: a
 * spare one if one is big enough, else a new mapping. An allocation bigger
 * than the next chunk gets a chunk of its own, linked behind the head, so
 * the head's free tail keeps serving small ones. */
static Chunk *arena_grow(Arena *a, size_t need)
{
    bool own = need > a->next_cap;
    Chunk *c = spare_take(a, need);
    if (!c) {
        c = chunk_map(own ? need : a->next_cap);
        if (!c)
            out_of_memory();
        if (!own && a->next_cap < CHUNK_MAX)
            a->next_cap *= 2;
    }
    if (own && a->head) {
        c->next = a->head->next;
        a->head->next = c;
        return c;
    }
    c->next = a->head;
    a->head = c;
    return c;
}

void *arena_alloc(Arena *a, size_t size)
{
    if (a->fail_after >= 0 && a->count++ >= a->fail_after)
        out_of_memory();
    if (size > SIZE_MAX / 2)
        out_of_memory();
    size_t need = (size + REDZONE + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
    Chunk *c = a->head;
    if (!c || c->cap - c->used < need)
        c = arena_grow(a, need);
    void *p = (char *)c->data + c->used;
    c->used += need;
    a->bytes += need;
    ASAN_UNPOISON_MEMORY_REGION(p, size);
    return p;                             /* zero: fresh pages, or cleared by arena_release */
}

size_t arena_bytes(const Arena *a) { return a->bytes; }

/* ------------------------------------------------------------ marks */

ArenaMark arena_mark(Arena *a)
{
    ArenaMark m = {a->head, a->head ? a->head->next : NULL, a->head ? a->head->used : 0, a->bytes};
    return m;
}

/* Clears c's bytes from `from` to its end of use and poisons them again:
 * what arena_alloc hands out next must read as zero, as fresh pages do.
 * The cost is the bytes used since the mark, never the chunk's size. */
static void chunk_clear_from(Chunk *c, size_t from)
{
    ASAN_UNPOISON_MEMORY_REGION((char *)c->data + from, c->used - from);
    memset((char *)c->data + from, 0, c->used - from);
    ASAN_POISON_MEMORY_REGION((char *)c->data + from, c->cap - from);
    c->used = from;
}

/* A chunk made after the mark: cleared, and kept on the spare list for the
 * allocations after the release (mapping it again would cost a system call
 * and, for a big one, populating its pages again). */
static void chunk_spare(Arena *a, Chunk *c)
{
    chunk_clear_from(c, 0);
    c->next = a->spare;
    a->spare = c;
}

/* The chunks made after m are those in front of m.head in the list and the
 * own chunks linked in between m.head and m.below; every other chunk
 * predates the mark, and m.head only needs its tail cleared. The list is
 * walked newest first, so the spare list ends with the oldest on top and
 * reuse follows the order of the first mapping. */
void arena_release(Arena *a, ArenaMark m)
{
    if (m.bytes > a->bytes || (m.head && m.head->used < m.used))
        die("arena_release: a mark released twice, or an outer mark before an inner one");
    Chunk *c = a->head;
    while (c != m.head) {
        if (!c)
            die("arena_release: the mark's chunk is not in this arena");
        Chunk *next = c->next;
        chunk_spare(a, c);
        c = next;
    }
    if (m.head) {
        for (Chunk *o = m.head->next, *next; o != m.below; o = next) {
            if (!o)
                die("arena_release: the mark's chunk list changed");
            next = o->next;
            chunk_spare(a, o);
        }
        m.head->next = m.below;
        chunk_clear_from(m.head, m.used);
    }
    a->head = m.head;
    a->bytes = m.bytes;
}

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

/* The UTF-8 character at p: its length in bytes (1 to 4) and its code
 * point, or 0 when the bytes there are not UTF-8 (a stray continuation
 * byte, a truncated sequence, an overlong form, a surrogate, past
 * U+10FFFF). Strict, as RFC 3629 is: one text has one decoding. */
int utf8_decode(const char *p, const char *end, uint32_t *cp)
{
    const unsigned char *s = (const unsigned char *)p;
    if (p >= end)
        return 0;
    if (s[0] < 0x80) {
        *cp = s[0];
        return 1;
    }
    int n = s[0] >= 0xF0 ? 4 : s[0] >= 0xE0 ? 3 : s[0] >= 0xC0 ? 2 : 0;
    if (!n || s[0] > 0xF4 || end - p < n)
        return 0;
    uint32_t c = s[0] & (0x7F >> n);
    for (int i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        c = c << 6 | (s[i] & 0x3F);
    }
    static const uint32_t least[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (c < least[n] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
        return 0;
    *cp = c;
    return n;
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
#ifdef ARENA_POISON
    Node *n = arena_alloc(a, sizeof *n);
    ASAN_POISON_MEMORY_REGION((char *)n + node_size(k), sizeof *n - node_size(k));
#else
    Node *n = arena_alloc(a, node_size(k));
#endif
    n->kind = k;
    n->span = at;
    return n;
}
