/*
 * test_parse_errors.c: the parser's refusals, and its robustness.
 *
 * For each .cairn file named on the command line, its header lines say what
 * lexing and parsing it must give:
 *
 *   // expect: accept                      no error at all
 *   // expect: refuse E-PARSE at LINE:COL  one line per error: exactly these
 *                                          E-PARSE errors, at these places
 *
 * Any other expectation (a checker's refusal, `run exit 0`) only asks that
 * the file parse without error. Then, for every file, the robustness pass:
 * every prefix of the file and a few thousand seeded random mutations are
 * lexed, parsed, expanded, cloned and compared, and must neither crash nor
 * hang (run it under ASan: `make asan`). Last, generated inputs: nesting far
 * past the depth limit, and long flat programs.
 *
 * Usage: test_parse_errors [--quick] [FILE.cairn...]; with no file, every
 * .cairn file in tests/parse and tests/spec (run from the repository root).
 * Prints `ok FILE` / `FAIL FILE: reason` and a summary; exits 1 on failure.
 */
#define _POSIX_C_SOURCE 200809L
#include "../../src/cairn.h"
#include "read_file.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

/* read_file(): tests/unit/read_file.h */

typedef struct {
    int n;
    int line[64], col[64];
    char code[64][32];
} Errors;

/* Lexes and parses text with a JSON sink; fills the errors it reported.
 * Also drives the tree utilities over whatever tree came out. */
static void run_front(const char *name, const char *text, size_t len, Errors *out)
{
    Arena *a = arena_new();
    char *diags = NULL;
    size_t dlen;
    FILE *df = open_memstream(&diags, &dlen);
    Sink sink;
    sink_init(&sink, df, true);
    sink.max_errors = 0;
    Source src = {name, text, len};
    TokenList toks = lex_source(a, &sink, &src);
    Node *prog = parse_program(a, &sink, toks);
    fclose(df);
    char *exp = NULL;
    size_t elen;
    FILE *ef = open_memstream(&exp, &elen);
    expand_program(ef, prog);
    fclose(ef);
    free(exp);
    Node *copy = ast_clone(a, prog);
    if (!ast_equal(prog, copy)) {
        printf("FAIL %s: ast_clone of a tree is not ast_equal to it\n", name);
        exit(1);
    }
    if (out) {
        memset(out, 0, sizeof *out);
        for (char *line = diags; line && *line && out->n < 64;) {
            char *nl = strchr(line, '\n');
            char *c = strstr(line, "\"code\": \""), *l = strstr(line, "\"line\": ");
            char *k = strstr(line, "\"column\": ");
            if (c && l && k) {
                sscanf(c + 9, "%31[^\"]", out->code[out->n]);
                out->line[out->n] = atoi(l + 8);
                out->col[out->n] = atoi(k + 10);
                out->n++;
            }
            line = nl ? nl + 1 : NULL;
        }
    }
    free(diags);
    arena_free(a);
}

/* Checks the file against its `// expect:` lines; NULL when it holds. */
static const char *check_expectations(const char *path, const char *text, size_t len)
{
    static char why[1024];
    Errors want = {0}, got;
    bool accept = strstr(text, "// expect: accept") != NULL;
    for (const char *p = text; (p = strstr(p, "// expect: refuse E-PARSE at ")); p++) {
        if (want.n < 64 && sscanf(p + 29, "%d:%d", &want.line[want.n], &want.col[want.n]) == 2)
            want.n++;
    }
    run_front(path, text, len, &got);
    if (!want.n) {
        if (got.n) {
            snprintf(why, sizeof why, "%s at %d:%d, but the file should parse%s", got.code[0], got.line[0],
                     got.col[0], accept ? " (expect: accept)" : "");
            return why;
        }
        return NULL;
    }
    for (int i = 0; i < want.n; i++) {
        bool found = false;
        for (int j = 0; j < got.n; j++)
            found |= got.line[j] == want.line[i] && got.col[j] == want.col[i] && !strcmp(got.code[j], "E-PARSE");
        if (!found) {
            snprintf(why, sizeof why, "no E-PARSE at %d:%d (%d errors reported%s%s)", want.line[i],
                     want.col[i], got.n, got.n ? ", the first at " : "",
                     got.n ? "another place" : "");
            return why;
        }
    }
    if (got.n != want.n) {
        snprintf(why, sizeof why, "%d errors expected, %d reported", want.n, got.n);
        return why;
    }
    return NULL;
}

