/*
 * unit.c: options, and one compilation unit through the front end and the
 * checker. Every subcommand that reads a program comes through here, so the
 * pipeline is written once.
 */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Option names each take a value or not; `allowed` lists which a command
 * accepts, separated by spaces. */
static bool allowed_has(const char *allowed, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = allowed; (p = strstr(p, name)); p += n)
        if ((p == allowed || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
            return true;
    return false;
}

static bool opt_value(const char *cmd, int argc, char **argv, int *i, const char **dst)
{
    if (*i + 1 >= argc) {
        fprintf(stderr, "cairn %s: %s needs a value\n", cmd, argv[*i]);
        return false;
    }
    *dst = argv[++*i];
    return true;
}

bool opts_parse(Options *o, const char *cmd, int argc, char **argv, const char *allowed)
{
    memset(o, 0, sizeof *o);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--")) {
            o->nprog_args = argc - i - 1;
            o->prog_args = argv + i + 1;
            break;
        }
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            o->help = true;
            return true;
        }
        if (a[0] != '-' || a[1] == '\0') {
            if (o->path) {
                fprintf(stderr, "cairn %s: one path only (got '%s' and '%s')\n", cmd, o->path, a);
                return false;
            }
            o->path = a;
            continue;
        }
        const char *name = a + 2;
        if (a[1] != '-' || !allowed_has(allowed, name)) {
            fprintf(stderr, "cairn %s: unknown option '%s' (see cairn %s --help)\n", cmd, a, cmd);
            return false;
        }
        if (!strcmp(name, "json"))
            o->json = true;
        else if (!strcmp(name, "emulate"))
            o->emulate = true;
        else if (!strcmp(name, "emit-c"))
            o->emit_c = true;
        else if (!strcmp(name, "header"))
            o->header = true;
        else if (!strcmp(name, "device-target")) {
            if (!opt_value(cmd, argc, argv, &i, &o->device_target))
                return false;
        } else if (!strcmp(name, "out")) {
            if (!opt_value(cmd, argc, argv, &i, &o->out_dir))
                return false;
        } else
            die("option %s allowed but not handled", a);
    }
    return true;
}


bool unit_load(Unit *u, const char *path, const Options *o)
{
    memset(u, 0, sizeof *u);
    u->arena = arena_new();
    sink_init(&u->sink, stderr, o && o->json);
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cairn: cannot read %s: %s\n", path, strerror(errno));
        return false;
    }
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += got;
        if (cap - len - 1 == 0) {
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
    }
    bool bad = ferror(f) || !buf;
    fclose(f);
    if (bad) {
        free(buf);
        fprintf(stderr, "cairn: cannot read %s\n", path);
        return false;
    }
    buf[len] = '\0';
    u->src.name = arena_strdup(u->arena, path);
    u->src.text = arena_strndup(u->arena, buf, len);
    u->src.len = len;
    free(buf);
    u->check.arena = u->arena;
    u->check.sink = &u->sink;
    u->check.emulate = o && o->emulate;
    return true;
}

bool unit_parse(Unit *u)
{
    u->program = parse_source(u->arena, &u->sink, &u->src);   /* tokens streamed, never all held */
    return u->sink.errors == 0;
}

bool unit_check(Unit *u)
{
    if (!unit_parse(u))
        return false;
    u->check.program = u->program;
    return check_program(&u->check) && u->sink.errors == 0;
}

void unit_free(Unit *u)
{
    arena_free(u->arena);
    u->arena = NULL;
}

const char *host_cc(void)
{
    const char *cc = getenv("CC");
    return cc && *cc ? cc : "cc";
}

const char *cairn_runtime_dir(Arena *a)
{
    const char *home = getenv("CAIRN_HOME");
    if (home && *home)
        return arena_printf(a, "%s/runtime", home);
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return "runtime";
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');       /* .../bin/cairn -> .../bin */
    if (slash)
        *slash = '\0';
    slash = strrchr(exe, '/');             /* .../bin -> ... */
    if (slash)
        *slash = '\0';
    return arena_printf(a, "%s/runtime", exe);
}
