/*
 * manifest.c: the subset of TOML a CAIRN manifest uses.
 *
 *   # comment
 *   [build]
 *   name = "saxpy"
 *   kind = "exe"
 *   source = "src/saxpy.cairn"
 *   device_target = "sm_90a"
 *
 * Tables ([name] and [[name]]), and keys whose values are basic strings,
 * integers, booleans or arrays of strings on one line. Anything else is an
 * error naming the line, never a silent skip.
 */
#include "cli.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    char *e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1]))
        *--e = '\0';
    return s;
}

/* Cuts a comment that is not inside a string. */
static void cut_comment(char *s)
{
    bool in_str = false;
    for (char *p = s; *p; p++) {
        if (*p == '"' && (p == s || p[-1] != '\\'))
            in_str = !in_str;
        else if (*p == '#' && !in_str) {
            *p = '\0';
            return;
        }
    }
}

static bool valid_value(const char *v)
{
    size_t n = strlen(v);
    if (n >= 2 && v[0] == '"' && v[n - 1] == '"')
        return true;
    if (n >= 2 && v[0] == '[' && v[n - 1] == ']')
        return true;
    if (!strcmp(v, "true") || !strcmp(v, "false"))
        return true;
    char *end;
    errno = 0;
    (void)strtoll(v, &end, 10);
    return n > 0 && *end == '\0' && errno == 0;
}

static const char *unquote(Arena *a, const char *v)
{
    size_t n = strlen(v);
    if (n >= 2 && v[0] == '"' && v[n - 1] == '"')
        return arena_strndup(a, v + 1, n - 2);
    return arena_strdup(a, v);
}

static bool parse_line(Arena *a, Toml *t, char *line, int lineno, const char **table,
                       const char *path, char *err, size_t errlen)
{
    char *s = trim(line);
    if (!*s)
        return true;
    if (s[0] == '[') {
        bool array = s[1] == '[';
        char *end = strchr(s, ']');
        if (!end || (array && end[1] != ']')) {
            snprintf(err, errlen, "%s:%d: a table header needs a closing ]", path, lineno);
            return false;
        }
        *end = '\0';
        *table = arena_strdup(a, trim(s + (array ? 2 : 1)));
        TomlEntry *h = arena_alloc(a, sizeof *h);   /* a header, even of an empty table */
        h->table = *table;
        h->line = lineno;
        vec_push(a, &t->tables, h);
        return true;
    }
    char *eq = strchr(s, '=');
    if (!eq) {
        snprintf(err, errlen, "%s:%d: expected key = value", path, lineno);
        return false;
    }
    *eq = '\0';
    char *key = trim(s), *value = trim(eq + 1);
    if (!*key || !valid_value(value)) {
        snprintf(err, errlen, "%s:%d: expected key = \"string\", a number, true/false or [..]",
                 path, lineno);
        return false;
    }
    TomlEntry *e = arena_alloc(a, sizeof *e);
    e->table = *table;
    e->key = arena_strdup(a, key);
    e->value = unquote(a, value);
    e->line = lineno;
    vec_push(a, &t->entries, e);
    return true;
}

bool toml_read(Arena *a, const char *path, Toml *t, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "cairn: cannot read %s: %s", path, strerror(errno));
        return false;
    }
    char line[4096];
    const char *table = "";
    bool ok = true;
    for (int lineno = 1; ok && fgets(line, sizeof line, f); lineno++) {
        cut_comment(line);
        ok = parse_line(a, t, line, lineno, &table, path, err, errlen);
    }
    fclose(f);
    return ok;
}

const char *toml_get(const Toml *t, const char *table, const char *key)
{
    for (int i = 0; i < t->entries.n; i++) {
        const TomlEntry *e = t->entries.v[i];
        if (!strcmp(e->table, table) && !strcmp(e->key, key))
            return e->value;
    }
    return NULL;
}

/* ------------------------------------------------------------ the manifest */

/* The tables and keys a manifest may hold. [foreign] vendors CUDA, which
 * only nvcc builds: its keys are read when foreign CUDA is lowered. A table
 * or key outside this list is refused by name, so a misspelt one is never
 * silently ignored. */
static const char *const build_keys[] = {"name", "kind", "source", "device_target", NULL};

static bool known_key(const char *const *keys, const char *k)
{
    for (int i = 0; keys[i]; i++)
        if (!strcmp(keys[i], k))
            return true;
    return false;
}

static bool manifest_fail(Manifest *m, int exit_code, int line, const char *code, const char *help,
                          const char *fmt, const char *what)
{
    fprintf(stderr, "%s:%d:1: error", m->path, line);
    if (code)
        fprintf(stderr, "[%s]", code);
    fprintf(stderr, ": ");
    fprintf(stderr, fmt, what);
    fprintf(stderr, "\n  help: %s\n", help);
    m->exit_code = exit_code;
    return false;
}

bool manifest_read(Arena *a, const char *path, bool emulate, Manifest *m)
{
    memset(m, 0, sizeof *m);
    m->path = path;
    char err[512];
    if (!toml_read(a, path, &m->toml, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        m->exit_code = EXIT_USAGE;
        return false;
    }
    for (int i = 0; i < m->toml.tables.n; i++) {
        const TomlEntry *h = m->toml.tables.v[i];
        if (!strcmp(h->table, "build"))
            continue;
        if (!strcmp(h->table, "foreign")) {
            if (emulate)   /* devices.md: vendored CUDA cannot be emulated */
                return manifest_fail(m, EXIT_REFUSED, h->line, "E-EMULATE",
                                     "build for a device without --emulate, or keep the foreign kernel out of "
                                     "the manifest that emulates",
                                     "the manifest's [%s] table vendors CUDA, which only nvcc builds and only a "
                                     "device runs: it cannot be emulated on the host", h->table);
            return manifest_fail(m, EXIT_REFUSED, h->line, "E-UNSUPPORTED",
                                 "foreign CUDA arrives with a later issue; until then remove the table",
                                 "the manifest's [%s] table (vendored CUDA) is not built yet", h->table);
        }
        return manifest_fail(m, EXIT_USAGE, h->line, NULL, "a manifest has a [build] table (name, kind, source, "
                             "device_target) and, later, [foreign]",
                             "unknown table [%s] in the manifest", h->table);
    }
    for (int i = 0; i < m->toml.entries.n; i++) {
        const TomlEntry *e = m->toml.entries.v[i];
        if (!*e->table)
            return manifest_fail(m, EXIT_USAGE, e->line, NULL, "put it under [build]",
                                 "the key %s stands before any table", e->key);
        if (!strcmp(e->table, "build") && !known_key(build_keys, e->key))
            return manifest_fail(m, EXIT_USAGE, e->line, NULL, "[build] takes name, kind, source and device_target",
                                 "unknown key %s in [build]", e->key);
    }
    m->kind = toml_get(&m->toml, "build", "kind");
    m->name = toml_get(&m->toml, "build", "name");
    m->source = toml_get(&m->toml, "build", "source");
    m->device_target = toml_get(&m->toml, "build", "device_target");
    return true;
}
