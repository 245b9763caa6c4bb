/*
 * fuzz_front.c: libFuzzer target over the front end (lex, parse, check).
 *
 * Each input is one CAIRN source file. It is lexed and parsed, and checked
 * when parsing reported no error -- the same order and the same guard as
 * `cairn check` (src/cli/unit.c), because check_program requires a program
 * the parser accepted. What must hold for every input: no crash, no
 * sanitizer report, no hang, no leak. Diagnostics are part of the work (they
 * format spans and print source lines), so the sink really prints them, to
 * /dev/null.
 *
 * Requires: libcairn.a built with -fsanitize=fuzzer-no-link (`make fuzz`).
 * Every input gets a fresh arena, freed after, as one compilation would.
 */
#include "cairn.h"

#include <stdlib.h>
#include <string.h>

/* Opened once, on the first input: libFuzzer runs millions of inputs and an
 * fopen each would dominate the profile. Never closed; the process ends. */
static FILE *devnull(void)
{
    static FILE *f;
    if (!f) {
        f = fopen("/dev/null", "w");
        if (!f) {
            perror("fuzz_front: /dev/null");
            abort();
        }
    }
    return f;
}

/* The source is a NUL-terminated arena copy of exactly the input's bytes,
 * like unit_load makes: embedded NULs stay in (len counts them), so the
 * lexer sees what a file on disk would give it. */
static Source fuzz_source(Arena *a, const uint8_t *data, size_t size)
{
    Source src = {"fuzz.cairn", arena_strndup(a, (const char *)data, size), size};
    return src;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    Arena *a = arena_new();
    Sink sink;
    sink_init(&sink, devnull(), false);
    Source src = fuzz_source(a, data, size);

    Node *prog = parse_source(a, &sink, &src);   /* the compiler's path: tokens streamed */
    /* The whole-file token list must give the same tree and errors. */
    Sink list_sink;
    sink_init(&list_sink, devnull(), false);
    Node *list_prog = parse_program(a, &list_sink, lex_source(a, &list_sink, &src));
    if (list_sink.errors != sink.errors || !ast_equal(prog, list_prog))
        abort();
    if (sink.errors == 0 && prog) {
        Check c;
        memset(&c, 0, sizeof c);
        c.arena = a;
        c.sink = &sink;
        c.program = prog;
        check_program(&c);
    }
    arena_free(a);
    return 0;
}
