/*
 * fuzz_front.c: libFuzzer target over the front end (lex, parse, check) and
 * the emitter.
 *
 * Two modes, two binaries (`make fuzz`; tests/fuzz/README.md says how to
 * run them):
 *   bin/cairn-fuzz      each input is one CAIRN source file, as bytes;
 *   bin/cairn-fuzz-gen  each input is a list of choices for the program
 *                       generator in gen.c (FUZZ_GENERATE), which makes
 *                       long chains, deep blocks, many statements, long
 *                       names and huge literals out of a few bytes.
 * Either way the program is lexed and parsed, checked when parsing reported
 * no error, and emitted as C (to /dev/null) when the check accepted it and
 * it has no device work -- the same order and the same guards as `cairn
 * check` and `cairn build` (src/cli/unit.c, build.c), because each stage
 * requires what the one before it accepted. What must hold for every input:
 * no crash, no sanitizer report, no hang, no leak. Diagnostics are part of
 * the work (they format spans and print source lines), so the sink really
 * prints them, to /dev/null.
 *
 * Requires: libcairn.a built with -fsanitize=fuzzer-no-link (`make fuzz`).
 * Every input gets a fresh arena, freed after, as one compilation would.
 */
#include "cairn.h"
#include "pass.h"

#include <stdlib.h>
#include <string.h>

#ifdef FUZZ_GENERATE
#include "gen.h"
/* The choices are few bytes; the programs they make are large. */
#define DEFAULT_MAX_LEN "-max_len=4096"
#else
/* Long enough for a few thousand-term chain or a 300-deep nest written out. */
#define DEFAULT_MAX_LEN "-max_len=65536"
#endif

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

/* libFuzzer calls this before it reads its flags, with argv it may change:
 * a run without -max_len gets DEFAULT_MAX_LEN (libFuzzer's own default is
 * the corpus's longest file, or 4096), so `bin/cairn-fuzz DIR` reaches long
 * inputs without being told. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    for (int i = 1; i < *argc; i++)
        if (!strncmp((*argv)[i], "-max_len=", 9))
            return 0;
    char **args = calloc((size_t)*argc + 2, sizeof *args);
    if (!args)
        abort();
    memcpy(args, *argv, (size_t)*argc * sizeof *args);
    args[(*argc)++] = DEFAULT_MAX_LEN;
    *argv = args;                  /* kept for the process's life, as argv is */
    return 0;
}

/* Parsing through the lexer's stream and through the whole-file token list
 * must give the same tree and the same diagnostics. A list cut short by the
 * sink's limit is the exception: the stream's lexer stops reading at the
 * limit, while the list's was done before the parser's errors came, so the
 * trees differ past the stop. Both must stop, though, or neither. */
static void check_parse_paths(Arena *a, const Source *src, const Sink *sink, Node *prog)
{
    Sink list_sink;
    sink_init(&list_sink, devnull(), false);
    Node *list_prog = parse_program(a, &list_sink, lex_source(a, &list_sink, src));
    if (list_sink.stopped != sink->stopped)
        abort();
    if (!sink->stopped && (list_sink.errors != sink->errors || !ast_equal(prog, list_prog)))
        abort();
}

/* The emitter, on a program the check accepted (device work needs a
 * target, which `cairn build` resolves first; the fuzzer has none). */
static void emit_accepted(Arena *a, Check *c)
{
    if (c->device_work)
        return;
    Emit e = {.arena = a, .out = devnull(), .check = c, .runtime_dir = "runtime", .with_main = true};
    Compilation u = {.arena = a, .sink = c->sink, .check = c, .emit = &e};
    passes_run(&u, PASS_ANALYZE, PASS_EMIT);   /* the analysis the emitter reads, then emit */
}

static void front_end(const uint8_t *data, size_t size)
{
    Arena *a = arena_new();
    Sink sink;
    sink_init(&sink, devnull(), false);
    Source src = fuzz_source(a, data, size);

    Node *prog = parse_source(a, &sink, &src);   /* the compiler's path: tokens streamed */
    check_parse_paths(a, &src, &sink, prog);
    if (sink.errors == 0 && prog) {
        Check c;
        memset(&c, 0, sizeof c);
        c.arena = a;
        c.sink = &sink;
        c.program = prog;
        if (check_program(&c) && sink.errors == 0)
            emit_accepted(a, &c);
    }
    arena_free(a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
#ifdef FUZZ_GENERATE
    size_t len;
    char *text = gen_program(data, size, &len);
    front_end((const uint8_t *)text, len);
    free(text);
#else
    front_end(data, size);
#endif
    return 0;
}
