/*
 * test_roundtrip.c: the printer's contract, parse(expand(parse(S))) is
 * ast_equal to parse(S), checked on every .cairn file named on the command
 * line. Also checks that printing is stable (expanding the re-parsed tree
 * gives the same text) and that ast_clone gives an equal tree.
 *
 * A file whose header says `// expect: refuse E-PARSE` (or E-ENCODING) is skipped: it has
 * no tree to print. Usage: test_roundtrip FILE.cairn...
 * Prints `ok FILE` or `FAIL FILE: reason` per file, then a summary line;
 * exits 1 on any failure.
 */
#define _POSIX_C_SOURCE 200809L
#include "../../src/cairn.h"
#include "read_file.h"

#include <stdlib.h>
#include <string.h>

/* read_file(): tests/unit/read_file.h */

/* Parses text; returns NULL (and the diagnostics in *diags) on errors. */
static Node *parse_text(Arena *a, const Source *src, char **diags)
{
    size_t dlen;
    FILE *df = open_memstream(diags, &dlen);
    Sink sink;
    sink_init(&sink, df, false);
    TokenList toks = lex_source(a, &sink, src);
    Node *prog = parse_program(a, &sink, toks);
    fclose(df);
    return sink.errors ? NULL : prog;
}

static char *expand_text(const Node *prog)
{
    char *text;
    size_t len;
    FILE *f = open_memstream(&text, &len);
    expand_program(f, prog);
    fclose(f);
    return text;
}

/* NULL when the file round-trips, else why not (static or leaked string). */
static const char *check_file(const char *path)
{
    static char why[4096];
    size_t len;
    char *text = read_file(path, &len);
    if (!text)
        return "cannot read the file";
    Arena *a = arena_new();
    char *diags = NULL, *first = NULL, *second = NULL;
    const char *fail = NULL;
    Source src = {path, text, len};
    Node *p1 = parse_text(a, &src, &diags);
    if (!p1) {
        snprintf(why, sizeof why, "does not parse:\n%s", diags);
        fail = why;
        goto done;
    }
    free(diags);
    first = expand_text(p1);
    Source src2 = {"<expanded>", first, strlen(first)};
    Node *p2 = parse_text(a, &src2, &diags);
    if (!p2) {
        snprintf(why, sizeof why, "the expansion does not parse:\n%s\n--- expansion:\n%s", diags, first);
        fail = why;
        goto done;
    }
    if (!ast_equal(p1, p2)) {
        snprintf(why, sizeof why, "the expansion parses to another tree\n--- expansion:\n%s", first);
        fail = why;
        goto done;
    }
    second = expand_text(p2);
    if (strcmp(first, second)) {
        snprintf(why, sizeof why, "expanding twice gives other text:\n%s\n--- then:\n%s", first, second);
        fail = why;
        goto done;
    }
    if (!ast_equal(p1, ast_clone(a, p1)))
        fail = "ast_clone gives a tree that is not ast_equal";
done:
    free(diags);
    free(first);
    free(second);
    free(text);
    arena_free(a);
    return fail;
}

static bool expects_parse_error(const char *path)
{
    size_t len;
    char *text = read_file(path, &len);
    bool yes = text && (strstr(text, "// expect: refuse E-PARSE") || strstr(text, "// expect: refuse E-ENCODING"));
    free(text);
    return yes;
}

int main(int argc, char **argv)
{
    int passed = 0, failed = 0, skipped = 0;
    for (int i = 1; i < argc; i++) {
        if (expects_parse_error(argv[i])) {
            skipped++;
            continue;
        }
        const char *why = check_file(argv[i]);
        if (why) {
            printf("FAIL %s: %s\n", argv[i], why);
            failed++;
        } else {
            printf("ok %s\n", argv[i]);
            passed++;
        }
    }
    printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
    return failed ? 1 : 0;
}
