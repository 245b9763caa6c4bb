/*
 * unit.c: options, and one compilation unit through the front end and the
 * checker. Every subcommand that reads a program comes through here, so the
 * pipeline is written once.
 */
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

/* --dump=WHAT names a dump some pass offers (pass.c). */
static bool opt_dump(const char *cmd, const char *what, const char **dst)
{
    if (!pass_dump_known(what)) {
        Arena *a = arena_new();
        fprintf(stderr, "cairn %s: --dump takes one of %s, not '", cmd, pass_dumps(a));
        diag_write_text(stderr, what, strlen(what));
        fputs("'\n", stderr);
        arena_free(a);
        return false;
    }
    *dst = what;
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
        if (!strncmp(a, "--dump=", 7) && allowed_has(allowed, "dump")) {
            if (!opt_dump(cmd, a + 7, &o->dump))
                return false;
            continue;
        }
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
        else if (!strcmp(name, "quiet"))
            o->quiet = true;
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


/* The largest source file cairn reads. Far above any program written by
 * hand or generated for a test (a million-line program is about 30 MiB),
 * and low enough that reading one, and the arena it needs, fit in memory. */
#define SOURCE_MAX_MIB 256
static const off_t source_max = (off_t)SOURCE_MAX_MIB << 20;

static void load_error(const char *path, const char *what)
{
    fputs("cairn: cannot read ", stderr);
    diag_write_text(stderr, path, strlen(path));
    fprintf(stderr, ": %s\n", what);
}

/* What kind of file st is, for a message: not a regular one. */
static const char *file_kind(const struct stat *st)
{
    if (S_ISDIR(st->st_mode))
        return "it is a directory";
    if (S_ISFIFO(st->st_mode))
        return "it is a pipe (FIFO); cairn reads regular files only";
    if (S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode))
        return "it is a device; cairn reads regular files only";
    if (S_ISSOCK(st->st_mode))
        return "it is a socket; cairn reads regular files only";
    return "it is not a regular file";
}

/* The whole of a regular file, at most source_max bytes, into the arena.
 * Opened without blocking (a FIFO's open would wait for a writer) and
 * checked with fstat before a byte is read: a directory, a pipe or a device
 * (/dev/zero would read forever) is refused, and so is a file over the
 * limit. Reading stops at the size fstat gave, so a file that grows while
 * it is read is never read past it. */
static bool read_source(Unit *u, const char *path)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        load_error(path, strerror(errno));
        return false;
    }
    struct stat st;
    const char *why = NULL;
    char size_msg[128];
    if (fstat(fd, &st))
        why = strerror(errno);
    else if (!S_ISREG(st.st_mode))
        why = file_kind(&st);
    else if (st.st_size > source_max) {
        snprintf(size_msg, sizeof size_msg, "it is %lld MiB, and cairn reads source files of at most %d MiB",
                 (long long)((st.st_size + (1 << 20) - 1) >> 20), SOURCE_MAX_MIB);
        why = size_msg;
    }
    size_t len = 0;
    char *buf = why ? NULL : arena_alloc(u->arena, (size_t)st.st_size + 1);
    while (buf && len < (size_t)st.st_size) {
        ssize_t got = read(fd, buf + len, (size_t)st.st_size - len);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            why = strerror(errno);
        if (got <= 0)
            break;                     /* the file shrank: what is there is the source */
        len += (size_t)got;
    }
    close(fd);
    if (why) {
        load_error(path, why);
        return false;
    }
    buf[len] = '\0';
    u->src.text = buf;
    u->src.len = len;
    return true;
}

bool unit_load(Unit *u, const char *path, const Options *o)
{
    memset(u, 0, sizeof *u);
    u->arena = arena_new();
    sink_init(&u->sink, stderr, o && o->json);
    if (!read_source(u, path))
        return false;
    u->src.name = arena_strdup(u->arena, path);
    u->check.arena = u->arena;
    u->check.sink = &u->sink;
    u->check.emulate = o && o->emulate;
    u->dump = o ? o->dump : NULL;
    return true;
}

/* The passes of pass.c, first..last, on this unit (dumps to stdout). */
static bool unit_passes(Unit *u, PassId first, PassId last, Emit *e)
{
    Compilation c = {.arena = u->arena, .sink = &u->sink, .src = &u->src, .check = &u->check, .emit = e,
                     .dump = u->dump, .dump_out = stdout};
    bool ok = passes_run(&c, first, last) && u->sink.errors == 0;
    sink_settle(&u->sink);
    return ok;
}

bool unit_parse(Unit *u)
{
    bool ok = unit_passes(u, PASS_PARSE, PASS_PARSE, NULL);
    u->program = u->check.program;
    return ok;
}

bool unit_check(Unit *u)
{
    return unit_parse(u) && unit_passes(u, PASS_RESOLVE, PASS_DEFERRED, NULL);
}

bool unit_emit(Unit *u, Emit *e)
{
    return unit_passes(u, PASS_ANALYZE, PASS_EMIT, e);
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

/* "FILE: accepted" on stdout, or "FILE: refused (N errors)" on stderr; the
 * name escaped as diagnostics escape it, since it may hold any byte. */
void unit_verdict(const Unit *u, const char *path, bool ok)
{
    FILE *f = ok ? stdout : stderr;
    diag_write_text(f, path, strlen(path));
    if (ok)
        fputs(": accepted\n", f);
    else
        fprintf(f, ": refused (%d error%s)\n", u->sink.errors, u->sink.errors == 1 ? "" : "s");
}