/* Every prefix, and seeded random mutations: none may crash or hang. */
static void shake(const char *path, const char *text, size_t len, int mutations)
{
    char *buf = malloc(len + 64);
    size_t step = len > 4000 ? len / 2000 : 1;
    for (size_t n = 0; n <= len; n += step) {
        memcpy(buf, text, n);
        buf[n] = '\0';
        run_front(path, buf, n, NULL);
    }
    static const char pieces[] = "{}()[];,.<>=+-*/%&|^!~@\"\\:0x9e_ \nfnletifreduce";
    unsigned long seed = 12345;
    for (int m = 0; m < mutations && len; m++) {
        memcpy(buf, text, len + 1);
        for (int k = 0; k < 1 + m % 4; k++) {
            seed = seed * 6364136223846793005UL + 1442695040888963407UL;
            size_t at = (seed >> 33) % len;
            buf[at] = pieces[(seed >> 17) % (sizeof pieces - 1)];
        }
        run_front(path, buf, len, NULL);
    }
    free(buf);
}

static char *repeat(const char *head, const char *unit, int times, const char *tail)
{
    size_t hl = strlen(head), ul = strlen(unit), tl = strlen(tail);
    char *s = malloc(hl + ul * (size_t)times + tl + 1);
    memcpy(s, head, hl);
    for (int i = 0; i < times; i++)
        memcpy(s + hl + ul * (size_t)i, unit, ul);
    memcpy(s + hl + ul * (size_t)times, tail, tl + 1);
    return s;
}

/* Inputs a fuzzer would find: each must give an E-PARSE, not a crash. */
static int generated(void)
{
    static const struct { const char *head, *unit, *tail; bool error; } cases[] = {
        {"fn f() { let x = ", "(", "1;}", true},
        {"fn f() { let x = ", "-", "1;}", true},
        {"fn f() ", "{", "", true},
        {"fn f() { let x = ", "a[", "0", true},
        {"fn f(x:", "ro<", "f32>[1]) {}", true},
        {"fn f() { let x = ", "reduce + for i in n yield ", "1; }", true},
        {"fn f() { if a { } ", "else if b { } ", "else { } }", false},
        {"fn f() { let x = 1", " + 1", "; }", false},
        {"", "fn f() { let x = 1; }\n", "", false},
        {"", "}", "", true},
        {"", "let", "", true},
        {"fn f() { ", "let x = ; ", "}", true},
    };
    int failed = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *s = repeat(cases[i].head, cases[i].unit, 20000, cases[i].tail);
        Errors got;
        run_front("<generated>", s, strlen(s), &got);
        bool ok = cases[i].error ? got.n > 0 : got.n == 0;
        printf("%s generated case %zu (a unit repeated 20000 times)%s\n", ok ? "ok" : "FAIL", i,
               ok ? "" : (cases[i].error ? ": no error reported" : ": unexpected error"));
        failed += !ok;
        free(s);
    }
    return failed;
}

/* The .cairn files of dir, appended to files (sorted, for stable output). */
static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int list_dir(const char *dir, char **files, int n, int max)
{
    DIR *d = opendir(dir);
    if (!d)
        return n;
    int first = n;
    for (struct dirent *e; (e = readdir(d)) && n < max;) {
        size_t l = strlen(e->d_name);
        if (l > 6 && !strcmp(e->d_name + l - 6, ".cairn")) {
            files[n] = malloc(strlen(dir) + l + 2);
            sprintf(files[n++], "%s/%s", dir, e->d_name);
        }
    }
    closedir(d);
    qsort(files + first, (size_t)(n - first), sizeof *files, cmp_str);
    return n;
}

int main(int argc, char **argv)
{
    int passed = 0, failed = 0, first = 1, mutations = 300;
    if (argc > 1 && !strcmp(argv[1], "--quick")) {
        mutations = 50;
        first = 2;
    }
    static char *found[4096];
    if (first >= argc) {
        int n = list_dir("tests/parse", found, 0, 4096);
        n = list_dir("tests/spec", found, n, 4096);
        argv = found - 1;
        argc = n + 1;
        first = 1;
    }
    for (int i = first; i < argc; i++) {
        size_t len;
        char *text = read_file(argv[i], &len);
        const char *why = text ? check_expectations(argv[i], text, len) : "cannot read the file";
        if (text)
            shake(argv[i], text, len, mutations);
        if (why) {
            printf("FAIL %s: %s\n", argv[i], why);
            failed++;
        } else {
            printf("ok %s\n", argv[i]);
            passed++;
        }
        free(text);
    }
    int gen_failed = generated();
    failed += gen_failed;
    passed += 12 - gen_failed;
    printf("%d passed, %d failed, 0 skipped\n", passed, failed);
    return failed ? 1 : 0;
}
