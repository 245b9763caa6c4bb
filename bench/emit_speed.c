/*
 * emit_speed.c: how long the emitter takes, apart from the C compiler.
 *
 *   emit_speed FILE.cairn [RUNS]
 *
 * `cairn build` emits C and then runs cc on it, and cc's time on a
 * million-line file is cc's, not ours; so this driver, linked with the
 * compiler's library (build/obj-cc/libcairn.a), runs the stages `cairn
 * build` runs up to the C file -- parse, check, emit -- and writes the C to
 * /dev/null. It prints one line per run:
 *
 *   CHECK_NS EMIT_NS C_BYTES
 *
 * (CPU time of the process for each part, from clock_gettime). Exits 1 when
 * the program is refused: a refused program would time the wrong thing.
 */
#define _GNU_SOURCE   /* fopencookie: a FILE that only counts what is written */
#include "cairn.h"
#include "pass.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static long long cpu_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 20, n = 0, got;
    char *buf = malloc(cap);
    while (buf && (got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (n + 1 == cap) {
            char *nb = realloc(buf, cap *= 2);
            if (!nb) {
                free(buf);
                buf = NULL;
            }
            buf = nb;
        }
    }
    fclose(f);
    if (buf)
        buf[n] = '\0';
    *len = n;
    return buf;
}

static ssize_t count_write(void *cookie, const char *buf, size_t n)
{
    (void)buf;
    *(long *)cookie += (long)n;
    return (ssize_t)n;
}

/* One compilation: parse and check, then emit into a counting sink. */
static int run_once(const char *path, const char *text, size_t len)
{
    long long t0 = cpu_ns();
    Arena *a = arena_new();
    Sink sink;
    sink_init(&sink, stderr, false);
    Source src = {.name = path, .text = text, .len = len};
    Check c = {.arena = a, .sink = &sink};
    c.program = parse_source(a, &sink, &src);
    if (sink.errors || !check_program(&c) || sink.errors) {
        fprintf(stderr, "emit_speed: %s is refused\n", path);
        return 1;
    }
    long long t1 = cpu_ns();
    long bytes = 0;
    FILE *out = fopencookie(&bytes, "w", (cookie_io_functions_t){.write = count_write});
    if (!out)
        return 2;
    Emit e = {.arena = a, .out = out, .check = &c, .runtime_dir = ".", .with_main = true};
    Compilation u = {.arena = a, .sink = &sink, .check = &c, .emit = &e};
    passes_run(&u, PASS_ANALYZE, PASS_EMIT);   /* the analysis the emitter reads, then emit */
    fclose(out);
    long long t2 = cpu_ns();
    printf("%lld %lld %ld\n", t1 - t0, t2 - t1, bytes);
    arena_free(a);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: emit_speed FILE.cairn [RUNS]\n");
        return 2;
    }
    size_t len;
    char *text = read_all(argv[1], &len);
    if (!text) {
        fprintf(stderr, "emit_speed: cannot read %s\n", argv[1]);
        return 2;
    }
    int runs = argc > 2 ? atoi(argv[2]) : 1;
    for (int i = 0; i < runs; i++)
        if (run_once(argv[1], text, len))
            return 1;
    free(text);
    return 0;
}
